/* SPDX-License-Identifier: MIT */
/*
 * bench_fidelity - the REIS figures and RecFlash Eq. 1-2 held against the
 * papers, one CSV row per number (docs/fidelity.md; scripts/fidelity.sh
 * adds the RecFlash Fig. 10-12 rows from bench_rf_embedding and writes
 * the doc and the plots).
 *
 * Steps:
 *  1. RecFlash Eq. 1-2 (Table I, recflash-slc) through the timing engine;
 *  2. REIS analytic mode (docs/timing-model.md §4) at the paper's scale on
 *     reis-ssd1 and reis-ssd2: IVF over 1024-bit codes with INT8 rerank,
 *     DF keeping 1 %, nprobe 16..256 standing for the paper's
 *     Recall@10 sweep 0.90..0.98, three datasets (NQ, HotpotQA, wiki_full)
 *     - Fig. 9 (DF, PL, MPIBC on wiki_full), SSD2 over SSD1 (Fig. 7),
 *     REIS-ASIC (6.3.1), CPU-Real and No-I/O (Fig. 7, Table 3 host model),
 *     Table 4's retrieval share and end-to-end gain;
 *  3. each row: figure, series, paper, model, ratio = model / paper,
 *     within_25pct, settings.
 *
 * Usage: bench_fidelity [-v] [-p "k=v;..."] [-f PASS] [-F] [-r RULE]
 *        (a few seconds; prints CSV with a header; -v adds every estimated
 *        point on stderr; -p overrides preset values on both REIS SSDs and
 *        -f the IVF rows' DF pass rate, -F the pass rate of REIS 4.3.3's 1 %
 *        threshold inside the probed clusters, p(nprobe / nlist) as measured
 *        on the corpus (docs/timing-model.md A27), -r what a query of Fig. 7,
 *        9 and 6.3.1 costs (stream, one, floor), for sensitivity checks: the
 *        published rows use the presets as they are, 1 % and the stream)
 *        bench_fidelity -S | -S1
 *        (about a minute: the REIS rows over every combination of the
 *        unsourced REIS assumptions, markdown for docs/fidelity.md; -S1 the
 *        one-at-a-time part alone, a few seconds)
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flash_preset.h"
#include "flash_timing.h"
#include "isp_wire.h"
#include "reis_engine.h"

#include "../common/df_pass.h"

#define NPROBES 5
#define NDATA 3
/*
 * Fig. 7 and 9 measure QPS of a query stream; a query's time is
 * query_ns(), the stream rule over NQ queries (an NQ-query command's
 * latency / NQ). -v prints for each configuration that time, a one-query
 * command's latency (1q) and the busiest class's share per query (the
 * floor under any schedule, and its class); Table 4 (one RAG query) uses a
 * one-query command's latency.
 */
#define NQ 16

static const uint32_t nprobes[NPROBES] = { 16, 32, 64, 128, 256 };

/*
 * The evaluated datasets (REIS 5): BEIR NQ (2.68 M passages) and HotpotQA
 * (5.23 M), and wiki_full, "a public dataset based on wikipedia [60]"
 * whose English subset, wiki_en, has 41.5 M entries (3.1): Cohere's
 * wikipedia-2023-11-embed-multilingual-v3 (the Cohere embeddings of 4.2),
 * 247 M passages in all its languages by the Hugging Face listing
 * (docs/timing-model.md W7; -w sweeps it). nlist is 4 sqrt(n) rounded to
 * a power of two in log2 (nlist_of()). The query counts, over which
 * CPU-Real's load spreads, are BEIR's test sets (BEIR Table 1); wiki_full
 * has no query set, its 1000 is unsourced (C10).
 */
static struct ds {
	const char *name;
	uint64_t n;
	uint32_t nlist, queries;
} dsets[NDATA] = {
	{ "NQ", 2681468, 0, 3452 },
	{ "HotpotQA", 5233329, 0, 7405 },
	{ "wiki_full", 247000000, 0, 1000 },
};

/* 4 sqrt(n) rounded to the nearest power of two in log2 (FAISS's guideline
 * of 4-16 sqrt(n) clusters at its low end; docs/fidelity.md). */
static uint32_t nlist_of(uint64_t n)
{
	return 1u << (unsigned)lround(log2(4 * sqrt((double)n)));
}

static void set_nlists(void)
{
	unsigned d;

	for (d = 0; d < NDATA; d++)
		dsets[d].nlist = nlist_of(dsets[d].n);
}

static const char *overrides;	/* -p: fp_apply() list for both REIS presets */
/*
 * The DF pass rate inside IVF's probed clusters (docs/timing-model.md A27):
 * REIS 4.3.3 sets one threshold, the one a brute-force scan passes ~1 %
 * with, for every dataset; inside the probed clusters (the ones nearest
 * the query) the same threshold passes p(nprobe / nlist), measured on the
 * corpus (dfp_pass_ivf(), the low end of its range; -F the high end,
 * dfp_pass_ivf_hi(); -f a fixed rate, e.g. the former 1 %).
 */
enum { DF_A27, DF_A27_HI, DF_FIXED };
static int df_mode = DF_A27;
static double df_pass = 0.01;	/* -f's rate */

static double ivf_pass(uint32_t nprobe, uint32_t nlist)
{
	double f = (double)nprobe / nlist;

	return df_mode == DF_A27 ? dfp_pass_ivf(f) :
	       df_mode == DF_A27_HI ? dfp_pass_ivf_hi(f, nlist) : df_pass;
}

/*
 * -r: what a query of Fig. 7, 9 and 6.3.1 costs. REIS gives QPS without
 * saying how a stream is measured; the published rows use the stream rule
 * (docs/timing-model.md §6.2), -r and -S the other two readings.
 */
