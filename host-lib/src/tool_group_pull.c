/* SPDX-License-Identifier: MIT */
/*
 * tool_group_pull.c - Solana IV-A's pull scheduler, for any sharded work:
 * a calibration run on every node gives the batch ratio, each node pulls
 * its next batch when it finishes one (drives from the front of their own
 * shard's items, the host from the back of the shard with most left), on
 * the run's timeline; then the Table-I accounting (docs/group.md,
 * Scheduled). The work itself is the caller's run function: a sharded
 * REIS search (tool_group_sched.c) or SLS (tool_group_sched_rf.c).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "libreis_tools.h"
#include "tool_group_priv.h"

/* Items per second of every node on one small batch. */
static int reis_pull_calibrate(struct reis__pull *pl, uint32_t cn,
			       struct reis_group_sched_report *rep, double *drive_rate)
{
	struct reis_group_node tmp;
	uint64_t ns, nj = 0, bytes = 0;
	unsigned s, hs = 0, nd = 0;
	int ret;

	*drive_rate = 0;
	for (s = 0; s < pl->g->n; s++) {
		uint32_t n = pl->nitems[s] < cn ? pl->nitems[s] : cn;

		if (!n)
			continue;
		memset(&tmp, 0, sizeof(tmp));
		ret = pl->run(pl->ctx, s, s, 0, n, &tmp, &ns);
		if (ret)
			return ret;
		rep->drive[s].rate = ns ? n * 1e9 / (double)ns : 0;
		*drive_rate += rep->drive[s].rate;
		nd++;
		nj += tmp.energy_nj;
		bytes += tmp.bytes_inside;
		if (pl->nitems[s] > pl->nitems[hs])
			hs = s;
	}
	if (nd)
		*drive_rate /= nd;
	pl->calib_nj_per_byte = bytes ? (double)nj / (double)bytes : 0;
	cn = pl->nitems[hs] < cn ? pl->nitems[hs] : cn;
	memset(&tmp, 0, sizeof(tmp));
	ret = cn ? pl->run(pl->ctx, REIS_PULL_HOST, hs, 0, cn, &tmp, &ns) : 0;
	if (ret)
		return ret;
	rep->host.rate = cn && ns ? cn * 1e9 / (double)ns : 0;
	pl->calib_host_bytes = cn ? (double)tmp.bytes_to_host / cn : 0;
	return 0;
}

static void reis_pull_batches(double ratio, uint32_t base, uint32_t max, uint32_t *bh,
			      uint32_t *bd)
{
	double b;

	if (ratio >= 1) {
		*bd = base;
		b = floor(ratio * base + 0.5);
		*bh = b > max ? max : (uint32_t)b;
	} else {
		*bh = base;
		b = ratio > 0 ? floor(base / ratio + 0.5) : max;
		*bd = b > max ? max : (uint32_t)b;
	}
	if (*bd > max)
		*bd = max;
	if (*bh > max)
		*bh = max;
	if (!*bh)
		*bh = 1;
	if (!*bd)
		*bd = 1;
}

/* The next node to pull: the one free first that still has work. */
static int reis_pull_pick(const struct reis__pull *pl, const uint64_t *free_at,
			  const uint32_t *front, const uint32_t *back, uint32_t flags)
{
	int best = -1, host_work = 0;
	unsigned s;

	for (s = 0; s < pl->g->n; s++) {
		if (front[s] >= back[s])
			continue;
		host_work = 1;
		if (flags & REIS_GROUP_SCHED_HOST_ONLY)
			continue;
		if (best < 0 || free_at[s] < free_at[best])
			best = (int)s;
	}
	/* Shared items: every drive may pull while any shard has work. */
	if ((flags & REIS_GROUP_SCHED_SHARED) && host_work && !(flags & REIS_GROUP_SCHED_HOST_ONLY))
		for (s = 0; s < pl->g->n; s++)
			if (free_at[s] < free_at[best])
				best = (int)s;
	if (host_work && !(flags & REIS_GROUP_SCHED_NO_HOST) &&
	    (best < 0 || free_at[REIS_PULL_HOST] < free_at[best]))
		best = REIS_PULL_HOST;
	return best;
}

