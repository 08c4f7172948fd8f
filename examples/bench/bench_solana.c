/* SPDX-License-Identifier: MIT */
/*
 * bench_solana - Solana (../shared/papers/001_*) held against the device-
 * group model: the paper's server (one Xeon host + 36 computational drives)
 * as nodes of libreis' pull scheduler (reis_group_pull_model(): the same
 * pull loop, batch ratio and accounting as the scheduled search, docs/
 * group.md), with each application's single-node rates from the paper
 * (IV-B1, Fig. 6) and its power from IV-C. One CSV row per published number
 * (docs/fidelity.md): Fig. 5's throughputs, Table I's speedups, energies,
 * savings and shares, IV-B's single-node rates and batch ratios, IV-C's
 * powers. The applications themselves (Vosk, NLTK, the recommender) are
 * not run: their rates are the paper's single-node measurements, and what
 * the model predicts is what 36 drives and the host reach together under
 * the scheduler (its wake-up period, its batches, the end of the run).
 *
 * Usage: bench_solana [-S]   (-S: the unsourced inputs one at a time,
 *        markdown for docs/fidelity.md)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libreis_tools.h"
#include "ex_usage.h"

#define DRIVES 36	/* IV: 36 E1.S drives in the front bay */

/* IV-C: the server's power (HPM-100A meter, whole server). */
#define P_IDLE_NODRIVES 167.0	/* W, idle without drives */
#define P_IDLE_36 405.0		/* W, idle with 36 CSDs */
#define P_BUSY_NOISP 482.0	/* W, running the benchmarks, ISP disabled */
#define P_BUSY_ISP 492.0	/* W, with all 36 ISP engines running */

/* IV-A: "The scheduler ... wakes up every 0.2 seconds". */
#define TICK_US 200000u

/*
 * The applications (IV-B). items: the work units a batch counts (clips,
 * queries, tweets); per: output units per item (words per clip); host /
 * drive: single-node rates in output units per second; batch: the drive's
 * batch in items; ratio: the batch ratio the scheduler uses.
 */
struct app {
	const char *name, *unit;
	double items, per, host, drive, batch, ratio;
	int host_measured_alone;	/* the host rate is Fig. 5's host alone */
	/* the paper's numbers */
	double p_t36, p_alone, p_speedup, p_speedup_text, p_e_host, p_e_csd, p_save;
	double p_host_share, p_csd_share, p_batch_var;
};

static struct app apps[3] = {
	/*
	 * Speech to text (IV-B1): LJ Speech, 13,100 clips, 225,715 words; one
	 * node alone: host 102, CSD 5.3 words/s; the scheduler's ratio 20;
	 * Fig. 5(a) at batch 6: 96 words/s host alone, 296 with 36 CSDs; the
	 * batch size moves it "less than 7 %".
	 */
	{ "speech to text", "words", 13100, 225715.0 / 13100, 102, 5.3, 6, 20, 0,
	  296, 96, 3.1, 3.1, 5021, 1662, 67, 32, 68, 7 },
	/*
	 * Movie recommender (IV-B2): the 58,000 MovieLens titles shuffled, one
	 * query each; the host alone 579 q/s (Fig. 5(b), the only host rate
	 * given), a CSD's rate from "an approximate batch size ratio of 20 ...
	 * almost the same for all three applications" (IV-B1); 1506 q/s with
	 * 36 CSDs, "2.6x" in the text, 2.8x in Table I; the batch moves it
	 * "not ... more than 3 %". Its batch is not stated: the smallest whose
	 * scheduler tick (0.2 s) costs at most that 3 % of a batch: 0.2 s / 3 %
	 * = 6.7 s of a CSD's work, 194 queries (docs/fidelity.md S1).
	 */
	{ "recommender", "queries", 58000, 1, 579, 579.0 / 20, 194, 20, 1,
	  1506, 579, 2.8, 2.6, 832, 327, 61, 36, 64, 3 },
	/*
	 * Sentiment analysis (IV-B3): 8 M tweets; one node alone at its best
	 * batch (Fig. 6): host 9496, Solana 364 queries/s, ratio 9496 / 364 =
	 * 26; Fig. 5(c) best at batch 40 k: 9496 -> 20994 q/s.
	 */
	{ "sentiment analysis", "queries", 8e6, 1, 9496, 364, 40000, 26, 1,
	  20994, 9496, 2.2, 2.2, 51, 23, 54, 44, 56, 0 },
};

/* The unsourced inputs (-S): S1 the recommender's batch, S2 the scheduler's
 * phase (its tick), S3 the recommender's CSD rate (the ratio). */
