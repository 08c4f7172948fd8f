/* SPDX-License-Identifier: MIT */
/*
 * test_rf_api - RecFlash through libreis on an in-process recflash-tlc
 * drive: nine tables (fp32/fp16/int8 x RecSSD/RM-SSD/RecFlash modes, dims
 * whose rows are not whole dwords) deployed together with overlapped
 * uploads in small chunks; list and statistics describe them; SLS equals
 * the host reference bit for bit for sum, mean, weighted and weighted mean
 * in every mode (command-set.md §5 accumulation rules); a batch larger than
 * one command is split and still exact; a failed deploy leaves nothing
 * behind and touches no other table; delete removes exactly one table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "libreis_tools.h"
#include "rf_util.h"

#define ROWS 3001
#define NT 9

static const uint32_t dims[4] = { 0, 24, 13, 13 };	/* by dtype */

static void check_sls(struct reis_dev *dev, const struct rf_tbl *t, uint64_t seed)
{
	static const uint32_t fl[] = { 0, REIS_RF_SLS_MEAN, REIS_RF_SLS_WEIGHTED,
				       REIS_RF_SLS_WEIGHTED | REIS_RF_SLS_MEAN };
	struct reis_rf_sls_info in;
	struct rf_batch bt;
	unsigned f;

	for (f = 0; f < 4; f++) {
		int w = !!(fl[f] & REIS_RF_SLS_WEIGHTED);
		float *out, *ref;
		int ret;

		rf_batch_make(&bt, seed + f, 100, 50, 0, t->rows, w);
		out = calloc((size_t)100 * t->dim, sizeof(float));
		ref = calloc((size_t)100 * t->dim, sizeof(float));
		REQUIRE(out && ref);
		ret = reis_rf_sls(dev, t->tid, t->dim, &bt.b, fl[f], out, &in);
		if (ret)
			fprintf(stderr, "sls table %u flags %u: %s\n", t->tid, fl[f],
				reis_last_error(dev));
		CHECK(ret == 0);
		CHECK(reis_rf_sls_ref(t->dtype, t->rows, t->dim, t->wire, &bt.b, fl[f], ref) == 0);
		if (rf_diff(out, ref, (size_t)100 * t->dim)) {
			fprintf(stderr, "table %u (dtype %u mode %u) flags %u: %zu of %u values "
				"differ, e.g. %a vs %a\n", t->tid, t->dtype, t->mode, fl[f],
				rf_diff(out, ref, (size_t)100 * t->dim), 100 * t->dim,
				(double)out[0], (double)ref[0]);
			CHECK(0);
		}
		CHECK_EQ_U64(in.nbags, 100);
		CHECK_EQ_U64(in.lookups, bt.b.nidx);
		CHECK(in.ncmds >= 1);
		CHECK(in.page_reads + in.cache_hits > 0);
		CHECK(in.bytes_useful <= in.bytes_sensed || t->mode == REIS_RF_RECFLASH);
		CHECK(in.flash_ns > 0 && in.model_ns >= in.flash_ns);
		CHECK(in.host_ns > 0);
		free(out);
		free(ref);
		rf_batch_free(&bt);
	}
}

