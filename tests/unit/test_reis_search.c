/* SPDX-License-Identifier: MIT */
/*
 * test_reis_search - the drive's REIS search returns exactly what the
 * reference of docs/command-set.md section 4 returns: brute force and IVF,
 * with and without distance filtering, rerank, tags, caller ids, time-
 * partition groups, both metrics, several dimensions; documents come back
 * byte-identical (search and DOC_READ); every hit's entry index names the
 * document DOC_READ returns for it, also with caller ids. SF_RERANK_ALL
 * reranks every entry: the same hits and modeled time as a factor whose
 * factor * k covers the database, the exact top-k by INT8 score for any k.
 */
#include "reis_t.h"

#define PARAMS "blocks_per_plane=24;slc_blocks=12"

static void check_all(struct isp_dev *dev, const struct t_db *const *dbs, uint32_t ndbs,
		      int ivf, const struct t_sopts *o, const struct t_query *q, int df_dev,
		      const char *what)
{
	struct t_res r;
	uint32_t i, ok = 1;
	uint16_t st = t_search(dev, ivf, o, q, &r);

	CHECK_EQ_U64(st, 0);
	if (st) {
		fprintf(stderr, "  in %s\n", what);
		return;
	}
	CHECK_EQ_U64(r.rr.nq, q->nq);
	CHECK_EQ_U64(r.rr.k, o->k);
	CHECK(r.search_ns > 0);
	for (i = 0; i < q->nq; i++)
		ok &= (uint32_t)t_check_query(&r, i, dbs, ndbs, ivf, o, q, df_dev,
					      (o->flags & ISP_REIS_SF_DOCS) != 0);
	if (!ok)
		fprintf(stderr, "  mismatch in %s\n", what);
	CHECK(ok);
	t_res_free(&r);
}

static void test_bf(struct isp_dev *dev)
{
	struct t_db db;
	struct t_query q;
	const struct t_db *dbs[1] = { &db };
	struct t_sopts o;
	struct t_res r;

	t_db_make(&db, 1, ISP_REIS_BF, 1024, 3000, 0,
		  ISP_REIS_DBF_INT8 | ISP_REIS_DBF_IDS | ISP_REIS_DBF_TAGS,
		  ISP_REIS_DOC_SUBPAGE, 4096, 11);
	CHECK_EQ_U64(t_deploy(dev, &db, 8192 + 12), 0);
	t_queries(&q, &db, 6, 5);

	memset(&o, 0, sizeof(o));
	o.did = 1;
	o.k = 10;
	check_all(dev, dbs, 1, 0, &o, &q, 1, "bf rerank");
	o.flags = ISP_REIS_SF_NO_RERANK;
	check_all(dev, dbs, 1, 0, &o, &q, 1, "bf no rerank");
	o.flags = ISP_REIS_SF_DOCS;
	check_all(dev, dbs, 1, 0, &o, &q, 1, "bf docs");
	o.flags = 0;
	o.thr = 420;
	check_all(dev, dbs, 1, 0, &o, &q, 1, "bf df 420");
	t_search(dev, 0, &o, &q, &r);
	CHECK(r.rr.entries_passed < r.rr.entries_compared);
	CHECK_EQ_U64(r.rr.entries_compared, 3000 * q.nq);
	t_res_free(&r);
	o.thr = 260;	/* few pass: hits padded */
	o.k = 50;
	check_all(dev, dbs, 1, 0, &o, &q, 1, "bf df 260 padding");
	o.flags = ISP_REIS_SF_NO_DF;
	check_all(dev, dbs, 1, 0, &o, &q, 1, "bf no df");
	o.flags = ISP_REIS_SF_TAG | ISP_REIS_SF_DOCS;
	o.tag = 2;
	o.thr = 0;
	o.k = 7;
	check_all(dev, dbs, 1, 0, &o, &q, 1, "bf tag 2 docs");
	o.flags = ISP_REIS_SF_TAG | ISP_REIS_SF_NO_RERANK;
	o.tag = 3;
	o.thr = 470;
	check_all(dev, dbs, 1, 0, &o, &q, 1, "bf tag 3 df no rerank");
	o.flags = ISP_REIS_SF_NO_PL | ISP_REIS_SF_NO_MPIBC;
	o.tag = 0;
	o.thr = 0;
	o.factor = 1;
	o.k = 3;
	check_all(dev, dbs, 1, 0, &o, &q, 1, "bf factor 1");
	o.factor = 64;
	o.k = 40;
	check_all(dev, dbs, 1, 0, &o, &q, 1, "bf factor 64");
	o.factor = 0;
	o.k = ISP_REIS_MAX_K;
	o.flags = ISP_REIS_SF_NO_RERANK;
	check_all(dev, dbs, 1, 0, &o, &q, 1, "bf k max");
	t_queries_free(&q);
	t_db_free(&db);
}

