/* SPDX-License-Identifier: MIT */
/*
 * test_rf_remap - access-frequency remapping (RecFlash III-C1..C4):
 *  - REMAP FULL from tracked counts and from an uploaded PROFILE raises
 *    page-buffer utilisation and the cache hit rate on a high-locality
 *    (Zipf) trace and leaves them unchanged, within a bound, on a uniform
 *    one; sums stay exact before, after, and across the switch;
 *  - REMAP ADAPTIVE follows a shift of the hot set;
 *  - triggers: threshold (held / not held), period, none; IF_TRIGGERED
 *    that does not fire changes nothing and keeps the tracked counts;
 *  - staging rules: SWITCH with nothing staged, a second REMAP replaces the
 *    staged mapping, repeated adaptive remaps recycle their block stripes;
 *  - deferred garbage collection: adaptive remaps move only the hot region,
 *    a full area is compacted into a fresh one, erased at the switch.
 */
#include "recflash_int.h"
#include "test_rf_util.h"
#include "zipf.h"

#define ROWS 20000u
#define DIM 32u

static struct isp_dev *dev;
static uint8_t *table;

/* @nb batches of 64 bags x 20 lookups; every result checked. */
static uint32_t trace_flags;	/* SLS flags of run_trace() */

static void run_trace(uint32_t tid, struct zipf *z, uint32_t seed, uint32_t nb)
{
	struct rt_batch b;
	struct rt_sls_out o;
	float *ref = malloc(64 * DIM * 4);
	uint32_t i, k, save = z->s;

	REQUIRE(ref);
	z->s = seed | 1;
	b.nbags = 64;
	b.nidx = 64 * 20;
	b.off = malloc(65 * 4);
	b.idx = malloc(b.nidx * 4);
	b.w = NULL;
	REQUIRE(b.off && b.idx);
	for (k = 0; k < nb; k++) {
		for (i = 0; i <= 64; i++)
			b.off[i] = i * 20;
		for (i = 0; i < b.nidx; i++)
			b.idx[i] = zipf_draw(z);
		REQUIRE(rt_sls(dev, tid, DIM, trace_flags, &b, &o) == 0);
		if (k % 8 == 0) {
			rt_reference(table, ISP_RF_FP32, DIM, 0, &b, ref);
			CHECK(rt_same(o.v, ref, 64 * DIM));
		}
		free(o.v);
	}
	z->s = save;
	free(b.off);
	free(b.idx);
	free(ref);
}

struct measure {
	double util, hit;
	uint64_t reads;
};

static struct measure measure(uint32_t tid, struct zipf *z, uint32_t seed, uint32_t nb)
{
	struct isp_wire_rf_stats st;
	struct measure m;

	REQUIRE(rt_stats(dev, tid, 1, &st) == 0);	/* reset */
	run_trace(tid, z, seed, nb);
	REQUIRE(rt_stats(dev, tid, 1, &st) == 0);
	m.util = st.bytes_sensed ? (double)st.bytes_useful / (double)st.bytes_sensed : 0;
	m.hit = st.cache_hits + st.cache_misses ?
		(double)st.cache_hits / (double)(st.cache_hits + st.cache_misses) : 0;
	m.reads = st.page_reads;
	return m;
}

static uint32_t deploy(uint32_t tid, const uint32_t *profile)
{
	struct isp_wire_rf_create cr = rt_cr(tid, ROWS, DIM, ISP_RF_FP32, ISP_RF_RECFLASH);

	if (profile)
		cr.flags = ISP_RF_TF_PROFILE;
	REQUIRE(rt_deploy(dev, &cr, table, profile) == 0);
	return tid;
}

/* Counts of a sampled training trace (seed @seed), for RF_PROFILE. */
static uint32_t *train_profile(struct zipf *z, uint32_t seed, uint32_t draws)
{
	uint32_t *prof = calloc(ROWS, 4), i, save = z->s;

	REQUIRE(prof);
	z->s = seed | 1;
	for (i = 0; i < draws; i++)
		prof[zipf_draw(z)]++;
	z->s = save;
	return prof;
}

/*
 * Offline placement (III-C1) from a sampled training trace, measured on
 * another trace: @a before, @b after.
 */
static void remap_measure(uint32_t tid, struct zipf *z, struct measure *a,
			  struct measure *b)
{
	uint32_t *prof = train_profile(z, 7, 40 * 1280);
	struct isp_wire_rf_stats st;

