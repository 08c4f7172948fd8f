/* SPDX-License-Identifier: MIT */
/*
 * flash_store.c - the flash store object (docs/timing-model.md "Storage and
 * metadata"): open in memory, on a backing file or a caller's I/O object,
 * close, the metadata commit carrying the region table, statistics.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flash_store_int.h"

/* ---- open / create ---- */

static int fs_load_meta(struct fs *fs, char *err, size_t errlen)
{
	uint64_t blen = fm_blob_len(fs->meta);
	size_t len, used = 0;
	uint8_t *blob;
	int ret;

	if (blen == 0)
		return 0;
	blob = malloc((size_t)blen);
	if (!blob)
		return -ENOMEM;
	ret = fm_read(fs->meta, blob, (size_t)blen, &len);
	if (ret) {
		snprintf(err, errlen, "metadata unreadable: %s", strerror(-ret));
		free(blob);
		return ret;
	}
	ret = fs_regions_parse(fs, blob, len, &used);
	if (ret) {
		snprintf(err, errlen, "metadata region table corrupt");
		free(blob);
		return -EIO;
	}
	if (used < len) {
		memmove(blob, blob + used, len - used);
		fs->user_blob = blob;
		fs->user_len = len - used;
	} else {
		free(blob);
	}
	return 0;
}

/* A new (or empty) file: nothing to lose, lay it out as @want. */
static int fs_image_format(struct fs *fs, const char *path, int created,
			   const struct fs_hdr *want, char *err, size_t errlen)
{
	int ret;

	ret = fio_truncate(fs->io, want->file_bytes);
	if (ret) {
		snprintf(err, errlen, "backing file %s: cannot size it to %" PRIu64
			 " bytes (sparse): %s", path, want->file_bytes, strerror(-ret));
		if (created && path)
			unlink(path);
		return ret == -EINVAL ? -EFBIG : ret;
	}
	ret = fio_pwrite(fs->io, want, sizeof(*want), 0);
	if (!ret && !(fs->flags & FS_NOSYNC))
		ret = fio_sync(fs->io);
	if (ret) {
		snprintf(err, errlen, "backing file %s: %s", path, strerror(-ret));
		return ret;
	}
	return 0;
}

/* An existing image: its header must be ours, intact, and of @want's
 * geometry; its layout goes into @fs and *@have. */
static int fs_image_check(struct fs *fs, const char *path, uint64_t size,
			  struct fs_hdr *want, struct fs_hdr *have, char *err, size_t errlen)
{
	int ret;

	if (size < sizeof(*have)) {
		snprintf(err, errlen, "backing file %s is truncated (%" PRIu64
			 " bytes, not even a header)", path, size);
		return -EIO;
	}
	ret = fio_pread(fs->io, have, sizeof(*have), 0);
	if (ret) {
		snprintf(err, errlen, "backing file %s: %s", path, strerror(-ret));
		return ret;
	}
	if (memcmp(have->magic, FS_MAGIC, 8)) {
		snprintf(err, errlen, "backing file %s is not an ISP flash "
			 "image (bad magic); refusing to overwrite it", path);
		return -EINVAL;
	}
	if (have->version != FS_VERSION || have->hdr_bytes != sizeof(*have)) {
		snprintf(err, errlen, "backing file %s has format version %u, "
			 "this build reads %u", path, have->version, FS_VERSION);
		return -EINVAL;
	}
	if (have->crc != fio_crc32c(0, have, offsetof(struct fs_hdr, crc))) {
		snprintf(err, errlen, "backing file %s: header checksum "
			 "mismatch (corrupt)", path);
		return -EIO;
	}
	ret = fs_check_geom(have, want, path, err, errlen);
	if (ret)
		return ret;
	/* Layout of this file (metadata size fixed at creation). */
	if (have->meta_max == 0 || have->meta_max > FM_MAX_BLOB_LIMIT) {
		snprintf(err, errlen, "backing file %s: bad metadata size", path);
		return -EIO;
	}
	fs_layout(fs, have->meta_max, want);
	if (want->state_off != have->state_off || want->data_off != have->data_off ||
	    want->file_bytes != have->file_bytes || want->meta_off != have->meta_off) {
		snprintf(err, errlen, "backing file %s: inconsistent layout "
			 "(corrupt header)", path);
		return -EIO;
	}
	if (size < have->file_bytes) {
		snprintf(err, errlen, "backing file %s is truncated: %" PRIu64
			 " bytes, expected %" PRIu64, path, size, have->file_bytes);
		return -EIO;
	}
	return 0;
}

/*
 * Open the image behind fs->io (a backing file or a caller's fio). @path
 * names it in messages; @created: remove the file again if it cannot be
 * laid out.
 */
