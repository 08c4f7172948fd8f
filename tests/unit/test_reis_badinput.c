/* SPDX-License-Identifier: MIT */
/*
 * test_reis_badinput - every malformed REIS command gets its documented
 * NVMe status with DNR (docs/command-set.md section 4), never a crash, and
 * nothing already deployed changes: the databases answer exactly as before.
 */
#include "isp_internal.h"
#include "reis_t.h"

#define BAD ((uint16_t)(ISP_SC_INVALID_FIELD | ISP_STATUS_DNR))
#define BADOFF ((uint16_t)(ISP_SC_BAD_OFFSET | ISP_STATUS_DNR))
#define PAYLOAD ((uint16_t)(ISP_SC_BAD_PAYLOAD | ISP_STATUS_DNR))
#define BUSY ((uint16_t)(ISP_SC_BUSY | ISP_STATUS_DNR))
#define UNKNOWN ((uint16_t)(ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR))

static struct isp_wire_reis_create good_create(uint32_t did)
{
	struct isp_wire_reis_create c;

	memset(&c, 0, sizeof(c));
	c.did = did;
	c.kind = ISP_REIS_BF;
	c.dim = 256;
	c.n = 100;
	return c;
}

static void test_create(struct isp_dev *dev)
{
	struct isp_wire_reis_create c;
	struct isp_cmd cmd;

#define TRY(field, value, status) do {			\
		c = good_create(50);				\
		c.field = value;				\
		CHECK_EQ_U64(t_create(dev, &c), status);	\
	} while (0)
	TRY(did, 0, BAD);
	TRY(dim, 0, BAD);
	TRY(dim, 63, BAD);
	TRY(dim, 100, BAD);
	TRY(dim, 8256, BAD);
	TRY(n, 0, BAD);
	TRY(n, 1ull << 33, BAD);
	TRY(kind, 0, BAD);
	TRY(kind, 3, BAD);
	TRY(nlist, 4, BAD);		/* BF with clusters */
	TRY(ncalib, 1, BAD);
	TRY(flags, 8, BAD);
	TRY(doc_mode, 3, BAD);
	TRY(metric, 2, BAD);
	TRY(df_threshold, 257, BAD);
	TRY(docs_bytes, 400, BAD);	/* documents without a doc mode */
	TRY(rsvd[59], 1, BAD);		/* the last reserved byte (meta_bytes before) */
	TRY(meta_bytes, ISP_REIS_MAX_META + 1, BAD);
	c = good_create(50);
	c.doc_mode = ISP_REIS_DOC_SUBPAGE;
	c.docs_bytes = 399;		/* under 4 bytes per record */
	CHECK_EQ_U64(t_create(dev, &c), BAD);
	c.docs_bytes = 100 * (4 + 4096) + 1;	/* over a chunk per record */
	CHECK_EQ_U64(t_create(dev, &c), BAD);
	c = good_create(50);
	c.kind = ISP_REIS_IVF;		/* IVF without clusters */
	CHECK_EQ_U64(t_create(dev, &c), BAD);
	c.nlist = ISP_REIS_MAX_NLIST + 1;
	CHECK_EQ_U64(t_create(dev, &c), BAD);
	c.nlist = 4;
	c.ncalib = ISP_REIS_MAX_CALIB + 1;
	CHECK_EQ_U64(t_create(dev, &c), BAD);
	/* Reserved dwords; wrong length (fixed 160 bytes). */
	c = good_create(50);
	cmd = t_mk(ISP_OP_REIS_DB_CREATE, sizeof(c));
	cmd.cdw13 = 1;
	CHECK_EQ_U64(t_run(dev, &cmd, &c, sizeof(c), NULL), BAD);
	cmd = t_mk(ISP_OP_REIS_DB_CREATE, 164);
	CHECK_EQ_U64(t_run(dev, &cmd, &c, sizeof(c), NULL), BAD);
	/* Duplicate ids. */
	c = good_create(1);
	CHECK_EQ_U64(t_create(dev, &c), ISP_SC_ID_EXISTS | ISP_STATUS_DNR);
