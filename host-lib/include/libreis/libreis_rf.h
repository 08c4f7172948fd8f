/* SPDX-License-Identifier: MIT */
/*
 * libreis/libreis_rf.h - RecFlash in the drive: embedding tables, SLS
 * (sparse-length sum), access-frequency remapping (RecFlash §III,
 * docs/command-set.md §5; guide: docs/recflash.md). When the drive answered
 * with an error its NVMe status is in reis_last_cpl() (synchronous calls) or
 * in the operation's cpl (asynchronous SLS).
 * Included by libreis.h; conventions are libreis.h's (docs/libreis.md).
 */
#ifndef LIBREIS_RF_H
#define LIBREIS_RF_H

#ifndef LIBREIS_H
#error "include <libreis.h>, not <libreis/libreis_rf.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * enum reis_rf_opcode - RecFlash vendor opcodes.
 * @REIS_OP_RF_TBL_CREATE: create a table (H2C, 128-byte header).
 * @REIS_OP_RF_TBL_LIST: list tables (C2H).
 * @REIS_OP_RF_TBL_WRITE: one chunk of one section of a deploy (H2C).
 * @REIS_OP_RF_TBL_STATS: one table's statistics (C2H).
 * @REIS_OP_RF_TBL_COMMIT: make a deployed table READY (no data).
 * @REIS_OP_RF_SLS: a batch of bags under a ticket (H2C).
 * @REIS_OP_RF_TBL_DELETE: delete a table or abort its deploy (no data).
 * @REIS_OP_RF_PROFILE: access counts of a sampled trace (H2C).
 * @REIS_OP_RF_REMAP: build a new mapping (no data).
 * @REIS_OP_RF_SWITCH: activate the staged mapping (no data).
 * @REIS_OP_RESULT_READ: read a ticket's result (C2H, shared).
 * @REIS_OP_RESULT_RELEASE: drop a ticket's result (no data, shared).
 */
enum reis_rf_opcode {
	REIS_OP_RF_TBL_CREATE = 0xb1,
	REIS_OP_RF_TBL_LIST = 0xb2,
	REIS_OP_RF_TBL_WRITE = 0xb5,
	REIS_OP_RF_TBL_STATS = 0xb6,
	REIS_OP_RF_TBL_COMMIT = 0xb8,
	REIS_OP_RF_SLS = 0xb9,
	REIS_OP_RF_TBL_DELETE = 0xbc,
	REIS_OP_RF_PROFILE = 0xbd,
	REIS_OP_RF_REMAP = 0xc0,
	REIS_OP_RF_SWITCH = 0xc4,
	REIS_OP_RESULT_READ = 0xa2,
	REIS_OP_RESULT_RELEASE = 0xa4,
};

#define REIS_RF_MAX_DIM		4096u
#define REIS_RF_MAX_ROWS	(1u << 31)
#define REIS_RF_MAX_BAGS	65536u	/* bags per SLS command */
#define REIS_RF_NAME_LEN	32u	/* name field, NUL included */
#define REIS_RF_STATS_LEN	352u	/* struct isp_wire_rf_stats */

/**
 * enum reis_rf_dtype - element type of a table's rows.
 * @REIS_RF_FP32: dim float32.
 * @REIS_RF_FP16: dim IEEE binary16.
 * @REIS_RF_INT8: dim int8, then float32 scale and float32 bias; element
 *                value = scale * q + bias (row-wise quantization).
 */
enum reis_rf_dtype {
	REIS_RF_FP32 = 1,
	REIS_RF_FP16 = 2,
	REIS_RF_INT8 = 3,
};

/**
 * enum reis_rf_mode - how the drive places and reads a table (RecFlash
 * III-B, III-C), chosen per table so the paper's comparisons run side by side.
 * @REIS_RF_RECSSD: row order, page buffer read out sequentially up to the
 *                  last needed row (RecSSD-like).
 * @REIS_RF_RMSSD: row order, only the needed rows read out (RM-SSD-like).
 * @REIS_RF_RECFLASH: rows placed by access frequency, hot pages spread over
 *                    the planes, plus the controller's page-wise LRU cache.
 */
