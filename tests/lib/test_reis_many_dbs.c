/* SPDX-License-Identifier: MIT */
/*
 * test_reis_many_dbs - 256 small REIS databases on one in-process reis-ssd1
 * drive (docs/reis-engine.md §7: databases smaller than a block stripe
 * share stripes by page rows), on the drive's virtual clock so the modeled
 * times are latencies, not queueing behind earlier deploys. Each cycle
 * (tests/common/reis_many.h) deploys 256 databases of 1..300 entries until
 * the R-DB is full (a 257th is Capacity Exceeded naming the R-DB), searches
 * each and compares it hit by hit with the host reference, deletes half,
 * re-checks the other half, deletes the rest. After a cycle all the space
 * is back (identify: the same free SLC bytes as a new drive, no dead rows)
 * and the next cycle deploys into it. A third round, on a backing file
 * (in /dev/shm when there is one: the metadata commit of each deploy syncs),
 * deploys all, reopens the drive (packed regions read back from the
 * metadata) and searches each exactly again. A database deleted next to a
 * live one leaves dead rows that identify counts as free. Prints the times
 * of each phase.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "reis_many.h"

static char dir[64];
static char path[96];

int main(void)
{
	static struct many_db m[MANY_MAX];
	struct reis_info fresh, in;
	struct reis_dev *dev;
	uint64_t model = 0;
	double t0;
	unsigned i;

	snprintf(dir, sizeof(dir), "%s/test_reis_many_dbs.XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	REQUIRE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/flash.img", dir);
	dev = many_open(NULL, NULL, REIS_INPROC_VCLOCK);
	REQUIRE(reis_identify(dev, &fresh) == 0);
	REQUIRE(fresh.max_dbs == MANY_MAX && fresh.ndbs == 0);
	CHECK_EQ_U64(fresh.db_room, MANY_MAX);
	/* reis-ssd1: a row is a page on each of 256 planes, 4 MiB */
	CHECK_EQ_U64((uint64_t)fresh.row_pages * fresh.page_bytes, 4u << 20);
	t0 = many_now();
	for (i = 0; i < MANY_MAX; i++)
		many_build(&m[i], 100 + i, i);
	printf("many: built %u images in %.3f s\n", MANY_MAX, many_now() - t0);

	many_cycle(dev, m, MANY_MAX, "in-process round 1");
	REQUIRE(reis_identify(dev, &in) == 0);
	CHECK(in.ndbs == 0 && in.dead_bytes == 0);
	CHECK_EQ_U64(in.slc_free_bytes, fresh.slc_free_bytes);
	CHECK_EQ_U64(in.native_free_bytes, fresh.native_free_bytes);
	many_cycle(dev, m, MANY_MAX, "in-process round 2 (reused space)");
	REQUIRE(reis_identify(dev, &in) == 0);
	CHECK_EQ_U64(in.slc_free_bytes, fresh.slc_free_bytes);

	reis_close(dev);

	/* Packed regions survive a restart of the drive. */
	dev = many_open(path, NULL, REIS_INPROC_VCLOCK);
	t0 = many_now();
	for (i = 0; i < MANY_MAX; i++)
		REQUIRE(reis_db_deploy(dev, &m[i].img, NULL) == 0);
	printf("many: backing file %s: deploy %u in %.3f s\n", path, MANY_MAX,
	       many_now() - t0);
	reis_close(dev);
	dev = many_open(path, NULL, REIS_INPROC_VCLOCK);
	REQUIRE(reis_identify(dev, &in) == 0);
	CHECK_EQ_U64(in.ndbs, MANY_MAX);
	CHECK_EQ_U64(many_search_all(dev, m, MANY_MAX, 0, 1, &model), 0);
	for (i = 0; i < MANY_MAX; i++)
		CHECK(reis_db_delete(dev, m[i].did) == 0);

	/* A deleted database next to a live one: its rows are dead, not lost. */
	REQUIRE(reis_db_deploy(dev, &m[1].img, NULL) == 0);
	REQUIRE(reis_db_deploy(dev, &m[2].img, NULL) == 0);
	REQUIRE(reis_db_delete(dev, m[1].did) == 0);
	REQUIRE(reis_identify(dev, &in) == 0);
	CHECK(in.dead_bytes >= (uint64_t)in.row_pages * in.page_bytes);
	CHECK_EQ_U64(in.free_bytes, in.slc_free_bytes + in.native_free_bytes + in.dead_bytes);
	CHECK(many_search(dev, &m[2], &model) == 0);
	CHECK(reis_db_delete(dev, m[2].did) == 0);
	reis_close(dev);

	for (i = 0; i < MANY_MAX; i++)
		many_free(&m[i]);
	unlink(path);
	rmdir(dir);
	return t_result();
}
