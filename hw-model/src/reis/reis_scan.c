/* SPDX-License-Identifier: MIT */
/*
 * reis_scan.c - the in-die scan (REIS §4.3.1-4.3.2): XOR of the broadcast
 * query with each sensed page and the fail-bit count per mini-page give the
 * Hamming distances; page sensing; the fine-grained search over binary pages.
 */

/*
 * Here XOR + popcount, runtime-dispatched to AVX-512 VPOPCNTDQ, AVX2 or
 * POPCNT with a portable fallback, over the page in place in the store. The kernels cost host CPU time only; the modeled time
 * is charged per page in reis_cost.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reis_int.h"

#if defined(__x86_64__)
#define RE_X86 1
#include <immintrin.h>
#endif

/* Bytes of a page's head the scans load before they jump to it (another
 * block's page, IVF's next visit): 4 KiB, as measured with the kernel's
 * distance below. */
#define RE_PF_AHEAD 4096u

/* The kernel's prefetch distance: 6 KiB ran 2-12 % faster than 4 at one
 * query per command over an earlier page layout, as fast with 64 queries;
 * over a block's data in one array (flash_pages.c) 4, 6 and 8 KiB were
 * within the host's noise (bench_search --profile bf1, alternated;
 * docs/benchmarks.md). It runs past a page's end into the block's next
 * page's data, the page a brute-force scan reads next. */
#define RE_PF_KERNEL 6144u

/* IVF prefetches the next visit's page only when the codes exceed this:
 * the 1.3 MB corpus stays in the host's caches and ran 6 % slower with it
 * (bench_search); larger databases were not measured without it. */
#define RE_PF_MIN_CODES (8ull << 20)

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

/*
 * AVX-512: four codes per step, each query chunk of 512 bits loaded once
 * for the four, VPOPCNTQ per word, the last chunk a masked load so no
 * byte past a code is touched. Four codes, not eight: on this project's
 * Zen 4 hosts (AVX-512 on 256-bit units) eight accumulators and their
 * transpose cost more than they save (docs/benchmarks.md).
 */
/* Popcount of @q ^ the first words of @x selected by @m (unselected read 0). */
__attribute__((target("avx512f,avx512vpopcntdq")))
static inline __m512i re_pop512(__m512i q, const uint8_t *x, __mmask8 m)
{
	return _mm512_popcnt_epi64(_mm512_xor_si512(q, _mm512_maskz_loadu_epi64(m, x)));
}

/* Four codes @stride apart at @x: the chunk of words [@w, @w + 8) in @m. */
#define RE_STEP4(m)                                                                    \
	do {                                                                           \
		__m512i qv = _mm512_maskz_loadu_epi64(m, q + w);                       \
                                                                                       \
		a0 = _mm512_add_epi64(a0, re_pop512(qv, x + 8 * w, m));                \
		a1 = _mm512_add_epi64(a1, re_pop512(qv, x + s1 + 8 * w, m));           \
		a2 = _mm512_add_epi64(a2, re_pop512(qv, x + 2 * s1 + 8 * w, m));       \
		a3 = _mm512_add_epi64(a3, re_pop512(qv, x + 3 * s1 + 8 * w, m));       \
	} while (0)

__attribute__((target("avx512f,avx512vpopcntdq")))
static void re_ham_avx512(const uint64_t *q, const uint8_t *codes, uint32_t stride,
			  uint32_t words, uint32_t n, uint16_t *out)
{
	__mmask8 tail = (__mmask8)((1u << (words % 8)) - 1);
	size_t s1 = stride, c;
	uint32_t i = 0, w;

	for (; i + 4 <= n; i += 4) {
		const uint8_t *x = codes + i * s1;
		__m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;

		for (c = 0; c < 4 * s1; c += 64)
			_mm_prefetch((const char *)x + RE_PF_KERNEL + c, _MM_HINT_T0);
		for (w = 0; w + 8 <= words; w += 8)
			RE_STEP4(0xff);
		if (tail)
			RE_STEP4(tail);
		out[i] = (uint16_t)_mm512_reduce_add_epi64(a0);
		out[i + 1] = (uint16_t)_mm512_reduce_add_epi64(a1);
		out[i + 2] = (uint16_t)_mm512_reduce_add_epi64(a2);
		out[i + 3] = (uint16_t)_mm512_reduce_add_epi64(a3);
	}
	for (; i < n; i++) {
		const uint8_t *x = codes + i * s1;
		__m512i a = _mm512_setzero_si512();

		for (w = 0; w < words; w += 8) {
			__mmask8 m = words - w >= 8 ? 0xff : tail;

			a = _mm512_add_epi64(a, re_pop512(_mm512_maskz_loadu_epi64(m, q + w),
							  x + 8 * w, m));
		}
		out[i] = (uint16_t)_mm512_reduce_add_epi64(a);
	}
}
#undef RE_STEP4
#endif

