/* SPDX-License-Identifier: MIT */
/*
 * test_flash_trace.c - the Perfetto/Chrome timeline export is well-formed
 * JSON (checked by a small parser here, and by python3's json module when
 * python3 is installed), names every resource thread, places events where
 * the engine scheduled them, and costs nothing when tracing is off.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "flash_timing.h"

/* ---- minimal strict JSON syntax checker ---- */
struct js {
	const char *p;
	int depth;
	int nx;		/* "ph":"X" events seen */
};

static int js_value(struct js *j);

static void js_ws(struct js *j)
{
	while (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r')
		j->p++;
}

static int js_string(struct js *j)
{
	if (*j->p != '"')
		return -1;
	for (j->p++; *j->p != '"'; j->p++) {
		if ((unsigned char)*j->p < 0x20 || !*j->p)
			return -1;
		if (*j->p == '\\') {
			j->p++;
			if (*j->p == 'u') {
				int i;

				for (i = 1; i <= 4; i++)
					if (!isxdigit((unsigned char)j->p[i]))
						return -1;
				j->p += 4;
			} else if (!strchr("\"\\/bfnrt", *j->p)) {
				return -1;
			}
		}
	}
	j->p++;
	return 0;
}

static int js_number(struct js *j)
{
	const char *s = j->p;

	if (*j->p == '-')
		j->p++;
	if (*j->p == '0')
		j->p++;
	else if (isdigit((unsigned char)*j->p))
		while (isdigit((unsigned char)*j->p))
			j->p++;
	else
		return -1;
	if (*j->p == '.') {
		j->p++;
		if (!isdigit((unsigned char)*j->p))
			return -1;
		while (isdigit((unsigned char)*j->p))
			j->p++;
	}
	if (*j->p == 'e' || *j->p == 'E') {
		j->p++;
		if (*j->p == '+' || *j->p == '-')
			j->p++;
		if (!isdigit((unsigned char)*j->p))
			return -1;
		while (isdigit((unsigned char)*j->p))
			j->p++;
	}
	return j->p > s ? 0 : -1;
}

static int js_container(struct js *j, char open, char close)
{
	if (++j->depth > 64)
		return -1;
	j->p++;
	js_ws(j);
	if (*j->p == close) {
		j->p++;
		j->depth--;
		return 0;
	}
	for (;;) {
		js_ws(j);
		if (open == '{') {
			int isph = strncmp(j->p, "\"ph\"", 4) == 0;

			if (js_string(j))
				return -1;
			js_ws(j);
			if (*j->p++ != ':')
				return -1;
			js_ws(j);
			if (isph && strncmp(j->p, "\"X\"", 3) == 0)
				j->nx++;
		}
		if (js_value(j))
			return -1;
		js_ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p == close) {
			j->p++;
			j->depth--;
			return 0;
		}
		return -1;
	}
}

static int js_value(struct js *j)
{
	js_ws(j);
	switch (*j->p) {
	case '{':
		return js_container(j, '{', '}');
	case '[':
		return js_container(j, '[', ']');
	case '"':
		return js_string(j);
	case 't':
		return strncmp(j->p, "true", 4) ? -1 : (j->p += 4, 0);
	case 'f':
		return strncmp(j->p, "false", 5) ? -1 : (j->p += 5, 0);
	case 'n':
		return strncmp(j->p, "null", 4) ? -1 : (j->p += 4, 0);
	default:
		return js_number(j);
	}
}

static int json_ok(const char *s, int *nx)
{
	struct js j = { s, 0, 0 };

	if (js_value(&j))
		return 0;
	js_ws(&j);
	*nx = j.nx;
	return *j.p == '\0';
}

static int python_check(const char *path)
{
	char cmd[512];

	if (system("command -v python3 >/dev/null 2>&1") != 0)
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
		 "ev=d[\"traceEvents\"]; assert all(\"ph\" in e for e in ev); "
		 "assert any(e[\"ph\"]==\"X\" and e[\"dur\"]>0 for e in ev)' %s", path);
	return system(cmd) == 0;
}

