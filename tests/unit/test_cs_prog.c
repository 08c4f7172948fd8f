/* SPDX-License-Identifier: MIT */
/*
 * test_cs_prog - the compute namespace (Computational Programs, CSI 04h,
 * docs/command-set.md §9): Load Program refuses downloads with the spec's
 * statuses, Program Activation Management, Memory Range Set Management
 * with every bound, and Execute Program of each device-defined program:
 * REIS brute-force and IVF search (target recall), RecFlash SLS, the
 * documents of a hit list and the management program return the same
 * bytes as the vendor commands on the same database, and a search costs
 * the vendor SEARCH's energy with its host-link transfer replaced by the
 * DRAM moves of the memory namespace.
 */
#include "cs_t.h"
#include "test_rf_util.h"
#include "flash_timing.h"

#define IN_SB 0ull
#define IN_LEN (1u << 20)
#define OUT_SB (1ull << 20)
#define OUT_LEN (32u << 20)

static struct fp_params P;

static void check_st(struct isp_dev *dev, uint16_t st, uint16_t want, int loc, const char *what)
{
	struct isp_wire_err_text e;

	CHECK_EQ_U64(st, want);
	cs_last_err(dev, &e);
	CHECK_EQ_U64(e.status, want);
	if (loc >= 0)
		CHECK_EQ_U64(e.loc, (uint64_t)loc);
	if (st != want || (loc >= 0 && e.loc != (uint16_t)loc))
		fprintf(stderr, "  %s: status 0x%x loc %u '%s'\n", what, st, e.loc, e.msg);
}

/* The same for a field in the program's input data (byte @byte of it). */
static void check_dt(struct isp_dev *dev, uint16_t st, uint16_t want, unsigned byte,
		     const char *what)
{
	struct isp_wire_err_text e;

	CHECK_EQ_U64(st, want);
	cs_last_err(dev, &e);
	CHECK_EQ_U64(e.status, want);
	CHECK_EQ_U64(e.loc, ISP_ERR_LOC_NONE);
	CHECK_EQ_U64(e.data_byte, byte + 1u);
	if (st != want || e.data_byte != byte + 1u)
		fprintf(stderr, "  %s: status 0x%x data byte %u '%s'\n", what, st,
			e.data_byte, e.msg);
}

/* Read an output blob of the result kinds out of the memory. */
static uint8_t *read_blob(struct isp_dev *dev, uint64_t sb, uint64_t *total)
{
	struct isp_wire_result_hdr h;
	uint64_t off;
	uint8_t *b;

	REQUIRE(cs_read(dev, sb, &h, sizeof(h)) == 0);
	REQUIRE(memcmp(h.magic, "RSLT", 4) == 0 && h.total_bytes >= sizeof(h));
	*total = h.total_bytes;
	b = malloc(h.total_bytes + 4);
	REQUIRE(b);
	for (off = 0; off < h.total_bytes; off += T_MAX_XFER) {
		uint64_t n = h.total_bytes - off < T_MAX_XFER ? h.total_bytes - off : T_MAX_XFER;

		REQUIRE(cs_read(dev, sb + off, b + off, (uint32_t)((n + 3) & ~3ull)) == 0);
	}
	return b;
}

static void test_load_act(struct isp_dev *dev)
{
	struct isp_cmd c;

	c = cs_mk(ISP_SET_ADMIN, ISP_CS_OP_LOAD_PROGRAM, CS_T_CP);
	c.cdw10 = 0;		/* PIND 0, load */
	c.cdw14 = 4096;		/* NUMB: never transferred */
	check_st(dev, cs_run(dev, &c, NULL, 0, NULL), ISP_SC_PIND_NOT_DL | ISP_STATUS_DNR, 40,
		 "load into a device-defined slot");
	c.cdw10 = 4 | ISP_CS_LP_SEL_UNLOAD;
	check_st(dev, cs_run(dev, &c, NULL, 0, NULL), ISP_SC_PIND_NOT_DL | ISP_STATUS_DNR, 40,
		 "unload");
	c.cdw10 = 5;
	check_st(dev, cs_run(dev, &c, NULL, 0, NULL), ISP_SC_INVALID_PIND | ISP_STATUS_DNR, 40,
		 "PIND past the table");
	c.cdw10 = 1u << 30;
	check_st(dev, cs_run(dev, &c, NULL, 0, NULL), ISP_BAD_FIELD, 40, "reserved bits");
	c = cs_mk(ISP_SET_ADMIN, ISP_CS_OP_LOAD_PROGRAM, CS_T_SLM);
	check_st(dev, cs_run(dev, &c, NULL, 0, NULL), ISP_SC_INVALID_NSID | ISP_STATUS_DNR, 4,
		 "admin command for the memory namespace");
	c = cs_mk(ISP_SET_ADMIN, 0x86, CS_T_CP);
	check_st(dev, cs_run(dev, &c, NULL, 0, NULL), ISP_SC_INVALID_OPCODE | ISP_STATUS_DNR,
		 0, "admin opcode of another set");

	c = cs_mk(ISP_SET_ADMIN, ISP_CS_OP_PROGRAM_ACT, CS_T_CP);
	c.cdw10 = 0 | 2u << 16;
	check_st(dev, cs_run(dev, &c, NULL, 0, NULL), ISP_BAD_FIELD, 42, "SEL 2");
	c.cdw10 = 7 | 1u << 16;
	check_st(dev, cs_run(dev, &c, NULL, 0, NULL), ISP_SC_INVALID_PIND | ISP_STATUS_DNR, 40,
		 "activate PIND 7");
	c.cdw10 = 1u << 16;
	c.cdw11 = 1;
	check_st(dev, cs_run(dev, &c, NULL, 0, NULL), ISP_BAD_FIELD, 44, "CDW11");
}

