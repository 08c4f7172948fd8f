/* SPDX-License-Identifier: MIT */
/*
 * test_rf_util.h - what the RecFlash engine tests (test_rf_*.c) share:
 * commands through isp_dev_exec() exactly as the glue issues them, a host
 * reference of SLS written independently of the engine, and data makers.
 */
#ifndef TEST_RF_UTIL_H
#define TEST_RF_UTIL_H

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "isp_dev.h"
#include "isp_internal.h"
#include "isp_wire.h"

#define RT_MAX_XFER (512u * 1024u)

/* Device time: every command far after the previous one unless asked. */
static uint64_t rt_clock_ns = 1000000;
static pthread_mutex_t rt_clock_lock = PTHREAD_MUTEX_INITIALIZER;

static inline uint64_t rt_next_time(void)
{
	uint64_t t;

	pthread_mutex_lock(&rt_clock_lock);
	rt_clock_ns += 10000000000ull;	/* 10 s apart: an idle device */
	t = rt_clock_ns;
	pthread_mutex_unlock(&rt_clock_lock);
	return t;
}

static inline struct isp_dev *rt_open(const char *preset, const char *params, const char *backing)
{
	struct isp_dev_config cfg = { .preset = preset, .params = params,
				      .backing = backing, .max_xfer = RT_MAX_XFER };
	struct isp_dev *dev = NULL;
	char err[256];
	int ret = isp_dev_open(&cfg, &dev, err, sizeof(err));

	if (ret)
		fprintf(stderr, "isp_dev_open: %d %s\n", ret, err);
	REQUIRE(ret == 0);
	return dev;
}

static inline struct isp_cmd rt_cmd(uint8_t opc, uint32_t len)
{
	struct isp_cmd c;

	memset(&c, 0, sizeof(c));
	c.opcode = opc;
	c.nsid = 1;
	c.cdw10 = len / 4;
	c.submit_ns = rt_next_time();
	return c;
}

/* Decode check, then exec, as the glue does. */
static inline uint16_t rt_exec(struct isp_dev *dev, struct isp_cmd *c, void *buf, struct isp_cpl *cpl)
{
	struct isp_cpl tmp;
	uint16_t st = isp_dev_check(dev, c, cpl ? cpl : &tmp);

	if (st)
		return st;
	return isp_dev_exec(dev, c, buf, isp_cmd_data_len(c), cpl ? cpl : &tmp);
}

static inline uint16_t rt_simple(struct isp_dev *dev, uint8_t opc, uint32_t tid, uint32_t cdw13,
			  struct isp_cpl *cpl)
{
	struct isp_cmd c = rt_cmd(opc, 0);

	c.cdw12 = tid;
	c.cdw13 = cdw13;
	return rt_exec(dev, &c, NULL, cpl);
}

static inline struct isp_wire_rf_create rt_cr(uint32_t tid, uint32_t rows, uint32_t dim,
				       uint32_t dtype, uint32_t mode)
{
	struct isp_wire_rf_create cr;

	memset(&cr, 0, sizeof(cr));
	cr.tid = tid;
	cr.rows = rows;
	cr.dim = dim;
	cr.dtype = dtype;
	cr.mode = mode;
	snprintf(cr.name, sizeof(cr.name), "t%u", tid);
	return cr;
}

static inline uint16_t rt_create(struct isp_dev *dev, const struct isp_wire_rf_create *cr)
{
	struct isp_cmd c = rt_cmd(ISP_OP_RF_TBL_CREATE, sizeof(*cr));
	struct isp_wire_rf_create tmp = *cr;

	return rt_exec(dev, &c, &tmp, NULL);
}

/* Stream a section in @chunk-byte commands, zero-padding the last one. */
static inline uint16_t rt_write(struct isp_dev *dev, uint8_t opc, uint32_t tid, uint32_t sec,
			 const void *data, uint64_t len, uint32_t chunk)
{
	uint8_t *buf = malloc(chunk + 4);
	uint64_t off;
	uint16_t st = 0;

	REQUIRE(buf);
	for (off = 0; off < len && !st; off += chunk) {
		uint32_t n = len - off < chunk ? (uint32_t)(len - off) : chunk;
		uint32_t pad = (4 - n % 4) % 4;
		struct isp_cmd c = rt_cmd(opc, n + pad);

		memcpy(buf, (const uint8_t *)data + off, n);
		memset(buf + n, 0, pad);
		c.cdw12 = tid;
		c.cdw13 = sec;
		c.cdw14 = (uint32_t)off;
		c.cdw15 = (uint32_t)(off >> 32);
		st = rt_exec(dev, &c, buf, NULL);
	}
	free(buf);
	return st;
}

