/* SPDX-License-Identifier: MIT */
/*
 * test_flash_region_ids - region ids stay unique when the 32-bit id counter
 * wraps (a guest can burn ids cheaply: every failed deploy allocates and
 * frees a region). With the counter moved to its end, the allocator must
 * skip ids that live regions still hold, so freeing the new region cannot
 * release an older owner's blocks.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "flash_store.h"
#include "flash_store_int.h"

int main(void)
{
	struct fp_params p;
	struct fs_config cfg = { 0 };
	struct fs_region a, b, c, d, got;
	struct fs *fs;
	char err[256];

	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	REQUIRE(fp_apply(&p, "channels=2,dies_per_channel=2,blocks_per_plane=16,slc_blocks=6",
			 err, sizeof(err)) == 0);
	cfg.params = &p;
	cfg.meta_max = 1 << 16;
	REQUIRE(fs_open(&cfg, &fs, err, sizeof(err)) == 0);

	CHECK(fs_region_alloc(fs, FG_PART_SLC, 1, 10, &a, NULL) == 0);
	CHECK(fs_region_alloc(fs, FG_PART_SLC, 1, 11, &b, NULL) == 0);
	CHECK(a.id == 1 && b.id == 2);

	/* 2^32 - 3 allocations later (the counter is private: set it) */
	fs->next_id = UINT32_MAX;
	CHECK(fs_region_alloc(fs, FG_PART_SLC, 1, 12, &c, NULL) == 0);
	CHECK(c.id == UINT32_MAX);
	/* the counter wraps to 1 and 2, both held: the next id is 3 */
	CHECK(fs_region_alloc(fs, FG_PART_SLC, 1, 13, &d, NULL) == 0);
	CHECK(d.id == 3);
	CHECK(d.id != a.id && d.id != b.id && d.id != c.id);

	/* freeing the new region leaves the old owners' regions untouched */
	CHECK(fs_region_free(fs, d.id) == 0);
	CHECK(fs_region_get(fs, a.id, &got) == 0 && got.owner == 10 &&
	      got.first_block == a.first_block);
	CHECK(fs_region_get(fs, b.id, &got) == 0 && got.owner == 11);
	CHECK(fs_region_get(fs, c.id, &got) == 0 && got.owner == 12);
	CHECK(fs_region_free(fs, d.id) == -ENOENT);

	/* a freed id may come back once no live region holds it */
	CHECK(fs_region_free(fs, a.id) == 0);
	fs->next_id = 1;
	CHECK(fs_region_alloc(fs, FG_PART_SLC, 1, 14, &d, NULL) == 0);
	CHECK(d.id == 1);
	CHECK(fs_region_get(fs, b.id, &got) == 0 && got.owner == 11);

	fs_close(fs);
	return t_result();
}
