/* SPDX-License-Identifier: MIT */
/*
 * tool_group_rf.c - one RecFlash embedding table sharded by rows over a
 * device group: contiguous balanced row ranges, the all-or-nothing deploy,
 * and the sharded SLS whose per-member partial sums the host combines
 * (docs/group.md, Combine; RecFlash §III-A pooling, command-set.md §5
 * accumulation rules).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libreis_tools.h"
#include "tool_group_priv.h"

static uint32_t reis_grf_lo(uint32_t rows, unsigned s, unsigned nm)
{
	return (uint32_t)((uint64_t)rows * s / nm);
}

uint32_t reis_group_rf_rows(uint32_t rows, unsigned s, unsigned nm)
{
	if (!nm || s >= nm)
		return 0;
	return reis_grf_lo(rows, s + 1, nm) - reis_grf_lo(rows, s, nm);
}

unsigned reis_group_rf_owner(uint32_t rows, unsigned nm, uint32_t row, uint32_t *local)
{
	unsigned s;

	if (!nm || !rows)
		return 0;
	s = (unsigned)(((uint64_t)row * nm) / rows);
	if (s >= nm)
		s = nm - 1;
	while (s + 1 < nm && reis_grf_lo(rows, s + 1, nm) <= row)
		s++;
	while (s > 0 && reis_grf_lo(rows, s, nm) > row)
		s--;
	if (local)
		*local = row - reis_grf_lo(rows, s, nm);
	return s;
}

/* One member's row range of a sharded deploy, on its own thread. */
struct reis_grfd_ctx {
	struct reis_rf_table ts;	/* rows point into the caller's table */
	struct reis_rf_deploy_opts o;
	struct reis__gcall *c;
	reis_progress_fn progress;	/* the caller's */
	void *progress_arg;
	uint32_t lo;
	uint32_t rb;
	int ns_failed;
	char msg[REIS_MSG_LEN + 256];
};

static void reis_grfd_progress(void *arg, uint64_t done, uint64_t total)
{
	struct reis_grfd_ctx *x = arg;

	reis__gcall_beat(x->c);
	reis__gcall_progress(x->progress, x->progress_arg, done, total);
}

static int reis_grfd_one(struct reis__gcall *c)
{
	struct reis_grfd_ctx *x = c->ctx;
	int ret;

	x->c = c;
	x->o.progress = reis_grfd_progress;
	x->o.progress_arg = x;
	ret = reis_rf_deploy(c->dev, &x->ts, &x->o);
	if (ret) {
		snprintf(x->msg, sizeof(x->msg), "%s", reis_last_error(c->dev));
		return ret;
	}
	reis__gcall_beat(c);
	/* The host's copy of the rows, for the scheduled mode. */
	ret = reis__gns_rf_put(c->g, c->s, &x->ts, x->lo, x->rb);
	if (ret) {
		x->ns_failed = 1;
		snprintf(x->msg, sizeof(x->msg), "%s", ret == -ENOSPC ? "namespace full" :
			 reis_last_error(c->dev));
		reis_rf_delete(c->dev, x->ts.tid);
	}
	return ret;
}

/* A member given up on: once its deploy returns, its rows go again. */
static void reis_grfd_late(struct reis__gcall *c)
{
	struct reis_grfd_ctx *x = c->ctx;

	if (c->ret)
		return;
	reis_rf_delete(c->dev, x->ts.tid);
	reis__gns_del(c->g, c->s, REIS_GNS_KIND_RF, x->ts.tid);
}

int reis_group_rf_deploy(struct reis_group *g, const struct reis_rf_table *t,
			 struct reis_rf_deploy_opts *opts)
{
	struct reis_rf_deploy_opts sum;
	struct reis_grfd_ctx *x;
	int rets[REIS_GROUP_MAX];
	int rb, ret = 0;
	unsigned s, bad = 0;

