/* SPDX-License-Identifier: MIT */
/*
 * isp_dev.c - command dispatch of the emulated ISP drive.
 *
 * Decodes and bounds every field of a vendor command (docs/command-set.md),
 * then hands it to the handler of its opcode. The same code runs inside QEMU
 * and in libreis' in-process transport.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flash_preset.h"
#include "isp_dev.h"
#include "isp_internal.h"

struct isp_dev {
	struct fp_params params;
	uint32_t max_xfer;
	int timing_delay;
	char *backing;
	char *trace_dir;

	pthread_mutex_t lock;		/* protects stats and link_free_ps */
	struct isp_wire_stats stats;
	uint64_t link_free_ps;		/* host link timeline */
	struct isp_results results;
};

/* Result table bounds (docs/command-set.md section 6). */
#define ISP_MAX_TICKETS 1024
#define ISP_MAX_RESULT_BYTES (256ull << 20)

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
	{ ISP_OP_RESULT_READ, ISP_CLS_RESULT, 0, "ISP_RESULT_READ", isp_result_read },
	{ ISP_OP_RESULT_RELEASE, ISP_CLS_RESULT, 0, "ISP_RESULT_RELEASE",
	  isp_result_release },
};

/* Every opcode table; the engines add theirs here. */
static const struct isp_op_table isp_op_tables[] = {
	{ isp_dev_ops, sizeof(isp_dev_ops) / sizeof(isp_dev_ops[0]) },
};

static const struct isp_op *isp_find_op(uint8_t opcode)
{
	size_t t, i;

	for (t = 0; t < sizeof(isp_op_tables) / sizeof(isp_op_tables[0]); t++)
		for (i = 0; i < isp_op_tables[t].n; i++)
			if (isp_op_tables[t].ops[i].opcode == opcode)
				return &isp_op_tables[t].ops[i];
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
	default: return "Unknown Status";
	}
}

static uint64_t isp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

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

int isp_dev_open(const struct isp_dev_config *cfg, struct isp_dev **out,
		 char *err, size_t errlen)
{
	char dummy[8];
	struct isp_dev *dev;
	const char *preset;
	int ret;

	if (!err) {
		err = dummy;
		errlen = sizeof(dummy);
	}
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
	preset = cfg->preset && *cfg->preset ? cfg->preset : "reis-ssd1";
	ret = fp_preset(preset, &dev->params);
	if (ret) {
		const char *const *n = fp_preset_names();
		size_t off;

		off = (size_t)snprintf(err, errlen, "unknown preset '%s' (known:", preset);
		for (; *n && off < errlen; n++)
			off += (size_t)snprintf(err + off, errlen - off, " %s", *n);
		if (off < errlen)
			snprintf(err + off, errlen - off, ")");
		goto fail;
	}
	ret = fp_apply(&dev->params, cfg->params, err, errlen);
	if (ret)
		goto fail;
	dev->max_xfer = cfg->max_xfer;
	dev->timing_delay = cfg->timing_delay;
	dev->backing = isp_strdup(cfg->backing);
	dev->trace_dir = isp_strdup(cfg->trace_dir);
	if ((cfg->backing && !dev->backing) || (cfg->trace_dir && !dev->trace_dir)) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto fail;
	}
	pthread_mutex_init(&dev->lock, NULL);
	isp_results_init(&dev->results, ISP_MAX_TICKETS, ISP_MAX_RESULT_BYTES);
	dev->stats.nres[ISP_RES_LINK] = 1;
	*out = dev;
	return 0;

fail:
	free(dev->backing);
	free(dev->trace_dir);
	free(dev);
	return ret;
}

void isp_dev_close(struct isp_dev *dev)
{
	if (!dev)
		return;
	isp_results_destroy(&dev->results);
	pthread_mutex_destroy(&dev->lock);
	free(dev->backing);
	free(dev->trace_dir);
	free(dev);
}

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
	if (cmd->nsid == 0 || cmd->nsid == UINT32_MAX)
		return isp_fail(cpl, ISP_SC_INVALID_NSID | ISP_STATUS_DNR,
				"nsid must name one namespace");
	if (cmd->cdw11)
		return isp_fail(cpl, ISP_BAD_FIELD, "NDM (cdw11) must be 0");
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
		      uint64_t model_ns, uint64_t energy_pj, uint64_t emul_ns)
{
	unsigned cls = op ? op->cls : ISP_CLS_OTHER;

	pthread_mutex_lock(&dev->lock);
	dev->stats.cmds[cls]++;
	if (status)
		dev->stats.errors[cls]++;
	dev->stats.model_ns += model_ns;
	dev->stats.energy_pj += energy_pj;
	dev->stats.emul_ns += emul_ns;
	pthread_mutex_unlock(&dev->lock);
}

/* Modeled time is end - submit, rounded up to whole ns. */
static void isp_finish(struct isp_cpl *cpl, const struct isp_cost *cost)
{
	uint64_t ps = cost->end_ps > cost->start_ps ? cost->end_ps - cost->start_ps : 0;

	cpl->model_ns = (ps + 999) / 1000;
	cpl->energy_pj = cost->energy_pj;
	cpl->result = isp_wire_result_pack(cpl->model_ns, cost->energy_pj / 1000);
}

