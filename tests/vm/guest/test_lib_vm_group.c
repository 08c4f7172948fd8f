/* SPDX-License-Identifier: MIT */
/*
 * test_lib_vm_group - a device group of the VM's ISP drives (the 4-drive
 * boot of run-vm-tests.sh, ISP_DRIVES=4): discovery finds every member;
 * one REIS database sharded over them answers brute-force and IVF searches
 * identically (==, hit by hit) to the same database on one drive; one
 * RecFlash table sharded by rows pools bags identically to one drive with
 * the exact combine; the scheduled mode's host alone, reading the shards
 * from the members' namespaces with NVMe Reads, gives the same hits; a deploy that fails on the last member leaves no shard
 * on the others. Exit 77 with fewer than two ISP drives.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "libreis_tools.h"
#include "reis_cmp.h"
#include "reis_synth.h"
#include "rf_util.h"

#define DIM 128
#define N 1500
#define NQ 64
#define DID_ONE 0x6100
#define DID_BF 0x6101
#define DID_IVF 0x6102
#define TID_ONE 0x6200
#define TID_G 0x6201
#define ROWS 4000

static void reis_part(struct reis_group *g)
{
	float *x = synth_vectors(51, N, DIM, 20, 0.5f), *qf = synth_vectors(52, NQ, DIM, 20, 0.5f);
	struct reis_dev *one = reis_group_dev(g, 0);
	struct reis_db_image img[2];
	struct reis_build_opts bo;
	struct reis_queries q;
	char err[256];
	unsigned i;

	REQUIRE(x && qf);
	memset(&bo, 0, sizeof(bo));
	bo.flags = REIS_BUILD_INT8;
	bo.kind = REIS_DB_BF;
	bo.did = DID_BF;
	REQUIRE(reis_db_build(&bo, x, N, DIM, &img[0], err, sizeof(err)) == 0);
	bo.kind = REIS_DB_IVF;
	bo.did = DID_IVF;
	bo.nlist = 30;
	bo.km.max_iter = 4;
	REQUIRE(reis_db_build(&bo, x, N, DIM, &img[1], err, sizeof(err)) == 0);
	REQUIRE(reis_encode_queries(img[0].quant, qf, NQ, &q) == 0);
	for (i = 0; i < 2; i++) {
		struct reis_search_opts o;
		struct reis_search_result want;
		struct reis_group_result got;
		uint32_t did = img[i].did;
		int ret;

		ret = reis_group_db_deploy(g, &img[i], NULL);
		if (ret)
			fprintf(stderr, "group deploy: %s\n", reis_group_errmsg(g));
		REQUIRE(ret == 0);
		/* The same database whole on member 0, under another did. */
		img[i].did = DID_ONE;
		REQUIRE(reis_db_deploy(one, &img[i], NULL) == 0);
		memset(&o, 0, sizeof(o));
		o.k = 10;
		o.nprobe = i ? 5 : 0;
		o.did = DID_ONE;
		REQUIRE((i ? reis_ivf_search(one, &o, &q, &want) : reis_search(one, &o, &q, &want)) == 0);
		o.did = did;
		ret = reis_group_search(g, (int)i, &o, &q, 0, &got);
		if (ret)
			fprintf(stderr, "group search: %s\n", reis_group_errmsg(g));
		REQUIRE(ret == 0);
		/* Same hits; only the did differs (the group's is @did). */
		for (ret = 0; ret < (int)(NQ * o.k); ret++)
			if (want.hits[ret].id != REIS_HIT_NONE)
				want.hits[ret].did = did;
		CHECK_EQ_U64(reis_cmp_results(i ? "vm group IVF" : "vm group BF", &got.res, &want, 0), 0);
		printf("%s: %u drives, modeled %.3f ms (one drive %.3f ms), merge %.3f ms\n",
		       i ? "IVF" : "BF", reis_group_size(g), got.search_ns / 1e6,
		       (want.search_ns + want.read_ns) / 1e6, got.merge_ns / 1e6);
		reis_group_result_free(&got);
		/* The host alone, its data read from the members' namespaces with
		 * NVMe Reads through io_uring (docs/group.md, block reads). */
		{
			struct reis_group_sched_opts so;
			struct reis_group_sched_report rep;

			memset(&so, 0, sizeof(so));
			so.flags = REIS_GROUP_SCHED_HOST_ONLY;
			ret = reis_group_sched_search(g, NULL, (int)i, &o, &q, &so, &got, &rep);
			if (ret)
				fprintf(stderr, "host share: %s\n", reis_group_errmsg(g));
			REQUIRE(ret == 0);
			CHECK_EQ_U64(reis_cmp_results(i ? "vm host share IVF" : "vm host share BF",
						      &got.res, &want, 0), 0);
			CHECK(rep.bytes_to_host > 0 && rep.bytes_inside == 0);
			printf("%s host share: %llu bytes read by NVMe Read in %.1f ms\n",
			       i ? "IVF" : "BF", (unsigned long long)rep.bytes_to_host,
			       rep.host.read_ns / 1e6);
			reis_group_result_free(&got);
		}
		reis_search_result_free(&want);
		CHECK(reis_db_delete(one, DID_ONE) == 0);
		CHECK(reis_group_db_delete(g, did) == 0);
		img[i].did = did;
	}
	/* All or nothing: the last member already has the did. */
	{
		struct reis_db_image sh;
		struct reis_db_info info;
		unsigned last = reis_group_size(g) - 1;

		REQUIRE(reis_group_shard_image(&img[0], last, reis_group_size(g), &sh) == 0);
		REQUIRE(reis_db_deploy(reis_group_dev(g, last), &sh, NULL) == 0);
		reis_db_image_free(&sh);
		CHECK(reis_group_db_deploy(g, &img[0], NULL) == -EEXIST);
		CHECK(reis_group_failed(g) == (int)last);
		for (i = 0; i < last; i++)
			CHECK(reis_db_info(reis_group_dev(g, i), DID_BF, &info) == -ENOENT);
		CHECK(reis_db_delete(reis_group_dev(g, last), DID_BF) == 0);
	}
	reis_queries_free(&q);
	reis_db_image_free(&img[0]);
	reis_db_image_free(&img[1]);
	free(x);
	free(qf);
}

