/* SPDX-License-Identifier: MIT */
/*
 * flash_timing.c - the flash operations' time and energy (REIS §2.3,
 * §4.3.4, §4.4.2; RecFlash §III-A, Eq. 1-2): resource calendars, cost
 * functions, statistics, the analytic batch path (docs/timing-model.md).
 */

/*
 * The per-page path (ft_page_read()) and the batch path (ft_batch_read())
 * call the same ft_read_locked(); the batch only saves the locking and call
 * overhead, and adds a row's accounting once (struct ft_acct), so the two
 * are equal by construction.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flash_geom.h"
#include "flash_timing_int.h"

#define FT_CAL_MIN 256u

static uint64_t ft_max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t ft_sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static uint64_t ft_sat_mul(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* ---- pure cost functions ---- */

uint64_t ft_t_ca(const struct fp_params *p)
{
	/* RecFlash Eq. 1; fp_validate() guarantees tALH + tALS >= tDS. */
	return (p->t_alh + p->t_als - p->t_ds) + (uint64_t)p->addr_cycles * p->t_wc +
	       p->t_ds;
}

uint64_t ft_t_xfer(uint64_t bytes, uint32_t mbps)
{
	/* 1 MB/s moves one byte per microsecond = 1e6 ps. */
	if (!mbps)
		return 0;
	return (ft_sat_mul(bytes, 1000000u) + mbps - 1) / mbps;
}

uint64_t ft_t_dout(const struct fp_params *p, uint64_t bytes)
{
	return p->t_rr + ft_t_xfer(bytes, p->channel_mbps);
}

uint64_t ft_t_cycles(const struct fp_params *p, uint64_t cycles)
{
	return (ft_sat_mul(cycles, 1000000u) + p->core_mhz - 1) / p->core_mhz;
}

uint64_t ft_cycles_select(const struct fp_params *p, uint64_t n)
{
	return ft_sat_mul(n, p->cyc_select);
}

uint64_t ft_cycles_sort(const struct fp_params *p, uint64_t n)
{
	uint64_t lg = 0;

	while (lg < 64 && (UINT64_C(1) << lg) < n)
		lg++;
	return ft_sat_mul(ft_sat_mul(n, lg ? lg : 1), p->cyc_sort);
}

uint64_t ft_cycles_rerank(const struct fp_params *p, uint64_t n, uint32_t dim)
{
	return ft_sat_mul(ft_sat_mul(n, dim), p->cyc_rerank_dim);
}

uint64_t ft_cycles_sls(const struct fp_params *p, uint64_t elems)
{
	return ft_sat_mul(elems, p->cyc_sls_elem);
}

/* ---- calendars ---- */

static int ft_cal_init(struct ft_cal *c, uint32_t cap)
{
	c->iv = calloc(cap, sizeof(*c->iv));
	c->n = 0;
	c->cap = cap;
	return c->iv ? 0 : -ENOMEM;
}

/*
 * Index of the first interval ending after @t (the ends ascend: intervals
 * are sorted and disjoint). Reservations land mostly among a calendar's
 * last few intervals (a search's commands book forward from about the
 * same time), so the search gallops back from the end, then bisects the
 * bracket with a conditional move for a step, not a branch: a row's reads
 * land at scattered places in the channel and DRAM calendars, where a
 * branch per step mispredicts half the time. O(log distance from the end).
 */
static uint32_t ft_cal_after(const struct ft_cal *c, uint64_t t)
{
	const struct ft_iv *b;
	uint32_t lo, hi = c->n, step = 1, n, half;

	for (;;) {
		if (!hi)
			return 0;
		lo = hi > step ? hi - step : 0;
		if (c->iv[lo].e <= t) {
			lo++;	/* the answer is in [lo, hi] */
			break;
		}
		hi = lo;
		step *= 2;
	}
	/* lo plus how many of iv[lo..hi) end at or before @t */
	b = c->iv + lo;
	n = hi - lo;
	while (n > 1) {
		half = n / 2;
		b = b[half - 1].e <= t ? b + half : b;
		n -= half;
	}
	return (uint32_t)(b - c->iv) + (n && b->e <= t);
}

/*
 * Earliest start >= @t of a free gap of length @d; *@at: the index of the
 * first interval after the gap (every one before it ends at or before the
 * start), which ft_cal_add_at() can start from instead of searching again.
 */
static uint64_t ft_cal_find_at(const struct ft_cal *c, uint64_t t, uint64_t d, uint32_t *at)
{
	uint32_t i;
	uint64_t s = t;

	for (i = ft_cal_after(c, t); i < c->n; i++) {
		if (ft_sat_add(s, d) <= c->iv[i].s)
			break;
		if (c->iv[i].e > s)
			s = c->iv[i].e;
	}
	*at = i;
	return s;
}

/*
 * Make room: drop history that ended before @floor (no command may start
 * earlier), else merge the oldest quarter of the intervals into one (their
 * gaps become busy: a conservative loss of old gaps, never a double
 * booking). Merging a quarter at a time keeps the cost amortized O(1).
 */
static void ft_cal_compact(struct ft_cal *c, uint64_t floor)
{
	uint32_t k = ft_cal_after(c, floor), m;

	if (k > 0) {
		memmove(c->iv, c->iv + k, (c->n - k) * sizeof(*c->iv));
		c->n -= k;
		return;
	}
	m = c->n / 4 < 2 ? 2 : c->n / 4;
	c->iv[0].e = c->iv[m - 1].e;
	memmove(c->iv + 1, c->iv + m, (c->n - m) * sizeof(*c->iv));
	c->n -= m - 1;
}

/*
 * Mark [@s, @s + @d) busy, merging with touching or overlapping intervals.
 * @at: ft_cal_find_at()'s index for this @s, or UINT32_MAX to search.
 */
