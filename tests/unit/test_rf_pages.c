/* SPDX-License-Identifier: MIT */
/*
 * test_rf_pages - the analytic sensing count of bench_rf_bound
 * (examples/common/rf_pages.h; docs/fidelity.md "RecFlash: the sensing
 * bound over popularity laws") against a brute-force Monte Carlo:
 *  - each law family fills a distribution (sums to 1, descending by rank),
 *    and laws that do not fit the table are refused;
 *  - E[distinct pages] (rows packed by rank, per rows a page) and
 *    E[distinct rows] of L independent draws agree with the mean over
 *    100,000 simulated commands within 4 standard errors and 0.5 %, for a
 *    Zipf over a support, a hot set and a Zipf with a uniform floor;
 *  - the unique share over M draws agrees likewise;
 *  - the bound's two steps hold analytically: halving the page and taking
 *    1.5 x the lookups never lowers E[distinct pages], and E[D(4L)] <= 4
 *    E[D(L)].
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "rf_pages.h"

#define ROWS 3000u
#define TRIALS 100000u

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double uni(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

/* A rank drawn from the cumulative table @cdf (@n ranks). */
static uint32_t draw(const double *cdf, uint32_t n)
{
	double u = uni();
	uint32_t lo = 0, hi = n - 1;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (cdf[mid] <= u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Simulate @trials commands of @l draws: the mean and standard error of
 * distinct pages (@per rows a page, packed by rank) and distinct rows.
 */
static void simulate(const double *p, uint32_t l, uint32_t per, unsigned trials, double *mp,
		     double *sp, double *mr, double *sr)
{
	static double cdf[ROWS];
	static uint32_t rs[ROWS], ps[ROWS];
	double s1p = 0, s2p = 0, s1r = 0, s2r = 0, c = 0;
	unsigned t, i;

	for (i = 0; i < ROWS; i++) {
		c += p[i];
		cdf[i] = c;
	}
	cdf[ROWS - 1] = 1.0;
	memset(rs, 0, sizeof(rs));
	memset(ps, 0, sizeof(ps));
	for (t = 1; t <= trials; t++) {
		uint32_t dr = 0, dp = 0;

		for (i = 0; i < l; i++) {
			uint32_t r = draw(cdf, ROWS);

			if (rs[r] != t)
				rs[r] = t, dr++;
			if (ps[r / per] != t)
				ps[r / per] = t, dp++;
		}
		s1p += dp, s2p += (double)dp * dp;
		s1r += dr, s2r += (double)dr * dr;
	}
	*mp = s1p / trials;
	*sp = sqrt((s2p / trials - *mp * *mp) / trials);
	*mr = s1r / trials;
	*sr = sqrt((s2r / trials - *mr * *mr) / trials);
}

static int agree(const char *what, double analytic, double mean, double se)
{
	double d = fabs(analytic - mean);

	if (d > 4 * se + 1e-9 || d > 0.005 * mean) {
		fprintf(stderr, "%s: analytic %.4f, Monte Carlo %.4f +- %.4f\n", what, analytic,
			mean, se);
		return 0;
	}
	return 1;
}

int main(void)
{
	const struct rfp_law laws[3] = {
		{ RFP_ZIPF, 1.1, 0, 2000 },
		{ RFP_HOT, 0, 0.9, 40 },
		{ RFP_MIX, 1.5, 0.8, 0 },
	};
	const struct rfp_law bad[4] = {
		{ RFP_ZIPF, 1.0, 0, 0 },
		{ RFP_ZIPF, 1.0, 0, ROWS + 1 },
		{ RFP_HOT, 0, 1.5, 10 },
		{ RFP_MIX, -1, 0.5, 0 },
	};
	static double p[ROWS], pg[ROWS], pg2[ROWS];
	unsigned i, k;

	for (i = 0; i < 4; i++)
		CHECK(rfp_law_fill(&bad[i], ROWS, p) == -1);
	for (k = 0; k < 3; k++) {
		double sum = 0, mp, sp, mr, sr, m;
		uint32_t np, np2, l = 48, per = 16;
		char what[64];

		REQUIRE(rfp_law_fill(&laws[k], ROWS, p) == 0);
		for (i = 0; i < ROWS; i++) {
			sum += p[i];
			if (i)
				CHECK(p[i] <= p[i - 1] + 1e-15);
		}
		CHECK(fabs(sum - 1) < 1e-9);
		np = rfp_pages(p, ROWS, per, pg);
		CHECK_EQ_U64(np, (ROWS + per - 1) / per);
		simulate(p, l, per, TRIALS, &mp, &sp, &mr, &sr);
		m = 0;
		for (i = 0; i < np; i++)
			m += rfp_hit(pg[i], l);
		snprintf(what, sizeof(what), "law %u: distinct pages", k);
		CHECK(agree(what, m, mp, sp));
		snprintf(what, sizeof(what), "law %u: distinct rows", k);
		CHECK(agree(what, rfp_distinct_rows(p, ROWS, l), mr, sr));
		/* The unique share over M = ROWS draws (IV-A's measure, scaled). */
		simulate(p, ROWS, per, 2000, &mp, &sp, &mr, &sr);
		snprintf(what, sizeof(what), "law %u: unique share", k);
		CHECK(agree(what, rfp_unique(p, ROWS, ROWS), mr / ROWS, sr / ROWS));
		/* Half pages and 1.5 x the lookups: at least as many pages. */
		np2 = rfp_pages(p, ROWS, per / 2, pg2);
		for (l = 1; l <= 1024; l *= 2) {
			double d1 = 0, d2 = 0, d4 = 0;

			for (i = 0; i < np; i++) {
				d1 += rfp_hit(pg[i], l);
				d4 += rfp_hit(pg[i], 4.0 * l);
			}
			for (i = 0; i < np2; i++)
				d2 += rfp_hit(pg2[i], 1.5 * l);
			CHECK(d2 >= d1 - 1e-9);
			CHECK(d4 <= 4 * d1 + 1e-9);
		}
	}
	/* rfp_hit at its ends. */
	CHECK(rfp_hit(1, 3) == 1 && rfp_hit(1, 0) == 0 && rfp_hit(0, 5) == 0);
	CHECK(fabs(rfp_hit(0.5, 2) - 0.75) < 1e-15);
	return t_result();
}