	if (!g || !t || !t->data)
		return -EINVAL;
	ret = reis__group_ok(g);
	if (ret)
		return ret;
	rb = reis_rf_row_bytes(t->dtype, t->dim);
	if (rb < 0)
		return reis__group_fail(g, -1, rb, "bad dtype or dim");
	if (t->rows < g->n)
		return reis__group_fail(g, -1, -EINVAL, "%u rows cannot be sharded over %u drives",
					t->rows, g->n);
	x = calloc(g->n, sizeof(*x));
	if (!x)
		return -ENOMEM;
	for (s = 0; s < g->n; s++) {
		uint32_t lo = reis_grf_lo(t->rows, s, g->n);

		if (opts) {
			x[s].o.depth = opts->depth;
			x[s].o.chunk = opts->chunk;
			x[s].progress = opts->progress;
			x[s].progress_arg = opts->progress_arg;
		}
		x[s].ts = *t;
		x[s].ts.rows = reis_group_rf_rows(t->rows, s, g->n);
		x[s].ts.data = (const uint8_t *)t->data + (size_t)lo * (size_t)rb;
		x[s].ts.profile = t->profile ? t->profile + lo : NULL;
		x[s].lo = lo;
		x[s].rb = (uint32_t)rb;
	}
	/* Every member deploys at once, each under the group's timeout. */
	reis__group_call(g, g->n >= 64 ? ~0ull : (1ull << g->n) - 1, reis_grfd_one,
			 reis_grfd_late, x, sizeof(*x), rets);
	memset(&sum, 0, sizeof(sum));
	ret = 0;
	for (s = 0; s < g->n; s++) {
		if (rets[s]) {
			if (!ret) {
				bad = s;
				ret = rets[s];
			}
			continue;
		}
		sum.time_ns += x[s].o.time_ns;
		sum.energy_nj += x[s].o.energy_nj;
		sum.bytes += x[s].o.bytes;
		sum.ncmds += x[s].o.ncmds;
	}
	if (ret) {
		uint32_t lo = x[bad].lo, hi = x[bad].lo + x[bad].ts.rows - 1;

		if (ret == -ETIMEDOUT)
			reis__group_fail(g, (int)bad, ret, "deploy of rows %u..%u: no progress "
					 "within %d ms (the group's timeout); its rows are deleted "
					 "when its deploy returns", lo, hi, g->timeout_ms);
		else if (x[bad].ns_failed)
			reis__group_fail(g, (int)bad, ret, "rows %u..%u to the namespace: %s", lo,
					 hi, x[bad].msg);
		else
			reis__group_fail(g, (int)bad, ret, "deploy of rows %u..%u: %s", lo, hi,
					 x[bad].msg[0] ? x[bad].msg : reis_strerror(ret));
		/* All or nothing: drop the slices the other members took. */
		for (s = 0; s < g->n; s++)
			if (!rets[s]) {
				reis_rf_delete(g->dev[s], t->tid);
				reis__gns_del(g, s, REIS_GNS_KIND_RF, t->tid);
			}
		free(x);
		return ret;
	}
	free(x);
	if (opts) {
		opts->time_ns = sum.time_ns;
		opts->energy_nj = sum.energy_nj;
		opts->bytes = sum.bytes;
		opts->ncmds = sum.ncmds;
	}
	return 0;
}

int reis_group_rf_delete(struct reis_group *g, uint32_t tid)
{
	int ret = reis__group_delete(g, tid, reis_rf_delete);
	unsigned s;

	for (s = 0; g && s < g->n; s++)
		reis__gns_del(g, s, REIS_GNS_KIND_RF, tid);	/* -ENOENT: none */
	return ret;
}

void reis__grf_plan_free(struct reis_grf_plan *pl)
{
	unsigned s;

	for (s = 0; s < pl->nm; s++) {
		free(pl->part[s].offsets);
		free(pl->part[s].indices);
		free(pl->part[s].weights);
		free(pl->part[s].out);
	}
	free(pl->piece);
	free(pl->bag_piece);
}

/*
 * Cut every bag into pieces. Default: one piece per member, in the order
 * of the member's first row in the bag. EXACT: the leading run on one
 * member, then one piece per later row, so the host adds in bag order.
 */
/*
 * One pass over the bags: with @fill 0 it only counts each member's rows
 * and pieces (so every array is sized to its member's share), with 1 it
 * writes them.
 */
static void reis_grf_plan_pass(struct reis_grf_plan *pl, uint32_t rows,
			       const struct reis_rf_bags *b, int exact, int fill)
{
	uint32_t bag, i, s, first[REIS_GROUP_MAX];
	unsigned nm = pl->nm;

	for (bag = 0; bag < b->nbags; bag++) {
		uint32_t lo = b->offsets[bag], hi = b->offsets[bag + 1], lead = lo;
		unsigned o0 = reis_group_rf_owner(rows, nm, b->indices[lo], NULL);

		if (fill)
			pl->bag_piece[bag] = pl->npieces;
		if (exact)
			while (lead < hi && reis_group_rf_owner(rows, nm, b->indices[lead], NULL) == o0)
				lead++;
		for (s = 0; s < nm; s++)
			first[s] = UINT32_MAX;
		for (i = lo; i < hi; i++) {
			uint32_t local;
			unsigned m = reis_group_rf_owner(rows, nm, b->indices[i], &local);
			struct reis_grf_part *p = &pl->part[m];
			int newpiece = exact ? (i == lo || i >= lead) : first[m] == UINT32_MAX;

			if (newpiece) {
				first[m] = p->nbags;
				if (fill) {
					p->offsets[p->nbags] = p->nidx;
					pl->piece[pl->npieces].member = m;
					pl->piece[pl->npieces].bag = p->nbags;
				}
				p->nbags++;
				pl->npieces++;
			}
			if (fill && p->weights)
				p->weights[p->nidx] = b->weights[i];
			if (fill)
				p->indices[p->nidx] = local;
			p->nidx++;
		}
	}
	if (fill)
		pl->bag_piece[b->nbags] = pl->npieces;
}

