/* SPDX-License-Identifier: MIT */
/*
 * reis_deploy.c - deploying a database (REIS §4.1, §4.2.1, §4.4.1):
 * DB_CREATE, DB_WRITE, DB_COMMIT.
 */

/*
 * DB_CREATE reserves controller DRAM and two contiguous regions (SLC:
 * centroids + binary codes; TLC: INT8 codes, caller ids, documents).
 * DB_WRITE streams each section; a page is programmed as soon as all its
 * bytes are in, from a one-page staging buffer per section, so nothing
 * waits for the commit except the R-DB / R-IVF records. DB_COMMIT checks
 * completeness and consistency and makes the database READY through
 * isp_dev_commit().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reis_int.h"

uint32_t re_planes(const struct fp_params *p)
{
	return p->channels * p->dies_per_channel * p->planes_per_die;
}

int re_header_check(const struct isp_wire_reis_create *c, const struct fp_params *p,
		    uint32_t cspread, struct re_layout *L)
{
	if (!c->did)
		return -EINVAL;
	if (!isp_all_zero(c->rsvd, sizeof(c->rsvd)))
		return -EINVAL;
	return re_layout_init_spread(L, c, p->page_bytes, p->oob_bytes, p->subpage_bytes,
				     cspread);
}

/* Bytes of section @sec of @db; 0: the database has no such section. */
static uint64_t re_sec_size(const struct re_db *db, uint32_t sec)
{
	const struct isp_wire_reis_create *c = &db->c;
	int ivf = c->kind == ISP_REIS_IVF;

	switch (sec) {
	case ISP_REIS_SEC_BIN: return c->n * db->L.cb;
	case ISP_REIS_SEC_INT8: return (c->flags & ISP_REIS_DBF_INT8) ? c->n * c->dim : 0;
	case ISP_REIS_SEC_DOCS: return c->doc_mode ? c->docs_bytes : 0;
	case ISP_REIS_SEC_TAGS: return (c->flags & ISP_REIS_DBF_TAGS) ? c->n * 4 : 0;
	case ISP_REIS_SEC_IDS: return (c->flags & ISP_REIS_DBF_IDS) ? c->n * 8 : 0;
	case ISP_REIS_SEC_CENTROIDS: return ivf ? (uint64_t)c->nlist * db->L.cb : 0;
	case ISP_REIS_SEC_CLUSTERS: return ivf ? (uint64_t)c->nlist * 4 : 0;
	case ISP_REIS_SEC_CALIB:
		return ivf ? (uint64_t)c->ncalib * sizeof(struct isp_wire_reis_calib) : 0;
	case ISP_REIS_SEC_META: return c->meta_bytes;
	default: return 0;
	}
}

static int re_paged_sec(uint32_t sec)
{
	return sec == ISP_REIS_SEC_BIN || sec == ISP_REIS_SEC_CENTROIDS ||
	       sec == ISP_REIS_SEC_INT8 || sec == ISP_REIS_SEC_IDS ||
	       sec == ISP_REIS_SEC_DOCS || sec == ISP_REIS_SEC_META;
}

/* Deploy-only memory: staging pages and the tags. */
void re_db_drop_stage(struct re_eng *e, struct re_db *db)
{
	uint32_t s;

	for (s = 0; s < ISP_REIS_NSECTIONS; s++) {
		free(db->stage[s]);
		db->stage[s] = NULL;
	}
	free(db->tags);
	db->tags = NULL;
	if (db->dram_stage)
		fs_dram_release(e->fs, RE_DRAM_STAGE, db->dram_stage);
	db->dram_stage = 0;
}

#define RE_COMPACT_TENANTS 128	/* a stripe has at most pages_per_block rows */

/* Move tenant @id of a shared stripe; its database must be READY and idle,
 * and stays unsearchable (Busy) for the copy. */
