/* SPDX-License-Identifier: MIT */
/*
 * test_ftl_map - the FTL's page map and command timing against hand
 * computation: where written units land (pages filled plane after plane
 * in Parallelism-First order), what a read, a write, a buffered read, a
 * never-written read and a flush cost on an idle drive, trim, partial-unit
 * writes, and the errors of bad requests.
 *
 * Drive: reis-ssd1 timing on 2 channels x 1 die x 2 planes (PF order of
 * the flat planes: 0, 2, 1, 3), 6 TLC pages per block, 16 KiB pages (4
 * units), 8 blocks per plane: a stripe is 4 x 6 x 4 = 96 units.
 */
#include <errno.h>
#include <stdint.h>

#include "check.h"
#include "ftl_int.h"
#include "ftl_t.h"

#define GEOM "channels=2;dies_per_channel=1;planes_per_die=2;blocks_per_plane=8;" \
	     "slc_blocks=0;pages_per_block=6;ftl_op=0;ftl_fill=0;ftl_wbuf=64k;ftl_cyc_cmd=1500"
#define SEC 1000000000ull	/* 1 s: every command starts on an idle drive */
#define KB 4096ull

static uint64_t pun(uint32_t sb, uint32_t plane, uint32_t page, uint32_t slot)
{
	return (((uint64_t)sb * 4 + plane) * 6 + page) * 4 + slot;
}

