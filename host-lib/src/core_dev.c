/* SPDX-License-Identifier: MIT */
/*
 * core_dev.c - handles and the request life cycle shared by every transport:
 * open/clone/close, request checks, submission, reaping, completion decoding
 * and callbacks, the synchronous wrappers' bookkeeping.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/nvme_ioctl.h>

#include "isp_wire.h"
#include "core_priv.h"

/* The public mirrors of the wire values must not drift. */
_Static_assert((int)REIS_OP_NOOP == (int)ISP_OP_NOOP, "opcode");
_Static_assert((int)REIS_OP_ECHO_H2C == (int)ISP_OP_ECHO_H2C, "opcode");
_Static_assert((int)REIS_OP_IDENTIFY == (int)ISP_OP_IDENTIFY, "opcode");
_Static_assert((int)REIS_OP_ECHO_C2H == (int)ISP_OP_ECHO_C2H, "opcode");
_Static_assert((int)REIS_OP_STATS == (int)ISP_OP_STATS, "opcode");
_Static_assert(REIS_SC_INVALID_OPCODE == ISP_SC_INVALID_OPCODE, "status");
_Static_assert(REIS_SC_INVALID_FIELD == ISP_SC_INVALID_FIELD, "status");
_Static_assert(REIS_SC_DATA_XFER_ERROR == ISP_SC_DATA_XFER_ERROR, "status");
_Static_assert(REIS_SC_INTERNAL == ISP_SC_INTERNAL, "status");
_Static_assert(REIS_SC_INVALID_NSID == ISP_SC_INVALID_NSID, "status");
_Static_assert(REIS_SC_CAP_EXCEEDED == ISP_SC_CAP_EXCEEDED, "status");
_Static_assert(REIS_SC_UNKNOWN_ID == ISP_SC_UNKNOWN_ID, "status");
_Static_assert(REIS_SC_ID_EXISTS == ISP_SC_ID_EXISTS, "status");
_Static_assert(REIS_SC_BUSY == ISP_SC_BUSY, "status");
_Static_assert(REIS_SC_DIM_MISMATCH == ISP_SC_DIM_MISMATCH, "status");
_Static_assert(REIS_SC_BAD_OFFSET == ISP_SC_BAD_OFFSET, "status");
_Static_assert(REIS_SC_INCOMPLETE == ISP_SC_INCOMPLETE, "status");
_Static_assert(REIS_SC_BAD_PAYLOAD == ISP_SC_BAD_PAYLOAD, "status");
_Static_assert(REIS_SC_MISCOMPARE == ISP_SC_MISCOMPARE, "status");
_Static_assert(REIS_SC_RESOURCE == ISP_SC_RESOURCE, "status");
_Static_assert(REIS_SC_TICKET_IN_USE == ISP_SC_TICKET_IN_USE, "status");
_Static_assert(REIS_STATUS_DNR == ISP_STATUS_DNR, "status");
_Static_assert(REIS_STATUS_MORE == ISP_STATUS_MORE, "status");
_Static_assert(REIS_MAX_XFER_CAP == ISP_MAX_XFER_CAP, "max_xfer");
_Static_assert(REIS_IDENTIFY_LEN == sizeof(struct isp_wire_identify), "identify");
_Static_assert(REIS_STATS_LEN == sizeof(struct isp_wire_stats), "stats");
_Static_assert(REIS_STATS_RESET == ISP_STATS_RESET, "stats flag");
_Static_assert(REIS_MAX_PARTS == ISP_WIRE_MAX_PARTS, "partitions");
_Static_assert(REIS_PRESET_LEN == ISP_PRESET_NAME_LEN, "preset name");
_Static_assert((int)REIS_CLS_N == (int)ISP_CLS_N, "command classes");
_Static_assert((int)REIS_RES_N == (int)ISP_RES_NCLASSES, "resource classes");
_Static_assert((int)REIS_CAP_RECFLASH_CACHE == (int)ISP_CAP_RECFLASH_CACHE, "caps");
_Static_assert((int)REIS_CAP_REIS_TAGS == (int)ISP_CAP_REIS_TAGS, "caps");
_Static_assert((int)REIS_CAP_REIS_META == (int)ISP_CAP_REIS_META, "caps");

/* Completions fetched from a transport per call. */
#define REIS_REAP_BATCH 32u

uint64_t reis__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t reis__deadline(int timeout_ms)
{
	if (timeout_ms < 0)
		return UINT64_MAX;
	return reis__now_ns() + (uint64_t)timeout_ms * 1000000u;
}

