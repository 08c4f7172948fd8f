/* SPDX-License-Identifier: MIT */
/*
 * test_lib_group_vclock - modeled times of a group's search and SLS on
 * in-process drives with the virtual clock (REIS_INPROC_VCLOCK) depend on
 * the commands only, never on the host's speed: the same one-phase
 * search and the same SLS (the shapes of `reis group bench`) on 1 and 2
 * fresh drives give the same modeled times run after run, and a call
 * repeated on the same drives takes what the first took (it starts on an
 * idle drive where the first ended, docs/libreis.md). Runs in the lib
 * suite on the vendor path and in lib-cp on the standard path, whose
 * set-up sends admin commands that must be on the drive's clock too
 * (transport_inproc.c, inproc_admin()): on the wall clock they set the
 * model's time base milliseconds ahead of the virtual clock, and every
 * later command started at the same instant, queueing behind the ones
 * before it by an amount that varied with the host.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "libreis_tools.h"

#define N 2000
#define DIM 128
#define NQ 16
#define ROWS 5000
#define RF_DIM 16
#define NBAGS 256
#define POOL 40
#define RUNS 3

struct data {
	struct reis_db_image img;
	struct reis_queries q;
	float *rows;
	uint32_t off[NBAGS + 1], idx[NBAGS * POOL];
	struct reis_rf_bags bags;
};

/* The modeled times of one run on fresh drives. */
struct times {
	uint64_t search[2];	/* ns, the call and its repeat */
	uint64_t sls[2];
};

static void make_data(struct data *d)
{
	struct reis_build_opts bo;
	float *x = malloc((size_t)N * DIM * sizeof(float));
	float *qf = malloc((size_t)NQ * DIM * sizeof(float));
	char err[256];
	uint64_t s = 77;
	uint32_t i;

	REQUIRE(x && qf);
	reis_rf_fill_random(1, x, (size_t)N * DIM, 1.0f);
	reis_rf_fill_random(2, qf, (size_t)NQ * DIM, 1.0f);
	memset(&bo, 0, sizeof(bo));
	bo.did = 1;
	bo.kind = REIS_DB_BF;
	bo.flags = REIS_BUILD_INT8;
	REQUIRE(reis_db_build(&bo, x, N, DIM, &d->img, err, sizeof(err)) == 0);
	REQUIRE(reis_encode_queries(d->img.quant, qf, NQ, &d->q) == 0);
	free(x);
	free(qf);
	d->rows = malloc((size_t)ROWS * RF_DIM * sizeof(float));
	REQUIRE(d->rows);
	reis_rf_fill_random(3, d->rows, (size_t)ROWS * RF_DIM, 1.0f);
	for (i = 0; i <= NBAGS; i++)
		d->off[i] = i * POOL;
	for (i = 0; i < NBAGS * POOL; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		d->idx[i] = (uint32_t)((s >> 11) % ROWS);
	}
	d->bags.nbags = NBAGS;
	d->bags.nidx = NBAGS * POOL;
	d->bags.offsets = d->off;
	d->bags.indices = d->idx;
}

static struct reis_group *open_group(unsigned m)
{
	struct reis_dev *devs[REIS_GROUP_MAX];
	struct reis_inproc_opts o;
	struct reis_group *g;
	char err[256] = "";
	unsigned i;

	for (i = 0; i < m; i++) {
		memset(&o, 0, sizeof(o));
		o.flags = REIS_INPROC_VCLOCK;
		o.errbuf = err;
		o.errlen = sizeof(err);
		if (reis_open_inproc(&o, &devs[i])) {
			fprintf(stderr, "in-process drive %u: %s\n", i, err);
			exit(T_EXIT_FAIL);
		}
	}
	REQUIRE(reis_group_adopt(devs, NULL, m, &g) == 0);
	return g;
}

static void run(struct data *d, unsigned m, struct times *t)
{
	struct reis_search_opts o;
	struct reis_group_result r;
	struct reis_group_sls_info in;
	struct reis_rf_table tb;
	struct reis_group *g = open_group(m);
	float *out = malloc((size_t)NBAGS * RF_DIM * sizeof(float));
	unsigned i;

	REQUIRE(out);
	memset(&o, 0, sizeof(o));
	o.did = 1;
	o.k = 10;
	REQUIRE(reis_group_db_deploy(g, &d->img, NULL) == 0);
	for (i = 0; i < 2; i++) {
		REQUIRE(reis_group_search(g, 0, &o, &d->q, 0, &r) == 0);
		t->search[i] = r.search_ns;
		reis_group_result_free(&r);
	}
	reis_group_close(g);

	/* The SLS on drives of their own, as `reis group bench` runs it. */
	g = open_group(m);
	memset(&tb, 0, sizeof(tb));
	tb.tid = 1;
	tb.rows = ROWS;
	tb.dim = RF_DIM;
	tb.dtype = REIS_RF_FP32;
	tb.mode = REIS_RF_RECFLASH;
	tb.data = d->rows;
	REQUIRE(reis_group_rf_deploy(g, &tb, NULL) == 0);
	for (i = 0; i < 2; i++) {
		REQUIRE(reis_group_rf_sls(g, 1, ROWS, RF_DIM, &d->bags, REIS_RF_SLS_NO_CACHE, out,
					  &in) == 0);
		t->sls[i] = in.model_ns;
	}
	reis_group_close(g);
	free(out);
}

int main(void)
{
	struct times t[RUNS];
	struct data d;
	unsigned m, k;

	memset(&d, 0, sizeof(d));
	make_data(&d);
	for (m = 1; m <= 2; m++) {
		for (k = 0; k < RUNS; k++)
			run(&d, m, &t[k]);
		printf("%u drive(s), %s path: search %llu ns (repeat %llu), SLS %llu ns "
		       "(repeat %llu)\n", m, getenv("ISP_PATH") ? getenv("ISP_PATH") : "default",
		       (unsigned long long)t[0].search[0], (unsigned long long)t[0].search[1],
		       (unsigned long long)t[0].sls[0], (unsigned long long)t[0].sls[1]);
		CHECK(t[0].search[0] > 0 && t[0].sls[0] > 0);
		/* a repeat starts on the idle drive: no queueing behind the first */
		CHECK_EQ_U64(t[0].search[1], t[0].search[0]);
		CHECK_EQ_U64(t[0].sls[1], t[0].sls[0]);
		for (k = 1; k < RUNS; k++) {
			CHECK_EQ_U64(t[k].search[0], t[0].search[0]);
			CHECK_EQ_U64(t[k].search[1], t[0].search[1]);
			CHECK_EQ_U64(t[k].sls[0], t[0].sls[0]);
			CHECK_EQ_U64(t[k].sls[1], t[0].sls[1]);
		}
	}
	reis_queries_free(&d.q);
	reis_db_image_free(&d.img);
	free(d.rows);
	return t_result();
}
