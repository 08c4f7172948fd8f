/* SPDX-License-Identifier: MIT */
/*
 * test_lib_group_timeout - the group's per-command bound. A member whose
 * completions come late (an in-process drive in delay mode with a 600 ms
 * controller overhead per command, reopened from the backing file its
 * shard was deployed to) makes a sharded search and a sharded SLS return
 * -ETIMEDOUT within the bound, naming the drive, instead of waiting for
 * it; with REIS_GROUP_PARTIAL the search merges the other members and
 * flags the result. The late commands stay the group's
 * (reis_group_pending() > 0) until they complete, their results are read
 * and released on the drive (its controller DRAM back to where it was),
 * and later calls with a bound that fits give one drive's answer (==).
 * The synchronous waits are bounded alike: the DB_INFO before a search,
 * the scheduled mode's drive batches (search and SLS) and the sharded
 * deploys (REIS and RecFlash), which stay all or nothing: the others'
 * shards go at once, the slow member's once its own deploy returns, and a
 * call meanwhile fails naming the member still inside the late one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "libreis_tools.h"
#include "reis_cmp.h"
#include "reis_synth.h"
#include "rf_util.h"

#define NM 3
#define SLOW 1
#define TMO_MS 150
#define SLOW_PARAMS "ctrl_cmd=600ms"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static struct reis_dev *open_backed(const char *dir, const char *tag, unsigned i,
				    const char *preset, int slow)
{
	struct reis_inproc_opts o;
	struct reis_dev *dev;
	char path[256], err[256] = "";

	snprintf(path, sizeof(path), "%s/%s-%u.img", dir, tag, i);
	memset(&o, 0, sizeof(o));
	o.backing = path;
	o.preset = preset;
	o.errbuf = err;
	o.errlen = sizeof(err);
	if (slow) {
		o.flags = REIS_INPROC_DELAY;
		o.params = SLOW_PARAMS;
	}
	if (reis_open_inproc(&o, &dev)) {
		fprintf(stderr, "open %s: %s\n", path, err);
		exit(T_EXIT_FAIL);
	}
	return dev;
}

/* The group again, member SLOW reopened in delay mode. */
static struct reis_group *reopen(const char *dir, const char *tag, const char *preset)
{
	struct reis_dev *devs[NM];
	struct reis_group *g;
	unsigned i;

	for (i = 0; i < NM; i++)
		devs[i] = open_backed(dir, tag, i, preset, i == SLOW);
	REQUIRE(reis_group_adopt(devs, NULL, NM, &g) == 0);
	return g;
}

static void wait_pending(struct reis_group *g)
{
	double t0 = now_s();

	while (reis_group_pending(g) && now_s() - t0 < 60)
		usleep(20000);
	CHECK_EQ_U64(reis_group_pending(g), 0);
	printf("late commands finished %.1f s after the bound\n", now_s() - t0);
}

/* A call that gave up on the slow member: its error names it. */
static void check_late(struct reis_group *g, int ret, double dt, double max_s, const char *what,
		       const char *label)
{
	CHECK_EQ_U64(ret, -ETIMEDOUT);
	CHECK(reis_group_failed(g) == SLOW);
	CHECK(strstr(reis_group_errmsg(g), "drive1: ") == reis_group_errmsg(g));
	CHECK(strstr(reis_group_errmsg(g), what) != NULL);
	CHECK(dt < max_s);
	printf("%s: %s (after %.2f s)\n", label, reis_group_errmsg(g), dt);
}

/* The scheduled mode's drive batches are bounded: a DB_INFO (one 600 ms
 * command) fits a 1 s bound, the slow drive's batch (several) does not. */
static void check_sched_reis(struct reis_group *g, const struct reis_db_image *img,
			     const struct reis_queries *q)
{
	struct reis_group_sched_report rep;
	struct reis_group_result r;
	struct reis_search_opts o;
	double t0, dt;
	int ret;

	memset(&o, 0, sizeof(o));
	o.did = img->did;
	o.k = 5;
	REQUIRE(reis_group_set_timeout(g, 1000) == 0);
	t0 = now_s();
	ret = reis_group_sched_search(g, NULL, 0, &o, q, NULL, &r, &rep);
	dt = now_s() - t0;
	check_late(g, ret, dt, 0.6 + 2 * 1.0 + 0.5, "scheduled batch", "scheduled search");
	reis_group_result_free(&r);
	wait_pending(g);
}

/* A sharded deploy is bounded and stays all or nothing: the others' shards
 * are removed at once, the slow member's once its own deploy returns. */
