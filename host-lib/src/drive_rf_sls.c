/* SPDX-License-Identifier: MIT */
/*
 * drive_rf_sls.c - SLS batches (command-set.md §5 and §6): split a batch by
 * bags into commands that fit max_xfer and the result memory; each command
 * is one run of the results machine (core_result.c: under a ticket, read
 * back in chunks, released), whose result this file checks and scatters
 * into the caller's buffer before starting the next part.
 *
 * An asynchronous operation advances whenever the handle is reaped. The
 * synchronous call keeps several operations in flight and retries those
 * refused for a full result table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "isp_wire.h"
#include "core_priv.h"
#include "drive_rf_priv.h"

#define RF_RES_HDR (sizeof(struct isp_wire_result_hdr) + sizeof(struct isp_wire_rf_result))
#define RF_SLS_HDR sizeof(struct isp_wire_rf_sls)
#define RF_TICKET_RETRIES 16u
#define RF_RESULT_CAP (4u << 20)	/* result bytes per command at most */
#define RF_SYNC_WINDOW 8u		/* operations in flight in reis_rf_sls() */
#define RF_EAGAIN_MS 10000		/* how long a full result table is retried */

enum { RF_IDLE = 0, RF_INFLIGHT = 1, RF_DONE = 2 };

struct rf_sls_priv {
	struct reis_rx rx;		/* first: rx is the priv */
	struct reis_dev *dev;
	struct reis_rf_sls_op *op;
	struct reis_req req;
	uint8_t *payload;
	uint32_t payload_cap, payload_len;
	uint8_t *rbuf;
	uint32_t rbuf_len;
	uint32_t max_xfer;
	uint64_t max_result;
	uint32_t p0, p1;		/* bags of the current command */
	uint64_t t0;
	char msg[REIS_ERRMSG_LEN];	/* the failed command's message, with the drive's reason */
};

static inline uint32_t rf_wmul(uint32_t flags)
{
	return flags & ISP_RF_SLS_WEIGHTED ? 2u : 1u;
}

/*
 * Structure of a batch whose offsets may start anywhere (internal views of
 * a larger batch): ascending, no empty bag, nidx consistent.
 */
static int rf_bags_shape(const struct reis_rf_bags *b, uint32_t flags, const char **why)
{
	uint32_t i;

	if (!b || !b->nbags || !b->offsets || !b->indices) {
		*why = "no bags, offsets or indices";
		return -EINVAL;
	}
	if ((flags & ISP_RF_SLS_WEIGHTED) && !b->weights) {
		*why = "weighted SLS without weights";
		return -EINVAL;
	}
	if (!(flags & ISP_RF_SLS_WEIGHTED) && b->weights) {
		*why = "weights given without REIS_RF_SLS_WEIGHTED";
		return -EINVAL;
	}
	for (i = 0; i < b->nbags; i++)
		if (b->offsets[i + 1] <= b->offsets[i]) {
			*why = b->offsets[i + 1] == b->offsets[i] ? "empty bag" :
			       "offsets not ascending";
			return -EINVAL;
		}
	if (b->offsets[b->nbags] - b->offsets[0] != b->nidx) {
		*why = "offsets[nbags] - offsets[0] differs from nidx";
		return -EINVAL;
	}
	return 0;
}

int reis_rf_bags_check(const struct reis_rf_bags *b, uint32_t flags, uint32_t rows,
		       const char **why)
{
	const char *dummy;
	uint32_t i;
	int ret;

	if (!why)
		why = &dummy;
	*why = "";
	if (flags & ~(ISP_RF_SLS_WEIGHTED | ISP_RF_SLS_MEAN | ISP_RF_SLS_NO_CACHE)) {
		*why = "unknown SLS flags";
		return -EINVAL;
	}
	if (b && b->offsets && b->nbags && b->offsets[0] != 0) {
		*why = "offsets[0] is not 0";
		return -EINVAL;
	}
	ret = rf_bags_shape(b, flags, why);
	if (ret)
		return ret;
	if (rows)
		for (i = 0; i < b->nidx; i++)
			if (b->indices[i] >= rows) {
				*why = "row index out of range";
				return -ERANGE;
			}
	return 0;
}