static void test_layout_and_timing(void)
{
	struct t_ftl t;
	struct ftl_cpl c;
	struct ftl_stats s;
	char err[256];
	uint32_t u;

	t_ftl_open(&t, GEOM);
	REQUIRE(ftl_attach(t.ftl, 1, 192 * KB, err, sizeof(err)) == 0);
	ftl_get_stats(t.ftl, &s, 0);
	/* 192 units need 2 stripes of data, plus the 3 spare ones */
	CHECK_EQ_U64(s.stripes, 5);
	CHECK_EQ_U64(s.stripes_min, 5);
	CHECK_EQ_U64(s.phys_bytes, 5 * 96 * KB);
	CHECK_EQ_U64(s.free_blocks, 20);
	for (u = 0; u < 192; u++)
		CHECK_EQ_U64(t.ftl->map[u], FTL_NONE);

	/* 64 KiB at LBA 0: four pages on planes 0, 2, 1, 3 of stripe 0 */
	REQUIRE(t_ftl_cmd(&t, FTL_WRITE, 0, 16 * KB, SEC, &c) == 0);
	/* firmware path 1 us (ftl_cyc_cmd 1500 at 1500 MHz) + DMA ceil(65536e6 / 7000) ps + DRAM ceil(65536e6 / 9600) ps */
	CHECK_EQ_U64(c.model_ns, (1000000 + 9362286 + 6826667 + 999) / 1000);
	for (u = 0; u < 4; u++) {
		CHECK_EQ_U64(t.ftl->map[u], pun(0, 0, 0, u));
		CHECK_EQ_U64(t.ftl->map[4 + u], pun(0, 2, 0, u));
		CHECK_EQ_U64(t.ftl->map[8 + u], pun(0, 1, 0, u));
		CHECK_EQ_U64(t.ftl->map[12 + u], pun(0, 3, 0, u));
		CHECK_EQ_U64(t.ftl->sb[0].p2l[pun(0, 2, 0, u)], 4 + u);
	}
	CHECK_EQ_U64(ftl_blk_of(t.ftl, 0, 0)->valid, 4);
	CHECK_EQ_U64(ftl_blk_of(t.ftl, 0, 2)->wp, 1);

	/*
	 * 4 KiB read of LBA 0, idle: firmware path 1 us; C/A (tALH + tALS - tDS) + 5 tWC
	 * + tDS = 0.115 us; tR TLC 60 us; data-out tRR 0.02 us + ceil(4096e6 /
	 * 1200) = 3413334 ps; DMA ceil(4096e6 / 7000) = 585143 ps.
	 */
	REQUIRE(t_ftl_cmd(&t, FTL_READ, 0, KB, SEC, &c) == 0);
	CHECK_EQ_U64(c.model_ns, (1000000 + 115000 + 60000000 + 20000 + 3413334 + 585143 +
				  999) / 1000);
	CHECK_EQ_U64(c.model_ns, 65134);
	CHECK_EQ_U64(c.flash_reads, 1);
	/* 16 KiB = one page: one 16 KiB data-out (13653334 ps), DMA 2340572 */
	REQUIRE(t_ftl_cmd(&t, FTL_READ, 0, 4 * KB, SEC, &c) == 0);
	CHECK_EQ_U64(c.model_ns, (61115000 + 20000 + 13653334 + 2340572 + 999) / 1000);
	/* 32 KiB: pages on planes 0 and 2, channels 0 and 1: in parallel */
	REQUIRE(t_ftl_cmd(&t, FTL_READ, 0, 8 * KB, SEC, &c) == 0);
	CHECK_EQ_U64(c.model_ns, (74788334 + 4681143 + 999) / 1000);
	CHECK_EQ_U64(c.flash_reads, 2);
	/* 48 KiB: plane 1 shares channel 0 with plane 0: its data-out waits */
	REQUIRE(t_ftl_cmd(&t, FTL_READ, 0, 12 * KB, SEC, &c) == 0);
	CHECK_EQ_U64(c.model_ns, (74788334 + 13673334 + 7021715 + 999) / 1000);

	/* never written: no flash, firmware path + DMA */
	REQUIRE(t_ftl_cmd(&t, FTL_READ, 100 * KB, KB, SEC, &c) == 0);
	CHECK_EQ_U64(c.model_ns, (1000000 + 585143 + 999) / 1000);
	CHECK_EQ_U64(c.flash_reads, 0);

	/* LBA 20 enters the buffer: plane 0, page 1 (the next in PF order) */
	REQUIRE(t_ftl_cmd(&t, FTL_WRITE, 20 * KB, KB, SEC, &c) == 0);
	CHECK_EQ_U64(c.model_ns, (1000000 + 585143 + 426667 + 999) / 1000);
	CHECK_EQ_U64(t.ftl->map[20], pun(0, 0, 1, 0));
	/* read back from DRAM: firmware path + ceil(4096e6 / 9600) + DMA */
	REQUIRE(t_ftl_cmd(&t, FTL_READ, 20 * KB, KB, SEC, &c) == 0);
	CHECK_EQ_U64(c.model_ns, (1000000 + 426667 + 585143 + 999) / 1000);
	CHECK(c.flags & FTL_CPL_BUF);
	/*
	 * Flush: the page programs padded: DRAM read-out 16 KiB (1706667 ps),
	 * data-in C/A + 13653334 ps, tPROG TLC 700 us; the flush ends with it.
	 */
	REQUIRE(t_ftl_cmd(&t, FTL_FLUSH, 0, 0, SEC, &c) == 0);
	CHECK_EQ_U64(c.model_ns, (1706667 + 115000 + 13653334 + 700000000 + 999) / 1000);
	ftl_get_stats(t.ftl, &s, 0);
	CHECK_EQ_U64(s.pad_bytes, 3 * KB);
	CHECK_EQ_U64(s.nand_write_bytes, 5 * 4 * KB);	/* five 16 KiB pages */
	CHECK_EQ_U64(s.write_bytes, 17 * KB);
	CHECK_EQ_U64(s.buf_hits, 1);
	CHECK_EQ_U64(s.unmapped_reads, 1);
	CHECK_EQ_U64(s.valid_units, 17);
	CHECK_EQ_U64(s.reads, 6);
	CHECK_EQ_U64(s.writes, 2);
	CHECK_EQ_U64(s.flushes, 1);
	/* now from flash again */
	REQUIRE(t_ftl_cmd(&t, FTL_READ, 20 * KB, KB, SEC, &c) == 0);
	CHECK_EQ_U64(c.model_ns, 65134);
	t_ftl_close(&t);
}

