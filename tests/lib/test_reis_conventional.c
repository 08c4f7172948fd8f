/* SPDX-License-Identifier: MIT */
/*
 * test_reis_conventional - the RAG demo's conventional path (docs/reis.md
 * §5): examples/rag_demo, run against an in-process drive, answers every
 * question in the drive and again by reading the bundle with ordinary reads
 * and searching on the CPU, and must find identical hits; the user's
 * questions (`rag_demo questions`, placed after the bundle as
 * scripts/rag-bundle.sh does) take the built-in ones' place; malformed or
 * missing questions are refused, and a missing bundle says where one comes
 * from. The helpers of examples/common/
 * conventional.h are checked directly: a changed hit is a difference, and
 * the normal-SSD cost model grows with the bytes. examples/group_demo
 * (`make demo-group`) on the same bundle: each merged hit names the drive
 * that returned it, and that is drive (entry mod 4), as its header says.
 * scripts/demo-plot.sh draws the RAG summary and the group's scheduled run
 * with their own numbers.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "conventional.h"
#include "corpus.h"
#include "libreis_tools.h"
#include "reis_synth.h"

#define DIM 128
#define N 3000
#define NQ 4
#define RAG_DID 4242u		/* rag_demo.c */
#define RAG_QUERIES_SEC 0x100u	/* rag_demo.c: the built-in questions */

static char dir[] = "/tmp/test_reis_conventional.XXXXXX";
static char tool[PATH_MAX + 64];
static char out[1 << 16];

static int run(const char *args)
{
	char cmd[PATH_MAX * 4];

	snprintf(cmd, sizeof(cmd), "%s %s 2>&1", tool, args);
	return cli_capture(cmd, out, sizeof(out));
}

static uint8_t *read_all(const char *p, uint64_t *len)
{
	char err[256];
	uint8_t *b = corpus_slurp_path(p, len, err, sizeof(err));

	if (!b)
		fprintf(stderr, "%s\n", err);
	return b;
}

static void check_model(void)
{
	struct fp_params p;
	struct conv_cost a, b, z;
	uint64_t stripe;

	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	stripe = (uint64_t)p.channels * p.dies_per_channel * p.planes_per_die * p.page_bytes;
	REQUIRE(conv_read_cost(&p, 0, &z) == 0);
	CHECK(z.read_ns == 0 && z.read_nj == 0);
	REQUIRE(conv_read_cost(&p, stripe, &a) == 0);
	REQUIRE(conv_read_cost(&p, 8 * stripe, &b) == 0);
	CHECK(a.bytes == stripe && a.read_ns > 0 && a.read_nj > 0);
	/* A stripe is one page read on every plane: at least two tR. */
	CHECK(a.read_ns >= 2.0 * p.t_read[p.native_mode] / 1e3);
	CHECK(b.read_ns > a.read_ns && b.read_nj > 7.9 * a.read_nj);
	/* The link bounds a long read from below. */
	CHECK(b.read_ns >= 8.0 * stripe * 1e3 / p.link_mbps);
	conv_cpu_cost(1e6, &a);
	CHECK(a.cpu_ns == 1e6 && a.cpu_nj > 5e6 && a.cpu_nj < 6e6);
	p.link_mbps = 0;
	CHECK(conv_read_cost(&p, stripe, &a) == -EINVAL);
}

static void check_same_hits(const struct reis_db_image *img, const float *qf)
{
	const struct reis_db_image *dbs[1] = { img };
	struct reis_search_result a, b;
	struct reis_search_opts o;
	struct reis_queries q;
	char why[256];

	REQUIRE(reis_encode_queries(img->quant, qf, 1, &q) == 0);
	memset(&o, 0, sizeof(o));
	o.did = img->did;
	o.k = 5;
	o.nprobe = 8;
	o.flags = REIS_SF_DOCS;
	REQUIRE(reis_ref_search(dbs, 1, 1, &o, &q, &a) == 0);
	REQUIRE(reis_ref_search(dbs, 1, 1, &o, &q, &b) == 0);
	CHECK(conv_same_hits(&a, &b, why, sizeof(why)) == 0);
	b.hits[2].score++;
	CHECK(conv_same_hits(&a, &b, why, sizeof(why)) == 3);
	CHECK(strstr(why, "hit 3") != NULL);
	b.hits[2].score--;
	b.nhits[0]--;
	CHECK(conv_same_hits(&a, &b, why, sizeof(why)) == 1);
	b.nhits[0]++;
	CHECK(conv_index_bytes(img) >= N * (DIM / 8 + DIM));
	CHECK(conv_hit_doc_bytes(&a) > 0);
	reis_search_result_free(&a);
	reis_search_result_free(&b);
	reis_queries_free(&q);
}

