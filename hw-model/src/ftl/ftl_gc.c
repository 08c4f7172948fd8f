/* SPDX-License-Identifier: MIT */
/*
 * ftl_gc.c - garbage collection, per plane (docs/ftl.md, "GC"): when a
 * plane is down to FTL_GC_KEEP free blocks, a victim among its closed
 * blocks gives its valid units to the plane's GC destination block (page
 * read with the units' data-out, then a program of each full page), then
 * is erased and freed. Victim: fewest valid units (greedy, ftl_gc = 0), or
 * the best (1 - u) / 2u * age (cost-benefit, Rosenblum & Ousterhout's LFS,
 * ftl_gc = 1).
 *
 * Pacing: a step moves one victim page. Writes advance GC on every plane
 * that has it running while its booked work ends less than one program
 * time (the horizon) after the write's start, so GC interleaves with host
 * reads and programs instead of holding a plane for a whole block (planes
 * serve their operations in issue order). A plane that has no block left
 * to open gets one from GC at once, without the horizon (ftl_gc_force).
 */
#include <errno.h>
#include <string.h>

#include "ftl_int.h"

/* Steps one plane may take per advance (bounds a call's host time). */
#define FTL_GC_STEPS_MAX 64u

/* Whether block (@s, @plane) holds a page still being assembled. */
static int ftl_blk_assembling(const struct ftl *f, uint32_t s, uint32_t plane)
{
	return (f->host.sb == s && f->host.plane == plane) || f->pl[plane].gc.sb == s;
}

uint32_t ftl_gc_victim(struct ftl *f, uint32_t plane, uint64_t now)
{
	uint64_t cap = (uint64_t)f->ppb * f->upp;
	uint32_t s, best = FTL_NONE;
	unsigned __int128 bn = 0, bd = 1;	/* best score bn / bd */

	for (s = 0; s < f->nsb; s++) {
		const struct ftl_blk *b = ftl_blk_of(f, s, plane);
		unsigned __int128 n, d;
		uint64_t age;

		if (!f->sb[s].region || f->sb[s].leaving || b->state != FTL_B_CLOSED ||
		    b->valid >= cap || ftl_blk_assembling(f, s, plane))
			continue;
		if (f->p.ftl_gc == 0) {
			/* greedy: fewest valid; ties to the lower slot */
			n = cap - b->valid;
			d = 1;
		} else {
			/* cost-benefit: (1 - u) / (2u) * age, u = valid / cap */
			age = (now > b->mtime ? now - b->mtime : 0) + 1;
			n = (unsigned __int128)(cap - b->valid) * age;
			d = 2 * (unsigned __int128)(b->valid ? b->valid : 1);
			if (!b->valid)
				n *= cap;	/* an empty block beats any partly valid one */
		}
		if (best == FTL_NONE || n * bd > bn * d) {
			best = s;
			bn = n;
			bd = d;
		}
	}
	/*
	 * No closed block to take: the open GC destination itself, when what
	 * it holds was overwritten since (all the plane's spare space may sit
	 * in it, e.g. after sequential overwrites of a drive at its minimum).
	 */
	if (best == FTL_NONE && f->pl[plane].gc_sb != FTL_NONE && f->pl[plane].gc.sb == FTL_NONE) {
		const struct ftl_blk *b = ftl_blk_of(f, f->pl[plane].gc_sb, plane);

		if (b->wp && b->valid < (uint64_t)b->wp * f->upp)
			best = f->pl[plane].gc_sb;
	}
	return best;
}

void ftl_gc_start(struct ftl *f, uint32_t plane)
{
	if (f->pl[plane].gc_on)
		return;
	f->pl[plane].gc_on = 1;
	f->gc_list[f->ngc++] = plane;
}

static void ftl_gc_stop(struct ftl *f, uint32_t plane)
{
	uint32_t i;

	if (!f->pl[plane].gc_on)
		return;
	f->pl[plane].gc_on = 0;
	for (i = 0; i < f->ngc; i++)
		if (f->gc_list[i] == plane) {
			f->gc_list[i] = f->gc_list[--f->ngc];
			break;
		}
}

/* The next slot of @plane's GC destination page (a new page, or a new
 * block from the free list, as needed). Returns the pun or FTL_NONE. */
