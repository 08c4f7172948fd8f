/* SPDX-License-Identifier: MIT */
/*
 * ftl_space.c - the FTL's flash: whole native-mode block stripes taken from
 * the store's region allocator (the pool REIS and RecFlash deploy into),
 * each giving one block to every plane, and the planes' free lists.
 *
 * Sizes (docs/ftl.md, "Space"): the namespaces' data need D = ceil(units /
 * units per stripe) stripes; the FTL holds at least D + FTL_SPARE_STRIPES
 * (taken at attach, never given back) and grows to the target, the data
 * plus ftl_op per mille of it (spares included; at least the minimum),
 * whenever a plane runs short and the store has a stripe free. ftl_reclaim() gives
 * stripes above the minimum back when a deploy needs them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ftl_int.h"

void ftl_sizes(struct ftl *f)
{
	uint64_t op = f->units * (1000u + f->p.ftl_op) / 1000u;

	f->need_min = (uint32_t)((f->units + f->spu - 1) / f->spu) + FTL_SPARE_STRIPES;
	f->need_target = (uint32_t)((op + f->spu - 1) / f->spu);
	if (f->need_target < f->need_min)
		f->need_target = f->need_min;
	if (!f->units)
		f->need_min = f->need_target = 0;
}

void ftl_free_push(struct ftl *f, uint32_t plane, uint32_t sb)
{
	struct ftl_blk *b = ftl_blk_of(f, sb, plane);

	b->state = FTL_B_FREE;
	b->wp = 0;
	b->next = f->pl[plane].free_head;
	f->pl[plane].free_head = sb;
	f->pl[plane].nfree++;
	f->st.free_blocks++;
}

void ftl_free_remove(struct ftl *f, uint32_t plane, uint32_t sb)
{
	uint32_t *link = &f->pl[plane].free_head;

	while (*link != FTL_NONE && *link != sb)
		link = &ftl_blk_of(f, *link, plane)->next;
	if (*link == FTL_NONE)
		return;
	*link = ftl_blk_of(f, sb, plane)->next;
	ftl_blk_of(f, sb, plane)->next = FTL_NONE;
	f->pl[plane].nfree--;
	f->st.free_blocks--;
}

/*
 * The free block of @plane that is usable first (lowest avail; the list is
 * a few blocks long, GC keeps it so), or FTL_NONE.
 */
uint32_t ftl_free_pop(struct ftl *f, uint32_t plane)
{
	struct ftl_plane *pl = &f->pl[plane];
	uint32_t *link = &pl->free_head, *best = NULL, sb;

	for (sb = pl->free_head; sb != FTL_NONE; sb = ftl_blk_of(f, sb, plane)->next) {
		const struct ftl_blk *b = ftl_blk_of(f, sb, plane);

		/* ties: the lower slot, so placement does not depend on list order */
		if (!best || b->avail < ftl_blk_of(f, *best, plane)->avail ||
		    (b->avail == ftl_blk_of(f, *best, plane)->avail && sb < *best))
			best = link;
		link = &ftl_blk_of(f, sb, plane)->next;
	}
	if (!best)
		return FTL_NONE;
	sb = *best;
	*best = ftl_blk_of(f, sb, plane)->next;
	ftl_blk_of(f, sb, plane)->next = FTL_NONE;
	pl->nfree--;
	f->st.free_blocks--;
	return sb;
}

/* A stripe slot for region @region at @first_block: its blocks go on the
 * free lists. Returns the slot or -ENOMEM. */
int ftl_slot_new(struct ftl *f, uint32_t region, uint32_t first_block)
{
	uint32_t s, p;

	for (s = 0; s < f->nsb && f->sb[s].region; s++)
		;
	if (s == f->capsb) {
		uint32_t n = f->capsb ? f->capsb * 2 : 8;
		struct ftl_sb *nsb = realloc(f->sb, n * sizeof(*nsb));
		struct ftl_blk *nb;

		if (!nsb)
			return -ENOMEM;
		f->sb = nsb;
		nb = realloc(f->blk, (uint64_t)n * f->NP * sizeof(*nb));
		if (!nb)
			return -ENOMEM;
		f->blk = nb;
		memset(f->sb + f->capsb, 0, (n - f->capsb) * sizeof(*nsb));
		memset(f->blk + (uint64_t)f->capsb * f->NP, 0,
		       (uint64_t)(n - f->capsb) * f->NP * sizeof(*nb));
		f->capsb = n;
	}
	f->sb[s].p2l = malloc(f->spu * sizeof(uint32_t));
	if (!f->sb[s].p2l)
		return -ENOMEM;
	memset(f->sb[s].p2l, 0xff, f->spu * sizeof(uint32_t));
	f->sb[s].region = region;
	f->sb[s].first_block = first_block;
	f->sb[s].leaving = 0;
	memset(ftl_blk_of(f, s, 0), 0, f->NP * sizeof(struct ftl_blk));
	for (p = 0; p < f->NP; p++)
		ftl_free_push(f, p, s);
	if (s == f->nsb)
		f->nsb++;
	f->held++;
	f->st.phys_bytes += f->spu * FTL_UNIT;
	return (int)s;
}

