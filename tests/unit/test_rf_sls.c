/* SPDX-License-Identifier: MIT */
/*
 * test_rf_sls - RF_SLS results equal a host reference bit for bit for every
 * dtype (fp32, fp16, int8 scale/bias), every mode (RecSSD-like, RM-SSD-like,
 * RecFlash with and without a deploy profile), sum, mean and weighted, in
 * one batch and split; result header and per-table statistics agree; list
 * and delete.
 */
#include "test_rf_util.h"

static void check_sls(struct isp_dev *dev, uint32_t tid, const uint8_t *table,
		      uint32_t rows, uint32_t dim, uint32_t dtype, uint32_t flags,
		      int weighted, uint32_t seed)
{
	struct rt_batch b;
	struct rt_sls_out o;
	float *ref;

	rt_batch_random(&b, 37, 9, rows, weighted, seed);
	ref = malloc(4ull * b.nbags * dim);
	REQUIRE(ref);
	rt_reference(table, dtype, dim, flags, &b, ref);
	CHECK_EQ_U64(rt_sls(dev, tid, dim, flags, &b, &o), 0);
	if (o.v) {
		CHECK(rt_same(o.v, ref, (size_t)b.nbags * dim));
		CHECK_EQ_U64(o.res.nbags, b.nbags);
		CHECK_EQ_U64(o.res.dim, dim);
		CHECK_EQ_U64(o.res.lookups, b.nidx);
		CHECK_EQ_U64(o.hdr.kind, ISP_RESULT_SLS);
		CHECK_EQ_U64(o.hdr.hdr_bytes, sizeof(o.res));
		CHECK_EQ_U64(o.hdr.model_ns, o.cpl.model_ns);
		CHECK_EQ_U64(o.hdr.energy_pj, o.cpl.energy_pj);
		CHECK(o.res.flash_ns > 0 || o.res.page_reads == 0);
		CHECK(o.res.flash_ns < o.cpl.model_ns);
		CHECK(o.res.bytes_useful <= o.res.bytes_sensed);
		CHECK_EQ_U64(o.res.bytes_sensed, o.res.page_reads * 4096);
		free(o.v);
	}
	free(ref);
	rt_batch_free(&b);
}

static void test_all_kinds(struct isp_dev *dev)
{
	static const uint32_t dtypes[] = { ISP_RF_FP32, ISP_RF_FP16, ISP_RF_INT8 };
	static const uint32_t dims[] = { 32, 7, 61 };
	static const uint32_t modes[] = { ISP_RF_RECSSD, ISP_RF_RMSSD, ISP_RF_RECFLASH };
	uint32_t tid = 1, rows = 3000, di, mi, prof, fl;

	for (di = 0; di < 3; di++)
		for (mi = 0; mi < 3; mi++)
			for (prof = 0; prof < (modes[mi] == ISP_RF_RECFLASH ? 2u : 1u); prof++) {
				struct isp_wire_rf_create cr = rt_cr(tid, rows, dims[di],
								     dtypes[di], modes[mi]);
				uint8_t *table = rt_table(rows, dims[di], dtypes[di], tid * 77);
				uint32_t *profile = NULL, r;
				struct isp_wire_rf_stats st;

				if (prof) {
					cr.flags = ISP_RF_TF_PROFILE;
					profile = malloc(rows * 4);
					REQUIRE(profile);
					for (r = 0; r < rows; r++)
						profile[r] = (r * 2654435761u) % 97;
				}
				CHECK_EQ_U64(rt_deploy(dev, &cr, table, profile), 0);
				for (fl = 0; fl < 4; fl++)
					check_sls(dev, tid, table, rows, dims[di], dtypes[di],
						  (fl & 1) ? ISP_RF_SLS_MEAN : 0, (fl & 2) != 0,
						  tid * 1000 + fl);
				CHECK_EQ_U64(rt_stats(dev, tid, 0, &st), 0);
				CHECK_EQ_U64(st.state, ISP_RF_READY);
				CHECK_EQ_U64(st.sls_bags, 4 * 37);
				CHECK_EQ_U64(st.create.rows, rows);
				CHECK_EQ_U64(st.rows_per_page, 4096 / rt_row_bytes(dtypes[di], dims[di]));
				CHECK(st.pages >= (rows + st.rows_per_page - 1) / st.rows_per_page);
				CHECK(st.bytes_useful <= st.bytes_sensed);
				if (modes[mi] != ISP_RF_RECFLASH)
					CHECK_EQ_U64(st.cache_hits + st.cache_misses, 0);
				else
					CHECK(st.cache_hits + st.cache_misses > 0);
				CHECK_EQ_U64(st.create.hot_bp, modes[mi] == ISP_RF_RECFLASH ? 500 : 0);
				free(table);
				free(profile);
				tid++;
			}
}