static int re_move_tenant(struct re_eng *e, uint32_t id, struct isp_ctx *ctx, uint64_t t)
{
	struct re_db *db = NULL;
	uint64_t copied = 0, i;
	uint32_t erased = 0, k, mode;
	int ret;

	pthread_mutex_lock(&e->lock);
	for (k = 0; k < e->ndb && !db; k++)
		if (e->db[k]->slc.id == id || e->db[k]->tlc.id == id)
			db = e->db[k];
	if (!db || db->state != RE_READY || db->refs || db->writing) {
		pthread_mutex_unlock(&e->lock);
		return -EBUSY;
	}
	db->state = RE_COMMITTING;
	pthread_mutex_unlock(&e->lock);
	ret = fs_region_relocate(e->fs, id, &copied, &erased);
	if (!ret)
		ret = fs_region_get(e->fs, id, db->slc.id == id ? &db->slc : &db->tlc);
	mode = e->g->part[db->slc.id == id ? FG_PART_SLC : FG_PART_NATIVE].mode;
	pthread_mutex_lock(&e->lock);
	db->state = RE_READY;
	pthread_mutex_unlock(&e->lock);
	/* The copy is programs of the moved pages (their reads are not charged). */
	for (i = 0; i < copied; i++)
		ft_page_program(e->ft, &ctx->ftc, (uint32_t)(i % e->g->planes), mode,
				e->p->page_bytes + e->p->oob_bytes, t);
	for (k = 0; k < erased; k++)
		ft_block_erase(e->ft, &ctx->ftc, k % e->g->planes, t);
	return ret;
}

/*
 * Compaction (docs/reis-engine.md §7.1): the live tenants of the shared
 * stripe with the most dead rows move to other rows, then a commit makes
 * the stripe free. Return: 0 when a stripe was emptied.
 */
static int re_compact(struct re_eng *e, uint32_t part, struct isp_ctx *ctx, uint64_t t)
{
	uint32_t ids[RE_COMPACT_TENANTS];
	int n, i, ret = 0;

	n = fs_compact_victim(e->fs, part, ids, RE_COMPACT_TENANTS, NULL);
	if (n <= 0 || n > RE_COMPACT_TENANTS)
		return -ENOSPC;
	for (i = 0; i < n && !ret; i++)
		ret = re_move_tenant(e, ids[i], ctx, t);
	/* Moved tenants must be committed either way: the table points there. */
	if (isp_dev_commit(e->dev))
		return -EIO;
	return ret;
}

static int re_region(struct re_eng *e, struct re_db *db, uint32_t part, uint64_t pages,
		     struct fs_region *out, struct isp_ctx *ctx, uint64_t t)
{
	struct fs_space sp;
	uint32_t erased = 0, i, round;
	int ret;

	/* A database smaller than a block stripe shares one (docs/reis-engine.md §7). */
	ret = fs_region_alloc_packed(e->fs, part, pages, RE_OWNER(db->c.did), out, &erased);
	if (ret == -ENOSPC && fs_space(e->fs, part, &sp) == 0 && sp.pending_blocks) {
		/* Freed blocks become reusable only after a commit. */
		if (isp_dev_commit(e->dev) == 0)
			ret = fs_region_alloc_packed(e->fs, part, pages, RE_OWNER(db->c.did),
						     out, &erased);
	}
	/* Each round empties one stripe; a partition has at most nblocks. */
	for (round = 0; ret == -ENOSPC && round < e->g->part[part].nblocks; round++) {
		if (re_compact(e, part, ctx, t))
			break;
		ret = fs_region_alloc_packed(e->fs, part, pages, RE_OWNER(db->c.did), out,
					     &erased);
	}
	if (ret) {
		memset(out, 0, sizeof(*out));
		return ret;
	}
	for (i = 0; i < erased; i++)
		ft_block_erase(e->ft, &ctx->ftc, i % e->g->planes, t);
	return 0;
}

/* Capacity Exceeded names the limit that ran out (docs/command-set.md §8). */
static int re_dram_take(struct re_eng *e, const char *cat, uint64_t bytes, const char *what,
			struct isp_cpl *cpl)
{
	int ret = fs_dram_reserve(e->fs, cat, bytes);

	if (ret == -ENOSPC)
		isp_err_at(cpl, 0, 0, 0, "controller DRAM: %s needs %llu B, %llu of %llu B "
			   "free", what, (unsigned long long)bytes,
			   (unsigned long long)(fs_dram_budget(e->fs) - fs_dram_used(e->fs, NULL)),
			   (unsigned long long)fs_dram_budget(e->fs));
	return ret;
}

