/* SPDX-License-Identifier: MIT */
/*
 * tool_rf_trace.c - the synthetic locality-K embedding trace (RecFlash
 * IV-A, after RecSSD / DLRM's stack-distance generator).
 *
 * An LRU stack holds the rows referenced so far (the sd_max most recent).
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

/* A 4-round Feistel network: a bijection of [0, 2^(2 half_bits)). */
static uint32_t rf_feistel(const struct reis_rf_trace *t, uint32_t x)
{
	uint32_t mask = (1u << t->half_bits) - 1, l = x >> t->half_bits, r = x & mask;
	unsigned i;

	for (i = 0; i < 4; i++) {
		uint32_t f = (r ^ t->keys[i]) * 0x9e3779b1u;
		uint32_t nl = r;

		f ^= f >> 15;
		r = (l ^ f) & mask;
		l = nl;
	}
	return (l << t->half_bits) | r;
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

static uint32_t rf_trace_one(struct reis_rf_trace *t)
{
	double u = reis__uniform(&t->rng);
	uint32_t row;

	if (u >= t->p_new) {
		/* Reuse: the first d with cdf[d - 1] > v (binary search). */
		double v = reis__uniform(&t->rng);
		uint32_t lo = 0, hi = t->sd_max - 1;

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (t->cdf[mid] > v)
				hi = mid;
			else
				lo = mid + 1;
		}
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

int reis_rf_trace_open(const struct reis_rf_trace_opts *o, struct reis_rf_trace **out)
{
	struct reis_rf_trace *t;
	double r, w, sum = 0, base;
	uint32_t mean, d, burn;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!o || !o->rows || o->rsvd0 || o->rsvd[0] || o->rsvd[1] || !(o->k >= 0) ||
	    o->k > REIS_RF_TRACE_MAX_K || !(o->new_base >= 0) || o->new_base > 1e6 ||
	    o->sd_max > REIS_RF_TRACE_SD_LIMIT || o->sd_mean > REIS_RF_TRACE_SD_LIMIT)
		return -EINVAL;
	base = o->new_base > 0 ? o->new_base : REIS_RF_TRACE_NEW_BASE;
	mean = o->sd_mean ? o->sd_mean : REIS_RF_TRACE_SD_MEAN;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->rows = o->rows;
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
	free(t);
}

void reis_rf_trace_next(struct reis_rf_trace *t, uint32_t *idx, size_t n)
{
	size_t i;

	if (!t || !idx)
		return;
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
