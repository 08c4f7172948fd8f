/* SPDX-License-Identifier: MIT */
/*
 * test_lib_vm_cs - the standard interface (docs/command-set.md §9) as the
 * guest's Linux sees it:
 *   1. the kernel enumerates the memory (CSI 03h, nsid 2) and compute (CSI
 *      04h, nsid 3) namespaces of the isp-cs=on boot: a generic char device
 *      /dev/ng0nX for each of the three namespaces and a block device only
 *      for the NVM one (the block layer knows neither command set). Which X
 *      a namespace gets is the kernel's scan order (6.12 scans in parallel),
 *      so each is found by its NSID (NVME_IOCTL_ID); printed with the
 *      kernel release;
 *   2. nvme-cli: `nvme list-ns --csi` lists each namespace under its
 *      command set (Identify CNS 07h), and `nvme list`, `nvme id-ctrl`,
 *      `nvme id-ns` are printed for the record (their output is in this
 *      program's log);
 *   3. a program executes: libreis on the standard path (REIS_OPEN_CP:
 *      Memory Write, Execute Program, Memory Read on ng0n2/ng0n3) deploys a
 *      brute-force and an IVF database and searches them with documents,
 *      and the hits and documents equal the vendor path's on the same
 *      drive; the drive's counters show Execute Programs and memory
 *      commands and no vendor SEARCH from the standard handle.
 * Skips when the drive or its memory namespace is absent.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/nvme_ioctl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "check.h"
#include "cs_util.h"
#include "libreis.h"
#include "libreis_tools.h"
#include "cp_t.h"
#include "reis_cmp.h"
#include "reis_synth.h"

#define DIM 128
#define N 2000
#define NQ 16
#define OUT_MAX 65536
#define NVME "/bin/nvme"	/* the image's nvme-cli (scripts/guest-image.sh) */

static char ng_of[4][32];	/* /dev/ng0nX of NSID 1..3 */

static void enumerate(void)
{
	struct utsname u;
	char *out = malloc(OUT_MAX), blk[32];
	unsigned x, id, seen[4] = { 0 }, blocks = 0;

	REQUIRE(out);
	REQUIRE(uname(&u) == 0);
	printf("kernel %s:\n", u.release);
	for (x = 1; x <= 8; x++) {
		id = cs_ng_nsid(x);
		snprintf(blk, sizeof(blk), "/dev/nvme0n%u", x);
		if (!id)
			continue;
		printf("  /dev/ng0n%u: NSID %u, block device %s %s\n", x, id, blk,
		       access(blk, F_OK) ? "absent" : "present");
		if (id <= 3) {
			seen[id]++;
			snprintf(ng_of[id], sizeof(ng_of[id]), "/dev/ng0n%u", x);
		}
		if (!access(blk, F_OK)) {
			blocks++;
			CHECK_EQ_U64(id, 1);	/* only the NVM namespace is a block device */
		}
	}
	CHECK_EQ_U64(seen[1], 1);
	CHECK_EQ_U64(seen[2], 1);
	CHECK_EQ_U64(seen[3], 1);
	CHECK_EQ_U64(blocks, 1);
	REQUIRE(seen[1] == 1);

	/* Identify CNS 07h per command set */
	CHECK_EQ_U64(cs_run(NVME " list-ns /dev/nvme0 --csi=3 2>&1", out, OUT_MAX), 0);
	CHECK(strstr(out, ":0x2") != NULL && strstr(out, ":0x3") == NULL);
	CHECK_EQ_U64(cs_run(NVME " list-ns /dev/nvme0 --csi=4 2>&1", out, OUT_MAX), 0);
	CHECK(strstr(out, ":0x3") != NULL && strstr(out, ":0x2") == NULL);
	CHECK_EQ_U64(cs_run(NVME " list-ns /dev/nvme0 --csi=0 2>&1", out, OUT_MAX), 0);
	CHECK(strstr(out, ":0x1") != NULL && strstr(out, ":0x2") == NULL);
	/* for the record: what the tools print for them */
	cs_run(NVME " list 2>&1", out, OUT_MAX);
	cs_run(NVME " list -v 2>&1", out, OUT_MAX);
	cs_run(NVME " id-ctrl /dev/nvme0 2>&1 | grep -E '^(vid|mn|oacs|oncs|ctratt|mnan|nn) '", out,
	    OUT_MAX);
	for (id = 2; id <= 3; id++) {
		char cmd[128];

		if (!ng_of[id][0])
			continue;
		snprintf(cmd, sizeof(cmd), NVME " id-ns %s 2>&1 | head -12", ng_of[id]);
		cs_run(cmd, out, OUT_MAX);
		snprintf(cmd, sizeof(cmd), NVME " ns-descs %s 2>&1", ng_of[id]);
		cs_run(cmd, out, OUT_MAX);
	}
	free(out);
}

