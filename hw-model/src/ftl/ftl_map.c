/* SPDX-License-Identifier: MIT */
/*
 * ftl_map.c - the FTL object, its namespaces and the page-level map: every
 * 4 KiB unit of an attached namespace points at a physical unit of a held
 * block stripe (or at nothing: never written or deallocated), and every
 * physical unit back at the namespace unit it holds, which GC needs to move
 * it (docs/ftl.md, "Map").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftl_int.h"

int ftl_ns_find(const struct ftl *f, uint32_t nsid)
{
	uint32_t i;

	for (i = 0; i < f->nns; i++)
		if (f->ns[i].nsid == nsid)
			return (int)i;
	return -1;
}

/* Unit @lun no longer lives where the map says. */
void ftl_unmap_unit(struct ftl *f, uint64_t lun)
{
	uint32_t pun = f->map[lun];
	struct ftl_blk *b;

	if (pun == FTL_NONE)
		return;
	*ftl_p2l(f, pun) = FTL_NONE;
	b = ftl_blk_of(f, ftl_pun_sb(f, pun), ftl_pun_plane(f, pun));
	b->valid--;
	f->st.valid_units--;
	f->map[lun] = FTL_NONE;
}

/* Unit @lun now lives at @pun (a free slot of an open block). */
void ftl_bind(struct ftl *f, uint64_t lun, uint64_t pun)
{
	ftl_unmap_unit(f, lun);
	f->map[lun] = (uint32_t)pun;
	*ftl_p2l(f, pun) = (uint32_t)lun;
	ftl_blk_of(f, ftl_pun_sb(f, pun), ftl_pun_plane(f, pun))->valid++;
	f->st.valid_units++;
	f->dirty = 1;
}

int ftl_open(const struct ftl_config *cfg, struct ftl **out, char *err, size_t errlen)
{
	char dummy[8];
	struct ftl *f;
	uint32_t i;
	int ret;

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = '\0';
	if (!cfg || !cfg->fs || !cfg->ft || !cfg->p || !out) {
		snprintf(err, errlen, "FTL: incomplete configuration");
		return -EINVAL;
	}
	*out = NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	pthread_mutex_init(&f->lock, NULL);
	f->fs = cfg->fs;
	f->ft = cfg->ft;
	f->p = *cfg->p;
	f->g = fs_geom(cfg->fs);
	f->NP = f->g->planes;
	f->mode = f->g->part[FG_PART_NATIVE].mode;
	f->ppb = f->g->part[FG_PART_NATIVE].pages_per_block;
	f->page_bytes = f->g->page_bytes;
	f->upp = f->g->page_bytes >= FTL_UNIT ? f->g->page_bytes / FTL_UNIT : 1;
	f->spu = (uint64_t)f->NP * f->ppb * f->upp;
	f->host.sb = FTL_NONE;
	f->horizon = f->p.t_prog[f->mode];
	f->owner_seq = 1;
	f->pl = calloc(f->NP, sizeof(*f->pl));
	f->gc_list = calloc(f->NP, sizeof(*f->gc_list));
	if (!f->pl || !f->gc_list) {
		ftl_close(f);
		return -ENOMEM;
	}
	for (i = 0; i < f->NP; i++) {
		f->pl[i].host_sb = f->pl[i].gc_sb = FTL_NONE;
		f->pl[i].free_head = f->pl[i].victim = FTL_NONE;
		f->pl[i].gc.sb = FTL_NONE;
	}
	ret = ftl_load(f, cfg->blob, cfg->blob_len, err, errlen);
	if (ret) {
		ftl_close(f);
		return ret;
	}
	*out = f;
	return 0;
}

