/* SPDX-License-Identifier: MIT */
/*
 * test_reis_errlog - errors that name the field (docs/command-set.md §8),
 * through libreis and the in-process drive: a search with k above the
 * database's size, nprobe on a brute-force database, a tag on an untagged
 * one, a DF threshold above the dimension, an unknown database, k = 0 sent
 * raw, NDM set (refused at decode, with its time and energy): each libreis
 * message names the field, the value and the allowed
 * range, and points at its error log entry. The drive's Error Information
 * log (LID 01h, NVMe's 64-byte entries) and the reasons page (C2h) are read
 * back: error counts newest first, SQID/CID, status field, Parameter Error
 * Location (command byte) or the data byte in C2h, the C2h pointer in the
 * vendor-information byte; after 70 more failures the ring keeps the
 * newest 64 and the page ends there. Deploying one-entry databases until
 * the drive refuses gives Capacity Exceeded naming the R-DB (small
 * databases share SLC stripes, so the table runs out first).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "errlog_t.h"
#include "isp_wire.h"
#include "libreis_tools.h"
#include "reis_synth.h"

#define DIM 64

static struct reis_dev *dev;

static void expect(int ret, const char *a, const char *b)
{
	const char *m = reis_last_error(dev);

	CHECK(ret < 0);
	if (!strstr(m, a) || (b && !strstr(m, b))) {
		fprintf(stderr, "message '%s' lacks '%s' / '%s'\n", m, a, b ? b : "");
		CHECK(0);
	}
	CHECK(strstr(m, "error log entry") != NULL);
}

static void check_log(const struct reis_queries *q)
{
	uint8_t ent[ISP_ERR_RING * 64];
	struct isp_wire_err_text t[8];
	uint64_t newest;
	unsigned i;

	REQUIRE(reis_log_page(dev, ISP_LID_ERROR, 0, ent, 4 * 64) == 0);
	REQUIRE(reis_log_page(dev, ISP_LID_ERRTEXT, 0, t, sizeof(t)) == 0);
	newest = errlog_u64(ent);
	CHECK(newest >= 7);
	for (i = 0; i < 4; i++) {
		const uint8_t *e = ent + 64 * i;

		CHECK(errlog_u64(e) == newest - i);			/* error count */
		CHECK(errlog_u16(e + 8) == 1);			/* SQID */
		CHECK(errlog_u16(e + 10) != 0);			/* CID */
		CHECK(errlog_u16(e + 12) >> 1 == t[i].status);	/* status field */
		CHECK(errlog_u16(e + 14) == t[i].loc);		/* Parameter Error Location */
		CHECK(e[28] == ISP_LID_ERRTEXT);		/* vendor info in C2h */
		CHECK(t[i].error_count == newest - i);
		CHECK(t[i].sqid == 1 && t[i].cid == errlog_u16(e + 10));
		CHECK(t[i].msg[0] != 0);
	}
	/* The newest: NDM, command byte 44 (CDW11). */
	CHECK(t[0].loc == 44 && t[0].data_byte == 0);
	/* Before it: k = 0 sent raw, data byte 8 (k) of the search header. */
	CHECK(t[1].loc == ISP_ERR_LOC_NONE);
	CHECK(t[1].data_byte == 8 + 1);
	CHECK(strstr(t[1].msg, "k = 0: 1..") != NULL);
	/* Before it: the unknown database, data byte 0 (did). */
	CHECK(t[2].loc == ISP_ERR_LOC_NONE && t[2].data_byte == 1);
	CHECK((t[2].status & 0xff) == (REIS_SC_UNKNOWN_ID & 0xff));
	/* The brute-force database's nprobe: the opcode, command byte 0. */
	CHECK(t[5].loc == 0 && t[5].data_byte == 0);

	/* 70 more: the ring keeps the newest 64, entry 64 is past the page. */
	for (i = 0; i < 70; i++)
		CHECK(errlog_search(dev, 77 + i, 1, 0, 0, 0, 0, q) == -ENOENT);
	REQUIRE(reis_log_page(dev, ISP_LID_ERROR, 0, ent, sizeof(ent)) == 0);
	CHECK(errlog_u64(ent) >= newest + 70);
	CHECK(errlog_u64(ent + 63 * 64) == errlog_u64(ent) - 63);
	CHECK(reis_log_page(dev, ISP_LID_ERROR, sizeof(ent), ent, 64) == -EINVAL);
	CHECK(reis_log_page(dev, ISP_LID_ERRTEXT, 0, t, sizeof(t)) == 0);
	CHECK(t[0].error_count == errlog_u64(ent));
}

