/* SPDX-License-Identifier: MIT */
/*
 * flash_geom.c - geometry, address packing and the Parallelism-First order
 * (REIS §2.3, §4.1.1; docs/timing-model.md "Storage and metadata").
 */
#include <errno.h>
#include <string.h>

#include "flash_geom.h"

int fg_init(struct fg_geom *g, const struct fp_params *p)
{
	if (!g || !p || fp_validate(p, NULL, 0))
		return -EINVAL;
	memset(g, 0, sizeof(*g));
	g->channels = p->channels;
	g->dies_per_channel = p->dies_per_channel;
	g->planes_per_die = p->planes_per_die;
	g->blocks_per_plane = p->blocks_per_plane;
	g->pages_per_block = p->pages_per_block;
	g->page_bytes = p->page_bytes;
	g->oob_bytes = p->oob_bytes;
	g->subpage_bytes = p->subpage_bytes;
	g->native_mode = p->native_mode;
	g->slc_blocks = p->slc_blocks;
	g->dies = p->channels * p->dies_per_channel;
	g->planes = g->dies * p->planes_per_die;

	g->part[FG_PART_SLC].first_block = 0;
	g->part[FG_PART_SLC].nblocks = p->slc_blocks;
	g->part[FG_PART_SLC].mode = ISP_CELL_SLC;
	g->part[FG_PART_SLC].pages_per_block = fp_pages_per_block(p, ISP_CELL_SLC);
	g->part[FG_PART_NATIVE].first_block = p->slc_blocks;
	g->part[FG_PART_NATIVE].nblocks = p->blocks_per_plane - p->slc_blocks;
	g->part[FG_PART_NATIVE].mode = p->native_mode;
	g->part[FG_PART_NATIVE].pages_per_block = fp_pages_per_block(p, p->native_mode);
	return 0;
}

static int fg_addr_ok(const struct fg_geom *g, const struct fg_addr *a)
{
	return a->channel < g->channels && a->die < g->dies_per_channel &&
	       a->plane < g->planes_per_die && a->block < g->blocks_per_plane &&
	       a->page < fg_block_pages(g, a->block);
}

int fg_pack(const struct fg_geom *g, const struct fg_addr *a, uint64_t *ppa)
{
	if (!g || !a || !ppa || !fg_addr_ok(g, a))
		return -EINVAL;
	*ppa = (uint64_t)a->page << FG_PAGE_SHIFT |
	       (uint64_t)a->block << FG_BLOCK_SHIFT |
	       (uint64_t)a->plane << FG_PLANE_SHIFT |
	       (uint64_t)a->die << FG_DIE_SHIFT |
	       (uint64_t)a->channel << FG_CHANNEL_SHIFT;
	return 0;
}

int fg_unpack(const struct fg_geom *g, uint64_t ppa, struct fg_addr *a)
{
	struct fg_addr t;

	if (!g || (ppa >> FG_PPA_BITS))
		return -EINVAL;
	t.page = FG_FIELD(ppa, PAGE);
	t.block = FG_FIELD(ppa, BLOCK);
	t.plane = FG_FIELD(ppa, PLANE);
	t.die = FG_FIELD(ppa, DIE);
	t.channel = FG_FIELD(ppa, CHANNEL);
	if (!fg_addr_ok(g, &t))
		return -EINVAL;
	if (a)
		*a = t;
	return 0;
}

int fg_check(const struct fg_geom *g, uint64_t ppa)
{
	return fg_unpack(g, ppa, NULL);
}

int fg_plane_addr(const struct fg_geom *g, uint32_t plane, struct fg_addr *a)
{
	uint32_t die;

	if (!g || !a || plane >= g->planes)
		return -EINVAL;
	die = plane / g->planes_per_die;
	a->plane = plane % g->planes_per_die;
	a->die = die % g->dies_per_channel;
	a->channel = die / g->dies_per_channel;
	a->block = 0;
	a->page = 0;
	return 0;
}

static int fg_region_ok(const struct fg_geom *g, uint32_t part, uint32_t first_block,
			uint32_t nblocks)
{
	const struct fg_part *pt;

	if (!g || part >= FG_NPARTS)
		return 0;
	pt = &g->part[part];
	return nblocks > 0 && first_block >= pt->first_block &&
	       (uint64_t)first_block + nblocks <= (uint64_t)pt->first_block + pt->nblocks;
}

int fg_pfpa_ppa(const struct fg_geom *g, uint32_t part, uint32_t first_block,
		uint32_t nblocks, uint64_t lpage, uint64_t *ppa)
{
	struct fg_addr a;
	uint64_t stripe;
	uint32_t ppb, k;

	if (!ppa || !fg_region_ok(g, part, first_block, nblocks) ||
	    lpage >= fg_region_pages(g, part, nblocks))
		return -EINVAL;
	ppb = g->part[part].pages_per_block;
	stripe = lpage / g->planes;
	/* fg_plane_addr(g, fg_pfpa_plane(g, lpage)) without building the flat
	 * index and splitting it again: every read maps a page here, and
	 * divisions are most of its cost. */
	k = (uint32_t)(lpage - stripe * g->planes);
	a.channel = k % g->channels;
	k /= g->channels;
	a.die = k % g->dies_per_channel;
	a.plane = k / g->dies_per_channel;
	a.block = first_block + (uint32_t)(stripe / ppb);
	a.page = (uint32_t)(stripe % ppb);
	return fg_pack(g, &a, ppa);
}

int fg_pfpa_lpage(const struct fg_geom *g, uint32_t part, uint32_t first_block,
		  uint32_t nblocks, uint64_t ppa, uint64_t *lpage)
{
	struct fg_addr a;
	uint64_t stripe;
	uint32_t k;

	if (!lpage || !fg_region_ok(g, part, first_block, nblocks) ||
	    fg_unpack(g, ppa, &a) ||
	    a.block < first_block || a.block >= first_block + nblocks)
		return -EINVAL;
	stripe = (uint64_t)(a.block - first_block) * g->part[part].pages_per_block + a.page;
	/* Invert fg_pfpa_plane(): k = channel + C * (die + D * plane). */
	k = a.channel + g->channels * (a.die + g->dies_per_channel * a.plane);
	*lpage = stripe * g->planes + k;
	return 0;
}

int fg_mini_check(const struct fg_geom *g, uint64_t mini, uint32_t entry_bytes)
{
	uint64_t off = fg_mini_offset(mini);

	if (!g || entry_bytes == 0 || fg_check(g, fg_mini_ppa(mini)))
		return -EINVAL;
	if ((off + 1) * entry_bytes > g->page_bytes)
		return -EINVAL;
	return 0;
}