enum { RULE_STREAM, RULE_ONE, RULE_FLOOR, RULE_OVERLAP, NRULES };
static const char *const rule_arg[NRULES] = { "stream", "one", "floor", "overlap" };
static const char *const rule_text[NRULES] = {
	"stream rule over 16 queries", "one query at a time",
	"busiest resource's share of 16 queries",
	"16 queries overlapping on the planes",
};
static int rule;

/* The IVF rows' DF pass rate, for the rows' settings. */
static const char *pass_text(void)
{
	static char b[32];

	if (df_mode == DF_A27)
		return "A27's p(nprobe / nlist)";
	if (df_mode == DF_A27_HI)
		return "A27's p(nprobe / nlist) at its high end";
	snprintf(b, sizeof(b), "%g %%", df_pass * 100);
	return b;
}

/* -S: the rows' names and verdicts are captured instead of printed
 * (sweep()); a row is a bit of a uint32_t mask. */
#define MAXROWS 32
static struct {
	int on;
	unsigned n;
	char name[MAXROWS][160];
	uint32_t in;	/* rows within 25 % */
	uint32_t indep;	/* independent rows */
} cap;

/*
 * Document bytes of @n passages at wiki_en's 9 GB for 41.5 M (REIS 3.2),
 * the only corpus whose document size the paper gives.
 */
static uint64_t docs_bytes(uint64_t n)
{
	return (uint64_t)(9e9 * (double)n / 41.5e6);
}

/* -S's row names: "Fig. 9 DF / No-OPT avg SSD1" for the figure and series. */
static void shorten(char *b, size_t n)
{
	static const char *const sub[][2] = {
		{ " over ", " / " }, { "average", "avg" }, { " (x)", "" }, { ",", "" },
		{ "reis-ssd", "SSD" }, { "REIS-ASIC slowdown", "ASIC" }, { " (%)", " %" },
		{ " (ms)", " ms" },
	};
	char t[160], *p;
	unsigned i;

	for (i = 0; i < sizeof(sub) / sizeof(sub[0]); i++)
		while ((p = strstr(b, sub[i][0]))) {
			snprintf(t, sizeof(t), "%s", p + strlen(sub[i][0]));
			snprintf(p, n - (size_t)(p - b), "%s%s", sub[i][1], t);
		}
}

/*
 * What a row compares (docs/fidelity.md "The metric"): the quantity the
 * paper compares, one rule per kind of number, the same in every figure.
 *  M_FACTOR  a speedup, slowdown or ratio (x): model / paper;
 *  M_CUT     "X % lower" latency or energy: compared as the speedup
 *            1 / (1 - cut), so 70.8 % against 91.9 % is 3.4x against
 *            12.3x (ratio 0.28), not 0.77;
 *  M_GAIN    "X % higher" throughput (Fig. 9's MPIBC): the gain itself,
 *            model / paper, since the speedup 1 + gain would put "no
 *            effect" (1.00x) within 25 % of a 6 % gain;
 *  M_SHARE   a share of a whole (%): model / paper;
 *  M_VALUE   a time, energy, power or rate: model / paper.
 * @indep 0: the row cannot miss (an identity of the paper's own numbers, or
 * a model side built from the paper's cells); the headline counts only
 * independent rows.
 */
enum metric { M_FACTOR, M_CUT, M_GAIN, M_SHARE, M_VALUE };
static const char *const metric_name[] = { "factor", "cut-speedup", "gain", "share", "value" };

static double metric_ratio(enum metric m, double paper, double model)
{
	if (m == M_CUT)
		return model < 100 ? (100 - paper) / (100 - model) : 0;
	return paper != 0 ? model / paper : 0;
}

static void row(const char *fig, const char *series, enum metric m, int indep, double paper,
		double model, const char *settings)
{
	double r = metric_ratio(m, paper, model);
	int within = fabs(r - 1) <= 0.25;

	if (cap.on) {
		if (cap.n < MAXROWS) {
			snprintf(cap.name[cap.n], sizeof(cap.name[0]), "%s %s",
				 fig + (strncmp(fig, "REIS ", 5) ? 0 : 5), series);
			shorten(cap.name[cap.n], sizeof(cap.name[0]));
			cap.in |= (uint32_t)within << cap.n;
			cap.indep |= (uint32_t)(indep != 0) << cap.n;
		}
		cap.n++;
		return;
	}
	printf("\"%s\",\"%s\",%.6g,%.6g,%s,%.4f,%s,%s,\"%s\"\n", fig, series, paper, model,
	       metric_name[m], r, within ? "yes" : "no", indep ? "yes" : "no", settings);
}

static void die(const char *what)
{
	fprintf(stderr, "bench_fidelity: %s failed\n", what);
	exit(1);
}

