/* SPDX-License-Identifier: MIT */
/*
 * tool_recall_est.c - what recall a search mode gives, measured when the
 * database is built (docs/reis.md §1.4): the recall -> nprobe table of an
 * IVF database that got no held-out queries, and the estimates of
 * REIS_BUILD_ESTIMATE (approximate, binary-only and exact modes).
 *
 * Without held-out queries, rows of the database stand in for them, each
 * left out of its own exact neighbours and of its own hits (its binary
 * code is at Hamming distance 0, so it would always be found): a
 * deterministic, evenly spaced sample, as many rows as an exact top-k of
 * REIS_EST_MACS multiply-adds allows (8..200).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "libreis_tools.h"
#include "drive_reis_priv.h"

#define REIS_EST_MACS 5e8	/* the sample's exact top-k: about a second */
#define REIS_EST_MIN_Q 8u
#define REIS_EST_MAX_Q 200u

/* The queries recall is measured on, and their exact neighbours. */
struct reis_est_set {
	const float *q;		/* nq * dim floats */
	float *own;		/* the sampled rows' copy (self) */
	uint32_t nq;
	uint32_t *truth;	/* nq * stride row numbers, best first */
	uint32_t stride;
	uint64_t *self;		/* self: the row each query is, else NULL */
	uint32_t k;
};

static void reis_est_set_free(struct reis_est_set *s)
{
	free(s->own);
	free(s->truth);
	free(s->self);
	memset(s, 0, sizeof(*s));
}

/* Rows of @x as queries, each with its k + 1 exact neighbours. */
static int reis_est_self(struct reis_est_set *s, const float *x, uint64_t n, uint32_t dim,
			 uint32_t metric, uint32_t k)
{
	double fit = REIS_EST_MACS / ((double)n * dim);
	uint64_t m = fit < REIS_EST_MIN_Q ? REIS_EST_MIN_Q : fit > REIS_EST_MAX_Q ?
		     REIS_EST_MAX_Q : (uint64_t)fit, i;
	int ret;

	memset(s, 0, sizeof(*s));
	if (n < 2)
		return -EINVAL;
	if (m > n / 2)
		m = n / 2 ? n / 2 : 1;
	s->k = k < n - 1 ? k : (uint32_t)(n - 1);
	s->nq = (uint32_t)m;
	s->stride = s->k + 1;
	s->own = malloc((size_t)m * dim * sizeof(float));
	s->self = malloc((size_t)m * sizeof(*s->self));
	s->truth = malloc((size_t)m * s->stride * sizeof(*s->truth));
	if (!s->own || !s->self || !s->truth) {
		reis_est_set_free(s);
		return -ENOMEM;
	}
	for (i = 0; i < m; i++) {
		s->self[i] = (i * n + n / 2) / m;
		memcpy(s->own + (size_t)i * dim, x + s->self[i] * dim, (size_t)dim * sizeof(float));
	}
	s->q = s->own;
	ret = reis_exact_topk(x, n, dim, s->q, s->nq, s->stride, metric, s->truth, NULL);
	if (ret)
		reis_est_set_free(s);
	return ret;
}

/*
 * Recall@k of one search (@o, @ivf) over @view on @s, in 1/10000: with
 * self queries the search asks k + 1 hits and each query's own row is
 * dropped from its hits and its truth before counting.
 */
static int reis_est_measure(const struct reis_db_image *view, const struct reis_est_set *s,
			    const struct reis_search_opts *o, int ivf, uint32_t *recall)
{
	const struct reis_db_image *dbs[1] = { view };
	struct reis_search_opts so = *o;
	struct reis_search_result res;
	struct reis_queries q;
	uint32_t qi, k = s->k, ask = s->self ? k + 1 : k;
	double total = 0;
	int ret;

	ret = reis_encode_queries(view->quant, s->q, s->nq, &q);
	if (ret)
		return ret;
	so.k = ask;
	ret = reis_ref_search(dbs, 1, ivf, &so, &q, &res);
	reis_queries_free(&q);
	if (ret)
		return ret;
	for (qi = 0; qi < s->nq; qi++) {
		const uint32_t *t = s->truth + (size_t)qi * s->stride;
		const struct reis_hit *h = res.hits + (size_t)qi * ask;
		uint64_t me = s->self ? s->self[qi] : UINT64_MAX;
		uint32_t a, b, ta = 0, found = 0;

		for (a = 0; a < s->stride && ta < k; a++) {
			uint32_t hb = 0;

			if (t[a] == me)
				continue;
			ta++;
			for (b = 0; b < res.nhits[qi] && hb < k; b++) {
				if (h[b].id == me)
					continue;
				hb++;
				if (h[b].id == t[a]) {
					found++;
					break;
				}
			}
		}
		total += (double)found / k;
	}
	reis_search_result_free(&res);
	*recall = (uint32_t)floor(total / s->nq * 10000.0);
	return 0;
}

/* recall -> nprobe at 1 2 3 4 6 8 12 16 24 32 48 ... as reis_ivf_calibrate(). */
static int reis_est_calibrate(const struct reis_db_image *view, const struct reis_est_set *s,
			      uint32_t factor, struct reis_calib *out, unsigned max)
{
	struct reis_search_opts o;
	uint32_t np = 1, last = 0, r;
	unsigned cnt = 0;
	int ret;

	memset(&o, 0, sizeof(o));
	o.did = view->did;
	if (view->flags & REIS_DBF_INT8)
		o.rerank_factor = factor;
	else
		o.flags = REIS_SF_NO_RERANK;	/* what a search of it does */
	for (;;) {
		o.nprobe = np;
		ret = reis_est_measure(view, s, &o, 1, &r);
		if (ret)
			return ret;
		if ((r > last || !cnt) && cnt < max) {
			out[cnt].recall = r;
			out[cnt].nprobe = np;
			cnt++;
			last = r;
		}
		if (np >= view->nlist || r >= 10000)
			break;
		np = reis__calib_next_nprobe(np, view->nlist);
	}
	return (int)cnt;
}

