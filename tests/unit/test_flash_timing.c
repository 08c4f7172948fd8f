/* SPDX-License-Identifier: MIT */
/*
 * test_flash_timing.c - the timing engine's parallelism and contention:
 * reads spread over planes vs one plane, cache-read overlap, MPIBC, channel
 * contention, queueing between commands, cores, DRAM and link, energy and
 * statistics, bad arguments, concurrent callers, huge geometries.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "flash_timing.h"

#define US(x) ((uint64_t)((x) * 1000000.0 + 0.5))	/* us -> ps */

static struct ft *open_with(const char *preset, const char *ov, struct fp_params *p)
{
	char err[256];
	struct ft *ft;

	REQUIRE(fp_preset(preset, p) == 0);
	if (ov && fp_apply(p, ov, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		REQUIRE(0);
	}
	REQUIRE(ft_open(p, &ft) == 0);
	return ft;
}

/* N reads of one page each, page i on plane i % nplanes, all ready at 0. */
static uint64_t reads(struct ft *ft, uint64_t at_ns, uint32_t n, uint32_t nplanes,
		      const struct ft_page_op *op)
{
	struct ft_cmd c;
	uint32_t i;

	ft_cmd_begin(ft, &c, at_ns, NULL);
	for (i = 0; i < n; i++)
		ft_page_read(ft, &c, i % nplanes, op, 0);
	CHECK(ft_cmd_end(ft, &c, NULL) == 0);
	return c.end - c.start;
}

static void test_parallel(void)
{
	struct fp_params p;
	struct ft *ft = open_with("recflash-slc",
				  "channels=1,dies_per_channel=1,planes_per_die=4", &p);
	struct ft_page_op op = { .mode = ISP_CELL_SLC, .n_dout = 1, .dout_bytes = 128 };
	uint64_t tca = ft_t_ca(&p), tr = p.t_read[1], tdo = ft_t_dout(&p, 128);
	uint64_t one, spread, n = 16, P = 4;

	one = reads(ft, 0, (uint32_t)n, 1, &op);
	CHECK_EQ_U64(one, n * (tca + tr + tdo));		/* one plane: N x */
	spread = reads(ft, 100000000, (uint32_t)n, (uint32_t)P, &op);
	CHECK(spread >= (n / P) * tr);
	CHECK(spread <= (n / P) * (tca + tr + tdo) + P * (tca + tdo));
	fprintf(stderr, "16 reads: 1 plane %.3f us, 4 planes %.3f us (ceil(N/P) tR = %.3f)\n",
		one / 1e6, spread / 1e6, (n / P) * tr / 1e6);
	ft_close(ft);
}

static void test_cache_read(void)
{
	struct fp_params p;
	struct ft *ft = open_with("recflash-slc", "channels=1,dies_per_channel=1", &p);
	struct ft_page_op op = { .mode = ISP_CELL_SLC, .n_dout = 1, .dout_bytes = 4096 };
	uint64_t tca = ft_t_ca(&p), tr = p.t_read[1], tdo = ft_t_dout(&p, 4096);
	uint64_t tcb = p.t_cache_busy, plain, cached, n = 8;

	plain = reads(ft, 0, (uint32_t)n, 1, &op);
	CHECK_EQ_U64(plain, n * (tca + tr + tdo));
	op.flags = FT_OP_CACHE;
	cached = reads(ft, 100000000, (uint32_t)n, 1, &op);
	/* Data-out bound: after the first tR, pages follow every tDO + tcb;
	 * each next tR runs under the previous data-out. */
	CHECK_EQ_U64(cached, tca + tr + tcb + n * tdo + (n - 1) * tcb);
	CHECK(cached < plain);
	/* Sense bound (short data-out): period tR + tcb, C/A hidden. */
	op.dout_bytes = 16;
	cached = reads(ft, 200000000, (uint32_t)n, 1, &op);
	CHECK_EQ_U64(cached, tca + n * (tr + tcb) + ft_t_dout(&p, 16));
	ft_close(ft);
}

/*
 * PL on REIS's XOR reads (REIS 4.3.4, A25): the XOR into the data latch
 * frees the array, so the next page senses while the latch counts,
 * compares and sends. reis-ssd1, one plane, 128 entries per page:
 * t_CA 115 ns, tR 22.5 us, XOR 30 ns, FBC 128 x 20 ns, CMP 128 x 5 ns.
 */
static void test_xor_cache_read(void)
{
	struct fp_params p;
	struct ft *ft = open_with("reis-ssd1", NULL, &p);
	struct ft_page_op op = { .mode = ISP_CELL_SLC, .flags = FT_OP_XOR | FT_OP_CACHE,
				 .n_fbc = 128, .n_cmp = 128 };
	uint64_t tca = 115000, tr = US(22.5), lat = 30000 + 128 * 20000 + 128 * 5000;
	uint64_t n = 8, t;

	CHECK_EQ_U64(ft_t_ca(&p), tca);
	CHECK_EQ_U64(p.t_xor + 128 * p.t_fbc + 128 * p.t_cmp, lat);
	/* Everything filtered: period tR + t_CA (the next C/A after sensing). */
	t = reads(ft, 0, (uint32_t)n, 1, &op);
	CHECK_EQ_U64(t, n * (tca + tr) + lat);
	/* Two passing 138-byte entries per page: 2 x (tRR + 138 B / 1.2 GB/s)
	 * = 270 ns of data-out, under the next sensing; only the last shows. */
	op.n_dout = 2;
	op.dout_bytes = 138;
	t = reads(ft, 100000000, (uint32_t)n, 1, &op);
	CHECK_EQ_U64(t, n * (tca + tr) + lat + 2 * 20000 + 230000);
	/* Without PL every page waits for its own latch work and data-out. */
	op.flags = FT_OP_XOR;
	t = reads(ft, 200000000, (uint32_t)n, 1, &op);
	CHECK_EQ_U64(t, n * (tca + tr + lat + 2 * 20000 + 230000));
	ft_close(ft);
}

/*
 * IBC (REIS Table 2, 4.3.2; A24): the channel carries one 128-byte query
 * per plane, the die fills the rest of the 16 KiB latch at tRC per byte.
 * reis-ssd2: t_CA = 115 ns, tRC = 0.5 ns/B (2000 MB/s), 4 planes per die.
 */
static void test_mpibc(void)
{
	struct fp_params p;
	struct ft *ft = open_with("reis-ssd2", NULL, &p);
	struct ft_cmd c;
	uint64_t plain, multi, all, xfer, dup;

	xfer = 115000 + 128 * 500;			/* C/A + one copy, ps */
	dup = (16384 - 128) * 500ull;			/* in-die fill */
	CHECK_EQ_U64(xfer, ft_t_ca(&p) + ft_t_xfer(128, p.channel_mbps));
	ft_cmd_begin(ft, &c, 0, NULL);
	ft_ibc(ft, &c, 5, 128, p.page_bytes, 0, 0);
	CHECK(ft_cmd_end(ft, &c, NULL) == 0);
	plain = c.end - c.start;
	CHECK_EQ_U64(plain, 4 * (xfer + dup));		/* the die I/O serves planes in turn */
	CHECK_EQ_U64(c.busy_ps[ISP_RES_CHANNEL], 4 * xfer);	/* the fill is off the channel */
	CHECK_EQ_U64(c.busy_ps[ISP_RES_DIE], 4 * (xfer + dup));
	CHECK_EQ_U64(c.channel_bytes, 4 * 128);
	ft_cmd_begin(ft, &c, 1000000, NULL);
	ft_ibc(ft, &c, 5, 128, p.page_bytes, 1, 0);
	CHECK(ft_cmd_end(ft, &c, NULL) == 0);
	multi = c.end - c.start;
	CHECK_EQ_U64(multi, xfer + dup);
	CHECK_EQ_U64(plain, p.planes_per_die * multi);	/* REIS 4.3.4 */
	CHECK_EQ_U64(c.busy_ps[ISP_RES_CHANNEL], xfer);
	CHECK_EQ_U64(c.busy_ps[ISP_RES_PLANE], 4 * (xfer + dup));
	/* A fill no larger than the copy is the copy alone. */
	ft_cmd_begin(ft, &c, 2000000, NULL);
	ft_ibc(ft, &c, 5, 128, 64, 1, 0);
	CHECK(ft_cmd_end(ft, &c, NULL) == 0);
	CHECK_EQ_U64(c.end - c.start, xfer);
	/*
	 * Whole drive: a copy is not queued on the channel (A28), so the 8
	 * dies of a channel take their 179 ns copies and fill in parallel and
	 * the drive ends with a die alone; the channel still counts 8 copies.
	 */
	ft_cmd_begin(ft, &c, 3000000, NULL);
	ft_ibc_all(ft, &c, 128, p.page_bytes, 1, 0);
	CHECK(ft_cmd_end(ft, &c, NULL) == 0);
	all = c.end - c.start;
	CHECK_EQ_U64(all, multi);
	CHECK_EQ_U64(c.busy_ps[ISP_RES_CHANNEL], (uint64_t)p.channels * p.dies_per_channel * xfer);
	CHECK_EQ_U64(c.channel_bytes, (uint64_t)p.channels * p.dies_per_channel * 128);
	ft_close(ft);
}

/*
 * A30 (REIS Fig. 6: IBC, then the page reads): with FT_IBC_DIE a read on
 * any plane of a die starts after the die's whole IBC. reis-ssd2, 4 planes:
 * without MPIBC the die serves them in turn, so plane 0's read waits for 4
 * fills (with ft_ibc_all() only for its own, 1); with MPIBC for 1 (4.3.4:
 * the IBC latency divided by the planes per die). Other dies are not held
 * by this die's IBC beyond their own. Bad flags are refused.
 */
static void test_ibc_die_hold(void)
{
	struct fp_params p;
	struct ft *ft;
	struct ft_page_op op = { .mode = ISP_CELL_SLC };
	struct ft_cmd c;
	uint64_t xfer, dup, rd, t;
	unsigned mode;

	for (mode = 0; mode < 3; mode++) {
		ft = open_with("reis-ssd2", NULL, &p);
		xfer = ft_t_ca(&p) + ft_t_xfer(128, p.channel_mbps);
		dup = ft_t_xfer(16384 - 128, p.channel_mbps);
		rd = ft_t_ca(&p) + p.t_read[ISP_CELL_SLC];
		ft_cmd_begin(ft, &c, 0, NULL);
		if (mode == 0)
			t = ft_ibc_all(ft, &c, 128, 16384, 0, 0);
		else
			t = ft_ibc_dies(ft, &c, 128, 16384, FT_IBC_DIE | (mode == 2 ? FT_IBC_MPIBC : 0),
					0);
		CHECK_EQ_U64(t, (mode == 2 ? 1 : 4) * (xfer + dup));
		/* plane 0 of die 0: its own copy (mode 0) or the die's last */
		CHECK_EQ_U64(ft_page_read(ft, &c, 0, &op, 0),
			     (mode == 0 || mode == 2 ? 1 : 4) * (xfer + dup) + rd);
		/* plane 3 of die 1: the fourth fill without MPIBC either way */
		CHECK_EQ_U64(ft_page_read(ft, &c, p.planes_per_die + 3, &op, 0),
			     (mode == 2 ? 1 : 4) * (xfer + dup) + rd);
		CHECK(ft_cmd_end(ft, &c, NULL) == 0);
		ft_close(ft);
	}
	ft = open_with("reis-ssd2", NULL, &p);
	ft_cmd_begin(ft, &c, 0, NULL);
	ft_ibc_dies(ft, &c, 128, 16384, 1u << 5, 0);
	CHECK(ft_cmd_end(ft, &c, NULL) != 0);	/* unknown flag */
	ft_close(ft);
}

/*
 * A28: an IBC copy neither waits for a data-out on its channel nor delays
 * one. Die 2 reads a page alone (r2); then die 1 of the same channel
 * takes its copy inside that read's data-out window, once before the
 * read is booked and once after: the read still ends at r2, and the copy
 * at its own start + transfer + fill.
 */
static void test_ibc_channel(void)
{
	struct fp_params p;
	struct ft *ft = open_with("reis-ssd2", NULL, &p);
	struct ft_page_op op = { .mode = ISP_CELL_SLC, .n_dout = 1, .dout_bytes = 16384 };
	struct ft_cmd c;
	uint64_t r2, t, xfer, dup;
	int order;

	xfer = ft_t_ca(&p) + ft_t_xfer(128, p.channel_mbps);
	dup = ft_t_xfer(16384 - 128, p.channel_mbps);
	ft_cmd_begin(ft, &c, 0, NULL);
	r2 = ft_page_read(ft, &c, 2 * p.planes_per_die, &op, 0);
	CHECK(ft_cmd_end(ft, &c, NULL) == 0);
	ft_close(ft);
	t = r2 - ft_t_xfer(16384, p.channel_mbps) / 2;	/* mid data-out */
	for (order = 0; order < 2; order++) {
		ft = open_with("reis-ssd2", NULL, &p);
		ft_cmd_begin(ft, &c, 0, NULL);
		if (order)
			CHECK_EQ_U64(ft_page_read(ft, &c, 2 * p.planes_per_die, &op, 0), r2);
		CHECK_EQ_U64(ft_ibc(ft, &c, 1, 128, 16384, 1, t), t + xfer + dup);
		if (!order)
			CHECK_EQ_U64(ft_page_read(ft, &c, 2 * p.planes_per_die, &op, 0), r2);
		CHECK(ft_cmd_end(ft, &c, NULL) == 0);
		CHECK_EQ_U64(c.channel_bytes, 16384 + 128);	/* the copy still counts */
		ft_close(ft);
	}
}

static void test_channel_contention(void)
{
	struct fp_params p;
	/* planes 0, 1: dies 0, 1 of channel 0; plane 2: channel 1. */
	struct ft *ft = open_with("recflash-slc",
				  "channels=2,dies_per_channel=2,planes_per_die=1", &p);
	struct ft_page_op op = { .mode = ISP_CELL_SLC, .n_dout = 1, .dout_bytes = 4096 };
	uint64_t tca = ft_t_ca(&p), tr = p.t_read[1], tdo = ft_t_dout(&p, 4096);
	struct ft_cmd c;
	uint64_t e0, e1;

	ft_cmd_begin(ft, &c, 0, NULL);
	e0 = ft_page_read(ft, &c, 0, &op, 0);
	e1 = ft_page_read(ft, &c, 1, &op, 0);
	ft_cmd_end(ft, &c, NULL);
	CHECK_EQ_U64(e0 - c.start, tca + tr + tdo);
	CHECK_EQ_U64(e1 - c.start, tca + tr + 2 * tdo);	/* waits for the channel */
	CHECK_EQ_U64(c.busy_ps[ISP_RES_CHANNEL], 2 * (tca + tdo));

	ft_cmd_begin(ft, &c, 1000000, NULL);
	e0 = ft_page_read(ft, &c, 0, &op, 0);
	e1 = ft_page_read(ft, &c, 2, &op, 0);
	ft_cmd_end(ft, &c, NULL);
	CHECK_EQ_U64(e0 - c.start, tca + tr + tdo);
	CHECK_EQ_U64(e1 - c.start, tca + tr + tdo);	/* other channel: parallel */
	ft_close(ft);
}

static void test_queueing(void)
{
	struct fp_params p;
	struct ft *ft = open_with("recflash-qlc",
				  "channels=1,dies_per_channel=2,planes_per_die=1,"
				  "t_read_slc=25us", &p);
	struct ft_page_op slow = { .mode = ISP_CELL_QLC, .n_dout = 1, .dout_bytes = 128 };
	struct ft_page_op fast = { .mode = ISP_CELL_SLC, .n_dout = 1, .dout_bytes = 128 };
	struct ft_cmd a, b;
	uint64_t tca = ft_t_ca(&p), tdo = ft_t_dout(&p, 128);

	/* Same plane: B queues behind A. */
	ft_cmd_begin(ft, &a, 0, NULL);
	ft_page_read(ft, &a, 0, &slow, 0);
	ft_cmd_begin(ft, &b, 1000, NULL);	/* 1 us later */
	ft_page_read(ft, &b, 0, &fast, 0);
	ft_cmd_end(ft, &a, NULL);
	ft_cmd_end(ft, &b, NULL);
	CHECK_EQ_U64(b.end, a.end + tca + p.t_read[1] + tdo);

	/* Other plane on the same channel: B's C/A and data-out use the gaps
	 * around A's reservations and finish before A. */
	ft_cmd_begin(ft, &a, 10000000, NULL);
	ft_page_read(ft, &a, 0, &slow, 0);
	ft_cmd_begin(ft, &b, 10001000, NULL);
	ft_page_read(ft, &b, 1, &fast, 0);
	ft_cmd_end(ft, &a, NULL);
	ft_cmd_end(ft, &b, NULL);
	CHECK_EQ_U64(b.end - b.start, tca + p.t_read[1] + tdo);
	CHECK(b.end < a.end);
	ft_close(ft);
}

static void test_cores_link(void)
{
	struct fp_params p;
	struct ft *ft = open_with("reis-ssd1", NULL, &p);
	struct ft_cmd c;
	uint64_t e0, e1, e2, e3, ms = US(1000);

	REQUIRE(p.core_mhz == 1500 && p.isp_cores == 1 && p.cores == 4);
	CHECK_EQ_U64(ft_t_cycles(&p, 1500000), ms);
	ft_cmd_begin(ft, &c, 0, NULL);
	e0 = ft_core(ft, &c, FT_CORE_ISP, 1500000, "quickselect", 0);
	e1 = ft_core(ft, &c, FT_CORE_ISP, 1500000, "rerank", 0);
	CHECK_EQ_U64(e0 - c.start, ms);
	CHECK_EQ_U64(e1 - c.start, 2 * ms);		/* one ISP core */
	e2 = ft_core(ft, &c, FT_CORE_FTL, 1500000, "ftl", 0);
	e3 = ft_core(ft, &c, FT_CORE_FTL, 1500000, "ftl", 0);
	CHECK_EQ_U64(e2 - c.start, ms);
	CHECK_EQ_U64(e3 - c.start, ms);		/* three firmware cores */
	CHECK_EQ_U64(ft_core(ft, &c, 3, 1500, "x", 0) - c.start, US(1));
	CHECK_EQ_U64(c.core_cycles, 4 * 1500000 + 1500);
	CHECK_EQ_U64(c.busy_ps[ISP_RES_CORE], 4 * ms + US(1));
	CHECK(ft_cmd_end(ft, &c, NULL) == 0);

	/* Link: both directions at once; DRAM; controller overhead. */
	ft_cmd_begin(ft, &c, 10000000, NULL);
	e0 = ft_dma(ft, &c, FT_C2H, p.link_mbps, 0);
	e1 = ft_dma(ft, &c, FT_H2C, p.link_mbps, 0);
	e2 = ft_dma(ft, &c, FT_C2H, p.link_mbps, 0);
	CHECK_EQ_U64(e0 - c.start, US(1));
	CHECK_EQ_U64(e1 - c.start, US(1));
	CHECK_EQ_U64(e2 - c.start, US(2));
	CHECK_EQ_U64(ft_dram(ft, &c, p.dram_mbps, 0) - c.start, US(1));
	CHECK_EQ_U64(ft_ctrl(ft, &c, 0) - c.start, p.ctrl_cmd);
	CHECK_EQ_U64(c.link_bytes[FT_C2H], 2ull * p.link_mbps);
	CHECK_EQ_U64(c.energy_pj, 3ull * p.link_mbps * p.e_link_byte +
		     (uint64_t)p.dram_mbps * p.e_dram_byte +
		     p.ctrl_cmd * p.core_mhz / 1000000 * p.e_core_cycle);
	CHECK(ft_cmd_end(ft, &c, NULL) == 0);
	ft_close(ft);
}

static void test_errors(void)
{
	struct fp_params p;
	struct ft *ft = open_with("reis-ssd1", NULL, &p);
	struct ft_page_op op = { .mode = ISP_CELL_SLC };
	struct ft_cmd c;
	uint64_t lat;

	ft_cmd_begin(ft, &c, 0, NULL);
	CHECK(ft_page_read(ft, &c, 256, &op, 5) == 5);	/* 256 planes: 0..255 */
	CHECK(c.err == -EINVAL);
	c.err = 0;
	op.mode = 0;
	ft_page_read(ft, &c, 0, &op, 0);
	CHECK(c.err == -EINVAL);
	c.err = 0;
	op.mode = 5;
	ft_page_read(ft, &c, 0, &op, 0);
	CHECK(c.err == -EINVAL);
	c.err = 0;
	op.mode = 1;
	op.n_dout = FT_MAX_COUNT + 1;
	ft_page_read(ft, &c, 0, &op, 0);
	CHECK(c.err == -EINVAL);
	c.err = 0;
	ft_page_read(ft, &c, 0, NULL, 0);
	CHECK(c.err == -EINVAL);
	c.err = 0;
	ft_core(ft, &c, 4, 1, "x", 0);
	CHECK(c.err == -EINVAL);
	c.err = 0;
	ft_core(ft, &c, -3, 1, "x", 0);
	CHECK(c.err == -EINVAL);
	c.err = 0;
	ft_core(ft, &c, 0, FT_MAX_CYCLES + 1, "x", 0);
	CHECK(c.err == -EINVAL);
	c.err = 0;
	ft_dma(ft, &c, FT_C2H, FT_MAX_BYTES + 1, 0);
	CHECK(c.err == -EINVAL);
	c.err = 0;
	ft_dma(ft, &c, (enum ft_dir)2, 1, 0);
	CHECK(c.err == -EINVAL);
	c.err = 0;
	ft_ibc(ft, &c, 128, 16, 16, 0, 0);
	CHECK(c.err == -EINVAL);
	c.err = 0;
	ft_page_program(ft, &c, 0, ISP_CELL_TLC, 1u << 25, 0);
	CHECK(c.err == -EINVAL);
	c.err = 0;
	ft_block_erase(ft, &c, 1000, 0);
	CHECK(c.err == -EINVAL);
	CHECK(c.end == c.start);	/* nothing was reserved */
	CHECK(ft_cmd_end(ft, &c, &lat) == -EINVAL);
	CHECK(lat == 0);
	ft_close(ft);
	p.planes_per_die = 0;
	CHECK(ft_open(&p, &ft) == -EINVAL);
}

static void test_program_erase_stats(void)
{
	struct fp_params p;
	struct ft *ft = open_with("reis-ssd1", NULL, &p);
	struct ft_page_op op = { .mode = ISP_CELL_SLC, .flags = FT_OP_XOR,
				 .n_fbc = 128, .n_cmp = 128, .n_dout = 1, .dout_bytes = 300 };
	struct isp_wire_stats w;
	struct ft_stats s;
	struct ft_cmd c;
	uint64_t e;

	ft_cmd_begin(ft, &c, 0, NULL);
	e = ft_block_erase(ft, &c, 3, 0);
	CHECK_EQ_U64(e - c.start, ft_t_ca(&p) + p.t_erase);
	e = ft_page_program(ft, &c, 3, ISP_CELL_SLC, p.page_bytes, 0);
	CHECK_EQ_U64(e - c.start, 2 * ft_t_ca(&p) + p.t_erase +
		     ft_t_xfer(p.page_bytes, p.channel_mbps) + p.t_prog[1]);
	e = ft_page_read(ft, &c, 3, &op, 0);
	CHECK(ft_cmd_end(ft, &c, NULL) == 0);
	ft_get_stats(ft, &s, 0);
	CHECK(s.erases == 1 && s.page_programs[1] == 1 && s.page_reads[1] == 1);
	CHECK_EQ_U64(s.channel_bytes, p.page_bytes + 300);
	CHECK_EQ_U64(s.energy_pj, p.e_erase + p.e_prog[1] + p.e_read[1] + p.e_xor +
		     128 * p.e_fbc + 128 * p.e_cmp +
		     (p.page_bytes + 300ull) * p.e_channel_byte);
	CHECK_EQ_U64(s.energy_pj, c.energy_pj);
	CHECK(s.cmds == 1 && s.model_ps == c.end - c.start);
	CHECK(s.nres[ISP_RES_PLANE] == 256 && s.nres[ISP_RES_DIE] == 128 &&
	      s.nres[ISP_RES_CHANNEL] == 8 && s.nres[ISP_RES_CORE] == 4);
	memset(&w, 0, sizeof(w));
	ft_stats_to_wire(&s, &w);
	CHECK(w.page_reads[1] == 1 && w.block_erases == 1 && w.nres[ISP_RES_CHANNEL] == 8);
	CHECK(w.busy_ns[ISP_RES_PLANE] == s.busy_ps[ISP_RES_PLANE] / 1000);
	ft_get_stats(ft, &s, 1);
	ft_get_stats(ft, &s, 0);
	CHECK(s.page_reads[1] == 0 && s.energy_pj == 0 && s.nres[ISP_RES_PLANE] == 256);
	ft_close(ft);
}

struct thr {
	struct ft *ft;
	int id;
	uint64_t reads;
};

static void *worker(void *arg)
{
	struct thr *t = arg;
	struct ft_page_op op = { .mode = ISP_CELL_SLC, .n_dout = 1, .dout_bytes = 256 };
	int i, k;

	for (i = 0; i < 300; i++) {
		struct ft_cmd c;

		ft_cmd_begin(t->ft, &c, (uint64_t)i * 50000, NULL);
		for (k = 0; k < 40; k++)
			ft_page_read(t->ft, &c, (uint32_t)(k * 7 + t->id) % 256, &op, 0);
		ft_core(t->ft, &c, FT_CORE_ISP, 10000, "sel", c.end);
		ft_dma(t->ft, &c, FT_C2H, 4096, c.end);
		if (ft_cmd_end(t->ft, &c, NULL) == 0)
			t->reads += 40;
	}
	return NULL;
}

static void test_threads(void)
{
	struct fp_params p;
	struct ft *ft = open_with("reis-ssd1", NULL, &p);
	pthread_t th[4];
	struct thr t[4];
	struct ft_stats s;
	int i;

	for (i = 0; i < 4; i++) {
		t[i] = (struct thr){ ft, i, 0 };
		REQUIRE(pthread_create(&th[i], NULL, worker, &t[i]) == 0);
	}
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	ft_get_stats(ft, &s, 0);
	CHECK_EQ_U64(s.page_reads[1], t[0].reads + t[1].reads + t[2].reads + t[3].reads);
	CHECK_EQ_U64(s.page_reads[1], 4 * 300 * 40);
	CHECK(s.cmds == 1200);
	ft_close(ft);
}

static void test_huge(void)
{
	struct fp_params p;
	struct ft *ft = open_with("reis-ssd2",
				  "channels=64,dies_per_channel=64,planes_per_die=16,"
				  "blocks_per_plane=65536", &p);
	struct ft_page_op op = { .mode = ISP_CELL_SLC, .n_dout = 1, .dout_bytes = 64 };
	struct ft_cmd c;

	ft_cmd_begin(ft, &c, 0, NULL);
	ft_page_read(ft, &c, 65535, &op, 0);
	CHECK(ft_cmd_end(ft, &c, NULL) == 0);
	CHECK_EQ_U64(c.end - c.start, ft_t_ca(&p) + p.t_read[1] + ft_t_dout(&p, 64));
	ft_close(ft);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Many overlapping commands on one channel, one of them alive throughout
 * (history cannot be pruned, calendars must compact): no two data-outs may
 * ever overlap on the channel.
 */
static void test_no_double_booking(void)
{
	struct fp_params p;
	struct ft *ft = open_with("recflash-slc",
				  "channels=1,dies_per_channel=4,planes_per_die=2", &p);
	struct ft_page_op op = { .mode = ISP_CELL_SLC, .n_dout = 1 };
	enum { NCMD = 3000, PER = 6 };
	static uint64_t iv[NCMD * PER + 64][2], starts[NCMD * PER + 64];
	struct ft_cmd keep, c;
	uint32_t seed = 7, n = 0, i, k;

	ft_cmd_begin(ft, &keep, 0, NULL);	/* never ends until the very end */
	for (i = 0; i < NCMD; i++) {
		ft_cmd_begin(ft, &c, (uint64_t)i * 20000, NULL);	/* every 20 us */
		for (k = 0; k < PER; k++) {
			uint64_t e, d;

			seed = seed * 1103515245u + 12345u;
			op.dout_bytes = 16 + (seed >> 8) % 2000;
			d = ft_t_dout(&p, op.dout_bytes);
			e = ft_page_read(ft, &c, (seed >> 4) % 8, &op, 0);
			iv[n][0] = e - d;
			iv[n][1] = e;
			n++;
		}
		CHECK(ft_cmd_end(ft, &c, NULL) == 0);
	}
	ft_cmd_end(ft, &keep, NULL);
	for (i = 0; i < n; i++)
		starts[i] = iv[i][0] << 20 | i;	/* sort by start, keep index */
	qsort(starts, n, sizeof(starts[0]), cmp_u64);
	for (i = 1; i < n; i++) {
		uint64_t a = starts[i - 1] & 0xfffff, b = starts[i] & 0xfffff;

		CHECK(iv[a][1] <= iv[b][0]);
	}
	ft_close(ft);
}

int main(void)
{
	test_no_double_booking();
	test_parallel();
	test_cache_read();
	test_xor_cache_read();
	test_mpibc();
	test_ibc_die_hold();
	test_ibc_channel();
	test_channel_contention();
	test_queueing();
	test_cores_link();
	test_errors();
	test_program_erase_stats();
	test_threads();
	test_huge();
	return t_result();
}
