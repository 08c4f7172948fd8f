/* SPDX-License-Identifier: MIT */
/*
 * test_ftl_dsm - Dataset Management, Attribute Deallocate, through the FTL
 * (ftl_deallocate(), docs/ftl.md "Deallocation"):
 *   - the whole units of every range leave the map, partial units stay,
 *     valid counts follow, reads of them then cost no flash;
 *   - the cost against hand computation: the firmware path once, then 8
 *     bytes of controller DRAM per unit covered and 8 more per unit that
 *     was mapped, at dram_mbps; no flash access;
 *   - Write Zeroes (FTL_TRIM) costs the same per range;
 *   - a bad range (empty, past the namespace), no ranges or too many, and
 *     an unattached namespace change nothing;
 *   - the device's entry point (isp_dev_dealloc(), the QEMU glue's).
 *
 * Drive: reis-ssd1 timing on 2 channels x 1 die x 2 planes, 6 TLC pages
 * per block, 16 KiB pages (4 units), as test_ftl_map.
 */
#include <errno.h>
#include <stdint.h>

#include "check.h"
#include "ftl_int.h"
#include "ftl_t.h"
#include "reis_t.h"

#define GEOM "channels=2;dies_per_channel=1;planes_per_die=2;blocks_per_plane=8;" \
	     "slc_blocks=0;pages_per_block=6;ftl_op=0;ftl_fill=0;ftl_wbuf=64k;ftl_cyc_cmd=1500"
#define SEC 1000000000ull	/* 1 s: every command starts on an idle drive */
#define KB 4096ull

/* Firmware path (1500 cycles at 1500 MHz, on the FTL's core), then @bytes
 * of DRAM at 9600 MB/s (reis-ssd1), in ns as the completion rounds it. */
static uint64_t want_ns(const struct t_ftl *t, uint64_t fw_ps, uint64_t bytes)
{
	uint64_t ps = fw_ps + (bytes ? ft_t_xfer(bytes, t->p.dram_mbps) : 0);

	return (ps + 999) / 1000;
}

