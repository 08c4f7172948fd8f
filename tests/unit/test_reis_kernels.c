/* SPDX-License-Identifier: MIT */
/*
 * test_reis_kernels.c - the host kernels of the scan and the rerank give
 * identical numbers in every variant: Hamming (AVX-512 VPOPCNTDQ, AVX2,
 * POPCNT, portable) against a bit-by-bit reference, the fused scan (the
 * codes below a limit, in order, and the count below a threshold) against
 * the same, INT8 inner product and
 * squared L2 (AVX-512BW, AVX2, portable) against a 64-bit reference; codes
 * that end at an unreadable page are read without touching it; the run-time
 * choice is the widest variant this CPU runs. A variant this CPU lacks is
 * reported as skipped and the others are still compared.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "isp_wire_reis.h"
#include "reis_engine.h"

static uint32_t rnd(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8 ^ *s << 7;
}

static const char *const ham_names[] = { "portable", "popcnt", "avx2", "avx512" };
static const char *const int8_names[] = { "portable", "avx2", "avx512" };

static uint16_t ham_ref(const uint64_t *q, const uint8_t *x, uint32_t words)
{
	uint32_t d = 0, b;

	for (b = 0; b < words * 64; b++)
		d += (uint32_t)(((x[b / 8] >> (b % 8)) & 1) != ((q[b / 64] >> (b % 64)) & 1));
	return (uint16_t)d;
}

/* Every variant on @n codes @stride bytes apart at @codes. */
static void ham_compare(const uint64_t *q, const uint8_t *codes, uint32_t stride,
			uint32_t words, uint32_t n)
{
	uint16_t ref[300], out[300];
	uint32_t i, v;

	for (i = 0; i < n; i++)
		ref[i] = ham_ref(q, codes + (size_t)i * stride, words);
	for (v = 0; v < sizeof(ham_names) / sizeof(ham_names[0]); v++) {
		re_hamming_fn fn;

		if (re_hamming_get(ham_names[v], &fn, NULL))
			continue;
		memset(out, 0xee, sizeof(out));
		fn(q, codes, stride, words, n, out);
		if (memcmp(out, ref, n * sizeof(*out))) {
			fprintf(stderr, "%s: words %u stride %u n %u differs\n", ham_names[v],
				words, stride, n);
			t_failures++;
		}
		CHECK(out[n] == 0xeeee);	/* nothing past n written */
	}
}

/*
 * Every fused scan variant on the same codes: for limits around the
 * distances' median and the extremes, the codes below the limit in order
 * with their distances, and the count below the threshold; nothing
 * written past what it returns (plus the slot it may overwrite).
 */
static void scan_compare(const uint64_t *q, const uint8_t *codes, uint32_t stride,
			 uint32_t words, uint32_t n)
{
	uint16_t ref[300], idx[301], dist[301], widx[300], wdist[300];
	uint32_t i, v, t, lims[5], med;

	for (i = 0; i < n; i++)
		ref[i] = ham_ref(q, codes + (size_t)i * stride, words);
	med = words * 32;
	lims[0] = 0;
	lims[1] = med - words * 2;
	lims[2] = med + 1;
	lims[3] = med + words * 4;
	lims[4] = UINT32_MAX;
	for (v = 0; v < 2 * sizeof(ham_names) / sizeof(ham_names[0]); v++) {
		re_scan_fn fn, fc;

		/* Each variant, then its form for codes in the cache. */
		if (re_scan_get2(ham_names[v / 2], &fn, &fc, NULL))
			continue;
		if (v % 2)
			fn = fc;
		for (t = 0; t < 5; t++) {
			uint32_t lim = lims[t], thr = lims[4 - t], nw = 0, nb = 0, below = 7, nc;

			for (i = 0; i < n; i++) {
				nb += ref[i] < thr;
				if (ref[i] < lim) {
					widx[nw] = (uint16_t)i;
					wdist[nw++] = ref[i];
				}
			}
			memset(idx, 0xee, sizeof(idx));
			memset(dist, 0xee, sizeof(dist));
			nc = fn(q, codes, stride, words, n, lim, thr, idx, dist, &below);
			if (nc != nw || below != 7 + nb || memcmp(idx, widx, nw * 2) ||
			    memcmp(dist, wdist, nw * 2) || (n < 300 && idx[n] != 0xeeee)) {
				fprintf(stderr, "scan %s%s: words %u stride %u n %u lim %u thr %u: "
					"%u codes (want %u), below %u (want %u)\n", ham_names[v / 2],
					v % 2 ? " (cached)" : "",
					words, stride, n, lim, thr, nc, nw, below - 7, nb);
				t_failures++;
			}
		}
	}
}

