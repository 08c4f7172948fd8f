/* SPDX-License-Identifier: MIT */
/*
 * bench_reis_df - distance-filtering threshold calibration on the real
 * corpus (REIS 4.3.3; docs/reis.md §7): what reis_df_calibrate() picks and
 * what it buys inside the drive.
 *
 * Steps:
 *  1. load the corpus subset and build the RAG demo's database (IVF, about
 *     sqrt(n) clusters, INT8 rerank, glosses as documents, recall->nprobe
 *     calibrated on the 500 held-out queries);
 *  2. calibrate a DF threshold on the held-out queries for k = 10, factor
 *     10, at the demo's nprobe (target recall 0.95), for several quantiles
 *     of the per-query distance of the 100th nearest probed entry;
 *  3. deploy it into an in-process drive in delay mode (each command alone
 *     in the model) and search the 2000 evaluation queries with DF off and
 *     with each threshold: recall@10 against exact float search, agreement
 *     with the DF-off hits, entries filtered in the dies, modeled latency
 *     and energy per query (single-query commands), channel bytes per query.
 *
 * Usage: bench_reis_df [CORPUS_DIR] [PRESET]   (default the wordnet subset,
 *        reis-ssd1; prints "skipped" without a corpus)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "corpus.h"
#include "libreis_tools.h"
#include "ex_usage.h"

#define K 10
#define BATCH 64
#define LAT_Q 200

struct run {
	double recall, same, filtered, lat_us, uj, chan_kb, lat_docs_us;
};

/* Search every evaluation query at @nprobe (0: brute force) with threshold
 * @thr (0: DF off). */
static void measure(struct reis_dev *dev, uint32_t did, uint32_t nprobe, uint32_t thr,
		    const struct reis_queries *q, const struct reis_vecs *gt,
		    const struct reis_hit *base, struct reis_hit *hits, struct run *out)
{
	struct reis_search_opts so;
	struct reis_search_result r;
	struct reis_stats s0, s1;
	uint64_t cmp = 0, pass = 0, lat = 0, latd = 0, nj = 0, chan;
	uint32_t first, nq = q->nq, same = 0, i;

	memset(&so, 0, sizeof(so));
	so.did = did;
	so.k = K;
	so.nprobe = nprobe;
	so.df_threshold = thr;
	so.flags = thr ? 0 : REIS_SF_NO_DF;
	for (first = 0; first < nq; first += BATCH) {
		struct reis_queries sub = corpus_qslice(q, first, nq - first < BATCH ? nq - first : BATCH);

		if (corpus_search(dev, &so, &sub, &r)) {
			fprintf(stderr, "search: %s\n", reis_last_error(dev));
			exit(1);
		}
		cmp += r.entries_compared;
		pass += r.entries_passed;
		memcpy(hits + (size_t)first * K, r.hits, (size_t)sub.nq * K * sizeof(*hits));
		reis_search_result_free(&r);
	}
	/* Latency, energy and channel bytes: one query per command. */
	if (reis_stats(dev, 0, &s0))
		exit(1);
	for (first = 0; first < LAT_Q; first++) {
		struct reis_queries one = corpus_qslice(q, first, 1);

		if (corpus_search(dev, &so, &one, &r))
			exit(1);
		lat += r.search_ns + r.read_ns;
		nj += r.search_nj + r.read_nj;
		reis_search_result_free(&r);
	}
	if (reis_stats(dev, 0, &s1))
		exit(1);
	chan = s1.channel_bytes - s0.channel_bytes;
	/* The demo's call: k = 5 with the documents. */
	so.k = 5;
	so.flags |= REIS_SF_DOCS;
	for (first = 0; first < LAT_Q; first++) {
		struct reis_queries one = corpus_qslice(q, first, 1);

		if (corpus_search(dev, &so, &one, &r))
			exit(1);
		latd += r.search_ns + r.read_ns;
		reis_search_result_free(&r);
	}
	if (base) {
		for (i = 0; i < nq; i++)
			same += !memcmp(hits + (size_t)i * K, base + (size_t)i * K,
					K * sizeof(*hits));
	}
	out->recall = reis_recall(hits, K, gt->data, gt->dim, nq, K);
	out->same = base ? (double)same / nq : 1.0;
	out->filtered = cmp ? 1.0 - (double)pass / (double)cmp : 0;
	out->lat_us = lat / 1e3 / LAT_Q;
	out->uj = nj / 1e3 / LAT_Q;
	out->chan_kb = chan / 1e3 / LAT_Q;
	out->lat_docs_us = latd / 1e3 / LAT_Q;
}

