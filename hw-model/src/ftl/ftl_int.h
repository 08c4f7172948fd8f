/* SPDX-License-Identifier: MIT */
/*
 * ftl_int.h - what the FTL's files share; not installed.
 *
 *   ftl_map.c      open/close, namespaces, the L2P map and its reverse
 *   ftl_space.c    block stripes from the region allocator, blocks per plane
 *   ftl_wbuf.c     the write buffer: room, page assembly, programs, hits
 *   ftl_gc.c       victim choice (greedy, cost-benefit), paced GC steps
 *   ftl_io.c       the host commands (read, write, flush, trim), stats
 *   ftl_persist.c  save / load for the metadata commit
 *
 * Addresses: a physical unit (pun) is stripe slot s, plane p, page g, slot
 * k of the page: pun = ((s * NP + p) * ppb + g) * upp + k, with NP planes,
 * ppb native pages per block and upp units per page. Units the host wrote
 * fill pages plane after plane in Parallelism-First order (fg_pfpa_plane),
 * so sequential data spreads over channels first, as REIS lays out its
 * databases.
 */
#ifndef FTL_INT_H
#define FTL_INT_H

#include <pthread.h>
#include <stdint.h>

#include "flash_geom.h"
#include "flash_store.h"
#include "flash_timing.h"
#include "ftl.h"

#define FTL_NONE UINT32_MAX

/*
 * Free blocks per plane: the host may open a block only while more than
 * FTL_GC_KEEP are free (GC always has a destination); GC starts in the
 * background when opening a block leaves FTL_GC_START or fewer, and runs
 * until FTL_GC_FREE are free.
 */
#define FTL_GC_KEEP 1u
#define FTL_GC_START 1u
#define FTL_GC_FREE 2u

enum ftl_bstate {
	FTL_B_FREE = 0,		/* erased, on its plane's free list */
	FTL_B_HOST = 1,		/* open for host writes */
	FTL_B_GC = 2,		/* open as GC destination */
	FTL_B_CLOSED = 3,	/* full (or closed by a restart) */
	FTL_B_VICTIM = 4,	/* being reclaimed */
};

/* One block of one plane of a held stripe. */
struct ftl_blk {
	uint64_t avail;		/* ps: erased and usable from */
	uint64_t prog_end;	/* ps: end of its last program issued */
	uint64_t mtime;		/* ps: when its last page was taken (age) */
	uint32_t valid;		/* valid units */
	uint32_t erases;
	uint32_t next;		/* free-list link: stripe slot */
	uint16_t wp;		/* pages taken (programmed, in flight or assembling) */
	uint8_t state;		/* enum ftl_bstate */
	uint8_t rsvd;
};

/* A held block stripe: a region of the store. */
struct ftl_sb {
	uint32_t region;	/* fs region id; 0: slot unused */
	uint32_t first_block;
	uint32_t leaving;	/* being given back (ftl_reclaim) */
	uint32_t *p2l;		/* per unit of the stripe: the LBA unit, FTL_NONE */
};

/* A page being assembled in the buffer (host) or in GC's page register. */
struct ftl_asm {
	uint32_t sb;		/* stripe slot of its block; FTL_NONE: none */
	uint32_t plane;
	uint32_t page;
	uint32_t n;		/* units placed */
	uint64_t ready;		/* ps: its last unit is there */
};

struct ftl_plane {
	uint32_t host_sb;	/* open host block (stripe slot) or FTL_NONE */
	uint32_t gc_sb;		/* open GC destination or FTL_NONE */
	uint32_t free_head;	/* free list, FTL_NONE-terminated */
	uint32_t nfree;
	uint32_t victim;	/* GC in progress on this block, or FTL_NONE */
	uint32_t vpage;		/* next page of the victim to look at */
	uint32_t gc_on;		/* listed in ftl.gc_list */
	uint32_t rsvd;
	uint64_t gc_end;	/* ps: end of the last GC operation booked */
	uint64_t busy;		/* ps: end of the last FTL operation booked here */
	struct ftl_asm gc;	/* GC destination page being filled */
};

struct ftl_ns {
	uint32_t nsid;
	uint32_t rsvd;
	uint64_t bytes;
	uint64_t base;		/* first unit in the map */
	uint64_t units;
};

/* An issued host page program: its units hold buffer room until @end. */
struct ftl_wb {
	uint64_t end;
	uint32_t sb, plane, page, units;
};

struct ftl {
	pthread_mutex_t lock;
	struct fs *fs;
	struct ft *ft;
	struct fp_params p;
	const struct fg_geom *g;
	uint32_t NP, ppb, upp, mode;
	uint64_t spu;		/* units per stripe */
	uint64_t page_bytes;

	struct ftl_ns ns[FTL_MAX_NS];
	uint32_t nns;
	uint64_t units;		/* user units, all namespaces */
	uint32_t *map;		/* per user unit: pun or FTL_NONE */

	struct ftl_sb *sb;	/* stripe slots */
	struct ftl_blk *blk;	/* capsb * NP: blk[slot * NP + plane] */
	uint32_t nsb, capsb;	/* slots in use (high water), allocated */
	uint32_t held;		/* stripes held */
	uint32_t need_min, need_target;
	struct ftl_plane *pl;

