/* SPDX-License-Identifier: MIT */
/*
 * reis_run.c - a search's queries on the host's cores (docs/reis-engine.md
 * "Host work"): the host work of each query (scan, filters, TTL, rerank,
 * caller ids) as tasks of the drive's worker set (isp_pool.h), and the
 * query's charges on the timing engine, issued by the command's own thread
 * in query order, database after database, exactly as one thread would
 * issue them. The host work never touches the timing engine and its
 * results do not depend on who ran it or in which order (TTL-E keeps the
 * keep smallest keys, keys are unique), so the modeled time, results and
 * energy of a search are the same on one thread and on many
 * (test_reis_threads).
 *
 * The split: queries in units (brute force: a block sharing each page
 * scan, reis_scan.c; IVF: a few queries), at most W units in flight (their
 * buffers are slots); with fewer units than threads a brute-force unit's
 * pages are scanned in slices, each into TTLs of its own that the query's
 * rest (finish, rerank, ids) merges. A group's partitions are searched
 * query by query on the command's thread.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "isp_budget.h"
#include "isp_pool.h"
#include "reis_int.h"

/* Queries a brute-force block shares a page scan with at most, and the
 * block's own buffers at most (per-query TTL-E and pass counts). */
#define RE_QBLOCK_MAX 64u
#define RE_QBLOCK_BYTES (8u << 20)
/* IVF queries a unit holds at most when it is split. */
#define RE_IVF_UNIT 8u

/* One unit of queries in flight. */
struct re_slot {
	uint64_t *qws;		/* qcap binary queries, RE_QWORDS words each */
	struct re_qout *o;	/* qcap */
	struct re_topc **tops;	/* brute force: nslice x qcap TTLs its scan fills */
	struct re_topc *part;	/* with slices: nslice x qcap of the slices' own */
	uint32_t *bpass;	/* brute force: qcap x bpages pass counts */
	atomic_int err;		/* the first error of its host work */
};

struct re_exec {
	struct re_run *r;
	const struct isp_wire_reis_search *s;
	struct re_db **dbs;
	uint32_t ndbs;
	const uint8_t *qb;	/* the binary queries */
	const int8_t *q8;	/* the INT8 ones */
	/* the plan: T threads, units of qcap queries, W of them in flight, a
	 * brute-force unit's pages in nslice slices and the rest of its
	 * queries in npost groups (tpu tasks a unit) */
	uint32_t T, qcap, nunit, W, nslice, npost, tpu;
	uint64_t cand, per, np, need, bpages, cpages;
	int df;
	uint32_t thr;
	struct re_run *w;	/* T workers' copies of the run */
	struct re_slot *slot;	/* W */
	struct isp_pool *pool;	/* NULL: this thread alone */
	struct isp_job job;
	uint8_t *done;
	struct re_hitx *tmp;	/* a group's hits of one query */
};

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

/* ---- the plan and its bytes ---- */

/*
 * Queries per brute-force block: one database's page scan is shared among
 * up to RE_QBLOCK_MAX of a command's queries while the block's buffers
 * stay within RE_QBLOCK_BYTES; else one at a time (a group's partitions
 * are searched per query, IVF pages differ per query).
 */
static uint32_t re_qblock(const struct re_run *r, uint32_t nq, uint32_t ndbs, uint64_t cand,
			  uint64_t bpages)
{
	uint64_t per = re_topc_bytes(cand, r->maxd) + bpages * sizeof(uint32_t) +
		       ISP_REIS_MAX_DIM / 8 + sizeof(struct re_topc);
	uint64_t n = RE_QBLOCK_BYTES / per;

	if (r->ivf || ndbs != 1 || n < 1)
		return 1;
	return (uint32_t)(n < nq ? (n < RE_QBLOCK_MAX ? n : RE_QBLOCK_MAX) :
			  (nq < RE_QBLOCK_MAX ? nq : RE_QBLOCK_MAX));
}

/* The buffers' sizes over the databases searched. */
static void re_exec_sizes(struct re_exec *x)
{
	const struct re_run *r = x->r;
	uint32_t i;

	x->cand = x->per = x->np = x->bpages = x->cpages = 1;
	for (i = 0; i < x->ndbs; i++) {
		const struct re_layout *L = &x->dbs[i]->L;

		x->cand = re_max(x->cand, re_cand_count(r, x->dbs[i]));
		x->per = re_max(x->per, re_max(L->epb, L->cpb));
		x->bpages = re_max(x->bpages, L->bpages);
		x->cpages = re_max(x->cpages, L->cpages);
		if (r->ivf)
			x->np = re_max(x->np, re_nprobe(r, x->dbs[i]));
	}
	x->need = re_max(x->cand, r->k);
}

