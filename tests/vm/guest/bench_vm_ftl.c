/* SPDX-License-Identifier: MIT */
/*
 * bench_vm_ftl - the guest against the model in isp-timing=delay
 * (scripts/vm-bench-ftl.sh; docs/ftl.md, "Guest against model"): each
 * command's round trip seen by the guest beside the modeled latency the
 * drive put in its completion (DW0/DW1):
 *   1. ISP_NOOP at QD 1: the emulation floor (the model says 1 us);
 *   2. raw NVMe Read and Write (io_uring passthrough, /dev/ng0n1), 4 KiB
 *      and 128 KiB, random, at QD 1 and QD 16;
 *   3. REIS_SEARCH (16 queries, binary, over 10000 1024-bit codes) at QD 1
 *      and QD 16, each released after it completes; then 4 KiB random
 *      reads at QD 1 beside a stream of those searches (read-in-search);
 *   4. RecFlash SLS batches (libreis) at QD 1 and QD 16;
 *   5. fio 4 KiB random reads, block io_uring on /dev/nvme0n1 and
 *      io_uring_cmd on /dev/ng0n1, QD 1 and 16: fio's clat p50 / p99
 *      beside the model's mean over the same reads (the statistics log).
 * Classes 1-3 run twice: reaping with io_uring_wait_cqe (the guest sleeps
 * and under TCG pays its idle exit on every completion) and by polling the
 * completion ring (reap=poll, as latency benchmarks do: the vCPU stays
 * busy, so what is left is the drive's hold and the emulated doorbell and
 * interrupt).
 * Each class starts with two queues' worth of untimed commands (a ramp).
 * Per class: the error e = guest / model - 1 of every command, its median
 * and the p99 of |e|, over all commands and over those the model says take
 * 200 us or more (the target's), and the median guest - model gap.
 * Not a test: exits 0 unless a command fails.
 * Usage: bench_vm_ftl [commands per class]   (default 400)
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ftl_util.h"
#include "rf_util.h"

#define MAXQD 16
#define TID 98

struct sample {
	uint64_t model, guest;
};

static int reap_poll;	/* 1: spin on the completion ring (reap=poll) */

/* The next completion, waited for or polled per reap_poll. */
static struct pt_cmd *reap(struct pt_ring *r)
{
	struct io_uring_cqe *cqe;
	struct pt_cmd *pc;