#undef TRY
}

static uint16_t wr(struct isp_dev *dev, uint32_t did, uint32_t sec, uint64_t off,
		   const void *data, uint32_t len)
{
	struct isp_cmd c = t_mk(ISP_OP_REIS_DB_WRITE, len);

	c.cdw12 = did;
	c.cdw13 = sec;
	c.cdw14 = (uint32_t)off;
	c.cdw15 = (uint32_t)(off >> 32);
	return t_run(dev, &c, (void *)(uintptr_t)data, len, NULL);
}

/* A deploy with every kind of bad DB_WRITE / DB_COMMIT on the way; each is
 * refused without effect, and the good data still commits correctly. */
static void test_write(struct isp_dev *dev)
{
	struct t_db db;
	struct t_query q;
	const struct t_db *dbs[1] = { &db };
	struct t_sopts o;
	struct t_res r;
	uint8_t junk[8192];
	uint32_t cb = 64, sz0 = 0;
	uint8_t *docs;

	t_db_make(&db, 60, ISP_REIS_IVF, 512, 600, 8,
		  ISP_REIS_DBF_INT8 | ISP_REIS_DBF_TAGS | ISP_REIS_DBF_IDS, ISP_REIS_DOC_SUBPAGE,
		  4096, 5);
	memset(junk, 0x5a, sizeof(junk));
	CHECK_EQ_U64(wr(dev, 60, ISP_REIS_SEC_BIN, 0, db.bin, 64), UNKNOWN);
	CHECK_EQ_U64(t_create(dev, &db.c), 0);
	CHECK_EQ_U64(wr(dev, 60, 0, 0, junk, 64), BAD);
	CHECK_EQ_U64(wr(dev, 60, ISP_REIS_NSECTIONS, 0, junk, 64), BAD);
	/* BIN before its TAGS. */
	CHECK_EQ_U64(wr(dev, 60, ISP_REIS_SEC_BIN, 0, db.bin, 64), BADOFF);
	CHECK_EQ_U64(wr(dev, 60, ISP_REIS_SEC_TAGS, 0, db.tags, 400), 0);	/* 100 tags */
	CHECK_EQ_U64(wr(dev, 60, ISP_REIS_SEC_BIN, 0, db.bin, 101 * cb), BADOFF);
	CHECK_EQ_U64(wr(dev, 60, ISP_REIS_SEC_BIN, 0, db.bin, 100 * cb), 0);
	CHECK_EQ_U64(t_write_sec(dev, 60, ISP_REIS_SEC_TAGS, db.tags, 600 * 4, 4096) ==
		     BADOFF, 1);	/* offset 0 again: overlapping */
	CHECK_EQ_U64(wr(dev, 60, ISP_REIS_SEC_TAGS, 400, db.tags + 100, 500 * 4), 0);
	/* Offsets: a gap, an overlap, past the end, a chunk running past it. */
	CHECK_EQ_U64(wr(dev, 60, ISP_REIS_SEC_BIN, 100 * cb + 64, db.bin, 64), BADOFF);
	CHECK_EQ_U64(wr(dev, 60, ISP_REIS_SEC_BIN, 100 * cb - 64, db.bin, 64), BADOFF);
	CHECK_EQ_U64(wr(dev, 60, ISP_REIS_SEC_BIN, 600 * cb, db.bin, 64), BADOFF);
	CHECK_EQ_U64(wr(dev, 60, ISP_REIS_SEC_BIN, 1ull << 40, db.bin, 64), BADOFF);
	{
		uint8_t *over = calloc(1, 500 * cb + 4);

		REQUIRE(over);
		CHECK_EQ_U64(wr(dev, 60, ISP_REIS_SEC_BIN, 100 * cb, over, 500 * cb + 4), BADOFF);
		free(over);
	}
	CHECK_EQ_U64(wr(dev, 60, ISP_REIS_SEC_BIN, 100 * cb, db.bin + 100 * cb, 500 * cb), 0);
	/* CALIB on... fine; a section the database does not have. */
	{
		struct t_db bf;

		t_db_make(&bf, 61, ISP_REIS_BF, 256, 10, 0, 0, 0, 0, 1);
		CHECK_EQ_U64(t_create(dev, &bf.c), 0);
		CHECK_EQ_U64(wr(dev, 61, ISP_REIS_SEC_INT8, 0, junk, 256), BAD);
		CHECK_EQ_U64(wr(dev, 61, ISP_REIS_SEC_CENTROIDS, 0, junk, 32), BAD);
		CHECK_EQ_U64(wr(dev, 61, ISP_REIS_SEC_DOCS, 0, junk, 32), BAD);
		/* Search and commit while it deploys. */
		CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_COMMIT, 61),
			     ISP_SC_INCOMPLETE | ISP_STATUS_DNR);
		CHECK_EQ_U64(t_deploy(dev, &bf, 4096) & 0x7ff, ISP_SC_ID_EXISTS);
		CHECK_EQ_U64(t_write_all(dev, &bf, 4096), 0);
		CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_COMMIT, 61), 0);
		CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_COMMIT, 61), BUSY);
		CHECK_EQ_U64(wr(dev, 61, ISP_REIS_SEC_BIN, 0, junk, 32), BUSY);
		t_db_free(&bf);
	}

	/* DOCS: a record longer than its chunk, one running past docs_bytes,
	 * more records than n. None of them changes the section. */
	docs = malloc(db.c.docs_bytes + 8);
	REQUIRE(docs);
	memcpy(docs, db.docs, db.c.docs_bytes);
	{
		uint32_t big = 4097, len0;

		memcpy(&len0, docs, 4);
		memcpy(docs, &big, 4);
		CHECK_EQ_U64(wr(dev, 60, ISP_REIS_SEC_DOCS, 0, docs, 4096), PAYLOAD);
		memcpy(docs, &len0, 4);
	}
	/* Write all but the last record correctly. */
	{
		uint64_t last = db.doff[599] - 4, off;
		uint32_t huge, len;

		for (off = 0; off + 4096 <= last; off += 4096)
			CHECK_EQ_U64(wr(dev, 60, ISP_REIS_SEC_DOCS, off, docs + off, 4096), 0);
		sz0 = (uint32_t)(last - off);
		if (sz0)
			CHECK_EQ_U64(wr(dev, 60, ISP_REIS_SEC_DOCS, off, docs + off, sz0 & ~3u), 0);
		off += sz0 & ~3u;
		/* The final record claims more bytes than the section has. */
		len = (uint32_t)(db.c.docs_bytes - last - 4);
		huge = len + 1;
		memcpy(docs + last, &huge, 4);
		CHECK_EQ_U64(wr(dev, 60, ISP_REIS_SEC_DOCS, off, docs + off,
				(uint32_t)((db.c.docs_bytes - off + 3) & ~3ull)), PAYLOAD);
		memcpy(docs + last, &len, 4);
		CHECK_EQ_U64(wr(dev, 60, ISP_REIS_SEC_DOCS, off, docs + off,
				(uint32_t)((db.c.docs_bytes - off + 3) & ~3ull)), 0);
	}
	free(docs);
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_COMMIT, 60), ISP_SC_INCOMPLETE | ISP_STATUS_DNR);
	CHECK_EQ_U64(t_write_sec(dev, 60, ISP_REIS_SEC_INT8, db.i8, 600 * 512, 65536), 0);
	CHECK_EQ_U64(t_write_sec(dev, 60, ISP_REIS_SEC_IDS, db.ids, 600 * 8, 1024), 0);
	CHECK_EQ_U64(t_write_sec(dev, 60, ISP_REIS_SEC_CENTROIDS, db.cent, 8 * 64, 64), 0);
	/* Cluster sizes that do not sum to n. */
	{
		uint32_t cs[8];

		memcpy(cs, db.csize, sizeof(cs));
		cs[0]++;
		CHECK_EQ_U64(wr(dev, 60, ISP_REIS_SEC_CLUSTERS, 0, cs, sizeof(cs)), 0);
		CHECK_EQ_U64(t_write_sec(dev, 60, ISP_REIS_SEC_CALIB, db.calib,
					 db.c.ncalib * 8ull, 4096), 0);
		CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_COMMIT, 60), PAYLOAD);
		CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_DELETE, 60), 0);
	}
	/* A calibration that is not ascending. */
	{
		struct isp_wire_reis_calib good = db.calib[1];

		db.calib[1] = db.calib[2];
		db.calib[2] = good;
		CHECK_EQ_U64(t_deploy(dev, &db, 4096), PAYLOAD);
		CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_DELETE, 60), 0);
		db.calib[0].recall = 10001;
		CHECK_EQ_U64(t_deploy(dev, &db, 4096), PAYLOAD);
		CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_DELETE, 60), 0);
	}
	t_db_free(&db);
	/* A fresh deploy of the same image with correct sections answers
	 * exactly. */
	t_db_make(&db, 60, ISP_REIS_IVF, 512, 600, 8,
		  ISP_REIS_DBF_INT8 | ISP_REIS_DBF_TAGS | ISP_REIS_DBF_IDS, ISP_REIS_DOC_SUBPAGE,
		  4096, 5);
	{
		uint32_t save = db.csize[0];

		CHECK_EQ_U64(t_create(dev, &db.c), 0);
		CHECK_EQ_U64(t_write_all(dev, &db, 4096), 0);
		(void)save;
	}
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_COMMIT, 60), 0);
	t_queries(&q, &db, 2, 3);
	memset(&o, 0, sizeof(o));
	o.did = 60;
	o.k = 5;
	o.nprobe = 3;
	o.flags = ISP_REIS_SF_DOCS;
	CHECK_EQ_U64(t_search(dev, 1, &o, &q, &r), 0);
	CHECK(t_check_query(&r, 0, dbs, 1, 1, &o, &q, 1, 1));
	CHECK(t_check_query(&r, 1, dbs, 1, 1, &o, &q, 1, 1));
	t_res_free(&r);
	t_queries_free(&q);
	t_db_free(&db);
}

