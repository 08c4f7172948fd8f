/* SPDX-License-Identifier: MIT */
/*
 * recflash_int.h - what the RecFlash engine's files share; not installed.
 *
 * Files (RecFlash paper sections):
 *   isp_recflash.c     the struct isp_engine: opcodes, load/save, identify
 *   recflash_table.c   the table list, statistics
 *   recflash_deploy.c  TABLE_CREATE / WRITE / COMMIT / DELETE, PROFILE
 *   recflash_map.c     areas, mapping generations, row moves, images (§III-C1)
 *   recflash_gc.c      deferred garbage collection
 *   recflash_persist.c the committed metadata, images read back
 *   recflash_query.c   RF_SLS: checks, steps, result
 *   recflash_readout.c SLS plan and read-out per mode (§III-A/B, Eq. 1-2)
 *   recflash_cache.c   page-wise LRU cache and its walk (§III-C2)
 *   recflash_pool.c    the ISP core's pooling arithmetic
 *   recflash_place.c   offline placement by frequency (§III-C1)
 *   recflash_alg1.c    Algorithm 1 adaptive remap (§III-C4)
 *   recflash_ht.c      Algorithm 1's frequency-ordered hash table
 *   recflash_trigger.c frequency tracker, threshold / period triggers (§III-C3)
 *   recflash_remap.c   REMAP / SWITCH, the two-stage deployment
 *
 * Objects (docs/recflash-engine.md has the why):
 *   rf_eng    the engine of one device: table list, page cache, counters.
 *   rf_table  an embedding table: configuration, deploy progress, the
 *             active mapping and, while a remap runs or waits for SWITCH,
 *             the staged one; frequency tracker; statistics.
 *   rf_map    one mapping generation: row -> slot (slot = lpage * rpp + k
 *             in an area), the Algorithm 1 list (RecFlash mode), where its
 *             image is in flash. Immutable once published; SLS readers pin
 *             it.
 *   rf_area   a flash region of the table: pages in Parallelism-First order
 *             (one stripe row = the same page offset on every plane), a
 *             write pointer per block stripe (log-structured: programs
 *             append, whole stripes are erased when nothing points there).
 *
 * Locks (order: eng->lock -> table->tlock -> cache lock -> store -> timing):
 *   eng->lock   table list, state, refs, busy, remap_state, active/staged,
 *               map readers, area refs (short sections only).
 *   tlock       the table's tracker and statistics.
 *   cache lock  the page cache.
 * Long work (deploy programs, remap, SLS flash reads) runs without any of
 * them, on objects pinned by refs/readers. isp_dev_commit() is called with
 * no engine lock held.
 */
#ifndef RECFLASH_INT_H
#define RECFLASH_INT_H

#include <pthread.h>
#include <stdint.h>

#include "flash_store.h"
#include "flash_timing.h"
#include "isp_internal.h"
#include "isp_wire.h"
#include "recflash_engine.h"

#define RF_MAX_TABLES 1024u
#define RF_HOT_BP_DEFAULT 500u		/* RecFlash Fig. 7a: the top-5 % hot region */
#define RF_TRACK_MAX_KEYS (1u << 18)	/* distinct rows tracked per table */
#define RF_OWNER_TAG (UINT64_C(0x5246) << 32)	/* "RF": our regions */
#define RF_ROWBUF_MAX (64u << 20)	/* per SLS: distinct rows staged at once */
#define RF_REMAP_ROOM 2u		/* adaptive remaps an area holds before compaction */
/*
 * RecFlash III-C6: the Algorithm 1 logic (comparator, pointer updater) is a
 * 500 MHz module doing one operation per cycle: 2 ns, charged as 3 cycles
 * of a 1.5 GHz firmware core.
 */
#define RF_HT_CYC_PER_OP 3u

static inline uint64_t rf_div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

static inline uint64_t rf_max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static inline uint32_t rf_pow2_at_least(uint64_t v)
{
	uint32_t p = 1;

	while (p < v && p < (1u << 31))
		p <<= 1;
	return p;
}

/* ---- page cache ---- */

