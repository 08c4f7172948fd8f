/* SPDX-License-Identifier: MIT */
/*
 * test_rf_badinput - every malformed RecFlash command a guest can send gets
 * an NVMe error with DNR (docs/command-set.md sections 2 and 5), never a
 * crash; the tables are unchanged afterwards (same sums, same statistics,
 * same list). Ends with random SLS payloads (fuzz) for the sanitizers.
 */
#include "test_rf_util.h"

#define BAD (ISP_SC_INVALID_FIELD | ISP_STATUS_DNR)
#define UNKNOWN (ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR)
#define BUSY (ISP_SC_BUSY | ISP_STATUS_DNR)
#define BADOFF (ISP_SC_BAD_OFFSET | ISP_STATUS_DNR)

static struct isp_dev *dev;
static uint8_t *tbl_a, *tbl_b;

static uint16_t create(struct isp_wire_rf_create cr)
{
	return rt_create(dev, &cr);
}

static void test_create(void)
{
	struct isp_wire_rf_create cr, ok = rt_cr(50, 100, 16, ISP_RF_FP32, ISP_RF_RECFLASH);
	struct isp_cmd c;
	uint8_t buf[256];

	cr = ok; cr.tid = 0;				CHECK_EQ_U64(create(cr), BAD);
	cr = ok; cr.rows = 0;				CHECK_EQ_U64(create(cr), BAD);
	cr = ok; cr.rows = ISP_RF_MAX_ROWS + 1;		CHECK_EQ_U64(create(cr), BAD);
	cr = ok; cr.dim = 0;				CHECK_EQ_U64(create(cr), BAD);
	cr = ok; cr.dim = ISP_RF_MAX_DIM + 1;		CHECK_EQ_U64(create(cr), BAD);
	cr = ok; cr.dtype = 0;				CHECK_EQ_U64(create(cr), BAD);
	cr = ok; cr.dtype = 4;				CHECK_EQ_U64(create(cr), BAD);
	cr = ok; cr.mode = 0;				CHECK_EQ_U64(create(cr), BAD);
	cr = ok; cr.mode = 4;				CHECK_EQ_U64(create(cr), BAD);
	cr = ok; cr.flags = 2;				CHECK_EQ_U64(create(cr), BAD);
	cr = ok; cr.mode = ISP_RF_RMSSD; cr.flags = ISP_RF_TF_PROFILE;
							CHECK_EQ_U64(create(cr), BAD);
	cr = ok; cr.trigger = 3;			CHECK_EQ_U64(create(cr), BAD);
	cr = ok; cr.hot_bp = 10001;			CHECK_EQ_U64(create(cr), BAD);
	cr = ok; cr.trigger_ppm = 1000001;		CHECK_EQ_U64(create(cr), BAD);
	cr = ok; cr.trigger = ISP_RF_TRIG_PERIOD;	CHECK_EQ_U64(create(cr), BAD);
	cr = ok; cr.rsvd[55] = 1;			CHECK_EQ_U64(create(cr), BAD);
	cr = ok; cr.dim = 2048;				CHECK_EQ_U64(create(cr), BAD); /* 8 KiB row */
	/* Too large for the flash or the DRAM budget. */
	cr = ok; cr.rows = ISP_RF_MAX_ROWS; cr.dim = 1024;
	CHECK_EQ_U64(create(cr), ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR);
	cr = ok; cr.rows = 200000000; cr.dim = 1; cr.dtype = ISP_RF_FP16;
	CHECK_EQ_U64(create(cr), ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR);
	/* Reserved dwords, wrong length. */
	c = rt_cmd(ISP_OP_RF_TBL_CREATE, sizeof(ok));
	c.cdw13 = 1;
	memcpy(buf, &ok, sizeof(ok));
	CHECK_EQ_U64(rt_exec(dev, &c, buf, NULL), BAD);
	c = rt_cmd(ISP_OP_RF_TBL_CREATE, 64);
	CHECK_EQ_U64(rt_exec(dev, &c, buf, NULL), BAD);
	/* Existing id. */
	cr = ok; cr.tid = 1;
	CHECK_EQ_U64(create(cr), ISP_SC_ID_EXISTS | ISP_STATUS_DNR);
}

