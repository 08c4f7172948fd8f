/* SPDX-License-Identifier: MIT */
/*
 * test_reis_e2e - REIS end to end through libreis and the in-process drive:
 * deploy brute-force and IVF databases (INT8, tags, ids, documents) built
 * from synthetic embeddings, search them with every option (rerank factor,
 * DF threshold, nprobe and target recall, tags, time-partition groups,
 * NO_RERANK, NO_DF/NO_PL/NO_MPIBC, documents) and require exactly the hits
 * of the host reference; documents byte-identical, DOC_READ (also through
 * each hit's entry index when ids are the caller's), list/info,
 * progress, delete; then close and reopen the drive on the same backing
 * file and require the same databases and the same results.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "libreis_tools.h"
#include "reis_cmp.h"
#include "reis_synth.h"

#define DIM 256
#define N 4000
#define NQ 64

static char backing[64];

struct prog {
	unsigned calls;
	uint64_t last, total;
	int monotonic;
};

static void on_progress(void *arg, uint64_t done, uint64_t total)
{
	struct prog *p = arg;

	p->monotonic &= done >= p->last && done <= total;
	p->calls++;
	p->last = done;
	p->total = total;
}

static struct reis_dev *open_drive(void)
{
	struct reis_inproc_opts o;
	struct reis_dev *dev;
	char err[256] = "";
	int ret;

	memset(&o, 0, sizeof(o));
	o.backing = backing;
	o.workers = 2;
	/* Modeled times must not depend on how fast this machine runs: on the
	 * wall clock a command can queue behind the modeled tail of the one
	 * before it (annotate mode), so the No-OPT comparison below flipped
	 * under load. The virtual clock runs commands back to back. */
	o.flags = REIS_INPROC_VCLOCK;
	o.errbuf = err;
	o.errlen = sizeof(err);
	ret = reis_open_inproc(&o, &dev);
	if (ret)
		fprintf(stderr, "open: %s\n", err);
	REQUIRE(ret == 0);
	return dev;
}

/* Search on the drive and with the reference; they must agree exactly. */
static void both(struct reis_dev *dev, const char *what, int ivf,
		 const struct reis_db_image *const *imgs, unsigned nimg,
		 const struct reis_search_opts *o, const struct reis_queries *q,
		 struct reis_search_result *keep)
{
	struct reis_search_result got, want;
	int ret;

	ret = ivf ? reis_ivf_search(dev, o, q, &got) : reis_search(dev, o, q, &got);
	if (ret)
		fprintf(stderr, "%s: %s\n", what, reis_last_error(dev));
	CHECK(ret == 0);
	REQUIRE(reis_ref_search(imgs, nimg, ivf, o, q, &want) == 0);
	if (!ret) {
		CHECK_EQ_U64(reis_cmp_results(what, &got, &want, !!(o->flags & REIS_SF_DOCS)), 0);
		CHECK(got.search_ns > 0 && got.ncmds >= 2);
		CHECK(got.ndbs == nimg);
		if (ivf)
			CHECK_EQ_U64(got.nprobe, want.nprobe);
		/* the standard path reads documents during the search */
		if (o->flags & REIS_SF_DOCS)
			CHECK(got.docs_bytes > 0 && (got.read_ns > 0 || reis_path_cp(dev)));
	}
	if (keep && !ret)
		*keep = got;
	else if (!ret)
		reis_search_result_free(&got);
	reis_search_result_free(&want);
}

