/* SPDX-License-Identifier: MIT */
/*
 * reis_cost.c - the modeled cost of a REIS search (REIS §4.3.2-4.3.4):
 * page rounds, TTL writes, quickselect, entry reads; and re_estimate(), the
 * analytic mode (docs/timing-model.md "Analytic mode").
 */

/*
 * Used by the engine with the counts of real data (reis_scan.c,
 * reis_query.c) and by re_estimate() with counts alone. Both issue the
 * same timing calls in the same order; docs/reis-engine.md "Timing" gives
 * the model.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flash_geom.h"
#include "reis_int.h"

void re_cost_init(struct re_cost *c, struct ft *ft, struct ft_cmd *cmd, int pl)
{
	const struct fp_params *p = ft_params(ft);

	memset(c, 0, sizeof(*c));
	c->ft = ft;
	c->cmd = cmd;
	c->p = p;
	c->planes = p->channels * p->dies_per_channel * p->planes_per_die;
	c->pl = pl;
}

static void re_cost_row_issue(struct re_cost *c);

void re_cost_phase(struct re_cost *c, uint64_t ready, uint64_t cand,
		   uint32_t entry_bytes, uint32_t cmp_per_entry)
{
	re_cost_row_issue(c);	/* a phase left open: as issued page by page */
	c->start = c->ready = c->last = c->round_end = ready;
	c->round_pass = 0;
	c->in_round = 0;
	c->kept = 0;
	c->cand = cand;
	c->entry_bytes = entry_bytes;
	c->cmp_per_entry = cmp_per_entry;
	memset(&c->op, 0, sizeof(c->op));
	c->op.mode = ISP_CELL_SLC;
	/* IBC loaded the query into the cache latch; each page is XORed
	 * against it (REIS 4.3.2); PL reads in cache-read sequential mode.
	 * REIS-ASIC reads plainly (6.3.1: no ESP, so no in-die XOR). */
	c->op.flags = (c->asic ? 0 : FT_OP_XOR) | (c->pl ? FT_OP_CACHE : 0);
}

/* Room for @n reads in the row buffers; 0 when there is none. */
static int re_cost_row_room(struct re_cost *c, uint32_t n)
{
	uint32_t cap = c->caprow ? c->caprow : 64;
	void *a, *b, *d;

	if (n <= c->caprow)
		return 1;
	while (cap < n)
		cap *= 2;
	a = realloc(c->row_plane, cap * sizeof(*c->row_plane));
	if (a)
		c->row_plane = a;
	b = realloc(c->row_op, cap * sizeof(*c->row_op));
	if (b)
		c->row_op = b;
	d = realloc(c->row_dram, cap * sizeof(*c->row_dram));
	if (d)
		c->row_dram = d;
	if (!a || !b || !d)
		return 0;
	c->caprow = cap;
	return 1;
}

/* Issue the reads collected for this round, from its ready time. */
static void re_cost_row_issue(struct re_cost *c)
{
	uint64_t t;

	if (!c->nrow)
		return;
	t = ft_page_read_row(c->ft, c->cmd, c->nrow, c->row_plane, c->row_op, c->row_dram,
			     c->pl ? c->start : c->ready, NULL);
	c->round_end = re_max(c->round_end, t);
	c->nrow = 0;
}

/* A round's pages are all issued: select on the ISP core (REIS 4.3.1). */
static void re_cost_round(struct re_cost *c)
{
	uint64_t t;

	if (!c->in_round)
		return;
	re_cost_row_issue(c);
	t = c->round_end;
	if (c->round_pass && !c->asic) {	/* the ASIC's selection is free */
		t = ft_core(c->ft, c->cmd, FT_CORE_ISP,
			    ft_cycles_select(c->p, c->kept + c->round_pass),
			    "quickselect", t);
		c->kept += c->round_pass;
		if (c->kept > c->cand)
			c->kept = c->cand;
	}
	c->last = re_max(c->last, t);
	if (!c->pl)
		c->ready = t;	/* no overlap: the next round waits */
	c->round_end = c->ready;
	c->round_pass = 0;
	c->in_round = 0;
}

static struct ft_page_op re_cost_op(const struct re_cost *c, uint32_t n_fbc,
				    uint32_t n_pass)
{
	struct ft_page_op op = c->op;

	if (c->asic) {	/* 6.3.1: the page and its spare go whole to the ECC */
		op.n_dout = 1;
		op.dout_bytes = c->p->page_bytes + c->p->oob_bytes;
		return op;
	}
	op.n_fbc = n_fbc;
	op.n_cmp = n_fbc * c->cmp_per_entry;
	op.n_dout = n_pass;	/* one RD_TTL burst per passing entry (Table 2) */
	op.dout_bytes = n_pass ? c->entry_bytes : 0;
	return op;
}

/*
 * One page of the round: its read and its TTL write are collected and
 * issued with the round's others when it ends (re_cost_row_issue()); the
 * ready time of every page of a round is the same (the phase start with PL,
 * else the previous round's end), so this is the page-by-page sequence.
 */
