/* SPDX-License-Identifier: MIT */
/*
 * tool_group_search.c - a sharded REIS search: the batch is scattered to
 * every member at once (each member's share split into commands, all in
 * flight together on the results machine of core_result.c), then merged
 * so the answer is the one a single drive holding every entry gives
 * (docs/group.md, Merge).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libreis_tools.h"
#include "tool_group_priv.h"

struct reis_gr_chunk {
	struct reis_search_req sr;
	unsigned member;
	uint32_t q0;
	uint32_t nq;
	int unsent;	/* submission failed: sr.err says why */
	int late;	/* abandoned in flight (timeout): the group's now */
};


struct reis_gr_cand {
	uint64_t gentry;
	uint32_t ham;
	uint32_t member;
	int64_t score;
	const struct reis_hit *h;
};

/* The drive's candidate order: (Hamming, entry) - tool_ref_search.c. */
static int reis_gr_ham_cmp(const void *pa, const void *pb)
{
	const struct reis_gr_cand *a = pa, *b = pb;

	if (a->ham != b->ham)
		return a->ham < b->ham ? -1 : 1;
	return a->gentry < b->gentry ? -1 : a->gentry > b->gentry;
}

/* The drive's final order: score (higher first for IP), then candidates'. */
static int reis_gr_ip_cmp(const void *pa, const void *pb)
{
	const struct reis_gr_cand *a = pa, *b = pb;

	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	return reis_gr_ham_cmp(pa, pb);
}

static int reis_gr_l2_cmp(const void *pa, const void *pb)
{
	const struct reis_gr_cand *a = pa, *b = pb;

	if (a->score != b->score)
		return a->score < b->score ? -1 : 1;
	return reis_gr_ham_cmp(pa, pb);
}

void reis_group_result_free(struct reis_group_result *r)
{
	struct reis_gr_priv *p;
	unsigned i;

	if (!r)
		return;
	p = r->priv;
	if (p) {
		for (i = 0; i < p->nchunks; i++)
			reis_search_result_free(&p->ch[i].sr.res);
		for (i = 0; i < p->nextra; i++)
			reis_search_result_free(&p->extra[i]);
		for (i = 0; i < p->nshards; i++) {
			reis_db_image_free(&p->shards[i]);
			reis__gns_close(&p->objs[i]);
		}
		free(p->objs);
		free(p->extra);
		free(p->shards);
		free(p->ch);
		free(p);
	}
	for (i = 0; r->part && i < r->nmembers; i++)
		reis_search_result_free(&r->part[i]);
	free(r->part);
	free(r->part_err);
	reis_search_result_free(&r->res);
	memset(r, 0, sizeof(*r));
}

/* One member's DB_INFO, on its own thread (tool_group_call.c). */
struct reis_gr_info_ctx {
	uint32_t did;
	int err;
	struct reis_db_info in;
	char msg[REIS_MSG_LEN + 256];
};

static int reis_gr_info_one(struct reis__gcall *c)
{
	struct reis_gr_info_ctx *x = c->ctx;
	int e = reis_db_info(c->dev, x->did, &x->in);

	if (e)
		snprintf(x->msg, sizeof(x->msg), "%s", reis_last_error(c->dev));
	return e;
}

/*
 * What every member says about @did: its entries, metric and ids, asked of
 * all members at once under the group's timeout. A member that cannot
 * answer gets err[s]; the first such failure is returned.
 */
