/* SPDX-License-Identifier: MIT */
/*
 * isp_dev.c - the emulated ISP drive (docs/command-set.md): command
 * dispatch, the device commands, metadata commits shared by the engines,
 * statistics, timeline export.
 */

/*
 * Decodes and bounds every field of a vendor command (docs/command-set.md)
 * before handing it to the handler of its opcode. The same code runs inside
 * QEMU and in libreis' in-process transport.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "flash_preset.h"
#include "ftl.h"
#include "isp_dev.h"
#include "isp_internal.h"
#include "isp_pool.h"
#include "cs_int.h"

/* Result table bounds (docs/command-set.md section 6). */
#define ISP_MAX_TICKETS 1024
/* The drive's small state outside the computed parts of isp_hostmem.h's
 * fixed share: the timing engine's calendars, the error ring, counters. */
#define ISP_HOST_SLACK (8ull << 20)
/* Events kept per traced command; more are counted as dropped. */
#define ISP_TRACE_MAX_EVENTS (1u << 20)
/* Events of one command's timeline with isp-trace-dir (every command). */
#define ISP_TRACE_DIR_EVENTS (1u << 16)
#define ISP_TRACE_MAX_JSON (64u << 20)

/* Engines of this drive, in metadata order. */
extern const struct isp_engine isp_engine_reis;
extern const struct isp_engine isp_engine_recflash;
extern const struct isp_engine isp_engine_ftl;

static const struct isp_engine *const isp_engines[] = {
	&isp_engine_reis,
	&isp_engine_recflash,
	&isp_engine_ftl,	/* ordinary I/O: no opcodes (isp_ftl.c) */
};

#define ISP_NENGINES (sizeof(isp_engines) / sizeof(isp_engines[0]))

struct isp_dev {
	struct fp_params params;
	struct isp_host_mem hm;		/* the shares of host_mem (isp_hostmem.h) */
	uint32_t max_xfer;
	int timing_delay;
	char *trace_dir;
	struct fs *fs;
	struct ft *ft;
	struct isp_results results;
	struct isp_pool *pool;		/* host worker set */
	const char *isa;		/* host_isa: the widest kernels, or NULL */
	void *engine_state[ISP_NENGINES];

	pthread_mutex_t lock;		/* stats, trace arming, sequence */
	uint64_t cmds[ISP_CLS_N];
	uint64_t errors[ISP_CLS_N];
	uint64_t emul_ns;
	uint64_t seq;			/* commands executed, names trace files */
	uint32_t trace_ticket;		/* armed trace, 0: none */
	uint64_t trace_written;		/* bytes written to trace_dir (<= trace_cap) */
	uint64_t trace_skipped;		/* timelines not kept: budget or trace_cap */
	struct ft_trace *trace_all;	/* isp_dev_trace_all(): every command */
	uint8_t trace_opcode;		/* 0: the next command of any opcode */

	pthread_mutex_t commit_lock;	/* serializes isp_dev_commit() */

	/* Error Information log (isp_err_*, under lock): ring of the last
	 * ISP_ERR_RING failures, err_count the total so far. */
	struct isp_wire_err_text errs[ISP_ERR_RING];
	uint64_t err_count;

	struct cs_state *cs;		/* the standard interface, cp/; NULL: off */
};



static uint16_t isp_noop(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			 void *data, size_t len, struct isp_cpl *cpl);
static uint16_t isp_echo_h2c(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			     void *data, size_t len, struct isp_cpl *cpl);
static uint16_t isp_echo_c2h(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			     void *data, size_t len, struct isp_cpl *cpl);
static uint16_t isp_identify(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			     void *data, size_t len, struct isp_cpl *cpl);
static uint16_t isp_stats_cmd(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			      void *data, size_t len, struct isp_cpl *cpl);
static uint16_t isp_trace_arm(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			      void *data, size_t len, struct isp_cpl *cpl);
static uint16_t isp_result_read(struct isp_ctx *ctx, const struct isp_cmd *cmd,
				void *data, size_t len, struct isp_cpl *cpl);
static uint16_t isp_result_release(struct isp_ctx *ctx, const struct isp_cmd *cmd,
				   void *data, size_t len, struct isp_cpl *cpl);

static const struct isp_op isp_dev_ops[] = {
	{ ISP_OP_NOOP, ISP_CLS_DEVICE, 0, "ISP_NOOP", isp_noop },
	{ ISP_OP_ECHO_H2C, ISP_CLS_DEVICE, 0, "ISP_ECHO_H2C", isp_echo_h2c },
	{ ISP_OP_IDENTIFY, ISP_CLS_DEVICE, sizeof(struct isp_wire_identify),
	  "ISP_IDENTIFY", isp_identify },
	{ ISP_OP_ECHO_C2H, ISP_CLS_DEVICE, 0, "ISP_ECHO_C2H", isp_echo_c2h },
	{ ISP_OP_STATS, ISP_CLS_DEVICE, sizeof(struct isp_wire_stats),
	  "ISP_STATS", isp_stats_cmd },
	{ ISP_OP_TRACE_ARM, ISP_CLS_DEVICE, 0, "ISP_TRACE_ARM", isp_trace_arm },
	{ ISP_OP_RESULT_READ, ISP_CLS_RESULT, 0, "ISP_RESULT_READ", isp_result_read },
	{ ISP_OP_RESULT_RELEASE, ISP_CLS_RESULT, 0, "ISP_RESULT_RELEASE",
	  isp_result_release },
};

static const struct isp_op *isp_find_op(uint8_t opcode)
{
	size_t e, i;

	for (i = 0; i < sizeof(isp_dev_ops) / sizeof(isp_dev_ops[0]); i++)
		if (isp_dev_ops[i].opcode == opcode)
			return &isp_dev_ops[i];
	for (e = 0; e < ISP_NENGINES; e++) {
		const struct isp_engine *eng = isp_engines[e];

		for (i = 0; eng && i < eng->nops; i++)
			if (eng->ops[i].opcode == opcode)
				return &eng->ops[i];
	}
	return NULL;
}

const char *isp_opcode_name(uint8_t opcode)
{
	const struct isp_op *op = isp_find_op(opcode);

	return op ? op->name : NULL;
}

int isp_dev_opcode_supported(uint8_t opcode, uint32_t *effects)
{
	const struct isp_op *op = isp_find_op(opcode);

	if (effects)
		*effects = op ? 1u : 0u;	/* CSUPP; no LBA content change */
	return op != NULL;
}

const char *isp_status_name(uint16_t status)
{
	switch (status & ISP_STATUS_CODE_MASK) {
	case ISP_SC_SUCCESS: return "Success";
	case ISP_SC_INVALID_OPCODE: return "Invalid Command Opcode";
	case ISP_SC_INVALID_FIELD: return "Invalid Field in Command";
	case ISP_SC_DATA_XFER_ERROR: return "Data Transfer Error";
	case ISP_SC_INTERNAL: return "Internal Error";
	case ISP_SC_ABORT_REQ: return "Command Abort Requested";
	case ISP_SC_ABORT_SQ_DEL: return "Command Aborted due to SQ Deletion";
	case ISP_SC_INVALID_NSID: return "Invalid Namespace or Format";
	case ISP_SC_CAP_EXCEEDED: return "Capacity Exceeded";
	case ISP_SC_UNKNOWN_ID: return "ISP Unknown ID";
	case ISP_SC_ID_EXISTS: return "ISP ID Exists";
	case ISP_SC_BUSY: return "ISP Busy";
	case ISP_SC_DIM_MISMATCH: return "ISP Dimension Mismatch";
	case ISP_SC_BAD_OFFSET: return "ISP Bad Offset";
	case ISP_SC_INCOMPLETE: return "ISP Incomplete";
	case ISP_SC_BAD_PAYLOAD: return "ISP Bad Payload";
	case ISP_SC_MISCOMPARE: return "ISP Miscompare";
	case ISP_SC_RESOURCE: return "ISP Resource Busy";
	case ISP_SC_TICKET_IN_USE: return "ISP Ticket In Use";
	default: return cs_status_name(status);
	}
}

