/* SPDX-License-Identifier: MIT */
/*
 * tool_rf_trace.c - the synthetic locality-K embedding traces (RecFlash
 * IV-A, after RecSSD / DLRM's stack-distance generator).
 *
 * RECSSD (RecSSD's scripts; libreis_tool_rf_trace.h states the
 * definition): an LRU list of all rows / 128 lines, a 50-bin exponential
 * stack-distance histogram whose "new" bin K adds mass to, distances in
 * units of the lookups per sample, a new reference recycling the least
 * recently used line. This is the method of RecSSD's public generator
 * (gen_dist.py + dlrm_data_caffe2.py), with two deterministic choices: the
 * histogram is the exponential's exact bin mass over the expected sample
 * range rather than a random sample's, and K adds K x the histogram's mass
 * to bin 0 without rounding it to an integer (RecSSD's int() of a random
 * sum), so P(new) = (p_0 + K) / (1 + K) exactly.
 *
 * RECFLASH (the Fig. 10-12 workload): the RECSSD method over lines of one
 * row, the LRU list starting as a seeded permutation of the rows (a
 * Fisher-Yates shuffle), so new references land on rows of unrelated pages
 * as RecSSD's 128-row lines (a 16 KiB page each at 128-byte rows) do.
 *
 * DRIFT (a stress workload): an LRU stack holds the rows referenced so far (the sd_max most recent).
 * Each access is "new" with probability (base + g K) / (1 + base + g K):
 * the next row of a seeded pseudo-random permutation of all rows (so it was
 * never referenced before; once every row was used, a uniformly random
 * row), pushed on top. Otherwise a stack distance d in
 * 1..sd_max is drawn with weight (1 - 1/sd_mean)^(d - 1) (exponential
 * shape) and the row at depth d is referenced again and moved to the top;
 * while the stack is shallower than d the access is new. K thus moves
 * probability mass from reuse to new references and the unique-access rate
 * grows with K. base and the gain g are calibrated so that K = 0 gives 8 %
 * unique accesses and K = 2 gives 66 % (the paper's range, IV-A);
 * docs/recflash.md shows the calibration.
 *
 * POPULAR (a persistent popularity, RecFlash II-B / III-C1): a Zipf law
 * over a seeded ranking of the rows (rank -> row by a Feistel permutation,
 * so hot rows are scattered), drawn by binary search in its cumulative
 * table; a new reference is the next row of a second permutation that the
 * trace has not referenced yet (a bit per row). r^-a is computed with the
 * file's own exp and log (rf_pow_neg()), so the table is the same
 * everywhere.
 *
 * Everything is integer or IEEE double arithmetic without libm, so a seed
 * gives the same trace on every machine.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libreis_tools.h"
#include "core_priv.h"
#include "core_mix.h"

struct reis_rf_trace {
	uint32_t rows;
	/* POPULAR */
	double *pop_cdf;	/* pop_cdf[r] = P(rank <= r) */
	uint64_t *seen;		/* rows referenced so far */
	double p_fresh;
	double churn;		/* ranks renewed per day */
	uint32_t day;
	uint32_t pop_keys[4], fresh_keys[4];
	uint64_t fresh_pos;	/* next index of the fresh order to try */
	uint32_t kind;
	uint32_t lookups;	/* RECSSD: distance unit */
	uint32_t news;		/* RECSSD: new references drawn, up to the bins */
	uint32_t line;		/* RECSSD: rows per line */
	double bin_cdf[REIS_RF_TRACE_RECSSD_BINS];	/* RECSSD */
	uint32_t sd_max;
	double p_new;
	double *cdf;		/* cdf[d - 1] = P(distance <= d | reuse) */
	/*
	 * The LRU stack as time stamps: slot s holds the row referenced at
	 * time s; a Fenwick tree marks the slots that are still the latest
	 * reference of their row. Depth d = the d-th marked slot from the end.
	 */
	uint32_t *slot_row;
	uint32_t *fen;		/* 1-based Fenwick tree over cap slots */
	uint32_t cap;		/* a power of two >= 4 sd_max */
	uint32_t now;		/* next time stamp */
	uint32_t depth;		/* marked slots: the stack's depth */
	uint32_t log2cap;
	uint64_t rng;
	uint64_t fresh;		/* rows handed out as new so far */
	uint32_t half_bits;	/* Feistel permutation over 2^(2 half_bits) */
	uint32_t keys[4];
};

