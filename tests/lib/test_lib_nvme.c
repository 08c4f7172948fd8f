/* SPDX-License-Identifier: MIT */
/*
 * test_lib_nvme - libreis' use of libnvme, without a drive:
 *   1. only core objects (core_*, transport_*) reference libnvme's nvme_*
 *      symbols (docs/libreis.md, Layers: libnvme belongs to the core), and
 *      the ones that replaced hand-written code do (discovery, identify,
 *      effects log, log pages, status strings);
 *   2. reis_log_page() checks its arguments before any I/O and refuses an
 *      in-process handle, which has no admin queue;
 *   3. reis_discover() with REIS_DISCOVER_ALL is well formed on whatever this
 *      machine has: every rejected entry says why, every accepted one is an
 *      ISP drive; without the flag it reports only the accepted ones.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "libreis.h"

/* The nvme_* symbols an object of $BUILD/host-lib/obj leaves undefined. */
static int nvme_refs(const char *build, const char *obj, char *out, size_t len)
{
	char cmd[4096 + 256];
	size_t n;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -u %s/host-lib/obj/%s.o 2>/dev/null | "
		 "awk '$NF ~ /^nvme_/ { print $NF }' | sort | tr '\\n' ' '", build, obj);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	n = fread(out, 1, len - 1, p);
	out[n] = 0;
	return pclose(p) == 0 ? 0 : -1;
}

static void check_layers(void)
{
	static const struct {
		const char *obj, *sym;
	} want[] = {
		{ "core_discover", "nvme_scan_topology" },
		{ "core_discover", "nvme_ctrl_get_subsysnqn" },
		{ "core_admin", "nvme_identify" },		/* nvme_identify_ctrl() */
		{ "core_admin", "nvme_get_log_page" },		/* effects log, reis_log_page */
		{ "core_admin", "nvme_get_nsid" },
		{ "core_strings", "nvme_status_to_string" },
	};
	char self[4096], refs[4096], cmd[4096 + 256];
	ssize_t len;
	char *s, *line = NULL;
	size_t cap = 0;
	unsigned i;
	FILE *p;

	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	REQUIRE(len > 0);
	self[len] = 0;
	s = strstr(self, "/tests/lib/");	/* $BUILD/tests/lib/<name> */
	REQUIRE(s);
	*s = 0;
	if (system("command -v nm >/dev/null"))
		SKIP("no nm");
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		REQUIRE(nvme_refs(self, want[i].obj, refs, sizeof(refs)) == 0);
		if (!strstr(refs, want[i].sym)) {
			fprintf(stderr, "%s.o does not use %s (uses: %s)\n", want[i].obj,
				want[i].sym, refs);
			t_failures++;
		}
	}
	/* Every object above the core: no nvme_* at all. */
	snprintf(cmd, sizeof(cmd), "cd %s/host-lib/obj && for o in drive_*.o tool_*.o cli_*.o; do "
		 "[ -e \"$o\" ] && nm -u \"$o\" | awk -v o=\"$o\" '$NF ~ /^nvme_/ "
		 "{ print o, $NF }'; done", self);
	p = popen(cmd, "r");
	REQUIRE(p);
	while (getline(&line, &cap, p) > 0) {
		fprintf(stderr, "libnvme above the core: %s", line);
		t_failures++;
	}
	free(line);
	pclose(p);
}

static void check_log_page_args(void)
{
	struct reis_dev *dev;
	uint8_t buf[64];

	CHECK(reis_log_page(NULL, REIS_LID_STATS, 0, buf, sizeof(buf)) == -EINVAL);
	REQUIRE(reis_open_inproc(NULL, &dev) == 0);
	CHECK(reis_log_page(dev, REIS_LID_STATS, 0, NULL, sizeof(buf)) == -EINVAL);
	CHECK(reis_log_page(dev, REIS_LID_STATS, 0, buf, 0) == -EINVAL);
	CHECK(reis_log_page(dev, REIS_LID_STATS, 0, buf, 6) == -EINVAL);
	CHECK(reis_log_page(dev, REIS_LID_STATS, 2, buf, 8) == -EINVAL);
	CHECK(reis_log_page(dev, REIS_LID_STATS, 0, buf, REIS_LOG_MAX + 4) == -EINVAL);
	CHECK(strstr(reis_last_error(dev), "log page c0h") != NULL);
	/* No admin queue in-process: the transport serves the model's pages. */
	CHECK(reis_log_page(dev, REIS_LID_STATS, 0, buf, sizeof(buf)) == 0);
	CHECK(reis_log_page(dev, 0x01, 0, buf, sizeof(buf)) == 0);
	CHECK(reis_log_page(dev, 0x7f, 0, buf, sizeof(buf)) == -EINVAL);
	reis_close(dev);
}

static void check_discover_all(void)
{
	struct reis_disc all[16], isp[16];
	int n_all, n_isp, i, accepted = 0;

	n_all = reis_discover(all, 16, REIS_DISCOVER_ALL);
	n_isp = reis_discover(isp, 16, 0);
	CHECK(n_all >= 0 && n_isp >= 0);
	for (i = 0; i < n_all && i < 16; i++) {
		printf("%s (%s, '%s', %s): %s\n", all[i].path, all[i].ctrl, all[i].model,
		       all[i].transport, all[i].err ? all[i].why : "ISP drive");
		CHECK(all[i].ctrl[0] != 0);
		if (all[i].err) {
			CHECK(all[i].err < 0 && all[i].why[0] != 0);
			CHECK(all[i].ver_major == 0);
		} else {
			accepted++;
			CHECK(all[i].why[0] == 0 && all[i].ver_major >= 1);
		}
	}
	/* Drives may come and go between two scans, but not on a test box. */
	if (n_all <= 16)
		CHECK(accepted == n_isp);
	CHECK(reis_discover(NULL, 0, REIS_DISCOVER_ALL) >= 0);
	CHECK(reis_discover(NULL, 1, REIS_DISCOVER_ALL) == -EINVAL);
}

int main(void)
{
	check_log_page_args();
	check_discover_all();
	check_layers();
	return t_result();
}
