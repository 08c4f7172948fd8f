/* SPDX-License-Identifier: MIT */
/*
 * test_cs_copy_ftl - Memory Copy from the NVM namespace (format 2h, CS2)
 * asks the FTL where the blocks are: with the namespace attached, the
 * copy's cost is the FTL's reads of those LBAs on the same calendars:
 *   - idle: one page read per FTL page holding them (ftl_fill lays the
 *     namespace out in LBA order, 4 units a page), counted as the FTL's
 *     inside reads; the copied bytes are the staged ones;
 *   - units still in the write buffer come from DRAM, not flash;
 *   - a copy submitted during a write burst that runs GC waits behind the
 *     programs, GC reads and erases on those planes;
 *   - a 4 KiB read of a copied LBA submitted just after the copy waits
 *     for the copy's page read on its plane;
 *   - without the namespace attached the copy keeps CS2's striped
 *     page reads (test_cs_slm).
 */
#include <string.h>

#include "cs_t.h"
#include "flash_timing.h"
#include "ftl_t.h"

#define LBA 512u
#define NS_BYTES (256ull << 20)
#define MS 1000000ull
#define QD 64u

static struct isp_cmd copy_cmd(uint64_t sd, uint64_t nbyte, uint64_t at)
{
	struct isp_cmd c = cs_mk(ISP_SET_IO, ISP_CS_OP_MEM_COPY, CS_T_SLM);

	c.cdw2 = (uint32_t)nbyte;
	c.cdw3 = (uint32_t)(nbyte >> 32);
	c.cdw10 = (uint32_t)sd;
	c.cdw11 = (uint32_t)(sd >> 32);
	c.cdw12 = ISP_CS_DESFMT_LBA << 8;	/* one range */
	c.submit_ns = at;
	return c;
}

/* Copy @nlb blocks from @slba into the memory at @sd, submitted at @at;
 * the staged bytes are a pattern of @slba, read back when @verify (a
 * Memory Read at t_clock: later steps take their times from later());
 * returns the modeled latency. */
static uint64_t copy(struct isp_dev *dev, uint64_t slba, uint32_t nlb, uint64_t sd,
		     uint64_t at, int verify)
{
	struct isp_wire_cs_src_lba d;
	struct isp_cs_stage stage;
	struct isp_cpl cpl;
	struct isp_cmd c = copy_cmd(sd, (uint64_t)nlb * LBA, at);
	size_t len = sizeof(d) + sizeof(stage) + (size_t)nlb * LBA;
	uint8_t *buf = malloc(len), *back = malloc((size_t)nlb * LBA);
	uint16_t st;

	REQUIRE(buf && back);
	memset(&d, 0, sizeof(d));
	d.snsid = CS_T_NVM;
	d.slba = slba;
	d.nlb = (uint16_t)(nlb - 1);
	stage.lba_bytes = LBA;
	stage.nranges = 1;
	memcpy(buf, &d, sizeof(d));
	memcpy(buf + sizeof(d), &stage, sizeof(stage));
	isp_wire_pattern((uint32_t)slba, buf + sizeof(d) + sizeof(stage), (size_t)nlb * LBA);
	st = isp_dev_exec(dev, &c, buf, len, &cpl);
	CHECK_EQ_U64(st, 0);
	if (st)
		fprintf(stderr, "  copy: %s / %s\n", cpl.err, cpl.err_msg);
	/* the data path is the transport's staged bytes, as before */
	if (verify) {
		CHECK_EQ_U64(cs_read(dev, sd, back, nlb * LBA), 0);
		CHECK(memcmp(back, buf + sizeof(d) + sizeof(stage), (size_t)nlb * LBA) == 0);
	}
	free(buf);
	free(back);
	return cpl.model_ns;
}

/* A device time for the next step, after every command t_mk() made (the
 * memory reads that check the copies take theirs from t_clock). */
static uint64_t later(void)
{
	return __atomic_fetch_add(&t_clock, 100000000000ull, __ATOMIC_RELAXED);
}

static uint64_t io(struct isp_dev *dev, uint32_t opc, uint64_t off, uint64_t len, uint64_t at,
		   uint32_t *flags)
{
	struct ftl_cpl c;

	CHECK_EQ_U64(t_dev_cmd(dev, opc, off, len, at, &c), 0);
	if (flags)
		*flags |= c.flags;
	return c.model_ns;
}

