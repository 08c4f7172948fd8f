/* SPDX-License-Identifier: MIT */
/*
 * test_lib_install - libreis as a user gets it: `make -C host-lib install
 * PREFIX=<tmp>` (run twice, to two prefixes) puts the headers, the static and shared libraries, the
 * pkg-config file (naming that prefix), the CLI and the man pages in place;
 * a program using the REIS and RecFlash drive APIs compiles against them
 * with `pkg-config --cflags --libs libreis` (shared) and `--static`, and
 * both builds run (in-process drive) without libreis-tools: neither names
 * it, the static one holds none of its symbols (docs/libreis.md, Layers);
 * a program using the host tools builds the same two ways with
 * `pkg-config libreis-tools` and runs; the shared libraries export only
 * reis_* symbols (hw-model stays inside). Skips (77) in sanitizer builds,
 * whose archives need the sanitizer runtime.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

#ifndef TESTS_SRCDIR
#error "tests/Makefile defines TESTS_SRCDIR"
#endif

static char dir[] = "/tmp/test_lib_install.XXXXXX";

static const char prog[] =
	"#include <libreis.h>\n"
	"#include <stdio.h>\n"
	"int main(void)\n"
	"{\n"
	"	struct reis_dev *d;\n"
	"	struct reis_db_info dbs[4];\n"
	"	struct reis_rf_stats t[4];\n"
	"	int r = reis_open_inproc(NULL, &d), n, m;\n"
	"\n"
	"	if (r)\n"
	"		return 2;\n"
	"	r = reis_noop(d);\n"
	"	n = reis_db_list(d, dbs, 4);\n"
	"	m = reis_rf_list(d, t, 4);\n"
	"	printf(\"noop %d dbs %d tables %d %s %s\\n\", r, n, m, reis_transport(d),\n"
	"	       reis_version());\n"
	"	reis_close(d);\n"
	"	return r || n || m;\n"
	"}\n";

/* Host tools on top of the drive API: libreis-tools Requires libreis. */
static const char tools_prog[] =
	"#include <libreis_tools.h>\n"
	"#include <stdio.h>\n"
	"int main(void)\n"
	"{\n"
	"	struct reis_dev *d;\n"
	"	float h = reis_rf_fp16_to_float(reis_rf_fp16_from_float(1.5f));\n"
	"	int r = reis_open_inproc(NULL, &d);\n"
	"\n"
	"	if (r)\n"
	"		return 2;\n"
	"	printf(\"fp16 %g tables %d\\n\", h, reis_rf_list(d, NULL, 0));\n"
	"	reis_close(d);\n"
	"	return h != 1.5f;\n"
	"}\n";

/* Run a shell command line; 0 when it exits 0. */
static int sh(const char *fmt, const char *a, const char *b)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), fmt, a, b);
	return system(cmd) == 0 ? 0 : -1;
}

static int exists(const char *rel)
{
	char p[512];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	return stat(p, &st) == 0;
}

