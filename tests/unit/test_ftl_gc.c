/* SPDX-License-Identifier: MIT */
/*
 * test_ftl_gc - garbage collection against hand-computed outcomes:
 *   - a known overwrite pattern on one plane gives write amplification
 *     100/76 and the map the hand trace says (below);
 *   - sequential overwrites of the whole namespace reclaim only empty
 *     blocks: WA exactly 1, nothing moved;
 *   - victim choice: greedy takes the fewest valid units, cost-benefit
 *     (1 - u) / 2u x age prefers an old, fuller block;
 *   - random overwrites keep the map and its reverse consistent, and
 *     NAND bytes = host + GC + padding, as the timing engine counted.
 */
#include <errno.h>
#include <stdint.h>

#include "check.h"
#include "ftl_int.h"
#include "ftl_t.h"

#define ONE_PLANE "channels=1;dies_per_channel=1;planes_per_die=1;blocks_per_plane=8;" \
		  "slc_blocks=0;pages_per_block=6;ftl_fill=0;ftl_wbuf=64k;ftl_cyc_cmd=1500"
#define SEC 1000000000ull
#define KB 4096ull

/* Flushes, a second apart, until GC has stopped on every plane. */
static void settle(struct t_ftl *t)
{
	struct ftl_cpl c;
	int i;

	for (i = 0; i < 1000 && t->ftl->ngc; i++)
		REQUIRE(t_ftl_cmd(t, FTL_FLUSH, 0, 0, SEC, &c) == 0);
	CHECK_EQ_U64(t->ftl->ngc, 0);
}

/*
 * One plane, blocks of 6 pages x 4 units = 24 units; a namespace of 48
 * units; ftl_op 1500 (2.5 x the data): 5 blocks, A..E (slots 0..4). GC
 * starts when opening a block leaves 1 free, runs until 2 are.
 *  1. LBA 0..47 in one command: A holds 0..23, B 24..47 (3 free).
 *  2. Rewrite the even pages of both (LBA 0-3, 8-11, 16-19, 24-27, 32-35,
 *     40-43, six commands): 24 units fill C (2 free); A and B keep 12 valid.
 *  3. Rewrite LBA 0..3: D opens, 1 free: GC starts. Greedy: A and B tie at
 *     12 valid (C has 20), the lower slot first: A's odd pages (LBA 4-7,
 *     12-15, 20-23) go to E pages 0..2, A is erased; 2 free is not yet
 *     reached (E took one), so B's (28-31, 36-39, 44-47) follow to E pages
 *     3..5, B is erased: 2 free, GC stops. Each step moves one page; the
 *     flushes that follow advance it, a page per flush.
 * Host units 48 + 24 + 4 = 76, all in full pages; GC moved 24 units:
 * WA = (76 + 24) / 76.
 */
