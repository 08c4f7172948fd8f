/* SPDX-License-Identifier: MIT */
/*
 * test_vm_identify - the drive describes itself consistently (docs/command-set.md §3):
 *   1. ISP_IDENTIFY through io_uring passthrough: magic, version, max_xfer,
 *      geometry and preset are sane; the completion carries a modeled time;
 *   2. Get Log Page C1h returns the same structure;
 *   3. Identify Controller bytes 3072.. hold its first 64 bytes;
 *   4. the Commands Supported and Effects log lists 80h 81h 82h 86h 8Ah as
 *      supported I/O commands, and exactly the vendor opcodes hw-model
 *      (linked in here) says it supports.
 */
#include "check.h"
#include "nvme_pt.h"

static int is_isp_opcode(unsigned opc)
{
	return opc == 0x80 || opc == 0x81 || opc == 0x82 || opc == 0x86 ||
	       opc == 0x8a;
}

int main(void)
{
	struct isp_wire_identify *id = pt_alloc(sizeof(*id));
	uint8_t *log = pt_alloc(4096), *ctrl = pt_alloc(4096);
	struct pt_ring r;
	struct pt_cmd pc;
	unsigned opc;
	int ret;

	ret = pt_open(&r, NULL, 8);
	REQUIRE(ret == 0);

	pt_vendor(&pc, ISP_OP_IDENTIFY, id, sizeof(*id), 0);
	ret = pt_run(&r, &pc);
	CHECK_EQ_U64(ret, 0);
	CHECK(memcmp(id->magic, "ISP1", 4) == 0);
	CHECK_EQ_U64(id->ver_major, ISP_WIRE_VERSION_MAJOR);
	CHECK(id->max_xfer >= 4096 && id->max_xfer <= ISP_MAX_XFER_CAP);
	CHECK(id->max_xfer % 4096 == 0);
	CHECK(id->channels >= 1 && id->channels <= 64);
	CHECK(id->dies_per_channel >= 1 && id->dies_per_channel <= 64);
	CHECK(id->planes_per_die >= 1 && id->planes_per_die <= 16);
	CHECK(id->blocks_per_plane >= 1);
	CHECK(id->pages_per_block >= 1);
	CHECK(id->page_bytes >= 512 && (id->page_bytes & (id->page_bytes - 1)) == 0);
	CHECK(id->preset[0] != '\0');
	CHECK(memchr(id->preset, '\0', sizeof(id->preset)) != NULL);
	CHECK(isp_wire_result_time_ns(pc.result) > 0);
	printf("identify: preset %.32s, %u ch x %u dies x %u planes, %u B pages, max_xfer %u, caps 0x%llx\n",
	       id->preset, id->channels, id->dies_per_channel, id->planes_per_die,
	       id->page_bytes, id->max_xfer, (unsigned long long)id->caps);

	/* 2. vendor log page C1h == ISP_IDENTIFY */
	ret = pt_get_log(ISP_LID_IDENTIFY, log, 4096);
	CHECK_EQ_U64(ret, 0);
	CHECK(memcmp(log, id, 64) == 0);
	CHECK(memcmp(log + 160, id->preset, sizeof(id->preset)) == 0);

	/* stats log page answers too */
	ret = pt_get_log(ISP_LID_STATS, log, 4096);
	CHECK_EQ_U64(ret, 0);

	/* 3. Identify Controller, vendor-specific area */
	ret = pt_identify_ctrl(ctrl);
	CHECK_EQ_U64(ret, 0);
	CHECK(memcmp(ctrl + 3072, id, ISP_ID_CTRL_VS_LEN) == 0);

	/* 4. Commands Supported and Effects (LID 05h), I/O part at byte 1024 */
	ret = pt_get_log(0x05, log, 4096);
	CHECK_EQ_U64(ret, 0);
	for (opc = 0x80; opc <= 0xff; opc++) {
		uint32_t eff;

		uint32_t want = 0;
		int model = isp_dev_opcode_supported((uint8_t)opc, &want);

		memcpy(&eff, log + 1024 + 4 * opc, 4);
		if (is_isp_opcode(opc))
			CHECK((eff & 1) == 1);
		if (!!(eff & 1) != !!model) {
			fprintf(stderr, "opcode 0x%02x: effects log says %s, hw-model says %s\n",
				opc, eff & 1 ? "supported" : "unsupported",
				model ? "supported" : "unsupported");
			t_failures++;
		}
	}
	/* regular commands still listed */
	{
		uint32_t rd;

		memcpy(&rd, log + 1024 + 4 * 0x02, 4);
		CHECK(rd & 1);
	}

	pt_close(&r);
	return t_result();
}
