/* SPDX-License-Identifier: MIT */
/*
 * test_isp_dev - the device commands of docs/command-set.md section 3 and the
 * decode checks of section 1, straight through isp_dev_exec().
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "flash_preset.h"
#include "isp_dev.h"
#include "isp_internal.h"
#include <dirent.h>
#include <stdio.h>
#include <unistd.h>

#define MAX_XFER (512u * 1024u)

static struct isp_cmd mk(uint8_t opc, uint32_t len)
{
	struct isp_cmd c;

	memset(&c, 0, sizeof(c));
	c.opcode = opc;
	c.nsid = 1;
	c.cdw10 = len / 4;
	c.submit_ns = 1000000;
	return c;
}

static uint16_t run(struct isp_dev *dev, struct isp_cmd *c, void *buf,
		    struct isp_cpl *cpl)
{
	struct isp_cpl chk;
	uint16_t st = isp_dev_check(dev, c, &chk);
	uint16_t st2 = isp_dev_exec(dev, c, buf, isp_cmd_data_len(c), cpl);

	/* check() and exec() must agree on every decode error. */
	if (st)
		CHECK_EQ_U64(st, st2);
	return st2;
}

static void test_open_errors(void)
{
	struct isp_dev_config cfg = { .max_xfer = MAX_XFER };
	struct isp_dev *dev;
	char err[256];

	cfg.preset = "no-such-preset";	/* a bad option: -EINVAL, as libreis says */
	CHECK(isp_dev_open(&cfg, &dev, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "reis-ssd1") != NULL);
	cfg.preset = "reis-ssd2";
	cfg.params = "channels=0";
	CHECK(isp_dev_open(&cfg, &dev, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "channels") != NULL);
	cfg.params = "bogus_key=1";
	CHECK(isp_dev_open(&cfg, &dev, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "bogus_key") != NULL);
	cfg.params = NULL;
	cfg.max_xfer = 100;
	CHECK(isp_dev_open(&cfg, &dev, err, sizeof(err)) == -EINVAL);
	CHECK(dev == NULL);
}

static void test_identify(struct isp_dev *dev)
{
	struct isp_wire_identify id;
	struct isp_cmd c = mk(ISP_OP_IDENTIFY, sizeof(id));
	struct isp_cpl cpl;
	uint8_t vs[ISP_ID_CTRL_VS_LEN];
	struct isp_wire_identify log;

	CHECK_EQ_U64(run(dev, &c, &id, &cpl), 0);
	CHECK(memcmp(id.magic, "ISP1", 4) == 0);
	CHECK_EQ_U64(id.ver_major, ISP_WIRE_VERSION_MAJOR);
	CHECK_EQ_U64(id.channels, 16);		/* reis-ssd2, REIS Table 3 */
	CHECK_EQ_U64(id.dies_per_channel, 8);
	CHECK_EQ_U64(id.planes_per_die, 4);
	CHECK_EQ_U64(id.channel_mbps, 2000);
	CHECK_EQ_U64(id.t_read_ns[ISP_CELL_SLC], 22500);
	CHECK_EQ_U64(id.blocks_per_plane, 32);	/* from params override */
	CHECK_EQ_U64(id.max_xfer, MAX_XFER);
	CHECK(strcmp(id.preset, "reis-ssd2") == 0);
	CHECK_EQ_U64(id.nparts, 2);
	CHECK_EQ_U64(id.parts[0].cell_mode, ISP_CELL_SLC);
	CHECK_EQ_U64(id.parts[0].pages_per_block, id.pages_per_block / 3);
	CHECK_EQ_U64(id.parts[1].cell_mode, ISP_CELL_TLC);
	CHECK_EQ_U64(id.parts[1].first_block, id.parts[0].nblocks);
	CHECK_EQ_U64(cpl.xfer_len, sizeof(id));
	CHECK(cpl.model_ns > 0);
	CHECK_EQ_U64(isp_wire_result_time_ns(cpl.result), cpl.model_ns);

	isp_dev_id_ctrl_vs(dev, vs);
	CHECK(memcmp(vs, &id, sizeof(vs)) == 0);
	CHECK_EQ_U64(isp_dev_log_page(dev, ISP_LID_IDENTIFY, &log, sizeof(log), 0),
		     sizeof(log));
	CHECK(memcmp(&log, &id, sizeof(log)) == 0);
	CHECK_EQ_U64(isp_dev_log_page(dev, ISP_LID_IDENTIFY, &log, 100, 4090), 6);
	CHECK(isp_dev_log_page(dev, ISP_LID_IDENTIFY, &log, 100, 4096) == -EINVAL);
	CHECK(isp_dev_log_page(dev, 0xc7, &log, 100, 0) == -EINVAL);

	c.cdw12 = 1;	/* unknown CNS */
	CHECK_EQ_U64(run(dev, &c, &id, &cpl), ISP_SC_INVALID_FIELD | ISP_STATUS_DNR);
	CHECK(cpl.err != NULL);
}