static double tick_x = 1;	/* x TICK_US */

enum metric { M_FACTOR, M_CUT, M_SHARE, M_VALUE, M_BOUND };
static const char *const metric_name[] = { "factor", "cut-speedup", "share", "value", "bound" };

static int capture;
static double cap_model[64];
static unsigned ncap;

static void row(const char *fig, const char *series, enum metric m, int indep, double paper,
		double model, const char *settings)
{
	double r = m == M_CUT ? (model < 100 ? (100 - paper) / (100 - model) : 0) :
		   paper != 0 ? model / paper : 0;
	int within = m == M_BOUND ? r <= 1.25 : fabs(r - 1) <= 0.25;

	if (capture) {
		if (ncap < 64)
			cap_model[ncap] = model;
		ncap++;
		return;
	}
	printf("\"%s\",\"%s\",%.6g,%.6g,%s,%.4f,%s,%s,\"%s\"\n", fig, series, paper, model,
	       metric_name[m], r, within ? "yes" : "no", indep ? "yes" : "no", settings);
}

/* A row the model cannot give: no model value, the reason in the settings. */
static void row_none(const char *fig, const char *series, const char *metric, double paper,
		     const char *why)
{
	if (capture) {
		ncap++;
		return;
	}
	printf("\"%s\",\"%s\",%.6g,,%s,,no,no,\"not modeled: %s\"\n", fig, series, paper, metric,
	       why);
}

static void die(const char *what, int ret)
{
	fprintf(stderr, "bench_solana: %s: %d\n", what, ret);
	exit(1);
}

/* One scheduled run of @a with @drives drives (0: the host alone). */
static void run(const struct app *a, unsigned drives, double batch, struct reis_group_sched_report *rep)
{
	struct reis_group_pull_model m;
	struct reis_group_sched_opts so;
	int ret;

	memset(&m, 0, sizeof(m));
	m.drives = drives ? drives : 1;
	m.items = (uint64_t)a->items;
	m.host_ips = a->host / a->per;
	m.drive_ips = a->drive / a->per;
	memset(&so, 0, sizeof(so));
	/* The slower node (a CSD) gets the base batch, the host ratio x it. */
	so.batch = (uint32_t)batch;
	so.ratio = a->ratio;
	so.tick_us = (uint32_t)lround(TICK_US * tick_x);
	/* OCFS2 shares the data (IV-A): any node takes any item. */
	so.flags = REIS_GROUP_SCHED_SHARED | (drives ? 0 : REIS_GROUP_SCHED_HOST_ONLY);
	ret = reis_group_pull_model(&m, &so, rep);
	if (ret)
		die("reis_group_pull_model", ret);
}

/* Output units per second of a run. */
static double rate(const struct app *a, const struct reis_group_sched_report *rep)
{
	return rep->qps * a->per;
}

