/* SPDX-License-Identifier: MIT */
/*
 * test_reis_async - many searches in flight: hundreds of asynchronous
 * searches (random database, batch, k, options, documents) submitted at
 * once on a drive with worker threads, so commands complete out of order,
 * plus several threads doing the same on their own handles. Every result
 * must be exactly the reference result of its own queries: results never
 * mix. Tickets are random, non-zero and re-drawn on collision. A handle
 * closed with searches in flight ends them with -ECANCELED, no callback.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "libreis_tools.h"
#include "reis_cmp.h"
#include "reis_synth.h"

#define DIM 192
#define N 3000
#define NQ 256
#define NREQ 300
#define NTHREADS 3

static struct reis_db_image img[2];
static struct reis_queries q;

struct op {
	struct reis_search_req sr;
	struct reis_search_opts o;
	struct reis_queries sub;
	int ivf;
	unsigned calls;
};

static void op_cb(struct reis_search_req *sr, void *arg)
{
	struct op *op = arg;

	CHECK(sr == &op->sr);
	op->calls++;
}

static void make_op(struct op *op, uint64_t *rng)
{
	uint32_t first = (uint32_t)(synth_next(rng) % (NQ - 8)), nq = 1 + synth_next(rng) % 8;

	memset(&op->o, 0, sizeof(op->o));
	op->ivf = (int)(synth_next(rng) % 2);
	op->o.did = op->ivf ? 2 : 1;
	op->o.k = 1 + (uint32_t)(synth_next(rng) % 40);
	op->o.rerank_factor = (uint32_t)(synth_next(rng) % 12);
	if (synth_next(rng) % 3 == 0)
		op->o.flags |= REIS_SF_DOCS;
	if (synth_next(rng) % 4 == 0)
		op->o.flags |= REIS_SF_NO_RERANK;
	if (synth_next(rng) % 4 == 0) {
		op->o.flags |= REIS_SF_TAG;
		op->o.tag = (uint32_t)(synth_next(rng) % 3);
	}
	if (op->ivf)
		op->o.nprobe = 1 + (uint32_t)(synth_next(rng) % 20);
	op->sub.nq = nq;
	op->sub.dim = DIM;
	op->sub.bin = q.bin + (size_t)first * (DIM / 8);
	op->sub.int8 = q.int8 + (size_t)first * DIM;
	op->calls = 0;
}

/* Reference for @op; returns the number of differing hits. */
static unsigned verify(struct op *op)
{
	const struct reis_db_image *one[1] = { &img[op->ivf] };
	struct reis_search_result want;
	unsigned bad;

	if (op->sr.err) {
		fprintf(stderr, "search failed: %s\n", op->sr.msg);
		return 1;
	}
	REQUIRE(reis_ref_search(one, 1, op->ivf, &op->o, &op->sub, &want) == 0);
	bad = reis_cmp_results("async", &op->sr.res, &want, !!(op->o.flags & REIS_SF_DOCS));
	reis_search_result_free(&want);
	reis_search_result_free(&op->sr.res);
	return bad;
}

/* Submit @n ops at once (reaping when the queue is full), wait for all. */
static unsigned run_ops(struct reis_dev *dev, struct op *ops, unsigned n)
{
	unsigned i, bad = 0, peak = 0;

	for (i = 0; i < n; i++) {
		int ret;

		for (;;) {
			ret = reis_search_submit(dev, &ops[i].sr, ops[i].ivf ? REIS_OP_IVF_SEARCH :
						 REIS_OP_SEARCH, &ops[i].o, &ops[i].sub, op_cb,
						 &ops[i]);
			if (ret != -EBUSY)
				break;
			REQUIRE(reis_wait(dev, 1, -1) >= 0);
		}
		REQUIRE(ret == 0);
		if (reis_inflight(dev) > peak)
			peak = reis_inflight(dev);
	}
	for (i = 0; i < n; i++) {
		CHECK(reis_search_wait(dev, &ops[i].sr) == 0 || ops[i].sr.err);
		CHECK(reis_search_req_done(&ops[i].sr));
	}
	for (i = 0; i < n; i++) {
		CHECK_EQ_U64(ops[i].calls, 1);
		CHECK(ops[i].sr.ticket != 0);
		bad += verify(&ops[i]);
	}
	CHECK(peak >= 16);
	return bad;
}

struct thr {
	struct reis_dev *dev;
	uint64_t seed;
	unsigned bad;
};

static void *thread_main(void *arg)
{
	struct thr *t = arg;
	struct op *ops = calloc(100, sizeof(*ops));
	unsigned i;

	REQUIRE(ops);
	for (i = 0; i < 100; i++)
		make_op(&ops[i], &t->seed);
	t->bad = run_ops(t->dev, ops, 100);
	free(ops);
	return NULL;
}

