/* SPDX-License-Identifier: MIT */
/*
 * bench_rf_model.c - the RecFlash engine at model level: one RMC-like
 * embedding table (RecFlash Table II: dim 32, 80 lookups per sample; 1 M
 * rows as RecSSD/RecFlash IV-A assume) in the three read-out modes (RecSSD-like, RM-SSD-like, RecFlash), on
 * recflash-slc, -tlc and -qlc, driven through isp_dev_exec() exactly as the
 * QEMU glue drives it.
 *
 * Steps:
 *  1. for each preset, open an in-memory drive and deploy the same fp32
 *     table three times: RecSSD-like, RM-SSD-like, and RecFlash placed by
 *     the access counts of a sampled training trace (TBL_WRITE PROFILE,
 *     offline placement of III-C1);
 *  2. run the same Zipf trace (batches of 64 samples x 80 lookups, one SLS
 *     command per batch, each batch on an idle drive) on each table after a
 *     warm-up, summing the result headers' embedding-stage flash time and
 *     read energy (flash_ns, flash_pj) and the whole commands' model time;
 *  3. print them with the reduction against RM-SSD-like, page reads,
 *     page-buffer utilisation, cache hit rate, and the host CPU time per
 *     bag (exec of SLS + result read, wall clock on this machine).
 *
 * Usage: bench_rf_model [rows [zipf_exponent [batches [params]]]]
 *        defaults: 1000000 1.05 40, params: key=value overrides of the
 *        presets (e.g. channel_mbps=800)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "isp_dev.h"
#include "isp_wire.h"
#include "zipf.h"
#include "ex_usage.h"

#define MAX_XFER (512u * 1024u)
#define DIM 32u			/* RecFlash Table II, RMC1 / RMC3 */
#define LOOKUPS 80u		/* RecFlash Table II, RMC1 */
#define SAMPLES 64u		/* bags per SLS command */

static uint64_t clock_ns = 1000000;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, uint16_t st)
{
	fprintf(stderr, "bench_rf_model: %s failed (status 0x%04x)\n", what, st);
	exit(1);
}

static uint16_t exec(struct isp_dev *dev, uint8_t opc, uint32_t cdw12, uint32_t cdw13,
		     uint64_t off, void *buf, uint32_t len, struct isp_cpl *cpl)
{
	struct isp_cmd c;
	struct isp_cpl tmp;

	memset(&c, 0, sizeof(c));
	c.opcode = opc;
	c.nsid = 1;
	c.cdw10 = len / 4;
	c.cdw12 = cdw12;
	c.cdw13 = cdw13;
	c.cdw14 = (uint32_t)off;
	c.cdw15 = (uint32_t)(off >> 32);
	clock_ns += 1000000000;		/* 1 s apart: every command on an idle drive */
	c.submit_ns = clock_ns;
	return isp_dev_exec(dev, &c, buf, len, cpl ? cpl : &tmp);
}

static void stream(struct isp_dev *dev, uint32_t tid, uint32_t sec, const uint8_t *p,
		   uint64_t len)
{
	uint64_t off;
	uint16_t st;

	for (off = 0; off < len; off += MAX_XFER) {
		uint32_t n = len - off < MAX_XFER ? (uint32_t)(len - off) : MAX_XFER;

		st = exec(dev, ISP_OP_RF_TBL_WRITE, tid, sec, off, (void *)(uintptr_t)(p + off),
			  n, NULL);
		if (st)
			die("TBL_WRITE", st);
	}
}

static void deploy(struct isp_dev *dev, uint32_t tid, uint32_t mode, uint32_t rows,
		   const float *data, const uint32_t *profile)
{
	struct isp_wire_rf_create cr;
	uint16_t st;

	memset(&cr, 0, sizeof(cr));
	cr.tid = tid;
	cr.rows = rows;
	cr.dim = DIM;
	cr.dtype = ISP_RF_FP32;
	cr.mode = mode;
	cr.flags = profile ? ISP_RF_TF_PROFILE : 0;
	snprintf(cr.name, sizeof(cr.name), "rmc-table-%u", tid);
	st = exec(dev, ISP_OP_RF_TBL_CREATE, 0, 0, 0, &cr, sizeof(cr), NULL);
	if (st)
		die("TBL_CREATE", st);
	if (profile)
		stream(dev, tid, ISP_RF_SEC_PROFILE, (const uint8_t *)profile, 4ull * rows);
	stream(dev, tid, ISP_RF_SEC_ROWS, (const uint8_t *)data, 4ull * rows * DIM);
	st = exec(dev, ISP_OP_RF_TBL_COMMIT, tid, 0, 0, NULL, 0, NULL);
	if (st)
		die("TBL_COMMIT", st);
}

