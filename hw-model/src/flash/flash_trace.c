/* SPDX-License-Identifier: MIT */
/*
 * flash_trace.c - per-command activity traces and their export as Chrome /
 * Perfetto trace-event JSON (docs/timing-model.md "Timeline export").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flash_timing_int.h"

size_t ft_trace_bytes(size_t max_events)
{
	return sizeof(struct ft_trace) + max_events * sizeof(struct ft_ev);
}

int ft_trace_new(size_t max_events, struct ft_trace **out)
{
	struct ft_trace *tr;

	if (!out || max_events == 0 || max_events > (SIZE_MAX / sizeof(struct ft_ev)))
		return -EINVAL;
	tr = calloc(1, sizeof(*tr));
	if (!tr)
		return -ENOMEM;
	tr->max = max_events;
	*out = tr;
	return 0;
}

void ft_trace_free(struct ft_trace *tr)
{
	if (!tr)
		return;
	free(tr->ev);
	free(tr);
}

size_t ft_trace_count(const struct ft_trace *tr)
{
	return tr ? tr->n : 0;
}

uint64_t ft_trace_dropped(const struct ft_trace *tr)
{
	return tr ? tr->dropped : 0;
}

void ft_trace_reset(struct ft_trace *tr)
{
	if (!tr)
		return;
	tr->n = 0;
	tr->dropped = 0;
	tr->t0_set = 0;
}

void ft_trace_add(struct ft_trace *tr, uint16_t cls, uint32_t idx, const char *name,
		  uint64_t ts, uint64_t dur)
{
	struct ft_ev *e;

	if (tr->n == tr->cap) {
		size_t ncap = tr->cap ? tr->cap * 2 : 256;
		struct ft_ev *nev;

		if (ncap > tr->max)
			ncap = tr->max;
		if (ncap <= tr->cap || !(nev = realloc(tr->ev, ncap * sizeof(*nev)))) {
			tr->dropped++;
			return;
		}
		tr->ev = nev;
		tr->cap = ncap;
	}
	e = &tr->ev[tr->n++];
	e->ts = ts;
	e->dur = dur;
	e->name = name;
	e->idx = idx;
	e->cls = cls;
}

/* ---- JSON writer ---- */

struct ft_out {
	ft_write_fn fn;
	void *ctx;
	int err;
	char buf[4096];
	size_t n;
};

static void ft_out_flush(struct ft_out *o)
{
	if (!o->err && o->n)
		o->err = o->fn(o->ctx, o->buf, o->n);
	o->n = 0;
}

static void ft_out_str(struct ft_out *o, const char *s, size_t len)
{
	while (len) {
		size_t k = sizeof(o->buf) - o->n;

		if (k > len)
			k = len;
		memcpy(o->buf + o->n, s, k);
		o->n += k;
		s += k;
		len -= k;
		if (o->n == sizeof(o->buf))
			ft_out_flush(o);
	}
}

static void ft_out_s(struct ft_out *o, const char *s)
{
	ft_out_str(o, s, strlen(s));
}

static void ft_out_u64(struct ft_out *o, uint64_t v)
{
	char t[24];
	int n = snprintf(t, sizeof(t), "%" PRIu64, v);

	ft_out_str(o, t, (size_t)n);
}

/* @ps as microseconds with six decimals (exact). */
static void ft_out_us(struct ft_out *o, uint64_t ps)
{
	char t[40];
	int n = snprintf(t, sizeof(t), "%" PRIu64 ".%06" PRIu64, ps / 1000000u,
			 ps % 1000000u);

	ft_out_str(o, t, (size_t)n);
}

/* A JSON string literal with escapes. */
static void ft_out_json_str(struct ft_out *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	ft_out_str(o, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

		if (c == '"' || c == '\\') {
			ft_out_str(o, "\\", 1);
			ft_out_str(o, s, 1);
		} else if (c < 0x20) {
			ft_out_str(o, esc, 6);
		} else {
			ft_out_str(o, s, 1);
		}
	}
	ft_out_str(o, "\"", 1);
}

