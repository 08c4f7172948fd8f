/* SPDX-License-Identifier: MIT */
/*
 * test_rf_timing - modeled time of the RecFlash embedding stage, exactly:
 *  - the multi-plane rule of the timing engine (FT_OP_MP,
 *    ft_page_read_mp()): planes of a die sense together only in one
 *    multi-plane read at one page offset; per-page and batch paths agree;
 *    FT_OP_BURSTS: the bursts of a selective read-out use channel gaps;
 *  - RecFlash Eq. 1-2 through RF_SLS on recflash-slc with 128-byte rows
 *    (fp32, dim 32, N = 128): two rows in two pages of one plane 55.39 us,
 *    two rows in one page 30.275 us (result.flash_ns), in every mode;
 *  - RecSSD-like sequential read-out, RM-SSD-like selective read-out;
 *  - the page cache: a hit costs no flash time, a partial hit reads out only
 *    the missing rows, LRU eviction at cache_bytes / page_bytes frames;
 *    only the hottest pages take a frame (cache_admit = 2, the default:
 *    the first keys of the frequency list, as many as the frames hold);
 *    cache_fill = 1 reads a new frame's page out whole;
 *  - flash energy per page (Table III) and per channel byte.
 */
#include <errno.h>

#include "flash_timing.h"
#include "test_rf_util.h"

#define US(x) ((uint64_t)((x) * 1000000.0 + 0.5))	/* us -> ps */
#define NS(x) ((uint64_t)((x) * 1000.0 + 0.5))		/* us -> ns */

/* Two reads on planes @pa, @pb; @mp: one multi-plane read. */
static uint64_t two_reads(struct ft *ft, uint64_t at, uint32_t pa, uint32_t pga,
			  uint32_t pb, uint32_t pgb, uint32_t flags, int mp)
{
	struct ft_page_op op[2] = {
		{ .mode = ISP_CELL_SLC, .flags = flags, .n_dout = 1, .dout_bytes = 128,
		  .page = pga },
		{ .mode = ISP_CELL_SLC, .flags = flags, .n_dout = 1, .dout_bytes = 128,
		  .page = pgb },
	};
	uint32_t planes[2] = { pa, pb };
	struct ft_cmd c;

	ft_cmd_begin(ft, &c, at, NULL);
	if (mp) {
		ft_page_read_mp(ft, &c, 2, planes, op, 0, NULL);
	} else {
		ft_page_read(ft, &c, pa, &op[0], 0);
		ft_page_read(ft, &c, pb, &op[1], 0);
	}
	CHECK(ft_cmd_end(ft, &c, NULL) == 0);
	return c.end - c.start;
}

