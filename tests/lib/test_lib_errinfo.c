/* SPDX-License-Identifier: MIT */
/*
 * test_lib_errinfo - reis_last_error_info(): the failure reis_last_error()
 * describes, as fields, through the in-process drive. Nothing failed yet:
 * 0, no status, no location. A search whose k exceeds the database: 1, the
 * SEARCH opcode, Invalid Field with DNR, the error log entry (SQID 1, a
 * CID, an Error Count that grows by one per failure) and the location the
 * drive named: data byte 8 of the search header; the nprobe of a
 * brute-force database: command byte 0; a tag bit: data byte 12 bit 4;
 * NDM: command byte 44. An unknown database: ISP Unknown ID, data byte 0.
 * A search libreis refuses itself (k = 0, nothing sent): 0, the fields of
 * the earlier drive failure are not reported for it. A deploy that fails
 * on the drive (its did in use) reports DB_CREATE's failure through the
 * deploy's own message. NULL arguments: -EINVAL. On the standard path
 * (ISP_PATH=cp, the lib-cp suite) the same locations come from the
 * Execute Program's entry: a data byte is the program input's, which is
 * the search's data; only NDM has no place there (Invalid Field, no
 * location).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "errlog_t.h"
#include "libreis_tools.h"
#include "reis_synth.h"

#define DIM 64

static struct reis_dev *dev;

/* The last failure was the drive's: its opcode, status code and place. */
static void expect_drive(uint8_t opcode, uint16_t sc, int cmd_byte, int data_byte, unsigned bit,
			 const char *reason, uint64_t *count)
{
	struct reis_err_info e;

	CHECK(reis_last_error_info(dev, &e) == 1);
	printf("0x%02x status 0x%04x cmd byte %d data byte %d bit %u: %s\n", e.opcode, e.status,
	       e.cmd_byte, e.data_byte, e.bit, e.reason);
	CHECK(e.opcode == opcode);
	CHECK((e.status & REIS_STATUS_CODE_MASK) == sc);
	CHECK(e.status & REIS_STATUS_DNR);
	CHECK(e.logged == 1);
	CHECK(e.sqid == 1 && e.cid != 0);
	CHECK(e.cmd_byte == cmd_byte);
	CHECK(e.data_byte == data_byte);
	CHECK(e.bit == bit);
	if (!strstr(e.reason, reason)) {
		fprintf(stderr, "reason '%s' lacks '%s'\n", e.reason, reason);
		CHECK(0);
	}
	/* the message names the same entry */
	{
		char n[40];

		snprintf(n, sizeof(n), "error log entry %llu ", (unsigned long long)e.error_count);
		CHECK(strstr(reis_last_error(dev), n) != NULL);
	}
	CHECK(e.error_count > *count);
	*count = e.error_count;
}

int main(void)
{
	float *x = synth_vectors(5, 4, DIM, 1, 0.1f);
	struct reis_build_opts bo;
	struct reis_db_image img;
	struct reis_err_info e;
	struct reis_queries q;
	struct reis_cmd c;
	struct reis_cpl cpl;
	uint64_t count = 0;
	char err[256];

	REQUIRE(x);
	REQUIRE(reis_open_inproc(NULL, &dev) == 0);
	CHECK(reis_last_error_info(NULL, &e) == -EINVAL);
	CHECK(reis_last_error_info(dev, NULL) == -EINVAL);
	memset(&e, 0x55, sizeof(e));
	CHECK(reis_last_error_info(dev, &e) == 0);
	CHECK(e.status == 0 && e.opcode == 0 && e.logged == 0);
	CHECK(e.cmd_byte == -1 && e.data_byte == -1 && e.reason[0] == 0);

	memset(&bo, 0, sizeof(bo));
	bo.did = 7;
	bo.kind = REIS_DB_BF;
	bo.flags = REIS_BUILD_INT8;
	REQUIRE(reis_db_build(&bo, x, 4, DIM, &img, err, sizeof(err)) == 0);
	REQUIRE(reis_db_deploy(dev, &img, NULL) == 0);
	REQUIRE(reis_encode_queries(img.quant, x, 1, &q) == 0);

	CHECK(errlog_search(dev, 7, 5, 0, 0, 0, 0, &q) == -EINVAL);
	expect_drive(REIS_OP_SEARCH, REIS_SC_INVALID_FIELD, -1, 8, 0, "k = 5 exceeds", &count);
	CHECK(errlog_search(dev, 7, 1, 0, 0, 0, 4, &q) == -EINVAL);
	expect_drive(REIS_OP_IVF_SEARCH, REIS_SC_INVALID_FIELD, 0, -1, 0, "which is brute force (no clusters)", &count);
	CHECK(errlog_search(dev, 7, 1, REIS_SF_TAG, 3, 0, 0, &q) < 0);
	expect_drive(REIS_OP_SEARCH, REIS_SC_INVALID_FIELD, -1, 12, 4, "tag 3", &count);
	CHECK(errlog_search(dev, 77, 1, 0, 0, 0, 0, &q) == -ENOENT);
	expect_drive(REIS_OP_SEARCH, REIS_SC_UNKNOWN_ID, -1, 0, 0, "database 77", &count);

	/* Refused by libreis: no command, so no drive fields. */
	CHECK(errlog_search(dev, 7, 0, 0, 0, 0, 0, &q) == -EINVAL);
	CHECK(reis_last_error(dev)[0] != 0);
	CHECK(reis_last_error_info(dev, &e) == 0);
	CHECK(e.status == 0 && e.logged == 0 && e.cmd_byte == -1);

	/* NDM set: the command's own byte 44. The standard path carries a
	 * search's data, not its CDW11 (docs/command-set.md §9.6): refused
	 * there, by no drive entry of the SEARCH's. */
	memset(&c, 0, sizeof(c));
	c.opcode = REIS_OP_SEARCH;
	c.cdw11 = 1;
	CHECK(reis_cmd_raw(dev, &c, NULL, 0, &cpl) < 0);
	if (!reis_path_cp(dev)) {
		expect_drive(REIS_OP_SEARCH, REIS_SC_INVALID_FIELD, 44, -1, 0, "NDM", &count);
	} else {
		CHECK((cpl.status & REIS_STATUS_CODE_MASK) == REIS_SC_INVALID_FIELD);
		CHECK(reis_last_error_info(dev, &e) == 1 && e.cmd_byte == -1);
	}

	/* A deploy of a did in use: DB_CREATE's ID Exists, through the
	 * deploy's message. */
	CHECK(reis_db_deploy(dev, &img, NULL) == -EEXIST);
	CHECK(reis_last_error_info(dev, &e) == 1);
	CHECK(e.opcode == REIS_OP_DB_CREATE);
	CHECK((e.status & REIS_STATUS_CODE_MASK) == REIS_SC_ID_EXISTS);
	CHECK(e.logged == 1 && e.error_count > count);

	/* A success does not clear it: the last failure stays described. */
	CHECK(errlog_search(dev, 7, 1, 0, 0, 0, 0, &q) == 0);
	CHECK(reis_last_error_info(dev, &e) == 1 && e.opcode == REIS_OP_DB_CREATE);

	reis_queries_free(&q);
	reis_db_image_free(&img);
	reis_close(dev);
	free(x);
	return t_result();
}
