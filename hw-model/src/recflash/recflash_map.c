/* SPDX-License-Identifier: MIT */
/*
 * recflash_map.c - where rows live (RecFlash §III-C1): areas, mapping
 * generations, moving rows to fresh pages, mapping images.
 */

/*
 * docs/recflash-engine.md "Layout": areas of log-structured block stripes
 * in Parallelism-First order, slot = lpage * rpp + k, mapping generations
 * (row -> slot plus the Algorithm 1 list), and the mapping image a
 * RecFlash-mode table writes to its own area so commits stay small.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flash_geom.h"
#include "flash_io.h"
#include "recflash_int.h"

struct rf_pg {
	uint64_t lpage;
	uint32_t i;
};

int rf_area_ppa(struct rf_eng *e, const struct rf_area *ar, uint64_t lpage, uint64_t *ppa)
{
	return fs_region_ppa(e->fs, &ar->reg, lpage, ppa);
}

struct rf_area *rf_area_wrap(struct rf_eng *e, const struct fs_region *reg)
{
	const struct fg_part *pt = &e->g->part[reg->part];
	struct rf_area *ar = calloc(1, sizeof(*ar));

	if (!ar)
		return NULL;
	ar->reg = *reg;
	ar->refs = 1;
	ar->mode = pt->mode;
	ar->np = e->g->planes;
	ar->sp = ar->np * pt->pages_per_block;
	ar->nstripes = reg->nblocks;
	ar->pages = fs_region_pages(e->fs, reg);
	ar->wp = calloc(ar->nstripes, sizeof(*ar->wp));
	if (!ar->wp) {
		free(ar);
		return NULL;
	}
	return ar;
}

int rf_area_try(struct rf_eng *e, struct rf_table *t, uint64_t pages,
		struct isp_ctx *ctx, uint64_t ready, struct rf_area **out)
{
	struct fs_region reg;
	uint32_t erased = 0, i;
	int ret;

	*out = NULL;
	ret = fs_region_alloc(e->fs, e->native_part, pages, RF_OWNER_TAG | t->tid, &reg,
			      &erased);
	if (ret)
		return ret;
	/* Stale blocks the store erased for us: charge them, one per plane. */
	for (i = 0; i < erased; i++)
		ft_block_erase(e->ft, &ctx->ftc, i % e->g->planes, ready);
	*out = rf_area_wrap(e, &reg);
	if (!*out) {
		fs_region_free(e->fs, reg.id);
		return -ENOMEM;
	}
	return 0;
}

int rf_pending_commit(struct rf_eng *e)
{
	struct fs_space sp;

	if (fs_space(e->fs, e->native_part, &sp) || !sp.pending_blocks)
		return 0;
	return isp_dev_commit(e->dev) == 0;
}

int rf_area_new(struct rf_eng *e, struct rf_table *t, uint64_t pages,
		struct isp_ctx *ctx, uint64_t ready, struct rf_area **out)
{
	int ret = rf_area_try(e, t, pages, ctx, ready, out);

	/* freed blocks become reusable only after a commit (as REIS does) */
	if (ret == -ENOSPC && rf_pending_commit(e))
		ret = rf_area_try(e, t, pages, ctx, ready, out);
	return ret;
}

void rf_area_put(struct rf_eng *e, struct rf_area *ar)
{
	uint32_t left;

	if (!ar)
		return;
	pthread_mutex_lock(&e->lock);
	left = --ar->refs;
	pthread_mutex_unlock(&e->lock);
	if (left)
		return;
	rf_cache_drop_area(&e->cache, ar->reg.id, 0, UINT64_MAX);
	if (!e->closing)
		fs_region_free(e->fs, ar->reg.id);
	free(ar->wp);
	free(ar);
}

/*
 * Logical page i of a whole-stripe area is page i / np of plane i % np's
 * block (Parallelism-First), so nothing at or above (highest block top) * np
 * is programmed: the backward scan starts there, and an empty stripe costs
 * a block lookup per plane, not a lookup per page (a reopen scanned every
 * page of every area). Rows of a shared stripe: scan it all.
 */
