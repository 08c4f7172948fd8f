/* SPDX-License-Identifier: MIT */
/*
 * recflash_deploy.c - deploying an embedding table (RecFlash §III-C1;
 * docs/command-set.md section 5): TABLE_CREATE / WRITE / COMMIT / DELETE
 * and PROFILE.
 */

/*
 * RF_TABLE_CREATE sizes the table and its area (Fig. 7a hot region),
 * RF_TABLE_WRITE streams rows into pages in row order, RF_TABLE_COMMIT
 * places them (by profile: the offline placement) and commits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flash_geom.h"
#include "flash_io.h"
#include "recflash_int.h"

uint16_t rf_check_create(struct rf_eng *e, const struct isp_wire_rf_create *cr,
			 struct isp_cpl *cpl)
{
	if (!cr->tid)
		return isp_fail(cpl, ISP_BAD_FIELD, "table id 0");
	if (!cr->rows || cr->rows > ISP_RF_MAX_ROWS)
		return isp_fail(cpl, ISP_BAD_FIELD, "rows out of range");
	if (!cr->dim || cr->dim > ISP_RF_MAX_DIM)
		return isp_fail(cpl, ISP_BAD_FIELD, "dim out of range");
	if (!rf_row_bytes(cr->dtype, cr->dim))
		return isp_fail(cpl, ISP_BAD_FIELD, "unknown dtype");
	if (cr->mode < ISP_RF_RECSSD || cr->mode > ISP_RF_RECFLASH)
		return isp_fail(cpl, ISP_BAD_FIELD, "unknown mode");
	if (cr->flags & ~ISP_RF_TF_PROFILE)
		return isp_fail(cpl, ISP_BAD_FIELD, "unknown table flags");
	if ((cr->flags & ISP_RF_TF_PROFILE) && cr->mode != ISP_RF_RECFLASH)
		return isp_fail(cpl, ISP_BAD_FIELD, "profile placement needs RecFlash mode");
	if (cr->trigger > ISP_RF_TRIG_PERIOD)
		return isp_fail(cpl, ISP_BAD_FIELD, "unknown trigger");
	if (cr->hot_bp > 10000)
		return isp_fail(cpl, ISP_BAD_FIELD, "hot_bp above 10000");
	if (cr->trigger_ppm > 1000000)
		return isp_fail(cpl, ISP_BAD_FIELD, "trigger_ppm above 1000000");
	if (cr->trigger == ISP_RF_TRIG_PERIOD && !cr->period)
		return isp_fail(cpl, ISP_BAD_FIELD, "period trigger with period 0");
	if (!isp_all_zero(cr->rsvd, sizeof(cr->rsvd)))
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	if (rf_row_bytes(cr->dtype, cr->dim) > e->p->page_bytes)
		return isp_fail(cpl, ISP_BAD_FIELD, "row larger than a flash page");
	return 0;
}

/* Derived sizes of a table from its creation header. */
void rf_derive(struct rf_eng *e, struct rf_table *t)
{
	const struct fg_part *pt = &e->g->part[e->native_part];
	uint64_t sp = (uint64_t)e->g->planes * pt->pages_per_block, need;

	t->tid = t->cr.tid;
	t->rows = t->cr.rows;
	t->dim = t->cr.dim;
	t->dtype = t->cr.dtype;
	t->mode = t->cr.mode;
	t->row_bytes = rf_row_bytes(t->dtype, t->dim);
	t->rpp = e->p->page_bytes / t->row_bytes;
	t->data_pages = rf_div_up(t->rows, t->rpp);
	if (t->mode == ISP_RF_RECFLASH) {
		uint64_t hot = (uint64_t)t->rows * t->cr.hot_bp / 10000;

		t->hot = hot ? (uint32_t)hot : 1;
		t->img_pages = rf_div_up(sizeof(struct rf_img_hdr) + (uint64_t)t->rows * 4 +
					 (uint64_t)t->hot * 8, e->p->page_bytes);
		/*
		 * Data + image + a stripe row, and room for RF_REMAP_ROOM adaptive
		 * remaps (each writes the hot region and an image, from a stripe
		 * row) before the area must be compacted; rounded up to whole
		 * stripes (docs/recflash-engine.md "Capacity").
		 */
		need = t->data_pages + t->img_pages + e->g->planes +
		       RF_REMAP_ROOM * (rf_div_up(t->hot, t->rpp) + t->img_pages +
					e->g->planes);
		t->area_pages = rf_div_up(need, sp) * sp;
	} else {
		t->hot = 0;
		t->img_pages = 0;
		t->area_pages = t->data_pages;
	}
}

