/* SPDX-License-Identifier: MIT */
/*
 * test_rf_errors - bad RecFlash input surfaces as the right -errno and NVMe
 * status (command-set.md §2, §5), and leaves the tables as they were:
 * library checks refuse malformed descriptions and batches before anything
 * is sent (status 0, nothing counted by the drive); the drive refuses row
 * indices out of range, empty bags, unordered offsets, missing weights,
 * dimension mismatches, unknown tables (SLS, stats, delete, profile, remap,
 * switch), profiles longer than the table, SLS on a table still deploying,
 * out-of-order and incomplete deploys, bad create headers - each with DNR.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "libreis_tools.h"
#include "rf_util.h"

#define ROWS 500
#define DIM 16
#define TID 7

static struct reis_dev *dev;
static struct rf_tbl tb;

/* Expect -errno @err with status code @sc (and DNR) in the last completion. */
#define EXPECT(call, err, sc)                                                        \
	do {                                                                         \
		int _r = (call);                                                     \
		uint16_t _s = reis_last_cpl(dev)->status;                            \
		if (_r != (err) || (_s & REIS_STATUS_CODE_MASK) != (sc) ||           \
		    ((sc) && !(_s & REIS_STATUS_DNR))) {                             \
			fprintf(stderr, "%s:%d: %s -> %d status 0x%04x (want %d 0x%04x):" \
				" %s\n", __FILE__, __LINE__, #call, _r, _s, (err), (sc), \
				reis_last_error(dev));                               \
			t_failures++;                                                \
		}                                                                    \
	} while (0)

/* Raw SLS: header, offsets, indices, optional weights, as given. */
static int raw_sls(uint32_t tid, uint32_t nbags, uint32_t nidx, uint32_t flags, uint32_t dim,
		   const uint32_t *offs, uint32_t noffs, const uint32_t *idx, uint32_t nidx_sent,
		   int with_weights)
{
	uint32_t buf[1024], n = 8;
	struct reis_cmd cmd;
	uint32_t i;

	memset(buf, 0, sizeof(buf));
	buf[0] = tid;
	buf[1] = nbags;
	buf[2] = nidx;
	buf[3] = flags;
	buf[4] = dim;
	for (i = 0; i < noffs; i++)
		buf[n++] = offs[i];
	for (i = 0; i < nidx_sent; i++)
		buf[n++] = idx[i];
	if (with_weights)
		for (i = 0; i < nidx_sent; i++) {
			float w = 1.0f;

			memcpy(&buf[n++], &w, 4);
		}
	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = REIS_OP_RF_SLS;
	cmd.cdw10 = n;
	cmd.cdw12 = 0x1234567;
	return reis_cmd_raw(dev, &cmd, buf, n * 4, NULL);
}

static int raw_simple(uint8_t op, uint32_t tid, uint32_t c13, uint32_t c14, void *data,
		      uint32_t len)
{
	struct reis_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = op;
	cmd.cdw10 = len / 4;
	cmd.cdw12 = tid;
	cmd.cdw13 = c13;
	cmd.cdw14 = c14;
	return reis_cmd_raw(dev, &cmd, data, len, NULL);
}

static int raw_create(uint32_t tid, uint32_t rows, uint32_t dim, uint32_t dtype,
		      uint32_t mode)
{
	uint32_t c[32];

	memset(c, 0, sizeof(c));
	c[0] = tid;
	c[1] = rows;
	c[2] = dim;
	c[3] = dtype;
	c[4] = mode;
	return raw_simple(REIS_OP_RF_TBL_CREATE, 0, 0, 0, c, sizeof(c));
}

static void table_intact(void)
{
	struct rf_batch bt;
	float out[20 * DIM], ref[20 * DIM];

	rf_batch_make(&bt, 99, 20, 10, 0, ROWS, 0);
	CHECK(reis_rf_sls(dev, TID, DIM, &bt.b, 0, out, NULL) == 0);
	CHECK(reis_rf_sls_ref(REIS_RF_FP32, ROWS, DIM, tb.wire, &bt.b, 0, ref) == 0);
	CHECK(rf_diff(out, ref, 20 * DIM) == 0);
	rf_batch_free(&bt);
}