static void rf_fen_add(struct reis_rf_trace *t, uint32_t slot, int delta)
{
	uint32_t i;

	for (i = slot + 1; i <= t->cap; i += i & -i)
		t->fen[i] = (uint32_t)((int64_t)t->fen[i] + delta);
}

/* The slot of the k-th marked slot from the start (k >= 1). */
static uint32_t rf_fen_kth(const struct reis_rf_trace *t, uint32_t k)
{
	uint32_t pos = 0, step;

	for (step = t->cap; step; step >>= 1)
		if (pos + step <= t->cap && t->fen[pos + step] < k) {
			pos += step;
			k -= t->fen[pos];
		}
	return pos;	/* 0-based slot */
}

/* Out of time stamps: move the marked slots to the front, in order. */
static void rf_trace_compact(struct reis_rf_trace *t)
{
	uint32_t s, n = 0, i;

	for (s = 0; s < t->now; s++) {
		/* A slot is marked iff its prefix count rises there. */
		uint32_t c = 0, j;

		for (j = s + 1; j; j -= j & -j)
			c += t->fen[j];
		if (c > n)
			t->slot_row[n++] = t->slot_row[s];
	}
	memset(t->fen, 0, sizeof(*t->fen) * (t->cap + 1u));
	for (i = 0; i < n; i++)
		rf_fen_add(t, i, 1);
	t->now = n;
	t->depth = n;
}

static void rf_trace_push(struct reis_rf_trace *t, uint32_t row)
{
	if (t->now == t->cap)
		rf_trace_compact(t);
	t->slot_row[t->now] = row;
	rf_fen_add(t, t->now++, 1);
	if (++t->depth > t->sd_max) {
		/* Forget the deepest row. */
		rf_fen_add(t, rf_fen_kth(t, 1), -1);
		t->depth--;
	}
}

/* A 4-round Feistel network with @keys: a bijection of [0, 2^(2 half_bits)). */
static uint32_t rf_feistel_k(const struct reis_rf_trace *t, const uint32_t *keys, uint32_t x)
{
	uint32_t mask = (1u << t->half_bits) - 1, l = x >> t->half_bits, r = x & mask;
	unsigned i;

	for (i = 0; i < 4; i++) {
		uint32_t f = (r ^ keys[i]) * 0x9e3779b1u;
		uint32_t nl = r;

		f ^= f >> 15;
		r = (l ^ f) & mask;
		l = nl;
	}
	return (l << t->half_bits) | r;
}

static uint32_t rf_feistel(const struct reis_rf_trace *t, uint32_t x)
{
	return rf_feistel_k(t, t->keys, x);
}

/* Element @x of the permutation of [0, rows) that @keys define (cycle-walking). */
static uint32_t rf_perm(const struct reis_rf_trace *t, const uint32_t *keys, uint32_t x)
{
	do
		x = rf_feistel_k(t, keys, x);
	while (x >= t->rows);
	return x;
}

/* A row never handed out before (cycle-walking the permutation into
 * [0, rows)), or a uniformly random one once all were. */
static uint32_t rf_trace_row(struct reis_rf_trace *t)
{
	uint32_t x;

	if (t->fresh < t->rows) {
		x = (uint32_t)t->fresh++;
		do
			x = rf_feistel(t, x);
		while (x >= t->rows);
		return x;
	}
	return (uint32_t)(((reis__splitmix(&t->rng) >> 32) * (uint64_t)t->rows) >> 32);
}

