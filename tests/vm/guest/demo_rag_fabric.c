/* SPDX-License-Identifier: MIT */
/*
 * demo_rag_fabric - the RAG demo sharded across ISP drives in other VMs
 * (`make demo-fabric`, docs/fabric.md), in the compute VM of
 * scripts/fabric-run.sh:
 *   1. read the WordNet-gloss bundle of the main demo (scripts/rag-bundle.sh
 *      put it on the local namespace) with block reads;
 *   2. cut its passages into one brute-force shard per drive (the local one
 *      and every NVMe/TCP one discovery finds): the bundle's codes,
 *      quantizer and passage ids, the documents repacked per shard; deploy
 *      each into its drive, and the whole IVF database into the local one;
 *   3. for each demo query: one REIS_SEARCH (k = 5, INT8 rerank, documents)
 *      to every shard at once, the top 5 merged on the host, printed with
 *      which drive answered each passage and the time; the one-drive IVF
 *      search (target recall 0.95) beside it, with how many passages agree.
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

static struct fab_set set;

/* Shard @i of @ns of @full as a brute-force image with its own documents. */
static int make_shard(const struct reis_db_image *full, const uint64_t *rows, unsigned i,
		      unsigned ns, struct reis_db_image *s)
{
	uint64_t lo = full->n * i / ns, j, *off;
	uint8_t *blob, *docs;
	uint64_t bytes = 0, len;
	char err[256];

	*s = fab_shard(full, full->ids ? full->ids : rows, SHARD_DID + i, i, ns);
	s->ids = (full->ids ? full->ids : rows) + lo;
	s->kind = REIS_DB_BF;
	s->nlist = s->ncalib = 0;
	s->centroids = NULL;
	s->cluster_sizes = NULL;
	s->calib = NULL;
	s->nextra = 0;
	snprintf(s->name, sizeof(s->name), "rag-shard-%u", i);
	off = malloc((s->n + 1) * sizeof(*off));
	if (!off)
		return -ENOMEM;
	for (j = 0; j < s->n; j++) {
		uint32_t l = 0;

		reis_db_image_doc(full, lo + j, &l);
		off[j] = bytes;
		bytes += l;
	}
	off[s->n] = bytes;
	blob = malloc(bytes ? bytes : 1);
	if (!blob)
		return -ENOMEM;
	for (j = 0; j < s->n; j++) {
		uint32_t l = 0;
		const uint8_t *d = reis_db_image_doc(full, lo + j, &l);

		memcpy(blob + off[j], d, l);
	}
	if (full->doc_mode != REIS_DOC_NONE) {
		if (reis_docs_pack(blob, off, NULL, s->n, &docs, &len))
			return -EINVAL;
		s->docs = docs;
		s->docs_bytes = len;
	}
	free(blob);
	free(off);
	if (reis_db_image_check(s, err, sizeof(err))) {
		fprintf(stderr, "shard %u: %s\n", i, err);
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *bundle = argc > 2 && !strcmp(argv[1], "--bundle") ? argv[2] : "/dev/nvme0n1";
	struct reis_search_req req[FAB_MAX];
	struct reis_search_result res[FAB_MAX];
	struct reis_db_image full, shard[FAB_MAX];
	struct reis_hit hits[K];
	uint32_t nhits[1], qi, j, ans, tlen;
	uint64_t qlen, pos, *rows, e;
	const uint8_t *qs;
	struct rag_qhdr h;
	char err[256];
	unsigned i, ns;
	int fd, ret;

	fab_set_open(&set, 1, 1, FAB_MAX - 1);
	ns = set.n;
	fd = open(bundle, O_RDONLY | O_CLOEXEC);
	REQUIRE(fd >= 0);
	ret = reis_db_image_read(fd, 0, &full, err, sizeof(err));
	close(fd);
	if (ret) {
		fprintf(stderr, "%s: %s (scripts/rag-bundle.sh writes the bundle)\n", bundle, err);
		return T_EXIT_FAIL;
	}
	qs = reis_db_image_extra(&full, RAG_QUERIES_SEC, &qlen);
	REQUIRE(qs && qlen >= sizeof(h) && full.quant);
	memcpy(&h, qs, sizeof(h));
	REQUIRE(!memcmp(h.magic, "RAGQ", 4) && h.dim == full.dim && h.count <= 8);
	printf("== RAG retrieval sharded over %u ISP drives (%u over NVMe/TCP) ==\n", ns, ns - 1);
	printf("bundle from %s: %" PRIu64 " passages, %u-d\n", bundle, full.n, full.dim);

	rows = malloc(full.n * sizeof(*rows));
	REQUIRE(rows);
	for (e = 0; e < full.n; e++)
		rows[e] = e;
	for (i = 0; i < ns; i++) {
		uint64_t t0;

		REQUIRE(make_shard(&full, rows, i, ns, &shard[i]) == 0);
		reis_db_delete(set.m[i].dev, shard[i].did);
		t0 = fab_now_ns();
		ret = reis_db_deploy(set.m[i].dev, &shard[i], NULL);
		if (ret) {
			fprintf(stderr, "deploy on %s: %s\n", fab_name(&set.m[i]),
				reis_last_error(set.m[i].dev));
			return T_EXIT_FAIL;
		}
		printf("shard %u: %" PRIu64 " passages (entries %" PRIu64 "..%" PRIu64 " of the "
		       "bundle's cluster order) on %s, deployed in %.1f s\n", i, shard[i].n,
		       full.n * i / ns, full.n * (i + 1) / ns - 1, fab_name(&set.m[i]),
		       (fab_now_ns() - t0) / 1e9);
	}
	reis_db_delete(set.m[0].dev, RAG_DID);
	ret = reis_db_deploy(set.m[0].dev, &full, NULL);
	if (ret) {
		fprintf(stderr, "deploy the whole database: %s\n", reis_last_error(set.m[0].dev));
		return T_EXIT_FAIL;
	}

	pos = sizeof(h);
	for (qi = 0; qi < h.count && qi < 3 && qlen - pos >= 8; qi++) {
		struct reis_search_opts so;
		struct reis_search_result one;
		struct reis_queries q;
		const float *emb;
		const char *text;
		unsigned agree = 0;
		uint64_t t0;

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
		t0 = fab_now_ns();
		for (i = 0; i < ns; i++) {
			so.did = shard[i].did;
			memset(&req[i], 0, sizeof(req[i]));
			REQUIRE(reis_search_submit(set.m[i].dev, &req[i], REIS_OP_SEARCH, &so, &q,
						   NULL, NULL) == 0);
		}
		for (i = 0; i < ns; i++) {
			if (reis_search_wait(set.m[i].dev, &req[i])) {
				fprintf(stderr, "%s: %s\n", fab_name(&set.m[i]), req[i].msg);
				return T_EXIT_FAIL;
			}
			res[i] = req[i].res;
		}
		fab_merge(res, ns, 1, K, 1, full.metric == REIS_METRIC_L2, hits, nhits);
		printf("\nquery: \"%.*s\"\n", (int)tlen, text);
		printf("sharded exact scan: %u drives at once, %.2f ms wall\n", ns,
		       (fab_now_ns() - t0) / 1e6);
		so.did = RAG_DID;
		so.k = K;
		so.flags = 0;
		so.target_recall = 9500;
		REQUIRE(reis_ivf_search(set.m[0].dev, &so, &q, &one) == 0);
		for (j = 0; j < nhits[0]; j++) {
			uint32_t m;
			unsigned from = 0;

			for (i = 0; i < ns; i++)
				if (hits[j].did == shard[i].did)
					from = i;
			for (m = 0; m < one.nhits[0]; m++)
				agree += one.hits[m].id == hits[j].id;
			printf("  %u.%s [passage %" PRIu64 ", score %" PRId64 ", from %s %s] %.*s\n",
			       j + 1, hits[j].id == ans ? " (*)" : "", hits[j].id, hits[j].score,
			       set.m[from].remote ? "remote" : "local", set.m[from].d.path,
			       (int)(hits[j].doc_len > 100 ? 100 : hits[j].doc_len),
			       (const char *)hits[j].doc);
		}
		printf("  one-drive IVF_SEARCH (R = 0.95, nprobe %u): %u of its %u passages "
		       "agree; (*) the gloss this sentence comes from\n", one.nprobe, agree,
		       one.nhits[0]);
		reis_search_result_free(&one);
		for (i = 0; i < ns; i++)
			reis_search_result_free(&res[i]);
		reis_queries_free(&q);
	}
	for (i = 0; i < ns; i++)
		reis_db_delete(set.m[i].dev, shard[i].did);
	fab_set_close(&set);
	free(rows);
	reis_db_image_free(&full);
	return 0;
}
