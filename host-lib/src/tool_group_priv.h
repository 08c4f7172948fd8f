/* SPDX-License-Identifier: MIT */
/*
 * tool_group_priv.h - the device group's private state, shared by the
 * tool_group_*.c files (never installed).
 */
#ifndef TOOL_GROUP_PRIV_H
#define TOOL_GROUP_PRIV_H

#include <pthread.h>
#include <stdint.h>

#include "libreis_tools.h"

/* A fabric member's path, NQN and address and its cause (REIS_MSG_LEN). */
#define REIS_GROUP_MSG_LEN (2 * REIS_MSG_LEN + 256)

/* Work of a call that gave up on a member (timeout): kept until its late
 * completions arrive (tool_group.c, reis_group_pending()). */
struct reis__group_orphan {
	struct reis__group_orphan *next;
	void *mem;
	unsigned count;				/* requests of @mem */
	int (*busy)(void *mem, unsigned count);	/* still in flight */
	void (*release)(void *mem, unsigned count);
};

/*
 * One member's synchronous part of a group call on a thread of its own
 * (tool_group_call.c): @fn runs with @dev and its copy of the context;
 * given up on (timeout), the thread keeps @ctx and, once @fn returns, runs
 * @late_done to undo what it did.
 */
struct reis__gcall {
	struct reis__gcall *next;	/* the group's late calls */
	struct reis_group *g;
	struct reis_dev *dev;
	unsigned s;
	int (*fn)(struct reis__gcall *c);
	void (*late_done)(struct reis__gcall *c);
	void *ctx;
	uint64_t beat_ns;		/* __atomic: last progress */
	pthread_t th;
	int ret;
	int late;			/* under the calls' mutex */
	int done;
};

struct reis_group {
	unsigned n;
	int failed;			/* member of the last failure, or -1 */
	int timeout_ms;			/* reis_group_set_timeout(); -1: none */
	int facts;			/* members' transport facts looked up */
	struct reis__group_orphan *orphans;
	struct reis__gcall *late;	/* given-up synchronous calls still running */
	uint64_t held;			/* members a late call still uses */
	struct reis_dev *dev[REIS_GROUP_MAX];
	struct reis_group_member m[REIS_GROUP_MAX];
	char msg[REIS_GROUP_MSG_LEN];
};

