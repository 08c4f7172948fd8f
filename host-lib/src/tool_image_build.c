/* SPDX-License-Identifier: MIT */
/*
 * tool_image_build.c - building a database image from float vectors on the
 * host (REIS §4.2, §4.3): quantize, IVF train and lay out by cluster,
 * calibrate the distance filter and the recall table; and packing the
 * documents that go with it. What a deploy sends is drive_reis_image.c's.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "libreis_tools.h"
#include "isp_wire.h"
#include "drive_reis_priv.h"

int reis_docs_pack(const uint8_t *blob, const uint64_t *offsets, const uint64_t *order,
		   uint64_t n, uint8_t **out, uint64_t *out_len)
{
	uint64_t i, total = 0, pos = 0;
	uint8_t *buf;

	if (!offsets || !out || !out_len || !n)
		return -EINVAL;
	*out = NULL;
	*out_len = 0;
	for (i = 0; i < n; i++) {
		if (offsets[i + 1] < offsets[i] || offsets[i + 1] - offsets[i] > UINT32_MAX)
			return -EINVAL;
		total += 4 + (offsets[i + 1] - offsets[i]);
	}
	if (total > 4 * n && !blob)
		return -EINVAL;
	buf = malloc(total);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		uint64_t r = order ? order[i] : i;
		uint32_t len;

		if (r >= n) {
			free(buf);
			return -EINVAL;
		}
		len = (uint32_t)(offsets[r + 1] - offsets[r]);
		memcpy(buf + pos, &len, 4);
		if (len)
			memcpy(buf + pos + 4, blob + offsets[r], len);
		pos += 4 + len;
	}
	*out = buf;
	*out_len = total;
	return 0;
}


/* ---------------------------------------------------------------------- */
/* Building from float vectors                                             */
/* ---------------------------------------------------------------------- */

static void reis_build_progress(const struct reis_build_opts *o, const char *stage,
				double frac)
{
	if (o->progress)
		o->progress(o->progress_arg, stage, frac);
}

/* One build: its inputs, scratch and the image being filled. Every step
 * returns 0 or -errno with the message already in err. */
struct reis_build {
	const struct reis_build_opts *o;
	const float *x;
	uint64_t n;
	uint32_t dim, bytes, nlist;
	uint64_t *order;		/* image entry -> input row */
	uint32_t *assign;
	float *cent;
	uint64_t *rows;
	struct reis_image_priv *p;
	struct reis_db_image *img;
	char *err;
	size_t errlen;
	double km_frac;			/* last k-means progress reported */
};

/* k-means iterations as the "kmeans" stage's fraction (seconds each on
 * large inputs: the user sees it move). */
static void reis_build_km_progress(void *arg, uint32_t iter, uint32_t max_iter)
{
	struct reis_build *b = arg;

	b->km_frac = max_iter ? (double)iter / max_iter : 1;
	reis_build_progress(b->o, "kmeans", b->km_frac);
}

static int reis_build_nomem(struct reis_build *b)
{
	return reis__errf(b->err, b->errlen, -ENOMEM, "out of memory");
}

/* The options a build accepts; the IVF list count in *nlist. */
static int reis_build_check(const struct reis_build_opts *o, uint64_t n, uint32_t dim,
			    uint32_t *nlist, char *err, size_t errlen)
{
	if (!n || n > UINT32_MAX)
		return reis__errf(err, errlen, -EINVAL, "%llu vectors: need 1..%u",
				  (unsigned long long)n, UINT32_MAX);
	if (dim < REIS_DB_MIN_DIM || dim > REIS_DB_MAX_DIM)
		return reis__errf(err, errlen, -EINVAL, "dimension %u is outside %u..%u", dim,
				  REIS_DB_MIN_DIM, REIS_DB_MAX_DIM);
	if (dim % 64)
		return reis__errf(err, errlen, -EINVAL, "dimension %u is not a multiple of 64 "
				  "(the binary codes are 64-bit words)", dim);
	if (o->kind != REIS_DB_BF && o->kind != REIS_DB_IVF)
		return reis__errf(err, errlen, -EINVAL, "kind must be BF or IVF");
	if (o->metric > REIS_METRIC_L2)
		return reis__errf(err, errlen, -EINVAL, "metric must be IP or L2");
	if (o->name && strlen(o->name) > REIS_DB_NAME_LEN)
		return reis__errf(err, errlen, -EINVAL, "name longer than %u bytes",
				  REIS_DB_NAME_LEN);
	if (o->docs && !o->doc_offsets)
		return reis__errf(err, errlen, -EINVAL, "documents without offsets");
	*nlist = 0;
	if (o->kind == REIS_DB_IVF) {
		*nlist = o->nlist;
		if (!*nlist) {
			*nlist = (uint32_t)sqrt((double)n);
			*nlist = *nlist ? *nlist : 1;
		}
		if (*nlist > n || *nlist > REIS_DB_MAX_NLIST)
			return reis__errf(err, errlen, -EINVAL, "nlist %u: need 1..min(n = %llu, "
					  "%u)", *nlist, (unsigned long long)n,
					  REIS_DB_MAX_NLIST);
	} else if (o->nlist) {
		return reis__errf(err, errlen, -EINVAL, "nlist is for IVF databases");
	}
	return 0;
}

