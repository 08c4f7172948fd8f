/* SPDX-License-Identifier: MIT */
/*
 * recflash_readout.c - the SLS read-out (RecFlash §III-A, §III-B, Eq. 1-2):
 * which distinct rows and pages a batch needs, their bytes from the store,
 * and the modeled flash stage per table mode (RecSSD-like, RM-SSD-like,
 * RecFlash).
 */

/*
 * RecFlash-mode tables (Fig. 4b, §III-C): one command is one batch
 * (docs/recflash-engine.md "Batching"): each distinct row is read out once
 * and each distinct page sensed once for the whole command, whatever the
 * bags; per page C/A + tR of its cell mode, then one burst per needed row
 * (tRR + tRC * row_bytes, FT_OP_BURSTS: other dies' bursts may
 * interleave), or one read-out of the whole page when it fills a cache
 * frame. They first walk the page-wise LRU cache in lookup order
 * (recflash_cache.c); only rows it misses are read.
 *
 * The baselines (Fig. 4a, §III-B) read per vector: every lookup is its own
 * page read, C/A + tR + t_DO, even when an earlier lookup of the command
 * sensed the same page ("2 independent page read operations" for 2
 * vectors). t_DO per lookup by table mode:
 *   RecSSD-like:  sequential, from the page start to the end of the row;
 *   RM-SSD-like:  selective, the row alone (tRR + tRC * row_bytes).
 *
 * Reads are issued sorted by die, page offset and plane, and reads of one
 * die at one offset on different planes go out as one multi-plane read
 * (FT_OP_MP).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flash_geom.h"
#include "isp_sort.h"
#include "recflash_int.h"

static int rf_spage_cmp(const void *x, const void *y)
{
	const struct rf_spage *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->lpage < b->lpage ? -1 : a->lpage > b->lpage;
}

/* Stable LSD radix sort of 0..n-1 by @slot: @ord gets the order;
 * -ECANCELED when @ctx is stopped between two passes. */