	if (!reap_poll)
		return pt_reap(r);
	while (io_uring_peek_cqe(&r->ring, &cqe) != 0)
		;
	pc = io_uring_cqe_get_data(cqe);
	pc->res = cqe->res;
	pc->result = cqe->big_cqe[0];
	io_uring_cqe_seen(&r->ring, cqe);
	return pc;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The class's line: model and guest p50, errors over all and >= 200 us. */
static void report(const char *cls, unsigned qd, unsigned size, const struct sample *s,
		   unsigned n)
{
	double *e = calloc(n + 1, sizeof(*e)), *a = calloc(n + 1, sizeof(*a));
	double *e2 = calloc(n + 1, sizeof(*e2)), *a2 = calloc(n + 1, sizeof(*a2));
	uint64_t *m = calloc(n + 1, sizeof(*m)), *g = calloc(n + 1, sizeof(*g));
	uint64_t *gap = calloc(n + 1, sizeof(*gap));
	unsigned i, n2 = 0, worst = 0, p99, p99_2;

	REQUIRE(e && a && e2 && a2 && m && g && gap);
	for (i = 0; i < n; i++) {
		double x = s[i].model ? (double)s[i].guest / (double)s[i].model - 1 : 0;

		e[i] = x;
		a[i] = fabs(x);
		m[i] = s[i].model;
		g[i] = s[i].guest;
		gap[i] = s[i].guest > s[i].model ? s[i].guest - s[i].model : 0;
		if (fabs(x) > a[worst])
			worst = i;
		if (s[i].model >= 200000) {
			e2[n2] = x;
			a2[n2++] = fabs(x);
		}
	}
	/* where the tail comes from: the command, in completion order, of the
	 * largest |e| (a first command's cold start, or a host stall) */
	printf("@@BENCH-WORST class=%s reap=%s qd=%u size=%u i=%u model_us=%.1f guest_us=%.1f\n",
	       cls, reap_poll ? "poll" : "wait", qd, size, worst, s[worst].model / 1e3,
	       s[worst].guest / 1e3);
	qsort(e, n, sizeof(*e), cmp_dbl);
	qsort(a, n, sizeof(*a), cmp_dbl);
	qsort(e2, n2, sizeof(*e2), cmp_dbl);
	qsort(a2, n2, sizeof(*a2), cmp_dbl);
	qsort(m, n, sizeof(*m), cmp_u64);
	qsort(g, n, sizeof(*g), cmp_u64);
	qsort(gap, n, sizeof(*gap), cmp_u64);
	/* nearest rank: the smallest |e| that 99 % of the commands do not exceed */
	p99 = (n * 99 + 99) / 100 - 1;
	p99_2 = n2 ? (n2 * 99 + 99) / 100 - 1 : 0;
	printf("@@BENCH class=%s reap=%s qd=%u size=%u n=%u model_p50_us=%.1f guest_p50_us=%.1f "
	       "err_p50=%+.1f%% err_abs_p99=%.1f%% gap_p50_us=%.1f n200=%u err200_p50=%+.1f%% "
	       "err200_abs_p99=%.1f%%\n", cls, reap_poll ? "poll" : "wait", qd, size, n,
	       m[n / 2] / 1e3, g[n / 2] / 1e3,
	       100 * e[n / 2], 100 * a[p99], gap[n / 2] / 1e3, n2,
	       n2 ? 100 * e2[n2 / 2] : 0.0, n2 ? 100 * a2[p99_2] : 0.0);
	fflush(stdout);
	free(e);
	free(a);
	free(e2);
	free(a2);
	free(m);
	free(g);
	free(gap);
}

/* Fills the @i-th command of a class. */
typedef void (*mk_fn)(struct pt_cmd *c, unsigned i, void *arg);

/*
 * @n commands made by @mk at QD @qd on @r, each timed from its own submit,
 * after a ramp of two queues' worth in the same stream, untimed (fio's
 * ramp_time): the ramp's commands fault in the backing file's pages and the
 * workers' buffers, and at QD 16 its first burst of 16 at once has the
 * emulator's workers behind the model (each is timed from its own submit,
 * the model queues them) -- a start no command of the steady stream sees.
 */
static void run_qd(struct pt_ring *r, unsigned qd, unsigned n, mk_fn mk, void *arg,
		   struct sample *s, void (*after)(struct pt_cmd *c, void *arg))
{
	static struct pt_cmd cmd[MAXQD];
	static uint64_t t0[MAXQD];
	unsigned ramp = 2 * qd, total = n + ramp, sent = 0, done = 0, k;

