/* SPDX-License-Identifier: MIT */
/*
 * bench_reis_model - the REIS engine in hw-model, measured in-process.
 *
 *  1. Builds a synthetic clustered database (100 k x 1024-bit codes with
 *     INT8 codes, 256 IVF clusters) and deploys it on reis-ssd1 and
 *     reis-ssd2 through the REIS commands (isp_dev_exec()).
 *  2. Modeled latency of one query and QPS of a 16-query batch: brute force
 *     with and without distance filtering, IVF at several nprobe (with the
 *     recall@10 of IVF against the brute-force result).
 *  3. Host CPU time per emulated query against a plain host scan of the
 *     same binary codes (XOR + POPCNT + top-10), in the same run.
 *  4. Analytic mode (docs/timing-model.md §4) at paper scale: 41.5 M x 1024-bit, BF and IVF
 *     (16,384 clusters) nprobe sweep, and the Fig. 9 study (No-OPT, DF,
 *     DF+PL, DF+PL+MPIBC).
 *
 * Usage: bench_reis_model [n]   (default 100000)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flash_preset.h"
#include "isp_dev.h"
#include "isp_wire.h"
#include "reis_engine.h"
#include "ex_usage.h"

#define DIM 1024
#define CB (DIM / 8)
#define NLIST 256
#define NQ 16
#define K 10
#define XFER (2u << 20)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
	fprintf(stderr, "bench_reis_model: %s failed\n", what);
	exit(1);
}

static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

struct data {
	uint64_t n;
	uint8_t *bin;
	int8_t *i8;
	uint8_t *cent;
	uint32_t csize[NLIST];
	uint8_t qb[NQ * CB];
	int8_t q8[NQ * DIM];
};

static void near(uint8_t *out, const uint8_t *c, uint32_t pm, uint32_t *s)
{
	uint32_t b;

	memcpy(out, c, CB);
	for (b = 0; b < DIM; b++)
		if (rnd(s) % 1000 < pm)
			out[b / 8] ^= (uint8_t)(1u << (b % 8));
}

static void int8_of(int8_t *out, const uint8_t *bin, uint32_t *s)
{
	uint32_t d;

	for (d = 0; d < DIM; d++) {
		int v = 1 + (int)(rnd(s) % 120);

		out[d] = (int8_t)(((bin[d / 8] >> (d % 8)) & 1) ? v : -v);
	}
}

static void make_data(struct data *D, uint64_t n)
{
	uint32_t s = 12345, c, j, q;
	uint64_t e = 0;

	D->n = n;
	D->bin = malloc(n * CB);
	D->i8 = malloc(n * DIM);
	D->cent = malloc(NLIST * CB);
	if (!D->bin || !D->i8 || !D->cent)
		die("malloc");
	/* Overlapping clusters (centers near a common code), so IVF can miss
	 * neighbours and nprobe matters. */
	{
		uint8_t base[CB];

		for (j = 0; j < CB; j++)
			base[j] = (uint8_t)rnd(&s);
		for (c = 0; c < NLIST; c++)
			near(D->cent + c * CB, base, 250, &s);
	}
	memset(D->csize, 0, sizeof(D->csize));
	for (e = 0; e < n; e++)
		D->csize[rnd(&s) % NLIST]++;
	for (c = 0, e = 0; c < NLIST; c++)
		for (j = 0; j < D->csize[c]; j++, e++) {
			near(D->bin + e * CB, D->cent + c * CB, 250, &s);
			int8_of(D->i8 + e * DIM, D->bin + e * CB, &s);
		}
	for (q = 0; q < NQ; q++) {
		near(D->qb + q * CB, D->bin + (rnd(&s) % n) * CB, 150, &s);
		int8_of(D->q8 + q * DIM, D->qb + q * CB, &s);
	}
}

static uint64_t clk = 1000;

static uint16_t run(struct isp_dev *dev, uint8_t opc, uint32_t c12, uint32_t c13, uint64_t off,
		    void *buf, uint32_t len, struct isp_cpl *cpl)
{
	struct isp_cmd c;

	memset(&c, 0, sizeof(c));
	c.opcode = opc;
	c.nsid = 1;
	c.cdw10 = (len + 3) / 4;
	c.cdw12 = c12;
	c.cdw13 = c13;
	c.cdw14 = (uint32_t)off;
	c.cdw15 = (uint32_t)(off >> 32);
	c.submit_ns = clk;
	clk += 100000000000ull;	/* idle drive between commands */
	return isp_dev_exec(dev, &c, buf, isp_cmd_data_len(&c), cpl);
}