static const char *const ft_cls_name[ISP_RES_NCLASSES] = {
	[ISP_RES_PLANE] = "planes",
	[ISP_RES_DIE] = "dies",
	[ISP_RES_CHANNEL] = "channels",
	[ISP_RES_CORE] = "cores",
	[ISP_RES_DRAM] = "dram",
	[ISP_RES_LINK] = "link",
};

/* Display order: channels, dies, planes, cores, dram, link. */
static const int ft_cls_order[ISP_RES_NCLASSES] = {
	[ISP_RES_CHANNEL] = 1, [ISP_RES_DIE] = 2, [ISP_RES_PLANE] = 3,
	[ISP_RES_CORE] = 4, [ISP_RES_DRAM] = 5, [ISP_RES_LINK] = 6,
};

static void ft_thread_name(const struct ft *ft, int cls, uint32_t idx, char *b, size_t n)
{
	uint32_t die, ch;

	switch (cls) {
	case ISP_RES_PLANE:
		die = idx / ft->P;
		ch = die / ft->D;
		snprintf(b, n, "plane %u.%u.%u", ch, die % ft->D, idx % ft->P);
		break;
	case ISP_RES_DIE:
		snprintf(b, n, "die %u.%u", idx / ft->D, idx % ft->D);
		break;
	case ISP_RES_CHANNEL:
		snprintf(b, n, "channel %u", idx);
		break;
	case ISP_RES_CORE:
		snprintf(b, n, "core %u%s", idx, idx < ft->p.isp_cores ? " (isp)" : "");
		break;
	case ISP_RES_DRAM:
		snprintf(b, n, "dram");
		break;
	default:
		snprintf(b, n, "link %s", idx == FT_H2C ? "h2c" : "c2h");
		break;
	}
}

static void ft_out_meta(struct ft_out *o, int *first, int pid, const char *what,
			int has_tid, uint32_t tid, const char *key, const char *sval,
			uint64_t ival)
{
	ft_out_s(o, *first ? "\n" : ",\n");
	*first = 0;
	ft_out_s(o, "{\"ph\":\"M\",\"pid\":");
	ft_out_u64(o, (uint64_t)pid);
	if (has_tid) {
		ft_out_s(o, ",\"tid\":");
		ft_out_u64(o, tid);
	}
	ft_out_s(o, ",\"name\":\"");
	ft_out_s(o, what);
	ft_out_s(o, "\",\"args\":{\"");
	ft_out_s(o, key);
	ft_out_s(o, "\":");
	if (sval)
		ft_out_json_str(o, sval);
	else
		ft_out_u64(o, ival);
	ft_out_s(o, "}}");
}

