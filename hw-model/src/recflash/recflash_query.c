/* SPDX-License-Identifier: MIT */
/*
 * recflash_query.c - RF_SLS: pool a batch of bags inside the drive
 * (RecFlash §III-A, §III-B; docs/command-set.md section 5): the command's
 * checks, its steps, the result and the counters the triggers read.
 */

/*
 * The plan and read-out are in recflash_readout.c, the cache walk in
 * recflash_cache.c. Data: the real rows are read from the store (fs_read)
 * into a buffer of distinct rows; bags are pooled in index order
 * (recflash_pool.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "isp_budget.h"
#include "recflash_int.h"

/* Header, offsets and weights of the command into @s (an aligned copy). */
static uint16_t rf_sls_parse(const uint8_t *data, size_t len, struct rf_sls_cmd *s,
			     struct isp_cpl *cpl)
{
	const uint32_t known = ISP_RF_SLS_WEIGHTED | ISP_RF_SLS_MEAN | ISP_RF_SLS_NO_CACHE;
	struct isp_wire_rf_sls *h = &s->h;
	uint64_t expect;
	uint32_t b;

	if (len < sizeof(*h))
		return isp_fail(cpl, ISP_BAD_FIELD, "SLS header missing");
	memcpy(h, data, sizeof(*h));
	if (!isp_all_zero(h->rsvd, sizeof(h->rsvd)))
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	if (h->flags & ~known)
		return isp_fail(cpl, ISP_BAD_FIELD, "unknown SLS flags");
	if (!h->nbags || h->nbags > ISP_RF_MAX_BAGS)
		return isp_fail(cpl, ISP_BAD_FIELD, "nbags out of range");
	if (h->nidx < h->nbags)
		return isp_fail(cpl, ISP_BAD_FIELD, "an empty bag");
	s->weighted = (h->flags & ISP_RF_SLS_WEIGHTED) != 0;
	s->mean = (h->flags & ISP_RF_SLS_MEAN) != 0;
	expect = sizeof(*h) + 4ull * (h->nbags + 1ull) + 4ull * h->nidx * (s->weighted ? 2u : 1u);
	if (len != expect)
		return isp_fail(cpl, ISP_BAD_FIELD,
				"data length does not match nbags, nidx and weights");
	/* The guest's buffer may be unaligned: take an aligned copy. */
	s->payload = malloc(len - sizeof(*h));
	if (!s->payload)
		return isp_fail(cpl, ISP_SC_INTERNAL, "out of memory");
	memcpy(s->payload, data + sizeof(*h), len - sizeof(*h));
	s->off = s->payload;
	s->idx = s->payload + h->nbags + 1;
	if (s->weighted)
		s->w = (const float *)(const void *)(s->idx + h->nidx);
	if (s->off[0] != 0 || s->off[h->nbags] != h->nidx)
		return isp_fail(cpl, ISP_BAD_FIELD, "offsets must start at 0 and end at nidx");
	for (b = 0; b < h->nbags; b++)
		if (s->off[b + 1] <= s->off[b])
			return isp_fail(cpl, ISP_BAD_FIELD,
					"offsets not ascending (or an empty bag)");
	return 0;
}

/* The READY table and its active mapping, pinned (refs, readers). */
static uint16_t rf_sls_acquire(struct rf_eng *e, struct rf_sls_cmd *s, struct isp_cpl *cpl)
{
	struct rf_table *t;
	uint16_t st = 0;

	pthread_mutex_lock(&e->lock);
	t = rf_find(e, s->h.tid);
	if (!t)
		st = isp_fail(cpl, ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR, "unknown table");
	else if (t->state != ISP_RF_READY)
		st = isp_fail(cpl, ISP_SC_BUSY | ISP_STATUS_DNR, "table is being deployed");
	else if (s->h.dim != t->dim)
		st = isp_fail(cpl, ISP_SC_DIM_MISMATCH | ISP_STATUS_DNR,
			      "dim differs from the table's");
	if (!st) {
		t->refs++;
		s->t = t;
		s->m = t->active;
		s->m->readers++;
	}
	pthread_mutex_unlock(&e->lock);
	return st;
}