static void test_echo(struct isp_dev *dev)
{
	static const uint32_t sizes[] = { 4, 512, 4096, 65540, MAX_XFER };
	uint8_t *buf = malloc(MAX_XFER), *ref = malloc(MAX_XFER);
	struct isp_cpl cpl;
	uint64_t prev = 0;
	size_t i;

	REQUIRE(buf && ref);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct isp_cmd c = mk(ISP_OP_ECHO_C2H, sizes[i]);

		/* Far apart in device time, so nothing queues on the link. */
		c.submit_ns = (uint64_t)(i + 1) * 10000000000u;
		c.cdw12 = 0x1234u + 2u * (uint32_t)i;
		memset(buf, 0, sizes[i]);
		CHECK_EQ_U64(run(dev, &c, buf, &cpl), 0);
		isp_wire_pattern(c.cdw12, ref, sizes[i]);
		CHECK(memcmp(buf, ref, sizes[i]) == 0);
		/* Bigger transfers take longer over the link. */
		CHECK(cpl.model_ns > prev);
		prev = cpl.model_ns;

		c.opcode = ISP_OP_ECHO_H2C;
		c.submit_ns += 1000000000;
		CHECK_EQ_U64(run(dev, &c, buf, &cpl), 0);
		buf[sizes[i] - 1] ^= 0x40;
		CHECK_EQ_U64(run(dev, &c, buf, &cpl), ISP_SC_MISCOMPARE | ISP_STATUS_DNR);
		c.cdw12 += 2;	/* other seed (bit 0 is forced): other pattern */
		buf[sizes[i] - 1] ^= 0x40;
		if (sizes[i] >= 8)
			CHECK_EQ_U64(run(dev, &c, buf, &cpl),
				     ISP_SC_MISCOMPARE | ISP_STATUS_DNR);
	}
	free(buf);
	free(ref);
}