/* How the queries split over @threads threads (1: as one thread runs them). */
static void re_exec_plan(struct re_exec *x, uint32_t threads)
{
	const struct re_run *r = x->r;
	uint32_t nq = x->s->nq;

	x->T = threads;
	x->nslice = 1;
	x->npost = 0;
	x->qcap = re_qblock(r, nq, x->ndbs, x->cand, x->bpages);
	if (x->T > 1 && r->ivf) {
		x->qcap = nq / (4 * x->T);
		x->qcap = x->qcap < 1 ? 1 : x->qcap > RE_IVF_UNIT ? RE_IVF_UNIT : x->qcap;
	}
	x->nunit = (nq + x->qcap - 1) / x->qcap;
	x->W = 1;
	if (x->T > 1 && !r->ivf && x->nunit < 2 * x->T) {
		/* Few blocks: each one's pages in slices over the threads. */
		x->nslice = 2 * x->T;
		x->npost = x->qcap < 2 * x->T ? x->qcap : 2 * x->T;
	}
	if (x->T > 1)
		x->W = x->nunit < x->T + 1 ? x->nunit : x->T + 1;
	if (x->nslice > 1 && x->W > 2)
		x->W = 2;
	x->tpu = x->nslice > 1 ? x->nslice + x->npost : 1;
}

/* Whether @threads threads have anything to share in this search. */
static int re_exec_worth(const struct re_exec *x, uint32_t threads)
{
	if (threads < 2 || x->ndbs != 1)
		return 0;
	if (x->r->ivf)
		return x->s->nq >= 2;
	return x->s->nq >= 2 || x->bpages >= 4ull * threads;
}

static uint64_t re_slot_bytes(const struct re_exec *x)
{
	const struct re_run *r = x->r;
	uint64_t q = (uint64_t)RE_QWORDS * 8 + sizeof(struct re_qout) + sizeof(struct re_topc *) +
		     re_topc_bytes(x->cand, r->maxd) +
		     x->need * (sizeof(struct re_rk) + sizeof(struct re_pcount)) +
		     (uint64_t)r->k * (sizeof(struct re_hitx) + sizeof(struct re_pcount));

	if (!r->ivf)
		q += x->bpages * sizeof(uint32_t);
	if (x->nslice > 1)
		q += x->nslice * (re_topc_bytes(x->cand, r->maxd) + sizeof(struct re_topc) +
				  sizeof(struct re_topc *));
	return sizeof(struct re_slot) + x->qcap * q;
}

static uint64_t re_worker_bytes(const struct re_exec *x)
{
	const struct re_run *r = x->r;

	return sizeof(struct re_run) + fs_slot_bytes(r->e->fs) + x->per * 3 * sizeof(uint16_t) +
	       ISP_REIS_MAX_DIM + sizeof(struct re_topc) + re_topc_bytes(x->np, r->maxd) +
	       x->np * 2 * sizeof(uint32_t) +
	       x->need * (sizeof(uint64_t) + sizeof(uint32_t) + sizeof(const uint8_t *));
}

/* What the run holds at most (host memory), for the command buffer budget. */
static uint64_t re_exec_bytes(const struct re_exec *x)
{
	const struct re_run *r = x->r;
	uint64_t ids = 0, shared;
	uint32_t i;

	for (i = 0; i < x->ndbs; i++)
		if (x->dbs[i]->c.flags & ISP_REIS_DBF_IDS)
			ids = r->k;
	shared = re_cost_fin_bytes(x->need + ids, ids, x->s->nq) +
		 (r->ivf ? x->cpages * sizeof(uint32_t) :
			   x->bpages * (2 * sizeof(uint64_t) + 2 * sizeof(uint32_t))) +
		 (uint64_t)x->nunit * x->tpu +
		 ((uint64_t)x->s->nq + x->ndbs) * r->k * sizeof(struct re_hitx);
	return shared + x->T * re_worker_bytes(x) + x->W * re_slot_bytes(x);
}

