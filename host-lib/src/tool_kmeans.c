/* SPDX-License-Identifier: MIT */
/*
 * tool_kmeans.c - IVF training: Lloyd's k-means under L2 with k-means++ or
 * random seeding, a seeded training sample, FAISS-style splitting of empty
 * clusters, and a final assignment of every point. One thread, fixed
 * summation order: the same input and seed give the same bytes.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "libreis_tools.h"
#include "drive_reis_priv.h"

#define REIS_KM_DEFAULT_ITER 20u
#define REIS_KM_DEFAULT_TRAIN 256u
#define REIS_KM_SPLIT_EPS (1.0f / 1024.0f)

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest centroid by |x|^2 - 2<x,c> + |c|^2 (|x|^2 dropped); ties low. */
static uint32_t reis_km_nearest(const float *x, const float *c, const float *cn,
				uint32_t k, uint32_t dim, float *best_out)
{
	uint32_t j, best = 0;
	float bd = INFINITY;

	for (j = 0; j < k; j++) {
		float d = cn[j] - 2.0f * reis__dot(x, c + (size_t)j * dim, dim);

		if (d < bd) {
			bd = d;
			best = j;
		}
	}
	if (best_out)
		*best_out = bd;
	return best;
}

static void reis_km_norms(const float *c, uint32_t k, uint32_t dim, float *cn)
{
	uint32_t j;

	for (j = 0; j < k; j++)
		cn[j] = reis__dot(c + (size_t)j * dim, c + (size_t)j * dim, dim);
}

/* k-means++ seeding over the training points @t (ntrain x dim). */
static void reis_km_plusplus(const float *t, uint64_t ntrain, uint32_t dim, uint32_t k,
			     uint64_t *rng, float *c, double *mind)
{
	uint64_t i, pick;
	uint32_t j;

	pick = reis__splitmix(rng) % ntrain;
	memcpy(c, t + pick * dim, (size_t)dim * sizeof(float));
	for (i = 0; i < ntrain; i++)
		mind[i] = reis__l2sq(t + i * dim, c, dim);
	for (j = 1; j < k; j++) {
		double total = 0, r, acc = 0;

		for (i = 0; i < ntrain; i++)
			total += mind[i];
		pick = ntrain - 1;
		if (total > 0) {
			r = reis__uniform(rng) * total;
			for (i = 0; i < ntrain; i++) {
				acc += mind[i];
				if (acc > r) {
					pick = i;
					break;
				}
			}
		} else {
			pick = reis__splitmix(rng) % ntrain;
		}
		memcpy(c + (size_t)j * dim, t + pick * dim, (size_t)dim * sizeof(float));
		for (i = 0; i < ntrain; i++) {
			double d = reis__l2sq(t + i * dim, c + (size_t)j * dim, dim);

			if (d < mind[i])
				mind[i] = d;
		}
	}
}

int reis_kmeans(const float *x, uint64_t n, uint32_t dim,
		const struct reis_kmeans_opts *o, float *centroids, uint32_t *assign,
		struct reis_kmeans_stats *st)
{
	uint32_t k, iters, per, it, j;
	uint64_t ntrain, i, rng;
	uint64_t *sample = NULL, *count = NULL;
	uint32_t *tassign = NULL;
	double *sum = NULL, *mind = NULL, prev = INFINITY, obj = 0, tol;
	float *t = NULL, *cn = NULL;
	struct reis_kmeans_stats s;
	int ret = -ENOMEM;

	if (!x || !o || !centroids || !dim || !n)
		return -EINVAL;
	k = o->nlist;
	if (!k || k > REIS_DB_MAX_NLIST || k > n || o->init > REIS_KM_RANDOM ||
	    !(o->tol >= 0))
		return -EINVAL;
	iters = o->max_iter ? o->max_iter : REIS_KM_DEFAULT_ITER;
	per = o->max_train_per_list ? o->max_train_per_list : REIS_KM_DEFAULT_TRAIN;
	tol = o->tol > 0 ? o->tol : 1e-4;
	memset(&s, 0, sizeof(s));
	rng = o->seed ^ UINT64_C(0x5265697320494646);	/* "Reis IFF" */

