/* SPDX-License-Identifier: MIT */
/*
 * drive_rf_table.c - the RecFlash commands of docs/command-set.md section 5:
 * table deploy (create, sections streamed under max_xfer, commit), list,
 * statistics, delete, profile upload, remap, switch. SLS lives in
 * recflash_sls.c. Everything read from the drive is bounded here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isp_wire.h"
#include "core_priv.h"
#include "drive_rf_priv.h"

/* The public mirrors of the wire values must not drift. */
_Static_assert((int)REIS_OP_RF_TBL_CREATE == (int)ISP_OP_RF_TBL_CREATE, "opcode");
_Static_assert((int)REIS_OP_RF_TBL_LIST == (int)ISP_OP_RF_TBL_LIST, "opcode");
_Static_assert((int)REIS_OP_RF_TBL_WRITE == (int)ISP_OP_RF_TBL_WRITE, "opcode");
_Static_assert((int)REIS_OP_RF_TBL_STATS == (int)ISP_OP_RF_TBL_STATS, "opcode");
_Static_assert((int)REIS_OP_RF_TBL_COMMIT == (int)ISP_OP_RF_TBL_COMMIT, "opcode");
_Static_assert((int)REIS_OP_RF_SLS == (int)ISP_OP_RF_SLS, "opcode");
_Static_assert((int)REIS_OP_RF_TBL_DELETE == (int)ISP_OP_RF_TBL_DELETE, "opcode");
_Static_assert((int)REIS_OP_RF_PROFILE == (int)ISP_OP_RF_PROFILE, "opcode");
_Static_assert((int)REIS_OP_RF_REMAP == (int)ISP_OP_RF_REMAP, "opcode");
_Static_assert((int)REIS_OP_RF_SWITCH == (int)ISP_OP_RF_SWITCH, "opcode");
_Static_assert((int)REIS_OP_RESULT_READ == (int)ISP_OP_RESULT_READ, "opcode");
_Static_assert((int)REIS_OP_RESULT_RELEASE == (int)ISP_OP_RESULT_RELEASE, "opcode");
_Static_assert(REIS_RF_MAX_DIM == ISP_RF_MAX_DIM, "limits");
_Static_assert(REIS_RF_MAX_ROWS == ISP_RF_MAX_ROWS, "limits");
_Static_assert(REIS_RF_MAX_BAGS == ISP_RF_MAX_BAGS, "limits");
_Static_assert(REIS_RF_NAME_LEN == ISP_RF_NAME_LEN, "limits");
_Static_assert(REIS_RF_STATS_LEN == sizeof(struct isp_wire_rf_stats), "stats");
_Static_assert((int)REIS_RF_FP32 == (int)ISP_RF_FP32, "dtype");
_Static_assert((int)REIS_RF_FP16 == (int)ISP_RF_FP16, "dtype");
_Static_assert((int)REIS_RF_INT8 == (int)ISP_RF_INT8, "dtype");
_Static_assert((int)REIS_RF_RECSSD == (int)ISP_RF_RECSSD, "mode");
_Static_assert((int)REIS_RF_RMSSD == (int)ISP_RF_RMSSD, "mode");
_Static_assert((int)REIS_RF_RECFLASH == (int)ISP_RF_RECFLASH, "mode");
_Static_assert((int)REIS_RF_TRIG_NONE == (int)ISP_RF_TRIG_NONE, "trigger");
_Static_assert((int)REIS_RF_TRIG_THRESHOLD == (int)ISP_RF_TRIG_THRESHOLD, "trigger");
_Static_assert((int)REIS_RF_TRIG_PERIOD == (int)ISP_RF_TRIG_PERIOD, "trigger");
_Static_assert(REIS_RF_SLS_WEIGHTED == ISP_RF_SLS_WEIGHTED, "sls flag");
_Static_assert(REIS_RF_SLS_MEAN == ISP_RF_SLS_MEAN, "sls flag");
_Static_assert(REIS_RF_SLS_NO_CACHE == ISP_RF_SLS_NO_CACHE, "sls flag");
_Static_assert(REIS_RF_REMAP_FULL == ISP_RF_REMAP_FULL, "remap flag");
_Static_assert(REIS_RF_REMAP_ADAPTIVE == ISP_RF_REMAP_ADAPTIVE, "remap flag");
_Static_assert(REIS_RF_REMAP_IF_TRIGGERED == ISP_RF_REMAP_IF_TRIGGERED, "remap flag");
_Static_assert(REIS_RF_REMAP_SWITCH == ISP_RF_REMAP_SWITCH, "remap flag");
_Static_assert(REIS_RF_DEPLOYING == ISP_RF_DEPLOYING, "state");
_Static_assert(REIS_RF_READY == ISP_RF_READY, "state");
_Static_assert(REIS_RF_REMAP_IDLE == ISP_RF_REMAP_IDLE, "remap state");
_Static_assert(REIS_RF_REMAP_RUNNING == ISP_RF_REMAP_RUNNING, "remap state");
_Static_assert(REIS_RF_REMAP_STAGED == ISP_RF_REMAP_STAGED, "remap state");