uint16_t isp_status_from_errno(int err)
{
	switch (err) {
	case 0: return ISP_SC_SUCCESS;
	case -ENOSPC: return ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR;
	case -ENOMEM: return ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR;
	case -EFBIG: return ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR;
	case -ENOENT: return ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR;
	case -EEXIST: return ISP_SC_ID_EXISTS | ISP_STATUS_DNR;
	case -EBUSY: return ISP_SC_BUSY | ISP_STATUS_DNR;
	case -EINVAL: return ISP_BAD_FIELD;
	/* stopped by the cancel flag; no DNR: the same command may succeed */
	case -ECANCELED: return ISP_SC_ABORT_REQ;
	default: return ISP_SC_INTERNAL;
	}
}

static uint64_t isp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- metadata: every engine's part in one blob ---- */

#define ISP_META_MAGIC 0x4d505349u	/* "ISPM" */
#define ISP_META_VERSION 1u
#define ISP_META_NAME 16

struct isp_meta_hdr {
	uint32_t magic;
	uint32_t version;
	uint32_t nparts;
	uint32_t rsvd;
};

struct isp_meta_part {
	char name[ISP_META_NAME];
	uint64_t len;
};

/* Find engine @name's part in the committed blob. */
static int isp_meta_find(const void *blob, size_t len, const char *name,
			 const void **part, size_t *plen)
{
	const uint8_t *p = blob;
	struct isp_meta_hdr h;
	size_t off = sizeof(h);
	uint32_t i;

	*part = NULL;
	*plen = 0;
	if (len == 0)
		return 0;
	if (len < sizeof(h))
		return -EIO;
	memcpy(&h, p, sizeof(h));
	if (h.magic != ISP_META_MAGIC || h.version != ISP_META_VERSION)
		return -EIO;
	for (i = 0; i < h.nparts; i++) {
		struct isp_meta_part mp;

		if (len - off < sizeof(mp))
			return -EIO;
		memcpy(&mp, p + off, sizeof(mp));
		off += sizeof(mp);
		if (mp.len > len - off)
			return -EIO;
		if (strncmp(mp.name, name, ISP_META_NAME) == 0) {
			*part = p + off;
			*plen = (size_t)mp.len;
			return 0;
		}
		off += (size_t)mp.len;
	}
	return 0;
}

int isp_dev_commit(struct isp_dev *dev)
{
	struct fm_iov iov[1 + 2 * ISP_NENGINES];
	struct isp_meta_part parts[ISP_NENGINES];
	void *blobs[ISP_NENGINES] = { NULL };
	struct isp_meta_hdr h = { ISP_META_MAGIC, ISP_META_VERSION, 0, 0 };
	unsigned n = 1;
	size_t e;
	int ret = 0;

	pthread_mutex_lock(&dev->commit_lock);
	for (e = 0; e < ISP_NENGINES && !ret; e++) {
		size_t len = 0;

		if (!isp_engines[e] || !dev->engine_state[e])
			continue;
		ret = isp_engines[e]->save(dev->engine_state[e], &blobs[e], &len);
		if (ret)
			break;
		memset(&parts[h.nparts], 0, sizeof(parts[0]));
		snprintf(parts[h.nparts].name, ISP_META_NAME, "%s", isp_engines[e]->name);
		parts[h.nparts].len = len;
		iov[n].base = &parts[h.nparts];
		iov[n++].len = sizeof(parts[0]);
		iov[n].base = blobs[e];
		iov[n++].len = len;
		h.nparts++;
	}
	iov[0].base = &h;
	iov[0].len = sizeof(h);
	if (!ret)
		ret = fs_commitv(dev->fs, iov, n);
	pthread_mutex_unlock(&dev->commit_lock);
	for (e = 0; e < ISP_NENGINES; e++)
		free(blobs[e]);
	return ret;
}

/* ---- open / close ---- */

