/* SPDX-License-Identifier: MIT */
/*
 * recflash_table.c - embedding tables of the RecFlash engine: create, the
 * streamed deploy, commit, delete, profile upload, statistics; the flash
 * areas (log-structured block stripes), moving rows between pages, the
 * mapping images in flash, garbage collection; persistence.
 *
 * Layout (docs/recflash-engine.md "Layout"): a table's rows live in slots
 * slot = lpage * rpp + k of an area (a region of the store; lpage in
 * Parallelism-First order, so pages lpage .. lpage + planes - 1 of one
 * stripe row are on every plane at the same page offset). Rows never span
 * pages. A RecFlash-mode mapping (row -> slot plus the Algorithm 1 list) is
 * written to flash pages of the same area as an image; the metadata commit
 * only records where the image is, so commits stay small at any table size.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flash_geom.h"
#include "flash_io.h"
#include "recflash_int.h"

#define RF_IMG_MAGIC 0x494d4652u	/* "RFMI" */
#define RF_IMG_VERSION 1u
#define RF_META_MAGIC 0x31454652u	/* "RFE1" */
#define RF_META_VERSION 1u

struct rf_img_hdr {
	uint32_t magic;
	uint32_t version;
	uint32_t tid;
	uint32_t gen;
	uint32_t rows;
	uint32_t hot;
	uint64_t payload;	/* a[rows], hot keys in order, their f */
};
_Static_assert(sizeof(struct rf_img_hdr) == 32, "image header");

struct rf_meta_hdr {
	uint32_t magic;
	uint32_t version;
	uint32_t ntables;
	uint32_t rsvd;
};

struct rf_meta_rec {
	struct isp_wire_rf_create cr;
	uint32_t gen;
	uint32_t region_id;
	uint32_t img_pages;
	uint32_t img_crc;
	uint32_t nruns;
	uint32_t rsvd;
	/* then nruns struct rf_run */
};
_Static_assert(sizeof(struct rf_meta_rec) == 152, "metadata record");

static uint64_t rf_div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

struct rf_table *rf_find(struct rf_eng *e, uint32_t tid)
{
	struct rf_table *t;

	for (t = e->tables; t; t = t->next)
		if (t->tid == tid)
			return t;
	return NULL;
}

/* ---- areas ---- */

int rf_area_ppa(struct rf_eng *e, const struct rf_area *ar, uint64_t lpage, uint64_t *ppa)
{
	return fs_region_ppa(e->fs, &ar->reg, lpage, ppa);
}

static struct rf_area *rf_area_wrap(struct rf_eng *e, const struct fs_region *reg)
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