static void test_bad_input(struct isp_dev *dev)
{
	uint8_t *buf = calloc(1, MAX_XFER + 4);
	struct isp_cpl cpl;
	struct isp_cmd c;
	const uint16_t bad = ISP_SC_INVALID_FIELD | ISP_STATUS_DNR;
	unsigned opc;

	REQUIRE(buf);
	/* Every opcode we do not define is invalid, never a crash. */
	for (opc = 0x80; opc <= 0xff; opc++) {
		c = mk((uint8_t)opc, (opc & 3) ? 4096 : 0);
		if (isp_opcode_name((uint8_t)opc))
			continue;
		CHECK_EQ_U64(run(dev, &c, (opc & 3) ? buf : NULL, &cpl),
			     ISP_SC_INVALID_OPCODE | ISP_STATUS_DNR);
		CHECK(cpl.err != NULL);
		CHECK(cpl.model_ns > 0);
	}
	c = mk(ISP_OP_NOOP, 4);			/* data on a no-data command */
	CHECK_EQ_U64(run(dev, &c, buf, &cpl), bad);
	c = mk(ISP_OP_ECHO_C2H, 0);		/* no data on a data command */
	CHECK_EQ_U64(run(dev, &c, NULL, &cpl), bad);
	c = mk(ISP_OP_ECHO_C2H, MAX_XFER + 4);	/* over max_xfer */
	CHECK_EQ_U64(run(dev, &c, buf, &cpl), bad);
	c = mk(ISP_OP_ECHO_C2H, 64);
	c.cdw10 = UINT32_MAX;			/* NDT overflow */
	CHECK_EQ_U64(isp_dev_check(dev, &c, &cpl), bad);
	c = mk(ISP_OP_IDENTIFY, 2048);		/* fixed-size command */
	CHECK_EQ_U64(run(dev, &c, buf, &cpl), bad);
	c = mk(ISP_OP_STATS, 4096);
	c.cdw11 = 1;				/* NDM */
	CHECK_EQ_U64(run(dev, &c, buf, &cpl), bad);
	c = mk(ISP_OP_NOOP, 0);
	c.cdw15 = 7;				/* reserved */
	CHECK_EQ_U64(run(dev, &c, NULL, &cpl), bad);
	c = mk(ISP_OP_NOOP, 0);
	c.nsid = 0;
	CHECK_EQ_U64(run(dev, &c, NULL, &cpl), ISP_SC_INVALID_NSID | ISP_STATUS_DNR);
	c = mk(ISP_OP_STATS, 4096);
	c.cdw12 = 2;				/* unknown flag */
	CHECK_EQ_U64(run(dev, &c, buf, &cpl), bad);
	/* exec() with a buffer that disagrees with NDT. */
	c = mk(ISP_OP_ECHO_C2H, 4096);
	CHECK_EQ_U64(isp_dev_exec(dev, &c, buf, 4092, &cpl), bad);
	c = mk(ISP_OP_RESULT_READ, 4096);		/* no such ticket */
	c.cdw12 = 42;
	CHECK_EQ_U64(run(dev, &c, buf, &cpl), ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR);
	c.cdw12 = 0;
	CHECK_EQ_U64(run(dev, &c, buf, &cpl), bad);
	c.cdw12 = 42;
	c.cdw13 = 4;				/* unknown flag */
	CHECK_EQ_U64(run(dev, &c, buf, &cpl), bad);
	c = mk(ISP_OP_RESULT_RELEASE, 0);
	c.cdw12 = 42;
	CHECK_EQ_U64(run(dev, &c, NULL, &cpl), ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR);
	c = mk(ISP_OP_NOOP, 0);
	CHECK_EQ_U64(run(dev, &c, NULL, &cpl), 0);	/* still alive */
	free(buf);
}

static void test_stats(struct isp_dev *dev)
{
	struct isp_wire_stats st, st2;
	struct isp_cmd c = mk(ISP_OP_STATS, sizeof(st));
	struct isp_cpl cpl;

	c.cdw12 = ISP_STATS_RESET;
	CHECK_EQ_U64(run(dev, &c, &st, &cpl), 0);
	CHECK(st.cmds[ISP_CLS_DEVICE] > 10);
	CHECK(st.errors[ISP_CLS_DEVICE] > 0);
	CHECK(st.link_bytes_c2h > MAX_XFER);
	CHECK(st.link_bytes_h2c > MAX_XFER);
	CHECK(st.energy_pj > 0);
	c = mk(ISP_OP_NOOP, 0);
	CHECK_EQ_U64(run(dev, &c, NULL, &cpl), 0);
	c = mk(ISP_OP_STATS, sizeof(st));
	CHECK_EQ_U64(run(dev, &c, &st2, &cpl), 0);
	/* Counted after the reset: the resetting command itself and the noop;
	 * a command is counted once it completes, after its snapshot. */
	CHECK_EQ_U64(st2.cmds[ISP_CLS_DEVICE], 2);
	CHECK_EQ_U64(st2.errors[ISP_CLS_DEVICE], 0);
	CHECK_EQ_U64(st2.nres[ISP_RES_LINK], 2);	/* one per direction */
	CHECK_EQ_U64(isp_dev_log_page(dev, ISP_LID_STATS, &st, sizeof(st), 0), sizeof(st));
	CHECK_EQ_U64(st.cmds[ISP_CLS_DEVICE], 3);
}

/* A reason longer than C2h's field is cut visibly, never silently. */
static void test_err_msg_cut(void)
{
	struct isp_cpl cpl;
	char want[ISP_ERR_MSG_LEN];

	memset(&cpl, 0, sizeof(cpl));
	isp_err_at(&cpl, 0, 0, 0, "%s", "short reason");
	CHECK(strcmp(cpl.err_msg, "short reason") == 0);
	isp_err_at(&cpl, 0, 0, 0, "%0200d", 7);
	CHECK_EQ_U64(strlen(cpl.err_msg), ISP_ERR_MSG_LEN - 1);
	memset(want, '0', sizeof(want));
	memcpy(want + ISP_ERR_MSG_LEN - 4, "...", 4);
	CHECK(strcmp(cpl.err_msg, want) == 0);
}