static uint64_t rf_stripe_bound(struct rf_eng *e, const struct rf_area *ar, uint32_t s)
{
	uint64_t ppa, bound;
	uint32_t pl, top, hi = 0;

	if (ar->reg.row || (ar->reg.flags & FS_REGION_PACKED))
		return ar->sp;
	for (pl = 0; pl < ar->np && pl < ar->sp; pl++) {
		if (rf_area_ppa(e, ar, (uint64_t)s * ar->sp + pl, &ppa) ||
		    fs_block_top(e->fs, ppa, &top))
			return ar->sp;	/* unknown: scan it all */
		if (top > hi)
			hi = top;
	}
	bound = (uint64_t)hi * ar->np;
	return bound < ar->sp ? bound : ar->sp;
}

/* Rebuild write pointers from the store: the last programmed page + 1. */
void rf_area_scan(struct rf_eng *e, struct rf_area *ar)
{
	uint32_t s;
	uint64_t i, ppa;

	for (s = 0; s < ar->nstripes; s++) {
		ar->wp[s] = 0;
		for (i = rf_stripe_bound(e, ar, s); i-- > 0;) {
			if (rf_area_ppa(e, ar, (uint64_t)s * ar->sp + i, &ppa))
				continue;
			if (fs_page_state(e->fs, ppa) == FS_PROGRAMMED) {
				ar->wp[s] = (uint32_t)i + 1;
				break;
			}
		}
	}
}

void rf_alloc_init(struct rf_alloc *al, struct rf_area *ar, const uint8_t *victim)
{
	uint32_t s, pick = RF_NIL;

	memset(al, 0, sizeof(*al));
	al->ar = ar;
	al->victim = victim;
	/* Prefer a fresh stripe, so hot pages start at a stripe's first row. */
	for (s = 0; s < ar->nstripes && pick == RF_NIL; s++)
		if ((!victim || !victim[s]) && ar->wp[s] == 0)
			pick = s;
	for (s = 0; s < ar->nstripes && pick == RF_NIL; s++)
		if ((!victim || !victim[s]) && ar->wp[s] < ar->sp)
			pick = s;
	al->s = pick == RF_NIL ? 0 : pick;
	al->pos = (uint64_t)al->s * ar->sp;
}

int rf_alloc_page(struct rf_alloc *al, int align, uint64_t *lpage)
{
	struct rf_area *ar = al->ar;

	while (al->tried < ar->nstripes) {
		uint32_t s = al->s;
		uint64_t base = (uint64_t)s * ar->sp, pos;

		if (!al->victim || !al->victim[s]) {
			pos = al->pos > base + ar->wp[s] ? al->pos : base + ar->wp[s];
			if (align)
				pos = base + rf_div_up(pos - base, ar->np) * ar->np;
			if (pos < base + ar->sp) {
				*lpage = pos;
				ar->wp[s] = (uint32_t)(pos - base + 1);
				al->pos = pos + 1;
				return 0;
			}
		}
		al->s = (s + 1) % ar->nstripes;
		al->tried++;
		al->pos = (uint64_t)al->s * ar->sp;
	}
	return -ENOSPC;
}

uint64_t rf_alloc_free_pages(const struct rf_area *ar, const uint8_t *victim)
{
	uint64_t n = 0;
	uint32_t s;

	for (s = 0; s < ar->nstripes; s++)
		if (!victim || !victim[s])
			n += ar->sp - ar->wp[s];
	return n;
}

int rf_map_new(struct rf_eng *e, struct rf_table *t, struct rf_area *ar, int with_ht,
	       const struct isp_ctx *ctx, struct rf_map **out)
{
	struct rf_map *m = calloc(1, sizeof(*m));
	int ret;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	if (with_ht) {
		ret = rf_ht_init_stop(&m->ht, t->rows, t->hot, ctx ? ctx->cancel : NULL);
		if (ret) {
			free(m);
			return ret;
		}
		m->a = m->ht.a;
	}
	m->area = ar;
	pthread_mutex_lock(&e->lock);
	ar->refs++;
	pthread_mutex_unlock(&e->lock);
	*out = m;
	return 0;
}