void re_cost_page(struct re_cost *c, uint32_t plane, uint32_t n_fbc, uint32_t n_pass)
{
	struct ft_page_op op = re_cost_op(c, n_fbc, n_pass);
	uint64_t dram = n_pass ? (uint64_t)n_pass * c->entry_bytes : 0, t;

	if (re_cost_row_room(c, c->nrow + 1)) {
		c->row_plane[c->nrow] = plane;
		c->row_op[c->nrow] = op;
		c->row_dram[c->nrow++] = dram;
	} else {
		re_cost_row_issue(c);	/* keep the order of what was collected */
		t = ft_page_read(c->ft, c->cmd, plane, &op, c->pl ? c->start : c->ready);
		if (n_pass)
			t = ft_dram(c->ft, c->cmd, dram, t);
		c->round_end = re_max(c->round_end, t);
	}
	c->round_pass += n_pass;
	c->pages++;
	c->compared += n_fbc;
	c->passed += n_pass;
	if (++c->in_round == c->planes)
		re_cost_round(c);
}

void re_cost_batch(struct re_cost *c, uint64_t first, uint64_t count, uint32_t n_fbc,
		   uint32_t n_pass)
{
	struct ft_batch b;
	uint64_t t, m;

	re_cost_row_issue(c);
	memset(&b, 0, sizeof(b));
	b.op = re_cost_op(c, n_fbc, n_pass);
	b.dram_bytes = (uint64_t)n_pass * c->entry_bytes;
	b.core = FT_CORE_ISP;
	while (count) {
		m = c->planes - c->in_round;
		if (m > count)
			m = count;
		b.first = first;
		b.count = m;
		t = ft_batch_read(c->ft, c->cmd, &b, c->pl ? c->start : c->ready);
		c->round_end = re_max(c->round_end, t);
		c->round_pass += m * n_pass;
		c->pages += m;
		c->compared += m * n_fbc;
		c->passed += m * n_pass;
		c->in_round += (uint32_t)m;
		if (c->in_round == c->planes)
			re_cost_round(c);
		first += m;
		count -= m;
	}
}

uint64_t re_cost_phase_end(struct re_cost *c)
{
	re_cost_round(c);
	return c->last;
}

/* Reads of entries from @n pages, all from @ready, each with its DRAM
 * write: one row (ft_page_read_row()), or page by page without buffers. */
static uint64_t re_cost_reads_now(struct re_cost *c, const struct re_pcount *pc, size_t n,
				  uint32_t mode, uint32_t bytes, uint64_t ready)
{
	uint64_t end = ready, t;
	size_t i;

	if (n && n < UINT32_MAX && !c->nrow && re_cost_row_room(c, (uint32_t)n)) {
		for (i = 0; i < n; i++) {
			memset(&c->row_op[i], 0, sizeof(c->row_op[i]));
			c->row_op[i].mode = mode;
			c->row_op[i].n_dout = pc[i].count;
			c->row_op[i].dout_bytes = bytes;
			c->row_plane[i] = pc[i].plane;
			c->row_dram[i] = (uint64_t)pc[i].count * bytes;
		}
		t = ft_page_read_row(c->ft, c->cmd, (uint32_t)n, c->row_plane, c->row_op,
				     c->row_dram, ready, NULL);
		return re_max(end, t);
	}
	for (i = 0; i < n; i++) {
		struct ft_page_op op;

		memset(&op, 0, sizeof(op));
		op.mode = mode;
		op.n_dout = pc[i].count;
		op.dout_bytes = bytes;
		t = ft_page_read(c->ft, c->cmd, pc[i].plane, &op, ready);
		t = ft_dram(c->ft, c->cmd, (uint64_t)pc[i].count * bytes, t);
		end = re_max(end, t);
	}
	return end;
}

