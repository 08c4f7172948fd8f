/* SPDX-License-Identifier: MIT */
/*
 * bench_ftl.c - the whole SSD in process: ordinary I/O through the FTL on
 * the modeled flash, against the products' datasheets, and beside REIS.
 *
 * Steps:
 *  1. per REIS preset (reis-ssd1 = Samsung PM9A3, reis-ssd2 = Micron 9400,
 *     REIS Sec. 5), at the datasheet's conditions on the preset's channels,
 *     dies and planes (fewer blocks than the product: the rates depend on
 *     the parallelism and the over-provisioning, not the capacity):
 *     QD1 4 KiB random read latency, 4 KiB random read IOPS at QD 256,
 *     128 KiB sequential read and write bandwidth at QD 32, 4 KiB random
 *     write IOPS in steady state (the drive filled, then overwritten at
 *     random twice its size at QD 128 before the measured part);
 *  2. the emulator's host CPU per ordinary 4 KiB read (the model's work);
 *  3. interference on reis-ssd1: 4 KiB random reads at QD 16 alone and
 *     beside a stream of REIS searches, and searches alone and during a
 *     random-write burst that keeps GC running; the searches' results are
 *     compared with the idle ones; -t FILE writes a Perfetto trace of the
 *     overlap (ordinary I/O and search on the same plane and die tracks).
 *
 * Closed loops: each of QD slots submits its next command when its last one
 * completes (modeled time); commands are booked in submission order, as
 * the QEMU glue books them.
 *
 * Usage: bench_ftl [--md | --csv] [--csv-file F] [-q] [-t trace.json]
 *   --md   the section of docs/fidelity.md (make fidelity); --csv its rows
 *          (--csv-file: the rows into F as well, in the same run)
 *   -q     quick: smaller drives and runs (for a smoke test)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flash_timing.h"
#include "ftl.h"
#include "isp_dev.h"
#include "isp_wire.h"
#include "ex_usage.h"

#define KB 1024ull
#define UNIT 4096ull

/*
 * Published figures. Samsung PM9A3, U.2, the 7.68 TB model (REIS-SSD1's
 * 128 dies of 512 Gb): heise online, "PCIe-4.0-SSD Samsung PM9A3:
 * Flächen- und kostenoptimiert", 2020-05 (https://heise.de/-4720224,
 * figures of Samsung's datasheet shown by ServeTheHome): up to 6.5 GB/s
 * sequential read and 900,000 random read IOPS; the E1.S 7.68 TB writes
 * 3.2 GB/s and 150,000 IOPS, "somewhat less than the U.2 SSDs of the same
 * size (3.5 GB/s, 200,000 IOPS)". ComputerBase, "Samsung PM9A3 E1.S",
 * 2020-05 (https://www.computerbase.de/2020-05/samsung-pm9a3-e1.s-pcie-
 * 4.0-ssd/): the same read figures for U.2 and E1.S, E1.S modules at most
 * 12 W. Neither names a QD1 read latency.
 */
#define PM9A3_SEQ_READ_MBPS 6500.0
#define PM9A3_RAND_READ_IOPS 900000.0
#define PM9A3_SEQ_WRITE_MBPS 3500.0
#define PM9A3_RAND_WRITE_IOPS 200000.0
/*
 * Micron 9400 (REIS-SSD2): ComputerBase, "Micron 9400 SSD: Alle Modelle
 * lesen und schreiben mit 7 GB/s", 2023-01 (https://computerbase.de/
 * 2023-01/micron-9400-ssd-alle-modelle-lesen-und-schreiben-mit-7-gb-s):
 * every capacity (9400 PRO 7.68-30.72 TB, 9400 MAX 6.4-25.6 TB) 7,000 MB/s
 * sequential read and write; 4K random read "bis zu" 1.6 M IOPS and random
 * write "bis zu" 940 K: the family's maxima, not tied to a capacity. REIS
 * Table 3's 128 dies of 512 Gb (8.80 TB raw) are the smallest models, the
 * 7.68 TB PRO or the 6.4 TB MAX; their own random figures and any QD1
 * latency were not in the sources reachable here, so those rows compare
 * against a best case.
 */
#define M9400_SEQ_READ_MBPS 7000.0
#define M9400_SEQ_WRITE_MBPS 7000.0
#define M9400_RAND_READ_IOPS 1600000.0
#define M9400_RAND_WRITE_IOPS 940000.0

struct preset_run {
	const char *preset, *product;
	double pub_rr, pub_sr, pub_sw, pub_rw;	/* 0: none published */
	const char *src_rr, *src_seq, *src_rw;
	const char *cal_rr, *cal_sw;	/* the input calibrated to that row, or NULL */
};

