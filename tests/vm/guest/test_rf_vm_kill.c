/* SPDX-License-Identifier: MIT */
/*
 * test_rf_vm_kill - a RecFlash table survives QEMU being killed (SIGKILL)
 * at a random point of a stream of remaps (RecFlash III-C4 two-stage
 * deployment; docs/recflash-engine.md, crash consistency). The VM runner runs it in two boots on one backing
 * file; the phase is chosen by what the drive holds:
 *
 *  1. no table 0x5400: deploy it (fp16, RecFlash mode), check the sums,
 *     print the @@ISP-KILL-ME marker and then remap without end, each
 *     cycle: upload a profile (two alternating hot sets), REMAP FULL
 *     (staged; SLS must still answer from the old mapping), check sums,
 *     SWITCH, check sums, REMAP ADAPTIVE + SWITCH, check sums. Each step is
 *     printed before it starts, so the console shows where the kill landed.
 *     The runner kills QEMU a random time after the marker; reaching the
 *     cycle limit unkilled is a failure.
 *  2. table present (after the kill): it must be READY with no remap
 *     running or staged (a staged mapping dies with the process), sums
 *     equal to the host reference for whatever generation is active, and a
 *     new remap + switch must work (space of the interrupted remap is
 *     reusable); then the table is deleted, and the drive has exactly a
 *     fresh drive's free flash (the interrupted remap's region came back).
 *
 * Exit 77 without the drive or its RecFlash engine.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "kill_util.h"
#include "libreis_tools.h"
#include "rf_util.h"

#define DEV "/dev/ng0n1"
#define ROWS 60000
#define DIM 32
#define TID 0x5400
#define MAX_CYCLES 2000
#define NB 100

static struct rf_tbl t;

static void sums(struct reis_dev *dev, uint32_t seed)
{
	static float out[NB * DIM], ref[NB * DIM];
	struct rf_batch bt;

	rf_batch_make(&bt, seed, NB, 40, 0, ROWS, 1);
	CHECK(reis_rf_sls(dev, TID, DIM, &bt.b, REIS_RF_SLS_WEIGHTED, out, NULL) == 0);
	CHECK(reis_rf_sls_ref(t.dtype, ROWS, DIM, t.wire, &bt.b, REIS_RF_SLS_WEIGHTED,
			      ref) == 0);
	CHECK(rf_diff(out, ref, NB * DIM) == 0);
	rf_batch_free(&bt);
}

/* Profile @which: a hot set of 2000 rows, at the front or the back. */
static void profile(uint32_t *counts, unsigned which)
{
	uint32_t i;

	for (i = 0; i < ROWS; i++)
		counts[i] = i % 7;
	for (i = 0; i < 2000; i++)
		counts[which ? ROWS - 1 - i * 3 : i * 5] = 1000 + i;
}

static int phase1(struct reis_dev *dev)
{
	uint32_t *counts = calloc(ROWS, sizeof(*counts));
	struct reis_rf_stats st;
	unsigned c;

	REQUIRE(counts);
	REQUIRE(rf_tbl_deploy(dev, &t, NULL) == 0);
	sums(dev, 1);
	printf("phase 1: table %u deployed; remapping until QEMU is killed\n", TID);
	kill_arm("profile|remap full (staged)|sums on the old mapping|switch|"
		 "remap adaptive + switch");
	for (c = 1; c <= MAX_CYCLES && !t_failures; c++) {
		kill_step(c, "profile");
		profile(counts, c & 1);
		CHECK(reis_rf_profile(dev, TID, counts, ROWS) == 0);
		kill_step(c, "remap full (staged)");
		CHECK(reis_rf_remap(dev, TID, REIS_RF_REMAP_FULL, NULL) == 0);
		CHECK(reis_rf_table_stats(dev, TID, 0, &st) == 0);
		CHECK(st.remap_state == REIS_RF_REMAP_STAGED);
		kill_step(c, "sums on the old mapping");
		sums(dev, 10 + c);
		kill_step(c, "switch");
		CHECK(reis_rf_switch(dev, TID) == 0);
		sums(dev, 20 + c);
		kill_step(c, "remap adaptive + switch");
		CHECK(reis_rf_remap(dev, TID, REIS_RF_REMAP_ADAPTIVE | REIS_RF_REMAP_SWITCH,
				    NULL) == 0);
		sums(dev, 30 + c);
		CHECK(reis_rf_table_stats(dev, TID, 0, &st) == 0);
		printf("cycle %u: done, generation %u\n", c, st.generation);
	}
	free(counts);
	if (!t_failures)
		fprintf(stderr, "not killed after %u remap cycles\n", MAX_CYCLES);
	return T_EXIT_FAIL;
}

static int phase2(struct reis_dev *dev, const struct reis_rf_stats *st)
{
	uint32_t *counts = calloc(ROWS, sizeof(*counts));
	struct reis_rf_stats st2;

	REQUIRE(counts);
	printf("phase 2: table %u after the kill: state %u, remap state %u, generation %u, "
	       "%llu remaps\n", TID, st->state, st->remap_state, st->generation,
	       (unsigned long long)st->remaps);
	CHECK(st->state == REIS_RF_READY);
	CHECK(st->remap_state == REIS_RF_REMAP_IDLE);
	CHECK(st->rows == ROWS && st->dim == DIM && st->dtype == REIS_RF_FP16);
	sums(dev, 2);
	profile(counts, 0);
	CHECK(reis_rf_profile(dev, TID, counts, ROWS) == 0);
	CHECK(reis_rf_remap(dev, TID, REIS_RF_REMAP_FULL | REIS_RF_REMAP_SWITCH, NULL) == 0);
	CHECK(reis_rf_table_stats(dev, TID, 0, &st2) == 0);
	CHECK(st2.generation > st->generation);
	sums(dev, 3);
	printf("phase 2: remapped again to generation %u, sums equal\n", st2.generation);
	CHECK(reis_rf_delete(dev, TID) == 0);
	kill_check_no_leak(dev);
	free(counts);
	return t_result();
}

int main(void)
{
	struct reis_rf_stats st;
	struct reis_dev *dev;
	int ret;

	if (access(DEV, F_OK))
		SKIP("no %s", DEV);
	ret = reis_open(DEV, 0, &dev);
	if (ret)
		SKIP("%s: %s", DEV, reis_strerror(ret));
	if (!(reis_dev_info(dev)->caps & REIS_CAP_RECFLASH))
		SKIP("the drive has no RecFlash engine");
	REQUIRE(rf_tbl_make(&t, TID, ROWS, DIM, REIS_RF_FP16, REIS_RF_RECFLASH, 5454) == 0);
	ret = reis_rf_table_stats(dev, TID, 0, &st);
	if (ret == -ENOENT)
		ret = phase1(dev);
	else if (ret == 0)
		ret = phase2(dev, &st);
	else
		ret = T_EXIT_FAIL;
	free(t.wire);
	reis_close(dev);
	return ret;
}
