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
 *   4. REIS_SEARCH with more model work per command, to show how the
 *      drive's work spreads over the host cores: HEAVY_NQ queries per
 *      command over the database of 3. with rerank (compute-bound), and
 *      one query per command over the LONG_N-code database (binary only,
 *      memory-bound); QD 1, 4, 16 and 32 interleaved over HEAVY_ROUNDS
 *      rounds, the median over rounds of each QD's IOPS over QD 1's in
 *      the same round;
 *   5. 4 KiB reads at QD 1 alone, then while searches of LONG_NQ queries
 *      over a second database of LONG_N codes (binary only; about a second
 *      of model work each) run back to back on the libreis handle's own
 *      ring: how much a long ISP job delays plain reads (the reads' p50
 *      and p99 against idle).
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

static int s_bench(struct sbench *b, const char *name, unsigned qd, unsigned iters,
		   double *iops)
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
	if (!b->fail) {
		if (iops)
			*iops = b->done * 1e9 / (double)(pt_now_ns() - start);
		report(name, qd, b->lat, b->done, pt_now_ns() - start);
	}
	free(b->lat);
	return b->fail;
}

/* A seeded byte stream (64-bit LCG, top byte) for the generated codes. */
static uint8_t s_rand8(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint8_t)(*s >> 56);
}

/* Deploy a brute-force database of @n codes (INT8 section when @i8). */
static int s_deploy(struct reis_dev *dev, uint32_t did, const char *name, uint8_t *bin,
		    int8_t *i8, uint32_t n)
{
	struct reis_db_image img;
	char err[256] = "";

	memset(&img, 0, sizeof(img));
	img.did = did;
	img.kind = REIS_DB_BF;
	img.flags = i8 ? REIS_DBF_INT8 : 0;
	img.dim = SEARCH_DIM;
	img.n = n;
	img.metric = REIS_METRIC_IP;
	snprintf(img.name, sizeof(img.name), "%s", name);
	img.bin = bin;
	img.int8 = i8;
	if (reis_db_image_check(&img, err, sizeof(err)) || reis_db_deploy(dev, &img, NULL)) {
		fprintf(stderr, "REIS deploy %s: %s %s\n", name, err, reis_last_error(dev));
		return 1;
	}
	return 0;
}

#define LONG_NQ 512u
#define LONG_READS_MAX 200000u
#define LONG_N 400000u
#define LONG_DID 78u

/* The long searches' database: LONG_N random codes, no INT8 section. */
static uint8_t *s_long_setup(struct sbench *b)
{
	uint8_t *bin = malloc((size_t)LONG_N * SEARCH_DIM / 8);
	uint64_t s = 4242, i;

	if (!bin)
		return NULL;
	for (i = 0; i < (uint64_t)LONG_N * SEARCH_DIM / 8; i++)
		bin[i] = s_rand8(&s);
	if (s_deploy(b->dev, LONG_DID, "vm-bench-long", bin, NULL, LONG_N)) {
		free(bin);
		return NULL;
	}
	return bin;
}

#define HEAVY_ROUNDS 5u
#define HEAVY_CMDS 96u
#define HEAVY_NQ 16u

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * @h's searches (its options and per-slot queries set) at the queue
 * depths @qds interleaved over HEAVY_ROUNDS rounds (the host's other load
 * moves between rounds, less within one); per QD the median over rounds
 * of its IOPS over QD 1's in the same round.
 */
