/* SPDX-License-Identifier: MIT */
/*
 * flash_store.h - the contents of the modeled flash array: page data and OOB
 * bytes with the NAND rules, cell-mode partitions, contiguous regions for the
 * engines, the controller-DRAM budget, and the crash-consistent metadata.
 *
 * Storage is sparse in both modes. With a backing file (docs/timing-model.md
 * "Storage and metadata") page data live at a fixed place per page in a
 * sparse file, a per-block record keeps
 * which pages are programmed, and the metadata (flash_meta.h) is in the same
 * file; without a path everything is in memory and a page costs memory only
 * once programmed. A backing file is created when missing (or empty); one
 * that is truncated, corrupt or made for another geometry is refused with a
 * message and left untouched, never reformatted.
 *
 * File layout: header (4 KiB) | metadata slots | block records | page slots
 * (page_bytes + oob_bytes each, indexed by fg_page_index()).
 *
 * NAND rules: a page is programmed whole (data + OOB) and only when erased;
 * erase works on a whole block; a page index must exist in the block's cell
 * mode (an SLC-mode block of a TLC device has a third of the pages). An
 * erased page reads as 0xFF. Pages within a block may be programmed in any
 * order (real TLC needs ascending order; engines here always write in order).
 *
 * Regions: an engine reserves whole block stripes: the same blocks on every
 * plane, contiguous, inside one partition (REIS 4.1.4: contiguous regions
 * reserved at deploy, isolated from each other). Pages of a region are
 * addressed by logical page number in Parallelism-First order
 * (fg_pfpa_ppa()). Blocks holding stale data are erased when a region is
 * allocated over them. A freed region's blocks stay untouched until the next
 * successful fs_commitv(), so a crash before that commit finds the old
 * region's data intact.
 *
 * Packed regions (fs_region_alloc_packed()): a request smaller than one
 * block stripe gets a run of page rows (one page on every plane, so still
 * Parallelism-First) inside a shared stripe. Rows are handed out append-only
 * from the stripe's frontier, above every row a tenant holds or a page that
 * is programmed, so each block is programmed in ascending page order and a
 * freed tenant's rows are never rewritten in place: a shared stripe is
 * erased only once no tenant (live or freed before the last commit) is left
 * (docs/reis-engine.md §7).
 *
 * Threading: a read-write lock guards pages and regions (reads share it),
 * a mutex the DRAM accounting; all functions may be called concurrently.
 * Lock order (docs/architecture.md): store before timing.
 */
#ifndef FLASH_STORE_H
#define FLASH_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "flash_geom.h"
#include "flash_io.h"
#include "flash_meta.h"
#include "flash_preset.h"

struct fs;

struct fs_config {
	const char *path;		/* backing file; NULL: in memory */
	const struct fp_params *params;	/* validated geometry */
	uint64_t meta_max;		/* largest metadata blob; 0: 64 MiB.
					 * Fixed when the file is created. */
	unsigned flags;			/* FS_NOSYNC */
	struct fio *io;			/* tests: use this image (flash_io.h)
					 * instead of opening @path; stays
					 * the caller's, no locking */
};

#define FS_NOSYNC 1u	/* skip fdatasync (tests on throw-away files) */

/**
 * fs_open() - open or create the flash contents.
 * @err: on failure, a message saying what was wrong (and for a file of
 *       another geometry, which field differs).
 *
 * Return: 0; -EINVAL for bad parameters, a file that is not a backing file
 * (bad magic, other version) or of another geometry; -EIO for a truncated
 * or corrupt file; -EBUSY when another process has it open; -EFBIG when the
 * geometry does not fit in a file on this file system; -ENOMEM; -errno of
 * open(2).
 */
int fs_open(const struct fs_config *cfg, struct fs **out, char *err, size_t errlen);

/** fs_close() - flush and free (NULL is a no-op). */
void fs_close(struct fs *fs);

/** fs_geom() - geometry of @fs. */
const struct fg_geom *fs_geom(const struct fs *fs);

/** fs_slot_bytes() - page_bytes + oob_bytes. */
uint32_t fs_slot_bytes(const struct fs *fs);

