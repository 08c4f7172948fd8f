/* SPDX-License-Identifier: MIT */
/*
 * flash_region.c - regions: extents of whole block stripes across every
 * plane (the Parallelism-First placement of REIS §4.1 needs them), packed
 * regions of page rows inside shared stripes (many small databases per
 * stripe, docs/reis-engine.md §7), freed extents held back until the next
 * metadata commit, moves, free space.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "flash_store_int.h"

static int fs_overlap(uint32_t a, uint32_t an, uint32_t b, uint32_t bn)
{
	return (uint64_t)a < (uint64_t)b + bn && (uint64_t)b < (uint64_t)a + an;
}

/* First block >= @from in use by a region or a pending extent overlapping
 * [@from, @from + @n); its end in *@next. */
static int fs_busy(const struct fs *fs, uint32_t from, uint32_t n, uint32_t skip_id,
		   uint32_t *next)
{
	size_t i;
	int hit = 0;

	*next = from;
	for (i = 0; i < fs->nreg; i++) {
		const struct fs_region *r = &fs->reg[i];

		if (r->id != skip_id && fs_overlap(from, n, r->first_block, r->nblocks) &&
		    r->first_block + r->nblocks > *next) {
			*next = r->first_block + r->nblocks;
			hit = 1;
		}
	}
	for (i = 0; i < fs->npend; i++) {
		const struct fs_pending *pd = &fs->pend[i];

		if (fs_overlap(from, n, pd->first_block, pd->nblocks) &&
		    pd->first_block + pd->nblocks > *next) {
			*next = pd->first_block + pd->nblocks;
			hit = 1;
		}
	}
	return hit;
}

/* Erase every block of the extent that holds stale pages. */
static int fs_clean_extent(struct fs *fs, uint32_t first, uint32_t n, uint32_t *erased)
{
	uint32_t pl, b;
	int ret;

	for (pl = 0; pl < fs->g.planes; pl++) {
		for (b = first; b < first + n; b++) {
			uint64_t bi = (uint64_t)pl * fs->g.blocks_per_plane + b;
			const struct fs_blk *blk = fs_blk_find(fs, bi);

			if (!blk || !blk->nprog)
				continue;
			ret = fs_erase_locked(fs, bi);
			if (ret)
				return ret;
			if (erased)
				(*erased)++;
		}
	}
	return 0;
}

