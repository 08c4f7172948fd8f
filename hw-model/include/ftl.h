/* SPDX-License-Identifier: MIT */
/*
 * ftl.h - the flash translation layer of the modeled drive: ordinary reads,
 * writes, flushes and deallocations of the namespaces, on the same flash
 * array, timing engine and controller DRAM as the in-storage work.
 *
 * What it models (docs/ftl.md): a page-level map of 4 KiB units of every
 * attached namespace onto pages of native-mode (TLC) blocks; those blocks
 * come in whole block stripes (one block on every plane) from the store's
 * region allocator, next to the REIS / RecFlash regions, so a deploy and
 * the FTL draw from one pool; a write buffer in controller DRAM that
 * assembles pages and programs them on the planes in Parallelism-First
 * order; per-plane greedy (or cost-benefit) garbage collection paced with
 * the host writes; write amplification and wear counted.
 *
 * What it does not hold: the data. The namespace's bytes stay in the
 * transport's block backend (QEMU's image), as in FEMU's BlackBox mode; the
 * FTL tracks where each unit would live and what every access costs, so
 * flash pages of the store are never programmed by it (its blocks read as
 * erased there) and its host memory is 4 bytes per unit of map plus 4 per
 * unit of the flash it holds.
 *
 * Every operation books on the struct ft passed at open (ft_ctrl, ft_core,
 * ft_dma, ft_dram, ft_page_read, ft_page_program, ft_block_erase), so an
 * ordinary read waits behind a search that holds its plane and a search
 * waits behind reads, programs and GC. An FTL that no one calls books
 * nothing and reserves nothing: with no namespace attached it holds no
 * flash and no DRAM.
 *
 * Thread-safe: one mutex per FTL (lock order: FTL, then store, then
 * timing). Deterministic: no clock, no randomness; device time comes with
 * each request.
 */
#ifndef FTL_H
#define FTL_H

#include <stddef.h>
#include <stdint.h>

#include "flash_preset.h"

struct ftl;
struct fs;
struct ft;
struct ft_cmd;
struct ft_trace;

#define FTL_UNIT 4096u		/* bytes of one mapping unit */
#define FTL_MAX_NS 16u		/* namespaces one FTL maps */
/* Largest map one FTL keeps: 2^30 units (4 TiB of namespaces). */
#define FTL_MAX_UNITS (UINT64_C(1) << 30)
/* Spare block stripes beyond the data: an open host block, an open GC
 * destination, a free block GC can always take, on every plane, and one
 * more of slack, so that GC gains a block per victim even at the minimum. */
#define FTL_SPARE_STRIPES 3u

enum ftl_opc {
	FTL_READ = 1,
	FTL_WRITE = 2,
	FTL_FLUSH = 3,		/* buffered data reaches flash */
	FTL_TRIM = 4,		/* deallocate (DSM AD, Write Zeroes) */
};

/* One ordinary I/O command. */
struct ftl_io {
	uint32_t opc;		/* enum ftl_opc */
	uint32_t nsid;		/* an attached namespace; FLUSH may name 0 */
	uint64_t off;		/* bytes into the namespace */
	uint64_t len;		/* bytes (FLUSH: 0) */
	uint64_t submit_ns;	/* device clock at submission (isp_cmd.submit_ns) */
	struct ft_trace *trace;	/* record the command's activity, or NULL */
};

/* ftl_cpl.flags */
#define FTL_CPL_STALL 1u	/* a write waited for write-buffer room */
#define FTL_CPL_GC 2u		/* the command advanced garbage collection */
#define FTL_CPL_BUF 4u		/* a read was served (partly) from the buffer */

struct ftl_cpl {
	uint64_t model_ns;	/* modeled latency */
	uint64_t energy_pj;	/* of the command itself (not its background work) */
	uint32_t flags;		/* FTL_CPL_* */
	uint32_t flash_reads;	/* page reads the command waited for */
};

/* Cumulative counters (since open or the last reset). */
struct ftl_stats {
	uint64_t reads, writes, flushes, trims;	/* commands */
	uint64_t read_bytes, write_bytes;	/* host bytes */
	uint64_t nand_write_bytes;	/* programmed: host + GC + padding */
	uint64_t gc_write_bytes;	/* units GC moved, in bytes */
	uint64_t pad_bytes;		/* padding of partial pages (flush, GC end) */
	uint64_t rmw_reads;		/* flash reads for partial-unit writes */
	uint64_t gc_victims;		/* blocks GC reclaimed (and erased) */
	uint64_t gc_erases;		/* erases: GC, new stripes, stripes given back */
	uint64_t buf_hits;		/* units read from the write buffer */
	uint64_t unmapped_reads;	/* units read that were never written */
	uint64_t stalls;		/* writes that waited for buffer room */
	uint64_t stall_ps;		/* how long they waited */
	uint64_t io_model_ns;		/* sum of the commands' modeled latency */
	uint64_t read_model_ns, write_model_ns;
	uint64_t grows, shrinks;	/* stripes taken / given back */
	uint64_t trim_units;		/* mapped units deallocated */
	uint64_t inside_reads;		/* ftl_read_inside() calls (Memory Copy) */
	uint64_t inside_read_bytes;
	/* State (not reset): */
	uint64_t user_bytes;		/* attached namespaces */
	uint64_t phys_bytes;		/* the stripes held, native mode */
	uint32_t stripes, stripes_min, stripes_target;
	uint32_t op_permille;		/* (phys - user) / user now */
	uint32_t free_blocks;		/* erased blocks, all planes */
	uint32_t gc_planes;		/* planes with GC in progress */
	uint64_t valid_units;
	uint64_t erase_sum;		/* erases of the blocks held */
	uint32_t erase_max;
	uint32_t nns;
};

