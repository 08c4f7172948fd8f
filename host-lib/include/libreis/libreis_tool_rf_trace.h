/* SPDX-License-Identifier: MIT */
/*
 * libreis/libreis_tool_rf_trace.h - the locality-K embedding trace generator.
 * Included by libreis_tools.h; conventions are libreis.h's (docs/libreis.md).
 */
#ifndef LIBREIS_TOOL_RF_TRACE_H
#define LIBREIS_TOOL_RF_TRACE_H

#ifndef LIBREIS_TOOLS_H
#error "include <libreis_tools.h>, not <libreis/libreis_tool_rf_trace.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct reis_rf_trace_opts - synthetic access trace with locality K.
 * @rows: rows of the table, >= 1.
 * @kind: REIS_RF_TRACE_DRIFT (0), REIS_RF_TRACE_RECSSD,
 *        REIS_RF_TRACE_RECFLASH or REIS_RF_TRACE_POPULAR.
 * @k: locality parameter, 0..16 (paper: 0, 0.3, 0.8, 1, 2; larger K, less
 *     locality).
 * @seed: seed; the same options give the same trace.
 * @new_base: DRIFT only: probability mass of "new" references at K = 0,
 *            relative to a reuse mass of 1; 0: REIS_RF_TRACE_NEW_BASE.
 * @sd_mean: DRIFT only: mean of the exponential-shaped stack-distance
 *           histogram; 0: REIS_RF_TRACE_SD_MEAN.
 * @sd_max: DRIFT only: largest stack distance; 0: REIS_RF_TRACE_SD_MAX.
 * @lookups: RECSSD and RECFLASH: lookups per sample (the model's pooling factor),
 *           the unit of its stack distances; 0: 1. At most
 *           REIS_RF_TRACE_MAX_LOOKUPS.
 * @rsvd1: must be 0.
 * @zipf: POPULAR only: the popularity's Zipf exponent; 0:
 *        REIS_RF_TRACE_POP_ALPHA. Other kinds: must be 0.
 * @day: POPULAR only: the day of a day-structured trace (0 first): the
 *       same popularity (from @seed), the day's own draws.
 * @rsvd2: must be 0.
 * @churn: POPULAR only: share of the popularity ranks that move to another
 *         row each day (a new item takes the rank), 0..1; 0: none. Each
 *         rank renews at that rate with its own phase, so on day d it holds
 *         version floor(churn d + phase) of its row. Other kinds: 0.
 *
 * REIS_RF_TRACE_RECSSD is the generator of RecSSD's scripts, which
 * RecFlash's evaluation follows ("like RecSSD", IV-A): the table is cut
 * into lines of REIS_RF_TRACE_RECSSD_LINE rows and only the first row of
 * a line is ever referenced. An LRU list holds every line. Each access draws a bin b of a
 * 50-bin histogram of an exponential distribution (bin width w = H(1000) /
 * 50, the expected maximum of 1000 unit-exponential samples over 50):
 * P(b) = (p_b + K [b = 0]) / (1 + K), p_b = the exponential's mass in bin
 * b. b = 0 is a "new" reference: the least recently used line; otherwise
 * the line at stack distance b x @lookups (1 = the most recent; clamped to
 * the list). The line moves to the top. Until 49 new references were drawn,
 * b is capped at their count (a young trace has little to reuse). So the
 * new-reference rate is (p_0 + K) / (1 + K); docs/recflash.md.
 *
 * REIS_RF_TRACE_RECFLASH is the same generator over lines of one row each,
 * the LRU list starting in a seeded pseudo-random order: the trace of
 * RecFlash's Fig. 10-12 (docs/timing-model.md "RecFlash workload"). Its
 * new references spread over all rows, so the unique-access rate over a
 * long trace is the new-reference rate (14 % at K = 0 to 71 % at K = 2;
 * the paper quotes 8 %-66 %), where RECSSD's rows / 128 lines make it
 * vanish. The random start keeps what RecSSD's lines give: consecutive
 * new references are rows of different pages.
 *
 * REIS_RF_TRACE_DRIFT is a stress workload whose new references are rows
 * never seen before, so a placement learned from past traffic cannot cover
 * them: it keeps an LRU stack of referenced rows. Each access is "new" with
 * probability (new_base + g K) / (1 + new_base + g K), g =
 * REIS_RF_TRACE_K_GAIN: a row never referenced before (the next of a seeded
 * pseudo-random permutation; uniformly random once all rows were used).
 * Otherwise it re-references the row at stack distance d = 1..sd_max drawn
 * with weight (1 - 1/sd_mean)^(d-1), and the row moves to the top. The
 * unique-access rate thus grows with K: about 8 % at K = 0, 66 % at K = 2.
 *
 * REIS_RF_TRACE_POPULAR is a workload whose popularity persists (RecFlash
 * II-B: "users tend to frequently access the preferred items"; III-C1 learns
 * the placement from "a sampled training set" of the same traffic): every
 * row has a fixed popularity, a Zipf law of exponent @zipf over a seeded
 * ranking of the rows (a row's rank is unrelated to its index, so hot rows
 * lie on scattered pages, II-B's premise). Each access is a new reference
 * with probability g K / (1 + g K), g = REIS_RF_TRACE_POP_GAIN: a row the
 * trace never referenced before (the next unseen row of a second seeded
 * order; uniformly random once all were seen); otherwise a row drawn from
 * the popularity. At K = 0 the trace is the popularity alone. The exponent
 * and g are set so 1 M accesses of a 1 M-row table touch 8 % distinct rows
 * at K = 0 and 66 % at K = 2, the paper's range (IV-A); docs/recflash.md
 * shows the calibration. A prefix of the trace (a profile) is a sample of
 * the same distribution as what follows.
 */
struct reis_rf_trace_opts {
	uint32_t rows;
	uint32_t kind;
	double k;
	uint64_t seed;
	double new_base;
	uint32_t sd_mean;
	uint32_t sd_max;
	uint32_t lookups;
	uint32_t rsvd1;
	double zipf;
	uint32_t day;
	uint32_t rsvd2;
	double churn;
};

#define REIS_RF_TRACE_DRIFT	0u	/* new references are never-seen rows */
#define REIS_RF_TRACE_RECSSD	1u	/* RecSSD's LRU line generator */
#define REIS_RF_TRACE_RECFLASH	2u	/* the same over single-row lines */
#define REIS_RF_TRACE_POPULAR	3u	/* a persistent Zipf popularity plus new rows */
#define REIS_RF_TRACE_RECSSD_LINE	128u	/* rows per line (RecSSD's cache_line_size) */
#define REIS_RF_TRACE_RECSSD_BINS	50u	/* histogram bins; bin 0 = new */
#define REIS_RF_TRACE_MAX_LOOKUPS	100000u

#define REIS_RF_TRACE_NEW_BASE	0.087	/* calibrated: K = 0 gives 8 % unique */
#define REIS_RF_TRACE_K_GAIN	0.927	/* calibrated: K = 2 gives 66 % unique */
#define REIS_RF_TRACE_SD_MEAN	1024u	/* histogram shape: mean stack distance */
#define REIS_RF_TRACE_SD_MAX	65536u	/* rows deeper in the stack are forgotten */
#define REIS_RF_TRACE_SD_LIMIT	(1u << 22)
#define REIS_RF_TRACE_MAX_K	16.0
#define REIS_RF_TRACE_POP_ALPHA	1.20	/* calibrated: K = 0 gives 8 % unique */
#define REIS_RF_TRACE_POP_GAIN	0.86	/* calibrated: K = 2 gives 66 % unique */
#define REIS_RF_TRACE_POP_MAX_ROWS (1u << 26)	/* its popularity table: 8 B a row */

struct reis_rf_trace;

/**
 * reis_rf_trace_open() - create a trace generator.
 * @o: options.
 * @out: the generator.
 *
 * Return: 0, -EINVAL for bad options, -ENOMEM.
 */
int reis_rf_trace_open(const struct reis_rf_trace_opts *o, struct reis_rf_trace **out);

/**
 * reis_rf_trace_next() - the next @n accesses of the trace.
 * @t: generator.
 * @idx: @n row indices.
 * @n: count.
 *
 * Consecutive calls continue one trace, so a profile taken from its start
 * predicts what follows as a sampled training trace would.
 */
void reis_rf_trace_next(struct reis_rf_trace *t, uint32_t *idx, size_t n);

/**
 * reis_rf_trace_bin_prob() - the RECSSD generator's bin probabilities.
 * @k: locality K, 0..REIS_RF_TRACE_MAX_K.
 * @p: REIS_RF_TRACE_RECSSD_BINS probabilities; p[0] is the new-reference
 *     rate, p[b] that of stack distance b x lookups.
 *
 * The definition the generator draws from, for tools that check a trace.
 *
 * Return: 0, -EINVAL for a bad @k or a NULL @p.
 */
int reis_rf_trace_bin_prob(double k, double *p);

/**
 * reis_rf_trace_close() - free a generator (NULL: no-op).
 * @t: generator.
 */
void reis_rf_trace_close(struct reis_rf_trace *t);

/**
 * reis_rf_unique_rate() - distinct rows / accesses of a trace.
 * @idx: accesses.
 * @n: how many (0: returns 0).
 * @rows: bound of the indices (larger ones are ignored).
 *
 * Return: the unique-access rate in [0, 1], or -1.0 when out of memory.
 */
double reis_rf_unique_rate(const uint32_t *idx, size_t n, uint32_t rows);

/**
 * reis_rf_profile_cover() - what a profile of @prof tells a frequency
 * placement about the accesses @meas (docs/timing-model.md W4).
 * @prof: the profiled accesses (the placement's counts).
 * @nprof: how many.
 * @meas: the accesses the placement then serves.
 * @nmeas: how many (0: both results 0).
 * @rows: the table's rows; every index must be below it.
 * @seen: the share of @meas whose row @prof touched.
 * @tie: the mean, over @meas, of the share of the rows that have the same
 *       count in @prof as the accessed row (untouched rows tie at 0); a
 *       frequency sort says nothing about the order inside such a group.
 *
 * Return: 0, -EINVAL (NULL array with a count, rows 0, an index >= @rows)
 * or -ENOMEM.
 */
int reis_rf_profile_cover(const uint32_t *prof, size_t nprof, const uint32_t *meas,
			  size_t nmeas, uint32_t rows, double *seen, double *tie);

#ifdef __cplusplus
}
#endif

#endif /* LIBREIS_TOOL_RF_TRACE_H */
