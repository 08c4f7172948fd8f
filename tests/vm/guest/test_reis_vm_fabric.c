/* SPDX-License-Identifier: MIT */
/*
 * test_reis_vm_fabric - a REIS database sharded across the local ISP drive
 * and two drives of other VMs reached over NVMe/TCP passthru
 * (docs/fabric.md), through libreis' io_uring transport on each /dev/ngXnY:
 *   1. every member is driven through libreis' io_uring transport;
 *      discovery lists the local drive as pcie and the remote ones as tcp
 *      with their subsystem NQNs, the ones scripts/fabric-run.sh connected;
 *      an unprivileged scan, which may not probe them, still tells them
 *      apart; ISP_ECHO at each member's largest transfer, both ways;
 *   2. the whole database goes to the local drive, a third of its rows to
 *      each member (same quantizer, global row numbers as ids);
 *   3. searches over the three shards at once, merged on the host, return
 *      hits identical (id, Hamming distance, score) to the one drive's,
 *      which equal the host reference: binary-only top-k, INT8 rerank with
 *      every entry a candidate, tag filtering, several queries per command;
 *   4. the whole database, larger than one command's transfer, deployed
 *      on a remote drive too answers exactly as the local one.
 * The merged answer equals one drive's only when no shard can promote a
 * candidate the whole database would not rerank: binary-only search, or
 * rerank_factor * k >= n. Exit 77 outside a fabric run.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "fabric_util.h"
#include "reis_synth.h"

#define DIM 256
#define N 2400
#define NQ 16
#define DID_FULL 9101
#define DID_SHARD 9110
#define NS 3

static struct reis_db_image full, shard[NS];
static uint64_t rows[N];
static struct reis_queries q;
static struct fab_set set;

/* A scan as nobody: every member seen, with its transport and NQN. */
static int unprivileged_scan(void)
{
	struct reis_disc d[FAB_MAX];
	unsigned i, seen = 0;
	int n, j;

	if (setgid(65534) || setuid(65534))
		return T_EXIT_FAIL;
	n = reis_discover(d, FAB_MAX, REIS_DISCOVER_ALL);
	if (n < 0 || n > FAB_MAX)
		return T_EXIT_FAIL;
	for (i = 0; i < set.n; i++)
		for (j = 0; j < n; j++)
			if (!strcmp(d[j].path, set.m[i].d.path) &&
			    !strcmp(d[j].transport, set.m[i].d.transport) &&
			    !strcmp(d[j].subsysnqn, set.m[i].d.subsysnqn)) {
				printf("as nobody: %s %s %s (%s)\n", d[j].path, d[j].transport,
				       d[j].subsysnqn, d[j].err ? d[j].why : "usable");
				seen++;
				break;
			}
	return seen == set.n ? T_EXIT_PASS : T_EXIT_FAIL;
}

static unsigned check(const char *what, const struct reis_search_opts *o)
{
	const struct reis_db_image *one[1] = { &full };
	struct reis_search_result drive, ref;
	struct reis_search_opts fo = *o;
	struct reis_hit *hits = calloc((size_t)q.nq * o->k, sizeof(*hits));
	uint32_t *nhits = calloc(q.nq, sizeof(*nhits));
	char err[512];
	unsigned bad = 0;
	uint64_t t0;
	int ret;

	REQUIRE(hits && nhits);
	fo.did = DID_FULL;
	ret = reis_search(set.m[0].dev, &fo, &q, &drive);
	if (ret) {
		fprintf(stderr, "%s: one drive: %s\n", what, reis_last_error(set.m[0].dev));
		return 1;
	}
	REQUIRE(reis_ref_search(one, 1, 0, &fo, &q, &ref) == 0);
	bad += fab_cmp(what, drive.hits, drive.nhits, &ref);
	t0 = fab_now_ns();
	ret = fab_search(&set, NS, DID_SHARD, o, &q, 0, hits, nhits, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s: sharded: %s\n", what, err);
		bad++;
	} else {
		bad += fab_cmp(what, hits, nhits, &drive);
		printf("%s: %u queries, k %u: sharded over %u drives in %.2f ms, identical: %s\n",
		       what, q.nq, o->k, NS, (fab_now_ns() - t0) / 1e6, bad ? "no" : "yes");
	}
	reis_search_result_free(&drive);
	reis_search_result_free(&ref);
	free(hits);
	free(nhits);
	return bad;
}

