/* SPDX-License-Identifier: MIT */
/*
 * test_isp_stop.c - stop latency of every long command (issue 32, item 2),
 * by test_reis_cancel's method: the command once to its end, then up to
 * three times stopped from another thread a tenth of the way in; the
 * quickest stop must be under a quarter of the full run (on a loaded host
 * either thread may lose its core for a while, hence the tries). Printed
 * per command: docs/platform.md section 7 quotes them.
 *  - SEARCH with the INT8 rerank (8192-D, factor 64): the rerank reads
 *    the flag every 64 candidates;
 *  - IVF_SEARCH (coarse and fine phases);
 *  - RF_SLS (per bag) and RF_REMAP FULL (per row page moved);
 *  - RF_TBL_COMMIT of a RecFlash table, with a profile (the placement
 *    moves every row) and without (the mapping is built in row order):
 *    a stopped commit leaves the table DEPLOYING and committable, and the
 *    committed table sums exactly;
 * A stopped command answers Command Abort Requested (no DNR).
 * (The brute-force SEARCH is test_reis_cancel's; the wait for buffer
 * budget is test_isp_share's.)
 */
#include "reis_t.h"
#include "isp_internal.h"
#include "stop_t.h"
#include "test_rf_util.h"

/* ---- REIS: INT8 rerank, IVF ---- */

struct reis_arg {
	struct t_db db;
	struct t_query q;
	struct t_sopts o;
	int ivf;
	uint32_t ticket;
};

static void reis_mk(struct stop_case *sc, struct job *j, int i)
{
	struct reis_arg *a = sc->arg;

	j->data = t_search_data(&a->o, &a->q, &j->len);
	j->c = t_mk(a->ivf ? ISP_OP_REIS_IVF_SEARCH : ISP_OP_REIS_SEARCH, (uint32_t)j->len);
	j->c.cdw12 = a->ticket + (uint32_t)i;
}

static void reis_after(struct stop_case *sc, struct job *j, int i)
{
	struct reis_arg *a = sc->arg;
	struct t_res r;

	memset(&r, 0, sizeof(r));
	/* the run to the end published its result; a stopped one nothing */
	CHECK_EQ_U64(t_read_result(sc->dev, a->ticket + (uint32_t)i, &r) & 0x7ff,
		     i ? ISP_SC_UNKNOWN_ID : 0);
	t_res_free(&r);
	free(j->data);
}

static void test_reis(void)
{
	struct isp_dev *dev = t_open("reis-ssd2", "blocks_per_plane=64;slc_blocks=16", NULL);
	struct reis_arg a;
	struct stop_case sc = { .dev = dev, .mk = reis_mk, .after = reis_after, .arg = &a,
				.warm = 1 };

	REQUIRE(dev);
	/* 8192-D INT8 codes, every entry a rerank candidate: 64 MiB a query */
	memset(&a, 0, sizeof(a));
	t_db_make(&a.db, 1, ISP_REIS_BF, 8192, 8192, 0, ISP_REIS_DBF_INT8, 0, 0, 11);
	CHECK_EQ_U64(t_deploy(dev, &a.db, 262144), 0);
	/* 4 queries, not 1: a query's phases before its rerank read the flag
	 * less often than the rerank, and one query's run (10-12 ms) left a
	 * quarter of 3 ms for them (4.3 ms once at load 3) */
	t_queries(&a.q, &a.db, 4, 5);
	a.o.did = 1;
	a.o.k = 1024;
	a.o.factor = 64;
	a.ticket = 100;
	sc.what = "SEARCH, INT8 rerank of 8192 x 8192-D (k 1024, factor 64), 4 queries";
	measure(&sc);
	t_queries_free(&a.q);
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_DELETE, 1), 0);
	t_db_free(&a.db);

	/* IVF: many clusters probed, binary codes only */
	memset(&a, 0, sizeof(a));
	t_db_make(&a.db, 2, ISP_REIS_IVF, 512, 200000, 256, 0, 0, 0, 13);
	CHECK_EQ_U64(t_deploy(dev, &a.db, 262144), 0);
	t_queries(&a.q, &a.db, 64, 7);
	a.o.did = 2;
	a.o.k = 10;
	a.o.nprobe = 128;
	a.o.flags = ISP_REIS_SF_NO_RERANK;
	a.ivf = 1;
	a.ticket = 200;
	sc.what = "IVF_SEARCH, 64 queries x nprobe 128 of 256 clusters, 200000 codes";
	measure(&sc);
	t_queries_free(&a.q);
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_DELETE, 2), 0);
	t_db_free(&a.db);
	isp_dev_close(dev);
}

