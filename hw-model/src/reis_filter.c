/* SPDX-License-Identifier: MIT */
/*
 * reis_filter.c - what crosses the channel (REIS §4.3.3, §7.1): the
 * pass/fail comparator drops entries whose distance is at or above the
 * threshold, the metadata filter those whose tag differs; the rest enter
 * TTL-E with the RADR and DADR from the page's OOB (REIS §4.1.3).
 */
#include "reis_int.h"

int re_filter_threshold(const struct re_run *r, const struct re_db *db, uint32_t *thr)
{
	*thr = r->thr ? r->thr : db->c.df_threshold;
	return r->df_dev && *thr != 0;
}

uint32_t re_filter_page(struct re_run *r, const struct re_layout *L, uint64_t pg,
			const uint8_t *oob, const struct re_seg *segs, uint32_t nseg, int df,
			uint32_t thr, uint32_t *ncmp)
{
	uint32_t lo = segs[0].lo, s, j, npass = 0;
	uint64_t base = pg * L->epb;

	for (s = 0; s < nseg; s++) {
		*ncmp += segs[s].hi - segs[s].lo;
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
			if (key >= r->top.bound)
				continue;
			re_topc_add(&r->top, key,
				    L->radr_off != UINT32_MAX ? re_get32(o + L->radr_off) :
				    RE_ADDR_NONE,
				    L->dadr_off != UINT32_MAX ? re_get32(o + L->dadr_off) :
				    RE_ADDR_NONE);
		}
	}
	return npass;
}