static char *isp_strdup(const char *s)
{
	size_t n;
	char *d;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

/* The host kernels' levels a drive may be held to (host_isa=). */
static const char *const isp_isa_names[] = { "portable", "popcnt", "avx2", "avx512" };

/* Value of item @s (@n bytes, "key = value") when its key is @key, else NULL;
 * *@vlen its length. */
static const char *isp_param_val(const char *s, size_t n, const char *key, size_t *vlen)
{
	size_t k = 0, kl = strlen(key);
	const char *v;

	while (k < n && (s[k] == ' ' || s[k] == '\t'))
		k++;
	if (n - k <= kl || strncmp(s + k, key, kl) ||
	    (s[k + kl] != '=' && s[k + kl] != ' ' && s[k + kl] != '\t'))
		return NULL;
	v = memchr(s + k, '=', n - k);
	if (!v)
		return NULL;
	for (v++; v < s + n && (*v == ' ' || *v == '\t'); v++)
		;
	for (*vlen = (size_t)(s + n - v); *vlen && (v[*vlen - 1] == ' ' || v[*vlen - 1] == '\t');)
		(*vlen)--;
	return v;
}

/*
 * The host's options among the parameters into *@threads (host_threads=N)
 * and *@isa (host_isa=NAME: the widest kernels a drive uses, for tests and
 * comparisons) when given; the model's into *@model (malloc'd,
 * ';'-separated). -EINVAL with the reason.
 */
static int isp_dev_host_params(const char *params, char **model, uint32_t *threads,
			       const char **isa, char *err, size_t errlen)
{
	size_t len = params ? strlen(params) : 0, w = 0;
	const char *s = params;
	char *m;

	*model = NULL;
	if (!len)
		return 0;
	m = malloc(len + 1);
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	while (*s) {
		size_t n = strcspn(s, ";,"), vl = 0, i;
		const char *v;

		if ((v = isp_param_val(s, n, "host_threads", &vl))) {
			char num[16], *end;
			unsigned long t = ULONG_MAX;

			if (vl && vl < sizeof(num)) {
				memcpy(num, v, vl);
				num[vl] = '\0';
				t = strtoul(num, &end, 10);
				if (*end)
					t = ULONG_MAX;
			}
			if (t > ISP_HOST_THREADS_MAX) {
				snprintf(err, errlen, "host_threads=%.*s: 0..%u allowed", (int)vl, v,
					 ISP_HOST_THREADS_MAX);
				free(m);
				return -EINVAL;
			}
			*threads = (uint32_t)t;
		} else if ((v = isp_param_val(s, n, "host_isa", &vl))) {
			for (i = 0; i < sizeof(isp_isa_names) / sizeof(isp_isa_names[0]); i++)
				if (strlen(isp_isa_names[i]) == vl && !strncmp(v, isp_isa_names[i], vl))
					break;
			if (i == sizeof(isp_isa_names) / sizeof(isp_isa_names[0])) {
				snprintf(err, errlen, "host_isa=%.*s: portable, popcnt, avx2 or "
					 "avx512 allowed", (int)vl, v);
				free(m);
				return -EINVAL;
			}
			*isa = isp_isa_names[i];
		} else if (n) {
			if (w)
				m[w++] = ';';
			memcpy(m + w, s, n);
			w += n;
		}
		s += n + (s[n] != 0);
	}
	m[w] = '\0';
	*model = m;
	return 0;
}

/* Host threads of the worker set for @want (0: the online CPUs). */
static unsigned isp_dev_threads(uint32_t want)
{
	long n = want ? (long)want : sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1u : n > (long)ISP_HOST_THREADS_MAX ? ISP_HOST_THREADS_MAX : (unsigned)n;
}

/* The preset named in @cfg (default reis-ssd1) with its overrides; the
 * host's own among them into *@threads and dev->isa. */
static int isp_dev_load_params(const struct isp_dev_config *cfg, struct isp_dev *dev,
			       uint32_t *threads, char *err, size_t errlen)
{
	struct fp_params *p = &dev->params;
	const char *preset = cfg->preset && *cfg->preset ? cfg->preset : "reis-ssd1";
	char *model;
	int ret;

	ret = fp_preset(preset, p);
	if (ret) {
		const char *const *nm = fp_preset_names();
		size_t off;

		off = (size_t)snprintf(err, errlen, "unknown preset '%s' (known:", preset);
		for (; *nm && off < errlen; nm++)
			off += (size_t)snprintf(err + off, errlen - off, " %s", *nm);
		if (off < errlen)
			snprintf(err + off, errlen - off, ")");
		return -EINVAL;
	}
	*threads = cfg->host_threads;
	ret = isp_dev_host_params(cfg->params, &model, threads, &dev->isa, err, errlen);
	if (ret)
		return ret;
	ret = fp_apply(p, model, err, errlen);
	free(model);
	/* an unknown name is a bad option like a bad value (libreis' -EINVAL) */
	return ret == -ENOENT ? -EINVAL : ret;
}

/*
 * The shares of host_mem (isp_hostmem.h): the store's and the engines'
 * fixed state, the result table's entries, the slack; the budgets then
 * take their parts and the in-memory store the rest.
 */
/*
 * The largest metadata blob of an in-memory drive: a 64th of host_mem,
 * 1..64 MiB (its image holds two, a commit assembles a third); a backing
 * file keeps the size it was created with (64 MiB).
 */
static uint64_t isp_dev_meta_max(const struct fp_params *p, int backing)
{
	uint64_t m = p->host_mem / 64;

	if (backing)
		return 0;
	return m < (1ull << 20) ? (1ull << 20) : m > (64ull << 20) ? (64ull << 20) : m;
}

static int isp_dev_plan(struct isp_dev *dev, const struct isp_dev_config *cfg, char *err,
			size_t errlen)
{
	int backing = (cfg->backing && *cfg->backing) || cfg->image;
	uint64_t fixed = fs_fixed_bytes(&dev->params, backing,
					isp_dev_meta_max(&dev->params, backing)) + ISP_HOST_SLACK +
			 (uint64_t)ISP_MAX_TICKETS * isp_results_entry_bytes();
	size_t e;
	int ret;

	for (e = 0; e < ISP_NENGINES; e++)
		if (isp_engines[e] && isp_engines[e]->host_fixed)
			fixed += isp_engines[e]->host_fixed(&dev->params);
	ret = fp_host_plan(&dev->params, backing, fixed, &dev->hm, err, errlen);
	if (ret && err[0]) {
		char why[320];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "host memory: %s", why);
	}
	return ret;
}

void isp_dev_host_mem(const struct isp_dev *dev, struct isp_host_mem *out)
{
	*out = dev->hm;
}