static void app_rows(unsigned i)
{
	static const char *const fig5[3] = { "Solana Fig. 5(a)", "Solana Fig. 5(b)",
					     "Solana Fig. 5(c)" };
	const struct app *a = &apps[i];
	struct reis_group_sched_report all, alone, v;
	double t36, t1, sp, e_host, e_csd, lo = 1e300, hi = 0, b;
	char set[400], ser[160];
	/* IV-C: the host busy adds 482 - 405 = 77 W; each ISP engine 0.28 W. */
	double host_w = P_BUSY_NOISP - P_IDLE_36, isp_w = (P_BUSY_ISP - P_BUSY_NOISP) / DRIVES;
	double pw_host = P_IDLE_36 + host_w, pw_csd = P_IDLE_36 + host_w + DRIVES * isp_w;

	run(a, DRIVES, a->batch, &all);
	run(a, 0, a->batch, &alone);
	t36 = rate(a, &all);
	t1 = rate(a, &alone);
	sp = t36 / t1;
	snprintf(set, sizeof(set), "pull scheduler (reis_group_pull_model) over the host + %u "
		 "drives, %.0f %s, single-node rates %.4g / %.4g %s/s (host / CSD; %s), CSD "
		 "batch %.0f, ratio %.0f, 0.2 s scheduler tick (IV-A)", DRIVES, a->items,
		 a->per > 1 ? "clips" : a->unit, a->host, a->drive, a->unit,
		 a->host_measured_alone ? "the host's is Fig. 5's host alone" : "IV-B",
		 a->batch, a->ratio);
	snprintf(ser, sizeof(ser), "%s, 36 CSDs + host (%s/s)", a->name, a->unit);
	row(fig5[i], ser, M_VALUE, 1, a->p_t36, t36, set);
	snprintf(ser, sizeof(ser), "%s, host alone (%s/s)", a->name, a->unit);
	if (a->host_measured_alone)
		row(fig5[i], ser, M_VALUE, 0, a->p_alone, t1,
		    "dependent: the host's rate is the model's input (the paper gives no other)");
	else
		row(fig5[i], ser, M_VALUE, 1, a->p_alone, t1,
		    "the host alone under the scheduler (its batches and tick), from IV-B1's "
		    "single-node 102 words/s");
	if (a->p_speedup_text != a->p_speedup) {
		snprintf(ser, sizeof(ser), "%s, speedup with 36 CSDs, text (x)", a->name);
		row(fig5[i], ser, M_FACTOR, 1, a->p_speedup_text, sp, set);
	}
	if (a->p_batch_var > 0) {
		/* Fig. 5: the batch size moves the rate "less than" p %: the
		 * model's spread over CSD batches of the base to 4 times it (the
		 * figure's sizes are not in the text). */
		for (b = a->batch; b <= a->batch * 4 + 0.5; b += a->batch / 2) {
			run(a, DRIVES, floor(b), &v);
			lo = fmin(lo, rate(a, &v));
			hi = fmax(hi, rate(a, &v));
		}
		snprintf(ser, sizeof(ser), "%s, rate spread over batch sizes (%%, less than)",
			 a->name);
		snprintf(set, sizeof(set), "36 CSDs, CSD batches %.0f-%.0f (the base to 4x; the "
			 "figure's sizes are not in the text), (max - min) / max", a->batch,
			 a->batch * 4);
		row(fig5[i], ser, M_BOUND, 1, a->p_batch_var, 100 * (hi - lo) / hi, set);
	}
	snprintf(ser, sizeof(ser), "%s, max speedup (x)", a->name);
	snprintf(set, sizeof(set), "36 CSDs + host over the host alone, both under the "
		 "scheduler");
	row("Solana Table I", ser, M_FACTOR, 1, a->p_speedup, sp, set);
	/* IV-C: 482 W with the host busy and the drives as storage; 492 W with
	 * the 36 ISP engines running (405 W idle + 77 W host + 36 x 0.28 W). */
	e_host = pw_host / (t1 / 1000.0);
	e_csd = pw_csd / (t36 / 1000.0);
	snprintf(ser, sizeof(ser), "%s, energy per %s, host (mJ)", a->name,
		 a->per > 1 ? "word" : "query");
	row("Solana Table I", ser, M_VALUE, 0, a->p_e_host, e_host,
	    "dependent: IV-C's 482 W over the host-alone rate row");
	snprintf(ser, sizeof(ser), "%s, energy per %s, w/CSD (mJ)", a->name,
		 a->per > 1 ? "word" : "query");
	row("Solana Table I", ser, M_VALUE, 0, a->p_e_csd, e_csd,
	    "dependent: IV-C's 492 W over the 36-CSD rate row");
	snprintf(ser, sizeof(ser), "%s, energy saving per query (%%)", a->name);
	row("Solana Table I", ser, M_CUT, 0, a->p_save, 100 * (1 - e_csd / e_host),
	    "dependent: the two energy rows' ratio");
	snprintf(ser, sizeof(ser), "%s, data processed on host (%%)", a->name);
	row("Solana Table I", ser, M_SHARE, 0, a->p_host_share, 100 * (1 - all.inside_share),
	    "dependent: the host's share of the items; the paper's own arithmetic makes it "
	    "host alone / with the CSDs, 1 / speedup (speech: 96 / 296 = 32 %)");
	snprintf(ser, sizeof(ser), "%s, data processed in CSDs (%%)", a->name);
	row("Solana Table I", ser, M_SHARE, 0, a->p_csd_share, 100 * all.inside_share,
	    "dependent: 100 % minus the host's share");
}