/* Eq. 1-2 and the two worked examples of RecFlash III-B. */
static void eq_rows(void)
{
	struct fp_params p;
	struct ft *ft;
	uint64_t lat[2];
	int k;

	if (fp_preset("recflash-slc", &p))
		die("preset");
	row("RecFlash Eq. 1", "t_C/A (us)", M_VALUE, 0, 0.115, ft_t_ca(&p) / 1e6,
	    "recflash-slc, Table I arithmetic (cannot miss)");
	row("RecFlash Eq. 2", "t_DO, N = 128 B (us)", M_VALUE, 0, 2.58, ft_t_dout(&p, 128) / 1e6,
	    "recflash-slc, Table I arithmetic (cannot miss)");
	if (ft_open(&p, &ft))
		die("ft_open");
	for (k = 0; k < 2; k++) {
		struct ft_page_op op = { .mode = ISP_CELL_SLC, .n_dout = k ? 2 : 1,
					 .dout_bytes = 128 };
		struct ft_cmd cmd;
		int i;

		/* Far apart in time, so one cannot delay the other. */
		ft_cmd_begin(ft, &cmd, k ? 10000000 : 1000, NULL);
		for (i = 0; i < (k ? 1 : 2); i++)
			ft_page_read(ft, &cmd, 0, &op, 0);
		if (ft_cmd_end(ft, &cmd, NULL))
			die("ft_cmd_end");
		lat[k] = cmd.end - cmd.start;
	}
	ft_close(ft);
	row("RecFlash Eq. 1-2", "2 vectors, 2 pages of a plane (us)", M_VALUE, 0, 55.39,
	    lat[0] / 1e6, "recflash-slc: 2 (t_C/A + t_R + t_DO), Table I arithmetic (cannot miss)");
	row("RecFlash Eq. 1-2", "2 vectors, 1 page (us)", M_VALUE, 0, 30.275, lat[1] / 1e6,
	    "recflash-slc: t_C/A + t_R + 2 t_DO, Table I arithmetic (cannot miss)");
}

/* Fig. 9's configurations. */
enum { NOOPT, DF, DFPL, ALL, NCONF };

static const uint32_t conf_flags[NCONF] = {
	ISP_REIS_SF_NO_DF | ISP_REIS_SF_NO_PL | ISP_REIS_SF_NO_MPIBC,
	ISP_REIS_SF_NO_PL | ISP_REIS_SF_NO_MPIBC,
	ISP_REIS_SF_NO_MPIBC,
	0,
};

struct point {
	uint64_t ns[NCONF];	/* per query in a stream (query_ns()) */
	uint64_t one_ns[NCONF];	/* a one-query command's latency */
	uint64_t search_ns[NCONF];	/* the search pipeline's period (A) */
	uint64_t occ_ns[NCONF];	/* busiest resource of 16 queries / 16 */
	uint32_t bind[NCONF];	/* and its class */
	uint64_t chan_ns, dram_ns, core_ns;	/* busy, full configuration */
	uint64_t pages;		/* of the full configuration */
	uint64_t asic_ns, cpu_ns, noio_ns;	/* per query */
	uint64_t cpu_slow_ns;	/* CPU-Real loading at Table 4's rate (-v) */
	uint64_t noio_all_ns;	/* No-I/O with every core on a query (-v) */
	uint64_t ondisk_ns;	/* the on-SSD-index host, C9 (-v) */
};

/*
 * A query's time in a stream (REIS 4.3.4): re_estimate_stream()'s rule
 * (docs/timing-model.md §6.2), an NQ-query command's latency / NQ on the
 * calendars that overlap what the paper lets overlap. @flags: the
 * configuration.
 */
static int query_ns(const struct fp_params *p, struct re_est *e, uint32_t flags,
		    struct re_stream_out *so, struct re_est_out *o)
{
	e->flags = flags;
	/* The stream rule: queries through the flash one at a time, each
	 * query's finish under the next searches (timing-model.md §6.2);
	 * -r overlap: a plane takes the next query when done with this one. */
	e->serial = rule != RULE_OVERLAP;
	return re_estimate_stream(p, e, NQ, so, o) ? -1 : 0;
}

/* A query's time under -r's rule: the stream, the query alone, the floor. */
static uint64_t rule_ns(const struct re_stream_out *so)
{
	return rule == RULE_ONE ? so->one_ns : rule == RULE_FLOOR ? so->occ_ns : so->ns;
}

static void estimate(const char *preset, const struct ds *d, uint32_t nprobe, struct point *pt)
{
	struct fp_params p;
	struct re_est e;
	struct re_est_out o;
	struct re_cpu c, f;
	struct re_cpu_query hq;
	uint64_t load;
	unsigned i;

	if (fp_preset(preset, &p) || (overrides && fp_apply(&p, overrides, NULL, 0)))
		die("preset");
	memset(&e, 0, sizeof(e));
	e.kind = ISP_REIS_IVF;
	e.dim = 1024;
	e.n = d->n;
	e.nlist = d->nlist;
	e.db_flags = ISP_REIS_DBF_INT8;
	e.doc_mode = ISP_REIS_DOC_SUBPAGE;
	e.nq = NQ;
	e.k = 10;
	e.df_threshold = 400;
	e.pass = ivf_pass(nprobe, d->nlist);
	e.nprobe = nprobe;
	for (i = 0; i < NCONF; i++) {
		struct re_stream_out so;

		if (query_ns(&p, &e, conf_flags[i], &so, &o))
			die("re_estimate_stream");
		pt->ns[i] = rule_ns(&so);
		pt->one_ns[i] = so.one_ns;
		pt->search_ns[i] = so.search_ns;
		pt->occ_ns[i] = so.occ_ns;
		pt->bind[i] = so.bind;
	}
	/* REIS-ASIC (6.3.1) under the same stream rule: the same pages and
	 * INT8 entries, every page whole to the controller's ECC, no latch,
	 * free compute (re_estimate()'s @asic). */
	{
		struct re_stream_out so;

		e.asic = 1;
		if (query_ns(&p, &e, conf_flags[ALL], &so, NULL))
			die("re_estimate_stream (ASIC)");
		e.asic = 0;
		pt->asic_ns = rule_ns(&so);
	}
	pt->pages = o.pages_read;
	pt->chan_ns = o.busy_ns[ISP_RES_CHANNEL] / p.channels;
	pt->dram_ns = o.busy_ns[ISP_RES_DRAM];
	pt->core_ns = o.busy_ns[ISP_RES_CORE];
	/*
	 * The host runs the same IVF search one query at a time, each on one
	 * core (C6): the nlist centroids, nprobe lists of 128-byte codes, a
	 * rerank of 100 INT8 candidates and their sort. CPU-Real, the paper's
	 * baseline "for document retrieval" (5), first loads the index (codes
	 * + INT8 vectors + centroids) and the documents once for the query
	 * set (C2), so a query pays load / queries; No-I/O does not load.
	 * FAISS's inverted lists keep a 64-bit id beside each code (C2).
	 */
	re_cpu_real(&c);
	hq.centroids = d->nlist;
	hq.codes = d->n * nprobe / d->nlist;
	hq.code_bytes = e.dim / 8;
	hq.rerank = 100;
	hq.dim = e.dim;
	load = d->n * (128 + 8 + 1024) + (uint64_t)d->nlist * 128 + docs_bytes(d->n);
	pt->noio_ns = re_cpu_ns(&c, 0, 1, &hq);
	pt->cpu_ns = re_cpu_ns(&c, load, d->queries, &hq) / d->queries;
	/* -v: the host that keeps the index on the drive instead (C9), its
	 * query's lists, rerank rows and k = 10 documents read per query */
	pt->ondisk_ns = pt->noio_ns + re_cpu_io_ns(&c, &hq, 10);
	/* -v: the host with a query on every core, and loading at Table 4's
	 * measured rate (C7) */
	c.streams = c.cores;
	pt->noio_all_ns = re_cpu_ns(&c, 0, 1, &hq);
	c.streams = 1;
	re_cpu_fig3(&f);
	c.load_mbps = f.load_mbps;
	pt->cpu_slow_ns = re_cpu_ns(&c, load, d->queries, &hq) / d->queries;
}

