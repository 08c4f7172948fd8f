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

/* Into TTL-E with the RADR and DADR from the entry's OOB @o. */
static inline void re_filter_push(struct re_run *r, const struct re_layout *L,
				  const uint8_t *o, uint64_t key)
{
	re_topc_push(r->top, key,
		     L->radr_off != UINT32_MAX ? re_get32(o + L->radr_off) : RE_ADDR_NONE,
		     L->dadr_off != UINT32_MAX ? re_get32(o + L->dadr_off) : RE_ADDR_NONE);
}

/*
 * The entries of one segment through the metadata filter (§7.1) and DF:
 * the tag is in each entry's OOB, so the distances come first (r->dist),
 * then one pass over the entries.
 */
static uint32_t re_filter_tag(struct re_run *r, const struct re_layout *L, uint64_t base,
			      const uint8_t *codes, const uint8_t *oob, const uint64_t *qw,
			      uint32_t lo, uint32_t hi, int df, uint32_t thr)
{
	uint32_t j, npass = 0;

	r->e->ham(qw, codes + (size_t)lo * L->cb, L->cb, L->cb / 8, hi - lo, r->dist);
	for (j = lo; j < hi; j++) {
		const uint8_t *o = oob + (size_t)j * L->oob_entry;
		uint32_t d = r->dist[j - lo];
		uint64_t key;

		if (df && d >= thr)
			continue;	/* distance filter (§4.3.3) */
		if (re_get32(o + L->tag_off) != r->qtag)
			continue;	/* metadata filter in the die (§7.1) */
		npass++;
		/* At or past the bound it leaves TTL-E at the next quickselect
		 * anyway: no OOB decode, no push. */
		key = re_key(d, base + j);
		if (key < r->top->bound)
			re_filter_push(r, L, o, key);
	}
	return npass;
}

uint32_t re_filter_page(struct re_run *r, const struct re_layout *L, uint64_t pg,
			const uint8_t *codes, const uint8_t *oob, const uint64_t *qw,
			const struct re_seg *segs, uint32_t nseg, int df, uint32_t thr,
			uint32_t *ncmp)
{
	uint32_t s, c, npass = 0;
	uint64_t base = pg * L->epb;

	for (s = 0; s < nseg; s++) {
		uint32_t lo = segs[s].lo, n = segs[s].hi - lo, lim, nc, below = 0;

		*ncmp += n;
		if (r->tag) {
			npass += re_filter_tag(r, L, base, codes, oob, qw, lo, segs[s].hi, df, thr);
			continue;
		}
		/*
		 * The kernel compares every distance with the DF threshold (the
		 * pass count) and with TTL-E's bound (what may still enter):
		 * only those few leave it. A push may lower the bound; each key
		 * is checked against the bound of its turn.
		 */
		lim = re_topc_lim(r->top);
		if (df && thr < lim)
			lim = thr;
		nc = r->scan(qw, codes + (size_t)lo * L->cb, L->cb, L->cb / 8, n, lim,
				df ? thr : UINT32_MAX, r->sidx, r->sdist, &below);
		npass += below;
		for (c = 0; c < nc; c++) {
			uint32_t j = lo + r->sidx[c];
			uint64_t key = re_key(r->sdist[c], base + j);

			if (key < r->top->bound)
				re_filter_push(r, L, oob + (size_t)j * L->oob_entry, key);
		}
	}
	return npass;
}
