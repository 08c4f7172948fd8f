/* SPDX-License-Identifier: MIT */
/*
 * test_vm_mixed_load - every kind of traffic at once for MIXED_SECS (30 s):
 *   1. deploy a REIS database and a RecFlash table; compute, on the host,
 *      the expected answer of NVAR search and NVAR SLS variants;
 *   2. measure each command class alone (QD 1): the idle worst case sets
 *      the stall bound (see stall_bound());
 *   3. six processes (fork), each its own handle, so its own io_uring ring
 *      on /dev/ng0n1 (and the guest's per-CPU NVMe queues): two keep QD 16
 *      searches in flight, two QD 16 SLS batches, one deploys, checks and
 *      deletes a second database and table in a loop, one does verified
 *      4 KiB O_DIRECT reads/writes on /dev/nvme0n1;
 *   4. a short warm-up round, "@@ISP-RSS-MARK before", the timed round,
 *      "@@ISP-RSS-MARK after" (run-vm-tests.sh reads QEMU's VmRSS at each);
 *   5. asserts: every answer equals its precomputed one, no command over
 *      the bound, and no leak: DRAM in use, free flash and the result
 *      tickets the drive still accepts (ticket_probe()) are as before.
 * Prints ops/s and worst latency per class (docs/benchmarks.md, "Mixed
 * load"). Exit 77 without the drive or one of its engines.
 */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "libreis.h"
#include "libreis_tools.h"
#include "nvme_pt.h"
#include "reis_cmp.h"
#include "reis_synth.h"
#include "mixed_t.h"
#include "rf_util.h"

#define NPROC 6		/* 2 search, 2 SLS, churn, block I/O */
#define BLK 4096
#define BLK_OFF (44ull << 20)	/* away from the other tests' block ranges */
#define BLK_N 1024
/* Worst case a command can wait for: every other command in flight ahead
 * of it (4 x QD 16 plus the churn and block processes), each at the idle
 * worst of an ISP command, times STALL_FACTOR, and never below
 * STALL_FLOOR_NS: on the shared 2-core TCG host the worst call of a class
 * was 0.05-1.09 s in the measured rounds, up to 80x its loaded mean
 * (docs/benchmarks.md, "Mixed load"): the host's scheduler, not the drive.
 * A command that never completes fails the run through TEST_TIMEOUT. */
#define INFLIGHT (4 * QD + 2)
#define STALL_FACTOR 8
#define STALL_FLOOR_NS 1000000000ull

enum cls { C_SEARCH, C_SLS, C_DEPLOY, C_DELETE, C_BREAD, C_BWRITE, NCLS };
static const char *const cls_name[NCLS] = { "search", "sls", "deploy", "delete",
					    "block-read", "block-write" };

struct cls_stat {
	uint64_t ops, wrong, errors, max_ns, sum_ns;
};

/* Per process, in shared memory: the parent adds them up. */
static struct cls_stat (*shared)[NCLS];

static uint64_t deadline;

static void note(struct cls_stat *s, uint64_t t0)
{
	uint64_t d = pt_now_ns() - t0;

	s->ops++;
	s->sum_ns += d;
	if (d > s->max_ns)
		s->max_ns = d;
}

/* --- the searchers and the SLS workers: QD commands in flight -------------- */

struct slot {
	struct reis_search_req sr;
	struct reis_rf_sls_op op;
	float out[32 * RF_DIM];
	uint64_t t0;
	unsigned v;
	struct worker *w;
};

struct worker {
	struct reis_dev *dev;
	struct cls_stat *st;
	uint64_t rng;
	unsigned inflight;
	struct slot slot[QD];
};

static void s_done(struct reis_search_req *sr, void *arg);
static void f_done(struct reis_rf_sls_op *op, void *arg);

static void s_submit(struct worker *w, struct slot *s)
{
	s->v = (unsigned)(synth_next(&w->rng) % NVAR);
	memset(&s->sr, 0, sizeof(s->sr));
	s->t0 = pt_now_ns();
	if (reis_search_submit(w->dev, &s->sr, REIS_OP_SEARCH, &s_opt[s->v], &s_sub[s->v],
			       s_done, s)) {
		w->st[C_SEARCH].errors++;
		return;
	}
	w->inflight++;
}

