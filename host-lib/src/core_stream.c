/* SPDX-License-Identifier: MIT */
/*
 * core_stream.c - transfers larger than max_xfer: split a buffer into commands
 * of at most one chunk, let the caller's prep callback name each chunk's
 * device offset, keep up to depth commands in flight, stop at the first
 * failure. Deploys (H2C) and result/document reads (C2H) build on this.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_priv.h"

struct reis_stream_run {
	struct reis_stream *s;
	struct reis_req *reqs;
	uint64_t *chunk_idx;		/* chunk number of each slot */
	uint64_t busy;			/* slot bitmap */
	uint64_t chunk;			/* bytes per command */
	uint64_t fail_idx;		/* lowest failed chunk */
	int err;
	int err_cpl;			/* err came from a completion */
	struct reis_cpl last;		/* failing (lowest) or last completion */
	struct reis_dev *dev;
	const char *obj;		/* named after the opcode in the message, or NULL */
	char msg[REIS_ERRMSG_LEN];	/* the failing command's, with the drive's reason */
};

static void reis_stream_cb(struct reis_req *req, void *arg)
{
	struct reis_stream_run *run = arg;
	unsigned slot = (unsigned)(req - run->reqs);
	uint64_t idx = run->chunk_idx[slot];

	run->busy &= ~(UINT64_C(1) << slot);
	run->s->ncmds++;
	run->s->time_ns += req->cpl.time_ns;
	run->s->energy_nj += req->cpl.energy_nj;
	if (req->cpl.err) {
		if (idx < run->fail_idx) {
			char obj[128];

			run->fail_idx = idx;
			run->err = req->cpl.err;
			run->err_cpl = 1;
			run->last = req->cpl;
			snprintf(obj, sizeof(obj), "%s at offset %llu", run->obj ? run->obj : "",
				 (unsigned long long)(run->s->offset + idx * run->chunk));
			reis__req_errmsg_obj(run->dev, req, obj, run->msg, sizeof(run->msg));
		}
	} else if (run->fail_idx == UINT64_MAX) {
		run->last = req->cpl;
	}
}