int main(void)
{
	float *x = synth_vectors(5, 1, DIM, 1, 0.1f);
	struct reis_build_opts bo;
	struct reis_db_image img;
	struct reis_queries q;
	struct reis_cmd c;
	struct reis_cpl cpl;
	uint8_t raw[72 + DIM / 8 + DIM];
	char err[256];
	uint32_t did;
	int ret;

	REQUIRE(x);
	REQUIRE(reis_open_inproc(NULL, &dev) == 0);
	memset(&bo, 0, sizeof(bo));
	bo.did = 7;
	bo.kind = REIS_DB_BF;
	bo.flags = REIS_BUILD_INT8;
	REQUIRE(reis_db_build(&bo, x, 1, DIM, &img, err, sizeof(err)) == 0);
	REQUIRE(reis_db_deploy(dev, &img, NULL) == 0);
	REQUIRE(reis_encode_queries(img.quant, x, 1, &q) == 0);
	CHECK(errlog_search(dev, 7, 1, 0, 0, 0, 0, &q) == 0);

	expect(errlog_search(dev, 7, 2, 0, 0, 0, 0, &q),
	       "k = 2 exceeds the database's 1 entry", "data byte 8)");
	expect(errlog_search(dev, 7, 1, 0, 0, 0, 4, &q),
	       "IVF_SEARCH on database 7, which is brute force", "command byte 0)");
	expect(errlog_search(dev, 7, 1, REIS_SF_TAG, 3, 0, 0, &q),
	       "tag 3 asked but database 7 has no tags", "data byte 12 bit 4)");
	expect(errlog_search(dev, 7, 1, 0, 0, 999, 0, &q),
	       "df_threshold = 999 exceeds database 7's dimension 64", "data byte 20)");
	ret = errlog_search(dev, 77, 1, 0, 0, 0, 0, &q);
	CHECK(ret == -ENOENT);
	expect(ret, "database 77 does not exist", "data byte 0)");

	/* k = 0, which libreis refuses itself, sent raw to the drive. */
	memset(raw, 0, sizeof(raw));
	raw[0] = 7;				/* did */
	raw[4] = 1;				/* nq */
	raw[36] = DIM;				/* dim */
	memcpy(raw + 72, q.bin, DIM / 8);
	memcpy(raw + 72 + DIM / 8, q.int8, DIM);
	memset(&c, 0, sizeof(c));
	c.opcode = REIS_OP_SEARCH;
	c.cdw10 = sizeof(raw) / 4;		/* NDT, dwords */
	c.cdw12 = 0x1234;
	ret = reis_cmd_raw(dev, &c, raw, sizeof(raw), &cpl);
	expect(ret, "k = 0: 1..1024 allowed", "data byte 8)");

	/* Refused at decode (NDM set): named, and it costs time and energy. */
	memset(&c, 0, sizeof(c));
	c.opcode = REIS_OP_SEARCH;
	c.cdw11 = 1;
	ret = reis_cmd_raw(dev, &c, NULL, 0, &cpl);
	expect(ret, "NDM (CDW11) = 0x1 must be 0", "command byte 44)");
	CHECK(cpl.time_ns > 0 && cpl.energy_nj > 0);

	check_log(&q);

	/* Capacity Exceeded names the limit: here the R-DB's 256 entries
	 * (one-entry databases share SLC stripes); a delete gives one back. */
	for (did = 100; did < 100 + 300; did++) {
		img.did = did;
		ret = reis_db_deploy(dev, &img, NULL);
		if (ret)
			break;
	}
	CHECK(ret == -ENOSPC);
	expect(ret, "R-DB full: 256 databases, the drive's max_dbs", "Capacity Exceeded");
	CHECK(did > 100 && did < 100 + 256);
	CHECK(reis_db_delete(dev, 100) == 0);
	CHECK(reis_db_deploy(dev, &img, NULL) == 0);

	reis_queries_free(&q);
	reis_db_image_free(&img);
	reis_close(dev);
	free(x);
	return t_result();
}