static inline uint32_t rt_row_bytes(uint32_t dtype, uint32_t dim)
{
	return dtype == ISP_RF_FP32 ? 4 * dim : dtype == ISP_RF_FP16 ? 2 * dim : dim + 8;
}

/* Create, stream rows (and the profile first), commit. */
static inline uint16_t rt_deploy(struct isp_dev *dev, const struct isp_wire_rf_create *cr,
			  const void *rows, const uint32_t *profile)
{
	uint64_t bytes = (uint64_t)cr->rows * rt_row_bytes(cr->dtype, cr->dim);
	uint16_t st = rt_create(dev, cr);

	if (!st && profile)
		st = rt_write(dev, ISP_OP_RF_TBL_WRITE, cr->tid, ISP_RF_SEC_PROFILE, profile,
			      (uint64_t)cr->rows * 4, 65536);
	if (!st)
		st = rt_write(dev, ISP_OP_RF_TBL_WRITE, cr->tid, ISP_RF_SEC_ROWS, rows, bytes,
			      RT_MAX_XFER - 1000);
	if (!st)
		st = rt_simple(dev, ISP_OP_RF_TBL_COMMIT, cr->tid, 0, NULL);
	return st;
}

static inline uint16_t rt_stats(struct isp_dev *dev, uint32_t tid, int reset,
			 struct isp_wire_rf_stats *w)
{
	struct isp_cmd c = rt_cmd(ISP_OP_RF_TBL_STATS, sizeof(*w));

	c.cdw12 = tid;
	c.cdw13 = reset ? 1 : 0;
	return rt_exec(dev, &c, w, NULL);
}

/* ---- SLS ---- */

struct rt_batch {
	uint32_t nbags, nidx;
	uint32_t *off;		/* nbags + 1 */
	uint32_t *idx;
	float *w;		/* NULL: unweighted */
};

static inline void rt_batch_free(struct rt_batch *b)
{
	free(b->off);
	free(b->idx);
	free(b->w);
	memset(b, 0, sizeof(*b));
}

static inline uint32_t rt_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* Bags of one row each: rows @first..@first + @n - 1, @reps times over. */
static inline void rt_batch_hot(struct rt_batch *b, uint32_t first, uint32_t n, uint32_t reps)
{
	uint32_t i;

	b->nbags = n * reps;
	b->nidx = n * reps;
	b->off = malloc((b->nbags + 1) * sizeof(*b->off));
	b->idx = malloc(b->nidx * sizeof(*b->idx));
	b->w = NULL;
	REQUIRE(b->off && b->idx);
	for (i = 0; i <= b->nbags; i++)
		b->off[i] = i;
	for (i = 0; i < b->nidx; i++)
		b->idx[i] = first + i % n;
}

/* Bags of 1..maxlen random rows (uniform), optional random weights. */
static inline void rt_batch_random(struct rt_batch *b, uint32_t nbags, uint32_t maxlen,
			    uint32_t rows, int weighted, uint32_t seed)
{
	uint32_t i, n = 0, s = seed | 1;

	b->nbags = nbags;
	b->off = malloc((nbags + 1) * sizeof(*b->off));
	b->idx = malloc((size_t)nbags * maxlen * sizeof(*b->idx));
	b->w = weighted ? malloc((size_t)nbags * maxlen * sizeof(*b->w)) : NULL;
	REQUIRE(b->off && b->idx && (!weighted || b->w));
	for (i = 0; i < nbags; i++) {
		uint32_t len = 1 + rt_rand(&s) % maxlen, j;

		b->off[i] = n;
		for (j = 0; j < len; j++, n++) {
			b->idx[n] = rt_rand(&s) % rows;
			if (weighted)
				b->w[n] = (float)((int32_t)(rt_rand(&s) % 2001) - 1000) / 256.0f;
		}
	}
	b->off[nbags] = n;
	b->nidx = n;
}

struct rt_sls_out {
	struct isp_wire_result_hdr hdr;
	struct isp_wire_rf_result res;
	float *v;		/* nbags * dim, malloc'd */
	struct isp_cpl cpl;
};