/* A new table object for @in, not yet listed: sizes derived, deploy page
 * buffer; NULL with the failed status in *@st. */
static struct rf_table *rf_tbl_new(struct rf_eng *e, const struct isp_wire_rf_create *in,
				   struct isp_cpl *cpl, uint16_t *st)
{
	struct rf_table *t = calloc(1, sizeof(*t));

	if (!t) {
		*st = isp_fail(cpl, ISP_SC_INTERNAL, "out of memory");
		return NULL;
	}
	t->cr = *in;
	if (t->cr.mode == ISP_RF_RECFLASH && !t->cr.hot_bp)
		t->cr.hot_bp = RF_HOT_BP_DEFAULT;
	rf_derive(e, t);
	if (t->area_pages * t->rpp > UINT32_MAX) {
		free(t);
		*st = isp_fail(cpl, ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR,
			       "table too large for 32-bit row slots");
		return NULL;
	}
	pthread_mutex_init(&t->tlock, NULL);
	t->state = ISP_RF_DEPLOYING;
	t->pagebuf = malloc(e->p->page_bytes);
	return t;
}

/* Under e->lock: @t's DRAM, tracker and deploy area (@dep_pages). */
static uint16_t rf_tbl_reserve(struct rf_eng *e, struct rf_table *t, struct isp_ctx *ctx,
			       uint64_t dep_pages, uint64_t t0, struct isp_cpl *cpl)
{
	uint64_t dram_map, dram_track, dram_l2p;
	int ret;

	rf_dram_fixed(t, &dram_map, &dram_track, &dram_l2p);
	ret = rf_dram_fixed_reserve(e, dram_map, dram_track, dram_l2p);
	if (ret)
		return isp_fail(cpl, isp_status_from_errno(ret), "controller DRAM exhausted");
	t->dram_fixed = dram_map + dram_track + dram_l2p;
	ret = rf_track_init(&t->track, dram_track ? rf_track_keys(t) : 0);
	if (!ret)
		ret = rf_area_try(e, t, dep_pages, ctx, t0, &t->dep_area);
	if (ret) {
		rf_dram_fixed_release(e, dram_map, dram_track, dram_l2p);
		rf_track_free(&t->track);
		return isp_fail(cpl, isp_status_from_errno(ret), ret == -ENOSPC ?
				"not enough free flash for the table" : "flash region");
	}
	return 0;
}

