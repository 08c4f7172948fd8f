/* SPDX-License-Identifier: MIT */
/*
 * test_lib_group_cli - `reis group` with --json writes one JSON document
 * per run: list names every in-process member; sls deploys a sharded
 * table and pools bags identical to the host reference (--exact); deploy
 * and search shard an image file over drives kept in backing files and
 * the merged hits equal `reis search` on one drive holding the image;
 * bench prints the member sweep, the analytic what-if and the scheduled
 * runs' Table-I numbers;
 * errors (a missing image, a bad option, a database no member has) are a
 * JSON error document naming the problem (with the drive's reason and NVMe
 * status when a drive refused); a deploy to in-process drives without
 * --backing-dir warns that it is gone at exit.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "json_t.h"
#include "libreis_tools.h"
#include "reis_synth.h"

#define DIM 128
#define N 500

static char cli[PATH_MAX + 32], dir[64];
static char out[1 << 17];
static struct jp p;

static int run(const char *args)
{
	char cmd[PATH_MAX + 1024];
	int st;

	snprintf(cmd, sizeof(cmd), "%s --json group %s 2>/dev/null", cli, args);
	st = cli_capture(cmd, out, sizeof(out));
	if (json_parse(&p, out)) {
		fprintf(stderr, "not one JSON document: %s\n  %s\n", args, out);
		CHECK(0);
	}
	return st;
}

/* Build an image file and a query file in @dir. */
static void make_files(void)
{
	float *x = synth_vectors(31, N, DIM, 10, 0.5f), *qf = synth_vectors(32, 8, DIM, 10, 0.5f);
	struct reis_build_opts bo;
	struct reis_db_image img;
	char path[128], err[256];

	REQUIRE(x && qf);
	memset(&bo, 0, sizeof(bo));
	bo.did = 7;
	bo.kind = REIS_DB_BF;
	bo.flags = REIS_BUILD_INT8;
	REQUIRE(reis_db_build(&bo, x, N, DIM, &img, err, sizeof(err)) == 0);
	snprintf(path, sizeof(path), "%s/db.img", dir);
	REQUIRE(reis_db_image_save(&img, path) == 0);
	snprintf(path, sizeof(path), "%s/q.fvecs", dir);
	REQUIRE(reis_fvecs_write(path, qf, 8, DIM) == 0);
	reis_db_image_free(&img);
	free(x);
	free(qf);
}