/* Build the SLS data of @b; returns its length. */
static inline size_t rt_sls_data(uint32_t tid, uint32_t dim, uint32_t flags, const struct rt_batch *b,
			  uint8_t **out)
{
	struct isp_wire_rf_sls h;
	size_t len = sizeof(h) + 4u * (b->nbags + 1) + 4u * b->nidx * (b->w ? 2 : 1);
	uint8_t *p = malloc(len);

	REQUIRE(p);
	memset(&h, 0, sizeof(h));
	h.tid = tid;
	h.nbags = b->nbags;
	h.nidx = b->nidx;
	h.flags = flags | (b->w ? ISP_RF_SLS_WEIGHTED : 0);
	h.dim = dim;
	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), b->off, 4u * (b->nbags + 1));
	memcpy(p + sizeof(h) + 4u * (b->nbags + 1), b->idx, 4u * b->nidx);
	if (b->w)
		memcpy(p + sizeof(h) + 4u * (b->nbags + 1) + 4u * b->nidx, b->w, 4u * b->nidx);
	*out = p;
	return len;
}

static uint32_t rt_ticket_seq = 100;

/* RESULT_READ the whole blob of @ticket in chunks, release it. */
static inline uint16_t rt_read_result(struct isp_dev *dev, uint32_t ticket, uint8_t **blob,
			       uint64_t *total)
{
	struct isp_wire_result_hdr h;
	uint8_t first[4096];
	struct isp_cmd c = rt_cmd(ISP_OP_RESULT_READ, sizeof(first));
	uint64_t off;
	uint16_t st;
	uint8_t *b;

	c.cdw12 = ticket;
	st = rt_exec(dev, &c, first, NULL);
	if (st)
		return st;
	memcpy(&h, first, sizeof(h));
	REQUIRE(memcmp(h.magic, "RSLT", 4) == 0 && h.total_bytes >= sizeof(h));
	b = malloc(h.total_bytes + RT_MAX_XFER);
	REQUIRE(b);
	memcpy(b, first, sizeof(first) < h.total_bytes ? sizeof(first) : h.total_bytes);
	for (off = sizeof(first); off < h.total_bytes; off += RT_MAX_XFER) {
		uint64_t n = h.total_bytes - off < RT_MAX_XFER ? h.total_bytes - off : RT_MAX_XFER;

		c = rt_cmd(ISP_OP_RESULT_READ, (uint32_t)((n + 3) & ~3ull));
		c.cdw12 = ticket;
		c.cdw14 = (uint32_t)off;
		c.cdw15 = (uint32_t)(off >> 32);
		st = rt_exec(dev, &c, b + off, NULL);
		REQUIRE(st == 0);
	}
	st = rt_simple(dev, ISP_OP_RESULT_RELEASE, ticket, 0, NULL);
	REQUIRE(st == 0);
	*blob = b;
	*total = h.total_bytes;
	return 0;
}

/* One SLS command and its result. @submit_ns 0: the next idle time. */
static inline uint16_t rt_sls_at(struct isp_dev *dev, uint32_t tid, uint32_t dim, uint32_t flags,
			  const struct rt_batch *b, uint64_t submit_ns, struct rt_sls_out *o)
{
	uint8_t *data, *blob;
	size_t len = rt_sls_data(tid, dim, flags, b, &data);
	struct isp_cmd c = rt_cmd(ISP_OP_RF_SLS, (uint32_t)len);
	uint64_t total;
	uint32_t ticket;
	uint16_t st;

	pthread_mutex_lock(&rt_clock_lock);
	ticket = ++rt_ticket_seq;
	pthread_mutex_unlock(&rt_clock_lock);
	if (submit_ns)
		c.submit_ns = submit_ns;
	c.cdw12 = ticket;
	memset(o, 0, sizeof(*o));
	st = rt_exec(dev, &c, data, &o->cpl);
	free(data);
	if (st)
		return st;
	st = rt_read_result(dev, ticket, &blob, &total);
	REQUIRE(st == 0);
	memcpy(&o->hdr, blob, sizeof(o->hdr));
	memcpy(&o->res, blob + sizeof(o->hdr), sizeof(o->res));
	REQUIRE(total == sizeof(o->hdr) + sizeof(o->res) + 4ull * b->nbags * dim);
	o->v = malloc(4ull * b->nbags * dim + 4);
	REQUIRE(o->v);
	memcpy(o->v, blob + sizeof(o->hdr) + sizeof(o->res), 4ull * b->nbags * dim);
	free(blob);
	return 0;
}