/**
 * fs_read() - read @len bytes at byte @off of a page's slot: data bytes
 * [0, page_bytes) followed by the OOB bytes [page_bytes, page_bytes +
 * oob_bytes). An erased page reads as 0xFF.
 * Return: 0; -EINVAL for a bad @ppa (including a page that does not exist
 * in its block's cell mode) or @off + @len past the slot; -EIO.
 */
int fs_read(struct fs *fs, uint64_t ppa, uint32_t off, void *buf, uint32_t len);

/**
 * fs_page_map() - bytes [@off, @off + @len) of a page's slot (as fs_read())
 * in place, for the model's own reads: a pointer into the in-memory page,
 * into the backing file's read-only mapping, or to an all-0xFF slot for an
 * erased page. A caller's I/O object without a descriptor copies, into
 * @buf (fs_slot_bytes() bytes), and so does a range across the data and
 * the OOB of an in-memory page, stored apart (fs_page_map_parts());
 * with @buf NULL those cases fail -EAGAIN instead (for a caller that only
 * wants a pointer, e.g. to prefetch).
 * On success the store's read lock is held until fs_page_unmap(): *@p stays
 * valid and the page unchanged, and the calling thread must not program,
 * erase or change regions meanwhile. *@p points at byte @off.
 * Return: 0; the errors of fs_read(); -EAGAIN (the lock is not held then).
 */
int fs_page_map(struct fs *fs, uint64_t ppa, uint32_t off, uint32_t len, void *buf,
		const uint8_t **p);

/**
 * fs_page_map_parts() - a page's data (page_bytes) and OOB (oob_bytes) in
 * place, as fs_page_map() maps them, under one read guard: the in-memory
 * store keeps a block's pages' data back to back and their OOB in an array
 * after it, so a scan of consecutive pages reads one stream, hence two
 * pointers. Only a caller's I/O object without a descriptor copies the
 * slot into @buf (fs_slot_bytes() bytes; NULL: -EAGAIN).
 * Return: as fs_page_map(); fs_page_unmap() ends the access.
 */
int fs_page_map_parts(struct fs *fs, uint64_t ppa, void *buf, const uint8_t **data,
		      const uint8_t **oob);

/**
 * fs_page_map_many() - @n ranges [@off[i], @off[i] + @len) of pages
 * @ppa[i] in place under one read guard, as fs_page_map() maps each into
 * @p[i]; a range fs_page_map() would copy gets @p[i] NULL (and the call
 * -EAGAIN, the others still mapped). On 0 or -EAGAIN the read lock is held
 * until fs_page_unmap(), once.
 * Return: 0; -EAGAIN; -EINVAL for a bad @ppa or range (the lock is not
 * held then).
 */
int fs_page_map_many(struct fs *fs, uint32_t n, const uint64_t *ppa, const uint32_t *off,
		     uint32_t len, const uint8_t **p);

/**
 * fs_page_map_parts_many() - @n pages' data and OOB in place under one read
 * guard, as fs_page_map_parts() maps each into @data[i] and @oob[i]; a page
 * only a caller's I/O object holds gets NULLs (and the call -EAGAIN, the
 * others still mapped). On 0 or -EAGAIN the read lock is held until
 * fs_page_unmap(), once.
 * Return: 0; -EAGAIN; -EINVAL for a bad @ppa (the lock is not held then).
 */
int fs_page_map_parts_many(struct fs *fs, uint32_t n, const uint64_t *ppa,
			   const uint8_t **data, const uint8_t **oob);

/** fs_page_unmap() - end the access fs_page_map() began. */
void fs_page_unmap(struct fs *fs);

/**
 * fs_program() - program a whole page.
 * @data: page_bytes bytes, or NULL for all 0xFF.
 * @oob: oob_bytes bytes, or NULL for all 0xFF.
 * Return: 0; -EINVAL for a bad @ppa; -EEXIST when the page is not erased;
 * -EIO; -ENOMEM.
 */
int fs_program(struct fs *fs, uint64_t ppa, const void *data, const void *oob);