static uint32_t ftl_gc_dest(struct ftl *f, uint32_t plane, uint64_t now)
{
	struct ftl_plane *pl = &f->pl[plane];
	struct ftl_blk *b;

	if (pl->gc.sb == FTL_NONE) {
		if (pl->gc_sb == FTL_NONE) {
			uint32_t sb = ftl_free_pop(f, plane);

			if (sb == FTL_NONE)
				return FTL_NONE;
			ftl_blk_of(f, sb, plane)->state = FTL_B_GC;
			pl->gc_sb = sb;
		}
		b = ftl_blk_of(f, pl->gc_sb, plane);
		pl->gc.sb = pl->gc_sb;
		pl->gc.plane = plane;
		pl->gc.page = b->wp++;
		pl->gc.n = 0;
		pl->gc.ready = 0;
		b->mtime = now;
		if (b->wp == f->ppb) {
			b->state = FTL_B_CLOSED;
			pl->gc_sb = FTL_NONE;
		}
	}
	return (uint32_t)ftl_pun(f, pl->gc.sb, plane, pl->gc.page, pl->gc.n);
}

/* Valid units of page @page of block (@s, @plane): their slots in @slots. */
static uint32_t ftl_page_valid(struct ftl *f, uint32_t s, uint32_t plane, uint32_t page,
			       uint32_t *slots)
{
	const uint32_t *p2l = &f->sb[s].p2l[((uint64_t)plane * f->ppb + page) * f->upp];
	uint32_t k, n = 0;

	for (k = 0; k < f->upp; k++)
		if (p2l[k] != FTL_NONE)
			slots[n++] = k;
	return n;
}

/*
 * One step of GC on @plane at @now: pick a victim if none, move the valid
 * units of its next page that has any, or, once every page is done, pad
 * the GC page, erase the victim and free it. Returns 1 if it did
 * something, 0 if GC has nothing to do there (it stops), -ENOSPC if the
 * plane has no destination block (not expected: GC keeps one).
 */
int ftl_gc_step(struct ftl *f, struct ft_cmd *bg, uint32_t plane, uint64_t now)
{
	struct ftl_plane *pl = &f->pl[plane];
	uint32_t slots[16], n, k, v;
	struct ftl_blk *vb;
	uint64_t t_r = now, end;

	if (pl->victim == FTL_NONE) {
		if (pl->nfree >= FTL_GC_FREE) {
			ftl_gc_stop(f, plane);
			return 0;
		}
		v = ftl_gc_victim(f, plane, now);
		if (v == FTL_NONE) {
			ftl_gc_stop(f, plane);
			return 0;
		}
		if (v == pl->gc_sb)
			pl->gc_sb = FTL_NONE;	/* the fallback: it is the victim now */
		pl->victim = v;
		pl->vpage = 0;
		ftl_blk_of(f, v, plane)->state = FTL_B_VICTIM;
	}
	v = pl->victim;
	vb = ftl_blk_of(f, v, plane);
	n = 0;
	while (pl->vpage < vb->wp && vb->valid) {
		n = ftl_page_valid(f, v, plane, pl->vpage, slots);
		if (n)
			break;
		pl->vpage++;
	}
	if (n) {
		if (bg) {
			struct ft_page_op op = { .mode = f->mode, .n_dout = 1,
						 .dout_bytes = n * FTL_UNIT };

			t_r = ft_page_read(f->ft, bg, plane, &op, now);
		}
		for (k = 0; k < n; k++) {
			uint64_t src = ftl_pun(f, v, plane, pl->vpage, slots[k]);
			uint32_t lun = *ftl_p2l(f, src), dst = ftl_gc_dest(f, plane, now);

			if (dst == FTL_NONE)
				return -ENOSPC;
			ftl_bind(f, lun, dst);
			pl->gc.n++;
			pl->gc.ready = ftl_max(pl->gc.ready, t_r);
			f->st.gc_write_bytes += FTL_UNIT;
			if (pl->gc.n == f->upp) {
				end = ftl_asm_program(f, bg, &pl->gc, 0);
				pl->gc_end = ftl_max(pl->gc_end, end);
			}
		}
		pl->gc_end = ftl_max(pl->gc_end, t_r);
		pl->busy = ftl_max(pl->busy, pl->gc_end);
		pl->vpage++;
		return 1;
	}
	/* Every page done: the moved units reach flash before the erase. */
	if (pl->gc.sb != FTL_NONE && pl->gc.n) {
		end = ftl_asm_program(f, bg, &pl->gc, 0);
		pl->gc_end = ftl_max(pl->gc_end, end);
	}
	end = bg ? ftl_erase(f, bg, plane, now) : 0;
	vb->erases++;
	vb->avail = end;
	vb->prog_end = 0;
	pl->gc_end = ftl_max(pl->gc_end, end);
	pl->busy = ftl_max(pl->busy, pl->gc_end);
	pl->victim = FTL_NONE;
	f->st.gc_victims++;
	f->st.gc_erases++;
	f->st.erase_sum++;
	if (vb->erases > f->st.erase_max)
		f->st.erase_max = vb->erases;
	if (f->sb[v].leaving) {
		vb->state = FTL_B_FREE;
		vb->wp = 0;
	} else {
		ftl_free_push(f, plane, v);
	}
	f->dirty = 1;
	return 1;
}