static int reis_stream(struct reis_dev *dev, struct reis_stream *s, uint8_t *buf,
		       uint64_t len, enum reis_dir want, const char *obj)
{
	struct reis_stream_run run;
	uint64_t chunk, nchunks, next = 0;
	unsigned depth, slot;
	int ret, retry;

	if (!dev || !s || (len && !buf))
		return -EINVAL;
	if (dev->in_cb)
		return reis__seterr(dev, -EDEADLK, "stream: called from a callback");
	if (reis_opcode_dir(s->opcode) != want)
		return reis__seterr(dev, -EINVAL, "stream: opcode 0x%02x has the wrong "
				    "direction", s->opcode);
	if (len % 4u)
		return reis__seterr(dev, -EINVAL, "stream: length %llu is not a multiple "
				    "of 4", (unsigned long long)len);
	depth = s->depth ? s->depth : 1;
	if (depth > REIS_STREAM_MAX_DEPTH)
		return reis__seterr(dev, -EINVAL, "stream: depth %u > %u", depth,
				    REIS_STREAM_MAX_DEPTH);
	if (depth > dev->qdepth)
		depth = dev->qdepth;
	chunk = s->chunk && s->chunk <= dev->max_xfer ? s->chunk : dev->max_xfer;
	chunk &= ~UINT64_C(3);
	if (s->chunk % 4u || !chunk)
		return reis__seterr(dev, -EINVAL, "stream: chunk %u is not a multiple of 4",
				    s->chunk);
	s->time_ns = s->energy_nj = s->done_bytes = 0;
	s->ncmds = 0;
	if (!len)
		return 0;
	nchunks = (len + chunk - 1) / chunk;

	memset(&run, 0, sizeof(run));
	run.s = s;
	run.dev = dev;
	run.obj = obj;
	run.chunk = chunk;
	run.fail_idx = UINT64_MAX;
	run.reqs = calloc(depth, sizeof(*run.reqs));
	run.chunk_idx = calloc(depth, sizeof(*run.chunk_idx));
	if (!run.reqs || !run.chunk_idx) {
		free(run.reqs);
		free(run.chunk_idx);
		return reis__seterr(dev, -ENOMEM, "stream: out of memory");
	}

	for (;;) {
		/* Fill free slots while nothing failed. */
		retry = 0;
		while (!run.err && next < nchunks && run.busy != (depth == 64 ? UINT64_MAX :
		       (UINT64_C(1) << depth) - 1)) {
			uint64_t pos = next * chunk;
			uint32_t n = (uint32_t)(len - pos < chunk ? len - pos : chunk);
			struct reis_req *req;

			for (slot = 0; run.busy & (UINT64_C(1) << slot); slot++)
				;
			req = &run.reqs[slot];
			reis_prep_cmd(req, s->opcode, buf + pos, n);
			reis_req_set_cb(req, reis_stream_cb, &run);
			if (s->prep) {
				ret = s->prep(&req->cmd, s->offset + pos, n, next + 1 == nchunks,
					      s->arg);
				if (ret) {
					run.err = ret < 0 ? ret : -EINVAL;
					run.err_cpl = 0;
					run.fail_idx = next;
					memset(&run.last, 0, sizeof(run.last));
					run.last.err = run.err;
					reis__seterr(dev, run.err, "stream: prep of chunk %llu "
						     "failed: %s", (unsigned long long)next,
						     reis_strerror(run.err));
					break;
				}
			}
			ret = reis_submit(dev, req);
			if (ret == -EBUSY && dev->inflight) {
				retry = 1;	/* queue full: reap, then retry */
				break;
			}
			if (ret) {
				run.err = ret;
				run.err_cpl = 0;
				run.fail_idx = next;
				memset(&run.last, 0, sizeof(run.last));
				run.last.err = ret;
				break;
			}
			run.chunk_idx[slot] = next;
			run.busy |= UINT64_C(1) << slot;
			next++;
		}
		if (!run.busy && !retry)
			break;
		ret = reis_wait(dev, 1, -1);
		if (ret < 0 && ret != -EINTR && ret != -ETIME) {
			/*
			 * The transport broke with our buffers possibly still
			 * owned by the kernel: leak them rather than free.
			 */
			s->done_bytes = 0;
			return ret;
		}
	}
	free(run.reqs);
	free(run.chunk_idx);

	dev->last = run.last;
	if (run.err) {
		char st[REIS_STATUS_DESC_LEN];

		s->done_bytes = run.fail_idx * chunk;
		if (run.err_cpl && run.msg[0] && obj)
			reis__seterr(dev, run.err, "%s", run.msg);
		else if (run.err_cpl && run.msg[0])
			reis__seterr(dev, run.err, "stream: chunk %llu: %s",
				     (unsigned long long)run.fail_idx, run.msg);
		else if (run.err_cpl)
			reis__seterr(dev, run.err, "stream: chunk %llu at offset %llu: %s",
				     (unsigned long long)run.fail_idx,
				     (unsigned long long)(s->offset + run.fail_idx * chunk),
				     run.last.status ? reis__status_desc(run.last.status, st,
				     sizeof(st)) : reis_strerror(run.err));
		return run.err;
	}
	s->done_bytes = len;
	return 0;
}

int reis_stream_h2c(struct reis_dev *dev, struct reis_stream *s,
		    const void *buf, uint64_t len)
{
	/* The buffer is only read; the request type is shared with C2H. */
	return reis_stream(dev, s, (uint8_t *)(uintptr_t)buf, len, REIS_DIR_H2C, NULL);
}

int reis_stream_c2h(struct reis_dev *dev, struct reis_stream *s,
		    void *buf, uint64_t len)
{
	return reis_stream(dev, s, buf, len, REIS_DIR_C2H, NULL);
}

int reis__stream_obj(struct reis_dev *dev, struct reis_stream *s, const void *buf,
		     uint64_t len, const char *obj)
{
	return reis_stream(dev, s, (uint8_t *)(uintptr_t)buf, len, REIS_DIR_H2C, obj);
}
