/* SPDX-License-Identifier: MIT */
/*
 * test_reis_vm_lost_fabric - a storage VM lost in the middle of sharded
 * searches (docs/fabric.md "Losing a storage VM"):
 *   1. a database sharded over the local drive and two remote ones answers
 *      exactly as the whole database (binary top-k, merged on the host);
 *   2. with searches in flight on every member, "@@FABRIC-KILL 2" asks
 *      scripts/fabric-run.sh to SIGKILL storage VM 2's QEMU; the searches
 *      go on until one fails;
 *   3. the failure comes within LOST_BOUND_S of the request, names the lost
 *      drive (its path and subsystem NQN), and no merged answer is given
 *      for that search or any later one that includes the drive; every
 *      answer given before it was whole and exact;
 *   4. the surviving drives (the local one and storage VM 1's) keep
 *      answering for their shards exactly what they answered before.
 * Exit 77 outside a fabric run.
 */
#include "fabric_util.h"
#include "reis_synth.h"

#define DIM 256
#define N 2400
#define NQ 8
#define NS 3
#define DID 9120
#define LOST_VM 2
/*
 * fabric-connect.sh's keep-alive timeout (5 s; a keep-alive goes out every
 * 2.5 s and is given 5 s) notices the dead link, the error recovery fails
 * the commands in flight: at most about 7.5 s. ctrl_loss_tmo (4 s) then
 * removes the controller. The bound adds the host's kill latency and TCG.
 */
#define LOST_BOUND_S 20

static struct reis_db_image full, shard[NS];
static uint64_t rows[N];
static struct reis_queries q;
static struct fab_set set;

int main(void)
{
	const struct reis_db_image *one[1];
	struct reis_search_result want, got, sref[NS];
	struct reis_build_opts bo;
	struct reis_search_opts so;
	struct reis_hit hits[NQ * 10];
	uint32_t nhits[NQ];
	char err[512], lost_nqn[64];
	unsigned i, lost = 0, before = 0, round;
	uint64_t t0, t_err = 0;
	float *x, *qf;
	int ret = 0;

	fab_set_open(&set, 1, 2, 2);
	snprintf(lost_nqn, sizeof(lost_nqn), ":storage%u:", LOST_VM);
	for (i = 1; i < NS; i++)
		if (strstr(set.m[i].d.subsysnqn, lost_nqn))
			lost = i;
	if (!lost)
		SKIP("no member from storage VM %u", LOST_VM);

	x = synth_vectors(81, N, DIM, 24, 0.5f);
	REQUIRE(x);
	for (i = 0; i < N; i++)
		rows[i] = i;
	memset(&bo, 0, sizeof(bo));
	bo.did = DID;
	bo.kind = REIS_DB_BF;
	bo.flags = REIS_BUILD_INT8;
	bo.name = "fabric-lost";
	REQUIRE(reis_db_build(&bo, x, N, DIM, &full, err, sizeof(err)) == 0);
	qf = synth_vectors(82, NQ, DIM, 24, 0.5f);
	REQUIRE(qf && reis_encode_queries(full.quant, qf, NQ, &q) == 0);
	memset(&so, 0, sizeof(so));
	so.k = 10;
	so.flags = REIS_SF_NO_RERANK;
	one[0] = &full;
	REQUIRE(reis_ref_search(one, 1, 0, &so, &q, &want) == 0);
	for (i = 0; i < NS; i++) {
		shard[i] = fab_shard(&full, rows, DID, i, NS);
		reis_db_delete(set.m[i].dev, DID);
		ret = reis_db_deploy(set.m[i].dev, &shard[i], NULL);
		if (ret)
			fprintf(stderr, "deploy on %s: %s\n", fab_name(&set.m[i]),
				reis_last_error(set.m[i].dev));
		REQUIRE(ret == 0);
		/* each member's own answer, to hold the survivors to */
		so.did = DID;
		REQUIRE(reis_search(set.m[i].dev, &so, &q, &sref[i]) == 0);
	}

	/* 1, 2: whole and exact until the drive is gone, then an error */
	t0 = fab_now_ns();
	for (round = 0; fab_now_ns() - t0 < 60ull * 1000000000u; round++) {
		if (round == 3) {
			printf("@@FABRIC-KILL %u\n", LOST_VM);
			fflush(stdout);
			t0 = fab_now_ns();
		}
		ret = fab_search(&set, NS, DID, &so, &q, 0, hits, nhits, err, sizeof(err));
		if (ret)
			break;
		CHECK_EQ_U64(fab_cmp("before the loss", hits, nhits, &want), 0);
		before++;
	}
	t_err = fab_now_ns() - t0;
	printf("%u whole answers, then after %.2f s: %s (%s)\n", before, t_err / 1e9,
	       ret ? err : "no error", reis_strerror(ret));
	REQUIRE(ret != 0);
	CHECK(round >= 3);	/* the kill came after three whole answers */
	/* 3 */
	CHECK(t_err <= LOST_BOUND_S * 1000000000ull);
	CHECK(strstr(err, set.m[lost].d.path) && strstr(err, set.m[lost].d.subsysnqn));
	t0 = fab_now_ns();
	ret = fab_search(&set, NS, DID, &so, &q, 0, hits, nhits, err, sizeof(err));
	printf("again after the loss: %.2f s: %s\n", (fab_now_ns() - t0) / 1e9,
	       ret ? err : "an answer");
	CHECK(ret != 0 && strstr(err, set.m[lost].d.path));
	CHECK(fab_now_ns() - t0 <= LOST_BOUND_S * 1000000000ull);

	/* 4: the survivors, each for its shard */
	for (round = 0; round < 5; round++)
		for (i = 0; i < NS; i++) {
			struct reis_search_opts o = so;

			if (i == lost)
				continue;
			o.did = DID;
			ret = reis_search(set.m[i].dev, &o, &q, &got);
			if (ret) {
				fprintf(stderr, "survivor %s: %s\n", fab_name(&set.m[i]),
					reis_last_error(set.m[i].dev));
				CHECK(ret == 0);
				continue;
			}
			CHECK_EQ_U64(fab_cmp("survivor", got.hits, got.nhits, &sref[i]), 0);
			reis_search_result_free(&got);
		}
	printf("survivors: 5 rounds exact on %u drives\n", NS - 1);

	for (i = 0; i < NS; i++) {
		if (i != lost)
			CHECK(reis_db_delete(set.m[i].dev, DID) == 0);
		reis_search_result_free(&sref[i]);
	}
	reis_search_result_free(&want);
	fab_set_close(&set);
	reis_queries_free(&q);
	reis_db_image_free(&full);
	free(x);
	free(qf);
	return t_result();
}
