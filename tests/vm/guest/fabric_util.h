/* SPDX-License-Identifier: MIT */
/*
 * fabric_util.h - what the fabric tests (test_*_fabric) share: libreis'
 * device group (libreis_group.h, docs/group.md) opened from discovery over
 * the local ISP drive and the NVMe/TCP ones (docs/fabric.md), checked
 * against what scripts/fabric-run.sh connected, and the names errors give
 * its members.
 */
#ifndef TESTS_VM_FABRIC_UTIL_H
#define TESTS_VM_FABRIC_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "libreis_tools.h"
#include "reis_cmp.h"

#define FAB_MAX REIS_GROUP_MAX

struct fab_group {
	struct reis_group *g;
	unsigned n, nlocal, nremote;
	unsigned local;		/* the first local member: the one-drive reference */
	struct reis_group_member m[FAB_MAX];
};

static inline uint64_t fab_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* "/dev/ng2n1 (tcp nqn... at traddr=...)": how the tests name a member. */
static inline const char *fab_name(const struct reis_group_member *m)
{
	static __thread char s[REIS_PATH_MAX + REIS_NQN_LEN + 200];

	snprintf(s, sizeof(s), "%s (%s %s at %s)", m->name, m->transport, m->subsysnqn,
		 m->address[0] ? m->address : "this machine");
	return s;
}

/* Whether $FABRIC_DEVS ("ngpath nqn addr" lines) lists @m. */
static inline int fab_connected(const char *list, const struct reis_group_member *m)
{
	char line[512], want[REIS_NQN_LEN + 3];
	FILE *f = fopen(list, "r");
	int listed = 0;

	REQUIRE(f);
	snprintf(want, sizeof(want), " %s ", m->subsysnqn);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, m->name, strlen(m->name)) && line[strlen(m->name)] == ' ' &&
		    strstr(line, want))
			listed = 1;
	fclose(f);
	return listed;
}

/*
 * The device group of every ISP drive discovery finds (reis_group_discover),
 * its remote members exactly those scripts/fabric-run.sh connected. When
 * discovery finds more than @max_remote remote drives, the group is opened
 * again from the paths of the local ones and the first @max_remote remote
 * ones (reis_group_open). Exit 77 when there are fewer than @nlocal local
 * and @nremote remote drives, or outside a fabric run.
 */
static inline void fab_group_open(struct fab_group *f, unsigned nlocal, unsigned nremote,
				  unsigned max_remote)
{
	const char *list = getenv("FABRIC_DEVS");
	static char keep[FAB_MAX][REIS_PATH_MAX];
	const char *paths[FAB_MAX];
	unsigned i, np = 0, rem = 0;
	int ret;

	if (!list)
		SKIP("FABRIC_DEVS unset: not under scripts/fabric-run.sh");
	memset(f, 0, sizeof(*f));
	ret = reis_group_discover(0, &f->g);
	if (ret) {
		fprintf(stderr, "group from discovery: %s\n", reis_group_errmsg(NULL));
		exit(T_EXIT_FAIL);
	}
	for (i = 0; i < reis_group_size(f->g); i++) {
		struct reis_group_member m;

		REQUIRE(reis_group_member_info(f->g, i, &m) == 0);
		if (m.remote && rem++ >= max_remote)
			continue;
		snprintf(keep[np], sizeof(keep[np]), "%s", m.name);
		paths[np] = keep[np];
		np++;
	}
	if (np < reis_group_size(f->g)) {
		reis_group_close(f->g);
		ret = reis_group_open(paths, np, 0, &f->g);
		if (ret) {
			fprintf(stderr, "group from paths: %s\n", reis_group_errmsg(NULL));
			exit(T_EXIT_FAIL);
		}
	}
	f->n = reis_group_size(f->g);
	f->local = FAB_MAX;
	for (i = 0; i < f->n; i++) {
		struct reis_group_member *m = &f->m[i];

		REQUIRE(reis_group_member_info(f->g, i, m) == 0);
		if (m->remote) {
			if (!fab_connected(list, m)) {
				fprintf(stderr, "%s: not what fabric-run connected\n", fab_name(m));
				exit(T_EXIT_FAIL);
			}
			f->nremote++;
		} else {
			if (f->local == FAB_MAX)
				f->local = i;
			f->nlocal++;
		}
		printf("member %u: %s, %s, libreis transport %s\n", i, fab_name(m),
		       m->remote ? "remote" : "local", reis_transport(reis_group_dev(f->g, i)));
	}
	if (f->nlocal < nlocal || f->nremote < nremote) {
		reis_group_close(f->g);
		SKIP("%u local and %u remote ISP drives, the test needs %u and %u", f->nlocal,
		     f->nremote, nlocal, nremote);
	}
}

/* Hits that differ from the one-drive result @want (id, Hamming, score). */
static inline unsigned fab_cmp(const char *what, const struct reis_hit *hits, const uint32_t *nhits,
			       const struct reis_search_result *want)
{
	unsigned bad = 0;
	uint64_t i;

	for (i = 0; i < (uint64_t)want->nq * want->k; i++) {
		const struct reis_hit *g = &hits[i], *w = &want->hits[i];

		if (g->id != w->id || (w->id != REIS_HIT_NONE &&
				       (g->hamming != w->hamming || g->score != w->score))) {
			if (bad < 5)
				fprintf(stderr, "%s: query %llu hit %llu: id %llu ham %u score %lld, "
					"want: id %llu ham %u score %lld\n", what,
					(unsigned long long)(i / want->k),
					(unsigned long long)(i % want->k), (unsigned long long)g->id,
					g->hamming, (long long)g->score, (unsigned long long)w->id,
					w->hamming, (long long)w->score);
			bad++;
		}
	}
	for (i = 0; i < want->nq; i++)
		bad += nhits[i] != want->nhits[i];
	return bad;
}

#endif /* TESTS_VM_FABRIC_UTIL_H */
