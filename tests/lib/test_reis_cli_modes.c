/* SPDX-License-Identifier: MIT */
/*
 * test_reis_cli_modes - a new user's first REIS search with the `reis` CLI
 * (docs/reis.md §1.4), on the kind of data that exposes the binary codes:
 * 3000 x 128 Gaussian vectors, no clusters.
 *   1. `reis deploy VECTORS` without options stores INT8 codes, and
 *      `reis search` on it works (the default used to fail: no INT8);
 *   2. the default search is approximate and says so, with the recall the
 *      deploy measured; here it misses true neighbours;
 *   3. `--exact` returns the exact top-k by INT8 score (checked against the
 *      test's own scoring of every entry) and its estimate is higher;
 *   4. a database deployed with --no-int8 is searched by Hamming distance
 *      and says why; --exact on it names the CLI's options;
 *   5. IVF without --calib: the default --recall search works (the table
 *      is measured on held-out rows);
 *   6. --json carries the mode and the estimate;
 *   7. db info, db list and stats (text and JSON) say an in-process drive
 *      counts from its opening.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "libreis_tools.h"
#include "reis_synth.h"

#define DIM 128
#define N 3000
#define NQ 12
#define K 3

static char dir[] = "/tmp/test_reis_cli_modes.XXXXXX";
static char cli[PATH_MAX + 32], out[1 << 18];

/* Standard output (@err: and standard error) of `reis ARGS` on the file drive. */
static int run(const char *args, int err)
{
	char cmd[PATH_MAX * 4];

	snprintf(cmd, sizeof(cmd), "%s --inproc --backing %s/flash.img %s %s", cli, dir, args,
		 err ? "2>&1" : "2>/dev/null");
	return cli_capture(cmd, out, sizeof(out));
}

/* The ids of the text output's hits, query after query. */
static int parse_ids(const char *s, uint32_t *ids, int max)
{
	int n = 0;
	unsigned h;
	unsigned long id;

	for (s = strstr(s, "\n   "); s && n < max; s = strstr(s + 1, "\n   "))
		if (sscanf(s, " %u. id %lu", &h, &id) == 2)
			ids[n++] = (uint32_t)id;
	return n;
}

/* The exact top-K by INT8 score of every entry (ties: Hamming, entry),
 * computed here from the drive's quantizer: what --exact must return. */
static void int8_topk(const struct reis_quant *qz, const float *x, const float *q,
		      uint32_t *want)
{
	int8_t *x8 = malloc((size_t)N * DIM), q8[NQ * DIM];
	uint8_t *xb = malloc((size_t)N * DIM / 8), qb[NQ * DIM / 8];
	uint32_t qi, i, j;

	REQUIRE(x8 && xb);
	reis_quant_int8(qz, x, N, x8);
	reis_quant_binary(qz, x, N, xb);
	reis_quant_int8_query(qz, q, NQ, q8);
	reis_quant_binary(qz, q, NQ, qb);
	for (qi = 0; qi < NQ; qi++) {
		int64_t best_s[K];
		uint32_t best_h[K], best_i[K], nb = 0;

		for (i = 0; i < N; i++) {
			int64_t s = 0;
			uint32_t h = reis_hamming(qb + qi * DIM / 8, xb + (size_t)i * DIM / 8, DIM / 8);
			uint32_t pos;

			for (j = 0; j < DIM; j++)
				s += (int64_t)q8[qi * DIM + j] * x8[(size_t)i * DIM + j];
			for (pos = nb; pos > 0; pos--) {
				if (best_s[pos - 1] > s || (best_s[pos - 1] == s && best_h[pos - 1] <= h))
					break;
				if (pos < K) {
					best_s[pos] = best_s[pos - 1];
					best_h[pos] = best_h[pos - 1];
					best_i[pos] = best_i[pos - 1];
				}
			}
			if (pos < K) {
				best_s[pos] = s;
				best_h[pos] = h;
				best_i[pos] = i;
				if (nb < K)
					nb++;
			}
		}
		memcpy(want + qi * K, best_i, sizeof(best_i));
	}
	free(x8);
	free(xb);
}

