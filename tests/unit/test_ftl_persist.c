/* SPDX-License-Identifier: MIT */
/*
 * test_ftl_persist - the FTL's crash rules and its share of the flash,
 * through the device (isp_dev) with a backing file:
 *   - the map a Flush committed is what a crash (a copy of the backing
 *     file taken then) brings back; a clean close keeps the latest one;
 *   - the reloaded map, reverse map and valid counts agree, and the drive
 *     keeps working (writes, GC) on it;
 *   - the FTL's stripes are regions of the store tagged as the FTL's; a
 *     namespace that changed size starts over;
 *   - an allocation that finds no room takes the FTL's spare stripes
 *     (the boundary moves), never below its minimum, and moves no data
 *     out of the map.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ftl_int.h"
#include "ftl_t.h"
#include "isp_internal.h"
#include "reis_t.h"

/* 8 planes, 12 TLC pages per block: a stripe is 8 x 12 x 4 = 384 units
 * (1.5 MiB); 28 native stripes. A 4 MiB namespace (1024 units) needs 3 +
 * 3 stripes at least and, with ftl_op 150 %, 2560 units: 7 stripes. */
#define PARAMS "channels=2;dies_per_channel=2;planes_per_die=2;blocks_per_plane=32;" \
	       "slc_blocks=4;pages_per_block=12;ftl_fill=1;ftl_wbuf=256k;ftl_op=1500"
#define NS_BYTES (4u << 20)
#define UNITS (NS_BYTES / 4096u)
#define KB 4096ull

static uint64_t io_clock = 5000000000ull;

static int io(struct isp_dev *dev, uint32_t opc, uint64_t off, uint64_t len)
{
	io_clock += 50000;	/* 50 us apart */
	return t_dev_cmd(dev, opc, off, len, io_clock, NULL);
}

static void writes(struct isp_dev *dev, uint32_t seed, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		REQUIRE(io(dev, FTL_WRITE, (t_xs(&seed) % UNITS) * KB, KB) == 0);
}

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int a = open(from, O_RDONLY), b = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ssize_t n;

	REQUIRE(a >= 0 && b >= 0);
	while ((n = read(a, buf, sizeof(buf))) > 0)
		REQUIRE(write(b, buf, (size_t)n) == n);
	close(a);
	close(b);
}

/* Map, reverse map and valid counts agree; every unit mapped (ftl_fill). */
static void check_consistent(struct ftl *f)
{
	uint64_t u, valid = 0;
	uint32_t s, p;

	for (u = 0; u < f->units; u++) {
		REQUIRE(f->map[u] != FTL_NONE);
		CHECK_EQ_U64(*ftl_p2l(f, f->map[u]), u);
	}
	for (s = 0; s < f->nsb; s++)
		for (p = 0; f->sb[s].region && p < f->NP; p++)
			valid += ftl_blk_of(f, s, p)->valid;
	CHECK_EQ_U64(valid, f->units);
}

static uint32_t *map_copy(struct ftl *f)
{
	uint32_t *m = malloc(f->units * sizeof(*m));

	REQUIRE(m);
	memcpy(m, f->map, f->units * sizeof(*m));
	return m;
}

static unsigned ftl_regions(struct isp_dev *dev)
{
	struct fs_region r[256];
	int n = fs_region_list(isp_dev_store(dev), r, 256), i;
	unsigned k = 0;

	for (i = 0; i < n && i < 256; i++)
		k += r[i].owner >> 32 == FTL_OWNER_TAG;
	return k;
}