uint16_t rf_tbl_create(struct rf_eng *e, struct isp_ctx *ctx,
		       const struct isp_wire_rf_create *in, struct isp_cpl *cpl)
{
	struct rf_table *t;
	uint64_t dep_pages, t0;
	int committed = 0;
	uint16_t st;

	st = rf_check_create(e, in, cpl);
	if (st)
		return st;
	t0 = isp_link_xfer(ctx, sizeof(*in), 0, ctx->ready);
	t = rf_tbl_new(e, in, cpl, &st);
	if (!t)
		return st;
	dep_pages = (t->cr.flags & ISP_RF_TF_PROFILE) ? t->data_pages : t->area_pages;

again:
	pthread_mutex_lock(&e->lock);
	if (rf_find(e, t->tid)) {
		st = isp_fail(cpl, ISP_SC_ID_EXISTS | ISP_STATUS_DNR, "table id in use");
		goto fail;
	}
	if (e->ntables >= RF_MAX_TABLES) {
		st = isp_fail(cpl, ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR, "too many tables");
		goto fail;
	}
	if (!t->pagebuf) {
		st = isp_fail(cpl, ISP_SC_INTERNAL, "out of memory");
		goto fail;
	}
	st = rf_tbl_reserve(e, t, ctx, dep_pages, t0, cpl);
	if (st == (ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR) && !committed) {
		/* the flash may be held by freed blocks until a commit: once */
		pthread_mutex_unlock(&e->lock);
		committed = 1;
		if (rf_pending_commit(e)) {
			memset(cpl, 0, sizeof(*cpl));	/* the refusal is void */
			goto again;
		}
		pthread_mutex_lock(&e->lock);
	}
	if (st)
		goto fail;
	memset(t->pagebuf, 0, e->p->page_bytes);
	rf_table_link(e, t);	/* the id is free: checked above */
	pthread_mutex_unlock(&e->lock);
	/* The table's record in controller DRAM. */
	ft_dram(e->ft, &ctx->ftc, sizeof(struct rf_meta_rec), t0);
	return 0;

fail:
	pthread_mutex_unlock(&e->lock);
	pthread_mutex_destroy(&t->tlock);
	free(t->pagebuf);
	free(t);
	return st;
}

uint64_t rf_sec_size(const struct rf_table *t, uint32_t sec)
{
	if (sec == ISP_RF_SEC_ROWS)
		return (uint64_t)t->rows * t->row_bytes;
	if (sec == ISP_RF_SEC_PROFILE && (t->cr.flags & ISP_RF_TF_PROFILE))
		return (uint64_t)t->rows * 4;
	return 0;
}

/* Program the assembled page of the deploy. */
static int rf_flush_page(struct rf_eng *e, struct rf_table *t, struct isp_ctx *ctx,
			 uint64_t ready, uint64_t *done)
{
	struct rf_area *ar = t->dep_area;
	uint64_t ppa;
	int ret = rf_area_ppa(e, ar, t->pb_lpage, &ppa);

	if (!ret)
		ret = fs_program(e->fs, ppa, t->pagebuf, NULL);
	if (ret)
		return ret;
	*done = ft_page_program(e->ft, &ctx->ftc, fg_ppa_plane(e->g, ppa),
				fg_ppa_mode(e->g, ppa), e->p->page_bytes, ready);
	ar->wp[t->pb_lpage / ar->sp] = (uint32_t)(t->pb_lpage % ar->sp) + 1;
	memset(t->pagebuf, 0, e->p->page_bytes);
	t->pb_lpage++;
	t->pb_rows = 0;
	return 0;
}

/* Stream rows [off, off + n) of the ROWS section into pages. */
static int rf_write_rows(struct rf_eng *e, struct rf_table *t, struct isp_ctx *ctx,
			 uint64_t off, const uint8_t *data, uint64_t n, uint64_t ready)
{
	uint32_t rb = t->row_bytes;
	uint64_t done;
	int ret;

	while (n) {
		uint64_t row = off / rb, in = off % rb, k = row % t->rpp;
		uint64_t take = rb - in < n ? rb - in : n;

		memcpy(t->pagebuf + k * rb + in, data, take);
		off += take;
		data += take;
		n -= take;
		if (in + take == rb) {
			t->pb_rows++;
			if (t->pb_rows == t->rpp || row + 1 == t->rows) {
				ret = rf_flush_page(e, t, ctx, ready, &done);
				if (ret)
					return ret;
			}
		}
	}
	return 0;
}

uint16_t rf_tbl_write(struct rf_eng *e, struct isp_ctx *ctx, uint32_t tid,
		      uint32_t sec, uint64_t off, const uint8_t *data, size_t len,
		      struct isp_cpl *cpl)
{
	struct rf_table *t;
	uint64_t size, n = len, t0;
	uint16_t st = 0;
	int ret = 0;
	size_t i;