static void test_deploy(void)
{
	struct isp_wire_rf_create cr = rt_cr(60, 100, 16, ISP_RF_FP32, ISP_RF_RECFLASH);
	uint8_t data[100 * 64 + 8];
	struct isp_cmd c;

	memset(data, 1, sizeof(data));
	REQUIRE(create(cr) == 0);
	CHECK_EQ_U64(rt_write(dev, ISP_OP_RF_TBL_WRITE, 61, ISP_RF_SEC_ROWS, data, 64, 64),
		     UNKNOWN);
	CHECK_EQ_U64(rt_write(dev, ISP_OP_RF_TBL_WRITE, 60, 0, data, 64, 64), BAD);
	CHECK_EQ_U64(rt_write(dev, ISP_OP_RF_TBL_WRITE, 60, 3, data, 64, 64), BAD);
	CHECK_EQ_U64(rt_write(dev, ISP_OP_RF_TBL_WRITE, 60, 0xffffffffu, data, 64, 64), BAD);
	/* PROFILE section without TF_PROFILE. */
	CHECK_EQ_U64(rt_write(dev, ISP_OP_RF_TBL_WRITE, 60, ISP_RF_SEC_PROFILE, data, 64, 64),
		     BAD);
	/* Out of order: offset 64 first. */
	c = rt_cmd(ISP_OP_RF_TBL_WRITE, 64);
	c.cdw12 = 60;
	c.cdw13 = ISP_RF_SEC_ROWS;
	c.cdw14 = 64;
	CHECK_EQ_U64(rt_exec(dev, &c, data, NULL), BADOFF);
	c.cdw14 = 0;
	c.cdw15 = 1;			/* 4 GiB */
	CHECK_EQ_U64(rt_exec(dev, &c, data, NULL), BADOFF);
	/* Past the section's end: 6400 bytes + 8. */
	c = rt_cmd(ISP_OP_RF_TBL_WRITE, 6408);
	c.cdw12 = 60;
	c.cdw13 = ISP_RF_SEC_ROWS;
	CHECK_EQ_U64(rt_exec(dev, &c, data, NULL), BADOFF);
	/* Commit before the data: incomplete. */
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_TBL_COMMIT, 60, 0, NULL),
		     ISP_SC_INCOMPLETE | ISP_STATUS_DNR);
	/* SLS, profile, remap on a table being deployed. */
	{
		uint32_t off[2] = { 0, 1 }, idx[1] = { 0 };
		struct rt_batch b = { 1, 1, off, idx, NULL };
		struct rt_sls_out o;

		CHECK_EQ_U64(rt_sls(dev, 60, 16, 0, &b, &o), BUSY);
	}
	CHECK_EQ_U64(rt_write(dev, ISP_OP_RF_PROFILE, 60, 0, data, 64, 64), BUSY);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, 60, ISP_RF_REMAP_FULL, NULL), BUSY);
	/* Padding must be zero; a clean stream then commits. */
	c = rt_cmd(ISP_OP_RF_TBL_WRITE, 6400);
	c.cdw12 = 60;
	c.cdw13 = ISP_RF_SEC_ROWS;
	CHECK_EQ_U64(rt_exec(dev, &c, data, NULL), 0);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_TBL_COMMIT, 60, 1, NULL), BAD);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_TBL_COMMIT, 60, 0, NULL), 0);
	/* Writes and commits of a READY table. */
	CHECK_EQ_U64(rt_exec(dev, &c, data, NULL), BUSY);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_TBL_COMMIT, 60, 0, NULL), BUSY);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_TBL_COMMIT, 61, 0, NULL), UNKNOWN);
	/* A section tail: up to 3 bytes of zero padding, non-zero refused. */
	cr = rt_cr(62, 3, 1, ISP_RF_FP16, ISP_RF_RMSSD);	/* 6 bytes */
	REQUIRE(create(cr) == 0);
	memset(data, 0, 8);
	data[7] = 9;
	c = rt_cmd(ISP_OP_RF_TBL_WRITE, 8);
	c.cdw12 = 62;
	c.cdw13 = ISP_RF_SEC_ROWS;
	CHECK_EQ_U64(rt_exec(dev, &c, data, NULL), BADOFF);
	data[7] = 0;
	CHECK_EQ_U64(rt_exec(dev, &c, data, NULL), 0);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_TBL_COMMIT, 62, 0, NULL), 0);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_TBL_DELETE, 62, 0, NULL), 0);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_TBL_DELETE, 60, 0, NULL), 0);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_TBL_DELETE, 60, 0, NULL), UNKNOWN);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_TBL_DELETE, 1, 1, NULL), BAD);
}

/* Build an SLS buffer by hand. */
static uint16_t sls_raw(uint32_t ticket, const struct isp_wire_rf_sls *h, const uint32_t *w,
			uint32_t nw, uint32_t extra_cdw)
{
	uint8_t buf[4096];
	size_t len = sizeof(*h) + 4u * nw;
	struct isp_cmd c = rt_cmd(ISP_OP_RF_SLS, (uint32_t)len);

	memcpy(buf, h, sizeof(*h));
	memcpy(buf + sizeof(*h), w, 4u * nw);
	c.cdw12 = ticket;
	c.cdw13 = extra_cdw;
	return rt_exec(dev, &c, buf, NULL);
}