/* ---- buffers ---- */

static void re_worker_free(struct re_run *w)
{
	free(w->page);
	free(w->dist);
	free(w->sidx);
	free(w->sdist);
	free(w->code);
	free(w->probe);
	free(w->cdist);
	free(w->cppa);
	free(w->coff);
	free(w->cptr);
	if (w->ctop)
		re_topc_free(w->ctop);
	free(w->ctop);
}

/* Worker @w: a copy of the run with scratch of its own. */
static int re_worker_alloc(struct re_exec *x, struct re_run *w)
{
	*w = *x->r;
	w->page = malloc(fs_slot_bytes(w->e->fs));
	w->dist = malloc(x->per * sizeof(*w->dist));
	w->sidx = malloc(x->per * sizeof(*w->sidx));
	w->sdist = malloc(x->per * sizeof(*w->sdist));
	w->code = malloc(ISP_REIS_MAX_DIM);
	w->probe = malloc(x->np * sizeof(*w->probe));
	w->cdist = malloc(x->np * sizeof(*w->cdist));
	w->cppa = malloc(x->need * sizeof(*w->cppa));
	w->coff = malloc(x->need * sizeof(*w->coff));
	w->cptr = malloc(x->need * sizeof(*w->cptr));
	w->ctop = calloc(1, sizeof(*w->ctop));
	if (!w->page || !w->dist || !w->sidx || !w->sdist || !w->code || !w->probe ||
	    !w->cdist || !w->cppa || !w->coff || !w->cptr || !w->ctop ||
	    re_topc_init(w->ctop, (uint32_t)x->np, w->maxd))
		return -ENOMEM;
	return 0;
}

static void re_slot_free(struct re_exec *x, struct re_slot *sl)
{
	uint32_t j;

	for (j = 0; sl->o && j < x->qcap; j++) {
		re_topc_free(&sl->o[j].top);
		re_visits_free(&sl->o[j].vs);
		free(sl->o[j].rk);
		free(sl->o[j].pc);
		free(sl->o[j].idpc);
		free(sl->o[j].hits);
	}
	for (j = 0; sl->part && j < x->nslice * x->qcap; j++)
		re_topc_free(&sl->part[j]);
	free(sl->o);
	free(sl->part);
	free(sl->tops);
	free(sl->qws);
	free(sl->bpass);
}

static int re_slot_alloc(struct re_exec *x, struct re_slot *sl)
{
	const struct re_run *r = x->r;
	uint32_t j, s;

	sl->qws = malloc((size_t)x->qcap * RE_QWORDS * sizeof(*sl->qws));
	sl->o = calloc(x->qcap, sizeof(*sl->o));
	if (!sl->qws || !sl->o)
		return -ENOMEM;
	for (j = 0; j < x->qcap; j++) {
		struct re_qout *o = &sl->o[j];

		/* 3 slots of 64 queries took 6-10 ms to allocate (test_reis_cancel) */
		if (isp_ctx_cancelled(r->ctx))
			return -ECANCELED;	/* isp_dev_exec_cancel() */
		o->rk = malloc(x->need * sizeof(*o->rk));
		o->pc = malloc(x->need * sizeof(*o->pc));
		o->idpc = malloc(r->k * sizeof(*o->idpc));
		o->hits = calloc(r->k, sizeof(*o->hits));
		if (!o->rk || !o->pc || !o->idpc || !o->hits ||
		    re_topc_init(&o->top, (uint32_t)x->cand, r->maxd))
			return -ENOMEM;
	}
	if (r->ivf)
		return 0;
	sl->bpass = malloc((size_t)x->qcap * x->bpages * sizeof(*sl->bpass));
	sl->tops = malloc((size_t)x->nslice * x->qcap * sizeof(*sl->tops));
	if (!sl->bpass || !sl->tops)
		return -ENOMEM;
	if (x->nslice > 1) {
		sl->part = calloc((size_t)x->nslice * x->qcap, sizeof(*sl->part));
		if (!sl->part)
			return -ENOMEM;
	}
	for (s = 0; s < x->nslice; s++) {
		for (j = 0; j < x->qcap; j++) {
			struct re_topc **t = &sl->tops[(size_t)s * x->qcap + j];

			if (x->nslice == 1) {
				*t = &sl->o[j].top;
			} else {
				*t = &sl->part[(size_t)s * x->qcap + j];
				if (re_topc_init(*t, (uint32_t)x->cand, r->maxd))
					return -ENOMEM;
			}
		}
	}
	return 0;
}