static int reis_gr_db_facts(struct reis_group *g, uint32_t did, uint64_t *ns,
			    int32_t *err, struct reis_db_info *first)
{
	struct reis_gr_info_ctx *x = calloc(g->n, sizeof(*x));
	int have = 0, ret = 0, rets[REIS_GROUP_MAX] = { 0 };
	uint64_t held = g->held;
	unsigned s;

	if (!x)
		return -ENOMEM;
	for (s = 0; s < g->n; s++)
		x[s].did = did;
	/* A member still inside a call that timed out is not asked. */
	reis__group_call(g, (g->n >= 64 ? ~0ull : (1ull << g->n) - 1) & ~held,
			 reis_gr_info_one, NULL, x, sizeof(*x), rets);
	for (s = 0; s < g->n; s++) {
		const struct reis_db_info *in = &x[s].in;
		int e = (held >> s & 1) ? -EBUSY : rets[s];

		ns[s] = 0;
		if (held >> s & 1)
			e = reis__group_fail(g, (int)s, -ETIMEDOUT, "still inside a call that "
					     "timed out (no completion within %d ms)",
					     g->timeout_ms);
		else if (e == -ETIMEDOUT)
			e = reis__group_fail(g, (int)s, e, "database %u: no answer to DB_INFO "
					     "within %d ms (the group's timeout)", did,
					     g->timeout_ms);
		else if (e)
			e = reis__group_fail(g, (int)s, e, "database %u: %s", did,
					     x[s].msg[0] ? x[s].msg : reis_strerror(e));
		else if (in->state != REIS_DB_READY)
			e = reis__group_fail(g, (int)s, -EBUSY, "database %u is deploying", did);
		else if (have && (in->metric != first->metric || in->dim != first->dim ||
				  in->flags != first->flags || in->kind != first->kind))
			e = reis__group_fail(g, (int)s, -EINVAL,
					     "database %u is not a shard of the same database",
					     did);
		err[s] = e;
		if (e) {
			if (!ret)
				ret = e;
			continue;
		}
		if (!have)
			*first = *in;
		have = 1;
		ns[s] = in->n;
	}
	free(x);
	return have ? ret : (ret ? ret : -ENOENT);
}

/* Cut @q into per-member commands. */
static int reis_gr_plan(struct reis_group *g, const struct reis_queries *q,
			const uint32_t *ks, uint32_t flags, struct reis_gr_priv *p)
{
	unsigned s, cap = 0;

	for (s = 0; s < g->n; s++) {
		uint32_t mx, q0;

		if (!ks[s])
			continue;	/* a missing member (REIS_GROUP_PARTIAL) */
		mx = reis_search_max_nq(g->dev[s], q->dim, ks[s], flags);
		if (!mx)
			return reis__group_fail(g, (int)s, -E2BIG,
						"not one query of k=%u fits a command", ks[s]);
		for (q0 = 0; q0 < q->nq; q0 += mx) {
			struct reis_gr_chunk *c;

			if (p->nchunks == cap) {
				unsigned nc = cap ? cap * 2 : 64;
				void *t = realloc(p->ch, nc * sizeof(*p->ch));

				if (!t)
					return -ENOMEM;
				p->ch = t;
				cap = nc;
			}
			c = &p->ch[p->nchunks++];
			memset(c, 0, sizeof(*c));
			c->member = s;
			c->q0 = q0;
			c->nq = q->nq - q0 < mx ? q->nq - q0 : mx;
		}
	}
	return 0;
}

static int reis_gr_all_done(const void *arg)
{
	const struct reis_gr_priv *p = arg;
	unsigned i;

	for (i = 0; i < p->nchunks; i++)
		if (!p->ch[i].unsent && !reis_search_req_done(&p->ch[i].sr))
			return 0;
	return 1;
}

/* Submit every chunk, round robin over the members so all start at once. */
static void reis_gr_scatter(struct reis_group *g, struct reis_gr_priv *p, int ivf,
			    const struct reis_search_opts *os, const struct reis_queries *q)
{
	uint8_t op = ivf ? REIS_OP_IVF_SEARCH : REIS_OP_SEARCH;
	unsigned i;

	for (i = 0; i < p->nchunks; i++) {
		struct reis_gr_chunk *c = &p->ch[i];
		struct reis_dev *dev = g->dev[c->member];
		struct reis_queries sub = *q;
		int ret;

		sub.nq = c->nq;
		sub.bin = q->bin + (size_t)c->q0 * (q->dim / 8);
		sub.int8 = q->int8 ? q->int8 + (size_t)c->q0 * q->dim : NULL;
		for (;;) {
			ret = reis_search_submit(dev, &c->sr, op, &os[c->member], &sub, NULL, NULL);
			if (ret != -EBUSY || !reis_inflight(dev))
				break;
			reis_wait(dev, 1, -1);
		}
		if (ret) {
			c->sr.err = ret;
			c->unsent = 1;
		}
	}
}

