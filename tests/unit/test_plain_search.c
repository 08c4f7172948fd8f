/* SPDX-License-Identifier: MIT */
/*
 * test_plain_search.c - the plain baseline of bench_search
 * (examples/common/plain_search.h) returns exactly the reference answer in
 * every kernel this CPU runs: brute force one query at a time and in
 * blocks, IVF over given clusters, the candidates (the best 100 by
 * (Hamming, entry)) and the reranked top 10 (score, then Hamming, then
 * entry), on codes drawn from a few patterns so distances tie often, at
 * 512, 1024 and 576 bits (a tail of a chunk), with database sizes that are
 * not a multiple of eight or of a 16 KiB block; and every dot product
 * against a 64-bit reference.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define PS_K 10
#define PS_CAND 100
#include "plain_search.h"

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

static uint32_t ham(const uint8_t *a, const uint8_t *b, uint32_t bytes)
{
	uint32_t d = 0, i;

	for (i = 0; i < bytes; i++)
		d += (uint32_t)__builtin_popcount((unsigned)(a[i] ^ b[i]));
	return d;
}

static int64_t dot_ref(const int8_t *q, const int8_t *x, uint32_t dim)
{
	int64_t s = 0;
	uint32_t i;

	for (i = 0; i < dim; i++)
		s += (int64_t)q[i] * x[i];
	return s;
}

/* The reference: best @keep keys of entries @ent[0..n), then the rerank. */
static uint32_t ref_cand(const uint8_t *bin, uint32_t bytes, const uint8_t *q,
			 const uint64_t *ent, uint64_t n, uint32_t keep, uint64_t *key)
{
	uint64_t *all = malloc(n * sizeof(*all)), i;
	uint32_t m = n < keep ? (uint32_t)n : keep;

	REQUIRE(all);
	for (i = 0; i < n; i++)
		all[i] = (uint64_t)ham(bin + ent[i] * bytes, q, bytes) << 32 | ent[i];
	qsort(all, n, sizeof(*all), u64_cmp);
	memcpy(key, all, m * sizeof(*key));
	free(all);
	return m;
}

static void ref_top(const uint64_t *key, uint32_t n, const int8_t *int8, uint32_t dim,
		    const int8_t *q8, uint32_t *out)
{
	uint32_t i, j, used[PS_CAND] = { 0 };

	for (i = 0; i < PS_K; i++) {
		int best = -1;
		int64_t bs = 0;

		for (j = 0; j < n; j++) {
			int64_t s = dot_ref(q8, int8 + (key[j] & 0xffffffffu) * dim, dim);

			if (used[j])
				continue;
			if (best < 0 || s > bs || (s == bs && key[j] < key[best])) {
				best = (int)j;
				bs = s;
			}
		}
		out[i] = best < 0 ? UINT32_MAX : (uint32_t)key[best];
		if (best >= 0)
			used[best] = 1;
	}
}

/* Sorted copy of a query's candidates, for comparing sets. */
static void sorted(const struct ps_q *s, uint64_t *out)
{
	memcpy(out, s->key, s->n * sizeof(*out));
	qsort(out, s->n, sizeof(*out), u64_cmp);
}

