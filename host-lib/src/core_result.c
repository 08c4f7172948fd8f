/* SPDX-License-Identifier: MIT */
/*
 * core_result.c - the results protocol both engines share
 * (docs/command-set.md §6): tickets, RESULT_READ / RESULT_RELEASE, a whole
 * result fetched in chunks, TRACE_ARM. A REIS search and a RecFlash SLS both
 * leave their output under a ticket and come here for it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "isp_wire.h"
#include "core_mix.h"
#include "core_priv.h"

/* A result larger than this is refused as malformed (identify may lower). */
#define REIS_RESULT_MAX_BYTES (UINT64_C(1) << 32)

/* ---------------------------------------------------------------------- */
/* Tickets                                                                 */
/* ---------------------------------------------------------------------- */

uint32_t reis_ticket_new(void)
{
	static uint64_t fallback;
	uint32_t t = 0;

	while (!t) {
		if (getrandom(&t, sizeof(t), GRND_NONBLOCK) != (ssize_t)sizeof(t)) {
			/* No entropy syscall: mix time, pid and a counter. */
			uint64_t s = __atomic_add_fetch(&fallback, 1, __ATOMIC_RELAXED) ^
				     reis__now_ns() ^ ((uint64_t)getpid() << 32);

			t = (uint32_t)reis__splitmix(&s);
		}
	}
	return t;
}

uint32_t reis__ticket(struct reis_dev *dev)
{
	if (dev && dev->nforced) {
		dev->nforced--;
		return dev->forced_ticket;
	}
	return reis_ticket_new();
}

