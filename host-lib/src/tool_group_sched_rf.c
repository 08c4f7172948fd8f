/* SPDX-License-Identifier: MIT */
/*
 * tool_group_sched_rf.c - a sharded RecFlash SLS run by the pull scheduler
 * (tool_group_pull.c): the work items are the members' pieces (their
 * partial sums of bags); a drive pools its own pieces, the host pools
 * pieces the conventional way (the rows read to the host, reis_rf_sls_ref()
 * on the CPU, the drive's accumulation bit for bit), and the host combines
 * them as in the sharded SLS (docs/group.md, Scheduled).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libreis_tools.h"
#include "tool_group_priv.h"

struct reis_srf {
	struct reis_group *g;
	const struct reis_rf_table *t;
	struct reis_grf_plan plan;
	uint32_t dflags;
	int row_bytes;
	uint32_t *offs;		/* scratch: one range's offsets from 0 */
};

/* Pieces [lo, lo+n) of member @s as a batch of its own. */
static void reis_srf_range(struct reis_srf *c, unsigned s, uint32_t lo, uint32_t n,
			   struct reis_rf_bags *b)
{
	const struct reis_grf_part *p = &c->plan.part[s];
	uint32_t i, base = p->offsets[lo];

	for (i = 0; i <= n; i++)
		c->offs[i] = p->offsets[lo + i] - base;
	b->nbags = n;
	b->nidx = c->offs[n];
	b->offsets = c->offs;
	b->indices = p->indices + base;
	b->weights = p->weights ? p->weights + base : NULL;
}

static int reis_srf_run(void *ctx, unsigned node, unsigned s, uint32_t lo, uint32_t n,
			struct reis_group_node *acct, uint64_t *ns)
{
	struct reis_srf *c = ctx;
	float *out = c->plan.part[s].out + (size_t)lo * c->t->dim;
	struct reis_rf_bags b;
	int ret;

	reis_srf_range(c, s, lo, n, &b);
	if (node == REIS_PULL_HOST) {
		uint32_t first = (uint32_t)((uint64_t)c->t->rows * s / c->g->n);
		const uint8_t *rows = (const uint8_t *)c->t->data + (size_t)first * c->row_bytes;
		const struct reis_info *in = reis_dev_info(c->g->dev[s]);
		uint64_t t0 = reis__group_now_ns(), bytes = (uint64_t)b.nidx * c->row_bytes;

		ret = reis_rf_sls_ref(c->t->dtype, reis_group_rf_rows(c->t->rows, s, c->g->n),
				      c->t->dim, rows, &b, c->dflags, out);
		if (ret)
			return reis__group_fail(c->g, -1, ret, "host SLS: %s", reis_strerror(ret));
		/* Block reads of the rows it needs, over that drive's link. */
		*ns = reis__group_now_ns() - t0 + (in && in->link_mbps ? bytes * 1000 /
						   in->link_mbps : 0);
		acct->bytes_to_host += bytes;
	} else {
		struct reis_rf_sls_info in;

		ret = reis_rf_sls(c->g->dev[s], c->t->tid, c->t->dim, &b, c->dflags, out, &in);
		if (ret)
			return reis__group_fail(c->g, (int)s, ret, "SLS on table %u: %s", c->t->tid,
						reis_last_error(c->g->dev[s]));
		*ns = in.cmd_ns;
		acct->bytes_inside += in.bytes_sensed;
		acct->energy_nj += in.energy_pj / 1000;
	}
	acct->batches++;
	acct->items += n;
	acct->busy_ns += *ns;
	return 0;
}

/* Bags per second of one drive holding the whole table (the baseline). */
static double reis_srf_single(struct reis_dev *one, const struct reis_rf_table *t,
			      const struct reis_rf_bags *bags, uint32_t flags)
{
	float *out = malloc((size_t)bags->nbags * t->dim * sizeof(float));
	struct reis_rf_sls_info in;
	double ups = 0;

	if (out && !reis_rf_sls(one, t->tid, t->dim, bags, flags, out, &in) && in.cmd_ns)
		ups = bags->nbags * 1e9 / (double)in.cmd_ns;
	free(out);
	return ups;
}

int reis_group_sched_sls(struct reis_group *g, const struct reis_rf_table *t,
			 const struct reis_rf_bags *bags, uint32_t flags,
			 const struct reis_group_sched_opts *so, float *out,
			 struct reis_group_sched_report *rep)
{
	const char *why = NULL;
	struct reis__pull pl;
	struct reis_srf c;
	double one = 0;
	unsigned s;
	int ret;

	if (!g || !t || !t->data || !bags || !out || !rep)
		return -EINVAL;
	reis__group_ok(g);
	memset(rep, 0, sizeof(*rep));
	memset(&c, 0, sizeof(c));
	c.g = g;
	c.t = t;
	c.row_bytes = reis_rf_row_bytes(t->dtype, t->dim);
	c.dflags = flags & (REIS_RF_SLS_WEIGHTED | REIS_RF_SLS_NO_CACHE);
	ret = c.row_bytes < 0 ? c.row_bytes :
	      reis_rf_bags_check(bags, flags & (REIS_RF_SLS_WEIGHTED | REIS_RF_SLS_MEAN |
						REIS_RF_SLS_NO_CACHE), t->rows, &why);
	if (ret || t->rows < g->n)
		return reis__group_fail(g, -1, ret ? ret : -EINVAL, "batch or table: %s",
					why ? why : "fewer rows than drives");
	c.plan.nm = g->n;
	c.offs = malloc(((size_t)bags->nidx + 1) * sizeof(*c.offs));	/* pieces <= nidx */
	ret = c.offs ? reis__grf_plan_make(&c.plan, t->rows, bags, t->dim,
					   !!(flags & REIS_GROUP_SLS_EXACT),
					   !!(flags & REIS_RF_SLS_WEIGHTED)) : -ENOMEM;
	reis__pull_init(&pl, g, bags->nbags, reis_srf_run, &c);
	for (s = 0; s < g->n; s++)
		pl.nitems[s] = c.plan.part[s].nbags;
	if (!ret && so && so->single)
		one = reis_srf_single(so->single, t, bags, flags & ~REIS_GROUP_SLS_EXACT);
	if (!ret)
		ret = reis__pull_schedule(&pl, so, rep);
	if (!ret) {
		reis__grf_combine(&c.plan, bags, t->dim, !!(flags & REIS_RF_SLS_MEAN), out);
		reis__pull_account(&pl, so, one, rep);
	}
	reis__grf_plan_free(&c.plan);
	free(c.offs);
	return ret == -ENOMEM ? reis__group_fail(g, -1, ret, "out of memory") : ret;
}
