/* SPDX-License-Identifier: MIT */
/*
 * bench_vm_cs - what the standard path costs over the vendor path per API
 * call, at QD 1, in the guest of the isp=on,isp-cs=on boot
 * (scripts/vm-bench-cs.sh; docs/libreis.md, "The standard path"):
 *   1. find the NVM namespace by NSID; open it twice, on the vendor path
 *      and on the standard path (REIS_OPEN_CP: Memory Write, Execute
 *      Program, Memory Read on the memory and compute namespaces);
 *   2. deploy a brute-force and an IVF database (BF_N x DIM, INT8 rerank,
 *      documents) and a RecFlash table (SLS_ROWS x SLS_DIM fp32);
 *   3. per call kind: brute-force search (1 query, k 10), IVF search
 *      (nprobe 4), SLS (SLS_BAGS bags of SLS_LEN rows), documents (one
 *      DOC_READ of a hit's entry), ITERS calls on each path, alternating
 *      in blocks, each call's answer compared with the other path's first;
 *   4. per call kind and path: the guest round trip (wall time of the
 *      synchronous call: mean, p50, p99), the commands the drive counted
 *      per call and the modeled device time per call, summed over all of
 *      its commands (ISP_STATS model_ns before and after, the cost of the
 *      stats read itself taken off) beside the time the call reports
 *      (the SEARCH / Execute Program, + RESULT_READs on the vendor path).
 * Lines start with @@BENCH for the runner. Not a pass/fail test: exits 0
 * unless a call fails or the two paths answer differently.
 * Usage: bench_vm_cs [iterations]   (default 200)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cp_t.h"
#include "cs_util.h"
#include "libreis.h"
#include "libreis_tools.h"
#include "reis_cmp.h"
#include "reis_synth.h"
#include "rf_util.h"

#define DIM 128
#define BF_N 3000
#define NCQ 64
#define DID_BF 981
#define DID_IVF 982
#define TID 983
#define SLS_ROWS 4000
#define SLS_DIM 32
#define SLS_BAGS 16
#define SLS_LEN 20
#define BLOCK 10	/* calls per path before switching */

enum kind { K_BF, K_IVF, K_SLS, K_DOC, K_N };
static const char *const kind_name[K_N] = { "bf-search", "ivf-search", "sls", "doc-read" };

struct path {
	const char *name;
	struct reis_dev *dev;
	uint64_t *rt;			/* round trips, ns */
	unsigned n;
	uint64_t model_ns;		/* ISP_STATS model_ns over the calls */
	uint64_t cmds;			/* commands the drive counted */
	uint64_t reported_ns;		/* what the calls reported */
};