enum reis_rf_mode {
	REIS_RF_RECSSD = 1,
	REIS_RF_RMSSD = 2,
	REIS_RF_RECFLASH = 3,
};

/**
 * enum reis_rf_trigger - online-training remap trigger (III-C3/C4).
 * @REIS_RF_TRIG_NONE: none; remaps only when asked.
 * @REIS_RF_TRIG_THRESHOLD: new keys hotter than the hot-region threshold
 *                          exceed trigger_ppm of the tracked keys.
 * @REIS_RF_TRIG_PERIOD: every period bags.
 */
enum reis_rf_trigger {
	REIS_RF_TRIG_NONE = 0,
	REIS_RF_TRIG_THRESHOLD = 1,
	REIS_RF_TRIG_PERIOD = 2,
};

/* SLS flags. */
#define REIS_RF_SLS_WEIGHTED	(1u << 0)	/* per-index float weights */
#define REIS_RF_SLS_MEAN	(1u << 1)	/* mean pooling instead of sum */
#define REIS_RF_SLS_NO_CACHE	(1u << 2)	/* bypass the page cache */

/* Remap flags (reis_rf_remap()). */
#define REIS_RF_REMAP_FULL		(1u << 0)	/* re-sort every row (III-C1) */
#define REIS_RF_REMAP_ADAPTIVE		(1u << 1)	/* Algorithm 1, hot region */
#define REIS_RF_REMAP_IF_TRIGGERED	(1u << 2)	/* only if the trigger holds */
#define REIS_RF_REMAP_SWITCH		(1u << 3)	/* activate when built */

/* Table state and remap state (struct reis_rf_stats). */
#define REIS_RF_DEPLOYING	1u
#define REIS_RF_READY		2u
#define REIS_RF_REMAP_IDLE	0u
#define REIS_RF_REMAP_RUNNING	1u	/* SLS still served by the old mapping */
#define REIS_RF_REMAP_STAGED	2u	/* built, waiting for reis_rf_switch() */

/**
 * reis_rf_row_bytes() - bytes of one row on the wire and in the drive.
 * @dtype: enum reis_rf_dtype.
 * @dim: elements per row, 1..REIS_RF_MAX_DIM.
 *
 * Return: 4*dim (fp32), 2*dim (fp16), dim+8 (int8), or -EINVAL.
 */
int reis_rf_row_bytes(uint32_t dtype, uint32_t dim);

/**
 * struct reis_rf_table - an embedding table to deploy.
 * @tid: table id, non-zero and not in use on the drive.
 * @rows: rows, 1..REIS_RF_MAX_ROWS.
 * @dim: elements per row, 1..REIS_RF_MAX_DIM.
 * @dtype: enum reis_rf_dtype.
 * @mode: enum reis_rf_mode.
 * @trigger: enum reis_rf_trigger.
 * @hot_bp: hot region, top x % in basis points (500 = 5 %); 0: the drive's
 *          default.
 * @trigger_ppm: threshold trigger fraction p in parts per million (1000 =
 *               0.1 %).
 * @period: period trigger, in bags.
 * @rsvd0: must be 0.
 * @name: label, at most REIS_RF_NAME_LEN - 1 printable characters; NULL: "".
 * @data: @rows * reis_rf_row_bytes() bytes in row order, wire layout
 *        (reis_rf_quantize() produces it from float rows).
 * @profile: NULL, or @rows access counts of a sampled trace: the drive
 *           places rows by frequency at deploy (RecFlash III-C1; only with
 *           REIS_RF_RECFLASH).
 * @rsvd: must be 0.
 */
struct reis_rf_table {
	uint32_t tid;
	uint32_t rows;
	uint32_t dim;
	uint32_t dtype;
	uint32_t mode;
	uint32_t trigger;
	uint32_t hot_bp;
	uint32_t trigger_ppm;
	uint32_t period;
	uint32_t rsvd0;
	const char *name;
	const void *data;
	const uint32_t *profile;
	uint64_t rsvd[2];
};