void re_run_free(struct re_run *r, struct re_exec *x)
{
	uint32_t i;

	if (x) {
		for (i = 0; x->w && i < x->T; i++)
			re_worker_free(&x->w[i]);
		for (i = 0; x->slot && i < x->W; i++)
			re_slot_free(x, &x->slot[i]);
		free(x->w);
		free(x->slot);
		free(x->done);
		free(x->tmp);
		free(x);
	}
	if (r->e)
		isp_ctx_budget_give(r->ctx, fs_buf_budget(r->e->fs), r->budget);
	r->budget = 0;
	free(r->bord);
	free(r->bplane);
	free(r->bncmp);
	free(r->cplane);
	r->bord = NULL;
	r->bplane = r->bncmp = r->cplane = NULL;
	re_cost_free(&r->c);
}

/* The run's arrays, workers and slots; -ENOMEM, or -ECANCELED when the
 * command is stopped while its slots are allocated. */
static int re_exec_alloc(struct re_exec *x)
{
	struct re_run *r = x->r;
	uint32_t i;

	if (r->ivf) {
		r->cplane = malloc(x->cpages * sizeof(*r->cplane));
		if (!r->cplane)
			return -ENOMEM;
	} else {
		r->bord = malloc(2 * x->bpages * sizeof(*r->bord));	/* + the sort's */
		r->bplane = malloc(x->bpages * sizeof(*r->bplane));
		r->bncmp = malloc(x->bpages * sizeof(*r->bncmp));
		if (!r->bord || !r->bplane || !r->bncmp)
			return -ENOMEM;
	}
	x->w = calloc(x->T, sizeof(*x->w));
	x->slot = calloc(x->W, sizeof(*x->slot));
	x->done = malloc((size_t)x->nunit * x->tpu);
	x->tmp = calloc((size_t)x->ndbs * r->k, sizeof(*x->tmp));
	if (!x->w || !x->slot || !x->done || !x->tmp)
		return -ENOMEM;
	for (i = 0; i < x->T; i++)
		if (re_worker_alloc(x, &x->w[i]))
			return -ENOMEM;
	for (i = 0; i < x->W; i++) {
		int ret = re_slot_alloc(x, &x->slot[i]);

		if (ret)
			return ret;
	}
	return 0;
}

uint16_t re_run_prepare(struct re_run *r, const struct isp_wire_reis_search *s,
			struct re_db **dbs, uint32_t ndbs, struct re_exec **out,
			const char **why)
{
	struct isp_budget *b = fs_buf_budget(r->e->fs);
	struct isp_pool *pool = isp_dev_pool(r->e->dev);
	struct re_exec *x = calloc(1, sizeof(*x));
	uint32_t threads = isp_pool_size(pool);
	int ret;

	*out = x;
	*why = "out of memory";
	if (!x)
		return ISP_SC_INTERNAL;
	x->r = r;
	x->s = s;
	x->dbs = dbs;
	x->ndbs = ndbs;
	re_exec_sizes(x);
	if (!re_exec_worth(x, threads))
		threads = 1;
	for (;;) {
		re_exec_plan(x, threads);
		r->budget = re_exec_bytes(x);
		ret = isp_ctx_budget_take(r->ctx, b, r->budget);
		if (!ret || ret == -ECANCELED || threads == 1)
			break;
		threads = 1;	/* what one thread needs may still fit */
	}
	switch (ret) {
	case 0: break;
	case -ECANCELED:
		r->budget = 0;
		*why = "stopped while waiting for buffer budget";
		return ISP_SC_ABORT_REQ;
	case -EFBIG:
		r->budget = 0;
		*why = "search needs more than the whole buffer budget";
		return ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR;
	default:
		r->budget = 0;
		*why = "command buffer budget in use; retry";
		return ISP_SC_RESOURCE;
	}
	x->pool = x->T > 1 ? pool : NULL;
	ret = re_exec_alloc(x);
	if (ret == -ECANCELED) {
		*why = "stopped by the transport (reset, queue deletion or Abort)";
		return ISP_SC_ABORT_REQ;
	}
	return ret ? ISP_SC_INTERNAL : 0;
}

