/* SPDX-License-Identifier: MIT */
/*
 * test_lib_vm_discover_isp_off - with isp=off the controller is QEMU's
 * plain nvme device: reis_discover() finds no ISP drive, and with
 * REIS_DISCOVER_ALL says which controller it saw (libnvme's model,
 * transport, serial) and that it was rejected for want of the signature,
 * with no vendor opcode sent (the runner checks QEMU's trace: an
 * invalid-opcode event here would come from test_vm_isp_off only); `reis
 * list` prints the same.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "libreis.h"

int main(void)
{
	const char *path = getenv("REIS_TEST_DEV") ? getenv("REIS_TEST_DEV") : "/dev/ng0n1";
	struct reis_disc d[8];
	int n, i, seen = 0;

	if (access(path, F_OK))
		SKIP("%s absent", path);
	CHECK_EQ_U64(reis_discover(d, 8, 0), 0);
	CHECK_EQ_U64(reis_discover(NULL, 0, 0), 0);
	n = reis_discover(d, 8, REIS_DISCOVER_ALL);
	CHECK(n >= 1);
	for (i = 0; i < n && i < 8; i++) {
		printf("saw %s (%s, '%s', %s): %s\n", d[i].path, d[i].ctrl, d[i].model,
		       d[i].transport, d[i].why);
		CHECK(d[i].err != 0 && d[i].why[0] != 0);
		if (strcmp(d[i].path, path))
			continue;
		seen = 1;
		CHECK_EQ_U64(d[i].err, -ENODEV);
		CHECK(strstr(d[i].why, "no ISP signature") != NULL);
		CHECK(strstr(d[i].why, "QEMU NVMe Ctrl") != NULL);
		CHECK(strcmp(d[i].transport, "pcie") == 0);
		CHECK(strcmp(d[i].serial, "isp-ssd-0") == 0);
		CHECK_EQ_U64(d[i].ver_major, 0);
	}
	CHECK(seen);

	/* The CLI says the same to a user who asks. */
	if (!access("/bin/reis", X_OK)) {
		char out[4096];
		size_t len;
		FILE *p = popen("/bin/reis list 2>&1", "r");

		REQUIRE(p);
		len = fread(out, 1, sizeof(out) - 1, p);
		out[len] = 0;
		CHECK(pclose(p) == 0);
		printf("reis list:\n%s", out);
		CHECK(strstr(out, "no ISP drives found; seen and rejected:") != NULL);
		CHECK(strstr(out, "/dev/ng0n1 (nvme0, 'QEMU NVMe Ctrl', pcie): no ISP signature") !=
		      NULL);
	}
	return t_result();
}