static void ft_cal_add_at(struct ft_cal *c, uint64_t s, uint64_t d, uint64_t floor,
			  uint32_t at)
{
	uint64_t e = ft_sat_add(s, d);
	uint32_t i, j;

	if (!d)
		return;
	for (;;) {
		/* First interval ending at or after s (touching counts): with
		 * a hint, only the one before it can end exactly at s. */
		if (at <= c->n) {
			i = at && c->iv[at - 1].e >= s ? at - 1 : at;
			at = UINT32_MAX;	/* a compaction moves them */
		} else {
			i = ft_cal_after(c, s ? s - 1 : 0);
		}
		while (i < c->n && c->iv[i].e < s)
			i++;
		j = i;
		while (j < c->n && c->iv[j].s <= e) {
			if (c->iv[j].s < s)
				s = c->iv[j].s;
			if (c->iv[j].e > e)
				e = c->iv[j].e;
			j++;
		}
		if (j > i) {
			c->iv[i].s = s;
			c->iv[i].e = e;
			memmove(c->iv + i + 1, c->iv + j, (c->n - j) * sizeof(*c->iv));
			c->n -= j - i - 1;
			return;
		}
		if (c->n < c->cap)
			break;
		ft_cal_compact(c, floor);
	}
	memmove(c->iv + i + 1, c->iv + i, (c->n - i) * sizeof(*c->iv));
	c->iv[i].s = s;
	c->iv[i].e = e;
	c->n++;
}

/* Reserve @d at the earliest gap >= @t; return the start. One search of
 * the calendar, not two (every page read's data-out takes one). */
static uint64_t ft_cal_take(struct ft *ft, struct ft_cal *c, uint64_t t, uint64_t d)
{
	uint32_t at;
	uint64_t s = ft_cal_find_at(c, t, d, &at);

	ft_cal_add_at(c, s, d, ft->floor, at);
	return s;
}

/* ---- open / close ---- */

int ft_open(const struct fp_params *p, struct ft **out)
{
	struct ft *ft;
	uint32_t i, chcap;
	int ret = 0;

	if (!p || !out || fp_validate(p, NULL, 0))
		return -EINVAL;
	ft = calloc(1, sizeof(*ft));
	if (!ft)
		return -ENOMEM;
	ft->p = *p;
	ft->C = p->channels;
	ft->D = p->dies_per_channel;
	ft->P = p->planes_per_die;
	ft->ND = ft->C * ft->D;
	ft->NP = ft->ND * ft->P;
	ft->t_ca = ft_t_ca(p);
	pthread_mutex_init(&ft->lock, NULL);
	ft->plane = calloc(ft->NP, sizeof(*ft->plane));
	ft->die = calloc(ft->ND, sizeof(*ft->die));
	ft->chan = calloc(ft->C, sizeof(*ft->chan));
	ft->core = calloc(p->cores, sizeof(*ft->core));
	if (!ft->plane || !ft->die || !ft->chan || !ft->core) {
		ft_close(ft);
		return -ENOMEM;
	}
	/* A channel keeps about two intervals per plane in flight. */
	chcap = 8 * ft->D * ft->P;
	if (chcap < FT_CAL_MIN)
		chcap = FT_CAL_MIN;
	for (i = 0; i < ft->C && !ret; i++)
		ret = ft_cal_init(&ft->chan[i], chcap);
	for (i = 0; i < p->cores && !ret; i++)
		ret = ft_cal_init(&ft->core[i], FT_CAL_MIN);
	if (!ret)
		ret = ft_cal_init(&ft->dram, FT_CAL_MIN);
	for (i = 0; i < 2 && !ret; i++)
		ret = ft_cal_init(&ft->link[i], FT_CAL_MIN);
	/* a budget of every plane or more never binds: a plane does one
	 * program or erase at a time */
	if (!ret && p->ftl_prog_max && p->ftl_prog_max < ft->NP)
		ret = ft_cal_init(&ft->budget, 65536);
	if (ret) {
		ft_close(ft);
		return ret;
	}
	ft->st.nres[ISP_RES_PLANE] = ft->NP;
	ft->st.nres[ISP_RES_DIE] = ft->ND;
	ft->st.nres[ISP_RES_CHANNEL] = ft->C;
	ft->st.nres[ISP_RES_CORE] = p->cores;
	ft->st.nres[ISP_RES_DRAM] = 1;
	ft->st.nres[ISP_RES_LINK] = 2;
	*out = ft;
	return 0;
}

void ft_close(struct ft *ft)
{
	uint32_t i;

	if (!ft)
		return;
	for (i = 0; ft->chan && i < ft->C; i++)
		free(ft->chan[i].iv);
	for (i = 0; ft->core && i < ft->p.cores; i++)
		free(ft->core[i].iv);
	free(ft->dram.iv);
	free(ft->link[0].iv);
	free(ft->link[1].iv);
	free(ft->budget.iv);
	free(ft->plane);
	free(ft->die);
	free(ft->chan);
	free(ft->core);
	free(ft->act);
	pthread_mutex_destroy(&ft->lock);
	free(ft);
}

const struct fp_params *ft_params(const struct ft *ft)
{
	return &ft->p;
}

/* ---- commands ---- */

/* Earliest start among active commands: nothing older can be needed. */
static void ft_raise_floor(struct ft *ft)
{
	uint64_t h = UINT64_MAX;
	uint32_t i;

	for (i = 0; i < ft->nact; i++)
		if (ft->act[i] < h)
			h = ft->act[i];
	if (h != UINT64_MAX && h > ft->floor)
		ft->floor = h;
}

/* Slot for a new active command (1-based), 0 if out of memory. */
static uint32_t ft_act_get(struct ft *ft, uint64_t start)
{
	uint32_t i;

	for (i = 0; i < ft->nact; i++)
		if (ft->act[i] == UINT64_MAX)
			break;
	if (i == ft->nact) {
		if (ft->nact == ft->capact) {
			uint32_t n = ft->capact ? ft->capact * 2 : 64;
			uint64_t *a = realloc(ft->act, n * sizeof(*a));

			if (!a)
				return 0;	/* unregistered: floor just won't rise past it */
			ft->act = a;
			ft->capact = n;
		}
		ft->nact++;
	}
	ft->act[i] = start;
	return i + 1;
}

void ft_cmd_begin(struct ft *ft, struct ft_cmd *cmd, uint64_t submit_ns,
		  struct ft_trace *trace)
{
	uint64_t rel;
	uint32_t i, others = 0;