/* REIS §4.3.1 option: a centroid's bit is its cluster members' majority
 * bit rather than the sign of the float centroid. */
static int reis_build_majority(struct reis_build *b)
{
	struct reis_image_priv *p = b->p;
	uint32_t dim = b->dim, bytes = b->bytes, j;
	uint32_t *ones = calloc(dim, sizeof(*ones));
	uint8_t *code = malloc(bytes);
	uint64_t e = 0;

	if (!ones || !code) {
		free(ones);
		free(code);
		return reis_build_nomem(b);
	}
	for (j = 0; j < b->nlist; j++) {
		uint32_t sz = p->cluster_sizes[j], d;
		uint64_t s;

		memset(ones, 0, dim * sizeof(*ones));
		for (s = 0; s < sz; s++, e++) {
			reis_quant_binary(&p->quant, b->x + b->order[e] * dim, 1, code);
			for (d = 0; d < dim; d++)
				ones[d] += code[d / 8] >> (d % 8) & 1u;
		}
		if (!sz) {
			reis_quant_binary(&p->quant, b->cent + (size_t)j * dim, 1,
					  p->centroids + (size_t)j * bytes);
			continue;
		}
		for (d = 0; d < dim; d++)
			if (2 * ones[d] > sz)
				p->centroids[(size_t)j * bytes + d / 8] |= (uint8_t)(1u << (d % 8));
	}
	free(ones);
	free(code);
	return 0;
}

/* IVF (REIS §4.3.1): k-means, entries laid out by cluster, binary centroids. */
static int reis_build_ivf(struct reis_build *b)
{
	const struct reis_build_opts *o = b->o;
	struct reis_kmeans_opts km = o->km;
	struct reis_kmeans_stats kst;
	struct reis_image_priv *p = b->p;
	uint64_t *start, i;
	uint32_t j;
	int ret;

	reis_build_progress(o, "kmeans", 0);
	km.nlist = b->nlist;
	if (o->progress) {
		km.progress = reis_build_km_progress;
		km.progress_arg = b;
	}
	b->cent = malloc((size_t)b->nlist * b->dim * sizeof(*b->cent));
	b->assign = malloc(b->n * sizeof(*b->assign));
	p->cluster_sizes = calloc(b->nlist, sizeof(uint32_t));
	start = calloc((size_t)b->nlist + 1, sizeof(*start));
	if (!b->cent || !b->assign || !p->cluster_sizes || !start) {
		free(start);
		return reis_build_nomem(b);
	}
	ret = reis_kmeans(b->x, b->n, b->dim, &km, b->cent, b->assign, &kst);
	/* converged before the last iteration: the stage is done all the same */
	if (!ret && o->progress && b->km_frac < 1)
		reis_build_progress(o, "kmeans", 1);
	if (ret) {
		free(start);
		return reis__errf(b->err, b->errlen, ret, "k-means: %s", ret == -ENOMEM ?
				  "out of memory" : "bad settings");
	}
	/* Entries by cluster, rows ascending inside (counting sort). */
	for (i = 0; i < b->n; i++)
		p->cluster_sizes[b->assign[i]]++;
	for (j = 0; j < b->nlist; j++)
		start[j + 1] = start[j] + p->cluster_sizes[j];
	for (i = 0; i < b->n; i++)
		b->order[start[b->assign[i]]++] = i;
	free(start);
	b->img->nlist = b->nlist;
	b->img->cluster_sizes = p->cluster_sizes;
	p->centroids = calloc(b->nlist, b->bytes);
	if (!p->centroids)
		return reis_build_nomem(b);
	if (o->flags & REIS_BUILD_CENTROID_MAJORITY)
		ret = reis_build_majority(b);
	else
		reis_quant_binary(&p->quant, b->cent, b->nlist, p->centroids);
	if (ret)
		return ret;
	b->img->centroids = p->centroids;
	return 0;
}

