/* SPDX-License-Identifier: MIT */
/*
 * corpus.h - the cached real-data corpus (docs/corpus.md) as the demos,
 * benchmarks and tests read it: where it lives and its files in memory.
 * Program glue over libreis' public readers and search calls, not part of
 * the library; the tests include it too (tests/Makefile adds
 * examples/common).
 */
#ifndef EXAMPLES_CORPUS_H
#define EXAMPLES_CORPUS_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "libreis_tools.h"

#define CORPUS_DEFAULT_CACHE "/var/cache/isp-ssd"

struct corpus {
	char dir[512];
	struct reis_vecs base;		/* passages.fvecs: one per document */
	struct reis_vecs queries;	/* queries.fvecs: evaluation queries */
	struct reis_vecs gt;		/* gt_top100.ivecs: exact float top 100 */
	struct reis_vecs calib;		/* calib.fvecs: held-out queries */
	struct reis_vecs calib_gt;	/* calib_top100.ivecs */
	uint8_t *docs;			/* docs.bin: the glosses back to back */
	uint64_t docs_len;
	uint64_t *doc_offsets;		/* docs.idx: base.n + 1 offsets into docs */
};

/*
 * corpus_find - pick the corpus directory: @dir when not NULL, else
 * $REIS_CORPUS, else ${ISP_CACHE:-/var/cache/isp-ssd}/corpus/@name.
 * Return: 0 when it holds a manifest.json (a finished corpus), -ENOENT
 * when not; c->dir names it either way.
 */
static inline int corpus_find(struct corpus *c, const char *dir, const char *name)
{
	const char *env = getenv("REIS_CORPUS"), *cache = getenv("ISP_CACHE");
	char mf[600];
	struct stat st;

	memset(c, 0, sizeof(*c));
	if (!dir)
		dir = env;
	if (dir)
		snprintf(c->dir, sizeof(c->dir), "%s", dir);
	else
		snprintf(c->dir, sizeof(c->dir), "%s/corpus/%s",
			 cache ? cache : CORPUS_DEFAULT_CACHE, name);
	snprintf(mf, sizeof(mf), "%s/manifest.json", c->dir);
	return stat(mf, &st) ? -ENOENT : 0;
}

/*
 * corpus_slurp_path - a whole file, NUL-terminated (not counted in *@len).
 * Return: the bytes (free()), or NULL with a reason in @err.
 */