	pthread_mutex_lock(&e->lock);
	t = rf_find(e, tid);
	if (!t)
		st = isp_fail(cpl, ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR, "unknown table");
	else if (t->state != ISP_RF_DEPLOYING)
		st = isp_fail(cpl, ISP_SC_BUSY | ISP_STATUS_DNR, "table is not being deployed");
	else if (t->busy)
		st = isp_fail(cpl, ISP_SC_BUSY | ISP_STATUS_DNR, "another deploy step is running");
	else if (sec >= ISP_RF_NSECTIONS || !(size = rf_sec_size(t, sec)))
		st = isp_fail(cpl, ISP_BAD_FIELD, "unknown section for this table");
	else if (off != t->received[sec] || off >= size)
		st = isp_fail(cpl, ISP_SC_BAD_OFFSET | ISP_STATUS_DNR,
			      "section data out of order or complete");
	if (!st && off + n > size) {
		/* A section's last chunk may carry up to 3 bytes of zero padding. */
		if (off + n - size >= 4)
			st = isp_fail(cpl, ISP_SC_BAD_OFFSET | ISP_STATUS_DNR,
				      "section data past its size");
		for (i = (size_t)(size - off); !st && i < len; i++)
			if (data[i])
				st = isp_fail(cpl, ISP_SC_BAD_OFFSET | ISP_STATUS_DNR,
					      "section data past its size");
		n = size - off;
	}
	if (!st && sec == ISP_RF_SEC_PROFILE && !t->profile) {
		ret = fs_dram_reserve(e->fs, "rf-prof", size);
		if (!ret) {
			t->profile = calloc(t->rows, 4);
			if (!t->profile) {
				fs_dram_release(e->fs, "rf-prof", size);
				ret = -ENOMEM;
			}
		}
		if (ret)
			st = isp_fail(cpl, isp_status_from_errno(ret), "no memory for the profile");
	}
	if (!st) {
		t->busy = 1;
		t->refs++;
	}
	pthread_mutex_unlock(&e->lock);
	if (st)
		return st;

	t0 = isp_link_xfer(ctx, len, 0, ctx->ready);
	if (sec == ISP_RF_SEC_PROFILE) {
		memcpy((uint8_t *)t->profile + off, data, n);
		ft_dram(e->ft, &ctx->ftc, n, t0);
	} else {
		ret = rf_write_rows(e, t, ctx, off, data, n, t0);
	}
	pthread_mutex_lock(&e->lock);
	if (!ret) {
		t->received[sec] += n;
		if (sec == ISP_RF_SEC_PROFILE)
			t->prof_bytes = t->received[sec];
	}
	t->busy = 0;
	t->refs--;
	pthread_mutex_unlock(&e->lock);
	if (ret == -ENOMEM)	/* the in-memory store's host-memory cap */
		return isp_fail(cpl, ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR, "host memory or backing file cap reached (mem_cap, backing_cap)");
	if (ret)
		return isp_fail(cpl, ISP_SC_INTERNAL, "flash program failed");
	return 0;
}

void rf_drop_profile(struct rf_eng *e, struct rf_table *t)
{
	if (!t->profile)
		return;
	free(t->profile);
	fs_dram_release(e->fs, "rf-prof", (uint64_t)t->rows * 4);
	t->profile = NULL;
	t->prof_bytes = 0;
}

/*
 * The deployed rows' first mapping: with a profile, the offline placement
 * (RecFlash §III-C1) re-places the row-order pages into the table's final
 * area; else the deploy area in row order is the mapping.
 */
static int rf_tbl_place(struct rf_eng *e, struct rf_table *t, struct isp_ctx *ctx,
			uint64_t t0, struct rf_map **m, struct rf_moves *mv, uint64_t *done)
{
	struct rf_map *src = NULL;
	struct rf_kc *kc;
	uint32_t nkc;
	int ret;

	if (!(t->cr.flags & ISP_RF_TF_PROFILE)) {
		ret = rf_map_identity(e, t, t->dep_area, ctx, m);
		if (!ret) {
			rf_area_put(e, t->dep_area);	/* the map holds it now */
			t->dep_area = NULL;
		}
		return ret;
	}
	kc = malloc((size_t)t->rows * sizeof(*kc));
	ret = kc ? rf_map_new(e, t, t->dep_area, 0, NULL, &src) : -ENOMEM;
	if (!ret) {
		ret = rf_kc_from_counts(t->profile, t->rows, kc, ctx, &nkc);
	if (!ret)
		ret = rf_full_place(e, t, ctx, src, kc, nkc, t0, m, mv, done);
	}
	free(kc);
	rf_map_put(e, src);
	if (!ret) {
		rf_area_put(e, t->dep_area);
		t->dep_area = NULL;
	}
	return ret;
}

