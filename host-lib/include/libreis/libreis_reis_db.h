/* SPDX-License-Identifier: MIT */
/*
 * libreis/libreis_reis_db.h - REIS databases in the drive: deploy, create / write
 * / commit / delete, list, info, documents (docs/command-set.md §4).
 * Included by libreis.h; conventions are libreis.h's (docs/libreis.md).
 */
#ifndef LIBREIS_REIS_DB_H
#define LIBREIS_REIS_DB_H

#ifndef LIBREIS_H
#error "include <libreis.h>, not <libreis/libreis_reis_db.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

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
 * @best_recall: IVF: the largest recall of the calibration table (1/10000;
 *               0: none), the most a target recall can reach.
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
	uint32_t best_recall;
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

#ifdef __cplusplus
}
#endif

#endif /* LIBREIS_REIS_DB_H */
