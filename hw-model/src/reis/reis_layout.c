/* SPDX-License-Identifier: MIT */
/*
 * reis_layout.c - where a REIS database goes in flash (REIS §4.1, §4.2.1):
 * the Parallelism-First placement of codes across planes, the mini-page
 * size of each section, the OOB fields, and the RADR / DADR of an entry
 * (the embedding-document linkage of REIS §4.1.3).
 */
#include <errno.h>
#include <string.h>

#include "flash_geom.h"
#include "reis_engine.h"
#include "reis_int.h"

static uint64_t re_div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

static uint32_t re_min32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* The create header's fields, each within its range (docs/command-set.md
 * section 4, DB_CREATE). */
static int re_layout_check(const struct isp_wire_reis_create *c, uint32_t page_bytes,
			   uint32_t oob_bytes, uint32_t subpage_bytes)
{
	if (c->dim < ISP_REIS_MIN_DIM || c->dim > ISP_REIS_MAX_DIM || c->dim % 64)
		return -EINVAL;
	if (c->n < 1 || c->n > ISP_REIS_MAX_N)
		return -EINVAL;
	if (c->flags & ~(ISP_REIS_DBF_INT8 | ISP_REIS_DBF_TAGS | ISP_REIS_DBF_IDS))
		return -EINVAL;
	if (c->kind == ISP_REIS_BF) {
		if (c->nlist || c->ncalib)
			return -EINVAL;
	} else if (c->kind == ISP_REIS_IVF) {
		if (c->nlist < 1 || c->nlist > ISP_REIS_MAX_NLIST ||
		    c->ncalib > ISP_REIS_MAX_CALIB)
			return -EINVAL;
	} else {
		return -EINVAL;
	}
	if (c->metric > ISP_REIS_L2 || c->doc_mode > ISP_REIS_DOC_PAGE)
		return -EINVAL;
	if (c->df_threshold > c->dim || c->meta_bytes > ISP_REIS_MAX_META)
		return -EINVAL;
	if (!page_bytes || !oob_bytes || !subpage_bytes || subpage_bytes > page_bytes)
		return -EINVAL;
	return 0;
}

/* Per-entry OOB of a binary page: RADR, DADR, tag, as the database has
 * them (REIS §4.1.3, §7.1). */
static void re_layout_oob(struct re_layout *L, const struct isp_wire_reis_create *c)
{
	uint32_t off = 0;

	L->radr_off = L->dadr_off = L->tag_off = UINT32_MAX;
	if (c->flags & ISP_REIS_DBF_INT8) {
		L->radr_off = off;
		off += RE_ADDR_BYTES;
	}
	if (c->doc_mode != ISP_REIS_DOC_NONE) {
		L->dadr_off = off;
		off += RE_ADDR_BYTES;
	}
	if (c->flags & ISP_REIS_DBF_TAGS) {
		L->tag_off = off;
		off += RE_TAG_BYTES;
	}
	L->oob_entry = off;
}

/* SLC part: binary codes and centroids, packed per page. Entries per page
 * are bounded by data bytes, OOB bytes and the mini-page offset field
 * (REIS §4.1.3, §4.3.2). */
static int re_layout_slc(struct re_layout *L, const struct isp_wire_reis_create *c)
{
	uint32_t max_off = 1u << FG_MINI_BITS;

	L->epb = re_min32(L->page_bytes / L->cb, max_off);
	if (L->oob_entry)
		L->epb = re_min32(L->epb, L->oob_bytes / L->oob_entry);
	if (!L->epb)
		return -EINVAL;
	L->bpages = re_div_up(c->n, L->epb);
	if (c->kind == ISP_REIS_IVF) {
		L->cpb = re_min32(re_min32(L->page_bytes / L->cb, max_off),
				  L->oob_bytes / RE_CTAG_BYTES);
		if (!L->cpb)
			return -EINVAL;
		/* Parallelism-First over every plane (REIS 4.1.1): at most
		 * ceil(nlist / planes) centroids per page. */
		if (L->cspread)
			L->cpb = re_min32(L->cpb, (uint32_t)re_div_up(c->nlist, L->cspread));
		L->cpages = re_div_up(c->nlist, L->cpb);
	}
	return 0;
}

