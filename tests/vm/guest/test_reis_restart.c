/* SPDX-License-Identifier: MIT */
/*
 * test_reis_restart - committed REIS databases survive a QEMU restart with
 * identical results (docs/reis-engine.md, DB_COMMIT). It runs in two boots on the same
 * flash backing file and namespace image (tests/vm/run-vm-tests.sh):
 *   first boot (no marker): deploy a brute-force and an IVF database, check
 *     their results against the reference, and write a marker with a digest
 *     of the results into the namespace (/dev/nvme0n1, 4 MiB before its end,
 *     where no other test writes);
 *   restart boot (marker found): both databases are there and READY, and
 *     the same searches give results with the same digest and equal to the
 *     reference; then they are deleted and the marker cleared.
 * In both boots the quantizer read back from the drive (META section,
 * REIS_META_READ through the QEMU glue) equals the deploying host's and
 * encodes the queries to the same codes.
 * Skips (77) when the drive is absent.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "libreis_tools.h"
#include "reis_cmp.h"
#include "reis_synth.h"

#define DIM 192
#define N 2500
#define NQ 32
#define BLOCK_DEV "/dev/nvme0n1"
#define MARK_FROM_END (4ull << 20)

struct marker {
	char magic[8];		/* "REISRST1" */
	uint64_t digest;
	uint32_t dids[2];
	uint8_t pad[4096 - 24];
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--) {
		h ^= *b++;
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

static uint64_t digest_of(const struct reis_search_result *r, uint64_t h)
{
	uint64_t i;

	for (i = 0; i < (uint64_t)r->nq * r->k; i++) {
		const struct reis_hit *x = &r->hits[i];

		h = fnv(h, &x->id, 8);
		h = fnv(h, &x->hamming, 4);
		h = fnv(h, &x->score, 8);
		if (x->doc)
			h = fnv(h, x->doc, x->doc_len);
	}
	return h;
}

int main(void)
{
	const char *path = getenv("REIS_TEST_DEV") ? getenv("REIS_TEST_DEV") : "/dev/ng0n1";
	struct reis_db_image img[2];
	struct reis_queries q;
	struct reis_dev *dev;
	struct marker *m;
	struct reis_db_info info;
	uint64_t ns_bytes = 0, mark_off, h = UINT64_C(0xcbf29ce484222325);
	float *x, *qf;
	uint64_t *off;
	uint8_t *docs;
	char err[256];
	unsigned i;
	int fd, ret, restart;
	FILE *f;

	if (access(path, F_OK))
		SKIP("%s absent", path);
	ret = reis_open(path, 0, &dev);
	if (ret)
		SKIP("reis_open(%s): %s", path, reis_strerror(ret));
	f = fopen("/sys/block/nvme0n1/size", "r");
	if (f) {
		unsigned long long s;

		if (fscanf(f, "%llu", &s) == 1)
			ns_bytes = s * 512;
		fclose(f);
	}
	REQUIRE(ns_bytes > 2 * MARK_FROM_END);
	mark_off = ns_bytes - MARK_FROM_END;
	fd = open(BLOCK_DEV, O_RDWR | O_DIRECT);
	REQUIRE(fd >= 0);
	m = aligned_alloc(4096, sizeof(*m));
	REQUIRE(m && pread(fd, m, sizeof(*m), (off_t)mark_off) == (ssize_t)sizeof(*m));
	restart = !memcmp(m->magic, "REISRST1", 8);
	printf("%s boot\n", restart ? "restart" : "first");

	/* The same data in both boots: seeded. */
	x = synth_vectors(61, N, DIM, 16, 0.5f);
	qf = synth_vectors(62, NQ, DIM, 16, 0.5f);
	docs = synth_docs(63, N, 300, &off);
	REQUIRE(x && qf && docs);
	for (i = 0; i < 2; i++) {
		struct reis_build_opts o;

		memset(&o, 0, sizeof(o));
		o.did = 950 + i;
		o.kind = i ? REIS_DB_IVF : REIS_DB_BF;
		o.flags = REIS_BUILD_INT8;
		o.nlist = i ? 16 : 0;
		o.km.max_iter = 4;
		o.docs = docs;
		o.doc_offsets = off;
		o.name = "restart";
		REQUIRE(reis_db_build(&o, x, N, DIM, &img[i], err, sizeof(err)) == 0);
	}
	REQUIRE(reis_encode_queries(img[0].quant, qf, NQ, &q) == 0);

	if (!restart) {
		for (i = 0; i < 2; i++) {
			reis_db_delete(dev, img[i].did);
			ret = reis_db_deploy(dev, &img[i], NULL);
			if (ret)
				fprintf(stderr, "deploy: %s\n", reis_last_error(dev));
			REQUIRE(ret == 0);
		}
	}
	for (i = 0; i < 2; i++) {
		const struct reis_db_image *one[1] = { &img[i] };
		struct reis_search_opts so;
		struct reis_search_result got, want;

		ret = reis_db_info(dev, img[i].did, &info);
		CHECK(ret == 0 && info.state == REIS_DB_READY && info.n == N);
		if (ret)
			continue;
		{
			struct reis_quant qd;
			struct reis_queries q2;

			ret = reis_db_quantizer(dev, img[i].did, &qd);
			if (ret)
				fprintf(stderr, "quantizer: %s\n", reis_last_error(dev));
			CHECK(ret == 0);
			if (!ret) {
				CHECK(qd.dim == DIM && qd.metric == img[i].quant->metric &&
				      !memcmp(qd.mean, img[i].quant->mean, DIM * 4) &&
				      !memcmp(qd.scale, img[i].quant->scale, DIM * 4));
				REQUIRE(reis_encode_queries(&qd, qf, NQ, &q2) == 0);
				if (!i)
					CHECK(!memcmp(q2.bin, q.bin, NQ * DIM / 8) &&
					      !memcmp(q2.int8, q.int8, NQ * DIM));
				reis_queries_free(&q2);
				reis_quant_free(&qd);
			}
		}
		memset(&so, 0, sizeof(so));
		so.did = img[i].did;
		so.k = 10;
		so.nprobe = i ? 5 : 0;
		so.flags = REIS_SF_DOCS;
		ret = i ? reis_ivf_search(dev, &so, &q, &got) : reis_search(dev, &so, &q, &got);
		if (ret)
			fprintf(stderr, "search: %s\n", reis_last_error(dev));
		REQUIRE(ret == 0);
		REQUIRE(reis_ref_search(one, 1, i, &so, &q, &want) == 0);
		CHECK_EQ_U64(reis_cmp_results(restart ? "after restart" : "first boot", &got,
					      &want, 1), 0);
		h = digest_of(&got, h);
		reis_search_result_free(&got);
		reis_search_result_free(&want);
	}
	if (!restart) {
		memset(m, 0, sizeof(*m));
		memcpy(m->magic, "REISRST1", 8);
		m->digest = h;
		m->dids[0] = 950;
		m->dids[1] = 951;
		CHECK(pwrite(fd, m, sizeof(*m), (off_t)mark_off) == (ssize_t)sizeof(*m));
		printf("deployed databases 950, 951; results digest %016llx\n",
		       (unsigned long long)h);
	} else {
		printf("results digest %016llx, before the restart %016llx\n",
		       (unsigned long long)h, (unsigned long long)m->digest);
		CHECK(h == m->digest);
		for (i = 0; i < 2; i++)
			CHECK(reis_db_delete(dev, img[i].did) == 0);
		memset(m, 0, sizeof(*m));
		CHECK(pwrite(fd, m, sizeof(*m), (off_t)mark_off) == (ssize_t)sizeof(*m));
	}
	fsync(fd);
	close(fd);
	free(m);
	reis_close(dev);
	reis_queries_free(&q);
	reis_db_image_free(&img[0]);
	reis_db_image_free(&img[1]);
	free(x);
	free(qf);
	free(docs);
	free(off);
	return t_result();
}