static void s_done(struct reis_search_req *sr, void *arg)
{
	struct slot *s = arg;
	struct worker *w = s->w;

	note(&w->st[C_SEARCH], s->t0);
	w->inflight--;
	if (sr->err) {
		if (w->st[C_SEARCH].errors++ < 3)
			fprintf(stderr, "search: %s\n", sr->msg);
	} else {
		w->st[C_SEARCH].wrong += reis_cmp_results("search", &sr->res, &s_want[s->v], 0) != 0;
		reis_search_result_free(&sr->res);
	}
	if (pt_now_ns() < deadline)
		s_submit(w, s);
}

static void f_submit(struct worker *w, struct slot *s)
{
	s->v = (unsigned)(synth_next(&w->rng) % NVAR);
	reis_rf_sls_op_init(&s->op, TID, RF_DIM, &f_bt[s->v].b, f_flags(s->v), s->out);
	s->op.cb = f_done;
	s->op.cb_arg = s;
	s->t0 = pt_now_ns();
	if (reis_rf_sls_submit(w->dev, &s->op)) {
		w->st[C_SLS].errors++;
		return;
	}
	w->inflight++;
}

static void f_done(struct reis_rf_sls_op *op, void *arg)
{
	struct slot *s = arg;
	struct worker *w = s->w;

	note(&w->st[C_SLS], s->t0);
	w->inflight--;
	if (op->err) {
		if (w->st[C_SLS].errors++ < 3)
			fprintf(stderr, "sls: %s\n", reis_strerror(op->err));
	} else {
		w->st[C_SLS].wrong += rf_diff(s->out, f_want[s->v], 32 * RF_DIM) != 0;
	}
	if (pt_now_ns() < deadline)
		f_submit(w, s);
}

static int isp_worker(unsigned id, int sls)
{
	static struct worker w;
	unsigned i;

	if (reis_open_qd(PT_CHAR_DEV, 0, 2 * QD, &w.dev))
		return 100;
	w.st = shared[id];
	w.rng = 3000 + id;
	for (i = 0; i < QD; i++) {
		w.slot[i].w = &w;
		if (sls)
			f_submit(&w, &w.slot[i]);
		else
			s_submit(&w, &w.slot[i]);
	}
	while (w.inflight) {
		int ret = reis_wait(w.dev, 1, 1000);

		if (ret < 0 && ret != -ETIME) {
			fprintf(stderr, "worker %u: reis_wait: %s\n", id, reis_strerror(ret));
			return 101;
		}
	}
	reis_close(w.dev);
	return 0;
}

/* --- the churn: deploy, check, delete ------------------------------------- */

static void churn_once(struct reis_dev *dev, struct cls_stat *st)
{
	struct reis_search_opts co;
	struct reis_search_result res;
	struct reis_rf_bags b = ch_bt.b;
	float out[8 * CH_RF_DIM];
	uint64_t t0 = pt_now_ns();

	if (reis_db_deploy(dev, &ch_img, NULL)) {
		st[C_DEPLOY].errors++;
		fprintf(stderr, "churn deploy: %s\n", reis_last_error(dev));
		return;
	}
	note(&st[C_DEPLOY], t0);
	memset(&co, 0, sizeof(co));
	co.did = CHURN_DID;
	co.k = 5;
	t0 = pt_now_ns();
	if (reis_search(dev, &co, &ch_q, &res)) {
		st[C_SEARCH].errors++;
	} else {
		note(&st[C_SEARCH], t0);
		st[C_SEARCH].wrong += reis_cmp_results("churn search", &res, &ch_want, 0) != 0;
		reis_search_result_free(&res);
	}
	t0 = pt_now_ns();
	if (reis_db_delete(dev, CHURN_DID))
		st[C_DELETE].errors++;
	else
		note(&st[C_DELETE], t0);

	t0 = pt_now_ns();
	if (rf_tbl_deploy(dev, &ch_tbl, NULL)) {
		st[C_DEPLOY].errors++;
		return;
	}
	note(&st[C_DEPLOY], t0);
	t0 = pt_now_ns();
	if (reis_rf_sls(dev, CHURN_TID, CH_RF_DIM, &b, 0, out, NULL)) {
		st[C_SLS].errors++;
	} else {
		note(&st[C_SLS], t0);
		st[C_SLS].wrong += rf_diff(out, ch_fwant, 8 * CH_RF_DIM) != 0;
	}
	t0 = pt_now_ns();
	if (reis_rf_delete(dev, CHURN_TID))
		st[C_DELETE].errors++;
	else
		note(&st[C_DELETE], t0);
}

