/* SPDX-License-Identifier: MIT */
/*
 * bench_budget.c - host RSS of the two guest-driven memory growths the
 * budgets bound (docs/security.md, Budgets), with the budget and without
 * (a cap far above the work), in one run:
 *   deploy: 256 MiB of binary codes in 512 DB_WRITEs to the in-memory store
 *           (reis-ssd1), mem_cap=1t vs mem_cap=128m;
 *   sls:    8 threads each sending an SLS of ~16 KiB (4000 distinct rows of
 *           16 KiB: 64 MiB staged each) on a 64 MiB table, buf_budget=1t vs
 *           the default.
 * Usage: bench_budget deploy|sls CAP_PARAMS   (one scenario per process,
 * so each RSS high-water mark is its own).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "isp_dev.h"
#include "isp_wire.h"

static uint64_t status_kib(const char *key)
{
	char line[256];
	uint64_t v = 0;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			v = strtoull(line + strlen(key), NULL, 10);
	if (f)
		fclose(f);
	return v;
}

static uint64_t clk = 1000000;

static uint16_t run(struct isp_dev *dev, uint8_t opc, uint32_t cdw12, uint32_t cdw13,
		    uint64_t off, void *buf, uint32_t len)
{
	struct isp_cmd c;
	struct isp_cpl cpl;
	uint16_t st;

	memset(&c, 0, sizeof(c));
	c.opcode = opc;
	c.nsid = 1;
	c.cdw10 = len / 4;
	c.cdw12 = cdw12;
	c.cdw13 = cdw13;
	c.cdw14 = (uint32_t)off;
	c.cdw15 = (uint32_t)(off >> 32);
	c.submit_ns = __atomic_add_fetch(&clk, 10000000000ull, __ATOMIC_RELAXED);
	st = isp_dev_check(dev, &c, &cpl);
	return st ? st : isp_dev_exec(dev, &c, buf, len, &cpl);
}

static struct isp_dev *open_dev(const char *preset, const char *params)
{
	struct isp_dev_config cfg = { .preset = preset, .params = params,
				      .max_xfer = 2u << 20 };
	struct isp_dev *dev = NULL;
	char err[256];

	if (isp_dev_open(&cfg, &dev, err, sizeof(err))) {
		fprintf(stderr, "isp_dev_open: %s\n", err);
		exit(1);
	}
	return dev;
}

static int bench_deploy(const char *params)
{
	struct isp_dev *dev = open_dev("reis-ssd1", params);
	struct isp_wire_reis_create cr;
	const uint32_t chunk = 512u * 1024u, ncmd = 512;
	uint8_t *buf = malloc(chunk);
	uint64_t rss0 = status_kib("VmRSS:"), i;
	uint16_t st = 0;

	memset(&cr, 0, sizeof(cr));
	cr.did = 1;
	cr.kind = ISP_REIS_BF;
	cr.dim = 1024;
	cr.n = (uint64_t)ncmd * chunk / 128;
	if (!buf || run(dev, ISP_OP_REIS_DB_CREATE, 0, 0, 0, &cr, sizeof(cr)))
		return 1;
	isp_wire_pattern(1, buf, chunk);
	for (i = 0; i < ncmd && !st; i++)
		st = run(dev, ISP_OP_REIS_DB_WRITE, 1, ISP_REIS_SEC_BIN, i * chunk, buf, chunk);
	printf("deploy %-14s %3llu of %u DB_WRITEs accepted (status %#x), RSS +%llu MiB\n",
	       params, (unsigned long long)(st ? i - 1 : i), ncmd, st,
	       (unsigned long long)((status_kib("VmRSS:") - rss0) / 1024));
	isp_dev_close(dev);
	free(buf);
	return 0;
}

struct sls_job {
	struct isp_dev *dev;
	uint8_t *data;
	uint32_t len, ticket;
	uint16_t st;
};

static void *sls_thread(void *arg)
{
	struct sls_job *j = arg;

	j->st = run(j->dev, ISP_OP_RF_SLS, j->ticket, 0, 0, j->data, j->len);
	return NULL;
}

static int bench_sls(const char *params)
{
	struct isp_dev *dev = open_dev("recflash-tlc", params);
	struct isp_wire_rf_create cr;
	struct isp_wire_rf_sls h;
	const uint32_t rows = 4096, dim = 4096, rb = dim * 4, nidx = 4000, nthr = 8;
	const uint32_t chunk = 1u << 20;
	struct sls_job job[8];
	pthread_t th[8];
	uint8_t *buf = calloc(1, chunk), *data;
	uint32_t *off, *idx, i, busy = 0, ok = 0;
	uint64_t hwm0, o;

	memset(&cr, 0, sizeof(cr));
	cr.tid = 1;
	cr.rows = rows;
	cr.dim = dim;
	cr.dtype = ISP_RF_FP32;
	cr.mode = ISP_RF_RMSSD;
	if (!buf || run(dev, ISP_OP_RF_TBL_CREATE, 0, 0, 0, &cr, sizeof(cr)))
		return 1;
	for (o = 0; o < (uint64_t)rows * rb; o += chunk)
		if (run(dev, ISP_OP_RF_TBL_WRITE, 1, ISP_RF_SEC_ROWS, o, buf, chunk))
			return 1;
	if (run(dev, ISP_OP_RF_TBL_COMMIT, 1, 0, 0, NULL, 0))
		return 1;

	memset(&h, 0, sizeof(h));
	h.tid = 1;
	h.nbags = 1;
	h.nidx = nidx;
	h.dim = dim;
	hwm0 = status_kib("VmHWM:");
	for (i = 0; i < nthr; i++) {
		uint32_t k;

		job[i].len = (uint32_t)(sizeof(h) + 8 + 4 * nidx);
		data = job[i].data = malloc(job[i].len);
		memcpy(data, &h, sizeof(h));
		off = (uint32_t *)(void *)(data + sizeof(h));
		off[0] = 0;
		off[1] = nidx;
		idx = off + 2;
		for (k = 0; k < nidx; k++)
			idx[k] = k;
		job[i].dev = dev;
		job[i].ticket = 100 + i;
		pthread_create(&th[i], NULL, sls_thread, &job[i]);
	}
	for (i = 0; i < nthr; i++) {
		pthread_join(th[i], NULL);
		ok += job[i].st == 0;
		busy += (job[i].st & ISP_STATUS_CODE_MASK) == ISP_SC_RESOURCE;
		free(job[i].data);
	}
	printf("sls    %-14s %u SLS of %u KiB at once: %u done, %u ISP Resource Busy, "
	       "peak RSS +%llu MiB\n", params, nthr, (unsigned)(job[0].len / 1024), ok, busy,
	       (unsigned long long)((status_kib("VmHWM:") - hwm0) / 1024));
	isp_dev_close(dev);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: bench_budget deploy|sls PARAMS\n");
		return 2;
	}
	return !strcmp(argv[1], "deploy") ? bench_deploy(argv[2]) : bench_sls(argv[2]);
}
