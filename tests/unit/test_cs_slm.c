/* SPDX-License-Identifier: MIT */
/*
 * test_cs_slm - the memory namespace (Subsystem Local Memory, CSI 03h,
 * docs/command-set.md §9): Identify and effects entries, Memory Read /
 * Write / Fill round trips across chunks, Memory Copy from the memory
 * (format 4h), from staged NVM blocks (2h) and from a database's flash
 * region (Fh), every bound with its status and the Error Information
 * entry naming the field, the modeled cost of Memory Write / Read as the
 * host-link and DRAM calendars give it, and the DRAM budget.
 */
#include "cs_t.h"
#include "flash_timing.h"

static uint8_t *pattern(uint32_t seed, size_t len)
{
	uint8_t *p = malloc(len);

	REQUIRE(p);
	isp_wire_pattern(seed, p, len);
	return p;
}

/* Status @st with DNR and the newest error entry naming SQE byte @loc. */
static void check_err(struct isp_dev *dev, uint16_t st, uint16_t want, int loc,
		      const char *what)
{
	struct isp_wire_err_text e;

	CHECK_EQ_U64(st, want);
	cs_last_err(dev, &e);
	CHECK_EQ_U64(e.status, want);
	if (loc >= 0)
		CHECK_EQ_U64(e.loc, (uint64_t)loc);
	CHECK(e.msg[0] != 0);
	if (st != want || (loc >= 0 && e.loc != (uint16_t)loc))
		fprintf(stderr, "  %s: status 0x%x loc %u '%s'\n", what, st, e.loc, e.msg);
}

static void test_identify(struct isp_dev *dev)
{
	struct isp_wire_cs_id_ns_slm slm;
	struct isp_wire_cs_id_ns_cp cp;
	uint8_t ind[4096];
	uint32_t a, b;

	isp_dev_cs_nsids(dev, &a, &b);
	CHECK_EQ_U64(a, CS_T_SLM);
	CHECK_EQ_U64(b, CS_T_CP);
	CHECK_EQ_U64(isp_dev_cs_csi(dev, 1), (uint64_t)-1);
	CHECK_EQ_U64(isp_dev_cs_csi(dev, CS_T_SLM), ISP_CSI_SLM);
	CHECK_EQ_U64(isp_dev_cs_csi(dev, CS_T_CP), ISP_CSI_CP);
	CHECK_EQ_U64(isp_dev_cs_identify(dev, 0x05, ISP_CSI_SLM, CS_T_SLM, &slm), 0);
	CHECK_EQ_U64(slm.msz, 256ull << 20);
	CHECK_EQ_U64(slm.gran, 2);
	CHECK_EQ_U64(slm.msrc, 127);
	CHECK_EQ_U64(slm.mcl, 8u << 20);
	CHECK_EQ_U64(slm.desfmts, (1u << 2) | (1u << 4) | (1u << 15));
	CHECK_EQ_U64(slm.nvm_nsid, 1);
	CHECK_EQ_U64(slm.cp_nsid, CS_T_CP);
	CHECK_EQ_U64(slm.max_rw, T_MAX_XFER);
	CHECK_EQ_U64(isp_dev_cs_identify(dev, 0x05, ISP_CSI_CP, CS_T_CP, &cp), 0);
	CHECK_EQ_U64(cp.maxact, ISP_CS_NPROGS);
	CHECK_EQ_U64(cp.nprogs, ISP_CS_NPROGS);
	CHECK_EQ_U64(cp.slm_nsid, CS_T_SLM);
	CHECK_EQ_U64(cp.maxmemr, 16);
	CHECK_EQ_U64(cp.maxmemrs, 64);
	CHECK_EQ_U64(cp.mrsg, 2);
	CHECK_EQ_U64(cp.maxpb, 0);
	/* the namespace's set must match, the NVM namespace is not ours */
	CHECK_EQ_U64(isp_dev_cs_identify(dev, 0x05, ISP_CSI_CP, CS_T_SLM, &cp), ISP_BAD_FIELD);
	CHECK_EQ_U64(isp_dev_cs_identify(dev, 0x05, ISP_CSI_SLM, 1, &cp),
		     ISP_SC_INVALID_NSID | ISP_STATUS_DNR);
	CHECK_EQ_U64(isp_dev_cs_identify(dev, 0x08, 0, CS_T_CP, ind), 0);
	CHECK_EQ_U64(ind[14], 1);	/* NSTAT: ready */
	CHECK_EQ_U64(isp_dev_cs_identify(dev, 0x06, ISP_CSI_SLM, 0, ind), 0);
	CHECK_EQ_U64(isp_dev_cs_identify(dev, 0x06, 0x02, 0, ind), ISP_BAD_FIELD);

	CHECK_EQ_U64(isp_dev_cs_effects(0, 1, 0x85), 1);
	CHECK_EQ_U64(isp_dev_cs_effects(0, 1, 0x88), 1);
	CHECK_EQ_U64(isp_dev_cs_effects(0, 1, 0x89), 1);
	CHECK_EQ_U64(isp_dev_cs_effects(0, 1, 0x86), 0);
	CHECK_EQ_U64(isp_dev_cs_effects(ISP_CSI_CP, 0, 0x01), 1);
	CHECK_EQ_U64(isp_dev_cs_effects(ISP_CSI_CP, 0, 0x02), 0);
	CHECK_EQ_U64(isp_dev_cs_effects(ISP_CSI_SLM, 0, 0x02), 1);
	CHECK_EQ_U64(isp_dev_cs_effects(ISP_CSI_SLM, 0, 0x01), 3);
	CHECK_EQ_U64(isp_dev_cs_effects(ISP_CSI_SLM, 0, 0x04), 3);
	CHECK_EQ_U64(isp_dev_cs_effects(ISP_CSI_SLM, 0, 0x05), 3);
	CHECK_EQ_U64(isp_dev_cs_effects(ISP_CSI_SLM, 0, 0x03), 0);
	CHECK_EQ_U64(isp_dev_cs_effects(ISP_CSI_NVM, 0, 0x02), 0);
}