static int reis_pull_loop(struct reis__pull *pl, uint32_t bh, uint32_t bd, uint32_t flags,
			  uint64_t tick_ns, struct reis_group_sched_report *rep)
{
	uint64_t free_at[REIS_GROUP_MAX + 1] = { 0 };
	uint32_t front[REIS_GROUP_MAX], back[REIS_GROUP_MAX];
	unsigned s;
	int node;

	for (s = 0; s < pl->g->n; s++) {
		front[s] = 0;
		back[s] = pl->nitems[s];
	}
	while ((node = reis_pull_pick(pl, free_at, front, back, flags)) >= 0) {
		struct reis_group_node *acct;
		uint32_t lo, n;
		uint64_t ns;
		int ret;

		if (node == REIS_PULL_HOST) {
			/* From the back of the shard with most left. */
			unsigned best = 0;

			for (s = 1; s < pl->g->n; s++)
				if (back[s] - front[s] > back[best] - front[best])
					best = s;
			s = best;
			n = back[s] - front[s] < bh ? back[s] - front[s] : bh;
			lo = back[s] - n;
			back[s] = lo;
			acct = &rep->host;
		} else {
			s = (unsigned)node;
			if ((flags & REIS_GROUP_SCHED_SHARED) && front[s] >= back[s]) {
				/* Its shard is done: the shard with most left. */
				unsigned best = 0;

				for (s = 1; s < pl->g->n; s++)
					if (back[s] - front[s] > back[best] - front[best])
						best = s;
				s = best;
			}
			n = back[s] - front[s] < bd ? back[s] - front[s] : bd;
			lo = front[s];
			front[s] += n;
			acct = &rep->drive[node];
		}
		ret = pl->run(pl->ctx, (unsigned)node, s, lo, n, acct, &ns);
		if (ret)
			return ret;
		free_at[node] += ns;
		if (free_at[node] > rep->makespan_ns)
			rep->makespan_ns = free_at[node];
		/* The scheduler hands out the next batch at its next wake-up. */
		if (tick_ns)
			free_at[node] = (free_at[node] + tick_ns - 1) / tick_ns * tick_ns;
	}
	return 0;
}

void reis__pull_init(struct reis__pull *pl, struct reis_group *g, uint64_t nunits,
		     int (*run)(void *, unsigned, unsigned, uint32_t, uint32_t,
				struct reis_group_node *, uint64_t *), void *ctx)
{
	memset(pl, 0, sizeof(*pl));
	pl->g = g;
	pl->nunits = nunits;
	pl->run = run;
	pl->ctx = ctx;
}

int reis__pull_schedule(struct reis__pull *pl, const struct reis_group_sched_opts *so,
			struct reis_group_sched_report *rep)
{
	uint32_t base = so && so->batch ? so->batch : 8, cn = so && so->calib_nq ? so->calib_nq : 16;
	uint32_t flags = so ? so->flags : 0, bh, bd, max = 1;
	uint64_t t0 = reis__group_now_ns();
	double drive_rate = 0;
	unsigned s;
	int ret;

	if ((flags & REIS_GROUP_SCHED_NO_HOST) && (flags & REIS_GROUP_SCHED_HOST_ONLY))
		return -EINVAL;
	/* A drive computes on its own shard only, unless the nodes are models. */
	if ((flags & REIS_GROUP_SCHED_SHARED) && !pl->shared_ok)
		return -EINVAL;
	rep->nmembers = pl->g->n;
	for (s = 0; s < pl->g->n; s++) {
		rep->items += pl->nitems[s];
		if (pl->nitems[s] > max)
			max = pl->nitems[s];
	}
	pl->calibrating = 1;
	ret = reis_pull_calibrate(pl, cn, rep, &drive_rate);
	pl->calibrating = 0;
	if (ret)
		return ret;
	rep->calib_ns = reis__group_now_ns() - t0;
	rep->ratio = so && so->ratio > 0 ? so->ratio :
		     (drive_rate > 0 && rep->host.rate > 0 ? rep->host.rate / drive_rate : 1);
	reis_pull_batches(rep->ratio, base, max, &bh, &bd);
	rep->host_batch = bh;
	rep->drive_batch = bd;
	return reis_pull_loop(pl, bh, bd, flags, so ? (uint64_t)so->tick_us * 1000u : 0, rep);
}

/* Host energy: busy time at host_w plus the flash sensing of what it read. */
static double reis_pull_host_energy(const struct reis__pull *pl,
				    struct reis_group_sched_report *rep, double drive_nj)
{
	/* A block read senses flash as the drives do: their modeled energy per
	 * byte processed inside (the link's transfer energy is not modeled). */
	double nj_per_byte = rep->bytes_inside ? drive_nj / (double)rep->bytes_inside :
			     pl->calib_nj_per_byte;

	rep->host.energy_nj = (uint64_t)(rep->host_w * (double)rep->host.busy_ns +
					 nj_per_byte * (double)rep->host.bytes_to_host);
	return nj_per_byte;
}