static void check_deploy_reis(struct reis_group *g, struct reis_db_image *img)
{
	struct reis_db_info in;
	uint32_t did = img->did;
	double t0, dt;
	unsigned i;
	int ret;

	REQUIRE(reis_group_set_timeout(g, TMO_MS) == 0);
	img->did = did + 1;
	t0 = now_s();
	ret = reis_group_db_deploy(g, img, NULL);
	dt = now_s() - t0;
	check_late(g, ret, dt, 3 * TMO_MS / 1000.0 + 0.3, "deleted when its deploy returns",
		   "deploy");
	for (i = 0; i < NM; i++)
		if (i != SLOW)
			CHECK_EQ_U64(reis_db_info(reis_group_dev(g, i), img->did, &in), -ENOENT);
	/* The slow member is still inside it: the next call waits, then says so. */
	CHECK(reis_group_pending(g) > 0);
	CHECK_EQ_U64(reis_group_db_delete(g, img->did), -ETIMEDOUT);
	CHECK(strstr(reis_group_errmsg(g), "still inside a call that timed out") != NULL);
	wait_pending(g);
	CHECK_EQ_U64(reis_db_info(reis_group_dev(g, SLOW), img->did, &in), -ENOENT);
	img->did = did;
}

static void check_reis(const char *dir)
{
	float *x = synth_vectors(41, 900, 128, 10, 0.5f), *qf = synth_vectors(42, 24, 128, 10, 0.5f);
	struct reis_dev *devs[NM], *one;
	struct reis_group_result r;
	struct reis_search_result want;
	struct reis_search_opts o;
	struct reis_build_opts bo;
	struct reis_db_image img;
	struct reis_queries q;
	struct reis_info in0, in1;
	struct reis_group *g;
	char err[256];
	double t0, dt;
	unsigned i, j;
	int ret;

	REQUIRE(x && qf);
	memset(&bo, 0, sizeof(bo));
	bo.flags = REIS_BUILD_INT8;
	bo.did = 3;
	bo.kind = REIS_DB_BF;
	REQUIRE(reis_db_build(&bo, x, 900, 128, &img, err, sizeof(err)) == 0);
	REQUIRE(reis_encode_queries(img.quant, qf, 24, &q) == 0);
	REQUIRE(reis_open_inproc(NULL, &one) == 0);
	REQUIRE(reis_db_deploy(one, &img, NULL) == 0);
	for (i = 0; i < NM; i++)
		devs[i] = open_backed(dir, "reis", i, NULL, 0);
	REQUIRE(reis_group_adopt(devs, NULL, NM, &g) == 0);
	REQUIRE(reis_group_db_deploy(g, &img, NULL) == 0);
	reis_group_close(g);

	g = reopen(dir, "reis", NULL);
	CHECK(reis_group_set_timeout(g, -2) == -EINVAL);
	REQUIRE(reis_group_set_timeout(g, TMO_MS) == 0);
	REQUIRE(reis_identify(reis_group_dev(g, SLOW), &in0) == 0);
	memset(&o, 0, sizeof(o));
	o.did = 3;
	o.k = 5;
	/* The bound, not the slow drive, ends the call: the DB_INFO before the
	 * scatter (one 600 ms command here) is bounded too. */
	t0 = now_s();
	ret = reis_group_search(g, 0, &o, &q, 0, &r);
	dt = now_s() - t0;
	CHECK_EQ_U64(ret, -ETIMEDOUT);
	CHECK(reis_group_failed(g) == SLOW);
	CHECK(strstr(reis_group_errmsg(g), "drive1: ") == reis_group_errmsg(g));
	CHECK(strstr(reis_group_errmsg(g), "timeout") != NULL);
	CHECK(strstr(reis_group_errmsg(g), "DB_INFO") != NULL);
	CHECK(dt < 3 * TMO_MS / 1000.0);
	printf("search: %s (after %.2f s)\n", reis_group_errmsg(g), dt);
	CHECK(reis_group_pending(g) > 0);
	/* Partial: the other two members merged, the result flagged. */
	ret = reis_group_search(g, 0, &o, &q, REIS_GROUP_PARTIAL, &r);
	CHECK_EQ_U64(ret, -ETIMEDOUT);
	CHECK(r.partial && r.missing == 1u << SLOW);
	for (i = 0; i < q.nq; i++)
		for (j = 0; j < r.res.nhits[i]; j++)
			CHECK(r.res.hits[(size_t)i * r.res.k + j].entry % NM != SLOW);
	reis_group_result_free(&r);
	/* The late commands finish in the background of later calls. */
	wait_pending(g);
	REQUIRE(reis_identify(reis_group_dev(g, SLOW), &in1) == 0);
	CHECK_EQ_U64(in1.dram_used, in0.dram_used);	/* every late result released */
	/* A bound that fits: one drive's answer. */
	REQUIRE(reis_group_set_timeout(g, 0) == 0);
	REQUIRE(reis_group_search(g, 0, &o, &q, 0, &r) == 0);
	REQUIRE(reis_search(one, &o, &q, &want) == 0);
	CHECK_EQ_U64(reis_cmp_results("after the timeout vs one drive", &r.res, &want, 0), 0);
	reis_group_result_free(&r);
	reis_search_result_free(&want);
	check_sched_reis(g, &img, &q);
	check_deploy_reis(g, &img);
	reis_group_close(g);
	reis_close(one);
	reis_queries_free(&q);
	reis_db_image_free(&img);
	free(x);
	free(qf);
}