static void test_hamming(void)
{
	uint32_t s = 11, words, n, i, v;
	uint8_t *codes = malloc(300 * 1048);
	uint64_t q[130];

	REQUIRE(codes);
	for (i = 0; i < 300 * 1048; i++)
		codes[i] = (uint8_t)rnd(&s);
	for (i = 0; i < 130; i++)
		q[i] = (uint64_t)rnd(&s) << 32 | rnd(&s);
	/* Every word count to 130 (8-word steps plus masked tails), counts
	 * around the 8-code step, the engine's stride and a wider one. */
	for (words = 1; words <= 130; words++) {
		for (n = 0; n <= 17; n += n < 10 ? 1 : 7) {
			ham_compare(q, codes, words * 8, words, n);
			scan_compare(q, codes, words * 8, words, n);
		}
		ham_compare(q, codes, words * 8 + 8, words, 299);
		scan_compare(q, codes, words * 8 + 8, words, 299);
	}
	/* All ones against all zeros: the largest distances (8192 bits). */
	memset(codes, 0xff, 4 * 1024);
	memset(q, 0, sizeof(q));
	ham_compare(q, codes, 1024, 128, 4);
	scan_compare(q, codes, 1024, 128, 4);
	for (v = 0; v < sizeof(ham_names) / sizeof(ham_names[0]); v++) {
		re_hamming_fn fn;
		re_scan_fn sf;
		int ret = re_hamming_get(ham_names[v], &fn, NULL);

		if (ret == -ENOTSUP)
			printf("skip: Hamming %s: not on this CPU\n", ham_names[v]);
		else
			CHECK_EQ_U64(ret, 0);
		ret = re_scan_get(ham_names[v], &sf, NULL);
		if (ret == -ENOTSUP)
			printf("skip: scan %s: not on this CPU\n", ham_names[v]);
		else
			CHECK_EQ_U64(ret, 0);
	}
	free(codes);
}

/* The last code ends where a PROT_NONE page begins. */
static void test_guard_page(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *m = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint32_t words, s = 5, i;
	uint64_t q[16];
	int8_t q8[100];

	REQUIRE(m != MAP_FAILED);
	REQUIRE(mprotect(m + pg, (size_t)pg, PROT_NONE) == 0);
	for (i = 0; i < (uint32_t)pg; i++)
		m[i] = (uint8_t)rnd(&s);
	for (i = 0; i < 16; i++)
		q[i] = (uint64_t)rnd(&s) << 32 | rnd(&s);
	for (words = 1; words <= 16; words++) {
		ham_compare(q, m + pg - 9 * words * 8, words * 8, words, 9);
		scan_compare(q, m + pg - 9 * words * 8, words * 8, words, 9);
	}
	for (i = 0; i < 100; i++)
		q8[i] = (int8_t)rnd(&s);
	for (i = 0; i < sizeof(int8_names) / sizeof(int8_names[0]); i++) {
		re_int8_fn fn;
		uint32_t dim;

		if (re_int8_get(int8_names[i], &fn, NULL))
			continue;
		for (dim = 1; dim <= 100; dim += 33) {
			int8_t *x = (int8_t *)(m + pg - dim);
			re_int8_fn pf;

			REQUIRE(re_int8_get("portable", &pf, NULL) == 0);
			CHECK(fn(ISP_REIS_IP, q8, x, dim) == pf(ISP_REIS_IP, q8, x, dim));
			CHECK(fn(ISP_REIS_L2, q8, x, dim) == pf(ISP_REIS_L2, q8, x, dim));
		}
	}
	munmap(m, (size_t)pg * 2);
}

