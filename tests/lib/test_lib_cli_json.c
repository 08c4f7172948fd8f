/* SPDX-License-Identifier: MIT */
/*
 * test_lib_cli_json - with --json every reis command writes exactly one JSON
 * document to stdout, success or failure: a failure's document carries the
 * message printed on stderr ("error"), the errno and NVMe status where there
 * is one, and the exit code ("exit"), and nothing of a half-written success
 * document survives. Runs each error path against an in-process drive kept
 * in a backing file (one brute-force database deployed first):
 *   1. drive errors: unknown database, k = 0, k above the database's size;
 *   2. host errors: wrong query dimension, a missing deploy input, an
 *      unwritable trace file (a missing file is errno ENOENT, also for
 *      search and group search's queries), ids given as queries, an
 *      unknown table;
 *   3. usage errors: a bad number, an unknown command or global option, no
 *      command, --json after other global options and in a short-flag cluster;
 *   4. successes still print their own document (hits with their entry), and
 *      --help stays text; an empty REIS_DEV, a missing device and a volatile
 *      in-process drive that a command writes to are named as such.
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
#define N 64

static char cli[PATH_MAX + 32], dir[64], flash[128];
static char out[1 << 16], err[1 << 14];
static struct jp p;

static const char *tp(const char *name)
{
	static char path[4][160];
	static unsigned i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
	return path[i];
}

/* Run `reis --backing FLASH ARGS`; stdout in out[], stderr in err[]. */
static int run(const char *args)
{
	char cmd[PATH_MAX + 1024];
	FILE *f;
	size_t n;
	int ret;

	snprintf(cmd, sizeof(cmd), "%s --backing %s %s 2>%s", cli, flash, args,
		 tp("stderr.txt"));
	ret = cli_capture(cmd, out, sizeof(out));
	err[0] = 0;
	f = fopen(tp("stderr.txt"), "r");
	if (f) {
		n = fread(err, 1, sizeof(err) - 1, f);
		err[n] = 0;
		fclose(f);
	}
	return ret;
}

/*
 * A failure: exit code @want_exit, stdout exactly one document whose "error"
 * contains @needle and equals the stderr message, "exit" the exit code.
 */
static void check_error_doc(const char *args, int want_exit, const char *needle)
{
	char exit_s[16];
	const char *e;
	int ret = run(args);

	fprintf(stderr, "-- reis %s\n", args);
	CHECK(ret == want_exit);
	if (json_parse(&p, out)) {
		fprintf(stderr, "not one JSON document: '%s'\n", out);
		CHECK(0);
		return;
	}
	e = jget(&p, "error");
	CHECK(e && strstr(e, needle));
	/* the same text the user sees on stderr ("reis: MSG") */
	CHECK(e && strstr(err, e));
	snprintf(exit_s, sizeof(exit_s), "%d", want_exit);
	CHECK(jis(&p, "exit", exit_s));
	/* every field on every failure (reis.1, docs/reis.md §3) */
	CHECK(jget(&p, "errno") && atoi(jget(&p, "errno")) > 0 && jget(&p, "status"));
	if (e && !strstr(e, needle))
		fprintf(stderr, "error '%s' lacks '%s'\n", e, needle);
}