	memset(cmd, 0, sizeof(*cmd));
	cmd->trace = trace;
	pthread_mutex_lock(&ft->lock);
	if (!ft->have_base) {
		ft->base_ns = submit_ns;
		ft->have_base = 1;
	}
	rel = submit_ns > ft->base_ns ? submit_ns - ft->base_ns : 0;
	cmd->start = ft_max(ft_sat_mul(rel, FT_PS_PER_NS), ft->floor);
	cmd->end = cmd->start;
	for (i = 0; i < ft->nact; i++)
		others += ft->act[i] != UINT64_MAX;
	cmd->slot_ = ft_act_get(ft, cmd->start);
	if (!others && cmd->slot_)
		ft_raise_floor(ft);
	pthread_mutex_unlock(&ft->lock);
	if (trace && !trace->t0_set) {
		trace->t0 = cmd->start;
		trace->t0_set = 1;
	}
}

static int ft_cmd_end_as(struct ft *ft, struct ft_cmd *cmd, uint64_t *latency_ns,
			 int counted)
{
	uint64_t lat = cmd->end - cmd->start;

	pthread_mutex_lock(&ft->lock);
	if (cmd->slot_ && cmd->slot_ <= ft->nact) {
		ft->act[cmd->slot_ - 1] = UINT64_MAX;
		while (ft->nact && ft->act[ft->nact - 1] == UINT64_MAX)
			ft->nact--;
	}
	cmd->slot_ = 0;
	if (counted) {
		ft->st.cmds++;
		ft->st.model_ps = ft_sat_add(ft->st.model_ps, lat);
	}
	ft_raise_floor(ft);
	pthread_mutex_unlock(&ft->lock);
	if (latency_ns)
		*latency_ns = (lat + FT_PS_PER_NS - 1) / FT_PS_PER_NS;
	return cmd->err;
}

int ft_cmd_end(struct ft *ft, struct ft_cmd *cmd, uint64_t *latency_ns)
{
	return ft_cmd_end_as(ft, cmd, latency_ns, 1);
}

int ft_cmd_end_quiet(struct ft *ft, struct ft_cmd *cmd, uint64_t *latency_ns)
{
	return ft_cmd_end_as(ft, cmd, latency_ns, 0);
}

/* ---- accounting helpers (lock held) ---- */

static void ft_busy(struct ft *ft, struct ft_cmd *cmd, int cls, uint64_t d)
{
	cmd->busy_ps[cls] = ft_sat_add(cmd->busy_ps[cls], d);
	ft->st.busy_ps[cls] = ft_sat_add(ft->st.busy_ps[cls], d);
}

static void ft_energy(struct ft *ft, struct ft_cmd *cmd, uint64_t pj)
{
	cmd->energy_pj = ft_sat_add(cmd->energy_pj, pj);
	ft->st.energy_pj = ft_sat_add(ft->st.energy_pj, pj);
}

static void ft_done(struct ft_cmd *cmd, uint64_t t)
{
	if (t > cmd->end)
		cmd->end = t;
}

/*
 * What page reads and DRAM writes add to a command and the engine's
 * statistics, summed over a row of them and added once
 * (ft_acct_apply()): every sum saturates, and a saturating sum of
 * non-negative terms is the same in any grouping, so the totals equal
 * those of adding each read's share as it is booked.
 */
struct ft_acct {
	uint64_t busy_ps[ISP_RES_NCLASSES];
	uint64_t energy_pj;
	uint64_t page_reads[5];
	uint64_t channel_bytes, dram_bytes;
	uint64_t end;
};

static void ft_acct_busy(struct ft_acct *a, int cls, uint64_t d)
{
	a->busy_ps[cls] = ft_sat_add(a->busy_ps[cls], d);
}

static void ft_acct_energy(struct ft_acct *a, uint64_t pj)
{
	a->energy_pj = ft_sat_add(a->energy_pj, pj);
}

static void ft_acct_apply(struct ft *ft, struct ft_cmd *cmd, const struct ft_acct *a)
{
	int i;

	for (i = 0; i < ISP_RES_NCLASSES; i++)
		if (a->busy_ps[i])
			ft_busy(ft, cmd, i, a->busy_ps[i]);
	ft_energy(ft, cmd, a->energy_pj);
	for (i = 0; i < 5; i++) {
		cmd->page_reads[i] += a->page_reads[i];
		ft->st.page_reads[i] += a->page_reads[i];
	}
	cmd->channel_bytes += a->channel_bytes;
	ft->st.channel_bytes += a->channel_bytes;
	cmd->dram_bytes += a->dram_bytes;
	ft->st.dram_bytes += a->dram_bytes;
	ft_done(cmd, a->end);
}

static uint64_t ft_fail(struct ft_cmd *cmd, uint64_t ready)
{
	if (!cmd->err)
		cmd->err = -EINVAL;
	return ready;
}

static void ft_ev(struct ft_cmd *cmd, int cls, uint32_t idx, const char *name,
		  uint64_t ts, uint64_t dur)
{
	if (cmd->trace && dur)
		ft_trace_add(cmd->trace, (uint16_t)cls, idx, name, ts, dur);
}

static uint64_t ft_ready(const struct ft_cmd *cmd, uint64_t ready)
{
	return ready > cmd->start ? ready : cmd->start;
}

/* ---- flash operations ---- */

static uint64_t ft_dram_locked(struct ft *ft, struct ft_cmd *cmd, struct ft_acct *ac,
			       uint64_t bytes, uint64_t ready);

static int ft_op_ok(const struct ft_page_op *op)
{
	return op && op->mode >= ISP_CELL_SLC && op->mode <= ISP_CELL_QLC &&
	       op->n_fbc <= FT_MAX_COUNT && op->n_cmp <= FT_MAX_COUNT &&
	       op->n_dout <= FT_MAX_COUNT && op->dout_bytes <= (1u << 24);
}

/*
 * Data-out of @op on channel @ch from @t: one interval, or with FT_OP_BURSTS
 * one per burst, each in the first gap after the previous one (other dies'
 * bursts may come in between). Records the DO events; returns the end.
 */
static uint64_t ft_dout_locked(struct ft *ft, struct ft_cmd *cmd, uint32_t ch, uint32_t die,
			       const struct ft_page_op *op, uint64_t d_do, uint64_t t)
{
	uint64_t s, bd;
	uint32_t k;

	if (!(op->flags & FT_OP_BURSTS) || op->n_dout < 2) {
		s = ft_cal_take(ft, &ft->chan[ch], t, d_do);
		ft_ev(cmd, ISP_RES_CHANNEL, ch, "DO", s, d_do);
		ft_ev(cmd, ISP_RES_DIE, die, "DO", s, d_do);
		return s + d_do;
	}
	bd = ft->p.t_rr + ft_t_xfer(op->dout_bytes, ft->p.channel_mbps);
	for (k = 0; k < op->n_dout; k++) {
		s = ft_cal_take(ft, &ft->chan[ch], t, bd);
		ft_ev(cmd, ISP_RES_CHANNEL, ch, "DO", s, bd);
		ft_ev(cmd, ISP_RES_DIE, die, "DO", s, bd);
		t = s + bd;
	}
	return t;
}

