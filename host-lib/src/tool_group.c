/* SPDX-License-Identifier: MIT */
/*
 * tool_group.c - a device group's members: open from paths, from discovery
 * or from handles, per-member facts, and the sentence that names the member
 * a failure came from (Solana §III: one server, many drives). The sharded
 * and scheduled work lives in tool_group_reis.c, tool_group_rf.c and
 * tool_group_sched.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libreis_tools.h"
#include "tool_group_priv.h"

static unsigned reis_group_orphans_reap(struct reis_group *g);
static void reis_group_need_facts(struct reis_group *g);

/* Open failures have no group to carry their sentence. */
static _Thread_local char reis_group_open_msg[REIS_GROUP_MSG_LEN];

/*
 * Whether member @s's controller is still there: a lost NVMe/TCP link
 * leaves the controller "connecting" for ctrl_loss_tmo, then removes it
 * (docs/fabric.md, Settings); meanwhile the kernel fails new commands with
 * -EINVAL (no usable multipath path) or -EIO, which say nothing of the
 * cause. Unknown controllers (in-process drives) count as reachable.
 */
static int reis_group_reachable(const struct reis_group *g, unsigned s, char *why, size_t len)
{
	const struct reis_group_member *m = &g->m[s];
	char path[96], state[32] = "";
	FILE *f;

	if (!m->ctrl[0])
		return 1;
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/state", m->ctrl);
	f = fopen(path, "r");
	if (!f) {
		snprintf(why, len, "controller %s removed", m->ctrl);
		return 0;
	}
	if (!fgets(state, sizeof(state), f))
		state[0] = '\0';
	fclose(f);
	state[strcspn(state, "\n")] = '\0';
	if (!strcmp(state, "live"))
		return 1;
	snprintf(why, len, "controller %s %s", m->ctrl, state[0] ? state : "in no state");
	return 0;
}

int reis__group_fail(struct reis_group *g, int member, int err, const char *fmt, ...)
{
	char *buf = g ? g->msg : reis_group_open_msg;
	va_list ap;
	int n = 0;

	if (g)
		g->failed = member;
	if (member >= 0 && g) {
		const struct reis_group_member *m = &g->m[member];

		reis_group_need_facts(g);	/* a fabric member is named by them */
		char why[80];

		if (m->remote)
			n = snprintf(buf, REIS_GROUP_MSG_LEN, "%s (%s %s at %s): ", m->name,
				     m->transport, m->subsysnqn, m->address);
		else
			n = snprintf(buf, REIS_GROUP_MSG_LEN, "%s: ", m->name);
		if (n >= REIS_GROUP_MSG_LEN)
			n = REIS_GROUP_MSG_LEN - 1;
		if (err < 0 && !reis_group_reachable(g, (unsigned)member, why, sizeof(why))) {
			n += snprintf(buf + n, REIS_GROUP_MSG_LEN - (size_t)n,
				      "drive unreachable (%s): ", why);
			if (n >= REIS_GROUP_MSG_LEN)
				n = REIS_GROUP_MSG_LEN - 1;
			err = -ENOTCONN;
		}
	}
	va_start(ap, fmt);
	vsnprintf(buf + n, REIS_GROUP_MSG_LEN - (size_t)n, fmt, ap);
	va_end(ap);
	return err;
}

uint64_t reis__group_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int reis__group_ok(struct reis_group *g)
{
	return reis__group_begin(g, 0);
}

int reis__group_begin(struct reis_group *g, int partial)
{
	uint64_t t0 = reis__group_now_ns(), held;
	unsigned s;

	g->failed = -1;
	g->msg[0] = '\0';
	/* A member still inside a call that timed out cannot be used yet. */
	while ((held = reis__gcall_reap(g)) &&
	       (g->timeout_ms < 0 ||
		reis__group_now_ns() - t0 < (uint64_t)g->timeout_ms * 1000000u)) {
		struct timespec ts = { 0, 2000000 };

		nanosleep(&ts, NULL);
	}
	reis_group_orphans_reap(g);	/* late completions of earlier calls */
	for (s = 0; !partial && s < g->n; s++)
		if (held >> s & 1)
			return reis__group_fail(g, (int)s, -ETIMEDOUT,
						"still inside a call that timed out (no "
						"completion within %d ms)", g->timeout_ms);
	return 0;
}