static void test_multiplane_rule(void)
{
	struct fp_params p;
	struct ft *ft, *f1, *f2;
	uint64_t tca, tr, tdo, t;
	struct ft_batch bt;
	struct ft_cmd c1, c2;
	uint64_t i;

	REQUIRE(fp_preset("recflash-slc", &p) == 0);
	REQUIRE(ft_open(&p, &ft) == 0);
	tca = ft_t_ca(&p);
	tr = p.t_read[ISP_CELL_SLC];
	tdo = ft_t_dout(&p, 128);
	/* Planes 0, 1 are the two planes of die 0 (channel 0). */
	t = two_reads(ft, 1000, 0, 5, 1, 5, FT_OP_MP, 1);
	CHECK_EQ_U64(t, tca + tr + 2 * tdo);		/* one multi-plane read */
	t = two_reads(ft, 2000000, 0, 5, 1, 6, FT_OP_MP, 0);
	CHECK_EQ_U64(t, tca + 2 * tr + tdo);		/* the die's array is shared */
	t = two_reads(ft, 3000000, 0, 5, 1, 5, FT_OP_MP, 0);
	CHECK_EQ_U64(t, tca + 2 * tr + tdo);		/* separately: still shared */
	t = two_reads(ft, 4000000, 0, 5, 1, 6, 0, 0);
	CHECK_EQ_U64(t, tca + tr + 2 * tdo);		/* A18: independent planes */
	t = two_reads(ft, 6000000, 0, 5, 2, 6, FT_OP_MP, 0);
	CHECK_EQ_U64(t, tca + tr + 2 * tdo);		/* other die: only the channel */
	t = two_reads(ft, 7000000, 0, 5, 8, 6, FT_OP_MP, 0);
	CHECK_EQ_U64(t, tca + tr + tdo);		/* other channel: parallel */
	t = two_reads(ft, 8000000, 0, 5, 0, 5, FT_OP_MP, 0);
	CHECK_EQ_U64(t, 2 * (tca + tr + tdo));		/* same plane */
	/* A multi-plane read needs one die, one offset, distinct planes. */
	{
		struct ft_page_op op[2] = {
			{ .mode = ISP_CELL_SLC, .flags = FT_OP_MP, .page = 1 },
			{ .mode = ISP_CELL_SLC, .flags = FT_OP_MP, .page = 2 },
		};
		uint32_t pl[2] = { 0, 1 };
		struct ft_cmd c;

		ft_cmd_begin(ft, &c, 9000000, NULL);
		ft_page_read_mp(ft, &c, 2, pl, op, 0, NULL);
		CHECK(ft_cmd_end(ft, &c, NULL) == -EINVAL);
		op[1].page = 1;
		pl[1] = 2;				/* another die */
		ft_cmd_begin(ft, &c, 9100000, NULL);
		ft_page_read_mp(ft, &c, 2, pl, op, 0, NULL);
		CHECK(ft_cmd_end(ft, &c, NULL) == -EINVAL);
		pl[1] = 0;				/* the same plane twice */
		ft_cmd_begin(ft, &c, 9200000, NULL);
		ft_page_read_mp(ft, &c, 2, pl, op, 0, NULL);
		CHECK(ft_cmd_end(ft, &c, NULL) == -EINVAL);
		CHECK_EQ_U64(c.end, c.start);		/* nothing reserved */
	}
	/* FT_OP_BURSTS: a selective read-out's bursts use the channel's gaps. */
	{
		struct ft_page_op one = { .mode = ISP_CELL_SLC, .n_dout = 1, .dout_bytes = 128 };
		struct ft_page_op two = { .mode = ISP_CELL_SLC, .n_dout = 2, .dout_bytes = 128 };
		uint64_t sense_end = tca + tr, e, flags;

		for (flags = 0; flags <= FT_OP_BURSTS; flags += FT_OP_BURSTS) {
			struct ft_cmd c;

			two.flags = (uint32_t)flags;
			ft_cmd_begin(ft, &c, 20000000 + flags * 1000000, NULL);
			/* die 1: DO [c1, c1 + tdo]; die 2: DO [c1 + 2 tdo, c1 + 3 tdo] */
			ft_page_read(ft, &c, 2, &one, 0);
			ft_page_read(ft, &c, 4, &one, c.start + 2 * tdo);
			e = ft_page_read(ft, &c, 0, &two, 0) - c.start;
			CHECK(ft_cmd_end(ft, &c, NULL) == 0);
			CHECK_EQ_U64(e, sense_end + (flags ? 4 : 5) * tdo);
		}
	}
	ft_close(ft);

	/* FT_OP_MP in the batch path equals the same single reads one by one. */
	REQUIRE(ft_open(&p, &f1) == 0 && ft_open(&p, &f2) == 0);
	memset(&bt, 0, sizeof(bt));
	bt.op = (struct ft_page_op){ .mode = ISP_CELL_SLC, .flags = FT_OP_MP, .n_dout = 2,
				     .dout_bytes = 128 };
	bt.first = 40;
	bt.count = 300;
	bt.core = FT_CORE_ISP;
	ft_cmd_begin(f1, &c1, 0, NULL);
	ft_batch_read(f1, &c1, &bt, 0);
	ft_cmd_end(f1, &c1, NULL);
	ft_cmd_begin(f2, &c2, 0, NULL);
	for (i = bt.first; i < bt.first + bt.count; i++)
		ft_page_read(f2, &c2, fg_pfpa_plane_of(8, 4, 2, i), &bt.op, 0);
	ft_cmd_end(f2, &c2, NULL);
	CHECK_EQ_U64(c1.end, c2.end);
	CHECK_EQ_U64(c1.energy_pj, c2.energy_pj);
	CHECK_EQ_U64(c1.busy_ps[ISP_RES_PLANE], c2.busy_ps[ISP_RES_PLANE]);
	ft_close(f1);
	ft_close(f2);
}

