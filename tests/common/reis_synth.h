/* SPDX-License-Identifier: MIT */
/*
 * reis_synth.h - seeded synthetic embeddings and documents shared by the
 * REIS library tests (and, copied as is, by the guest tests): clustered
 * Gaussian vectors, row-numbered documents, a scratch directory. Header
 * only, no state.
 */
#ifndef TESTS_REIS_SYNTH_H
#define TESTS_REIS_SYNTH_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline uint64_t synth_next(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static inline double synth_uniform(uint64_t *s)
{
	return ((double)(synth_next(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static inline float synth_gauss(uint64_t *s)
{
	double u = synth_uniform(s), v = synth_uniform(s);

	return (float)(sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v));
}

/*
 * n vectors of dim around nclust random centres (spread 1, noise @noise),
 * normalized to unit length; rows drawn round-robin-free from the seed.
 */
static inline float *synth_vectors(uint64_t seed, uint64_t n, uint32_t dim,
				   uint32_t nclust, float noise)
{
	float *c = malloc((size_t)nclust * dim * sizeof(float));
	float *x = malloc((size_t)n * dim * sizeof(float));
	uint64_t i, s = seed;
	uint32_t d;

	if (!c || !x) {
		free(c);
		free(x);
		return NULL;
	}
	for (i = 0; i < (uint64_t)nclust * dim; i++)
		c[i] = synth_gauss(&s);
	for (i = 0; i < n; i++) {
		uint32_t cl = (uint32_t)(synth_next(&s) % nclust);
		double norm = 0;

		for (d = 0; d < dim; d++) {
			float v = c[(size_t)cl * dim + d] + noise * synth_gauss(&s);

			x[i * dim + d] = v;
			norm += (double)v * v;
		}
		norm = sqrt(norm);
		for (d = 0; d < dim; d++)
			x[i * dim + d] = (float)(x[i * dim + d] / norm);
	}
	free(c);
	return x;
}

/* Documents "row <i>: <words>" of varying length, back to back. */
static inline uint8_t *synth_docs(uint64_t seed, uint64_t n, uint32_t maxlen,
				  uint64_t **offsets)
{
	uint64_t *off = malloc((n + 1) * sizeof(*off)), i, s = seed, pos = 0;
	uint8_t *blob = malloc(n * (uint64_t)(maxlen + 32));

	if (!off || !blob) {
		free(off);
		free(blob);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		uint32_t len = (uint32_t)(synth_next(&s) % maxlen), j;
		int h = snprintf((char *)blob + pos, 32, "row %llu:", (unsigned long long)i);

		off[i] = pos;
		pos += (uint64_t)h;
		for (j = 0; j < len; j++)
			blob[pos++] = (uint8_t)('a' + synth_next(&s) % 26);
	}
	off[n] = pos;
	*offsets = off;
	return blob;
}

#endif /* TESTS_REIS_SYNTH_H */
