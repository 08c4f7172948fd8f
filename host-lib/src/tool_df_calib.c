/* SPDX-License-Identifier: MIT */
/*
 * tool_df_calib.c - distance-filtering threshold calibration (REIS 4.3.3): the
 * Hamming distance below which an entry crosses the channel, chosen from
 * calibration queries so that each keeps its factor * k nearest entries
 * (the candidates the drive reranks) while the dies drop the rest.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libreis_tools.h"
#include "drive_reis_priv.h"

struct reis_df_cl {
	uint32_t ham;
	uint32_t cl;
};

static int reis_df_cl_cmp(const void *a, const void *b)
{
	const struct reis_df_cl *x = a, *y = b;

	if (x->ham != y->ham)
		return x->ham < y->ham ? -1 : 1;
	return x->cl < y->cl ? -1 : x->cl > y->cl;
}

static int reis_u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Distance histogram (@hist, dim + 1 bins) of the entries query @qb
 * searches: the @nprobe nearest clusters by (Hamming, cluster) for IVF,
 * all for BF (@nprobe 0). Returns the number of entries.
 */
static uint64_t reis_df_hist(const struct reis_db_image *img, const uint8_t *qb,
			     uint32_t nprobe, struct reis_df_cl *cls, uint64_t *hist)
{
	const struct reis_image_priv *p = img->priv;
	uint32_t bytes = img->dim / 8, words = img->dim / 64, j;
	uint64_t qw[REIS_DB_MAX_DIM / 64], xw[REIS_DB_MAX_DIM / 64], e, n = 0;

	memcpy(qw, qb, bytes);
	memset(hist, 0, (img->dim + 1) * sizeof(*hist));
	if (!nprobe) {
		for (e = 0; e < img->n; e++) {
			memcpy(xw, img->bin + e * bytes, bytes);
			hist[reis__hamming64(qw, xw, words)]++;
		}
		return img->n;
	}
	for (j = 0; j < img->nlist; j++) {
		memcpy(xw, img->centroids + (size_t)j * bytes, bytes);
		cls[j].ham = reis__hamming64(qw, xw, words);
		cls[j].cl = j;
	}
	qsort(cls, img->nlist, sizeof(*cls), reis_df_cl_cmp);
	for (j = 0; j < nprobe; j++) {
		uint32_t cl = cls[j].cl;

		for (e = p->cluster_start[cl]; e < p->cluster_start[cl + 1]; e++) {
			memcpy(xw, img->bin + e * bytes, bytes);
			hist[reis__hamming64(qw, xw, words)]++;
			n++;
		}
	}
	return n;
}

int reis_df_calibrate(const struct reis_db_image *img, const struct reis_queries *q,
		      const struct reis_df_opts *o, struct reis_df_calib *out)
{
	static const struct reis_df_opts defaults;
	struct reis_df_cl *cls = NULL;
	uint64_t *hist = NULL, searched = 0, passed = 0;
	uint32_t *d = NULL, *sorted = NULL, nprobe = 0, cand, k, factor, quantile, qi, sel;
	uint32_t nshort = 0;
	int ret = -ENOMEM;

	if (!o)
		o = &defaults;
	if (!img || !img->priv || !img->bin || !q || !q->bin || !q->nq || !out ||
	    q->dim != img->dim || o->k > REIS_MAX_K || o->factor > REIS_MAX_RERANK ||
	    o->quantile > 10000 || o->target_recall > 10000 || o->rsvd)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	k = o->k ? o->k : 10;
	factor = o->factor ? o->factor : REIS_DEFAULT_RERANK;
	quantile = o->quantile ? o->quantile : REIS_DF_DEFAULT_QUANTILE;
	cand = k * factor;
	if (img->kind == REIS_DB_IVF) {
		struct reis_search_opts so;
		const struct reis_image_priv *p = img->priv;

		if (!img->centroids || !p->cluster_start)
			return -EINVAL;
		memset(&so, 0, sizeof(so));
		so.nprobe = o->nprobe;
		so.target_recall = o->target_recall ? o->target_recall : 9500;
		if (reis__ref_nprobe(img, &so, &nprobe) || !nprobe)
			return -EINVAL;
		cls = malloc(img->nlist * sizeof(*cls));
		if (!cls)
			return -ENOMEM;
	}
	hist = malloc((img->dim + 1) * sizeof(*hist));
	d = malloc(q->nq * sizeof(*d));
	sorted = malloc(q->nq * sizeof(*sorted));
	if (!hist || !d || !sorted)
		goto out;

	/* d(q): distance of the cand-th nearest searched entry. */
	for (qi = 0; qi < q->nq; qi++) {
		const uint8_t *qb = q->bin + (size_t)qi * (img->dim / 8);
		uint64_t n = reis_df_hist(img, qb, nprobe, cls, hist), below = 0, want;
		uint32_t h;

		want = n < cand ? n : cand;
		for (h = 0; h < img->dim && below + hist[h] < want; h++)
			below += hist[h];
		d[qi] = want ? h : 0;
	}
	memcpy(sorted, d, q->nq * sizeof(*d));
	qsort(sorted, q->nq, sizeof(*sorted), reis_u32_cmp);
	sel = (uint32_t)(((uint64_t)quantile * q->nq + 9999) / 10000);
	sel = sel ? sel - 1 : 0;
	if (sel >= q->nq)
		sel = q->nq - 1;
	out->threshold = sorted[sel] + 1 <= img->dim ? sorted[sel] + 1 : 0;
	out->nprobe = nprobe;
	out->cand = cand;
	out->nq = q->nq;
	out->d_min = sorted[0];
	out->d_median = sorted[q->nq / 2];
	out->d_max = sorted[q->nq - 1];

	/* What the threshold lets through, and who it leaves short. */
	for (qi = 0; qi < q->nq; qi++) {
		const uint8_t *qb = q->bin + (size_t)qi * (img->dim / 8);
		uint64_t n = reis_df_hist(img, qb, nprobe, cls, hist), pass = 0;
		uint32_t h;

		if (!out->threshold) {
			pass = n;
		} else {
			for (h = 0; h < out->threshold; h++)
				pass += hist[h];
		}
		searched += n;
		passed += pass;
		nshort += pass < (n < cand ? n : cand);
	}
	out->pass_frac = searched ? (double)passed / (double)searched : 1.0;
	out->short_frac = (double)nshort / q->nq;
	ret = 0;
out:
	free(cls);
	free(hist);
	free(d);
	free(sorted);
	return ret;
}
