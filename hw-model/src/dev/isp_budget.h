/* SPDX-License-Identifier: MIT */
/*
 * isp_budget.h - a byte budget shared by concurrent commands: the host
 * memory the engines' per-command working buffers may hold at once
 * (docs/security.md, "Budgets"). Private to hw-model.
 */
#ifndef ISP_BUDGET_H
#define ISP_BUDGET_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "isp_share.h"

/* How long a command waits for others to give bytes back (wall time). */
#define ISP_BUDGET_WAIT_MS 200
/* While it waits, how often it reads its stop flag (isp_dev_exec_cancel()). */
#define ISP_BUDGET_POLL_MS 1

struct isp_budget {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct isp_share share;	/* cap, used and who holds it (fair shares) */
	uint64_t cap, peak;
	uint64_t waits, refused;
};

struct isp_budget_stats {
	uint64_t cap, used, peak, waits, refused;
	uint64_t errors;	/* gives of more than was held: a caller's bug */
	uint64_t users;		/* users holding or waiting now */
};

/* @cap bytes; 0 is refused (-EINVAL). Return: 0 or -errno. */
int isp_budget_init(struct isp_budget *b, uint64_t cap);
void isp_budget_destroy(struct isp_budget *b);

/*
 * isp_budget_take_as() - hold @bytes of the budget for @user (a submission
 * queue: isp_cmd.sqid), within its fair share (isp_share.h).
 * Waits up to ISP_BUDGET_WAIT_MS while others hold it, reading @cancel
 * (may be NULL) every ISP_BUDGET_POLL_MS.
 * Return: 0; -EFBIG when @bytes exceeds the whole budget (the command can
 * never run: Capacity Exceeded); -EAGAIN when it stayed full or @user over
 * its share (ISP Resource Busy, the host retries); -ECANCELED when @cancel
 * was set while it waited.
 */
int isp_budget_take_as(struct isp_budget *b, uint64_t bytes, uint32_t user,
		       const atomic_int *cancel);

/* Give back what isp_budget_take_as() granted @user. More than it holds is
 * a bug of the caller: counted in errors (the fuzzers and tests require 0). */
void isp_budget_give_as(struct isp_budget *b, uint64_t bytes, uint32_t user);

/* isp_budget_take_as() without waiting: 0, -EFBIG or -EAGAIN at once. */
int isp_budget_try_as(struct isp_budget *b, uint64_t bytes, uint32_t user);

/* The same for user 0, no stop flag (tests, the in-process benches). */
int isp_budget_take(struct isp_budget *b, uint64_t bytes);
void isp_budget_give(struct isp_budget *b, uint64_t bytes);

struct isp_cpl;
/* A take's result as a status: 0, Capacity Exceeded (DNR), ISP Resource
 * Busy (retryable) or Command Abort Requested, with the reason in @cpl. */
uint16_t isp_budget_status(int take_ret, struct isp_cpl *cpl);

void isp_budget_get_stats(struct isp_budget *b, struct isp_budget_stats *out);

#endif /* ISP_BUDGET_H */
