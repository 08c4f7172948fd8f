/* SPDX-License-Identifier: MIT */
/*
 * test_flash_geom.c - ppa pack/unpack round trip and bounds, cell-mode
 * partitions, Parallelism-First Page Allocation order, mini-page addresses.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "flash_geom.h"

static void roundtrip(const char *preset)
{
	struct fp_params p;
	struct fg_geom g;
	struct fg_addr a, b;
	uint64_t ppa, seen = 0;
	uint32_t i;

	REQUIRE(fp_preset(preset, &p) == 0);
	REQUIRE(fg_init(&g, &p) == 0);
	CHECK(g.planes == p.channels * p.dies_per_channel * p.planes_per_die);
	/* Corners and a pseudo-random sample of every field. */
	for (i = 0; i < 20000; i++) {
		uint32_t x = i * 2654435761u;

		a.channel = i == 0 ? 0 : i == 1 ? g.channels - 1 : x % g.channels;
		a.die = i == 1 ? g.dies_per_channel - 1 : (x >> 5) % g.dies_per_channel;
		a.plane = i == 1 ? g.planes_per_die - 1 : (x >> 9) % g.planes_per_die;
		a.block = i == 1 ? g.blocks_per_plane - 1 : (x >> 11) % g.blocks_per_plane;
		a.page = (x >> 3) % fg_block_pages(&g, a.block);
		REQUIRE(fg_pack(&g, &a, &ppa) == 0);
		CHECK((ppa >> FG_PPA_BITS) == 0);
		CHECK(fg_unpack(&g, ppa, &b) == 0);
		CHECK(a.channel == b.channel && a.die == b.die && a.plane == b.plane &&
		      a.block == b.block && a.page == b.page);
		CHECK(fg_ppa_channel(ppa) == a.channel);
		CHECK(fg_ppa_plane(&g, ppa) ==
		      (a.channel * g.dies_per_channel + a.die) * g.planes_per_die + a.plane);
		CHECK(fg_plane_channel(&g, fg_ppa_plane(&g, ppa)) == a.channel);
		CHECK(fg_plane_die(&g, fg_ppa_plane(&g, ppa)) == fg_ppa_die(&g, ppa));
		CHECK(fg_page_index(&g, ppa) < fg_page_slots(&g));
		seen |= ppa;
	}
	/* Out of range in every field, and the cell-mode page limit. */
	a = (struct fg_addr){ 0 };
	a.channel = g.channels;
	CHECK(fg_pack(&g, &a, &ppa) == -EINVAL);
	a.channel = 0;
	a.die = g.dies_per_channel;
	CHECK(fg_pack(&g, &a, &ppa) == -EINVAL);
	a.die = 0;
	a.plane = g.planes_per_die;
	CHECK(fg_pack(&g, &a, &ppa) == -EINVAL);
	a.plane = 0;
	a.block = g.blocks_per_plane;
	CHECK(fg_pack(&g, &a, &ppa) == -EINVAL);
	a.block = 0;
	a.page = fg_block_pages(&g, 0);
	CHECK(fg_pack(&g, &a, &ppa) == -EINVAL);
	CHECK(fg_unpack(&g, UINT64_C(1) << FG_PPA_BITS, &b) == -EINVAL);
	CHECK(fg_unpack(&g, UINT64_MAX, &b) == -EINVAL);
	CHECK(fg_check(&g, (uint64_t)g.channels << FG_CHANNEL_SHIFT) == -EINVAL);
	(void)seen;
}

