/* SPDX-License-Identifier: MIT */
/*
 * flash_meta.h - crash-consistent metadata: a superblock and one opaque blob
 * (the engines' serialized tables: REIS R-DB/R-IVF, RecFlash maps, the
 * store's region table) replaced atomically by each commit.
 *
 * Layout: two slots at @base and @base + fm_slot_bytes(max_blob). A slot is a
 * 64-byte superblock (magic, sequence number, blob length, CRC-32C of the
 * blob, CRC-32C of the superblock) followed by the blob. A commit writes the
 * slot not holding the current state: blob first, sync, superblock last,
 * sync. Opening picks the valid slot with the higher sequence number, so a
 * commit cut at any byte leaves either the old or the new state.
 *
 * Thread-safe: commits and reads are serialized by a mutex.
 */
#ifndef FLASH_META_H
#define FLASH_META_H

#include <stddef.h>
#include <stdint.h>

struct fio;
struct fm;

#define FM_HDR_BYTES 64
#define FM_MAX_BLOB_DEFAULT (64ull << 20)	/* 64 MiB */
#define FM_MAX_BLOB_LIMIT (1ull << 32)		/* 4 GiB */

struct fm_iov {
	const void *base;
	size_t len;
};

/**
 * fm_slot_bytes() - bytes one slot occupies for blobs up to @max_blob
 * (superblock + blob, rounded up to 4 KiB). The area is 2 * that.
 */
uint64_t fm_slot_bytes(uint64_t max_blob);

/**
 * fm_open() - read the metadata area of @io at @base.
 * @max_blob: largest blob a commit may write (1 .. FM_MAX_BLOB_LIMIT).
 * @flags: FM_NOSYNC to skip fdatasync (tests on throw-away files).
 * @err: on failure, a readable reason.
 *
 * Never writes. An area that was never written (or whose only commit was
 * cut) opens empty: fm_seq() = 0, fm_blob_len() = 0.
 *
 * Return: 0; -EIO when both slots hold damaged superblocks (corruption, not
 * a torn commit) or on read errors; -EINVAL for bad arguments; -ENOMEM.
 */
int fm_open(struct fio *io, uint64_t base, uint64_t max_blob, unsigned flags,
	    struct fm **out, char *err, size_t errlen);

#define FM_NOSYNC 1u

/** fm_close() - free @fm (NULL is a no-op). The fio stays the caller's. */
void fm_close(struct fm *fm);

/**
 * fm_commit() - atomically replace the blob with @len bytes at @blob.
 * Return: 0; -EFBIG when @len > max_blob; -EIO (or -errno) when the write
 * failed, in which case the previous state stays current.
 */
int fm_commit(struct fm *fm, const void *blob, size_t len);

/** fm_commitv() - as fm_commit() with the blob gathered from @n pieces. */
int fm_commitv(struct fm *fm, const struct fm_iov *iov, unsigned n);

/** fm_seq() - sequence number of the current state (0: never committed). */
uint64_t fm_seq(struct fm *fm);

/** fm_blob_len() - length of the current blob. */
uint64_t fm_blob_len(struct fm *fm);

/** fm_max_blob() - the @max_blob given to fm_open(). */
uint64_t fm_max_blob(struct fm *fm);

/**
 * fm_read() - copy up to @cap bytes of the current blob into @buf, checking
 * its CRC again.
 * @len: set to the blob's full length.
 * Return: 0; -ENOSPC when @cap < blob length (nothing copied, @len set);
 * -EIO on read error or CRC mismatch.
 */
int fm_read(struct fm *fm, void *buf, size_t cap, size_t *len);

#endif /* FLASH_META_H */
