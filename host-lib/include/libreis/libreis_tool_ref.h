/* SPDX-License-Identifier: MIT */
/*
 * libreis/libreis_tool_ref.h - ground truth, the drive's search recomputed on the
 * host, recall->nprobe and distance-filter calibration (REIS §4.3.3).
 * Included by libreis_tools.h; conventions are libreis.h's (docs/libreis.md).
 */
#ifndef LIBREIS_TOOL_REF_H
#define LIBREIS_TOOL_REF_H

#ifndef LIBREIS_TOOLS_H
#error "include <libreis_tools.h>, not <libreis/libreis_tool_ref.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * reis_exact_topk() - exact float top-k (ground truth).
 * @base: n * dim floats.
 * @n: base vectors.
 * @dim: dimensions (any).
 * @q: nq * dim floats.
 * @nq: queries.
 * @k: neighbours per query (<= n).
 * @metric: REIS_METRIC_IP (largest inner product) or REIS_METRIC_L2.
 * @ids: nq * k row numbers, best first, ties to the lower row.
 * @scores: nq * k inner products or squared distances, or NULL.
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
int reis_exact_topk(const float *base, uint64_t n, uint32_t dim, const float *q,
		    uint32_t nq, uint32_t k, uint32_t metric, uint32_t *ids,
		    float *scores);

/**
 * reis_hamming_knn() - exact k nearest binary codes by Hamming distance.
 * @base: n codes of @bytes bytes each, in entry order.
 * @n: codes, at least @k and at most UINT32_MAX.
 * @q: nq query codes of @bytes bytes.
 * @nq: queries.
 * @bytes: code length (dim / 8), any; a multiple of 8 runs 64 bits at a time.
 * @k: neighbours per query, 1..@n.
 * @ids: nq * k entry indices, nearest first, ties to the lower index.
 * @dist: nq * k Hamming distances.
 *
 * The binary half of the drive's search (and a FAISS IndexBinaryFlat
 * search) on the host, in the drive's order (Hamming, entry): the results
 * of a search with REIS_SF_NO_RERANK and without distance filtering on a
 * brute-force database, and the nearest centroid of an IVF assignment
 * (k = 1). POPCNT is used when the CPU has it.
 *
 * Return: 0, -EINVAL for bad arguments.
 */
int reis_hamming_knn(const uint8_t *base, uint64_t n, const uint8_t *q, uint32_t nq,
		     uint32_t bytes, uint32_t k, uint32_t *ids, uint32_t *dist);

/**
 * reis_recall() - recall@k of hits against ground truth.
 * @hits: nq * hits_stride hits (ids compared), padding allowed.
 * @hits_stride: hits per query in @hits (>= k).
 * @truth: nq * truth_stride exact neighbour ids, best first.
 * @truth_stride: ids per query in @truth (>= k).
 * @nq: queries.
 * @k: k.
 *
 * Return: the mean fraction of each query's true top-k among its first k
 * hits.
 */
double reis_recall(const struct reis_hit *hits, uint32_t hits_stride,
		   const uint32_t *truth, uint32_t truth_stride, uint32_t nq, uint32_t k);

/**
 * reis_ref_search() - the drive's search computed on the host.
 * @dbs: the images searched (a group: several, as the drive selects them).
 * @ndbs: their number.
 * @ivf: non-zero for IVF_SEARCH.
 * @o: options as sent to the drive.
 * @q: queries.
 * @res: out: nq * k hits with documents pointing into the images; free
 *       with reis_search_result_free().
 *
 * Follows command-set §4 step by step: tag filter, distance filter
 * (Hamming >= threshold dropped), IVF coarse search (the nprobe centroids
 * nearest by (Hamming, cluster)), the factor*k candidates first by
 * (Hamming, entry index), INT8 rerank, ordering by (score, Hamming, entry
 * index), padding. Tests compare the drive to it hit by hit.
 *
 * Return: 0, -EINVAL (what the drive would refuse), -ENOMEM.
 */
int reis_ref_search(const struct reis_db_image *const *dbs, unsigned ndbs, int ivf,
		    const struct reis_search_opts *o, const struct reis_queries *q,
		    struct reis_search_result *res);