/* Milliseconds left until @deadline, rounded up; -1 for none. */
static int reis_ms_left(uint64_t deadline)
{
	uint64_t now, left;

	if (deadline == UINT64_MAX)
		return -1;
	now = reis__now_ns();
	if (now >= deadline)
		return 0;
	left = (deadline - now + 999999u) / 1000000u;
	return left > INT_MAX ? INT_MAX : (int)left;
}

int reis__seterr(struct reis_dev *dev, int err, const char *fmt, ...)
{
	va_list ap;

	if (dev) {
		va_start(ap, fmt);
		vsnprintf(dev->errmsg, sizeof(dev->errmsg), fmt, ap);
		va_end(ap);
	}
	return err;
}

struct reis_dev *reis__dev_alloc(const struct reis_be_ops *ops, const char *path,
				 uint32_t qdepth)
{
	struct reis_dev *dev = calloc(1, sizeof(*dev));

	if (!dev)
		return NULL;
	dev->ops = ops;
	dev->fd = -1;
	dev->qdepth = qdepth ? qdepth : REIS_QDEPTH_DEFAULT;
	dev->max_xfer = REIS_IDENTIFY_LEN;
	dev->xfer_cap = REIS_MAX_XFER_CAP;
	snprintf(dev->path, sizeof(dev->path), "%s", path);
	return dev;
}

void reis__dev_free(struct reis_dev *dev)
{
	if (!dev)
		return;
	if (dev->fd >= 0)
		close(dev->fd);
	free(dev);
}

/* ---------------------------------------------------------------------- */
/* Submission                                                              */
/* ---------------------------------------------------------------------- */

static int reis_check_req(struct reis_dev *dev, struct reis_req *req)
{
	const struct reis_cmd *c = &req->cmd;
	enum reis_dir dir = reis_opcode_dir(c->opcode);

	if (req->priv.state == REIS_REQ_INFLIGHT)
		return reis__seterr(dev, -EBUSY, "submit: request %p already in flight",
				    (void *)req);
	if (req->data_len > dev->max_xfer)
		return reis__seterr(dev, -EINVAL, "submit: data_len %u exceeds max_xfer %u",
				    req->data_len, dev->max_xfer);
	if (req->data_len % 4u)
		return reis__seterr(dev, -EINVAL,
				    "submit: data_len %u is not a multiple of 4",
				    req->data_len);
	if (req->data_len && !req->data)
		return reis__seterr(dev, -EINVAL, "submit: data_len %u without a buffer",
				    req->data_len);
	if (req->flags & ~REIS_REQ_F_RAW)
		return reis__seterr(dev, -EINVAL, "submit: unknown flags 0x%x",
				    req->flags);
	if (req->flags & REIS_REQ_F_RAW)
		return 0;
	if (dir == REIS_DIR_BIDI)
		return reis__seterr(dev, -EINVAL,
				    "submit: opcode 0x%02x is bidirectional", c->opcode);
	if (dir == REIS_DIR_NONE && req->data_len)
		return reis__seterr(dev, -EINVAL,
				    "submit: opcode 0x%02x carries no data", c->opcode);
	if (dir != REIS_DIR_NONE && !req->data_len)
		return reis__seterr(dev, -EINVAL,
				    "submit: opcode 0x%02x needs data", c->opcode);
	if (c->cdw10 != req->data_len / 4u)
		return reis__seterr(dev, -EINVAL,
				    "submit: NDT %u does not match data_len %u",
				    c->cdw10, req->data_len);
	if (c->cdw11 || c->flags)
		return reis__seterr(dev, -EINVAL,
				    "submit: NDM and flags must be 0");
	return 0;
}

/* Check, stamp and queue one request; no flush. */
static int reis_queue_one(struct reis_dev *dev, struct reis_req *req)
{
	int ret;

	if (!req)
		return reis__seterr(dev, -EINVAL, "submit: NULL request");
	ret = reis_check_req(dev, req);
	if (ret)
		return ret;
	if (dev->inflight >= dev->qdepth)
		return reis__seterr(dev, -EBUSY, "submit: %u requests in flight (qdepth)",
				    dev->inflight);
	if (!req->cmd.nsid)
		req->cmd.nsid = dev->nsid;
	memset(&req->cpl, 0, sizeof(req->cpl));
	req->priv.dev = dev;
	req->priv.next = NULL;
	req->priv.due_ns = 0;
	req->priv.state = REIS_REQ_INFLIGHT;
	req->priv.submit_ns = reis__now_ns();
	ret = dev->ops->submit(dev, req);
	if (ret) {
		req->priv.state = REIS_REQ_IDLE;
		return reis__seterr(dev, ret, "submit: %s: %s", dev->ops->name,
				    reis_strerror(ret));
	}
	dev->inflight++;
	return 0;
}