static const char *const res_name[ISP_RES_NCLASSES] = {
	"plane", "die", "chan", "core", "dram", "link",
};

static void verbose_point(const char *ssd, const struct ds *d, uint32_t nprobe,
			  const struct point *q)
{
	static const char *const conf[NCONF] = { "No-OPT", "DF", "DF+PL", "all" };
	unsigned i;

	fprintf(stderr, "%s %-9s nprobe %3u:", ssd, d->name, nprobe);
	for (i = 0; i < NCONF; i++)
		fprintf(stderr, " %s %.1f (1q %.1f, A %.1f, %s %.1f)", conf[i], q->ns[i] / 1e3,
			q->one_ns[i] / 1e3, q->search_ns[i] / 1e3, res_name[q->bind[i]],
			q->occ_ns[i] / 1e3);
	fprintf(stderr, " us; 16 queries: pages %" PRIu64
		", busy per channel %.1f, DRAM %.1f, core %.1f us; per query ASIC %.1f, "
		"CPU-Real %.1f (at Table 4's load rate %.1f; index on the SSD %.1f), "
		"No-I/O %.1f us\n",
		q->pages, q->chan_ns / 1e3, q->dram_ns / 1e3,
		q->core_ns / 1e3, q->asic_ns / 1e3, q->cpu_ns / 1e3, q->cpu_slow_ns / 1e3,
		q->ondisk_ns / 1e3, q->noio_ns / 1e3);
}

static void table4_rows(int verbose);

/*
 * -v: the host-internal check of Fig. 7, independent of REIS's model:
 * CPU-Real / No-I/O per point, against the paper's (REIS over CPU-Real) /
 * (REIS over No-I/O), about 13 / 1.8 = 7.2x on average and 112 / 5.3 =
 * 21x at most (a ratio of the paper's averages and maxima, not per point),
 * for the loading host (the model) and the on-SSD-index host (C9). The
 * host is the same on both SSDs, so one SSD's points cover it.
 */
static void host_check(const struct point (*pt)[NPROBES])
{
	double sum[2] = { 0 }, max[2] = { 0 };
	unsigned d, j, k, loadbound = 0;

	for (d = 0; d < NDATA; d++) {
		double dsum = 0;

		for (j = 0; j < NPROBES; j++) {
			const struct point *q = &pt[d][j];
			double r[2] = { (double)q->cpu_ns / (double)q->noio_ns,
					(double)q->ondisk_ns / (double)q->noio_ns };

			dsum += r[0];
			/* REIS 5: loading is "the biggest fraction" of CPU-Real */
			loadbound += q->cpu_ns > 2 * q->noio_ns;
			for (k = 0; k < 2; k++) {
				sum[k] += r[k];
				if (r[k] > max[k])
					max[k] = r[k];
			}
		}
		fprintf(stderr, "CPU-Real / No-I/O on %s (%u queries loading the index): "
			"average %.2fx\n", dsets[d].name, dsets[d].queries, dsum / NPROBES);
	}
	fprintf(stderr, "CPU-Real / No-I/O per point (the paper: about 7.2x average, 21x "
		"max): loading the index once per query set (the model) %.2fx / %.2fx; "
		"index left on the SSD (C9) %.2fx / %.2fx\n", sum[0] / (NDATA * NPROBES), max[0],
		sum[1] / (NDATA * NPROBES), max[1]);
	fprintf(stderr, "CPU-Real's loading outweighs its search (REIS 5: \"the biggest "
		"fraction\") at %u of %u points\n", loadbound, NDATA * NPROBES);
}

