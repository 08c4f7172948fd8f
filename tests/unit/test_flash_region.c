/* SPDX-License-Identifier: MIT */
/*
 * test_flash_region.c - the region allocator (REIS 4.1.4 coarse-grained
 * regions): whole block stripes, contiguous, first fit, within one cell-mode
 * partition, isolated from each other; Parallelism-First page order inside a
 * region; free space reporting; a freed region is reusable only after the
 * next commit and its stale blocks are erased on reuse; out of space;
 * relocation for defragmentation.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "flash_store.h"

int main(void)
{
	struct fp_params p;
	struct fs_config cfg = { 0 };
	struct fs_region a, b, c, d, x, list[8];
	struct fs_space sp;
	const struct fg_geom *g;
	struct fs *fs;
	char err[256];
	uint8_t page[16384], rd[16];
	uint64_t ppa, stripe, i, copied;
	uint32_t erased, *hits;

	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	/* 2 x 2 x 2 = 8 planes, 16 blocks: 6 SLC (128 pages), 10 TLC (384). */
	REQUIRE(fp_apply(&p, "channels=2,dies_per_channel=2,blocks_per_plane=16,slc_blocks=6",
			 err, sizeof(err)) == 0);
	cfg.params = &p;
	cfg.meta_max = 1 << 16;
	REQUIRE(fs_open(&cfg, &fs, err, sizeof(err)) == 0);
	g = fs_geom(fs);
	stripe = (uint64_t)g->planes * g->part[FG_PART_SLC].pages_per_block;	/* 1024 */

	CHECK(fs_space(fs, FG_PART_SLC, &sp) == 0);
	CHECK(sp.free_blocks == 6 && sp.largest_run == 6 && sp.free_pages == 6 * stripe);
	CHECK(fs_space(fs, FG_PART_NATIVE, &sp) == 0 && sp.free_blocks == 10);

	/* Rounded up to whole block stripes, first fit, contiguous. */
	CHECK(fs_region_alloc(fs, FG_PART_SLC, 1, 1, &a, &erased) == 0);
	CHECK(a.first_block == 0 && a.nblocks == 1 && a.part == FG_PART_SLC && erased == 0);
	CHECK(fs_region_pages(fs, &a) == stripe);
	CHECK(fs_region_alloc(fs, FG_PART_SLC, stripe + 1, 2, &b, NULL) == 0);
	CHECK(b.first_block == 1 && b.nblocks == 2);
	CHECK(fs_region_alloc(fs, FG_PART_NATIVE, 5000, 3, &c, NULL) == 0);
	CHECK(c.first_block == 6 && c.part == FG_PART_NATIVE && c.nblocks == 2);
	CHECK(a.id && b.id && c.id && a.id != b.id && b.id != c.id);

	/* PFPA inside a region: a stripe touches every plane once; isolation:
	 * logical pages never leave the region's blocks. */
	hits = calloc(g->planes, sizeof(*hits));
	REQUIRE(hits);
	for (i = 0; i < fs_region_pages(fs, &b); i++) {
		REQUIRE(fs_region_ppa(fs, &b, i, &ppa) == 0);
		CHECK(FG_FIELD(ppa, BLOCK) >= b.first_block &&
		      FG_FIELD(ppa, BLOCK) < b.first_block + b.nblocks);
		if (i < g->planes)
			hits[fg_ppa_plane(g, ppa)]++;
	}
	for (i = 0; i < g->planes; i++)
		CHECK(hits[i] == 1);
	free(hits);
	CHECK(fs_region_ppa(fs, &b, fs_region_pages(fs, &b), &ppa) == -EINVAL);
	CHECK(fs_region_ppa(fs, &b, UINT64_MAX, &ppa) == -EINVAL);

	/* Out of space: 3 SLC blocks left. */
	CHECK(fs_region_alloc(fs, FG_PART_SLC, 4 * stripe, 9, &x, NULL) == -ENOSPC);
	CHECK(fs_region_alloc(fs, FG_PART_SLC, 100 * stripe, 9, &x, NULL) == -ENOSPC);
	CHECK(fs_region_alloc(fs, FG_PART_SLC, 0, 9, &x, NULL) == -EINVAL);
	CHECK(fs_region_alloc(fs, 5, 1, 9, &x, NULL) == -EINVAL);
	CHECK(fs_region_alloc(fs, FG_PART_SLC, 3 * stripe, 4, &d, NULL) == 0);
	CHECK(d.first_block == 3);
	CHECK(fs_region_alloc(fs, FG_PART_SLC, 1, 9, &x, NULL) == -ENOSPC);
	CHECK(fs_space(fs, FG_PART_SLC, &sp) == 0 && sp.free_blocks == 0);

	/* Write into b, commit it, free it: not reusable before the next
	 * commit (the committed metadata still points there). */
	memset(page, 0xab, sizeof(page));
	for (i = 0; i < 20; i++) {
		REQUIRE(fs_region_ppa(fs, &b, i, &ppa) == 0);
		REQUIRE(fs_program(fs, ppa, page, NULL) == 0);
	}
	CHECK(fs_commitv(fs, NULL, 0) == 0);
	CHECK(fs_region_get(fs, b.id, &x) == 0 && x.first_block == 1);
	CHECK(fs_region_free(fs, b.id) == 0);
	CHECK(fs_region_free(fs, b.id) == -ENOENT);
	CHECK(fs_region_get(fs, b.id, &x) == -ENOENT);
	CHECK(fs_space(fs, FG_PART_SLC, &sp) == 0 && sp.free_blocks == 0 &&
	      sp.pending_blocks == 2);
	CHECK(fs_region_alloc(fs, FG_PART_SLC, 1, 9, &x, NULL) == -ENOSPC);
	REQUIRE(fs_region_ppa(fs, &b, 0, &ppa) == 0);
	CHECK(fs_page_state(fs, ppa) == FS_PROGRAMMED);	/* old data intact */
	CHECK(fs_commitv(fs, NULL, 0) == 0);
	CHECK(fs_space(fs, FG_PART_SLC, &sp) == 0 && sp.free_blocks == 2 &&
	      sp.pending_blocks == 0 && sp.largest_run == 2);

	/* Reuse: the stale blocks are erased first. */
	CHECK(fs_region_alloc(fs, FG_PART_SLC, 2 * stripe, 5, &x, &erased) == 0);
	CHECK(x.first_block == 1 && x.nblocks == 2);
	CHECK(erased == 8);	/* 20 pages spread over block 1 of all 8 planes */
	CHECK(fs_page_state(fs, ppa) == FS_ERASED);
	CHECK(fs_read(fs, ppa, 0, rd, sizeof(rd)) == 0 && rd[0] == 0xff);

	/* x was never in a commit: freed, it is free at once, written or not */
	REQUIRE(fs_program(fs, ppa, page, NULL) == 0);
	CHECK(fs_region_free(fs, x.id) == 0);
	CHECK(fs_space(fs, FG_PART_SLC, &sp) == 0 && sp.free_blocks == 2 &&
	      sp.pending_blocks == 0);
	CHECK(fs_region_alloc(fs, FG_PART_SLC, 2 * stripe, 5, &x, &erased) == 0);
	CHECK(x.first_block == 1 && x.nblocks == 2);
	CHECK(erased == 1);	/* the one written page's block, erased for reuse */
	CHECK(fs_page_state(fs, ppa) == FS_ERASED);

	/* Relocation: free a and x, commit, move d down to block 0. */
	REQUIRE(fs_region_ppa(fs, &d, 5, &ppa) == 0);
	REQUIRE(fs_program(fs, ppa, page, NULL) == 0);
	CHECK(fs_region_free(fs, a.id) == 0 && fs_region_free(fs, x.id) == 0);
	CHECK(fs_region_move(fs, d.id, 0, &copied, &erased) == -EINVAL);	/* pending */
	CHECK(fs_commitv(fs, NULL, 0) == 0);
	CHECK(fs_region_move(fs, d.id, 1, &copied, &erased) == -EINVAL);	/* overlaps d */
	CHECK(fs_region_move(fs, 999, 0, &copied, &erased) == -ENOENT);
	CHECK(fs_region_move(fs, d.id, 0, &copied, &erased) == 0);
	CHECK(copied == 1);
	CHECK(fs_region_get(fs, d.id, &x) == 0 && x.first_block == 0 && x.nblocks == 3);
	REQUIRE(fs_region_ppa(fs, &x, 5, &ppa) == 0);
	CHECK(fs_read(fs, ppa, 0, rd, sizeof(rd)) == 0 && rd[0] == 0xab);
	CHECK(fs_space(fs, FG_PART_SLC, &sp) == 0 && sp.free_blocks == 0 &&
	      sp.pending_blocks == 3);
	CHECK(fs_commitv(fs, NULL, 0) == 0);
	CHECK(fs_space(fs, FG_PART_SLC, &sp) == 0 && sp.free_blocks == 3 &&
	      sp.largest_run == 3);
	CHECK(fs_region_list(fs, list, 8) == 2);
	CHECK(list[0].first_block == 0 && list[1].part == FG_PART_NATIVE);
	CHECK(fs_region_list(fs, NULL, 0) == 2);
	fs_close(fs);
	return t_result();
}