static void test_mrs(struct isp_dev *dev)
{
	struct isp_wire_cs_mrd r[2];
	uint64_t sb[2] = { 0, 4096 };
	uint32_t len[2] = { 4096, 4096 };
	uint16_t ids[64], id;
	struct isp_cpl cpl;
	struct isp_cmd c;
	unsigned i;

	c = cs_mk(ISP_SET_ADMIN, ISP_CS_OP_MRS_MGMT, CS_T_CP);
	memset(r, 0, sizeof(r));
	r[0].mnsid = CS_T_CP;		/* the compute namespace holds no memory */
	r[0].len = 64;
	c.cdw11 = 1;
	check_st(dev, cs_run(dev, &c, r, 32, NULL), ISP_SC_INVALID_MEM_NS | ISP_STATUS_DNR,
		 0xffff, "MNSID");
	r[0].mnsid = CS_T_SLM;
	r[0].sb = (256ull << 20) - 32;
	check_st(dev, cs_run(dev, &c, r, 32, NULL), ISP_SC_INVALID_MRS | ISP_STATUS_DNR,
		 0xffff, "past the end");
	r[0].sb = 2;
	check_st(dev, cs_run(dev, &c, r, 32, NULL), ISP_SC_INVALID_MRS | ISP_STATUS_DNR,
		 0xffff, "unaligned");
	r[0].sb = 0;
	r[0].rsvd[5] = 1;
	check_st(dev, cs_run(dev, &c, r, 32, NULL), ISP_BAD_FIELD, 0xffff, "reserved");
	r[0].rsvd[5] = 0;
	r[1] = r[0];
	r[1].sb = 32;
	c.cdw11 = 2;
	check_st(dev, cs_run(dev, &c, r, 64, NULL), ISP_SC_OVERLAP_MR | ISP_STATUS_DNR, 0xffff,
		 "overlap");
	c.cdw11 = 17;
	check_st(dev, cs_run(dev, &c, NULL, 0, NULL), ISP_SC_MAX_MR | ISP_STATUS_DNR, 44,
		 "NUMR 17");
	c.cdw11 = 0;
	check_st(dev, cs_run(dev, &c, NULL, 0, NULL), ISP_BAD_FIELD, 44, "NUMR 0");
	c.cdw11 = 1;
	c.cdw10 = 5u << 16;
	check_st(dev, cs_run(dev, &c, r, 32, NULL), ISP_BAD_FIELD, 42, "create with RSID");
	c.cdw10 = 3;
	check_st(dev, cs_run(dev, &c, r, 32, NULL), ISP_BAD_FIELD, 40, "SEL 3");
	check_st(dev, cs_mrs_delete(dev, 999), ISP_SC_INVALID_RSID | ISP_STATUS_DNR, 42,
		 "delete unknown");
	/* up to 64 sets; the identifiers differ and come back in DW0 */
	for (i = 0; i < 64; i++) {
		CHECK_EQ_U64(cs_mrs_create(dev, sb, len, 2, &ids[i]), 0);
		CHECK(ids[i] != 0 && (i == 0 || ids[i] != ids[i - 1]));
	}
	check_st(dev, cs_mrs_create(dev, sb, len, 2, &id), ISP_SC_MAX_MRS | ISP_STATUS_DNR, 40,
		 "65th set");
	for (i = 0; i < 64; i++)
		CHECK_EQ_U64(cs_mrs_delete(dev, ids[i]), 0);
	CHECK_EQ_U64(cs_mrs_create(dev, sb, len, 2, &id), 0);
	CHECK_EQ_U64(cs_mrs_delete(dev, id), 0);
	check_st(dev, cs_mrs_delete(dev, id), ISP_SC_INVALID_RSID | ISP_STATUS_DNR, 42,
		 "delete twice");
	(void)cpl;
}