/* Two results hit for hit (entry, id, Hamming, score). */
static int same_hits(const struct t_res *a, const struct t_res *b, uint32_t nq, uint32_t k,
		     uint32_t kb)
{
	uint32_t qi, h;

	for (qi = 0; qi < nq; qi++)
		for (h = 0; h < k; h++) {
			const struct isp_wire_reis_hit *x = &a->hits[qi * k + h];
			const struct isp_wire_reis_hit *y = &b->hits[qi * kb + h];

			if (x->entry != y->entry || x->id != y->id || x->hamming != y->hamming ||
			    x->score != y->score)
				return 0;
		}
	return 1;
}

static void test_rerank_all(struct isp_dev *dev)
{
	struct t_db db;
	struct t_query q;
	struct t_sopts o;
	struct t_res all, f64, top;

	t_db_make(&db, 9, ISP_REIS_BF, 256, 3000, 0, ISP_REIS_DBF_INT8, ISP_REIS_DOC_NONE, 0, 41);
	CHECK_EQ_U64(t_deploy(dev, &db, 8192), 0);
	t_queries(&q, &db, 4, 43);
	memset(&o, 0, sizeof(o));
	o.did = 9;
	o.k = 50;
	o.factor = 64;		/* 3200 candidates >= 3000 entries: all of them */
	REQUIRE(t_search(dev, 0, &o, &q, &f64) == 0);
	o.factor = 0;
	o.flags = ISP_REIS_SF_RERANK_ALL;
	REQUIRE(t_search(dev, 0, &o, &q, &all) == 0);
	CHECK_EQ_U64(all.rr.reranked, 3000ull * q.nq);
	CHECK_EQ_U64(f64.rr.reranked, all.rr.reranked);
	CHECK(same_hits(&all, &f64, q.nq, 50, 50));
	CHECK_EQ_U64(all.search_ns, f64.search_ns);
	/* any k: the first k of the same ranking */
	o.k = 5;
	REQUIRE(t_search(dev, 0, &o, &q, &top) == 0);
	CHECK_EQ_U64(top.rr.reranked, 3000ull * q.nq);
	CHECK(same_hits(&top, &all, q.nq, 5, 50));
	t_res_free(&top);
	/* without it, 10 * k candidates: fewer reranked, the default's time */
	o.flags = 0;
	REQUIRE(t_search(dev, 0, &o, &q, &top) == 0);
	CHECK_EQ_U64(top.rr.reranked, 50ull * q.nq);
	CHECK(top.search_ns < all.search_ns);
	t_res_free(&top);
	t_res_free(&all);
	t_res_free(&f64);
	t_queries_free(&q);
	t_db_free(&db);
}