	/* host writes */
	struct ftl_asm host;
	uint64_t rr;		/* Parallelism-First cursor over the planes */

	/* write buffer: min-heap of issued host programs by end */
	struct ftl_wb *wb;
	uint32_t nwb, capwb;
	uint64_t wb_cap;	/* units */
	uint64_t wb_used;	/* units: assembling + in heap */
	uint64_t wb_last;	/* ps: latest end of any host program issued */
	uint64_t dram_map, dram_wbuf;	/* bytes reserved in the DRAM budget */

	/* GC */
	uint32_t *gc_list;	/* planes with GC in progress */
	uint32_t ngc;
	uint64_t horizon;	/* ps GC books ahead of the host */

	uint32_t owner_seq;	/* low 32 bits of the next region's owner */
	uint64_t grow_after;	/* ps: no stripe was free; do not ask before */
	uint64_t last_ns;	/* submit time of the latest command */
	int dirty;
	struct ftl_stats st;
};

/* ---- addresses ---- */

static inline uint64_t ftl_pun(const struct ftl *f, uint32_t sb, uint32_t plane,
			       uint32_t page, uint32_t slot)
{
	return (((uint64_t)sb * f->NP + plane) * f->ppb + page) * f->upp + slot;
}

static inline uint32_t ftl_pun_sb(const struct ftl *f, uint64_t pun)
{
	return (uint32_t)(pun / f->spu);
}

static inline uint32_t ftl_pun_plane(const struct ftl *f, uint64_t pun)
{
	return (uint32_t)(pun / ((uint64_t)f->ppb * f->upp) % f->NP);
}

static inline uint32_t ftl_pun_page(const struct ftl *f, uint64_t pun)
{
	return (uint32_t)(pun / f->upp % f->ppb);
}

static inline struct ftl_blk *ftl_blk_of(struct ftl *f, uint32_t sb, uint32_t plane)
{
	return &f->blk[(uint64_t)sb * f->NP + plane];
}

static inline uint32_t *ftl_p2l(struct ftl *f, uint64_t pun)
{
	return &f->sb[ftl_pun_sb(f, pun)].p2l[pun % f->spu];
}

static inline uint64_t ftl_max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* ---- ftl_map.c ---- */
void ftl_unmap_unit(struct ftl *f, uint64_t lun);
void ftl_bind(struct ftl *f, uint64_t lun, uint64_t pun);
int ftl_ns_find(const struct ftl *f, uint32_t nsid);

int ftl_dram_take(struct ftl *f, uint64_t units, char *err, size_t errlen);

/* ---- ftl_space.c ---- */
int ftl_grow(struct ftl *f, struct ft_cmd *bg, uint64_t now);
int ftl_grow_to(struct ftl *f, uint32_t want, struct ft_cmd *bg, uint64_t now);
uint32_t ftl_free_pop(struct ftl *f, uint32_t plane);
void ftl_free_push(struct ftl *f, uint32_t plane, uint32_t sb);
void ftl_free_remove(struct ftl *f, uint32_t plane, uint32_t sb);
int ftl_slot_new(struct ftl *f, uint32_t region, uint32_t first_block);
void ftl_sizes(struct ftl *f);
int ftl_reclaim_locked(struct ftl *f, uint32_t n, struct ft_cmd *bg, uint64_t now);

/* ---- ftl_wbuf.c ---- */
uint64_t ftl_wb_room(struct ftl *f, uint64_t n, uint64_t t);
int ftl_host_place(struct ftl *f, struct ft_cmd *bg, uint64_t lun, uint64_t ready,
		   uint64_t now);
uint64_t ftl_host_flush(struct ftl *f, struct ft_cmd *bg);
int ftl_in_buffer(struct ftl *f, uint64_t pun, uint64_t t);
uint64_t ftl_asm_program(struct ftl *f, struct ft_cmd *bg, struct ftl_asm *a, int host);
void ftl_wb_push(struct ftl *f, const struct ftl_wb *e);
uint64_t ftl_program(struct ftl *f, struct ft_cmd *bg, uint32_t plane, uint64_t ready);
uint64_t ftl_erase(struct ftl *f, struct ft_cmd *bg, uint32_t plane, uint64_t ready);

/* ---- ftl_gc.c ---- */
uint32_t ftl_gc_victim(struct ftl *f, uint32_t plane, uint64_t now);
void ftl_gc_start(struct ftl *f, uint32_t plane);
int ftl_gc_step(struct ftl *f, struct ft_cmd *bg, uint32_t plane, uint64_t now);
void ftl_gc_advance(struct ftl *f, struct ft_cmd *bg, uint64_t now);
int ftl_gc_force(struct ftl *f, struct ft_cmd *bg, uint32_t plane, uint64_t now);
int ftl_gc_evacuate(struct ftl *f, struct ft_cmd *bg, uint32_t sb, uint64_t now);

/* ---- ftl_persist.c ---- */
int ftl_load(struct ftl *f, const void *blob, size_t len, char *err, size_t errlen);

#endif /* FTL_INT_H */
