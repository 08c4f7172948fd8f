/* SPDX-License-Identifier: MIT */
/*
 * test_reis_stream - the stream rule (docs/timing-model.md §6.2) against
 * hand-computed cases and its definition:
 *   - calendars: a query's IBC and page on one plane of a 2-channel,
 *     1-plane-per-die drive take E; a second query on the other die's
 *     plane ends at E as well (disjoint planes overlap fully), on the same
 *     plane at 2E (the latch holds one query: they serialise);
 *   - MPIBC: one broadcast when the die's planes are free together (one
 *     copy on the channel), a later second broadcast for a plane still
 *     busy, which does not hold its free sibling back;
 *   - re_estimate_stream(): the time is a depth-query command's latency /
 *     depth, the one-query latency a one-query command's, the occupancy
 *     the busiest class over its resources and the depth; a 16-query
 *     command is never slower than 16 one-query commands (both presets,
 *     IVF and brute force, with and without PL) and a 2-query IVF command
 *     with rerank is faster than two one-query ones (the second search
 *     does not wait for the first's rerank); refused arguments;
 *   - MPIBC on the critical path: one page on each of reis-ssd2's planes;
 *     without MPIBC a die's last plane starts 3 IBCs later;
 *   - REIS-ASIC on the calendars: 3 pages on 1 plane read plainly and sent
 *     whole, ctrl + DMA + DRAM + 3 (tCA + tR + tRR + xfer(page + spare) +
 *     its TTL write) + the result write, no compute;
 *   - the rerank's row width apart from the codes' (re_est @rerank_dim).
 */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "flash_preset.h"
#include "flash_timing.h"
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

static struct ft *open_with(const char *ov, struct fp_params *p)
{
	struct ft *ft;

	REQUIRE(fp_preset("reis-ssd1", p) == 0);
	REQUIRE(fp_apply(p, ov, NULL, 0) == 0);
	REQUIRE(ft_open(p, &ft) == 0);
	return ft;
}

/* One query on the planes of die @die: its IBC, then one XOR page read. */
static uint64_t query(struct ft *ft, struct ft_cmd *c, uint32_t die, uint32_t plane)
{
	struct ft_page_op op = { .mode = ISP_CELL_SLC, .flags = FT_OP_XOR | FT_OP_CACHE };

	ft_ibc(ft, c, die, 128, 16384, 1, 0);
	return ft_page_read(ft, c, plane, &op, 0);
}

static void planes(void)
{
	struct fp_params p;
	struct ft *ft = open_with("channels=2;dies_per_channel=1;planes_per_die=1", &p);
	struct ft_cmd c;
	uint64_t e1, e2;

	ft_cmd_begin(ft, &c, 0, NULL);
	e1 = query(ft, &c, 0, 0);
	e2 = query(ft, &c, 1, 1);	/* the other channel's die */
	CHECK(e1 > p.t_read[ISP_CELL_SLC]);
	CHECK_EQ_U64(e2, e1);
	e2 = query(ft, &c, 0, 0);	/* the same plane: after the first */
	CHECK_EQ_U64(e2, 2 * e1);
	CHECK(ft_cmd_end(ft, &c, NULL) == 0);
	ft_close(ft);
}

