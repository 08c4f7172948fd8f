/* SPDX-License-Identifier: MIT */
/*
 * test_lib_messages - every failure message whole, with its status, on
 * every path: for each drive error below, the drive's reason as its Error
 * Information log (C2h) holds it must appear in full in reis_last_error()
 * (synchronous search), in the asynchronous request's msg, and in the
 * `reis` CLI's text and --json output, followed by the status name, its
 * code and DNR, and the error log entry; the JSON error document always
 * has errno and status. The CLI names an unknown option or a missing
 * value, a bad value beside what is allowed, and a dimension out of range is called that (not "not a multiple
 * of 64").
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "isp_wire.h"
#include "libreis_tools.h"
#include "reis_synth.h"

#define DIM 512
#define N 400

static struct reis_dev *dev;
static char dir[] = "/tmp/test_lib_messages.XXXXXX";
static char cli[PATH_MAX + 32], out[1 << 16];

/* The newest reason the drive recorded (C2h entry 0). */
static void newest_reason(char *buf, size_t len, uint16_t *status)
{
	struct isp_wire_err_text t;

	REQUIRE(reis_log_page(dev, ISP_LID_ERRTEXT, 0, &t, sizeof(t)) == 0);
	t.msg[sizeof(t.msg) - 1] = 0;
	snprintf(buf, len, "%s", t.msg);
	*status = t.status;
}

/* @m holds @reason whole, then the status by name and code. */
static void whole(const char *m, const char *reason, uint16_t status, const char *what)
{
	char want[128];
	const char *p = strstr(m, reason);
	size_t n = strlen(m);

	while (n && (m[n - 1] == '\n' || m[n - 1] == ' '))
		n--;
	snprintf(want, sizeof(want), "(status 0x%04x, DNR); error log entry ", status);
	CHECK(p != NULL);
	CHECK(p && strstr(p + strlen(reason), want) != NULL);
	CHECK(n && m[n - 1] == ')');
	if (!p || !strstr(p + strlen(reason), want))
		fprintf(stderr, "%s: '%s' lacks '%s' or '%s'\n", what, m, reason, want);
}

struct bad_search {
	const char *what;
	uint32_t did, k, flags, nprobe, df;
	int ivf;
	const char *cli;	/* the same search with the CLI's options */
	char reason[128];	/* what the drive recorded */
	uint16_t status;
};

static void check_search(struct bad_search *b, const struct reis_queries *q)
{
	struct reis_search_opts so;
	struct reis_search_result r;
	struct reis_search_req sr;
	char msg[REIS_MSG_LEN];
	int ret;

	memset(&so, 0, sizeof(so));
	so.did = b->did;
	so.k = b->k;
	so.flags = b->flags;
	so.nprobe = b->nprobe;
	so.df_threshold = b->df;
	so.tag = 1;
	ret = b->ivf ? reis_ivf_search(dev, &so, q, &r) : reis_search(dev, &so, q, &r);
	CHECK(ret < 0);
	if (ret >= 0) {
		reis_search_result_free(&r);
		return;
	}
	snprintf(msg, sizeof(msg), "%s", reis_last_error(dev));	/* a log read resets it */
	newest_reason(b->reason, sizeof(b->reason), &b->status);
	CHECK(strlen(b->reason) > 20);
	whole(msg, b->reason, b->status, b->what);

	/* asynchronous: the request's own message */
	memset(&sr, 0, sizeof(sr));
	REQUIRE(reis_search_submit(dev, &sr, b->ivf ? REIS_OP_IVF_SEARCH : REIS_OP_SEARCH, &so,
				   q, NULL, NULL) == 0);
	reis_search_wait(dev, &sr);
	CHECK(sr.err < 0);
	whole(sr.msg, b->reason, b->status, b->what);
	reis_search_result_free(&sr.res);
}

