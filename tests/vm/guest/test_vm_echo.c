/* SPDX-License-Identifier: MIT */
/*
 * test_vm_echo - the vendor data path moves bytes intact both ways:
 *   1. ISP_ECHO_C2H at sizes from one dword to max_xfer: the buffer holds
 *      isp_wire_pattern(seed), bytes past the transfer are untouched, and
 *      the completion's modeled time is > 0;
 *   2. ISP_ECHO_H2C with the same patterns succeeds;
 *   3. many echoes in flight at once on one ring keep their own data.
 */
#include "check.h"
#include "nvme_pt.h"

#define GUARD 64
#define INFLIGHT 16

static void echo_c2h(struct pt_ring *r, uint32_t len, uint32_t seed)
{
	uint8_t *buf = pt_alloc(len + GUARD), *want = pt_alloc(len);
	struct pt_cmd pc;
	int ret;

	memset(buf, 0xa5, len + GUARD);
	isp_wire_pattern(seed, want, len);
	pt_vendor(&pc, ISP_OP_ECHO_C2H, buf, len, seed);
	ret = pt_run(r, &pc);
	if (ret != 0) {
		fprintf(stderr, "ECHO_C2H len %u: status %d\n", len, ret);
		t_failures++;
	} else {
		if (memcmp(buf, want, len)) {
			fprintf(stderr, "ECHO_C2H len %u: data differs\n", len);
			t_failures++;
		}
		for (uint32_t i = len; i < len + GUARD; i++)
			if (buf[i] != 0xa5) {
				fprintf(stderr, "ECHO_C2H len %u: wrote past the end\n", len);
				t_failures++;
				break;
			}
		CHECK(isp_wire_result_time_ns(pc.result) > 0);
	}
	free(buf);
	free(want);
}

static void echo_h2c(struct pt_ring *r, uint32_t len, uint32_t seed)
{
	uint8_t *buf = pt_alloc(len);
	struct pt_cmd pc;
	int ret;

	isp_wire_pattern(seed, buf, len);
	pt_vendor(&pc, ISP_OP_ECHO_H2C, buf, len, seed);
	ret = pt_run(r, &pc);
	if (ret != 0) {
		fprintf(stderr, "ECHO_H2C len %u: status 0x%x\n", len, ret);
		t_failures++;
	} else {
		CHECK(isp_wire_result_time_ns(pc.result) > 0);
	}
	free(buf);
}

static void echo_many(struct pt_ring *r, uint32_t len)
{
	struct pt_cmd pc[INFLIGHT];
	uint8_t *buf[INFLIGHT], *want = pt_alloc(len);
	int i, done = 0;

	for (i = 0; i < INFLIGHT; i++) {
		buf[i] = pt_alloc(len);
		pt_vendor(&pc[i], ISP_OP_ECHO_C2H, buf[i], len, 1000u + (unsigned)i);
		REQUIRE(pt_queue(r, &pc[i]) == 0);
	}
	REQUIRE(io_uring_submit(&r->ring) == INFLIGHT);
	while (done < INFLIGHT) {
		REQUIRE(pt_reap(r) != NULL);
		done++;
	}
	for (i = 0; i < INFLIGHT; i++) {
		isp_wire_pattern(1000u + (unsigned)i, want, len);
		CHECK_EQ_U64(pc[i].res, 0);
		if (memcmp(buf[i], want, len)) {
			fprintf(stderr, "in-flight echo %d: data mixed up\n", i);
			t_failures++;
		}
		free(buf[i]);
	}
	free(want);
}

int main(void)
{
	struct isp_wire_identify *id = pt_alloc(sizeof(*id));
	uint32_t sizes[] = { 4, 512, 4096, 4100, 65536, 131072 + 512 };
	uint32_t max;
	struct pt_ring r;
	unsigned i;

	REQUIRE(pt_open(&r, NULL, 32) == 0);
	REQUIRE(pt_isp_identify(&r, id) == 0);
	max = id->max_xfer;
	printf("max_xfer %u\n", max);

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (sizes[i] > max)
			continue;
		echo_c2h(&r, sizes[i], 0x1234u + i);
		echo_h2c(&r, sizes[i], 0x4321u + i);
	}
	echo_c2h(&r, max, 7);
	echo_h2c(&r, max, 8);
	echo_many(&r, 8192);

	pt_close(&r);
	return t_result();
}