static uint16_t raw_search(struct isp_dev *dev, uint8_t opc, uint32_t ticket,
			   const struct isp_wire_reis_search *s, uint32_t extra, struct isp_cmd *cc)
{
	size_t len = sizeof(*s) + extra;
	uint8_t *buf = calloc(1, len + 4);
	struct isp_cmd c = t_mk(opc, (uint32_t)len);
	uint16_t st;

	REQUIRE(buf);
	memcpy(buf, s, sizeof(*s));
	c.cdw12 = ticket;
	if (cc) {
		c.cdw13 = cc->cdw13;
		c.cdw14 = cc->cdw14;
	}
	st = t_run(dev, &c, buf, len, NULL);
	free(buf);
	return st;
}

static void test_search(struct isp_dev *dev, const struct t_db *a)
{
	struct isp_wire_reis_search s, g;
	uint32_t q1 = 256 / 8 + 256;	/* one query with its INT8 code */
	struct isp_cmd cc;
	struct isp_results *res = isp_dev_results(NULL == dev ? NULL : dev);
	uint32_t i;

	memset(&g, 0, sizeof(g));
	g.did = 1;
	g.nq = 1;
	g.k = 5;
	g.dim = 256;
	CHECK_EQ_U64(raw_search(dev, ISP_OP_REIS_SEARCH, 7001, &g, q1, NULL), 0);
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_RESULT_RELEASE, 7001), 0);
#define TRY(field, value, status) do {						\
		s = g;								\
		s.field = value;						\
		CHECK_EQ_U64(raw_search(dev, ISP_OP_REIS_SEARCH, 7002, &s, q1, NULL), status); \
	} while (0)
	TRY(nq, 0, BAD);
	TRY(nq, ISP_REIS_MAX_NQ + 1, BAD);
	TRY(k, 0, BAD);
	TRY(k, ISP_REIS_MAX_K + 1, BAD);
	TRY(k, 101, BAD);			/* k > n */
	TRY(rerank_factor, ISP_REIS_MAX_RERANK + 1, BAD);
	TRY(flags, ISP_REIS_SF_ALL + 1, BAD);
	TRY(flags, ISP_REIS_SF_RERANK_ALL | ISP_REIS_SF_NO_RERANK, BAD);
	TRY(rsvd[3], 1, BAD);
	TRY(did, 12345, UNKNOWN);
	TRY(dim, 512, ISP_SC_DIM_MISMATCH | ISP_STATUS_DNR);
	TRY(df_threshold, 257, BAD);
	TRY(flags, ISP_REIS_SF_TAG, BAD);	/* database has no tags */
	TRY(nq, 2, BAD);			/* header says 2, data holds 1 */
