/* SPDX-License-Identifier: MIT */
/*
 * test_reis_vm_lost_fabric - a storage VM lost in the middle of sharded
 * searches of libreis' device group (docs/fabric.md, docs/group.md
 * "Faults"):
 *   1. a database sharded by the group over the local drive and two remote
 *      ones answers exactly as the whole database (binary top-k);
 *   2. with the group searching, "@@FABRIC-KILL 2" asks
 *      scripts/fabric-run.sh to SIGKILL storage VM 2's QEMU; the searches
 *      go on until one fails;
 *   3. the failure comes within LOST_BOUND_S of the request, returns
 *      -ENOTCONN with a sentence saying the drive is unreachable and naming
 *      it (path and subsystem NQN), and no merged answer is given for that
 *      search or the next; every answer given before it was whole and exact;
 *   4. with REIS_GROUP_PARTIAL the group answers from the survivors: the
 *      result is flagged partial with the lost member's bit in missing, and
 *      its hits are exactly the best of the surviving members' entries;
 *   5. the surviving drives keep answering their shards exactly as before.
 * Exit 77 outside a fabric run.
 */
#include "fabric_util.h"
#include "reis_synth.h"

#define DIM 256
#define N 2400
#define NQ 8
#define K 10
#define KWIDE 64	/* enough for the survivors' top K without the lost third */
#define DID 9120
#define LOST_VM 2
/*
 * fabric-connect.sh's keep-alive timeout (5 s; a keep-alive goes out every
 * 2.5 s and is given 5 s) notices the dead link, the error recovery fails
 * the commands in flight: at most about 7.5 s. ctrl_loss_tmo (4 s) then
 * removes the controller. The bound adds the host's kill latency and TCG.
 */
#define LOST_BOUND_S 20

static struct reis_db_image full;
static struct reis_queries q;
static struct fab_group fg;

/* A failure that names the lost member and says it is unreachable. */
static int names_lost(int ret, unsigned lost)
{
	const char *msg = reis_group_errmsg(fg.g);

	return ret == -ENOTCONN && strstr(reis_strerror(ret), "unreachable") &&
	       reis_group_failed(fg.g) == (int)lost &&
	       strstr(msg, fg.m[lost].name) && strstr(msg, fg.m[lost].subsysnqn) &&
	       strstr(msg, "unreachable");
}

/*
 * The survivors' exact answer: in binary-only search the group orders by
 * (Hamming, whole-database entry) and entry p lives on member p mod n
 * (docs/group.md, Placement), so the K best of the surviving members are
 * the first K hits of the whole database's KWIDE best not on @lost.
 */
static unsigned check_partial(const struct reis_group_result *got,
			      const struct reis_search_result *wide, unsigned lost)
{
	unsigned bad = 0;
	uint32_t qi, j, w;

	if (got->res.nq != NQ || got->res.k != K)
		return 1;
	for (qi = 0; qi < NQ; qi++) {
		for (j = 0, w = 0; j < K; j++, w++) {
			const struct reis_hit *g = &got->res.hits[qi * K + j], *h;

			while (w < wide->nhits[qi] &&
			       wide->hits[(size_t)qi * KWIDE + w].entry % fg.n == lost)
				w++;
			REQUIRE(w < wide->nhits[qi]);	/* KWIDE too small for this data */
			h = &wide->hits[(size_t)qi * KWIDE + w];
			if (g->id != h->id || g->entry != h->entry || g->hamming != h->hamming) {
				if (bad < 5)
					fprintf(stderr, "partial: query %u hit %u: entry %llu ham %u, "
						"survivors' best: entry %llu ham %u\n", qi, j,
						(unsigned long long)g->entry, g->hamming,
						(unsigned long long)h->entry, h->hamming);
				bad++;
			}
		}
		bad += got->res.nhits[qi] != K;
	}
	return bad;
}

