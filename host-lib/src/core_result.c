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

