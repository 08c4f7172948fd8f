/* SPDX-License-Identifier: MIT */
/*
 * test_rf_vm_persist - RecFlash tables and mappings survive a QEMU restart on
 * the same backing file (docs/timing-model.md §7). Two phases, chosen by what the drive
 * holds: without table 0x5300 it deploys one (int8, RecFlash mode), remaps
 * it (full + switch, so the mapping differs from the deploy's) and checks
 * the sums; with the table present (the run after the restart) it checks
 * that it is READY with the remapped generation and the same sums, then
 * deletes it. Needs the VM runner to run it in the first boot and again in
 * the restart boot. Exit 77 without the drive or its RecFlash engine.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "libreis_tools.h"
#include "rf_util.h"

#define DEV "/dev/ng0n1"
#define ROWS 30000
#define DIM 24
#define TID 0x5300

static void sums(struct reis_dev *dev, const struct rf_tbl *t)
{
	struct rf_batch bt;
	static float out[200 * DIM], ref[200 * DIM];

	rf_batch_make(&bt, 5, 200, 50, 0, ROWS, 1);
	CHECK(reis_rf_sls(dev, TID, DIM, &bt.b, REIS_RF_SLS_WEIGHTED, out, NULL) == 0);
	CHECK(reis_rf_sls_ref(t->dtype, ROWS, DIM, t->wire, &bt.b, REIS_RF_SLS_WEIGHTED,
			      ref) == 0);
	CHECK(rf_diff(out, ref, 200 * DIM) == 0);
	rf_batch_free(&bt);
}

int main(void)
{
	struct reis_dev *dev;
	struct reis_rf_stats st;
	struct rf_tbl t;
	uint32_t *counts;
	unsigned i;
	int ret;

	if (access(DEV, F_OK))
		SKIP("no %s", DEV);
	ret = reis_open(DEV, 0, &dev);
	if (ret)
		SKIP("%s: %s", DEV, reis_strerror(ret));
	if (!(reis_dev_info(dev)->caps & REIS_CAP_RECFLASH))
		SKIP("the drive has no RecFlash engine");
	REQUIRE(rf_tbl_make(&t, TID, ROWS, DIM, REIS_RF_INT8, REIS_RF_RECFLASH, 4242) == 0);

	ret = reis_rf_table_stats(dev, TID, 0, &st);
	if (ret == -ENOENT) {
		REQUIRE(rf_tbl_deploy(dev, &t, NULL) == 0);
		counts = calloc(ROWS, sizeof(*counts));
		REQUIRE(counts);
		for (i = 0; i < ROWS; i++)
			counts[i] = (ROWS - i) % 97;
		CHECK(reis_rf_profile(dev, TID, counts, ROWS) == 0);
		CHECK(reis_rf_remap(dev, TID, REIS_RF_REMAP_FULL | REIS_RF_REMAP_SWITCH, NULL) == 0);
		free(counts);
		CHECK(reis_rf_table_stats(dev, TID, 0, &st) == 0);
		sums(dev, &t);
		printf("phase 1: table %u deployed and remapped (generation %u); verify after "
		       "the restart\n", TID, st.generation);
	} else {
		CHECK(ret == 0);
		CHECK(st.state == REIS_RF_READY);
		CHECK(st.rows == ROWS && st.dim == DIM && st.dtype == REIS_RF_INT8);
		CHECK(st.generation >= 1);
		printf("phase 2: table %u is back, generation %u\n", TID, st.generation);
		sums(dev, &t);
		CHECK(reis_rf_delete(dev, TID) == 0);
	}
	free(t.wire);
	reis_close(dev);
	return t_result();
}