static void reis_est_add(struct reis_recall_est *e, uint32_t mode, const struct reis_est_set *s,
			 uint32_t factor, uint32_t nprobe, uint32_t recall)
{
	memset(e, 0, sizeof(*e));
	e->mode = mode;
	e->k = s->k;
	e->factor = mode == REIS_EST_APPROX ? factor : 0;
	e->nprobe = nprobe;
	e->recall = recall;
	e->nq = s->nq;
	e->self = s->self != NULL;
}

int reis__build_estimate(struct reis_db_image *img, struct reis_db_image *view,
			 const float *x, const struct reis_build_opts *o, char *err,
			 size_t errlen)
{
	struct reis_image_priv *p = img->priv;
	struct reis_est_set s;
	struct reis_search_opts so;
	uint32_t k = o->calib_k ? o->calib_k : 10;
	uint32_t factor = o->calib_factor ? o->calib_factor : REIS_DEFAULT_RERANK;
	uint32_t r, nprobe = 0, i;
	int self_calib = img->kind == REIS_DB_IVF && !img->ncalib &&
			 !(o->flags & REIS_BUILD_NO_CALIB);
	int ret, cnt;

	if (!self_calib && !(o->flags & REIS_BUILD_ESTIMATE))
		return 0;
	memset(&s, 0, sizeof(s));
	if (o->calib_queries && o->ncalib_queries) {
		/* held-out queries (at most REIS_EST_MAX_Q of them): their exact
		 * top-k, computed here */
		s.q = o->calib_queries;
		s.nq = o->ncalib_queries < REIS_EST_MAX_Q ? o->ncalib_queries : REIS_EST_MAX_Q;
		s.k = k < img->n ? k : (uint32_t)img->n;
		s.stride = s.k;
		s.truth = malloc((size_t)s.nq * s.k * sizeof(*s.truth));
		if (!s.truth)
			return reis__errf(err, errlen, -ENOMEM, "out of memory");
		ret = reis_exact_topk(x, img->n, img->dim, s.q, s.nq, s.k, img->metric, s.truth,
				      NULL);
	} else {
		ret = reis_est_self(&s, x, img->n, img->dim, img->metric, k);
	}
	if (ret) {
		reis_est_set_free(&s);
		return ret == -EINVAL ? 0 : reis__errf(err, errlen, ret, "recall estimate: %s",
						      reis_strerror(ret));
	}
	if (self_calib) {
		p->calib = calloc(REIS_DB_MAX_CALIB, sizeof(*p->calib));
		cnt = p->calib ? reis_est_calibrate(view, &s, factor, p->calib, REIS_DB_MAX_CALIB)
			       : -ENOMEM;
		if (cnt < 0) {
			reis_est_set_free(&s);
			return reis__errf(err, errlen, cnt, "calibration on held-out rows: %s",
					  reis_strerror(cnt));
		}
		img->calib = view->calib = p->calib;
		img->ncalib = view->ncalib = (uint32_t)cnt;
	}
	if (!(o->flags & REIS_BUILD_ESTIMATE)) {
		reis_est_set_free(&s);
		return 0;
	}
	/* IVF: at the nprobe a search with the default recall 0.95 probes */
	if (img->kind == REIS_DB_IVF && img->ncalib) {
		nprobe = img->calib[img->ncalib - 1].nprobe;
		for (i = 0; i < img->ncalib; i++)
			if (img->calib[i].recall >= 9500) {
				nprobe = img->calib[i].nprobe;
				break;
			}
	}
	p->recall = calloc(3, sizeof(*p->recall));
	if (!p->recall) {
		reis_est_set_free(&s);
		return reis__errf(err, errlen, -ENOMEM, "out of memory");
	}
	memset(&so, 0, sizeof(so));
	so.did = img->did;
	so.nprobe = nprobe;
	so.rerank_factor = factor;
	ret = 0;
	if ((img->flags & REIS_DBF_INT8) && !(ret = reis_est_measure(view, &s, &so, !!nprobe, &r)))
		reis_est_add(&p->recall[img->nrecall++], REIS_EST_APPROX, &s, factor, nprobe, r);
	so.flags = REIS_SF_NO_RERANK;
	so.rerank_factor = 0;
	if (!ret && !(ret = reis_est_measure(view, &s, &so, !!nprobe, &r)))
		reis_est_add(&p->recall[img->nrecall++], REIS_EST_BINARY, &s, 0, nprobe, r);
	so.flags = REIS_SF_RERANK_ALL | REIS_SF_NO_DF;
	so.nprobe = 0;
	if (!ret && (img->flags & REIS_DBF_INT8) && !(ret = reis_est_measure(view, &s, &so, 0, &r)))
		reis_est_add(&p->recall[img->nrecall++], REIS_EST_EXACT, &s, 0, 0, r);
	reis_est_set_free(&s);
	if (ret)
		return reis__errf(err, errlen, ret, "recall estimate: %s", reis_strerror(ret));
	img->recall = p->recall;
	return 0;
}