static void reis_rows(int verbose)
{
	static const char *const ssd[2] = { "reis-ssd1", "reis-ssd2" };
	static const double p_df_avg[2] = { 4.7, 5.7 }, p_df_max[2] = { 5.1, 6.5 };
	static const double p_mpibc[2] = { 6, 26 };
	static const double p_asic_lo[2] = { 4.1, 3.9 }, p_asic_hi[2] = { 5.0, 6.5 };
	static struct point pt[2][NDATA][NPROBES];
	double r21_sum = 0, r21_max = 0, cpu_sum = 0, cpu_max = 0, noio_sum = 0, noio_max = 0;
	double slow_sum = 0, slow_max = 0, all_sum = 0, all_max = 0;
	char set[256];
	unsigned s, d, j, n = 0;

	for (s = 0; s < 2; s++)
		for (d = 0; d < NDATA; d++)
			for (j = 0; j < NPROBES; j++) {
				const struct point *q = &pt[s][d][j];

				estimate(ssd[s], &dsets[d], nprobes[j], &pt[s][d][j]);
				if (verbose)
					verbose_point(ssd[s], &dsets[d], nprobes[j], q);
			}
	for (s = 0; s < 2; s++) {
		double df_sum = 0, df_max = 0, mp_sum = 0, lo = 1e30, hi = 0;
		char series[64];

		for (j = 0; j < NPROBES; j++) {
			const struct point *q = &pt[s][NDATA - 1][j];
			double df = (double)q->ns[NOOPT] / (double)q->ns[DF];

			df_sum += df;
			if (df > df_max)
				df_max = df;
			mp_sum += 100.0 * ((double)q->ns[DFPL] / (double)q->ns[ALL] - 1);
		}
		snprintf(set, sizeof(set), "%s, wiki_full %.1f M x 1024 b, IVF %u, "
			 "nprobe 16-256, DF pass %s, %s, analytic", ssd[s],
			 dsets[NDATA - 1].n / 1e6, dsets[NDATA - 1].nlist, pass_text(), rule_text[rule]);
		snprintf(series, sizeof(series), "DF over No-OPT, average (x), %s", ssd[s]);
		row("REIS Fig. 9", series, M_FACTOR, 1, p_df_avg[s], df_sum / NPROBES, set);
		snprintf(series, sizeof(series), "DF over No-OPT, max (x), %s", ssd[s]);
		row("REIS Fig. 9", series, M_FACTOR, 1, p_df_max[s], df_max, set);
		snprintf(series, sizeof(series), "MPIBC over DF+PL, average (%%), %s", ssd[s]);
		row("REIS Fig. 9", series, M_GAIN, 1, p_mpibc[s], mp_sum / NPROBES, set);
		for (d = 0; d < NDATA; d++)
			for (j = 0; j < NPROBES; j++) {
				const struct point *q = &pt[s][d][j];
				double a = (double)q->asic_ns / (double)q->ns[ALL];

				if (a < lo)
					lo = a;
				if (a > hi)
					hi = a;
			}
		snprintf(set, sizeof(set), "%s, NQ/HotpotQA/wiki_full, IVF, nprobe 16-256, "
			 "ASIC: every page read whole (data + spare) to the controller, no IBC, free "
			 "compute, same calendars as REIS, %s", ssd[s], rule_text[rule]);
		snprintf(series, sizeof(series), "REIS-ASIC slowdown, min (x), %s", ssd[s]);
		row("REIS 6.3.1", series, M_FACTOR, 1, p_asic_lo[s], lo, set);
		snprintf(series, sizeof(series), "REIS-ASIC slowdown, max (x), %s", ssd[s]);
		row("REIS 6.3.1", series, M_FACTOR, 1, p_asic_hi[s], hi, set);
	}
	for (d = 0; d < NDATA; d++)
		for (j = 0; j < NPROBES; j++) {
			const struct point *a = &pt[0][d][j], *b = &pt[1][d][j];
			double r = (double)a->ns[ALL] / (double)b->ns[ALL];

			r21_sum += r;
			if (r > r21_max)
				r21_max = r;
			for (s = 0; s < 2; s++) {
				double c = (double)pt[s][d][j].cpu_ns / (double)pt[s][d][j].ns[ALL];
				double x = (double)pt[s][d][j].noio_ns / (double)pt[s][d][j].ns[ALL];
				double y = (double)pt[s][d][j].cpu_slow_ns / (double)pt[s][d][j].ns[ALL];
				double z = (double)pt[s][d][j].noio_all_ns / (double)pt[s][d][j].ns[ALL];

				cpu_sum += c;
				noio_sum += x;
				if (c > cpu_max)
					cpu_max = c;
				if (x > noio_max)
					noio_max = x;
				slow_sum += y;
				if (y > slow_max)
					slow_max = y;
				all_sum += z;
				if (z > all_max)
					all_max = z;
			}
			n++;
		}
	snprintf(set, sizeof(set), "NQ/HotpotQA/wiki_full, IVF, nprobe 16-256, %s, "
		 "DF+PL+MPIBC, analytic", rule_text[rule]);
	row("REIS Fig. 7", "SSD2 over SSD1, average (x)", M_FACTOR, 1, 2.6, r21_sum / n, set);
	row("REIS Fig. 7", "SSD2 over SSD1, max (x)", M_FACTOR, 1, 3.2, r21_max, set);
	snprintf(set, sizeof(set), "both SSDs, NQ/HotpotQA/wiki_full, IVF, nprobe 16-256; "
		 "CPU-Real: Table 3 host model (C1-C10), one query at a time on one core, "
		 "index and documents loaded once per query set at the drive's rate");
	row("REIS Fig. 7", "REIS over CPU-Real, average (x)", M_FACTOR, 1, 13, cpu_sum / (2 * n), set);
	row("REIS Fig. 7", "REIS over CPU-Real, max (x)", M_FACTOR, 1, 112, cpu_max, set);
	row("REIS Fig. 7", "REIS over No-I/O, average (x)", M_FACTOR, 1, 1.8, noio_sum / (2 * n), set);
	row("REIS Fig. 7", "REIS over No-I/O, max (x)", M_FACTOR, 1, 5.3, noio_max, set);
	if (verbose)
		fprintf(stderr, "REIS over CPU-Real if it loaded at Table 4's rate (C7): "
			"average %.1fx, max %.1fx (the paper: 13x, 112x)\n", slow_sum / (2 * n),
			slow_max);
	if (verbose)
		fprintf(stderr, "REIS over No-I/O if all 128 cores ran a query each (DRAM-bound "
			"at C1): average %.2fx, max %.2fx (the paper: 1.8x, 5.3x)\n",
			all_sum / (2 * n), all_max);

	if (verbose)
		host_check(pt[0]);
	table4_rows(verbose);
}

