/* SPDX-License-Identifier: MIT */
/*
 * ftl_persist.c - the FTL's part of the device's metadata commit (docs/
 * ftl.md, "Crash rules"): namespaces, held stripes (their region ids, so
 * the region table of the same commit must agree), per-block write pointer,
 * state and erase count, and the map. The reverse map, valid counts and
 * free lists are rebuilt from them at open. Open blocks come back closed:
 * their unwritten pages stay unused until GC reclaims the block, as a
 * drive closes its open blocks after a power loss.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftl_int.h"

#define FTL_MAGIC 0x314c5446u	/* "FTL1" */
#define FTL_VERSION 1u

struct ftl_hdr {
	uint32_t magic, version;
	uint32_t NP, ppb, upp, nns;
	uint32_t nsb, owner_seq;
	uint64_t units, rr;
};

struct ftl_rec_ns {
	uint32_t nsid, rsvd;
	uint64_t bytes, base, units;
};

struct ftl_rec_sb {
	uint32_t region, first_block;
};

struct ftl_rec_blk {
	uint16_t wp;
	uint8_t state, rsvd;
	uint32_t erases;
};

_Static_assert(sizeof(struct ftl_hdr) == 48, "blob layout");
_Static_assert(sizeof(struct ftl_rec_ns) == 32, "blob layout");
_Static_assert(sizeof(struct ftl_rec_blk) == 8, "blob layout");

int ftl_save(struct ftl *f, void **blob, size_t *len)
{
	struct ftl_hdr h;
	uint8_t *b, *p;
	size_t n;
	uint32_t i;
	uint64_t k;

	pthread_mutex_lock(&f->lock);
	n = sizeof(h) + f->nns * sizeof(struct ftl_rec_ns) +
	    f->nsb * sizeof(struct ftl_rec_sb) +
	    (uint64_t)f->nsb * f->NP * sizeof(struct ftl_rec_blk) + f->units * 4;
	b = malloc(n);
	if (!b) {
		pthread_mutex_unlock(&f->lock);
		return -ENOMEM;
	}
	memset(&h, 0, sizeof(h));
	h.magic = FTL_MAGIC;
	h.version = FTL_VERSION;
	h.NP = f->NP;
	h.ppb = f->ppb;
	h.upp = f->upp;
	h.nns = f->nns;
	h.nsb = f->nsb;
	h.owner_seq = f->owner_seq;
	h.units = f->units;
	h.rr = f->rr;
	memcpy(b, &h, sizeof(h));
	p = b + sizeof(h);
	for (i = 0; i < f->nns; i++, p += sizeof(struct ftl_rec_ns)) {
		struct ftl_rec_ns r = { f->ns[i].nsid, 0, f->ns[i].bytes, f->ns[i].base,
					f->ns[i].units };

		memcpy(p, &r, sizeof(r));
	}
	for (i = 0; i < f->nsb; i++, p += sizeof(struct ftl_rec_sb)) {
		struct ftl_rec_sb r = { f->sb[i].region, f->sb[i].first_block };

		memcpy(p, &r, sizeof(r));
	}
	for (k = 0; k < (uint64_t)f->nsb * f->NP; k++, p += sizeof(struct ftl_rec_blk)) {
		struct ftl_rec_blk r = { f->blk[k].wp, f->blk[k].state, 0, f->blk[k].erases };

		if (!f->sb[k / f->NP].region)
			memset(&r, 0, sizeof(r));
		memcpy(p, &r, sizeof(r));
	}
	if (f->units)
		memcpy(p, f->map, f->units * 4);
	f->dirty = 0;
	pthread_mutex_unlock(&f->lock);
	*blob = b;
	*len = n;
	return 0;
}

/* Free the store's FTL-tagged regions the blob does not hold (taken after
 * the last commit they were in; a commit carries both). */
static void ftl_free_strays(struct ftl *f)
{
	struct fs_region *regs;
	int n, j;
	uint32_t s;

	n = fs_region_list(f->fs, NULL, 0);
	if (n <= 0)
		return;
	regs = calloc((size_t)n, sizeof(*regs));
	if (!regs)
		return;
	n = fs_region_list(f->fs, regs, (size_t)n);
	for (j = 0; j < n; j++) {
		int used = 0;

		if (regs[j].owner >> 32 != FTL_OWNER_TAG)
			continue;
		for (s = 0; s < f->nsb && !used; s++)
			used = f->sb[s].region == regs[j].id;
		if (!used)
			fs_region_free(f->fs, regs[j].id);
	}
	free(regs);
}

static int ftl_corrupt(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "FTL metadata in the backing file is corrupt (%s)", what);
	return -EIO;
}