/* ---- one query: the host's part, the charges ---- */

/* The candidates' hits, best first, into o->hits: at most k. */
static uint32_t re_hits_take(const struct re_run *w, struct re_db *db, struct re_qout *o)
{
	uint32_t h, nh = o->m < w->k ? o->m : w->k;

	for (h = 0; h < nh; h++) {
		const struct re_cand *cd = &w->top->v[o->rk[h].i];

		o->hits[h].key = cd->key;
		o->hits[h].score = o->rk[h].score;
		o->hits[h].db = db;
		o->hits[h].dadr = cd->dadr;
		o->hits[h].metric = db->c.metric;
		o->hits[h].id = (uint32_t)cd->key;
	}
	return nh;
}

/*
 * One query's host work on @db after its fine phase's candidates are in
 * o->top (brute force), or all of it (IVF: coarse and fine search first):
 * the candidates kept, ranked, their hits and caller ids.
 */
static int re_query_host(struct re_run *w, struct re_db *db, struct re_qout *o,
			 const uint64_t *qw, const int8_t *q8)
{
	uint32_t thr;
	int df = re_filter_threshold(w, db, &thr), ret = 0;

	w->qw = qw;
	w->top = &o->top;
	w->vs = &o->vs;
	if (w->ivf) {
		ret = re_coarse_host(w, db, &o->np);
		if (!ret)
			ret = re_fine_host(w, db, re_cand_count(w, db), df, thr);
		if (ret)
			return ret;
	}
	/* The rerank orders its own best k; without it TTL-E's order is the answer's. */
	o->m = re_topc_finish(&o->top, w->rerank ? 0 : w->k);
	ret = re_rank_host(w, db, q8, o);
	if (ret)
		return ret;
	o->nh = re_hits_take(w, db, o);
	if (db->c.flags & ISP_REIS_DBF_IDS)
		ret = re_ids_host(w, db, o);
	return ret;
}

/*
 * One query's charges on @db (REIS §4.3.1): input broadcast, IVF coarse
 * search, fine search, then its finish (rerank reads and kernels, sort,
 * id reads), issued after the next query's search (re_cost_flush()).
 * @bpass: brute force, its pass counts per page. The end in *@tend;
 * -ECANCELED when the command is being stopped, -ENOMEM.
 */
static int re_query_cost(struct re_run *r, struct re_db *db, const struct re_qout *o,
			 const uint32_t *bpass, uint64_t tq, uint64_t *tend)
{
	uint32_t thr;
	int df = re_filter_threshold(r, db, &thr);
	uint64_t t = tq, cand = re_cand_count(r, db);

	/* A query's charges (8192 rerank pages of an 8192-D query: 1-4 ms of
	 * host time, test_isp_stop) read the flag once, before they start. */
	if (isp_ctx_cancelled(r->ctx))
		return -ECANCELED;	/* isp_dev_exec_cancel() */
	/* IBC (§4.3.2), before the die's page reads (Fig. 6: a die's pages wait
	 * for its whole IBC, not for every die's). */
	ft_ibc_dies(r->e->ft, r->c.cmd, db->L.cb, db->L.ibc_bytes,
		    (r->mpibc ? FT_IBC_MPIBC : 0) | FT_IBC_DIE, tq);
	if (r->ivf) {
		re_coarse_cost(r, db, t, &t);
		if (o->np > r->nprobe_used)
			r->nprobe_used = o->np;
		re_fine_cost(r, db, &o->vs, t, cand, df, &t);
	} else {
		re_fine_charge(r, db, bpass, t, cand, df, &t);
	}
	re_cost_fin_begin(&r->c, t);
	re_rank_cost(r, db, o, &t);
	if (db->c.flags & ISP_REIS_DBF_IDS)
		re_ids_cost(r, o, &t);
	if (re_cost_fin_end(&r->c))
		return -ENOMEM;
	*tend = t;
	return 0;
}

/* ---- the tasks ---- */

/* Query @q's binary words into @qw (RE_QWORDS, aligned). */
static void re_query_load(const struct re_exec *x, uint32_t q, uint64_t *qw)
{
	memcpy(qw, x->qb + (size_t)q * (x->s->dim / 8), x->s->dim / 8);
}

