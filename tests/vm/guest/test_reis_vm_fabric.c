/* SPDX-License-Identifier: MIT */
/*
 * test_reis_vm_fabric - a REIS database sharded by libreis' device group
 * (libreis_group.h, docs/group.md) across the local ISP drive and two
 * drives of other VMs reached over NVMe/TCP passthru (docs/fabric.md),
 * through libreis' io_uring transport on each /dev/ngXnY:
 *   1. the group opens from discovery and spans the local drive (pcie) and
 *      the remote ones (tcp, with the subsystem NQNs and addresses
 *      scripts/fabric-run.sh connected), and `reis --json group list`
 *      says the same; an unprivileged scan, which may
 *      not probe them, still tells them apart; ISP_ECHO at each member's
 *      largest transfer, both ways;
 *   2. a brute-force database (INT8, tags, documents) and an IVF one are
 *      deployed whole on the local drive and sharded over the group
 *      (reis_group_db_deploy: entry p on member p mod 3, IVF centroids on
 *      every member);
 *   3. reis_group_search returns hits identical field by field (id, entry,
 *      Hamming distance, score, documents) to the one drive's, which equal
 *      the host reference: binary-only, INT8 rerank at the default and a
 *      larger factor, tag filtering, documents, IVF with nprobe, and the
 *      two-phase merge;
 *   4. the whole database, larger than one command's transfer, deployed
 *      on a remote drive too answers exactly as the local one.
 * Exit 77 outside a fabric run.
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
#define DID_IVF_FULL 9102
#define DID_IVF_SHARD 9111

static struct reis_db_image full, ivf;
static struct reis_queries q;
static struct fab_group fg;

/* A scan as nobody: every member seen, with its transport and NQN. */
static int unprivileged_scan(void)
{
	struct reis_disc d[FAB_MAX];
	unsigned i, seen = 0;
	int n, j;

	if (setgid(65534) || setuid(65534))
		return T_EXIT_FAIL;
	n = reis_discover(d, FAB_MAX, REIS_DISCOVER_ALL);
	if (n < 0 || n > (int)FAB_MAX)
		return T_EXIT_FAIL;
	for (i = 0; i < fg.n; i++)
		for (j = 0; j < n; j++)
			if (!strcmp(d[j].path, fg.m[i].name) &&
			    !strcmp(d[j].transport, fg.m[i].transport) &&
			    !strcmp(d[j].subsysnqn, fg.m[i].subsysnqn)) {
				printf("as nobody: %s %s %s (%s)\n", d[j].path, d[j].transport,
				       d[j].subsysnqn, d[j].err ? d[j].why : "usable");
				seen++;
				break;
			}
	return seen == fg.n ? T_EXIT_PASS : T_EXIT_FAIL;
}

/*
 * `reis --json group list` (the CLI in the guest image) reports every
 * member with its transport, remote flag and NQN. 0 when it does.
 */
static unsigned cli_list(void)
{
	static char out[1 << 16];
	FILE *p = popen("reis --json group list 2>&1", "r");
	size_t len = p ? fread(out, 1, sizeof(out) - 1, p) : 0;
	unsigned i, bad = 0;
	char want[REIS_NQN_LEN + 128];

	if (!p)
		return 1;
	out[len] = '\0';
	if (pclose(p) != 0) {
		fprintf(stderr, "reis --json group list: %s\n", out);
		return 1;
	}
	for (i = 0; i < fg.n; i++) {
		snprintf(want, sizeof(want), "\"transport\":\"%s\",\"remote\":%s,\"subsysnqn\":\"%s\"",
			 fg.m[i].transport, fg.m[i].remote ? "true" : "false", fg.m[i].subsysnqn);
		if (!strstr(out, want)) {
			fprintf(stderr, "reis group list lacks %s: %s\n", want, out);
			bad++;
		}
	}
	printf("reis --json group list: %u members with transport, remote and NQN: %s\n", fg.n,
	       bad ? "no" : "yes");
	return bad;
}

/*
 * The group's search of @sdid against one drive's search of @odid (the same
 * database whole on the local member) and the host reference, both merges.
 */
