/* SPDX-License-Identifier: MIT */
/*
 * bench_host_cpu - re-measures, on this machine's core, the per-core rates
 * behind the REIS host baseline (re_cpu_real(), docs/timing-model.md
 * "CPU-Real / No-I/O"): one query on one core, as FAISS's IndexBinaryIVF
 * runs a single query (its search loop is `omp parallel if (n > 1)`).
 *
 * Steps:
 *  1. the core clock: chains of dependent adds, one per cycle;
 *  2. the binary-code scan: XOR + POPCNT of 128-byte codes (the "popcnt"
 *     kernel: FAISS's HammingComputerM8 is scalar popcount over 64-bit
 *     words) into a bounded top-100 heap (the rerank's 10k candidates),
 *     once over codes far larger than the last-level cache (DRAM-streamed,
 *     as an IVF list is) and once over 256 KiB in L2 (compute only);
 *     the AVX-512 VPOPCNTQ kernel for reference (FAISS 1.7 does not use it);
 *  3. the coarse scan: 16,384 centroids (2 MiB, cache-resident after the
 *     first query) into a top-nprobe heap, nprobe 256;
 *  4. the INT8 rerank: 100 candidates of 1024 dimensions at random rows of
 *     a DRAM-sized array (a cache miss per row), then sorting the 100.
 * Each rate is the minimum over rounds, in ns and in cycles of step 1's
 * clock, beside the fixed constant re_cpu_real() uses for it (these
 * cycles, measured 2026-12-01, taken at the EPYC 9554's 3.1 GHz).
 *
 * Usage: bench_host_cpu [-r ROUNDS]   (about 10 s; needs 600 MiB)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reis_engine.h"
#include "ex_usage.h"

#define CODE 128		/* 1024-bit binary codes */
#define DIM 1024
#define CAND 100		/* 10 k = 100 rerank candidates (REIS 4.3.2) */
#define BIG_CODES (2u << 20)	/* 256 MiB of codes: 8x this machine's L3 */
#define L2_CODES 2048		/* 256 KiB */
#define NLIST 16384
#define NPROBE 256
#define ROWS (256u << 10)	/* 256 MiB of INT8 rows */
#define CHUNK 1024		/* distances per kernel call */

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Max-heap of (distance << 32 | id) holding the @cap smallest keys. */
struct heap {
	uint64_t k[NPROBE];
	uint32_t n, cap;
};

static void heap_offer(struct heap *h, uint64_t key)
{
	uint32_t i, c;

	if (h->n < h->cap) {
		for (i = h->n++; i && h->k[(i - 1) / 2] < key; i = (i - 1) / 2)
			h->k[i] = h->k[(i - 1) / 2];
		h->k[i] = key;
		return;
	}
	if (key >= h->k[0])
		return;
	for (i = 0; (c = 2 * i + 1) < h->cap; i = c) {
		if (c + 1 < h->cap && h->k[c + 1] > h->k[c])
			c++;
		if (h->k[c] <= key)
			break;
		h->k[i] = h->k[c];
	}
	h->k[i] = key;
}

/* ns per code of scanning @n codes at @codes into a heap of @cap. */
static double scan(re_hamming_fn fn, const uint64_t *q, const uint8_t *codes, uint32_t n,
		   uint32_t cap, uint64_t *sink)
{
	static uint16_t d[CHUNK];
	struct heap h = { .cap = cap };
	double t = now_ns();
	uint32_t i, j, m;

	for (i = 0; i < n; i += m) {
		m = n - i < CHUNK ? n - i : CHUNK;
		fn(q, codes + (size_t)i * CODE, CODE, CODE / 8, m, d);
		for (j = 0; j < m; j++)
			if (h.n < h.cap || ((uint64_t)d[j] << 32 | (i + j)) < h.k[0])
				heap_offer(&h, (uint64_t)d[j] << 32 | (i + j));
	}
	*sink += h.k[0];
	return (now_ns() - t) / n;
}

/*
 * GHz of this core: 8 dependent adds per iteration, one per cycle; the
 * fastest of many 2 ms bursts, so a preempted burst does not count.
 */
static double clock_ghz(void)
{
	const uint64_t iters = 1000000;
	double best = 1e30;
	int r;

	for (r = 0; r < 300; r++) {
		uint64_t x = 0, i;
		double t = now_ns();

		for (i = 0; i < iters; i++)
			__asm__ volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
					 "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0"
					 : "+r"(x));
		t = now_ns() - t;
		if (t < best)
			best = t;
	}
	return 8.0 * iters / best;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double min_d(double a, double b)
{
	return a < b ? a : b;
}

