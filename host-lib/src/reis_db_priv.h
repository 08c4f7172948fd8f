/* SPDX-License-Identifier: MIT */
/*
 * reis_db_priv.h - what the REIS files of libreis share (reis_vec.c,
 * reis_quant.c, reis_kmeans.c, reis_image.c, reis_ref.c, reis_db.c,
 * reis_search.c). Never installed.
 */
#ifndef REIS_DB_PRIV_H
#define REIS_DB_PRIV_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "reis_priv.h"

/* printf into a caller's error buffer (NULL-safe); returns @ret. */
static inline int __attribute__((format(printf, 4, 5)))
reis__errf(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* Library-owned memory of an image (struct reis_db_image.priv). */
struct reis_image_priv {
	void *file;		/* whole image file as read */
	uint8_t *bin;
	int8_t *int8;
	uint32_t *tags;
	uint64_t *ids;
	uint8_t *docs;
	uint64_t *doc_index;
	uint8_t *centroids;
	uint32_t *cluster_sizes;
	struct reis_calib *calib;
	struct reis_quant quant;
	int have_quant;
	uint64_t *cluster_start;	/* nlist + 1 first entry of each cluster */
};

/* The image's priv, allocated on first use. NULL on ENOMEM. */
struct reis_image_priv *reis__image_priv(struct reis_db_image *img);

/* Hamming distance of @words 64-bit words (POPCNT when the CPU has it). */
uint32_t reis__hamming64(const uint64_t *a, const uint64_t *b, uint32_t words);

/* Binary search helpers shared by the reference and calibration. */
int reis__ref_nprobe(const struct reis_db_image *img, const struct reis_search_opts *o,
		     uint32_t *nprobe);

/* Dot product / squared L2 of float vectors, fixed summation order. */
float reis__dot(const float *a, const float *b, uint32_t dim);
float reis__l2sq(const float *a, const float *b, uint32_t dim);

/* splitmix64 step: deterministic seeds everywhere. */
static inline uint64_t reis__splitmix(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Uniform double in [0, 1). */
static inline double reis__uniform(uint64_t *s)
{
	return (double)(reis__splitmix(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* Bytes of a result read at @off of a @total-byte result: whole dwords,
 * at most max_xfer. */
static inline uint32_t reis__read_len(const struct reis_dev *dev, uint64_t off,
				      uint64_t total)
{
	uint64_t left = total > off ? total - off : 4;

	left = (left + 3) & ~UINT64_C(3);
	return left < dev->max_xfer ? (uint32_t)left : dev->max_xfer;
}

/* The quantizer's "REISQNT1" bytes (file and META record alike). */
uint64_t reis__quant_bytes(uint32_t dim);
int reis__quant_pack(const struct reis_quant *q, uint8_t *out);
int reis__quant_unpack(const uint8_t *buf, uint64_t len, struct reis_quant *q,
		       const char *what, char *err, size_t errlen);

/* FNV-1a 64 over @len bytes, continuing from @h. */
uint64_t reis__fnv64(uint64_t h, const void *p, uint64_t len);
#define REIS_FNV64_INIT UINT64_C(0xcbf29ce484222325)

#endif /* REIS_DB_PRIV_H */