/* The per-entry sections in image order: codes, INT8, tags, ids. */
static int reis_build_layout(struct reis_build *b)
{
	const struct reis_build_opts *o = b->o;
	struct reis_image_priv *p = b->p;
	struct reis_db_image *img = b->img;
	uint64_t i, n = b->n, *order = b->order;
	uint32_t dim = b->dim;

	reis_build_progress(o, "layout", 0);
	p->bin = malloc(n * b->bytes);
	if (!p->bin)
		return reis_build_nomem(b);
	for (i = 0; i < n; i++)
		reis_quant_binary(&p->quant, b->x + order[i] * dim, 1, p->bin + i * b->bytes);
	img->bin = p->bin;
	if (o->flags & REIS_BUILD_INT8) {
		p->int8 = malloc(n * dim);
		if (!p->int8)
			return reis_build_nomem(b);
		for (i = 0; i < n; i++)
			reis_quant_int8(&p->quant, b->x + order[i] * dim, 1, p->int8 + i * dim);
		img->int8 = p->int8;
		img->flags |= REIS_DBF_INT8;
	}
	if (o->tags) {
		p->tags = malloc(n * sizeof(*p->tags));
		if (!p->tags)
			return reis_build_nomem(b);
		for (i = 0; i < n; i++)
			p->tags[i] = o->tags[order[i]];
		img->tags = p->tags;
		img->flags |= REIS_DBF_TAGS;
	}
	if (o->ids || (o->kind == REIS_DB_IVF && !(o->flags & REIS_BUILD_NO_IDS))) {
		p->ids = malloc(n * sizeof(*p->ids));
		if (!p->ids)
			return reis_build_nomem(b);
		for (i = 0; i < n; i++)
			p->ids[i] = o->ids ? o->ids[order[i]] : order[i];
		img->ids = p->ids;
		img->flags |= REIS_DBF_IDS;
	}
	return 0;
}

/* Documents in image order; the mode from the longest unless given. */
static int reis_build_docs(struct reis_build *b)
{
	const struct reis_build_opts *o = b->o;
	struct reis_db_image *img = b->img;
	uint64_t maxlen = 0, i;
	int ret;

	ret = reis_docs_pack(o->docs, o->doc_offsets, b->order, b->n, &b->p->docs,
			     &img->docs_bytes);
	if (ret)
		return reis__errf(b->err, b->errlen, ret, "documents: %s", ret == -ENOMEM ?
				  "out of memory" : "offsets do not ascend");
	img->docs = b->p->docs;
	for (i = 0; i < b->n; i++)
		if (o->doc_offsets[i + 1] - o->doc_offsets[i] > maxlen)
			maxlen = o->doc_offsets[i + 1] - o->doc_offsets[i];
	img->doc_mode = o->doc_mode ? o->doc_mode :
			maxlen <= 4096 ? REIS_DOC_SUBPAGE : REIS_DOC_PAGE;
	return 0;
}

/* The recall -> nprobe table (REIS §4.3.1) from held-out queries, against
 * their exact top-k unless the caller gave it. */
static int reis_build_calibrate(struct reis_build *b)
{
	const struct reis_build_opts *o = b->o;
	uint32_t k = o->calib_k ? o->calib_k : 10, *truth = (uint32_t *)o->calib_truth;
	uint32_t stride = o->calib_truth ? o->calib_truth_k : k;
	struct reis_db_image view = *b->img;
	struct reis_image_priv *p = b->p;
	uint64_t i;
	int cnt, ret;

	reis_build_progress(o, "calibrate", 0);
	if (k > b->n || (o->calib_truth && stride < k))
		return reis__errf(b->err, b->errlen, -EINVAL, "calibration k %u: need <= n and "
				  "<= the truth's k %u", k, stride);
	if (!truth) {
		truth = malloc((size_t)o->ncalib_queries * k * sizeof(*truth));
		if (!truth)
			return reis_build_nomem(b);
		ret = reis_exact_topk(b->x, b->n, b->dim, o->calib_queries, o->ncalib_queries, k,
				      o->metric, truth, NULL);
		if (ret) {
			free(truth);
			return reis__errf(b->err, b->errlen, ret,
					  "calibration ground truth failed");
		}
		/* the exact top-k is about half of the stage */
		reis_build_progress(o, "calibrate", 0.5);
	}
	/* Recall is measured in row numbers whatever ids the caller sends. */
	if (o->ids) {
		b->rows = malloc(b->n * sizeof(*b->rows));
		if (!b->rows) {
			if (!o->calib_truth)
				free(truth);
			return reis_build_nomem(b);
		}
		for (i = 0; i < b->n; i++)
			b->rows[i] = b->order[i];
		view.ids = b->rows;
	}
	p->calib = calloc(REIS_DB_MAX_CALIB, sizeof(*p->calib));
	cnt = p->calib ? reis_ivf_calibrate(&view, o->calib_queries, o->ncalib_queries, truth,
					    stride, k, o->calib_factor, p->calib,
					    REIS_DB_MAX_CALIB) : -ENOMEM;
	if (!o->calib_truth)
		free(truth);
	if (cnt < 0)
		return reis__errf(b->err, b->errlen, cnt, "calibration failed: %s",
				  reis_strerror(cnt));
	b->img->calib = p->calib;
	b->img->ncalib = (uint32_t)cnt;
	reis_build_progress(o, "calibrate", 1);
	return 0;
}

