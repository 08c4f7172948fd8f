/* SPDX-License-Identifier: MIT */
/*
 * recflash_cache.c - the page-wise LRU cache of the controller (RecFlash
 * §III-C2), and its walk in lookup order for an RF_SLS.
 */

/*
 * Cache: frames of one flash page each (cache_bytes / page_bytes of SRAM),
 * keyed by ppa, replaced least-recently-used. A frame holds the rows the
 * controller actually read out of that page (a valid bit per row): a miss
 * senses the page and reads out only the rows it lacks, so filling a frame
 * never costs more channel time than RM-SSD's selective read-out
 * (docs/recflash-engine.md "Cache"). The cache models presence only: a
 * cached row always equals the row in flash (pages are immutable until
 * their block is erased, and frames are dropped before that), so the data
 * path reads the bytes from the store.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "recflash_engine.h"
#include "recflash_int.h"

static uint32_t rf_cache_hash(const struct rf_cache *c, uint64_t key)
{
	return (uint32_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & (c->nbuckets - 1);
}

int rf_cache_init(struct rf_cache *c, uint64_t cache_bytes, uint32_t page_bytes)
{
	uint64_t nf = page_bytes ? cache_bytes / page_bytes : 0;
	uint32_t i;

	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
	c->lru_head = c->lru_tail = c->free = RF_NIL;
	if (!nf)
		return 0;
	if (nf > (1u << 24))
		nf = 1u << 24;
	c->nframes = (uint32_t)nf;
	/* A row is at least 2 bytes (fp16, dim 1). */
	c->words = (page_bytes / 2 + 63) / 64;
	c->nbuckets = rf_pow2_at_least(2 * nf);
	c->fr = calloc(nf, sizeof(*c->fr));
	c->bits = calloc(nf * c->words, sizeof(*c->bits));
	c->bucket = malloc((size_t)c->nbuckets * sizeof(*c->bucket));
	if (!c->fr || !c->bits || !c->bucket) {
		rf_cache_destroy(c);
		return -ENOMEM;
	}
	memset(c->bucket, 0xff, (size_t)c->nbuckets * sizeof(*c->bucket));
	for (i = 0; i < c->nframes; i++)
		c->fr[i].next = i + 1 < c->nframes ? i + 1 : RF_NIL;
	c->free = 0;
	return 0;
}

void rf_cache_destroy(struct rf_cache *c)
{
	free(c->fr);
	free(c->bits);
	free(c->bucket);
	pthread_mutex_destroy(&c->lock);
	memset(c, 0, sizeof(*c));
}

static uint32_t rf_cache_find(const struct rf_cache *c, uint64_t key)
{
	uint32_t i;

	for (i = c->bucket[rf_cache_hash(c, key)]; i != RF_NIL; i = c->fr[i].hnext)
		if (c->fr[i].key == key)
			return i;
	return RF_NIL;
}

static void rf_lru_unlink(struct rf_cache *c, uint32_t i)
{
	struct rf_frame *f = &c->fr[i];

	if (f->prev != RF_NIL)
		c->fr[f->prev].next = f->next;
	else
		c->lru_head = f->next;
	if (f->next != RF_NIL)
		c->fr[f->next].prev = f->prev;
	else
		c->lru_tail = f->prev;
	f->prev = f->next = RF_NIL;
}

static void rf_lru_front(struct rf_cache *c, uint32_t i)
{
	struct rf_frame *f = &c->fr[i];

	f->prev = RF_NIL;
	f->next = c->lru_head;
	if (c->lru_head != RF_NIL)
		c->fr[c->lru_head].prev = i;
	else
		c->lru_tail = i;
	c->lru_head = i;
}

/* Remove frame @i from its hash chain and the LRU list; put it on the free list. */
static void rf_cache_drop(struct rf_cache *c, uint32_t i)
{
	uint32_t *pp = &c->bucket[rf_cache_hash(c, c->fr[i].key)];

	while (*pp != RF_NIL && *pp != i)
		pp = &c->fr[*pp].hnext;
	if (*pp == i)
		*pp = c->fr[i].hnext;
	rf_lru_unlink(c, i);
	c->fr[i].used = 0;
	c->fr[i].next = c->free;
	c->free = i;
	c->used--;
}

static int rf_bit(const uint64_t *w, uint32_t j)
{
	return (int)((w[j >> 6] >> (j & 63)) & 1);
}

