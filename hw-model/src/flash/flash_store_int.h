/* SPDX-License-Identifier: MIT */
/*
 * flash_store_int.h - what the flash store's files share; not installed.
 *
 *   flash_store.c   the store object: open (memory, backing file, caller's
 *                   I/O), close, metadata commit, statistics
 *   flash_pages.c   NAND page rules, page + OOB storage, backing-file format
 *   flash_region.c  regions (the FTL-less extent allocator)
 *   flash_dram.c    the controller DRAM budget
 */
#ifndef FLASH_STORE_INT_H
#define FLASH_STORE_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "flash_io.h"
#include "flash_store.h"
#include "isp_budget.h"

#define FS_MAGIC "ISPFLSH1"
#define FS_VERSION 1u
#define FS_HDR_AREA 4096u
#define FS_REG_MAGIC 0x31524746u	/* "FGR1": 24-byte whole-stripe entries */
#define FS_REG_MAGIC2 0x32524746u	/* "FGR2": 36-byte entries with rows */
#define FS_MAX_REGIONS 65536u
/*
 * Region flag kept by the store only (never encoded): no metadata snapshot
 * has seen the region at its current extent, so nothing on the medium
 * points there and a free returns the extent at once instead of after the
 * next commit (fs_region_free()). fs_commitv() clears it when it encodes.
 */
#define FS_REGION_UNCOMMITTED (1u << 31)

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
	uint32_t ndrop;		/* programmed pages whose RAM went back (dead rows) */
	uint8_t *mem;		/* in memory: the block's pages' data, then OOB */
	/* bm_bytes of programmed-page bitmap, then bm_bytes of dead-page
	 * bitmap (pages of dropped rows, fs_blk_drop_pages(): host state only,
	 * not in the backing file's record, so lost at a reopen; cleared by
	 * the erase) */
	uint8_t bits[];
};

/* Freed extent not reusable before the commit of generation <= gen. */
struct fs_pending {
	uint32_t part;
	uint32_t first_block;
	uint32_t nblocks;
	uint32_t row, nrows;	/* as the freed region's */
	uint32_t flags;		/* FS_REGION_PACKED */
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
	const uint8_t *map;	/* the backing file mapped read-only, or NULL */
	uint64_t map_len;
	uint8_t *ff;		/* one slot of 0xFF: what an erased page reads */

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

	/* fs_set_reclaim(): asked for room when an allocation finds none */
	fs_reclaim_fn reclaim;
	void *reclaim_ctx;

	struct fs_dram_cat dram[FS_DRAM_MAX_NAMES];
	uint64_t dram_used;

	uint64_t mem_bytes;	/* in memory: at most p.mem_cap (fs_mem_charge) */
	uint64_t mem_refused;	/* programs refused by the cap */
	uint64_t disk_refused;	/* backing file: programs refused by backing_cap */
	struct isp_budget budget;	/* per-command buffers (fs_buf_budget) */
	uint64_t programmed;
	uint64_t nreads, nprograms, nerases;
};

/* ---- flash_pages.c ---- */

uint64_t fs_align(uint64_t v, uint64_t a);
/* Caller holds the lock (read for find, write for get). */
struct fs_blk *fs_blk_find(const struct fs *fs, uint64_t bi);
struct fs_blk *fs_blk_get(struct fs *fs, uint64_t bi);
void fs_blk_free_pages(struct fs *fs, struct fs_blk *b);
void fs_blk_drop_pages(struct fs *fs, uint64_t bi, struct fs_blk *b, uint32_t first,
		       uint32_t n);
void fs_rows_drop(struct fs *fs, const struct fs_pending *pd);
uint8_t *fs_blk_mem(struct fs *fs, struct fs_blk *b);
/* In memory: page @page's data and OOB in @b's mapping (fs_blk_mem()). */
uint8_t *fs_mem_data(struct fs *fs, struct fs_blk *b, uint32_t page);
uint8_t *fs_mem_oob(struct fs *fs, struct fs_blk *b, uint32_t page);
void fs_blk_unmap(struct fs *fs, struct fs_blk *b);
int fs_bit(const struct fs_blk *b, uint32_t page);
int fs_write_rec(struct fs *fs, uint64_t bi, const struct fs_blk *b);
int fs_erase_locked(struct fs *fs, uint64_t bi);
void fs_layout(struct fs *fs, uint64_t meta_max, struct fs_hdr *h);
/* In memory: account @bytes more of page storage; -ENOMEM past mem_cap.
 * Caller holds the write lock. */
int fs_mem_charge(struct fs *fs, uint64_t bytes);
int fs_check_geom(const struct fs_hdr *f, const struct fs_hdr *c,
		  const char *path, char *err, size_t errlen);
int fs_load_records(struct fs *fs);
int fs_map_file(struct fs *fs);
void fs_unmap_file(struct fs *fs);

/* ---- flash_region.c ---- */

size_t fs_regions_size(const struct fs *fs);
/* fs_space() by a walk of every stripe over every region: its reference. */
int fs_space_ref(struct fs *fs, uint32_t part, struct fs_space *out);
void fs_regions_encode(struct fs *fs, uint8_t *b);
int fs_regions_parse(struct fs *fs, const uint8_t *b, size_t len, size_t *used);

#endif /* FLASH_STORE_INT_H */