/* Deploys of more tables than this in one call are refused. */
#define RF_DEPLOY_MAX_TABLES 1024u
#define RF_DEPLOY_DEPTH_DEFAULT 8u

const char *reis__rf_op_name(uint8_t opcode)
{
	const char *n = reis_opcode_name(opcode);

	return n ? n : "?";
}

int reis__rf_cpl_err(struct reis_dev *dev, const struct reis_req *req,
		     const struct reis_cpl *cpl, uint8_t opcode, uint32_t tid, const char *what)
{
	char obj[24] = "", st[REIS_STATUS_DESC_LEN];

	dev->last = *cpl;
	if (tid)
		snprintf(obj, sizeof(obj), " table %u", tid);
	if (req && req->priv.state == REIS_REQ_DONE && req->cpl.status) {
		/* the drive's reason and error log entry, as every command's */
		char o[24 + 80], m[REIS_ERRMSG_LEN];

		snprintf(o, sizeof(o), "%s%s%s", obj, what ? " " : "", what ? what : "");
		return reis__seterr(dev, cpl->err, "%s",
				    reis__req_errmsg_obj(dev, req, o, m, sizeof(m)));
	}
	if (cpl->status)
		return reis__seterr(dev, cpl->err, "%s%s%s%s: %s", reis__rf_op_name(opcode), obj,
				    what ? " " : "", what ? what : "",
				    reis__status_desc(cpl->status, st, sizeof(st)));
	return reis__seterr(dev, cpl->err, "%s%s%s%s: %s", reis__rf_op_name(opcode), obj,
			    what ? " " : "", what ? what : "", reis_strerror(cpl->err));
}

/* Execute one request; on failure a sentence naming the command and table. */
static int rf_exec(struct reis_dev *dev, struct reis_req *req, uint32_t tid)
{
	int ret = reis_exec(dev, req);

	if (ret && req->priv.state == REIS_REQ_DONE)
		reis__rf_cpl_err(dev, req, &req->cpl, req->cmd.opcode, tid, NULL);
	return ret;
}

int reis_rf_row_bytes(uint32_t dtype, uint32_t dim)
{
	if (!dim || dim > ISP_RF_MAX_DIM)
		return -EINVAL;
	switch (dtype) {
	case ISP_RF_FP32: return (int)(4 * dim);
	case ISP_RF_FP16: return (int)(2 * dim);
	case ISP_RF_INT8: return (int)(dim + 8);
	default: return -EINVAL;
	}
}

static int rf_name_ok(const char *name)
{
	size_t i;

	if (!name)
		return 1;
	for (i = 0; name[i]; i++)
		if (i >= ISP_RF_NAME_LEN - 1 || (unsigned char)name[i] < 0x20 ||
		    (unsigned char)name[i] >= 0x7f)
			return 0;
	return 1;
}

