/* SPDX-License-Identifier: MIT */
/*
 * test_reis_qblock - a brute-force SEARCH of many queries scans each page
 * once for a block of them (reis_scan.c, docs/benchmarks.md): every
 * query still gets exactly the reference's hits, across block boundaries
 * (70 queries: blocks of 64 and 6) and with the filters, and the modeled
 * time and energy equal re_estimate()'s, which charges query after query
 * as the drive does.
 */
#include "flash_preset.h"
#include "reis_engine.h"
#include "reis_t.h"

#define PARAMS "blocks_per_plane=24;slc_blocks=12"
#define NQ 70u

static void check_hits(struct isp_dev *dev, const struct t_db *db, const struct t_sopts *o,
		       const struct t_query *q, const char *what)
{
	const struct t_db *dbs[1] = { db };
	struct t_res r;
	uint32_t i, ok = 1;

	CHECK_EQ_U64(t_search(dev, 0, o, q, &r), 0);
	CHECK_EQ_U64(r.rr.nq, q->nq);
	for (i = 0; i < q->nq && i < r.rr.nq; i++)
		ok &= (uint32_t)t_check_query(&r, i, dbs, 1, 0, o, q, 1, 0);
	if (!ok)
		fprintf(stderr, "  mismatch in %s\n", what);
	CHECK(ok);
	t_res_free(&r);
}

/* Hits of 70 queries in one command, as the reference gives them. */
static void test_hits(struct isp_dev *dev, const struct t_db *db)
{
	struct t_query q;
	struct t_sopts o;

	t_queries(&q, db, NQ, 7);
	memset(&o, 0, sizeof(o));
	o.did = db->c.did;
	o.k = 10;
	check_hits(dev, db, &o, &q, "rerank k 10");
	o.thr = 100;	/* DF: pass counts differ per query and page */
	check_hits(dev, db, &o, &q, "df 100");
	o.flags = ISP_REIS_SF_TAG | ISP_REIS_SF_NO_RERANK;
	o.tag = 1;
	o.k = 40;
	check_hits(dev, db, &o, &q, "tag no rerank");
	o.flags = 0;
	o.thr = 0;
	o.k = 200;
	o.factor = 8;
	check_hits(dev, db, &o, &q, "k 200 factor 8");
	t_queries_free(&q);
}

/* Modeled time and energy of the blocked command = the analytic model's. */
static void test_timing(struct isp_dev *dev, const struct t_db *db)
{
	struct fp_params p;
	struct re_est e;
	struct re_est_out eo;
	struct t_query q;
	struct t_sopts o;
	struct t_res r;
	char err[128];

	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	REQUIRE(fp_apply(&p, PARAMS, err, sizeof(err)) == 0);
	t_queries(&q, db, NQ, 9);
	memset(&o, 0, sizeof(o));
	o.did = db->c.did;
	o.k = 10;
	o.flags = ISP_REIS_SF_NO_RERANK;
	CHECK_EQ_U64(t_search(dev, 0, &o, &q, &r), 0);
	memset(&e, 0, sizeof(e));
	e.kind = ISP_REIS_BF;
	e.dim = db->c.dim;
	e.n = db->c.n;
	e.db_flags = db->c.flags;
	e.nq = NQ;
	e.k = o.k;
	e.flags = o.flags;
	e.pass = 1.0;
	CHECK_EQ_U64(re_estimate(&p, &e, &eo), 0);
	CHECK_EQ_U64(eo.model_ns, r.search_ns);
	CHECK_EQ_U64(eo.energy_pj, r.search_pj);
	CHECK_EQ_U64(eo.pages_read, r.rr.pages_read);
	CHECK_EQ_U64(eo.entries_compared, r.rr.entries_compared);
	t_res_free(&r);
	t_queries_free(&q);
}

int main(void)
{
	struct isp_dev *dev = t_open("reis-ssd1", PARAMS, NULL);
	struct t_db db;

	REQUIRE(dev);
	t_db_make(&db, 1, ISP_REIS_BF, 256, 9001, 0, ISP_REIS_DBF_INT8 | ISP_REIS_DBF_TAGS, 0, 0,
		  5);
	CHECK_EQ_U64(t_deploy(dev, &db, 1 << 18), 0);
	test_hits(dev, &db);
	test_timing(dev, &db);
	t_db_free(&db);
	isp_dev_close(dev);
	return t_result();
}
