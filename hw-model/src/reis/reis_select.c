/* SPDX-License-Identifier: MIT */
/*
 * reis_select.c - the candidate stage (REIS §4.3.2, §4.2.1): the entries
 * that pass the filters land in TTL-C / TTL-E in controller DRAM, and a
 * quickselect on the ISP core keeps the best C of them after every round.
 * The host runs its quickselect only when its buffer fills, not per round
 * (same set kept); the drive's per-round cost is charged in reis_cost.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reis_int.h"

int re_topc_init(struct re_topc *t, uint32_t keep, uint32_t maxd)
{
	memset(t, 0, sizeof(*t));
	if (!keep)
		keep = 1;
	t->cap = keep > UINT32_MAX / RE_TOPC_SLACK ? UINT32_MAX : RE_TOPC_SLACK * keep;
	t->v = malloc((size_t)t->cap * sizeof(*t->v));
	t->hist = malloc(((size_t)maxd + 1) * sizeof(*t->hist));
	if (!t->v || !t->hist) {
		re_topc_free(t);
		return -ENOMEM;
	}
	t->maxd = maxd;
	re_topc_reset(t, keep, maxd);
	return 0;
}

/* Reuse the buffer for another query with @keep <= the initial keep. */
void re_topc_reset(struct re_topc *t, uint32_t keep, uint32_t maxd)
{
	t->n = 0;
	t->keep = keep ? keep : 1;
	t->bound = UINT64_MAX;
	t->maxd = maxd;
	t->dmax = 0;
	t->dstar = 0;
	t->nle = 0;
	memset(t->hist, 0, ((size_t)maxd + 1) * sizeof(*t->hist));
}

void re_topc_free(struct re_topc *t)
{
	free(t->v);
	free(t->hist);
	memset(t, 0, sizeof(*t));
}

static inline void re_swap(struct re_cand *a, struct re_cand *b)
{
	struct re_cand x = *a;

	*a = *b;
	*b = x;
}

static int re_cand_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct re_cand *)a)->key, y = ((const struct re_cand *)b)->key;

	return x < y ? -1 : x > y;
}

static int re_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Ascending: insertion for the few a query orders (glibc's qsort, a merge
 * sort through a comparator, costs more there), qsort beyond. */
