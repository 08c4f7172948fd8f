/* SPDX-License-Identifier: MIT */
/*
 * test_vm_doc_cmds - the documents' guest commands, as written: every
 * ```sh block of the README and of the docs the image carries
 * (/usr/share/doc/isp-ssd/) whose marker is `<!-- doc-test: guest ... -->`
 * without a program of its own (those, like the nvme-cli recipes, run in
 * test_vm_nvme_cli) runs with `sh -e` in a scratch directory; it must exit
 * 0 and its output must match each expect="ERE" of the marker
 * (README.md, "Commands in these documents are tested"). Exit 77 when the
 * documents have no such block.
 */
#include <dirent.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check.h"

#define DOCS "/usr/share/doc/isp-ssd"
#define MAX_DOC (1u << 20)
#define MAX_OUT (1u << 16)
#define MAX_EXPECT 8

static char doc[MAX_DOC], out[MAX_OUT];

/* The expect="..." values of @marker (up to the end of its line). */
static int expects(const char *marker, char want[MAX_EXPECT][256])
{
	const char *p = marker, *end = strstr(marker, "-->");
	int n = 0;

	while (end && (p = strstr(p, "expect=\"")) && p < end && n < MAX_EXPECT) {
		const char *q = strchr(p + 8, '"');

		if (!q || q > end)
			break;
		snprintf(want[n++], 256, "%.*s", (int)(q - p - 8), p + 8);
		p = q + 1;
	}
	return n;
}

/* Run one block; 0 when it exits 0 and prints what it must. */
static int run_block(const char *name, unsigned line, const char *body, size_t len,
		     const char *marker)
{
	char want[MAX_EXPECT][256];
	int n = expects(marker, want), i, st, bad = 0;
	FILE *f = fopen("/tmp/doc-block.sh", "w");
	size_t got;

	if (!f || fwrite(body, 1, len, f) != len || fclose(f))
		return 1;
	st = system("mkdir -p /tmp/doc-scratch && cd /tmp/doc-scratch && "
		    "sh -e /tmp/doc-block.sh >/tmp/doc-block.out 2>&1");
	f = fopen("/tmp/doc-block.out", "r");
	got = f ? fread(out, 1, sizeof(out) - 1, f) : 0;
	if (f)
		fclose(f);
	out[got] = 0;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "%s line %u: exit %d\n", name, line,
			WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		bad = 1;
	}
	for (i = 0; i < n; i++) {
		regex_t re;

		if (regcomp(&re, want[i], REG_EXTENDED | REG_NEWLINE | REG_NOSUB)) {
			fprintf(stderr, "%s line %u: bad expect /%s/\n", name, line, want[i]);
			bad = 1;
			continue;
		}
		if (regexec(&re, out, 0, NULL, 0)) {
			fprintf(stderr, "%s line %u: output lacks /%s/\n", name, line, want[i]);
			bad = 1;
		}
		regfree(&re);
	}
	printf("== %s line %u: %s\n%s", name, line, bad ? "FAIL" : "ok", out);
	return bad;
}

/* Every guest block of one document without a program of its own. */
static unsigned run_doc(const char *path, const char *name)
{
	FILE *f = fopen(path, "r");
	size_t n;
	const char *p;
	unsigned ran = 0;

	if (!f)
		return 0;
	n = fread(doc, 1, sizeof(doc) - 1, f);
	fclose(f);
	doc[n] = 0;
	for (p = doc; (p = strstr(p, "<!-- doc-test: guest")); p++) {
		const char *eol = strchr(p, '\n'), *mode = p + strlen("<!-- doc-test: guest");
		const char *body, *end, *c;
		unsigned line = 1;

		if (!eol || strncmp(eol + 1, "```sh\n", 6))
			continue;
		/* "guest PROGRAM": that program runs it */
		while (*mode == ' ')
			mode++;
		if (strncmp(mode, "-->", 3) && strncmp(mode, "expect=", 7) &&
		    strncmp(mode, "timeout=", 8) && strncmp(mode, "env=", 4))
			continue;
		body = eol + 1 + 6;
		end = strstr(body, "\n```");
		if (!end)
			break;
		for (c = doc; c < p; c++)
			line += *c == '\n';
		t_failures += run_block(name, line + 1, body, (size_t)(end - body) + 1, p);
		ran++;
	}
	return ran;
}

int main(void)
{
	DIR *d = opendir(DOCS);
	struct dirent *e;
	unsigned ran = 0;
	char path[512];

	if (!d)
		SKIP("no %s in this image", DOCS);
	while ((e = readdir(d)))
		if (strlen(e->d_name) > 3 && !strcmp(e->d_name + strlen(e->d_name) - 3, ".md")) {
			snprintf(path, sizeof(path), "%s/%s", DOCS, e->d_name);
			ran += run_doc(path, e->d_name);
		}
	closedir(d);
	if (!ran)
		SKIP("no guest command block in %s", DOCS);
	printf("%u guest command blocks run\n", ran);
	return t_result();
}
