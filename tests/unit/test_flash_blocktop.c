/* SPDX-License-Identifier: MIT */
/*
 * test_flash_blocktop.c - fs_block_top() (the highest programmed page + 1
 * of a block, which RecFlash's reopen starts its write-pointer scan from)
 * equals a page-by-page scan of fs_page_state() for random program patterns
 * (any order, runs of empty bitmap bytes, the last page, one page), in
 * memory and on an image, after a reopen of the image and after an erase;
 * bad arguments fail. A drive opened on a caller's image (isp_dev_config
 * .image) keeps its RecFlash tables across close and a reopen of a copy of
 * the image, leaves the image to the caller, and an adaptive remap after
 * the reopen moves rows that read back right (a write pointer rebuilt too
 * low fails test_rf_persist's remaps after its restart).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "flash_io.h"
#include "flash_store.h"
#include "test_rf_util.h"

static char err[256];

static uint64_t ppa_at(const struct fg_geom *g, uint32_t blk, uint32_t pg)
{
	struct fg_addr a = { 0, 0, 0, blk, pg };
	uint64_t ppa = 0;

	REQUIRE(fg_pack(g, &a, &ppa) == 0);
	return ppa;
}

/* The reference: the highest page fs_page_state() says is programmed, + 1. */
static uint32_t slow_top(struct fs *fs, uint32_t blk)
{
	const struct fg_geom *g = fs_geom(fs);
	uint32_t pg, n = fg_block_pages(g, blk);

	for (pg = n; pg > 0; pg--)
		if (fs_page_state(fs, ppa_at(g, blk, pg - 1)) == FS_PROGRAMMED)
			return pg;
	return 0;
}

static uint32_t top_of(struct fs *fs, uint32_t blk)
{
	uint32_t top = 0xdeadbeef;

	CHECK_EQ_U64(fs_block_top(fs, ppa_at(fs_geom(fs), blk, 0), &top), 0);
	return top;
}

/* Block first + i gets pattern i % 6. */
static void program_patterns(struct fs *fs, uint32_t first, uint32_t nblk, uint32_t seed)
{
	const struct fg_geom *g = fs_geom(fs);
	uint8_t *d = calloc(1, fs_slot_bytes(fs));
	uint32_t b, pg, n, s = seed;

	REQUIRE(d);
	for (b = first; b < first + nblk; b++) {
		n = fg_block_pages(g, b);
		switch ((b - first) % 6) {
		case 0:	/* nothing */
			break;
		case 1:	/* page 0 only */
			REQUIRE(fs_program(fs, ppa_at(g, b, 0), d, NULL) == 0);
			break;
		case 2:	/* the last page only: every bitmap byte below it empty */
			REQUIRE(fs_program(fs, ppa_at(g, b, n - 1), d, NULL) == 0);
			break;
		case 3:	/* a low page and one just above a byte boundary */
			REQUIRE(fs_program(fs, ppa_at(g, b, 2), d, NULL) == 0);
			REQUIRE(fs_program(fs, ppa_at(g, b, n > 17 ? 16 : n - 1), d, NULL) == 0);
			break;
		case 4:	/* a prefix, as a write pointer leaves it */
			for (pg = 0; pg < n / 3 + 1; pg++)
				REQUIRE(fs_program(fs, ppa_at(g, b, pg), d, NULL) == 0);
			break;
		default:	/* random pages, in random order */
			for (pg = 0; pg < n / 4; pg++) {
				s = s * 1103515245u + 12345u;
				(void)fs_program(fs, ppa_at(g, b, (s >> 8) % n), d, NULL);
			}
			break;
		}
	}
	free(d);
}

static void check_blocks(struct fs *fs, uint32_t first, uint32_t nblk)
{
	uint32_t b;

	for (b = first; b < first + nblk; b++)
		CHECK_EQ_U64(top_of(fs, b), slow_top(fs, b));
}

static void store_cases(struct fs_config *cfg, struct fio *io)
{
	const struct fg_geom *g;
	struct fs *fs;
	uint32_t first, nblk, b, top = 7;

	REQUIRE(fs_open(cfg, &fs, err, sizeof(err)) == 0);
	g = fs_geom(fs);
	first = g->slc_blocks;		/* TLC blocks: the most pages */
	nblk = g->blocks_per_plane - first;
	REQUIRE(nblk >= 6);
	for (b = 0; b < g->blocks_per_plane; b++)
		CHECK_EQ_U64(top_of(fs, b), 0);
	program_patterns(fs, first, nblk, 5);
	program_patterns(fs, 0, first, 9);	/* SLC blocks: fewer pages */
	check_blocks(fs, 0, g->blocks_per_plane);
	CHECK_EQ_U64(top_of(fs, first + 2), fg_block_pages(g, first + 2));
	CHECK_EQ_U64(top_of(fs, first + 1), 1);
	/* bad arguments */
	CHECK_EQ_U64(fs_block_top(NULL, ppa_at(g, 0, 0), &top), (uint64_t)-EINVAL);
	CHECK_EQ_U64(fs_block_top(fs, ppa_at(g, 0, 0), NULL), (uint64_t)-EINVAL);
	CHECK_EQ_U64(fs_block_top(fs, ~0ull, &top), (uint64_t)-EINVAL);
	CHECK_EQ_U64(top, 7);
	if (io) {
		/* the image's pages come back with the reopen */
		fs_close(fs);
		REQUIRE(fs_open(cfg, &fs, err, sizeof(err)) == 0);
		g = fs_geom(fs);	/* the closed store's geometry is gone */
		check_blocks(fs, 0, g->blocks_per_plane);
		CHECK_EQ_U64(top_of(fs, first + 2), fg_block_pages(fs_geom(fs), first + 2));
	}
	REQUIRE(fs_erase(fs, ppa_at(fs_geom(fs), first + 2, 0)) == 0);
	CHECK_EQ_U64(top_of(fs, first + 2), 0);
	check_blocks(fs, 0, fs_geom(fs)->blocks_per_plane);
	fs_close(fs);
}