static void test_sls(void)
{
	struct isp_wire_rf_sls h, ok;
	uint32_t w[16];
	uint8_t big[64];
	struct isp_cmd c;

	memset(&ok, 0, sizeof(ok));
	memset(w, 0, sizeof(w));
	ok.tid = 1;
	ok.nbags = 2;
	ok.nidx = 3;
	ok.dim = 32;
	/* offsets 0 1 3, indices 5 6 7 */
	w[0] = 0; w[1] = 1; w[2] = 3; w[3] = 5; w[4] = 6; w[5] = 7;
	CHECK_EQ_U64(sls_raw(900, &ok, w, 6, 0), 0);
	CHECK_EQ_U64(sls_raw(900, &ok, w, 6, 0),		/* ticket in use */
		     ISP_SC_TICKET_IN_USE | ISP_STATUS_DNR);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RESULT_RELEASE, 900, 0, NULL), 0);
	CHECK_EQ_U64(sls_raw(0, &ok, w, 6, 0), BAD);		/* ticket 0 */
	CHECK_EQ_U64(sls_raw(901, &ok, w, 6, 1), BAD);		/* reserved cdw13 */
	h = ok; h.rsvd[3] = 1;		CHECK_EQ_U64(sls_raw(901, &h, w, 6, 0), BAD);
	h = ok; h.flags = 8;		CHECK_EQ_U64(sls_raw(901, &h, w, 6, 0), BAD);
	h = ok; h.nbags = 0;		CHECK_EQ_U64(sls_raw(901, &h, w, 6, 0), BAD);
	h = ok; h.nbags = ISP_RF_MAX_BAGS + 1;	CHECK_EQ_U64(sls_raw(901, &h, w, 6, 0), BAD);
	h = ok; h.nidx = 1;		CHECK_EQ_U64(sls_raw(901, &h, w, 6, 0), BAD); /* empty bag */
	h = ok; h.nidx = 4;		CHECK_EQ_U64(sls_raw(901, &h, w, 6, 0), BAD); /* length */
	h = ok; h.nidx = 0xffffffffu;	CHECK_EQ_U64(sls_raw(901, &h, w, 6, 0), BAD);
	/* Weights flagged but missing, or present but not flagged. */
	h = ok; h.flags = ISP_RF_SLS_WEIGHTED;	CHECK_EQ_U64(sls_raw(901, &h, w, 6, 0), BAD);
	h = ok; CHECK_EQ_U64(sls_raw(901, &h, w, 9, 0), BAD);
	h = ok; h.flags = ISP_RF_SLS_WEIGHTED;	CHECK_EQ_U64(sls_raw(901, &h, w, 9, 0), 0);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RESULT_RELEASE, 901, 0, NULL), 0);
	/* Offsets. */
	w[0] = 1;			CHECK_EQ_U64(sls_raw(902, &ok, w, 6, 0), BAD);
	w[0] = 0; w[1] = 3; w[2] = 3;	CHECK_EQ_U64(sls_raw(902, &ok, w, 6, 0), BAD); /* empty */
	w[1] = 2; w[2] = 1;		CHECK_EQ_U64(sls_raw(902, &ok, w, 6, 0), BAD); /* down */
	w[1] = 1; w[2] = 2;		CHECK_EQ_U64(sls_raw(902, &ok, w, 6, 0), BAD); /* != nidx */
	w[2] = 0xffffffffu;		CHECK_EQ_U64(sls_raw(902, &ok, w, 6, 0), BAD);
	w[2] = 3;
	/* Indices. */
	w[4] = 3000;			CHECK_EQ_U64(sls_raw(902, &ok, w, 6, 0), BAD);
	w[4] = 0xffffffffu;		CHECK_EQ_U64(sls_raw(902, &ok, w, 6, 0), BAD);
	w[4] = 6;
	/* Dimension, table. */
	h = ok; h.dim = 31;
	CHECK_EQ_U64(sls_raw(902, &h, w, 6, 0), ISP_SC_DIM_MISMATCH | ISP_STATUS_DNR);
	h = ok; h.tid = 77;		CHECK_EQ_U64(sls_raw(902, &h, w, 6, 0), UNKNOWN);
	/* Header shorter than 32 bytes. */
	c = rt_cmd(ISP_OP_RF_SLS, 16);
	c.cdw12 = 903;
	memset(big, 0, sizeof(big));
	CHECK_EQ_U64(rt_exec(dev, &c, big, NULL), BAD);
	/* More than max_xfer: refused at decode. */
	c = rt_cmd(ISP_OP_RF_SLS, RT_MAX_XFER + 4);
	c.cdw12 = 903;
	CHECK_EQ_U64(isp_dev_check(dev, &c, &(struct isp_cpl){ 0 }), BAD);
	/* Nothing is left reserved by a failed SLS. */
	CHECK_EQ_U64(sls_raw(902, &ok, w, 6, 0), 0);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RESULT_RELEASE, 902, 0, NULL), 0);
}

