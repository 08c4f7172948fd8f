/* SPDX-License-Identifier: MIT */
/*
 * transport_ioctl.c - NVME_IOCTL_IO64_CMD passthrough, the fallback when
 * io_uring passthrough is unavailable. The ioctl blocks, so submit executes
 * the command and parks it on a done list; reaping pops that list, so
 * callers see the same asynchronous interface with a queue depth of one at
 * the drive. The ioctl returns -1/errno when the kernel failed the command
 * and a positive NVMe status field when the drive did; the 64-bit result
 * comes back in the struct.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/nvme_ioctl.h>

#include "core_priv.h"

struct ioctl_be {
	struct reis_req *head, *tail;	/* completed, not reaped */
};

static int ioctl_open(struct reis_dev *dev, const char *path, const void *arg)
{
	struct ioctl_be *b;

	(void)path;
	(void)arg;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	dev->be = b;
	return 0;
}

static int ioctl_clone(struct reis_dev *dev, struct reis_dev *out)
{
	return ioctl_open(out, dev->path, NULL);
}

static void ioctl_close(struct reis_dev *dev)
{
	free(dev->be);
	dev->be = NULL;
}

static int ioctl_submit(struct reis_dev *dev, struct reis_req *req)
{
	struct ioctl_be *b = dev->be;
	struct nvme_passthru_cmd64 c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.opcode = req->cmd.opcode;
	c.flags = req->cmd.flags;
	c.nsid = req->cmd.nsid;
	c.cdw2 = req->cmd.cdw2;
	c.cdw3 = req->cmd.cdw3;
	c.addr = (uint64_t)(uintptr_t)req->data;
	c.data_len = req->data_len;
	c.cdw10 = req->cmd.cdw10;
	c.cdw11 = req->cmd.cdw11;
	c.cdw12 = req->cmd.cdw12;
	c.cdw13 = req->cmd.cdw13;
	c.cdw14 = req->cmd.cdw14;
	c.cdw15 = req->cmd.cdw15;
	do {
		ret = ioctl(dev->fd, NVME_IOCTL_IO64_CMD, &c);
	} while (ret < 0 && errno == EINTR);
	req->cpl.result = c.result;
	if (ret < 0) {
		req->cpl.err = -errno;
		req->cpl.status = 0;
	} else {
		req->cpl.err = 0;
		req->cpl.status = (uint16_t)(ret & 0xffff);
	}
	req->priv.next = NULL;
	if (b->tail)
		b->tail->priv.next = req;
	else
		b->head = req;
	b->tail = req;
	return 0;
}

static int ioctl_reap(struct reis_dev *dev, unsigned min, unsigned max,
		      int timeout_ms, struct reis_req **out)
{
	struct ioctl_be *b = dev->be;
	unsigned n = 0;

	(void)min;	/* everything submitted is already complete */
	(void)timeout_ms;
	while (b->head && n < max) {
		out[n++] = b->head;
		b->head = b->head->priv.next;
	}
	if (!b->head)
		b->tail = NULL;
	return (int)n;
}

static int ioctl_admin(struct reis_dev *dev, const struct reis_cmd *cmd, void *data,
		       uint32_t len, struct reis_cpl *cpl)
{
	return reis__admin_ioctl(dev->fd, cmd, data, len, cpl);
}

const struct reis_be_ops reis__be_ioctl = {
	.name = "ioctl",
	.open = ioctl_open,
	.clone = ioctl_clone,
	.close = ioctl_close,
	.submit = ioctl_submit,
	.flush = NULL,
	.reap = ioctl_reap,
	.admin = ioctl_admin,
};