int main(void)
{
	struct t_ftl t;
	struct ftl_cpl c;
	struct ftl_stats s0, s1;
	struct ftl_range r[3];
	uint64_t fw, nr0;
	char err[256];
	uint32_t u;

	t_ftl_open(&t, GEOM);
	REQUIRE(ftl_attach(t.ftl, 1, 192 * KB, err, sizeof(err)) == 0);
	/* units 0..15 written and on flash */
	REQUIRE(t_ftl_cmd(&t, FTL_WRITE, 0, 16 * KB, SEC, &c) == 0);
	REQUIRE(t_ftl_cmd(&t, FTL_FLUSH, 0, 0, SEC, &c) == 0);

	/* the firmware path alone: a range inside one unit deallocates nothing */
	r[0].off = 100;
	r[0].len = 1000;
	t.clock += SEC;
	REQUIRE(ftl_deallocate(t.ftl, 1, r, 1, t.clock, &c) == 0);
	fw = ft_t_cycles(&t.p, 1500);		/* 1 us */
	CHECK_EQ_U64(c.model_ns, want_ns(&t, fw, 0));
	CHECK(t.ftl->map[0] != FTL_NONE);

	/* three ranges: units 1-2 (and half of 3), 6-9, 40-49 (never written) */
	r[0].off = KB;
	r[0].len = 2 * KB + 2048;
	r[1].off = 6 * KB;
	r[1].len = 4 * KB;
	r[2].off = 40 * KB;
	r[2].len = 10 * KB;
	ftl_get_stats(t.ftl, &s0, 0);
	nr0 = s0.reads;
	t.clock += SEC;
	REQUIRE(ftl_deallocate(t.ftl, 1, r, 3, t.clock, &c) == 0);
	ftl_get_stats(t.ftl, &s1, 0);
	/* 16 units covered, 6 of them mapped: 16 x 8 + 6 x 8 = 176 bytes */
	CHECK_EQ_U64(s1.trim_units - s0.trim_units, 6);
	CHECK_EQ_U64(s1.trims - s0.trims, 1);
	CHECK_EQ_U64(s1.valid_units, 16 - 6);
	CHECK_EQ_U64(c.model_ns, want_ns(&t, fw, 176));
	CHECK(c.model_ns > fw / 1000);
	CHECK_EQ_U64(s1.nand_write_bytes, s0.nand_write_bytes);
	for (u = 0; u < 16; u++) {
		int gone = (u >= 1 && u <= 2) || (u >= 6 && u <= 9);

		CHECK_EQ_U64(t.ftl->map[u] == FTL_NONE, gone);
	}
	/* the deallocated units read as zeros from the controller: no flash */
	REQUIRE(t_ftl_cmd(&t, FTL_READ, 6 * KB, 4 * KB, SEC, &c) == 0);
	CHECK_EQ_U64(c.flash_reads, 0);
	ftl_get_stats(t.ftl, &s1, 0);
	CHECK_EQ_U64(s1.reads - nr0, 1);
	CHECK_EQ_U64(s1.unmapped_reads - s0.unmapped_reads, 4);
	CHECK(ftl_dirty(t.ftl));

	/* Write Zeroes of units 10-11: the same cost rule, one range */
	REQUIRE(t_ftl_cmd(&t, FTL_TRIM, 10 * KB, 2 * KB, SEC, &c) == 0);
	CHECK_EQ_U64(c.model_ns, want_ns(&t, fw, 2 * 8 + 2 * 8));
	CHECK_EQ_U64(t.ftl->map[10], FTL_NONE);

	/* bad requests change nothing */
	ftl_get_stats(t.ftl, &s0, 0);
	r[0].off = 12 * KB;
	r[0].len = KB;
	r[1].off = 190 * KB;
	r[1].len = 3 * KB;		/* past the 192 KiB namespace */
	CHECK(ftl_deallocate(t.ftl, 1, r, 2, t.clock, &c) == -EINVAL);
	CHECK(t.ftl->map[12] != FTL_NONE);
	r[1].off = 20 * KB;
	r[1].len = 0;
	CHECK(ftl_deallocate(t.ftl, 1, r, 2, t.clock, &c) == -EINVAL);
	CHECK(ftl_deallocate(t.ftl, 1, r, 0, t.clock, &c) == -EINVAL);
	CHECK(ftl_deallocate(t.ftl, 1, r, FTL_DSM_MAX + 1, t.clock, &c) == -EINVAL);
	CHECK(ftl_deallocate(t.ftl, 7, r, 1, t.clock, &c) == -ENOENT);
	CHECK(t.ftl->map[12] != FTL_NONE);
	ftl_get_stats(t.ftl, &s1, 0);
	CHECK_EQ_U64(s1.trims, s0.trims);
	t_ftl_close(&t);

	{
		struct isp_dev *dev = t_open("reis-ssd1", "blocks_per_plane=16;slc_blocks=8", NULL);

		REQUIRE(dev);
		REQUIRE(isp_dev_ns_attach(dev, 1, 64ull << 20, err, sizeof(err)) == 0);
		r[0].off = 0;
		r[0].len = 1ull << 20;
		ftl_get_stats(isp_dev_ftl(dev), &s0, 0);
		CHECK_EQ_U64(isp_dev_dealloc(dev, 1, r, 1, SEC, &c), 0);
		ftl_get_stats(isp_dev_ftl(dev), &s1, 0);
		/* ftl_fill: all 256 units were mapped */
		CHECK_EQ_U64(s1.trim_units - s0.trim_units, 256);
		CHECK(c.model_ns > 0);
		CHECK_EQ_U64(isp_dev_dealloc(dev, 2, r, 1, SEC, &c), (uint64_t)-ENOENT);
		isp_dev_close(dev);
	}
	return t_result();
}
