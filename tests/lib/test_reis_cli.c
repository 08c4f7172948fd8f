/* SPDX-License-Identifier: MIT */
/*
 * test_reis_cli - the reis CLI's REIS commands against an in-process drive
 * kept in a backing file between invocations: deploy (brute force from
 * .fvecs with documents, tags and a quantizer file; IVF with calibration;
 * --pack then --image), search from a file and from stdin (hits equal to
 * the library reference, --json), search with the quantizer the drive
 * stored (META) from a new process, deploy --df auto (calibrated threshold)
 * and --no-meta, db list/info/delete, trace to a Perfetto file, --help for
 * each command, and bad files and arguments refused with a clear message
 * and the documented exit code (1 failure, 2 usage).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "libreis_tools.h"
#include "reis_synth.h"

#define DIM 128
#define N 1000

static char cli[PATH_MAX + 32], dir[64], flash[128];
static char out[1 << 20];

static const char *tp(const char *name)
{
	static char p[4][160];
	static unsigned i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	return p[i];
}

/* Run the CLI with @args (stderr too when @err), output in out[]. */
static int run2(const char *input, const char *args, int err)
{
	char cmd[PATH_MAX + 2048];

	/* --backing is a global option: it goes before the command. */
	snprintf(cmd, sizeof(cmd), "%s%s%s%s --backing %s %s %s", input ? "cat " : "",
		 input ? input : "", input ? " | " : "", cli, flash, args,
		 err ? "2>&1" : "2>/dev/null");
	return cli_capture(cmd, out, sizeof(out));
}

static int run(const char *args)
{
	return run2(NULL, args, 0);
}


/* The ids of the first query's hits in a --json search output. */
static unsigned json_ids(const char *s, uint64_t *ids, unsigned max)
{
	const char *p = strstr(s, "\"queries\":[["), *end;
	unsigned n = 0;

	if (!p)
		return 0;
	p += 12;
	end = strchr(p, ']');
	while (n < max && (p = strstr(p, "\"id\":")) && (!end || p < end)) {
		ids[n++] = strtoull(p + 5, NULL, 10);
		p += 5;
	}
	return n;
}