static void mpibc(void)
{
	struct fp_params p;
	struct ft *ft = open_with("channels=1;dies_per_channel=1;planes_per_die=2", &p);
	struct ft_page_op op = { .mode = ISP_CELL_SLC };
	uint64_t ibc, busy, e0, e1;
	struct ft_cmd c;

	ibc = ft_t_ca(&p) + ft_t_xfer(128, p.channel_mbps) + ft_t_xfer(16384 - 128, p.channel_mbps);
	ft_cmd_begin(ft, &c, 0, NULL);
	CHECK_EQ_U64(ft_ibc(ft, &c, 0, 128, 16384, 1, 0), ibc);	/* both planes at once */
	CHECK_EQ_U64(c.channel_bytes, 128);
	CHECK(ft_cmd_end(ft, &c, NULL) == 0);
	ft_close(ft);

	/* Plane 1 reads a page first; plane 0 is free and gets its copy at once. */
	ft = open_with("channels=1;dies_per_channel=1;planes_per_die=2", &p);
	ft_cmd_begin(ft, &c, 0, NULL);
	busy = ft_page_read(ft, &c, 1, &op, 0);
	CHECK_EQ_U64(busy, ft_t_ca(&p) + p.t_read[ISP_CELL_SLC]);
	CHECK_EQ_U64(ft_ibc(ft, &c, 0, 128, 16384, 1, 0), busy + ibc);
	CHECK_EQ_U64(c.channel_bytes, 256);	/* two broadcasts */
	/* Each plane's next page senses once its own copy is in. */
	op.flags = FT_OP_XOR | FT_OP_CACHE;
	e0 = ft_page_read(ft, &c, 0, &op, 0);
	e1 = ft_page_read(ft, &c, 1, &op, 0);
	CHECK_EQ_U64(e0, ibc + ft_t_ca(&p) + p.t_read[ISP_CELL_SLC] + p.t_xor);
	CHECK_EQ_U64(e1 - e0, busy);
	CHECK(ft_cmd_end(ft, &c, NULL) == 0);
	ft_close(ft);
}

static void stream(void)
{
	struct fp_params p;
	struct re_est e, one;
	struct re_est_out a, b, o;
	struct re_stream_out s;
	uint64_t occ = 0;
	const uint64_t n[ISP_RES_NCLASSES] = { 256, 128, 8, 1, 1, 1 };
	unsigned i;

	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	ivf(&e);
	REQUIRE(re_estimate_stream(&p, &e, 16, &s, &o) == 0);
	one = e;
	REQUIRE(re_estimate(&p, &one, &a) == 0);
	CHECK_EQ_U64(s.one_ns, a.model_ns);
	one.nq = 16;
	REQUIRE(re_estimate(&p, &one, &b) == 0);
	CHECK_EQ_U64(o.model_ns, b.model_ns);
	CHECK_EQ_U64(s.ns, (b.model_ns + 15) / 16);
	for (i = 0; i < ISP_RES_NCLASSES; i++)
		if (b.busy_ns[i] / n[i] / 16 > occ)
			occ = b.busy_ns[i] / n[i] / 16;
	CHECK_EQ_U64(s.occ_ns, occ);
	CHECK(s.ns >= s.occ_ns);
	CHECK(s.ns < s.one_ns);	/* queries overlap */
	CHECK_EQ_U64(s.pages_read, b.pages_read / 16);
	CHECK_EQ_U64(s.reranked, b.reranked / 16);
	CHECK(s.reranked > 0);

	/* The second search does not wait for the first's rerank. */
	one = e;
	one.nq = 2;
	REQUIRE(re_estimate(&p, &one, &b) == 0);
	CHECK(b.model_ns < 2 * a.model_ns - a.model_ns / 4);

	/* A 1 MHz core binds: its rerank MACs alone are 102 ms a query. */
	REQUIRE(fp_set(&p, "core_mhz", "1") == 0);
	REQUIRE(re_estimate_stream(&p, &e, 4, &s, &o) == 0);
	CHECK_EQ_U64(s.bind, ISP_RES_CORE);
	CHECK_EQ_U64(s.occ_ns, o.busy_ns[ISP_RES_CORE] / 4);
	CHECK(s.occ_ns >= 100 * 1024 * 1000ull);
	CHECK(s.ns >= s.occ_ns && s.ns < s.occ_ns + s.occ_ns / 10);

	CHECK(re_estimate_stream(&p, &e, 0, &s, NULL) == -EINVAL);
	CHECK(re_estimate_stream(&p, &e, ISP_REIS_MAX_NQ + 1, &s, NULL) == -EINVAL);
	CHECK(re_estimate_stream(NULL, &e, 1, &s, NULL) == -EINVAL);
	e.asic = 2;
	CHECK(re_estimate_stream(&p, &e, 1, &s, NULL) == -EINVAL);
	e.asic = 0;
	e.k = 0;
	CHECK(re_estimate_stream(&p, &e, 1, &s, NULL) == -EINVAL);
}

