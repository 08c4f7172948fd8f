/* SPDX-License-Identifier: MIT */
/*
 * test_lib_group_rf - a RecFlash table sharded by rows over a group of
 * in-process drives: fp32, fp16 and int8 rows, sum, mean, weighted and
 * weighted mean. With REIS_GROUP_SLS_EXACT the pooled vectors equal one
 * drive's bit for bit (==) on every bag; the default partial-sum combine
 * equals one drive's exactly on bags whose rows sit on one member and is
 * within float32 rounding elsewhere, and sends one vector per (bag,
 * member) to the host. The scheduled SLS (host CPU + drives, Solana
 * IV-A) gives the same sums whoever pooled each piece. Faults: a deploy failing on one member leaves no
 * slice on the others and names the drive; a member without the table
 * fails the SLS naming it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "libreis_tools.h"
#include "rf_util.h"

#define NM 3
#define ROWS 2000
#define NBAGS 120

static struct reis_group *open_group(unsigned n)
{
	struct reis_dev *devs[REIS_GROUP_MAX];
	struct reis_group *g;
	unsigned i;

	for (i = 0; i < n; i++)
		devs[i] = rf_open("recflash-tlc", i % 2, 0, NULL);
	REQUIRE(reis_group_adopt(devs, NULL, n, &g) == 0);
	return g;
}

static struct reis_rf_table as_table(const struct rf_tbl *t)
{
	struct reis_rf_table d = rf_as_table(t);

	d.name = "group";
	return d;
}

/* Bags of rows that all sit on member (b mod NM). */
static void local_bags(struct rf_batch *bt, uint32_t nbags)
{
	uint32_t b, j;

	for (b = 0; b < nbags; b++) {
		unsigned m = b % NM;
		uint32_t lo = (uint32_t)((uint64_t)ROWS * m / NM);
		uint32_t n = reis_group_rf_rows(ROWS, m, NM);

		for (j = bt->offsets[b]; j < bt->offsets[b + 1]; j++)
			bt->indices[j] = lo + bt->indices[j] % n;
	}
}

/* Scheduled (host + drives): the same sums whoever pooled each piece. */
static void check_sched(struct reis_group *g, struct reis_dev *one, const struct rf_tbl *t)
{
	static const uint32_t fl[] = { 0, REIS_GROUP_SCHED_HOST_ONLY, REIS_GROUP_SCHED_NO_HOST };
	size_t nv = (size_t)NBAGS * t->dim;
	float *want = malloc(nv * 4), *got = malloc(nv * 4), *part = malloc(nv * 4);
	struct reis_group_sched_opts so;
	struct reis_group_sched_report rep;
	struct reis_rf_table d = as_table(t);
	struct rf_batch bt;
	unsigned f, s;
	uint64_t items;

	REQUIRE(want && got && part);
	rf_batch_make(&bt, 99 + t->tid, NBAGS, 40, 0, ROWS, 1);
	REQUIRE(reis_rf_sls(one, t->tid, t->dim, &bt.b, REIS_RF_SLS_WEIGHTED, want, NULL) == 0);
	REQUIRE(reis_group_rf_sls(g, t->tid, ROWS, t->dim, &bt.b, REIS_RF_SLS_WEIGHTED, part,
				  NULL) == 0);
	for (f = 0; f < 3; f++) {
		memset(&so, 0, sizeof(so));
		so.flags = fl[f];
		so.single = one;
		so.batch = 4;
		memset(got, 0xff, nv * 4);
		REQUIRE(reis_group_sched_sls(g, &d, &bt.b, REIS_RF_SLS_WEIGHTED | REIS_GROUP_SLS_EXACT,
					     &so, got, &rep) == 0);
		CHECK_EQ_U64(rf_diff(got, want, nv), 0);
		REQUIRE(reis_group_sched_sls(g, &d, &bt.b, REIS_RF_SLS_WEIGHTED, &so, got,
					     &rep) == 0);
		CHECK_EQ_U64(rf_diff(got, part, nv), 0);
		for (s = 0, items = rep.host.items; s < NM; s++)
			items += rep.drive[s].items;
		CHECK_EQ_U64(items, rep.items);
		CHECK(rep.items >= NBAGS && rep.items <= (uint64_t)NBAGS * NM);
		CHECK((rep.host.items > 0) == (rep.bytes_to_host > 0));
		CHECK(rep.ratio > 0 && rep.qps > 0 && rep.host_alone_qps > 0 && rep.one_drive_qps > 0);
		CHECK(rep.server_mj_per_query > rep.mj_per_query && rep.mj_per_query > 0);
		if (fl[f] == REIS_GROUP_SCHED_HOST_ONLY)
			CHECK(rep.inside_share == 0 && rep.bytes_inside == 0);
		if (fl[f] == REIS_GROUP_SCHED_NO_HOST)
			CHECK(rep.inside_share == 1 && rep.bytes_to_host == 0);
	}
	rf_batch_free(&bt);
	free(want);
	free(got);
	free(part);
}

