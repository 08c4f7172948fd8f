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
 *     DF passing A27's p(nprobe / nlist), nprobe 16..256 (x A33's scale,
 *     -n) standing for the paper's Recall@10 sweep 0.90..0.98, three
 *     datasets (NQ, HotpotQA, wiki_full)
 *     - Fig. 9 (DF, PL, MPIBC on wiki_full), SSD2 over SSD1 (Fig. 7),
 *     REIS-ASIC (6.3.1), CPU-Real and No-I/O (Fig. 7, Table 3 host model),
 *     Table 4's retrieval share and end-to-end gain, Fig. 8's QPS/W and
 *     6.1's power (a query's dynamic energy + A34's static power over its
 *     stream time; CPU-Real at C11's power);
 *  3. each row: figure, series, paper, model, ratio = model / paper,
 *     within_25pct, settings.
 *
 * Usage: bench_fidelity [-v] [-p "k=v;..."] [-f PASS] [-F] [-n SCALE] [-r RULE]
 *        (a few seconds; prints CSV with a header; -v adds every estimated
 *        point on stderr; -p overrides preset values on both REIS SSDs and
 *        -f the IVF rows' DF pass rate, -F the pass rate of REIS 4.3.3's 1 %
 *        threshold inside the probed clusters, p(nprobe / nlist) as measured
 *        on the corpus (docs/timing-model.md A27), -n the recall points'
 *        nprobe x SCALE (A33), -r what a query of Fig. 7,
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
#include "ex_usage.h"

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
 * The inputs no paper states (docs/timing-model.md A-, C- numbers) that the
 * REIS rows depend on, at their published values; -S sweeps each over its
 * documented range (sw_inputs[]). The published values come from sources
 * and physical reasoning (timing-model.md), never from the count.
 */
static struct knobs {
	double core_x;		/* A6 x A13: the REIS core's speed, x core_mhz */
	double dram_x;		/* A8: controller DRAM, x the channels' aggregate */
	double cache_busy_us;	/* A11: tDCBSYR */
	double indie_x;		/* A12: in-die XOR / count / compare times, x */
	double ctrl_us;		/* A14: per-command firmware path */
	double fill_x;		/* A24: IBC latch fill rate, x the die's I/O rate */
	double tlc_us;		/* A32: the INT8 (TLC) region's read */
	double link_mbps;	/* A7: host link */
	double host_x;		/* C3-C5: the host's kernel cycles, x the POPCNT loop */
	double streams;		/* C6: host queries at once */
	double doc_bytes;	/* C8: document bytes per passage */
	double wiki_q;		/* C10: wiki_full's query set */
	double df_u;		/* A27: < 0 the low end; else 1 % .. high end in log */
	double np_x;		/* A33: the recall points' nprobe, x 16..256 */
	double ssd_w;		/* A34: the drive's static power (W), both drives */
	double eread_x;		/* A15: the flash read energies, x e_read_slc / _tlc */
	double cpu_w;		/* C11: CPU-Real's power (W), packages + DRAM */
} kn = { 1, 1, 3, 1, 1, 1, 60, 7000, 1, 1, 9e9 / 41.5e6, 1000, -1, 1, 6.6, 1, 280 };

/*
 * The nprobe of recall point @j on a dataset of @nlist lists: 16..256 for
 * Recall@10 0.90..0.98, times A33's scale (-n, the sweep), at most nlist.
 * The paper states no nprobe (docs/timing-model.md A33).
 */
static uint32_t nprobe_at(unsigned j, uint32_t nlist)
{
	double v = nprobes[j] * kn.np_x;

	return v >= nlist ? nlist : v < 1 ? 1 : (uint32_t)lround(v);
}

/* The recall points' nprobe for the rows' settings. */
static const char *np_text(void)
{
	static char b[48];

	if (kn.np_x == 1)
		return "nprobe 16-256";
	snprintf(b, sizeof(b), "nprobe (16-256) x %g (A33)", kn.np_x);
	return b;
}

/* @preset with the knobs, then -p's overrides. */
static int load_params(const char *preset, struct fp_params *p)
{
	if (fp_preset(preset, p))
		return -1;
	p->core_mhz = (uint32_t)lround(p->core_mhz * kn.core_x);
	p->dram_mbps = (uint32_t)lround(p->dram_mbps * kn.dram_x);
	p->t_cache_busy = (uint64_t)llround(kn.cache_busy_us * 1e6);
	p->t_xor = (uint64_t)llround((double)p->t_xor * kn.indie_x);
	p->t_fbc = (uint64_t)llround((double)p->t_fbc * kn.indie_x);
	p->t_cmp = (uint64_t)llround((double)p->t_cmp * kn.indie_x);
	p->ctrl_cmd = (uint64_t)llround(kn.ctrl_us * 1e6);
	p->ibc_fill_mbps = (uint32_t)lround(p->channel_mbps * kn.fill_x);
	p->t_read[ISP_CELL_TLC] = (uint64_t)llround(kn.tlc_us * 1e6);
	p->link_mbps = (uint32_t)lround(kn.link_mbps);
	if (kn.eread_x != 1) {	/* moves energies only, never a time */
		p->e_read[ISP_CELL_SLC] = (uint64_t)llround(p->e_read[ISP_CELL_SLC] * kn.eread_x);
		p->e_read[ISP_CELL_TLC] = (uint64_t)llround(p->e_read[ISP_CELL_TLC] * kn.eread_x);
	}
	return overrides && fp_apply(p, overrides, NULL, 0) ? -1 : 0;
}

/* The host's rates with the knobs (C3-C6). */
static void host_knobs(struct re_cpu *c, int streams)
{
	c->ccyc_code = (uint32_t)lround(c->ccyc_code * kn.host_x);
	c->ccyc_centroid = (uint32_t)lround(c->ccyc_centroid * kn.host_x);
	c->ccyc_dim = (uint32_t)lround(c->ccyc_dim * kn.host_x);
	c->ccyc_sort = (uint32_t)lround(c->ccyc_sort * kn.host_x);
	if (streams)
		c->streams = (uint32_t)lround(kn.streams);
}
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
	double f = (double)nprobe / nlist, hi = dfp_pass_ivf_hi(f, nlist);

	if (kn.df_u >= 0)	/* the sweep: 1 % .. the high end, in log */
		return exp((1 - kn.df_u) * log(0.01) + kn.df_u * log(hi));
	return df_mode == DF_A27 ? dfp_pass_ivf(f) : df_mode == DF_A27_HI ? hi : df_pass;
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

/* -S: the rows are captured instead of printed (sweep()): name, paper,
 * model, metric ratio and verdict; a row is a bit of a uint64_t mask. */
#define MAXROWS 64
static struct {
	int on;
	unsigned n;
	char name[MAXROWS][160];
	double paper[MAXROWS], model[MAXROWS], ratio[MAXROWS];
	uint64_t in;	/* rows within 25 % */
	uint64_t indep;	/* independent rows */
} cap;

/*
 * Document bytes of @n passages at wiki_en's 9 GB for 41.5 M (REIS 3.2),
 * the only corpus whose document size the paper gives.
 */
static uint64_t docs_bytes(uint64_t n)
{
	return (uint64_t)(kn.doc_bytes * (double)n);
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
enum metric { M_FACTOR, M_CUT, M_GAIN, M_SHARE, M_VALUE, M_LBOUND };
static const char *const metric_name[] = { "factor", "cut-speedup", "gain", "share", "value",
					   "lower-bound" };

static double metric_ratio(enum metric m, double paper, double model)
{
	if (m == M_CUT)
		return model < 100 ? (100 - paper) / (100 - model) : 0;
	return paper != 0 ? model / paper : 0;
}

/* Within 25 %: of the paper's value, or for a lower bound ("more than X")
 * at least 0.75 X. */
static int metric_within(enum metric m, double r)
{
	return m == M_LBOUND ? r >= 0.75 : fabs(r - 1) <= 0.25;
}

static void row(const char *fig, const char *series, enum metric m, int indep, double paper,
		double model, const char *settings)
{
	double r = metric_ratio(m, paper, model);
	int within = metric_within(m, r);

	if (cap.on) {
		if (cap.n < MAXROWS) {
			snprintf(cap.name[cap.n], sizeof(cap.name[0]), "%s %s",
				 fig + (strncmp(fig, "REIS ", 5) ? 0 : 5), series);
			shorten(cap.name[cap.n], sizeof(cap.name[0]));
			cap.paper[cap.n] = paper;
			cap.model[cap.n] = model;
			cap.ratio[cap.n] = r;
			cap.in |= (uint64_t)within << cap.n;
			cap.indep |= (uint64_t)(indep != 0) << cap.n;
		}
		cap.n++;
		return;
	}
	printf("\"%s\",\"%s\",%.6g,%.6g,%s,%.4f,%s,%s,\"%s\"\n", fig, series, paper, model,
	       metric_name[m], r, within ? "yes" : "no", indep ? "yes" : "no", settings);
}

/* A number the model does not give: no model value, the reason in the
 * settings; @indep as the row would be (an unmodeled independent row counts
 * as outside). */
static void row_none(const char *fig, const char *series, enum metric m, int indep,
		     double paper, const char *why)
{
	if (cap.on) {
		if (cap.n < MAXROWS) {
			snprintf(cap.name[cap.n], sizeof(cap.name[0]), "%s %s",
				 fig + (strncmp(fig, "REIS ", 5) ? 0 : 5), series);
			shorten(cap.name[cap.n], sizeof(cap.name[0]));
			cap.paper[cap.n] = paper;
			cap.model[cap.n] = 0;
			cap.ratio[cap.n] = 0;
			cap.indep |= (uint64_t)(indep != 0) << cap.n;
		}
		cap.n++;
		return;
	}
	printf("\"%s\",\"%s\",%.6g,,%s,,no,%s,\"not modeled: %s\"\n", fig, series, paper,
	       metric_name[m], indep ? "yes" : "no", why);
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
	uint64_t noio_all_ns;	/* No-I/O with every core on a query (-v) */
	uint64_t ondisk_ns;	/* the on-SSD-index host, C9 (-v) */
	uint64_t dyn_pj;	/* a query's dynamic energy in the stream, full configuration */
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

static int all_confs;	/* -v: every configuration at every point */

/* The IVF search of @d's queries at @nprobe over @n codes of @dim bits, one
 * query (REIS's rows: 1024-bit codes; ICE's: 4096, REIS 6.4), reranked on
 * 1024-dimension INT8 rows. */
static void ivf_est(struct re_est *e, const struct ds *d, uint32_t nprobe, uint32_t dim,
		    uint64_t n)
{
	memset(e, 0, sizeof(*e));
	e->kind = ISP_REIS_IVF;
	e->dim = dim;
	e->n = n;
	e->nlist = d->nlist;
	e->db_flags = ISP_REIS_DBF_INT8;
	e->doc_mode = ISP_REIS_DOC_SUBPAGE;
	e->nq = 1;
	e->k = 10;
	e->df_threshold = 400;
	e->pass = ivf_pass(nprobe, d->nlist);
	e->nprobe = nprobe;
	/* The rerank's INT8 rows: the 1024-dimension vectors ("128 binary
	 * 1024-dimension embeddings per 16KB page", REIS 4.3), whatever bits
	 * per dimension the scanned codes carry (ICE's 4, REIS 6.4). */
	e->rerank_dim = 1024;
}

static void estimate(const char *preset, const struct ds *d, uint32_t nprobe, struct point *pt)
{
	struct fp_params p;
	struct re_est e;
	struct re_est_out o;
	struct re_cpu c;
	struct re_cpu_query hq;
	uint64_t load;
	unsigned i;

	if (load_params(preset, &p))
		die("preset");
	ivf_est(&e, d, nprobe, 1024, d->n);
	e.nq = NQ;
	for (i = 0; i < NCONF; i++) {
		struct re_stream_out so;

		/* Fig. 9's configurations are wiki_full's only (-v: all). */
		if (i != ALL && !all_confs && d != &dsets[NDATA - 1])
			continue;
		if (query_ns(&p, &e, conf_flags[i], &so, &o))
			die("re_estimate_stream");
		pt->ns[i] = rule_ns(&so);
		if (i == ALL)
			pt->dyn_pj = so.energy_pj;
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
	host_knobs(&c, 1);
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
	/* -v: the host with a query on every core (C1, C6) */
	{
		uint32_t st = c.streams;

		c.streams = c.cores;
		pt->noio_all_ns = re_cpu_ns(&c, 0, 1, &hq);
		c.streams = st;
	}
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
		"CPU-Real %.1f (index on the SSD %.1f), "
		"No-I/O %.1f us; dynamic energy %.3f mJ per query (%.1f W over its time)\n",
		q->pages, q->chan_ns / 1e3, q->dram_ns / 1e3,
		q->core_ns / 1e3, q->asic_ns / 1e3, q->cpu_ns / 1e3,
		q->ondisk_ns / 1e3, q->noio_ns / 1e3, q->dyn_pj / 1e9,
		(double)q->dyn_pj / (double)q->ns[ALL] / 1e3);
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

/*
 * ICE (REIS 6.4, [106]) as a comparison model on the same calendars: an
 * in-NAND search like REIS's but over 4-bit values. ICE-ESP ("does not
 * require ECC, but still uses 4-bit quantization") reads 4x REIS's bytes:
 * 1024 dimensions of 4 bits, 4096-bit codes; ICE keeps them in a format
 * that tolerates errors without ECC at "8x storage overhead for data in 4-
 * bit precision" (3.2), 32x REIS's bytes: the ESP search with 8 x as many
 * entries. Both otherwise as REIS (DF, PL, MPIBC, the rerank on the same
 * 1024-dimension INT8 rows). IVF: one query
 * at a time (re_estimate()'s latency: 6.4 states no query stream for ICE;
 * REIS keeps its stream rule; -v decomposes both); brute force:
 * sensing-bound, ceil(pages / planes) x (t_C/A + tR) for all three.
 */
static uint64_t ice_ivf_ns(const char *preset, const struct ds *d, uint32_t nprobe, int fmt)
{
	struct fp_params p;
	struct re_est e;
	struct re_est_out o;

	if (load_params(preset, &p))
		die("preset");
	ivf_est(&e, d, nprobe, 4096, d->n * (fmt ? 8 : 1));	/* 1024 x 4 bits; ICE's 8x */
	if (re_estimate(&p, &e, &o))
		die("re_estimate (ICE)");
	return o.model_ns;
}

/* A brute-force scan of @n codes of @bits bits, sensing-bound. */
static double bf_scan_ns(const char *preset, uint64_t n, uint32_t bits)
{
	struct fp_params p;
	uint64_t per, pages, planes;

	if (load_params(preset, &p))
		die("preset");
	per = p.page_bytes / (bits / 8);
	pages = (n + per - 1) / per;
	planes = (uint64_t)p.channels * p.dies_per_channel * p.planes_per_die;
	return (double)(p.ctrl_cmd + (pages + planes - 1) / planes * (ft_t_ca(&p) +
		p.t_read[ISP_CELL_SLC])) / 1e3;
}

/*
 * -v: the ICE rows' decomposition (docs/fidelity.md causes): per SSD, data
 * set and recall point, one query of REIS, ICE-ESP and ICE split into its
 * search (command, query, IBC, coarse and fine rounds: re_estimate()'s
 * @no_finish) and its finish (INT8 reads, rerank, sort), with its pages and
 * reranked entries; REIS's row time is its stream time, ICE's its one-query
 * latency; the last columns give each side under the other's rule.
 */
struct ice_part {
	double one, srch, fin, strm;	/* us */
	double pages, rr;
};

static void ice_part(const char *preset, struct re_est *e, struct ice_part *o)
{
	struct fp_params p;
	struct re_stream_out so;
	struct re_est_out a, b;

	if (load_params(preset, &p))
		die("preset");
	e->nq = 1;
	e->serial = 0;
	e->no_finish = 0;
	if (re_estimate(&p, e, &a))
		die("re_estimate (parts)");
	e->no_finish = 1;
	if (re_estimate(&p, e, &b))
		die("re_estimate (parts)");
	e->no_finish = 0;
	e->nq = NQ;
	if (query_ns(&p, e, 0, &so, NULL))
		die("re_estimate_stream (parts)");
	o->one = a.model_ns / 1e3;
	o->srch = b.model_ns / 1e3;
	o->fin = o->one - o->srch;
	o->strm = rule_ns(&so) / 1e3;
	o->pages = (double)a.pages_read;
	o->rr = (double)a.reranked;
}

static void ice_decompose(void)
{
	static const char *const ssd[2] = { "reis-ssd1", "reis-ssd2" };
	static const char *const who[3] = { "REIS", "ICE-ESP", "ICE" };
	unsigned s, d, j, w;

	fprintf(stderr, "ICE decomposition, one query (us): search + finish = one-query "
		"latency; stream = the stream rule's time; pages / reranked per query\n");
	for (s = 0; s < 2; s++)
		for (j = 0; j < 2; j++) {
			unsigned np = j ? NPROBES - 1 : 0;
			double avg[3][6] = { { 0 } };

			for (d = 0; d < NDATA; d++) {
				struct ice_part x[3];

				for (w = 0; w < 3; w++) {
					struct re_est e;

					ivf_est(&e, &dsets[d], nprobe_at(np, dsets[d].nlist),
						w ? 4096 : 1024, dsets[d].n * (w == 2 ? 8 : 1));
					ice_part(ssd[s], &e, &x[w]);
					avg[w][0] += x[w].srch / NDATA;
					avg[w][1] += x[w].fin / NDATA;
					avg[w][2] += x[w].one / NDATA;
					avg[w][3] += x[w].strm / NDATA;
					avg[w][4] += x[w].pages / NDATA;
					avg[w][5] += x[w].rr / NDATA;
				}
				for (w = 0; w < 3; w++)
					fprintf(stderr, "| %s | %s | %.2f | %s | %.1f | %.1f | %.1f | "
						"%.1f | %.0f | %.0f | %.2f | %.2f |\n", ssd[s],
						dsets[d].name, j ? 0.98 : 0.90, who[w], x[w].srch,
						x[w].fin, x[w].one, x[w].strm, x[w].pages, x[w].rr,
						x[w].one / x[0].one, x[w].one / x[0].strm);
			}
			for (w = 0; w < 3; w++)
				fprintf(stderr, "| %s | average | %.2f | %s | %.1f | %.1f | %.1f | %.1f | "
					"%.0f | %.0f | | |\n", ssd[s], j ? 0.98 : 0.90, who[w],
					avg[w][0], avg[w][1], avg[w][2], avg[w][3], avg[w][4],
					avg[w][5]);
		}
}

static void ice_rows(const struct point (*pt)[NDATA][NPROBES])
{
	static const char *const ssd[2] = { "reis-ssd1", "reis-ssd2" };
	static const double p_esp_bf[2] = { 3.85, 3.92 }, p_esp90[2] = { 2.08, 2.29 };
	static const double p_esp98[2] = { 2.84, 3.18 }, p_abs90[2] = { 7.67, 9.76 };
	static const double p_abs98[2] = { 21.4, 24.2 };
	double bf_lo = 1e30, r[2][2][2] = { { { 0 } } };	/* [ssd][esp / ice][0.90 / 0.98] */
	double esp_bf[2] = { 1, 1 };
	char set[400], series[128];
	unsigned s, d, j;

	for (s = 0; s < 2; s++) {
		for (d = 0; d < NDATA; d++) {
			double reis = bf_scan_ns(ssd[s], dsets[d].n, 1024);
			double esp = bf_scan_ns(ssd[s], dsets[d].n, 4096);
			double ice = bf_scan_ns(ssd[s], dsets[d].n * 8, 4096);

			esp_bf[s] *= esp / reis;
			if (ice / reis < bf_lo)
				bf_lo = ice / reis;
			for (j = 0; j < 2; j++) {
				unsigned np = j ? NPROBES - 1 : 0;
				double t = (double)pt[s][d][np].ns[ALL];

				r[s][0][j] += ice_ivf_ns(ssd[s], &dsets[d], nprobe_at(np, dsets[d].nlist), 0) / t / NDATA;
				r[s][1][j] += ice_ivf_ns(ssd[s], &dsets[d], nprobe_at(np, dsets[d].nlist), 1) / t / NDATA;
			}
		}
		esp_bf[s] = pow(esp_bf[s], 1.0 / NDATA);
	}
	snprintf(set, sizeof(set), "brute force, NQ/HotpotQA/wiki_full, both SSDs; ICE: 4-bit "
		 "values in its 8x error-tolerant format (32x REIS's bytes), sensing-bound scans");
	row("REIS Fig. 10", "REIS over ICE, brute force, lowest (x, more than 10)", M_LBOUND, 1, 10,
	    bf_lo, set);
	for (s = 0; s < 2; s++) {
		snprintf(set, sizeof(set), "%s brute force, NQ/HotpotQA/wiki_full, geomean; ICE-ESP: "
			 "4-bit values, no ECC format (4x REIS's bytes), sensing-bound", ssd[s]);
		snprintf(series, sizeof(series), "REIS over ICE-ESP, brute force, geomean (x), %s",
			 ssd[s]);
		row("REIS 6.4", series, M_FACTOR, 1, p_esp_bf[s], esp_bf[s], set);
		snprintf(set, sizeof(set), "%s IVF, NQ/HotpotQA/wiki_full average, nprobe 16 (0.90) / "
			 "256 (0.98); ICE-ESP one query at a time, REIS the stream rule; 1024-dim rerank%s",
			 ssd[s], kn.np_x == 1 ? "" : " (A33: nprobe x -n)");
		snprintf(series, sizeof(series), "REIS over ICE-ESP, IVF at 0.90 (x), %s", ssd[s]);
		row("REIS 6.4", series, M_FACTOR, 1, p_esp90[s], r[s][0][0], set);
		snprintf(series, sizeof(series), "REIS over ICE-ESP, IVF at 0.98 (x), %s", ssd[s]);
		row("REIS 6.4", series, M_FACTOR, 1, p_esp98[s], r[s][0][1], set);
		snprintf(set, sizeof(set), "%s IVF, NQ/HotpotQA/wiki_full average, nprobe 16 (0.90) / "
			 "256 (0.98); ICE: 32x REIS's bytes, one query at a time, REIS the stream rule%s",
			 ssd[s], kn.np_x == 1 ? "" : " (A33: nprobe x -n)");
		snprintf(series, sizeof(series), "REIS over ICE, IVF at 0.90, abstract (x), %s", ssd[s]);
		row("REIS abstract", series, M_FACTOR, 1, p_abs90[s], r[s][1][0], set);
		snprintf(series, sizeof(series), "REIS over ICE, IVF at 0.98, abstract (x), %s", ssd[s]);
		row("REIS abstract", series, M_FACTOR, 1, p_abs98[s], r[s][1][1], set);
	}
	snprintf(set, sizeof(set), "reis-ssd2 IVF, NQ/HotpotQA/wiki_full average; ICE: 32x REIS's "
		 "bytes (6.4's numbers; the abstract gives 9.76x / 24.2x for the same)");
	row("REIS Fig. 10", "REIS over ICE, IVF at 0.90, SSD2 (x)", M_FACTOR, 1, 7.1, r[1][1][0], set);
	row("REIS Fig. 10", "REIS over ICE, IVF at 0.98, SSD2 (x)", M_FACTOR, 1, 22.9, r[1][1][1],
	    set);
	row("REIS intro", "REIS over ICE, most (x, 'up to 24.1')", M_FACTOR, 0, 24.1,
	    fmax(r[0][1][1], r[1][1][1]), "dependent: the abstract's 0.98 rows again (24.1 for "
	    "24.2)");
}

/*
 * Fig. 8 and 6.1's power: QPS/W is 1 / (a query's energy). A drive's query
 * costs its dynamic energy in the stream (re_stream_out's @energy_pj: reads,
 * transfers, in-die ops, core cycles, DRAM, link) plus A34's static power
 * over its time in the stream, the same rule as the QPS rows
 * (re_query_energy_pj(); REIS 5: "We model SSD power consumption based on a
 * commodity product [249] and real chip characterization"); CPU-Real's
 * query costs C11's power over its time (REIS 5 measures it with AMD uProf
 * and a DDR4 model and prints none). Averages and maxima over the points of
 * Fig. 7's rows (docs/timing-model.md A34, C11).
 */
static double query_pj(const struct point *q)
{
	return (double)re_query_energy_pj(q->dyn_pj, q->ns[ALL],
					  (uint64_t)llround(kn.ssd_w * 1e3));
}

static void energy_rows(const struct point (*pt)[NDATA][NPROBES], double perf_avg)
{
	double r21_sum = 0, r21_max = 0, ee_sum = 0, ee_max = 0, pw_sum = 0;
	char drive[320], set[640];
	unsigned s, d, j, n = 0;

	for (d = 0; d < NDATA; d++)
		for (j = 0; j < NPROBES; j++) {
			double r = query_pj(&pt[0][d][j]) / query_pj(&pt[1][d][j]);

			r21_sum += r;
			if (r > r21_max)
				r21_max = r;
			for (s = 0; s < 2; s++) {
				const struct point *q = &pt[s][d][j];
				double cpu_pj = kn.cpu_w * (double)q->cpu_ns * 1e3;
				double e = cpu_pj / query_pj(q);

				ee_sum += e;
				if (e > ee_max)
					ee_max = e;
				/* the drive's mean power over its queries' time */
				pw_sum += kn.cpu_w / (query_pj(q) / (double)q->ns[ALL] / 1e3);
			}
			n++;
		}
	snprintf(drive, sizeof(drive), "NQ/HotpotQA/wiki_full, IVF, %s, %s, DF+PL+MPIBC, "
		 "analytic; a query's energy: its dynamic energy (flash reads at A15 x%.3g, "
		 "transfers, in-die ops, cores, DRAM, link) + A34's %.3g W static power over its "
		 "stream time", np_text(), rule_text[rule], kn.eread_x, kn.ssd_w);
	/* The paper's averages do not multiply: 13x the QPS at 29.7x lower
	 * power would be 386x, not 55x (docs/fidelity.md causes). */
	snprintf(set, sizeof(set), "%s; CPU-Real: C11's %.0f W (2 EPYC 9554 packages near "
		 "idle with one busy core, 24 DDR4 DIMMs) over its Fig. 7 time per query (QPS "
		 "ratio %.1fx on average); the paper's 55x over its 13x is 4.2x of power, not its "
		 "29.7x", drive, kn.cpu_w, perf_avg);
	row("REIS Fig. 8", "energy efficiency over CPU-Real, average (x)", M_FACTOR, 1, 55,
	    ee_sum / (2 * n), set);
	row("REIS Fig. 8", "energy efficiency over CPU-Real, max (x)", M_FACTOR, 1, 157, ee_max,
	    set);
	row("REIS Fig. 8", "energy efficiency, SSD2 over SSD1, average (x)", M_FACTOR, 1, 2.2,
	    r21_sum / n, drive);
	row("REIS Fig. 8", "energy efficiency, SSD2 over SSD1, max (x)", M_FACTOR, 1, 2.6,
	    r21_max, drive);
	snprintf(set, sizeof(set), "C11's %.0f W over each drive's mean power in the stream "
		 "(dynamic energy per query / its time + A34's %.3g W), averaged over both SSDs' "
		 "Fig. 7 points", kn.cpu_w, kn.ssd_w);
	row("REIS 6.1", "SSDs' power below CPU-Real's, average (x)", M_FACTOR, 1, 29.7,
	    pw_sum / (2 * n), set);
}

/*
 * The rows the model cannot give, with the arithmetic from the paper's
 * own numbers where it has some (docs/fidelity.md).
 */
static void unmodeled_rows(void)
{
	/* Fig. 11: NDSearch. */
	row_none("REIS Fig. 11", "REIS over NDSearch, average (x)", M_FACTOR, 1, 1.7,
		 "NDSearch's engine (graph traversal in an SSD with its own hardware, [299]) on "
		 "SIFT-1B / DEEP-1B: the paper states neither its hops per query nor its per-hop "
		 "cost, and the 128-d / 96-d billion-scale sets need their own IVF parameters");
	row_none("REIS Fig. 11", "REIS over NDSearch, max (x)", M_FACTOR, 1, 2.6, "as the average");
	/* Fig. 2 / 3: the CPU pipeline's loading shares. */
	row_none("REIS Fig. 2", "dataset loading share, wiki_en (%)", M_SHARE, 1, 84,
		 "a measured share of the LLM pipeline on Fig. 2's system (its loading runs at "
		 "0.35 GB/s, FAISS deserialisation, not the drive); the only loading rate is "
		 "Table 4's own cells (former C7)");
	row_none("REIS Fig. 2", "loading share growth, HotpotQA to wiki_en (x)", M_FACTOR, 1, 1.7,
		 "as the loading share");
	row_none("REIS Fig. 3", "BQ's cut of the I/O overhead, low (%)", M_CUT, 1, 17,
		 "as the loading share; and with 9 of 14 GB documents after BQ, a 17-29 % cut "
		 "means the embeddings before BQ were at most 10.7 GB, 258 B per 41.5 M vectors, "
		 "not 4 KB fp32 ones: Fig. 2's embeddings are not stated");
	row_none("REIS Fig. 3", "BQ's cut of the I/O overhead, high (%)", M_CUT, 1, 29,
		 "as the low end");
	row_none("REIS Fig. 3", "dataset loading share with BQ, wiki_en (%)", M_SHARE, 0, 67,
		 "Table 4's 67.3 % again (the same system and run)");
	row_none("REIS 3.2", "documents of the data moved with BQ, wiki_en (GB of 14)", M_VALUE, 0,
		 9, "an input (C8's 217 B per passage)");
	row_none("REIS 6.2", "REIS's share of Dataset Loading + Search (%, 0.02-0.15)", M_SHARE, 0,
		 0.15, "Table 4's retrieval share rows again");
	row_none("REIS 6.2", "Generation's share with REIS (%)", M_SHARE, 0, 92,
		 "the paper's LLM seconds");
}

static void reis_rows(int verbose)
{
	static const char *const ssd[2] = { "reis-ssd1", "reis-ssd2" };
	static const double p_df_avg[2] = { 4.7, 5.7 }, p_df_max[2] = { 5.1, 6.5 };
	static const double p_mpibc[2] = { 6, 26 };
	static const double p_asic_lo[2] = { 4.1, 3.9 }, p_asic_hi[2] = { 5.0, 6.5 };
	static struct point pt[2][NDATA][NPROBES];
	double r21_sum = 0, r21_max = 0, cpu_sum = 0, cpu_max = 0, noio_sum = 0, noio_max = 0;
	double all_sum = 0, all_max = 0;
	char set[256];
	unsigned s, d, j, n = 0;

	for (s = 0; s < 2; s++)
		for (d = 0; d < NDATA; d++)
			for (j = 0; j < NPROBES; j++) {
				const struct point *q = &pt[s][d][j];

				estimate(ssd[s], &dsets[d], nprobe_at(j, dsets[d].nlist), &pt[s][d][j]);
				if (verbose)
					verbose_point(ssd[s], &dsets[d], nprobe_at(j, dsets[d].nlist), q);
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
			 "%s, DF pass %s, %s, analytic", ssd[s], dsets[NDATA - 1].n / 1e6,
			 dsets[NDATA - 1].nlist, np_text(), pass_text(), rule_text[rule]);
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
		snprintf(set, sizeof(set), "%s, NQ/HotpotQA/wiki_full, IVF, %s, "
			 "ASIC: every page read whole (data + spare) to the controller, no IBC, free "
			 "compute, same calendars as REIS, %s", ssd[s], np_text(), rule_text[rule]);
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
				double z = (double)pt[s][d][j].noio_all_ns / (double)pt[s][d][j].ns[ALL];

				cpu_sum += c;
				noio_sum += x;
				if (c > cpu_max)
					cpu_max = c;
				if (x > noio_max)
					noio_max = x;
				all_sum += z;
				if (z > all_max)
					all_max = z;
			}
			n++;
		}
	snprintf(set, sizeof(set), "NQ/HotpotQA/wiki_full, IVF, %s, %s, "
		 "DF+PL+MPIBC, analytic", np_text(), rule_text[rule]);
	row("REIS Fig. 7", "SSD2 over SSD1, average (x)", M_FACTOR, 1, 2.6, r21_sum / n, set);
	row("REIS Fig. 7", "SSD2 over SSD1, max (x)", M_FACTOR, 1, 3.2, r21_max, set);
	snprintf(set, sizeof(set), "both SSDs, NQ/HotpotQA/wiki_full, IVF, %s; "
		 "CPU-Real: Table 3 host model (C1-C10), one query at a time on one core, "
		 "index and documents loaded once per query set at the drive's rate", np_text());
	row("REIS Fig. 7", "REIS over CPU-Real, average (x)", M_FACTOR, 1, 13, cpu_sum / (2 * n), set);
	row("REIS Fig. 7", "REIS over CPU-Real, max (x)", M_FACTOR, 1, 112, cpu_max, set);
	row("REIS Fig. 7", "REIS over No-I/O, average (x)", M_FACTOR, 1, 1.8, noio_sum / (2 * n), set);
	row("REIS Fig. 7", "REIS over No-I/O, max (x)", M_FACTOR, 1, 5.3, noio_max, set);
	if (verbose)
		fprintf(stderr, "REIS over No-I/O if all 128 cores ran a query each (DRAM-bound "
			"at C1): average %.2fx, max %.2fx (the paper: 1.8x, 5.3x)\n",
			all_sum / (2 * n), all_max);

	if (verbose)
		host_check(pt[0]);
	table4_rows(verbose);
	ice_rows(pt);
	if (verbose)
		ice_decompose();
	energy_rows(pt, cpu_sum / (2 * n));
	unmodeled_rows();
}

/* REIS-SSD1's one-query brute-force search over @n codes: latency in ns. */
static uint64_t bf_latency(uint64_t n)
{
	struct fp_params p;
	struct re_est e;
	struct re_est_out o;

	if (load_params("reis-ssd1", &p))
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
	host_knobs(&c, 0);
	re_cpu_real(&fast);
	for (i = 0; i < 2; i++) {
		uint64_t bytes = t4[i].n * 128 + docs_bytes(t4[i].n);
		double paper_s = t4[i].e2e_reis * t4[i].share / 100;
		double other_reis = t4[i].e2e_reis - paper_s;
		double other_cpu = t4[i].e2e_cpu * (1 - (t4[i].cpu_search + t4[i].cpu_load) / 100);
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
		snprintf(set, sizeof(set), "%s; dependent: CPU+BQ's side is the paper's own "
			 "end-to-end seconds (its dataset loading is a measurement no model input "
			 "gives), REIS's side the paper's LLM stages and the modeled search, "
			 "0.02-0.15 %% of it", t4[i].name);
		snprintf(series, sizeof(series), "end-to-end gain over CPU+BQ (x), %s",
			 t4[i].name);
		row("REIS Table 4", series, M_FACTOR, 0, t4[i].gain,
		    t4[i].e2e_cpu / (other_reis + reis_s), set);
		if (verbose)
			fprintf(stderr, "Table 4 %s: CPU+BQ dataset loading (paper) %.2f s, search "
				"%.3f s (paper %.3f s); a host loading at the drive's %.1f GB/s "
				"(%.2f s) would give REIS %.2fx\n", t4[i].name,
				t4[i].e2e_cpu * t4[i].cpu_load / 100, search_s,
				t4[i].e2e_cpu * t4[i].cpu_search / 100, fast.ssd_mbps / 1e3, fast_s,
				(cpu_s + fast_s) / (other_reis + reis_s));
	}
}

/*
 * -S: the REIS rows over every input no paper states (docs/fidelity.md
 * "What the unsourced inputs reach"): each input alone at both ends of its
 * documented range (the others published), then a Latin hypercube over all
 * of them at once. For each row: the range of model values each covers and
 * the inputs that move it most. A map of what the inputs can and cannot
 * do, not a fit: the published rows keep the published values.
 */
enum { SW_LIN, SW_LOG, SW_LEVELS };

static const struct sw_input {
	const char *id, *what, *range;	/* the range's source, short */
	double pub, lo, hi;
	int scale;			/* SW_LIN, SW_LOG; SW_LEVELS: integer levels lo..hi */
	double *at;			/* the knob it sets (NULL: a special below) */
	int one_only;			/* one at a time only, held published in the
					 * hypercube (its cost grows with it) */
	int own_rng;			/* hypercube draws from a stream of their own,
					 * so that adding the input left the others'
					 * draws (and the rows they move) as they were */
} sw_inputs[] = {
	{ "A6 x A13", "REIS core speed (x 1.5 GHz at 1 cycle / INT8 dim)",
	  "0.5-2 cycles per dimension on a Cortex-R8 (dual-issue SMLAD to scalar)",
	  1, 0.5, 2, SW_LOG, &kn.core_x, 0, 0 },
	{ "A8", "controller DRAM rate (x the channels' aggregate)",
	  "half to twice 9.6 / 32 GB/s (DDR4 x32 to DDR5 x64)", 1, 0.5, 2, SW_LOG, &kn.dram_x, 0, 0 },
	{ "A11", "tDCBSYR, cache-read busy (us)", "1-5 us, NAND datasheets", 3, 1, 5, SW_LIN,
	  &kn.cache_busy_us, 0, 0 },
	{ "A12", "in-die XOR / fail-bit count / compare (x 30 / 20 / 5 ns)",
	  "latch-operation orders of magnitude", 1, 0.5, 4, SW_LOG, &kn.indie_x, 0, 0 },
	{ "A14", "firmware command path (us)", "0.5-5 us", 1, 0.5, 5, SW_LOG, &kn.ctrl_us, 0, 0 },
	{ "A24", "IBC latch fill (x the die's I/O rate)",
	  "a quarter to 4x: no NAND datasheet gives an in-die copy rate", 1, 0.25, 4, SW_LOG,
	  &kn.fill_x, 0, 0 },
	{ "A32", "INT8 (TLC) region read (us)", "45-90 us, TLC datasheets (RecFlash III: 60)",
	  60, 45, 90, SW_LIN, &kn.tlc_us, 0, 0 },
	{ "A7", "host link (MB/s)", "PCIe 4.0 x4: 3500 (Gen3-like) to 7880 (raw)", 7000, 3500,
	  7880, SW_LIN, &kn.link_mbps, 0, 0 },
	{ "A27", "DF pass inside the probed clusters (0 = 1 %, 1 = A27's high end, in log)",
	  "1 % (the brute-force share) to the measured high end", -1, 0, 1, SW_LIN, &kn.df_u, 0, 0 },
	{ "A31", "wiki_full passages (M)", "41.5 (its English subset) to 247 (all languages)",
	  247, 41.5, 247, SW_LOG, NULL, 0, 0 },
	{ "C3-C5", "host kernel cycles (x the POPCNT loop)",
	  "1x to 10.7x (Debian's FAISS without POPCNT, 79 ns per code)", 1, 1, 10.7, SW_LOG,
	  &kn.host_x, 0, 0 },
	{ "C6", "host queries at once", "1 (FAISS's one-query path) to 128 (a core each)", 1, 1,
	  128, SW_LOG, &kn.streams, 0, 0 },
	{ "C8", "document bytes per passage", "100-2000 B (wiki_en's 217 B)", 9e9 / 41.5e6, 100,
	  2000, SW_LOG, &kn.doc_bytes, 0, 0 },
	{ "C10", "wiki_full queries", "100-10000 (no query set exists)", 1000, 100, 10000,
	  SW_LOG, &kn.wiki_q, 0, 0 },
	{ "6.2", "a query's time (0 stream rule, 1 overlapping command, 2 one at a time)",
	  "the readings of an unstated QPS measurement", 0, 0, 2, SW_LEVELS, NULL, 0, 0 },
	/* The energy rows' inputs (Fig. 8, 6.1): they move no time. */
	{ "A34", "drive static power (W), both drives",
	  "3.5-25 W: an enterprise NVMe drive's idle to a U.2 slot's 25 W", 6.6, 3.5, 25, SW_LOG,
	  &kn.ssd_w, 0, 1 },
	{ "A15", "flash read energies (x 29.56 / 69.06 uJ per SLC / TLC page)",
	  "x0.05 (a die's read current over tR) to x1 (NVSim's, RecFlash III)", 1, 0.05, 1,
	  SW_LOG, &kn.eread_x, 0, 1 },
	{ "C11", "CPU-Real's power (W), packages + DRAM",
	  "178 (2 idle packages, standby DIMMs) to 864 (2 x 360 W TDP, active DIMMs)", 280, 178,
	  864, SW_LOG, &kn.cpu_w, 0, 1 },
	/* Last, and out of the hypercube: at x16 a run reads 16 x the pages
	 * (about 20 x the published run's time), so it is moved alone. */
	{ "A33", "nprobe of the recall points (x 16..256)",
	  "x1 (published) to x16: the corpus's own recall 0.90 probes 4.7-11 % of its entries",
	  1, 1, 16, SW_LOG, &kn.np_x, 1, 0 },
};
#define NSWI (sizeof(sw_inputs) / sizeof(sw_inputs[0]))

/* -I: a comma list of input ids one at a time (the tests' quick run); NULL: all. */
static const char *sw_only;

static int sw_listed(const char *id)
{
	size_t n = strlen(id);
	const char *p = sw_only;

	if (!p)
		return 1;
	for (; (p = strstr(p, id)); p += n)
		if ((p == sw_only || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return 1;
	return 0;
}

/* Set input @i to @v (the wiki_full size and the rule are not knobs). */
static void sw_set(unsigned i, double v)
{
	const struct sw_input *in = &sw_inputs[i];

	if (in->at)
		*in->at = v;
	else if (!strcmp(in->id, "A31")) {
		dsets[NDATA - 1].n = (uint64_t)(v * 1e6);
		set_nlists();
	} else {
		static const int lv[3] = { RULE_STREAM, RULE_OVERLAP, RULE_ONE };

		rule = lv[(int)v];
	}
}

/* Every input at its published value. */
static void sw_reset(void)
{
	unsigned i;

	for (i = 0; i < NSWI; i++)
		sw_set(i, sw_inputs[i].pub);
}

/* The rows at the current inputs (captured). */
static void sw_eval(void)
{
	dsets[NDATA - 1].queries = (uint32_t)lround(kn.wiki_q);
	cap.on = 1;
	cap.n = 0;
	cap.in = cap.indep = 0;
	reis_rows(0);
	cap.on = 0;
	if (cap.n > MAXROWS)
		die("row capture");
}

static uint64_t sw_rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double sw_u01(uint64_t *s)
{
	return (double)(sw_rng(s) >> 11) / 9007199254740992.0;
}

/* Input @i at position @u in [0, 1) of its range. */
static double sw_at_u(unsigned i, double u)
{
	const struct sw_input *in = &sw_inputs[i];

	if (in->scale == SW_LEVELS)
		return floor(in->lo + u * (in->hi - in->lo + 1));
	if (in->scale == SW_LOG)
		return exp(log(in->lo) + u * (log(in->hi) - log(in->lo)));
	return in->lo + u * (in->hi - in->lo);
}

static void sw_fmt(double v, char *b, size_t n)
{
	snprintf(b, n, fabs(v) >= 100 ? "%.0f" : fabs(v) >= 10 ? "%.1f" : "%.3g", v);
}

/* Per row: published, one-at-a-time and hypercube statistics. */
struct sw_row {
	double pub, lo, hi;		/* model values: published, min, max */
	double score[NSWI];		/* |metric ratio moved| by input i alone */
	double vlo[NSWI], vhi[NSWI];	/* the row at input i's ends */
	double hlo, hhi;		/* over the hypercube */
	unsigned hin;			/* hypercube points within 25 % */
};

static void sw_track(struct sw_row *r, unsigned k, int hyper)
{
	double v = cap.model[k];

	if (hyper) {
		if (v < r->hlo)
			r->hlo = v;
		if (v > r->hhi)
			r->hhi = v;
		r->hin += (cap.in >> k) & 1;
	} else {
		if (v < r->lo)
			r->lo = v;
		if (v > r->hi)
			r->hi = v;
	}
}

/* The independent rows within 25 % at inputs @u (u < 0: published). */
static unsigned sw_count_at(const double *u, uint64_t indep)
{
	unsigned i;

	sw_reset();
	for (i = 0; i < NSWI; i++)
		if (u[i] >= 0)
			sw_set(i, sw_at_u(i, u[i] >= 1 ? 0.999999 : u[i]));
	sw_eval();
	return (unsigned)__builtin_popcountll(cap.in & indep);
}

/*
 * The most rows any setting reaches, searched for: coordinate ascent from
 * @u (the hypercube's best point), each input in turn over SW_CLIMB_LEVELS
 * levels of its range with the others held, keeping a level that brings
 * more rows in, until a pass brings none (at most SW_CLIMB_PASSES). It
 * maximises the count on purpose, to bound what the unsourced inputs can
 * do (docs/fidelity.md's headline); the published setting never comes from
 * it. A33 stays published, as in the hypercube, and with -I only the
 * listed inputs move. Prints the count, the setting and the rows it
 * brings in.
 */
#define SW_CLIMB_LEVELS 7
static unsigned sw_passes = 3;	/* -C: the search's passes at most (0: none) */
static void sw_climb(double *u, char (*names)[160], unsigned n, uint64_t indep)
{
	unsigned i, l, k, pass, evals = 1, best = sw_count_at(u, indep), any = 0;
	int first = 1;
	int moved = 1;
	char a[32];

	for (pass = 0; pass < sw_passes && moved; pass++) {
		moved = 0;
		for (i = 0; i < NSWI; i++) {
			double at = u[i];

			if (sw_inputs[i].one_only || !sw_listed(sw_inputs[i].id))
				continue;
			for (l = 0; l < SW_CLIMB_LEVELS; l++) {
				unsigned c;

				u[i] = (double)l / (SW_CLIMB_LEVELS - 1);
				c = sw_count_at(u, indep);
				evals++;
				if (c > best) {
					best = c;
					at = u[i];
					moved = 1;
				}
			}
			u[i] = at;
		}
	}
	(void)sw_count_at(u, indep);
	printf("\nA search for the most (coordinate ascent from that point, each input over %d "
	       "levels of its range in turn, %u passes at most, %u evaluations): **the most any "
	       "setting found: %u of %u**, at", SW_CLIMB_LEVELS, sw_passes, evals, best,
	       __builtin_popcountll(indep));
	for (i = 0; i < NSWI; i++) {
		if (u[i] < 0)
			continue;
		sw_fmt(sw_at_u(i, u[i] >= 1 ? 0.999999 : u[i]), a, sizeof(a));
		printf("%s %s %s", first ? "" : ",", sw_inputs[i].id, a);
		first = 0;
	}
	printf(". The rows within 25 %% there:");
	for (k = 0; k < n; k++)
		if (((cap.in & indep) >> k) & 1)
			printf("%s %s", any++ ? ";" : "", names[k]);
	printf(".\n");
}

/*
 * The sweep; @points hypercube points (0: the one-at-a-time part only,
 * the tests' quick run). Markdown on stdout.
 */
static void sweep(unsigned points)
{
	static struct sw_row rows[MAXROWS];
	static double pubratio[MAXROWS];
	static char names[MAXROWS][160];
	static unsigned perm[NSWI][1024];
	unsigned i, j, k, n, best = 0, hist[MAXROWS + 1] = { 0 };
	uint64_t base, indep, seed = 0x2026120326ull, seed2 = 0x2026120534ull;
	double bestu[NSWI];		/* the hypercube's best point (u in [0, 1]) */
	char a[32], b[32], c[32];

	sw_reset();
	sw_eval();
	n = cap.n;
	base = cap.in;
	indep = cap.indep;
	for (k = 0; k < n; k++) {
		snprintf(names[k], sizeof(names[k]), "%s", cap.name[k]);
		rows[k].pub = rows[k].lo = rows[k].hi = cap.model[k];
		rows[k].hlo = 1e300;
		rows[k].hhi = -1e300;
		pubratio[k] = cap.ratio[k];
	}
	printf("%u inputs no paper states, each over its documented range (docs/timing-model.md "
	       "gives each value's source):\n\n| input | what | published | range | range's "
	       "source |\n|---|---|---:|---|---|\n", (unsigned)NSWI);
	for (i = 0; i < NSWI; i++) {
		const struct sw_input *in = &sw_inputs[i];

		if (in->pub < 0)
			snprintf(a, sizeof(a), "A27's low end");
		else
			sw_fmt(in->pub, a, sizeof(a));
		sw_fmt(in->lo, b, sizeof(b));
		sw_fmt(in->hi, c, sizeof(c));
		printf("| %s | %s | %s | %s-%s%s | %s |\n", in->id, in->what, a, b, c,
		       in->scale == SW_LOG ? " (log)" : "", in->range);
	}
	printf("\nPublished setting: %u of %u independent REIS rows within 25 %%.\n\n",
	       __builtin_popcountll(base & indep), __builtin_popcountll(indep));
	printf("One at a time (the others published; + comes within 25 %%, - leaves; "
	       "independent rows):\n\n| input | value | rows within 25 %% | changes |\n"
	       "|---|---|---:|---|\n");
	for (i = 0; i < NSWI; i++) {
		const struct sw_input *in = &sw_inputs[i];
		double ends[3] = { in->lo, in->hi, 0 };
		unsigned nend = 2;

		if (!sw_listed(in->id))	/* -I: these inputs only */
			continue;

		/* Levels: every level but the published one. */
		if (in->scale == SW_LEVELS)
			for (nend = 0, j = (unsigned)in->lo; j <= (unsigned)in->hi && nend < 3; j++)
				if (j != (unsigned)in->pub)
					ends[nend++] = j;
		for (j = 0; j < nend; j++) {
			uint64_t v, plus, minus;
			unsigned any = 0;

			sw_reset();
			sw_set(i, ends[j]);
			sw_eval();
			for (k = 0; k < n; k++) {
				double d = fabs(log(fabs(cap.ratio[k]) + 1e-9) -
						log(fabs(pubratio[k]) + 1e-9));

				if (d > rows[k].score[i])
					rows[k].score[i] = d;
				if (j + 1 == nend)
					rows[k].vhi[i] = cap.model[k];
				else if (!j)
					rows[k].vlo[i] = cap.model[k];
				sw_track(&rows[k], k, 0);
			}
			v = cap.in & indep;
			plus = v & ~base;
			minus = base & indep & ~v;
			sw_fmt(ends[j], a, sizeof(a));
			printf("| %s %s | %s | %u | ", in->id, in->what, a, __builtin_popcountll(v));
			for (k = 0; k < n; k++)
				if (((plus | minus) >> k) & 1)
					printf("%s%s%s", any++ ? "; " : "", (plus >> k) & 1 ? "+" : "-",
					       names[k]);
			printf("%s |\n", any ? "" : "none");
		}
	}
	if (points) {
		if (points > 1024)
			points = 1024;
		/* A Latin hypercube: each input's range cut into @points strata,
		 * each stratum used once, in an independent random order. */
		for (i = 0; i < NSWI; i++) {
			if (sw_inputs[i].one_only)
				continue;	/* held published: no draws */
			for (j = 0; j < points; j++)
				perm[i][j] = j;
			for (j = points - 1; j > 0; j--) {
				uint64_t *sd = sw_inputs[i].own_rng ? &seed2 : &seed;
				unsigned r = (unsigned)(sw_rng(sd) % (j + 1)), t = perm[i][j];

				perm[i][j] = perm[i][r];
				perm[i][r] = t;
			}
		}
		for (j = 0; j < points; j++) {
			unsigned cnt;

			double u[NSWI];

			sw_reset();
			for (i = 0; i < NSWI; i++) {
				u[i] = -1;
				if (!sw_inputs[i].one_only) {
					u[i] = (perm[i][j] + sw_u01(sw_inputs[i].own_rng ?
								    &seed2 : &seed)) / points;
					sw_set(i, sw_at_u(i, u[i]));
				}
			}
			sw_eval();
			for (k = 0; k < n; k++)
				sw_track(&rows[k], k, 1);
			cnt = (unsigned)__builtin_popcountll(cap.in & indep);
			hist[cnt]++;
			if (cnt > best || !j) {
				best = cnt;
				memcpy(bestu, u, sizeof(u));
			}
		}
		for (i = 0, k = 0; i < NSWI; i++)
			k += !sw_inputs[i].one_only;
		printf("\nA Latin hypercube of %u points over %u inputs at once (A33 held "
		       "published; seeded; independent rows within 25 %% at a point):\n\n"
		       "| rows within 25 %% | points |\n|---:|---:|\n", points, k);
		for (k = 0; k <= n; k++)
			if (hist[k])
				printf("| %u | %u |\n", k, hist[k]);
		printf("\nThe most at one point: %u of %u.\n", best, __builtin_popcountll(indep));
		if (sw_passes)
			sw_climb(bestu, names, n, indep);
	}
	printf("\nPer row: the published model value, the range the inputs cover one at a "
	       "time%s, and the inputs that move it most (its value at the input's low / high "
	       "end):\n\n| row | indep. | paper | published | one at a time |%s movers |\n"
	       "|---|:-:|---:|---:|---|%s---|\n", points ? " and over the hypercube (with the "
	       "share of its points within 25 %)" : "", points ? " hypercube | within |" : "",
	       points ? "---|---:|" : "");
	for (k = 0; k < n; k++) {
		const struct sw_row *r = &rows[k];
		unsigned top[3] = { NSWI, NSWI, NSWI }, t, any = 0;

		for (i = 0; i < NSWI; i++)
			for (t = 0; t < 3; t++)
				if (top[t] == NSWI || r->score[i] > r->score[top[t]]) {
					memmove(top + t + 1, top + t, sizeof(top[0]) * (2 - t));
					top[t] = i;
					break;
				}
		sw_fmt(cap.paper[k], a, sizeof(a));
		sw_fmt(r->pub, b, sizeof(b));
		printf("| %s | %s | %s | %s | ", names[k], (indep >> k) & 1 ? "yes" : "no", a, b);
		sw_fmt(r->lo, a, sizeof(a));
		sw_fmt(r->hi, b, sizeof(b));
		printf("%s-%s | ", a, b);
		if (points) {
			sw_fmt(r->hlo, a, sizeof(a));
			sw_fmt(r->hhi, b, sizeof(b));
			printf("%s-%s | %.0f %% | ", a, b, 100.0 * r->hin / points);
		}
		for (t = 0; t < 3; t++) {
			if (top[t] == NSWI || r->score[top[t]] < 0.01)
				continue;
			sw_fmt(r->vlo[top[t]], a, sizeof(a));
			sw_fmt(r->vhi[top[t]], b, sizeof(b));
			printf("%s%s (%s / %s)", any++ ? "; " : "", sw_inputs[top[t]].id, a, b);
		}
		printf("%s |\n", any ? "" : "none above 1 %");
	}
	sw_reset();
}

static const char bf_usage[] = "usage: bench_fidelity [-v] [-p \"k=v;...\"] [-f PASS] [-F] [-w MILLIONS] "
	"[-n SCALE] [-r stream|one|floor|overlap] | -S [-L N] [-C P] | -S1   (-v: every point on stderr; -p: "
	"override both REIS presets; -f: a fixed DF pass rate of the IVF rows; -F: A27's "
	"p(nprobe / nlist) at its high end (default its low end); -w: wiki_full's "
	"passages in millions (default 247); -n: the recall points' nprobe "
	"16..256 times SCALE (A33, default 1); -r: a query's time in Fig. 7, 9, 6.3.1, "
	"default the stream rule; -S: the REIS rows over the unsourced assumptions, "
	"markdown, -L N its hypercube points (default 256), -C P the search for the most "
	"rows' passes (0-5, default 3), -I ID,... only these inputs one at a time and in "
	"the search; -S1: its one-at-a-time part)\n";

int main(int argc, char **argv)
{
	unsigned lhs_points = 256;	/* -S's hypercube (-L) */
	int verbose = 0, sw = -1, c_set = 0, i;

	ex_help(argc, argv, bf_usage);
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
		} else if (!strcmp(argv[i], "-n") && i + 1 < argc) {
			kn.np_x = strtod(argv[++i], NULL);	/* A33's scale */
			if (!(kn.np_x >= 0.0625 && kn.np_x <= 256))
				goto usage;
		} else if (!strcmp(argv[i], "-F"))
			df_mode = DF_A27_HI;
		else if (!strcmp(argv[i], "-S") || !strcmp(argv[i], "-S1"))
			sw = argv[i][2] ? 0 : (int)lhs_points;
		else if (!strcmp(argv[i], "-I") && i + 1 < argc)
			sw_only = argv[++i];
		else if (!strcmp(argv[i], "-C") && i + 1 < argc &&
			 (sw_passes = (unsigned)strtoul(argv[++i], NULL, 10)) <= 5 &&
			 argv[i][0] >= '0' && argv[i][0] <= '9' && !argv[i][1])
			c_set = 1;
		else if (!strcmp(argv[i], "-L") && i + 1 < argc &&
			 (lhs_points = (unsigned)strtoul(argv[++i], NULL, 10)) >= 1 &&
			 lhs_points <= 1024)
			;
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
			ex_usage_err("bench_fidelity", "unknown option or bad value at", argv[i],
				     bf_usage);
	}
	if (sw > 0)
		sw = (int)lhs_points;	/* -L after -S */
	all_confs = verbose;
	if ((sw_only || c_set) && sw < 0)
		goto usage;
	if (sw >= 0) {
		if (verbose || overrides || df_mode != DF_A27 || rule || kn.np_x != 1 ||
		    dsets[NDATA - 1].n != 247000000)
			goto usage;
		sweep((unsigned)sw);
		return 0;
	}
	printf("figure,series,paper,model,metric,ratio,within_25pct,independent,settings\n");
	eq_rows();
	reis_rows(verbose);
	return 0;
usage:
	fputs(bf_usage, stderr);
	return 2;
}
