/* SPDX-License-Identifier: MIT */
/*
 * test_lib_threads - one drive, several threads, one handle each
 * (reis_clone()): every thread's commands complete on its own handle with
 * its own data, the drive counts all of them, and the drive outlives the
 * handle it was opened with.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "libreis.h"

#define NTHREADS 4
#define ROUNDS 200
#define BATCH 16

struct worker {
	struct reis_dev *dev;
	unsigned id;
	unsigned cmds;
	unsigned bad;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct reis_req req[BATCH];
	struct reis_req *ptrs[BATCH];
	uint8_t *buf = malloc(BATCH * 4096), *ref = malloc(4096);
	unsigned r, i, got;

	if (!buf || !ref) {
		w->bad++;
		return NULL;
	}
	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < BATCH; i++) {
			uint32_t seed = (w->id << 24) | (r << 8) | (i << 1);

			reis_prep_echo(&req[i], REIS_DIR_C2H, seed, buf + i * 4096, 4096);
			ptrs[i] = &req[i];
		}
		if (reis_submitv(w->dev, ptrs, BATCH) != BATCH) {
			w->bad++;
			break;
		}
		for (got = 0; got < BATCH;) {
			int n = reis_wait(w->dev, BATCH - got, 10000);

			if (n <= 0) {
				w->bad++;
				goto out;
			}
			got += (unsigned)n;
		}
		for (i = 0; i < BATCH; i++) {
			uint32_t seed = (w->id << 24) | (r << 8) | (i << 1);

			reis_pattern(seed, ref, 4096);
			if (req[i].cpl.err || memcmp(ref, buf + i * 4096, 4096))
				w->bad++;
		}
		w->cmds += BATCH;
		if (reis_noop(w->dev))
			w->bad++;
		w->cmds++;
	}
out:
	free(buf);
	free(ref);
	return NULL;
}

static void run(unsigned workers)
{
	struct reis_inproc_opts o;
	struct worker w[NTHREADS];
	pthread_t th[NTHREADS];
	struct reis_dev *first;
	struct reis_stats s0, s1;
	unsigned i, total = 0;

	memset(&o, 0, sizeof(o));
	o.workers = workers;
	REQUIRE(reis_open_inproc(&o, &first) == 0);
	for (i = 0; i < NTHREADS; i++) {
		w[i].id = i + 1;
		w[i].cmds = w[i].bad = 0;
		REQUIRE(reis_clone(first, &w[i].dev) == 0);
	}
	REQUIRE(reis_stats(first, 0, &s0) == 0);
	for (i = 0; i < NTHREADS; i++)
		REQUIRE(pthread_create(&th[i], NULL, worker_main, &w[i]) == 0);
	for (i = 0; i < NTHREADS; i++) {
		pthread_join(th[i], NULL);
		CHECK_EQ_U64(w[i].bad, 0);
		CHECK_EQ_U64(w[i].cmds, ROUNDS * (BATCH + 1));
		total += w[i].cmds;
	}
	reis_close(first);	/* the clones keep the drive */
	REQUIRE(reis_stats(w[0].dev, 0, &s1) == 0);
	/* Workers' commands + s0's ISP_STATS counted after its snapshot. */
	CHECK_EQ_U64(s1.cmds[REIS_CLS_DEVICE] - s0.cmds[REIS_CLS_DEVICE], total + 1);
	CHECK_EQ_U64(s1.link_bytes_c2h - s0.link_bytes_c2h,
		     (uint64_t)NTHREADS * ROUNDS * BATCH * 4096 + REIS_STATS_LEN);
	for (i = 0; i < NTHREADS; i++)
		reis_close(w[i].dev);
}

int main(void)
{
	run(0);
	run(2);
	return t_result();
}
