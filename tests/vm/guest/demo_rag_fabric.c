/* SPDX-License-Identifier: MIT */
/*
 * demo_rag_fabric - the RAG demo sharded across ISP drives in other VMs
 * (`make demo-fabric`, docs/fabric.md), in the compute VM of
 * scripts/fabric-run.sh, through libreis' device group (docs/group.md):
 *   1. read the WordNet-gloss bundle of the main demo (scripts/rag-bundle.sh
 *      put it on the local namespace) with block reads;
 *   2. open the group from discovery (the local drive and every NVMe/TCP
 *      one) and deploy the bundle's IVF database across it
 *      (reis_group_db_deploy: every member gets the centroids and a 1/N
 *      slice of every cluster, with its passages), and the whole database
 *      into the local drive for comparison;
 *   3. for each demo query: one reis_group_search (IVF, target recall
 *      0.95, k = 5, INT8 rerank, documents) over every member at once,
 *      printed with the drive that holds each passage and the time, and
 *      checked identical to the one drive's IVF_SEARCH.
 * Usage: demo_rag_fabric [--bundle /dev/nvme0n1]
 */
#include <fcntl.h>
#include <inttypes.h>
#include <unistd.h>

#include "fabric_util.h"

#define RAG_DID 4242u		/* the main demo's id (examples/rag_demo.c) */
#define SHARD_DID 4300u
#define RAG_QUERIES_SEC 0x100u
#define K 5

struct rag_qhdr {
	char magic[4];
	uint32_t count;
	uint32_t dim;
	uint32_t rsvd;
};

static struct fab_group fg;

int main(int argc, char **argv)
{
	const char *bundle = argc > 2 && !strcmp(argv[1], "--bundle") ? argv[2] : "/dev/nvme0n1";
	struct reis_dev *one_dev;
	struct reis_db_image full;
	uint32_t qi, j, ans, tlen;
	unsigned i, ns, bad = 0;
	uint64_t qlen, pos, t0;
	const uint8_t *qs;
	struct rag_qhdr h;
	char err[256];
	int fd, ret;

	fab_group_open(&fg, 1, 1, FAB_MAX - 1);
	ns = fg.n;
	one_dev = reis_group_dev(fg.g, fg.local);
	fd = open(bundle, O_RDONLY | O_CLOEXEC);
	REQUIRE(fd >= 0);
	ret = reis_db_image_read(fd, 0, &full, err, sizeof(err));
	close(fd);
	if (ret) {
		fprintf(stderr, "%s: %s (scripts/rag-bundle.sh writes the bundle)\n", bundle, err);
		return T_EXIT_FAIL;
	}
	qs = reis_db_image_extra(&full, RAG_QUERIES_SEC, &qlen);
	REQUIRE(qs && qlen >= sizeof(h) && full.quant && full.kind == REIS_DB_IVF);
	memcpy(&h, qs, sizeof(h));
	REQUIRE(!memcmp(h.magic, "RAGQ", 4) && h.dim == full.dim && h.count <= 8);
	printf("== RAG retrieval sharded over a group of %u ISP drives (%u over NVMe/TCP) ==\n",
	       ns, fg.nremote);
	printf("bundle from %s: %" PRIu64 " passages, %u-d, IVF with %u clusters\n", bundle,
	       full.n, full.dim, full.nlist);

	full.did = SHARD_DID;
	reis_group_db_delete(fg.g, SHARD_DID);
	t0 = fab_now_ns();
	ret = reis_group_db_deploy(fg.g, &full, NULL);
	if (ret) {
		fprintf(stderr, "group deploy: %s\n", reis_group_errmsg(fg.g));
		return T_EXIT_FAIL;
	}
	printf("deployed across the group in %.1f s:\n", (fab_now_ns() - t0) / 1e9);
	for (i = 0; i < ns; i++) {
		struct reis_db_info info;

		REQUIRE(reis_db_info(reis_group_dev(fg.g, i), SHARD_DID, &info) == 0);
		printf("  member %u: %" PRIu64 " passages (entries p = %u mod %u, all %u centroids) "
		       "on %s\n", i, (uint64_t)info.n, i, ns, full.nlist, fab_name(&fg.m[i]));
	}
	full.did = RAG_DID;
	reis_db_delete(one_dev, RAG_DID);
	ret = reis_db_deploy(one_dev, &full, NULL);
	if (ret) {
		fprintf(stderr, "deploy the whole database: %s\n", reis_last_error(one_dev));
		return T_EXIT_FAIL;
	}

	pos = sizeof(h);
	for (qi = 0; qi < h.count && qi < 3 && qlen - pos >= 8; qi++) {
		struct reis_search_opts so;
		struct reis_search_result one;
		struct reis_group_result got;
		struct reis_queries q;
		const float *emb;
		const char *text;
		unsigned diff;

		memcpy(&ans, qs + pos, 4);
		memcpy(&tlen, qs + pos + 4, 4);
		if (tlen >= 256 || qlen - pos - 8 < ((tlen + 3) & ~3u) + 4ull * h.dim)
			break;
		text = (const char *)qs + pos + 8;
		pos += 8 + ((tlen + 3) & ~3u);
		emb = (const float *)(const void *)(qs + pos);
		pos += 4ull * h.dim;
		REQUIRE(reis_encode_queries(full.quant, emb, 1, &q) == 0);

		memset(&so, 0, sizeof(so));
		so.k = K;
		so.flags = REIS_SF_DOCS;
		so.target_recall = 9500;
		so.did = SHARD_DID;
		t0 = fab_now_ns();
		ret = reis_group_search(fg.g, 1, &so, &q, 0, &got);
		if (ret) {
			fprintf(stderr, "group search: %s\n", reis_group_errmsg(fg.g));
			return T_EXIT_FAIL;
		}
		printf("\nquery: \"%.*s\"\n", (int)tlen, text);
		printf("group IVF_SEARCH (R = 0.95): %u drives at once, %.2f ms wall, "
		       "%.2f ms modeled, merge %.3f ms\n", ns, (fab_now_ns() - t0) / 1e6,
		       got.search_ns / 1e6, got.merge_ns / 1e6);
		for (j = 0; j < got.res.nhits[0]; j++) {
			const struct reis_hit *ht = &got.res.hits[j];
			const struct reis_group_member *m = &fg.m[ht->entry % ns];

			printf("  %u.%s [passage %" PRIu64 ", score %" PRId64 ", from %s %s] %.*s\n",
			       j + 1, ht->id == ans ? " (*)" : "", ht->id, ht->score,
			       m->remote ? "remote" : "local", m->name,
			       (int)(ht->doc_len > 100 ? 100 : ht->doc_len), (const char *)ht->doc);
		}
		so.did = RAG_DID;
		REQUIRE(reis_ivf_search(one_dev, &so, &q, &one) == 0);
		for (j = 0; j < one.nq * one.k; j++)
			if (one.hits[j].id != REIS_HIT_NONE)
				one.hits[j].did = SHARD_DID;
		diff = reis_cmp_results("group vs one drive", &got.res, &one, 1);
		bad += diff;
		printf("  identical to one drive's IVF_SEARCH (nprobe %u): %s; (*) the gloss this "
		       "sentence comes from\n", one.nprobe, diff ? "NO" : "yes");
		reis_search_result_free(&one);
		reis_group_result_free(&got);
		reis_queries_free(&q);
	}
	reis_group_db_delete(fg.g, SHARD_DID);
	reis_db_delete(one_dev, RAG_DID);
	reis_group_close(fg.g);
	reis_db_image_free(&full);
	return bad ? T_EXIT_FAIL : 0;
}