int main(void)
{
	uint32_t offs[8] = { 0, 2, 4 }, idx[8] = { 1, 2, 3, 4 };
	struct reis_rf_bags b = { 2, 4, offs, idx, NULL };
	struct reis_rf_table d;
	struct reis_rf_stats st;
	struct reis_stats s0, s1;
	uint32_t prof[ROWS + 1];
	float out[4 * DIM];
	uint8_t chunk[64];

	dev = rf_open("recflash-slc", 0, 0, NULL);
	REQUIRE(rf_tbl_make(&tb, TID, ROWS, DIM, REIS_RF_FP32, REIS_RF_RECFLASH, 3) == 0);
	REQUIRE(rf_tbl_deploy(dev, &tb, NULL) == 0);
	table_intact();

	/* ---- library checks: nothing reaches the drive ---- */
	REQUIRE(reis_stats(dev, 0, &s0) == 0);
	memset(&d, 0, sizeof(d));
	d.tid = 9, d.rows = 10, d.dim = 4, d.dtype = REIS_RF_FP32, d.mode = REIS_RF_RMSSD;
	d.data = tb.wire;
	d.dtype = 7;
	CHECK(reis_rf_deploy(dev, &d, NULL) == -EINVAL);
	CHECK(strstr(reis_last_error(dev), "dtype") != NULL);
	d.dtype = REIS_RF_FP32, d.mode = 0;
	CHECK(reis_rf_deploy(dev, &d, NULL) == -EINVAL);
	d.mode = REIS_RF_RMSSD, d.tid = 0;
	CHECK(reis_rf_deploy(dev, &d, NULL) == -EINVAL);
	d.tid = 9, d.dim = REIS_RF_MAX_DIM + 1;
	CHECK(reis_rf_deploy(dev, &d, NULL) == -EINVAL);
	d.dim = 4, d.name = "a name that is far too long for the field";
	CHECK(reis_rf_deploy(dev, &d, NULL) == -EINVAL);
	d.name = NULL, d.data = NULL;
	CHECK(reis_rf_deploy(dev, &d, NULL) == -EINVAL);
	d.data = tb.wire, d.profile = prof;	/* only RecFlash mode places by a profile */
	CHECK(reis_rf_deploy(dev, &d, NULL) == -EINVAL);
	CHECK(strstr(reis_last_error(dev), "RecFlash mode") != NULL);
	d.profile = NULL;
	d.data = tb.wire, d.trigger = REIS_RF_TRIG_PERIOD;
	CHECK(reis_rf_deploy(dev, &d, NULL) == -EINVAL);	/* period 0 */
	d.trigger = 0;
	CHECK(reis_rf_deployv(dev, &d, 0, NULL) == -EINVAL);
	offs[1] = 0;		/* empty bag */
	CHECK(reis_rf_sls(dev, TID, DIM, &b, 0, out, NULL) == -EINVAL);
	CHECK(strstr(reis_last_error(dev), "empty bag") != NULL);
	offs[1] = 2;
	CHECK(reis_rf_sls(dev, TID, DIM, &b, REIS_RF_SLS_WEIGHTED, out, NULL) == -EINVAL);
	CHECK(reis_rf_sls(dev, TID, DIM, &b, 1u << 9, out, NULL) == -EINVAL);
	CHECK(reis_rf_sls(dev, TID, 0, &b, 0, out, NULL) == -EINVAL);
	CHECK(reis_rf_sls(dev, TID, DIM, &b, 0, NULL, NULL) == -EINVAL);
	CHECK(reis_rf_sls(dev, TID, DIM, NULL, 0, out, NULL) == -EINVAL);
	b.nidx = 5;
	CHECK(reis_rf_sls(dev, TID, DIM, &b, 0, out, NULL) == -EINVAL);
	b.nidx = 4;
	CHECK(reis_rf_remap(dev, TID, 0, NULL) == -EINVAL);
	CHECK(reis_rf_remap(dev, TID, REIS_RF_REMAP_FULL | REIS_RF_REMAP_ADAPTIVE, NULL) ==
	      -EINVAL);
	CHECK(reis_rf_remap(dev, TID, REIS_RF_REMAP_FULL | (1u << 8), NULL) == -EINVAL);
	CHECK(reis_rf_profile(dev, TID, prof, 0) == -EINVAL);
	REQUIRE(reis_stats(dev, 0, &s1) == 0);
	CHECK_EQ_U64(s1.cmds[REIS_CLS_RECFLASH_DEPLOY], s0.cmds[REIS_CLS_RECFLASH_DEPLOY]);
	CHECK_EQ_U64(s1.cmds[REIS_CLS_RECFLASH_SLS], s0.cmds[REIS_CLS_RECFLASH_SLS]);
	CHECK_EQ_U64(s1.cmds[REIS_CLS_RECFLASH_REMAP], s0.cmds[REIS_CLS_RECFLASH_REMAP]);

	/* ---- the drive's checks ---- */
	idx[3] = ROWS;		/* row index out of range */
	EXPECT(reis_rf_sls(dev, TID, DIM, &b, 0, out, NULL), -EINVAL, REIS_SC_INVALID_FIELD);
	CHECK(strstr(reis_last_error(dev), "RF_SLS table 7") != NULL);
	/* the message has the drive's reason and its error log entry, as a
	 * REIS command's (recflash.md §2), and reis_last_error_info() finds it */
	{
		struct reis_err_info ei;

		fprintf(stderr, "message: %s\n", reis_last_error(dev));
		CHECK(strstr(reis_last_error(dev), "RF_SLS table 7 bags 0..1: row index out "
						   "of range: Invalid Field") != NULL);
		CHECK(strstr(reis_last_error(dev), "error log entry") != NULL);
		CHECK(reis_last_error_info(dev, &ei) == 1 && ei.logged &&
		      strstr(ei.reason, "row index") != NULL);
	}
	idx[3] = 4;
	EXPECT(reis_rf_sls(dev, TID, DIM + 1, &b, 0, out, NULL), -EDOM, REIS_SC_DIM_MISMATCH);
	EXPECT(reis_rf_sls(dev, 4242, DIM, &b, 0, out, NULL), -ENOENT, REIS_SC_UNKNOWN_ID);
	EXPECT(reis_rf_table_stats(dev, 4242, 0, &st), -ENOENT, REIS_SC_UNKNOWN_ID);
	EXPECT(reis_rf_delete(dev, 4242), -ENOENT, REIS_SC_UNKNOWN_ID);
	EXPECT(reis_rf_remap(dev, 4242, REIS_RF_REMAP_FULL, NULL), -ENOENT, REIS_SC_UNKNOWN_ID);
	EXPECT(reis_rf_switch(dev, 4242), -ENOENT, REIS_SC_UNKNOWN_ID);
	CHECK(strstr(reis_last_error(dev), "RF_SWITCH table 4242: unknown table: ISP Unknown "
					   "ID") != NULL);
	EXPECT(reis_rf_switch(dev, TID), -ENODATA, REIS_SC_INCOMPLETE);
	CHECK(strstr(reis_last_error(dev), "RF_SWITCH table 7: no mapping is staged") != NULL);
	memset(prof, 0, sizeof(prof));
	EXPECT(reis_rf_profile(dev, 4242, prof, 10), -ENOENT, REIS_SC_UNKNOWN_ID);
	EXPECT(reis_rf_profile(dev, TID, prof, ROWS + 1), -ERANGE, REIS_SC_BAD_OFFSET);
	/* the profile stream's message is whole too: reason, status, log entry */
	fprintf(stderr, "message: %s\n", reis_last_error(dev));
	CHECK(strstr(reis_last_error(dev), "RF_PROFILE table 7 counts at offset 0: ") &&
	      strstr(reis_last_error(dev), "Bad Offset") &&
	      strstr(reis_last_error(dev), "error log entry"));
	{
		struct reis_err_info ei;

		CHECK(reis_last_error_info(dev, &ei) == 1 && ei.logged && ei.reason[0]);
	}
	{
		uint32_t o2[3] = { 0, 2, 4 }, bad[3] = { 0, 3, 2 }, end[3] = { 0, 2, 3 };
		uint32_t empty[3] = { 0, 2, 2 };

		EXPECT(raw_sls(TID, 2, 4, 0, DIM, empty, 3, idx, 4, 0), -EINVAL,
		       REIS_SC_INVALID_FIELD);
		EXPECT(raw_sls(TID, 2, 4, 0, DIM, bad, 3, idx, 4, 0), -EINVAL,
		       REIS_SC_INVALID_FIELD);
		EXPECT(raw_sls(TID, 2, 4, 0, DIM, end, 3, idx, 4, 0), -EINVAL,
		       REIS_SC_INVALID_FIELD);
		/* Weighted flag without the weights in the payload. */
		EXPECT(raw_sls(TID, 2, 4, REIS_RF_SLS_WEIGHTED, DIM, o2, 3, idx, 4, 0), -EINVAL,
		       REIS_SC_INVALID_FIELD);
		EXPECT(raw_sls(TID, 0, 0, 0, DIM, o2, 1, idx, 0, 0), -EINVAL,
		       REIS_SC_INVALID_FIELD);
		EXPECT(raw_sls(TID, REIS_RF_MAX_BAGS + 1, 4, 0, DIM, o2, 3, idx, 4, 0), -EINVAL,
		       REIS_SC_INVALID_FIELD);
		/* A result holds its ticket until released: Ticket In Use. */
		EXPECT(raw_sls(TID, 2, 4, 0, DIM, o2, 3, idx, 4, 0), 0, 0);
		EXPECT(raw_sls(TID, 2, 4, 0, DIM, o2, 3, idx, 4, 0), -EADDRINUSE,
		       REIS_SC_TICKET_IN_USE);
		EXPECT(raw_simple(REIS_OP_RESULT_RELEASE, 0x1234567, 0, 0, NULL, 0), 0, 0);
	}

	/* Create headers, deploy order, commit before complete. */
	EXPECT(raw_create(0, 10, 4, REIS_RF_FP32, REIS_RF_RMSSD), -EINVAL,
	       REIS_SC_INVALID_FIELD);
	EXPECT(raw_create(11, 0, 4, REIS_RF_FP32, REIS_RF_RMSSD), -EINVAL,
	       REIS_SC_INVALID_FIELD);
	EXPECT(raw_create(11, 10, 0, REIS_RF_FP32, REIS_RF_RMSSD), -EINVAL,
	       REIS_SC_INVALID_FIELD);
	EXPECT(raw_create(11, 10, 4, 9, REIS_RF_RMSSD), -EINVAL, REIS_SC_INVALID_FIELD);
	EXPECT(raw_create(11, 10, 4, REIS_RF_FP32, 9), -EINVAL, REIS_SC_INVALID_FIELD);
	EXPECT(raw_create(TID, 10, 4, REIS_RF_FP32, REIS_RF_RMSSD), -EEXIST,
	       REIS_SC_ID_EXISTS);
	EXPECT(raw_create(11, 10, 4, REIS_RF_FP32, REIS_RF_RMSSD), 0, 0);
	CHECK(reis_rf_table_stats(dev, 11, 0, &st) == 0);
	CHECK_EQ_U64(st.state, REIS_RF_DEPLOYING);
	memset(chunk, 0, sizeof(chunk));
	EXPECT(raw_simple(REIS_OP_RF_TBL_WRITE, 11, 1, 64, chunk, 64), -ERANGE,
	       REIS_SC_BAD_OFFSET);
	EXPECT(raw_simple(REIS_OP_RF_TBL_WRITE, 11, 1, 0, chunk, 64), 0, 0);
	EXPECT(raw_simple(REIS_OP_RF_TBL_COMMIT, 11, 0, 0, NULL, 0), -ENODATA,
	       REIS_SC_INCOMPLETE);
	{
		uint32_t o1[2] = { 0, 1 };

		EXPECT(raw_sls(11, 1, 1, 0, 4, o1, 2, idx, 1, 0), -EBUSY, REIS_SC_BUSY);
		b.nbags = 1, b.nidx = 2;
		EXPECT(reis_rf_sls(dev, 11, 4, &b, 0, out, NULL), -EBUSY, REIS_SC_BUSY);
		b.nbags = 2, b.nidx = 4;
	}
	EXPECT(raw_simple(REIS_OP_RF_TBL_WRITE, 11, 1, 64, chunk, 64), 0, 0);
	EXPECT(raw_simple(REIS_OP_RF_TBL_WRITE, 11, 1, 128, chunk, 64), -ERANGE,
	       REIS_SC_BAD_OFFSET);	/* past rows * 16 bytes */
	EXPECT(raw_simple(REIS_OP_RF_TBL_COMMIT, 11, 0, 0, NULL, 0), -ENODATA,
	       REIS_SC_INCOMPLETE);
	EXPECT(reis_rf_delete(dev, 11), 0, 0);
	CHECK(reis_rf_list(dev, NULL, 0) == 1);

	table_intact();
	reis_close(dev);
	free(tb.wire);
	return t_result();
}