static int churn_worker(unsigned id)
{
	struct reis_dev *dev;

	if (reis_open(PT_CHAR_DEV, 0, &dev))
		return 100;
	do
		churn_once(dev, shared[id]);
	while (pt_now_ns() < deadline);
	reis_close(dev);
	return 0;
}

/* --- block I/O: 4 KiB O_DIRECT, every read checked against the last write -- */

static void blk_fill(uint64_t *p, unsigned b, uint32_t gen)
{
	uint64_t s = ((uint64_t)b << 32 | gen) * 0x9e3779b97f4a7c15ull + 1;
	unsigned i;

	for (i = 0; i < BLK / 8; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		p[i] = s;
	}
}

static int blk_worker(unsigned id)
{
	static uint32_t gen[BLK_N];
	uint64_t *w = pt_alloc(BLK), *r = pt_alloc(BLK), rng = 99 + id;
	struct cls_stat *st = shared[id];
	int fd = open(PT_BLOCK_DEV, O_RDWR | O_DIRECT);

	if (fd < 0)
		return 100;
	do {
		unsigned b = (unsigned)(synth_next(&rng) % BLK_N);
		off_t off = (off_t)(BLK_OFF + (uint64_t)b * BLK);
		uint64_t t0 = pt_now_ns();

		if (!gen[b] || synth_next(&rng) % 2) {
			blk_fill(w, b, gen[b] + 1);
			if (pwrite(fd, w, BLK, off) != BLK) {
				st[C_BWRITE].errors++;
				continue;
			}
			gen[b]++;
			note(&st[C_BWRITE], t0);
		} else {
			if (pread(fd, r, BLK, off) != BLK) {
				st[C_BREAD].errors++;
				continue;
			}
			note(&st[C_BREAD], t0);
			blk_fill(w, b, gen[b]);
			st[C_BREAD].wrong += memcmp(w, r, BLK) != 0;
		}
	} while (pt_now_ns() < deadline);
	close(fd);
	return 0;
}

/* --- rounds ---------------------------------------------------------------- */

/* Run everything for @secs; @tot gets the classes summed over processes. */
static void load_round(double secs, struct cls_stat *tot)
{
	pid_t pid[NPROC];
	unsigned i, c;

	memset(shared, 0, sizeof(*shared) * NPROC);
	deadline = pt_now_ns() + (uint64_t)(secs * 1e9);
	fflush(NULL);
	for (i = 0; i < NPROC; i++) {
		pid[i] = fork();
		REQUIRE(pid[i] >= 0);
		if (!pid[i])
			_exit(i < 4 ? isp_worker(i, i >= 2) : i == 4 ? churn_worker(i) :
			      blk_worker(i));
	}
	for (i = 0; i < NPROC; i++) {
		int st;

		REQUIRE(waitpid(pid[i], &st, 0) == pid[i]);
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "process %u: status %d\n", i, st);
			t_failures++;
		}
	}
	memset(tot, 0, sizeof(*tot) * NCLS);
	for (i = 0; i < NPROC; i++)
		for (c = 0; c < NCLS; c++) {
			tot[c].ops += shared[i][c].ops;
			tot[c].wrong += shared[i][c].wrong;
			tot[c].errors += shared[i][c].errors;
			tot[c].sum_ns += shared[i][c].sum_ns;
			if (shared[i][c].max_ns > tot[c].max_ns)
				tot[c].max_ns = shared[i][c].max_ns;
		}
}