#undef TRY
	/* Length: shorter than the header, one byte-dword more. */
	CHECK_EQ_U64(raw_search(dev, ISP_OP_REIS_SEARCH, 7002, &g, q1 + 4, NULL), BAD);
	{
		struct isp_cmd c = t_mk(ISP_OP_REIS_SEARCH, 64);
		uint8_t b[64] = { 0 };

		c.cdw12 = 7002;
		CHECK_EQ_U64(t_run(dev, &c, b, 64, NULL), BAD);
	}
	CHECK_EQ_U64(raw_search(dev, ISP_OP_REIS_SEARCH, 0, &g, q1, NULL), BAD);
	memset(&cc, 0, sizeof(cc));
	cc.cdw13 = 1;
	CHECK_EQ_U64(raw_search(dev, ISP_OP_REIS_SEARCH, 7002, &g, q1, &cc), BAD);
	/* No INT8 codes: rerank refused, NO_RERANK fine. */
	s = g;
	s.did = 3;
	s.dim = 64;
	CHECK_EQ_U64(raw_search(dev, ISP_OP_REIS_SEARCH, 7002, &s, 8 + 64, NULL), BAD);
	s.flags = ISP_REIS_SF_NO_RERANK;
	CHECK_EQ_U64(raw_search(dev, ISP_OP_REIS_SEARCH, 7002, &s, 8, NULL), 0);
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_RESULT_RELEASE, 7002), 0);
	/* IVF_SEARCH on brute force; IVF without nprobe nor calibration;
	 * target recall above 1. */
	CHECK_EQ_U64(raw_search(dev, ISP_OP_REIS_IVF_SEARCH, 7002, &g, q1, NULL), BAD);
	s = g;
	s.did = 2;
	s.dim = 128;
	s.flags = ISP_REIS_SF_NO_RERANK;
	CHECK_EQ_U64(raw_search(dev, ISP_OP_REIS_IVF_SEARCH, 7002, &s, 16, NULL), BAD);
	s.nprobe = 2;
	CHECK_EQ_U64(raw_search(dev, ISP_OP_REIS_IVF_SEARCH, 7002, &s, 16, NULL), 0);
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_RESULT_RELEASE, 7002), 0);
	s.nprobe = 0;
	s.target_recall = 10001;
	CHECK_EQ_U64(raw_search(dev, ISP_OP_REIS_IVF_SEARCH, 7002, &s, 16, NULL), BAD);
	/* Groups: t_min after t_max; a group nobody is in. */
	s = g;
	s.flags = ISP_REIS_SF_GROUP;
	s.t_min = 5;
	s.t_max = 4;
	CHECK_EQ_U64(raw_search(dev, ISP_OP_REIS_SEARCH, 7002, &s, q1, NULL), BAD);
	s.t_min = 0;
	s.t_max = 100;
	s.did = 99;
	CHECK_EQ_U64(raw_search(dev, ISP_OP_REIS_SEARCH, 7002, &s, q1, NULL), UNKNOWN);
	/* A database still deploying. */
	s = g;
	s.did = 70;
	CHECK_EQ_U64(raw_search(dev, ISP_OP_REIS_SEARCH, 7002, &s, q1, NULL), BUSY);
	/* Documents beyond max_result_bytes. */
	s = g;
	s.did = 4;
	s.nq = 1;
	s.k = 1000;
	s.flags = ISP_REIS_SF_DOCS | ISP_REIS_SF_NO_RERANK;
	s.dim = 64;
	{
		struct isp_wire_reis_search s2 = s;

		s2.nq = 32;
		CHECK_EQ_U64(raw_search(dev, ISP_OP_REIS_SEARCH, 7002, &s2, 32 * 8, NULL), BAD);
	}
	/* A ticket that holds a result: Ticket In Use (0x47C9, not Busy), and
	 * the result stays intact. */
	CHECK_EQ_U64(raw_search(dev, ISP_OP_REIS_SEARCH, 7003, &g, q1, NULL), 0);
	CHECK_EQ_U64(raw_search(dev, ISP_OP_REIS_SEARCH, 7003, &g, q1, NULL), 0x47c9);
	CHECK_EQ_U64(raw_search(dev, ISP_OP_REIS_SEARCH, 7003, &g, q1, NULL),
		     ISP_SC_TICKET_IN_USE | ISP_STATUS_DNR);
	CHECK(strcmp(isp_status_name(0x47c9), "ISP Ticket In Use") == 0);
	/* A ticket merely reserved (another command still running) too. */
	res = isp_dev_results(dev);
	REQUIRE(isp_results_reserve(res, 7005, 16, 0) == 0);
	CHECK_EQ_U64(raw_search(dev, ISP_OP_REIS_SEARCH, 7005, &g, q1, NULL),
		     ISP_SC_TICKET_IN_USE | ISP_STATUS_DNR);
	isp_results_cancel(res, 7005);
	/* A deploying database stays ISP Busy whatever the ticket. */
	s = g;
	s.did = 70;
	CHECK_EQ_U64(raw_search(dev, ISP_OP_REIS_SEARCH, 7003, &s, q1, NULL), BUSY);
	{
		struct t_res r;

		memset(&r, 0, sizeof(r));
		CHECK_EQ_U64(t_read_result(dev, 7003, &r), 0);
		CHECK_EQ_U64(r.rr.k, 5);
		t_res_free(&r);
	}
	/* A full ticket table: retryable, no DNR. */
	res = isp_dev_results(dev);
	for (i = 0; i < res->max_tickets; i++)
		isp_results_reserve(res, 900000 + i, 16, 100 + i);	/* a queue each */
	CHECK_EQ_U64(raw_search(dev, ISP_OP_REIS_SEARCH, 7004, &g, q1, NULL), ISP_SC_RESOURCE);
	for (i = 0; i < res->max_tickets; i++)
		isp_results_cancel(res, 900000 + i);
	CHECK_EQ_U64(raw_search(dev, ISP_OP_REIS_SEARCH, 7004, &g, q1, NULL), 0);
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_RESULT_RELEASE, 7004), 0);
	(void)a;
}