static uint64_t rf_payload_bytes(const struct reis_rf_bags *b, uint32_t flags,
				 uint32_t a, uint32_t e)
{
	return RF_SLS_HDR + 4ull * (e - a + 1) +
	       4ull * rf_wmul(flags) * (b->offsets[e] - b->offsets[a]);
}

/* Largest e > a such that bags [a, e) fit one command. */
static uint32_t rf_part_end(const struct reis_rf_bags *b, uint32_t flags, uint32_t dim,
			    uint32_t a, uint32_t max_xfer, uint64_t max_result)
{
	uint64_t pay = RF_SLS_HDR + 4, res = RF_RES_HDR;
	uint32_t e = a;

	while (e < b->nbags && e - a < ISP_RF_MAX_BAGS) {
		uint64_t np = pay + 4 + 4ull * rf_wmul(flags) *
			      (b->offsets[e + 1] - b->offsets[e]);
		uint64_t nr = res + 4ull * dim;

		if (e > a && (np > max_xfer || nr > max_result))
			break;
		pay = np;
		res = nr;
		e++;
	}
	return e;
}

static void rf_limits(const struct reis_dev *dev, uint32_t dim, uint32_t *xfer,
		      uint64_t *result)
{
	uint64_t r = dev->info.max_result_bytes / 16;

	if (!r || r > RF_RESULT_CAP)
		r = RF_RESULT_CAP;
	if (r < RF_RES_HDR + 4ull * dim)
		r = RF_RES_HDR + 4ull * dim;
	*xfer = dev->max_xfer;
	*result = r;
}