void reis__gr_add_counts(struct reis_search_result *out, const struct reis_search_result *cr)
{
	out->flags = cr->flags;
	out->nprobe = cr->nprobe;
	out->ncmds += cr->ncmds;
	out->pages_read += cr->pages_read;
	out->entries_compared += cr->entries_compared;
	out->entries_passed += cr->entries_passed;
	out->reranked += cr->reranked;
	out->docs_bytes += cr->docs_bytes;
	out->search_ns += cr->search_ns;
	out->search_nj += cr->search_nj;
	out->read_ns += cr->read_ns;
	out->read_nj += cr->read_nj;
}

/* One member's chunks as one result (hits point at the chunks' documents). */
static int reis_gr_member_result(const struct reis_gr_priv *p, unsigned s, uint32_t nq,
				 uint32_t k, struct reis_search_result *out)
{
	unsigned i;

	memset(out, 0, sizeof(*out));
	out->nq = nq;
	out->k = k;
	out->ndbs = 1;
	out->hits = calloc((size_t)nq * k, sizeof(*out->hits));
	out->nhits = calloc(nq, sizeof(*out->nhits));
	if (!out->hits || !out->nhits)
		return -ENOMEM;
	for (i = 0; i < p->nchunks; i++) {
		const struct reis_gr_chunk *c = &p->ch[i];
		const struct reis_search_result *cr = &c->sr.res;

		if (c->member != s)
			continue;
		if (cr->nq != c->nq || cr->k != k)
			return -EPROTO;
		memcpy(out->hits + (size_t)c->q0 * k, cr->hits, (size_t)c->nq * k * sizeof(*cr->hits));
		memcpy(out->nhits + c->q0, cr->nhits, (size_t)c->nq * sizeof(*cr->nhits));
		reis__gr_add_counts(out, cr);
	}
	return 0;
}


static void reis_gr_merge_query(struct reis_group_result *r, const struct reis_gr_merge *mg,
				uint32_t qi, struct reis_gr_cand *cand)
{
	struct reis_search_result *res = &r->res;
	uint32_t nc = 0, j, s;

	for (s = 0; s < r->nmembers; s++) {
		const struct reis_search_result *pr = &r->part[s];

		if (r->part_err[s])
			continue;
		for (j = 0; j < pr->nhits[qi] && j < pr->k; j++) {
			const struct reis_hit *h = &pr->hits[(size_t)qi * pr->k + j];

			cand[nc].gentry = (uint64_t)h->entry * r->nmembers + s;
			cand[nc].ham = h->hamming;
			cand[nc].score = h->score;
			cand[nc].member = s;
			cand[nc].h = h;
			nc++;
		}
	}
	r->hits_moved += nc;
	/* The m best by (Hamming, entry) are exactly one drive's candidates. */
	qsort(cand, nc, sizeof(*cand), reis_gr_ham_cmp);
	if (mg->rerank) {
		if (nc > mg->m && !mg->all)
			nc = mg->m;
		qsort(cand, nc, sizeof(*cand), mg->l2 ? reis_gr_l2_cmp : reis_gr_ip_cmp);
	}
	for (j = 0; j < mg->k; j++) {
		struct reis_hit *h = &res->hits[(size_t)qi * mg->k + j];

		if (j >= nc) {
			h->id = REIS_HIT_NONE;
			continue;
		}
		*h = *cand[j].h;
		h->entry = (uint32_t)cand[j].gentry;
		h->did = mg->did;
		if (!mg->ids)
			h->id = cand[j].gentry;
		res->nhits[qi]++;
	}
}

