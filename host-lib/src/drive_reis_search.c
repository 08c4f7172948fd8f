/* SPDX-License-Identifier: MIT */
/*
 * drive_reis_search.c - Search / IVF_Search (docs/command-set.md §4) and their
 * result transfer (§6). One asynchronous search is a small state machine
 * driven by completions: SEARCH under a random ticket (a collision, ISP
 * Ticket In Use, retried with a new ticket), then RESULT_READs at increasing
 * offsets, the last one releasing the ticket. It keeps exactly one command
 * in flight and resubmits its own request from its callback, so it never
 * needs a free queue slot there; many searches run side by side. The
 * synchronous calls split any batch into such commands.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "isp_wire.h"
#include "drive_reis_priv.h"

_Static_assert(REIS_SF_NO_DF == ISP_REIS_SF_NO_DF && REIS_SF_NO_PL == ISP_REIS_SF_NO_PL &&
	       REIS_SF_NO_MPIBC == ISP_REIS_SF_NO_MPIBC &&
	       REIS_SF_NO_RERANK == ISP_REIS_SF_NO_RERANK && REIS_SF_TAG == ISP_REIS_SF_TAG &&
	       REIS_SF_GROUP == ISP_REIS_SF_GROUP && REIS_SF_DOCS == ISP_REIS_SF_DOCS &&
	       REIS_SF_ALL == ISP_REIS_SF_ALL, "search flags");
_Static_assert(REIS_MAX_NQ == ISP_REIS_MAX_NQ && REIS_MAX_K == ISP_REIS_MAX_K &&
	       REIS_MAX_RERANK == ISP_REIS_MAX_RERANK, "search limits");
_Static_assert(REIS_HIT_NONE == ISP_REIS_HIT_NONE, "hit padding");

#define REIS_SR_IDLE 0u
#define REIS_SR_SEARCH 1u
#define REIS_SR_READ 2u
#define REIS_SR_RELEASE 3u
#define REIS_SR_DONE 4u
#define REIS_SR_FAILED 5u	/* releasing after a failed read, then done */

/* Ticket collisions (ISP Ticket In Use) retried with fresh tickets. */
#define REIS_TICKET_RETRIES 8u
/* Guess of the document bytes per hit for the first result read. */
#define REIS_DOC_GUESS 512u
/* Sync search: ISP Resource Busy retried this often, 1 ms apart. */
#define REIS_EAGAIN_RETRIES 2000u
#define REIS_SYNC_DEPTH 8u

#define HDR_BYTES ((uint64_t)sizeof(struct isp_wire_result_hdr) + \
		   sizeof(struct isp_wire_reis_result))

/* The blobs a (merged) result's documents point into. */
struct reis_res_priv {
	void **blobs;
	unsigned nblobs;
};

void reis_search_result_free(struct reis_search_result *res)
{
	struct reis_res_priv *p;
	unsigned i;

	if (!res)
		return;
	p = res->priv;
	if (p) {
		for (i = 0; i < p->nblobs; i++)
			free(p->blobs[i]);
		free(p->blobs);
		free(p);
	}
	free(res->hits);
	free(res->nhits);
	memset(res, 0, sizeof(*res));
}

static int reis_res_own(struct reis_search_result *res, void *blob)
{
	struct reis_res_priv *p = res->priv;
	void **nb;

	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		res->priv = p;
	}
	nb = realloc(p->blobs, (p->nblobs + 1) * sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	p->blobs = nb;
	p->blobs[p->nblobs++] = blob;
	return 0;
}

int reis_search_result_decode(const void *blob, uint64_t len, uint32_t nq, uint32_t k,
			      struct reis_search_result *res)
{
	const uint8_t *b = blob;
	struct isp_wire_result_hdr h;
	struct isp_wire_reis_result r;
	uint64_t hits_off, docs_off, docs_end, i;
	uint32_t qi;

