/* SPDX-License-Identifier: MIT */
/*
 * bench_vm_group - the device group measured in the VM (scripts/
 * vm-bench-group.sh boots it with ISP_DRIVES=8): for groups of the first
 * 1, 2, 4 and 8 ISP drives, one REIS database sharded over them and
 * batches of queries scattered to all: queries per second and batch
 * latency, modeled (the slowest member's modeled time) and wall (this
 * guest), the host's merge time; one RecFlash table sharded by rows and
 * its bags. Then the scheduled mode over the host CPU and all drives, for
 * REIS and RecFlash: the batch ratio found by calibration and the
 * Table-I-style summary (docs/group.md). The host's share reads its data
 * from the members' namespaces with NVMe Reads. Args: [ENTRIES [BATCHES]].
 * Prints @@BENCH lines; a benchmark, not a test (exit 0 unless it breaks,
 * or its modeled times are not the model's alone: see sweep_one()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "libreis_tools.h"
#include "reis_synth.h"
#include "rf_util.h"

#define DIM 256
#define NQB 64		/* queries per batch */
#define DID 0x7100
#define TID 0x7200
#define ROWS 100000
#define RDIM 64
#define NBAGS 256

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static struct reis_group *sub_group(unsigned m)
{
	const char *paths[REIS_GROUP_MAX];
	struct reis_group *all, *g;
	struct reis_group_member mi;
	unsigned i;

	REQUIRE(reis_group_discover(0, &all) == 0);
	for (i = 0; i < m; i++) {
		REQUIRE(reis_group_member_info(all, i, &mi) == 0);
		paths[i] = strdup(mi.name);
	}
	reis_group_close(all);
	REQUIRE(reis_group_open(paths, m, 0, &g) == 0);
	for (i = 0; i < m; i++)
		free((void *)paths[i]);
	return g;
}

/* The sweep's one-drive point (modeled): the scheduled runs' baseline. */
static double one_qps, one_bps;

/* Batch @b of @q on @g: its modeled time in ms (the merge's added to @merge). */
static double batch_model_ms(struct reis_group *g, const struct reis_queries *q, unsigned b,
			     double *merge)
{
	struct reis_queries sub = *q;
	struct reis_group_result r;
	struct reis_search_opts o;
	double ms;

	memset(&o, 0, sizeof(o));
	o.did = DID;
	o.k = 10;
	sub.nq = NQB;
	sub.bin = q->bin + (size_t)b * NQB * (DIM / 8);
	sub.int8 = q->int8 + (size_t)b * NQB * DIM;
	REQUIRE(reis_group_search(g, 0, &o, &sub, 0, &r) == 0);
	ms = r.search_ns / 1e6;
	if (merge)
		*merge += r.merge_ns / 1e6;
	reis_group_result_free(&r);
	return ms;
}

static void sweep_one(unsigned m, struct reis_db_image *img, const struct reis_queries *q,
		      unsigned batches, const struct rf_tbl *t, const struct rf_batch *bt)
{
	struct reis_group *g = sub_group(m);
	struct reis_rf_table d = rf_as_table(t);
	struct reis_group_sls_info si;
	double wall = 0, model = 0, merge = 0, wmax = 0, w0, sls_wall, first = 0, again;
	float *out = malloc((size_t)NBAGS * RDIM * sizeof(float));
	unsigned b;

	REQUIRE(out);
	REQUIRE(reis_group_db_deploy(g, img, NULL) == 0);
	for (b = 0; b < batches; b++) {
		w0 = now_ms();
		again = batch_model_ms(g, q, b, &merge);
		w0 = now_ms() - w0;
		wall += w0;
		if (w0 > wmax)
			wmax = w0;
		model += again;
		if (!b)
			first = again;
	}
	/*
	 * The same batch again, right after the last: its modeled time must
	 * not change. With isp-timing=annotate a guest that outruns the model
	 * submits it while the previous batch's flash operations are still
	 * reserved on the drive's clock, and queueing behind them enters its
	 * modeled latency (docs/group.md, "Measured in the VM").
	 */
	again = batch_model_ms(g, q, 0, NULL);
	if (again > first * 1.02 || again < first * 0.98) {
		fprintf(stderr, "bench_vm_group: %u drives: batch 0 modeled %.2f ms, again %.2f ms: "
			"modeled times include queueing behind earlier work (isp-timing=annotate "
			"and a guest faster than the model?); use ISP_TIMING=delay\n", m, first,
			again);
		exit(T_EXIT_FAIL);
	}
	REQUIRE(reis_group_rf_deploy(g, &d, NULL) == 0);
	w0 = now_ms();
	REQUIRE(reis_group_rf_sls(g, TID, ROWS, RDIM, &bt->b, 0, out, &si) == 0);
	sls_wall = now_ms() - w0;
	printf("@@BENCH group %u drives: %.0f q/s modeled, %.0f q/s wall; batch of %u: %.2f ms "
	       "modeled, %.2f ms wall (max %.2f); merge %.3f ms per batch (%.1f %% of wall); "
	       "SLS %u bags: %.0f bags/s modeled, %.0f bags/s wall, %llu B to host\n",
	       m, batches * NQB / (model / 1e3), batches * NQB / (wall / 1e3), NQB,
	       model / batches, wall / batches, wmax, merge / batches, 100 * merge / wall,
	       NBAGS, NBAGS / (si.model_ns / 1e9), NBAGS / (sls_wall / 1e3),
	       (unsigned long long)si.bytes_to_host);
	if (m == 1) {
		one_qps = batches * NQB / (model / 1e3);
		one_bps = NBAGS / (si.model_ns / 1e9);
	}
	REQUIRE(reis_group_db_delete(g, DID) == 0);
	REQUIRE(reis_group_rf_delete(g, TID) == 0);
	reis_group_close(g);
	free(out);
}

