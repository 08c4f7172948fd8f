/* SPDX-License-Identifier: MIT */
/*
 * flash_store.c - sparse page store, NAND rules, regions, DRAM budget.
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

#include "flash_io.h"
#include "flash_store.h"

#define FS_MAGIC "ISPFLSH1"
#define FS_VERSION 1u
#define FS_HDR_AREA 4096u
#define FS_REG_MAGIC 0x31524746u	/* "FGR1" */
#define FS_MAX_REGIONS 65536u

static uint64_t fs_align(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

/* On-file header; little-endian. */
struct fs_hdr {
	char magic[8];
	uint32_t version;
	uint32_t hdr_bytes;
	uint32_t channels;
	uint32_t dies_per_channel;
	uint32_t planes_per_die;
	uint32_t blocks_per_plane;
	uint32_t pages_per_block;
	uint32_t page_bytes;
	uint32_t oob_bytes;
	uint32_t native_mode;
	uint32_t slc_blocks;
	uint32_t rec_bytes;
	uint64_t meta_off;
	uint64_t meta_max;
	uint64_t state_off;
	uint64_t data_off;
	uint64_t file_bytes;
	uint32_t rsvd[7];
	uint32_t crc;
};
_Static_assert(sizeof(struct fs_hdr) == 128, "header size");

/* Per-block state in memory; the file's record is erase_count + bits. */
struct fs_blk {
	uint32_t nprog;
	uint32_t erase_count;
	uint8_t **pages;	/* in-memory mode: one slot buffer per page */
	uint8_t bits[];		/* programmed-page bitmap */
};

/* Freed extent not reusable before the commit of generation <= gen. */
struct fs_pending {
	uint32_t part;
	uint32_t first_block;
	uint32_t nblocks;
	uint64_t gen;
};

struct fs_dram_cat {
	char name[FS_DRAM_NAME_LEN];
	uint64_t bytes;
};

struct fs {
	struct fg_geom g;
	struct fp_params p;
	pthread_rwlock_t lock;
	pthread_mutex_t commit_lock;
	pthread_mutex_t dram_lock;
	unsigned flags;

	struct fio *io;		/* the backing file, or NULL in memory */
	int own_io;		/* io is ours to close */
	struct fio *meta_io;	/* io, or a memory image */
	struct fm *meta;
	uint64_t meta_off;
	uint64_t state_off;
	uint64_t data_off;
	uint32_t rec_bytes;	/* block record: 8 + bitmap */
	uint32_t bm_bytes;	/* bitmap bytes */
	uint32_t slot;		/* page_bytes + oob_bytes */

	/* Block table: open addressing, key = block index + 1. */
	uint64_t *keys;
	struct fs_blk **vals;
	size_t cap, count;

	struct fs_region *reg;	/* sorted by first_block */
	size_t nreg, regcap;
	uint32_t next_id;
	struct fs_pending *pend;
	size_t npend, pendcap;
	uint64_t gen;		/* bumps on every free/move */

	void *user_blob;
	size_t user_len;

	struct fs_dram_cat dram[FS_DRAM_MAX_NAMES];
	uint64_t dram_used;

	uint64_t mem_bytes;
	uint64_t programmed;
	uint64_t nreads, nprograms, nerases;
};

/* ---- block table ---- */

static size_t fs_hash(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

static struct fs_blk *fs_blk_find(const struct fs *fs, uint64_t bi)
{
	size_t i;

	if (!fs->cap)
		return NULL;
	for (i = fs_hash(bi + 1, fs->cap); fs->keys[i]; i = (i + 1) & (fs->cap - 1))
		if (fs->keys[i] == bi + 1)
			return fs->vals[i];
	return NULL;
}

static int fs_table_grow(struct fs *fs)
{
	size_t ncap = fs->cap ? fs->cap * 2 : 1024, i, j;
	uint64_t *nk = calloc(ncap, sizeof(*nk));
	struct fs_blk **nv = calloc(ncap, sizeof(*nv));

	if (!nk || !nv) {
		free(nk);
		free(nv);
		return -ENOMEM;
	}
	for (i = 0; i < fs->cap; i++) {
		if (!fs->keys[i])
			continue;
		for (j = fs_hash(fs->keys[i], ncap); nk[j]; j = (j + 1) & (ncap - 1))
			;
		nk[j] = fs->keys[i];
		nv[j] = fs->vals[i];
	}
	fs->mem_bytes += (ncap - fs->cap) * (sizeof(*nk) + sizeof(*nv));
	free(fs->keys);
	free(fs->vals);
	fs->keys = nk;
	fs->vals = nv;
	fs->cap = ncap;
	return 0;
}

/* Find or create the state of block @bi. Caller holds the write lock. */
static struct fs_blk *fs_blk_get(struct fs *fs, uint64_t bi)
{
	struct fs_blk *b = fs_blk_find(fs, bi);
	size_t i;

	if (b)
		return b;
	if ((fs->count + 1) * 2 > fs->cap && fs_table_grow(fs))
		return NULL;
	b = calloc(1, sizeof(*b) + fs->bm_bytes);
	if (!b)
		return NULL;
	fs->mem_bytes += sizeof(*b) + fs->bm_bytes;
	for (i = fs_hash(bi + 1, fs->cap); fs->keys[i]; i = (i + 1) & (fs->cap - 1))
		;
	fs->keys[i] = bi + 1;
	fs->vals[i] = b;
	fs->count++;
	return b;
}

static uint64_t fs_rec_off(const struct fs *fs, uint64_t bi)
{
	return fs->state_off + bi * fs->rec_bytes;
}

static uint64_t fs_slot_off(const struct fs *fs, uint64_t ppa)
{
	return fs->data_off + fg_page_index(&fs->g, ppa) * fs->slot;
}

/* ---- open / create ---- */

static void fs_layout(struct fs *fs, uint64_t meta_max, struct fs_hdr *h)
{
	const struct fg_geom *g = &fs->g;
	uint64_t nblk = (uint64_t)g->planes * g->blocks_per_plane;

	fs->bm_bytes = (uint32_t)fs_align((g->pages_per_block + 7) / 8, 8);
	fs->rec_bytes = 8 + fs->bm_bytes;
	fs->slot = g->page_bytes + g->oob_bytes;
	fs->meta_off = FS_HDR_AREA;
	fs->state_off = fs_align(fs->meta_off + 2 * fm_slot_bytes(meta_max), 4096);
	fs->data_off = fs_align(fs->state_off + nblk * fs->rec_bytes, 4096);

	memset(h, 0, sizeof(*h));
	memcpy(h->magic, FS_MAGIC, 8);
	h->version = FS_VERSION;
	h->hdr_bytes = sizeof(*h);
	h->channels = g->channels;
	h->dies_per_channel = g->dies_per_channel;
	h->planes_per_die = g->planes_per_die;
	h->blocks_per_plane = g->blocks_per_plane;
	h->pages_per_block = g->pages_per_block;
	h->page_bytes = g->page_bytes;
	h->oob_bytes = g->oob_bytes;
	h->native_mode = g->native_mode;
	h->slc_blocks = g->slc_blocks;
	h->rec_bytes = fs->rec_bytes;
	h->meta_off = fs->meta_off;
	h->meta_max = meta_max;
	h->state_off = fs->state_off;
	h->data_off = fs->data_off;
	h->file_bytes = fs->data_off + fg_page_slots(g) * fs->slot;
	h->crc = fio_crc32c(0, h, offsetof(struct fs_hdr, crc));
}

/* Compare the file's geometry with the configured one; name the first
 * difference. */
static int fs_check_geom(const struct fs_hdr *f, const struct fs_hdr *c,
			 const char *path, char *err, size_t errlen)
{
	static const struct { const char *name; size_t off; } fld[] = {
		{ "channels", offsetof(struct fs_hdr, channels) },
		{ "dies_per_channel", offsetof(struct fs_hdr, dies_per_channel) },
		{ "planes_per_die", offsetof(struct fs_hdr, planes_per_die) },
		{ "blocks_per_plane", offsetof(struct fs_hdr, blocks_per_plane) },
		{ "pages_per_block", offsetof(struct fs_hdr, pages_per_block) },
		{ "page_bytes", offsetof(struct fs_hdr, page_bytes) },
		{ "oob_bytes", offsetof(struct fs_hdr, oob_bytes) },
		{ "native_mode", offsetof(struct fs_hdr, native_mode) },
		{ "slc_blocks", offsetof(struct fs_hdr, slc_blocks) },
		{ "rec_bytes", offsetof(struct fs_hdr, rec_bytes) },
	};
	size_t i;

	for (i = 0; i < sizeof(fld) / sizeof(fld[0]); i++) {
		uint32_t a, b;

		memcpy(&a, (const char *)f + fld[i].off, 4);
		memcpy(&b, (const char *)c + fld[i].off, 4);
		if (a != b) {
			snprintf(err, errlen, "backing file %s was made for another "
				 "geometry: %s=%u in the file, %u configured (not "
				 "reformatting; use the original parameters or "
				 "another file)", path, fld[i].name, a, b);
			return -EINVAL;
		}
	}
	return 0;
}

static int fs_load_records(struct fs *fs)
{
	uint64_t nblk = (uint64_t)fs->g.planes * fs->g.blocks_per_plane;
	uint64_t end = fs->state_off + nblk * fs->rec_bytes;
	size_t bufrecs = (1u << 20) / fs->rec_bytes;
	uint8_t *buf = malloc(bufrecs * fs->rec_bytes);
	uint64_t off = fs->state_off;
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	while (off < end) {
		uint64_t data, bi0, n, i;

		ret = fio_next_data(fs->io, off, &data);
		if (ret == -ENXIO) {
			ret = 0;
			break;
		}
		if (ret)
			break;
		if (data >= end)
			break;
		/* Start at the record holding @data. */
		bi0 = (data - fs->state_off) / fs->rec_bytes;
		n = (end - fs_rec_off(fs, bi0)) / fs->rec_bytes;
		if (n > bufrecs)
			n = bufrecs;
		ret = fio_pread(fs->io, buf, (size_t)(n * fs->rec_bytes), fs_rec_off(fs, bi0));
		if (ret)
			break;
		for (i = 0; i < n; i++) {
			const uint8_t *r = buf + i * fs->rec_bytes;
			uint32_t ec, np = 0, k;
			struct fs_blk *b;

			memcpy(&ec, r, 4);
			for (k = 0; k < fs->bm_bytes; k++)
				np += (uint32_t)__builtin_popcount(r[8 + k]);
			if (!ec && !np)
				continue;
			b = fs_blk_get(fs, bi0 + i);
			if (!b) {
				ret = -ENOMEM;
				goto out;
			}
			b->erase_count = ec;
			b->nprog = np;
			memcpy(b->bits, r + 8, fs->bm_bytes);
			fs->programmed += np;
		}
		off = fs_rec_off(fs, bi0 + n);
	}
out:
	free(buf);
	return ret;
}

static int fs_regions_parse(struct fs *fs, const uint8_t *b, size_t len, size_t *used);

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
		/* New (or empty) file: nothing to lose, lay it out. */
		ret = fio_truncate(fs->io, want.file_bytes);
		if (ret) {
			snprintf(err, errlen, "backing file %s: cannot size it to %" PRIu64
				 " bytes (sparse): %s", path, want.file_bytes, strerror(-ret));
			if (created && path)
				unlink(path);
			return ret == -EINVAL ? -EFBIG : ret;
		}
		ret = fio_pwrite(fs->io, &want, sizeof(want), 0);
		if (!ret && !(fs->flags & FS_NOSYNC))
			ret = fio_sync(fs->io);
		if (ret) {
			snprintf(err, errlen, "backing file %s: %s", path, strerror(-ret));
			return ret;
		}
		have = want;
	} else {
		if (size < sizeof(have)) {
			snprintf(err, errlen, "backing file %s is truncated (%" PRIu64
				 " bytes, not even a header)", path, size);
			return -EIO;
		}
		ret = fio_pread(fs->io, &have, sizeof(have), 0);
		if (ret) {
			snprintf(err, errlen, "backing file %s: %s", path, strerror(-ret));
			return ret;
		}
		if (memcmp(have.magic, FS_MAGIC, 8)) {
			snprintf(err, errlen, "backing file %s is not an ISP flash "
				 "image (bad magic); refusing to overwrite it", path);
			return -EINVAL;
		}
		if (have.version != FS_VERSION || have.hdr_bytes != sizeof(have)) {
			snprintf(err, errlen, "backing file %s has format version %u, "
				 "this build reads %u", path, have.version, FS_VERSION);
			return -EINVAL;
		}
		if (have.crc != fio_crc32c(0, &have, offsetof(struct fs_hdr, crc))) {
			snprintf(err, errlen, "backing file %s: header checksum "
				 "mismatch (corrupt)", path);
			return -EIO;
		}
		ret = fs_check_geom(&have, &want, path, err, errlen);
		if (ret)
			return ret;
		/* Layout of this file (metadata size fixed at creation). */
		if (have.meta_max == 0 || have.meta_max > FM_MAX_BLOB_LIMIT) {
			snprintf(err, errlen, "backing file %s: bad metadata size", path);
			return -EIO;
		}
		fs_layout(fs, have.meta_max, &want);
		if (want.state_off != have.state_off || want.data_off != have.data_off ||
		    want.file_bytes != have.file_bytes || want.meta_off != have.meta_off) {
			snprintf(err, errlen, "backing file %s: inconsistent layout "
				 "(corrupt header)", path);
			return -EIO;
		}
		if (size < have.file_bytes) {
			snprintf(err, errlen, "backing file %s is truncated: %" PRIu64
				 " bytes, expected %" PRIu64, path, size, have.file_bytes);
			return -EIO;
		}
	}
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
	fg_init(&fs->g, &fs->p);
	fs->next_id = 1;
	pthread_rwlock_init(&fs->lock, NULL);
	pthread_mutex_init(&fs->commit_lock, NULL);
	pthread_mutex_init(&fs->dram_lock, NULL);

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

static void fs_blk_free_pages(struct fs *fs, struct fs_blk *b)
{
	uint32_t i;

	if (!b->pages)
		return;
	for (i = 0; i < fs->g.pages_per_block; i++) {
		if (b->pages[i]) {
			free(b->pages[i]);
			b->pages[i] = NULL;
			fs->mem_bytes -= fs->slot;
		}
	}
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
		fs_blk_free_pages(fs, fs->vals[i]);
		free(fs->vals[i]->pages);
		free(fs->vals[i]);
	}
	free(fs->keys);
	free(fs->vals);
	free(fs->reg);
	free(fs->pend);
	free(fs->user_blob);
	fm_close(fs->meta);
	if (fs->meta_io != fs->io)
		fio_close(fs->meta_io);
	if (fs->own_io)
		fio_close(fs->io);
	pthread_rwlock_destroy(&fs->lock);
	pthread_mutex_destroy(&fs->commit_lock);
	pthread_mutex_destroy(&fs->dram_lock);
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

/* ---- pages ---- */

static int fs_bit(const struct fs_blk *b, uint32_t page)
{
	return (b->bits[page / 8] >> (page % 8)) & 1;
}

int fs_read(struct fs *fs, uint64_t ppa, uint32_t off, void *buf, uint32_t len)
{
	const struct fs_blk *b;
	int ret = 0;

	if (!fs || (!buf && len) || fg_check(&fs->g, ppa) ||
	    off > fs->slot || len > fs->slot - off)
		return -EINVAL;
	pthread_rwlock_rdlock(&fs->lock);
	b = fs_blk_find(fs, fg_block_index(&fs->g, ppa));
	if (!b || !fs_bit(b, FG_FIELD(ppa, PAGE))) {
		memset(buf, 0xff, len);
	} else if (fs->io) {
		ret = fio_pread(fs->io, buf, len, fs_slot_off(fs, ppa) + off);
	} else {
		memcpy(buf, b->pages[FG_FIELD(ppa, PAGE)] + off, len);
	}
	__atomic_add_fetch(&fs->nreads, 1, __ATOMIC_RELAXED);
	pthread_rwlock_unlock(&fs->lock);
	return ret;
}

/* Persist block record @bi (file mode). */
static int fs_write_rec(struct fs *fs, uint64_t bi, const struct fs_blk *b)
{
	uint8_t rec[8 + 512];
	uint32_t zero = 0;

	memcpy(rec, &b->erase_count, 4);
	memcpy(rec + 4, &zero, 4);
	memcpy(rec + 8, b->bits, fs->bm_bytes);
	return fio_pwrite(fs->io, rec, fs->rec_bytes, fs_rec_off(fs, bi));
}

int fs_program(struct fs *fs, uint64_t ppa, const void *data, const void *oob)
{
	uint32_t page = FG_FIELD(ppa, PAGE);
	uint64_t bi;
	struct fs_blk *b;
	int ret = 0;

	if (!fs || fg_check(&fs->g, ppa))
		return -EINVAL;
	bi = fg_block_index(&fs->g, ppa);
	pthread_rwlock_wrlock(&fs->lock);
	b = fs_blk_get(fs, bi);
	if (!b) {
		ret = -ENOMEM;
		goto out;
	}
	if (fs_bit(b, page)) {
		ret = -EEXIST;
		goto out;
	}
	if (fs->io) {
		uint64_t so = fs_slot_off(fs, ppa);
		uint8_t byte;

		if (data)
			ret = fio_pwrite(fs->io, data, fs->g.page_bytes, so);
		if (!ret && oob)
			ret = fio_pwrite(fs->io, oob, fs->g.oob_bytes, so + fs->g.page_bytes);
		if (!ret && (!data || !oob)) {
			/* 0xFF for the missing part: the slot may hold stale bytes. */
			uint8_t *ff = malloc(fs->slot);

			if (!ff) {
				ret = -ENOMEM;
				goto out;
			}
			memset(ff, 0xff, fs->slot);
			if (!data)
				ret = fio_pwrite(fs->io, ff, fs->g.page_bytes, so);
			if (!ret && !oob)
				ret = fio_pwrite(fs->io, ff, fs->g.oob_bytes,
						 so + fs->g.page_bytes);
			free(ff);
		}
		if (ret)
			goto out;
		/* Data first, then the state bit: a crash in between leaves an
		 * erased page with junk that reads as 0xFF. */
		byte = b->bits[page / 8] | (uint8_t)(1u << (page % 8));
		ret = fio_pwrite(fs->io, &byte, 1, fs_rec_off(fs, bi) + 8 + page / 8);
		if (ret)
			goto out;
	} else {
		uint8_t *s;

		if (!b->pages) {
			b->pages = calloc(fs->g.pages_per_block, sizeof(*b->pages));
			if (!b->pages) {
				ret = -ENOMEM;
				goto out;
			}
			fs->mem_bytes += fs->g.pages_per_block * sizeof(*b->pages);
		}
		s = malloc(fs->slot);
		if (!s) {
			ret = -ENOMEM;
			goto out;
		}
		fs->mem_bytes += fs->slot;
		if (data)
			memcpy(s, data, fs->g.page_bytes);
		else
			memset(s, 0xff, fs->g.page_bytes);
		if (oob)
			memcpy(s + fs->g.page_bytes, oob, fs->g.oob_bytes);
		else
			memset(s + fs->g.page_bytes, 0xff, fs->g.oob_bytes);
		b->pages[page] = s;
	}
	b->bits[page / 8] |= (uint8_t)(1u << (page % 8));
	b->nprog++;
	fs->programmed++;
	fs->nprograms++;
out:
	pthread_rwlock_unlock(&fs->lock);
	return ret;
}

/* Erase block @bi. Caller holds the write lock. */
static int fs_erase_locked(struct fs *fs, uint64_t bi)
{
	struct fs_blk *b = fs_blk_get(fs, bi);
	int ret = 0;

	if (!b)
		return -ENOMEM;
	if (fs->io) {
		uint64_t first = fs->data_off + bi * fs->g.pages_per_block * fs->slot;

		if (b->nprog)
			ret = fio_punch(fs->io, first,
					(uint64_t)fs->g.pages_per_block * fs->slot);
		b->erase_count++;
		memset(b->bits, 0, fs->bm_bytes);
		if (!ret)
			ret = fs_write_rec(fs, bi, b);
	} else {
		fs_blk_free_pages(fs, b);
		b->erase_count++;
		memset(b->bits, 0, fs->bm_bytes);
	}
	fs->programmed -= b->nprog;
	b->nprog = 0;
	fs->nerases++;
	return ret;
}

int fs_erase(struct fs *fs, uint64_t ppa)
{
	int ret;

	if (!fs || fg_check(&fs->g, ppa))
		return -EINVAL;
	pthread_rwlock_wrlock(&fs->lock);
	ret = fs_erase_locked(fs, fg_block_index(&fs->g, ppa));
	pthread_rwlock_unlock(&fs->lock);
	return ret;
}

int fs_page_state(struct fs *fs, uint64_t ppa)
{
	const struct fs_blk *b;
	int st;

	if (!fs || fg_check(&fs->g, ppa))
		return -EINVAL;
	pthread_rwlock_rdlock(&fs->lock);
	b = fs_blk_find(fs, fg_block_index(&fs->g, ppa));
	st = b && fs_bit(b, FG_FIELD(ppa, PAGE)) ? FS_PROGRAMMED : FS_ERASED;
	pthread_rwlock_unlock(&fs->lock);
	return st;
}

int64_t fs_erase_count(struct fs *fs, uint64_t ppa)
{
	const struct fs_blk *b;
	int64_t n;

	if (!fs || fg_check(&fs->g, ppa))
		return -EINVAL;
	pthread_rwlock_rdlock(&fs->lock);
	b = fs_blk_find(fs, fg_block_index(&fs->g, ppa));
	n = b ? b->erase_count : 0;
	pthread_rwlock_unlock(&fs->lock);
	return n;
}

int fs_sync(struct fs *fs)
{
	if (!fs)
		return -EINVAL;
	return fs->io ? fio_sync(fs->io) : 0;
}

/* ---- regions ---- */

static int fs_overlap(uint32_t a, uint32_t an, uint32_t b, uint32_t bn)
{
	return (uint64_t)a < (uint64_t)b + bn && (uint64_t)b < (uint64_t)a + an;
}

/* First block >= @from in use by a region or a pending extent overlapping
 * [@from, @from + @n); its end in *@next. */
static int fs_busy(const struct fs *fs, uint32_t from, uint32_t n, uint32_t skip_id,
		   uint32_t *next)
{
	size_t i;
	int hit = 0;

	*next = from;
	for (i = 0; i < fs->nreg; i++) {
		const struct fs_region *r = &fs->reg[i];

		if (r->id != skip_id && fs_overlap(from, n, r->first_block, r->nblocks) &&
		    r->first_block + r->nblocks > *next) {
			*next = r->first_block + r->nblocks;
			hit = 1;
		}
	}
	for (i = 0; i < fs->npend; i++) {
		const struct fs_pending *pd = &fs->pend[i];

		if (fs_overlap(from, n, pd->first_block, pd->nblocks) &&
		    pd->first_block + pd->nblocks > *next) {
			*next = pd->first_block + pd->nblocks;
			hit = 1;
		}
	}
	return hit;
}

/* Erase every block of the extent that holds stale pages. */
static int fs_clean_extent(struct fs *fs, uint32_t first, uint32_t n, uint32_t *erased)
{
	uint32_t pl, b;
	int ret;

	for (pl = 0; pl < fs->g.planes; pl++) {
		for (b = first; b < first + n; b++) {
			uint64_t bi = (uint64_t)pl * fs->g.blocks_per_plane + b;
			const struct fs_blk *blk = fs_blk_find(fs, bi);

			if (!blk || !blk->nprog)
				continue;
			ret = fs_erase_locked(fs, bi);
			if (ret)
				return ret;
			if (erased)
				(*erased)++;
		}
	}
	return 0;
}

static int fs_reg_insert(struct fs *fs, const struct fs_region *r)
{
	size_t i;

	if (fs->nreg == fs->regcap) {
		size_t n = fs->regcap ? fs->regcap * 2 : 16;
		struct fs_region *nr = realloc(fs->reg, n * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		fs->reg = nr;
		fs->regcap = n;
	}
	for (i = fs->nreg; i > 0 && fs->reg[i - 1].first_block > r->first_block; i--)
		fs->reg[i] = fs->reg[i - 1];
	fs->reg[i] = *r;
	fs->nreg++;
	return 0;
}

static int fs_pend_add(struct fs *fs, uint32_t part, uint32_t first, uint32_t n)
{
	if (fs->npend == fs->pendcap) {
		size_t c = fs->pendcap ? fs->pendcap * 2 : 16;
		struct fs_pending *np = realloc(fs->pend, c * sizeof(*np));

		if (!np)
			return -ENOMEM;
		fs->pend = np;
		fs->pendcap = c;
	}
	fs->gen++;
	fs->pend[fs->npend].part = part;
	fs->pend[fs->npend].first_block = first;
	fs->pend[fs->npend].nblocks = n;
	fs->pend[fs->npend].gen = fs->gen;
	fs->npend++;
	return 0;
}

static uint64_t fs_stripe_pages(const struct fs *fs, uint32_t part)
{
	return (uint64_t)fs->g.part[part].pages_per_block * fs->g.planes;
}

int fs_region_alloc(struct fs *fs, uint32_t part, uint64_t npages, uint64_t owner,
		    struct fs_region *out, uint32_t *erased)
{
	const struct fg_part *pt;
	uint64_t nb64;
	uint32_t nb, cand, next, end;
	struct fs_region r;
	int ret;

	if (erased)
		*erased = 0;
	if (!fs || !out || part >= FG_NPARTS || npages == 0)
		return -EINVAL;
	pt = &fs->g.part[part];
	if (pt->nblocks == 0)
		return -ENOSPC;
	nb64 = (npages + fs_stripe_pages(fs, part) - 1) / fs_stripe_pages(fs, part);
	if (nb64 > pt->nblocks)
		return -ENOSPC;
	nb = (uint32_t)nb64;
	end = pt->first_block + pt->nblocks;
	pthread_rwlock_wrlock(&fs->lock);
	if (fs->nreg >= FS_MAX_REGIONS) {
		ret = -ENOSPC;
		goto out;
	}
	cand = pt->first_block;
	while ((uint64_t)cand + nb <= end && fs_busy(fs, cand, nb, 0, &next))
		cand = next;
	if ((uint64_t)cand + nb > end) {
		ret = -ENOSPC;
		goto out;
	}
	ret = fs_clean_extent(fs, cand, nb, erased);
	if (ret)
		goto out;
	r.id = fs->next_id;
	r.part = part;
	r.first_block = cand;
	r.nblocks = nb;
	r.owner = owner;
	ret = fs_reg_insert(fs, &r);
	if (ret)
		goto out;
	fs->next_id = fs->next_id == UINT32_MAX ? 1 : fs->next_id + 1;
	*out = r;
out:
	pthread_rwlock_unlock(&fs->lock);
	return ret;
}

static ssize_t fs_reg_find(const struct fs *fs, uint32_t id)
{
	size_t i;

	for (i = 0; i < fs->nreg; i++)
		if (fs->reg[i].id == id)
			return (ssize_t)i;
	return -1;
}

int fs_region_free(struct fs *fs, uint32_t id)
{
	ssize_t i;
	int ret;

	if (!fs)
		return -EINVAL;
	pthread_rwlock_wrlock(&fs->lock);
	i = fs_reg_find(fs, id);
	if (i < 0) {
		ret = -ENOENT;
		goto out;
	}
	ret = fs_pend_add(fs, fs->reg[i].part, fs->reg[i].first_block, fs->reg[i].nblocks);
	if (ret)
		goto out;
	memmove(&fs->reg[i], &fs->reg[i + 1], (fs->nreg - (size_t)i - 1) * sizeof(*fs->reg));
	fs->nreg--;
out:
	pthread_rwlock_unlock(&fs->lock);
	return ret;
}

int fs_region_get(struct fs *fs, uint32_t id, struct fs_region *out)
{
	ssize_t i;

	if (!fs || !out)
		return -EINVAL;
	pthread_rwlock_rdlock(&fs->lock);
	i = fs_reg_find(fs, id);
	if (i >= 0)
		*out = fs->reg[i];
	pthread_rwlock_unlock(&fs->lock);
	return i < 0 ? -ENOENT : 0;
}

int fs_region_list(struct fs *fs, struct fs_region *out, size_t max)
{
	size_t i;
	int n;

	if (!fs)
		return -EINVAL;
	pthread_rwlock_rdlock(&fs->lock);
	for (i = 0; i < fs->nreg && i < max && out; i++)
		out[i] = fs->reg[i];
	n = (int)fs->nreg;
	pthread_rwlock_unlock(&fs->lock);
	return n;
}

uint64_t fs_region_pages(const struct fs *fs, const struct fs_region *r)
{
	if (!fs || !r || r->part >= FG_NPARTS)
		return 0;
	return fg_region_pages(&fs->g, r->part, r->nblocks);
}

int fs_region_ppa(const struct fs *fs, const struct fs_region *r, uint64_t lpage,
		  uint64_t *ppa)
{
	if (!fs || !r)
		return -EINVAL;
	return fg_pfpa_ppa(&fs->g, r->part, r->first_block, r->nblocks, lpage, ppa);
}

/* Copy programmed pages of block @src to erased block @dst (same plane). */
static int fs_copy_block(struct fs *fs, uint64_t src, uint64_t dst, uint64_t *copied)
{
	const struct fs_blk *sb = fs_blk_find(fs, src);
	struct fs_blk *db;
	uint8_t *buf = NULL;
	uint32_t pg;
	int ret = 0;

	if (!sb || !sb->nprog)
		return 0;
	db = fs_blk_get(fs, dst);
	if (!db)
		return -ENOMEM;
	sb = fs_blk_find(fs, src);	/* the table may have grown */
	if (fs->io && !(buf = malloc(fs->slot)))
		return -ENOMEM;
	for (pg = 0; pg < fs->g.pages_per_block && !ret; pg++) {
		uint64_t so, dofs;

		if (!fs_bit(sb, pg))
			continue;
		if (fs->io) {
			so = fs->data_off + (src * fs->g.pages_per_block + pg) * fs->slot;
			dofs = fs->data_off + (dst * fs->g.pages_per_block + pg) * fs->slot;
			ret = fio_pread(fs->io, buf, fs->slot, so);
			if (!ret)
				ret = fio_pwrite(fs->io, buf, fs->slot, dofs);
		} else {
			if (!db->pages) {
				db->pages = calloc(fs->g.pages_per_block, sizeof(*db->pages));
				if (!db->pages) {
					ret = -ENOMEM;
					break;
				}
				fs->mem_bytes += fs->g.pages_per_block * sizeof(*db->pages);
			}
			db->pages[pg] = malloc(fs->slot);
			if (!db->pages[pg]) {
				ret = -ENOMEM;
				break;
			}
			fs->mem_bytes += fs->slot;
			memcpy(db->pages[pg], sb->pages[pg], fs->slot);
		}
		if (ret)
			break;
		db->bits[pg / 8] |= (uint8_t)(1u << (pg % 8));
		db->nprog++;
		fs->programmed++;
		fs->nprograms++;
		(*copied)++;
	}
	if (!ret && fs->io)
		ret = fs_write_rec(fs, dst, db);
	free(buf);
	return ret;
}

int fs_region_move(struct fs *fs, uint32_t id, uint32_t new_first,
		   uint64_t *copied, uint32_t *erased)
{
	const struct fg_part *pt;
	struct fs_region r;
	uint64_t ncopied = 0;
	uint32_t next, pl, b;
	ssize_t i;
	int ret;

	if (erased)
		*erased = 0;
	if (!fs)
		return -EINVAL;
	pthread_rwlock_wrlock(&fs->lock);
	i = fs_reg_find(fs, id);
	if (i < 0) {
		ret = -ENOENT;
		goto out;
	}
	r = fs->reg[i];
	pt = &fs->g.part[r.part];
	if (new_first < pt->first_block ||
	    (uint64_t)new_first + r.nblocks > (uint64_t)pt->first_block + pt->nblocks ||
	    fs_busy(fs, new_first, r.nblocks, 0, &next)) {
		ret = -EINVAL;
		goto out;
	}
	ret = fs_clean_extent(fs, new_first, r.nblocks, erased);
	for (pl = 0; pl < fs->g.planes && !ret; pl++) {
		for (b = 0; b < r.nblocks && !ret; b++) {
			uint64_t base = (uint64_t)pl * fs->g.blocks_per_plane;

			ret = fs_copy_block(fs, base + r.first_block + b,
					    base + new_first + b, &ncopied);
		}
	}
	if (ret)
		goto out;	/* destination is free space again; region unchanged */
	ret = fs_pend_add(fs, r.part, r.first_block, r.nblocks);
	if (ret)
		goto out;
	memmove(&fs->reg[i], &fs->reg[i + 1], (fs->nreg - (size_t)i - 1) * sizeof(*fs->reg));
	fs->nreg--;
	r.first_block = new_first;
	ret = fs_reg_insert(fs, &r);	/* cannot fail: capacity kept */
out:
	pthread_rwlock_unlock(&fs->lock);
	if (copied)
		*copied = ncopied;
	return ret;
}

int fs_space(struct fs *fs, uint32_t part, struct fs_space *out)
{
	const struct fg_part *pt;
	uint32_t b, run = 0, next;
	size_t i;

	if (!fs || !out || part >= FG_NPARTS)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	pt = &fs->g.part[part];
	pthread_rwlock_rdlock(&fs->lock);
	for (b = pt->first_block; b < pt->first_block + pt->nblocks; b++) {
		if (fs_busy(fs, b, 1, 0, &next)) {
			run = 0;
			continue;
		}
		out->free_blocks++;
		if (++run > out->largest_run)
			out->largest_run = run;
	}
	for (i = 0; i < fs->npend; i++)
		if (fs->pend[i].part == part)
			out->pending_blocks += fs->pend[i].nblocks;
	pthread_rwlock_unlock(&fs->lock);
	out->free_pages = out->free_blocks * fs_stripe_pages(fs, part);
	out->largest_pages = out->largest_run * fs_stripe_pages(fs, part);
	return 0;
}

/* ---- metadata ---- */

static size_t fs_regions_size(const struct fs *fs)
{
	return 16 + fs->nreg * 24;
}

static void fs_regions_encode(const struct fs *fs, uint8_t *b)
{
	uint32_t h[4] = { FS_REG_MAGIC, (uint32_t)fs->nreg, fs->next_id, 0 };
	size_t i;

	memcpy(b, h, 16);
	b += 16;
	for (i = 0; i < fs->nreg; i++, b += 24) {
		const struct fs_region *r = &fs->reg[i];

		memcpy(b, &r->id, 4);
		memcpy(b + 4, &r->part, 4);
		memcpy(b + 8, &r->first_block, 4);
		memcpy(b + 12, &r->nblocks, 4);
		memcpy(b + 16, &r->owner, 8);
	}
}

static int fs_regions_parse(struct fs *fs, const uint8_t *b, size_t len, size_t *used)
{
	uint32_t h[4];
	size_t i, j;

	if (len < 16)
		return -EIO;
	memcpy(h, b, 16);
	if (h[0] != FS_REG_MAGIC || h[1] > FS_MAX_REGIONS || len < 16 + (size_t)h[1] * 24)
		return -EIO;
	for (i = 0; i < h[1]; i++) {
		const uint8_t *e = b + 16 + i * 24;
		struct fs_region r;
		const struct fg_part *pt;

		memcpy(&r.id, e, 4);
		memcpy(&r.part, e + 4, 4);
		memcpy(&r.first_block, e + 8, 4);
		memcpy(&r.nblocks, e + 12, 4);
		memcpy(&r.owner, e + 16, 8);
		if (r.id == 0 || r.part >= FG_NPARTS || r.nblocks == 0)
			return -EIO;
		pt = &fs->g.part[r.part];
		if (r.first_block < pt->first_block ||
		    (uint64_t)r.first_block + r.nblocks > (uint64_t)pt->first_block + pt->nblocks)
			return -EIO;
		for (j = 0; j < fs->nreg; j++)
			if (fs->reg[j].id == r.id ||
			    fs_overlap(r.first_block, r.nblocks, fs->reg[j].first_block,
				       fs->reg[j].nblocks))
				return -EIO;
		if (fs_reg_insert(fs, &r))
			return -ENOMEM;
	}
	fs->next_id = h[2] ? h[2] : 1;
	*used = 16 + (size_t)h[1] * 24;
	return 0;
}

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
	pthread_rwlock_rdlock(&fs->lock);
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

/* ---- DRAM budget ---- */

static int fs_dram_name_ok(const char *name)
{
	return name && name[0] && strlen(name) < FS_DRAM_NAME_LEN;
}

int fs_dram_reserve(struct fs *fs, const char *name, uint64_t bytes)
{
	int i, slot = -1, ret = 0;

	if (!fs || !fs_dram_name_ok(name))
		return -EINVAL;
	pthread_mutex_lock(&fs->dram_lock);
	for (i = 0; i < FS_DRAM_MAX_NAMES; i++) {
		if (fs->dram[i].name[0] && strcmp(fs->dram[i].name, name) == 0) {
			slot = i;
			break;
		}
		if (!fs->dram[i].name[0] && slot < 0)
			slot = i;
	}
	if (slot < 0) {
		ret = -ENOSPC;
	} else if (bytes > fs->p.dram_bytes - fs->dram_used) {
		ret = -ENOMEM;
	} else {
		if (!fs->dram[slot].name[0])
			snprintf(fs->dram[slot].name, FS_DRAM_NAME_LEN, "%s", name);
		fs->dram[slot].bytes += bytes;
		fs->dram_used += bytes;
	}
	pthread_mutex_unlock(&fs->dram_lock);
	return ret;
}

int fs_dram_release(struct fs *fs, const char *name, uint64_t bytes)
{
	int i, ret = -EINVAL;

	if (!fs || !fs_dram_name_ok(name))
		return -EINVAL;
	pthread_mutex_lock(&fs->dram_lock);
	for (i = 0; i < FS_DRAM_MAX_NAMES; i++) {
		struct fs_dram_cat *c = &fs->dram[i];

		if (!c->name[0] || strcmp(c->name, name))
			continue;
		if (bytes <= c->bytes) {
			c->bytes -= bytes;
			fs->dram_used -= bytes;
			if (!c->bytes)
				c->name[0] = '\0';
			ret = 0;
		}
		break;
	}
	pthread_mutex_unlock(&fs->dram_lock);
	return ret;
}

uint64_t fs_dram_used(struct fs *fs, const char *name)
{
	uint64_t v = 0;
	int i;

	if (!fs)
		return 0;
	pthread_mutex_lock(&fs->dram_lock);
	if (!name) {
		v = fs->dram_used;
	} else {
		for (i = 0; i < FS_DRAM_MAX_NAMES; i++)
			if (fs->dram[i].name[0] && strcmp(fs->dram[i].name, name) == 0)
				v = fs->dram[i].bytes;
	}
	pthread_mutex_unlock(&fs->dram_lock);
	return v;
}

uint64_t fs_dram_budget(const struct fs *fs)
{
	return fs ? fs->p.dram_bytes : 0;
}

int fs_dram_list(struct fs *fs, struct fs_dram_use *out, size_t max)
{
	int i, n = 0;

	if (!fs)
		return -EINVAL;
	pthread_mutex_lock(&fs->dram_lock);
	for (i = 0; i < FS_DRAM_MAX_NAMES; i++) {
		if (!fs->dram[i].name[0])
			continue;
		if (out && (size_t)n < max) {
			memcpy(out[n].name, fs->dram[i].name, FS_DRAM_NAME_LEN);
			out[n].bytes = fs->dram[i].bytes;
		}
		n++;
	}
	pthread_mutex_unlock(&fs->dram_lock);
	return n;
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
	pthread_rwlock_unlock(&fs->lock);
}