int main(void)
{
	float *x = synth_vectors(1, N, DIM, 8, 0.5f), *q = synth_vectors(2, 2, DIM, 8, 0.5f);
	char args[1024];

	REQUIRE(x && q);
	if (cli_find(cli, sizeof(cli)))
		SKIP("reis CLI not built");
	snprintf(dir, sizeof(dir), "/tmp/test_lib_cli_json.XXXXXX");
	REQUIRE(mkdtemp(dir));
	snprintf(flash, sizeof(flash), "%s/flash.img", dir);
	REQUIRE(reis_fvecs_write(tp("v.fvecs"), x, N, DIM) == 0);
	REQUIRE(reis_fvecs_write(tp("q.fvecs"), q, 2, DIM) == 0);
	REQUIRE(reis_fvecs_write(tp("q64.fvecs"), q, 2, 64) == 0);
	{
		FILE *f = fopen(tp("ids.ivecs"), "wb");
		int32_t rec[1 + DIM] = { DIM };

		REQUIRE(f && fwrite(rec, sizeof(rec), 1, f) == 1 && fclose(f) == 0);
	}

	/* a success prints its own document */
	snprintf(args, sizeof(args), "--json deploy --did 4 --int8 --quant-out %s %s",
		 tp("q.quant"), tp("v.fvecs"));
	REQUIRE(run(args) == 0);
	REQUIRE(json_parse(&p, out) == 0);
	CHECK(jis(&p, "did", "4"));
	CHECK(jget(&p, "error") == NULL);

	/* every hit names its entry (its index in the database) beside its id */
	snprintf(args, sizeof(args), "--json search --did 4 -k 3 --quant %s %s", tp("q.quant"),
		 tp("q.fvecs"));
	REQUIRE(run(args) == 0);
	CHECK(json_parse(&p, out) == 0 && strstr(out, "\"entry\":") && strstr(out, "\"id\":"));

	/* 1. the drive refuses */
	snprintf(args, sizeof(args), "--json search --did 77 --quant %s %s", tp("q.quant"),
		 tp("q.fvecs"));
	check_error_doc(args, 1, "ISP Unknown ID");
	CHECK(jis(&p, "errno", "2"));
	CHECK(jget(&p, "status") != NULL);
	snprintf(args, sizeof(args), "--json search --did 4 -k 0 --quant %s %s", tp("q.quant"),
		 tp("q.fvecs"));
	check_error_doc(args, 2, "-k");
	snprintf(args, sizeof(args), "--json search --did 4 -k 65 --quant %s %s",
		 tp("q.quant"), tp("q.fvecs"));
	check_error_doc(args, 1, "Invalid Field");

	/* 2. host-side errors */
	snprintf(args, sizeof(args), "--json search --did 4 --quant %s %s", tp("q.quant"),
		 tp("q64.fvecs"));
	check_error_doc(args, 1, "dimension");
	/* a file that is not there: the message says so, and so does errno
	 * (ENOENT, not the EINVAL of bad usage) */
	snprintf(args, sizeof(args), "--json deploy --did 5 %s", tp("missing.fvecs"));
	check_error_doc(args, 1, "missing.fvecs");
	CHECK(jis(&p, "errno", "2"));
	snprintf(args, sizeof(args), "--json deploy --did 5 --docs %s %s", tp("missing.txt"),
		 tp("v.fvecs"));
	check_error_doc(args, 1, "missing.txt");
	CHECK(jis(&p, "errno", "2"));
	snprintf(args, sizeof(args), "--json search --did 4 %s", tp("missing.fvecs"));
	check_error_doc(args, 1, "missing.fvecs");
	CHECK(jis(&p, "errno", "2"));
	snprintf(args, sizeof(args), "--json group --inproc-drives 2 search --did 4 %s",
		 tp("missing.fvecs"));
	check_error_doc(args, 1, "missing.fvecs");
	CHECK(jis(&p, "errno", "2"));
	snprintf(args, sizeof(args), "--json trace --out /nonexistdir/x.json --did 4 "
		 "--quant %s %s", tp("q.quant"), tp("q.fvecs"));
	check_error_doc(args, 1, "/nonexistdir/x.json");
	CHECK(jis(&p, "errno", "2"));
	/* ids are not query vectors, in a group search as in a search */
	snprintf(args, sizeof(args), "--json group --inproc-drives 2 search --did 4 %s",
		 tp("ids.ivecs"));
	check_error_doc(args, 1, "int32 ids, not vectors");
	check_error_doc("--json table stats 99", 1, "ISP Unknown ID");

	/* 3. usage errors, wherever --json stands among the global options */
	check_error_doc("--json noop -n abc", 2, "--count");
	check_error_doc("--json frobnicate", 2, "unknown command 'frobnicate'");
	check_error_doc("--json --bogus info", 2, "global option");
	check_error_doc("--json", 2, "no command");
	check_error_doc("--preset reis-ssd1 --json --dev /dev/null info", 2, "exclude");
	check_error_doc("-ij db info 123456", 1, "db info");
	/* -d's value is the next word: a --json after it still counts */
	check_error_doc("-d /nonexistent/ng9n1 --json info", 2, "exclude");

	/* a bad drive name says what to use instead */
	{
		char cmd[PATH_MAX + 160];

		snprintf(cmd, sizeof(cmd), "%s --json --dev /nonexistent/ng9n1 info 2>/dev/null",
			 cli);
		CHECK(cli_capture(cmd, out, sizeof(out)) == 1);
		CHECK(json_parse(&p, out) == 0 && jget(&p, "error") &&
		      strstr(jget(&p, "error"), "no such device") &&
		      strstr(jget(&p, "error"), "reis list"));

		snprintf(cmd, sizeof(cmd), "REIS_DEV= %s --json info 2>/dev/null", cli);
		CHECK(cli_capture(cmd, out, sizeof(out)) == 1);
		CHECK(json_parse(&p, out) == 0 && jget(&p, "error") &&
		      strstr(jget(&p, "error"), "REIS_DEV is set but empty"));
		/* a command that writes to a drive that vanishes when it exits */
		snprintf(cmd, sizeof(cmd), "%s --inproc table create --tid 1 --rows 8 --dim 4 "
			 "2>&1 >/dev/null", cli);
		CHECK(cli_capture(cmd, out, sizeof(out)) == 0 &&
		      strstr(out, "warning: in-process drive without --backing"));
		snprintf(cmd, sizeof(cmd), "%s --inproc info 2>&1 >/dev/null", cli);
		CHECK(cli_capture(cmd, out, sizeof(out)) == 0 && !strstr(out, "warning"));
	}

	/* 4. no document is mixed into help text; other successes still print one */
	CHECK(run("--json search --help") == 0 && strstr(out, "usage: reis") &&
	      out[0] != '{');
	CHECK(run("--json db delete 4") == 0);
	CHECK(json_parse(&p, out) == 0 && jget(&p, "error") == NULL);

	snprintf(args, sizeof(args), "rm -rf %s", dir);
	CHECK(system(args) == 0);
	free(x);
	free(q);
	return t_result();
}
