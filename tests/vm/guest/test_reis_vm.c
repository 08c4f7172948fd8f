/* SPDX-License-Identifier: MIT */
/*
 * test_reis_vm - REIS in the VM through libreis' io_uring passthrough
 * (REIS Table 1 commands, §4.1-4.3, §7.1 tags;
 * docs/command-set.md §4), against the host reference computed in the guest:
 *   1. deploy a brute-force and an IVF database (INT8, tags, documents)
 *      built from seeded synthetic embeddings; search both with several
 *      options: hits and documents exactly the reference's; DOC_READ;
 *   2. several processes (fork), each with its own handle and 8 searches in
 *      flight, search both databases while the parent deploys a third one
 *      and a thread does O_DIRECT block I/O on /dev/nvme0n1: every result is
 *      exactly its own reference (no result mixes), the block data verify,
 *      the third database deploys and searches exactly;
 *   3. delete everything it made.
 * Skips (77) when /dev/ng0n1 (REIS_TEST_DEV) is absent or has no REIS.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "libreis_tools.h"
#include "reis_cmp.h"
#include "reis_synth.h"

#define DIM 256
#define N 3000
#define NQ 64
#define NPROC 3
#define QD 8
#define ROUNDS 24
#define BLOCK_DEV "/dev/nvme0n1"
#define BLOCK_OFF (40ull << 20)	/* away from test_vm_blockio's offsets */
#define BLOCK_LEN (2u << 20)

static const char *path;
static struct reis_db_image img[3];
static struct reis_queries q;

static void build(struct reis_db_image *im, uint32_t did, uint32_t kind, uint64_t n,
		  uint64_t seed)
{
	float *x = synth_vectors(seed, n, DIM, 24, 0.5f);
	uint64_t *off, i;
	uint8_t *docs = synth_docs(seed + 1, n, 400, &off);
	uint32_t *tags = malloc(n * 4);
	struct reis_build_opts o;
	char err[256];

	REQUIRE(x && docs && tags);
	for (i = 0; i < n; i++)
		tags[i] = (uint32_t)(i % 4);
	memset(&o, 0, sizeof(o));
	o.did = did;
	o.kind = kind;
	o.flags = REIS_BUILD_INT8;
	o.nlist = kind == REIS_DB_IVF ? 24 : 0;
	o.km.max_iter = 4;
	o.km.seed = seed;
	o.docs = docs;
	o.doc_offsets = off;
	o.tags = tags;
	o.name = "vm-test";
	if (reis_db_build(&o, x, n, DIM, im, err, sizeof(err))) {
		fprintf(stderr, "build: %s\n", err);
		exit(T_EXIT_FAIL);
	}
	free(x);
	free(docs);
	free(off);
	free(tags);
}

static unsigned check_one(struct reis_dev *dev, const char *what, int which,
			  const struct reis_search_opts *o, const struct reis_queries *qq)
{
	const struct reis_db_image *one[1] = { &img[which] };
	int ivf = img[which].kind == REIS_DB_IVF;
	struct reis_search_result got, want;
	unsigned bad;
	int ret;

	ret = ivf ? reis_ivf_search(dev, o, qq, &got) : reis_search(dev, o, qq, &got);
	if (ret) {
		fprintf(stderr, "%s: %s\n", what, reis_last_error(dev));
		return 1;
	}
	REQUIRE(reis_ref_search(one, 1, ivf, o, qq, &want) == 0);
	bad = reis_cmp_results(what, &got, &want, !!(o->flags & REIS_SF_DOCS));
	reis_search_result_free(&got);
	reis_search_result_free(&want);
	return bad;
}

/* One child: QD asynchronous searches in flight, ROUNDS times. */
static int child(unsigned id)
{
	struct reis_search_req *sr = calloc(QD, sizeof(*sr));
	struct reis_search_opts *o = calloc(QD, sizeof(*o));
	struct reis_queries *sub = calloc(QD, sizeof(*sub));
	int *which = calloc(QD, sizeof(*which));
	struct reis_dev *dev;
	uint64_t rng = 1000 + id;
	unsigned r, i, bad = 0, done = 0;

	if (!sr || !o || !sub || !which || reis_open(path, 0, &dev))
		return T_EXIT_FAIL;
	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < QD; i++) {
			uint32_t first = (uint32_t)(synth_next(&rng) % (NQ - 4));

			which[i] = (int)(synth_next(&rng) % 2);
			memset(&o[i], 0, sizeof(o[i]));
			o[i].did = img[which[i]].did;
			o[i].k = 1 + (uint32_t)(synth_next(&rng) % 20);
			o[i].flags = synth_next(&rng) % 2 ? REIS_SF_DOCS : 0;
			if (which[i])
				o[i].nprobe = 1 + (uint32_t)(synth_next(&rng) % 24);
			sub[i] = q;
			sub[i].nq = 1 + (uint32_t)(synth_next(&rng) % 4);
			sub[i].bin = q.bin + (size_t)first * (DIM / 8);
			sub[i].int8 = q.int8 + (size_t)first * DIM;
			if (reis_search_submit(dev, &sr[i], which[i] ? REIS_OP_IVF_SEARCH :
					       REIS_OP_SEARCH, &o[i], &sub[i], NULL, NULL)) {
				fprintf(stderr, "child %u: submit: %s\n", id, reis_last_error(dev));
				return T_EXIT_FAIL;
			}
		}
		for (i = 0; i < QD; i++) {
			const struct reis_db_image *one[1] = { &img[which[i]] };
			struct reis_search_result want;

			if (reis_search_wait(dev, &sr[i])) {
				fprintf(stderr, "child %u: %s\n", id, sr[i].msg);
				bad++;
				continue;
			}
			REQUIRE(reis_ref_search(one, 1, which[i], &o[i], &sub[i], &want) == 0);
			bad += reis_cmp_results("child", &sr[i].res, &want,
						!!(o[i].flags & REIS_SF_DOCS));
			reis_search_result_free(&want);
			reis_search_result_free(&sr[i].res);
			done++;
		}
	}
	reis_close(dev);
	printf("child %u: %u searches, %u bad\n", id, done, bad);
	return bad ? T_EXIT_FAIL : T_EXIT_PASS;
}