static int fs_reg_insert(struct fs *fs, const struct fs_region *r)
{
	size_t i;

	if (fs->nreg == fs->regcap) {
		size_t n = fs->regcap ? fs->regcap * 2 : 16;
		struct fs_region *nr = realloc(fs->reg, n * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		fs->reg = nr;
		fs->regcap = n;
	}
	for (i = fs->nreg; i > 0 && fs->reg[i - 1].first_block > r->first_block; i--)
		fs->reg[i] = fs->reg[i - 1];
	fs->reg[i] = *r;
	fs->nreg++;
	return 0;
}

static void fs_reg_remove(struct fs *fs, size_t i)
{
	memmove(&fs->reg[i], &fs->reg[i + 1], (fs->nreg - i - 1) * sizeof(*fs->reg));
	fs->nreg--;
}

static int fs_pend_add(struct fs *fs, const struct fs_region *r)
{
	if (fs->npend == fs->pendcap) {
		size_t c = fs->pendcap ? fs->pendcap * 2 : 16;
		struct fs_pending *np = realloc(fs->pend, c * sizeof(*np));

		if (!np)
			return -ENOMEM;
		fs->pend = np;
		fs->pendcap = c;
	}
	fs->gen++;
	fs->pend[fs->npend].part = r->part;
	fs->pend[fs->npend].first_block = r->first_block;
	fs->pend[fs->npend].nblocks = r->nblocks;
	fs->pend[fs->npend].row = r->row;
	fs->pend[fs->npend].nrows = r->nrows;
	fs->pend[fs->npend].flags = r->flags & FS_REGION_PACKED;
	fs->pend[fs->npend].gen = fs->gen;
	fs->npend++;
	return 0;
}

static uint64_t fs_stripe_pages(const struct fs *fs, uint32_t part)
{
	return (uint64_t)fs->g.part[part].pages_per_block * fs->g.planes;
}

static ssize_t fs_reg_find(const struct fs *fs, uint32_t id)
{
	size_t i;

	for (i = 0; i < fs->nreg; i++)
		if (fs->reg[i].id == id)
			return (ssize_t)i;
	return -1;
}

/*
 * The next id no live region holds. Ids wrap after 2^32 - 1 allocations
 * (cheap to burn: a failed deploy allocates and frees), and a reused id
 * would let fs_region_free() of a stale id release another owner's blocks.
 * At most nreg ids are taken, so the walk is bounded.
 */
static uint32_t fs_reg_next_id(struct fs *fs)
{
	uint32_t id = fs->next_id ? fs->next_id : 1;

	while (fs_reg_find(fs, id) >= 0)
		id = id == UINT32_MAX ? 1 : id + 1;
	fs->next_id = id == UINT32_MAX ? 1 : id + 1;
	return id;
}

/* Whole stripes: the first free run of @nb block stripes. Write lock held. */
static int fs_alloc_whole(struct fs *fs, uint32_t part, uint32_t nb, uint64_t owner,
			  struct fs_region *out, uint32_t *erased)
{
	const struct fg_part *pt = &fs->g.part[part];
	uint32_t cand = pt->first_block, next, end = pt->first_block + pt->nblocks;
	struct fs_region r;
	int ret;

	while ((uint64_t)cand + nb <= end && fs_busy(fs, cand, nb, 0, &next))
		cand = next;
	if ((uint64_t)cand + nb > end)
		return -ENOSPC;
	ret = fs_clean_extent(fs, cand, nb, erased);
	if (ret)
		return ret;
	memset(&r, 0, sizeof(r));
	r.id = fs_reg_next_id(fs);
	r.part = part;
	r.first_block = cand;
	r.nblocks = nb;
	r.owner = owner;
	r.nrows = nb * pt->pages_per_block;
	r.flags = FS_REGION_UNCOMMITTED;
	ret = fs_reg_insert(fs, &r);
	if (!ret)
		*out = r;
	return ret;
}

/* Highest programmed page row + 1 over every plane's block @b. */
static uint32_t fs_stripe_programmed(const struct fs *fs, uint32_t b, uint32_t rows)
{
	uint32_t pl, hi = 0, pg;

	for (pl = 0; pl < fs->g.planes; pl++) {
		const struct fs_blk *blk =
			fs_blk_find(fs, (uint64_t)pl * fs->g.blocks_per_plane + b);

		if (!blk || !blk->nprog)
			continue;
		for (pg = rows; pg > hi; pg--)
			if (fs_bit(blk, pg - 1))
				break;
		if (pg > hi)
			hi = pg;
	}
	return hi;
}

struct fs_stripe {
	uint32_t front;		/* first row a new tenant may take */
	uint32_t live_rows;	/* rows live packed regions hold */
	uint32_t tenants;	/* live packed regions */
	int open;		/* a live tenant is not sealed */
};

/*
 * What block stripe @b holds: 0 nothing (free), 1 packed regions or their
 * pending extents (*@st filled), -1 a whole-stripe region or extent.
 * The frontier lies above every row held and every programmed page: rows
 * of a deploy that never committed stay dead, as rows of freed tenants do.
 */
static int fs_stripe_state(const struct fs *fs, uint32_t b, uint32_t rows,
			   struct fs_stripe *st)
{
	size_t i;
	int shared = 0;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < fs->nreg; i++) {
		const struct fs_region *r = &fs->reg[i];

		if (!fs_overlap(b, 1, r->first_block, r->nblocks))
			continue;
		if (!(r->flags & FS_REGION_PACKED))
			return -1;
		shared = 1;
		if (r->row + r->nrows > st->front)
			st->front = r->row + r->nrows;
		st->live_rows += r->nrows;
		st->tenants++;
		if (!(r->flags & FS_REGION_SEALED))
			st->open = 1;
	}
	for (i = 0; i < fs->npend; i++) {
		const struct fs_pending *pd = &fs->pend[i];

		if (!fs_overlap(b, 1, pd->first_block, pd->nblocks))
			continue;
		if (!(pd->flags & FS_REGION_PACKED))
			return -1;
		shared = 1;
		if (pd->row + pd->nrows > st->front)
			st->front = pd->row + pd->nrows;
	}
	if (shared) {
		uint32_t hi = fs_stripe_programmed(fs, b, rows);

		if (hi > st->front)
			st->front = hi;
	}
	return shared;
}

/* One extent (a region or a pending one) into the per-stripe states of
 * the partition starting at block @first, @nb blocks. */
static void fs_space_mark(uint32_t first, uint32_t nb, uint32_t e_first, uint32_t e_nb,
			  uint32_t row, uint32_t nrows, uint32_t flags, int live, int8_t *kind,
			  struct fs_stripe *st)
{
	uint64_t lo = e_first > first ? e_first : first;
	uint64_t hi = (uint64_t)e_first + e_nb < (uint64_t)first + nb ?
		      (uint64_t)e_first + e_nb : (uint64_t)first + nb;
	uint64_t b;

	for (b = lo; b < hi; b++) {
		struct fs_stripe *s = &st[b - first];

		if (!(flags & FS_REGION_PACKED)) {
			kind[b - first] = -1;
			continue;
		}
		if (kind[b - first] < 0)
			continue;
		kind[b - first] = 1;
		if (row + nrows > s->front)
			s->front = row + nrows;
		if (live) {
			s->live_rows += nrows;
			s->tenants++;
			if (!(flags & FS_REGION_SEALED))
				s->open = 1;
		}
	}
}

/*
 * Every stripe's state of partition @part in one pass over the regions
 * and pending extents (fs_stripe_state() of each, in O(regions + blocks)):
 * @kind[i] and @st[i] for block first_block + i. Lock held.
 */