static unsigned check(const char *what, const struct reis_db_image *img, int is_ivf,
		      uint32_t odid, uint32_t sdid, const struct reis_search_opts *o)
{
	const struct reis_db_image *one[1] = { img };
	struct reis_dev *dev = reis_group_dev(fg.g, fg.local);
	struct reis_search_result drive, ref;
	struct reis_search_opts fo = *o;
	int docs = !!(o->flags & REIS_SF_DOCS), ret, phase;
	unsigned bad = 0;
	uint64_t i;

	fo.did = odid;
	ret = is_ivf ? reis_ivf_search(dev, &fo, &q, &drive) : reis_search(dev, &fo, &q, &drive);
	if (ret) {
		fprintf(stderr, "%s: one drive: %s\n", what, reis_last_error(dev));
		return 1;
	}
	REQUIRE(reis_ref_search(one, 1, is_ivf, &fo, &q, &ref) == 0);
	for (i = 0; i < (uint64_t)ref.nq * ref.k; i++)
		if (ref.hits[i].id != REIS_HIT_NONE)
			ref.hits[i].did = odid;
	bad += reis_cmp_results(what, &drive, &ref, docs);
	/* Same hits; only the did differs (the group's is @sdid). */
	for (i = 0; i < (uint64_t)drive.nq * drive.k; i++)
		if (drive.hits[i].id != REIS_HIT_NONE)
			drive.hits[i].did = sdid;
	fo.did = sdid;
	for (phase = 0; phase < 2; phase++) {
		struct reis_group_result got;
		uint64_t t0 = fab_now_ns();

		ret = reis_group_search(fg.g, is_ivf, &fo, &q, phase ? REIS_GROUP_TWO_PHASE : 0,
					&got);
		if (ret) {
			fprintf(stderr, "%s: group: %s\n", what, reis_group_errmsg(fg.g));
			bad++;
			continue;
		}
		CHECK(!got.partial && !got.missing && got.nmembers == fg.n);
		ret = (int)reis_cmp_results(what, &got.res, &drive, docs);
		bad += (unsigned)ret;
		printf("%s%s: %u queries, k %u: group of %u drives in %.2f ms (merge %.3f ms), "
		       "identical to one drive: %s\n", what, phase ? " (two-phase)" : "", q.nq,
		       o->k, fg.n, (fab_now_ns() - t0) / 1e6, got.merge_ns / 1e6,
		       ret ? "no" : "yes");
		reis_group_result_free(&got);
	}
	reis_search_result_free(&drive);
	reis_search_result_free(&ref);
	return bad;
}

/* The whole database on the local member under @odid, the group's shards under @sdid. */
static void deploy(struct reis_db_image *img, uint32_t odid, uint32_t sdid)
{
	struct reis_dev *dev = reis_group_dev(fg.g, fg.local);
	uint64_t t0;
	unsigned i;
	int ret;

	img->did = odid;
	reis_db_delete(dev, odid);
	ret = reis_db_deploy(dev, img, NULL);
	if (ret)
		fprintf(stderr, "deploy whole: %s\n", reis_last_error(dev));
	REQUIRE(ret == 0);
	img->did = sdid;
	reis_group_db_delete(fg.g, sdid);
	t0 = fab_now_ns();
	ret = reis_group_db_deploy(fg.g, img, NULL);
	if (ret)
		fprintf(stderr, "group deploy: %s\n", reis_group_errmsg(fg.g));
	REQUIRE(ret == 0);
	printf("database %u: %llu entries sharded over %u drives in %.1f ms\n", sdid,
	       (unsigned long long)img->n, fg.n, (fab_now_ns() - t0) / 1e6);
	for (i = 0; i < fg.n; i++) {
		struct reis_db_info info;

		CHECK(reis_db_info(reis_group_dev(fg.g, i), sdid, &info) == 0 &&
		      info.n == (img->n - i + fg.n - 1) / fg.n);
	}
}

