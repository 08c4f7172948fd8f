/* SPDX-License-Identifier: MIT */
/*
 * recflash_persist.c - the engine's part of the committed metadata: one
 * record per table (create header, area, where its mapping image is) and,
 * at load, the images read back and checked (docs/recflash-engine.md
 * "Mapping and persistence").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flash_geom.h"
#include "flash_io.h"
#include "recflash_int.h"

int rf_save(struct rf_eng *e, void **blob, size_t *len)
{
	struct rf_meta_hdr h = { RF_META_MAGIC, RF_META_VERSION, 0, 0 };
	struct rf_table *t;
	size_t size = sizeof(h), off;
	uint8_t *b;

	pthread_mutex_lock(&e->lock);
	for (t = e->tables; t; t = t->next)
		if (t->state == ISP_RF_READY && t->active)
			size += sizeof(struct rf_meta_rec) +
				t->active->nruns * sizeof(struct rf_run);
	b = malloc(size);
	if (!b) {
		pthread_mutex_unlock(&e->lock);
		return -ENOMEM;
	}
	off = sizeof(h);
	for (t = e->tables; t; t = t->next) {
		const struct rf_map *m = t->active;
		struct rf_meta_rec r;

		if (t->state != ISP_RF_READY || !m)
			continue;
		memset(&r, 0, sizeof(r));
		r.cr = t->cr;
		r.gen = m->gen;
		r.region_id = m->area->reg.id;
		r.img_pages = m->img_pages;
		r.img_crc = m->img_crc;
		r.nruns = m->img_pages ? m->nruns : 0;
		memcpy(b + off, &r, sizeof(r));
		off += sizeof(r);
		memcpy(b + off, m->run, r.nruns * sizeof(struct rf_run));
		off += r.nruns * sizeof(struct rf_run);
		h.ntables++;
	}
	pthread_mutex_unlock(&e->lock);
	memcpy(b, &h, sizeof(h));
	*blob = b;
	*len = off;
	return 0;
}

/* Read a mapping image back and rebuild the map (a, Algorithm 1 list). */
static int rf_load_image(struct rf_eng *e, struct rf_table *t, struct rf_map *m)
{
	uint32_t pb = e->p->page_bytes, r, k, *w;
	/* The area as allocated: a file from an older layout may be larger. */
	uint64_t i, p = 0, bytes, slots = m->area->pages * t->rpp;
	struct rf_img_hdr h;
	uint8_t *img, *seen;
	int ret = 0;

	img = malloc((size_t)m->img_pages * pb);
	seen = calloc((size_t)t->rows / 8 + 1, 1);
	if (!img || !seen) {
		ret = -ENOMEM;
		goto out;
	}
	for (r = 0; r < m->nruns && !ret; r++)
		for (i = 0; i < m->run[r].count && !ret; i++, p++) {
			uint64_t ppa;

			if (p >= m->img_pages)
				ret = -EIO;
			else
				ret = rf_area_ppa(e, m->area, m->run[r].lpage + i, &ppa);
			if (!ret)
				ret = fs_read(e->fs, ppa, 0, img + p * pb, pb);
		}
	if (ret)
		goto out;
	memcpy(&h, img, sizeof(h));
	bytes = sizeof(h) + h.payload;
	if (p != m->img_pages || h.magic != RF_IMG_MAGIC || h.version != RF_IMG_VERSION ||
	    h.tid != t->tid || h.rows != t->rows || h.hot > t->hot ||
	    h.payload != (uint64_t)t->rows * 4 + (uint64_t)h.hot * 8 ||
	    bytes > (uint64_t)m->img_pages * pb || fio_crc32c(0, img, bytes) != m->img_crc) {
		ret = -EIO;
		goto out;
	}
	memcpy(m->ht.a, img + sizeof(h), (size_t)t->rows * 4);
	for (k = 0; k < t->rows; k++)
		if (m->ht.a[k] >= slots) {
			ret = -EIO;
			goto out;
		}
	w = (uint32_t *)(void *)(img + sizeof(h) + (size_t)t->rows * 4);
	for (i = 0; i < h.hot; i++) {
		k = w[i];
		if (k >= t->rows || (seen[k >> 3] >> (k & 7) & 1)) {
			ret = -EIO;
			goto out;
		}
		seen[k >> 3] |= (uint8_t)(1u << (k & 7));
		rf_ht_append(&m->ht, k, w[h.hot + i]);
	}
	for (k = 0; k < t->rows; k++)
		if (!(seen[k >> 3] >> (k & 7) & 1))
			rf_ht_append(&m->ht, k, 0);
	rf_ht_threshold(&m->ht);
	m->ht.cmps = m->ht.ptr_ops = 0;
out:
	free(img);
	free(seen);
	return ret;
}

/* The loaded mapping's list: its image in flash, or row order for a table
 * never remapped. */
static int rf_load_list(struct rf_eng *e, struct rf_table *t, const struct rf_meta_rec *r,
			const struct rf_run *runs, struct rf_map *m, char *err, size_t errlen)
{
	int ret = 0;

	m->gen = r->gen;
	m->img_pages = r->img_pages;
	m->img_crc = r->img_crc;
	m->nruns = r->nruns;
	memcpy(m->run, runs, r->nruns * sizeof(*runs));
	if (t->mode == ISP_RF_RECFLASH) {
		if (r->img_pages) {
			ret = rf_load_image(e, t, m);
		} else {
			uint32_t k;

			for (k = 0; k < t->rows; k++) {
				m->ht.a[k] = k;
				rf_ht_append(&m->ht, k, 0);
			}
			rf_ht_threshold(&m->ht);
		}
		if (ret) {
			snprintf(err, errlen, "RecFlash table %u: mapping image in flash is "
				 "corrupt", t->tid);
			return ret;
		}
		ret = rf_map_top(e, t, m);
		if (ret) {
			snprintf(err, errlen, "RecFlash table %u: out of memory", t->tid);
			return ret;
		}
	} else if (r->img_pages) {
		ret = -EIO;
		snprintf(err, errlen, "RecFlash table %u: metadata corrupt", t->tid);
		return ret;
	}
	return 0;
}