static void test_result_encoding(void)
{
	static const uint64_t e[] = { 0, 1, 7390, (1u << 19) - 1, 1u << 19,
				      69060000, UINT64_C(123456789012) };
	size_t i;

	for (i = 0; i < sizeof(e) / sizeof(e[0]); i++) {
		uint64_t r = isp_wire_result_pack(55390, e[i]);
		uint64_t d = isp_wire_result_energy_nj(r);

		CHECK_EQ_U64(isp_wire_result_time_ns(r), 55390);
		CHECK(d <= e[i]);
		/* 19-bit mantissa: relative error below 2^-18. */
		CHECK(e[i] - d <= e[i] / (1u << 18));
	}
	CHECK_EQ_U64(isp_wire_result_time_ns(isp_wire_result_pack(UINT64_MAX, 0)),
		     ISP_RESULT_TIME_MAX);
}

static void test_effects(void)
{
	uint32_t eff;

	CHECK(isp_dev_opcode_supported(ISP_OP_NOOP, &eff) && eff == 1);
	CHECK(isp_dev_opcode_supported(ISP_OP_IDENTIFY, &eff) && eff == 1);
	CHECK(!isp_dev_opcode_supported(0xff, &eff) && eff == 0);
	CHECK(!isp_dev_opcode_supported(0x02, &eff));
	CHECK(strcmp(isp_status_name(ISP_SC_MISCOMPARE | ISP_STATUS_DNR),
		     "ISP Miscompare") == 0);
}

/* TRACE_ARM: the next matching command's timeline comes back as a result. */
static void test_trace(struct isp_dev *dev)
{
	struct isp_wire_result_hdr hdr;
	struct isp_cmd c = mk(ISP_OP_TRACE_ARM, 0);
	struct isp_cpl cpl;
	uint8_t buf[4096], page[64 * 1024];
	char *json;

	c.cdw12 = 77;
	c.cdw13 = ISP_OP_ECHO_C2H;
	CHECK_EQ_U64(run(dev, &c, NULL, &cpl), 0);
	CHECK_EQ_U64(run(dev, &c, NULL, &cpl), ISP_SC_BUSY | ISP_STATUS_DNR);
	c.cdw13 = 0x10;				/* not a vendor opcode */
	c.cdw12 = 78;
	CHECK_EQ_U64(run(dev, &c, NULL, &cpl), ISP_BAD_FIELD);
	/* Not yet traced: the result is not ready. */
	c = mk(ISP_OP_RESULT_READ, sizeof(buf));
	c.cdw12 = 77;
	CHECK_EQ_U64(run(dev, &c, buf, &cpl), ISP_SC_BUSY | ISP_STATUS_DNR);
	c = mk(ISP_OP_NOOP, 0);			/* filtered out */
	CHECK_EQ_U64(run(dev, &c, NULL, &cpl), 0);
	c = mk(ISP_OP_ECHO_C2H, sizeof(page));
	CHECK_EQ_U64(run(dev, &c, page, &cpl), 0);
	c = mk(ISP_OP_RESULT_READ, sizeof(buf));
	c.cdw12 = 77;
	CHECK_EQ_U64(run(dev, &c, buf, &cpl), 0);
	memcpy(&hdr, buf, sizeof(hdr));
	CHECK(memcmp(hdr.magic, "RSLT", 4) == 0);
	CHECK_EQ_U64(hdr.kind, ISP_RESULT_TRACE);
	CHECK_EQ_U64(hdr.ticket, 77);
	CHECK(hdr.total_bytes > sizeof(hdr) + 20);
	json = malloc(hdr.total_bytes + 1);
	REQUIRE(json);
	/* Read the whole JSON at its offset, then release. */
	c = mk(ISP_OP_RESULT_READ, (uint32_t)((hdr.total_bytes - sizeof(hdr) + 3) & ~3ull));
	c.cdw12 = 77;
	c.cdw13 = ISP_RESULT_F_RELEASE;
	c.cdw14 = sizeof(hdr);
	if (isp_cmd_data_len(&c) <= MAX_XFER) {
		CHECK_EQ_U64(run(dev, &c, json, &cpl), 0);
		json[hdr.total_bytes - sizeof(hdr)] = 0;
		CHECK(strstr(json, "traceEvents") != NULL);
		CHECK(strstr(json, "DMA c2h") != NULL);
	}
	free(json);
	c = mk(ISP_OP_RESULT_READ, sizeof(buf));
	c.cdw12 = 77;
	CHECK_EQ_U64(run(dev, &c, buf, &cpl), ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR);

	/* A ticket another command holds: Ticket In Use, nothing armed. */
	REQUIRE(isp_results_reserve(isp_dev_results(dev), 79, 16, 0) == 0);
	c = mk(ISP_OP_TRACE_ARM, 0);
	c.cdw12 = 79;
	c.cdw13 = ISP_OP_ECHO_C2H;
	CHECK_EQ_U64(run(dev, &c, NULL, &cpl), 0x47c9);
	CHECK(strcmp(cpl.err, "ticket in use") == 0);
	CHECK(strcmp(isp_status_name(0x47c9), "ISP Ticket In Use") == 0);
	isp_results_cancel(isp_dev_results(dev), 79);
	CHECK_EQ_U64(run(dev, &c, NULL, &cpl), 0);	/* now free */
	c = mk(ISP_OP_ECHO_C2H, 4096);
	CHECK_EQ_U64(run(dev, &c, page, &cpl), 0);
	c = mk(ISP_OP_RESULT_RELEASE, 0);
	c.cdw12 = 79;
	CHECK_EQ_U64(run(dev, &c, NULL, &cpl), 0);
}

