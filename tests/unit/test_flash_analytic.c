/* SPDX-License-Identifier: MIT */
/*
 * test_flash_analytic.c - analytic mode (docs/timing-model.md §4): a batch of identical page
 * operations, and a row of different ones (ft_page_read_row()), give
 * exactly what the per-page path gives (times, energy, busy time,
 * counters, trace), and a paper-scale estimate (41.5 M 1024-bit
 * embeddings on reis-ssd1 and reis-ssd2) takes well under a second.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "flash_geom.h"
#include "flash_timing.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static char *trace_json(struct ft *ft, struct ft_trace *tr)
{
	size_t len = 0;
	char *buf;

	ft_trace_write_mem(ft, tr, NULL, 0, &len);
	buf = malloc(len + 1);
	REQUIRE(buf && ft_trace_write_mem(ft, tr, buf, len + 1, &len) == 0);
	return buf;
}

/* Warm both engines up identically so the batch starts from a busy state. */
static void warm(struct ft *ft, uint64_t t)
{
	struct ft_page_op op = { .mode = ISP_CELL_TLC, .n_dout = 1, .dout_bytes = 4096 };
	struct ft_cmd c;
	uint32_t i;

	ft_cmd_begin(ft, &c, t, NULL);
	for (i = 0; i < 40; i++)
		ft_page_read(ft, &c, (i * 37) % ft_params(ft)->channels, &op, 0);
	ft_core(ft, &c, FT_CORE_ISP, 5000, "warm", 0);
	ft_dram(ft, &c, 10000, 0);
	ft_cmd_end(ft, &c, NULL);
}

/* Two engines' commands, statistics and traces are the same. */
static void same_cmds(struct ft *a, struct ft *z, const struct ft_cmd *ca, const struct ft_cmd *cz,
		      struct ft_trace *ta, struct ft_trace *tz)
{
	struct ft_stats sa, sz;
	char *ja, *jz;
	int k;

	CHECK_EQ_U64(ca->end, cz->end);
	CHECK_EQ_U64(ca->energy_pj, cz->energy_pj);
	for (k = 0; k < ISP_RES_NCLASSES; k++)
		CHECK_EQ_U64(ca->busy_ps[k], cz->busy_ps[k]);
	for (k = 0; k < 5; k++)
		CHECK_EQ_U64(ca->page_reads[k], cz->page_reads[k]);
	CHECK_EQ_U64(ca->channel_bytes, cz->channel_bytes);
	CHECK_EQ_U64(ca->dram_bytes, cz->dram_bytes);
	CHECK_EQ_U64(ca->core_cycles, cz->core_cycles);
	ft_get_stats(a, &sa, 0);
	ft_get_stats(z, &sz, 0);
	CHECK(memcmp(&sa, &sz, sizeof(sa)) == 0);
	ja = trace_json(a, ta);
	jz = trace_json(z, tz);
	CHECK(strcmp(ja, jz) == 0);
	free(ja);
	free(jz);
}

static void equiv(const char *preset, const struct ft_batch *b, uint64_t ready_off)
{
	struct fp_params p;
	struct ft *a, *z;
	struct ft_trace *ta, *tz;
	struct ft_cmd ca, cz;
	uint64_t ea, ez = 0, i, e;

	REQUIRE(fp_preset(preset, &p) == 0);
	REQUIRE(ft_open(&p, &a) == 0 && ft_open(&p, &z) == 0);
	REQUIRE(ft_trace_new(1u << 20, &ta) == 0 && ft_trace_new(1u << 20, &tz) == 0);
	warm(a, 0);
	warm(z, 0);

	ft_cmd_begin(a, &ca, 20, ta);
	ea = ft_batch_read(a, &ca, b, ca.start + ready_off);
	CHECK(ft_cmd_end(a, &ca, NULL) == 0);

	ft_cmd_begin(z, &cz, 20, tz);
	for (i = b->first; i < b->first + b->count; i++) {
		e = ft_page_read(z, &cz, fg_pfpa_plane_of(p.channels, p.dies_per_channel,
							  p.planes_per_die, i),
				 &b->op, cz.start + ready_off);
		if (b->dram_bytes)
			e = ft_dram(z, &cz, b->dram_bytes, e);
		if (b->core_cycles)
			e = ft_core(z, &cz, b->core, b->core_cycles, b->core_label, e);
		if (e > ez)
			ez = e;
	}
	CHECK(ft_cmd_end(z, &cz, NULL) == 0);

	CHECK_EQ_U64(ea, ez);
	CHECK_EQ_U64(ca.page_reads[b->op.mode], b->count);
	same_cmds(a, z, &ca, &cz, ta, tz);
	ft_trace_free(ta);
	ft_trace_free(tz);
	ft_close(a);
	ft_close(z);
}