static void test_rw(struct isp_dev *dev)
{
	const uint32_t len = 200 * 1024;	/* four 64 KiB chunks, unaligned to them */
	uint8_t *w = pattern(7, len), *r = malloc(300000), zero[4096] = { 0 };
	struct isp_cmd c;
	uint32_t i;

	REQUIRE(r);
	CHECK_EQ_U64(cs_write(dev, 65536 - 12, w, len), 0);
	CHECK_EQ_U64(cs_read(dev, 65536 - 12, r, len), 0);
	CHECK(memcmp(w, r, len) == 0);
	/* a part of it, and bytes never written */
	CHECK_EQ_U64(cs_read(dev, 65536 + 1000, r, 4000), 0);
	CHECK(memcmp(w + 1012, r, 4000) == 0);
	CHECK_EQ_U64(cs_read(dev, 32ull << 20, r, sizeof(zero)), 0);
	CHECK(memcmp(r, zero, sizeof(zero)) == 0);
	/* the last bytes of the namespace */
	CHECK_EQ_U64(cs_write(dev, (256ull << 20) - 4096, w, 4096), 0);
	CHECK_EQ_U64(cs_read(dev, (256ull << 20) - 4096, r, 4096), 0);
	CHECK(memcmp(w, r, 4096) == 0);

	/* Fill with a pattern, then a zero fill inside it */
	c = cs_mk(ISP_SET_IO, ISP_CS_OP_MEM_FILL, CS_T_SLM);
	c.cdw10 = 1u << 20;
	c.cdw12 = 300000;
	c.cdw13 = 0xa1b2c3d4u;
	CHECK_EQ_U64(cs_run(dev, &c, NULL, 0, NULL), 0);
	c = cs_mk(ISP_SET_IO, ISP_CS_OP_MEM_FILL, CS_T_SLM);
	c.cdw10 = (1u << 20) + 1000;
	c.cdw12 = 96;
	CHECK_EQ_U64(cs_run(dev, &c, NULL, 0, NULL), 0);
	CHECK_EQ_U64(cs_read(dev, 1u << 20, r, 300000), 0);
	for (i = 0; i < 300000; i++) {
		uint8_t want = (uint8_t)(0xa1b2c3d4u >> (8 * (i & 3)));

		if (i >= 1000 && i < 1096)
			want = 0;
		if (r[i] != want) {
			CHECK_EQ_U64(r[i], want);
			break;
		}
	}
	free(w);
	free(r);
}