static void re_region_err(struct re_eng *e, uint32_t part, uint64_t pages, struct isp_cpl *cpl)
{
	struct fs_space sp;

	if (fs_space(e->fs, part, &sp))
		return;
	/* docs/reis-engine.md §7.1: whole stripes, or page rows of a shared one
	 * (never the last free stripe), after compaction */
	isp_err_at(cpl, 0, 0, 0, "%s flash: %llu pages needed; free run %llu, shared %llu, "
		   "dead %llu", part == FG_PART_SLC ? "SLC" : "native",
		   (unsigned long long)pages, (unsigned long long)sp.largest_pages,
		   (unsigned long long)sp.shared_free_pages, (unsigned long long)sp.dead_pages);
}

static int re_db_reserve(struct re_eng *e, struct re_db *db, struct isp_ctx *ctx,
			 uint64_t t, struct isp_cpl *cpl)
{
	const struct isp_wire_reis_create *c = &db->c;
	uint32_t slot = fs_slot_bytes(e->fs), s, nstage = 0;
	uint64_t stage;
	int ret;

	for (s = 1; s < ISP_REIS_NSECTIONS; s++)
		if (re_paged_sec(s) && re_sec_size(db, s))
			nstage++;
	stage = (uint64_t)nstage * slot + ((c->flags & ISP_REIS_DBF_TAGS) ? c->n * 4 : 0);
	ret = re_dram_take(e, RE_DRAM_DB, RE_RDB_BYTES +
			   (uint64_t)c->ncalib * sizeof(struct isp_wire_reis_calib),
			   "R-DB entry + calibration", cpl);
	if (ret)
		return ret;
	db->dram_db = RE_RDB_BYTES + (uint64_t)c->ncalib * sizeof(struct isp_wire_reis_calib);
	if (c->nlist) {
		ret = re_dram_take(e, RE_DRAM_IVF, (uint64_t)c->nlist * RE_RIVF_BYTES,
				   "R-IVF cluster table", cpl);
		if (ret)
			return ret;
		db->dram_ivf = (uint64_t)c->nlist * RE_RIVF_BYTES;
	}
	ret = re_dram_take(e, RE_DRAM_STAGE, stage, "deploy staging", cpl);
	if (ret)
		return ret;
	db->dram_stage = stage;

	ret = re_region(e, db, FG_PART_SLC, db->L.slc_pages, &db->slc, ctx, t);
	if (ret == -ENOSPC)
		re_region_err(e, FG_PART_SLC, db->L.slc_pages, cpl);
	if (!ret && db->L.tlc_pages) {
		ret = re_region(e, db, FG_PART_NATIVE, db->L.tlc_pages, &db->tlc, ctx, t);
		if (ret == -ENOSPC)
			re_region_err(e, FG_PART_NATIVE, db->L.tlc_pages, cpl);
	}
	if (ret)
		return ret;

	for (s = 1; s < ISP_REIS_NSECTIONS; s++) {
		if (!re_paged_sec(s) || !re_sec_size(db, s))
			continue;
		db->stage[s] = malloc(slot);
		if (!db->stage[s])
			return -ENOMEM;
		memset(db->stage[s], 0xff, slot);
	}
	if (c->flags & ISP_REIS_DBF_TAGS) {
		db->tags = malloc(c->n * 4);
		if (!db->tags)
			return -ENOMEM;
	}
	if (c->nlist) {
		db->csize = calloc(c->nlist, sizeof(*db->csize));
		if (!db->csize)
			return -ENOMEM;
	}
	if (c->ncalib) {
		db->calib = calloc(c->ncalib, sizeof(*db->calib));
		if (!db->calib)
			return -ENOMEM;
	}
	return 0;
}

