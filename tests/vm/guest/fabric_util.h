/* SPDX-License-Identifier: MIT */
/*
 * fabric_util.h - what the fabric tests (test_*_fabric) share: the members
 * of a drive set spanning the local ISP drive and the NVMe/TCP ones
 * (docs/fabric.md), a brute-force database cut into row shards that keep
 * the whole database's quantizer and row numbers, and the host-side top-k
 * merge of the shards' answers.
 *
 * The set is plain libreis per drive: one handle each, sharded data
 * deployed by hand, the merge done here. The device group of libreis
 * (libreis_group.h) does the same in the library; these helpers are the
 * seam where a test swaps to it (fab_set_open -> the group's open, the
 * deploy loop -> the group's deploy, fab_search -> the group's search).
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

#define FAB_MAX 16

struct fab_member {
	struct reis_disc d;	/* discovery's record: path, transport, NQN, address */
	int remote;		/* reached over a fabric, not on this machine's PCIe */
	struct reis_dev *dev;
};

struct fab_set {
	unsigned n;
	struct fab_member m[FAB_MAX];
};

static inline uint64_t fab_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* "/dev/ng2n1 (tcp nqn... at traddr=...)": how errors name a member. */
static inline const char *fab_name(const struct fab_member *m)
{
	static __thread char s[REIS_PATH_MAX + REIS_NQN_LEN + 200];

	snprintf(s, sizeof(s), "%s (%s %s at %s)", m->d.path, m->d.transport,
		 m->d.subsysnqn, m->d.address[0] ? m->d.address : "this machine");
	return s;
}

/*
 * The ISP drives discovery finds, local ones first then remote ones in
 * discovery order; the remote ones must be those scripts/fabric-run.sh
 * connected ($FABRIC_DEVS lists "ngpath nqn addr"). At most @max_remote
 * remote members. Exit 77 when there are fewer than @nlocal local and
 * @nremote remote drives.
 */
static inline void fab_set_open(struct fab_set *s, unsigned nlocal, unsigned nremote,
				unsigned max_remote)
{
	struct reis_disc d[FAB_MAX];
	const char *list = getenv("FABRIC_DEVS");
	unsigned i, pass, loc = 0, rem = 0;
	int n, ret;

	if (!list)
		SKIP("FABRIC_DEVS unset: not under scripts/fabric-run.sh");
	n = reis_discover(d, FAB_MAX, 0);
	REQUIRE(n >= 0);
	if (n > FAB_MAX)
		n = FAB_MAX;
	memset(s, 0, sizeof(*s));
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < (unsigned)n; i++) {
			int remote = strcmp(d[i].transport, "pcie") != 0;
			struct fab_member *m;

			if (remote != (int)pass || (remote && rem >= max_remote))
				continue;
			m = &s->m[s->n++];
			m->d = d[i];
			m->remote = remote;
			if (remote) {
				char line[512], want[REIS_NQN_LEN + 2];
				FILE *f = fopen(list, "r");
				int listed = 0;

				REQUIRE(f);
				snprintf(want, sizeof(want), " %s ", d[i].subsysnqn);
				while (fgets(line, sizeof(line), f))
					if (!strncmp(line, d[i].path, strlen(d[i].path)) &&
					    strstr(line, want))
						listed = 1;
				fclose(f);
				if (!listed) {
					fprintf(stderr, "%s: not what fabric-run connected\n",
						fab_name(m));
					exit(T_EXIT_FAIL);
				}
				rem++;
			} else {
				loc++;
			}
			ret = reis_open(m->d.path, 0, &m->dev);
			if (ret) {
				fprintf(stderr, "%s: %s\n", fab_name(m), reis_strerror(ret));
				exit(T_EXIT_FAIL);
			}
			printf("member %u: %s, %s, libreis transport %s\n", s->n - 1, fab_name(m),
			       m->remote ? "remote" : "local", reis_transport(m->dev));
		}
	if (loc < nlocal || rem < nremote)
		SKIP("%u local and %u remote ISP drives, the test needs %u and %u", loc, rem,
		     nlocal, nremote);
}

static inline void fab_set_close(struct fab_set *s)
{
	unsigned i;

	for (i = 0; i < s->n; i++)
		if (s->m[i].dev)
			reis_close(s->m[i].dev);
}

/*
 * Shard @i of @ns of @full (a BF image built with REIS_BUILD_INT8, no
 * documents): a contiguous range of rows with the whole database's codes
 * and quantizer, carrying the global row numbers as ids (@rows: 0..n-1).
 * The shard borrows @full's arrays; it is never freed.
 */
