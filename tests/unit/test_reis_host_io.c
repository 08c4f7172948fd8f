/* SPDX-License-Identifier: MIT */
/*
 * test_reis_host_io - the storage I/O of a host whose IVF index stays on
 * the drive (re_cpu_io_ns(), docs/timing-model.md C9), against
 * hand-computed cases on CPU-Real (REIS Table 3):
 *   - 10,000 probed 128-byte codes are 1,280,000 B at the PM9A3's 6.9 GB/s
 *     = 185,507.2 ns, rounded up to 185,508; 100 INT8 rows of 1024 B and 10
 *     documents are 110 random 4 KiB reads at 1,000 k IOPS = 110 us;
 *   - a 4097-byte row spans two pages: 210 reads;
 *   - no rerank and no documents leave the list stream alone;
 *   - the query's I/O adds to its No-I/O time as the model's on-SSD host;
 *   - a drive without an IOPS figure, too many documents, a malformed host
 *     or query give 0.
 */
#include "check.h"
#include "reis_engine.h"

int main(void)
{
	struct re_cpu c, f;
	struct re_cpu_query q = { .centroids = 1000, .codes = 10000, .code_bytes = 128,
				  .rerank = 100, .dim = 1024 };

	re_cpu_real(&c);
	CHECK_EQ_U64(c.ssd_kiops, 1000);
	CHECK_EQ_U64(re_cpu_io_ns(&c, &q, 10), 185508 + 110000);
	q.dim = 4097;
	CHECK_EQ_U64(re_cpu_io_ns(&c, &q, 10), 185508 + 210000);
	q.dim = 1024;
	q.rerank = 0;
	CHECK_EQ_U64(re_cpu_io_ns(&c, &q, 0), 185508);
	q.rerank = 100;
	/* 138,901 ns of compute (test_reis_asic_cpu) + the I/O */
	CHECK_EQ_U64(re_cpu_ns(&c, 0, 1, &q) + re_cpu_io_ns(&c, &q, 10), 138901 + 295508);
	re_cpu_fig3(&f);
	CHECK_EQ_U64(re_cpu_io_ns(&f, &q, 10), 295508);
	/* malformed */
	CHECK_EQ_U64(re_cpu_io_ns(&c, &q, 65537), 0);
	CHECK_EQ_U64(re_cpu_io_ns(NULL, &q, 10), 0);
	CHECK_EQ_U64(re_cpu_io_ns(&c, NULL, 10), 0);
	q.codes = 1ull << 37;
	CHECK_EQ_U64(re_cpu_io_ns(&c, &q, 10), 0);
	q.codes = 10000;
	c.ssd_kiops = 0;
	CHECK_EQ_U64(re_cpu_io_ns(&c, &q, 10), 0);
	return t_result();
}