/* Unit @u's queries into its slot. */
static void re_slot_load(struct re_exec *x, uint32_t u)
{
	struct re_slot *sl = &x->slot[u % x->W];
	uint32_t q0 = u * x->qcap, n = x->s->nq - q0 < x->qcap ? x->s->nq - q0 : x->qcap, j;

	for (j = 0; j < n; j++)
		re_query_load(x, q0 + j, sl->qws + (size_t)j * RE_QWORDS);
	atomic_store(&sl->err, 0);
}

/* Merge the slices' TTLs of query @j into its own. */
static void re_slices_merge(const struct re_exec *x, struct re_slot *sl, uint32_t j,
			    uint32_t dim)
{
	struct re_topc *t = &sl->o[j].top;
	uint32_t s, i;

	re_topc_reset(t, (uint32_t)x->cand, dim);
	for (s = 0; s < x->nslice; s++) {
		const struct re_topc *p = sl->tops[(size_t)s * x->qcap + j];

		for (i = 0; i < p->n; i++)
			re_topc_add(t, p->v[i].key, p->v[i].radr, p->v[i].dadr);
	}
}

static void re_task(void *arg, unsigned worker, uint32_t task)
{
	struct re_exec *x = arg;
	struct re_run *w = &x->w[worker];
	struct re_db *db = x->dbs[0];
	uint32_t u = task / x->tpu, k = task % x->tpu, q0 = u * x->qcap, j, s;
	uint32_t n = x->s->nq - q0 < x->qcap ? x->s->nq - q0 : x->qcap, j0 = 0, j1 = n;
	struct re_slot *sl = &x->slot[u % x->W];
	const struct re_layout *L = &db->L;
	uint64_t cand = re_cand_count(w, db);
	int ret = 0;

	if (atomic_load(&sl->err))
		return;
	if (!w->ivf && k < x->nslice) {
		/* Pages [i0, i1) of the host's order for every query of the unit. */
		uint64_t i0 = L->bpages * k / x->nslice, i1 = L->bpages * (k + 1) / x->nslice;
		struct re_topc **tops = sl->tops + (size_t)k * x->qcap;

		for (j = 0; j < n; j++)
			re_topc_reset(tops[j], (uint32_t)cand, L->dim);
		ret = re_scan_pages(w, db, sl->qws, tops, n, i0, i1, sl->bpass, x->df, x->thr);
		if (ret || x->nslice > 1)
			goto out;
	} else if (!w->ivf) {
		/* The rest of some of the unit's queries, once its slices are in. */
		for (s = 0; s < x->nslice; s++)
			isp_job_wait_other(x->pool, &x->job, u * x->tpu + s);
		if (atomic_load(&sl->err))
			return;
		j0 = n * (k - x->nslice) / x->npost;
		j1 = n * (k - x->nslice + 1) / x->npost;
		for (j = j0; j < j1; j++)
			re_slices_merge(x, sl, j, L->dim);
	}
	for (j = j0; j < j1 && !ret; j++)
		ret = re_query_host(w, db, &sl->o[j], sl->qws + (size_t)j * RE_QWORDS,
				    x->q8 + (size_t)(q0 + j) * x->s->dim);
out:
	if (ret) {
		int zero = 0;

		atomic_compare_exchange_strong(&sl->err, &zero, ret);
	}
}

/* ---- the command's thread ---- */

/* Query @q's hits (@o, or none) into its k slots of @hits. */
static void re_hits_put(const struct re_exec *x, uint32_t q, const struct re_hitx *h,
			uint32_t n, struct re_hitx *hits)
{
	uint32_t k = x->s->k, i;

	memcpy(hits + (size_t)q * k, h, (n < k ? n : k) * sizeof(*h));
	for (i = n; i < k; i++)
		hits[(size_t)q * k + i].db = NULL;
}