/*
 * Host bytes a commit's placement holds (a table with a profile,
 * rf_tbl_place()): per row the counts and their sort scratch (rf_kc
 * each), the order (4) and its seen bit (1), the move list and read times
 * (16 + 8); the page counts, the mapping image and two pages. A commit in
 * row order holds nothing beyond the mapping, which is controller DRAM.
 */
static uint64_t rf_commit_budget_bytes(const struct rf_eng *e, const struct rf_table *t)
{
	if (!(t->cr.flags & ISP_RF_TF_PROFILE))
		return 0;
	return (uint64_t)t->rows * (2 * sizeof(struct rf_kc) + 4 + 1 + 16 + 8) +
	       4 * (t->data_pages + 1) + (t->img_pages + 2) * e->p->page_bytes;
}

uint16_t rf_tbl_commit(struct rf_eng *e, struct isp_ctx *ctx, uint32_t tid,
		       struct isp_cpl *cpl)
{
	struct rf_map *m = NULL;
	struct rf_table *t;
	struct rf_moves mv = { 0 };
	uint64_t t0 = ctx->ready, done, budget = 0;
	uint16_t st = 0;
	int ret = 0;

	pthread_mutex_lock(&e->lock);
	t = rf_find(e, tid);
	if (!t)
		st = isp_fail(cpl, ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR, "unknown table");
	else if (t->state != ISP_RF_DEPLOYING || t->busy)
		st = isp_fail(cpl, ISP_SC_BUSY | ISP_STATUS_DNR, "table is not being deployed");
	else if (t->received[ISP_RF_SEC_ROWS] != rf_sec_size(t, ISP_RF_SEC_ROWS) ||
		 t->received[ISP_RF_SEC_PROFILE] != rf_sec_size(t, ISP_RF_SEC_PROFILE))
		st = isp_fail(cpl, ISP_SC_INCOMPLETE | ISP_STATUS_DNR,
			      "a section is not completely written");
	if (!st) {
		t->busy = 1;
		t->refs++;
	}
	pthread_mutex_unlock(&e->lock);
	if (st)
		return st;

	budget = rf_commit_budget_bytes(e, t);
	ret = isp_ctx_budget_take(ctx, fs_buf_budget(e->fs), budget);
	if (ret) {
		budget = 0;
		st = isp_budget_status(ret, cpl);
		ret = 0;
	}
	if (!st && t->pb_rows)
		ret = rf_flush_page(e, t, ctx, t0, &done);
	if (!st && !ret)
		ret = rf_tbl_place(e, t, ctx, t0, &m, &mv, &done);
	isp_ctx_budget_give(ctx, fs_buf_budget(e->fs), budget);
	if (st) {
		pthread_mutex_lock(&e->lock);
		t->busy = 0;
		t->refs--;
		pthread_mutex_unlock(&e->lock);
		return st;
	}
	pthread_mutex_lock(&e->lock);
	if (!ret) {
		m->gen = 0;
		t->active = m;
		t->state = ISP_RF_READY;
		rf_drop_profile(e, t);
		free(t->pagebuf);
		t->pagebuf = NULL;
	}
	t->busy = 0;
	t->refs--;
	pthread_mutex_unlock(&e->lock);
	if (ret) {
		rf_map_put(e, m);
		return isp_fail(cpl, isp_status_from_errno(ret == -EINVAL ? -EIO : ret),
				"placing the table failed");
	}
	/* The table and its mapping enter the atomic metadata commit. */
	ft_dram(e->ft, &ctx->ftc, sizeof(struct rf_meta_rec), ctx->ftc.end);
	ret = isp_dev_commit(e->dev);
	if (ret)
		return isp_fail(cpl, ISP_SC_INTERNAL, "metadata commit failed");
	return 0;
}