/*
 * The scan fused with the filter (re_scan_fn): the distances of a block
 * of codes in a small buffer, then one compare loop the compiler
 * vectorises; what the variants without an AVX-512 kernel use.
 */
#define RE_SCAN_STEP 64u

static inline uint32_t re_scan_pick(const uint16_t *d, uint32_t n, uint32_t base, uint32_t lim,
				    uint32_t thr, uint16_t *idx, uint16_t *dist, uint32_t *below)
{
	uint32_t i, nc = 0, nb = 0, mn = UINT32_MAX;

	for (i = 0; i < n; i++) {
		nb += d[i] < thr;
		mn = d[i] < mn ? d[i] : mn;
	}
	*below += nb;
	if (mn >= lim)
		return 0;	/* the common case once TTL-E is full */
	for (i = 0; i < n; i++) {
		if (d[i] < lim) {
			idx[nc] = (uint16_t)(base + i);
			dist[nc++] = d[i];
		}
	}
	return nc;
}

#define RE_SCAN_VIA(name, ham, attr)                                                    \
	attr static uint32_t name(const uint64_t *q, const uint8_t *codes, uint32_t stride, \
				  uint32_t words, uint32_t n, uint32_t lim, uint32_t thr,   \
				  uint16_t *idx, uint16_t *dist, uint32_t *below)           \
	{                                                                               \
		uint16_t d[RE_SCAN_STEP];                                               \
		uint32_t i, m, nc = 0;                                                  \
                                                                                        \
		for (i = 0; i < n; i += m) {                                            \
			m = n - i < RE_SCAN_STEP ? n - i : RE_SCAN_STEP;                \
			ham(q, codes + (size_t)i * stride, stride, words, m, d);        \
			nc += re_scan_pick(d, m, i, lim, thr, idx + nc, dist + nc, below); \
		}                                                                       \
		return nc;                                                              \
	}

RE_SCAN_VIA(re_scan_portable, re_ham_portable, )
#ifdef RE_X86
RE_SCAN_VIA(re_scan_popcnt, re_ham_popcnt, __attribute__((target("popcnt"))))
RE_SCAN_VIA(re_scan_avx2, re_ham_avx2, __attribute__((target("avx2,popcnt"))))

#define RE_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vpopcntdq")))
/* Inlined into each specialisation, so @words is a constant there. */
#define RE_INLINE __attribute__((always_inline)) inline

/* Popcounts per word of code @x ^ @q, @words words (chunks of 8, masked tail). */
RE_AVX512 static RE_INLINE __m512i re_pop_code(const uint64_t *q, const uint8_t *x, uint32_t words)
{
	__m512i a = _mm512_setzero_si512();
	uint32_t w;

	for (w = 0; w + 8 <= words; w += 8)
		a = _mm512_add_epi64(a, _mm512_popcnt_epi64(_mm512_xor_si512(
			_mm512_loadu_si512((const void *)(q + w)),
			_mm512_loadu_si512((const void *)(x + 8 * w)))));
	if (w < words) {
		__mmask8 m = (__mmask8)((1u << (words - w)) - 1);

		a = _mm512_add_epi64(a, _mm512_popcnt_epi64(_mm512_xor_si512(
			_mm512_maskz_loadu_epi64(m, q + w), _mm512_maskz_loadu_epi64(m, x + 8 * w))));
	}
	return a;
}

/*
 * Eight codes' sums without a horizontal reduction per code: a word's
 * count is at most 64 a chunk and a code's sum at most ISP_REIS_MAX_DIM
 * (8192), so four codes share a 64-bit lane in 16-bit fields (shifts and
 * adds) and two vectors are reduced together; words 0..7 of the result
 * are codes 0..7.
 */