/* Open every engine on its part of the committed metadata. */
static int isp_dev_engines_open(struct isp_dev *dev, char *err, size_t errlen)
{
	const void *blob;
	size_t blen, e;
	int ret;

	fs_user_blob(dev->fs, &blob, &blen);
	for (e = 0; e < ISP_NENGINES; e++) {
		const void *part;
		size_t plen;

		if (!isp_engines[e])
			continue;
		ret = isp_meta_find(blob, blen, isp_engines[e]->name, &part, &plen);
		if (ret) {
			snprintf(err, errlen, "metadata of the backing file is corrupt");
			return ret;
		}
		ret = isp_engines[e]->open(dev, part, plen, &dev->engine_state[e],
					   err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

int isp_dev_open(const struct isp_dev_config *cfg, struct isp_dev **out,
		 char *err, size_t errlen)
{
	char dummy[8];
	struct fs_config fcfg;
	struct isp_dev *dev;
	uint32_t threads = 0;
	int ret;

	if (!err) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = '\0';
	*out = NULL;
	if (!cfg) {
		snprintf(err, errlen, "no configuration");
		return -EINVAL;
	}
	if (cfg->max_xfer < 4096 || cfg->max_xfer > ISP_MAX_XFER_CAP ||
	    cfg->max_xfer % 4) {
		snprintf(err, errlen, "max_xfer=%u out of range [4096, %u] or not "
			 "a multiple of 4", cfg->max_xfer, ISP_MAX_XFER_CAP);
		return -EINVAL;
	}
	dev = calloc(1, sizeof(*dev));
	if (!dev) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&dev->lock, NULL);
	pthread_mutex_init(&dev->commit_lock, NULL);
	ret = isp_dev_load_params(cfg, dev, &threads, err, errlen);
	if (!ret)
		ret = isp_dev_plan(dev, cfg, err, errlen);
	isp_results_init(&dev->results, ISP_MAX_TICKETS, dev->hm.results ? dev->hm.results : 1);
	if (ret)
		goto fail;
	ret = isp_pool_open(isp_dev_threads(threads), &dev->pool);
	if (ret) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	dev->max_xfer = cfg->max_xfer;
	dev->timing_delay = cfg->timing_delay;
	dev->trace_dir = isp_strdup(cfg->trace_dir);
	if (cfg->trace_dir && !dev->trace_dir) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	memset(&fcfg, 0, sizeof(fcfg));
	fcfg.path = cfg->backing && *cfg->backing ? cfg->backing : NULL;
	fcfg.params = &dev->params;
	fcfg.io = cfg->image;
	fcfg.meta_max = isp_dev_meta_max(&dev->params, fcfg.path || fcfg.io);
	ret = fs_open(&fcfg, &dev->fs, err, errlen);
	if (ret)
		goto fail;
	ret = ft_open(&dev->params, &dev->ft);
	if (ret) {
		snprintf(err, errlen, "timing engine: %s", strerror(-ret));
		goto fail;
	}
	ret = isp_dev_engines_open(dev, err, errlen);
	if (ret)
		goto fail;
	fs_user_blob_free(dev->fs);
	ret = cs_open(dev, cfg, &dev->cs, err, errlen);
	if (ret)
		goto fail;
	*out = dev;
	return 0;

fail:
	isp_dev_close(dev);
	return ret;
}

void isp_dev_close(struct isp_dev *dev)
{
	size_t e;

	if (!dev)
		return;
	/* The FTL's map changes with every write, not only at commits: a clean
	 * close keeps the last one (docs/ftl.md, "Crash rules"). */
	if (dev->fs && isp_dev_ftl(dev) && ftl_dirty(isp_dev_ftl(dev)))
		isp_dev_commit(dev);
	cs_close(dev->cs);
	for (e = ISP_NENGINES; e-- > 0;)
		if (isp_engines[e] && dev->engine_state[e])
			isp_engines[e]->close(dev->engine_state[e]);
	isp_pool_close(dev->pool);
	isp_results_destroy(&dev->results);
	ft_close(dev->ft);
	fs_close(dev->fs);
	pthread_mutex_destroy(&dev->lock);
	pthread_mutex_destroy(&dev->commit_lock);
	free(dev->trace_dir);
	free(dev);
}

void isp_dev_trace_all(struct isp_dev *dev, struct ft_trace *tr)
{
	pthread_mutex_lock(&dev->lock);
	dev->trace_all = tr;
	pthread_mutex_unlock(&dev->lock);
}

struct ft_trace *isp_dev_trace_shared(struct isp_dev *dev)
{
	struct ft_trace *tr;

	pthread_mutex_lock(&dev->lock);
	tr = dev->trace_all;
	pthread_mutex_unlock(&dev->lock);
	return tr;
}

/* ---- accessors for handlers ---- */

const struct fp_params *isp_dev_params(const struct isp_dev *dev)
{
	return &dev->params;
}

struct fs *isp_dev_store(struct isp_dev *dev)
{
	return dev->fs;
}

struct isp_pool *isp_dev_pool(struct isp_dev *dev)
{
	return dev->pool;
}

const char *isp_dev_host_isa(const struct isp_dev *dev)
{
	return dev->isa;
}

struct ft *isp_dev_timing(struct isp_dev *dev)
{
	return dev->ft;
}

struct isp_results *isp_dev_results(struct isp_dev *dev)
{
	return &dev->results;
}

struct isp_results *isp_ctx_results(struct isp_ctx *ctx)
{
	return ctx->results ? ctx->results : &ctx->dev->results;
}

struct cs_state *isp_dev_cs(struct isp_dev *dev)
{
	return dev->cs;
}

uint32_t isp_dev_max_xfer(const struct isp_dev *dev)
{
	return dev->max_xfer;
}

void *isp_dev_engine(struct isp_dev *dev, const struct isp_engine *e)
{
	size_t i;

	for (i = 0; i < ISP_NENGINES; i++)
		if (isp_engines[i] == e)
			return dev->engine_state[i];
	return NULL;
}

/* ---- decode and dispatch ---- */

/* Field checks shared by isp_dev_check() and isp_dev_exec(). */
static uint16_t isp_check_cmd(const struct isp_dev *dev, const struct isp_cmd *cmd,
			      const struct isp_op **opp, struct isp_cpl *cpl)
{
	const struct isp_op *op;
	enum isp_dir dir = isp_wire_dir(cmd->opcode);
	uint64_t len = isp_cmd_data_len(cmd);

	*opp = NULL;
	if (dir == ISP_DIR_BIDI)
		return isp_fail(cpl, ISP_SC_INVALID_OPCODE | ISP_STATUS_DNR,
				"bidirectional opcode");
	op = isp_find_op(cmd->opcode);
	if (!op)
		return isp_fail(cpl, ISP_SC_INVALID_OPCODE | ISP_STATUS_DNR,
				"unknown vendor opcode");
	*opp = op;
	if (cmd->nsid == 0 || cmd->nsid == UINT32_MAX) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, ISP_SQE_NSID, 0, "nsid = 0x%x must name one "
			   "namespace", cmd->nsid);
		return isp_fail(cpl, ISP_SC_INVALID_NSID | ISP_STATUS_DNR,
				"nsid must name one namespace");
	}
	if (cmd->cdw11) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, ISP_SQE_CDW(11), 0, "NDM (CDW11) = 0x%x must "
			   "be 0", cmd->cdw11);
		return isp_fail(cpl, ISP_BAD_FIELD, "NDM (cdw11) must be 0");
	}
	if ((dir == ISP_DIR_NONE) != !len || len > dev->max_xfer ||
	    (op->fixed_len && len != op->fixed_len))
		isp_err_at(cpl, ISP_ERR_IN_SQE, ISP_SQE_CDW(10), 0, "NDT = %llu bytes: %s "
			   "allowed for %s", (unsigned long long)len, dir == ISP_DIR_NONE ?
			   "0" : op->fixed_len ? "exactly the structure's size" :
			   "1..max_xfer", op->name);
	if (dir == ISP_DIR_NONE && len)
		return isp_fail(cpl, ISP_BAD_FIELD, "NDT must be 0 for a no-data command");
	if (dir != ISP_DIR_NONE && !len)
		return isp_fail(cpl, ISP_BAD_FIELD, "NDT is 0 for a data command");
	if (len > dev->max_xfer)
		return isp_fail(cpl, ISP_BAD_FIELD, "transfer larger than max_xfer");
	if (op->fixed_len && len != op->fixed_len)
		return isp_fail(cpl, ISP_BAD_FIELD, "wrong data length for command");
	return 0;
}

static void isp_count(struct isp_dev *dev, const struct isp_op *op, uint16_t status,
		      uint64_t emul_ns)
{
	unsigned cls = op ? op->cls : ISP_CLS_OTHER;

	pthread_mutex_lock(&dev->lock);
	dev->cmds[cls]++;
	if (status)
		dev->errors[cls]++;
	dev->emul_ns += emul_ns;
	pthread_mutex_unlock(&dev->lock);
}

/* ---- Error Information log (LID 01h) and the reasons (LID C2h) ---- */

void isp_err_at(struct isp_cpl *cpl, unsigned where, unsigned byte, unsigned bit,
		const char *fmt, ...)
{
	va_list ap;
	int n;

	cpl->err_where = (uint8_t)where;
	cpl->err_byte = (uint16_t)byte;
	cpl->err_bit = (uint8_t)(bit & 7u);
	va_start(ap, fmt);
	n = vsnprintf(cpl->err_msg, sizeof(cpl->err_msg), fmt, ap);
	va_end(ap);
	/* A reason longer than C2h's field says it was cut. */
	if (n >= (int)sizeof(cpl->err_msg))
		memcpy(cpl->err_msg + sizeof(cpl->err_msg) - 4, "...", 4);
}

/* Record a failed command; the ring keeps the newest ISP_ERR_RING. */
static void isp_err_note(struct isp_dev *dev, const struct isp_cmd *cmd,
			 const struct isp_cpl *cpl)
{
	const uint32_t cdw[6] = { cmd->cdw10, cmd->cdw11, cmd->cdw12,
				  cmd->cdw13, cmd->cdw14, cmd->cdw15 };
	struct isp_wire_err_text e;

	memset(&e, 0, sizeof(e));
	e.sqid = cmd->sqid;
	e.cid = cmd->cid;
	e.status = cpl->status;
	e.nsid = cmd->nsid;
	e.opcode = cmd->opcode;
	e.loc = cpl->err_where == ISP_ERR_IN_SQE ?
		(uint16_t)(cpl->err_byte | cpl->err_bit << 8) : ISP_ERR_LOC_NONE;
	if (cpl->err_where == ISP_ERR_IN_DATA) {
		e.data_byte = (uint16_t)(cpl->err_byte + 1u);
		e.data_bit = cpl->err_bit;
	}
	e.cmd_digest = isp_wire_cmd_digest(cmd->opcode, cmd->nsid, cdw);
	snprintf(e.msg, sizeof(e.msg), "%s",
		 cpl->err_msg[0] ? cpl->err_msg : cpl->err ? cpl->err : isp_status_name(cpl->status));
	pthread_mutex_lock(&dev->lock);
	e.error_count = ++dev->err_count;
	dev->errs[(e.error_count - 1) % ISP_ERR_RING] = e;
	pthread_mutex_unlock(&dev->lock);
}

