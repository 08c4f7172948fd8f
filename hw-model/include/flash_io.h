/* SPDX-License-Identifier: MIT */
/*
 * flash_io.h - the small I/O layer under the flash store and the metadata:
 * positional reads and writes on a file descriptor or on a sparse in-memory
 * image, with crash injection for tests, and the CRC32C both use.
 *
 * Every write of the flash store (flash_pages.c, flash_region.c) and of
 * flash_meta.c goes through fio_pwrite(), so
 * a test can arm fio_fail_after() and "crash" the process after exactly N
 * more bytes have reached the medium: the write in progress is cut at that
 * byte and every later write, sync, truncate or punch fails with -EIO, as if
 * the process had died. Reads keep working so the test can inspect, clone
 * (fio_mem_clone()) and reopen the image.
 *
 * Thread-safe: one mutex per object guards the in-memory image and the
 * crash bookkeeping; pread/pwrite on a descriptor are atomic per call.
 */
#ifndef FLASH_IO_H
#define FLASH_IO_H

#include <stddef.h>
#include <stdint.h>

struct fio;

/**
 * fio_open_fd() - wrap descriptor @fd (opened read-write).
 * @own: close @fd in fio_close().
 * Return: 0 or -ENOMEM.
 */
int fio_open_fd(int fd, int own, struct fio **out);

/**
 * fio_open_mem() - an empty sparse in-memory image (64 KiB chunks allocated
 * on first write).
 * Return: 0 or -ENOMEM.
 */
int fio_open_mem(struct fio **out);

/**
 * fio_mem_clone() - copy of an in-memory image (crash state included in the
 * bytes, not in the crash flag: the clone is writable).
 * Return: 0, -EINVAL if @src is not in memory, -ENOMEM.
 */
int fio_mem_clone(struct fio *src, struct fio **out);

/**
 * fio_fd() - the descriptor behind @io, for a read-only mapping of the
 * file; -1 for an in-memory image.
 */
int fio_fd(const struct fio *io);

/** fio_close() - release @io (NULL is a no-op). */
void fio_close(struct fio *io);

/**
 * fio_pread() - read @len bytes at @off. Bytes past the end of the file or
 * image read as zero (sparse semantics).
 * Return: 0 or -errno.
 */
int fio_pread(struct fio *io, void *buf, size_t len, uint64_t off);

/**
 * fio_pwrite() - write all @len bytes at @off.
 * Return: 0, -EIO after a (simulated) crash, or -errno.
 */
int fio_pwrite(struct fio *io, const void *buf, size_t len, uint64_t off);

/** fio_sync() - make earlier writes durable (fdatasync). Return: 0/-errno. */
int fio_sync(struct fio *io);

/** fio_size() - current size in bytes. Return: 0/-errno. */
int fio_size(struct fio *io, uint64_t *size);

/** fio_truncate() - set the size (sparse when growing). Return: 0/-errno. */
int fio_truncate(struct fio *io, uint64_t size);

/**
 * fio_punch() - let [@off, @off + @len) read as zero again and release its
 * space where the medium supports it (FALLOC_FL_PUNCH_HOLE; otherwise zeros
 * are written). Return: 0/-errno.
 */
int fio_punch(struct fio *io, uint64_t off, uint64_t len);

/**
 * fio_next_data() - first offset >= @off that may hold data (SEEK_DATA on a
 * file, the next allocated chunk in memory; @off itself when the file system
 * cannot tell).
 * Return: 0 with *@data set, -ENXIO when only holes follow, or -errno.
 */
int fio_next_data(struct fio *io, uint64_t off, uint64_t *data);

/**
 * fio_fail_after() - crash after @nbytes more bytes are written
 * (UINT64_MAX disarms). Test hook.
 */
void fio_fail_after(struct fio *io, uint64_t nbytes);

/** fio_crashed() - whether the simulated crash has happened. */
int fio_crashed(struct fio *io);

/** fio_written() - bytes written through @io since it was opened. */
uint64_t fio_written(struct fio *io);

/** fio_mem_bytes() - host memory held by an in-memory image (0 for files). */
uint64_t fio_mem_bytes(struct fio *io);

/**
 * fio_crc32c() - CRC-32C (Castagnoli) of @buf, continuing from @crc
 * (start with 0).
 */
uint32_t fio_crc32c(uint32_t crc, const void *buf, size_t len);

#endif /* FLASH_IO_H */
