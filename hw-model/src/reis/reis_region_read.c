/* SPDX-License-Identifier: MIT */
/*
 * reis_region_read.c - bytes of a deployed database's flash regions for
 * the memory namespace's Memory Copy (descriptor format Fh,
 * docs/command-set.md §9.7): the SLC region (binary codes, centroids) or
 * the TLC region (INT8 codes, documents, META) in logical page order, as
 * REIS 4.1.4's coarse-grained access lays them out. Each page touched is
 * one page read whose bytes cross the channel into DRAM, as META_READ's.
 */
#include <string.h>

#include "reis_int.h"

extern const struct isp_engine isp_engine_reis;

uint16_t re_pages_read(struct re_eng *e, struct isp_ctx *ctx, const struct fs_region *rg,
		       uint64_t off, void *buf, uint64_t len, int stoppable, uint64_t *done)
{
	uint32_t pb = e->p->page_bytes;
	uint64_t pos, end = off + len, last = ctx->ready, t;
	uint8_t *out = buf;

	for (pos = off; pos < end; ) {
		uint64_t ppa;
		uint32_t in = (uint32_t)(pos % pb), k;
		struct ft_page_op op;

		if (stoppable && isp_ctx_cancelled(ctx))
			return ISP_SC_ABORT_REQ;
		k = (uint32_t)(end - pos < pb - in ? end - pos : pb - in);
		if (fs_region_ppa(e->fs, rg, pos / pb, &ppa) ||
		    fs_read(e->fs, ppa, in, out + (pos - off), k))
			return ISP_SC_INTERNAL;
		memset(&op, 0, sizeof(op));
		op.mode = fg_ppa_mode(e->g, ppa);
		op.n_dout = 1;
		op.dout_bytes = k;
		t = ft_page_read(e->ft, &ctx->ftc, fg_ppa_plane(e->g, ppa), &op, ctx->ready);
		t = ft_dram(e->ft, &ctx->ftc, k, t);
		last = re_max(last, t);
		pos += k;
	}
	*done = last;
	return 0;
}

uint16_t re_region_read(struct isp_ctx *ctx, uint32_t did, uint32_t region, uint64_t off,
			void *buf, uint32_t len, uint64_t *done, const char **why)
{
	struct re_eng *e = isp_dev_engine(ctx->dev, &isp_engine_reis);
	const struct fs_region *rg = NULL;
	uint64_t npages;
	struct re_db *db;
	uint16_t st;

	*done = ctx->ready;
	if (!e) {
		*why = "no REIS engine";
		return ISP_SC_INTERNAL;
	}
	pthread_mutex_lock(&e->lock);
	st = re_find_ready(e, did, &db, why);
	if (!st) {
		rg = region ? &db->tlc : &db->slc;
		npages = rg->id ? fs_region_pages(e->fs, rg) : 0;
		if (off > npages * e->p->page_bytes || len > npages * e->p->page_bytes - off) {
			st = ISP_BAD_FIELD;
			*why = "range past the end of the database's region";
		} else {
			db->refs++;
		}
	}
	pthread_mutex_unlock(&e->lock);
	if (st)
		return st;
	st = re_pages_read(e, ctx, rg, off, buf, len, 1, done);
	if (st)
		*why = st == ISP_SC_ABORT_REQ ? "stopped by the transport" :
					       "flash read of the region failed";
	pthread_mutex_lock(&e->lock);
	db->refs--;
	pthread_mutex_unlock(&e->lock);
	return st;
}