RE_AVX512 static RE_INLINE __m128i re_sum8(const __m512i *v)
{
	__m512i p0 = _mm512_add_epi64(_mm512_add_epi64(v[0], _mm512_slli_epi64(v[1], 16)),
				      _mm512_add_epi64(_mm512_slli_epi64(v[2], 32),
						       _mm512_slli_epi64(v[3], 48)));
	__m512i p1 = _mm512_add_epi64(_mm512_add_epi64(v[4], _mm512_slli_epi64(v[5], 16)),
				      _mm512_add_epi64(_mm512_slli_epi64(v[6], 32),
						       _mm512_slli_epi64(v[7], 48)));
	__m512i a = _mm512_add_epi64(_mm512_unpacklo_epi64(p0, p1), _mm512_unpackhi_epi64(p0, p1));

	a = _mm512_add_epi64(a, _mm512_shuffle_i64x2(a, a, 0x4e));
	a = _mm512_add_epi64(a, _mm512_shuffle_i64x2(a, a, 0xb1));
	return _mm512_castsi512_si128(a);
}

/* Codes [@i, @i + 8) of @n's sums @d against @vl and @vt (@mv: the ones
 * that exist): the count below the threshold into *@nb, the ones below the
 * limit out; returns the new count out. */
RE_AVX512 static RE_INLINE uint32_t re_take8(__m128i d, __m128i vl, __m128i vt, uint32_t mv,
					     uint32_t i, uint16_t *idx, uint16_t *dist,
					     uint32_t nc, uint32_t *nb)
{
	uint32_t m = _mm_cmplt_epu16_mask(d, vl) & mv, j;

	*nb += (uint32_t)__builtin_popcount(_mm_cmplt_epu16_mask(d, vt) & mv);
	if (m) {
		uint16_t dd[8];

		_mm_storeu_si128((__m128i *)(void *)dd, d);
		while (m) {
			j = (uint32_t)__builtin_ctz(m);
			m &= m - 1;
			idx[nc] = (uint16_t)(i + j);
			dist[nc++] = dd[j];
		}
	}
	return nc;
}

/*
 * AVX-512: eight codes a step, their eight sums compared with @lim and
 * @thr at once (two masks); only the codes below @lim are written out.
 * @words is a constant in the specialisations below, so the chunk loop
 * unrolls. Codes past @n are not loaded.
 */
RE_AVX512 static RE_INLINE uint32_t re_scan512(const uint64_t *q, const uint8_t *codes,
					       uint32_t stride, uint32_t words, uint32_t n,
					       uint32_t lim, uint32_t thr, uint16_t *idx,
					       uint16_t *dist, uint32_t *below, int pf)
{
	__m128i vl = _mm_set1_epi16((short)(lim < 0xffff ? lim : 0xffff));
	__m128i vt = _mm_set1_epi16((short)(thr < 0xffff ? thr : 0xffff));
	size_t s1 = stride, c;
	uint32_t i = 0, nc = 0, nb = 0;

	for (; i + 8 <= n; i += 8) {
		const uint8_t *x = codes + i * s1;
		__m512i v[8];

		for (c = 0; pf && c < 8 * s1; c += 64)
			_mm_prefetch((const char *)x + RE_PF_KERNEL + c, _MM_HINT_T0);
		v[0] = re_pop_code(q, x, words);
		v[1] = re_pop_code(q, x + s1, words);
		v[2] = re_pop_code(q, x + 2 * s1, words);
		v[3] = re_pop_code(q, x + 3 * s1, words);
		v[4] = re_pop_code(q, x + 4 * s1, words);
		v[5] = re_pop_code(q, x + 5 * s1, words);
		v[6] = re_pop_code(q, x + 6 * s1, words);
		v[7] = re_pop_code(q, x + 7 * s1, words);
		nc = re_take8(re_sum8(v), vl, vt, 0xff, i, idx, dist, nc, &nb);
	}
	if (i < n) {
		__m512i v[8];
		uint32_t j;

		for (j = 0; j < 8; j++)
			v[j] = i + j < n ? re_pop_code(q, codes + (i + j) * s1, words) :
			       _mm512_setzero_si512();
		nc = re_take8(re_sum8(v), vl, vt, (1u << (n - i)) - 1, i, idx, dist, nc, &nb);
	}
	*below += nb;
	return nc;
}