/* Each class alone at QD 1: its worst single call. */
static void idle_round(struct reis_dev *dev, struct cls_stat *idle)
{
	struct cls_stat *st = shared[0];
	unsigned v, c;
	int fd;

	memset(shared, 0, sizeof(*shared) * NPROC);
	for (v = 0; v < NVAR; v++) {
		struct reis_search_result res;
		float out[32 * RF_DIM];
		uint64_t t0 = pt_now_ns();

		if (reis_search(dev, &s_opt[v], &s_sub[v], &res) == 0) {
			note(&st[C_SEARCH], t0);
			st[C_SEARCH].wrong += reis_cmp_results("idle", &res, &s_want[v], 0) != 0;
			reis_search_result_free(&res);
		} else {
			st[C_SEARCH].errors++;
		}
		t0 = pt_now_ns();
		if (reis_rf_sls(dev, TID, RF_DIM, &f_bt[v].b, f_flags(v), out, NULL) == 0) {
			note(&st[C_SLS], t0);
			st[C_SLS].wrong += rf_diff(out, f_want[v], 32 * RF_DIM) != 0;
		} else {
			st[C_SLS].errors++;
		}
	}
	for (v = 0; v < 3; v++)
		churn_once(dev, st);
	fd = open(PT_BLOCK_DEV, O_RDWR | O_DIRECT);
	REQUIRE(fd >= 0);
	{
		uint64_t *w = pt_alloc(BLK), *r = pt_alloc(BLK);

		for (v = 0; v < 64; v++) {
			off_t off = (off_t)(BLK_OFF + (uint64_t)v * BLK);
			uint64_t t0 = pt_now_ns();

			blk_fill(w, v, 0);
			if (pwrite(fd, w, BLK, off) == BLK)
				note(&st[C_BWRITE], t0);
			t0 = pt_now_ns();
			if (pread(fd, r, BLK, off) == BLK)
				note(&st[C_BREAD], t0);
			st[C_BREAD].wrong += memcmp(w, r, BLK) != 0;
		}
		free(w);
		free(r);
	}
	close(fd);
	memcpy(idle, st, sizeof(*idle) * NCLS);
	for (c = 0; c < NCLS; c++) {
		CHECK_EQ_U64(idle[c].wrong, 0);
		CHECK_EQ_U64(idle[c].errors, 0);
		printf("idle %-11s: %4" PRIu64 " calls, mean %8.2f ms, worst %8.2f ms\n",
		       cls_name[c], idle[c].ops,
		       idle[c].ops ? idle[c].sum_ns / 1e6 / (double)idle[c].ops : 0,
		       idle[c].max_ns / 1e6);
	}
}

/* The stall bound of class @c: INFLIGHT calls ahead, each at the idle worst
 * of the ISP command classes, plus its own idle worst, x STALL_FACTOR. */
static uint64_t stall_bound(const struct cls_stat *idle, unsigned c)
{
	uint64_t isp = idle[C_SEARCH].max_ns > idle[C_SLS].max_ns ? idle[C_SEARCH].max_ns :
								      idle[C_SLS].max_ns;
	uint64_t b = STALL_FACTOR * (INFLIGHT * isp + idle[c].max_ns);

	return b > STALL_FLOOR_NS ? b : STALL_FLOOR_NS;
}

/* Results the drive still takes: SEARCH commands (nq 1, k 1) whose results
 * stay held, until one is refused or max_tickets + 1 were sent; then every
 * one is released. A leaked ticket or result byte lowers the count. */
static int ticket_probe(uint32_t max_tickets);

#define PROBE_LEN (sizeof(struct isp_wire_reis_search) + DIM / 8)

