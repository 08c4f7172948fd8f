/* SPDX-License-Identifier: MIT */
/*
 * test_lib_layers - scripts/check-layers.sh (make check-layers) catches what
 * it is there for: it passes a set of objects that respects core < drive <
 * tools, and fails, naming the symbol, on a core object calling a tool and
 * on a cycle among drive objects (printing the cycle). Tiny objects
 * compiled here, so it runs in well under a second.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#ifndef TESTS_SRCDIR
#error "tests/Makefile defines TESTS_SRCDIR"
#endif

static char dir[] = "/tmp/test_lib_layers.XXXXXX";

struct obj {
	const char *name;
	const char *code;
};

/* Write and compile @n objects into @sub; 0 on success. */
static int build(const char *sub, const struct obj *o, unsigned n)
{
	char path[512], cmd[1024];
	unsigned i;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "mkdir -p %s/%s", dir, sub);
	if (system(cmd))
		return -1;
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s/%s.c", dir, sub, o[i].name);
		f = fopen(path, "w");
		if (!f || fputs(o[i].code, f) < 0 || fclose(f))
			return -1;
		snprintf(cmd, sizeof(cmd), "cd %s/%s && cc -c %s.c", dir, sub, o[i].name);
		if (system(cmd))
			return -1;
	}
	return 0;
}

/* Run the checker on @sub's objects; its exit status, output in @sub.log. */
static int check_layers(const char *sub)
{
	char cmd[1024];
	int r;

	snprintf(cmd, sizeof(cmd), "%s/../scripts/check-layers.sh %s/%s/*.o >%s/%s.log 2>&1",
		 TESTS_SRCDIR, dir, sub, dir, sub);
	r = system(cmd);
	return r == -1 ? -1 : WEXITSTATUS(r);
}

/* 1 when @sub.log has the line fragment @what. */
static int said(const char *sub, const char *what)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "grep -qF '%s' %s/%s.log", what, dir, sub);
	return system(cmd) == 0;
}

int main(void)
{
	static const struct obj good[] = {
		{ "core_a", "int a(void) { return 1; }\n" },
		{ "drive_b", "int a(void);\nint b(void) { return a(); }\n" },
		{ "tool_c", "int a(void); int b(void);\nint c(void) { return a() + b(); }\n" },
	};
	static const struct obj upward[] = {
		{ "core_a", "int c(void);\nint a(void) { return c(); }\n" },
		{ "tool_c", "int c(void) { return 3; }\n" },
	};
	static const struct obj cycle[] = {
		{ "drive_x", "int y(void);\nint x(void) { return y(); }\n" },
		{ "drive_y", "int z(void);\nint y(void) { return z(); }\n" },
		{ "drive_z", "int x(void);\nint z(void) { return x(); }\n" },
	};

	if (system("command -v cc >/dev/null && command -v nm >/dev/null"))
		SKIP("no cc or nm");
	REQUIRE(mkdtemp(dir));
	REQUIRE(build("good", good, 3) == 0);
	REQUIRE(build("upward", upward, 2) == 0);
	REQUIRE(build("cycle", cycle, 3) == 0);

	CHECK(check_layers("good") == 0);
	CHECK(said("good", "check-layers: OK, 3 objects, 3 edges"));

	CHECK(check_layers("upward") == 1);
	CHECK(said("upward", "core_a.o (core) uses c, defined in tool_c.o (tools)"));
	CHECK(said("upward", "FAILED"));

	CHECK(check_layers("cycle") == 1);
	CHECK(said("cycle", "cycle: drive_x -> drive_y -> drive_z -> drive_x"));

	if (t_failures)
		if (system("cat /tmp/test_lib_layers.*/*.log >&2"))
			fprintf(stderr, "(no logs)\n");
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			fprintf(stderr, "could not remove %s\n", dir);
	}
	return t_result();
}