int reis__gr_merge_all(struct reis_group_result *r, const struct reis_gr_merge *mg,
			     const struct reis_search_opts *o, uint32_t nq, const uint32_t *ks)
{
	struct reis_search_result *res = &r->res;
	struct reis_gr_cand *cand;
	uint64_t t0 = reis__group_now_ns(), ncand = 0;
	uint32_t qi, s;

	for (s = 0; s < r->nmembers; s++)
		ncand += ks[s];
	cand = malloc((size_t)(ncand ? ncand : 1) * sizeof(*cand));
	res->hits = calloc((size_t)nq * o->k, sizeof(*res->hits));
	res->nhits = calloc(nq, sizeof(*res->nhits));
	if (!cand || !res->hits || !res->nhits) {
		free(cand);
		return -ENOMEM;
	}
	res->nq = nq;
	res->k = o->k;
	res->flags = o->flags;
	res->ndbs = 1;
	for (s = 0; s < r->nmembers; s++) {
		const struct reis_search_result *pr = &r->part[s];

		if (r->part_err[s])
			continue;
		res->nprobe = pr->nprobe;
		res->ncmds += pr->ncmds;
		res->pages_read += pr->pages_read;
		res->entries_compared += pr->entries_compared;
		res->entries_passed += pr->entries_passed;
		res->reranked += pr->reranked;
		res->docs_bytes += pr->docs_bytes;
		/* Members run in parallel: the slowest sets the time. */
		if (pr->search_ns > res->search_ns)
			res->search_ns = pr->search_ns;
		if (pr->read_ns > res->read_ns)
			res->read_ns = pr->read_ns;
		res->search_nj += pr->search_nj;
		res->read_nj += pr->read_nj;
	}
	for (qi = 0; qi < nq; qi++)
		reis_gr_merge_query(r, mg, qi, cand);
	free(cand);
	r->search_ns = res->search_ns + res->read_ns;
	r->search_nj = res->search_nj + res->read_nj;
	r->merge_ns = reis__group_now_ns() - t0;
	return 0;
}

static int reis_gr_check(struct reis_group *g, const struct reis_search_opts *o,
			 const struct reis_queries *q, uint32_t flags, struct reis_group_result *r)
{
	int ret;

	if (!g || !o || !q || !r)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	ret = reis__group_begin(g, !!(flags & REIS_GROUP_PARTIAL));
	if (ret)
		return ret;
	if ((o->flags & REIS_SF_GROUP) || (o->flags & ~REIS_SF_ALL) || !o->k ||
	    o->k > REIS_MAX_K || !q->nq || !q->bin || o->rerank_factor > REIS_MAX_RERANK ||
	    (!(o->flags & REIS_SF_NO_RERANK) && !q->int8))
		return reis__group_fail(g, -1, -EINVAL, "bad search options");
	return 0;
}

int reis__gr_setup(struct reis_group *g, const struct reis_search_opts *o,
		   const struct reis_queries *q, uint32_t flags, struct reis_group_result *r,
		   struct reis_gr_setup *st)
{
	struct reis_gr_merge *mg = &st->mg;
	struct reis_db_info info;
	uint64_t total = 0;
	unsigned s;
	int ret = reis_gr_check(g, o, q, flags, r);

	if (ret)
		return ret;
	memset(&info, 0, sizeof(info));
	ret = reis_gr_db_facts(g, o->did, st->ns, st->fact_err, &info);
	if (ret && (!(flags & REIS_GROUP_PARTIAL) || !info.did))
		return ret;
	st->first_err = ret;
	memset(mg, 0, sizeof(*mg));
	mg->k = o->k;
	mg->rerank = !(o->flags & REIS_SF_NO_RERANK);
	mg->all = mg->rerank && (o->flags & REIS_SF_RERANK_ALL);
	mg->m = mg->rerank ? (o->rerank_factor ? o->rerank_factor : REIS_DEFAULT_RERANK) * o->k
			   : o->k;
	/* RERANK_ALL: each member's exact top-k by score, merged by score. */
	if (mg->rerank && (o->flags & REIS_SF_RERANK_ALL))
		mg->m = o->k;
	mg->l2 = info.metric == REIS_METRIC_L2;
	mg->ids = !!(info.flags & REIS_DBF_IDS);
	mg->did = o->did;
	if (mg->m > REIS_MAX_K)
		return reis__group_fail(g, -1, -E2BIG,
					"rerank factor * k = %u exceeds %u hits per member", mg->m,
					REIS_MAX_K);
	for (s = 0; s < g->n; s++)
		total += st->ns[s];
	if (o->k > total)
		return reis__group_fail(g, -1, -EINVAL, "k %u exceeds the %llu entries", o->k,
					(unsigned long long)total);
	/* Each member returns all of its m best candidates, rescored. */
	for (s = 0; s < g->n; s++) {
		st->os[s] = *o;
		st->ks[s] = st->ns[s] < mg->m ? (uint32_t)st->ns[s] : mg->m;
		st->os[s].k = st->ks[s];
		if (mg->rerank && !(o->flags & REIS_SF_RERANK_ALL))
			st->os[s].rerank_factor = 1;
	}
	r->priv = calloc(1, sizeof(struct reis_gr_priv));
	r->part = calloc(g->n, sizeof(*r->part));
	r->part_err = calloc(g->n, sizeof(*r->part_err));
	r->nmembers = g->n;
	if (!r->priv || !r->part || !r->part_err) {
		reis_group_result_free(r);
		return -ENOMEM;
	}
	for (s = 0; s < g->n; s++)
		if (st->fact_err[s]) {
			r->part_err[s] = st->fact_err[s];
			r->missing |= 1ull << s;
		}
	return 0;
}

