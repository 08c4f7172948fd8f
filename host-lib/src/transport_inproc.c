/* SPDX-License-Identifier: MIT */
/*
 * transport_inproc.c - the drive modeled inside this process: commands go
 * straight to hw-model's isp_dev_exec(), the function the QEMU glue calls.
 *
 * Without workers a command executes inside submit and waits on a done
 * list until reaped, so completions are reaped exactly as with io_uring.
 * With workers, threads execute commands concurrently (isp_dev is
 * thread-safe) and completions arrive in any order. In delay mode a
 * completion is held until its modeled time has passed since submission,
 * like the QEMU device's isp-timing=delay. The device clock is
 * CLOCK_MONOTONIC (docs/command-set.md §1), or with REIS_INPROC_VCLOCK a
 * virtual clock of the drive: a command is submitted at the virtual time,
 * due after its modeled time, and reaping it moves the clock forward
 * instead of sleeping (delay-mode timing for benchmarks, without the wait).
 * Admin commands (the standard path's set-up) run on the same clock.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core_priv.h"

#ifndef REIS_NO_INPROC

#include "isp_dev.h"

/* The modeled drive, shared by reis_clone()d handles. */
struct inproc_drive {
	struct isp_dev *isp;
	int refs;			/* __atomic */
	unsigned nworkers;
	int delay;
	int vclock;
	uint64_t vnow;			/* __atomic: the virtual clock, ns */
	uint32_t next_cid;		/* __atomic: command ids for the error log */
	struct reis__blkstore *ns;	/* the namespace's LBAs (core_block.c) */
};

struct inproc {
	struct inproc_drive *drv;
	unsigned nworkers;
	int delay;
	pthread_t *thr;
	unsigned nthr;
	pthread_mutex_t lock;		/* queues, only with workers */
	pthread_cond_t cv_work;
	pthread_cond_t cv_done;		/* CLOCK_MONOTONIC */
	struct reis_req *pend_head, *pend_tail;
	struct reis_req *done_head, *done_tail;
	int stop;
};

/*
 * Memory Copy from the NVM namespace (descriptor format 2h): the blocks
 * come from the in-process namespace, staged after the range list as the
 * QEMU glue stages them (isp_dev.h, isp_dev_cs_copy_lbas()).
 */
static uint16_t inproc_stage_lbas(struct inproc *ip, const struct isp_cmd *c,
				  struct reis_req *req, uint64_t len, uint8_t **staged,
				  uint64_t *staged_len, struct isp_cpl *cpl)
{
	struct isp_cs_lba_range rg[128];
	struct isp_cs_stage stage;
	uint64_t total = 0, off;
	unsigned n, i;
	uint8_t *buf;
	uint16_t st;

	*staged = NULL;
	st = isp_dev_cs_copy_lbas(ip->drv->isp, c, req->data, (size_t)len,
				  REIS_INPROC_LBA_BYTES, rg, 128, &n, cpl);
	if (st)
		return st;
	for (i = 0; i < n; i++) {
		if (rg[i].slba > REIS_INPROC_NS_BYTES / REIS_INPROC_LBA_BYTES ||
		    rg[i].nlb > REIS_INPROC_NS_BYTES / REIS_INPROC_LBA_BYTES - rg[i].slba) {
			memset(cpl, 0, sizeof(*cpl));
			cpl->status = 0x0080 | REIS_STATUS_DNR;	/* LBA Out of Range */
			cpl->err_where = ISP_ERR_IN_DATA;
			cpl->err_byte = (uint16_t)(32 * rg[i].index + 8);
			snprintf(cpl->err_msg, sizeof(cpl->err_msg), "source range %u: SLBA %llu "
				 "+ %u blocks past the namespace", rg[i].index,
				 (unsigned long long)rg[i].slba, rg[i].nlb);
			isp_dev_note_failure(ip->drv->isp, c, cpl);
			return cpl->status;
		}
		total += (uint64_t)rg[i].nlb * REIS_INPROC_LBA_BYTES;
	}
	*staged_len = len + sizeof(stage) + total;
	buf = malloc((size_t)*staged_len);
	if (!buf)
		return ISP_SC_INTERNAL;
	memcpy(buf, req->data, (size_t)len);
	stage.lba_bytes = REIS_INPROC_LBA_BYTES;
	stage.nranges = n;
	memcpy(buf + len, &stage, sizeof(stage));
	off = len + sizeof(stage);
	for (i = 0; i < n; i++) {
		uint64_t bytes = (uint64_t)rg[i].nlb * REIS_INPROC_LBA_BYTES;

		if (reis__blkstore_read(ip->drv->ns, rg[i].slba * REIS_INPROC_LBA_BYTES,
					buf + off, bytes)) {
			free(buf);
			return ISP_SC_INTERNAL;
		}
		off += bytes;
	}
	*staged = buf;
	return 0;
}