static void fs_part_states(const struct fs *fs, uint32_t part, int8_t *kind, struct fs_stripe *st)
{
	const struct fg_part *pt = &fs->g.part[part];
	uint32_t b;
	size_t i;

	memset(kind, 0, pt->nblocks);
	memset(st, 0, (size_t)pt->nblocks * sizeof(*st));
	for (i = 0; i < fs->nreg; i++) {
		const struct fs_region *r = &fs->reg[i];

		fs_space_mark(pt->first_block, pt->nblocks, r->first_block, r->nblocks, r->row,
			      r->nrows, r->flags, 1, kind, st);
	}
	for (i = 0; i < fs->npend; i++) {
		const struct fs_pending *pd = &fs->pend[i];

		fs_space_mark(pt->first_block, pt->nblocks, pd->first_block, pd->nblocks, pd->row,
			      pd->nrows, pd->flags, 0, kind, st);
	}
	for (b = 0; b < pt->nblocks; b++) {
		if (kind[b] == 1) {
			uint32_t hi = fs_stripe_programmed(fs, pt->first_block + b,
							   pt->pages_per_block);

			if (hi > st[b].front)
				st[b].front = hi;
		}
	}
}

/* Ask the reclaim callback for @stripes stripes; whether it gave any. */
static int fs_reclaim(struct fs *fs, uint32_t part, uint64_t stripes, uint64_t owner)
{
	fs_reclaim_fn fn;
	void *ctx;

	pthread_rwlock_rdlock(&fs->lock);
	fn = fs->reclaim;
	ctx = fs->reclaim_ctx;
	pthread_rwlock_unlock(&fs->lock);
	if (!fn)
		return 0;
	return fn(ctx, part, stripes > UINT32_MAX ? UINT32_MAX : (uint32_t)stripes,
		  owner) > 0;
}

void fs_set_reclaim(struct fs *fs, fs_reclaim_fn fn, void *ctx)
{
	pthread_rwlock_wrlock(&fs->lock);
	fs->reclaim = fn;
	fs->reclaim_ctx = ctx;
	pthread_rwlock_unlock(&fs->lock);
}

static int fs_region_alloc_once(struct fs *fs, uint32_t part, uint64_t npages,
				uint64_t owner, struct fs_region *out, uint32_t *erased);

int fs_region_alloc(struct fs *fs, uint32_t part, uint64_t npages, uint64_t owner,
		    struct fs_region *out, uint32_t *erased)
{
	int ret = fs_region_alloc_once(fs, part, npages, owner, out, erased);

	if (ret == -ENOSPC && fs_reclaim(fs, part, (npages + fs_stripe_pages(fs, part) - 1) /
					 fs_stripe_pages(fs, part), owner))
		ret = fs_region_alloc_once(fs, part, npages, owner, out, erased);
	return ret;
}

static int fs_region_alloc_once(struct fs *fs, uint32_t part, uint64_t npages,
				uint64_t owner, struct fs_region *out, uint32_t *erased)
{
	const struct fg_part *pt;
	uint64_t nb64;
	int ret;

	if (erased)
		*erased = 0;
	if (!fs || !out || part >= FG_NPARTS || npages == 0)
		return -EINVAL;
	pt = &fs->g.part[part];
	if (pt->nblocks == 0)
		return -ENOSPC;
	nb64 = (npages + fs_stripe_pages(fs, part) - 1) / fs_stripe_pages(fs, part);
	if (nb64 > pt->nblocks)
		return -ENOSPC;
	pthread_rwlock_wrlock(&fs->lock);
	ret = fs->nreg >= FS_MAX_REGIONS ? -ENOSPC :
	      fs_alloc_whole(fs, part, (uint32_t)nb64, owner, out, erased);
	pthread_rwlock_unlock(&fs->lock);
	return ret;
}

/*
 * Rows for a packed region: the fullest shared stripe that fits and takes
 * tenants (not stripe @skip), else the highest free stripe (whole regions
 * fill from the bottom, so the two meet late). With @spare, the last free
 * stripe is not taken: compaction needs it to move a stripe's live tenants
 * out (fs_region_relocate()) when every other stripe is full of live and
 * dead rows. Write lock held.
 */