uint16_t isp_dev_check(struct isp_dev *dev, const struct isp_cmd *cmd,
		       struct isp_cpl *cpl)
{
	const struct isp_op *op;
	struct isp_cost cost;
	uint16_t status;

	memset(cpl, 0, sizeof(*cpl));
	status = isp_check_cmd(dev, cmd, &op, cpl);
	if (status) {
		/* Rejected at decode: only the controller's overhead is spent. */
		cost.start_ps = 0;
		cost.end_ps = dev->params.ctrl_cmd;
		cost.energy_pj = 0;
		isp_finish(cpl, &cost);
		isp_count(dev, op, status, cpl->model_ns, 0, 0);
	}
	return status;
}

uint16_t isp_dev_exec(struct isp_dev *dev, const struct isp_cmd *cmd,
		      void *data, size_t data_len, struct isp_cpl *cpl)
{
	uint64_t t0 = isp_now_ns();
	const struct isp_op *op;
	struct isp_ctx ctx;
	uint16_t status;

	memset(cpl, 0, sizeof(*cpl));
	ctx.dev = dev;
	ctx.cost.start_ps = cmd->submit_ns * 1000;
	ctx.cost.end_ps = ctx.cost.start_ps + dev->params.ctrl_cmd;
	ctx.cost.energy_pj = 0;
	status = isp_check_cmd(dev, cmd, &op, cpl);
	if (!status && data_len != isp_cmd_data_len(cmd))
		status = isp_fail(cpl, ISP_BAD_FIELD, "buffer size differs from NDT");
	if (!status && data_len && !data)
		status = isp_fail(cpl, ISP_BAD_FIELD, "no data buffer");
	if (!status) {
		status = op->fn(&ctx, cmd, data, data_len, cpl);
		cpl->status = status;
		if (status && !cpl->err)
			cpl->err = isp_status_name(status);
	}
	isp_finish(cpl, &ctx.cost);
	isp_count(dev, op, status, cpl->model_ns, cpl->energy_pj, isp_now_ns() - t0);
	return status;
}

/*
 * Host-link DMA of @bytes after the command overhead, serialized with other
 * commands' transfers on the one link.
 */
void isp_link_xfer(struct isp_ctx *ctx, uint64_t bytes, int c2h)
{
	struct isp_dev *dev = ctx->dev;
	struct isp_cost *cost = &ctx->cost;
	uint64_t dur = bytes * 1000000u / dev->params.link_mbps;	/* ps */
	uint64_t start;

	pthread_mutex_lock(&dev->lock);
	start = cost->end_ps > dev->link_free_ps ? cost->end_ps : dev->link_free_ps;
	dev->link_free_ps = start + dur;
	dev->stats.busy_ns[ISP_RES_LINK] += dur / 1000;
	if (c2h)
		dev->stats.link_bytes_c2h += bytes;
	else
		dev->stats.link_bytes_h2c += bytes;
	pthread_mutex_unlock(&dev->lock);
	cost->end_ps = start + dur;
	cost->energy_pj += bytes * dev->params.e_link_byte;
}

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
	isp_link_xfer(ctx, len, 0);
	/* Regenerate the pattern piecewise; continue the generator state. */
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
	isp_link_xfer(ctx, len, 1);
	cpl->xfer_len = (uint32_t)len;
	return 0;
}

static uint64_t isp_raw_capacity(const struct fp_params *p)
{
	uint64_t planes = (uint64_t)p->channels * p->dies_per_channel * p->planes_per_die;
	uint64_t slc = (uint64_t)p->slc_blocks * fp_pages_per_block(p, ISP_CELL_SLC);
	uint64_t nat = (uint64_t)(p->blocks_per_plane - p->slc_blocks) *
		       fp_pages_per_block(p, p->native_mode);

	return planes * (slc + nat) * p->page_bytes;
}

