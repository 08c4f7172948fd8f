/* SPDX-License-Identifier: MIT */
/*
 * test_reis_select.c - the host's sorts and cuts of the candidate stage
 * (reis_select.c) give exactly the sets and orders they promise on every
 * shape of input: TTL-E (re_topc_*: appends below the bound, which follows
 * the count per distance at once, ties at the last distance cut by
 * quickselect when they fill the buffer) keeps the keep smallest keys of
 * any stream, in random, ascending, descending, sawtooth and organ-pipe
 * order, with distances in a search's narrow range, over the whole range
 * and only three of them (ties, entries out of order), at keeps around the
 * insertion cutoff; re_pcount_sort orders page counts
 * with duplicate keys and on the shapes that send a quicksort to its depth
 * limit, and re_pcount_merge sums the duplicates; re_sort_u64_radix sorts
 * every shape as qsort does, full 64-bit keys included.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "reis_int.h"

static uint32_t rnd(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8 ^ *s << 7;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

enum { SH_RANDOM, SH_UP, SH_DOWN, SH_SAW, SH_PIPE, SH_NEAR, SH_WIDE, SH_FEW, SH_N };

/* Key @i of @n in shape @sh (unique unless SH_FEW). */
static uint64_t key_of(int sh, uint32_t i, uint32_t n, uint32_t *s)
{
	switch (sh) {
	case SH_UP: return i;
	case SH_DOWN: return n - i;
	case SH_SAW: return (uint64_t)(i % 37) << 32 | i;
	case SH_PIPE: return i < n / 2 ? i : n - i + n;	/* up, then down */
	/* Distances a search sees (counted by the cut), and a spread
	 * that sometimes exceeds what it counts. */
	case SH_NEAR: return (uint64_t)(rnd(s) % 300) << 32 | i;
	case SH_WIDE: return (uint64_t)(rnd(s) % 600) << 32 | i;
	case SH_FEW: return rnd(s) % 5;
	default: return (uint64_t)rnd(s) << 32 | i;	/* like (Hamming, entry) */
	}
}

#define MAXD 8192u	/* ISP_REIS_MAX_DIM: the largest Hamming distance */

/*
 * TTL-E keeps the @keep smallest of @n keys pushed in shape @sh, with
 * distances of at most MAXD (a Hamming distance); SH_FEW: three distances
 * only, entries in a scrambled order (ties cut by entry, the engine's scan
 * order across blocks).
 */
static void topc_case(int sh, uint32_t n, uint32_t keep, uint32_t seed)
{
	struct re_topc t;
	uint64_t *all = malloc((size_t)n * sizeof(*all));
	uint32_t s = seed, i, m, ok = 1;

	REQUIRE(all && re_topc_init(&t, keep, MAXD) == 0);
	for (i = 0; i < n; i++) {
		if (sh == SH_FEW)
			all[i] = (uint64_t)(10 + rnd(&s) % 3) << 32 | (uint32_t)((uint64_t)i * 2654435761u % n);
		else
			all[i] = key_of(sh, i, n, &s);
		if (sh == SH_RANDOM)
			all[i] = (all[i] >> 32) % (MAXD + 1) << 32 | (uint32_t)all[i];
		/* As re_filter_page(): nothing at or past the bound, and the
		 * scan's limit is consistent with it. */
		if (all[i] < t.bound) {
			CHECK((uint32_t)(all[i] >> 32) < re_topc_lim(&t));
			re_topc_push(&t, all[i], i, ~i);
		}
	}
	m = re_topc_finish(&t, keep);
	qsort(all, n, sizeof(*all), u64_cmp);
	CHECK_EQ_U64(m, n < keep ? n : keep);
	for (i = 0; i < m; i++)	/* finish(keep) sorts what it keeps */
		ok &= t.v[i].key == all[i];
	if (!ok)
		fprintf(stderr, "  topc shape %d n %u keep %u differs\n", sh, n, keep);
	CHECK(ok);
	re_topc_free(&t);
	free(all);
}