/**
 * struct reis_rf_deploy_opts - how to deploy, and what it cost.
 * @depth: commands in flight, 1..REIS_STREAM_MAX_DEPTH; 0: 8. Each section
 *         must arrive in order (command-set.md §5), so at most one command
 *         per table is in flight: depth > 1 overlaps different tables.
 * @chunk: bytes per TBL_WRITE, a multiple of 4; 0 or > max_xfer: max_xfer.
 * @progress: called after each accepted chunk (in the calling thread), or
 *            NULL.
 * @progress_arg: its argument.
 * @time_ns: out: summed modeled time of every command of the deploy.
 * @energy_nj: out: summed modeled energy.
 * @bytes: out: payload bytes sent.
 * @ncmds: out: commands completed.
 * @rsvd0: reserved.
 * @rsvd: must be 0.
 */
struct reis_rf_deploy_opts {
	uint32_t depth;
	uint32_t chunk;
	reis_progress_fn progress;
	void *progress_arg;
	uint64_t time_ns;
	uint64_t energy_nj;
	uint64_t bytes;
	uint32_t ncmds;
	uint32_t rsvd0;
	uint64_t rsvd[2];
};

/**
 * reis_rf_deploy() - create, fill and commit one embedding table.
 * @dev: handle.
 * @t: the table.
 * @opts: options and cost report, or NULL for defaults.
 *
 * TBL_CREATE, then the PROFILE section (if @t->profile) and the ROWS
 * section, each in order under max_xfer (the last chunk zero-padded to a
 * multiple of 4), then TBL_COMMIT. When a step fails, the table is deleted
 * again so no half table is left; tables deployed before are untouched.
 *
 * Return: 0; -EINVAL for a bad description (nothing sent; reis_last_error()
 * says which field); -EEXIST (tid in use), -ENOSPC (flash or DRAM full) or
 * another -errno with its NVMe status in reis_last_cpl().
 */
int reis_rf_deploy(struct reis_dev *dev, const struct reis_rf_table *t,
		   struct reis_rf_deploy_opts *opts);

/**
 * reis_rf_deployv() - deploy several tables with their uploads overlapped.
 * @dev: handle.
 * @t: the tables.
 * @n: how many, 1..1024.
 * @opts: options and cost report, or NULL.
 *
 * All tables are created first, then their sections stream with up to
 * @opts->depth commands in flight (one per table at a time), then all are
 * committed. All or nothing: on failure every table this call created is
 * deleted.
 *
 * Return: as reis_rf_deploy().
 */
int reis_rf_deployv(struct reis_dev *dev, const struct reis_rf_table *t, unsigned n,
		    struct reis_rf_deploy_opts *opts);

/**
 * reis_rf_delete() - delete a table (or abort its deploy).
 * @dev: handle.
 * @tid: table id.
 *
 * Return: 0, -ENOENT for an unknown table, -EBUSY while SLS on it are in
 * flight, or -errno.
 */
int reis_rf_delete(struct reis_dev *dev, uint32_t tid);