	run_trace(tid, z, 1, 10);			/* warm the cache */
	*a = measure(tid, z, 2, 40);
	trace_flags = ISP_RF_SLS_NO_CACHE;
	a[1] = measure(tid, z, 2, 40);
	trace_flags = 0;
	CHECK_EQ_U64(rt_write(dev, ISP_OP_RF_PROFILE, tid, 0, prof, ROWS * 4, 65536), 0);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, tid,
			       ISP_RF_REMAP_FULL | ISP_RF_REMAP_SWITCH, NULL), 0);
	CHECK_EQ_U64(rt_stats(dev, tid, 0, &st), 0);
	CHECK_EQ_U64(st.generation, 1);
	CHECK_EQ_U64(st.remap_rows_moved, ROWS);
	CHECK(st.remap_programs >= (ROWS + 31) / 32);
	CHECK(st.remap_page_reads >= (ROWS + 31) / 32);
	CHECK(st.remap_ns > 0);
	run_trace(tid, z, 1, 10);
	*b = measure(tid, z, 2, 40);
	trace_flags = ISP_RF_SLS_NO_CACHE;
	b[1] = measure(tid, z, 2, 40);
	trace_flags = 0;
	free(prof);
}

static void test_locality(void)
{
	struct zipf z;
	struct measure a[2], b[2];

	REQUIRE(zipf_init(&z, ROWS, 1.1, 42) == 0);
	remap_measure(deploy(1, NULL), &z, a, b);
	printf("zipf 1.1: utilisation %.4f -> %.4f (no cache: %.4f -> %.4f), hit rate "
	       "%.4f -> %.4f, page reads %llu -> %llu (no cache: %llu -> %llu)\n",
	       a[0].util, b[0].util, a[1].util, b[1].util, a[0].hit, b[0].hit,
	       (unsigned long long)a[0].reads, (unsigned long long)b[0].reads,
	       (unsigned long long)a[1].reads, (unsigned long long)b[1].reads);
	/* A batch reads each distinct row once, so the locality left for the
	 * placement is that of the batch's distinct rows: hot rows share ~31
	 * pages after the remap, the distinct cold rows stay one per page.
	 * The cache (32 frames against ~215 pages per batch) admits only pages
	 * of the hot region, so it keeps hot pages; hits count distinct rows
	 * per batch. With the cache the pages still sensed are mostly cold
	 * ones, so utilisation is compared without it (b[1], a[1]) and with
	 * it the page reads fall further. */
	CHECK(b[0].reads * 10 < a[0].reads * 6);
	CHECK(b[1].util > 1.4 * a[1].util);
	CHECK(b[0].hit > a[0].hit + 0.05 && b[0].hit > 5 * a[0].hit);
	CHECK(b[0].reads * 10 < a[0].reads * 7);
	CHECK(b[1].reads * 10 < a[1].reads * 8);
	zipf_free(&z);
}

/*
 * Uniform access: any placement is as good as any other. The useful bytes
 * of a trace do not depend on placement, the sensed pages hardly do: each
 * 1280-lookup batch touches ~540 of 625 pages, 40 batches ~21600 pages, so
 * the sampling noise of utilisation is ~1 %; the bound is 5 % (relative)
 * and 0.02 (absolute) for the hit rate.
 */
static void test_uniform(void)
{
	struct zipf z;
	struct measure a[2], b[2];

	REQUIRE(zipf_init(&z, ROWS, 0.0, 43) == 0);
	remap_measure(deploy(2, NULL), &z, a, b);
	printf("uniform: utilisation %.4f -> %.4f (no cache: %.4f -> %.4f), hit rate "
	       "%.4f -> %.4f\n", a[0].util, b[0].util, a[1].util, b[1].util,
	       a[0].hit, b[0].hit);
	CHECK(fabs(b[0].util - a[0].util) <= 0.05 * a[0].util);
	CHECK(fabs(b[1].util - a[1].util) <= 0.05 * a[1].util);
	CHECK(fabs(b[0].hit - a[0].hit) <= 0.02);
	zipf_free(&z);
}

