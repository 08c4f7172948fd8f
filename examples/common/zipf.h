/* SPDX-License-Identifier: MIT */
/*
 * zipf.h - a seeded Zipf(@expo) row sampler for RecFlash programs: rank r
 * is drawn with probability proportional to 1 / (r + 1)^expo (0: uniform)
 * and ranks map to rows through a seeded shuffle, so the popular rows are
 * scattered over the table as in a real embedding table. xorshift32, no
 * libc randomness: the same seed gives the same trace everywhere. Shared
 * by the benchmarks and the remapping unit test.
 */
#ifndef EXAMPLES_ZIPF_H
#define EXAMPLES_ZIPF_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

struct zipf {
	double *cdf;		/* by rank, normalised to 1 */
	uint32_t *perm;		/* rank -> row */
	uint32_t n;
	uint32_t s;		/* xorshift32 state */
};

static inline uint32_t zipf_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static inline void zipf_free(struct zipf *z)
{
	free(z->cdf);
	free(z->perm);
	z->cdf = NULL;
	z->perm = NULL;
}

/* Return: 0, or -1 when out of memory (nothing held). */
static inline int zipf_init(struct zipf *z, uint32_t n, double expo, uint32_t seed)
{
	double sum = 0;
	uint32_t i;

	z->n = n;
	z->s = seed | 1;
	z->cdf = malloc(n * sizeof(*z->cdf));
	z->perm = malloc(n * sizeof(*z->perm));
	if (!n || !z->cdf || !z->perm) {
		zipf_free(z);
		return -1;
	}
	for (i = 0; i < n; i++) {
		sum += 1.0 / pow(i + 1.0, expo);
		z->cdf[i] = sum;
		z->perm[i] = i;
	}
	for (i = 0; i < n; i++)
		z->cdf[i] /= sum;
	for (i = n - 1; i > 0; i--) {
		uint32_t j = zipf_rand(&z->s) % (i + 1), t = z->perm[i];

		z->perm[i] = z->perm[j];
		z->perm[j] = t;
	}
	return 0;
}

/* A row: the first rank whose cumulative probability reaches u. */
static inline uint32_t zipf_draw(struct zipf *z)
{
	double u = (double)zipf_rand(&z->s) / 4294967296.0;
	uint32_t lo = 0, hi = z->n - 1;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (z->cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return z->perm[lo];
}

#endif