/* One big batch equals the same bags issued one per command. */
static void test_split(struct isp_dev *dev)
{
	struct isp_wire_rf_create cr = rt_cr(100, 5000, 16, ISP_RF_FP32, ISP_RF_RMSSD);
	uint8_t *table = rt_table(5000, 16, ISP_RF_FP32, 5);
	struct rt_batch b, one;
	struct rt_sls_out o, p;
	uint32_t i;

	REQUIRE(rt_deploy(dev, &cr, table, NULL) == 0);
	rt_batch_random(&b, 200, 20, 5000, 1, 99);
	REQUIRE(rt_sls(dev, 100, 16, 0, &b, &o) == 0);
	for (i = 0; i < b.nbags; i += 17) {
		uint32_t off[2] = { 0, b.off[i + 1] - b.off[i] };

		one.nbags = 1;
		one.nidx = off[1];
		one.off = off;
		one.idx = b.idx + b.off[i];
		one.w = b.w + b.off[i];
		REQUIRE(rt_sls(dev, 100, 16, 0, &one, &p) == 0);
		CHECK(rt_same(p.v, o.v + (size_t)i * 16, 16));
		free(p.v);
	}
	/* RM-SSD reads per vector (RecFlash Fig. 4a): every lookup of the
	 * command is its own page read and read-out, a repeated row too (the
	 * default rf_base_rows = 0, timing-model.md W1: IV-A excludes the DRAM
	 * cache, the baselines' only reuse of a vector, II-B). */
	{
		uint8_t *seen = calloc(5000, 1);
		uint64_t nd = 0;

		REQUIRE(seen);
		for (i = 0; i < b.nidx; i++)
			nd += !seen[b.idx[i]]++;
		free(seen);
		CHECK(nd < b.nidx);	/* the batch repeats rows */
		CHECK_EQ_U64(o.res.bytes_out, (uint64_t)b.nidx * 64);
		CHECK_EQ_U64(o.res.page_reads, b.nidx);
		/* The sweep's alternative (rf_base_rows = 1): every distinct row
		 * once, even rows of one page; the same sums. */
		{
			struct isp_dev *d1 = rt_open("recflash-slc",
						     "blocks_per_plane=96,rf_base_rows=1", NULL);

			REQUIRE(rt_deploy(d1, &cr, table, NULL) == 0);
			REQUIRE(rt_sls(d1, 100, 16, 0, &b, &p) == 0);
			CHECK(rt_same(p.v, o.v, (size_t)b.nbags * 16));
			CHECK_EQ_U64(p.res.bytes_out, nd * 64);
			CHECK_EQ_U64(p.res.page_reads, nd);
			free(p.v);
			isp_dev_close(d1);
		}
	}
	/* RecFlash reads each distinct row once per command (Fig. 4b). */
	cr = rt_cr(101, 5000, 16, ISP_RF_FP32, ISP_RF_RECFLASH);
	REQUIRE(rt_deploy(dev, &cr, table, NULL) == 0);
	REQUIRE(rt_sls(dev, 101, 16, ISP_RF_SLS_NO_CACHE, &b, &p) == 0);
	CHECK(rt_same(p.v, o.v, (size_t)b.nbags * 16));	/* the same sums */
	CHECK(p.res.bytes_out < (uint64_t)b.nidx * 64);
	CHECK(p.res.page_reads < b.nidx);
	free(p.v);
	free(o.v);
	rt_batch_free(&b);
	free(table);
}

static void test_list_delete(struct isp_dev *dev)
{
	uint8_t buf[16 + 3 * sizeof(struct isp_wire_rf_stats)];
	struct isp_wire_rf_list lh;
	struct isp_wire_rf_stats e0;
	struct isp_cmd c = rt_cmd(ISP_OP_RF_TBL_LIST, sizeof(buf));
	uint32_t total;

	CHECK_EQ_U64(rt_exec(dev, &c, buf, NULL), 0);
	memcpy(&lh, buf, sizeof(lh));
	total = lh.total;
	CHECK(total >= 13);
	CHECK_EQ_U64(lh.count, 3);
	memcpy(&e0, buf + 16, sizeof(e0));
	CHECK_EQ_U64(e0.create.tid, 1);
	c = rt_cmd(ISP_OP_RF_TBL_LIST, sizeof(buf));
	c.cdw12 = total - 1;
	CHECK_EQ_U64(rt_exec(dev, &c, buf, NULL), 0);
	memcpy(&lh, buf, sizeof(lh));
	CHECK_EQ_U64(lh.count, 1);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_TBL_DELETE, 1, 0, NULL), 0);
	CHECK_EQ_U64(rt_stats(dev, 1, 0, &e0), ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR);
	c = rt_cmd(ISP_OP_RF_TBL_LIST, sizeof(buf));
	CHECK_EQ_U64(rt_exec(dev, &c, buf, NULL), 0);
	memcpy(&lh, buf, sizeof(lh));
	CHECK_EQ_U64(lh.total, total - 1);
}

static void test_identify_stats(struct isp_dev *dev)
{
	struct isp_wire_identify id;
	struct isp_wire_stats st;
	struct isp_cmd c = rt_cmd(ISP_OP_IDENTIFY, sizeof(id));

	CHECK_EQ_U64(rt_exec(dev, &c, &id, NULL), 0);
	CHECK(id.caps & ISP_CAP_RECFLASH);
	CHECK(id.caps & ISP_CAP_RECFLASH_REMAP);
	CHECK(id.caps & ISP_CAP_RECFLASH_CACHE);
	CHECK(id.max_tables >= 64);
	CHECK(id.dram_used > 0);
	c = rt_cmd(ISP_OP_STATS, sizeof(st));
	CHECK_EQ_U64(rt_exec(dev, &c, &st, NULL), 0);
	CHECK(st.sls_bags > 0);
	CHECK(st.cache_hits + st.cache_misses > 0);
	CHECK(st.cmds[ISP_CLS_RECFLASH_SLS] > 0);
	CHECK(st.cmds[ISP_CLS_RECFLASH_DEPLOY] > 0);
}

int main(void)
{
	struct isp_dev *dev = rt_open("recflash-slc", "blocks_per_plane=96", NULL);

	test_all_kinds(dev);
	test_split(dev);
	test_list_delete(dev);
	test_identify_stats(dev);
	isp_dev_close(dev);
	return t_result();
}