/* Room in @l for one more op and @npc more page counts. */
static int re_fin_room(struct re_fin_list *l, size_t npc)
{
	if (l->n == l->cap) {
		uint32_t n = l->cap ? l->cap * 2 : 8;
		struct re_fin_op *o = realloc(l->op, n * sizeof(*o));

		if (!o)
			return -ENOMEM;
		l->op = o;
		l->cap = n;
	}
	if (l->npc + npc > l->cappc) {
		size_t n = l->cappc ? l->cappc : 256;
		struct re_pcount *v;

		while (n < l->npc + npc)
			n *= 2;
		v = realloc(l->pc, n * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->pc = v;
		l->cappc = n;
	}
	return 0;
}

/* Append @o (with @o->npc page counts from @pc) to @l; -ENOMEM. */
static int re_fin_add(struct re_fin_list *l, const struct re_fin_op *o,
		      const struct re_pcount *pc)
{
	if (re_fin_room(l, o->npc))
		return -ENOMEM;
	l->op[l->n] = *o;
	l->op[l->n].pc0 = l->npc;
	if (o->npc)
		memcpy(l->pc + l->npc, pc, o->npc * sizeof(*pc));
	l->npc += o->npc;
	l->n++;
	return 0;
}

static void re_fin_record(struct re_cost *c, const struct re_fin_op *o,
			  const struct re_pcount *pc)
{
	if (!c->err && re_fin_add(&c->cur, o, pc))
		c->err = -ENOMEM;
}

uint64_t re_cost_entry_reads(struct re_cost *c, const struct re_pcount *pc, size_t n,
			     uint32_t mode, uint32_t bytes, uint64_t ready)
{
	struct re_fin_op o;

	if (!c->fin_open)
		return re_cost_reads_now(c, pc, n, mode, bytes, ready);
	memset(&o, 0, sizeof(o));
	o.npc = n;
	o.mode = mode;
	o.bytes = bytes;
	re_fin_record(c, &o, pc);
	return ready;
}

static uint64_t re_cost_core_now(struct re_cost *c, uint64_t cycles, const char *label,
				 uint64_t ready)
{
	if (c->asic)	/* 6.3.1: an ideal ASIC computes for free */
		return ready;
	return ft_core(c->ft, c->cmd, FT_CORE_ISP, cycles, label, ready);
}

uint64_t re_cost_core(struct re_cost *c, uint64_t cycles, const char *label, uint64_t ready)
{
	struct re_fin_op o;

	if (!c->fin_open)
		return re_cost_core_now(c, cycles, label, ready);
	memset(&o, 0, sizeof(o));
	o.label = label ? label : "work";
	o.cycles = cycles;
	re_fin_record(c, &o, NULL);
	return ready;
}

/* The page counts of op @i of @l (NULL for none: the list may have none). */
static const struct re_pcount *re_fin_pc(const struct re_fin_list *l, uint32_t i)
{
	return l->op[i].npc ? l->pc + l->op[i].pc0 : NULL;
}

static uint64_t re_fin_run(struct re_cost *c, const struct re_fin_list *l, uint32_t i,
			   uint64_t t)
{
	const struct re_fin_op *o = &l->op[i];

	if (o->label)
		return re_cost_core_now(c, o->cycles, o->label, t);
	return re_cost_reads_now(c, re_fin_pc(l, i), o->npc, o->mode, o->bytes, t);
}

/*
 * Issue the recorded chain's leading reads; its rest, from the first
 * kernel on, moves to the late list, ready when the reads are done. A
 * search's quickselects then never queue behind an earlier query's rerank
 * kernel on the REIS core (REIS 4.3.4: the kernels run "without stalling
 * the pipeline").
 */
static void re_fin_issue(struct re_cost *c)
{
	uint64_t t = c->fin_ready;
	uint32_t i;

	if (!c->fin_have)
		return;
	c->fin_have = 0;
	for (i = 0; i < c->cur.n && !c->cur.op[i].label; i++)
		t = re_fin_run(c, &c->cur, i, t);
	if (i < c->cur.n) {
		struct re_fin_op s;

		memset(&s, 0, sizeof(s));
		s.start = 1;
		s.ready = t;
		if (re_fin_add(&c->late, &s, NULL))
			c->err = -ENOMEM;
		for (; i < c->cur.n && !c->err; i++)
			if (re_fin_add(&c->late, &c->cur.op[i], re_fin_pc(&c->cur, i)))
				c->err = -ENOMEM;
	}
	c->fin_end = re_max(c->fin_end, t);
	c->cur.n = 0;
	c->cur.npc = 0;
}

uint64_t re_cost_flush(struct re_cost *c)
{
	uint64_t t = 0;
	uint32_t i;

	re_fin_issue(c);
	for (i = 0; i < c->late.n; i++) {
		if (c->late.op[i].start) {
			c->fin_end = re_max(c->fin_end, t);
			t = c->late.op[i].ready;
		} else {
			t = re_fin_run(c, &c->late, i, t);
		}
	}
	c->fin_end = re_max(c->fin_end, t);
	c->late.n = 0;
	c->late.npc = 0;
	return c->fin_end;
}

void re_cost_fin_begin(struct re_cost *c, uint64_t ready)
{
	re_fin_issue(c);
	c->fin_open = 1;
	c->fin_have = 1;
	c->fin_ready = ready;
}

int re_cost_fin_end(struct re_cost *c)
{
	c->fin_open = 0;
	return c->err;
}

uint64_t re_cost_fin_bytes(uint64_t reads, uint64_t late, uint32_t nq)
{
	/* The lists double from 8 ops / 256 counts: at most twice what they
	 * hold. The current chain: its reads and 4 ops; the late list: per
	 * query a start, 2 kernels and the id reads. */
	uint64_t cur = (reads + 256) * sizeof(struct re_pcount) + 8 * sizeof(struct re_fin_op);
	uint64_t lat = ((uint64_t)nq + 1) * (late * sizeof(struct re_pcount) +
					     4 * sizeof(struct re_fin_op)) +
		       256 * sizeof(struct re_pcount) + 8 * sizeof(struct re_fin_op);

	return 2 * (cur + lat);
}

static void re_fin_list_free(struct re_fin_list *l)
{
	free(l->op);
	free(l->pc);
	memset(l, 0, sizeof(*l));
}

void re_cost_free(struct re_cost *c)
{
	re_fin_list_free(&c->cur);
	re_fin_list_free(&c->late);
	free(c->row_plane);
	free(c->row_op);
	free(c->row_dram);
	c->row_plane = NULL;
	c->row_op = NULL;
	c->row_dram = NULL;
	c->nrow = c->caprow = 0;
}

size_t re_pcount_merge(struct re_pcount *pc, size_t n)
{
	size_t i, m = 0;

	if (!n)
		return 0;
	re_pcount_sort(pc, n);	/* reis_select.c */
	for (i = 1; i < n; i++) {
		if (pc[i].key == pc[m].key)
			pc[m].count += pc[i].count;
		else
			pc[++m] = pc[i];
	}
	return m + 1;
}

/* ---- IVF page visits ---- */

/* ---- analytic mode ---- */

struct re_est_run {
	struct re_cost c;
	const struct re_layout *L;
	double rate;		/* fraction of compared entries that pass */
	uint32_t rnp, rnl;	/* or, if rnl, re_cost_coarse_passed(rnp, rnl) */
	uint64_t cum_cmp;	/* compared so far in the phase (for rounding) */
	uint64_t cum_pass;
	uint64_t *lp;		/* one round: logical pages */
	uint32_t *nf;		/* and entries compared */
	uint32_t *pass;		/* and passing */
	uint32_t m;
	/* The request as SEARCH would run it. */
	int ivf, df, tag, rerank, mpibc;
	double fine_rate;	/* pass rate of the fine phase */
	uint64_t cand;
	uint32_t seed;
	uint32_t rdim;		/* the rerank's INT8 row: @rerank_dim, or dim */
	uint32_t np;		/* nprobe */
	uint64_t *cfirst;
	uint32_t *probe, *seen;
	struct re_visits vs;
};

/*
 * Issue the collected round. A page passes floor(rate * compared so far)
 * minus what earlier pages passed (cumulative rounding: the phase passes
 * exactly floor(rate * compared), spread as evenly as whole entries allow);
 * runs of consecutive pages with equal counts go through ft_batch_read().
 */
static void re_est_flush(struct re_est_run *r)
{
	uint32_t i, j;

	if (!r->m)
		return;
	for (i = 0; i < r->m; i++) {
		uint64_t tot;

		r->cum_cmp += r->nf[i];
		tot = r->rnl ? re_cost_coarse_passed(r->cum_cmp, r->rnp, r->rnl) :
		      r->rate >= 1.0 ? r->cum_cmp :
		      (uint64_t)((double)r->cum_cmp * r->rate + 1e-9);
		r->pass[i] = (uint32_t)(tot - r->cum_pass);
		r->cum_pass = tot;
	}
	for (i = 0; i < r->m; i = j) {
		for (j = i + 1; j < r->m && r->lp[j] == r->lp[j - 1] + 1 &&
			    r->nf[j] == r->nf[i] && r->pass[j] == r->pass[i]; j++)
			;
		re_cost_batch(&r->c, r->lp[i], j - i, r->nf[i], r->pass[i]);
	}
	r->m = 0;
}

static void re_est_page(struct re_est_run *r, uint64_t lpage, uint32_t nfbc)
{
	r->lp[r->m] = lpage;
	r->nf[r->m] = nfbc;
	if (++r->m == r->c.planes)
		re_est_flush(r);
}

static uint32_t re_rand(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 1;
}

static uint64_t re_rand64(uint32_t *s, uint64_t n)
{
	uint64_t v = (uint64_t)re_rand(s) << 31 | re_rand(s);

	return n ? v % n : 0;
}

static int re_u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Reads of @cnt entries at random pages of a TLC sub-region. */
static uint64_t re_est_tlc(struct re_est_run *r, const struct fg_geom *g, uint64_t first,
			   uint64_t pages, uint64_t cnt, uint32_t bytes, uint32_t *seed,
			   uint64_t ready)
{
	struct re_pcount *pc;
	uint64_t i, t;
	size_t n;

	if (!cnt || !pages)
		return ready;
	pc = calloc(cnt, sizeof(*pc));
	if (!pc)
		return ready;
	for (i = 0; i < cnt; i++) {
		uint64_t lp = first + re_rand64(seed, pages);

		pc[i].key = lp;
		pc[i].plane = fg_pfpa_plane(g, lp);
		pc[i].count = 1;
	}
	n = re_pcount_merge(pc, cnt);
	t = re_cost_entry_reads(&r->c, pc, n, g->native_mode, bytes, ready);
	free(pc);
	return t;
}

/* The create header and layout the estimated database would get; -EINVAL
 * for a request SEARCH would refuse. */
static int re_est_setup(const struct fp_params *p, const struct re_est *e,
			struct re_est_run *r, struct fg_geom *g, struct re_layout *L)
{
	struct isp_wire_reis_create cr;

	memset(&cr, 0, sizeof(cr));
	cr.did = 1;
	cr.kind = e->kind;
	cr.flags = e->db_flags;
	cr.dim = e->dim;
	cr.n = e->n;
	cr.nlist = e->kind == ISP_REIS_IVF ? e->nlist : 0;
	cr.doc_mode = e->doc_mode;
	cr.df_threshold = e->df_threshold;
	if (e->doc_mode)
		cr.docs_bytes = e->n * 4;
	if (fg_init(g, p) || re_header_check(&cr, p, re_planes(p), L))
		return -EINVAL;
	r->ivf = e->kind == ISP_REIS_IVF;
	r->rerank = !(e->flags & ISP_REIS_SF_NO_RERANK);
	if (!e->nq || e->nq > ISP_REIS_MAX_NQ || !e->k || e->k > ISP_REIS_MAX_K ||
	    e->k > e->n || e->factor > ISP_REIS_MAX_RERANK || (e->flags & ~ISP_REIS_SF_ALL) ||
	    (r->ivf && !e->nprobe) || (r->rerank && !(e->db_flags & ISP_REIS_DBF_INT8)) ||
	    (!r->rerank && (e->flags & ISP_REIS_SF_RERANK_ALL)) ||
	    e->pass < 0 || e->pass > 1 || e->tag_pass < 0 || e->tag_pass > 1 ||
	    e->asic < 0 || e->asic > 1 || e->serial < 0 || e->serial > 1 ||
	    e->no_finish < 0 || e->no_finish > 1 || e->rerank_dim > e->dim ||
	    e->rerank_dim % 64)
		return -EINVAL;
	r->rdim = e->rerank_dim ? e->rerank_dim : e->dim;
	r->df = p->reis_df && !(e->flags & ISP_REIS_SF_NO_DF) && e->df_threshold;
	r->tag = (e->flags & ISP_REIS_SF_TAG) != 0;
	r->mpibc = p->reis_mpibc && !(e->flags & ISP_REIS_SF_NO_MPIBC);
	r->fine_rate = (r->tag ? e->tag_pass : 1.0) * (r->df ? e->pass : 1.0);
	r->cand = r->rerank ? (uint64_t)(e->factor ? e->factor : RE_DEF_FACTOR) * e->k : e->k;
	if (r->rerank && (e->flags & ISP_REIS_SF_RERANK_ALL))
		r->cand = e->n;
	if (r->cand > e->n)
		r->cand = e->n;
	r->seed = e->seed | 1u;
	return 0;
}

/* The clusters' first entries (given sizes, or n spread evenly) and the
 * probe buffers; -ENOMEM, or -EINVAL when the sizes do not sum to n. */
static int re_est_clusters(struct re_est_run *r, const struct re_est *e)
{
	uint32_t i;

	r->np = e->nprobe < e->nlist ? e->nprobe : e->nlist;
	r->cfirst = malloc(((size_t)e->nlist + 1) * sizeof(*r->cfirst));
	r->probe = malloc((size_t)r->np * sizeof(*r->probe));
	r->seen = calloc(((size_t)e->nlist + 31) / 32, sizeof(*r->seen));
	if (!r->cfirst || !r->probe || !r->seen)
		return -ENOMEM;
	r->cfirst[0] = 0;
	for (i = 0; i < e->nlist; i++)
		r->cfirst[i + 1] = r->cfirst[i] + (e->cluster_sizes ? e->cluster_sizes[i] :
						   e->n / e->nlist + (i < e->n % e->nlist));
	return r->cfirst[e->nlist] != e->n ? -EINVAL : 0;
}

/* Query @q's coarse search: every centroid page, then the probed clusters
 * (given, or drawn at random without repeats) and their pages. */
static int re_est_coarse(struct re_est_run *r, const struct re_est *e, uint32_t q,
			 uint64_t *t)
{
	const struct re_layout *L = r->L;
	uint32_t i;

	/*
	 * DF is a step of the page kernel both phases run (REIS 4.3.2-4.3.3:
	 * the comparator passes an entry whose DIST is under the threshold),
	 * so with DF the coarse phase also compares each centroid in-die and
	 * sends only the nprobe it keeps to the TTL-C, spread evenly over the
	 * centroid pages (timing-model.md A26; the engine's re_coarse_cost()
	 * charges the same).
	 */
	re_cost_phase(&r->c, *t, r->np, L->ttl_c, (uint32_t)r->df);
	r->rate = 1.0;
	r->rnp = r->np;
	r->rnl = r->df ? e->nlist : 0;
	r->cum_cmp = r->cum_pass = 0;
	for (i = 0; i < L->cpages; i++) {
		uint64_t left = e->nlist - (uint64_t)i * L->cpb;

		re_est_page(r, L->c_first + i, (uint32_t)(left < L->cpb ? left : L->cpb));
	}
	re_est_flush(r);
	*t = re_cost_phase_end(&r->c);
	*t = ft_dram(r->c.ft, r->c.cmd, (uint64_t)r->np * RE_RIVF_BYTES, *t);
	if (e->probe) {
		for (i = 0; i < r->np; i++) {
			r->probe[i] = e->probe[(size_t)q * e->nprobe + i];
			if (r->probe[i] >= e->nlist)
				return -EINVAL;
		}
	} else {
		memset(r->seen, 0, ((size_t)e->nlist + 31) / 32 * sizeof(*r->seen));
		for (i = 0; i < r->np; i++) {
			uint32_t cl;

			do
				cl = (uint32_t)re_rand64(&r->seed, e->nlist);
			while (r->seen[cl / 32] & (1u << (cl % 32)));
			r->seen[cl / 32] |= 1u << (cl % 32);
			r->probe[i] = cl;
		}
	}
	qsort(r->probe, r->np, sizeof(*r->probe), re_u32_cmp);
	return re_visits_build(&r->vs, r->cfirst, r->probe, NULL, r->np, L->epb);
}

/* The fine phase at the expected pass rate; returns the candidates kept. */
static uint64_t re_est_fine(struct re_est_run *r, const struct re_est *e, uint64_t *t)
{
	const struct re_layout *L = r->L;
	uint64_t m, pass0 = r->c.passed;
	uint32_t i;

	re_cost_phase(&r->c, *t, r->cand, L->ttl_e, (uint32_t)(r->df + r->tag));
	r->rate = r->fine_rate;
	r->rnl = 0;
	r->cum_cmp = r->cum_pass = 0;
	if (r->ivf) {
		for (i = 0; i < r->vs.nv; i++)
			re_est_page(r, L->b_first + r->vs.v[i].page, r->vs.v[i].nent);
	} else {
		for (i = 0; i < L->bpages; i++) {
			uint64_t left = e->n - (uint64_t)i * L->epb;

			re_est_page(r, L->b_first + i, (uint32_t)(left < L->epb ? left : L->epb));
		}
	}
	re_est_flush(r);
	*t = re_cost_phase_end(&r->c);
	m = r->c.passed - pass0;
	return m > r->cand ? r->cand : m;
}

/* One query, as re_query_db() charges it; its end in *@t. */
static int re_est_query(struct re_est_run *r, const struct fp_params *p,
			const struct re_est *e, const struct fg_geom *g, uint32_t q,
			uint64_t tq, uint64_t *t, struct re_est_out *out)
{
	const struct re_layout *L = r->L;
	struct ft *ft = r->c.ft;
	struct ft_cmd *cmd = r->c.cmd;
	uint64_t m, nh;
	int ret;

	/* A die's pages wait for its whole IBC (Fig. 6: IBC, then the page
	 * reads), not for every die's (timing-model.md §6.2); the ASIC has no
	 * latch to fill. */
	if (!r->c.asic)
		ft_ibc_dies(ft, cmd, L->cb, L->ibc_bytes,
			    (r->mpibc ? FT_IBC_MPIBC : 0) | FT_IBC_DIE, tq);
	*t = tq;
	if (r->ivf) {
		ret = re_est_coarse(r, e, q, t);
		if (ret)
			return ret;
	}
	m = re_est_fine(r, e, t);
	if (e->no_finish)	/* the search pipeline alone (re_estimate_stream()) */
		return 0;
	re_cost_fin_begin(&r->c, *t);
	if (r->rerank) {
		/* INT8 rows of rdim bytes: the region holds n of them */
		re_est_tlc(r, g, L->i_first, (L->ipages * r->rdim + e->dim - 1) / e->dim, m,
			   r->rdim, &r->seed, *t);
		re_cost_core(&r->c, ft_cycles_rerank(p, m, r->rdim), "rerank", *t);
		out->reranked += m;
	}
	re_cost_core(&r->c, ft_cycles_sort(p, m), "sort", *t);
	nh = m < e->k ? m : e->k;
	if (e->db_flags & ISP_REIS_DBF_IDS)
		re_est_tlc(r, g, L->id_first, L->idpages, nh, RE_ID_BYTES, &r->seed, *t);
	return re_cost_fin_end(&r->c);
}

static void re_est_report(const struct re_est_run *r, struct ft_cmd *cmd,
			  struct re_est_out *out)
{
	uint32_t i;

	out->energy_pj = cmd->energy_pj;
	out->pages_read = r->c.pages;
	out->entries_compared = r->c.compared;
	out->entries_passed = r->c.passed;
	out->channel_bytes = cmd->channel_bytes;
	for (i = 0; i < ISP_RES_NCLASSES; i++)
		out->busy_ns[i] = cmd->busy_ps[i] / FT_PS_PER_NS;
	out->nprobe = r->np;
	out->epb = r->L->epb;
}

int re_estimate(const struct fp_params *p, const struct re_est *e,
		struct re_est_out *out)
{
	struct re_layout L;
	struct re_est_run r;
	struct fg_geom g;
	struct ft *ft = NULL;
	struct ft_cmd cmd;
	uint64_t t, tq, end, len;
	uint32_t q;
	int ret;

	if (!p || !e || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	memset(&r, 0, sizeof(r));
	if (re_est_setup(p, e, &r, &g, &L))
		return -EINVAL;
	ret = -ENOMEM;
	r.lp = calloc(g.planes, sizeof(*r.lp));
	r.nf = calloc(g.planes, sizeof(*r.nf));
	r.pass = calloc(g.planes, sizeof(*r.pass));
	if (!r.lp || !r.nf || !r.pass)
		goto out;
	if (r.ivf) {
		ret = re_est_clusters(&r, e);
		if (ret)
			goto out;
	}
	ret = ft_open(p, &ft);
	if (ret)
		goto out;
	r.L = &L;
	ft_cmd_begin(ft, &cmd, 0, NULL);
	re_cost_init(&r.c, ft, &cmd, p->reis_pl && !(e->flags & ISP_REIS_SF_NO_PL));
	r.c.asic = e->asic;

	/* What the device does before the handler, then the command's data. */
	t = ft_ctrl(ft, &cmd, 0);
	len = sizeof(struct isp_wire_reis_search) +
	      (uint64_t)e->nq * (L.cb + (r.rerank ? r.rdim : 0));
	t = ft_dma(ft, &cmd, FT_H2C, len, t);
	tq = ft_dram(ft, &cmd, len, t);
	end = tq;
	for (q = 0; q < e->nq; q++) {
		ret = re_est_query(&r, p, e, &g, q, tq, &t, out);
		if (ret)
			goto out_cmd;
		if (t > end)
			end = t;
		if (e->serial)	/* the next query's IBC after this search */
			tq = t;
	}
	end = re_max(end, re_cost_flush(&r.c));
	ret = r.c.err;
	if (ret)
		goto out_cmd;
	ft_dram(ft, &cmd, sizeof(struct isp_wire_reis_result) +
		(uint64_t)e->nq * e->k * sizeof(struct isp_wire_reis_hit), end);
	ret = 0;
out_cmd:
	ft_cmd_end(ft, &cmd, &out->model_ns);
	if (!ret && cmd.err)
		ret = cmd.err;
	re_est_report(&r, &cmd, out);
out:
	ft_close(ft);
	free(r.lp);
	free(r.nf);
	free(r.pass);
	free(r.cfirst);
	free(r.probe);
	free(r.seen);
	re_visits_free(&r.vs);
	re_cost_free(&r.c);
	return ret;
}

/*
 * The busiest resource class's time per query over a @depth-query command,
 * averaged over its resources: a floor under any schedule of the stream,
 * reported beside the stream time (docs/timing-model.md §6.2).
 */
static uint64_t re_stream_occ(const struct fp_params *p, const struct re_est_out *o,
			      uint32_t depth, uint32_t *bind)
{
	const uint64_t n[ISP_RES_NCLASSES] = {
		[ISP_RES_PLANE] = (uint64_t)p->channels * p->dies_per_channel * p->planes_per_die,
		[ISP_RES_DIE] = (uint64_t)p->channels * p->dies_per_channel,
		[ISP_RES_CHANNEL] = p->channels,
		[ISP_RES_CORE] = p->isp_cores ? p->isp_cores : 1,	/* REIS 4.3.4 */
		[ISP_RES_DRAM] = 1,
		[ISP_RES_LINK] = 1,
	};
	uint64_t m = 0, v;
	unsigned i;

	*bind = ISP_RES_PLANE;
	for (i = 0; i < ISP_RES_NCLASSES; i++) {
		if (!n[i])
			continue;
		v = o->busy_ns[i] / n[i] / depth;
		if (v > m) {
			m = v;
			*bind = i;
		}
	}
	return m;
}

int re_estimate_stream(const struct fp_params *p, const struct re_est *e, uint32_t depth,
		       struct re_stream_out *out, struct re_est_out *o)
{
	struct re_est one;
	struct re_est_out a, b;
	int ret;

	if (!p || !e || !out || !depth || depth > ISP_REIS_MAX_NQ)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	one = *e;
	one.nq = 1;
	ret = re_estimate(p, &one, &a);
	if (ret)
		return ret;
	one = *e;
	one.nq = depth;
	ret = re_estimate(p, &one, &b);
	if (ret)
		return ret;
	out->cmd_ns = (b.model_ns + depth - 1) / depth;
	out->one_ns = a.model_ns;
	out->occ_ns = re_stream_occ(p, &b, depth, &out->bind);
	if (e->serial) {
		struct re_est_out s;

		/*
		 * The stream rule (docs/timing-model.md §6.2): the search
		 * pipeline takes one query after another (IBC, coarse, fine:
		 * a plane's latches hold one query, Fig. 6's order), and each
		 * query's finish (INT8 reads, rerank, sort) runs under the next
		 * searches "without stalling the pipeline" (REIS 4.3.4): a
		 * query costs the pipeline's period, or the busiest resource's
		 * share of everything when that is longer.
		 */
		one.no_finish = 1;
		ret = re_estimate(p, &one, &s);
		if (ret)
			return ret;
		out->search_ns = (s.model_ns + depth - 1) / depth;
		out->ns = re_max(out->search_ns, out->occ_ns);
	} else {
		/* Queries overlap on the planes: a plane takes the next query's
		 * IBC once its part of this one is done. */
		out->search_ns = out->cmd_ns;
		out->ns = out->cmd_ns;
	}
	out->pages_read = b.pages_read / depth;
	out->reranked = b.reranked / depth;
	out->energy_pj = b.energy_pj / depth;
	if (o)
		*o = b;
	return 0;
}

uint64_t re_query_energy_pj(uint64_t dyn_pj, uint64_t ns, uint64_t static_mw)
{
	uint64_t s;

	if (static_mw && ns > UINT64_MAX / static_mw)
		return UINT64_MAX;
	s = ns * static_mw;
	return dyn_pj > UINT64_MAX - s ? UINT64_MAX : dyn_pj + s;
}

/*
 * REIS 6.3.1's REIS-ASIC: without ESP the raw page needs ECC in the
 * controller, so every page read crosses the channel whole; the ideal ASIC
 * adds no compute. Pages spread evenly over channels and planes; the rerank
 * reads its INT8 entries as REIS does.
 */
uint64_t re_asic_ns(const struct fp_params *p, uint64_t pages, uint64_t reads,
		    uint32_t bytes)
{
	uint64_t planes, rounds, per_ch, x, tr, chan, sense, rr = 0;

	if (!p || !pages || !p->channels || !p->dies_per_channel || !p->planes_per_die)
		return 0;
	planes = (uint64_t)p->channels * p->dies_per_channel * p->planes_per_die;
	rounds = (pages + planes - 1) / planes;
	per_ch = (pages + p->channels - 1) / p->channels;
	x = ft_t_xfer((uint64_t)p->page_bytes + p->oob_bytes, p->channel_mbps);
	tr = p->t_read[ISP_CELL_SLC];
	chan = per_ch * x;
	sense = (rounds - 1) * tr + x;
	if (reads)	/* the rerank's INT8 reads, after the scan picked them */
		rr = (reads + planes - 1) / planes * p->t_read[p->native_mode] +
		     (reads + p->channels - 1) / p->channels *
		     (p->t_rr + ft_t_xfer(bytes, p->channel_mbps));
	return (p->ctrl_cmd + tr + (chan > sense ? chan : sense) + rr) / FT_PS_PER_NS;
}

/*
 * The per-core rates of a FAISS-style scan (docs/timing-model.md C3-C5):
 * cycles of a scalar POPCNT loop over 64-bit words into a top-k heap (the
 * shape of FAISS's HammingComputerM8 for 128-byte codes), measured with
 * bench_host_cpu on a Zen 5 core and taken as cycles at the host's clock:
 * the loop is bound by its add chains and loads, not by the clock of the
 * memory behind it (its L2-resident rate is within 12 % of the streamed).
 */
static void re_cpu_rates(struct re_cpu *c)
{
	c->streams = 1;		/* C6: one RAG query at a time, one core */
	c->ccyc_code = 2290;	/* C3: 22.9 cycles per code from DRAM */
	c->ccyc_centroid = 2030;	/* C3: 20.3 cycles per cached centroid */
	c->ccyc_dim = 158;	/* C4: 1617 cycles per 1024-dim INT8 row */
	c->ccyc_sort = 19500;	/* C5: 19.5 k cycles to sort 100 candidates */
}

/*
 * REIS Table 3's CPU-Real: 2 sockets x 64 cores at 3.1 GHz (AMD EPYC 9554),
 * DDR4, a PM9A3 SSD. C1-C10 of docs/timing-model.md give the rest.
 */
void re_cpu_real(struct re_cpu *c)
{
	if (!c)
		return;
	re_cpu_rates(c);
	c->cores = 128;		/* Table 3: 2 sockets, 128 cores */
	c->mhz = 3100;		/* Table 3: 3.1 GHz */
	c->mem_mbps = 409600;	/* C1: 2 x 8 channels DDR4-3200 */
	c->ssd_mbps = 6900;	/* C2: PM9A3 sequential read */
	c->ssd_kiops = 1000;	/* C9: PM9A3 4 KiB random read */
	c->load_mbps = 6900;	/* C2: the index loads at the drive's rate */
}

/*
 * REIS Fig. 3's system, Table 4's CPU+BQ: 2 x Xeon Gold 5118 (12 cores,
 * 2.3 GHz, 6 channels of DDR4-2400 each), a PM9A3; its dataset loading
 * is Table 4's measured one (C7).
 */
void re_cpu_fig3(struct re_cpu *c)
{
	if (!c)
		return;
	re_cpu_rates(c);
	c->cores = 24;
	c->mhz = 2300;
	c->mem_mbps = 230400;
	c->ssd_mbps = 6900;	/* C2 */
	c->ssd_kiops = 1000;	/* C9 */
	c->load_mbps = 348;	/* C7: 16.1 GB in 46.3 s over Table 4's columns */
}

#define RE_CPU_MAX_N (1ull << 36)	/* entries a modeled query may compare */

/* ceil(@bytes / (@mbps MB/s)) in ns. */
static uint64_t re_cpu_xfer_ns(uint64_t bytes, uint32_t mbps)
{
	return (bytes * 1000u + mbps - 1) / mbps;
}

static int re_cpu_bad(const struct re_cpu *c, const struct re_cpu_query *q)
{
	/* bounds keep every product below 2^64 */
	return !c || !q || q->centroids > RE_CPU_MAX_N || q->codes > RE_CPU_MAX_N ||
	       q->code_bytes > 65536 || q->dim > 65536 || !c->cores || !c->mhz || !c->mem_mbps ||
	       !c->ssd_mbps || !c->load_mbps || !c->streams || c->streams > c->cores;
}

uint64_t re_cpu_query_ns(const struct re_cpu *c, const struct re_cpu_query *q)
{
	uint64_t ccyc;

	if (re_cpu_bad(c, q))
		return 0;
	/* Codes of other widths cost in proportion to their words (C3). */
	ccyc = q->centroids * c->ccyc_centroid * q->code_bytes / 128 +
	       q->codes * c->ccyc_code * q->code_bytes / 128 +
	       (uint64_t)q->rerank * q->dim * c->ccyc_dim +
	       (uint64_t)q->rerank * c->ccyc_sort;
	/* centi-cycles / (MHz x 100) us = centi-cycles x 10 / MHz ns */
	return (ccyc * 10u + c->mhz - 1) / c->mhz;
}

uint64_t re_cpu_ns(const struct re_cpu *c, uint64_t load_bytes, uint32_t nq,
		   const struct re_cpu_query *q)
{
	uint64_t comp, mem;
	uint32_t rate;

	if (re_cpu_bad(c, q))
		return 0;
	comp = (re_cpu_query_ns(c, q) + c->streams - 1) / c->streams;
	/* @streams queries share the DRAM: each takes its own bytes' time */
	mem = re_cpu_xfer_ns((q->centroids + q->codes) * q->code_bytes, c->mem_mbps);
	rate = c->load_mbps < c->ssd_mbps ? c->load_mbps : c->ssd_mbps;
	return (load_bytes ? re_cpu_xfer_ns(load_bytes, rate) : 0) +
	       (uint64_t)nq * (mem > comp ? mem : comp);
}

#define RE_CPU_PAGE 4096u	/* the host's read unit (C9) */

uint64_t re_cpu_io_ns(const struct re_cpu *c, const struct re_cpu_query *q, uint32_t docs)
{
	uint64_t rows, reads;

	if (re_cpu_bad(c, q) || !c->ssd_kiops || docs > 65536)
		return 0;
	/* an INT8 row of @dim bytes spans ceil(dim / 4 KiB) pages; a document
	 * (217 B at C8) one */
	rows = (uint64_t)q->rerank * ((q->dim + RE_CPU_PAGE - 1) / RE_CPU_PAGE);
	reads = rows + docs;
	/* kIOPS: reads x 10^6 / kiops ns */
	return re_cpu_xfer_ns(q->codes * q->code_bytes, c->ssd_mbps) +
	       (reads * 1000000u + c->ssd_kiops - 1) / c->ssd_kiops;
}