/* REIS-SSD1's one-query brute-force search over @n codes: latency in ns. */
static uint64_t bf_latency(uint64_t n)
{
	struct fp_params p;
	struct re_est e;
	struct re_est_out o;

	if (fp_preset("reis-ssd1", &p) || (overrides && fp_apply(&p, overrides, NULL, 0)))
		die("preset");
	memset(&e, 0, sizeof(e));
	e.kind = ISP_REIS_BF;
	e.dim = 1024;
	e.n = n;
	e.db_flags = ISP_REIS_DBF_INT8;
	e.doc_mode = ISP_REIS_DOC_SUBPAGE;
	e.nq = 1;
	e.k = 10;
	e.df_threshold = 400;
	e.pass = 0.01;		/* REIS 4.3.3: brute force keeps ~1 % */
	if (re_estimate(&p, &e, &o))
		die("re_estimate");
	return o.model_ns;
}

/*
 * Table 4: one RAG query on REIS-SSD1 against Fig. 3's CPU system with BQ.
 * Fig. 3 uses FAISS flat indexes ("the same system as in Fig. 3"), so REIS
 * searches brute force; the columns are HotpotQA (5.23 M) and, though the
 * table heads it "NQ", wiki_en (41.5 M): 6.2 names "the HotpotQA and
 * wiki_en datasets", and its 67.3 % dataset loading is Fig. 3's wiki_en
 * (3.2: "67 % of the total latency"). The LLM stages (model loading,
 * encoding, generation) keep the paper's seconds; the paper's REIS search
 * is 0.02 % of 18.97 s and 0.15 % of 19.0 s (rounded percentages: +-25 %
 * and +-3 %). CPU+BQ is Fig. 3's system (re_cpu_fig3()): it loads the BQ
 * codes and documents (docs_bytes()) at its measured rate (C7) and scans
 * the flat index on one core (FAISS's one-query path, C3 and C6); -v adds
 * the paper's search seconds and the gain over a host that loads at the
 * drive's rate.
 */
static void table4_rows(int verbose)
{
	static const struct {
		const char *name;
		uint64_t n;
		double e2e_reis, share, e2e_cpu, cpu_search, cpu_load, gain;
	} t4[2] = {
		{ "HotpotQA", 5233329, 18.97, 0.02, 23.79, 0.29, 20.0, 1.25 },
		{ "NQ column (wiki_en)", 41500000, 19.0, 0.15, 61.69, 2.00, 67.3, 3.24 },
	};
	static const struct re_cpu_query none;
	struct re_cpu_query flat = { .code_bytes = 128 };
	struct re_cpu c, fast;
	char set[256], series[96];
	unsigned i;

	re_cpu_fig3(&c);
	re_cpu_real(&fast);
	for (i = 0; i < 2; i++) {
		uint64_t bytes = t4[i].n * 128 + docs_bytes(t4[i].n);
		double paper_s = t4[i].e2e_reis * t4[i].share / 100;
		double other_reis = t4[i].e2e_reis - paper_s;
		double other_cpu = t4[i].e2e_cpu * (1 - (t4[i].cpu_search + t4[i].cpu_load) / 100);
		double load_s = re_cpu_ns(&c, bytes, 0, &none) / 1e9;
		double fast_s = re_cpu_ns(&fast, bytes, 0, &none) / 1e9;
		double reis_s = bf_latency(t4[i].n) / 1e9;
		double search_s, cpu_s;

		flat.codes = t4[i].n;
		search_s = re_cpu_query_ns(&c, &flat) / 1e9;
		cpu_s = other_cpu + search_s;

		snprintf(set, sizeof(set), "%s, reis-ssd1 brute force (Fig. 3's flat index), "
			 "one query, DF 1 %%; paper = its share x its end-to-end (the share is "
			 "rounded to 2 digits)", t4[i].name);
		snprintf(series, sizeof(series), "REIS search latency (ms), %s", t4[i].name);
		row("REIS Table 4", series, M_VALUE, 1, paper_s * 1e3, reis_s * 1e3, set);
		snprintf(set, sizeof(set), "%s; dependent: the latency row over the paper's own "
			 "LLM-stage seconds", t4[i].name);
		snprintf(series, sizeof(series), "REIS retrieval share (%%), %s", t4[i].name);
		row("REIS Table 4", series, M_SHARE, 0, t4[i].share,
		    100 * reis_s / (other_reis + reis_s), set);
		snprintf(set, sizeof(set), "%s; CPU+BQ (Fig. 3's 2 x Xeon Gold 5118): FAISS's flat "
			 "BQ scan, one query on one 2.3 GHz core at C3's cycles; paper = its share x "
			 "its end-to-end", t4[i].name);
		snprintf(series, sizeof(series), "CPU+BQ search (ms), %s", t4[i].name);
		row("REIS Table 4", series, M_VALUE, 1, t4[i].e2e_cpu * t4[i].cpu_search * 10,
		    search_s * 1e3, set);
		snprintf(set, sizeof(set), "%s; dependent: CPU+BQ's side is the paper's LLM stages "
			 "and its dataset loading at Fig. 3's system's %.2f GB/s (C7, from Table 4's "
			 "own loading cells), REIS's search is 0.02-0.15 %% of its side", t4[i].name,
			 c.load_mbps / 1e3);
		snprintf(series, sizeof(series), "end-to-end gain over CPU+BQ (x), %s",
			 t4[i].name);
		row("REIS Table 4", series, M_FACTOR, 0, t4[i].gain,
		    (cpu_s + load_s) / (other_reis + reis_s), set);
		if (verbose)
			fprintf(stderr, "Table 4 %s: CPU+BQ dataset loading %.2f s (paper %.2f s), "
				"search %.3f s (paper %.3f s); a host loading at the drive's "
				"%.1f GB/s (%.2f s) would give REIS %.2fx\n", t4[i].name, load_s,
				t4[i].e2e_cpu * t4[i].cpu_load / 100, search_s,
				t4[i].e2e_cpu * t4[i].cpu_search / 100, fast.ssd_mbps / 1e3, fast_s,
				(cpu_s + fast_s) / (other_reis + reis_s));
	}
}