void reis__pull_account(const struct reis__pull *pl, const struct reis_group_sched_opts *so,
			double one_drive_ups, struct reis_group_sched_report *rep)
{
	double units = (double)pl->nunits, per_unit = (double)rep->items / units;
	double host_item_ns, host_item_bytes, drive_nj = 0, slowest = 0, sum_ns = 0, nj_b;
	uint64_t inside_items = 0;
	unsigned s;

	rep->host_w = so && so->host_w > 0 ? so->host_w : REIS_GROUP_HOST_CORE_W;
	for (s = 0; s < pl->g->n; s++) {
		const struct reis_group_node *d = &rep->drive[s];
		/* This drive's time per unit if it did all of its shard's items. */
		double per_u = d->rate > 0 ? 1e9 / d->rate * pl->nitems[s] / units : 0;

		inside_items += d->items;
		rep->bytes_inside += d->bytes_inside;
		drive_nj += (double)d->energy_nj;
		sum_ns += per_u;
		if (per_u > slowest)
			slowest = per_u;
	}
	nj_b = reis_pull_host_energy(pl, rep, drive_nj);
	rep->bytes_to_host = rep->host.bytes_to_host;
	rep->inside_share = rep->items ? (double)inside_items / (double)rep->items : 0;
	rep->qps = rep->makespan_ns ? units * 1e9 / (double)rep->makespan_ns : 0;
	/* The host alone: its own per-item time (this run's, else calibration's). */
	host_item_ns = rep->host.items ? (double)rep->host.busy_ns / (double)rep->host.items :
		       (rep->host.rate > 0 ? 1e9 / rep->host.rate : 0);
	host_item_bytes = rep->host.items ? (double)rep->host.bytes_to_host /
			  (double)rep->host.items : pl->calib_host_bytes;
	rep->host_alone_qps = host_item_ns > 0 ? 1e9 / (host_item_ns * per_unit) : 0;
	rep->drives_only_qps = slowest > 0 ? 1e9 / slowest : 0;
	/* One baseline only: measured (the caller's, or @single's run), never
	 * estimated from the 16-query calibration (per-command costs make it
	 * undercount a drive's batching: docs/group.md, Scheduled mode). */
	rep->one_drive_qps = so && so->one_drive_qps > 0 ? so->one_drive_qps : one_drive_ups;
	rep->speedup_vs_host = rep->host_alone_qps > 0 ? rep->qps / rep->host_alone_qps : 0;
	rep->speedup_vs_one_drive = rep->one_drive_qps > 0 ? rep->qps / rep->one_drive_qps : 0;
	/* W * ns is nJ; nJ -> mJ is 1e-6. */
	rep->mj_per_query = (drive_nj + (double)rep->host.energy_nj) / units * 1e-6;
	rep->host_alone_mj_per_query = (rep->host_w * host_item_ns + nj_b * host_item_bytes) *
				       per_unit * 1e-6;
	rep->energy_saving = rep->host_alone_mj_per_query > 0 ?
			     1.0 - rep->mj_per_query / rep->host_alone_mj_per_query : 0;
	/* Table I's basis: the whole server, idle power included. */
	rep->server_w = REIS_GROUP_SERVER_IDLE_W + REIS_GROUP_DRIVE_IDLE_W * pl->g->n;
	rep->server_mj_per_query = rep->mj_per_query +
				   rep->server_w * (double)rep->makespan_ns / units * 1e-6;
	rep->server_host_alone_mj_per_query = rep->host_alone_mj_per_query +
		(rep->host_alone_qps > 0 ? rep->server_w * 1e9 / rep->host_alone_qps * 1e-6 : 0);
	rep->server_energy_saving = rep->server_host_alone_mj_per_query > 0 ?
		1.0 - rep->server_mj_per_query / rep->server_host_alone_mj_per_query : 0;
}

/* ---- the scheduler over model nodes (Solana's server as a model) ---- */

struct reis_pull_mctx {
	const struct reis_group_pull_model *m;
};

static int reis_pull_mrun(void *ctx, unsigned node, unsigned s, uint32_t lo, uint32_t n,
			  struct reis_group_node *acct, uint64_t *ns)
{
	const struct reis_group_pull_model *m = ((struct reis_pull_mctx *)ctx)->m;
	double rate = node == REIS_PULL_HOST ? m->host_ips : m->drive_ips;

	(void)s;
	(void)lo;
	*ns = (uint64_t)((double)n * 1e9 / rate + 0.5) + m->batch_ns;
	acct->batches++;
	acct->items += n;
	acct->busy_ns += *ns;
	return 0;
}

int reis_group_pull_model(const struct reis_group_pull_model *m,
			  const struct reis_group_sched_opts *so,
			  struct reis_group_sched_report *rep)
{
	struct reis_pull_mctx ctx = { m };
	struct reis_group *g;
	struct reis__pull pl;
	unsigned s;
	int ret;

	if (!m || !rep || !m->drives || m->drives > REIS_GROUP_MAX || m->rsvd || !m->items ||
	    (so && (so->flags & ~(REIS_GROUP_SCHED_NO_HOST | REIS_GROUP_SCHED_HOST_ONLY |
				  REIS_GROUP_SCHED_SHARED))) ||
	    m->items > (uint64_t)UINT32_MAX * m->drives || !(m->host_ips > 0) ||
	    !(m->drive_ips > 0) || (so && so->single))
		return -EINVAL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->n = m->drives;
	g->failed = -1;
	memset(rep, 0, sizeof(*rep));
	reis__pull_init(&pl, g, m->items, reis_pull_mrun, &ctx);
	pl.shared_ok = 1;
	for (s = 0; s < m->drives; s++)
		pl.nitems[s] = (uint32_t)(m->items / m->drives + (s < m->items % m->drives));
	ret = reis__pull_schedule(&pl, so, rep);
	if (!ret)
		reis__pull_account(&pl, so, 0, rep);
	free(g);
	return ret;
}
