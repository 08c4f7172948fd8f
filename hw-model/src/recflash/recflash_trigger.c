/* SPDX-License-Identifier: MIT */
/*
 * recflash_trigger.c - when to remap (RecFlash §III-C3/C4): the per-table
 * access-frequency tracker SLS feeds, the threshold and period triggers,
 * and D_train taken from the tracker for a remap.
 */

/*
 * Tracker: open addressing over (key + 1) << 32 | count, at most cap keys;
 * accesses of further keys once it is full are counted as dropped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "isp_sort.h"
#include "recflash_int.h"

int rf_track_init(struct rf_track *t, uint32_t cap)
{
	memset(t, 0, sizeof(*t));
	if (!cap)
		return 0;
	t->cap = cap;
	t->mask = rf_pow2_at_least((uint64_t)cap + cap / 3 + 1) - 1;
	t->slot = calloc((size_t)t->mask + 1, sizeof(*t->slot));
	return t->slot ? 0 : -ENOMEM;
}

void rf_track_free(struct rf_track *t)
{
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

uint64_t rf_track_bytes(uint32_t cap)
{
	return cap ? ((uint64_t)rf_pow2_at_least((uint64_t)cap + cap / 3 + 1)) * 8 : 0;
}

void rf_track_clear(struct rf_track *t)
{
	if (t->slot && t->nkeys)
		memset(t->slot, 0, ((size_t)t->mask + 1) * sizeof(*t->slot));
	t->nkeys = 0;
	t->dropped = 0;
}

void rf_track_add(struct rf_track *t, uint32_t key, uint32_t cnt)
{
	uint64_t k1 = (uint64_t)key + 1;
	uint32_t h;

	if (!t->slot)
		return;
	h = (uint32_t)((k1 * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & t->mask;
	for (;; h = (h + 1) & t->mask) {
		uint64_t s = t->slot[h];

		if (!s) {
			if (t->nkeys >= t->cap) {
				t->dropped += cnt;
				return;
			}
			t->slot[h] = k1 << 32 | cnt;
			t->nkeys++;
			return;
		}
		if (s >> 32 == k1) {
			uint64_t c = (s & 0xffffffffu) + cnt;

			t->slot[h] = k1 << 32 | (c > 0xffffffffu ? 0xffffffffu : c);
			return;
		}
	}
}

static int rf_kc_cmp(const void *x, const void *y)
{
	const struct rf_kc *a = x, *b = y;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

void rf_kc_sort(struct rf_kc *kc, uint32_t n)
{
	qsort(kc, n, sizeof(*kc), rf_kc_cmp);
}

int rf_track_export(const struct rf_track *t, struct rf_kc **out, uint32_t *n)
{
	struct rf_kc *kc;
	uint32_t i, m = 0;

	*out = NULL;
	*n = 0;
	if (!t->nkeys)
		return 0;
	kc = malloc((size_t)t->nkeys * sizeof(*kc));
	if (!kc)
		return -ENOMEM;
	for (i = 0; i <= t->mask; i++)
		if (t->slot[i]) {
			kc[m].key = (uint32_t)((t->slot[i] >> 32) - 1);
			kc[m].count = (uint32_t)t->slot[i];
			m++;
		}
	rf_kc_sort(kc, m);
	*out = kc;
	*n = m;
	return 0;
}

/*
 * The trigger of III-C3/C4 on the tracked counts @kc: threshold - tracked
 * keys outside the hot region whose count exceeds f_tau are more than
 * trigger_ppm of the tracked keys; period - @bags since the last remap.
 */
int rf_trigger(const struct rf_table *t, const struct rf_map *old,
		      const struct rf_kc *kc, uint32_t nkc, uint64_t bags, uint64_t *hot_new)
{
	uint32_t ftau = old->ht.tau != RF_NIL ? old->ht.f[old->ht.tau] : 0, i;
	uint64_t n = 0;

	for (i = 0; i < nkc; i++)
		if (kc[i].key < t->rows && !rf_ht_is_hot(&old->ht, kc[i].key) &&
		    kc[i].count > ftau)
			n++;
	*hot_new = n;
	switch (t->cr.trigger) {
	case ISP_RF_TRIG_THRESHOLD:
		return nkc && n * 1000000u > (uint64_t)t->cr.trigger_ppm * nkc;
	case ISP_RF_TRIG_PERIOD:
		return bags >= t->cr.period;
	default:
		return 0;
	}
}

/* Put counts taken from the tracker back (remap not done). */
void rf_track_restore(struct rf_table *t, const struct rf_kc *kc, uint32_t n,
			     uint64_t bags)
{
	uint32_t i;

	pthread_mutex_lock(&t->tlock);
	for (i = 0; i < n; i++)
		rf_track_add(&t->track, kc[i].key, kc[i].count);
	t->bags_since += bags;
	pthread_mutex_unlock(&t->tlock);
}

/* D_train: the counts tracked since the last remap; tracking restarts. */
int rf_track_take(struct rf_table *t, struct rf_kc **kc, uint32_t *nkc, uint64_t *bags)
{
	int ret;

	pthread_mutex_lock(&t->tlock);
	ret = rf_track_export(&t->track, kc, nkc);
	*bags = t->bags_since;
	if (!ret) {
		rf_track_clear(&t->track);
		t->bags_since = 0;
	}
	pthread_mutex_unlock(&t->tlock);
	return ret;
}

/* The nonzero counts[0..rows) as keys, in the tracker's export order. */
int rf_kc_from_counts(const uint32_t *counts, uint32_t rows, struct rf_kc *kc,
		      const struct isp_ctx *ctx, uint32_t *n)
{
	struct rf_kc *tmp;
	uint32_t k, m = 0;
	int ret;

	for (k = 0; k < rows; k++) {
		if (rf_stop_at(ctx, k))
			return -ECANCELED;
		if (counts[k]) {
			kc[m].key = k;
			kc[m++].count = counts[k];
		}
	}
	*n = m;
	if (m <= ISP_SORT_RUN || !ctx || !ctx->cancel) {
		rf_kc_sort(kc, m);
		return 0;
	}
	/* rf_kc_cmp is a total order (keys are unique): the same array */
	tmp = malloc((size_t)m * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	ret = isp_sort_stop(kc, m, sizeof(*kc), rf_kc_cmp, ctx->cancel, tmp);
	free(tmp);
	return ret;
}
