/* SPDX-License-Identifier: MIT */
/*
 * test_rf_trace - the locality-K trace generator: the same seed gives the
 * same trace and another seed another one; indices stay below rows; the
 * unique-access rate grows with K and spans the paper's 8 %..66 % (RecFlash
 * IV-A) for K = 0..2; reuse is concentrated at short stack distances; a
 * trace continued in pieces equals one drawn at once; bad options are
 * refused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "libreis_tools.h"

#define N 1000000
#define ROWS 1000000

static void draw(double k, uint64_t seed, uint32_t rows, uint32_t *idx, size_t n)
{
	struct reis_rf_trace_opts o;
	struct reis_rf_trace *t;

	memset(&o, 0, sizeof(o));
	o.rows = rows;
	o.k = k;
	o.seed = seed;
	REQUIRE(reis_rf_trace_open(&o, &t) == 0);
	reis_rf_trace_next(t, idx, n);
	reis_rf_trace_close(t);
}

int main(void)
{
	static const double ks[] = { 0, 0.3, 0.8, 1, 2 };
	static uint32_t a[N], b[N];
	struct reis_rf_trace_opts o;
	struct reis_rf_trace *t;
	double prev = -1, u[5];
	size_t i, recent;
	unsigned k;

	/* Determinism. */
	draw(0.3, 42, ROWS, a, N);
	draw(0.3, 42, ROWS, b, N);
	CHECK(memcmp(a, b, sizeof(a)) == 0);
	draw(0.3, 43, ROWS, b, N);
	CHECK(memcmp(a, b, sizeof(a)) != 0);
	for (i = 0; i < N; i++)
		CHECK(a[i] < ROWS);

	/* In pieces = at once. */
	memset(&o, 0, sizeof(o));
	o.rows = ROWS;
	o.k = 0.3;
	o.seed = 42;
	REQUIRE(reis_rf_trace_open(&o, &t) == 0);
	reis_rf_trace_next(t, b, 1000);
	reis_rf_trace_next(t, b + 1000, 7);
	reis_rf_trace_next(t, b + 1007, N - 1007);
	reis_rf_trace_close(t);
	CHECK(memcmp(a, b, sizeof(a)) == 0);

	/* Unique-access rate vs K, next to the paper's 8 %..66 %. */
	for (k = 0; k < 5; k++) {
		draw(ks[k], 1, ROWS, a, N);
		u[k] = reis_rf_unique_rate(a, N, ROWS);
		printf("K=%.1f unique access rate %.1f %%\n", ks[k], 100 * u[k]);
		CHECK(u[k] > prev);
		prev = u[k];
	}
	CHECK(u[0] > 0.075 && u[0] < 0.09);	/* paper: 8 % */
	CHECK(u[4] > 0.64 && u[4] < 0.68);	/* paper: 66 % */

	/* Locality: at K = 0 most accesses re-reference a row seen within the
	 * last 8 x sd_mean accesses, at K = 2 a minority do. */
	for (k = 0; k < 5; k += 4) {
		uint32_t *last = calloc(ROWS, sizeof(*last));

		REQUIRE(last);
		draw(ks[k], 5, ROWS, a, N);
		for (i = 0, recent = 0; i < N; i++) {
			if (last[a[i]] && i + 1 - last[a[i]] <= 8 * REIS_RF_TRACE_SD_MEAN)
				recent++;
			last[a[i]] = (uint32_t)(i + 1);
		}
		printf("K=%.0f: %.1f %% of accesses re-reference a row of the last %u\n",
		       ks[k], 100.0 * recent / N, 8 * REIS_RF_TRACE_SD_MEAN);
		CHECK(k ? recent < N * 4 / 10 : recent > N * 8 / 10);
		free(last);
	}

	/* A short window counts the working set it starts from as unique. */
	draw(0, 1, ROWS, a, 20000);
	CHECK(reis_rf_unique_rate(a, 20000, ROWS) > u[0]);

	/* Small tables: all rows get used, indices stay in range. */
	draw(2, 9, 17, a, 10000);
	for (i = 0; i < 10000; i++)
		CHECK(a[i] < 17);
	CHECK(reis_rf_unique_rate(a, 10000, 17) == 17.0 / 10000);

	/* Bad options. */
	memset(&o, 0, sizeof(o));
	o.k = 1;
	CHECK(reis_rf_trace_open(&o, &t) == -EINVAL);	/* rows 0 */
	o.rows = 10;
	o.k = -1;
	CHECK(reis_rf_trace_open(&o, &t) == -EINVAL);
	o.k = REIS_RF_TRACE_MAX_K + 1;
	CHECK(reis_rf_trace_open(&o, &t) == -EINVAL);
	o.k = 1;
	o.zipf = 1;	/* an exponent for a kind without one */
	CHECK(reis_rf_trace_open(&o, &t) == -EINVAL);
	o.zipf = 0;
	CHECK(reis_rf_trace_open(NULL, &t) == -EINVAL);
	CHECK(reis_rf_unique_rate(NULL, 0, 10) == 0);

	/*
	 * Profile cover, by hand: prefix {0, 0, 1} over 4 rows gives counts
	 * 2, 1, 0, 0, so groups {count 0: rows 2, 3; 1: row 1; 2: row 0}.
	 * Measured {0, 2, 3, 1}: seen rows 0 and 1 -> 2 / 4; ties 1, 2, 2, 1
	 * rows of 4 -> (1 + 2 + 2 + 1) / 16.
	 */
	{
		const uint32_t pre[3] = { 0, 0, 1 }, mea[4] = { 0, 2, 3, 1 }, bad[1] = { 4 };
		double se = -1, ti = -1;

		CHECK(reis_rf_profile_cover(pre, 3, mea, 4, 4, &se, &ti) == 0);
		CHECK(se == 0.5 && ti == 6.0 / 16);
		/* No profile: nothing seen, every row ties at count 0. */
		CHECK(reis_rf_profile_cover(NULL, 0, mea, 4, 4, &se, &ti) == 0);
		CHECK(se == 0 && ti == 1);
		CHECK(reis_rf_profile_cover(pre, 3, NULL, 0, 4, &se, &ti) == 0);
		CHECK(se == 0 && ti == 0);
		CHECK(reis_rf_profile_cover(pre, 3, bad, 1, 4, &se, &ti) == -EINVAL);
		CHECK(reis_rf_profile_cover(bad, 1, mea, 4, 4, &se, &ti) == -EINVAL);
		CHECK(reis_rf_profile_cover(pre, 3, mea, 4, 0, &se, &ti) == -EINVAL);
		CHECK(reis_rf_profile_cover(NULL, 3, mea, 4, 4, &se, &ti) == -EINVAL);
		CHECK(reis_rf_profile_cover(pre, 3, mea, 4, 4, NULL, &ti) == -EINVAL);
	}
	return t_result();
}
