/* SPDX-License-Identifier: MIT */
/*
 * test_rf_async - asynchronous SLS: 96 operations on four tables in flight
 * at once on a drive with four workers (completions in any order), each
 * with its own bags, each callback exactly once, every result equal to its
 * own host reference (results never mix); an operation larger than one
 * command runs its parts one after the other; a ticket collision (forced
 * with reis_ticket_force()) is retried with a fresh ticket; a full result
 * table ends an operation with -EAGAIN and the synchronous call gets
 * through once results are released; a handle closed with operations in
 * flight ends them with -ECANCELED, no callback run, nothing leaked.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "libreis_tools.h"
#include "rf_util.h"

#define ROWS 2000
#define NOPS 96

static unsigned cb_count[NOPS];

static void cb(struct reis_rf_sls_op *op, void *arg)
{
	unsigned i = (unsigned)(uintptr_t)arg;

	(void)op;
	cb_count[i]++;
}


static int raw_sls_hold(struct reis_dev *dev, uint32_t tid, uint32_t dim, uint32_t ticket)
{
	uint32_t buf[11] = { tid, 1, 1, 0, dim, 0, 0, 0, 0, 1, 5 };
	struct reis_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = REIS_OP_RF_SLS;
	cmd.cdw10 = 11;
	cmd.cdw12 = ticket;
	return reis_cmd_raw(dev, &cmd, buf, sizeof(buf), NULL);
}

static int raw_release(struct reis_dev *dev, uint32_t ticket)
{
	struct reis_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = REIS_OP_RESULT_RELEASE;
	cmd.cdw12 = ticket;
	return reis_cmd_raw(dev, &cmd, NULL, 0, NULL);
}

int main(void)
{
	static struct reis_rf_sls_op ops[NOPS];
	static struct rf_batch bt[NOPS];
	static float *out[NOPS], *ref[NOPS];
	struct reis_dev *dev = rf_open("recflash-tlc", 4, 65536, NULL);
	struct rf_tbl t[4];
	struct reis_rf_sls_op big;
	struct rf_batch bb;
	float *bo, *br;
	unsigned i, tickets, held;
	int ret;

	for (i = 0; i < 4; i++) {
		REQUIRE(rf_tbl_make(&t[i], 20 + i, ROWS, 8 + 8 * i, 1 + i % 3, 1 + i % 3,
				    i) == 0);
		REQUIRE(rf_tbl_deploy(dev, &t[i], NULL) == 0);
	}
	for (i = 0; i < NOPS; i++) {
		const struct rf_tbl *tt = &t[i % 4];
		uint32_t fl = i % 3 == 0 ? REIS_RF_SLS_WEIGHTED : i % 3 == 1 ? REIS_RF_SLS_MEAN : 0;

		rf_batch_make(&bt[i], 500 + i, 1 + i % 17, 30, 0, ROWS,
			      !!(fl & REIS_RF_SLS_WEIGHTED));
		out[i] = calloc((size_t)bt[i].b.nbags * tt->dim, sizeof(float));
		ref[i] = calloc((size_t)bt[i].b.nbags * tt->dim, sizeof(float));
		REQUIRE(out[i] && ref[i]);
		CHECK(reis_rf_sls_ref(tt->dtype, ROWS, tt->dim, tt->wire, &bt[i].b, fl, ref[i]) == 0);
		reis_rf_sls_op_init(&ops[i], tt->tid, tt->dim, &bt[i].b, fl, out[i]);
		ops[i].cb = cb;
		ops[i].cb_arg = (void *)(uintptr_t)i;
	}
	/* All in flight: each operation holds one request at a time. */
	for (i = 0; i < NOPS; i++) {
		ret = reis_rf_sls_submit(dev, &ops[i]);
		if (ret)
			fprintf(stderr, "submit %u: %s\n", i, reis_last_error(dev));
		CHECK(ret == 0);
	}
	CHECK(reis_rf_sls_submit(dev, &ops[0]) == -EBUSY || reis_rf_sls_done(&ops[0]));
	for (i = 0; i < NOPS; i++)
		CHECK(reis_rf_sls_wait(dev, &ops[i], 20000) == 0);
	CHECK_EQ_U64(reis_inflight(dev), 0);
	for (i = 0; i < NOPS; i++) {
		const struct rf_tbl *tt = &t[i % 4];

		CHECK(reis_rf_sls_done(&ops[i]));
		CHECK_EQ_U64(cb_count[i], 1);
		CHECK_EQ_U64(ops[i].info.nbags, bt[i].b.nbags);
		CHECK_EQ_U64(ops[i].info.lookups, bt[i].b.nidx);
		if (rf_diff(out[i], ref[i], (size_t)bt[i].b.nbags * tt->dim)) {
			fprintf(stderr, "op %u on table %u: result differs\n", i, tt->tid);
			CHECK(0);
		}
	}

	/* One operation, many parts (64 KiB commands). */
	rf_batch_make(&bb, 7, 2000, 60, 1, ROWS, 1);
	bo = calloc((size_t)2000 * t[1].dim, sizeof(float));
	br = calloc((size_t)2000 * t[1].dim, sizeof(float));
	REQUIRE(bo && br);
	reis_rf_sls_op_init(&big, t[1].tid, t[1].dim, &bb.b, REIS_RF_SLS_WEIGHTED, bo);
	CHECK(reis_rf_sls_submit(dev, &big) == 0);
	CHECK(reis_rf_sls_wait(dev, &big, 60000) == 0);
	CHECK(big.info.ncmds > 4);
	CHECK(reis_rf_sls_ref(t[1].dtype, ROWS, t[1].dim, t[1].wire, &bb.b,
			      REIS_RF_SLS_WEIGHTED, br) == 0);
	CHECK(rf_diff(bo, br, (size_t)2000 * t[1].dim) == 0);

	/* Ticket collision: 0xabc is held; the first two tickets drawn are 0xabc. */
	CHECK(raw_sls_hold(dev, t[0].tid, t[0].dim, 0xabc) == 0);
	reis_ticket_force(dev, 0xabc, 2);
	CHECK(reis_rf_sls(dev, t[0].tid, t[0].dim, &bt[0].b, REIS_RF_SLS_WEIGHTED, out[0],
			  &big.info) == 0);
	reis_ticket_force(dev, 0, 0);
	CHECK_EQ_U64(big.info.retries, 2);
	CHECK(rf_diff(out[0], ref[0], (size_t)bt[0].b.nbags * t[0].dim) == 0);
	CHECK(raw_release(dev, 0xabc) == 0);

	/* A full result table: async ends with -EAGAIN. One queue holds at
	 * most three quarters of it (docs/security.md, "Fair shares"). */
	tickets = reis_dev_info(dev)->max_tickets;
	for (held = 0; held < tickets; held++)
		if (raw_sls_hold(dev, t[0].tid, t[0].dim, 0x10000 + held))
			break;
	CHECK(held == tickets - tickets / 4);
	CHECK((reis_last_cpl(dev)->status & REIS_STATUS_CODE_MASK) == REIS_SC_RESOURCE);
	reis_rf_sls_op_init(&big, t[2].tid, t[2].dim, &bt[2].b, 0, out[2]);
	CHECK(reis_rf_sls_submit(dev, &big) == 0);
	CHECK(reis_rf_sls_wait(dev, &big, 10000) == -EAGAIN);
	CHECK((big.cpl.status & REIS_STATUS_CODE_MASK) == REIS_SC_RESOURCE);
	CHECK(!(big.cpl.status & REIS_STATUS_DNR));
	for (i = 0; i < held; i++)
		CHECK(raw_release(dev, 0x10000 + i) == 0);
	reis_rf_sls_op_init(&big, t[2].tid, t[2].dim, &bt[2].b, 0, out[2]);
	CHECK(reis_rf_sls_submit(dev, &big) == 0);
	CHECK(reis_rf_sls_wait(dev, &big, 10000) == 0);
	CHECK(rf_diff(out[2], ref[2], (size_t)bt[2].b.nbags * t[2].dim) == 0);

	/* Closed with operations in flight (one part and many): they end with
	 * -ECANCELED, done, their library state freed (ASan's leak check),
	 * their callbacks not run. */
	reis_rf_sls_op_init(&ops[3], t[3].tid, t[3].dim, &bt[3].b, ops[3].flags, out[3]);
	ops[3].cb = cb;
	ops[3].cb_arg = (void *)(uintptr_t)3;
	reis_rf_sls_op_init(&big, t[1].tid, t[1].dim, &bb.b, REIS_RF_SLS_WEIGHTED, bo);
	CHECK(reis_rf_sls_submit(dev, &ops[3]) == 0);
	CHECK(reis_rf_sls_submit(dev, &big) == 0);
	reis_close(dev);
	CHECK(reis_rf_sls_done(&ops[3]) && reis_rf_sls_done(&big));
	CHECK(ops[3].err == -ECANCELED && big.err == -ECANCELED);
	CHECK(ops[3].priv == NULL && big.priv == NULL);
	CHECK_EQ_U64(cb_count[3], 1);
	for (i = 0; i < NOPS; i++) {
		free(out[i]);
		free(ref[i]);
		rf_batch_free(&bt[i]);
	}
	rf_batch_free(&bb);
	free(bo);
	free(br);
	for (i = 0; i < 4; i++)
		free(t[i].wire);
	return t_result();
}
