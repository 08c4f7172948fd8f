/* SPDX-License-Identifier: MIT */
/*
 * recflash_gc.c - deferred garbage collection (docs/recflash-engine.md
 * "Remap"): NAND erases whole blocks, so a block stripe of an area is
 * erased only once no live mapping points into it (at SWITCH, at deploy
 * and before an adaptive remap).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flash_geom.h"
#include "flash_io.h"
#include "recflash_int.h"

/* Stripes a map still needs: its rows and its image. */
static void rf_mark_refs(const struct rf_table *t, const struct rf_map *m, uint8_t *ref)
{
	const struct rf_area *ar = m->area;
	uint32_t k, r;
	uint64_t i;

	if (!m->a) {
		for (i = 0; i < t->data_pages; i++)
			ref[i / ar->sp] = 1;
	} else {
		for (k = 0; k < t->rows; k++)
			ref[(m->a[k] / t->rpp) / ar->sp] = 1;
	}
	for (r = 0; m->img_pages && r < m->nruns; r++)
		for (i = 0; i < m->run[r].count; i++)
			ref[(m->run[r].lpage + i) / ar->sp] = 1;
}

int rf_gc(struct rf_eng *e, struct rf_table *t, struct isp_ctx *ctx, struct rf_area *ar,
	  const struct rf_map *const *maps, unsigned nmaps, uint64_t ready,
	  uint64_t *erases)
{
	uint8_t *ref = calloc(ar->nstripes, 1);
	uint32_t s, pl, nb;
	unsigned i;
	int ret = 0;

	if (!ref)
		return -ENOMEM;
	for (i = 0; i < nmaps; i++)
		if (maps[i] && maps[i]->area == ar)
			rf_mark_refs(t, maps[i], ref);
	for (s = 0; s < ar->nstripes && !ret; s++) {
		if (!ar->wp[s] || ref[s])
			continue;
		/* Nothing points into this stripe: erase its blocks. */
		rf_cache_drop_area(&e->cache, ar->reg.id, (uint64_t)s * ar->sp,
				   (uint64_t)(s + 1) * ar->sp);
		nb = ar->wp[s] < ar->np ? ar->wp[s] : ar->np;
		for (pl = 0; pl < nb; pl++) {
			uint64_t ppa;

			ret = rf_area_ppa(e, ar, (uint64_t)s * ar->sp + pl, &ppa);
			if (!ret)
				ret = fs_erase(e->fs, ppa);
			if (ret)
				break;
			ft_block_erase(e->ft, &ctx->ftc, fg_ppa_plane(e->g, ppa), ready);
			(*erases)++;
		}
		if (!ret)
			ar->wp[s] = 0;
	}
	free(ref);
	return ret;
}
