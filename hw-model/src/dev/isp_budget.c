/* SPDX-License-Identifier: MIT */
/*
 * isp_budget.c - the per-command buffer budget (isp_budget.h).
 *
 * Without it a guest multiplies one command's working set by the number of
 * commands in flight: an SLS of ~16 KiB may stage 64 MiB of rows, and the
 * glue runs many at once. Every engine takes its worst case up front, so a
 * command either fits or fails before it allocates; the shares
 * (isp_share.h) keep one queue from holding it all while another waits.
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
	if (isp_share_init(&b->share, cap))
		return -EINVAL;
	b->cap = cap;
	b->peak = b->waits = b->refused = 0;
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
	isp_share_destroy(&b->share);
	b->cap = 0;
}

static void isp_ts_add_ms(struct timespec *t, long ms)
{
	t->tv_nsec += ms * 1000000L;
	t->tv_sec += t->tv_nsec / 1000000000L;
	t->tv_nsec %= 1000000000L;
}

static int isp_ts_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

int isp_budget_take_as(struct isp_budget *b, uint64_t bytes, uint32_t user,
		       const atomic_int *cancel)
{
	struct timespec dl, now, wake;
	int ret, waiting = 0;

	if (!bytes)
		return 0;
	pthread_mutex_lock(&b->lock);
	if (bytes > b->cap) {
		b->refused++;
		pthread_mutex_unlock(&b->lock);
		return -EFBIG;
	}
	clock_gettime(CLOCK_MONOTONIC, &dl);
	isp_ts_add_ms(&dl, ISP_BUDGET_WAIT_MS);
	for (;;) {
		ret = isp_share_take(&b->share, user, bytes);
		if (ret != -EAGAIN)
			break;
		if (cancel && atomic_load_explicit(cancel, memory_order_relaxed)) {
			ret = -ECANCELED;
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!isp_ts_before(&now, &dl)) {
			b->refused++;
			break;
		}
		if (!waiting) {
			/* counted as active: the holders' shares shrink */
			waiting = isp_share_wait(&b->share, user, 1) == 0;
			b->waits++;
		}
		wake = now;
		isp_ts_add_ms(&wake, ISP_BUDGET_POLL_MS);
		pthread_cond_timedwait(&b->cond, &b->lock,
				       cancel && isp_ts_before(&wake, &dl) ? &wake : &dl);
	}
	if (waiting) {
		isp_share_wait(&b->share, user, -1);
		/* one fewer active user: the others' shares grow */
		pthread_cond_broadcast(&b->cond);
	}
	if (!ret && b->share.used > b->peak)
		b->peak = b->share.used;
	pthread_mutex_unlock(&b->lock);
	return ret == -ENOMEM ? -EAGAIN : ret;
}

int isp_budget_try_as(struct isp_budget *b, uint64_t bytes, uint32_t user)
{
	int ret;

	if (!bytes)
		return 0;
	pthread_mutex_lock(&b->lock);
	if (bytes > b->cap) {
		ret = -EFBIG;
	} else {
		ret = isp_share_take(&b->share, user, bytes) ? -EAGAIN : 0;
		if (!ret && b->share.used > b->peak)
			b->peak = b->share.used;
	}
	if (ret)
		b->refused++;
	pthread_mutex_unlock(&b->lock);
	return ret;
}

void isp_budget_give_as(struct isp_budget *b, uint64_t bytes, uint32_t user)
{
	if (!bytes)
		return;
	pthread_mutex_lock(&b->lock);
	isp_share_give(&b->share, user, bytes);
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

int isp_budget_take(struct isp_budget *b, uint64_t bytes)
{
	return isp_budget_take_as(b, bytes, 0, NULL);
}

void isp_budget_give(struct isp_budget *b, uint64_t bytes)
{
	isp_budget_give_as(b, bytes, 0);
}

void isp_budget_get_stats(struct isp_budget *b, struct isp_budget_stats *out)
{
	pthread_mutex_lock(&b->lock);
	out->cap = b->cap;
	out->used = b->share.used;
	out->peak = b->peak;
	out->waits = b->waits;
	out->refused = b->refused;
	out->errors = b->share.errors;
	out->users = isp_share_active(&b->share);
	pthread_mutex_unlock(&b->lock);
}

uint16_t isp_budget_status(int take_ret, struct isp_cpl *cpl)
{
	if (!take_ret)
		return 0;
	if (take_ret == -EFBIG)
		return isp_fail(cpl, ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR,
				"command needs more than the whole buffer budget");
	if (take_ret == -ECANCELED)
		return isp_fail(cpl, ISP_SC_ABORT_REQ, "stopped while waiting for buffer budget");
	return isp_fail(cpl, ISP_SC_RESOURCE, "command buffer budget in use; retry");
}
