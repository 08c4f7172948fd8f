/* SPDX-License-Identifier: MIT */
/*
 * test_rf_api_remap - access-frequency remapping through the API (RecFlash
 * III-C): on a high-locality trace (K = 0) a full remap from a profile of
 * the trace's beginning raises page-buffer utilisation and the page-cache
 * hit rate of what follows; on a uniform trace it leaves both about where
 * they were. While a remap is staged, SLS answer from the old mapping with
 * correct sums; SWITCH activates the new generation atomically; sums stay
 * exact afterwards. IF_TRIGGERED does nothing without a trigger and remaps
 * once a period trigger holds; ADAPTIVE (Algorithm 1) keeps sums exact.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "libreis_tools.h"
#include "rf_util.h"

#define ROWS 65536
#define DIM 32
/*
 * Small batches of a K = 0 trace whose LRU working set (~2 x SD_MEAN rows)
 * packs into fewer pages than the 128 KiB cache holds, and turns over more
 * slowly than the profile window plus the measured batches: what a
 * frequency remap and the page cache are for (RecFlash III-C).
 */
#define BATCH 8
#define LOOKUPS 20
#define NBATCH 10
#define PROFILE_LEN 3200
#define SD_MEAN 256

static struct reis_dev *dev;

/* Run @n batches from @tr (or uniform rows when NULL); check every sum. */
static void run(const struct rf_tbl *t, struct reis_rf_trace *tr, uint64_t seed, unsigned n)
{
	static uint32_t offs[BATCH + 1], idx[BATCH * LOOKUPS];
	static float out[BATCH * DIM], ref[BATCH * DIM];
	struct reis_rf_bags b = { BATCH, BATCH * LOOKUPS, offs, idx, NULL };
	uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
	unsigned i, j;

	for (i = 0; i <= BATCH; i++)
		offs[i] = i * LOOKUPS;
	for (i = 0; i < n; i++) {
		if (tr) {
			reis_rf_trace_next(tr, idx, BATCH * LOOKUPS);
		} else {
			for (j = 0; j < BATCH * LOOKUPS; j++) {
				s ^= s << 13, s ^= s >> 7, s ^= s << 17;
				idx[j] = (uint32_t)(s % ROWS);
			}
		}
		CHECK(reis_rf_sls(dev, t->tid, DIM, &b, 0, out, NULL) == 0);
		CHECK(reis_rf_sls_ref(t->dtype, ROWS, DIM, t->wire, &b, 0, ref) == 0);
		CHECK(rf_diff(out, ref, BATCH * DIM) == 0);
	}
}

static void measure(const struct rf_tbl *t, struct reis_rf_trace *tr, uint64_t seed,
		    struct reis_rf_stats *st)
{
	CHECK(reis_rf_table_stats(dev, t->tid, REIS_RF_STATS_RESET, st) == 0);
	run(t, tr, seed, NBATCH);
	CHECK(reis_rf_table_stats(dev, t->tid, 0, st) == 0);
}

static void profile_remap(const struct rf_tbl *t, struct reis_rf_trace *tr, uint64_t seed,
			  uint32_t before_gen)
{
	static uint32_t buf[PROFILE_LEN];
	uint32_t *counts = calloc(ROWS, sizeof(uint32_t));
	struct reis_rf_remap_info ri;
	struct reis_rf_stats st;
	uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
	unsigned j;

	REQUIRE(counts);
	if (tr) {
		reis_rf_trace_next(tr, buf, PROFILE_LEN);
	} else {
		for (j = 0; j < PROFILE_LEN; j++) {
			s ^= s << 13, s ^= s >> 7, s ^= s << 17;
			buf[j] = (uint32_t)(s % ROWS);
		}
	}
	CHECK(reis_rf_profile_count(buf, PROFILE_LEN, ROWS, counts) == 0);
	CHECK(reis_rf_profile(dev, t->tid, counts, ROWS) == 0);
	CHECK(reis_rf_remap(dev, t->tid, REIS_RF_REMAP_FULL, &ri) == 0);
	CHECK(ri.triggered == 1);
	CHECK_EQ_U64(ri.remap_state, REIS_RF_REMAP_STAGED);
	CHECK_EQ_U64(ri.generation, before_gen);
	CHECK(ri.rows_moved > 0 && ri.programs > 0 && ri.remap_ns > 0);
	/* Staged: still the old mapping, still the right sums. */
	run(t, tr, seed + 1, 2);
	CHECK(reis_rf_table_stats(dev, t->tid, 0, &st) == 0);
	CHECK_EQ_U64(st.generation, before_gen);
	CHECK(reis_rf_switch(dev, t->tid) == 0);
	CHECK(reis_rf_table_stats(dev, t->tid, 0, &st) == 0);
	CHECK_EQ_U64(st.generation, before_gen + 1);
	CHECK_EQ_U64(st.remap_state, REIS_RF_REMAP_IDLE);
	free(counts);
}