struct run {
	uint64_t flash_ns, flash_pj, model_ns, bags;
	double host_s;
};

/* @nb batches; the same trace for every table (seeded). */
static void run(struct isp_dev *dev, uint32_t tid, struct zipf *z, uint32_t seed,
		uint32_t nb, struct run *r)
{
	const uint32_t nidx = SAMPLES * LOOKUPS;
	size_t len = sizeof(struct isp_wire_rf_sls) + 4u * (SAMPLES + 1) + 4u * nidx;
	uint8_t *buf = malloc(len), *res = malloc(MAX_XFER);
	struct isp_wire_rf_sls h;
	uint32_t *off, *idx, b, i, save = z->s;
	uint16_t st;

	if (!buf || !res)
		die("malloc", 0);
	memset(r, 0, sizeof(*r));
	memset(&h, 0, sizeof(h));
	h.tid = tid;
	h.nbags = SAMPLES;
	h.nidx = nidx;
	h.dim = DIM;
	memcpy(buf, &h, sizeof(h));
	off = (uint32_t *)(void *)(buf + sizeof(h));
	idx = off + SAMPLES + 1;
	for (i = 0; i <= SAMPLES; i++)
		off[i] = i * LOOKUPS;
	z->s = seed | 1;
	for (b = 0; b < nb; b++) {
		struct isp_wire_rf_result rr;
		struct isp_wire_result_hdr rh;
		double t0;

		for (i = 0; i < nidx; i++)
			idx[i] = zipf_draw(z);
		t0 = now();
		st = exec(dev, ISP_OP_RF_SLS, 7000 + b, 0, 0, buf, (uint32_t)len, NULL);
		if (st)
			die("SLS", st);
		st = exec(dev, ISP_OP_RESULT_READ, 7000 + b, ISP_RESULT_F_RELEASE, 0, res,
			  sizeof(rh) + sizeof(rr) + 4 * SAMPLES * DIM, NULL);
		if (st)
			die("RESULT_READ", st);
		r->host_s += now() - t0;
		memcpy(&rh, res, sizeof(rh));
		memcpy(&rr, res + sizeof(rh), sizeof(rr));
		r->flash_ns += rr.flash_ns;
		r->flash_pj += rr.flash_pj;
		r->model_ns += rh.model_ns;
		r->bags += SAMPLES;
	}
	z->s = save;
	free(buf);
	free(res);
}