static void test_misc(struct isp_dev *dev)
{
	struct isp_cmd c;
	uint8_t buf[512];

	c = t_mk(ISP_OP_REIS_DB_LIST, 12);
	CHECK_EQ_U64(t_run(dev, &c, buf, 12, NULL), BAD);
	c = t_mk(ISP_OP_REIS_DB_LIST, 64);
	c.cdw14 = 1;
	CHECK_EQ_U64(t_run(dev, &c, buf, 64, NULL), BAD);
	c = t_mk(ISP_OP_REIS_DB_INFO, 320);
	c.cdw12 = 4444;
	CHECK_EQ_U64(t_run(dev, &c, buf, 320, NULL), UNKNOWN);
	c = t_mk(ISP_OP_REIS_DB_INFO, 256);
	c.cdw12 = 1;
	CHECK_EQ_U64(t_run(dev, &c, buf, 256, NULL), BAD);
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_DELETE, 4444), UNKNOWN);
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_COMMIT, 4444), UNKNOWN);
	c = t_mk(ISP_OP_REIS_DB_COMMIT, 0);
	c.cdw12 = 1;
	c.cdw15 = 1;
	CHECK_EQ_U64(t_run(dev, &c, NULL, 0, NULL), BAD);
	c = t_mk(ISP_OP_REIS_DB_COMMIT, 4);	/* data on a no-data command */
	CHECK_EQ_U64(t_run(dev, &c, buf, 4, NULL), BAD);
	c = t_mk(ISP_OP_REIS_DOC_READ, 4);	/* the length alone */
	c.cdw12 = 1;
	c.cdw13 = 3;
	CHECK_EQ_U64(t_run(dev, &c, buf, 4, NULL), 0);
	c = t_mk(ISP_OP_REIS_DOC_READ, 64);
	c.cdw12 = 1;
	c.cdw14 = 9;
	CHECK_EQ_U64(t_run(dev, &c, buf, 64, NULL), BAD);
	c.cdw14 = 0;
	c.cdw12 = 70;	/* deploying */
	CHECK_EQ_U64(t_run(dev, &c, buf, 64, NULL), BUSY);
}

