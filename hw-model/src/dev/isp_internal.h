/* SPDX-License-Identifier: MIT */
/*
 * isp_internal.h - what command handlers and engines in hw-model share; not
 * installed.
 *
 * The device (isp_dev.c) owns the flash store (flash_store.h), the timing
 * engine (flash_timing.h), the ticket table (isp_result.h) and the engines.
 * An engine plugs in with a struct isp_engine: its opcode table, load/save of
 * its part of the committed metadata, and its identify/statistics fields.
 */
#ifndef ISP_INTERNAL_H
#define ISP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "flash_preset.h"
#include "flash_store.h"
#include "flash_timing.h"
#include "isp_dev.h"
#include "isp_budget.h"
#include "isp_result.h"

/* Per-command state handed to handlers. */
struct isp_ctx {
	struct isp_dev *dev;
	struct ft_cmd ftc;	/* timing/energy of this command (flash_timing.h) */
	uint64_t ready;		/* ps: the controller has decoded the command */
	const atomic_int *cancel;	/* isp_dev_exec_cancel(); may be NULL */
	uint32_t user;		/* whose share it uses: the submission queue */
	/*
	 * A device-defined program runs a vendor handler on controller DRAM
	 * (docs/command-set.md §9.6): its data moves between the memory
	 * namespace and the handler, so isp_link_xfer() charges DRAM instead
	 * of the host link, and its result goes to @results (a table of the
	 * program's own) instead of the device's ticket table.
	 */
	int dram_io;
	struct isp_results *results;	/* NULL: the device's table */
};

/*
 * Whether the transport asked this command to stop: long loops test it once
 * per page and return -ECANCELED (isp_dev.h: isp_dev_exec_cancel()).
 */
static inline int isp_ctx_cancelled(const struct isp_ctx *ctx)
{
	return ctx && ctx->cancel &&
	       atomic_load_explicit(ctx->cancel, memory_order_relaxed);
}

/* The command's buffers from budget @b, in its queue's share; stoppable. */
static inline int isp_ctx_budget_take(const struct isp_ctx *ctx, struct isp_budget *b,
				      uint64_t bytes)
{
	return isp_budget_take_as(b, bytes, ctx->user, ctx->cancel);
}

static inline void isp_ctx_budget_give(const struct isp_ctx *ctx, struct isp_budget *b,
				       uint64_t bytes)
{
	isp_budget_give_as(b, bytes, ctx->user);
}

typedef uint16_t (*isp_handler)(struct isp_ctx *ctx, const struct isp_cmd *cmd,
				void *data, size_t len, struct isp_cpl *cpl);

struct isp_op {
	uint8_t opcode;
	uint8_t cls;		/* enum isp_cmd_class */
	uint32_t fixed_len;	/* required data length, 0: any 1..max_xfer */
	const char *name;
	isp_handler fn;
};

struct isp_engine {
	const char *name;	/* key of its metadata part, <= 15 chars */
	const struct isp_op *ops;
	size_t nops;
	/*
	 * Load from the engine's part of the last commit (@len 0: new drive).
	 * Also the place to free regions an interrupted deploy left behind.
	 */
	int (*open)(struct isp_dev *dev, const void *blob, size_t len,
		    void **state, char *err, size_t errlen);
	void (*close)(void *state);
	/* Serialize the committed tables into a malloc'd blob. Takes the
	 * engine's own lock; called by isp_dev_commit() only. */
	int (*save)(void *state, void **blob, size_t *len);
	/* Optional: add capability bits, object counts. */
	void (*identify)(void *state, struct isp_wire_identify *id);
	/* Optional: add engine counters; @reset clears them afterwards. */
	void (*stats)(void *state, struct isp_wire_stats *st, int reset);
	/* Optional: the most host memory the engine holds outside the
	 * budgets (its object tables at their limits; isp_hostmem.h fixed). */
	uint64_t (*host_fixed)(const struct fp_params *p);
};

/* Set @cpl's status and reason; returns @status for tail calls. */
static inline uint16_t isp_fail(struct isp_cpl *cpl, uint16_t status,
				const char *why)
{
	cpl->status = status;
	cpl->err = why;
	return status;
}

#define ISP_BAD_FIELD (ISP_SC_INVALID_FIELD | ISP_STATUS_DNR)

/* Bytes of the 64-byte NVMe command, for isp_err_at(). */
#define ISP_SQE_NSID 4u
#define ISP_SQE_CDW(n) (4u * (n))

/*
 * isp_err_at() - name the offending field of a failing command: @where
 * ISP_ERR_IN_SQE or ISP_ERR_IN_DATA, its @byte and @bit there, and the
 * reason with its values and the allowed range (printf @fmt), for the
 * Error Information log (docs/command-set.md §8). The status and the
 * static reason stay isp_fail()'s.
 */
void isp_err_at(struct isp_cpl *cpl, unsigned where, unsigned byte, unsigned bit,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Whether @n bytes at @p are all zero (reserved fields of wire structs). */
static inline int isp_all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		if (*b++)
			return 0;
	return 1;
}

/* The ticket table a result-producing handler uses (see isp_ctx.results). */
struct isp_results *isp_ctx_results(struct isp_ctx *ctx);

/*
 * isp_dev_run_vendor() - run vendor command @cmd (opcode 80h-FFh) inside
 * another command's @ctx, with the same field checks as isp_dev_exec();
 * its costs add to @ctx->ftc. Not counted in the vendor statistics.
 * Return: NVMe status, also in @cpl->status.
 */
uint16_t isp_dev_run_vendor(struct isp_ctx *ctx, const struct isp_cmd *cmd, void *data,
			    size_t len, struct isp_cpl *cpl);

/* The standard interface's state (cp/cs_int.h); NULL when it is off. */
struct cs_state *isp_dev_cs(struct isp_dev *dev);

const struct fp_params *isp_dev_params(const struct isp_dev *dev);
struct fs *isp_dev_store(struct isp_dev *dev);
struct ft *isp_dev_timing(struct isp_dev *dev);
struct ft_trace *isp_dev_trace_shared(struct isp_dev *dev);
struct isp_results *isp_dev_results(struct isp_dev *dev);
uint32_t isp_dev_max_xfer(const struct isp_dev *dev);
/* The drive's host worker set (isp_pool.h). */
struct isp_pool *isp_dev_pool(struct isp_dev *dev);
/* host_isa: the widest host kernels the engines may use ("portable",
 * "popcnt", "avx2", "avx512"), or NULL for the widest this CPU runs. */
const char *isp_dev_host_isa(const struct isp_dev *dev);

/* The state @e's open() returned, or NULL if @e is not part of @dev. */
void *isp_dev_engine(struct isp_dev *dev, const struct isp_engine *e);

/**
 * isp_dev_commit() - persist every engine's tables and the region table in
 * one atomic metadata commit (serialized between callers). Call it without
 * holding an engine lock: it calls every engine's save().
 * Return: 0 or -errno (the previous commit stays current).
 */
int isp_dev_commit(struct isp_dev *dev);

/* Host-link DMA of @bytes after @ready; returns completion (ps). */
uint64_t isp_link_xfer(struct isp_ctx *ctx, uint64_t bytes, int c2h,
		       uint64_t ready);

/* Map an -errno from the store/engines to an NVMe status. */
uint16_t isp_status_from_errno(int err);

/*
 * Result deferred-cost callbacks (isp_result.h) receive the reading
 * command's struct isp_ctx * as their @cost argument.
 */

#endif /* ISP_INTERNAL_H */
