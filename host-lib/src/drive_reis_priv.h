/* SPDX-License-Identifier: MIT */
/*
 * drive_reis_priv.h - what the REIS files of libreis share: the drive
 * commands (drive_reis_*.c) and, above them, the host tools (tool_*.c) that
 * build images and recompute searches. Never installed.
 */
#ifndef DRIVE_REIS_PRIV_H
#define DRIVE_REIS_PRIV_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "core_mix.h"
#include "core_priv.h"

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
	struct reis_recall_est *recall;
	struct reis_quant quant;
	int have_quant;
	uint64_t *cluster_start;	/* nlist + 1 first entry of each cluster */
};

/*
 * tool_recall_est.c: after reis_db_build()'s layout and calibration, the
 * recall -> nprobe table of an IVF image without held-out queries (unless
 * REIS_BUILD_NO_CALIB) and, with REIS_BUILD_ESTIMATE, img->recall. @view
 * is @img with row numbers as ids (what recall is counted in); @x the rows.
 */
struct reis_build_opts;
int reis__build_estimate(struct reis_db_image *img, struct reis_db_image *view,
			 const float *x, const struct reis_build_opts *o, char *err,
			 size_t errlen);

/* The image's priv, allocated on first use. NULL on ENOMEM. */
struct reis_image_priv *reis__image_priv(struct reis_db_image *img);

/* tool_distance.c. Hamming distance of @words 64-bit words (POPCNT when the CPU has it). */
uint32_t reis__hamming64(const uint64_t *a, const uint64_t *b, uint32_t words);

/* tool_ref_search.c: the nprobe a search uses, shared by the reference and
 * calibration. */
int reis__ref_nprobe(const struct reis_db_image *img, const struct reis_search_opts *o,
		     uint32_t *nprobe);

/* tool_ref_search.c: the calibration's next nprobe (1 2 3 4 6 8 12 ...). */
uint32_t reis__calib_next_nprobe(uint32_t np, uint32_t nlist);

/* Dot product / squared L2 of float vectors, fixed summation order. */
float reis__dot(const float *a, const float *b, uint32_t dim);
float reis__l2sq(const float *a, const float *b, uint32_t dim);

/* drive_reis_quant.c: the quantizer's "REISQNT1" bytes (file and META
 * record alike); arrays of @dim entries (-ENOMEM). */
int reis__quant_alloc(struct reis_quant *q, uint32_t dim);
uint64_t reis__quant_bytes(uint32_t dim);
int reis__quant_pack(const struct reis_quant *q, uint8_t *out);
int reis__quant_unpack(const uint8_t *buf, uint64_t len, struct reis_quant *q,
		       const char *what, char *err, size_t errlen);

#endif /* DRIVE_REIS_PRIV_H */
