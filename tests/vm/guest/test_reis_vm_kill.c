/* SPDX-License-Identifier: MIT */
/*
 * test_reis_vm_kill - REIS databases when QEMU is killed (SIGKILL) at a
 * random point of a stream of deploys, searches and deletes: a
 * half-deployed database is never searchable and is cleaned up after a
 * crash (docs/reis-engine.md, DB_COMMIT). The VM runner runs it in two boots on one backing
 * file; the phase is chosen by what the drive holds:
 *
 *  1. no database 960: deploy it (brute force, INT8, documents) as the
 *     anchor, check it against the reference, print @@ISP-KILL-ME, then
 *     loop: deploy database 961 (IVF, documents: many commands under the
 *     transfer limit), search it against the reference, delete it. Each
 *     step is printed before it starts. The runner kills QEMU a random time
 *     after the marker; reaching the cycle limit unkilled is a failure.
 *  2. database 960 present (after the kill): it is READY with results equal
 *     to the reference; the list holds no DEPLOYING database (a deploy
 *     that did not reach its commit is gone) and 961 is either absent or
 *     READY with exact results; 961 then deploys again (the interrupted
 *     deploy's space is free) and searches exactly; both are deleted, and
 *     then the drive has exactly a fresh drive's free flash.
 *
 * Exit 77 without the drive.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "kill_util.h"
#include "libreis_tools.h"
#include "reis_cmp.h"
#include "reis_synth.h"

#define DEV "/dev/ng0n1"
#define DIM 256
#define N 6000
#define NQ 16
#define ANCHOR 960
#define CHURN 961
#define MAX_CYCLES 1000

static struct reis_db_image img[2];
static struct reis_queries q;

/* Search database @i (0 anchor, 1 churn) and compare with the reference. */
static void check_db(struct reis_dev *dev, unsigned i, const char *what)
{
	const struct reis_db_image *one[1] = { &img[i] };
	struct reis_search_result got, want;
	struct reis_search_opts so;
	int ret;

	memset(&so, 0, sizeof(so));
	so.did = img[i].did;
	so.k = 10;
	so.nprobe = i ? 6 : 0;
	so.flags = REIS_SF_DOCS;
	ret = i ? reis_ivf_search(dev, &so, &q, &got) : reis_search(dev, &so, &q, &got);
	if (ret)
		fprintf(stderr, "%s: search %u: %s\n", what, img[i].did, reis_last_error(dev));
	CHECK(ret == 0);
	if (ret)
		return;
	REQUIRE(reis_ref_search(one, 1, i, &so, &q, &want) == 0);
	CHECK_EQ_U64(reis_cmp_results(what, &got, &want, 1), 0);
	reis_search_result_free(&got);
	reis_search_result_free(&want);
}

static int deploy(struct reis_dev *dev, unsigned i)
{
	int ret = reis_db_deploy(dev, &img[i], NULL);

	if (ret)
		fprintf(stderr, "deploy %u: %s\n", img[i].did, reis_last_error(dev));
	return ret;
}

static int phase1(struct reis_dev *dev)
{
	unsigned c;

	REQUIRE(deploy(dev, 0) == 0);
	check_db(dev, 0, "anchor");
	printf("phase 1: anchor %u deployed; deploying and deleting %u until QEMU is "
	       "killed\n", ANCHOR, CHURN);
	kill_arm("deploy|search|delete");
	for (c = 1; c <= MAX_CYCLES && !t_failures; c++) {
		kill_step(c, "deploy");
		CHECK(deploy(dev, 1) == 0);
		kill_step(c, "search");
		check_db(dev, 1, "churn");
		kill_step(c, "delete");
		CHECK(reis_db_delete(dev, CHURN) == 0);
		printf("cycle %u: done\n", c);
	}
	if (!t_failures)
		fprintf(stderr, "not killed after %u cycles\n", MAX_CYCLES);
	return T_EXIT_FAIL;
}

static int phase2(struct reis_dev *dev)
{
	struct reis_db_info list[64], info;
	int n, i, churn = 0;

	n = reis_db_list(dev, list, 64);
	CHECK(n >= 1);
	for (i = 0; i < n; i++) {
		printf("phase 2: database %u state %u\n", list[i].did, list[i].state);
		CHECK(list[i].state == REIS_DB_READY);
		CHECK(list[i].did == ANCHOR || list[i].did == CHURN);
		churn |= list[i].did == CHURN;
	}
	CHECK(reis_db_info(dev, ANCHOR, &info) == 0 && info.state == REIS_DB_READY);
	check_db(dev, 0, "anchor after the kill");
	if (churn) {
		printf("phase 2: %u was committed before the kill: searching it\n", CHURN);
		check_db(dev, 1, "churn after the kill");
		CHECK(reis_db_delete(dev, CHURN) == 0);
	} else {
		printf("phase 2: %u is gone (its deploy had not committed)\n", CHURN);
		CHECK(reis_db_info(dev, CHURN, &info) == -ENOENT);
	}
	CHECK(deploy(dev, 1) == 0);
	check_db(dev, 1, "churn redeployed");
	CHECK(reis_db_delete(dev, CHURN) == 0);
	CHECK(reis_db_delete(dev, ANCHOR) == 0);
	kill_check_no_leak(dev);
	return t_result();
}

int main(void)
{
	struct reis_db_info info;
	struct reis_dev *dev;
	uint64_t *off;
	uint8_t *docs;
	float *x, *qf;
	char err[256];
	unsigned i;
	int ret;

	if (access(DEV, F_OK))
		SKIP("no %s", DEV);
	ret = reis_open(DEV, 0, &dev);
	if (ret)
		SKIP("%s: %s", DEV, reis_strerror(ret));
	/* The same data in both boots: seeded. */
	x = synth_vectors(71, N, DIM, 24, 0.5f);
	qf = synth_vectors(72, NQ, DIM, 24, 0.5f);
	docs = synth_docs(73, N, 400, &off);
	REQUIRE(x && qf && docs);
	for (i = 0; i < 2; i++) {
		struct reis_build_opts o;

		memset(&o, 0, sizeof(o));
		o.did = i ? CHURN : ANCHOR;
		o.kind = i ? REIS_DB_IVF : REIS_DB_BF;
		o.flags = REIS_BUILD_INT8;
		o.nlist = i ? 32 : 0;
		o.km.seed = 1;
		o.km.max_iter = 4;
		o.docs = docs;
		o.doc_offsets = off;
		o.name = i ? "churn" : "anchor";
		REQUIRE(reis_db_build(&o, x, N, DIM, &img[i], err, sizeof(err)) == 0);
	}
	REQUIRE(reis_encode_queries(img[0].quant, qf, NQ, &q) == 0);

	ret = reis_db_info(dev, ANCHOR, &info);
	if (ret == -ENOENT)
		ret = phase1(dev);
	else if (ret == 0)
		ret = phase2(dev);
	else
		ret = T_EXIT_FAIL;
	for (i = 0; i < 2; i++)
		reis_db_image_free(&img[i]);
	reis_queries_free(&q);
	free(x);
	free(qf);
	free(docs);
	free(off);
	reis_close(dev);
	return ret;
}