static void test_rw_errors(struct isp_dev *dev)
{
	uint8_t buf[64] = { 0 };
	struct isp_cpl cpl;
	struct isp_cmd c;

	check_err(dev, cs_mem_rw(dev, ISP_CS_OP_MEM_READ, 0, buf, 0, NULL), ISP_BAD_FIELD,
		  48, "LEN 0");
	check_err(dev, cs_mem_rw(dev, ISP_CS_OP_MEM_WRITE, 2, buf, 64, NULL), ISP_BAD_FIELD,
		  40, "SB unaligned");
	check_err(dev, cs_mem_rw(dev, ISP_CS_OP_MEM_WRITE, 0, buf, 62, NULL), ISP_BAD_FIELD,
		  48, "LEN unaligned");
	check_err(dev, cs_mem_rw(dev, ISP_CS_OP_MEM_READ, (256ull << 20) - 32, buf, 64, NULL),
		  ISP_BAD_FIELD, 40, "past the end");
	check_err(dev, cs_mem_rw(dev, ISP_CS_OP_MEM_READ, UINT64_MAX - 3, buf, 64, NULL),
		  ISP_BAD_FIELD, 40, "SB wraps");
	c = cs_mk(ISP_SET_IO, ISP_CS_OP_MEM_READ, CS_T_SLM);
	c.cdw12 = T_MAX_XFER + 4;
	CHECK_EQ_U64(isp_dev_check(dev, &c, &cpl), ISP_BAD_FIELD);
	c = cs_mk(ISP_SET_IO, ISP_CS_OP_MEM_READ, CS_T_SLM);
	c.cdw12 = 64;
	c.cdw13 = 1;
	check_err(dev, cs_run(dev, &c, buf, 64, NULL), ISP_BAD_FIELD, 52, "CDW13");
	c.cdw13 = 0;
	c.cdw2 = 5;
	check_err(dev, cs_run(dev, &c, buf, 64, NULL), ISP_BAD_FIELD, 8, "CDW2");
	/* a command of the memory set on other namespaces */
	c = cs_mk(ISP_SET_IO, ISP_CS_OP_MEM_READ, 1);
	c.cdw12 = 64;
	check_err(dev, cs_run(dev, &c, buf, 64, NULL), ISP_SC_INVALID_NSID | ISP_STATUS_DNR,
		  4, "NVM nsid");
	c.nsid = CS_T_CP;
	check_err(dev, cs_run(dev, &c, buf, 64, NULL), ISP_SC_INVALID_OPCODE | ISP_STATUS_DNR,
		  -1, "read on compute ns");
	c = cs_mk(ISP_SET_IO, 0x03, CS_T_SLM);
	check_err(dev, cs_run(dev, &c, NULL, 0, NULL), ISP_SC_INVALID_OPCODE | ISP_STATUS_DNR,
		  0, "opcode 03h");
	/* standard completions keep DW0/DW1 zero, also on errors */
	c = cs_mk(ISP_SET_IO, ISP_CS_OP_MEM_READ, CS_T_SLM);
	CHECK(isp_dev_check(dev, &c, &cpl) != 0);
	CHECK_EQ_U64(cpl.result, 0);
	CHECK(cpl.model_ns > 0);
}

