/* SPDX-License-Identifier: MIT */
/*
 * recflash_place.c - the offline placement of RecFlash §III-C1: every row
 * sorted by access frequency (ties and unseen rows by index) and packed
 * into a fresh area, hot pages spread over the planes at the same page
 * offset; used by deploys with a profile and by REMAP FULL.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "recflash_int.h"

int rf_full_place(struct rf_eng *e, struct rf_table *t, struct isp_ctx *ctx,
		  const struct rf_map *old, const struct rf_kc *kc, uint32_t nkc,
		  uint64_t ready, struct rf_map **out, struct rf_moves *mv, uint64_t *done)
{
	struct rf_area *ar = NULL;
	struct rf_map *m = NULL;
	struct rf_alloc al;
	uint32_t *order, i, k, n = 0;
	uint8_t *seen;
	uint64_t t1, d1 = ready, d2 = ready;
	int ret;

	*out = NULL;
	order = malloc((size_t)t->rows * sizeof(*order));
	seen = calloc((size_t)t->rows / 8 + 1, 1);
	if (!order || !seen) {
		ret = -ENOMEM;
		goto out;
	}
	/* Descending frequency, ties and unseen rows by row index. Every
	 * per-row loop reads the stop flag between blocks of rows. */
	for (i = 0; i < nkc; i++) {
		if (rf_stop_at(ctx, i)) {
			ret = -ECANCELED;
			goto out;
		}
		k = kc[i].key;
		if (k >= t->rows || (seen[k >> 3] >> (k & 7) & 1))
			continue;
		seen[k >> 3] |= (uint8_t)(1u << (k & 7));
		order[n++] = k;
	}
	for (k = 0; k < t->rows; k++) {
		if (rf_stop_at(ctx, k)) {
			ret = -ECANCELED;
			goto out;
		}
		if (!(seen[k >> 3] >> (k & 7) & 1))
			order[n++] = k;
	}
	ret = rf_area_new(e, t, t->area_pages, ctx, ready, &ar);
	if (ret)
		goto out;
	ret = rf_map_new(e, t, ar, 1, ctx, &m);
	rf_area_put(e, ar);	/* the map holds the area, or it is freed */
	if (ret)
		goto out;
	for (i = 0; i < n; i++) {
		if (rf_stop_at(ctx, i)) {
			ret = -ECANCELED;
			goto out;
		}
		rf_ht_append(&m->ht, order[i], 0);
	}
	for (i = 0; i < nkc; i++)
		if (kc[i].key < t->rows)
			m->ht.f[kc[i].key] = kc[i].count;
	rf_ht_threshold(&m->ht);
	/* The full re-sort of the hash table (the heavy offline step). */
	t1 = ft_core(e->ft, &ctx->ftc, FT_CORE_FTL, ft_cycles_sort(e->p, t->rows),
		     "remap-sort", ready);
	t1 = ft_dram(e->ft, &ctx->ftc, (uint64_t)t->rows * 16, t1);
	rf_alloc_init(&al, ar, NULL);
	ret = rf_move_rows(e, t, ctx, old, &al, order, n, m->ht.a, mv, t1, &d1);
	if (!ret)
		ret = rf_write_image(e, t, ctx, m, &al, mv, t1, &d2);
	m->ht.cmps = m->ht.ptr_ops = 0;
	if (!ret)
		ret = rf_map_top(e, t, m);
out:
	free(order);
	free(seen);
	if (ret) {
		rf_map_put(e, m);
		return ret;
	}
	*out = m;
	*done = rf_max(d1, d2);
	return 0;
}
