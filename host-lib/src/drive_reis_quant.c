/* SPDX-License-Identifier: MIT */
/*
 * drive_reis_quant.c - the quantizer as the drive stores it: the "REISQNT1"
 * bytes a META record and a quantizer file both carry (docs/command-set.md
 * §4, META), and freeing one. Training and encoding are host tools
 * (tool_quant.c); a program that only reads a database's quantizer back
 * needs none of them.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "drive_reis_priv.h"

void reis_quant_free(struct reis_quant *q)
{
	if (!q)
		return;
	free(q->mean);
	free(q->scale);
	memset(q, 0, sizeof(*q));
}

int reis__quant_alloc(struct reis_quant *q, uint32_t dim)
{
	q->mean = calloc(dim, sizeof(float));
	q->scale = calloc(dim, sizeof(float));
	if (!q->mean || !q->scale) {
		reis_quant_free(q);
		return -ENOMEM;
	}
	q->dim = dim;
	return 0;
}

/* "REISQNT1" file: this header, then dim float32 means, dim float32 scales. */
struct reis_quant_file {
	char magic[8];
	uint32_t dim;
	uint32_t metric;
	uint32_t flags;
	uint32_t rsvd;
	uint64_t checksum;	/* FNV-1a 64 of the two arrays */
};
_Static_assert(sizeof(struct reis_quant_file) == 32, "file layout");

uint64_t reis__quant_bytes(uint32_t dim)
{
	return sizeof(struct reis_quant_file) + 8ull * dim;
}

int reis__quant_pack(const struct reis_quant *q, uint8_t *out)
{
	struct reis_quant_file h;

	if (!q || !q->dim || !q->mean || !q->scale)
		return -EINVAL;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, "REISQNT1", 8);
	h.dim = q->dim;
	h.metric = q->metric;
	h.flags = q->flags;
	h.checksum = reis__fnv64(reis__fnv64(REIS_FNV64_INIT, q->mean, q->dim * 4ull),
				 q->scale, q->dim * 4ull);
	memcpy(out, &h, sizeof(h));
	memcpy(out + sizeof(h), q->mean, q->dim * 4ull);
	memcpy(out + sizeof(h) + q->dim * 4ull, q->scale, q->dim * 4ull);
	return 0;
}

int reis__quant_unpack(const uint8_t *buf, uint64_t len, struct reis_quant *q,
		       const char *what, char *err, size_t errlen)
{
	struct reis_quant_file h;
	uint32_t d;

	memset(q, 0, sizeof(*q));
	if (len < sizeof(h) || memcmp(buf, "REISQNT1", 8))
		return reis__errf(err, errlen, -EINVAL, "%s: not a quantizer (REISQNT1)", what);
	memcpy(&h, buf, sizeof(h));
	if (h.dim < REIS_DB_MIN_DIM || h.dim > REIS_DB_MAX_DIM || h.dim % 64 ||
	    h.metric > REIS_METRIC_L2 || (h.flags & ~REIS_QUANT_CENTER))
		return reis__errf(err, errlen, -EINVAL, "%s: bad header (dim %u, metric %u, "
				  "flags 0x%x)", what, h.dim, h.metric, h.flags);
	if (len != reis__quant_bytes(h.dim))
		return reis__errf(err, errlen, -EINVAL, "%s: truncated or trailing bytes",
				  what);
	if (reis__quant_alloc(q, h.dim))
		return reis__errf(err, errlen, -ENOMEM, "out of memory");
	memcpy(q->mean, buf + sizeof(h), h.dim * 4ull);
	memcpy(q->scale, buf + sizeof(h) + h.dim * 4ull, h.dim * 4ull);
	if (reis__fnv64(reis__fnv64(REIS_FNV64_INIT, q->mean, h.dim * 4ull), q->scale,
			h.dim * 4ull) != h.checksum) {
		reis_quant_free(q);
		return reis__errf(err, errlen, -EINVAL, "%s: checksum mismatch", what);
	}
	for (d = 0; d < h.dim; d++)
		if (!isfinite(q->mean[d]) || !(q->scale[d] > 0) || !isfinite(q->scale[d])) {
			reis_quant_free(q);
			return reis__errf(err, errlen, -EINVAL, "%s: dimension %u has a bad "
					  "mean or scale", what, d);
		}
	q->metric = h.metric;
	q->flags = h.flags;
	return 0;
}
