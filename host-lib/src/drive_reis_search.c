/* SPDX-License-Identifier: MIT */
/*
 * drive_reis_search.c - Search / IVF_Search (docs/command-set.md §4). One
 * asynchronous search is one run of the results machine (core_result.c,
 * §6): SEARCH under a ticket, RESULT_READs, RELEASE; this file says what a
 * search's result looks like (its size guessed, then read from the header,
 * checked, decoded) and what it costs. Many searches run side by side; the
 * synchronous calls split any batch into such commands.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "isp_wire.h"
#include "drive_reis_priv.h"

_Static_assert(REIS_SF_NO_DF == ISP_REIS_SF_NO_DF && REIS_SF_NO_PL == ISP_REIS_SF_NO_PL &&
	       REIS_SF_NO_MPIBC == ISP_REIS_SF_NO_MPIBC &&
	       REIS_SF_NO_RERANK == ISP_REIS_SF_NO_RERANK && REIS_SF_TAG == ISP_REIS_SF_TAG &&
	       REIS_SF_GROUP == ISP_REIS_SF_GROUP && REIS_SF_DOCS == ISP_REIS_SF_DOCS &&
	       REIS_SF_RERANK_ALL == ISP_REIS_SF_RERANK_ALL &&
	       REIS_SF_ALL == ISP_REIS_SF_ALL, "search flags");
_Static_assert(REIS_MAX_NQ == ISP_REIS_MAX_NQ && REIS_MAX_K == ISP_REIS_MAX_K &&
	       REIS_MAX_RERANK == ISP_REIS_MAX_RERANK, "search limits");
_Static_assert(REIS_HIT_NONE == ISP_REIS_HIT_NONE, "hit padding");

#define REIS_SR_IDLE 0u
#define REIS_SR_SEARCH 1u	/* in the results machine */
#define REIS_SR_DONE 4u

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
		return reis__seterr(dev, -EINVAL, q->dim % 64 ? "%s: query dimension %u is not "
				    "a multiple of 64" : "%s: query dimension %u is outside %u..%u",
				    op, q->dim, REIS_DB_MIN_DIM, REIS_DB_MAX_DIM);
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

static int reis_sr_decode(struct reis_search_req *sr);

#define SR_OF(rx) ((struct reis_search_req *)(void *)((char *)(rx) - \
			offsetof(struct reis_search_req, rx)))

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

/* What each command costs; a retried collision counts as a command. */
static void reis_sr_account(struct reis_rx *rx, const struct reis_req *req)
{
	struct reis_search_req *sr = SR_OF(rx);

	if (req->cpl.err || (rx->flags & REIS_RX_FAILING))
		return;
	sr->res.ncmds++;
	if (req->cmd.opcode == ISP_OP_RESULT_READ) {
		sr->res.read_ns += req->cpl.time_ns;
		sr->res.read_nj += req->cpl.energy_nj;
	} else if (req->cmd.opcode != ISP_OP_RESULT_RELEASE) {
		sr->res.search_ns += req->cpl.time_ns;
		sr->res.search_nj += req->cpl.energy_nj;
	}
}

static void reis_sr_retry(struct reis_rx *rx)
{
	struct reis_search_req *sr = SR_OF(rx);

	sr->retries++;
	sr->res.ncmds++;
	sr->ticket = rx->ticket;
}

static void reis_sr_cmd_error(struct reis_rx *rx, const struct reis_req *req)
{
	struct reis_search_req *sr = SR_OF(rx);
	char m[sizeof(sr->msg)];
	size_t n;

	sr->cpl = req->cpl;
	n = strlen(reis__req_errmsg(rx->dev, req, m, sizeof(m)));
	/* the ticket when it fits: the drive's reason matters more */
	memcpy(sr->msg, m, n + 1);
	if (n + 20 < sizeof(sr->msg))
		snprintf(sr->msg + n, sizeof(sr->msg) - n, " (ticket 0x%08x)", sr->ticket);
}

static void reis_sr_submit_error(struct reis_rx *rx, int err)
{
	struct reis_search_req *sr = SR_OF(rx);

	memset(&sr->cpl, 0, sizeof(sr->cpl));
	sr->cpl.err = err;
	snprintf(sr->msg, sizeof(sr->msg), "%s", reis_last_error(sr->dev));
}