/* The first i < n with cdf[i] > v (cdf non-decreasing, cdf[n - 1] = 1). */
static uint32_t rf_cdf_find(const double *cdf, uint32_t n, double v)
{
	uint32_t lo = 0, hi = n - 1;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (cdf[mid] > v)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static uint32_t rf_trace_one(struct reis_rf_trace *t)
{
	double u = reis__uniform(&t->rng);
	uint32_t row;

	if (u >= t->p_new) {
		/* Reuse: the first d with cdf[d - 1] > v. */
		uint32_t lo = rf_cdf_find(t->cdf, t->sd_max, reis__uniform(&t->rng));

		if (lo < t->depth) {
			uint32_t s = rf_fen_kth(t, t->depth - lo);

			row = t->slot_row[s];
			rf_fen_add(t, s, -1);
			t->depth--;
			rf_trace_push(t, row);
			return row;
		}
	}
	row = rf_trace_row(t);
	rf_trace_push(t, row);
	return row;
}

/* e^-x for 0 <= x <= 1 by its Taylor series: no libm, the same bits everywhere. */
static double rf_exp_neg(double x)
{
	double term = 1.0, sum = 1.0;
	unsigned i;

	for (i = 1; i < 30; i++) {
		term *= -x / (double)i;
		sum += term;
	}
	return sum;
}

int reis_rf_trace_bin_prob(double k, double *p)
{
	double h = 0, r, e = 1.0, tot;
	unsigned i;

	if (!p || !(k >= 0) || k > REIS_RF_TRACE_MAX_K)
		return -EINVAL;
	/* The bin width: the expected maximum of 1000 unit exponentials (the
	 * harmonic number H(1000), gen_dist.py's nsamples) over 50 bins. */
	for (i = 1; i <= 1000; i++)
		h += 1.0 / (double)i;
	r = rf_exp_neg(h / REIS_RF_TRACE_RECSSD_BINS);
	tot = 0;
	for (i = 0; i < REIS_RF_TRACE_RECSSD_BINS; i++) {
		p[i] = e - e * r;	/* mass of [i w, (i + 1) w) */
		e *= r;
		tot += p[i];
	}
	for (i = 0; i < REIS_RF_TRACE_RECSSD_BINS; i++)
		p[i] = (p[i] / tot + (i ? 0.0 : k)) / (1.0 + k);
	return 0;
}

static uint32_t rf_trace_one_recssd(struct reis_rf_trace *t)
{
	double u = reis__uniform(&t->rng);
	uint32_t b, s, line;
	uint64_t sd;

	/* Until 49 new references, bins above their count are cut off:
	 * dlrm_data_caffe2.py's generate_stack_distance. */
	if (t->news < REIS_RF_TRACE_RECSSD_BINS - 1)
		u *= t->bin_cdf[t->news];
	b = rf_cdf_find(t->bin_cdf, REIS_RF_TRACE_RECSSD_BINS, u);
	if (!b) {
		/* New: the least recently used line, recycled. */
		s = rf_fen_kth(t, 1);
		if (t->news < REIS_RF_TRACE_RECSSD_BINS - 1)
			t->news++;
	} else {
		sd = (uint64_t)b * t->lookups;
		if (sd > t->depth)
			sd = t->depth;
		s = rf_fen_kth(t, t->depth - (uint32_t)sd + 1);
	}
	line = t->slot_row[s];
	rf_fen_add(t, s, -1);
	t->depth--;
	rf_trace_push(t, line);
	return line * t->line;
}

static int rf_trace_open_recssd(const struct reis_rf_trace_opts *o, struct reis_rf_trace *t)
{
	double p[REIS_RF_TRACE_RECSSD_BINS], c = 0;
	uint32_t lines;
	uint64_t burn, i;
	unsigned b;

	t->line = t->kind == REIS_RF_TRACE_RECFLASH ? 1 : REIS_RF_TRACE_RECSSD_LINE;
	lines = (o->rows + t->line - 1) / t->line;
	t->lookups = o->lookups ? o->lookups : 1;
	if (reis_rf_trace_bin_prob(o->k, p))
		return -EINVAL;
	for (b = 0; b < REIS_RF_TRACE_RECSSD_BINS; b++) {
		c += p[b];
		t->bin_cdf[b] = c;
	}
	t->bin_cdf[REIS_RF_TRACE_RECSSD_BINS - 1] = 1.0;
	/* Every line is on the list from the start, line 0 least recent. */
	t->sd_max = lines;
	for (t->log2cap = 2; (1u << t->log2cap) < 2u * lines; t->log2cap++)
		;
	t->cap = 1u << t->log2cap;
	t->slot_row = malloc(sizeof(*t->slot_row) * t->cap);
	t->fen = calloc(t->cap + 1u, sizeof(*t->fen));
	if (!t->slot_row || !t->fen)
		return -ENOMEM;
	for (i = 0; i < lines; i++)
		t->slot_row[i] = (uint32_t)i;
	if (t->kind == REIS_RF_TRACE_RECFLASH)
		for (i = lines - 1; i > 0; i--) {
			uint64_t j = ((reis__splitmix(&t->rng) >> 32) * (i + 1)) >> 32;
			uint32_t x = t->slot_row[i];

			t->slot_row[i] = t->slot_row[j];
			t->slot_row[j] = x;
		}
	for (i = 0; i < lines; i++) {
		rf_fen_add(t, (uint32_t)i, 1);
		t->now++;
		t->depth++;
	}
	/*
	 * RecSSD draws twice the trace and drops the first half; a stream
	 * cannot know its length, so it drops a fixed prefix: four passes over
	 * the deepest distance, and for RECSSD four over the list (RECFLASH's
	 * shuffled list starts as random as a cycled one).
	 */
	burn = 4u * (uint64_t)(REIS_RF_TRACE_RECSSD_BINS - 1) * t->lookups;
	if (t->kind == REIS_RF_TRACE_RECSSD && burn < 4u * (uint64_t)lines)
		burn = 4u * (uint64_t)lines;
	for (i = 0; i < burn; i++)
		rf_trace_one_recssd(t);
	return 0;
}

/* ln x for x >= 1: x = m 2^e with m in [1, 2), ln m = 2 atanh((m - 1) / (m + 1)). */
static double rf_log(double x)
{
	double z, z2, term, sum = 0;
	int e = 0;
	unsigned i;

	while (x >= 2) {
		x /= 2;
		e++;
	}
	z = (x - 1) / (x + 1);
	z2 = z * z;
	term = z;
	for (i = 1; i < 60; i += 2) {
		sum += term / (double)i;
		term *= z2;
	}
	return 2 * sum + e * 0.69314718055994530942;
}

/* e^-y for y >= 0: e^-y = (e^-(y / 2^n))^(2^n) with y / 2^n <= 1. */
static double rf_exp_neg_any(double y)
{
	double v;
	unsigned n = 0;

	while (y > 1) {
		y /= 2;
		n++;
	}
	v = rf_exp_neg(y);
	while (n--)
		v *= v;
	return v;
}

/* r^-a for r >= 1, a >= 0. */
static double rf_pow_neg(double r, double a)
{
	return rf_exp_neg_any(a * rf_log(r));
}

static uint32_t rf_trace_one_pop(struct reis_rf_trace *t)
{
	uint32_t row;

	if (reis__uniform(&t->rng) < t->p_fresh) {
		/* New: the next row of the fresh order never referenced yet. */
		while (t->fresh_pos < t->rows) {
			row = rf_perm(t, t->fresh_keys, (uint32_t)t->fresh_pos++);
			if (!(t->seen[row / 64] & (UINT64_C(1) << (row % 64))))
				goto hit;
		}
		row = (uint32_t)(((reis__splitmix(&t->rng) >> 32) * (uint64_t)t->rows) >> 32);
	} else {
		uint32_t rank = rf_cdf_find(t->pop_cdf, t->rows, reis__uniform(&t->rng));

		if (t->churn > 0) {
			/* The rank's version on this day: its phase from a hash. */
			uint64_t h = (uint64_t)rank * UINT64_C(0x9e3779b97f4a7c15);
			double phase = (double)(h >> 11) * (1.0 / 9007199254740992.0);
			uint32_t v = (uint32_t)(t->churn * t->day + phase), keys[4];
			unsigned i;

			for (i = 0; i < 4; i++)
				keys[i] = t->pop_keys[i] ^ (v * 0x85ebca6bu + i);
			row = rf_perm(t, keys, rank);
		} else {
			row = rf_perm(t, t->pop_keys, rank);
		}
	}
hit:
	t->seen[row / 64] |= UINT64_C(1) << (row % 64);
	return row;
}

static int rf_trace_open_pop(const struct reis_rf_trace_opts *o, struct reis_rf_trace *t)
{
	double a = o->zipf > 0 ? o->zipf : REIS_RF_TRACE_POP_ALPHA, sum = 0;
	uint32_t r, i;

	if (o->rows > REIS_RF_TRACE_POP_MAX_ROWS || !(a <= 4) || !(o->churn >= 0) || o->churn > 1)
		return -EINVAL;
	t->churn = o->churn;
	t->day = o->day;
	t->rng = o->seed ^ UINT64_C(0x504f50554c415231);	/* "POPULAR1" */
	while (t->half_bits < 16 && (UINT64_C(1) << (2 * t->half_bits)) < o->rows)
		t->half_bits++;
	for (i = 0; i < 4; i++)
		t->pop_keys[i] = (uint32_t)reis__splitmix(&t->rng);
	for (i = 0; i < 4; i++)
		t->fresh_keys[i] = (uint32_t)reis__splitmix(&t->rng);
	/* The day draws its own accesses from the same popularity. */
	t->rng ^= (uint64_t)o->day * UINT64_C(0x9e3779b97f4a7c15);
	t->p_fresh = REIS_RF_TRACE_POP_GAIN * o->k / (1.0 + REIS_RF_TRACE_POP_GAIN * o->k);
	t->pop_cdf = malloc(sizeof(*t->pop_cdf) * o->rows);
	t->seen = calloc(((size_t)o->rows + 63) / 64, sizeof(*t->seen));
	if (!t->pop_cdf || !t->seen)
		return -ENOMEM;
	for (r = 0; r < o->rows; r++) {
		sum += rf_pow_neg((double)r + 1, a);
		t->pop_cdf[r] = sum;
	}
	for (r = 0; r < o->rows; r++)
		t->pop_cdf[r] /= sum;
	t->pop_cdf[o->rows - 1] = 1.0;
	return 0;
}

int reis_rf_trace_open(const struct reis_rf_trace_opts *o, struct reis_rf_trace **out)
{
	struct reis_rf_trace *t;
	double r, w, sum = 0, base;
	uint32_t mean, d, burn;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!o || !o->rows || o->kind > REIS_RF_TRACE_POPULAR || o->rsvd1 || o->rsvd2 ||
	    (o->kind == REIS_RF_TRACE_POPULAR ? !(o->zipf >= 0) :
	     o->zipf != 0 || o->day || o->churn != 0) ||
	    o->lookups > REIS_RF_TRACE_MAX_LOOKUPS || !(o->k >= 0) ||
	    o->k > REIS_RF_TRACE_MAX_K || !(o->new_base >= 0) || o->new_base > 1e6 ||
	    o->sd_max > REIS_RF_TRACE_SD_LIMIT || o->sd_mean > REIS_RF_TRACE_SD_LIMIT)
		return -EINVAL;
	base = o->new_base > 0 ? o->new_base : REIS_RF_TRACE_NEW_BASE;
	mean = o->sd_mean ? o->sd_mean : REIS_RF_TRACE_SD_MEAN;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->rows = o->rows;
	t->kind = o->kind;
	if (t->kind == REIS_RF_TRACE_POPULAR) {
		int ret = rf_trace_open_pop(o, t);

		if (ret) {
			reis_rf_trace_close(t);
			return ret;
		}
		*out = t;
		return 0;
	}
	if (t->kind != REIS_RF_TRACE_DRIFT) {
		int ret;

		t->rng = o->seed ^ UINT64_C(0x5245435353443031);	/* "RECSSD01" */
		ret = rf_trace_open_recssd(o, t);
		if (ret) {
			reis_rf_trace_close(t);
			return ret;
		}
		*out = t;
		return 0;
	}
	t->sd_max = o->sd_max ? o->sd_max : REIS_RF_TRACE_SD_MAX;
	t->p_new = (base + REIS_RF_TRACE_K_GAIN * o->k) /
		   (1.0 + base + REIS_RF_TRACE_K_GAIN * o->k);
	t->rng = o->seed ^ UINT64_C(0x5245434641534831);	/* "RECFASH1" */
	while (t->half_bits < 16 && (UINT64_C(1) << (2 * t->half_bits)) < o->rows)
		t->half_bits++;
	for (d = 0; d < 4; d++)
		t->keys[d] = (uint32_t)reis__splitmix(&t->rng);
	for (t->log2cap = 2; (1u << t->log2cap) < 4u * t->sd_max; t->log2cap++)
		;
	t->cap = 1u << t->log2cap;
	t->cdf = malloc(sizeof(*t->cdf) * t->sd_max);
	t->slot_row = malloc(sizeof(*t->slot_row) * t->cap);
	t->fen = calloc(t->cap + 1u, sizeof(*t->fen));
	if (!t->cdf || !t->slot_row || !t->fen) {
		reis_rf_trace_close(t);
		return -ENOMEM;
	}
	r = 1.0 - 1.0 / (double)mean;
	w = 1.0;
	for (d = 0; d < t->sd_max; d++) {
		sum += w;
		t->cdf[d] = sum;
		w *= r;
	}
	for (d = 0; d < t->sd_max; d++)
		t->cdf[d] /= sum;
	t->cdf[t->sd_max - 1] = 1.0;
	/* Start from a stationary stack rather than an empty one. */
	burn = 4u * (mean < t->sd_max ? mean : t->sd_max);
	for (d = 0; d < burn; d++)
		rf_trace_one(t);
	*out = t;
	return 0;
}

