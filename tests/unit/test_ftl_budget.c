/* SPDX-License-Identifier: MIT */
/*
 * test_ftl_budget - the drive's budget of programs and erases at once
 * (ftl_prog_max, AF8; docs/ftl.md "Program budget"): 16 pages written in
 * one burst and flushed on 4 planes,
 *   - with no budget (0) or one of every plane or more (4, 9): the same
 *     modeled times to the picosecond (a plane programs one page at a
 *     time anyway), 4 rounds of (C/A + data-in + t_prog);
 *   - with 2 and 1: the programs draw the budget, the burst takes about
 *     2x and 4x as long (hand computation below);
 *   - reads are not in the budget: an idle 4 KiB read costs the same.
 *
 * Drive: reis-ssd1 timing on 2 channels x 1 die x 2 planes, 6 TLC pages
 * per block, 16 KiB pages, as test_ftl_map; a 1 MiB write buffer.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "ftl_int.h"
#include "ftl_t.h"

#define GEOM "channels=2;dies_per_channel=1;planes_per_die=2;blocks_per_plane=8;" \
	     "slc_blocks=0;pages_per_block=6;ftl_op=0;ftl_fill=0;ftl_wbuf=1m;ftl_cyc_cmd=1500"
#define SEC 1000000000ull
#define KB 4096ull

struct run {
	uint64_t flush_ns, read_ns;
};

static struct run burst(const char *budget)
{
	char params[512], err[256];
	struct t_ftl t;
	struct ftl_cpl c;
	struct run r;

	snprintf(params, sizeof(params), "%s;ftl_prog_max=%s", GEOM, budget);
	t_ftl_open(&t, params);
	REQUIRE(ftl_attach(t.ftl, 1, 192 * KB, err, sizeof(err)) == 0);
	REQUIRE(t_ftl_cmd(&t, FTL_WRITE, 0, 64 * KB, SEC, &c) == 0);
	REQUIRE(t_ftl_cmd(&t, FTL_FLUSH, 0, 0, 0, &c) == 0);
	r.flush_ns = c.model_ns;
	REQUIRE(t_ftl_cmd(&t, FTL_READ, 3 * KB, KB, SEC, &c) == 0);
	r.read_ns = c.model_ns;
	t_ftl_close(&t);
	return r;
}

int main(void)
{
	struct run none = burst("0"), all = burst("4"), more = burst("9");
	struct run two = burst("2"), one = burst("1");
	struct fp_params p;
	uint64_t d;

	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	/* one program's draw: C/A + 16 KiB at 1.2 GB/s + 700 us */
	d = ft_t_ca(&p) + ft_t_xfer(16384, p.channel_mbps) + p.t_prog[ISP_CELL_TLC];
	CHECK_EQ_U64(all.flush_ns, none.flush_ns);
	CHECK_EQ_U64(more.flush_ns, none.flush_ns);
	/* no budget: 4 pages a plane, each waiting for the one before */
	CHECK(none.flush_ns >= 4 * d / 1000);
	CHECK(none.flush_ns < 4 * d / 1000 + 300000);
	/* budget 2: 16 draws of d / 2 before the last starts, then d */
	CHECK(two.flush_ns >= (15 * d / 2 + d) / 1000);
	CHECK(two.flush_ns < (15 * d / 2 + d) / 1000 + 300000);
	/* budget 1: one program at a time */
	CHECK(one.flush_ns >= 16 * d / 1000);
	CHECK(one.flush_ns < 16 * d / 1000 + 300000);
	/* reads draw nothing */
	CHECK_EQ_U64(two.read_ns, none.read_ns);
	CHECK_EQ_U64(one.read_ns, none.read_ns);
	if (t_failures)
		fprintf(stderr, "  flush: none %llu, 2: %llu, 1: %llu ns; d %llu ps\n",
			(unsigned long long)none.flush_ns, (unsigned long long)two.flush_ns,
			(unsigned long long)one.flush_ns, (unsigned long long)d);
	return t_result();
}