static int fs_alloc_rows(struct fs *fs, uint32_t part, uint32_t nrows, uint64_t owner,
			 uint32_t skip, int spare, struct fs_region *out, uint32_t *erased)
{
	const struct fg_part *pt = &fs->g.part[part];
	uint32_t rows = pt->pages_per_block, b, best = UINT32_MAX, best_room = UINT32_MAX;
	uint32_t fresh = UINT32_MAX, nfresh = 0, row = 0;
	struct fs_stripe st, *sts = calloc(pt->nblocks ? pt->nblocks : 1, sizeof(*sts));
	int8_t *kinds = calloc(pt->nblocks ? pt->nblocks : 1, 1);
	struct fs_region r;
	int kind, ret;

	/* one pass over the regions, not one per stripe (fs_part_states()) */
	if (sts && kinds)
		fs_part_states(fs, part, kinds, sts);
	for (b = pt->first_block; b < pt->first_block + pt->nblocks; b++) {
		if (sts && kinds) {
			kind = kinds[b - pt->first_block];
			st = sts[b - pt->first_block];
		} else {
			kind = fs_stripe_state(fs, b, rows, &st);
		}
		if (kind == 0) {
			fresh = b;
			nfresh++;
		} else if (kind == 1 && b != skip && !st.open && rows - st.front >= nrows &&
			   rows - st.front < best_room) {
			best = b;
			best_room = rows - st.front;
			row = st.front;
		}
	}
	free(sts);
	free(kinds);
	if (best == UINT32_MAX) {
		if (fresh == UINT32_MAX || (spare && nfresh < 2 && pt->nblocks > 1))
			return -ENOSPC;
		ret = fs_clean_extent(fs, fresh, 1, erased);
		if (ret)
			return ret;
		best = fresh;
		row = 0;
	}
	memset(&r, 0, sizeof(r));
	r.id = fs_reg_next_id(fs);
	r.part = part;
	r.first_block = best;
	r.nblocks = 1;
	r.owner = owner;
	r.row = row;
	r.nrows = nrows;
	r.flags = FS_REGION_PACKED | FS_REGION_UNCOMMITTED;
	ret = fs_reg_insert(fs, &r);
	if (!ret)
		*out = r;
	return ret;
}

int fs_region_alloc_packed(struct fs *fs, uint32_t part, uint64_t npages, uint64_t owner,
			   struct fs_region *out, uint32_t *erased)
{
	uint64_t nrows;
	int ret;

	if (!fs || !out || part >= FG_NPARTS || npages == 0) {
		if (erased)
			*erased = 0;
		return -EINVAL;
	}
	nrows = (npages + fs->g.planes - 1) / fs->g.planes;
	if (nrows >= fs->g.part[part].pages_per_block)
		return fs_region_alloc(fs, part, npages, owner, out, erased);
	if (erased)
		*erased = 0;
	if (fs->g.part[part].nblocks == 0)
		return -ENOSPC;
	pthread_rwlock_wrlock(&fs->lock);
	ret = fs->nreg >= FS_MAX_REGIONS ? -ENOSPC :
	      fs_alloc_rows(fs, part, (uint32_t)nrows, owner, UINT32_MAX, 1, out, erased);
	pthread_rwlock_unlock(&fs->lock);
	if (ret == -ENOSPC && fs_reclaim(fs, part, 1, owner)) {
		pthread_rwlock_wrlock(&fs->lock);
		ret = fs->nreg >= FS_MAX_REGIONS ? -ENOSPC :
		      fs_alloc_rows(fs, part, (uint32_t)nrows, owner, UINT32_MAX, 1, out,
				    erased);
		pthread_rwlock_unlock(&fs->lock);
	}
	return ret;
}

int fs_compact_victim(struct fs *fs, uint32_t part, uint32_t *ids, size_t max,
		      uint64_t *dead_pages)
{
	const struct fg_part *pt;
	uint32_t b, victim = UINT32_MAX, most = 0;
	struct fs_stripe st;
	size_t i;
	int n = 0;

	if (dead_pages)
		*dead_pages = 0;
	if (!fs || part >= FG_NPARTS)
		return -EINVAL;
	pt = &fs->g.part[part];
	pthread_rwlock_rdlock(&fs->lock);
	for (b = pt->first_block; b < pt->first_block + pt->nblocks; b++)
		if (fs_stripe_state(fs, b, pt->pages_per_block, &st) == 1 && !st.open &&
		    st.tenants && st.front - st.live_rows > most) {
			most = st.front - st.live_rows;
			victim = b;
		}
	for (i = 0; victim != UINT32_MAX && i < fs->nreg; i++)
		if (fs->reg[i].first_block == victim && (fs->reg[i].flags & FS_REGION_PACKED)) {
			if ((size_t)n < max && ids)
				ids[n] = fs->reg[i].id;
			n++;
		}
	pthread_rwlock_unlock(&fs->lock);
	if (dead_pages)
		*dead_pages = (uint64_t)most * fs->g.planes;
	return n;
}

/* Copy the programmed pages of @from to the erased rows of @to (same size). */
static int fs_copy_rows(struct fs *fs, const struct fs_region *from, const struct fs_region *to,
			uint64_t *copied)
{
	uint64_t L, src, dst, n = fs_region_pages(fs, from);
	uint8_t *buf = malloc(fs->slot);
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	for (L = 0; L < n && !ret; L++) {
		ret = fs_region_ppa(fs, from, L, &src);
		if (!ret)
			ret = fs_region_ppa(fs, to, L, &dst);
		if (ret || fs_page_state(fs, src) != FS_PROGRAMMED)
			continue;
		ret = fs_read(fs, src, 0, buf, fs->slot);
		if (!ret)
			ret = fs_program(fs, dst, buf, buf + fs->g.page_bytes);
		if (!ret)
			(*copied)++;
	}
	free(buf);
	return ret;
}

