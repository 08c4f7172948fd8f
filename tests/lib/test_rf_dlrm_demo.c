/* SPDX-License-Identifier: MIT */
/*
 * test_rf_dlrm_demo - examples/dlrm_demo against an in-process drive: by
 * default it runs the same batches with the tables placed RecSSD-like,
 * RM-SSD-like and by RecFlash, each checked against the host-only
 * inference, and prints them side by side with the host MLP time; one
 * --mode runs that one alone; a bad --mode is refused. The three modes are
 * measured on the same batches: each batch's click probabilities are the
 * same in every mode, and so is the digest of their inputs; the baselines,
 * which have no cache, show '-' for cache hits. scripts/demo-plot.sh draws
 * the side-by-side table with its own numbers.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"

static char out[1 << 16];

/* The n-th "batch B: p(click) = ..." line of @s (0-based), or NULL. */
static const char *batch_line(const char *s, unsigned b, unsigned nth, char *buf, size_t len)
{
	char key[32];
	const char *p = s;
	unsigned i;

	snprintf(key, sizeof(key), "\nbatch %u: p(click) =", b);
	for (i = 0; i <= nth; i++) {
		p = strstr(p, key);
		if (!p)
			return NULL;
		p++;
	}
	snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
	return buf;
}

int main(void)
{
	char p[PATH_MAX + 32], cmd[PATH_MAX + 256];
	const char *row;
	double ems, mj, reads, hits, mlp, total;

	if (cli_find(p, sizeof(p)) || !strstr(p, "/host-lib/reis"))
		SKIP("no build tree next to the test");
	*strstr(p, "/host-lib/reis") = 0;
	snprintf(cmd, sizeof(cmd), "%s/examples/dlrm_demo", p);
	if (access(cmd, X_OK))
		SKIP("%s not built (make examples)", cmd);
	snprintf(cmd, sizeof(cmd), "%s/examples/dlrm_demo --inproc --rows 3000 --batches 2 "
		 "--batch 8 2>&1", p);
	CHECK(cli_capture(cmd, out, sizeof(out)) == 0);
	CHECK(cli_count(out, "OK: all 16 probabilities equal the host-only inference") == 3);
	CHECK(strstr(out, "== side by side") != NULL);
	row = strstr(out, "\nRecFlash ");
	REQUIRE(row);
	CHECK(sscanf(row + 9, "%lf %lf %lf %lf %lf %lf", &ems, &mj, &reads, &hits, &mlp,
		     &total) == 6);
	CHECK(ems > 0 && mj > 0 && reads > 0 && mlp > 0);
	CHECK(total > ems && total < ems + mlp + 0.01);
	CHECK(strstr(out, "\nRecSSD-like ") && strstr(out, "\nRM-SSD-like "));
	/* the same batches in every mode */
	{
		char a[256], b[256], c[256];
		unsigned bt;
		const char *d = strstr(out, "digest 0x");

		for (bt = 0; bt < 2; bt++) {
			REQUIRE(batch_line(out, bt, 0, a, sizeof(a)) && batch_line(out, bt, 1, b,
				sizeof(b)) && batch_line(out, bt, 2, c, sizeof(c)));
			CHECK(strcmp(a, b) == 0 && strcmp(a, c) == 0);
			if (strcmp(a, c))
				fprintf(stderr, "batch %u differs: '%s' / '%s'\n", bt, a, c);
		}
		REQUIRE(d);
		snprintf(a, sizeof(a), "digest %.18s", d + 7);
		CHECK(cli_count(out, a) == 4);	/* three modes and the side-by-side line */
		CHECK(strstr(out, "same inputs: every mode ran the same 2 batches") != NULL);
		CHECK(strstr(out, "FAIL") == NULL);
	}
	{
		char dash[8] = "";

		CHECK(sscanf(strstr(out, "\nRecSSD-like ") + 13, "%*f %*f %*f %7s", dash) == 1);
		CHECK(strcmp(dash, "-") == 0);	/* no cache in that mode */
	}
	CHECK(strstr(out, "cache hits: only RecFlash has the page cache") != NULL);
	/* the plot carries the table's modes and embedding times */
	{
		static char want[3][24];
		const char *w[] = { "RecSSD-like", "RM-SSD-like", "RecFlash", want[0], want[1],
				    want[2], NULL };
		const char *rows[3] = { "\nRecSSD-like ", "\nRM-SSD-like ", "\nRecFlash " };
		unsigned i;
		double ms;

		for (i = 0; i < 3; i++) {
			REQUIRE(strstr(out, rows[i]));
			CHECK(sscanf(strstr(out, rows[i]) + strlen(rows[i]), "%lf", &ms) == 1);
			snprintf(want[i], sizeof(want[i]), "%.3f", ms);
		}
		CHECK(cli_plot_check("dlrm", out, w) == 0);
	}
	if (cli_count(out, "OK: all") != 3)
		fprintf(stderr, "%s", out);

	snprintf(cmd, sizeof(cmd), "%s/examples/dlrm_demo --inproc --rows 3000 --batches 1 "
		 "--batch 8 --mode rmssd 2>&1", p);
	CHECK(cli_capture(cmd, out, sizeof(out)) == 0);
	CHECK(cli_count(out, "OK: all") == 1 && strstr(out, "RM-SSD-like") != NULL);
	CHECK(strstr(out, "side by side") == NULL);
	snprintf(cmd, sizeof(cmd), "%s/examples/dlrm_demo --inproc --mode fast 2>&1", p);
	CHECK(cli_capture(cmd, out, sizeof(out)) == 2);
	CHECK(strstr(out, "dlrm_demo: --mode is all, recflash, rmssd or recssd, not 'fast'"));
	/* a bad in-process option is usage too (exit 2, as reis), named */
	snprintf(cmd, sizeof(cmd), "%s/examples/dlrm_demo --inproc --preset nope 2>&1", p);
	CHECK(cli_capture(cmd, out, sizeof(out)) == 2);
	CHECK(strstr(out, "unknown preset 'nope'") && strstr(out, "recflash-tlc"));
	snprintf(cmd, sizeof(cmd), "%s/examples/dlrm_demo --rows 12x 2>&1", p);
	CHECK(cli_capture(cmd, out, sizeof(out)) == 2 && strstr(out, "not '12x'"));
	return t_result();
}
