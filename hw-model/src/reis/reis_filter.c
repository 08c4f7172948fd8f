/* SPDX-License-Identifier: MIT */
/*
 * reis_filter.c - what crosses the channel (REIS §4.3.3, §7.1): the
 * pass/fail comparator drops entries whose distance is at or above the
 * threshold, the metadata filter those whose tag differs; the rest enter
 * TTL-E with the RADR and DADR from the page's OOB (REIS §4.1.3).
 */
#include "reis_int.h"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

int re_filter_threshold(const struct re_run *r, const struct re_db *db, uint32_t *thr)
{
	*thr = r->thr ? r->thr : db->c.df_threshold;
	return r->df_dev && *thr != 0;
}

/* Into TTL-E with the RADR and DADR from the entry's OOB @o. */
static inline void re_filter_push(struct re_run *r, const struct re_layout *L,
				  const uint8_t *o, uint64_t key)
{
	re_topc_push(r->top, key,
		     L->radr_off != UINT32_MAX ? re_get32(o + L->radr_off) : RE_ADDR_NONE,
		     L->dadr_off != UINT32_MAX ? re_get32(o + L->dadr_off) : RE_ADDR_NONE);
}

/* Entries per block whose smallest distance is checked first. */
#define RE_FILTER_BLOCK 64u

/* Smallest of @d[0..n); distances are at most ISP_REIS_MAX_DIM, so the
 * signed 16-bit minimum of SSE2 (every x86-64 has it) is exact. */
static uint16_t re_dist_min(const uint16_t *d, uint32_t n)
{
	uint16_t mn = UINT16_MAX;
	uint32_t j = 0;

#if defined(__x86_64__)
	if (n >= 8) {
		__m128i m = _mm_loadu_si128((const __m128i *)(const void *)d);

		for (j = 8; j + 8 <= n; j += 8)
			m = _mm_min_epi16(m, _mm_loadu_si128((const __m128i *)(const void *)(d + j)));
		m = _mm_min_epi16(m, _mm_srli_si128(m, 8));
		m = _mm_min_epi16(m, _mm_srli_si128(m, 4));
		m = _mm_min_epi16(m, _mm_srli_si128(m, 2));
		mn = (uint16_t)_mm_cvtsi128_si32(m);
	}
#endif
	for (; j < n; j++)
		mn = d[j] < mn ? d[j] : mn;
	return mn;
}

/*
 * Without filters every entry passes: only those below the TTL-E bound
 * matter, so a block whose smallest distance is above the bound's is
 * skipped whole (a loop the compiler vectorises).
 */
static void re_filter_all(struct re_run *r, const struct re_layout *L, uint64_t base,
			  const uint8_t *oob, uint32_t lo, uint32_t a, uint32_t b)
{
	uint32_t j0, j, end;

	for (j0 = a; j0 < b; j0 = end) {
		end = b - j0 > RE_FILTER_BLOCK ? j0 + RE_FILTER_BLOCK : b;
		if ((uint64_t)re_dist_min(r->dist + (j0 - lo), end - j0) << 32 > r->top->bound)
			continue;
		for (j = j0; j < end; j++) {
			const uint8_t *o = oob + (size_t)j * L->oob_entry;
			uint64_t key = re_key(r->dist[j - lo], base + j);

			if (key < r->top->bound)
				re_filter_push(r, L, o, key);
		}
	}
}

uint32_t re_filter_page(struct re_run *r, const struct re_layout *L, uint64_t pg,
			const uint8_t *oob, const struct re_seg *segs, uint32_t nseg, int df,
			uint32_t thr, uint32_t *ncmp)
{
	uint32_t lo = segs[0].lo, s, j, npass = 0;
	uint64_t base = pg * L->epb;

	for (s = 0; s < nseg; s++) {
		*ncmp += segs[s].hi - segs[s].lo;
		if (!df && !r->tag) {
			npass += segs[s].hi - segs[s].lo;
			re_filter_all(r, L, base, oob, lo, segs[s].lo, segs[s].hi);
			continue;
		}
		for (j = segs[s].lo; j < segs[s].hi; j++) {
			const uint8_t *o = oob + (size_t)j * L->oob_entry;
			uint32_t d = r->dist[j - lo];
			uint64_t key;

			if (df && d >= thr)
				continue;	/* distance filter (§4.3.3) */
			if (r->tag && re_get32(o + L->tag_off) != r->qtag)
				continue;	/* metadata filter in the die (§7.1) */
			npass++;
			/*
			 * At or past the bound it leaves TTL-E at the next
			 * quickselect anyway: no OOB decode, no push.
			 */
			key = re_key(d, base + j);
			if (key < r->top->bound)
				re_filter_push(r, L, o, key);
		}
	}
	return npass;
}