static void test_known_pattern(void)
{
	static const uint32_t even[6] = { 0, 8, 16, 24, 32, 40 };
	struct t_ftl t;
	struct ftl_cpl c;
	struct ftl_stats s;
	struct ft_stats fst;
	char err[256];
	uint32_t i;

	t_ftl_open(&t, ONE_PLANE ";ftl_op=1500");
	REQUIRE(ftl_attach(t.ftl, 1, 48 * KB, err, sizeof(err)) == 0);
	ftl_get_stats(t.ftl, &s, 0);
	CHECK_EQ_U64(s.stripes_min, 5);
	CHECK_EQ_U64(s.stripes_target, 5);
	CHECK_EQ_U64(s.stripes, 5);
	REQUIRE(t_ftl_cmd(&t, FTL_WRITE, 0, 48 * KB, SEC, &c) == 0);
	for (i = 0; i < 6; i++)
		REQUIRE(t_ftl_cmd(&t, FTL_WRITE, even[i] * KB, 4 * KB, SEC, &c) == 0);
	CHECK_EQ_U64(t.ftl->ngc, 0);
	CHECK_EQ_U64(ftl_blk_of(t.ftl, 0, 0)->valid, 12);
	CHECK_EQ_U64(ftl_blk_of(t.ftl, 1, 0)->valid, 12);
	CHECK_EQ_U64(ftl_blk_of(t.ftl, 2, 0)->valid, 24);
	ftl_get_stats(t.ftl, &s, 0);
	CHECK_EQ_U64(s.gc_write_bytes, 0);
	REQUIRE(t_ftl_cmd(&t, FTL_WRITE, 0, 4 * KB, SEC, &c) == 0);
	CHECK_EQ_U64(t.ftl->ngc, 1);
	CHECK(c.flags & FTL_CPL_GC);
	/* one page moved so far: the horizon stops GC at one program */
	ftl_get_stats(t.ftl, &s, 0);
	CHECK_EQ_U64(s.gc_write_bytes, 4 * KB);
	settle(&t);

	ftl_get_stats(t.ftl, &s, 0);
	CHECK_EQ_U64(s.write_bytes, 76 * KB);
	CHECK_EQ_U64(s.gc_write_bytes, 24 * KB);
	CHECK_EQ_U64(s.nand_write_bytes, 100 * KB);
	CHECK_EQ_U64(s.pad_bytes, 0);
	CHECK_EQ_U64(s.gc_victims, 2);
	CHECK_EQ_U64(s.gc_erases, 2);
	CHECK_EQ_U64(s.nand_write_bytes * 1000 / s.write_bytes, 1315);	/* 100/76 */
	CHECK_EQ_U64(s.valid_units, 48);
	CHECK_EQ_U64(s.free_blocks, 2);
	/* pun = (slot * 6 + page) * 4 + slot-in-page */
	CHECK_EQ_U64(t.ftl->map[4], (4 * 6 + 0) * 4);		/* E, page 0 */
	CHECK_EQ_U64(t.ftl->map[13], (4 * 6 + 1) * 4 + 1);	/* E, page 1 */
	CHECK_EQ_U64(t.ftl->map[28], (4 * 6 + 3) * 4);		/* E, page 3 */
	CHECK_EQ_U64(t.ftl->map[47], (4 * 6 + 5) * 4 + 3);	/* E, page 5 */
	CHECK_EQ_U64(t.ftl->map[0], (3 * 6 + 0) * 4);		/* D, page 0 */
	CHECK_EQ_U64(t.ftl->map[9], (2 * 6 + 1) * 4 + 1);	/* C, page 1 */
	CHECK_EQ_U64(ftl_blk_of(t.ftl, 0, 0)->state, FTL_B_FREE);
	CHECK_EQ_U64(ftl_blk_of(t.ftl, 1, 0)->state, FTL_B_FREE);
	CHECK_EQ_U64(ftl_blk_of(t.ftl, 0, 0)->erases, 1);
	CHECK_EQ_U64(ftl_blk_of(t.ftl, 1, 0)->erases, 1);
	CHECK_EQ_U64(ftl_blk_of(t.ftl, 2, 0)->valid, 20);
	CHECK_EQ_U64(ftl_blk_of(t.ftl, 3, 0)->valid, 4);
	CHECK_EQ_U64(ftl_blk_of(t.ftl, 4, 0)->valid, 24);
	/* the timing engine saw the same: 25 TLC programs, 2 erases, 6 GC reads */
	ft_get_stats(t.ft, &fst, 0);
	CHECK_EQ_U64(fst.page_programs[ISP_CELL_TLC], 25);
	CHECK_EQ_U64(fst.erases, 2);
	CHECK_EQ_U64(fst.page_reads[ISP_CELL_TLC], 6);
	t_ftl_close(&t);
}

/* Overwriting everything in LBA order leaves every victim empty (a pool
 * of 12 blocks: GC starts when the oldest copy is long overwritten). */
static void test_sequential_wa1(void)
{
	struct t_ftl t;
	struct ftl_cpl c;
	struct ftl_stats s;
	char err[256];
	uint32_t pass, u;

	t_ftl_open(&t, ONE_PLANE ";blocks_per_plane=16;ftl_op=5000");
	REQUIRE(ftl_attach(t.ftl, 1, 48 * KB, err, sizeof(err)) == 0);
	REQUIRE(t.ftl->held == 12);
	for (pass = 0; pass < 12; pass++)
		for (u = 0; u < 48; u += 4)
			REQUIRE(t_ftl_cmd(&t, FTL_WRITE, u * KB, 4 * KB, SEC / 100, &c) == 0);
	settle(&t);
	ftl_get_stats(t.ftl, &s, 0);
	CHECK_EQ_U64(s.write_bytes, 12 * 48 * KB);
	CHECK_EQ_U64(s.nand_write_bytes, s.write_bytes);
	CHECK_EQ_U64(s.gc_write_bytes, 0);
	/* 24 blocks written on 12: at least 12 reclaimed, all of them empty */
	CHECK(s.gc_victims >= 12);
	CHECK_EQ_U64(s.valid_units, 48);
	t_ftl_close(&t);
}

/*
 * Victim choice on crafted blocks of one plane (24 units each):
 * X: 12 valid, written at t = 900 s; Y: 18 valid, written at t = 0.
 * At t = 1000 s greedy takes X (12 < 18); cost-benefit compares
 * (1 - 0.5) / 1 x 100 s = 50 with (1 - 0.75) / 1.5 x 1000 s = 166.7: Y.
 * An empty block wins either way.
 */
