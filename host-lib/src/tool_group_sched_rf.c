/* SPDX-License-Identifier: MIT */
/*
 * tool_group_sched_rf.c - a sharded RecFlash SLS run by the pull scheduler
 * (tool_group_pull.c): the work items are the members' pieces (their
 * partial sums of bags); a drive pools its own pieces, the host pools
 * pieces the conventional way (the rows they need read from the member's
 * namespace with block reads, tool_group_ns.c, then reis_rf_sls_ref() on
 * the CPU, the drive's accumulation bit for bit), and the host combines
 * them as in the sharded SLS (docs/group.md, Scheduled).
 */
#include <errno.h>
#include <stdio.h>
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
	uint32_t *sorted;	/* scratch: one range's rows, sorted */
	struct reis__gns_obj obj[REIS_GROUP_MAX];	/* the host's copies */
};

static int reis_srf_u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Read the rows @b pools from member @s's namespace copy: each distinct
 * row once, neighbouring rows (sharing LBAs) in one read. */
static int reis_srf_fetch(struct reis_srf *c, unsigned s, const struct reis_rf_bags *b)
{
	struct reis__gns_obj *o = &c->obj[s];
	uint64_t lba = o->ng.lba_bytes, base = o->arr[0].off, lo = 0, hi = 0;
	uint32_t i;
	int ret = 0;

	if (!o->buf) {
		ret = reis__gns_rf_open(c->g, s, c->t, (uint32_t)c->row_bytes,
					(uint32_t)((uint64_t)c->t->rows * s / c->g->n),
					reis_group_rf_rows(c->t->rows, s, c->g->n), o);
		if (ret)
			return reis__group_fail(c->g, (int)s, ret, "no host copy of table %u's rows "
						"on its namespace: %s", c->t->tid, ret == -EBADMSG ?
						"malformed" : reis_strerror(ret));
		lba = o->ng.lba_bytes;
		base = o->arr[0].off;
	}
	memcpy(c->sorted, b->indices, (size_t)b->nidx * sizeof(*c->sorted));
	qsort(c->sorted, b->nidx, sizeof(*c->sorted), reis_srf_u32_cmp);
	for (i = 0; !ret && i < b->nidx; i++) {
		uint64_t a = base + (uint64_t)c->sorted[i] * c->row_bytes;
		uint64_t e = a + c->row_bytes;

		if ((uint64_t)c->sorted[i] * c->row_bytes >= o->arr[0].len)
			return -ERANGE;
		a = a / lba * lba;
		if (hi && a <= hi) {
			if (e > hi)
				hi = e;
			continue;
		}
		if (hi)
			ret = reis__gns_fetch(o, lo, hi);
		lo = a;
		hi = e;
	}
	return ret || !hi ? ret : reis__gns_fetch(o, lo, hi);
}

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

/* A drive's scheduled SLS batch with its own copy of the bags. */
struct reis_srf_batch {
	struct reis_rf_bags b;
	uint32_t tid, dim, flags;
	float *out;
	struct reis_rf_sls_info in;
	char msg[REIS_MSG_LEN + 256];
};

static void reis_srf_batch_late_free(struct reis_srf_batch *x)
{
	free((void *)x->b.offsets);
	free((void *)x->b.indices);
	free((void *)x->b.weights);
	free(x->out);
}

static int reis_srf_batch_make(struct reis_srf_batch *x, const struct reis_srf *c,
			       const struct reis_rf_bags *b)
{
	uint32_t *offs = malloc(((size_t)b->nbags + 1) * sizeof(*offs));
	uint32_t *idx = malloc(((size_t)b->nidx + 1) * sizeof(*idx));
	float *w = b->weights ? malloc(((size_t)b->nidx + 1) * sizeof(*w)) : NULL;

	memset(x, 0, sizeof(*x));
	x->out = malloc(((size_t)b->nbags * c->t->dim + 1) * sizeof(float));
	x->b = *b;
	x->b.offsets = offs;
	x->b.indices = idx;
	x->b.weights = w;
	if (!offs || !idx || (b->weights && !w) || !x->out) {
		reis_srf_batch_late_free(x);
		return -ENOMEM;
	}
	memcpy(offs, b->offsets, ((size_t)b->nbags + 1) * sizeof(*offs));
	memcpy(idx, b->indices, (size_t)b->nidx * sizeof(*idx));
	if (w)
		memcpy(w, b->weights, (size_t)b->nidx * sizeof(*w));
	x->tid = c->t->tid;
	x->dim = c->t->dim;
	x->flags = c->dflags;
	return 0;
}