struct bench {
	struct reis_dev *stats_dev;	/* vendor handle: reads ISP_STATS */
	struct reis_queries q;
	struct rf_batch bt;
	uint32_t doc_entry;
	uint64_t stats_cost_ns;		/* one ISP_STATS read's model_ns */
	float ref_sums[SLS_BAGS * SLS_DIM];
	uint8_t ref_doc[4096];
	int ref_doc_len;
	struct reis_search_result ref[2];	/* the first answer of each search kind */
	int have_ref[K_N];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Every command the drive counted: vendor classes and standard ones. */
static uint64_t all_cmds(const struct reis_stats *s)
{
	uint64_t n = 0;
	unsigned i;

	for (i = 0; i < REIS_CLS_N; i++)
		n += s->cmds[i];
	for (i = 0; i < REIS_STD_CLS_N; i++)
		n += s->std_cmds[i];
	return n;
}

/* One call of @k on @p; its answer checked against the first one. */
static void call(struct bench *b, enum kind k, struct path *p)
{
	struct reis_search_opts so;
	struct reis_search_result r;
	struct reis_rf_sls_info in;
	float sums[SLS_BAGS * SLS_DIM];
	uint8_t doc[4096];
	uint64_t t0;
	int ret;

	memset(&so, 0, sizeof(so));
	so.k = 10;
	so.did = k == K_IVF ? DID_IVF : DID_BF;
	so.nprobe = k == K_IVF ? 4 : 0;
	t0 = now_ns();
	switch (k) {
	case K_BF:
	case K_IVF:
		ret = k == K_IVF ? reis_ivf_search(p->dev, &so, &b->q, &r) :
				   reis_search(p->dev, &so, &b->q, &r);
		p->rt[p->n++] = now_ns() - t0;
		if (ret)
			fprintf(stderr, "%s %s: %s\n", kind_name[k], p->name, reis_last_error(p->dev));
		REQUIRE(ret == 0);
		p->reported_ns += r.search_ns + r.read_ns;
		if (!b->have_ref[k]) {
			b->ref[k] = r;
			b->have_ref[k] = 1;
			b->doc_entry = r.hits[0].entry;
			return;
		}
		CHECK_EQ_U64(reis_cmp_results(kind_name[k], &r, &b->ref[k], 0), 0);
		reis_search_result_free(&r);
		return;
	case K_SLS:
		ret = reis_rf_sls(p->dev, TID, SLS_DIM, &b->bt.b, 0, sums, &in);
		p->rt[p->n++] = now_ns() - t0;
		REQUIRE(ret == 0);
		p->reported_ns += in.model_ns;
		if (!b->have_ref[k]) {
			memcpy(b->ref_sums, sums, sizeof(sums));
			b->have_ref[k] = 1;
		}
		CHECK(memcmp(sums, b->ref_sums, sizeof(sums)) == 0);
		return;
	default:
		ret = reis_doc_read(p->dev, DID_BF, b->doc_entry, doc, sizeof(doc));
		p->rt[p->n++] = now_ns() - t0;
		REQUIRE(ret > 0);
		p->reported_ns += reis_last_cpl(p->dev)->time_ns;
		if (!b->have_ref[k]) {
			memcpy(b->ref_doc, doc, (size_t)ret);
			b->ref_doc_len = ret;
			b->have_ref[k] = 1;
		}
		CHECK_EQ_U64(ret, b->ref_doc_len);
		CHECK(memcmp(doc, b->ref_doc, (size_t)ret) == 0);
	}
}

/* @iters calls of @k on each path in blocks of BLOCK, each block between
 * two ISP_STATS reads. */
static void run_kind(struct bench *b, enum kind k, struct path *ps, unsigned iters)
{
	struct reis_stats s0, s1;
	unsigned done = 0, i, j;

	for (i = 0; i < 2; i++) {
		ps[i].n = 0;
		ps[i].model_ns = ps[i].cmds = ps[i].reported_ns = 0;
	}
	call(b, k, &ps[0]);	/* warm up, and the reference answer */
	ps[0].n = 0;
	ps[0].reported_ns = 0;
	while (done < iters) {
		unsigned m = iters - done < BLOCK ? iters - done : BLOCK;

		for (i = 0; i < 2; i++) {
			REQUIRE(reis_stats(b->stats_dev, 0, &s0) == 0);
			for (j = 0; j < m; j++)
				call(b, k, &ps[i]);
			REQUIRE(reis_stats(b->stats_dev, 0, &s1) == 0);
			ps[i].model_ns += s1.model_ns - s0.model_ns - b->stats_cost_ns;
			ps[i].cmds += all_cmds(&s1) - all_cmds(&s0) - 1;
		}
		done += m;
	}
	for (i = 0; i < 2; i++) {
		struct path *p = &ps[i];
		uint64_t sum = 0;

		qsort(p->rt, p->n, sizeof(*p->rt), cmp_u64);
		for (j = 0; j < p->n; j++)
			sum += p->rt[j];
		printf("@@BENCH %-10s %-6s n=%-4u round trip mean %8.1f us p50 %8.1f us p99 %8.1f "
		       "us | drive: %.2f commands/call, modeled %8.1f us/call (all commands), "
		       "%8.1f us/call reported\n", kind_name[k], p->name, p->n,
		       sum / 1e3 / p->n, p->rt[p->n / 2] / 1e3, p->rt[(p->n * 99) / 100] / 1e3,
		       (double)p->cmds / p->n, p->model_ns / 1e3 / p->n,
		       p->reported_ns / 1e3 / p->n);
	}
	fflush(stdout);
}

static void deploy(struct reis_dev *dev, struct bench *b)
{
	float *x = synth_vectors(81, BF_N, DIM, 24, 0.5f), *qf = synth_vectors(82, 1, DIM, 24, 0.5f);
	float *cq = synth_vectors(83, NCQ, DIM, 24, 0.5f);
	uint64_t *off;
	uint8_t *docs = synth_docs(84, BF_N, 600, &off);
	struct reis_db_image bf, ivf;
	struct rf_tbl t;

	REQUIRE(x && qf && cq && docs);
	cp_t_build(&bf, x, BF_N, DIM, DID_BF, REIS_DB_BF, docs, off, 16, NULL, 0);
	cp_t_build(&ivf, x, BF_N, DIM, DID_IVF, REIS_DB_IVF, docs, off, 16, cq, NCQ);
	REQUIRE(reis_encode_queries(bf.quant, qf, 1, &b->q) == 0);
	reis_db_delete(dev, DID_BF);
	reis_db_delete(dev, DID_IVF);
	REQUIRE(reis_db_deploy(dev, &bf, NULL) == 0);
	REQUIRE(reis_db_deploy(dev, &ivf, NULL) == 0);
	REQUIRE(rf_tbl_make(&t, TID, SLS_ROWS, SLS_DIM, REIS_RF_FP32, REIS_RF_RECFLASH, 85) == 0);
	reis_rf_delete(dev, TID);
	REQUIRE(rf_tbl_deploy(dev, &t, NULL) == 0);
	rf_batch_make(&b->bt, 86, SLS_BAGS, SLS_LEN, 1, SLS_ROWS, 0);
	free(t.wire);
	reis_db_image_free(&bf);
	reis_db_image_free(&ivf);
	free(x);
	free(qf);
	free(cq);
	free(docs);
	free(off);
}

int main(int argc, char **argv)
{
	static struct bench b;
	struct path ps[2];
	struct reis_stats s0, s1;
	unsigned iters = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 200, x, k;
	char dev[32];

	if (!iters || iters > 100000)
		iters = 200;
	x = cs_ng_of(1);
	if (!x || !cs_ng_of(2) || !cs_ng_of(3))
		SKIP("no memory or compute namespace: boot with isp=on,isp-cs=on");
	snprintf(dev, sizeof(dev), "/dev/ng0n%u", x);
	memset(ps, 0, sizeof(ps));
	ps[0].name = "vendor";
	ps[1].name = "cp";
	REQUIRE(reis_open(dev, REIS_OPEN_VENDOR, &ps[0].dev) == 0);
	REQUIRE(reis_open(dev, REIS_OPEN_CP, &ps[1].dev) == 0);
	ps[0].rt = calloc(iters, sizeof(uint64_t));
	ps[1].rt = calloc(iters, sizeof(uint64_t));
	REQUIRE(ps[0].rt && ps[1].rt);
	b.stats_dev = ps[0].dev;
	deploy(ps[0].dev, &b);
	/* one ISP_STATS read's own model_ns, taken off each block's delta */
	REQUIRE(reis_stats(b.stats_dev, 0, &s0) == 0);
	REQUIRE(reis_stats(b.stats_dev, 0, &s1) == 0);
	b.stats_cost_ns = s1.model_ns - s0.model_ns;
	printf("@@BENCH bench_vm_cs: %s, preset %s, %u calls per kind and path, QD 1; "
	       "BF/IVF %u x %u INT8 with documents, SLS %u bags x %u rows of %u x %u fp32; "
	       "ISP_STATS read %" PRIu64 " ns modeled\n", dev, reis_dev_info(ps[0].dev)->preset,
	       iters, BF_N, DIM, SLS_BAGS, SLS_LEN, SLS_ROWS, SLS_DIM, b.stats_cost_ns);
	for (k = 0; k < K_N; k++)
		run_kind(&b, (enum kind)k, ps, iters);
	reis_search_result_free(&b.ref[K_BF]);
	reis_search_result_free(&b.ref[K_IVF]);
	reis_queries_free(&b.q);
	rf_batch_free(&b.bt);
	reis_db_delete(ps[0].dev, DID_BF);
	reis_db_delete(ps[0].dev, DID_IVF);
	reis_rf_delete(ps[0].dev, TID);
	reis_close(ps[1].dev);
	reis_close(ps[0].dev);
	free(ps[0].rt);
	free(ps[1].rt);
	return t_result();
}
