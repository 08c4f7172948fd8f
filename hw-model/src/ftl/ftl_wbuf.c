/* SPDX-License-Identifier: MIT */
/*
 * ftl_wbuf.c - the write buffer in controller DRAM (docs/ftl.md, "Write
 * buffer"): a host write completes once its data is in the buffer; units
 * fill a page at a time, planes taken in Parallelism-First order, and a
 * full page is read out of DRAM and programmed on its plane. A unit holds
 * its buffer room until its page's program ends, so a write that finds the
 * buffer full waits for the earliest program to end: sustained writes run
 * at the rate the planes program (and GC lets them). Reads of units still
 * in the buffer come from DRAM.
 */
#include <errno.h>
#include <stdlib.h>

#include "ftl_int.h"

#define FTL_GROW_BACKOFF_PS (UINT64_C(10) * 1000 * 1000 * 1000)	/* 10 ms */

/* ---- the heap of issued host programs, by end time ---- */

static void ftl_wb_swap(struct ftl_wb *a, struct ftl_wb *b)
{
	struct ftl_wb t = *a;

	*a = *b;
	*b = t;
}

void ftl_wb_push(struct ftl *f, const struct ftl_wb *e)
{
	uint32_t i;

	if (f->nwb == f->capwb) {
		uint32_t n = f->capwb ? f->capwb * 2 : 64;
		struct ftl_wb *w = realloc(f->wb, n * sizeof(*w));

		if (!w) {
			/* out of memory: the room frees at once (never stalls) */
			f->wb_used -= e->units;
			return;
		}
		f->wb = w;
		f->capwb = n;
	}
	i = f->nwb++;
	f->wb[i] = *e;
	while (i && f->wb[(i - 1) / 2].end > f->wb[i].end) {
		ftl_wb_swap(&f->wb[(i - 1) / 2], &f->wb[i]);
		i = (i - 1) / 2;
	}
}

static void ftl_wb_pop(struct ftl *f)
{
	uint32_t i = 0, c;

	f->wb_used -= f->wb[0].units;
	f->wb[0] = f->wb[--f->nwb];
	for (;;) {
		c = 2 * i + 1;
		if (c >= f->nwb)
			break;
		if (c + 1 < f->nwb && f->wb[c + 1].end < f->wb[c].end)
			c++;
		if (f->wb[i].end <= f->wb[c].end)
			break;
		ftl_wb_swap(&f->wb[i], &f->wb[c]);
		i = c;
	}
}

/*
 * Room for @n units at or after @t: programs that ended by then give
 * theirs back; if the buffer is still full, wait for the next ends.
 * Returns when the room is there (>= @t) and takes it.
 */
uint64_t ftl_wb_room(struct ftl *f, uint64_t n, uint64_t t)
{
	uint64_t want = n < f->wb_cap ? n : f->wb_cap;

	while (f->nwb && f->wb[0].end <= t)
		ftl_wb_pop(f);
	while (f->nwb && f->wb_used + want > f->wb_cap) {
		t = ftl_max(t, f->wb[0].end);
		ftl_wb_pop(f);
	}
	f->wb_used += n;
	return t;
}

/* ---- programs and erases within the drive's budget (ftl_prog_max) ---- */

/* A page program (data-in, then t_prog) on @plane. */
uint64_t ftl_program(struct ftl *f, struct ft_cmd *bg, uint32_t plane, uint64_t ready)
{
	uint64_t d = ft_t_ca(&f->p) + ft_t_xfer(f->page_bytes, f->p.channel_mbps) +
		     f->p.t_prog[f->mode];
	uint64_t s = ft_budget_take(f->ft, ftl_max(ready, ft_plane_free(f->ft, plane)), d);

	return ft_page_program(f->ft, bg, plane, f->mode, (uint32_t)f->page_bytes,
			       ftl_max(ready, s));
}

/* A block erase on @plane. */
uint64_t ftl_erase(struct ftl *f, struct ft_cmd *bg, uint32_t plane, uint64_t ready)
{
	uint64_t d = ft_t_ca(&f->p) + f->p.t_erase;
	uint64_t s = ft_budget_take(f->ft, ftl_max(ready, ft_plane_free(f->ft, plane)), d);

	return ft_block_erase(f->ft, bg, plane, ftl_max(ready, s));
}

/* Whether the data of physical unit @pun is still in the controller at @t
 * (its page assembling, or its program not ended). */
int ftl_in_buffer(struct ftl *f, uint64_t pun, uint64_t t)
{
	uint32_t sb = ftl_pun_sb(f, pun), plane = ftl_pun_plane(f, pun);
	uint32_t page = ftl_pun_page(f, pun), i;
	const struct ftl_plane *pl = &f->pl[plane];

	if (f->host.sb == sb && f->host.plane == plane && f->host.page == page)
		return 1;
	if (pl->gc.sb == sb && pl->gc.page == page)
		return 1;
	if (ftl_blk_of(f, sb, plane)->prog_end <= t)
		return 0;
	for (i = 0; i < f->nwb; i++)
		if (f->wb[i].sb == sb && f->wb[i].plane == plane && f->wb[i].page == page)
			return f->wb[i].end > t;
	return 0;
}

/*
 * Program the assembled page @a (padded when not full): a host page is
 * read out of DRAM first and holds its buffer room until the program ends;
 * a GC page comes from the controller's own buffer. @bg NULL books no time
 * (the fill before power-on). Returns the program's end.
 */
