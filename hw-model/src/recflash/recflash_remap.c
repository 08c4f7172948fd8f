/* SPDX-License-Identifier: MIT */
/*
 * recflash_remap.c - REMAP and SWITCH (RecFlash §III-C5; docs/command-set.md
 * section 5): the two-stage deployment of a new mapping.
 */

/*
 * The new mapping (the offline placement, recflash_place.c, or Algorithm 1,
 * recflash_alg1.c) is built while SLS keep reading through the old one,
 * staged, and made active by SWITCH in one metadata commit; stale copies
 * go at the switch (recflash_gc.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "isp_budget.h"
#include "recflash_int.h"

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

/* Under no lock: table @tid, remappable, becomes ours (busy, a reference,
 * its active mapping pinned). */
static uint16_t rf_remap_begin(struct rf_eng *e, uint32_t tid, struct isp_cpl *cpl,
			       struct rf_table **tp, struct rf_map **oldp)
{
	struct rf_table *t;
	uint16_t st;

	pthread_mutex_lock(&e->lock);
	t = rf_find(e, tid);
	st = rf_remappable(t, cpl);
	if (!st && t->profile && t->prof_bytes != (uint64_t)t->rows * 4)
		st = isp_fail(cpl, ISP_SC_INCOMPLETE | ISP_STATUS_DNR,
			      "profile upload incomplete");
	if (!st) {
		t->busy = 1;
		t->refs++;
		t->remap_state = ISP_RF_REMAP_RUNNING;
		*oldp = t->active;
		(*oldp)->readers++;
		*tp = t;
	}
	pthread_mutex_unlock(&e->lock);
	return st;
}

/*
 * Drop a staged mapping the new one replaces; an uploaded profile, when
 * complete, replaces the tracked counts: into *@pkc (sorted as the tracker
 * exports). -ENOMEM.
 */
static int rf_remap_counts(struct rf_eng *e, struct rf_table *t, struct isp_ctx *ctx,
			   struct rf_kc **pkc, uint32_t *npkc)
{
	struct rf_map *dead;
	uint32_t *prof = NULL;
	int ret;

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
	if (!prof)
		return 0;
	*pkc = malloc((size_t)t->rows * sizeof(**pkc));
	ret = *pkc ? rf_kc_from_counts(prof, t->rows, *pkc, ctx, npkc) : -ENOMEM;
	if (ret == -ECANCELED) {
		/* stopped: the profile stays for the next remap */
		free(*pkc);
		*pkc = NULL;
		pthread_mutex_lock(&e->lock);
		if (!t->profile) {
			t->profile = prof;
			t->prof_bytes = (uint64_t)t->rows * 4;
			prof = NULL;
		}
		pthread_mutex_unlock(&e->lock);
	}
	if (prof) {
		fs_dram_release(e->fs, "rf-prof", (uint64_t)t->rows * 4);
		free(prof);
	}
	return ret;
}

/* Count the remap and stage @m; SLS keep reading the old mapping. */
static void rf_remap_stage(struct rf_eng *e, struct rf_table *t, struct rf_map *old,
			   struct rf_map *m, const struct rf_moves *mv)
{
	pthread_mutex_lock(&t->tlock);
	t->st.remaps++;
	t->st.rows_moved += mv->rows;
	t->st.remap_reads += mv->reads;
	t->st.remap_programs += mv->programs;
	t->st.remap_erases += mv->erases;
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
}

/* No new mapping: the tracked counts go back, the table is released. */
static void rf_remap_undo(struct rf_eng *e, struct rf_table *t, struct rf_map *old,
			  const struct rf_kc *kc, uint32_t nkc, uint64_t bags)
{
	if (kc || bags)
		rf_track_restore(t, kc, nkc, bags);
	pthread_mutex_lock(&e->lock);
	t->remap_state = t->staged ? ISP_RF_REMAP_STAGED : ISP_RF_REMAP_IDLE;
	old->readers--;
	pthread_cond_broadcast(&e->cond);
	t->busy = 0;
	t->refs--;
	pthread_mutex_unlock(&e->lock);
}

/*
 * Host bytes per row a remap holds while it runs, beside the new mapping
 * (charged to controller DRAM, rf_map_dram()): the tracked and profile
 * counts (rf_kc each) and the counts' sort scratch, the key list, the
 * move list and read times (recflash_map.c: 16 + 8), the mapping image
 * (4), the placement order (4) and its seen bit (1).
 */