	if (!blob || !res || !nq || !k)
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	if (len < HDR_BYTES)
		return -EPROTO;
	memcpy(&h, b, sizeof(h));
	memcpy(&r, b + sizeof(h), sizeof(r));
	if (memcmp(h.magic, "RSLT", 4) || h.kind != ISP_RESULT_SEARCH ||
	    h.hdr_bytes != sizeof(r) || h.total_bytes > len || r.nq != nq || r.k != k)
		return -EPROTO;
	hits_off = HDR_BYTES;
	docs_off = hits_off + (uint64_t)nq * k * sizeof(struct isp_wire_reis_hit);
	if (docs_off > h.total_bytes || r.docs_bytes > h.total_bytes - docs_off)
		return -EPROTO;
	docs_end = docs_off + r.docs_bytes;
	res->hits = calloc((size_t)nq * k, sizeof(*res->hits));
	res->nhits = calloc(nq, sizeof(*res->nhits));
	if (!res->hits || !res->nhits) {
		reis_search_result_free(res);
		return -ENOMEM;
	}
	res->nq = nq;
	res->k = k;
	res->flags = r.flags;
	res->ndbs = r.ndbs;
	res->nprobe = r.nprobe;
	res->pages_read = r.pages_read;
	res->entries_compared = r.entries_compared;
	res->entries_passed = r.entries_passed;
	res->reranked = r.reranked;
	res->docs_bytes = r.docs_bytes;
	for (qi = 0; qi < nq; qi++) {
		int padded = 0;

		for (i = 0; i < k; i++) {
			struct isp_wire_reis_hit w;
			struct reis_hit *o = &res->hits[(size_t)qi * k + i];

			memcpy(&w, b + hits_off + ((size_t)qi * k + i) * sizeof(w), sizeof(w));
			o->id = w.id;
			if (w.id == ISP_REIS_HIT_NONE) {
				padded = 1;
				continue;
			}
			if (padded) {
				reis_search_result_free(res);
				return -EPROTO;	/* a hit after padding */
			}
			o->did = w.did;
			o->entry = w.entry;
			o->hamming = w.hamming;
			o->score = w.score;
			if (w.doc_len) {
				if (!(r.flags & ISP_REIS_SF_DOCS) || w.doc_off < docs_off ||
				    w.doc_off > docs_end || w.doc_len > docs_end - w.doc_off) {
					reis_search_result_free(res);
					return -EPROTO;
				}
				o->doc = b + w.doc_off;
				o->doc_len = w.doc_len;
			}
			res->nhits[qi]++;
		}
	}
	return 0;
}

uint32_t reis_search_max_nq(const struct reis_dev *dev, uint32_t dim, uint32_t k,
			    uint32_t flags)
{
	uint64_t per, room, nq, hit, cap;

	if (!dev || !dim || !k)
		return 0;
	per = dim / 8 + ((flags & REIS_SF_NO_RERANK) ? 0 : dim);
	if (dev->max_xfer < sizeof(struct isp_wire_reis_search) + per)
		return 0;
	room = dev->max_xfer - sizeof(struct isp_wire_reis_search);
	nq = room / per;
	/* The result must fit the drive's result memory. */
	cap = dev->info.max_result_bytes;
	hit = (uint64_t)k * (sizeof(struct isp_wire_reis_hit) +
			     ((flags & REIS_SF_DOCS) ? dev->info.page_bytes : 0));
	if (cap) {
		if (cap <= HDR_BYTES + hit)
			return 0;
		if ((cap - HDR_BYTES) / hit < nq)
			nq = (cap - HDR_BYTES) / hit;
	}
	return nq < REIS_MAX_NQ ? (uint32_t)nq : REIS_MAX_NQ;
}