/* Every single bag must fit one command on its own. */
static int rf_fits(struct reis_dev *dev, const struct reis_rf_bags *b, uint32_t flags,
		   uint32_t max_xfer)
{
	uint32_t i;

	for (i = 0; i < b->nbags; i++)
		if (rf_payload_bytes(b, flags, i, i + 1) > max_xfer)
			return reis__seterr(dev, -EINVAL, "RF_SLS: bag %u has %u indices: "
					    "more than one command (max_xfer %u) carries",
					    i, b->offsets[i + 1] - b->offsets[i], max_xfer);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* The asynchronous operation                                              */
/* ---------------------------------------------------------------------- */

static void rf_build_payload(struct rf_sls_priv *p)
{
	const struct reis_rf_sls_op *op = p->op;
	const struct reis_rf_bags *b = &op->bags;
	struct isp_wire_rf_sls h;
	uint32_t base = b->offsets[p->p0], n = b->offsets[p->p1] - base, i;
	uint32_t *offs = (uint32_t *)(void *)(p->payload + RF_SLS_HDR);
	uint8_t *q;

	memset(&h, 0, sizeof(h));
	h.tid = op->tid;
	h.nbags = p->p1 - p->p0;
	h.nidx = n;
	h.flags = op->flags;
	h.dim = op->dim;
	memcpy(p->payload, &h, sizeof(h));
	for (i = p->p0; i <= p->p1; i++)
		offs[i - p->p0] = b->offsets[i] - base;
	q = (uint8_t *)(offs + h.nbags + 1);
	memcpy(q, b->indices + base, 4ull * n);
	if (op->flags & ISP_RF_SLS_WEIGHTED)
		memcpy(q + 4ull * n, b->weights + base, 4ull * n);
	p->payload_len = (uint32_t)rf_payload_bytes(b, op->flags, p->p0, p->p1);
}

/* Start the command for bags [p0, part end). */
static int rf_start_part(struct rf_sls_priv *p)
{
	const struct reis_rf_sls_op *op = p->op;

	p->p1 = rf_part_end(&op->bags, op->flags, op->dim, p->p0, p->max_xfer,
			    p->max_result);
	rf_build_payload(p);
	reis_prep_cmd(&p->req, ISP_OP_RF_SLS, p->payload, p->payload_len);
	return reis__rx_start(&p->rx);
}

static void rf_free_priv(struct rf_sls_priv *p)
{
	free(p->payload);
	free(p->rbuf);
	free(p);
}

static void rf_finish(struct rf_sls_priv *p, int err, const struct reis_cpl *cpl,
		      uint8_t opcode)
{
	struct reis_rf_sls_op *op = p->op;
	struct reis_dev *dev = p->dev;

	op->err = err;
	op->info.host_ns = reis__now_ns() - p->t0;
	if (err && cpl && p->msg[0]) {
		op->cpl = *cpl;
		dev->last = *cpl;
		reis__seterr(dev, err, "%s", p->msg);
	} else if (err && cpl && (cpl->status || cpl->err)) {
		char what[64];

		op->cpl = *cpl;
		snprintf(what, sizeof(what), "bags %u..%u", p->p0, p->p1 ? p->p1 - 1 : 0);
		reis__rf_cpl_err(dev, NULL, cpl, opcode, op->tid, what);
	} else if (err) {
		memset(&op->cpl, 0, sizeof(op->cpl));
		op->cpl.err = err;
		if (err != -EPROTO)
			reis__seterr(dev, err, "RF_SLS table %u: %s", op->tid,
				     reis_strerror(err));
	}
	op->priv = NULL;
	rf_free_priv(p);
	op->state = RF_DONE;
	if (op->cb)
		op->cb(op, op->cb_arg);
}

/* Check the headers at the start of a result and account them. */
static int rf_parse_head(struct rf_sls_priv *p)
{
	struct reis_rf_sls_op *op = p->op;
	struct reis_rf_sls_info *in = &op->info;
	struct isp_wire_result_hdr h;
	struct isp_wire_rf_result r;

	memcpy(&h, p->rbuf, sizeof(h));
	memcpy(&r, p->rbuf + sizeof(h), sizeof(r));
	if (memcmp(h.magic, "RSLT", 4) || h.kind != ISP_RESULT_SLS || h.ticket != p->rx.ticket ||
	    h.hdr_bytes != sizeof(r) || h.total_bytes != p->rx.total ||
	    r.nbags != p->p1 - p->p0 || r.dim != op->dim)
		return reis__seterr(p->dev, -EPROTO, "RF_SLS table %u: malformed result "
				    "(kind %u, ticket %u/%u, %llu bytes for %u bags of %u, "
				    "header says %u x %u)", op->tid, h.kind, h.ticket,
				    p->rx.ticket, (unsigned long long)h.total_bytes,
				    p->p1 - p->p0, op->dim, r.nbags, r.dim);
	if (!in->ncmds || r.generation < in->gen_min)
		in->gen_min = r.generation;
	if (!in->ncmds || r.generation > in->gen_max)
		in->gen_max = r.generation;
	in->lookups += r.lookups;
	in->page_reads += r.page_reads;
	in->cache_hits += r.cache_hits;
	in->cache_misses += r.cache_misses;
	in->bytes_sensed += r.bytes_sensed;
	in->bytes_useful += r.bytes_useful;
	in->bytes_out += r.bytes_out;
	in->flash_ns += r.flash_ns;
	in->flash_pj += r.flash_pj;
	in->model_ns += h.model_ns;
	in->energy_pj += h.energy_pj;
	return 0;
}

static void rf_scatter(struct rf_sls_priv *p)
{
	const struct reis_rf_sls_op *op = p->op;
	uint64_t lo = p->rx.off, hi = p->rx.off + p->rx.len;

	if (hi > p->rx.total)
		hi = p->rx.total;
	if (lo < RF_RES_HDR)
		lo = RF_RES_HDR;
	if (lo >= hi)
		return;
	memcpy((uint8_t *)op->out + 4ull * op->dim * p->p0 + (lo - RF_RES_HDR),
	       p->rbuf + (lo - p->rx.off), hi - lo);
}

/* Every completion: its time, and the last one's completion. */
static void rf_account(struct reis_rx *rx, const struct reis_req *req)
{
	struct reis_rf_sls_op *op = ((struct rf_sls_priv *)rx)->op;

	op->info.cmd_ns += req->cpl.time_ns;
	op->cpl = req->cpl;
}

static void rf_retry(struct reis_rx *rx)
{
	((struct rf_sls_priv *)rx)->op->info.retries++;
}

/* RF_SLS done: the result's size is known from the bags. */
static int rf_accepted(struct reis_rx *rx)
{
	struct rf_sls_priv *p = (struct rf_sls_priv *)rx;

	rx->total = RF_RES_HDR + 4ull * p->op->dim * (p->p1 - p->p0);
	rx->chunk = p->rbuf_len;
	rx->flags |= REIS_RX_KNOWN;
	return 0;
}

static void *rf_buf(struct reis_rx *rx)
{
	return ((struct rf_sls_priv *)rx)->rbuf;
}

static int rf_chunk(struct reis_rx *rx)
{
	struct rf_sls_priv *p = (struct rf_sls_priv *)rx;

	if (rx->off == 0 && rf_parse_head(p))
		return -EPROTO;
	rf_scatter(p);
	return 0;
}

/* One command's result is in: the next part, or done. */
static void rf_complete(struct reis_rx *rx)
{
	struct rf_sls_priv *p = (struct rf_sls_priv *)rx;
	struct reis_rf_sls_op *op = p->op;
	int ret;

	op->info.ncmds++;
	p->p0 = p->p1;
	if (p->p0 >= op->bags.nbags) {
		rf_finish(p, 0, NULL, ISP_OP_RF_SLS);
		return;
	}
	ret = rf_start_part(p);
	if (ret)
		rf_finish(p, ret, NULL, ISP_OP_RF_SLS);
}

/* A command failed: its message with the drive's reason, for rf_finish(). */
static void rf_cmd_error(struct reis_rx *rx, const struct reis_req *req)
{
	struct rf_sls_priv *p = (struct rf_sls_priv *)rx;
	char obj[64];

	snprintf(obj, sizeof(obj), " table %u bags %u..%u", p->op->tid, p->p0,
		 p->p1 ? p->p1 - 1 : 0);
	reis__req_errmsg_obj(p->dev, req, obj, p->msg, sizeof(p->msg));
}

static void rf_failed(struct reis_rx *rx, int err, const struct reis_cpl *cpl,
		      uint8_t opcode)
{
	rf_finish((struct rf_sls_priv *)rx, err, cpl, opcode);
}

/* The handle closed under it: its memory goes, no callback (reis_close()). */
static void rf_dropped(struct reis_rx *rx)
{
	struct rf_sls_priv *p = (struct rf_sls_priv *)rx;
	struct reis_rf_sls_op *op = p->op;

	op->err = -ECANCELED;
	memset(&op->cpl, 0, sizeof(op->cpl));
	op->cpl.err = -ECANCELED;
	op->info.host_ns = reis__now_ns() - p->t0;
	op->priv = NULL;
	rf_free_priv(p);
	op->state = RF_DONE;
}

static const struct reis_rx_ops rf_rx_ops = {
	.account = rf_account,
	.retry = rf_retry,
	.cmd_error = rf_cmd_error,
	.accepted = rf_accepted,
	.buf = rf_buf,
	.chunk = rf_chunk,
	.complete = rf_complete,
	.finish = rf_failed,
	.drop = rf_dropped,
};

/* Submit @op whose structure was checked; its offsets may start anywhere. */
static int rf_sls_submit_checked(struct reis_dev *dev, struct reis_rf_sls_op *op)
{
	struct rf_sls_priv *p;
	uint64_t maxpay = 0, maxres = 0;
	uint32_t a, e;
	int ret;

	p = calloc(1, sizeof(*p));
	if (!p)
		return reis__seterr(dev, -ENOMEM, "RF_SLS: out of memory");
	p->dev = dev;
	p->op = op;
	p->t0 = reis__now_ns();
	p->rx.dev = dev;
	p->rx.req = &p->req;
	p->rx.ops = &rf_rx_ops;
	p->rx.max_collisions = RF_TICKET_RETRIES;
	rf_limits(dev, op->dim, &p->max_xfer, &p->max_result);
	for (a = 0; a < op->bags.nbags; a = e) {
		uint64_t pay, res;

		e = rf_part_end(&op->bags, op->flags, op->dim, a, p->max_xfer, p->max_result);
		pay = rf_payload_bytes(&op->bags, op->flags, a, e);
		res = RF_RES_HDR + 4ull * op->dim * (e - a);
		if (pay > maxpay)
			maxpay = pay;
		if (res > maxres)
			maxres = res;
	}
	p->payload_cap = (uint32_t)maxpay;
	p->rbuf_len = maxres < p->max_xfer ? (uint32_t)maxres : p->max_xfer;
	p->payload = aligned_alloc(64, (p->payload_cap + 63) & ~63u);
	p->rbuf = aligned_alloc(64, (p->rbuf_len + 63) & ~63u);
	if (!p->payload || !p->rbuf) {
		rf_free_priv(p);
		return reis__seterr(dev, -ENOMEM, "RF_SLS: out of memory");
	}
	memset(&op->info, 0, sizeof(op->info));
	memset(&op->cpl, 0, sizeof(op->cpl));
	op->info.nbags = op->bags.nbags;
	op->info.dim = op->dim;
	op->err = 0;
	op->priv = p;
	op->state = RF_INFLIGHT;
	ret = rf_start_part(p);
	if (ret) {
		op->priv = NULL;
		op->state = RF_IDLE;
		rf_free_priv(p);
		return ret;
	}
	return 0;
}

static int rf_check_op(struct reis_dev *dev, const struct reis_rf_sls_op *op, int view)
{
	const char *why = "";
	uint32_t xfer;
	uint64_t res;
	int ret;

	if (op->state == RF_INFLIGHT)
		return reis__seterr(dev, -EBUSY, "RF_SLS: operation already in flight");
	if (!op->dim || op->dim > ISP_RF_MAX_DIM)
		return reis__seterr(dev, -EINVAL, "RF_SLS table %u: dim %u not in 1..%u",
				    op->tid, op->dim, ISP_RF_MAX_DIM);
	if (!op->out)
		return reis__seterr(dev, -EINVAL, "RF_SLS table %u: no output buffer",
				    op->tid);
	ret = view ? rf_bags_shape(&op->bags, op->flags, &why) :
	      reis_rf_bags_check(&op->bags, op->flags, 0, &why);
	if (ret)
		return reis__seterr(dev, ret, "RF_SLS table %u: %s", op->tid, why);
	rf_limits(dev, op->dim, &xfer, &res);
	return rf_fits(dev, &op->bags, op->flags, xfer);
}

int reis_rf_sls_submit(struct reis_dev *dev, struct reis_rf_sls_op *op)
{
	int ret;

	if (!dev || !op)
		return -EINVAL;
	ret = rf_check_op(dev, op, 0);
	if (ret)
		return ret;
	return rf_sls_submit_checked(dev, op);
}

int reis_rf_sls_wait(struct reis_dev *dev, struct reis_rf_sls_op *op, int timeout_ms)
{
	uint64_t deadline = reis__deadline(timeout_ms);
	int ret;

	if (!dev || !op || op->state == RF_IDLE)
		return -EINVAL;
	if (op->state == RF_INFLIGHT && dev->in_cb)
		return -EDEADLK;
	while (op->state == RF_INFLIGHT) {
		int ms = -1;

		if (deadline != UINT64_MAX) {
			uint64_t now = reis__now_ns();

			if (now >= deadline)
				return -ETIME;
			ms = (int)((deadline - now + 999999u) / 1000000u);
		}
		ret = reis_wait(dev, 1, ms);
		if (ret < 0 && ret != -EINTR && ret != -ETIME)
			return ret;
	}
	return op->err;
}

/* ---------------------------------------------------------------------- */
/* Synchronous SLS: several operations in flight                           */
/* ---------------------------------------------------------------------- */

static void rf_add_info(struct reis_rf_sls_info *s, const struct reis_rf_sls_info *a)
{
	if (a->ncmds) {
		if (!s->ncmds || a->gen_min < s->gen_min)
			s->gen_min = a->gen_min;
		if (!s->ncmds || a->gen_max > s->gen_max)
			s->gen_max = a->gen_max;
	}
	s->ncmds += a->ncmds;
	s->retries += a->retries;
	s->lookups += a->lookups;
	s->page_reads += a->page_reads;
	s->cache_hits += a->cache_hits;
	s->cache_misses += a->cache_misses;
	s->bytes_sensed += a->bytes_sensed;
	s->bytes_useful += a->bytes_useful;
	s->bytes_out += a->bytes_out;
	s->flash_ns += a->flash_ns;
	s->flash_pj += a->flash_pj;
	s->model_ns += a->model_ns;
	s->energy_pj += a->energy_pj;
	s->cmd_ns += a->cmd_ns;
}

/* One synchronous SLS: its parts (commands) and the first failure. */
struct rf_sync {
	struct reis_dev *dev;
	uint32_t tid, dim, flags;
	const struct reis_rf_bags *bags;
	float *out;
	struct reis_rf_sls_op *ops;
	uint32_t *starts;		/* first bag of each part, nparts + 1 */
	uint32_t nparts, next, active, window, retries;
	uint64_t again_deadline;
	int err;
	uint32_t err_part;
	struct reis_cpl err_cpl;
	char err_msg[REIS_ERRMSG_LEN];
};

/* Remember part @part's failure; the message is the handle's. */
static void rf_sync_err(struct rf_sync *s, uint32_t part, int err, const struct reis_cpl *cpl)
{
	s->err = err;
	s->err_part = part;
	s->err_cpl = *cpl;
	memcpy(s->err_msg, s->dev->errmsg, sizeof(s->err_msg));
}

/* Cut the batch into parts and size the window of parts in flight. */
static int rf_sync_plan(struct rf_sync *s)
{
	struct reis_dev *dev = s->dev;
	const struct reis_rf_bags *bags = s->bags;
	uint64_t res;
	uint32_t xfer, a;

	rf_limits(dev, s->dim, &xfer, &res);
	s->starts = malloc(((size_t)bags->nbags + 1) * sizeof(*s->starts));
	if (!s->starts)
		return reis__seterr(dev, -ENOMEM, "RF_SLS: out of memory");
	for (a = 0; a < bags->nbags; a = rf_part_end(bags, s->flags, s->dim, a, xfer, res))
		s->starts[s->nparts++] = a;
	s->starts[s->nparts] = bags->nbags;
	s->ops = calloc(s->nparts, sizeof(*s->ops));
	if (!s->ops) {
		free(s->starts);
		return reis__seterr(dev, -ENOMEM, "RF_SLS: out of memory");
	}
	s->window = RF_SYNC_WINDOW;
	if (s->window > dev->qdepth)
		s->window = dev->qdepth;
	if (dev->info.max_tickets && s->window > dev->info.max_tickets / 4 + 1)
		s->window = dev->info.max_tickets / 4 + 1;
	s->err_part = UINT32_MAX;
	return 0;
}

/* Resubmit parts the drive refused for a full result table, for at most
 * RF_EAGAIN_MS. */
static void rf_sync_resubmit(struct rf_sync *s)
{
	uint32_t i;
	int ret;

	for (i = 0; i < s->next && !s->err; i++) {
		struct reis_rf_sls_op *op = &s->ops[i];

		if (op->state != RF_DONE || op->err != -EAGAIN || s->active >= s->window)
			continue;
		if (!s->again_deadline)
			s->again_deadline = reis__now_ns() + RF_EAGAIN_MS * 1000000ull;
		if (reis__now_ns() > s->again_deadline)
			continue;
		if (!s->active)
			usleep(1000);	/* nothing of ours to free space */
		s->retries++;
		op->state = RF_IDLE;
		ret = rf_sls_submit_checked(s->dev, op);
		if (ret) {
			rf_sync_err(s, i, ret, &s->dev->last);
			op->state = RF_DONE;
			op->err = ret;
		} else {
			s->active++;
		}
	}
}

/* Start new parts while the window has room. */
static void rf_sync_start(struct rf_sync *s)
{
	int ret;

	while (!s->err && s->active < s->window && s->next < s->nparts) {
		const uint32_t *st = s->starts + s->next;
		struct reis_rf_bags v;

		v.nbags = st[1] - st[0];
		v.offsets = s->bags->offsets + st[0];
		v.nidx = v.offsets[v.nbags] - v.offsets[0];
		v.indices = s->bags->indices;
		v.weights = s->bags->weights;
		reis_rf_sls_op_init(&s->ops[s->next], s->tid, s->dim, &v, s->flags,
				    s->out + (size_t)s->dim * st[0]);
		ret = rf_sls_submit_checked(s->dev, &s->ops[s->next]);
		if (ret) {
			rf_sync_err(s, s->next, ret, &s->dev->last);
			break;
		}
		s->next++;
		s->active++;
	}
}

/* After a reap: parts still in flight; the earliest failed part's error. */
static void rf_sync_count(struct rf_sync *s)
{
	uint32_t i;

	s->active = 0;
	for (i = 0; i < s->next; i++) {
		const struct reis_rf_sls_op *op = &s->ops[i];

		if (op->state == RF_INFLIGHT) {
			s->active++;
			continue;
		}
		if (op->state == RF_DONE && op->err && op->err != -EAGAIN && i < s->err_part)
			rf_sync_err(s, i, op->err, &op->cpl);
	}
}

/* Sum the parts' costs; a part still refused is the error. */
static void rf_sync_sum(struct rf_sync *s, struct reis_rf_sls_info *sum)
{
	uint32_t i;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < s->next; i++) {
		rf_add_info(sum, &s->ops[i].info);
		if (!s->err && s->ops[i].err) {
			s->err = s->ops[i].err;	/* -EAGAIN that never got through */
			s->err_cpl = s->ops[i].cpl;
			reis__seterr(s->dev, s->err, "RF_SLS table %u: result memory stayed "
				     "full for %d ms", s->tid, RF_EAGAIN_MS);
			memcpy(s->err_msg, s->dev->errmsg, sizeof(s->err_msg));
		}
	}
	sum->nbags = s->bags->nbags;
	sum->dim = s->dim;
	sum->retries += s->retries;
}