/* A profile uploaded with RF_PROFILE places rows at the next REMAP FULL. */
static void test_profile_remap(void)
{
	uint32_t tid = deploy(3, NULL), *prof = calloc(ROWS, 4), keys[8];
	struct isp_wire_rf_stats st;

	REQUIRE(prof);
	prof[777] = 50;
	prof[5] = 40;
	prof[19999] = 30;
	/* Incomplete upload: REMAP refuses. */
	CHECK_EQ_U64(rt_write(dev, ISP_OP_RF_PROFILE, tid, 0, prof, 4000, 4000), 0);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, tid, ISP_RF_REMAP_FULL, NULL),
		     ISP_SC_INCOMPLETE | ISP_STATUS_DNR);
	/* Restart at offset 0, complete it. */
	CHECK_EQ_U64(rt_write(dev, ISP_OP_RF_PROFILE, tid, 0, prof, ROWS * 4, 16384), 0);
	CHECK_EQ_U64(rt_stats(dev, tid, 0, &st), 0);
	CHECK(st.dram_bytes >= ROWS * 4);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, tid, ISP_RF_REMAP_FULL, NULL), 0);
	CHECK_EQ_U64(rt_stats(dev, tid, 0, &st), 0);
	CHECK_EQ_U64(st.remap_state, ISP_RF_REMAP_STAGED);
	CHECK_EQ_U64(st.generation, 0);
	CHECK_EQ_U64(rf_debug_map(dev, tid, 1, keys, 8, NULL, NULL), ROWS);
	CHECK_EQ_U64(keys[0], 777);
	CHECK_EQ_U64(keys[1], 5);
	CHECK_EQ_U64(keys[2], 19999);
	CHECK_EQ_U64(keys[3], 0);		/* then row order */
	/* A second REMAP replaces the staged mapping. */
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, tid, ISP_RF_REMAP_FULL, NULL), 0);
	CHECK_EQ_U64(rf_debug_map(dev, tid, 1, keys, 8, NULL, NULL), ROWS);
	CHECK_EQ_U64(keys[0], 0);		/* no profile, no traffic: row order */
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_SWITCH, tid, 0, NULL), 0);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_SWITCH, tid, 0, NULL),
		     ISP_SC_INCOMPLETE | ISP_STATUS_DNR);
	CHECK_EQ_U64(rt_stats(dev, tid, 0, &st), 0);
	CHECK_EQ_U64(st.generation, 1);
	CHECK_EQ_U64(st.remaps, 2);
	free(prof);
}

/*
 * The hot set moves; ADAPTIVE brings the new hot rows into the hot region.
 * Table 4 is remapped from the new traffic, table 8 (same deploy) is not;
 * both are measured on a later trace of the new traffic.
 */
static void test_adaptive_shift(void)
{
	uint32_t *prof, tid = 4, cycle;
	struct zipf za, zb;
	struct measure a, b, au, bu;
	struct isp_wire_rf_stats st;

	REQUIRE(zipf_init(&za, ROWS, 1.1, 50) == 0);
	REQUIRE(zipf_init(&zb, ROWS, 1.1, 52) == 0);		/* another permutation */
	/* The reference counts: a sampled trace as long as the new one. */
	prof = train_profile(&za, 9, 40 * 1280);
	deploy(4, prof);
	deploy(8, prof);
	run_trace(tid, &zb, 1, 40);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, tid, ISP_RF_REMAP_ADAPTIVE |
			       ISP_RF_REMAP_IF_TRIGGERED, NULL), 0);
	CHECK_EQ_U64(rt_stats(dev, tid, 0, &st), 0);
	/* No trigger policy: IF_TRIGGERED never fires; counts are kept. */
	CHECK_EQ_U64(st.remaps, 0);
	CHECK(st.trigger_hot_new > 0);
	CHECK(st.tracked_keys > 1000);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, tid,
			       ISP_RF_REMAP_ADAPTIVE | ISP_RF_REMAP_SWITCH, NULL), 0);
	CHECK_EQ_U64(rt_stats(dev, tid, 0, &st), 0);
	CHECK_EQ_U64(st.remaps, 1);
	/* Only the hot region (5 %) moves; the other rows keep their slots
	 * and nothing is erased yet (garbage collection is deferred). */
	CHECK_EQ_U64(st.remap_rows_moved, ROWS / 20);
	CHECK_EQ_U64(st.remap_erases, 0);
	run_trace(8, &zb, 4, 10);
	a = measure(8, &zb, 3, 30);
	run_trace(tid, &zb, 4, 10);
	b = measure(tid, &zb, 3, 30);
	/* Utilisation of the sensed pages without the cache (see above). */
	trace_flags = ISP_RF_SLS_NO_CACHE;
	au = measure(8, &zb, 3, 30);
	bu = measure(tid, &zb, 3, 30);
	trace_flags = 0;
	printf("adaptive, shifted hot set: utilisation %.4f (not remapped) vs %.4f, "
	       "hit rate %.4f vs %.4f\n", au.util, bu.util, a.hit, b.hit);
	CHECK(bu.util > 1.15 * au.util);
	CHECK(b.hit > a.hit + 0.03 && b.hit > 3 * a.hit);
	/* Remap after remap: the block stripes are recycled. */
	for (cycle = 0; cycle < 4; cycle++) {
		run_trace(tid, cycle & 1 ? &za : &zb, 10 + cycle, 4);
		CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, tid,
				       ISP_RF_REMAP_ADAPTIVE | ISP_RF_REMAP_SWITCH, NULL), 0);
	}
	run_trace(tid, &za, 3, 9);
	CHECK_EQ_U64(rt_stats(dev, tid, 0, &st), 0);
	CHECK_EQ_U64(st.generation, 5);
	zipf_free(&za);
	zipf_free(&zb);
	free(prof);
}

