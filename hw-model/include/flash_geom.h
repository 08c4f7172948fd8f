/* SPDX-License-Identifier: MIT */
/*
 * flash_geom.h - flash array geometry, physical page addresses, mini-page
 * addresses and the Parallelism-First Page Allocation order.
 *
 * A physical page address (ppa) packs channel, die, plane, block and page
 * into fixed bit fields, the same for every geometry, so an address read
 * back from OOB or a trace is decodable without knowing the preset:
 *
 *   bits  0..11  page within the block   (pages_per_block <= 4096)
 *   bits 12..27  block within the plane  (blocks_per_plane <= 65536)
 *   bits 28..31  plane within the die    (planes_per_die <= 16)
 *   bits 32..37  die within the channel  (dies_per_channel <= 64)
 *   bits 38..43  channel                 (channels <= 64)
 *
 * A mini-page address (REIS §4.3.2) is a ppa with an entry offset
 * appended: mini = ppa << 16 | offset.
 *
 * Planes, dies and channels also have flat indices used by the timing
 * engine: die = channel * dies_per_channel + die_in_channel,
 * plane = die * planes_per_die + plane_in_die.
 *
 * Pure functions; no locking needed.
 */
#ifndef FLASH_GEOM_H
#define FLASH_GEOM_H

#include <stdint.h>

#include "flash_preset.h"

#define FG_PAGE_SHIFT 0
#define FG_PAGE_BITS 12
#define FG_BLOCK_SHIFT 12
#define FG_BLOCK_BITS 16
#define FG_PLANE_SHIFT 28
#define FG_PLANE_BITS 4
#define FG_DIE_SHIFT 32
#define FG_DIE_BITS 6
#define FG_CHANNEL_SHIFT 38
#define FG_CHANNEL_BITS 6
#define FG_PPA_BITS 44
#define FG_MINI_BITS 16		/* mini-page offset bits */

