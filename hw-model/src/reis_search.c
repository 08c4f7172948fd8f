/* SPDX-License-Identifier: MIT */
/*
 * reis_search.c - SEARCH, IVF_SEARCH, DOC_READ and META_READ
 * (docs/command-set.md section 4; REIS 4.3, 7.1).
 *
 * A search really computes on the stored pages: every binary page of the
 * searched range is read back with fs_read() (codes and OOB), Hamming
 * distances come from XOR + popcount against the query, the tag and the
 * distance filter decide what "crosses the channel", RADR and DADR come
 * from the OOB, INT8 codes are read through RADR for the rerank, documents
 * through DADR. The modeled time is charged per page with the counts of
 * that page (reis_cost.c), never per entry.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reis_int.h"

static uint64_t re_max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint32_t re_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* One hit while a search runs. */
struct re_hitx {
	uint64_t key;		/* Hamming << 32 | entry index */
	int64_t score;
	uint64_t id;
	struct re_db *db;
	uint32_t dadr;
	uint32_t metric;
};

/* Rerank order of one candidate. */
struct re_rk {
	int64_t score;
	uint64_t key;
	uint32_t metric;
	uint32_t i;
};

struct re_run {
	struct re_eng *e;
	struct isp_ctx *ctx;
	struct re_cost c;
	int ivf, df_dev, mpibc, rerank, tag;
	uint32_t flags, k, factor, qtag, nprobe, target, thr;
	uint8_t *page;		/* one page slot: data + OOB */
	uint16_t *dist;
	uint64_t *qw;		/* the binary query, aligned */
	int8_t *code;		/* one INT8 code */
	struct re_topc top, ctop;
	struct re_visits vs;
	uint32_t *probe;
	struct re_pcount *pc;
	struct re_rk *rk;
	uint64_t reranked;
	uint64_t fine_cmp, fine_pass;
	uint32_t nprobe_used;
};