int reis__grf_plan_make(struct reis_grf_plan *pl, uint32_t rows, const struct reis_rf_bags *b,
			uint32_t dim, int exact, int weighted)
{
	unsigned s;

	reis_grf_plan_pass(pl, rows, b, exact, 0);
	pl->piece = malloc((size_t)pl->npieces * sizeof(*pl->piece));
	pl->bag_piece = malloc(((size_t)b->nbags + 1) * sizeof(*pl->bag_piece));
	if (!pl->piece || !pl->bag_piece)
		return -ENOMEM;
	for (s = 0; s < pl->nm; s++) {
		struct reis_grf_part *p = &pl->part[s];

		p->offsets = malloc(((size_t)p->nbags + 1) * sizeof(*p->offsets));
		p->indices = malloc(((size_t)p->nidx + 1) * sizeof(*p->indices));
		p->weights = weighted ? malloc(((size_t)p->nidx + 1) * sizeof(float)) : NULL;
		p->out = malloc(((size_t)p->nbags * dim + 1) * sizeof(float));
		if (!p->offsets || !p->indices || (weighted && !p->weights) || !p->out)
			return -ENOMEM;
		p->offsets[p->nbags] = p->nidx;
		p->nbags = 0;
		p->nidx = 0;
	}
	pl->npieces = 0;
	reis_grf_plan_pass(pl, rows, b, exact, 1);
	return 0;
}

static int reis_grf_all_done(const void *arg)
{
	const struct reis_grf_plan *pl = arg;
	unsigned s;

	for (s = 0; s < pl->nm; s++)
		if (pl->part[s].nbags && pl->part[s].op.state == 1)
			return 0;
	return 1;
}

static int reis_grf_late_busy(void *mem, unsigned n)
{
	(void)n;
	return !reis_grf_all_done(mem);
}

static void reis_grf_late_release(void *mem, unsigned n)
{
	(void)n;
	reis__grf_plan_free(mem);
	free(mem);
}

/* Every member's sub-batch in flight at once; reap on all of them. Returns
 * the members given up on (timeout): their ops fail with -ETIMEDOUT. */
static uint64_t reis_grf_run(struct reis_group *g, struct reis_grf_plan *pl, uint32_t tid,
			 uint32_t dim, uint32_t flags)
{
	uint64_t late;
	unsigned s;

	for (s = 0; s < pl->nm; s++) {
		struct reis_grf_part *p = &pl->part[s];
		struct reis_rf_bags sb;

		if (!p->nbags)
			continue;
		sb.nbags = p->nbags;
		sb.nidx = p->nidx;
		sb.offsets = p->offsets;
		sb.indices = p->indices;
		sb.weights = p->weights;
		reis_rf_sls_op_init(&p->op, tid, dim, &sb, flags, p->out);
		for (;;) {
			int ret = reis_rf_sls_submit(g->dev[s], &p->op);

			if (ret != -EBUSY || !reis_inflight(g->dev[s])) {
				if (ret) {
					p->op.err = ret;
					p->op.state = 2;
				}
				break;
			}
			reis_wait(g->dev[s], 1, -1);
		}
	}
	late = reis__group_reap(g, reis_grf_all_done, pl);
	for (s = 0; s < pl->nm; s++)
		if ((late >> s & 1) && pl->part[s].nbags && pl->part[s].op.state == 1)
			pl->part[s].op.err = -ETIMEDOUT;	/* still in flight */
	return late;
}