int main(void)
{
	struct reis_rf_trace_opts to;
	struct reis_rf_trace *tr;
	struct reis_rf_stats a, b, st;
	struct reis_rf_remap_info ri;
	struct reis_rf_table d;
	struct rf_tbl t, u;

	/*
	 * 1 MiB of page cache (64 TLC pages): the 128 KiB default holds 8, fewer
	 * than the cold pages one command misses on, so LRU would evict the hot
	 * pages before they are used again.
	 */
	dev = rf_open("recflash-tlc", 0, 0, "cache_bytes=1m");
	REQUIRE(rf_tbl_make(&t, 1, ROWS, DIM, REIS_RF_FP32, REIS_RF_RECFLASH, 1) == 0);
	REQUIRE(rf_tbl_deploy(dev, &t, NULL) == 0);
	CHECK(reis_rf_table_stats(dev, 1, 0, &st) == 0);

	/* High locality. */
	memset(&to, 0, sizeof(to));
	to.rows = ROWS;
	to.k = 0;
	to.seed = 3;
	to.sd_mean = SD_MEAN;
	REQUIRE(reis_rf_trace_open(&to, &tr) == 0);
	measure(&t, tr, 0, &a);
	profile_remap(&t, tr, 0, st.generation);
	measure(&t, tr, 0, &b);
	printf("K=0: utilisation %.2f %% -> %.2f %%, cache hit rate %.2f %% -> %.2f %%, "
	       "page reads %llu -> %llu\n", 100 * a.utilisation, 100 * b.utilisation,
	       100 * a.hit_rate, 100 * b.hit_rate, (unsigned long long)a.page_reads,
	       (unsigned long long)b.page_reads);
	CHECK(b.utilisation > a.utilisation * 1.5);
	CHECK(b.hit_rate > a.hit_rate + 0.1);
	CHECK(b.page_reads < a.page_reads);
	reis_rf_trace_close(tr);

	/* Uniform: nothing to exploit. */
	REQUIRE(rf_tbl_make(&u, 2, ROWS, DIM, REIS_RF_FP32, REIS_RF_RECFLASH, 2) == 0);
	REQUIRE(rf_tbl_deploy(dev, &u, NULL) == 0);
	CHECK(reis_rf_table_stats(dev, 2, 0, &st) == 0);
	measure(&u, NULL, 11, &a);
	profile_remap(&u, NULL, 12, st.generation);
	measure(&u, NULL, 13, &b);
	printf("uniform: utilisation %.2f %% -> %.2f %%, cache hit rate %.2f %% -> %.2f %%\n",
	       100 * a.utilisation, 100 * b.utilisation, 100 * a.hit_rate, 100 * b.hit_rate);
	CHECK(b.utilisation < a.utilisation * 1.25 + 0.002);
	CHECK(b.utilisation > a.utilisation * 0.75 - 0.002);
	CHECK(b.hit_rate < a.hit_rate * 1.25 + 0.02);

	/* Triggers and the adaptive remap (Algorithm 1). */
	CHECK(reis_rf_remap(dev, 2, REIS_RF_REMAP_ADAPTIVE | REIS_RF_REMAP_IF_TRIGGERED,
			    &ri) == 0);
	CHECK(ri.triggered == 0);
	memset(&d, 0, sizeof(d));
	d.tid = 3;
	d.rows = ROWS;
	d.dim = DIM;
	d.dtype = REIS_RF_FP32;
	d.mode = REIS_RF_RECFLASH;
	d.trigger = REIS_RF_TRIG_PERIOD;
	d.period = BATCH * 4;	/* 32 bags */
	d.hot_bp = 500;
	d.data = u.wire;
	REQUIRE(reis_rf_deploy(dev, &d, NULL) == 0);
	u.tid = 3;
	CHECK(reis_rf_table_stats(dev, 3, 0, &st) == 0);
	to.seed = 5;
	REQUIRE(reis_rf_trace_open(&to, &tr) == 0);
	run(&u, tr, 0, 2);	/* 16 bags: below the period */
	CHECK(reis_rf_remap(dev, 3, REIS_RF_REMAP_ADAPTIVE | REIS_RF_REMAP_IF_TRIGGERED,
			    &ri) == 0);
	CHECK(ri.triggered == 0);
	run(&u, tr, 0, 4);	/* 48 bags */
	CHECK(reis_rf_remap(dev, 3, REIS_RF_REMAP_ADAPTIVE | REIS_RF_REMAP_IF_TRIGGERED |
			    REIS_RF_REMAP_SWITCH, &ri) == 0);
	CHECK(ri.triggered == 1);
	CHECK_EQ_U64(ri.remap_state, REIS_RF_REMAP_IDLE);
	CHECK_EQ_U64(ri.generation, st.generation + 1);
	run(&u, tr, 0, 3);
	reis_rf_trace_close(tr);

	reis_close(dev);
	free(t.wire);
	free(u.wire);
	return t_result();
}
