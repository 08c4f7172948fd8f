/* SPDX-License-Identifier: MIT */
/*
 * tool_group_priv.h - the device group's private state, shared by the
 * tool_group_*.c files (never installed).
 */
#ifndef TOOL_GROUP_PRIV_H
#define TOOL_GROUP_PRIV_H

#include <stdint.h>

#include "libreis_tools.h"

#define REIS_GROUP_MSG_LEN 256

struct reis_group {
	unsigned n;
	int failed;			/* member of the last failure, or -1 */
	struct reis_dev *dev[REIS_GROUP_MAX];
	struct reis_group_member m[REIS_GROUP_MAX];
	char msg[REIS_GROUP_MSG_LEN];
};

/* Record a failure of @member (-1: none) with a sentence; returns @err. */
int reis__group_fail(struct reis_group *g, int member, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* CLOCK_MONOTONIC in ns (the core's clock is private to libreis.so). */
uint64_t reis__group_now_ns(void);

/* Clear the last failure at the start of a call. */
void reis__group_ok(struct reis_group *g);

/*
 * Reap on every member until @done(@arg) holds or nothing is in flight,
 * polling all members and blocking briefly on one when none had anything.
 */
void reis__group_reap(struct reis_group *g, int (*done)(const void *arg), const void *arg);

/* Run @del(dev, id) on every member; -ENOENT on a member is no error. */
int reis__group_delete(struct reis_group *g, uint32_t id,
		       int (*del)(struct reis_dev *dev, uint32_t id));

#endif /* TOOL_GROUP_PRIV_H */