/* The scheduled SLS's drive batches and the sharded RecFlash deploy are
 * bounded too (as check_sched_reis() and check_deploy_reis()). */
static void check_more_rf(struct reis_group *g, struct reis_rf_table *d,
			  const struct rf_batch *bt)
{
	struct reis_group_sched_report rep;
	float *out = malloc((size_t)bt->b.nbags * d->dim * sizeof(float));
	uint32_t tid = d->tid;
	double t0, dt;
	unsigned i;
	int ret;

	REQUIRE(out);
	REQUIRE(reis_group_set_timeout(g, 1000) == 0);
	t0 = now_s();
	ret = reis_group_sched_sls(g, d, &bt->b, 0, NULL, out, &rep);
	dt = now_s() - t0;
	check_late(g, ret, dt, 2 * 1.0 + 0.5, "scheduled SLS batch", "scheduled SLS");
	wait_pending(g);

	REQUIRE(reis_group_set_timeout(g, TMO_MS) == 0);
	d->tid = tid + 1;
	t0 = now_s();
	ret = reis_group_rf_deploy(g, d, NULL);
	dt = now_s() - t0;
	check_late(g, ret, dt, 3 * TMO_MS / 1000.0 + 0.3, "deleted when its deploy returns",
		   "RecFlash deploy");
	for (i = 0; i < NM; i++)
		if (i != SLOW)
			CHECK_EQ_U64(reis_rf_delete(reis_group_dev(g, i), d->tid), -ENOENT);
	wait_pending(g);
	CHECK_EQ_U64(reis_rf_delete(reis_group_dev(g, SLOW), d->tid), -ENOENT);
	d->tid = tid;
	free(out);
}

static void check_rf(const char *dir)
{
	struct reis_dev *devs[NM], *one = rf_open("recflash-tlc", 0, 0, NULL);
	struct reis_rf_table d;
	struct rf_batch bt;
	struct rf_tbl t;
	struct reis_group *g;
	float *want, *got;
	size_t nv;
	double t0, dt;
	unsigned i;
	int ret;

	REQUIRE(rf_tbl_make(&t, 7, 1200, 32, REIS_RF_FP32, REIS_RF_RECFLASH, 3) == 0);
	d = rf_as_table(&t);
	REQUIRE(rf_tbl_deploy(one, &t, NULL) == 0);
	for (i = 0; i < NM; i++)
		devs[i] = open_backed(dir, "rf", i, "recflash-tlc", 0);
	REQUIRE(reis_group_adopt(devs, NULL, NM, &g) == 0);
	REQUIRE(reis_group_rf_deploy(g, &d, NULL) == 0);
	reis_group_close(g);

	g = reopen(dir, "rf", "recflash-tlc");
	REQUIRE(reis_group_set_timeout(g, TMO_MS) == 0);
	rf_batch_make(&bt, 8, 32, 12, 0, t.rows, 0);
	nv = (size_t)32 * t.dim;
	want = malloc(nv * 4);
	got = malloc(nv * 4);
	REQUIRE(want && got);
	REQUIRE(reis_rf_sls(one, t.tid, t.dim, &bt.b, 0, want, NULL) == 0);
	t0 = now_s();
	ret = reis_group_rf_sls(g, t.tid, t.rows, t.dim, &bt.b, REIS_GROUP_SLS_EXACT, got, NULL);
	dt = now_s() - t0;
	CHECK_EQ_U64(ret, -ETIMEDOUT);
	CHECK(reis_group_failed(g) == SLOW);
	CHECK(strstr(reis_group_errmsg(g), "drive1: ") == reis_group_errmsg(g));
	CHECK(dt < 4 * TMO_MS / 1000.0 + 0.5);
	printf("SLS: %s (after %.2f s)\n", reis_group_errmsg(g), dt);
	CHECK(reis_group_pending(g) > 0);
	wait_pending(g);
	REQUIRE(reis_group_set_timeout(g, 0) == 0);
	memset(got, 0xff, nv * 4);
	REQUIRE(reis_group_rf_sls(g, t.tid, t.rows, t.dim, &bt.b, REIS_GROUP_SLS_EXACT, got,
				  NULL) == 0);
	CHECK_EQ_U64(rf_diff(got, want, nv), 0);
	check_more_rf(g, &d, &bt);
	/* Closing with late work in flight does not hang either. */
	REQUIRE(reis_group_set_timeout(g, TMO_MS) == 0);
	CHECK(reis_group_rf_sls(g, t.tid, t.rows, t.dim, &bt.b, 0, got, NULL) == -ETIMEDOUT);
	t0 = now_s();
	reis_group_close(g);
	printf("close with late work: %.2f s\n", now_s() - t0);
	CHECK(now_s() - t0 < 4 * 0.6 + 1);
	rf_batch_free(&bt);
	free(want);
	free(got);
	free(t.wire);
	reis_close(one);
}

int main(void)
{
	char dir[] = "/tmp/test_lib_group_timeout.XXXXXX";
	char cmd[96];

	REQUIRE(mkdtemp(dir));
	check_reis(dir);
	check_rf(dir);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
	return t_result();
}