/**
 * fs_erase() - erase the block holding @ppa (the page field is ignored but
 * must be valid).
 * Return: 0, -EINVAL, -EIO.
 */
int fs_erase(struct fs *fs, uint64_t ppa);

enum fs_page_state { FS_ERASED = 0, FS_PROGRAMMED = 1 };

/** fs_page_state() - enum fs_page_state of @ppa, or -EINVAL. */
int fs_page_state(struct fs *fs, uint64_t ppa);

/**
 * fs_block_top() - the highest programmed page + 1 of @ppa's block (0: no
 * page programmed), in *@top. Return: 0 or -EINVAL.
 */
int fs_block_top(struct fs *fs, uint64_t ppa, uint32_t *top);

/** fs_erase_count() - erases of the block holding @ppa, or -EINVAL. */
int64_t fs_erase_count(struct fs *fs, uint64_t ppa);

/** fs_sync() - make programmed pages durable. Return: 0 or -errno. */
int fs_sync(struct fs *fs);

/* ---- Regions ---- */

enum fs_region_flags {
	FS_REGION_PACKED = 1u << 0,	/* rows of a shared stripe */
	FS_REGION_SEALED = 1u << 1,	/* packed: its owner writes no more */
};

struct fs_region {
	uint32_t id;		/* non-zero, assigned by the store */
	uint32_t part;		/* enum fg_part_id */
	uint32_t first_block;	/* absolute block index, same on every plane */
	uint32_t nblocks;
	uint64_t owner;		/* caller's tag (e.g. engine << 32 | object id) */
	uint32_t row;		/* first page row of the region in its stripe(s) */
	uint32_t nrows;		/* page rows; whole stripes: nblocks rows per block */
	uint32_t flags;		/* enum fs_region_flags */
};

/**
 * fs_region_alloc() - reserve the first contiguous run of free block
 * stripes in partition @part that holds @npages pages (rounded up to whole
 * stripes of blocks).
 * @erased: if not NULL, set to the number of blocks erased because they held
 *          stale data (the caller charges ft_block_erase() for them).
 * Return: 0; -EINVAL (@npages 0, bad @part); -ENOSPC when no contiguous run
 * is large enough (fs_space() tells whether compaction would help); -EIO.
 */
int fs_region_alloc(struct fs *fs, uint32_t part, uint64_t npages, uint64_t owner,
		    struct fs_region *out, uint32_t *erased);

/**
 * fs_region_alloc_packed() - like fs_region_alloc(), but a request smaller
 * than one block stripe takes only the page rows it needs (each row one page
 * on every plane) at the frontier of a shared stripe: the fullest shared
 * stripe that has room and whose tenants are all sealed, else a fresh stripe
 * taken from the top of the partition (whole-stripe regions come from the
 * bottom); never the partition's last free stripe: that is compaction's
 * room (fs_compact_victim(), fs_region_relocate()). A larger request is
 * fs_region_alloc().
 * Return: as fs_region_alloc().
 */
int fs_region_alloc_packed(struct fs *fs, uint32_t part, uint64_t npages, uint64_t owner,
			   struct fs_region *out, uint32_t *erased);

/**
 * fs_compact_victim() - the shared stripe of partition @part with the most
 * dead rows (freed tenants' rows below the frontier) whose tenants are all
 * sealed: compaction moves its live tenants out with fs_region_relocate(),
 * and the stripe is free after the next commit.
 * @ids: out: up to @max ids of its live packed regions.
 * @dead_pages: if not NULL, its dead rows in pages (0: no victim).
 * Return: its number of live tenants (may exceed @max); 0 when no stripe
 * has dead rows; -EINVAL.
 */
int fs_compact_victim(struct fs *fs, uint32_t part, uint32_t *ids, size_t max,
		      uint64_t *dead_pages);

/**
 * fs_region_relocate() - copy sealed packed region @id to rows of another
 * stripe (allocated as fs_region_alloc_packed() would, the last free stripe
 * included) and point @id there. The old rows are dead: reusable once
 * their stripe empties and a commit follows; a crash before it finds the
 * old rows intact. The owner keeps the region quiet meanwhile.
 * @copied: if not NULL, pages copied (for timing); @erased as in
 * fs_region_alloc().
 * Return: 0; -ENOENT; -EINVAL when @id is not packed and sealed; -ENOSPC;
 * -EIO; -ENOMEM.
 */