/*
 * A row of page reads (ft_page_read_row()) equals ft_page_read() then
 * ft_dram() page by page: random planes, cell modes, flags (cache, XOR,
 * bursts, the multi-plane rule), data-out counts and DRAM writes (some 0),
 * after a busy start; times, energy, busy, counters, stats and trace. A
 * bad page in the row reserves nothing and sets the error.
 */
static void row_equiv(const char *preset, uint32_t seed, uint32_t n)
{
	static const uint32_t fl[] = { 0, FT_OP_CACHE, FT_OP_XOR | FT_OP_CACHE, FT_OP_XOR,
				       FT_OP_BURSTS, FT_OP_MP, FT_OP_MP | FT_OP_CACHE };
	struct fp_params p;
	struct ft *a, *z;
	struct ft_trace *ta, *tz;
	struct ft_cmd ca, cz;
	uint32_t *pl = malloc(n * sizeof(*pl)), i, np;
	struct ft_page_op *op = calloc(n, sizeof(*op));
	uint64_t *dr = malloc(n * sizeof(*dr)), *ends = malloc(n * sizeof(*ends)), ea, ez = 0, e;

	REQUIRE(pl && op && dr && ends);
	REQUIRE(fp_preset(preset, &p) == 0);
	np = p.channels * p.dies_per_channel * p.planes_per_die;
	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		pl[i] = (seed >> 8) % np;
		op[i].mode = ISP_CELL_SLC + (seed >> 4) % 3;
		op[i].flags = fl[(seed >> 12) % (sizeof(fl) / sizeof(fl[0]))];
		op[i].n_fbc = (seed >> 16) % 200;
		op[i].n_cmp = op[i].n_fbc * ((seed >> 20) % 2);
		op[i].n_dout = (seed >> 22) % 5;
		op[i].dout_bytes = op[i].n_dout ? 16 + (seed >> 3) % 3000 : 0;
		op[i].page = (seed >> 9) % 7;
		dr[i] = (seed >> 25) % 3 ? op[i].n_dout * op[i].dout_bytes : 0;
	}
	REQUIRE(ft_open(&p, &a) == 0 && ft_open(&p, &z) == 0);
	REQUIRE(ft_trace_new(1u << 20, &ta) == 0 && ft_trace_new(1u << 20, &tz) == 0);
	warm(a, 0);
	warm(z, 0);
	ft_cmd_begin(a, &ca, 20, ta);
	ea = ft_page_read_row(a, &ca, n, pl, op, dr, ca.start + 777, ends);
	CHECK(ft_cmd_end(a, &ca, NULL) == 0);
	ft_cmd_begin(z, &cz, 20, tz);
	for (i = 0; i < n; i++) {
		e = ft_page_read(z, &cz, pl[i], &op[i], cz.start + 777);
		if (dr[i])
			e = ft_dram(z, &cz, dr[i], e);
		CHECK_EQ_U64(ends[i], e);
		ez = e > ez ? e : ez;
	}
	CHECK(ft_cmd_end(z, &cz, NULL) == 0);
	CHECK_EQ_U64(ea, ez > cz.start + 777 ? ez : cz.start + 777);
	same_cmds(a, z, &ca, &cz, ta, tz);
	/* A plane out of range anywhere in the row: nothing is reserved. */
	ft_cmd_begin(a, &ca, 30, NULL);
	pl[n / 2] = np;
	e = ft_page_read_row(a, &ca, n, pl, op, dr, ca.start + 5, NULL);
	CHECK_EQ_U64(e, ca.start + 5);
	CHECK(ca.err == -EINVAL);
	CHECK_EQ_U64(ca.energy_pj, 0);
	ft_cmd_end(a, &ca, NULL);
	ft_trace_free(ta);
	ft_trace_free(tz);
	ft_close(a);
	ft_close(z);
	free(pl);
	free(op);
	free(dr);
	free(ends);
}

