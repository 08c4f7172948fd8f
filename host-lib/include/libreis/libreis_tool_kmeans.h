/* SPDX-License-Identifier: MIT */
/*
 * libreis/libreis_tool_kmeans.h - IVF training: k-means (REIS §4.3.1).
 * Included by libreis_tools.h; conventions are libreis.h's (docs/libreis.md).
 */
#ifndef LIBREIS_TOOL_KMEANS_H
#define LIBREIS_TOOL_KMEANS_H

#ifndef LIBREIS_TOOLS_H
#error "include <libreis_tools.h>, not <libreis/libreis_tool_kmeans.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* reis_kmeans_opts.init */
#define REIS_KM_PLUSPLUS 0u	/* k-means++ seeding (default) */
#define REIS_KM_RANDOM 1u	/* nlist distinct random training points */

/**
 * struct reis_kmeans_opts - k-means settings.
 * @nlist: clusters, 1..min(n, REIS_DB_MAX_NLIST).
 * @max_iter: Lloyd iterations; 0: 20.
 * @init: REIS_KM_PLUSPLUS or REIS_KM_RANDOM.
 * @max_train_per_list: train on at most this many points per cluster
 *                      (a seeded sample); 0: 256. Every point is assigned
 *                      at the end.
 * @seed: random seed; the result depends only on the input and this.
 * @tol: stop when the relative change of the objective is below; 0: 1e-4.
 * @progress: called after each iteration with the iterations done and the
 *            most there can be (seconds each on 200 k x 512), or NULL.
 * @progress_arg: its argument.
 */
struct reis_kmeans_opts {
	uint32_t nlist;
	uint32_t max_iter;
	uint32_t init;
	uint32_t max_train_per_list;
	uint64_t seed;
	double tol;
	/* where two reserved u64 were: the same size and offsets on LP64 */
	void (*progress)(void *arg, uint32_t iter, uint32_t max_iter);
	void *progress_arg;
};

/**
 * struct reis_kmeans_stats - what a k-means run did.
 * @iters: iterations run.
 * @empty_fixed: empty clusters re-seeded by splitting the largest.
 * @ntrain: training points used.
 * @objective: final sum of squared distances over the training points.
 */
struct reis_kmeans_stats {
	uint32_t iters;
	uint32_t empty_fixed;
	uint64_t ntrain;
	double objective;
};

/**
 * reis_kmeans() - Lloyd's k-means (L2), deterministic for a given seed.
 * @x: n * dim floats.
 * @n: points.
 * @dim: dimensions (any, >= 1).
 * @o: settings.
 * @centroids: nlist * dim floats, out.
 * @assign: n cluster numbers, out (nearest centroid, ties to the lower
 *          number); may be NULL.
 * @st: statistics, out; may be NULL.
 *
 * Single-threaded with fixed summation order, so the same input and seed
 * give bit-identical output on every run. An empty cluster takes half of
 * the largest one (its centroid perturbed symmetrically), as FAISS does.
 *
 * Return: 0, -EINVAL for bad arguments, -ENOMEM.
 */
int reis_kmeans(const float *x, uint64_t n, uint32_t dim,
		const struct reis_kmeans_opts *o, float *centroids, uint32_t *assign,
		struct reis_kmeans_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* LIBREIS_TOOL_KMEANS_H */
