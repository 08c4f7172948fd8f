/* SPDX-License-Identifier: MIT */
/*
 * test_rf_dlrm_demo - examples/dlrm_demo against an in-process drive: by
 * default it runs the same batches with the tables placed RecSSD-like,
 * RM-SSD-like and by RecFlash, each checked against the host-only
 * inference, and prints them side by side with the host MLP time; one
 * --mode runs that one alone; a bad --mode is refused.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"

static char out[1 << 16];

int main(void)
{
	char p[PATH_MAX + 32], cmd[PATH_MAX + 256];
	const char *row;
	double ems, mj, reads, hits, mlp, total;

	if (cli_find(p, sizeof(p)) || !strstr(p, "/host-lib/reis"))
		SKIP("no build tree next to the test");
	*strstr(p, "/host-lib/reis") = 0;
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
	if (cli_count(out, "OK: all") != 3)
		fprintf(stderr, "%s", out);

	snprintf(cmd, sizeof(cmd), "%s/examples/dlrm_demo --inproc --rows 3000 --batches 1 "
		 "--batch 8 --mode rmssd 2>&1", p);
	CHECK(cli_capture(cmd, out, sizeof(out)) == 0);
	CHECK(cli_count(out, "OK: all") == 1 && strstr(out, "RM-SSD-like") != NULL);
	CHECK(strstr(out, "side by side") == NULL);
	snprintf(cmd, sizeof(cmd), "%s/examples/dlrm_demo --inproc --mode fast 2>&1", p);
	CHECK(cli_capture(cmd, out, sizeof(out)) == 2);
	CHECK(strstr(out, "--mode is all") != NULL);
	return t_result();
}
