/* SPDX-License-Identifier: MIT */
/*
 * test_lib_vm_nvme - libreis' libnvme side on the ISP drive:
 *   1. reis_discover() finds /dev/ng0n1 with what libnvme's topology scan
 *      knows (controller, pcie, QEMU's model, the serial the runner gives,
 *      firmware, subsystem NQN) and what ISP_IDENTIFY says;
 *   2. reis_log_page(): log C1h is byte for byte ISP_IDENTIFY, read whole
 *      and at an offset; log C0h decodes like ISP_STATS, and reading it is
 *      no ISP command (the counters do not move); the Commands Supported and
 *      Effects log lists exactly the opcodes libreis names; an unknown log
 *      is -EINVAL with libnvme's status string in reis_last_error();
 *   3. without CAP_SYS_ADMIN (a child as uid 65534) discovery finds no ISP
 *      drive, and REIS_DISCOVER_ALL says it was a matter of permission,
 *      both when the device cannot be opened and when it can.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "libreis.h"

#define NDISC 8

static const struct reis_disc *find(const struct reis_disc *d, int n, const char *path)
{
	int i;

	for (i = 0; i < n && i < NDISC; i++)
		if (!strcmp(d[i].path, path))
			return &d[i];
	return NULL;
}

static void check_discover(const char *path)
{
	struct reis_disc d[NDISC];
	const struct reis_disc *e;
	struct reis_dev *dev;
	int n;

	n = reis_discover(d, NDISC, 0);
	REQUIRE(n >= 1);
	e = find(d, n, path);
	REQUIRE(e);
	CHECK_EQ_U64(e->err, 0);
	CHECK(e->why[0] == 0);
	CHECK_EQ_U64(e->nsid, 1);
	CHECK(strcmp(e->ctrl, "nvme0") == 0);
	CHECK(strcmp(e->transport, "pcie") == 0);
	CHECK(strcmp(e->model, "QEMU NVMe Ctrl") == 0);
	CHECK(strcmp(e->serial, "isp-ssd-0") == 0);
	CHECK(e->firmware[0] != 0);
	/* QEMU names its subsystem after the serial. */
	CHECK(strstr(e->subsysnqn, "nqn.") == e->subsysnqn);
	CHECK(strstr(e->subsysnqn, "isp-ssd-0") != NULL);
	CHECK(e->address[0] != 0);
	CHECK_EQ_U64(e->ver_major, 1);
	CHECK(e->caps & REIS_CAP_REIS);
	REQUIRE(reis_open(path, 0, &dev) == 0);
	CHECK_EQ_U64(e->max_xfer, reis_max_xfer(dev));
	CHECK(strcmp(e->preset, reis_dev_info(dev)->preset) == 0);
	reis_close(dev);
	printf("discover: %s %s %s '%s' fw %s nqn %s addr %s\n", e->path, e->ctrl,
	       e->transport, e->model, e->firmware, e->subsysnqn, e->address);

	/* REIS_DISCOVER_ALL adds rejected entries, never drops an ISP one. */
	CHECK(reis_discover(d, NDISC, REIS_DISCOVER_ALL) >= n);
}