static void write_sec(struct isp_dev *dev, uint32_t sec, const void *p, uint64_t size)
{
	uint8_t *buf = malloc(XFER);
	struct isp_cpl cpl;
	uint64_t off;

	if (!buf)
		die("malloc");
	for (off = 0; off < size; off += XFER) {
		uint32_t n = (uint32_t)(size - off < XFER ? size - off : XFER);

		memset(buf, 0, XFER);
		memcpy(buf, (const uint8_t *)p + off, n);
		if (run(dev, ISP_OP_REIS_DB_WRITE, 1, sec, off, buf, (n + 3) & ~3u, &cpl))
			die(cpl.err ? cpl.err : "DB_WRITE");
	}
	free(buf);
}

static struct isp_dev *deploy(const char *preset, const struct data *D)
{
	struct isp_dev_config cfg = { .preset = preset,
				      .params = "blocks_per_plane=16;slc_blocks=8",
				      .max_xfer = XFER };
	struct isp_wire_reis_create cr;
	struct isp_wire_reis_calib cal = { 9000, 8 };
	struct isp_dev *dev;
	struct isp_cpl cpl;
	char err[256];

	if (isp_dev_open(&cfg, &dev, err, sizeof(err)))
		die(err);
	memset(&cr, 0, sizeof(cr));
	cr.did = 1;
	cr.kind = ISP_REIS_IVF;
	cr.flags = ISP_REIS_DBF_INT8;
	cr.dim = DIM;
	cr.n = D->n;
	cr.nlist = NLIST;
	cr.ncalib = 1;
	if (run(dev, ISP_OP_REIS_DB_CREATE, 0, 0, 0, &cr, sizeof(cr), &cpl))
		die("DB_CREATE");
	write_sec(dev, ISP_REIS_SEC_BIN, D->bin, D->n * CB);
	write_sec(dev, ISP_REIS_SEC_INT8, D->i8, D->n * DIM);
	write_sec(dev, ISP_REIS_SEC_CENTROIDS, D->cent, NLIST * CB);
	write_sec(dev, ISP_REIS_SEC_CLUSTERS, D->csize, sizeof(D->csize));
	write_sec(dev, ISP_REIS_SEC_CALIB, &cal, sizeof(cal));
	if (run(dev, ISP_OP_REIS_DB_COMMIT, 1, 0, 0, NULL, 0, &cpl))
		die("DB_COMMIT");
	return dev;
}

struct sres {
	uint64_t model_ns;
	double host_s;
	uint64_t ids[NQ * K];
	uint64_t passed, compared;
};

/* One SEARCH / IVF_SEARCH of @nq queries from @q0; host time of the
 * command and of reading its result. */
static void search(struct isp_dev *dev, int ivf, uint32_t q0, uint32_t nq, uint32_t flags,
		   uint32_t thr, uint32_t nprobe, const struct data *D, struct sres *out)
{
	static uint32_t ticket = 1;
	static uint8_t buf[72 + NQ * (CB + DIM)], res[64 * 1024];
	struct isp_wire_reis_search s;
	uint32_t len = sizeof(s) + nq * (CB + DIM), i;
	struct isp_wire_reis_result rr;
	struct isp_cpl cpl;
	double t0;

	memset(&s, 0, sizeof(s));
	s.did = 1;
	s.nq = nq;
	s.k = K;
	s.flags = flags;
	s.df_threshold = thr;
	s.nprobe = nprobe;
	s.dim = DIM;
	memcpy(buf, &s, sizeof(s));
	memcpy(buf + sizeof(s), D->qb + q0 * CB, nq * CB);
	memcpy(buf + sizeof(s) + nq * CB, D->q8 + q0 * DIM, nq * DIM);
	t0 = now();
	if (run(dev, ivf ? ISP_OP_REIS_IVF_SEARCH : ISP_OP_REIS_SEARCH, ++ticket, 0, 0, buf,
		len, &cpl))
		die(cpl.err ? cpl.err : "SEARCH");
	out->model_ns = cpl.model_ns;
	if (run(dev, ISP_OP_RESULT_READ, ticket, ISP_RESULT_F_RELEASE, 0, res, sizeof(res), &cpl))
		die("RESULT_READ");
	out->host_s = now() - t0;
	memcpy(&rr, res + sizeof(struct isp_wire_result_hdr), sizeof(rr));
	out->passed = rr.entries_passed;
	out->compared = rr.entries_compared;
	for (i = 0; i < nq * K && i < NQ * K; i++) {
		struct isp_wire_reis_hit h;

		memcpy(&h, res + sizeof(struct isp_wire_result_hdr) + sizeof(rr) + i * sizeof(h),
		       sizeof(h));
		out->ids[i] = h.id;
	}
}

