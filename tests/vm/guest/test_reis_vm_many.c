/* SPDX-License-Identifier: MIT */
/*
 * test_reis_vm_many - hundreds of small REIS databases on the VM's drive
 * (docs/reis-engine.md §7, packed regions), through libreis' passthrough:
 * the cycle of tests/common/reis_many.h twice. Databases of 1..300 entries
 * are deployed until the R-DB's 256 entries are full (with whatever other
 * tests left on the drive; a 257th is Capacity Exceeded naming the R-DB),
 * each is searched and compared hit by hit with the host reference computed
 * in the guest, half are deleted and the other half searched again, the
 * rest deleted; the second cycle deploys into the space the first freed.
 * Prints the wall time of each phase.
 * Skips (77) when /dev/ng0n1 (REIS_TEST_DEV) is absent or has no REIS.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "reis_many.h"

#define DID0 60000u

int main(void)
{
	static struct many_db m[MANY_MAX];
	struct reis_info in, after;
	struct reis_dev *dev;
	const char *path;
	unsigned i, n;
	int ret;

	path = getenv("REIS_TEST_DEV") ? getenv("REIS_TEST_DEV") : "/dev/ng0n1";
	if (access(path, F_OK))
		SKIP("%s absent", path);
	ret = reis_open(path, 0, &dev);
	if (ret)
		SKIP("reis_open(%s): %s", path, reis_strerror(ret));
	if (!(reis_dev_info(dev)->caps & REIS_CAP_REIS))
		SKIP("the drive has no REIS engine");
	for (i = 0; i < MANY_MAX; i++)
		reis_db_delete(dev, DID0 + i);	/* leftovers of an earlier run */
	REQUIRE(reis_identify(dev, &in) == 0);
	REQUIRE(in.max_dbs == MANY_MAX && in.row_pages > 0);
	n = in.max_dbs - in.ndbs;
	printf("%s, preset %s: %u databases there, room for %u (R-DB, SLC rows, DRAM)\n",
	       path, in.preset, in.ndbs, in.db_room);
	CHECK_EQ_U64(in.db_room, n);
	REQUIRE(n >= MANY_MAX - 16);
	for (i = 0; i < n; i++)
		many_build(&m[i], DID0 + i, i);

	many_cycle(dev, m, n, "vm round 1");
	REQUIRE(reis_identify(dev, &after) == 0);
	CHECK_EQ_U64(after.ndbs, in.ndbs);
	many_cycle(dev, m, n, "vm round 2 (reused space)");
	REQUIRE(reis_identify(dev, &after) == 0);
	CHECK_EQ_U64(after.ndbs, in.ndbs);
	CHECK_EQ_U64(after.db_room, in.db_room);

	for (i = 0; i < n; i++)
		many_free(&m[i]);
	reis_close(dev);
	return t_result();
}
