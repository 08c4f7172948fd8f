/* SPDX-License-Identifier: MIT */
/*
 * reis_docs.c - document identification (REIS §4.1.3, §4.4.1): a hit's
 * DADR names the TLC page and chunk of its document, its entry index the
 * caller id; documents ride in the search result or come one at a time
 * through DOC_READ, META bytes through META_READ.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "reis_int.h"

struct re_doc_cost {
	uint64_t off;
	uint32_t len;
	uint32_t plane;
	uint32_t mode;
	uint32_t charged;
};

struct re_docs_cost {
	pthread_mutex_t lock;
	struct ft *ft;
	uint32_t n;
	struct re_doc_cost d[];
};


void re_docs_charge(void *opaque, uint64_t off, uint64_t len, void *cost)
{
	struct re_docs_cost *dc = opaque;
	struct isp_ctx *ctx = cost;
	uint32_t lo = 0, hi = dc->n, i;

	/* First document ending after @off. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (dc->d[mid].off + dc->d[mid].len <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	pthread_mutex_lock(&dc->lock);
	for (i = lo; i < dc->n && dc->d[i].off < off + len; i++) {
		struct ft_page_op op;
		uint64_t t;

		if (dc->d[i].charged)
			continue;
		dc->d[i].charged = 1;
		memset(&op, 0, sizeof(op));
		op.mode = dc->d[i].mode;
		op.n_dout = 1;
		op.dout_bytes = dc->d[i].len;
		t = ft_page_read(dc->ft, &ctx->ftc, dc->d[i].plane, &op, ctx->ready);
		ft_dram(dc->ft, &ctx->ftc, dc->d[i].len, t);
	}
	pthread_mutex_unlock(&dc->lock);
}

void re_docs_cost_free(void *opaque)
{
	struct re_docs_cost *dc = opaque;

	if (!dc)
		return;
	pthread_mutex_destroy(&dc->lock);
	free(dc);
}

/* Document of DADR @dadr of @db: its page, chunk and length. */
static int re_doc_locate(struct re_eng *e, const struct re_db *db, uint32_t dadr,
			 uint64_t *ppa, uint32_t *chunk, uint32_t *len)
{
	const struct re_layout *L = &db->L;
	uint32_t rel = dadr >> L->dbits, slot = dadr & ((1u << L->dbits) - 1);

	if (dadr == RE_ADDR_NONE || rel >= L->dpages || slot >= L->cpp ||
	    fs_region_ppa(e->fs, &db->tlc, L->d_first + rel, ppa) ||
	    fs_read(e->fs, *ppa, e->p->page_bytes + slot * RE_DLEN_BYTES, len, 4) ||
	    *len > L->chunk_bytes)
		return -EIO;
	*chunk = slot;
	return 0;
}

/*
 * Caller ids of the @nh hits in @out (IDS section, REIS §4.1.3): one TLC
 * read per page touched, charged as whole-entry reads.
 */
int re_ids_host(struct re_run *r, struct re_db *db, struct re_qout *o)
{
	struct re_eng *e = r->e;
	const struct re_layout *L = &db->L;
	uint32_t h;

	for (h = 0; h < o->nh; h++) {
		uint64_t idx = (uint32_t)o->hits[h].key, lp = L->id_first + idx / L->idpp, ppa;

		if (fs_region_ppa(e->fs, &db->tlc, lp, &ppa) ||
		    fs_read(e->fs, ppa, (uint32_t)(idx % L->idpp) * RE_ID_BYTES,
			    &o->hits[h].id, RE_ID_BYTES))
			return -EIO;
		o->idpc[h].key = lp;
		o->idpc[h].plane = fg_ppa_plane(e->g, ppa);
		o->idpc[h].count = 1;
	}
	o->nidpc = re_pcount_merge(o->idpc, o->nh);
	return 0;
}

void re_ids_cost(struct re_run *r, const struct re_qout *o, uint64_t *t)
{
	*t = re_cost_entry_reads(&r->c, o->idpc, o->nidpc, r->e->g->native_mode, RE_ID_BYTES,
				 *t);
}

/*
 * Locate the documents of @hits[0..n) through their DADR and give each its
 * offset in the result after @blob_len bytes; their flash reads are charged
 * later, when RESULT_READ moves them (re_docs_charge()). -ENOMEM, or -EIO
 * when a DADR does not resolve.
 */
int re_docs_plan(struct re_eng *e, const struct re_hitx *hits, uint32_t n, uint64_t blob_len,
		 struct re_docs_cost **out, uint64_t *docs_bytes)
{
	struct re_docs_cost *dc;
	uint32_t i, ndocs = 0, nd = 0;

	for (i = 0; i < n; i++)
		if (hits[i].db && hits[i].dadr != RE_ADDR_NONE)
			ndocs++;
	dc = calloc(1, sizeof(*dc) + (size_t)ndocs * sizeof(dc->d[0]));
	if (!dc)
		return -ENOMEM;
	pthread_mutex_init(&dc->lock, NULL);
	dc->ft = e->ft;
	for (i = 0; i < n; i++) {
		uint64_t ppa;
		uint32_t chunk, dl;

		if (!hits[i].db || hits[i].dadr == RE_ADDR_NONE)
			continue;
		if (re_doc_locate(e, hits[i].db, hits[i].dadr, &ppa, &chunk, &dl)) {
			re_docs_cost_free(dc);
			return -EIO;
		}
		dc->d[nd].off = blob_len + *docs_bytes;
		dc->d[nd].len = dl;
		dc->d[nd].plane = fg_ppa_plane(e->g, ppa);
		dc->d[nd].mode = fg_ppa_mode(e->g, ppa);
		*docs_bytes += dl;
		nd++;
	}
	dc->n = nd;
	*out = dc;
	return 0;
}

