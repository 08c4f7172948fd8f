/* SPDX-License-Identifier: MIT */
/*
 * plain_search.h - the strongest plain host search bench_search knows
 * (docs/benchmarks.md), written apart from the emulator so it owes it
 * nothing: binary codes in one flat array, k x factor candidates by
 * (Hamming, entry), the INT8 rerank of the emulator (score, then Hamming,
 * then entry).
 *
 *  - the Hamming kernel: AVX-512 VPOPCNTDQ eight codes a step, the eight
 *    codes' popcounts summed by a tree of lane shuffles (no horizontal
 *    reduction per code), one compare of the eight sums against the
 *    query's threshold into a mask; or the same with the four-codes-a-word
 *    packing (eight sums in one XMM of 16-bit lanes); POPCNT and portable
 *    fallbacks on CPUs without AVX-512; the fastest is picked on the
 *    workload;
 *  - the candidates: every code below the threshold is appended to a
 *    buffer of PQ_CAP; a full buffer is cut to the best CAND by a counting
 *    select over the small Hamming range (distances are at most the code's
 *    bit count) and the threshold becomes the CAND-th distance. Codes are
 *    visited in ascending entry order, so a later code at that distance
 *    loses the (Hamming, entry) tie rule and "below" is exact;
 *  - the rerank: the candidates' INT8 rows prefetched, then one AVX-512
 *    VNNI (VPDPBUSD) dot product per row: (q + 128) . x - 128 sum(x), exact
 *    in 32 bits; AVX-512BW / AVX2 / portable on other CPUs;
 *  - blocked: a block of queries shares each 16 KiB of codes (one flash
 *    page of the emulator) while it is in L1;
 *  - IVF: the image's own centroids, the nprobe nearest by (Hamming,
 *    cluster) (the same kernel and select), their entries in ascending
 *    cluster order (entry order, so the tie rule holds).
 */
#ifndef PLAIN_SEARCH_H
#define PLAIN_SEARCH_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define PS_X86 1
#endif

#ifndef PS_K
#define PS_K 10
#endif
#ifndef PS_CAND
#define PS_CAND (PS_K * 10)
#endif
#define PS_CAP (4 * PS_CAND)	/* candidates buffered between two cuts */
#define PS_MAX_BITS 8192u
#define PS_CHUNK 16384u		/* bytes of codes a block shares */

/* One query's candidates: keys Hamming << 32 | entry, in entry order. */
struct ps_q {
	uint32_t thr;		/* a code enters when its distance is below */
	uint32_t n, keep;
	uint64_t key[PS_CAP];
};

static inline void ps_q_reset(struct ps_q *s, uint32_t bits, uint32_t keep)
{
	s->thr = bits + 1;
	s->n = 0;
	s->keep = keep;
}

/*
 * Keep the best s->keep of s->key[0..n) by (Hamming, entry): a count per
 * distance gives the keep-th distance D; every key below D stays, and of
 * those at D the first (smallest entries: the buffer is in entry order).
 * Stable and branch-free; the threshold becomes D.
 */
static void ps_cut(struct ps_q *s)
{
	static __thread uint32_t hist[PS_MAX_BITS + 2];
	uint32_t i, d, below = 0, eq, w = 0;

	if (s->n <= s->keep)
		return;
	memset(hist, 0, (size_t)s->thr * sizeof(hist[0]));
	for (i = 0; i < s->n; i++)
		hist[s->key[i] >> 32]++;
	for (d = 0; below + hist[d] < s->keep; d++)
		below += hist[d];
	eq = s->keep - below;
	for (i = 0; i < s->n; i++) {
		uint32_t di = (uint32_t)(s->key[i] >> 32);
		uint32_t take = di < d || (di == d && eq);

		eq -= di == d && eq;
		s->key[w] = s->key[i];
		w += take;
	}
	s->n = w;
	s->thr = d;
}

static inline void ps_push(struct ps_q *s, uint32_t d, uint64_t e)
{
	s->key[s->n++] = (uint64_t)d << 32 | e;
	if (s->n == PS_CAP)
		ps_cut(s);
}

/* Scan codes [@first, @first + @n) (@bytes each) of @codes for query @q. */
typedef void (*ps_scan_fn)(struct ps_q *s, const uint8_t *codes, uint64_t first, uint64_t n,
			   uint32_t bytes, const uint8_t *q);

