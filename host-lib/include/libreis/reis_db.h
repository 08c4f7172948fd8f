/* SPDX-License-Identifier: MIT */
/*
 * libreis/reis_db.h - REIS in the drive (docs/command-set.md section 4):
 * deploy databases, list/inspect/delete them, search (brute force and IVF,
 * synchronous or many in flight), read results, documents and timelines;
 * plus the host-side tools a user would otherwise write (SPEC H3): vector
 * file readers, k-means IVF training, binary and INT8 quantization,
 * recall->nprobe calibration, exact float top-k, and a reference of the
 * drive's search for tests. Included by libreis.h; do not include directly.
 *
 * docs/reis.md is the user guide. Conventions are libreis.h's: 0 (or a
 * count) or -errno; the NVMe status of a failed drive command is in
 * reis_last_cpl() and a sentence in reis_last_error(). The host tools take
 * an error buffer instead of a handle.
 */
#ifndef LIBREIS_REIS_DB_H
#define LIBREIS_REIS_DB_H

#ifndef LIBREIS_H
#error "include <libreis.h>, not <libreis/reis_db.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------- */
/* Wire values (docs/command-set.md §4, §6), pinned inside the library     */
/* ---------------------------------------------------------------------- */

/**
 * enum reis_db_opcode - REIS and result opcodes.
 * @REIS_OP_TRACE_ARM: ISP_TRACE_ARM, no data.
 * @REIS_OP_DB_CREATE: REIS_DB_CREATE, H2C 160 bytes.
 * @REIS_OP_DB_LIST: REIS_DB_LIST, C2H.
 * @REIS_OP_DB_WRITE: REIS_DB_WRITE, H2C one chunk of one section.
 * @REIS_OP_DB_INFO: REIS_DB_INFO, C2H 320 bytes.
 * @REIS_OP_DB_COMMIT: REIS_DB_COMMIT, no data.
 * @REIS_OP_SEARCH: REIS_SEARCH (brute force), H2C.
 * @REIS_OP_META_READ: REIS_META_READ, C2H bytes of a database's META section.
 * @REIS_OP_DB_DELETE: REIS_DB_DELETE, no data.
 * @REIS_OP_IVF_SEARCH: REIS_IVF_SEARCH, H2C.
 * @REIS_OP_DOC_READ: REIS_DOC_READ, C2H.
 *
 * The shared result opcodes (A2h RESULT_READ, A4h RESULT_RELEASE) are
 * reis_result_read() and reis_result_release() here.
 */
enum reis_db_opcode {
	REIS_OP_TRACE_ARM = 0x8c,
	REIS_OP_DB_CREATE = 0x91,
	REIS_OP_DB_LIST = 0x92,
	REIS_OP_DB_WRITE = 0x95,
	REIS_OP_DB_INFO = 0x96,
	REIS_OP_DB_COMMIT = 0x98,
	REIS_OP_SEARCH = 0x99,
	REIS_OP_META_READ = 0x9a,
	REIS_OP_DB_DELETE = 0x9c,
	REIS_OP_IVF_SEARCH = 0x9d,
	REIS_OP_DOC_READ = 0xa6,
};

/* Limits the drive checks every command against. */
#define REIS_DB_MIN_DIM 64u		/* a multiple of 64 */
#define REIS_DB_MAX_DIM 8192u
#define REIS_DB_MAX_NLIST 1048576u
#define REIS_DB_MAX_CALIB 256u
#define REIS_MAX_NQ 1024u		/* queries per SEARCH command */
#define REIS_MAX_K 1024u
#define REIS_MAX_RERANK 64u		/* rerank factor; 0 means 10 */
#define REIS_DEFAULT_RERANK 10u		/* REIS 4.3.2: 10 * k candidates */
#define REIS_DB_NAME_LEN 32u
#define REIS_DB_MAX_META (1u << 20)	/* META section bytes */
#define REIS_HIT_NONE UINT64_MAX	/* hit padding: fewer than k hits */

/**
 * enum reis_db_kind - REIS Table 1: DB_Deploy or IVF_Deploy.
 * @REIS_DB_BF: brute force.
 * @REIS_DB_IVF: inverted file (clusters, centroids, calibration).
 */
enum reis_db_kind {
	REIS_DB_BF = 1,
	REIS_DB_IVF = 2,
};

/**
 * enum reis_metric - what the drive's INT8 rerank score is.
 * @REIS_METRIC_IP: sum q[d]*x[d] over the INT8 codes; higher is better.
 * @REIS_METRIC_L2: sum (q[d]-x[d])^2 over the INT8 codes; lower is better.
 */
enum reis_metric {
	REIS_METRIC_IP = 0,
	REIS_METRIC_L2 = 1,
};

/**
 * enum reis_doc_mode - where a document chunk lives (REIS 4.1.1).
 * @REIS_DOC_NONE: no documents.
 * @REIS_DOC_SUBPAGE: one sub-page per document.
 * @REIS_DOC_PAGE: one page per document.
 */
enum reis_doc_mode {
	REIS_DOC_NONE = 0,
	REIS_DOC_SUBPAGE = 1,
	REIS_DOC_PAGE = 2,
};

/* Database flags (struct reis_db_image.flags, struct reis_db_info.flags). */
#define REIS_DBF_INT8 (1u << 0)		/* INT8 codes: rerank possible */
#define REIS_DBF_TAGS (1u << 1)		/* a u32 tag per entry (REIS 7.1) */
#define REIS_DBF_IDS (1u << 2)		/* a u64 caller id per entry */

/* Search flags (struct reis_search_opts.flags). */
#define REIS_SF_NO_DF (1u << 0)		/* distance filtering off (REIS Fig. 9) */
#define REIS_SF_NO_PL (1u << 1)		/* pipelining off */
#define REIS_SF_NO_MPIBC (1u << 2)	/* multi-plane input broadcast off */
#define REIS_SF_NO_RERANK (1u << 3)	/* binary distances only */
#define REIS_SF_TAG (1u << 4)		/* only entries whose tag == tag */
#define REIS_SF_GROUP (1u << 5)		/* did names a time-partition group */
#define REIS_SF_DOCS (1u << 6)		/* the result carries the documents */
#define REIS_SF_ALL 0x7fu