/**
 * struct reis_rf_stats - TBL_STATS decoded; also one entry of reis_rf_list().
 * @tid: table id.
 * @rows: rows.
 * @dim: elements per row.
 * @dtype: enum reis_rf_dtype.
 * @mode: enum reis_rf_mode.
 * @flags: creation flags (bit 0: deployed with a profile).
 * @trigger: enum reis_rf_trigger.
 * @hot_bp: hot region, basis points.
 * @trigger_ppm: threshold trigger, ppm.
 * @period: period trigger, bags.
 * @name: label, NUL-terminated, printable ASCII only.
 * @state: REIS_RF_DEPLOYING or REIS_RF_READY.
 * @remap_state: REIS_RF_REMAP_IDLE/RUNNING/STAGED.
 * @generation: active mapping generation.
 * @rows_per_page: rows sharing one flash page.
 * @received_rows: ROWS section bytes received.
 * @received_profile: PROFILE section bytes received.
 * @pages: flash pages holding the table.
 * @dram_bytes: mapping table in controller DRAM.
 * @sls_bags: bags pooled.
 * @lookups: indices looked up.
 * @page_reads: pages sensed (tR).
 * @cache_hits: page-cache hits.
 * @cache_misses: page-cache misses.
 * @bytes_sensed: page bytes brought into page buffers.
 * @bytes_useful: row bytes actually used.
 * @bytes_out: bytes read out over the channel.
 * @model_ns: modeled time of the SLS commands.
 * @energy_pj: their modeled energy.
 * @tracked_keys: distinct rows seen since the last remap.
 * @remaps: remaps done.
 * @remap_rows_moved: rows moved by remaps.
 * @remap_page_reads: pages read by remaps.
 * @remap_programs: pages programmed by remaps.
 * @remap_erases: blocks erased by remaps.
 * @remap_ns: modeled time of the last remap.
 * @trigger_hot_new: new keys above the hot threshold at the last check.
 * @utilisation: page-buffer utilisation, bytes_useful / bytes_sensed (0
 *               when nothing was sensed).
 * @hit_rate: cache_hits / (cache_hits + cache_misses), 0 without accesses.
 */
struct reis_rf_stats {
	uint32_t tid;
	uint32_t rows;
	uint32_t dim;
	uint32_t dtype;
	uint32_t mode;
	uint32_t flags;
	uint32_t trigger;
	uint32_t hot_bp;
	uint32_t trigger_ppm;
	uint32_t period;
	char name[REIS_RF_NAME_LEN];
	uint32_t state;
	uint32_t remap_state;
	uint32_t generation;
	uint32_t rows_per_page;
	uint64_t received_rows;
	uint64_t received_profile;
	uint64_t pages;
	uint64_t dram_bytes;
	uint64_t sls_bags;
	uint64_t lookups;
	uint64_t page_reads;
	uint64_t cache_hits;
	uint64_t cache_misses;
	uint64_t bytes_sensed;
	uint64_t bytes_useful;
	uint64_t bytes_out;
	uint64_t model_ns;
	uint64_t energy_pj;
	uint64_t tracked_keys;
	uint64_t remaps;
	uint64_t remap_rows_moved;
	uint64_t remap_page_reads;
	uint64_t remap_programs;
	uint64_t remap_erases;
	uint64_t remap_ns;
	uint64_t trigger_hot_new;
	double utilisation;
	double hit_rate;
};

/* reis_rf_table_stats() flags */
#define REIS_RF_STATS_RESET 1u	/* zero the table's counters after reading */

/**
 * reis_rf_table_stats() - issue TBL_STATS for one table and decode it.
 * @dev: handle.
 * @tid: table id.
 * @flags: REIS_RF_STATS_RESET or 0.
 * @st: filled on success.
 *
 * Return: 0, -ENOENT for an unknown table, -EPROTO for a malformed answer,
 * or -errno.
 */
int reis_rf_table_stats(struct reis_dev *dev, uint32_t tid, uint32_t flags,
			struct reis_rf_stats *st);

/**
 * reis_rf_stats_decode() - decode one TBL_STATS / TBL_LIST entry.
 * @buf: REIS_RF_STATS_LEN bytes from the drive.
 * @len: at least REIS_RF_STATS_LEN.
 * @st: filled on success; every field is bounded (name sanitized).
 *
 * Return: 0, -EINVAL for a short buffer, -EPROTO for values out of range
 * (dtype, mode, state, dim).
 */
int reis_rf_stats_decode(const void *buf, size_t len, struct reis_rf_stats *st);

/**
 * reis_rf_list() - the drive's tables, in the drive's order.
 * @dev: handle.
 * @out: array for the entries (may be NULL when @max is 0).
 * @max: its length.
 *
 * Issues TBL_LIST as often as needed.
 *
 * Return: the number of tables on the drive (may exceed @max; only @max are
 * filled), or -errno.
 */
int reis_rf_list(struct reis_dev *dev, struct reis_rf_stats *out, unsigned max);