static uint16_t io_set(struct isp_dev *dev)
{
	uint64_t sb[2] = { IN_SB, OUT_SB };
	uint32_t len[2] = { IN_LEN, OUT_LEN };
	uint16_t id = 0;

	REQUIRE(cs_mrs_create(dev, sb, len, 2, &id) == 0);
	return id;
}

/* The vendor search of @o / @q and the same search as a program. */
static void compare_search(struct isp_dev *dev, uint16_t rsid, int ivf, const struct t_sopts *o,
			   const struct t_query *q, int exact_energy, const char *what)
{
	struct isp_wire_result_hdr h;
	struct t_res r;
	struct isp_cpl cpl;
	size_t len;
	uint8_t *in = t_search_data(o, q, &len), *b;
	uint64_t total, want_pj;
	uint16_t st;

	st = t_search(dev, ivf, o, q, &r);
	CHECK_EQ_U64(st, 0);
	CHECK_EQ_U64(cs_write(dev, IN_SB, in, (uint32_t)len), 0);
	st = cs_exec(dev, ivf ? ISP_CS_PROG_REIS_IVF : ISP_CS_PROG_REIS_SEARCH, rsid,
		     (uint32_t)len, 0, 0, &cpl);
	CHECK_EQ_U64(st, 0);
	if (st || r.len == 0) {
		fprintf(stderr, "  %s: %s %s\n", what, cpl.err, cpl.err_msg);
		free(in);
		t_res_free(&r);
		return;
	}
	/* the 64-bit return value is the cost, as a vendor completion's */
	CHECK_EQ_U64(isp_wire_result_time_ns(cpl.result), cpl.model_ns);
	b = read_blob(dev, OUT_SB, &total);
	memcpy(&h, b, sizeof(h));
	CHECK_EQ_U64(total, r.len);
	CHECK_EQ_U64(h.kind, r.hdr.kind);
	CHECK_EQ_U64(h.hdr_bytes, r.hdr.hdr_bytes);
	CHECK_EQ_U64(h.ticket, 0);
	if (total == r.len && memcmp(b + sizeof(h), r.blob + sizeof(h), total - sizeof(h))) {
		CHECK(!"program output differs from the vendor result");
		fprintf(stderr, "  in %s\n", what);
	}
	if (exact_energy) {
		/* the queries come out of DRAM instead of over the link, and the
		 * result goes into DRAM instead of RESULT_READ's link transfer */
		want_pj = r.search_pj - len * P.e_link_byte + len * P.e_dram_byte +
			  total * P.e_dram_byte;
		CHECK_EQ_U64(cpl.energy_pj, want_pj);
		/* and the time: the same work, within the link/DRAM rate difference */
		CHECK(cpl.model_ns + 2 >= r.search_ns - ft_t_xfer(len, P.link_mbps) / 1000 +
		      ft_t_xfer(len, P.dram_mbps) / 1000);
		CHECK(cpl.model_ns <= r.search_ns + (ft_t_xfer(len, P.dram_mbps) +
						      ft_t_xfer(total, P.dram_mbps)) / 1000 + 2);
	}
	free(b);
	free(in);
	t_res_free(&r);
}

