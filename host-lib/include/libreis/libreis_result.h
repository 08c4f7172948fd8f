/* SPDX-License-Identifier: MIT */
/*
 * libreis/libreis_result.h - the results protocol both engines share (docs/command-set.md
 * §3.5, §6): tickets, RESULT_READ / RESULT_RELEASE, a whole result fetched
 * in chunks, TRACE_ARM and timelines, and the one progress callback type.
 * Included by libreis.h; conventions are libreis.h's (docs/libreis.md).
 */
#ifndef LIBREIS_RESULT_H
#define LIBREIS_RESULT_H

#ifndef LIBREIS_H
#error "include <libreis.h>, not <libreis/libreis_result.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * typedef reis_progress_fn - progress of a long operation: a REIS deploy
 * (struct reis_deploy_opts) or a RecFlash deploy (struct reis_rf_deploy_opts).
 * @arg: the options' progress argument.
 * @done: bytes acknowledged by the drive so far.
 * @total: bytes to send.
 *
 * One type, one argument order, for both engines.
 */
typedef void (*reis_progress_fn)(void *arg, uint64_t done, uint64_t total);

struct reis_rx_ops;

/**
 * struct reis_rx - library-private: one command's way through the results
 * protocol of docs/command-set.md §6 (submit under a ticket, a new ticket on
 * ISP Ticket In Use, RESULT_READs in chunks, RELEASE), the one state machine
 * a REIS search and a RecFlash SLS both run (core_result.c). It sits in
 * caller memory (struct reis_search_req), hence declared here; no field is
 * API.
 * @dev: library-private.
 * @req: library-private.
 * @ops: library-private.
 * @off: library-private.
 * @total: library-private.
 * @ticket: library-private.
 * @chunk: library-private.
 * @len: library-private.
 * @phase: library-private.
 * @collisions: library-private.
 * @max_collisions: library-private.
 * @flags: library-private.
 * @fail_err: library-private.
 * @fail_op: library-private.
 * @fail_cpl: library-private.
 */
struct reis_rx {
	struct reis_dev *dev;
	struct reis_req *req;
	const struct reis_rx_ops *ops;
	uint64_t off;
	uint64_t total;
	uint32_t ticket;
	uint32_t chunk;
	uint32_t len;
	uint16_t phase;
	uint16_t collisions;
	uint16_t max_collisions;
	uint16_t flags;
	int32_t fail_err;
	uint32_t fail_op;
	struct reis_cpl fail_cpl;
};

/**
 * reis_ticket_new() - a random non-zero ticket (getrandom).
 *
 * Thread-safe.
 *
 * Return: the ticket.
 */
uint32_t reis_ticket_new(void);

/**
 * reis_ticket_force() - the tickets the next commands of @dev draw.
 * @dev: handle.
 * @ticket: the ticket; non-zero unless @count is 0.
 * @count: how many of the next tickets libreis draws for a REIS search or a
 *         RecFlash SLS on @dev are @ticket; 0 goes back to random tickets.
 *
 * For tests that provoke ISP Ticket In Use (docs/command-set.md §6): a
 * per-handle setting, so other handles and threads are not affected.
 *
 * Return: 0 or -EINVAL.
 */
int reis_ticket_force(struct reis_dev *dev, uint32_t ticket, unsigned count);

/**
 * reis_result_read() - one RESULT_READ.
 * @dev: handle.
 * @ticket: ticket.
 * @off: byte offset in the result.
 * @buf: destination.
 * @len: a multiple of 4, at most reis_max_xfer().
 * @release: release the result after this read.
 *
 * Return: 0, -ENOENT unknown ticket, -EBUSY not ready, -ERANGE offset past
 * the end, or -errno.
 */
int reis_result_read(struct reis_dev *dev, uint32_t ticket, uint64_t off, void *buf,
		     uint32_t len, int release);

/**
 * reis_result_release() - RESULT_RELEASE.
 * @dev: handle.
 * @ticket: ticket.
 *
 * Return: 0, -ENOENT, or -errno.
 */
int reis_result_release(struct reis_dev *dev, uint32_t ticket);

/**
 * reis_result_fetch() - read a whole result in chunks and release it.
 * @dev: handle.
 * @ticket: ticket.
 * @kind: expected result kind (1 search, 2 SLS, 3 trace), or 0: any.
 * @blob: out: the malloc'd result, header included.
 * @len: out: its length.
 *
 * Return: 0, -EPROTO for a malformed header or another kind, or -errno.
 */
int reis_result_fetch(struct reis_dev *dev, uint32_t ticket, uint32_t kind,
		      void **blob, uint64_t *len);

/**
 * reis_trace_arm() - ISP_TRACE_ARM: trace the next matching command.
 * @dev: handle.
 * @ticket: the ticket its Perfetto JSON is published under.
 * @opcode: opcode filter; 0: the next command of any kind.
 *
 * Read the trace with reis_result_fetch(dev, ticket, 3, ...); the JSON
 * follows the 64-byte result header.
 *
 * Return: 0, -EBUSY when a trace is already armed, -EADDRINUSE when
 * @ticket holds another command's result, or -errno.
 */
int reis_trace_arm(struct reis_dev *dev, uint32_t ticket, uint8_t opcode);

#ifdef __cplusplus
}
#endif

#endif /* LIBREIS_RESULT_H */
