/* SPDX-License-Identifier: MIT */
/*
 * reis_cmp.h - compare a search result from the drive with the host
 * reference (reis_ref_search()) hit by hit: id, entry index, database,
 * Hamming distance, score, padding and document bytes. Shared by the library and
 * guest REIS tests.
 */
#ifndef TESTS_REIS_CMP_H
#define TESTS_REIS_CMP_H

#include <stdio.h>
#include <string.h>

#include "libreis_tools.h"

/* Number of differing hits; prints the first few. */
static inline unsigned reis_cmp_results(const char *what, const struct reis_search_result *got,
					const struct reis_search_result *want, int docs)
{
	unsigned bad = 0;
	uint64_t i;

	if (got->nq != want->nq || got->k != want->k) {
		fprintf(stderr, "%s: shape %ux%u, want %ux%u\n", what, got->nq, got->k,
			want->nq, want->k);
		return 1;
	}
	for (i = 0; i < (uint64_t)got->nq * got->k; i++) {
		const struct reis_hit *g = &got->hits[i], *w = &want->hits[i];
		int diff = g->id != w->id;

		if (!diff && g->id != REIS_HIT_NONE)
			diff = g->did != w->did || g->hamming != w->hamming ||
			       g->score != w->score || g->entry != w->entry;
		if (!diff && docs && g->id != REIS_HIT_NONE)
			diff = g->doc_len != w->doc_len ||
			       (w->doc_len && (!g->doc || memcmp(g->doc, w->doc, w->doc_len)));
		if (diff) {
			if (bad < 5)
				fprintf(stderr, "%s: query %llu hit %llu: id %llu did %u ham %u score "
					"%lld len %u, want id %llu did %u ham %u score %lld len %u\n",
					what, (unsigned long long)(i / got->k),
					(unsigned long long)(i % got->k),
					(unsigned long long)g->id, g->did, g->hamming,
					(long long)g->score, g->doc_len, (unsigned long long)w->id,
					w->did, w->hamming, (long long)w->score, w->doc_len);
			bad++;
		}
	}
	for (i = 0; i < got->nq; i++)
		if (got->nhits[i] != want->nhits[i]) {
			if (bad < 5)
				fprintf(stderr, "%s: query %llu has %u hits, want %u\n", what,
					(unsigned long long)i, got->nhits[i], want->nhits[i]);
			bad++;
		}
	return bad;
}

#endif /* TESTS_REIS_CMP_H */
