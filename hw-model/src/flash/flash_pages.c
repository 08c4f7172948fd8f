/* SPDX-License-Identifier: MIT */
/*
 * flash_pages.c - the NAND page rules (program once per erase, erase a whole
 * block, an erased page reads 0xFF; REIS §2.3) and the page + OOB storage:
 * a sparse block table in memory or the backing file's slots and records.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "flash_store_int.h"

static size_t fs_hash(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

struct fs_blk *fs_blk_find(const struct fs *fs, uint64_t bi)
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
struct fs_blk *fs_blk_get(struct fs *fs, uint64_t bi)
{
	struct fs_blk *b = fs_blk_find(fs, bi);
	size_t i;

	if (b)
		return b;
	if ((fs->count + 1) * 2 > fs->cap && fs_table_grow(fs))
		return NULL;
	b = calloc(1, sizeof(*b) + 2 * (size_t)fs->bm_bytes);	/* programmed, dead */
	if (!b)
		return NULL;
	fs->mem_bytes += sizeof(*b) + 2 * (uint64_t)fs->bm_bytes;
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

void fs_layout(struct fs *fs, uint64_t meta_max, struct fs_hdr *h)
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
int fs_check_geom(const struct fs_hdr *f, const struct fs_hdr *c,
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

int fs_load_records(struct fs *fs)
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

static size_t fs_blk_bytes(const struct fs *fs)
{
	return (size_t)fs->g.pages_per_block * fs->slot;
}

/*
 * In memory a block is one anonymous mapping made at its first program:
 * the data of its pages first, back to back (page i at i * page_bytes),
 * then the OOB of its pages as one array (page i's at pages_per_block *
 * page_bytes + i * oob_bytes). A scan of a block's consecutive pages then
 * walks one flat array, the stream the hardware prefetcher follows across
 * pages (an OOB gap every page or two broke it: docs/benchmarks.md,
 * bench-search follow-up), and the filter's OOB reads stay in their own
 * small array. The kernel backs only the host pages written, so host RAM
 * still follows the pages programmed, not the block size. The backing
 * file keeps its slots (data, then OOB, per page).
 */
uint8_t *fs_blk_mem(struct fs *fs, struct fs_blk *b)
{
	void *m;

	if (b->mem)
		return b->mem;
	m = mmap(NULL, fs_blk_bytes(fs), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	b->mem = m;
	return b->mem;
}

/* Offset of page @page's data, and of its OOB, in a block's mapping. */
static size_t fs_mem_data_off(const struct fs *fs, uint32_t page)
{
	return (size_t)page * fs->g.page_bytes;
}

static size_t fs_mem_oob_off(const struct fs *fs, uint32_t page)
{
	return (size_t)fs->g.pages_per_block * fs->g.page_bytes +
	       (size_t)page * fs->g.oob_bytes;
}

uint8_t *fs_mem_data(struct fs *fs, struct fs_blk *b, uint32_t page)
{
	return b->mem + fs_mem_data_off(fs, page);
}

uint8_t *fs_mem_oob(struct fs *fs, struct fs_blk *b, uint32_t page)
{
	return b->mem + fs_mem_oob_off(fs, page);
}

/* Erase in memory: the slots' RAM goes back to the kernel, the range stays. */
void fs_blk_free_pages(struct fs *fs, struct fs_blk *b)
{
	if (!b->mem || !b->nprog)
		return;
	madvise(b->mem, fs_blk_bytes(fs), MADV_DONTNEED);
	fs->mem_bytes -= (uint64_t)(b->nprog - b->ndrop) * fs->slot;
	b->ndrop = 0;
}

/* Page @page of @b holds data someone may still read: programmed and not
 * in a dropped row. */
static int fs_page_live(const struct fs *fs, const struct fs_blk *b, uint32_t page)
{
	return fs_bit(b, page) && !((b->bits[fs->bm_bytes + page / 8] >> (page % 8)) & 1);
}

/* Pages [@p0, @p1) of @b (clipped to the block): whether any is live. */
static int fs_pages_live(const struct fs *fs, const struct fs_blk *b, uint64_t p0, uint64_t p1)
{
	uint64_t p;

	for (p = p0; p < p1 && p < fs->g.pages_per_block; p++)
		if (fs_page_live(fs, b, (uint32_t)p))
			return 1;
	return 0;
}

/*
 * Whether a live page owns any of the block's bytes [@lo, @hi): in the
 * backing file a page owns its slot; in memory its data (in the data
 * array) and its OOB (in the OOB array after it), fs_blk_mem().
 */
static int fs_range_live(const struct fs *fs, const struct fs_blk *b, uint64_t lo, uint64_t hi)
{
	uint64_t pb = fs->g.page_bytes, ob = fs->g.oob_bytes, D, a, z;

	if (hi <= lo)
		return 0;
	if (fs->io)
		return fs_pages_live(fs, b, lo / fs->slot, (hi + fs->slot - 1) / fs->slot);
	D = (uint64_t)fs->g.pages_per_block * pb;
	if (lo < D && fs_pages_live(fs, b, lo / pb, ((hi < D ? hi : D) + pb - 1) / pb))
		return 1;
	if (hi <= D || !ob)
		return 0;
	a = (lo > D ? lo : D) - D;
	z = hi - D;
	return fs_pages_live(fs, b, a / ob, (z + ob - 1) / ob);
}

/*
 * Give back the host pages of block bytes [@lo, @hi) (@base: their first
 * byte's offset in host pages' terms; @end: where the block's bytes end),
 * widened to the host page holding either edge when no live page owns the
 * rest of that host page. In memory only whole host pages go (madvise); in
 * a backing file the range becomes a hole, never beyond the block's own
 * bytes.
 */
static void fs_drop_range(struct fs *fs, struct fs_blk *b, uint64_t base, uint64_t end,
			  uint64_t lo, uint64_t hi)
{
	uint64_t hp = (uint64_t)sysconf(_SC_PAGESIZE), elo, ehi;

	elo = (base + lo) / hp * hp;
	if (elo >= base && !fs_range_live(fs, b, elo - base, lo))
		lo = elo - base;
	ehi = (base + hi + hp - 1) / hp * hp;
	if (ehi - base <= end && !fs_range_live(fs, b, hi, ehi - base))
		hi = ehi - base;
	if (fs->io) {
		/* The state bits stay set; best effort, as a failed punch
		 * leaves only dead data behind. */
		(void)fio_punch(fs->io, base + lo, hi - lo);
		return;
	}
	lo = (lo + hp - 1) / hp * hp;
	hi = hi / hp * hp;
	if (hi > lo)
		madvise(b->mem + lo, (size_t)(hi - lo), MADV_DONTNEED);
}

/*
 * Pages @first..@first + @n - 1 of block @b are dead rows (a packed
 * region's delete is committed, docs/reis-engine.md §7.1): nothing reads
 * them again before the block's erase, so their host memory goes back now
 * instead of at the erase, which waits for every tenant of the stripe. The
 * pages stay programmed (NAND: only an erase makes a page programmable
 * again); they are marked dead, so a later drop of a neighbouring row can
 * also give back the host page the two share. In memory a run of pages is
 * two ranges, its data and its OOB (fs_blk_mem()); in a backing file one
 * run of slots (16 KiB + 2208 B on reis-ssd1). Neither the OOB array nor a
 * slot is a multiple of the host page, so the first and last host page of
 * a range hold a neighbour's bytes; such an edge page goes too when no
 * live page owns any of its bytes (dead, or not programmed: a program
 * writes all of its page's bytes, and reads of an erased page never reach
 * them). Without that each drop kept host pages per plane resident (in
 * memory, or mapped from the backing file) until the erase: +10 KiB a
 * deploy/delete cycle of the mixed-load test (§7.1, "Host memory"). In
 * memory the ranges' RAM goes (madvise); in a backing file it becomes a
 * hole (its page cache and mapped pages go too), never beyond the block's
 * own bytes. Caller holds the write lock; a row dies once per erase.
 */
void fs_blk_drop_pages(struct fs *fs, uint64_t bi, struct fs_blk *b, uint32_t first, uint32_t n)
{
	uint64_t hp = (uint64_t)sysconf(_SC_PAGESIZE), bb = fs_blk_bytes(fs);
	uint32_t p;

	if (first >= fs->g.pages_per_block || !n)
		return;
	if (n > fs->g.pages_per_block - first)
		n = fs->g.pages_per_block - first;
	if (!fs->io && !b->mem)
		return;
	for (p = first; p < first + n; p++) {
		if (!fs_page_live(fs, b, p))
			continue;
		b->bits[fs->bm_bytes + p / 8] |= (uint8_t)(1u << (p % 8));
		if (!fs->io) {
			fs->mem_bytes -= fs->slot;
			b->ndrop++;
		}
	}
	if (fs->io) {
		fs_drop_range(fs, b, fs->data_off + bi * bb, bb, (uint64_t)first * fs->slot,
			      (uint64_t)(first + n) * fs->slot);
		return;
	}
	/* In memory the run is two ranges: its pages' data and their OOB;
	 * the mapping is page-aligned, so its last host page is its own. */
	fs_drop_range(fs, b, 0, (bb + hp - 1) / hp * hp, fs_mem_data_off(fs, first),
		      fs_mem_data_off(fs, first + n));
	fs_drop_range(fs, b, 0, (bb + hp - 1) / hp * hp, fs_mem_oob_off(fs, first),
		      fs_mem_oob_off(fs, first + n));
}

void fs_blk_unmap(struct fs *fs, struct fs_blk *b)
{
	fs_blk_free_pages(fs, b);
	if (b->mem)
		munmap(b->mem, fs_blk_bytes(fs));
	b->mem = NULL;
}

int fs_bit(const struct fs_blk *b, uint32_t page)
{
	return (b->bits[page / 8] >> (page % 8)) & 1;
}

/*
 * Where @ppa's data and OOB are in memory: the in-memory page, the file
 * mapping, the 0xFF slot for an erased page; 0, or -EAGAIN when the page
 * is only in a caller's I/O object. Caller holds the read lock.
 */
static int fs_slot_parts(const struct fs *fs, uint64_t ppa, const uint8_t **data,
			 const uint8_t **oob)
{
	const struct fs_blk *b = fs_blk_find(fs, fg_block_index(&fs->g, ppa));
	const uint8_t *s;

	if (!b || !fs_bit(b, FG_FIELD(ppa, PAGE))) {
		s = fs->ff;
	} else if (fs->io) {
		if (!fs->map)
			return -EAGAIN;
		s = fs->map + fs_slot_off(fs, ppa);
	} else {
		*data = b->mem + fs_mem_data_off(fs, FG_FIELD(ppa, PAGE));
		*oob = b->mem + fs_mem_oob_off(fs, FG_FIELD(ppa, PAGE));
		return 0;
	}
	*data = s;
	*oob = s + fs->g.page_bytes;
	return 0;
}

/* Slot bytes [@off, @off + @len) from @data and @oob into @buf. */
static void fs_parts_copy(const struct fs *fs, const uint8_t *data, const uint8_t *oob,
			  uint32_t off, uint32_t len, uint8_t *buf)
{
	uint32_t pb = fs->g.page_bytes, nd = off < pb ? (len < pb - off ? len : pb - off) : 0;

	memcpy(buf, data + off, nd);
	if (len > nd)
		memcpy(buf + nd, oob + (off + nd - pb), len - nd);
}

static int fs_read_args(const struct fs *fs, uint64_t ppa, uint32_t off, const void *buf,
			uint32_t len)
{
	if (!fs || (!buf && len) || fg_check(&fs->g, ppa) || off > fs->slot ||
	    len > fs->slot - off)
		return -EINVAL;
	return 0;
}

int fs_read(struct fs *fs, uint64_t ppa, uint32_t off, void *buf, uint32_t len)
{
	const uint8_t *d, *o;
	int ret = fs_read_args(fs, ppa, off, buf, len);

	if (ret)
		return ret;
	pthread_rwlock_rdlock(&fs->lock);
	if (!fs_slot_parts(fs, ppa, &d, &o))
		fs_parts_copy(fs, d, o, off, len, buf);
	else
		ret = fio_pread(fs->io, buf, len, fs_slot_off(fs, ppa) + off);
	__atomic_add_fetch(&fs->nreads, 1, __ATOMIC_RELAXED);
	pthread_rwlock_unlock(&fs->lock);
	return ret;
}

int fs_page_map(struct fs *fs, uint64_t ppa, uint32_t off, uint32_t len, void *buf,
		const uint8_t **p)
{
	uint32_t pb;
	const uint8_t *d, *o;
	int ret = fs_read_args(fs, ppa, off, fs, len);

	if (ret || !p)
		return ret ? ret : -EINVAL;
	pb = fs->g.page_bytes;
	pthread_rwlock_rdlock(&fs->lock);
	if (!fs_slot_parts(fs, ppa, &d, &o)) {
		if (o == d + pb || off + len <= pb)
			*p = d + off;
		else if (off >= pb)
			*p = o + (off - pb);
		else if (!buf)	/* data and OOB apart, in memory */
			ret = -EAGAIN;
		else {
			fs_parts_copy(fs, d, o, off, len, buf);
			*p = buf;
		}
	} else if (!buf) {
		ret = -EAGAIN;
	} else {
		ret = fio_pread(fs->io, buf, len, fs_slot_off(fs, ppa) + off);
		*p = buf;
	}
	__atomic_add_fetch(&fs->nreads, 1, __ATOMIC_RELAXED);
	if (ret)
		pthread_rwlock_unlock(&fs->lock);
	return ret;
}

int fs_page_map_many(struct fs *fs, uint32_t n, const uint64_t *ppa, const uint32_t *off,
		     uint32_t len, const uint8_t **p)
{
	uint32_t i, pb;
	const uint8_t *d, *o;
	int ret = 0;

	if (!fs || (n && (!ppa || !off || !p)))
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (fs_read_args(fs, ppa[i], off[i], fs, len))
			return -EINVAL;
	pb = fs->g.page_bytes;
	pthread_rwlock_rdlock(&fs->lock);
	for (i = 0; i < n; i++) {
		p[i] = NULL;
		/* In place or nothing: a copy needs a buffer of its own. */
		if (!fs_slot_parts(fs, ppa[i], &d, &o) &&
		    (o == d + pb || off[i] + len <= pb || off[i] >= pb))
			p[i] = off[i] >= pb && o != d + pb ? o + (off[i] - pb) : d + off[i];
		else
			ret = -EAGAIN;
	}
	__atomic_add_fetch(&fs->nreads, n, __ATOMIC_RELAXED);
	return ret;
}

int fs_page_map_parts_many(struct fs *fs, uint32_t n, const uint64_t *ppa,
			   const uint8_t **data, const uint8_t **oob)
{
	uint32_t i;
	int ret = 0;

	if (!fs || (n && (!ppa || !data || !oob)))
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (fs_read_args(fs, ppa[i], 0, fs, 0))
			return -EINVAL;
	pthread_rwlock_rdlock(&fs->lock);
	for (i = 0; i < n; i++) {
		if (fs_slot_parts(fs, ppa[i], &data[i], &oob[i])) {
			data[i] = oob[i] = NULL;
			ret = -EAGAIN;
		}
	}
	__atomic_add_fetch(&fs->nreads, n, __ATOMIC_RELAXED);
	return ret;
}

int fs_page_map_parts(struct fs *fs, uint64_t ppa, void *buf, const uint8_t **data,
		      const uint8_t **oob)
{
	int ret = fs_read_args(fs, ppa, 0, fs, 0);

	if (ret || !data || !oob)
		return ret ? ret : -EINVAL;
	pthread_rwlock_rdlock(&fs->lock);
	if (fs_slot_parts(fs, ppa, data, oob)) {
		ret = buf ? fio_pread(fs->io, buf, fs->slot, fs_slot_off(fs, ppa)) : -EAGAIN;
		*data = buf;
		*oob = (const uint8_t *)buf + fs->g.page_bytes;
	}
	__atomic_add_fetch(&fs->nreads, 1, __ATOMIC_RELAXED);
	if (ret)
		pthread_rwlock_unlock(&fs->lock);
	return ret;
}

void fs_page_unmap(struct fs *fs)
{
	pthread_rwlock_unlock(&fs->lock);
}

/*
 * Map the backing file read-only so the model's reads need no copy. The
 * page cache backs the mapping, so programs and punched holes through
 * pwrite/fallocate show in it at once; writes keep their order and crash
 * rules (docs/timing-model.md §7). Without a mapping (no descriptor, no
 * address space) reads fall back to pread.
 */
int fs_map_file(struct fs *fs)
{
	uint64_t need = fs->data_off + fg_page_slots(&fs->g) * fs->slot, size;
	int fd = fio_fd(fs->io);
	void *m;

	if (fd < 0 || fio_size(fs->io, &size) || size < need || need > SIZE_MAX)
		return 0;
	m = mmap(NULL, (size_t)need, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return 0;
	fs->map = m;
	fs->map_len = need;
	return 0;
}

void fs_unmap_file(struct fs *fs)
{
	if (fs->map)
		munmap((void *)(uintptr_t)fs->map, (size_t)fs->map_len);
	fs->map = NULL;
}

/* Persist block record @bi (file mode). */
int fs_write_rec(struct fs *fs, uint64_t bi, const struct fs_blk *b)
{
	uint8_t rec[8 + 512];
	uint32_t zero = 0;

	memcpy(rec, &b->erase_count, 4);
	memcpy(rec + 4, &zero, 4);
	memcpy(rec + 8, b->bits, fs->bm_bytes);
	return fio_pwrite(fs->io, rec, fs->rec_bytes, fs_rec_off(fs, bi));
}

/* Backing file: data and OOB (0xFF for a missing part), then the state bit. */
static int fs_program_file(struct fs *fs, uint64_t ppa, uint64_t bi, const struct fs_blk *b,
			   const void *data, const void *oob)
{
	uint32_t page = FG_FIELD(ppa, PAGE);
	uint64_t so = fs_slot_off(fs, ppa);
	uint8_t byte;
	int ret = 0;

	if (data)
		ret = fio_pwrite(fs->io, data, fs->g.page_bytes, so);
	if (!ret && oob)
		ret = fio_pwrite(fs->io, oob, fs->g.oob_bytes, so + fs->g.page_bytes);
	if (!ret && (!data || !oob)) {
		/* 0xFF for the missing part: the slot may hold stale bytes. */
		uint8_t *ff = malloc(fs->slot);

		if (!ff)
			return -ENOMEM;
		memset(ff, 0xff, fs->slot);
		if (!data)
			ret = fio_pwrite(fs->io, ff, fs->g.page_bytes, so);
		if (!ret && !oob)
			ret = fio_pwrite(fs->io, ff, fs->g.oob_bytes, so + fs->g.page_bytes);
		free(ff);
	}
	if (ret)
		return ret;
	/* Data first, then the state bit: a crash in between leaves an
	 * erased page with junk that reads as 0xFF. */
	byte = b->bits[page / 8] | (uint8_t)(1u << (page % 8));
	return fio_pwrite(fs->io, &byte, 1, fs_rec_off(fs, bi) + 8 + page / 8);
}

/*
 * The in-memory store holds every programmed page in host RAM; without a
 * cap a guest could make QEMU allocate the whole modeled capacity (hundreds
 * of GiB on reis-ssd1). Erases give the memory back (fs_blk_free_pages).
 */
int fs_mem_charge(struct fs *fs, uint64_t bytes)
{
	if (fs->mem_bytes + bytes > fs->p.mem_cap) {
		fs->mem_refused++;
		return -ENOMEM;
	}
	fs->mem_bytes += bytes;
	return 0;
}

/* In memory: the page's data and OOB in its block's mapping (fs_blk_mem()). */
static int fs_program_mem(struct fs *fs, struct fs_blk *b, uint32_t page, const void *data,
			  const void *oob)
{
	uint8_t *s = fs_blk_mem(fs, b), *o;

	if (!s)
		return -ENOMEM;
	if (fs_mem_charge(fs, fs->slot))
		return -ENOMEM;
	o = s + fs_mem_oob_off(fs, page);
	s += fs_mem_data_off(fs, page);
	if (data)
		memcpy(s, data, fs->g.page_bytes);
	else
		memset(s, 0xff, fs->g.page_bytes);
	if (oob)
		memcpy(o, oob, fs->g.oob_bytes);
	else
		memset(o, 0xff, fs->g.oob_bytes);
	return 0;
}

/* A page programs once between erases (REIS §2.3). */
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
	/* The backing file holds at most backing_cap of pages (programmed
	 * ones: an erase punches its block's hole), so a guest cannot grow
	 * the sparse file to the whole modeled capacity on the host's disk. */
	if (fs->io && (fs->programmed + 1) * fs->slot > fs->p.backing_cap) {
		fs->disk_refused++;
		ret = -ENOMEM;
		goto out;
	}
	ret = fs->io ? fs_program_file(fs, ppa, bi, b, data, oob) :
		       fs_program_mem(fs, b, page, data, oob);
	if (ret)
		goto out;
	b->bits[page / 8] |= (uint8_t)(1u << (page % 8));
	b->nprog++;
	fs->programmed++;
	fs->nprograms++;
out:
	pthread_rwlock_unlock(&fs->lock);
	return ret;
}

/* Erase block @bi. Caller holds the write lock. */
int fs_erase_locked(struct fs *fs, uint64_t bi)
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
		memset(b->bits, 0, 2 * (size_t)fs->bm_bytes);
		if (!ret)
			ret = fs_write_rec(fs, bi, b);
	} else {
		fs_blk_free_pages(fs, b);
		b->erase_count++;
		memset(b->bits, 0, 2 * (size_t)fs->bm_bytes);
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

int fs_block_top(struct fs *fs, uint64_t ppa, uint32_t *top)
{
	const struct fs_blk *b;
	uint32_t pg;

	if (!fs || !top || fg_check(&fs->g, ppa))
		return -EINVAL;
	pthread_rwlock_rdlock(&fs->lock);
	b = fs_blk_find(fs, fg_block_index(&fs->g, ppa));
	pg = b && b->nprog ? fs->g.pages_per_block : 0;
	for (; pg && !fs_bit(b, pg - 1); pg--) {
		/* whole zero bytes of the bitmap at once */
		if (pg % 8 == 0 && pg >= 8 && !b->bits[pg / 8 - 1])
			pg -= 7;
	}
	pthread_rwlock_unlock(&fs->lock);
	*top = pg;
	return 0;
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

uint64_t fs_align(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}