static int reis_flush(struct reis_dev *dev)
{
	int ret;

	if (!dev->ops->flush)
		return 0;
	ret = dev->ops->flush(dev);
	if (ret < 0)
		return reis__seterr(dev, ret, "submit: %s: %s", dev->ops->name,
				    reis_strerror(ret));
	return 0;
}

int reis_submit(struct reis_dev *dev, struct reis_req *req)
{
	int ret;

	if (!dev)
		return -EINVAL;
	ret = reis_queue_one(dev, req);
	if (ret)
		return ret;
	/* The request is queued; a failed flush is retried by the next reap. */
	reis_flush(dev);
	return 0;
}

int reis_submitv(struct reis_dev *dev, struct reis_req *const *reqs, unsigned n)
{
	unsigned i;
	int ret = 0;

	if (!dev || (!reqs && n))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		ret = reis_queue_one(dev, reqs[i]);
		if (ret)
			break;
	}
	if (i)
		reis_flush(dev);
	return i ? (int)i : ret;
}

/* ---------------------------------------------------------------------- */
/* Completion                                                              */
/* ---------------------------------------------------------------------- */

static void reis_complete(struct reis_dev *dev, struct reis_req *req, int run_cb)
{
	struct reis_cpl *cpl = &req->cpl;

	cpl->host_ns = reis__now_ns() - req->priv.submit_ns;
	cpl->time_ns = isp_wire_result_time_ns(cpl->result);
	cpl->energy_nj = isp_wire_result_energy_nj(cpl->result);
	if (!cpl->err && cpl->status)
		cpl->err = reis_status_errno(cpl->status);
	req->priv.state = REIS_REQ_DONE;
	req->priv.next = NULL;
	dev->inflight--;
	if (run_cb && req->cb) {
		dev->in_cb++;
		req->cb(req, req->cb_arg);
		dev->in_cb--;
	} else if (!run_cb && dev->drop) {
		dev->drop(req);	/* closing: a search or SLS ends here */
	}
}

/*
 * Reap at least @min (capped to what is in flight) and at most @max
 * completions (0: no limit beyond what is ready).
 */
static int reis_reap(struct reis_dev *dev, unsigned min, unsigned max,
		     int timeout_ms, int run_cb)
{
	struct reis_req *done[REIS_REAP_BATCH];
	uint64_t deadline = reis__deadline(timeout_ms);
	unsigned got = 0;
	int ret, i;

	if (min > dev->inflight)
		min = dev->inflight;
	if (!max)
		max = UINT_MAX;
	if (min > max)
		min = max;
	reis_flush(dev);
	for (;;) {
		unsigned want_min = min > got ? min - got : 0;
		unsigned want_max = max - got;
		int tmo = want_min ? reis_ms_left(deadline) : 0;

		if (!dev->inflight || got >= max)
			break;
		if (want_min > REIS_REAP_BATCH)
			want_min = REIS_REAP_BATCH;
		if (want_max > REIS_REAP_BATCH)
			want_max = REIS_REAP_BATCH;
		ret = dev->ops->reap(dev, want_min, want_max, tmo, done);
		if (ret == -EINTR)
			continue;
		if (ret == -ETIME || ret == -EAGAIN)
			ret = 0;
		if (ret < 0)
			return got ? (int)got : reis__seterr(dev, ret, "reap: %s: %s",
							    dev->ops->name,
							    reis_strerror(ret));
		for (i = 0; i < ret; i++)
			reis_complete(dev, done[i], run_cb);
		got += (unsigned)ret;
		if (got >= min && (unsigned)ret < want_max)
			break;	/* nothing more ready */
		if (got < min && !ret && tmo == 0)
			break;	/* timed out */
		if (got < min && !ret && tmo < 0)
			return got ? (int)got : reis__seterr(dev, -EIO, "reap: %s returned "
							    "nothing from an unbounded wait",
							    dev->ops->name);
	}
	if (got < min && !got)
		return -ETIME;
	return (int)got;
}