/**
 * struct reis_rf_bags - a batch of bags (DLRM's offsets/indices form).
 * @nbags: bags, >= 1.
 * @nidx: indices in all bags.
 * @offsets: @nbags + 1 ascending values, offsets[0] = 0, offsets[nbags] =
 *           @nidx; bag b is indices[offsets[b] .. offsets[b+1]); no bag may
 *           be empty.
 * @indices: row indices.
 * @weights: @nidx per-index weights with REIS_RF_SLS_WEIGHTED, else NULL.
 */
struct reis_rf_bags {
	uint32_t nbags;
	uint32_t nidx;
	const uint32_t *offsets;
	const uint32_t *indices;
	const float *weights;
};

/**
 * struct reis_rf_sls_info - what an SLS batch cost, summed over its commands.
 * @nbags: bags pooled.
 * @dim: elements per pooled vector.
 * @ncmds: SLS commands the batch was split into.
 * @retries: SLS resubmitted after a ticket collision or a full result table.
 * @gen_min: lowest mapping generation that served a command.
 * @gen_max: highest one (differs from @gen_min only across a switch).
 * @lookups: indices looked up.
 * @page_reads: pages sensed (tR).
 * @cache_hits: page-cache hits.
 * @cache_misses: page-cache misses.
 * @bytes_sensed: page bytes brought into page buffers.
 * @bytes_useful: row bytes used.
 * @bytes_out: bytes read out over the channel.
 * @flash_ns: modeled embedding stage in the flash (per command, summed).
 * @flash_pj: its read energy.
 * @model_ns: modeled time of the SLS commands (result headers), summed.
 * @energy_pj: their modeled energy.
 * @cmd_ns: modeled time of every command (SLS and result reads), summed
 *          from the completions.
 * @host_ns: wall time from the first submission to the last completion.
 */
struct reis_rf_sls_info {
	uint32_t nbags;
	uint32_t dim;
	uint32_t ncmds;
	uint32_t retries;
	uint32_t gen_min;
	uint32_t gen_max;
	uint64_t lookups;
	uint64_t page_reads;
	uint64_t cache_hits;
	uint64_t cache_misses;
	uint64_t bytes_sensed;
	uint64_t bytes_useful;
	uint64_t bytes_out;
	uint64_t flash_ns;
	uint64_t flash_pj;
	uint64_t model_ns;
	uint64_t energy_pj;
	uint64_t cmd_ns;
	uint64_t host_ns;
};

/**
 * reis_rf_sls() - pool a batch of bags in the drive and wait for the sums.
 * @dev: handle.
 * @tid: table id.
 * @dim: the table's dim (checked by the drive).
 * @bags: the batch.
 * @flags: REIS_RF_SLS_* flags.
 * @out: @bags->nbags * @dim floats, bag after bag.
 * @info: cost report, or NULL.
 *
 * A batch larger than one command (max_xfer, REIS_RF_MAX_BAGS, the result
 * memory) is split by bags into several SLS commands kept in flight
 * together. Tickets are random and non-zero; a ticket collision (ISP
 * Ticket In Use) is retried with a new ticket, a full result table (ISP
 * Resource Busy) a
 * little later. Results are read in chunks and released.
 *
 * Return: 0; -EINVAL for a malformed batch (nothing sent); -ENOENT unknown
 * table; -EINVAL/-EDOM for what the drive rejects (row out of range, dim);
 * -EBUSY (table deploying); -EPROTO for a malformed result; or -errno, the
 * status of the failing command in reis_last_cpl().
 */
int reis_rf_sls(struct reis_dev *dev, uint32_t tid, uint32_t dim,
		const struct reis_rf_bags *bags, uint32_t flags, float *out,
		struct reis_rf_sls_info *info);

struct reis_rf_sls_op;

/**
 * typedef reis_rf_sls_cb - completion of an asynchronous SLS.
 * @op: the finished operation (op->err, op->info, op->cpl are set).
 * @arg: op->cb_arg.
 *
 * Runs once, in the thread that reaps (reis_poll(), reis_wait(), ...).
 * It may submit; it must not wait.
 */