static inline uint64_t ps_load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* Portable: the compiler's popcount (no POPCNT instruction). */
static void ps_scan_portable(struct ps_q *s, const uint8_t *codes, uint64_t first, uint64_t n,
			     uint32_t bytes, const uint8_t *q)
{
	uint64_t e;
	uint32_t w;

	for (e = first; e < first + n; e++) {
		const uint8_t *x = codes + e * bytes;
		uint32_t d = 0;

		for (w = 0; w + 8 <= bytes; w += 8)
			d += (uint32_t)__builtin_popcountll(ps_load64(x + w) ^ ps_load64(q + w));
		if (d < s->thr)
			ps_push(s, d, e);
	}
}

#ifdef PS_X86
/* POPCNT, two accumulators. */
__attribute__((target("popcnt")))
static void ps_scan_popcnt(struct ps_q *s, const uint8_t *codes, uint64_t first, uint64_t n,
			   uint32_t bytes, const uint8_t *q)
{
	uint64_t e;
	uint32_t w;

	for (e = first; e < first + n; e++) {
		const uint8_t *x = codes + e * bytes;
		uint64_t d0 = 0, d1 = 0;

		for (w = 0; w + 16 <= bytes; w += 16) {
			d0 += (uint64_t)__builtin_popcountll(ps_load64(x + w) ^ ps_load64(q + w));
			d1 += (uint64_t)__builtin_popcountll(ps_load64(x + w + 8) ^
							     ps_load64(q + w + 8));
		}
		if (w < bytes)
			d0 += (uint64_t)__builtin_popcountll(ps_load64(x + w) ^ ps_load64(q + w));
		if (d0 + d1 < s->thr)
			ps_push(s, (uint32_t)(d0 + d1), e);
	}
}

#define PS_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vpopcntdq")))

/* Popcount of code @x ^ query, @nch 64-byte chunks (query chunks in @qv). */
PS_AVX512 static inline __m512i ps_pop(const uint8_t *x, const __m512i *qv, uint32_t nch)
{
	__m512i a = _mm512_popcnt_epi64(_mm512_xor_si512(qv[0], _mm512_loadu_si512(x)));
	uint32_t c;

	for (c = 1; c < nch; c++)
		a = _mm512_add_epi64(a, _mm512_popcnt_epi64(_mm512_xor_si512(
			qv[c], _mm512_loadu_si512(x + 64 * c))));
	return a;
}

/* The eight vectors' lane sums, qword i = sum of @v[i]: 14 shuffles. */
PS_AVX512 static inline __m512i ps_tree8(const __m512i *v)
{
	__m512i a01 = _mm512_add_epi64(_mm512_unpacklo_epi64(v[0], v[1]),
				       _mm512_unpackhi_epi64(v[0], v[1]));
	__m512i a23 = _mm512_add_epi64(_mm512_unpacklo_epi64(v[2], v[3]),
				       _mm512_unpackhi_epi64(v[2], v[3]));
	__m512i a45 = _mm512_add_epi64(_mm512_unpacklo_epi64(v[4], v[5]),
				       _mm512_unpackhi_epi64(v[4], v[5]));
	__m512i a67 = _mm512_add_epi64(_mm512_unpacklo_epi64(v[6], v[7]),
				       _mm512_unpackhi_epi64(v[6], v[7]));
	__m512i b0 = _mm512_add_epi64(_mm512_shuffle_i64x2(a01, a23, 0x88),
				      _mm512_shuffle_i64x2(a01, a23, 0xdd));
	__m512i b1 = _mm512_add_epi64(_mm512_shuffle_i64x2(a45, a67, 0x88),
				      _mm512_shuffle_i64x2(a45, a67, 0xdd));

	return _mm512_add_epi64(_mm512_shuffle_i64x2(b0, b1, 0x88),
				_mm512_shuffle_i64x2(b0, b1, 0xdd));
}

/*
 * The same sums through 16-bit fields: a lane's count is at most 64 and a
 * code's sum at most 512 a chunk, so four codes share a qword (shifts and
 * adds) before one reduction of two vectors: 4 shuffles. @nch <= 64.
 */
PS_AVX512 static inline __m128i ps_pack8(const __m512i *v)
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
	return _mm512_castsi512_si128(a);	/* words 0..7: codes 0..7 */
}

