/* SPDX-License-Identifier: MIT */
/*
 * core_mix.h - the one deterministic generator (splitmix64) behind every
 * seeded helper of libreis (k-means, traces, workloads, ticket fallback),
 * and the one hash (FNV-1a 64) that checksums images, quantizers and META
 * records. Header-only so every layer may use it. Never installed.
 */
#ifndef CORE_MIX_H
#define CORE_MIX_H

#include <stdint.h>

/* splitmix64 step: deterministic seeds everywhere. */
static inline uint64_t reis__splitmix(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Uniform double in [0, 1) with 53 random bits. */
static inline double reis__uniform(uint64_t *s)
{
	return (double)(reis__splitmix(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* FNV-1a 64 over @len bytes, continuing from @h. */
static inline uint64_t reis__fnv64(uint64_t h, const void *p, uint64_t len)
{
	const uint8_t *b = p;
	uint64_t i;

	for (i = 0; i < len; i++) {
		h ^= b[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}
#define REIS_FNV64_INIT UINT64_C(0xcbf29ce484222325)

#endif /* CORE_MIX_H */