int main(int argc, char **argv)
{
	static const uint32_t quantiles[] = { 10000, 9900, 9500, 9000 };
	const char *preset = argc > 2 ? argv[2] : "reis-ssd1";
	struct corpus c;
	struct reis_build_opts bo;
	struct reis_db_image img;
	struct reis_queries q, cal;
	struct reis_inproc_opts io;
	struct reis_search_opts so;
	struct reis_dev *dev;
	struct reis_hit *off_hits, *hits;
	struct run off;
	uint32_t nprobe, i, bf;
	char err[1024];
	static const char usage[] = "usage: bench_reis_df [CORPUS_DIR|- [PRESET]]   (default: "
				    "wordnet-subset, reis-ssd1)\n";

	ex_operands_only("bench_reis_df", argc, argv, usage);
	if (argc > 3)
		ex_usage_err("bench_reis_df", "unexpected argument", argv[3], usage);
	if (corpus_find(&c, argc > 1 && strcmp(argv[1], "-") ? argv[1] : NULL, "wordnet-subset")) {
		printf("bench_reis_df: skipped: no corpus in %s (scripts/corpus.sh)\n", c.dir);
		return 0;
	}
	if (corpus_load(&c, err, sizeof(err))) {
		fprintf(stderr, "bench_reis_df: %s\n", err);
		return 1;
	}

	/* The RAG demo bundle's settings (examples/rag_demo.c). */
	corpus_build_opts(&c, 1, &bo);
	if (reis_db_build(&bo, c.base.data, c.base.n, c.base.dim, &img, err, sizeof(err))) {
		fprintf(stderr, "bench_reis_df: build: %s\n", err);
		return 1;
	}
	if (reis_encode_queries(img.quant, c.queries.data, (uint32_t)c.queries.n, &q) ||
	    reis_encode_queries(img.quant, c.calib.data, (uint32_t)c.calib.n, &cal))
		return 1;
	memset(&so, 0, sizeof(so));
	so.target_recall = 9500;
	{
		/* The demo's nprobe: what IVF_Search(R = 0.95) picks. */
		struct reis_df_opts o;
		struct reis_df_calib dc;

		memset(&o, 0, sizeof(o));
		if (reis_df_calibrate(&img, &cal, &o, &dc))
			return 1;
		nprobe = dc.nprobe;
	}
	printf("corpus %s: %" PRIu64 " passages x %u-d, %u clusters; %u evaluation and %u "
	       "calibration queries; k = %u, factor 10, nprobe %u (target recall 0.95); %s\n",
	       c.dir, img.n, img.dim, img.nlist, q.nq, cal.nq, K, nprobe, preset);

	memset(&io, 0, sizeof(io));
	io.preset = preset;
	io.flags = REIS_INPROC_DELAY;
	io.errbuf = err;
	io.errlen = sizeof(err);
	if (reis_open_inproc(&io, &dev) || reis_db_deploy(dev, &img, NULL)) {
		fprintf(stderr, "bench_reis_df: %s\n", err);
		return 1;
	}
	off_hits = malloc((size_t)q.nq * K * sizeof(*off_hits));
	hits = malloc((size_t)q.nq * K * sizeof(*hits));
	if (!off_hits || !hits)
		return 1;
	for (bf = 0; bf < 2; bf++) {
		uint32_t np = bf ? 0 : nprobe;

		measure(dev, 1, np, 0, &q, &c.gt, NULL, off_hits, &off);
		printf("\n%s\n", bf ? "brute force (SEARCH over all entries)" :
		       "IVF_SEARCH at the demo's nprobe");
		printf("%-9s %5s %8s %8s %9s %9s %9s %9s %8s %9s %11s\n", "quantile", "thr",
		       "d med", "d max", "est pass", "filtered", "recall@10", "same top", "lat us",
		       "uJ/query", "chan KB/q");
		printf("%-9s %5s %8s %8s %9s %9.4f %9.4f %9.4f %8.1f %9.1f %11.1f   (k=5+docs %.1f us)\n",
		       "DF off", "-", "-", "-", "-", off.filtered, off.recall, 1.0, off.lat_us, off.uj,
		       off.chan_kb, off.lat_docs_us);
		for (i = 0; i < sizeof(quantiles) / sizeof(quantiles[0]); i++) {
			struct reis_df_opts o;
			struct reis_df_calib dc;
			struct run on;

			memset(&o, 0, sizeof(o));
			o.nprobe = bf ? img.nlist : nprobe;	/* every cluster: brute force */
			o.quantile = quantiles[i];
			if (reis_df_calibrate(&img, &cal, &o, &dc))
				return 1;
			measure(dev, 1, np, dc.threshold, &q, &c.gt, off_hits, hits, &on);
			printf("%-9.2f %5u %8u %8u %9.4f %9.4f %9.4f %9.4f %8.1f %9.1f %11.1f   (k=5+docs "
			       "%.1f us)\n", quantiles[i] / 100.0, dc.threshold, dc.d_median,
			       dc.d_max, dc.pass_frac, on.filtered, on.recall, on.same, on.lat_us, on.uj,
			       on.chan_kb, on.lat_docs_us);
		}
	}
	printf("\nthr = quantile of the per-query distance of the 100th nearest probed entry "
	       "(calibration queries) + 1; est pass: fraction of probed entries under it on "
	       "the calibration queries; filtered / recall / same top (hits identical to DF "
	       "off) on the evaluation queries; lat, uJ, channel bytes: one query per "
	       "command, k = 10, averaged over %u queries.\n", LAT_Q);
	reis_close(dev);
	free(off_hits);
	free(hits);
	reis_queries_free(&q);
	reis_queries_free(&cal);
	reis_db_image_free(&img);
	corpus_free(&c);
	return 0;
}
