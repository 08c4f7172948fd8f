/* SPDX-License-Identifier: MIT */
/*
 * bench_vm_latency - round trip of the vendor path against a plain read,
 * through the same io_uring passthrough path on /dev/ng0n1, and of a
 * REIS search, at QD 1, 4, 16 and 32 in the same guest:
 *   1. ISP_NOOP;
 *   2. a 4 KiB NVMe Read (opcode 02h);
 *   3. REIS_SEARCH (libreis, asynchronous): brute force over a generated
 *      database of SEARCH_N x SEARCH_DIM-bit codes, one query, k = 10,
 *      INT8 rerank; a quarter of the iterations.
 * Prints mean, p50 and p99 latency in microseconds and IOPS. Not a
 * pass/fail test (it exits 0 unless a command fails).
 * Usage: bench_vm_latency [iterations]   (default 2000)
 */
#include "libreis_tools.h"
#include "nvme_pt.h"

#define MAXQD 32
#define SEARCH_N 20000u
#define SEARCH_DIM 512u

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One line per run: latency percentiles of @lat[0..n) and IOPS over @ns. */
static void report(const char *name, unsigned qd, uint64_t *lat, unsigned n, uint64_t ns)
{
	uint64_t sum = 0;
	unsigned i;

	qsort(lat, n, sizeof(*lat), cmp_u64);
	for (i = 0; i < n; i++)
		sum += lat[i];
	printf("%-14s QD%-3u n=%-6u mean %8.1f us  p50 %8.1f us  p99 %8.1f us  %9.0f IOPS\n",
	       name, qd, n, sum / 1000.0 / n, lat[n / 2] / 1000.0, lat[(n * 99) / 100] / 1000.0,
	       n * 1e9 / (double)ns);
}

static int bench(struct pt_ring *r, const char *name, int isp, unsigned qd,
		 unsigned iters, uint32_t lba_bytes)
{
	struct pt_cmd pc[MAXQD];
	uint64_t t0[MAXQD], *lat = calloc(iters, sizeof(*lat));
	uint8_t *buf[MAXQD];
	unsigned issued = 0, done = 0, i;
	uint64_t start;

	if (!lat)
		return 1;
	for (i = 0; i < qd; i++)
		buf[i] = pt_alloc(4096);

	start = pt_now_ns();
	for (i = 0; i < qd && issued < iters; i++, issued++) {
		if (isp)
			pt_vendor(&pc[i], ISP_OP_NOOP, NULL, 0, 0);
		else
			pt_rw(&pc[i], 0, buf[i], (uint64_t)i * 8, 4096 / lba_bytes, lba_bytes);
		pt_queue(r, &pc[i]);
		t0[i] = pt_now_ns();
	}
	io_uring_submit(&r->ring);
	while (done < issued) {
		struct pt_cmd *c = pt_reap(r);

		if (!c)
			return 1;
		i = (unsigned)(c - pc);
		lat[done++] = pt_now_ns() - t0[i];
		if (c->res != 0) {
			fprintf(stderr, "%s: status %d\n", name, c->res);
			return 1;
		}
		if (issued < iters) {
			issued++;
			pt_queue(r, c);
			t0[i] = pt_now_ns();
			io_uring_submit(&r->ring);
		}
	}
	report(name, qd, lat, iters, pt_now_ns() - start);
	for (i = 0; i < qd; i++)
		free(buf[i]);
	free(lat);
	return 0;
}

/* QD searches kept in flight: each completion submits the next. */
struct sbench {
	struct reis_dev *dev;
	struct reis_search_req sr[MAXQD];
	struct reis_queries q[MAXQD];
	struct reis_search_opts so;
	uint64_t t0[MAXQD], *lat;
	unsigned issued, done, iters, fail;
};

static void s_submit(struct sbench *b, unsigned i)
{
	b->issued++;
	b->t0[i] = pt_now_ns();
	if (reis_search_submit(b->dev, &b->sr[i], REIS_OP_SEARCH, &b->so, &b->q[i],
			       NULL, NULL))
		b->fail = 1;
}