static void one_shape(uint32_t bits, uint64_t n, uint32_t seed)
{
	uint32_t bytes = bits / 8, dim = bits, nq = 70, i, j, c;
	uint8_t *bin = malloc(n * bytes), *pat = malloc(8 * (size_t)bytes), *qb;
	int8_t *int8 = malloc(n * dim), *q8 = malloc((size_t)nq * dim);
	uint64_t *ent = malloc(n * sizeof(*ent)), ref[PS_CAND], got[PS_CAND], e;
	uint32_t rtop[PS_K], top[70 * PS_K];
	struct ps_kernel k[4];
	unsigned nk, v;
	const char *dname;
	ps_dot_fn dot = ps_dot_pick(dim, &dname);
	struct ps p;
	struct ps_db db;

	qb = malloc((size_t)nq * bytes);
	REQUIRE(bin && pat && int8 && q8 && ent && qb);
	for (i = 0; i < 8 * bytes; i++)
		pat[i] = (uint8_t)rnd(&seed);
	/* Entries from 8 patterns with a few flipped bits: many equal distances;
	 * INT8 rows from 4 values: equal scores too. */
	for (e = 0; e < n; e++) {
		memcpy(bin + e * bytes, pat + (rnd(&seed) % 8) * bytes, bytes);
		bin[e * bytes + rnd(&seed) % bytes] ^= (uint8_t)(1u << (rnd(&seed) % 8));
		for (c = 0; c < dim; c++)
			int8[e * dim + c] = (int8_t)((int)(rnd(&seed) % 4) * 40 - 60);
		ent[e] = e;
	}
	for (i = 0; i < nq; i++) {
		memcpy(qb + (size_t)i * bytes, pat + (i % 8) * bytes, bytes);
		for (c = 0; c < dim; c++)
			q8[(size_t)i * dim + c] = (int8_t)(rnd(&seed) % 256 - 128);
	}
	/* Dot products against the reference. */
	{
		uint8_t qu[PS_MAX_BITS];

		for (c = 0; c < dim; c++)
			qu[c] = (uint8_t)(q8[c] + 128);
		ps_dot_fn all[4] = { ps_dot_portable, NULL, NULL, NULL };
		unsigned nd = 1, d;

#ifdef PS_X86
		if (__builtin_cpu_supports("avx2"))
			all[nd++] = ps_dot_avx2;
		if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"))
			all[nd++] = ps_dot_avx512;
		if (dim % 64 == 0 && __builtin_cpu_supports("avx512f") &&
		    __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni"))
			all[nd++] = ps_dot_vnni;
#endif
		for (d = 0; d < nd; d++)
			for (e = 0; e < 50; e++)
				CHECK(all[d](q8, qu, int8 + e * dim, dim) ==
				      dot_ref(q8, int8 + e * dim, dim));
		/* The extremes: -128 x -128 over the whole row. */
		memset(qu, 0, dim);
		for (d = 0; d < nd; d++) {
			int8_t lo[PS_MAX_BITS];

			memset(lo, 0x80, dim);
			CHECK(all[d](lo, qu, lo, dim) == (int64_t)dim * 16384);
		}
	}
	memset(&db, 0, sizeof(db));
	db.bin = bin;
	db.int8 = int8;
	db.n = n;
	db.dim = dim;
	db.bytes = bytes;
	nk = ps_kernels(k, bytes);
	for (v = 0; v < nk; v++) {
		REQUIRE(!ps_init(&p, k[v].scan, dot, 64));
		/* One query at a time: candidates and top 10. */
		for (i = 0; i < nq; i += 7) {
			uint32_t m = ref_cand(bin, bytes, qb + (size_t)i * bytes, ent, n, PS_CAND, ref);

			ps_bf_one(&p, &db, qb + (size_t)i * bytes, q8 + (size_t)i * dim, top);
			CHECK_EQ_U64(p.q[0].n, m);
			sorted(&p.q[0], got);
			if (memcmp(got, ref, m * sizeof(*ref))) {
				fprintf(stderr, "%s bits %u n %llu query %u: candidates differ\n",
					k[v].name, bits, (unsigned long long)n, i);
				t_failures++;
			}
			ref_top(ref, m, int8, dim, q8 + (size_t)i * dim, rtop);
			CHECK(!memcmp(top, rtop, sizeof(rtop)));
		}
		/* Blocks of 64 and a last block of 6. */
		ps_bf_block(&p, &db, qb, q8, 64, top);
		ps_bf_block(&p, &db, qb + 64 * (size_t)bytes, q8 + 64 * (size_t)dim, 6,
			    top + 64 * PS_K);
		for (i = 0; i < nq; i += 5) {
			uint32_t m = ref_cand(bin, bytes, qb + (size_t)i * bytes, ent, n, PS_CAND, ref);

			ref_top(ref, m, int8, dim, q8 + (size_t)i * dim, rtop);
			if (memcmp(top + (size_t)i * PS_K, rtop, sizeof(rtop))) {
				fprintf(stderr, "%s bits %u n %llu block query %u: top differs\n",
					k[v].name, bits, (unsigned long long)n, i);
				t_failures++;
			}
		}
		ps_free(&p);
	}
	/* IVF: 13 clusters of uneven sizes, 4 probed; centroids = patterns. */
	{
		uint32_t nl = 13, csize[13], np = 4, cl[13];
		uint64_t cfirst[13], left = n, ne;
		uint8_t *cent = malloc((size_t)nl * bytes);

		REQUIRE(cent);
		for (c = 0; c < nl; c++) {
			csize[c] = c + 1 < nl ? (uint32_t)(n / nl - (c % 3) * 3) : (uint32_t)left;
			cfirst[c] = n - left;
			left -= csize[c];
			memcpy(cent + (size_t)c * bytes, pat + (c % 8) * bytes, bytes);
			cent[(size_t)c * bytes + c] ^= 0x5a;
		}
		db.centroids = cent;
		db.csize = csize;
		db.cfirst = cfirst;
		db.nlist = nl;
		for (v = 0; v < nk; v++) {
			REQUIRE(!ps_init(&p, k[v].scan, dot, 1));
			for (i = 0; i < nq; i += 3) {
				uint64_t ckey[13], cidx[13];
				uint32_t m;

				for (c = 0; c < nl; c++)
					cidx[c] = c;
				ref_cand(cent, bytes, qb + (size_t)i * bytes, cidx, nl, np, ckey);
				for (c = 0; c < np; c++)
					cl[c] = (uint32_t)ckey[c];
				for (c = 0, ne = 0; c < np; c++)
					for (j = 0; j < csize[cl[c]]; j++)
						ent[ne++] = cfirst[cl[c]] + j;
				m = ref_cand(bin, bytes, qb + (size_t)i * bytes, ent, ne, PS_CAND, ref);
				ref_top(ref, m, int8, dim, q8 + (size_t)i * dim, rtop);
				ps_ivf_one(&p, &db, np, qb + (size_t)i * bytes, q8 + (size_t)i * dim, top);
				if (memcmp(top, rtop, sizeof(rtop))) {
					fprintf(stderr, "%s bits %u IVF query %u: top differs\n",
						k[v].name, bits, i);
					t_failures++;
				}
				sorted(&p.q[0], got);
				CHECK(p.q[0].n == m && !memcmp(got, ref, m * sizeof(*ref)));
			}
			ps_free(&p);
		}
		free(cent);
	}
	printf("bits %u n %llu: %u kernels, dot %s\n", bits, (unsigned long long)n, nk, dname);
	free(bin);
	free(pat);
	free(int8);
	free(q8);
	free(ent);
	free(qb);
}

int main(void)
{
	one_shape(512, 3001, 1);	/* 11 blocks + 185 codes, 375 steps + 1 */
	one_shape(1024, 1203, 2);
	one_shape(576, 777, 3);		/* 9 chunks: not 64-byte, portable/POPCNT */
	one_shape(512, 90, 4);		/* fewer than 100 entries: all kept */
	return t_result();
}