struct rf_frame {
	uint64_t key;		/* ppa */
	uint64_t lpage;		/* in its area */
	uint32_t area_id;	/* region id of the area */
	uint32_t prev, next;	/* LRU list (head = most recent); free list */
	uint32_t hnext;		/* hash chain */
	uint32_t used;
};

struct rf_cache {
	pthread_mutex_t lock;
	uint32_t nframes, used;
	uint32_t words;		/* 64-bit words of row-valid bits per frame */
	uint32_t nbuckets;
	uint32_t lru_head, lru_tail, free;
	struct rf_frame *fr;
	uint64_t *bits;
	uint32_t *bucket;
};

int rf_cache_init(struct rf_cache *c, uint64_t cache_bytes, uint32_t page_bytes);
void rf_cache_destroy(struct rf_cache *c);
/*
 * One lookup of row @row of page @key, the cache lock held. A cached page
 * becomes the most recently used; the row is a hit if its frame holds it,
 * else it is filled in. An uncached page takes a frame (the least recently
 * used is evicted) only with RF_CT_ADMIT; RF_CT_PAGE fills the new frame
 * with the whole page instead of the one row.
 */
#define RF_CT_ADMIT 1u
#define RF_CT_PAGE 2u
enum { RF_CT_BYPASS, RF_CT_HIT, RF_CT_FILLED, RF_CT_ROW };
int rf_cache_touch_locked(struct rf_cache *c, uint64_t key, uint32_t area_id,
			  uint64_t lpage, uint32_t row, unsigned flags);
/* Drop frames of area @area_id with lpage in [@lo, @hi). */
void rf_cache_drop_area(struct rf_cache *c, uint32_t area_id, uint64_t lo, uint64_t hi);

/* ---- frequency tracker (recflash_trigger.c) ---- */

struct rf_kc {
	uint32_t key, count;
};

struct rf_track {
	uint32_t cap, nkeys, mask;
	uint64_t *slot;		/* 0: empty, else (key + 1) << 32 | count */
	uint64_t dropped;	/* accesses not counted: tracker full */
};

int rf_track_init(struct rf_track *t, uint32_t cap);
void rf_track_free(struct rf_track *t);
uint64_t rf_track_bytes(uint32_t cap);
void rf_track_clear(struct rf_track *t);
void rf_track_add(struct rf_track *t, uint32_t key, uint32_t cnt);
/* Keys by descending count, then ascending key (malloc'd). */
int rf_track_export(const struct rf_track *t, struct rf_kc **out, uint32_t *n);
void rf_kc_sort(struct rf_kc *kc, uint32_t n);
/*
 * The nonzero counts[0..rows) as keys into @kc (rows entries), sorted as
 * rf_track_export() does, *@n of them. Reads @ctx's stop flag between
 * blocks of rows and of the sort (NULL: never stops).
 * Return: 0, -ECANCELED, -ENOMEM.
 */
int rf_kc_from_counts(const uint32_t *counts, uint32_t rows, struct rf_kc *kc,
		      const struct isp_ctx *ctx, uint32_t *n);

/*
 * Rows a per-row loop of TBL_COMMIT or REMAP handles between two reads of
 * the stop flag (isp_dev_exec_cancel()): a few hundred microseconds.
 */
#define RF_STOP_ROWS 65536u

/* Whether loop index @i is at a block boundary and the command must stop. */
static inline int rf_stop_at(const struct isp_ctx *ctx, uint64_t i)
{
	return !(i % RF_STOP_ROWS) && isp_ctx_cancelled(ctx);
}

/* ---- arithmetic (recflash_pool.c) ---- */

void rf_h2f_table(float *t);
void rf_acc_row(float *acc, const uint8_t *row, uint32_t dtype, uint32_t dim,
		const float *h2f, int weighted, float w);
void rf_finish_bag(float *acc, uint32_t dim, uint32_t n, int mean);

/* ---- tables ---- */

struct rf_area {
	struct fs_region reg;
	uint32_t refs;		/* maps (and a deploy) using it */
	uint32_t mode;		/* cell mode of its pages */
	uint32_t np;		/* planes: pages per stripe row */
	uint32_t sp;		/* pages per block stripe */
	uint32_t nstripes;
	uint64_t pages;
	uint32_t *wp;		/* per stripe: pages below are programmed or skipped */
};