/* Earliest sensing start of @op on @pl if issued at @ready (no side effects). */
static uint64_t ft_read_r0(const struct ft *ft, const struct ft_plane *pl,
			   const struct ft_page_op *op, uint64_t ready)
{
	uint64_t a = ft_max(ready, pl->ca_ready);

	if (!(op->flags & FT_OP_CACHE))
		a = ft_max(a, ft_max(pl->arr_free, pl->out_free));
	return ft_max(a + ft->t_ca, pl->arr_free);
}

/* Energy and counters of one page read (docs/timing-model.md "Formulas"). */
static void ft_read_account(const struct ft *ft, struct ft_acct *ac,
			    const struct ft_page_op *op, uint64_t bytes)
{
	const struct fp_params *p = &ft->p;

	ft_acct_energy(ac, p->e_read[op->mode] + ((op->flags & FT_OP_XOR) ? p->e_xor : 0));
	ft_acct_energy(ac, ft_sat_mul(op->n_fbc, p->e_fbc));
	ft_acct_energy(ac, ft_sat_mul(op->n_cmp, p->e_cmp));
	ft_acct_energy(ac, ft_sat_mul(bytes, p->e_channel_byte));
	ac->page_reads[op->mode]++;
	ac->channel_bytes += bytes;
}

/* Timeline events of one page read on @plane: C/A from @s_ca, tR from
 * @r0, the in-die steps after it, with @moved the cache-register move at
 * @m0 (for a cache-mode XOR read, @m0 is the XOR's start). */
static void ft_read_trace(struct ft *ft, struct ft_cmd *cmd, uint32_t plane,
			  const struct ft_page_op *op, uint64_t s_ca, uint64_t r0, int moved,
			  uint64_t m0)
{
	const struct fp_params *p = &ft->p;
	uint64_t t_xor = (op->flags & FT_OP_XOR) ? p->t_xor : 0;
	uint64_t t = r0 + p->t_read[op->mode];

	if (!(op->flags & FT_OP_CACHE))	/* in cache mode it overlaps the previous page */
		ft_ev(cmd, ISP_RES_PLANE, plane, "CA", s_ca, ft->t_ca);
	ft_ev(cmd, ISP_RES_PLANE, plane, "tR", r0, p->t_read[op->mode]);
	if ((op->flags & FT_OP_CACHE) && t_xor)
		t = ft_max(t, m0);	/* A25: the XOR waits for the data latch */
	ft_ev(cmd, ISP_RES_PLANE, plane, "XOR", t, t_xor);
	t += t_xor;
	ft_ev(cmd, ISP_RES_PLANE, plane, "FBC", t, (uint64_t)op->n_fbc * p->t_fbc);
	t += (uint64_t)op->n_fbc * p->t_fbc;
	ft_ev(cmd, ISP_RES_PLANE, plane, "CMP", t, (uint64_t)op->n_cmp * p->t_cmp);
	if (moved)
		ft_ev(cmd, ISP_RES_PLANE, plane, "CACHE", m0, p->t_cache_busy);
}

/* @r0_min: sensing starts no earlier (multi-plane rule), 0: no constraint. */
static uint64_t ft_read_locked(struct ft *ft, struct ft_cmd *cmd, struct ft_acct *ac,
			       uint32_t plane, const struct ft_page_op *op, uint64_t ready,
			       uint64_t r0_min)
{
	const struct fp_params *p = &ft->p;
	struct ft_plane *pl = &ft->plane[plane];
	uint32_t die = plane / ft->P, ch = die / ft->D;
	int cache = (op->flags & FT_OP_CACHE) != 0;
	uint64_t comp, d_do, a, s_ca, r0, c1, end, new_arr, m0 = 0;
	uint64_t t_xor = (op->flags & FT_OP_XOR) ? p->t_xor : 0;
	uint64_t bytes = (uint64_t)op->n_dout * op->dout_bytes;

	comp = t_xor + (uint64_t)op->n_fbc * p->t_fbc + (uint64_t)op->n_cmp * p->t_cmp;
	d_do = op->n_dout ? (uint64_t)op->n_dout * p->t_rr +
			    ft_t_xfer(bytes, p->channel_mbps) : 0;

	a = ft_max(ready, pl->ca_ready);
	if (!cache)
		a = ft_max(a, ft_max(pl->arr_free, pl->out_free));
	/*
	 * C/A cycles are charged to the plane and counted as channel busy
	 * time, but do not queue on the channel: the controller slips them in
	 * between other dies' data bursts (CE# switching), and the bursts it
	 * has already scheduled here are commitments that cannot move.
	 */
	s_ca = a;
	r0 = ft_max(ft_max(s_ca + ft->t_ca, pl->arr_free), r0_min);
	c1 = r0 + p->t_read[op->mode] + comp;
	if (cache && t_xor) {
		/*
		 * REIS 4.3.4 PL: the XOR of the sensed page with the query in
		 * the cache latch writes the data latch, and that frees the
		 * array; counting, compare and data-out work on the data latch
		 * while the next page senses (A25).
		 */
		m0 = ft_max(r0 + p->t_read[op->mode], pl->out_free);
		new_arr = m0 + t_xor;
		c1 = new_arr + comp - t_xor;
		end = d_do ? ft_dout_locked(ft, cmd, ch, die, op, d_do, c1) : c1;
		pl->out_free = end;
		pl->ca_ready = r0 + p->t_read[op->mode];
	} else if (cache && d_do) {
		m0 = ft_max(c1, pl->out_free);
		new_arr = m0 + p->t_cache_busy;
		end = ft_dout_locked(ft, cmd, ch, die, op, d_do, new_arr);
		pl->out_free = end;
		pl->ca_ready = c1;
	} else if (cache) {
		end = new_arr = c1;
		pl->ca_ready = c1;
	} else {
		end = d_do ? ft_dout_locked(ft, cmd, ch, die, op, d_do, c1) : c1;
		new_arr = end;
		pl->out_free = end;
		pl->ca_ready = end;
	}
	/* Plane busy = array occupancy, counted once where reservations chain. */
	a = ft_max(s_ca, pl->arr_free);
	ft_acct_busy(ac, ISP_RES_PLANE, new_arr > a ? new_arr - a : 0);
	pl->arr_free = new_arr;
	ft_acct_busy(ac, ISP_RES_CHANNEL, ft->t_ca + d_do);
	ft_acct_busy(ac, ISP_RES_DIE, ft->t_ca + d_do);

	ft_read_account(ft, ac, op, bytes);
	if (cmd->trace)
		ft_read_trace(ft, cmd, plane, op, s_ca, r0, cache && d_do && !t_xor, m0);
	ac->end = ft_max(ac->end, end);
	return end;
}

