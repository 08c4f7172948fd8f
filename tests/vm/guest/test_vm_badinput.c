/* SPDX-License-Identifier: MIT */
/*
 * test_vm_badinput - malformed vendor commands get NVMe errors with DNR and
 * the drive keeps working (docs/command-set.md §2, status codes):
 *   1. unused vendor opcodes (no data) -> Invalid Opcode 0x4001;
 *   2. a bidirectional opcode (bits 1:0 = 11b) -> 0x4001;
 *   3. NDT zero, wrong and larger than max_xfer on data opcodes, and NDT
 *      on a no-data opcode -> Invalid Field 0x4002;
 *   4. NDM != 0 -> 0x4002;
 *   5. ECHO_H2C with data that is not the pattern -> ISP Miscompare 0x47C7;
 *   6. every error completion still carries a result; a NOOP and an echo
 *      succeed afterwards.
 */
#include "check.h"
#include "nvme_pt.h"

#define DNR ISP_STATUS_DNR

static int run(struct pt_ring *r, uint8_t opc, void *buf, uint32_t len,
	       uint32_t ndt, uint32_t ndm, uint32_t cdw12)
{
	struct pt_cmd pc;

	pt_vendor(&pc, opc, buf, len, cdw12);
	pc.c.cdw10 = ndt;
	pc.c.cdw11 = ndm;
	return pt_run(r, &pc);
}

#define EXPECT(what, got, want)                                              \
	do {                                                                 \
		int _g = (got);                                              \
		if (_g != (want)) {                                          \
			fprintf(stderr, "%s: status 0x%x, want 0x%x\n", what, \
				_g, (unsigned)(want));                        \
			t_failures++;                                        \
		}                                                            \
	} while (0)

int main(void)
{
	struct isp_wire_identify *id = pt_alloc(sizeof(*id));
	uint8_t *buf = pt_alloc(8192);
	struct pt_ring r;
	struct pt_cmd pc;
	uint32_t max;
	unsigned opc;

	REQUIRE(pt_open(&r, NULL, 8) == 0);
	REQUIRE(pt_isp_identify(&r, id) == 0);
	max = id->max_xfer;

	/* 1. unused no-data opcodes in the vendor range */
	for (opc = 0xf0; opc <= 0xfc; opc += 4) {
		char what[32];

		snprintf(what, sizeof(what), "opcode 0x%02x", opc);
		if (isp_dev_opcode_supported((uint8_t)opc, NULL))
			continue;
		EXPECT(what, run(&r, (uint8_t)opc, NULL, 0, 0, 0, 0),
		       ISP_SC_INVALID_OPCODE | DNR);
	}
	/* an unused C2H opcode with data */
	EXPECT("opcode 0xfe", run(&r, 0xfe, buf, 4096, 1024, 0, 0),
	       ISP_SC_INVALID_OPCODE | DNR);

	/* 2. bidirectional: Linux maps the buffer as a write (bit 0) */
	EXPECT("bidirectional 0x83", run(&r, 0x83, buf, 4096, 1024, 0, 0),
	       ISP_SC_INVALID_OPCODE | DNR);
	EXPECT("bidirectional 0xff", run(&r, 0xff, NULL, 0, 0, 0, 0),
	       ISP_SC_INVALID_OPCODE | DNR);

	/* 3. NDT against the opcode */
	EXPECT("ECHO_C2H NDT 0", run(&r, ISP_OP_ECHO_C2H, NULL, 0, 0, 0, 1),
	       ISP_SC_INVALID_FIELD | DNR);
	EXPECT("ECHO_H2C NDT 0", run(&r, ISP_OP_ECHO_H2C, NULL, 0, 0, 0, 1),
	       ISP_SC_INVALID_FIELD | DNR);
	EXPECT("ECHO_C2H NDT > max_xfer",
	       run(&r, ISP_OP_ECHO_C2H, buf, 4096, max / 4 + 1, 0, 1),
	       ISP_SC_INVALID_FIELD | DNR);
	EXPECT("ECHO_C2H NDT huge",
	       run(&r, ISP_OP_ECHO_C2H, buf, 4096, 0xffffffffu, 0, 1),
	       ISP_SC_INVALID_FIELD | DNR);
	EXPECT("IDENTIFY NDT 2048 bytes",
	       run(&r, ISP_OP_IDENTIFY, buf, 2048, 512, 0, 0),
	       ISP_SC_INVALID_FIELD | DNR);
	EXPECT("NOOP with NDT", run(&r, ISP_OP_NOOP, NULL, 0, 16, 0, 0),
	       ISP_SC_INVALID_FIELD | DNR);
	EXPECT("IDENTIFY CNS 5", run(&r, ISP_OP_IDENTIFY, buf, 4096, 1024, 0, 5),
	       ISP_SC_INVALID_FIELD | DNR);

	/* 4. NDM */
	EXPECT("NOOP NDM 1", run(&r, ISP_OP_NOOP, NULL, 0, 0, 1, 0),
	       ISP_SC_INVALID_FIELD | DNR);
	EXPECT("ECHO_C2H NDM 4", run(&r, ISP_OP_ECHO_C2H, buf, 4096, 1024, 4, 1),
	       ISP_SC_INVALID_FIELD | DNR);

	/* 5. miscompare, and the result still carries a modeled time */
	isp_wire_pattern(99, buf, 4096);
	buf[4000] ^= 1;
	pt_vendor(&pc, ISP_OP_ECHO_H2C, buf, 4096, 99);
	EXPECT("ECHO_H2C wrong data", pt_run(&r, &pc), ISP_SC_MISCOMPARE | DNR);
	CHECK(isp_wire_result_time_ns(pc.result) > 0);

	/* 6. still alive */
	pt_vendor(&pc, ISP_OP_NOOP, NULL, 0, 0);
	EXPECT("NOOP afterwards", pt_run(&r, &pc), 0);
	pt_vendor(&pc, ISP_OP_ECHO_C2H, buf, 4096, 5);
	EXPECT("ECHO_C2H afterwards", pt_run(&r, &pc), 0);
	REQUIRE(pt_isp_identify(&r, id) == 0);
	CHECK(memcmp(id->magic, "ISP1", 4) == 0);

	pt_close(&r);
	return t_result();
}
