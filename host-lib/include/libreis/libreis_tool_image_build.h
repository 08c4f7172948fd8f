/* SPDX-License-Identifier: MIT */
/*
 * libreis/libreis_tool_image_build.h - building a database image from float
 * vectors (quantize, IVF train and lay out, calibrate) and packing its
 * documents.
 * Included by libreis_tools.h; conventions are libreis.h's (docs/libreis.md).
 */
#ifndef LIBREIS_TOOL_IMAGE_BUILD_H
#define LIBREIS_TOOL_IMAGE_BUILD_H

#ifndef LIBREIS_TOOLS_H
#error "include <libreis_tools.h>, not <libreis/libreis_tool_image_build.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * reis_docs_pack() - build a DOCS section from concatenated documents.
 * @blob: the documents' bytes, back to back.
 * @offsets: n + 1 ascending offsets; document i is [offsets[i],
 *           offsets[i+1]) (the corpus' docs.bin/docs.idx layout).
 * @order: n row numbers giving the entry order (IVF), or NULL for 0..n-1.
 * @n: documents.
 * @out: the section, malloc'd.
 * @out_len: its length.
 *
 * Return: 0, -EINVAL for offsets that are not ascending, -ENOMEM.
 */
int reis_docs_pack(const uint8_t *blob, const uint64_t *offsets, const uint64_t *order,
		   uint64_t n, uint8_t **out, uint64_t *out_len);

/* reis_build_opts.flags */
#define REIS_BUILD_INT8 (1u << 0)		/* INT8 codes for reranking */
#define REIS_BUILD_CENTER (1u << 1)		/* center before quantizing */
#define REIS_BUILD_CENTROID_MAJORITY (1u << 2)	/* IVF: majority-bit centroids */
#define REIS_BUILD_NO_IDS (1u << 3)		/* IVF: omit the row-number ids */
/* measure the recall of the search modes (struct reis_recall_est, in
 * img->recall; the deploy stores them in META) */
#define REIS_BUILD_ESTIMATE (1u << 4)
/* IVF without calib_queries: no recall -> nprobe table (by default the
 * table is measured on held-out rows of the database) */
#define REIS_BUILD_NO_CALIB (1u << 5)

/**
 * struct reis_build_opts - how reis_db_build() makes an image.
 * @did: database id.
 * @kind: REIS_DB_BF or REIS_DB_IVF.
 * @metric: enum reis_metric (the corpus: REIS_METRIC_IP).
 * @flags: REIS_BUILD_* flags.
 * @nlist: IVF clusters (0: about sqrt(n)).
 * @doc_mode: enum reis_doc_mode; 0 with documents: sub-pages when every
 *            document fits in 4 KiB, else pages.
 * @df_threshold: database's default DF threshold; 0: none.
 * @group: time-partition group; 0: none.
 * @timestamp: partition time.
 * @name: label (up to REIS_DB_NAME_LEN bytes), or NULL.
 * @km: k-means settings (nlist is taken from @nlist).
 * @tags: n tags in row order, or NULL.
 * @ids: n caller ids in row order, or NULL (IVF then sends row numbers).
 * @docs: documents' bytes back to back in row order, or NULL.
 * @doc_offsets: n + 1 offsets into @docs.
 * @calib_queries: held-out float queries for IVF calibration, or NULL.
 * @ncalib_queries: their number.
 * @calib_truth: ncalib_queries * @calib_truth_k exact neighbours (row
 *               numbers, best first), or NULL to compute them here.
 * @calib_truth_k: stride of @calib_truth (>= @calib_k).
 * @calib_k: k of the recall@k that is calibrated (0: 10).
 * @calib_factor: rerank factor used for calibration (0: 10).
 * @progress: called with a stage name and a fraction (may be NULL).
 * @progress_arg: its argument.
 */
struct reis_build_opts {
	uint32_t did;
	uint32_t kind;
	uint32_t metric;
	uint32_t flags;
	uint32_t nlist;
	uint32_t doc_mode;
	uint32_t df_threshold;
	uint32_t group;
	uint64_t timestamp;
	const char *name;
	struct reis_kmeans_opts km;
	const uint32_t *tags;
	const uint64_t *ids;
	const uint8_t *docs;
	const uint64_t *doc_offsets;
	const float *calib_queries;
	uint32_t ncalib_queries;
	uint32_t calib_truth_k;
	const uint32_t *calib_truth;
	uint32_t calib_k;
	uint32_t calib_factor;
	void (*progress)(void *arg, const char *stage, double frac);
	void *progress_arg;
};

/**
 * reis_db_build() - train, quantize and lay out float vectors as an image.
 * @o: settings.
 * @x: n * dim floats in row order.
 * @n: rows.
 * @dim: a multiple of 64.
 * @img: the image, out; reis_db_image_free() releases it. Its @quant is the
 *       quantizer trained here.
 * @err: reason on failure.
 * @errlen: size of @err.
 *
 * BF keeps row order. IVF trains k-means (seeded), orders entries by
 * cluster (rows ascending inside a cluster), makes binary centroids (signs
 * of the centered float centroids, or majority bits), sends row numbers as
 * ids unless caller ids are given, and calibrates recall->nprobe on the
 * held-out queries with reis_ivf_calibrate().
 *
 * Return: 0, -EINVAL (reason in @err), -ENOMEM.
 */
int reis_db_build(const struct reis_build_opts *o, const float *x, uint64_t n,
		  uint32_t dim, struct reis_db_image *img, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* LIBREIS_TOOL_IMAGE_BUILD_H */
