/* SPDX-License-Identifier: MIT */
/*
 * core_block.c - block I/O on the drive's namespace ("normal SSD mode",
 * docs/command-set.md §1): NVMe Read (02h) and Write (01h) of LBA ranges
 * through the handle's own transport (io_uring passthrough or the ioctl on
 * /dev/ngXnY; the in-process drive's namespace, a sparse store in memory
 * kept here), so a host that computes on data the drive also holds reads it
 * the conventional way (docs/libreis.md, Block I/O).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <libnvme.h>

#include "core_priv.h"

#define NVM_OP_WRITE 0x01
#define NVM_OP_READ 0x02
#define NVM_SC_LBA_RANGE 0x0080	/* Generic Command Status: LBA Out of Range */
#define NVM_NLB_MAX 65536u	/* CDW12 NLB is 16 bits, 0-based */
#define BLK_DEPTH 16u		/* commands in flight per call */

/* ---------------------------------------------------------------------- */
/* The in-process namespace                                                */

#define BLKSTORE_CHUNK (64u << 10)

struct reis__blkstore {
	pthread_mutex_t lock;
	uint64_t nchunks;
	uint8_t **chunk;	/* NULL: never written (reads as zeros) */
};

struct reis__blkstore *reis__blkstore_new(void)
{
	struct reis__blkstore *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->nchunks = REIS_INPROC_NS_BYTES / BLKSTORE_CHUNK;
	b->chunk = calloc(b->nchunks, sizeof(*b->chunk));
	if (!b->chunk) {
		free(b);
		return NULL;
	}
	pthread_mutex_init(&b->lock, NULL);
	return b;
}