int main(void)
{
	char self[512], build[512], out[256], p[600];
	ssize_t n;
	char *s;
	FILE *f;

#if defined(__SANITIZE_ADDRESS__)
	SKIP("sanitizer build");
#endif
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	REQUIRE(n > 0);
	self[n] = 0;
	s = strstr(self, "/tests/lib/");	/* $BUILD/tests/lib/<name> */
	REQUIRE(s);
	*s = 0;
	snprintf(build, sizeof(build), "%s", self);
	if (sh("command -v pkg-config >/dev/null && command -v cc >/dev/null%s%s", "", ""))
		SKIP("no pkg-config or cc");
	REQUIRE(mkdtemp(dir));

	snprintf(p, sizeof(p), "make -s -C %s/../host-lib BUILD=%%s install PREFIX=%%s "
		 ">%s/install.log 2>&1", TESTS_SRCDIR, dir);
	/* Twice, to two prefixes: each .pc must name its own (the built copy
	 * is only regenerated when its inputs change). */
	{
		char other[600];

		snprintf(other, sizeof(other), "%s/other", dir);
		CHECK(sh(p, build, other) == 0);
		CHECK(sh(p, build, dir) == 0);
		CHECK(sh("grep -qx 'prefix=%s' %s/lib/pkgconfig/libreis.pc", other, other) == 0);
	}
	CHECK(exists("include/libreis.h"));
	CHECK(exists("include/libreis/libreis_reis_db.h"));
	CHECK(exists("include/libreis/libreis_rf.h"));
	CHECK(exists("include/libreis_tools.h"));
	CHECK(exists("include/libreis/libreis_tool_kmeans.h"));
	CHECK(exists("lib/libreis-tools.a"));
	CHECK(exists("lib/libreis-tools.so.0"));
	CHECK(exists("lib/pkgconfig/libreis-tools.pc"));
	CHECK(exists("lib/libreis.a"));
	CHECK(exists("lib/libhwmodel.a"));
	CHECK(exists("lib/libreis.so.0"));
	CHECK(exists("lib/libreis.so"));
	CHECK(exists("lib/pkgconfig/libreis.pc"));
	CHECK(exists("bin/reis"));
	CHECK(exists("share/man/man3/reis_open.3"));
	CHECK(exists("share/man/man1/reis.1"));
	/* The .pc names the prefix it was installed to. */
	CHECK(sh("grep -qx 'prefix=%s' %s/lib/pkgconfig/libreis.pc", dir, dir) == 0);

	snprintf(p, sizeof(p), "%s/use.c", dir);
	f = fopen(p, "w");
	REQUIRE(f && fputs(prog, f) >= 0 && fclose(f) == 0);
	CHECK(sh("cd %s && export PKG_CONFIG_PATH=%s/lib/pkgconfig && "
		 "cc -o use_so use.c $(pkg-config --cflags --libs libreis) 2>cc_so.log", dir,
		 dir) == 0);
	CHECK(sh("cd %s && export PKG_CONFIG_PATH=%s/lib/pkgconfig && "
		 "cc -static -o use_a use.c $(pkg-config --static --cflags --libs libreis) "
		 "2>cc_a.log", dir, dir) == 0);
	/* Both run; the shared one from the prefix's lib. */
	CHECK(sh("LD_LIBRARY_PATH=%s/lib %s/use_so >/dev/null", dir, dir) == 0);
	CHECK(sh("cd %s && ./use_a >run_a.log%s", dir, "") == 0);
	snprintf(p, sizeof(p), "%s/run_a.log", dir);
	f = fopen(p, "r");
	REQUIRE(f);
	CHECK(fgets(out, sizeof(out), f) != NULL);
	fclose(f);
	printf("installed program: %s", out);
	CHECK(strncmp(out, "noop 0 dbs 0 tables 0 inproc ", 29) == 0);
	CHECK(sh("%s/bin/reis --inproc info >/dev/null%s", dir, "") == 0);
	/* The drive-only program needs no host tool: pkg-config libreis never
	 * names libreis-tools, the static binary holds none of its code and the
	 * shared one does not load it. */
	CHECK(sh("cd %s && export PKG_CONFIG_PATH=%s/lib/pkgconfig && "
		 "! pkg-config --static --libs libreis | grep -q reis-tools", dir, dir) == 0);
	CHECK(sh("! nm %s/use_a | grep -qwE 'reis_(kmeans|quant_train|ref_search|dlrm_open)'%s",
		 dir, "") == 0);
	CHECK(sh("cd %s && l=$(LD_LIBRARY_PATH=%s/lib ldd ./use_so) && "
		 "echo \"$l\" | grep -q 'libreis\\.so' && ! echo \"$l\" | grep -q reis-tools",
		 dir, dir) == 0);

	/* A host-tools program, shared and static. */
	snprintf(p, sizeof(p), "%s/tools.c", dir);
	f = fopen(p, "w");
	REQUIRE(f && fputs(tools_prog, f) >= 0 && fclose(f) == 0);
	CHECK(sh("cd %s && export PKG_CONFIG_PATH=%s/lib/pkgconfig && cc -o tools_so tools.c "
		 "$(pkg-config --cflags --libs libreis-tools) 2>cc_tools_so.log", dir, dir) == 0);
	CHECK(sh("cd %s && export PKG_CONFIG_PATH=%s/lib/pkgconfig && cc -static -o tools_a "
		 "tools.c $(pkg-config --static --cflags --libs libreis-tools) "
		 "2>cc_tools_a.log", dir, dir) == 0);
	CHECK(sh("LD_LIBRARY_PATH=%s/lib %s/tools_so >/dev/null", dir, dir) == 0);
	CHECK(sh("%s/tools_a >/dev/null%s", dir, "") == 0);
	CHECK(sh("test -z \"$(nm -D --defined-only %s/lib/libreis-tools.so | "
		 "awk '$3 !~ /^(reis_|LIBREIS_)/' | head -n 5%s)\"", dir, "") == 0);
	/* Only the API is exported: no hw-model (fs_, ft_, isp_ ...) symbols. */
	CHECK(sh("test -z \"$(nm -D --defined-only %s/lib/libreis.so | "
		 "awk '$3 !~ /^(reis_|LIBREIS_)/' | head -n 5%s)\"", dir, "") == 0);

	if (t_failures)
		sh("cat %s/*.log >&2%s", dir, "");
	sh("rm -rf %s%s", dir, "");
	return t_result();
}