static int reis_gr_late_busy(void *mem, unsigned n)
{
	const struct reis_gr_chunk *ch = mem;
	unsigned i;

	for (i = 0; i < n; i++)
		if (ch[i].late && !reis_search_req_done(&ch[i].sr))
			return 1;
	return 0;
}

static void reis_gr_late_release(void *mem, unsigned n)
{
	struct reis_gr_chunk *ch = mem;
	unsigned i;

	for (i = 0; i < n; i++)
		if (ch[i].late)
			reis_search_result_free(&ch[i].sr.res);	/* read, released, dropped */
	free(mem);
}

/*
 * Give up on the members in @late: their unfinished chunks fail with
 * -ETIMEDOUT. Those requests are still in flight (their memory is the
 * drive's to complete into), so the chunk array goes to the group as an
 * orphan and the call continues on a copy holding everything finished.
 */
static void reis_gr_abandon(struct reis_group *g, struct reis_gr_priv *p, uint64_t late)
{
	struct reis_gr_chunk *nc = calloc(p->nchunks ? p->nchunks : 1, sizeof(*nc));
	int tmo = g->timeout_ms;
	unsigned i;

	if (!nc || reis__group_adopt_orphan(g, p->ch, p->nchunks, reis_gr_late_busy,
					    reis_gr_late_release)) {
		/* No memory to keep them: wait for them after all. */
		free(nc);
		g->timeout_ms = -1;
		reis__group_reap(g, reis_gr_all_done, p);
		g->timeout_ms = tmo;
		return;
	}
	for (i = 0; i < p->nchunks; i++) {
		struct reis_gr_chunk *c = &p->ch[i];

		if ((late >> c->member & 1) && !c->unsent && !reis_search_req_done(&c->sr)) {
			c->late = 1;
			nc[i].member = c->member;
			nc[i].q0 = c->q0;
			nc[i].nq = c->nq;
			nc[i].unsent = 1;
			nc[i].sr.err = -ETIMEDOUT;
			snprintf(nc[i].sr.msg, sizeof(nc[i].sr.msg), "no completion within %d ms "
				 "(the group's timeout); its late commands are reaped later",
				 g->timeout_ms);
		} else {
			nc[i] = *c;	/* finished: its result moves to the copy */
			memset(&c->sr.res, 0, sizeof(c->sr.res));
			c->late = 0;
		}
	}
	p->ch = nc;
}

/* Scatter the plan in @st to every member, reap, collect @r->part[]. */
static int reis_gr_run(struct reis_group *g, int ivf, const struct reis_queries *q,
		       uint32_t flags, struct reis_group_result *r, struct reis_gr_setup *st)
{
	struct reis_gr_priv *p = r->priv;
	int ret, first_err = st->first_err;
	uint64_t late;
	unsigned s, i;

	ret = reis_gr_plan(g, q, st->ks, st->os[0].flags, p);
	if (ret)
		return ret;
	reis_gr_scatter(g, p, ivf, st->os, q);
	late = reis__group_reap(g, reis_gr_all_done, p);
	if (late)
		reis_gr_abandon(g, p, late);
	for (i = 0; i < p->nchunks; i++) {
		struct reis_gr_chunk *c = &p->ch[i];

		if (!c->sr.err || r->part_err[c->member])
			continue;
		r->part_err[c->member] = c->sr.err;
		r->missing |= 1ull << c->member;
		if (!first_err)
			first_err = reis__group_fail(g, (int)c->member, c->sr.err, "%s",
						     c->sr.msg[0] ? c->sr.msg :
						     reis_strerror(c->sr.err));
	}
	for (s = 0; s < g->n; s++) {
		if (r->part_err[s])
			continue;
		ret = reis_gr_member_result(p, s, q->nq, st->ks[s], &r->part[s]);
		if (ret) {
			r->part_err[s] = ret;
			r->missing |= 1ull << s;
			if (!first_err)
				first_err = reis__group_fail(g, (int)s, ret, "malformed result");
		}
	}
	st->first_err = first_err;
	return first_err && !(flags & REIS_GROUP_PARTIAL) ? first_err : 0;
}