static int fs_open_image(struct fs *fs, const char *path, int created, uint64_t meta_max,
			 char *err, size_t errlen)
{
	struct fs_hdr want, have;
	uint64_t size;
	int ret;

	fs_layout(fs, meta_max, &want);
	ret = fio_size(fs->io, &size);
	if (ret) {
		snprintf(err, errlen, "backing file %s: %s", path, strerror(-ret));
		return ret;
	}
	if (size == 0) {
		ret = fs_image_format(fs, path, created, &want, err, errlen);
		have = want;
	} else {
		ret = fs_image_check(fs, path, size, &want, &have, err, errlen);
	}
	if (ret)
		return ret;
	fs->meta_io = fs->io;
	ret = fm_open(fs->io, fs->meta_off, have.meta_max,
		      (fs->flags & FS_NOSYNC) ? FM_NOSYNC : 0, &fs->meta, err, errlen);
	if (ret)
		return ret;
	ret = fs_load_records(fs);
	if (ret) {
		snprintf(err, errlen, "backing file %s: cannot read page state: %s",
			 path, strerror(-ret));
		return ret;
	}
	ret = fs_map_file(fs);
	if (ret)
		return ret;
	return fs_load_meta(fs, err, errlen);
}

static int fs_open_file(struct fs *fs, const char *path, uint64_t meta_max,
			char *err, size_t errlen)
{
	struct stat st;
	int fd, ret, created = 0;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		created = 1;
	}
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "backing file %s: %s", path, strerror(-ret));
		return ret;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ret = errno == EWOULDBLOCK ? -EBUSY : -errno;
		snprintf(err, errlen, "backing file %s is in use by another process", path);
		close(fd);
		return ret;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "backing file %s is not a regular file", path);
		close(fd);
		return -EINVAL;
	}
	ret = fio_open_fd(fd, 1, &fs->io);
	if (ret) {
		close(fd);
		return ret;
	}
	fs->own_io = 1;
	return fs_open_image(fs, path, created, meta_max, err, errlen);
}

int fs_open(const struct fs_config *cfg, struct fs **out, char *err, size_t errlen)
{
	char dummy[8];
	uint64_t meta_max;
	struct fs *fs;
	int ret;

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = '\0';
	if (!cfg || !out || !cfg->params) {
		snprintf(err, errlen, "flash store: missing parameters");
		return -EINVAL;
	}
	ret = fp_validate(cfg->params, err, errlen);
	if (ret)
		return ret;
	meta_max = cfg->meta_max ? cfg->meta_max : FM_MAX_BLOB_DEFAULT;
	if (meta_max > FM_MAX_BLOB_LIMIT) {
		snprintf(err, errlen, "metadata size %" PRIu64 " above the limit %llu",
			 meta_max, (unsigned long long)FM_MAX_BLOB_LIMIT);
		return -EINVAL;
	}
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	fs->p = *cfg->params;
	fs->flags = cfg->flags;
	if (!fs->p.mem_cap || !fs->p.buf_budget) {
		/* a store on its own (tools, tests): its shares of host_mem */
		struct isp_host_mem hm;

		ret = fp_host_plan(&fs->p, cfg->path || cfg->io,
				   fs_fixed_bytes(&fs->p, cfg->path || cfg->io, meta_max), &hm,
				   err, errlen);
		if (ret) {
			free(fs);
			return ret;
		}
	}
	fg_init(&fs->g, &fs->p);
	fs->next_id = 1;
	pthread_rwlock_init(&fs->lock, NULL);
	pthread_mutex_init(&fs->commit_lock, NULL);
	pthread_mutex_init(&fs->dram_lock, NULL);
	ret = isp_budget_init(&fs->budget, fs->p.buf_budget);
	if (ret) {
		fs_close(fs);
		return ret;
	}
	fs->slot = fs->g.page_bytes + fs->g.oob_bytes;
	fs->ff = malloc(fs->slot);
	if (!fs->ff) {
		fs_close(fs);
		return -ENOMEM;
	}
	memset(fs->ff, 0xff, fs->slot);
	fs->mem_bytes += fs->slot;

	if (cfg->io) {
		fs->io = cfg->io;
		ret = fs_open_image(fs, cfg->path ? cfg->path : "(I/O object)", 0, meta_max,
				    err, errlen);
	} else if (cfg->path) {
		ret = fs_open_file(fs, cfg->path, meta_max, err, errlen);
	} else {
		struct fs_hdr h;

		fs_layout(fs, meta_max, &h);
		ret = fio_open_mem(&fs->meta_io);
		if (!ret)
			ret = fm_open(fs->meta_io, 0, meta_max, FM_NOSYNC, &fs->meta,
				      err, errlen);
	}
	if (ret) {
		fs_close(fs);
		return ret;
	}
	*out = fs;
	return 0;
}