static int rf_load_one(struct rf_eng *e, const struct rf_meta_rec *r,
		       const struct rf_run *runs, char *err, size_t errlen)
{
	struct isp_cpl cpl;
	struct rf_table *t;
	struct fs_region reg;
	struct rf_area *ar;
	struct rf_map *m = NULL;
	uint64_t dram_track, dram_l2p, dram_map;
	int ret;

	memset(&cpl, 0, sizeof(cpl));
	if (rf_check_create(e, &r->cr, &cpl) || fs_region_get(e->fs, r->region_id, &reg) ||
	    (reg.owner >> 32) != (RF_OWNER_TAG >> 32) || r->nruns > RF_MAX_RUNS) {
		snprintf(err, errlen, "RecFlash table %u: metadata does not match the flash",
			 r->cr.tid);
		return -EIO;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->cr = r->cr;
	rf_derive(e, t);
	pthread_mutex_init(&t->tlock, NULL);
	t->state = ISP_RF_READY;
	t->received[ISP_RF_SEC_ROWS] = rf_sec_size(t, ISP_RF_SEC_ROWS);
	t->received[ISP_RF_SEC_PROFILE] = rf_sec_size(t, ISP_RF_SEC_PROFILE);
	rf_dram_fixed(t, &dram_map, &dram_track, &dram_l2p);
	ar = rf_area_wrap(e, &reg);
	if (!ar) {
		ret = -ENOMEM;
		goto fail;
	}
	rf_area_scan(e, ar);
	ret = rf_map_new(e, t, ar, t->mode == ISP_RF_RECFLASH, NULL, &m);
	ar->refs--;	/* the map holds the area now */
	if (ret) {
		free(ar->wp);
		free(ar);
		goto fail;
	}
	ret = rf_load_list(e, t, r, runs, m, err, errlen);
	if (ret)
		goto fail_map;
	t->active = m;
	ret = rf_dram_fixed_reserve(e, dram_map, dram_track, dram_l2p);
	if (ret) {
		snprintf(err, errlen, "RecFlash table %u does not fit in controller DRAM "
			 "(dram_bytes)", t->tid);
		goto fail_map;
	}
	t->dram_fixed = dram_map + dram_track + dram_l2p;
	ret = rf_track_init(&t->track, dram_track ? rf_track_keys(t) : 0);
	if (ret)
		goto fail_tbl;
	if (rf_table_link(e, t)) {
		snprintf(err, errlen, "RecFlash table %u listed twice in the metadata", t->tid);
		ret = -EIO;
		goto fail_tbl;
	}
	return 0;

fail_tbl:
	if (t->dram_fixed)
		rf_dram_fixed_release(e, dram_map, dram_track, dram_l2p);
	rf_track_free(&t->track);
fail_map:
	/* Only our memory: the committed region stays in the store. */
	t->active = NULL;
	rf_ht_free(&m->ht);
	free(m->top);
	free(m->area->wp);
	free(m->area);
	free(m);
fail:
	pthread_mutex_destroy(&t->tlock);
	free(t);
	return ret ? ret : -EIO;
}

int rf_load(struct rf_eng *e, const void *blob, size_t len, char *err, size_t errlen)
{
	const uint8_t *b = blob;
	struct rf_meta_hdr h;
	struct fs_region *regs = NULL;
	size_t off = sizeof(h);
	uint32_t i;
	int n, j, ret = 0;

	if (len) {
		if (len < sizeof(h)) {
			snprintf(err, errlen, "RecFlash metadata truncated");
			return -EIO;
		}
		memcpy(&h, b, sizeof(h));
		if (h.magic != RF_META_MAGIC || h.version != RF_META_VERSION ||
		    h.ntables > RF_MAX_TABLES) {
			snprintf(err, errlen, "RecFlash metadata of an unknown version");
			return -EIO;
		}
		for (i = 0; i < h.ntables && !ret; i++) {
			struct rf_meta_rec r;
			struct rf_run runs[RF_MAX_RUNS];

			if (len - off < sizeof(r)) {
				snprintf(err, errlen, "RecFlash metadata truncated");
				return -EIO;
			}
			memcpy(&r, b + off, sizeof(r));
			off += sizeof(r);
			if (r.nruns > RF_MAX_RUNS ||
			    len - off < r.nruns * sizeof(struct rf_run)) {
				snprintf(err, errlen, "RecFlash metadata truncated");
				return -EIO;
			}
			memcpy(runs, b + off, r.nruns * sizeof(struct rf_run));
			off += r.nruns * sizeof(struct rf_run);
			ret = rf_load_one(e, &r, runs, err, errlen);
		}
		if (ret)
			return ret;
	}
	/* Regions of deploys or remaps that never reached a commit. */
	n = fs_region_list(e->fs, NULL, 0);
	if (n > 0) {
		regs = calloc((size_t)n, sizeof(*regs));
		if (!regs)
			return -ENOMEM;
		n = fs_region_list(e->fs, regs, (size_t)n);
		for (j = 0; j < n; j++) {
			struct rf_table *t;
			int used = 0;

			if ((regs[j].owner >> 32) != (RF_OWNER_TAG >> 32))
				continue;
			for (t = e->tables; t && !used; t = t->next)
				used = t->active && t->active->area->reg.id == regs[j].id;
			if (!used)
				fs_region_free(e->fs, regs[j].id);
		}
		free(regs);
	}
	return 0;
}