int rf_area_new(struct rf_eng *e, struct rf_table *t, uint64_t pages,
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

/* Rebuild write pointers from the store: the last programmed page + 1. */
static void rf_area_scan(struct rf_eng *e, struct rf_area *ar)
{
	uint32_t s;
	uint64_t i, ppa;

	for (s = 0; s < ar->nstripes; s++) {
		ar->wp[s] = 0;
		for (i = ar->sp; i-- > 0;) {
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

/* ---- maps ---- */

int rf_map_new(struct rf_eng *e, struct rf_table *t, struct rf_area *ar, int with_ht,
	       struct rf_map **out)
{
	struct rf_map *m = calloc(1, sizeof(*m));
	int ret;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	if (with_ht) {
		ret = rf_ht_init(&m->ht, t->rows, t->hot);
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
static int rf_map_identity(struct rf_eng *e, struct rf_table *t, struct rf_area *ar,
			   struct rf_map **out)
{
	struct rf_map *m;
	uint32_t k;
	int ret = rf_map_new(e, t, ar, t->mode == ISP_RF_RECFLASH, &m);

	if (ret)
		return ret;
	if (t->mode == ISP_RF_RECFLASH) {
		for (k = 0; k < t->rows; k++) {
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

/* ---- moving rows, images, garbage collection ---- */

static uint32_t rf_slot(const struct rf_map *m, uint32_t k)
{
	return m->a ? m->a[k] : k;
}

struct rf_pg {
	uint64_t lpage;
	uint32_t i;
};

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

		pg[cnt[lp]].lpage = lp;
		pg[cnt[lp]++].i = i;
	}
	free(cnt);
	return 0;
}

int rf_move_rows(struct rf_eng *e, struct rf_table *t, struct isp_ctx *ctx,
		 const struct rf_map *old, struct rf_alloc *al, const uint32_t *keys,
		 uint32_t n, uint32_t *a_new, struct rf_moves *mv, uint64_t ready,
		 uint64_t *done)
{
	uint32_t rb = t->row_bytes, rpp = t->rpp, pb = e->p->page_bytes;
	uint64_t npages = rf_div_up(n, rpp), p, last = ready;
	struct rf_pg *pg = NULL;
	uint64_t *rdone = NULL;
	uint8_t *buf = NULL;
	uint32_t i, j, k;
	int ret = 0;

	if (!n) {
		*done = ready;
		return 0;
	}
	pg = malloc((size_t)n * sizeof(*pg));
	rdone = malloc((size_t)n * sizeof(*rdone));
	buf = malloc(pb);
	if (!pg || !rdone || !buf) {
		ret = -ENOMEM;
		goto out;
	}
	/* Read every old page holding moved rows once: its moved rows out. */
	ret = rf_pg_sort(old, keys, n, rpp, pg);
	if (ret)
		goto out;
	for (i = 0; i < n; i = j) {
		struct ft_page_op op = { 0 };
		uint64_t ppa, end;

		for (j = i; j < n && pg[j].lpage == pg[i].lpage; j++)
			;
		ret = rf_area_ppa(e, old->area, pg[i].lpage, &ppa);
		if (ret)
			goto out;
		op.mode = fg_ppa_mode(e->g, ppa);
		op.flags = FT_OP_MP;
		op.page = FG_FIELD(ppa, PAGE);
		op.n_dout = 1;
		op.dout_bytes = (j - i) * rb;
		end = ft_page_read(e->ft, &ctx->ftc, fg_ppa_plane(e->g, ppa), &op, ready);
		for (k = i; k < j; k++)
			rdone[pg[k].i] = end;
		mv->reads++;
	}
	/* Assemble and program the new pages in order. */
	for (p = 0; p < npages; p++) {
		uint64_t lp, ppa, src, t_in = ready, end;
		uint32_t first = (uint32_t)(p * rpp);
		uint32_t cnt = n - first < rpp ? n - first : rpp;

		ret = rf_alloc_page(al, p == 0, &lp);
		if (ret)
			goto out;
		memset(buf, 0, pb);
		for (j = 0; j < cnt; j++) {
			uint32_t key = keys[first + j], s = rf_slot(old, key);

			ret = rf_area_ppa(e, old->area, s / rpp, &src);
			if (!ret)
				ret = fs_read(e->fs, src, (s % rpp) * rb, buf + (size_t)j * rb, rb);
			if (ret)
				goto out;
			a_new[key] = (uint32_t)(lp * rpp + j);
			if (rdone[first + j] > t_in)
				t_in = rdone[first + j];
		}
		ret = rf_area_ppa(e, al->ar, lp, &ppa);
		if (!ret)
			ret = fs_program(e->fs, ppa, buf, NULL);
		if (ret)
			goto out;
		end = ft_page_program(e->ft, &ctx->ftc, fg_ppa_plane(e->g, ppa),
				      fg_ppa_mode(e->g, ppa), pb, t_in);
		if (end > last)
			last = end;
		mv->programs++;
	}
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
	m->img_crc = fio_crc32c(0, img, bytes);
	m->img_pages = (uint32_t)t->img_pages;
	m->nruns = 0;
	for (i = 0; i < t->img_pages; i++) {
		uint64_t lp, ppa, end;
		struct rf_run *r = m->nruns ? &m->run[m->nruns - 1] : NULL;

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

/* Stripes a map still needs: its rows and its image. */
static void rf_mark_refs(const struct rf_table *t, const struct rf_map *m, uint8_t *ref)
{
	const struct rf_area *ar = m->area;
	uint32_t k, r;
	uint64_t i;

	if (!m->a) {
		for (i = 0; i < t->data_pages; i++)
			ref[i / ar->sp] = 1;
	} else {
		for (k = 0; k < t->rows; k++)
			ref[(m->a[k] / t->rpp) / ar->sp] = 1;
	}
	for (r = 0; m->img_pages && r < m->nruns; r++)
		for (i = 0; i < m->run[r].count; i++)
			ref[(m->run[r].lpage + i) / ar->sp] = 1;
}

int rf_gc(struct rf_eng *e, struct rf_table *t, struct isp_ctx *ctx, struct rf_area *ar,
	  const struct rf_map *const *maps, unsigned nmaps, uint64_t ready,
	  uint64_t *erases)
{
	uint8_t *ref = calloc(ar->nstripes, 1);
	uint32_t s, pl, nb;
	unsigned i;
	int ret = 0;

	if (!ref)
		return -ENOMEM;
	for (i = 0; i < nmaps; i++)
		if (maps[i] && maps[i]->area == ar)
			rf_mark_refs(t, maps[i], ref);
	for (s = 0; s < ar->nstripes && !ret; s++) {
		if (!ar->wp[s] || ref[s])
			continue;
		/* Nothing points into this stripe: erase its blocks. */
		rf_cache_drop_area(&e->cache, ar->reg.id, (uint64_t)s * ar->sp,
				   (uint64_t)(s + 1) * ar->sp);
		nb = ar->wp[s] < ar->np ? ar->wp[s] : ar->np;
		for (pl = 0; pl < nb; pl++) {
			uint64_t ppa;

			ret = rf_area_ppa(e, ar, (uint64_t)s * ar->sp + pl, &ppa);
			if (!ret)
				ret = fs_erase(e->fs, ppa);
			if (ret)
				break;
			ft_block_erase(e->ft, &ctx->ftc, fg_ppa_plane(e->g, ppa), ready);
			(*erases)++;
		}
		if (!ret)
			ar->wp[s] = 0;
	}
	free(ref);
	return ret;
}

/* ---- create / write / commit / delete ---- */

static uint16_t rf_check_create(struct rf_eng *e, const struct isp_wire_rf_create *cr,
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
static void rf_derive(struct rf_eng *e, struct rf_table *t)
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

uint16_t rf_tbl_create(struct rf_eng *e, struct isp_ctx *ctx,
		       const struct isp_wire_rf_create *in, struct isp_cpl *cpl)
{
	struct rf_table *t, **pp;
	uint64_t dram_map, dram_track, dram_l2p, dep_pages, t0;
	uint16_t st;
	int ret;

	st = rf_check_create(e, in, cpl);
	if (st)
		return st;
	t0 = isp_link_xfer(ctx, sizeof(*in), 0, ctx->ready);
	t = calloc(1, sizeof(*t));
	if (!t)
		return isp_fail(cpl, ISP_SC_INTERNAL, "out of memory");
	t->cr = *in;
	if (t->cr.mode == ISP_RF_RECFLASH && !t->cr.hot_bp)
		t->cr.hot_bp = RF_HOT_BP_DEFAULT;
	rf_derive(e, t);
	if (t->area_pages * t->rpp > UINT32_MAX) {
		free(t);
		return isp_fail(cpl, ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR,
				"table too large for 32-bit row slots");
	}
	pthread_mutex_init(&t->tlock, NULL);
	t->state = ISP_RF_DEPLOYING;
	t->pagebuf = malloc(e->p->page_bytes);
	dram_map = rf_map_dram(t);
	dram_track = t->mode == ISP_RF_RECFLASH ?
		     rf_track_bytes(t->rows < RF_TRACK_MAX_KEYS ? t->rows : RF_TRACK_MAX_KEYS) : 0;
	/* Row-order modes keep an ordinary page-level L2P entry per page. */
	dram_l2p = t->mode == ISP_RF_RECFLASH ? 0 : t->data_pages * 4;
	dep_pages = (t->cr.flags & ISP_RF_TF_PROFILE) ? t->data_pages : t->area_pages;

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
	ret = fs_dram_reserve(e->fs, "rf-map", dram_map);
	if (!ret) {
		ret = fs_dram_reserve(e->fs, "rf-track", dram_track);
		if (ret)
			fs_dram_release(e->fs, "rf-map", dram_map);
	}
	if (!ret) {
		ret = fs_dram_reserve(e->fs, "rf-l2p", dram_l2p);
		if (ret) {
			fs_dram_release(e->fs, "rf-map", dram_map);
			fs_dram_release(e->fs, "rf-track", dram_track);
		}
	}
	if (ret) {
		st = isp_fail(cpl, isp_status_from_errno(ret), "controller DRAM exhausted");
		goto fail;
	}
	t->dram_fixed = dram_map + dram_track + dram_l2p;
	ret = rf_track_init(&t->track, dram_track ? (t->rows < RF_TRACK_MAX_KEYS ?
				t->rows : RF_TRACK_MAX_KEYS) : 0);
	if (!ret)
		ret = rf_area_new(e, t, dep_pages, ctx, t0, &t->dep_area);
	if (ret) {
		fs_dram_release(e->fs, "rf-map", dram_map);
		fs_dram_release(e->fs, "rf-track", dram_track);
		fs_dram_release(e->fs, "rf-l2p", dram_l2p);
		rf_track_free(&t->track);
		st = isp_fail(cpl, isp_status_from_errno(ret), ret == -ENOSPC ?
			      "not enough free flash for the table" : "flash region");
		goto fail;
	}
	memset(t->pagebuf, 0, e->p->page_bytes);
	for (pp = &e->tables; *pp && (*pp)->tid < t->tid; pp = &(*pp)->next)
		;
	t->next = *pp;
	*pp = t;
	e->ntables++;
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

static uint64_t rf_sec_size(const struct rf_table *t, uint32_t sec)
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
	if (ret)
		return isp_fail(cpl, ISP_SC_INTERNAL, "flash program failed");
	return 0;
}

static void rf_drop_profile(struct rf_eng *e, struct rf_table *t)
{
	if (!t->profile)
		return;
	free(t->profile);
	fs_dram_release(e->fs, "rf-prof", (uint64_t)t->rows * 4);
	t->profile = NULL;
	t->prof_bytes = 0;
}

uint16_t rf_tbl_commit(struct rf_eng *e, struct isp_ctx *ctx, uint32_t tid,
		       struct isp_cpl *cpl)
{
	struct rf_map *m = NULL;
	struct rf_table *t;
	struct rf_moves mv = { 0 };
	uint64_t t0 = ctx->ready, done;
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

	if (t->pb_rows)
		ret = rf_flush_page(e, t, ctx, t0, &done);
	if (!ret && (t->cr.flags & ISP_RF_TF_PROFILE)) {
		/* Offline placement (III-C1): re-place the row-order pages by the
		 * profile into the table's final area. */
		struct rf_map *src = NULL;
		struct rf_kc *kc = NULL;
		uint32_t k, nkc = 0;

		kc = malloc((size_t)t->rows * sizeof(*kc));
		ret = kc ? rf_map_new(e, t, t->dep_area, 0, &src) : -ENOMEM;
		if (!ret) {
			for (k = 0; k < t->rows; k++)
				if (t->profile[k]) {
					kc[nkc].key = k;
					kc[nkc++].count = t->profile[k];
				}
			rf_kc_sort(kc, nkc);
			ret = rf_full_place(e, t, ctx, src, kc, nkc, t0, &m, &mv, &done);
		}
		free(kc);
		rf_map_put(e, src);
		if (!ret) {
			rf_area_put(e, t->dep_area);
			t->dep_area = NULL;
		}
	} else if (!ret) {
		ret = rf_map_identity(e, t, t->dep_area, &m);
		if (!ret) {
			rf_area_put(e, t->dep_area);	/* the map holds it now */
			t->dep_area = NULL;
		}
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

void rf_table_free(struct rf_eng *e, struct rf_table *t)
{
	rf_map_put(e, t->active);
	rf_map_put(e, t->staged);
	rf_area_put(e, t->dep_area);
	rf_drop_profile(e, t);
	if (t->dram_fixed) {
		fs_dram_release(e->fs, "rf-map", rf_map_dram(t));
		fs_dram_release(e->fs, "rf-track", rf_track_bytes(t->track.cap));
		fs_dram_release(e->fs, "rf-l2p", t->mode == ISP_RF_RECFLASH ? 0 :
				t->data_pages * 4);
	}
	rf_track_free(&t->track);
	pthread_mutex_destroy(&t->tlock);
	free(t->pagebuf);
	free(t);
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

/* ---- statistics ---- */

void rf_fill_stats(struct rf_eng *e, struct rf_table *t, struct isp_wire_rf_stats *w,
		   int reset)
{
	const struct rf_map *m;
	uint64_t pages = 0;

	(void)e;

	memset(w, 0, sizeof(*w));
	/* eng->lock held by the caller. */
	w->create = t->cr;
	w->state = t->state;
	w->remap_state = t->remap_state;
	m = t->active;
	w->generation = m ? m->gen : 0;
	w->rows_per_page = t->rpp;
	memcpy(w->received, t->received, sizeof(w->received));
	if (m)
		pages = t->data_pages + m->img_pages;
	w->pages = pages;
	w->dram_bytes = t->dram_fixed + (t->staged ? t->staged->dram : 0) +
			(t->profile ? (uint64_t)t->rows * 4 : 0);
	pthread_mutex_lock(&t->tlock);
	w->sls_bags = t->st.sls_bags;
	w->lookups = t->st.lookups;
	w->page_reads = t->st.page_reads;
	w->cache_hits = t->st.cache_hits;
	w->cache_misses = t->st.cache_misses;
	w->bytes_sensed = t->st.bytes_sensed;
	w->bytes_useful = t->st.bytes_useful;
	w->bytes_out = t->st.bytes_out;
	w->model_ns = t->st.model_ns;
	w->energy_pj = t->st.energy_pj;
	w->tracked_keys = t->track.nkeys;
	w->remaps = t->st.remaps;
	w->remap_rows_moved = t->st.rows_moved;
	w->remap_page_reads = t->st.remap_reads;
	w->remap_programs = t->st.remap_programs;
	w->remap_erases = t->st.remap_erases;
	w->remap_ns = t->st.remap_ns;
	w->trigger_hot_new = t->st.trigger_hot_new;
	if (reset) {
		t->st.sls_bags = t->st.lookups = t->st.page_reads = 0;
		t->st.cache_hits = t->st.cache_misses = 0;
		t->st.bytes_sensed = t->st.bytes_useful = t->st.bytes_out = 0;
		t->st.model_ns = t->st.energy_pj = 0;
	}
	pthread_mutex_unlock(&t->tlock);
}

/* ---- persistence ---- */

int rf_save(struct rf_eng *e, void **blob, size_t *len)
{
	struct rf_meta_hdr h = { RF_META_MAGIC, RF_META_VERSION, 0, 0 };
	struct rf_table *t;
	size_t size = sizeof(h), off;
	uint8_t *b;

	pthread_mutex_lock(&e->lock);
	for (t = e->tables; t; t = t->next)
		if (t->state == ISP_RF_READY && t->active)
			size += sizeof(struct rf_meta_rec) +
				t->active->nruns * sizeof(struct rf_run);
	b = malloc(size);
	if (!b) {
		pthread_mutex_unlock(&e->lock);
		return -ENOMEM;
	}
	off = sizeof(h);
	for (t = e->tables; t; t = t->next) {
		const struct rf_map *m = t->active;
		struct rf_meta_rec r;

		if (t->state != ISP_RF_READY || !m)
			continue;
		memset(&r, 0, sizeof(r));
		r.cr = t->cr;
		r.gen = m->gen;
		r.region_id = m->area->reg.id;
		r.img_pages = m->img_pages;
		r.img_crc = m->img_crc;
		r.nruns = m->img_pages ? m->nruns : 0;
		memcpy(b + off, &r, sizeof(r));
		off += sizeof(r);
		memcpy(b + off, m->run, r.nruns * sizeof(struct rf_run));
		off += r.nruns * sizeof(struct rf_run);
		h.ntables++;
	}
	pthread_mutex_unlock(&e->lock);
	memcpy(b, &h, sizeof(h));
	*blob = b;
	*len = off;
	return 0;
}

/* Read a mapping image back and rebuild the map (a, Algorithm 1 list). */
static int rf_load_image(struct rf_eng *e, struct rf_table *t, struct rf_map *m)
{
	uint32_t pb = e->p->page_bytes, r, k, *w;
	/* The area as allocated: a file from an older layout may be larger. */
	uint64_t i, p = 0, bytes, slots = m->area->pages * t->rpp;
	struct rf_img_hdr h;
	uint8_t *img, *seen;
	int ret = 0;

	img = malloc((size_t)m->img_pages * pb);
	seen = calloc((size_t)t->rows / 8 + 1, 1);
	if (!img || !seen) {
		ret = -ENOMEM;
		goto out;
	}
	for (r = 0; r < m->nruns && !ret; r++)
		for (i = 0; i < m->run[r].count && !ret; i++, p++) {
			uint64_t ppa;

			if (p >= m->img_pages)
				ret = -EIO;
			else
				ret = rf_area_ppa(e, m->area, m->run[r].lpage + i, &ppa);
			if (!ret)
				ret = fs_read(e->fs, ppa, 0, img + p * pb, pb);
		}
	if (ret)
		goto out;
	memcpy(&h, img, sizeof(h));
	bytes = sizeof(h) + h.payload;
	if (p != m->img_pages || h.magic != RF_IMG_MAGIC || h.version != RF_IMG_VERSION ||
	    h.tid != t->tid || h.rows != t->rows || h.hot > t->hot ||
	    h.payload != (uint64_t)t->rows * 4 + (uint64_t)h.hot * 8 ||
	    bytes > (uint64_t)m->img_pages * pb || fio_crc32c(0, img, bytes) != m->img_crc) {
		ret = -EIO;
		goto out;
	}
	memcpy(m->ht.a, img + sizeof(h), (size_t)t->rows * 4);
	for (k = 0; k < t->rows; k++)
		if (m->ht.a[k] >= slots) {
			ret = -EIO;
			goto out;
		}
	w = (uint32_t *)(void *)(img + sizeof(h) + (size_t)t->rows * 4);
	for (i = 0; i < h.hot; i++) {
		k = w[i];
		if (k >= t->rows || (seen[k >> 3] >> (k & 7) & 1)) {
			ret = -EIO;
			goto out;
		}
		seen[k >> 3] |= (uint8_t)(1u << (k & 7));
		rf_ht_append(&m->ht, k, w[h.hot + i]);
	}
	for (k = 0; k < t->rows; k++)
		if (!(seen[k >> 3] >> (k & 7) & 1))
			rf_ht_append(&m->ht, k, 0);
	rf_ht_threshold(&m->ht);
	m->ht.cmps = m->ht.ptr_ops = 0;
out:
	free(img);
	free(seen);
	return ret;
}

static int rf_load_one(struct rf_eng *e, const struct rf_meta_rec *r,
		       const struct rf_run *runs, char *err, size_t errlen)
{
	struct isp_cpl cpl;
	struct rf_table *t, **pp;
	struct fs_region reg;
	struct rf_area *ar;
	struct rf_map *m = NULL;
	uint64_t dram_track, dram_l2p, dram_map;
	int ret;

	memset(&cpl, 0, sizeof(cpl));
	if (rf_check_create(e, &r->cr, &cpl) || fs_region_get(e->fs, r->region_id, &reg) ||
	    (reg.owner >> 32) != (RF_OWNER_TAG >> 32) || r->nruns > RF_MAX_RUNS) {
		snprintf(err, errlen, "RecFlash table %u: metadata does not match the flash",
			 r->cr.tid);
		return -EIO;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->cr = r->cr;
	rf_derive(e, t);
	pthread_mutex_init(&t->tlock, NULL);
	t->state = ISP_RF_READY;
	t->received[ISP_RF_SEC_ROWS] = rf_sec_size(t, ISP_RF_SEC_ROWS);
	t->received[ISP_RF_SEC_PROFILE] = rf_sec_size(t, ISP_RF_SEC_PROFILE);
	dram_map = rf_map_dram(t);
	dram_track = t->mode == ISP_RF_RECFLASH ?
		     rf_track_bytes(t->rows < RF_TRACK_MAX_KEYS ? t->rows : RF_TRACK_MAX_KEYS) : 0;
	dram_l2p = t->mode == ISP_RF_RECFLASH ? 0 : t->data_pages * 4;
	ar = rf_area_wrap(e, &reg);
	if (!ar) {
		ret = -ENOMEM;
		goto fail;
	}
	rf_area_scan(e, ar);
	ret = rf_map_new(e, t, ar, t->mode == ISP_RF_RECFLASH, &m);
	ar->refs--;	/* the map holds the area now */
	if (ret) {
		free(ar->wp);
		free(ar);
		goto fail;
	}
	m->gen = r->gen;
	m->img_pages = r->img_pages;
	m->img_crc = r->img_crc;
	m->nruns = r->nruns;
	memcpy(m->run, runs, r->nruns * sizeof(*runs));
	if (t->mode == ISP_RF_RECFLASH) {
		if (r->img_pages) {
			ret = rf_load_image(e, t, m);
		} else {
			uint32_t k;

			for (k = 0; k < t->rows; k++) {
				m->ht.a[k] = k;
				rf_ht_append(&m->ht, k, 0);
			}
			rf_ht_threshold(&m->ht);
		}
		if (ret) {
			snprintf(err, errlen, "RecFlash table %u: mapping image in flash is "
				 "corrupt", t->tid);
			goto fail_map;
		}
		ret = rf_map_top(e, t, m);
		if (ret) {
			snprintf(err, errlen, "RecFlash table %u: out of memory", t->tid);
			goto fail_map;
		}
	} else if (r->img_pages) {
		ret = -EIO;
		snprintf(err, errlen, "RecFlash table %u: metadata corrupt", t->tid);
		goto fail_map;
	}
	t->active = m;
	ret = fs_dram_reserve(e->fs, "rf-map", dram_map);
	if (!ret && (ret = fs_dram_reserve(e->fs, "rf-track", dram_track)))
		fs_dram_release(e->fs, "rf-map", dram_map);
	if (!ret && (ret = fs_dram_reserve(e->fs, "rf-l2p", dram_l2p))) {
		fs_dram_release(e->fs, "rf-map", dram_map);
		fs_dram_release(e->fs, "rf-track", dram_track);
	}
	if (ret) {
		snprintf(err, errlen, "RecFlash table %u does not fit in controller DRAM "
			 "(dram_bytes)", t->tid);
		goto fail_map;
	}
	t->dram_fixed = dram_map + dram_track + dram_l2p;
	ret = rf_track_init(&t->track, dram_track ? (t->rows < RF_TRACK_MAX_KEYS ?
			    t->rows : RF_TRACK_MAX_KEYS) : 0);
	if (ret)
		goto fail_tbl;
	for (pp = &e->tables; *pp && (*pp)->tid < t->tid; pp = &(*pp)->next)
		;
	if (*pp && (*pp)->tid == t->tid) {
		snprintf(err, errlen, "RecFlash table %u listed twice in the metadata", t->tid);
		ret = -EIO;
		goto fail_tbl;
	}
	t->next = *pp;
	*pp = t;
	e->ntables++;
	return 0;

fail_tbl:
	if (t->dram_fixed) {
		fs_dram_release(e->fs, "rf-map", dram_map);
		fs_dram_release(e->fs, "rf-track", dram_track);
		fs_dram_release(e->fs, "rf-l2p", dram_l2p);
	}
	rf_track_free(&t->track);
fail_map:
	/* Only our memory: the committed region stays in the store. */
	t->active = NULL;
	rf_ht_free(&m->ht);
	free(m->top);
	free(m->area->wp);
	free(m->area);
	free(m);
fail:
	pthread_mutex_destroy(&t->tlock);
	free(t);
	return ret ? ret : -EIO;
}

int rf_load(struct rf_eng *e, const void *blob, size_t len, char *err, size_t errlen)
{
	const uint8_t *b = blob;
	struct rf_meta_hdr h;
	struct fs_region *regs = NULL;
	size_t off = sizeof(h);
	uint32_t i;
	int n, j, ret = 0;

	if (len) {
		if (len < sizeof(h)) {
			snprintf(err, errlen, "RecFlash metadata truncated");
			return -EIO;
		}
		memcpy(&h, b, sizeof(h));
		if (h.magic != RF_META_MAGIC || h.version != RF_META_VERSION ||
		    h.ntables > RF_MAX_TABLES) {
			snprintf(err, errlen, "RecFlash metadata of an unknown version");
			return -EIO;
		}
		for (i = 0; i < h.ntables && !ret; i++) {
			struct rf_meta_rec r;
			struct rf_run runs[RF_MAX_RUNS];

			if (len - off < sizeof(r)) {
				snprintf(err, errlen, "RecFlash metadata truncated");
				return -EIO;
			}
			memcpy(&r, b + off, sizeof(r));
			off += sizeof(r);
			if (r.nruns > RF_MAX_RUNS ||
			    len - off < r.nruns * sizeof(struct rf_run)) {
				snprintf(err, errlen, "RecFlash metadata truncated");
				return -EIO;
			}
			memcpy(runs, b + off, r.nruns * sizeof(struct rf_run));
			off += r.nruns * sizeof(struct rf_run);
			ret = rf_load_one(e, &r, runs, err, errlen);
		}
		if (ret)
			return ret;
	}
	/* Regions of deploys or remaps that never reached a commit. */
	n = fs_region_list(e->fs, NULL, 0);
	if (n > 0) {
		regs = calloc((size_t)n, sizeof(*regs));
		if (!regs)
			return -ENOMEM;
		n = fs_region_list(e->fs, regs, (size_t)n);
		for (j = 0; j < n; j++) {
			struct rf_table *t;
			int used = 0;

			if ((regs[j].owner >> 32) != (RF_OWNER_TAG >> 32))
				continue;
			for (t = e->tables; t && !used; t = t->next)
				used = t->active && t->active->area->reg.id == regs[j].id;
			if (!used)
				fs_region_free(e->fs, regs[j].id);
		}
		free(regs);
	}
	return 0;
}
