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

/* How member results merge into one drive's answer (tool_group_search.c). */
struct reis_gr_merge {
	uint32_t k;
	uint32_t m;		/* candidates one drive keeps: factor * k */
	int rerank;
	int l2;
	int ids;		/* the shards carry caller ids */
	uint32_t did;
};

struct reis_gr_chunk;

/* struct reis_group_result.priv: what the hits' documents point into. */
struct reis_gr_priv {
	unsigned nchunks;
	unsigned nextra;
	unsigned nshards;
	struct reis_gr_chunk *ch;
	struct reis_search_result *extra;	/* host-computed parts (scheduled) */
	struct reis_db_image *shards;		/* their images */
};

/* A sharded search's plan: per member entries, k, options. */
struct reis_gr_setup {
	struct reis_gr_merge mg;
	uint64_t ns[REIS_GROUP_MAX];
	uint32_t ks[REIS_GROUP_MAX];
	int32_t fact_err[REIS_GROUP_MAX];
	struct reis_search_opts os[REIS_GROUP_MAX];
	int first_err;
};

/* Check the options, read each member's facts, allocate @r's parts. */
int reis__gr_setup(struct reis_group *g, const struct reis_search_opts *o,
		   const struct reis_queries *q, uint32_t flags, struct reis_group_result *r,
		   struct reis_gr_setup *st);

/* Add @cr's counters (commands, pages, times, energy) to @out's. */
void reis__gr_add_counts(struct reis_search_result *out, const struct reis_search_result *cr);

/* Merge @r->part[] (the members that answered) into @r->res. */
int reis__gr_merge_all(struct reis_group_result *r, const struct reis_gr_merge *mg,
		       const struct reis_search_opts *o, uint32_t nq, const uint32_t *ks);

#endif /* TOOL_GROUP_PRIV_H */