static void inproc_exec(struct inproc *ip, struct reis_req *req)
{
	struct isp_dev *isp = ip->drv->isp;
	struct isp_cmd c;
	struct isp_cpl cpl;
	uint64_t ndt_len;
	uint8_t *staged = NULL;
	uint64_t staged_len = 0;
	uint16_t st;

	memset(&c, 0, sizeof(c));
	c.opcode = req->cmd.opcode;
	c.nsid = req->cmd.nsid;
	c.cdw10 = req->cmd.cdw10;
	c.cdw11 = req->cmd.cdw11;
	c.cdw12 = req->cmd.cdw12;
	c.cdw13 = req->cmd.cdw13;
	c.cdw14 = req->cmd.cdw14;
	c.cdw15 = req->cmd.cdw15;
	c.submit_ns = req->priv.submit_ns;
	c.sqid = 1;		/* one pseudo I/O queue, for the error log */
	c.cid = (uint16_t)__atomic_add_fetch(&ip->drv->next_cid, 1, __ATOMIC_RELAXED);
	/* the memory and compute namespaces' commands (docs/command-set.md §9) */
	if (isp_dev_cs_csi(isp, c.nsid) >= 0) {
		c.set = ISP_SET_IO;
		c.cdw2 = req->cmd.cdw2;
		c.cdw3 = req->cmd.cdw3;
		c.cdw4 = (uint32_t)req->cmd.mptr;
	}
	ndt_len = isp_cmd_data_len(&c);

	/* NVM Read/Write go to the namespace, apart from the ISP state
	 * (docs/command-set.md §1); they complete at once, no modeled time. */
	if (!c.set && reis__blkstore_exec(ip->drv->ns, req, &st)) {
		req->cpl.status = st;
		req->cpl.result = 0;
		req->cpl.err = 0;
		req->priv.due_ns = ip->delay ? req->priv.submit_ns : 0;
		return;
	}
	st = isp_dev_check(isp, &c, &cpl);
	if (!st && c.set)
		ndt_len = isp_dev_cmd_len(isp, &c);
	if (!st && c.set && c.opcode == ISP_CS_OP_MEM_COPY &&
	    isp_dev_cs_csi(isp, c.nsid) == ISP_CSI_SLM &&
	    ((c.cdw12 >> 8) & 0xfu) == ISP_CS_DESFMT_LBA && ndt_len <= req->data_len)
		st = inproc_stage_lbas(ip, &c, req, ndt_len, &staged, &staged_len, &cpl);
	if (!st) {
		if (ndt_len > req->data_len) {
			/* The drive would DMA past the host buffer's PRPs. */
			memset(&cpl, 0, sizeof(cpl));
			cpl.status = ISP_SC_DATA_XFER_ERROR;
		} else if (staged) {
			isp_dev_exec(isp, &c, staged, (size_t)staged_len, &cpl);
		} else {
			/* A larger host buffer is fine: only NDT*4 bytes move. */
			isp_dev_exec(isp, &c, ndt_len ? req->data : NULL, (size_t)ndt_len, &cpl);
		}
	}
	free(staged);
	req->cpl.status = cpl.status;
	req->cpl.result = cpl.result;
	req->cpl.err = 0;
	req->priv.due_ns = ip->delay ? req->priv.submit_ns + cpl.model_ns : 0;
}

static void inproc_push(struct reis_req **head, struct reis_req **tail,
			struct reis_req *req)
{
	req->priv.next = NULL;
	if (*tail)
		(*tail)->priv.next = req;
	else
		*head = req;
	*tail = req;
}

static void *inproc_worker(void *arg)
{
	struct inproc *ip = arg;
	struct reis_req *req;

	pthread_mutex_lock(&ip->lock);
	for (;;) {
		while (!ip->pend_head && !ip->stop)
			pthread_cond_wait(&ip->cv_work, &ip->lock);
		if (ip->stop && !ip->pend_head)
			break;
		req = ip->pend_head;
		ip->pend_head = req->priv.next;
		if (!ip->pend_head)
			ip->pend_tail = NULL;
		pthread_mutex_unlock(&ip->lock);

		inproc_exec(ip, req);

		pthread_mutex_lock(&ip->lock);
		inproc_push(&ip->done_head, &ip->done_tail, req);
		pthread_cond_broadcast(&ip->cv_done);
	}
	pthread_mutex_unlock(&ip->lock);
	return NULL;
}

