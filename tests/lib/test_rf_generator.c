/* SPDX-License-Identifier: MIT */
/*
 * test_rf_generator - the RecSSD-style trace (REIS_RF_TRACE_RECSSD, the
 * RecFlash Fig. 10 workload) against its definition in
 * libreis_tool_rf_trace.h:
 *   - the bin probabilities equal the exponential's bin masses computed
 *     here independently with libm, with K added to bin 0 over 1 + K;
 *   - profiling the output with an LRU stack of its own, per K: the
 *     new-reference rate is (p_0 + K) / (1 + K) and every reuse lies at a
 *     stack distance b x lookups, b = 1..49, with bin counts matching p_b
 *     (within 5 standard deviations);
 *   - indices are multiples of 128 below rows, so a 1 M-row table sees at
 *     most 7813 distinct rows; seeds are deterministic; bad options fail;
 *   - REIS_RF_TRACE_RECFLASH (single-row lines, shuffled start: the Fig.
 *     10-12 workload) passes the same profile per K, its unique-access rate
 *     over a long window is the new-reference rate, and consecutive new
 *     references fall in different 128-row blocks as for random rows.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "libreis_tools.h"

#define BINS REIS_RF_TRACE_RECSSD_BINS
#define N 200000
#define LOOKUPS 8u
#define BIG_ROWS (1u << 26)
#define RF_ROWS (1u << 22)	/* RECFLASH: lines of one row */

static void open_kind(uint32_t kind, double k, uint64_t seed, uint32_t rows, uint32_t lookups,
		      struct reis_rf_trace **t)
{
	struct reis_rf_trace_opts o;

	memset(&o, 0, sizeof(o));
	o.kind = kind;
	o.rows = rows;
	o.k = k;
	o.seed = seed;
	o.lookups = lookups;
	REQUIRE(reis_rf_trace_open(&o, t) == 0);
}

static void open_recssd(double k, uint64_t seed, uint32_t rows, uint32_t lookups,
			struct reis_rf_trace **t)
{
	open_kind(REIS_RF_TRACE_RECSSD, k, seed, rows, lookups, t);
}

/* Fenwick tree over access times: marks the latest access of each line. */
static void fen_add(int32_t *f, size_t n, size_t i, int32_t d)
{
	for (i++; i <= n; i += i & -i)
		f[i] += d;
}

static int64_t fen_sum(const int32_t *f, size_t i)	/* marks in [0, i) */
{
	int64_t s = 0;

	for (; i; i -= i & -i)
		s += f[i];
	return s;
}

/* The definition, computed here the textbook way. */
static void expected_bins(double k, double *p)
{
	double h = 0, w, tot;
	unsigned b;

	for (b = 1; b <= 1000; b++)
		h += 1.0 / b;
	w = h / BINS;
	tot = 1.0 - exp(-(double)BINS * w);
	for (b = 0; b < BINS; b++)
		p[b] = (exp(-(double)b * w) - exp(-(double)(b + 1) * w)) / tot;
	p[0] += k;
	for (b = 0; b < BINS; b++)
		p[b] /= 1.0 + k;
}