/* Sorted page counts, then merged, against qsort and a sum per key. */
static void pcount_case(int sh, uint32_t n, uint32_t seed)
{
	struct re_pcount *pc = malloc(((size_t)n + 1) * sizeof(*pc));
	uint64_t *ref = malloc(((size_t)n + 1) * sizeof(*ref));
	uint32_t s = seed, i, ok = 1;
	size_t m, j, sum = 0;

	REQUIRE(pc && ref);
	for (i = 0; i < n; i++) {
		ref[i] = key_of(sh, i, n, &s) % (sh == SH_RANDOM ? 3u * n / 4 + 1 : UINT64_MAX);
		pc[i].key = ref[i];
		pc[i].plane = (uint32_t)(ref[i] * 7);	/* a function of the key */
		pc[i].count = 1 + (uint32_t)(ref[i] % 3);
		sum += pc[i].count;
	}
	re_pcount_sort(pc, n);
	qsort(ref, n, sizeof(*ref), u64_cmp);
	for (i = 0; i < n; i++)
		ok &= pc[i].key == ref[i] && pc[i].plane == (uint32_t)(ref[i] * 7);
	m = re_pcount_merge(pc, n);
	for (j = 0; j < m; j++) {
		ok &= !j || pc[j - 1].key < pc[j].key;
		sum -= pc[j].count;
	}
	ok &= sum == 0;
	if (!ok)
		fprintf(stderr, "  pcount shape %d n %u differs\n", sh, n);
	CHECK(ok);
	free(pc);
	free(ref);
}

/* The radix sort against qsort; SH_WIDE keys spread over all 64 bits. */
static void radix_case(int sh, uint32_t n, uint32_t seed)
{
	uint64_t *v = malloc(((size_t)n + 1) * sizeof(*v)), *tmp = malloc(((size_t)n + 1) * 8);
	uint64_t *ref = malloc(((size_t)n + 1) * sizeof(*ref));
	uint32_t s = seed, i, ok = 1;

	REQUIRE(v && tmp && ref);
	for (i = 0; i < n; i++) {
		ref[i] = key_of(sh, i, n, &s);
		if (sh == SH_WIDE)
			ref[i] = ref[i] * 0x9e3779b97f4a7c15ull ^ (uint64_t)rnd(&s) << 40;
		v[i] = ref[i];
	}
	re_sort_u64_radix(v, tmp, n);
	qsort(ref, n, sizeof(*ref), u64_cmp);
	for (i = 0; i < n; i++)
		ok &= v[i] == ref[i];
	if (!ok)
		fprintf(stderr, "  radix shape %d n %u differs\n", sh, n);
	CHECK(ok);
	free(v);
	free(tmp);
	free(ref);
}

int main(void)
{
	static const uint32_t keeps[] = { 1, 2, 15, 16, 17, 33, 100, 257 };
	static const uint32_t ns[] = { 0, 1, 2, 16, 17, 100, 1000, 5000 };
	uint32_t a, b;
	int sh;

	for (sh = 0; sh < SH_N; sh++) {
		for (a = 0; a < sizeof(keeps) / sizeof(keeps[0]); a++)
			for (b = 1; b < sizeof(ns) / sizeof(ns[0]); b++)
				topc_case(sh, ns[b], keeps[a], 7 + a + 13 * b);
		for (b = 0; b < sizeof(ns) / sizeof(ns[0]); b++) {
			pcount_case(sh, ns[b], 3 + b);
			radix_case(sh, ns[b], 5 + b);
		}
	}
	radix_case(SH_RANDOM, 100000, 6);
	topc_case(SH_RANDOM, 200000, 1000, 99);
	topc_case(SH_NEAR, 200000, 1000, 98);
	topc_case(SH_FEW, 200000, 1000, 97);
	pcount_case(SH_RANDOM, 100000, 5);
	return t_result();
}