static void int8_ref(const int8_t *q, const int8_t *x, uint32_t dim, int64_t *ip, int64_t *l2)
{
	uint32_t d;

	*ip = *l2 = 0;
	for (d = 0; d < dim; d++) {
		*ip += (int64_t)q[d] * x[d];
		*l2 += ((int64_t)q[d] - x[d]) * ((int64_t)q[d] - x[d]);
	}
}

static void test_int8(void)
{
	static int8_t q[ISP_REIS_MAX_DIM], x[ISP_REIS_MAX_DIM], lo[ISP_REIS_MAX_DIM],
		hi[ISP_REIS_MAX_DIM];
	static const uint32_t dims[] = { 1, 7, 15, 16, 17, 31, 32, 33, 63, 100, 512, 768, 1024,
					 4095, 4096, 4097, 4127, 8191, ISP_REIS_MAX_DIM };
	uint32_t s = 3, i, v, k;

	for (i = 0; i < ISP_REIS_MAX_DIM; i++) {
		q[i] = (int8_t)rnd(&s);
		x[i] = (int8_t)rnd(&s);
		lo[i] = -128;
		hi[i] = 127;
	}
	for (v = 0; v < sizeof(int8_names) / sizeof(int8_names[0]); v++) {
		re_int8_fn fn;
		int ret = re_int8_get(int8_names[v], &fn, NULL);

		if (ret == -ENOTSUP) {
			printf("skip: INT8 %s: not on this CPU\n", int8_names[v]);
			continue;
		}
		CHECK_EQ_U64(ret, 0);
		for (k = 0; k < sizeof(dims) / sizeof(dims[0]); k++) {
			int64_t ip, l2;

			int8_ref(q, x, dims[k], &ip, &l2);
			CHECK(fn(ISP_REIS_IP, q, x, dims[k]) == ip);
			CHECK(fn(ISP_REIS_L2, q, x, dims[k]) == l2);
			/* Extremes: the largest sums the 32-bit blocks hold. */
			int8_ref(lo, lo, dims[k], &ip, &l2);
			CHECK(fn(ISP_REIS_IP, lo, lo, dims[k]) == ip);
			int8_ref(lo, hi, dims[k], &ip, &l2);
			CHECK(fn(ISP_REIS_IP, lo, hi, dims[k]) == ip);
			CHECK(fn(ISP_REIS_L2, lo, hi, dims[k]) == l2);
		}
	}
}

/* NULL picks the widest variant the CPU runs; names are checked. */
static void test_choice(void)
{
	const char *h, *i8;
	re_hamming_fn hf;
	re_int8_fn f8;
	int want512 = 0, want2 = 0, wantbw = 0;

#if defined(__x86_64__)
	__builtin_cpu_init();
	want512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq");
	want2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
	wantbw = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
#endif
	CHECK_EQ_U64(re_hamming_get(NULL, &hf, &h), 0);
	{
		const char *sc;
		re_scan_fn sf;

		CHECK_EQ_U64(re_scan_get(NULL, &sf, &sc), 0);
		CHECK(!want512 || strcmp(sc, "avx512") == 0);
		CHECK(re_scan_get("avx1024", &sf, NULL) == -ENOENT);
	}
	CHECK_EQ_U64(re_int8_get(NULL, &f8, &i8), 0);
	printf("chosen: Hamming %s, INT8 %s\n", h, i8);
	CHECK(strcmp(h, want512 ? "avx512" : want2 ? "avx2" : h) == 0);
	CHECK(!wantbw || strcmp(i8, "avx512") == 0);
	CHECK(re_hamming_get("avx1024", &hf, NULL) == -ENOENT);
	CHECK(re_int8_get("sse9", &f8, NULL) == -ENOENT);
	CHECK(re_hamming_get("avx512", NULL, NULL) == -EINVAL);
	CHECK(re_int8_get(NULL, NULL, NULL) == -EINVAL);
}

int main(void)
{
	test_hamming();
	test_guard_page();
	test_int8();
	test_choice();
	return t_result();
}