int ftl_load(struct ftl *f, const void *blob, size_t len, char *err, size_t errlen)
{
	const uint8_t *p = blob;
	struct ftl_hdr h;
	uint64_t need, k, u;
	uint32_t i, s, pl;
	int ret;

	if (!blob || !len) {
		ftl_free_strays(f);
		return 0;
	}
	if (len < sizeof(h))
		return ftl_corrupt(err, errlen, "short header");
	memcpy(&h, p, sizeof(h));
	if (h.magic != FTL_MAGIC || h.version != FTL_VERSION)
		return ftl_corrupt(err, errlen, "magic or version");
	if (h.NP != f->NP || h.ppb != f->ppb || h.upp != f->upp) {
		snprintf(err, errlen, "FTL metadata is for another geometry (%u planes, %u "
			 "pages per block, %u units per page; this drive: %u, %u, %u)",
			 h.NP, h.ppb, h.upp, f->NP, f->ppb, f->upp);
		return -EINVAL;
	}
	if (h.nns > FTL_MAX_NS || h.units > FTL_MAX_UNITS ||
	    h.nsb > f->g->part[FG_PART_NATIVE].nblocks)
		return ftl_corrupt(err, errlen, "counts");
	need = sizeof(h) + (uint64_t)h.nns * sizeof(struct ftl_rec_ns) +
	       (uint64_t)h.nsb * sizeof(struct ftl_rec_sb) +
	       (uint64_t)h.nsb * f->NP * sizeof(struct ftl_rec_blk) + h.units * 4;
	if (need != len)
		return ftl_corrupt(err, errlen, "length");
	p += sizeof(h);
	for (i = 0; i < h.nns; i++, p += sizeof(struct ftl_rec_ns)) {
		struct ftl_rec_ns r;

		memcpy(&r, p, sizeof(r));
		if (r.units != (r.bytes + FTL_UNIT - 1) / FTL_UNIT || r.base > h.units ||
		    r.units > h.units - r.base)
			return ftl_corrupt(err, errlen, "namespace record");
		f->ns[i].nsid = r.nsid;
		f->ns[i].bytes = r.bytes;
		f->ns[i].base = r.base;
		f->ns[i].units = r.units;
	}
	f->nns = h.nns;
	f->units = h.units;
	f->owner_seq = h.owner_seq ? h.owner_seq : 1;
	f->rr = h.rr;
	for (i = 0; i < h.nsb; i++, p += sizeof(struct ftl_rec_sb)) {
		struct ftl_rec_sb r;
		struct fs_region reg;

		memcpy(&r, p, sizeof(r));
		if (!r.region) {
			ret = ftl_slot_new(f, UINT32_MAX, 0);	/* a hole, undone below */
			if (ret < 0)
				return ret;
			continue;
		}
		if (fs_region_get(f->fs, r.region, &reg) || reg.owner >> 32 != FTL_OWNER_TAG ||
		    reg.part != FG_PART_NATIVE || reg.first_block != r.first_block ||
		    reg.nblocks != 1) {
			snprintf(err, errlen, "FTL metadata names stripe %u (region %u) that the "
				 "region table does not give the FTL", r.first_block, r.region);
			return -EINVAL;
		}
		ret = ftl_slot_new(f, r.region, r.first_block);
		if (ret < 0)
			return ret;
	}
	/* Block states: the free lists are rebuilt from scratch. */
	for (pl = 0; pl < f->NP; pl++) {
		f->pl[pl].free_head = FTL_NONE;
		f->pl[pl].nfree = 0;
	}
	f->st.free_blocks = 0;
	for (k = 0; k < (uint64_t)h.nsb * f->NP; k++, p += sizeof(struct ftl_rec_blk)) {
		struct ftl_rec_blk r;
		struct ftl_blk *b = &f->blk[k];

		memcpy(&r, p, sizeof(r));
		s = (uint32_t)(k / f->NP);
		pl = (uint32_t)(k % f->NP);
		if (r.wp > f->ppb || r.state > FTL_B_VICTIM)
			return ftl_corrupt(err, errlen, "block record");
		memset(b, 0, sizeof(*b));
		b->next = FTL_NONE;
		b->erases = r.erases;
		b->wp = r.wp;
		f->st.erase_sum += r.erases;
		if (r.erases > f->st.erase_max)
			f->st.erase_max = r.erases;
		if (f->sb[s].region == UINT32_MAX)
			continue;
		if (r.state == FTL_B_FREE && !r.wp)
			ftl_free_push(f, pl, s);
		else
			b->state = FTL_B_CLOSED;	/* open or victim: closed now */
	}
	f->map = malloc((f->units ? f->units : 1) * sizeof(uint32_t));
	if (!f->map)
		return -ENOMEM;
	memcpy(f->map, p, f->units * 4);
	for (u = 0; u < f->units; u++) {
		uint32_t pun = f->map[u];
		struct ftl_blk *b;

		if (pun == FTL_NONE)
			continue;
		s = ftl_pun_sb(f, pun);
		if (s >= f->nsb || f->sb[s].region == UINT32_MAX ||
		    *ftl_p2l(f, pun) != FTL_NONE)
			return ftl_corrupt(err, errlen, "map entry");
		b = ftl_blk_of(f, s, ftl_pun_plane(f, pun));
		if (ftl_pun_page(f, pun) >= b->wp || b->state == FTL_B_FREE)
			return ftl_corrupt(err, errlen, "map entry past a write pointer");
		*ftl_p2l(f, pun) = (uint32_t)u;
		b->valid++;
		f->st.valid_units++;
	}
	/* Holes: slots of stripes given back before the commit. */
	for (s = 0; s < f->nsb; s++)
		if (f->sb[s].region == UINT32_MAX) {
			free(f->sb[s].p2l);
			f->sb[s].p2l = NULL;
			f->sb[s].region = 0;
			f->held--;
			f->st.phys_bytes -= f->spu * FTL_UNIT;
		}
	ftl_sizes(f);
	if (f->units) {
		ret = ftl_dram_take(f, f->units, err, errlen);
		if (ret)
			return ret;
	}
	ftl_free_strays(f);
	f->dirty = 0;
	return 0;
}