int main(void)
{
	float *x = synth_vectors(1, N, DIM, 30, 0.5f), *cq = synth_vectors(3, 100, DIM, 30, 0.5f);
	float *qf = synth_vectors(5, NQ, DIM, 30, 0.5f);
	char p[PATH_MAX + 32], txt[64], vec[64], blob[64], img_path[64], flash[64];
	char args[PATH_MAX], err[256];
	struct reis_build_opts o;
	struct reis_db_image img;
	uint64_t *off, blen, size, qoff;
	uint8_t *docs = synth_docs(4, N, 300, &off), *qb;
	FILE *f;
	int fd;

	REQUIRE(x && cq && qf && docs);
	if (cli_find(p, sizeof(p)) || !strstr(p, "/host-lib/reis"))
		SKIP("no build tree next to the test");
	*strstr(p, "/host-lib/reis") = 0;
	snprintf(tool, sizeof(tool), "%s/examples/group_demo", p);
	if (access(tool, X_OK))
		SKIP("%s not built (make examples)", tool);
	snprintf(tool, sizeof(tool), "%s/examples/rag_demo", p);
	if (access(tool, X_OK))
		SKIP("%s not built (make examples)", tool);
	REQUIRE(mkdtemp(dir));
	snprintf(txt, sizeof(txt), "%s/q.txt", dir);
	snprintf(vec, sizeof(vec), "%s/q.fvecs", dir);
	snprintf(blob, sizeof(blob), "%s/q.blob", dir);
	snprintf(img_path, sizeof(img_path), "%s/bundle.img", dir);
	snprintf(flash, sizeof(flash), "%s/flash.img", dir);

	check_model();

	/* The user's questions, as scripts/rag-bundle.sh makes them. */
	f = fopen(txt, "w");
	REQUIRE(f);
	fprintf(f, "what is the first question\nsecond question\nthird: caf\xc3\xa9 cr\xc3\xa8me \xe2\x98\x95\n");
	REQUIRE(fclose(f) == 0);
	REQUIRE(reis_fvecs_write(vec, qf, NQ, DIM) == 0);
	snprintf(args, sizeof(args), "questions %s %s %s", txt, vec, blob);
	CHECK(run(args) == 1);		/* 3 lines, 4 vectors */
	CHECK(strstr(out, "1..16 of each") != NULL);
	f = fopen(txt, "a");
	REQUIRE(f);
	fprintf(f, "and a fourth question?\n");
	REQUIRE(fclose(f) == 0);
	CHECK(run(args) == 0);
	qb = read_all(blob, &blen);
	REQUIRE(qb && blen > 16);

	/* The bundle: an IVF database with documents, the questions also as its
	 * built-in section. */
	memset(&o, 0, sizeof(o));
	o.did = RAG_DID;
	o.kind = REIS_DB_IVF;
	o.metric = REIS_METRIC_IP;
	o.flags = REIS_BUILD_INT8;
	o.docs = docs;
	o.doc_offsets = off;
	o.nlist = 30;
	o.km.seed = 1;
	o.km.max_iter = 8;
	o.calib_queries = cq;
	o.ncalib_queries = 100;
	o.name = "conv-test";
	if (reis_db_build(&o, x, N, DIM, &img, err, sizeof(err)))
		fprintf(stderr, "build: %s\n", err);
	REQUIRE(img.n == N && img.quant);
	check_same_hits(&img, qf);
	img.nextra = 1;
	img.extra[0].id = RAG_QUERIES_SEC;
	img.extra[0].data = qb;
	img.extra[0].len = blen;
	REQUIRE(reis_db_image_save(&img, img_path) == 0);
	fd = open(img_path, O_RDWR);
	REQUIRE(fd >= 0);
	size = (uint64_t)lseek(fd, 0, SEEK_END);
	qoff = (size + (1u << 20) - 1) & ~(uint64_t)((1u << 20) - 1);
	REQUIRE(pwrite(fd, qb, blen, (off_t)qoff) == (ssize_t)blen);
	REQUIRE(close(fd) == 0);

	/* Without --bundle on the host: where a bundle comes from, not only
	 * "/dev/nvme0n1: No such file or directory" */
	snprintf(args, sizeof(args), "run --inproc %s", flash);
	CHECK(run(args) == 1);
	CHECK(strstr(out, "rag_demo run --inproc BACKING --bundle OUT.img") != NULL);

	/* Built-in questions: deploy, then each one both ways. */
	snprintf(args, sizeof(args), "run --inproc %s --bundle %s", flash, img_path);
	CHECK(run(args) == 0);
	CHECK(strstr(out, "deploying database 4242") != NULL);
	CHECK(cli_count(out, ": the same 5 hits") == NQ);
	CHECK(cli_count(out, "conventional path (modeled)") == NQ);
	CHECK(strstr(out, "== summary") != NULL);
	CHECK(strstr(out, "2  second question") != NULL);
	/* UTF-8 whole in the summary, its columns aligned by characters */
	{
		const char *r2 = strstr(out, "\n2  second question"), *r3 =
			strstr(out, "\n3  third: caf\xc3\xa9 cr\xc3\xa8me \xe2\x98\x95 ");
		unsigned c2 = 0, c3 = 0;
		const char *p2, *p3;

		CHECK(r3 != NULL);
		/* characters up to the first number column */
		for (p2 = r2 + 1; r2 && *p2 && !(p2[0] == ' ' && p2[1] >= '0' && p2[1] <= '9' &&
			     p2 - r2 > 4); p2++)
			c2 += ((unsigned char)*p2 & 0xc0) != 0x80;
		for (p3 = r3 + 1; r3 && *p3 && !(p3[0] == ' ' && p3[1] >= '0' && p3[1] <= '9' &&
			     p3 - r3 > 4); p3++)
			c3 += ((unsigned char)*p3 & 0xc0) != 0x80;
		CHECK(r2 && r3 && c2 == c3);
	}
	if (cli_count(out, ": the same 5 hits") != NQ)
		fprintf(stderr, "%s\n", out);
	/* the summary drawn: its questions and the drive's times as labels */
	{
		static char t1[24];
		const char *w[] = { "2. second question", "3. third: caf\xc3\xa9 cr\xc3\xa8me \xe2\x98\x95",
				    "4. and a fourth question?", t1, NULL };
		const char *r1 = strstr(out, "\n1  what is the first question");
		double ms = 0;

		REQUIRE(r1);
		CHECK(sscanf(r1 + strlen("\n1  what is the first question"), "%lf", &ms) == 1);
		snprintf(t1, sizeof(t1), "%.3f", ms);
		CHECK(cli_plot_check("rag", out, w) == 0);
	}

	/* The user's questions after the bundle; the database is found again. */
	snprintf(args, sizeof(args), "run --inproc %s --bundle %s --questions %llu", flash,
		 img_path, (unsigned long long)qoff);
	CHECK(run(args) == 0);
	CHECK(strstr(out, "already deployed") != NULL);
	CHECK(cli_count(out, ": the same 5 hits") == NQ);
	CHECK(strstr(out, "question: \"and a fourth question?\"") != NULL);
	CHECK(strstr(out, "(*)") == NULL);

	/* Nothing there, or a malformed offset: refused with a reason. */
	snprintf(args, sizeof(args), "run --inproc %s --bundle %s --questions %llu", flash,
		 img_path, (unsigned long long)qoff + 4096);
	CHECK(run(args) == 1);
	CHECK(strstr(out, "no questions at byte") != NULL);
	snprintf(args, sizeof(args), "run --inproc %s --bundle %s --questions 12x", flash,
		 img_path);
	CHECK(run(args) == 2);

	/* group_demo on the bundle: the shard rule it states is the one it shows */
	{
		char gd[PATH_MAX + 64], cmd[PATH_MAX * 2];
		const char *h;
		unsigned d, e, lines = 0, bad = 0;

		snprintf(gd, sizeof(gd), "%s/examples/group_demo", p);
		/* --help answers (exit 0); a misspelt option is usage, not a
		 * bundle path */
		snprintf(cmd, sizeof(cmd), "%s --help 2>&1", gd);
		CHECK(cli_capture(cmd, out, sizeof(out)) == 0 && strstr(out, "usage: group_demo"));
		snprintf(cmd, sizeof(cmd), "%s %s --drive 2 2>&1", gd, img_path);
		CHECK(cli_capture(cmd, out, sizeof(out)) == 2 && strstr(out, "usage: group_demo"));
		snprintf(cmd, sizeof(cmd), "%s %s --drives 4 2>&1", gd, img_path);
		CHECK(cli_capture(cmd, out, sizeof(out)) == 0);
		CHECK(strstr(out, "entry e of the database, in IVF cluster order, on drive e mod 4")
		      != NULL);
		CHECK(strstr(out, "passage p on drive p mod") == NULL);
		CHECK(cli_count(out, "every hit came from drive (entry mod 4)") == 3);
		for (h = strstr(out, "[drive "); h; h = strstr(h + 1, "[drive "))
			if (sscanf(h, "[drive %u, entry %u,", &d, &e) == 2) {
				lines++;
				bad += e % 4 != d;
			}
		CHECK(lines == 3 * 3 && bad == 0);	/* 3 questions, top-3 */
		{
			static char host[24];
			const char *w[] = { "host alone", "one drive", "group (scheduled)", host,
					    NULL };
			const char *ms = strstr(out, "vs host alone (");
			double g = 0, hq = 0;

			REQUIRE(ms);
			CHECK(sscanf(ms, "vs host alone (%lf vs %lf q/s)", &g, &hq) == 2);
			snprintf(host, sizeof(host), "%.0f", hq);
			CHECK(cli_plot_check("group", out, w) == 0);
		}
		if (lines != 9 || bad)
			fprintf(stderr, "%u hit lines, %u on another drive:\n%s\n", lines, bad, out);
	}

	unlink(txt);
	unlink(vec);
	unlink(blob);
	unlink(img_path);
	unlink(flash);
	rmdir(dir);
	img.nextra = 0;
	reis_db_image_free(&img);
	free(qb);
	free(x);
	free(cq);
	free(qf);
	free(docs);
	free(off);
	return t_result();
}