/* Copy document *@nd of @dc (the one of @h) into @blob and name it in @wh. */
int re_doc_fill(struct re_eng *e, const struct re_docs_cost *dc, const struct re_hitx *h,
		uint32_t *nd, uint8_t *blob, struct isp_wire_reis_hit *wh)
{
	const struct re_layout *L = &h->db->L;
	uint64_t ppa;
	uint32_t chunk, dl;

	re_doc_locate(e, h->db, h->dadr, &ppa, &chunk, &dl);
	wh->doc_len = dl;
	wh->doc_off = dc->d[*nd].off;
	if (dl && fs_read(e->fs, ppa, chunk * L->chunk_bytes, blob + dc->d[*nd].off, dl))
		return -EIO;
	(*nd)++;
	return 0;
}

uint16_t re_cmd_doc_read(struct re_eng *e, struct isp_ctx *ctx, const struct isp_cmd *cmd,
			 void *data, size_t len, struct isp_cpl *cpl)
{
	struct re_db *db;
	struct ft_page_op op;
	const char *why = NULL;
	uint16_t st = 0;
	uint64_t ppa, t;
	uint32_t chunk, dl, n;
	uint8_t *out = data;

	if (cmd->cdw14 || cmd->cdw15)
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	if (len < 4)
		return isp_fail(cpl, ISP_BAD_FIELD, "transfer shorter than the length field");
	pthread_mutex_lock(&e->lock);
	st = re_find_ready(e, cmd->cdw12, &db, &why);
	if (!st && cmd->cdw13 >= db->c.n) {
		st = ISP_BAD_FIELD;
		why = "entry index past the database";
	} else if (!st && !db->c.doc_mode) {
		st = ISP_BAD_FIELD;
		why = "database has no documents";
	} else if (!st) {
		db->refs++;
	}
	pthread_mutex_unlock(&e->lock);
	if (st)
		return isp_fail(cpl, st, why);
	memset(data, 0, len);
	if (re_doc_locate(e, db, re_dadr(&db->L, cmd->cdw13), &ppa, &chunk, &dl)) {
		st = ISP_SC_INTERNAL;
	} else {
		n = dl < len - 4 ? dl : (uint32_t)(len - 4);
		memcpy(out, &dl, 4);
		if (n && fs_read(e->fs, ppa, chunk * db->L.chunk_bytes, out + 4, n))
			st = ISP_SC_INTERNAL;
	}
	pthread_mutex_lock(&e->lock);
	db->refs--;
	pthread_mutex_unlock(&e->lock);
	if (st)
		return isp_fail(cpl, st, "document read failed");
	memset(&op, 0, sizeof(op));
	op.mode = fg_ppa_mode(e->g, ppa);
	op.n_dout = 1;
	op.dout_bytes = dl;
	t = ft_page_read(e->ft, &ctx->ftc, fg_ppa_plane(e->g, ppa), &op, ctx->ready);
	t = ft_dram(e->ft, &ctx->ftc, dl, t);
	isp_link_xfer(ctx, len, 1, t);
	cpl->xfer_len = (uint32_t)len;
	return 0;
}

uint16_t re_cmd_meta_read(struct re_eng *e, struct isp_ctx *ctx, const struct isp_cmd *cmd,
			  void *data, size_t len, struct isp_cpl *cpl)
{
	uint64_t off = (uint64_t)cmd->cdw15 << 32 | cmd->cdw14, end, last = ctx->ready;
	uint32_t pb = e->p->page_bytes;
	struct re_db *db;
	const char *why = NULL;
	uint8_t *out = data;
	uint16_t st = 0;

	if (cmd->cdw13)
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	pthread_mutex_lock(&e->lock);
	st = re_find_ready(e, cmd->cdw12, &db, &why);
	if (!st && !db->c.meta_bytes) {
		st = ISP_BAD_FIELD;
		why = "database has no META section";
	} else if (!st && off >= db->c.meta_bytes) {
		st = ISP_SC_BAD_OFFSET | ISP_STATUS_DNR;
		why = "offset at or past the end of the META section";
	} else if (!st) {
		db->refs++;
	}
	pthread_mutex_unlock(&e->lock);
	if (st)
		return isp_fail(cpl, st, why);
	memset(data, 0, len);
	end = off + len < db->c.meta_bytes ? off + len : db->c.meta_bytes;
	/* Each META page touched is one TLC read whose bytes cross the
	 * channel, as a document read is (REIS 4.4.1). */
	st = re_pages_read(e, ctx, &db->tlc, (uint64_t)db->L.m_first * pb + off, out,
			   end - off, 0, &last);
	pthread_mutex_lock(&e->lock);
	db->refs--;
	pthread_mutex_unlock(&e->lock);
	if (st)
		return isp_fail(cpl, st, "META read failed");
	isp_link_xfer(ctx, len, 1, last);
	cpl->xfer_len = (uint32_t)len;
	return 0;
}
