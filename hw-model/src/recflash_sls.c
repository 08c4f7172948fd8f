/* SPDX-License-Identifier: MIT */
/*
 * recflash_sls.c - RF_SLS: pool a batch of bags inside the drive.
 *
 * One command is one batch (docs/recflash-engine.md "Batching"): each
 * distinct row is read out once and each distinct page sensed once for the
 * whole command, whatever the bags. Per page, by table mode (RecFlash
 * III-A/III-B, Eq. 1-2): C/A + tR of its cell mode, then
 *   RecSSD-like:  one sequential read-out from the page start to the end of
 *                 the last needed row (tRR + tRC * bytes);
 *   RM-SSD-like, RecFlash: one burst per needed row (tRR + tRC * row_bytes,
 *                 FT_OP_BURSTS: other dies' bursts may interleave).
 * RecFlash-mode tables first walk the page-wise LRU cache in lookup order;
 * only rows it misses are read. Pages are issued sorted by die, page offset
 * and plane, and pages of one die at one offset go out as one multi-plane
 * read (FT_OP_MP). Then the ISP core accumulates and the pooled vectors are
 * written to controller DRAM for RESULT_READ.
 *
 * Data: the real rows are read from the store (fs_read) into a buffer of
 * distinct rows; bags are pooled in index order (recflash_pool.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flash_geom.h"
#include "recflash_int.h"

/* A distinct flash page of the batch. */
struct rf_spage {
	uint64_t key;		/* die, page offset, plane: issue order */
	uint64_t ppa;
	uint64_t lpage;
	uint32_t d0, nd;	/* its distinct rows: ds[d0 .. d0 + nd) */
	uint32_t fill;		/* read out whole into a new cache frame */
};

static int rf_spage_cmp(const void *x, const void *y)
{
	const struct rf_spage *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->lpage < b->lpage ? -1 : a->lpage > b->lpage;
}