void reis_rf_trace_close(struct reis_rf_trace *t)
{
	if (!t)
		return;
	free(t->cdf);
	free(t->slot_row);
	free(t->fen);
	free(t->pop_cdf);
	free(t->seen);
	free(t);
}

void reis_rf_trace_next(struct reis_rf_trace *t, uint32_t *idx, size_t n)
{
	size_t i;

	if (!t || !idx)
		return;
	if (t->kind == REIS_RF_TRACE_POPULAR)
		for (i = 0; i < n; i++)
			idx[i] = rf_trace_one_pop(t);
	else if (t->kind != REIS_RF_TRACE_DRIFT)
		for (i = 0; i < n; i++)
			idx[i] = rf_trace_one_recssd(t);
	else
		for (i = 0; i < n; i++)
			idx[i] = rf_trace_one(t);
}

double reis_rf_unique_rate(const uint32_t *idx, size_t n, uint32_t rows)
{
	uint64_t *seen;
	size_t i, distinct = 0;

	if (!n || !idx || !rows)
		return 0.0;
	seen = calloc(((size_t)rows + 63) / 64, sizeof(*seen));
	if (!seen)
		return -1.0;
	for (i = 0; i < n; i++) {
		uint32_t r = idx[i];

		if (r >= rows)
			continue;
		if (!(seen[r / 64] & (UINT64_C(1) << (r % 64)))) {
			seen[r / 64] |= UINT64_C(1) << (r % 64);
			distinct++;
		}
	}
	free(seen);
	return (double)distinct / (double)n;
}