static void rf_sls_release(struct rf_eng *e, struct rf_sls_cmd *s)
{
	pthread_mutex_lock(&e->lock);
	if (!--s->m->readers)
		pthread_cond_broadcast(&e->cond);
	s->t->refs--;
	pthread_mutex_unlock(&e->lock);
}

/* Indices in range, and the ticket's result slot reserved. */
static uint16_t rf_sls_reserve(struct isp_results *res, uint32_t ticket, uint32_t user,
			       const struct rf_sls_cmd *s, uint64_t rbytes, struct isp_cpl *cpl)
{
	uint32_t i;
	int ret;

	for (i = 0; i < s->h.nidx; i++)
		if (s->idx[i] >= s->t->rows)
			return isp_fail(cpl, ISP_BAD_FIELD, "row index out of range");
	if (rbytes > res->max_bytes)
		return isp_fail(cpl, ISP_BAD_FIELD, "result larger than max_result_bytes");
	ret = isp_results_reserve(res, ticket, rbytes, user);
	if (ret == -EEXIST)
		return isp_fail(cpl, ISP_SC_TICKET_IN_USE | ISP_STATUS_DNR, "ticket in use");
	if (ret == -EINVAL)
		return isp_fail(cpl, ISP_BAD_FIELD, "ticket 0");
	if (ret)
		return isp_fail(cpl, ISP_SC_RESOURCE, ret == -EAGAIN ?
				"the queue holds its share of the result table; retry" :
				"result table full");
	return 0;
}

/* Timing: command data in, mapping lookups, cache, flash, core, DRAM. */
static int rf_sls_time(struct rf_eng *e, struct isp_ctx *ctx, struct rf_sls_cmd *s,
		       size_t len)
{
	const struct rf_table *t = s->t;
	uint64_t t_in, t_map, t_core, cycles, dim = t->dim;
	int use_cache = t->mode == ISP_RF_RECFLASH && !(s->h.flags & ISP_RF_SLS_NO_CACHE) &&
			e->cache.nframes;
	int ret;

	t_in = isp_link_xfer(ctx, len, 0, ctx->ready);
	t_map = ft_dram(e->ft, &ctx->ftc, 4ull * s->h.nidx, t_in);
	if (t->mode == ISP_RF_RECFLASH)
		ft_dram(e->ft, &ctx->ftc, 8ull * s->h.nidx, t_map);	/* counters */
	if (use_cache) {
		s->need = calloc(s->nd, 1);
		if (!s->need)
			return -ENOMEM;
		rf_sls_cache(e, s);
	}
	ret = rf_sls_flash(e, ctx, s, t_map);
	if (ret)
		return ret;
	cycles = ft_cycles_sls(e->p, (uint64_t)s->h.nidx * dim +
			       (s->mean ? (uint64_t)s->h.nbags * dim : 0));
	t_core = ft_core(e->ft, &ctx->ftc, FT_CORE_ISP, cycles, "sls", t_map + s->run.flash_ps);
	ft_dram(e->ft, &ctx->ftc, 4ull * s->h.nbags * dim, t_core);	/* the result */
	return 0;
}

/* Pool every bag into @acc in index order; -errno of a failed read. */
static int rf_sls_pool(struct rf_eng *e, const struct isp_ctx *ctx,
		       const struct rf_sls_cmd *s, float *acc)
{
	const struct rf_table *t = s->t;
	uint32_t dim = t->dim, rb = t->row_bytes, b, i;
	int ret = 0;

	for (b = 0; b < s->h.nbags && !ret; b++) {
		float *o = acc + (size_t)b * dim;

		if (isp_ctx_cancelled(ctx))
			return -ECANCELED;	/* isp_dev_exec_cancel() */
		memset(o, 0, (size_t)dim * sizeof(*o));
		for (i = s->off[b]; i < s->off[b + 1]; i++) {
			const uint8_t *row;

			if (s->rowbuf) {
				row = s->rowbuf + (size_t)s->pos[i] * rb;
			} else {
				uint64_t ppa;

				ret = rf_area_ppa(e, s->m->area, s->slot[i] / t->rpp, &ppa);
				if (!ret)
					ret = fs_read(e->fs, ppa, (s->slot[i] % t->rpp) * rb,
						      s->span, rb);
				if (ret)
					break;
				row = s->span;
			}
			rf_acc_row(o, row, t->dtype, dim, e->h2f, s->weighted,
				   s->weighted ? s->w[i] : 1.0f);
		}
		rf_finish_bag(o, dim, s->off[b + 1] - s->off[b], s->mean);
	}
	return ret;
}