#define RF_MAX_RUNS 64u			/* runs of an image's pages */

struct rf_run {
	uint64_t lpage;
	uint32_t count;
	uint32_t rsvd;
};

struct rf_map {
	uint32_t gen;
	uint32_t readers;	/* SLS and remaps reading through it */
	struct rf_area *area;
	struct rf_ht ht;	/* RecFlash mode (ht.n = rows); else ht.n = 0 */
	const uint32_t *a;	/* ht.a, or NULL: slot = row (row order) */
	uint32_t img_pages;	/* its image in flash (RecFlash mode); 0: */
	uint32_t img_crc;	/* row order, f = 0 */
	uint32_t nruns;
	struct rf_run run[RF_MAX_RUNS];
	uint64_t dram;		/* controller DRAM it holds ("rf-map") */
	uint8_t *top;		/* bit k: key k may bring its page into the cache
				 * (cache_admit = 2); NULL otherwise */
};

struct rf_tstats {
	uint64_t sls_bags, lookups, page_reads, cache_hits, cache_misses;
	uint64_t bytes_sensed, bytes_useful, bytes_out, model_ns, energy_pj;
	uint64_t remaps, rows_moved, remap_reads, remap_programs, remap_erases;
	uint64_t remap_ns, trigger_hot_new;
};

struct rf_table {
	struct rf_table *next;
	struct isp_wire_rf_create cr;	/* as created (hot_bp defaulted) */
	uint32_t tid, rows, dim, dtype, mode;
	uint32_t row_bytes, rpp;	/* bytes per row, rows per page */
	uint32_t hot;			/* rows in the hot region */
	uint64_t data_pages, img_pages, area_pages;

	/* eng->lock */
	uint32_t state;			/* enum isp_rf_state */
	uint32_t remap_state;		/* enum isp_rf_remap_state */
	uint32_t refs;			/* commands using the table */
	uint32_t busy;			/* a deploy step, remap or switch owns it */
	struct rf_map *active, *staged;
	uint64_t received[ISP_RF_NSECTIONS];
	uint32_t *profile;		/* uploaded counts (deploy section or PROFILE) */
	uint64_t prof_bytes;		/* bytes of it received */
	uint64_t dram_fixed;		/* "rf-track" + "rf-l2p" reserved at create */

	/* deploy: rows in row order, a page being assembled */
	struct rf_area *dep_area;
	uint8_t *pagebuf;
	uint64_t pb_lpage;
	uint32_t pb_rows;

	/* tlock */
	pthread_mutex_t tlock;
	struct rf_track track;
	uint64_t bags_since;		/* since the last remap (period trigger) */
	struct rf_tstats st;
};

struct rf_eng {
	struct isp_dev *dev;
	struct fs *fs;
	struct ft *ft;
	const struct fp_params *p;
	const struct fg_geom *g;
	uint32_t native_part;		/* partition tables live in */

	pthread_mutex_t lock;
	pthread_cond_t cond;		/* map readers drained */
	struct rf_table *tables;	/* by ascending tid */
	uint32_t ntables;

	struct rf_cache cache;
	float *h2f;			/* fp16 -> float, 65536 entries */

	pthread_mutex_t cnt_lock;	/* device counters */
	uint64_t hits, misses, bags, remaps;

	int closing;			/* device close: keep regions in flash */

	/* Tests: called by REMAP once the new mapping is built, not yet staged. */
	void (*remap_hook)(void *arg);
	void *hook_arg;
};

/* Formats in flash and in the committed metadata (recflash_map.c,
 * recflash_persist.c; docs/recflash-engine.md "Mapping and persistence"). */
#define RF_IMG_MAGIC 0x494d4652u	/* "RFMI" */
#define RF_IMG_VERSION 1u

struct rf_img_hdr {
	uint32_t magic;
	uint32_t version;
	uint32_t tid;
	uint32_t gen;
	uint32_t rows;
	uint32_t hot;
	uint64_t payload;	/* a[rows], hot keys in order, their f */
};
_Static_assert(sizeof(struct rf_img_hdr) == 32, "image header");