/* A backing file keeps committed metadata; isp-trace-dir gets files. */
static void test_backing_and_trace_dir(void)
{
	char dir[] = "/tmp/isp-dev-XXXXXX", path[512];
	struct isp_dev_config cfg = { .preset = "recflash-slc", .max_xfer = MAX_XFER };
	struct isp_dev *dev;
	struct isp_cmd c;
	struct isp_cpl cpl;
	char err[256];
	uint64_t seq;
	struct dirent *de;
	DIR *d;
	int files = 0;

	REQUIRE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/flash.img", dir);
	cfg.backing = path;
	cfg.trace_dir = dir;
	REQUIRE(isp_dev_open(&cfg, &dev, err, sizeof(err)) == 0);
	CHECK_EQ_U64(isp_dev_commit(dev), 0);
	seq = fs_meta_seq(isp_dev_store(dev));
	CHECK(seq > 0);
	c = mk(ISP_OP_NOOP, 0);
	CHECK_EQ_U64(run(dev, &c, NULL, &cpl), 0);
	isp_dev_close(dev);
	/* Another geometry on the same file is refused, not reformatted. */
	cfg.preset = "recflash-tlc";
	CHECK(isp_dev_open(&cfg, &dev, err, sizeof(err)) < 0);
	CHECK(err[0] != 0);
	cfg.preset = "recflash-slc";
	REQUIRE(isp_dev_open(&cfg, &dev, err, sizeof(err)) == 0);
	CHECK_EQ_U64(fs_meta_seq(isp_dev_store(dev)), seq);
	isp_dev_close(dev);
	d = opendir(dir);
	REQUIRE(d);
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "isp-", 4) == 0 && strstr(de->d_name, "ISP_NOOP"))
			files++;
		if (de->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			unlink(path);
		}
	}
	closedir(d);
	rmdir(dir);
	CHECK_EQ_U64(files, 1);
}

int main(void)
{
	struct isp_dev_config cfg = {
		.preset = "reis-ssd2",
		.params = "blocks_per_plane=32;slc_blocks=8",
		.max_xfer = MAX_XFER,
	};
	struct isp_dev *dev;
	char err[256];

	test_open_errors();
	test_result_encoding();
	test_err_msg_cut();
	test_effects();
	REQUIRE(isp_dev_open(&cfg, &dev, err, sizeof(err)) == 0);
	test_identify(dev);
	test_echo(dev);
	test_bad_input(dev);
	test_stats(dev);
	test_trace(dev);
	isp_dev_close(dev);
	test_backing_and_trace_dir();
	return t_result();
}
