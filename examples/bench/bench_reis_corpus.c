/* SPDX-License-Identifier: MIT */
/*
 * bench_reis_corpus - REIS on the real corpus through libreis (the host-side
 * figures of docs/reis.md).
 *
 * Steps:
 *  1. load the WordNet/USE corpus (docs/corpus.md; the full one when built,
 *     else the test subset) and build an IVF database (about sqrt(n)
 *     clusters, INT8 rerank, glosses as documents), calibrated on the
 *     held-out queries;
 *  2. for reis-ssd1 and reis-ssd2, deploy it into an in-process drive (in
 *     delay mode, so each command runs alone in the model) and,
 *     for each nprobe (and brute force), search the 2000 evaluation queries:
 *     recall@10 against exact float search, modeled QPS of 64-query
 *     batches with the calibrated distance filter on and off (and with
 *     $REIS_PLOT_DAT, those points for scripts/reis-plot.sh), modeled latency of single queries (with and without the
 *     documents), and the host CPU time the emulator spent per query;
 *  3. in the same run, the host CPU time per query of a plain host scan of
 *     the same binary codes (XOR + POPCNT over all entries, top-100 by
 *     (Hamming, entry), INT8 rerank): what a host would do with the data.
 *
 * Usage: bench_reis_corpus [CORPUS_DIR]   (default $ISP_CACHE/corpus/
 *        wordnet-full if built, else wordnet-subset; prints "skipped"
 *        when neither exists)
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
#define LAT_Q 200	/* single-query latency: averaged over this many */

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct cand {
	uint32_t ham;
	uint32_t idx;
};

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->ham != y->ham)
		return x->ham < y->ham ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * Plain host scan: every entry's Hamming distance (reis_hamming), the 100
 * nearest by (distance, entry) via a histogram cut, INT8 rerank, top 10.
 * Returns CPU seconds for @nq queries.
 */
static double host_scan(const struct reis_db_image *img, const struct reis_queries *q,
			uint32_t nq, uint64_t *sink)
{
	uint32_t bytes = img->dim / 8, *ham = malloc(img->n * sizeof(*ham)), qi;
	struct cand *c = malloc(img->n * sizeof(*c));
	uint32_t hist[8193];
	double t0 = cpu_s();
	uint64_t e;

	if (!ham || !c)
		exit(1);
	for (qi = 0; qi < nq; qi++) {
		const uint8_t *qb = q->bin + (size_t)qi * bytes;
		const int8_t *q8 = q->int8 + (size_t)qi * img->dim;
		uint32_t cut, below = 0, m = 10 * K, nc = 0, j, d;
		int64_t best = INT64_MIN;

		memset(hist, 0, (img->dim + 1) * sizeof(hist[0]));
		for (e = 0; e < img->n; e++) {
			ham[e] = reis_hamming(qb, img->bin + e * bytes, bytes);
			hist[ham[e]]++;
		}
		for (cut = 0; cut <= img->dim && below + hist[cut] < m; cut++)
			below += hist[cut];
		for (e = 0; e < img->n; e++)
			if (ham[e] <= cut) {
				c[nc].ham = ham[e];
				c[nc++].idx = (uint32_t)e;
			}
		qsort(c, nc, sizeof(*c), cand_cmp);
		if (nc > m)
			nc = m;
		for (j = 0; j < nc; j++) {
			const int8_t *x8 = img->int8 + (size_t)c[j].idx * img->dim;
			int64_t s = 0;

			for (d = 0; d < img->dim; d++)
				s += (int32_t)q8[d] * x8[d];
			if (s > best)
				best = s;
		}
		*sink += (uint64_t)best;
	}
	free(ham);
	free(c);
	return cpu_s() - t0;
}

/* Throughput: 64-query batches, one command at a time; hits for recall. */
static void throughput(struct reis_dev *dev, const struct reis_search_opts *so,
		       const struct reis_queries *q, struct reis_hit *hits, uint64_t *model_ns,
		       uint64_t *nj, uint64_t *pages)
{
	struct reis_search_result r;
	uint32_t first, nq = q->nq;

	*model_ns = *nj = *pages = 0;
	for (first = 0; first < nq; first += BATCH) {
		struct reis_queries sub = corpus_qslice(q, first,
							nq - first < BATCH ? nq - first : BATCH);

		if (corpus_search(dev, so, &sub, &r)) {
			fprintf(stderr, "search: %s\n", reis_last_error(dev));
			exit(1);
		}
		*model_ns += r.search_ns + r.read_ns;
		*nj += r.search_nj + r.read_nj;
		*pages += r.pages_read;
		memcpy(hits + (size_t)first * K, r.hits, (size_t)sub.nq * K * sizeof(*hits));
		reis_search_result_free(&r);
	}
}