/*
 * Entry @i (0: newest) of LID 01h (NVMe's 64-byte Error Information Log
 * Entry) or C2h (isp_wire_err_text) into @out; all zero past the last one.
 */
static void isp_err_entry(struct isp_dev *dev, uint8_t lid, uint64_t i, uint8_t *out)
{
	struct isp_wire_err_text e;
	uint16_t sf;

	memset(&e, 0, sizeof(e));
	pthread_mutex_lock(&dev->lock);
	if (i < dev->err_count && i < ISP_ERR_RING)
		e = dev->errs[(dev->err_count - 1 - i) % ISP_ERR_RING];
	pthread_mutex_unlock(&dev->lock);
	if (lid == ISP_LID_ERRTEXT) {
		memcpy(out, &e, sizeof(e));
		return;
	}
	memset(out, 0, 64);
	if (!e.error_count)
		return;
	sf = (uint16_t)(e.status << 1);		/* bit 0: phase tag, 0 */
	memcpy(out, &e.error_count, 8);
	memcpy(out + 8, &e.sqid, 2);
	memcpy(out + 10, &e.cid, 2);
	memcpy(out + 12, &sf, 2);
	memcpy(out + 14, &e.loc, 2);
	memcpy(out + 24, &e.nsid, 4);		/* LBA (16..23): none */
	out[28] = ISP_LID_ERRTEXT;		/* Vendor Specific Information Available */
	out[29] = 0;				/* transport type: PCIe */
}

static int isp_err_log(struct isp_dev *dev, uint8_t lid, void *buf, size_t len, uint64_t off)
{
	size_t esz = lid == ISP_LID_ERRTEXT ? sizeof(struct isp_wire_err_text) : 64;
	uint8_t ent[sizeof(struct isp_wire_err_text)];
	size_t done = 0;

	if (off >= (uint64_t)ISP_ERR_RING * esz)
		return -EINVAL;
	if (len > ISP_ERR_RING * esz - off)
		len = ISP_ERR_RING * esz - (size_t)off;
	while (done < len) {
		uint64_t pos = off + done;
		size_t in = (size_t)(pos % esz), n = esz - in;

		if (n > len - done)
			n = len - done;
		isp_err_entry(dev, lid, pos / esz, ent);
		memcpy((uint8_t *)buf + done, ent + in, n);
		done += n;
	}
	return (int)len;
}

/* A command rejected at decode costs only the controller's overhead: its
 * time and the core cycles' energy (as ft_ctrl() charges). */
static void isp_decode_cost(const struct isp_dev *dev, struct isp_cpl *cpl)
{
	cpl->model_ns = (dev->params.ctrl_cmd + FT_PS_PER_NS - 1) / FT_PS_PER_NS;
	cpl->energy_pj = dev->params.ctrl_cmd * dev->params.core_mhz / 1000000u *
			 dev->params.e_core_cycle;
	cpl->result = isp_wire_result_pack(cpl->model_ns, cpl->energy_pj / 1000);
}

/* Standard commands (cp/): decode checks, or Invalid Opcode when off. */
static uint16_t isp_check_cs(struct isp_dev *dev, const struct isp_cmd *cmd, uint64_t *len,
			     struct isp_cpl *cpl)
{
	*len = 0;
	if (!dev->cs || cmd->set > ISP_SET_IO)
		return isp_fail(cpl, ISP_SC_INVALID_OPCODE | ISP_STATUS_DNR,
				"no memory or compute namespace on this drive");
	return cs_check(dev->cs, cmd, len, cpl);
}

static void isp_count_cs(struct isp_dev *dev, const struct isp_cmd *cmd, uint16_t status,
			 uint64_t emul_ns)
{
	if (dev->cs)
		cs_count(dev->cs, cs_cls_of(dev->cs, cmd), status);
	pthread_mutex_lock(&dev->lock);
	dev->emul_ns += emul_ns;
	pthread_mutex_unlock(&dev->lock);
}

uint64_t isp_dev_cmd_len(const struct isp_dev *dev, const struct isp_cmd *cmd)
{
	struct isp_cpl cpl;
	uint64_t len = 0;

	if (!cmd->set)
		return isp_cmd_data_len(cmd);
	memset(&cpl, 0, sizeof(cpl));
	if (isp_check_cs((struct isp_dev *)dev, cmd, &len, &cpl))
		return 0;
	return len;
}

uint16_t isp_dev_check(struct isp_dev *dev, const struct isp_cmd *cmd,
		       struct isp_cpl *cpl)
{
	const struct isp_op *op = NULL;
	uint64_t len;
	uint16_t status;

	memset(cpl, 0, sizeof(*cpl));
	if (cmd->set)
		status = isp_check_cs(dev, cmd, &len, cpl);
	else
		status = isp_check_cmd(dev, cmd, &op, cpl);
	if (status) {
		isp_decode_cost(dev, cpl);
		if (cmd->set) {
			/* a standard command's DW0/DW1 keep their meaning */
			cpl->result = 0;
			isp_count_cs(dev, cmd, status, 0);
		} else {
			isp_count(dev, op, status, 0);
		}
		isp_err_note(dev, cmd, cpl);
	}
	return status;
}

void isp_dev_note_failure(struct isp_dev *dev, const struct isp_cmd *cmd,
			  const struct isp_cpl *cpl)
{
	if (!cpl->status)
		return;
	if (cmd->set)
		isp_count_cs(dev, cmd, cpl->status, 0);
	else
		isp_count(dev, isp_find_op(cmd->opcode), cpl->status, 0);
	isp_err_note(dev, cmd, cpl);
}

/* Take the armed trace if @cmd matches it; returns its ticket or 0. */
static uint32_t isp_trace_take(struct isp_dev *dev, const struct isp_cmd *cmd)
{
	uint32_t ticket = 0;

	pthread_mutex_lock(&dev->lock);
	if (dev->trace_ticket && cmd->opcode != ISP_OP_TRACE_ARM &&
	    cmd->opcode != ISP_OP_RESULT_READ && cmd->opcode != ISP_OP_RESULT_RELEASE &&
	    (!dev->trace_opcode || dev->trace_opcode == cmd->opcode)) {
		ticket = dev->trace_ticket;
		dev->trace_ticket = 0;
	}
	pthread_mutex_unlock(&dev->lock);
	return ticket;
}

/* Publish a command's timeline as the armed ticket's result. */
static void isp_trace_publish(struct isp_dev *dev, uint32_t ticket,
			      struct ft_trace *tr, const struct isp_cpl *cpl)
{
	struct isp_wire_result_hdr hdr;
	size_t json_len = 0;
	uint8_t *blob;

	ft_trace_write_mem(dev->ft, tr, NULL, 0, &json_len);
	if (json_len > ISP_TRACE_MAX_JSON) {
		isp_results_cancel(&dev->results, ticket);
		return;
	}
	blob = malloc(sizeof(hdr) + json_len + 1);
	if (!blob) {
		isp_results_cancel(&dev->results, ticket);
		return;
	}
	ft_trace_write_mem(dev->ft, tr, (char *)blob + sizeof(hdr), json_len + 1,
			   &json_len);
	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.magic, "RSLT", 4);
	hdr.kind = ISP_RESULT_TRACE;
	hdr.total_bytes = sizeof(hdr) + json_len;
	hdr.ticket = ticket;
	hdr.model_ns = cpl->model_ns;
	hdr.energy_pj = cpl->energy_pj;
	memcpy(blob, &hdr, sizeof(hdr));
	isp_results_publish(&dev->results, ticket, blob, hdr.total_bytes,
			    NULL, NULL, NULL);
}

