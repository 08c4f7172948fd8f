/* SPDX-License-Identifier: MIT */
/*
 * test_vm_nvme_cli - every recipe of docs/nvme-cli.md, as Debian's nvme-cli
 * runs it, against libreis on the same drive:
 *   1. deploy a REIS database (did 71, with documents and META) and a
 *      RecFlash table (tid 72) with libreis;
 *   2. read the recipes out of the document the image carries
 *      (/usr/share/doc/isp-ssd/nvme-cli.md): each ```sh block that starts
 *      with "# recipe: NAME";
 *   3. run each with sh and check its exit status, what it printed and the
 *      files it wrote against the same command or structure through
 *      libreis (raw bytes where nothing can change between the two, the
 *      decoded fields otherwise);
 *   4. every recipe of the document has a check here and every check ran.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "isp_wire.h"
#include "libreis.h"
#include "libreis_tools.h"
#include "rf_util.h"
#include "recipe_util.h"

#define DID 71
#define TID 72

static struct reis_dev *dev;

/* The same command through libreis: @len bytes into @buf. */
static int raw(uint8_t opcode, uint32_t cdw12, uint32_t cdw13, uint32_t cdw14, void *buf,
	       uint32_t len, struct reis_cpl *cpl)
{
	struct reis_cmd c;

	memset(&c, 0, sizeof(c));
	c.opcode = opcode;
	c.cdw10 = len / 4;
	c.cdw12 = cdw12;
	c.cdw13 = cdw13;
	c.cdw14 = cdw14;
	return reis_cmd_raw(dev, &c, buf, len, cpl);
}

/* Bytes the recipe wrote to @path equal those of the same command now. */
static void same_bytes(const char *path, uint8_t opcode, uint32_t cdw12, uint32_t cdw13,
		       uint32_t len)
{
	static uint8_t a[4096], b[4096];
	long n = recipe_slurp(path, a, sizeof(a));

	CHECK_EQ_U64(n, len);
	CHECK_EQ_U64(raw(opcode, cdw12, cdw13, 0, b, len, NULL), 0);
	if (n == (long)len && memcmp(a, b, len)) {
		fprintf(stderr, "%s differs from libreis' %02xh\n", path, opcode);
		t_failures++;
	}
}

static uint64_t u64_at(const uint8_t *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p + off, 8);
	return v;
}

static void ck_noop(const char *out, int rc)
{
	struct reis_cpl cpl;

	CHECK_EQ_U64(rc, 0);
	CHECK_EQ_U64(raw(ISP_OP_NOOP, 0, 0, 0, NULL, 0, &cpl), 0);
	/* CDW0: bits 31:0 of the modeled time, the same for every NOOP. */
	CHECK_EQ_U64(recipe_after(out, "is Success and result: "), cpl.result & 0xffffffffu);
	CHECK_EQ_U64(cpl.time_ns, reis_dev_info(dev)->ctrl_cmd_ns);
}

static uint8_t ident[4096];

static void ck_identify(const char *out, int rc)
{
	struct reis_req req;
	char line[64];

	CHECK_EQ_U64(rc, 0);
	reis_prep_identify(&req, ident);
	REQUIRE(reis_exec(dev, &req) == 0);
	same_bytes("/tmp/isp-id.bin", ISP_OP_IDENTIFY, 0, 0, 4096);
	CHECK(strstr(out, "ISP1\n") != NULL);
	CHECK_EQ_U64(recipe_after(out, "max_xfer "),
		     ((const struct isp_wire_identify *)ident)->max_xfer);
	snprintf(line, sizeof(line), "preset %s\n", reis_dev_info(dev)->preset);
	CHECK(strstr(out, line) != NULL);
	CHECK_EQ_U64(recipe_after(out, "version "), reis_dev_info(dev)->ver_major);
}

static void ck_identify_log(const char *out, int rc)
{
	static uint8_t a[4096];

	CHECK_EQ_U64(rc, 0);
	CHECK(strstr(out, "log C1h = ISP_IDENTIFY") != NULL);
	CHECK_EQ_U64(recipe_slurp("/tmp/isp-c1.bin", a, sizeof(a)), 4096);
	CHECK(memcmp(a, ident, 4096) == 0);
}