/*
 * Multi-plane rule: the reads sense together, after every plane and the
 * die's array are free; the die's array is then busy for one tR.
 */
static uint64_t ft_mp_locked(struct ft *ft, struct ft_cmd *cmd, struct ft_acct *ac,
			     unsigned n, const uint32_t *planes, const struct ft_page_op *ops,
			     uint64_t ready, uint64_t *ends)
{
	struct ft_die *d = &ft->die[planes[0] / ft->P];
	uint64_t g = d->arr_end, end, last = ready;
	unsigned i;

	for (i = 0; i < n; i++)
		g = ft_max(g, ft_read_r0(ft, &ft->plane[planes[i]], &ops[i], ready));
	for (i = 0; i < n; i++) {
		end = ft_read_locked(ft, cmd, ac, planes[i], &ops[i], ready, g);
		if (ends)
			ends[i] = end;
		last = ft_max(last, end);
	}
	d->arr_end = g + ft->p.t_read[ops[0].mode];
	return last;
}

uint64_t ft_page_read(struct ft *ft, struct ft_cmd *cmd, uint32_t plane,
		      const struct ft_page_op *op, uint64_t ready)
{
	struct ft_acct ac;
	uint64_t end;

	if (plane >= ft->NP || !ft_op_ok(op))
		return ft_fail(cmd, ready);
	memset(&ac, 0, sizeof(ac));
	pthread_mutex_lock(&ft->lock);
	if (op->flags & FT_OP_MP)
		end = ft_mp_locked(ft, cmd, &ac, 1, &plane, op, ft_ready(cmd, ready), NULL);
	else
		end = ft_read_locked(ft, cmd, &ac, plane, op, ft_ready(cmd, ready), 0);
	ft_acct_apply(ft, cmd, &ac);
	pthread_mutex_unlock(&ft->lock);
	return end;
}

uint64_t ft_page_read_mp(struct ft *ft, struct ft_cmd *cmd, unsigned n,
			 const uint32_t *planes, const struct ft_page_op *ops,
			 uint64_t ready, uint64_t *ends)
{
	struct ft_acct ac;
	uint32_t mask = 0;
	uint64_t end;
	unsigned i;

	if (!planes || !ops || !n || n > ft->P)
		return ft_fail(cmd, ready);
	for (i = 0; i < n; i++) {
		if (planes[i] >= ft->NP || !ft_op_ok(&ops[i]) || !(ops[i].flags & FT_OP_MP) ||
		    planes[i] / ft->P != planes[0] / ft->P ||
		    (mask & (1u << (planes[i] % ft->P))) ||
		    ops[i].page != ops[0].page || ops[i].mode != ops[0].mode)
			return ft_fail(cmd, ready);
		mask |= 1u << (planes[i] % ft->P);
	}
	memset(&ac, 0, sizeof(ac));
	pthread_mutex_lock(&ft->lock);
	end = ft_mp_locked(ft, cmd, &ac, n, planes, ops, ft_ready(cmd, ready), ends);
	ft_acct_apply(ft, cmd, &ac);
	pthread_mutex_unlock(&ft->lock);
	return end;
}

uint64_t ft_page_read_row(struct ft *ft, struct ft_cmd *cmd, uint32_t n, const uint32_t *planes,
			  const struct ft_page_op *ops, const uint64_t *dram_bytes, uint64_t ready,
			  uint64_t *ends)
{
	struct ft_acct ac;
	uint64_t end, last;
	uint32_t i;

	if (n && (!planes || !ops))
		return ft_fail(cmd, ready);
	for (i = 0; i < n; i++)
		if (planes[i] >= ft->NP || !ft_op_ok(&ops[i]) ||
		    (dram_bytes && dram_bytes[i] > FT_MAX_BYTES))
			return ft_fail(cmd, ready);
	memset(&ac, 0, sizeof(ac));
	pthread_mutex_lock(&ft->lock);
	ready = ft_ready(cmd, ready);
	last = ready;
	for (i = 0; i < n; i++) {
		if (ops[i].flags & FT_OP_MP)
			end = ft_mp_locked(ft, cmd, &ac, 1, &planes[i], &ops[i], ready, NULL);
		else
			end = ft_read_locked(ft, cmd, &ac, planes[i], &ops[i], ready, 0);
		if (dram_bytes && dram_bytes[i])
			end = ft_dram_locked(ft, cmd, &ac, dram_bytes[i], end);
		if (ends)
			ends[i] = end;
		last = ft_max(last, end);
	}
	ft_acct_apply(ft, cmd, &ac);
	pthread_mutex_unlock(&ft->lock);
	return last;
}

/* Hold every stage of plane @pl until @t. */
static void ft_plane_hold(struct ft_plane *pl, uint64_t t)
{
	pl->ca_ready = ft_max(pl->ca_ready, t);
	pl->arr_free = ft_max(pl->arr_free, t);
	pl->out_free = ft_max(pl->out_free, t);
}

static uint64_t ft_plane_idle(const struct ft_plane *pl)
{
	return ft_max(pl->ca_ready, ft_max(pl->arr_free, pl->out_free));
}

uint64_t ft_budget_take(struct ft *ft, uint64_t t, uint64_t d)
{
	uint64_t s, k = ft->p.ftl_prog_max;

	if (!ft->budget.iv || !d)
		return t;
	pthread_mutex_lock(&ft->lock);
	s = ft_cal_take(ft, &ft->budget, t, (d + k - 1) / k);
	pthread_mutex_unlock(&ft->lock);
	return s;
}