typedef void (*reis_rf_sls_cb)(struct reis_rf_sls_op *op, void *arg);

/**
 * struct reis_rf_sls_op - an asynchronous SLS batch (caller memory).
 * @tid: table id.
 * @dim: the table's dim.
 * @flags: REIS_RF_SLS_* flags.
 * @state: library-owned: 0 idle, 1 in flight, 2 done.
 * @bags: the batch; its arrays must stay valid until done.
 * @out: bags.nbags * dim floats.
 * @cb: completion callback or NULL.
 * @cb_arg: its argument.
 * @err: out: 0 or -errno.
 * @rsvd0: reserved.
 * @cpl: out: the failing command's completion (or the last one).
 * @info: out: cost report.
 * @priv: library-private state while in flight.
 *
 * Set the inputs (or use reis_rf_sls_op_init()), then reis_rf_sls_submit().
 * The operation advances inside reaping on the same handle: its SLS
 * commands, ticket retries and result reads are requests of that handle.
 */
struct reis_rf_sls_op {
	uint32_t tid;
	uint32_t dim;
	uint32_t flags;
	uint32_t state;
	struct reis_rf_bags bags;
	float *out;
	reis_rf_sls_cb cb;
	void *cb_arg;
	int32_t err;
	uint32_t rsvd0;
	struct reis_cpl cpl;
	struct reis_rf_sls_info info;
	void *priv;
};

/**
 * reis_rf_sls_op_init() - reset @op and set its inputs.
 * @op: operation.
 * @tid: table id.
 * @dim: the table's dim.
 * @bags: the batch (copied by value; the arrays are not).
 * @flags: REIS_RF_SLS_* flags.
 * @out: destination.
 */
static inline void reis_rf_sls_op_init(struct reis_rf_sls_op *op, uint32_t tid,
				       uint32_t dim, const struct reis_rf_bags *bags,
				       uint32_t flags, float *out)
{
	memset(op, 0, sizeof(*op));
	op->tid = tid;
	op->dim = dim;
	op->flags = flags;
	if (bags)
		op->bags = *bags;
	op->out = out;
}

/**
 * reis_rf_sls_submit() - start an asynchronous SLS.
 * @dev: handle; the operation's commands are its requests.
 * @op: operation, caller memory valid until it is done.
 *
 * Batches of any size work: parts that do not fit one command run one
 * after the other inside the operation (submit several operations to have
 * them in flight together). Ticket collisions are retried inside; a full
 * result table ends the operation with -EAGAIN (resubmit it later).
 *
 * Return: 0 (completion through reaping), -EINVAL for a malformed batch,
 * -EBUSY if @op is in flight or the queue is full, -ENOMEM, or -errno.
 */
int reis_rf_sls_submit(struct reis_dev *dev, struct reis_rf_sls_op *op);

/**
 * reis_rf_sls_wait() - reap on @dev until @op is done.
 * @dev: handle @op was submitted on.
 * @op: operation.
 * @timeout_ms: -1: no limit.
 *
 * Return: op->err, -ETIME, -EDEADLK inside a callback, or -EINVAL.
 */
int reis_rf_sls_wait(struct reis_dev *dev, struct reis_rf_sls_op *op, int timeout_ms);

/**
 * reis_rf_sls_done() - whether @op has finished.
 * @op: operation.
 *
 * Return: non-zero once done (op->err is final).
 */
static inline int reis_rf_sls_done(const struct reis_rf_sls_op *op)
{
	return op->state == 2;
}

/**
 * reis_rf_profile() - upload access counts for a later REMAP_FULL.
 * @dev: handle.
 * @tid: table id.
 * @counts: access counts of rows [0, @n) (reis_rf_profile_count()).
 * @n: rows covered, 1..the table's rows.
 *
 * Streams RF_PROFILE commands in order from offset 0.
 *
 * Return: 0, -ENOENT, -ERANGE when @n exceeds the table (ISP Bad Offset),
 * or -errno.
 */
int reis_rf_profile(struct reis_dev *dev, uint32_t tid, const uint32_t *counts,
		    uint32_t n);