static struct isp_dev *dev;
static uint32_t next_tid = 1;

static uint32_t deploy128(uint32_t mode, uint32_t rows)
{
	struct isp_wire_rf_create cr = rt_cr(next_tid, rows, 32, ISP_RF_FP32, mode);
	uint8_t *table = rt_table(rows, 32, ISP_RF_FP32, next_tid);

	REQUIRE(rt_deploy(dev, &cr, table, NULL) == 0);
	free(table);
	return next_tid++;
}

/* One bag of @n rows; returns flash_ns and fills @o (v freed). */
static uint64_t bag(uint32_t tid, const uint32_t *rows, uint32_t n, uint32_t flags,
		    struct rt_sls_out *o)
{
	uint32_t off[2] = { 0, n }, idx[64];
	struct rt_batch b = { 1, n, off, idx, NULL };

	memcpy(idx, rows, n * 4);
	REQUIRE(rt_sls(dev, tid, 32, flags, &b, o) == 0);
	free(o->v);
	o->v = NULL;
	return o->res.flash_ns;
}

static void test_eq_figures(void)
{
	static const uint32_t modes[] = { ISP_RF_RECSSD, ISP_RF_RMSSD, ISP_RF_RECFLASH };
	/* rpp = 32; lpage 64 = planes: row 2048 is on plane 0 again, offset 1. */
	const uint32_t two_pages[2] = { 0, 2048 }, one_page[2] = { 0, 1 };
	struct fp_params p;
	struct rt_sls_out o;
	uint32_t m;

	REQUIRE(fp_preset("recflash-slc", &p) == 0);
	for (m = 0; m < 3; m++) {
		uint32_t tid = deploy128(modes[m], 4096);

		CHECK_EQ_U64(bag(tid, two_pages, 2, ISP_RF_SLS_NO_CACHE, &o), NS(55.39));
		CHECK_EQ_U64(o.res.page_reads, 2);
		CHECK_EQ_U64(o.res.bytes_out, 256);
		CHECK_EQ_U64(o.res.bytes_sensed, 8192);
		CHECK_EQ_U64(o.res.bytes_useful, 256);
		/* Table III: 7.39 uJ per SLC page read, plus the channel bytes. */
		CHECK_EQ_U64(o.res.flash_pj, 2 * p.e_read[ISP_CELL_SLC] + 256 * p.e_channel_byte);
		/*
		 * Two rows of one page. RecFlash senses the page once and reads
		 * both out selectively (Fig. 4b): t_C/A + t_R + 2 t_DO. The
		 * baselines read per vector (Fig. 4a): RM-SSD 2 (t_C/A + t_R +
		 * t_DO); RecSSD-like reads sequentially to each row's end, so row
		 * 1 costs t_RR + 256 t_RC.
		 */
		CHECK_EQ_U64(bag(tid, one_page, 2, ISP_RF_SLS_NO_CACHE, &o),
			     modes[m] == ISP_RF_RECFLASH ? NS(30.275) :
			     modes[m] == ISP_RF_RMSSD ? NS(55.39) :
			     NS(2 * (0.115 + 25) + 2.58 + 0.02 + 256 * 0.02));
		CHECK_EQ_U64(o.res.page_reads, modes[m] == ISP_RF_RECFLASH ? 1 : 2);
		CHECK(o.cpl.model_ns > o.res.flash_ns);	/* plus controller and link */
		CHECK(o.cpl.model_ns < o.res.flash_ns + 20000);
	}
}