/* The payload of a SEARCH of one query, k 1, binary only: PROBE_LEN bytes. */
static void *probe_payload(void)
{
	struct isp_wire_reis_search *h = pt_alloc(PROBE_LEN);

	h->did = DID;
	h->nq = 1;
	h->k = 1;
	h->flags = ISP_REIS_SF_NO_RERANK;
	h->dim = DIM;
	memcpy(h + 1, q.bin, DIM / 8);
	return h;
}

/* A SEARCH whose result the drive keeps under @ticket; its status. */
static int held_search(struct pt_ring *r, uint32_t ticket)
{
	void *h = probe_payload();
	struct pt_cmd pc;
	int ret;

	pt_vendor(&pc, REIS_OP_SEARCH, h, PROBE_LEN, ticket);
	ret = pt_run(r, &pc);
	free(h);
	return ret;
}

/*
 * The drive shares its result table per submission queue (docs/security.md
 * "Fair shares"), and the guest's NVMe driver submits on the queue of the
 * CPU the submitter runs on: the probe and its self-test run on CPU 0
 * alone, so every probe command is one queue's and the count does not
 * depend on where the scheduler put them. A ticket another queue leaked
 * shows too: that queue stays active and the probe's share shrinks.
 */
static void probe_pin(cpu_set_t *old)
{
	cpu_set_t one;

	REQUIRE(sched_getaffinity(0, sizeof(*old), old) == 0);
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	REQUIRE(sched_setaffinity(0, sizeof(one), &one) == 0);
}

static void probe_unpin(const cpu_set_t *old)
{
	REQUIRE(sched_setaffinity(0, sizeof(*old), old) == 0);
}

/* The probe sees a result that is held: one fewer ticket free. */
static void ticket_probe_selftest(uint32_t max_tickets, int free_now)
{
	struct pt_ring r;
	struct pt_cmd rel;
	cpu_set_t old;

	probe_pin(&old);
	REQUIRE(pt_open(&r, NULL, 4) == 0);
	REQUIRE(held_search(&r, 0x6d0fffffu) == 0);
	CHECK(ticket_probe(max_tickets) == free_now - 1);
	pt_vendor(&rel, ISP_OP_RESULT_RELEASE, NULL, 0, 0x6d0fffffu);
	CHECK(pt_run(&r, &rel) == 0);
	pt_close(&r);
	probe_unpin(&old);
}

static int ticket_probe(uint32_t max_tickets)
{
	struct pt_ring r;
	struct pt_cmd *pc;
	uint8_t *buf;
	uint32_t n = max_tickets + 1, i;
	int accepted = 0, refused = 0;

	REQUIRE(pt_open(&r, NULL, 64) == 0);
	pc = calloc(n, sizeof(*pc));
	buf = probe_payload();
	REQUIRE(pc);
	for (i = 0; i < n && !refused; i += 64) {
		uint32_t j, m = n - i < 64 ? n - i : 64;

		for (j = 0; j < m; j++) {
			pt_vendor(&pc[i + j], REIS_OP_SEARCH, buf, PROBE_LEN, 0x6d100001u + i + j);
			REQUIRE(pt_queue(&r, &pc[i + j]) == 0);
		}
		REQUIRE(io_uring_submit(&r.ring) == (int)m);
		for (j = 0; j < m; j++) {
			struct pt_cmd *c = pt_reap(&r);

			REQUIRE(c);
			if (c->res == 0)
				accepted++;
			else
				refused++;
		}
	}
	for (i = 0; i < n; i++) {
		struct pt_cmd rel;

		if (pc[i].c.opcode != REIS_OP_SEARCH || pc[i].res != 0)
			continue;
		pt_vendor(&rel, ISP_OP_RESULT_RELEASE, NULL, 0, pc[i].c.cdw12);
		CHECK(pt_run(&r, &rel) == 0);
	}
	free(pc);
	free(buf);
	pt_close(&r);
	return accepted;
}

struct drive_state {
	uint64_t dram_used, free_bytes;
	int results;
	uint32_t max_tickets;
};