int main(void)
{
	struct reis_build_opts bo;
	struct reis_search_opts so;
	uint32_t tags[N];
	uint64_t *off;
	uint8_t *docs;
	char err[256];
	float *x, *qf;
	unsigned i, nl = 0, nr = 0;
	int ret;

	fab_group_open(&fg, 1, 2, 2);
	for (i = 0; i < fg.n; i++) {
		const struct reis_group_member *m = &fg.m[i];

		CHECK(!strcmp(reis_transport(reis_group_dev(fg.g, i)), "io_uring"));
		if (m->remote) {
			CHECK(!strcmp(m->transport, "tcp") && strstr(m->subsysnqn, "isp-ssd:storage") &&
			      strstr(m->address, "traddr=169.254.") && m->ctrl[0]);
			nr++;
		} else {
			CHECK(!strcmp(m->transport, "pcie") && m->subsysnqn[0] && m->ctrl[0]);
			nl++;
		}
	}
	CHECK(nl == 1 && nr == 2 && fg.n == 3);
	/* The data path at the largest transfer each member reports. */
	for (i = 0; i < fg.n; i++) {
		struct reis_dev *dev = reis_group_dev(fg.g, i);
		uint32_t mx = reis_max_xfer(dev);
		int h2c = reis_echo(dev, REIS_DIR_H2C, 7 + i, NULL, mx);
		int c2h = reis_echo(dev, REIS_DIR_C2H, 9 + i, NULL, mx);

		printf("echo %u bytes both ways on %s: %s, %s\n", mx, fg.m[i].name,
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

	if (access("/bin/reis", X_OK) == 0)
		CHECK_EQ_U64(cli_list(), 0);
	else
		printf("no reis CLI in the image: group list not checked\n");

	x = synth_vectors(71, N, DIM, 24, 0.5f);
	docs = synth_docs(73, N, 120, &off);
	REQUIRE(x && docs);
	for (i = 0; i < N; i++)
		tags[i] = i % 3;
	memset(&bo, 0, sizeof(bo));
	bo.did = DID_FULL;
	bo.kind = REIS_DB_BF;
	bo.flags = REIS_BUILD_INT8;
	bo.tags = tags;
	bo.docs = docs;
	bo.doc_offsets = off;
	bo.name = "fabric-full";
	if (reis_db_build(&bo, x, N, DIM, &full, err, sizeof(err))) {
		fprintf(stderr, "build: %s\n", err);
		return T_EXIT_FAIL;
	}
	bo.did = DID_IVF_FULL;
	bo.kind = REIS_DB_IVF;
	bo.nlist = 24;
	bo.km.max_iter = 4;
	bo.docs = NULL;
	bo.doc_offsets = NULL;
	bo.name = "fabric-ivf";
	if (reis_db_build(&bo, x, N, DIM, &ivf, err, sizeof(err))) {
		fprintf(stderr, "build IVF: %s\n", err);
		return T_EXIT_FAIL;
	}
	qf = synth_vectors(72, NQ, DIM, 24, 0.5f);
	REQUIRE(qf && reis_encode_queries(full.quant, qf, NQ, &q) == 0);

	deploy(&full, DID_FULL, DID_SHARD);
	memset(&so, 0, sizeof(so));
	so.k = 10;
	so.flags = REIS_SF_NO_RERANK;
	CHECK_EQ_U64(check("binary top-10", &full, 0, DID_FULL, DID_SHARD, &so), 0);
	so.flags = 0;
	CHECK_EQ_U64(check("rerank top-10", &full, 0, DID_FULL, DID_SHARD, &so), 0);
	so.k = 40;
	so.rerank_factor = 25;	/* 1000 candidates: most of a member's shard */
	CHECK_EQ_U64(check("rerank x25 top-40", &full, 0, DID_FULL, DID_SHARD, &so), 0);
	so.k = 5;
	so.rerank_factor = 0;
	so.flags = REIS_SF_TAG;
	so.tag = 2;
	CHECK_EQ_U64(check("tag 2 rerank top-5", &full, 0, DID_FULL, DID_SHARD, &so), 0);
	so.flags = REIS_SF_DOCS;
	so.k = 8;
	CHECK_EQ_U64(check("documents top-8", &full, 0, DID_FULL, DID_SHARD, &so), 0);

	deploy(&ivf, DID_IVF_FULL, DID_IVF_SHARD);
	memset(&so, 0, sizeof(so));
	so.k = 10;
	so.nprobe = 4;
	CHECK_EQ_U64(check("IVF nprobe 4 rerank top-10", &ivf, 1, DID_IVF_FULL, DID_IVF_SHARD,
			   &so), 0);
	so.nprobe = 9;
	so.flags = REIS_SF_NO_RERANK | REIS_SF_TAG;
	so.tag = 1;
	CHECK_EQ_U64(check("IVF nprobe 9 tag 1 binary top-10", &ivf, 1, DID_IVF_FULL,
			   DID_IVF_SHARD, &so), 0);

	/* 4. the same database on a remote drive, sent in several commands */
	for (i = 0; i < fg.n && !fg.m[i].remote; i++)
		;
	REQUIRE(i < fg.n);
	{
		struct reis_dev *rdev = reis_group_dev(fg.g, i);
		struct reis_dev *ldev = reis_group_dev(fg.g, fg.local);

		full.did = DID_FULL;
		reis_db_delete(rdev, DID_FULL);
		ret = reis_db_deploy(rdev, &full, NULL);
		if (ret)
			fprintf(stderr, "deploy full on %s: %s\n", fab_name(&fg.m[i]),
				reis_last_error(rdev));
		CHECK(ret == 0);
		CHECK(reis_max_xfer(rdev) < full.n * (DIM / 8 + DIM));
		if (!ret) {
			struct reis_search_result a, b;

			memset(&so, 0, sizeof(so));
			so.did = DID_FULL;
			so.k = 10;
			so.flags = REIS_SF_DOCS;
			CHECK(reis_search(ldev, &so, &q, &a) == 0);
			CHECK(reis_search(rdev, &so, &q, &b) == 0);
			CHECK_EQ_U64(reis_cmp_results("remote whole db", &b, &a, 1), 0);
			reis_search_result_free(&a);
			reis_search_result_free(&b);
			CHECK(reis_db_delete(rdev, DID_FULL) == 0);
		}
		CHECK(reis_db_delete(ldev, DID_FULL) == 0);
		CHECK(reis_db_delete(ldev, DID_IVF_FULL) == 0);
	}
	CHECK(reis_group_db_delete(fg.g, DID_SHARD) == 0);
	CHECK(reis_group_db_delete(fg.g, DID_IVF_SHARD) == 0);
	reis_group_close(fg.g);
	reis_queries_free(&q);
	reis_db_image_free(&full);
	reis_db_image_free(&ivf);
	free(x);
	free(qf);
	free(docs);
	free(off);
	return t_result();
}