#define RE_SCAN512(name, w, pf)                                                         \
	RE_AVX512 static uint32_t name(const uint64_t *q, const uint8_t *codes,          \
				       uint32_t stride, uint32_t words, uint32_t n,      \
				       uint32_t lim, uint32_t thr, uint16_t *idx,        \
				       uint16_t *dist, uint32_t *below)                  \
	{                                                                               \
		return re_scan512(q, codes, stride, (w) ? (w) : words, n, lim, thr, idx, \
				  dist, below, pf);                                     \
	}

RE_SCAN512(re_scan_avx512_8, 8, 1)
RE_SCAN512(re_scan_avx512_16, 16, 1)
RE_SCAN512(re_scan_avx512_n, 0, 1)
RE_SCAN512(re_scan_avx512_8c, 8, 0)
RE_SCAN512(re_scan_avx512_16c, 16, 0)
RE_SCAN512(re_scan_avx512_nc, 0, 0)

/* The three as one variant: 512- and 1024-bit codes unrolled; the _c
 * form on codes already in the cache (a block's later queries): without
 * the prefetch, which costs an instruction every 64 bytes for nothing. */
#define RE_SCAN512_ANY(name, w8, w16, wn)                                                \
	static uint32_t name(const uint64_t *q, const uint8_t *codes, uint32_t stride,    \
			     uint32_t words, uint32_t n, uint32_t lim, uint32_t thr,      \
			     uint16_t *idx, uint16_t *dist, uint32_t *below)              \
	{                                                                                \
		return (words == 8 ? w8 : words == 16 ? w16 : wn)(q, codes, stride, words, \
								   n, lim, thr, idx, dist,  \
								   below);                  \
	}

RE_SCAN512_ANY(re_scan_avx512, re_scan_avx512_8, re_scan_avx512_16, re_scan_avx512_n)
RE_SCAN512_ANY(re_scan_avx512c, re_scan_avx512_8c, re_scan_avx512_16c, re_scan_avx512_nc)
#endif

/*
 * The variant named @name of @v[0..n) (ordered narrowest first), or the
 * widest one this CPU runs for NULL: its index (its name in *@chosen),
 * -ENOTSUP, -ENOENT.
 */
int re_variant_pick(const struct re_variant *v, unsigned n, const char *name,
		    const char **chosen)
{
	unsigned i;

	for (i = n; i-- > 0;) {
		if (name ? strcmp(name, v[i].name) != 0 : !v[i].ok)
			continue;
		if (!v[i].ok)
			return -ENOTSUP;
		if (chosen)
			*chosen = v[i].name;
		return (int)i;
	}
	return -ENOENT;
}

/*
 * The variant of the four ISA levels (portable, POPCNT, AVX2, AVX-512)
 * named @name, or the widest this CPU runs: its index, or -ENOTSUP /
 * -ENOENT. @bwvl: the AVX-512 variant also needs AVX-512BW and VL.
 */
static int re_level_pick(const char *name, int bwvl, const char **chosen)
{
	struct re_variant v[] = { { "portable", 1 }, { "popcnt", 0 }, { "avx2", 0 },
				  { "avx512", 0 } };

#ifdef RE_X86
	__builtin_cpu_init();
	v[1].ok = __builtin_cpu_supports("popcnt") != 0;
	v[2].ok = v[1].ok && __builtin_cpu_supports("avx2") != 0;
	v[3].ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq") &&
		  (!bwvl || (__builtin_cpu_supports("avx512bw") &&
			     __builtin_cpu_supports("avx512vl")));
#else
	(void)bwvl;
#endif
	return re_variant_pick(v, 4, name, chosen);
}

int re_hamming_get(const char *name, re_hamming_fn *fn, const char **chosen)
{
	const re_hamming_fn f[] = {
		re_ham_portable,
#ifdef RE_X86
		re_ham_popcnt, re_ham_avx2, re_ham_avx512,
#else
		NULL, NULL, NULL,
#endif
	};
	int i;

	if (!fn)
		return -EINVAL;
	i = re_level_pick(name, 0, chosen);
	if (i >= 0)
		*fn = f[i];
	return i < 0 ? i : 0;
}

