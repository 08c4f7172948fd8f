/* SPDX-License-Identifier: MIT */
/*
 * test_rf_persist - RecFlash tables in a backing file (docs/timing-model.md §7):
 *  - committed tables and their mappings survive close/reopen, sums equal;
 *  - a table still DEPLOYING at close is gone, its region freed;
 *  - a crash during a remap (close before SWITCH) leaves the old mapping,
 *    also when another commit persisted the staged region meanwhile;
 *  - after SWITCH and a restart the new mapping (list order, addresses,
 *    generation) is back exactly.
 */
#include <unistd.h>

#include "recflash_int.h"
#include "test_rf_util.h"

static char path[256];
static const char *params = "blocks_per_plane=32";

struct tbl {
	uint32_t tid, rows, dim, dtype, mode, profile;
	uint8_t *data;
};

static struct tbl tbls[3] = {
	{ 1, 3000, 24, ISP_RF_FP16, ISP_RF_RMSSD, 0, NULL },
	{ 2, 5000, 40, ISP_RF_INT8, ISP_RF_RECFLASH, 1, NULL },
	{ 3, 6000, 32, ISP_RF_FP32, ISP_RF_RECFLASH, 0, NULL },
};

static void check_sums(struct isp_dev *dev, const struct tbl *t, uint32_t seed,
		       uint32_t want_gen)
{
	struct rt_batch b;
	struct rt_sls_out o;
	float *ref;

	rt_batch_random(&b, 50, 12, t->rows, seed & 1, seed);
	ref = malloc(4ull * b.nbags * t->dim);
	REQUIRE(ref);
	rt_reference(t->data, t->dtype, t->dim, 0, &b, ref);
	CHECK_EQ_U64(rt_sls(dev, t->tid, t->dim, 0, &b, &o), 0);
	if (o.v) {
		CHECK(rt_same(o.v, ref, (size_t)b.nbags * t->dim));
		CHECK_EQ_U64(o.res.generation, want_gen);
		free(o.v);
	}
	free(ref);
	rt_batch_free(&b);
}

/* @n rows from @first, each looked up @reps times (new hot keys). */
static void hot_traffic(struct isp_dev *dev, const struct tbl *t, uint32_t first,
			uint32_t n, uint32_t reps)
{
	struct rt_batch b;
	struct rt_sls_out o;

	rt_batch_hot(&b, first, n, reps);
	REQUIRE(rt_sls(dev, t->tid, t->dim, 0, &b, &o) == 0);
	free(o.v);
	rt_batch_free(&b);
}

static int rf_regions(struct isp_dev *dev)
{
	struct fs_region r[64];
	int n = fs_region_list(isp_dev_store(dev), r, 64), i, k = 0;

	for (i = 0; i < n && i < 64; i++)
		k += (r[i].owner >> 32) == (RF_OWNER_TAG >> 32);
	return k;
}

static uint32_t map_of(struct isp_dev *dev, uint32_t tid, uint32_t *keys, uint32_t *slots,
		       uint32_t rows)
{
	uint32_t tau = 0;

	CHECK_EQ_U64(rf_debug_map(dev, tid, 0, keys, rows, slots, &tau), rows);
	return tau;
}

