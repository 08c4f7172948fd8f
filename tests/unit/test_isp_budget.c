/* SPDX-License-Identifier: MIT */
/*
 * test_isp_budget.c - the host-memory budgets a guest cannot exceed
 * (docs/security.md, Budgets): the in-memory store's mem_cap (REIS and
 * RecFlash deploys past it answer Capacity Exceeded, host RSS stays
 * bounded, the drive recovers after a delete) and the per-command buffer
 * budget buf_budget (SLS, SEARCH and REMAP take their working set from it:
 * a command larger than the budget is Capacity Exceeded, one that finds it
 * held by others waits, then gets ISP Resource Busy without DNR).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "test_isp_raw.h"
#include "flash_store.h"
#include "isp_budget.h"

#define MIB (1024u * 1024u)

static uint64_t rss_bytes(void)
{
	unsigned long size = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%lu %lu", &size, &res) != 2)
			res = 0;
		fclose(f);
	}
	return (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the budget object ---- */

struct holder {
	struct isp_budget *b;
	uint64_t bytes;
	unsigned hold_ms;
};

static void *hold_then_give(void *arg)
{
	struct holder *h = arg;

	usleep(h->hold_ms * 1000u);
	isp_budget_give(h->b, h->bytes);
	return NULL;
}

static void test_budget_object(void)
{
	struct isp_budget b;
	struct isp_budget_stats s;
	struct holder h;
	pthread_t th;
	double t0;

	CHECK(isp_budget_init(&b, 0) == -EINVAL);
	REQUIRE(isp_budget_init(&b, 1000) == 0);
	CHECK(isp_budget_take(&b, 1001) == -EFBIG);
	CHECK(isp_budget_take(&b, 600) == 0);
	CHECK(isp_budget_take(&b, 0) == 0);

	/* full: a taker waits the bounded time, then is refused */
	t0 = now_s();
	CHECK(isp_budget_take(&b, 500) == -EAGAIN);
	CHECK(now_s() - t0 >= ISP_BUDGET_WAIT_MS / 1000.0 * 0.9);

	/* a holder that gives back within the wait lets it through */
	h.b = &b;
	h.bytes = 600;
	h.hold_ms = ISP_BUDGET_WAIT_MS / 4;
	REQUIRE(pthread_create(&th, NULL, hold_then_give, &h) == 0);
	CHECK(isp_budget_take(&b, 500) == 0);
	pthread_join(th, NULL);
	isp_budget_get_stats(&b, &s);
	CHECK_EQ_U64(s.used, 500);
	CHECK_EQ_U64(s.peak, 600);
	CHECK_EQ_U64(s.refused, 2);
	CHECK(s.waits >= 2);
	isp_budget_give(&b, 500);
	isp_budget_get_stats(&b, &s);
	CHECK_EQ_U64(s.used, 0);
	isp_budget_destroy(&b);
}

/* ---- mem_cap: the in-memory store ---- */

/* Stream BIN of database @did in 256 KiB DB_WRITEs; *@done: bytes taken. */
static uint16_t write_bin(struct isp_dev *dev, uint32_t did, const uint8_t *bin, uint64_t size,
			  uint64_t *done)
{
	uint64_t off;
	uint16_t st = 0;

	for (off = 0; off < size && !st; off += 256 * 1024)
		st = raw_db_write(dev, did, ISP_REIS_SEC_BIN, off, bin + off,
				  size - off < 256 * 1024 ? (uint32_t)(size - off) : 256 * 1024);
	*done = off;
	return st;
}

