/* SPDX-License-Identifier: MIT */
/*
 * test_reis_hamming_knn - reis_hamming_knn(), the exact binary k-NN on the
 * host: against a plain sort by (Hamming, entry) over random codes with
 * many ties (few bits set), for code lengths of 8, 64 and 13 bytes, k = 1,
 * 7 and k = n, aligned and unaligned buffers; against the in-process drive
 * (a brute-force database deployed from the same codes, searched with
 * REIS_SF_NO_RERANK and no distance filter: the same ids and distances, hit
 * by hit); bad arguments are refused with -EINVAL.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "libreis_tools.h"
#include "reis_synth.h"

struct cand {
	uint32_t d, i;
};

static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;

	if (a->d != b->d)
		return a->d < b->d ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* Sparse random bits: many equal distances, so ties decide the order. */
static void fill(uint8_t *p, size_t len, uint64_t *s)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(synth_next(s) & synth_next(s) & synth_next(s));
}

static void check_plain(uint32_t n, uint32_t nq, uint32_t bytes, uint32_t k, size_t skew)
{
	uint8_t *bmem = malloc((size_t)n * bytes + 8), *qmem = malloc((size_t)nq * bytes + 8);
	uint8_t *base = bmem + skew, *q = qmem + skew;
	uint32_t *ids = malloc((size_t)nq * k * 4), *dist = malloc((size_t)nq * k * 4), j, i;
	struct cand *c = malloc((size_t)n * sizeof(*c));
	uint64_t s = 0x1234 + bytes + k;
	int bad = 0;

	REQUIRE(bmem && qmem && ids && dist && c);
	fill(base, (size_t)n * bytes, &s);
	fill(q, (size_t)nq * bytes, &s);
	CHECK(reis_hamming_knn(base, n, q, nq, bytes, k, ids, dist) == 0);
	for (j = 0; j < nq; j++) {
		for (i = 0; i < n; i++) {
			c[i].d = reis_hamming(q + (size_t)j * bytes, base + (size_t)i * bytes, bytes);
			c[i].i = i;
		}
		qsort(c, n, sizeof(*c), cand_cmp);
		for (i = 0; i < k; i++)
			bad += ids[(size_t)j * k + i] != c[i].i || dist[(size_t)j * k + i] != c[i].d;
	}
	if (bad)
		fprintf(stderr, "n %u bytes %u k %u skew %zu: %d hits differ\n", n, bytes, k, skew,
			bad);
	CHECK(bad == 0);
	free(bmem);
	free(qmem);
	free(ids);
	free(dist);
	free(c);
}

/* The drive's binary search on the same codes gives the same hits. */
static void check_drive(void)
{
	enum { N = 300, NQ = 5, DIM = 128, K = 10 };
	uint8_t *codes = malloc(N * DIM / 8), *qc = malloc(NQ * DIM / 8);
	uint32_t ids[NQ * K], dist[NQ * K], j, i;
	struct reis_search_result r;
	struct reis_search_opts o;
	struct reis_db_image img;
	struct reis_queries q;
	struct reis_dev *dev;
	char err[200];
	uint64_t s = 99;

	REQUIRE(codes && qc);
	fill(codes, N * DIM / 8, &s);
	fill(qc, NQ * DIM / 8, &s);
	memset(&img, 0, sizeof(img));
	img.did = 3;
	img.kind = REIS_DB_BF;
	img.dim = DIM;
	img.n = N;
	img.bin = codes;
	REQUIRE(reis_db_image_check(&img, err, sizeof(err)) == 0);
	REQUIRE(reis_open_inproc(NULL, &dev) == 0);
	REQUIRE(reis_db_deploy(dev, &img, NULL) == 0);
	memset(&o, 0, sizeof(o));
	o.did = 3;
	o.k = K;
	o.flags = REIS_SF_NO_RERANK | REIS_SF_NO_DF;
	q.nq = NQ;
	q.dim = DIM;
	q.bin = qc;
	q.int8 = NULL;
	REQUIRE(reis_search(dev, &o, &q, &r) == 0);
	CHECK(reis_hamming_knn(codes, N, qc, NQ, DIM / 8, K, ids, dist) == 0);
	for (j = 0; j < NQ; j++)
		for (i = 0; i < K; i++) {
			const struct reis_hit *h = &r.hits[j * K + i];

			CHECK(h->id == ids[j * K + i]);
			CHECK(h->hamming == dist[j * K + i]);
		}
	reis_search_result_free(&r);
	reis_db_image_free(&img);
	reis_close(dev);
	free(codes);
	free(qc);
}

int main(void)
{
	uint8_t b[16] = { 0 };
	uint32_t id, d;

	check_plain(200, 6, 8, 7, 0);
	check_plain(200, 6, 64, 7, 0);
	check_plain(200, 6, 64, 1, 3);
	check_plain(97, 4, 13, 97, 1);
	check_plain(50, 3, 64, 50, 5);
	check_drive();

	CHECK(reis_hamming_knn(NULL, 1, b, 1, 8, 1, &id, &d) == -EINVAL);
	CHECK(reis_hamming_knn(b, 1, NULL, 1, 8, 1, &id, &d) == -EINVAL);
	CHECK(reis_hamming_knn(b, 1, b, 1, 0, 1, &id, &d) == -EINVAL);
	CHECK(reis_hamming_knn(b, 1, b, 1, 8, 0, &id, &d) == -EINVAL);
	CHECK(reis_hamming_knn(b, 1, b, 1, 8, 2, &id, &d) == -EINVAL);
	CHECK(reis_hamming_knn(b, 2, b, 1, 8, 1, NULL, &d) == -EINVAL);
	CHECK(reis_hamming_knn(b, 2, b, 0, 8, 1, &id, &d) == 0);
	CHECK(reis_hamming_knn(b, 2, b, 1, 8, 1, &id, &d) == 0 && id == 0 && d == 0);
	return t_result();
}