static void print_rep(const char *what, const struct reis_group_sched_report *rep, double one)
{
	printf("@@BENCH scheduled %s, host + %u drives: batch ratio %.2f (host batch %u, drive "
	       "batch %u); %.0f q/s vs host alone %.0f (x%.2f) and one drive %.0f (x%.2f); "
	       "processed in drives %.0f %%; bytes inside %.1f MB, to host %.2f MB (host block "
	       "reads %.1f ms wall); energy/query server %.2f mJ vs host alone %.2f mJ "
	       "(saving %.0f %%), dynamic %.3f vs %.3f mJ (saving %.0f %%); vs the sweep's "
	       "measured one drive (%.0f/s): x%.2f\n",
	       what, rep->nmembers, rep->ratio, rep->host_batch, rep->drive_batch, rep->qps,
	       rep->host_alone_qps, rep->speedup_vs_host, rep->one_drive_qps,
	       rep->speedup_vs_one_drive, 100 * rep->inside_share, rep->bytes_inside / 1e6,
	       rep->bytes_to_host / 1e6, rep->host.read_ns / 1e6, rep->server_mj_per_query,
	       rep->server_host_alone_mj_per_query, 100 * rep->server_energy_saving,
	       rep->mj_per_query, rep->host_alone_mj_per_query, 100 * rep->energy_saving,
	       one, one > 0 ? rep->qps / one : 0);
}

static void scheduled(unsigned m, struct reis_db_image *img, const struct reis_queries *q,
		      const struct rf_tbl *t, const struct rf_batch *bt)
{
	struct reis_group *g = sub_group(m);
	struct reis_rf_table d = rf_as_table(t);
	struct reis_group_sched_report rep;
	struct reis_group_sched_opts so;
	struct reis_group_result r;
	struct reis_search_opts o;
	float *out = malloc((size_t)NBAGS * RDIM * sizeof(float));

	REQUIRE(out);
	REQUIRE(reis_group_db_deploy(g, img, NULL) == 0);
	memset(&o, 0, sizeof(o));
	o.did = DID;
	o.k = 10;
	memset(&so, 0, sizeof(so));
	so.one_drive_qps = one_qps;	/* the sweep's: one baseline for both tables */
	REQUIRE(reis_group_sched_search(g, NULL, 0, &o, q, &so, &r, &rep) == 0);
	print_rep("REIS", &rep, one_qps);
	reis_group_result_free(&r);
	REQUIRE(reis_group_rf_deploy(g, &d, NULL) == 0);
	d.data = NULL;	/* the host reads the rows from the namespaces */
	so.batch = 64;
	so.one_drive_qps = one_bps;
	REQUIRE(reis_group_sched_sls(g, &d, &bt->b, 0, &so, out, &rep) == 0);
	print_rep("RecFlash", &rep, one_bps);
	REQUIRE(reis_group_db_delete(g, DID) == 0);
	REQUIRE(reis_group_rf_delete(g, TID) == 0);
	reis_group_close(g);
	free(out);
}

int main(int argc, char **argv)
{
	static const unsigned members[] = { 1, 2, 4, 8 };
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 20000;
	unsigned batches = argc > 2 ? (unsigned)atoi(argv[2]) : 4, i, nd;
	float *x, *qf;
	struct reis_build_opts bo;
	struct reis_db_image img;
	struct reis_queries q;
	struct reis_group *all;
	struct rf_tbl t;
	struct rf_batch bt;
	char err[256];
	double t0 = now_ms();

	if (n < 1000 || n > 2000000 || !batches || batches > 64)
		return fprintf(stderr, "usage: bench_vm_group [ENTRIES 1000..2000000 [BATCHES 1..64]]\n"), 2;
	if (reis_group_discover(0, &all))
		SKIP("no ISP drive");
	nd = reis_group_size(all);
	reis_group_close(all);
	x = synth_vectors(61, n, DIM, 40, 0.5f);
	qf = synth_vectors(62, batches * NQB, DIM, 40, 0.5f);
	REQUIRE(x && qf);
	memset(&bo, 0, sizeof(bo));
	bo.flags = REIS_BUILD_INT8;
	bo.kind = REIS_DB_BF;
	bo.did = DID;
	REQUIRE(reis_db_build(&bo, x, n, DIM, &img, err, sizeof(err)) == 0);
	REQUIRE(reis_encode_queries(img.quant, qf, batches * NQB, &q) == 0);
	REQUIRE(rf_tbl_make(&t, TID, ROWS, RDIM, REIS_RF_FP32, REIS_RF_RECFLASH, 63) == 0);
	rf_batch_make(&bt, 64, NBAGS, 40, 0, ROWS, 0);
	printf("@@BENCH device group in the VM: %u ISP drives; REIS brute force %u x %u-d, "
	       "k = 10, %u batches of %u queries; RecFlash %u x %u fp32 rows, %u bags of 40\n",
	       nd, n, DIM, batches, NQB, ROWS, RDIM, NBAGS);
	for (i = 0; i < sizeof(members) / sizeof(members[0]) && members[i] <= nd; i++)
		sweep_one(members[i], &img, &q, batches, &t, &bt);
	scheduled(nd, &img, &q, &t, &bt);
	printf("@@BENCH done in %.1f s\n", (now_ms() - t0) / 1e3);
	rf_batch_free(&bt);
	free(t.wire);
	reis_queries_free(&q);
	reis_db_image_free(&img);
	free(x);
	free(qf);
	return 0;
}