static void ck_id_ctrl_vs(const char *out, int rc)
{
	uint8_t a[64];

	CHECK_EQ_U64(rc, 0);
	CHECK(strstr(out, "0000: 49 53 50 31") != NULL);
	CHECK_EQ_U64(recipe_slurp("/tmp/isp-vs.bin", a, sizeof(a)), 64);
	CHECK(memcmp(a, ident, 64) == 0);
}

static void ck_echo_c2h(const char *out, int rc)
{
	static uint8_t a[4096], want[4096];

	(void)out;
	CHECK_EQ_U64(rc, 0);
	isp_wire_pattern(7, want, sizeof(want));
	CHECK_EQ_U64(recipe_slurp("/tmp/isp-echo.bin", a, sizeof(a)), 4096);
	CHECK(memcmp(a, want, sizeof(want)) == 0);
	CHECK_EQ_U64(reis_echo(dev, REIS_DIR_H2C, 7, NULL, 4096), 0);
}

static void ck_echo_h2c(const char *out, int rc)
{
	CHECK_EQ_U64(rc, 0);
	CHECK(strstr(out, "is Success and result: ") != NULL);
	CHECK(strstr(out, "(0x47c7)") != NULL);
	CHECK(strstr(out, "seed 8: refused, exit 1") != NULL);
	/* libreis gets the same status for the same mistake. */
	{
		static uint8_t pat[4096];
		struct reis_cpl cpl;

		isp_wire_pattern(7, pat, sizeof(pat));
		CHECK_EQ_U64(raw(ISP_OP_ECHO_H2C, 8, 0, 0, pat, sizeof(pat), &cpl), -EILSEQ);
		CHECK_EQ_U64(cpl.status, ISP_SC_MISCOMPARE | ISP_STATUS_DNR);
	}
}

static void ck_stats(const char *out, int rc)
{
	static uint8_t a[4096], b[4096];
	struct reis_stats s0, s1;

	CHECK_EQ_U64(rc, 0);
	CHECK_EQ_U64(recipe_slurp("/tmp/isp-st0.bin", a, sizeof(a)), 4096);
	CHECK_EQ_U64(recipe_slurp("/tmp/isp-st1.bin", b, sizeof(b)), 4096);
	CHECK_EQ_U64(reis_stats_decode(a, 4096, &s0), 0);
	CHECK_EQ_U64(reis_stats_decode(b, 4096, &s1), 0);
	/* Between the two: the first ISP_STATS (counted after it answered) and the NOOP. */
	CHECK_EQ_U64(s1.cmds[REIS_CLS_DEVICE], s0.cmds[REIS_CLS_DEVICE] + 2);
	CHECK_EQ_U64(recipe_after(out, "device commands "), s1.cmds[REIS_CLS_DEVICE]);
	CHECK_EQ_U64(recipe_after(out, "noop+stats energy_pj "), s1.energy_pj - s0.energy_pj);
	CHECK(s1.energy_pj > s0.energy_pj);
	CHECK_EQ_U64(recipe_after(out, "noop+stats model_ns "), u64_at(b, 336) - u64_at(a, 336));
	CHECK(u64_at(b, 336) - u64_at(a, 336) >= reis_dev_info(dev)->ctrl_cmd_ns);
}

static void ck_stats_log(const char *out, int rc)
{
	static uint8_t a[4096], b[4096];

	CHECK_EQ_U64(rc, 0);
	CHECK_EQ_U64(recipe_slurp("/tmp/isp-c0.bin", a, sizeof(a)), 4096);
	/* Nothing ran since: the admin log read counts as no ISP command. */
	CHECK_EQ_U64(reis_log_page(dev, REIS_LID_STATS, 0, b, 4096), 0);
	CHECK(memcmp(a, b, 4096) == 0);
	CHECK_EQ_U64(recipe_after(out, "device commands "), u64_at(a, 0));
}

static void ck_effects(const char *out, int rc)
{
	static uint8_t a[4096], b[4096];

	CHECK_EQ_U64(rc, 0);
	CHECK_EQ_U64(recipe_slurp("/tmp/isp-effects.bin", a, sizeof(a)), 4096);
	CHECK_EQ_U64(reis_log_page(dev, REIS_LID_CMD_EFFECTS, 0, b, 4096), 0);
	CHECK(memcmp(a, b, 4096) == 0);
	CHECK(strstr(out, "opcode 80h effects  00000001") != NULL);
	CHECK(strstr(out, "opcode b9h effects  00000001") != NULL);
}