int main(void)
{
	struct reis_dev *dev = rf_open("recflash-tlc", 0, 0, NULL);
	struct reis_rf_table d[NT];
	struct reis_rf_deploy_opts o;
	struct rf_tbl t[NT];
	struct reis_rf_stats st, list[16];
	struct reis_rf_sls_info in;
	struct rf_batch bt;
	float *out, *ref;
	unsigned i;
	int n;

	for (i = 0; i < NT; i++) {
		uint32_t dtype = 1 + i / 3, mode = 1 + i % 3;

		REQUIRE(rf_tbl_make(&t[i], 100 + i, ROWS, dims[dtype], dtype, mode, i) == 0);
		memset(&d[i], 0, sizeof(d[i]));
		d[i].tid = t[i].tid;
		d[i].rows = ROWS;
		d[i].dim = t[i].dim;
		d[i].dtype = dtype;
		d[i].mode = mode;
		d[i].data = t[i].wire;
		d[i].name = i == 4 ? "rm-ssd fp16" : NULL;
	}
	memset(&o, 0, sizeof(o));
	o.depth = 4;
	o.chunk = 8192;
	n = reis_rf_deployv(dev, d, NT, &o);
	if (n)
		fprintf(stderr, "deployv: %s\n", reis_last_error(dev));
	REQUIRE(n == 0);
	CHECK(o.ncmds > 2 * NT);
	CHECK(o.time_ns > 0);

	n = reis_rf_list(dev, list, 16);
	CHECK(n == NT);
	for (i = 0; i < NT && i < (unsigned)n; i++) {
		unsigned j;

		for (j = 0; j < NT; j++)
			if (list[i].tid == t[j].tid)
				break;
		REQUIRE(j < NT);
		CHECK_EQ_U64(list[i].rows, ROWS);
		CHECK_EQ_U64(list[i].dim, t[j].dim);
		CHECK_EQ_U64(list[i].dtype, t[j].dtype);
		CHECK_EQ_U64(list[i].mode, t[j].mode);
		CHECK_EQ_U64(list[i].state, REIS_RF_READY);
	}
	CHECK(reis_rf_list(dev, list, 2) == NT);
	CHECK(reis_rf_list(dev, NULL, 0) == NT);

	CHECK(reis_rf_table_stats(dev, 104, 0, &st) == 0);
	CHECK(strcmp(st.name, "rm-ssd fp16") == 0);
	CHECK_EQ_U64(st.received_rows, (uint64_t)ROWS * 26);
	CHECK_EQ_U64(st.remap_state, REIS_RF_REMAP_IDLE);
	CHECK(st.pages > 0 && st.rows_per_page > 0);
	CHECK_EQ_U64(st.rows_per_page, 16384 / 26);

	for (i = 0; i < NT; i++)
		check_sls(dev, &t[i], 1000 + 10 * i);

	/* Statistics count what the SLS did. */
	CHECK(reis_rf_table_stats(dev, 100, 0, &st) == 0);
	CHECK(st.sls_bags == 400);
	CHECK(st.lookups > 400);
	CHECK(reis_rf_table_stats(dev, 100, REIS_RF_STATS_RESET, &st) == 0);
	CHECK(reis_rf_table_stats(dev, 100, 0, &st) == 0);
	CHECK_EQ_U64(st.sls_bags, 0);
	CHECK(reis_rf_table_stats(dev, 100, 2, &st) == -EINVAL);

	/* A failed deploy removes what it created and nothing else. */
	d[0].tid = 500;
	d[1].tid = 101;		/* exists */
	CHECK(reis_rf_deployv(dev, d, 2, NULL) == -EEXIST);
	CHECK((reis_last_cpl(dev)->status & REIS_STATUS_CODE_MASK) == REIS_SC_ID_EXISTS);
	CHECK(strstr(reis_last_error(dev), "RF_TBL_CREATE table 101") != NULL);
	CHECK(reis_rf_table_stats(dev, 500, 0, &st) == -ENOENT);
	CHECK(reis_rf_list(dev, NULL, 0) == NT);
	check_sls(dev, &t[1], 77);

	/* Delete exactly one. */
	CHECK(reis_rf_delete(dev, 108) == 0);
	CHECK(reis_rf_list(dev, NULL, 0) == NT - 1);
	CHECK(reis_rf_delete(dev, 108) == -ENOENT);
	rf_batch_make(&bt, 3, 4, 4, 1, ROWS, 0);
	out = calloc(4 * 24, sizeof(float));
	REQUIRE(out);
	CHECK(reis_rf_sls(dev, 108, 13, &bt.b, 0, out, NULL) == -ENOENT);
	rf_batch_free(&bt);
	free(out);
	reis_close(dev);

	/* A batch of many commands under a small max_xfer, and a 4-worker drive. */
	dev = rf_open("recflash-slc", 4, 16384, NULL);
	REQUIRE(rf_tbl_deploy(dev, &t[2], NULL) == 0);
	rf_batch_make(&bt, 11, 3000, 40, 0, ROWS, 1);
	out = calloc((size_t)3000 * 24, sizeof(float));
	ref = calloc((size_t)3000 * 24, sizeof(float));
	REQUIRE(out && ref);
	CHECK(reis_rf_sls(dev, t[2].tid, 24, &bt.b, REIS_RF_SLS_WEIGHTED, out, &in) == 0);
	CHECK(reis_rf_sls_ref(REIS_RF_FP32, ROWS, 24, t[2].wire, &bt.b, REIS_RF_SLS_WEIGHTED,
			      ref) == 0);
	CHECK(rf_diff(out, ref, (size_t)3000 * 24) == 0);
	CHECK(in.ncmds > 10);
	CHECK_EQ_U64(in.lookups, bt.b.nidx);
	printf("3000 bags in %u commands, %llu page reads, modeled %.3f ms\n", in.ncmds,
	       (unsigned long long)in.page_reads, (double)in.flash_ns / 1e6);
	rf_batch_free(&bt);
	free(out);
	free(ref);
	reis_close(dev);
	for (i = 0; i < NT; i++)
		free(t[i].wire);
	return t_result();
}