int fs_region_relocate(struct fs *fs, uint32_t id, uint64_t *copied, uint32_t *erased)
{
	struct fs_region r, t;
	uint64_t ncopied = 0;
	ssize_t i, j;
	int ret;

	if (copied)
		*copied = 0;
	if (erased)
		*erased = 0;
	if (!fs)
		return -EINVAL;
	pthread_rwlock_wrlock(&fs->lock);
	i = fs_reg_find(fs, id);
	if (i < 0) {
		pthread_rwlock_unlock(&fs->lock);
		return -ENOENT;
	}
	r = fs->reg[i];
	if ((r.flags & (FS_REGION_PACKED | FS_REGION_SEALED)) !=
	    (FS_REGION_PACKED | FS_REGION_SEALED))
		ret = -EINVAL;
	else
		ret = fs->nreg >= FS_MAX_REGIONS ? -ENOSPC :
		      fs_alloc_rows(fs, r.part, r.nrows, r.owner, r.first_block, 0, &t, erased);
	pthread_rwlock_unlock(&fs->lock);
	if (ret)
		return ret;
	/* The owner keeps the region quiet, so its pages hold still unlocked. */
	ret = fs_copy_rows(fs, &r, &t, &ncopied);
	if (copied)
		*copied = ncopied;
	if (ret) {
		fs_region_free(fs, t.id);	/* its rows are dead, never reused in place */
		return ret;
	}
	/* Swap: @id takes @t's rows; its old rows are dead until their stripe
	 * empties and this is committed. */
	pthread_rwlock_wrlock(&fs->lock);
	ret = fs_pend_add(fs, &r);
	i = fs_reg_find(fs, id);
	j = fs_reg_find(fs, t.id);
	if (!ret && i >= 0 && j >= 0) {
		r.first_block = t.first_block;
		r.row = t.row;
		r.flags |= FS_REGION_UNCOMMITTED;	/* at rows no snapshot saw */
		fs_reg_remove(fs, (size_t)j);
		i = fs_reg_find(fs, id);
		fs_reg_remove(fs, (size_t)i);
		ret = fs_reg_insert(fs, &r);	/* cannot fail: capacity kept */
	} else if (!ret) {
		ret = -ENOENT;
	}
	pthread_rwlock_unlock(&fs->lock);
	return ret;
}

int fs_region_seal(struct fs *fs, uint32_t id)
{
	ssize_t i;

	if (!fs)
		return -EINVAL;
	pthread_rwlock_wrlock(&fs->lock);
	i = fs_reg_find(fs, id);
	if (i >= 0)
		fs->reg[i].flags |= FS_REGION_SEALED;
	pthread_rwlock_unlock(&fs->lock);
	return i < 0 ? -ENOENT : 0;
}

int fs_region_free(struct fs *fs, uint32_t id)
{
	ssize_t i;
	int ret;

	if (!fs)
		return -EINVAL;
	pthread_rwlock_wrlock(&fs->lock);
	i = fs_reg_find(fs, id);
	if (i < 0) {
		ret = -ENOENT;
		goto out;
	}
	if (fs->reg[i].flags & FS_REGION_UNCOMMITTED) {
		/* no snapshot points here: free now, as a commit would */
		struct fs_pending pd = {
			.part = fs->reg[i].part, .first_block = fs->reg[i].first_block,
			.nblocks = fs->reg[i].nblocks, .row = fs->reg[i].row,
			.nrows = fs->reg[i].nrows, .flags = fs->reg[i].flags & FS_REGION_PACKED,
		};

		fs_reg_remove(fs, (size_t)i);
		fs_rows_drop(fs, &pd);
		ret = 0;
		goto out;
	}
	ret = fs_pend_add(fs, &fs->reg[i]);
	if (ret)
		goto out;
	fs_reg_remove(fs, (size_t)i);
out:
	pthread_rwlock_unlock(&fs->lock);
	return ret;
}

int fs_region_free_unused(struct fs *fs, uint32_t id)
{
	const struct fs_blk *blk;
	uint32_t pl, b;
	ssize_t i;
	int ret = 0;

	if (!fs)
		return -EINVAL;
	pthread_rwlock_wrlock(&fs->lock);
	i = fs_reg_find(fs, id);
	if (i < 0) {
		ret = -ENOENT;
		goto out;
	}
	for (pl = 0; pl < fs->g.planes && !ret; pl++)
		for (b = fs->reg[i].first_block;
		     b < fs->reg[i].first_block + fs->reg[i].nblocks && !ret; b++) {
			blk = fs_blk_find(fs, (uint64_t)pl * fs->g.blocks_per_plane + b);
			if (blk && blk->nprog)
				ret = -EBUSY;
		}
	if (!ret) {
		fs->gen++;
		fs_reg_remove(fs, (size_t)i);
	}
out:
	pthread_rwlock_unlock(&fs->lock);
	return ret;
}

int fs_region_get(struct fs *fs, uint32_t id, struct fs_region *out)
{
	ssize_t i;

	if (!fs || !out)
		return -EINVAL;
	pthread_rwlock_rdlock(&fs->lock);
	i = fs_reg_find(fs, id);
	if (i >= 0)
		*out = fs->reg[i];
	pthread_rwlock_unlock(&fs->lock);
	return i < 0 ? -ENOENT : 0;
}

