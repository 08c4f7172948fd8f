/* SPDX-License-Identifier: MIT */
/*
 * json_t.h - what the CLI tests share to check --json output: a small
 * validator that accepts exactly one JSON document and flattens its scalars
 * to "a.b[2].c" paths (jget, jis).
 */
#ifndef TESTS_JSON_T_H
#define TESTS_JSON_T_H

#include <stdio.h>
#include <string.h>

#define MAXV 512

struct jv {
	char path[128];
	char val[512];	/* strings unquoted, others as written: whole messages */
};

struct jp {
	const char *s;
	struct jv v[MAXV];
	unsigned n;
	int err;
};

static inline void ws(struct jp *p)
{
	while (*p->s == ' ' || *p->s == '\n' || *p->s == '\t' || *p->s == '\r')
		p->s++;
}

static inline void add(struct jp *p, const char *path, const char *b, size_t len)
{
	if (p->n >= MAXV || len >= sizeof(p->v[0].val))
		return;
	snprintf(p->v[p->n].path, sizeof(p->v[0].path), "%s", path);
	memcpy(p->v[p->n].val, b, len);
	p->v[p->n].val[len] = 0;
	p->n++;
}

static inline int parse_value(struct jp *p, const char *path, int depth);

static inline int parse_string(struct jp *p, char *out, size_t outlen)
{
	size_t n = 0;

	if (*p->s != '"')
		return -1;
	p->s++;
	while (*p->s && *p->s != '"') {
		if ((unsigned char)*p->s < 0x20)
			return -1;
		if (*p->s == '\\') {
			p->s++;
			if (*p->s == 'u') {
				int i;

				for (i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", p->s[i]) || !p->s[i])
						return -1;
				p->s += 4;
			} else if (!strchr("\"\\/bfnrt", *p->s) || !*p->s) {
				return -1;
			}
		}
		if (out && n + 1 < outlen)
			out[n++] = *p->s;
		p->s++;
	}
	if (*p->s != '"')
		return -1;
	p->s++;
	if (out)
		out[n] = 0;
	return 0;
}

static inline int parse_value(struct jp *p, const char *path, int depth)
{
	char sub[128], key[64];
	const char *b;
	unsigned i = 0;

	if (depth > 20)
		return -1;
	ws(p);
	if (*p->s == '{' || *p->s == '[') {
		int obj = *p->s == '{';

		p->s++;
		ws(p);
		if (*p->s == (obj ? '}' : ']')) {
			p->s++;
			return 0;
		}
		for (;;) {
			ws(p);
			if (obj) {
				if (parse_string(p, key, sizeof(key)))
					return -1;
				ws(p);
				if (*p->s++ != ':')
					return -1;
				snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "." : "", key);
			} else {
				snprintf(sub, sizeof(sub), "%s[%u]", path, i++);
			}
			if (parse_value(p, sub, depth + 1))
				return -1;
			ws(p);
			if (*p->s == ',') {
				p->s++;
				continue;
			}
			if (*p->s++ != (obj ? '}' : ']'))
				return -1;
			return 0;
		}
	}
	b = p->s;
	if (*p->s == '"') {
		char s[sizeof(((struct jv *)0)->val)];

		if (parse_string(p, s, sizeof(s)))
			return -1;
		add(p, path, s, strlen(s));
		return 0;
	}
	if (!strncmp(p->s, "true", 4) || !strncmp(p->s, "null", 4))
		p->s += 4;
	else if (!strncmp(p->s, "false", 5))
		p->s += 5;
	else {
		if (*p->s == '-')
			p->s++;
		if (*p->s < '0' || *p->s > '9')
			return -1;
		while ((*p->s >= '0' && *p->s <= '9') || *p->s == '.' || *p->s == 'e' ||
		       *p->s == 'E' || *p->s == '+' || *p->s == '-')
			p->s++;
	}
	add(p, path, b, (size_t)(p->s - b));
	return 0;
}

/* Parse exactly one document; 0 on success. */
static inline int json_parse(struct jp *p, const char *text)
{
	memset(p, 0, sizeof(*p));
	p->s = text;
	if (parse_value(p, "", 0))
		return -1;
	ws(p);
	return *p->s ? -1 : 0;
}

static inline const char *jget(const struct jp *p, const char *path)
{
	unsigned i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].path, path))
			return p->v[i].val;
	return NULL;
}

static inline int jis(const struct jp *p, const char *path, const char *want)
{
	const char *v = jget(p, path);

	if (!v || strcmp(v, want)) {
		fprintf(stderr, "json %s = %s, want %s\n", path, v ? v : "(missing)", want);
		return 0;
	}
	return 1;
}

#endif