/* @line rows per line of @kind over @rows rows. */
static void check_profile(uint32_t kind, uint32_t rows, uint32_t line, double k, uint32_t *idx,
			  int32_t *fen, int32_t *last)
{
	struct reis_rf_trace *t;
	double want[BINS], got[BINS];
	uint64_t cnt[BINS], counted = 0, bad = 0;
	/* Past this many accesses every line within the deepest distance was
	 * referenced inside the window, so the measured distances are exact. */
	const size_t skip = 40u * (BINS - 1) * LOOKUPS;
	size_t i;
	unsigned b;

	open_kind(kind, k, 7, rows, LOOKUPS, &t);
	reis_rf_trace_next(t, idx, N);
	reis_rf_trace_close(t);
	memset(cnt, 0, sizeof(cnt));
	memset(fen, 0, sizeof(*fen) * (N + 1));
	for (i = 0; i < rows / line; i++)
		last[i] = -1;
	for (i = 0; i < N; i++) {
		uint32_t ln = idx[i] / line;
		int64_t d = 0;

		REQUIRE(idx[i] % line == 0 && idx[i] < rows);
		if (last[ln] >= 0) {
			/* Lines touched since, plus itself: the LRU position. */
			d = fen_sum(fen, i) - fen_sum(fen, (size_t)last[ln] + 1) + 1;
			fen_add(fen, N, (size_t)last[ln], -1);
		}
		fen_add(fen, N, i, 1);
		last[ln] = (int32_t)i;
		if (i < skip)
			continue;
		counted++;
		if (!d) {
			cnt[0]++;
		} else if (d % LOOKUPS || d / LOOKUPS >= BINS) {
			bad++;
		} else {
			cnt[d / LOOKUPS]++;
		}
	}
	CHECK_EQ_U64(bad, 0);
	REQUIRE(reis_rf_trace_bin_prob(k, got) == 0);
	expected_bins(k, want);
	for (b = 0; b < BINS; b++) {
		double e = want[b] * (double)counted;
		double sd = sqrt(e * (1.0 - want[b]));

		CHECK(fabs(got[b] - want[b]) < 1e-12);
		if (fabs((double)cnt[b] - e) > 5 * sd + 2) {
			fprintf(stderr, "K %.1f bin %u: %llu accesses, expected %.1f\n", k, b,
				(unsigned long long)cnt[b], e);
			CHECK(0);
		}
	}
	/* The new-reference rate per K: (p_0 + K) / (1 + K). */
	expected_bins(0, got);
	CHECK(fabs((double)cnt[0] / (double)counted - (got[0] + k) / (1 + k)) < 0.005);
}

