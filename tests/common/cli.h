/* SPDX-License-Identifier: MIT */
/*
 * cli.h - what the library tests of the `reis` command-line tool share:
 * finding the binary next to the test's build tree and running a shell
 * command line with its output captured.
 */
#ifndef TESTS_CLI_H
#define TESTS_CLI_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * cli_find - the CLI to test: $REIS_CLI when set, else $BUILD/host-lib/reis
 * for a test running as $BUILD/tests/lib/<name>.
 * Return: 0 when @cli names an executable, -1 otherwise (skip the test).
 */
static inline int cli_find(char *cli, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *s;

	if (getenv("REIS_CLI")) {
		snprintf(cli, len, "%s", getenv("REIS_CLI"));
		return access(cli, X_OK);
	}
	if (n <= 0)
		return -1;
	self[n] = 0;
	s = strstr(self, "/tests/lib/");
	if (!s)
		return -1;
	*s = 0;
	snprintf(cli, len, "%s/host-lib/reis", self);
	return access(cli, X_OK);
}

/*
 * cli_capture - run @cmd with sh, its standard output (up to @outlen - 1
 * bytes, NUL-terminated) in @out.
 * Return: the exit status, or -1 when it could not run or did not exit.
 */
static inline int cli_capture(const char *cmd, char *out, size_t outlen)
{
	FILE *f = popen(cmd, "r");
	size_t n;
	int st;

	out[0] = 0;
	if (!f)
		return -1;
	n = fread(out, 1, outlen - 1, f);
	out[n] = 0;
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* cli_count - occurrences of @needle in @hay (overlapping ones too). */
static inline int cli_count(const char *hay, const char *needle)
{
	int n = 0;

	for (hay = strstr(hay, needle); hay; hay = strstr(hay + 1, needle))
		n++;
	return n;
}

#endif
