/* SPDX-License-Identifier: MIT */
/*
 * test_reis_energy - a query's energy in a stream (REIS 5's QPS/W;
 * docs/timing-model.md A34, bench_fidelity's Fig. 8 rows):
 *   - re_stream_out's @energy_pj is the depth-query command's dynamic
 *     energy over the depth;
 *   - with every energy zero but 1 nJ per ESP-SLC page read, it is the
 *     command's binary and centroid pages x 1 nJ / depth, by hand;
 *   - re_query_energy_pj(): the dynamic energy + static mW x ns (6.6 W over
 *     1 us is 6.6 uJ), saturating; with static power alone the drives'
 *     energy-efficiency ratio is their time ratio (the paper's "gains
 *     stem from the higher throughput").
 */
#include <stdint.h>
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
	e->n = 200000;
	e->nlist = 1024;
	e->db_flags = ISP_REIS_DBF_INT8;
	e->doc_mode = ISP_REIS_DOC_SUBPAGE;
	e->nq = 1;
	e->k = 10;
	e->df_threshold = 400;
	e->pass = 0.05;
	e->nprobe = 16;
	e->serial = 1;
}

static void dynamic(void)
{
	struct fp_params p;
	struct re_est e;
	struct re_est_out o, b;
	struct re_stream_out s;

	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	ivf(&e);
	REQUIRE(re_estimate_stream(&p, &e, 16, &s, &o) == 0);
	e.nq = 16;
	REQUIRE(re_estimate(&p, &e, &b) == 0);
	CHECK_EQ_U64(o.energy_pj, b.energy_pj);
	CHECK_EQ_U64(s.energy_pj, b.energy_pj / 16);
	/* the published read energies dominate: 29.56 uJ a page at least */
	CHECK(s.energy_pj >= s.pages_read * 29560000ull);

	/* Only the ESP-SLC page reads cost: 1 nJ each. */
	REQUIRE(fp_apply(&p, "e_read_slc=1000;e_read_tlc=0;e_xor=0;e_fbc=0;e_cmp=0;"
			 "e_channel_byte=0;e_core_cycle=0;e_dram_byte=0;e_link_byte=0",
			 NULL, 0) == 0);
	ivf(&e);
	REQUIRE(re_estimate_stream(&p, &e, 16, &s, &o) == 0);
	CHECK(o.pages_read > 16);
	CHECK_EQ_U64(o.energy_pj, o.pages_read * 1000);
	CHECK_EQ_U64(s.energy_pj, o.pages_read * 1000 / 16);
}

static void with_static(void)
{
	struct fp_params p1, p2;
	struct re_est e;
	struct re_stream_out s1, s2;
	uint64_t e1, e2;

	CHECK_EQ_U64(re_query_energy_pj(0, 1000, 6600), 6600000);	/* 6.6 uJ */
	CHECK_EQ_U64(re_query_energy_pj(123, 1000, 6600), 6600123);
	CHECK_EQ_U64(re_query_energy_pj(123, 1000, 0), 123);
	CHECK_EQ_U64(re_query_energy_pj(5, UINT64_MAX / 2, 3), UINT64_MAX);
	CHECK_EQ_U64(re_query_energy_pj(UINT64_MAX - 1, 1, 2), UINT64_MAX);

	/* No dynamic energy: QPS/W of SSD2 over SSD1 = their time ratio. */
	REQUIRE(fp_preset("reis-ssd1", &p1) == 0);
	REQUIRE(fp_preset("reis-ssd2", &p2) == 0);
	ivf(&e);
	REQUIRE(re_estimate_stream(&p1, &e, 16, &s1, NULL) == 0);
	REQUIRE(re_estimate_stream(&p2, &e, 16, &s2, NULL) == 0);
	CHECK(s2.ns < s1.ns);
	e1 = re_query_energy_pj(0, s1.ns, 6600);
	e2 = re_query_energy_pj(0, s2.ns, 6600);
	CHECK_EQ_U64(e1 * s2.ns, e2 * s1.ns);
	/* With the dynamic energy the same work costs about the same on both
	 * drives, so SSD2's efficiency gain is below its speedup. */
	e1 = re_query_energy_pj(s1.energy_pj, s1.ns, 6600);
	e2 = re_query_energy_pj(s2.energy_pj, s2.ns, 6600);
	CHECK((double)e1 / (double)e2 < (double)s1.ns / (double)s2.ns);
}

int main(void)
{
	dynamic();
	with_static();
	return t_result();
}