uint64_t reis__group_reap(struct reis_group *g, int (*done)(const void *arg), const void *arg)
{
	uint64_t last[REIS_GROUP_MAX], late = 0, now = reis__group_now_ns();
	uint64_t tmo = g->timeout_ms < 0 ? UINT64_MAX : (uint64_t)g->timeout_ms * 1000000u;
	unsigned s;

	for (s = 0; s < g->n; s++)
		last[s] = now;
	while (!done(arg)) {
		int reaped = 0, busy = -1;

		for (s = 0; s < g->n; s++) {
			if (((late | g->held) >> s & 1) || !reis_inflight(g->dev[s]))
				continue;
			now = reis__group_now_ns();
			if (reis_poll(g->dev[s], 0) > 0) {
				reaped = 1;
				last[s] = now;
			} else if (now - last[s] >= tmo) {
				late |= 1ull << s;	/* no completion for the timeout */
				continue;
			}
			if (busy < 0)
				busy = (int)s;
		}
		if (busy < 0)
			break;	/* nothing in flight (the rest failed to submit) or late */
		if (!reaped)
			reis_wait(g->dev[busy], 1, 1);
	}
	return late;
}

int reis__group_adopt_orphan(struct reis_group *g, void *mem, unsigned count,
			     int (*busy)(void *, unsigned), void (*release)(void *, unsigned))
{
	struct reis__group_orphan *o = calloc(1, sizeof(*o));

	if (!o)
		return -ENOMEM;
	o->mem = mem;
	o->count = count;
	o->busy = busy;
	o->release = release;
	o->next = g->orphans;
	g->orphans = o;
	return 0;
}

/* Reap what is ready on every member; free the orphans that finished. */
static unsigned reis_group_orphans_reap(struct reis_group *g)
{
	struct reis__group_orphan **pp = &g->orphans, *o;
	unsigned s, left = 0;

	if (!g->orphans)
		return 0;
	for (s = 0; s < g->n; s++)
		if (!(g->held >> s & 1) && reis_inflight(g->dev[s]))
			reis_poll(g->dev[s], 0);
	while ((o = *pp)) {
		if (o->busy(o->mem, o->count)) {
			left++;
			pp = &o->next;
			continue;
		}
		*pp = o->next;
		o->release(o->mem, o->count);
		free(o);
	}
	return left;
}

unsigned reis_group_pending(struct reis_group *g)
{
	if (!g)
		return 0;
	reis__gcall_reap(g);
	return reis_group_orphans_reap(g) + reis__gcall_count(g);
}

int reis_group_set_timeout(struct reis_group *g, int timeout_ms)
{
	if (!g || timeout_ms < -1)
		return -EINVAL;
	g->timeout_ms = timeout_ms ? timeout_ms : REIS_GROUP_TIMEOUT_MS;
	return 0;
}

int reis__group_delete(struct reis_group *g, uint32_t id,
		       int (*del)(struct reis_dev *dev, uint32_t id))
{
	unsigned s;
	int first = 0;

	if (!g)
		return -EINVAL;
	first = reis__group_ok(g);
	if (first)
		return first;
	for (s = 0; s < g->n; s++) {
		int ret = del(g->dev[s], id);

		if (ret && ret != -ENOENT && !first)
			first = reis__group_fail(g, (int)s, ret, "delete %u: %s", id,
						 reis_last_error(g->dev[s]));
	}
	return first;
}

static int reis_group_alloc(unsigned n, struct reis_group **out)
{
	struct reis_group *g;

	reis_group_open_msg[0] = '\0';
	if (!n || n > REIS_GROUP_MAX || !out)
		return reis__group_fail(NULL, -1, -EINVAL, "a group has 1..%u members",
					REIS_GROUP_MAX);
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->n = n;
	g->failed = -1;
	g->timeout_ms = REIS_GROUP_TIMEOUT_MS;
	*out = g;
	return 0;
}