uint64_t ftl_asm_program(struct ftl *f, struct ft_cmd *bg, struct ftl_asm *a, int host)
{
	struct ftl_blk *b = ftl_blk_of(f, a->sb, a->plane);
	uint64_t t = a->ready, end = 0;
	struct ftl_wb e;

	f->st.pad_bytes += (uint64_t)(f->upp - a->n) * FTL_UNIT;
	f->st.nand_write_bytes += f->page_bytes;
	if (bg) {
		if (host)
			t = ft_dram(f->ft, bg, f->page_bytes, t);
		end = ftl_program(f, bg, a->plane, ftl_max(t, b->avail));
		b->prog_end = ftl_max(b->prog_end, end);
		f->pl[a->plane].busy = ftl_max(f->pl[a->plane].busy, end);
		if (host) {
			e.end = end;
			e.sb = a->sb;
			e.plane = a->plane;
			e.page = a->page;
			e.units = a->n;
			ftl_wb_push(f, &e);
			f->wb_last = ftl_max(f->wb_last, end);
		}
	} else if (host) {
		f->wb_used -= a->n;
	}
	a->sb = FTL_NONE;
	a->n = 0;
	a->ready = 0;
	return end;
}

/* A stripe more, if the target allows and the store had one lately. */
static int ftl_try_grow(struct ftl *f, struct ft_cmd *bg, uint64_t now)
{
	if (f->held >= f->need_target || now < f->grow_after)
		return -ENOSPC;
	if (ftl_grow(f, bg, now) == 0)
		return 0;
	f->grow_after = now + FTL_GROW_BACKOFF_PS;
	return -ENOSPC;
}

/* Whether @p can take a host page now: an open host block, or a free
 * block to open beyond the one GC keeps (growing the FTL if it may); a
 * plane short of blocks starts GC. */
static int ftl_plane_ready(struct ftl *f, struct ft_cmd *bg, uint32_t p, uint64_t now)
{
	struct ftl_plane *pl = &f->pl[p];

	if (pl->host_sb != FTL_NONE)
		return 1;
	if (pl->nfree <= FTL_GC_KEEP)
		ftl_try_grow(f, bg, now);
	if (pl->nfree > FTL_GC_KEEP)
		return 1;
	ftl_gc_start(f, p);
	return 0;
}

/*
 * The next host page: the planes in Parallelism-First order from the
 * cursor, the first one idle at @now, else the one that frees first (a
 * controller sends data where a plane waits for it: a plane busy with GC
 * is passed over instead of holding the write buffer). Opening a block
 * that leaves FTL_GC_START or fewer free grows the FTL if it may, else
 * starts GC there in the background. When no plane has a block, GC on the
 * cursor's plane gives one at once (the program then waits for its erase).
 */
static int ftl_host_page(struct ftl *f, struct ft_cmd *bg, uint64_t now)
{
	uint32_t tries, p, sb, best = FTL_NONE;
	uint64_t k, best_k = 0, best_t = UINT64_MAX, t;
	struct ftl_plane *pl;
	struct ftl_blk *b;

	for (tries = 0; tries < f->NP; tries++) {
		k = f->rr + tries;
		p = fg_pfpa_plane(f->g, k);
		if (!ftl_plane_ready(f, bg, p, now))
			continue;
		t = f->pl[p].busy;
		if (t < best_t) {
			best = p;
			best_k = k;
			best_t = t;
		}
		if (t <= now)
			break;
	}
	for (tries = 0; best == FTL_NONE && tries < f->NP; tries++) {
		k = f->rr + tries;
		p = fg_pfpa_plane(f->g, k);
		if (ftl_gc_force(f, bg, p, now) == 0) {
			best = p;
			best_k = k;
		}
	}
	if (best == FTL_NONE)
		return -ENOSPC;
	f->rr = best_k + 1;
	p = best;
	pl = &f->pl[p];
	if (pl->host_sb == FTL_NONE) {
		sb = ftl_free_pop(f, p);
		ftl_blk_of(f, sb, p)->state = FTL_B_HOST;
		pl->host_sb = sb;
		if (pl->nfree <= FTL_GC_START && ftl_try_grow(f, bg, now))
			ftl_gc_start(f, p);
	}
	b = ftl_blk_of(f, pl->host_sb, p);
	f->host.sb = pl->host_sb;
	f->host.plane = p;
	f->host.page = b->wp++;
	f->host.n = 0;
	f->host.ready = 0;
	b->mtime = now;
	if (b->wp == f->ppb) {
		b->state = FTL_B_CLOSED;
		pl->host_sb = FTL_NONE;
	}
	return 0;
}

/*
 * Host unit @lun enters the buffer at @ready: it takes the next slot of
 * the page being assembled (the map points there now); a full page
 * programs. @now: the command's start (for GC and growth decisions).
 */
int ftl_host_place(struct ftl *f, struct ft_cmd *bg, uint64_t lun, uint64_t ready,
		   uint64_t now)
{
	int ret;

	if (f->host.sb == FTL_NONE) {
		ret = ftl_host_page(f, bg, now);
		if (ret)
			return ret;
	}
	ftl_bind(f, lun, ftl_pun(f, f->host.sb, f->host.plane, f->host.page, f->host.n));
	f->host.n++;
	f->host.ready = ftl_max(f->host.ready, ready);
	if (f->host.n == f->upp)
		ftl_asm_program(f, bg, &f->host, 1);
	return 0;
}

/* Flush: the page being assembled programs (padded); returns when every
 * host program issued so far has ended. */
uint64_t ftl_host_flush(struct ftl *f, struct ft_cmd *bg)
{
	if (f->host.sb != FTL_NONE && f->host.n)
		ftl_asm_program(f, bg, &f->host, 1);
	return f->wb_last;
}
