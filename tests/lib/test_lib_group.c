/* SPDX-License-Identifier: MIT */
/*
 * test_lib_group - a REIS database sharded over a group of in-process
 * drives answers exactly (==, hit by hit: id, entry, Hamming, score,
 * documents, padding) what one drive holding all of it answers, for brute
 * force and IVF, with caller ids or without, tags, distance filtering, no
 * rerank, documents, nprobe or target recall, batches split into many
 * commands in flight per drive, and a mixed-preset group; the two-phase
 * merge (binary pass first) gives the same hits. Faults: a
 * deploy failing on one member leaves no shard on the others and names
 * the drive; a member without the database fails the search naming it,
 * and with REIS_GROUP_PARTIAL the merge of the others is flagged partial;
 * so does a member whose commands fail mid-query (its ticket held).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "libreis_tools.h"
#include "reis_cmp.h"
#include "reis_synth.h"

#define DIM 128
#define N 2003
#define NQ 150
#define NM 4

static struct reis_dev *open_drive(const char *preset, uint32_t max_xfer, uint32_t workers)
{
	struct reis_inproc_opts io;
	struct reis_dev *dev;

	memset(&io, 0, sizeof(io));
	io.preset = preset;
	io.max_xfer = max_xfer;
	io.workers = workers;
	io.qdepth = 64;
	REQUIRE(reis_open_inproc(&io, &dev) == 0);
	return dev;
}

static struct reis_group *open_group(unsigned n, const char *const *presets, uint32_t max_xfer)
{
	struct reis_dev *devs[REIS_GROUP_MAX];
	struct reis_group *g;
	unsigned i;

	for (i = 0; i < n; i++)
		devs[i] = open_drive(presets ? presets[i] : NULL, max_xfer, i % 2 ? 2 : 0);
	REQUIRE(reis_group_adopt(devs, NULL, n, &g) == 0);
	CHECK_EQ_U64(reis_group_size(g), n);
	return g;
}

/* The group's search against one drive's (and the host reference). */
static unsigned compare(struct reis_group *g, struct reis_dev *one,
			const struct reis_db_image *img, int ivf,
			const struct reis_search_opts *o, const struct reis_queries *q)
{
	const struct reis_db_image *imgs[1] = { img };
	struct reis_search_result want, ref;
	struct reis_group_result got;
	int docs = !!(o->flags & REIS_SF_DOCS), ret, phase;
	unsigned bad;

	ret = ivf ? reis_ivf_search(one, o, q, &want) : reis_search(one, o, q, &want);
	REQUIRE(ret == 0);
	REQUIRE(reis_ref_search(imgs, 1, ivf, o, q, &ref) == 0);
	bad = reis_cmp_results("one drive vs reference", &want, &ref, docs);
	for (phase = 0; phase < 2; phase++) {
		ret = reis_group_search(g, ivf, o, q, phase ? REIS_GROUP_TWO_PHASE : 0, &got);
		if (ret)
			fprintf(stderr, "group search: %s\n", reis_group_errmsg(g));
		REQUIRE(ret == 0);
		CHECK(!got.partial && !got.missing);
		bad += reis_cmp_results(phase ? "two-phase group vs one drive" :
					"group vs one drive", &got.res, &want, docs);
		CHECK(got.hits_moved > 0 && got.search_ns > 0 && got.search_nj > 0);
		CHECK(got.res.ncmds >= reis_group_size(g));
		reis_group_result_free(&got);
	}
	reis_search_result_free(&want);
	reis_search_result_free(&ref);
	return bad;
}

static unsigned sweep(struct reis_group *g, struct reis_dev *one, const struct reis_db_image *img,
		      int ivf, const struct reis_queries *q)
{
	static const uint32_t ks[] = { 1, 10, 37 };
	unsigned bad = 0, i, v;

	for (i = 0; i < 3; i++)
		for (v = 0; v < 6; v++) {
			struct reis_search_opts o;

			memset(&o, 0, sizeof(o));
			o.did = img->did;
			o.k = ks[i];
			o.rerank_factor = ks[i] == 37 ? 4 : 0;
			if (v == 1)
				o.flags |= REIS_SF_NO_RERANK;
			if (v == 2) {
				o.flags |= REIS_SF_TAG;
				o.tag = 1;
			}
			if (v == 3)
				o.flags |= REIS_SF_DOCS;
			if (v == 4)
				o.df_threshold = DIM / 2 - 4;
			if (v == 5)
				o.flags |= REIS_SF_NO_DF | REIS_SF_NO_PL;
			if (ivf) {
				o.nprobe = v == 5 ? 0 : 3 + v;
				o.target_recall = v == 5 ? 9000 : 0;
			}
			bad += compare(g, one, img, ivf, &o, q);
		}
	return bad;
}