static void input_rows(void)
{
	row("Solana IV-B1", "speech to text, host alone, one node (words/s)", M_VALUE, 0, 102,
	    apps[0].host, "an input of the model");
	row("Solana IV-B1", "speech to text, CSD alone, one node (words/s)", M_VALUE, 0, 5.3,
	    apps[0].drive, "an input of the model");
	row("Solana IV-B1", "batch ratio (x)", M_VALUE, 0, 20, apps[0].ratio,
	    "an input of the model (102 / 5.3 = 19.2, the paper rounds to 20)");
	row("Solana Fig. 6", "sentiment analysis, host alone, one node (queries/s)", M_VALUE, 0,
	    9496, apps[2].host, "an input of the model");
	row("Solana Fig. 6", "sentiment analysis, CSD alone, one node (queries/s)", M_VALUE, 0,
	    364, apps[2].drive, "an input of the model");
	row("Solana Fig. 6", "sentiment analysis, batch ratio (x)", M_VALUE, 0, 26, apps[2].ratio,
	    "an input of the model (9496 / 364)");
	row("Solana IV-C", "server idle without drives (W)", M_VALUE, 0, P_IDLE_NODRIVES,
	    P_IDLE_NODRIVES, "an input of the model");
	row("Solana IV-C", "server idle with 36 CSDs (W)", M_VALUE, 0, P_IDLE_36, P_IDLE_36,
	    "an input of the model");
	row("Solana IV-C", "idle power per CSD (W)", M_VALUE, 0, 6.6,
	    (P_IDLE_36 - P_IDLE_NODRIVES) / DRIVES, "dependent: (405 - 167) / 36");
	row_none("Solana IV-C", "commercial E1.S drives in operation (W, 10-15)", "value", 12.5,
		 "a market figure for other drives, no quantity of this server");
	row("Solana IV-C", "server under load, ISP off (W)", M_VALUE, 0, P_BUSY_NOISP,
	    P_BUSY_NOISP, "an input of the model");
	row("Solana IV-C", "server under load, 36 ISP engines on (W)", M_VALUE, 0, P_BUSY_ISP,
	    P_BUSY_ISP, "an input of the model");
	row("Solana IV-C", "power per ISP engine (W)", M_VALUE, 0, 0.28,
	    (P_BUSY_ISP - P_BUSY_NOISP) / DRIVES, "dependent: (492 - 482) / 36");
	row("Solana IV-B1", "speech to text, data kept in the CSDs (GB of 3.8)", M_VALUE, 0, 2.58,
	    3.8 * 0.68, "dependent: Table I's 68 % of the 3.8 GB");
	row_none("Solana IV-B1", "speech to text, output moved to the host (MB)", "value", 1.2,
		 "the transcripts' size: the model moves no data");
}

/* -S: each unsourced input at the ends of its range, the rows it moves. */
static void sweep(void)
{
	static const struct {
		const char *id, *what;
		double pub, lo, hi;
	} in[] = {
		{ "S1", "the recommender's CSD batch (queries)", 194, 20, 2000 },
		{ "S2", "the scheduler's tick (x 0.2 s, IV-A)", 1, 0, 2 },
		/* S3: from the speech ratio 102 / 5.3 to sentiment's 9496 / 364
		 * (IV-B1: "almost the same for all three applications"). */
		{ "S3", "the recommender's batch ratio (the CSD's rate = 579 / it)", 20, 19.2, 26 },
	};
	static double base[64];
	unsigned i, j, k, nbase;

	capture = 1;
	ncap = 0;
	for (k = 0; k < 3; k++)
		app_rows(k);
	nbase = ncap;
	memcpy(base, cap_model, sizeof(base));
	printf("| input | what | published | value | rows moved by more than 1 %% |\n"
	       "|---|---|---:|---:|---:|\n");
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		double ends[2] = { in[i].lo, in[i].hi };

		for (j = 0; j < 2; j++) {
			unsigned moved = 0;

			apps[1].batch = i == 0 ? ends[j] : in[0].pub;
			tick_x = i == 1 ? ends[j] : in[1].pub;
			apps[1].ratio = i == 2 ? ends[j] : in[2].pub;
			apps[1].drive = 579.0 / apps[1].ratio;
			ncap = 0;
			for (k = 0; k < 3; k++)
				app_rows(k);
			for (k = 0; k < nbase && k < 64; k++)
				moved += fabs(cap_model[k] - base[k]) > 0.01 * fabs(base[k]);
			printf("| %s | %s | %g | %g | %u |\n", in[i].id, in[i].what, in[i].pub,
			       ends[j], moved);
		}
	}
	apps[1].batch = in[0].pub;
	tick_x = 1;
	apps[1].ratio = 20;
	apps[1].drive = 579.0 / 20;
	capture = 0;
}

int main(int argc, char **argv)
{
	static const char usage[] = "usage: bench_solana [-S]\n";
	unsigned i;

	ex_help(argc, argv, usage);
	if (argc == 2 && !strcmp(argv[1], "-S")) {
		sweep();
		return 0;
	}
	if (argc != 1)
		ex_usage_err("bench_solana", "unknown option or argument", argv[1], usage);
	printf("figure,series,paper,model,metric,ratio,within_25pct,independent,settings\n");
	for (i = 0; i < 3; i++)
		app_rows(i);
	input_rows();
	return 0;
}