int ft_trace_write(const struct ft *ft, const struct ft_trace *tr, ft_write_fn fn,
		   void *ctx)
{
	struct ft_out *o;
	uint8_t *seen[ISP_RES_NCLASSES] = { 0 };
	uint32_t nres[ISP_RES_NCLASSES];
	char name[64];
	size_t i;
	int first = 1, c, ret;
	uint32_t k;

	if (!ft || !tr || !fn)
		return -EINVAL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->fn = fn;
	o->ctx = ctx;
	nres[ISP_RES_PLANE] = ft->NP;
	nres[ISP_RES_DIE] = ft->ND;
	nres[ISP_RES_CHANNEL] = ft->C;
	nres[ISP_RES_CORE] = ft->p.cores;
	nres[ISP_RES_DRAM] = 1;
	nres[ISP_RES_LINK] = 2;
	for (c = 0; c < ISP_RES_NCLASSES; c++) {
		seen[c] = calloc(nres[c], 1);
		if (!seen[c]) {
			ret = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < tr->n; i++)
		if (tr->ev[i].cls < ISP_RES_NCLASSES && tr->ev[i].idx < nres[tr->ev[i].cls])
			seen[tr->ev[i].cls][tr->ev[i].idx] = 1;

	ft_out_s(o, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":"
		 "\"hw-model flash_timing\",\"preset\":");
	ft_out_json_str(o, ft->p.name);
	ft_out_s(o, ",\"dropped_events\":");
	ft_out_u64(o, tr->dropped);
	ft_out_s(o, "},\"traceEvents\":[");
	for (c = 0; c < ISP_RES_NCLASSES; c++) {
		int used = 0;

		for (k = 0; k < nres[c] && !used; k++)
			used = seen[c][k];
		if (!used)
			continue;
		ft_out_meta(o, &first, c + 1, "process_name", 0, 0, "name", ft_cls_name[c], 0);
		ft_out_meta(o, &first, c + 1, "process_sort_index", 0, 0, "sort_index",
			    NULL, (uint64_t)ft_cls_order[c]);
		for (k = 0; k < nres[c]; k++) {
			/* every core of the preset gets its track, idle or not:
			 * the timeline shows the controller as configured */
			if (!seen[c][k] && c != ISP_RES_CORE)
				continue;
			ft_thread_name(ft, c, k, name, sizeof(name));
			ft_out_meta(o, &first, c + 1, "thread_name", 1, k, "name", name, 0);
			ft_out_meta(o, &first, c + 1, "thread_sort_index", 1, k,
				    "sort_index", NULL, k);
		}
	}
	for (i = 0; i < tr->n; i++) {
		const struct ft_ev *e = &tr->ev[i];

		ft_out_s(o, first ? "\n" : ",\n");
		first = 0;
		ft_out_s(o, "{\"ph\":\"X\",\"pid\":");
		ft_out_u64(o, (uint64_t)e->cls + 1);
		ft_out_s(o, ",\"tid\":");
		ft_out_u64(o, e->idx);
		ft_out_s(o, ",\"name\":");
		ft_out_json_str(o, e->name ? e->name : "?");
		ft_out_s(o, ",\"ts\":");
		ft_out_us(o, e->ts >= tr->t0 ? e->ts - tr->t0 : 0);
		ft_out_s(o, ",\"dur\":");
		ft_out_us(o, e->dur);
		ft_out_s(o, "}");
	}
	ft_out_s(o, "\n]}\n");
	ft_out_flush(o);
	ret = o->err;
out:
	for (c = 0; c < ISP_RES_NCLASSES; c++)
		free(seen[c]);
	free(o);
	return ret;
}

static int ft_w_file(void *ctx, const char *buf, size_t len)
{
	return fwrite(buf, 1, len, (FILE *)ctx) == len ? 0 : -EIO;
}

int ft_trace_write_file(const struct ft *ft, const struct ft_trace *tr, FILE *f)
{
	if (!f)
		return -EINVAL;
	return ft_trace_write(ft, tr, ft_w_file, f);
}

static int ft_w_fd(void *ctx, const char *buf, size_t len)
{
	int fd = *(int *)ctx;

	while (len) {
		ssize_t r = write(fd, buf, len);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += r;
		len -= (size_t)r;
	}
	return 0;
}

int ft_trace_write_fd(const struct ft *ft, const struct ft_trace *tr, int fd)
{
	if (fd < 0)
		return -EINVAL;
	return ft_trace_write(ft, tr, ft_w_fd, &fd);
}

struct ft_memw {
	char *buf;
	size_t cap, len;
};

static int ft_w_mem(void *ctx, const char *buf, size_t len)
{
	struct ft_memw *m = ctx;

	if (m->len + len < m->cap)
		memcpy(m->buf + m->len, buf, len);
	m->len += len;
	return 0;
}

int ft_trace_write_mem(const struct ft *ft, const struct ft_trace *tr, char *buf,
		       size_t cap, size_t *len)
{
	struct ft_memw m = { buf, buf ? cap : 0, 0 };
	int ret;

	ret = ft_trace_write(ft, tr, ft_w_mem, &m);
	if (len)
		*len = m.len;
	if (ret)
		return ret;
	if (m.len >= m.cap) {
		if (buf && cap)
			buf[0] = '\0';
		return -ENOSPC;
	}
	buf[m.len] = '\0';
	return 0;
}