static int rf_check_table(struct reis_dev *dev, const struct reis_rf_table *t)
{
	if (!t)
		return reis__seterr(dev, -EINVAL, "deploy: NULL table");
	if (!t->tid)
		return reis__seterr(dev, -EINVAL, "deploy: table id 0 is reserved");
	if (!t->rows || t->rows > ISP_RF_MAX_ROWS)
		return reis__seterr(dev, -EINVAL, "deploy: table %u: rows %u not in 1..%u",
				    t->tid, t->rows, ISP_RF_MAX_ROWS);
	if (!t->dim || t->dim > ISP_RF_MAX_DIM)
		return reis__seterr(dev, -EINVAL, "deploy: table %u: dim %u not in 1..%u",
				    t->tid, t->dim, ISP_RF_MAX_DIM);
	if (reis_rf_row_bytes(t->dtype, t->dim) < 0)
		return reis__seterr(dev, -EINVAL, "deploy: table %u: unknown dtype %u "
				    "(1 fp32, 2 fp16, 3 int8)", t->tid, t->dtype);
	if (t->mode < ISP_RF_RECSSD || t->mode > ISP_RF_RECFLASH)
		return reis__seterr(dev, -EINVAL, "deploy: table %u: unknown mode %u "
				    "(1 recssd, 2 rmssd, 3 recflash)", t->tid, t->mode);
	if (t->trigger > ISP_RF_TRIG_PERIOD)
		return reis__seterr(dev, -EINVAL, "deploy: table %u: unknown trigger %u",
				    t->tid, t->trigger);
	if (t->hot_bp > 10000)
		return reis__seterr(dev, -EINVAL, "deploy: table %u: hot_bp %u > 10000",
				    t->tid, t->hot_bp);
	if (t->trigger_ppm > 1000000)
		return reis__seterr(dev, -EINVAL, "deploy: table %u: trigger_ppm %u > "
				    "1000000", t->tid, t->trigger_ppm);
	if (t->trigger == ISP_RF_TRIG_PERIOD && !t->period)
		return reis__seterr(dev, -EINVAL, "deploy: table %u: period trigger needs "
				    "period >= 1", t->tid);
	if (!rf_name_ok(t->name))
		return reis__seterr(dev, -EINVAL, "deploy: table %u: name longer than %u "
				    "characters or not printable", t->tid,
				    ISP_RF_NAME_LEN - 1);
	if (!t->data)
		return reis__seterr(dev, -EINVAL, "deploy: table %u: no row data", t->tid);
	if (t->profile && t->mode != ISP_RF_RECFLASH)
		return reis__seterr(dev, -EINVAL, "deploy: table %u: a profile places rows "
				    "only in RecFlash mode", t->tid);
	if (t->rsvd0 || t->rsvd[0] || t->rsvd[1])
		return reis__seterr(dev, -EINVAL, "deploy: table %u: reserved fields must "
				    "be 0", t->tid);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Deploy                                                                  */
/* ---------------------------------------------------------------------- */

struct rf_dep_tbl {
	const struct reis_rf_table *t;
	const uint8_t *data[2];		/* sections in upload order */
	uint64_t len[2];
	uint32_t sec[2];
	unsigned nsec, cur;
	uint64_t off;			/* next byte of the current section */
	int busy, created;
};

struct rf_dep_slot {
	struct reis_req req;
	struct rf_dep_run *run;
	unsigned tbl;
	uint32_t sec;
	uint64_t off;
	uint32_t len;
	uint8_t *bounce;		/* padded copy of a section's tail */
};

struct rf_dep_run {
	struct rf_dep_tbl *tb;
	struct rf_dep_slot *slots;
	unsigned nslots, busy;
	uint64_t done, total;
	int err;
	unsigned err_tbl;
	uint32_t err_sec;
	uint64_t err_off;
	struct reis_cpl err_cpl;
	struct reis_rf_deploy_opts *o;
	struct reis_dev *dev;
	char msg[REIS_ERRMSG_LEN];	/* the failed write's, with the drive's reason */
};

static const char *rf_sec_name(uint32_t sec)
{
	return sec == ISP_RF_SEC_ROWS ? "rows" : sec == ISP_RF_SEC_PROFILE ? "profile" : "?";
}

static void rf_dep_cb(struct reis_req *req, void *arg)
{
	struct rf_dep_slot *sl = arg;
	struct rf_dep_run *run = sl->run;

	run->busy--;
	run->tb[sl->tbl].busy = 0;
	run->o->ncmds++;
	run->o->time_ns += req->cpl.time_ns;
	run->o->energy_nj += req->cpl.energy_nj;
	if (req->cpl.err) {
		if (!run->err) {
			char obj[80];

			run->err = req->cpl.err;
			run->err_tbl = sl->tbl;
			run->err_sec = sl->sec;
			run->err_off = sl->off;
			run->err_cpl = req->cpl;
			snprintf(obj, sizeof(obj), " table %u %s section at offset %llu",
				 run->tb[sl->tbl].t->tid, rf_sec_name(sl->sec),
				 (unsigned long long)sl->off);
			reis__req_errmsg_obj(run->dev, req, obj, run->msg, sizeof(run->msg));
		}
		return;
	}
	run->done += sl->len;
	run->o->bytes += sl->len;
}

/* Submit the next chunk of table @i into a free slot. */
static int rf_dep_submit(struct reis_dev *dev, struct rf_dep_run *run, unsigned i,
			 uint32_t chunk)
{
	struct rf_dep_tbl *tb = &run->tb[i];
	struct rf_dep_slot *sl = NULL;
	uint64_t left = tb->len[tb->cur] - tb->off;
	uint32_t n = (uint32_t)(left < chunk ? left : chunk), pad = (4 - n % 4) % 4;
	void *data = (void *)(uintptr_t)(tb->data[tb->cur] + tb->off);
	unsigned s;
	int ret;

	for (s = 0; s < run->nslots; s++)
		if (!reis_req_inflight(&run->slots[s].req)) {
			sl = &run->slots[s];
			break;
		}
	if (!sl)
		return -EBUSY;
	if (pad) {
		/* Only a section's last chunk: zero-pad it to whole dwords. */
		if (!sl->bounce && !(sl->bounce = malloc(chunk)))
			return reis__seterr(dev, -ENOMEM, "deploy: out of memory");
		memcpy(sl->bounce, data, n);
		memset(sl->bounce + n, 0, pad);
		data = sl->bounce;
	}
	sl->run = run;
	sl->tbl = i;
	sl->sec = tb->sec[tb->cur];
	sl->off = tb->off;
	sl->len = n;
	reis_prep_cmd(&sl->req, ISP_OP_RF_TBL_WRITE, data, n + pad);
	sl->req.cmd.cdw12 = tb->t->tid;
	sl->req.cmd.cdw13 = sl->sec;
	sl->req.cmd.cdw14 = (uint32_t)tb->off;
	sl->req.cmd.cdw15 = (uint32_t)(tb->off >> 32);
	reis_req_set_cb(&sl->req, rf_dep_cb, sl);
	ret = reis_submit(dev, &sl->req);
	if (ret)
		return ret;
	tb->busy = 1;
	run->busy++;
	tb->off += n;
	if (tb->off == tb->len[tb->cur]) {
		tb->cur++;
		tb->off = 0;
	}
	return 0;
}

static int rf_dep_stream(struct reis_dev *dev, struct rf_dep_run *run, unsigned n,
			 uint32_t chunk)
{
	unsigned i, rr = 0;
	int ret, progress;

	for (;;) {
		progress = 0;
		for (i = 0; !run->err && i < n && run->busy < run->nslots; i++) {
			unsigned k = (rr + i) % n;
			struct rf_dep_tbl *tb = &run->tb[k];

			if (tb->busy || tb->cur >= tb->nsec)
				continue;
			ret = rf_dep_submit(dev, run, k, chunk);
			if (ret == -EBUSY && run->busy)
				break;	/* queue full: reap first */
			if (ret) {
				run->err = ret;
				run->err_tbl = k;
				run->err_sec = tb->sec[tb->cur < tb->nsec ? tb->cur : 0];
				run->err_off = tb->off;
				memset(&run->err_cpl, 0, sizeof(run->err_cpl));
				run->err_cpl.err = ret;
				break;
			}
			progress = 1;
		}
		rr++;
		if (!run->busy)
			break;
		ret = reis_wait(dev, 1, -1);
		if (ret < 0 && ret != -EINTR && ret != -ETIME)
			return ret;	/* transport broken: buffers may be in use */
		if (run->o->progress)
			run->o->progress(run->o->progress_arg, run->done, run->total);
		(void)progress;
	}
	return 0;
}

static int rf_create(struct reis_dev *dev, const struct reis_rf_table *t)
{
	_Alignas(64) struct isp_wire_rf_create c;
	struct reis_req req;

	memset(&c, 0, sizeof(c));
	c.tid = t->tid;
	c.rows = t->rows;
	c.dim = t->dim;
	c.dtype = t->dtype;
	c.mode = t->mode;
	c.flags = t->profile ? ISP_RF_TF_PROFILE : 0;
	c.trigger = t->trigger;
	c.hot_bp = t->hot_bp;
	c.trigger_ppm = t->trigger_ppm;
	c.period = t->period;
	if (t->name)
		memcpy(c.name, t->name, strlen(t->name));
	reis_prep_cmd(&req, ISP_OP_RF_TBL_CREATE, &c, sizeof(c));
	return rf_exec(dev, &req, t->tid);
}

static int rf_simple(struct reis_dev *dev, uint8_t opcode, uint32_t tid, uint32_t cdw13)
{
	struct reis_req req;

	reis_prep_cmd(&req, opcode, NULL, 0);
	req.cmd.cdw12 = tid;
	req.cmd.cdw13 = cdw13;
	return rf_exec(dev, &req, tid);
}

/* The options and tables of a deploy; the chunk and depth it uses. */
static int rf_dep_check(struct reis_dev *dev, const struct reis_rf_table *t, unsigned n,
			struct reis_rf_deploy_opts *opts, uint32_t *chunk, uint32_t *depth)
{
	unsigned i, j;
	int ret;

	if (opts->rsvd[0] || opts->rsvd[1])
		return reis__seterr(dev, -EINVAL, "deploy: reserved options must be 0");
	*depth = opts->depth ? opts->depth : RF_DEPLOY_DEPTH_DEFAULT;
	if (*depth > REIS_STREAM_MAX_DEPTH)
		return reis__seterr(dev, -EINVAL, "deploy: depth %u > %u", *depth,
				    REIS_STREAM_MAX_DEPTH);
	if (opts->chunk % 4u)
		return reis__seterr(dev, -EINVAL, "deploy: chunk %u is not a multiple of 4",
				    opts->chunk);
	*chunk = opts->chunk && opts->chunk <= dev->max_xfer ? opts->chunk : dev->max_xfer;
	*chunk &= ~3u;
	if (*depth > n)
		*depth = n;
	if (*depth > dev->qdepth)
		*depth = dev->qdepth;
	opts->time_ns = opts->energy_nj = opts->bytes = 0;
	opts->ncmds = 0;
	for (i = 0; i < n; i++) {
		ret = rf_check_table(dev, &t[i]);
		if (ret)
			return ret;
		for (j = 0; j < i; j++)
			if (t[j].tid == t[i].tid)
				return reis__seterr(dev, -EINVAL, "deploy: table id %u given "
						    "twice", t[i].tid);
	}
	return 0;
}

/* Each table's sections in upload order, and the bytes of them all. */
static void rf_dep_plan(struct rf_dep_run *run, const struct reis_rf_table *t, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		struct rf_dep_tbl *tb = &run->tb[i];

		tb->t = &t[i];
		/* The profile first: an engine may place rows as they arrive. */
		if (t[i].profile) {
			tb->data[tb->nsec] = (const uint8_t *)t[i].profile;
			tb->len[tb->nsec] = (uint64_t)t[i].rows * 4u;
			tb->sec[tb->nsec++] = ISP_RF_SEC_PROFILE;
		}
		tb->data[tb->nsec] = t[i].data;
		tb->len[tb->nsec] = (uint64_t)t[i].rows *
				    (uint64_t)reis_rf_row_bytes(t[i].dtype, t[i].dim);
		tb->sec[tb->nsec++] = ISP_RF_SEC_ROWS;
		run->total += tb->len[0] + (tb->nsec > 1 ? tb->len[1] : 0);
	}
}