/* Stable LSD radix sort of 0..n-1 by @slot: @ord gets the order. */
static void rf_sort_by_slot(const uint32_t *slot, uint32_t n, uint32_t *ord, uint32_t *tmp)
{
	uint32_t cnt[256], pass, i, *src = ord, *dst = tmp, *sw;

	for (i = 0; i < n; i++)
		ord[i] = i;
	for (pass = 0; pass < 4; pass++) {
		uint32_t sh = pass * 8, sum = 0, c;

		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			cnt[(slot[src[i]] >> sh) & 0xff]++;
		if (cnt[(slot[src[0]] >> sh) & 0xff] == n)
			continue;	/* one digit value: order unchanged */
		for (i = 0; i < 256; i++) {
			c = cnt[i];
			cnt[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[cnt[(slot[src[i]] >> sh) & 0xff]++] = src[i];
		sw = src;
		src = dst;
		dst = sw;
	}
	if (src != ord)
		memcpy(ord, src, (size_t)n * sizeof(*ord));
}

struct rf_sls_run {
	uint64_t page_reads, hits, misses, sensed, useful, out;
	uint64_t flash_ps, flash_pj;
};

/* Whether a lookup of key @k may bring its page into a cache frame. */
static int rf_sls_admit(const struct rf_eng *e, const struct rf_map *m, uint32_t k)
{
	switch (e->p->cache_admit) {
	case 0:
		return 1;			/* every page */
	case 1:
		return rf_ht_is_hot(&m->ht, k);	/* pages of the hot region */
	default:				/* the hottest pages */
		return m->top && (m->top[k >> 3] >> (k & 7) & 1);
	}
}

/*
 * The page cache, walked in lookup order (bag by bag, index by index) as
 * the controller meets the lookups, so recency follows the real access
 * stream. A distinct row counts once per command, at its first lookup: a
 * hit needs no flash, a miss marks it for read-out (need = 1); its later
 * lookups in the command only refresh the LRU order (the row is already in
 * the controller). A miss caches the row, or with cache_fill = 1 its whole
 * page (the page is then read out whole, p->fill; its other rows still
 * count as misses in this command: they come from the flash). Only some
 * rows bring their page in (rf_sls_admit(): by default the hottest keys of
 * the list, as many as the frames hold); others use a cached page but
 * never take a frame.
 * @pgi: page of each distinct row.
 */
static void rf_sls_cache(struct rf_eng *e, const struct rf_map *m, const struct rf_table *t,
			 const uint32_t *idx, const uint32_t *pos, uint32_t nidx,
			 const uint32_t *ds, struct rf_spage *pg, const uint32_t *pgi,
			 uint8_t *need, struct rf_sls_run *r)
{
	unsigned base = e->p->cache_fill ? RF_CT_PAGE : 0;
	uint32_t i;

	pthread_mutex_lock(&e->cache.lock);
	for (i = 0; i < nidx; i++) {
		uint32_t d = pos[i];
		struct rf_spage *p = &pg[pgi[d]];
		unsigned fl = base;
		int res;

		if (rf_sls_admit(e, m, idx[i]))
			fl |= RF_CT_ADMIT;
		res = rf_cache_touch_locked(&e->cache, p->ppa, m->area->reg.id, p->lpage,
					    ds[d] % t->rpp, fl);
		if (res == RF_CT_FILLED && (fl & RF_CT_PAGE))
			p->fill = 1;
		if (need[d])
			continue;
		if (res == RF_CT_HIT && !p->fill) {
			r->hits++;
			need[d] = 2;
		} else {
			r->misses++;
			need[d] = 1;
		}
	}
	pthread_mutex_unlock(&e->cache.lock);
}

/*
 * The page operation for page @p; returns the rows it reads for the SLS
 * (0 and op->n_dout 0: nothing to read; a page filled into the cache is
 * read even when a re-fill in the same command left it no such row).
 */
static uint32_t rf_sls_op(const struct rf_eng *e, const struct rf_table *t,
			  const struct rf_spage *p, const uint32_t *ds, const uint8_t *need,
			  struct ft_page_op *op)
{
	uint32_t j, nread = 0, last = 0;

	for (j = p->d0; j < p->d0 + p->nd; j++)
		if (!need || need[j] == 1) {
			nread++;
			last = ds[j] % t->rpp;	/* rows ascend within a page */
		}
	memset(op, 0, sizeof(*op));
	if (!nread && !p->fill)
		return 0;
	op->mode = fg_ppa_mode(e->g, p->ppa);
	op->flags = FT_OP_MP;
	op->page = FG_FIELD(p->ppa, PAGE);
	if (t->mode == ISP_RF_RECSSD) {
		/* Sequential: from the page start to the last needed row's end. */
		op->n_dout = 1;
		op->dout_bytes = (last + 1) * t->row_bytes;
	} else if (p->fill) {
		/* The whole page into a cache frame: one sequential read-out. */
		op->n_dout = 1;
		op->dout_bytes = t->rpp * t->row_bytes;
	} else {
		/* Selective: one tRR + tRC * N burst per row (Eq. 2). */
		op->flags |= FT_OP_BURSTS;
		op->n_dout = nread;
		op->dout_bytes = t->row_bytes;
	}
	return nread;
}

/*
 * The flash stage: every page holding a row to read, sensed once. Pages are
 * sorted by die, page offset and plane; pages of one die at one offset on
 * different planes go out as one multi-plane read.
 */
static void rf_sls_flash(struct rf_eng *e, struct rf_table *t, struct isp_ctx *ctx,
			 const struct rf_spage *pg, uint32_t npg, const uint32_t *ds,
			 const uint8_t *need, uint64_t t0, struct rf_sls_run *r)
{
	uint32_t P = e->g->planes_per_die, i = 0;
	uint64_t e0 = ctx->ftc.energy_pj, end = t0;
	struct ft_page_op ops[16];
	uint32_t planes[16];

	while (i < npg) {
		uint32_t n = 0, mask = 0, die = 0, off = 0;
		uint64_t done;

		for (; i < npg; i++) {
			struct ft_page_op op;
			uint32_t nread = rf_sls_op(e, t, &pg[i], ds, need, &op);
			uint32_t pl = fg_ppa_plane(e->g, pg[i].ppa);

			if (!op.n_dout)
				continue;
			if (n && (pl / P != die || op.page != off || op.mode != ops[0].mode ||
				  (mask & (1u << (pl % P))) || n == P))
				break;
			die = pl / P;
			off = op.page;
			mask |= 1u << (pl % P);
			ops[n] = op;
			planes[n++] = pl;
			r->page_reads++;
			r->sensed += e->p->page_bytes;
			r->useful += (uint64_t)nread * t->row_bytes;
			r->out += (uint64_t)op.n_dout * op.dout_bytes;
		}
		if (!n)
			break;
		done = ft_page_read_mp(e->ft, &ctx->ftc, n, planes, ops, t0, NULL);
		if (done > end)
			end = done;
	}
	r->flash_ps = end - t0;
	r->flash_pj = ctx->ftc.energy_pj - e0;
}

uint16_t rf_sls(struct rf_eng *e, struct isp_ctx *ctx, uint32_t ticket,
		const uint8_t *data, size_t len, struct isp_cpl *cpl)
{
	const uint32_t known = ISP_RF_SLS_WEIGHTED | ISP_RF_SLS_MEAN | ISP_RF_SLS_NO_CACHE;
	struct isp_results *res = isp_dev_results(e->dev);
	struct isp_wire_rf_sls h;
	struct isp_wire_rf_result rr;
	struct isp_wire_result_hdr rh;
	struct rf_sls_run run = { 0 };
	struct rf_spage *pg = NULL;
	struct rf_table *t;
	struct rf_map *m = NULL;
	uint32_t *payload = NULL, *slot = NULL, *ord = NULL, *tmp = NULL, *pos = NULL;
	uint32_t *ds = NULL, *pgi = NULL;
	uint8_t *need = NULL;
	const uint32_t *off, *idx;
	const float *w = NULL;
	uint8_t *blob = NULL, *rowbuf = NULL, *span = NULL;
	uint64_t expect, rbytes, t_in, t_map, t_core, cycles;
	uint32_t i, b, nd = 0, npg = 0, rb, dim;
	int weighted, mean, use_cache, ret = 0, reserved = 0;
	uint16_t st = 0;
	float *acc;

	if (len < sizeof(h))
		return isp_fail(cpl, ISP_BAD_FIELD, "SLS header missing");
	memcpy(&h, data, sizeof(h));
	if (!isp_all_zero(h.rsvd, sizeof(h.rsvd)))
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	if (h.flags & ~known)
		return isp_fail(cpl, ISP_BAD_FIELD, "unknown SLS flags");
	if (!h.nbags || h.nbags > ISP_RF_MAX_BAGS)
		return isp_fail(cpl, ISP_BAD_FIELD, "nbags out of range");
	if (h.nidx < h.nbags)
		return isp_fail(cpl, ISP_BAD_FIELD, "an empty bag");
	weighted = (h.flags & ISP_RF_SLS_WEIGHTED) != 0;
	mean = (h.flags & ISP_RF_SLS_MEAN) != 0;
	expect = sizeof(h) + 4ull * (h.nbags + 1ull) + 4ull * h.nidx * (weighted ? 2u : 1u);
	if (len != expect)
		return isp_fail(cpl, ISP_BAD_FIELD,
				"data length does not match nbags, nidx and weights");
	/* The guest's buffer may be unaligned: take an aligned copy. */
	payload = malloc(len - sizeof(h));
	if (!payload)
		return isp_fail(cpl, ISP_SC_INTERNAL, "out of memory");
	memcpy(payload, data + sizeof(h), len - sizeof(h));
	off = payload;
	idx = payload + h.nbags + 1;
	if (weighted)
		w = (const float *)(const void *)(idx + h.nidx);
	if (off[0] != 0 || off[h.nbags] != h.nidx) {
		free(payload);
		return isp_fail(cpl, ISP_BAD_FIELD, "offsets must start at 0 and end at nidx");
	}
	for (b = 0; b < h.nbags; b++)
		if (off[b + 1] <= off[b]) {
			free(payload);
			return isp_fail(cpl, ISP_BAD_FIELD,
					"offsets not ascending (or an empty bag)");
		}

	pthread_mutex_lock(&e->lock);
	t = rf_find(e, h.tid);
	if (!t)
		st = isp_fail(cpl, ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR, "unknown table");
	else if (t->state != ISP_RF_READY)
		st = isp_fail(cpl, ISP_SC_BUSY | ISP_STATUS_DNR, "table is being deployed");
	else if (h.dim != t->dim)
		st = isp_fail(cpl, ISP_SC_DIM_MISMATCH | ISP_STATUS_DNR,
			      "dim differs from the table's");
	if (!st) {
		t->refs++;
		m = t->active;
		m->readers++;
	}
	pthread_mutex_unlock(&e->lock);
	if (st) {
		free(payload);
		return st;
	}
	dim = t->dim;
	rb = t->row_bytes;
	for (i = 0; i < h.nidx; i++)
		if (idx[i] >= t->rows) {
			st = isp_fail(cpl, ISP_BAD_FIELD, "row index out of range");
			goto out;
		}
	rbytes = sizeof(rh) + sizeof(rr) + 4ull * h.nbags * dim;
	if (rbytes > res->max_bytes) {
		st = isp_fail(cpl, ISP_BAD_FIELD, "result larger than max_result_bytes");
		goto out;
	}
	ret = isp_results_reserve(res, ticket, rbytes);
	if (ret == -EEXIST)
		st = isp_fail(cpl, ISP_SC_TICKET_IN_USE | ISP_STATUS_DNR, "ticket in use");
	else if (ret == -EINVAL)
		st = isp_fail(cpl, ISP_BAD_FIELD, "ticket 0");
	else if (ret)
		st = isp_fail(cpl, ISP_SC_RESOURCE, "result table full");
	if (st)
		goto out;
	reserved = 1;

	/* Plan: distinct slots, distinct pages. */
	slot = malloc((size_t)h.nidx * sizeof(*slot));
	ord = malloc((size_t)h.nidx * sizeof(*ord));
	tmp = malloc((size_t)h.nidx * sizeof(*tmp));
	pos = malloc((size_t)h.nidx * sizeof(*pos));
	ds = malloc((size_t)h.nidx * sizeof(*ds));
	blob = malloc(rbytes);
	if (!slot || !ord || !tmp || !pos || !ds || !blob) {
		st = isp_fail(cpl, ISP_SC_INTERNAL, "out of memory");
		goto out;
	}
	for (i = 0; i < h.nidx; i++)
		slot[i] = m->a ? m->a[idx[i]] : idx[i];
	rf_sort_by_slot(slot, h.nidx, ord, tmp);
	for (i = 0; i < h.nidx; i++) {
		uint32_t s = slot[ord[i]];

		if (!nd || ds[nd - 1] != s)
			ds[nd++] = s;
		pos[ord[i]] = nd - 1;
	}
	pg = malloc((size_t)nd * sizeof(*pg));
	pgi = malloc((size_t)nd * sizeof(*pgi));
	if (!pg || !pgi) {
		st = isp_fail(cpl, ISP_SC_INTERNAL, "out of memory");
		goto out;
	}
	for (i = 0; i < nd; i++) {
		uint64_t lp = ds[i] / t->rpp;

		if (npg && pg[npg - 1].lpage == lp) {
			pg[npg - 1].nd++;
			pgi[i] = npg - 1;
			continue;
		}
		pgi[i] = npg;
		ret = rf_area_ppa(e, m->area, lp, &pg[npg].ppa);
		if (ret) {
			st = isp_fail(cpl, ISP_SC_INTERNAL, "mapping points outside the table");
			goto out;
		}
		pg[npg].lpage = lp;
		pg[npg].d0 = i;
		pg[npg].nd = 1;
		pg[npg].fill = 0;
		pg[npg].key = (uint64_t)fg_ppa_die(e->g, pg[npg].ppa) << 32 |
			      (uint64_t)FG_FIELD(pg[npg].ppa, PAGE) << 8 |
			      FG_FIELD(pg[npg].ppa, PLANE);
		npg++;
	}

	/* Data: the distinct rows, one store read per page span. */
	if ((uint64_t)nd * rb <= RF_ROWBUF_MAX) {
		rowbuf = malloc((size_t)nd * rb);
		span = malloc(e->p->page_bytes);
		if (!rowbuf || !span) {
			st = isp_fail(cpl, ISP_SC_INTERNAL, "out of memory");
			goto out;
		}
		for (i = 0; i < npg && !ret; i++) {
			uint32_t j0 = ds[pg[i].d0] % t->rpp;
			uint32_t j1 = ds[pg[i].d0 + pg[i].nd - 1] % t->rpp, j;

			if ((j1 - j0 + 1) > 4 * pg[i].nd) {
				/* Sparse rows: a read each beats copying the span. */
				for (j = 0; !ret && j < pg[i].nd; j++)
					ret = fs_read(e->fs, pg[i].ppa,
						      (ds[pg[i].d0 + j] % t->rpp) * rb,
						      rowbuf + (size_t)(pg[i].d0 + j) * rb, rb);
				continue;
			}
			ret = fs_read(e->fs, pg[i].ppa, j0 * rb, span, (j1 - j0 + 1) * rb);
			for (j = 0; !ret && j < pg[i].nd; j++)
				memcpy(rowbuf + (size_t)(pg[i].d0 + j) * rb,
				       span + (size_t)(ds[pg[i].d0 + j] % t->rpp - j0) * rb, rb);
		}
	} else {
		span = malloc(rb);
		if (!span) {
			st = isp_fail(cpl, ISP_SC_INTERNAL, "out of memory");
			goto out;
		}
	}
	if (ret) {
		st = isp_fail(cpl, ISP_SC_INTERNAL, "flash read failed");
		goto out;
	}

	/* Timing: command data in, mapping lookups, flash, core, DRAM. */
	use_cache = t->mode == ISP_RF_RECFLASH && !(h.flags & ISP_RF_SLS_NO_CACHE) &&
		    e->cache.nframes;
	t_in = isp_link_xfer(ctx, len, 0, ctx->ready);
	t_map = ft_dram(e->ft, &ctx->ftc, 4ull * h.nidx, t_in);
	if (t->mode == ISP_RF_RECFLASH)
		ft_dram(e->ft, &ctx->ftc, 8ull * h.nidx, t_map);	/* counters */
	if (use_cache) {
		need = calloc(nd, 1);
		if (!need) {
			st = isp_fail(cpl, ISP_SC_INTERNAL, "out of memory");
			goto out;
		}
		rf_sls_cache(e, m, t, idx, pos, h.nidx, ds, pg, pgi, need, &run);
	}
	qsort(pg, npg, sizeof(*pg), rf_spage_cmp);
	rf_sls_flash(e, t, ctx, pg, npg, ds, need, t_map, &run);
	cycles = ft_cycles_sls(e->p, (uint64_t)h.nidx * dim + (mean ? (uint64_t)h.nbags * dim : 0));
	t_core = ft_core(e->ft, &ctx->ftc, FT_CORE_ISP, cycles, "sls", t_map + run.flash_ps);
	ft_dram(e->ft, &ctx->ftc, 4ull * h.nbags * dim, t_core);	/* the result */

	/* Pool in index order. */
	acc = (float *)(void *)(blob + sizeof(rh) + sizeof(rr));
	for (b = 0; b < h.nbags && !ret; b++) {
		float *o = acc + (size_t)b * dim;

		memset(o, 0, (size_t)dim * sizeof(*o));
		for (i = off[b]; i < off[b + 1]; i++) {
			const uint8_t *row;

			if (rowbuf) {
				row = rowbuf + (size_t)pos[i] * rb;
			} else {
				uint64_t ppa;

				ret = rf_area_ppa(e, m->area, slot[i] / t->rpp, &ppa);
				if (!ret)
					ret = fs_read(e->fs, ppa, (slot[i] % t->rpp) * rb, span, rb);
				if (ret)
					break;
				row = span;
			}
			rf_acc_row(o, row, t->dtype, dim, e->h2f, weighted, weighted ? w[i] : 1.0f);
		}
		rf_finish_bag(o, dim, off[b + 1] - off[b], mean);
	}
	if (ret) {
		st = isp_fail(cpl, ISP_SC_INTERNAL, "flash read failed");
		goto out;
	}

	memset(&rr, 0, sizeof(rr));
	rr.nbags = h.nbags;
	rr.dim = dim;
	rr.generation = m->gen;
	rr.lookups = h.nidx;
	rr.page_reads = run.page_reads;
	rr.cache_hits = run.hits;
	rr.cache_misses = run.misses;
	rr.bytes_sensed = run.sensed;
	rr.bytes_useful = run.useful;
	rr.bytes_out = run.out;
	rr.flash_ns = (run.flash_ps + FT_PS_PER_NS - 1) / FT_PS_PER_NS;
	rr.flash_pj = run.flash_pj;
	memset(&rh, 0, sizeof(rh));
	memcpy(rh.magic, "RSLT", 4);
	rh.kind = ISP_RESULT_SLS;
	rh.total_bytes = rbytes;
	rh.ticket = ticket;
	rh.hdr_bytes = sizeof(rr);
	rh.model_ns = (ctx->ftc.end - ctx->ftc.start + FT_PS_PER_NS - 1) / FT_PS_PER_NS;
	rh.energy_pj = ctx->ftc.energy_pj;
	memcpy(blob, &rh, sizeof(rh));
	memcpy(blob + sizeof(rh), &rr, sizeof(rr));
	ret = isp_results_publish(res, ticket, blob, rbytes, NULL, NULL, NULL);
	blob = NULL;
	reserved = 0;
	if (ret) {
		st = isp_fail(cpl, ISP_SC_INTERNAL, "result publish failed");
		goto out;
	}

	pthread_mutex_lock(&t->tlock);
	t->st.sls_bags += h.nbags;
	t->st.lookups += h.nidx;
	t->st.page_reads += run.page_reads;
	t->st.cache_hits += run.hits;
	t->st.cache_misses += run.misses;
	t->st.bytes_sensed += run.sensed;
	t->st.bytes_useful += run.useful;
	t->st.bytes_out += run.out;
	t->st.model_ns += rh.model_ns;
	t->st.energy_pj += rh.energy_pj;
	if (t->mode == ISP_RF_RECFLASH) {
		for (i = 0; i < h.nidx; i++)
			rf_track_add(&t->track, idx[i], 1);
		t->bags_since += h.nbags;
	}
	pthread_mutex_unlock(&t->tlock);
	pthread_mutex_lock(&e->cnt_lock);
	e->hits += run.hits;
	e->misses += run.misses;
	e->bags += h.nbags;
	pthread_mutex_unlock(&e->cnt_lock);

out:
	if (reserved)
		isp_results_cancel(res, ticket);
	pthread_mutex_lock(&e->lock);
	if (!--m->readers)
		pthread_cond_broadcast(&e->cond);
	t->refs--;
	pthread_mutex_unlock(&e->lock);
	free(payload);
	free(slot);
	free(ord);
	free(tmp);
	free(pos);
	free(ds);
	free(pg);
	free(pgi);
	free(need);
	free(blob);
	free(rowbuf);
	free(span);
	return st;
}