int main(void)
{
	struct fp_params p;
	struct ft *ft;
	struct ft_trace *tr, *small;
	struct ft_page_op op = { .mode = ISP_CELL_SLC, .flags = FT_OP_XOR | FT_OP_CACHE,
				 .n_fbc = 128, .n_cmp = 128, .n_dout = 1, .dout_bytes = 512 };
	struct ft_cmd c, plain;
	char path[] = "/tmp/test_flash_trace.XXXXXX";
	char *buf, tiny[16];
	size_t len = 0, need;
	int i, nx, fd, py;
	FILE *f;

	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	REQUIRE(ft_open(&p, &ft) == 0);
	REQUIRE(ft_trace_new(100000, &tr) == 0);

	ft_cmd_begin(ft, &c, 5000, tr);
	ft_ctrl(ft, &c, 0);
	ft_dma(ft, &c, FT_H2C, 128, 0);
	ft_ibc(ft, &c, 0, 128, p.page_bytes, 1, 0);
	ft_ibc(ft, &c, 1, 128, p.page_bytes, 0, 0);
	for (i = 0; i < 600; i++)
		ft_page_read(ft, &c, (uint32_t)i % 256, &op, 0);
	ft_page_program(ft, &c, 3, ISP_CELL_TLC, p.page_bytes, 0);
	ft_block_erase(ft, &c, 4, 0);
	ft_dram(ft, &c, 4096, 0);
	ft_core(ft, &c, FT_CORE_ISP, 100000, "quick\"select\\", 0);	/* escaping */
	ft_dma(ft, &c, FT_C2H, 40960, c.end);
	REQUIRE(ft_cmd_end(ft, &c, NULL) == 0);
	CHECK(ft_trace_count(tr) > 600 * 4);
	CHECK(ft_trace_dropped(tr) == 0);

	/* Memory writer: size query, too small, exact. */
	CHECK(ft_trace_write_mem(ft, tr, NULL, 0, &need) == -ENOSPC);
	CHECK(ft_trace_write_mem(ft, tr, tiny, sizeof(tiny), &len) == -ENOSPC);
	CHECK(len == need && tiny[0] == '\0');
	buf = malloc(need + 1);
	REQUIRE(buf);
	CHECK(ft_trace_write_mem(ft, tr, buf, need + 1, &len) == 0 && len == need);
	CHECK(strlen(buf) == len);
	CHECK(json_ok(buf, &nx));
	CHECK((size_t)nx == ft_trace_count(tr));
	CHECK(strstr(buf, "\"traceEvents\"") != NULL);
	CHECK(strstr(buf, "\"thread_name\"") != NULL);
	CHECK(strstr(buf, "\"plane 0.0.0\"") != NULL);
	CHECK(strstr(buf, "\"plane 7.15.1\"") != NULL);
	CHECK(strstr(buf, "\"channel 7\"") != NULL);
	CHECK(strstr(buf, "\"die 0.1\"") != NULL);
	CHECK(strstr(buf, "\"core 0 (isp)\"") != NULL);
	/* every core of the preset (reis-ssd1: 4) has its track, used or not */
	CHECK(p.cores == 4 && strstr(buf, "\"core 3\"") != NULL);
	CHECK(strstr(buf, "\"core 4\"") == NULL);
	CHECK(strstr(buf, "\"link h2c\"") != NULL);
	CHECK(strstr(buf, "\"dram\"") != NULL);
	CHECK(strstr(buf, "\"quick\\\"select\\\\\"") != NULL);
	CHECK(strstr(buf, "\"name\":\"tR\",\"ts\":") != NULL);
	/* The first page's tR starts after its C/A and the broadcasts. */
	CHECK(strstr(buf, "\"preset\":\"reis-ssd1\"") != NULL);

	/* File and descriptor writers produce the same bytes. */
	fd = mkstemp(path);
	REQUIRE(fd >= 0);
	CHECK(ft_trace_write_fd(ft, tr, fd) == 0);
	close(fd);
	f = fopen(path, "rb");
	REQUIRE(f);
	{
		char *fb = malloc(len + 2);
		size_t got = fread(fb, 1, len + 1, f);

		CHECK(got == len && memcmp(fb, buf, len) == 0);
		free(fb);
	}
	fclose(f);
	py = python_check(path);
	if (py < 0)
		printf("python3 not installed: internal JSON check only\n");
	else
		CHECK(py == 1);
	f = fopen(path, "wb");
	REQUIRE(f);
	CHECK(ft_trace_write_file(ft, tr, f) == 0);
	fclose(f);
	unlink(path);
	free(buf);

	/* A bounded trace drops the excess and says so. */
	REQUIRE(ft_trace_new(10, &small) == 0);
	ft_cmd_begin(ft, &c, 100000000, small);
	for (i = 0; i < 20; i++)
		ft_page_read(ft, &c, (uint32_t)i, &op, 0);
	ft_cmd_end(ft, &c, NULL);
	CHECK(ft_trace_count(small) == 10 && ft_trace_dropped(small) > 0);
	need = 0;
	ft_trace_write_mem(ft, small, NULL, 0, &need);
	buf = malloc(need + 1);
	REQUIRE(buf && ft_trace_write_mem(ft, small, buf, need + 1, &len) == 0);
	CHECK(json_ok(buf, &nx) && nx == 10);
	CHECK(strstr(buf, "\"dropped_events\":") != NULL);
	free(buf);
	ft_trace_reset(small);
	CHECK(ft_trace_count(small) == 0);
	ft_trace_free(small);

	/* Untraced commands schedule exactly like traced ones. */
	{
		struct ft *a, *b;
		struct ft_trace *t2;

		REQUIRE(ft_open(&p, &a) == 0 && ft_open(&p, &b) == 0);
		REQUIRE(ft_trace_new(1000, &t2) == 0);
		ft_cmd_begin(a, &plain, 0, NULL);
		ft_cmd_begin(b, &c, 0, t2);
		for (i = 0; i < 50; i++) {
			ft_page_read(a, &plain, (uint32_t)i % 3, &op, 0);
			ft_page_read(b, &c, (uint32_t)i % 3, &op, 0);
		}
		ft_cmd_end(a, &plain, NULL);
		ft_cmd_end(b, &c, NULL);
		CHECK(plain.end == c.end && plain.energy_pj == c.energy_pj);
		ft_trace_free(t2);
		ft_close(a);
		ft_close(b);
	}
	/* Empty trace is valid JSON too. */
	REQUIRE(ft_trace_new(1, &small) == 0);
	need = 0;
	ft_trace_write_mem(ft, small, NULL, 0, &need);
	buf = malloc(need + 1);
	REQUIRE(buf && ft_trace_write_mem(ft, small, buf, need + 1, &len) == 0);
	CHECK(json_ok(buf, &nx) && nx == 0);
	free(buf);
	ft_trace_free(small);
	CHECK(ft_trace_new(0, &small) == -EINVAL);

	ft_trace_free(tr);
	ft_close(ft);
	return t_result();
}
