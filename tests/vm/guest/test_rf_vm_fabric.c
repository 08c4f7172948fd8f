/* SPDX-License-Identifier: MIT */
/*
 * test_rf_vm_fabric - RecFlash SLS with embedding tables sharded by rows by
 * libreis' device group (reis_group_rf_deploy, docs/group.md "Placement")
 * across the local ISP drive and two drives reached over NVMe/TCP passthru
 * (docs/fabric.md):
 *   1. three tables (fp32 RecFlash with a profile, fp16 RM-SSD, int8
 *      RecSSD), each whole on the local drive and sharded by contiguous row
 *      ranges over the group;
 *   2. batches of SLS (sum, mean, weighted) through reis_group_rf_sls with
 *      REIS_GROUP_SLS_EXACT equal the one drive's answer bit for bit, and
 *      that equals the host reference;
 *   3. a batch larger than one command's transfer crosses the fabric;
 *   4. the default combine (one partial sum per bag and member) is within
 *      float32 rounding of the one drive and exact on bags whose rows sit
 *      on one member.
 * Exit 77 outside a fabric run.
 */
#include <math.h>

#include "fabric_util.h"
#include "rf_util.h"

#define ROWS 3000
#define TID0 0x5300	/* whole, on the local drive */
#define TIDG 0x5310	/* sharded over the group */
#define NT 3

static struct rf_tbl t[NT];
static struct fab_group fg;

/* One batch on every table: the group, then the one drive and the reference. */
static unsigned batch(uint64_t seed, uint32_t nbags, uint32_t maxlen, uint32_t flags)
{
	struct reis_dev *one = reis_group_dev(fg.g, fg.local);
	unsigned i, bad = 0;

	for (i = 0; i < NT; i++) {
		size_t len = (size_t)nbags * t[i].dim;
		float *out = calloc(len, sizeof(float)), *want = calloc(len, sizeof(float));
		float *ref = calloc(len, sizeof(float));
		struct reis_group_sls_info gi;
		struct rf_batch bt;
		uint64_t t0;
		int ret;

		REQUIRE(out && want && ref);
		rf_batch_make(&bt, seed + i, nbags, maxlen, 0, ROWS,
			      !!(flags & REIS_RF_SLS_WEIGHTED));
		t0 = fab_now_ns();
		ret = reis_group_rf_sls(fg.g, TIDG + i, ROWS, t[i].dim, &bt.b,
					flags | REIS_GROUP_SLS_EXACT, out, &gi);
		if (ret) {
			fprintf(stderr, "group SLS on table %u: %s\n", TIDG + i,
				reis_group_errmsg(fg.g));
			bad++;
		} else {
			printf("table %u: %u bags (flags %#x) over %u drives in %.2f ms, "
			       "%llu vectors to the host\n", TIDG + i, nbags, flags, gi.nmembers,
			       (fab_now_ns() - t0) / 1e6, (unsigned long long)gi.pieces);
		}
		CHECK(reis_rf_sls(one, TID0 + i, t[i].dim, &bt.b, flags, want, NULL) == 0);
		CHECK(reis_rf_sls_ref(t[i].dtype, ROWS, t[i].dim, t[i].wire, &bt.b, flags, ref) == 0);
		if (!ret && memcmp(out, want, len * sizeof(float))) {
			fprintf(stderr, "table %u: the group differs from the one drive in %llu "
				"values\n", TIDG + i, (unsigned long long)rf_diff(out, want, len));
			bad++;
		}
		bad += rf_diff(want, ref, len) != 0;
		rf_batch_free(&bt);
		free(out);
		free(want);
		free(ref);
	}
	return bad;
}

/*
 * The default combine: within float32 rounding everywhere, and exact on a
 * batch whose bags each stay inside one member's row range.
 */