/*
 * Deferred garbage collection: adaptive remaps append the new hot region
 * to free pages of the area; once it has no room left the next one
 * relocates the table into a fresh area (list order) and the old area is
 * erased at the switch. 100000 rows fill one SLC stripe (4096 pages) but
 * for about three hot regions (157 pages + a 108-page image each).
 */
static void test_compaction(void)
{
	const uint32_t rows = 100000, hot = rows / 20, tid = 9;
	struct isp_wire_rf_create cr = rt_cr(tid, rows, DIM, ISP_RF_FP32, ISP_RF_RECFLASH);
	uint8_t *tbl = rt_table(rows, DIM, ISP_RF_FP32, 99);
	uint32_t *slots = malloc(rows * 4), *keys = malloc(hot * 4), tau, c, i, n;
	struct isp_wire_rf_stats st;
	struct rt_batch b;
	struct rt_sls_out o;
	float *ref = malloc(100 * DIM * 4);

	REQUIRE(tbl && slots && keys && ref);
	REQUIRE(rt_deploy(dev, &cr, tbl, NULL) == 0);
	b.nbags = 100;
	b.off = malloc(101 * 4);
	b.idx = malloc(hot * 8 * 4);
	b.w = NULL;
	REQUIRE(b.off && b.idx);
	for (c = 0; c < 4; c++) {
		uint64_t erased;

		/* A new hot set, each key (c + 2) times: hotter than the last. */
		b.nidx = hot * (c + 2);
		for (i = 0; i < b.nidx; i++)
			b.idx[i] = (c + 1) * 20000 + (i % hot);
		for (i = 0; i <= b.nbags; i++)
			b.off[i] = (uint32_t)((uint64_t)b.nidx * i / b.nbags);
		REQUIRE(rt_sls(dev, tid, DIM, 0, &b, &o) == 0);
		free(o.v);
		REQUIRE(rt_stats(dev, tid, 0, &st) == 0);
		erased = st.remap_erases;
		CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, tid,
				       ISP_RF_REMAP_ADAPTIVE | ISP_RF_REMAP_SWITCH, NULL), 0);
		REQUIRE(rt_stats(dev, tid, 0, &st) == 0);
		n = (uint32_t)rf_debug_map(dev, tid, 0, keys, hot, slots, &tau);
		CHECK_EQ_U64(n, rows);	/* keys in the list; the first hot copied */
		CHECK(keys[0] >= (c + 1) * 20000 && keys[0] < (c + 1) * 20000 + hot);
		if (c < 3) {
			/* In place: the hot region after the last one, the
			 * cold rows where they were, nothing erased. */
			CHECK(slots[keys[0]] >= 3125u * 32u);
			CHECK_EQ_U64(slots[rows - 1], rows - 1);
			CHECK_EQ_U64(st.remap_erases, erased);
			CHECK_EQ_U64(st.remap_rows_moved, (c + 1) * (uint64_t)hot);
		} else {
			/* Relocated: the hot region first, every row moved. */
			CHECK_EQ_U64(slots[keys[0]], 0);
			CHECK(st.remap_erases > erased);
			CHECK_EQ_U64(st.remap_rows_moved, 3 * (uint64_t)hot + rows);
		}
		/* Sums exact through the new mapping (old and new hot rows). */
		b.nidx = 100 * 4;
		for (i = 0; i < b.nidx; i++)
			b.idx[i] = (i * 7919u + c * 20000u) % rows;
		for (i = 0; i <= b.nbags; i++)
			b.off[i] = i * 4;
		REQUIRE(rt_sls(dev, tid, DIM, 0, &b, &o) == 0);
		rt_reference(tbl, ISP_RF_FP32, DIM, 0, &b, ref);
		CHECK(rt_same(o.v, ref, 100 * DIM));
		free(o.v);
		b.off[b.nbags] = 0;
	}
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_TBL_DELETE, tid, 0, NULL), 0);
	rt_batch_free(&b);
	free(tbl);
	free(slots);
	free(keys);
	free(ref);
}