static void same(struct reis_dev *v, struct reis_dev *c, const char *what, int ivf,
		 const struct reis_search_opts *o, const struct reis_queries *q)
{
	struct reis_search_result rv, rc;
	int a, b;

	a = ivf ? reis_ivf_search(v, o, q, &rv) : reis_search(v, o, q, &rv);
	b = ivf ? reis_ivf_search(c, o, q, &rc) : reis_search(c, o, q, &rc);
	if (a || b)
		fprintf(stderr, "%s: vendor '%s', cp '%s'\n", what, reis_last_error(v),
			reis_last_error(c));
	REQUIRE(a == 0 && b == 0);
	CHECK_EQ_U64(reis_cmp_results(what, &rc, &rv, !!(o->flags & REIS_SF_DOCS)), 0);
	printf("%s: %u hits of query 0 agree; modeled vendor %.1f + %.1f us, cp %.1f us; "
	       "guest round trip vendor %.1f us, cp %.1f us\n", what, rv.nhits[0],
	       rv.search_ns / 1e3, rv.read_ns / 1e3, rc.search_ns / 1e3, rv.host_ns / 1e3,
	       rc.host_ns / 1e3);
	reis_search_result_free(&rv);
	reis_search_result_free(&rc);
}

static void execute(void)
{
	float *x = synth_vectors(61, N, DIM, 24, 0.5f), *qf = synth_vectors(62, NQ, DIM, 24, 0.5f);
	float *cq = synth_vectors(63, 64, DIM, 24, 0.5f);
	uint64_t *off;
	uint8_t *docs = synth_docs(64, N, 600, &off);
	struct reis_db_image bf, ivf;
	struct reis_search_opts so;
	struct reis_queries q;
	struct reis_stats s0, s1;
	struct reis_dev *v, *c;
	int ret;

	REQUIRE(x && qf && cq && docs);
	REQUIRE(reis_open(ng_of[1], REIS_OPEN_VENDOR, &v) == 0);
	ret = reis_open(ng_of[1], REIS_OPEN_CP, &c);
	if (ret)
		fprintf(stderr, "standard path: %s\n", reis_strerror(ret));
	REQUIRE(ret == 0);
	CHECK_EQ_U64(reis_path_cp(c), 1);
	CHECK_EQ_U64(reis_path_cp(v), 0);
	printf("standard path via %s, vendor path via %s\n", reis_transport(c),
	       reis_transport(v));
	cp_t_build(&bf, x, N, DIM, 961, REIS_DB_BF, docs, off, 16, NULL, 0);
	cp_t_build(&ivf, x, N, DIM, 962, REIS_DB_IVF, docs, off, 16, cq, 64);
	REQUIRE(reis_encode_queries(bf.quant, qf, NQ, &q) == 0);
	reis_db_delete(v, 961);		/* leftovers of an earlier boot */
	reis_db_delete(v, 962);
	/* one database deployed by each path */
	ret = reis_db_deploy(c, &bf, NULL);
	if (ret)
		fprintf(stderr, "cp deploy: %s\n", reis_last_error(c));
	REQUIRE(ret == 0);
	REQUIRE(reis_db_deploy(v, &ivf, NULL) == 0);

	REQUIRE(reis_stats(v, 0, &s0) == 0);
	memset(&so, 0, sizeof(so));
	so.did = 961;
	so.k = 10;
	so.flags = REIS_SF_DOCS;
	same(v, c, "bf docs", 0, &so, &q);
	so.did = 962;
	so.nprobe = 4;
	same(v, c, "ivf nprobe 4 docs", 1, &so, &q);
	REQUIRE(reis_stats(v, 0, &s1) == 0);
	/* each path sent one search per call: the vendor SEARCHes, and the
	 * standard path's Execute Programs around Memory Writes and Reads */
	CHECK_EQ_U64(s1.cmds[REIS_CLS_REIS_SEARCH] - s0.cmds[REIS_CLS_REIS_SEARCH], 2);
	CHECK(s1.std_cmds[REIS_STD_CLS_EXEC] - s0.std_cmds[REIS_STD_CLS_EXEC] >= 2);
	CHECK(s1.std_cmds[REIS_STD_CLS_MEM] - s0.std_cmds[REIS_STD_CLS_MEM] >= 4);
	CHECK(s1.slm_bytes_written > s0.slm_bytes_written);
	printf("drive: %llu Execute Programs, %llu memory commands, %llu bytes written, %llu "
	       "read in the memory namespace so far\n",
	       (unsigned long long)s1.std_cmds[REIS_STD_CLS_EXEC],
	       (unsigned long long)s1.std_cmds[REIS_STD_CLS_MEM],
	       (unsigned long long)s1.slm_bytes_written, (unsigned long long)s1.slm_bytes_read);

	CHECK_EQ_U64(reis_db_delete(c, 962), 0);	/* across paths */
	CHECK_EQ_U64(reis_db_delete(v, 961), 0);
	reis_close(c);
	reis_close(v);
	reis_queries_free(&q);
	reis_db_image_free(&bf);
	reis_db_image_free(&ivf);
	free(x);
	free(qf);
	free(cq);
	free(docs);
	free(off);
}

int main(void)
{
	if (access("/dev/nvme0", F_OK))
		SKIP("/dev/nvme0 absent");
	enumerate();
	execute();
	return t_result();
}