static uint64_t tlc_reads(struct isp_dev *dev)
{
	struct isp_wire_stats s;

	REQUIRE(isp_dev_log_page(dev, ISP_LID_STATS, &s, sizeof(s), 0) == sizeof(s));
	return s.page_reads[ISP_CELL_TLC];
}

int main(void)
{
	/* 24-page blocks (96 MiB stripes): the 256 MiB namespace and its
	 * spares hold 6 stripes, GC comes after a few tens of thousands of
	 * random writes */
	struct isp_dev *dev = t_open("reis-ssd1", "pages_per_block=24;blocks_per_plane=32;"
				     "slc_blocks=8;ftl_cyc_cmd=1500", NULL);
	struct ftl_stats s0, s1;
	uint64_t t = later(), idle, busy = 0, r0, r1, n0, i, x = 12345, slot[QD];
	uint32_t k;
	uint32_t flags = 0;
	char err[256];

	REQUIRE(dev);
	REQUIRE(isp_dev_ns_attach(dev, CS_T_NVM, NS_BYTES, err, sizeof(err)) == 0);

	/* idle: 64 KiB = 16 units = 4 pages of the LBA-ordered fill */
	ftl_get_stats(isp_dev_ftl(dev), &s0, 0);
	n0 = tlc_reads(dev);
	idle = copy(dev, 0, 128, 1u << 20, t, 1);
	ftl_get_stats(isp_dev_ftl(dev), &s1, 0);
	CHECK_EQ_U64(tlc_reads(dev) - n0, 4);
	CHECK_EQ_U64(s1.inside_reads - s0.inside_reads, 1);
	CHECK_EQ_U64(s1.inside_read_bytes - s0.inside_read_bytes, 65536);
	/* not host reads */
	CHECK_EQ_U64(s1.reads - s0.reads, 0);
	CHECK(idle > 0);
	/* the same copy later costs the same (nothing left on the calendars) */
	t = later();
	CHECK_EQ_U64(copy(dev, 0, 128, 1u << 20, t, 0), idle);

	/* units still in the write buffer: from DRAM, no page read */
	t = later();
	io(dev, FTL_WRITE, 8ull << 20, 4096, t, NULL);
	n0 = tlc_reads(dev);
	copy(dev, (8ull << 20) / LBA, 8, 2u << 20, t + 1000, 1);
	CHECK_EQ_U64(tlc_reads(dev) - n0, 0);

	/* a copy makes a read of its blocks wait */
	t = later();
	r0 = io(dev, FTL_READ, 32ull << 20, 4096, t, NULL);
	t = later();
	copy(dev, (32ull << 20) / LBA, 256, 3u << 20, t, 0);
	r1 = io(dev, FTL_READ, 32ull << 20, 4096, t + 1, NULL);
	if (!(r1 > r0 + 20000))
		fprintf(stderr, "  read idle %llu ns, after the copy %llu ns\n",
			(unsigned long long)r0, (unsigned long long)r1);
	CHECK(r1 > r0 + 20000);
	/* the same read much later: idle again */
	t = later();
	CHECK_EQ_U64(io(dev, FTL_READ, 32ull << 20, 4096, t, NULL), r0);

	/* a copy during a write burst that runs GC waits behind it: 120000
	 * random 4 KiB writes from 64 closed loops (each submits when its
	 * last write completed), the copy in the middle of them */
	t = later();
	for (k = 0; k < QD; k++)
		slot[k] = t + k;
	ftl_get_stats(isp_dev_ftl(dev), &s0, 0);
	for (i = 0; i < 120000; i++) {
		uint32_t m = 0;

		for (k = 1; k < QD; k++)
			if (slot[k] < slot[m])
				m = k;
		if (i == 100000)
			busy = copy(dev, 0, 128, 1u << 20, slot[m], 0);
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		slot[m] += io(dev, FTL_WRITE, x % (NS_BYTES / 4096) * 4096, 4096, slot[m], &flags);
	}
	ftl_get_stats(isp_dev_ftl(dev), &s1, 0);
	CHECK(s1.gc_victims > s0.gc_victims);
	CHECK(flags & FTL_CPL_GC);
	if (!(busy > idle + 500000))
		fprintf(stderr, "  copy idle %llu ns, during GC %llu ns\n",
			(unsigned long long)idle, (unsigned long long)busy);
	CHECK(busy > idle + 500000);	/* most of a t_prog more, at least */
	isp_dev_close(dev);
	return t_result();
}