int reis_rf_sls(struct reis_dev *dev, uint32_t tid, uint32_t dim,
		const struct reis_rf_bags *bags, uint32_t flags, float *out,
		struct reis_rf_sls_info *info)
{
	struct reis_rf_sls_op probe;
	struct reis_rf_sls_info sum;
	struct rf_sync s;
	uint64_t t0 = reis__now_ns();
	int ret;

	if (!dev)
		return -EINVAL;
	if (dev->in_cb)
		return reis__seterr(dev, -EDEADLK, "RF_SLS: called from a callback");
	reis_rf_sls_op_init(&probe, tid, dim, bags, flags, out);
	if (!bags)
		return reis__seterr(dev, -EINVAL, "RF_SLS table %u: no bags", tid);
	ret = rf_check_op(dev, &probe, 0);
	if (ret)
		return ret;
	memset(&s, 0, sizeof(s));
	s.dev = dev;
	s.tid = tid;
	s.dim = dim;
	s.flags = flags;
	s.bags = bags;
	s.out = out;
	ret = rf_sync_plan(&s);
	if (ret)
		return ret;
	for (;;) {
		rf_sync_resubmit(&s);
		rf_sync_start(&s);
		if (!s.active)
			break;
		ret = reis_wait(dev, 1, -1);
		if (ret < 0 && ret != -EINTR && ret != -ETIME) {
			/* Transport broken: operations may still own buffers. */
			free(s.starts);
			return ret;
		}
		rf_sync_count(&s);
	}
	rf_sync_sum(&s, &sum);
	sum.host_ns = reis__now_ns() - t0;
	if (info)
		*info = sum;
	free(s.ops);
	free(s.starts);
	if (s.err) {
		dev->last = s.err_cpl;
		memcpy(dev->errmsg, s.err_msg, sizeof(s.err_msg));
		return s.err;
	}
	memset(&dev->last, 0, sizeof(dev->last));
	dev->last.time_ns = sum.cmd_ns;
	return 0;
}