/* The codes whose bit is set in @m, distances in @d (8 lanes). */
#define PS_TAKE(m, d, e)                                                           \
	do {                                                                       \
		while (m) {                                                        \
			unsigned i_ = (unsigned)__builtin_ctz(m);                  \
                                                                                   \
			m &= m - 1;                                                \
			if ((d)[i_] < s->thr)	/* the threshold may have fallen */ \
				ps_push(s, (d)[i_], (e) + i_);                     \
		}                                                                  \
	} while (0)

/* Compare eight sums (@v) with the threshold; push the ones below. */
PS_AVX512 static inline void ps_cmp8(struct ps_q *s, const __m512i *v, uint64_t e, uint32_t r,
				     int pack)
{
	uint32_t m;

	if (pack) {
		__m128i d = ps_pack8(v);

		m = _mm_cmplt_epu16_mask(d, _mm_set1_epi16((short)s->thr)) & ((1u << r) - 1);
		if (m) {
			uint16_t dd[8];

			_mm_storeu_si128((__m128i *)(void *)dd, d);
			PS_TAKE(m, dd, e);
		}
	} else {
		__m512i d = ps_tree8(v);

		m = _mm512_cmplt_epu64_mask(d, _mm512_set1_epi64(s->thr)) & ((1u << r) - 1);
		if (m) {
			uint64_t dd[8];

			_mm512_storeu_si512(dd, d);
			PS_TAKE(m, dd, e);
		}
	}
}

/*
 * Eight codes a step; @pack picks ps_pack8() over ps_tree8(). @nch is a
 * constant in the specialisations below, so the chunk loop unrolls.
 */
PS_AVX512 static inline void ps_scan512(struct ps_q *s, const uint8_t *codes, uint64_t first,
					uint64_t n, uint32_t bytes, const uint8_t *q,
					uint32_t nch, int pack)
{
	__m512i qv[16], v[8];
	uint64_t e = first, end = first + n;
	uint32_t c, r;

	for (c = 0; c < nch; c++)
		qv[c] = _mm512_loadu_si512(q + 64 * c);
	for (; e + 8 <= end; e += 8) {
		const uint8_t *x = codes + e * bytes;

		for (c = 0; c < 8; c++)
			v[c] = ps_pop(x + (size_t)c * bytes, qv, nch);
		ps_cmp8(s, v, e, 8, pack);
	}
	if (e < end) {
		r = (uint32_t)(end - e);
		for (c = 0; c < 8; c++)
			v[c] = c < r ? ps_pop(codes + (e + c) * bytes, qv, nch) :
			       _mm512_setzero_si512();
		ps_cmp8(s, v, e, r, pack);
	}
}

#define PS_SCAN512(name, nch, pack)                                                    \
	PS_AVX512 static void name(struct ps_q *s, const uint8_t *codes, uint64_t first,  \
				   uint64_t n, uint32_t bytes, const uint8_t *q)          \
	{                                                                                 \
		ps_scan512(s, codes, first, n, bytes, q, (nch) ? (nch) : bytes / 64, pack); \
	}

PS_SCAN512(ps_scan_tree_1, 1, 0)
PS_SCAN512(ps_scan_tree_2, 2, 0)
PS_SCAN512(ps_scan_tree_n, 0, 0)
PS_SCAN512(ps_scan_pack_1, 1, 1)
PS_SCAN512(ps_scan_pack_2, 2, 1)
PS_SCAN512(ps_scan_pack_n, 0, 1)
#endif

struct ps_kernel {
	const char *name;
	ps_scan_fn scan;
};

/*
 * The kernels this CPU runs for @bytes-byte codes, narrowest first (the
 * widest is not always the fastest); returns how many (at most 4).
 */
static unsigned ps_kernels(struct ps_kernel *k, uint32_t bytes)
{
	unsigned n = 0;

	k[n].name = "portable";
	k[n++].scan = ps_scan_portable;
#ifdef PS_X86
	__builtin_cpu_init();
	if (__builtin_cpu_supports("popcnt")) {
		k[n].name = "popcnt";
		k[n++].scan = ps_scan_popcnt;
	}
	if (bytes % 64 == 0 && bytes <= 64 * 16 && __builtin_cpu_supports("avx512f") &&
	    __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
	    __builtin_cpu_supports("avx512vpopcntdq")) {
		k[n].name = "avx512 x8 tree";
		k[n++].scan = bytes == 64 ? ps_scan_tree_1 : bytes == 128 ? ps_scan_tree_2 :
			      ps_scan_tree_n;
		if (bytes <= 64 * 64) {
			k[n].name = "avx512 x8 packed";
			k[n++].scan = bytes == 64 ? ps_scan_pack_1 : bytes == 128 ?
				      ps_scan_pack_2 : ps_scan_pack_n;
		}
	}
#else
	(void)bytes;
#endif
	return n;
}

