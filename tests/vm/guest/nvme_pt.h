/* SPDX-License-Identifier: MIT */
/*
 * nvme_pt.h - raw NVMe passthrough for the guest test programs: io_uring
 * IORING_OP_URING_CMD on /dev/ngXnY (128-byte SQEs, 32-byte CQEs), and the
 * admin ioctl on /dev/nvmeX. Deliberately independent of libreis, so these
 * tests check the QEMU glue even when the library is wrong.
 */
#ifndef TESTS_VM_NVME_PT_H
#define TESTS_VM_NVME_PT_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <liburing.h>
#include <linux/nvme_ioctl.h>

#include "isp_dev.h"
#include "isp_wire.h"

#define PT_CHAR_DEV "/dev/ng0n1"
#define PT_BLOCK_DEV "/dev/nvme0n1"
#define PT_CTRL_DEV "/dev/nvme0"
#define PT_NSID 1

/* An io_uring set up for NVMe passthrough on one namespace char device. */
struct pt_ring {
	struct io_uring ring;
	int fd;
	unsigned nsid;
};

/* One command and its completion. */
struct pt_cmd {
	struct nvme_uring_cmd c;
	int res;		/* NVMe status (>= 0) or -errno from the kernel */
	uint64_t result;	/* completion DW0 | DW1 << 32 */
};

static inline uint64_t pt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Open @path (default /dev/ng0n1); 0 or -errno. */
static inline int pt_open(struct pt_ring *r, const char *path, unsigned depth)
{
	int ret;

	r->fd = open(path ? path : PT_CHAR_DEV, O_RDWR);
	if (r->fd < 0)
		return -errno;
	r->nsid = PT_NSID;
	ret = io_uring_queue_init(depth, &r->ring,
				  IORING_SETUP_SQE128 | IORING_SETUP_CQE32);
	if (ret < 0) {
		close(r->fd);
		return ret;
	}
	return 0;
}

static inline void pt_close(struct pt_ring *r)
{
	io_uring_queue_exit(&r->ring);
	close(r->fd);
}

/* Fill a vendor command: opcode, data buffer (NDT = len / 4), CDW12..15. */
static inline void pt_vendor(struct pt_cmd *pc, uint8_t opcode, void *buf,
			     uint32_t len, uint32_t cdw12)
{
	memset(pc, 0, sizeof(*pc));
	pc->c.opcode = opcode;
	pc->c.nsid = PT_NSID;
	pc->c.addr = (uint64_t)(uintptr_t)buf;
	pc->c.data_len = len;
	pc->c.cdw10 = len / 4;
	pc->c.cdw12 = cdw12;
}

/* Queue @pc without submitting; tagged with its address. 0 or -EBUSY. */
static inline int pt_queue(struct pt_ring *r, struct pt_cmd *pc)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);

	if (!sqe)
		return -EBUSY;
	memset(sqe, 0, 2 * sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = r->fd;
	sqe->cmd_op = NVME_URING_CMD_IO;
	memcpy(sqe->cmd, &pc->c, sizeof(pc->c));
	io_uring_sqe_set_data(sqe, pc);
	return 0;
}

/* Wait for one completion and store it in its pt_cmd; returns that or NULL. */
static inline struct pt_cmd *pt_reap(struct pt_ring *r)
{
	struct io_uring_cqe *cqe;
	struct pt_cmd *pc;

	if (io_uring_wait_cqe(&r->ring, &cqe) < 0)
		return NULL;
	pc = io_uring_cqe_get_data(cqe);
	pc->res = cqe->res;
	pc->result = cqe->big_cqe[0];
	io_uring_cqe_seen(&r->ring, cqe);
	return pc;
}

/* Submit one command and wait for it. Returns the NVMe status or -errno. */
static inline int pt_run(struct pt_ring *r, struct pt_cmd *pc)
{
	int ret = pt_queue(r, pc);

	if (ret)
		return ret;
	ret = io_uring_submit(&r->ring);
	if (ret < 0)
		return ret;
	if (pt_reap(r) != pc)
		return -EIO;
	return pc->res;
}

/* A regular NVM read or write of @nlb 512-byte blocks via passthrough. */
static inline void pt_rw(struct pt_cmd *pc, int write, void *buf, uint64_t slba,
			 uint32_t nblocks, uint32_t lba_bytes)
{
	memset(pc, 0, sizeof(*pc));
	pc->c.opcode = write ? 0x01 : 0x02;
	pc->c.nsid = PT_NSID;
	pc->c.addr = (uint64_t)(uintptr_t)buf;
	pc->c.data_len = nblocks * lba_bytes;
	pc->c.cdw10 = (uint32_t)slba;
	pc->c.cdw11 = (uint32_t)(slba >> 32);
	pc->c.cdw12 = nblocks - 1;
}

/* Admin command through the controller's ioctl; NVMe status or -errno. */
static inline int pt_admin(uint8_t opcode, uint32_t nsid, void *buf,
			   uint32_t len, uint32_t cdw10, uint32_t cdw11,
			   uint32_t *result)
{
	struct nvme_passthru_cmd c;
	int fd, ret;

	fd = open(PT_CTRL_DEV, O_RDWR);
	if (fd < 0)
		return -errno;
	memset(&c, 0, sizeof(c));
	c.opcode = opcode;
	c.nsid = nsid;
	c.addr = (uint64_t)(uintptr_t)buf;
	c.data_len = len;
	c.cdw10 = cdw10;
	c.cdw11 = cdw11;
	ret = ioctl(fd, NVME_IOCTL_ADMIN_CMD, &c);
	if (ret < 0)
		ret = -errno;
	else if (result)
		*result = c.result;
	close(fd);
	return ret;
}

/* Get Log Page @lid (NUMD from @len), offset 0. */
static inline int pt_get_log(uint8_t lid, void *buf, uint32_t len)
{
	uint32_t numd = len / 4 - 1;

	return pt_admin(0x02, 0xffffffff, buf, len,
			lid | ((numd & 0xffff) << 16), numd >> 16, NULL);
}

/* Identify Controller (CNS 1) into a 4096-byte buffer. */
static inline int pt_identify_ctrl(void *buf)
{
	return pt_admin(0x06, 0, buf, 4096, 1, 0, NULL);
}

/* Aligned, zeroed buffer or exit(1). */
static inline void *pt_alloc(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, len ? len : 1)) {
		fprintf(stderr, "out of memory (%zu bytes)\n", len);
		exit(1);
	}
	memset(p, 0, len);
	return p;
}

/* ISP_IDENTIFY into @id; NVMe status or -errno. */
static inline int pt_isp_identify(struct pt_ring *r, struct isp_wire_identify *id)
{
	struct pt_cmd pc;

	pt_vendor(&pc, ISP_OP_IDENTIFY, id, sizeof(*id), 0);
	return pt_run(r, &pc);
}

#endif /* TESTS_VM_NVME_PT_H */