static void run_preset(const char *preset, struct reis_db_image *img,
		       const struct reis_queries *q, const struct reis_vecs *gt, FILE *dat)
{
	struct reis_inproc_opts io;
	struct reis_dev *dev;
	uint32_t nps[] = { 1, 2, 4, 8, 16, 32, 64, 0 }, i, nq = q->nq;
	char err[256];
	double t0;

	memset(&io, 0, sizeof(io));
	io.preset = preset;
	/* Completions wait for the modeled time: commands never queue behind
	 * each other in the model, so every number is one command alone. */
	io.flags = REIS_INPROC_DELAY;
	io.errbuf = err;
	io.errlen = sizeof(err);
	if (reis_open_inproc(&io, &dev)) {
		fprintf(stderr, "bench_reis_corpus: %s: %s\n", preset, err);
		exit(1);
	}
	t0 = wall_s();
	if (reis_db_deploy(dev, img, NULL)) {
		fprintf(stderr, "bench_reis_corpus: deploy: %s\n", reis_last_error(dev));
		exit(1);
	}
	printf("\n%s: %u ch x %u dies x %u planes; deploy of %.1f MB took %.2f s host\n",
	       preset, reis_dev_info(dev)->channels, reis_dev_info(dev)->dies_per_channel,
	       reis_dev_info(dev)->planes_per_die,
	       (img->n * (img->dim / 8 + img->dim) + img->docs_bytes) / 1e6, wall_s() - t0);
	printf("%-8s %9s %11s %11s %12s %11s %12s %10s %9s %11s\n", "nprobe", "recall@10",
	       "QPS(model)", "lat us", "lat+docs us", "uJ/query", "host cpu us/q", "pages/q",
	       "DF off: R", "QPS(model)");
	for (i = 0; i < sizeof(nps) / sizeof(nps[0]); i++) {
		struct reis_search_opts so;
		struct reis_search_result r;
		struct reis_hit *hits = malloc((size_t)nq * K * sizeof(*hits));
		uint64_t model_ns, nj, pages, lat = 0, latd = 0, off_ns, off_nj, off_pages;
		uint32_t first;
		double c0, cpu, rec, rec_off;

		if (!hits)
			exit(1);
		memset(&so, 0, sizeof(so));
		so.did = img->did;
		so.k = K;
		so.nprobe = nps[i];
		c0 = cpu_s();
		throughput(dev, &so, q, hits, &model_ns, &nj, &pages);
		cpu = cpu_s() - c0;
		rec = reis_recall(hits, K, gt->data, gt->dim, nq, K);
		/* The same with distance filtering off (REIS Fig. 9). */
		so.flags = REIS_SF_NO_DF;
		throughput(dev, &so, q, hits, &off_ns, &off_nj, &off_pages);
		rec_off = reis_recall(hits, K, gt->data, gt->dim, nq, K);
		/* Latency: one query per command, without and with documents. */
		for (first = 0; first < LAT_Q; first++) {
			struct reis_queries one = corpus_qslice(q, first, 1);

			so.flags = 0;
			if (corpus_search(dev, &so, &one, &r))
				exit(1);
			lat += r.search_ns + r.read_ns;
			reis_search_result_free(&r);
			so.flags = REIS_SF_DOCS;
			if (corpus_search(dev, &so, &one, &r))
				exit(1);
			latd += r.search_ns + r.read_ns;
			reis_search_result_free(&r);
		}
		if (nps[i])
			printf("%-8u", nps[i]);
		else
			printf("%-8s", "BF");
		printf(" %9.4f %11.0f %11.1f %12.1f %11.1f %12.1f %10.1f %9.4f %11.0f\n", rec,
		       nq / (model_ns / 1e9), lat / 1e3 / LAT_Q, latd / 1e3 / LAT_Q, nj / 1e3 / nq,
		       cpu * 1e6 / nq, (double)pages / nq, rec_off, nq / (off_ns / 1e9));
		if (dat) {
			fprintf(dat, "%s on %u %.4f %.0f\n", preset, nps[i], rec,
				nq / (model_ns / 1e9));
			fprintf(dat, "%s off %u %.4f %.0f\n", preset, nps[i], rec_off,
				nq / (off_ns / 1e9));
		}
		free(hits);
	}
	reis_close(dev);
}