/* The result's headers at the front of @blob. */
static void rf_sls_result(const struct isp_ctx *ctx, const struct rf_sls_cmd *s,
			  uint32_t ticket, uint64_t rbytes, uint8_t *blob,
			  struct isp_wire_result_hdr *rh)
{
	const struct rf_sls_run *run = &s->run;
	struct isp_wire_rf_result rr;

	memset(&rr, 0, sizeof(rr));
	rr.nbags = s->h.nbags;
	rr.dim = s->t->dim;
	rr.generation = s->m->gen;
	rr.lookups = s->h.nidx;
	rr.page_reads = run->page_reads;
	rr.cache_hits = run->hits;
	rr.cache_misses = run->misses;
	rr.bytes_sensed = run->sensed;
	rr.bytes_useful = run->useful;
	rr.bytes_out = run->out;
	rr.flash_ns = (run->flash_ps + FT_PS_PER_NS - 1) / FT_PS_PER_NS;
	rr.flash_pj = run->flash_pj;
	memset(rh, 0, sizeof(*rh));
	memcpy(rh->magic, "RSLT", 4);
	rh->kind = ISP_RESULT_SLS;
	rh->total_bytes = rbytes;
	rh->ticket = ticket;
	rh->hdr_bytes = sizeof(rr);
	rh->model_ns = (ctx->ftc.end - ctx->ftc.start + FT_PS_PER_NS - 1) / FT_PS_PER_NS;
	rh->energy_pj = ctx->ftc.energy_pj;
	memcpy(blob, rh, sizeof(*rh));
	memcpy(blob + sizeof(*rh), &rr, sizeof(rr));
}

/* Table and device counters; the accesses feed the tracker of the
 * triggers and Algorithm 1 (RecFlash §III-C3/C4). */
static void rf_sls_account(struct rf_eng *e, const struct rf_sls_cmd *s,
			   const struct isp_wire_result_hdr *rh)
{
	struct rf_table *t = s->t;
	const struct rf_sls_run *run = &s->run;
	uint32_t i;

	pthread_mutex_lock(&t->tlock);
	t->st.sls_bags += s->h.nbags;
	t->st.lookups += s->h.nidx;
	t->st.page_reads += run->page_reads;
	t->st.cache_hits += run->hits;
	t->st.cache_misses += run->misses;
	t->st.bytes_sensed += run->sensed;
	t->st.bytes_useful += run->useful;
	t->st.bytes_out += run->out;
	t->st.model_ns += rh->model_ns;
	t->st.energy_pj += rh->energy_pj;
	if (t->mode == ISP_RF_RECFLASH) {
		for (i = 0; i < s->h.nidx; i++)
			rf_track_add(&t->track, s->idx[i], 1);
		t->bags_since += s->h.nbags;
	}
	pthread_mutex_unlock(&t->tlock);
	pthread_mutex_lock(&e->cnt_lock);
	e->hits += run->hits;
	e->misses += run->misses;
	e->bags += s->h.nbags;
	pthread_mutex_unlock(&e->cnt_lock);
}

static void rf_sls_free(struct rf_sls_cmd *s)
{
	free(s->payload);
	free(s->slot);
	free(s->ord);
	free(s->tmp);
	free(s->pos);
	free(s->ds);
	free(s->pg);
	free(s->pgi);
	free(s->need);
	free(s->rowbuf);
	free(s->span);
}