uint64_t ft_plane_free(struct ft *ft, uint32_t plane)
{
	uint64_t t;

	if (plane >= ft->NP)
		return 0;
	pthread_mutex_lock(&ft->lock);
	t = ft_plane_idle(&ft->plane[plane]);
	pthread_mutex_unlock(&ft->lock);
	return t;
}

uint64_t ft_page_program(struct ft *ft, struct ft_cmd *cmd, uint32_t plane,
			 uint32_t mode, uint32_t bytes, uint64_t ready)
{
	const struct fp_params *p = &ft->p;
	uint32_t die = plane / ft->P, ch;
	struct ft_plane *pl;
	uint64_t d_in, s, end;

	if (plane >= ft->NP || mode < ISP_CELL_SLC || mode > ISP_CELL_QLC ||
	    bytes > (1u << 24))
		return ft_fail(cmd, ready);
	ch = die / ft->D;
	pthread_mutex_lock(&ft->lock);
	pl = &ft->plane[plane];
	d_in = ft->t_ca + ft_t_xfer(bytes, p->channel_mbps);
	s = ft_cal_take(ft, &ft->chan[ch], ft_max(ft_ready(cmd, ready), ft_plane_idle(pl)), d_in);
	end = s + d_in + p->t_prog[mode];
	ft_plane_hold(pl, end);
	ft_busy(ft, cmd, ISP_RES_PLANE, end - s);
	ft_busy(ft, cmd, ISP_RES_CHANNEL, d_in);
	ft_busy(ft, cmd, ISP_RES_DIE, d_in);
	ft_energy(ft, cmd, p->e_prog[mode] + ft_sat_mul(bytes, p->e_channel_byte));
	cmd->page_programs[mode]++;
	ft->st.page_programs[mode]++;
	cmd->channel_bytes += bytes;
	ft->st.channel_bytes += bytes;
	ft_ev(cmd, ISP_RES_CHANNEL, ch, "DI", s, d_in);
	ft_ev(cmd, ISP_RES_DIE, die, "DI", s, d_in);
	ft_ev(cmd, ISP_RES_PLANE, plane, "PROG", s + d_in, p->t_prog[mode]);
	ft_done(cmd, end);
	pthread_mutex_unlock(&ft->lock);
	return end;
}

uint64_t ft_block_erase(struct ft *ft, struct ft_cmd *cmd, uint32_t plane, uint64_t ready)
{
	const struct fp_params *p = &ft->p;
	struct ft_plane *pl;
	uint64_t s, end;

	if (plane >= ft->NP)
		return ft_fail(cmd, ready);
	pthread_mutex_lock(&ft->lock);
	pl = &ft->plane[plane];
	s = ft_max(ft_ready(cmd, ready), ft_plane_idle(pl));	/* C/A as in reads */
	end = s + ft->t_ca + p->t_erase;
	ft_plane_hold(pl, end);
	ft_busy(ft, cmd, ISP_RES_PLANE, end - s);
	ft_busy(ft, cmd, ISP_RES_CHANNEL, ft->t_ca);
	ft_busy(ft, cmd, ISP_RES_DIE, ft->t_ca);
	ft_energy(ft, cmd, p->e_erase);
	cmd->erases++;
	ft->st.erases++;
	ft_ev(cmd, ISP_RES_PLANE, plane, "CA", s, ft->t_ca);
	ft_ev(cmd, ISP_RES_PLANE, plane, "ERASE", s + ft->t_ca, p->t_erase);
	ft_done(cmd, end);
	pthread_mutex_unlock(&ft->lock);
	return end;
}

/*
 * IBC (REIS Table 2 "send a copy of the query to each page buffer", 4.3.2):
 * the channel carries one copy of @copy bytes per plane (with MPIBC one
 * per broadcast, latched by every plane it selects, 4.3.4); the die then
 * writes the other copies into the cache latch until it holds @fill bytes,
 * at its I/O byte rate, off the channel (A24). The die I/O serves one
 * transfer at a time. A plane takes the query once its part of the
 * previous one is done (its latch is free): without MPIBC each plane in
 * turn; with MPIBC each broadcast selects every plane free by its start
 * (4.3.4: the die periphery's multiplexer raises the planes' select
 * signals), so planes freed together share one transfer, as the paper's
 * one-query case, and a plane still busy with the previous query gets a
 * later broadcast instead of holding its freed siblings back. A copy is
 * not queued on the channel's calendar (A28): it counts as channel busy
 * time, bytes and energy, and starts when its die and planes are free.
 * Dies @d0 to @d0 + @nd - 1, charged together; returns the last end.
 * @die_hold: every plane of a die holds until the die's last copy is in
 * (ft_ibc_dies()'s FT_IBC_DIE: the die's page reads follow its whole IBC).
 */
static uint64_t ft_ibc_locked(struct ft *ft, struct ft_cmd *cmd, uint32_t d0, uint32_t nd,
			      uint32_t copy, uint32_t fill, int mpibc, int die_hold,
			      uint64_t ready)
{
	const struct fp_params *p = &ft->p;
	uint64_t xfer = ft->t_ca + ft_t_xfer(copy, p->channel_mbps);
	uint64_t dup = fill > copy ? ft_t_xfer(fill - copy, p->ibc_fill_mbps ? p->ibc_fill_mbps :
					       p->channel_mbps) : 0;
	uint64_t idle[16], s, last = ready;	/* P <= 16 (fp_validate) */
	uint64_t nb = 0;
	uint32_t ord[16], die, i, j, k;

	for (die = d0; die < d0 + nd; die++) {
		uint32_t first = die * ft->P;
		uint64_t die_free = ready;

		/* Planes by the time they free (stable: ties keep plane order). */
		for (i = 0; i < ft->P; i++) {
			idle[i] = ft_plane_idle(&ft->plane[first + i]);
			for (j = i; j > 0 && idle[ord[j - 1]] > idle[i]; j--)
				ord[j] = ord[j - 1];
			ord[j] = i;
		}
		for (i = 0; i < ft->P; i = k) {
			s = ft_max(die_free, idle[mpibc ? ord[i] : i]);
			/* With MPIBC the transfer selects every plane free by @s. */
			for (k = i + 1; mpibc && k < ft->P && idle[ord[k]] <= s; k++)
				;
			if (!mpibc)
				k = i + 1;
			die_free = s + xfer + dup;
			/* With @die_hold every plane holds till the die's last
			 * copy below (a later, larger end): these holds would be
			 * overwritten. */
			for (j = i; j < k && (!die_hold || cmd->trace); j++) {
				uint32_t pl = first + (mpibc ? ord[j] : j);

				if (!die_hold)
					ft_plane_hold(&ft->plane[pl], die_free);
				ft_ev(cmd, ISP_RES_PLANE, pl, "IBC", s, xfer + dup);
			}
			ft_ev(cmd, ISP_RES_CHANNEL, die / ft->D, "IBC", s, xfer);
			ft_ev(cmd, ISP_RES_DIE, die, "IBC", s, xfer + dup);
			nb++;
		}
		if (die_hold)
			for (i = 0; i < ft->P; i++)
				ft_plane_hold(&ft->plane[first + i], die_free);
		last = ft_max(last, die_free);
	}
	ft_busy(ft, cmd, ISP_RES_PLANE, ft_sat_mul(xfer + dup, (uint64_t)ft->P * nd));
	ft_busy(ft, cmd, ISP_RES_CHANNEL, ft_sat_mul(xfer, nb));
	ft_busy(ft, cmd, ISP_RES_DIE, ft_sat_mul(xfer + dup, nb));
	ft_energy(ft, cmd, ft_sat_mul(copy * nb, p->e_channel_byte));
	cmd->channel_bytes += copy * nb;
	ft->st.channel_bytes += copy * nb;
	ft_done(cmd, last);
	return last;
}