static int reis_search_check(struct reis_dev *dev, uint8_t opcode,
			     const struct reis_search_opts *o, const struct reis_queries *q,
			     uint32_t max_nq)
{
	const char *op = opcode == REIS_OP_IVF_SEARCH ? "REIS_IVF_SEARCH" : "REIS_SEARCH";

	if (opcode != REIS_OP_SEARCH && opcode != REIS_OP_IVF_SEARCH)
		return reis__seterr(dev, -EINVAL, "search: opcode 0x%02x is not a search",
				    opcode);
	if (!o || !q)
		return reis__seterr(dev, -EINVAL, "%s: no options or queries", op);
	if (!o->k || o->k > REIS_MAX_K)
		return reis__seterr(dev, -EINVAL, "%s: k = %u not in 1..%u", op, o->k,
				    REIS_MAX_K);
	if (o->flags & ~REIS_SF_ALL)
		return reis__seterr(dev, -EINVAL, "%s: unknown flags 0x%x", op,
				    o->flags & ~REIS_SF_ALL);
	if (o->rerank_factor > REIS_MAX_RERANK)
		return reis__seterr(dev, -EINVAL, "%s: rerank factor %u > %u", op,
				    o->rerank_factor, REIS_MAX_RERANK);
	if (o->target_recall > 10000)
		return reis__seterr(dev, -EINVAL, "%s: target recall %u > 10000 (1/10000 "
				    "units)", op, o->target_recall);
	if (q->dim < REIS_DB_MIN_DIM || q->dim > REIS_DB_MAX_DIM || q->dim % 64)
		return reis__seterr(dev, -EINVAL, "%s: query dimension %u is not a multiple "
				    "of 64 in %u..%u", op, q->dim, REIS_DB_MIN_DIM,
				    REIS_DB_MAX_DIM);
	if (!q->nq || !q->bin || (!(o->flags & REIS_SF_NO_RERANK) && !q->int8))
		return reis__seterr(dev, -EINVAL, "%s: %s", op, !q->nq ? "no queries" :
				    "binary (and, unless NO_RERANK, INT8) codes needed");
	if (max_nq && q->nq > max_nq)
		return reis__seterr(dev, -EINVAL, "%s: %u queries; one command carries at "
				    "most %u at dimension %u (max_xfer %u)", op, q->nq, max_nq,
				    q->dim, dev->max_xfer);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* The asynchronous state machine                                          */
/* ---------------------------------------------------------------------- */

static void reis_sr_cb(struct reis_req *req, void *arg);

static int reis_sr_decode(struct reis_search_req *sr);

static void reis_sr_finish(struct reis_search_req *sr, int err)
{
	if (err && !sr->err)
		sr->err = err;
	if (!sr->err) {
		int ret = reis_sr_decode(sr);

		if (ret) {
			sr->err = ret;
			memset(&sr->cpl, 0, sizeof(sr->cpl));
			sr->cpl.err = ret;
		}
	}
	free(sr->payload);
	sr->payload = NULL;
	if (sr->err) {
		free(sr->blob);
		sr->blob = NULL;
	}
	sr->res.host_ns = reis__now_ns() - sr->submit_ns;
	sr->state = REIS_SR_DONE;
	if (sr->cb)
		sr->cb(sr, sr->cb_arg);
}

/* Submit sr->req again from a callback; a failure ends the search. */
static int reis_sr_resubmit(struct reis_search_req *sr)
{
	struct reis_dev *dev = sr->dev;
	int ret;

	reis_req_set_cb(&sr->req, reis_sr_cb, sr);
	ret = reis_submit(dev, &sr->req);
	if (ret) {
		memset(&sr->cpl, 0, sizeof(sr->cpl));
		sr->cpl.err = ret;
		snprintf(sr->msg, sizeof(sr->msg), "%s", reis_last_error(dev));
	}
	return ret;
}

static void reis_sr_prep_read(struct reis_search_req *sr, uint64_t off, uint32_t len,
			      int release)
{
	reis_prep_cmd(&sr->req, ISP_OP_RESULT_READ, sr->blob + off, len);
	sr->req.cmd.cdw12 = sr->ticket;
	sr->req.cmd.cdw13 = release ? ISP_RESULT_F_RELEASE : 0;
	sr->req.cmd.cdw14 = (uint32_t)off;
	sr->req.cmd.cdw15 = (uint32_t)(off >> 32);
	sr->read_off = off;
	sr->state = release ? REIS_SR_RELEASE : REIS_SR_READ;
}

static int reis_sr_grow(struct reis_search_req *sr, uint64_t cap)
{
	uint8_t *nb;

	cap = (cap + 3) & ~UINT64_C(3);
	if (cap <= sr->blob_cap)
		return 0;
	nb = realloc(sr->blob, cap);
	if (!nb)
		return -ENOMEM;
	sr->blob = nb;
	sr->blob_cap = cap;
	return 0;
}

/* Release the ticket after a failure, then finish with @err. */
static void reis_sr_fail_release(struct reis_search_req *sr, int err)
{
	if (!sr->err)
		sr->err = err;
	reis_prep_cmd(&sr->req, ISP_OP_RESULT_RELEASE, NULL, 0);
	sr->req.cmd.cdw12 = sr->ticket;
	sr->state = REIS_SR_FAILED;
	if (reis_sr_resubmit(sr))
		reis_sr_finish(sr, err);
}

static void reis_sr_read_done(struct reis_search_req *sr)
{
	struct reis_dev *dev = sr->dev;
	uint32_t len = sr->req.data_len;
	int released = sr->req.cmd.cdw13 & ISP_RESULT_F_RELEASE;
	uint64_t end = sr->read_off + len;

	sr->res.ncmds++;
	sr->res.read_ns += sr->req.cpl.time_ns;
	sr->res.read_nj += sr->req.cpl.energy_nj;
	if (end > sr->blob_len)
		sr->blob_len = end;
	if (!sr->total) {
		struct isp_wire_result_hdr h;
		struct isp_wire_reis_result r;
		uint64_t min = HDR_BYTES + (uint64_t)sr->res.nq * sr->res.k *
			       sizeof(struct isp_wire_reis_hit);
		uint64_t cap = dev->info.max_result_bytes ? dev->info.max_result_bytes :
			       (UINT64_C(1) << 32);

		memcpy(&h, sr->blob, sizeof(h));
		memcpy(&r, sr->blob + sizeof(h), sizeof(r));
		if (memcmp(h.magic, "RSLT", 4) || h.kind != ISP_RESULT_SEARCH ||
		    h.ticket != sr->ticket || h.hdr_bytes != sizeof(r) ||
		    h.total_bytes < min || h.total_bytes > cap || r.nq != sr->res.nq ||
		    r.k != sr->res.k) {
			memset(&sr->cpl, 0, sizeof(sr->cpl));
			sr->cpl.err = -EPROTO;
			snprintf(sr->msg, sizeof(sr->msg), "search ticket 0x%08x: malformed "
				 "result header (kind %u, %llu bytes, nq %u, k %u)", sr->ticket,
				 h.kind, (unsigned long long)h.total_bytes, r.nq, r.k);
			if (released)
				reis_sr_finish(sr, -EPROTO);
			else
				reis_sr_fail_release(sr, -EPROTO);
			return;
		}
		sr->total = h.total_bytes;
		if (reis_sr_grow(sr, sr->total)) {
			snprintf(sr->msg, sizeof(sr->msg), "search: out of memory for %llu "
				 "result bytes", (unsigned long long)sr->total);
			if (released)
				reis_sr_finish(sr, -ENOMEM);
			else
				reis_sr_fail_release(sr, -ENOMEM);
			return;
		}
	}
	if (sr->blob_len >= sr->total) {
		if (released) {
			reis_sr_finish(sr, 0);
			return;
		}
		reis_prep_cmd(&sr->req, ISP_OP_RESULT_RELEASE, NULL, 0);
		sr->req.cmd.cdw12 = sr->ticket;
		sr->state = REIS_SR_RELEASE;
	} else {
		uint32_t n = reis__read_len(dev, sr->blob_len, sr->total);

		reis_sr_prep_read(sr, sr->blob_len, n, sr->blob_len + n >= sr->total);
	}
	if (reis_sr_resubmit(sr))
		reis_sr_finish(sr, sr->cpl.err);
}

static void reis_sr_cb(struct reis_req *req, void *arg)
{
	struct reis_search_req *sr = arg;
	struct reis_dev *dev = sr->dev;
	int err = req->cpl.err;

	if (err) {
		char m[128];

		/* A ticket someone else holds (only Ticket In Use, never ISP
		 * Busy: that is the database's state): draw another. */
		if (sr->state == REIS_SR_SEARCH && (req->cpl.status & REIS_STATUS_CODE_MASK) ==
		    REIS_SC_TICKET_IN_USE && sr->retries < REIS_TICKET_RETRIES) {
			sr->retries++;
			sr->res.ncmds++;
			sr->ticket = reis__ticket(sr->dev);
			req->cmd.cdw12 = sr->ticket;
			if (!reis_sr_resubmit(sr))
				return;
			reis_sr_finish(sr, sr->cpl.err);
			return;
		}
		sr->cpl = req->cpl;
		snprintf(sr->msg, sizeof(sr->msg), "%s (ticket 0x%08x)",
			 reis_req_strerror(req, m, sizeof(m)), sr->ticket);
		if (req->cmd.opcode == ISP_OP_RESULT_READ)
			reis_sr_fail_release(sr, err);
		else
			reis_sr_finish(sr, sr->state == REIS_SR_FAILED && sr->err ? sr->err :
				       err);
		return;
	}
	switch (sr->state) {
	case REIS_SR_SEARCH: {
		uint64_t est = HDR_BYTES + (uint64_t)sr->res.nq * sr->res.k *
			       sizeof(struct isp_wire_reis_hit);
		int docs = !!(sr->res.flags & REIS_SF_DOCS);
		uint64_t want = est + (docs ? (uint64_t)sr->res.nq * sr->res.k *
				       REIS_DOC_GUESS : 0);
		uint32_t n;

		sr->res.ncmds++;
		sr->res.search_ns += req->cpl.time_ns;
		sr->res.search_nj += req->cpl.energy_nj;
		free(sr->payload);
		sr->payload = NULL;
		n = reis__read_len(dev, 0, want);
		if (reis_sr_grow(sr, n)) {
			snprintf(sr->msg, sizeof(sr->msg), "search: out of memory");
			reis_sr_fail_release(sr, -ENOMEM);
			return;
		}
		/* Without documents the size is known: one read, releasing. */
		reis_sr_prep_read(sr, 0, n, !docs && n >= est);
		if (reis_sr_resubmit(sr))
			reis_sr_finish(sr, sr->cpl.err);
		return;
	}
	case REIS_SR_READ:
		reis_sr_read_done(sr);
		return;
	case REIS_SR_RELEASE:
		if (req->cmd.opcode == ISP_OP_RESULT_READ) {
			reis_sr_read_done(sr);
			return;
		}
		sr->res.ncmds++;
		reis_sr_finish(sr, 0);
		return;
	case REIS_SR_FAILED:
	default:
		reis_sr_finish(sr, sr->err ? sr->err : -EIO);
		return;
	}
}

int reis_search_submit(struct reis_dev *dev, struct reis_search_req *sr, uint8_t opcode,
		       const struct reis_search_opts *o, const struct reis_queries *q,
		       reis_search_cb cb, void *arg)
{
	struct isp_wire_reis_search w;
	uint64_t bin_bytes, i8_bytes;
	int ret;

	if (!dev || !sr)
		return -EINVAL;
	if (sr->state != REIS_SR_IDLE && sr->state != REIS_SR_DONE)
		return reis__seterr(dev, -EBUSY, "search: request %p in flight", (void *)sr);
	ret = reis_search_check(dev, opcode, o, q,
				reis_search_max_nq(dev, q ? q->dim : 0, o ? o->k : 0,
						   o ? o->flags : 0));
	if (ret)
		return ret;
	memset(sr, 0, sizeof(*sr));
	bin_bytes = (uint64_t)q->nq * (q->dim / 8);
	i8_bytes = (o->flags & REIS_SF_NO_RERANK) ? 0 : (uint64_t)q->nq * q->dim;
	sr->payload_len = (uint32_t)(sizeof(w) + bin_bytes + i8_bytes);
	sr->payload = aligned_alloc(64, (sr->payload_len + 63) & ~63u);
	if (!sr->payload)
		return reis__seterr(dev, -ENOMEM, "search: out of memory");
	memset(&w, 0, sizeof(w));
	w.did = o->did;
	w.nq = q->nq;
	w.k = o->k;
	w.flags = o->flags;
	w.rerank_factor = o->rerank_factor;
	w.df_threshold = o->df_threshold;
	w.nprobe = o->nprobe;
	w.target_recall = o->target_recall;
	w.tag = o->tag;
	w.dim = q->dim;
	w.t_min = o->t_min;
	w.t_max = o->t_max;
	memcpy(sr->payload, &w, sizeof(w));
	memcpy(sr->payload + sizeof(w), q->bin, bin_bytes);
	if (i8_bytes)
		memcpy(sr->payload + sizeof(w) + bin_bytes, q->int8, i8_bytes);
	sr->opcode = opcode;
	sr->dev = dev;
	sr->cb = cb;
	sr->cb_arg = arg;
	sr->res.nq = q->nq;
	sr->res.k = o->k;
	sr->res.flags = o->flags;
	sr->ticket = reis__ticket(sr->dev);
	sr->state = REIS_SR_SEARCH;
	sr->submit_ns = reis__now_ns();
	reis_prep_cmd(&sr->req, opcode, sr->payload, sr->payload_len);
	sr->req.cmd.cdw12 = sr->ticket;
	reis_req_set_cb(&sr->req, reis_sr_cb, sr);
	ret = reis_submit(dev, &sr->req);
	if (ret) {
		free(sr->payload);
		sr->payload = NULL;
		sr->state = REIS_SR_IDLE;
	}
	return ret;
}

int reis_search_req_done(const struct reis_search_req *sr)
{
	return sr && sr->state == REIS_SR_DONE;
}

/* Decode a finished request's blob into sr->res (blob ownership moves). */
static int reis_sr_decode(struct reis_search_req *sr)
{
	struct reis_search_result d;
	int ret;

	ret = reis_search_result_decode(sr->blob, sr->total, sr->res.nq, sr->res.k, &d);
	if (ret) {
		snprintf(sr->msg, sizeof(sr->msg), "search ticket 0x%08x: malformed result "
			 "(%llu bytes)", sr->ticket, (unsigned long long)sr->total);
		free(sr->blob);
		sr->blob = NULL;
		return ret;
	}
	d.ncmds = sr->res.ncmds;
	d.search_ns = sr->res.search_ns;
	d.search_nj = sr->res.search_nj;
	d.read_ns = sr->res.read_ns;
	d.read_nj = sr->res.read_nj;
	d.host_ns = sr->res.host_ns;
	ret = reis_res_own(&d, sr->blob);
	if (ret) {
		reis_search_result_free(&d);
		free(sr->blob);
		sr->blob = NULL;
		return ret;
	}
	sr->blob = NULL;
	sr->res = d;
	return 0;
}

int reis_search_wait(struct reis_dev *dev, struct reis_search_req *sr)
{
	int ret;

	if (!dev || !sr || sr->state == REIS_SR_IDLE)
		return -EINVAL;
	while (sr->state != REIS_SR_DONE) {
		ret = reis_wait(dev, 1, -1);
		if (ret < 0 && ret != -ETIME && ret != -EINTR)
			return ret;
	}
	return sr->err;
}

/* ---------------------------------------------------------------------- */
/* Synchronous searches over any number of queries                         */
/* ---------------------------------------------------------------------- */

struct reis_sync {
	struct reis_search_result *out;
	int err;
	struct reis_cpl cpl;
	char msg[160];
};

struct reis_sync_slot {
	struct reis_search_req sr;
	struct reis_sync *s;
	uint32_t first;		/* first query of its batch */
	uint32_t pending;	/* batch assigned, (re)submission due */
	uint32_t eagain;	/* the last try met ISP Resource Busy */
};

static void reis_sync_fail(struct reis_sync *s, int err, const struct reis_cpl *cpl,
			   const char *msg)
{
	if (s->err)
		return;
	s->err = err;
	if (cpl)
		s->cpl = *cpl;
	else {
		memset(&s->cpl, 0, sizeof(s->cpl));
		s->cpl.err = err;
	}
	snprintf(s->msg, sizeof(s->msg), "%s", msg);
}

static void reis_sync_cb(struct reis_search_req *sr, void *arg)
{
	struct reis_sync_slot *slot = arg;
	struct reis_sync *s = slot->s;
	struct reis_search_result *out = s->out;
	struct reis_res_priv *p;
	uint32_t qi, k;
	int ret;

	if (sr->err == -EAGAIN) {
		/* Result memory full: the same batch again, later. */
		slot->pending = 1;
		slot->eagain = 1;
		return;
	}
	ret = sr->err;
	if (ret) {
		reis_sync_fail(s, ret, &sr->cpl, sr->msg);
		return;
	}
	k = out->k;
	for (qi = 0; qi < sr->res.nq; qi++) {
		memcpy(out->hits + (size_t)(slot->first + qi) * k,
		       sr->res.hits + (size_t)qi * k, (size_t)k * sizeof(*out->hits));
		out->nhits[slot->first + qi] = sr->res.nhits[qi];
	}
	out->flags = sr->res.flags;
	out->ndbs = sr->res.ndbs;
	out->nprobe = sr->res.nprobe;
	out->ncmds += sr->res.ncmds;
	out->pages_read += sr->res.pages_read;
	out->entries_compared += sr->res.entries_compared;
	out->entries_passed += sr->res.entries_passed;
	out->reranked += sr->res.reranked;
	out->docs_bytes += sr->res.docs_bytes;
	out->search_ns += sr->res.search_ns;
	out->search_nj += sr->res.search_nj;
	out->read_ns += sr->res.read_ns;
	out->read_nj += sr->res.read_nj;
	/* The merged result keeps the blob its documents point into. */
	p = sr->res.priv;
	if (p && p->nblobs == 1) {
		if (reis_res_own(out, p->blobs[0]))
			reis_sync_fail(s, -ENOMEM, NULL, "search: out of memory");
		else
			p->nblobs = 0;
	}
	reis_search_result_free(&sr->res);
}

static int reis_sync_inflight(const struct reis_sync_slot *sl)
{
	return sl->sr.state != REIS_SR_IDLE && sl->sr.state != REIS_SR_DONE;
}

static int reis_search_sync(struct reis_dev *dev, uint8_t opcode,
			    const struct reis_search_opts *o, const struct reis_queries *q,
			    struct reis_search_result *res)
{
	struct reis_sync s;
	struct reis_sync_slot *slots;
	uint32_t per, nb, next = 0, depth, i, eagain_tries = 0, busy;
	uint64_t t0 = reis__now_ns();
	int ret = 0;

	if (!dev || !res)
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	if (dev->in_cb)
		return reis__seterr(dev, -EDEADLK, "search: called from a callback");
	ret = reis_search_check(dev, opcode, o, q, 0);
	if (ret)
		return ret;
	per = reis_search_max_nq(dev, q->dim, o->k, o->flags);
	if (!per)
		return reis__seterr(dev, -EINVAL, "search: one query of dimension %u (k %u) "
				    "does not fit max_xfer %u or the result memory", q->dim,
				    o->k, dev->max_xfer);
	nb = (q->nq + per - 1) / per;
	depth = nb < REIS_SYNC_DEPTH ? nb : REIS_SYNC_DEPTH;
	if (depth > dev->qdepth)
		depth = dev->qdepth;
	memset(&s, 0, sizeof(s));
	s.out = res;
	res->nq = q->nq;
	res->k = o->k;
	res->flags = o->flags;
	res->hits = calloc((size_t)q->nq * o->k, sizeof(*res->hits));
	res->nhits = calloc(q->nq, sizeof(*res->nhits));
	slots = calloc(depth, sizeof(*slots));
	if (!res->hits || !res->nhits || !slots) {
		free(slots);
		reis_search_result_free(res);
		return reis__seterr(dev, -ENOMEM, "search: out of memory");
	}
	for (i = 0; i < depth; i++)
		slots[i].s = &s;

	while (!s.err) {
		busy = 0;
		for (i = 0; i < depth && !s.err; i++) {
			struct reis_sync_slot *sl = &slots[i];
			struct reis_queries sub;

			if (reis_sync_inflight(sl)) {
				busy++;
				continue;
			}
			if (!sl->pending) {
				if (next >= nb)
					continue;
				sl->first = next++ * per;
				sl->pending = 1;
			}
			if (sl->eagain) {
				if (++eagain_tries > REIS_EAGAIN_RETRIES) {
					reis_sync_fail(&s, -EAGAIN, &sl->sr.cpl, sl->sr.msg);
					break;
				}
				if (!reis_inflight(dev)) {
					struct timespec ts = { 0, 1000000 };

					nanosleep(&ts, NULL);
				}
			}
			sub.nq = q->nq - sl->first < per ? q->nq - sl->first : per;
			sub.dim = q->dim;
			sub.bin = q->bin + (size_t)sl->first * (q->dim / 8);
			sub.int8 = q->int8 ? q->int8 + (size_t)sl->first * q->dim : NULL;
			ret = reis_search_submit(dev, &sl->sr, opcode, o, &sub, reis_sync_cb, sl);
			if (ret == -EBUSY && reis_inflight(dev))
				break;	/* queue full: reap first */
			if (ret) {
				reis_sync_fail(&s, ret, NULL, reis_last_error(dev));
				break;
			}
			sl->pending = 0;
			sl->eagain = 0;
			busy++;
		}
		if (s.err || (!busy && next >= nb))
			break;
		ret = reis_wait(dev, 1, -1);
		if (ret < 0 && ret != -ETIME && ret != -EINTR)
			reis_sync_fail(&s, ret, NULL, reis_last_error(dev));
	}
	/* Drain what is in flight before the slots go away. */
	for (i = 0; i < depth; i++)
		while (reis_sync_inflight(&slots[i]))
			if (reis_wait(dev, 1, -1) < 0 && !reis_inflight(dev))
				break;
	free(slots);
	res->host_ns = reis__now_ns() - t0;
	if (s.err) {
		reis_search_result_free(res);
		dev->last = s.cpl;
		return reis__seterr(dev, s.err, "%s", s.msg);
	}
	/* The call's completion: success, the modeled cost of all commands. */
	memset(&dev->last, 0, sizeof(dev->last));
	dev->last.time_ns = res->search_ns + res->read_ns;
	dev->last.energy_nj = res->search_nj + res->read_nj;
	dev->last.host_ns = res->host_ns;
	return 0;
}

int reis_search(struct reis_dev *dev, const struct reis_search_opts *o,
		const struct reis_queries *q, struct reis_search_result *res)
{
	return reis_search_sync(dev, REIS_OP_SEARCH, o, q, res);
}

int reis_ivf_search(struct reis_dev *dev, const struct reis_search_opts *o,
		    const struct reis_queries *q, struct reis_search_result *res)
{
	return reis_search_sync(dev, REIS_OP_IVF_SEARCH, o, q, res);
}