int main(void)
{
	struct isp_dev *dev = t_open("reis-ssd1", "blocks_per_plane=24;slc_blocks=12", NULL);
	struct t_db a, b, d, e, dep;
	struct t_query qa, qb;
	struct t_sopts oa, ob;
	struct t_res ra, rb, ra2, rb2;

	REQUIRE(dev);
	/* What must survive every bad command below. */
	t_db_make(&a, 1, ISP_REIS_BF, 256, 100, 0, ISP_REIS_DBF_INT8, ISP_REIS_DOC_SUBPAGE,
		  4096, 1);
	t_db_make(&b, 2, ISP_REIS_IVF, 128, 400, 6, 0, 0, 0, 2);
	b.c.ncalib = 0;
	t_db_make(&d, 3, ISP_REIS_BF, 64, 50, 0, 0, 0, 0, 3);
	t_db_make(&e, 4, ISP_REIS_BF, 64, 1000, 0, 0, ISP_REIS_DOC_PAGE, 16384, 4);
	t_db_make(&dep, 70, ISP_REIS_BF, 64, 50, 0, 0, 0, 0, 5);
	CHECK_EQ_U64(t_deploy(dev, &a, 4096), 0);
	CHECK_EQ_U64(t_deploy(dev, &b, 4096), 0);
	CHECK_EQ_U64(t_deploy(dev, &d, 4096), 0);
	CHECK_EQ_U64(t_deploy(dev, &e, 65536), 0);
	CHECK_EQ_U64(t_create(dev, &dep.c), 0);
	t_queries(&qa, &a, 3, 1);
	t_queries(&qb, &b, 3, 2);
	memset(&oa, 0, sizeof(oa));
	oa.did = 1;
	oa.k = 8;
	oa.flags = ISP_REIS_SF_DOCS;
	memset(&ob, 0, sizeof(ob));
	ob.did = 2;
	ob.k = 8;
	ob.nprobe = 2;
	ob.flags = ISP_REIS_SF_NO_RERANK;
	CHECK_EQ_U64(t_search(dev, 0, &oa, &qa, &ra), 0);
	CHECK_EQ_U64(t_search(dev, 1, &ob, &qb, &rb), 0);

	test_create(dev);
	test_write(dev);
	test_search(dev, &a);
	test_misc(dev);

	CHECK_EQ_U64(t_search(dev, 0, &oa, &qa, &ra2), 0);
	CHECK_EQ_U64(t_search(dev, 1, &ob, &qb, &rb2), 0);
	CHECK(ra.len == ra2.len && memcmp(ra.blob + 64, ra2.blob + 64, ra.len - 64) == 0);
	CHECK(rb.len == rb2.len && memcmp(rb.blob + 64, rb2.blob + 64, rb.len - 64) == 0);
	t_res_free(&ra);
	t_res_free(&rb);
	t_res_free(&ra2);
	t_res_free(&rb2);
	t_queries_free(&qa);
	t_queries_free(&qb);
	t_db_free(&a);
	t_db_free(&b);
	t_db_free(&d);
	t_db_free(&e);
	t_db_free(&dep);
	isp_dev_close(dev);
	return t_result();
}