/* Recall measured in row numbers, as reis_build_calibrate() does. */
static int reis_build_estimate(struct reis_build *b)
{
	struct reis_db_image view = *b->img;
	uint64_t i;

	if (b->img->kind == REIS_DB_IVF || b->o->ids) {
		if (!b->rows) {
			b->rows = malloc(b->n * sizeof(*b->rows));
			if (!b->rows)
				return reis_build_nomem(b);
			for (i = 0; i < b->n; i++)
				b->rows[i] = b->order[i];
		}
		view.ids = b->rows;
	}
	reis_build_progress(b->o, "estimate recall", 0);
	return reis__build_estimate(b->img, &view, b->x, b->o, b->err, b->errlen);
}

/* Quantize, lay out (IVF: by cluster), add the extras, check, calibrate. */
static int reis_build_run(struct reis_build *b)
{
	const struct reis_build_opts *o = b->o;
	struct reis_image_priv *p = b->p;
	uint64_t i;
	int ret;

	reis_build_progress(o, "quantize", 0);
	ret = reis_quant_train(&p->quant, b->x, b->n, b->dim, o->metric,
			       o->flags & REIS_BUILD_CENTER ? REIS_QUANT_CENTER : 0);
	if (ret)
		return reis__errf(b->err, b->errlen, ret, "quantizer: %s", ret == -ENOMEM ?
				  "out of memory" : "bad input (non-finite values?)");
	p->have_quant = 1;
	b->img->quant = &p->quant;
	b->order = malloc(b->n * sizeof(*b->order));
	if (!b->order)
		return reis_build_nomem(b);
	if (o->kind == REIS_DB_IVF) {
		ret = reis_build_ivf(b);
		if (ret)
			return ret;
	} else {
		for (i = 0; i < b->n; i++)
			b->order[i] = i;
	}
	ret = reis_build_layout(b);
	if (!ret && o->docs)
		ret = reis_build_docs(b);
	if (!ret)
		ret = reis_db_image_check(b->img, b->err, b->errlen);
	if (!ret && o->kind == REIS_DB_IVF && o->calib_queries && o->ncalib_queries)
		ret = reis_build_calibrate(b);
	if (!ret && (o->flags & REIS_BUILD_ESTIMATE || (o->kind == REIS_DB_IVF &&
						       !b->img->ncalib)))
		ret = reis_build_estimate(b);
	return ret;
}

int reis_db_build(const struct reis_build_opts *o, const float *x, uint64_t n,
		  uint32_t dim, struct reis_db_image *img, char *err, size_t errlen)
{
	struct reis_build b;
	int ret;

	if (!o || !x || !img)
		return -EINVAL;
	memset(img, 0, sizeof(*img));
	memset(&b, 0, sizeof(b));
	ret = reis_build_check(o, n, dim, &b.nlist, err, errlen);
	if (ret)
		return ret;
	b.p = reis__image_priv(img);
	if (!b.p)
		return reis__errf(err, errlen, -ENOMEM, "out of memory");
	b.o = o;
	b.x = x;
	b.n = n;
	b.dim = dim;
	b.bytes = dim / 8;
	b.img = img;
	b.err = err;
	b.errlen = errlen;
	img->did = o->did;
	img->kind = o->kind;
	img->dim = dim;
	img->n = n;
	img->metric = o->metric;
	img->df_threshold = o->df_threshold;
	img->group = o->group;
	img->timestamp = o->timestamp;
	if (o->name)
		memcpy(img->name, o->name, strlen(o->name));
	ret = reis_build_run(&b);
	if (!ret)
		reis_build_progress(o, "done", 1);
	free(b.order);
	free(b.assign);
	free(b.cent);
	free(b.rows);
	if (ret)
		reis_db_image_free(img);
	return ret;
}