static void test_victim_choice(void)
{
	struct t_ftl t;
	char err[256];
	struct ftl_blk *x, *y, *z;
	uint32_t gc;

	for (gc = 0; gc < 2; gc++) {
		t_ftl_open(&t, gc ? ONE_PLANE ";ftl_op=0;ftl_gc=1" : ONE_PLANE ";ftl_op=0");
		REQUIRE(ftl_attach(t.ftl, 1, 48 * KB, err, sizeof(err)) == 0);
		REQUIRE(t.ftl->held == 5);
		x = ftl_blk_of(t.ftl, 1, 0);
		y = ftl_blk_of(t.ftl, 2, 0);
		z = ftl_blk_of(t.ftl, 3, 0);
		x->state = y->state = FTL_B_CLOSED;
		x->wp = y->wp = 6;
		x->valid = 12;
		y->valid = 18;
		x->mtime = 900 * SEC * 1000;
		y->mtime = 0;
		CHECK_EQ_U64(ftl_gc_victim(t.ftl, 0, 1000 * SEC * 1000), gc ? 2 : 1);
		/* a full block is never a victim; an empty one always is */
		y->valid = 24;
		CHECK_EQ_U64(ftl_gc_victim(t.ftl, 0, 1000 * SEC * 1000), 1);
		z->state = FTL_B_CLOSED;
		z->wp = 6;
		z->valid = 0;
		z->mtime = 999 * SEC * 1000;
		CHECK_EQ_U64(ftl_gc_victim(t.ftl, 0, 1000 * SEC * 1000), 3);
		x->valid = y->valid = 0;	/* undo for close */
		t_ftl_close(&t);
	}
}

/* Random 4 KiB overwrites on 4 planes with a little over-provisioning (so
 * little that GC never reaches its 3 free blocks and runs with every
 * write: the counters must still add up). */
static void test_random_consistency(void)
{
	struct t_ftl t;
	struct ftl_cpl c;
	struct ftl_stats s;
	struct ft_stats fst;
	char err[256];
	uint32_t seed = 12345, i, u, sb, p;
	uint64_t mapped = 0, valid = 0, units = 300, in_gc = 0;

	t_ftl_open(&t, "channels=2;dies_per_channel=1;planes_per_die=2;blocks_per_plane=16;"
		   "slc_blocks=0;pages_per_block=6;ftl_fill=1;ftl_wbuf=64k;ftl_cyc_cmd=1500;"
		   "ftl_op=100");
	REQUIRE(ftl_attach(t.ftl, 1, units * KB, err, sizeof(err)) == 0);
	for (i = 0; i < 20000; i++)
		REQUIRE(t_ftl_cmd(&t, FTL_WRITE, (t_xs(&seed) % units) * KB, KB, 20000, &c) == 0);
	REQUIRE(t_ftl_cmd(&t, FTL_FLUSH, 0, 0, SEC, &c) == 0);
	ftl_get_stats(t.ftl, &s, 0);
	/* units GC moved into a page it has not programmed yet */
	for (p = 0; p < t.ftl->NP; p++)
		in_gc += t.ftl->pl[p].gc.n;
	for (u = 0; u < units; u++) {
		uint32_t pun = t.ftl->map[u];

		REQUIRE(pun != FTL_NONE);
		CHECK_EQ_U64(*ftl_p2l(t.ftl, pun), u);
		mapped++;
	}
	for (sb = 0; sb < t.ftl->nsb; sb++)
		for (p = 0; p < t.ftl->NP; p++)
			if (t.ftl->sb[sb].region)
				valid += ftl_blk_of(t.ftl, sb, p)->valid;
	CHECK_EQ_U64(mapped, units);
	CHECK_EQ_U64(valid, units);
	CHECK_EQ_U64(s.valid_units, units);
	CHECK_EQ_U64(s.nand_write_bytes + in_gc * KB, s.write_bytes + s.gc_write_bytes + s.pad_bytes);
	CHECK(s.gc_write_bytes > 0);
	CHECK(s.nand_write_bytes > s.write_bytes);
	ft_get_stats(t.ft, &fst, 0);
	CHECK_EQ_U64(fst.page_programs[ISP_CELL_TLC] * 4 * KB, s.nand_write_bytes);
	CHECK_EQ_U64(fst.erases, s.gc_erases);
	printf("random 4 KiB overwrites, %llu units, 10 %% OP: WA %.3f, %llu victims\n",
	       (unsigned long long)units, (double)s.nand_write_bytes / (double)s.write_bytes,
	       (unsigned long long)s.gc_victims);
	t_ftl_close(&t);
}

int main(void)
{
	test_known_pattern();
	test_sequential_wa1();
	test_victim_choice();
	test_random_consistency();
	return t_result();
}