int main(void)
{
	const struct reis_db_image *one[1];
	struct reis_search_result want, wide, sref[FAB_MAX];
	struct reis_group_result got;
	struct reis_build_opts bo;
	struct reis_search_opts so;
	char err[256], lost_nqn[64];
	unsigned i, lost = FAB_MAX, before = 0, round;
	uint64_t t0, t_err = 0;
	float *x, *qf;
	int ret = 0;

	fab_group_open(&fg, 1, 2, 2);
	snprintf(lost_nqn, sizeof(lost_nqn), ":storage%u:", LOST_VM);
	for (i = 0; i < fg.n; i++)
		if (fg.m[i].remote && strstr(fg.m[i].subsysnqn, lost_nqn))
			lost = i;
	if (lost == FAB_MAX)
		SKIP("no member from storage VM %u", LOST_VM);

	x = synth_vectors(81, N, DIM, 24, 0.5f);
	REQUIRE(x);
	memset(&bo, 0, sizeof(bo));
	bo.did = DID;
	bo.kind = REIS_DB_BF;
	bo.flags = REIS_BUILD_INT8;
	bo.name = "fabric-lost";
	REQUIRE(reis_db_build(&bo, x, N, DIM, &full, err, sizeof(err)) == 0);
	qf = synth_vectors(82, NQ, DIM, 24, 0.5f);
	REQUIRE(qf && reis_encode_queries(full.quant, qf, NQ, &q) == 0);
	memset(&so, 0, sizeof(so));
	so.did = DID;
	so.flags = REIS_SF_NO_RERANK;
	one[0] = &full;
	so.k = KWIDE;
	REQUIRE(reis_ref_search(one, 1, 0, &so, &q, &wide) == 0);
	so.k = K;
	REQUIRE(reis_ref_search(one, 1, 0, &so, &q, &want) == 0);
	reis_group_db_delete(fg.g, DID);
	ret = reis_group_db_deploy(fg.g, &full, NULL);
	if (ret)
		fprintf(stderr, "group deploy: %s\n", reis_group_errmsg(fg.g));
	REQUIRE(ret == 0);
	/* each member's own answer, to hold the survivors to */
	for (i = 0; i < fg.n; i++)
		REQUIRE(reis_search(reis_group_dev(fg.g, i), &so, &q, &sref[i]) == 0);

	/* 1, 2: whole and exact until the drive is gone, then an error */
	t0 = fab_now_ns();
	for (round = 0; fab_now_ns() - t0 < 60ull * 1000000000u; round++) {
		if (round == 3) {
			printf("@@FABRIC-KILL %u\n", LOST_VM);
			fflush(stdout);
			t0 = fab_now_ns();
		}
		ret = reis_group_search(fg.g, 0, &so, &q, 0, &got);
		if (ret)
			break;
		CHECK(!got.partial && !got.missing);
		CHECK_EQ_U64(reis_cmp_results("before the loss", &got.res, &want, 0), 0);
		reis_group_result_free(&got);
		before++;
	}
	t_err = fab_now_ns() - t0;
	printf("%u whole answers, then after %.2f s: %s (%s)\n", before, t_err / 1e9,
	       ret ? reis_group_errmsg(fg.g) : "no error", reis_strerror(ret));
	REQUIRE(ret != 0);
	CHECK(round >= 3);	/* the kill came after three whole answers */
	/* 3 */
	CHECK(t_err <= LOST_BOUND_S * 1000000000ull);
	CHECK(names_lost(ret, lost));
	t0 = fab_now_ns();
	ret = reis_group_search(fg.g, 0, &so, &q, 0, &got);
	printf("again after the loss: %.2f s: %s\n", (fab_now_ns() - t0) / 1e9,
	       ret ? reis_group_errmsg(fg.g) : "an answer");
	CHECK(ret != 0 && names_lost(ret, lost));
	if (!ret)
		reis_group_result_free(&got);
	CHECK(fab_now_ns() - t0 <= LOST_BOUND_S * 1000000000ull);

	/* 4, 5: the survivors, merged (flagged partial) and each for its shard */
	for (round = 0; round < 5; round++) {
		t0 = fab_now_ns();
		ret = reis_group_search(fg.g, 0, &so, &q, REIS_GROUP_PARTIAL, &got);
		CHECK(names_lost(ret, lost));
		CHECK(got.partial && got.missing == 1ull << lost && got.part_err[lost] != 0);
		CHECK_EQ_U64(check_partial(&got, &wide, lost), 0);
		if (!round)
			printf("partial: %s, missing %#llx, in %.2f ms\n", reis_group_errmsg(fg.g),
			       (unsigned long long)got.missing, (fab_now_ns() - t0) / 1e6);
		reis_group_result_free(&got);
		for (i = 0; i < fg.n; i++) {
			struct reis_dev *dev = reis_group_dev(fg.g, i);
			struct reis_search_result r;

			if (i == lost)
				continue;
			ret = reis_search(dev, &so, &q, &r);
			if (ret) {
				fprintf(stderr, "survivor %s: %s\n", fab_name(&fg.m[i]),
					reis_last_error(dev));
				CHECK(ret == 0);
				continue;
			}
			CHECK_EQ_U64(reis_cmp_results("survivor", &r, &sref[i], 0), 0);
			reis_search_result_free(&r);
		}
	}
	printf("survivors: 5 rounds exact on %u drives, merged and alone\n", fg.n - 1);

	for (i = 0; i < fg.n; i++) {
		if (i != lost)
			CHECK(reis_db_delete(reis_group_dev(fg.g, i), DID) == 0);
		reis_search_result_free(&sref[i]);
	}
	reis_search_result_free(&want);
	reis_search_result_free(&wide);
	reis_group_close(fg.g);
	reis_queries_free(&q);
	reis_db_image_free(&full);
	free(x);
	free(qf);
	return t_result();
}
