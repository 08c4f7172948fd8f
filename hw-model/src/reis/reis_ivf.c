/* SPDX-License-Identifier: MIT */
/*
 * reis_ivf.c - the IVF coarse search over R-IVF (REIS §4.2, §4.3.1): the
 * query's Hamming distance to every centroid page, the nprobe nearest
 * clusters (explicit, or from the calibration table for a target recall),
 * and the binary pages and entry segments those clusters occupy.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reis_int.h"

static int re_visits_grow(struct re_visits *vs)
{
	if (vs->nv == vs->cap_v) {
		uint64_t n = vs->cap_v ? vs->cap_v * 2 : 256;
		struct re_visit *v = realloc(vs->v, n * sizeof(*v));
		uint64_t *o;

		if (!v)
			return -ENOMEM;
		vs->v = v;
		o = realloc(vs->ord, n * sizeof(*o));
		if (!o)
			return -ENOMEM;
		vs->ord = o;
		vs->cap_v = n;
	}
	if (vs->ns == vs->cap_s) {
		uint64_t n = vs->cap_s ? vs->cap_s * 2 : 256;
		struct re_seg *s = realloc(vs->s, n * sizeof(*s));

		if (!s)
			return -ENOMEM;
		vs->s = s;
		vs->cap_s = n;
	}
	return 0;
}

int re_visits_build(struct re_visits *vs, const uint64_t *cfirst, const uint32_t *probe,
		    const uint32_t *cdist, uint32_t np, uint32_t epb)
{
	uint32_t i;

	vs->nv = vs->ns = 0;
	for (i = 0; i < np; i++) {
		uint64_t a = cfirst[probe[i]], b = cfirst[probe[i] + 1], e = a;

		while (e < b) {
			uint64_t page = e / epb, base = page * epb;
			uint32_t lo = (uint32_t)(e - base);
			uint32_t hi = (uint32_t)(b - base < epb ? b - base : epb);
			struct re_visit *v;

			if (re_visits_grow(vs))
				return -ENOMEM;
			if (vs->nv && vs->v[vs->nv - 1].page == page) {
				v = &vs->v[vs->nv - 1];
				if (vs->s[vs->ns - 1].hi == lo) {
					vs->s[vs->ns - 1].hi = hi;
				} else {
					vs->s[vs->ns].lo = lo;
					vs->s[vs->ns++].hi = hi;
					v->nseg++;
				}
			} else {
				v = &vs->v[vs->nv++];
				v->page = page;
				v->seg0 = vs->ns;
				v->nseg = 1;
				v->nent = 0;
				v->near = UINT32_MAX;
				vs->s[vs->ns].lo = lo;
				vs->s[vs->ns++].hi = hi;
			}
			v->nent += hi - lo;
			if (cdist && cdist[i] < v->near)
				v->near = cdist[i];
			e = base + hi;
		}
	}
	/*
	 * The host scans the pages nearest-centroid first so TTL-E's bound
	 * tightens early; re_fine() still charges them in this page order.
	 */
	for (i = 0; i < vs->nv; i++)
		vs->ord[i] = (uint64_t)(cdist ? vs->v[i].near : 0) << 32 | i;
	if (cdist && vs->nv)	/* every probed cluster may be empty: ord is NULL */
		re_sort_u64(vs->ord, vs->nv);
	return 0;
}

void re_visits_free(struct re_visits *vs)
{
	free(vs->v);
	free(vs->s);
	free(vs->ord);
	memset(vs, 0, sizeof(*vs));
}

/* By cluster: the low 32 bits of the key (clusters are unique). */
static int re_cand_cluster_cmp(const void *a, const void *b)
{
	uint32_t x = (uint32_t)((const struct re_cand *)a)->key;
	uint32_t y = (uint32_t)((const struct re_cand *)b)->key;

	return x < y ? -1 : x > y;
}

