/* SPDX-License-Identifier: MIT */
/*
 * test_rf_cancel - isp_dev_exec_cancel() on RF_SLS and RF_REMAP: a set
 * flag stops the command with Command Abort Requested (no DNR); a stopped
 * SLS publishes nothing under its ticket, a stopped REMAP FULL stages
 * nothing and gives back its DRAM and its new area (twenty stopped remaps
 * in a row, then the real one still finds room), and the table's sums stay
 * exact; the same REMAP then succeeds.
 */
#include "recflash_int.h"
#include "test_rf_util.h"

#define ROWS 20000u
#define DIM 32u

static uint16_t exec_cancel(struct isp_dev *dev, struct isp_cmd *c, void *buf,
			    struct isp_cpl *cpl, int flag)
{
	atomic_int cancel = flag;
	uint16_t st = isp_dev_check(dev, c, cpl);

	if (st)
		return st;
	return isp_dev_exec_cancel(dev, c, buf, isp_cmd_data_len(c), cpl, &cancel);
}

static void check_sums(struct isp_dev *dev, const uint8_t *table, uint32_t seed)
{
	struct rt_batch b;
	struct rt_sls_out o;
	float *ref = malloc(64 * DIM * 4);

	REQUIRE(ref);
	rt_batch_random(&b, 64, 20, ROWS, 0, seed);
	REQUIRE(rt_sls(dev, 1, DIM, 0, &b, &o) == 0);
	rt_reference(table, ISP_RF_FP32, DIM, 0, &b, ref);
	CHECK(rt_same(o.v, ref, 64 * DIM));
	free(o.v);
	rt_batch_free(&b);
	free(ref);
}

int main(void)
{
	struct isp_dev *dev = rt_open("recflash-slc", "blocks_per_plane=64", NULL);
	uint8_t *table = rt_table(ROWS, DIM, ISP_RF_FP32, 4321), *data;
	struct isp_wire_rf_create cr = rt_cr(1, ROWS, DIM, ISP_RF_FP32, ISP_RF_RECFLASH);
	struct isp_wire_rf_stats st0, st1;
	struct isp_wire_identify id0, id1;
	struct isp_cpl cpl;
	struct rt_batch b;
	struct isp_cmd c;
	uint8_t rbuf[4096];
	size_t len;
	int i;

	REQUIRE(dev && table);
	REQUIRE(rt_deploy(dev, &cr, table, NULL) == 0);
	check_sums(dev, table, 5);

	/* SLS with the flag set */
	rt_batch_random(&b, 64, 20, ROWS, 0, 9);
	len = rt_sls_data(1, DIM, 0, &b, &data);
	c = rt_cmd(ISP_OP_RF_SLS, (uint32_t)len);
	c.cdw12 = 4000;
	CHECK_EQ_U64(exec_cancel(dev, &c, data, &cpl, 1), ISP_SC_ABORT_REQ);
	CHECK(cpl.err != NULL);
	c = rt_cmd(ISP_OP_RESULT_READ, sizeof(rbuf));
	c.cdw12 = 4000;
	CHECK_EQ_U64(rt_exec(dev, &c, rbuf, NULL) & 0x7ff, ISP_SC_UNKNOWN_ID);
	/* the same command with the flag clear runs, under the same ticket */
	c = rt_cmd(ISP_OP_RF_SLS, (uint32_t)len);
	c.cdw12 = 4000;
	CHECK_EQ_U64(exec_cancel(dev, &c, data, &cpl, 0), 0);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RESULT_RELEASE, 4000, 0, NULL), 0);
	free(data);
	rt_batch_free(&b);

	/* REMAP FULL with the flag set: nothing staged, nothing leaked */
	for (i = 0; i < 3; i++)
		check_sums(dev, table, 11 + (uint32_t)i);	/* tracked counts */
	REQUIRE(rt_stats(dev, 1, 0, &st0) == 0);
	c = rt_cmd(ISP_OP_IDENTIFY, sizeof(id0));
	REQUIRE(rt_exec(dev, &c, &id0, NULL) == 0);
	for (i = 0; i < 20; i++) {
		c = rt_cmd(ISP_OP_RF_REMAP, 0);
		c.cdw12 = 1;
		c.cdw13 = ISP_RF_REMAP_FULL;
		CHECK_EQ_U64(exec_cancel(dev, &c, NULL, &cpl, 1), ISP_SC_ABORT_REQ);
	}
	REQUIRE(rt_stats(dev, 1, 0, &st1) == 0);
	CHECK_EQ_U64(st1.remap_state, st0.remap_state);
	c = rt_cmd(ISP_OP_IDENTIFY, sizeof(id1));
	REQUIRE(rt_exec(dev, &c, &id1, NULL) == 0);
	CHECK_EQ_U64(id1.dram_used, id0.dram_used);
	check_sums(dev, table, 21);
	/* SWITCH has nothing to switch to */
	CHECK(rt_simple(dev, ISP_OP_RF_SWITCH, 1, 0, NULL) != 0);

	/* the same remap, not stopped, stages and switches; sums stay exact */
	c = rt_cmd(ISP_OP_RF_REMAP, 0);
	c.cdw12 = 1;
	c.cdw13 = ISP_RF_REMAP_FULL | ISP_RF_REMAP_SWITCH;
	CHECK_EQ_U64(exec_cancel(dev, &c, NULL, &cpl, 0), 0);
	check_sums(dev, table, 31);

	free(table);
	isp_dev_close(dev);
	return t_result();
}