#define RF_META_MAGIC 0x31454652u	/* "RFE1" */
#define RF_META_VERSION 1u

struct rf_meta_hdr {
	uint32_t magic;
	uint32_t version;
	uint32_t ntables;
	uint32_t rsvd;
};

struct rf_meta_rec {
	struct isp_wire_rf_create cr;
	uint32_t gen;
	uint32_t region_id;
	uint32_t img_pages;
	uint32_t img_crc;
	uint32_t nruns;
	uint32_t rsvd;
	/* then nruns struct rf_run */
};
_Static_assert(sizeof(struct rf_meta_rec) == 152, "metadata record");

/* recflash_table.c */
struct rf_table *rf_find(struct rf_eng *e, uint32_t tid);	/* eng->lock held */
void rf_fill_stats(struct rf_eng *e, struct rf_table *t, struct isp_wire_rf_stats *w,
		   int reset);
void rf_table_free(struct rf_eng *e, struct rf_table *t);
uint32_t rf_track_keys(const struct rf_table *t);
/* The table's fixed controller DRAM ("rf-map", "rf-track", "rf-l2p"),
 * reserved all or none. */
void rf_dram_fixed(const struct rf_table *t, uint64_t *map, uint64_t *track, uint64_t *l2p);
int rf_dram_fixed_reserve(struct rf_eng *e, uint64_t map, uint64_t track, uint64_t l2p);
void rf_dram_fixed_release(struct rf_eng *e, uint64_t map, uint64_t track, uint64_t l2p);
int rf_table_link(struct rf_eng *e, struct rf_table *t);

/* recflash_deploy.c */
uint16_t rf_tbl_create(struct rf_eng *e, struct isp_ctx *ctx,
		       const struct isp_wire_rf_create *cr, struct isp_cpl *cpl);
uint16_t rf_tbl_write(struct rf_eng *e, struct isp_ctx *ctx, uint32_t tid,
		      uint32_t sec, uint64_t off, const uint8_t *data, size_t len,
		      struct isp_cpl *cpl);
uint16_t rf_tbl_commit(struct rf_eng *e, struct isp_ctx *ctx, uint32_t tid,
		       struct isp_cpl *cpl);
uint16_t rf_tbl_delete(struct rf_eng *e, struct isp_ctx *ctx, uint32_t tid,
		       struct isp_cpl *cpl);
uint16_t rf_profile(struct rf_eng *e, struct isp_ctx *ctx, uint32_t tid, uint64_t off,
		    const uint8_t *data, size_t len, struct isp_cpl *cpl);
/* A creation header within the device's limits; else the failed status. */
uint16_t rf_check_create(struct rf_eng *e, const struct isp_wire_rf_create *cr,
			 struct isp_cpl *cpl);
/* Derived sizes of a table from its creation header. */
void rf_derive(struct rf_eng *e, struct rf_table *t);
/* Bytes of section @sec of @t (0: no such section). */
uint64_t rf_sec_size(const struct rf_table *t, uint32_t sec);
void rf_drop_profile(struct rf_eng *e, struct rf_table *t);

/* recflash_persist.c */
int rf_load(struct rf_eng *e, const void *blob, size_t len, char *err, size_t errlen);
int rf_save(struct rf_eng *e, void **blob, size_t *len);

/* recflash_map.c: areas, mapping generations, moving rows, images. */
struct rf_area *rf_area_wrap(struct rf_eng *e, const struct fs_region *reg);
/* Rebuild write pointers from the store: the last programmed page + 1. */
void rf_area_scan(struct rf_eng *e, struct rf_area *ar);
/* Identity mapping (row order), list in row order with f = 0. */
int rf_map_identity(struct rf_eng *e, struct rf_table *t, struct rf_area *ar,
		    const struct isp_ctx *ctx, struct rf_map **out);
/*
 * A new area of @pages in the native partition. rf_area_new() commits the
 * metadata and tries again when the space is held by freed blocks waiting
 * for a commit (eng->lock not held); rf_area_try() never commits (callers
 * under eng->lock), rf_pending_commit() is that commit (1: it ran).
 */