static void isp_fill_identify(struct isp_dev *dev, struct isp_wire_identify *id)
{
	const struct fp_params *p = &dev->params;
	uint32_t m;

	memset(id, 0, sizeof(*id));
	memcpy(id->magic, "ISP1", 4);
	id->ver_major = ISP_WIRE_VERSION_MAJOR;
	id->ver_minor = ISP_WIRE_VERSION_MINOR;
	id->caps = ISP_CAP_ECHO | ISP_CAP_STATS;
	if (dev->timing_delay)
		id->caps |= ISP_CAP_TIMING_DELAY;
	id->max_xfer = dev->max_xfer;
	id->max_tickets = ISP_MAX_TICKETS;
	id->max_result_bytes = ISP_MAX_RESULT_BYTES;
	id->channels = p->channels;
	id->dies_per_channel = p->dies_per_channel;
	id->planes_per_die = p->planes_per_die;
	id->blocks_per_plane = p->blocks_per_plane;
	id->pages_per_block = p->pages_per_block;
	id->page_bytes = p->page_bytes;
	id->oob_bytes = p->oob_bytes;
	id->subpage_bytes = p->subpage_bytes;
	id->raw_capacity_bytes = isp_raw_capacity(p);
	id->dram_bytes = p->dram_bytes;
	id->cores = p->cores;
	if (p->slc_blocks && p->native_mode != ISP_CELL_SLC) {
		id->parts[id->nparts].first_block = 0;
		id->parts[id->nparts].nblocks = p->slc_blocks;
		id->parts[id->nparts].cell_mode = ISP_CELL_SLC;
		id->parts[id->nparts].pages_per_block = fp_pages_per_block(p, ISP_CELL_SLC);
		id->nparts++;
	}
	if (p->blocks_per_plane > p->slc_blocks || p->native_mode == ISP_CELL_SLC) {
		uint32_t first = p->native_mode == ISP_CELL_SLC ? 0 : p->slc_blocks;

		id->parts[id->nparts].first_block = first;
		id->parts[id->nparts].nblocks = p->blocks_per_plane - first;
		id->parts[id->nparts].cell_mode = p->native_mode;
		id->parts[id->nparts].pages_per_block = fp_pages_per_block(p, p->native_mode);
		id->nparts++;
	}
	snprintf(id->preset, sizeof(id->preset), "%s", p->name);
	for (m = ISP_CELL_SLC; m <= ISP_CELL_QLC; m++) {
		id->t_read_ns[m] = (uint32_t)(p->t_read[m] / 1000);
		id->t_prog_ns[m] = (uint32_t)(p->t_prog[m] / 1000);
	}
	id->t_erase_ns = (uint32_t)(p->t_erase / 1000);
	id->channel_mbps = p->channel_mbps;
	id->core_mhz = p->core_mhz;
	id->link_mbps = p->link_mbps;
	id->ctrl_cmd_ns = (uint32_t)(p->ctrl_cmd / 1000);
}

static uint16_t isp_identify(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			void *data, size_t len, struct isp_cpl *cpl)
{
	if (cmd->cdw12)
		return isp_fail(cpl, ISP_BAD_FIELD, "unknown identify CNS");
	if (cmd->cdw13 || cmd->cdw14 || cmd->cdw15)
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	isp_fill_identify(ctx->dev, data);
	isp_link_xfer(ctx, len, 1);
	cpl->xfer_len = (uint32_t)len;
	return 0;
}

static void isp_fill_stats(struct isp_dev *dev, struct isp_wire_stats *st, int reset)
{
	pthread_mutex_lock(&dev->lock);
	*st = dev->stats;
	if (reset) {
		uint64_t nres[ISP_RES_NCLASSES];

		memcpy(nres, dev->stats.nres, sizeof(nres));
		memset(&dev->stats, 0, sizeof(dev->stats));
		memcpy(dev->stats.nres, nres, sizeof(nres));
	}
	pthread_mutex_unlock(&dev->lock);
}

static uint16_t isp_stats_cmd(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			void *data, size_t len, struct isp_cpl *cpl)
{
	if (cmd->cdw12 & ~ISP_STATS_RESET)
		return isp_fail(cpl, ISP_BAD_FIELD, "unknown stats flags");
	if (cmd->cdw13 || cmd->cdw14 || cmd->cdw15)
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	isp_fill_stats(ctx->dev, data, cmd->cdw12 & ISP_STATS_RESET);
	isp_link_xfer(ctx, len, 1);
	cpl->xfer_len = (uint32_t)len;
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
			     cmd->cdw13 & ISP_RESULT_F_RELEASE, &ctx->cost);
	if (n == -ENOENT)
		return isp_fail(cpl, ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR, "unknown ticket");
	if (n == -EBUSY)
		return isp_fail(cpl, ISP_SC_BUSY | ISP_STATUS_DNR, "result not ready");
	if (n < 0)
		return isp_fail(cpl, ISP_SC_BAD_OFFSET | ISP_STATUS_DNR,
				"offset past the end of the result");
	isp_link_xfer(ctx, len, 1);
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
	/* A zero-length read tells unknown from not-yet-published apart. */
	n = isp_results_read(&ctx->dev->results, cmd->cdw12, 0, &b, 0, 0, NULL);
	if (n == -ENOENT)
		return isp_fail(cpl, ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR, "unknown ticket");
	if (n == -EBUSY)
		return isp_fail(cpl, ISP_SC_BUSY | ISP_STATUS_DNR, "result not ready");
	isp_results_cancel(&ctx->dev->results, cmd->cdw12);
	return 0;
}

const struct fp_params *isp_dev_params(const struct isp_dev *dev)
{
	return &dev->params;
}

struct isp_results *isp_dev_results(struct isp_dev *dev)
{
	return &dev->results;
}

int isp_dev_log_page(struct isp_dev *dev, uint8_t lid, void *buf, size_t len,
		     uint64_t off)
{
	union {
		struct isp_wire_identify id;
		struct isp_wire_stats st;
	} u;
	size_t size;

	switch (lid) {
	case ISP_LID_STATS:
		isp_fill_stats(dev, &u.st, 0);
		size = sizeof(u.st);
		break;
	case ISP_LID_IDENTIFY:
		isp_fill_identify(dev, &u.id);
		size = sizeof(u.id);
		break;
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