int main(void)
{
	struct fp_params p;
	struct fg_geom g;
	struct fg_addr a;
	uint64_t ppa, lp, i;
	uint32_t *hits;

	roundtrip("reis-ssd1");
	roundtrip("reis-ssd2");
	roundtrip("recflash-slc");
	roundtrip("recflash-qlc");

	/* Partitions: first slc_blocks blocks SLC with a third of TLC's pages. */
	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	REQUIRE(fg_init(&g, &p) == 0);
	CHECK(g.part[FG_PART_SLC].nblocks == p.slc_blocks);
	CHECK(g.part[FG_PART_SLC].pages_per_block == p.pages_per_block / 3);
	CHECK(g.part[FG_PART_NATIVE].first_block == p.slc_blocks);
	CHECK(g.part[FG_PART_NATIVE].mode == ISP_CELL_TLC);
	CHECK(fg_block_mode(&g, 0) == ISP_CELL_SLC);
	CHECK(fg_block_mode(&g, p.slc_blocks) == ISP_CELL_TLC);
	a = (struct fg_addr){ .block = 0, .page = p.pages_per_block / 3 };
	CHECK(fg_pack(&g, &a, &ppa) == -EINVAL);	/* exists only in TLC mode */
	a.block = p.slc_blocks;
	CHECK(fg_pack(&g, &a, &ppa) == 0);

	/* PFPA: channels first, then dies, then planes; then page; then block. */
	REQUIRE(fg_pfpa_ppa(&g, FG_PART_SLC, 0, 2, 0, &ppa) == 0);
	CHECK(ppa == 0);
	REQUIRE(fg_pfpa_ppa(&g, FG_PART_SLC, 0, 2, 1, &ppa) == 0);
	fg_unpack(&g, ppa, &a);
	CHECK(a.channel == 1 && a.die == 0 && a.plane == 0 && a.page == 0);
	REQUIRE(fg_pfpa_ppa(&g, FG_PART_SLC, 0, 2, g.channels, &ppa) == 0);
	fg_unpack(&g, ppa, &a);
	CHECK(a.channel == 0 && a.die == 1 && a.plane == 0);
	REQUIRE(fg_pfpa_ppa(&g, FG_PART_SLC, 0, 2, g.channels * g.dies_per_channel, &ppa) == 0);
	fg_unpack(&g, ppa, &a);
	CHECK(a.channel == 0 && a.die == 0 && a.plane == 1 && a.page == 0);
	REQUIRE(fg_pfpa_ppa(&g, FG_PART_SLC, 0, 2, g.planes, &ppa) == 0);
	fg_unpack(&g, ppa, &a);
	CHECK(a.channel == 0 && a.die == 0 && a.plane == 0 && a.page == 1 && a.block == 0);
	REQUIRE(fg_pfpa_ppa(&g, FG_PART_SLC, 0, 2,
			    (uint64_t)g.planes * g.part[FG_PART_SLC].pages_per_block, &ppa) == 0);
	fg_unpack(&g, ppa, &a);
	CHECK(a.block == 1 && a.page == 0);
	CHECK(fg_pfpa_ppa(&g, FG_PART_SLC, 0, 2, fg_region_pages(&g, FG_PART_SLC, 2), &ppa)
	      == -EINVAL);
	CHECK(fg_pfpa_ppa(&g, FG_PART_SLC, 10, 10, 0, &ppa) == -EINVAL);	/* past SLC */
	CHECK(fg_pfpa_ppa(&g, FG_PART_NATIVE, 0, 1, 0, &ppa) == -EINVAL);	/* below */
	CHECK(fg_pfpa_ppa(&g, 7, 0, 1, 0, &ppa) == -EINVAL);

	/* Any N consecutive pages hit every plane ceil/floor(N/P) times, and
	 * lpage <-> ppa round-trips. */
	hits = calloc(g.planes, sizeof(*hits));
	REQUIRE(hits);
	for (i = 1000; i < 1000 + 3 * (uint64_t)g.planes + 17; i++) {
		REQUIRE(fg_pfpa_ppa(&g, FG_PART_NATIVE, 20, 3, i, &ppa) == 0);
		CHECK(fg_ppa_mode(&g, ppa) == ISP_CELL_TLC);
		hits[fg_ppa_plane(&g, ppa)]++;
		CHECK(fg_ppa_plane(&g, ppa) == fg_pfpa_plane(&g, i));
		CHECK(fg_pfpa_lpage(&g, FG_PART_NATIVE, 20, 3, ppa, &lp) == 0 && lp == i);
	}
	for (i = 0; i < g.planes; i++)
		CHECK(hits[i] == 3 || hits[i] == 4);
	free(hits);
	REQUIRE(fg_pfpa_ppa(&g, FG_PART_NATIVE, 20, 3, 0, &ppa) == 0);
	CHECK(fg_pfpa_lpage(&g, FG_PART_NATIVE, 21, 3, ppa, &lp) == -EINVAL);

	/* Mini-pages: 128 1024-bit embeddings per 16 KiB page -> 7-bit offset. */
	CHECK(fg_offset_bits(p.page_bytes / 128) == 7);
	REQUIRE(fg_pfpa_ppa(&g, FG_PART_SLC, 0, 2, 777, &ppa) == 0);
	CHECK(fg_mini_ppa(fg_mini(ppa, 127)) == ppa);
	CHECK(fg_mini_offset(fg_mini(ppa, 127)) == 127);
	CHECK(fg_mini_check(&g, fg_mini(ppa, 127), 128) == 0);
	CHECK(fg_mini_check(&g, fg_mini(ppa, 128), 128) == -EINVAL);
	CHECK(fg_mini_check(&g, fg_mini(ppa, 0), 0) == -EINVAL);
	CHECK(fg_mini_check(&g, fg_mini(UINT64_C(1) << 43, 0), 8) == -EINVAL);

	/* Bad parameters are refused. */
	p.channels = 0;
	CHECK(fg_init(&g, &p) == -EINVAL);
	return t_result();
}