static void test_ivf(struct isp_dev *dev)
{
	static const uint32_t nprobes[] = { 1, 3, 17, 40, 1000 };
	struct t_db db;
	struct t_query q;
	const struct t_db *dbs[1] = { &db };
	struct t_sopts o;
	struct t_res r;
	size_t i;

	t_db_make(&db, 2, ISP_REIS_IVF, 512, 4000, 40, ISP_REIS_DBF_INT8 | ISP_REIS_DBF_TAGS,
		  ISP_REIS_DOC_PAGE, 16384, 23);
	CHECK_EQ_U64(t_deploy(dev, &db, 65536), 0);
	t_queries(&q, &db, 5, 9);
	memset(&o, 0, sizeof(o));
	o.did = 2;
	o.k = 10;
	for (i = 0; i < sizeof(nprobes) / sizeof(nprobes[0]); i++) {
		o.nprobe = nprobes[i];
		o.flags = 0;
		check_all(dev, dbs, 1, 1, &o, &q, 1, "ivf");
		o.flags = ISP_REIS_SF_NO_RERANK | ISP_REIS_SF_DOCS;
		check_all(dev, dbs, 1, 1, &o, &q, 1, "ivf no rerank docs");
	}
	o.nprobe = 5;
	t_search(dev, 1, &o, &q, &r);
	CHECK_EQ_U64(r.rr.nprobe, 5);
	CHECK(r.rr.pages_read > 0 && r.rr.pages_read < q.nq * (4000 / 32 + 2));
	t_res_free(&r);
	o.thr = 200;
	o.flags = ISP_REIS_SF_TAG;
	o.tag = 1;
	check_all(dev, dbs, 1, 1, &o, &q, 1, "ivf df tag");
	/* nprobe from the calibration table. */
	o.thr = 0;
	o.flags = 0;
	o.nprobe = 0;
	o.target = 7000;	/* -> 2 */
	check_all(dev, dbs, 1, 1, &o, &q, 1, "ivf target 0.7");
	t_search(dev, 1, &o, &q, &r);
	CHECK_EQ_U64(r.rr.nprobe, 2);
	t_res_free(&r);
	o.target = 9900;	/* none reaches: the largest */
	check_all(dev, dbs, 1, 1, &o, &q, 1, "ivf target 0.99");
	/* SEARCH (brute force) on an IVF database scans everything. */
	o.target = 0;
	check_all(dev, dbs, 1, 0, &o, &q, 1, "bf on ivf");
	t_queries_free(&q);
	t_db_free(&db);
}

static void test_dims(struct isp_dev *dev)
{
	struct t_db a, b;
	struct t_query qa, qb;
	const struct t_db *da[1] = { &a }, *dbb[1] = { &b };
	struct t_sopts o;

	/* 64-bit codes, no INT8, no OOB fields at all. */
	t_db_make(&a, 3, ISP_REIS_BF, 64, 5000, 0, 0, ISP_REIS_DOC_NONE, 0, 31);
	CHECK_EQ_U64(t_deploy(dev, &a, 4096), 0);
	t_queries(&qa, &a, 4, 3);
	memset(&o, 0, sizeof(o));
	o.did = 3;
	o.k = 20;
	o.flags = ISP_REIS_SF_NO_RERANK;
	check_all(dev, da, 1, 0, &o, &qa, 1, "dim 64");
	o.thr = 20;
	check_all(dev, da, 1, 0, &o, &qa, 1, "dim 64 df");
	/* 384-d, L2 rerank, OOB-limited entries per page. */
	t_db_make(&b, 4, ISP_REIS_IVF, 384, 2500, 9, ISP_REIS_DBF_INT8 | ISP_REIS_DBF_IDS,
		  ISP_REIS_DOC_SUBPAGE, 4096, 37);
	b.c.metric = ISP_REIS_L2;
	CHECK_EQ_U64(t_deploy(dev, &b, 4096), 0);
	t_queries(&qb, &b, 4, 13);
	memset(&o, 0, sizeof(o));
	o.did = 4;
	o.k = 12;
	o.nprobe = 3;
	o.flags = ISP_REIS_SF_DOCS;
	check_all(dev, dbb, 1, 1, &o, &qb, 1, "dim 384 l2 ivf");
	check_all(dev, dbb, 1, 0, &o, &qb, 1, "dim 384 l2 bf");
	t_queries_free(&qa);
	t_queries_free(&qb);
	t_db_free(&a);
	t_db_free(&b);
}