/* A deploy that fails on member 2 leaves nothing on 0 and 1. */
static void check_rollback(struct reis_db_image *img)
{
	struct reis_group *g = open_group(NM, NULL, 0);
	struct reis_db_image sh;
	struct reis_db_info list[4];
	int ret;

	REQUIRE(reis_group_shard_image(img, 2, NM, &sh) == 0);
	REQUIRE(reis_db_deploy(reis_group_dev(g, 2), &sh, NULL) == 0);
	reis_db_image_free(&sh);
	ret = reis_group_db_deploy(g, img, NULL);
	CHECK(ret == -EEXIST);
	CHECK(reis_group_failed(g) == 2);
	CHECK(strstr(reis_group_errmsg(g), "drive2") != NULL);
	CHECK(reis_db_list(reis_group_dev(g, 0), list, 4) == 0);
	CHECK(reis_db_list(reis_group_dev(g, 1), list, 4) == 0);
	CHECK(reis_db_list(reis_group_dev(g, 3), list, 4) == 0);
	CHECK(reis_db_list(reis_group_dev(g, 2), list, 4) == 1);	/* not ours */
	reis_group_close(g);
}

/*
 * A member that fails mid-query: its ticket is held by a published trace
 * (ISP_TRACE_ARM) and every ticket it draws is forced to that one, so its
 * searches fail with ISP Ticket In Use after the retries (command-set §6).
 */
static void check_midquery(struct reis_db_image *img, const struct reis_queries *q)
{
	struct reis_group *g = open_group(NM, NULL, 0);
	struct reis_dev *d1 = reis_group_dev(g, 1);
	struct reis_search_result one;
	struct reis_search_opts o;
	struct reis_group_result r;
	struct reis_queries q1 = *q;
	int ret;

	REQUIRE(reis_group_db_deploy(g, img, NULL) == 0);
	/* the ticket is held by a trace, which the standard path has not */
	if (reis_path_cp(d1)) {
		reis_group_close(g);
		return;
	}
	memset(&o, 0, sizeof(o));
	o.did = img->did;
	o.k = 10;
	q1.nq = 1;
	REQUIRE(reis_trace_arm(d1, 0x7777, REIS_OP_SEARCH) == 0);
	REQUIRE(reis_search(d1, &o, &q1, &one) == 0);	/* publishes the trace */
	reis_search_result_free(&one);
	REQUIRE(reis_ticket_force(d1, 0x7777, 1000) == 0);
	ret = reis_group_search(g, 0, &o, q, 0, &r);
	CHECK(ret < 0 && reis_group_failed(g) == 1);
	CHECK(strstr(reis_group_errmsg(g), "drive1") != NULL);
	CHECK(r.res.hits == NULL);
	ret = reis_group_search(g, 0, &o, q, REIS_GROUP_PARTIAL, &r);
	CHECK(ret < 0 && r.partial && r.missing == 1u << 1);
	CHECK(r.res.hits != NULL && r.res.nhits[0] == o.k);
	reis_group_result_free(&r);
	REQUIRE(reis_ticket_force(d1, 0, 0) == 0);
	ret = reis_group_search(g, 0, &o, q, 0, &r);
	CHECK(ret == 0);	/* random tickets again: the member answers */
	reis_group_result_free(&r);
	reis_group_close(g);
}

/* A member without the database: an error naming it; partial flagged. */
static void check_missing(struct reis_db_image *img, const struct reis_queries *q)
{
	struct reis_group *g = open_group(NM, NULL, 0);
	struct reis_search_opts o;
	struct reis_group_result r;
	unsigned i, none = 0;
	int ret;

	REQUIRE(reis_group_db_deploy(g, img, NULL) == 0);
	REQUIRE(reis_db_delete(reis_group_dev(g, 3), img->did) == 0);
	memset(&o, 0, sizeof(o));
	o.did = img->did;
	o.k = 10;
	ret = reis_group_search(g, 0, &o, q, 0, &r);
	CHECK(ret == -ENOENT);
	CHECK(reis_group_failed(g) == 3);
	CHECK(strstr(reis_group_errmsg(g), "drive3") != NULL);
	CHECK(r.res.hits == NULL);
	/* With REIS_GROUP_PARTIAL the others are merged, flagged partial. */
	ret = reis_group_search(g, 0, &o, q, REIS_GROUP_PARTIAL, &r);
	CHECK(ret == -ENOENT && reis_group_failed(g) == 3);
	CHECK(r.partial && r.missing == 1u << 3);
	CHECK(r.part_err[3] == -ENOENT && r.part_err[0] == 0);
	REQUIRE(r.res.hits != NULL);
	for (i = 0; i < (unsigned)q->nq * o.k; i++)
		none += r.res.hits[i].id == REIS_HIT_NONE || r.res.hits[i].entry % NM == 3;
	CHECK_EQ_U64(none, 0);
	reis_group_result_free(&r);
	/* Nobody has it: an error even with REIS_GROUP_PARTIAL. */
	for (i = 0; i < 3; i++)
		REQUIRE(reis_db_delete(reis_group_dev(g, i), img->did) == 0);
	CHECK(reis_group_search(g, 0, &o, q, REIS_GROUP_PARTIAL, &r) == -ENOENT);
	CHECK(r.res.hits == NULL);
	CHECK(reis_group_db_delete(g, img->did) == 0);	/* -ENOENT is fine */
	reis_group_close(g);
	check_midquery(img, q);
}

