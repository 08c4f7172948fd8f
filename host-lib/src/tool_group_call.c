/* SPDX-License-Identifier: MIT */
/*
 * tool_group_call.c - the group's synchronous per-member work (DB_INFO
 * before a search, deploys, the scheduled mode's drive batches) under the
 * group's timeout (docs/group.md, Timeout). The drive commands layer's
 * synchronous calls cannot be abandoned half way, so each member's part
 * runs on a thread of its own (all members at once) and the caller waits
 * for it at most the timeout since its last sign of progress. A member
 * past the bound is given up on: its thread keeps the member's handle
 * until its call returns, then runs the call's late clean-up (a deploy
 * removes the shard it wrote) and is joined by the next call on the group,
 * reis_group_pending() or reis_group_close().
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libreis_tools.h"
#include "tool_group_priv.h"

static pthread_mutex_t reis_gc_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t reis_gc_cv = PTHREAD_COND_INITIALIZER;

/* CLOCK_MONOTONIC in ns (tool_group.c, which uses this file, has its own). */
static uint64_t reis_gc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void reis__gcall_beat(struct reis__gcall *c)
{
	__atomic_store_n(&c->beat_ns, reis_gc_now(), __ATOMIC_RELEASE);
}

void reis__gcall_progress(reis_progress_fn fn, void *arg, uint64_t done, uint64_t total)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

	if (!fn)
		return;
	pthread_mutex_lock(&mu);
	fn(arg, done, total);
	pthread_mutex_unlock(&mu);
}

static void *reis_gc_thread(void *arg)
{
	struct reis__gcall *c = arg;
	int ret = c->fn(c);

	pthread_mutex_lock(&reis_gc_mu);
	c->ret = ret;
	if (c->late && c->late_done) {
		pthread_mutex_unlock(&reis_gc_mu);
		c->late_done(c);	/* nobody waits for it: undo what it did */
		pthread_mutex_lock(&reis_gc_mu);
	}
	c->done = 1;
	pthread_cond_broadcast(&reis_gc_cv);
	pthread_mutex_unlock(&reis_gc_mu);
	return NULL;
}

static void reis_gc_free(struct reis__gcall *c)
{
	free(c->ctx);
	free(c);
}

/* Join the late calls that have returned; the members still held. */
uint64_t reis__gcall_reap(struct reis_group *g)
{
	struct reis__gcall **pp = &g->late, *c;
	uint64_t held = 0;

	while ((c = *pp)) {
		int done;

		pthread_mutex_lock(&reis_gc_mu);
		done = c->done;
		pthread_mutex_unlock(&reis_gc_mu);
		if (!done) {
			held |= 1ull << c->s;
			pp = &c->next;
			continue;
		}
		pthread_join(c->th, NULL);
		*pp = c->next;
		reis_gc_free(c);
	}
	g->held = held;
	return held;
}

unsigned reis__gcall_count(const struct reis_group *g)
{
	const struct reis__gcall *c;
	unsigned n = 0;

	for (c = g->late; c; c = c->next)
		n++;
	return n;
}

void reis__gcall_join_all(struct reis_group *g)
{
	while (g->late) {
		struct reis__gcall *c = g->late;

		g->late = c->next;
		pthread_join(c->th, NULL);
		reis_gc_free(c);
	}
	g->held = 0;
}

int reis__group_call(struct reis_group *g, uint64_t mask, int (*fn)(struct reis__gcall *c),
		     void (*late_done)(struct reis__gcall *c), void *ctx, size_t ctx_size,
		     int *rets)
{
	uint64_t tmo = g->timeout_ms < 0 ? UINT64_MAX : (uint64_t)g->timeout_ms * 1000000u;
	struct reis__gcall *c[REIS_GROUP_MAX] = { NULL };
	uint64_t late = 0;
	unsigned s, left = 0;

	for (s = 0; s < g->n; s++) {
		if (!(mask >> s & 1))
			continue;
		c[s] = calloc(1, sizeof(*c[s]));
		if (c[s])
			c[s]->ctx = malloc(ctx_size ? ctx_size : 1);
		if (!c[s] || !c[s]->ctx) {
			rets[s] = -ENOMEM;
			goto fail;
		}
		memcpy(c[s]->ctx, (uint8_t *)ctx + s * ctx_size, ctx_size);
		c[s]->g = g;
		c[s]->dev = g->dev[s];
		c[s]->s = s;
		c[s]->fn = fn;
		c[s]->late_done = late_done;
		c[s]->beat_ns = reis_gc_now();
		if (pthread_create(&c[s]->th, NULL, reis_gc_thread, c[s])) {
			rets[s] = -EAGAIN;
			goto fail;
		}
		left++;
		continue;
fail:
		if (c[s])
			reis_gc_free(c[s]);
		c[s] = NULL;
	}
	pthread_mutex_lock(&reis_gc_mu);
	while (left) {
		struct timespec ts;

		for (s = 0; s < g->n; s++) {
			uint64_t beat;

			if (!c[s] || (late >> s & 1))
				continue;
			if (c[s]->done) {
				rets[s] = c[s]->ret;
				left--;
				pthread_mutex_unlock(&reis_gc_mu);
				pthread_join(c[s]->th, NULL);
				memcpy((uint8_t *)ctx + s * ctx_size, c[s]->ctx, ctx_size);
				reis_gc_free(c[s]);
				c[s] = NULL;
				pthread_mutex_lock(&reis_gc_mu);
				continue;
			}
			beat = __atomic_load_n(&c[s]->beat_ns, __ATOMIC_ACQUIRE);
			if (reis_gc_now() - beat >= tmo) {
				/* Given up on: the thread owns its context now. */
				c[s]->late = 1;
				rets[s] = -ETIMEDOUT;
				late |= 1ull << s;
				left--;
			}
		}
		if (!left)
			break;
		/* Wake for a finished call or, every 5 ms, to check the bounds. */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 5000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&reis_gc_cv, &reis_gc_mu, &ts);
	}
	pthread_mutex_unlock(&reis_gc_mu);
	for (s = 0; s < g->n; s++)
		if (late >> s & 1) {
			c[s]->next = g->late;
			g->late = c[s];
			g->held |= 1ull << s;
		}
	return 0;
}