/* REIS 7.1: time partitions of one group, merged exactly. */
static void test_groups(struct isp_dev *dev)
{
	struct t_db p[3];
	struct t_query q;
	const struct t_db *sel[2], *one[1] = { &p[0] };
	struct t_sopts o;
	struct t_res r;
	uint32_t i;

	for (i = 0; i < 3; i++) {
		t_db_make(&p[i], 20 + i, ISP_REIS_IVF, 256, 1500 + 300 * i, 12,
			  ISP_REIS_DBF_INT8 | ISP_REIS_DBF_TAGS, ISP_REIS_DOC_SUBPAGE, 4096, 50 + i);
		p[i].c.group = 7;
		p[i].c.timestamp = 10 * (i + 1);
		/* Shared structure: the partitions share their codes' centers. */
		CHECK_EQ_U64(t_deploy(dev, &p[i], 32768), 0);
	}
	t_queries(&q, &p[1], 4, 77);
	sel[0] = &p[1];
	sel[1] = &p[2];
	memset(&o, 0, sizeof(o));
	o.did = 7;
	o.k = 10;
	o.flags = ISP_REIS_SF_GROUP | ISP_REIS_SF_DOCS;
	o.t_min = 15;
	o.t_max = 30;
	check_all(dev, sel, 2, 0, &o, &q, 1, "group bf");
	t_search(dev, 0, &o, &q, &r);
	CHECK_EQ_U64(r.rr.ndbs, 2);
	t_res_free(&r);
	o.nprobe = 4;
	o.flags = ISP_REIS_SF_GROUP | ISP_REIS_SF_TAG | ISP_REIS_SF_NO_RERANK;
	o.tag = 1;
	check_all(dev, sel, 2, 1, &o, &q, 1, "group ivf tag");
	o.t_min = 0;
	o.t_max = 12;
	o.flags = ISP_REIS_SF_GROUP;
	check_all(dev, one, 1, 1, &o, &q, 1, "group one partition");
	o.t_min = 31;
	o.t_max = 100;
	CHECK_EQ_U64(t_search(dev, 1, &o, &q, &r), ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR);
	t_queries_free(&q);
	for (i = 0; i < 3; i++)
		t_db_free(&p[i]);
}

static void test_doc_read(struct isp_dev *dev)
{
	struct t_db db;
	uint8_t buf[16384 + 8];
	struct isp_cmd c;
	uint64_t e;

	t_db_make(&db, 30, ISP_REIS_BF, 128, 700, 0, 0, ISP_REIS_DOC_PAGE, 16384, 3);
	CHECK_EQ_U64(t_deploy(dev, &db, 100000), 0);
	for (e = 0; e < 700; e += 37) {
		uint32_t len;

		c = t_mk(ISP_OP_REIS_DOC_READ, sizeof(buf));
		c.cdw12 = 30;
		c.cdw13 = (uint32_t)e;
		CHECK_EQ_U64(t_run(dev, &c, buf, sizeof(buf), NULL), 0);
		memcpy(&len, buf, 4);
		CHECK_EQ_U64(len, t_doc_len(&db, e));
		CHECK(memcmp(buf + 4, db.docs + db.doff[e], len) == 0);
	}
	/* A short buffer gets the length and the first bytes. */
	c = t_mk(ISP_OP_REIS_DOC_READ, 64);
	c.cdw12 = 30;
	c.cdw13 = 3;	/* a full 16 KiB chunk */
	CHECK_EQ_U64(t_run(dev, &c, buf, 64, NULL), 0);
	CHECK(memcmp(buf + 4, db.docs + db.doff[3], 60) == 0);
	c.cdw13 = 700;
	CHECK_EQ_U64(t_run(dev, &c, buf, 64, NULL), ISP_SC_INVALID_FIELD | ISP_STATUS_DNR);
	c.cdw12 = 3;	/* no documents */
	c.cdw13 = 0;
	CHECK_EQ_U64(t_run(dev, &c, buf, 64, NULL), ISP_SC_INVALID_FIELD | ISP_STATUS_DNR);
	c.cdw12 = 999;
	CHECK_EQ_U64(t_run(dev, &c, buf, 64, NULL), ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR);
	t_db_free(&db);
}

/*
 * Hits carry the entry index even when the id is the caller's: DOC_READ
 * (did, entry) gives the hit's own document (BF, and IVF whose entries
 * are in cluster order).
 */