static int s_rounds(struct sbench *h, const char *name, const unsigned *qds, unsigned nqd)
{
	double iops[4][HEAVY_ROUNDS], ratio[HEAVY_ROUNDS];
	unsigned rd, j;
	int ret = 0;

	if (nqd > 4)
		return 1;
	for (rd = 0; rd < HEAVY_ROUNDS && !ret; rd++)
		for (j = 0; j < nqd && !ret; j++)
			ret = s_bench(h, name, qds[j], HEAVY_CMDS, &iops[j][rd]);
	if (ret)
		return ret;
	for (j = 1; j < nqd; j++) {
		printf("@@BENCH %s QD%u / QD1 IOPS, rounds", name, qds[j]);
		for (rd = 0; rd < HEAVY_ROUNDS; rd++) {
			ratio[rd] = iops[j][rd] / iops[0][rd];
			printf(" %.2f", ratio[rd]);
		}
		qsort(ratio, HEAVY_ROUNDS, sizeof(ratio[0]), cmp_double);
		printf(" -> median %.2fx\n", ratio[HEAVY_ROUNDS / 2]);
	}
	return 0;
}

/*
 * Searches with more model work per command than the guest's own path
 * under TCG: HEAVY_NQ queries a command over @b's 20000-code database
 * with the INT8 rerank (cache-resident: compute-bound), and one query a
 * command over the LONG_N codes at @codes (25 MB a query: bound by memory
 * bandwidth).
 */
static int s_heavy(struct sbench *b, const uint8_t *bin, const int8_t *i8,
		   const uint8_t *codes, const unsigned *qds, unsigned nqd)
{
	static struct sbench h;
	unsigned i;
	int ret;

	h.dev = b->dev;
	h.so = b->so;
	for (i = 0; i < MAXQD; i++) {
		uint64_t e = (i * 1031u) % (SEARCH_N - HEAVY_NQ);

		h.q[i].nq = HEAVY_NQ;
		h.q[i].dim = SEARCH_DIM;
		h.q[i].bin = bin + e * (SEARCH_DIM / 8);
		h.q[i].int8 = i8 + e * SEARCH_DIM;
	}
	printf("@@BENCH REIS_SEARCH/16q: brute force, %u x %u bits, %u queries per command, "
	       "k = 10, INT8 rerank; %u rounds of QD 1, 4, 16, 32, %u commands each\n",
	       SEARCH_N, SEARCH_DIM, HEAVY_NQ, HEAVY_ROUNDS, HEAVY_CMDS);
	ret = s_rounds(&h, "REIS_SEARCH/16q", qds, nqd);
	if (ret)
		return ret;
	h.so.did = LONG_DID;
	h.so.flags = REIS_SF_NO_RERANK;
	for (i = 0; i < MAXQD; i++) {
		uint64_t e = (i * 104729u) % LONG_N;

		h.q[i].nq = 1;
		h.q[i].bin = codes + e * (SEARCH_DIM / 8);
		h.q[i].int8 = NULL;
	}
	printf("@@BENCH REIS_SEARCH/big: brute force, %u x %u bits, one query per command, "
	       "k = 10, no rerank; %u rounds of QD 1, 4, 16, 32, %u commands each\n", LONG_N,
	       SEARCH_DIM, HEAVY_ROUNDS, HEAVY_CMDS);
	return s_rounds(&h, "REIS_SEARCH/big", qds, nqd);
}

/*
 * 4 KiB reads at QD 1 on @r while long searches over @codes (deployed by
 * s_long_setup()) keep the drive busy on @b's handle, back to back, until
 * @iters reads are done; the reads go on until the search in flight then
 * ends (at most LONG_READS_MAX).
 */