int main(void)
{
	float *x = synth_vectors(41, N, DIM, 30, 0.5f), *qf = synth_vectors(42, NQ, DIM, 30, 0.5f);
	uint64_t *off, rng = 99, i;
	uint8_t *docs = synth_docs(43, N, 500, &off);
	uint32_t *tags = malloc(N * 4), t;
	struct reis_build_opts bo;
	struct reis_inproc_opts io;
	struct reis_dev *dev;
	struct op *ops = calloc(NREQ, sizeof(*ops));
	struct thr th[NTHREADS];
	pthread_t tid[NTHREADS];
	char err[256];

	REQUIRE(x && qf && docs && tags && ops);
	for (i = 0; i < N; i++)
		tags[i] = (uint32_t)(i % 3);
	/* Tickets: random and never zero. */
	for (i = 0; i < 100000; i++)
		CHECK(reis_ticket_new() != 0);
	memset(&bo, 0, sizeof(bo));
	bo.flags = REIS_BUILD_INT8;
	bo.docs = docs;
	bo.doc_offsets = off;
	bo.tags = tags;
	bo.did = 1;
	bo.kind = REIS_DB_BF;
	REQUIRE(reis_db_build(&bo, x, N, DIM, &img[0], err, sizeof(err)) == 0);
	bo.did = 2;
	bo.kind = REIS_DB_IVF;
	bo.nlist = 30;
	bo.km.max_iter = 5;
	REQUIRE(reis_db_build(&bo, x, N, DIM, &img[1], err, sizeof(err)) == 0);
	REQUIRE(reis_encode_queries(img[0].quant, qf, NQ, &q) == 0);

	memset(&io, 0, sizeof(io));
	io.workers = 4;
	io.qdepth = 64;
	REQUIRE(reis_open_inproc(&io, &dev) == 0);
	REQUIRE(reis_db_deploy(dev, &img[0], NULL) == 0);
	REQUIRE(reis_db_deploy(dev, &img[1], NULL) == 0);

	for (i = 0; i < NREQ; i++)
		make_op(&ops[i], &rng);
	CHECK_EQ_U64(run_ops(dev, ops, NREQ), 0);

	/* Several threads, one handle each, at the same time. */
	for (t = 0; t < NTHREADS; t++) {
		th[t].seed = 1000 + t;
		th[t].bad = 0;
		REQUIRE(reis_clone(dev, &th[t].dev) == 0);
		REQUIRE(pthread_create(&tid[t], NULL, thread_main, &th[t]) == 0);
	}
	for (t = 0; t < NTHREADS; t++) {
		pthread_join(tid[t], NULL);
		CHECK_EQ_U64(th[t].bad, 0);
		reis_close(th[t].dev);
	}

	/* A synchronous batch larger than one command still comes back whole. */
	{
		struct reis_search_opts o;
		struct reis_search_result got, want;
		const struct reis_db_image *one[1] = { &img[0] };
		struct reis_dev *small;
		struct reis_inproc_opts so;

		memset(&so, 0, sizeof(so));
		so.max_xfer = 16384;	/* 16 queries per command at 192-d */
		so.workers = 2;
		REQUIRE(reis_open_inproc(&so, &small) == 0);
		REQUIRE(reis_db_deploy(small, &img[0], NULL) == 0);
		memset(&o, 0, sizeof(o));
		o.did = 1;
		o.k = 20;
		o.flags = REIS_SF_DOCS;
		CHECK(reis_search_max_nq(small, DIM, 20, o.flags) < NQ);
		REQUIRE(reis_search(small, &o, &q, &got) == 0);
		REQUIRE(reis_ref_search(one, 1, 0, &o, &q, &want) == 0);
		CHECK_EQ_U64(reis_cmp_results("split batch", &got, &want, 1), 0);
		CHECK(got.ncmds >= 2 * (NQ / reis_search_max_nq(small, DIM, 20, o.flags)));
		reis_search_result_free(&got);
		reis_search_result_free(&want);
		reis_close(small);
	}

	/* Closed with searches in flight: they end with -ECANCELED, done,
	 * their buffers freed (ASan's leak check), no callback run. */
	for (i = 0; i < 4; i++) {
		ops[i].calls = 0;
		REQUIRE(reis_search_submit(dev, &ops[i].sr, ops[i].ivf ? REIS_OP_IVF_SEARCH :
					   REIS_OP_SEARCH, &ops[i].o, &ops[i].sub, op_cb,
					   &ops[i]) == 0);
	}
	reis_close(dev);
	for (i = 0; i < 4; i++) {
		CHECK(reis_search_req_done(&ops[i].sr));
		CHECK(ops[i].sr.err == -ECANCELED);
		CHECK_EQ_U64(ops[i].calls, 0);
		CHECK(ops[i].sr.payload == NULL && ops[i].sr.blob == NULL);
	}
	reis_queries_free(&q);
	reis_db_image_free(&img[0]);
	reis_db_image_free(&img[1]);
	free(ops);
	free(x);
	free(qf);
	free(docs);
	free(off);
	free(tags);
	return t_result();
}