void fs_close(struct fs *fs)
{
	size_t i;

	if (!fs)
		return;
	if (fs->io && !(fs->flags & FS_NOSYNC))
		fio_sync(fs->io);
	for (i = 0; i < fs->cap; i++) {
		if (!fs->keys[i])
			continue;
		fs_blk_unmap(fs, fs->vals[i]);
		free(fs->vals[i]);
	}
	free(fs->keys);
	free(fs->vals);
	free(fs->reg);
	free(fs->pend);
	free(fs->user_blob);
	fm_close(fs->meta);
	fs_unmap_file(fs);
	free(fs->ff);
	if (fs->meta_io != fs->io)
		fio_close(fs->meta_io);
	if (fs->own_io)
		fio_close(fs->io);
	pthread_rwlock_destroy(&fs->lock);
	pthread_mutex_destroy(&fs->commit_lock);
	pthread_mutex_destroy(&fs->dram_lock);
	isp_budget_destroy(&fs->budget);
	free(fs);
}

const struct fg_geom *fs_geom(const struct fs *fs)
{
	return &fs->g;
}

uint32_t fs_slot_bytes(const struct fs *fs)
{
	return fs->slot;
}

/* ---- metadata ---- */

int fs_commitv(struct fs *fs, const struct fm_iov *iov, unsigned n)
{
	struct fm_iov *all;
	uint8_t *sec;
	uint64_t gen;
	size_t secsz, i, k;
	int ret;

	if (!fs || (n && !iov) || n > 1024)
		return -EINVAL;
	all = calloc(n + 1, sizeof(*all));
	if (!all)
		return -ENOMEM;
	pthread_mutex_lock(&fs->commit_lock);
	/* Pages the new metadata points at must be durable first. */
	if (!(fs->flags & FS_NOSYNC)) {
		ret = fs_sync(fs);
		if (ret)
			goto out_unlock;
	}
	/* write lock: the encoding marks every region as seen by a snapshot */
	pthread_rwlock_wrlock(&fs->lock);
	secsz = fs_regions_size(fs);
	sec = malloc(secsz);
	if (sec)
		fs_regions_encode(fs, sec);
	gen = fs->gen;
	pthread_rwlock_unlock(&fs->lock);
	if (!sec) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	all[0].base = sec;
	all[0].len = secsz;
	for (i = 0; i < n; i++)
		all[i + 1] = iov[i];
	ret = fm_commitv(fs->meta, all, n + 1);
	free(sec);
	if (!ret) {
		/* Extents freed before the snapshot are now free on the medium too. */
		pthread_rwlock_wrlock(&fs->lock);
		for (i = 0, k = 0; i < fs->npend; i++)
			if (fs->pend[i].gen > gen)
				fs->pend[k++] = fs->pend[i];
			else
				fs_rows_drop(fs, &fs->pend[i]);
		fs->npend = k;
		pthread_rwlock_unlock(&fs->lock);
	}
out_unlock:
	pthread_mutex_unlock(&fs->commit_lock);
	free(all);
	return ret;
}

void fs_user_blob(struct fs *fs, const void **blob, size_t *len)
{
	pthread_mutex_lock(&fs->commit_lock);
	*blob = fs->user_blob;
	*len = fs->user_len;
	pthread_mutex_unlock(&fs->commit_lock);
}

void fs_user_blob_free(struct fs *fs)
{
	pthread_mutex_lock(&fs->commit_lock);
	free(fs->user_blob);
	fs->user_blob = NULL;
	fs->user_len = 0;
	pthread_mutex_unlock(&fs->commit_lock);
}

uint64_t fs_meta_seq(struct fs *fs)
{
	return fm_seq(fs->meta);
}

uint64_t fs_fixed_bytes(const struct fp_params *p, int backing, uint64_t meta_max)
{
	uint64_t blocks = (uint64_t)p->channels * p->dies_per_channel * p->planes_per_die *
			  p->blocks_per_plane;
	uint64_t bm = fs_align((p->pages_per_block + 7) / 8, 8);
	uint64_t meta = meta_max ? meta_max : FM_MAX_BLOB_DEFAULT;

	/* a block's record and bitmaps, two hash slots (load <= 1/2) of key
	 * and pointer */
	return blocks * (sizeof(struct fs_blk) + 2 * bm + 2 * (sizeof(uint64_t) + sizeof(void *))) +
	       (uint64_t)FS_MAX_REGIONS * (sizeof(struct fs_region) + sizeof(struct fs_pending)) +
	       (backing ? 1 : 3) * meta;
}

struct isp_budget *fs_buf_budget(struct fs *fs)
{
	return &fs->budget;
}

void fs_get_stats(struct fs *fs, struct fs_stats *out)
{
	memset(out, 0, sizeof(*out));
	pthread_rwlock_rdlock(&fs->lock);
	out->programmed_pages = fs->programmed;
	out->blocks_tracked = fs->count;
	out->mem_bytes = fs->mem_bytes + sizeof(*fs) + fs->regcap * sizeof(*fs->reg) +
			 (fs->meta_io && fs->meta_io != fs->io ? fio_mem_bytes(fs->meta_io) : 0);
	out->reads = __atomic_load_n(&fs->nreads, __ATOMIC_RELAXED);
	out->programs = fs->nprograms;
	out->erases = fs->nerases;
	out->mem_refused = fs->mem_refused;
	out->disk_refused = fs->disk_refused;
	pthread_rwlock_unlock(&fs->lock);
}
