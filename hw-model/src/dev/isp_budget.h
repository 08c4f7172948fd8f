/* SPDX-License-Identifier: MIT */
/*
 * isp_budget.h - a byte budget shared by concurrent commands: the host
 * memory the engines' per-command working buffers may hold at once
 * (docs/security.md, "Budgets"). Private to hw-model.
 */
#ifndef ISP_BUDGET_H
#define ISP_BUDGET_H

#include <pthread.h>
#include <stdint.h>

/* How long a command waits for others to give bytes back (wall time). */
#define ISP_BUDGET_WAIT_MS 200

struct isp_budget {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t cap, used, peak;
	uint64_t waits, refused;
};

struct isp_budget_stats {
	uint64_t cap, used, peak, waits, refused;
};

/* @cap bytes; 0 is refused (-EINVAL). Return: 0 or -errno. */
int isp_budget_init(struct isp_budget *b, uint64_t cap);
void isp_budget_destroy(struct isp_budget *b);

/*
 * isp_budget_take() - hold @bytes of the budget.
 * Waits up to ISP_BUDGET_WAIT_MS while other commands hold it.
 * Return: 0; -EFBIG when @bytes exceeds the whole budget (the command can
 * never run: Capacity Exceeded); -EAGAIN when it stayed full (ISP Resource
 * Busy, the host retries).
 */
int isp_budget_take(struct isp_budget *b, uint64_t bytes);

/* Give back what isp_budget_take() granted. */
void isp_budget_give(struct isp_budget *b, uint64_t bytes);

struct isp_cpl;
/* A take's result as a status: 0, Capacity Exceeded (DNR) or ISP Resource
 * Busy (retryable), with the reason in @cpl. */
uint16_t isp_budget_status(int take_ret, struct isp_cpl *cpl);

void isp_budget_get_stats(struct isp_budget *b, struct isp_budget_stats *out);

#endif /* ISP_BUDGET_H */