int rf_area_new(struct rf_eng *e, struct rf_table *t, uint64_t pages,
		struct isp_ctx *ctx, uint64_t ready, struct rf_area **out);
int rf_area_try(struct rf_eng *e, struct rf_table *t, uint64_t pages,
		struct isp_ctx *ctx, uint64_t ready, struct rf_area **out);
int rf_pending_commit(struct rf_eng *e);
void rf_area_put(struct rf_eng *e, struct rf_area *ar);	/* eng->lock not held */
int rf_area_ppa(struct rf_eng *e, const struct rf_area *ar, uint64_t lpage, uint64_t *ppa);
void rf_map_put(struct rf_eng *e, struct rf_map *m);	/* free an unpublished/retired map */
uint64_t rf_map_dram(const struct rf_table *t);	/* DRAM of one RecFlash mapping */
/* The cache admission set of a finished RecFlash map (cache_admit = 2). */
int rf_map_top(struct rf_eng *e, const struct rf_table *t, struct rf_map *m);
/* @ctx (may be NULL): its stop flag is read while the table is set up. */
int rf_map_new(struct rf_eng *e, struct rf_table *t, struct rf_area *ar, int with_ht,
	       const struct isp_ctx *ctx, struct rf_map **out);

struct rf_moves {
	uint64_t rows, reads, programs, erases;
};

/* Allocation of pages in an area, skipping @victim stripes. */
struct rf_alloc {
	struct rf_area *ar;
	const uint8_t *victim;	/* per stripe, or NULL */
	uint32_t s;		/* current stripe */
	uint32_t tried;		/* stripes tried */
	uint64_t pos;		/* next candidate lpage */
};

void rf_alloc_init(struct rf_alloc *al, struct rf_area *ar, const uint8_t *victim);
/* Next free lpage (aligned to a stripe row with @align); -ENOSPC when none. */
int rf_alloc_page(struct rf_alloc *al, int align, uint64_t *lpage);
uint64_t rf_alloc_free_pages(const struct rf_area *ar, const uint8_t *victim);

int rf_move_rows(struct rf_eng *e, struct rf_table *t, struct isp_ctx *ctx,
		 const struct rf_map *old, struct rf_alloc *al, const uint32_t *keys,
		 uint32_t n, uint32_t *a_new, struct rf_moves *mv, uint64_t ready,
		 uint64_t *done);
int rf_write_image(struct rf_eng *e, struct rf_table *t, struct isp_ctx *ctx,
		   struct rf_map *m, struct rf_alloc *al, struct rf_moves *mv,
		   uint64_t ready, uint64_t *done);

/* recflash_gc.c: erase the stripes of @ar none of @maps points into. */
int rf_gc(struct rf_eng *e, struct rf_table *t, struct isp_ctx *ctx, struct rf_area *ar,
	  const struct rf_map *const *maps, unsigned nmaps, uint64_t ready,
	  uint64_t *erases);

/* recflash_remap.c: REMAP and SWITCH, the two-stage deployment. */
uint16_t rf_remap(struct rf_eng *e, struct isp_ctx *ctx, uint32_t tid, uint32_t flags,
		  struct isp_cpl *cpl);
uint16_t rf_switch(struct rf_eng *e, struct isp_ctx *ctx, uint32_t tid,
		   struct isp_cpl *cpl);

/* recflash_place.c: place every row by @counts (NULL: 0) of an identity
 * source map into a new area: the offline placement of III-C1, used at
 * deploy and by REMAP FULL. */
int rf_full_place(struct rf_eng *e, struct rf_table *t, struct isp_ctx *ctx,
		  const struct rf_map *old, const struct rf_kc *kc, uint32_t nkc,
		  uint64_t ready, struct rf_map **out, struct rf_moves *mv, uint64_t *done);

/* recflash_alg1.c: Algorithm 1 on a copy of @old's list, Step 4 in flash. */
int rf_adaptive(struct rf_eng *e, struct rf_table *t, struct isp_ctx *ctx,
		const struct rf_map *old, const struct rf_kc *kc, uint32_t nkc,
		uint64_t ready, struct rf_map **out, struct rf_moves *mv, uint64_t *done);

