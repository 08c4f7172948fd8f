/* SPDX-License-Identifier: MIT */
/*
 * reis_quant.c - binary (sign) and INT8 (symmetric, per-dimension scale)
 * quantization, exactly as struct reis_quant in reis_db.h defines it, and
 * the small numeric kernels the other REIS files share: Hamming distance
 * (POPCNT chosen at run time), dot products and squared distances with a
 * fixed summation order, FNV-1a.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reis_db_priv.h"

/* ---------------------------------------------------------------------- */
/* Kernels                                                                 */
/* ---------------------------------------------------------------------- */

static uint32_t reis_ham_generic(const uint64_t *a, const uint64_t *b, uint32_t words)
{
	uint32_t i, d = 0;

	for (i = 0; i < words; i++)
		d += (uint32_t)__builtin_popcountll(a[i] ^ b[i]);
	return d;
}

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("popcnt")))
static uint32_t reis_ham_popcnt(const uint64_t *a, const uint64_t *b, uint32_t words)
{
	uint32_t i, d = 0;

	for (i = 0; i < words; i++)
		d += (uint32_t)__builtin_popcountll(a[i] ^ b[i]);
	return d;
}
#endif

typedef uint32_t (*reis_ham_fn)(const uint64_t *, const uint64_t *, uint32_t);

static reis_ham_fn reis_ham_pick(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("popcnt"))
		return reis_ham_popcnt;
#endif
	return reis_ham_generic;
}

uint32_t reis__hamming64(const uint64_t *a, const uint64_t *b, uint32_t words)
{
	/* Benign race: every thread computes the same pointer. */
	static reis_ham_fn fn;
	reis_ham_fn f = __atomic_load_n(&fn, __ATOMIC_RELAXED);

	if (!f) {
		f = reis_ham_pick();
		__atomic_store_n(&fn, f, __ATOMIC_RELAXED);
	}
	return f(a, b, words);
}

uint32_t reis_hamming(const uint8_t *a, const uint8_t *b, uint32_t bytes)
{
	uint64_t x[8], y[8];
	uint32_t d = 0, off = 0;

	/* Callers' codes need not be 8-byte aligned: copy in blocks. */
	while (off + 8 <= bytes) {
		uint32_t w = (bytes - off) / 8;

		if (w > 8)
			w = 8;
		memcpy(x, a + off, w * 8);
		memcpy(y, b + off, w * 8);
		d += reis__hamming64(x, y, w);
		off += w * 8;
	}
	for (; off < bytes; off++)
		d += (uint32_t)__builtin_popcount((unsigned)(a[off] ^ b[off]));
	return d;
}

/*
 * Eight partial sums (two 4-lane vectors), combined in a fixed order: the
 * result is deterministic and the loop runs in SIMD registers.
 */
typedef float reis_v4 __attribute__((vector_size(16)));