#define RF_REMAP_HOST_ROW (3 * sizeof(struct rf_kc) + 4 + 16 + 8 + 4 + 4 + 1)

/* Build the new mapping (FULL: offline placement; ADAPTIVE: Algorithm 1)
 * in DRAM reserved for it. */
static uint16_t rf_remap_build(struct rf_eng *e, struct rf_table *t, struct isp_ctx *ctx,
			       uint32_t kind, const struct rf_map *old, const struct rf_kc *kc,
			       uint32_t nkc, struct rf_map **m, struct rf_moves *mv,
			       struct isp_cpl *cpl)
{
	uint64_t dram = rf_map_dram(t), done;
	int ret;

	ret = fs_dram_reserve(e->fs, "rf-map", dram);
	if (ret)
		return isp_fail(cpl, ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR,
				"controller DRAM exhausted for the new mapping");
	if (kind == ISP_RF_REMAP_FULL)
		ret = rf_full_place(e, t, ctx, old, kc, nkc, ctx->ready, m, mv, &done);
	else
		ret = rf_adaptive(e, t, ctx, old, kc, nkc, ctx->ready, m, mv, &done);
	if (ret) {
		fs_dram_release(e->fs, "rf-map", dram);
		return isp_fail(cpl, isp_status_from_errno(ret == -EINVAL ? -EIO : ret),
				ret == -ENOSPC ? "no free pages for the remap (try FULL)" :
				"remap failed");
	}
	(*m)->dram = dram;
	(*m)->gen = old->gen + 1;
	return 0;
}

uint16_t rf_remap(struct rf_eng *e, struct isp_ctx *ctx, uint32_t tid, uint32_t flags,
		  struct isp_cpl *cpl)
{
	const uint32_t known = ISP_RF_REMAP_FULL | ISP_RF_REMAP_ADAPTIVE |
			       ISP_RF_REMAP_IF_TRIGGERED | ISP_RF_REMAP_SWITCH;
	uint32_t kind = flags & (ISP_RF_REMAP_FULL | ISP_RF_REMAP_ADAPTIVE);
	struct rf_kc *kc = NULL, *pkc = NULL;
	struct rf_map *old = NULL, *m = NULL;
	struct rf_moves mv = { 0 };
	uint32_t nkc = 0, npkc = 0;
	uint64_t bags = 0, hot_new = 0, budget = 0;
	struct rf_table *t = NULL;
	uint16_t st;
	int ret;

	if (flags & ~known)
		return isp_fail(cpl, ISP_BAD_FIELD, "unknown remap flags");
	if (kind != ISP_RF_REMAP_FULL && kind != ISP_RF_REMAP_ADAPTIVE)
		return isp_fail(cpl, ISP_BAD_FIELD, "remap needs exactly one of FULL, ADAPTIVE");
	st = rf_remap_begin(e, tid, cpl, &t, &old);
	if (st)
		return st;
	budget = (uint64_t)t->rows * RF_REMAP_HOST_ROW + 2ull * e->p->page_bytes;
	st = isp_budget_status(isp_ctx_budget_take(ctx, fs_buf_budget(e->fs), budget), cpl);
	if (st) {
		budget = 0;
		goto undo;
	}
	if (rf_track_take(t, &kc, &nkc, &bags)) {
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
	ret = rf_remap_counts(e, t, ctx, &pkc, &npkc);
	if (ret) {
		st = ret == -ECANCELED ? isp_fail(cpl, ISP_SC_ABORT_REQ, "stopped") :
		     isp_fail(cpl, ISP_SC_INTERNAL, "out of memory");
		goto undo;
	}
	st = rf_remap_build(e, t, ctx, kind, old, pkc ? pkc : kc, pkc ? npkc : nkc, &m, &mv,
			    cpl);
	if (st)
		goto undo;
	if (e->remap_hook)
		e->remap_hook(e->hook_arg);
	rf_remap_stage(e, t, old, m, &mv);
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
	isp_ctx_budget_give(ctx, fs_buf_budget(e->fs), budget);
	return st;

undo:
	rf_remap_undo(e, t, old, kc, nkc, bags);
	free(kc);
	free(pkc);
	isp_ctx_budget_give(ctx, fs_buf_budget(e->fs), budget);
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