static void test_search(struct isp_dev *dev, uint16_t rsid)
{
	struct t_db bf, ivf;
	struct t_query qb, qi;
	struct t_sopts o;

	t_db_make(&bf, 1, ISP_REIS_BF, 512, 2500, 0, ISP_REIS_DBF_INT8 | ISP_REIS_DBF_TAGS,
		  ISP_REIS_DOC_SUBPAGE, 4096, 3);
	CHECK_EQ_U64(t_deploy(dev, &bf, 65536), 0);
	t_db_make(&ivf, 2, ISP_REIS_IVF, 256, 3000, 30, ISP_REIS_DBF_INT8, ISP_REIS_DOC_PAGE,
		  16384, 9);
	CHECK_EQ_U64(t_deploy(dev, &ivf, 65536), 0);
	t_queries(&qb, &bf, 8, 4);
	t_queries(&qi, &ivf, 6, 8);

	/* Execute before activation */
	check_st(dev, cs_exec(dev, 0, rsid, 64, 0, 0, NULL),
		 ISP_SC_PROG_NOT_ACTIVE | ISP_STATUS_DNR, 8, "not active");
	CHECK_EQ_U64(cs_activate(dev, ISP_CS_PROG_REIS_SEARCH, 1), 0);
	CHECK_EQ_U64(cs_activate(dev, ISP_CS_PROG_REIS_SEARCH, 1), 0);	/* idempotent */
	CHECK_EQ_U64(cs_activate(dev, ISP_CS_PROG_REIS_IVF, 1), 0);

	memset(&o, 0, sizeof(o));
	o.did = 1;
	o.k = 10;
	compare_search(dev, rsid, 0, &o, &qb, 1, "bf rerank");
	o.flags = ISP_REIS_SF_NO_RERANK;
	compare_search(dev, rsid, 0, &o, &qb, 1, "bf no rerank");
	o.flags = ISP_REIS_SF_TAG;
	o.tag = 2;
	o.thr = 230;
	compare_search(dev, rsid, 0, &o, &qb, 1, "bf tag df");
	o.flags = ISP_REIS_SF_DOCS;
	o.tag = 0;
	o.thr = 0;
	o.k = 25;
	compare_search(dev, rsid, 0, &o, &qb, 0, "bf docs");
	memset(&o, 0, sizeof(o));
	o.did = 2;
	o.k = 10;
	o.nprobe = 4;
	compare_search(dev, rsid, 1, &o, &qi, 1, "ivf nprobe 4");
	o.nprobe = 0;
	o.target = 7000;	/* nprobe from the calibration table */
	compare_search(dev, rsid, 1, &o, &qi, 1, "ivf target recall 0.7");
	o.flags = ISP_REIS_SF_DOCS | ISP_REIS_SF_NO_RERANK;
	compare_search(dev, rsid, 1, &o, &qi, 0, "ivf docs");

	/* the engine's own errors come through, naming the field of the input */
	{
		struct isp_wire_err_text e;
		size_t len;
		uint8_t *in;

		memset(&o, 0, sizeof(o));
		o.did = 1;
		o.k = 0;
		in = t_search_data(&o, &qb, &len);
		CHECK_EQ_U64(cs_write(dev, IN_SB, in, (uint32_t)len), 0);
		CHECK_EQ_U64(cs_exec(dev, 0, rsid, (uint32_t)len, 0, 0, NULL), ISP_BAD_FIELD);
		cs_last_err(dev, &e);
		CHECK_EQ_U64(e.opcode, ISP_CS_OP_EXECUTE);
		CHECK_EQ_U64(e.nsid, CS_T_CP);
		CHECK_EQ_U64(e.data_byte, 8 + 1);	/* k, byte 8 of the input */
		o.k = 5;
		o.did = 77;
		free(in);
		in = t_search_data(&o, &qb, &len);
		CHECK_EQ_U64(cs_write(dev, IN_SB, in, (uint32_t)len), 0);
		check_st(dev, cs_exec(dev, 0, rsid, (uint32_t)len, 0, 0, NULL),
			 ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR, 0xffff, "did 77");
		/* brute-force search given to the IVF program */
		o.did = 1;
		o.nprobe = 2;
		free(in);
		in = t_search_data(&o, &qb, &len);
		CHECK_EQ_U64(cs_write(dev, IN_SB, in, (uint32_t)len), 0);
		CHECK_EQ_U64(cs_exec(dev, ISP_CS_PROG_REIS_IVF, rsid, (uint32_t)len, 0, 0, NULL),
			     ISP_BAD_FIELD);
		free(in);
	}
	t_queries_free(&qb);
	t_queries_free(&qi);
	t_db_free(&bf);
	t_db_free(&ivf);
}