static void test_readout_modes(void)
{
	const uint32_t ends[2] = { 0, 31 }, pair[2] = { 0, 32 * 32 }, split[2] = { 0, 96 * 32 };
	uint32_t recssd = deploy128(ISP_RF_RECSSD, 4096), rmssd = deploy128(ISP_RF_RMSSD, 4096);
	struct rt_sls_out o;

	/* Per vector, sequential read-out to the end of each row: rows 0 and
	 * 31 of one page are two page reads of 1 and 32 rows. */
	CHECK_EQ_U64(bag(recssd, ends, 2, 0, &o),
		     NS(2 * (0.115 + 25) + 0.02 + 128 * 0.02 + 0.02 + 4096 * 0.02));
	CHECK_EQ_U64(o.res.bytes_out, 128 + 4096);
	CHECK_EQ_U64(bag(rmssd, ends, 2, 0, &o), NS(55.39));
	CHECK_EQ_U64(o.res.bytes_out, 256);
	/* lpage 32 is die 0's plane 1 at the same offset: one multi-plane read. */
	CHECK_EQ_U64(bag(rmssd, pair, 2, 0, &o), NS(0.115 + 25 + 2 * 2.58));
	/* lpage 96: plane 1 of die 0 at another offset: sensing serializes. */
	CHECK_EQ_U64(bag(rmssd, split, 2, 0, &o), NS(0.115 + 2 * 25 + 2.58));
}

/* LRU mechanics with every page admitted (cache_admit = 0). */
static void test_cache(void)
{
	const uint32_t r01[2] = { 0, 1 }, r02[2] = { 0, 2 };
	struct isp_dev *keep = dev;
	uint32_t tid, i, row;
	struct rt_sls_out o;
	struct isp_wire_rf_stats st;

	dev = rt_open("recflash-slc", "cache_admit=0", NULL);
	tid = deploy128(ISP_RF_RECFLASH, 8192);

	CHECK_EQ_U64(bag(tid, r01, 2, 0, &o), NS(30.275));
	CHECK_EQ_U64(o.res.cache_misses, 2);
	CHECK_EQ_U64(bag(tid, r01, 2, 0, &o), 0);		/* hit: no flash */
	CHECK_EQ_U64(o.res.cache_hits, 2);
	CHECK_EQ_U64(o.res.page_reads, 0);
	CHECK_EQ_U64(o.res.flash_pj, 0);
	/* Row 2 was never read out: sense again, read out row 2 only. */
	CHECK_EQ_U64(bag(tid, r02, 2, 0, &o), NS(0.115 + 25 + 2.58));
	CHECK_EQ_U64(o.res.cache_hits, 1);
	CHECK_EQ_U64(o.res.cache_misses, 1);
	CHECK_EQ_U64(o.res.bytes_out, 128);
	CHECK_EQ_U64(o.res.bytes_useful, 128);
	CHECK_EQ_U64(bag(tid, r02, 2, 0, &o), 0);
	CHECK_EQ_U64(bag(tid, r02, 2, ISP_RF_SLS_NO_CACHE, &o), NS(30.275));
	/* 128 KiB / 4 KiB = 32 frames: 32 other pages evict page 0. */
	for (i = 1; i <= 32; i++) {
		row = i * 32;
		bag(tid, &row, 1, 0, &o);
		CHECK_EQ_U64(o.res.cache_misses, 1);
	}
	row = 32;
	CHECK_EQ_U64(bag(tid, &row, 1, 0, &o), 0);		/* page 1 still cached */
	CHECK_EQ_U64(bag(tid, r01, 2, 0, &o), NS(30.275));	/* page 0 was evicted */
	CHECK_EQ_U64(rt_stats(dev, tid, 1, &st), 0);
	CHECK_EQ_U64(st.cache_hits, 6);
	CHECK_EQ_U64(st.cache_misses, 37);
	CHECK_EQ_U64(rt_stats(dev, tid, 0, &st), 0);
	CHECK_EQ_U64(st.cache_hits + st.cache_misses, 0);	/* reset */
	/* Hits and misses count distinct rows: a row's second lookup in the
	 * same command is neither (it is in the controller already). */
	{
		const uint32_t rep[3] = { 4000, 4001, 4000 };

		CHECK_EQ_U64(bag(tid, rep, 3, 0, &o), NS(30.275));
		CHECK_EQ_U64(o.res.cache_hits, 0);
		CHECK_EQ_U64(o.res.cache_misses, 2);
		CHECK_EQ_U64(bag(tid, rep, 3, 0, &o), 0);
		CHECK_EQ_U64(o.res.cache_hits, 2);
	}
	isp_dev_close(dev);
	dev = keep;
}

