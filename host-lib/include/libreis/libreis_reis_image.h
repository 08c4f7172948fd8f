/* SPDX-License-Identifier: MIT */
/*
 * libreis/libreis_reis_image.h - a REIS database image: the sections a deploy
 * sends (REIS §4.2, docs/command-set.md §4), the quantizer stored with it,
 * checks and image files ("REISIMG1").
 * Included by libreis.h; conventions are libreis.h's (docs/libreis.md).
 */
#ifndef LIBREIS_REIS_IMAGE_H
#define LIBREIS_REIS_IMAGE_H

#ifndef LIBREIS_H
#error "include <libreis.h>, not <libreis/libreis_reis_image.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

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
 * reis_quant_free() - free @q's arrays (NULL-safe) and zero it.
 * @q: quantizer.
 */
void reis_quant_free(struct reis_quant *q);

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
	/* recall estimates (reis_db_build() with REIS_BUILD_ESTIMATE); the
	 * deploy stores them in META next to the quantizer */
	const struct reis_recall_est *recall;
	uint32_t nrecall;
};

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

#ifdef __cplusplus
}
#endif

#endif /* LIBREIS_REIS_IMAGE_H */