void rf_map_put(struct rf_eng *e, struct rf_map *m)
{
	if (!m)
		return;
	if (m->dram)
		fs_dram_release(e->fs, "rf-map", m->dram);
	free(m->top);
	rf_ht_free(&m->ht);
	rf_area_put(e, m->area);
	free(m);
}

/* Controller DRAM of one RecFlash mapping: (f, a, prev, next) + the hot
 * bit and the cache-admission bit. */
uint64_t rf_map_dram(const struct rf_table *t)
{
	return t->mode == ISP_RF_RECFLASH ? (uint64_t)t->rows * 16 + t->rows / 4 + 1 : 0;
}

/*
 * cache_admit = 2: the keys that may bring their page into the page cache
 * are the first of the list, as many as the cache's frames hold (at most
 * the hot region): the hottest pages of the frequency placement.
 */
int rf_map_top(struct rf_eng *e, const struct rf_table *t, struct rf_map *m)
{
	uint64_t n = (uint64_t)e->cache.nframes * t->rpp, i;
	uint32_t k;

	if (!m->ht.n || e->p->cache_admit != 2 || !e->cache.nframes || m->top)
		return 0;
	if (n > t->hot)
		n = t->hot;
	m->top = calloc((size_t)t->rows / 8 + 1, 1);
	if (!m->top)
		return -ENOMEM;
	for (k = m->ht.head, i = 0; k != RF_NIL && i < n; k = m->ht.next[k], i++)
		m->top[k >> 3] |= (uint8_t)(1u << (k & 7));
	return 0;
}

/* Identity mapping (row order), list in row order with f = 0. */
int rf_map_identity(struct rf_eng *e, struct rf_table *t, struct rf_area *ar,
		    const struct isp_ctx *ctx, struct rf_map **out)
{
	struct rf_map *m;
	uint32_t k;
	int ret = rf_map_new(e, t, ar, t->mode == ISP_RF_RECFLASH, ctx, &m);

	if (ret)
		return ret;
	if (t->mode == ISP_RF_RECFLASH) {
		for (k = 0; k < t->rows; k++) {
			if (rf_stop_at(ctx, k)) {
				rf_map_put(e, m);
				return -ECANCELED;
			}
			m->ht.a[k] = k;
			rf_ht_append(&m->ht, k, 0);
		}
		rf_ht_threshold(&m->ht);
		m->ht.cmps = m->ht.ptr_ops = 0;
		ret = rf_map_top(e, t, m);
		if (ret) {
			rf_map_put(e, m);
			return ret;
		}
	}
	*out = m;
	return 0;
}

static uint32_t rf_slot(const struct rf_map *m, uint32_t k)
{
	return m->a ? m->a[k] : k;
}

/* @pg: the old page of every moved key, by page then key order (a
 * counting sort: a FULL remap moves every row of the table). */
static int rf_pg_sort(const struct rf_map *old, const uint32_t *keys, uint32_t n,
		      uint32_t rpp, struct rf_pg *pg)
{
	uint64_t np = old->area->pages, p;
	uint32_t *cnt = calloc(np + 1, sizeof(*cnt)), i, sum = 0, c;

	if (!cnt)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		cnt[rf_slot(old, keys[i]) / rpp]++;
	for (p = 0; p <= np; p++) {
		c = cnt[p];
		cnt[p] = sum;
		sum += c;
	}
	for (i = 0; i < n; i++) {
		uint64_t lp = rf_slot(old, keys[i]) / rpp;
		/* a counting pass over the moved rows: no stop flag here (cheap) */

		pg[cnt[lp]].lpage = lp;
		pg[cnt[lp]++].i = i;
	}
	free(cnt);
	return 0;
}

/* Read every old page holding moved rows once, its moved rows out; when
 * each row is in the controller goes into @rdone. */
