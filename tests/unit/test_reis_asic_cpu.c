/* SPDX-License-Identifier: MIT */
/*
 * test_reis_asic_cpu - the comparison models of the REIS evaluation against
 * hand-computed cases (docs/timing-model.md "Comparison models"):
 *   - REIS-ASIC (REIS 6.3.1) on reis-ssd1: 1000 pages stream 125 per
 *     channel at 18,592 B / 1.2 GB/s = 15.493334 us each after one 22.5 us
 *     sense and the 1 us command path (channel-bound), 100 INT8 rerank
 *     reads add a 60 us TLC round and 13 x 873 ns per channel; with a 100 GB/s
 *     channel the 4 sensing rounds bound it instead; 0 pages cost 0;
 *   - CPU-Real (REIS Table 3): loading 6.9 GB at 6.9 GB/s is 1 s; per
 *     query 128 MB at 409.6 GB/s = 312.5 us beats 1 M codes x 4 cycles on
 *     128 x 3.1 GHz (10.081 us) and 100 x 1024 INT8 rerank cycles add
 *     33.033 us on one core; a 100x dearer compare becomes compute-bound;
 *     No-I/O drops the load; a malformed host gives 0.
 */
#include <string.h>

#include "check.h"
#include "flash_preset.h"
#include "reis_engine.h"

int main(void)
{
	struct fp_params p;
	struct re_cpu c;

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
	CHECK_EQ_U64(re_cpu_ns(&c, 6900000000ull, 10, 1000000, 128000000, 100, 1024),
		     1000000000ull + 10 * (312500 + 33033));
	CHECK_EQ_U64(re_cpu_ns(&c, 0, 10, 1000000, 128000000, 100, 1024),
		     10 * (312500 + 33033));
	c.cyc_entry = 400;	/* 4e8 cycles / 396,800 per us = 1008.0645 us */
	CHECK_EQ_U64(re_cpu_ns(&c, 0, 1, 1000000, 128000000, 0, 1024), 1008065);
	c.cores = 0;
	CHECK_EQ_U64(re_cpu_ns(&c, 0, 1, 1, 1, 0, 1), 0);
	return t_result();
}