/*
 * Admission: rows 1000..1408 are the hot region (5 % of 8192, placed by a
 * profile at slots 0..408, pages 0..12), all within the 32 frames' worth
 * of hottest keys (cache_admit = 2, the default); a hot row brings its
 * page in, a cold row on an uncached page never takes a frame, a cold row
 * on a cached hot page (slot 409 = row 0, page 12) is cached there.
 * Whole-page fill (cache_fill = 1): the miss reads the page's 32 rows out
 * in one burst, then any row of it hits.
 */
static void test_cache_admit_fill(void)
{
	struct isp_wire_rf_create cr = rt_cr(50, 8192, 32, ISP_RF_FP32, ISP_RF_RECFLASH);
	uint8_t *table = rt_table(8192, 32, ISP_RF_FP32, 50);
	uint32_t *prof = calloc(8192, 4), i, row;
	const uint32_t hot0 = 1000, hot1 = 1001, edge = 1384, cold = 7000, zero = 0;
	struct isp_dev *keep = dev;
	struct rt_sls_out o;
	int fill;

	REQUIRE(table && prof);
	for (i = 0; i < 409; i++)
		prof[1000 + i] = 1000 - i;
	cr.flags = ISP_RF_TF_PROFILE;
	for (fill = 0; fill <= 1; fill++) {
		dev = rt_open("recflash-slc", fill ? "cache_fill=1" : NULL, NULL);
		REQUIRE(rt_deploy(dev, &cr, table, prof) == 0);
		if (!fill) {
			CHECK_EQ_U64(bag(50, &hot0, 1, 0, &o), NS(27.695));
			CHECK_EQ_U64(bag(50, &hot0, 1, 0, &o), 0);	/* admitted */
			CHECK_EQ_U64(o.res.cache_hits, 1);
			CHECK_EQ_U64(bag(50, &hot1, 1, 0, &o), NS(27.695)); /* row fill */
			for (i = 0; i < 2; i++) {			/* bypass */
				CHECK_EQ_U64(bag(50, &cold, 1, 0, &o), NS(27.695));
				CHECK_EQ_U64(o.res.cache_misses, 1);
			}
			CHECK_EQ_U64(bag(50, &edge, 1, 0, &o), NS(27.695));
			CHECK_EQ_U64(bag(50, &zero, 1, 0, &o), NS(27.695));
			CHECK_EQ_U64(bag(50, &zero, 1, 0, &o), 0);	/* on a hot page */
		} else {
			/* t_C/A + t_R + t_RR + 32 x 128 x t_RC */
			CHECK_EQ_U64(bag(50, &hot0, 1, 0, &o), NS(0.115 + 25 + 0.02 + 81.92));
			CHECK_EQ_U64(o.res.bytes_out, 4096);
			CHECK_EQ_U64(o.res.bytes_useful, 128);
			CHECK_EQ_U64(o.res.cache_misses, 1);
			CHECK_EQ_U64(bag(50, &hot1, 1, 0, &o), 0);	/* the whole page */
			CHECK_EQ_U64(o.res.cache_hits, 1);
			row = cold;
			CHECK_EQ_U64(bag(50, &row, 1, 0, &o), NS(27.695)); /* not admitted */
		}
		isp_dev_close(dev);
	}
	/* Two frames (8 KiB): by default only the hottest 64 keys (pages 0-1)
	 * take a frame; cache_admit = 1 admits the whole hot region. */
	for (fill = 0; fill <= 1; fill++) {
		const uint32_t mid = 1100;	/* slot 100: page 3, hot */

		dev = rt_open("recflash-slc", fill ? "cache_bytes=8k;cache_admit=1" :
			      "cache_bytes=8k", NULL);
		REQUIRE(rt_deploy(dev, &cr, table, prof) == 0);
		CHECK_EQ_U64(bag(50, &mid, 1, 0, &o), NS(27.695));
		CHECK_EQ_U64(bag(50, &mid, 1, 0, &o), fill ? 0 : NS(27.695));
		CHECK_EQ_U64(bag(50, &hot0, 1, 0, &o), NS(27.695));
		CHECK_EQ_U64(bag(50, &hot0, 1, 0, &o), 0);
		isp_dev_close(dev);
	}
	dev = keep;
	free(table);
	free(prof);
}