/* Record a failure of @member (-1: none) with a sentence; returns @err. */
int reis__group_fail(struct reis_group *g, int member, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* CLOCK_MONOTONIC in ns (the core's clock is private to libreis.so). */
uint64_t reis__group_now_ns(void);

/*
 * Clear the last failure at the start of a call and reap earlier calls'
 * late work; a member still held by a late synchronous call is waited for
 * up to the timeout, then the call fails with -ETIMEDOUT naming it.
 */
int reis__group_ok(struct reis_group *g);
/* The same; with @partial held members do not fail it (g->held says
 * which: a REIS_GROUP_PARTIAL search counts them missing). */
int reis__group_begin(struct reis_group *g, int partial);

/*
 * Run @fn for every member in @mask at once, each on its own thread with
 * its copy of @ctx[s] (@ctx_size bytes each, copied back when it returns
 * in time), waiting for each at most the group's timeout since its last
 * reis__gcall_beat(). @rets[s]: @fn's return, or -ETIMEDOUT (the member is
 * then held until @fn returns and @late_done ran), -ENOMEM, -EAGAIN.
 */
int reis__group_call(struct reis_group *g, uint64_t mask, int (*fn)(struct reis__gcall *c),
		     void (*late_done)(struct reis__gcall *c), void *ctx, size_t ctx_size,
		     int *rets);
/* A sign of progress of a running call (resets its bound). */
void reis__gcall_beat(struct reis__gcall *c);
/* The caller's progress function, from the members' threads one at a time. */
void reis__gcall_progress(reis_progress_fn fn, void *arg, uint64_t done, uint64_t total);
/* Join the late calls that returned; the mask of members still held. */
uint64_t reis__gcall_reap(struct reis_group *g);
/* Late calls not yet joined. */
unsigned reis__gcall_count(const struct reis_group *g);
/* Wait for every late call (reis_group_close()). */
void reis__gcall_join_all(struct reis_group *g);

/*
 * Reap on every member until @done(@arg) holds or nothing is in flight,
 * polling all members and blocking briefly on one when none had anything.
 * A member with requests in flight that completes none for the group's
 * timeout is given up on: the bits of those members are returned.
 */
uint64_t reis__group_reap(struct reis_group *g, int (*done)(const void *arg), const void *arg);

/* Hand @mem (@count requests, some in flight) to the group; -ENOMEM: then
 * the caller must wait for them itself. */
int reis__group_adopt_orphan(struct reis_group *g, void *mem, unsigned count,
			     int (*busy)(void *, unsigned), void (*release)(void *, unsigned));

/* Run @del(dev, id) on every member; -ENOENT on a member is no error. */
int reis__group_delete(struct reis_group *g, uint32_t id,
		       int (*del)(struct reis_dev *dev, uint32_t id));

/* How member results merge into one drive's answer (tool_group_search.c). */
struct reis_gr_merge {
	uint32_t k;
	uint32_t m;		/* candidates one drive keeps: factor * k */
	int rerank;
	int all;		/* REIS_SF_RERANK_ALL: no candidate cut */
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
	struct reis__gns_obj *objs;		/* the images' bytes (tool_group_ns.c) */
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

/* A sharded SLS batch cut into per-member pieces (tool_group_rf.c). */
struct reis_grf_part {
	uint32_t nbags;
	uint32_t nidx;
	uint32_t *offsets;
	uint32_t *indices;
	float *weights;
	float *out;
	struct reis_rf_sls_op op;
};

/* Piece j of the batch: member and its bag there, in combine order. */
struct reis_grf_piece {
	uint32_t member;
	uint32_t bag;
};

struct reis_grf_plan {
	unsigned nm;
	struct reis_grf_part part[REIS_GROUP_MAX];
	struct reis_grf_piece *piece;	/* nidx at most */
	uint32_t *bag_piece;		/* nbags + 1 offsets into piece */
	uint32_t npieces;
};

/* Cut @b into pieces (REIS_GROUP_SLS_EXACT: @exact); -ENOMEM. */
int reis__grf_plan_make(struct reis_grf_plan *pl, uint32_t rows, const struct reis_rf_bags *b,
			uint32_t dim, int exact, int weighted);
void reis__grf_plan_free(struct reis_grf_plan *pl);

/* Add the pieces of every bag in order into @out (and divide for mean). */
void reis__grf_combine(const struct reis_grf_plan *pl, const struct reis_rf_bags *b,
		       uint32_t dim, int mean, float *out);

/*
 * The pull scheduler (tool_group_pull.c) over work items: member s's data
 * has nitems[s] items; @run does items [lo, lo+n) of member s's data on
 * @node (s: that drive; REIS_PULL_HOST: the host CPU), accounts it in
 * @acct and gives its duration on the run's timeline.
 */
#define REIS_PULL_HOST REIS_GROUP_MAX

struct reis__pull {
	struct reis_group *g;
	uint32_t nitems[REIS_GROUP_MAX];
	uint64_t nunits;		/* queries or bags the items serve */
	double calib_nj_per_byte;	/* drives' energy per byte sensed */
	double calib_host_bytes;	/* bytes the host reads per item */
	int calibrating;		/* @run's results are the calibration's */
	int shared_ok;			/* REIS_GROUP_SCHED_SHARED allowed (model nodes) */
	int (*run)(void *ctx, unsigned node, unsigned s, uint32_t lo, uint32_t n,
		   struct reis_group_node *acct, uint64_t *ns);
	void *ctx;
};

/* Zero @pl and set its group, units, run function and context. */
void reis__pull_init(struct reis__pull *pl, struct reis_group *g, uint64_t nunits,
		     int (*run)(void *, unsigned, unsigned, uint32_t, uint32_t,
				struct reis_group_node *, uint64_t *), void *ctx);

/* Calibrate, set the batch ratio and sizes, run every item; 0 or -errno. */
int reis__pull_schedule(struct reis__pull *pl, const struct reis_group_sched_opts *so,
			struct reis_group_sched_report *rep);

/* Table-I accounting of a finished run; @one_drive_ups: measured units/s
 * of one drive holding everything, or 0 to estimate it. */
void reis__pull_account(const struct reis__pull *pl, const struct reis_group_sched_opts *so,
			double one_drive_ups, struct reis_group_sched_report *rep);

/*
 * The host's copy of each shard on its member's namespace (tool_group_ns.c,
 * docs/group.md "The host's share: block reads"). An open object mirrors
 * the namespace bytes in @buf at the same offsets; reis__gns_fetch() reads
 * a byte range of it with block reads (rounded out to LBAs) and counts it.
 */
#define REIS_GNS_KIND_REIS 1u
#define REIS_GNS_KIND_RF 2u

enum { REIS_GNS_BIN, REIS_GNS_INT8, REIS_GNS_TAGS, REIS_GNS_IDS, REIS_GNS_DOCS,
       REIS_GNS_CENT, REIS_GNS_SIZES, REIS_GNS_CALIB, REIS_GNS_NARR };

struct reis__gns_obj {
	struct reis_dev *dev;
	struct reis_ns_geom ng;
	uint64_t off;			/* namespace byte offset */
	uint64_t len;
	uint8_t *buf;			/* @len bytes */
	uint64_t bytes;			/* read so far (LBA-rounded) */
	uint64_t read_ns;		/* wall time of those reads */
	struct { uint64_t off, len; } arr[REIS_GNS_NARR];
};

int reis__gns_put(struct reis_group *g, unsigned s, uint32_t kind, uint32_t id,
		  const void *obj, uint64_t len);
int reis__gns_del(struct reis_group *g, unsigned s, uint32_t kind, uint32_t id);
int reis__gns_open(struct reis_group *g, unsigned s, uint32_t kind, uint32_t id,
		   struct reis__gns_obj *o);
int reis__gns_fetch(struct reis__gns_obj *o, uint64_t lo, uint64_t hi);
void reis__gns_close(struct reis__gns_obj *o);

/* A REIS shard: written at deploy; opened as an image whose arrays point
 * into the mirror (their bytes arrive with reis__gns_fetch()). */
int reis__gns_reis_put(struct reis_group *g, unsigned s, const struct reis_db_image *sh);
int reis__gns_reis_open(struct reis_group *g, unsigned s, uint32_t did,
			struct reis__gns_obj *o, struct reis_db_image *img);
/* A RecFlash row range [row0, row0 + ts->rows): rows at o->arr[0]. */
int reis__gns_rf_put(struct reis_group *g, unsigned s, const struct reis_rf_table *ts,
		     uint32_t row0, uint32_t row_bytes);
int reis__gns_rf_open(struct reis_group *g, unsigned s, const struct reis_rf_table *t,
		      uint32_t row_bytes, uint32_t row0, uint32_t nrows, struct reis__gns_obj *o);

#endif /* TOOL_GROUP_PRIV_H */