/* Memory Write / Read cost what the host link and DRAM calendars say. */
static void test_cost(struct isp_dev *dev)
{
	const struct fp_params *p;
	const uint32_t len = 256 * 1024;
	uint8_t *w = pattern(3, len);
	struct isp_wire_stats st0, st1;
	struct isp_cpl cpl;
	uint64_t want_ps, want_pj;
	struct fp_params pp;

	REQUIRE(fp_preset("reis-ssd1", &pp) == 0);
	p = &pp;
	want_ps = p->ctrl_cmd + ft_t_xfer(len, p->link_mbps) + ft_t_xfer(len, p->dram_mbps);
	want_pj = p->ctrl_cmd * p->core_mhz / 1000000u * p->e_core_cycle +
		  (uint64_t)len * (p->e_link_byte + p->e_dram_byte);
	REQUIRE(isp_dev_log_page(dev, ISP_LID_STATS, &st0, sizeof(st0), 0) == sizeof(st0));
	CHECK_EQ_U64(cs_mem_rw(dev, ISP_CS_OP_MEM_WRITE, 8u << 20, w, len, &cpl), 0);
	CHECK(cpl.model_ns + 1 >= want_ps / 1000 && cpl.model_ns <= want_ps / 1000 + 1);
	CHECK_EQ_U64(cpl.energy_pj, want_pj);
	CHECK_EQ_U64(cpl.result, 0);
	CHECK_EQ_U64(cs_mem_rw(dev, ISP_CS_OP_MEM_READ, 8u << 20, w, len, &cpl), 0);
	CHECK(cpl.model_ns + 1 >= want_ps / 1000 && cpl.model_ns <= want_ps / 1000 + 1);
	CHECK_EQ_U64(cpl.energy_pj, want_pj);
	CHECK_EQ_U64(cpl.xfer_len, len);
	REQUIRE(isp_dev_log_page(dev, ISP_LID_STATS, &st1, sizeof(st1), 0) == sizeof(st1));
	CHECK_EQ_U64(st1.link_bytes_h2c - st0.link_bytes_h2c, len);
	CHECK_EQ_U64(st1.link_bytes_c2h - st0.link_bytes_c2h, len);
	CHECK_EQ_U64(st1.slm_bytes_written - st0.slm_bytes_written, len);
	CHECK_EQ_U64(st1.slm_bytes_read - st0.slm_bytes_read, len);
	CHECK_EQ_U64(st1.cs_cmds[2] - st0.cs_cmds[2], 2);
	CHECK(st1.slm_backed >= len);
	free(w);
}

static struct isp_cmd copy_cmd(uint64_t sd, uint64_t nbyte, unsigned nr, unsigned fmt)
{
	struct isp_cmd c = cs_mk(ISP_SET_IO, ISP_CS_OP_MEM_COPY, CS_T_SLM);

	c.cdw2 = (uint32_t)nbyte;
	c.cdw3 = (uint32_t)(nbyte >> 32);
	c.cdw10 = (uint32_t)sd;
	c.cdw11 = (uint32_t)(sd >> 32);
	c.cdw12 = (nr - 1) | fmt << 8;
	return c;
}

