/* SPDX-License-Identifier: MIT */
/*
 * test_vm_nvme_cli_cs - the standard interface's recipes of
 * docs/nvme-cli.md (the ```sh blocks marked "# cs-recipe:"), as Debian's
 * nvme-cli runs them in the cs boot (isp=on,isp-cs=on), in document order:
 *   1. deploy a REIS database (did 71, with documents) with libreis on the
 *      NVM namespace, found by its NSID;
 *   2. run each recipe with sh and check what it printed and the files it
 *      wrote against the same commands sent here through the kernel's
 *      admin passthrough (Identify CNS 05h, the program table C3h, Load
 *      Program, Memory Range Set Management) and against the vendor path
 *      (ISP_IDENTIFY, REIS_DOC_READ): bytes, decoded fields and the
 *      document's text, never only sizes;
 *   3. every recipe of the document has a check here and every check ran.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cs_util.h"
#include "isp_wire.h"
#include "isp_wire_cs.h"
#include "libreis.h"
#include "recipe_util.h"

#define DID 71
#define ADM_IDENTIFY 0x06
#define CNS_CS_NS 0x05
#define SC_DNR 0x4000u
#define SC_CMD_SPECIFIC(sc) (0x100u | (sc))	/* SCT 1h */

static struct reis_dev *dev;		/* vendor path, NVM namespace */
static unsigned ng_nvm, ng_slm, ng_cp;	/* X of /dev/ng0nX */
static uint32_t rsid;

/* An admin command through /dev/nvme0: its NVMe status (0: success), or
 * -errno; DW0 in *@result. */
static int admin(uint8_t opc, uint32_t nsid, uint32_t cdw10, uint32_t cdw11, void *data,
		 uint32_t len, uint32_t *result)
{
	struct nvme_admin_cmd c;
	int fd = open("/dev/nvme0", O_RDWR), ret;

	if (fd < 0)
		return -errno;
	memset(&c, 0, sizeof(c));
	c.opcode = opc;
	c.nsid = nsid;
	c.cdw10 = cdw10;
	c.cdw11 = cdw11;
	c.addr = (uintptr_t)data;
	c.data_len = len;
	ret = ioctl(fd, NVME_IOCTL_ADMIN_CMD, &c);
	if (ret < 0)
		ret = -errno;
	close(fd);
	if (result)
		*result = c.result;
	return ret;
}

static void ck_namespaces(const char *out, int rc)
{
	char want[160];

	CHECK_EQ_U64(rc, 0);
	CHECK(strstr(out, "[   0]:0x2\n") != NULL);
	CHECK(strstr(out, "[   0]:0x3\n") != NULL);
	snprintf(want, sizeof(want), "SLM_NSID=2 CP_NSID=3 NVM=/dev/ng0n%u SLM=/dev/ng0n%u "
		 "CP=/dev/ng0n%u\n", ng_nvm, ng_slm, ng_cp);
	CHECK(strstr(out, want) != NULL);
	if (!strstr(out, want))
		fprintf(stderr, "want '%s'\n", want);
}

static void ck_identify(const char *out, int rc)
{
	static struct isp_wire_cs_id_ns_cp cp, cp_r;
	static struct isp_wire_cs_id_ns_slm slm, slm_r;
	char line[160];

	CHECK_EQ_U64(rc, 0);
	CHECK_EQ_U64(recipe_slurp("/tmp/isp-id-cp.bin", &cp_r, sizeof(cp_r)), 4096);
	CHECK_EQ_U64(recipe_slurp("/tmp/isp-id-slm.bin", &slm_r, sizeof(slm_r)), 4096);
	REQUIRE(admin(ADM_IDENTIFY, 3, CNS_CS_NS, ISP_CSI_CP << 24, &cp, 4096, NULL) == 0);
	REQUIRE(admin(ADM_IDENTIFY, 2, CNS_CS_NS, ISP_CSI_SLM << 24, &slm, 4096, NULL) == 0);
	CHECK(memcmp(&cp, &cp_r, sizeof(cp)) == 0);
	slm_r.muse = slm.muse;	/* backed bytes: the only field that moves */
	CHECK(memcmp(&slm, &slm_r, sizeof(slm)) == 0);
	CHECK_EQ_U64(cp.maxmemrs, 64);
	CHECK_EQ_U64(cp.maxmemr, 16);
	CHECK_EQ_U64(cp.nprogs, ISP_CS_NPROGS);
	CHECK_EQ_U64(cp.max_param, 4096);
	CHECK_EQ_U64(slm.max_rw, reis_dev_info(dev)->max_xfer);	/* the drive's, not the kernel's cap */
	snprintf(line, sizeof(line), "cp: maxact %u maxmemrs 64 maxmemr 16 programs %u max_param "
		 "4096\n", cp.maxact, ISP_CS_NPROGS);
	CHECK(strstr(out, line) != NULL);
	snprintf(line, sizeof(line), "slm: msz %llu desfmts %u max_rw %u\n",
		 (unsigned long long)slm.msz, slm.desfmts, slm.max_rw);
	CHECK(strstr(out, line) != NULL);
	if (!strstr(out, line))
		fprintf(stderr, "want '%s'\n", line);
}

/* The program table (log page C3h) as the drive has it now. */
static void programs(struct isp_wire_cs_prog p[ISP_CS_NPROGS])
{
	REQUIRE(reis_log_page(dev, ISP_LID_CS_PROGRAMS, 0, p,
			      ISP_CS_NPROGS * sizeof(*p)) == 0);
}