/* The plain host baseline: XOR + POPCNT over the same codes, top 10. */
__attribute__((target("popcnt")))
static void plain_scan(const struct data *D, const uint8_t *q, uint64_t *best)
{
	uint32_t bd[K], i, j;
	uint64_t e, qw[CB / 8];

	memcpy(qw, q, CB);
	for (i = 0; i < K; i++)
		bd[i] = UINT32_MAX;
	for (e = 0; e < D->n; e++) {
		const uint64_t *x = (const uint64_t *)(const void *)(D->bin + e * CB);
		uint32_t d = 0;

		for (j = 0; j < CB / 8; j++)
			d += (uint32_t)__builtin_popcountll(x[j] ^ qw[j]);
		if (d >= bd[K - 1])
			continue;
		for (i = K - 1; i > 0 && bd[i - 1] > d; i--) {
			bd[i] = bd[i - 1];
			best[i] = best[i - 1];
		}
		bd[i] = d;
		best[i] = e;
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Threshold passing about @frac of the entries for query 0. */
static uint32_t threshold(const struct data *D, double frac)
{
	uint32_t *d = malloc(D->n * sizeof(*d)), t, j;
	uint64_t e;

	if (!d)
		die("malloc");
	for (e = 0; e < D->n; e++) {
		d[e] = 0;
		for (j = 0; j < CB; j++)
			d[e] += (uint32_t)__builtin_popcount(D->bin[e * CB + j] ^ D->qb[j]);
	}
	qsort(d, D->n, sizeof(*d), cmp_u32);
	t = d[(uint64_t)(D->n * frac)] + 1;
	free(d);
	return t;
}

static double recall(const uint64_t *a, const uint64_t *ref, uint32_t nq)
{
	uint32_t q, i, j, hit = 0;

	for (q = 0; q < nq; q++)
		for (i = 0; i < K; i++)
			for (j = 0; j < K; j++)
				hit += a[q * K + i] == ref[q * K + j];
	return (double)hit / (nq * K);
}

static void bench_device(const char *preset, const struct data *D, uint32_t thr)
{
	static const uint32_t nprobes[] = { 1, 4, 16, 64 };
	struct isp_dev *dev;
	struct sres one, batch, bf;
	double t0, plain = 1e9, emul, dt;
	uint64_t best[K], lat;
	uint32_t q, i;

	t0 = now();
	dev = deploy(preset, D);
	printf("\n%s: deployed %llu x %u bit (+INT8, %u clusters) in %.2f s host\n", preset,
	       (unsigned long long)D->n, DIM, NLIST, now() - t0);
	/* Host times are the fastest of the queries: the machine is shared. */
	for (q = 0; q < NQ; q++) {
		t0 = now();
		plain_scan(D, D->qb + q * CB, best);
		dt = now() - t0;
		plain = dt < plain ? dt : plain;
	}
	/* Brute force: reference ids of every query (DF off, rerank). */
	search(dev, 0, 0, NQ, ISP_REIS_SF_NO_DF, 0, 0, D, &bf);
	printf("  %-28s %10s %10s %12s %12s %8s\n", "search (model: mean, QPS of 16)",
	       "lat (us)", "QPS", "host/query", "plain scan", "ratio");
	for (i = 0; i < 3; i++) {
		static const char *const nm[] = { "BF, DF off (No-DF)", "BF, DF ~1 % pass",
						  "BF, DF, no PL/MPIBC" };
		uint32_t fl = i == 0 ? ISP_REIS_SF_NO_DF :
			      i == 2 ? ISP_REIS_SF_NO_PL | ISP_REIS_SF_NO_MPIBC : 0;

		lat = 0;
		emul = 1e9;
		for (q = 0; q < NQ; q++) {
			search(dev, 0, q, 1, fl, thr, 0, D, &one);
			lat += one.model_ns;
			emul = one.host_s < emul ? one.host_s : emul;
		}
		search(dev, 0, 0, NQ, fl, thr, 0, D, &batch);
		printf("  %-28s %10.1f %10.0f %10.3f ms %10.3f ms %7.2fx   (%.2f %% passed)\n",
		       nm[i], lat / 1e3 / NQ, NQ * 1e9 / batch.model_ns, emul * 1e3,
		       plain * 1e3, emul / plain,
		       100.0 * batch.passed / (batch.compared ? batch.compared : 1));
	}
	for (i = 0; i < sizeof(nprobes) / sizeof(nprobes[0]); i++) {
		char nm[64];

		lat = 0;
		emul = 1e9;
		for (q = 0; q < NQ; q++) {
			search(dev, 1, q, 1, 0, 0, nprobes[i], D, &one);
			lat += one.model_ns;
			emul = one.host_s < emul ? one.host_s : emul;
		}
		search(dev, 1, 0, NQ, 0, 0, nprobes[i], D, &batch);
		snprintf(nm, sizeof(nm), "IVF nprobe %u (R@10 %.2f)", nprobes[i],
			 recall(batch.ids, bf.ids, NQ));
		printf("  %-28s %10.1f %10.0f %10.3f ms %10.3f ms %7.2fx\n", nm, lat / 1e3 / NQ,
		       NQ * 1e9 / batch.model_ns, emul * 1e3, plain * 1e3, emul / plain);
	}
	isp_dev_close(dev);
}

static void paper(const char *preset)
{
	static const uint32_t nprobes[] = { 16, 32, 64, 128, 256 };
	static const struct { const char *name; uint32_t flags; } fig9[] = {
		{ "No-OPT", ISP_REIS_SF_NO_DF | ISP_REIS_SF_NO_PL | ISP_REIS_SF_NO_MPIBC },
		{ "DF", ISP_REIS_SF_NO_PL | ISP_REIS_SF_NO_MPIBC },
		{ "DF+PL", ISP_REIS_SF_NO_MPIBC },
		{ "DF+PL+MPIBC", 0 },
	};
	struct fp_params p;
	struct re_est e;
	struct re_est_out o;
	double t0;
	uint32_t i, j;

	if (fp_preset(preset, &p))
		die("preset");
	memset(&e, 0, sizeof(e));
	e.kind = ISP_REIS_BF;
	e.dim = 1024;
	e.n = 41500000;
	e.db_flags = ISP_REIS_DBF_INT8;
	e.doc_mode = ISP_REIS_DOC_SUBPAGE;
	e.nq = 1;
	e.k = 10;
	e.df_threshold = 400;
	e.pass = 0.01;	/* REIS 4.3.3: DF keeps ~1 % */
	printf("\n%s, 41.5 M x 1024 bit, DF pass 1 %%, k 10, rerank 100 (analytic):\n", preset);
	for (j = 0; j < 4; j++) {
		e.kind = ISP_REIS_BF;
		e.nlist = 0;
		e.nprobe = 0;
		e.flags = fig9[j].flags;
		t0 = now();
		if (re_estimate(&p, &e, &o))
			die("re_estimate");
		printf("  BF  %-12s %10.3f ms  %8.1f QPS  (%llu pages, %.0f ms host)\n",
		       fig9[j].name, o.model_ns / 1e6, 1e9 / o.model_ns,
		       (unsigned long long)o.pages_read, (now() - t0) * 1e3);
	}
	e.kind = ISP_REIS_IVF;
	e.nlist = 16384;
	for (i = 0; i < sizeof(nprobes) / sizeof(nprobes[0]); i++) {
		printf("  IVF nprobe %-4u", nprobes[i]);
		for (j = 0; j < 4; j++) {
			e.nprobe = nprobes[i];
			e.flags = fig9[j].flags;
			if (re_estimate(&p, &e, &o))
				die("re_estimate");
			printf("  %s %.3f ms", fig9[j].name, o.model_ns / 1e6);
		}
		printf("  -> %.0f QPS\n", 1e9 / o.model_ns);
	}
}

int main(int argc, char **argv)
{
	static const char usage[] = "usage: bench_reis_model [N]   (entries, 1000.., "
				    "default 100000)\n";
	struct data D;
	uint64_t n = 100000;
	uint32_t thr;
	const char *kern;
	re_hamming_fn fn;

	ex_operands_only("bench_reis_model", argc, argv, usage);
	if (argc > 2)
		ex_usage_err("bench_reis_model", "unexpected argument", argv[2], usage);
	if (argc > 1)
		n = ex_u64("bench_reis_model", "N", argv[1], 1000, UINT64_C(1) << 32, usage);
	re_hamming_get(NULL, &fn, &kern);
	printf("bench_reis_model: n = %llu, Hamming kernel %s\n", (unsigned long long)n, kern);
	make_data(&D, n);
	thr = threshold(&D, 0.01);
	printf("DF threshold %u (about 1 %% of the entries of query 0 pass)\n", thr);
	bench_device("reis-ssd1", &D, thr);
	bench_device("reis-ssd2", &D, thr);
	paper("reis-ssd1");
	paper("reis-ssd2");
	free(D.bin);
	free(D.i8);
	free(D.cent);
	return 0;
}