/* Parameter data instead of range 0; the command's own field bounds. */
static void test_exec_fields(struct isp_dev *dev, uint16_t rsid)
{
	struct t_db db;
	struct t_query q;
	struct t_sopts o;
	struct isp_cpl cpl;
	struct isp_cmd c;
	uint64_t sb1[1] = { 0 }, sb3[2] = { 0, 8192 };
	uint32_t l1[1] = { 4096 }, l3[2] = { 4096, 256 };
	uint16_t one, small;
	size_t len;
	uint8_t *in, *b;
	uint64_t total;

	t_db_make(&db, 5, ISP_REIS_BF, 128, 300, 0, 0, ISP_REIS_DOC_NONE, 0, 17);
	CHECK_EQ_U64(t_deploy(dev, &db, 65536), 0);
	t_queries(&q, &db, 1, 2);
	memset(&o, 0, sizeof(o));
	o.did = 5;
	o.k = 4;
	o.flags = ISP_REIS_SF_NO_RERANK;
	in = t_search_data(&o, &q, &len);	/* 72 + 16 bytes */
	c = cs_mk(ISP_SET_IO, ISP_CS_OP_EXECUTE, CS_T_CP);
	c.cdw2 = ISP_CS_PROG_REIS_SEARCH | (uint32_t)rsid << 16;
	c.cdw4 = (uint32_t)len;
	CHECK_EQ_U64(cs_run(dev, &c, in, len, &cpl), 0);
	b = read_blob(dev, OUT_SB, &total);
	CHECK_EQ_U64(total, 64 + 72 + 4 * 40);
	free(b);
	c.cdw10 = 8;		/* input given twice */
	check_st(dev, cs_run(dev, &c, in, len, &cpl), ISP_BAD_FIELD, 40, "CPARAM1 with DLEN");
	c.cdw10 = 0;
	c.cdw4 = 4100;
	check_st(dev, cs_run(dev, &c, NULL, 4100, &cpl), ISP_BAD_FIELD, 16, "DLEN");
	c.cdw4 = 0;
	c.cdw3 = 1;
	check_st(dev, cs_run(dev, &c, NULL, 0, &cpl), ISP_BAD_FIELD, 12, "NUMR");
	c.cdw3 = 0;
	c.cdw14 = 1;
	check_st(dev, cs_run(dev, &c, NULL, 0, &cpl), ISP_BAD_FIELD, 56, "CDW14");
	c.cdw14 = 0;
	c.cdw2 = 9 | (uint32_t)rsid << 16;
	check_st(dev, cs_run(dev, &c, NULL, 0, &cpl), ISP_SC_INVALID_PIND | ISP_STATUS_DNR, 8,
		 "PIND 9");
	c.cdw2 = 0 | 4242u << 16;
	check_st(dev, cs_run(dev, &c, NULL, 0, &cpl), ISP_SC_INVALID_RSID | ISP_STATUS_DNR, 10,
		 "RSID");
	/* input and output bounds of the ranges */
	check_st(dev, cs_exec(dev, 0, rsid, IN_LEN, 4, 0, NULL), ISP_BAD_FIELD, 40,
		 "input past range 0");
	check_st(dev, cs_exec(dev, 0, rsid, 0, 0, 0, NULL), ISP_BAD_FIELD, 40, "input 0");
	check_st(dev, cs_exec(dev, 0, rsid, 88, 0, OUT_LEN, NULL), ISP_BAD_FIELD, 48,
		 "output offset");
	c = cs_mk(ISP_SET_IO, ISP_CS_OP_EXECUTE, CS_T_CP);
	c.cdw13 = 1;
	check_st(dev, cs_run(dev, &c, NULL, 0, &cpl), ISP_BAD_FIELD, 52, "CPARAM2 high");
	/* a set of one range; an output range too small for the result */
	REQUIRE(cs_mrs_create(dev, sb1, l1, 1, &one) == 0);
	check_st(dev, cs_exec(dev, 0, one, 88, 0, 0, NULL), ISP_SC_INVALID_MRS | ISP_STATUS_DNR,
		 10, "one range");
	REQUIRE(cs_mrs_create(dev, sb3, l3, 2, &small) == 0);
	CHECK_EQ_U64(cs_write(dev, 0, in, (uint32_t)len), 0);
	CHECK_EQ_U64(cs_exec(dev, 0, small, (uint32_t)len, 0, 0, NULL), ISP_BAD_FIELD);
	CHECK_EQ_U64(cs_mrs_delete(dev, one), 0);
	CHECK_EQ_U64(cs_mrs_delete(dev, small), 0);
	free(in);
	t_queries_free(&q);
	t_db_free(&db);
}

static void test_sls(struct isp_dev *dev, uint16_t rsid)
{
	struct isp_wire_rf_create cr = rt_cr(7, 3000, 32, ISP_RF_FP32, ISP_RF_RECFLASH);
	struct rt_batch bt;
	struct rt_sls_out o;
	struct isp_cpl cpl;
	uint64_t total;
	float *rows;
	uint8_t *in, *b;
	size_t len, i;

	rows = malloc((size_t)cr.rows * cr.dim * 4);
	REQUIRE(rows);
	for (i = 0; i < (size_t)cr.rows * cr.dim; i++)
		rows[i] = (float)((int)(i * 2654435761u % 2001) - 1000) / 64.0f;
	CHECK_EQ_U64(rt_deploy(dev, &cr, rows, NULL), 0);
	rt_batch_random(&bt, 64, 20, cr.rows, 1, 5);
	CHECK_EQ_U64(cs_activate(dev, ISP_CS_PROG_RF_SLS, 1), 0);
	len = rt_sls_data(7, cr.dim, 0, &bt, &in);
	CHECK_EQ_U64(cs_write(dev, IN_SB, in, (uint32_t)len), 0);
	CHECK_EQ_U64(cs_exec(dev, ISP_CS_PROG_RF_SLS, rsid, (uint32_t)len, 0, 0, &cpl), 0);
	b = read_blob(dev, OUT_SB, &total);
	/* the vendor SLS afterwards: the cache state the program left is the
	 * one a second vendor SLS sees, the sums do not depend on it */
	CHECK_EQ_U64(rt_sls_at(dev, 7, cr.dim, 0, &bt, 0, &o), 0);
	CHECK_EQ_U64(total, 64 + 96 + 4ull * bt.nbags * cr.dim);
	CHECK(memcmp(b + 160, o.v, 4ull * bt.nbags * cr.dim) == 0);
	CHECK_EQ_U64(((struct isp_wire_rf_result *)(void *)(b + 64))->nbags, bt.nbags);
	free(b);
	free(in);
	free(o.v);
	rt_batch_free(&bt);
	free(rows);
}