int re_scan_get(const char *name, re_scan_fn *fn, const char **chosen)
{
	return re_scan_get2(name, fn, NULL, chosen);
}

int re_scan_get2(const char *name, re_scan_fn *fn, re_scan_fn *cached, const char **chosen)
{
	const re_scan_fn f[] = {
		re_scan_portable,
#ifdef RE_X86
		re_scan_popcnt, re_scan_avx2, re_scan_avx512,
#else
		NULL, NULL, NULL,
#endif
	};
	const re_scan_fn fc[] = {
		re_scan_portable,
#ifdef RE_X86
		re_scan_popcnt, re_scan_avx2, re_scan_avx512c,
#else
		NULL, NULL, NULL,
#endif
	};
	int i;

	if (!fn)
		return -EINVAL;
	i = re_level_pick(name, 1, chosen);
	if (i >= 0) {
		*fn = f[i];
		if (cached)
			*cached = fc[i];
	}
	return i < 0 ? i : 0;
}

/*
 * Sense a page (REIS §4.3.2 steps 2-3): the page buffer is the store's page
 * itself, in place (@buf only when the store must copy); *@pg holds the
 * codes, *@oob the OOB, until fs_page_unmap().
 */
int re_map_page(struct re_eng *e, const struct fs_region *reg, uint64_t lpage, uint8_t *buf,
		const uint8_t **pg, const uint8_t **oob, uint64_t *ppa)
{
	if (fs_region_ppa(e->fs, reg, lpage, ppa) ||
	    fs_page_map_parts(e->fs, *ppa, buf, pg, oob))
		return -EIO;
	return 0;
}

int re_map_many(struct re_eng *e, uint32_t n, const uint64_t *ppa, const uint8_t **pd,
		const uint8_t **po)
{
	int ret = fs_page_map_parts_many(e->fs, n, ppa, pd, po);

	if (ret == -EINVAL)
		return -EIO;
	if (ret) {
		fs_page_unmap(e->fs);
		return 1;
	}
	return 0;
}

/*
 * Start loading the first RE_PF_AHEAD bytes of the page the scan reads
 * next: the kernel prefetches only ahead within a page, and pages of one
 * database lie in many blocks (one stream per plane), more streams than
 * the hardware prefetcher follows.
 */
static void re_prefetch_page(struct re_eng *e, const struct fs_region *reg, uint64_t lpage,
			     uint32_t off, uint32_t len)
{
	const uint8_t *p;
	uint64_t ppa;
	uint32_t c;

	if (fs_region_ppa(e->fs, reg, lpage, &ppa) ||
	    fs_page_map(e->fs, ppa, off, len, NULL, &p))
		return;
	for (c = 0; c < len && c < RE_PF_AHEAD; c += 64)
		__builtin_prefetch(p + c);
	fs_page_unmap(e->fs);
}

/*
 * Fine search of one binary page: entries in @segs[0..nseg) through the
 * filters into TTL-E; the plane and counts its cost needs into @v.
 */
static int re_fine_scan(struct re_run *r, struct re_db *db, uint64_t pg,
			const struct re_seg *segs, uint32_t nseg, int df, uint32_t thr,
			struct re_visit *v)
{
	struct re_eng *e = r->e;
	const struct re_layout *L = &db->L;
	const uint8_t *p, *oob;
	uint64_t ppa;

	if (re_map_page(e, &db->slc, L->b_first + pg, r->page, &p, &oob, &ppa))
		return -EIO;
	v->ncmp = 0;
	v->npass = re_filter_page(r, L, pg, p, oob, r->qw, segs, nseg, df, thr, &v->ncmp);
	fs_page_unmap(e->fs);
	v->plane = fg_ppa_plane(e->g, ppa);
	return 0;
}

/* The next page of the scan, prefetched. */
static void re_fine_next(struct re_run *r, struct re_db *db, const struct re_visit *nx)
{
	const struct re_layout *L = &db->L;
	const struct re_seg *sg = r->vs->s + nx->seg0;

	re_prefetch_page(r->e, &db->slc, L->b_first + nx->page, sg[0].lo * L->cb,
			 (sg[nx->nseg - 1].hi - sg[0].lo) * L->cb);
}

