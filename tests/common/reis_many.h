/* SPDX-License-Identifier: MIT */
/*
 * reis_many.h - hundreds of small REIS databases on one drive
 * (docs/reis-engine.md §7, packed regions), shared by the library test and
 * the guest test: seeded databases of 1..300 entries (brute force and IVF,
 * some with documents, some with caller ids), deployed until the R-DB is
 * full, each searched and compared hit by hit with the host reference,
 * deleted half first (the other half must stay exact), then the rest (the
 * drive's free_bytes as before), and the whole cycle again into the freed
 * space. Prints the wall time of each phase. Include check.h first. Header
 * only, no state.
 */
#ifndef TESTS_REIS_MANY_H
#define TESTS_REIS_MANY_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libreis_tools.h"
#include "reis_cmp.h"
#include "reis_synth.h"

#define MANY_DIM 64
#define MANY_MAX 256

struct many_db {
	struct reis_db_image img;
	float *x;
	uint8_t *docs;
	uint64_t *off;
	uint32_t did, n;
	int ivf;
};

/* An in-process drive on @backing (NULL: in memory) with @params (NULL:
 * the preset's) and reis_inproc_opts @flags; a failure ends the test. */
static inline struct reis_dev *many_open(const char *backing, const char *params,
					 unsigned flags)
{
	struct reis_inproc_opts o;
	struct reis_dev *dev;
	char err[256];

	memset(&o, 0, sizeof(o));
	o.backing = backing;
	o.params = params;
	o.flags = flags;
	o.errbuf = err;
	o.errlen = sizeof(err);
	if (reis_open_inproc(&o, &dev)) {
		fprintf(stderr, "open: %s\n", err);
		REQUIRE(0);
	}
	return dev;
}

static inline double many_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Database @i: its size, kind and sections vary with @i. */
static inline void many_build(struct many_db *m, uint32_t did, uint32_t i)
{
	struct reis_build_opts o;
	char err[256];

	memset(m, 0, sizeof(*m));
	m->did = did;
	m->ivf = i % 16 == 5;
	m->n = m->ivf ? 64 + i % 200 : 1 + (i * 7919u) % 300;
	m->x = synth_vectors(1000 + i, m->n, MANY_DIM, 4, 0.5f);
	REQUIRE(m->x);
	memset(&o, 0, sizeof(o));
	o.did = did;
	o.kind = m->ivf ? REIS_DB_IVF : REIS_DB_BF;
	o.flags = i % 4 == 3 ? 0 : REIS_BUILD_INT8;
	o.nlist = m->ivf ? 4 : 0;
	o.km.seed = i;
	o.km.max_iter = 4;
	if (i % 3 == 0) {
		m->docs = synth_docs(2000 + i, m->n, 200, &m->off);
		REQUIRE(m->docs);
		o.docs = m->docs;
		o.doc_offsets = m->off;
	}
	if (reis_db_build(&o, m->x, m->n, MANY_DIM, &m->img, err, sizeof(err)))
		fprintf(stderr, "build %u: %s\n", did, err);
	REQUIRE(m->img.n == m->n);
}

static inline void many_free(struct many_db *m)
{
	reis_db_image_free(&m->img);
	free(m->x);
	free(m->docs);
	free(m->off);
	memset(m, 0, sizeof(*m));
}

/* Search @m on the drive with up to 3 of its own vectors; 0 when every hit
 * (and document) is the reference's. Adds the modeled time to *@model_ns. */