int fs_region_relocate(struct fs *fs, uint32_t id, uint64_t *copied, uint32_t *erased);

/**
 * fs_region_seal() - the owner of packed region @id has programmed its last
 * page: later tenants may take rows above it (program order within a block).
 * Regions read from the metadata at open are sealed.
 * Return: 0 or -ENOENT.
 */
int fs_region_seal(struct fs *fs, uint32_t id);

/**
 * fs_region_free() - release region @id. Its blocks become reusable after
 * the next successful fs_commitv().
 * Return: 0 or -ENOENT.
 */
int fs_region_free(struct fs *fs, uint32_t id);

/** fs_region_get() - look up region @id. Return: 0 or -ENOENT. */
int fs_region_get(struct fs *fs, uint32_t id, struct fs_region *out);

/**
 * fs_region_list() - copy up to @max regions (ordered by partition, block).
 * Return: the number of regions (may exceed @max).
 */
int fs_region_list(struct fs *fs, struct fs_region *out, size_t max);

/** fs_region_pages() - capacity of @r in pages. */
uint64_t fs_region_pages(const struct fs *fs, const struct fs_region *r);

/**
 * fs_region_ppa() - ppa of logical page @lpage of region @r (pure: a caller
 * may cache @r and call this in its hot loop).
 * Return: 0 or -EINVAL when @lpage is outside the region.
 */
int fs_region_ppa(const struct fs *fs, const struct fs_region *r, uint64_t lpage,
		  uint64_t *ppa);

/**
 * fs_region_move() - copy region @id to the free run starting at block
 * @new_first of its partition (defragmentation, REIS 4.1.4) and point the
 * region there. The old blocks become reusable after the next commit.
 * The caller keeps users of the region quiet meanwhile.
 * @copied: if not NULL, set to pages copied (for timing); @erased as in
 * fs_region_alloc().
 * Return: 0; -ENOENT; -EINVAL when the destination is not free or not in
 * the partition, or the region is packed; -EIO.
 */
int fs_region_move(struct fs *fs, uint32_t id, uint32_t new_first,
		   uint64_t *copied, uint32_t *erased);

/**
 * fs_region_free_unused() - release region @id at once, not after the next
 * commit, when none of its blocks holds a programmed page: no data of it
 * needs the crash rule's protection (the FTL's stripes, whose data lives
 * in the transport's backend). The blocks are reusable immediately.
 * Return: 0; -ENOENT; -EBUSY when a block holds programmed pages.
 */
int fs_region_free_unused(struct fs *fs, uint32_t id);

/*
 * A reclaim callback: an allocation of @stripes block stripes for @owner in
 * partition @part found no room; give some back (e.g. fs_region_free_unused
 * of stripes the callee can empty) and return how many. Called without the
 * store's lock held, from the allocating thread.
 */
typedef int (*fs_reclaim_fn)(void *ctx, uint32_t part, uint32_t stripes, uint64_t owner);

/**
 * fs_set_reclaim() - install @fn (NULL: none). fs_region_alloc() and
 * fs_region_alloc_packed() call it once when they would fail with -ENOSPC
 * and retry if it gave stripes back.
 */
void fs_set_reclaim(struct fs *fs, fs_reclaim_fn fn, void *ctx);

struct fs_space {
	uint32_t free_blocks;		/* per plane, reusable now */
	uint32_t largest_run;		/* longest contiguous free run, blocks */
	uint32_t pending_blocks;	/* freed, reusable after the next commit */
	uint64_t free_pages;		/* free_blocks in pages, all planes */
	uint64_t largest_pages;		/* largest_run in pages */
	uint32_t shared_stripes;	/* stripes holding packed regions */
	uint32_t packed_regions;	/* live packed regions */
	uint64_t shared_free_pages;	/* rows above the frontiers, packed use only */
	uint64_t dead_pages;		/* rows below the frontiers no live tenant
					 * holds: back when their stripe empties */
	uint64_t row_pages;		/* pages of one row: the packed unit */
};