int fs_region_list(struct fs *fs, struct fs_region *out, size_t max)
{
	size_t i;
	int n;

	if (!fs)
		return -EINVAL;
	pthread_rwlock_rdlock(&fs->lock);
	for (i = 0; i < fs->nreg && i < max && out; i++)
		out[i] = fs->reg[i];
	n = (int)fs->nreg;
	pthread_rwlock_unlock(&fs->lock);
	return n;
}

uint64_t fs_region_pages(const struct fs *fs, const struct fs_region *r)
{
	if (!fs || !r || r->part >= FG_NPARTS)
		return 0;
	return (uint64_t)r->nrows * fs->g.planes;
}

/* A packed region's logical page L is page row * planes + L of its stripe,
 * so it stays Parallelism-First: consecutive pages on consecutive planes. */
int fs_region_ppa(const struct fs *fs, const struct fs_region *r, uint64_t lpage,
		  uint64_t *ppa)
{
	if (!fs || !r || lpage >= (uint64_t)r->nrows * fs->g.planes)
		return -EINVAL;
	return fg_pfpa_ppa(&fs->g, r->part, r->first_block, r->nblocks,
			   (uint64_t)r->row * fs->g.planes + lpage, ppa);
}

/*
 * A committed free of packed rows: their pages are dead until the stripe's
 * erase, so their host memory goes back now (fs_blk_drop_pages()). Without
 * it a deploy/delete loop beside a long-lived tenant grows host RAM by the
 * pages each cycle wrote, until the stripe empties or is compacted.
 * Write lock held.
 */
void fs_rows_drop(struct fs *fs, const struct fs_pending *pd)
{
	uint64_t lo, hi;
	uint32_t pl, p0, p1;
	struct fs_blk *b;

	if (!(pd->flags & FS_REGION_PACKED) || pd->part >= FG_NPARTS || !pd->nrows)
		return;
	/* Row r is page r of the stripe's block on every plane (Parallelism-
	 * First: logical page row * planes + L), so each plane's block holds
	 * the rows as one run of pages. */
	for (pl = 0; pl < fs->g.planes; pl++) {
		if (fg_pfpa_ppa(&fs->g, pd->part, pd->first_block, pd->nblocks,
				(uint64_t)pd->row * fs->g.planes + pl, &lo) ||
		    fg_pfpa_ppa(&fs->g, pd->part, pd->first_block, pd->nblocks,
				(uint64_t)(pd->row + pd->nrows - 1) * fs->g.planes + pl, &hi))
			return;
		p0 = FG_FIELD(lo, PAGE);
		p1 = FG_FIELD(hi, PAGE);
		b = fs_blk_find(fs, fg_block_index(&fs->g, lo));
		if (b && fg_block_index(&fs->g, hi) == fg_block_index(&fs->g, lo) && p1 >= p0 &&
		    p1 - p0 == pd->nrows - 1)
			fs_blk_drop_pages(fs, fg_block_index(&fs->g, lo), b, p0, pd->nrows);
	}
}

/* Copy programmed pages of block @src to erased block @dst (same plane). */
static int fs_copy_block(struct fs *fs, uint64_t src, uint64_t dst, uint64_t *copied)
{
	const struct fs_blk *sb = fs_blk_find(fs, src);
	struct fs_blk *db;
	uint8_t *buf = NULL;
	uint32_t pg;
	int ret = 0;

	if (!sb || !sb->nprog)
		return 0;
	db = fs_blk_get(fs, dst);
	if (!db)
		return -ENOMEM;
	sb = fs_blk_find(fs, src);	/* the table may have grown */
	if (fs->io && !(buf = malloc(fs->slot)))
		return -ENOMEM;
	for (pg = 0; pg < fs->g.pages_per_block && !ret; pg++) {
		uint64_t so, dofs;

		if (!fs_bit(sb, pg))
			continue;
		if (fs->io) {
			so = fs->data_off + (src * fs->g.pages_per_block + pg) * fs->slot;
			dofs = fs->data_off + (dst * fs->g.pages_per_block + pg) * fs->slot;
			ret = fio_pread(fs->io, buf, fs->slot, so);
			if (!ret)
				ret = fio_pwrite(fs->io, buf, fs->slot, dofs);
		} else {
			if (!fs_blk_mem(fs, db) || !sb->mem) {
				ret = -ENOMEM;
				break;
			}
			ret = fs_mem_charge(fs, fs->slot);	/* host-memory cap */
			if (ret)
				break;
			memcpy(fs_mem_data(fs, db, pg), fs_mem_data(fs, (struct fs_blk *)sb, pg),
			       fs->g.page_bytes);
			memcpy(fs_mem_oob(fs, db, pg), fs_mem_oob(fs, (struct fs_blk *)sb, pg),
			       fs->g.oob_bytes);
		}
		if (ret)
			break;
		db->bits[pg / 8] |= (uint8_t)(1u << (pg % 8));
		db->nprog++;
		fs->programmed++;
		fs->nprograms++;
		(*copied)++;
	}
	if (!ret && fs->io)
		ret = fs_write_rec(fs, dst, db);
	free(buf);
	return ret;
}