/* A smaller cache_bytes: fewer frames; 0 disables the cache. */
static void test_cache_size(void)
{
	const uint32_t r0 = 0, r1 = 32, r2 = 64;
	struct isp_dev *keep = dev;
	struct rt_sls_out o;
	uint32_t tid;

	dev = rt_open("recflash-slc", "cache_bytes=8k;cache_admit=0", NULL);
	tid = deploy128(ISP_RF_RECFLASH, 4096);
	bag(tid, &r0, 1, 0, &o);
	bag(tid, &r1, 1, 0, &o);
	CHECK_EQ_U64(bag(tid, &r0, 1, 0, &o), 0);
	bag(tid, &r2, 1, 0, &o);				/* evicts page 1 */
	CHECK(bag(tid, &r1, 1, 0, &o) > 0);
	isp_dev_close(dev);
	dev = rt_open("recflash-slc", "cache_bytes=0", NULL);
	tid = deploy128(ISP_RF_RECFLASH, 4096);
	bag(tid, &r0, 1, 0, &o);
	CHECK_EQ_U64(bag(tid, &r0, 1, 0, &o), NS(27.695));
	CHECK_EQ_U64(o.res.cache_hits + o.res.cache_misses, 0);
	isp_dev_close(dev);
	dev = keep;
}

static void test_tlc(void)
{
	struct isp_dev *keep = dev;
	const uint32_t two[2] = { 0, 1 };
	struct fp_params p;
	struct rt_sls_out o;
	uint32_t tid;

	REQUIRE(fp_preset("recflash-tlc", &p) == 0);
	dev = rt_open("recflash-tlc", NULL, NULL);
	tid = deploy128(ISP_RF_RMSSD, 1000);
	/* t_DO = tRR + 128 B on TLC's 1 GB/s channel (timing-model.md A23);
	 * RM-SSD senses the page once per vector. */
	CHECK_EQ_U64(bag(tid, two, 2, 0, &o), NS(2 * (0.115 + 60 + 0.02 + 0.128)));
	CHECK_EQ_U64(o.res.bytes_sensed, 2 * 16384);
	CHECK_EQ_U64(o.res.flash_pj, 2 * p.e_read[ISP_CELL_TLC] + 256 * p.e_channel_byte);
	/* RecFlash senses it once for both (Fig. 4b). */
	tid = deploy128(ISP_RF_RECFLASH, 1000);
	CHECK_EQ_U64(bag(tid, two, 2, ISP_RF_SLS_NO_CACHE, &o),
		     NS(0.115 + 60 + 2 * (0.02 + 0.128)));
	CHECK_EQ_U64(o.res.bytes_sensed, 16384);
	CHECK_EQ_U64(o.res.flash_pj, p.e_read[ISP_CELL_TLC] + 256 * p.e_channel_byte);
	isp_dev_close(dev);
	dev = keep;
}

int main(void)
{
	test_multiplane_rule();
	dev = rt_open("recflash-slc", NULL, NULL);
	test_eq_figures();
	test_readout_modes();
	test_cache();
	test_cache_admit_fill();
	test_cache_size();
	test_tlc();
	isp_dev_close(dev);
	return t_result();
}