/* ---- the INT8 rerank ---- */

/* @x's inner product with the query; @qu: q + 128 as unsigned bytes. */
typedef int32_t (*ps_dot_fn)(const int8_t *q, const uint8_t *qu, const int8_t *x, uint32_t dim);

/* The portable loop, vectorised by the compiler for each ISA. */
#define PS_DOT(name, attr)                                                           \
	attr static int32_t name(const int8_t *q, const uint8_t *qu, const int8_t *x,    \
				 uint32_t dim)                                           \
	{                                                                            \
		int32_t s = 0;                                                       \
		uint32_t d;                                                          \
                                                                                     \
		(void)qu;                                                            \
		for (d = 0; d < dim; d++)                                            \
			s += (int16_t)q[d] * (int16_t)x[d];                          \
		return s;                                                            \
	}

PS_DOT(ps_dot_portable, )
#ifdef PS_X86
PS_DOT(ps_dot_avx2, __attribute__((target("avx2"))))
PS_DOT(ps_dot_avx512, __attribute__((target("avx512f,avx512bw"))))

/* VNNI: (q + 128) . x - 128 sum(x), 64 bytes a step; dim % 64 == 0. */
__attribute__((target("avx512f,avx512bw,avx512vnni")))
static int32_t ps_dot_vnni(const int8_t *q, const uint8_t *qu, const int8_t *x, uint32_t dim)
{
	__m512i a = _mm512_setzero_si512(), b = a, k128 = _mm512_set1_epi8((char)0x80);
	uint32_t d;

	(void)q;
	for (d = 0; d < dim; d += 64) {
		__m512i xv = _mm512_loadu_si512(x + d);

		a = _mm512_dpbusd_epi32(a, _mm512_loadu_si512(qu + d), xv);
		b = _mm512_dpbusd_epi32(b, k128, xv);
	}
	return _mm512_reduce_add_epi32(_mm512_sub_epi32(a, b));
}
#endif

/* The widest dot product this CPU runs for @dim, and its name. */
static ps_dot_fn ps_dot_pick(uint32_t dim, const char **name)
{
#ifdef PS_X86
	__builtin_cpu_init();
	if (dim % 64 == 0 && __builtin_cpu_supports("avx512f") &&
	    __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni")) {
		*name = "avx512 vnni";
		return ps_dot_vnni;
	}
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")) {
		*name = "avx512bw";
		return ps_dot_avx512;
	}
	if (__builtin_cpu_supports("avx2")) {
		*name = "avx2";
		return ps_dot_avx2;
	}
#else
	(void)dim;
#endif
	*name = "portable";
	return ps_dot_portable;
}

/*
 * The best PS_K of candidates @key[0..n) by (INT8 inner product desc,
 * key asc) into @out (entries; UINT32_MAX when fewer): every row is
 * prefetched first (100 rows scattered over the INT8 codes), then scored.
 * @qu: scratch of @dim bytes.
 */
static void ps_rerank(ps_dot_fn dot, const uint64_t *key, uint32_t n, const int8_t *int8,
		      uint32_t dim, const int8_t *q8, uint8_t *qu, uint32_t *out)
{
	int64_t sc[PS_K];
	uint64_t ky[PS_K];
	uint32_t i, j, nk = 0, c;

	for (i = 0; i < n; i++)
		for (c = 0; c < dim; c += 64)
			__builtin_prefetch(int8 + (key[i] & 0xffffffffu) * dim + c);
	for (c = 0; c < dim; c++)
		qu[c] = (uint8_t)(q8[c] + 128);
	for (i = 0; i < n; i++) {
		int64_t s = dot(q8, qu, int8 + (key[i] & 0xffffffffu) * dim, dim);

		if (nk == PS_K && (s < sc[PS_K - 1] || (s == sc[PS_K - 1] && key[i] > ky[PS_K - 1])))
			continue;
		j = nk < PS_K ? nk++ : PS_K - 1;
		for (; j > 0 && (s > sc[j - 1] || (s == sc[j - 1] && key[i] < ky[j - 1])); j--) {
			sc[j] = sc[j - 1];
			ky[j] = ky[j - 1];
		}
		sc[j] = s;
		ky[j] = key[i];
	}
	for (i = 0; i < PS_K; i++)
		out[i] = i < nk ? (uint32_t)ky[i] : UINT32_MAX;
}