static int rf_move_read(struct rf_eng *e, const struct rf_table *t, struct isp_ctx *ctx,
			const struct rf_map *old, const uint32_t *keys, uint32_t n,
			struct rf_pg *pg, uint64_t *rdone, struct rf_moves *mv, uint64_t ready)
{
	uint32_t i, j, k;
	int ret;

	ret = rf_pg_sort(old, keys, n, t->rpp, pg);
	if (ret)
		return ret;
	for (i = 0; i < n; i = j) {
		struct ft_page_op op = { 0 };
		uint64_t ppa, end;

		if (isp_ctx_cancelled(ctx))
			return -ECANCELED;	/* per page read */

		for (j = i; j < n && pg[j].lpage == pg[i].lpage; j++)
			;
		ret = rf_area_ppa(e, old->area, pg[i].lpage, &ppa);
		if (ret)
			return ret;
		op.mode = fg_ppa_mode(e->g, ppa);
		op.flags = FT_OP_MP;
		op.page = FG_FIELD(ppa, PAGE);
		op.n_dout = 1;
		op.dout_bytes = (j - i) * t->row_bytes;
		end = ft_page_read(e->ft, &ctx->ftc, fg_ppa_plane(e->g, ppa), &op, ready);
		for (k = i; k < j; k++)
			rdone[pg[k].i] = end;
		mv->reads++;
	}
	return 0;
}

/* Assemble new page @p of the moved rows (list order) in @buf and program
 * it once its rows are in; the latest program end in *@last. */
static int rf_move_page(struct rf_eng *e, const struct rf_table *t, struct isp_ctx *ctx,
			const struct rf_map *old, struct rf_alloc *al, const uint32_t *keys,
			uint32_t n, uint64_t p, uint32_t *a_new, const uint64_t *rdone,
			uint8_t *buf, uint64_t ready, uint64_t *last)
{
	uint32_t rb = t->row_bytes, rpp = t->rpp, pb = e->p->page_bytes, j;
	uint32_t first = (uint32_t)(p * rpp), cnt = n - first < rpp ? n - first : rpp;
	uint64_t lp, ppa, src, t_in = ready, end;
	int ret;

	ret = rf_alloc_page(al, p == 0, &lp);
	if (ret)
		return ret;
	memset(buf, 0, pb);
	for (j = 0; j < cnt; j++) {
		uint32_t key = keys[first + j], s = rf_slot(old, key);

		ret = rf_area_ppa(e, old->area, s / rpp, &src);
		if (!ret)
			ret = fs_read(e->fs, src, (s % rpp) * rb, buf + (size_t)j * rb, rb);
		if (ret)
			return ret;
		a_new[key] = (uint32_t)(lp * rpp + j);
		if (rdone[first + j] > t_in)
			t_in = rdone[first + j];
	}
	ret = rf_area_ppa(e, al->ar, lp, &ppa);
	if (!ret)
		ret = fs_program(e->fs, ppa, buf, NULL);
	if (ret)
		return ret;
	end = ft_page_program(e->ft, &ctx->ftc, fg_ppa_plane(e->g, ppa),
			      fg_ppa_mode(e->g, ppa), pb, t_in);
	if (end > *last)
		*last = end;
	return 0;
}

int rf_move_rows(struct rf_eng *e, struct rf_table *t, struct isp_ctx *ctx,
		 const struct rf_map *old, struct rf_alloc *al, const uint32_t *keys,
		 uint32_t n, uint32_t *a_new, struct rf_moves *mv, uint64_t ready,
		 uint64_t *done)
{
	uint64_t npages = rf_div_up(n, t->rpp), p, last = ready;
	struct rf_pg *pg = NULL;
	uint64_t *rdone = NULL;
	uint8_t *buf = NULL;
	int ret = 0;

	if (!n) {
		*done = ready;
		return 0;
	}
	pg = malloc((size_t)n * sizeof(*pg));
	rdone = malloc((size_t)n * sizeof(*rdone));
	buf = malloc(e->p->page_bytes);
	if (!pg || !rdone || !buf) {
		ret = -ENOMEM;
		goto out;
	}
	ret = rf_move_read(e, t, ctx, old, keys, n, pg, rdone, mv, ready);
	for (p = 0; p < npages && !ret; p++) {
		if (isp_ctx_cancelled(ctx)) {
			ret = -ECANCELED;	/* isp_dev_exec_cancel() */
			break;
		}
		ret = rf_move_page(e, t, ctx, old, al, keys, n, p, a_new, rdone, buf, ready,
				   &last);
		if (!ret)
			mv->programs++;
	}
	if (!ret)
		mv->rows += n;
out:
	*done = last;
	free(pg);
	free(rdone);
	free(buf);
	return ret;
}