static void test_copy_mem(struct isp_dev *dev)
{
	struct isp_wire_cs_src_mem d[3];
	uint8_t *w = pattern(11, 8192), r[8192];
	struct isp_wire_stats st;
	struct isp_cmd c;

	CHECK_EQ_U64(cs_write(dev, 40u << 20, w, 8192), 0);
	memset(d, 0, sizeof(d));
	d[0].snsid = CS_T_SLM;
	d[0].saddr = (40u << 20) + 4096;
	d[0].nbyte = 4096;
	d[1].snsid = CS_T_SLM;
	d[1].saddr = 40u << 20;
	d[1].nbyte = 1000;
	c = copy_cmd(41u << 20, 5096, 2, ISP_CS_DESFMT_MEM);
	CHECK_EQ_U64(cs_run(dev, &c, d, 64, NULL), 0);
	CHECK_EQ_U64(cs_read(dev, 41u << 20, r, 5096), 0);
	CHECK(memcmp(r, w + 4096, 4096) == 0);
	CHECK(memcmp(r + 4096, w, 1000) == 0);
	REQUIRE(isp_dev_log_page(dev, ISP_LID_STATS, &st, sizeof(st), 0) == sizeof(st));
	CHECK(st.slm_bytes_copied >= 5096);

	/* NBYTE is the sum of the ranges */
	c = copy_cmd(41u << 20, 5100, 2, ISP_CS_DESFMT_MEM);
	check_err(dev, cs_run(dev, &c, d, 64, NULL), ISP_BAD_FIELD, 8, "NBYTE");
	/* a source overlapping the destination */
	c = copy_cmd((40u << 20) + 2048, 5096, 2, ISP_CS_DESFMT_MEM);
	check_err(dev, cs_run(dev, &c, d, 64, NULL), ISP_SC_OVERLAP_IO | ISP_STATUS_DNR, -1,
		  "overlap");
	/* SNSID, reserved bytes, alignment, bounds */
	d[1].snsid = 1;
	c = copy_cmd(41u << 20, 5096, 2, ISP_CS_DESFMT_MEM);
	check_err(dev, cs_run(dev, &c, d, 64, NULL), ISP_SC_INVALID_NSID | ISP_STATUS_DNR,
		  0xffff, "SNSID");
	d[1].snsid = CS_T_SLM;
	d[1].rsvd2[3] = 1;
	check_err(dev, cs_run(dev, &c, d, 64, NULL), ISP_BAD_FIELD, 0xffff, "rsvd");
	d[1].rsvd2[3] = 0;
	d[1].saddr = (256ull << 20) - 500;
	check_err(dev, cs_run(dev, &c, d, 64, NULL), ISP_BAD_FIELD, 0xffff, "source bounds");
	/* command fields */
	c = copy_cmd(41u << 20, 5096, 129, ISP_CS_DESFMT_MEM);
	check_err(dev, cs_run(dev, &c, NULL, 0, NULL), ISP_SC_CMD_SIZE_LIMIT | ISP_STATUS_DNR,
		  48, "NR");
	c = copy_cmd(41u << 20, (8u << 20) + 4, 1, ISP_CS_DESFMT_MEM);
	check_err(dev, cs_run(dev, &c, NULL, 0, NULL), ISP_SC_CMD_SIZE_LIMIT | ISP_STATUS_DNR,
		  8, "MCL");
	c = copy_cmd(41u << 20, 5096, 2, 0x3);
	check_err(dev, cs_run(dev, &c, NULL, 0, NULL), ISP_BAD_FIELD, 49, "DESFMT 3h");
	c = copy_cmd((256ull << 20) - 1024, 5096, 2, ISP_CS_DESFMT_MEM);
	check_err(dev, cs_run(dev, &c, NULL, 0, NULL), ISP_BAD_FIELD, 40, "destination");
	c = copy_cmd(41u << 20, 5096, 2, ISP_CS_DESFMT_MEM);
	c.cdw12 |= 1u << 20;
	check_err(dev, cs_run(dev, &c, NULL, 0, NULL), ISP_BAD_FIELD, 48, "CDW12 rsvd");
	free(w);
}