/* ---- the searches ---- */

struct ps_db {
	const uint8_t *bin;	/* n codes of bytes each */
	const int8_t *int8;	/* n rows of dim */
	uint64_t n;
	uint32_t dim, bytes;
	/* IVF: nlist centroids, cluster c's entries from cfirst[c] */
	const uint8_t *centroids;
	const uint32_t *csize;
	const uint64_t *cfirst;
	uint32_t nlist;
};

struct ps {
	ps_scan_fn scan;
	ps_dot_fn dot;
	struct ps_q *q;		/* one per query of a block */
	uint32_t nblock;
	uint8_t qu[PS_MAX_BITS];
};

/* Room for a block of @nblock queries; -1 when out of memory. */
static int ps_init(struct ps *p, ps_scan_fn scan, ps_dot_fn dot, uint32_t nblock)
{
	memset(p, 0, sizeof(*p));
	p->scan = scan;
	p->dot = dot;
	p->nblock = nblock ? nblock : 1;
	p->q = malloc((size_t)p->nblock * sizeof(*p->q));
	return p->q ? 0 : -1;
}

static void ps_free(struct ps *p)
{
	free(p->q);
	p->q = NULL;
}

/* Brute force, one query at a time: the top PS_K of query @qi into @out. */
static uint64_t ps_bf_one(struct ps *p, const struct ps_db *db, const uint8_t *qb,
			  const int8_t *q8, uint32_t *out)
{
	struct ps_q *s = &p->q[0];

	ps_q_reset(s, db->dim, PS_CAND);
	p->scan(s, db->bin, 0, db->n, db->bytes, qb);
	ps_cut(s);
	ps_rerank(p->dot, s->key, s->n, db->int8, db->dim, q8, p->qu, out);
	return db->n;
}

/*
 * Brute force, a block of @nq (<= nblock) queries sharing each PS_CHUNK
 * bytes of codes while they are in L1; their top PS_K into @out.
 */
static uint64_t ps_bf_block(struct ps *p, const struct ps_db *db, const uint8_t *qb,
			    const int8_t *q8, uint32_t nq, uint32_t *out)
{
	uint64_t chunk = PS_CHUNK / db->bytes ? PS_CHUNK / db->bytes : 1, e, m;
	uint32_t j;

	for (j = 0; j < nq; j++)
		ps_q_reset(&p->q[j], db->dim, PS_CAND);
	for (e = 0; e < db->n; e += chunk) {
		m = db->n - e < chunk ? db->n - e : chunk;
		for (j = 0; j < nq; j++)
			p->scan(&p->q[j], db->bin, e, m, db->bytes, qb + (size_t)j * db->bytes);
	}
	for (j = 0; j < nq; j++) {
		ps_cut(&p->q[j]);
		ps_rerank(p->dot, p->q[j].key, p->q[j].n, db->int8, db->dim,
			  q8 + (size_t)j * db->dim, p->qu, out + (size_t)j * PS_K);
	}
	return (uint64_t)nq * db->n;
}

static int ps_u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* IVF at @nprobe (<= nlist): codes compared, the top PS_K into @out. */
static uint64_t ps_ivf_one(struct ps *p, const struct ps_db *db, uint32_t nprobe,
			   const uint8_t *qb, const int8_t *q8, uint32_t *out)
{
	struct ps_q *s = &p->q[0];
	uint32_t cl[PS_CAP], i, np;
	uint64_t codes = db->nlist;

	/* The nearest centroids by (Hamming, cluster): the same select. */
	ps_q_reset(s, db->dim, nprobe);
	p->scan(s, db->centroids, 0, db->nlist, db->bytes, qb);
	ps_cut(s);
	np = s->n;
	for (i = 0; i < np; i++)
		cl[i] = (uint32_t)s->key[i];
	qsort(cl, np, sizeof(cl[0]), ps_u32_cmp);	/* entry order */
	ps_q_reset(s, db->dim, PS_CAND);
	for (i = 0; i < np; i++) {
		p->scan(s, db->bin, db->cfirst[cl[i]], db->csize[cl[i]], db->bytes, qb);
		codes += db->csize[cl[i]];
	}
	ps_cut(s);
	ps_rerank(p->dot, s->key, s->n, db->int8, db->dim, q8, p->qu, out);
	return codes;
}

#endif /* PLAIN_SEARCH_H */
