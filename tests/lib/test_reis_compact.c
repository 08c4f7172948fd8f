/* SPDX-License-Identifier: MIT */
/*
 * test_reis_compact - compaction of shared stripes (docs/reis-engine.md
 * §7.1) through libreis and an in-process drive with small stripes (4 SLC
 * stripes of 16 rows of 8 pages): in each of 3 stripes a one-entry database
 * (a pin) and a filler that takes the other 15 rows; the fillers deleted,
 * every stripe is full of dead rows and the 4th is kept for compaction, so
 * identify says room for 0 and a new database needs a compaction: the
 * deploy moves a pin into the kept stripe, the emptied stripe comes free,
 * and the deploy succeeds. Every pin and the new database then search
 * exactly as the reference; a restart reads the moved pin back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "libreis_tools.h"
#include "reis_cmp.h"
#include "reis_many.h"
#include "reis_synth.h"

#define DIM 64
#define PARAMS "channels=2,dies_per_channel=2,blocks_per_plane=12,slc_blocks=4," \
	       "pages_per_block=48,page_bytes=4096,subpage_bytes=4096"
/* 15 rows of 8 pages of 512 codes (4096-byte pages, 8-byte codes) */
#define FILL_N (15u * 8 * 512)

static char dir[] = "/tmp/test_reis_compact.XXXXXX";
static char path[64];

static void build(struct reis_db_image *img, uint32_t did, uint64_t n, float *x)
{
	struct reis_build_opts o;
	char err[256];

	memset(&o, 0, sizeof(o));
	o.did = did;
	o.kind = REIS_DB_BF;
	if (reis_db_build(&o, x, n, DIM, img, err, sizeof(err)))
		fprintf(stderr, "build %u: %s\n", did, err);
	REQUIRE(img->n == n);
}

static void deploy(struct reis_dev *dev, struct reis_db_image *img)
{
	struct reis_deploy_opts d;
	int ret;

	memset(&d, 0, sizeof(d));
	d.flags = REIS_DEPLOY_NO_META;	/* SLC only: no TLC region */
	ret = reis_db_deploy(dev, img, &d);
	if (ret)
		fprintf(stderr, "deploy %u: %s\n", img->did, reis_last_error(dev));
	REQUIRE(ret == 0);
}

/* One-entry database @img searched with its own vector: the reference's hit. */
static void exact(struct reis_dev *dev, struct reis_db_image *img, const float *x)
{
	const struct reis_db_image *one[1] = { img };
	struct reis_search_result got, want;
	struct reis_search_opts so;
	struct reis_queries q;

	REQUIRE(reis_encode_queries(img->quant, x, 1, &q) == 0);
	memset(&so, 0, sizeof(so));
	so.did = img->did;
	so.k = 1;
	so.flags = REIS_SF_NO_RERANK;
	CHECK(reis_search(dev, &so, &q, &got) == 0);
	REQUIRE(reis_ref_search(one, 1, 0, &so, &q, &want) == 0);
	CHECK_EQ_U64(reis_cmp_results("pin", &got, &want, 0), 0);
	CHECK(got.nhits[0] == 1 && got.hits[0].hamming == 0);
	reis_search_result_free(&got);
	reis_search_result_free(&want);
	reis_queries_free(&q);
}

int main(void)
{
	float *xf = synth_vectors(7, FILL_N, DIM, 8, 0.5f), *xp[4];
	struct reis_db_image pin[4], filler;
	struct reis_info in;
	struct reis_dev *dev;
	unsigned s;

	REQUIRE(xf && mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/flash.img", dir);
	dev = many_open(path, PARAMS, 0);
	build(&filler, 500, FILL_N, xf);
	for (s = 0; s < 4; s++) {
		xp[s] = synth_vectors(20 + s, 1, DIM, 1, 0.1f);
		REQUIRE(xp[s]);
		build(&pin[s], 10 + s, 1, xp[s]);
	}
	for (s = 0; s < 3; s++) {
		deploy(dev, &pin[s]);
		filler.did = 500 + s;
		deploy(dev, &filler);
	}
	REQUIRE(reis_identify(dev, &in) == 0);
	CHECK_EQ_U64(in.db_room, 0);	/* the 4th stripe is compaction's */
	for (s = 0; s < 3; s++)
		CHECK(reis_db_delete(dev, 500 + s) == 0);
	REQUIRE(reis_identify(dev, &in) == 0);
	CHECK_EQ_U64(in.dead_bytes, 3 * 15 * 8 * 4096);
	CHECK_EQ_U64(in.db_room, 0);

	deploy(dev, &pin[3]);		/* needs a compaction */
	REQUIRE(reis_identify(dev, &in) == 0);
	CHECK_EQ_U64(in.ndbs, 4);
	CHECK_EQ_U64(in.dead_bytes, 2 * 15 * 8 * 4096);
	for (s = 0; s < 4; s++)
		exact(dev, &pin[s], xp[s]);
	reis_close(dev);

	dev = many_open(path, PARAMS, 0);
	for (s = 0; s < 4; s++)
		exact(dev, &pin[s], xp[s]);
	reis_close(dev);

	for (s = 0; s < 4; s++) {
		reis_db_image_free(&pin[s]);
		free(xp[s]);
	}
	filler.did = 500;
	reis_db_image_free(&filler);
	free(xf);
	unlink(path);
	rmdir(dir);
	return t_result();
}