/** fs_space() - free space of partition @part. Return: 0 or -EINVAL. */
int fs_space(struct fs *fs, uint32_t part, struct fs_space *out);

/* ---- Metadata ---- */

/**
 * fs_commitv() - atomically persist the region table together with the
 * engines' blob (@n pieces, concatenated). On success, blocks of regions
 * freed before the call become reusable.
 * Return: 0; -EFBIG when it exceeds the metadata size; -EIO.
 */
int fs_commitv(struct fs *fs, const struct fm_iov *iov, unsigned n);

/**
 * fs_user_blob() - the engines' blob as found at open (the part of the last
 * commit after the region table); valid until fs_user_blob_free() or
 * fs_close(). Empty (@len = 0) for a new drive.
 */
void fs_user_blob(struct fs *fs, const void **blob, size_t *len);

/** fs_user_blob_free() - drop the copy kept by fs_user_blob(). */
void fs_user_blob_free(struct fs *fs);

/** fs_meta_seq() - sequence number of the last committed metadata. */
uint64_t fs_meta_seq(struct fs *fs);

/* ---- Controller DRAM budget ---- */

#define FS_DRAM_NAME_LEN 24
#define FS_DRAM_MAX_NAMES 32

struct fs_dram_use {
	char name[FS_DRAM_NAME_LEN];
	uint64_t bytes;
};

/**
 * fs_dram_reserve() - account @bytes of controller DRAM to category @name
 * ("r-db", "r-ivf", "ttl", "rf-map", ...; at most FS_DRAM_NAME_LEN - 1
 * characters).
 * Return: 0; -ENOMEM when the budget (fp_params.dram_bytes) would be
 * exceeded; -ENOSPC when FS_DRAM_MAX_NAMES categories are in use; -EINVAL.
 */
int fs_dram_reserve(struct fs *fs, const char *name, uint64_t bytes);

/**
 * fs_dram_release() - give back @bytes of category @name.
 * Return: 0; -EINVAL when more than reserved or unknown @name.
 */
int fs_dram_release(struct fs *fs, const char *name, uint64_t bytes);

/** fs_dram_used() - bytes used by @name, or by all categories if NULL. */
uint64_t fs_dram_used(struct fs *fs, const char *name);

/** fs_dram_budget() - the budget. */
uint64_t fs_dram_budget(const struct fs *fs);

/** fs_dram_list() - copy up to @max categories; return: their number. */
int fs_dram_list(struct fs *fs, struct fs_dram_use *out, size_t max);

/* ---- Statistics ---- */

struct fs_stats {
	uint64_t programmed_pages;	/* now */
	uint64_t blocks_tracked;	/* blocks with a state record in memory */
	uint64_t mem_bytes;		/* host memory held by the store */
	uint64_t reads, programs, erases;	/* since open */
	uint64_t mem_refused;		/* in memory: programs refused by mem_cap */
	uint64_t disk_refused;		/* backing file: programs refused by backing_cap */
};

void fs_get_stats(struct fs *fs, struct fs_stats *out);

/* ---- Host-memory budgets (docs/security.md) ---- */

struct isp_budget;

/**
 * fs_buf_budget() - the budget every command's working buffers are taken
 * from (isp_budget.h; its size is the buf_budget parameter). The in-memory
 * store's own pages are capped by mem_cap: a program past it fails with
 * -ENOMEM, which the engines answer with Capacity Exceeded.
 */
struct isp_budget *fs_buf_budget(struct fs *fs);

/**
 * fs_fixed_bytes() - the most host memory a store of @p holds besides its
 * pages (isp_hostmem.h "fixed"): every block's bookkeeping, the region and
 * pending tables at FS_MAX_REGIONS, the metadata image (two slots of
 * @meta_max in memory, 0: 64 MiB) and a commit's assembly.
 */
uint64_t fs_fixed_bytes(const struct fp_params *p, int backing, uint64_t meta_max);

#endif /* FLASH_STORE_H */