/* The documents of a search's hits, as DOC_READ returns them. */
static void test_docs(struct isp_dev *dev, uint16_t rsid)
{
	struct isp_wire_cs_doc_ref ref[30];
	struct isp_wire_cs_docs_hdr h;
	struct t_db db;
	struct t_query q;
	struct t_sopts o;
	struct t_res r;
	uint8_t *out, doc[4 + 4096];
	uint64_t pos;
	uint32_t i, n;

	t_db_make(&db, 3, ISP_REIS_BF, 256, 500, 0, 0, ISP_REIS_DOC_SUBPAGE, 4096, 31);
	CHECK_EQ_U64(t_deploy(dev, &db, 65536), 0);
	t_queries(&q, &db, 3, 6);
	memset(&o, 0, sizeof(o));
	o.did = 3;
	o.k = 10;
	o.flags = ISP_REIS_SF_NO_RERANK;
	CHECK_EQ_U64(t_search(dev, 0, &o, &q, &r), 0);
	n = 30;
	for (i = 0; i < n; i++) {
		ref[i].did = 3;
		ref[i].entry = r.hits[i].entry;
	}
	CHECK_EQ_U64(cs_activate(dev, ISP_CS_PROG_REIS_DOCS, 1), 0);
	CHECK_EQ_U64(cs_write(dev, IN_SB, ref, sizeof(ref)), 0);
	CHECK_EQ_U64(cs_exec(dev, ISP_CS_PROG_REIS_DOCS, rsid, sizeof(ref), 0, 0, NULL), 0);
	REQUIRE(cs_read(dev, OUT_SB, &h, sizeof(h)) == 0);
	CHECK_EQ_U64(h.count, n);
	REQUIRE(h.bytes >= sizeof(h) && h.bytes < (1u << 20));
	out = malloc(h.bytes);
	REQUIRE(out);
	REQUIRE(cs_read(dev, OUT_SB, out, (uint32_t)h.bytes) == 0);
	for (i = 0, pos = sizeof(h); i < n; i++) {
		struct isp_cmd c = t_mk(ISP_OP_REIS_DOC_READ, sizeof(doc));
		uint32_t dl;

		c.cdw12 = 3;
		c.cdw13 = ref[i].entry;
		CHECK_EQ_U64(t_run(dev, &c, doc, sizeof(doc), NULL), 0);
		memcpy(&dl, out + pos, 4);
		CHECK_EQ_U64(dl, t_doc_len(&db, ref[i].entry));
		CHECK(memcmp(out + pos, doc, 4 + dl) == 0);
		pos += 4 + ((dl + 3) & ~3u);
	}
	CHECK_EQ_U64(pos, h.bytes);
	/* an entry past the database, an empty list */
	ref[4].entry = 500;
	CHECK_EQ_U64(cs_write(dev, IN_SB, ref, sizeof(ref)), 0);
	{
		struct isp_wire_err_text e;

		CHECK_EQ_U64(cs_exec(dev, ISP_CS_PROG_REIS_DOCS, rsid, sizeof(ref), 0, 0, NULL),
			     ISP_BAD_FIELD);
		cs_last_err(dev, &e);
		CHECK_EQ_U64(e.data_byte, 4 * 8 + 1);	/* hit 4 of the list */
	}
	CHECK_EQ_U64(cs_exec(dev, ISP_CS_PROG_REIS_DOCS, rsid, 4, 0, 0, NULL), ISP_BAD_FIELD);
	free(out);
	t_res_free(&r);
	t_queries_free(&q);
	t_db_free(&db);
}

/* The management program: deploy and inspect a database with no vendor
 * command on the NVM namespace. */
static uint16_t manage_h(struct isp_dev *dev, uint16_t rsid, const struct isp_wire_cs_manage *hp,
			 const void *in)
{
	struct isp_wire_cs_manage h = *hp;
	uint32_t in_len = h.in_len;
	uint8_t *buf = malloc(sizeof(h) + in_len);
	uint16_t st;

	REQUIRE(buf);
	memcpy(buf, &h, sizeof(h));
	if (in_len)
		memcpy(buf + sizeof(h), in, in_len);
	st = cs_write(dev, IN_SB, buf, (uint32_t)sizeof(h) + in_len);
	if (!st)
		st = cs_exec(dev, ISP_CS_PROG_MANAGE, rsid, (uint32_t)sizeof(h) + in_len, 0, 0, NULL);
	free(buf);
	return st;
}