uint64_t ft_ibc(struct ft *ft, struct ft_cmd *cmd, uint32_t die, uint32_t copy,
		uint32_t fill, int mpibc, uint64_t ready)
{
	uint64_t end;

	if (die >= ft->ND || copy > (1u << 24) || fill > (1u << 24))
		return ft_fail(cmd, ready);
	pthread_mutex_lock(&ft->lock);
	end = ft_ibc_locked(ft, cmd, die, 1, copy, fill, mpibc, 0, ft_ready(cmd, ready));
	pthread_mutex_unlock(&ft->lock);
	return end;
}

uint64_t ft_ibc_all(struct ft *ft, struct ft_cmd *cmd, uint32_t copy, uint32_t fill,
		    int mpibc, uint64_t ready)
{
	uint64_t end;

	if (copy > (1u << 24) || fill > (1u << 24))
		return ft_fail(cmd, ready);
	pthread_mutex_lock(&ft->lock);
	end = ft_ibc_locked(ft, cmd, 0, ft->ND, copy, fill, mpibc, 0, ft_ready(cmd, ready));
	pthread_mutex_unlock(&ft->lock);
	return end;
}

uint64_t ft_ibc_dies(struct ft *ft, struct ft_cmd *cmd, uint32_t copy, uint32_t fill,
		     uint32_t flags, uint64_t ready)
{
	uint64_t end;

	if (copy > (1u << 24) || fill > (1u << 24) || (flags & ~(FT_IBC_MPIBC | FT_IBC_DIE)))
		return ft_fail(cmd, ready);
	pthread_mutex_lock(&ft->lock);
	end = ft_ibc_locked(ft, cmd, 0, ft->ND, copy, fill, (flags & FT_IBC_MPIBC) != 0,
			    (flags & FT_IBC_DIE) != 0, ft_ready(cmd, ready));
	pthread_mutex_unlock(&ft->lock);
	return end;
}

static uint64_t ft_core_locked(struct ft *ft, struct ft_cmd *cmd, int core,
			       uint64_t cycles, const char *label, uint64_t ready)
{
	const struct fp_params *p = &ft->p;
	uint64_t dur = ft_t_cycles(p, cycles), s, best = UINT64_MAX;
	uint32_t lo, hi, k, pick = 0, at, best_at = UINT32_MAX;

	if (core >= 0) {
		lo = (uint32_t)core;
		hi = lo + 1;
	} else if (core == FT_CORE_ISP || p->isp_cores >= p->cores) {
		lo = 0;
		hi = core == FT_CORE_ISP ? p->isp_cores : p->cores;
	} else {
		lo = p->isp_cores;
		hi = p->cores;
	}
	for (k = lo; k < hi; k++) {
		s = ft_cal_find_at(&ft->core[k], ready, dur, &at);
		if (s < best) {
			best = s;
			pick = k;
			best_at = at;
		}
	}
	ft_cal_add_at(&ft->core[pick], best, dur, ft->floor, best_at);
	ft_busy(ft, cmd, ISP_RES_CORE, dur);
	ft_energy(ft, cmd, ft_sat_mul(cycles, p->e_core_cycle));
	cmd->core_cycles = ft_sat_add(cmd->core_cycles, cycles);
	ft->st.core_cycles = ft_sat_add(ft->st.core_cycles, cycles);
	ft_ev(cmd, ISP_RES_CORE, pick, label ? label : "work", best, dur);
	ft_done(cmd, best + dur);
	return best + dur;
}

uint64_t ft_core(struct ft *ft, struct ft_cmd *cmd, int core, uint64_t cycles,
		 const char *label, uint64_t ready)
{
	uint64_t end;

	if (cycles > FT_MAX_CYCLES || core < FT_CORE_FTL ||
	    (core >= 0 && (uint32_t)core >= ft->p.cores))
		return ft_fail(cmd, ready);
	if (!cycles)
		return ft_ready(cmd, ready);
	pthread_mutex_lock(&ft->lock);
	end = ft_core_locked(ft, cmd, core, cycles, label, ft_ready(cmd, ready));
	pthread_mutex_unlock(&ft->lock);
	return end;
}

