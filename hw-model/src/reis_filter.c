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
			const struct re_seg *segs, uint32_t nseg, int df, uint32_t thr,
			uint32_t *ncmp)
{
	const uint8_t *oob = r->page + r->e->p->page_bytes;
	uint32_t lo = segs[0].lo, s, j, npass = 0;

	for (s = 0; s < nseg; s++) {
		for (j = segs[s].lo; j < segs[s].hi; j++) {
			const uint8_t *o = oob + (size_t)j * L->oob_entry;
			uint32_t d = r->dist[j - lo];

			(*ncmp)++;
			if (r->tag && re_get32(o + L->tag_off) != r->qtag)
				continue;	/* metadata filter in the die (§7.1) */
			if (df && d >= thr)
				continue;	/* distance filter (§4.3.3) */
			npass++;
			re_topc_add(&r->top, re_key(d, pg * L->epb + j),
				    L->radr_off != UINT32_MAX ? re_get32(o + L->radr_off) :
				    RE_ADDR_NONE,
				    L->dadr_off != UINT32_MAX ? re_get32(o + L->dadr_off) :
				    RE_ADDR_NONE);
		}
	}
	return npass;
}
