/* SPDX-License-Identifier: MIT */
/*
 * libreis/libreis_reis_meta.h - host metadata stored with a REIS database (META
 * section, docs/command-set.md §4): the REISMET1 codec, reading it back, the
 * stored quantizer.
 * Included by libreis.h; conventions are libreis.h's (docs/libreis.md).
 */
#ifndef LIBREIS_REIS_META_H
#define LIBREIS_REIS_META_H

#ifndef LIBREIS_H
#error "include <libreis.h>, not <libreis/libreis_reis_meta.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

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
/* Record REIS_META_RECALL: struct reis_recall_est entries (32 bytes each,
 * little-endian u32 fields), at most REIS_MAX_RECALL_EST. */
#define REIS_META_RECALL 2u

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
 * reis_meta_encode_recall() - reis_meta_encode() plus a REIS_META_RECALL
 * record of @n recall estimates (none when @n is 0).
 * @quant: quantizer.
 * @est: the estimates.
 * @n: their number, at most REIS_MAX_RECALL_EST.
 * @blob: out: malloc'd blob.
 * @len: out: its length.
 *
 * Return: 0, -EINVAL (malformed quantizer, too many or malformed
 * estimates), -ENOMEM.
 */
int reis_meta_encode_recall(const struct reis_quant *quant, const struct reis_recall_est *est,
			    unsigned n, void **blob, uint64_t *len);

/**
 * reis_meta_recall() - the recall estimates of a META blob.
 * @blob: the META section's bytes (checked as reis_meta_decode() does).
 * @len: their number.
 * @out: up to @max estimates.
 * @max: room in @out.
 *
 * Return: the number of estimates (0 when the blob has none), or -EBADMSG.
 */
int reis_meta_recall(const void *blob, uint64_t len, struct reis_recall_est *out,
		     unsigned max);

/**
 * reis_db_recall() - the recall estimates stored with a database.
 * @dev: handle.
 * @did: database.
 * @out: up to @max estimates.
 * @max: room in @out.
 *
 * Return: their number (0: the database carries none, e.g. deployed by a
 * build without REIS_BUILD_ESTIMATE or without META), -EBADMSG, or the
 * -errno of DB_INFO / REIS_META_READ.
 */
int reis_db_recall(struct reis_dev *dev, uint32_t did, struct reis_recall_est *out,
		   unsigned max);

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

#ifdef __cplusplus
}
#endif

#endif /* LIBREIS_REIS_META_H */
