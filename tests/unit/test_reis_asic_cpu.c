/* SPDX-License-Identifier: MIT */
/*
 * test_reis_asic_cpu - the comparison models of the REIS evaluation against
 * hand-computed cases (docs/timing-model.md "Comparison models"):
 *   - REIS-ASIC (REIS 6.3.1) on reis-ssd1: 1000 pages stream 125 per
 *     channel at 18,592 B / 1.2 GB/s = 15.493334 us each after one 22.5 us
 *     sense and the 1 us command path (channel-bound), 100 INT8 rerank
 *     reads add a 60 us TLC round and 13 x 873 ns per channel; with a 100 GB/s
 *     channel the 4 sensing rounds bound it instead; 0 pages cost 0;
 *   - CPU-Real (REIS Table 3, C1-C6): one query of 1000 centroids x 20.3
 *     cycles, 10,000 codes x 22.9, 100 x 1024 INT8 dimensions x 1.58 and
 *     100 x 195 sort cycles is 43,059,200 centi-cycles, 138.901 us at
 *     3.1 GHz on one core; 64-byte codes halve the scan's share; loading
 *     6.9 GB at 6.9 GB/s is 1 s; with 128 queries at once the query's
 *     1.408 MB at 409.6 GB/s (3.438 us) binds instead; No-I/O drops the
 *     load; a load rate above the drive's is capped by the drive;
 *   - Fig. 3's system (C7): the same query at 2.3 GHz is 187.214 us, and
 *     3.48 GB load at 0.348 GB/s in 10 s;
 *   - a malformed host or query gives 0.
 */
#include <string.h>

#include "check.h"
#include "flash_preset.h"
#include "reis_engine.h"

int main(void)
{
	struct fp_params p;
	struct re_cpu c, f;
	struct re_cpu_query q = { .centroids = 1000, .codes = 10000, .code_bytes = 128,
				  .rerank = 100, .dim = 1024 };

	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	/* 1 us + 22.5 us + 125 x 15,493,334 ps */
	CHECK_EQ_U64(re_asic_ns(&p, 1000, 0, 1024), 1960166);
	CHECK_EQ_U64(re_asic_ns(&p, 0, 100, 1024), 0);
	/* + 100 INT8 reads: one 60 us TLC round over 256 planes, 13 per
	 * channel x (20 ns tRR + 1024 B / 1.2 GB/s = 873,334 ps) */
	CHECK_EQ_U64(re_asic_ns(&p, 1000, 100, 1024),
		     (1000000 + 22500000 + 125 * 15493334ull + 60000000 + 13 * 873334ull) / 1000);
	REQUIRE(fp_set(&p, "channel_mbps", "100000") == 0);
	/* 18,592 B at 100 GB/s = 185,920 ps; 3 x 22.5 us + that > 125 x that */
	CHECK_EQ_U64(re_asic_ns(&p, 1000, 0, 1024), (1000000 + 22500000 + 67500000 + 185920) / 1000);

	re_cpu_real(&c);
	CHECK_EQ_U64(c.cores, 128);
	CHECK_EQ_U64(c.mhz, 3100);
	CHECK_EQ_U64(c.streams, 1);
	/* 2,030,000 + 22,900,000 + 16,179,200 + 1,950,000 centi-cycles */
	CHECK_EQ_U64(re_cpu_query_ns(&c, &q), 138901);
	CHECK_EQ_U64(re_cpu_ns(&c, 0, 1, &q), 138901);
	CHECK_EQ_U64(re_cpu_ns(&c, 6900000000ull, 10, &q), 1000000000ull + 10 * 138901ull);
	q.code_bytes = 64;	/* 1,015,000 + 11,450,000 + 16,179,200 + 1,950,000 */
	CHECK_EQ_U64(re_cpu_query_ns(&c, &q), 98691);
	q.code_bytes = 128;
	c.streams = 128;	/* ceil(138,901 / 128) = 1086 < 1,408,000 B / 409.6 GB/s */
	CHECK_EQ_U64(re_cpu_ns(&c, 0, 1, &q), 3438);
	c.streams = 1;
	c.load_mbps = 10000;	/* the drive's 6.9 GB/s still bounds the load */
	CHECK_EQ_U64(re_cpu_ns(&c, 6900000000ull, 0, &q), 1000000000ull);
	re_cpu_fig3(&f);
	CHECK_EQ_U64(f.cores, 24);
	CHECK_EQ_U64(f.load_mbps, 348);
	CHECK_EQ_U64(re_cpu_query_ns(&f, &q), 187214);
	CHECK_EQ_U64(re_cpu_ns(&f, 3480000000ull, 0, &q), 10000000000ull);
	/* malformed hosts and queries */
	CHECK_EQ_U64(re_cpu_ns(&c, 0, 1, NULL), 0);
	CHECK_EQ_U64(re_cpu_query_ns(NULL, &q), 0);
	c.streams = 0;
	CHECK_EQ_U64(re_cpu_ns(&c, 0, 1, &q), 0);
	c.streams = 129;
	CHECK_EQ_U64(re_cpu_query_ns(&c, &q), 0);
	c.streams = 1;
	q.codes = 1ull << 37;
	CHECK_EQ_U64(re_cpu_query_ns(&c, &q), 0);
	q.codes = 10000;
	q.dim = 1u << 20;
	CHECK_EQ_U64(re_cpu_ns(&c, 0, 1, &q), 0);
	c.cores = 0;
	q.dim = 1024;
	CHECK_EQ_U64(re_cpu_ns(&c, 0, 1, &q), 0);
	return t_result();
}
