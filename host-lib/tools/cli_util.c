/* SPDX-License-Identifier: MIT */
/*
 * cli_util.c - shared parts of the reis CLI (see cli_util.h).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "libreis_tools.h"

/* ---------------------------------------------------------------------- */
/* Minimal JSON writer: one document per command, keys in insertion order. */
/* ---------------------------------------------------------------------- */

#define JSON_MAX_DEPTH 16

/*
 * The document is built in memory and written by j_finish(), so a command
 * that fails half-way through its output still prints exactly one document:
 * the error.
 */
struct json {
	FILE *f;		/* the in-memory document */
	FILE *out;		/* where j_finish() writes it */
	char *buf;
	size_t len;
	int on;			/* --json given */
	int raw;		/* help/version text went to stdout instead */
	int depth;
	int first[JSON_MAX_DEPTH];
	char err[REIS_MSG_LEN + 512];	/* the last error message (cli_err/usage_err/fail) */
	int err_errno;
	uint32_t err_status;
};

static struct json js;

void j_init(FILE *out, int on)
{
	memset(&js, 0, sizeof(js));
	js.out = out;
	js.on = on;
	js.f = open_memstream(&js.buf, &js.len);
	if (!js.f)
		js.f = out;	/* no memory: stream directly, as before */
}

void j_raw_output(void)
{
	js.raw = 1;
}

static void j_error_doc(int ret)
{
	FILE *o = js.out;

	fputs("{\"error\":", o);
	js.f = o;
	j_str_raw(js.err[0] ? js.err : "failed");
	/* The same fields on every failure: errno (EINVAL for bad usage or
	 * input), the drive's NVMe status (0 when no drive command failed). */
	fprintf(o, ",\"errno\":%d,\"status\":%" PRIu32 ",\"exit\":%d}\n",
		js.err_errno ? js.err_errno : EINVAL, js.err_status, ret);
}

int j_finish(int ret)
{
	FILE *mem = js.f;

	if (mem != js.out) {
		fflush(mem);
		js.f = js.out;
	}
	if (!js.on) {
		if (mem != js.out)
			fclose(mem);
		free(js.buf);
		return ret;
	}
	if (ret)
		j_error_doc(ret);
	else if (js.len)
		fwrite(js.buf, 1, js.len, js.out);
	else if (!js.raw)
		fputs("{\"ok\":true}\n", js.out);
	if (mem != js.out)
		fclose(mem);
	free(js.buf);
	js.buf = NULL;
	fflush(js.out);
	return ret;
}

static void note_err(int err, uint32_t status, const char *fmt, va_list ap)
{
	vsnprintf(js.err, sizeof(js.err), fmt, ap);
	js.err_errno = err;
	js.err_status = status;
}

void cli_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	note_err(EINVAL, 0, fmt, ap);
	va_end(ap);
	fprintf(stderr, "reis: %s\n", js.err);
}

void cli_errno(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	note_err(err < 0 ? -err : err, 0, fmt, ap);
	va_end(ap);
	fprintf(stderr, "reis: %s\n", js.err);
}

static void err_on(struct reis_dev *dev, int err, const char *fmt, va_list ap)
{
	note_err(err < 0 ? -err : err, dev ? reis_last_cpl(dev)->status : 0, fmt, ap);
	fprintf(stderr, "reis: %s\n", js.err);
}

void cli_err_dev(struct ctx *c, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_on(c->dev, err, fmt, ap);
	va_end(ap);
}

void cli_err_on(struct reis_dev *dev, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_on(dev, err, fmt, ap);
	va_end(ap);
}