static inline unsigned many_search(struct reis_dev *dev, const struct many_db *m,
				   uint64_t *model_ns)
{
	const struct reis_db_image *one[1] = { &m->img };
	struct reis_search_result got, want;
	struct reis_search_opts so;
	struct reis_queries q;
	char what[48];
	unsigned bad = 1;
	int ret;

	if (reis_encode_queries(m->img.quant, m->x, m->n < 3 ? m->n : 3, &q))
		return 1;
	memset(&so, 0, sizeof(so));
	so.did = m->did;
	so.k = m->n < 8 ? m->n : 8;
	so.flags = (m->docs ? REIS_SF_DOCS : 0) |
		   (m->img.flags & REIS_DBF_INT8 ? 0 : REIS_SF_NO_RERANK);
	so.nprobe = m->ivf ? 2 : 0;
	ret = m->ivf ? reis_ivf_search(dev, &so, &q, &got) : reis_search(dev, &so, &q, &got);
	if (ret) {
		fprintf(stderr, "search %u: %s\n", m->did, reis_last_error(dev));
	} else {
		if (reis_ref_search(one, 1, m->ivf, &so, &q, &want) == 0) {
			snprintf(what, sizeof(what), "database %u", m->did);
			bad = reis_cmp_results(what, &got, &want, !!m->docs);
			reis_search_result_free(&want);
		}
		*model_ns += got.search_ns + got.read_ns;
		reis_search_result_free(&got);
	}
	reis_queries_free(&q);
	return bad;
}

/* Every database of @m[0..@n) searched exactly (@step 2: every other one
 * from @first). */
static inline unsigned many_search_all(struct reis_dev *dev, const struct many_db *m,
				       unsigned n, unsigned first, unsigned step,
				       uint64_t *model_ns)
{
	unsigned i, bad = 0;

	for (i = first; i < n; i += step)
		bad += many_search(dev, &m[i], model_ns) != 0;
	return bad;
}

/*
 * One cycle on @dev: deploy @m[0..@n) (the R-DB must be full then: one more
 * is Capacity Exceeded naming it), search all, delete the even ones, search
 * the odd ones, delete those. @tag names the printed timing line.
 */
static inline void many_cycle(struct reis_dev *dev, struct many_db *m, unsigned n,
			      const char *tag)
{
	struct reis_info in, before;
	double t0, t_dep, t_srch, t_del;
	uint64_t model = 0;
	unsigned i;
	int ret;

	REQUIRE(reis_identify(dev, &before) == 0);
	t0 = many_now();
	for (i = 0; i < n; i++) {
		ret = reis_db_deploy(dev, &m[i].img, NULL);
		if (ret)
			fprintf(stderr, "deploy %u (#%u): %s\n", m[i].did, i, reis_last_error(dev));
		REQUIRE(ret == 0);
	}
	t_dep = many_now() - t0;
	REQUIRE(reis_identify(dev, &in) == 0);
	CHECK_EQ_U64(in.ndbs, in.max_dbs);
	CHECK_EQ_U64(in.db_room, 0);
	CHECK(in.row_pages > 0 && in.slc_free_bytes > 0);
	m[0].img.did = 0xfffff0u;	/* one more: the R-DB is what ran out */
	ret = reis_db_deploy(dev, &m[0].img, NULL);
	m[0].img.did = m[0].did;
	CHECK(ret == -ENOSPC && strstr(reis_last_error(dev), "R-DB full"));

	t0 = many_now();
	CHECK_EQ_U64(many_search_all(dev, m, n, 0, 1, &model), 0);
	t_srch = many_now() - t0;

	t0 = many_now();
	for (i = 0; i < n; i += 2)
		CHECK(reis_db_delete(dev, m[i].did) == 0);
	t_del = many_now() - t0;
	/* Their neighbours in the shared stripes are untouched. */
	CHECK_EQ_U64(many_search_all(dev, m, n, 1, 2, &model), 0);
	t0 = many_now();
	for (i = 1; i < n; i += 2)
		CHECK(reis_db_delete(dev, m[i].did) == 0);
	t_del += many_now() - t0;
	/* Every byte back: free stripes, shared rows, dead rows (compaction's). */
	REQUIRE(reis_identify(dev, &in) == 0);
	CHECK_EQ_U64(in.free_bytes, before.free_bytes);
	CHECK_EQ_U64(in.ndbs, before.ndbs);
	printf("many %s: %u databases: deploy %.3f s (%.2f ms each), search %.3f s "
	       "(%.2f ms each, modeled %.1f us each), delete %.3f s (%.2f ms each)\n",
	       tag, n, t_dep, 1e3 * t_dep / n, t_srch, 1e3 * t_srch / n,
	       model / 1e3 / (n + n / 2), t_del, 1e3 * t_del / n);
}

#endif /* TESTS_REIS_MANY_H */