static const struct preset_run runs[] = {
	{ "reis-ssd1", "Samsung PM9A3 7.68 TB (U.2)", PM9A3_RAND_READ_IOPS,
	  PM9A3_SEQ_READ_MBPS, PM9A3_SEQ_WRITE_MBPS, PM9A3_RAND_WRITE_IOPS,
	  "heise 2020-05, up to 7.68 TB", "heise 2020-05, U.2 7.68 TB",
	  "heise 2020-05, U.2 7.68 TB", "`ftl_cyc_cmd` (AF4)", "`ftl_prog_max` (AF8)" },
	{ "reis-ssd2", "Micron 9400 PRO 7.68 TB", M9400_RAND_READ_IOPS,
	  M9400_SEQ_READ_MBPS, M9400_SEQ_WRITE_MBPS, M9400_RAND_WRITE_IOPS,
	  "ComputerBase 2023-01, family maximum", "ComputerBase 2023-01, all capacities",
	  "ComputerBase 2023-01, family maximum", NULL, NULL },
};

static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The host's 1-minute load average (the wall time depends on it, the
 * modeled numbers do not); -1 when unknown. */
static double loadavg(void)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double l = -1;

	if (f) {
		if (fscanf(f, "%lf", &l) != 1)
			l = -1;
		fclose(f);
	}
	return l;
}

static uint64_t rng = 88172645463325252ull;