static int rf_sort_by_slot(const struct isp_ctx *ctx, const uint32_t *slot, uint32_t n,
			   uint32_t *ord, uint32_t *tmp)
{
	uint32_t cnt[256], pass, i, *src = ord, *dst = tmp, *sw;

	for (i = 0; i < n; i++)
		ord[i] = i;
	for (pass = 0; pass < 4; pass++) {
		uint32_t sh = pass * 8, sum = 0, c;

		if (isp_ctx_cancelled(ctx))
			return -ECANCELED;
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
	return 0;
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

/* Issue @n ops (in issue order; @pl their flat planes) as multi-plane
 * groups from @t0; returns the latest end. */
static uint64_t rf_issue(struct rf_eng *e, struct isp_ctx *ctx, const struct ft_page_op *op,
			 const uint32_t *pl, uint32_t n, uint64_t t0)
{
	uint32_t P = e->g->planes_per_die, i = 0;
	uint64_t end = t0;

	while (i < n) {
		uint32_t k = 1, mask = 1u << (pl[i] % P);
		uint64_t done;

		while (i + k < n && k < P && pl[i + k] / P == pl[i] / P &&
		       op[i + k].page == op[i].page && op[i + k].mode == op[i].mode &&
		       !(mask & (1u << (pl[i + k] % P)))) {
			mask |= 1u << (pl[i + k] % P);
			k++;
		}
		done = ft_page_read_mp(e->ft, &ctx->ftc, k, pl + i, op + i, t0, NULL);
		if (done > end)
			end = done;
		i += k;
	}
	return end;
}

/* A baseline's read of one lookup: its page and its row in the page. */
struct rf_vread {
	uint64_t key;
	uint32_t pg, row;
};

static int rf_vread_cmp(const void *x, const void *y)
{
	const struct rf_vread *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->pg != b->pg)
		return a->pg < b->pg ? -1 : 1;
	return a->row < b->row ? -1 : a->row > b->row;
}

/*
 * The ops of the flash stage into @op/@pl (room for a page per lookup):
 * RecFlash a read per page holding a row to read, the baselines a read per
 * lookup. Returns the op count.
 */
static int rf_sls_ops(struct rf_eng *e, const struct isp_ctx *ctx, struct rf_sls_cmd *s,
		      struct rf_vread *vr, struct ft_page_op *op, uint32_t *pl, void *tmp,
		      uint32_t *nops)
{
	const struct rf_table *t = s->t;
	struct rf_sls_run *r = &s->run;
	uint32_t i, n = 0;

	/* both orders are total (keys, pages and rows differ): the sorts stop */
	if (t->mode == ISP_RF_RECFLASH) {
		if (isp_sort_stop(s->pg, s->npg, sizeof(*s->pg), rf_spage_cmp, ctx->cancel, tmp))
			return -ECANCELED;	/* pgi stale now */
		for (i = 0; i < s->npg; i++) {
			uint32_t nread = rf_sls_op(e, t, &s->pg[i], s->ds, s->need, &op[n]);

			if (!op[n].n_dout)
				continue;
			pl[n++] = fg_ppa_plane(e->g, s->pg[i].ppa);
			r->useful += (uint64_t)nread * t->row_bytes;
		}
	} else {
		/* Per lookup (W1), or per distinct row (rf_base_rows). */
		uint32_t nv = e->p->rf_base_rows ? s->nd : s->h.nidx;

		for (i = 0; i < nv; i++) {
			uint32_t d = e->p->rf_base_rows ? i : s->pos[i];

			vr[i].pg = s->pgi[d];
			vr[i].key = s->pg[vr[i].pg].key;
			vr[i].row = s->ds[d] % t->rpp;
		}
		if (isp_sort_stop(vr, nv, sizeof(*vr), rf_vread_cmp, ctx->cancel, tmp))
			return -ECANCELED;
		for (n = 0; n < nv; n++) {
			const struct rf_spage *p = &s->pg[vr[n].pg];

			memset(&op[n], 0, sizeof(op[n]));
			op[n].mode = fg_ppa_mode(e->g, p->ppa);
			op[n].flags = FT_OP_MP;
			op[n].page = FG_FIELD(p->ppa, PAGE);
			op[n].n_dout = 1;
			if (t->mode == ISP_RF_RECSSD) {
				op[n].dout_bytes = (vr[n].row + 1) * t->row_bytes;
			} else {
				op[n].flags |= FT_OP_BURSTS;
				op[n].dout_bytes = t->row_bytes;
			}
			pl[n] = fg_ppa_plane(e->g, p->ppa);
			r->useful += t->row_bytes;
		}
	}
	for (i = 0; i < n; i++) {
		r->page_reads++;
		r->sensed += e->p->page_bytes;
		r->out += (uint64_t)op[i].n_dout * op[i].dout_bytes;
	}
	*nops = n;
	return 0;
}

uint64_t rf_sls_flash_bytes(const struct rf_sls_cmd *s, uint64_t npg)
{
	uint64_t n = s->t->mode == ISP_RF_RECFLASH ? npg : s->h.nidx;
	uint64_t el = s->t->mode == ISP_RF_RECFLASH ? sizeof(struct rf_spage) :
		      2 * sizeof(struct rf_vread);	/* the reads and their sort's scratch */

	return (n ? n : 1) * (sizeof(struct ft_page_op) + sizeof(uint32_t) + el);
}

/* The flash stage (the ops of rf_sls_ops()); -ENOMEM, -ECANCELED. */
int rf_sls_flash(struct rf_eng *e, struct isp_ctx *ctx, struct rf_sls_cmd *s, uint64_t t0)
{
	uint32_t n = s->t->mode == ISP_RF_RECFLASH ? s->npg : s->h.nidx;
	struct ft_page_op *op = malloc((size_t)(n ? n : 1) * sizeof(*op));
	uint32_t *pl = malloc((size_t)(n ? n : 1) * sizeof(*pl));
	struct rf_vread *vr = s->t->mode == ISP_RF_RECFLASH ? NULL :
			      malloc((size_t)(n ? n : 1) * sizeof(*vr));
	/* the sort's scratch: as large as what it sorts */
	void *tmp = malloc((size_t)(n ? n : 1) * (s->t->mode == ISP_RF_RECFLASH ?
						  sizeof(*s->pg) : sizeof(*vr)));
	uint64_t e0 = ctx->ftc.energy_pj;
	int ret = -ENOMEM;

	if (op && pl && tmp && (vr || s->t->mode == ISP_RF_RECFLASH)) {
		ret = rf_sls_ops(e, ctx, s, vr, op, pl, tmp, &n);
		if (!ret) {
			s->run.flash_ps = rf_issue(e, ctx, op, pl, n, t0) - t0;
			s->run.flash_pj = ctx->ftc.energy_pj - e0;
		}
	}
	free(op);
	free(pl);
	free(vr);
	free(tmp);
	return ret;
}

/*
 * Distinct rows of the batch in slot order, and the pages holding them;
 * -ENOMEM, -EIO (a slot outside the table's area), -ECANCELED (the stop
 * flag is read between the sort's passes).
 */
int rf_sls_plan(struct rf_eng *e, const struct isp_ctx *ctx, struct rf_sls_cmd *s)
{
	const struct rf_table *t = s->t;
	const struct rf_map *m = s->m;
	uint32_t i, n = s->h.nidx;
	uint32_t *slot = malloc((size_t)n * sizeof(*slot));
	uint32_t *ord = malloc((size_t)n * sizeof(*ord));
	uint32_t *tmp = malloc((size_t)n * sizeof(*tmp));
	uint32_t *pos = malloc((size_t)n * sizeof(*pos));
	uint32_t *ds = malloc((size_t)n * sizeof(*ds));

	s->slot = slot;
	s->ord = ord;
	s->tmp = tmp;
	s->pos = pos;
	s->ds = ds;
	if (!slot || !ord || !tmp || !pos || !ds)
		return -ENOMEM;
	if (!n)
		return 0;	/* not reached: rf_sls_parse() wants a row per bag */
	for (i = 0; i < n; i++)
		slot[i] = m->a ? m->a[s->idx[i]] : s->idx[i];
	if (rf_sort_by_slot(ctx, slot, n, ord, tmp))
		return -ECANCELED;
	for (i = 0; i < n; i++) {
		uint32_t sl = slot[ord[i]];

		if (!s->nd || ds[s->nd - 1] != sl)
			ds[s->nd++] = sl;
		pos[ord[i]] = s->nd - 1;
	}
	s->pg = malloc((size_t)s->nd * sizeof(*s->pg));
	s->pgi = malloc((size_t)s->nd * sizeof(*s->pgi));
	if (!s->pg || !s->pgi)
		return -ENOMEM;
	for (i = 0; i < s->nd; i++) {
		uint64_t lp = s->ds[i] / t->rpp;
		struct rf_spage *p = &s->pg[s->npg];

		if (s->npg && s->pg[s->npg - 1].lpage == lp) {
			s->pg[s->npg - 1].nd++;
			s->pgi[i] = s->npg - 1;
			continue;
		}
		s->pgi[i] = s->npg;
		if (rf_area_ppa(e, m->area, lp, &p->ppa))
			return -EIO;
		p->lpage = lp;
		p->d0 = i;
		p->nd = 1;
		p->fill = 0;
		p->key = (uint64_t)fg_ppa_die(e->g, p->ppa) << 32 |
			 (uint64_t)FG_FIELD(p->ppa, PAGE) << 8 | FG_FIELD(p->ppa, PLANE);
		s->npg++;
	}
	return 0;
}

/* Rows of page @p into the row buffer: one store read of the span, or a
 * read each when they are sparse. */
static int rf_sls_page_rows(struct rf_eng *e, struct rf_sls_cmd *s, const struct rf_spage *p)
{
	uint32_t rpp = s->t->rpp, rb = s->t->row_bytes;
	uint32_t j0 = s->ds[p->d0] % rpp, j1 = s->ds[p->d0 + p->nd - 1] % rpp, j;
	int ret = 0;

	if ((j1 - j0 + 1) > 4 * p->nd) {
		/* Sparse rows: a read each beats copying the span. */
		for (j = 0; !ret && j < p->nd; j++)
			ret = fs_read(e->fs, p->ppa, (s->ds[p->d0 + j] % rpp) * rb,
				      s->rowbuf + (size_t)(p->d0 + j) * rb, rb);
		return ret;
	}
	ret = fs_read(e->fs, p->ppa, j0 * rb, s->span, (j1 - j0 + 1) * rb);
	for (j = 0; !ret && j < p->nd; j++)
		memcpy(s->rowbuf + (size_t)(p->d0 + j) * rb,
		       s->span + (size_t)(s->ds[p->d0 + j] % rpp - j0) * rb, rb);
	return ret;
}

/* The distinct rows' bytes, read once for the batch; past RF_ROWBUF_MAX
 * only a one-row buffer (the pooling then reads per lookup). */
/* Pages whose rows are gathered between two reads of the stop flag. */
#define RF_ROWS_STOP_EVERY 256u

int rf_sls_rows(struct rf_eng *e, const struct isp_ctx *ctx, struct rf_sls_cmd *s)
{
	uint32_t rb = s->t->row_bytes, i;
	int ret = 0;

	if ((uint64_t)s->nd * rb > RF_ROWBUF_MAX) {
		s->span = malloc(rb);
		return s->span ? 0 : -ENOMEM;
	}
	s->rowbuf = malloc((size_t)s->nd * rb);
	s->span = malloc(e->p->page_bytes);
	if (!s->rowbuf || !s->span)
		return -ENOMEM;
	for (i = 0; i < s->npg && !ret; i++) {
		if (i % RF_ROWS_STOP_EVERY == 0 && isp_ctx_cancelled(ctx))
			return -ECANCELED;	/* isp_dev_exec_cancel() */
		ret = rf_sls_page_rows(e, s, &s->pg[i]);
	}
	return ret ? -EIO : 0;
}