int main(int argc, char **argv)
{
	struct corpus c;
	struct reis_build_opts bo;
	struct reis_db_image img;
	struct reis_queries q;
	uint64_t sink = 0;
	char err[1024];
	double t0, host;
	FILE *dat = NULL;
	static const char usage[] = "usage: bench_reis_corpus [CORPUS_DIR]   (default: "
				    "wordnet-full, else wordnet-subset; scripts/corpus.sh)\n";

	ex_operands_only("bench_reis_corpus", argc, argv, usage);
	if (argc > 2)
		ex_usage_err("bench_reis_corpus", "unexpected argument", argv[2], usage);
	/* The full corpus when it is built, else the test subset. */
	if (corpus_find(&c, argc > 1 ? argv[1] : NULL, "wordnet-full") &&
	    (argc > 1 || corpus_find(&c, NULL, "wordnet-subset"))) {
		printf("bench_reis_corpus: skipped: no corpus in %s (scripts/corpus.sh)\n", c.dir);
		return 0;
	}
	if (corpus_load(&c, err, sizeof(err))) {
		fprintf(stderr, "bench_reis_corpus: %s\n", err);
		return 1;
	}
	printf("corpus %s: %" PRIu64 " passages x %u-d, %" PRIu64 " queries\n", c.dir,
	       c.base.n, c.base.dim, c.queries.n);

	corpus_build_opts(&c, 1, &bo);
	t0 = wall_s();
	if (reis_db_build(&bo, c.base.data, c.base.n, c.base.dim, &img, err, sizeof(err))) {
		fprintf(stderr, "bench_reis_corpus: build: %s\n", err);
		return 1;
	}
	printf("IVF build (k-means %u clusters, quantize, calibrate): %.1f s host\n", img.nlist,
	       wall_s() - t0);
	if (reis_encode_queries(img.quant, c.queries.data, (uint32_t)c.queries.n, &q))
		return 1;
	{
		/* REIS 4.3.3: the DF threshold for k = 10 at the nprobe of recall
		 * 0.95, from the held-out queries (docs/reis.md §1.3). */
		struct reis_queries cal;
		struct reis_df_opts dfo;
		struct reis_df_calib dfc;

		memset(&dfo, 0, sizeof(dfo));
		dfo.k = K;
		dfo.target_recall = 9500;
		if (reis_encode_queries(img.quant, c.calib.data, (uint32_t)c.calib.n, &cal) ||
		    reis_df_calibrate(&img, &cal, &dfo, &dfc)) {
			fprintf(stderr, "bench_reis_corpus: distance-filter calibration failed\n");
			return 1;
		}
		reis_queries_free(&cal);
		img.df_threshold = dfc.threshold;
		printf("distance filter: threshold %u (calibrated at nprobe %u)\n", dfc.threshold,
		       dfc.nprobe);
	}
	/* $REIS_PLOT_DAT: "preset df nprobe recall qps" lines for
	 * scripts/reis-plot.sh (make bench). */
	if (getenv("REIS_PLOT_DAT")) {
		dat = fopen(getenv("REIS_PLOT_DAT"), "w");
		if (!dat) {
			fprintf(stderr, "bench_reis_corpus: %s: cannot write\n",
				getenv("REIS_PLOT_DAT"));
			return 1;
		}
	}

	run_preset("reis-ssd1", &img, &q, &c.gt, dat);
	run_preset("reis-ssd2", &img, &q, &c.gt, dat);
	if (dat && fclose(dat)) {
		fprintf(stderr, "bench_reis_corpus: writing the plot data failed\n");
		return 1;
	}

	host = host_scan(&img, &q, q.nq, &sink);
	printf("\nplain host scan of the same %" PRIu64 " binary codes (XOR+POPCNT, top-100, "
	       "INT8 rerank): %.1f us CPU per query (checksum %" PRIu64 ")\n", img.n,
	       host * 1e6 / q.nq, sink % 1000);
	printf("QPS(model): 64-query batches, one command in flight, modeled time of the "
	       "search and result transfer; lat: one query per command; host cpu: this "
	       "process's CPU time per query while the in-process drive emulates it; "
	       "DF off: the same batches with REIS_SF_NO_DF.\n");
	reis_queries_free(&q);
	reis_db_image_free(&img);
	corpus_free(&c);
	return 0;
}