static void inproc_stop(struct inproc *ip)
{
	unsigned i;

	if (!ip->nworkers)
		return;
	pthread_mutex_lock(&ip->lock);
	ip->stop = 1;
	pthread_cond_broadcast(&ip->cv_work);
	pthread_mutex_unlock(&ip->lock);
	for (i = 0; i < ip->nthr; i++)
		pthread_join(ip->thr[i], NULL);
	free(ip->thr);
	pthread_cond_destroy(&ip->cv_work);
	pthread_cond_destroy(&ip->cv_done);
	pthread_mutex_destroy(&ip->lock);
}

static void inproc_drive_put(struct inproc_drive *drv)
{
	if (drv && __atomic_sub_fetch(&drv->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		isp_dev_close(drv->isp);
		reis__blkstore_free(drv->ns);
		free(drv);
	}
}

static int inproc_attach(struct reis_dev *dev, struct inproc_drive *drv)
{
	struct inproc *ip = calloc(1, sizeof(*ip));
	pthread_condattr_t ca;
	unsigned i;
	int ret;

	if (!ip)
		return -ENOMEM;
	ip->drv = drv;
	ip->nworkers = drv->nworkers;
	ip->delay = drv->delay;
	if (ip->nworkers) {
		pthread_mutex_init(&ip->lock, NULL);
		pthread_cond_init(&ip->cv_work, NULL);
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&ip->cv_done, &ca);
		pthread_condattr_destroy(&ca);
		ip->thr = calloc(ip->nworkers, sizeof(*ip->thr));
		if (!ip->thr) {
			ip->nthr = 0;
			inproc_stop(ip);
			free(ip);
			return -ENOMEM;
		}
		for (i = 0; i < ip->nworkers; i++) {
			ret = pthread_create(&ip->thr[i], NULL, inproc_worker, ip);
			if (ret) {
				inproc_stop(ip);
				free(ip);
				return -ret;
			}
			ip->nthr++;
		}
	}
	__atomic_add_fetch(&drv->refs, 1, __ATOMIC_ACQ_REL);
	dev->be = ip;
	dev->lba_bytes = REIS_INPROC_LBA_BYTES;	/* its namespace (core_block.c) */
	dev->nlbas = REIS_INPROC_NS_BYTES / REIS_INPROC_LBA_BYTES;
	return 0;
}