/**
 * enum reis_db_section - DB_WRITE sections, each streamed in order.
 * @REIS_SEC_BIN: n * dim/8 sign-bit codes, entry order.
 * @REIS_SEC_INT8: n * dim INT8 codes (REIS_DBF_INT8).
 * @REIS_SEC_DOCS: n records {u32 length, bytes}, entry order.
 * @REIS_SEC_TAGS: n u32 tags (REIS_DBF_TAGS).
 * @REIS_SEC_IDS: n u64 caller ids (REIS_DBF_IDS).
 * @REIS_SEC_CENTROIDS: nlist * dim/8 binary centroids (IVF).
 * @REIS_SEC_CLUSTERS: nlist u32 cluster sizes (IVF), summing to n.
 * @REIS_SEC_CALIB: ncalib struct reis_calib (IVF).
 * @REIS_SEC_META: host metadata (libreis writes the quantizer there, see
 *                 reis_db_quantizer()); read back with REIS_META_READ.
 * @REIS_NSECTIONS: one past the last section.
 */
enum reis_db_section {
	REIS_SEC_BIN = 1,
	REIS_SEC_INT8 = 2,
	REIS_SEC_DOCS = 3,
	REIS_SEC_TAGS = 4,
	REIS_SEC_IDS = 5,
	REIS_SEC_CENTROIDS = 6,
	REIS_SEC_CLUSTERS = 7,
	REIS_SEC_CALIB = 8,
	REIS_SEC_META = 9,
	REIS_NSECTIONS = 10,
};

/**
 * struct reis_calib - one recall -> nprobe calibration point.
 * @recall: recall@k reached, in 1/10000; strictly ascending in a table.
 * @nprobe: clusters probed; strictly ascending in a table.
 *
 * Same layout as the wire's struct isp_wire_reis_calib.
 */
struct reis_calib {
	uint32_t recall;
	uint32_t nprobe;
};

/* ---------------------------------------------------------------------- */
/* Vector files (.fvecs .bvecs .ivecs .npy)                                */
/* ---------------------------------------------------------------------- */

/**
 * enum reis_vec_type - element type of a vector set.
 * @REIS_VEC_F32: float32.
 * @REIS_VEC_I8: int8.
 * @REIS_VEC_U8: uint8 (.bvecs).
 * @REIS_VEC_I32: int32 (.ivecs: ground-truth ids).
 */
enum reis_vec_type {
	REIS_VEC_F32 = 1,
	REIS_VEC_I8 = 2,
	REIS_VEC_U8 = 3,
	REIS_VEC_I32 = 4,
};

/* Bounds of what the readers accept. */
#define REIS_VEC_MAX_DIM 65536u
#define REIS_VEC_MAX_BYTES (UINT64_C(1) << 36)	/* 64 GiB of elements */

/**
 * struct reis_vecs - n vectors of dim elements, row-major (C order).
 * @n: vectors.
 * @dim: elements per vector.
 * @type: enum reis_vec_type.
 * @rsvd: reserved.
 * @data: n * dim elements, malloc'd; reis_vecs_free() releases it.
 */
struct reis_vecs {
	uint64_t n;
	uint32_t dim;
	uint32_t type;
	uint64_t rsvd;
	void *data;
};

/**
 * reis_vecs_load() - read a vector file.
 * @path: .fvecs, .bvecs, .ivecs (per vector: int32 dim, then dim elements)
 *        or .npy (format version 1 or 2, C order, 1-D or 2-D, dtype <f4,
 *        |i1, |u1 or <i4); the suffix chooses the format.
 * @out: filled on success.
 * @err: reason on failure ("file.fvecs: vector 12 has dim 100, not 128").
 * @errlen: size of @err.
 *
 * Every header and length is bounded (REIS_VEC_MAX_DIM, REIS_VEC_MAX_BYTES,
 * the file size): truncated, inconsistent or unsupported files are refused.
 *
 * Return: 0, -ENOENT/-EACCES... from open, -EINVAL for a malformed file or
 * an unknown suffix, -ENOMEM.
 */
int reis_vecs_load(const char *path, struct reis_vecs *out, char *err, size_t errlen);

/**
 * reis_vecs_parse() - parse a vector file already in memory.
 * @buf: the file's bytes.
 * @len: their number.
 * @format: "fvecs", "bvecs", "ivecs" or "npy".
 * @out: filled on success (data is a new copy).
 * @err: reason on failure.
 * @errlen: size of @err.
 *
 * Return: 0, -EINVAL for a malformed buffer, -ENOMEM.
 */
int reis_vecs_parse(const void *buf, size_t len, const char *format,
		    struct reis_vecs *out, char *err, size_t errlen);

/**
 * reis_vecs_to_f32() - convert a set to float32 in place.
 * @v: set of any type.
 *
 * Return: 0 or -ENOMEM.
 */
int reis_vecs_to_f32(struct reis_vecs *v);

/**
 * reis_vecs_free() - free the data of @v (NULL-safe) and zero it.
 * @v: set.
 */
void reis_vecs_free(struct reis_vecs *v);

/**
 * reis_fvecs_write() - write float vectors as .fvecs.
 * @path: destination (replaced).
 * @x: n * dim floats.
 * @n: vectors.
 * @dim: dimensions.
 *
 * Return: 0 or -errno.
 */
int reis_fvecs_write(const char *path, const float *x, uint64_t n, uint32_t dim);

/* ---------------------------------------------------------------------- */
/* Quantization                                                            */
/* ---------------------------------------------------------------------- */

/* reis_quant.flags */
#define REIS_QUANT_CENTER (1u << 0)	/* subtract the training mean first */

