/* SPDX-License-Identifier: MIT */
/*
 * test_lib_cli - the reis command-line tool on an in-process drive: --help,
 * info/noop/echo/stats/list in human and --json form; every --json output
 * is one valid JSON document whose fields match the drive; bad usage exits
 * 2 (an unknown --preset or --params key too), failures exit 1 with a
 * message.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "json_t.h"

/* ---- running the tool ---- */

static char cli[PATH_MAX + 32];
static char out[1 << 16];
static char err[1 << 12];

static int run(const char *args)
{
	char cmd[PATH_MAX + 600];

	snprintf(cmd, sizeof(cmd), "%s %s 2>/dev/null", cli, args);
	return cli_capture(cmd, out, sizeof(out));
}

/* run() with the standard error in err[] instead */
static int run_err(const char *args)
{
	char cmd[PATH_MAX + 600];

	snprintf(cmd, sizeof(cmd), "%s %s 2>&1 >/dev/null", cli, args);
	return cli_capture(cmd, err, sizeof(err));
}


int main(void)
{
	static struct jp p;

	if (cli_find(cli, sizeof(cli)))
		SKIP("reis CLI not built");

	CHECK(run("--help") == 0);
	CHECK(strstr(out, "Commands:") && strstr(out, "info") && strstr(out, "noop") &&
	      strstr(out, "echo") && strstr(out, "stats") && strstr(out, "list"));
	CHECK(run("--version") == 0);
	CHECK(strstr(out, "0.1.0") != NULL);
	CHECK(run("-i info --help") == 0);
	CHECK(strstr(out, "usage: reis") != NULL);

	CHECK(run("--inproc --json info") == 0);
	REQUIRE(json_parse(&p, out) == 0);
	CHECK(jis(&p, "transport", "inproc"));
	CHECK(jis(&p, "version", "1.1"));	/* command set 1.1: META, Ticket In Use */
	CHECK(jis(&p, "preset", "reis-ssd1"));
	CHECK(jis(&p, "max_xfer", "524288"));
	CHECK(jis(&p, "geometry.channels", "8"));
	CHECK(jis(&p, "geometry.dies_per_channel", "16"));
	CHECK(jis(&p, "geometry.planes_per_die", "2"));
	CHECK(jis(&p, "partitions[0].cell_mode", "slc"));
	CHECK(jis(&p, "caps[0]", "echo"));
	CHECK(jis(&p, "controller.ctrl_cmd_ns", "1000"));
	CHECK(jget(&p, "timing_ns.read_slc") != NULL);

	CHECK(run("--preset reis-ssd2 --max-xfer 1m --json info") == 0);
	REQUIRE(json_parse(&p, out) == 0);
	CHECK(jis(&p, "preset", "reis-ssd2"));
	CHECK(jis(&p, "geometry.channels", "16"));
	CHECK(jis(&p, "geometry.planes_per_die", "4"));
	CHECK(jis(&p, "max_xfer", "1048576"));

	CHECK(run("-i info") == 0);
	CHECK(strstr(out, "reis-ssd1") && strstr(out, "8 channels x 16 dies x 2 planes"));

	CHECK(run("-i -j noop -n 200 -q 8") == 0);
	REQUIRE(json_parse(&p, out) == 0);
	CHECK(jis(&p, "count", "200"));
	CHECK(jis(&p, "qd", "8"));
	CHECK(jget(&p, "model_avg_ns") && atof(jget(&p, "model_avg_ns")) >= 1000.0);
	CHECK(run("-i noop -n 10") == 0);
	CHECK(strstr(out, "10 ISP_NOOP") != NULL);

	CHECK(run("-i -j echo -s max -n 2") == 0);
	REQUIRE(json_parse(&p, out) == 0);
	CHECK(jis(&p, "size", "524288"));
	CHECK(jis(&p, "results[0].dir", "h2c"));
	CHECK(jis(&p, "results[0].ok", "true"));
	CHECK(jis(&p, "results[1].dir", "c2h"));
	CHECK(run("-i echo --dir c2h --size 64k --seed 9") == 0);
	CHECK(strstr(out, "c2h 1 x 65536 bytes: ok") != NULL);

	CHECK(run("-i -j stats --reset") == 0);
	REQUIRE(json_parse(&p, out) == 0);
	CHECK(jis(&p, "commands.device", "1"));	/* the identify at open */
	CHECK(jis(&p, "reset", "true"));
	CHECK(jget(&p, "busy_ns.link") != NULL);
	CHECK(run("-i stats") == 0);

	CHECK(run("-j list") == 0);
	CHECK(json_parse(&p, out) == 0);

	/* Failures and bad usage. */
	/* a bad in-process option is bad usage: 2, naming it and the known ones */
	CHECK(run_err("-i --preset nope info") == 2);
	CHECK(strstr(err, "'nope'") && strstr(err, "reis-ssd1") && strstr(err, "recflash-qlc"));
	CHECK(run("-i -j --preset nope info") == 2);
	REQUIRE(json_parse(&p, out) == 0);
	CHECK(jis(&p, "exit", "2") && jis(&p, "errno", "22"));
	CHECK(run_err("-i --params bogus_key=1 info") == 2);
	CHECK(strstr(err, "bogus_key") != NULL);
	CHECK(run_err("-i --params channels=abc info") == 2);
	CHECK(strstr(err, "'abc'") && strstr(err, "channels"));
	CHECK(run_err("--preset nope deploy --dim 64 --random 10") == 2);
	CHECK(run("--backing /nonexistent-dir/x info") == 1);	/* not usage: the file */
	CHECK(run("-i echo -s 6") == 2);
	CHECK(run("-i echo --dir sideways") == 2);
	CHECK(run("-i noop -n 0") == 2);
	CHECK(run("-i info extra") == 2);
	CHECK(run("bogus") == 2);
	CHECK(run("") == 2);
	CHECK(run("--dev /dev/null --inproc info") == 2);
	CHECK(run("--dev /dev/null -j info") == 1);
	return t_result();
}