/* ---- RecFlash: SLS, REMAP, TBL_COMMIT ---- */

#define RF_DIM 32u
#define RF_ROWS 100000u

struct rf_arg {
	uint8_t *table;
	struct rt_batch b;
	uint32_t tid, flags;
	uint32_t rows, dim;
	int remap;
};

static void sls_mk(struct stop_case *sc, struct job *j, int i)
{
	struct rf_arg *a = sc->arg;
	uint8_t *data;

	j->len = rt_sls_data(1, RF_DIM, 0, &a->b, &data);
	j->data = data;
	j->c = rt_cmd(ISP_OP_RF_SLS, (uint32_t)j->len);
	j->c.cdw12 = 5000 + (uint32_t)i;
}

static void sls_after(struct stop_case *sc, struct job *j, int i)
{
	struct isp_cmd c = rt_cmd(ISP_OP_RESULT_RELEASE, 0);

	c.cdw12 = 5000 + (uint32_t)i;
	CHECK_EQ_U64(rt_exec(sc->dev, &c, NULL, NULL) & 0x7ff, i ? ISP_SC_UNKNOWN_ID : 0);
	free(j->data);
}

static void remap_mk(struct stop_case *sc, struct job *j, int i)
{
	(void)sc;
	(void)i;
	j->c = rt_cmd(ISP_OP_RF_REMAP, 0);
	j->c.cdw12 = 1;
	j->c.cdw13 = ISP_RF_REMAP_FULL;
}

static void remap_after(struct stop_case *sc, struct job *j, int i)
{
	(void)j;
	/* the run to the end staged a mapping: switch to it; a stopped one
	 * staged nothing */
	CHECK_EQ_U64(rt_simple(sc->dev, ISP_OP_RF_SWITCH, 1, 0, NULL) != 0, i != 0);
}

/* Tables 10.. deployed (profile and rows written), not committed. */
static void commit_mk(struct stop_case *sc, struct job *j, int i)
{
	struct rf_arg *a = sc->arg;

	j->c = rt_cmd(ISP_OP_RF_TBL_COMMIT, 0);
	j->c.cdw12 = a->tid + (uint32_t)i;
}

static void commit_after(struct stop_case *sc, struct job *j, int i)
{
	struct rf_arg *a = sc->arg;
	struct isp_wire_rf_stats w;

	(void)j;
	REQUIRE(rt_stats(sc->dev, a->tid + (uint32_t)i, 0, &w) == 0);
	CHECK_EQ_U64(w.state, i ? ISP_RF_DEPLOYING : ISP_RF_READY);
}

static void rf_deploy_only(struct isp_dev *dev, uint32_t tid, struct rf_arg *a,
			   const uint32_t *profile)
{
	struct isp_wire_rf_create cr = rt_cr(tid, a->rows, a->dim, ISP_RF_FP32, ISP_RF_RECFLASH);
	uint64_t bytes = (uint64_t)a->rows * 4 * a->dim;

	cr.flags = a->flags;
	REQUIRE(rt_create(dev, &cr) == 0);
	if (profile)
		REQUIRE(rt_write(dev, ISP_OP_RF_TBL_WRITE, tid, ISP_RF_SEC_PROFILE, profile,
				 (uint64_t)a->rows * 4, 65536) == 0);
	REQUIRE(rt_write(dev, ISP_OP_RF_TBL_WRITE, tid, ISP_RF_SEC_ROWS, a->table, bytes,
			 RT_MAX_XFER - 1000) == 0);
}

static void check_sums(struct isp_dev *dev, uint32_t tid, const struct rf_arg *a, uint32_t seed)
{
	struct rt_batch b;
	struct rt_sls_out o;
	float *ref = malloc(64ull * a->dim * 4);

	REQUIRE(ref);
	rt_batch_random(&b, 64, 20, a->rows, 0, seed);
	REQUIRE(rt_sls(dev, tid, a->dim, 0, &b, &o) == 0);
	rt_reference(a->table, ISP_RF_FP32, a->dim, 0, &b, ref);
	CHECK(rt_same(o.v, ref, 64ull * a->dim));
	free(o.v);
	rt_batch_free(&b);
	free(ref);
}