void cli_warn_volatile(const char *what)
{
	fprintf(stderr, "reis: warning: %s: what this command writes is gone when it "
		"exits\n", what);
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

/* Full precision (a float's 9 significant digits), for pooled sums. */
void j_g(const char *key, double v)
{
	j_sep(key);
	fprintf(js.f, "%.9g", v);
}

void j_str(const char *key, const char *s)
{
	j_sep(key);
	j_str_raw(s);
}

void j_null(const char *key)
{
	j_sep(key);
	fputs("null", js.f);
}

void j_bool(const char *key, int v)
{
	j_sep(key);
	fputs(v ? "true" : "false", js.f);
}

/* ---------------------------------------------------------------------- */
/* Helpers                                                                 */
/* ---------------------------------------------------------------------- */

static void note_errf(int err, uint32_t status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	note_err(err, status, fmt, ap);
	va_end(ap);
}

int fail(struct ctx *c, const char *what, int err)
{
	const char *detail = c->dev ? reis_last_error(c->dev) : "";
	uint32_t status = c->dev ? reis_last_cpl(c->dev)->status : 0;

	note_errf(-err, status, "%s: %s", what, detail[0] ? detail : reis_strerror(err));
	fprintf(stderr, "reis: %s\n", js.err);
	return 1;
}

/* The option cli_getopt() returned last and its value, while a parse runs:
 * a usage error about that option names the value it was given. */
static struct {
	char name[48];		/* long name, or the letter, without dashes */
	const char *val;
} cur_opt;

int usage_err(const char *fmt, ...)
{
	va_list ap;
	char flag[52], given[64];

	va_start(ap, fmt);
	note_err(EINVAL, 0, fmt, ap);
	va_end(ap);
	given[0] = 0;
	if (cur_opt.val) {
		const char *m = js.err;
		size_t nl = strlen(cur_opt.name);

		snprintf(flag, sizeof(flag), "-%s", cur_opt.name);
		snprintf(given, sizeof(given), "'%.48s%s'", cur_opt.val,
			 strlen(cur_opt.val) > 48 ? "..." : "");	/* a long value cut, marked */
		/* about this option ("-k must", "--df must": not "--df-k"), and
		 * not naming the value already */
		while ((m = strstr(m, flag)) && (isalnum((unsigned char)m[nl + 1]) ||
						 m[nl + 1] == '-'))
			m++;
		if (!m || strstr(js.err, given))
			given[0] = 0;
	}
	if (given[0] && strlen(js.err) + strlen(given) + 10 < sizeof(js.err))
		snprintf(js.err + strlen(js.err), sizeof(js.err) - strlen(js.err), ", not %s",
			 given);
	fprintf(stderr, "reis: %s (see reis --help)\n", js.err);
	return EXIT_USAGE;
}

int cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
	       const struct option *lo)
{
	char so[128];
	int opt, plus = shortopts[0] == '+', li = -1;

	/* ':' first: a missing value is ':', told apart from an unknown option. */
	snprintf(so, sizeof(so), "%s:%s", plus ? "+" : "", shortopts + plus);
	opterr = 0;
	cur_opt.val = NULL;
	opt = getopt_long(argc, argv, so, lo, &li);
	if (opt != -1 && opt != '?' && opt != ':' && optarg) {
		/* the option's long name (also when given by its letter) */
		if (li < 0)
			for (li = 0; lo && lo[li].name && lo[li].val != opt; li++)
				;
		if (li >= 0 && lo && lo[li].name)
			snprintf(cur_opt.name, sizeof(cur_opt.name), "%s", lo[li].name);
		else
			snprintf(cur_opt.name, sizeof(cur_opt.name), "%c", opt);
		cur_opt.val = optarg;
	}
	if (opt == '?' || opt == ':') {
		const char *w = optind > 0 && optind <= argc ? argv[optind - 1] : "";
		char name[64];

		if (optopt && optopt != '?' && (!w[0] || w[1] != '-'))
			snprintf(name, sizeof(name), "-%c", optopt);
		else
			snprintf(name, sizeof(name), "%.*s", (int)strcspn(w, "="), w);
		if (opt == ':')
			usage_err("%s%soption '%s' needs a value", cmd ? cmd : "", cmd ? ": " : "",
				  name);
		else
			usage_err("%s%sunknown %soption '%s'", cmd ? cmd : "", cmd ? ": " : "",
				  cmd ? "" : "global ", name);
		return '?';
	}
	return opt;
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

int open_dev_exit(const struct ctx *c, int ret)
{
	return !ret ? 0 : ret == -EINVAL && c->inproc ? EXIT_USAGE : 1;
}

/* -EINVAL: the in-process drive's options are wrong (open_dev_exit()). */
int open_dev(struct ctx *c)
{
	struct reis_disc d;
	const char *path = c->dev_path;
	int ret;

	if (c->inproc) {
		if (!c->iopts.backing && c->warn_volatile)
			cli_warn_volatile("in-process drive without --backing");
		c->iopts.errbuf = c->errbuf;
		c->iopts.errlen = sizeof(c->errbuf);
		ret = reis_open_inproc(&c->iopts, &c->dev);
		if (ret == -EINVAL)	/* --preset, --params or --backing: usage */
			usage_err("in-process drive: %s",
				  c->errbuf[0] ? c->errbuf : reis_strerror(ret));
		else if (ret)
			cli_errno(ret, "in-process drive: %s",
				c->errbuf[0] ? c->errbuf : reis_strerror(ret));
		if (ret)
			return ret;
		return 0;
	}
	if (!path) {
		path = getenv("REIS_DEV");
		if (path && !*path) {
			cli_err("REIS_DEV is set but empty; unset it or name a drive "
				"(/dev/ngXnY, see reis list)");
			return -EINVAL;
		}
	}
	if (!path) {
		ret = reis_discover(&d, 1, c->open_flags);
		if (ret <= 0) {
			cli_err("no ISP drive found (`reis list` says what was seen and why "
				"it was rejected); use --dev PATH or --inproc");
			return ret < 0 ? ret : -ENODEV;
		}
		path = d.path;
	}
	ret = reis_open(path, c->open_flags, &c->dev);
	if (ret == -ENOENT)
		cli_err("%s: no such device (ISP drives: reis list; vendor commands "
			"use the generic char device /dev/ngXnY)", path);
	else if (ret)
		cli_errno(ret, "%s: %s", path, reis_strerror(ret));
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
			j_raw_output();
			printf("usage: reis [GLOBAL OPTIONS] %s\n%s", cmd->name, cmd->help);
			return 1;
		}
	}
	return 0;
}

/* Float vectors from a .fvecs/.bvecs/.npy file. */
int cli_load_floats(const char *cmd, const char *path, struct reis_vecs *v)
{
	char err[256];
	int ret;

	ret = reis_vecs_load(path, v, err, sizeof(err));
	if (ret) {
		cli_errno(ret, "%s: %s", cmd, err);
		return ret;
	}
	if (v->type == REIS_VEC_I32) {
		cli_err("%s: %s holds int32 ids, not vectors", cmd, path);
		reis_vecs_free(v);
		return -EINVAL;
	}
	ret = reis_vecs_to_f32(v);
	if (ret)
		cli_errno(ret, "%s: out of memory", cmd);
	return ret;
}

void cli_inproc_counters(const struct ctx *c, const char *what)
{
	if (c->inproc && !c->json)
		printf("(in-process drive: %s count what this process did; a backing file "
		       "keeps the databases and tables, not the counters)\n", what);
}

void j_counting_since(const struct ctx *c)
{
	j_str("counting_since", c->inproc ? "this process opened the drive" :
	      "the drive's power-on or last reset");
}