uint16_t rf_tbl_delete(struct rf_eng *e, struct isp_ctx *ctx, uint32_t tid,
		       struct isp_cpl *cpl)
{
	struct rf_table *t, **pp;
	uint16_t st = 0;

	pthread_mutex_lock(&e->lock);
	for (pp = &e->tables; *pp && (*pp)->tid != tid; pp = &(*pp)->next)
		;
	t = *pp;
	if (!t)
		st = isp_fail(cpl, ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR, "unknown table");
	else if (t->refs || t->busy)
		st = isp_fail(cpl, ISP_SC_BUSY | ISP_STATUS_DNR, "table is in use");
	if (!st) {
		*pp = t->next;
		e->ntables--;
	}
	pthread_mutex_unlock(&e->lock);
	if (st)
		return st;
	rf_table_free(e, t);
	ft_dram(e->ft, &ctx->ftc, sizeof(struct rf_meta_rec), ctx->ready);
	if (isp_dev_commit(e->dev))
		return isp_fail(cpl, ISP_SC_INTERNAL, "metadata commit failed");
	return 0;
}

uint16_t rf_profile(struct rf_eng *e, struct isp_ctx *ctx, uint32_t tid, uint64_t off,
		    const uint8_t *data, size_t len, struct isp_cpl *cpl)
{
	struct rf_table *t;
	uint64_t size, n = len, t0;
	uint16_t st = 0;
	size_t i;
	int ret;

	t0 = isp_link_xfer(ctx, len, 0, ctx->ready);
	pthread_mutex_lock(&e->lock);
	t = rf_find(e, tid);
	if (!t) {
		st = isp_fail(cpl, ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR, "unknown table");
		goto out;
	}
	if (t->state != ISP_RF_READY) {
		st = isp_fail(cpl, ISP_SC_BUSY | ISP_STATUS_DNR, "table is being deployed");
		goto out;
	}
	if (t->mode != ISP_RF_RECFLASH) {
		st = isp_fail(cpl, ISP_BAD_FIELD, "profiles apply to RecFlash-mode tables");
		goto out;
	}
	size = (uint64_t)t->rows * 4;
	if (off >= size || (off + n > size && off + n - size >= 4)) {
		st = isp_fail(cpl, ISP_SC_BAD_OFFSET | ISP_STATUS_DNR,
			      "profile longer than the table");
		goto out;
	}
	if (off + n > size) {
		for (i = (size_t)(size - off); i < len; i++)
			if (data[i]) {
				st = isp_fail(cpl, ISP_SC_BAD_OFFSET | ISP_STATUS_DNR,
					      "profile longer than the table");
				goto out;
			}
		n = size - off;
	}
	if (off && off != t->prof_bytes) {
		st = isp_fail(cpl, ISP_SC_BAD_OFFSET | ISP_STATUS_DNR,
			      "profile data out of order");
		goto out;
	}
	if (!t->profile) {
		ret = fs_dram_reserve(e->fs, "rf-prof", size);
		if (!ret) {
			t->profile = calloc(t->rows, 4);
			if (!t->profile) {
				fs_dram_release(e->fs, "rf-prof", size);
				ret = -ENOMEM;
			}
		}
		if (ret) {
			st = isp_fail(cpl, isp_status_from_errno(ret), "no memory for the profile");
			goto out;
		}
	}
	if (!off)
		memset(t->profile, 0, (size_t)size);
	memcpy((uint8_t *)t->profile + off, data, n);
	t->prof_bytes = off + n;
out:
	pthread_mutex_unlock(&e->lock);
	if (!st)
		ft_dram(e->ft, &ctx->ftc, n, t0);
	return st;
}