static inline struct reis_db_image fab_shard(const struct reis_db_image *full, const uint64_t *rows,
					     uint32_t did, unsigned i, unsigned ns)
{
	struct reis_db_image s = *full;
	uint64_t lo = full->n * i / ns, hi = full->n * (i + 1) / ns;
	size_t bytes = full->dim / 8;

	s.did = did;
	s.n = hi - lo;
	s.bin = full->bin + lo * bytes;
	s.int8 = full->int8 ? full->int8 + lo * full->dim : NULL;
	s.tags = full->tags ? full->tags + lo : NULL;
	s.ids = rows + lo;
	s.flags |= REIS_DBF_IDS;
	s.docs = NULL;
	s.docs_bytes = 0;
	s.doc_index = NULL;
	s.priv = NULL;
	return s;
}

/* a ranks before b in the drive's order (tool_ref_search.c): score, Hamming, id. */
static inline int fab_hit_before(const struct reis_hit *a, const struct reis_hit *b, int rerank,
				 int l2)
{
	if (rerank && a->score != b->score)
		return l2 ? a->score < b->score : a->score > b->score;
	if (a->hamming != b->hamming)
		return a->hamming < b->hamming;
	return a->id < b->id;
}

/*
 * Merge @ns shard results into @out (nq x k, caller-allocated hits and
 * nhits): per query the k best of the shards' hits.
 */
static inline void fab_merge(const struct reis_search_result *r, unsigned ns, uint32_t nq,
			     uint32_t k, int rerank, int l2, struct reis_hit *hits, uint32_t *nhits)
{
	uint32_t q, j;
	unsigned s;

	for (q = 0; q < nq; q++) {
		uint32_t pos[FAB_MAX] = { 0 };

		nhits[q] = 0;
		for (j = 0; j < k; j++) {
			const struct reis_hit *best = NULL;
			unsigned bs = 0;

			for (s = 0; s < ns; s++) {
				const struct reis_hit *h;

				if (pos[s] >= r[s].nhits[q])
					continue;
				h = &r[s].hits[(size_t)q * r[s].k + pos[s]];
				if (!best || fab_hit_before(h, best, rerank, l2)) {
					best = h;
					bs = s;
				}
			}
			if (!best) {
				hits[(size_t)q * k + j].id = REIS_HIT_NONE;
				continue;
			}
			hits[(size_t)q * k + j] = *best;
			pos[bs]++;
			nhits[q]++;
		}
	}
}

/*
 * One search over the shards: submitted to every member at once (@did on
 * each), waited for, merged. All or nothing: when a member fails, no merged
 * answer and @err names it. Returns 0 or the failing member's -errno.
 */
static inline int fab_search(struct fab_set *s, unsigned ns, uint32_t did,
			     const struct reis_search_opts *o, const struct reis_queries *q,
			     int l2, struct reis_hit *hits, uint32_t *nhits, char *err, size_t errlen)
{
	struct reis_search_req req[FAB_MAX];
	struct reis_search_result res[FAB_MAX];
	struct reis_search_opts so = *o;
	unsigned i, submitted = 0;
	int ret = 0, r;

	memset(req, 0, sizeof(req));
	so.did = did;
	for (i = 0; i < ns; i++) {
		r = reis_search_submit(s->m[i].dev, &req[i], REIS_OP_SEARCH, &so, q, NULL, NULL);
		if (r) {
			if (!ret)
				snprintf(err, errlen, "member %u %s: %s", i, fab_name(&s->m[i]),
					 reis_last_error(s->m[i].dev));
			ret = ret ? ret : r;
			break;
		}
		submitted++;
	}
	for (i = 0; i < submitted; i++) {
		r = reis_search_wait(s->m[i].dev, &req[i]);
		if (r) {
			if (!ret)
				snprintf(err, errlen, "member %u %s: %s", i, fab_name(&s->m[i]),
					 req[i].msg);
			ret = ret ? ret : r;
			continue;
		}
		res[i] = req[i].res;
	}
	if (!ret)
		fab_merge(res, ns, q->nq, o->k, !(o->flags & REIS_SF_NO_RERANK), l2, hits, nhits);
	for (i = 0; i < submitted; i++)
		if (!req[i].err)
			reis_search_result_free(&req[i].res);
	return ret;
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
					"one drive: id %llu ham %u score %lld\n", what,
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
