/* SPDX-License-Identifier: MIT */
/*
 * test_flash_space.c - fs_space() in one pass over the regions (issue 32
 * item 6: Identify Controller walked every stripe over every region under
 * the store's lock, on QEMU's main loop):
 *  - the same answer as fs_space_ref(), the stripe-by-stripe walk, for
 *    both partitions after every step of 4000 random steps: whole and
 *    packed allocations, programs of a region's first pages, seals, frees
 *    (of committed and of never-committed regions), commits;
 *  - printed: both on a store holding 8000 packed regions (the time an
 *    Identify Controller used to spend, and now spends, under the lock).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "flash_store.h"
#include "flash_store_int.h"

#define GEOM "channels=2,dies_per_channel=2,blocks_per_plane=64,slc_blocks=24"
#define MAXR 4096

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static struct fs *open_fs(const char *geom)
{
	struct fs_config cfg = { 0 };
	struct fp_params p;
	struct fs *fs;
	char err[256];

	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	REQUIRE(fp_apply(&p, geom, err, sizeof(err)) == 0);
	cfg.params = &p;
	cfg.meta_max = 1 << 20;
	REQUIRE(fs_open(&cfg, &fs, err, sizeof(err)) == 0);
	return fs;
}

static int same(struct fs *fs)
{
	struct fs_space a, b;
	uint32_t part;

	for (part = 0; part < FG_NPARTS; part++) {
		if (fs_space(fs, part, &a) || fs_space_ref(fs, part, &b))
			return 0;
		if (memcmp(&a, &b, sizeof(a))) {
			fprintf(stderr, "part %u: free %u/%u shared %u/%u front pages %llu/%llu dead "
				"%llu/%llu pending %u/%u\n", part, a.free_blocks, b.free_blocks,
				a.shared_stripes, b.shared_stripes,
				(unsigned long long)a.shared_free_pages,
				(unsigned long long)b.shared_free_pages,
				(unsigned long long)a.dead_pages, (unsigned long long)b.dead_pages,
				a.pending_blocks, b.pending_blocks);
			return 0;
		}
	}
	return 1;
}

static void test_random(void)
{
	static struct fs_region r[MAXR];
	static uint8_t page[16384];
	struct fs *fs = open_fs(GEOM);
	uint32_t s = 12345, n = 0, step, erased, bad = 0;

	for (step = 0; step < 4000; step++) {
		uint32_t op = rnd(&s) % 10, part = rnd(&s) % 2 ? FG_PART_SLC : FG_PART_NATIVE;
		uint64_t ppa, i;

		if (op < 4 && n < MAXR) {
			uint64_t pages = 1 + rnd(&s) % (op < 3 ? 24 : 2000);

			if ((op < 3 ? fs_region_alloc_packed(fs, part, pages, step, &r[n], &erased) :
				      fs_region_alloc(fs, part, pages, step, &r[n], &erased)) == 0) {
				/* program its first pages, in order */
				for (i = 0; i < rnd(&s) % 4 && i < fs_region_pages(fs, &r[n]); i++)
					if (fs_region_ppa(fs, &r[n], i, &ppa) == 0)
						fs_program(fs, ppa, page, NULL);
				n++;
			}
		} else if (op < 7 && n) {
			uint32_t k = rnd(&s) % n;

			CHECK(fs_region_free(fs, r[k].id) == 0);
			r[k] = r[--n];
		} else if (op < 8 && n) {
			fs_region_seal(fs, r[rnd(&s) % n].id);
		} else {
			CHECK(fs_commitv(fs, NULL, 0) == 0);
		}
		if (!same(fs) && bad++ < 5)
			fprintf(stderr, "step %u (op %u): fs_space differs from the walk\n", step, op);
	}
	CHECK_EQ_U64(bad, 0);
	fs_close(fs);
}

static void test_timing(void)
{
	/* reis-ssd1's size: 512 SLC stripes of 8 planes */
	struct fs *fs = open_fs("blocks_per_plane=1024,slc_blocks=512");
	struct fs_region r;
	struct fs_space sp;
	uint32_t i, n = 0, erased;
	double t0, t_ref, t_new;
	int k;

	for (i = 0; i < 8000; i++)
		if (fs_region_alloc_packed(fs, FG_PART_SLC, 1, i, &r, &erased) == 0 &&
		    fs_region_seal(fs, r.id) == 0)
			n++;
	t0 = now_s();
	for (k = 0; k < 50; k++)
		fs_space_ref(fs, FG_PART_SLC, &sp);
	t_ref = (now_s() - t0) / 50;
	t0 = now_s();
	for (k = 0; k < 50; k++)
		fs_space(fs, FG_PART_SLC, &sp);
	t_new = (now_s() - t0) / 50;
	CHECK(same(fs));
	printf("fs_space over %u packed regions in %u stripes: %.3f ms walking every stripe, "
	       "%.3f ms in one pass\n", n, sp.shared_stripes, t_ref * 1e3, t_new * 1e3);
	fs_close(fs);
}

int main(void)
{
	test_random();
	test_timing();
	return t_result();
}
