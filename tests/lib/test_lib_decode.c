/* SPDX-License-Identifier: MIT */
/*
 * test_lib_decode - decoding what the drive returns. The 64-bit completion
 * result (time bits 39:0, energy as a 5-bit exponent / 19-bit mantissa
 * float in bits 63:40) decodes as isp_wire.h packs it, including
 * saturation and rounding; reis_info_decode() refuses malformed identify
 * data (signature, major version, max_xfer, partition count, short buffer)
 * and sanitizes the preset name; reis_stats_decode() copies every counter.
 */
#include <errno.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "check.h"
#include "isp_wire.h"
#include "libreis.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next64(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void check_result(void)
{
	unsigned i;

	/* Hand-made values. */
	CHECK_EQ_U64(reis_result_time_ns(0), 0);
	CHECK_EQ_U64(reis_result_energy_nj(0), 0);
	CHECK_EQ_U64(reis_result_time_ns(isp_wire_result_pack(1234, 0)), 1234);
	CHECK_EQ_U64(reis_result_time_ns(isp_wire_result_pack(UINT64_MAX, 0)),
		     (UINT64_C(1) << 40) - 1);
	CHECK_EQ_U64(reis_result_energy_nj(isp_wire_result_pack(0, 524287)), 524287);
	CHECK_EQ_U64(reis_result_energy_nj(isp_wire_result_pack(0, 524288)), 524288);
	CHECK_EQ_U64(reis_result_energy_nj(isp_wire_result_pack(0, 524289)), 524288);
	CHECK_EQ_U64(reis_result_energy_nj(isp_wire_result_pack(0, 1048575)), 1048574);
	/* Bit layout: exponent 3, mantissa 5, time 7. */
	{
		uint64_t r = 7 | (UINT64_C(5) << 40) | (UINT64_C(3) << 59);

		CHECK_EQ_U64(reis_result_time_ns(r), 7);
		CHECK_EQ_U64(reis_result_energy_nj(r), 40);
	}
	/* Random: decode equals the reference, time exact, energy within 2^-18. */
	for (i = 0; i < 100000; i++) {
		uint64_t t = next64() >> (next64() % 64);
		uint64_t e = next64() >> (20 + next64() % 44);
		uint64_t r = isp_wire_result_pack(t, e);
		uint64_t de = reis_result_energy_nj(r);

		CHECK_EQ_U64(reis_result_time_ns(r), isp_wire_result_time_ns(r));
		CHECK_EQ_U64(de, isp_wire_result_energy_nj(r));
		CHECK_EQ_U64(reis_result_time_ns(r), t > ISP_RESULT_TIME_MAX ?
			     ISP_RESULT_TIME_MAX : t);
		CHECK(de <= e);
		CHECK(e - de <= (e >> 18));
		if (t_failures > 20)
			break;
	}
}

static void check_info(void)
{
	struct isp_wire_identify id;
	struct reis_info in;

	memset(&id, 0, sizeof(id));
	memcpy(id.magic, "ISP1", 4);
	id.ver_major = 1;
	id.ver_minor = 7;
	id.caps = REIS_CAP_ECHO | (UINT64_C(1) << 40);
	id.max_xfer = 65536;
	id.channels = 3;
	id.nparts = 2;
	id.parts[1].cell_mode = REIS_CELL_QLC;
	id.parts[1].nblocks = 9;
	memcpy(id.preset, "abc", 3);
	id.t_read_ns[REIS_CELL_TLC] = 60000;
	id.max_dbs = 5;
	CHECK(reis_info_decode(&id, sizeof(id), &in) == 0);
	CHECK_EQ_U64(in.ver_minor, 7);
	CHECK_EQ_U64(in.caps, id.caps);
	CHECK_EQ_U64(in.max_xfer, 65536);
	CHECK_EQ_U64(in.channels, 3);
	CHECK_EQ_U64(in.parts[1].cell_mode, REIS_CELL_QLC);
	CHECK_EQ_U64(in.parts[1].nblocks, 9);
	CHECK_EQ_U64(in.t_read_ns[REIS_CELL_TLC], 60000);
	CHECK_EQ_U64(in.max_dbs, 5);
	CHECK(strcmp(in.preset, "abc") == 0);

	/* Name without NUL, with junk: bounded and printable. */
	memset(id.preset, 'x', sizeof(id.preset));
	id.preset[3] = '\n';
	id.preset[4] = '"';
	id.preset[5] = (char)0xff;
	CHECK(reis_info_decode(&id, sizeof(id), &in) == 0);
	CHECK_EQ_U64(strlen(in.preset), REIS_PRESET_LEN);
	CHECK(strncmp(in.preset, "xxx???xx", 8) == 0);
	memcpy(id.preset, "abc", 4);

	CHECK(reis_info_decode(&id, sizeof(id) - 1, &in) == -EINVAL);
	CHECK(reis_info_decode(NULL, sizeof(id), &in) == -EINVAL);
	id.magic[3] = '2';
	CHECK(reis_info_decode(&id, sizeof(id), &in) == -EPROTO);
	id.magic[3] = '1';
	id.ver_major = 2;
	CHECK(reis_info_decode(&id, sizeof(id), &in) == -EPROTO);
	id.ver_major = 1;
	id.max_xfer = 0;
	CHECK(reis_info_decode(&id, sizeof(id), &in) == -EPROTO);
	id.max_xfer = 2048;
	CHECK(reis_info_decode(&id, sizeof(id), &in) == -EPROTO);
	id.max_xfer = ISP_MAX_XFER_CAP + 4;
	CHECK(reis_info_decode(&id, sizeof(id), &in) == -EPROTO);
	id.max_xfer = 65538;
	CHECK(reis_info_decode(&id, sizeof(id), &in) == -EPROTO);
	id.max_xfer = ISP_MAX_XFER_CAP;
	CHECK(reis_info_decode(&id, sizeof(id), &in) == 0);
	id.nparts = ISP_WIRE_MAX_PARTS + 1;
	CHECK(reis_info_decode(&id, sizeof(id), &in) == -EPROTO);
	id.nparts = UINT32_MAX;
	CHECK(reis_info_decode(&id, sizeof(id), &in) == -EPROTO);
}

