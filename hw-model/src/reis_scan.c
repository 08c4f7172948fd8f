/* SPDX-License-Identifier: MIT */
/*
 * reis_scan.c - the in-die scan (REIS §4.3.1-4.3.2): XOR of the broadcast
 * query with each sensed page and the fail-bit count per mini-page give the
 * Hamming distances; page sensing; the fine-grained search over binary pages.
 */

/*
 * Here XOR + popcount, runtime-dispatched to AVX2 or POPCNT with a
 * portable fallback. The kernels cost host CPU time only; the modeled time
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

/*
 * Sense a page (REIS §4.3.2 steps 2-3): entries [@lo, @hi) of a page of
 * @unit-byte codes with @oob_unit OOB bytes each into @buf at their page
 * offsets (the page buffer holds exactly what the dies sensed for them;
 * the rest is not copied).
 */
int re_read_page(struct re_eng *e, const struct fs_region *reg, uint64_t lpage,
		 uint32_t lo, uint32_t hi, uint32_t unit, uint32_t oob_unit,
		 uint8_t *buf, uint64_t *ppa)
{
	uint32_t pb = e->p->page_bytes;

	if (fs_region_ppa(e->fs, reg, lpage, ppa))
		return -EIO;
	if (fs_read(e->fs, *ppa, lo * unit, buf + (size_t)lo * unit, (hi - lo) * unit))
		return -EIO;
	if (oob_unit && fs_read(e->fs, *ppa, pb + lo * oob_unit, buf + pb + (size_t)lo * oob_unit,
				(hi - lo) * oob_unit))
		return -EIO;
	return 0;
}

/* Fine search of one binary page: entries in @segs[0..nseg). */
static int re_fine_page(struct re_run *r, struct re_db *db, uint64_t pg,
			const struct re_seg *segs, uint32_t nseg, int df, uint32_t thr)
{
	struct re_eng *e = r->e;
	const struct re_layout *L = &db->L;
	uint32_t lo = segs[0].lo, hi = segs[nseg - 1].hi, ncmp = 0, npass;
	uint64_t ppa;

	if (re_read_page(e, &db->slc, L->b_first + pg, lo, hi, L->cb, L->oob_entry, r->page,
			 &ppa))
		return -EIO;
	e->ham(r->qw, r->page + (size_t)lo * L->cb, L->cb, L->cb / 8, hi - lo, r->dist);
	npass = re_filter_page(r, L, pg, segs, nseg, df, thr, &ncmp);
	re_cost_page(&r->c, fg_ppa_plane(e->g, ppa), ncmp, npass);
	r->fine_cmp += ncmp;
	r->fine_pass += npass;
	return 0;
}

/*
 * The fine-grained search of one query (REIS §4.3.1): every binary page
 * (brute force) or the pages of the probed clusters (IVF, re_coarse() has
 * filled r->vs), candidates into TTL-E; returns the phase's end in *@tend.
 */
int re_fine(struct re_run *r, struct re_db *db, uint64_t t, uint64_t cand, int df,
	    uint32_t thr, uint64_t *tend)
{
	const struct re_layout *L = &db->L;
	struct re_seg whole;
	uint64_t pg;
	uint32_t i;
	int ret;

	re_topc_reset(&r->top, (uint32_t)cand);
	re_cost_phase(&r->c, t, cand, L->ttl_e, (uint32_t)(df + r->tag));
	if (r->ivf) {
		for (i = 0; i < r->vs.nv; i++) {
			const struct re_visit *v = &r->vs.v[i];

			ret = re_fine_page(r, db, v->page, r->vs.s + v->seg0, v->nseg, df, thr);
			if (ret)
				return ret;
		}
	} else {
		for (pg = 0; pg < L->bpages; pg++) {
			uint64_t left = db->c.n - pg * L->epb;

			whole.lo = 0;
			whole.hi = (uint32_t)(left < L->epb ? left : L->epb);
			ret = re_fine_page(r, db, pg, &whole, 1, df, thr);
			if (ret)
				return ret;
		}
	}
	*tend = re_cost_phase_end(&r->c);
	return 0;
}