static void test_mem_cap_reis(void)
{
	/* 4 MiB of pages; a BF database of 40000 x 1024-bit codes is 5 MB */
	struct isp_dev *dev = rt_open("reis-ssd1", "blocks_per_plane=24;slc_blocks=12;mem_cap=4m",
				      NULL);
	struct isp_wire_reis_create cr;
	struct fs_stats fst;
	const uint64_t n = 40000, cb = 128;
	uint8_t *bin = malloc(n * cb);
	uint64_t rss0, off;
	uint16_t st;

	REQUIRE(bin);
	isp_wire_pattern(7, bin, n * cb);
	memset(&cr, 0, sizeof(cr));
	cr.did = 1;
	cr.kind = ISP_REIS_BF;
	cr.dim = 1024;
	cr.n = n;
	rss0 = rss_bytes();
	REQUIRE(raw_db_create(dev, &cr) == 0);
	st = write_bin(dev, 1, bin, n * cb, &off);
	CHECK_EQ_U64(st, ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR);
	CHECK(off > 3 * MIB && off < 5 * MIB);	/* refused near the cap */
	fs_get_stats(isp_dev_store(dev), &fst);
	CHECK(fst.mem_refused >= 1);
	CHECK(fst.mem_bytes <= 4u * MIB + 1u * MIB);	/* + tables and metadata */
	/* host RSS grew by about the cap, not the database */
	CHECK(rss_bytes() - rss0 < 4u * MIB + 6u * MIB);

	/* the host deletes it; a database that fits deploys and commits */
	CHECK(rt_simple(dev, ISP_OP_REIS_DB_DELETE, 1, 0, NULL) == 0);
	cr.did = 2;
	cr.n = 8000;	/* 1 MB */
	CHECK(raw_db_create(dev, &cr) == 0);
	st = write_bin(dev, 2, bin, cr.n * cb, &off);
	CHECK_EQ_U64(st, 0);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_REIS_DB_COMMIT, 2, 0, NULL), 0);
	isp_dev_close(dev);

	/* the same deploy without a tight cap succeeds: the cap refused it */
	dev = rt_open("reis-ssd1", "blocks_per_plane=24;slc_blocks=12;mem_cap=64m", NULL);
	cr.did = 1;
	cr.n = n;
	REQUIRE(raw_db_create(dev, &cr) == 0);
	st = write_bin(dev, 1, bin, n * cb, &off);
	CHECK_EQ_U64(st, 0);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_REIS_DB_COMMIT, 1, 0, NULL), 0);
	isp_dev_close(dev);
	free(bin);
}

static void test_mem_cap_rf(void)
{
	struct isp_dev *dev = rt_open("recflash-tlc", "mem_cap=2m", NULL);
	struct isp_wire_rf_create cr = rt_cr(1, 40000, 16, ISP_RF_FP32, ISP_RF_RECSSD);
	uint8_t *rows = rt_table(cr.rows, cr.dim, cr.dtype, 3);	/* 2.56 MB */
	struct fs_stats fst;

	REQUIRE(rows);
	CHECK_EQ_U64(rt_deploy(dev, &cr, rows, NULL), ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR);
	fs_get_stats(isp_dev_store(dev), &fst);
	CHECK(fst.mem_refused >= 1);
	CHECK(rt_simple(dev, ISP_OP_RF_TBL_DELETE, 1, 0, NULL) == 0);
	cr = rt_cr(2, 10000, 16, ISP_RF_FP32, ISP_RF_RECSSD);
	CHECK_EQ_U64(rt_deploy(dev, &cr, rows, NULL), 0);
	isp_dev_close(dev);
	free(rows);
}

/* ---- buf_budget: per-command working buffers ---- */

static void test_sls_budget(void)
{
	struct isp_dev *dev = rt_open("recflash-tlc", "buf_budget=2m", NULL);
	struct isp_budget *b = fs_buf_budget(isp_dev_store(dev));
	struct isp_wire_rf_create cr = rt_cr(1, 60000, 32, ISP_RF_FP32, ISP_RF_RECSSD);
	uint8_t *rows = rt_table(cr.rows, cr.dim, cr.dtype, 5);
	struct rt_batch small, big;
	struct rt_sls_out o;
	struct isp_budget_stats s;
	double t0;

	REQUIRE(rows);
	REQUIRE(rt_deploy(dev, &cr, rows, NULL) == 0);
	rt_batch_random(&small, 8, 8, cr.rows, 0, 1);
	/* ~40000 distinct rows x 128 B staged: 5 MB > the 2 MiB budget */
	rt_batch_random(&big, 1000, 80, cr.rows, 0, 2);

	memset(&o, 0, sizeof(o));
	CHECK_EQ_U64(rt_sls(dev, 1, cr.dim, 0, &small, &o), 0);
	free(o.v);
	CHECK_EQ_U64(rt_sls(dev, 1, cr.dim, 0, &big, &o), ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR);

	/* the budget held by other commands: wait, then Resource Busy (retry) */
	REQUIRE(isp_budget_take(b, 2u * MIB - 4096) == 0);
	t0 = now_s();
	CHECK_EQ_U64(rt_sls(dev, 1, cr.dim, 0, &small, &o), ISP_SC_RESOURCE);
	CHECK(now_s() - t0 >= ISP_BUDGET_WAIT_MS / 1000.0 * 0.9);
	isp_budget_give(b, 2u * MIB - 4096);
	memset(&o, 0, sizeof(o));
	CHECK_EQ_U64(rt_sls(dev, 1, cr.dim, 0, &small, &o), 0);
	free(o.v);
	isp_budget_get_stats(b, &s);
	CHECK_EQ_U64(s.used, 0);	/* every path gives back */
	CHECK(s.peak <= 2u * MIB);
	rt_batch_free(&small);
	rt_batch_free(&big);
	isp_dev_close(dev);
	free(rows);
}