static int s_interfere(struct sbench *b, struct pt_ring *r, unsigned iters,
		       const uint8_t *codes)
{
	struct reis_search_opts so = b->so;
	struct reis_queries q;
	struct reis_search_req sr;
	uint64_t *lat = calloc(LONG_READS_MAX, sizeof(*lat)), start, t;
	uint8_t *buf = pt_alloc(4096);
	unsigned n = 0, searches = 0;
	struct pt_cmd pc;
	int fail = 0, busy = 0;

	if (!lat) {
		free(buf);
		return 1;
	}
	memset(&q, 0, sizeof(q));
	q.nq = LONG_NQ;		/* the first LONG_NQ codes, contiguous */
	q.dim = SEARCH_DIM;
	q.bin = codes;
	so.did = LONG_DID;
	so.flags = REIS_SF_NO_RERANK;
	start = pt_now_ns();
	while (!fail && n < LONG_READS_MAX && (busy || n < iters)) {
		if (!busy) {
			memset(&sr, 0, sizeof(sr));
			fail = reis_search_submit(b->dev, &sr, REIS_OP_SEARCH, &so, &q, NULL,
						  NULL) != 0;
			if (fail)
				fprintf(stderr, "long REIS_SEARCH: %s\n", reis_last_error(b->dev));
			busy = 1;
			searches++;
		}
		pt_rw(&pc, 0, buf, (uint64_t)(n % 64) * 8, 8, 512);
		t = pt_now_ns();
		if (pt_run(r, &pc)) {
			fprintf(stderr, "read during search: status %d\n", pc.res);
			fail = 1;
		}
		lat[n++] = pt_now_ns() - t;
		if (reis_poll(b->dev, 1) < 0)
			fail = 1;
		if (busy && reis_search_req_done(&sr)) {
			if (sr.err) {
				fprintf(stderr, "long REIS_SEARCH: %s\n", sr.msg);
				fail = 1;
			}
			reis_search_result_free(&sr.res);
			busy = 0;
		}
	}
	while (busy && !fail && !reis_search_req_done(&sr))
		fail = reis_wait(b->dev, 1, 60000) < 0;
	if (busy)
		reis_search_result_free(&sr.res);
	if (!fail) {
		printf("@@BENCH %u searches of %u queries on the libreis ring, %.1f ms each "
		       "(wall, mean)\n", searches, LONG_NQ,
		       (pt_now_ns() - start) / 1e6 / searches);
		report("read+search", 1, lat, n, pt_now_ns() - start);
	}
	free(buf);
	free(lat);
	return fail;
}

/* A generated brute-force database (random codes, seeded) on the drive. */
static int s_setup(struct sbench *b, uint8_t **bin, int8_t **i8)
{
	uint64_t s = 42, i;

	*bin = malloc((size_t)SEARCH_N * SEARCH_DIM / 8);
	*i8 = malloc((size_t)SEARCH_N * SEARCH_DIM);
	if (!*bin || !*i8 || reis_open(PT_CHAR_DEV, 0, &b->dev))
		return 1;
	for (i = 0; i < (uint64_t)SEARCH_N * SEARCH_DIM / 8; i++)
		(*bin)[i] = s_rand8(&s);
	for (i = 0; i < (uint64_t)SEARCH_N * SEARCH_DIM; i++)
		(*i8)[i] = (int8_t)s_rand8(&s);
	if (s_deploy(b->dev, 77, "vm-bench", *bin, *i8, SEARCH_N))
		return 1;
	memset(&b->so, 0, sizeof(b->so));
	b->so.did = 77;
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
	uint8_t *bin = NULL, *long_codes = NULL;
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
			ret |= s_bench(&sb, "REIS_SEARCH", qds[i], iters / 4 < 16 ? 16 : iters / 4,
				       NULL);
		long_codes = s_long_setup(&sb);
		if (!long_codes)
			ret = 1;
		else
			ret |= s_heavy(&sb, bin, i8, long_codes, qds, 4);
		if (long_codes && pt_open(&r, NULL, 64) == 0) {
			printf("@@BENCH 4 KiB reads, QD 1: idle, then beside long searches\n");
			ret |= bench(&r, "read idle", 0, 1, iters, 512);
			ret |= s_interfere(&sb, &r, iters, long_codes);
			pt_close(&r);
		} else {
			ret = 1;
		}
		if (long_codes)
			reis_db_delete(sb.dev, LONG_DID);
		free(long_codes);
		reis_db_delete(sb.dev, 77);
	}
	if (sb.dev)
		reis_close(sb.dev);
	free(bin);
	free(i8);
	return ret;
}