/*
 * REIS_GROUP_TWO_PHASE: a binary-only pass finds, per query, how many of
 * one drive's m candidates each member holds; the rescoring pass then asks
 * each member for its largest such count over the batch instead of m.
 */
static int reis_gr_phase1(struct reis_group *g, int ivf, const struct reis_search_opts *o,
			  const struct reis_queries *q, uint32_t flags, struct reis_gr_setup *st)
{
	struct reis_gr_setup st1 = *st;
	struct reis_group_result r1;
	struct reis_gr_cand *cand;
	uint32_t need[REIS_GROUP_MAX] = { 0 }, qi, j, s, nc, cnt[REIS_GROUP_MAX];
	int ret;

	memset(&r1, 0, sizeof(r1));
	r1.priv = calloc(1, sizeof(struct reis_gr_priv));
	r1.part = calloc(g->n, sizeof(*r1.part));
	r1.part_err = calloc(g->n, sizeof(*r1.part_err));
	r1.nmembers = g->n;
	cand = malloc((size_t)g->n * st->mg.m * sizeof(*cand));
	if (!r1.priv || !r1.part || !r1.part_err || !cand) {
		free(cand);
		reis_group_result_free(&r1);
		return -ENOMEM;
	}
	for (s = 0; s < g->n; s++) {
		st1.os[s].flags |= REIS_SF_NO_RERANK;
		st1.os[s].flags &= ~REIS_SF_DOCS;
		r1.part_err[s] = st->fact_err[s];
	}
	(void)o;
	ret = reis_gr_run(g, ivf, q, flags, &r1, &st1);
	for (qi = 0; !ret && qi < q->nq; qi++) {
		for (s = 0, nc = 0; s < g->n; s++) {
			const struct reis_search_result *pr = &r1.part[s];

			for (j = 0; !r1.part_err[s] && j < pr->nhits[qi] && j < pr->k; j++) {
				cand[nc].gentry = (uint64_t)pr->hits[(size_t)qi * pr->k + j].entry *
						  g->n + s;
				cand[nc].ham = pr->hits[(size_t)qi * pr->k + j].hamming;
				cand[nc++].member = s;
			}
		}
		qsort(cand, nc, sizeof(*cand), reis_gr_ham_cmp);
		memset(cnt, 0, sizeof(cnt));
		for (j = 0; j < nc && j < st->mg.m; j++)
			cnt[cand[j].member]++;
		for (s = 0; s < g->n; s++)
			if (cnt[s] > need[s])
				need[s] = cnt[s];
	}
	for (s = 0; !ret && s < g->n; s++) {
		if (st->ks[s] && need[s] < st->ks[s])
			st->ks[s] = need[s] ? need[s] : 1;
		st->os[s].k = st->ks[s];
	}
	st->first_err = st1.first_err;
	free(cand);
	reis_group_result_free(&r1);
	return ret;
}

int reis_group_search(struct reis_group *g, int ivf, const struct reis_search_opts *o,
		      const struct reis_queries *q, uint32_t flags,
		      struct reis_group_result *r)
{
	uint64_t t0 = reis__group_now_ns();
	struct reis_gr_setup st;
	int ret;

	ret = reis__gr_setup(g, o, q, flags, r, &st);
	if (ret)
		return ret;
	if ((flags & REIS_GROUP_TWO_PHASE) && st.mg.rerank && g->n > 1)
		ret = reis_gr_phase1(g, ivf, o, q, flags, &st);
	if (!ret)
		ret = reis_gr_run(g, ivf, q, flags, r, &st);
	if (!ret)
		ret = reis__gr_merge_all(r, &st.mg, o, q->nq, st.ks);
	if (ret) {
		reis_group_result_free(r);
		return ret;
	}
	r->partial = st.first_err != 0;
	r->host_ns = reis__group_now_ns() - t0;
	r->res.host_ns = r->host_ns;
	return st.first_err;
}