static void test_crash_rules(const char *dir)
{
	char path[512], snap[512], err[256];
	struct isp_dev *dev;
	struct ftl_stats s;
	uint32_t *m1, *m2;

	snprintf(path, sizeof(path), "%s/flash.img", dir);
	snprintf(snap, sizeof(snap), "%s/crash.img", dir);
	dev = t_open("reis-ssd1", PARAMS, path);
	REQUIRE(dev);
	REQUIRE(isp_dev_ns_attach(dev, 1, NS_BYTES, err, sizeof(err)) == 0);
	ftl_get_stats(isp_dev_ftl(dev), &s, 0);
	CHECK_EQ_U64(s.stripes_min, 6);
	CHECK_EQ_U64(s.stripes_target, 7);
	CHECK_EQ_U64(s.stripes, 7);
	CHECK_EQ_U64(ftl_regions(dev), 7);
	writes(dev, 1, 3000);
	REQUIRE(io(dev, FTL_FLUSH, 0, 0) == 0);	/* the first Flush commits */
	CHECK(!ftl_dirty(isp_dev_ftl(dev)));
	m1 = map_copy(isp_dev_ftl(dev));
	copy_file(path, snap);			/* a power cut here */
	writes(dev, 2, 3000);
	/* under a second after the commit: this Flush does not commit again */
	REQUIRE(io(dev, FTL_FLUSH, 0, 0) == 0);
	CHECK(ftl_dirty(isp_dev_ftl(dev)));
	m2 = map_copy(isp_dev_ftl(dev));
	CHECK(memcmp(m1, m2, UNITS * 4) != 0);
	ftl_get_stats(isp_dev_ftl(dev), &s, 0);
	CHECK(s.gc_victims > 0);
	isp_dev_close(dev);			/* a clean close commits */

	/* the crash image: the map of the last commit */
	dev = t_open("reis-ssd1", PARAMS, snap);
	REQUIRE(dev);
	REQUIRE(isp_dev_ns_attach(dev, 1, NS_BYTES, err, sizeof(err)) == 0);
	CHECK(memcmp(isp_dev_ftl(dev)->map, m1, UNITS * 4) == 0);
	check_consistent(isp_dev_ftl(dev));
	CHECK_EQ_U64(ftl_regions(dev), 7);
	isp_dev_close(dev);

	/* the cleanly closed one: the latest map; and it keeps working */
	dev = t_open("reis-ssd1", PARAMS, path);
	REQUIRE(dev);
	REQUIRE(isp_dev_ns_attach(dev, 1, NS_BYTES, err, sizeof(err)) == 0);
	CHECK(memcmp(isp_dev_ftl(dev)->map, m2, UNITS * 4) == 0);
	check_consistent(isp_dev_ftl(dev));
	writes(dev, 3, 4000);
	REQUIRE(io(dev, FTL_FLUSH, 0, 0) == 0);
	check_consistent(isp_dev_ftl(dev));
	isp_dev_close(dev);

	/* another image size: the namespace starts over (filled again) */
	dev = t_open("reis-ssd1", PARAMS, path);
	REQUIRE(dev);
	REQUIRE(isp_dev_ns_attach(dev, 1, NS_BYTES / 2, err, sizeof(err)) == 0);
	ftl_get_stats(isp_dev_ftl(dev), &s, 0);
	CHECK_EQ_U64(s.valid_units, UNITS / 2);
	CHECK_EQ_U64(s.user_bytes, NS_BYTES / 2);
	isp_dev_close(dev);
	free(m1);
	free(m2);
	unlink(path);
	unlink(snap);
}

/*
 * The store has 28 native stripes; the FTL holds 7. Ask for all the rest
 * plus one: the allocator's reclaim callback makes the FTL give its one
 * spare stripe back (7 -> 6 = its minimum), the data it held moved out.
 * One more stripe than that cannot come from the FTL.
 */
static void test_boundary(void)
{
	struct isp_dev *dev;
	struct fs *fs;
	struct fs_space sp;
	struct fs_region r, r2;
	struct ftl_stats s;
	char err[256];
	uint64_t stripe;

	dev = t_open("reis-ssd1", PARAMS, NULL);
	REQUIRE(dev);
	fs = isp_dev_store(dev);
	REQUIRE(isp_dev_ns_attach(dev, 1, NS_BYTES, err, sizeof(err)) == 0);
	writes(dev, 4, 2000);
	REQUIRE(fs_space(fs, FG_PART_NATIVE, &sp) == 0);
	CHECK_EQ_U64(sp.free_blocks, 28 - 7);
	stripe = 8 * 12;
	/* the FTL took the lowest seven stripes: the other 21 are one free run */
	REQUIRE(fs_region_alloc(fs, FG_PART_NATIVE, stripe * 21, 0x52454953ull << 32 | 7, &r,
				NULL) == 0);
	/* now nothing is free: a one-stripe request reclaims */
	REQUIRE(fs_region_alloc(fs, FG_PART_NATIVE, stripe, 0x52454953ull << 32 | 8, &r2,
				NULL) == 0);
	ftl_get_stats(isp_dev_ftl(dev), &s, 0);
	CHECK_EQ_U64(s.stripes, 6);
	CHECK_EQ_U64(s.shrinks, 1);
	CHECK_EQ_U64(ftl_regions(dev), 6);
	check_consistent(isp_dev_ftl(dev));
	/* at its minimum it gives nothing */
	CHECK(fs_region_alloc(fs, FG_PART_NATIVE, stripe, 0x52454953ull << 32 | 9, &r2,
			      NULL) == -ENOSPC);
	ftl_get_stats(isp_dev_ftl(dev), &s, 0);
	CHECK_EQ_U64(s.stripes, 6);
	/* and it still serves writes and reads at its minimum */
	writes(dev, 5, 2000);
	check_consistent(isp_dev_ftl(dev));
	/* deletes give room back; the FTL grows again when it next needs a block */
	REQUIRE(fs_region_free(fs, r.id) == 0);
	REQUIRE(isp_dev_commit(dev) == 0);
	io_clock += 100000000;	/* past the FTL's 10 ms back-off after a failed growth */
	writes(dev, 6, 4000);
	ftl_get_stats(isp_dev_ftl(dev), &s, 0);
	CHECK_EQ_U64(s.stripes, 7);
	isp_dev_close(dev);
}

int main(void)
{
	char dir[] = "/tmp/test_ftl_persist.XXXXXX";

	REQUIRE(mkdtemp(dir));
	test_crash_rules(dir);
	test_boundary();
	rmdir(dir);
	return t_result();
}
