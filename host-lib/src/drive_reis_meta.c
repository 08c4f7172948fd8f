/* SPDX-License-Identifier: MIT */
/*
 * drive_reis_meta.c - host metadata stored with a database (docs/command-set.md
 * §4, META section): the "REISMET1" blob libreis deploys (today one record,
 * the quantizer) and its bounded parser. Reading it back from the drive is
 * drive_reis_meta_read.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "isp_wire.h"
#include "drive_reis_priv.h"

_Static_assert((int)REIS_OP_META_READ == (int)ISP_OP_REIS_META_READ, "opcode");
_Static_assert(REIS_DB_MAX_META == ISP_REIS_MAX_META, "META limit");
_Static_assert((int)REIS_SEC_META == (int)ISP_REIS_SEC_META, "section");

#define REIS_META_VERSION 1u
#define REIS_META_MAX_RECORDS 64u

/* "REISMET1" header; records follow, each 8-byte aligned. */
struct reis_meta_hdr {
	char magic[8];
	uint32_t version;
	uint32_t nrec;
	uint64_t total_bytes;	/* header included */
	uint64_t checksum;	/* FNV-1a 64 of the bytes after the header */
};
_Static_assert(sizeof(struct reis_meta_hdr) == 32, "META header");

struct reis_meta_rec {
	uint32_t type;		/* REIS_META_* */
	uint32_t rsvd;
	uint64_t len;		/* bytes that follow (then zero padding to 8) */
};
_Static_assert(sizeof(struct reis_meta_rec) == 16, "META record");

static uint64_t reis_pad8(uint64_t v)
{
	return (v + 7) & ~UINT64_C(7);
}

static int reis_recall_est_ok(const struct reis_recall_est *e)
{
	return e->mode >= REIS_EST_APPROX && e->mode <= REIS_EST_EXACT && e->k &&
	       e->k <= REIS_MAX_K && e->recall <= 10000 && e->nq && e->self <= 1 && !e->rsvd &&
	       (e->mode == REIS_EST_APPROX ? e->factor <= REIS_MAX_RERANK : !e->factor);
}

int reis_meta_encode_recall(const struct reis_quant *quant, const struct reis_recall_est *est,
			    unsigned n, void **blob, uint64_t *len)
{
	struct reis_meta_hdr h;
	struct reis_meta_rec r;
	uint64_t qlen, elen = (uint64_t)n * sizeof(*est), total, pos;
	uint8_t *b;
	unsigned i;

	if (!quant || !blob || !len || !quant->mean || !quant->scale ||
	    quant->dim < REIS_DB_MIN_DIM || quant->dim > REIS_DB_MAX_DIM || quant->dim % 64 ||
	    quant->metric > REIS_METRIC_L2 || (quant->flags & ~REIS_QUANT_CENTER) ||
	    n > REIS_MAX_RECALL_EST || (n && !est))
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!reis_recall_est_ok(&est[i]))
			return -EINVAL;
	*blob = NULL;
	*len = 0;
	qlen = reis__quant_bytes(quant->dim);
	total = sizeof(h) + sizeof(r) + reis_pad8(qlen) + (n ? sizeof(r) + elen : 0);
	if (total > REIS_DB_MAX_META)
		return -EINVAL;
	b = calloc(1, total);
	if (!b)
		return -ENOMEM;
	memset(&r, 0, sizeof(r));
	r.type = REIS_META_QUANT;
	r.len = qlen;
	memcpy(b + sizeof(h), &r, sizeof(r));
	reis__quant_pack(quant, b + sizeof(h) + sizeof(r));
	pos = sizeof(h) + sizeof(r) + reis_pad8(qlen);
	if (n) {
		r.type = REIS_META_RECALL;
		r.len = elen;
		memcpy(b + pos, &r, sizeof(r));
		memcpy(b + pos + sizeof(r), est, elen);
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, "REISMET1", 8);
	h.version = REIS_META_VERSION;
	h.nrec = n ? 2 : 1;
	h.total_bytes = total;
	h.checksum = reis__fnv64(REIS_FNV64_INIT, b + sizeof(h), total - sizeof(h));
	memcpy(b, &h, sizeof(h));
	*blob = b;
	*len = total;
	return 0;
}

int reis_meta_encode(const struct reis_quant *quant, void **blob, uint64_t *len)
{
	return reis_meta_encode_recall(quant, NULL, 0, blob, len);
}