static inline uint8_t *corpus_slurp_path(const char *p, uint64_t *len, char *err,
					 size_t errlen)
{
	struct stat st;
	uint8_t *b = NULL;
	FILE *f;

	f = fopen(p, "rb");
	if (!f || fstat(fileno(f), &st)) {
		snprintf(err, errlen, "%s: %s", p, strerror(errno));
		goto out;
	}
	b = malloc((size_t)st.st_size + 1);
	if (!b || fread(b, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		snprintf(err, errlen, "%s: read failed", p);
		free(b);
		b = NULL;
		goto out;
	}
	b[st.st_size] = 0;
	*len = (uint64_t)st.st_size;
out:
	if (f)
		fclose(f);
	return b;
}

/* corpus_slurp - corpus_slurp_path() of @file in the corpus directory. */
static inline uint8_t *corpus_slurp(const struct corpus *c, const char *file, uint64_t *len,
				    char *err, size_t errlen)
{
	char p[600];

	snprintf(p, sizeof(p), "%s/%s", c->dir, file);
	return corpus_slurp_path(p, len, err, errlen);
}

static inline void corpus_free(struct corpus *c)
{
	reis_vecs_free(&c->base);
	reis_vecs_free(&c->queries);
	reis_vecs_free(&c->gt);
	reis_vecs_free(&c->calib);
	reis_vecs_free(&c->calib_gt);
	free(c->docs);
	free(c->doc_offsets);
	c->docs = NULL;
	c->doc_offsets = NULL;
}

/*
 * corpus_load - read the vectors, ground truth and documents of the corpus
 * corpus_find() picked and check they belong together (one offset per
 * passage plus one, truth for every query).
 * Return: 0, or -1 with a reason in @err and nothing held.
 */
static inline int corpus_load(struct corpus *c, char *err, size_t errlen)
{
	static const char *const vf[] = { "passages.fvecs", "queries.fvecs", "gt_top100.ivecs",
					  "calib.fvecs", "calib_top100.ivecs" };
	struct reis_vecs *v[] = { &c->base, &c->queries, &c->gt, &c->calib, &c->calib_gt };
	uint64_t idx_len = 0;
	char p[600];
	unsigned i;

	for (i = 0; i < sizeof(vf) / sizeof(vf[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", c->dir, vf[i]);
		if (reis_vecs_load(p, v[i], err, errlen))
			goto fail;
	}
	c->docs = corpus_slurp(c, "docs.bin", &c->docs_len, err, errlen);
	if (!c->docs)
		goto fail;
	c->doc_offsets = (uint64_t *)(void *)corpus_slurp(c, "docs.idx", &idx_len, err, errlen);
	if (!c->doc_offsets)
		goto fail;
	if (idx_len != (c->base.n + 1) * sizeof(uint64_t) ||
	    c->doc_offsets[c->base.n] != c->docs_len) {
		snprintf(err, errlen, "%s: docs.idx does not index docs.bin's passages", c->dir);
		goto fail;
	}
	if (c->queries.dim != c->base.dim || c->calib.dim != c->base.dim ||
	    c->gt.n != c->queries.n || c->calib_gt.n != c->calib.n) {
		snprintf(err, errlen, "%s: queries or ground truth do not match the passages",
			 c->dir);
		goto fail;
	}
	return 0;
fail:
	corpus_free(c);
	return -1;
}

/* ---- what the programs that search it share ---- */

/*
 * corpus_build_opts - the database every corpus program builds (the RAG
 * demo's: IVF with about sqrt(n) clusters from a seeded k-means, inner
 * product over INT8 rerank codes, the glosses as documents, recall@10
 * calibrated on the held-out queries) as database @did. Callers change
 * what differs after.
 */
static inline void corpus_build_opts(const struct corpus *c, uint32_t did,
				     struct reis_build_opts *bo)
{
	memset(bo, 0, sizeof(*bo));
	bo->did = did;
	bo->kind = REIS_DB_IVF;
	bo->metric = REIS_METRIC_IP;
	bo->flags = REIS_BUILD_INT8;
	bo->km.seed = 1;
	bo->km.max_iter = 10;
	bo->km.max_train_per_list = 64;
	bo->docs = c->docs;
	bo->doc_offsets = c->doc_offsets;
	bo->calib_queries = c->calib.data;
	bo->ncalib_queries = (uint32_t)c->calib.n;
	bo->calib_truth = c->calib_gt.data;
	bo->calib_truth_k = c->calib_gt.dim;
	bo->calib_k = 10;
	bo->name = "wordnet";
}

/* Queries [@first, @first + @n) of @q (no copy). */
static inline struct reis_queries corpus_qslice(const struct reis_queries *q, uint32_t first,
						uint32_t n)
{
	struct reis_queries sub = *q;

	sub.nq = n;
	sub.bin = q->bin + (size_t)first * (q->dim / 8);
	sub.int8 = q->int8 ? q->int8 + (size_t)first * q->dim : NULL;
	return sub;
}

/* IVF_SEARCH at @so->nprobe, or brute-force SEARCH when it is 0. */
static inline int corpus_search(struct reis_dev *dev, const struct reis_search_opts *so,
				const struct reis_queries *q, struct reis_search_result *r)
{
	return so->nprobe ? reis_ivf_search(dev, so, q, r) : reis_search(dev, so, q, r);
}

#endif