int main(void)
{
	char args[512], one[1 << 15];
	unsigned i;

	if (cli_find(cli, sizeof(cli)))
		SKIP("the reis CLI is not built");
	snprintf(dir, sizeof(dir), "/tmp/reis-group-cli-XXXXXX");
	REQUIRE(mkdtemp(dir));
	make_files();

	CHECK(run("--inproc-drives 3 list") == 0);
	CHECK(jis(&p, "members", "3"));
	CHECK(jis(&p, "mixed", "false"));
	CHECK(jis(&p, "drives[2].name", "inproc2"));
	/* in-process drives: no controller, so no transport facts */
	CHECK(jis(&p, "drives[2].transport", "inproc"));
	CHECK(jis(&p, "drives[2].remote", "false"));
	CHECK(jis(&p, "drives[2].subsysnqn", ""));

	CHECK(run("--inproc-drives 3 sls --deploy 9 --tid 4 --rows 3001 --dim 24 --bags 50 "
		  "--exact --mean") == 0);
	CHECK(jis(&p, "members", "3"));
	CHECK(jis(&p, "matches_reference", "true"));
	CHECK(run("--inproc-drives 2 sls --deploy 9 --tid 4 --rows 3001 --dim 24") == 0);
	CHECK(jis(&p, "pieces", jget(&p, "pieces")) && atoi(jget(&p, "pieces")) <= 128);

	/* Deploy and search in separate runs: drives in backing files. */
	snprintf(args, sizeof(args), "--inproc-drives 4 --backing-dir %s deploy %s/db.img", dir,
		 dir);
	CHECK(run(args) == 0);
	CHECK(jis(&p, "entries", "500"));
	CHECK(jis(&p, "shards[3].entries", "125"));
	snprintf(args, sizeof(args), "--inproc-drives 4 --backing-dir %s search --did 7 --k 5 "
		 "%s/q.fvecs", dir, dir);
	CHECK(run(args) == 0);
	CHECK(jis(&p, "members", "4"));
	CHECK(jis(&p, "partial", "false"));
	memcpy(one, out, sizeof(one));
	{
		/* The same queries on one drive holding the whole image. */
		struct jp g = p;
		char cmd[4 * PATH_MAX + 512];

		snprintf(cmd, sizeof(cmd), "%s --json --backing %s/one.img deploy --image %s/db.img "
			 ">/dev/null 2>&1 && %s --json --backing %s/one.img search --did 7 --k 5 "
			 "%s/q.fvecs 2>/dev/null", cli, dir, dir, cli, dir, dir);
		CHECK(cli_capture(cmd, out, sizeof(out)) == 0);
		REQUIRE(json_parse(&p, out) == 0);
		for (i = 0; i < 8 * 5; i++) {
			char a[64], b[64];
			const char *x, *y;

			snprintf(a, sizeof(a), "queries[%u][%u].id", i / 5, i % 5);
			snprintf(b, sizeof(b), "queries[%u][%u].id", i / 5, i % 5);
			x = jget(&g, a);
			y = jget(&p, b);
			if (!x || !y || strcmp(x, y)) {
				fprintf(stderr, "hit %u: group %s, one drive %s\n", i, x ? x : "-",
					y ? y : "-");
				CHECK(0);
				break;
			}
		}
	}

	/* Errors are one JSON document too. */
	snprintf(args, sizeof(args), "--inproc-drives 4 --backing-dir %s search --did 99 "
		 "%s/q.fvecs", dir, dir);
	CHECK(run(args) == 1);
	CHECK(jget(&p, "error") && strstr(jget(&p, "error"), "inproc0"));
	/* the drive's reason and NVMe status, as reis search gives them */
	CHECK(jget(&p, "error") && strstr(jget(&p, "error"), "ISP Unknown ID (status 0x47c0"));
	CHECK(jis(&p, "status", "18368") && jis(&p, "errno", "2"));
	/* a deploy to drives that vanish at exit says so, as reis deploy does */
	{
		char cmd[PATH_MAX + 256];

		snprintf(cmd, sizeof(cmd), "%s group --inproc-drives 2 deploy %s/db.img 2>&1 "
			 ">/dev/null", cli, dir);
		CHECK(cli_capture(cmd, out, sizeof(out)) == 0 &&
		      strstr(out, "warning: in-process drives without --backing-dir"));
		snprintf(cmd, sizeof(cmd), "%s group --inproc-drives 2 --backing-dir %s deploy "
			 "--did 8 %s/db.img 2>&1 >/dev/null", cli, dir, dir);
		CHECK(cli_capture(cmd, out, sizeof(out)) == 0 && !strstr(out, "warning"));
	}
	CHECK(run("--inproc-drives 2 deploy /nonexistent.img") == 1);
	CHECK(jget(&p, "error") != NULL);
	CHECK(run("--inproc-drives 0 list") == 2);
	CHECK(run("--inproc-drives 2 frobnicate") == 2);
	CHECK(run("--timeout 0 --inproc-drives 2 list") == 2);
	CHECK(run("--timeout 5000 --inproc-drives 2 list") == 0);

	/* At 2000 entries a batch's fixed costs hide the scan (2 drives are
	 * not faster than one): the what-if refuses the line, naming --n. */
	CHECK(run("bench --members 1,2 --n 2000 --dim 128 --nq 16 --rows 5000 --rf-dim 16 "
		  "--what-if 1000000") == 1);
	CHECK(jget(&p, "error") && strstr(jget(&p, "error"), "--what-if") &&
	      strstr(jget(&p, "error"), "larger --n"));
	CHECK(run("bench --members 1,2 --n 20000 --dim 128 --nq 16 --rows 5000 --rf-dim 16 "
		  "--what-if 1000000") == 0);
	CHECK(jis(&p, "sweep[1].drives", "2"));
	CHECK(jget(&p, "sweep[0].search_qps_modeled") && jget(&p, "sweep[1].sls_bytes_to_host"));
	CHECK(jis(&p, "scheduled.drives", "2"));
	CHECK(jget(&p, "scheduled.batch_ratio") && atof(jget(&p, "scheduled.batch_ratio")) > 0);
	CHECK(jget(&p, "scheduled.processed_in_drives") != NULL);
	CHECK(jis(&p, "scheduled_sls.drives", "2"));
	/* The analytic what-if on a million entries: every rate positive, and
	 * more drives (1, 2, 4, 8, 16, 36, 64) always faster. */
	CHECK(jis(&p, "what_if[5].drives", "36"));
	{
		double prev = 0;
		unsigned w;

		for (w = 0; w < 7; w++) {
			char key[64];
			const char *v;

			snprintf(key, sizeof(key), "what_if[%u].qps_modeled", w);
			v = jget(&p, key);
			CHECK(v && atof(v) > prev);
			if (!v || !(atof(v) > prev)) {
				fprintf(stderr, "%s: %s after %g\n", key, v ? v : "-", prev);
				break;
			}
			prev = atof(v);
		}
	}
	CHECK(jget(&p, "scheduled_sls.server_energy_saving") != NULL);
	/* the text says what a negative saving is: more energy */
	{
		char cmd[PATH_MAX + 256];
		const char *q;
		double e = atof(jget(&p, "scheduled_sls.energy_saving"));
		int neg = 0;

		snprintf(cmd, sizeof(cmd), "%s group bench --members 1,2 --n 2000 --dim 128 --nq 16 "
			 "--rows 5000 --rf-dim 16 2>/dev/null", cli);
		CHECK(cli_capture(cmd, out, sizeof(out)) == 0);
		for (q = strstr(out, "% saving"); q; q = strstr(q + 1, "% saving")) {
			const char *b = q;

			while (b > out && b[-1] != '(')
				b--;
			neg |= *b == '-';
		}
		CHECK(!neg);
		/* each baseline says what it measures: one drive holding
		 * everything is measured, the drives without the host estimated
		 * (a bare "one drive" above "drives only" read as a paradox) */
		CHECK(strstr(out, "one drive holding everything ") &&
		      strstr(out, "(measured: every query in one search on one drive)") &&
		      strstr(out, "(measured: every bag in one SLS on one drive)"));
		CHECK(strstr(out, "the 2 drives without the host ") &&
		      strstr(out, "(estimated: the slowest drive's rate in this run, batches of "));
		CHECK(!strstr(out, "drives only"));
		if (e < 0)
			CHECK(strstr(out, "no saving: ") && strstr(out, "x the host alone's energy"));
	}
	/* --plot: the sweep as an SVG, with its modeled rates as labels */
	if (!system("command -v gnuplot >/dev/null 2>&1")) {
		char cmd[PATH_MAX + 256], svg[128], want[32];
		static char doc[1 << 18];
		FILE *f;
		size_t n;

		snprintf(svg, sizeof(svg), "%s/bench.svg", dir);
		CHECK(run("bench --members 1,2 --n 2000 --dim 128 --nq 16 --rows 5000 --rf-dim 16 "
			  "--plot /nonexistent-dir/x.svg") == 1);
		snprintf(cmd, sizeof(cmd), "bench --members 1,2 --n 2000 --dim 128 --nq 16 --rows "
			 "5000 --rf-dim 16 --plot %s", svg);
		CHECK(run(cmd) == 0);
		CHECK(jis(&p, "plot", svg));
		f = fopen(svg, "r");
		n = f ? fread(doc, 1, sizeof(doc) - 1, f) : 0;
		if (f)
			fclose(f);
		doc[n] = 0;
		CHECK(strstr(doc, "</svg>") && strstr(doc, ">searches per second<"));
		snprintf(want, sizeof(want), ">%.0f<", atof(jget(&p, "sweep[1].search_qps_modeled")));
		CHECK(strstr(doc, want) != NULL);
	}

	snprintf(args, sizeof(args), "rm -rf %s", dir);
	CHECK(system(args) == 0);
	return t_result();
}