static uint16_t manage(struct isp_dev *dev, uint16_t rsid, uint8_t opc, uint32_t cdw12,
		       uint32_t cdw13, uint32_t cdw14, const void *in, uint32_t in_len,
		       uint32_t out_len)
{
	struct isp_wire_cs_manage h;

	memset(&h, 0, sizeof(h));
	h.opcode = opc;
	h.cdw10 = (in_len ? in_len : out_len) / 4;
	h.cdw12 = cdw12;
	h.cdw13 = cdw13;
	h.cdw14 = cdw14;
	h.in_len = in_len;
	h.out_len = out_len;
	h.nsid = CS_T_NVM;
	return manage_h(dev, rsid, &h, in);
}

static void test_manage(struct isp_dev *dev, uint16_t rsid)
{
	struct isp_wire_reis_dbinfo a, b;
	struct isp_wire_cs_prog pd[ISP_CS_NPROGS];
	struct t_db db;
	struct isp_cmd c;
	uint32_t cb;

	CHECK_EQ_U64(cs_activate(dev, ISP_CS_PROG_MANAGE, 1), 0);
	t_db_make(&db, 11, ISP_REIS_BF, 256, 200, 0, 0, ISP_REIS_DOC_NONE, 0, 41);
	cb = 256 / 8;
	CHECK_EQ_U64(manage(dev, rsid, ISP_OP_REIS_DB_CREATE, 0, 0, 0, &db.c, sizeof(db.c), 0), 0);
	CHECK_EQ_U64(manage(dev, rsid, ISP_OP_REIS_DB_WRITE, 11, ISP_REIS_SEC_BIN, 0, db.bin,
			    200 * cb, 0), 0);
	CHECK_EQ_U64(manage(dev, rsid, ISP_OP_REIS_DB_COMMIT, 11, 0, 0, NULL, 0, 0), 0);
	CHECK_EQ_U64(manage(dev, rsid, ISP_OP_REIS_DB_INFO, 11, 0, 0, NULL, 0, sizeof(a)), 0);
	REQUIRE(cs_read(dev, OUT_SB, &a, sizeof(a)) == 0);
	c = t_mk(ISP_OP_REIS_DB_INFO, sizeof(b));
	c.cdw12 = 11;
	CHECK_EQ_U64(t_run(dev, &c, &b, sizeof(b), NULL), 0);
	CHECK(memcmp(&a, &b, sizeof(a)) == 0);
	CHECK_EQ_U64(a.create.n, 200);
	/* the engine's status comes through */
	CHECK_EQ_U64(manage(dev, rsid, ISP_OP_REIS_DB_INFO, 99, 0, 0, NULL, 0, sizeof(a)),
		     ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR);
	/* searches have programs of their own; lengths must match the opcode */
	check_st(dev, manage(dev, rsid, ISP_OP_REIS_SEARCH, 1, 0, 0, &db.c, 72, 0),
		 ISP_SC_INVALID_PROG_DATA | ISP_STATUS_DNR, 0xffff, "SEARCH");
	check_dt(dev, manage(dev, rsid, ISP_OP_REIS_DB_INFO, 11, 0, 0, NULL, 0, 0),
		 ISP_BAD_FIELD, 4, "NDT 0");
	{
		/* the header's own fields, then the vendor command's checks */
		struct isp_wire_cs_manage h;

		memset(&h, 0, sizeof(h));
		h.opcode = ISP_OP_REIS_DB_INFO;
		h.cdw10 = sizeof(a) / 4;
		h.cdw12 = 11;
		h.out_len = sizeof(a);
		h.nsid = UINT32_MAX;
		check_dt(dev, manage_h(dev, rsid, &h, NULL), ISP_SC_INVALID_NSID | ISP_STATUS_DNR,
			 36, "nsid");
		h.nsid = CS_T_NVM;
		h.in_len = 4;
		check_dt(dev, manage_h(dev, rsid, &h, &cb), ISP_BAD_FIELD, 28, "in_len");
		h.in_len = 0;
		h.rsvd0[1] = 1;
		check_dt(dev, manage_h(dev, rsid, &h, NULL), ISP_BAD_FIELD, 1, "reserved");
		h.rsvd0[1] = 0;
		h.cdw10 = 1u << 20;	/* NDT past max_xfer: the vendor command's check */
		check_dt(dev, manage_h(dev, rsid, &h, NULL), ISP_BAD_FIELD, 4, "max_xfer");
		h.cdw10 = sizeof(a) / 4;
		h.cdw12 = 99;	/* the vendor handler names CDW12: the header's byte 12 */
		check_dt(dev, manage_h(dev, rsid, &h, NULL), ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR,
			 12, "cdw12");
		h.cdw12 = 11;
		h.cdw10 = sizeof(a) / 4;
		CHECK_EQ_U64(manage_h(dev, rsid, &h, NULL), 0);
	}
	{
		/* Execute Program moves no C2H data: the vendor handler's count of
		 * its bytes (here DB_INFO's) must not reach the completion, which
		 * says xfer_len <= the command's data (found by fuzz_isp_cs,
		 * tests/fuzz/regress/cs-exec-xfer-len) */
		struct isp_cpl cpl;

		memset(&cpl, 0x5a, sizeof(cpl));
		CHECK_EQ_U64(manage(dev, rsid, ISP_OP_REIS_DB_INFO, 11, 0, 0, NULL, 0, sizeof(a)), 0);
		CHECK_EQ_U64(cs_exec(dev, ISP_CS_PROG_MANAGE, rsid,
				     (uint32_t)sizeof(struct isp_wire_cs_manage), 0, 0, &cpl), 0);
		CHECK_EQ_U64(cpl.xfer_len, 0);
		memset(&cpl, 0x5a, sizeof(cpl));
		CHECK_EQ_U64(cs_exec(dev, ISP_CS_PROG_MANAGE, rsid,
				     (uint32_t)sizeof(struct isp_wire_cs_manage), 0, 4, &cpl), 0);
		CHECK_EQ_U64(cpl.xfer_len, 0);
	}
	CHECK_EQ_U64(manage(dev, rsid, ISP_OP_REIS_DB_DELETE, 11, 0, 0, NULL, 0, 0), 0);
	t_db_free(&db);

	/* the program table: log page C3h */
	REQUIRE(isp_dev_log_page(dev, ISP_LID_CS_PROGRAMS, pd, sizeof(pd), 0) == sizeof(pd));
	CHECK(strcmp(pd[0].name, "reis-search") == 0);
	CHECK(strcmp(pd[4].name, "isp-manage") == 0);
	CHECK_EQ_U64(pd[0].flags & 3, ISP_CS_PEOCC_DEVICE);
	CHECK(pd[0].flags & ISP_CS_PD_ACT);
	CHECK(pd[0].execs > 0);
	CHECK(pd[4].execs >= 4);
	CHECK_EQ_U64(pd[2].puid & 0xff, 2);
	/* deactivated, its Execute is refused */
	CHECK_EQ_U64(cs_activate(dev, ISP_CS_PROG_MANAGE, 0), 0);
	check_st(dev, manage(dev, rsid, ISP_OP_REIS_DB_LIST, 0, 0, 0, NULL, 0, 64),
		 ISP_SC_PROG_NOT_ACTIVE | ISP_STATUS_DNR, 8, "deactivated");
}