/* Count one synchronous command of the deploy in the options. */
static void rf_dep_count(struct reis_rf_deploy_opts *opts, const struct reis_cpl *c)
{
	opts->ncmds++;
	opts->time_ns += c->time_ns;
	opts->energy_nj += c->energy_nj;
}

/* The stream's first failing write, as the handle's error. */
static int rf_dep_stream_err(struct reis_dev *dev, const struct rf_dep_run *run,
			     const struct reis_rf_table *t)
{
	char what[80];

	dev->last = run->err_cpl;
	if (run->msg[0])	/* a write the drive refused: its reason and log entry */
		reis__seterr(dev, run->err, "%s", run->msg);
	else if (run->err_cpl.status || run->err_cpl.err) {
		snprintf(what, sizeof(what), "%s section at offset %llu",
			 rf_sec_name(run->err_sec), (unsigned long long)run->err_off);
		reis__rf_cpl_err(dev, NULL, &run->err_cpl, ISP_OP_RF_TBL_WRITE, t[run->err_tbl].tid,
				 what);
	}
	return run->err;
}

/* All or nothing: remove what this call created, keep the error. */
static void rf_dep_undo(struct reis_dev *dev, const struct rf_dep_run *run,
			const struct reis_rf_table *t, unsigned n)
{
	char keep_msg[REIS_ERRMSG_LEN];
	struct reis_cpl keep_cpl = dev->last;
	unsigned i;

	memcpy(keep_msg, dev->errmsg, sizeof(keep_msg));
	for (i = 0; i < n; i++)
		if (run->tb && run->tb[i].created)
			rf_simple(dev, ISP_OP_RF_TBL_DELETE, t[i].tid, 0);
	dev->last = keep_cpl;
	memcpy(dev->errmsg, keep_msg, sizeof(keep_msg));
}

