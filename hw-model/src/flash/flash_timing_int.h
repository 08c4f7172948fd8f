/* SPDX-License-Identifier: MIT */
/*
 * flash_timing_int.h - private structures of the timing engine, shared by
 * flash_timing.c and flash_trace.c. Not installed.
 */
#ifndef FLASH_TIMING_INT_H
#define FLASH_TIMING_INT_H

#include <pthread.h>

#include "flash_timing.h"

/* Busy interval [s, e) of a calendar. */
struct ft_iv {
	uint64_t s, e;
};

/* Sorted, disjoint busy intervals of one shared resource. */
struct ft_cal {
	struct ft_iv *iv;
	uint32_t n, cap;
};

struct ft_plane {
	uint64_t ca_ready;	/* accepts the next command */
	uint64_t arr_free;	/* array + sensing latch free */
	uint64_t out_free;	/* output (cache) latch free */
};

/* A die's array under the multi-plane rule (FT_OP_MP reads only). */
struct ft_die {
	uint64_t arr_end;	/* its last sensing ends */
};

struct ft_ev {
	uint64_t ts, dur;	/* ps, absolute */
	const char *name;
	uint32_t idx;
	uint16_t cls;		/* enum isp_res_class */
};

struct ft_trace {
	struct ft_ev *ev;
	size_t n, cap, max;
	uint64_t dropped;
	uint64_t t0;		/* start of the first command traced */
	int t0_set;
};

struct ft {
	struct fp_params p;
	uint32_t C, D, P;	/* channels, dies per channel, planes per die */
	uint32_t ND, NP;	/* all dies, all planes */
	uint64_t t_ca;
	pthread_mutex_t lock;

	struct ft_plane *plane;	/* NP */
	struct ft_die *die;	/* ND */
	struct ft_cal *chan;	/* C */
	struct ft_cal *core;	/* cores */
	struct ft_cal dram;
	struct ft_cal link[2];
	struct ft_cal budget;	/* ftl_prog_max's fluid calendar; iv NULL: none */

	uint64_t base_ns;
	int have_base;
	uint64_t floor;		/* nothing may start before (pruned history) */
	uint64_t *act;		/* start of each active command; UINT64_MAX: free */
	uint32_t nact, capact;	/* slots in use (high-water), allocated */

	struct ft_stats st;
};

void ft_trace_add(struct ft_trace *tr, uint16_t cls, uint32_t idx, const char *name,
		  uint64_t ts, uint64_t dur);

#endif /* FLASH_TIMING_INT_H */