static int reis_srf_batch_one(struct reis__gcall *c)
{
	struct reis_srf_batch *x = c->ctx;
	int ret = reis_rf_sls(c->dev, x->tid, x->dim, &x->b, x->flags, x->out, &x->in);

	if (ret)
		snprintf(x->msg, sizeof(x->msg), "%s", reis_last_error(c->dev));
	return ret;
}

/* Given up on: its copy goes when it returns. */
static void reis_srf_batch_late(struct reis__gcall *c)
{
	reis_srf_batch_late_free(c->ctx);
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
		const struct reis_info *in = reis_dev_info(c->g->dev[s]);
		struct reis__gns_obj *o = &c->obj[s];
		uint64_t b0 = o->bytes, r0 = o->read_ns, t0, bytes;

		ret = reis_srf_fetch(c, s, &b);
		if (ret)
			return c->g->failed >= 0 ? ret :
			       reis__group_fail(c->g, (int)s, ret, "block reads of rows: %s",
						reis_last_error(c->g->dev[s]));
		bytes = o->bytes - b0;
		t0 = reis__group_now_ns();
		ret = reis_rf_sls_ref(c->t->dtype, reis_group_rf_rows(c->t->rows, s, c->g->n),
				      c->t->dim, o->buf + o->arr[0].off, &b, c->dflags, out);
		if (ret)
			return reis__group_fail(c->g, -1, ret, "host SLS: %s", reis_strerror(ret));
		/* Its compute time plus the block reads over that drive's link
		 * (modeled on the timeline, like the drives' times). */
		*ns = reis__group_now_ns() - t0 + (in && in->link_mbps ? bytes * 1000 /
						   in->link_mbps : 0);
		acct->bytes_to_host += bytes;
		acct->read_ns += o->read_ns - r0;
	} else {
		struct reis_srf_batch x[REIS_GROUP_MAX];
		int rets[REIS_GROUP_MAX] = { 0 };
		struct reis_rf_sls_info in;

		/* The drive's batch under the group's timeout (tool_group_call.c),
		 * on its own copy of the batch: a late one outlives this call. */
		ret = reis_srf_batch_make(&x[s], c, &b);
		if (ret)
			return reis__group_fail(c->g, -1, ret, "out of memory");
		reis__group_call(c->g, 1ull << s, reis_srf_batch_one, reis_srf_batch_late, x,
				 sizeof(x[0]), rets);
		ret = rets[s];
		if (ret != -ETIMEDOUT) {
			if (!ret)
				memcpy(out, x[s].out, (size_t)n * c->t->dim * sizeof(float));
			in = x[s].in;
			reis_srf_batch_late_free(&x[s]);
		}
		if (ret == -ETIMEDOUT)
			return reis__group_fail(c->g, (int)s, ret, "scheduled SLS batch: no "
						"completion within %d ms (the group's timeout)",
						c->g->timeout_ms);
		if (ret)
			return reis__group_fail(c->g, (int)s, ret, "SLS on table %u: %s", c->t->tid,
						x[s].msg[0] ? x[s].msg : reis_strerror(ret));
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

	if (!g || !t || !bags || !out || !rep)
		return -EINVAL;
	memset(rep, 0, sizeof(*rep));
	ret = reis__group_ok(g);
	if (ret)
		return ret;
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
	c.sorted = malloc(((size_t)bags->nidx + 1) * sizeof(*c.sorted));
	ret = c.offs && c.sorted ? reis__grf_plan_make(&c.plan, t->rows, bags, t->dim,
					   !!(flags & REIS_GROUP_SLS_EXACT),
					   !!(flags & REIS_RF_SLS_WEIGHTED)) : -ENOMEM;
	reis__pull_init(&pl, g, bags->nbags, reis_srf_run, &c);
	for (s = 0; s < g->n; s++)
		pl.nitems[s] = c.plan.part[s].nbags;
	if (!ret && so && so->single && !(so->one_drive_qps > 0))
		one = reis_srf_single(so->single, t, bags, flags & ~REIS_GROUP_SLS_EXACT);
	if (!ret)
		ret = reis__pull_schedule(&pl, so, rep);
	if (!ret) {
		reis__grf_combine(&c.plan, bags, t->dim, !!(flags & REIS_RF_SLS_MEAN), out);
		reis__pull_account(&pl, so, one, rep);
	}
	reis__grf_plan_free(&c.plan);
	free(c.offs);
	free(c.sorted);
	for (s = 0; s < g->n; s++)
		reis__gns_close(&c.obj[s]);
	return ret == -ENOMEM ? reis__group_fail(g, -1, ret, "out of memory") : ret;
}
