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

int re_layout_init(struct re_layout *L, const struct isp_wire_reis_create *c,
		   uint32_t page_bytes, uint32_t oob_bytes, uint32_t subpage_bytes)
{
	int has_int8, has_tags, has_ids, has_docs, ivf;
	uint32_t off = 0, max_off = 1u << FG_MINI_BITS;

	if (!L || !c)
		return -EINVAL;
	memset(L, 0, sizeof(*L));
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
	ivf = c->kind == ISP_REIS_IVF;
	has_int8 = (c->flags & ISP_REIS_DBF_INT8) != 0;
	has_tags = (c->flags & ISP_REIS_DBF_TAGS) != 0;
	has_ids = (c->flags & ISP_REIS_DBF_IDS) != 0;
	has_docs = c->doc_mode != ISP_REIS_DOC_NONE;

	L->dim = c->dim;
	L->cb = c->dim / 8;
	L->page_bytes = page_bytes;
	L->oob_bytes = oob_bytes;
	L->radr_off = L->dadr_off = L->tag_off = UINT32_MAX;
	if (has_int8) {
		L->radr_off = off;
		off += RE_ADDR_BYTES;
	}
	if (has_docs) {
		L->dadr_off = off;
		off += RE_ADDR_BYTES;
	}
	if (has_tags) {
		L->tag_off = off;
		off += RE_TAG_BYTES;
	}
	L->oob_entry = off;

	/* Entries per page: bounded by data bytes, OOB bytes and the
	 * mini-page offset field (REIS 4.1.3, 4.3.2). */
	L->epb = re_min32(page_bytes / L->cb, max_off);
	if (L->oob_entry)
		L->epb = re_min32(L->epb, oob_bytes / L->oob_entry);
	if (!L->epb)
		return -EINVAL;
	L->bpages = re_div_up(c->n, L->epb);
	if (ivf) {
		L->cpb = re_min32(re_min32(page_bytes / L->cb, max_off),
				  oob_bytes / RE_CTAG_BYTES);
		if (!L->cpb)
			return -EINVAL;
		L->cpages = re_div_up(c->nlist, L->cpb);
	}
	if (has_int8) {
		if (c->dim > page_bytes)
			return -EINVAL;
		L->ipb = page_bytes / c->dim;
		L->rbits = fg_offset_bits(L->ipb);
		L->ipages = re_div_up(c->n, L->ipb);
		/* The largest RADR must fit below RE_ADDR_NONE. */
		if (L->rbits >= 32 || (L->ipages << L->rbits) > RE_ADDR_NONE)
			return -EINVAL;
	}
	if (has_ids) {
		L->idpp = page_bytes / RE_ID_BYTES;
		L->idpages = re_div_up(c->n, L->idpp);
	}
	if (has_docs) {
		L->chunk_bytes = c->doc_mode == ISP_REIS_DOC_PAGE ? page_bytes : subpage_bytes;
		L->cpp = page_bytes / L->chunk_bytes;
		if ((uint64_t)L->cpp * RE_DLEN_BYTES > oob_bytes)
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
