/* SPDX-License-Identifier: MIT */
/*
 * recflash_alg1.c - RecFlash Algorithm 1 (§III-C4), access frequency-based
 * adaptive update: Steps 2-3 on a copy of the active list (recflash_ht.c),
 * charged as the §III-C6 module; Step 4 moves the new hot region's keys.
 */

/*
 * Physical side of Step 4 (docs/recflash-engine.md "Remap"): only the keys
 * of the new hot region [head, tau] move, to fresh pages packed in list
 * order; all other keys keep their slots as Algorithm 1 says. The stale
 * copies are reclaimed by deferred garbage collection: a stripe nothing
 * points into is erased at the switch, and an area without room for the
 * next hot region is compacted by relocating the table into a fresh area
 * (its old area erased at the switch).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "recflash_int.h"

/*
 * Algorithm 1 on a copy of the active list, then Step 4 in flash: the keys
 * of the new hot region [head, tau] get fresh pages, packed in list order
 * from a stripe row (same page offset on every plane); every other key keeps
 * its slot ("no change", and "assigned directly" for keys appended at the
 * tail: every row already has one). The hot keys' old copies become stale;
 * NAND erases whole blocks, so their space comes back only when a stripe
 * holds nothing live (rf_gc() at the switch) or when the area is compacted:
 * if it lacks free pages, the table is relocated into a fresh area in list
 * order and the old area is erased at the switch (deferred garbage
 * collection, docs/recflash-engine.md "Remap").
 */
/* Steps 2-3 on @m's copy of the list: tau, then the tracked keys inserted,
 * charged as the comparator and pointer updater of §III-C6 (done in *@t1).
 * Returns the keys that entered the hot region. */
static uint32_t rf_alg1_update(struct rf_eng *e, const struct rf_table *t, struct isp_ctx *ctx,
			       struct rf_map *m, const struct rf_kc *kc, uint32_t nkc,
			       uint64_t ready, uint64_t *t1)
{
	uint32_t i, inserted = 0;
	uint64_t ops;

	m->ht.cmps = m->ht.ptr_ops = 0;
	rf_ht_threshold(&m->ht);		/* Step 2 */
	for (i = 0; i < nkc; i++)		/* Step 3 */
		if (kc[i].key < t->rows &&
		    rf_ht_insert(&m->ht, kc[i].key, kc[i].count, NULL) == 1)
			inserted++;
	ops = m->ht.cmps + m->ht.ptr_ops + t->hot;
	*t1 = ft_core(e->ft, &ctx->ftc, FT_CORE_FTL, ops * RF_HT_CYC_PER_OP, "alg1", ready);
	*t1 = ft_dram(e->ft, &ctx->ftc, ops * 4, *t1);
	return inserted;
}

/* Step 4 in flash: the new hot region's keys to fresh pages of the area,
 * or every key in list order into a fresh area when it lacks room. */
static int rf_alg1_move(struct rf_eng *e, struct rf_table *t, struct isp_ctx *ctx,
			const struct rf_map *old, struct rf_map *m, uint32_t *keys,
			struct rf_moves *mv, uint64_t t1, uint64_t *done)
{
	struct rf_area *ar = old->area;
	uint64_t d1 = t1, d2 = t1, need;
	struct rf_alloc al;
	uint32_t nk = 0, k;
	int ret;

	for (k = m->ht.head; k != RF_NIL && nk < t->hot; k = m->ht.next[k])
		keys[nk++] = k;
	need = (nk + t->rpp - 1) / t->rpp + t->img_pages + ar->np;
	if (rf_alloc_free_pages(ar, NULL) < need) {
		struct rf_area *nar;

		ret = rf_area_new(e, t, t->area_pages, ctx, t1, &nar);
		if (ret)
			return ret;
		rf_area_put(e, m->area);	/* the map's reference moves */
		m->area = nar;
		for (; k != RF_NIL; k = m->ht.next[k])
			keys[nk++] = k;
		rf_alloc_init(&al, nar, NULL);
	} else {
		rf_alloc_init(&al, ar, NULL);
	}
	ret = rf_move_rows(e, t, ctx, old, &al, keys, nk, m->ht.a, mv, t1, &d1);
	if (!ret)
		ret = rf_write_image(e, t, ctx, m, &al, mv, t1, &d2);
	*done = rf_max(d1, d2);
	return ret;
}

int rf_adaptive(struct rf_eng *e, struct rf_table *t, struct isp_ctx *ctx,
		const struct rf_map *old, const struct rf_kc *kc, uint32_t nkc,
		uint64_t ready, struct rf_map **out, struct rf_moves *mv, uint64_t *done)
{
	const struct rf_map *live[1] = { old };
	struct rf_map *m = NULL;
	uint32_t *keys = NULL;
	uint64_t t1;
	int ret;

	*out = NULL;
	/* Space left behind by crashes or discarded remaps. */
	ret = rf_gc(e, t, ctx, old->area, live, 1, ready, &mv->erases);
	if (ret)
		return ret;
	ret = rf_map_new(e, t, old->area, 0, NULL, &m);
	if (ret)
		return ret;
	ret = rf_ht_copy(&m->ht, &old->ht);
	if (ret)
		goto out;
	m->a = m->ht.a;
	keys = malloc((size_t)t->rows * sizeof(*keys));
	if (!keys) {
		ret = -ENOMEM;
		goto out;
	}
	if (rf_alg1_update(e, t, ctx, m, kc, nkc, ready, &t1)) {
		ret = rf_alg1_move(e, t, ctx, old, m, keys, mv, t1, done);
	} else {
		/* The hot region is unchanged: same slots, same image. */
		m->img_pages = old->img_pages;
		m->img_crc = old->img_crc;
		m->nruns = old->nruns;
		memcpy(m->run, old->run, sizeof(m->run));
		*done = t1;
	}
out:
	free(keys);
	if (!ret)
		ret = rf_map_top(e, t, m);
	if (ret) {
		rf_map_put(e, m);
		return ret;
	}
	*out = m;
	return 0;
}