int fs_region_move(struct fs *fs, uint32_t id, uint32_t new_first,
		   uint64_t *copied, uint32_t *erased)
{
	const struct fg_part *pt;
	struct fs_region r;
	uint64_t ncopied = 0;
	uint32_t next, pl, b;
	ssize_t i;
	int ret;

	if (erased)
		*erased = 0;
	if (!fs)
		return -EINVAL;
	pthread_rwlock_wrlock(&fs->lock);
	i = fs_reg_find(fs, id);
	if (i < 0) {
		ret = -ENOENT;
		goto out;
	}
	r = fs->reg[i];
	pt = &fs->g.part[r.part];
	if ((r.flags & FS_REGION_PACKED) || new_first < pt->first_block ||
	    (uint64_t)new_first + r.nblocks > (uint64_t)pt->first_block + pt->nblocks ||
	    fs_busy(fs, new_first, r.nblocks, 0, &next)) {
		ret = -EINVAL;
		goto out;
	}
	ret = fs_clean_extent(fs, new_first, r.nblocks, erased);
	for (pl = 0; pl < fs->g.planes && !ret; pl++) {
		for (b = 0; b < r.nblocks && !ret; b++) {
			uint64_t base = (uint64_t)pl * fs->g.blocks_per_plane;

			ret = fs_copy_block(fs, base + r.first_block + b,
					    base + new_first + b, &ncopied);
		}
	}
	if (ret)
		goto out;	/* destination is free space again; region unchanged */
	ret = fs_pend_add(fs, &r);
	if (ret)
		goto out;
	fs_reg_remove(fs, (size_t)i);
	r.first_block = new_first;
	r.flags |= FS_REGION_UNCOMMITTED;	/* at blocks no snapshot saw */
	ret = fs_reg_insert(fs, &r);	/* cannot fail: capacity kept */
out:
	pthread_rwlock_unlock(&fs->lock);
	if (copied)
		*copied = ncopied;
	return ret;
}

/* What the stripes' states add up to (both ways of finding them). */
static void fs_space_add(const struct fs *fs, const struct fg_part *pt, int kind,
			 const struct fs_stripe *st, uint32_t *run, struct fs_space *out)
{
	if (kind == 1) {
		out->shared_stripes++;
		out->packed_regions += st->tenants;
		out->shared_free_pages += (uint64_t)(pt->pages_per_block - st->front) *
					  fs->g.planes;
		out->dead_pages += (uint64_t)(st->front - st->live_rows) * fs->g.planes;
	}
	if (kind) {
		*run = 0;
		return;
	}
	out->free_blocks++;
	if (++*run > out->largest_run)
		out->largest_run = *run;
}

static void fs_space_end(struct fs *fs, uint32_t part, struct fs_space *out)
{
	size_t i;

	for (i = 0; i < fs->npend; i++)
		if (fs->pend[i].part == part)
			out->pending_blocks += fs->pend[i].nblocks;
	out->free_pages = out->free_blocks * fs_stripe_pages(fs, part);
	out->largest_pages = out->largest_run * fs_stripe_pages(fs, part);
	out->row_pages = fs->g.planes;
}

/*
 * Every stripe's state in one pass over the regions and pending extents,
 * not one pass per stripe: Identify Controller asks on the main loop, with
 * thousands of blocks and regions (issue 32 item 6). The same answers as
 * fs_space_ref(), the stripe-by-stripe walk.
 */
int fs_space(struct fs *fs, uint32_t part, struct fs_space *out)
{
	const struct fg_part *pt;
	struct fs_stripe *st;
	uint32_t b, run = 0;
	int8_t *kind;

	if (!fs || !out || part >= FG_NPARTS)
		return -EINVAL;
	pt = &fs->g.part[part];
	st = calloc(pt->nblocks ? pt->nblocks : 1, sizeof(*st));
	kind = calloc(pt->nblocks ? pt->nblocks : 1, 1);
	if (!st || !kind) {
		free(st);
		free(kind);
		return fs_space_ref(fs, part, out);
	}
	memset(out, 0, sizeof(*out));
	pthread_rwlock_rdlock(&fs->lock);
	fs_part_states(fs, part, kind, st);
	for (b = 0; b < pt->nblocks; b++)
		fs_space_add(fs, pt, kind[b], &st[b], &run, out);
	fs_space_end(fs, part, out);
	pthread_rwlock_unlock(&fs->lock);
	free(st);
	free(kind);
	return 0;
}

int fs_space_ref(struct fs *fs, uint32_t part, struct fs_space *out)
{
	const struct fg_part *pt;
	uint32_t b, run = 0;
	struct fs_stripe st;

	if (!fs || !out || part >= FG_NPARTS)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	pt = &fs->g.part[part];
	pthread_rwlock_rdlock(&fs->lock);
	for (b = pt->first_block; b < pt->first_block + pt->nblocks; b++)
		fs_space_add(fs, pt, fs_stripe_state(fs, b, pt->pages_per_block, &st), &st, &run,
			     out);
	fs_space_end(fs, part, out);
	pthread_rwlock_unlock(&fs->lock);
	return 0;
}