int rf_write_image(struct rf_eng *e, struct rf_table *t, struct isp_ctx *ctx,
		   struct rf_map *m, struct rf_alloc *al, struct rf_moves *mv,
		   uint64_t ready, uint64_t *done)
{
	uint32_t pb = e->p->page_bytes, hot = 0, k;
	struct rf_img_hdr h;
	uint64_t bytes, i, last = ready;
	uint8_t *img;
	uint32_t *w;
	int ret = 0;

	*done = ready;
	for (k = m->ht.head; k != RF_NIL && hot < m->ht.hot; k = m->ht.next[k])
		hot++;
	bytes = sizeof(h) + (uint64_t)t->rows * 4 + (uint64_t)hot * 8;
	if (rf_div_up(bytes, pb) > t->img_pages)
		return -EINVAL;
	img = calloc(1, (size_t)t->img_pages * pb);
	if (!img)
		return -ENOMEM;
	memset(&h, 0, sizeof(h));
	h.magic = RF_IMG_MAGIC;
	h.version = RF_IMG_VERSION;
	h.tid = t->tid;
	h.gen = m->gen;
	h.rows = t->rows;
	h.hot = hot;
	h.payload = bytes - sizeof(h);
	memcpy(img, &h, sizeof(h));
	memcpy(img + sizeof(h), m->ht.a, (size_t)t->rows * 4);
	w = (uint32_t *)(void *)(img + sizeof(h) + (size_t)t->rows * 4);
	for (k = m->ht.head, i = 0; k != RF_NIL && i < hot; k = m->ht.next[k], i++) {
		w[i] = k;
		w[hot + i] = m->ht.f[k];
	}
	/* the checksum in blocks, so a stop need not wait for all of it */
	for (m->img_crc = 0, i = 0; i < bytes && !ret; i += 4ull * RF_STOP_ROWS) {
		ret = isp_ctx_cancelled(ctx) ? -ECANCELED : 0;
		m->img_crc = fio_crc32c(m->img_crc, img + i, (size_t)(bytes - i < 4ull * RF_STOP_ROWS ?
								    bytes - i : 4ull * RF_STOP_ROWS));
	}
	m->img_pages = (uint32_t)t->img_pages;
	m->nruns = 0;
	for (i = 0; i < t->img_pages && !ret; i++) {
		uint64_t lp, ppa, end;
		struct rf_run *r = m->nruns ? &m->run[m->nruns - 1] : NULL;

		if (isp_ctx_cancelled(ctx)) {
			ret = -ECANCELED;	/* per page programmed */
			break;
		}
		ret = rf_alloc_page(al, 0, &lp);
		if (ret)
			break;
		if (r && r->lpage + r->count == lp) {
			r->count++;
		} else if (m->nruns < RF_MAX_RUNS) {
			m->run[m->nruns].lpage = lp;
			m->run[m->nruns].count = 1;
			m->nruns++;
		} else {
			ret = -ENOSPC;
			break;
		}
		ret = rf_area_ppa(e, al->ar, lp, &ppa);
		if (!ret)
			ret = fs_program(e->fs, ppa, img + i * pb, NULL);
		if (ret)
			break;
		end = ft_page_program(e->ft, &ctx->ftc, fg_ppa_plane(e->g, ppa),
				      fg_ppa_mode(e->g, ppa), pb, ready);
		if (end > last)
			last = end;
		mv->programs++;
	}
	free(img);
	*done = last;
	return ret;
}
