/* SPDX-License-Identifier: MIT */
/*
 * test_demo_rag_vm_cs - the RAG demo unchanged on the standard path (issue
 * 28's target; docs/libreis.md, "The standard path"): in the cs boot
 * (isp=on,isp-cs=on) /bin/rag_demo, the program `make demo` runs, answers
 * its 8 built-in questions twice on the same drive and the same bundle
 * (the demo's WordNet database, which the VM runner writes at byte 0 of the
 * NVM namespace with scripts/rag-bundle.sh when the corpus is cached):
 *   1. with ISP_PATH=cp: the database is deployed over the standard
 *      interface (the isp-manage program), the questions run as Memory
 *      Write, Execute Program of the IVF search with documents, Memory Read;
 *   2. with ISP_PATH=vendor: the same database found on the drive, the
 *      vendor opcodes.
 * Each run checks its own hits against the conventional path (reference
 * search on this CPU) and must exit 0; then what each printed as answers
 * must be the same, line for line and in order: per question the text,
 * every passage (id, Hamming distance, score, the passage itself) and the
 * answer digest (the hits and documents, bit for bit). The cp run must have
 * gone over the standard interface (its transport "cp") and the vendor run
 * not. Skips without the bundle (no corpus: scripts/corpus.sh).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cs_util.h"

#define OUT_MAX (1 << 18)
#define NQUESTIONS 8	/* the bundle's built-in questions */

static char out_v[OUT_MAX], out_c[OUT_MAX], ans_v[OUT_MAX], ans_c[OUT_MAX];

/* Whether @blk starts with a database image ("REISIMG1", docs/reis.md §4). */
static int has_bundle(const char *blk)
{
	char magic[8];
	int fd = open(blk, O_RDONLY), ok;

	if (fd < 0)
		return 0;
	ok = read(fd, magic, sizeof(magic)) == (ssize_t)sizeof(magic) &&
	     !memcmp(magic, "REISIMG1", 8);
	close(fd);
	return ok;
}

int main(void)
{
	/* the question, each passage (first line and its wrapped rest), the
	 * answer's digest; the modeled and measured times differ by path */
	static const char *const answers[] = { "question: ", "  1.", "  2.", "  3.", "  4.",
					       "  5.", "      ", "  answer digest ", NULL };
	char cmd[160], blk[32], via[64];
	unsigned x, nv, nc;

	if (access("/bin/rag_demo", X_OK))
		SKIP("/bin/rag_demo is not in the guest image");
	x = cs_ng_of(1);
	if (!x)
		SKIP("no char device of the NVM namespace (NSID 1)");
	if (!cs_ng_of(2) || !cs_ng_of(3))
		SKIP("no memory or compute namespace: not the isp-cs=on boot");
	snprintf(blk, sizeof(blk), "/dev/nvme0n%u", x);
	if (!has_bundle(blk))
		SKIP("no RAG bundle at byte 0 of the NVM namespace (the runner writes it when "
		     "the corpus is cached: scripts/corpus.sh)");
	snprintf(cmd, sizeof(cmd), "/bin/rag_demo run --dev /dev/ng0n%u --bundle %s", x, blk);

	CHECK_EQ_U64(cs_run_path("cp", cmd, out_c, sizeof(out_c)), 0);
	CHECK_EQ_U64(cs_run_path("vendor", cmd, out_v, sizeof(out_v)), 0);
	snprintf(via, sizeof(via), "drive /dev/ng0n%u (cp)", x);
	CHECK(strstr(out_c, via) != NULL);
	CHECK(strstr(out_v, via) == NULL);
	CHECK(strstr(out_c, "deploying database") != NULL);
	CHECK(strstr(out_v, "already deployed") != NULL);

	nv = cs_keep_lines(out_v, answers, ans_v, sizeof(ans_v));
	nc = cs_keep_lines(out_c, answers, ans_c, sizeof(ans_c));
	CHECK_EQ_U64(cs_count(ans_v, "question: "), NQUESTIONS);
	CHECK_EQ_U64(cs_count(ans_v, "  answer digest 0x"), NQUESTIONS);
	CHECK_EQ_U64(cs_count(ans_v, "  5. "), NQUESTIONS);	/* k = 5 hits each */
	CHECK_EQ_U64(nv, nc);
	CHECK(strcmp(ans_v, ans_c) == 0);
	if (strcmp(ans_v, ans_c))
		cs_first_diff("rag_demo", ans_v, ans_c);
	printf("rag_demo: %u questions, %u answer lines, identical on the vendor and the "
	       "standard path\n", NQUESTIONS, nv);
	return t_result();
}