static unsigned combine(uint64_t seed)
{
	struct reis_dev *one = reis_group_dev(fg.g, fg.local);
	uint32_t dim = t[0].dim, nb = 48, per = ROWS / fg.n, b;
	size_t len = (size_t)nb * dim, j;
	float *out = calloc(len, sizeof(float)), *want = calloc(len, sizeof(float));
	unsigned bad = 0;
	struct rf_batch bt;

	REQUIRE(out && want);
	rf_batch_make(&bt, seed, nb, 40, 0, ROWS, 0);
	REQUIRE(reis_group_rf_sls(fg.g, TIDG, ROWS, dim, &bt.b, 0, out, NULL) == 0);
	REQUIRE(reis_rf_sls(one, TID0, dim, &bt.b, 0, want, NULL) == 0);
	for (j = 0; j < len; j++)
		if (fabsf(out[j] - want[j]) > 1e-4f * (1.0f + fabsf(want[j])))
			bad++;
	rf_batch_free(&bt);
	/* every bag inside member (b % n)'s rows: each member pools it whole */
	rf_batch_make(&bt, seed + 1, nb, 40, 0, per, 0);
	for (b = 0; b < nb; b++)
		for (j = bt.offsets[b]; j < bt.offsets[b + 1]; j++)
			bt.indices[j] += ROWS * (b % fg.n) / fg.n;
	REQUIRE(reis_group_rf_sls(fg.g, TIDG, ROWS, dim, &bt.b, 0, out, NULL) == 0);
	REQUIRE(reis_rf_sls(one, TID0, dim, &bt.b, 0, want, NULL) == 0);
	bad += memcmp(out, want, len * sizeof(float)) != 0;
	printf("default combine: %s\n", bad ? "differs" : "within rounding, exact on local bags");
	rf_batch_free(&bt);
	free(out);
	free(want);
	return bad;
}

int main(void)
{
	struct reis_rf_table d[NT];
	struct reis_dev *one;
	uint32_t *prof;
	unsigned i;
	int ret;

	fab_group_open(&fg, 1, 2, 2);
	one = reis_group_dev(fg.g, fg.local);
	for (i = 0; i < fg.n; i++)
		if (!(fg.m[i].caps & REIS_CAP_RECFLASH))
			SKIP("%s has no RecFlash engine", fg.m[i].name);
	REQUIRE(rf_tbl_make(&t[0], TID0, ROWS, 32, REIS_RF_FP32, REIS_RF_RECFLASH, 1) == 0);
	REQUIRE(rf_tbl_make(&t[1], TID0 + 1, ROWS, 17, REIS_RF_FP16, REIS_RF_RMSSD, 2) == 0);
	REQUIRE(rf_tbl_make(&t[2], TID0 + 2, ROWS, 24, REIS_RF_INT8, REIS_RF_RECSSD, 3) == 0);
	prof = calloc(ROWS, sizeof(*prof));
	REQUIRE(prof);
	for (i = 0; i < ROWS; i++)
		prof[i] = i % 5 ? 0 : 50 + i % 11;
	for (i = 0; i < NT; i++) {
		memset(&d[i], 0, sizeof(d[i]));
		d[i].tid = t[i].tid;
		d[i].rows = ROWS;
		d[i].dim = t[i].dim;
		d[i].dtype = t[i].dtype;
		d[i].mode = t[i].mode;
		d[i].data = t[i].wire;
		d[i].profile = i == 0 ? prof : NULL;
		d[i].name = "fabric";
		reis_rf_delete(one, t[i].tid);
		reis_group_rf_delete(fg.g, TIDG + i);
	}
	ret = reis_rf_deployv(one, d, NT, NULL);
	if (ret)
		fprintf(stderr, "deploy on the local drive: %s\n", reis_last_error(one));
	REQUIRE(ret == 0);
	for (i = 0; i < NT; i++) {
		uint64_t t0 = fab_now_ns();

		d[i].tid = TIDG + i;
		ret = reis_group_rf_deploy(fg.g, &d[i], NULL);
		if (ret)
			fprintf(stderr, "group deploy of table %u: %s\n", TIDG + i,
				reis_group_errmsg(fg.g));
		REQUIRE(ret == 0);
		printf("table %u: %u rows sharded over %u drives in %.1f ms\n", TIDG + i, ROWS,
		       fg.n, (fab_now_ns() - t0) / 1e6);
	}

	CHECK_EQ_U64(batch(10, 64, 40, 0), 0);
	CHECK_EQ_U64(batch(20, 64, 40, REIS_RF_SLS_MEAN), 0);
	CHECK_EQ_U64(batch(30, 64, 40, REIS_RF_SLS_WEIGHTED), 0);
	/* more than one command's worth of indices and of output */
	CHECK_EQ_U64(batch(40, 3000, 60, REIS_RF_SLS_WEIGHTED), 0);
	CHECK_EQ_U64(combine(50), 0);

	for (i = 0; i < NT; i++) {
		CHECK(reis_rf_delete(one, t[i].tid) == 0);
		CHECK(reis_group_rf_delete(fg.g, TIDG + i) == 0);
		free(t[i].wire);
	}
	free(prof);
	reis_group_close(fg.g);
	return t_result();
}