/* MAXACT: a drive told to keep two programs active refuses a third. */
static void test_maxact(void)
{
	struct isp_dev *dev = t_open("reis-ssd1", "cp_max_active=2", NULL);
	struct isp_wire_cs_id_ns_cp id;

	REQUIRE(dev);
	CHECK_EQ_U64(isp_dev_cs_identify(dev, 0x05, ISP_CSI_CP, CS_T_CP, &id), 0);
	CHECK_EQ_U64(id.maxact, 2);
	CHECK_EQ_U64(cs_activate(dev, 0, 1), 0);
	CHECK_EQ_U64(cs_activate(dev, 1, 1), 0);
	check_st(dev, cs_activate(dev, 2, 1), ISP_SC_MAX_ACTIVE | ISP_STATUS_DNR, 40, "third");
	CHECK_EQ_U64(cs_activate(dev, 0, 0), 0);
	CHECK_EQ_U64(cs_activate(dev, 2, 1), 0);
	isp_dev_close(dev);
}

int main(void)
{
	struct isp_dev *dev = t_open("reis-ssd1", "blocks_per_plane=32;slc_blocks=16", NULL);
	struct isp_wire_stats st;
	uint16_t rsid;

	REQUIRE(dev);
	REQUIRE(fp_preset("reis-ssd1", &P) == 0);
	test_load_act(dev);
	test_mrs(dev);
	rsid = io_set(dev);
	test_search(dev, rsid);
	test_exec_fields(dev, rsid);
	test_sls(dev, rsid);
	test_docs(dev, rsid);
	test_manage(dev, rsid);
	REQUIRE(isp_dev_log_page(dev, ISP_LID_STATS, &st, sizeof(st), 0) == sizeof(st));
	CHECK(st.cs_cmds[0] > 60 && st.cs_errors[0] > 10);
	CHECK(st.cs_cmds[1] > 10 && st.cs_errors[1] > 5);
	isp_dev_close(dev);
	test_maxact();
	return t_result();
}
