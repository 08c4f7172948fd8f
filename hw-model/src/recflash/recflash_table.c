/* SPDX-License-Identifier: MIT */
/*
 * recflash_table.c - the RecFlash engine's table list: lookup, freeing a
 * table, and its statistics (RF_TABLE_STATS: the page reads, bytes sensed
 * and cache hits RecFlash §IV compares).
 */

/*
 * Deploy, mapping, GC and persistence live in recflash_deploy.c,
 * recflash_map.c, recflash_gc.c, recflash_persist.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flash_geom.h"
#include "flash_io.h"
#include "recflash_int.h"

struct rf_table *rf_find(struct rf_eng *e, uint32_t tid)
{
	struct rf_table *t;

	for (t = e->tables; t; t = t->next)
		if (t->tid == tid)
			return t;
	return NULL;
}

void rf_table_free(struct rf_eng *e, struct rf_table *t)
{
	rf_map_put(e, t->active);
	rf_map_put(e, t->staged);
	rf_area_put(e, t->dep_area);
	rf_drop_profile(e, t);
	if (t->dram_fixed) {
		fs_dram_release(e->fs, "rf-map", rf_map_dram(t));
		fs_dram_release(e->fs, "rf-track", rf_track_bytes(t->track.cap));
		fs_dram_release(e->fs, "rf-l2p", t->mode == ISP_RF_RECFLASH ? 0 :
				t->data_pages * 4);
	}
	rf_track_free(&t->track);
	pthread_mutex_destroy(&t->tlock);
	free(t->pagebuf);
	free(t);
}

void rf_fill_stats(struct rf_eng *e, struct rf_table *t, struct isp_wire_rf_stats *w,
		   int reset)
{
	const struct rf_map *m;
	uint64_t pages = 0;

	(void)e;

	memset(w, 0, sizeof(*w));
	/* eng->lock held by the caller. */
	w->create = t->cr;
	w->state = t->state;
	w->remap_state = t->remap_state;
	m = t->active;
	w->generation = m ? m->gen : 0;
	w->rows_per_page = t->rpp;
	memcpy(w->received, t->received, sizeof(w->received));
	if (m)
		pages = t->data_pages + m->img_pages;
	w->pages = pages;
	w->dram_bytes = t->dram_fixed + (t->staged ? t->staged->dram : 0) +
			(t->profile ? (uint64_t)t->rows * 4 : 0);
	pthread_mutex_lock(&t->tlock);
	w->sls_bags = t->st.sls_bags;
	w->lookups = t->st.lookups;
	w->page_reads = t->st.page_reads;
	w->cache_hits = t->st.cache_hits;
	w->cache_misses = t->st.cache_misses;
	w->bytes_sensed = t->st.bytes_sensed;
	w->bytes_useful = t->st.bytes_useful;
	w->bytes_out = t->st.bytes_out;
	w->model_ns = t->st.model_ns;
	w->energy_pj = t->st.energy_pj;
	w->tracked_keys = t->track.nkeys;
	w->remaps = t->st.remaps;
	w->remap_rows_moved = t->st.rows_moved;
	w->remap_page_reads = t->st.remap_reads;
	w->remap_programs = t->st.remap_programs;
	w->remap_erases = t->st.remap_erases;
	w->remap_ns = t->st.remap_ns;
	w->trigger_hot_new = t->st.trigger_hot_new;
	if (reset) {
		t->st.sls_bags = t->st.lookups = t->st.page_reads = 0;
		t->st.cache_hits = t->st.cache_misses = 0;
		t->st.bytes_sensed = t->st.bytes_useful = t->st.bytes_out = 0;
		t->st.model_ns = t->st.energy_pj = 0;
	}
	pthread_mutex_unlock(&t->tlock);
}


/* Rows the tracker follows: every row, up to RF_TRACK_MAX_KEYS. */
uint32_t rf_track_keys(const struct rf_table *t)
{
	return t->rows < RF_TRACK_MAX_KEYS ? t->rows : RF_TRACK_MAX_KEYS;
}

/*
 * The controller DRAM a table holds while it exists: its mapping, the
 * tracker (RecFlash mode) or a page-level L2P entry per page (row-order
 * modes).
 */
void rf_dram_fixed(const struct rf_table *t, uint64_t *map, uint64_t *track, uint64_t *l2p)
{
	*map = rf_map_dram(t);
	*track = t->mode == ISP_RF_RECFLASH ? rf_track_bytes(rf_track_keys(t)) : 0;
	*l2p = t->mode == ISP_RF_RECFLASH ? 0 : t->data_pages * 4;
}

int rf_dram_fixed_reserve(struct rf_eng *e, uint64_t map, uint64_t track, uint64_t l2p)
{
	int ret;

	ret = fs_dram_reserve(e->fs, "rf-map", map);
	if (!ret && (ret = fs_dram_reserve(e->fs, "rf-track", track)))
		fs_dram_release(e->fs, "rf-map", map);
	if (!ret && (ret = fs_dram_reserve(e->fs, "rf-l2p", l2p))) {
		fs_dram_release(e->fs, "rf-map", map);
		fs_dram_release(e->fs, "rf-track", track);
	}
	return ret;
}

void rf_dram_fixed_release(struct rf_eng *e, uint64_t map, uint64_t track, uint64_t l2p)
{
	fs_dram_release(e->fs, "rf-map", map);
	fs_dram_release(e->fs, "rf-track", track);
	fs_dram_release(e->fs, "rf-l2p", l2p);
}

/* Under e->lock: insert @t in the list by ascending tid; -EEXIST. */
int rf_table_link(struct rf_eng *e, struct rf_table *t)
{
	struct rf_table **pp;

	for (pp = &e->tables; *pp && (*pp)->tid < t->tid; pp = &(*pp)->next)
		;
	if (*pp && (*pp)->tid == t->tid)
		return -EEXIST;
	t->next = *pp;
	*pp = t;
	e->ntables++;
	return 0;
}
