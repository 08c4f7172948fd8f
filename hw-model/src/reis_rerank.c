/* SPDX-License-Identifier: MIT */
/*
 * reis_rerank.c - the final ranking of one query's candidates (REIS
 * §4.3.2, §4.2): the INT8 rerank reads each candidate's INT8 code through
 * its RADR, rescores it against the INT8 query and quicksorts; without
 * rerank the candidates keep their Hamming order.
 */
#include <errno.h>
#include <stdlib.h>

#include "reis_int.h"

/* Best score first (highest for inner product), then Hamming order. */
static int re_rk_cmp(const void *a, const void *b)
{
	const struct re_rk *x = a, *y = b;

	if (x->score != y->score) {
		if (x->metric == ISP_REIS_IP)
			return x->score > y->score ? -1 : 1;
		return x->score < y->score ? -1 : 1;
	}
	return x->key < y->key ? -1 : x->key > y->key;
}

static int64_t re_score(uint32_t metric, const int8_t *q, const int8_t *x, uint32_t dim)
{
	int64_t s = 0;
	uint32_t d;

	if (metric == ISP_REIS_IP) {
		for (d = 0; d < dim; d++)
			s += (int32_t)q[d] * x[d];
	} else {
		for (d = 0; d < dim; d++) {
			int32_t v = (int32_t)q[d] - x[d];

			s += v * v;
		}
	}
	return s;
}

/* INT8 rerank of r->top.v[0..m): RADR reads, rescoring, quicksort. */
static int re_rerank(struct re_run *r, struct re_db *db, const int8_t *q8, uint32_t m,
		     uint64_t *t)
{
	struct re_eng *e = r->e;
	const struct re_layout *L = &db->L;
	struct ft_cmd *cmd = r->c.cmd;
	size_t npc;
	uint32_t i;

	for (i = 0; i < m; i++) {
		uint32_t radr = r->top.v[i].radr, slot, rel;
		uint64_t ppa, lp;

		rel = radr >> L->rbits;
		slot = radr & ((1u << L->rbits) - 1);
		if (radr == RE_ADDR_NONE || rel >= L->ipages || slot >= L->ipb)
			return -EIO;
		lp = L->i_first + rel;
		if (fs_region_ppa(e->fs, &db->tlc, lp, &ppa) ||
		    fs_read(e->fs, ppa, slot * L->dim, r->code, L->dim))
			return -EIO;
		r->rk[i].score = re_score(db->c.metric, q8, r->code, L->dim);
		r->rk[i].key = r->top.v[i].key;
		r->rk[i].metric = db->c.metric;
		r->rk[i].i = i;
		r->pc[i].key = lp;
		r->pc[i].plane = fg_ppa_plane(e->g, ppa);
		r->pc[i].count = 1;
	}
	npc = re_pcount_merge(r->pc, m);
	*t = re_cost_entry_reads(&r->c, r->pc, npc, e->g->native_mode, L->dim, *t);
	*t = ft_core(e->ft, cmd, FT_CORE_ISP, ft_cycles_rerank(e->p, m, L->dim), "rerank", *t);
	*t = ft_core(e->ft, cmd, FT_CORE_ISP, ft_cycles_sort(e->p, m), "sort", *t);
	qsort(r->rk, m, sizeof(*r->rk), re_rk_cmp);
	r->reranked += m;
	return 0;
}

int re_rank(struct re_run *r, struct re_db *db, const int8_t *q8, uint32_t m, uint64_t *t)
{
	uint32_t i;

	if (r->rerank)
		return re_rerank(r, db, q8, m, t);
	*t = ft_core(r->e->ft, r->c.cmd, FT_CORE_ISP, ft_cycles_sort(r->e->p, m), "sort", *t);
	for (i = 0; i < m; i++) {
		r->rk[i].score = 0;
		r->rk[i].key = r->top.v[i].key;
		r->rk[i].i = i;
	}
	return 0;
}