static void check_table(struct reis_group *g, struct reis_dev *one, const struct rf_tbl *t)
{
	static const uint32_t fl[] = { 0, REIS_RF_SLS_MEAN, REIS_RF_SLS_WEIGHTED,
				       REIS_RF_SLS_WEIGHTED | REIS_RF_SLS_MEAN };
	size_t nv = (size_t)NBAGS * t->dim;
	float *want = malloc(nv * 4), *got = malloc(nv * 4);
	struct reis_group_sls_info gi;
	unsigned f;

	REQUIRE(want && got);
	for (f = 0; f < 4; f++) {
		int w = !!(fl[f] & REIS_RF_SLS_WEIGHTED);
		struct rf_batch bt;
		double worst = 0;
		size_t i;

		rf_batch_make(&bt, 7 + f + t->tid, NBAGS, 40, 0, ROWS, w);
		REQUIRE(reis_rf_sls(one, t->tid, t->dim, &bt.b, fl[f], want, NULL) == 0);
		/* Exact combine: == on every element. */
		memset(got, 0xff, nv * 4);
		REQUIRE(reis_group_rf_sls(g, t->tid, ROWS, t->dim, &bt.b,
					  fl[f] | REIS_GROUP_SLS_EXACT, got, &gi) == 0);
		CHECK_EQ_U64(rf_diff(got, want, nv), 0);
		CHECK(gi.pieces > NBAGS && gi.pieces <= bt.b.nidx);
		CHECK(gi.model_ns > 0 && gi.energy_pj > 0);
		/* Partial sums: one vector per (bag, member), close to one drive. */
		REQUIRE(reis_group_rf_sls(g, t->tid, ROWS, t->dim, &bt.b, fl[f], got, &gi) == 0);
		CHECK(gi.pieces <= (uint64_t)NBAGS * NM && gi.pieces >= NBAGS);
		CHECK_EQ_U64(gi.bytes_to_host, gi.pieces * t->dim * 4);
		for (i = 0; i < nv; i++) {
			double d = fabs((double)got[i] - want[i]);

			if (d > worst)
				worst = d;
		}
		/* 40 rows of |x| <= 2 (weights up to 2): a few ulps of 160. */
		CHECK(worst < 1e-4);
		/* Bags local to one member: the partial sum is one drive's sum. */
		local_bags(&bt, NBAGS);
		REQUIRE(reis_rf_sls(one, t->tid, t->dim, &bt.b, fl[f], want, NULL) == 0);
		REQUIRE(reis_group_rf_sls(g, t->tid, ROWS, t->dim, &bt.b, fl[f], got, &gi) == 0);
		CHECK_EQ_U64(rf_diff(got, want, nv), 0);
		CHECK_EQ_U64(gi.pieces, NBAGS);
		rf_batch_free(&bt);
	}
	free(want);
	free(got);
}