#define FS_REG_ENTRY1 24u
#define FS_REG_ENTRY2 36u

size_t fs_regions_size(const struct fs *fs)
{
	return 16 + fs->nreg * FS_REG_ENTRY2;
}

void fs_regions_encode(struct fs *fs, uint8_t *b)
{
	uint32_t h[4] = { FS_REG_MAGIC2, (uint32_t)fs->nreg, fs->next_id, 0 };
	size_t i;

	memcpy(b, h, 16);
	b += 16;
	for (i = 0; i < fs->nreg; i++, b += FS_REG_ENTRY2) {
		const struct fs_region *r = &fs->reg[i];
		uint32_t fl = r->flags & FS_REGION_PACKED;

		memcpy(b, &r->id, 4);
		memcpy(b + 4, &r->part, 4);
		memcpy(b + 8, &r->first_block, 4);
		memcpy(b + 12, &r->nblocks, 4);
		memcpy(b + 16, &r->owner, 8);
		memcpy(b + 24, &r->row, 4);
		memcpy(b + 28, &r->nrows, 4);
		memcpy(b + 32, &fl, 4);
		fs->reg[i].flags &= ~FS_REGION_UNCOMMITTED;	/* a snapshot saw it */
	}
}

/* Rows and blocks of @r lie inside its partition, and a packed region in
 * one block. */
static int fs_region_sane(const struct fs *fs, const struct fs_region *r)
{
	const struct fg_part *pt;
	uint32_t rows;

	if (r->id == 0 || r->part >= FG_NPARTS || r->nblocks == 0 ||
	    (r->flags & ~FS_REGION_PACKED))
		return 0;
	pt = &fs->g.part[r->part];
	rows = pt->pages_per_block;
	if (r->first_block < pt->first_block ||
	    (uint64_t)r->first_block + r->nblocks > (uint64_t)pt->first_block + pt->nblocks)
		return 0;
	if (r->flags & FS_REGION_PACKED)
		return r->nblocks == 1 && r->nrows > 0 && r->nrows < rows &&
		       r->row < rows && r->nrows <= rows - r->row;
	return r->row == 0 && (uint64_t)r->nrows == (uint64_t)r->nblocks * rows;
}

/* Two regions share pages: blocks overlap, and rows too when both are packed. */
static int fs_region_clash(const struct fs_region *a, const struct fs_region *b)
{
	if (!fs_overlap(a->first_block, a->nblocks, b->first_block, b->nblocks))
		return 0;
	if ((a->flags & b->flags & FS_REGION_PACKED))
		return fs_overlap(a->row, a->nrows, b->row, b->nrows);
	return 1;
}

int fs_regions_parse(struct fs *fs, const uint8_t *b, size_t len, size_t *used)
{
	uint32_t h[4];
	size_t i, j, esz;

	if (len < 16)
		return -EIO;
	memcpy(h, b, 16);
	if (h[0] == FS_REG_MAGIC)
		esz = FS_REG_ENTRY1;	/* written before packed regions existed */
	else if (h[0] == FS_REG_MAGIC2)
		esz = FS_REG_ENTRY2;
	else
		return -EIO;
	if (h[1] > FS_MAX_REGIONS || len < 16 + (size_t)h[1] * esz)
		return -EIO;
	for (i = 0; i < h[1]; i++) {
		const uint8_t *e = b + 16 + i * esz;
		struct fs_region r;

		memset(&r, 0, sizeof(r));
		memcpy(&r.id, e, 4);
		memcpy(&r.part, e + 4, 4);
		memcpy(&r.first_block, e + 8, 4);
		memcpy(&r.nblocks, e + 12, 4);
		memcpy(&r.owner, e + 16, 8);
		if (esz == FS_REG_ENTRY2) {
			memcpy(&r.row, e + 24, 4);
			memcpy(&r.nrows, e + 28, 4);
			memcpy(&r.flags, e + 32, 4);
		} else if (r.part < FG_NPARTS) {
			r.nrows = (uint32_t)((uint64_t)r.nblocks *
					     fs->g.part[r.part].pages_per_block);
		}
		if (!fs_region_sane(fs, &r))
			return -EIO;
		for (j = 0; j < fs->nreg; j++)
			if (fs->reg[j].id == r.id || fs_region_clash(&r, &fs->reg[j]))
				return -EIO;
		/* Committed: its owner finished writing before the commit. */
		r.flags &= ~FS_REGION_UNCOMMITTED;
		if (r.flags & FS_REGION_PACKED)
			r.flags |= FS_REGION_SEALED;
		if (fs_reg_insert(fs, &r))
			return -ENOMEM;
	}
	fs->next_id = h[2] ? h[2] : 1;
	*used = 16 + (size_t)h[1] * esz;
	return 0;
}