/*
 * The fine-grained search of one IVF query (REIS §4.3.1), the host's part:
 * the pages of the probed clusters (re_coarse_host() has filled r->vs),
 * candidates into TTL-E r->top, each visit's plane and counts recorded for
 * re_fine_cost().
 */
int re_fine_host(struct re_run *r, struct re_db *db, uint64_t cand, int df, uint32_t thr)
{
	const struct re_layout *L = &db->L;
	int ret, pf = db->c.n * L->cb > RE_PF_MIN_CODES;
	uint32_t i;

	re_topc_reset(r->top, (uint32_t)cand, L->dim);
	/* The host scans in r->vs->ord; the drive's order charges. */
	for (i = 0; i < r->vs->nv; i++) {
		struct re_visit *v = &r->vs->v[(uint32_t)r->vs->ord[i]];

		if (isp_ctx_cancelled(r->ctx))
			return -ECANCELED;	/* isp_dev_exec_cancel() */
		if (i + 1 < r->vs->nv && pf)
			re_fine_next(r, db, &r->vs->v[(uint32_t)r->vs->ord[i + 1]]);
		ret = re_fine_scan(r, db, v->page, r->vs->s + v->seg0, v->nseg, df, thr, v);
		if (ret)
			return ret;
	}
	return 0;
}

/* Its charges from @t, in the drive's page order; the phase's end in *@tend. */
void re_fine_cost(struct re_run *r, struct re_db *db, const struct re_visits *vs, uint64_t t,
		  uint64_t cand, int df, uint64_t *tend)
{
	uint32_t i;

	re_cost_phase(&r->c, t, cand, db->L.ttl_e, (uint32_t)(df + r->tag));
	for (i = 0; i < vs->nv; i++)
		re_cost_page(&r->c, vs->v[i].plane, vs->v[i].ncmp, vs->v[i].npass);
	*tend = re_cost_phase_end(&r->c);
}

/*
 * The host's order of @db's binary pages: by slot (page index), so each
 * block's pages are read as one ascending stream of memory or of the file
 * mapping. The drive's order (logical pages across the planes, REIS §4.1)
 * visits one page per block in turn, more streams than the host's
 * prefetchers follow (docs/benchmarks.md). With each page's plane and
 * entry count, for the charges; once per command, before any scan.
 */
int re_bf_order(struct re_run *r, struct re_db *db)
{
	const struct re_layout *L = &db->L;
	uint64_t pg, ppa;

	if (r->bord_db == db)
		return 0;
	for (pg = 0; pg < L->bpages; pg++) {
		uint64_t left = db->c.n - pg * L->epb;

		if (fs_region_ppa(r->e->fs, &db->slc, L->b_first + pg, &ppa))
			return -EIO;
		r->bord[pg] = fg_page_index(r->e->g, ppa) << 32 | pg;
		r->bplane[pg] = fg_ppa_plane(r->e->g, ppa);
		r->bncmp[pg] = (uint32_t)(left < L->epb ? left : L->epb);
	}
	/* Page indices that do not fit the key keep the drive's order. */
	if (fg_page_slots(r->e->g) <= UINT32_MAX)
		re_sort_u64_radix(r->bord, r->bord + L->bpages, L->bpages);
	else
		for (pg = 0; pg < L->bpages; pg++)
			r->bord[pg] = pg;
	r->bord_db = db;
	return 0;
}

/* Brute-force pages mapped under one read guard, divided by the queries
 * that scan each (a guard is held for at most about as many page scans). */
#define RE_BMAP 16u

/* Page @pg (@p, @oob) through the filters of the @nq queries. */
static void re_scan_page(struct re_run *r, struct re_db *db, const uint64_t *qws,
			 struct re_topc *const *tops, uint32_t nq, uint64_t pg, const uint8_t *p,
			 const uint8_t *oob, uint32_t *bpass, int df, uint32_t thr)
{
	const struct re_layout *L = &db->L;
	struct re_seg whole = { 0, r->bncmp[pg] };
	uint32_t j;

	for (j = 0; j < nq; j++) {
		uint32_t ncmp = 0;

		/* The first query brings the page into the cache. */
		r->scan = j ? r->e->scan_c : r->e->scan;
		r->top = tops[j];
		bpass[(size_t)j * L->bpages + pg] =
			re_filter_page(r, L, pg, p, oob, qws + (size_t)j * RE_QWORDS, &whole, 1,
				       df, thr, &ncmp);
	}
}