static uint16_t remap_full(struct isp_dev *dev, uint32_t tid)
{
	return rt_simple(dev, ISP_OP_RF_REMAP, tid, ISP_RF_REMAP_FULL | ISP_RF_REMAP_SWITCH, NULL);
}

static void test_remap_budget(void)
{
	struct isp_dev *dev = rt_open("recflash-tlc", "buf_budget=1m", NULL);
	struct isp_budget *b = fs_buf_budget(isp_dev_store(dev));
	struct isp_wire_rf_create cr = rt_cr(1, 14000, 4, ISP_RF_FP32, ISP_RF_RECFLASH);
	struct isp_wire_rf_create big = rt_cr(2, 40000, 4, ISP_RF_FP32, ISP_RF_RECFLASH);
	uint8_t *rows = rt_table(big.rows, big.dim, big.dtype, 9);
	uint32_t *prof = malloc(big.rows * 4u), i;
	struct isp_budget_stats s;

	REQUIRE(rows && prof);
	for (i = 0; i < big.rows; i++)
		prof[i] = (i * 2654435761u) % 1000;
	/* the big one without a profile: its commit (row order) needs no
	 * buffers, a commit's placement would not fit either */
	cr.flags = ISP_RF_TF_PROFILE;
	cr.hot_bp = big.hot_bp = 500;
	REQUIRE(rt_deploy(dev, &cr, rows, prof) == 0);
	REQUIRE(rt_deploy(dev, &big, rows, NULL) == 0);

	/* 14000 rows x 61 B fit in 1 MiB; 40000 rows (2.4 MB) never do */
	CHECK_EQ_U64(remap_full(dev, 2), ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR);
	REQUIRE(isp_budget_take(b, 512u * 1024u) == 0);
	CHECK_EQ_U64(remap_full(dev, 1), ISP_SC_RESOURCE);
	isp_budget_give(b, 512u * 1024u);
	CHECK_EQ_U64(remap_full(dev, 1), 0);
	isp_budget_get_stats(b, &s);
	CHECK_EQ_U64(s.used, 0);
	CHECK(s.peak >= 14000u * 61u);	/* REMAP is charged what it holds */
	isp_dev_close(dev);
	free(rows);
	free(prof);
}

static void test_search_budget(void)
{
	struct isp_dev *dev = rt_open("reis-ssd1", "blocks_per_plane=24;slc_blocks=12;buf_budget=1m",
				      NULL);
	struct isp_budget *b = fs_buf_budget(isp_dev_store(dev));
	struct isp_wire_reis_create cr;
	struct isp_wire_reis_search *s;
	uint8_t bin[64 * 8], q[sizeof(*s) + 8];
	struct isp_budget_stats bs;

	memset(&cr, 0, sizeof(cr));
	cr.did = 1;
	cr.kind = ISP_REIS_BF;
	cr.dim = 64;
	cr.n = 64;
	isp_wire_pattern(3, bin, sizeof(bin));
	REQUIRE(raw_db_create(dev, &cr) == 0);
	REQUIRE(raw_db_write(dev, 1, ISP_REIS_SEC_BIN, 0, bin, sizeof(bin)) == 0);
	REQUIRE(rt_simple(dev, ISP_OP_REIS_DB_COMMIT, 1, 0, NULL) == 0);

	memset(q, 0, sizeof(q));
	s = (struct isp_wire_reis_search *)(void *)q;
	s->did = 1;
	s->nq = 1;
	s->k = 10;
	s->flags = ISP_REIS_SF_NO_RERANK;
	s->dim = 64;
	memcpy(q + sizeof(*s), bin, 8);
	CHECK_EQ_U64(raw_search(dev, 0, 11, s, q, sizeof(q)), 0);
	isp_budget_get_stats(b, &bs);
	CHECK(bs.peak > 0 && bs.used == 0);	/* the search took and gave back */
	REQUIRE(isp_budget_take(b, 1u * MIB - 1024) == 0);
	CHECK_EQ_U64(raw_search(dev, 0, 12, s, q, sizeof(q)), ISP_SC_RESOURCE);
	isp_budget_give(b, 1u * MIB - 1024);
	CHECK_EQ_U64(raw_search(dev, 0, 13, s, q, sizeof(q)), 0);
	isp_budget_get_stats(b, &bs);
	CHECK_EQ_U64(bs.used, 0);
	isp_dev_close(dev);
}

int main(void)
{
	test_budget_object();
	test_mem_cap_reis();
	test_mem_cap_rf();
	test_sls_budget();
	test_remap_budget();
	test_search_budget();
	return t_result();
}
