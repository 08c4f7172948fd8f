/* SPDX-License-Identifier: MIT */
/*
 * cli_util.c - shared parts of the reis CLI (see reis_cli.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"

/* ---------------------------------------------------------------------- */
/* Minimal JSON writer: one document per command, keys in insertion order. */
/* ---------------------------------------------------------------------- */

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	int first[JSON_MAX_DEPTH];
};

static struct json js;

void j_init(FILE *f)
{
	memset(&js, 0, sizeof(js));
	js.f = f;
}

void j_sep(const char *key)
{
	if (js.depth > 0 && !js.first[js.depth])
		fputc(',', js.f);
	if (js.depth > 0)
		js.first[js.depth] = 0;
	if (key) {
		const char *p;

		fputc('"', js.f);
		for (p = key; *p; p++)
			fputc(*p, js.f);
		fputs("\":", js.f);
	}
}

void j_str_raw(const char *s)
{
	const unsigned char *p;

	fputc('"', js.f);
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(js.f, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(js.f, "\\u%04x", *p);
		else
			fputc(*p, js.f);
	}
	fputc('"', js.f);
}

void j_open(const char *key, char c)
{
	j_sep(key);
	fputc(c, js.f);
	if (js.depth + 1 < JSON_MAX_DEPTH)
		js.depth++;
	js.first[js.depth] = 1;
}

void j_close(char c)
{
	fputc(c, js.f);
	if (js.depth > 0)
		js.depth--;
	if (js.depth == 0)
		fputc('\n', js.f);
}

void j_obj(const char *key) { j_open(key, '{'); }
void j_obj_end(void) { j_close('}'); }
void j_arr(const char *key) { j_open(key, '['); }
void j_arr_end(void) { j_close(']'); }

void j_u64(const char *key, uint64_t v)
{
	j_sep(key);
	fprintf(js.f, "%" PRIu64, v);
}

void j_i64(const char *key, int64_t v)
{
	j_sep(key);
	fprintf(js.f, "%" PRId64, v);
}

void j_dbl(const char *key, double v)
{
	j_sep(key);
	fprintf(js.f, "%.3f", v);
}

void j_str(const char *key, const char *s)
{
	j_sep(key);
	j_str_raw(s);
}

void j_bool(const char *key, int v)
{
	j_sep(key);
	fputs(v ? "true" : "false", js.f);
}

/* ---------------------------------------------------------------------- */
/* Helpers                                                                 */
/* ---------------------------------------------------------------------- */

int fail(struct ctx *c, const char *what, int err)
{
	const char *detail = c->dev ? reis_last_error(c->dev) : "";

	if (c->json) {
		js.depth = 0;
		j_obj(NULL);
		j_str("error", detail[0] ? detail : reis_strerror(err));
		j_i64("errno", -err);
		if (c->dev && reis_last_cpl(c->dev)->status)
			j_u64("status", reis_last_cpl(c->dev)->status);
		j_obj_end();
	}
	fprintf(stderr, "reis: %s: %s\n", what, detail[0] ? detail : reis_strerror(err));
	return 1;
}

int usage_err(const char *fmt, ...)
{
	va_list ap;

	fputs("reis: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see reis --help)\n", stderr);
	return EXIT_USAGE;
}

/* Parse an unsigned number with an optional k/m/g (binary) suffix. */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;
	uint64_t mul = 1;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -EINVAL;
	if (*end == 'k' || *end == 'K')
		mul = 1024, end++;
	else if (*end == 'm' || *end == 'M')
		mul = 1024 * 1024, end++;
	else if (*end == 'g' || *end == 'G')
		mul = 1024 * 1024 * 1024, end++;
	if (*end || (mul > 1 && v > UINT64_MAX / mul))
		return -EINVAL;
	v *= mul;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int open_dev(struct ctx *c)
{
	struct reis_disc d;
	const char *path = c->dev_path;
	int ret;

	if (c->inproc) {
		c->iopts.errbuf = c->errbuf;
		c->iopts.errlen = sizeof(c->errbuf);
		ret = reis_open_inproc(&c->iopts, &c->dev);
		if (ret) {
			fprintf(stderr, "reis: in-process drive: %s\n",
				c->errbuf[0] ? c->errbuf : reis_strerror(ret));
			return ret;
		}
		return 0;
	}
	if (!path)
		path = getenv("REIS_DEV");
	if (!path) {
		ret = reis_discover(&d, 1, c->open_flags);
		if (ret <= 0) {
			fprintf(stderr, "reis: no ISP drive found (`reis list` says what was seen "
				"and why it was rejected); use --dev PATH or --inproc\n");
			return ret < 0 ? ret : -ENODEV;
		}
		path = d.path;
	}
	ret = reis_open(path, c->open_flags, &c->dev);
	if (ret)
		fprintf(stderr, "reis: %s: %s\n", path, reis_strerror(ret));
	return ret;
}

void print_caps_human(uint64_t caps)
{
	unsigned b;
	int any = 0;

	for (b = 0; b < 64; b++) {
		const char *n;

		if (!(caps & (UINT64_C(1) << b)))
			continue;
		n = reis_cap_name(UINT64_C(1) << b);
		if (n)
			printf("%s%s", any ? " " : "", n);
		else
			printf("%sbit%u", any ? " " : "", b);
		any = 1;
	}
	printf("%s\n", any ? "" : "none");
}

void json_caps(uint64_t caps)
{
	unsigned b;

	j_u64("caps_mask", caps);
	j_arr("caps");
	for (b = 0; b < 64; b++) {
		const char *n;
		char tmp[16];

		if (!(caps & (UINT64_C(1) << b)))
			continue;
		n = reis_cap_name(UINT64_C(1) << b);
		if (!n) {
			snprintf(tmp, sizeof(tmp), "bit%u", b);
			n = tmp;
		}
		j_str(NULL, n);
	}
	j_arr_end();
}

/* Returns 1 if "--help"/"-h" was asked (and printed), <0 on bad usage. */
int sub_help(const struct reis_cli_cmd *cmd, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: reis [GLOBAL OPTIONS] %s\n%s", cmd->name, cmd->help);
			return 1;
		}
	}
	return 0;
}