static void test_commit(int with_profile)
{
	struct isp_dev *dev = rt_open("recflash-slc", "blocks_per_plane=128", NULL);
	struct rf_arg a;
	struct stop_case sc = { .dev = dev, .mk = commit_mk, .after = commit_after, .arg = &a };
	uint32_t *profile = NULL, k, s = 77;
	int i;

	memset(&a, 0, sizeof(a));
	a.rows = with_profile ? 400000 : 2000000;
	a.dim = with_profile ? 4 : 1;
	a.flags = with_profile ? ISP_RF_TF_PROFILE : 0;
	a.tid = 10;
	a.table = rt_table(a.rows, a.dim, ISP_RF_FP32, 99);
	REQUIRE(a.table);
	if (with_profile) {
		profile = malloc((size_t)a.rows * 4);
		REQUIRE(profile);
		for (k = 0; k < a.rows; k++)	/* a skewed profile: every row placed */
			profile[k] = rt_rand(&s) % 1000 < 50 ? 1000 + rt_rand(&s) % 1000 : rt_rand(&s) % 3;
	}
	for (i = 0; i <= 3; i++)
		rf_deploy_only(dev, a.tid + (uint32_t)i, &a, profile);
	sc.what = with_profile ?
		  "RF_TBL_COMMIT, 400000 rows with a profile (the placement moves every row)" :
		  "RF_TBL_COMMIT, 2000000 rows, no profile (mapping in row order)";
	measure(&sc);
	/* a stopped commit can be committed again: the table then sums exactly */
	for (i = 1; i <= 3; i++) {
		struct isp_wire_rf_stats w;

		REQUIRE(rt_stats(dev, a.tid + (uint32_t)i, 0, &w) == 0);
		if (w.state == ISP_RF_DEPLOYING)
			CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_TBL_COMMIT, a.tid + (uint32_t)i, 0, NULL),
				     0);
		check_sums(dev, a.tid + (uint32_t)i, &a, 40 + (uint32_t)i);
	}
	check_sums(dev, a.tid, &a, 39);
	free(profile);
	free(a.table);
	isp_dev_close(dev);
}

static void test_sls_remap(void)
{
	struct isp_dev *dev = rt_open("recflash-slc", "blocks_per_plane=64", NULL);
	struct isp_wire_rf_create cr = rt_cr(1, RF_ROWS, RF_DIM, ISP_RF_FP32, ISP_RF_RECFLASH);
	struct rf_arg a;
	struct stop_case sc = { .dev = dev, .arg = &a, .warm = 1 };
	struct rt_batch tr;
	struct rt_sls_out o;
	int i;

	memset(&a, 0, sizeof(a));
	a.rows = RF_ROWS;
	a.dim = RF_DIM;
	a.table = rt_table(RF_ROWS, RF_DIM, ISP_RF_FP32, 4321);
	REQUIRE(a.table);
	REQUIRE(rt_deploy(dev, &cr, a.table, NULL) == 0);

	rt_batch_random(&a.b, 3000, 64, RF_ROWS, 0, 9);
	sc.what = "RF_SLS, 3000 bags of 1..64 rows of 100000 x 32 FP32";
	sc.mk = sls_mk;
	sc.after = sls_after;
	measure(&sc);
	rt_batch_free(&a.b);

	/* counts tracked for the remap */
	for (i = 0; i < 4; i++) {
		rt_batch_random(&tr, 256, 20, RF_ROWS, 0, 100 + (uint32_t)i);
		REQUIRE(rt_sls(dev, 1, RF_DIM, 0, &tr, &o) == 0);
		free(o.v);
		rt_batch_free(&tr);
	}
	sc.what = "RF_REMAP FULL, 100000 rows x 32 FP32";
	sc.mk = remap_mk;
	sc.after = remap_after;
	measure(&sc);
	check_sums(dev, 1, &a, 5);
	free(a.table);
	isp_dev_close(dev);
}

int main(void)
{
	test_reis();
	test_sls_remap();
	test_commit(0);
	test_commit(1);
	return t_result();
}
