/* SPDX-License-Identifier: MIT */
/*
 * bench_vm_fabric - what NVMe/TCP passthru adds (docs/fabric.md), in the
 * compute VM of scripts/fabric-run.sh, in one run:
 *   1. ISP_NOOP round trips (raw io_uring passthrough, nvme_pt.h) on the
 *      local drive and on the first remote one, QD 1 and 16;
 *   2. REIS_SEARCH (libreis, asynchronous; brute force over SEARCH_N x
 *      SEARCH_DIM-bit codes, one query, k = 10, INT8 rerank) on the same
 *      two drives, QD 1 and 16;
 *   3. the per-command difference, remote minus local, at QD 1;
 *   4. REIS_SEARCH QPS with 1, 2, 4 remote drives searched at once (one
 *      thread and handle per drive, QD 16 each), then 4, 2, 1 again.
 * Prints mean, p50, p99 and IOPS per line. Not a pass/fail test (exits 0
 * unless a command fails). Usage: bench_vm_fabric [iterations] (2000).
 */
#include <pthread.h>

#include "fabric_util.h"
#include "nvme_pt.h"

#define MAXQD 16
#define SEARCH_N 8192u
#define SEARCH_DIM 512u
#define DID 7701

static uint8_t *bin;
static int8_t *i8;
static struct fab_group fg;
static unsigned ix[FAB_MAX];	/* member indices: the local drive first, then the remote ones */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorts @lat; prints one line; returns the mean in ns. */
static double report(const char *what, const char *where, unsigned qd, uint64_t *lat, unsigned n,
		     uint64_t ns)
{
	double sum = 0;
	unsigned i;

	qsort(lat, n, sizeof(*lat), cmp_u64);
	for (i = 0; i < n; i++)
		sum += (double)lat[i];
	printf("%-12s %-7s QD%-3u n=%-5u mean %8.1f us  p50 %8.1f us  p99 %8.1f us  %8.0f IOPS\n",
	       what, where, qd, n, sum / 1000.0 / n, lat[n / 2] / 1000.0,
	       lat[(n * 99) / 100] / 1000.0, n * 1e9 / (double)ns);
	return sum / n;
}

/* ISP_NOOP with @qd in flight, each completion resubmitted. */
static double noop(const char *path, const char *where, unsigned qd, unsigned iters)
{
	struct pt_cmd pc[MAXQD];
	uint64_t t0[MAXQD], *lat = calloc(iters, sizeof(*lat)), start;
	unsigned issued = 0, done = 0, i;
	struct pt_ring r;
	double mean;

	REQUIRE(lat && pt_open(&r, path, 64) == 0);
	start = pt_now_ns();
	for (i = 0; i < qd && issued < iters; i++, issued++) {
		pt_vendor(&pc[i], ISP_OP_NOOP, NULL, 0, 0);
		pt_queue(&r, &pc[i]);
		t0[i] = pt_now_ns();
	}
	io_uring_submit(&r.ring);
	while (done < issued) {
		struct pt_cmd *c = pt_reap(&r);

		REQUIRE(c && c->res == 0);
		i = (unsigned)(c - pc);
		lat[done++] = pt_now_ns() - t0[i];
		if (issued < iters) {
			issued++;
			pt_queue(&r, c);
			t0[i] = pt_now_ns();
			io_uring_submit(&r.ring);
		}
	}
	mean = report("ISP_NOOP", where, qd, lat, iters, pt_now_ns() - start);
	pt_close(&r);
	free(lat);
	return mean;
}

/* REIS_SEARCH with @qd in flight on @dev; fills @lat (may be NULL). */
static int searches(struct reis_dev *dev, unsigned qd, unsigned iters, uint64_t *lat)
{
	struct reis_search_req sr[MAXQD];
	struct reis_queries q[MAXQD];
	struct reis_search_opts so;
	uint64_t t0[MAXQD];
	unsigned issued = 0, done = 0, i;

	memset(&so, 0, sizeof(so));
	so.did = DID;
	so.k = 10;
	memset(sr, 0, sizeof(sr));
	for (i = 0; i < qd; i++) {
		uint64_t e = (i * 7919u) % SEARCH_N;

		q[i].nq = 1;
		q[i].dim = SEARCH_DIM;
		q[i].bin = bin + e * (SEARCH_DIM / 8);
		q[i].int8 = i8 + e * SEARCH_DIM;
		t0[i] = 0;
	}
	while (done < iters) {
		for (i = 0; i < qd; i++) {
			if (t0[i] && reis_search_req_done(&sr[i])) {
				if (sr[i].err) {
					fprintf(stderr, "REIS_SEARCH: %s\n", sr[i].msg);
					return -1;
				}
				if (lat)
					lat[done] = pt_now_ns() - t0[i];
				done++;
				t0[i] = 0;
				reis_search_result_free(&sr[i].res);
			}
			if (!t0[i] && issued < iters) {
				memset(&sr[i], 0, sizeof(sr[i]));
				t0[i] = pt_now_ns();
				if (reis_search_submit(dev, &sr[i], REIS_OP_SEARCH, &so, &q[i],
						       NULL, NULL))
					return -1;
				issued++;
			}
		}
		if (done < iters && reis_wait(dev, 1, 60000) < 0)
			return -1;
	}
	return 0;
}