/*
 * -S: the REIS rows over every combination of the REIS assumptions no
 * paper states (docs/fidelity.md "What the unsourced REIS assumptions
 * reach"): how many rows one setting can bring within 25 % at once, which
 * rows none can, and which pairs never come in together. Each value's
 * source and range is in docs/timing-model.md (A6, A13, A27, §6.2, the
 * TLC read of docs/fidelity.md's causes). @full 0: the one-at-a-time part
 * only (the tests' quick run).
 */
static const struct sw_pass {
	const char *label;
	double pass;
	int mode;
} sw_pass[] = {
	{ "A27 p(f)", 0, DF_A27 }, { "1 %", 0.01, DF_FIXED }, { "5 %", 0.05, DF_FIXED },
	{ "20 %", 0.20, DF_FIXED }, { "A27 p(f) high end", 0, DF_A27_HI },
};
static const unsigned sw_tlc[] = { 60, 30, 90 };		/* us; [0] published */
static const unsigned sw_mhz[] = { 1500, 750, 3000 };	/* A6 x A13 speed */
#define NSW_PASS (sizeof(sw_pass) / sizeof(sw_pass[0]))
#define NSW_TLC (sizeof(sw_tlc) / sizeof(sw_tlc[0]))
#define NSW_MHZ (sizeof(sw_mhz) / sizeof(sw_mhz[0]))
#define NSW (NSW_PASS * NSW_TLC * NSW_MHZ * NRULES)

/* Grid point @g: its DF pass, INT8 read, core speed and rule indices. */
struct sw_at {
	unsigned p, t, m, r;
};

static struct sw_at sw_at(unsigned g)
{
	struct sw_at a;

	a.r = g % NRULES;
	g /= NRULES;
	a.m = g % NSW_MHZ;
	g /= NSW_MHZ;
	a.t = g % NSW_TLC;
	a.p = g / NSW_TLC;
	return a;
}

/* The REIS rows at @a; returns the bit mask of rows within 25 %. */
static uint32_t sw_eval(struct sw_at a)
{
	static char ov[96];

	snprintf(ov, sizeof(ov), "t_read_tlc=%uus;core_mhz=%u", sw_tlc[a.t], sw_mhz[a.m]);
	overrides = ov;
	df_pass = sw_pass[a.p].pass;
	df_mode = sw_pass[a.p].mode;
	rule = (int)a.r;
	cap.on = 1;
	cap.n = 0;
	cap.in = 0;
	reis_rows(0);
	cap.on = 0;
	if (cap.n >= MAXROWS)	/* sweep()'s all-rows mask needs n < 32 */
		die("row capture");
	return cap.in;
}

/* The names of the rows in @mask, "; "-separated ("none" for none). */
static void sw_names(uint32_t mask, const char *sign)
{
	unsigned i, any = 0;

	for (i = 0; i < cap.n; i++)
		if ((mask >> i) & 1)
			printf("%s%s%s", any++ ? "; " : "", sign, cap.name[i]);
	if (!any)
		printf("none");
}

/* One table line: @what = @value, its count and the rows that change. */
static void sw_line(const char *what, const char *value, uint32_t base, uint32_t v)
{
	printf("| %s | %s | %u | ", what, value, __builtin_popcount(v));
	sw_names(v & ~base, "+");
	if (base & ~v) {
		printf("; ");
		sw_names(base & ~v, "-");
	}
	printf(" |\n");
}

/* Each assumption moved alone from the published setting. */
static uint32_t sw_one_at_a_time(void)
{
	struct sw_at a = { 0, 0, 0, RULE_STREAM };
	uint32_t base = sw_eval(a);
	char b[32];

	printf("Published setting (DF pass A27 p(f), INT8 read 60 us, core 1500 MHz, %s): "
	       "%u of %u REIS rows within 25 %%.\n\n", rule_text[RULE_STREAM], __builtin_popcount(base),
	       cap.n);
	printf("One at a time (the others as published; + comes within 25 %%, - leaves):\n\n"
	       "| assumption | value | rows within 25 %% | changes |\n|---|---|---:|---|\n");
	for (a.p = 1; a.p < NSW_PASS; a.p++)
		sw_line("DF pass inside the probed clusters (A27)", sw_pass[a.p].label, base,
			sw_eval(a));
	for (a.p = 0, a.t = 1; a.t < NSW_TLC; a.t++) {
		snprintf(b, sizeof(b), "%u us", sw_tlc[a.t]);
		sw_line("INT8 (TLC) read", b, base, sw_eval(a));
	}
	for (a.t = 0, a.m = 1; a.m < NSW_MHZ; a.m++) {
		snprintf(b, sizeof(b), "%u MHz", sw_mhz[a.m]);
		sw_line("REIS core speed (A6 clock x A13 cycles)", b, base, sw_eval(a));
	}
	for (a.m = 0, a.r = 1; a.r < NRULES; a.r++)
		sw_line("a query's time in Fig. 7, 9, 6.3.1", rule_text[a.r], base, sw_eval(a));
	return base;
}