/* A 16-query command never costs more than 16 one-query commands. */
static void never_slower(void)
{
	static const char *const pre[2] = { "reis-ssd1", "reis-ssd2" };
	static const uint32_t flags[3] = { 0, ISP_REIS_SF_NO_PL,
					   ISP_REIS_SF_NO_DF | ISP_REIS_SF_NO_PL |
					   ISP_REIS_SF_NO_MPIBC };
	static const uint32_t nprobe[3] = { 16, 64, 256 };
	struct fp_params p;
	struct re_est e;
	struct re_stream_out s;
	unsigned i, j, k;

	for (i = 0; i < 2; i++) {
		REQUIRE(fp_preset(pre[i], &p) == 0);
		for (j = 0; j < 3; j++)
			for (k = 0; k < 4; k++) {
				ivf(&e);
				e.flags = flags[j];
				if (k < 3) {
					e.nprobe = nprobe[k];
				} else {	/* brute force over 200 k codes */
					e.kind = ISP_REIS_BF;
					e.n = 200000;
				}
				REQUIRE(re_estimate_stream(&p, &e, 16, &s, NULL) == 0);
				CHECK(s.ns <= s.one_ns);
				if (s.ns > s.one_ns)
					fprintf(stderr, "%s flags %x case %u: %llu > %llu ns\n",
						pre[i], flags[j], k, (unsigned long long)s.ns,
						(unsigned long long)s.one_ns);
			}
	}
}

/*
 * MPIBC on the critical path: reis-ssd2's 512 planes each read one page,
 * so without MPIBC the die's fourth plane starts three IBCs later.
 */
static void mpibc_latency(void)
{
	struct fp_params p;
	struct re_est e;
	struct re_est_out mp, nomp;
	uint64_t ibc;

	REQUIRE(fp_preset("reis-ssd2", &p) == 0);
	ibc = ft_t_ca(&p) + ft_t_xfer(p.page_bytes, p.channel_mbps);
	memset(&e, 0, sizeof(e));
	e.kind = ISP_REIS_BF;
	e.dim = 1024;
	e.n = 512ull * (p.page_bytes / 128);
	e.nq = 1;
	e.k = 10;
	e.df_threshold = 400;	/* nothing passes: the pages alone count */
	e.pass = 0;
	e.flags = ISP_REIS_SF_NO_RERANK;
	REQUIRE(re_estimate(&p, &e, &mp) == 0);
	CHECK_EQ_U64(mp.pages_read, 512);
	e.flags |= ISP_REIS_SF_NO_MPIBC;
	REQUIRE(re_estimate(&p, &e, &nomp) == 0);
	CHECK(nomp.model_ns * 1000 > mp.model_ns * 1000 + 5 * ibc / 2);
	CHECK(nomp.model_ns * 1000 < mp.model_ns * 1000 + 7 * ibc / 2);
}

static void asic(void)
{
	struct fp_params p;
	struct re_est e;
	struct re_est_out o;
	uint64_t len, t, page, w, res;
	uint32_t epb;

	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	REQUIRE(fp_apply(&p, "channels=1;dies_per_channel=1;planes_per_die=1", NULL, 0) == 0);
	memset(&e, 0, sizeof(e));
	e.kind = ISP_REIS_BF;
	e.dim = 1024;
	e.n = 1;
	e.nq = 1;
	e.k = 1;
	e.flags = ISP_REIS_SF_NO_RERANK | ISP_REIS_SF_NO_PL;
	e.asic = 1;
	REQUIRE(re_estimate(&p, &e, &o) == 0);
	epb = o.epb;
	e.n = 3ull * epb;	/* three full pages */
	REQUIRE(re_estimate(&p, &e, &o) == 0);
	CHECK_EQ_U64(o.pages_read, 3);
	CHECK_EQ_U64(o.channel_bytes, 3ull * (p.page_bytes + p.oob_bytes));
	CHECK_EQ_U64(o.busy_ns[ISP_RES_CORE], p.ctrl_cmd / 1000);	/* no kernels */
	len = sizeof(struct isp_wire_reis_search) + 128;
	t = p.ctrl_cmd + ft_t_xfer(len, p.link_mbps) + ft_t_xfer(len, p.dram_mbps);
	page = ft_t_ca(&p) + p.t_read[ISP_CELL_SLC] + p.t_rr +
	       ft_t_xfer((uint64_t)p.page_bytes + p.oob_bytes, p.channel_mbps);
	/* Every entry passes (no DF): its TTL-E entry (distance, code, two
	 * addresses) goes to DRAM after its page, and without PL the next
	 * round (one page on one plane) waits for that write. */
	w = ft_t_xfer((uint64_t)epb * (RE_DIST_BYTES + 128 + 2 * RE_ADDR_BYTES), p.dram_mbps);
	res = ft_t_xfer(sizeof(struct isp_wire_reis_result) + sizeof(struct isp_wire_reis_hit),
			p.dram_mbps);
	CHECK_EQ_U64(o.model_ns, (t + 3 * (page + w) + res + 999) / 1000);
}