int reis_rf_deployv(struct reis_dev *dev, const struct reis_rf_table *t, unsigned n,
		    struct reis_rf_deploy_opts *opts)
{
	struct reis_rf_deploy_opts dflt;
	struct rf_dep_run run;
	uint32_t chunk = 0, depth = 0;
	unsigned i;
	int ret = 0;

	if (!dev)
		return -EINVAL;
	if (dev->in_cb)
		return reis__seterr(dev, -EDEADLK, "deploy: called from a callback");
	if (!t || !n || n > RF_DEPLOY_MAX_TABLES)
		return reis__seterr(dev, -EINVAL, "deploy: %u tables (1..%u)", n,
				    RF_DEPLOY_MAX_TABLES);
	if (!opts) {
		memset(&dflt, 0, sizeof(dflt));
		opts = &dflt;
	}
	ret = rf_dep_check(dev, t, n, opts, &chunk, &depth);
	if (ret)
		return ret;
	memset(&run, 0, sizeof(run));
	run.o = opts;
	run.dev = dev;
	run.nslots = depth;
	run.tb = calloc(n, sizeof(*run.tb));
	run.slots = calloc(depth, sizeof(*run.slots));
	if (!run.tb || !run.slots) {
		ret = reis__seterr(dev, -ENOMEM, "deploy: out of memory");
		goto out;
	}
	rf_dep_plan(&run, t, n);
	for (i = 0; i < n && !ret; i++) {
		ret = rf_create(dev, &t[i]);
		rf_dep_count(opts, &dev->last);
		if (!ret)
			run.tb[i].created = 1;
	}
	if (!ret) {
		ret = rf_dep_stream(dev, &run, n, chunk);
		if (ret) {
			/* Transport broken: the slots may still be in use. */
			reis__seterr(dev, ret, "deploy: %s: %s", reis_transport(dev),
				     reis_strerror(ret));
			run.slots = NULL;
			goto cleanup;
		}
		if (run.err)
			ret = rf_dep_stream_err(dev, &run, t);
	}
	for (i = 0; i < n && !ret; i++) {
		ret = rf_simple(dev, ISP_OP_RF_TBL_COMMIT, t[i].tid, 0);
		rf_dep_count(opts, &dev->last);
	}
	if (!ret && opts->progress)
		opts->progress(opts->progress_arg, run.total, run.total);
cleanup:
	if (ret)
		rf_dep_undo(dev, &run, t, n);
out:
	if (run.slots)
		for (i = 0; i < run.nslots; i++)
			free(run.slots[i].bounce);
	free(run.slots);
	free(run.tb);
	return ret;
}