static int inproc_open(struct reis_dev *dev, const char *path, const void *arg)
{
	const struct reis_inproc_opts *o = arg;
	struct isp_dev_config cfg;
	struct inproc_drive *drv;
	char dummy[8];
	char *err = o->errbuf && o->errlen ? o->errbuf : dummy;
	size_t errlen = o->errbuf && o->errlen ? o->errlen : sizeof(dummy);
	int ret;

	(void)path;
	err[0] = '\0';
	if (o->flags & ~(REIS_INPROC_DELAY | REIS_INPROC_VCLOCK | REIS_INPROC_CP |
			 REIS_INPROC_VENDOR) ||
	    (o->flags & REIS_INPROC_CP && o->flags & REIS_INPROC_VENDOR)) {
		snprintf(err, errlen, "unknown flags 0x%x", o->flags);
		return -EINVAL;
	}
	if (o->workers > REIS_INPROC_MAX_WORKERS) {
		snprintf(err, errlen, "workers %u out of range [0, %u]", o->workers,
			 REIS_INPROC_MAX_WORKERS);
		return -EINVAL;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.backing = o->backing;
	cfg.preset = o->preset;
	cfg.params = o->params;
	cfg.trace_dir = o->trace_dir;
	cfg.max_xfer = o->max_xfer ? o->max_xfer : REIS_INPROC_DEFAULT_XFER;
	cfg.timing_delay = !!(o->flags & (REIS_INPROC_DELAY | REIS_INPROC_VCLOCK));

	drv = calloc(1, sizeof(*drv));
	if (!drv)
		return -ENOMEM;
	drv->nworkers = o->workers;
	drv->delay = cfg.timing_delay;
	drv->vclock = !!(o->flags & REIS_INPROC_VCLOCK);
	drv->vnow = reis__now_ns();
	drv->ns = reis__blkstore_new();
	ret = drv->ns ? isp_dev_open(&cfg, &drv->isp, err, errlen) : -ENOMEM;
	if (ret) {
		reis__blkstore_free(drv->ns);
		free(drv);
		return ret;
	}
	ret = inproc_attach(dev, drv);
	if (ret) {
		isp_dev_close(drv->isp);
		reis__blkstore_free(drv->ns);
		free(drv);
		snprintf(err, errlen, "cannot start workers: %s", reis_strerror(ret));
	}
	return ret;
}

static int inproc_clone(struct reis_dev *dev, struct reis_dev *out)
{
	struct inproc *ip = dev->be;

	return inproc_attach(out, ip->drv);
}

static void inproc_close(struct reis_dev *dev)
{
	struct inproc *ip = dev->be;

	inproc_stop(ip);
	inproc_drive_put(ip->drv);
	free(ip);
	dev->be = NULL;
}

/* The virtual clock moves forward to @due, never back. */
static void inproc_vclock_to(struct inproc_drive *drv, uint64_t due)
{
	uint64_t v = __atomic_load_n(&drv->vnow, __ATOMIC_ACQUIRE);

	while (v < due && !__atomic_compare_exchange_n(&drv->vnow, &v, due, 0, __ATOMIC_ACQ_REL,
						       __ATOMIC_ACQUIRE))
		;
}

static int inproc_submit(struct reis_dev *dev, struct reis_req *req)
{
	struct inproc *ip = dev->be;

	if (ip->drv->vclock)
		req->priv.submit_ns = __atomic_load_n(&ip->drv->vnow, __ATOMIC_ACQUIRE);

	if (!ip->nworkers) {
		inproc_exec(ip, req);
		inproc_push(&ip->done_head, &ip->done_tail, req);
		return 0;
	}
	pthread_mutex_lock(&ip->lock);
	inproc_push(&ip->pend_head, &ip->pend_tail, req);
	pthread_cond_signal(&ip->cv_work);
	pthread_mutex_unlock(&ip->lock);
	return 0;
}

/*
 * Move completions due at @now into @out; returns how many and sets
 * *next_due to the earliest due time still held (UINT64_MAX if none).
 */
static unsigned inproc_collect(struct inproc *ip, uint64_t now, unsigned max,
			       struct reis_req **out, uint64_t *next_due)
{
	struct reis_req **pp = &ip->done_head, *prev = NULL, *r;
	unsigned n = 0;

	*next_due = UINT64_MAX;
	while ((r = *pp) && n < max) {
		if (r->priv.due_ns <= now) {
			*pp = r->priv.next;
			if (ip->done_tail == r)
				ip->done_tail = prev;
			out[n++] = r;
			continue;
		}
		if (r->priv.due_ns < *next_due)
			*next_due = r->priv.due_ns;
		prev = r;
		pp = &r->priv.next;
	}
	return n;
}

static void inproc_ts(uint64_t ns, struct timespec *ts)
{
	ts->tv_sec = (time_t)(ns / 1000000000u);
	ts->tv_nsec = (long)(ns % 1000000000u);
}

static int inproc_reap(struct reis_dev *dev, unsigned min, unsigned max,
		       int timeout_ms, struct reis_req **out)
{
	struct inproc *ip = dev->be;
	uint64_t deadline = timeout_ms < 0 ? UINT64_MAX : reis__deadline(timeout_ms);
	uint64_t next_due, wake;
	struct timespec ts;
	unsigned n = 0;

	if (ip->nworkers)
		pthread_mutex_lock(&ip->lock);
	for (;;) {
		int vclock = ip->drv->vclock;
		uint64_t now = vclock ? UINT64_MAX : ip->delay ? reis__now_ns() : 0;
		unsigned i, got = inproc_collect(ip, now, max - n, out + n, &next_due);

		/* Virtual clock: what completes moves it to its due time. */
		for (i = 0; vclock && i < got; i++)
			inproc_vclock_to(ip->drv, out[n + i]->priv.due_ns);
		n += got;
		if (n >= min || n >= max)
			break;
		if (!ip->delay || vclock)
			now = reis__now_ns();
		if (now >= deadline)
			break;
		wake = next_due < deadline ? next_due : deadline;
		if (ip->nworkers) {
			if (wake == UINT64_MAX) {
				pthread_cond_wait(&ip->cv_done, &ip->lock);
			} else {
				inproc_ts(wake, &ts);
				pthread_cond_timedwait(&ip->cv_done, &ip->lock, &ts);
			}
		} else {
			if (wake == UINT64_MAX)
				break;	/* nothing held and no producer: cannot happen */
			inproc_ts(wake, &ts);
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
	}
	if (ip->nworkers)
		pthread_mutex_unlock(&ip->lock);
	return (int)n;
}

/* Get Log Page without an admin queue: the model's pages directly. */
static int inproc_log(struct reis_dev *dev, uint8_t lid, uint64_t off, void *buf, uint32_t len)
{
	struct inproc *ip = dev->be;

	return isp_dev_log_page(ip->drv->isp, lid, buf, len, off);
}

/*
 * Admin commands of the standard interface: the CP admin commands, and the
 * Identify structures of the memory and compute namespaces (the QEMU glue
 * answers these from the same model, qemu-patches/hw/nvme/isp-cs.c).
 */
static int inproc_admin(struct reis_dev *dev, const struct reis_cmd *cmd, void *data,
			uint32_t len, struct reis_cpl *out)
{
	struct inproc *ip = dev->be;
	struct isp_dev *isp = ip->drv->isp;
	struct isp_cpl cpl;
	struct isp_cmd c;
	uint32_t slm, cp, *list = data;
	uint8_t cns = (uint8_t)cmd->cdw10, csi = (uint8_t)(cmd->cdw11 >> 24);
	uint16_t st;

	memset(out, 0, sizeof(*out));
	if (cmd->opcode == 0x06) {	/* Identify */
		if (len != 4096 || !data)
			return -EINVAL;
		memset(data, 0, 4096);
		isp_dev_cs_nsids(isp, &slm, &cp);
		switch (cns) {
		case 0x07:		/* active namespaces of one command set */
			if (csi == ISP_CSI_NVM && cmd->nsid < 1)
				list[0] = 1;
			else if (csi == ISP_CSI_SLM && slm && cmd->nsid < slm)
				list[0] = slm;
			else if (csi == ISP_CSI_CP && cp && cmd->nsid < cp)
				list[0] = cp;
			return 0;
		case 0x1c:		/* the I/O Command Set data structure */
			if (slm || cp)
				((uint64_t *)data)[0] = 1u << ISP_CSI_NVM | 1u << ISP_CSI_SLM |
							1u << ISP_CSI_CP;
			else
				((uint64_t *)data)[0] = 1u << ISP_CSI_NVM;
			return 0;
		default:
			out->status = isp_dev_cs_identify(isp, cns, csi, cmd->nsid, data);
			return 0;
		}
	}
	memset(&c, 0, sizeof(c));
	c.opcode = cmd->opcode;
	c.set = ISP_SET_ADMIN;
	c.nsid = cmd->nsid;
	c.cdw2 = cmd->cdw2;
	c.cdw3 = cmd->cdw3;
	c.cdw10 = cmd->cdw10;
	c.cdw11 = cmd->cdw11;
	c.cdw12 = cmd->cdw12;
	c.cdw13 = cmd->cdw13;
	c.cdw14 = cmd->cdw14;
	c.cdw15 = cmd->cdw15;
	/* On the clock the I/O commands use. The model starts a command at
	 * no earlier time than one it already started (ft_cmd_begin()): an
	 * admin command stamped with the wall time, ahead of the virtual
	 * clock by however long the host took, made the I/O commands after it
	 * start at one instant and queue behind each other. */
	c.submit_ns = ip->drv->vclock ? __atomic_load_n(&ip->drv->vnow, __ATOMIC_ACQUIRE) :
					reis__now_ns();
	c.cid = (uint16_t)__atomic_add_fetch(&ip->drv->next_cid, 1, __ATOMIC_RELAXED);
	memset(&cpl, 0, sizeof(cpl));
	st = isp_dev_check(isp, &c, &cpl);
	if (!st && isp_dev_cmd_len(isp, &c) > len)
		return -EINVAL;
	if (!st)
		st = isp_dev_exec(isp, &c, data, (size_t)isp_dev_cmd_len(isp, &c), &cpl);
	/* answered at once, so completed: the virtual clock is at its due time */
	if (ip->drv->vclock)
		inproc_vclock_to(ip->drv, c.submit_ns + cpl.model_ns);
	out->status = st;
	out->result = cpl.result;
	return 0;
}

const struct reis_be_ops reis__be_inproc = {
	.name = "inproc",
	.open = inproc_open,
	.clone = inproc_clone,
	.close = inproc_close,
	.submit = inproc_submit,
	.flush = NULL,
	.reap = inproc_reap,
	.log = inproc_log,
	.admin = inproc_admin,
};

#else /* REIS_NO_INPROC */

static int inproc_nosys(struct reis_dev *dev, const char *path, const void *arg)
{
	(void)dev; (void)path; (void)arg;
	return -ENOSYS;
}

const struct reis_be_ops reis__be_inproc = {
	.name = "inproc",
	.open = inproc_nosys,
};

#endif /* REIS_NO_INPROC */