int main(void)
{
	struct reis_dev *one = rf_open("recflash-tlc", 0, 0, NULL);
	static const uint32_t dt[3] = { REIS_RF_FP32, REIS_RF_FP16, REIS_RF_INT8 };
	struct reis_group *g = open_group(NM);
	struct reis_rf_table d;
	struct reis_rf_stats st;
	struct rf_tbl t[3];
	struct rf_batch bt;
	float out[64];
	unsigned i, s;

	CHECK_EQ_U64(reis_group_rf_rows(ROWS, 0, NM) + reis_group_rf_rows(ROWS, 1, NM) +
		     reis_group_rf_rows(ROWS, 2, NM), ROWS);
	for (i = 0; i < ROWS; i++) {
		uint32_t loc;

		s = reis_group_rf_owner(ROWS, NM, i, &loc);
		CHECK(loc < reis_group_rf_rows(ROWS, s, NM));
		CHECK_EQ_U64((uint64_t)ROWS * s / NM + loc, i);
	}
	for (i = 0; i < 3; i++) {
		REQUIRE(rf_tbl_make(&t[i], 10 + i, ROWS, 24 + 5 * i, dt[i],
				    i == 2 ? REIS_RF_RECFLASH : REIS_RF_RMSSD, 50 + i) == 0);
		REQUIRE(rf_tbl_deploy(one, &t[i], NULL) == 0);
		d = as_table(&t[i]);
		REQUIRE(reis_group_rf_deploy(g, &d, NULL) == 0);
		for (s = 0; s < NM; s++) {
			REQUIRE(reis_rf_table_stats(reis_group_dev(g, s), d.tid, 0, &st) == 0);
			CHECK_EQ_U64(st.rows, reis_group_rf_rows(ROWS, s, NM));
		}
		check_table(g, one, &t[i]);
		check_sched(g, one, &t[i]);
	}

	/* A bad batch is refused before anything is sent. */
	rf_batch_make(&bt, 3, 4, 5, 0, ROWS, 0);
	bt.indices[2] = ROWS;
	CHECK(reis_group_rf_sls(g, 10, ROWS, t[0].dim, &bt.b, 0, out, NULL) == -ERANGE);
	bt.indices[2] = 0;
	/* A member without the table: an error naming it, nothing combined. */
	REQUIRE(reis_rf_delete(reis_group_dev(g, 1), 10) == 0);
	CHECK(reis_group_rf_sls(g, 10, ROWS, t[0].dim, &bt.b, 0, out, NULL) == -ENOENT);
	CHECK(reis_group_failed(g) == 1);
	CHECK(strstr(reis_group_errmsg(g), "drive1") != NULL);
	rf_batch_free(&bt);

	/* All or nothing: tid 20 already on member 2; 0 and 1 keep nothing. */
	d = as_table(&t[0]);
	d.tid = 20;
	d.rows = reis_group_rf_rows(ROWS, 2, NM);
	REQUIRE(reis_rf_deploy(reis_group_dev(g, 2), &d, NULL) == 0);
	d.rows = ROWS;
	CHECK(reis_group_rf_deploy(g, &d, NULL) == -EEXIST);
	CHECK(reis_group_failed(g) == 2 && strstr(reis_group_errmsg(g), "drive2"));
	CHECK(reis_rf_table_stats(reis_group_dev(g, 0), 20, 0, &st) == -ENOENT);
	CHECK(reis_rf_table_stats(reis_group_dev(g, 1), 20, 0, &st) == -ENOENT);
	CHECK(reis_rf_table_stats(reis_group_dev(g, 2), 20, 0, &st) == 0);

	CHECK(reis_group_rf_delete(g, 11) == 0);
	CHECK(reis_rf_table_stats(reis_group_dev(g, 0), 11, 0, &st) == -ENOENT);
	reis_group_close(g);
	reis_close(one);
	for (i = 0; i < 3; i++)
		free(t[i].wire);
	return t_result();
}
