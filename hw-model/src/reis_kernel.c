/* SPDX-License-Identifier: MIT */
/*
 * reis_kernel.c - the emulator's own hot loops: Hamming distances of binary
 * codes (XOR + popcount, runtime-dispatched to AVX2 or POPCNT with a
 * portable fallback) and the top-C candidate buffer.
 *
 * The kernels compute what the dies compute (REIS 4.3.2: XOR between the
 * latches, fail-bit count per mini-page); they cost host CPU time only, the
 * modeled time is charged per page in reis_cost.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reis_int.h"

#if defined(__x86_64__)
#define RE_X86 1
#include <immintrin.h>
#endif

static inline uint64_t re_load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Portable: the compiler's generic popcount (no POPCNT instruction). */
static void re_ham_portable(const uint64_t *q, const uint8_t *codes, uint32_t stride,
			    uint32_t words, uint32_t n, uint16_t *out)
{
	uint32_t i, w;

	for (i = 0; i < n; i++) {
		const uint8_t *x = codes + (size_t)i * stride;
		uint32_t d = 0;

		for (w = 0; w < words; w++)
			d += (uint32_t)__builtin_popcountll(re_load64(x + 8 * w) ^ q[w]);
		out[i] = (uint16_t)d;
	}
}

#ifdef RE_X86
__attribute__((target("popcnt")))
static void re_ham_popcnt(const uint64_t *q, const uint8_t *codes, uint32_t stride,
			  uint32_t words, uint32_t n, uint16_t *out)
{
	uint32_t i, w;

	for (i = 0; i < n; i++) {
		const uint8_t *x = codes + (size_t)i * stride;
		uint64_t d0 = 0, d1 = 0;

		/* Two accumulators break the add dependency chain. */
		for (w = 0; w + 1 < words; w += 2) {
			d0 += (uint64_t)__builtin_popcountll(re_load64(x + 8 * w) ^ q[w]);
			d1 += (uint64_t)__builtin_popcountll(re_load64(x + 8 * w + 8) ^ q[w + 1]);
		}
		if (w < words)
			d0 += (uint64_t)__builtin_popcountll(re_load64(x + 8 * w) ^ q[w]);
		out[i] = (uint16_t)(d0 + d1);
	}
}

/*
 * AVX2: 256 bits at a time, nibble lookup with VPSHUFB and byte sums with
 * VPSADBW; the words beyond a multiple of 4 use POPCNT.
 */
__attribute__((target("avx2,popcnt")))
static void re_ham_avx2(const uint64_t *q, const uint8_t *codes, uint32_t stride,
			uint32_t words, uint32_t n, uint16_t *out)
{
	const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
					     0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
	const __m256i low = _mm256_set1_epi8(0x0f);
	const __m256i zero = _mm256_setzero_si256();
	uint32_t w4 = words & ~3u, i, w;

	for (i = 0; i < n; i++) {
		const uint8_t *x = codes + (size_t)i * stride;
		__m256i acc = zero;
		uint64_t d;

		for (w = 0; w < w4; w += 4) {
			__m256i v = _mm256_xor_si256(
				_mm256_loadu_si256((const __m256i *)(const void *)(x + 8 * w)),
				_mm256_loadu_si256((const __m256i *)(const void *)(q + w)));
			__m256i lo = _mm256_and_si256(v, low);
			__m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low);
			__m256i c = _mm256_add_epi8(_mm256_shuffle_epi8(lut, lo),
						    _mm256_shuffle_epi8(lut, hi));

			acc = _mm256_add_epi64(acc, _mm256_sad_epu8(c, zero));
		}
		d = (uint64_t)_mm256_extract_epi64(acc, 0) + (uint64_t)_mm256_extract_epi64(acc, 1) +
		    (uint64_t)_mm256_extract_epi64(acc, 2) + (uint64_t)_mm256_extract_epi64(acc, 3);
		for (; w < words; w++)
			d += (uint64_t)__builtin_popcountll(re_load64(x + 8 * w) ^ q[w]);
		out[i] = (uint16_t)d;
	}
}
#endif

