/* SPDX-License-Identifier: MIT */
/*
 * test_lib_vm_errors - the error model over real passthrough, for both
 * transports: NVMe status from the drive (positive cqe->res / ioctl return)
 * reaches the caller with DNR and a readable message, a kernel refusal
 * (negative errno) is reported as such with status 0, and libreis refuses
 * over-long transfers before the kernel sees them. Skips when the drive is
 * absent.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "libreis.h"

static void run(const char *path, uint32_t flags)
{
	static uint8_t buf[8192] __attribute__((aligned(4096)));
	struct reis_dev *dev;
	struct reis_cmd c;
	struct reis_cpl cpl;
	struct reis_req r;
	int ret;

	ret = reis_open(path, flags, &dev);
	if (ret) {
		fprintf(stderr, "reis_open(%s): %s\n", path, reis_strerror(ret));
		CHECK(ret == 0);
		return;
	}
	printf("%s via %s\n", path, reis_transport(dev));

	/* Unknown vendor opcode: Invalid Command Opcode + DNR, cost attached. */
	memset(&c, 0, sizeof(c));
	c.opcode = 0x84;
	CHECK(reis_cmd_raw(dev, &c, NULL, 0, &cpl) == -EOPNOTSUPP);
	CHECK_EQ_U64(cpl.status, 0x4001);
	CHECK(cpl.time_ns >= reis_dev_info(dev)->ctrl_cmd_ns);
	/* the status by libnvme's name and its code, the message whole */
	CHECK(strstr(reis_last_error(dev), "Invalid Command Opcode (status 0x4001, DNR)") != NULL);
	printf("bad opcode: %s\n", reis_last_error(dev));

	/* Bidirectional opcode (the kernel sends it as a write). */
	c.opcode = 0x83;
	CHECK(reis_cmd_raw(dev, &c, NULL, 0, &cpl) == -EOPNOTSUPP);
	CHECK_EQ_U64(cpl.status, 0x4001);

	/* Identify with an unknown CNS: Invalid Field + DNR. */
	memset(&c, 0, sizeof(c));
	c.opcode = REIS_OP_IDENTIFY;
	c.cdw10 = 1024;
	c.cdw12 = 1;
	CHECK(reis_cmd_raw(dev, &c, buf, 4096, &cpl) == -EINVAL);
	CHECK_EQ_U64(cpl.status, 0x4002);

	/* NDT claiming more than max_xfer, with a small buffer: the drive
	 * refuses before any data moves. */
	memset(&c, 0, sizeof(c));
	c.opcode = REIS_OP_ECHO_C2H;
	c.cdw10 = 0x100000;
	CHECK(reis_cmd_raw(dev, &c, buf, 4096, &cpl) == -EINVAL);
	CHECK_EQ_U64(cpl.status, 0x4002);

	/* Corrupt H2C data: ISP Miscompare + DNR. */
	reis_pattern(11, buf, 4096);
	buf[7] ^= 0x80;
	reis_prep_echo(&r, REIS_DIR_H2C, 11, buf, 4096);
	CHECK(reis_exec(dev, &r) == -EILSEQ);
	CHECK_EQ_U64(r.cpl.status, 0x47c7);

	/* A namespace the handle is not bound to: the kernel refuses it
	 * (negative errno, status 0), or, on kernels that pass it through,
	 * the drive answers Invalid Namespace. */
	memset(&c, 0, sizeof(c));
	c.opcode = REIS_OP_NOOP;
	c.nsid = 0x1234;
	ret = reis_cmd_raw(dev, &c, NULL, 0, &cpl);
	CHECK(ret < 0);
	CHECK((cpl.status == 0 && cpl.err < 0) || (cpl.status & 0x7ff) == 0x00b);
	printf("foreign nsid: %s\n", reis_last_error(dev));

	/* Longer than max_xfer: refused by libreis, nothing submitted. */
	reis_prep_echo(&r, REIS_DIR_C2H, 1, buf, reis_max_xfer(dev) + 4);
	CHECK(reis_submit(dev, &r) == -EINVAL);
	CHECK_EQ_U64(reis_inflight(dev), 0);

	/* And the handle still works. */
	CHECK(reis_noop(dev) == 0);
	reis_close(dev);
}

int main(void)
{
	const char *path = getenv("REIS_TEST_DEV") ? getenv("REIS_TEST_DEV") : "/dev/ng0n1";

	if (access(path, F_OK))
		SKIP("%s absent", path);
	run(path, REIS_OPEN_URING);
	run(path, REIS_OPEN_IOCTL);
	return t_result();
}