int reis_rf_deploy(struct reis_dev *dev, const struct reis_rf_table *t,
		   struct reis_rf_deploy_opts *opts)
{
	return reis_rf_deployv(dev, t, 1, opts);
}

int reis_rf_delete(struct reis_dev *dev, uint32_t tid)
{
	if (!dev)
		return -EINVAL;
	return rf_simple(dev, ISP_OP_RF_TBL_DELETE, tid, 0);
}

int reis_rf_switch(struct reis_dev *dev, uint32_t tid)
{
	if (!dev)
		return -EINVAL;
	return rf_simple(dev, ISP_OP_RF_SWITCH, tid, 0);
}

/* ---------------------------------------------------------------------- */
/* Statistics and list                                                     */
/* ---------------------------------------------------------------------- */

int reis_rf_stats_decode(const void *buf, size_t len, struct reis_rf_stats *st)
{
	struct isp_wire_rf_stats w;
	unsigned n;

	if (!buf || !st || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	if (w.create.dtype < ISP_RF_FP32 || w.create.dtype > ISP_RF_INT8 ||
	    w.create.mode < ISP_RF_RECSSD || w.create.mode > ISP_RF_RECFLASH ||
	    !w.create.dim || w.create.dim > ISP_RF_MAX_DIM ||
	    w.create.rows > ISP_RF_MAX_ROWS ||
	    w.state < ISP_RF_DEPLOYING || w.state > ISP_RF_READY ||
	    w.remap_state > ISP_RF_REMAP_STAGED)
		return -EPROTO;
	memset(st, 0, sizeof(*st));
	st->tid = w.create.tid;
	st->rows = w.create.rows;
	st->dim = w.create.dim;
	st->dtype = w.create.dtype;
	st->mode = w.create.mode;
	st->flags = w.create.flags;
	st->trigger = w.create.trigger;
	st->hot_bp = w.create.hot_bp;
	st->trigger_ppm = w.create.trigger_ppm;
	st->period = w.create.period;
	/* The name may lack its NUL and holds whatever the drive put there. */
	for (n = 0; n < ISP_RF_NAME_LEN - 1 && w.create.name[n]; n++) {
		char c = w.create.name[n];

		st->name[n] = c >= 0x20 && c < 0x7f && c != '"' && c != '\\' ? c : '?';
	}
	st->name[n] = '\0';
	st->state = w.state;
	st->remap_state = w.remap_state;
	st->generation = w.generation;
	st->rows_per_page = w.rows_per_page;
	st->received_rows = w.received[ISP_RF_SEC_ROWS];
	st->received_profile = w.received[ISP_RF_SEC_PROFILE];
	st->pages = w.pages;
	st->dram_bytes = w.dram_bytes;
	st->sls_bags = w.sls_bags;
	st->lookups = w.lookups;
	st->page_reads = w.page_reads;
	st->cache_hits = w.cache_hits;
	st->cache_misses = w.cache_misses;
	st->bytes_sensed = w.bytes_sensed;
	st->bytes_useful = w.bytes_useful;
	st->bytes_out = w.bytes_out;
	st->model_ns = w.model_ns;
	st->energy_pj = w.energy_pj;
	st->tracked_keys = w.tracked_keys;
	st->remaps = w.remaps;
	st->remap_rows_moved = w.remap_rows_moved;
	st->remap_page_reads = w.remap_page_reads;
	st->remap_programs = w.remap_programs;
	st->remap_erases = w.remap_erases;
	st->remap_ns = w.remap_ns;
	st->trigger_hot_new = w.trigger_hot_new;
	st->utilisation = w.bytes_sensed ? (double)w.bytes_useful / (double)w.bytes_sensed : 0;
	st->hit_rate = w.cache_hits + w.cache_misses ?
		       (double)w.cache_hits / (double)(w.cache_hits + w.cache_misses) : 0;
	return 0;
}

int reis_rf_table_stats(struct reis_dev *dev, uint32_t tid, uint32_t flags,
			struct reis_rf_stats *st)
{
	_Alignas(64) uint8_t buf[sizeof(struct isp_wire_rf_stats)];
	struct reis_req req;
	int ret;

	if (!dev || !st)
		return -EINVAL;
	if (flags & ~REIS_RF_STATS_RESET)
		return reis__seterr(dev, -EINVAL, "RF_TBL_STATS: unknown flags 0x%x", flags);
	reis_prep_cmd(&req, ISP_OP_RF_TBL_STATS, buf, sizeof(buf));
	req.cmd.cdw12 = tid;
	req.cmd.cdw13 = flags;
	ret = rf_exec(dev, &req, tid);
	if (ret)
		return ret;
	ret = reis_rf_stats_decode(buf, sizeof(buf), st);
	if (ret) {
		dev->last.err = ret;
		return reis__seterr(dev, ret, "RF_TBL_STATS table %u: malformed entry", tid);
	}
	if (st->tid != tid) {
		dev->last.err = -EPROTO;
		return reis__seterr(dev, -EPROTO, "RF_TBL_STATS table %u: the drive answered "
				    "for table %u", tid, st->tid);
	}
	return 0;
}

int reis_rf_list(struct reis_dev *dev, struct reis_rf_stats *out, unsigned max)
{
	const uint32_t ent = sizeof(struct isp_wire_rf_stats);
	const uint32_t hdr = sizeof(struct isp_wire_rf_list);
	struct isp_wire_rf_list lh;
	uint32_t first = 0, total = 0, per, len, k;
	struct reis_req req;
	uint8_t *buf;
	int ret = 0, rounds = 0;

	if (!dev || (!out && max))
		return -EINVAL;
	per = (dev->max_xfer - hdr) / ent;
	if (per > 64)
		per = 64;
	len = hdr + per * ent;
	buf = aligned_alloc(64, (len + 63) & ~63u);
	if (!buf)
		return reis__seterr(dev, -ENOMEM, "RF_TBL_LIST: out of memory");
	for (;;) {
		reis_prep_cmd(&req, ISP_OP_RF_TBL_LIST, buf, len);
		req.cmd.cdw12 = first;
		ret = rf_exec(dev, &req, 0);
		if (ret)
			break;
		memcpy(&lh, buf, hdr);
		if (lh.count > per || lh.count > lh.total || first + lh.count > lh.total ||
		    lh.total > 1u << 20) {
			ret = reis__seterr(dev, -EPROTO, "RF_TBL_LIST: malformed header (total "
					   "%u, count %u at index %u)", lh.total, lh.count,
					   first);
			dev->last.err = ret;
			break;
		}
		total = lh.total;
		for (k = 0; k < lh.count && first + k < max; k++) {
			ret = reis_rf_stats_decode(buf + hdr + (size_t)k * ent, ent,
						   &out[first + k]);
			if (ret) {
				reis__seterr(dev, ret, "RF_TBL_LIST: malformed entry %u",
					     first + k);
				dev->last.err = ret;
				break;
			}
		}
		if (ret)
			break;
		first += lh.count;
		/* Enough, or the list shrank under us, or the drive stalls. */
		if (first >= total || first >= max || !lh.count || ++rounds > 1 << 16)
			break;
	}
	free(buf);
	return ret ? ret : (int)total;
}

/* ---------------------------------------------------------------------- */
/* Profile, remap                                                          */
/* ---------------------------------------------------------------------- */

static int rf_profile_prep(struct reis_cmd *cmd, uint64_t off, uint32_t len, int last,
			   void *arg)
{
	(void)len;
	(void)last;
	cmd->cdw12 = *(const uint32_t *)arg;
	cmd->cdw14 = (uint32_t)off;
	cmd->cdw15 = (uint32_t)(off >> 32);
	return 0;
}

int reis_rf_profile(struct reis_dev *dev, uint32_t tid, const uint32_t *counts,
		    uint32_t n)
{
	struct reis_stream s;
	char obj[40];

	if (!dev)
		return -EINVAL;
	if (!counts || !n || n > ISP_RF_MAX_ROWS)
		return reis__seterr(dev, -EINVAL, "RF_PROFILE table %u: %u counts (1..%u)",
				    tid, n, ISP_RF_MAX_ROWS);
	memset(&s, 0, sizeof(s));
	s.opcode = ISP_OP_RF_PROFILE;
	s.depth = 1;		/* in order from offset 0 */
	s.prep = rf_profile_prep;
	s.arg = &tid;
	snprintf(obj, sizeof(obj), " table %u counts", tid);
	/* a refused command: "RF_PROFILE table 7 counts at offset 0: <reason>: ..." */
	return reis__stream_obj(dev, &s, counts, (uint64_t)n * 4u, obj);
}

int reis_rf_remap(struct reis_dev *dev, uint32_t tid, uint32_t flags,
		  struct reis_rf_remap_info *info)
{
	const uint32_t known = ISP_RF_REMAP_FULL | ISP_RF_REMAP_ADAPTIVE |
			       ISP_RF_REMAP_IF_TRIGGERED | ISP_RF_REMAP_SWITCH;
	const uint32_t kind = flags & (ISP_RF_REMAP_FULL | ISP_RF_REMAP_ADAPTIVE);
	struct reis_rf_stats before, after;
	struct reis_cpl cpl;
	int ret;

	if (!dev)
		return -EINVAL;
	if ((flags & ~known) || (kind != ISP_RF_REMAP_FULL && kind != ISP_RF_REMAP_ADAPTIVE))
		return reis__seterr(dev, -EINVAL, "RF_REMAP table %u: flags 0x%x need "
				    "exactly one of FULL and ADAPTIVE", tid, flags);
	if (info) {
		memset(info, 0, sizeof(*info));
		ret = reis_rf_table_stats(dev, tid, 0, &before);
		if (ret)
			return ret;
	}
	ret = rf_simple(dev, ISP_OP_RF_REMAP, tid, flags);
	if (ret || !info)
		return ret;
	cpl = dev->last;
	ret = reis_rf_table_stats(dev, tid, 0, &after);
	if (ret)
		return ret;
	dev->last = cpl;
	info->time_ns = cpl.time_ns;
	info->remap_state = after.remap_state;
	info->generation = after.generation;
	info->triggered = after.remaps != before.remaps ||
			  after.remap_state != before.remap_state ||
			  after.generation != before.generation;
	if (info->triggered) {
		info->rows_moved = after.remap_rows_moved - before.remap_rows_moved;
		info->page_reads = after.remap_page_reads - before.remap_page_reads;
		info->programs = after.remap_programs - before.remap_programs;
		info->erases = after.remap_erases - before.remap_erases;
		info->remap_ns = after.remap_ns;
	}
	return 0;
}