uint16_t re_cmd_create(struct re_eng *e, struct isp_ctx *ctx, const struct isp_cmd *cmd,
		       void *data, size_t len, struct isp_cpl *cpl)
{
	struct re_db *db;
	uint64_t t;
	int ret;

	if (cmd->cdw12 || cmd->cdw13 || cmd->cdw14 || cmd->cdw15)
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	t = isp_link_xfer(ctx, len, 0, ctx->ready);
	db = calloc(1, sizeof(*db));
	if (!db)
		return isp_fail(cpl, ISP_SC_INTERNAL, "out of memory");
	memcpy(&db->c, data, sizeof(db->c));
	if (re_header_check(&db->c, e->p, re_planes(e->p), &db->L)) {
		free(db);
		return isp_fail(cpl, ISP_BAD_FIELD, "malformed DB_CREATE header");
	}
	db->state = RE_CREATING;
	pthread_mutex_lock(&e->lock);
	if (re_find(e, db->c.did)) {
		pthread_mutex_unlock(&e->lock);
		free(db);
		return isp_fail(cpl, ISP_SC_ID_EXISTS | ISP_STATUS_DNR, "database id in use");
	}
	if (e->ndb >= RE_MAX_DBS) {
		pthread_mutex_unlock(&e->lock);
		free(db);
		isp_err_at(cpl, 0, 0, 0, "R-DB full: %u databases, the drive's max_dbs",
			   RE_MAX_DBS);
		return isp_fail(cpl, ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR,
				"R-DB full: too many databases");
	}
	e->db[e->ndb++] = db;
	pthread_mutex_unlock(&e->lock);

	ret = re_db_reserve(e, db, ctx, t, cpl);
	pthread_mutex_lock(&e->lock);
	if (ret)
		re_unlink(e, db);
	else
		db->state = RE_DEPLOYING;
	pthread_mutex_unlock(&e->lock);
	if (ret) {
		re_db_free(e, db);
		if (ret == -ENOSPC || ret == -ENOMEM)
			return isp_fail(cpl, ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR,
					"database does not fit in free flash or DRAM");
		return isp_fail(cpl, isp_status_from_errno(ret), "cannot reserve the database");
	}
	return 0;
}

/* Program staged page @pg of a paged section. */
static int re_program(struct re_eng *e, struct re_db *db, struct isp_ctx *ctx,
		      const struct fs_region *reg, uint64_t lpage, const uint8_t *st,
		      uint64_t t)
{
	uint64_t ppa;
	int ret;

	ret = fs_region_ppa(e->fs, reg, lpage, &ppa);
	if (ret)
		return -EIO;
	ret = fs_program(e->fs, ppa, st, st + e->p->page_bytes);
	if (ret)
		return ret == -ENOMEM ? -ENOMEM : -EIO;
	ft_page_program(e->ft, &ctx->ftc, fg_ppa_plane(e->g, ppa), fg_ppa_mode(e->g, ppa),
			e->p->page_bytes + e->p->oob_bytes, t);
	(void)db;
	return 0;
}

/* OOB of binary page @pg: RADR, DADR, tag per entry (REIS 4.1.3, 4.2.1, 7.1). */
static void re_bin_oob(const struct re_db *db, uint64_t pg, uint32_t cnt, uint8_t *oob)
{
	const struct re_layout *L = &db->L;
	uint32_t j;

	for (j = 0; j < cnt; j++) {
		uint64_t idx = pg * L->epb + j;
		uint8_t *o = oob + (size_t)j * L->oob_entry;

		if (L->radr_off != UINT32_MAX)
			re_put32(o + L->radr_off, re_radr(L, idx));
		if (L->dadr_off != UINT32_MAX)
			re_put32(o + L->dadr_off, re_dadr(L, idx));
		if (L->tag_off != UINT32_MAX)
			re_put32(o + L->tag_off, db->tags[idx]);
	}
}