/**
 * struct reis_quant - how float vectors become the drive's codes.
 * @dim: dimensions, a multiple of 64.
 * @metric: enum reis_metric the INT8 codes serve.
 * @flags: REIS_QUANT_* flags.
 * @rsvd: reserved.
 * @mean: @dim floats subtracted from every vector before coding (zeros
 *        without REIS_QUANT_CENTER).
 * @scale: @dim INT8 step sizes s[d] > 0.
 *
 * With c = x - mean (database vector) and p = q - mean (query):
 *  - binary code: bit d (byte d/8, bit d%8, LSB first) is 1 iff c[d] > 0,
 *    for database vectors and queries alike; Hamming distance approximates
 *    the angle between the centered vectors (sign random projection on the
 *    coordinate axes);
 *  - database INT8: x8[d] = clamp(round(c[d] / s[d]), -127, 127), with
 *    s[d] = max |c[d]| / 127 over the training set (per dimension); for
 *    REIS_METRIC_L2 every s[d] is the largest one, so the code space is an
 *    isotropic scaling of the float space;
 *  - query INT8, IP: q8[d] = round(q[d] * s[d] / t) with t = max_d |q[d]
 *    s[d]| / 127, so sum q8 x8 ~= <q, c> / t = (<q, x> - <q, mean>) / t: a
 *    per-query positive multiple of the float inner product minus a
 *    per-query constant, i.e. the same ranking as <q, x>;
 *  - query INT8, L2: q8[d] = clamp(round(p[d] / s), -127, 127), so
 *    sum (q8 - x8)^2 ~= |q - x|^2 / s^2.
 */
struct reis_quant {
	uint32_t dim;
	uint32_t metric;
	uint32_t flags;
	uint32_t rsvd;
	float *mean;
	float *scale;
};

/**
 * reis_quant_train() - fit a quantizer to float vectors.
 * @q: filled on success; reis_quant_free() releases it.
 * @x: n * dim floats.
 * @n: vectors (at least 1).
 * @dim: dimensions, a multiple of 64 in [REIS_DB_MIN_DIM, REIS_DB_MAX_DIM].
 * @metric: enum reis_metric.
 * @flags: REIS_QUANT_CENTER or 0. Centering helps data whose dimensions
 *         have large means; sentence embeddings are already centered enough:
 *         on the WordNet/USE corpus plain signs give brute-force recall@10
 *         0.979, centered 0.967 (docs/reis.md), so reis_db_build() does not
 *         center unless asked.
 *
 * Return: 0, -EINVAL for bad arguments or non-finite input, -ENOMEM.
 */
int reis_quant_train(struct reis_quant *q, const float *x, uint64_t n, uint32_t dim,
		     uint32_t metric, uint32_t flags);

/**
 * reis_quant_free() - free @q's arrays (NULL-safe) and zero it.
 * @q: quantizer.
 */
void reis_quant_free(struct reis_quant *q);

/**
 * reis_quant_binary() - binary (sign) codes of database vectors or queries.
 * @q: quantizer.
 * @x: n * q->dim floats.
 * @n: vectors.
 * @out: n * q->dim / 8 bytes.
 */
void reis_quant_binary(const struct reis_quant *q, const float *x, uint64_t n,
		       uint8_t *out);

/**
 * reis_quant_int8() - INT8 codes of database vectors.
 * @q: quantizer.
 * @x: n * q->dim floats.
 * @n: vectors.
 * @out: n * q->dim codes.
 */
void reis_quant_int8(const struct reis_quant *q, const float *x, uint64_t n,
		     int8_t *out);

/**
 * reis_quant_int8_query() - INT8 codes of queries (see struct reis_quant).
 * @q: quantizer.
 * @x: n * q->dim floats.
 * @n: queries.
 * @out: n * q->dim codes.
 */
void reis_quant_int8_query(const struct reis_quant *q, const float *x, uint64_t n,
			   int8_t *out);

/**
 * reis_binarize() - plain sign codes without a quantizer (bit = x[d] > 0).
 * @x: n * dim floats.
 * @n: vectors.
 * @dim: a multiple of 8.
 * @out: n * dim / 8 bytes.
 */
void reis_binarize(const float *x, uint64_t n, uint32_t dim, uint8_t *out);

/**
 * reis_quant_save() - write @q to a file ("REISQNT1" format, docs/reis.md).
 * @q: quantizer.
 * @path: destination (replaced).
 *
 * Return: 0 or -errno.
 */
int reis_quant_save(const struct reis_quant *q, const char *path);

/**
 * reis_quant_load() - read a quantizer file written by reis_quant_save().
 * @q: filled on success.
 * @path: file.
 * @err: reason on failure.
 * @errlen: size of @err.
 *
 * Return: 0, -EINVAL for a malformed file, -ENOMEM or -errno.
 */
int reis_quant_load(struct reis_quant *q, const char *path, char *err, size_t errlen);

/**
 * reis_hamming() - Hamming distance of two codes of @bytes bytes.
 * @a: code.
 * @b: code.
 * @bytes: a multiple of 8.
 *
 * Return: the number of differing bits.
 */
uint32_t reis_hamming(const uint8_t *a, const uint8_t *b, uint32_t bytes);

/* ---------------------------------------------------------------------- */
/* IVF training                                                            */
/* ---------------------------------------------------------------------- */

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
 * @rsvd: reserved.
 */