	ntrain = (uint64_t)k * per < n ? (uint64_t)k * per : n;
	sample = malloc(n * sizeof(*sample));
	cn = malloc((size_t)k * sizeof(*cn));
	count = malloc((size_t)k * sizeof(*count));
	sum = malloc((size_t)k * dim * sizeof(*sum));
	tassign = malloc(ntrain * sizeof(*tassign));
	mind = malloc(ntrain * sizeof(*mind));
	t = malloc(ntrain * dim * sizeof(*t));
	if (!sample || !cn || !count || !sum || !tassign || !mind || !t)
		goto out;

	/* Seeded sample without replacement, kept in row order. */
	for (i = 0; i < n; i++)
		sample[i] = i;
	if (ntrain < n) {
		for (i = 0; i < ntrain; i++) {
			uint64_t r = i + reis__splitmix(&rng) % (n - i), tmp = sample[i];

			sample[i] = sample[r];
			sample[r] = tmp;
		}
		qsort(sample, ntrain, sizeof(*sample), cmp_u64);
	}
	for (i = 0; i < ntrain; i++)
		memcpy(t + i * dim, x + sample[i] * dim, (size_t)dim * sizeof(float));
	s.ntrain = ntrain;

	if (o->init == REIS_KM_RANDOM) {
		/* k distinct training points: a partial shuffle of indices. */
		uint64_t *idx = sample;	/* reuse: ntrain <= n */

		for (i = 0; i < ntrain; i++)
			idx[i] = i;
		for (j = 0; j < k; j++) {
			uint64_t r = j + reis__splitmix(&rng) % (ntrain - j), tmp = idx[j];

			idx[j] = idx[r];
			idx[r] = tmp;
			memcpy(centroids + (size_t)j * dim, t + idx[j] * dim,
			       (size_t)dim * sizeof(float));
		}
	} else {
		reis_km_plusplus(t, ntrain, dim, k, &rng, centroids, mind);
	}

	for (it = 0; it < iters; it++) {
		reis_km_norms(centroids, k, dim, cn);
		obj = 0;
		for (i = 0; i < ntrain; i++) {
			float d;

			tassign[i] = reis_km_nearest(t + i * dim, centroids, cn, k, dim, &d);
			obj += (double)d + (double)reis__dot(t + i * dim, t + i * dim, dim);
		}
		s.iters = it + 1;
		if (o->progress)
			o->progress(o->progress_arg, it + 1, iters);
		memset(count, 0, (size_t)k * sizeof(*count));
		memset(sum, 0, (size_t)k * dim * sizeof(*sum));
		for (i = 0; i < ntrain; i++) {
			double *sp = sum + (size_t)tassign[i] * dim;
			const float *tp = t + i * dim;
			uint32_t d;

			count[tassign[i]]++;
			for (d = 0; d < dim; d++)
				sp[d] += tp[d];
		}
		for (j = 0; j < k; j++) {
			uint32_t d;

			if (!count[j])
				continue;
			for (d = 0; d < dim; d++)
				centroids[(size_t)j * dim + d] =
					(float)(sum[(size_t)j * dim + d] / (double)count[j]);
		}
		/* Empty clusters take half of the largest (FAISS's remedy). */
		for (j = 0; j < k; j++) {
			uint32_t m = 0, jj, d;

			if (count[j])
				continue;
			for (jj = 1; jj < k; jj++)
				if (count[jj] > count[m])
					m = jj;
			if (count[m] < 2)
				continue;
			for (d = 0; d < dim; d++) {
				float v = centroids[(size_t)m * dim + d];
				float e = (d % 2 ? -1.0f : 1.0f) * REIS_KM_SPLIT_EPS;

				centroids[(size_t)j * dim + d] = v * (1.0f + e);
				centroids[(size_t)m * dim + d] = v * (1.0f - e);
			}
			count[j] = count[m] / 2;
			count[m] -= count[j];
			s.empty_fixed++;
		}
		if (prev < INFINITY && prev - obj <= tol * fabs(prev))
			break;
		prev = obj;
	}
	s.objective = obj;

	if (assign) {
		reis_km_norms(centroids, k, dim, cn);
		for (i = 0; i < n; i++)
			assign[i] = reis_km_nearest(x + i * dim, centroids, cn, k, dim, NULL);
	}
	if (st)
		*st = s;
	ret = 0;
out:
	free(sample);
	free(cn);
	free(count);
	free(sum);
	free(tassign);
	free(mind);
	free(t);
	return ret;
}