static int re_write_paged(struct re_eng *e, struct re_db *db, struct isp_ctx *ctx,
			  uint32_t sec, uint64_t off, const uint8_t *d, uint64_t n, uint64_t t)
{
	const struct re_layout *L = &db->L;
	uint64_t size = re_sec_size(db, sec), ppb, first;
	uint32_t unit, per, slot = fs_slot_bytes(e->fs);
	const struct fs_region *reg;
	uint8_t *st = db->stage[sec];
	int ret;

	switch (sec) {
	case ISP_REIS_SEC_BIN:
		unit = L->cb; per = L->epb; reg = &db->slc; first = L->b_first;
		break;
	case ISP_REIS_SEC_CENTROIDS:
		unit = L->cb; per = L->cpb; reg = &db->slc; first = L->c_first;
		break;
	case ISP_REIS_SEC_INT8:
		unit = L->dim; per = L->ipb; reg = &db->tlc; first = L->i_first;
		break;
	case ISP_REIS_SEC_IDS:
		unit = RE_ID_BYTES; per = L->idpp; reg = &db->tlc; first = L->id_first;
		break;
	default:	/* META: opaque bytes, a page at a time */
		unit = 1; per = e->p->page_bytes; reg = &db->tlc; first = L->m_first;
		break;
	}
	ppb = (uint64_t)unit * per;
	while (n) {
		uint64_t pg = off / ppb, in = off % ppb, k = ppb - in, pend;

		if (k > n)
			k = n;
		memcpy(st + in, d, k);
		off += k;
		d += k;
		n -= k;
		pend = (pg + 1) * ppb < size ? (pg + 1) * ppb : size;
		if (off != pend)
			continue;
		if (sec == ISP_REIS_SEC_BIN) {
			re_bin_oob(db, pg, (uint32_t)((pend - pg * ppb) / unit),
				   st + e->p->page_bytes);
		} else if (sec == ISP_REIS_SEC_CENTROIDS) {
			uint32_t j, cnt = (uint32_t)((pend - pg * ppb) / unit);

			for (j = 0; j < cnt; j++)	/* the cluster's 8-bit tag */
				st[e->p->page_bytes + j] = (uint8_t)(pg * per + j);
		}
		ret = re_program(e, db, ctx, reg, first + pg, st, t);
		memset(st, 0xff, slot);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Feed @n bytes of the DOCS section to parser @ps. With @apply, copy the
 * documents into the staged page and program full pages; without, only
 * check (so a bad chunk changes nothing).
 */
static int re_docs_feed(struct re_eng *e, struct re_db *db, struct re_docs_parse *ps,
			const uint8_t *d, uint64_t n, int apply, struct isp_ctx *ctx,
			uint64_t t)
{
	const struct re_layout *L = &db->L;
	uint8_t *st = db->stage[ISP_REIS_SEC_DOCS];
	uint32_t slot_bytes = fs_slot_bytes(e->fs);
	int ret;

	while (n) {
		uint64_t take;

		if (ps->hdr_have < 4) {
			if (ps->rec >= db->c.n)
				return -EBADMSG;	/* more than n records */
			take = 4 - ps->hdr_have < n ? 4 - ps->hdr_have : n;
			memcpy(ps->hdr + ps->hdr_have, d, take);
			ps->hdr_have += (uint32_t)take;
			if (ps->hdr_have == 4) {
				ps->len = re_get32(ps->hdr);
				ps->have = 0;
				if (ps->len > L->chunk_bytes)
					return -EBADMSG;	/* longer than its chunk */
				if (ps->len > db->c.docs_bytes - (ps->pos + take))
					return -EBADMSG;	/* runs past docs_bytes */
			}
		} else {
			take = ps->len - ps->have < n ? ps->len - ps->have : n;
			if (apply)
				memcpy(st + (size_t)(ps->rec % L->cpp) * L->chunk_bytes + ps->have,
				       d, take);
			ps->have += (uint32_t)take;
		}
		d += take;
		n -= take;
		ps->pos += take;
		if (ps->hdr_have == 4 && ps->have == ps->len) {
			uint32_t j = (uint32_t)(ps->rec % L->cpp);

			if (apply) {
				re_put32(st + e->p->page_bytes + (size_t)j * RE_DLEN_BYTES, ps->len);
				if (j == L->cpp - 1 || ps->rec == db->c.n - 1) {
					ret = re_program(e, db, ctx, &db->tlc,
							 L->d_first + ps->rec / L->cpp, st, t);
					memset(st, 0xff, slot_bytes);
					if (ret)
						return ret;
				}
			}
			ps->rec++;
			ps->hdr_have = 0;
			ps->len = ps->have = 0;
		}
	}
	return 0;
}

static int re_write_docs(struct re_eng *e, struct re_db *db, struct isp_ctx *ctx,
			 const uint8_t *d, uint64_t n, uint64_t t)
{
	struct re_docs_parse dry = db->dp;
	int ret;

	ret = re_docs_feed(e, db, &dry, d, n, 0, ctx, t);
	if (ret)
		return ret;
	/* The section's last byte must end the n-th record. */
	if (dry.pos == db->c.docs_bytes && (dry.rec != db->c.n || dry.hdr_have))
		return -EBADMSG;
	return re_docs_feed(e, db, &db->dp, d, n, 1, ctx, t);
}

static int re_write_sec(struct re_eng *e, struct re_db *db, struct isp_ctx *ctx,
			uint32_t sec, uint64_t off, const uint8_t *d, uint64_t n, uint64_t t)
{
	switch (sec) {
	case ISP_REIS_SEC_TAGS:
		memcpy((uint8_t *)db->tags + off, d, n);
		return 0;
	case ISP_REIS_SEC_CLUSTERS:
		memcpy((uint8_t *)db->csize + off, d, n);
		return 0;
	case ISP_REIS_SEC_CALIB:
		memcpy((uint8_t *)db->calib + off, d, n);
		return 0;
	case ISP_REIS_SEC_DOCS:
		return re_write_docs(e, db, ctx, d, n, t);
	default:
		return re_write_paged(e, db, ctx, sec, off, d, n, t);
	}
}

uint16_t re_cmd_write(struct re_eng *e, struct isp_ctx *ctx, const struct isp_cmd *cmd,
		      void *data, size_t len, struct isp_cpl *cpl)
{
	uint64_t off = (uint64_t)cmd->cdw15 << 32 | cmd->cdw14, size, n = len, t;
	uint32_t sec = cmd->cdw13, bit;
	struct re_db *db;
	const char *why = NULL;
	uint16_t st = 0;
	int ret;

	t = isp_link_xfer(ctx, len, 0, ctx->ready);
	t = ft_dram(e->ft, &ctx->ftc, len, t);	/* into the controller's buffer */
	if (sec < 1 || sec >= ISP_REIS_NSECTIONS)
		return isp_fail(cpl, ISP_BAD_FIELD, "unknown section");
	bit = 1u << sec;
	pthread_mutex_lock(&e->lock);
	db = re_find_live(e, cmd->cdw12);
	if (!db) {
		st = ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR;
		why = "unknown database";
	} else if (db->state != RE_DEPLOYING) {
		st = ISP_SC_BUSY | ISP_STATUS_DNR;
		why = "database is not deploying";
	} else if (!(size = re_sec_size(db, sec))) {
		st = ISP_BAD_FIELD;
		why = "section not part of this database";
	} else if (db->writing & bit) {
		st = ISP_SC_BUSY | ISP_STATUS_DNR;
		why = "section already being written";
	} else if (off != db->received[sec] || off >= size) {
		st = ISP_SC_BAD_OFFSET | ISP_STATUS_DNR;
		why = "offset out of order or past the section";
	} else if (n > size - off && n - (size - off) >= 4) {
		st = ISP_SC_BAD_OFFSET | ISP_STATUS_DNR;
		why = "chunk runs past the end of the section";
	} else {
		if (n > size - off)
			n = size - off;	/* the last dword's padding */
		if (sec == ISP_REIS_SEC_BIN && (db->c.flags & ISP_REIS_DBF_TAGS) &&
		    ((off + n + db->L.cb - 1) / db->L.cb) * 4 > db->received[ISP_REIS_SEC_TAGS]) {
			st = ISP_SC_BAD_OFFSET | ISP_STATUS_DNR;
			why = "BIN entries ahead of their TAGS: send TAGS first";
		} else {
			db->writing |= bit;
		}
	}
	pthread_mutex_unlock(&e->lock);
	if (st)
		return isp_fail(cpl, st, why);

	ret = re_write_sec(e, db, ctx, sec, off, data, n, t);

	pthread_mutex_lock(&e->lock);
	db->writing &= ~bit;
	if (!ret)
		db->received[sec] += n;
	pthread_mutex_unlock(&e->lock);
	if (ret == -EBADMSG)
		return isp_fail(cpl, ISP_SC_BAD_PAYLOAD | ISP_STATUS_DNR,
				"malformed DOCS record (length, count or size)");
	if (ret == -ENOMEM)	/* the in-memory store's host-memory cap */
		return isp_fail(cpl, ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR,
				"host memory or backing file cap reached (mem_cap, backing_cap)");
	if (ret)
		return isp_fail(cpl, ISP_SC_INTERNAL, "flash program failed");
	return 0;
}

int re_calib_ok(const struct re_db *db)
{
	uint32_t i;

	for (i = 0; i < db->c.ncalib; i++) {
		const struct isp_wire_reis_calib *c = &db->calib[i];

		if (c->recall > 10000 || !c->nprobe)
			return 0;
		if (i && (c->recall <= c[-1].recall || c->nprobe <= c[-1].nprobe))
			return 0;
	}
	return 1;
}

/* Cluster sizes sum to n; builds the R-IVF first-index array. */
int re_build_ivf(struct re_db *db)
{
	uint64_t sum = 0;
	uint32_t i;

	if (db->c.kind != ISP_REIS_IVF)
		return 0;
	for (i = 0; i < db->c.nlist; i++)
		sum += db->csize[i];
	if (sum != db->c.n)
		return -EBADMSG;
	if (!db->cfirst) {
		db->cfirst = malloc(((size_t)db->c.nlist + 1) * sizeof(*db->cfirst));
		if (!db->cfirst)
			return -ENOMEM;
	}
	db->cfirst[0] = 0;
	for (i = 0; i < db->c.nlist; i++)
		db->cfirst[i + 1] = db->cfirst[i] + db->csize[i];
	return 0;
}

uint16_t re_cmd_commit(struct re_eng *e, struct isp_ctx *ctx, const struct isp_cmd *cmd,
		       struct isp_cpl *cpl)
{
	struct re_db *db;
	const char *why = NULL;
	uint16_t st = 0;
	uint32_t s;
	int ret;

	(void)ctx;
	if (cmd->cdw13 || cmd->cdw14 || cmd->cdw15)
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	pthread_mutex_lock(&e->lock);
	db = re_find_live(e, cmd->cdw12);
	if (!db) {
		st = ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR;
		why = "unknown database";
	} else if (db->state != RE_DEPLOYING || db->writing) {
		st = ISP_SC_BUSY | ISP_STATUS_DNR;
		why = "database is not deploying or a write is in flight";
	} else {
		for (s = 1; s < ISP_REIS_NSECTIONS && !st; s++) {
			if (db->received[s] != re_sec_size(db, s)) {
				st = ISP_SC_INCOMPLETE | ISP_STATUS_DNR;
				why = "a section is incomplete";
			}
		}
		if (!st)
			db->state = RE_COMMITTING;
	}
	pthread_mutex_unlock(&e->lock);
	if (st)
		return isp_fail(cpl, st, why);
	/* Every page is programmed: the next tenant of a shared stripe may
	 * take the rows above (program order within a block). */
	if (db->slc.id)
		fs_region_seal(e->fs, db->slc.id);
	if (db->tlc.id)
		fs_region_seal(e->fs, db->tlc.id);

	ret = re_build_ivf(db);
	if (!ret && !re_calib_ok(db))
		ret = -EBADMSG;
	if (!ret && db->c.doc_mode && (db->dp.rec != db->c.n || db->dp.hdr_have))
		ret = -EBADMSG;
	if (!ret) {
		re_db_drop_stage(e, db);
		ret = isp_dev_commit(e->dev);
	}
	pthread_mutex_lock(&e->lock);
	db->state = ret ? RE_DEPLOYING : RE_READY;
	pthread_mutex_unlock(&e->lock);
	if (ret == -EBADMSG)
		return isp_fail(cpl, ISP_SC_BAD_PAYLOAD | ISP_STATUS_DNR,
				"cluster sizes do not sum to n, calibration not ascending "
				"or documents missing");
	if (ret == -EFBIG)
		return isp_fail(cpl, ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR,
				"metadata area full");
	if (ret)
		return isp_fail(cpl, ISP_SC_INTERNAL, "metadata commit failed");
	return 0;
}
