/* SPDX-License-Identifier: MIT */
/*
 * test_rf_popular - the persistent-popularity trace (REIS_RF_TRACE_POPULAR,
 * RecFlash II-B / III-C1 / IV-A):
 *   1. determinism: a seed gives one trace, in pieces or at once; another
 *      seed another; indices stay below rows;
 *   2. the unique-access share of 1 M accesses of a 1 M-row table is the
 *      paper's 8 % at K = 0 and 66 % at K = 2 (the calibration), and grows
 *      with K;
 *   3. the popularity persists: the rows a prefix of the trace uses most
 *      are the rows its continuation uses most (a profile predicts the
 *      traffic), and at K = 0 every access comes from the popularity (the
 *      hottest row's share matches the Zipf law's first term);
 *   4. hot rows are scattered over the table, not packed at low indices;
 *   5. new references are rows never referenced before;
 *   6. bad options are refused.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "libreis_tools.h"

#define N 1000000u
#define ROWS 1000000u

static void draw(double k, uint64_t seed, double zipf, uint32_t rows, uint32_t *idx, size_t n)
{
	struct reis_rf_trace_opts o;
	struct reis_rf_trace *t;

	memset(&o, 0, sizeof(o));
	o.rows = rows;
	o.kind = REIS_RF_TRACE_POPULAR;
	o.k = k;
	o.seed = seed;
	o.zipf = zipf;
	REQUIRE(reis_rf_trace_open(&o, &t) == 0);
	reis_rf_trace_next(t, idx, n);
	reis_rf_trace_close(t);
}

/* The row with the most accesses in @idx[0 .. @n) and its count. */
static uint32_t top_row(const uint32_t *idx, size_t n, uint32_t *cnt, uint32_t *count)
{
	uint32_t best = 0;
	size_t i;

	memset(cnt, 0, sizeof(*cnt) * ROWS);
	for (i = 0; i < n; i++)
		cnt[idx[i]]++;
	for (i = 1; i < ROWS; i++)
		if (cnt[i] > cnt[best])
			best = (uint32_t)i;
	*count = cnt[best];
	return best;
}

int main(void)
{
	static const double ks[] = { 0, 0.3, 0.8, 1, 2 };
	static uint32_t a[N], b[N], cnt[ROWS];
	struct reis_rf_trace_opts o;
	struct reis_rf_trace *t;
	double prev = -1, u, zeta = 0, first;
	uint32_t r0, r1, c0, c1, below = 0;
	size_t i, fresh = 0;
	unsigned k;

	/* 1. Determinism. */
	draw(0.3, 42, 0, ROWS, a, N);
	draw(0.3, 42, 0, ROWS, b, N);
	CHECK(memcmp(a, b, sizeof(a)) == 0);
	draw(0.3, 43, 0, ROWS, b, N);
	CHECK(memcmp(a, b, sizeof(a)) != 0);
	for (i = 0; i < N; i++)
		CHECK(a[i] < ROWS);
	memset(&o, 0, sizeof(o));
	o.rows = ROWS;
	o.kind = REIS_RF_TRACE_POPULAR;
	o.k = 0.3;
	o.seed = 42;
	REQUIRE(reis_rf_trace_open(&o, &t) == 0);
	reis_rf_trace_next(t, b, 1000);
	reis_rf_trace_next(t, b + 1000, N - 1000);
	reis_rf_trace_close(t);
	CHECK(memcmp(a, b, sizeof(a)) == 0);

	/* 2. The unique shares: IV-A's 8 % and 66 % at K = 0 and 2. */
	for (k = 0; k < 5; k++) {
		draw(ks[k], 1, 0, ROWS, a, N);
		u = reis_rf_unique_rate(a, N, ROWS);
		CHECK(u > prev);
		prev = u;
		if (k == 0)
			CHECK(fabs(u - 0.08) < 0.005);
		if (k == 4)
			CHECK(fabs(u - 0.66) < 0.005);
	}

	/* 3. Persistence: the first half's hottest row is the second half's,
	 * and at K = 0 its share is the Zipf law's first term 1 / zeta. */
	draw(0, 7, 0, ROWS, a, N);
	r0 = top_row(a, N / 2, cnt, &c0);
	r1 = top_row(a + N / 2, N / 2, cnt, &c1);
	CHECK_EQ_U64(r0, r1);
	for (i = 1; i <= ROWS; i++)
		zeta += pow((double)i, -REIS_RF_TRACE_POP_ALPHA);
	first = 1.0 / zeta;
	CHECK(fabs((double)c0 / (N / 2) - first) < 0.01);
	CHECK(fabs((double)c1 / (N / 2) - first) < 0.01);
	/* A larger exponent concentrates it. */
	draw(0, 7, 2.0, ROWS, b, N / 2);
	top_row(b, N / 2, cnt, &c1);
	CHECK(c1 > c0);

	/* 4. Scattered: of the 100 rows used most, about a tenth lies in the
	 * table's first tenth, not all of them. */
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < N; i++)
		cnt[a[i]]++;
	for (k = 0; k < 100; k++) {
		uint32_t best = 0;

		for (i = 1; i < ROWS; i++)
			if (cnt[i] > cnt[best])
				best = (uint32_t)i;
		below += best < ROWS / 10;
		cnt[best] = 0;
	}
	CHECK(below < 30);

	/* 5. At K = 2 the new references are rows never seen before: the
	 * distinct rows of a prefix grow by about the new-reference share. */
	draw(2, 3, 0, ROWS, a, N / 10);
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < N / 10; i++)
		if (!cnt[a[i]]++)
			fresh++;
	u = REIS_RF_TRACE_POP_GAIN * 2 / (1 + REIS_RF_TRACE_POP_GAIN * 2);
	CHECK((double)fresh / (N / 10) > u);

	/* 6. Bad options. */
	memset(&o, 0, sizeof(o));
	o.rows = 1000;
	o.kind = REIS_RF_TRACE_POPULAR;
	o.zipf = -1;
	CHECK(reis_rf_trace_open(&o, &t) == -EINVAL);
	o.zipf = 5;
	CHECK(reis_rf_trace_open(&o, &t) == -EINVAL);
	o.zipf = 0;
	o.rows = REIS_RF_TRACE_POP_MAX_ROWS + 1;
	CHECK(reis_rf_trace_open(&o, &t) == -EINVAL);
	o.rows = 1000;
	o.k = -1;
	CHECK(reis_rf_trace_open(&o, &t) == -EINVAL);
	o.k = 0;
	o.kind = REIS_RF_TRACE_RECFLASH;
	o.zipf = 1.2;	/* an exponent for a kind without one */
	CHECK(reis_rf_trace_open(&o, &t) == -EINVAL);
	return t_result();
}