/* A result larger than max_result_bytes is refused, not retried forever. */
static void test_huge_result(void)
{
	struct isp_wire_rf_create cr = rt_cr(70, 2, 1024, ISP_RF_FP32, ISP_RF_RMSSD);
	struct isp_dev_config cfg = { .preset = "recflash-slc", .max_xfer = 2u << 20 };
	uint8_t *rows = calloc(2, 4096);
	struct isp_dev *keep = dev;
	struct rt_batch b;
	struct rt_sls_out o;
	uint32_t i;

	REQUIRE(rows);
	REQUIRE(isp_dev_open(&cfg, &dev, NULL, 0) == 0);
	REQUIRE(rt_deploy(dev, &cr, rows, NULL) == 0);
	b.nbags = b.nidx = 65536;			/* 256 MiB of results + headers */
	b.off = malloc((b.nbags + 1) * 4);
	b.idx = calloc(b.nidx, 4);
	b.w = NULL;
	REQUIRE(b.off && b.idx);
	for (i = 0; i <= b.nbags; i++)
		b.off[i] = i;
	CHECK_EQ_U64(rt_sls(dev, 70, 1024, 0, &b, &o), BAD);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_TBL_DELETE, 70, 0, NULL), 0);
	rt_batch_free(&b);
	free(rows);
	isp_dev_close(dev);
	dev = keep;
}

static void test_remap_profile(void)
{
	uint32_t prof[3001];
	struct isp_cmd c;

	memset(prof, 0, sizeof(prof));
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, 77, ISP_RF_REMAP_FULL, NULL), UNKNOWN);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, 2, 0, NULL), BAD);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, 2,
			       ISP_RF_REMAP_FULL | ISP_RF_REMAP_ADAPTIVE, NULL), BAD);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, 2, 0x10 | ISP_RF_REMAP_FULL, NULL), BAD);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, 1, ISP_RF_REMAP_FULL, NULL), BAD);
	c = rt_cmd(ISP_OP_RF_REMAP, 0);
	c.cdw12 = 2;
	c.cdw13 = ISP_RF_REMAP_FULL;
	c.cdw14 = 1;
	CHECK_EQ_U64(rt_exec(dev, &c, NULL, NULL), BAD);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_SWITCH, 77, 0, NULL), UNKNOWN);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_SWITCH, 2, 0, NULL),
		     ISP_SC_INCOMPLETE | ISP_STATUS_DNR);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_SWITCH, 1, 0, NULL), BAD);
	/* Profiles: longer than the table, out of order, wrong table. */
	CHECK_EQ_U64(rt_write(dev, ISP_OP_RF_PROFILE, 2, 0, prof, 3001 * 4, 3001 * 4), BADOFF);
	CHECK_EQ_U64(rt_write(dev, ISP_OP_RF_PROFILE, 77, 0, prof, 64, 64), UNKNOWN);
	CHECK_EQ_U64(rt_write(dev, ISP_OP_RF_PROFILE, 1, 0, prof, 64, 64), BAD);
	c = rt_cmd(ISP_OP_RF_PROFILE, 64);
	c.cdw12 = 2;
	c.cdw14 = 64;
	CHECK_EQ_U64(rt_exec(dev, &c, prof, NULL), BADOFF);
	c.cdw14 = 3000 * 4;
	CHECK_EQ_U64(rt_exec(dev, &c, prof, NULL), BADOFF);
	c.cdw14 = 0;
	c.cdw13 = 1;
	CHECK_EQ_U64(rt_exec(dev, &c, prof, NULL), BAD);
	/* Stats and list. */
	{
		struct isp_wire_rf_stats st;
		uint8_t small[8];

		CHECK_EQ_U64(rt_stats(dev, 77, 0, &st), UNKNOWN);
		c = rt_cmd(ISP_OP_RF_TBL_STATS, sizeof(st));
		c.cdw12 = 1;
		c.cdw13 = 2;
		CHECK_EQ_U64(rt_exec(dev, &c, &st, NULL), BAD);
		c = rt_cmd(ISP_OP_RF_TBL_STATS, 64);
		c.cdw12 = 1;
		CHECK_EQ_U64(rt_exec(dev, &c, &st, NULL), BAD);
		c = rt_cmd(ISP_OP_RF_TBL_LIST, sizeof(small));
		CHECK_EQ_U64(rt_exec(dev, &c, small, NULL), BAD);
	}
}

