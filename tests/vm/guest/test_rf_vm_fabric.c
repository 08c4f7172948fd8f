/* SPDX-License-Identifier: MIT */
/*
 * test_rf_vm_fabric - RecFlash SLS with the embedding tables sharded table
 * by table (DLRM's model-parallel embeddings) across the local ISP drive and
 * two drives reached over NVMe/TCP passthru (docs/fabric.md):
 *   1. three tables (fp32 RecFlash with a profile, fp16 RM-SSD, int8
 *      RecSSD) all on the local drive, and table i on member i;
 *   2. batches of SLS (sum, mean, weighted), each one lookup per table
 *      submitted to the three members at once, equal the one drive's
 *      answer and the host reference, bit for bit;
 *   3. a batch larger than one command's transfer crosses the fabric.
 * Exit 77 outside a fabric run.
 */
#include "fabric_util.h"
#include "rf_util.h"

#define ROWS 3000
#define TID0 0x5300
#define NT 3

static struct rf_tbl t[NT];
static struct fab_set set;

/* One batch on every table: the members at once, then the one drive. */
static unsigned batch(uint64_t seed, uint32_t nbags, uint32_t maxlen, uint32_t flags)
{
	struct reis_rf_sls_op op[NT];
	struct rf_batch bt[NT];
	float *out[NT], *one[NT], *ref[NT];
	unsigned i, bad = 0;
	uint64_t t0;

	for (i = 0; i < NT; i++) {
		size_t len = (size_t)nbags * t[i].dim;

		out[i] = calloc(len, sizeof(float));
		one[i] = calloc(len, sizeof(float));
		ref[i] = calloc(len, sizeof(float));
		REQUIRE(out[i] && one[i] && ref[i]);
		rf_batch_make(&bt[i], seed + i, nbags, maxlen, 0, ROWS,
			      !!(flags & REIS_RF_SLS_WEIGHTED));
		reis_rf_sls_op_init(&op[i], t[i].tid, t[i].dim, &bt[i].b, flags, out[i]);
	}
	t0 = fab_now_ns();
	for (i = 0; i < NT; i++)
		if (reis_rf_sls_submit(set.m[i].dev, &op[i])) {
			fprintf(stderr, "submit on %s: %s\n", fab_name(&set.m[i]),
				reis_last_error(set.m[i].dev));
			exit(T_EXIT_FAIL);
		}
	for (i = 0; i < NT; i++)
		if (reis_rf_sls_wait(set.m[i].dev, &op[i], 60000)) {
			fprintf(stderr, "SLS table %u on %s: %s\n", t[i].tid, fab_name(&set.m[i]),
				reis_last_error(set.m[i].dev));
			bad++;
		}
	printf("%u bags x %u tables (flags %#x): sharded %.2f ms\n", nbags, NT, flags,
	       (fab_now_ns() - t0) / 1e6);
	for (i = 0; i < NT; i++) {
		size_t len = (size_t)nbags * t[i].dim;

		CHECK(reis_rf_sls(set.m[0].dev, t[i].tid, t[i].dim, &bt[i].b, flags, one[i],
				  NULL) == 0);
		CHECK(reis_rf_sls_ref(t[i].dtype, ROWS, t[i].dim, t[i].wire, &bt[i].b, flags,
				      ref[i]) == 0);
		if (memcmp(out[i], one[i], len * sizeof(float))) {
			fprintf(stderr, "table %u: member %s differs from the one drive\n",
				t[i].tid, set.m[i].d.path);
			bad++;
		}
		bad += rf_diff(one[i], ref[i], len) != 0;
		rf_batch_free(&bt[i]);
		free(out[i]);
		free(one[i]);
		free(ref[i]);
	}
	return bad;
}

int main(void)
{
	struct reis_rf_table d[NT];
	uint32_t *prof;
	unsigned i;
	int ret;

	fab_set_open(&set, 1, 2, 2);
	for (i = 0; i < NT; i++)
		if (!(reis_dev_info(set.m[i].dev)->caps & REIS_CAP_RECFLASH))
			SKIP("%s has no RecFlash engine", set.m[i].d.path);
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
		reis_rf_delete(set.m[0].dev, t[i].tid);
		if (i)
			reis_rf_delete(set.m[i].dev, t[i].tid);
	}
	ret = reis_rf_deployv(set.m[0].dev, d, NT, NULL);
	if (ret)
		fprintf(stderr, "deploy on the local drive: %s\n", reis_last_error(set.m[0].dev));
	REQUIRE(ret == 0);
	for (i = 1; i < NT; i++) {
		ret = reis_rf_deployv(set.m[i].dev, &d[i], 1, NULL);
		if (ret)
			fprintf(stderr, "deploy table %u on %s: %s\n", t[i].tid,
				fab_name(&set.m[i]), reis_last_error(set.m[i].dev));
		REQUIRE(ret == 0);
	}

	CHECK_EQ_U64(batch(10, 64, 40, 0), 0);
	CHECK_EQ_U64(batch(20, 64, 40, REIS_RF_SLS_MEAN), 0);
	CHECK_EQ_U64(batch(30, 64, 40, REIS_RF_SLS_WEIGHTED), 0);
	/* more than one command's worth of indices and of output */
	CHECK_EQ_U64(batch(40, 3000, 60, REIS_RF_SLS_WEIGHTED), 0);

	for (i = 0; i < NT; i++) {
		CHECK(reis_rf_delete(set.m[0].dev, t[i].tid) == 0);
		if (i)
			CHECK(reis_rf_delete(set.m[i].dev, t[i].tid) == 0);
		free(t[i].wire);
	}
	free(prof);
	fab_set_close(&set);
	return t_result();
}