static double recall_of(const uint32_t *got, const uint32_t *truth)
{
	uint32_t qi, a, b, found = 0;

	for (qi = 0; qi < NQ; qi++)
		for (a = 0; a < K; a++)
			for (b = 0; b < K; b++)
				found += got[qi * K + b] == truth[qi * K + a];
	return (double)found / (NQ * K);
}

/* "recall@10 estimated at deploy 0.xyz" of the mode line. */
static double estimate(void)
{
	const char *p = strstr(out, "estimated at deploy ");
	double r = -1;

	if (p)
		sscanf(p + strlen("estimated at deploy "), "%lf", &r);
	return r;
}

int main(void)
{
	float *x = malloc(sizeof(float) * N * DIM), *q = malloc(sizeof(float) * NQ * DIM);
	uint32_t truth[NQ * K], want[NQ * K], got[NQ * K + 1];
	char base[96], qpath[96], args[PATH_MAX * 2], fpath[96];
	struct reis_inproc_opts io;
	struct reis_quant qz;
	struct reis_dev *dev;
	double r_approx, r_exact;
	uint64_t seed = 30;
	uint32_t i;

	REQUIRE(x && q);
	if (cli_find(cli, sizeof(cli)))
		SKIP("reis CLI not built");
	for (i = 0; i < N * DIM; i++)
		x[i] = synth_gauss(&seed);
	for (i = 0; i < NQ * DIM; i++)
		q[i] = synth_gauss(&seed);
	REQUIRE(reis_exact_topk(x, N, DIM, q, NQ, K, REIS_METRIC_IP, truth, NULL) == 0);
	REQUIRE(mkdtemp(dir));
	snprintf(base, sizeof(base), "%s/x.fvecs", dir);
	snprintf(qpath, sizeof(qpath), "%s/q.fvecs", dir);
	snprintf(fpath, sizeof(fpath), "%s/flash.img", dir);
	REQUIRE(reis_fvecs_write(base, x, N, DIM) == 0);
	REQUIRE(reis_fvecs_write(qpath, q, NQ, DIM) == 0);

	/* 1. the defaults: deploy, search */
	snprintf(args, sizeof(args), "deploy --no-progress %s", base);
	CHECK(run(args, 0) == 0);
	CHECK(strstr(out, "bf + int8") != NULL);
	CHECK(strstr(out, "estimated      recall@10 ") != NULL);
	snprintf(args, sizeof(args), "search --did 1 -k %d %s", K, qpath);
	CHECK(run(args, 0) == 0);
	/* 2. approximate, said so, with the deploy's estimate */
	CHECK(strstr(out, "mode: approximate (10 x k nearest by Hamming distance, INT8 rerank; "
			  "the paper's method") != NULL);
	r_approx = estimate();
	CHECK(r_approx > 0 && r_approx < 1);
	CHECK(parse_ids(out, got, NQ * K + 1) == NQ * K);
	CHECK(recall_of(got, truth) < 1);	/* it is not exact on this data */
	printf("default search: recall@%d %.3f against exact float, estimate@10 %.3f\n", K,
	       recall_of(got, truth), r_approx);

	/* 3. --exact: every entry scored, the exact INT8 top-k */
	memset(&io, 0, sizeof(io));
	io.backing = fpath;
	REQUIRE(reis_open_inproc(&io, &dev) == 0);
	REQUIRE(reis_db_quantizer(dev, 1, &qz) == 0);
	reis_close(dev);
	int8_topk(&qz, x, q, want);
	reis_quant_free(&qz);
	snprintf(args, sizeof(args), "search --did 1 -k %d --exact %s", K, qpath);
	CHECK(run(args, 0) == 0);
	CHECK(strstr(out, "mode: exact (every entry reranked by INT8 score") != NULL);
	CHECK(strstr(out, ", 36000 reranked") != NULL);	/* every entry, every query */
	r_exact = estimate();
	CHECK(r_exact > r_approx && r_exact <= 1);
	CHECK(parse_ids(out, got, NQ * K + 1) == NQ * K);
	CHECK(memcmp(got, want, sizeof(want)) == 0);
	CHECK(recall_of(got, truth) > recall_of(want, truth) - 1e-9);
	printf("--exact: recall@%d %.3f against exact float, estimate@10 %.3f\n", K,
	       recall_of(got, truth), r_exact);
	snprintf(args, sizeof(args), "search --did 1 --exact --nprobe 4 %s", qpath);
	CHECK(run(args, 1) == 2 && strstr(out, "--exact reranks every entry: it goes without"));

	/* 4. no INT8 codes: Hamming only, and why */
	snprintf(args, sizeof(args), "deploy --did 2 --no-int8 --no-progress %s", base);
	CHECK(run(args, 0) == 0 && strstr(out, "bf, no documents"));
	snprintf(args, sizeof(args), "search --did 2 -k %d %s", K, qpath);
	CHECK(run(args, 0) == 0);
	CHECK(strstr(out, "mode: binary (Hamming distance only): the database has no INT8 codes"));
	snprintf(args, sizeof(args), "search --did 2 --exact %s", qpath);
	CHECK(run(args, 1) == 1);
	CHECK(strstr(out, "database 2 has no INT8 codes (deployed with --no-int8), and --exact "
			  "reranks with them") != NULL);
	CHECK(strstr(out, "SF_NO_RERANK") == NULL);

	/* 5. IVF without held-out queries: the default search works */
	snprintf(args, sizeof(args), "deploy --did 3 --ivf 0 --no-progress %s", base);
	CHECK(run(args, 0) == 0 && strstr(out, "calibration (nprobe:recall@10) 1:"));
	snprintf(args, sizeof(args), "search --did 3 --ivf -k %d %s", K, qpath);
	CHECK(run(args, 0) == 0 && strstr(out, "mode: approximate"));
	/* without --ivf every entry is compared, which deploy did not
	 * estimate: said so, not "reis deploy measures the defaults" */
	snprintf(args, sizeof(args), "search --did 3 -k %d %s", K, qpath);
	CHECK(run(args, 0) == 0 && strstr(out, "mode: approximate") &&
	      strstr(out, "every entry of IVF database 3 compared (no --ivf)") &&
	      !strstr(out, "measures the defaults"));

	/* 6. --json */
	snprintf(args, sizeof(args), "--json search --did 1 -k %d --exact %s", K, qpath);
	CHECK(run(args, 0) == 0);
	CHECK(strstr(out, "\"mode\":\"exact\",\"recall_estimate\":{\"mode\":\"exact\",\"k\":10,"));
	snprintf(args, sizeof(args), "--json search --did 1 --factor 7 %s", qpath);
	CHECK(run(args, 0) == 0 && strstr(out, "\"mode\":\"approximate\",\"recall_estimate\":null"));
	/* counters of an in-process drive are this process's, and it says so */
	CHECK(run("db info 1", 0) == 0 && strstr(out, "searches       0 (by this process"));
	CHECK(run("--json db info 1", 0) == 0 &&
	      strstr(out, "\"counting_since\":\"this process opened the drive\""));
	CHECK(run("--json db list", 0) == 0 &&
	      strstr(out, "\"counting_since\":\"this process opened the drive\""));
	CHECK(run("stats", 0) == 0 && strstr(out, "(in-process drive: these count what this "
					       "process did"));
	CHECK(run("--json stats", 0) == 0 &&
	      strstr(out, "\"counting_since\":\"this process opened the drive\""));
	if (t_failures)
		fprintf(stderr, "last output:\n%.4000s\n", out);

	unlink(base);
	unlink(qpath);
	unlink(fpath);
	rmdir(dir);
	free(x);
	free(q);
	return t_result();
}