int rf_cache_touch_locked(struct rf_cache *c, uint64_t key, uint32_t area_id,
			  uint64_t lpage, uint32_t row, unsigned flags)
{
	uint32_t i = rf_cache_find(c, key);
	uint64_t *w;
	int hit;

	if (i == RF_NIL) {
		if (!(flags & RF_CT_ADMIT))
			return RF_CT_BYPASS;
		if (c->free == RF_NIL)
			rf_cache_drop(c, c->lru_tail);	/* evict the least recently used */
		i = c->free;
		c->free = c->fr[i].next;
		c->fr[i].key = key;
		c->fr[i].area_id = area_id;
		c->fr[i].lpage = lpage;
		c->fr[i].used = 1;
		c->fr[i].hnext = c->bucket[rf_cache_hash(c, key)];
		c->bucket[rf_cache_hash(c, key)] = i;
		memset(c->bits + (size_t)i * c->words, (flags & RF_CT_PAGE) ? 0xff : 0,
		       c->words * sizeof(*c->bits));
		c->used++;
		rf_lru_front(c, i);
		if (!(flags & RF_CT_PAGE) && row < c->words * 64)
			c->bits[(size_t)i * c->words + (row >> 6)] |= UINT64_C(1) << (row & 63);
		return RF_CT_FILLED;
	}
	rf_lru_unlink(c, i);
	rf_lru_front(c, i);
	w = c->bits + (size_t)i * c->words;
	if (row >= c->words * 64)
		return RF_CT_ROW;
	hit = rf_bit(w, row);
	w[row >> 6] |= UINT64_C(1) << (row & 63);
	return hit ? RF_CT_HIT : RF_CT_ROW;
}

void rf_cache_drop_area(struct rf_cache *c, uint32_t area_id, uint64_t lo, uint64_t hi)
{
	uint32_t i;

	if (!c->nframes)
		return;
	pthread_mutex_lock(&c->lock);
	for (i = 0; i < c->nframes; i++)
		if (c->fr[i].used && c->fr[i].area_id == area_id &&
		    c->fr[i].lpage >= lo && c->fr[i].lpage < hi)
			rf_cache_drop(c, i);
	pthread_mutex_unlock(&c->lock);
}

/* ---- tracker ---- */

/* Whether a lookup of key @k may bring its page into a cache frame. */
static int rf_sls_admit(const struct rf_eng *e, const struct rf_map *m, uint32_t k)
{
	switch (e->p->cache_admit) {
	case 0:
		return 1;			/* every page */
	case 1:
		return rf_ht_is_hot(&m->ht, k);	/* pages of the hot region */
	default:				/* the hottest pages */
		return m->top && (m->top[k >> 3] >> (k & 7) & 1);
	}
}

/*
 * The page cache, walked in lookup order (bag by bag, index by index) as
 * the controller meets the lookups, so recency follows the real access
 * stream. A distinct row counts once per command, at its first lookup: a
 * hit needs no flash, a miss marks it for read-out (need = 1); its later
 * lookups in the command only refresh the LRU order (the row is already in
 * the controller). A miss caches the row, or with cache_fill = 1 its whole
 * page (the page is then read out whole, p->fill; its other rows still
 * count as misses in this command: they come from the flash). Only some
 * rows bring their page in (rf_sls_admit(): by default the hottest keys of
 * the list, as many as the frames hold); others use a cached page but
 * never take a frame.
 */
void rf_sls_cache(struct rf_eng *e, struct rf_sls_cmd *s)
{
	const struct rf_map *m = s->m;
	const struct rf_table *t = s->t;
	const uint32_t *idx = s->idx, *pos = s->pos, *ds = s->ds, *pgi = s->pgi;
	uint32_t nidx = s->h.nidx, i;
	struct rf_spage *pg = s->pg;
	uint8_t *need = s->need;
	struct rf_sls_run *r = &s->run;
	unsigned base = e->p->cache_fill ? RF_CT_PAGE : 0;

	pthread_mutex_lock(&e->cache.lock);
	for (i = 0; i < nidx; i++) {
		uint32_t d = pos[i];
		struct rf_spage *p = &pg[pgi[d]];
		unsigned fl = base;
		int res;

		if (rf_sls_admit(e, m, idx[i]))
			fl |= RF_CT_ADMIT;
		res = rf_cache_touch_locked(&e->cache, p->ppa, m->area->reg.id, p->lpage,
					    ds[d] % t->rpp, fl);
		if (res == RF_CT_FILLED && (fl & RF_CT_PAGE))
			p->fill = 1;
		if (need[d])
			continue;
		if (res == RF_CT_HIT && !p->fill) {
			r->hits++;
			need[d] = 2;
		} else {
			r->misses++;
			need[d] = 1;
		}
	}
	pthread_mutex_unlock(&e->cache.lock);
}
