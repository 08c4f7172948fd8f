/* SPDX-License-Identifier: MIT */
/*
 * isp_budget.c - the per-command buffer budget (isp_budget.h).
 *
 * Without it a guest multiplies one command's working set by the number of
 * commands in flight: an SLS of ~16 KiB may stage 64 MiB of rows, and the
 * glue runs many at once. Every engine takes its worst case up front, so a
 * command either fits or fails before it allocates.
 */
#include <errno.h>
#include <time.h>

#include "isp_budget.h"
#include "isp_internal.h"

int isp_budget_init(struct isp_budget *b, uint64_t cap)
{
	pthread_condattr_t ca;

	if (!b || !cap)
		return -EINVAL;
	b->cap = cap;
	b->used = b->peak = b->waits = b->refused = 0;
	pthread_mutex_init(&b->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&b->cond, &ca);
	pthread_condattr_destroy(&ca);
	return 0;
}

void isp_budget_destroy(struct isp_budget *b)
{
	if (!b || !b->cap)
		return;
	pthread_cond_destroy(&b->cond);
	pthread_mutex_destroy(&b->lock);
	b->cap = 0;
}

int isp_budget_take(struct isp_budget *b, uint64_t bytes)
{
	struct timespec dl;
	int ret = 0, waited = 0;

	if (!bytes)
		return 0;
	pthread_mutex_lock(&b->lock);
	if (bytes > b->cap) {
		b->refused++;
		pthread_mutex_unlock(&b->lock);
		return -EFBIG;
	}
	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_nsec += (long)ISP_BUDGET_WAIT_MS * 1000000L;
	dl.tv_sec += dl.tv_nsec / 1000000000L;
	dl.tv_nsec %= 1000000000L;
	while (b->used + bytes > b->cap) {
		if (!waited++)
			b->waits++;
		if (pthread_cond_timedwait(&b->cond, &b->lock, &dl) == ETIMEDOUT &&
		    b->used + bytes > b->cap) {
			b->refused++;
			ret = -EAGAIN;
			break;
		}
	}
	if (!ret) {
		b->used += bytes;
		if (b->used > b->peak)
			b->peak = b->used;
	}
	pthread_mutex_unlock(&b->lock);
	return ret;
}

void isp_budget_give(struct isp_budget *b, uint64_t bytes)
{
	if (!bytes)
		return;
	pthread_mutex_lock(&b->lock);
	b->used = bytes > b->used ? 0 : b->used - bytes;
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

void isp_budget_get_stats(struct isp_budget *b, struct isp_budget_stats *out)
{
	pthread_mutex_lock(&b->lock);
	out->cap = b->cap;
	out->used = b->used;
	out->peak = b->peak;
	out->waits = b->waits;
	out->refused = b->refused;
	pthread_mutex_unlock(&b->lock);
}

uint16_t isp_budget_status(int take_ret, struct isp_cpl *cpl)
{
	if (!take_ret)
		return 0;
	if (take_ret == -EFBIG)
		return isp_fail(cpl, ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR,
				"command needs more than the whole buffer budget");
	return isp_fail(cpl, ISP_SC_RESOURCE, "command buffer budget in use; retry");
}