int reis_rf_profile_cover(const uint32_t *prof, size_t nprof, const uint32_t *meas,
			  size_t nmeas, uint32_t rows, double *seen, double *tie)
{
	uint32_t *cnt, *grp, top = 0;
	double s = 0, g = 0;
	size_t i;

	if (!seen || !tie || !rows || (nprof && !prof) || (nmeas && !meas))
		return -EINVAL;
	*seen = *tie = 0;
	for (i = 0; i < nprof; i++)
		if (prof[i] >= rows)
			return -EINVAL;
	for (i = 0; i < nmeas; i++)
		if (meas[i] >= rows)
			return -EINVAL;
	cnt = calloc(rows, sizeof(*cnt));
	if (!cnt)
		return -ENOMEM;
	for (i = 0; i < nprof; i++)
		if (cnt[prof[i]] < UINT32_MAX - 1)	/* saturate: top + 1 stays finite */
			cnt[prof[i]]++;
	for (i = 0; i < rows; i++)
		top = cnt[i] > top ? cnt[i] : top;
	grp = calloc((size_t)top + 1, sizeof(*grp));
	if (!grp) {
		free(cnt);
		return -ENOMEM;
	}
	for (i = 0; i < rows; i++)
		grp[cnt[i]]++;
	for (i = 0; i < nmeas; i++) {
		s += cnt[meas[i]] != 0;
		g += (double)grp[cnt[meas[i]]] / rows;
	}
	free(cnt);
	free(grp);
	if (nmeas) {
		*seen = s / (double)nmeas;
		*tie = g / (double)nmeas;
	}
	return 0;
}