int main(void)
{
	struct reis_build_opts bo;
	struct reis_search_opts so;
	struct reis_db_info info;
	uint32_t tags[N];
	char err[256];
	float *x, *qf;
	unsigned i;
	int ret;

	fab_set_open(&set, 1, 2, 2);
	for (i = 0; i < NS; i++)
		CHECK(!strcmp(reis_transport(set.m[i].dev), "io_uring") &&
		      (set.m[i].remote != 0) == (i > 0) &&
		      !strcmp(set.m[i].d.transport, i ? "tcp" : "pcie") &&
		      (i == 0 || strstr(set.m[i].d.subsysnqn, "isp-ssd:storage")));
	CHECK(strstr(set.m[1].d.address, "169.254.") != NULL);
	/* The data path at the largest transfer each member reports. */
	for (i = 0; i < NS; i++) {
		uint32_t mx = reis_max_xfer(set.m[i].dev);
		int h2c = reis_echo(set.m[i].dev, REIS_DIR_H2C, 7 + i, NULL, mx);
		int c2h = reis_echo(set.m[i].dev, REIS_DIR_C2H, 9 + i, NULL, mx);

		printf("echo %u bytes both ways on %s: %s, %s\n", mx, set.m[i].d.path,
		       reis_strerror(h2c), reis_strerror(c2h));
		CHECK(h2c == 0 && c2h == 0);
	}
	{
		pid_t pid;
		int st;

		fflush(stdout);
		pid = fork();
		REQUIRE(pid >= 0);
		if (!pid)
			_exit(unprivileged_scan());
		REQUIRE(waitpid(pid, &st, 0) == pid);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == T_EXIT_PASS);
	}

	x = synth_vectors(71, N, DIM, 24, 0.5f);
	REQUIRE(x);
	for (i = 0; i < N; i++) {
		tags[i] = i % 3;
		rows[i] = i;
	}
	memset(&bo, 0, sizeof(bo));
	bo.did = DID_FULL;
	bo.kind = REIS_DB_BF;
	bo.flags = REIS_BUILD_INT8;
	bo.tags = tags;
	bo.name = "fabric-full";
	if (reis_db_build(&bo, x, N, DIM, &full, err, sizeof(err))) {
		fprintf(stderr, "build: %s\n", err);
		return T_EXIT_FAIL;
	}
	qf = synth_vectors(72, NQ, DIM, 24, 0.5f);
	REQUIRE(qf && reis_encode_queries(full.quant, qf, NQ, &q) == 0);

	reis_db_delete(set.m[0].dev, DID_FULL);
	ret = reis_db_deploy(set.m[0].dev, &full, NULL);
	if (ret)
		fprintf(stderr, "deploy full: %s\n", reis_last_error(set.m[0].dev));
	REQUIRE(ret == 0);
	for (i = 0; i < NS; i++) {
		uint64_t t0 = fab_now_ns();

		shard[i] = fab_shard(&full, rows, DID_SHARD, i, NS);
		reis_db_delete(set.m[i].dev, DID_SHARD);
		ret = reis_db_deploy(set.m[i].dev, &shard[i], NULL);
		if (ret)
			fprintf(stderr, "deploy shard %u on %s: %s\n", i, fab_name(&set.m[i]),
				reis_last_error(set.m[i].dev));
		REQUIRE(ret == 0);
		printf("shard %u: rows %llu on %s, deployed in %.1f ms\n", i,
		       (unsigned long long)shard[i].n, set.m[i].d.path, (fab_now_ns() - t0) / 1e6);
		CHECK(reis_db_info(set.m[i].dev, DID_SHARD, &info) == 0 && info.n == shard[i].n);
	}

	memset(&so, 0, sizeof(so));
	so.k = 10;
	so.flags = REIS_SF_NO_RERANK;
	CHECK_EQ_U64(check("binary top-10", &so), 0);
	so.k = 40;
	so.flags = 0;
	so.rerank_factor = REIS_MAX_RERANK;	/* 64 * 40 >= N: every entry reranked */
	CHECK_EQ_U64(check("rerank top-40", &so), 0);
	so.k = 5;
	so.flags = REIS_SF_NO_RERANK | REIS_SF_TAG;
	so.tag = 2;
	CHECK_EQ_U64(check("tag 2 top-5", &so), 0);
	so.k = 64;
	so.flags = REIS_SF_TAG;
	so.tag = 1;
	so.rerank_factor = 13;	/* 13 * 64 >= the 800 entries of tag 1 */
	CHECK_EQ_U64(check("tag 1 rerank top-64", &so), 0);

	/* 4. the same database on a remote drive, sent in several commands */
	reis_db_delete(set.m[1].dev, DID_FULL);
	ret = reis_db_deploy(set.m[1].dev, &full, NULL);
	if (ret)
		fprintf(stderr, "deploy full on %s: %s\n", fab_name(&set.m[1]),
			reis_last_error(set.m[1].dev));
	CHECK(ret == 0);
	CHECK(reis_max_xfer(set.m[1].dev) < full.n * (DIM / 8 + DIM));
	if (!ret) {
		struct reis_search_result a, b;

		so.did = DID_FULL;
		so.k = 10;
		so.flags = 0;
		so.rerank_factor = 0;
		CHECK(reis_search(set.m[0].dev, &so, &q, &a) == 0);
		CHECK(reis_search(set.m[1].dev, &so, &q, &b) == 0);
		CHECK_EQ_U64(fab_cmp("remote whole db", b.hits, b.nhits, &a), 0);
		reis_search_result_free(&a);
		reis_search_result_free(&b);
		CHECK(reis_db_delete(set.m[1].dev, DID_FULL) == 0);
	}

	for (i = 0; i < NS; i++)
		CHECK(reis_db_delete(set.m[i].dev, DID_SHARD) == 0);
	CHECK(reis_db_delete(set.m[0].dev, DID_FULL) == 0);
	fab_set_close(&set);
	reis_queries_free(&q);
	reis_db_image_free(&full);
	free(x);
	free(qf);
	return t_result();
}