int re_hamming_get(const char *name, re_hamming_fn *fn, const char **chosen)
{
	int avx2 = 0, popcnt = 0;
	const char *nm;
	re_hamming_fn f;

	if (!fn)
		return -EINVAL;
#ifdef RE_X86
	__builtin_cpu_init();
	popcnt = __builtin_cpu_supports("popcnt") != 0;
	avx2 = popcnt && __builtin_cpu_supports("avx2") != 0;
#endif
	if (!name) {
		name = avx2 ? "avx2" : popcnt ? "popcnt" : "portable";
	}
	if (strcmp(name, "portable") == 0) {
		f = re_ham_portable;
		nm = "portable";
#ifdef RE_X86
	} else if (strcmp(name, "popcnt") == 0) {
		if (!popcnt)
			return -ENOTSUP;
		f = re_ham_popcnt;
		nm = "popcnt";
	} else if (strcmp(name, "avx2") == 0) {
		if (!avx2)
			return -ENOTSUP;
		f = re_ham_avx2;
		nm = "avx2";
#else
	} else if (strcmp(name, "popcnt") == 0 || strcmp(name, "avx2") == 0) {
		return -ENOTSUP;
#endif
	} else {
		return -ENOENT;
	}
	*fn = f;
	if (chosen)
		*chosen = nm;
	return 0;
}

/* ---- top-C candidates ---- */

int re_topc_init(struct re_topc *t, uint32_t keep)
{
	memset(t, 0, sizeof(*t));
	if (!keep)
		keep = 1;
	t->cap = keep > UINT32_MAX / 2 ? UINT32_MAX : 2 * keep;
	t->v = malloc((size_t)t->cap * sizeof(*t->v));
	if (!t->v)
		return -ENOMEM;
	t->keep = keep;
	t->bound = UINT64_MAX;
	return 0;
}

/* Reuse the buffer for another query with @keep <= the initial keep. */
void re_topc_reset(struct re_topc *t, uint32_t keep)
{
	t->n = 0;
	t->keep = keep ? keep : 1;
	t->bound = UINT64_MAX;
}

void re_topc_free(struct re_topc *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

static void re_swap(struct re_cand *a, struct re_cand *b)
{
	struct re_cand x = *a;

	*a = *b;
	*b = x;
}

static int re_cand_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct re_cand *)a)->key, y = ((const struct re_cand *)b)->key;

	return x < y ? -1 : x > y;
}

/*
 * Partition v[0..n) so that v[0..k) hold the k smallest keys (keys are
 * unique). Quickselect with a median-of-three pivot; after too many rounds
 * (adversarial data) it sorts the rest, so the worst case is O(n log n).
 */
static void re_select(struct re_cand *v, uint32_t n, uint32_t k)
{
	uint32_t lo = 0, hi = n, rounds = 0;

	if (k >= n || k == 0)
		return;
	while (hi - lo > 16) {
		uint32_t mid = lo + (hi - lo) / 2, i, j;
		uint64_t piv;

		if (++rounds > 64) {
			qsort(v + lo, hi - lo, sizeof(*v), re_cand_cmp);
			return;
		}
		if (v[mid].key < v[lo].key)
			re_swap(&v[mid], &v[lo]);
		if (v[hi - 1].key < v[lo].key)
			re_swap(&v[hi - 1], &v[lo]);
		if (v[hi - 1].key < v[mid].key)
			re_swap(&v[hi - 1], &v[mid]);
		piv = v[mid].key;
		re_swap(&v[mid], &v[hi - 1]);
		for (i = lo, j = lo; j < hi - 1; j++)
			if (v[j].key < piv)
				re_swap(&v[i++], &v[j]);
		re_swap(&v[i], &v[hi - 1]);
		if (i == k)
			return;
		if (i < k)
			lo = i + 1;
		else
			hi = i;
	}
	qsort(v + lo, hi - lo, sizeof(*v), re_cand_cmp);
}

void re_topc_shrink(struct re_topc *t)
{
	uint32_t i;
	uint64_t mx = 0;

	if (t->n <= t->keep)
		return;
	re_select(t->v, t->n, t->keep);
	t->n = t->keep;
	for (i = 0; i < t->n; i++)
		if (t->v[i].key > mx)
			mx = t->v[i].key;
	t->bound = mx;
}

uint32_t re_topc_finish(struct re_topc *t)
{
	if (t->n > t->keep) {
		re_select(t->v, t->n, t->keep);
		t->n = t->keep;
	}
	qsort(t->v, t->n, sizeof(*t->v), re_cand_cmp);
	return t->n;
}