static void test_triggers(void)
{
	struct isp_wire_rf_create cr = rt_cr(5, ROWS, DIM, ISP_RF_FP32, ISP_RF_RECFLASH);
	struct isp_wire_rf_stats st;
	struct zipf z;

	REQUIRE(zipf_init(&z, ROWS, 1.1, 60) == 0);
	/* Period: every 640 bags. */
	cr.trigger = ISP_RF_TRIG_PERIOD;
	cr.period = 640;
	REQUIRE(rt_deploy(dev, &cr, table, NULL) == 0);
	run_trace(5, &z, 1, 9);				/* 576 bags */
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, 5,
			       ISP_RF_REMAP_FULL | ISP_RF_REMAP_IF_TRIGGERED, NULL), 0);
	CHECK_EQ_U64(rt_stats(dev, 5, 0, &st), 0);
	CHECK_EQ_U64(st.remaps, 0);
	CHECK_EQ_U64(st.remap_state, ISP_RF_REMAP_IDLE);
	run_trace(5, &z, 2, 1);				/* 640 bags */
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, 5,
			       ISP_RF_REMAP_FULL | ISP_RF_REMAP_IF_TRIGGERED, NULL), 0);
	CHECK_EQ_U64(rt_stats(dev, 5, 0, &st), 0);
	CHECK_EQ_U64(st.remaps, 1);
	CHECK_EQ_U64(st.remap_state, ISP_RF_REMAP_STAGED);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_SWITCH, 5, 0, NULL), 0);
	run_trace(5, &z, 3, 1);				/* counting restarted */
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, 5,
			       ISP_RF_REMAP_FULL | ISP_RF_REMAP_IF_TRIGGERED, NULL), 0);
	CHECK_EQ_U64(rt_stats(dev, 5, 0, &st), 0);
	CHECK_EQ_U64(st.remaps, 1);

	/* Threshold: after a FULL remap by the traffic itself, the same traffic
	 * has no new hot keys; a shifted hot set has many. */
	cr = rt_cr(6, ROWS, DIM, ISP_RF_FP32, ISP_RF_RECFLASH);
	cr.trigger = ISP_RF_TRIG_THRESHOLD;
	cr.trigger_ppm = 1000;
	REQUIRE(rt_deploy(dev, &cr, table, NULL) == 0);
	run_trace(6, &z, 1, 4);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, 6,
			       ISP_RF_REMAP_FULL | ISP_RF_REMAP_SWITCH, NULL), 0);
	run_trace(6, &z, 1, 4);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, 6,
			       ISP_RF_REMAP_ADAPTIVE | ISP_RF_REMAP_IF_TRIGGERED, NULL), 0);
	CHECK_EQ_U64(rt_stats(dev, 6, 0, &st), 0);
	CHECK_EQ_U64(st.remaps, 1);
	CHECK_EQ_U64(st.trigger_hot_new, 0);
	zipf_free(&z);
	REQUIRE(zipf_init(&z, ROWS, 1.1, 62) == 0);
	run_trace(6, &z, 1, 4);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, 6,
			       ISP_RF_REMAP_ADAPTIVE | ISP_RF_REMAP_IF_TRIGGERED, NULL), 0);
	CHECK_EQ_U64(rt_stats(dev, 6, 0, &st), 0);
	CHECK(st.trigger_hot_new > 0);
	CHECK_EQ_U64(st.remaps, 2);
	CHECK_EQ_U64(st.remap_state, ISP_RF_REMAP_STAGED);

	/* No trigger policy: IF_TRIGGERED never fires. */
	cr = rt_cr(7, 100, DIM, ISP_RF_FP32, ISP_RF_RECFLASH);
	REQUIRE(rt_deploy(dev, &cr, table, NULL) == 0);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, 7,
			       ISP_RF_REMAP_FULL | ISP_RF_REMAP_IF_TRIGGERED, NULL), 0);
	CHECK_EQ_U64(rt_stats(dev, 7, 0, &st), 0);
	CHECK_EQ_U64(st.remaps, 0);
	zipf_free(&z);
}

int main(void)
{
	dev = rt_open("recflash-slc", "blocks_per_plane=64", NULL);
	table = rt_table(ROWS, DIM, ISP_RF_FP32, 1234);
	test_locality();
	test_uniform();
	test_profile_remap();
	test_adaptive_shift();
	test_compaction();
	test_triggers();
	free(table);
	isp_dev_close(dev);
	return t_result();
}