static void reis_group_fill(struct reis_group *g, unsigned i, struct reis_dev *dev,
			    const char *name)
{
	const struct reis_info *in = reis_dev_info(dev);

	g->dev[i] = dev;
	snprintf(g->m[i].name, sizeof(g->m[i].name), "%s", name);
	if (in) {
		g->m[i].info = *in;
		g->m[i].caps = in->caps;
		snprintf(g->m[i].preset, sizeof(g->m[i].preset), "%s", in->preset);
	}
}

/* Discovery's facts on how member @i is reached (docs/fabric.md). */
static void reis_group_fill_disc(struct reis_group *g, unsigned i, const struct reis_disc *d)
{
	struct reis_group_member *m = &g->m[i];

	snprintf(m->transport, sizeof(m->transport), "%s", d->transport);
	snprintf(m->subsysnqn, sizeof(m->subsysnqn), "%s", d->subsysnqn);
	snprintf(m->address, sizeof(m->address), "%s", d->address);
	snprintf(m->ctrl, sizeof(m->ctrl), "%s", d->ctrl);
	m->remote = d->transport[0] && strcmp(d->transport, "pcie") != 0;
}

/*
 * Paths given by the caller: look them up in a discovery scan (rejected
 * namespaces included, so nothing is probed twice in vain); a path
 * discovery does not list keeps empty transport facts. The scan probes
 * every NVMe namespace of the machine, so it runs only when the facts are
 * first needed (reis_group_member_info(), a failure's sentence), not at
 * open: a group that only works never pays it.
 */
static void reis_group_need_facts(struct reis_group *g)
{
	struct reis_disc *d;
	unsigned i;
	int n, j;

	if (g->facts)
		return;
	g->facts = 1;
	d = calloc(REIS_GROUP_MAX * 4, sizeof(*d));
	if (!d)
		return;
	n = reis_discover(d, REIS_GROUP_MAX * 4, REIS_DISCOVER_ALL);
	if (n > (int)REIS_GROUP_MAX * 4)
		n = (int)REIS_GROUP_MAX * 4;
	for (i = 0; i < g->n; i++)
		for (j = 0; j < n; j++)
			if (!strcmp(d[j].path, g->m[i].name)) {	/* the path opened */
				reis_group_fill_disc(g, i, &d[j]);
				break;
			}
	free(d);
}

static int reis_group_open_paths(const char *const *paths, unsigned n, uint32_t flags,
				 const struct reis_disc *disc, struct reis_group **out)
{
	struct reis_group *g;
	unsigned i;
	int ret;

	if (!paths)
		return -EINVAL;
	ret = reis_group_alloc(n, &g);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		struct reis_dev *dev;

		if (!paths[i]) {
			ret = -EINVAL;
			reis__group_fail(NULL, -1, ret, "member %u: no path", i);
			goto fail;
		}
		ret = reis_open(paths[i], flags, &dev);
		if (ret) {
			reis__group_fail(NULL, -1, ret, "%s: %s", paths[i], reis_strerror(ret));
			goto fail;
		}
		reis_group_fill(g, i, dev, paths[i]);
		if (disc)
			reis_group_fill_disc(g, i, &disc[i]);
	}
	g->facts = disc != NULL;	/* else looked up when first needed */
	*out = g;
	return 0;
fail:
	reis_group_close(g);
	return ret;
}

int reis_group_open(const char *const *paths, unsigned n, uint32_t flags,
		    struct reis_group **out)
{
	return reis_group_open_paths(paths, n, flags, NULL, out);
}

