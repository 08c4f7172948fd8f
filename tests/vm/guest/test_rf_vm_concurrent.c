/* SPDX-License-Identifier: MIT */
/*
 * test_rf_vm_concurrent - several processes pool bags on one table through
 * /dev/ng0n1 while another process remaps it (full remap from a profile,
 * SWITCH, then an adaptive remap switched at once): every sum stays equal
 * to the host reference before, during and after the switches (RecFlash
 * III-C4 two-stage deployment), and the readers see the generation change.
 * Exit 77 without the drive or its RecFlash engine.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "libreis_tools.h"
#include "rf_util.h"

#define DEV "/dev/ng0n1"
#define ROWS 20000
#define DIM 16
#define TID 0x5200
#define READERS 3
#define ROUNDS 40

/* A reader: ROUNDS batches; exit code = mismatches (capped), 100 + errno on error. */
static int reader(const struct rf_tbl *t, unsigned who)
{
	struct reis_dev *dev;
	struct reis_rf_trace_opts to;
	struct reis_rf_trace *tr;
	uint32_t offs[33], idx[32 * 20], gmin = UINT32_MAX, gmax = 0;
	struct reis_rf_bags b = { 32, 32 * 20, offs, idx, NULL };
	float out[32 * DIM], ref[32 * DIM];
	unsigned r, bad = 0;
	int ret;

	if (reis_open(DEV, 0, &dev))
		return 100;
	memset(&to, 0, sizeof(to));
	to.rows = ROWS;
	to.k = 0.3;
	to.seed = 100 + who;
	if (reis_rf_trace_open(&to, &tr))
		return 101;
	for (r = 0; r <= 32; r++)
		offs[r] = r * 20;
	for (r = 0; r < ROUNDS; r++) {
		struct reis_rf_sls_info in;

		reis_rf_trace_next(tr, idx, 32 * 20);
		ret = reis_rf_sls(dev, TID, DIM, &b, r % 2 ? REIS_RF_SLS_MEAN : 0, out, &in);
		if (ret) {
			fprintf(stderr, "reader %u round %u: %s\n", who, r, reis_last_error(dev));
			return 100 + (-ret & 0x3f);
		}
		reis_rf_sls_ref(t->dtype, ROWS, DIM, t->wire, &b, r % 2 ? REIS_RF_SLS_MEAN : 0, ref);
		if (rf_diff(out, ref, 32 * DIM))
			bad++;
		if (in.gen_min < gmin)
			gmin = in.gen_min;
		if (in.gen_max > gmax)
			gmax = in.gen_max;
	}
	printf("reader %u: %u rounds, %u wrong, generations %u..%u\n", who, ROUNDS, bad, gmin,
	       gmax);
	reis_rf_trace_close(tr);
	reis_close(dev);
	return bad > 99 ? 99 : (int)bad;
}

int main(void)
{
	struct reis_dev *dev;
	struct rf_tbl t;
	struct reis_rf_remap_info ri;
	struct reis_rf_stats st;
	pid_t pid[READERS];
	uint32_t *counts;
	unsigned i;
	int ret, status;

	if (access(DEV, F_OK))
		SKIP("no %s", DEV);
	ret = reis_open(DEV, 0, &dev);
	if (ret)
		SKIP("%s: %s", DEV, reis_strerror(ret));
	if (!(reis_dev_info(dev)->caps & REIS_CAP_RECFLASH))
		SKIP("the drive has no RecFlash engine");
	REQUIRE(rf_tbl_make(&t, TID, ROWS, DIM, REIS_RF_FP32, REIS_RF_RECFLASH, 77) == 0);
	reis_rf_delete(dev, TID);
	REQUIRE(rf_tbl_deploy(dev, &t, NULL) == 0);
	CHECK(reis_rf_table_stats(dev, TID, 0, &st) == 0);

	fflush(stdout);
	for (i = 0; i < READERS; i++) {
		pid[i] = fork();
		REQUIRE(pid[i] >= 0);
		if (!pid[i])
			_exit(reader(&t, i));
	}

	/* The remapper. */
	counts = calloc(ROWS, sizeof(*counts));
	REQUIRE(counts);
	for (i = 0; i < ROWS; i++)
		counts[i] = (i * 2654435761u) % 1000 < 50 ? 1000 - i % 1000 : 0;
	usleep(100000);
	CHECK(reis_rf_profile(dev, TID, counts, ROWS) == 0);
	ret = reis_rf_remap(dev, TID, REIS_RF_REMAP_FULL, &ri);
	if (ret)
		fprintf(stderr, "remap: %s\n", reis_last_error(dev));
	CHECK(ret == 0);
	CHECK(ri.remap_state == REIS_RF_REMAP_STAGED);
	usleep(100000);
	CHECK(reis_rf_switch(dev, TID) == 0);
	usleep(100000);
	ret = reis_rf_remap(dev, TID, REIS_RF_REMAP_ADAPTIVE | REIS_RF_REMAP_SWITCH, &ri);
	if (ret)
		fprintf(stderr, "adaptive remap: %s\n", reis_last_error(dev));
	CHECK(ret == 0);
	CHECK(reis_rf_table_stats(dev, TID, 0, &st) == 0);
	printf("remapper: generation now %u, %llu remaps\n", st.generation,
	       (unsigned long long)st.remaps);

	for (i = 0; i < READERS; i++) {
		REQUIRE(waitpid(pid[i], &status, 0) == pid[i]);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	CHECK(reis_rf_delete(dev, TID) == 0);
	free(counts);
	free(t.wire);
	reis_close(dev);
	return t_result();
}
