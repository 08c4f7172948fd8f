/* SPDX-License-Identifier: MIT */
/*
 * test_reis_df - distance-filtering threshold calibration on real data
 * (REIS 4.3.3; docs/reis.md §7): on the cached WordNet corpus subset, an
 * IVF database like the RAG demo's gets the threshold reis_df_calibrate()
 * picks from the 500 held-out queries (k = 10, factor 10, the largest
 * quantile) at the demo's nprobe (32), and for brute force. Searching the
 * evaluation queries, the drive must filter a large fraction of the
 * compared entries in the dies while recall@10 stays within a small bound
 * of DF off; on the calibration queries themselves the hits must be
 * exactly the DF-off hits. Skips (77) when the corpus is not built
 * (scripts/corpus.sh).
 *
 * Bounds (measured: IVF 56 % filtered, recall 0.9529 vs 0.9530; BF 84 %,
 * 0.9790 vs 0.9791; docs/reis.md §7) keep a wide margin.
 *
 * REIS_CORPUS=DIR overrides $ISP_CACHE/corpus/wordnet-subset.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "corpus.h"
#include "libreis_tools.h"
#include "reis_cmp.h"

#define K 10
#define NPROBE 32
#define MIN_FILTERED_IVF 0.40
#define MIN_FILTERED_BF 0.65
#define MAX_RECALL_DROP 0.005

#if defined(__SANITIZE_ADDRESS__)
#define EVAL_NQ 400	/* sanitizer builds run 3-10x slower */
#else
#define EVAL_NQ 2000
#endif

/* Search @q at @nprobe (0: brute force) with threshold @thr (0: DF off). */
static void search(struct reis_dev *dev, uint32_t nprobe, uint32_t thr,
		   const struct reis_queries *q, struct reis_search_result *r)
{
	struct reis_search_opts so;
	int ret;

	memset(&so, 0, sizeof(so));
	so.did = 1;
	so.k = K;
	so.nprobe = nprobe;
	so.df_threshold = thr;
	so.flags = thr ? 0 : REIS_SF_NO_DF;
	ret = nprobe ? reis_ivf_search(dev, &so, q, r) : reis_search(dev, &so, q, r);
	if (ret)
		fprintf(stderr, "search: %s\n", reis_last_error(dev));
	REQUIRE(ret == 0);
}

static void check_setting(struct reis_dev *dev, const char *what, uint32_t nprobe,
			  const struct reis_db_image *img, const struct reis_queries *q,
			  const struct reis_queries *cal, const struct reis_vecs *gt,
			  double min_filtered)
{
	struct reis_df_opts o;
	struct reis_df_calib c;
	struct reis_search_result on, off;
	struct reis_stats s0, s1;
	double r_on, r_off, filtered;

	memset(&o, 0, sizeof(o));
	o.nprobe = nprobe ? nprobe : img->nlist;	/* every cluster: brute force */
	REQUIRE(reis_df_calibrate(img, cal, &o, &c) == 0);
	CHECK(c.threshold > 0 && c.short_frac == 0);

	search(dev, nprobe, 0, q, &off);
	REQUIRE(reis_stats(dev, 0, &s0) == 0);
	search(dev, nprobe, c.threshold, q, &on);
	REQUIRE(reis_stats(dev, 0, &s1) == 0);
	r_off = reis_recall(off.hits, K, gt->data, gt->dim, q->nq, K);
	r_on = reis_recall(on.hits, K, gt->data, gt->dim, q->nq, K);
	filtered = 1.0 - (double)on.entries_passed / (double)on.entries_compared;
	printf("%-8s threshold %u (d median %u, max %u; calibration pass %.3f): filtered "
	       "%.4f of %llu compared, recall@10 %.4f (DF off %.4f), channel bytes %.0f%% "
	       "of DF off\n", what, c.threshold, c.d_median, c.d_max, c.pass_frac, filtered,
	       (unsigned long long)on.entries_compared, r_on, r_off,
	       100.0 * (double)on.entries_passed / (double)off.entries_passed);
	CHECK(on.entries_compared == off.entries_compared);
	CHECK(filtered >= min_filtered);
	CHECK(r_on >= r_off - MAX_RECALL_DROP);
	/* The drive's own statistics see the same filtering. */
	CHECK_EQ_U64(s1.filtered_entries - s0.filtered_entries,
		     on.entries_compared - on.entries_passed);
	reis_search_result_free(&on);
	reis_search_result_free(&off);

	/* On the calibration queries, the largest quantile changes nothing. */
	search(dev, nprobe, 0, cal, &off);
	search(dev, nprobe, c.threshold, cal, &on);
	CHECK_EQ_U64(reis_cmp_results(what, &on, &off, 0), 0);
	CHECK(on.entries_passed < on.entries_compared);
	reis_search_result_free(&on);
	reis_search_result_free(&off);
}

int main(void)
{
	struct corpus c;
	struct reis_build_opts bo;
	struct reis_db_image img;
	struct reis_queries q, cal;
	struct reis_inproc_opts io;
	struct reis_dev *dev;
	char err[1024];

	if (corpus_find(&c, NULL, "wordnet-subset"))
		SKIP("corpus not built in %s (run scripts/corpus.sh)", c.dir);
	if (corpus_load(&c, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return T_EXIT_FAIL;
	}
	REQUIRE(c.base.dim == 512 && c.gt.dim >= K);

	/* The RAG demo's kind of database; nprobe is given, so no recall table. */
	memset(&bo, 0, sizeof(bo));
	bo.did = 1;
	bo.kind = REIS_DB_IVF;
	bo.flags = REIS_BUILD_INT8;
	bo.nlist = 128;
	bo.km.seed = 1;
	bo.km.max_iter = 10;
	bo.km.max_train_per_list = 64;
	bo.name = "wordnet-df";
	if (reis_db_build(&bo, c.base.data, c.base.n, c.base.dim, &img, err, sizeof(err))) {
		fprintf(stderr, "build: %s\n", err);
		return T_EXIT_FAIL;
	}
	REQUIRE(reis_encode_queries(img.quant, c.queries.data,
				    c.queries.n < EVAL_NQ ? (uint32_t)c.queries.n : EVAL_NQ,
				    &q) == 0);
	REQUIRE(reis_encode_queries(img.quant, c.calib.data, (uint32_t)c.calib.n, &cal) == 0);
	memset(&io, 0, sizeof(io));
	io.workers = 2;
	REQUIRE(reis_open_inproc(&io, &dev) == 0);
	REQUIRE(reis_db_deploy(dev, &img, NULL) == 0);

	check_setting(dev, "ivf/32", NPROBE, &img, &q, &cal, &c.gt, MIN_FILTERED_IVF);
	check_setting(dev, "bf", 0, &img, &q, &cal, &c.gt, MIN_FILTERED_BF);

	reis_close(dev);
	reis_queries_free(&q);
	reis_queries_free(&cal);
	reis_db_image_free(&img);
	corpus_free(&c);
	return t_result();
}
