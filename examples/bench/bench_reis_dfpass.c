/* SPDX-License-Identifier: MIT */
/*
 * bench_reis_dfpass - the distance filter's pass rate inside IVF's probed
 * clusters, measured on the real corpus (docs/timing-model.md A27,
 * docs/reis.md §7.1).
 *
 * REIS 4.3.3 states DF as a brute-force share ("for HotpotQA we can filter
 * out 99 % of the documents and still retrieve the k = 10 most relevant")
 * with one threshold across dataset sizes. IVF probes the clusters nearest
 * the query, so the same threshold passes a larger share of the probed
 * entries. Steps:
 *  1. binarise the corpus as the RAG demo does; set ONE Hamming threshold
 *     so that a brute-force scan passes 1 % of all (calibration query,
 *     passage) comparisons (fractional last step, df_pass.h); check on the
 *     evaluation queries how many of the exact float top-10 it keeps;
 *  2. build IVF at nlist 64 .. 4096 and, on the evaluation queries, for
 *     every nprobe with f = nprobe / nlist a power of two from 2^-11 to 1,
 *     measure p(f) (passing share of the probed entries) and the captured
 *     share (passing entries in the probed clusters / all passing);
 *  3. the same on deterministic strided subsets (5 k, 10 k of the 20 k) at
 *     fixed nlist and at fixed list size, for the size dependence;
 *  4. print the table f -> p (mean over the clusterings, min, max), the
 *     stored table df_pass.h interpolates (dfp_pass_ivf(); the run fails
 *     when its 2048 / 4096 rows no longer match) and the paper's points
 *     between dfp_pass_ivf() and dfp_pass_ivf_hi().
 *
 * Usage: bench_reis_dfpass [CORPUS_DIR|-] [NLIST...]   (default the
 *        wordnet subset, "skipped" without it; NLIST: extra clusterings
 *        printed after the table, powers of two)
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "df_pass.h"
#include "libreis_tools.h"
#include "ex_usage.h"

#define K 10
#define NF 12			/* f = 2^-11 .. 2^0 */
#define SHARE 0.01		/* REIS 4.3.3: 99 % filtered by a brute-force scan */

struct sub {
	float *x;
	uint64_t n;
};

/* Rows i with i % @stride == 0: a deterministic subset spread over the
 * corpus (its files are ordered by WordNet part of speech). */
static int subset(const struct reis_vecs *b, uint32_t stride, struct sub *s)
{
	uint64_t i;

	s->n = (b->n + stride - 1) / stride;
	s->x = malloc(s->n * b->dim * sizeof(float));
	if (!s->x)
		return -ENOMEM;
	for (i = 0; i < s->n; i++)
		memcpy(s->x + i * b->dim, (const float *)b->data + i * stride * b->dim, b->dim * sizeof(float));
	return 0;
}

static int build(const float *x, uint64_t n, uint32_t dim, uint32_t nlist,
		 struct reis_db_image *img)
{
	struct reis_build_opts bo;
	char err[512];

	dfp_build_opts(&bo, nlist);
	if (reis_db_build(&bo, x, n, dim, img, err, sizeof(err))) {
		fprintf(stderr, "bench_reis_dfpass: build nlist %u: %s\n", nlist, err);
		return -1;
	}
	return 0;
}

/* p(f) and captured share at every power-of-two f this nlist reaches. */
static int curve(const struct reis_db_image *img, const struct reis_queries *q,
		 const struct dfp_thr *th, double *p, double *cap)
{
	uint32_t nprobes[NF];
	struct dfp_acc acc[NF];
	unsigned i, np = 0, fi[NF];

	memset(acc, 0, sizeof(acc));
	for (i = 0; i < NF; i++) {
		uint32_t shift = NF - 1 - i;

		p[i] = cap[i] = -1;
		if (img->nlist % (1u << shift) == 0 && img->nlist >> shift >= 1) {
			fi[np] = i;
			nprobes[np++] = img->nlist >> shift;
		}
	}
	if (dfp_measure(img, q, th, nprobes, np, acc))
		return -1;
	for (i = 0; i < np; i++) {
		p[fi[i]] = acc[i].probed ? acc[i].passed / acc[i].probed : 0;
		cap[fi[i]] = acc[i].all ? acc[i].passed / acc[i].all : 0;
	}
	return 0;
}

static void print_row_head(void)
{
	printf("%-30s", "f = nprobe/nlist (%)");
	for (unsigned i = 0; i < NF; i++)
		printf(" %6.3f", 100.0 / (1u << (NF - 1 - i)));
	printf("\n");
}

static void print_row(const char *label, const double *v)
{
	printf("%-30s", label);
	for (unsigned i = 0; i < NF; i++) {
		if (v[i] < 0)
			printf(" %6s", "-");
		else
			printf(" %6.2f", 100.0 * v[i]);
	}
	printf("\n");
}