/*
 * Pages r->bord[@i0, @i1) mapped in place under one guard, with the page
 * after them (its head is prefetched before the jump to it), and scanned;
 * 1 when one of them must be copied (the caller maps them one by one).
 */
static int re_scan_run(struct re_run *r, struct re_db *db, const uint64_t *qws,
		       struct re_topc *const *tops, uint32_t nq, uint64_t i0, uint64_t i1,
		       uint64_t iend, uint32_t *bpass, int df, uint32_t thr)
{
	struct re_eng *e = r->e;
	const struct re_layout *L = &db->L;
	const uint8_t *pd[RE_BMAP + 1], *po[RE_BMAP + 1];
	uint64_t ppa[RE_BMAP + 1];
	uint32_t n = (uint32_t)(i1 - i0) + (i1 < iend), k, c;
	int ret;

	for (k = 0; k < n; k++)
		if (fs_region_ppa(e->fs, &db->slc, L->b_first + (r->bord[i0 + k] & 0xffffffffu),
				  &ppa[k]))
			return -EIO;
	ret = re_map_many(e, n, ppa, pd, po);
	if (ret)
		return ret;
	for (k = 0; i0 + k < i1; k++) {
		uint64_t i = i0 + k;

		if (isp_ctx_cancelled(r->ctx)) {
			fs_page_unmap(e->fs);
			return -ECANCELED;	/* isp_dev_exec_cancel() */
		}
		/* The next block's first page: the hardware prefetcher follows
		 * a block's pages but not the jump to another block. */
		if (i + 1 < iend && r->bord[i + 1] >> 32 != (r->bord[i] >> 32) + 1)
			for (c = 0; c < RE_PF_AHEAD; c += 64)
				__builtin_prefetch(pd[k + 1] + c);
		re_scan_page(r, db, qws, tops, nq, r->bord[i] & 0xffffffffu, pd[k], po[k], bpass,
			     df, thr);
	}
	fs_page_unmap(e->fs);
	return 0;
}

int re_scan_pages(struct re_run *r, struct re_db *db, const uint64_t *qws,
		  struct re_topc *const *tops, uint32_t nq, uint64_t i0, uint64_t i1,
		  uint32_t *bpass, int df, uint32_t thr)
{
	struct re_eng *e = r->e;
	const struct re_layout *L = &db->L;
	uint32_t per = nq && nq < RE_BMAP ? RE_BMAP / nq : 1;
	const uint8_t *p, *oob;
	uint64_t i, m, k, ppa;
	int ret;

	for (i = i0; i < i1; i += m) {
		m = i1 - i < per ? i1 - i : per;
		ret = re_scan_run(r, db, qws, tops, nq, i, i + m, i1, bpass, df, thr);
		if (ret < 0)
			return ret;
		for (k = i; ret && k < i + m; k++) {	/* copies: one at a time */
			uint64_t pg = r->bord[k] & 0xffffffffu;

			if (isp_ctx_cancelled(r->ctx))
				return -ECANCELED;	/* isp_dev_exec_cancel() */
			if (k + 1 < i1 && r->bord[k + 1] >> 32 != (r->bord[k] >> 32) + 1)
				re_prefetch_page(e, &db->slc,
						 L->b_first + (r->bord[k + 1] & 0xffffffffu), 0,
						 RE_PF_AHEAD);
			if (re_map_page(e, &db->slc, L->b_first + pg, r->page, &p, &oob, &ppa))
				return -EIO;
			re_scan_page(r, db, qws, tops, nq, pg, p, oob, bpass, df, thr);
			fs_page_unmap(e->fs);
		}
	}
	r->scan = e->scan;
	return 0;
}

void re_fine_charge(struct re_run *r, struct re_db *db, const uint32_t *pass, uint64_t t,
		    uint64_t cand, int df, uint64_t *tend)
{
	const struct re_layout *L = &db->L;
	uint64_t pg;

	re_cost_phase(&r->c, t, cand, L->ttl_e, (uint32_t)(df + r->tag));
	for (pg = 0; pg < L->bpages; pg++)
		re_cost_page(&r->c, r->bplane[pg], r->bncmp[pg], pass[pg]);
	*tend = re_cost_phase_end(&r->c);
}