/* Writes pace GC: each running plane books while its work ends within the
 * horizon after @now. */
void ftl_gc_advance(struct ftl *f, struct ft_cmd *bg, uint64_t now)
{
	uint32_t i, steps;

	for (i = 0; i < f->ngc;) {
		uint32_t p = f->gc_list[i];
		int r = 1;

		for (steps = 0; steps < FTL_GC_STEPS_MAX && f->pl[p].gc_end <= now + f->horizon;
		     steps++) {
			r = ftl_gc_step(f, bg, p, now);
			if (r <= 0)
				break;
		}
		if (r > 0 || f->pl[p].gc_on)
			i++;	/* still listed; a stopped plane left slot i to another */
	}
}

/* @plane has no block to open: GC there, without the horizon, until it
 * has one to spare (its erase then delays the first program). */
int ftl_gc_force(struct ftl *f, struct ft_cmd *bg, uint32_t plane, uint64_t now)
{
	struct ftl_plane *pl = &f->pl[plane];
	uint64_t steps, limit = (uint64_t)(f->ppb + 2) * (f->nsb + 1);	/* every block once */
	int r;

	ftl_gc_start(f, plane);
	for (steps = 0; steps < limit && pl->nfree <= FTL_GC_KEEP; steps++) {
		r = ftl_gc_step(f, bg, plane, ftl_max(now, pl->gc_end));
		if (r <= 0)
			return -ENOSPC;
	}
	return pl->nfree > FTL_GC_KEEP ? 0 : -ENOSPC;
}

/*
 * Empty stripe slot @s on every plane for ftl_reclaim(): close the open
 * blocks there (their pages program padded), finish GC in progress on
 * other victims, move every valid unit out with GC steps and erase what
 * was written; its blocks leave the free lists. Checks first that each
 * plane's other free blocks can take the units. Returns 0 or -ENOSPC.
 */
int ftl_gc_evacuate(struct ftl *f, struct ft_cmd *bg, uint32_t s, uint64_t now)
{
	uint64_t cap = (uint64_t)f->ppb * f->upp;
	uint32_t p;
	int r;

	/* GC running elsewhere on a plane finishes its victim first. */
	for (p = 0; p < f->NP; p++)
		while (f->pl[p].victim != FTL_NONE &&
		       ftl_gc_step(f, bg, p, ftl_max(now, f->pl[p].gc_end)) > 0)
			;
	for (p = 0; p < f->NP; p++) {
		const struct ftl_plane *pl = &f->pl[p];
		const struct ftl_blk *b = ftl_blk_of(f, s, p);
		uint64_t room = (uint64_t)(pl->nfree - (b->state == FTL_B_FREE)) * cap;

		if (pl->gc_sb != FTL_NONE && pl->gc_sb != s)
			room += (uint64_t)(f->ppb - ftl_blk_of(f, pl->gc_sb, p)->wp) * f->upp;
		if (pl->victim != FTL_NONE || b->valid > room)
			return -ENOSPC;
	}
	f->sb[s].leaving = 1;
	for (p = 0; p < f->NP; p++) {
		struct ftl_plane *pl = &f->pl[p];
		struct ftl_blk *b = ftl_blk_of(f, s, p);

		if (f->host.sb == s && f->host.plane == p)
			ftl_asm_program(f, bg, &f->host, 1);
		if (pl->host_sb == s)
			pl->host_sb = FTL_NONE;
		if (pl->gc.sb == s && pl->gc.n)
			ftl_asm_program(f, bg, &pl->gc, 0);
		if (pl->gc.sb == s)
			pl->gc.sb = FTL_NONE;
		if (pl->gc_sb == s)
			pl->gc_sb = FTL_NONE;
		if (b->state == FTL_B_FREE) {
			ftl_free_remove(f, p, s);
			continue;
		}
		/* its units go to the plane's GC destination, then it is erased */
		pl->victim = s;
		pl->vpage = 0;
		b->state = FTL_B_VICTIM;
		do {
			r = ftl_gc_step(f, bg, p, ftl_max(now, pl->gc_end));
		} while (r > 0 && pl->victim == s);
		if (r < 0)
			return r;
	}
	return 0;
}