static void rf_part(struct reis_group *g)
{
	struct reis_dev *one = reis_group_dev(g, 0);
	struct reis_group_sls_info gi;
	struct reis_rf_table d;
	struct rf_batch bt;
	struct rf_tbl t;
	float *got, *want;

	REQUIRE(rf_tbl_make(&t, TID_ONE, ROWS, 32, REIS_RF_FP32, REIS_RF_RECFLASH, 61) == 0);
	REQUIRE(rf_tbl_deploy(one, &t, NULL) == 0);
	memset(&d, 0, sizeof(d));
	d.tid = TID_G;
	d.rows = ROWS;
	d.dim = 32;
	d.dtype = REIS_RF_FP32;
	d.mode = REIS_RF_RECFLASH;
	d.data = t.wire;
	REQUIRE(reis_group_rf_deploy(g, &d, NULL) == 0);
	rf_batch_make(&bt, 62, 200, 30, 0, ROWS, 1);
	got = malloc(200 * 32 * sizeof(float));
	want = malloc(200 * 32 * sizeof(float));
	REQUIRE(got && want);
	REQUIRE(reis_rf_sls(one, TID_ONE, 32, &bt.b, REIS_RF_SLS_WEIGHTED, want, NULL) == 0);
	REQUIRE(reis_group_rf_sls(g, TID_G, ROWS, 32, &bt.b,
				  REIS_RF_SLS_WEIGHTED | REIS_GROUP_SLS_EXACT, got, &gi) == 0);
	CHECK_EQ_U64(rf_diff(got, want, 200 * 32), 0);
	printf("SLS: %u drives, %llu partial vectors to the host, modeled %.3f ms\n",
	       gi.nmembers, (unsigned long long)gi.pieces, gi.model_ns / 1e6);
	CHECK(reis_group_rf_delete(g, TID_G) == 0);
	CHECK(reis_rf_delete(one, TID_ONE) == 0);
	rf_batch_free(&bt);
	free(t.wire);
	free(got);
	free(want);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* A group opened from paths looks its members' transport facts up only
 * when asked (docs/group.md, Opening a group), and gets discovery's. */
static void paths_part(struct reis_group *disc)
{
	const char *paths[REIS_GROUP_MAX];
	struct reis_group_member a[REIS_GROUP_MAX], b;
	struct reis_group *g;
	unsigned i, n = reis_group_size(disc);
	double t0, t_open, t_info, t_disc;

	for (i = 0; i < n; i++) {
		REQUIRE(reis_group_member_info(disc, i, &a[i]) == 0);
		paths[i] = a[i].name;
	}
	t0 = now_ms();
	REQUIRE(reis_group_open(paths, n, 0, &g) == 0);
	t_open = now_ms() - t0;
	t0 = now_ms();
	for (i = 0; i < n; i++) {
		REQUIRE(reis_group_member_info(g, i, &b) == 0);
		CHECK(!strcmp(b.transport, "pcie") && !strcmp(b.transport, a[i].transport));
		CHECK(b.ctrl[0] && !strcmp(b.ctrl, a[i].ctrl) && !strcmp(b.address, a[i].address));
	}
	t_info = now_ms() - t0;
	reis_group_close(g);
	t0 = now_ms();
	REQUIRE(reis_group_discover(0, &g) == 0);
	t_disc = now_ms() - t0;
	reis_group_close(g);
	printf("open from %u paths %.1f ms, first member info (the lookup) %.1f ms; "
	       "discover %.1f ms\n", n, t_open, t_info, t_disc);
}

int main(void)
{
	struct reis_group *g;
	struct reis_group_member m;
	unsigned i;
	int ret = reis_group_discover(0, &g);

	if (ret == -ENODEV)
		SKIP("no ISP drive");
	if (ret)
		fprintf(stderr, "discover: %s\n", reis_group_errmsg(NULL));
	REQUIRE(ret == 0);
	if (reis_group_size(g) < 2) {
		reis_group_close(g);
		SKIP("one ISP drive: the 4-drive boot (ISP_DRIVES=4) runs this test");
	}
	for (i = 0; i < reis_group_size(g); i++) {
		REQUIRE(reis_group_member_info(g, i, &m) == 0);
		printf("member %u: %s (%s)\n", i, m.name, m.preset);
	}
	CHECK(!reis_group_mixed(g));
	paths_part(g);
	reis_part(g);
	rf_part(g);
	reis_group_close(g);
	return t_result();
}