int reis_group_discover(uint32_t flags, struct reis_group **out)
{
	struct reis_disc *d = calloc(REIS_GROUP_MAX, sizeof(*d));
	const char *paths[REIS_GROUP_MAX];
	int n, i, ret;

	reis_group_open_msg[0] = '\0';
	if (!d)
		return -ENOMEM;
	n = reis_discover(d, REIS_GROUP_MAX, flags & ~REIS_DISCOVER_ALL);
	if (n < 0) {
		free(d);
		return reis__group_fail(NULL, -1, n, "discovery: %s", reis_strerror(n));
	}
	if (n == 0) {
		free(d);
		return reis__group_fail(NULL, -1, -ENODEV, "discovery found no ISP drive");
	}
	if (n > (int)REIS_GROUP_MAX)
		n = (int)REIS_GROUP_MAX;
	for (i = 0; i < n; i++)
		paths[i] = d[i].path;
	ret = reis_group_open_paths(paths, (unsigned)n, flags, d, out);
	free(d);
	return ret;
}

int reis_group_adopt(struct reis_dev *const *devs, const char *const *names, unsigned n,
		     struct reis_group **out)
{
	struct reis_group *g;
	unsigned i;
	int ret;

	if (!devs)
		return -EINVAL;
	ret = reis_group_alloc(n, &g);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		const struct reis_info *in = devs[i] ? reis_dev_info(devs[i]) : NULL;
		char def[32];

		if (!in || !(in->caps & (REIS_CAP_REIS | REIS_CAP_RECFLASH))) {
			snprintf(def, sizeof(def), "drive%u", i);
			reis__group_fail(NULL, -1, -EINVAL, "%s: no ISP capability",
					 names && names[i] ? names[i] : def);
			free(g);
			return -EINVAL;
		}
		snprintf(def, sizeof(def), "drive%u", i);
		reis_group_fill(g, i, devs[i], names && names[i] ? names[i] : def);
	}
	g->facts = 1;	/* handles: no discovery facts to find */
	*out = g;
	return 0;
}

void reis_group_close(struct reis_group *g)
{
	unsigned i;

	uint64_t t0;

	if (!g)
		return;
	/* A late synchronous call still uses its member's handle: wait for it
	 * to return (the drive layer's own bound: the kernel's I/O timeout). */
	reis__gcall_join_all(g);
	/* Late work gets one more timeout to finish (its results read and
	 * released on the drive); reis_close() then waits for what is still
	 * in flight without running it further. */
	t0 = reis__group_now_ns();
	while (reis_group_orphans_reap(g) &&
	       (g->timeout_ms < 0 ||
		reis__group_now_ns() - t0 < (uint64_t)g->timeout_ms * 1000000u))
		for (i = 0; i < g->n; i++)
			if (reis_inflight(g->dev[i]))
				reis_wait(g->dev[i], 1, 1);
	for (i = 0; i < g->n; i++)
		if (g->dev[i])
			reis_close(g->dev[i]);
	while (g->orphans) {
		struct reis__group_orphan *o = g->orphans;

		g->orphans = o->next;
		o->release(o->mem, o->count);
		free(o);
	}
	free(g);
}

unsigned reis_group_size(const struct reis_group *g)
{
	return g ? g->n : 0;
}

struct reis_dev *reis_group_dev(const struct reis_group *g, unsigned i)
{
	return g && i < g->n ? g->dev[i] : NULL;
}

int reis_group_member_info(const struct reis_group *g, unsigned i,
			   struct reis_group_member *out)
{
	if (!g || i >= g->n || !out)
		return -EINVAL;
	/* The facts are a cache the lookup fills; the group is logically const. */
	reis_group_need_facts((struct reis_group *)(uintptr_t)g);
	*out = g->m[i];
	return 0;
}

int reis_group_mixed(const struct reis_group *g)
{
	unsigned i;

	for (i = 1; g && i < g->n; i++) {
		const struct reis_info *a = &g->m[0].info, *b = &g->m[i].info;

		if (strcmp(g->m[0].preset, g->m[i].preset) || a->channels != b->channels ||
		    a->dies_per_channel != b->dies_per_channel ||
		    a->planes_per_die != b->planes_per_die || a->page_bytes != b->page_bytes ||
		    a->raw_capacity_bytes != b->raw_capacity_bytes)
			return 1;
	}
	return 0;
}

const char *reis_group_errmsg(const struct reis_group *g)
{
	return g ? g->msg : reis_group_open_msg;
}

int reis_group_failed(const struct reis_group *g)
{
	return g ? g->failed : -1;
}