uint64_t ft_ctrl(struct ft *ft, struct ft_cmd *cmd, uint64_t ready)
{
	const struct fp_params *p = &ft->p;
	uint64_t cycles, s, best = UINT64_MAX, end;
	uint32_t lo, hi, k, pick = 0, at, best_at = UINT32_MAX;

	if (!p->ctrl_cmd)
		return ft_ready(cmd, ready);
	cycles = p->ctrl_cmd * p->core_mhz / 1000000u;
	pthread_mutex_lock(&ft->lock);
	ready = ft_ready(cmd, ready);
	lo = p->isp_cores < p->cores ? p->isp_cores : 0;
	hi = p->cores;
	for (k = lo; k < hi; k++) {
		s = ft_cal_find_at(&ft->core[k], ready, p->ctrl_cmd, &at);
		if (s < best) {
			best = s;
			pick = k;
			best_at = at;
		}
	}
	ft_cal_add_at(&ft->core[pick], best, p->ctrl_cmd, ft->floor, best_at);
	end = best + p->ctrl_cmd;
	ft_busy(ft, cmd, ISP_RES_CORE, p->ctrl_cmd);
	ft_energy(ft, cmd, ft_sat_mul(cycles, p->e_core_cycle));
	cmd->core_cycles += cycles;
	ft->st.core_cycles += cycles;
	ft_ev(cmd, ISP_RES_CORE, pick, "ctrl", best, p->ctrl_cmd);
	ft_done(cmd, end);
	pthread_mutex_unlock(&ft->lock);
	return end;
}

static uint64_t ft_dram_locked(struct ft *ft, struct ft_cmd *cmd, struct ft_acct *ac,
			       uint64_t bytes, uint64_t ready)
{
	uint64_t dur = ft_t_xfer(bytes, ft->p.dram_mbps);
	uint64_t s = ft_cal_take(ft, &ft->dram, ready, dur);

	ft_acct_busy(ac, ISP_RES_DRAM, dur);
	ft_acct_energy(ac, ft_sat_mul(bytes, ft->p.e_dram_byte));
	ac->dram_bytes += bytes;
	ft_ev(cmd, ISP_RES_DRAM, 0, "DRAM", s, dur);
	ac->end = ft_max(ac->end, s + dur);
	return s + dur;
}

uint64_t ft_dram(struct ft *ft, struct ft_cmd *cmd, uint64_t bytes, uint64_t ready)
{
	struct ft_acct ac;
	uint64_t end;

	if (bytes > FT_MAX_BYTES)
		return ft_fail(cmd, ready);
	if (!bytes)
		return ft_ready(cmd, ready);
	memset(&ac, 0, sizeof(ac));
	pthread_mutex_lock(&ft->lock);
	end = ft_dram_locked(ft, cmd, &ac, bytes, ft_ready(cmd, ready));
	ft_acct_apply(ft, cmd, &ac);
	pthread_mutex_unlock(&ft->lock);
	return end;
}

uint64_t ft_dma(struct ft *ft, struct ft_cmd *cmd, enum ft_dir dir, uint64_t bytes,
		uint64_t ready)
{
	uint64_t dur, s;

	if (bytes > FT_MAX_BYTES || (dir != FT_H2C && dir != FT_C2H))
		return ft_fail(cmd, ready);
	if (!bytes)
		return ft_ready(cmd, ready);
	dur = ft_t_xfer(bytes, ft->p.link_mbps);
	pthread_mutex_lock(&ft->lock);
	s = ft_cal_take(ft, &ft->link[dir], ft_ready(cmd, ready), dur);
	ft_busy(ft, cmd, ISP_RES_LINK, dur);
	ft_energy(ft, cmd, ft_sat_mul(bytes, ft->p.e_link_byte));
	cmd->link_bytes[dir] += bytes;
	ft->st.link_bytes[dir] += bytes;
	ft_ev(cmd, ISP_RES_LINK, dir, dir == FT_H2C ? "DMA h2c" : "DMA c2h", s, dur);
	ft_done(cmd, s + dur);
	pthread_mutex_unlock(&ft->lock);
	return s + dur;
}

/* ---- analytic mode ---- */

uint64_t ft_batch_read(struct ft *ft, struct ft_cmd *cmd, const struct ft_batch *b,
		       uint64_t ready)
{
	struct ft_acct ac;
	uint64_t i, end, last;

	if (!b || !ft_op_ok(&b->op) || b->count > FT_MAX_BATCH ||
	    b->first > FT_MAX_BATCH || b->dram_bytes > (1u << 24) ||
	    b->core_cycles > FT_MAX_CYCLES || b->core < FT_CORE_FTL ||
	    (b->core >= 0 && (uint32_t)b->core >= ft->p.cores))
		return ft_fail(cmd, ready);
	memset(&ac, 0, sizeof(ac));
	pthread_mutex_lock(&ft->lock);
	ready = ft_ready(cmd, ready);
	last = ready;
	for (i = b->first; i < b->first + b->count; i++) {
		uint32_t plane = fg_pfpa_plane_of(ft->C, ft->D, ft->P, i);

		if (b->op.flags & FT_OP_MP)
			end = ft_mp_locked(ft, cmd, &ac, 1, &plane, &b->op, ready, NULL);
		else
			end = ft_read_locked(ft, cmd, &ac, plane, &b->op, ready, 0);
		if (b->dram_bytes)
			end = ft_dram_locked(ft, cmd, &ac, b->dram_bytes, end);
		if (b->core_cycles)
			end = ft_core_locked(ft, cmd, b->core, b->core_cycles,
					     b->core_label, end);
		last = ft_max(last, end);
	}
	ft_acct_apply(ft, cmd, &ac);
	pthread_mutex_unlock(&ft->lock);
	return last;
}

/* ---- statistics ---- */

void ft_get_stats(struct ft *ft, struct ft_stats *out, int reset)
{
	uint64_t nres[ISP_RES_NCLASSES];

	pthread_mutex_lock(&ft->lock);
	*out = ft->st;
	if (reset) {
		memcpy(nres, ft->st.nres, sizeof(nres));
		memset(&ft->st, 0, sizeof(ft->st));
		memcpy(ft->st.nres, nres, sizeof(nres));
	}
	pthread_mutex_unlock(&ft->lock);
}

void ft_stats_to_wire(const struct ft_stats *s, struct isp_wire_stats *w)
{
	int i;

	for (i = 0; i < 5; i++) {
		w->page_reads[i] = s->page_reads[i];
		w->page_programs[i] = s->page_programs[i];
	}
	w->block_erases = s->erases;
	w->channel_bytes = s->channel_bytes;
	w->link_bytes_h2c = s->link_bytes[FT_H2C];
	w->link_bytes_c2h = s->link_bytes[FT_C2H];
	for (i = 0; i < ISP_RES_NCLASSES; i++) {
		w->busy_ns[i] = s->busy_ps[i] / FT_PS_PER_NS;
		w->nres[i] = s->nres[i];
	}
	w->model_ns = s->model_ps / FT_PS_PER_NS;
	w->energy_pj = s->energy_pj;
}
