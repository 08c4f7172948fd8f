/* SPDX-License-Identifier: MIT */
/*
 * tool_quant.c - binary (sign) and INT8 (symmetric, per-dimension scale)
 * quantization, exactly as struct reis_quant (libreis_reis_image.h) defines
 * it (REIS §4.2): training, encoding vectors and queries, quantizer files.
 * The REISQNT1 bytes themselves are drive_reis_quant.c's (META carries them).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "libreis_tools.h"
#include "drive_reis_priv.h"

/* ---------------------------------------------------------------------- */
/* Quantizer                                                               */
/* ---------------------------------------------------------------------- */

static int8_t reis_round8(float v)
{
	if (!(v == v))
		return 0;
	if (v > 127.0f)
		return 127;
	if (v < -127.0f)
		return -127;
	return (int8_t)(v >= 0 ? (int)(v + 0.5f) : -(int)(-v + 0.5f));
}

int reis_quant_train(struct reis_quant *q, const float *x, uint64_t n, uint32_t dim,
		     uint32_t metric, uint32_t flags)
{
	double *sum;
	uint64_t i;
	uint32_t d;
	float smax = 0;

	if (!q)
		return -EINVAL;
	memset(q, 0, sizeof(*q));
	if (!x || !n || dim < REIS_DB_MIN_DIM || dim > REIS_DB_MAX_DIM || dim % 64 ||
	    metric > REIS_METRIC_L2 || (flags & ~REIS_QUANT_CENTER))
		return -EINVAL;
	if (reis__quant_alloc(q, dim))
		return -ENOMEM;
	q->metric = metric;
	q->flags = flags;
	sum = calloc(dim, sizeof(*sum));
	if (!sum) {
		reis_quant_free(q);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		for (d = 0; d < dim; d++) {
			float v = x[i * dim + d];

			if (!isfinite(v)) {
				free(sum);
				reis_quant_free(q);
				return -EINVAL;
			}
			sum[d] += v;
		}
	if (flags & REIS_QUANT_CENTER)
		for (d = 0; d < dim; d++)
			q->mean[d] = (float)(sum[d] / (double)n);
	free(sum);
	for (i = 0; i < n; i++)
		for (d = 0; d < dim; d++) {
			float c = fabsf(x[i * dim + d] - q->mean[d]);

			if (c > q->scale[d])
				q->scale[d] = c;
		}
	for (d = 0; d < dim; d++) {
		q->scale[d] /= 127.0f;
		if (q->scale[d] > smax)
			smax = q->scale[d];
	}
	if (smax == 0)
		smax = 1.0f / 127.0f;
	for (d = 0; d < dim; d++)
		if (metric == REIS_METRIC_L2 || q->scale[d] == 0)
			q->scale[d] = metric == REIS_METRIC_L2 ? smax : smax * 1e-3f;
	return 0;
}

void reis_binarize(const float *x, uint64_t n, uint32_t dim, uint8_t *out)
{
	uint64_t i;
	uint32_t d;

	for (i = 0; i < n; i++) {
		uint8_t *o = out + i * (dim / 8);

		memset(o, 0, dim / 8);
		for (d = 0; d < dim; d++)
			if (x[i * dim + d] > 0)
				o[d / 8] |= (uint8_t)(1u << (d % 8));
	}
}

void reis_quant_binary(const struct reis_quant *q, const float *x, uint64_t n,
		       uint8_t *out)
{
	uint32_t dim = q->dim, d;
	uint64_t i;

	for (i = 0; i < n; i++) {
		uint8_t *o = out + i * (dim / 8);

		memset(o, 0, dim / 8);
		for (d = 0; d < dim; d++)
			if (x[i * dim + d] - q->mean[d] > 0)
				o[d / 8] |= (uint8_t)(1u << (d % 8));
	}
}

void reis_quant_int8(const struct reis_quant *q, const float *x, uint64_t n,
		     int8_t *out)
{
	uint32_t dim = q->dim, d;
	uint64_t i;

	for (i = 0; i < n; i++)
		for (d = 0; d < dim; d++)
			out[i * dim + d] = reis_round8((x[i * dim + d] - q->mean[d]) /
						       q->scale[d]);
}

void reis_quant_int8_query(const struct reis_quant *q, const float *x, uint64_t n,
			   int8_t *out)
{
	uint32_t dim = q->dim, d;
	uint64_t i;

	for (i = 0; i < n; i++) {
		const float *v = x + i * dim;
		int8_t *o = out + i * dim;

		if (q->metric == REIS_METRIC_L2) {
			for (d = 0; d < dim; d++)
				o[d] = reis_round8((v[d] - q->mean[d]) / q->scale[d]);
		} else {
			float t = 0;

			for (d = 0; d < dim; d++) {
				float w = fabsf(v[d] * q->scale[d]);

				if (w > t)
					t = w;
			}
			t /= 127.0f;
			for (d = 0; d < dim; d++)
				o[d] = t > 0 ? reis_round8(v[d] * q->scale[d] / t) : 0;
		}
	}
}

int reis_encode_queries(const struct reis_quant *quant, const float *x, uint32_t nq,
			struct reis_queries *q)
{
	uint8_t *bin;
	int8_t *i8;

	if (!quant || !q || (!x && nq) || !quant->dim || !quant->mean || !quant->scale)
		return -EINVAL;
	memset(q, 0, sizeof(*q));
	bin = malloc((size_t)nq * quant->dim / 8 + 1);
	i8 = malloc((size_t)nq * quant->dim + 1);
	if (!bin || !i8) {
		free(bin);
		free(i8);
		return -ENOMEM;
	}
	reis_quant_binary(quant, x, nq, bin);
	reis_quant_int8_query(quant, x, nq, i8);
	q->nq = nq;
	q->dim = quant->dim;
	q->bin = bin;
	q->int8 = i8;
	return 0;
}

void reis_queries_free(struct reis_queries *q)
{
	if (!q)
		return;
	free((void *)(uintptr_t)q->bin);
	free((void *)(uintptr_t)q->int8);
	memset(q, 0, sizeof(*q));
}

/* ---------------------------------------------------------------------- */
/* Quantizer files                                                         */
/* ---------------------------------------------------------------------- */

int reis_quant_save(const struct reis_quant *q, const char *path)
{
	uint8_t *buf;
	uint64_t len;
	FILE *f;
	int ret = 0;

	if (!q || !path || !q->dim || !q->mean || !q->scale)
		return -EINVAL;
	len = reis__quant_bytes(q->dim);
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	reis__quant_pack(q, buf);
	f = fopen(path, "wb");
	if (!f) {
		ret = -errno;
		free(buf);
		return ret;
	}
	if (fwrite(buf, 1, len, f) != len)
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	free(buf);
	return ret;
}

int reis_quant_load(struct reis_quant *q, const char *path, char *err, size_t errlen)
{
	uint64_t max = reis__quant_bytes(REIS_DB_MAX_DIM), len;
	uint8_t *buf;
	FILE *f;
	int ret;

	if (!q || !path)
		return -EINVAL;
	memset(q, 0, sizeof(*q));
	f = fopen(path, "rb");
	if (!f) {
		ret = -errno;
		return reis__errf(err, errlen, ret, "%s: %s", path, strerror(-ret));
	}
	/* One byte more than the largest quantizer tells "trailing bytes". */
	buf = malloc(max + 1);
	if (!buf) {
		fclose(f);
		return reis__errf(err, errlen, -ENOMEM, "out of memory");
	}
	len = fread(buf, 1, max + 1, f);
	fclose(f);
	ret = reis__quant_unpack(buf, len, q, path, err, errlen);
	free(buf);
	return ret;
}