static void ck_activate(const char *out, int rc)
{
	struct isp_wire_cs_prog p[ISP_CS_NPROGS];
	char line[96];
	unsigned i;

	CHECK_EQ_U64(rc, 0);
	programs(p);
	for (i = 0; i < ISP_CS_NPROGS; i++) {
		snprintf(line, sizeof(line), "program %u %.32s active %u\n", i, p[i].name,
			 !!(p[i].flags & ISP_CS_PD_ACT));
		CHECK(strstr(out, line) != NULL);
	}
	CHECK(strstr(out, "program 3 reis-docs active 1\n") != NULL);
	CHECK(strstr(out, "program 4 isp-manage active 1\n") != NULL);
}

static void ck_load(const char *out, int rc)
{
	CHECK_EQ_U64(rc, 0);
	CHECK(strstr(out, "load program refused, exit ") != NULL);
	CHECK(strstr(out, "(0x419a)") != NULL);
	/* the same refusal here: Program Index Not Downloadable, DNR */
	CHECK_EQ_U64(admin(ISP_CS_OP_LOAD_PROGRAM, 3, 3, 0, NULL, 0, NULL),
		     SC_DNR | SC_CMD_SPECIFIC(0x9a));
}

static void ck_range_set(const char *out, int rc)
{
	struct isp_wire_cs_mrd want[2], got[2];

	CHECK_EQ_U64(rc, 0);
	memset(want, 0, sizeof(want));
	want[0].mnsid = want[1].mnsid = 2;
	want[0].len = 8192;
	want[1].sb = 8192;
	want[1].len = 65536;
	CHECK_EQ_U64(recipe_slurp("/tmp/isp-mrs.bin", got, sizeof(got)), sizeof(got));
	CHECK(memcmp(want, got, sizeof(want)) == 0);
	rsid = (uint32_t)recipe_after(out, "\nRSID=");
	CHECK(rsid > 0 && rsid <= 0xffff);
	CHECK_EQ_U64(recipe_after(out, "result: "), rsid);
}

/* The Execute Program's modeled ns as the recipe printed them, or 0. */
static uint64_t modeled(const char *out)
{
	uint64_t ns = recipe_after(out, "Execute Program: modeled ");

	return ns == UINT64_MAX ? 0 : ns;
}

static void ck_execute_manage(const char *out, int rc)
{
	static uint8_t a[4096], b[4096];
	struct reis_req req;
	char line[64];

	CHECK_EQ_U64(rc, 0);
	CHECK_EQ_U64(recipe_slurp("/tmp/isp-cs-id.bin", a, sizeof(a)), 4096);
	reis_prep_identify(&req, b);
	REQUIRE(reis_exec(dev, &req) == 0);
	CHECK(memcmp(a, b, sizeof(a)) == 0);
	snprintf(line, sizeof(line), "ISP1 max_xfer %u\n",
		 ((const struct isp_wire_identify *)b)->max_xfer);
	CHECK(strstr(out, line) != NULL);
	/* Execute Program's DW0: its modeled time */
	CHECK(modeled(out) > 0);
}

static void ck_execute_docs(const char *out, int rc)
{
	uint8_t b[512];
	char want[96];
	int len;

	CHECK_EQ_U64(rc, 0);
	len = reis_doc_read(dev, DID, 3, b, sizeof(b));
	REQUIRE(len > 0 && len <= 492);
	CHECK_EQ_U64(recipe_after(out, "count "), 1);
	/* the header, a length word and the document padded to a dword */
	CHECK_EQ_U64(recipe_after(out, " bytes "), 16 + 4 + (((unsigned)len + 3) & ~3u));
	snprintf(want, sizeof(want), "entry 3: %d bytes: %.*s\n", len, len < 40 ? len : 40,
		 (const char *)b);
	CHECK(strstr(out, want) != NULL);
	if (!strstr(out, want))
		fprintf(stderr, "want '%s'\n", want);
	CHECK(modeled(out) > 0);
}

static void ck_cleanup(const char *out, int rc)
{
	struct isp_wire_cs_prog p[ISP_CS_NPROGS];
	char line[64];

	CHECK_EQ_U64(rc, 0);
	snprintf(line, sizeof(line), "range set %u is gone, exit ", rsid);
	CHECK(strstr(out, line) != NULL);
	CHECK(strstr(out, "(0x418d)") != NULL);
	CHECK_EQ_U64(admin(ISP_CS_OP_MRS_MGMT, 3, rsid << 16 | 1, 0, NULL, 0, NULL),
		     SC_DNR | SC_CMD_SPECIFIC(0x8d));
	programs(p);
	CHECK_EQ_U64(p[3].flags & ISP_CS_PD_ACT, 0);
}

static const struct recipe recipes[] = {
	{ "cs-namespaces", ck_namespaces },
	{ "cs-identify", ck_identify },
	{ "cs-activate", ck_activate },
	{ "cs-load-program", ck_load },
	{ "cs-range-set", ck_range_set },
	{ "cs-execute-manage", ck_execute_manage },
	{ "cs-execute-docs", ck_execute_docs },
	{ "cs-cleanup", ck_cleanup },
};
#define NRECIPES (sizeof(recipes) / sizeof(recipes[0]))

int main(void)
{
	char path[32];

	if (access("/bin/nvme", X_OK))
		SKIP("nvme-cli is not in the guest image");
	ng_nvm = cs_ng_of(1);
	ng_slm = cs_ng_of(2);
	ng_cp = cs_ng_of(3);
	if (!ng_nvm || !ng_slm || !ng_cp)
		SKIP("no memory or compute namespace: not the isp-cs=on boot");
	snprintf(path, sizeof(path), "/dev/ng0n%u", ng_nvm);
	REQUIRE(reis_open(path, REIS_OPEN_VENDOR, &dev) == 0);
	recipe_deploy_db(dev, DID);
	recipes_run("cs-recipe:", recipes, NRECIPES);
	reis_db_delete(dev, DID);
	reis_close(dev);
	return t_result();
}