/* @model_ccyc: the fixed constant of re_cpu_real() for the same work. */
static void line(const char *what, double ns, double ghz, double model_ccyc)
{
	printf("%-44s %9.3f ns  %8.1f cycles  -> %9.3f ns at 3.1 GHz  (model %.1f cycles)\n",
	       what, ns, ns * ghz, ns * ghz / 3.1, model_ccyc / 100);
}

int main(int argc, char **argv)
{
	struct re_cpu m;
	re_hamming_fn popcnt, avx512 = NULL;
	re_int8_fn dot;
	const char *dot_name;
	uint8_t *codes;
	int8_t *rows;
	uint64_t q[CODE / 8], s = 88172645463325252ull, sink = 0;
	int8_t q8[DIM];
	double ghz, big = 1e30, l2 = 1e30, big512 = 1e30, cent = 1e30, rr = 1e30, srt = 1e30;
	int rounds = 5, r;
	size_t i;

	static const char usage[] = "usage: bench_host_cpu [-r ROUNDS (1..100)]\n";

	ex_help(argc, argv, usage);
	if (argc == 3 && !strcmp(argv[1], "-r"))
		rounds = (int)ex_u64("bench_host_cpu", "-r ROUNDS", argv[2], 1, 100, usage);
	else if (argc != 1)
		ex_usage_err("bench_host_cpu", "unknown option or argument", argv[1], usage);
	if (rounds < 1 || rounds > 100 || re_hamming_get("popcnt", &popcnt, NULL) ||
	    re_int8_get("avx2", &dot, &dot_name)) {
		fprintf(stderr, "bench_host_cpu: needs POPCNT and AVX2 (rounds 1-100)\n");
		return 77;
	}
	re_hamming_get("avx512", &avx512, NULL);
	codes = malloc((size_t)BIG_CODES * CODE);
	rows = malloc((size_t)ROWS * DIM);
	if (!codes || !rows) {
		fprintf(stderr, "bench_host_cpu: out of memory\n");
		return 1;
	}
	for (i = 0; i < (size_t)BIG_CODES * CODE / 8; i++)
		((uint64_t *)codes)[i] = rng(&s);
	for (i = 0; i < (size_t)ROWS * DIM / 8; i++)
		((uint64_t *)rows)[i] = rng(&s);
	for (i = 0; i < CODE / 8; i++)
		q[i] = rng(&s);
	for (i = 0; i < DIM; i++)
		q8[i] = (int8_t)rng(&s);

	ghz = clock_ghz();
	for (r = 0; r < rounds; r++) {
		uint64_t keys[CAND];
		double t;
		int j;

		big = min_d(big, scan(popcnt, q, codes, BIG_CODES, CAND, &sink));
		if (avx512)
			big512 = min_d(big512, scan(avx512, q, codes, BIG_CODES, CAND, &sink));
		for (j = 0; j < 200; j++)	/* warm, then the minimum */
			l2 = min_d(l2, scan(popcnt, q, codes, L2_CODES, CAND, &sink));
		for (j = 0; j < 20; j++)
			cent = min_d(cent, scan(popcnt, q, codes, NLIST, NPROBE, &sink));
		for (j = 0; j < 20; j++) {
			int64_t acc = 0;
			int c;

			t = now_ns();
			for (c = 0; c < CAND; c++)
				acc += dot(ISP_REIS_IP, q8, rows + (rng(&s) % ROWS) * DIM, DIM);
			rr = min_d(rr, (now_ns() - t) / CAND);
			sink += (uint64_t)acc;
			for (c = 0; c < CAND; c++)
				keys[c] = rng(&s);
			t = now_ns();
			qsort(keys, CAND, sizeof(keys[0]), cmp_u64);
			srt = min_d(srt, now_ns() - t);
			sink += keys[0];
		}
	}
	re_cpu_real(&m);
	printf("core clock (dependent adds)                  %9.3f GHz\n", ghz);
	line("code scan, DRAM-streamed (popcnt), per code", big, ghz, m.ccyc_code);
	line("code scan, L2-resident (popcnt), per code", l2, ghz, m.ccyc_code);
	if (avx512)
		line("code scan, DRAM (AVX-512 VPOPCNTQ), per code", big512, ghz, m.ccyc_code);
	line("coarse scan, 16384 centroids, per centroid", cent, ghz, m.ccyc_centroid);
	line("INT8 rerank (avx2), per candidate of 1024", rr, ghz, (double)m.ccyc_dim * DIM);
	line("sort of 100 candidates, per query", srt, ghz, (double)m.ccyc_sort * CAND);
	printf("DRAM-streamed code rate: %.1f GB/s on one core (sink %llu)\n", CODE / big,
	       (unsigned long long)(sink & 1));
	free(codes);
	free(rows);
	return 0;
}