static uint64_t xr(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* ---- closed-loop streams ---- */

struct stream {
	uint32_t opc;
	uint64_t bytes;		/* per command */
	int seq;		/* sequential (else random, aligned to bytes) */
	uint64_t span;		/* bytes of the namespace it covers */
	uint64_t cursor;
};

struct slot {
	uint64_t t;		/* next submission, ns */
};

/* Min-heap of slots by t. */
static void heap_down(struct slot *h, unsigned n, unsigned i)
{
	for (;;) {
		unsigned c = 2 * i + 1;
		struct slot x;

		if (c >= n)
			return;
		if (c + 1 < n && h[c + 1].t < h[c].t)
			c++;
		if (h[i].t <= h[c].t)
			return;
		x = h[i];
		h[i] = h[c];
		h[c] = x;
		i = c;
	}
}

struct result {
	uint64_t cmds;
	double secs;		/* modeled, first submission to last completion */
	double iops, mbps;
	double lat_mean_us, lat_p50_us, lat_p99_us;
	double host_ns;		/* host CPU per command */
	int err;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t next_off(struct stream *s)
{
	uint64_t off;

	if (s->seq) {
		off = s->cursor;
		s->cursor = (s->cursor + s->bytes) % (s->span - s->span % s->bytes);
		return off;
	}
	return xr() % (s->span / s->bytes) * s->bytes;
}

/* @n commands of @s at queue depth @qd from device time @*clock (ns); the
 * clock ends at the last completion. @lat: if not NULL, n latencies. */
static struct result run_stream(struct isp_dev *dev, struct stream *s, unsigned qd,
				uint64_t n, uint64_t *clock, uint64_t *lat)
{
	struct slot *h = calloc(qd, sizeof(*h));
	struct result r;
	struct ftl_io io;
	struct ftl_cpl c;
	uint64_t i, t0 = *clock, end = t0, sum = 0;
	double c0;
	unsigned k;

	memset(&r, 0, sizeof(r));
	if (!h) {
		r.err = -ENOMEM;
		return r;
	}
	for (k = 0; k < qd; k++)
		h[k].t = t0;
	c0 = cpu();
	for (i = 0; i < n; i++) {
		memset(&io, 0, sizeof(io));
		io.opc = s->opc;
		io.nsid = 1;
		io.len = s->bytes;
		io.off = next_off(s);
		io.submit_ns = h[0].t;
		r.err = isp_dev_io(dev, &io, &c);
		if (r.err)
			break;
		if (lat)
			lat[i] = c.model_ns;
		sum += c.model_ns;
		h[0].t += c.model_ns;
		if (h[0].t > end)
			end = h[0].t;
		heap_down(h, qd, 0);
	}
	r.host_ns = (cpu() - c0) * 1e9 / (double)(n ? n : 1);
	r.cmds = i;
	r.secs = (double)(end - t0) / 1e9;
	r.iops = r.secs > 0 ? (double)i / r.secs : 0;
	r.mbps = r.iops * (double)s->bytes / 1e6;
	r.lat_mean_us = i ? (double)sum / (double)i / 1e3 : 0;
	if (lat && i) {
		qsort(lat, i, sizeof(*lat), cmp_u64);
		r.lat_p50_us = (double)lat[i / 2] / 1e3;
		r.lat_p99_us = (double)lat[i * 99 / 100] / 1e3;
	}
	*clock = end + 1000000000ull;	/* the next phase starts on an idle drive */
	free(h);
	return r;
}

/* ---- a drive ---- */

static struct isp_dev *open_drive(const char *preset, const char *params, uint64_t ns_bytes,
				  uint64_t *units_per_stripe)
{
	struct isp_dev_config cfg;
	struct isp_dev *dev = NULL;
	struct ftl_stats s;
	char err[256];

	memset(&cfg, 0, sizeof(cfg));
	cfg.preset = preset;
	cfg.params = params;
	cfg.max_xfer = 2u << 20;
	if (isp_dev_open(&cfg, &dev, err, sizeof(err))) {
		fprintf(stderr, "bench_ftl: %s: %s\n", preset, err);
		exit(1);
	}
	if (isp_dev_ns_attach(dev, 1, ns_bytes, err, sizeof(err))) {
		fprintf(stderr, "bench_ftl: attach: %s\n", err);
		exit(1);
	}
	ftl_get_stats(isp_dev_ftl(dev), &s, 0);
	if (units_per_stripe)
		*units_per_stripe = s.phys_bytes / UNIT / s.stripes;
	return dev;
}

struct ds_rows {
	const struct preset_run *pr;
	double qd1_us, qd1_p99_us, rr_iops, sr_mbps, sw_mbps, rw_iops, rw_wa;
	double op_pct, host_read_ns, host_read_qd1_ns;
	unsigned stripes, planes;
	uint64_t ns_gib_x10;
	double secs;
};

/*
 * The datasheet conditions on @pr's preset: pages_per_block 96 (a quarter
 * of the preset's 384, so that a plane has a hundred blocks or more in a
 * namespace this machine can hold: GC's choice and the over-provisioning
 * behave as with the product's thousands, the spares' share stays small;
 * erases come 4 x as often per page, which costs the model some write
 * throughput), @data_stripes stripes of namespace, the preset's
 * over-provisioning (ftl_op) on top.
 */
static void datasheet(const struct preset_run *pr, unsigned data_stripes, int quick,
		      struct ds_rows *o)
{
	char params[256];
	struct isp_dev *dev;
	struct stream s;
	struct result r;
	struct ftl_stats fs0, fs1;
	uint64_t clock = 1000000, ups, ns_bytes, n, *lat;
	unsigned ppb = 96, planes, target;
	double t0 = wall();

	memset(o, 0, sizeof(*o));
	o->pr = pr;
	/* one stripe's units: planes x 96 pages x 4 units */
	planes = strcmp(pr->preset, "reis-ssd1") == 0 ? 8 * 16 * 2 : 16 * 8 * 4;
	ups = (uint64_t)planes * ppb * 4;
	ns_bytes = ups * UNIT * data_stripes;
	target = data_stripes + data_stripes / 4 + FTL_SPARE_STRIPES;	/* > ftl_op's */
	snprintf(params, sizeof(params), "pages_per_block=%u;blocks_per_plane=%u;slc_blocks=16",
		 ppb, 16 + target);
	dev = open_drive(pr->preset, params, ns_bytes, NULL);
	o->planes = planes;
	o->ns_gib_x10 = ns_bytes * 10 / (1ull << 30);
	ftl_get_stats(isp_dev_ftl(dev), &fs0, 0);
	o->stripes = fs0.stripes;
	o->op_pct = (double)fs0.op_permille / 10.0;

	/* QD1 4 KiB random reads (the drive is filled: ftl_fill) */
	n = quick ? 2000 : 20000;
	lat = calloc(n, sizeof(*lat));
	memset(&s, 0, sizeof(s));
	s.opc = FTL_READ;
	s.bytes = 4 * KB;
	s.span = ns_bytes;
	r = run_stream(dev, &s, 1, n, &clock, lat);
	o->qd1_us = r.lat_mean_us;
	o->qd1_p99_us = r.lat_p99_us;
	o->host_read_qd1_ns = r.host_ns;
	free(lat);
	/* random reads at QD 256 */
	r = run_stream(dev, &s, 256, quick ? 50000 : 400000, &clock, NULL);
	o->rr_iops = r.iops;
	o->host_read_ns = r.host_ns;
	/* 128 KiB sequential reads at QD 32 */
	s.bytes = 128 * KB;
	s.seq = 1;
	r = run_stream(dev, &s, 32, ns_bytes / s.bytes / (quick ? 8 : 2), &clock, NULL);
	o->sr_mbps = r.mbps;
	/* 128 KiB sequential writes at QD 32: one pass to settle, one measured */
	s.opc = FTL_WRITE;
	s.cursor = 0;
	run_stream(dev, &s, 32, ns_bytes / s.bytes / (quick ? 4 : 1), &clock, NULL);
	r = run_stream(dev, &s, 32, ns_bytes / s.bytes / (quick ? 4 : 2), &clock, NULL);
	o->sw_mbps = r.mbps;
	/* 4 KiB random writes at QD 128: twice the drive to steady state */
	s.bytes = 4 * KB;
	s.seq = 0;
	run_stream(dev, &s, 128, ns_bytes / UNIT * (quick ? 1 : 2), &clock, NULL);
	ftl_get_stats(isp_dev_ftl(dev), &fs0, 0);
	r = run_stream(dev, &s, 128, ns_bytes / UNIT / 2, &clock, NULL);
	ftl_get_stats(isp_dev_ftl(dev), &fs1, 0);
	o->rw_iops = r.iops;
	if (getenv("BENCH_FTL_DEBUG")) {
		struct ft_stats ts;

		ft_get_stats(isp_dev_timing(dev), &ts, 0);
		fprintf(stderr, "debug %s: stalls %llu (%.1f ms avg), gc planes %u, free blocks %u, "
			"plane busy %.1f s, chan busy %.1f s, elapsed %.2f s\n", pr->preset,
			(unsigned long long)(fs1.stalls - fs0.stalls),
			(fs1.stalls - fs0.stalls) ? (double)(fs1.stall_ps - fs0.stall_ps) / 1e9 /
			(double)(fs1.stalls - fs0.stalls) : 0.0, fs1.gc_planes, fs1.free_blocks,
			ts.busy_ps[ISP_RES_PLANE] / 1e12, ts.busy_ps[ISP_RES_CHANNEL] / 1e12, r.secs);
	}
	o->rw_wa = (double)(fs1.nand_write_bytes - fs0.nand_write_bytes) /
		   (double)(fs1.write_bytes - fs0.write_bytes);
	isp_dev_close(dev);
	o->secs = wall() - t0;
}

/* ---- interference: the search stream ---- */

#define BENCH_DIM 1024u

struct db {
	uint32_t n;
	uint8_t *codes;		/* n x 128 B */
	int8_t *i8;
};

static int run_cmd(struct isp_dev *dev, uint8_t opc, uint32_t c12, uint64_t submit, void *data,
		   size_t len, struct isp_cpl *cpl)
{
	struct isp_cmd c;

	memset(&c, 0, sizeof(c));
	c.opcode = opc;
	c.nsid = 1;
	c.cdw10 = (uint32_t)(len / 4);
	c.cdw12 = c12;
	c.submit_ns = submit;
	return isp_dev_exec(dev, &c, data, len, cpl);
}

/* A brute-force database of @n random 1024-bit codes with INT8 copies. */
static int deploy(struct isp_dev *dev, struct db *d, uint32_t did, uint32_t n, uint64_t *clock)
{
	struct isp_wire_reis_create cr;
	struct isp_cpl cpl;
	uint32_t cb = BENCH_DIM / 8, chunk = 1u << 20, sec;
	uint64_t i, off;
	int st;

	d->n = n;
	d->codes = malloc((size_t)n * cb);
	d->i8 = malloc((size_t)n * BENCH_DIM);
	if (!d->codes || !d->i8)
		return -ENOMEM;
	for (i = 0; i < (uint64_t)n * cb; i++)
		d->codes[i] = (uint8_t)xr();
	for (i = 0; i < (uint64_t)n * BENCH_DIM; i++)
		d->i8[i] = (int8_t)((d->codes[i / 8] >> (i % 8) & 1) ? 40 : -40);
	memset(&cr, 0, sizeof(cr));
	cr.did = did;
	cr.kind = ISP_REIS_BF;
	cr.dim = BENCH_DIM;
	cr.n = n;
	cr.flags = ISP_REIS_DBF_INT8;
	cr.doc_mode = ISP_REIS_DOC_NONE;
	st = run_cmd(dev, ISP_OP_REIS_DB_CREATE, 0, *clock += 1000000000ull, &cr, sizeof(cr), &cpl);
	for (sec = ISP_REIS_SEC_BIN; !st && sec <= ISP_REIS_SEC_INT8; sec++) {
		const uint8_t *src = sec == ISP_REIS_SEC_BIN ? d->codes : (const uint8_t *)d->i8;
		uint64_t total = (uint64_t)n * (sec == ISP_REIS_SEC_BIN ? cb : BENCH_DIM);

		for (off = 0; !st && off < total; off += chunk) {
			uint64_t m = total - off < chunk ? total - off : chunk;
			struct isp_cmd c;
			uint8_t *buf = calloc(1, (m + 3) / 4 * 4);

			if (!buf)
				return -ENOMEM;
			memcpy(buf, src + off, m);
			memset(&c, 0, sizeof(c));
			c.opcode = ISP_OP_REIS_DB_WRITE;
			c.nsid = 1;
			c.cdw10 = (uint32_t)((m + 3) / 4);
			c.cdw12 = did;
			c.cdw13 = sec;
			c.cdw14 = (uint32_t)off;
			c.cdw15 = (uint32_t)(off >> 32);
			c.submit_ns = *clock += 1000000000ull;
			st = isp_dev_exec(dev, &c, buf, (m + 3) / 4 * 4, &cpl);
			free(buf);
		}
	}
	if (!st)
		st = run_cmd(dev, ISP_OP_REIS_DB_COMMIT, did, *clock += 1000000000ull, NULL, 0,
			     &cpl);
	return st;
}

#define SEARCH_NQ 16u

/* One SEARCH of SEARCH_NQ queries (rows @q0.. of the database, a few bits
 * flipped) at @at under @ticket; *@model_ns its modeled latency; the result
 * blob's hits into @hits (malloc'd, *@hlen bytes), then released. */
static int search(struct isp_dev *dev, const struct db *d, uint32_t did, uint32_t q0,
		  uint32_t ticket, uint64_t at, uint64_t *model_ns, uint8_t **hits, size_t *hlen)
{
	uint32_t cb = BENCH_DIM / 8, i, b;
	size_t len = sizeof(struct isp_wire_reis_search) + SEARCH_NQ * (cb + BENCH_DIM);
	uint8_t *buf = calloc(1, len), *res = NULL;
	struct isp_wire_reis_search sr;
	struct isp_wire_result_hdr hdr;
	struct isp_cpl cpl;
	int st;

	if (!buf)
		return -ENOMEM;
	memset(&sr, 0, sizeof(sr));
	sr.did = did;
	sr.nq = SEARCH_NQ;
	sr.k = 10;
	sr.dim = BENCH_DIM;
	memcpy(buf, &sr, sizeof(sr));
	for (i = 0; i < SEARCH_NQ; i++) {
		uint32_t e = (q0 + i * 7919u) % d->n;
		uint8_t *q = buf + sizeof(sr) + (size_t)i * cb;

		memcpy(q, d->codes + (size_t)e * cb, cb);
		for (b = 0; b < 24; b++)
			q[(e + b * 37) % cb] ^= (uint8_t)(1u << (b % 8));
		memcpy(buf + sizeof(sr) + SEARCH_NQ * cb + (size_t)i * BENCH_DIM,
		       d->i8 + (size_t)e * BENCH_DIM, BENCH_DIM);
	}
	st = run_cmd(dev, ISP_OP_REIS_SEARCH, ticket, at, buf, (len + 3) / 4 * 4, &cpl);
	free(buf);
	if (st)
		return st;
	*model_ns = cpl.model_ns;
	res = calloc(1, 64 * 1024);
	if (!res)
		return -ENOMEM;
	st = run_cmd(dev, ISP_OP_RESULT_READ, ticket, at + cpl.model_ns, res, 64 * 1024, &cpl);
	if (!st) {
		memcpy(&hdr, res, sizeof(hdr));
		*hlen = hdr.total_bytes - sizeof(hdr);
		*hits = malloc(*hlen);
		memcpy(*hits, res + sizeof(hdr), *hlen);
	}
	free(res);
	run_cmd(dev, ISP_OP_RESULT_RELEASE, ticket, at + cpl.model_ns, NULL, 0, &cpl);
	return st;
}

struct mix {
	/* inputs */
	unsigned read_qd, search_qd, write_qd;
	uint64_t reads, writes;		/* commands to run (0: none) */
	uint32_t searches;
	/* outputs */
	double read_p50_us, read_p99_us, read_mean_us;
	double search_mean_us, search_max_us;
	uint64_t gc_victims;
	int exact;
};

/*
 * Three closed loops merged in submission order: 4 KiB random reads at
 * read_qd, 4 KiB random writes at write_qd, and 16-query searches at
 * search_qd, each slot submitting when its last command completed. The
 * loops stop when each has issued its count. Searches' hits must equal
 * @ref (the same queries on an idle drive) when @ref is not NULL.
 */
static void run_mix(struct isp_dev *dev, const struct db *d, uint64_t ns_bytes, struct mix *m,
		    uint64_t *clock, uint8_t **ref, size_t *reflen, uint8_t **out,
		    size_t *outlen)
{
	unsigned nslot = m->read_qd + m->write_qd + m->search_qd, k, best;
	uint64_t *t = calloc(nslot, sizeof(*t)), *lat = calloc(m->reads + 1, sizeof(*lat));
	uint64_t nr = 0, nw = 0, t0 = *clock, end = t0, ssum = 0, smax = 0, ns;
	uint32_t ns_done = 0, sq = 0;
	struct ftl_stats s0, s1;
	struct ftl_io io;
	struct ftl_cpl c;

	ftl_get_stats(isp_dev_ftl(dev), &s0, 0);
	m->exact = 1;
	for (k = 0; k < nslot; k++)
		t[k] = t0 + k;	/* distinct start times, a ns apart */
	for (;;) {
		best = nslot;
		for (k = 0; k < nslot; k++) {
			int done = k < m->read_qd ? nr >= m->reads :
				   k < m->read_qd + m->write_qd ? nw >= m->writes :
				   sq >= m->searches;

			if (!done && (best == nslot || t[k] < t[best]))
				best = k;
		}
		if (best == nslot)
			break;
		if (best < m->read_qd + m->write_qd) {
			memset(&io, 0, sizeof(io));
			io.opc = best < m->read_qd ? FTL_READ : FTL_WRITE;
			io.nsid = 1;
			io.len = UNIT;
			io.off = xr() % (ns_bytes / UNIT) * UNIT;
			io.submit_ns = t[best];
			if (isp_dev_io(dev, &io, &c))
				break;
			if (io.opc == FTL_READ)
				lat[nr++] = c.model_ns;
			else
				nw++;
			t[best] += c.model_ns;
		} else {
			uint8_t *h = NULL;
			size_t hl = 0;

			if (search(dev, d, 1, sq * 131u, 5000 + sq, t[best], &ns, &h, &hl))
				break;
			if (ref && (hl != reflen[sq] || memcmp(h, ref[sq], hl)))
				m->exact = 0;
			if (out) {
				out[sq] = h;
				outlen[sq] = hl;
			} else {
				free(h);
			}
			sq++;
			ns_done++;
			ssum += ns;
			if (ns > smax)
				smax = ns;
			t[best] += ns;
		}
		if (t[best] > end)
			end = t[best];
	}
	ftl_get_stats(isp_dev_ftl(dev), &s1, 0);
	m->gc_victims = s1.gc_victims - s0.gc_victims;
	if (nr) {
		uint64_t sum = 0, i;

		for (i = 0; i < nr; i++)
			sum += lat[i];
		qsort(lat, nr, sizeof(*lat), cmp_u64);
		m->read_p50_us = (double)lat[nr / 2] / 1e3;
		m->read_p99_us = (double)lat[nr * 99 / 100] / 1e3;
		m->read_mean_us = (double)sum / (double)nr / 1e3;
	}
	m->search_mean_us = ns_done ? (double)ssum / ns_done / 1e3 : 0;
	m->search_max_us = (double)smax / 1e3;
	*clock = end + 1000000000ull;
	free(t);
	free(lat);
}

struct inter {
	struct mix reads_alone, reads_busy, search_alone, search_busy;
	uint64_t ns_mib, db_n;
	unsigned stripes;
};

static void interference(int quick, const char *trace_path, struct inter *o)
{
	/* 96 MiB stripes: a 1 GiB namespace fills 11 of them, GC comes soon */
	const char *params = "pages_per_block=24;ftl_op=145";
	uint64_t ns_bytes = 1ull << 30, clock = 1000000;
	uint32_t nsearch = quick ? 8 : 40, i;
	uint8_t **ref = calloc(nsearch, sizeof(*ref));
	size_t *reflen = calloc(nsearch, sizeof(*reflen));
	struct ftl_stats fs;
	struct isp_dev *dev = open_drive("reis-ssd1", params, ns_bytes, NULL);
	struct db d;
	struct ft_trace *tr = NULL;

	memset(o, 0, sizeof(*o));
	o->ns_mib = ns_bytes >> 20;
	o->db_n = quick ? 20000 : 100000;
	if (deploy(dev, &d, 1, (uint32_t)o->db_n, &clock)) {
		fprintf(stderr, "bench_ftl: deploy failed\n");
		exit(1);
	}
	ftl_get_stats(isp_dev_ftl(dev), &fs, 0);
	o->stripes = fs.stripes;
	/* searches alone (their hits are the reference) */
	o->search_alone.search_qd = 1;
	o->search_alone.searches = nsearch;
	run_mix(dev, &d, ns_bytes, &o->search_alone, &clock, NULL, NULL, ref, reflen);
	/* 4 KiB random reads at QD 16 alone */
	o->reads_alone.read_qd = 16;
	o->reads_alone.reads = quick ? 5000 : 40000;
	run_mix(dev, &d, ns_bytes, &o->reads_alone, &clock, NULL, NULL, NULL, NULL);
	/* the same reads beside the search stream (QD 1) */
	o->reads_busy = o->reads_alone;
	o->reads_busy.search_qd = 1;
	o->reads_busy.searches = nsearch;
	if (trace_path && ft_trace_new(1u << 22, &tr) == 0)
		isp_dev_trace_all(dev, tr);
	run_mix(dev, &d, ns_bytes, &o->reads_busy, &clock, ref, reflen, NULL, NULL);
	if (tr) {
		FILE *f = fopen(trace_path, "w");

		isp_dev_trace_all(dev, NULL);
		if (f) {
			ft_trace_write_file(isp_dev_timing(dev), tr, f);
			fclose(f);
		}
		ft_trace_free(tr);
	}
	/* searches during a 4 KiB random-write burst at QD 32 (GC runs) */
	o->search_busy.search_qd = 1;
	o->search_busy.searches = nsearch;
	o->search_busy.write_qd = 32;
	o->search_busy.writes = quick ? 20000 : 200000;
	run_mix(dev, &d, ns_bytes, &o->search_busy, &clock, ref, reflen, NULL, NULL);
	for (i = 0; i < nsearch; i++)
		free(ref[i]);
	free(ref);
	free(reflen);
	free(d.codes);
	free(d.i8);
	isp_dev_close(dev);
}

/* ---- output ---- */

static double ratio(double model, double pub)
{
	return pub > 0 ? model / pub : 0;
}

static const char *within(double r)
{
	return r <= 0 ? "-" : r >= 0.75 && r <= 1.25 ? "yes" : "no";
}

static void row_md(const char *what, double model, double pub, const char *unit,
		   const char *src, const char *note)
{
	double r = ratio(model, pub);

	if (pub > 0)
		printf("| %s | %.0f %s | %.0f %s | %.2f | %s | %s%s%s |\n", what, model, unit, pub,
		       unit, r, within(r), src, note[0] ? "; " : "", note);
	else
		printf("| %s | %.1f %s | none found | - | - | %s |\n", what, model, unit, note);
}

static void row_csv(FILE *f, const char *product, const char *what, double model,
		    double pub, const char *src)
{
	double r = ratio(model, pub);

	fprintf(f, "\"%s\",\"%s\",%.6g,%.6g,%.4f,%s,\"%s\"\n", product, what, pub, model, r,
		within(r), src);
}

int main(int argc, char **argv)
{
	struct ds_rows ds[2];
	struct inter in;
	const char *trace = NULL, *csv_file = NULL;
	int md = 0, csv = 0, quick = 0, i;
	double t0 = wall(), load0 = loadavg();
	time_t now = time(NULL);
	char day[32];
	static const char usage[] = "usage: bench_ftl [--md | --csv] [--csv-file F] [-q] "
				    "[-t trace.json]\n";

	ex_help(argc, argv, usage);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--md"))
			md = 1;
		else if (!strcmp(argv[i], "--csv"))
			csv = 1;
		else if (!strcmp(argv[i], "-q"))
			quick = 1;
		else if (!strcmp(argv[i], "-t") && i + 1 < argc)
			trace = argv[++i];
		else if (!strcmp(argv[i], "--csv-file") && i + 1 < argc)
			csv_file = argv[++i];
		else
			ex_usage_err("bench_ftl", "unknown option or missing value", argv[i], usage);
	}
	strftime(day, sizeof(day), "%Y-%m-%d", gmtime(&now));
	/* 12.6 M units of namespace on both (48 GiB); quick: an eighth */
	datasheet(&runs[0], quick ? 16 : 128, quick, &ds[0]);
	datasheet(&runs[1], quick ? 8 : 64, quick, &ds[1]);
	interference(quick, trace, &in);

	if (csv || csv_file) {
		FILE *f = csv_file ? fopen(csv_file, "w") : stdout;

		if (!f) {
			perror(csv_file);
			return 1;
		}
		fprintf(f, "product,quantity,published,model,ratio,within_25pct,source\n");
		for (i = 0; i < 2; i++) {
			const struct preset_run *p = ds[i].pr;

			row_csv(f, p->product, "4 KiB random read IOPS, QD 256", ds[i].rr_iops,
				p->pub_rr, p->cal_rr ? "calibrated (AF4)" : p->src_rr);
			row_csv(f, p->product, "128 KiB sequential read MB/s, QD 32", ds[i].sr_mbps,
				p->pub_sr, p->src_seq);
			row_csv(f, p->product, "128 KiB sequential write MB/s, QD 32", ds[i].sw_mbps,
				p->pub_sw, p->cal_sw ? "calibrated (AF8)" : p->src_seq);
			row_csv(f, p->product, "4 KiB random write IOPS, steady state, QD 128",
				ds[i].rw_iops, p->pub_rw, p->src_rw);
			row_csv(f, p->product, "4 KiB random read latency us, QD 1", ds[i].qd1_us, 0,
				"no published figure reachable");
		}
		if (csv_file)
			fclose(f);
		if (!md)
			return 0;
	}
	if (md) {
		printf("## Datasheet rows: ordinary I/O through the FTL (not paper rows)\n\n");
		printf("`examples/bench/bench_ftl.c` (docs/ftl.md): the FTL in process on each "
		       "REIS preset's channels, dies and planes (96-page blocks, 150 / 75 per plane; "
		       "a %.1f GiB namespace; the preset's `ftl_op`), at the datasheets' conditions, "
		       "beside the product REIS names for the preset (REIS Sec. 5, Table 3: 128 dies "
		       "of 512 Gb, the 7.68 TB models). These rows are not in the paper count above. "
		       "Run %s, %.0f s of wall time, load average %.1f at the start and %.1f at "
		       "the end.\n\n", ds[0].ns_gib_x10 / 10.0, day, wall() - t0, load0, loadavg());
		printf("| quantity | model | published | ratio | within 25 %% | source |\n");
		printf("|---|---:|---:|---:|---|---|\n");
		for (i = 0; i < 2; i++) {
			const struct preset_run *p = ds[i].pr;
			char note[160];

			printf("| **%s = %s** | | | | | |\n", p->preset, p->product);
			snprintf(note, sizeof(note), "%s%s", p->cal_rr ? p->cal_rr : "",
				 p->cal_rr ? " calibrated to it: not a check" : "");
			row_md("4 KiB random read IOPS, QD 256", ds[i].rr_iops, p->pub_rr, "", p->src_rr,
			       note);
			row_md("128 KiB sequential read, QD 32", ds[i].sr_mbps, p->pub_sr, "MB/s",
			       p->src_seq, "");
			snprintf(note, sizeof(note), "%s%s", p->cal_sw ? p->cal_sw : "",
				 p->cal_sw ? " calibrated to it: not a check" : "");
			row_md("128 KiB sequential write, QD 32", ds[i].sw_mbps, p->pub_sw, "MB/s",
			       p->src_seq, note);
			snprintf(note, sizeof(note), "after 2x the drive of random writes; WA %.2f, "
				 "OP %.1f %%", ds[i].rw_wa, ds[i].op_pct);
			row_md("4 KiB random write IOPS, steady state, QD 128", ds[i].rw_iops,
			       p->pub_rw, "", p->src_rw, note);
			snprintf(note, sizeof(note), "no published figure reachable; p99 %.1f us",
				 ds[i].qd1_p99_us);
			row_md("4 KiB random read latency, QD 1", ds[i].qd1_us, 0, "us", "", note);
		}
		printf("\nEmulator CPU per ordinary 4 KiB read (the model's booking, in process): "
		       "%.2f us at QD 1, %.2f us at QD 256 (reis-ssd1), %.2f / %.2f us (reis-ssd2).\n",
		       ds[0].host_read_qd1_ns / 1e3, ds[0].host_read_ns / 1e3,
		       ds[1].host_read_qd1_ns / 1e3, ds[1].host_read_ns / 1e3);
		printf("\nInterference on reis-ssd1 (1 GiB namespace, %u stripes; a %llu-entry "
		       "1024-bit database; searches of 16 queries at QD 1):\n\n",
		       in.stripes, (unsigned long long)in.db_n);
		printf("| run | 4 KiB reads p50 / p99 | searches mean / max | GC victims | "
		       "results |\n|---|---:|---:|---:|---|\n");
		printf("| reads QD 16 alone | %.1f / %.1f us | - | %llu | - |\n",
		       in.reads_alone.read_p50_us, in.reads_alone.read_p99_us,
		       (unsigned long long)in.reads_alone.gc_victims);
		printf("| reads QD 16 + searches | %.1f / %.1f us | %.0f / %.0f us | %llu | %s |\n",
		       in.reads_busy.read_p50_us, in.reads_busy.read_p99_us,
		       in.reads_busy.search_mean_us, in.reads_busy.search_max_us,
		       (unsigned long long)in.reads_busy.gc_victims,
		       in.reads_busy.exact ? "exact" : "**differ**");
		printf("| searches alone | - | %.0f / %.0f us | %llu | reference |\n",
		       in.search_alone.search_mean_us, in.search_alone.search_max_us,
		       (unsigned long long)in.search_alone.gc_victims);
		printf("| searches + 4 KiB random writes QD 32 | - | %.0f / %.0f us | %llu | %s |\n\n",
		       in.search_busy.search_mean_us, in.search_busy.search_max_us,
		       (unsigned long long)in.search_busy.gc_victims,
		       in.search_busy.exact ? "exact" : "**differ**");
		return 0;
	}
	for (i = 0; i < 2; i++) {
		const struct ds_rows *r = &ds[i];

		printf("%s (%s): %u planes, %.1f GiB namespace, %u stripes, OP %.1f %%, %.0f s\n",
		       r->pr->preset, r->pr->product, r->planes, r->ns_gib_x10 / 10.0, r->stripes,
		       r->op_pct, r->secs);
		printf("  4 KiB random read QD1: %.2f us (p99 %.2f)\n", r->qd1_us, r->qd1_p99_us);
		printf("  4 KiB random read QD256: %.0f IOPS (published %.0f, ratio %.2f)\n",
		       r->rr_iops, r->pr->pub_rr, ratio(r->rr_iops, r->pr->pub_rr));
		printf("  128 KiB seq read QD32: %.0f MB/s (published %.0f, ratio %.2f)\n",
		       r->sr_mbps, r->pr->pub_sr, ratio(r->sr_mbps, r->pr->pub_sr));
		printf("  128 KiB seq write QD32: %.0f MB/s (published %.0f, ratio %.2f)\n",
		       r->sw_mbps, r->pr->pub_sw, ratio(r->sw_mbps, r->pr->pub_sw));
		printf("  4 KiB random write steady QD128: %.0f IOPS, WA %.2f (published %.0f, "
		       "ratio %.2f)\n", r->rw_iops, r->rw_wa, r->pr->pub_rw,
		       ratio(r->rw_iops, r->pr->pub_rw));
		printf("  host CPU per 4 KiB read: %.0f ns (QD1), %.0f ns (QD256)\n",
		       r->host_read_qd1_ns, r->host_read_ns);
	}
	printf("interference (reis-ssd1, %u stripes, %llu entries):\n", in.stripes,
	       (unsigned long long)in.db_n);
	printf("  reads alone: p50 %.1f p99 %.1f us\n", in.reads_alone.read_p50_us,
	       in.reads_alone.read_p99_us);
	printf("  reads + searches: p50 %.1f p99 %.1f us; searches %.0f us mean (%s)\n",
	       in.reads_busy.read_p50_us, in.reads_busy.read_p99_us, in.reads_busy.search_mean_us,
	       in.reads_busy.exact ? "exact" : "DIFFER");
	printf("  searches alone: %.0f us mean, %.0f max\n", in.search_alone.search_mean_us,
	       in.search_alone.search_max_us);
	printf("  searches + writes: %.0f us mean, %.0f max, %llu GC victims (%s)\n",
	       in.search_busy.search_mean_us, in.search_busy.search_max_us,
	       (unsigned long long)in.search_busy.gc_victims,
	       in.search_busy.exact ? "exact" : "DIFFER");
	printf("wall %.0f s, load average %.1f -> %.1f\n", wall() - t0, load0, loadavg());
	return in.reads_busy.exact && in.search_busy.exact ? 0 : 1;
}