/* Format 2h: the transport stages the blocks isp_dev_cs_copy_lbas() names. */
static void test_copy_lba(struct isp_dev *dev)
{
	struct isp_wire_cs_src_lba d[2];
	struct isp_cs_lba_range rg[4];
	struct isp_cs_stage stage;
	struct isp_wire_stats st0, st1;
	struct isp_cpl cpl;
	struct isp_cmd c;
	uint8_t *lbas = pattern(21, 512 * 64), *buf, r[512 * 12];
	unsigned n, i;
	size_t off;

	memset(d, 0, sizeof(d));
	d[0].snsid = 1;
	d[0].slba = 10;
	d[0].nlb = 3;		/* 4 blocks */
	d[1].snsid = 1;
	d[1].slba = 40;
	d[1].nlb = 7;		/* 8 blocks */
	c = copy_cmd(50u << 20, 12 * 512, 2, ISP_CS_DESFMT_LBA);
	CHECK_EQ_U64(isp_dev_check(dev, &c, &cpl), 0);
	CHECK_EQ_U64(isp_dev_cmd_len(dev, &c), 64);
	CHECK_EQ_U64(isp_dev_cs_copy_lbas(dev, &c, d, sizeof(d), 512, rg, 4, &n, &cpl), 0);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(rg[0].slba, 10);
	CHECK_EQ_U64(rg[0].nlb, 4);
	CHECK_EQ_U64(rg[1].slba, 40);
	CHECK_EQ_U64(rg[1].nlb, 8);
	buf = malloc(64 + sizeof(stage) + 12 * 512);
	REQUIRE(buf);
	memcpy(buf, d, 64);
	stage.lba_bytes = 512;
	stage.nranges = 2;
	memcpy(buf + 64, &stage, sizeof(stage));
	off = 64 + sizeof(stage);
	for (i = 0; i < n; i++) {
		memcpy(buf + off, lbas + rg[i].slba * 512, rg[i].nlb * 512);
		off += rg[i].nlb * 512;
	}
	REQUIRE(isp_dev_log_page(dev, ISP_LID_STATS, &st0, sizeof(st0), 0) == sizeof(st0));
	CHECK_EQ_U64(isp_dev_exec(dev, &c, buf, off, &cpl), 0);
	if (cpl.status)
		fprintf(stderr, "  copy 2h: %s / %s\n", cpl.err, cpl.err_msg);
	REQUIRE(isp_dev_log_page(dev, ISP_LID_STATS, &st1, sizeof(st1), 0) == sizeof(st1));
	/* bytes 5120..7167 and 20480..24575: pages 0 and 1 of 16 KiB (CS2) */
	CHECK_EQ_U64(st1.page_reads[ISP_CELL_TLC] - st0.page_reads[ISP_CELL_TLC], 2);
	CHECK_EQ_U64(cs_read(dev, 50u << 20, r, sizeof(r)), 0);
	CHECK(memcmp(r, lbas + 10 * 512, 4 * 512) == 0);
	CHECK(memcmp(r + 4 * 512, lbas + 40 * 512, 8 * 512) == 0);
	/* without its staged bytes the command fails, no DNR (transport's fault) */
	CHECK_EQ_U64(isp_dev_exec(dev, &c, buf, 64, &cpl), ISP_SC_INTERNAL);
	/* the sum must be NBYTE for the namespace's block size */
	CHECK_EQ_U64(isp_dev_cs_copy_lbas(dev, &c, d, sizeof(d), 4096, rg, 4, &n, &cpl),
		     ISP_BAD_FIELD);
	d[1].snsid = CS_T_SLM;
	CHECK_EQ_U64(isp_dev_cs_copy_lbas(dev, &c, d, sizeof(d), 512, rg, 4, &n, &cpl),
		     ISP_SC_INVALID_NSID | ISP_STATUS_DNR);
	free(buf);
	free(lbas);
}