/**
 * reis_ivf_calibrate() - measure recall@k per nprobe on held-out queries.
 * @img: a checked IVF image (codes, clusters, centroids; calib ignored).
 * @queries: nq * dim float queries (not part of the database).
 * @nq: their number.
 * @truth: nq * truth_stride exact neighbour ids (as the hits report them:
 *         caller ids or row numbers), best first.
 * @truth_stride: ids per query (>= k).
 * @k: recall@k (and search k).
 * @factor: rerank factor; 0: 10.
 * @out: up to @max points, strictly ascending in recall and nprobe.
 * @max: capacity of @out (REIS_DB_MAX_CALIB is plenty).
 *
 * Runs reis_ref_search() at nprobe = 1, 2, 3, 4, 6, 8, 12, 16, ... nlist
 * and keeps the points where recall strictly increased.
 *
 * Return: the number of points, or -EINVAL / -ENOMEM.
 */
int reis_ivf_calibrate(const struct reis_db_image *img, const float *queries,
		       uint32_t nq, const uint32_t *truth, uint32_t truth_stride,
		       uint32_t k, uint32_t factor, struct reis_calib *out, unsigned max);

/* Default quantile of reis_df_calibrate(): the largest distance (docs/reis.md §7). */
#define REIS_DF_QUANTILE_MAX 10000u
#define REIS_DF_DEFAULT_QUANTILE REIS_DF_QUANTILE_MAX

/**
 * struct reis_df_opts - distance-filter threshold calibration (REIS 4.3.3).
 * @k: hits per search the threshold is for (0: 10). One threshold serves
 *     every k up to this one (smaller k need fewer candidates).
 * @factor: rerank factor of those searches (0: 10): each query must keep
 *          its factor * k nearest entries.
 * @nprobe: IVF: clusters the searches probe (0: the image's calibration
 *          table at @target_recall); ignored for brute force. A threshold
 *          made for nprobe P also serves larger nprobe (more entries only
 *          bring nearer candidates), not smaller.
 * @target_recall: with @nprobe 0, in 1/10000 (0: 9500).
 * @quantile: which per-query distance sets the threshold, in 1/10000 of
 *            the queries (0: REIS_DF_DEFAULT_QUANTILE, the largest).
 * @rsvd: reserved, 0.
 */
struct reis_df_opts {
	uint32_t k;
	uint32_t factor;
	uint32_t nprobe;
	uint32_t target_recall;
	uint32_t quantile;
	uint32_t rsvd;
};

/**
 * struct reis_df_calib - what reis_df_calibrate() found.
 * @threshold: the DF threshold (entries at Hamming >= it stay in the die),
 *             for struct reis_db_image.df_threshold or a search's
 *             df_threshold; 0 when no threshold <= dim would filter.
 * @nprobe: clusters probed per query (0: brute force).
 * @cand: candidates each query keeps (factor * k).
 * @nq: calibration queries.
 * @d_min: smallest per-query distance of the cand-th nearest entry.
 * @d_median: median of them.
 * @d_max: largest of them.
 * @pass_frac: fraction of the searched entries (probed clusters) closer
 *             than @threshold, i.e. that cross the channel, over the
 *             calibration queries; 1 - @pass_frac is filtered in the dies.
 * @short_frac: fraction of the calibration queries left with fewer than
 *              @cand candidates by the threshold (0 with the max quantile).
 */
struct reis_df_calib {
	uint32_t threshold;
	uint32_t nprobe;
	uint32_t cand;
	uint32_t nq;
	uint32_t d_min;
	uint32_t d_median;
	uint32_t d_max;
	uint32_t rsvd;
	double pass_frac;
	double short_frac;
};

/**
 * reis_df_calibrate() - choose a distance-filtering threshold for a
 * database from calibration queries (REIS 4.3.3: one threshold per k
 * filters most entries in the dies and still keeps the top-k).
 * @img: a checked image (binary codes; IVF: centroids, clusters and, with
 *       nprobe 0, the calibration table).
 * @q: calibration queries: only @q->bin is used (held-out queries, encoded
 *     with the database's quantizer).
 * @o: options, or NULL for the defaults.
 * @out: the threshold and its statistics.
 *
 * For each query the drive's search is followed on the host: the nprobe
 * nearest centroids by (Hamming, cluster) for IVF, every entry for brute
 * force; d(q) is the Hamming distance of the (factor * k)-th nearest
 * searched entry. The threshold is quantile(d) + 1 (capped: 0 when above
 * dim). With the largest d every calibration query keeps exactly its
 * no-DF candidates, so its hits are the same with and without DF.
 *
 * Return: 0, -EINVAL for bad arguments (an IVF image without calibration
 * table and nprobe 0, dimension mismatch), -ENOMEM.
 */
int reis_df_calibrate(const struct reis_db_image *img, const struct reis_queries *q,
		      const struct reis_df_opts *o, struct reis_df_calib *out);

#ifdef __cplusplus
}
#endif

#endif /* LIBREIS_TOOL_REF_H */