static void check_logs(const char *path)
{
	uint8_t *raw = aligned_alloc(4096, 4096), *log = aligned_alloc(4096, 4096);
	struct reis_stats st1, st2;
	struct reis_dev *dev;
	struct reis_req req;
	unsigned opc;

	REQUIRE(raw && log);
	REQUIRE(reis_open(path, 0, &dev) == 0);
	reis_prep_identify(&req, raw);
	REQUIRE(reis_exec(dev, &req) == 0);
	CHECK_EQ_U64(reis_log_page(dev, REIS_LID_IDENTIFY, 0, log, 4096), 0);
	CHECK(memcmp(raw, log, 4096) == 0);
	memset(log, 0xa5, 64);
	CHECK_EQ_U64(reis_log_page(dev, REIS_LID_IDENTIFY, 16, log, 16), 0);
	CHECK(memcmp(log, raw + 16, 16) == 0);

	CHECK_EQ_U64(reis_log_page(dev, REIS_LID_STATS, 0, log, 4096), 0);
	CHECK_EQ_U64(reis_stats_decode(log, 4096, &st1), 0);
	CHECK_EQ_U64(reis_log_page(dev, REIS_LID_STATS, 0, log, 4096), 0);
	CHECK_EQ_U64(reis_stats_decode(log, 4096, &st2), 0);
	CHECK(memcmp(st1.cmds, st2.cmds, sizeof(st1.cmds)) == 0);
	CHECK(st1.cmds[REIS_CLS_DEVICE] >= 1);	/* our ISP_IDENTIFY at least */
	/* ISP_STATS counts itself once it has answered. */
	CHECK_EQ_U64(reis_stats(dev, 0, &st2), 0);
	CHECK_EQ_U64(st2.cmds[REIS_CLS_DEVICE], st1.cmds[REIS_CLS_DEVICE]);
	CHECK_EQ_U64(reis_log_page(dev, REIS_LID_STATS, 0, log, 4096), 0);
	CHECK_EQ_U64(reis_stats_decode(log, 4096, &st2), 0);
	CHECK_EQ_U64(st2.cmds[REIS_CLS_DEVICE], st1.cmds[REIS_CLS_DEVICE] + 1);

	CHECK_EQ_U64(reis_log_page(dev, REIS_LID_CMD_EFFECTS, 0, log, 4096), 0);
	for (opc = 0x80; opc <= 0xff; opc++) {
		uint32_t eff;

		memcpy(&eff, log + 1024 + 4 * opc, 4);
		CHECK((eff & 1u) == (reis_opcode_name((uint8_t)opc) != NULL));
	}

	CHECK_EQ_U64(reis_log_page(dev, 0xc7, 0, log, 4096), -EINVAL);
	CHECK(strstr(reis_last_error(dev), "log page c7h: Invalid Field in Command (status 0x") != NULL);
	CHECK_EQ_U64(reis_log_page(dev, REIS_LID_STATS, 2, log, 4096), -EINVAL);
	CHECK_EQ_U64(reis_log_page(dev, REIS_LID_STATS, 0, log, 6), -EINVAL);
	CHECK_EQ_U64(reis_log_page(dev, REIS_LID_STATS, 0, NULL, 4096), -EINVAL);
	CHECK_EQ_U64(reis_log_page(dev, REIS_LID_STATS, 0, log, REIS_LOG_MAX + 4), -EINVAL);
	reis_close(dev);
	free(raw);
	free(log);
}

/* In a child without privileges: 0 when what it saw matches @want_err. */
static int unprivileged_child(const char *path)
{
	struct reis_disc d[NDISC];
	const struct reis_disc *e;
	int n, bad = 0;

	if (setgid(65534) || setuid(65534))
		return 2;
	n = reis_discover(d, NDISC, 0);
	if (n != 0) {
		fprintf(stderr, "unprivileged discovery found %d ISP drives\n", n);
		bad = 1;
	}
	n = reis_discover(d, NDISC, REIS_DISCOVER_ALL);
	e = find(d, n, path);
	if (!e) {
		fprintf(stderr, "REIS_DISCOVER_ALL did not list %s\n", path);
		return 1;
	}
	printf("unprivileged: %s: %s (%s)\n", e->path, e->why, reis_strerror(e->err));
	if ((e->err != -EACCES && e->err != -EPERM) || !strstr(e->why, "CAP_SYS_ADMIN") ||
	    strcmp(e->model, "QEMU NVMe Ctrl")) {
		fprintf(stderr, "rejection: err %d, why '%s', model '%s'\n", e->err, e->why,
			e->model);
		bad = 1;
	}
	return bad;
}

static void check_unprivileged(const char *path)
{
	struct stat sb;
	unsigned mode;
	int round;

	REQUIRE(stat(path, &sb) == 0);
	/* Round 0: the device as the kernel made it; 1: readable by all. */
	for (round = 0; round < 2; round++) {
		pid_t pid;
		int status;

		mode = round ? 0666 : (sb.st_mode & 07777 & ~0066u);
		REQUIRE(chmod(path, mode) == 0);
		fflush(NULL);
		pid = fork();
		REQUIRE(pid >= 0);
		if (pid == 0)
			_exit(unprivileged_child(path));
		REQUIRE(waitpid(pid, &status, 0) == pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "round %d (mode %o): child status %d\n", round, mode,
				status);
			t_failures++;
		}
	}
	CHECK(chmod(path, sb.st_mode & 07777) == 0);
}

int main(void)
{
	const char *path = getenv("REIS_TEST_DEV") ? getenv("REIS_TEST_DEV") : "/dev/ng0n1";

	if (access(path, F_OK))
		SKIP("%s absent", path);
	check_discover(path);
	check_logs(path);
	check_unprivileged(path);
	return t_result();
}