static void ck_trace(const char *out, int rc)
{
	uint8_t a[64], b[64];
	uint64_t total;
	char *rest;

	CHECK_EQ_U64(rc, 0);
	CHECK_EQ_U64(recipe_slurp("/tmp/isp-trace.bin", a, sizeof(a)), 64);
	CHECK(memcmp(a, "RSLT", 4) == 0);
	CHECK_EQ_U64(recipe_after(out, " kind "), ISP_RESULT_TRACE);
	/* libreis reads the same header, then the JSON, and releases it. */
	CHECK_EQ_U64(reis_result_read(dev, 0x5151, 0, b, 64, 0), 0);
	CHECK(memcmp(a, b, 64) == 0);
	total = u64_at(a, 8);
	CHECK_EQ_U64(recipe_after(out, "total_bytes "), total);
	REQUIRE(total > 64 && total < (64u << 20));
	rest = malloc(total - 64 + 1);
	REQUIRE(rest);
	CHECK_EQ_U64(reis_result_read(dev, 0x5151, 64, rest, (uint32_t)((total - 64 + 3) & ~3ull),
				      1), 0);
	rest[total - 64] = 0;
	CHECK(strstr(rest, "traceEvents") != NULL);
	free(rest);
	/* The traced NOOP's 64-bit result: its time is the header's model_ns. */
	CHECK_EQ_U64(recipe_after(out, "model_ns "), reis_dev_info(dev)->ctrl_cmd_ns);
	CHECK(recipe_after(out, "energy_pj ") > 0 && recipe_after(out, "energy_pj ") != UINT64_MAX);
}

static void ck_db_list(const char *out, int rc)
{
	CHECK_EQ_U64(rc, 0);
	same_bytes("/tmp/isp-dblist.bin", ISP_OP_REIS_DB_LIST, 0, 0, 4096);
	CHECK(recipe_after(out, "total ") >= 1);
	CHECK_EQ_U64(recipe_after(out, "first did "), DID);
}

static void ck_db_info(const char *out, int rc)
{
	struct reis_db_info in;

	CHECK_EQ_U64(rc, 0);
	same_bytes("/tmp/isp-dbinfo.bin", ISP_OP_REIS_DB_INFO, DID, 0, 320);
	REQUIRE(reis_db_info(dev, DID, &in) == 0);
	CHECK_EQ_U64(recipe_after(out, "dim "), in.dim);
	CHECK_EQ_U64(recipe_after(out, " n "), in.n);
	CHECK_EQ_U64(recipe_after(out, "meta_bytes "), in.meta_bytes);
	CHECK(in.meta_bytes > 0);
	CHECK_EQ_U64(recipe_after(out, "state "), 2);
}

static void ck_meta_read(const char *out, int rc)
{
	uint8_t a[256], b[256];

	(void)out;
	CHECK_EQ_U64(rc, 0);
	CHECK_EQ_U64(recipe_slurp("/tmp/isp-meta.bin", a, sizeof(a)), 256);
	CHECK_EQ_U64(reis_db_meta_read(dev, DID, 0, b, sizeof(b)), 0);
	CHECK(memcmp(a, b, sizeof(b)) == 0);
}

static void ck_doc_read(const char *out, int rc)
{
	uint8_t a[512], b[512];
	uint32_t len;

	CHECK_EQ_U64(rc, 0);
	CHECK_EQ_U64(recipe_slurp("/tmp/isp-doc.bin", a, sizeof(a)), 512);
	memcpy(&len, a, 4);
	CHECK(len > 0 && len <= 508);
	/* libreis gives the document without DOC_READ's length word. */
	CHECK_EQ_U64(reis_doc_read(dev, DID, 3, b, sizeof(b)), len);
	CHECK(memcmp(a + 4, b, len <= 508 ? len : 0) == 0);
	CHECK_EQ_U64(recipe_after(out, "entry 3: "), len);
	/* the document's text itself, not only its length */
	{
		char want[96];

		snprintf(want, sizeof(want), "entry 3: %u bytes: %.*s\n", len,
			 (int)(len < 40 ? len : 40), (const char *)b);
		CHECK(strstr(out, want) != NULL);
		if (!strstr(out, want))
			fprintf(stderr, "reis-doc-read printed '%s', want '%s'\n", out, want);
	}
}

