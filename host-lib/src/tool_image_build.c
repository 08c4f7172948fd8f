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

int reis_db_build(const struct reis_build_opts *o, const float *x, uint64_t n,
		  uint32_t dim, struct reis_db_image *img, char *err, size_t errlen)
{
	struct reis_image_priv *p;
	uint32_t nlist = 0, *assign = NULL, j, bytes = dim / 8;
	uint64_t i, *order = NULL, *rows = NULL;
	float *cent = NULL;
	int ret;

	if (!o || !x || !img)
		return -EINVAL;
	memset(img, 0, sizeof(*img));
	if (!n || n > UINT32_MAX)
		return reis__errf(err, errlen, -EINVAL, "%llu vectors: need 1..%u",
				  (unsigned long long)n, UINT32_MAX);
	if (dim < REIS_DB_MIN_DIM || dim > REIS_DB_MAX_DIM || dim % 64)
		return reis__errf(err, errlen, -EINVAL, "dimension %u is not a multiple of 64 "
				  "in %u..%u", dim, REIS_DB_MIN_DIM, REIS_DB_MAX_DIM);
	if (o->kind != REIS_DB_BF && o->kind != REIS_DB_IVF)
		return reis__errf(err, errlen, -EINVAL, "kind must be BF or IVF");
	if (o->metric > REIS_METRIC_L2)
		return reis__errf(err, errlen, -EINVAL, "metric must be IP or L2");
	if (o->name && strlen(o->name) > REIS_DB_NAME_LEN)
		return reis__errf(err, errlen, -EINVAL, "name longer than %u bytes",
				  REIS_DB_NAME_LEN);
	if (o->docs && !o->doc_offsets)
		return reis__errf(err, errlen, -EINVAL, "documents without offsets");
	if (o->kind == REIS_DB_IVF) {
		nlist = o->nlist;
		if (!nlist) {
			nlist = (uint32_t)sqrt((double)n);
			nlist = nlist ? nlist : 1;
		}
		if (nlist > n || nlist > REIS_DB_MAX_NLIST)
			return reis__errf(err, errlen, -EINVAL, "nlist %u: need 1..min(n = %llu, "
					  "%u)", nlist, (unsigned long long)n,
					  REIS_DB_MAX_NLIST);
	} else if (o->nlist) {
		return reis__errf(err, errlen, -EINVAL, "nlist is for IVF databases");
	}

	p = reis__image_priv(img);
	if (!p)
		return reis__errf(err, errlen, -ENOMEM, "out of memory");
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

	reis_build_progress(o, "quantize", 0);
	ret = reis_quant_train(&p->quant, x, n, dim, o->metric,
			       o->flags & REIS_BUILD_CENTER ? REIS_QUANT_CENTER : 0);
	if (ret) {
		reis__errf(err, errlen, ret, "quantizer: %s", ret == -ENOMEM ? "out of memory" :
			   "bad input (non-finite values?)");
		goto fail;
	}
	p->have_quant = 1;
	img->quant = &p->quant;

	ret = -ENOMEM;
	order = malloc(n * sizeof(*order));
	if (!order)
		goto nomem;
	if (o->kind == REIS_DB_IVF) {
		struct reis_kmeans_opts km = o->km;
		uint64_t *start;

		reis_build_progress(o, "kmeans", 0);
		km.nlist = nlist;
		cent = malloc((size_t)nlist * dim * sizeof(*cent));
		assign = malloc(n * sizeof(*assign));
		p->cluster_sizes = calloc(nlist, sizeof(uint32_t));
		start = calloc((size_t)nlist + 1, sizeof(*start));
		if (!cent || !assign || !p->cluster_sizes || !start) {
			free(start);
			goto nomem;
		}
		ret = reis_kmeans(x, n, dim, &km, cent, assign, NULL);
		if (ret) {
			free(start);
			reis__errf(err, errlen, ret, "k-means: %s", ret == -ENOMEM ?
				   "out of memory" : "bad settings");
			goto fail;
		}
		/* Entries by cluster, rows ascending inside (counting sort). */
		for (i = 0; i < n; i++)
			p->cluster_sizes[assign[i]]++;
		for (j = 0; j < nlist; j++)
			start[j + 1] = start[j] + p->cluster_sizes[j];
		for (i = 0; i < n; i++)
			order[start[assign[i]]++] = i;
		free(start);
		img->nlist = nlist;
		img->cluster_sizes = p->cluster_sizes;

		p->centroids = calloc(nlist, bytes);
		if (!p->centroids)
			goto nomem;
		if (o->flags & REIS_BUILD_CENTROID_MAJORITY) {
			uint32_t *ones = calloc(dim, sizeof(*ones));
			uint8_t *code = malloc(bytes);
			uint64_t e = 0;

			if (!ones || !code) {
				free(ones);
				free(code);
				goto nomem;
			}
			for (j = 0; j < nlist; j++) {
				uint32_t sz = p->cluster_sizes[j], d;
				uint64_t s;

				memset(ones, 0, dim * sizeof(*ones));
				for (s = 0; s < sz; s++, e++) {
					reis_quant_binary(&p->quant, x + order[e] * dim, 1, code);
					for (d = 0; d < dim; d++)
						ones[d] += code[d / 8] >> (d % 8) & 1u;
				}
				if (!sz) {
					reis_quant_binary(&p->quant, cent + (size_t)j * dim, 1,
							  p->centroids + (size_t)j * bytes);
					continue;
				}
				for (d = 0; d < dim; d++)
					if (2 * ones[d] > sz)
						p->centroids[(size_t)j * bytes + d / 8] |=
							(uint8_t)(1u << (d % 8));
			}
			free(ones);
			free(code);
		} else {
			reis_quant_binary(&p->quant, cent, nlist, p->centroids);
		}
		img->centroids = p->centroids;
	} else {
		for (i = 0; i < n; i++)
			order[i] = i;
	}

	reis_build_progress(o, "layout", 0);
	p->bin = malloc(n * bytes);
	if (!p->bin)
		goto nomem;
	for (i = 0; i < n; i++)
		reis_quant_binary(&p->quant, x + order[i] * dim, 1, p->bin + i * bytes);
	img->bin = p->bin;
	if (o->flags & REIS_BUILD_INT8) {
		p->int8 = malloc(n * dim);
		if (!p->int8)
			goto nomem;
		for (i = 0; i < n; i++)
			reis_quant_int8(&p->quant, x + order[i] * dim, 1, p->int8 + i * dim);
		img->int8 = p->int8;
		img->flags |= REIS_DBF_INT8;
	}
	if (o->tags) {
		p->tags = malloc(n * sizeof(*p->tags));
		if (!p->tags)
			goto nomem;
		for (i = 0; i < n; i++)
			p->tags[i] = o->tags[order[i]];
		img->tags = p->tags;
		img->flags |= REIS_DBF_TAGS;
	}
	if (o->ids || (o->kind == REIS_DB_IVF && !(o->flags & REIS_BUILD_NO_IDS))) {
		p->ids = malloc(n * sizeof(*p->ids));
		if (!p->ids)
			goto nomem;
		for (i = 0; i < n; i++)
			p->ids[i] = o->ids ? o->ids[order[i]] : order[i];
		img->ids = p->ids;
		img->flags |= REIS_DBF_IDS;
	}
	if (o->docs) {
		uint64_t maxlen = 0;

		ret = reis_docs_pack(o->docs, o->doc_offsets, order, n, &p->docs,
				     &img->docs_bytes);
		if (ret) {
			reis__errf(err, errlen, ret, "documents: %s", ret == -ENOMEM ?
				   "out of memory" : "offsets do not ascend");
			goto fail;
		}
		img->docs = p->docs;
		for (i = 0; i < n; i++)
			if (o->doc_offsets[i + 1] - o->doc_offsets[i] > maxlen)
				maxlen = o->doc_offsets[i + 1] - o->doc_offsets[i];
		img->doc_mode = o->doc_mode ? o->doc_mode :
				maxlen <= 4096 ? REIS_DOC_SUBPAGE : REIS_DOC_PAGE;
	}
	ret = reis_db_image_check(img, err, errlen);
	if (ret)
		goto fail;

	if (o->kind == REIS_DB_IVF && o->calib_queries && o->ncalib_queries) {
		uint32_t k = o->calib_k ? o->calib_k : 10, *truth = (uint32_t *)o->calib_truth;
		uint32_t stride = o->calib_truth ? o->calib_truth_k : k;
		struct reis_db_image view = *img;
		int cnt;

		reis_build_progress(o, "calibrate", 0);
		if (k > n || (o->calib_truth && stride < k)) {
			ret = reis__errf(err, errlen, -EINVAL, "calibration k %u: need <= n and "
					 "<= the truth's k %u", k, stride);
			goto fail;
		}
		if (!truth) {
			truth = malloc((size_t)o->ncalib_queries * k * sizeof(*truth));
			if (!truth)
				goto nomem;
			ret = reis_exact_topk(x, n, dim, o->calib_queries, o->ncalib_queries, k,
					      o->metric, truth, NULL);
			if (ret) {
				free(truth);
				reis__errf(err, errlen, ret, "calibration ground truth failed");
				goto fail;
			}
		}
		/* Recall is measured in row numbers whatever ids the caller sends. */
		if (o->ids) {
			rows = malloc(n * sizeof(*rows));
			if (!rows) {
				if (!o->calib_truth)
					free(truth);
				goto nomem;
			}
			for (i = 0; i < n; i++)
				rows[i] = order[i];
			view.ids = rows;
		}
		p->calib = calloc(REIS_DB_MAX_CALIB, sizeof(*p->calib));
		cnt = p->calib ? reis_ivf_calibrate(&view, o->calib_queries,
						    o->ncalib_queries, truth, stride, k,
						    o->calib_factor, p->calib,
						    REIS_DB_MAX_CALIB) : -ENOMEM;
		if (!o->calib_truth)
			free(truth);
		if (cnt < 0) {
			ret = reis__errf(err, errlen, cnt, "calibration failed: %s",
					 reis_strerror(cnt));
			goto fail;
		}
		img->calib = p->calib;
		img->ncalib = (uint32_t)cnt;
	}
	reis_build_progress(o, "done", 1);
	free(order);
	free(assign);
	free(cent);
	free(rows);
	return 0;
nomem:
	ret = reis__errf(err, errlen, -ENOMEM, "out of memory");
fail:
	free(order);
	free(assign);
	free(cent);
	free(rows);
	reis_db_image_free(img);
	return ret;
}