/**
 * struct reis_rf_remap_info - outcome of reis_rf_remap().
 * @triggered: 1 if a remap ran (always, unless REIS_RF_REMAP_IF_TRIGGERED
 *             and the trigger did not hold).
 * @remap_state: REIS_RF_REMAP_* after the command.
 * @generation: active generation after the command.
 * @rsvd0: reserved.
 * @rows_moved: rows moved by this remap.
 * @page_reads: pages it read.
 * @programs: pages it programmed.
 * @erases: blocks it erased.
 * @remap_ns: its modeled time (the drive's TBL_STATS).
 * @time_ns: modeled time of the REMAP command's completion.
 */
struct reis_rf_remap_info {
	uint32_t triggered;
	uint32_t remap_state;
	uint32_t generation;
	uint32_t rsvd0;
	uint64_t rows_moved;
	uint64_t page_reads;
	uint64_t programs;
	uint64_t erases;
	uint64_t remap_ns;
	uint64_t time_ns;
};

/**
 * reis_rf_remap() - build a new mapping for a table.
 * @dev: handle.
 * @tid: table id.
 * @flags: exactly one of REIS_RF_REMAP_FULL / REIS_RF_REMAP_ADAPTIVE, and
 *         optionally REIS_RF_REMAP_IF_TRIGGERED and REIS_RF_REMAP_SWITCH.
 * @info: if not NULL, filled from TBL_STATS before and after (two extra
 *        commands).
 *
 * SLS keep answering from the old mapping while the remap runs; the new one
 * is STAGED until reis_rf_switch() (or at once with REIS_RF_REMAP_SWITCH).
 *
 * A profile uploaded with reis_rf_profile() is used (and consumed) by the
 * next remap instead of the drive's tracked counts. The erases of a remap
 * are counted when its mapping is switched in.
 *
 * Return: 0, -EINVAL for bad flags or a table not in RecFlash mode,
 * -ENOENT, -EBUSY while another remap runs, -ENODATA while a profile upload
 * is incomplete, or -errno.
 */
int reis_rf_remap(struct reis_dev *dev, uint32_t tid, uint32_t flags,
		  struct reis_rf_remap_info *info);

/**
 * reis_rf_switch() - activate a table's staged mapping atomically.
 * @dev: handle.
 * @tid: table id.
 *
 * Return: 0, -ENOENT, -ENODATA when nothing is staged (ISP Incomplete),
 * -EBUSY while a remap runs, or -errno.
 */
int reis_rf_switch(struct reis_dev *dev, uint32_t tid);

/**
 * reis_rf_prep_remap() - prepare RF_REMAP as an asynchronous request.
 * @req: request.
 * @tid: table id.
 * @flags: REIS_RF_REMAP_* flags.
 */
static inline void reis_rf_prep_remap(struct reis_req *req, uint32_t tid, uint32_t flags)
{
	reis_prep_cmd(req, REIS_OP_RF_REMAP, NULL, 0);
	req->cmd.cdw12 = tid;
	req->cmd.cdw13 = flags;
}

/**
 * reis_rf_prep_switch() - prepare RF_SWITCH as an asynchronous request.
 * @req: request.
 * @tid: table id.
 */
static inline void reis_rf_prep_switch(struct reis_req *req, uint32_t tid)
{
	reis_prep_cmd(req, REIS_OP_RF_SWITCH, NULL, 0);
	req->cmd.cdw12 = tid;
}

/**
 * reis_rf_bags_check() - validate a batch the way the library does.
 * @bags: batch.
 * @flags: SLS flags (weights required with REIS_RF_SLS_WEIGHTED).
 * @rows: the table's rows to bound the indices, or 0 to skip that check.
 * @why: if not NULL, a static reason on failure.
 *
 * Return: 0, -EINVAL (malformed) or -ERANGE (an index >= @rows).
 */
int reis_rf_bags_check(const struct reis_rf_bags *bags, uint32_t flags, uint32_t rows,
		       const char **why);

#ifdef __cplusplus
}
#endif

#endif /* LIBREIS_RF_H */
