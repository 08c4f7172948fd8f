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

/*
 * cli_plot_check - scripts/demo-plot.sh @kind on the program output @log
 * makes an SVG holding each of @want (NULL-terminated) as a text element,
 * i.e. the table's own labels and numbers. Without gnuplot it only says so.
 * Return: the number of failed checks.
 */
static inline int cli_plot_check(const char *kind, const char *log, const char *const *want)
{
	char dir[] = "/tmp/cli_plot.XXXXXX", lp[64], sp[64], cmd[PATH_MAX + 256];
	static char svg[1 << 18];
	FILE *f;
	size_t n;
	int bad = 0;

	if (system("command -v gnuplot >/dev/null 2>&1")) {
		printf("gnuplot missing: %s plot not checked\n", kind);
		return 0;
	}
	if (!mkdtemp(dir))
		return 1;
	snprintf(lp, sizeof(lp), "%s/log", dir);
	snprintf(sp, sizeof(sp), "%s/out.svg", dir);
	f = fopen(lp, "w");
	if (!f || fputs(log, f) < 0 || fclose(f))
		return 1;
	snprintf(cmd, sizeof(cmd), "%s/../scripts/demo-plot.sh %s %s %s", TESTS_SRCDIR, kind, lp,
		 sp);
	if (cli_capture(cmd, svg, sizeof(svg)) != 0 || !strstr(svg, "demo-plot: wrote ")) {
		fprintf(stderr, "demo-plot.sh %s failed: %s\n", kind, svg);
		bad++;
	}
	f = fopen(sp, "r");
	n = f ? fread(svg, 1, sizeof(svg) - 1, f) : 0;
	if (f)
		fclose(f);
	svg[n] = 0;
	if (!strstr(svg, "<svg") || !strstr(svg, "</svg>")) {
		fprintf(stderr, "%s: no SVG document\n", sp);
		bad++;
	}
	for (; want && *want; want++) {
		char t[256];

		snprintf(t, sizeof(t), ">%s<", *want);
		if (!strstr(svg, t)) {
			fprintf(stderr, "%s plot lacks '%s'\n", kind, *want);
			bad++;
		}
	}
	unlink(lp);
	unlink(sp);
	rmdir(dir);
	return bad;
}

#endif