/* Format Fh: bytes of a deployed database's TLC region (its META). */
static void test_copy_db(struct isp_dev *dev)
{
	struct isp_wire_cs_src_db d;
	struct t_db db;
	struct isp_cmd c;
	uint8_t r[20000];

	t_db_make(&db, 9, ISP_REIS_BF, 128, 64, 0, 0, ISP_REIS_DOC_NONE, 0, 5);
	t_db_meta(&db, 20000, 77);
	CHECK_EQ_U64(t_deploy(dev, &db, 65536), 0);
	memset(&d, 0, sizeof(d));
	d.did = 9;
	d.region = ISP_CS_REGION_TLC;
	d.offset = 0;
	d.nbyte = 20000;
	c = copy_cmd(52u << 20, 20000, 1, ISP_CS_DESFMT_DB);
	CHECK_EQ_U64(cs_run(dev, &c, &d, sizeof(d), NULL), 0);
	CHECK_EQ_U64(cs_read(dev, 52u << 20, r, sizeof(r)), 0);
	CHECK(memcmp(r, db.meta, 20000) == 0);
	/* the SLC region holds the binary codes */
	d.region = ISP_CS_REGION_SLC;
	d.nbyte = 16;
	c = copy_cmd(53u << 20, 16, 1, ISP_CS_DESFMT_DB);
	CHECK_EQ_U64(cs_run(dev, &c, &d, sizeof(d), NULL), 0);
	/* past the region, unknown database, bad region */
	d.offset = 1ull << 40;
	check_err(dev, cs_run(dev, &c, &d, sizeof(d), NULL), ISP_BAD_FIELD, 0xffff, "past");
	d.offset = 0;
	d.did = 99;
	check_err(dev, cs_run(dev, &c, &d, sizeof(d), NULL), ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR,
		  0xffff, "did");
	d.did = 9;
	d.region = 2;
	check_err(dev, cs_run(dev, &c, &d, sizeof(d), NULL), ISP_BAD_FIELD, 0xffff, "region");
	t_db_free(&db);
}

/* The memory is backed from the controller DRAM budget as it is written. */
static void test_budget(void)
{
	struct isp_dev *dev = t_open("reis-ssd1", "dram_bytes=1m", NULL);
	struct isp_wire_cs_id_ns_slm id;
	uint8_t *w = pattern(1, 512 * 1024);

	REQUIRE(dev);
	CHECK_EQ_U64(isp_dev_cs_identify(dev, 0x05, ISP_CSI_SLM, CS_T_SLM, &id), 0);
	CHECK_EQ_U64(id.msz, 1u << 20);		/* no more than the budget */
	CHECK_EQ_U64(id.muse, 0);
	CHECK_EQ_U64(cs_write(dev, 0, w, 512 * 1024), 0);
	CHECK_EQ_U64(fs_dram_used(isp_dev_store(dev), "slm"), 512 * 1024);
	/* a REIS database takes DRAM; the rest of the memory cannot be backed */
	REQUIRE(fs_dram_reserve(isp_dev_store(dev), "test", 300 * 1024) == 0);
	check_err(dev, cs_write(dev, 512 * 1024, w, 512 * 1024),
		  ISP_SC_INSUFF_RES | ISP_STATUS_DNR, 40, "budget");
	/* what was written stays */
	CHECK_EQ_U64(cs_read(dev, 0, w, 4096), 0);
	isp_dev_close(dev);
	free(w);
	/* off: no namespaces, every standard command is Invalid Opcode */
	{
		struct isp_dev_config cfg;
		struct isp_cpl cpl;
		struct isp_cmd c = cs_mk(ISP_SET_IO, ISP_CS_OP_MEM_READ, CS_T_SLM);
		uint32_t a, b;

		memset(&cfg, 0, sizeof(cfg));
		cfg.max_xfer = T_MAX_XFER;
		cfg.cs_off = 1;
		REQUIRE(isp_dev_open(&cfg, &dev, NULL, 0) == 0);
		isp_dev_cs_nsids(dev, &a, &b);
		CHECK_EQ_U64(a | b, 0);
		c.cdw12 = 64;
		CHECK_EQ_U64(isp_dev_check(dev, &c, &cpl), ISP_SC_INVALID_OPCODE | ISP_STATUS_DNR);
		isp_dev_close(dev);
		cfg.cs_off = 0;
		cfg.slm_nsid = 1;
		CHECK_EQ_U64(isp_dev_open(&cfg, &dev, NULL, 0), (uint64_t)-EINVAL);
	}
}

int main(void)
{
	struct isp_dev *dev = t_open("reis-ssd1", "blocks_per_plane=16;slc_blocks=8", NULL);

	REQUIRE(dev);
	test_identify(dev);
	test_rw(dev);
	test_rw_errors(dev);
	test_cost(dev);
	test_copy_mem(dev);
	test_copy_lba(dev);
	test_copy_db(dev);
	isp_dev_close(dev);
	test_budget();
	return t_result();
}