/* TLC part: INT8 codes (RADR), caller ids, document chunks (DADR). */
static int re_layout_tlc(struct re_layout *L, const struct isp_wire_reis_create *c,
			 uint32_t subpage_bytes)
{
	uint32_t page_bytes = L->page_bytes;

	if (c->flags & ISP_REIS_DBF_INT8) {
		if (c->dim > page_bytes)
			return -EINVAL;
		L->ipb = page_bytes / c->dim;
		L->rbits = fg_offset_bits(L->ipb);
		L->ipages = re_div_up(c->n, L->ipb);
		/* The largest RADR must fit below RE_ADDR_NONE. */
		if (L->rbits >= 32 || (L->ipages << L->rbits) > RE_ADDR_NONE)
			return -EINVAL;
	}
	if (c->flags & ISP_REIS_DBF_IDS) {
		L->idpp = page_bytes / RE_ID_BYTES;
		L->idpages = re_div_up(c->n, L->idpp);
	}
	if (c->doc_mode != ISP_REIS_DOC_NONE) {
		L->chunk_bytes = c->doc_mode == ISP_REIS_DOC_PAGE ? page_bytes : subpage_bytes;
		L->cpp = page_bytes / L->chunk_bytes;
		if ((uint64_t)L->cpp * RE_DLEN_BYTES > L->oob_bytes)
			return -EINVAL;
		L->dbits = fg_offset_bits(L->cpp);
		L->dpages = re_div_up(c->n, L->cpp);
		if (L->dbits >= 32 || (L->dpages << L->dbits) > RE_ADDR_NONE)
			return -EINVAL;
		/* Every record has a length; none is longer than its chunk. */
		if (c->docs_bytes < (uint64_t)c->n * 4 ||
		    c->docs_bytes > (uint64_t)c->n * (4 + (uint64_t)L->chunk_bytes))
			return -EINVAL;
	} else if (c->docs_bytes) {
		return -EINVAL;
	}
	L->mpages = re_div_up(c->meta_bytes, page_bytes);
	return 0;
}

int re_layout_init(struct re_layout *L, const struct isp_wire_reis_create *c,
		   uint32_t page_bytes, uint32_t oob_bytes, uint32_t subpage_bytes)
{
	return re_layout_init_spread(L, c, page_bytes, oob_bytes, subpage_bytes, 0);
}

int re_layout_init_spread(struct re_layout *L, const struct isp_wire_reis_create *c,
			  uint32_t page_bytes, uint32_t oob_bytes, uint32_t subpage_bytes,
			  uint32_t cspread)
{
	if (!L || !c)
		return -EINVAL;
	memset(L, 0, sizeof(*L));
	if (re_layout_check(c, page_bytes, oob_bytes, subpage_bytes))
		return -EINVAL;
	L->cspread = cspread;
	L->dim = c->dim;
	L->cb = c->dim / 8;
	L->page_bytes = page_bytes;
	L->oob_bytes = oob_bytes;
	re_layout_oob(L, c);
	if (re_layout_slc(L, c) || re_layout_tlc(L, c, subpage_bytes))
		return -EINVAL;
	L->ttl_e = RE_DIST_BYTES + L->cb + 2 * RE_ADDR_BYTES;
	L->ttl_c = RE_DIST_BYTES + L->cb + RE_CTAG_BYTES;
	L->ibc_bytes = (L->epb > L->cpb ? L->epb : L->cpb) * L->cb;
	L->c_first = 0;
	L->b_first = L->cpages;
	L->slc_pages = L->cpages + L->bpages;
	L->i_first = 0;
	L->id_first = L->ipages;
	L->d_first = L->ipages + L->idpages;
	L->m_first = L->d_first + L->dpages;
	L->tlc_pages = L->m_first + L->mpages;
	return 0;
}

uint32_t re_radr(const struct re_layout *L, uint64_t i)
{
	if (L->radr_off == UINT32_MAX)
		return RE_ADDR_NONE;
	return (uint32_t)((i / L->ipb) << L->rbits | (i % L->ipb));
}

uint32_t re_dadr(const struct re_layout *L, uint64_t i)
{
	if (L->dadr_off == UINT32_MAX)
		return RE_ADDR_NONE;
	return (uint32_t)((i / L->cpp) << L->dbits | (i % L->cpp));
}