static void test_trim_rmw_errors(void)
{
	struct t_ftl t;
	struct ftl_cpl c;
	struct ftl_stats s;
	struct ftl_io io;
	char err[256];

	t_ftl_open(&t, GEOM);
	REQUIRE(ftl_attach(t.ftl, 1, 192 * KB, err, sizeof(err)) == 0);
	/* the same size again is a no-op; another nsid is another slice */
	CHECK(ftl_attach(t.ftl, 1, 192 * KB, err, sizeof(err)) == 0);
	CHECK(ftl_attach(t.ftl, 0, 192 * KB, err, sizeof(err)) == -EINVAL);
	CHECK(ftl_attach(t.ftl, 2, 1000, err, sizeof(err)) == -EINVAL);
	/* 8 blocks per plane cannot hold 800 units more (needs 11 + 3 stripes) */
	CHECK(ftl_attach(t.ftl, 2, 800 * KB, err, sizeof(err)) == -ENOSPC);
	CHECK(err[0] != '\0');

	REQUIRE(t_ftl_cmd(&t, FTL_WRITE, 0, 8 * KB, SEC, &c) == 0);
	/* trim LBA 1..2 and half of 3: only whole units leave */
	REQUIRE(t_ftl_cmd(&t, FTL_TRIM, KB, 2 * KB + 2048, SEC, &c) == 0);
	CHECK(t.ftl->map[0] != FTL_NONE);
	CHECK_EQ_U64(t.ftl->map[1], FTL_NONE);
	CHECK_EQ_U64(t.ftl->map[2], FTL_NONE);
	CHECK(t.ftl->map[3] != FTL_NONE);
	ftl_get_stats(t.ftl, &s, 0);
	CHECK_EQ_U64(s.valid_units, 6);
	CHECK_EQ_U64(ftl_blk_of(t.ftl, 0, 0)->valid, 2);

	/* 512 bytes into LBA 4 (on flash after a flush): one read of the old unit */
	REQUIRE(t_ftl_cmd(&t, FTL_FLUSH, 0, 0, SEC, &c) == 0);
	REQUIRE(t_ftl_cmd(&t, FTL_WRITE, 4 * KB + 512, 512, SEC, &c) == 0);
	ftl_get_stats(t.ftl, &s, 0);
	CHECK_EQ_U64(s.rmw_reads, 1);
	/* firmware path, then the old unit's read (1.115 + 60 + 3.433334 us) ends last */
	CHECK_EQ_U64(c.model_ns, (61115000 + 20000 + 3413334 + 999) / 1000);
	/* a partial write of a never-written unit reads nothing */
	REQUIRE(t_ftl_cmd(&t, FTL_WRITE, 50 * KB + 100, 100, SEC, &c) == 0);
	ftl_get_stats(t.ftl, &s, 0);
	CHECK_EQ_U64(s.rmw_reads, 1);

	CHECK(t_ftl_cmd(&t, FTL_READ, 190 * KB, 3 * KB, SEC, &c) == -EINVAL);
	CHECK(t_ftl_cmd(&t, FTL_READ, 0, 0, SEC, &c) == -EINVAL);
	CHECK(t_ftl_cmd(&t, FTL_READ, UINT64_MAX - 10, 20, SEC, &c) == -EINVAL);
	CHECK(t_ftl_cmd(&t, 9, 0, KB, SEC, &c) == -EINVAL);
	memset(&io, 0, sizeof(io));
	io.opc = FTL_READ;
	io.nsid = 7;
	io.len = KB;
	CHECK(ftl_io(t.ftl, &io, &c) == -ENOENT);
	/* a flush may name all namespaces */
	io.opc = FTL_FLUSH;
	io.nsid = 0;
	io.len = 0;
	CHECK(ftl_io(t.ftl, &io, &c) == 0);
	t_ftl_close(&t);
}

/* ftl_fill: a new namespace counts as written once, in LBA order. */
static void test_fill(void)
{
	struct t_ftl t;
	struct ftl_stats s;
	struct ftl_cpl c;
	char err[256];

	t_ftl_open(&t, "channels=2;dies_per_channel=1;planes_per_die=2;blocks_per_plane=8;"
		   "slc_blocks=0;pages_per_block=6;ftl_op=0;ftl_fill=1;ftl_cyc_cmd=1500");
	REQUIRE(ftl_attach(t.ftl, 1, 192 * KB, err, sizeof(err)) == 0);
	ftl_get_stats(t.ftl, &s, 0);
	CHECK_EQ_U64(s.valid_units, 192);
	CHECK_EQ_U64(s.nand_write_bytes, 0);	/* before power-on: not counted */
	CHECK_EQ_U64(t.ftl->map[0], pun(0, 0, 0, 0));
	CHECK_EQ_U64(t.ftl->map[191], pun(1, 3, 5, 3));
	/* the first read comes from flash at once */
	REQUIRE(t_ftl_cmd(&t, FTL_READ, 191 * KB, KB, SEC, &c) == 0);
	CHECK_EQ_U64(c.model_ns, 65134);
	t_ftl_close(&t);
}

int main(void)
{
	test_layout_and_timing();
	test_trim_rmw_errors();
	test_fill();
	return t_result();
}