int main(void)
{
	static const double ks[] = { 0, 0.3, 0.8, 1, 2 };
	uint32_t *idx = malloc(sizeof(*idx) * N), *b2 = malloc(sizeof(*b2) * N);
	int32_t *fen = malloc(sizeof(*fen) * (N + 1));
	/* Per line: RECSSD has BIG_ROWS / 128 lines, RECFLASH RF_ROWS. */
	int32_t *last = malloc(sizeof(*last) * RF_ROWS);
	struct reis_rf_trace_opts o;
	struct reis_rf_trace *t;
	double p[BINS], p0 = 0, prev = -1;
	unsigned k;
	size_t i;

	REQUIRE(idx && b2 && fen && last);

	/* Bin 0 at K = 0 is 1 - e^-w over the histogram's mass (about 13.9 %),
	 * and P(new) = (p_0 + K) / (1 + K). */
	for (k = 0; k < 5; k++) {
		double s = 0;
		unsigned b;

		REQUIRE(reis_rf_trace_bin_prob(ks[k], p) == 0);
		for (b = 0; b < BINS; b++)
			s += p[b];
		CHECK(fabs(s - 1.0) < 1e-12);
		if (!k)
			p0 = p[0];
		CHECK(fabs(p[0] - (p0 + ks[k]) / (1 + ks[k])) < 1e-12);
		CHECK(p[0] > prev);
		prev = p[0];
	}
	CHECK(p0 > 0.13 && p0 < 0.15);

	for (k = 0; k < 5; k++)
		check_profile(REIS_RF_TRACE_RECSSD, BIG_ROWS, REIS_RF_TRACE_RECSSD_LINE, ks[k], idx,
			      fen, last);
	for (k = 0; k < 5; k++)
		check_profile(REIS_RF_TRACE_RECFLASH, RF_ROWS, 1, ks[k], idx, fen, last);

	/*
	 * RECFLASH over 1 M rows: the unique-access rate of a long window is
	 * the new-reference rate (the window holds few reuses of older rows),
	 * and the new references, rows no one touched yet, hit 128-row blocks
	 * like random rows: two in a row share one with probability 1/7813.
	 */
	for (k = 0; k < 5; k += 4) {
		uint64_t news = 0, same = 0;
		uint32_t prev_new = UINT32_MAX;
		double u;

		REQUIRE(reis_rf_trace_bin_prob(ks[k], p) == 0);
		open_kind(REIS_RF_TRACE_RECFLASH, ks[k], 5, 1000000, LOOKUPS, &t);
		reis_rf_trace_next(t, idx, N);
		reis_rf_trace_close(t);
		u = reis_rf_unique_rate(idx, N, 1000000);
		CHECK(fabs(u - p[0]) < 0.01);
		memset(last, 0xff, sizeof(*last) * 1000000);
		for (i = 0; i < N; i++) {
			CHECK(idx[i] < 1000000);
			if (last[idx[i]] >= 0) {
				last[idx[i]] = (int32_t)i;
				continue;
			}
			last[idx[i]] = (int32_t)i;
			news++;
			if (prev_new != UINT32_MAX && prev_new / 128 == idx[i] / 128)
				same++;
			prev_new = idx[i];
		}
		CHECK(news > N / 10);
		CHECK(same * 1000 < news);
	}

	/* A 1 M-row table: every index a multiple of 128, at most 7813 rows. */
	open_recssd(0.3, 1, 1000000, 80, &t);
	reis_rf_trace_next(t, idx, N);
	reis_rf_trace_close(t);
	for (i = 0; i < N; i++)
		CHECK(idx[i] % 128 == 0 && idx[i] < 1000000);
	CHECK(reis_rf_unique_rate(idx, N, 1000000) <= 7813.0 / N);
	/* Tiny tables: distances past the list clamp to it, still in range. */
	open_recssd(2, 3, 300, 80, &t);
	reis_rf_trace_next(t, b2, 1000);
	reis_rf_trace_close(t);
	for (i = 0; i < 1000; i++)
		CHECK(b2[i] == 0 || b2[i] == 128 || b2[i] == 256);

	/* Determinism; pieces equal one draw. */
	open_recssd(0.8, 42, 1000000, 80, &t);
	reis_rf_trace_next(t, idx, 1000);
	reis_rf_trace_next(t, idx + 1000, N - 1000);
	reis_rf_trace_close(t);
	open_recssd(0.8, 42, 1000000, 80, &t);
	reis_rf_trace_next(t, b2, N);
	reis_rf_trace_close(t);
	CHECK(memcmp(idx, b2, sizeof(*idx) * N) == 0);
	open_recssd(0.8, 43, 1000000, 80, &t);
	reis_rf_trace_next(t, b2, N);
	reis_rf_trace_close(t);
	CHECK(memcmp(idx, b2, sizeof(*idx) * N) != 0);

	/* Bad options. */
	memset(&o, 0, sizeof(o));
	o.rows = 1000;
	o.kind = REIS_RF_TRACE_POPULAR + 1;
	CHECK(reis_rf_trace_open(&o, &t) == -EINVAL);
	o.kind = REIS_RF_TRACE_RECSSD;
	o.lookups = REIS_RF_TRACE_MAX_LOOKUPS + 1;
	CHECK(reis_rf_trace_open(&o, &t) == -EINVAL);
	o.lookups = 1;
	o.rsvd1 = 1;
	CHECK(reis_rf_trace_open(&o, &t) == -EINVAL);
	o.rsvd1 = 0;
	o.k = -0.5;
	CHECK(reis_rf_trace_open(&o, &t) == -EINVAL);
	CHECK(reis_rf_trace_bin_prob(1, NULL) == -EINVAL);
	CHECK(reis_rf_trace_bin_prob(REIS_RF_TRACE_MAX_K * 2, p) == -EINVAL);
	free(idx);
	free(b2);
	free(fen);
	free(last);
	return t_result();
}
