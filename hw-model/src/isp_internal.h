/* SPDX-License-Identifier: MIT */
/*
 * isp_internal.h - what command handlers in hw-model share; not installed.
 *
 * The dispatch in isp_dev.c looks opcodes up in three tables: the device
 * commands (isp_dev.c), REIS (isp_reis.c) and RecFlash (isp_recflash.c).
 * Each engine's file owns its table and handlers.
 */
#ifndef ISP_INTERNAL_H
#define ISP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "flash_preset.h"
#include "isp_dev.h"
#include "isp_result.h"

/* Per-command cost accumulated by handlers (ps / pJ on the device clock). */
struct isp_cost {
	uint64_t start_ps;	/* submission */
	uint64_t end_ps;	/* completion so far; handlers only move it later */
	uint64_t energy_pj;
};

struct isp_ctx {
	struct isp_dev *dev;
	struct isp_cost cost;
};

typedef uint16_t (*isp_handler)(struct isp_ctx *ctx, const struct isp_cmd *cmd,
				void *data, size_t len, struct isp_cpl *cpl);

struct isp_op {
	uint8_t opcode;
	uint8_t cls;		/* enum isp_cmd_class */
	uint32_t fixed_len;	/* required data length, 0: any 1..max_xfer */
	const char *name;
	isp_handler fn;
};

struct isp_op_table {
	const struct isp_op *ops;
	size_t n;
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

const struct fp_params *isp_dev_params(const struct isp_dev *dev);
struct isp_results *isp_dev_results(struct isp_dev *dev);

/* Host-link DMA of @bytes, serialized with other commands on the link. */
void isp_link_xfer(struct isp_ctx *ctx, uint64_t bytes, int c2h);

#endif /* ISP_INTERNAL_H */