static void drive_state(struct reis_dev *dev, struct drive_state *ds, const char *when)
{
	struct reis_info in;

	REQUIRE(reis_identify(dev, &in) == 0);
	ds->dram_used = in.dram_used;
	ds->free_bytes = in.free_bytes;
	{
		cpu_set_t old;

		probe_pin(&old);
		ds->results = ticket_probe(in.max_tickets);
		probe_unpin(&old);
	}
	ds->max_tickets = in.max_tickets;
	printf("drive %s: DRAM in use %" PRIu64 " B, free flash %" PRIu64
	       " B, %d of %u result tickets free\n", when, ds->dram_used, ds->free_bytes,
	       ds->results, in.max_tickets);
}

static void rss_mark(const char *when)
{
	printf("@@ISP-RSS-MARK %s\n", when);
	fflush(stdout);
	sleep(1);	/* the runner polls the console every 0.2 s */
}

int main(void)
{
	static struct cls_stat idle[NCLS], warm[NCLS], tot[NCLS];
	const char *env = getenv("MIXED_SECS");
	double secs = env ? atof(env) : 30;
	struct drive_state before, after;
	struct reis_dev *dev;
	unsigned c;
	int ret;

	if (access(PT_CHAR_DEV, F_OK) || access(PT_BLOCK_DEV, F_OK))
		SKIP(PT_CHAR_DEV " or " PT_BLOCK_DEV " absent");
	ret = reis_open(PT_CHAR_DEV, 0, &dev);
	if (ret)
		SKIP("reis_open: %s", reis_strerror(ret));
	if (!(reis_dev_info(dev)->caps & REIS_CAP_REIS) ||
	    !(reis_dev_info(dev)->caps & REIS_CAP_RECFLASH))
		SKIP("the drive lacks the REIS or RecFlash engine");
	if (secs < 1 || secs > 600)
		secs = 30;
	shared = mmap(NULL, sizeof(*shared) * NPROC, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	REQUIRE(shared != MAP_FAILED);
	mixed_prepare();
	reis_db_delete(dev, DID);	/* leftovers of an earlier run */
	reis_db_delete(dev, CHURN_DID);
	reis_rf_delete(dev, TID);
	reis_rf_delete(dev, CHURN_TID);
	REQUIRE(reis_db_deploy(dev, &img, NULL) == 0);
	REQUIRE(rf_tbl_deploy(dev, &tbl, NULL) == 0);

	idle_round(dev, idle);
	/* Warm-up: QEMU's allocator arenas and the guest's page cache reach
	 * their working size before the RSS baseline. */
	load_round(3, warm);
	drive_state(dev, &before, "before");
	ticket_probe_selftest(before.max_tickets, before.results);
	rss_mark("before");
	load_round(secs, tot);
	drive_state(dev, &after, "after");
	rss_mark("after");

	printf("mixed load, %.0f s, %u processes (2 x QD %u search, 2 x QD %u SLS, churn, "
	       "block I/O):\n", secs, NPROC, QD, QD);
	for (c = 0; c < NCLS; c++) {
		uint64_t bound = stall_bound(idle, c);

		printf("  %-11s: %7" PRIu64 " ops, %8.1f ops/s, mean %8.2f ms, worst %8.2f ms "
		       "(bound %8.1f ms), %" PRIu64 " wrong, %" PRIu64 " errors\n", cls_name[c],
		       tot[c].ops, tot[c].ops / secs,
		       tot[c].ops ? tot[c].sum_ns / 1e6 / (double)tot[c].ops : 0,
		       tot[c].max_ns / 1e6, bound / 1e6, tot[c].wrong, tot[c].errors);
		CHECK(tot[c].ops > 0);
		CHECK_EQ_U64(tot[c].wrong, 0);
		CHECK_EQ_U64(tot[c].errors, 0);
		CHECK(tot[c].max_ns <= bound);
		CHECK_EQ_U64(warm[c].wrong, 0);
	}
	CHECK_EQ_U64(after.dram_used, before.dram_used);
	CHECK_EQ_U64(after.free_bytes, before.free_bytes);
	CHECK(after.results == before.results);

	reis_db_delete(dev, DID);
	reis_rf_delete(dev, TID);
	reis_close(dev);
	return t_result();
}