int reis_meta_recall(const void *blob, uint64_t len, struct reis_recall_est *out,
		     unsigned max)
{
	const uint8_t *b = blob;
	struct reis_meta_hdr h;
	uint64_t pos;
	uint32_t i;
	int got = 0;

	if (!blob || len < sizeof(h) || memcmp(b, "REISMET1", 8) || (max && !out))
		return -EBADMSG;
	memcpy(&h, b, sizeof(h));
	if (h.version != REIS_META_VERSION || h.total_bytes != len ||
	    h.total_bytes > REIS_DB_MAX_META || h.nrec > REIS_META_MAX_RECORDS ||
	    reis__fnv64(REIS_FNV64_INIT, b + sizeof(h), len - sizeof(h)) != h.checksum)
		return -EBADMSG;
	for (i = 0, pos = sizeof(h); i < h.nrec; i++) {
		struct reis_meta_rec r;

		if (len - pos < sizeof(r))
			return -EBADMSG;
		memcpy(&r, b + pos, sizeof(r));
		pos += sizeof(r);
		if (r.len > len - pos || reis_pad8(r.len) > len - pos)
			return -EBADMSG;
		if (r.type == REIS_META_RECALL && !got) {
			uint64_t j, n = r.len / sizeof(struct reis_recall_est);

			if (r.len % sizeof(struct reis_recall_est) || n > REIS_MAX_RECALL_EST)
				return -EBADMSG;
			for (j = 0; j < n; j++) {
				struct reis_recall_est e;

				memcpy(&e, b + pos + j * sizeof(e), sizeof(e));
				if (!reis_recall_est_ok(&e))
					return -EBADMSG;
				if (j < max)
					out[j] = e;
			}
			got = (int)(n < max ? n : max);
		}
		pos += reis_pad8(r.len);
	}
	return pos == len ? got : -EBADMSG;
}

int reis_meta_decode(const void *blob, uint64_t len, uint32_t dim, uint32_t metric,
		     struct reis_quant *quant, char *err, size_t errlen)
{
	const uint8_t *b = blob;
	struct reis_meta_hdr h;
	uint64_t pos;
	uint32_t i;
	int ret;

	if (!quant)
		return -EINVAL;
	memset(quant, 0, sizeof(*quant));
	if (!blob || len < sizeof(h) || memcmp(b, "REISMET1", 8))
		return reis__errf(err, errlen, -EBADMSG, "META: not a libreis metadata blob "
				  "(no REISMET1 magic in %llu bytes)", (unsigned long long)len);
	memcpy(&h, b, sizeof(h));
	if (h.version != REIS_META_VERSION || h.total_bytes != len ||
	    h.total_bytes > REIS_DB_MAX_META || h.nrec > REIS_META_MAX_RECORDS)
		return reis__errf(err, errlen, -EBADMSG, "META: version %u, %u records, %llu "
				  "of %llu bytes: unsupported or truncated", h.version, h.nrec,
				  (unsigned long long)h.total_bytes, (unsigned long long)len);
	if (reis__fnv64(REIS_FNV64_INIT, b + sizeof(h), len - sizeof(h)) != h.checksum)
		return reis__errf(err, errlen, -EBADMSG, "META: checksum mismatch");
	for (i = 0, pos = sizeof(h); i < h.nrec; i++) {
		struct reis_meta_rec r;

		if (len - pos < sizeof(r)) {
			reis_quant_free(quant);
			return reis__errf(err, errlen, -EBADMSG, "META: record %u past the end",
					  i);
		}
		memcpy(&r, b + pos, sizeof(r));
		pos += sizeof(r);
		if (r.len > len - pos || reis_pad8(r.len) > len - pos) {
			reis_quant_free(quant);
			return reis__errf(err, errlen, -EBADMSG, "META: record %u (type %u, %llu "
					  "bytes) runs past the end", i, r.type,
					  (unsigned long long)r.len);
		}
		if (r.type == REIS_META_QUANT && !quant->dim) {
			ret = reis__quant_unpack(b + pos, r.len, quant, "META quantizer", err,
						 errlen);
			if (ret)
				return ret == -ENOMEM ? ret : -EBADMSG;
		}
		pos += reis_pad8(r.len);	/* other types: skipped */
	}
	if (pos != len) {
		reis_quant_free(quant);
		return reis__errf(err, errlen, -EBADMSG, "META: %llu bytes after the last "
				  "record", (unsigned long long)(len - pos));
	}
	if (!quant->dim)
		return reis__errf(err, errlen, -ENODATA, "META: no quantizer record");
	if (dim && (quant->dim != dim || quant->metric != metric)) {
		ret = reis__errf(err, errlen, -EBADMSG, "META: the quantizer (dimension %u, "
				 "metric %u) does not match the database (dimension %u, metric "
				 "%u)", quant->dim, quant->metric, dim, metric);
		reis_quant_free(quant);
		return ret;
	}
	return 0;
}