int reis_ticket_force(struct reis_dev *dev, uint32_t ticket, unsigned count)
{
	if (!dev || (count && !ticket))
		return -EINVAL;
	dev->forced_ticket = ticket;
	dev->nforced = count;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Result commands                                                         */
/* ---------------------------------------------------------------------- */

int reis_trace_arm(struct reis_dev *dev, uint32_t ticket, uint8_t opcode)
{
	if (dev && !ticket)
		return reis__seterr(dev, -EINVAL, "ISP_TRACE_ARM: ticket 0 is reserved");
	return reis__nodata(dev, REIS_OP_TRACE_ARM, ticket, opcode);
}

int reis_result_release(struct reis_dev *dev, uint32_t ticket)
{
	return reis__nodata(dev, ISP_OP_RESULT_RELEASE, ticket, 0);
}

int reis_result_read(struct reis_dev *dev, uint32_t ticket, uint64_t off, void *buf,
		     uint32_t len, int release)
{
	struct reis_req req;

	if (!dev || !buf || !len)
		return -EINVAL;
	reis_prep_cmd(&req, ISP_OP_RESULT_READ, buf, len);
	req.cmd.cdw12 = ticket;
	req.cmd.cdw13 = release ? ISP_RESULT_F_RELEASE : 0;
	req.cmd.cdw14 = (uint32_t)off;
	req.cmd.cdw15 = (uint32_t)(off >> 32);
	return reis_exec(dev, &req);
}

int reis_result_fetch(struct reis_dev *dev, uint32_t ticket, uint32_t kind,
		      void **blob, uint64_t *len)
{
	struct isp_wire_result_hdr h;
	uint64_t total, off, cap;
	uint32_t first;
	uint8_t *buf;
	int ret;

	if (!dev || !blob || !len)
		return -EINVAL;
	*blob = NULL;
	*len = 0;
	first = dev->max_xfer < 65536 ? dev->max_xfer : 65536;
	buf = malloc(first);
	if (!buf)
		return reis__seterr(dev, -ENOMEM, "result: out of memory");
	ret = reis_result_read(dev, ticket, 0, buf, first, 0);
	if (ret) {
		free(buf);
		return ret;
	}
	memcpy(&h, buf, sizeof(h));
	cap = dev->info.max_result_bytes ? dev->info.max_result_bytes : REIS_RESULT_MAX_BYTES;
	if (memcmp(h.magic, "RSLT", 4) || h.ticket != ticket || h.total_bytes < sizeof(h) ||
	    h.total_bytes > cap || (kind && h.kind != kind) || h.hdr_bytes > h.total_bytes) {
		free(buf);
		reis_result_release(dev, ticket);
		return reis__seterr(dev, -EPROTO, "RESULT_READ: ticket 0x%08x: malformed "
				    "header (magic, kind %u, ticket 0x%08x, %llu bytes)",
				    ticket, h.kind, h.ticket,
				    (unsigned long long)h.total_bytes);
	}
	total = h.total_bytes;
	if (total > first) {
		uint8_t *nb = realloc(buf, (total + 3) & ~UINT64_C(3));

		if (!nb) {
			free(buf);
			reis_result_release(dev, ticket);
			return reis__seterr(dev, -ENOMEM, "result: out of memory");
		}
		buf = nb;
		for (off = first; off < total; ) {
			uint32_t n = reis__read_len(dev, off, total);

			ret = reis_result_read(dev, ticket, off, buf + off, n, off + n >= total);
			if (ret) {
				free(buf);
				reis_result_release(dev, ticket);
				return ret;
			}
			off += n;
		}
	} else {
		ret = reis_result_release(dev, ticket);
		if (ret) {
			free(buf);
			return ret;
		}
	}
	*blob = buf;
	*len = total;
	return 0;
}


/* ---------------------------------------------------------------------- */
/* The results machine                                                     */
/* ---------------------------------------------------------------------- */

/*
 * One request, one command in flight: the command under a ticket, then
 * RESULT_READs at increasing offsets (the last one releasing), then the
 * engine's complete(). After a failure the ticket is released before
 * finish() so the drive's result table does not fill up. The request is
 * resubmitted from its own callback, so no free queue slot is needed there.
 */
enum { RX_CMD = 1, RX_READ, RX_RELEASE };

static void rx_cb(struct reis_req *req, void *arg);

static int rx_submit(struct reis_rx *rx)
{
	reis_req_set_cb(rx->req, rx_cb, rx);
	return reis_submit(rx->dev, rx->req);
}

/* Finish after a failed submission of the next command. */
static void rx_submit_failed(struct reis_rx *rx, int err, uint8_t opcode)
{
	if (rx->ops->submit_error)
		rx->ops->submit_error(rx, err);
	rx->ops->finish(rx, err, NULL, opcode);
}

static void rx_finish_failure(struct reis_rx *rx)
{
	const struct reis_cpl *c = &rx->fail_cpl;

	rx->ops->finish(rx, rx->fail_err, c->status || c->err ? c : NULL,
			(uint8_t)rx->fail_op);
}

/* Remember the failure; release the ticket unless @released, then finish. */
static void rx_fail(struct reis_rx *rx, int err, const struct reis_cpl *cpl, uint8_t opcode,
		    int released)
{
	int ret;

	rx->fail_err = err;
	rx->fail_op = opcode;
	if (cpl)
		rx->fail_cpl = *cpl;
	else
		memset(&rx->fail_cpl, 0, sizeof(rx->fail_cpl));
	if (released) {
		rx_finish_failure(rx);
		return;
	}
	rx->flags |= REIS_RX_FAILING;
	reis_prep_cmd(rx->req, ISP_OP_RESULT_RELEASE, NULL, 0);
	rx->req->cmd.cdw12 = rx->ticket;
	rx->phase = RX_RELEASE;
	ret = rx_submit(rx);
	if (ret) {
		if (rx->ops->submit_error)
			rx->ops->submit_error(rx, ret);
		rx_finish_failure(rx);
	}
}

static void rx_release(struct reis_rx *rx)
{
	int ret;

	reis_prep_cmd(rx->req, ISP_OP_RESULT_RELEASE, NULL, 0);
	rx->req->cmd.cdw12 = rx->ticket;
	rx->phase = RX_RELEASE;
	ret = rx_submit(rx);
	if (ret)
		rx_submit_failed(rx, ret, ISP_OP_RESULT_RELEASE);
}

/* The next RESULT_READ: whole dwords, at most rx->chunk, releasing when it
 * reaches the known end. */
static void rx_read(struct reis_rx *rx)
{
	uint64_t left = rx->total > rx->off ? rx->total - rx->off : 4;
	int release;
	void *buf;
	int ret;

	left = (left + 3) & ~UINT64_C(3);
	rx->len = left < rx->chunk ? (uint32_t)left : rx->chunk;
	release = (rx->flags & REIS_RX_KNOWN) && rx->off + rx->len >= rx->total;
	buf = rx->ops->buf(rx);
	reis_prep_cmd(rx->req, ISP_OP_RESULT_READ, buf, rx->len);
	rx->req->cmd.cdw12 = rx->ticket;
	rx->req->cmd.cdw13 = release ? ISP_RESULT_F_RELEASE : 0;
	rx->req->cmd.cdw14 = (uint32_t)rx->off;
	rx->req->cmd.cdw15 = (uint32_t)(rx->off >> 32);
	rx->phase = RX_READ;
	ret = rx_submit(rx);
	if (ret)
		rx_submit_failed(rx, ret, ISP_OP_RESULT_READ);
}

/* reis_close() reaped @req without its callback (dev->drop): if it is a
 * step of a results machine, that machine's drop(). */
static void rx_dropped(struct reis_req *req)
{
	struct reis_rx *rx = req->cb_arg;

	if (req->cb == rx_cb && rx->ops->drop)
		rx->ops->drop(rx);
}

int reis__rx_start(struct reis_rx *rx)
{
	rx->dev->drop = rx_dropped;
	rx->ticket = reis__ticket(rx->dev);
	rx->collisions = 0;
	rx->off = 0;
	rx->flags &= (uint16_t)~REIS_RX_FAILING;
	rx->phase = RX_CMD;
	rx->req->cmd.cdw12 = rx->ticket;
	return rx_submit(rx);
}

/* The command under the ticket completed. */
static void rx_cmd_done(struct reis_rx *rx, struct reis_req *req)
{
	const struct reis_cpl *c = &req->cpl;
	int ret;

	if ((c->status & REIS_STATUS_CODE_MASK) == ISP_SC_TICKET_IN_USE &&
	    rx->collisions < rx->max_collisions) {
		/* Someone holds this ticket: draw another. */
		rx->collisions++;
		rx->ticket = reis__ticket(rx->dev);
		req->cmd.cdw12 = rx->ticket;
		rx->ops->retry(rx);
		ret = rx_submit(rx);
		if (ret)
			rx_submit_failed(rx, ret, req->cmd.opcode);
		return;
	}
	if (c->err) {
		if (rx->ops->cmd_error)
			rx->ops->cmd_error(rx, req);
		rx->ops->finish(rx, c->err, c, req->cmd.opcode);
		return;
	}
	ret = rx->ops->accepted(rx);
	if (ret) {
		rx_fail(rx, ret, NULL, req->cmd.opcode, 0);
		return;
	}
	rx_read(rx);
}

static void rx_read_done(struct reis_rx *rx, struct reis_req *req)
{
	int released = !!(req->cmd.cdw13 & ISP_RESULT_F_RELEASE);
	int ret;

	if (req->cpl.err) {
		if (rx->ops->cmd_error)
			rx->ops->cmd_error(rx, req);
		rx_fail(rx, req->cpl.err, &req->cpl, ISP_OP_RESULT_READ,
			released && !(rx->flags & REIS_RX_RELEASE_ALWAYS));
		return;
	}
	ret = rx->ops->chunk(rx);
	if (ret) {
		rx_fail(rx, ret, NULL, ISP_OP_RESULT_READ, released);
		return;
	}
	rx->off += rx->len;
	if ((rx->flags & REIS_RX_KNOWN) && rx->off >= rx->total) {
		if (released)
			rx->ops->complete(rx);
		else
			rx_release(rx);
		return;
	}
	rx_read(rx);
}

static void rx_cb(struct reis_req *req, void *arg)
{
	struct reis_rx *rx = arg;

	if (rx->ops->account)
		rx->ops->account(rx, req);
	switch (rx->phase) {
	case RX_CMD:
		rx_cmd_done(rx, req);
		return;
	case RX_READ:
		rx_read_done(rx, req);
		return;
	default:
		if (req->cpl.err && rx->ops->cmd_error)
			rx->ops->cmd_error(rx, req);
		if (rx->flags & REIS_RX_FAILING)
			rx_finish_failure(rx);
		else if (req->cpl.err)
			rx->ops->finish(rx, req->cpl.err, &req->cpl, ISP_OP_RESULT_RELEASE);
		else
			rx->ops->complete(rx);
		return;
	}
}