void re_sort_u64(uint64_t *v, uint64_t n)
{
	uint64_t i, j;

	if (n > 64) {
		qsort(v, n, sizeof(*v), re_u64_cmp);
		return;
	}
	for (i = 1; i < n; i++) {
		uint64_t x = v[i];

		for (j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/*
 * Ascending, stable LSD radix sort of @v[0..n) through @tmp (n entries),
 * one counting pass per byte in which the keys differ: a brute-force
 * command orders every page of its database (thousands) once, and
 * glibc's qsort was 7 % of a one-query command at 1 M entries
 * (docs/benchmarks.md).
 */
void re_sort_u64_radix(uint64_t *v, uint64_t *tmp, uint64_t n)
{
	uint64_t diff = 0, i, *src = v, *dst = tmp, *x;
	uint32_t cnt[256], sh, b;

	for (i = 1; i < n; i++)
		diff |= v[i] ^ v[0];
	for (sh = 0; sh < 64; sh += 8) {
		uint32_t sum = 0;

		if (!((diff >> sh) & 0xff))
			continue;
		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			cnt[(src[i] >> sh) & 0xff]++;
		for (b = 0; b < 256; b++) {
			uint32_t c = cnt[b];

			cnt[b] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[cnt[(src[i] >> sh) & 0xff]++] = src[i];
		x = src;
		src = dst;
		dst = x;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
}

/* Ascending keys: insertion for the few a search orders, qsort beyond. */
static void re_cand_sort(struct re_cand *v, uint32_t n)
{
	uint32_t i, j;

	if (n > 32) {
		qsort(v, n, sizeof(*v), re_cand_cmp);
		return;
	}
	for (i = 1; i < n; i++) {
		struct re_cand x = v[i];

		for (j = i; j > 0 && v[j - 1].key > x.key; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static int re_pcount_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct re_pcount *)a)->key, y = ((const struct re_pcount *)b)->key;

	return x < y ? -1 : x > y;
}

static void re_pc_swap(struct re_pcount *a, struct re_pcount *b)
{
	struct re_pcount x = *a;

	*a = *b;
	*b = x;
}

/*
 * Ascending keys (equal keys in any order): a quicksort with the key
 * compared inline, insertion below 16. A query's rerank sorts its ~100
 * candidate pages; glibc's qsort, a merge sort through a comparator, was
 * the rerank's largest cost on the corpus (docs/benchmarks.md). Past a
 * depth of 2 log2(n) (adversarial keys) the rest goes to qsort.
 */
void re_pcount_sort(struct re_pcount *v, size_t n)
{
	size_t lo[64], hi[64], top = 0, depth = 0, m;

	for (m = n; m > 1; m >>= 1)
		depth += 2;
	lo[0] = 0;
	hi[0] = n;
	top = 1;
	while (top) {
		size_t a = lo[--top], b = hi[top];

		while (b - a > 16) {
			size_t mid = a + (b - a) / 2, i, j;
			uint64_t piv;

			if (!depth || top == 63) {
				qsort(v + a, b - a, sizeof(*v), re_pcount_cmp);
				break;
			}
			depth--;
			if (v[mid].key < v[a].key)
				re_pc_swap(&v[mid], &v[a]);
			if (v[b - 1].key < v[a].key)
				re_pc_swap(&v[b - 1], &v[a]);
			if (v[b - 1].key < v[mid].key)
				re_pc_swap(&v[b - 1], &v[mid]);
			piv = v[mid].key;
			re_pc_swap(&v[mid], &v[b - 1]);
			for (i = a, j = a; j < b - 1; j++)
				if (v[j].key < piv)
					re_pc_swap(&v[i++], &v[j]);
			re_pc_swap(&v[i], &v[b - 1]);
			/* The larger side waits on the stack, the smaller goes on. */
			if (i - a > b - i - 1) {
				lo[top] = a;
				hi[top++] = i;
				a = i + 1;
			} else {
				lo[top] = i + 1;
				hi[top++] = b;
				b = i;
			}
		}
		if (b - a <= 16) {
			size_t i, j;

			for (i = a + 1; i < b; i++) {
				struct re_pcount x = v[i];

				for (j = i; j > a && v[j - 1].key > x.key; j--)
					v[j] = v[j - 1];
				v[j] = x;
			}
		}
	}
}

/*
 * Partition v[0..n) so that v[0..k) hold the k smallest keys (keys are
 * unique). Quickselect with a median-of-three pivot and Hoare's two-sided
 * partition (a third of the swaps of a one-sided one: TTL-E's cut was 14 %
 * of an IVF query, docs/benchmarks.md); after too many rounds
 * (adversarial data) it sorts the rest, so the worst case is O(n log n).
 */
static void re_select(struct re_cand *v, uint32_t n, uint32_t k)
{
	uint32_t lo = 0, hi = n, rounds = 0;

	if (k >= n || k == 0)
		return;
	while (hi - lo > 16) {
		uint32_t mid = lo + (hi - lo) / 2, i, j;
		uint64_t piv;

		if (++rounds > 64) {
			qsort(v + lo, hi - lo, sizeof(*v), re_cand_cmp);
			return;
		}
		if (v[mid].key < v[lo].key)
			re_swap(&v[mid], &v[lo]);
		if (v[hi - 1].key < v[lo].key)
			re_swap(&v[hi - 1], &v[lo]);
		if (v[hi - 1].key < v[mid].key)
			re_swap(&v[hi - 1], &v[mid]);
		piv = v[mid].key;
		/*
		 * v[lo] <= piv < v[hi - 1] stop both scans: [lo, j] ends at
		 * or below the pivot, (j, hi) above, neither empty.
		 */
		i = lo;
		j = hi - 1;
		for (;;) {
			while (v[++i].key < piv)
				;
			while (v[--j].key > piv)
				;
			if (i >= j)
				break;
			re_swap(&v[i], &v[j]);
		}
		if (j + 1 == k)
			return;
		if (j + 1 < k)
			lo = j + 1;
		else
			hi = j + 1;
	}
	re_cand_sort(v + lo, hi - lo);
}

/* Move the entries of v[0..n) whose distance (the key's high word) is below
 * @d to the front, without a branch on the data; returns their count. */
static uint32_t re_front_below(struct re_cand *v, uint32_t n, uint32_t d, int eq)
{
	uint32_t i, w = 0;

	for (i = 0; i < n; i++) {
		uint32_t di = (uint32_t)(v[i].key >> 32);

		/* Swapping a kept-back entry with another is harmless. */
		re_swap(&v[w], &v[i]);
		w += eq ? di == d : di < d;
	}
	return w;
}

/* A full count past D: tighten D while the entries below it are enough. */
static inline void re_topc_tighten(struct re_topc *t)
{
	while (t->nle - t->hist[t->dstar] >= t->keep) {
		t->nle -= t->hist[t->dstar];
		t->dstar--;
	}
	if (((uint64_t)t->dstar + 1) << 32 < t->bound)
		t->bound = ((uint64_t)t->dstar + 1) << 32;
}

/*
 * Drop what lies beyond D (stable), then, when more than keep remain, cut
 * the entries at D to the smallest keys by quickselect: exactly keep are
 * held after, and the largest of them bounds the key.
 */
static void re_topc_compact(struct re_topc *t)
{
	uint32_t i, w = 0, below, eq, d = t->dstar;
	uint64_t mx = 0;

	if (t->n < t->keep)
		return;	/* fewer than keep seen: every one is held */
	for (i = 0; i < t->n; i++) {
		t->v[w] = t->v[i];
		w += (uint32_t)(t->v[i].key >> 32) <= d;
	}
	t->n = w;
	if (t->n <= t->keep)
		return;
	below = re_front_below(t->v, t->n, d, 0);
	eq = t->keep - below;	/* >= 1: D is the smallest with enough at or below */
	re_select(t->v + below, t->n - below, eq);
	t->n = t->keep;
	t->hist[d] = eq;
	t->nle = t->keep;
	for (i = below; i < t->n; i++)
		mx = t->v[i].key > mx ? t->v[i].key : mx;
	t->bound = mx;
}

void re_topc_push(struct re_topc *t, uint64_t key, uint32_t radr, uint32_t dadr)
{
	uint32_t d = (uint32_t)(key >> 32);

	if (t->n == t->cap) {
		re_topc_compact(t);
		if (key >= t->bound)
			return;
	}
	t->v[t->n].key = key;
	t->v[t->n].radr = radr;
	t->v[t->n].dadr = dadr;
	t->n++;
	t->hist[d]++;
	if (t->n > t->keep || t->nle >= t->keep) {
		/* key < bound: d <= D */
		t->nle++;
		re_topc_tighten(t);
		return;
	}
	t->dmax = d > t->dmax ? d : t->dmax;
	if (t->n == t->keep) {
		/* The first keep: D is their largest distance. */
		t->dstar = t->dmax;
		t->nle = t->keep;
		re_topc_tighten(t);
	}
}

uint32_t re_topc_finish(struct re_topc *t, uint32_t nsort)
{
	if (t->n > t->keep)
		re_topc_compact(t);
	if (nsort < t->n)
		re_select(t->v, t->n, nsort);
	re_cand_sort(t->v, nsort < t->n ? nsort : t->n);
	return t->n;
}

/* Candidates to keep: k, or rerank_factor * k for the INT8 rerank (REIS §4.2). */
uint64_t re_cand_count(const struct re_run *r, const struct re_db *db)
{
	uint64_t c = r->rerank ? (uint64_t)r->factor * r->k : r->k;

	/* SF_RERANK_ALL: the exact top-k by INT8 score of what is searched */
	if (r->rerank && (r->flags & ISP_REIS_SF_RERANK_ALL))
		return db->c.n;

	return c < db->c.n ? c : db->c.n;
}

/*
 * TTL-E (and TTL-C) in controller DRAM for the search (REIS §4.2.1): two
 * tables of the candidates kept, at the largest of the databases searched.
 */
uint64_t re_ttl_bytes(const struct re_run *r, struct re_db **dbs, uint32_t ndbs)
{
	uint64_t ttl = 0;
	uint32_t i;

	for (i = 0; i < ndbs; i++) {
		uint64_t b2 = 2 * re_cand_count(r, dbs[i]) * dbs[i]->L.ttl_e;

		if (r->ivf)
			b2 += 2ull * re_nprobe(r, dbs[i]) * dbs[i]->L.ttl_c;
		ttl = re_max(ttl, b2);
	}
	return ttl;
}
