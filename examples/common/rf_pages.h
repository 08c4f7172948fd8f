/* SPDX-License-Identifier: MIT */
/*
 * rf_pages.h - expected distinct rows and pages of a RecFlash SLS command
 * under a popularity law, analytically (docs/fidelity.md "RecFlash: the
 * sensing bound over popularity laws"). A command's L lookups are L
 * independent draws of rows from a law p over the table's rows by rank;
 * RecFlash places the rows packed by rank (III-C1: hot rows first, @per
 * rows a page), so page j holds ranks j*@per .. (j+1)*@per - 1 and draws
 * with probability P_j = the sum of their p. Then
 *   E[distinct pages] = sum_j 1 - (1 - P_j)^L   (one sensing each, W1)
 *   E[distinct rows]  = sum_r 1 - (1 - p_r)^L
 * and the unique-access share IV-A quotes (8 % at K = 0) is E[distinct
 * rows] / M over M = 1 M draws of a 1 M-row table (timing-model.md W2).
 * Program glue shared by bench_rf_bound and its Monte Carlo check
 * (tests/unit/test_rf_pages.c), not part of the library.
 */
#ifndef EXAMPLES_RF_PAGES_H
#define EXAMPLES_RF_PAGES_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* The law families of the bound (struct rfp_law.kind). */
enum rfp_kind {
	RFP_ZIPF,	/* p_r ~ (r + 1)^-s for r < n (the support), 0 after */
	RFP_HOT,	/* share h uniform over n hot rows, 1 - h over the rest */
	RFP_MIX,	/* share h Zipf(s) over all rows, 1 - h uniform over all */
};

struct rfp_law {
	enum rfp_kind kind;
	double s;	/* exponent (ZIPF, MIX) */
	double h;	/* share (HOT, MIX) */
	uint32_t n;	/* support (ZIPF) or hot rows (HOT) */
};

/* 1 - (1 - p)^l, exact for p in [0, 1] and l >= 0. */
static inline double rfp_hit(double p, double l)
{
	if (p >= 1)
		return l > 0 ? 1 : 0;
	return -expm1(l * log1p(-p));
}

/*
 * The law's probability of every rank of a @rows-row table into @p
 * (descending for the families above). Return: 0, or -1 if the law does
 * not fit the table (support or hot rows not in 1..rows, share not in
 * [0, 1], exponent negative).
 */
static inline int rfp_law_fill(const struct rfp_law *w, uint32_t rows, double *p)
{
	double z = 0;
	uint32_t r;

	if (!rows || !(w->s >= 0) || !(w->h >= 0 && w->h <= 1))
		return -1;
	switch (w->kind) {
	case RFP_ZIPF:
		if (!w->n || w->n > rows)
			return -1;
		for (r = 0; r < rows; r++) {
			p[r] = r < w->n ? exp(-w->s * log(r + 1.0)) : 0;
			z += p[r];
		}
		for (r = 0; r < w->n; r++)
			p[r] /= z;
		return 0;
	case RFP_HOT:
		if (!w->n || w->n > rows || (w->n == rows && w->h < 1))
			return -1;
		for (r = 0; r < rows; r++)
			p[r] = r < w->n ? w->h / w->n : (1 - w->h) / (rows - w->n);
		return 0;
	case RFP_MIX:
		for (r = 0; r < rows; r++) {
			p[r] = exp(-w->s * log(r + 1.0));
			z += p[r];
		}
		for (r = 0; r < rows; r++)
			p[r] = w->h * p[r] / z + (1 - w->h) / rows;
		return 0;
	}
	return -1;
}

/* E[distinct rows] of @l draws from @p (@rows ranks). */
static inline double rfp_distinct_rows(const double *p, uint32_t rows, double l)
{
	double d = 0;
	uint32_t r;

	for (r = 0; r < rows; r++)
		if (p[r] > 0)
			d += rfp_hit(p[r], l);
	return d;
}

/*
 * The page probabilities of @p packed by rank, @per rows a page, into
 * @pg (ceil(rows / per) entries). Return: the number of pages.
 */
static inline uint32_t rfp_pages(const double *p, uint32_t rows, uint32_t per, double *pg)
{
	uint32_t r, n = 0;

	for (r = 0; r < rows; r++) {
		if (r % per == 0)
			pg[n++] = 0;
		pg[n - 1] += p[r];
	}
	return n;
}

/*
 * The unique-access share IV-A quotes: E[distinct rows] / @m over @m
 * draws (the doc's definition: 1 M draws of the 1 M-row table).
 */
static inline double rfp_unique(const double *p, uint32_t rows, double m)
{
	return rfp_distinct_rows(p, rows, m) / m;
}

#endif
