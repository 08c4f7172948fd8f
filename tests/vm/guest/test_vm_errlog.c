/* SPDX-License-Identifier: MIT */
/*
 * test_vm_errlog - errors that name the field, through QEMU (docs/command-set.md
 * §8):
 *   1. deploy a one-entry brute-force database over io_uring passthrough;
 *   2. search it with k = 2, with nprobe (IVF_SEARCH) and with a DF
 *      threshold above the dimension: libreis' message names the field,
 *      the value and the range, and the error log entry;
 *   3. Identify Controller's ELPE covers the drive's ring; Get Log Page 01h
 *      (through libreis) has the failures newest first with the guest's
 *      SQID and CID, the status and Parameter Error Location, and points at
 *      C2h, whose entries carry the same counts and the reasons;
 *   4. `nvme error-log` (Debian's nvme-cli) lists the same entries.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "errlog_t.h"
#include "isp_wire.h"
#include "libreis.h"
#include "libreis_tools.h"
#include "reis_synth.h"

#define DID 73
#define DIM 64

static struct reis_dev *dev;

static void expect(int ret, const char *a, const char *b)
{
	const char *m = reis_last_error(dev);

	CHECK(ret == -EINVAL);
	printf("message: %s\n", m);
	CHECK(strstr(m, a) != NULL);
	CHECK(strstr(m, b) != NULL);
	CHECK(strstr(m, "error log entry") != NULL);
}

/* `nvme error-log` lists entry @count (its "error_count : N" line). */
static void check_nvme_cli(uint64_t count)
{
	static char out[65536];
	char want[64];
	FILE *f;
	size_t n;

	if (access("/bin/nvme", X_OK)) {
		printf("nvme-cli not in the image: step 4 skipped\n");
		return;
	}
	f = popen("nvme error-log /dev/nvme0 -e 4 2>&1", "r");
	REQUIRE(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = 0;
	CHECK(pclose(f) == 0);
	printf("%s", out);
	snprintf(want, sizeof(want), ": %llu\n", (unsigned long long)count);
	CHECK(strstr(out, "error_count") != NULL);
	CHECK(strstr(out, want) != NULL);
	CHECK(strstr(out, "parm_err_loc") != NULL);
}

int main(void)
{
	float *x = synth_vectors(9, 1, DIM, 1, 0.1f);
	uint8_t ent[4 * 64], id[4096];
	struct isp_wire_err_text t[4];
	struct reis_build_opts bo;
	struct reis_db_image img;
	struct reis_queries q;
	char err[256];
	unsigned i;

	if (access("/dev/ng0n1", F_OK))
		SKIP("/dev/ng0n1 absent");
	REQUIRE(x);
	REQUIRE(reis_open("/dev/ng0n1", 0, &dev) == 0);
	memset(&bo, 0, sizeof(bo));
	bo.did = DID;
	bo.kind = REIS_DB_BF;
	bo.flags = REIS_BUILD_INT8;
	REQUIRE(reis_db_build(&bo, x, 1, DIM, &img, err, sizeof(err)) == 0);
	reis_db_delete(dev, DID);	/* leftovers of an earlier run */
	REQUIRE(reis_db_deploy(dev, &img, NULL) == 0);
	REQUIRE(reis_encode_queries(img.quant, x, 1, &q) == 0);

	expect(errlog_search(dev, DID, 2, 0, 0, 0, 0, &q),
	       "k = 2 exceeds the database's 1 entry", "data byte 8)");
	expect(errlog_search(dev, DID, 1, 0, 0, 0, 4, &q),
	       "IVF_SEARCH on database 73, which is brute force (no clusters)", "command byte 0)");
	expect(errlog_search(dev, DID, 1, 0, 0, 999, 0, &q),
	       "df_threshold = 999 exceeds database 73's dimension 64", "data byte 20)");

	/* Identify Controller byte 262: ELPE, 0's based. */
	if (!access("/bin/nvme", X_OK)) {
		FILE *f = popen("nvme id-ctrl /dev/nvme0 -b 2>/dev/null", "r");
		size_t n;

		REQUIRE(f);
		n = fread(id, 1, sizeof(id), f);
		pclose(f);
		CHECK(n == sizeof(id));
		CHECK(id[262] == ISP_ERR_RING - 1);
	}

	REQUIRE(reis_log_page(dev, ISP_LID_ERROR, 0, ent, sizeof(ent)) == 0);
	REQUIRE(reis_log_page(dev, ISP_LID_ERRTEXT, 0, t, sizeof(t)) == 0);
	for (i = 0; i < 3; i++) {
		const uint8_t *e = ent + 64 * i;

		CHECK(errlog_u64(e) == errlog_u64(ent) - i);
		CHECK(errlog_u64(e) == t[i].error_count);
		CHECK(errlog_u16(e + 8) >= 1);			/* an I/O queue */
		CHECK(errlog_u16(e + 8) == t[i].sqid && errlog_u16(e + 10) == t[i].cid);
		CHECK(errlog_u16(e + 12) >> 1 == (REIS_SC_INVALID_FIELD | REIS_STATUS_DNR));
		CHECK(errlog_u16(e + 14) == t[i].loc);
		CHECK(e[28] == ISP_LID_ERRTEXT);
		printf("entry %u: count %llu sqid %u cid %u loc 0x%04x data byte %u: %s\n", i,
		       (unsigned long long)t[i].error_count, t[i].sqid, t[i].cid, t[i].loc,
		       t[i].data_byte, t[i].msg);
	}
	CHECK(strstr(t[0].msg, "df_threshold = 999") != NULL && t[0].data_byte == 21);
	CHECK(strstr(t[1].msg, "which is brute force (no clusters)") != NULL && t[1].loc == 0);
	CHECK(strstr(t[2].msg, "k = 2") != NULL && t[2].data_byte == 9);
	check_nvme_cli(t[0].error_count);

	CHECK(reis_db_delete(dev, DID) == 0);
	reis_queries_free(&q);
	reis_db_image_free(&img);
	reis_close(dev);
	free(x);
	return t_result();
}