/* recflash_trigger.c: whether the trigger holds (III-C3/C4); D_train taken
 * from the tracker, and put back when no remap follows. */
int rf_trigger(const struct rf_table *t, const struct rf_map *old,
	       const struct rf_kc *kc, uint32_t nkc, uint64_t bags, uint64_t *hot_new);
int rf_track_take(struct rf_table *t, struct rf_kc **kc, uint32_t *nkc, uint64_t *bags);
void rf_track_restore(struct rf_table *t, const struct rf_kc *kc, uint32_t n,
		      uint64_t bags);

/* ---- an RF_SLS in flight (recflash_query.c, recflash_readout.c, cache) ---- */

/* A distinct flash page of the batch. */
struct rf_spage {
	uint64_t key;		/* die, page offset, plane: issue order */
	uint64_t ppa;
	uint64_t lpage;
	uint32_t d0, nd;	/* its distinct rows: ds[d0 .. d0 + nd) */
	uint32_t fill;		/* read out whole into a new cache frame */
};

struct rf_sls_run {
	uint64_t page_reads, hits, misses, sensed, useful, out;
	uint64_t flash_ps, flash_pj;
};

struct rf_sls_cmd {
	struct isp_wire_rf_sls h;
	uint32_t *payload;	/* aligned copy: offsets, indices, weights */
	const uint32_t *off, *idx;
	const float *w;
	int weighted, mean;
	struct rf_table *t;
	struct rf_map *m;	/* pinned (readers) */
	/* The plan: slot of each lookup, distinct slots ds[0..nd) ascending,
	 * pos[i] = lookup i's distinct row, pages pg[0..npg), pgi[d] = page of
	 * distinct row d. */
	uint32_t *slot, *ord, *tmp, *pos, *ds, *pgi;
	uint32_t nd, npg;
	struct rf_spage *pg;
	uint8_t *need;		/* per distinct row: 1 read it, 2 cache hit */
	uint8_t *rowbuf;	/* the distinct rows' bytes, or NULL: read per lookup */
	uint8_t *span;
	struct rf_sls_run run;
};

/* recflash_readout.c */
/* Distinct slots and pages of the lookups; -ENOMEM, -EIO (bad mapping),
 * -ECANCELED. */
int rf_sls_plan(struct rf_eng *e, const struct isp_ctx *ctx, struct rf_sls_cmd *s);
/* The distinct rows' bytes from the store; -ENOMEM, -EIO, -ECANCELED. */
int rf_sls_rows(struct rf_eng *e, const struct isp_ctx *ctx, struct rf_sls_cmd *s);
/* The modeled flash stage from @t0 (pages sorted into issue order first);
 * -ENOMEM. */
int rf_sls_flash(struct rf_eng *e, struct isp_ctx *ctx, struct rf_sls_cmd *s, uint64_t t0);
/* Host bytes rf_sls_flash() allocates for @s with @npg pages (its budget). */
uint64_t rf_sls_flash_bytes(const struct rf_sls_cmd *s, uint64_t npg);

/* recflash_cache.c: the page cache walked in lookup order (§III-C2). */
void rf_sls_cache(struct rf_eng *e, struct rf_sls_cmd *s);

/* recflash_query.c */
uint16_t rf_sls(struct rf_eng *e, struct isp_ctx *ctx, uint32_t ticket,
		const uint8_t *data, size_t len, struct isp_cpl *cpl);

/* Unit tests (tests/unit/test_rf_*.c). */
struct rf_eng *rf_engine_of(struct isp_dev *dev);
void rf_set_remap_hook(struct isp_dev *dev, void (*fn)(void *arg), void *arg);
/*
 * The list order (@keys, up to @max) and a_k of every row (@slots, rows
 * entries, may be NULL) of the active (@staged 0) or staged mapping.
 * Return: keys in the list, -ENOENT, -EINVAL (not RecFlash mode / nothing staged).
 */
int rf_debug_map(struct isp_dev *dev, uint32_t tid, int staged, uint32_t *keys,
		 uint32_t max, uint32_t *slots, uint32_t *tau);

#endif /* RECFLASH_INT_H */