/*
 * One more stripe from the allocator. Blocks it erased because a freed
 * REIS or RecFlash region left pages there are charged as erases (@bg may
 * be NULL: no timing, as at attach before power-on).
 */
int ftl_grow(struct ftl *f, struct ft_cmd *bg, uint64_t now)
{
	struct fs_region r;
	uint32_t erased = 0, k;
	int s, ret;

	ret = fs_region_alloc(f->fs, FG_PART_NATIVE, (uint64_t)f->NP * f->ppb,
			      (uint64_t)FTL_OWNER_TAG << 32 | f->owner_seq, &r, &erased);
	if (ret)
		return ret;
	f->owner_seq = f->owner_seq == UINT32_MAX ? 1 : f->owner_seq + 1;
	s = ftl_slot_new(f, r.id, r.first_block);
	if (s < 0) {
		fs_region_free_unused(f->fs, r.id);
		return s;
	}
	for (k = 0; k < erased; k++) {
		uint32_t p = k % f->NP;
		struct ftl_blk *b = ftl_blk_of(f, (uint32_t)s, p);

		if (bg)
			b->avail = ftl_erase(f, bg, p, now);
		f->st.gc_erases++;
	}
	f->st.grows++;
	f->dirty = 1;
	return 0;
}

int ftl_grow_to(struct ftl *f, uint32_t want, struct ft_cmd *bg, uint64_t now)
{
	int ret = 0;

	while (f->held < want && !ret)
		ret = ftl_grow(f, bg, now);
	return ret;
}

/* Valid units of stripe slot @s over every plane. */
static uint64_t ftl_slot_valid(struct ftl *f, uint32_t s)
{
	uint64_t v = 0;
	uint32_t p;

	for (p = 0; p < f->NP; p++)
		v += ftl_blk_of(f, s, p)->valid;
	return v;
}

/*
 * Give back up to @n stripes above the minimum: the emptiest first, each
 * evacuated by GC moves (ftl_gc_evacuate) and released at once (its blocks
 * hold no store data). Returns the number given back.
 */
int ftl_reclaim_locked(struct ftl *f, uint32_t n, struct ft_cmd *bg, uint64_t now)
{
	int done = 0;

	while ((uint32_t)done < n && f->held > f->need_min) {
		uint32_t s, best = FTL_NONE;
		uint64_t bv = UINT64_MAX, v;

		for (s = 0; s < f->nsb; s++) {
			if (!f->sb[s].region)
				continue;
			v = ftl_slot_valid(f, s);
			if (v < bv) {
				bv = v;
				best = s;
			}
		}
		if (best == FTL_NONE || ftl_gc_evacuate(f, bg, best, now))
			break;
		if (fs_region_free_unused(f->fs, f->sb[best].region))
			break;
		free(f->sb[best].p2l);
		f->sb[best].p2l = NULL;
		f->sb[best].region = 0;
		f->held--;
		f->st.phys_bytes -= f->spu * FTL_UNIT;
		f->st.shrinks++;
		f->dirty = 1;
		done++;
	}
	return done;
}

int ftl_reclaim(struct ftl *f, uint32_t stripes, uint64_t ready_ns)
{
	struct ft_cmd bg;
	int n;

	if (!f || !stripes)
		return 0;
	pthread_mutex_lock(&f->lock);
	if (f->held <= f->need_min) {
		pthread_mutex_unlock(&f->lock);
		return 0;
	}
	ft_cmd_begin(f->ft, &bg, ready_ns ? ready_ns : f->last_ns, NULL);
	n = ftl_reclaim_locked(f, stripes, &bg, bg.start);
	ft_cmd_end_quiet(f->ft, &bg, NULL);
	pthread_mutex_unlock(&f->lock);
	return n;
}