/* One database: units of host work on the worker set, the charges here. */
static int re_exec_one(struct re_exec *x, uint64_t tq, struct re_hitx *hits, uint64_t *end)
{
	struct re_run *r = x->r;
	struct re_db *db = x->dbs[0];
	uint32_t u, j, t;
	int ret = r->ivf ? re_coarse_planes(r, db) : re_bf_order(r, db);

	if (ret)
		return ret;
	x->df = re_filter_threshold(r, db, &x->thr);
	for (u = 0; u < x->W && u < x->nunit; u++)
		re_slot_load(x, u);
	for (u = 0; u < x->T; u++) {	/* the shared arrays are filled now */
		x->w[u].bord = r->bord;
		x->w[u].bord_db = r->bord_db;
	}
	isp_job_init(&x->job, re_task, x, x->nunit * x->tpu, x->done);
	isp_job_allow(x->pool, &x->job, (x->W < x->nunit ? x->W : x->nunit) * x->tpu);
	for (u = 0; u < x->nunit && !ret; u++) {
		struct re_slot *sl = &x->slot[u % x->W];
		uint32_t q0 = u * x->qcap, n = x->s->nq - q0 < x->qcap ? x->s->nq - q0 : x->qcap;

		for (t = u * x->tpu; t < (u + 1) * x->tpu; t++)
			isp_job_wait(x->pool, &x->job, t);
		ret = atomic_load(&sl->err);
		for (j = 0; j < n && !ret; j++) {
			const struct re_qout *o = &sl->o[j];
			uint64_t te = tq;

			ret = re_query_cost(r, db, o, r->ivf ? NULL : sl->bpass + (size_t)j * x->bpages,
					    tq, &te);
			re_hits_put(x, q0 + j, o->hits, o->nh, hits);
			*end = re_max(*end, re_max(tq, te));
		}
		if (!ret && u + x->W < x->nunit) {
			re_slot_load(x, u + x->W);
			isp_job_allow(x->pool, &x->job, (u + x->W + 1) * x->tpu);
		}
	}
	isp_job_retire(x->pool, &x->job);
	return ret;
}

/*
 * A group (REIS §7.1): every partition per query, on this thread, each
 * query's finishes issued before the exact merge of the partitions' top-k.
 */
static int re_exec_group(struct re_exec *x, uint64_t tq, struct re_hitx *hits, uint64_t *end)
{
	struct re_run *r = x->r, *w = &x->w[0];
	struct re_slot *sl = &x->slot[0];
	struct re_qout *o = &sl->o[0];
	uint32_t q, i, nt;
	int ret = 0;

	for (q = 0; q < x->s->nq && !ret; q++) {
		uint64_t qend = tq, te = tq;

		re_query_load(x, q, sl->qws);
		nt = 0;
		for (i = 0; i < x->ndbs && !ret; i++) {
			struct re_db *db = x->dbs[i];
			uint32_t thr;
			int df = re_filter_threshold(r, db, &thr);

			if (r->ivf) {
				ret = re_coarse_planes(r, db);
			} else {
				ret = re_bf_order(r, db);
				w->bord_db = r->bord_db;
				re_topc_reset(&o->top, (uint32_t)re_cand_count(r, db), db->L.dim);
				if (!ret)
					ret = re_scan_pages(w, db, sl->qws, sl->tops, 1, 0,
							    db->L.bpages, sl->bpass, df, thr);
			}
			if (!ret)
				ret = re_query_host(w, db, o, sl->qws, x->q8 + (size_t)q * x->s->dim);
			if (!ret)
				ret = re_query_cost(r, db, o, sl->bpass, tq, &te);
			if (ret)
				break;
			memcpy(x->tmp + nt, o->hits, o->nh * sizeof(*o->hits));
			nt += o->nh;
			/* the merge waits for every finish */
			qend = re_max(qend, re_max(te, re_cost_flush(&r->c)));
		}
		if (ret)
			break;
		/* exact merge of the partitions' top-k (REIS §7.1) */
		qsort(x->tmp, nt, sizeof(*x->tmp), re_hit_cmp);
		qend = ft_core(r->e->ft, r->c.cmd, FT_CORE_ISP, ft_cycles_sort(r->e->p, nt), "merge",
			       qend);
		re_hits_put(x, q, x->tmp, nt, hits);
		*end = re_max(*end, qend);
	}
	return ret;
}

int re_run_exec(struct re_exec *x, const void *data, uint64_t tq, struct re_hitx *hits,
		uint64_t *end)
{
	struct re_run *r = x->r;
	int ret;

	x->qb = (const uint8_t *)data + sizeof(*x->s);
	x->q8 = (const int8_t *)(x->qb + (size_t)x->s->nq * (x->s->dim / 8));
	*end = tq;
	ret = x->ndbs == 1 ? re_exec_one(x, tq, hits, end) : re_exec_group(x, tq, hits, end);
	*end = re_max(*end, re_cost_flush(&r->c));
	return ret ? ret : r->c.err;
}
