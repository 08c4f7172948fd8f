/* SPDX-License-Identifier: MIT */
/*
 * recflash_remap.c - access-frequency remapping of RecFlash III-C: the
 * offline placement (III-C1, REMAP FULL and deploys with a profile), the
 * online triggers (III-C3/C4) and Algorithm 1's adaptive remap of the hot
 * region, with the two-stage deployment: the new mapping is built while
 * SLS keep reading through the old one, staged, and made active by SWITCH
 * in one metadata commit.
 *
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

static uint64_t rf_max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

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
	/* Descending frequency, ties and unseen rows by row index. */
	for (i = 0; i < nkc; i++) {
		k = kc[i].key;
		if (k >= t->rows || (seen[k >> 3] >> (k & 7) & 1))
			continue;
		seen[k >> 3] |= (uint8_t)(1u << (k & 7));
		order[n++] = k;
	}
	for (k = 0; k < t->rows; k++)
		if (!(seen[k >> 3] >> (k & 7) & 1))
			order[n++] = k;
	ret = rf_area_new(e, t, t->area_pages, ctx, ready, &ar);
	if (ret)
		goto out;
	ret = rf_map_new(e, t, ar, 1, &m);
	rf_area_put(e, ar);	/* the map holds the area, or it is freed */
	if (ret)
		goto out;
	for (i = 0; i < n; i++)
		rf_ht_append(&m->ht, order[i], 0);
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
static int rf_adaptive(struct rf_eng *e, struct rf_table *t, struct isp_ctx *ctx,
		       const struct rf_map *old, const struct rf_kc *kc, uint32_t nkc,
		       uint64_t ready, struct rf_map **out, struct rf_moves *mv,
		       uint64_t *done)
{
	struct rf_area *ar = old->area;
	const struct rf_map *live[1] = { old };
	struct rf_map *m = NULL;
	uint32_t *keys = NULL, nk = 0, i, k, inserted = 0;
	uint64_t t1, d1 = ready, d2 = ready, need, ops;
	struct rf_alloc al;
	int ret;

	*out = NULL;
	/* Space left behind by crashes or discarded remaps. */
	ret = rf_gc(e, t, ctx, ar, live, 1, ready, &mv->erases);
	if (ret)
		return ret;
	ret = rf_map_new(e, t, ar, 0, &m);
	if (ret)
		return ret;
	ret = rf_ht_copy(&m->ht, &old->ht);
	if (ret)
		goto out;
	m->a = m->ht.a;
	m->ht.cmps = m->ht.ptr_ops = 0;
	rf_ht_threshold(&m->ht);		/* Step 2 */
	keys = malloc((size_t)t->rows * sizeof(*keys));
	if (!keys) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nkc; i++)		/* Step 3 */
		if (kc[i].key < t->rows &&
		    rf_ht_insert(&m->ht, kc[i].key, kc[i].count, NULL) == 1)
			inserted++;
	/* The comparator and pointer updater of III-C6 doing Steps 2-3. */
	ops = m->ht.cmps + m->ht.ptr_ops + t->hot;
	t1 = ft_core(e->ft, &ctx->ftc, FT_CORE_FTL, ops * RF_HT_CYC_PER_OP, "alg1", ready);
	t1 = ft_dram(e->ft, &ctx->ftc, ops * 4, t1);
	if (!inserted) {
		/* The hot region is unchanged: same slots, same image. */
		m->img_pages = old->img_pages;
		m->img_crc = old->img_crc;
		m->nruns = old->nruns;
		memcpy(m->run, old->run, sizeof(m->run));
		*done = t1;
		goto out;
	}
	/* Step 4. */
	for (k = m->ht.head; k != RF_NIL && nk < t->hot; k = m->ht.next[k])
		keys[nk++] = k;
	need = (nk + t->rpp - 1) / t->rpp + t->img_pages + ar->np;
	if (rf_alloc_free_pages(ar, NULL) < need) {
		struct rf_area *nar;

		ret = rf_area_new(e, t, t->area_pages, ctx, t1, &nar);
		if (ret)
			goto out;
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

/*
 * The trigger of III-C3/C4 on the tracked counts @kc: threshold - tracked
 * keys outside the hot region whose count exceeds f_tau are more than
 * trigger_ppm of the tracked keys; period - @bags since the last remap.
 */
static int rf_trigger(const struct rf_table *t, const struct rf_map *old,
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
static void rf_track_restore(struct rf_table *t, const struct rf_kc *kc, uint32_t n,
			     uint64_t bags)
{
	uint32_t i;

	pthread_mutex_lock(&t->tlock);
	for (i = 0; i < n; i++)
		rf_track_add(&t->track, kc[i].key, kc[i].count);
	t->bags_since += bags;
	pthread_mutex_unlock(&t->tlock);
}

/*
 * Activate the staged mapping (the caller owns t->busy): swap under the
 * lock, wait for SLS still reading the old one, free it, commit, then erase
 * stripes nothing points to any more.
 */
static uint16_t rf_do_switch(struct rf_eng *e, struct rf_table *t, struct isp_ctx *ctx,
			     struct isp_cpl *cpl)
{
	const struct rf_map *live[1];
	struct rf_area *retired = NULL;
	struct rf_map *old, *m;
	uint64_t erases = 0, give = 0;
	int ret;

	pthread_mutex_lock(&e->lock);
	old = t->active;
	m = t->staged;
	t->active = m;
	t->staged = NULL;
	t->remap_state = ISP_RF_REMAP_IDLE;
	/* A FULL or relocating remap leaves the old area behind: keep it until
	 * the commit no longer points there, then erase it. */
	if (old->area != m->area) {
		retired = old->area;
		retired->refs++;
	}
	/* The table's own reservation covers the active mapping. */
	give = m->dram;
	m->dram = old->dram;
	while (old->readers)
		pthread_cond_wait(&e->cond, &e->lock);
	pthread_mutex_unlock(&e->lock);
	old->dram = give;
	rf_map_put(e, old);
	ft_dram(e->ft, &ctx->ftc, 64, ctx->ready);
	ret = isp_dev_commit(e->dev);
	if (ret) {
		rf_area_put(e, retired);
		return isp_fail(cpl, ISP_SC_INTERNAL, "metadata commit failed");
	}
	live[0] = m;
	ret = rf_gc(e, t, ctx, m->area, live, 1, ctx->ftc.end, &erases);
	if (!ret && retired)
		ret = rf_gc(e, t, ctx, retired, NULL, 0, ctx->ftc.end, &erases);
	rf_area_put(e, retired);
	pthread_mutex_lock(&t->tlock);
	t->st.remap_erases += erases;
	pthread_mutex_unlock(&t->tlock);
	if (ret)
		return isp_fail(cpl, ISP_SC_INTERNAL, "erase of freed blocks failed");
	return 0;
}

/* Under e->lock: whether table @t (NULL: unknown) may be remapped or
 * switched now; else the failed completion's status. */
static uint16_t rf_remappable(const struct rf_table *t, struct isp_cpl *cpl)
{
	if (!t)
		return isp_fail(cpl, ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR, "unknown table");
	if (t->state != ISP_RF_READY)
		return isp_fail(cpl, ISP_SC_BUSY | ISP_STATUS_DNR, "table is being deployed");
	if (t->mode != ISP_RF_RECFLASH)
		return isp_fail(cpl, ISP_BAD_FIELD, "remaps apply to RecFlash-mode tables");
	if (t->busy)
		return isp_fail(cpl, ISP_SC_BUSY | ISP_STATUS_DNR, "a remap or switch is running");
	return 0;
}

uint16_t rf_remap(struct rf_eng *e, struct isp_ctx *ctx, uint32_t tid, uint32_t flags,
		  struct isp_cpl *cpl)
{
	const uint32_t known = ISP_RF_REMAP_FULL | ISP_RF_REMAP_ADAPTIVE |
			       ISP_RF_REMAP_IF_TRIGGERED | ISP_RF_REMAP_SWITCH;
	uint32_t kind = flags & (ISP_RF_REMAP_FULL | ISP_RF_REMAP_ADAPTIVE);
	struct rf_kc *kc = NULL, *pkc = NULL;
	struct rf_map *old, *m = NULL, *dead;
	struct rf_moves mv = { 0 };
	uint32_t *prof = NULL, nkc = 0, npkc = 0, k;
	uint64_t bags, hot_new = 0, done, dram;
	struct rf_table *t;
	uint16_t st = 0;
	int ret = 0;

	if (flags & ~known)
		return isp_fail(cpl, ISP_BAD_FIELD, "unknown remap flags");
	if (kind != ISP_RF_REMAP_FULL && kind != ISP_RF_REMAP_ADAPTIVE)
		return isp_fail(cpl, ISP_BAD_FIELD, "remap needs exactly one of FULL, ADAPTIVE");
	pthread_mutex_lock(&e->lock);
	t = rf_find(e, tid);
	st = rf_remappable(t, cpl);
	if (!st && t->profile && t->prof_bytes != (uint64_t)t->rows * 4)
		st = isp_fail(cpl, ISP_SC_INCOMPLETE | ISP_STATUS_DNR,
			      "profile upload incomplete");
	if (st) {
		pthread_mutex_unlock(&e->lock);
		return st;
	}
	t->busy = 1;
	t->refs++;
	t->remap_state = ISP_RF_REMAP_RUNNING;
	old = t->active;
	old->readers++;
	pthread_mutex_unlock(&e->lock);

	/* D_train: the counts tracked since the last remap; tracking restarts. */
	pthread_mutex_lock(&t->tlock);
	ret = rf_track_export(&t->track, &kc, &nkc);
	bags = t->bags_since;
	if (!ret) {
		rf_track_clear(&t->track);
		t->bags_since = 0;
	}
	pthread_mutex_unlock(&t->tlock);
	if (ret) {
		st = isp_fail(cpl, ISP_SC_INTERNAL, "out of memory");
		goto undo;
	}
	if (flags & ISP_RF_REMAP_IF_TRIGGERED) {
		int holds = rf_trigger(t, old, kc, nkc, bags, &hot_new);

		pthread_mutex_lock(&t->tlock);
		t->st.trigger_hot_new = hot_new;
		pthread_mutex_unlock(&t->tlock);
		if (!holds)
			goto undo;	/* not triggered: nothing changes, success */
	}
	/* An uploaded profile replaces the tracked counts. */
	pthread_mutex_lock(&e->lock);
	dead = t->staged;
	t->staged = NULL;
	if (t->profile && t->prof_bytes == (uint64_t)t->rows * 4) {
		prof = t->profile;
		t->profile = NULL;
		t->prof_bytes = 0;
	}
	pthread_mutex_unlock(&e->lock);
	rf_map_put(e, dead);
	if (prof) {
		fs_dram_release(e->fs, "rf-prof", (uint64_t)t->rows * 4);
		pkc = malloc((size_t)t->rows * sizeof(*pkc));
		if (!pkc) {
			free(prof);
			st = isp_fail(cpl, ISP_SC_INTERNAL, "out of memory");
			goto undo;
		}
		for (k = 0; k < t->rows; k++)
			if (prof[k]) {
				pkc[npkc].key = k;
				pkc[npkc++].count = prof[k];
			}
		free(prof);
		rf_kc_sort(pkc, npkc);
	}
	dram = rf_map_dram(t);
	ret = fs_dram_reserve(e->fs, "rf-map", dram);
	if (ret) {
		st = isp_fail(cpl, ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR,
			      "controller DRAM exhausted for the new mapping");
		goto undo;
	}
	if (kind == ISP_RF_REMAP_FULL)
		ret = rf_full_place(e, t, ctx, old, pkc ? pkc : kc, pkc ? npkc : nkc,
				    ctx->ready, &m, &mv, &done);
	else
		ret = rf_adaptive(e, t, ctx, old, pkc ? pkc : kc, pkc ? npkc : nkc,
				  ctx->ready, &m, &mv, &done);
	if (ret) {
		fs_dram_release(e->fs, "rf-map", dram);
		st = isp_fail(cpl, isp_status_from_errno(ret == -EINVAL ? -EIO : ret),
			      ret == -ENOSPC ? "no free pages for the remap (try FULL)" :
			      "remap failed");
		goto undo;
	}
	m->dram = dram;
	m->gen = old->gen + 1;
	if (e->remap_hook)
		e->remap_hook(e->hook_arg);

	pthread_mutex_lock(&t->tlock);
	t->st.remaps++;
	t->st.rows_moved += mv.rows;
	t->st.remap_reads += mv.reads;
	t->st.remap_programs += mv.programs;
	t->st.remap_erases += mv.erases;
	pthread_mutex_unlock(&t->tlock);
	pthread_mutex_lock(&e->cnt_lock);
	e->remaps++;
	pthread_mutex_unlock(&e->cnt_lock);

	pthread_mutex_lock(&e->lock);
	t->staged = m;
	t->remap_state = ISP_RF_REMAP_STAGED;
	old->readers--;
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
	if (flags & ISP_RF_REMAP_SWITCH)
		st = rf_do_switch(e, t, ctx, cpl);
	pthread_mutex_lock(&t->tlock);
	t->st.remap_ns = (ctx->ftc.end - ctx->ftc.start + FT_PS_PER_NS - 1) / FT_PS_PER_NS;
	pthread_mutex_unlock(&t->tlock);
	pthread_mutex_lock(&e->lock);
	t->busy = 0;
	t->refs--;
	pthread_mutex_unlock(&e->lock);
	free(kc);
	free(pkc);
	return st;

undo:
	if (kc || bags)
		rf_track_restore(t, kc, nkc, bags);
	pthread_mutex_lock(&e->lock);
	t->remap_state = t->staged ? ISP_RF_REMAP_STAGED : ISP_RF_REMAP_IDLE;
	old->readers--;
	pthread_cond_broadcast(&e->cond);
	t->busy = 0;
	t->refs--;
	pthread_mutex_unlock(&e->lock);
	free(kc);
	free(pkc);
	return st;
}

uint16_t rf_switch(struct rf_eng *e, struct isp_ctx *ctx, uint32_t tid,
		   struct isp_cpl *cpl)
{
	struct rf_table *t;
	uint16_t st = 0;

	pthread_mutex_lock(&e->lock);
	t = rf_find(e, tid);
	st = rf_remappable(t, cpl);
	if (!st && (t->remap_state != ISP_RF_REMAP_STAGED || !t->staged))
		st = isp_fail(cpl, ISP_SC_INCOMPLETE | ISP_STATUS_DNR, "no mapping is staged");
	if (!st) {
		t->busy = 1;
		t->refs++;
	}
	pthread_mutex_unlock(&e->lock);
	if (st)
		return st;
	st = rf_do_switch(e, t, ctx, cpl);
	pthread_mutex_lock(&e->lock);
	t->busy = 0;
	t->refs--;
	pthread_mutex_unlock(&e->lock);
	return st;
}