static int re_rk_cmp(const void *a, const void *b)
{
	const struct re_rk *x = a, *y = b;

	if (x->score != y->score) {
		if (x->metric == ISP_REIS_IP)
			return x->score > y->score ? -1 : 1;
		return x->score < y->score ? -1 : 1;
	}
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Final order: score, Hamming, database id, entry index. */
static int re_hit_cmp(const void *a, const void *b)
{
	const struct re_hitx *x = a, *y = b;
	uint32_t hx = (uint32_t)(x->key >> 32), hy = (uint32_t)(y->key >> 32);
	uint32_t dx = x->db->c.did, dy = y->db->c.did;
	uint32_t ix = (uint32_t)x->key, iy = (uint32_t)y->key;

	if (x->score != y->score) {
		if (x->metric == ISP_REIS_IP)
			return x->score > y->score ? -1 : 1;
		return x->score < y->score ? -1 : 1;
	}
	if (hx != hy)
		return hx < hy ? -1 : 1;
	if (dx != dy)
		return dx < dy ? -1 : 1;
	return ix < iy ? -1 : ix > iy;
}

static int re_u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t re_cand_count(const struct re_run *r, const struct re_db *db)
{
	uint64_t c = r->rerank ? (uint64_t)r->factor * r->k : r->k;

	return c < db->c.n ? c : db->c.n;
}

/* nprobe of @db: explicit, or from its calibration table. */
static uint32_t re_nprobe(const struct re_run *r, const struct re_db *db)
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

/*
 * Read entries [@lo, @hi) of a page of @unit-byte codes with @oob_unit OOB
 * bytes each into @buf at their page offsets (the page buffer holds
 * exactly what the dies sensed for them; the rest is not copied).
 */
static int re_read_page(struct re_eng *e, const struct fs_region *reg, uint64_t lpage,
			uint32_t lo, uint32_t hi, uint32_t unit, uint32_t oob_unit,
			uint8_t *buf, uint64_t *ppa)
{
	uint32_t pb = e->p->page_bytes;

	if (fs_region_ppa(e->fs, reg, lpage, ppa))
		return -EIO;
	if (fs_read(e->fs, *ppa, lo * unit, buf + (size_t)lo * unit, (hi - lo) * unit))
		return -EIO;
	if (oob_unit && fs_read(e->fs, *ppa, pb + lo * oob_unit, buf + pb + (size_t)lo * oob_unit,
				(hi - lo) * oob_unit))
		return -EIO;
	return 0;
}

/* IVF coarse search (REIS 4.3.1): the nprobe nearest centroids into probe[]. */
static int re_coarse(struct re_run *r, struct re_db *db, uint64_t t, uint64_t *tend,
		     uint32_t *np_out)
{
	struct re_eng *e = r->e;
	const struct re_layout *L = &db->L;
	uint32_t np = re_nprobe(r, db), words = L->cb / 8, i, j, n;
	uint64_t pg, ppa;

	re_topc_reset(&r->ctop, np);
	re_cost_phase(&r->c, t, np, L->ttl_c, 0);
	for (pg = 0; pg < L->cpages; pg++) {
		uint64_t left = db->c.nlist - pg * L->cpb;
		uint32_t cnt = (uint32_t)(left < L->cpb ? left : L->cpb);

		if (re_read_page(e, &db->slc, L->c_first + pg, 0, cnt, L->cb, RE_CTAG_BYTES,
				 r->page, &ppa))
			return -EIO;
		e->ham(r->qw, r->page, L->cb, words, cnt, r->dist);
		for (j = 0; j < cnt; j++)	/* TTL-C: DIST, EMB, EADR, TAG */
			re_topc_add(&r->ctop, re_key(r->dist[j], pg * L->cpb + j),
				    r->page[e->p->page_bytes + j], 0);
		re_cost_page(&r->c, fg_ppa_plane(e->g, ppa), cnt, cnt);
	}
	t = re_cost_phase_end(&r->c);
	t = ft_dram(e->ft, r->c.cmd, (uint64_t)np * RE_RIVF_BYTES, t);	/* R-IVF */
	n = re_topc_finish(&r->ctop);
	for (i = 0; i < n; i++) {
		uint32_t cl = (uint32_t)r->ctop.v[i].key;

		/* The tag from the centroid page's OOB names the R-IVF entry. */
		if (cl >= db->c.nlist || r->ctop.v[i].radr != (cl & 0xffu))
			return -EIO;
		r->probe[i] = cl;
	}
	qsort(r->probe, n, sizeof(*r->probe), re_u32_cmp);
	if (re_visits_build(&r->vs, db->cfirst, r->probe, n, L->epb))
		return -ENOMEM;
	*np_out = n;
	*tend = t;
	return 0;
}

/* Fine search of one binary page: entries in @segs[0..nseg). */
static int re_fine_page(struct re_run *r, struct re_db *db, uint64_t pg,
			const struct re_seg *segs, uint32_t nseg, int df, uint32_t thr)
{
	struct re_eng *e = r->e;
	const struct re_layout *L = &db->L;
	const uint8_t *oob = r->page + e->p->page_bytes;
	uint32_t lo = segs[0].lo, hi = segs[nseg - 1].hi, s, j, ncmp = 0, npass = 0;
	uint64_t ppa;

	if (re_read_page(e, &db->slc, L->b_first + pg, lo, hi, L->cb, L->oob_entry, r->page,
			 &ppa))
		return -EIO;
	e->ham(r->qw, r->page + (size_t)lo * L->cb, L->cb, L->cb / 8, hi - lo, r->dist);
	for (s = 0; s < nseg; s++) {
		for (j = segs[s].lo; j < segs[s].hi; j++) {
			const uint8_t *o = oob + (size_t)j * L->oob_entry;
			uint32_t d = r->dist[j - lo];

			ncmp++;
			if (r->tag && re_get32(o + L->tag_off) != r->qtag)
				continue;	/* metadata filter in the die (7.1) */
			if (df && d >= thr)
				continue;	/* distance filter (4.3.3) */
			npass++;
			re_topc_add(&r->top, re_key(d, pg * L->epb + j),
				    L->radr_off != UINT32_MAX ? re_get32(o + L->radr_off) :
				    RE_ADDR_NONE,
				    L->dadr_off != UINT32_MAX ? re_get32(o + L->dadr_off) :
				    RE_ADDR_NONE);
		}
	}
	re_cost_page(&r->c, fg_ppa_plane(e->g, ppa), ncmp, npass);
	r->fine_cmp += ncmp;
	r->fine_pass += npass;
	return 0;
}

static int64_t re_score(uint32_t metric, const int8_t *q, const int8_t *x, uint32_t dim)
{
	int64_t s = 0;
	uint32_t d;

	if (metric == ISP_REIS_IP) {
		for (d = 0; d < dim; d++)
			s += (int32_t)q[d] * x[d];
	} else {
		for (d = 0; d < dim; d++) {
			int32_t v = (int32_t)q[d] - x[d];

			s += v * v;
		}
	}
	return s;
}

/* One query on one database: hits into @out (at most k), best first. */
static int re_query_db(struct re_run *r, struct re_db *db, const uint8_t *qbin,
		       const int8_t *q8, uint64_t tq, struct re_hitx *out, uint32_t *nout,
		       uint64_t *tend)
{
	struct re_eng *e = r->e;
	const struct re_layout *L = &db->L;
	struct ft *ft = e->ft;
	struct ft_cmd *cmd = r->c.cmd;
	uint32_t thr = r->thr ? r->thr : db->c.df_threshold, m, h, nh, i;
	int df = r->df_dev && thr != 0;
	uint64_t t, cand = re_cand_count(r, db), pg;
	struct re_seg whole;
	size_t npc;
	int ret;

	memcpy(r->qw, qbin, L->cb);
	t = ft_ibc_all(ft, cmd, L->ibc_bytes, r->mpibc, tq);	/* IBC (4.3.2) */
	if (r->ivf) {
		uint32_t np;

		ret = re_coarse(r, db, t, &t, &np);
		if (ret)
			return ret;
		if (np > r->nprobe_used)
			r->nprobe_used = np;
	}
	re_topc_reset(&r->top, (uint32_t)cand);
	re_cost_phase(&r->c, t, cand, L->ttl_e, (uint32_t)(df + r->tag));
	if (r->ivf) {
		for (i = 0; i < r->vs.nv; i++) {
			const struct re_visit *v = &r->vs.v[i];

			ret = re_fine_page(r, db, v->page, r->vs.s + v->seg0, v->nseg, df, thr);
			if (ret)
				return ret;
		}
	} else {
		for (pg = 0; pg < L->bpages; pg++) {
			uint64_t left = db->c.n - pg * L->epb;

			whole.lo = 0;
			whole.hi = (uint32_t)(left < L->epb ? left : L->epb);
			ret = re_fine_page(r, db, pg, &whole, 1, df, thr);
			if (ret)
				return ret;
		}
	}
	t = re_cost_phase_end(&r->c);
	m = re_topc_finish(&r->top);

	if (r->rerank) {
		/* INT8 rerank (4.3.2): RADR reads, rescoring, quicksort. */
		for (i = 0; i < m; i++) {
			uint32_t radr = r->top.v[i].radr, slot, rel;
			uint64_t ppa, lp;

			rel = radr >> L->rbits;
			slot = radr & ((1u << L->rbits) - 1);
			if (radr == RE_ADDR_NONE || rel >= L->ipages || slot >= L->ipb)
				return -EIO;
			lp = L->i_first + rel;
			if (fs_region_ppa(e->fs, &db->tlc, lp, &ppa) ||
			    fs_read(e->fs, ppa, slot * L->dim, r->code, L->dim))
				return -EIO;
			r->rk[i].score = re_score(db->c.metric, q8, r->code, L->dim);
			r->rk[i].key = r->top.v[i].key;
			r->rk[i].metric = db->c.metric;
			r->rk[i].i = i;
			r->pc[i].key = lp;
			r->pc[i].plane = fg_ppa_plane(e->g, ppa);
			r->pc[i].count = 1;
		}
		npc = re_pcount_merge(r->pc, m);
		t = re_cost_entry_reads(&r->c, r->pc, npc, e->g->native_mode, L->dim, t);
		t = ft_core(ft, cmd, FT_CORE_ISP, ft_cycles_rerank(e->p, m, L->dim), "rerank", t);
		t = ft_core(ft, cmd, FT_CORE_ISP, ft_cycles_sort(e->p, m), "sort", t);
		qsort(r->rk, m, sizeof(*r->rk), re_rk_cmp);
		r->reranked += m;
	} else {
		t = ft_core(ft, cmd, FT_CORE_ISP, ft_cycles_sort(e->p, m), "sort", t);
		for (i = 0; i < m; i++) {
			r->rk[i].score = 0;
			r->rk[i].key = r->top.v[i].key;
			r->rk[i].i = i;
		}
	}
	nh = m < r->k ? m : r->k;
	for (h = 0; h < nh; h++) {
		const struct re_cand *cd = &r->top.v[r->rk[h].i];

		out[h].key = cd->key;
		out[h].score = r->rk[h].score;
		out[h].db = db;
		out[h].dadr = cd->dadr;
		out[h].metric = db->c.metric;
		out[h].id = (uint32_t)cd->key;
	}
	if (db->c.flags & ISP_REIS_DBF_IDS) {
		for (h = 0; h < nh; h++) {
			uint64_t idx = (uint32_t)out[h].key, lp = L->id_first + idx / L->idpp, ppa;

			if (fs_region_ppa(e->fs, &db->tlc, lp, &ppa) ||
			    fs_read(e->fs, ppa, (uint32_t)(idx % L->idpp) * RE_ID_BYTES,
				    &out[h].id, RE_ID_BYTES))
				return -EIO;
			r->pc[h].key = lp;
			r->pc[h].plane = fg_ppa_plane(e->g, ppa);
			r->pc[h].count = 1;
		}
		npc = re_pcount_merge(r->pc, nh);
		t = re_cost_entry_reads(&r->c, r->pc, npc, e->g->native_mode, RE_ID_BYTES, t);
	}
	*nout = nh;
	*tend = t;
	return 0;
}

/* ---- documents, charged when RESULT_READ moves them (REIS 4.4.1) ---- */

struct re_doc_cost {
	uint64_t off;
	uint32_t len;
	uint32_t plane;
	uint32_t mode;
	uint32_t charged;
};

struct re_docs_cost {
	pthread_mutex_t lock;
	struct ft *ft;
	uint32_t n;
	struct re_doc_cost d[];
};

static void re_docs_charge(void *opaque, uint64_t off, uint64_t len, void *cost)
{
	struct re_docs_cost *dc = opaque;
	struct isp_ctx *ctx = cost;
	uint32_t lo = 0, hi = dc->n, i;

	/* First document ending after @off. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (dc->d[mid].off + dc->d[mid].len <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	pthread_mutex_lock(&dc->lock);
	for (i = lo; i < dc->n && dc->d[i].off < off + len; i++) {
		struct ft_page_op op;
		uint64_t t;

		if (dc->d[i].charged)
			continue;
		dc->d[i].charged = 1;
		memset(&op, 0, sizeof(op));
		op.mode = dc->d[i].mode;
		op.n_dout = 1;
		op.dout_bytes = dc->d[i].len;
		t = ft_page_read(dc->ft, &ctx->ftc, dc->d[i].plane, &op, ctx->ready);
		ft_dram(dc->ft, &ctx->ftc, dc->d[i].len, t);
	}
	pthread_mutex_unlock(&dc->lock);
}

static void re_docs_cost_free(void *opaque)
{
	struct re_docs_cost *dc = opaque;

	if (!dc)
		return;
	pthread_mutex_destroy(&dc->lock);
	free(dc);
}

/* Document of DADR @dadr of @db: its page, chunk and length. */
static int re_doc_locate(struct re_eng *e, const struct re_db *db, uint32_t dadr,
			 uint64_t *ppa, uint32_t *chunk, uint32_t *len)
{
	const struct re_layout *L = &db->L;
	uint32_t rel = dadr >> L->dbits, slot = dadr & ((1u << L->dbits) - 1);

	if (dadr == RE_ADDR_NONE || rel >= L->dpages || slot >= L->cpp ||
	    fs_region_ppa(e->fs, &db->tlc, L->d_first + rel, ppa) ||
	    fs_read(e->fs, *ppa, e->p->page_bytes + slot * RE_DLEN_BYTES, len, 4) ||
	    *len > L->chunk_bytes)
		return -EIO;
	*chunk = slot;
	return 0;
}

/* ---- SEARCH / IVF_SEARCH ---- */

static void re_unref(struct re_eng *e, struct re_db **dbs, uint32_t n)
{
	uint32_t i;

	pthread_mutex_lock(&e->lock);
	for (i = 0; i < n; i++)
		dbs[i]->refs--;
	pthread_mutex_unlock(&e->lock);
}

static int re_db_did_cmp(const void *a, const void *b)
{
	uint32_t x = (*(struct re_db *const *)a)->c.did, y = (*(struct re_db *const *)b)->c.did;

	return x < y ? -1 : x > y;
}

static void re_run_free(struct re_run *r)
{
	free(r->page);
	free(r->dist);
	free(r->qw);
	free(r->code);
	free(r->probe);
	free(r->pc);
	free(r->rk);
	re_topc_free(&r->top);
	re_topc_free(&r->ctop);
	re_visits_free(&r->vs);
}

static int re_run_alloc(struct re_run *r, struct re_db **dbs, uint32_t ndbs)
{
	uint64_t cand = 1, per = 1, np = 1, need;
	uint32_t i;

	for (i = 0; i < ndbs; i++) {
		const struct re_layout *L = &dbs[i]->L;

		cand = re_max(cand, re_cand_count(r, dbs[i]));
		per = re_max(per, re_max(L->epb, L->cpb));
		if (r->ivf)
			np = re_max(np, re_nprobe(r, dbs[i]));
	}
	need = re_max(cand, r->k);
	r->page = malloc(fs_slot_bytes(r->e->fs));
	r->dist = malloc(per * sizeof(*r->dist));
	r->qw = malloc(ISP_REIS_MAX_DIM / 8);
	r->code = malloc(ISP_REIS_MAX_DIM);
	r->probe = malloc(np * sizeof(*r->probe));
	r->pc = malloc(need * sizeof(*r->pc));
	r->rk = malloc(need * sizeof(*r->rk));
	if (!r->page || !r->dist || !r->qw || !r->code || !r->probe || !r->pc || !r->rk ||
	    re_topc_init(&r->top, (uint32_t)cand) || re_topc_init(&r->ctop, (uint32_t)np))
		return -ENOMEM;
	return 0;
}

/* Look up the database or the group's partitions and take references. */
static uint16_t re_acquire(struct re_eng *e, const struct isp_wire_reis_search *s,
			   struct re_db **dbs, uint32_t *ndbs, const char **why)
{
	uint32_t i, n = 0;
	uint16_t st = 0;

	pthread_mutex_lock(&e->lock);
	if (s->flags & ISP_REIS_SF_GROUP) {
		/* REIS 7.1: every READY partition of the group whose timestamp
		 * lies in [t_min, t_max]. */
		for (i = 0; i < e->ndb; i++) {
			struct re_db *db = e->db[i];

			if (s->did && db->c.group == s->did && db->state == RE_READY &&
			    db->c.timestamp >= s->t_min && db->c.timestamp <= s->t_max)
				dbs[n++] = db;
		}
		if (!n) {
			st = ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR;
			*why = "no READY partition of the group in [t_min, t_max]";
		}
	} else {
		struct re_db *db;

		st = re_find_ready(e, s->did, &db, why);
		if (!st)
			dbs[n++] = db;
	}
	for (i = 0; i < n && !st; i++)
		dbs[i]->refs++;
	pthread_mutex_unlock(&e->lock);
	if (!st)
		qsort(dbs, n, sizeof(dbs[0]), re_db_did_cmp);
	*ndbs = st ? 0 : n;
	return st;
}

/* Checks of the request against the databases (immutable fields). */
static uint16_t re_check_dbs(const struct re_run *r, const struct isp_wire_reis_search *s,
			     struct re_db **dbs, uint32_t ndbs, size_t len, const char **why)
{
	uint64_t total = 0, need;
	uint32_t i;

	for (i = 0; i < ndbs; i++) {
		const struct re_db *db = dbs[i];

		if (s->dim != db->c.dim) {
			*why = "query dimension differs from the database's";
			return ISP_SC_DIM_MISMATCH | ISP_STATUS_DNR;
		}
		if (r->ivf && db->c.kind != ISP_REIS_IVF) {
			*why = "IVF_SEARCH on a brute-force database";
			return ISP_BAD_FIELD;
		}
		if (r->rerank && !(db->c.flags & ISP_REIS_DBF_INT8)) {
			*why = "rerank asked but the database has no INT8 codes";
			return ISP_BAD_FIELD;
		}
		if (r->tag && !(db->c.flags & ISP_REIS_DBF_TAGS)) {
			*why = "SF_TAG on a database without tags";
			return ISP_BAD_FIELD;
		}
		if (r->ivf && !r->nprobe && !db->c.ncalib) {
			*why = "nprobe 0 and no calibration table";
			return ISP_BAD_FIELD;
		}
		if (db->c.metric != dbs[0]->c.metric) {
			*why = "group partitions use different metrics";
			return ISP_BAD_FIELD;
		}
		if (r->thr > db->c.dim) {
			*why = "DF threshold larger than the dimension";
			return ISP_BAD_FIELD;
		}
		total += db->c.n;
	}
	if (r->k > total) {
		*why = "k larger than the database";
		return ISP_BAD_FIELD;
	}
	need = sizeof(*s) + (uint64_t)s->nq * (s->dim / 8 + (r->rerank ? s->dim : 0));
	if (len != need) {
		*why = "transfer length differs from header + queries";
		return ISP_BAD_FIELD;
	}
	return 0;
}

uint16_t re_cmd_search(struct re_eng *e, struct isp_ctx *ctx, const struct isp_cmd *cmd,
		       void *data, size_t len, struct isp_cpl *cpl, int ivf)
{
	struct isp_wire_reis_search s;
	struct isp_results *res = isp_dev_results(e->dev);
	struct re_db *dbs[RE_MAX_DBS];
	struct re_hitx *hits = NULL, *tmp = NULL;
	struct re_docs_cost *dc = NULL;
	struct re_run r;
	const char *why = NULL;
	const uint8_t *qb;
	const int8_t *q8;
	uint32_t ndbs = 0, q, i, ticket = cmd->cdw12, maxchunk = 0, ndocs = 0;
	uint64_t t, tq, end, bound, ttl = 0, blob_len, docs_bytes = 0, hits_bytes;
	uint8_t *blob = NULL;
	uint16_t st;
	int ret = 0, reserved = 0;

	memset(&r, 0, sizeof(r));
	if (!ticket)
		return isp_fail(cpl, ISP_BAD_FIELD, "ticket 0");
	if (cmd->cdw13 || cmd->cdw14 || cmd->cdw15)
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	if (len < sizeof(s))
		return isp_fail(cpl, ISP_BAD_FIELD, "transfer shorter than the search header");
	memcpy(&s, data, sizeof(s));
	if (!isp_all_zero(s.rsvd, sizeof(s.rsvd)))
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	if (s.flags & ~ISP_REIS_SF_ALL)
		return isp_fail(cpl, ISP_BAD_FIELD, "unknown search flags");
	if (!s.nq || s.nq > ISP_REIS_MAX_NQ)
		return isp_fail(cpl, ISP_BAD_FIELD, "nq out of range");
	if (!s.k || s.k > ISP_REIS_MAX_K)
		return isp_fail(cpl, ISP_BAD_FIELD, "k out of range");
	if (s.rerank_factor > ISP_REIS_MAX_RERANK)
		return isp_fail(cpl, ISP_BAD_FIELD, "rerank factor out of range");
	if (ivf && !s.nprobe && s.target_recall > 10000)
		return isp_fail(cpl, ISP_BAD_FIELD, "target recall above 1.0");
	if ((s.flags & ISP_REIS_SF_GROUP) && s.t_min > s.t_max)
		return isp_fail(cpl, ISP_BAD_FIELD, "t_min after t_max");

	r.e = e;
	r.ctx = ctx;
	r.ivf = ivf;
	r.flags = s.flags;
	r.k = s.k;
	r.factor = s.rerank_factor ? s.rerank_factor : RE_DEF_FACTOR;
	r.rerank = !(s.flags & ISP_REIS_SF_NO_RERANK);
	r.tag = (s.flags & ISP_REIS_SF_TAG) != 0;
	r.qtag = s.tag;
	r.nprobe = s.nprobe;
	r.target = s.target_recall;
	r.thr = s.df_threshold;
	r.df_dev = e->p->reis_df && !(s.flags & ISP_REIS_SF_NO_DF);
	r.mpibc = e->p->reis_mpibc && !(s.flags & ISP_REIS_SF_NO_MPIBC);

	t = isp_link_xfer(ctx, len, 0, ctx->ready);
	tq = ft_dram(e->ft, &ctx->ftc, len, t);	/* the queries land in DRAM */

	st = re_acquire(e, &s, dbs, &ndbs, &why);
	if (st)
		return isp_fail(cpl, st, why);
	st = re_check_dbs(&r, &s, dbs, ndbs, len, &why);
	if (st)
		goto fail;

	/* The ticket: refuse a duplicate before any work (section 6). */
	for (i = 0; i < ndbs; i++)
		if (dbs[i]->L.chunk_bytes > maxchunk)
			maxchunk = dbs[i]->L.chunk_bytes;
	hits_bytes = (uint64_t)s.nq * s.k * sizeof(struct isp_wire_reis_hit);
	bound = sizeof(struct isp_wire_result_hdr) + sizeof(struct isp_wire_reis_result) +
		hits_bytes + ((s.flags & ISP_REIS_SF_DOCS) ? (uint64_t)s.nq * s.k * maxchunk : 0);
	if (bound > res->max_bytes) {
		st = ISP_BAD_FIELD;
		why = "result would exceed max_result_bytes";
		goto fail;
	}
	ret = isp_results_reserve(res, ticket, bound);
	if (ret == -EEXIST) {
		st = ISP_SC_TICKET_IN_USE | ISP_STATUS_DNR;
		why = "ticket in use";
		goto fail;
	}
	if (ret) {
		st = ISP_SC_RESOURCE;
		why = "result table full";
		goto fail;
	}
	reserved = 1;

	/* TTL-E (and TTL-C) in controller DRAM for the duration (4.2.1). */
	for (i = 0; i < ndbs; i++) {
		uint64_t b2 = 2 * re_cand_count(&r, dbs[i]) * dbs[i]->L.ttl_e;

		if (ivf)
			b2 += 2ull * re_nprobe(&r, dbs[i]) * dbs[i]->L.ttl_c;
		ttl = re_max(ttl, b2);
	}
	if (fs_dram_reserve(e->fs, RE_DRAM_TTL, ttl)) {
		ttl = 0;
		st = ISP_SC_RESOURCE;
		why = "controller DRAM full (TTL)";
		goto fail;
	}
	if (re_run_alloc(&r, dbs, ndbs)) {
		st = ISP_SC_INTERNAL;
		why = "out of memory";
		goto fail;
	}
	hits = calloc((size_t)s.nq * s.k, sizeof(*hits));
	tmp = calloc((size_t)ndbs * s.k, sizeof(*tmp));
	if (!hits || !tmp) {
		st = ISP_SC_INTERNAL;
		why = "out of memory";
		goto fail;
	}

	re_cost_init(&r.c, e->ft, &ctx->ftc, e->p->reis_pl && !(s.flags & ISP_REIS_SF_NO_PL));
	qb = (const uint8_t *)data + sizeof(s);
	q8 = (const int8_t *)(qb + (size_t)s.nq * (s.dim / 8));
	end = tq;
	for (q = 0; q < s.nq && !ret; q++) {
		uint64_t qend = tq, te;
		uint32_t nt = 0, nh;

		for (i = 0; i < ndbs && !ret; i++) {
			ret = re_query_db(&r, dbs[i], qb + (size_t)q * (s.dim / 8),
					  q8 + (size_t)q * s.dim, tq, tmp + nt, &nh, &te);
			nt += nh;
			qend = re_max(qend, te);
		}
		if (ret)
			break;
		if (ndbs > 1) {	/* exact merge of the partitions' top-k */
			qsort(tmp, nt, sizeof(*tmp), re_hit_cmp);
			qend = ft_core(e->ft, &ctx->ftc, FT_CORE_ISP, ft_cycles_sort(e->p, nt),
				       "merge", qend);
		}
		memcpy(hits + (size_t)q * s.k, tmp, (nt < s.k ? nt : s.k) * sizeof(*tmp));
		for (i = nt; i < s.k; i++)
			hits[(size_t)q * s.k + i].db = NULL;
		end = re_max(end, qend);
	}
	if (ret) {
		st = ISP_SC_INTERNAL;
		why = ret == -ENOMEM ? "out of memory" : "flash data of the database is corrupt";
		goto fail;
	}
	ft_dram(e->ft, &ctx->ftc, sizeof(struct isp_wire_reis_result) + hits_bytes, end);

	/* Documents: locate them now (DADR), move them when read. */
	if (s.flags & ISP_REIS_SF_DOCS) {
		for (i = 0; i < s.nq * s.k; i++)
			if (hits[i].db && hits[i].dadr != RE_ADDR_NONE)
				ndocs++;
		dc = calloc(1, sizeof(*dc) + (size_t)ndocs * sizeof(dc->d[0]));
		if (!dc) {
			st = ISP_SC_INTERNAL;
			why = "out of memory";
			goto fail;
		}
		pthread_mutex_init(&dc->lock, NULL);
		dc->ft = e->ft;
	}
	blob_len = sizeof(struct isp_wire_result_hdr) + sizeof(struct isp_wire_reis_result) +
		   hits_bytes;
	if (dc) {
		uint32_t nd = 0;

		for (i = 0; i < s.nq * s.k; i++) {
			uint64_t ppa;
			uint32_t chunk, dl;

			if (!hits[i].db || hits[i].dadr == RE_ADDR_NONE)
				continue;
			if (re_doc_locate(e, hits[i].db, hits[i].dadr, &ppa, &chunk, &dl)) {
				st = ISP_SC_INTERNAL;
				why = "flash data of the database is corrupt";
				goto fail;
			}
			dc->d[nd].off = blob_len + docs_bytes;
			dc->d[nd].len = dl;
			dc->d[nd].plane = fg_ppa_plane(e->g, ppa);
			dc->d[nd].mode = fg_ppa_mode(e->g, ppa);
			docs_bytes += dl;
			nd++;
		}
		dc->n = nd;
	}
	blob = malloc(blob_len + docs_bytes);
	if (!blob) {
		st = ISP_SC_INTERNAL;
		why = "out of memory";
		goto fail;
	}
	{
		struct isp_wire_result_hdr rh;
		struct isp_wire_reis_result rr;
		uint8_t *hp = blob + sizeof(rh) + sizeof(rr);
		uint32_t nd = 0;

		for (i = 0; i < s.nq * s.k; i++) {
			struct isp_wire_reis_hit wh;

			memset(&wh, 0, sizeof(wh));
			if (!hits[i].db) {
				wh.id = ISP_REIS_HIT_NONE;
			} else {
				wh.id = hits[i].id;
				wh.entry = (uint32_t)hits[i].key;	/* DOC_READ's index */
				wh.did = hits[i].db->c.did;
				wh.hamming = (uint32_t)(hits[i].key >> 32);
				wh.score = hits[i].score;
				if (dc && hits[i].dadr != RE_ADDR_NONE) {
					uint64_t ppa;
					uint32_t chunk, dl;
					const struct re_layout *L = &hits[i].db->L;

					re_doc_locate(e, hits[i].db, hits[i].dadr, &ppa, &chunk, &dl);
					wh.doc_len = dl;
					wh.doc_off = dc->d[nd].off;
					if (dl && fs_read(e->fs, ppa, chunk * L->chunk_bytes,
							  blob + dc->d[nd].off, dl)) {
						st = ISP_SC_INTERNAL;
						why = "flash read failed";
						goto fail;
					}
					nd++;
				}
			}
			memcpy(hp + (size_t)i * sizeof(wh), &wh, sizeof(wh));
		}
		memset(&rr, 0, sizeof(rr));
		rr.nq = s.nq;
		rr.k = s.k;
		rr.flags = s.flags;
		rr.ndbs = ndbs;
		rr.pages_read = r.c.pages;
		rr.entries_compared = r.c.compared;
		rr.entries_passed = r.c.passed;
		rr.reranked = r.reranked;
		rr.nprobe = r.nprobe_used;
		rr.docs_bytes = docs_bytes;
		memset(&rh, 0, sizeof(rh));
		memcpy(rh.magic, "RSLT", 4);
		rh.kind = ISP_RESULT_SEARCH;
		rh.total_bytes = blob_len + docs_bytes;
		rh.ticket = ticket;
		rh.hdr_bytes = sizeof(rr);
		rh.model_ns = (ctx->ftc.end - ctx->ftc.start + FT_PS_PER_NS - 1) / FT_PS_PER_NS;
		rh.energy_pj = ctx->ftc.energy_pj;
		memcpy(blob, &rh, sizeof(rh));
		memcpy(blob + sizeof(rh), &rr, sizeof(rr));
	}
	pthread_mutex_lock(&e->lock);
	e->st_searches += s.nq;
	e->st_filtered += r.fine_cmp - r.fine_pass;
	e->st_ttl += r.c.passed;
	for (i = 0; i < ndbs; i++) {
		dbs[i]->searches += s.nq;
		dbs[i]->refs--;
	}
	pthread_mutex_unlock(&e->lock);
	ndbs = 0;
	fs_dram_release(e->fs, RE_DRAM_TTL, ttl);
	ret = isp_results_publish(res, ticket, blob, blob_len + docs_bytes,
				  dc ? re_docs_charge : NULL, dc, dc ? re_docs_cost_free : NULL);
	blob = NULL;
	dc = NULL;
	re_run_free(&r);
	free(hits);
	free(tmp);
	if (ret)
		return isp_fail(cpl, ISP_SC_INTERNAL, "result publish failed");
	return 0;

fail:
	if (ndbs)
		re_unref(e, dbs, ndbs);
	if (ttl)
		fs_dram_release(e->fs, RE_DRAM_TTL, ttl);
	if (reserved)
		isp_results_cancel(res, ticket);
	re_docs_cost_free(dc);
	free(blob);
	free(hits);
	free(tmp);
	re_run_free(&r);
	return isp_fail(cpl, st, why);
}

/* ---- DOC_READ ---- */

uint16_t re_cmd_doc_read(struct re_eng *e, struct isp_ctx *ctx, const struct isp_cmd *cmd,
			 void *data, size_t len, struct isp_cpl *cpl)
{
	struct re_db *db;
	struct ft_page_op op;
	const char *why = NULL;
	uint16_t st = 0;
	uint64_t ppa, t;
	uint32_t chunk, dl, n;
	uint8_t *out = data;

	if (cmd->cdw14 || cmd->cdw15)
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	if (len < 4)
		return isp_fail(cpl, ISP_BAD_FIELD, "transfer shorter than the length field");
	pthread_mutex_lock(&e->lock);
	st = re_find_ready(e, cmd->cdw12, &db, &why);
	if (!st && cmd->cdw13 >= db->c.n) {
		st = ISP_BAD_FIELD;
		why = "entry index past the database";
	} else if (!st && !db->c.doc_mode) {
		st = ISP_BAD_FIELD;
		why = "database has no documents";
	} else if (!st) {
		db->refs++;
	}
	pthread_mutex_unlock(&e->lock);
	if (st)
		return isp_fail(cpl, st, why);
	memset(data, 0, len);
	if (re_doc_locate(e, db, re_dadr(&db->L, cmd->cdw13), &ppa, &chunk, &dl)) {
		st = ISP_SC_INTERNAL;
	} else {
		n = dl < len - 4 ? dl : (uint32_t)(len - 4);
		memcpy(out, &dl, 4);
		if (n && fs_read(e->fs, ppa, chunk * db->L.chunk_bytes, out + 4, n))
			st = ISP_SC_INTERNAL;
	}
	pthread_mutex_lock(&e->lock);
	db->refs--;
	pthread_mutex_unlock(&e->lock);
	if (st)
		return isp_fail(cpl, st, "document read failed");
	memset(&op, 0, sizeof(op));
	op.mode = fg_ppa_mode(e->g, ppa);
	op.n_dout = 1;
	op.dout_bytes = dl;
	t = ft_page_read(e->ft, &ctx->ftc, fg_ppa_plane(e->g, ppa), &op, ctx->ready);
	t = ft_dram(e->ft, &ctx->ftc, dl, t);
	isp_link_xfer(ctx, len, 1, t);
	cpl->xfer_len = (uint32_t)len;
	return 0;
}

/* ---- META_READ ---- */

uint16_t re_cmd_meta_read(struct re_eng *e, struct isp_ctx *ctx, const struct isp_cmd *cmd,
			  void *data, size_t len, struct isp_cpl *cpl)
{
	uint64_t off = (uint64_t)cmd->cdw15 << 32 | cmd->cdw14, end, pos, t, last;
	uint32_t pb = e->p->page_bytes;
	struct re_db *db;
	const char *why = NULL;
	uint8_t *out = data;
	uint16_t st = 0;

	if (cmd->cdw13)
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	pthread_mutex_lock(&e->lock);
	st = re_find_ready(e, cmd->cdw12, &db, &why);
	if (!st && !db->c.meta_bytes) {
		st = ISP_BAD_FIELD;
		why = "database has no META section";
	} else if (!st && off >= db->c.meta_bytes) {
		st = ISP_SC_BAD_OFFSET | ISP_STATUS_DNR;
		why = "offset at or past the end of the META section";
	} else if (!st) {
		db->refs++;
	}
	pthread_mutex_unlock(&e->lock);
	if (st)
		return isp_fail(cpl, st, why);
	memset(data, 0, len);
	end = off + len < db->c.meta_bytes ? off + len : db->c.meta_bytes;
	last = ctx->ready;
	/* Each META page touched is one TLC read whose bytes cross the
	 * channel, as a document read is (REIS 4.4.1). */
	for (pos = off; pos < end && !st; ) {
		uint64_t pg = pos / pb, ppa;
		uint32_t in = (uint32_t)(pos % pb), k;
		struct ft_page_op op;

		k = (uint32_t)(end - pos < pb - in ? end - pos : pb - in);
		if (fs_region_ppa(e->fs, &db->tlc, db->L.m_first + pg, &ppa) ||
		    fs_read(e->fs, ppa, in, out + (pos - off), k)) {
			st = ISP_SC_INTERNAL;
			break;
		}
		memset(&op, 0, sizeof(op));
		op.mode = fg_ppa_mode(e->g, ppa);
		op.n_dout = 1;
		op.dout_bytes = k;
		t = ft_page_read(e->ft, &ctx->ftc, fg_ppa_plane(e->g, ppa), &op, ctx->ready);
		t = ft_dram(e->ft, &ctx->ftc, k, t);
		last = re_max(last, t);
		pos += k;
	}
	pthread_mutex_lock(&e->lock);
	db->refs--;
	pthread_mutex_unlock(&e->lock);
	if (st)
		return isp_fail(cpl, st, "META read failed");
	isp_link_xfer(ctx, len, 1, last);
	cpl->xfer_len = (uint32_t)len;
	return 0;
}
