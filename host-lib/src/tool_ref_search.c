/* SPDX-License-Identifier: MIT */
/*
 * tool_ref_search.c - ground truth and the drive's search recomputed on the host:
 * exact float top-k, recall@k, the reference of command-set §4 (tag and
 * distance filters, IVF coarse search, factor*k candidates by (Hamming,
 * entry), INT8 rerank, ordering, padding) and the recall->nprobe
 * calibration built on it. Straightforward on purpose: tests compare the
 * drive with it hit by hit.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "libreis_tools.h"
#include "drive_reis_priv.h"

/* ---------------------------------------------------------------------- */
/* Exact float top-k                                                       */
/* ---------------------------------------------------------------------- */

struct reis_sc {
	float s;
	uint32_t id;
};

/* a ranks before b: IP higher first, L2 lower first, ties to lower id. */
static int reis_sc_better(const struct reis_sc *a, const struct reis_sc *b, int ip)
{
	if (a->s != b->s)
		return ip ? a->s > b->s : a->s < b->s;
	return a->id < b->id;
}

/* Heap with the worst element at the root. */
static void reis_sc_sift(struct reis_sc *h, uint32_t n, uint32_t i, int ip)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, w = i;
		struct reis_sc tmp;

		if (l < n && reis_sc_better(&h[w], &h[l], ip))
			w = l;
		if (r < n && reis_sc_better(&h[w], &h[r], ip))
			w = r;
		if (w == i)
			return;
		tmp = h[i];
		h[i] = h[w];
		h[w] = tmp;
		i = w;
	}
}

static void reis_sc_push(struct reis_sc *h, uint32_t *n, uint32_t k, struct reis_sc c,
			 int ip)
{
	uint32_t i;

	if (*n < k) {
		i = (*n)++;
		h[i] = c;
		while (i) {
			uint32_t p = (i - 1) / 2;
			struct reis_sc tmp;

			if (!reis_sc_better(&h[p], &h[i], ip))
				break;
			tmp = h[p];
			h[p] = h[i];
			h[i] = tmp;
			i = p;
		}
		return;
	}
	if (!reis_sc_better(&c, &h[0], ip))
		return;
	h[0] = c;
	reis_sc_sift(h, k, 0, ip);
}

int reis_exact_topk(const float *base, uint64_t n, uint32_t dim, const float *q,
		    uint32_t nq, uint32_t k, uint32_t metric, uint32_t *ids,
		    float *scores)
{
	struct reis_sc *heaps;
	uint32_t *cnt, j;
	uint64_t i;
	int ip = metric == REIS_METRIC_IP;

	if (!base || !q || !ids || !dim || !k || k > n || n > UINT32_MAX ||
	    metric > REIS_METRIC_L2)
		return -EINVAL;
	heaps = malloc((size_t)nq * k * sizeof(*heaps));
	cnt = calloc(nq ? nq : 1, sizeof(*cnt));
	if (!heaps || !cnt) {
		free(heaps);
		free(cnt);
		return -ENOMEM;
	}
	/* Base-major: each base vector is loaded once for all queries. */
	for (i = 0; i < n; i++) {
		const float *b = base + i * dim;

		for (j = 0; j < nq; j++) {
			struct reis_sc c;

			c.s = ip ? reis__dot(q + (size_t)j * dim, b, dim) :
				   reis__l2sq(q + (size_t)j * dim, b, dim);
			c.id = (uint32_t)i;
			reis_sc_push(heaps + (size_t)j * k, &cnt[j], k, c, ip);
		}
	}
	for (j = 0; j < nq; j++) {
		struct reis_sc *h = heaps + (size_t)j * k;
		uint32_t m = cnt[j];

		/* Pop worst-first into the back of the output. */
		while (m) {
			ids[(size_t)j * k + m - 1] = h[0].id;
			if (scores)
				scores[(size_t)j * k + m - 1] = h[0].s;
			h[0] = h[m - 1];
			m--;
			reis_sc_sift(h, m, 0, ip);
		}
	}
	free(heaps);
	free(cnt);
	return 0;
}