	for (k = 0; k < qd && sent < total; k++, sent++) {
		mk(&cmd[k], sent, arg);
		REQUIRE(pt_queue(r, &cmd[k]) == 0);
		t0[k] = pt_now_ns();
		REQUIRE(io_uring_submit(&r->ring) == 1);
	}
	while (done < total) {
		struct pt_cmd *c = reap(r);
		uint64_t now = pt_now_ns();

		REQUIRE(c != NULL);
		k = (unsigned)(c - cmd);
		REQUIRE(c->res == 0);
		if (done >= ramp) {
			s[done - ramp].guest = now - t0[k];
			s[done - ramp].model = isp_wire_result_time_ns(c->result);
		}
		done++;
		if (after)
			after(c, arg);
		if (sent < total) {
			mk(c, sent++, arg);
			REQUIRE(pt_queue(r, c) == 0);
			t0[k] = pt_now_ns();
			REQUIRE(io_uring_submit(&r->ring) == 1);
		}
	}
}

struct rw_arg {
	uint8_t *buf;
	uint32_t bytes, lbs;
	int write;
	uint64_t rng, span;
};

static void mk_rw(struct pt_cmd *c, unsigned i, void *arg)
{
	struct rw_arg *a = arg;
	uint64_t off = synth_next(&a->rng) % (a->span / a->bytes) * a->bytes;

	(void)i;
	pt_rw(c, a->write, a->buf, off / a->lbs, a->bytes / a->lbs, a->lbs);
}

static void mk_noop(struct pt_cmd *c, unsigned i, void *arg)
{
	(void)i;
	(void)arg;
	pt_vendor(c, ISP_OP_NOOP, NULL, 0, 0);
}

struct search_arg {
	uint8_t *data;
	uint32_t len;
	struct pt_ring *rel;	/* releases go on their own ring */
};

static void mk_search(struct pt_cmd *c, unsigned i, void *arg)
{
	struct search_arg *a = arg;

	pt_vendor(c, ISP_OP_REIS_SEARCH, a->data, a->len, 7000 + i);	/* ticket */
}

static void after_search(struct pt_cmd *c, void *arg)
{
	struct search_arg *a = arg;
	struct pt_cmd rel;

	pt_vendor(&rel, ISP_OP_RESULT_RELEASE, NULL, 0, c->c.cdw12);
	REQUIRE(pt_run(a->rel, &rel) == 0);
}

static void bench_rw(struct pt_ring *r, uint32_t lbs, unsigned n, struct sample *s)
{
	static const unsigned qds[2] = { 1, 16 }, sizes[2] = { 4096, 131072 };
	struct rw_arg a;
	unsigned qi, si, w, cnt;

	memset(&a, 0, sizeof(a));
	a.buf = pt_alloc(131072);
	a.lbs = lbs;
	a.span = 48ull << 20;
	a.rng = 11;
	for (w = 0; w < 2; w++)
		for (si = 0; si < 2; si++)
			for (qi = 0; qi < 2; qi++) {
				a.write = (int)w;
				a.bytes = sizes[si];
				cnt = si ? n / 4 : n;
				run_qd(r, qds[qi], cnt, mk_rw, &a, s, NULL);
				report(w ? "write" : "read", qds[qi], sizes[si], s, cnt);
			}
	free(a.buf);
}

/*
 * 4 KiB random reads at QD 1 while a stream of searches (QD 1, each
 * released as it completes) holds the planes, on one ring: a read that
 * lands on a plane a search has booked waits behind it in the model, and
 * the guest should see that wait. The releases go on the same ring so
 * that nothing synchronous sits between a read's completion and its reap.
 */
#define RD_RAMP 8	/* reads untimed while the stream starts (run_qd()) */

static void bench_read_in_search(struct pt_ring *r, struct search_arg *sa, uint32_t lbs,
				 unsigned n, struct sample *s)
{
	static struct pt_cmd sc, relc, rc;
	struct pt_cmd *c;
	struct rw_arg ra;
	unsigned done = 0, si = 0;
	uint64_t t_rd;

	memset(&ra, 0, sizeof(ra));
	ra.buf = pt_alloc(4096);
	ra.bytes = 4096;
	ra.lbs = lbs;
	ra.span = 48ull << 20;
	ra.rng = 17;
	mk_search(&sc, si++, sa);
	REQUIRE(pt_queue(r, &sc) == 0);
	mk_rw(&rc, 0, &ra);
	REQUIRE(pt_queue(r, &rc) == 0);
	t_rd = pt_now_ns();
	REQUIRE(io_uring_submit(&r->ring) == 2);
	for (;;) {
		uint64_t now;

		c = reap(r);
		now = pt_now_ns();
		REQUIRE(c != NULL && c->res == 0);
		if (c == &rc) {
			if (done >= RD_RAMP) {	/* the stream's start is untimed */
				s[done - RD_RAMP].guest = now - t_rd;
				s[done - RD_RAMP].model = isp_wire_result_time_ns(c->result);
			}
			if (++done == n + RD_RAMP)
				break;
			mk_rw(&rc, 0, &ra);
			REQUIRE(pt_queue(r, &rc) == 0);
			t_rd = pt_now_ns();
		} else if (c == &sc) {
			pt_vendor(&relc, ISP_OP_RESULT_RELEASE, NULL, 0, sc.c.cdw12);
			REQUIRE(pt_queue(r, &relc) == 0);
		} else {
			mk_search(&sc, si++, sa);
			REQUIRE(pt_queue(r, &sc) == 0);
		}
		REQUIRE(io_uring_submit(&r->ring) == 1);
	}
	c = reap(r);	/* the stream's last search, or its release */
	REQUIRE(c != NULL && c->res == 0);
	if (c == &sc) {
		pt_vendor(&relc, ISP_OP_RESULT_RELEASE, NULL, 0, sc.c.cdw12);
		REQUIRE(pt_run(r, &relc) == 0);
	}
	report("read-in-search", 1, 4096, s, n);
	free(ra.buf);
}

static void bench_search(struct pt_ring *r, unsigned n, struct sample *s)
{
	static const unsigned qds[2] = { 1, 16 };
	struct isp_wire_reis_search sr;
	struct reis_db_image img;
	struct reis_queries q;
	struct search_arg a;
	struct reis_dev *dev;
	struct pt_ring rel;
	unsigned qi;

	REQUIRE(reis_open(PT_CHAR_DEV, 0, &dev) == 0);
	ftl_db(dev, &img, &q);
	memset(&sr, 0, sizeof(sr));
	sr.did = FTL_DID;
	sr.nq = FTL_NQ;
	sr.k = 10;
	sr.flags = ISP_REIS_SF_NO_RERANK;
	sr.dim = FTL_DIM;
	a.len = (uint32_t)(sizeof(sr) + FTL_NQ * FTL_DIM / 8);
	a.data = pt_alloc(a.len);
	memcpy(a.data, &sr, sizeof(sr));
	memcpy(a.data + sizeof(sr), q.bin, FTL_NQ * FTL_DIM / 8);
	REQUIRE(pt_open(&rel, NULL, 4) == 0);
	a.rel = &rel;
	for (qi = 0; qi < 2; qi++) {
		run_qd(r, qds[qi], n / 4, mk_search, &a, s, after_search);
		report("reis-search", qds[qi], a.len, s, n / 4);
	}
	bench_read_in_search(r, &a, ftl_lba_bytes(), n / 2, s);
	pt_close(&rel);
	reis_db_delete(dev, FTL_DID);
	reis_close(dev);
	free(a.data);
}

static uint64_t sls_done_ns[MAXQD];

/* Completion callback: when the library saw the batch done. */
static void sls_cb(struct reis_rf_sls_op *op, void *arg)
{
	(void)op;
	*(uint64_t *)arg = pt_now_ns();
}

static void bench_sls(unsigned n, struct sample *s)
{
	static struct rf_batch bt[MAXQD];
	static struct reis_rf_sls_op op[MAXQD];
	static float out[MAXQD][32 * 32];
	static const unsigned qds[2] = { 1, 16 };
	uint64_t t0[MAXQD];
	struct reis_dev *dev;
	struct rf_tbl tbl;
	unsigned qi, k, sent, done;

	REQUIRE(reis_open(PT_CHAR_DEV, 0, &dev) == 0);
	REQUIRE(rf_tbl_make(&tbl, TID, 20000, 32, REIS_RF_FP32, REIS_RF_RECFLASH, 33) == 0);
	reis_rf_delete(dev, TID);
	REQUIRE(rf_tbl_deploy(dev, &tbl, NULL) == 0);
	for (qi = 0; qi < 2; qi++) {
		sent = done = 0;
		for (k = 0; k < qds[qi]; k++, sent++) {
			rf_batch_make(&bt[k], sent, 32, 12, 0, 20000, 0);
			reis_rf_sls_op_init(&op[k], TID, 32, &bt[k].b, 0, out[k]);
			op[k].cb = sls_cb;
			op[k].cb_arg = &sls_done_ns[k];
			t0[k] = pt_now_ns();
			REQUIRE(reis_rf_sls_submit(dev, &op[k]) == 0);
		}
		while (done < n / 4) {
			REQUIRE(reis_wait(dev, 1, -1) >= 0);
			for (k = 0; k < qds[qi] && done < n / 4; k++) {
				if (!reis_rf_sls_done(&op[k]) || !t0[k])
					continue;
				REQUIRE(op[k].err == 0);
				s[done].guest = sls_done_ns[k] - t0[k];
				s[done].model = op[k].cpl.time_ns;
				done++;
				t0[k] = 0;
				rf_batch_free(&bt[k]);
				if (sent < n / 4) {
					rf_batch_make(&bt[k], sent++, 32, 12, 0, 20000, 0);
					reis_rf_sls_op_init(&op[k], TID, 32, &bt[k].b, 0, out[k]);
					op[k].cb = sls_cb;
					op[k].cb_arg = &sls_done_ns[k];
					t0[k] = pt_now_ns();
					REQUIRE(reis_rf_sls_submit(dev, &op[k]) == 0);
				}
			}
		}
		for (k = 0; k < qds[qi]; k++)
			if (t0[k]) {
				REQUIRE(reis_rf_sls_wait(dev, &op[k], -1) == 0);
				rf_batch_free(&bt[k]);
			}
		report("rf-sls", qds[qi], 32 * 12, s, n / 4);
	}
	reis_rf_delete(dev, TID);
	reis_close(dev);
}

/* fio's clat p50 / p99 beside the model's mean over the same reads. */
static void bench_fio(const char *dev, const char *engine, unsigned qd)
{
	struct isp_wire_stats a, b;
	char cmd[512], line[512];
	double p50 = -1, p99 = -1, mean = -1;
	FILE *p;

	if (access("/bin/fio", X_OK)) {
		printf("@@BENCH class=fio-%s skipped (no fio in the image)\n", engine);
		return;
	}
	snprintf(cmd, sizeof(cmd), "fio --name=r --filename=%s --ioengine=%s %s --rw=randread "
		 "--bs=4k --iodepth=%u --size=48M --runtime=3 --time_based --randseed=3 "
		 "--eta=never --output-format=json %s 2>/dev/null | "
		 "sed -n -e '/\"clat_ns\"/,/\"percentile\"/s/.*\"mean\" : \\([0-9.]*\\).*/mean \\1/p' "
		 "-e 's/.*\"50.000000\" : \\([0-9]*\\).*/p50 \\1/p' "
		 "-e 's/.*\"99.000000\" : \\([0-9]*\\).*/p99 \\1/p'", dev, engine,
		 strcmp(engine, "io_uring_cmd") ? "" : "--cmd_type=nvme", qd,
		 /* O_DIRECT for the block device only: the char device takes none
		  * (test_vm_fio_load's io_uring_cmd line has none either) */
		 strcmp(engine, "io_uring_cmd") ? "--direct=1" : "");
	ftl_stats(&a);
	p = popen(cmd, "r");
	REQUIRE(p);
	while (fgets(line, sizeof(line), p)) {
		if (p50 < 0)
			sscanf(line, "p50 %lf", &p50);
		if (p99 < 0)
			sscanf(line, "p99 %lf", &p99);
		if (mean < 0)
			sscanf(line, "mean %lf", &mean);
	}
	pclose(p);
	ftl_stats(&b);
	printf("@@BENCH class=fio-%s qd=%u reads=%llu fio_clat_mean_us=%.1f fio_p50_us=%.1f "
	       "fio_p99_us=%.1f model_mean_us=%.1f err_mean=%+.1f%%\n", engine, qd,
	       (unsigned long long)(b.ftl_reads - a.ftl_reads), mean / 1e3, p50 / 1e3, p99 / 1e3,
	       b.ftl_reads > a.ftl_reads ? (double)(b.ftl_read_model_ns - a.ftl_read_model_ns) /
	       (double)(b.ftl_reads - a.ftl_reads) / 1e3 : 0.0,
	       b.ftl_reads > a.ftl_reads ? 100 * (mean / ((double)(b.ftl_read_model_ns -
	       a.ftl_read_model_ns) / (double)(b.ftl_reads - a.ftl_reads)) - 1) : 0.0);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 400;
	struct isp_wire_identify *id = pt_alloc(sizeof(*id));
	struct sample *s;
	struct pt_ring r;

	if (n < 16 || n > 100000)
		n = 400;
	s = calloc(n, sizeof(*s));
	REQUIRE(s);
	REQUIRE(pt_open(&r, NULL, 64) == 0);
	REQUIRE(pt_isp_identify(&r, id) == 0);
	printf("@@BENCH preset=%s delay=%d ftl=%d\n", id->preset,
	       !!(id->caps & ISP_CAP_TIMING_DELAY), !!(id->caps & ISP_CAP_FTL));
	for (reap_poll = 0; reap_poll < 2; reap_poll++) {
		run_qd(&r, 1, n, mk_noop, NULL, s, NULL);
		report("noop", 1, 0, s, n);
		bench_rw(&r, ftl_lba_bytes(), n, s);
		bench_search(&r, n, s);
	}
	reap_poll = 0;	/* libreis waits: SLS is reaped as an application would */
	bench_sls(n, s);
	bench_fio(PT_BLOCK_DEV, "io_uring", 1);
	bench_fio(PT_BLOCK_DEV, "io_uring", 16);
	bench_fio(PT_CHAR_DEV, "io_uring_cmd", 1);
	bench_fio(PT_CHAR_DEV, "io_uring_cmd", 16);
	pt_close(&r);
	free(s);
	free(id);
	return 0;
}
