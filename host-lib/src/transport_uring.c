/* SPDX-License-Identifier: MIT */
/*
 * transport_uring.c - io_uring NVMe passthrough, the default transport.
 *
 * The ring uses 128-byte SQEs (the 80-byte command area holds a struct
 * nvme_uring_cmd) and 32-byte CQEs (big_cqe[0] carries the 64-bit command
 * result, DW0 | DW1 << 32). Every SQE is IORING_OP_URING_CMD with cmd_op
 * NVME_URING_CMD_IO on the /dev/ngXnY descriptor; user_data points at the
 * struct reis_req. cqe->res is a negative errno when the kernel failed the
 * command, a positive NVMe status field when the drive did, 0 on success.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core_priv.h"

#ifndef REIS_NO_URING

#include <liburing.h>
#include <linux/nvme_ioctl.h>

_Static_assert(sizeof(struct nvme_uring_cmd) <= 80, "fits the SQE128 command area");

struct uring_be {
	struct io_uring ring;
	unsigned queued;		/* SQEs not yet handed to the kernel */
};

static int uring_open(struct reis_dev *dev, const char *path, const void *arg)
{
	struct io_uring_params p;
	struct uring_be *u;
	int ret;

	(void)path;
	(void)arg;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
	ret = io_uring_queue_init_params(dev->qdepth, &u->ring, &p);
	if (ret < 0) {
		free(u);
		return ret;
	}
	dev->be = u;
	return 0;
}

static int uring_clone(struct reis_dev *dev, struct reis_dev *out)
{
	return uring_open(out, dev->path, NULL);
}

static void uring_close(struct reis_dev *dev)
{
	struct uring_be *u = dev->be;

	io_uring_queue_exit(&u->ring);
	free(u);
	dev->be = NULL;
}

static int uring_flush(struct reis_dev *dev)
{
	struct uring_be *u = dev->be;
	int ret;

	if (!u->queued)
		return 0;
	ret = io_uring_submit(&u->ring);
	if (ret < 0)
		return ret;
	u->queued = (unsigned)ret >= u->queued ? 0 : u->queued - (unsigned)ret;
	return ret;
}

static int uring_submit(struct reis_dev *dev, struct reis_req *req)
{
	struct uring_be *u = dev->be;
	struct nvme_uring_cmd *nc;
	struct io_uring_sqe *sqe;

	sqe = io_uring_get_sqe(&u->ring);
	if (!sqe) {
		/* The core bounds in-flight requests by the ring size. */
		uring_flush(dev);
		sqe = io_uring_get_sqe(&u->ring);
		if (!sqe)
			return -EBUSY;
	}
	memset(sqe, 0, 2 * sizeof(*sqe));	/* SQE128: two slots */
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = dev->fd;
	sqe->cmd_op = NVME_URING_CMD_IO;
	sqe->user_data = (uint64_t)(uintptr_t)req;

	nc = (struct nvme_uring_cmd *)(void *)sqe->cmd;
	nc->opcode = req->cmd.opcode;
	nc->flags = req->cmd.flags;
	nc->nsid = req->cmd.nsid;
	nc->cdw2 = req->cmd.cdw2;
	nc->cdw3 = req->cmd.cdw3;
	nc->addr = (uint64_t)(uintptr_t)req->data;
	nc->data_len = req->data_len;
	nc->cdw10 = req->cmd.cdw10;
	nc->cdw11 = req->cmd.cdw11;
	nc->cdw12 = req->cmd.cdw12;
	nc->cdw13 = req->cmd.cdw13;
	nc->cdw14 = req->cmd.cdw14;
	nc->cdw15 = req->cmd.cdw15;
	u->queued++;
	return 0;
}

static void uring_fill(struct io_uring_cqe *cqe, struct reis_req *req)
{
	req->cpl.result = cqe->big_cqe[0];
	if (cqe->res < 0) {
		req->cpl.err = cqe->res;
		req->cpl.status = 0;
	} else {
		req->cpl.err = 0;
		/* The kernel passes the status field without the phase bit. */
		req->cpl.status = (uint16_t)(cqe->res & 0xffff);
	}
}

static int uring_reap(struct reis_dev *dev, unsigned min, unsigned max,
		      int timeout_ms, struct reis_req **out)
{
	struct uring_be *u = dev->be;
	uint64_t deadline = reis__deadline(timeout_ms);
	struct io_uring_cqe *cqe;
	unsigned n = 0;
	int ret;

	if (u->queued) {
		ret = uring_flush(dev);
		if (ret < 0 && ret != -EBUSY && ret != -EAGAIN)
			return ret;
	}
	while (n < max) {
		if (n >= min) {
			ret = io_uring_peek_cqe(&u->ring, &cqe);
		} else if (timeout_ms < 0) {
			ret = io_uring_wait_cqe(&u->ring, &cqe);
		} else {
			uint64_t now = reis__now_ns();
			struct __kernel_timespec ts;
			uint64_t left = now < deadline ? deadline - now : 0;

			ts.tv_sec = (long long)(left / 1000000000u);
			ts.tv_nsec = (long long)(left % 1000000000u);
			ret = left ? io_uring_wait_cqe_timeout(&u->ring, &cqe, &ts)
				   : io_uring_peek_cqe(&u->ring, &cqe);
		}
		if (ret == -EINTR)
			continue;
		if (ret == -EAGAIN || ret == -ETIME)
			break;
		if (ret < 0)
			return n ? (int)n : ret;
		if (!cqe->user_data) {
			/* Not ours (liburing's internal timeout). */
			io_uring_cqe_seen(&u->ring, cqe);
			continue;
		}
		out[n] = (struct reis_req *)(uintptr_t)cqe->user_data;
		uring_fill(cqe, out[n]);
		io_uring_cqe_seen(&u->ring, cqe);
		n++;
	}
	return (int)n;
}

/* Admin commands are rare here (the standard path's set-up): the ioctl. */
static int uring_admin(struct reis_dev *dev, const struct reis_cmd *cmd, void *data,
		       uint32_t len, struct reis_cpl *cpl)
{
	return reis__admin_ioctl(dev->fd, cmd, data, len, cpl);
}

const struct reis_be_ops reis__be_uring = {
	.name = "io_uring",
	.open = uring_open,
	.clone = uring_clone,
	.close = uring_close,
	.submit = uring_submit,
	.flush = uring_flush,
	.reap = uring_reap,
	.admin = uring_admin,
};

#else /* REIS_NO_URING */

static int uring_nosys(struct reis_dev *dev, const char *path, const void *arg)
{
	(void)dev; (void)path; (void)arg;
	return -ENOSYS;
}

const struct reis_be_ops reis__be_uring = {
	.name = "io_uring",
	.open = uring_nosys,
};

#endif /* REIS_NO_URING */