struct ftl_config {
	struct fs *fs;			/* the flash store (regions, DRAM budget) */
	struct ft *ft;			/* the timing engine */
	const struct fp_params *p;	/* the drive's parameters (copied) */
	const void *blob;		/* ftl_save()'s last committed output, */
	size_t blob_len;		/* or NULL / 0 for a new drive */
};

/**
 * ftl_open() - an FTL on @cfg's store and timing engine, with the state of
 * @cfg->blob. Regions of the store tagged as the FTL's that the blob does
 * not name are freed (stripes taken after the last commit).
 * Return: 0; -EINVAL (bad config, or a blob whose stripes do not match the
 * store's region table: @err says which); -EIO (corrupt blob); -ENOMEM.
 */
int ftl_open(const struct ftl_config *cfg, struct ftl **out, char *err, size_t errlen);

/** ftl_close() - free @ftl (NULL is a no-op); the regions stay the store's. */
void ftl_close(struct ftl *ftl);

/**
 * ftl_attach() - map namespace @nsid (1..2^32-2) of @bytes (a multiple of
 * 512). A namespace the blob knew with the same size keeps its map; one
 * whose size changed starts over. With the ftl_fill parameter, a new
 * namespace starts fully written (every unit mapped, in LBA order, as a
 * drive whose image was written sequentially once). Takes the block
 * stripes the namespaces need (their data plus FTL_SPARE_STRIPES) at once,
 * and the ones of the over-provisioning (ftl_op) when the store has them
 * free; reserves the map and the write buffer in controller DRAM.
 * Return: 0 (also when already attached with that size); -ENOSPC when the
 * flash or DRAM cannot hold it (@err says how much is missing); -E2BIG
 * beyond FTL_MAX_NS namespaces or FTL_MAX_UNITS; -EINVAL; -ENOMEM.
 */
int ftl_attach(struct ftl *ftl, uint32_t nsid, uint64_t bytes, char *err, size_t errlen);

/**
 * ftl_io() - book one command: reads go to the planes holding their units
 * (or the buffer, or nowhere for never-written units), writes into the
 * write buffer (waiting for room), whose full pages program on the planes,
 * GC runs as the writes need it. Charged on the timing engine from
 * @io->submit_ns.
 * Return: 0; -ENOENT for an unattached @nsid; -EINVAL for a range past the
 * namespace or a bad opcode; -ENOSPC when no block can take a write (the
 * FTL's capacity invariant broken: not expected).
 */
int ftl_io(struct ftl *ftl, const struct ftl_io *io, struct ftl_cpl *cpl);

/* One range of a Dataset Management deallocation, in bytes. */
struct ftl_range {
	uint64_t off, len;
};

#define FTL_DSM_MAX 256u	/* ranges of one command (NVMe DSM NR) */

/**
 * ftl_deallocate() - Dataset Management with Attribute Deallocate: the
 * whole 4 KiB units of @n ranges (1..FTL_DSM_MAX) of namespace @nsid
 * leave the map (a partial unit keeps its data), submitted at
 * @submit_ns. Cost: the firmware path once, then the map updates in
 * controller DRAM, 8 bytes per unit covered and 8 more per unit that was
 * mapped (docs/ftl.md, "Deallocation"); no flash access.
 * Return: 0; -ENOENT for an unattached @nsid; -EINVAL for a range past
 * the namespace, an empty one, or a bad @n (nothing changes then).
 */
int ftl_deallocate(struct ftl *ftl, uint32_t nsid, const struct ftl_range *r, uint32_t n,
		   uint64_t submit_ns, struct ftl_cpl *cpl);

/**
 * ftl_read_inside() - book reading @len bytes at @off of namespace @nsid
 * for work inside the drive (Memory Copy from the NVM namespace, CS2):
 * the FTL's own reads of those units on command @c from @ready (ps): page
 * reads on the planes that hold them, buffered units from DRAM,
 * never-written units from nowhere; no host transfer. So the work waits
 * behind GC, reads and searches on those planes, and they behind it.
 * *@end: when the data is in the controller.
 * Return: 0; -ENOENT when @nsid is not attached (the caller times the
 * bytes its own way); -EINVAL for a range past the namespace or no bytes.
 */
int ftl_read_inside(struct ftl *ftl, struct ft_cmd *c, uint32_t nsid, uint64_t off,
		    uint64_t len, uint64_t ready, uint64_t *end);

/** ftl_dirty() - whether the map changed since the last ftl_save(). */
int ftl_dirty(struct ftl *ftl);

/**
 * ftl_save() - serialize the map, block states and stripes into a
 * malloc'd blob for the device's metadata commit (docs/ftl.md, "Crash
 * rules"). Return: 0 or -ENOMEM.
 */
int ftl_save(struct ftl *ftl, void **blob, size_t *len);

/**
 * ftl_reclaim() - give back up to @stripes block stripes beyond the
 * namespaces' minimum to the region allocator (a deploy needs the room):
 * GC moves the valid units out of the emptiest stripes, their blocks are
 * erased and the regions freed at once (they hold no store data).
 * @ready_ns: device time the work starts.
 * Return: stripes given back (0: none beyond the minimum).
 */
int ftl_reclaim(struct ftl *ftl, uint32_t stripes, uint64_t ready_ns);

/** ftl_get_stats() - counters and state; @reset clears the counters. */
void ftl_get_stats(struct ftl *ftl, struct ftl_stats *out, int reset);

/** ftl_owner_tag() - the owner tag (upper 32 bits) of the FTL's regions. */
#define FTL_OWNER_TAG 0x46544c00u	/* "FTL" */

#endif /* FTL_H */