void reis__blkstore_free(struct reis__blkstore *b)
{
	uint64_t i;

	if (!b)
		return;
	for (i = 0; i < b->nchunks; i++)
		free(b->chunk[i]);
	free(b->chunk);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

/* Copy @len bytes at byte @off between @buf and the store (@wr: into it). */
static int reis_blkstore_copy(struct reis__blkstore *b, uint64_t off, uint8_t *buf,
			      uint64_t len, int wr)
{
	while (len) {
		uint64_t c = off / BLKSTORE_CHUNK, in = off % BLKSTORE_CHUNK;
		uint64_t n = BLKSTORE_CHUNK - in < len ? BLKSTORE_CHUNK - in : len;

		if (wr && !b->chunk[c]) {
			b->chunk[c] = calloc(1, BLKSTORE_CHUNK);
			if (!b->chunk[c])
				return -ENOMEM;
		}
		if (wr)
			memcpy(b->chunk[c] + in, buf, n);
		else if (b->chunk[c])
			memcpy(buf, b->chunk[c] + in, n);
		else
			memset(buf, 0, n);
		off += n;
		buf += n;
		len -= n;
	}
	return 0;
}

int reis__blkstore_exec(struct reis__blkstore *b, struct reis_req *req, uint16_t *status)
{
	const struct reis_cmd *c = &req->cmd;
	uint64_t slba = (uint64_t)c->cdw11 << 32 | c->cdw10;
	uint64_t nlb = (uint64_t)(c->cdw12 & 0xffffu) + 1;
	uint64_t nlbas = REIS_INPROC_NS_BYTES / REIS_INPROC_LBA_BYTES;
	int ret;

	if (c->opcode != NVM_OP_READ && c->opcode != NVM_OP_WRITE)
		return 0;
	/* Everything here came from a caller: bound it as the drive would. */
	if (slba >= nlbas || nlb > nlbas - slba)
		*status = NVM_SC_LBA_RANGE | REIS_STATUS_DNR;
	else if (!req->data || req->data_len < nlb * REIS_INPROC_LBA_BYTES)
		*status = REIS_SC_DATA_XFER_ERROR | REIS_STATUS_DNR;
	else {
		pthread_mutex_lock(&b->lock);
		ret = reis_blkstore_copy(b, slba * REIS_INPROC_LBA_BYTES, req->data,
					 nlb * REIS_INPROC_LBA_BYTES, c->opcode == NVM_OP_WRITE);
		pthread_mutex_unlock(&b->lock);
		*status = ret ? REIS_SC_INTERNAL : 0;
	}
	return 1;
}

int reis__blkstore_read(struct reis__blkstore *b, uint64_t off, void *buf, uint64_t len)
{
	int ret;

	if (off > REIS_INPROC_NS_BYTES || len > REIS_INPROC_NS_BYTES - off)
		return -EINVAL;
	pthread_mutex_lock(&b->lock);
	ret = reis_blkstore_copy(b, off, buf, len, 0);
	pthread_mutex_unlock(&b->lock);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Geometry                                                                */

int reis_ns_geom(struct reis_dev *dev, struct reis_ns_geom *geom)
{
	struct nvme_id_ns *ns;
	unsigned fmt;
	int ret;

	if (!dev || !geom)
		return -EINVAL;
	if (dev->lba_bytes) {
		geom->lba_bytes = dev->lba_bytes;
		geom->nlbas = dev->nlbas;
		return 0;
	}
	/* (The in-process transport sets its geometry at open.) */
	if (dev->fd < 0)
		return reis__seterr(dev, -EOPNOTSUPP, "namespace: the %s transport has none",
				    dev->ops->name);
	if (posix_memalign((void **)&ns, 4096, sizeof(*ns)))
		return -ENOMEM;
	memset(ns, 0, sizeof(*ns));
	errno = 0;
	ret = nvme_identify_ns(dev->fd, dev->nsid, ns);
	if (ret)
		ret = ret < 0 ? (errno ? -errno : -EIO) : reis_status_errno((uint16_t)ret);
	/* FLBAS bits 3:0 and, past 16 formats, 6:5 name the format in use. */
	fmt = (ns->flbas & 0xfu) | (ns->nlbaf >= 16 ? (ns->flbas >> 1) & 0x30u : 0);
	if (!ret && (fmt > ns->nlbaf || fmt >= 64 || ns->lbaf[fmt].ds < 9 ||
		     ns->lbaf[fmt].ds > 16 || !ns->nsze))
		ret = -EPROTO;	/* 512 B .. 64 KiB LBAs, a non-empty namespace */
	if (!ret) {
		dev->lba_bytes = 1u << ns->lbaf[fmt].ds;
		dev->nlbas = (uint64_t)ns->nsze;	/* little-endian hosts only, as the wire */
	}
	free(ns);
	if (ret)
		return reis__seterr(dev, ret, "Identify Namespace %u: %s", dev->nsid,
				    reis_strerror(ret));
	return reis_ns_geom(dev, geom);
}

/* ---------------------------------------------------------------------- */
/* Read and Write                                                          */

static void reis_blk_prep(struct reis_req *req, uint8_t op, uint64_t slba, uint32_t nlb,
			  void *buf, uint32_t bytes)
{
	struct reis_cmd c;

	memset(&c, 0, sizeof(c));
	c.opcode = op;
	c.cdw10 = (uint32_t)slba;
	c.cdw11 = (uint32_t)(slba >> 32);
	c.cdw12 = nlb - 1;
	reis_prep_raw(req, &c, buf, bytes);
}

static int reis_blk_rw(struct reis_dev *dev, uint8_t op, uint64_t slba, uint64_t nlb,
		       void *buf)
{
	const char *what = op == NVM_OP_READ ? "block read" : "block write";
	struct reis_req req[BLK_DEPTH];
	struct reis_ns_geom g;
	uint32_t cnt[BLK_DEPTH];	/* blocks of the command in each slot; 0: free */
	uint64_t next = 0, per;
	unsigned i, used = 0;
	int ret = 0, err = 0;

	if (!dev)
		return -EINVAL;
	ret = reis_ns_geom(dev, &g);
	if (ret)
		return ret;
	if (!buf || !nlb || ((uintptr_t)buf & 3u))
		return reis__seterr(dev, -EINVAL, "%s: buffer %p, %llu blocks (a 4-byte aligned "
				    "buffer and at least one block)", what, buf,
				    (unsigned long long)nlb);
	if (nlb > REIS_BLOCK_MAX_BYTES / g.lba_bytes)
		return reis__seterr(dev, -E2BIG, "%s: %llu blocks exceed %u bytes per call", what,
				    (unsigned long long)nlb, REIS_BLOCK_MAX_BYTES);
	if (slba >= g.nlbas || nlb > g.nlbas - slba)
		return reis__seterr(dev, -ERANGE, "%s: LBAs %llu+%llu past the namespace's %llu",
				    what, (unsigned long long)slba, (unsigned long long)nlb,
				    (unsigned long long)g.nlbas);
	/* Blocks per command: max_xfer (the drive's MDTS) and the 16-bit NLB. */
	per = dev->max_xfer / g.lba_bytes;
	if (per > NVM_NLB_MAX)
		per = NVM_NLB_MAX;
	if (!per)
		return reis__seterr(dev, -EINVAL, "%s: %u-byte LBAs exceed max_xfer %u", what,
				    g.lba_bytes, dev->max_xfer);
	memset(req, 0, sizeof(req));
	memset(cnt, 0, sizeof(cnt));
	for (;;) {
		/* Keep up to BLK_DEPTH commands in flight, in LBA order. */
		while (next < nlb && used < BLK_DEPTH && !err) {
			uint32_t n = (uint32_t)(nlb - next < per ? nlb - next : per);

			for (i = 0; cnt[i]; i++)
				;
			reis_blk_prep(&req[i], op, slba + next, n,
				      (uint8_t *)buf + next * g.lba_bytes, n * g.lba_bytes);
			ret = reis_submit(dev, &req[i]);
			if (ret) {
				err = ret;
				break;
			}
			cnt[i] = n;
			next += n;
			used++;
		}
		if (!used)
			break;
		/* Reap one of ours (reaping may complete others too: they are
		 * waited for, finished, on their turn). */
		for (i = 0; !cnt[i]; i++)
			;
		ret = reis_wait_req(dev, &req[i], -1);
		if (ret && !err) {
			char msg[REIS_ERRMSG_LEN];

			err = ret;
			dev->last = req[i].cpl;
			reis__seterr(dev, ret, "%s: %s", what,
				     reis__req_errmsg(dev, &req[i], msg, sizeof(msg)));
		}
		cnt[i] = 0;
		used--;
	}
	return err;
}

int reis_block_read(struct reis_dev *dev, uint64_t slba, uint64_t nlb, void *buf)
{
	return reis_blk_rw(dev, NVM_OP_READ, slba, nlb, buf);
}

int reis_block_write(struct reis_dev *dev, uint64_t slba, uint64_t nlb, const void *buf)
{
	return reis_blk_rw(dev, NVM_OP_WRITE, slba, nlb, (void *)(uintptr_t)buf);
}
