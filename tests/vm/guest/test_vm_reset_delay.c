/* SPDX-License-Identifier: MIT */
/*
 * test_vm_reset_delay - a controller reset with ISP commands in flight
 * (held by isp-timing=delay, or still in the model) completes every one of
 * them and leaves a working drive: Linux deletes the I/O queues and
 * disables the controller, which makes QEMU cancel or wait for each
 * command. Runs in the runner's "delay" boot; skips elsewhere.
 *   1. queue NOOPs and 64 KiB ECHO_C2Hs, then reset the controller through
 *      sysfs while they are held;
 *   2. every command completes: the ones still held when Linux deletes the
 *      I/O queues with Command Aborted due to SQ Deletion (08h, which the
 *      glue reports for a cancelled command), any that finished before
 *      with success; at least one takes the 08h path, and none is left to
 *      the kernel's own abort (Host Aborted Command, 371h);
 *   3. afterwards a NOOP and ISP_IDENTIFY succeed again.
 */
#include "check.h"
#include "nvme_pt.h"

#define N 12

int main(void)
{
	struct isp_wire_identify *id = pt_alloc(sizeof(*id));
	struct __kernel_timespec ts = { .tv_sec = 30 };
	struct pt_cmd pc[N], noop;
	uint8_t *buf[N];
	struct pt_ring r;
	int i, fd, ok = 0, sq_del = 0;

	REQUIRE(pt_open(&r, NULL, 32) == 0);
	REQUIRE(pt_isp_identify(&r, id) == 0);
	if (!(id->caps & ISP_CAP_TIMING_DELAY) || id->ctrl_cmd_ns < 50000000)
		SKIP("needs isp-timing=delay and a long command overhead");

	for (i = 0; i < N; i++) {
		buf[i] = pt_alloc(65536);
		if (i % 3 == 2)
			pt_vendor(&pc[i], ISP_OP_ECHO_C2H, buf[i], 65536, (uint32_t)i);
		else
			pt_vendor(&pc[i], ISP_OP_NOOP, NULL, 0, 0);
		REQUIRE(pt_queue(&r, &pc[i]) == 0);
	}
	REQUIRE(io_uring_submit(&r.ring) == N);
	usleep(20000);

	fd = open("/sys/class/nvme/nvme0/reset_controller", O_WRONLY);
	REQUIRE(fd >= 0);
	CHECK(write(fd, "1", 1) == 1);
	close(fd);

	for (i = 0; i < N; i++) {
		struct io_uring_cqe *cqe;

		if (io_uring_wait_cqe_timeout(&r.ring, &cqe, &ts) < 0) {
			fprintf(stderr, "only %d of %d commands completed\n", i, N);
			t_failures++;
			break;
		}
		printf("completion %d: res %d\n", i, cqe->res);
		/* passthrough: res is the NVMe status field (SCT << 8 | SC) */
		if (cqe->res == 0x08)
			sq_del++;
		else if (cqe->res != 0) {
			fprintf(stderr, "completion %d: status 0x%x, not 08h or success\n", i,
				(unsigned)cqe->res);
			t_failures++;
		}
		io_uring_cqe_seen(&r.ring, cqe);
	}
	printf("%d of %d commands aborted due to SQ deletion\n", sq_del, N);
	CHECK(sq_del > 0);

	/* the namespace comes back after the reset */
	for (i = 0; i < 100 && !ok; i++) {
		pt_vendor(&noop, ISP_OP_NOOP, NULL, 0, 0);
		ok = pt_run(&r, &noop) == 0;
		if (!ok)
			usleep(100000);
	}
	CHECK(ok);
	CHECK_EQ_U64(pt_isp_identify(&r, id), 0);
	CHECK(memcmp(id->magic, "ISP1", 4) == 0);

	pt_close(&r);
	return t_result();
}