/* The same failures through the CLI, text and --json. */
static void check_cli(const struct bad_search *b, const char *qpath)
{
	char cmd[PATH_MAX * 4];
	const char *reason = b->reason;
	uint16_t st = b->status;

	if (!b->cli)
		return;
	snprintf(cmd, sizeof(cmd), "%s --inproc --backing %s/flash.img search %s %s 2>&1 "
		 ">/dev/null", cli, dir, b->cli, qpath);
	CHECK(cli_capture(cmd, out, sizeof(out)) == 1);
	whole(out, reason, st, b->what);
	snprintf(cmd, sizeof(cmd), "%s --inproc --backing %s/flash.img --json search %s %s "
		 "2>/dev/null", cli, dir, b->cli, qpath);
	CHECK(cli_capture(cmd, out, sizeof(out)) == 1);
	CHECK(strstr(out, reason) != NULL);
	{
		char f[64];

		snprintf(f, sizeof(f), "\"status\":%u,\"exit\":1}", st);
		CHECK(strstr(out, f) != NULL && strstr(out, "\"errno\":") != NULL);
		if (!strstr(out, f))
			fprintf(stderr, "%s: JSON '%s' lacks '%s'\n", b->what, out, f);
	}
}

/* CLI usage errors: named, and the JSON document has every field. */
static void check_usage(const char *args, const char *want, int code)
{
	char cmd[PATH_MAX * 4];

	snprintf(cmd, sizeof(cmd), "%s --inproc --backing %s/flash.img %s 2>&1 >/dev/null", cli,
		 dir, args);
	CHECK(cli_capture(cmd, out, sizeof(out)) == code);
	CHECK(strstr(out, want) != NULL);
	if (!strstr(out, want))
		fprintf(stderr, "'%s' says '%s', not '%s'\n", args, out, want);
	snprintf(cmd, sizeof(cmd), "%s --json --inproc --backing %s/flash.img %s 2>/dev/null",
		 cli, dir, args);
	CHECK(cli_capture(cmd, out, sizeof(out)) == code);
	CHECK(strstr(out, want) != NULL && strstr(out, "\"errno\":22,\"status\":0,\"exit\":"));
}