static struct isp_dev *open_on(struct fio *img)
{
	struct isp_dev_config cfg = { .preset = "recflash-slc", .params = "blocks_per_plane=32",
				      .max_xfer = RT_MAX_XFER, .image = img };
	struct isp_dev *dev = NULL;
	int ret = isp_dev_open(&cfg, &dev, err, sizeof(err));

	if (ret)
		fprintf(stderr, "isp_dev_open: %d %s\n", ret, err);
	REQUIRE(ret == 0);
	return dev;
}

/* A RecFlash table on a caller's image, a copy reopened. */
static void dev_on_image(void)
{
	struct isp_wire_rf_create cr = rt_cr(3, 3000, 16, ISP_RF_FP32, ISP_RF_RECFLASH);
	struct isp_wire_rf_stats st;
	struct fio *img, *copy;
	struct isp_dev *dev;
	uint8_t *rows = rt_table(3000, 16, ISP_RF_FP32, 17);
	uint32_t *prof = malloc(3000 * 4), r;

	REQUIRE(rows && prof);
	for (r = 0; r < 3000; r++)
		prof[r] = r % 8 == 1;
	cr.flags = ISP_RF_TF_PROFILE;
	REQUIRE(fio_open_mem(&img) == 0);
	dev = open_on(img);
	REQUIRE(rt_deploy(dev, &cr, rows, prof) == 0);
	isp_dev_close(dev);
	/* still the caller's: a clone of it works, then it closes here */
	REQUIRE(fio_mem_clone(img, &copy) == 0);
	fio_close(img);
	dev = open_on(copy);
	CHECK_EQ_U64(rt_stats(dev, 3, 0, &st), 0);
	CHECK_EQ_U64(st.state, ISP_RF_READY);
	CHECK_EQ_U64(st.create.rows, 3000);
	{
		struct rt_batch b;
		struct rt_sls_out o;
		float *ref;

		rt_batch_random(&b, 40, 10, 3000, 0, 23);
		ref = malloc(4ull * b.nbags * 16);
		REQUIRE(ref);
		rt_reference(rows, ISP_RF_FP32, 16, 0, &b, ref);
		CHECK_EQ_U64(rt_sls(dev, 3, 16, 0, &b, &o), 0);
		CHECK(o.v && rt_same(o.v, ref, (size_t)b.nbags * 16));
		free(o.v);
		free(ref);
		rt_batch_free(&b);
	}
	/* new hot rows, then an adaptive remap on the reopened copy */
	{
		struct rt_batch b;
		struct rt_sls_out o;
		float *ref;

		rt_batch_hot(&b, 2000, 60, 3);
		REQUIRE(rt_sls(dev, 3, 16, 0, &b, &o) == 0);
		free(o.v);
		CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, 3,
				       ISP_RF_REMAP_ADAPTIVE | ISP_RF_REMAP_SWITCH, NULL), 0);
		CHECK_EQ_U64(rt_stats(dev, 3, 0, &st), 0);
		CHECK(st.remap_rows_moved > 0);
		CHECK_EQ_U64(st.generation, 1);
		/* the moved rows read back right */
		ref = malloc(4ull * b.nbags * 16);
		REQUIRE(ref);
		rt_reference(rows, ISP_RF_FP32, 16, 0, &b, ref);
		CHECK_EQ_U64(rt_sls(dev, 3, 16, 0, &b, &o), 0);
		CHECK(o.v && rt_same(o.v, ref, (size_t)b.nbags * 16));
		CHECK_EQ_U64(o.res.generation, 1);
		free(o.v);
		free(ref);
		rt_batch_free(&b);
	}
	isp_dev_close(dev);
	fio_close(copy);
	free(rows);
	free(prof);
}

int main(void)
{
	struct fp_params p;
	struct fs_config cfg = { 0 };
	struct fio *io;

	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	REQUIRE(fp_apply(&p, "channels=1,dies_per_channel=1,blocks_per_plane=16,slc_blocks=2",
			 err, sizeof(err)) == 0);
	cfg.params = &p;
	cfg.meta_max = 65536;
	cfg.flags = FS_NOSYNC;
	store_cases(&cfg, NULL);
	REQUIRE(fio_open_mem(&io) == 0);
	cfg.io = io;
	store_cases(&cfg, io);
	fio_close(io);
	dev_on_image();
	return t_result();
}