static inline reis_v4 reis_ld4(const float *p)
{
	reis_v4 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline float reis_fold8(reis_v4 lo, reis_v4 hi, float tail)
{
	return ((lo[0] + tail + lo[1]) + (lo[2] + lo[3])) + ((hi[0] + hi[1]) + (hi[2] + hi[3]));
}

float reis__dot(const float *a, const float *b, uint32_t dim)
{
	reis_v4 lo = { 0, 0, 0, 0 }, hi = { 0, 0, 0, 0 };
	float tail = 0;
	uint32_t i;

	for (i = 0; i + 8 <= dim; i += 8) {
		lo += reis_ld4(a + i) * reis_ld4(b + i);
		hi += reis_ld4(a + i + 4) * reis_ld4(b + i + 4);
	}
	for (; i < dim; i++)
		tail += a[i] * b[i];
	return reis_fold8(lo, hi, tail);
}

float reis__l2sq(const float *a, const float *b, uint32_t dim)
{
	reis_v4 lo = { 0, 0, 0, 0 }, hi = { 0, 0, 0, 0 };
	float tail = 0;
	uint32_t i;

	for (i = 0; i + 8 <= dim; i += 8) {
		reis_v4 d0 = reis_ld4(a + i) - reis_ld4(b + i);
		reis_v4 d1 = reis_ld4(a + i + 4) - reis_ld4(b + i + 4);

		lo += d0 * d0;
		hi += d1 * d1;
	}
	for (; i < dim; i++) {
		float d = a[i] - b[i];

		tail += d * d;
	}
	return reis_fold8(lo, hi, tail);
}

uint64_t reis__fnv64(uint64_t h, const void *p, uint64_t len)
{
	const uint8_t *b = p;
	uint64_t i;

	for (i = 0; i < len; i++) {
		h ^= b[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

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

void reis_quant_free(struct reis_quant *q)
{
	if (!q)
		return;
	free(q->mean);
	free(q->scale);
	memset(q, 0, sizeof(*q));
}

static int reis_quant_alloc(struct reis_quant *q, uint32_t dim)
{
	q->mean = calloc(dim, sizeof(float));
	q->scale = calloc(dim, sizeof(float));
	if (!q->mean || !q->scale) {
		reis_quant_free(q);
		return -ENOMEM;
	}
	q->dim = dim;
	return 0;
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
	if (reis_quant_alloc(q, dim))
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

/* "REISQNT1" file: this header, then dim float32 means, dim float32 scales. */
struct reis_quant_file {
	char magic[8];
	uint32_t dim;
	uint32_t metric;
	uint32_t flags;
	uint32_t rsvd;
	uint64_t checksum;	/* FNV-1a 64 of the two arrays */
};
_Static_assert(sizeof(struct reis_quant_file) == 32, "file layout");

uint64_t reis__quant_bytes(uint32_t dim)
{
	return sizeof(struct reis_quant_file) + 8ull * dim;
}

int reis__quant_pack(const struct reis_quant *q, uint8_t *out)
{
	struct reis_quant_file h;

	if (!q || !q->dim || !q->mean || !q->scale)
		return -EINVAL;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, "REISQNT1", 8);
	h.dim = q->dim;
	h.metric = q->metric;
	h.flags = q->flags;
	h.checksum = reis__fnv64(reis__fnv64(REIS_FNV64_INIT, q->mean, q->dim * 4ull),
				 q->scale, q->dim * 4ull);
	memcpy(out, &h, sizeof(h));
	memcpy(out + sizeof(h), q->mean, q->dim * 4ull);
	memcpy(out + sizeof(h) + q->dim * 4ull, q->scale, q->dim * 4ull);
	return 0;
}

int reis__quant_unpack(const uint8_t *buf, uint64_t len, struct reis_quant *q,
		       const char *what, char *err, size_t errlen)
{
	struct reis_quant_file h;
	uint32_t d;

	memset(q, 0, sizeof(*q));
	if (len < sizeof(h) || memcmp(buf, "REISQNT1", 8))
		return reis__errf(err, errlen, -EINVAL, "%s: not a quantizer (REISQNT1)", what);
	memcpy(&h, buf, sizeof(h));
	if (h.dim < REIS_DB_MIN_DIM || h.dim > REIS_DB_MAX_DIM || h.dim % 64 ||
	    h.metric > REIS_METRIC_L2 || (h.flags & ~REIS_QUANT_CENTER))
		return reis__errf(err, errlen, -EINVAL, "%s: bad header (dim %u, metric %u, "
				  "flags 0x%x)", what, h.dim, h.metric, h.flags);
	if (len != reis__quant_bytes(h.dim))
		return reis__errf(err, errlen, -EINVAL, "%s: truncated or trailing bytes",
				  what);
	if (reis_quant_alloc(q, h.dim))
		return reis__errf(err, errlen, -ENOMEM, "out of memory");
	memcpy(q->mean, buf + sizeof(h), h.dim * 4ull);
	memcpy(q->scale, buf + sizeof(h) + h.dim * 4ull, h.dim * 4ull);
	if (reis__fnv64(reis__fnv64(REIS_FNV64_INIT, q->mean, h.dim * 4ull), q->scale,
			h.dim * 4ull) != h.checksum) {
		reis_quant_free(q);
		return reis__errf(err, errlen, -EINVAL, "%s: checksum mismatch", what);
	}
	for (d = 0; d < h.dim; d++)
		if (!isfinite(q->mean[d]) || !(q->scale[d] > 0) || !isfinite(q->scale[d])) {
			reis_quant_free(q);
			return reis__errf(err, errlen, -EINVAL, "%s: dimension %u has a bad "
					  "mean or scale", what, d);
		}
	q->metric = h.metric;
	q->flags = h.flags;
	return 0;
}

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