int main(int argc, char **argv)
{
	static const uint32_t nlists[] = { 64, 128, 256, 512, 1024, 2048, 4096 };
	enum { NL = sizeof(nlists) / sizeof(nlists[0]) };
	static const struct { uint32_t stride, nlist; } subs[] = {
		{ 4, 64 }, { 2, 64 }, { 4, 128 }, { 4, 256 }, { 2, 256 }, { 2, 512 },
		{ 2, 1024 }, { 2, 2048 },
	};
	double p[NL][NF], cap[NL][NF], mean[NF], lo[NF], hi[NF], stored[NF];
	struct corpus c;
	struct reis_db_image img;
	struct reis_queries q, cal;
	struct dfp_thr th;
	uint64_t *hist, *row2e = NULL, e;
	uint32_t dim, qi, j, keep_lt = 0, keep_le = 0;
	unsigned l, i;
	char err[1024], label[64];
	static const char usage[] = "usage: bench_reis_dfpass [CORPUS_DIR|-]   (default: "
				    "wordnet-subset)\n";

	ex_operands_only("bench_reis_dfpass", argc, argv, usage);
	if (argc > 2)
		ex_usage_err("bench_reis_dfpass", "unexpected argument", argv[2], usage);
	if (corpus_find(&c, argc > 1 && strcmp(argv[1], "-") ? argv[1] : NULL, "wordnet-subset")) {
		printf("bench_reis_dfpass: skipped: no corpus in %s (scripts/corpus.sh)\n", c.dir);
		return 0;
	}
	if (corpus_load(&c, err, sizeof(err))) {
		fprintf(stderr, "bench_reis_dfpass: %s\n", err);
		return 1;
	}
	dim = c.base.dim;
	hist = calloc(dim + 1, sizeof(*hist));
	if (!hist)
		return 1;

	/* 1. One threshold: brute force passes 1 % on the calibration queries. */
	for (l = 0; l < NL; l++) {
		if (build(c.base.data, c.base.n, dim, nlists[l], &img) ||
		    reis_encode_queries(img.quant, c.queries.data, (uint32_t)c.queries.n, &q))
			return 1;
		if (!l) {
			if (reis_encode_queries(img.quant, c.calib.data, (uint32_t)c.calib.n, &cal))
				return 1;
			dfp_bf_hist(&img, &cal, hist);
			if (dfp_threshold(hist, dim, SHARE, &th))
				return 1;
			/* The exact float top-10 of each evaluation query under it. */
			row2e = malloc(img.n * sizeof(*row2e));
			if (!row2e || !img.ids)
				return 1;
			for (e = 0; e < img.n; e++)
				row2e[img.ids[e]] = e;
			for (qi = 0; qi < q.nq; qi++) {
				const int32_t *gt = (const int32_t *)c.gt.data + (size_t)qi * c.gt.dim;

				for (j = 0; j < K; j++) {
					uint32_t d = reis_hamming(q.bin + (size_t)qi * (dim / 8),
						img.bin + row2e[gt[j]] * (dim / 8), dim / 8);

					keep_lt += d < th.t;
					keep_le += d <= th.t;
				}
			}
			printf("corpus %s: %" PRIu64 " passages x %u-d; %u evaluation, %u "
			       "calibration queries\n", c.dir, img.n, dim, q.nq, cal.nq);
			printf("threshold: Hamming < %u passes, = %u passes with weight %.3f: "
			       "brute force keeps %.2f %% on the calibration queries\n", th.t, th.t,
			       th.frac, 100.0 * SHARE);
			printf("exact float top-%u of the evaluation queries under it: %.2f %% "
			       "(d < %u), %.2f %% (d <= %u)\n\n", K,
			       100.0 * keep_lt / ((double)q.nq * K), th.t,
			       100.0 * keep_le / ((double)q.nq * K), th.t);
			print_row_head();
		}
		if (curve(&img, &q, &th, p[l], cap[l]))
			return 1;
		snprintf(label, sizeof(label), "p    nlist %4u (%3.0f/cluster)", nlists[l],
			 (double)img.n / nlists[l]);
		print_row(label, p[l]);
		snprintf(label, sizeof(label), "capt nlist %4u", nlists[l]);
		print_row(label, cap[l]);
		reis_queries_free(&q);
		reis_db_image_free(&img);
	}
	for (i = 0; i < NF; i++) {
		unsigned cnt = 0;

		mean[i] = 0;
		lo[i] = 2;
		hi[i] = -1;
		for (l = 0; l < NL; l++) {
			if (p[l][i] < 0)
				continue;
			mean[i] += p[l][i];
			cnt++;
			lo[i] = p[l][i] < lo[i] ? p[l][i] : lo[i];
			hi[i] = p[l][i] > hi[i] ? p[l][i] : hi[i];
		}
		mean[i] = cnt ? mean[i] / cnt : -1;
		if (!cnt)
			lo[i] = hi[i] = -1;
		stored[i] = dfp_pass_ivf(1.0 / (1u << (NF - 1 - i)));
	}
	printf("\n");
	print_row_head();
	print_row("p mean over nlist", mean);
	print_row("p min", lo);
	print_row("p max", hi);
	print_row("stored table dfp_pass_ivf()", stored);
	/* The stored tables are this run's nlist-2048 and 4096 rows; a change
	 * to the quantizer, k-means or corpus that moves them fails the
	 * benchmark. */
	for (l = 0; l < NL; l++) {
		const double *row = nlists[l] == DFP_TAB_NLIST ? dfp_tab_p :
				    nlists[l] == DFP_TAB_NLIST * 2 ? dfp_tab_p_fine : NULL;

		for (i = 0; row && i < NF; i++) {
			if (p[l][i] >= 0 && fabs(row[i] - p[l][i]) > 0.0005) {
				fprintf(stderr, "bench_reis_dfpass: stored table differs from "
					"the measured nlist %u row at f = 2^-%u: %.4f vs %.4f\n",
					nlists[l], NF - 1 - i, row[i], p[l][i]);
				return 1;
			}
		}
	}
	printf("\nthe paper's points (REIS 5-6: nlist 8192 / 16384, nprobe 16-256): p from the "
	       "stored nlist-2048 row (low end) .. the 4096 row plus its last doubling's "
	       "gain per doubling (high end)\n");
	for (l = 0; l < 2; l++) {
		uint32_t nl = l ? 16384 : 8192, npr;

		for (npr = 16; npr <= 256; npr *= 2)
			printf("nlist %5u nprobe %3u: f %.3f %%  p %.1f .. %.1f %%\n", nl, npr,
			       100.0 * npr / nl, 100 * dfp_pass_ivf((double)npr / nl),
			       100 * dfp_pass_ivf_hi((double)npr / nl, nl));
	}

	/* 3. Corpus size: strided subsets, the 20 k threshold (one distance). */
	printf("\ncorpus size (strided subsets, the same threshold):\n");
	print_row_head();
	for (i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		struct sub s;
		uint64_t h2[REIS_DB_MAX_DIM + 1];
		double ps[NF], cs[NF], bf = 0;
		uint32_t h;

		if (subset(&c.base, subs[i].stride, &s) || build(s.x, s.n, dim, subs[i].nlist, &img) ||
		    reis_encode_queries(img.quant, c.queries.data, (uint32_t)c.queries.n, &q) ||
		    curve(&img, &q, &th, ps, cs))
			return 1;
		memset(h2, 0, sizeof(h2));
		dfp_bf_hist(&img, &q, h2);
		for (h = 0; h <= dim; h++)
			bf += (double)h2[h] * dfp_weight(&th, h);
		snprintf(label, sizeof(label), "p %5" PRIu64 " nlist %4u bf %.2f%%", s.n,
			 subs[i].nlist, 100.0 * bf / ((double)s.n * q.nq));
		print_row(label, ps);
		reis_queries_free(&q);
		reis_db_image_free(&img);
		free(s.x);
	}
	/* Extra clusterings from the command line (powers of two), outside the
	 * table: how the gain per doubling of nlist goes on past 4096. */
	for (i = 2; i < (unsigned)argc; i++) {
		uint32_t nl = (uint32_t)strtoul(argv[i], NULL, 0);
		double ps[NF], cs[NF];

		if (!nl || (nl & (nl - 1)) || nl > c.base.n) {
			fprintf(stderr, "bench_reis_dfpass: nlist %s: a power of two up to n\n",
				argv[i]);
			return 1;
		}
		if (build(c.base.data, c.base.n, dim, nl, &img) ||
		    reis_encode_queries(img.quant, c.queries.data, (uint32_t)c.queries.n, &q) ||
		    curve(&img, &q, &th, ps, cs))
			return 1;
		if (i == 2)
			printf("\nextra clusterings:\n");
		snprintf(label, sizeof(label), "p    nlist %4u (%3.0f/cluster)", nl,
			 (double)img.n / nl);
		print_row(label, ps);
		snprintf(label, sizeof(label), "capt nlist %4u", nl);
		print_row(label, cs);
		reis_queries_free(&q);
		reis_db_image_free(&img);
	}
	printf("\np: passing share of the probed entries (pooled over the evaluation "
	       "queries); capt: passing entries inside the probed clusters / all passing "
	       "entries; f = 1 is the brute-force scan; bf: brute-force share on the "
	       "subset's evaluation queries.\n");
	free(row2e);
	free(hist);
	reis_queries_free(&cal);
	corpus_free(&c);
	return 0;
}
