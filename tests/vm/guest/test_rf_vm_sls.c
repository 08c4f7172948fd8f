/* SPDX-License-Identifier: MIT */
/*
 * test_rf_vm_sls - RecFlash in the VM through /dev/ng0n1: deploy three tables
 * (fp32 RecFlash with a profile, fp16 RM-SSD, int8 RecSSD) over io_uring
 * passthrough, SLS (sum, mean, weighted) equal to the host reference, the
 * same through the ioctl transport, a batch larger than max_xfer split into
 * commands, 32 asynchronous SLS in flight at once, bad input answered with
 * the right status (DNR) and the tables intact afterwards; the tables are
 * deleted at the end. Exit 77 without the drive or its RecFlash engine.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "libreis_tools.h"
#include "rf_util.h"

#define DEV "/dev/ng0n1"
#define ROWS 5000
#define TID0 0x5100

static struct rf_tbl t[3];

static void sls_check(struct reis_dev *dev, const struct rf_tbl *tb, uint64_t seed,
		      uint32_t nbags, uint32_t maxlen, uint32_t flags)
{
	struct rf_batch bt;
	struct reis_rf_sls_info in;
	float *out = calloc((size_t)nbags * tb->dim, sizeof(float));
	float *ref = calloc((size_t)nbags * tb->dim, sizeof(float));
	int ret;

	REQUIRE(out && ref);
	rf_batch_make(&bt, seed, nbags, maxlen, 0, tb->rows, !!(flags & REIS_RF_SLS_WEIGHTED));
	ret = reis_rf_sls(dev, tb->tid, tb->dim, &bt.b, flags, out, &in);
	if (ret)
		fprintf(stderr, "%s: SLS table %u: %s\n", reis_transport(dev), tb->tid,
			reis_last_error(dev));
	CHECK(ret == 0);
	CHECK(reis_rf_sls_ref(tb->dtype, tb->rows, tb->dim, tb->wire, &bt.b, flags, ref) == 0);
	CHECK(rf_diff(out, ref, (size_t)nbags * tb->dim) == 0);
	CHECK(in.lookups == bt.b.nidx);
	if (nbags > 1000)
		printf("%s: %u bags in %u commands, modeled %.3f ms\n", reis_transport(dev),
		       nbags, in.ncmds, (double)in.flash_ns / 1e6);
	rf_batch_free(&bt);
	free(out);
	free(ref);
}

int main(void)
{
	static struct reis_rf_sls_op ops[32];
	static struct rf_batch bts[32];
	static float outs[32][20 * 32], refs[32][20 * 32];
	struct reis_dev *dev, *io;
	struct reis_rf_table d[3];
	uint32_t *prof;
	unsigned i;
	int ret;

	if (access(DEV, F_OK))
		SKIP("no %s", DEV);
	ret = reis_open(DEV, 0, &dev);
	if (ret)
		SKIP("%s: %s", DEV, reis_strerror(ret));
	if (!(reis_dev_info(dev)->caps & REIS_CAP_RECFLASH))
		SKIP("the drive has no RecFlash engine");
	printf("transport %s, max_xfer %u\n", reis_transport(dev), reis_max_xfer(dev));

	REQUIRE(rf_tbl_make(&t[0], TID0, ROWS, 32, REIS_RF_FP32, REIS_RF_RECFLASH, 1) == 0);
	REQUIRE(rf_tbl_make(&t[1], TID0 + 1, ROWS, 17, REIS_RF_FP16, REIS_RF_RMSSD, 2) == 0);
	REQUIRE(rf_tbl_make(&t[2], TID0 + 2, ROWS, 24, REIS_RF_INT8, REIS_RF_RECSSD, 3) == 0);
	prof = calloc(ROWS, sizeof(*prof));
	REQUIRE(prof);
	for (i = 0; i < ROWS; i++)
		prof[i] = i % 7 ? 0 : 100 + i % 13;
	for (i = 0; i < 3; i++) {
		reis_rf_delete(dev, t[i].tid);	/* left by an earlier run */
		memset(&d[i], 0, sizeof(d[i]));
		d[i].tid = t[i].tid;
		d[i].rows = ROWS;
		d[i].dim = t[i].dim;
		d[i].dtype = t[i].dtype;
		d[i].mode = t[i].mode;
		d[i].data = t[i].wire;
		d[i].profile = i == 0 ? prof : NULL;
		d[i].name = "vm";
	}
	ret = reis_rf_deployv(dev, d, 3, NULL);
	if (ret)
		fprintf(stderr, "deploy: %s\n", reis_last_error(dev));
	REQUIRE(ret == 0);
	CHECK(reis_rf_list(dev, NULL, 0) >= 3);

	for (i = 0; i < 3; i++) {
		sls_check(dev, &t[i], 10 + i, 64, 40, 0);
		sls_check(dev, &t[i], 20 + i, 64, 40, REIS_RF_SLS_MEAN);
		sls_check(dev, &t[i], 30 + i, 64, 40, REIS_RF_SLS_WEIGHTED);
	}
	/* More than one command's worth. */
	sls_check(dev, &t[0], 40, 4000, 60, REIS_RF_SLS_WEIGHTED);

	/* The ioctl transport. */
	if (reis_open(DEV, REIS_OPEN_IOCTL, &io) == 0) {
		sls_check(io, &t[1], 50, 100, 30, 0);
		sls_check(io, &t[2], 51, 100, 30, REIS_RF_SLS_WEIGHTED | REIS_RF_SLS_MEAN);
		reis_close(io);
	}

	/* 32 asynchronous operations in flight. */
	for (i = 0; i < 32; i++) {
		const struct rf_tbl *tb = &t[i % 3];

		rf_batch_make(&bts[i], 60 + i, 20, 25, 0, ROWS, 0);
		CHECK(reis_rf_sls_ref(tb->dtype, ROWS, tb->dim, tb->wire, &bts[i].b, 0,
				      refs[i]) == 0);
		reis_rf_sls_op_init(&ops[i], tb->tid, tb->dim, &bts[i].b, 0, outs[i]);
		CHECK(reis_rf_sls_submit(dev, &ops[i]) == 0);
	}
	for (i = 0; i < 32; i++) {
		CHECK(reis_rf_sls_wait(dev, &ops[i], 60000) == 0);
		CHECK(rf_diff(outs[i], refs[i], (size_t)20 * t[i % 3].dim) == 0);
		rf_batch_free(&bts[i]);
	}

	/* Bad input: right status, nothing changed. */
	{
		uint32_t offs[2] = { 0, 2 }, idx[2] = { 1, ROWS };
		struct reis_rf_bags b = { 1, 2, offs, idx, NULL };
		float o[32];

		CHECK(reis_rf_sls(dev, t[0].tid, 32, &b, 0, o, NULL) == -EINVAL);
		CHECK(reis_last_cpl(dev)->status == (REIS_SC_INVALID_FIELD | REIS_STATUS_DNR));
		idx[1] = 2;
		CHECK(reis_rf_sls(dev, t[0].tid, 31, &b, 0, o, NULL) == -EDOM);
		CHECK(reis_last_cpl(dev)->status == (REIS_SC_DIM_MISMATCH | REIS_STATUS_DNR));
		CHECK(reis_rf_sls(dev, 0x7ffffff0, 32, &b, 0, o, NULL) == -ENOENT);
		CHECK(reis_last_cpl(dev)->status == (REIS_SC_UNKNOWN_ID | REIS_STATUS_DNR));
		CHECK(reis_rf_profile(dev, t[0].tid, prof, ROWS) == 0);
		CHECK(reis_rf_delete(dev, 0x7ffffff0) == -ENOENT);
	}
	sls_check(dev, &t[0], 70, 64, 40, 0);

	for (i = 0; i < 3; i++) {
		CHECK(reis_rf_delete(dev, t[i].tid) == 0);
		free(t[i].wire);
	}
	free(prof);
	reis_close(dev);
	return t_result();
}