static void check_stats(void)
{
	struct isp_wire_stats w;
	struct reis_stats st;
	uint64_t *p = (uint64_t *)(void *)&w;
	unsigned i;

	memset(&w, 0, sizeof(w));
	for (i = 0; i < sizeof(w) / 8; i++)
		p[i] = 1000 + i;	/* every counter distinct */
	CHECK(reis_stats_decode(&w, sizeof(w), &st) == 0);
	CHECK_EQ_U64(sizeof(st), 416 + 96);
	CHECK(memcmp(&st, &w, 416) == 0);	/* same order, same values */
	CHECK_EQ_U64(st.cmds[0], 1000);
	CHECK_EQ_U64(st.remaps, 1000 + 416 / 8 - 1);
	/* the standard interface's block (offset 3584) follows in order */
	CHECK_EQ_U64(offsetof(struct isp_wire_stats, cs_cmds), 3584);
	CHECK(memcmp(st.std_cmds, (const uint8_t *)&w + 3584, 96) == 0);
	CHECK_EQ_U64(st.std_cmds[0], 1000 + 3584 / 8);
	CHECK_EQ_U64(st.slm_backed, 1000 + 3584 / 8 + 11);
	CHECK(reis_stats_decode(&w, sizeof(w) - 1, &st) == -EINVAL);
}

/* The FTL's counters (offset 416 on): each field from its own place. */
static void check_ftl_stats(void)
{
	struct isp_wire_stats w;
	struct reis_ftl_stats f;

	memset(&w, 0, sizeof(w));
	w.ftl_reads = 1;
	w.ftl_writes = 2;
	w.ftl_read_bytes = 3;
	w.ftl_write_bytes = 4;
	w.ftl_nand_write_bytes = 5;
	w.ftl_gc_write_bytes = 6;
	w.ftl_gc_victims = 7;
	w.ftl_erases = 8;
	w.ftl_flushes = 9;
	w.ftl_trims = 10;
	w.ftl_buf_hits = 11;
	w.ftl_stalls = 12;
	w.ftl_io_model_ns = 13;
	w.ftl_read_model_ns = 14;
	w.ftl_write_model_ns = 15;
	w.ftl_wa_milli = 16;
	w.ftl_op_permille = 17;
	w.ftl_user_bytes = 18;
	w.ftl_phys_bytes = 19;
	w.ftl_stripes = 20;
	w.ftl_stripes_min = 21;
	w.ftl_free_blocks = 22;
	w.ftl_erase_max = 23;
	CHECK(reis_ftl_stats_decode(&w, sizeof(w), &f) == 0);
	CHECK_EQ_U64(f.reads, 1);
	CHECK_EQ_U64(f.writes, 2);
	CHECK_EQ_U64(f.read_bytes, 3);
	CHECK_EQ_U64(f.write_bytes, 4);
	CHECK_EQ_U64(f.nand_write_bytes, 5);
	CHECK_EQ_U64(f.gc_write_bytes, 6);
	CHECK_EQ_U64(f.gc_victims, 7);
	CHECK_EQ_U64(f.erases, 8);
	CHECK_EQ_U64(f.flushes, 9);
	CHECK_EQ_U64(f.trims, 10);
	CHECK_EQ_U64(f.buf_hits, 11);
	CHECK_EQ_U64(f.stalls, 12);
	CHECK_EQ_U64(f.io_model_ns, 13);
	CHECK_EQ_U64(f.read_model_ns, 14);
	CHECK_EQ_U64(f.write_model_ns, 15);
	CHECK_EQ_U64(f.wa_milli, 16);
	CHECK_EQ_U64(f.op_permille, 17);
	CHECK_EQ_U64(f.user_bytes, 18);
	CHECK_EQ_U64(f.phys_bytes, 19);
	CHECK_EQ_U64(f.stripes, 20);
	CHECK_EQ_U64(f.stripes_min, 21);
	CHECK_EQ_U64(f.free_blocks, 22);
	CHECK_EQ_U64(f.erase_max, 23);
	CHECK(reis_ftl_stats_decode(&w, sizeof(w) - 1, &f) == -EINVAL);
}

int main(void)
{
	check_result();
	check_info();
	check_stats();
	check_ftl_stats();
	return t_result();
}
