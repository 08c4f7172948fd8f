/* SPDX-License-Identifier: MIT */
/*
 * test_vm_isp_off - with isp=off (the default) the controller is QEMU's
 * plain nvme device (run by the runner's second boot):
 *   1. vendor opcodes, with and without data, fail with Invalid Opcode + DNR
 *      (0x4001), as in an unpatched QEMU;
 *   2. the effects log lists no vendor opcode, log pages C0h/C1h are
 *      rejected, the Identify vendor-specific area is zero;
 *   3. regular reads still work.
 */
#include "check.h"
#include "nvme_pt.h"

int main(void)
{
	uint8_t *buf = pt_alloc(4096);
	uint8_t zero[ISP_ID_CTRL_VS_LEN] = { 0 };
	struct pt_ring r;
	struct pt_cmd pc;
	unsigned opc;

	REQUIRE(pt_open(&r, NULL, 8) == 0);

	pt_vendor(&pc, ISP_OP_NOOP, NULL, 0, 0);
	CHECK_EQ_U64(pt_run(&r, &pc), ISP_SC_INVALID_OPCODE | ISP_STATUS_DNR);
	pt_vendor(&pc, ISP_OP_IDENTIFY, buf, 4096, 0);
	CHECK_EQ_U64(pt_run(&r, &pc), ISP_SC_INVALID_OPCODE | ISP_STATUS_DNR);
	pt_vendor(&pc, ISP_OP_ECHO_H2C, buf, 4096, 1);
	CHECK_EQ_U64(pt_run(&r, &pc), ISP_SC_INVALID_OPCODE | ISP_STATUS_DNR);
	pt_vendor(&pc, 0xfc, NULL, 0, 0);
	CHECK_EQ_U64(pt_run(&r, &pc), ISP_SC_INVALID_OPCODE | ISP_STATUS_DNR);

	CHECK_EQ_U64(pt_get_log(0x05, buf, 4096), 0);
	for (opc = 0x80; opc <= 0xff; opc++) {
		uint32_t eff;

		memcpy(&eff, buf + 1024 + 4 * opc, 4);
		CHECK(eff == 0);
	}
	CHECK_EQ_U64(pt_get_log(ISP_LID_STATS, buf, 4096), 0x4002);
	CHECK_EQ_U64(pt_get_log(ISP_LID_IDENTIFY, buf, 4096), 0x4002);
	CHECK_EQ_U64(pt_identify_ctrl(buf), 0);
	CHECK(memcmp(buf + 3072, zero, sizeof(zero)) == 0);

	pt_rw(&pc, 0, buf, 0, 4096 / 512, 512);
	CHECK_EQ_U64(pt_run(&r, &pc), 0);

	pt_close(&r);
	return t_result();
}