static void build(struct reis_db_image *img, const float *x, uint64_t n, uint32_t did,
		  uint32_t kind, const uint8_t *docs, const uint64_t *off, const uint32_t *tags,
		  const float *cq, uint32_t ncq)
{
	struct reis_build_opts o;
	char err[256];

	memset(&o, 0, sizeof(o));
	o.did = did;
	o.kind = kind;
	o.flags = REIS_BUILD_INT8;
	o.docs = docs;
	o.doc_offsets = off;
	o.tags = tags;
	o.nlist = kind == REIS_DB_IVF ? 40 : 0;
	o.km.seed = did;
	o.km.max_iter = 8;
	o.calib_queries = cq;
	o.ncalib_queries = ncq;
	snprintf(err, sizeof(err), "db-%u", did);
	o.name = err;
	if (reis_db_build(&o, x, n, DIM, img, err, sizeof(err)))
		fprintf(stderr, "build: %s\n", err);
	REQUIRE(img->n == n);
}

int main(void)
{
	float *x = synth_vectors(1, N, DIM, 40, 0.5f), *qf = synth_vectors(2, NQ, DIM, 40, 0.5f);
	float *cq = synth_vectors(3, 100, DIM, 40, 0.5f);
	uint64_t *off, i;
	uint8_t *docs = synth_docs(4, N, 900, &off);
	uint32_t *tags = malloc(N * sizeof(*tags));
	struct reis_db_image bf, ivf, part[3];
	const struct reis_db_image *one[1], *grp[2];
	struct reis_search_opts so;
	struct reis_search_result keep_bf, keep_ivf, again;
	struct reis_queries q;
	struct reis_db_info info[8];
	struct reis_deploy_opts dopts;
	struct reis_dev *dev;
	struct prog pr = { 0, 0, 0, 1 };
	uint8_t doc[4096];
	int ret;

	REQUIRE(x && qf && cq && docs && tags);
	snprintf(backing, sizeof(backing), "/tmp/test_reis_e2e.%d.flash", (int)getpid());
	unlink(backing);
	for (i = 0; i < N; i++)
		tags[i] = (uint32_t)(i * 7 % 4);
	build(&bf, x, N, 11, REIS_DB_BF, docs, off, tags, NULL, 0);
	build(&ivf, x, N, 12, REIS_DB_IVF, docs, off, tags, cq, 100);
	CHECK(ivf.ncalib >= 3);
	/* Time partitions: three slices of the rows, group 77. */
	for (i = 0; i < 3; i++) {
		uint64_t first = i * (N / 3), cnt = N / 3;

		build(&part[i], x + first * DIM, cnt, 20 + (uint32_t)i, REIS_DB_BF, NULL, NULL,
		      NULL, NULL, 0);
		part[i].group = 77;
		part[i].timestamp = 100 * (i + 1);
	}
	REQUIRE(reis_encode_queries(bf.quant, qf, NQ, &q) == 0);

	dev = open_drive();
	memset(&dopts, 0, sizeof(dopts));
	dopts.progress = on_progress;
	dopts.arg = &pr;
	dopts.chunk = 64 << 10;		/* many chunks per section */
	ret = reis_db_deploy(dev, &bf, &dopts);
	if (ret)
		fprintf(stderr, "deploy bf: %s\n", reis_last_error(dev));
	REQUIRE(ret == 0);
	CHECK(pr.calls > 10 && pr.monotonic && pr.last == pr.total && pr.total > N * DIM);
	ret = reis_db_deploy(dev, &ivf, NULL);
	if (ret)
		fprintf(stderr, "deploy ivf: %s\n", reis_last_error(dev));
	REQUIRE(ret == 0);
	for (i = 0; i < 3; i++)
		REQUIRE(reis_db_deploy(dev, &part[i], NULL) == 0);

	/* list / info */
	CHECK(reis_db_list(dev, info, 8) == 5);
	CHECK(reis_db_list(dev, info, 2) == 5);
	CHECK(reis_db_list(dev, NULL, 0) == 5);
	REQUIRE(reis_db_info(dev, 12, &info[0]) == 0);
	CHECK(info[0].state == REIS_DB_READY && info[0].kind == REIS_DB_IVF &&
	      info[0].n == N && info[0].dim == DIM && info[0].nlist == 40 &&
	      info[0].ncalib == ivf.ncalib && !strcmp(info[0].name, "db-12") &&
	      info[0].flags == (REIS_DBF_INT8 | REIS_DBF_TAGS | REIS_DBF_IDS) &&
	      info[0].docs_bytes == ivf.docs_bytes);
	CHECK(info[0].received[REIS_SEC_BIN] == N * DIM / 8);
	CHECK(info[0].pages[0] > 0 && info[0].pages[3] > 0);

	/* Brute force, with and without every option. */
	one[0] = &bf;
	memset(&so, 0, sizeof(so));
	so.did = 11;
	so.k = 10;
	so.flags = REIS_SF_DOCS;
	both(dev, "bf docs", 0, one, 1, &so, &q, &keep_bf);
	so.flags = 0;
	so.k = 1;
	both(dev, "bf k=1", 0, one, 1, &so, &q, NULL);
	so.k = 100;
	so.rerank_factor = 3;
	both(dev, "bf k=100 factor 3", 0, one, 1, &so, &q, NULL);
	so.k = 10;
	so.rerank_factor = 0;
	so.flags = REIS_SF_NO_RERANK;
	both(dev, "bf no-rerank", 0, one, 1, &so, &q, NULL);
	so.flags = REIS_SF_TAG | REIS_SF_DOCS;
	so.tag = 2;
	both(dev, "bf tag", 0, one, 1, &so, &q, NULL);
	so.flags = 0;
	so.df_threshold = 110;	/* filters most entries in the die */
	{
		struct reis_search_result r;

		both(dev, "bf df", 0, one, 1, &so, &q, &r);
		CHECK(r.entries_passed < r.entries_compared);
		reis_search_result_free(&r);
	}
	so.df_threshold = 60;	/* so tight some queries get padding */
	both(dev, "bf df tight", 0, one, 1, &so, &q, NULL);
	so.df_threshold = 110;
	so.flags = REIS_SF_NO_DF | REIS_SF_NO_PL | REIS_SF_NO_MPIBC;
	{
		struct reis_search_result r1, r2;

		both(dev, "bf no-opt", 0, one, 1, &so, &q, &r1);
		so.flags = 0;
		so.df_threshold = 0;
		REQUIRE(reis_search(dev, &so, &q, &r2) == 0);
		/* Same hits (no filter either way), the No-OPT baseline no faster. */
		CHECK_EQ_U64(reis_cmp_results("no-opt vs opt", &r1, &r2, 0), 0);
		/* Without DF every entry crosses the channel: the TTL traffic
		 * binds, and PL and MPIBC cannot make it slower. */
		CHECK(r1.search_ns >= r2.search_ns);
		reis_search_result_free(&r1);
		reis_search_result_free(&r2);
	}

	/* IVF: explicit nprobe, target recall, all clusters. */
	one[0] = &ivf;
	memset(&so, 0, sizeof(so));
	so.did = 12;
	so.k = 10;
	so.nprobe = 4;
	so.flags = REIS_SF_DOCS;
	both(dev, "ivf nprobe 4", 1, one, 1, &so, &q, &keep_ivf);
	CHECK_EQ_U64(keep_ivf.nprobe, 4);
	so.flags = 0;
	so.nprobe = 40;
	both(dev, "ivf nprobe all", 1, one, 1, &so, &q, NULL);
	so.nprobe = 0;
	so.target_recall = ivf.calib[1].recall;
	{
		struct reis_search_result r;

		both(dev, "ivf recall", 1, one, 1, &so, &q, &r);
		CHECK_EQ_U64(r.nprobe, ivf.calib[1].nprobe);
		reis_search_result_free(&r);
	}
	so.target_recall = 10000;	/* unreachable: the largest calibrated */
	both(dev, "ivf recall 1.0", 1, one, 1, &so, &q, NULL);
	so.target_recall = 0;
	so.nprobe = 7;
	so.flags = REIS_SF_TAG;
	so.tag = 1;
	so.df_threshold = 120;
	both(dev, "ivf tag df", 1, one, 1, &so, &q, NULL);
	/* A brute-force SEARCH of an IVF database scans every entry. */
	so.flags = 0;
	so.df_threshold = 0;
	so.nprobe = 0;
	both(dev, "bf on ivf", 0, one, 1, &so, &q, NULL);

	/* Time-partitioned group: partitions 2 and 3 are in [150, 400]. */
	memset(&so, 0, sizeof(so));
	so.did = 77;
	so.k = 10;
	so.flags = REIS_SF_GROUP;
	so.t_min = 150;
	so.t_max = 400;
	grp[0] = &part[1];
	grp[1] = &part[2];
	both(dev, "group", 0, grp, 2, &so, &q, NULL);
	so.t_min = 0;
	so.t_max = 100;
	grp[0] = &part[0];
	both(dev, "group first", 0, grp, 1, &so, &q, NULL);

	/* Documents: byte-identical through DOC_READ too (entry order). */
	for (i = 0; i < N; i += 397) {
		uint32_t len;
		const uint8_t *want = reis_db_image_doc(&ivf, i, &len);

		ret = reis_doc_read(dev, 12, i, doc, sizeof(doc));
		CHECK(ret == (int)len && !memcmp(doc, want, len));
	}
	CHECK(reis_doc_read(dev, 12, 0, doc, 5) >= 5);	/* truncated copy */
	/* IVF hits carry row numbers as ids; entry is the cluster-order index
	 * DOC_READ takes, and gives the hit's own document. */
	{
		uint32_t h, differ = 0;

		for (h = 0; h < keep_ivf.nq * keep_ivf.k; h++) {
			const struct reis_hit *hit = &keep_ivf.hits[h];

			if (hit->id == REIS_HIT_NONE)
				continue;
			CHECK(hit->entry < N && ivf.ids[hit->entry] == hit->id);
			differ += hit->entry != hit->id;
			ret = reis_doc_read(dev, 12, hit->entry, doc, sizeof(doc));
			CHECK(ret == (int)hit->doc_len && !memcmp(doc, hit->doc, hit->doc_len));
		}
		CHECK(differ > 0);
	}
	CHECK(reis_db_info(dev, 11, &info[1]) == 0 && info[1].meta_bytes > 0);

	/* Deleting removes it; the others stay. */
	CHECK(reis_db_delete(dev, 20) == 0);
	CHECK(reis_db_info(dev, 20, &info[0]) == -ENOENT);
	CHECK(reis_db_list(dev, info, 8) == 4);

	/* Restart: the same backing file, the same databases and results. */
	reis_close(dev);
	dev = open_drive();
	CHECK(reis_db_list(dev, info, 8) == 4);
	memset(&so, 0, sizeof(so));
	so.did = 11;
	so.k = 10;
	so.flags = REIS_SF_DOCS;
	REQUIRE(reis_search(dev, &so, &q, &again) == 0);
	CHECK_EQ_U64(reis_cmp_results("restart bf", &again, &keep_bf, 1), 0);
	reis_search_result_free(&again);
	so.did = 12;
	so.nprobe = 4;
	REQUIRE(reis_ivf_search(dev, &so, &q, &again) == 0);
	CHECK_EQ_U64(reis_cmp_results("restart ivf", &again, &keep_ivf, 1), 0);
	reis_search_result_free(&again);
	CHECK(reis_db_info(dev, 20, &info[0]) == -ENOENT);
	reis_close(dev);
	unlink(backing);

	reis_search_result_free(&keep_bf);
	reis_search_result_free(&keep_ivf);
	reis_queries_free(&q);
	reis_db_image_free(&bf);
	reis_db_image_free(&ivf);
	for (i = 0; i < 3; i++)
		reis_db_image_free(&part[i]);
	free(x);
	free(qf);
	free(cq);
	free(docs);
	free(off);
	free(tags);
	return t_result();
}