static void test_hit_entry(struct isp_dev *dev)
{
	static const uint32_t kinds[2] = { ISP_REIS_BF, ISP_REIS_IVF };
	uint8_t buf[4096 + 8];
	uint32_t v, i, checked = 0;

	for (v = 0; v < 2; v++) {
		struct t_db db;
		struct t_query q;
		struct t_sopts o;
		struct t_res r;
		struct isp_cmd c;
		const struct t_db *dbs[1] = { &db };

		t_db_make(&db, 40 + v, kinds[v], 256, 1200, 12,
			  ISP_REIS_DBF_INT8 | ISP_REIS_DBF_IDS, ISP_REIS_DOC_SUBPAGE, 4096, 21 + v);
		CHECK_EQ_U64(t_deploy(dev, &db, 65536), 0);
		t_queries(&q, &db, 4, 9 + v);
		memset(&o, 0, sizeof(o));
		o.did = db.c.did;
		o.k = 8;
		o.nprobe = 3;
		o.flags = ISP_REIS_SF_DOCS;
		check_all(dev, dbs, 1, v, &o, &q, 1, "entry with ids");
		REQUIRE(t_search(dev, v, &o, &q, &r) == 0);
		for (i = 0; i < q.nq * o.k; i++) {
			const struct isp_wire_reis_hit *h = &r.hits[i];
			uint32_t len;

			if (h->id == ISP_REIS_HIT_NONE)
				continue;
			CHECK(h->entry < db.c.n);
			CHECK_EQ_U64(h->id, db.ids[h->entry]);	/* id != entry */
			c = t_mk(ISP_OP_REIS_DOC_READ, sizeof(buf));
			c.cdw12 = h->did;
			c.cdw13 = h->entry;
			CHECK_EQ_U64(t_run(dev, &c, buf, sizeof(buf), NULL), 0);
			memcpy(&len, buf, 4);
			CHECK_EQ_U64(len, h->doc_len);
			CHECK(memcmp(buf + 4, r.blob + h->doc_off, len) == 0);
			checked++;
		}
		t_res_free(&r);
		t_queries_free(&q);
		CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_DELETE, db.c.did), 0);
		t_db_free(&db);
	}
	CHECK(checked >= 2 * 4 * 8 - 4);
}

/* A device with distance filtering off ignores thresholds (No-OPT). */
static void test_device_switches(void)
{
	struct isp_dev *dev = t_open("reis-ssd2", PARAMS ";reis_df=0;reis_pl=0;reis_mpibc=0",
				     NULL);
	struct t_db db;
	struct t_query q;
	const struct t_db *dbs[1] = { &db };
	struct t_sopts o;
	struct isp_wire_identify id;
	struct isp_cmd c;

	REQUIRE(dev);
	c = t_mk(ISP_OP_IDENTIFY, sizeof(id));
	CHECK_EQ_U64(t_run(dev, &c, &id, sizeof(id), NULL), 0);
	CHECK(id.caps & ISP_CAP_REIS);
	CHECK(!(id.caps & ISP_CAP_REIS_DF));
	t_db_make(&db, 1, ISP_REIS_BF, 256, 2000, 0, ISP_REIS_DBF_INT8, 0, 0, 5);
	db.c.df_threshold = 90;
	CHECK_EQ_U64(t_deploy(dev, &db, 8192), 0);
	t_queries(&q, &db, 3, 1);
	memset(&o, 0, sizeof(o));
	o.did = 1;
	o.k = 10;
	check_all(dev, dbs, 1, 0, &o, &q, 0, "device df off");
	t_queries_free(&q);
	t_db_free(&db);
	isp_dev_close(dev);
}

int main(void)
{
	struct isp_dev *dev = t_open("reis-ssd1", PARAMS, NULL);

	REQUIRE(dev);
	test_bf(dev);
	test_rerank_all(dev);
	test_ivf(dev);
	test_dims(dev);
	test_groups(dev);
	test_doc_read(dev);
	test_hit_entry(dev);
	isp_dev_close(dev);
	test_device_switches();
	return t_result();
}
