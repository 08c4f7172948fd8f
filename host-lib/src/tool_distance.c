/* SPDX-License-Identifier: MIT */
/*
 * tool_distance.c - the numeric kernels of the host-side REIS algorithms:
 * Hamming distance (POPCNT chosen at run time), dot products and squared
 * distances with a fixed summation order, so k-means, the reference search
 * and calibration agree bit for bit with each other.
 */
#include <stdint.h>
#include <string.h>

#include "libreis_tools.h"
#include "drive_reis_priv.h"

/* ---------------------------------------------------------------------- */
/* Kernels                                                                 */
/* ---------------------------------------------------------------------- */

static uint32_t reis_ham_generic(const uint64_t *a, const uint64_t *b, uint32_t words)
{
	uint32_t i, d = 0;

	for (i = 0; i < words; i++)
		d += (uint32_t)__builtin_popcountll(a[i] ^ b[i]);
	return d;
}

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("popcnt")))
static uint32_t reis_ham_popcnt(const uint64_t *a, const uint64_t *b, uint32_t words)
{
	uint32_t i, d = 0;

	for (i = 0; i < words; i++)
		d += (uint32_t)__builtin_popcountll(a[i] ^ b[i]);
	return d;
}
#endif

typedef uint32_t (*reis_ham_fn)(const uint64_t *, const uint64_t *, uint32_t);

static reis_ham_fn reis_ham_pick(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("popcnt"))
		return reis_ham_popcnt;
#endif
	return reis_ham_generic;
}

uint32_t reis__hamming64(const uint64_t *a, const uint64_t *b, uint32_t words)
{
	/* Benign race: every thread computes the same pointer. */
	static reis_ham_fn fn;
	reis_ham_fn f = __atomic_load_n(&fn, __ATOMIC_RELAXED);

	if (!f) {
		f = reis_ham_pick();
		__atomic_store_n(&fn, f, __ATOMIC_RELAXED);
	}
	return f(a, b, words);
}

uint32_t reis_hamming(const uint8_t *a, const uint8_t *b, uint32_t bytes)
{
	uint64_t x[8], y[8];
	uint32_t d = 0, off = 0;

	/* Callers' codes need not be 8-byte aligned: copy in blocks. */
	while (off + 8 <= bytes) {
		uint32_t w = (bytes - off) / 8;

		if (w > 8)
			w = 8;
		memcpy(x, a + off, w * 8);
		memcpy(y, b + off, w * 8);
		d += reis__hamming64(x, y, w);
		off += w * 8;
	}
	for (; off < bytes; off++)
		d += (uint32_t)__builtin_popcount((unsigned)(a[off] ^ b[off]));
	return d;
}

/*
 * Eight partial sums (two 4-lane vectors), combined in a fixed order: the
 * result is deterministic and the loop runs in SIMD registers.
 */
typedef float reis_v4 __attribute__((vector_size(16)));

static inline reis_v4 reis_ld4(const float *p)
{
	reis_v4 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline float reis_fold8(reis_v4 lo, reis_v4 hi, float tail)
{
	return ((lo[0] + tail + lo[1]) + (lo[2] + lo[3])) + ((hi[0] + hi[1]) + (hi[2] + hi[3]));
}

float reis__dot(const float *a, const float *b, uint32_t dim)
{
	reis_v4 lo = { 0, 0, 0, 0 }, hi = { 0, 0, 0, 0 };
	float tail = 0;
	uint32_t i;

	for (i = 0; i + 8 <= dim; i += 8) {
		lo += reis_ld4(a + i) * reis_ld4(b + i);
		hi += reis_ld4(a + i + 4) * reis_ld4(b + i + 4);
	}
	for (; i < dim; i++)
		tail += a[i] * b[i];
	return reis_fold8(lo, hi, tail);
}

float reis__l2sq(const float *a, const float *b, uint32_t dim)
{
	reis_v4 lo = { 0, 0, 0, 0 }, hi = { 0, 0, 0, 0 };
	float tail = 0;
	uint32_t i;

	for (i = 0; i + 8 <= dim; i += 8) {
		reis_v4 d0 = reis_ld4(a + i) - reis_ld4(b + i);
		reis_v4 d1 = reis_ld4(a + i + 4) - reis_ld4(b + i + 4);

		lo += d0 * d0;
		hi += d1 * d1;
	}
	for (; i < dim; i++) {
		float d = a[i] - b[i];

		tail += d * d;
	}
	return reis_fold8(lo, hi, tail);
}
