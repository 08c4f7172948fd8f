/* SPDX-License-Identifier: MIT */
/*
 * test_demo_dlrm_vm_cs - the DLRM demo unchanged on the standard path (issue
 * 28's target; docs/libreis.md, "The standard path"): in the cs boot
 * (isp=on,isp-cs=on) /bin/dlrm_demo, the program `make demo
 * ISP_DEMO=dlrm_demo` runs, runs twice on the same drive with the same
 * seed, once with ISP_PATH=vendor and once with ISP_PATH=cp, each on its
 * own all three placements (RecSSD-like, RM-SSD-like, RecFlash: tables
 * deployed, SLS per batch, checked against the host-only inference). What
 * each run printed as its answers must be the same, line for line and in
 * order: per placement, every batch's p(click) line, the digest of the
 * inputs and the digest of the outputs (every embedding sum the drive
 * returned and every click probability, bit for bit). The cp run must have
 * gone over the standard interface (its transport "cp") and the vendor run
 * not. Small tables (3000 rows, 2 batches of 8) keep it to seconds.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cs_util.h"

#define OUT_MAX (1 << 18)
#define ARGS "--rows 3000 --batches 2 --batch 8"

static char out_v[OUT_MAX], out_c[OUT_MAX], ans_v[OUT_MAX], ans_c[OUT_MAX];

int main(void)
{
	static const char *const answers[] = { "== ", "batch ", "inputs: ", "outputs: ",
					       "OK: ", "FAIL", NULL };
	char cmd[128], via[64];
	unsigned x, nv, nc;

	if (access("/bin/dlrm_demo", X_OK))
		SKIP("/bin/dlrm_demo is not in the guest image");
	x = cs_ng_of(1);
	if (!x)
		SKIP("no char device of the NVM namespace (NSID 1)");
	if (!cs_ng_of(2) || !cs_ng_of(3))
		SKIP("no memory or compute namespace: not the isp-cs=on boot");
	snprintf(cmd, sizeof(cmd), "/bin/dlrm_demo --dev /dev/ng0n%u " ARGS, x);

	CHECK_EQ_U64(cs_run_path("vendor", cmd, out_v, sizeof(out_v)), 0);
	CHECK_EQ_U64(cs_run_path("cp", cmd, out_c, sizeof(out_c)), 0);
	snprintf(via, sizeof(via), "/dev/ng0n%u via cp (", x);
	CHECK(strstr(out_c, via) != NULL);
	CHECK(strstr(out_v, via) == NULL);

	nv = cs_keep_lines(out_v, answers, ans_v, sizeof(ans_v));
	nc = cs_keep_lines(out_c, answers, ans_c, sizeof(ans_c));
	/* three placements: a heading, 2 batches, 2 digests and the verdict each */
	CHECK_EQ_U64(cs_count(ans_v, "\nbatch "), 6);
	CHECK_EQ_U64(cs_count(ans_v, "\noutputs: "), 3);
	CHECK_EQ_U64(cs_count(ans_v, "OK: all 16 probabilities equal the host-only inference"), 3);
	CHECK_EQ_U64(cs_count(ans_c, "OK: all 16 probabilities equal the host-only inference"), 3);
	CHECK_EQ_U64(nv, nc);
	CHECK(strcmp(ans_v, ans_c) == 0);
	if (strcmp(ans_v, ans_c))
		cs_first_diff("dlrm_demo", ans_v, ans_c);
	printf("dlrm_demo: %u answer lines, identical on the vendor and the standard path\n",
	       nv);
	return t_result();
}