static double search_lat(struct reis_dev *dev, const char *where, unsigned qd, unsigned iters)
{
	uint64_t *lat = calloc(iters, sizeof(*lat)), start = pt_now_ns();
	double mean;

	REQUIRE(lat && searches(dev, qd, iters, lat) == 0);
	mean = report("REIS_SEARCH", where, qd, lat, iters, pt_now_ns() - start);
	free(lat);
	return mean;
}

struct qps_arg {
	const char *path;
	unsigned iters;
	int ret;
};

static void *qps_thread(void *p)
{
	struct qps_arg *a = p;
	struct reis_dev *dev;

	a->ret = reis_open(a->path, 0, &dev);
	if (!a->ret) {
		a->ret = searches(dev, MAXQD, a->iters, NULL);
		reis_close(dev);
	}
	return NULL;
}

static void deploy(unsigned mi)
{
	struct reis_dev *dev = reis_group_dev(fg.g, mi);
	struct reis_db_image img;
	char err[256];

	memset(&img, 0, sizeof(img));
	img.did = DID;
	img.kind = REIS_DB_BF;
	img.flags = REIS_DBF_INT8;
	img.dim = SEARCH_DIM;
	img.n = SEARCH_N;
	img.metric = REIS_METRIC_IP;
	snprintf(img.name, sizeof(img.name), "fabric-bench");
	img.bin = bin;
	img.int8 = i8;
	reis_db_delete(dev, DID);
	if (reis_db_image_check(&img, err, sizeof(err)) || reis_db_deploy(dev, &img, NULL)) {
		fprintf(stderr, "deploy on %s: %s %s\n", fab_name(&fg.m[mi]), err,
			reis_last_error(dev));
		exit(T_EXIT_FAIL);
	}
}

int main(int argc, char **argv)
{
	unsigned iters = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 2000;
	unsigned qds[2] = { 1, 16 }, nrem, i, r, w, pass;
	double nl[2], nr[2], sl[2], sr[2];
	uint64_t s = 42, j;

	if (iters < 64 || iters > 1000000)
		iters = 2000;
	fab_group_open(&fg, 1, 1, 4);
	for (pass = 0, j = 0; pass < 2; pass++)
		for (i = 0; i < fg.n; i++)
			if ((fg.m[i].remote != 0) == (pass != 0))
				ix[j++] = i;
	nrem = fg.nremote;
	bin = malloc((size_t)SEARCH_N * SEARCH_DIM / 8);
	i8 = malloc((size_t)SEARCH_N * SEARCH_DIM);
	REQUIRE(bin && i8);
	for (j = 0; j < (uint64_t)SEARCH_N * SEARCH_DIM / 8; j++)
		bin[j] = (uint8_t)((s = s * 6364136223846793005ull + 1442695040888963407ull) >> 56);
	for (j = 0; j < (uint64_t)SEARCH_N * SEARCH_DIM; j++)
		i8[j] = (int8_t)((s = s * 6364136223846793005ull + 1442695040888963407ull) >> 56);
	for (i = 0; i < fg.n; i++)
		deploy(i);

	printf("@@BENCH fabric: local %s vs remote %s; ISP_NOOP %u commands, REIS_SEARCH "
	       "%u (brute force %u x %u bits, k 10, one query)\n", fg.m[ix[0]].name,
	       fg.m[ix[1]].name, iters, iters / 8, SEARCH_N, SEARCH_DIM);
	for (i = 0; i < 2; i++) {
		nl[i] = noop(fg.m[ix[0]].name, "local", qds[i], iters);
		nr[i] = noop(fg.m[ix[1]].name, "remote", qds[i], iters);
	}
	for (i = 0; i < 2; i++) {
		sl[i] = search_lat(reis_group_dev(fg.g, ix[0]), "local", qds[i], iters / 8);
		sr[i] = search_lat(reis_group_dev(fg.g, ix[1]), "remote", qds[i], iters / 8);
	}
	printf("@@BENCH the fabric adds per command at QD1: ISP_NOOP %+.1f us, REIS_SEARCH "
	       "%+.1f us; at QD16: %+.1f us, %+.1f us\n", (nr[0] - nl[0]) / 1000.0,
	       (sr[0] - sl[0]) / 1000.0, (nr[1] - nl[1]) / 1000.0, (sr[1] - sl[1]) / 1000.0);

	printf("@@BENCH REIS_SEARCH QPS over remote drives at once (QD%u each, %u searches "
	       "each; 1, 2, 4 then 4, 2, 1 drives, to show drift)\n", MAXQD, iters / 2);
	for (pass = 0; pass < 6; pass++) {
		r = 1u << (pass < 3 ? pass : 5 - pass);
		if (r > nrem)
			continue;
		struct qps_arg a[FAB_MAX];
		pthread_t th[FAB_MAX];
		uint64_t t0 = pt_now_ns(), ns;

		for (w = 0; w < r; w++) {
			a[w].path = fg.m[ix[1 + w]].name;
			a[w].iters = iters / 2;
			REQUIRE(pthread_create(&th[w], NULL, qps_thread, &a[w]) == 0);
		}
		for (w = 0; w < r; w++) {
			pthread_join(th[w], NULL);
			REQUIRE(a[w].ret == 0);
		}
		ns = pt_now_ns() - t0;
		printf("remote drives %u: %u searches in %.2f s: %.0f QPS\n", r, r * (iters / 2),
		       ns / 1e9, r * (iters / 2) * 1e9 / (double)ns);
	}
	for (i = 0; i < fg.n; i++)
		reis_db_delete(reis_group_dev(fg.g, ix[i]), DID);
	reis_group_close(fg.g);
	free(bin);
	free(i8);
	return 0;
}