struct reis_kmeans_opts {
	uint32_t nlist;
	uint32_t max_iter;
	uint32_t init;
	uint32_t max_train_per_list;
	uint64_t seed;
	double tol;
	uint64_t rsvd[2];
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

/* ---------------------------------------------------------------------- */
/* Database images: what a deploy sends                                    */
/* ---------------------------------------------------------------------- */

#define REIS_IMAGE_MAX_EXTRA 4

/**
 * struct reis_db_image - one database as the drive receives it.
 * @did: database id, non-zero.
 * @kind: enum reis_db_kind.
 * @flags: REIS_DBF_* (which optional sections are present).
 * @dim: dimensions (bits of a binary code), a multiple of 64.
 * @n: entries.
 * @nlist: IVF clusters; 0 for brute force.
 * @ncalib: IVF calibration points in @calib.
 * @doc_mode: enum reis_doc_mode.
 * @metric: enum reis_metric.
 * @df_threshold: default distance-filter threshold (Hamming); 0: none.
 * @group: time-partition group (REIS 7.1); 0: none.
 * @rsvd0: reserved.
 * @timestamp: partition time, caller's unit.
 * @name: label, NUL-terminated.
 * @bin: n * dim/8 binary codes in entry order.
 * @int8: n * dim INT8 codes (REIS_DBF_INT8), else NULL.
 * @tags: n tags (REIS_DBF_TAGS), else NULL.
 * @ids: n caller ids (REIS_DBF_IDS), else NULL.
 * @docs: the DOCS section (n records {u32 length, bytes}) or NULL.
 * @docs_bytes: its length.
 * @doc_index: n + 1 offsets of the records in @docs (filled by
 *             reis_db_image_check()); NULL without documents.
 * @centroids: nlist * dim/8 binary centroids (IVF).
 * @cluster_sizes: nlist sizes, entries ordered by cluster (IVF).
 * @calib: ncalib points (IVF).
 * @quant: the quantizer that made the codes (kept in image files, and
 *         stored with the database by reis_db_deploy() in its META
 *         section, so queries can be encoded later); may be NULL.
 * @nextra: user sections in @extra (kept in image files only).
 * @extra: user sections: id >= 0x100, data, length.
 * @priv: library-owned memory of built or loaded images.
 *
 * Fill it by hand to deploy codes made elsewhere ("from memory"), or let
 * reis_db_build() make it from float vectors, or reis_db_image_load() read
 * it from an image file.
 */
struct reis_db_image {
	uint32_t did;
	uint32_t kind;
	uint32_t flags;
	uint32_t dim;
	uint64_t n;
	uint32_t nlist;
	uint32_t ncalib;
	uint32_t doc_mode;
	uint32_t metric;
	uint32_t df_threshold;
	uint32_t group;
	uint32_t rsvd0;
	uint64_t timestamp;
	char name[REIS_DB_NAME_LEN + 1];
	const uint8_t *bin;
	const int8_t *int8;
	const uint32_t *tags;
	const uint64_t *ids;
	const uint8_t *docs;
	uint64_t docs_bytes;
	const uint64_t *doc_index;
	const uint8_t *centroids;
	const uint32_t *cluster_sizes;
	const struct reis_calib *calib;
	const struct reis_quant *quant;
	unsigned nextra;
	struct {
		uint32_t id;
		uint32_t rsvd;
		const void *data;
		uint64_t len;
	} extra[REIS_IMAGE_MAX_EXTRA];
	void *priv;
};

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

/**
 * reis_db_image_check() - validate an image before it is sent or searched.
 * @img: image; doc_index is built here when missing (library-owned).
 * @err: reason on failure.
 * @errlen: size of @err.
 *
 * Checks what DB_CREATE/DB_COMMIT check (dimension, sizes, flags, cluster
 * sizes sum, calibration ascending) and parses the DOCS records, so a bad
 * image is refused on the host with a clear message.
 *
 * Return: 0, -EINVAL (or -EBADMSG for a malformed DOCS section), -ENOMEM.
 */
int reis_db_image_check(struct reis_db_image *img, char *err, size_t errlen);

/**
 * reis_db_image_doc() - document of entry @i of a checked image.
 * @img: image.
 * @i: entry index.
 * @len: its length, out.
 *
 * Return: pointer into @img->docs, or NULL without documents.
 */
const uint8_t *reis_db_image_doc(const struct reis_db_image *img, uint64_t i,
				 uint32_t *len);

/* reis_build_opts.flags */
#define REIS_BUILD_INT8 (1u << 0)		/* INT8 codes for reranking */
#define REIS_BUILD_CENTER (1u << 1)		/* center before quantizing */
#define REIS_BUILD_CENTROID_MAJORITY (1u << 2)	/* IVF: majority-bit centroids */
#define REIS_BUILD_NO_IDS (1u << 3)		/* IVF: omit the row-number ids */

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

/**
 * reis_db_image_free() - free what the library allocated for @img.
 * @img: image (NULL-safe); zeroed.
 */
void reis_db_image_free(struct reis_db_image *img);

/**
 * reis_db_image_write() - write @img as an image file to @fd at its offset.
 * @img: a checked image.
 * @fd: file or block device open for writing.
 *
 * Format "REISIMG1" (docs/reis.md): header with a checksum, section table,
 * sections, the quantizer and the user sections; 4 KiB aligned total.
 *
 * Return: bytes written, or -errno.
 */
int64_t reis_db_image_write(const struct reis_db_image *img, int fd);

/**
 * reis_db_image_save() - reis_db_image_write() to a new file @path.
 * @img: image.
 * @path: destination (replaced).
 *
 * Return: 0 or -errno.
 */
int reis_db_image_save(const struct reis_db_image *img, const char *path);

/**
 * reis_db_image_read() - read an image file from @fd at byte @off.
 * @fd: file or block device (e.g. /dev/nvme0n1 holding a bundle).
 * @off: where the image starts.
 * @img: the image, out; reis_db_image_free() releases it.
 * @err: reason on failure.
 * @errlen: size of @err.
 *
 * Everything is bounded and checked (magic, sizes, checksum, then
 * reis_db_image_check()).
 *
 * Return: 0, -ENOMSG when there is no image at @off, -EINVAL/-EBADMSG for a
 * malformed one, -ENOMEM or -errno.
 */
int reis_db_image_read(int fd, uint64_t off, struct reis_db_image *img, char *err,
		       size_t errlen);

/**
 * reis_db_image_load() - reis_db_image_read() of the file @path.
 * @path: image file.
 * @img: out.
 * @err: reason on failure.
 * @errlen: size of @err.
 *
 * Return: as reis_db_image_read().
 */
int reis_db_image_load(const char *path, struct reis_db_image *img, char *err,
		       size_t errlen);

/**
 * reis_db_image_extra() - find user section @id of an image.
 * @img: image.
 * @id: section id (>= 0x100).
 * @len: its length, out.
 *
 * Return: its data, or NULL.
 */
const void *reis_db_image_extra(const struct reis_db_image *img, uint32_t id,
				uint64_t *len);

/* ---------------------------------------------------------------------- */
/* Deploy, list, info, delete, documents                                   */
/* ---------------------------------------------------------------------- */

/**
 * typedef reis_progress_fn - deploy progress.
 * @arg: reis_deploy_opts.arg.
 * @done: bytes acknowledged by the drive.
 * @total: bytes to send.
 */
typedef void (*reis_progress_fn)(void *arg, uint64_t done, uint64_t total);

/**
 * struct reis_deploy_opts - deploy settings.
 * @progress: called after every completed chunk (and once at 0), in the
 *            calling thread; may be NULL.
 * @arg: its argument.
 * @chunk: bytes per DB_WRITE (multiple of 4); 0: reis_max_xfer().
 * @depth: sections streamed at once (each in order, one command in flight
 *         per section, as command-set §4 requires); 0: all.
 * @keep_on_error: do not DB_DELETE a failed deploy (for tests).
 * @flags: REIS_DEPLOY_* flags.
 */
struct reis_deploy_opts {
	reis_progress_fn progress;
	void *arg;
	uint32_t chunk;
	uint32_t depth;
	uint32_t keep_on_error;
	uint32_t flags;
};

/* reis_deploy_opts.flags */
#define REIS_DEPLOY_NO_META (1u << 0)	/* do not store the quantizer in META */

/**
 * reis_db_deploy() - DB_CREATE, stream every section, DB_COMMIT.
 * @dev: handle.
 * @img: image; checked with reis_db_image_check() first.
 * @o: settings, or NULL.
 *
 * DB_Deploy / IVF_Deploy of REIS Table 1. When @img has a quantizer and
 * the drive has REIS_CAP_REIS_META (and REIS_DEPLOY_NO_META is not set),
 * the quantizer goes into the database's META section (reis_meta_encode()),
 * so any host can encode queries later with reis_db_quantizer(). On any
 * failure after DB_CREATE the half-deployed database is deleted (DB_DELETE
 * aborts a deploy); the failing command's completion stays in
 * reis_last_cpl() and its sentence in reis_last_error().
 *
 * Return: 0; -EINVAL for a bad image or a quantizer whose dimension or
 * metric differs from the image's (nothing sent); the drive's -errno:
 * -EEXIST (did in use), -ENOSPC (capacity), -ERANGE (bad offset),
 * -ENODATA (incomplete), -EBADMSG (bad payload), -EINVAL (bad field) ...
 */
int reis_db_deploy(struct reis_dev *dev, struct reis_db_image *img,
		   const struct reis_deploy_opts *o);

/**
 * reis_db_deploy_file() - deploy the image file @path.
 * @dev: handle.
 * @path: image file (reis_db_image_save()).
 * @did: database id to use; 0: the one in the file.
 * @o: settings, or NULL.
 *
 * Return: as reis_db_deploy(), or the reader's -errno (reason in
 * reis_last_error()).
 */
int reis_db_deploy_file(struct reis_dev *dev, const char *path, uint32_t did,
			const struct reis_deploy_opts *o);

/**
 * reis_db_create() - issue DB_CREATE for @img's header only.
 * @dev: handle.
 * @img: image (only the header fields are used; meta_bytes is 0).
 *
 * The building block of reis_db_deploy(); for tests of bad input.
 *
 * Return: 0 or -errno.
 */
int reis_db_create(struct reis_dev *dev, const struct reis_db_image *img);

/**
 * reis_db_write() - issue one DB_WRITE.
 * @dev: handle.
 * @did: database.
 * @section: enum reis_db_section.
 * @off: byte offset in the section.
 * @data: bytes.
 * @len: a multiple of 4, at most reis_max_xfer().
 *
 * Return: 0 or -errno.
 */
int reis_db_write(struct reis_dev *dev, uint32_t did, uint32_t section, uint64_t off,
		  const void *data, uint32_t len);

/**
 * reis_db_commit() - issue DB_COMMIT.
 * @dev: handle.
 * @did: database.
 *
 * Return: 0 or -errno.
 */
int reis_db_commit(struct reis_dev *dev, uint32_t did);

/**
 * reis_db_delete() - delete a database or abort its deploy (DB_DELETE).
 * @dev: handle.
 * @did: database.
 *
 * Return: 0, -ENOENT (unknown), -EBUSY (searches in flight), or -errno.
 */
int reis_db_delete(struct reis_dev *dev, uint32_t did);

/**
 * struct reis_db_info - DB_INFO / DB_LIST entry, decoded and bounded.
 * @did: database id.
 * @kind: enum reis_db_kind.
 * @flags: REIS_DBF_*.
 * @dim: dimensions.
 * @n: entries.
 * @nlist: IVF clusters.
 * @ncalib: calibration points.
 * @doc_mode: enum reis_doc_mode.
 * @metric: enum reis_metric.
 * @df_threshold: default DF threshold.
 * @group: time-partition group.
 * @state: REIS_DB_DEPLOYING or REIS_DB_READY.
 * @timestamp: partition time.
 * @docs_bytes: DOCS section length.
 * @name: label, NUL-terminated, printable ASCII.
 * @epb: embeddings per SLC page.
 * @meta_bytes: META section length (0: none; reis_db_quantizer()).
 * @rsvd: reserved.
 * @received: bytes received per section (index enum reis_db_section).
 * @pages: pages used: binary, centroid, INT8, document.
 * @dram_bytes: R-DB + R-IVF + calibration in controller DRAM.
 * @searches: queries answered.
 */
struct reis_db_info {
	uint32_t did;
	uint32_t kind;
	uint32_t flags;
	uint32_t dim;
	uint64_t n;
	uint32_t nlist;
	uint32_t ncalib;
	uint32_t doc_mode;
	uint32_t metric;
	uint32_t df_threshold;
	uint32_t group;
	uint32_t state;
	uint32_t epb;
	uint32_t meta_bytes;
	uint32_t rsvd;
	uint64_t timestamp;
	uint64_t docs_bytes;
	char name[REIS_DB_NAME_LEN + 1];
	uint64_t received[REIS_NSECTIONS];
	uint64_t pages[4];
	uint64_t dram_bytes;
	uint64_t searches;
};

#define REIS_DB_DEPLOYING 1u
#define REIS_DB_READY 2u

/**
 * reis_db_info() - issue DB_INFO.
 * @dev: handle.
 * @did: database.
 * @info: filled on success.
 *
 * Return: 0, -ENOENT for an unknown did, -EPROTO for a malformed answer,
 * or -errno.
 */
int reis_db_info(struct reis_dev *dev, uint32_t did, struct reis_db_info *info);

/**
 * reis_db_list() - list the databases (DB_LIST, paged).
 * @dev: handle.
 * @out: array for the entries (may be NULL when @max is 0).
 * @max: its length.
 *
 * Return: the number of databases on the drive (may exceed @max; only
 * @max are filled), or -errno.
 */
int reis_db_list(struct reis_dev *dev, struct reis_db_info *out, unsigned max);

/**
 * reis_doc_read() - read one document (DOC_READ).
 * @dev: handle.
 * @did: database.
 * @index: entry index (IVF: position in cluster order); a hit's
 *         struct reis_hit.entry.
 * @buf: destination.
 * @len: its size.
 *
 * Return: the document's length (copied up to @len bytes), -ENOENT,
 * -EINVAL, -EPROTO for a malformed answer, or -errno.
 */
int reis_doc_read(struct reis_dev *dev, uint32_t did, uint64_t index, void *buf,
		  uint32_t len);

/* ---------------------------------------------------------------------- */
/* Host metadata stored with a database (META section)                     */
/* ---------------------------------------------------------------------- */

/*
 * The drive keeps a database's META section as opaque bytes (at most
 * REIS_DB_MAX_META) in its TLC region. libreis fills it at deploy with a
 * "REISMET1" blob (docs/reis.md §4): a 32-byte header (magic, version,
 * record count, total length, FNV-1a 64 checksum of the records) and
 * records {u32 type, u32 reserved, u64 length, bytes padded to 8}. Record
 * REIS_META_QUANT holds the quantizer exactly as a "REISQNT1" file does.
 * Unknown record types are skipped by readers, so the format can grow.
 */
#define REIS_META_QUANT 1u

/**
 * reis_meta_encode() - the META blob libreis deploys for a quantizer.
 * @quant: quantizer (dim, metric, flags, means and steps).
 * @blob: out: malloc'd blob.
 * @len: out: its length (a multiple of 8, <= REIS_DB_MAX_META).
 *
 * Return: 0, -EINVAL for a malformed quantizer, -ENOMEM.
 */
int reis_meta_encode(const struct reis_quant *quant, void **blob, uint64_t *len);

/**
 * reis_meta_decode() - parse and check a META blob, extract its quantizer.
 * @blob: the META section's bytes.
 * @len: their number.
 * @dim: the database's dimension (0: do not check).
 * @metric: the database's metric (checked when @dim is not 0).
 * @quant: out: the quantizer; reis_quant_free() releases it.
 * @err: reason on failure.
 * @errlen: size of @err.
 *
 * Everything is bounded and checked: magic, version, lengths, checksum,
 * record bounds, the quantizer's header, checksum and values (finite
 * means, finite positive steps), its dimension and metric against the
 * database's.
 *
 * Return: 0, -EBADMSG for a malformed or mismatching blob, -ENODATA when
 * it holds no quantizer record, -ENOMEM.
 */
int reis_meta_decode(const void *blob, uint64_t len, uint32_t dim, uint32_t metric,
		     struct reis_quant *quant, char *err, size_t errlen);

/**
 * reis_db_meta_read() - one REIS_META_READ.
 * @dev: handle.
 * @did: database.
 * @off: byte offset in the META section (below its length).
 * @buf: destination.
 * @len: a multiple of 4, at most reis_max_xfer(); bytes past the end of
 *       the section read as zero.
 *
 * Return: 0, -ENOENT unknown did, -EBUSY deploying, -EINVAL no META
 * section (or a bad argument), -ERANGE offset at or past its end, -errno.
 */
int reis_db_meta_read(struct reis_dev *dev, uint32_t did, uint64_t off, void *buf,
		      uint32_t len);

/**
 * reis_db_meta_fetch() - read a database's whole META section.
 * @dev: handle.
 * @did: database.
 * @blob: out: malloc'd bytes.
 * @len: out: their number (DB_INFO's meta_bytes).
 *
 * Return: 0, -ENODATA when the database has no META section, or the
 * -errno of DB_INFO / REIS_META_READ.
 */
int reis_db_meta_fetch(struct reis_dev *dev, uint32_t did, void **blob, uint64_t *len);

/**
 * reis_db_quantizer() - the quantizer a database was deployed with, read
 * from the drive alone.
 * @dev: handle.
 * @did: database.
 * @quant: out: reis_quant_free() releases it.
 *
 * DB_INFO, the META section (REIS_META_READ), reis_meta_decode() against
 * the database's dimension and metric: a host that did not deploy the
 * database (another process, another boot) encodes its queries with it.
 *
 * Return: 0; -ENODATA when the database carries no quantizer (deployed
 * without one, with REIS_DEPLOY_NO_META, or by a drive without META);
 * -EBADMSG for a malformed META section; -ENOENT, -EBUSY, -errno as the
 * commands.
 */
int reis_db_quantizer(struct reis_dev *dev, uint32_t did, struct reis_quant *quant);

/* ---------------------------------------------------------------------- */
/* Search                                                                  */
/* ---------------------------------------------------------------------- */

/**
 * struct reis_search_opts - one Search / IVF_Search.
 * @did: database, or group with REIS_SF_GROUP.
 * @k: hits per query, 1..REIS_MAX_K (and at most the database's n).
 * @flags: REIS_SF_* flags.
 * @rerank_factor: candidates = factor * k, 1..REIS_MAX_RERANK; 0: 10.
 * @df_threshold: Hamming DF threshold; 0: the database's.
 * @nprobe: IVF clusters to probe; 0: from @target_recall.
 * @target_recall: IVF target recall R in 1/10000 (when @nprobe is 0).
 * @tag: with REIS_SF_TAG.
 * @t_min: with REIS_SF_GROUP: partitions with timestamp in [t_min, t_max].
 * @t_max: see @t_min.
 */
struct reis_search_opts {
	uint32_t did;
	uint32_t k;
	uint32_t flags;
	uint32_t rerank_factor;
	uint32_t df_threshold;
	uint32_t nprobe;
	uint32_t target_recall;
	uint32_t tag;
	uint64_t t_min;
	uint64_t t_max;
};

/**
 * struct reis_queries - a batch of encoded queries.
 * @nq: queries.
 * @dim: dimensions (must equal the database's).
 * @bin: nq * dim/8 binary codes.
 * @int8: nq * dim INT8 codes; required unless REIS_SF_NO_RERANK.
 */
struct reis_queries {
	uint32_t nq;
	uint32_t dim;
	const uint8_t *bin;
	const int8_t *int8;
};

/**
 * struct reis_hit - one hit, decoded and bounded.
 * @id: caller id (REIS_DBF_IDS) or entry index; REIS_HIT_NONE for padding.
 * @did: database of the hit.
 * @hamming: binary distance to the query.
 * @score: INT8 rerank score (0 with REIS_SF_NO_RERANK).
 * @doc: its document inside the result (with REIS_SF_DOCS), else NULL.
 * @doc_len: its length.
 * @entry: its entry index in database @did (IVF: position in cluster
 *         order), always filled, also when @id is a caller id: what
 *         reis_doc_read() takes.
 */
struct reis_hit {
	uint64_t id;
	uint32_t did;
	uint32_t hamming;
	int64_t score;
	const uint8_t *doc;
	uint32_t doc_len;
	uint32_t entry;
};

/**
 * struct reis_search_result - a finished search.
 * @nq: queries.
 * @k: hits per query.
 * @flags: the search's flags.
 * @ndbs: databases searched (groups).
 * @nprobe: IVF clusters probed per query.
 * @ncmds: commands it took (searches + result reads + releases).
 * @pages_read: embedding and centroid pages sensed.
 * @entries_compared: distances computed in the dies.
 * @entries_passed: entries that crossed the channel (after DF).
 * @reranked: INT8 candidates rescored.
 * @docs_bytes: documents in the result.
 * @search_ns: modeled time of the SEARCH command(s) (summed over batches).
 * @search_nj: modeled energy of the SEARCH command(s).
 * @read_ns: modeled time of the result reads (documents from flash).
 * @read_nj: modeled energy of the result reads.
 * @host_ns: host wall time from submission to the last byte.
 * @nhits: per query, the hits before padding.
 * @hits: nq * k hits, query-major, best first; padding has id REIS_HIT_NONE.
 * @priv: library-owned memory (the result blobs the documents point into).
 */
struct reis_search_result {
	uint32_t nq;
	uint32_t k;
	uint32_t flags;
	uint32_t ndbs;
	uint32_t nprobe;
	uint32_t ncmds;
	uint64_t pages_read;
	uint64_t entries_compared;
	uint64_t entries_passed;
	uint64_t reranked;
	uint64_t docs_bytes;
	uint64_t search_ns;
	uint64_t search_nj;
	uint64_t read_ns;
	uint64_t read_nj;
	uint64_t host_ns;
	uint32_t *nhits;
	struct reis_hit *hits;
	void *priv;
};

/**
 * reis_search_result_free() - free a result (NULL-safe) and zero it.
 * @res: result.
 */
void reis_search_result_free(struct reis_search_result *res);

/**
 * reis_search_max_nq() - queries one SEARCH command can carry.
 * @dev: handle: its max_xfer bounds the payload, the drive's
 *       max_result_bytes the result (with REIS_SF_DOCS the drive reserves
 *       a page per hit).
 * @dim: dimensions.
 * @k: hits per query.
 * @flags: search flags (REIS_SF_NO_RERANK drops the INT8 queries,
 *         REIS_SF_DOCS adds documents to the result).
 *
 * Return: 1..REIS_MAX_NQ, or 0 if not even one query fits.
 */
uint32_t reis_search_max_nq(const struct reis_dev *dev, uint32_t dim, uint32_t k,
			    uint32_t flags);

/**
 * reis_search() - brute-force Search(Q, Qid, Did, k), synchronous.
 * @dev: handle.
 * @o: options.
 * @q: queries, any number (split into commands of reis_search_max_nq()
 *     queries, several in flight).
 * @res: the result, out; free with reis_search_result_free().
 *
 * Each command takes a random ticket; a ticket collision (ISP Ticket In
 * Use, 0x07C9) is retried with a new one (ISP Busy is not: it is the
 * database's state), and ISP Resource Busy is retried after the other
 * in-flight commands of this call finished (a bounded number of times).
 *
 * Return: 0; -EINVAL for bad options (nothing sent); the drive's -errno:
 * -ENOENT unknown did, -EDOM dimension mismatch, -EBUSY deploying, -EINVAL
 * bad k or field, -EAGAIN result memory full; -EPROTO for a malformed
 * result.
 */
int reis_search(struct reis_dev *dev, const struct reis_search_opts *o,
		const struct reis_queries *q, struct reis_search_result *res);

/**
 * reis_ivf_search() - IVF_Search(Q, Qid, Did, k, R), synchronous.
 * @dev: handle.
 * @o: options (nprobe, or target_recall with nprobe 0).
 * @q: queries.
 * @res: out.
 *
 * Return: as reis_search().
 */
int reis_ivf_search(struct reis_dev *dev, const struct reis_search_opts *o,
		    const struct reis_queries *q, struct reis_search_result *res);

struct reis_search_req;

/**
 * typedef reis_search_cb - completion of an asynchronous search.
 * @sr: the request; sr->err is 0 and sr->res is filled, or sr->err < 0.
 * @arg: its argument.
 *
 * Runs in the reaping thread (reis_wait()/reis_poll()), once. It may
 * submit (also @sr again, after taking sr->res) but not wait.
 */
typedef void (*reis_search_cb)(struct reis_search_req *sr, void *arg);

/**
 * struct reis_search_req - one asynchronous search command and its result
 * transfer: caller memory that must stay put while in flight.
 * @req: the command currently in flight (SEARCH, then RESULT_READs).
 * @res: the result once done (the caller owns it then).
 * @cpl: completion of the failing command when @err < 0.
 * @err: 0 or the -errno of the search.
 * @state: library-private.
 * @ticket: the ticket the drive files the result under.
 * @opcode: REIS_OP_SEARCH or REIS_OP_IVF_SEARCH.
 * @retries: ticket collisions retried.
 * @cb: completion callback.
 * @cb_arg: its argument.
 * @payload: library-private: the command's data.
 * @payload_len: library-private.
 * @blob: library-private: the result as read so far.
 * @blob_len: library-private.
 * @blob_cap: library-private.
 * @read_off: library-private.
 * @total: library-private: the result's length.
 * @submit_ns: library-private.
 * @dev: library-private: the handle it runs on.
 * @msg: a sentence about the failure when @err < 0.
 */
struct reis_search_req {
	struct reis_req req;
	struct reis_search_result res;
	struct reis_cpl cpl;
	int32_t err;
	uint32_t state;
	uint32_t ticket;
	uint32_t opcode;
	uint32_t retries;
	uint32_t payload_len;
	reis_search_cb cb;
	void *cb_arg;
	uint8_t *payload;
	uint8_t *blob;
	uint64_t blob_len;
	uint64_t blob_cap;
	uint64_t read_off;
	uint64_t total;
	uint64_t submit_ns;
	struct reis_dev *dev;
	char msg[160];
};

/**
 * reis_search_submit() - start one search command without waiting.
 * @dev: handle.
 * @sr: request (caller memory, zeroed before its first use; reusable once
 *      done, after taking sr->res).
 * @opcode: REIS_OP_SEARCH or REIS_OP_IVF_SEARCH.
 * @o: options.
 * @q: at most reis_search_max_nq() queries.
 * @cb: called when the result is read (or the search failed); may be NULL.
 * @arg: its argument.
 *
 * The queries are copied. The search, the result reads and the release
 * happen as completions are reaped with reis_wait()/reis_poll() on @dev;
 * one command of @sr is in flight at a time, so many searches can be.
 *
 * Return: 0; -EINVAL for bad options (nothing sent); -EBUSY when the
 * handle's queue is full (reap, then retry); -ENOMEM.
 */
int reis_search_submit(struct reis_dev *dev, struct reis_search_req *sr, uint8_t opcode,
		       const struct reis_search_opts *o, const struct reis_queries *q,
		       reis_search_cb cb, void *arg);

/**
 * reis_search_req_done() - whether @sr has finished (successfully or not).
 * @sr: request.
 *
 * Return: non-zero when done.
 */
int reis_search_req_done(const struct reis_search_req *sr);

/**
 * reis_search_wait() - reap until @sr has finished.
 * @dev: handle.
 * @sr: a submitted request.
 *
 * Return: sr->err.
 */
int reis_search_wait(struct reis_dev *dev, struct reis_search_req *sr);

/**
 * reis_search_result_decode() - decode a search result blob.
 * @blob: the blob (the result header first); must stay alive while @res
 *        is used (documents point into it).
 * @len: bytes.
 * @nq: queries expected.
 * @k: k expected.
 * @res: filled on success (nhits and hits are malloc'd; free with
 *       reis_search_result_free(), which does not free @blob).
 *
 * Every count, offset and length is checked against @len.
 *
 * Return: 0, -EPROTO for a malformed blob, -ENOMEM.
 */
int reis_search_result_decode(const void *blob, uint64_t len, uint32_t nq, uint32_t k,
			      struct reis_search_result *res);

/* ---------------------------------------------------------------------- */
/* Results and timelines (command-set §3.5, §6)                            */
/* ---------------------------------------------------------------------- */

/**
 * reis_ticket_new() - a random non-zero ticket (getrandom).
 *
 * Thread-safe.
 *
 * Return: the ticket.
 */
uint32_t reis_ticket_new(void);

/**
 * reis_result_read() - one RESULT_READ.
 * @dev: handle.
 * @ticket: ticket.
 * @off: byte offset in the result.
 * @buf: destination.
 * @len: a multiple of 4, at most reis_max_xfer().
 * @release: release the result after this read.
 *
 * Return: 0, -ENOENT unknown ticket, -EBUSY not ready, -ERANGE offset past
 * the end, or -errno.
 */
int reis_result_read(struct reis_dev *dev, uint32_t ticket, uint64_t off, void *buf,
		     uint32_t len, int release);

/**
 * reis_result_release() - RESULT_RELEASE.
 * @dev: handle.
 * @ticket: ticket.
 *
 * Return: 0, -ENOENT, or -errno.
 */
int reis_result_release(struct reis_dev *dev, uint32_t ticket);

/**
 * reis_result_fetch() - read a whole result in chunks and release it.
 * @dev: handle.
 * @ticket: ticket.
 * @kind: expected result kind (1 search, 2 SLS, 3 trace), or 0: any.
 * @blob: out: the malloc'd result, header included.
 * @len: out: its length.
 *
 * Return: 0, -EPROTO for a malformed header or another kind, or -errno.
 */
int reis_result_fetch(struct reis_dev *dev, uint32_t ticket, uint32_t kind,
		      void **blob, uint64_t *len);

/**
 * reis_trace_arm() - ISP_TRACE_ARM: trace the next matching command.
 * @dev: handle.
 * @ticket: the ticket its Perfetto JSON is published under.
 * @opcode: opcode filter; 0: the next command of any kind.
 *
 * Read the trace with reis_result_fetch(dev, ticket, 3, ...); the JSON
 * follows the 64-byte result header.
 *
 * Return: 0, -EBUSY when a trace is already armed, -EADDRINUSE when
 * @ticket holds another command's result, or -errno.
 */
int reis_trace_arm(struct reis_dev *dev, uint32_t ticket, uint8_t opcode);

/* ---------------------------------------------------------------------- */
/* Ground truth, reference search, calibration                             */
/* ---------------------------------------------------------------------- */

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

/**
 * reis_encode_queries() - binary and INT8 codes of float queries.
 * @quant: the database's quantizer.
 * @x: nq * quant->dim floats.
 * @nq: queries.
 * @q: out; q->bin and q->int8 are malloc'd (free with
 *     reis_queries_free()).
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
int reis_encode_queries(const struct reis_quant *quant, const float *x, uint32_t nq,
			struct reis_queries *q);

/**
 * reis_queries_free() - free codes made by reis_encode_queries().
 * @q: queries (NULL-safe); zeroed.
 */
void reis_queries_free(struct reis_queries *q);

#ifdef __cplusplus
}
#endif

#endif /* LIBREIS_REIS_DB_H */