#define FG_FIELD(ppa, f) \
	((uint32_t)(((ppa) >> FG_##f##_SHIFT) & ((UINT64_C(1) << FG_##f##_BITS) - 1)))

/* Cell-mode partitions: the first slc_blocks blocks of every plane are SLC
 * (ESP, REIS 4.1.2), the rest are in the native mode. */
enum fg_part_id {
	FG_PART_SLC = 0,
	FG_PART_NATIVE = 1,
	FG_NPARTS = 2,
};

struct fg_part {
	uint32_t first_block;	/* block index within every plane */
	uint32_t nblocks;	/* 0: the partition is empty */
	uint32_t mode;		/* enum isp_cell_mode */
	uint32_t pages_per_block;	/* usable pages in that mode */
};

struct fg_geom {
	uint32_t channels;
	uint32_t dies_per_channel;
	uint32_t planes_per_die;
	uint32_t blocks_per_plane;
	uint32_t pages_per_block;	/* native mode */
	uint32_t page_bytes;
	uint32_t oob_bytes;
	uint32_t subpage_bytes;
	uint32_t native_mode;
	uint32_t slc_blocks;
	uint32_t dies;			/* all dies of the drive */
	uint32_t planes;		/* all planes of the drive */
	struct fg_part part[FG_NPARTS];
};

struct fg_addr {
	uint32_t channel;
	uint32_t die;		/* within the channel */
	uint32_t plane;		/* within the die */
	uint32_t block;
	uint32_t page;
};

/**
 * fg_init() - derive the geometry of @p.
 * Return: 0, or -EINVAL when fp_validate() rejects @p.
 */
int fg_init(struct fg_geom *g, const struct fp_params *p);

/**
 * fg_pack() - build the ppa of @a.
 * Return: 0, or -EINVAL when a field is out of range for @g (including a
 * page index beyond the block's cell mode, see fg_block_pages()).
 */
int fg_pack(const struct fg_geom *g, const struct fg_addr *a, uint64_t *ppa);

/**
 * fg_unpack() - split @ppa into its fields.
 * Return: 0, or -EINVAL when @ppa does not address a page of @g.
 */
int fg_unpack(const struct fg_geom *g, uint64_t ppa, struct fg_addr *a);

/**
 * fg_check() - whether @ppa addresses an existing page (0) or not (-EINVAL).
 */
int fg_check(const struct fg_geom *g, uint64_t ppa);

/**
 * fg_block_part() - partition (enum fg_part_id) of block @block.
 */
static inline uint32_t fg_block_part(const struct fg_geom *g, uint32_t block)
{
	return block < g->slc_blocks ? FG_PART_SLC : FG_PART_NATIVE;
}

/**
 * fg_block_mode() - cell mode of @block; fg_block_pages() - its usable pages.
 */
static inline uint32_t fg_block_mode(const struct fg_geom *g, uint32_t block)
{
	return g->part[fg_block_part(g, block)].mode;
}

static inline uint32_t fg_block_pages(const struct fg_geom *g, uint32_t block)
{
	return g->part[fg_block_part(g, block)].pages_per_block;
}

/**
 * fg_ppa_mode() - cell mode of the block holding @ppa (no range check).
 */
static inline uint32_t fg_ppa_mode(const struct fg_geom *g, uint64_t ppa)
{
	return fg_block_mode(g, FG_FIELD(ppa, BLOCK));
}

/* Flat indices of the plane / die / channel holding @ppa (no range check). */
static inline uint32_t fg_ppa_die(const struct fg_geom *g, uint64_t ppa)
{
	return FG_FIELD(ppa, CHANNEL) * g->dies_per_channel + FG_FIELD(ppa, DIE);
}

static inline uint32_t fg_ppa_plane(const struct fg_geom *g, uint64_t ppa)
{
	return fg_ppa_die(g, ppa) * g->planes_per_die + FG_FIELD(ppa, PLANE);
}

static inline uint32_t fg_ppa_channel(uint64_t ppa)
{
	return FG_FIELD(ppa, CHANNEL);
}

/**
 * fg_plane_addr() - channel/die/plane of flat plane index @plane; the block
 * and page fields of @a are set to 0.
 * Return: 0 or -EINVAL for @plane >= g->planes.
 */
int fg_plane_addr(const struct fg_geom *g, uint32_t plane, struct fg_addr *a);

/* Channel and die of a flat plane index (no range check). */
static inline uint32_t fg_plane_die(const struct fg_geom *g, uint32_t plane)
{
	return plane / g->planes_per_die;
}

static inline uint32_t fg_plane_channel(const struct fg_geom *g, uint32_t plane)
{
	return plane / (g->planes_per_die * g->dies_per_channel);
}

/**
 * fg_block_index() - dense index of the block holding @ppa over the whole
 * drive: plane * blocks_per_plane + block (no range check).
 */
static inline uint64_t fg_block_index(const struct fg_geom *g, uint64_t ppa)
{
	return (uint64_t)fg_ppa_plane(g, ppa) * g->blocks_per_plane +
	       FG_FIELD(ppa, BLOCK);
}

/**
 * fg_page_index() - dense index of the page: block index * pages_per_block
 * (native) + page. Used to place a page in the backing file.
 */
static inline uint64_t fg_page_index(const struct fg_geom *g, uint64_t ppa)
{
	return fg_block_index(g, ppa) * g->pages_per_block + FG_FIELD(ppa, PAGE);
}

/* Number of pages of the whole drive in native-mode page slots. */
static inline uint64_t fg_page_slots(const struct fg_geom *g)
{
	return (uint64_t)g->planes * g->blocks_per_plane * g->pages_per_block;
}

/**
 * fg_pfpa_plane_of() - Parallelism-First Page Allocation (REIS 4.1.1, [332]):
 * the flat plane index of logical page @lpage of a region. Consecutive pages
 * go to channel 0, 1, ... first, then to the next die of each channel, then
 * to the next plane of each die, so any planes-many consecutive pages touch
 * every plane exactly once.
 */
static inline uint32_t fg_pfpa_plane_of(uint32_t channels, uint32_t dies_per_channel,
					uint32_t planes_per_die, uint64_t lpage)
{
	uint32_t np = channels * dies_per_channel * planes_per_die;
	uint32_t k = (uint32_t)(lpage % np);
	uint32_t ch = k % channels;
	uint32_t die = (k / channels) % dies_per_channel;
	uint32_t pl = k / (channels * dies_per_channel);

	return (ch * dies_per_channel + die) * planes_per_die + pl;
}

static inline uint32_t fg_pfpa_plane(const struct fg_geom *g, uint64_t lpage)
{
	return fg_pfpa_plane_of(g->channels, g->dies_per_channel,
				g->planes_per_die, lpage);
}

/**
 * fg_pfpa_ppa() - ppa of logical page @lpage of a region made of the
 * @nblocks blocks starting at @first_block (the same blocks on every plane)
 * in partition @part. Within the region pages stripe over all planes
 * (fg_pfpa_plane()), then advance the page within the block, then the block.
 * Return: 0, or -EINVAL when the region is not inside the partition or
 * @lpage is beyond its fg_region_pages().
 */
int fg_pfpa_ppa(const struct fg_geom *g, uint32_t part, uint32_t first_block,
		uint32_t nblocks, uint64_t lpage, uint64_t *ppa);

/**
 * fg_pfpa_lpage() - inverse of fg_pfpa_ppa(): the logical page of @ppa in
 * the region.
 * Return: 0, or -EINVAL when @ppa is not in the region.
 */
int fg_pfpa_lpage(const struct fg_geom *g, uint32_t part, uint32_t first_block,
		  uint32_t nblocks, uint64_t ppa, uint64_t *lpage);

/* Pages of a region of @nblocks blocks per plane in partition @part. */
static inline uint64_t fg_region_pages(const struct fg_geom *g, uint32_t part,
				       uint32_t nblocks)
{
	return (uint64_t)nblocks * g->part[part].pages_per_block * g->planes;
}

/* Mini-page addresses (REIS 4.3.2): page address + entry offset. */
static inline uint64_t fg_mini(uint64_t ppa, uint32_t offset)
{
	return (ppa << FG_MINI_BITS) | (offset & ((1u << FG_MINI_BITS) - 1));
}

static inline uint64_t fg_mini_ppa(uint64_t mini)
{
	return mini >> FG_MINI_BITS;
}

static inline uint32_t fg_mini_offset(uint64_t mini)
{
	return (uint32_t)(mini & ((1u << FG_MINI_BITS) - 1));
}

/**
 * fg_mini_check() - whether @mini addresses entry offset of @entry_bytes
 * bytes that lies inside an existing page.
 * Return: 0 or -EINVAL.
 */
int fg_mini_check(const struct fg_geom *g, uint64_t mini, uint32_t entry_bytes);

/**
 * fg_offset_bits() - bits needed for the offset of @per_page entries per
 * page (REIS 4.3.2: 128 binary 1024-d embeddings per 16 KiB page -> 7).
 */
static inline uint32_t fg_offset_bits(uint32_t per_page)
{
	uint32_t b = 0;

	while (b < 32 && (UINT64_C(1) << b) < per_page)
		b++;
	return b;
}

#endif /* FLASH_GEOM_H */