static int s_bench(struct sbench *b, unsigned qd, unsigned iters)
{
	uint64_t start = pt_now_ns();
	unsigned i;

	b->lat = calloc(iters, sizeof(*b->lat));
	if (!b->lat)
		return 1;
	b->issued = b->done = b->fail = 0;
	b->iters = iters;
	memset(b->sr, 0, sizeof(b->sr));
	for (i = 0; i < qd && b->issued < iters; i++)
		s_submit(b, i);
	while (b->done < b->issued && !b->fail) {
		if (reis_wait(b->dev, 1, 60000) < 0)
			b->fail = 1;
		for (i = 0; i < qd && !b->fail; i++) {
			struct reis_search_req *sr = &b->sr[i];

			if (!b->t0[i] || !reis_search_req_done(sr))
				continue;
			b->lat[b->done++] = pt_now_ns() - b->t0[i];
			b->t0[i] = 0;
			if (sr->err) {
				fprintf(stderr, "REIS_SEARCH: %s\n", sr->msg);
				b->fail = 1;
				break;
			}
			reis_search_result_free(&sr->res);
			memset(sr, 0, sizeof(*sr));
			if (b->issued < iters)
				s_submit(b, i);
		}
	}
	if (!b->fail)
		report("REIS_SEARCH", qd, b->lat, b->done, pt_now_ns() - start);
	free(b->lat);
	return b->fail;
}

/* A generated brute-force database (random codes, seeded) on the drive. */
static int s_setup(struct sbench *b, uint8_t **bin, int8_t **i8)
{
	struct reis_db_image img;
	uint64_t s = 42, i;
	char err[256];

	*bin = malloc((size_t)SEARCH_N * SEARCH_DIM / 8);
	*i8 = malloc((size_t)SEARCH_N * SEARCH_DIM);
	if (!*bin || !*i8 || reis_open(PT_CHAR_DEV, 0, &b->dev))
		return 1;
	for (i = 0; i < (uint64_t)SEARCH_N * SEARCH_DIM / 8; i++)
		(*bin)[i] = (uint8_t)((s = s * 6364136223846793005ull + 1442695040888963407ull) >> 56);
	for (i = 0; i < (uint64_t)SEARCH_N * SEARCH_DIM; i++)
		(*i8)[i] = (int8_t)((s = s * 6364136223846793005ull + 1442695040888963407ull) >> 56);
	memset(&img, 0, sizeof(img));
	img.did = 77;
	img.kind = REIS_DB_BF;
	img.flags = REIS_DBF_INT8;
	img.dim = SEARCH_DIM;
	img.n = SEARCH_N;
	img.metric = REIS_METRIC_IP;
	snprintf(img.name, sizeof(img.name), "vm-bench");
	img.bin = *bin;
	img.int8 = *i8;
	if (reis_db_image_check(&img, err, sizeof(err)) || reis_db_deploy(b->dev, &img, NULL)) {
		fprintf(stderr, "REIS deploy: %s %s\n", err, reis_last_error(b->dev));
		return 1;
	}
	memset(&b->so, 0, sizeof(b->so));
	b->so.did = img.did;
	b->so.k = 10;
	for (i = 0; i < MAXQD; i++) {
		uint64_t e = (i * 7919) % SEARCH_N;

		b->q[i].nq = 1;
		b->q[i].dim = SEARCH_DIM;
		b->q[i].bin = *bin + e * (SEARCH_DIM / 8);
		b->q[i].int8 = *i8 + e * SEARCH_DIM;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned iters = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 2000;
	unsigned qds[] = { 1, 4, 16, 32 };
	static struct sbench sb;
	struct pt_ring r;
	uint8_t *bin = NULL;
	int8_t *i8 = NULL;
	int ret = 0;
	unsigned i;

	if (iters < 16)
		iters = 16;
	if (pt_open(&r, NULL, 64)) {
		perror(PT_CHAR_DEV);
		return 1;
	}
	printf("@@BENCH latency, io_uring passthrough on %s, %u commands each\n",
	       PT_CHAR_DEV, iters);
	for (i = 0; i < 4; i++) {
		ret |= bench(&r, "ISP_NOOP", 1, qds[i], iters, 512);
		ret |= bench(&r, "NVMe read 4K", 0, qds[i], iters, 512);
	}
	pt_close(&r);
	if (s_setup(&sb, &bin, &i8)) {
		fprintf(stderr, "REIS_SEARCH: cannot set up the database\n");
		ret = 1;
	} else {
		printf("@@BENCH REIS_SEARCH: brute force, %u x %u bits, k = 10, one query per "
		       "command\n", SEARCH_N, SEARCH_DIM);
		for (i = 0; i < 4; i++)
			ret |= s_bench(&sb, qds[i], iters / 4 < 16 ? 16 : iters / 4);
		reis_db_delete(sb.dev, 77);
	}
	if (sb.dev)
		reis_close(sb.dev);
	free(bin);
	free(i8);
	return ret;
}