/* Brute-force REIS search over @n 1024-bit embeddings (REIS 4.3), analytic. */
static double paper_scale(const char *preset, uint64_t n, uint64_t *model_ns)
{
	const uint32_t emb = 128, entry = 128 + 2 + 4 + 4;	/* EMB DIST RADR DADR */
	struct fp_params p;
	struct ft_batch b;
	struct ft_cmd c;
	struct ft *ft;
	uint64_t pages, pass, t;
	double t0;

	REQUIRE(fp_preset(preset, &p) == 0);
	t0 = now_s();
	REQUIRE(ft_open(&p, &ft) == 0);
	pages = (n + p.page_bytes / emb - 1) / (p.page_bytes / emb);
	pass = n / 100;		/* 1 % pass the distance filter (REIS 4.3.3) */
	memset(&b, 0, sizeof(b));
	b.first = 0;
	b.count = pages;
	b.op.mode = ISP_CELL_SLC;
	b.op.flags = FT_OP_XOR | FT_OP_CACHE;
	b.op.n_fbc = p.page_bytes / emb;
	b.op.n_cmp = p.page_bytes / emb;
	b.op.n_dout = 1;
	b.op.dout_bytes = (uint32_t)((pass * entry + pages - 1) / pages);
	b.dram_bytes = b.op.dout_bytes;
	b.core = FT_CORE_ISP;
	b.core_cycles = ft_cycles_select(&p, (pass + pages - 1) / pages);
	b.core_label = "quickselect";

	ft_cmd_begin(ft, &c, 0, NULL);
	t = ft_ctrl(ft, &c, 0);
	t = ft_dma(ft, &c, FT_H2C, emb, t);			/* the query */
	t = ft_ibc_all(ft, &c, 128, p.page_bytes, 1, t);		/* MPIBC */
	t = ft_batch_read(ft, &c, &b, t);
	t = ft_core(ft, &c, FT_CORE_ISP, ft_cycles_rerank(&p, 100, 1024), "rerank", t);
	t = ft_core(ft, &c, FT_CORE_ISP, ft_cycles_sort(&p, 100), "sort", t);
	ft_dma(ft, &c, FT_C2H, 10 * 4096, t);			/* top-10 chunks */
	CHECK(ft_cmd_end(ft, &c, model_ns) == 0);
	CHECK_EQ_U64(c.page_reads[ISP_CELL_SLC], pages);
	ft_close(ft);
	return now_s() - t0;
}

int main(void)
{
	struct ft_batch b;
	uint64_t ns1, ns2;
	double s1, s2;

	memset(&b, 0, sizeof(b));
	b.op = (struct ft_page_op){ .mode = ISP_CELL_SLC, .flags = FT_OP_XOR,
				    .n_fbc = 128, .n_cmp = 128, .n_dout = 1, .dout_bytes = 300 };
	b.count = 1000;
	equiv("reis-ssd1", &b, 0);
	row_equiv("reis-ssd1", 3, 700);
	row_equiv("reis-ssd2", 4, 3000);
	row_equiv("recflash-slc", 5, 64);
	b.first = 77;		/* mid-stripe start */
	b.count = 613;
	b.op.flags |= FT_OP_CACHE;
	equiv("reis-ssd1", &b, 5000000);
	b.dram_bytes = 300;
	b.core = FT_CORE_ISP;
	b.core_cycles = 2000;
	b.core_label = "select";
	equiv("reis-ssd2", &b, 0);
	b.op.n_dout = 0;	/* everything filtered in the die */
	b.core = 2;
	equiv("reis-ssd2", &b, 123);
	b.op = (struct ft_page_op){ .mode = ISP_CELL_TLC, .n_dout = 3, .dout_bytes = 256 };
	b.first = 5;
	b.count = 100;
	b.dram_bytes = 0;
	b.core = FT_CORE_FTL;
	b.core_cycles = 100;
	equiv("recflash-tlc", &b, 0);

	/* Paper scale: 41.5 M 1024-bit embeddings, 128 per 16 KiB page. */
	s1 = paper_scale("reis-ssd1", 41500000, &ns1);
	s2 = paper_scale("reis-ssd2", 41500000, &ns2);
	printf("paper-scale brute force: reis-ssd1 %.3f ms modeled in %.1f ms CPU; "
	       "reis-ssd2 %.3f ms modeled in %.1f ms CPU\n",
	       ns1 / 1e6, s1 * 1e3, ns2 / 1e6, s2 * 1e3);
	CHECK(s1 < 1.0 && s2 < 1.0);
	CHECK(ns2 < ns1);	/* more channels, planes and bandwidth */
	return t_result();
}