void ftl_close(struct ftl *f)
{
	uint32_t i;

	if (!f)
		return;
	for (i = 0; f->sb && i < f->nsb; i++)
		free(f->sb[i].p2l);
	if (f->dram_map)
		fs_dram_release(f->fs, "ftl-map", f->dram_map);
	if (f->dram_wbuf)
		fs_dram_release(f->fs, "ftl-wbuf", f->dram_wbuf);
	free(f->sb);
	free(f->blk);
	free(f->pl);
	free(f->gc_list);
	free(f->map);
	free(f->wb);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

/* DRAM the map and the write buffer take (REIS 2.3: the mapping table is
 * the controller DRAM's main tenant, 4 bytes per 4 KiB). */
int ftl_dram_take(struct ftl *f, uint64_t units, char *err, size_t errlen)
{
	uint64_t map = units * sizeof(uint32_t), wb = f->p.ftl_wbuf;
	int ret = 0;

	if (map > f->dram_map)
		ret = fs_dram_reserve(f->fs, "ftl-map", map - f->dram_map);
	if (ret) {
		snprintf(err, errlen, "FTL: the map of %llu units (%llu KiB) does not fit "
			 "the controller DRAM left (%llu KiB)", (unsigned long long)units,
			 (unsigned long long)(map >> 10),
			 (unsigned long long)((fs_dram_budget(f->fs) -
					       fs_dram_used(f->fs, NULL)) >> 10));
		return -ENOSPC;
	}
	f->dram_map = ftl_max(map, f->dram_map);
	if (!f->dram_wbuf) {
		ret = fs_dram_reserve(f->fs, "ftl-wbuf", wb);
		if (ret) {
			snprintf(err, errlen, "FTL: the %llu KiB write buffer does not fit the "
				 "controller DRAM (ftl_wbuf)", (unsigned long long)(wb >> 10));
			return -ENOSPC;
		}
		f->dram_wbuf = wb;
		f->wb_cap = wb / FTL_UNIT;
	}
	return 0;
}

/* A new namespace written once in LBA order (ftl_fill): its units take the
 * host path's placement, with no time charged (it happened before power-on). */
static int ftl_fill_ns(struct ftl *f, const struct ftl_ns *ns)
{
	uint64_t u;
	int ret;

	for (u = 0; u < ns->units; u++) {
		f->wb_used++;	/* as ftl_wb_room() would; the page gives it back */
		ret = ftl_host_place(f, NULL, ns->base + u, 0, 0);
		if (ret)
			return ret;
	}
	if (f->host.sb != FTL_NONE)
		ftl_host_flush(f, NULL);
	f->st.nand_write_bytes = f->st.pad_bytes = 0;
	return 0;
}

int ftl_attach(struct ftl *f, uint32_t nsid, uint64_t bytes, char *err, size_t errlen)
{
	char dummy[8];
	uint64_t units, total;
	uint32_t *map;
	struct ftl_ns *ns;
	int i, ret;

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = '\0';
	if (!f || nsid == 0 || nsid == UINT32_MAX || bytes == 0 || bytes % 512) {
		snprintf(err, errlen, "FTL: namespace %u of %llu bytes: nsid 1..2^32-2 and a "
			 "non-zero multiple of 512 bytes", nsid, (unsigned long long)bytes);
		return -EINVAL;
	}
	units = (bytes + FTL_UNIT - 1) / FTL_UNIT;
	pthread_mutex_lock(&f->lock);
	i = ftl_ns_find(f, nsid);
	if (i >= 0 && f->ns[i].bytes == bytes) {
		pthread_mutex_unlock(&f->lock);
		return 0;
	}
	if (i >= 0) {
		/* Resized: its old units go (the blob's map was for another image). */
		uint64_t u;

		for (u = 0; u < f->ns[i].units; u++)
			ftl_unmap_unit(f, f->ns[i].base + u);
		f->ns[i].nsid = 0;	/* its slice of the map stays unused */
	}
	if (f->nns >= FTL_MAX_NS) {
		snprintf(err, errlen, "FTL: more than %u namespaces", FTL_MAX_NS);
		ret = -E2BIG;
		goto out;
	}
	total = f->units + units;
	if (!f->g->part[FG_PART_NATIVE].nblocks || total > FTL_MAX_UNITS ||
	    (total + f->spu - 1) / f->spu + FTL_SPARE_STRIPES >
	    f->g->part[FG_PART_NATIVE].nblocks ||
	    ((uint64_t)f->g->part[FG_PART_NATIVE].nblocks + 1) * f->spu > UINT32_MAX) {
		snprintf(err, errlen, "FTL: %llu MiB of namespaces do not fit the %u native "
			 "block stripes of %llu MiB (or the FTL's 2^32-unit address space)",
			 (unsigned long long)(total * FTL_UNIT >> 20),
			 f->g->part[FG_PART_NATIVE].nblocks,
			 (unsigned long long)(f->spu * FTL_UNIT >> 20));
		ret = -ENOSPC;
		goto out;
	}
	ret = ftl_dram_take(f, total, err, errlen);
	if (ret)
		goto out;
	map = realloc(f->map, total * sizeof(*map));
	if (!map) {
		ret = -ENOMEM;
		goto out;
	}
	f->map = map;
	memset(f->map + f->units, 0xff, units * sizeof(*map));
	ns = &f->ns[f->nns];
	ns->nsid = nsid;
	ns->bytes = bytes;
	ns->base = f->units;
	ns->units = units;
	f->units = total;
	f->nns++;
	ftl_sizes(f);
	ret = ftl_grow_to(f, f->need_min, NULL, 0);
	if (ret) {
		snprintf(err, errlen, "FTL: %llu MiB of namespaces need %u block stripes, the "
			 "store has %u (REIS and RecFlash regions take the rest)",
			 (unsigned long long)(total * FTL_UNIT >> 20), f->need_min, f->held);
		f->nns--;
		f->units -= units;
		ftl_sizes(f);
		goto out;
	}
	/* The over-provisioning, as far as the store has it free now. */
	ftl_grow_to(f, f->need_target, NULL, 0);
	if (f->p.ftl_fill)
		ret = ftl_fill_ns(f, ns);
	f->dirty = 1;
out:
	pthread_mutex_unlock(&f->lock);
	return ret;
}

int ftl_dirty(struct ftl *f)
{
	int d;

	pthread_mutex_lock(&f->lock);
	d = f->dirty;
	pthread_mutex_unlock(&f->lock);
	return d;
}