/* acc + piece, element by element, as the drive's accumulator adds. */
void reis__grf_combine(const struct reis_grf_plan *pl, const struct reis_rf_bags *b,
			     uint32_t dim, int mean, float *out)
{
	uint32_t bag, j, d;

	for (bag = 0; bag < b->nbags; bag++) {
		float *acc = out + (size_t)bag * dim;

		memset(acc, 0, (size_t)dim * sizeof(*acc));
		for (j = pl->bag_piece[bag]; j < pl->bag_piece[bag + 1]; j++) {
			const struct reis_grf_piece *pc = &pl->piece[j];
			const float *v = pl->part[pc->member].out + (size_t)pc->bag * dim;

			for (d = 0; d < dim; d++)
				acc[d] = acc[d] + v[d];
		}
		if (mean) {
			float cnt = (float)(b->offsets[bag + 1] - b->offsets[bag]);

			for (d = 0; d < dim; d++)
				acc[d] = acc[d] / cnt;
		}
	}
}

static void reis_grf_account(const struct reis_grf_plan *pl, uint32_t dim,
			     struct reis_group_sls_info *info)
{
	unsigned s;

	info->nmembers = pl->nm;
	info->pieces = pl->npieces;
	info->bytes_to_host = (uint64_t)pl->npieces * dim * sizeof(float);
	for (s = 0; s < pl->nm; s++) {
		const struct reis_rf_sls_info *mi = &pl->part[s].op.info;

		if (!pl->part[s].nbags)
			continue;
		info->member[s] = *mi;
		if (mi->model_ns > info->model_ns)
			info->model_ns = mi->model_ns;
		info->energy_pj += mi->energy_pj;
	}
}

int reis_group_rf_sls(struct reis_group *g, uint32_t tid, uint32_t rows, uint32_t dim,
		      const struct reis_rf_bags *bags, uint32_t flags, float *out,
		      struct reis_group_sls_info *info)
{
	uint32_t dflags = flags & (REIS_RF_SLS_WEIGHTED | REIS_RF_SLS_NO_CACHE);
	struct reis_grf_plan *pp;
	uint64_t t0 = reis__group_now_ns(), t1, late;
	const char *why = NULL;
	unsigned s;
	int ret;

	if (!g || !bags || !out || !dim || dim > REIS_RF_MAX_DIM)
		return -EINVAL;
	if (info)
		memset(info, 0, sizeof(*info));
	ret = reis__group_ok(g);
	if (ret)
		return ret;
	ret = reis_rf_bags_check(bags, flags & (REIS_RF_SLS_WEIGHTED | REIS_RF_SLS_MEAN |
						REIS_RF_SLS_NO_CACHE), rows, &why);
	if (ret)
		return reis__group_fail(g, -1, ret, "batch: %s", why ? why : "malformed");
	if (rows < g->n)
		return reis__group_fail(g, -1, -EINVAL, "%u rows over %u drives", rows, g->n);
	/* On the heap: a member given up on keeps completing into it. */
	pp = calloc(1, sizeof(*pp));
	if (!pp)
		return reis__group_fail(g, -1, -ENOMEM, "out of memory");
	pp->nm = g->n;
	ret = reis__grf_plan_make(pp, rows, bags, dim, !!(flags & REIS_GROUP_SLS_EXACT),
				  !!(flags & REIS_RF_SLS_WEIGHTED));
	if (ret) {
		reis__grf_plan_free(pp);
		free(pp);
		return reis__group_fail(g, -1, ret, "out of memory");
	}
	/* MEAN is the host's: a member's piece is a partial sum. */
	late = reis_grf_run(g, pp, tid, dim, dflags);
	for (s = 0; s < pp->nm; s++)
		if (pp->part[s].nbags && pp->part[s].op.err && !ret)
			ret = reis__group_fail(g, (int)s, pp->part[s].op.err, "SLS on table %u: %s",
					       tid, pp->part[s].op.err == -ETIMEDOUT ?
					       "no completion within the group's timeout; its late "
					       "commands are reaped later" :
					       reis_strerror(pp->part[s].op.err));
	if (!ret) {
		t1 = reis__group_now_ns();
		reis__grf_combine(pp, bags, dim, !!(flags & REIS_RF_SLS_MEAN), out);
		if (info)
			info->combine_ns = reis__group_now_ns() - t1;
	}
	if (info) {
		reis_grf_account(pp, dim, info);
		info->host_ns = reis__group_now_ns() - t0;
	}
	if (late && !reis_grf_all_done(pp) &&
	    !reis__group_adopt_orphan(g, pp, 1, reis_grf_late_busy, reis_grf_late_release))
		return ret;	/* the group frees it when its late ops are done */
	if (!reis_grf_all_done(pp)) {
		/* No memory to hand it over: wait for it after all. */
		int tmo = g->timeout_ms;

		g->timeout_ms = -1;
		reis__group_reap(g, reis_grf_all_done, pp);
		g->timeout_ms = tmo;
	}
	reis__grf_plan_free(pp);
	free(pp);
	return ret;
}
