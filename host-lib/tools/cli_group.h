/* SPDX-License-Identifier: MIT */
/*
 * cli_group.h - what tools/cli_group.c and tools/cli_group_bench.c share:
 * the group's drives as the command line names them.
 */
#ifndef CLI_GROUP_H
#define CLI_GROUP_H

#include "libreis_tools.h"
#include "cli_util.h"

struct grp_args {
	const char *drives;
	const char *preset;
	const char *backing_dir;
	unsigned inproc;
	uint32_t inproc_flags;	/* REIS_INPROC_* */
	int timeout_ms;		/* --timeout: 0 the library's default */
	struct reis_group *g;
};

/* Open @a's drives as a group (in @a->g); 0 or -errno, reported. */
int grp_open(struct ctx *c, struct grp_args *a);

/* Open @n in-process drives of @preset on virtual clocks (each batch timed
 * from an idle drive) as a group; 0 or -errno, reported. */
int grp_open_n(const char *preset, unsigned n, struct reis_group **g);

/* `reis group bench`: the member-count sweep and the scheduled run. */
int grp_bench(struct ctx *c, int argc, char **argv);

#endif /* CLI_GROUP_H */