/*
 * A timeline for @cmd: its buffer, at its largest, is host memory from the
 * command buffer budget, taken without waiting; none (counted) when the
 * budget is held. An armed trace keeps up to ISP_TRACE_MAX_EVENTS events
 * (an eighth of the budget at most), isp-trace-dir's ISP_TRACE_DIR_EVENTS.
 * Returns the bytes taken.
 */
static uint64_t isp_trace_new(struct isp_dev *dev, const struct isp_cmd *cmd, uint32_t ticket,
			      struct ft_trace **tr)
{
	struct isp_budget *b = fs_buf_budget(dev->fs);
	size_t maxev = ticket ? ISP_TRACE_MAX_EVENTS : ISP_TRACE_DIR_EVENTS;
	uint64_t bytes;

	while (maxev > 1024 && ft_trace_bytes(maxev) > b->cap / 8)
		maxev /= 2;
	bytes = ft_trace_bytes(maxev);
	*tr = NULL;
	if (isp_budget_try_as(b, bytes, cmd->sqid) == 0) {
		if (!ft_trace_new(maxev, tr))
			return bytes;
		isp_budget_give_as(b, bytes, cmd->sqid);
	}
	pthread_mutex_lock(&dev->lock);
	dev->trace_skipped++;
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

/*
 * With isp-trace-dir, every command's timeline goes to a file, until the
 * files written reach trace_cap (the host's disk): then none (counted).
 */
static void isp_trace_file(struct isp_dev *dev, uint64_t seq, const struct isp_op *op,
			   struct ft_trace *tr)
{
	char path[4096];
	size_t len = 0;
	int fd, room;

	if (ft_trace_write_mem(dev->ft, tr, NULL, 0, &len) && !len)
		return;
	pthread_mutex_lock(&dev->lock);
	room = dev->trace_written + len <= dev->params.trace_cap;
	if (room)
		dev->trace_written += len;
	else
		dev->trace_skipped++;
	pthread_mutex_unlock(&dev->lock);
	if (!room)
		return;