/* SEARCH done: read a guess of the result (exact without documents). */
static int reis_sr_accepted(struct reis_rx *rx)
{
	struct reis_search_req *sr = SR_OF(rx);
	uint64_t est = HDR_BYTES + (uint64_t)sr->res.nq * sr->res.k *
		       sizeof(struct isp_wire_reis_hit);
	int docs = !!(sr->res.flags & REIS_SF_DOCS);

	free(sr->payload);
	sr->payload = NULL;
	rx->total = est + (docs ? (uint64_t)sr->res.nq * sr->res.k * REIS_DOC_GUESS : 0);
	if (!docs)
		rx->flags |= REIS_RX_KNOWN;
	if (reis_sr_grow(sr, reis__read_len(sr->dev, 0, rx->total))) {
		snprintf(sr->msg, sizeof(sr->msg), "search: out of memory");
		return -ENOMEM;
	}
	return 0;
}

static void *reis_sr_buf(struct reis_rx *rx)
{
	return SR_OF(rx)->blob + rx->off;
}

/* The first read brings the header: check it, learn the length. */
static int reis_sr_chunk(struct reis_rx *rx)
{
	struct reis_search_req *sr = SR_OF(rx);
	struct reis_dev *dev = sr->dev;
	uint64_t end = rx->off + rx->len;
	struct isp_wire_result_hdr h;
	struct isp_wire_reis_result r;
	uint64_t min = HDR_BYTES + (uint64_t)sr->res.nq * sr->res.k *
		       sizeof(struct isp_wire_reis_hit);
	uint64_t cap = dev->info.max_result_bytes ? dev->info.max_result_bytes :
		       (UINT64_C(1) << 32);

	if (end > sr->blob_len)
		sr->blob_len = end;
	if (sr->total)
		return 0;
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
		return -EPROTO;
	}
	sr->total = h.total_bytes;
	rx->total = sr->total;
	rx->flags |= REIS_RX_KNOWN;
	if (reis_sr_grow(sr, sr->total)) {
		snprintf(sr->msg, sizeof(sr->msg), "search: out of memory for %llu "
			 "result bytes", (unsigned long long)sr->total);
		return -ENOMEM;
	}
	return 0;
}

static void reis_sr_complete(struct reis_rx *rx)
{
	reis_sr_finish(SR_OF(rx), 0);
}

static void reis_sr_failed(struct reis_rx *rx, int err, const struct reis_cpl *cpl,
			   uint8_t opcode)
{
	(void)cpl;
	(void)opcode;
	reis_sr_finish(SR_OF(rx), err);
}

/* The handle closed under it: its buffers go, no callback (reis_close()). */
static void reis_sr_dropped(struct reis_rx *rx)
{
	struct reis_search_req *sr = SR_OF(rx);

	free(sr->payload);
	sr->payload = NULL;
	free(sr->blob);
	sr->blob = NULL;
	sr->err = -ECANCELED;
	memset(&sr->cpl, 0, sizeof(sr->cpl));
	sr->cpl.err = -ECANCELED;
	sr->res.host_ns = reis__now_ns() - sr->submit_ns;
	sr->state = REIS_SR_DONE;
}

static const struct reis_rx_ops reis_sr_ops = {
	.account = reis_sr_account,
	.retry = reis_sr_retry,
	.cmd_error = reis_sr_cmd_error,
	.submit_error = reis_sr_submit_error,
	.accepted = reis_sr_accepted,
	.buf = reis_sr_buf,
	.chunk = reis_sr_chunk,
	.complete = reis_sr_complete,
	.finish = reis_sr_failed,
	.drop = reis_sr_dropped,
};

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
	sr->state = REIS_SR_SEARCH;
	sr->submit_ns = reis__now_ns();
	reis_prep_cmd(&sr->req, opcode, sr->payload, sr->payload_len);
	sr->rx.dev = dev;
	sr->rx.req = &sr->req;
	sr->rx.ops = &reis_sr_ops;
	sr->rx.max_collisions = REIS_TICKET_RETRIES;
	sr->rx.chunk = dev->max_xfer;
	sr->rx.flags = REIS_RX_RELEASE_ALWAYS;
	ret = reis__rx_start(&sr->rx);
	sr->ticket = sr->rx.ticket;
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
	char msg[REIS_MSG_LEN];
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