int main(void)
{
	static const char *const mixed[NM] = { "reis-ssd1", "reis-ssd2", "reis-ssd1",
					       "reis-ssd2" };
	float *x = synth_vectors(11, N, DIM, 25, 0.5f), *qf = synth_vectors(12, NQ, DIM, 25, 0.5f);
	uint64_t *off, *ids = malloc(N * sizeof(uint64_t)), i;
	uint8_t *docs = synth_docs(13, N, 300, &off);
	uint32_t *tags = malloc(N * sizeof(uint32_t));
	struct reis_db_image img[3];
	struct reis_build_opts bo;
	struct reis_queries q;
	struct reis_group *g;
	struct reis_dev *one;
	char err[256];
	unsigned d;

	REQUIRE(x && qf && docs && tags && ids);
	for (i = 0; i < N; i++) {
		tags[i] = (uint32_t)(i % 3);
		ids[i] = 1000000 + i * 7;
	}
	memset(&bo, 0, sizeof(bo));
	bo.flags = REIS_BUILD_INT8;
	bo.docs = docs;
	bo.doc_offsets = off;
	bo.tags = tags;
	bo.did = 1;
	bo.kind = REIS_DB_BF;
	REQUIRE(reis_db_build(&bo, x, N, DIM, &img[0], err, sizeof(err)) == 0);
	bo.did = 2;
	bo.ids = ids;
	REQUIRE(reis_db_build(&bo, x, N, DIM, &img[1], err, sizeof(err)) == 0);
	bo.did = 3;
	bo.ids = NULL;
	bo.kind = REIS_DB_IVF;
	bo.nlist = 40;
	bo.km.max_iter = 5;
	bo.calib_queries = qf;
	bo.ncalib_queries = 50;
	REQUIRE(reis_db_build(&bo, x, N, DIM, &img[2], err, sizeof(err)) == 0);
	REQUIRE(reis_encode_queries(img[0].quant, qf, NQ, &q) == 0);

	/* Placement: p mod N, every entry exactly once. */
	{
		uint64_t seen = 0, loc;
		struct reis_db_image sh;

		for (d = 0; d < NM; d++) {
			REQUIRE(reis_group_shard_image(&img[2], d, NM, &sh) == 0);
			seen += sh.n;
			CHECK_EQ_U64(sh.nlist, img[2].nlist);
			CHECK(sh.n == N / NM || sh.n == N / NM + 1);
			reis_db_image_free(&sh);
		}
		CHECK_EQ_U64(seen, N);
		CHECK_EQ_U64(reis_group_shard_of(NM, 2002, &loc), 2);
		CHECK_EQ_U64(loc, 500);
	}

	one = open_drive(NULL, 0, 0);
	for (d = 0; d < 3; d++)
		REQUIRE(reis_db_deploy(one, &img[d], NULL) == 0);
	/* Small commands: every member's share is many commands in flight. */
	g = open_group(NM, NULL, 32768);
	CHECK(!reis_group_mixed(g));
	for (d = 0; d < 3; d++)
		REQUIRE(reis_group_db_deploy(g, &img[d], NULL) == 0);
	for (d = 0; d < 3; d++)
		CHECK_EQ_U64(sweep(g, one, &img[d], d == 2, &q), 0);
	{
		struct reis_search_opts o;
		struct reis_group_result r;

		memset(&o, 0, sizeof(o));
		o.did = 1;
		o.k = 200;	/* 10 * 200 candidates per member exceed REIS_MAX_K */
		CHECK(reis_group_search(g, 0, &o, &q, 0, &r) == -E2BIG);
		o.flags = REIS_SF_GROUP;
		o.k = 10;
		CHECK(reis_group_search(g, 0, &o, &q, 0, &r) == -EINVAL);
	}
	for (d = 0; d < 3; d++)
		CHECK(reis_group_db_delete(g, img[d].did) == 0);
	reis_group_close(g);

	/* Mixed presets, and groups of 1, 2 and 3 members. */
	g = open_group(NM, mixed, 0);
	CHECK(reis_group_mixed(g) == 1);
	REQUIRE(reis_group_db_deploy(g, &img[2], NULL) == 0);
	CHECK_EQ_U64(sweep(g, one, &img[2], 1, &q), 0);
	reis_group_close(g);
	for (d = 1; d <= 3; d++) {
		g = open_group(d, NULL, 0);
		REQUIRE(reis_group_db_deploy(g, &img[0], NULL) == 0);
		CHECK_EQ_U64(sweep(g, one, &img[0], 0, &q), 0);
		reis_group_close(g);
	}

	check_rollback(&img[0]);
	check_missing(&img[0], &q);
	{
		const char *bad[2] = { "/nonexistent/ng9n1", "/nonexistent/ng8n1" };

		CHECK(reis_group_open(bad, 2, 0, &g) < 0);
		CHECK(strstr(reis_group_errmsg(NULL), "/nonexistent/ng9n1") != NULL);
	}

	reis_close(one);
	reis_queries_free(&q);
	for (d = 0; d < 3; d++)
		reis_db_image_free(&img[d]);
	free(x);
	free(qf);
	free(docs);
	free(off);
	free(tags);
	free(ids);
	return t_result();
}