int reis_poll(struct reis_dev *dev, unsigned max)
{
	if (!dev)
		return -EINVAL;
	return reis_reap(dev, 0, max, 0, 1);
}

int reis_wait(struct reis_dev *dev, unsigned min, int timeout_ms)
{
	if (!dev)
		return -EINVAL;
	if (dev->in_cb)
		return -EDEADLK;
	return reis_reap(dev, min, 0, timeout_ms, 1);
}

int reis_wait_req(struct reis_dev *dev, struct reis_req *req, int timeout_ms)
{
	uint64_t deadline = reis__deadline(timeout_ms);
	int ret;

	if (!dev || !req || req->priv.dev != dev || req->priv.state == REIS_REQ_IDLE)
		return -EINVAL;
	if (dev->in_cb && req->priv.state == REIS_REQ_INFLIGHT)
		return -EDEADLK;
	while (req->priv.state == REIS_REQ_INFLIGHT) {
		ret = reis_reap(dev, 1, 0, reis_ms_left(deadline), 1);
		if (ret < 0)
			return ret;
	}
	return req->cpl.err;
}

unsigned reis_inflight(const struct reis_dev *dev)
{
	return dev ? dev->inflight : 0;
}

int reis_exec(struct reis_dev *dev, struct reis_req *req)
{
	char msg[REIS_ERRMSG_LEN];
	int ret;

	if (!dev || !req)
		return -EINVAL;
	if (dev->in_cb)
		return reis__seterr(dev, -EDEADLK, "exec: called from a callback");
	ret = reis_submit(dev, req);
	if (ret) {
		memset(&dev->last, 0, sizeof(dev->last));
		dev->last.err = ret;
		return ret;
	}
	ret = reis_wait_req(dev, req, -1);
	dev->last = req->cpl;
	if (ret)
		reis__seterr(dev, ret, "%s", reis__req_errmsg(dev, req, msg, sizeof(msg)));
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Handles                                                                 */
/* ---------------------------------------------------------------------- */

static void reis_drain(struct reis_dev *dev)
{
	while (dev->inflight) {
		if (reis_reap(dev, dev->inflight, 0, -1, 0) <= 0)
			break;
	}
}

void reis_close(struct reis_dev *dev)
{
	if (!dev)
		return;
	reis_drain(dev);
	if (dev->ops && dev->be)
		dev->ops->close(dev);
	reis__dev_free(dev);
}

int reis_clone(struct reis_dev *dev, struct reis_dev **out)
{
	struct reis_dev *nd;
	int ret;

	if (!dev || !out)
		return -EINVAL;
	*out = NULL;
	nd = reis__dev_alloc(dev->ops, dev->path, dev->qdepth);
	if (!nd)
		return -ENOMEM;
	nd->open_flags = dev->open_flags;
	nd->nsid = dev->nsid;
	if (dev->fd >= 0) {
		nd->fd = open(dev->path, O_RDWR | O_CLOEXEC);
		if (nd->fd < 0) {
			ret = -errno;
			goto fail;
		}
	}
	ret = dev->ops->clone(dev, nd);
	if (ret)
		goto fail;
	nd->info = dev->info;
	nd->have_info = dev->have_info;
	nd->max_xfer = dev->max_xfer;
	nd->xfer_cap = dev->xfer_cap;
	*out = nd;
	return 0;
fail:
	reis__dev_free(nd);
	return ret;
}

const char *reis_transport(const struct reis_dev *dev)
{
	return dev ? dev->ops->name : "";
}

const char *reis_path(const struct reis_dev *dev)
{
	return dev ? dev->path : "";
}

uint32_t reis_max_xfer(const struct reis_dev *dev)
{
	return dev ? dev->max_xfer : 0;
}

uint32_t reis_qdepth(const struct reis_dev *dev)
{
	return dev ? dev->qdepth : 0;
}

const struct reis_info *reis_dev_info(const struct reis_dev *dev)
{
	return dev ? &dev->info : NULL;
}

const struct reis_cpl *reis_last_cpl(const struct reis_dev *dev)
{
	return dev ? &dev->last : NULL;
}

const char *reis_last_error(const struct reis_dev *dev)
{
	return dev ? dev->errmsg : "";
}

const char *reis_version(void)
{
#define REIS_STR2(x) #x
#define REIS_STR(x) REIS_STR2(x)
	return REIS_STR(REIS_VERSION_MAJOR) "." REIS_STR(REIS_VERSION_MINOR) "."
	       REIS_STR(REIS_VERSION_PATCH);
}
