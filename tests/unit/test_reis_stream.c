/* SPDX-License-Identifier: MIT */
/*
 * test_reis_stream - the stream rule (docs/timing-model.md §6.2) against
 * hand-computed cases and its definition:
 *   - REIS-ASIC in a stream on reis-ssd1: 1000 pages hold each channel
 *     125 x 18,592 B / 1.2 GB/s (15,493,334 ps); 100 INT8 reads add 13 x
 *     (20 ns tRR + 1024 B at 1.2 GB/s = 873,334 ps); with 100 GB/s
 *     channels the planes bind: (1000 x 22.5 us + 100 x 60 us) / 256;
 *     0 pages cost 0;
 *   - re_estimate_stream() on a paper-scale IVF search: stage A is the
 *     one-query estimate without rerank, the occupancy the busiest class
 *     of the depth-query estimate over its resources and the depth, the
 *     time the larger; a slow core binds the occupancy; the rerank's TLC
 *     read latency does not enter stage A; refused arguments.
 */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "flash_preset.h"
#include "isp_wire.h"
#include "reis_engine.h"

static void ivf(struct re_est *e)
{
	memset(e, 0, sizeof(*e));
	e->kind = ISP_REIS_IVF;
	e->dim = 1024;
	e->n = 2681468;		/* BEIR NQ */
	e->nlist = 8192;
	e->db_flags = ISP_REIS_DBF_INT8;
	e->doc_mode = ISP_REIS_DOC_SUBPAGE;
	e->nq = 1;
	e->k = 10;
	e->df_threshold = 400;
	e->pass = 0.01;
	e->nprobe = 64;
}

static void asic(void)
{
	struct fp_params p;

	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	CHECK_EQ_U64(re_asic_stream_ns(&p, 1000, 0, 1024), 125 * 15493334ull / 1000);
	CHECK_EQ_U64(re_asic_stream_ns(&p, 1000, 100, 1024),
		     (125 * 15493334ull + 13 * 873334ull) / 1000);
	CHECK_EQ_U64(re_asic_stream_ns(&p, 0, 100, 1024), 0);
	REQUIRE(fp_set(&p, "channel_mbps", "100000") == 0);
	CHECK_EQ_U64(re_asic_stream_ns(&p, 1000, 100, 1024),
		     (1000 * 22500000ull + 100 * 60000000ull) / 256 / 1000);
}

static void stream(void)
{
	struct fp_params p;
	struct re_est e, one;
	struct re_est_out a, b, o;
	struct re_stream_out s, s2;
	uint64_t occ = 0;
	const uint64_t n[ISP_RES_NCLASSES] = { 256, 128, 8, 1, 1, 1 };
	unsigned i;

	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	ivf(&e);
	REQUIRE(re_estimate_stream(&p, &e, 16, &s, &o) == 0);
	one = e;
	one.flags |= ISP_REIS_SF_NO_RERANK;
	REQUIRE(re_estimate(&p, &one, &a) == 0);
	CHECK_EQ_U64(s.search_ns, a.model_ns);
	one = e;
	one.nq = 16;
	REQUIRE(re_estimate(&p, &one, &b) == 0);
	CHECK_EQ_U64(o.model_ns, b.model_ns);
	for (i = 0; i < ISP_RES_NCLASSES; i++)
		if (b.busy_ns[i] / n[i] / 16 > occ)
			occ = b.busy_ns[i] / n[i] / 16;
	CHECK_EQ_U64(s.occ_ns, occ);
	CHECK_EQ_U64(s.ns, s.search_ns > s.occ_ns ? s.search_ns : s.occ_ns);
	CHECK_EQ_U64(s.pages_read, b.pages_read / 16);
	CHECK_EQ_U64(s.reranked, b.reranked / 16);
	CHECK(s.reranked > 0);
	/* The rerank runs under the next query: its latency is not stage A. */
	CHECK(s.ns < b.model_ns / 16);

	/* A ten-times slower TLC read leaves stage A as it is. */
	REQUIRE(fp_set(&p, "t_read_tlc", "600us") == 0);
	REQUIRE(re_estimate_stream(&p, &e, 16, &s2, NULL) == 0);
	CHECK_EQ_U64(s2.search_ns, s.search_ns);
	CHECK(s2.occ_ns >= s.occ_ns);

	/* A 1 MHz core binds: its rerank MACs alone are 102 ms a query. */
	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	REQUIRE(fp_set(&p, "core_mhz", "1") == 0);
	REQUIRE(re_estimate_stream(&p, &e, 4, &s, &o) == 0);
	CHECK_EQ_U64(s.bind, ISP_RES_CORE);
	CHECK_EQ_U64(s.occ_ns, o.busy_ns[ISP_RES_CORE] / 4);
	CHECK(s.occ_ns >= 100 * 1024 * 1000ull);
	CHECK_EQ_U64(s.ns, s.occ_ns);

	CHECK(re_estimate_stream(&p, &e, 0, &s, NULL) == -EINVAL);
	CHECK(re_estimate_stream(&p, &e, ISP_REIS_MAX_NQ + 1, &s, NULL) == -EINVAL);
	CHECK(re_estimate_stream(NULL, &e, 1, &s, NULL) == -EINVAL);
	e.k = 0;
	CHECK(re_estimate_stream(&p, &e, 1, &s, NULL) == -EINVAL);
}

int main(void)
{
	asic();
	stream();
	return t_result();
}