static void bench(const char *preset, uint32_t rows, double expo, uint32_t nb,
		  const float *data, const char *extra)
{
	static const char *const names[3] = { "RecSSD-like", "RM-SSD-like", "RecFlash" };
	struct isp_dev_config cfg = { .preset = preset, .max_xfer = MAX_XFER };
	char params[256];
	struct isp_wire_rf_stats st[3];
	struct run r[3];
	struct isp_dev *dev;
	struct zipf z;
	uint32_t *prof = calloc(rows, 4), i, m;
	char err[256];
	double t0;
	int ret;

	if (!prof)
		die("malloc", 0);
	/* The presets hold three 1 M-row tables (and their remaps) as they are. */
	snprintf(params, sizeof(params), "%s", extra ? extra : "");
	cfg.params = params;
	ret = isp_dev_open(&cfg, &dev, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "bench_rf_model: %s: %s\n", preset, err);
		exit(1);
	}
	if (zipf_init(&z, rows, expo, 2024))
		die("malloc", 0);
	/* A sampled training trace (another seed) for the offline placement. */
	z.s = 99;
	for (i = 0; i < nb * SAMPLES * LOOKUPS; i++)
		prof[zipf_draw(&z)]++;
	t0 = now();
	deploy(dev, 1, ISP_RF_RECSSD, rows, data, NULL);
	deploy(dev, 2, ISP_RF_RMSSD, rows, data, NULL);
	deploy(dev, 3, ISP_RF_RECFLASH, rows, data, prof);
	printf("%s: %u rows x %u fp32 (%.0f MiB per table), deployed x3 in %.1f s host\n",
	       preset, rows, DIM, rows * DIM * 4.0 / 1048576, now() - t0);
	for (m = 0; m < 3; m++) {
		struct run warm;
		uint16_t s;

		run(dev, m + 1, &z, 5, 5, &warm);	/* warm the page cache */
		s = exec(dev, ISP_OP_RF_TBL_STATS, m + 1, 1, 0, &st[m], sizeof(st[m]), NULL);
		run(dev, m + 1, &z, 6, nb, &r[m]);
		s |= exec(dev, ISP_OP_RF_TBL_STATS, m + 1, 0, 0, &st[m], sizeof(st[m]), NULL);
		if (s)
			die("TBL_STATS", s);
	}
	printf("  %-12s %12s %9s %12s %9s %10s %8s %8s %10s\n", "mode", "flash ms",
	       "vs RM-SSD", "energy mJ", "vs RM-SSD", "page reads", "util", "hit",
	       "host ns/bag");
	for (m = 0; m < 3; m++) {
		double util = st[m].bytes_sensed ?
			      (double)st[m].bytes_useful / st[m].bytes_sensed : 0;
		double hit = st[m].cache_hits + st[m].cache_misses ?
			     (double)st[m].cache_hits / (st[m].cache_hits + st[m].cache_misses) : 0;

		printf("  %-12s %12.3f %8.1f%% %12.3f %8.1f%% %10llu %8.4f %8.4f %10.0f\n",
		       names[m], r[m].flash_ns / 1e6,
		       100.0 * ((double)r[m].flash_ns / r[1].flash_ns - 1),
		       r[m].flash_pj / 1e9,
		       100.0 * ((double)r[m].flash_pj / r[1].flash_pj - 1),
		       (unsigned long long)st[m].page_reads, util, hit,
		       r[m].host_s * 1e9 / r[m].bags);
	}
	printf("  (%u batches of %u x %u lookups; whole SLS commands: %.3f / %.3f / %.3f ms "
	       "model time)\n", nb, SAMPLES, LOOKUPS, r[0].model_ns / 1e6, r[1].model_ns / 1e6,
	       r[2].model_ns / 1e6);
	isp_dev_close(dev);
	zipf_free(&z);
	free(prof);
}

int main(int argc, char **argv)
{
	static const char *const presets[] = { "recflash-tlc", "recflash-slc", "recflash-qlc" };
	static const char usage[] = "usage: bench_rf_model [rows >= 1000 [zipf_exponent "
				    "[batches]]]\n";
	uint32_t rows = 1000000, nb = 40, s = 7, i;
	double expo = 1.05;
	const char *extra = argc > 4 ? argv[4] : NULL;
	float *data;
	char *end;

	ex_operands_only("bench_rf_model", argc, argv, usage);
	if (argc > 1)
		rows = (uint32_t)ex_u64("bench_rf_model", "rows", argv[1], 1000, UINT32_MAX, usage);
	if (argc > 2) {
		expo = strtod(argv[2], &end);
		if (end == argv[2] || *end || !(expo >= 0 && expo <= 10))
			ex_usage_err("bench_rf_model", "zipf_exponent must be 0..10, not", argv[2],
				     usage);
	}
	if (argc > 3)
		nb = (uint32_t)ex_u64("bench_rf_model", "batches", argv[3], 1, 1000000, usage);
	data = malloc(4ull * rows * DIM);
	if (!data)
		die("malloc", 0);
	for (i = 0; i < rows * DIM; i++)
		data[i] = (float)((int32_t)(zipf_rand(&s) % 2001) - 1000) / 1000.0f;
	printf("RecFlash engine, model level: Zipf %.2f trace%s%s; paper (IV-B, TLC, RMC1): "
	       "latency -54.4..-68.4 %% and read energy up to -69.5 %% vs RM-SSD\n", expo,
	       extra ? ", " : "", extra ? extra : "");
	for (i = 0; i < 3; i++)
		bench(presets[i], rows, expo, nb, data, extra);
	free(data);
	return 0;
}