static void ck_tbl_stats(const char *out, int rc)
{
	struct reis_rf_stats st;

	CHECK_EQ_U64(rc, 0);
	same_bytes("/tmp/isp-tstats.bin", ISP_OP_RF_TBL_STATS, TID, 0, 352);
	REQUIRE(reis_rf_table_stats(dev, TID, 0, &st) == 0);
	CHECK_EQ_U64(recipe_after(out, "rows "), 300);
	CHECK_EQ_U64(recipe_after(out, "dim "), 16);
	CHECK_EQ_U64(recipe_after(out, "state "), 2);
	CHECK_EQ_U64(recipe_after(out, "pages "), st.pages);
}

static void ck_tbl_list(const char *out, int rc)
{
	CHECK_EQ_U64(rc, 0);
	same_bytes("/tmp/isp-tlist.bin", ISP_OP_RF_TBL_LIST, 0, 0, 4096);
	CHECK(recipe_after(out, "total ") >= 1);
	CHECK_EQ_U64(recipe_after(out, "first tid "), TID);
}

static void ck_ftl_read(const char *out, int rc)
{
	static uint8_t st[4096];
	uint64_t m = recipe_after(out, "result: ");

	CHECK_EQ_U64(rc, 0);
	REQUIRE(reis_log_page(dev, REIS_LID_STATS, 0, st, sizeof(st)) == 0);
	if (!u64_at(st, 544)) {
		printf("ftl-read: the FTL maps no namespace (isp-ftl=off): not checked\n");
		return;
	}
	/* on flash (ftl_fill: at least tR of TLC) or, if another test wrote it
	 * last, still in the write buffer: a modeled time, far below a ms */
	CHECK(m > 0 && m < 1000000);
	CHECK_EQ_U64(recipe_after(out, "ftl reads "), 1);
	CHECK_EQ_U64(recipe_after(out, "ftl read bytes "), 4096);
	CHECK_EQ_U64(recipe_after(out, "mapped MiB "), u64_at(st, 544) >> 20);
}

static void ck_ftl_smart(const char *out, int rc)
{
	static uint8_t smart[512];

	CHECK_EQ_U64(rc, 0);
	REQUIRE(reis_log_page(dev, 0x02, 0, smart, sizeof(smart)) == 0);
	CHECK_EQ_U64(recipe_after(out, "available spare "), smart[3]);
	CHECK_EQ_U64(recipe_after(out, "spare threshold "), smart[4]);
	CHECK_EQ_U64(recipe_after(out, "percentage used "), smart[5]);
	CHECK(smart[3] > 0);
	CHECK_EQ_U64(smart[4], 10);
}

static const struct recipe recipes[] = {
	{ "noop", ck_noop },
	{ "identify", ck_identify },
	{ "identify-log", ck_identify_log },
	{ "id-ctrl-vs", ck_id_ctrl_vs },
	{ "echo-c2h", ck_echo_c2h },
	{ "echo-h2c", ck_echo_h2c },
	{ "stats", ck_stats },
	{ "stats-log", ck_stats_log },
	{ "effects", ck_effects },
	{ "trace", ck_trace },
	{ "reis-db-list", ck_db_list },
	{ "reis-db-info", ck_db_info },
	{ "reis-meta-read", ck_meta_read },
	{ "reis-doc-read", ck_doc_read },
	{ "rf-tbl-stats", ck_tbl_stats },
	{ "rf-tbl-list", ck_tbl_list },
	{ "ftl-read", ck_ftl_read },
	{ "ftl-smart", ck_ftl_smart },
};
#define NRECIPES (sizeof(recipes) / sizeof(recipes[0]))

static void deploy(void)
{
	struct rf_tbl t;

	recipe_deploy_db(dev, DID);
	REQUIRE(rf_tbl_make(&t, TID, 300, 16, REIS_RF_FP32, REIS_RF_RECFLASH, 9) == 0);
	reis_rf_delete(dev, TID);
	REQUIRE(rf_tbl_deploy(dev, &t, NULL) == 0);
	free(t.wire);
}

int main(void)
{
	if (access("/dev/ng0n1", F_OK))
		SKIP("/dev/ng0n1 absent");
	if (access("/bin/nvme", X_OK))
		SKIP("nvme-cli is not in the guest image");
	REQUIRE(reis_open("/dev/ng0n1", 0, &dev) == 0);
	deploy();
	recipes_run("recipe:", recipes, NRECIPES);
	reis_db_delete(dev, DID);
	reis_rf_delete(dev, TID);
	reis_close(dev);
	return t_result();
}