/* @v[0..n) by cluster: insertion for the nprobe of a search, qsort beyond. */
static void re_cand_by_cluster(struct re_cand *v, uint32_t n)
{
	uint32_t i, j;

	if (n > 64) {
		qsort(v, n, sizeof(*v), re_cand_cluster_cmp);
		return;
	}
	for (i = 1; i < n; i++) {
		struct re_cand x = v[i];

		for (j = i; j > 0 && (uint32_t)v[j - 1].key > (uint32_t)x.key; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* nprobe of @db: explicit, or from its calibration table. */
uint32_t re_nprobe(const struct re_run *r, const struct re_db *db)
{
	uint32_t np = r->nprobe, i;

	if (!np) {
		np = db->calib[db->c.ncalib - 1].nprobe;
		for (i = 0; i < db->c.ncalib; i++) {
			if (db->calib[i].recall >= r->target) {
				np = db->calib[i].nprobe;
				break;
			}
		}
	}
	return np < db->c.nlist ? np : db->c.nlist;
}

/* Centroid pages mapped under one read guard: with the centroids spread
 * over every plane (REIS 4.1.1) a page holds one or a few of them, and a
 * guard and an address a page cost more than the page's scan. */
#define RE_CMAP 32u

/* The centroids of page @pg (@p, @oob) below TTL-C's bound into it. */
static void re_coarse_page(struct re_run *r, const struct re_layout *L, uint32_t nlist,
			   uint64_t pg, const uint8_t *p, const uint8_t *oob)
{
	uint64_t left = nlist - pg * L->cpb;
	uint32_t cnt = (uint32_t)(left < L->cpb ? left : L->cpb), j, nc, below = 0;

	/* TTL-C: DIST, EMB, EADR, TAG; only centroids below its bound. */
	nc = r->e->scan(r->qw, p, L->cb, L->cb / 8, cnt, re_topc_lim(r->ctop), UINT32_MAX,
			r->sidx, r->sdist, &below);
	for (j = 0; j < nc; j++)
		re_topc_add(r->ctop, re_key(r->sdist[j], pg * L->cpb + r->sidx[j]),
			    oob[r->sidx[j]], 0);
}

/* Centroid pages [@pg0, @pg0 + @n) in place under one guard; 1 when one
 * of them must be copied (the caller maps them one by one), -EIO. */
static int re_coarse_pages(struct re_run *r, struct re_db *db, uint64_t pg0, uint32_t n)
{
	struct re_eng *e = r->e;
	const struct re_layout *L = &db->L;
	const uint8_t *pd[RE_CMAP], *po[RE_CMAP];
	uint64_t ppa[RE_CMAP] = { 0 };	/* n of them are set */
	uint32_t i;
	int ret;

	for (i = 0; i < n; i++)
		if (fs_region_ppa(e->fs, &db->slc, L->c_first + pg0 + i, &ppa[i]))
			return -EIO;
	ret = re_map_many(e, n, ppa, pd, po);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		if (i + 2 < n) {	/* the pages lie apart: start the next loads */
			__builtin_prefetch(pd[i + 2]);
			__builtin_prefetch(po[i + 2]);
		}
		re_coarse_page(r, L, db->c.nlist, pg0 + i, pd[i], po[i]);
	}
	fs_page_unmap(e->fs);
	return 0;
}

/*
 * IVF coarse search (REIS §4.3.1), the host's part: the query's distance
 * to every centroid, the nprobe nearest (TTL-C) into r->probe, their pages
 * into r->vs; the clusters found in *@np_out.
 */
int re_coarse_host(struct re_run *r, struct re_db *db, uint32_t *np_out)
{
	struct re_eng *e = r->e;
	const struct re_layout *L = &db->L;
	uint32_t np = re_nprobe(r, db), i, n, k;
	const uint8_t *p, *oob;
	uint64_t pg, ppa;
	int ret;

	re_topc_reset(r->ctop, np, L->dim);
	for (pg = 0; pg < L->cpages; pg += n) {
		n = L->cpages - pg < RE_CMAP ? (uint32_t)(L->cpages - pg) : RE_CMAP;
		if (isp_ctx_cancelled(r->ctx))
			return -ECANCELED;	/* isp_dev_exec_cancel() */
		ret = re_coarse_pages(r, db, pg, n);
		if (ret < 0)
			return ret;
		for (k = 0; ret && k < n; k++) {	/* copies: one at a time */
			if (re_map_page(e, &db->slc, L->c_first + pg + k, r->page, &p, &oob, &ppa))
				return -EIO;
			re_coarse_page(r, L, db->c.nlist, pg + k, p, oob);
			fs_page_unmap(e->fs);
		}
	}
	n = re_topc_finish(r->ctop, 0);
	/* Cluster order (probe[] ascending), each with its distance. */
	re_cand_by_cluster(r->ctop->v, n);
	for (i = 0; i < n; i++) {
		uint32_t cl = (uint32_t)r->ctop->v[i].key;

		/* The tag from the centroid page's OOB names the R-IVF entry. */
		if (cl >= db->c.nlist || r->ctop->v[i].radr != (cl & 0xffu))
			return -EIO;
		r->probe[i] = cl;
		r->cdist[i] = (uint32_t)(r->ctop->v[i].key >> 32);
	}
	if (re_visits_build(r->vs, db->cfirst, r->probe, r->cdist, n, L->epb))
		return -ENOMEM;
	*np_out = n;
	return 0;
}

/*
 * Its charges from @t: every centroid page (REIS §4.3.1), with DF the
 * nprobe kept spread over them (A26), then the R-IVF entries into DRAM;
 * the end in *@tend. The planes are the centroid pages' (r->cplane).
 */
void re_coarse_cost(struct re_run *r, struct re_db *db, uint64_t t, uint64_t *tend)
{
	const struct re_layout *L = &db->L;
	uint32_t np = re_nprobe(r, db), thr;
	uint64_t pg, cum = 0, sent = 0, tot;
	/* DF compares each centroid in-die and sends the nprobe kept (A26). */
	int df = re_filter_threshold(r, db, &thr);

	re_cost_phase(&r->c, t, np, L->ttl_c, (uint32_t)df);
	for (pg = 0; pg < L->cpages; pg++) {
		uint64_t left = db->c.nlist - pg * L->cpb;
		uint32_t cnt = (uint32_t)(left < L->cpb ? left : L->cpb);

		cum += cnt;
		tot = df ? re_cost_coarse_passed(cum, np, db->c.nlist) : cum;
		re_cost_page(&r->c, r->cplane[pg], cnt, (uint32_t)(tot - sent));
		sent = tot;
	}
	t = re_cost_phase_end(&r->c);
	*tend = ft_dram(r->e->ft, r->c.cmd, (uint64_t)np * RE_RIVF_BYTES, t);	/* R-IVF */
}

/* The planes of @db's centroid pages into r->cplane, once per command. */
int re_coarse_planes(struct re_run *r, struct re_db *db)
{
	const struct re_layout *L = &db->L;
	uint64_t pg, ppa;

	for (pg = 0; pg < L->cpages; pg++) {
		if (fs_region_ppa(r->e->fs, &db->slc, L->c_first + pg, &ppa))
			return -EIO;
		r->cplane[pg] = fg_ppa_plane(r->e->g, ppa);
	}
	return 0;
}