/*
 * The rerank's row width apart from the codes' (@rerank_dim): 4096-bit
 * codes (ICE's 4-bit values of 1024-dimension vectors, REIS 6.4) scan the
 * same pages either way; reranked on 1024-byte rows their finish costs
 * less, by the rerank MACs of 100 candidates x 3072 dimensions on the core,
 * and the search by the query's smaller INT8 copy.
 * A @rerank_dim equal to @dim is the default; wider or unaligned ones are
 * refused.
 */
static void rerank_width(void)
{
	struct fp_params p;
	struct re_est e;
	struct re_est_out a, b, s0, s1;

	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	ivf(&e);
	e.dim = 4096;
	REQUIRE(re_estimate(&p, &e, &a) == 0);
	e.rerank_dim = 1024;
	REQUIRE(re_estimate(&p, &e, &b) == 0);
	CHECK_EQ_U64(b.pages_read, a.pages_read);
	CHECK_EQ_U64(b.reranked, a.reranked);
	CHECK_EQ_U64(b.reranked, 100);
	CHECK(b.model_ns < a.model_ns);
	CHECK_EQ_U64(a.busy_ns[ISP_RES_CORE] - b.busy_ns[ISP_RES_CORE],
		     (ft_cycles_rerank(&p, 100, 4096) - ft_cycles_rerank(&p, 100, 1024)) *
			     1000 / p.core_mhz);
	CHECK(b.channel_bytes < a.channel_bytes);
	/* The search alone reads no INT8 rows: it differs by the query's
	 * INT8 copy alone (3072 bytes fewer over the link and into DRAM). */
	e.no_finish = 1;
	e.rerank_dim = 0;
	REQUIRE(re_estimate(&p, &e, &s0) == 0);
	e.rerank_dim = 1024;
	REQUIRE(re_estimate(&p, &e, &s1) == 0);
	CHECK(s1.model_ns < s0.model_ns);
	CHECK(s0.model_ns - s1.model_ns <=
	      (ft_t_xfer(3072, p.link_mbps) + ft_t_xfer(3072, p.dram_mbps)) / 1000 + 1);
	CHECK_EQ_U64(s1.pages_read, s0.pages_read);
	/* rerank_dim = dim is the default, to the picosecond. */
	ivf(&e);
	REQUIRE(re_estimate(&p, &e, &a) == 0);
	e.rerank_dim = 1024;
	REQUIRE(re_estimate(&p, &e, &b) == 0);
	CHECK_EQ_U64(b.model_ns, a.model_ns);
	CHECK_EQ_U64(b.channel_bytes, a.channel_bytes);
	CHECK_EQ_U64(b.energy_pj, a.energy_pj);
	e.rerank_dim = 2048;
	CHECK(re_estimate(&p, &e, &b) == -EINVAL);
	e.rerank_dim = 1000;
	CHECK(re_estimate(&p, &e, &b) == -EINVAL);
}

int main(void)
{
	planes();
	mpibc();
	stream();
	never_slower();
	mpibc_latency();
	asic();
	rerank_width();
	return t_result();
}