/* The Hamming distance of two codes; 8-byte aligned codes skip the copy. */
static uint32_t reis_knn_ham(const uint8_t *a, const uint8_t *b, uint32_t bytes)
{
	if (!(bytes & 7u) && !(((uintptr_t)a | (uintptr_t)b) & 7u))
		return reis__hamming64((const uint64_t *)(const void *)a,
				       (const uint64_t *)(const void *)b, bytes / 8);
	return reis_hamming(a, b, bytes);
}

int reis_hamming_knn(const uint8_t *base, uint64_t n, const uint8_t *q, uint32_t nq,
		     uint32_t bytes, uint32_t k, uint32_t *ids, uint32_t *dist)
{
	uint32_t j;
	uint64_t i;

	if (!base || (!q && nq) || !ids || !dist || !bytes || !k || k > n || n > UINT32_MAX)
		return -EINVAL;
	for (j = 0; j < nq; j++) {
		const uint8_t *qj = q + (size_t)j * bytes;
		uint32_t *id = ids + (size_t)j * k, *d = dist + (size_t)j * k, m = 0;

		/* A sorted list of the best m <= k: entries come in ascending
		 * order, so an equal distance never displaces an earlier one. */
		for (i = 0; i < n; i++) {
			uint32_t h = reis_knn_ham(qj, base + i * bytes, bytes), lo = 0, hi;

			if (m == k && h >= d[k - 1])
				continue;
			hi = m;
			while (lo < hi) {
				uint32_t mid = (lo + hi) / 2;

				if (d[mid] <= h)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (m < k)
				m++;
			memmove(d + lo + 1, d + lo, (size_t)(m - 1 - lo) * sizeof(*d));
			memmove(id + lo + 1, id + lo, (size_t)(m - 1 - lo) * sizeof(*id));
			d[lo] = h;
			id[lo] = (uint32_t)i;
		}
	}
	return 0;
}

double reis_recall(const struct reis_hit *hits, uint32_t hits_stride,
		   const uint32_t *truth, uint32_t truth_stride, uint32_t nq, uint32_t k)
{
	double total = 0;
	uint32_t qi, a, b;

	if (!hits || !truth || !nq || !k || hits_stride < k || truth_stride < k)
		return 0;
	for (qi = 0; qi < nq; qi++) {
		uint32_t found = 0;

		for (a = 0; a < k; a++) {
			uint64_t want = truth[(size_t)qi * truth_stride + a];

			for (b = 0; b < k; b++)
				if (hits[(size_t)qi * hits_stride + b].id == want) {
					found++;
					break;
				}
		}
		total += (double)found / k;
	}
	return total / nq;
}

/* ---------------------------------------------------------------------- */
/* Reference search                                                        */
/* ---------------------------------------------------------------------- */

struct reis_cand {
	uint64_t entry;
	uint32_t ham;
	uint32_t db;		/* index into the searched images */
	uint32_t did;		/* ties between databases: lower did first */
	uint32_t rsvd;
	int64_t score;
};

static int reis_cand_ham_cmp(const void *pa, const void *pb)
{
	const struct reis_cand *a = pa, *b = pb;

	if (a->ham != b->ham)
		return a->ham < b->ham ? -1 : 1;
	if (a->did != b->did)
		return a->did < b->did ? -1 : 1;
	return a->entry < b->entry ? -1 : a->entry > b->entry;
}

static int reis_cand_score_cmp(const void *pa, const void *pb, void *l2)
{
	const struct reis_cand *a = pa, *b = pb;

	if (a->score != b->score) {
		if (*(const int *)l2)
			return a->score < b->score ? -1 : 1;
		return a->score > b->score ? -1 : 1;
	}
	return reis_cand_ham_cmp(pa, pb);
}

int reis__ref_nprobe(const struct reis_db_image *img, const struct reis_search_opts *o,
		     uint32_t *nprobe)
{
	uint32_t i;

	if (o->nprobe) {
		*nprobe = o->nprobe < img->nlist ? o->nprobe : img->nlist;
		return 0;
	}
	if (!img->ncalib || !img->calib)
		return -EINVAL;
	for (i = 0; i < img->ncalib; i++)
		if (img->calib[i].recall >= o->target_recall)
			break;
	if (i == img->ncalib)
		i = img->ncalib - 1;
	*nprobe = img->calib[i].nprobe < img->nlist ? img->calib[i].nprobe : img->nlist;
	return 0;
}

struct reis_ref_ctx {
	uint32_t *hams;		/* per candidate entry of one image */
	uint64_t *ents;
	struct reis_cand *sc;	/* candidates of one image before the cut */
	uint64_t cap;
	struct reis_cand *cl;	/* coarse: per cluster */
	uint32_t cl_cap;
};

static int reis_ref_grow(struct reis_ref_ctx *c, uint64_t n)
{
	if (n <= c->cap)
		return 0;
	free(c->hams);
	free(c->ents);
	free(c->sc);
	c->hams = malloc(n * sizeof(*c->hams));
	c->ents = malloc(n * sizeof(*c->ents));
	c->sc = malloc(n * sizeof(*c->sc));
	c->cap = n;
	return c->hams && c->ents && c->sc ? 0 : -ENOMEM;
}

/*
 * The candidates of query @qi in image @img (index @dbi): appended to
 * @cands (capacity m per image). Returns the number added or -errno.
 */
static int64_t reis_ref_one_db(struct reis_ref_ctx *c, const struct reis_db_image *img,
			       uint32_t dbi, int ivf, const struct reis_search_opts *o,
			       const uint8_t *qb, uint32_t nprobe, uint32_t m,
			       struct reis_cand *cands)
{
	uint32_t words = img->dim / 64, thr, cut, hist_n;
	uint64_t e, nent = 0, kept = 0, *hist, below = 0, ties = 0;
	uint64_t qw[REIS_DB_MAX_DIM / 64];
	struct reis_image_priv *p = img->priv;
	int64_t added = 0;
	int aligned;

	memcpy(qw, qb, img->dim / 8);
	thr = o->df_threshold ? o->df_threshold : img->df_threshold;
	if (o->flags & REIS_SF_NO_DF)
		thr = 0;
	if (reis_ref_grow(c, img->n))
		return -ENOMEM;

	if (ivf) {
		uint32_t j;

		if (c->cl_cap < img->nlist) {
			free(c->cl);
			c->cl = malloc(img->nlist * sizeof(*c->cl));
			c->cl_cap = img->nlist;
			if (!c->cl)
				return -ENOMEM;
		}
		for (j = 0; j < img->nlist; j++) {
			uint64_t cw[REIS_DB_MAX_DIM / 64];

			memcpy(cw, img->centroids + (size_t)j * (img->dim / 8), img->dim / 8);
			c->cl[j].ham = reis__hamming64(qw, cw, words);
			c->cl[j].entry = j;
			c->cl[j].db = 0;
			c->cl[j].did = 0;
		}
		qsort(c->cl, img->nlist, sizeof(*c->cl), reis_cand_ham_cmp);
		for (j = 0; j < nprobe; j++) {
			uint64_t cl = c->cl[j].entry;

			for (e = p->cluster_start[cl]; e < p->cluster_start[cl + 1]; e++)
				c->ents[nent++] = e;
		}
	} else {
		for (e = 0; e < img->n; e++)
			c->ents[e] = e;
		nent = img->n;
	}

	/* Distances of every entry that passes the tag and DF filters. */
	aligned = ((uintptr_t)img->bin % 8) == 0;
	for (e = 0; e < nent; e++) {
		uint64_t ent = c->ents[e], xw[REIS_DB_MAX_DIM / 64];
		const uint64_t *xp = (const uint64_t *)(const void *)(img->bin +
								       ent * (img->dim / 8));
		uint32_t h;

		if ((o->flags & REIS_SF_TAG) && (!img->tags || img->tags[ent] != o->tag))
			continue;
		if (!aligned) {
			memcpy(xw, xp, img->dim / 8);
			xp = xw;
		}
		h = reis__hamming64(qw, xp, words);
		if (thr && h >= thr)
			continue;
		c->ents[kept] = ent;
		c->hams[kept] = h;
		kept++;
	}
	/* The m first by (Hamming, entry): a histogram finds the cut. */
	hist_n = img->dim + 1;
	hist = calloc(hist_n, sizeof(*hist));
	if (!hist)
		return -ENOMEM;
	for (e = 0; e < kept; e++)
		hist[c->hams[e]]++;
	for (cut = 0; cut < hist_n; cut++) {
		if (below + hist[cut] >= m)
			break;
		below += hist[cut];
	}
	free(hist);
	/* Everything under the cut; of the ties at the cut, the lowest entries. */
	for (e = 0; e < kept; e++) {
		struct reis_cand *dst;

		if (c->hams[e] > cut)
			continue;
		dst = c->hams[e] < cut ? &cands[added++] : &c->sc[ties++];
		dst->entry = c->ents[e];
		dst->ham = c->hams[e];
		dst->db = dbi;
		dst->did = img->did;
		dst->score = 0;
	}
	if (ties > m - (uint64_t)added) {
		qsort(c->sc, (size_t)ties, sizeof(*c->sc), reis_cand_ham_cmp);
		ties = m - (uint64_t)added;
	}
	memcpy(cands + added, c->sc, (size_t)ties * sizeof(*cands));
	added += (int64_t)ties;
	return added;
}

static void reis_ref_rerank(const struct reis_db_image *img, const int8_t *q8,
			    struct reis_cand *cands, uint32_t n)
{
	uint32_t i, d;

	for (i = 0; i < n; i++) {
		const int8_t *x8 = img->int8 + cands[i].entry * img->dim;
		int64_t s = 0;

		if (img->metric == REIS_METRIC_L2) {
			for (d = 0; d < img->dim; d++) {
				int32_t t = (int32_t)q8[d] - (int32_t)x8[d];

				s += t * t;
			}
		} else {
			for (d = 0; d < img->dim; d++)
				s += (int32_t)q8[d] * (int32_t)x8[d];
		}
		cands[i].score = s;
	}
}

int reis_ref_search(const struct reis_db_image *const *dbs, unsigned ndbs, int ivf,
		    const struct reis_search_opts *o, const struct reis_queries *q,
		    struct reis_search_result *res)
{
	struct reis_ref_ctx ctx;
	struct reis_cand *cands = NULL;
	uint32_t m, factor, qi, dbi, dim, nprobe = 0;
	int rerank, l2, ret = 0;
	uint64_t total_n;
	unsigned i;

	if (!dbs || !ndbs || !o || !q || !res)
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	dim = dbs[0]->dim;
	if (!o->k || o->k > REIS_MAX_K || q->dim != dim || !q->bin || !q->nq ||
	    o->rerank_factor > REIS_MAX_RERANK || (o->flags & ~REIS_SF_ALL))
		return -EINVAL;
	rerank = !(o->flags & REIS_SF_NO_RERANK);
	if ((rerank && !q->int8) || (!rerank && (o->flags & REIS_SF_RERANK_ALL)))
		return -EINVAL;
	/* What the drive refuses with Invalid Field (reis_search.c's checks). */
	for (i = 0, total_n = 0; i < ndbs; i++) {
		const struct reis_db_image *d = dbs[i];

		if (!d->priv || d->dim != dim || (ivf && d->kind != REIS_DB_IVF) ||
		    (rerank && !d->int8) || ((o->flags & REIS_SF_TAG) && !d->tags) ||
		    (ivf && !o->nprobe && !d->ncalib) || d->metric != dbs[0]->metric ||
		    o->df_threshold > d->dim)
			return -EINVAL;
		if (ivf && reis__ref_nprobe(d, o, &nprobe))
			return -EINVAL;
		total_n += d->n;
	}
	if (o->k > total_n)
		return -EINVAL;
	factor = o->rerank_factor ? o->rerank_factor : REIS_DEFAULT_RERANK;
	m = factor * o->k;
	if (rerank && (o->flags & REIS_SF_RERANK_ALL))
		for (i = 0, m = 0; i < ndbs; i++)	/* each database's every entry */
			m = dbs[i]->n > m ? (uint32_t)dbs[i]->n : m;
	l2 = dbs[0]->metric == REIS_METRIC_L2;
	memset(&ctx, 0, sizeof(ctx));
	cands = malloc((size_t)m * ndbs * sizeof(*cands));
	res->hits = calloc((size_t)q->nq * o->k, sizeof(*res->hits));
	res->nhits = calloc(q->nq, sizeof(*res->nhits));
	if (!cands || !res->hits || !res->nhits) {
		ret = -ENOMEM;
		goto out;
	}
	res->nq = q->nq;
	res->k = o->k;
	res->flags = o->flags;
	res->ndbs = ndbs;
	for (qi = 0; qi < q->nq; qi++) {
		const uint8_t *qb = q->bin + (size_t)qi * (dim / 8);
		const int8_t *q8 = rerank ? q->int8 + (size_t)qi * dim : NULL;
		uint64_t total = 0;
		uint32_t j;

		for (dbi = 0; dbi < ndbs; dbi++) {
			const struct reis_db_image *img = dbs[dbi];
			int64_t got;

			if (ivf)
				reis__ref_nprobe(img, o, &nprobe);
			got = reis_ref_one_db(&ctx, img, dbi, ivf, o, qb, nprobe, m,
					      cands + total);
			if (got < 0) {
				ret = (int)got;
				goto out;
			}
			if (rerank && img->int8)
				reis_ref_rerank(img, q8, cands + total, (uint32_t)got);
			total += (uint64_t)got;
		}
		res->nprobe = nprobe;
		if (rerank)
			qsort_r(cands, total, sizeof(*cands), reis_cand_score_cmp, &l2);
		else
			qsort(cands, total, sizeof(*cands), reis_cand_ham_cmp);
		for (j = 0; j < o->k; j++) {
			struct reis_hit *h = &res->hits[(size_t)qi * o->k + j];

			if (j >= total) {
				h->id = REIS_HIT_NONE;
				continue;
			}
			{
				const struct reis_db_image *img = dbs[cands[j].db];

				h->id = img->ids ? img->ids[cands[j].entry] : cands[j].entry;
				h->entry = (uint32_t)cands[j].entry;
				h->did = img->did;
				h->hamming = cands[j].ham;
				h->score = rerank ? cands[j].score : 0;
				if ((o->flags & REIS_SF_DOCS) && img->docs)
					h->doc = reis_db_image_doc(img, cands[j].entry, &h->doc_len);
			}
			res->nhits[qi]++;
		}
	}
out:
	free(cands);
	free(ctx.hams);
	free(ctx.ents);
	free(ctx.sc);
	free(ctx.cl);
	if (ret)
		reis_search_result_free(res);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Calibration                                                             */
/* ---------------------------------------------------------------------- */

/* 1 2 3 4 6 8 12 16 24 32 48 ...: two points per doubling, up to nlist. */
uint32_t reis__calib_next_nprobe(uint32_t np, uint32_t nlist)
{
	if (np < 4)
		np++;
	else if ((np & (np - 1)) == 0)
		np += np / 2;
	else
		np = np / 3 * 4;
	return np > nlist ? nlist : np;
}

int reis_ivf_calibrate(const struct reis_db_image *img, const float *queries,
		       uint32_t nq, const uint32_t *truth, uint32_t truth_stride,
		       uint32_t k, uint32_t factor, struct reis_calib *out, unsigned max)
{
	const struct reis_db_image *dbs[1] = { img };
	struct reis_search_opts o;
	struct reis_queries q;
	uint32_t np = 1, last = 0;
	unsigned cnt = 0;
	int ret;

	if (!img || img->kind != REIS_DB_IVF || !img->priv || !img->quant || !queries ||
	    !nq || !truth || !k || truth_stride < k || !out || !max)
		return -EINVAL;
	ret = reis_encode_queries(img->quant, queries, nq, &q);
	if (ret)
		return ret;
	memset(&o, 0, sizeof(o));
	o.did = img->did;
	o.k = k;
	o.rerank_factor = factor;
	for (;;) {
		struct reis_search_result res;
		uint32_t r;

		o.nprobe = np;
		ret = reis_ref_search(dbs, 1, 1, &o, &q, &res);
		if (ret)
			break;
		r = (uint32_t)floor(reis_recall(res.hits, k, truth, truth_stride, nq, k) *
				    10000.0);
		reis_search_result_free(&res);
		if ((r > last || !cnt) && cnt < max) {
			out[cnt].recall = r;
			out[cnt].nprobe = np;
			cnt++;
			last = r;
		}
		if (np >= img->nlist || r >= 10000)
			break;
		np = reis__calib_next_nprobe(np, img->nlist);
	}
	reis_queries_free(&q);
	return ret ? ret : (int)cnt;
}