/* Pairs of rows each within 25 % somewhere but never together. */
static void sw_pairs(const uint32_t *grid, uint32_t ever)
{
	unsigned i, j, g, k = 0;

	printf("\nPairs each within 25 %% somewhere but never together:\n\n");
	for (i = 0; i < cap.n; i++)
		for (j = i + 1; j < cap.n; j++) {
			uint32_t both = (1u << i) | (1u << j);
			int together = 0;

			if ((ever & both) != both)
				continue;
			for (g = 0; g < NSW && !together; g++)
				together = (grid[g] & both) == both;
			if (!together) {
				printf("- %s / %s\n", cap.name[i], cap.name[j]);
				k++;
			}
		}
	if (!k)
		printf("- none\n");
}

static void sweep(int full)
{
	static uint32_t grid[NSW];
	uint32_t base = sw_one_at_a_time(), ever = 0;
	unsigned hist[MAXROWS + 1] = { 0 }, nin[MAXROWS] = { 0 }, best = 0, g, i;

	if (!full)
		return;
	for (g = 0; g < NSW; g++) {
		grid[g] = sw_eval(sw_at(g));
		hist[__builtin_popcount(grid[g])]++;
		ever |= grid[g];
		for (i = 0; i < cap.n; i++)
			nin[i] += (grid[g] >> i) & 1;
		if (__builtin_popcount(grid[g]) > best)
			best = __builtin_popcount(grid[g]);
	}
	printf("\nAll %u combinations (%u x %u x %u x %u):\n\n| rows within 25 %% | "
	       "combinations |\n|---:|---:|\n", (unsigned)NSW, (unsigned)NSW_PASS,
	       (unsigned)NSW_TLC, (unsigned)NSW_MHZ, NRULES);
	for (i = 0; i <= cap.n; i++)
		if (hist[i])
			printf("| %u | %u |\n", i, hist[i]);
	printf("\nThe most at once: %u of %u, at:\n\n", best, cap.n);
	for (g = 0; g < NSW; g++) {
		struct sw_at a = sw_at(g);

		if (__builtin_popcount(grid[g]) != best)
			continue;
		printf("- DF pass %s, INT8 read %u us, core %u MHz, %s; outside: ",
		       sw_pass[a.p].label, sw_tlc[a.t], sw_mhz[a.m], rule_text[a.r]);
		sw_names(~grid[g] & ((1u << cap.n) - 1), "");
		printf("\n");
	}
	printf("\nEach row (of the %u combinations, how many put it within 25 %%):\n\n"
	       "| row | published | combinations |\n|---|:-:|---:|\n", (unsigned)NSW);
	for (i = 0; i < cap.n; i++)
		printf("| %s | %s | %u |\n", cap.name[i], (base >> i) & 1 ? "yes" : "no", nin[i]);
	sw_pairs(grid, ever);
}

int main(int argc, char **argv)
{
	int verbose = 0, sw = -1, i;

	set_nlists();
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else if (!strcmp(argv[i], "-p") && i + 1 < argc)
			overrides = argv[++i];
		else if (!strcmp(argv[i], "-w") && i + 1 < argc) {
			double w = strtod(argv[++i], NULL);	/* millions of passages */

			if (!(w >= 1 && w <= 4000))
				goto usage;
			dsets[NDATA - 1].n = (uint64_t)(w * 1e6);
			set_nlists();
		} else if (!strcmp(argv[i], "-F"))
			df_mode = DF_A27_HI;
		else if (!strcmp(argv[i], "-S") || !strcmp(argv[i], "-S1"))
			sw = argv[i][2] ? 0 : 1;
		else if (!strcmp(argv[i], "-r") && i + 1 < argc) {
			for (rule = 0; rule < NRULES && strcmp(argv[i + 1], rule_arg[rule]); rule++)
				;
			if (rule == NRULES)
				goto usage;
			i++;
		}
		else if (!strcmp(argv[i], "-f") && i + 1 < argc &&
			 (df_pass = strtod(argv[++i], NULL)) > 0 && df_pass <= 1)
			df_mode = DF_FIXED;
		else
			goto usage;
	}
	if (sw >= 0) {
		if (verbose || overrides || df_mode != DF_A27 || rule ||
		    dsets[NDATA - 1].n != 247000000)
			goto usage;
		sweep(sw);
		return 0;
	}
	printf("figure,series,paper,model,metric,ratio,within_25pct,independent,settings\n");
	eq_rows();
	reis_rows(verbose);
	return 0;
usage:
	fprintf(stderr, "usage: bench_fidelity [-v] [-p \"k=v;...\"] [-f PASS] [-F] [-w MILLIONS] "
		"[-r stream|one|floor|overlap] | -S | -S1   (-v: every point on stderr; -p: "
		"override both REIS presets; -f: a fixed DF pass rate of the IVF rows; -F: A27's "
		"p(nprobe / nlist) at its high end (default its low end); -w: wiki_full's "
		"passages in millions (default 247); -r: a query's time in Fig. 7, 9, 6.3.1, "
		"default the stream rule; -S: the REIS rows over the unsourced assumptions, "
		"markdown; -S1: its one-at-a-time part)\n");
	return 2;
}