int main(void)
{
	static const struct bad_search bad[] = {
		{ "rerank without INT8 codes", 7, 3, 0, 0, 0, 0, NULL, "", 0 },
		{ "nprobe on a flat database", 8, 3, 0, 4, 0, 1, NULL, "", 0 },
		{ "DF threshold above the dimension", 8, 3, 0, 0, 600, 0,
		  "--did 8 -k 3 --df 600", "", 0 },
		{ "k above the entries", 8, 500, 0, 0, 0, 0, "--did 8 -k 500", "", 0 },
		{ "unknown database", 4242, 3, 0, 0, 0, 0, NULL, "", 0 },
		{ "tag on an untagged database", 8, 3, REIS_SF_TAG, 0, 0, 0,
		  "--did 8 -k 3 --tag 1", "", 0 },
	};
	static struct bad_search cases[sizeof(bad) / sizeof(bad[0])];
	float *x = synth_vectors(5, N, DIM, 8, 0.5f), *qf = synth_vectors(6, 2, DIM, 8, 0.5f);
	struct reis_build_opts bo;
	struct reis_db_image img;
	struct reis_inproc_opts io;
	struct reis_queries q;
	char err[256], path[96], qpath[96], args[PATH_MAX * 2 + 256];
	size_t i;

	REQUIRE(x && qf);
	if (cli_find(cli, sizeof(cli)))
		SKIP("reis CLI not built");
	REQUIRE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/flash.img", dir);
	snprintf(qpath, sizeof(qpath), "%s/q.fvecs", dir);
	REQUIRE(reis_fvecs_write(qpath, qf, 2, DIM) == 0);
	memset(&io, 0, sizeof(io));
	io.backing = path;
	REQUIRE(reis_open_inproc(&io, &dev) == 0);
	/* did 7 without INT8 codes, did 8 with */
	memset(&bo, 0, sizeof(bo));
	bo.kind = REIS_DB_BF;
	bo.did = 7;
	REQUIRE(reis_db_build(&bo, x, N, DIM, &img, err, sizeof(err)) == 0);
	REQUIRE(reis_db_deploy(dev, &img, NULL) == 0);
	reis_db_image_free(&img);
	bo.did = 8;
	bo.flags = REIS_BUILD_INT8;
	REQUIRE(reis_db_build(&bo, x, N, DIM, &img, err, sizeof(err)) == 0);
	REQUIRE(reis_db_deploy(dev, &img, NULL) == 0);
	REQUIRE(reis_encode_queries(img.quant, qf, 2, &q) == 0);
	reis_db_image_free(&img);

	memcpy(cases, bad, sizeof(bad));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check_search(&cases[i], &q);
	reis_queries_free(&q);
	reis_close(dev);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check_cli(&cases[i], qpath);

	/* the CLI meets an unknown database at DB_INFO */
	snprintf(args, sizeof(args), "%s --inproc --backing %s --json search --did 4242 %s "
		 "2>/dev/null", cli, path, qpath);
	CHECK(cli_capture(args, out, sizeof(out)) == 1);
	CHECK(strstr(out, "REIS_DB_INFO: database 4242 (CDW12) does not exist: ISP Unknown ID "
			  "(status 0x47c0, DNR); error log entry ") != NULL);
	CHECK(strstr(out, "\"errno\":2,\"status\":18368,\"exit\":1}") != NULL);
	/* the CLI says which of its options do not fit a flat database */
	snprintf(args, sizeof(args), "%s --inproc --backing %s search --did 8 --nprobe 4 %s 2>&1",
		 cli, path, qpath);
	CHECK(cli_capture(args, out, sizeof(out)) == 1);
	CHECK(strstr(out, "database 8 is flat (deployed without --ivf NLIST): --ivf, --nprobe and "
			  "--recall are for IVF databases") != NULL);
	check_usage("search --did 8 --bogus x", "search: unknown option '--bogus'", 2);
	check_usage("search --did 8 -Z x", "search: unknown option '-Z'", 2);
	check_usage("search --did", "search: option '--did' needs a value", 2);
	check_usage("deploy --frob=1 x", "deploy: unknown option '--frob'", 2);
	check_usage("--frob info", "unknown global option '--frob'", 2);
	check_usage("sls 1 --trace-k", "sls: option '--trace-k' needs a value", 2);
	check_usage("group bench --n 5", "group bench: --n must be in 64..67108864, not '5'", 2);
	/* a bad option value is named beside what is allowed, on every option
	 * (--preset nope: test_lib_cli) */
	check_usage("search --did 8 -k abc x", "search: -k must be 1..1024, not 'abc'", 2);
	check_usage("search --did 8 --df 0 x", "search: --df must be 1..8192, not '0'", 2);
	check_usage("deploy --metric cos x", "deploy: --metric must be ip or l2, not 'cos'", 2);
	check_usage("deploy --df auto --df-k 0 x", "deploy: --df-k must be 1..1024, not '0'", 2);
	check_usage("echo --dir sideways", "echo: --dir must be h2c, c2h or both, not 'sideways'",
		    2);
	check_usage("table create --tid 1 --rows 2 --dim 2 --dtype fp64",
		    "table create: --dtype is fp32, fp16 or int8, not 'fp64'", 2);
	check_usage("sls 1 --seed x", "sls: --seed must be an unsigned number, not 'x'", 2);
	check_usage("group --inproc-drives 99 list", "--inproc-drives takes 1..64, not '99'", 2);
	check_usage("group --inproc-drives 2 search --did 1 --nprobe 0 q",
		    "group search: --nprobe must be 1..1048576, not '0'", 2);
	/* a dimension out of range is called that */
	{
		float *w = calloc(64, 40064 * sizeof(float));
		char vp[96];

		REQUIRE(w);
		w[0] = 1;
		snprintf(vp, sizeof(vp), "%s/wide.fvecs", dir);
		REQUIRE(reis_fvecs_write(vp, w, 64, 40000) == 0);
		snprintf(args, sizeof(args), "%s --inproc deploy --no-progress %s 2>&1", cli, vp);
		CHECK(cli_capture(args, out, sizeof(out)) == 1);
		CHECK(strstr(out, "dimension 40000 is outside 64..8192") != NULL);
		CHECK(strstr(out, "multiple") == NULL);
		unlink(vp);
		free(w);
	}
	unlink(qpath);
	unlink(path);
	rmdir(dir);
	free(x);
	free(qf);
	return t_result();
}