int main(void)
{
	char dir[] = "/tmp/rf-persist-XXXXXX";
	struct isp_wire_rf_stats st;
	struct isp_dev *dev;
	uint32_t i, *k1, *s1, *k2, *s2, tau1, tau2;

	REQUIRE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/flash.img", dir);
	dev = rt_open("recflash-slc", params, path);
	for (i = 0; i < 3; i++) {
		struct tbl *t = &tbls[i];
		struct isp_wire_rf_create cr = rt_cr(t->tid, t->rows, t->dim, t->dtype, t->mode);
		uint32_t *prof = NULL, r;

		t->data = rt_table(t->rows, t->dim, t->dtype, t->tid * 31);
		if (t->profile) {
			prof = malloc(t->rows * 4);
			REQUIRE(prof);
			/* 300 rows seen once: hot region (250) at f = 1. */
			for (r = 0; r < t->rows; r++)
				prof[r] = r % 16 == 3;
			cr.flags = ISP_RF_TF_PROFILE;
		}
		REQUIRE(rt_deploy(dev, &cr, t->data, prof) == 0);
		free(prof);
		check_sums(dev, t, 10 + i, 0);
	}
	/* A deploy that never commits. */
	{
		struct isp_wire_rf_create cr = rt_cr(9, 1000, 8, ISP_RF_FP32, ISP_RF_RECFLASH);

		REQUIRE(rt_create(dev, &cr) == 0);
		REQUIRE(rt_write(dev, ISP_OP_RF_TBL_WRITE, 9, ISP_RF_SEC_ROWS, tbls[2].data,
				 4096, 4096) == 0);
		CHECK_EQ_U64(rf_regions(dev), 4);
	}
	isp_dev_close(dev);

	/* Restart: three tables, no half deploy. */
	dev = rt_open("recflash-slc", params, path);
	CHECK_EQ_U64(rf_regions(dev), 3);
	CHECK_EQ_U64(rt_stats(dev, 9, 0, &st), ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR);
	for (i = 0; i < 3; i++) {
		CHECK_EQ_U64(rt_stats(dev, tbls[i].tid, 0, &st), 0);
		CHECK_EQ_U64(st.state, ISP_RF_READY);
		CHECK_EQ_U64(st.generation, 0);
		CHECK_EQ_U64(st.create.dtype, tbls[i].dtype);
		check_sums(dev, &tbls[i], 20 + i, 0);
	}

	/* Crash during remap: staged, never switched; another commit meanwhile. */
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, 3, ISP_RF_REMAP_FULL, NULL), 0);
	check_sums(dev, &tbls[2], 30, 0);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, 2, ISP_RF_REMAP_ADAPTIVE, NULL), 0);
	{
		struct isp_wire_rf_create cr = rt_cr(4, 100, 8, ISP_RF_FP32, ISP_RF_RMSSD);

		REQUIRE(rt_deploy(dev, &cr, tbls[2].data, NULL) == 0);
		CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_TBL_DELETE, 4, 0, NULL), 0);
	}
	CHECK_EQ_U64(rf_regions(dev), 4);	/* + the staged FULL region */
	isp_dev_close(dev);
	dev = rt_open("recflash-slc", params, path);
	CHECK_EQ_U64(rf_regions(dev), 3);
	for (i = 0; i < 3; i++) {
		CHECK_EQ_U64(rt_stats(dev, tbls[i].tid, 0, &st), 0);
		CHECK_EQ_U64(st.generation, 0);
		CHECK_EQ_U64(st.remap_state, ISP_RF_REMAP_IDLE);
		check_sums(dev, &tbls[i], 40 + i, 0);
	}

	/* Remap and switch, then restart: the new mappings come back. */
	hot_traffic(dev, &tbls[1], 4000, 60, 3);	/* new hot keys, f = 3 */
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, 3, ISP_RF_REMAP_FULL, NULL), 0);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_SWITCH, 3, 0, NULL), 0);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, 2,
			       ISP_RF_REMAP_ADAPTIVE | ISP_RF_REMAP_SWITCH, NULL), 0);
	CHECK_EQ_U64(rt_stats(dev, 2, 0, &st), 0);
	CHECK(st.remap_rows_moved > 0);
	k1 = malloc(6000 * 4);
	s1 = malloc(6000 * 4);
	k2 = malloc(6000 * 4);
	s2 = malloc(6000 * 4);
	REQUIRE(k1 && s1 && k2 && s2);
	tau1 = map_of(dev, 2, k1, s1, 5000);
	isp_dev_close(dev);
	dev = rt_open("recflash-slc", params, path);
	CHECK_EQ_U64(rf_regions(dev), 3);
	tau2 = map_of(dev, 2, k2, s2, 5000);
	CHECK_EQ_U64(tau1, tau2);
	CHECK(memcmp(s1, s2, 5000 * 4) == 0);		/* every address */
	/* The hot region's order (the part Algorithm 1 uses) is persisted. */
	for (i = 0; i < 250; i++)
		CHECK_EQ_U64(k1[i], k2[i]);
	for (i = 0; i < 3; i++) {
		CHECK_EQ_U64(rt_stats(dev, tbls[i].tid, 0, &st), 0);
		CHECK_EQ_U64(st.generation, i ? 1 : 0);
		check_sums(dev, &tbls[i], 60 + i, i ? 1 : 0);
	}
	/* Remaps keep working after the restart (stripes rebuilt from flash). */
	hot_traffic(dev, &tbls[1], 100, 80, 5);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, 2,
			       ISP_RF_REMAP_ADAPTIVE | ISP_RF_REMAP_SWITCH, NULL), 0);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, 3,
			       ISP_RF_REMAP_FULL | ISP_RF_REMAP_SWITCH, NULL), 0);
	check_sums(dev, &tbls[1], 71, 2);
	check_sums(dev, &tbls[2], 72, 2);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_TBL_DELETE, 3, 0, NULL), 0);
	isp_dev_close(dev);
	dev = rt_open("recflash-slc", params, path);
	CHECK_EQ_U64(rf_regions(dev), 2);
	check_sums(dev, &tbls[1], 81, 2);
	isp_dev_close(dev);

	for (i = 0; i < 3; i++)
		free(tbls[i].data);
	free(k1);
	free(s1);
	free(k2);
	free(s2);
	unlink(path);
	rmdir(dir);
	return t_result();
}