static inline uint16_t rt_sls(struct isp_dev *dev, uint32_t tid, uint32_t dim, uint32_t flags,
		       const struct rt_batch *b, struct rt_sls_out *o)
{
	return rt_sls_at(dev, tid, dim, flags, b, 0, o);
}

/* ---- host reference (independent of the engine's code) ---- */

static inline float rt_half(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	float v;

	if (e == 0)
		v = ldexpf((float)m, -24);
	else if (e == 31)
		v = m ? NAN : INFINITY;
	else
		v = ldexpf((float)(m | 0x400), e - 25);
	return (h & 0x8000) ? -v : v;
}

static inline float rt_elem(const uint8_t *row, uint32_t dtype, uint32_t dim, uint32_t d)
{
	float f, scale, bias;
	uint16_t h;

	switch (dtype) {
	case ISP_RF_FP32:
		memcpy(&f, row + 4 * d, 4);
		return f;
	case ISP_RF_FP16:
		memcpy(&h, row + 2 * d, 2);
		return rt_half(h);
	default:
		memcpy(&scale, row + dim, 4);
		memcpy(&bias, row + dim + 4, 4);
		{
			volatile float q = scale * (float)(int8_t)row[d];

			return q + bias;
		}
	}
}

/* The documented rule: float32, index order, products and sums rounded. */
static inline void rt_reference(const uint8_t *table, uint32_t dtype, uint32_t dim, uint32_t flags,
			 const struct rt_batch *b, float *out)
{
	uint32_t rb = rt_row_bytes(dtype, dim), bag, i, d;

	for (bag = 0; bag < b->nbags; bag++) {
		float *o = out + (size_t)bag * dim;

		for (d = 0; d < dim; d++)
			o[d] = 0.0f;
		for (i = b->off[bag]; i < b->off[bag + 1]; i++) {
			const uint8_t *row = table + (size_t)b->idx[i] * rb;

			for (d = 0; d < dim; d++) {
				volatile float v = rt_elem(row, dtype, dim, d);

				if (b->w)
					v = b->w[i] * v;
				o[d] = o[d] + v;
			}
		}
		if (flags & ISP_RF_SLS_MEAN)
			for (d = 0; d < dim; d++)
				o[d] = o[d] / (float)(b->off[bag + 1] - b->off[bag]);
	}
}

/* Random rows of @dtype: fp32/fp16 finite values, int8 with scale/bias. */
static inline uint8_t *rt_table(uint32_t rows, uint32_t dim, uint32_t dtype, uint32_t seed)
{
	uint32_t rb = rt_row_bytes(dtype, dim), r, d, s = seed | 1;
	uint8_t *t = malloc((size_t)rows * rb);

	REQUIRE(t);
	for (r = 0; r < rows; r++) {
		uint8_t *row = t + (size_t)r * rb;

		for (d = 0; d < dim; d++) {
			if (dtype == ISP_RF_FP32) {
				float f = ((float)(rt_rand(&s) % 2000001) - 1000000.0f) / 3333.0f;

				memcpy(row + 4 * d, &f, 4);
			} else if (dtype == ISP_RF_FP16) {
				/* finite halves: exponent 0..30, both signs, subnormals too */
				uint16_t h = (uint16_t)(rt_rand(&s) & 0xffff);

				if (((h >> 10) & 0x1f) == 0x1f)
					h &= 0xbfff;
				memcpy(row + 2 * d, &h, 2);
			} else {
				row[d] = (uint8_t)rt_rand(&s);
			}
		}
		if (dtype == ISP_RF_INT8) {
			float scale = (float)(1 + rt_rand(&s) % 1000) / 7919.0f;
			float bias = ((float)(rt_rand(&s) % 2001) - 1000.0f) / 977.0f;

			memcpy(row + dim, &scale, 4);
			memcpy(row + dim + 4, &bias, 4);
		}
	}
	return t;
}

/* Bit-exact comparison (NaN-free data). */
static inline int rt_same(const float *a, const float *b, size_t n)
{
	return memcmp(a, b, n * sizeof(*a)) == 0;
}

#endif /* TEST_RF_UTIL_H */
