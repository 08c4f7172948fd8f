/* SPDX-License-Identifier: MIT */
/*
 * test_vm_timing_delay - isp-timing=delay holds completions for the modeled
 * time without holding anything else up (docs/architecture.md, modeled vs emulation time). Runs in the runner's
 * "delay" boot (isp-params=ctrl_cmd=200ms); skips elsewhere.
 *   1. identify reports ISP_CAP_TIMING_DELAY and the long command overhead;
 *   2. a NOOP completes no sooner than its modeled time, which the
 *      completion reports;
 *   3. a 4 KiB read submitted after a NOOP on the same queue completes
 *      long before it;
 *   4. eight NOOPs in flight: each is held for its own modeled time (which
 *      may include queueing in the model) and they are held in parallel:
 *      all done soon after the longest modeled time.
 */
#include "check.h"
#include "nvme_pt.h"

int main(void)
{
	struct isp_wire_identify *id = pt_alloc(sizeof(*id));
	uint8_t *buf = pt_alloc(4096);
	struct pt_cmd noop, rd, many[8];
	uint64_t model, t0, t, t_rd = 0, t_noop = 0, max_m = 0;
	struct pt_ring r;
	int i;

	REQUIRE(pt_open(&r, NULL, 16) == 0);
	REQUIRE(pt_isp_identify(&r, id) == 0);
	if (!(id->caps & ISP_CAP_TIMING_DELAY))
		SKIP("drive not in isp-timing=delay mode");
	model = id->ctrl_cmd_ns;
	if (model < 50000000)
		SKIP("command overhead %llu ns too short to measure",
		     (unsigned long long)model);

	/* 2 */
	pt_vendor(&noop, ISP_OP_NOOP, NULL, 0, 0);
	t0 = pt_now_ns();
	CHECK_EQ_U64(pt_run(&r, &noop), 0);
	t = pt_now_ns() - t0;
	printf("NOOP: %llu ns round trip, %llu ns modeled\n", (unsigned long long)t,
	       (unsigned long long)isp_wire_result_time_ns(noop.result));
	CHECK(isp_wire_result_time_ns(noop.result) >= model);
	CHECK(t >= model * 9 / 10);

	/* 3: NOOP first, then a read on the same ring and queue */
	pt_vendor(&noop, ISP_OP_NOOP, NULL, 0, 0);
	pt_rw(&rd, 0, buf, 0, 8, 512);
	REQUIRE(pt_queue(&r, &noop) == 0);
	REQUIRE(pt_queue(&r, &rd) == 0);
	t0 = pt_now_ns();
	REQUIRE(io_uring_submit(&r.ring) == 2);
	for (i = 0; i < 2; i++) {
		struct pt_cmd *c = pt_reap(&r);

		REQUIRE(c != NULL);
		if (c == &rd)
			t_rd = pt_now_ns() - t0;
		else
			t_noop = pt_now_ns() - t0;
	}
	printf("read beside a NOOP: read %llu ns, NOOP %llu ns\n",
	       (unsigned long long)t_rd, (unsigned long long)t_noop);
	CHECK_EQ_U64(rd.res, 0);
	CHECK_EQ_U64(noop.res, 0);
	CHECK(t_rd < model / 2);
	CHECK(t_rd < t_noop);

	/* 4 */
	t0 = pt_now_ns();
	for (i = 0; i < 8; i++) {
		pt_vendor(&many[i], ISP_OP_NOOP, NULL, 0, 0);
		REQUIRE(pt_queue(&r, &many[i]) == 0);
	}
	REQUIRE(io_uring_submit(&r.ring) == 8);
	for (i = 0; i < 8; i++) {
		struct pt_cmd *c = pt_reap(&r);
		uint64_t m;

		REQUIRE(c != NULL);
		t = pt_now_ns() - t0;
		m = isp_wire_result_time_ns(c->result);
		CHECK_EQ_U64(c->res, 0);
		CHECK(m >= model);
		CHECK(t >= m * 9 / 10);
		if (m > max_m)
			max_m = m;
	}
	t = pt_now_ns() - t0;
	printf("8 NOOPs in flight: %llu ns, longest modeled %llu ns\n",
	       (unsigned long long)t, (unsigned long long)max_m);
	CHECK(t < max_m + model);

	pt_close(&r);
	return t_result();
}
