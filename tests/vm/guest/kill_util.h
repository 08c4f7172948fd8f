/* SPDX-License-Identifier: MIT */
/*
 * kill_util.h - what the *_kill guest tests share (tests/vm/run-vm-tests.sh
 * kills QEMU while they loop, then runs them again on the same flash):
 * printing each step before it starts, so the console shows where the kill
 * landed, and the no-leak check of the boot after the kill.
 */
#ifndef TESTS_KILL_UTIL_H
#define TESTS_KILL_UTIL_H

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "libreis.h"

/*
 * The runner's cue: from now on QEMU may be killed at any moment. @phases
 * names, '|'-separated, every step kill_step() prints in a cycle: with
 * KILL_ROUNDS the runner aims round r at phase r mod n (run-vm-tests.sh).
 */
static inline void kill_arm(const char *phases)
{
	printf("@@ISP-KILL-PHASES %s\n", phases);
	printf("@@ISP-KILL-ME\n");
	fflush(stdout);
}

static inline void kill_step(unsigned cycle, const char *what)
{
	printf("cycle %u: %s\n", cycle, what);
	fflush(stdout);
}

/*
 * Free flash of a fresh drive with the same preset: after the cleanup the
 * killed drive must have as much (nothing leaked by the interrupted work),
 * but for the stripes its FTL holds for the NVM namespace (docs/ftl.md;
 * the in-process drive has no namespace attached).
 */
static inline void kill_check_no_leak(struct reis_dev *dev)
{
	static uint8_t raw[REIS_STATS_LEN];
	struct reis_inproc_opts o;
	struct reis_ftl_stats ftl;
	struct reis_info now;
	struct reis_dev *fresh;
	struct reis_req req;

	REQUIRE(reis_identify(dev, &now) == 0);
	reis_prep_stats(&req, raw, 0);
	REQUIRE(reis_exec(dev, &req) == 0);
	REQUIRE(reis_ftl_stats_decode(raw, sizeof(raw), &ftl) == 0);
	memset(&o, 0, sizeof(o));
	o.preset = now.preset;
	REQUIRE(reis_open_inproc(&o, &fresh) == 0);
	printf("phase 2: %llu bytes free after the cleanup and %llu held by the FTL, a fresh "
	       "%s drive has %llu\n", (unsigned long long)now.free_bytes,
	       (unsigned long long)ftl.phys_bytes, now.preset,
	       (unsigned long long)reis_dev_info(fresh)->free_bytes);
	CHECK_EQ_U64(now.free_bytes + ftl.phys_bytes, reis_dev_info(fresh)->free_bytes);
	reis_close(fresh);
}

#endif