static void *block_io(void *arg)
{
	int fd = open(BLOCK_DEV, O_RDWR | O_DIRECT);
	uint8_t *w = aligned_alloc(4096, BLOCK_LEN), *r = aligned_alloc(4096, BLOCK_LEN);
	long bad = 0;
	unsigned i;

	(void)arg;
	if (fd < 0 || !w || !r)
		return (void *)1;
	for (i = 0; i < 20; i++) {
		reis_pattern(77 + i, w, BLOCK_LEN);
		if (pwrite(fd, w, BLOCK_LEN, (off_t)BLOCK_OFF) != BLOCK_LEN ||
		    pread(fd, r, BLOCK_LEN, (off_t)BLOCK_OFF) != BLOCK_LEN ||
		    memcmp(w, r, BLOCK_LEN))
			bad++;
	}
	close(fd);
	free(w);
	free(r);
	return (void *)bad;
}

int main(void)
{
	struct reis_search_opts so;
	struct reis_dev *dev;
	struct reis_db_info info;
	pid_t pids[NPROC];
	pthread_t th;
	void *tbad;
	float *qf;
	uint8_t doc[4096];
	unsigned p, i;
	int ret, st;

	path = getenv("REIS_TEST_DEV") ? getenv("REIS_TEST_DEV") : "/dev/ng0n1";
	if (access(path, F_OK))
		SKIP("%s absent", path);
	ret = reis_open(path, 0, &dev);
	if (ret)
		SKIP("reis_open(%s): %s", path, reis_strerror(ret));
	if (!(reis_dev_info(dev)->caps & REIS_CAP_REIS))
		SKIP("the drive has no REIS engine");
	printf("%s via %s, preset %s\n", path, reis_transport(dev), reis_dev_info(dev)->preset);

	build(&img[0], 901, REIS_DB_BF, N, 51);
	build(&img[1], 902, REIS_DB_IVF, N, 51);
	build(&img[2], 903, REIS_DB_BF, 4 * N, 53);
	qf = synth_vectors(52, NQ, DIM, 24, 0.5f);
	REQUIRE(qf && reis_encode_queries(img[0].quant, qf, NQ, &q) == 0);
	for (i = 0; i < 3; i++)
		reis_db_delete(dev, img[i].did);	/* leftovers of an earlier run */

	/* 1. deploy and search exactly */
	for (i = 0; i < 2; i++) {
		ret = reis_db_deploy(dev, &img[i], NULL);
		if (ret)
			fprintf(stderr, "deploy %u: %s\n", img[i].did, reis_last_error(dev));
		REQUIRE(ret == 0);
	}
	memset(&so, 0, sizeof(so));
	so.did = 901;
	so.k = 10;
	so.flags = REIS_SF_DOCS;
	CHECK_EQ_U64(check_one(dev, "bf docs", 0, &so, &q), 0);
	so.flags = REIS_SF_TAG | REIS_SF_NO_PL;
	so.tag = 1;
	so.df_threshold = 120;
	CHECK_EQ_U64(check_one(dev, "bf tag df", 0, &so, &q), 0);
	memset(&so, 0, sizeof(so));
	so.did = 902;
	so.k = 10;
	so.nprobe = 6;
	so.flags = REIS_SF_DOCS;
	CHECK_EQ_U64(check_one(dev, "ivf docs", 1, &so, &q), 0);
	for (i = 0; i < N; i += 701) {
		uint32_t len;
		const uint8_t *want = reis_db_image_doc(&img[1], i, &len);

		CHECK(reis_doc_read(dev, 902, i, doc, sizeof(doc)) == (int)len &&
		      !memcmp(doc, want, len));
	}

	/* 2. processes searching while a deploy and block I/O run */
	fflush(stdout);
	for (p = 0; p < NPROC; p++) {
		pids[p] = fork();
		REQUIRE(pids[p] >= 0);
		if (!pids[p])
			_exit(child(p));
	}
	REQUIRE(pthread_create(&th, NULL, block_io, NULL) == 0);
	ret = reis_db_deploy(dev, &img[2], NULL);
	if (ret)
		fprintf(stderr, "deploy 903: %s\n", reis_last_error(dev));
	CHECK(ret == 0);
	REQUIRE(pthread_join(th, &tbad) == 0);
	CHECK(tbad == NULL);
	for (p = 0; p < NPROC; p++) {
		REQUIRE(waitpid(pids[p], &st, 0) == pids[p]);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	memset(&so, 0, sizeof(so));
	so.did = 903;
	so.k = 10;
	so.flags = REIS_SF_DOCS;
	CHECK_EQ_U64(check_one(dev, "third db", 2, &so, &q), 0);
	CHECK(reis_db_info(dev, 901, &info) == 0 && info.searches > 0);

	/* 3. clean up */
	for (i = 0; i < 3; i++)
		CHECK(reis_db_delete(dev, img[i].did) == 0);
	reis_close(dev);
	reis_queries_free(&q);
	for (i = 0; i < 3; i++)
		reis_db_image_free(&img[i]);
	free(qf);
	return t_result();
}