	snprintf(path, sizeof(path), "%s/isp-%06llu-%s.json", dev->trace_dir,
		 (unsigned long long)seq, op->name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	ft_trace_write_fd(dev->ft, tr, fd);
	close(fd);
}

uint16_t isp_dev_exec(struct isp_dev *dev, const struct isp_cmd *cmd,
		      void *data, size_t data_len, struct isp_cpl *cpl)
{
	return isp_dev_exec_cancel(dev, cmd, data, data_len, cpl, NULL);
}

uint16_t isp_dev_exec_cancel(struct isp_dev *dev, const struct isp_cmd *cmd,
			     void *data, size_t data_len, struct isp_cpl *cpl,
			     const atomic_int *cancel)
{
	uint64_t t0 = isp_now_ns(), seq, len = 0;
	struct ft_trace *tr = NULL, *shared;
	const struct isp_op *op = NULL;
	uint32_t trace_ticket = 0;
	uint64_t trace_bytes = 0;
	struct isp_ctx ctx;
	uint16_t status;

	memset(cpl, 0, sizeof(*cpl));
	if (cmd->set) {
		/* Memory Copy may carry staged blocks after its list: cs_exec()
		 * checks the exact length */
		status = isp_check_cs(dev, cmd, &len, cpl);
		if (!status && data_len < len)
			status = isp_fail(cpl, ISP_BAD_FIELD, "buffer shorter than the command's data");
	} else {
		status = isp_check_cmd(dev, cmd, &op, cpl);
		if (!status && data_len != isp_cmd_data_len(cmd))
			status = isp_fail(cpl, ISP_BAD_FIELD, "buffer size differs from NDT");
	}
	if (!status && data_len && !data)
		status = isp_fail(cpl, ISP_BAD_FIELD, "no data buffer");

	pthread_mutex_lock(&dev->lock);
	seq = ++dev->seq;
	shared = dev->trace_all;
	pthread_mutex_unlock(&dev->lock);
	if (!status && !shared && !cmd->set)
		trace_ticket = isp_trace_take(dev, cmd);
	if (shared)
		tr = shared;
	else if (trace_ticket || (dev->trace_dir && op))
		trace_bytes = isp_trace_new(dev, cmd, trace_ticket, &tr);

	memset(&ctx, 0, sizeof(ctx));
	ctx.dev = dev;
	ctx.cancel = cancel;
	ctx.user = cmd->sqid;
	ft_cmd_begin(dev->ft, &ctx.ftc, cmd->submit_ns, tr);
	ctx.ready = ft_ctrl(dev->ft, &ctx.ftc, 0);
	if (!status) {
		status = cmd->set ? cs_exec(&ctx, cmd, data, data_len, cpl) :
				    op->fn(&ctx, cmd, data, data_len, cpl);
		cpl->status = status;
		if (status && !cpl->err)
			cpl->err = isp_status_name(status);
	}
	ft_cmd_end(dev->ft, &ctx.ftc, &cpl->model_ns);
	cpl->energy_pj = ctx.ftc.energy_pj;
	/* A standard command's DW0/DW1 keep their meaning (cs_exec() set them);
	 * Execute Program's return value is the cost, known only now. */
	if (!cmd->set || (cmd->set == ISP_SET_IO && cmd->opcode == ISP_CS_OP_EXECUTE &&
			  isp_dev_cs_csi(dev, cmd->nsid) == ISP_CSI_CP))
		cpl->result = isp_wire_result_pack(cpl->model_ns, cpl->energy_pj / 1000);
	if (trace_ticket) {
		if (tr)
			isp_trace_publish(dev, trace_ticket, tr, cpl);
		else
			isp_results_cancel(&dev->results, trace_ticket);
	}
	if (tr && dev->trace_dir && op && !shared)
		isp_trace_file(dev, seq, op, tr);
	if (!shared) {
		ft_trace_free(tr);
		isp_budget_give_as(fs_buf_budget(dev->fs), trace_bytes, cmd->sqid);
	}
	if (cmd->set)
		isp_count_cs(dev, cmd, status, isp_now_ns() - t0);
	else
		isp_count(dev, op, status, isp_now_ns() - t0);
	if (status)
		isp_err_note(dev, cmd, cpl);
	return status;
}

uint16_t isp_dev_run_vendor(struct isp_ctx *ctx, const struct isp_cmd *cmd, void *data,
			    size_t len, struct isp_cpl *cpl)
{
	const struct isp_op *op;
	uint16_t status;

	status = isp_check_cmd(ctx->dev, cmd, &op, cpl);
	if (!status && len != isp_cmd_data_len(cmd))
		status = isp_fail(cpl, ISP_BAD_FIELD, "buffer size differs from NDT");
	if (!status)
		status = op->fn(ctx, cmd, data, len, cpl);
	cpl->status = status;
	if (status && !cpl->err)
		cpl->err = isp_status_name(status);
	return status;
}

uint64_t isp_link_xfer(struct isp_ctx *ctx, uint64_t bytes, int c2h,
		       uint64_t ready)
{
	if (ctx->dram_io)	/* a program's data stays in controller DRAM */
		return ft_dram(ctx->dev->ft, &ctx->ftc, bytes, ready);
	return ft_dma(ctx->dev->ft, &ctx->ftc, c2h ? FT_C2H : FT_H2C, bytes, ready);
}

/* ---- device commands ---- */

static uint16_t isp_noop(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			 void *data, size_t len, struct isp_cpl *cpl)
{
	(void)ctx; (void)data; (void)len;
	if (cmd->cdw12 || cmd->cdw13 || cmd->cdw14 || cmd->cdw15)
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	return 0;
}

static uint16_t isp_echo_h2c(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			     void *data, size_t len, struct isp_cpl *cpl)
{
	uint8_t chunk[4096];
	const uint8_t *p = data;
	uint32_t x = cmd->cdw12 | 1u;
	size_t off;

	if (cmd->cdw13 || cmd->cdw14 || cmd->cdw15)
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	isp_link_xfer(ctx, len, 0, ctx->ready);
	/* Regenerate the pattern piecewise, continuing the generator state. */
	for (off = 0; off < len; off += sizeof(chunk)) {
		size_t n = len - off < sizeof(chunk) ? len - off : sizeof(chunk);
		size_t i;

		for (i = 0; i < n; i++) {
			if ((i & 3u) == 0) {
				x ^= x << 13;
				x ^= x >> 17;
				x ^= x << 5;
			}
			chunk[i] = (uint8_t)(x >> (8u * (i & 3u)));
		}
		if (memcmp(chunk, p + off, n))
			return isp_fail(cpl, ISP_SC_MISCOMPARE | ISP_STATUS_DNR,
					"echo data differs from pattern");
	}
	return 0;
}

static uint16_t isp_echo_c2h(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			     void *data, size_t len, struct isp_cpl *cpl)
{
	if (cmd->cdw13 || cmd->cdw14 || cmd->cdw15)
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	isp_wire_pattern(cmd->cdw12, data, len);
	isp_link_xfer(ctx, len, 1, ctx->ready);
	cpl->xfer_len = (uint32_t)len;
	return 0;
}

static void isp_fill_identify(struct isp_dev *dev, struct isp_wire_identify *id)
{
	const struct fp_params *p = &dev->params;
	const struct fg_geom *g = fs_geom(dev->fs);
	uint64_t planes = g->planes;
	uint32_t m, i;
	struct isp_budget_stats bs;
	size_t e;

	memset(id, 0, sizeof(*id));
	memcpy(id->magic, "ISP1", 4);
	id->ver_major = ISP_WIRE_VERSION_MAJOR;
	id->ver_minor = ISP_WIRE_VERSION_MINOR;
	id->caps = ISP_CAP_ECHO | ISP_CAP_STATS | ISP_CAP_TRACE;
	if (dev->timing_delay)
		id->caps |= ISP_CAP_TIMING_DELAY;
	id->max_xfer = dev->max_xfer;
	id->max_tickets = ISP_MAX_TICKETS;
	id->max_result_bytes = dev->results.max_bytes;
	id->host_mem_bytes = dev->hm.total;
	id->host_fixed_bytes = dev->hm.fixed;
	id->mem_cap_bytes = dev->hm.mem_cap;
	id->buf_budget_bytes = dev->hm.buffers;
	id->bounce_bytes = dev->hm.bounce;
	id->backing_cap_bytes = dev->hm.backing_cap;
	id->trace_cap_bytes = dev->hm.trace_cap;
	isp_budget_get_stats(fs_buf_budget(dev->fs), &bs);
	pthread_mutex_lock(&dev->results.lock);
	id->budget_errors = bs.errors + dev->results.tickets.errors + dev->results.byte_share.errors;
	pthread_mutex_unlock(&dev->results.lock);
	id->channels = p->channels;
	id->dies_per_channel = p->dies_per_channel;
	id->planes_per_die = p->planes_per_die;
	id->blocks_per_plane = p->blocks_per_plane;
	id->pages_per_block = p->pages_per_block;
	id->page_bytes = p->page_bytes;
	id->oob_bytes = p->oob_bytes;
	id->subpage_bytes = p->subpage_bytes;
	id->dram_bytes = fs_dram_budget(dev->fs);
	id->dram_used = fs_dram_used(dev->fs, NULL);
	id->cores = p->cores;
	for (i = 0; i < FG_NPARTS && id->nparts < ISP_WIRE_MAX_PARTS; i++) {
		const struct fg_part *pt = &g->part[i];
		struct fs_space sp;

		if (!pt->nblocks)
			continue;
		id->parts[id->nparts].first_block = pt->first_block;
		id->parts[id->nparts].nblocks = pt->nblocks;
		id->parts[id->nparts].cell_mode = pt->mode;
		id->parts[id->nparts].pages_per_block = pt->pages_per_block;
		id->nparts++;
		id->raw_capacity_bytes += planes * pt->nblocks * pt->pages_per_block *
					  p->page_bytes;
		/* Dead rows of shared stripes count: compaction gives them back
		 * (docs/reis-engine.md §7.1), so a delete restores free_bytes. */
		if (fs_space(dev->fs, i, &sp) == 0)
			id->free_bytes += (sp.free_pages + sp.shared_free_pages + sp.dead_pages) *
					  p->page_bytes;
	}
	snprintf(id->preset, sizeof(id->preset), "%s", p->name);
	for (m = ISP_CELL_SLC; m <= ISP_CELL_QLC; m++) {
		id->t_read_ns[m] = (uint32_t)(p->t_read[m] / FT_PS_PER_NS);
		id->t_prog_ns[m] = (uint32_t)(p->t_prog[m] / FT_PS_PER_NS);
	}
	id->t_erase_ns = (uint32_t)(p->t_erase / FT_PS_PER_NS);
	id->channel_mbps = p->channel_mbps;
	id->core_mhz = p->core_mhz;
	id->link_mbps = p->link_mbps;
	id->ctrl_cmd_ns = (uint32_t)(p->ctrl_cmd / FT_PS_PER_NS);
	for (e = 0; e < ISP_NENGINES; e++)
		if (isp_engines[e] && isp_engines[e]->identify && dev->engine_state[e])
			isp_engines[e]->identify(dev->engine_state[e], id);
}

static uint16_t isp_identify(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			     void *data, size_t len, struct isp_cpl *cpl)
{
	if (cmd->cdw12)
		return isp_fail(cpl, ISP_BAD_FIELD, "unknown identify CNS");
	if (cmd->cdw13 || cmd->cdw14 || cmd->cdw15)
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	isp_fill_identify(ctx->dev, data);
	isp_link_xfer(ctx, len, 1, ctx->ready);
	cpl->xfer_len = (uint32_t)len;
	return 0;
}

static void isp_fill_stats(struct isp_dev *dev, struct isp_wire_stats *st, int reset)
{
	struct ft_stats fst;
	size_t e;

	memset(st, 0, sizeof(*st));
	ft_get_stats(dev->ft, &fst, reset);
	ft_stats_to_wire(&fst, st);
	pthread_mutex_lock(&dev->lock);
	memcpy(st->cmds, dev->cmds, sizeof(st->cmds));
	memcpy(st->errors, dev->errors, sizeof(st->errors));
	st->emul_ns = dev->emul_ns;
	if (reset) {
		memset(dev->cmds, 0, sizeof(dev->cmds));
		memset(dev->errors, 0, sizeof(dev->errors));
		dev->emul_ns = 0;
	}
	pthread_mutex_unlock(&dev->lock);
	for (e = 0; e < ISP_NENGINES; e++)
		if (isp_engines[e] && isp_engines[e]->stats && dev->engine_state[e])
			isp_engines[e]->stats(dev->engine_state[e], st, reset);
	if (dev->cs)
		cs_stats(dev->cs, st, reset);
}

static uint16_t isp_stats_cmd(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			      void *data, size_t len, struct isp_cpl *cpl)
{
	if (cmd->cdw12 & ~ISP_STATS_RESET)
		return isp_fail(cpl, ISP_BAD_FIELD, "unknown stats flags");
	if (cmd->cdw13 || cmd->cdw14 || cmd->cdw15)
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	isp_fill_stats(ctx->dev, data, cmd->cdw12 & ISP_STATS_RESET);
	isp_link_xfer(ctx, len, 1, ctx->ready);
	cpl->xfer_len = (uint32_t)len;
	return 0;
}

static uint16_t isp_trace_arm(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			      void *data, size_t len, struct isp_cpl *cpl)
{
	struct isp_dev *dev = ctx->dev;
	int ret;

	(void)data; (void)len;
	if (!cmd->cdw12)
		return isp_fail(cpl, ISP_BAD_FIELD, "ticket 0");
	if (cmd->cdw13 > 0xff || (cmd->cdw13 && cmd->cdw13 < 0x80))
		return isp_fail(cpl, ISP_BAD_FIELD, "opcode filter not a vendor opcode");
	/* a filter no command can match would keep the one trace armed */
	if (cmd->cdw13 && (!isp_dev_opcode_supported((uint8_t)cmd->cdw13, NULL) ||
			   cmd->cdw13 == ISP_OP_TRACE_ARM || cmd->cdw13 == ISP_OP_RESULT_READ ||
			   cmd->cdw13 == ISP_OP_RESULT_RELEASE))
		return isp_fail(cpl, ISP_BAD_FIELD, "opcode filter names no traceable command");
	if (cmd->cdw14 || cmd->cdw15)
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	pthread_mutex_lock(&dev->lock);
	ret = dev->trace_ticket ? -EBUSY : 0;
	pthread_mutex_unlock(&dev->lock);
	if (ret)
		return isp_fail(cpl, ISP_SC_BUSY | ISP_STATUS_DNR, "a trace is already armed");
	ret = isp_results_reserve(&dev->results, cmd->cdw12, ISP_TRACE_MAX_JSON +
				  sizeof(struct isp_wire_result_hdr), cmd->sqid);
	if (ret == -EEXIST)
		return isp_fail(cpl, ISP_SC_TICKET_IN_USE | ISP_STATUS_DNR, "ticket in use");
	if (ret)
		return isp_fail(cpl, ISP_SC_RESOURCE, "result table full");
	pthread_mutex_lock(&dev->lock);
	if (dev->trace_ticket) {
		ret = -EBUSY;
	} else {
		dev->trace_ticket = cmd->cdw12;
		dev->trace_opcode = (uint8_t)cmd->cdw13;
	}
	pthread_mutex_unlock(&dev->lock);
	if (ret) {
		isp_results_cancel(&dev->results, cmd->cdw12);
		return isp_fail(cpl, ISP_SC_BUSY | ISP_STATUS_DNR, "a trace is already armed");
	}
	return 0;
}

static uint16_t isp_result_read(struct isp_ctx *ctx, const struct isp_cmd *cmd,
				void *data, size_t len, struct isp_cpl *cpl)
{
	uint64_t off = (uint64_t)cmd->cdw15 << 32 | cmd->cdw14;
	int64_t n;

	if (!cmd->cdw12)
		return isp_fail(cpl, ISP_BAD_FIELD, "ticket 0");
	if (cmd->cdw13 & ~ISP_RESULT_F_RELEASE)
		return isp_fail(cpl, ISP_BAD_FIELD, "unknown result flags");
	n = isp_results_read(&ctx->dev->results, cmd->cdw12, off, data, len,
			     cmd->cdw13 & ISP_RESULT_F_RELEASE, ctx);
	if (n == -ENOENT)
		return isp_fail(cpl, ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR, "unknown ticket");
	if (n == -EBUSY)
		return isp_fail(cpl, ISP_SC_BUSY | ISP_STATUS_DNR, "result not ready");
	if (n < 0)
		return isp_fail(cpl, ISP_SC_BAD_OFFSET | ISP_STATUS_DNR,
				"offset past the end of the result");
	/* Deferred costs (document reads) moved ctx->ftc.end; DMA after them. */
	isp_link_xfer(ctx, len, 1, ctx->ftc.end);
	cpl->xfer_len = (uint32_t)len;
	return 0;
}

static uint16_t isp_result_release(struct isp_ctx *ctx, const struct isp_cmd *cmd,
				   void *data, size_t len, struct isp_cpl *cpl)
{
	int64_t n;
	uint8_t b;

	(void)data; (void)len;
	if (!cmd->cdw12)
		return isp_fail(cpl, ISP_BAD_FIELD, "ticket 0");
	if (cmd->cdw13 || cmd->cdw14 || cmd->cdw15)
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	/*
	 * An armed trace whose command never comes would block every other
	 * TRACE_ARM for good: releasing its ticket disarms it.
	 */
	pthread_mutex_lock(&ctx->dev->lock);
	n = ctx->dev->trace_ticket == cmd->cdw12;
	if (n)
		ctx->dev->trace_ticket = 0;
	pthread_mutex_unlock(&ctx->dev->lock);
	if (n) {
		isp_results_cancel(&ctx->dev->results, cmd->cdw12);
		return 0;
	}
	/* A zero-length read tells unknown from not-yet-published apart. */
	n = isp_results_read(&ctx->dev->results, cmd->cdw12, 0, &b, 0, 0, NULL);
	if (n == -ENOENT)
		return isp_fail(cpl, ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR, "unknown ticket");
	if (n == -EBUSY)
		return isp_fail(cpl, ISP_SC_BUSY | ISP_STATUS_DNR, "result not ready");
	isp_results_cancel(&ctx->dev->results, cmd->cdw12);
	return 0;
}

/* ---- log pages and Identify Controller ---- */

int isp_dev_log_page(struct isp_dev *dev, uint8_t lid, void *buf, size_t len,
		     uint64_t off)
{
	union {
		struct isp_wire_identify id;
		struct isp_wire_stats st;
	} u;
	size_t size;

	switch (lid) {
	case ISP_LID_ERROR:
	case ISP_LID_ERRTEXT:
		return isp_err_log(dev, lid, buf, len, off);
	case ISP_LID_STATS:
		isp_fill_stats(dev, &u.st, 0);
		size = sizeof(u.st);
		break;
	case ISP_LID_IDENTIFY:
		isp_fill_identify(dev, &u.id);
		size = sizeof(u.id);
		break;
	case ISP_LID_CS_PROGRAMS:
		return dev->cs ? cs_programs_log(dev->cs, buf, len, off) : -EINVAL;
	default:
		return -EINVAL;
	}
	if (off >= size)
		return -EINVAL;
	if (len > size - off)
		len = size - (size_t)off;
	memcpy(buf, (const uint8_t *)&u + off, len);
	return (int)len;
}

void isp_dev_id_ctrl_vs(struct isp_dev *dev, uint8_t vs[ISP_ID_CTRL_VS_LEN])
{
	struct isp_wire_identify id;

	isp_fill_identify(dev, &id);
	memcpy(vs, &id, ISP_ID_CTRL_VS_LEN);
}