/*
 * The most this SLS's working buffers hold at once (recflash_readout.c):
 * the payload copy, five u32 arrays per index, per distinct row a page
 * entry, its index and cache flag, the staged rows up to RF_ROWBUF_MAX
 * plus a page, and the flash stage's op list and sort (rf_sls_flash()).
 */
static uint64_t rf_sls_budget_bytes(const struct rf_eng *e, const struct rf_sls_cmd *s,
				    size_t len)
{
	uint64_t nd = s->h.nidx < s->t->rows ? s->h.nidx : s->t->rows;
	uint64_t rows = nd * s->t->row_bytes;

	if (rows > RF_ROWBUF_MAX)	/* staged, or one row at a time */
		rows = RF_ROWBUF_MAX;
	return len + 20ull * s->h.nidx + nd * (sizeof(*s->pg) + sizeof(*s->pgi) + 1) + rows +
	       e->p->page_bytes + rf_sls_flash_bytes(s, nd);
}

uint16_t rf_sls(struct rf_eng *e, struct isp_ctx *ctx, uint32_t ticket,
		const uint8_t *data, size_t len, struct isp_cpl *cpl)
{
	struct isp_results *res = isp_ctx_results(ctx);
	struct isp_wire_result_hdr rh;
	struct rf_sls_cmd s;
	uint8_t *blob = NULL;
	uint64_t rbytes, budget = 0;
	int ret, reserved = 0;
	uint16_t st;

	memset(&s, 0, sizeof(s));
	st = rf_sls_parse(data, len, &s, cpl);
	if (!st)
		st = rf_sls_acquire(e, &s, cpl);
	if (st) {
		rf_sls_free(&s);
		return st;
	}
	rbytes = sizeof(rh) + sizeof(struct isp_wire_rf_result) + 4ull * s.h.nbags * s.t->dim;
	st = rf_sls_reserve(res, ticket, ctx->user, &s, rbytes, cpl);
	if (st)
		goto out;
	reserved = 1;
	budget = rf_sls_budget_bytes(e, &s, len);
	st = isp_budget_status(isp_ctx_budget_take(ctx, fs_buf_budget(e->fs), budget), cpl);
	if (st) {
		budget = 0;
		goto out;
	}

	ret = rf_sls_plan(e, ctx, &s);
	if (ret == -EIO) {
		st = isp_fail(cpl, ISP_SC_INTERNAL, "mapping points outside the table");
		goto out;
	}
	if (!ret) {
		blob = malloc(rbytes);
		ret = blob ? 0 : -ENOMEM;
	}
	if (!ret)
		ret = rf_sls_rows(e, ctx, &s);
	if (!ret)
		ret = rf_sls_time(e, ctx, &s, len);
	if (ret == -ENOMEM) {
		st = isp_fail(cpl, ISP_SC_INTERNAL, "out of memory");
		goto out;
	}
	if (!ret)
		ret = rf_sls_pool(e, ctx, &s, (float *)(void *)(blob + sizeof(rh) +
								sizeof(struct isp_wire_rf_result)));
	if (ret == -ECANCELED) {
		st = isp_fail(cpl, isp_status_from_errno(ret),
			      "stopped by the transport (reset, queue deletion or Abort)");
		goto out;
	}
	if (ret) {
		st = isp_fail(cpl, ISP_SC_INTERNAL, "flash read failed");
		goto out;
	}
	rf_sls_result(ctx, &s, ticket, rbytes, blob, &rh);
	ret = isp_results_publish(res, ticket, blob, rbytes, NULL, NULL, NULL);
	blob = NULL;
	reserved = 0;
	if (ret) {
		st = isp_fail(cpl, ISP_SC_INTERNAL, "result publish failed");
		goto out;
	}
	rf_sls_account(e, &s, &rh);
out:
	isp_ctx_budget_give(ctx, fs_buf_budget(e->fs), budget);
	if (reserved)
		isp_results_cancel(res, ticket);
	rf_sls_release(e, &s);
	rf_sls_free(&s);
	free(blob);
	return st;
}