int main(void)
{
	float *x = synth_vectors(71, N, DIM, 10, 0.5f), *qf = synth_vectors(72, 3, DIM, 10, 0.5f);
	float *cq = synth_vectors(73, 50, DIM, 10, 0.5f);
	struct reis_build_opts bo;
	struct reis_db_image img;
	struct reis_queries q;
	struct reis_search_opts so;
	struct reis_search_result ref;
	const struct reis_db_image *one[1];
	uint64_t ids[16];
	char err[256], args[2048];
	FILE *f;
	unsigned i, j, n;

	REQUIRE(x && qf && cq);
	if (cli_find(cli, sizeof(cli)))
		SKIP("reis CLI not built");
	snprintf(dir, sizeof(dir), "/tmp/test_reis_cli.XXXXXX");
	REQUIRE(mkdtemp(dir));
	snprintf(flash, sizeof(flash), "%s/flash.img", dir);
	REQUIRE(reis_fvecs_write(tp("v.fvecs"), x, N, DIM) == 0);
	REQUIRE(reis_fvecs_write(tp("q.fvecs"), qf, 3, DIM) == 0);
	REQUIRE(reis_fvecs_write(tp("c.fvecs"), cq, 50, DIM) == 0);
	f = fopen(tp("docs.txt"), "w");
	REQUIRE(f);
	for (i = 0; i < N; i++)
		fprintf(f, "document number %u about topic %u\n", i, i % 10);
	fclose(f);
	f = fopen(tp("tags.txt"), "w");
	REQUIRE(f);
	for (i = 0; i < N; i++)
		fprintf(f, "%u\n", i % 3);
	fclose(f);
	f = fopen(tp("q.txt"), "w");
	REQUIRE(f);
	for (i = 0; i < 3; i++)
		for (j = 0; j < DIM; j++)
			fprintf(f, "%.9g%s", qf[i * DIM + j], j + 1 < DIM ? (j % 2 ? " " : ", ") : "\n");
	fclose(f);

	/* --help of every command */
	CHECK(run("--help") == 0 && strstr(out, "deploy") && strstr(out, "search") &&
	      strstr(out, "trace") && strstr(out, "db "));
	for (i = 0; i < 4; i++) {
		static const char *const c[] = { "deploy", "search", "db", "trace" };

		snprintf(args, sizeof(args), "%s --help", c[i]);
		CHECK(run(args) == 0 && strstr(out, "usage: reis"));
	}

	/* deploy BF with documents, tags and the quantizer */
	snprintf(args, sizeof(args), "--json deploy --did 3 --name cli-bf --int8 --docs %s "
		 "--tags %s --quant-out %s %s", tp("docs.txt"), tp("tags.txt"), tp("q.quant"),
		 tp("v.fvecs"));
	CHECK(run(args) == 0);
	CHECK(strstr(out, "\"did\":3") && strstr(out, "\"n\":1000") &&
	      strstr(out, "\"tags\":true") && strstr(out, "\"doc_mode\":\"subpage\""));
	/* IVF with calibration; default did: the first free one (1) */
	snprintf(args, sizeof(args), "--json deploy --ivf 12 --int8 --calib %s --seed 5 %s",
		 tp("c.fvecs"), tp("v.fvecs"));
	CHECK(run(args) == 0);
	CHECK(strstr(out, "\"did\":1") && strstr(out, "\"nlist\":12") &&
	      strstr(out, "\"calibration\":[{\"nprobe\":1"));
	/* pack, then deploy the image under another id */
	snprintf(args, sizeof(args), "deploy --pack %s --int8 %s", tp("bf.img"), tp("v.fvecs"));
	CHECK(run(args) == 0);
	snprintf(args, sizeof(args), "--json deploy --did 9 --image %s", tp("bf.img"));
	CHECK(run(args) == 0 && strstr(out, "\"did\":9"));

	/* search: the same hits as the library reference on the same image */
	memset(&bo, 0, sizeof(bo));
	bo.did = 3;
	bo.kind = REIS_DB_BF;
	bo.flags = REIS_BUILD_INT8;
	REQUIRE(reis_db_build(&bo, x, N, DIM, &img, err, sizeof(err)) == 0);
	REQUIRE(reis_encode_queries(img.quant, qf, 3, &q) == 0);
	memset(&so, 0, sizeof(so));
	so.did = 3;
	so.k = 5;
	one[0] = &img;
	REQUIRE(reis_ref_search(one, 1, 0, &so, &q, &ref) == 0);
	snprintf(args, sizeof(args), "--json search --did 3 -k 5 --docs --quant %s %s",
		 tp("q.quant"), tp("q.fvecs"));
	CHECK(run(args) == 0);
	n = json_ids(out, ids, 5);
	CHECK(n == 5);
	for (i = 0; i < n; i++)
		CHECK(ids[i] == ref.hits[i].id);
	CHECK(strstr(out, "\"doc\":\"document number ") != NULL);
	/* from stdin, text floats */
	snprintf(args, sizeof(args), "--json search --did 3 -k 5 --quant %s -", tp("q.quant"));
	CHECK(run2(tp("q.txt"), args, 0) == 0);
	n = json_ids(out, ids, 5);
	CHECK(n == 5);
	for (i = 0; i < n; i++)
		CHECK(ids[i] == ref.hits[i].id);
	/* human output, tags, IVF with a recall target, the image's quantizer */
	snprintf(args, sizeof(args), "search --did 3 -k 3 --tag 2 --docs --quant %s %s",
		 tp("q.quant"), tp("q.fvecs"));
	CHECK(run(args) == 0 && strstr(out, "query 0:") && strstr(out, "modeled"));
	snprintf(args, sizeof(args), "search --did 9 --image %s %s", tp("bf.img"),
		 tp("q.fvecs"));
	CHECK(run(args) == 0 && strstr(out, "3 queries"));
	snprintf(args, sizeof(args), "search --did 1 --recall 0.9 --quant %s %s", tp("q.quant"),
		 tp("q.fvecs"));
	CHECK(run(args) == 0 && strstr(out, "nprobe"));

	/* db list / info / delete */
	CHECK(run("--json db list") == 0 && strstr(out, "\"did\":1") &&
	      strstr(out, "\"did\":3") && strstr(out, "\"did\":9"));
	CHECK(run("db list") == 0 && strstr(out, "cli-bf"));
	CHECK(run("--json db info 1") == 0 && strstr(out, "\"kind\":\"ivf\"") &&
	      strstr(out, "\"state\":\"ready\""));
	CHECK(run("db info 3") == 0 && strstr(out, "database       3 'cli-bf'"));
	CHECK(run("db delete 9") == 0);
	CHECK(run2(NULL, "db info 9", 1) == 1 && strstr(out, "ISP Unknown ID"));

	/* trace: a Perfetto JSON file */
	snprintf(args, sizeof(args), "trace --out %s --did 1 --nprobe 3 --quant %s %s",
		 tp("t.json"), tp("q.quant"), tp("q.fvecs"));
	CHECK(run(args) == 0 && strstr(out, "Perfetto"));
	f = fopen(tp("t.json"), "r");
	CHECK(f != NULL);
	if (f) {
		n = (unsigned)fread(out, 1, sizeof(out) - 1, f);
		out[n] = 0;
		fclose(f);
		CHECK(out[0] == '{' && strstr(out, "traceEvents"));
	}

	/* bad input: clear messages, exit 1 (failure) or 2 (usage) */
	f = fopen(tp("bad.fvecs"), "w");
	REQUIRE(f);
	fwrite(x, 1, 1000, f);
	fclose(f);
	snprintf(args, sizeof(args), "deploy %s", tp("bad.fvecs"));
	CHECK(run2(NULL, args, 1) == 1 && strstr(out, "bad.fvecs"));
	f = fopen(tp("short.txt"), "w");
	REQUIRE(f);
	fprintf(f, "one\ntwo\n");
	fclose(f);
	snprintf(args, sizeof(args), "deploy --docs %s %s", tp("short.txt"), tp("v.fvecs"));
	CHECK(run2(NULL, args, 1) == 1 && strstr(out, "has 2 lines"));
	snprintf(args, sizeof(args), "deploy --did 3 --int8 %s", tp("v.fvecs"));
	CHECK(run2(NULL, args, 1) == 1 && strstr(out, "ISP ID Exists"));
	/* No --quant: each run is a new process; the quantizer comes from the
	 * drive (META), the hits are the reference's. */
	snprintf(args, sizeof(args), "--json search --did 3 -k 5 %s", tp("q.fvecs"));
	CHECK(run(args) == 0);
	n = json_ids(out, ids, 5);
	CHECK(n == 5);
	for (i = 0; i < n; i++)
		CHECK(ids[i] == ref.hits[i].id);
	CHECK(run("--json db info 3") == 0 && strstr(out, "\"meta_bytes\":") &&
	      !strstr(out, "\"meta_bytes\":0"));
	/* Deployed without META: search needs a quantizer file. */
	snprintf(args, sizeof(args), "--json deploy --did 5 --no-meta --int8 %s", tp("v.fvecs"));
	CHECK(run(args) == 0 && strstr(out, "\"meta\":false"));
	snprintf(args, sizeof(args), "search --did 5 %s", tp("q.fvecs"));
	CHECK(run2(NULL, args, 1) == 1 && strstr(out, "no quantizer") && strstr(out, "--quant"));
	CHECK(run("db delete 5") == 0);
	snprintf(args, sizeof(args), "search --did 3 --quant %s --image %s %s", tp("q.quant"),
		 tp("bf.img"), tp("q.fvecs"));
	CHECK(run2(NULL, args, 1) == 2 && strstr(out, "at most one"));
	/* --df auto: a threshold calibrated on held-out queries (BF too). */
	snprintf(args, sizeof(args), "--json deploy --did 6 --int8 --df auto --calib %s %s",
		 tp("c.fvecs"), tp("v.fvecs"));
	CHECK(run(args) == 0 && strstr(out, "\"df_calibration\":{") &&
	      !strstr(out, "\"df_threshold\":0,"));
	CHECK(run("db info 6") == 0 && strstr(out, "df threshold"));
	snprintf(args, sizeof(args), "search --did 6 -k 10 %s", tp("q.fvecs"));
	CHECK(run(args) == 0 && strstr(out, "3 queries"));
	CHECK(run("db delete 6") == 0);
	snprintf(args, sizeof(args), "deploy --did 7 --df auto %s", tp("v.fvecs"));
	CHECK(run2(NULL, args, 1) == 2 && strstr(out, "--calib"));
	snprintf(args, sizeof(args), "deploy --did 7 --df 20 --df-quantile 0.9 %s",
		 tp("v.fvecs"));
	CHECK(run2(NULL, args, 1) == 2);
	CHECK(run2(NULL, "search --did 3 --quant /nonexistent x.fvecs", 1) == 1 &&
	      strstr(out, "/nonexistent"));
	CHECK(run2(NULL, "deploy --ivf -3 x.fvecs", 1) == 2);
	CHECK(run2(NULL, "db frobnicate", 1) == 2);
	f = fopen(tp("badq.txt"), "w");
	REQUIRE(f);
	fprintf(f, "1 2 3\n1 2\n");
	fclose(f);
	snprintf(args, sizeof(args), "search --did 3 --quant %s -", tp("q.quant"));
	CHECK(run2(tp("badq.txt"), args, 1) == 1 && strstr(out, "has 2 values, the first 3"));
	snprintf(args, sizeof(args), "search --did 404 --quant %s %s", tp("q.quant"),
		 tp("q.fvecs"));
	CHECK(run2(NULL, args, 1) == 1 && strstr(out, "ISP Unknown ID"));

	reis_search_result_free(&ref);
	reis_queries_free(&q);
	reis_db_image_free(&img);
	snprintf(args, sizeof(args), "rm -rf %s", dir);
	if (system(args))
		fprintf(stderr, "could not remove %s\n", dir);
	free(x);
	free(qf);
	free(cq);
	return t_result();
}