/* Random SLS payloads: statuses only, never a crash. */
static void fuzz(void)
{
	uint32_t s = 77, i, j;
	uint32_t buf[256];

	for (i = 0; i < 3000; i++) {
		struct isp_wire_rf_sls h;
		uint32_t nw = rt_rand(&s) % 40;
		uint16_t st;

		memset(&h, 0, sizeof(h));
		h.tid = 1 + rt_rand(&s) % 3;
		h.nbags = rt_rand(&s) % 6;
		h.nidx = rt_rand(&s) % 12;
		h.flags = rt_rand(&s) % 8;
		h.dim = (rt_rand(&s) & 1) ? 32 : 24;
		if (!(rt_rand(&s) % 50))
			h.nbags = rt_rand(&s);
		for (j = 0; j < nw; j++)
			buf[j] = rt_rand(&s) % 8 ? rt_rand(&s) % 3000 : rt_rand(&s);
		if (rt_rand(&s) & 1) {		/* sometimes a plausible shape */
			nw = h.nbags + 1 + h.nidx * ((h.flags & 1) ? 2 : 1);
			for (j = 0; j <= h.nbags && j < 256; j++)
				buf[j] = h.nbags ? j * h.nidx / h.nbags : 0;
		}
		if (nw > 200)
			nw = 200;
		st = sls_raw(5000 + i, &h, buf, nw, 0);
		if (!st)
			CHECK_EQ_U64(rt_simple(dev, ISP_OP_RESULT_RELEASE, 5000 + i, 0, NULL), 0);
		else
			CHECK(st & ISP_STATUS_DNR);
	}
}

static void check_tables(const struct isp_wire_rf_stats *before)
{
	struct isp_wire_rf_stats st;
	struct rt_batch b;
	struct rt_sls_out o;
	float *ref;
	uint32_t t;

	for (t = 1; t <= 2; t++) {
		const uint8_t *data = t == 1 ? tbl_a : tbl_b;

		CHECK_EQ_U64(rt_stats(dev, t, 0, &st), 0);
		CHECK_EQ_U64(st.state, ISP_RF_READY);
		CHECK_EQ_U64(st.generation, before[t - 1].generation);
		CHECK_EQ_U64(st.remap_state, ISP_RF_REMAP_IDLE);
		CHECK_EQ_U64(st.pages, before[t - 1].pages);
		CHECK(memcmp(&st.create, &before[t - 1].create, sizeof(st.create)) == 0);
		rt_batch_random(&b, 40, 10, 3000, 1, 1000 + t);
		ref = malloc(4ull * b.nbags * 32);
		REQUIRE(ref);
		rt_reference(data, ISP_RF_FP32, 32, 0, &b, ref);
		CHECK_EQ_U64(rt_sls(dev, t, 32, 0, &b, &o), 0);
		CHECK(o.v && rt_same(o.v, ref, (size_t)b.nbags * 32));
		free(o.v);
		free(ref);
		rt_batch_free(&b);
	}
}

int main(void)
{
	struct isp_wire_rf_create ca = rt_cr(1, 3000, 32, ISP_RF_FP32, ISP_RF_RMSSD);
	struct isp_wire_rf_create cb = rt_cr(2, 3000, 32, ISP_RF_FP32, ISP_RF_RECFLASH);
	struct isp_wire_rf_stats before[2];

	dev = rt_open("recflash-slc", "blocks_per_plane=48", NULL);
	tbl_a = rt_table(3000, 32, ISP_RF_FP32, 1);
	tbl_b = rt_table(3000, 32, ISP_RF_FP32, 2);
	REQUIRE(rt_deploy(dev, &ca, tbl_a, NULL) == 0);
	REQUIRE(rt_deploy(dev, &cb, tbl_b, NULL) == 0);
	REQUIRE(rt_stats(dev, 1, 0, &before[0]) == 0);
	REQUIRE(rt_stats(dev, 2, 0, &before[1]) == 0);
	test_create();
	test_deploy();
	test_sls();
	test_huge_result();
	test_remap_profile();
	fuzz();
	check_tables(before);
	isp_dev_close(dev);
	free(tbl_a);
	free(tbl_b);
	return t_result();
}
