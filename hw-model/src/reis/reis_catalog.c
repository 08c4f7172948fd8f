/* SPDX-License-Identifier: MIT */
/*
 * reis_catalog.c - the R-DB catalog (REIS §4.1.3, §4.2.1): the table of
 * databases and their lookup, DB_DELETE / DB_LIST / DB_INFO
 * (docs/command-set.md section 4), and the engine's part of the committed
 * metadata (R-DB, R-IVF, calibration) saved and loaded again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reis_int.h"

struct re_db *re_find(struct re_eng *e, uint32_t did)
{
	uint32_t i;

	for (i = 0; i < e->ndb; i++)
		if (e->db[i]->c.did == did)
			return e->db[i];
	return NULL;
}

struct re_db *re_find_live(struct re_eng *e, uint32_t did)
{
	struct re_db *db = re_find(e, did);

	return db && db->state != RE_CREATING ? db : NULL;
}

uint16_t re_find_ready(struct re_eng *e, uint32_t did, struct re_db **out, const char **why)
{
	struct re_db *db = re_find_live(e, did);

	*out = NULL;
	if (!db) {
		*why = "unknown database";
		return ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR;
	}
	if (db->state != RE_READY) {
		*why = "database is not READY (deploying or committing)";
		return ISP_SC_BUSY | ISP_STATUS_DNR;
	}
	*out = db;
	return 0;
}

void re_unlink(struct re_eng *e, struct re_db *db)
{
	uint32_t i;

	for (i = 0; i < e->ndb; i++) {
		if (e->db[i] == db) {
			e->db[i] = e->db[--e->ndb];
			e->db[e->ndb] = NULL;
			return;
		}
	}
}

void re_db_mem_free(struct re_db *db)
{
	uint32_t s;

	for (s = 0; s < ISP_REIS_NSECTIONS; s++)
		free(db->stage[s]);
	free(db->tags);
	free(db->csize);
	free(db->cfirst);
	free(db->calib);
	free(db);
}

/* Give back everything @db holds: regions (reusable after the next
 * commit), DRAM, memory. */
void re_db_free(struct re_eng *e, struct re_db *db)
{
	if (!db)
		return;
	if (db->slc.id)
		fs_region_free(e->fs, db->slc.id);
	if (db->tlc.id)
		fs_region_free(e->fs, db->tlc.id);
	re_db_drop_stage(e, db);
	if (db->dram_db)
		fs_dram_release(e->fs, RE_DRAM_DB, db->dram_db);
	if (db->dram_ivf)
		fs_dram_release(e->fs, RE_DRAM_IVF, db->dram_ivf);
	re_db_mem_free(db);
}

/* ---- DB_DELETE ---- */

uint16_t re_cmd_delete(struct re_eng *e, struct isp_ctx *ctx, const struct isp_cmd *cmd,
		       struct isp_cpl *cpl)
{
	struct re_db *db;
	const char *why = NULL;
	uint16_t st = 0;
	int ret;

	(void)ctx;
	if (cmd->cdw13 || cmd->cdw14 || cmd->cdw15)
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	pthread_mutex_lock(&e->lock);
	db = re_find_live(e, cmd->cdw12);
	if (!db) {
		st = ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR;
		why = "unknown database";
		isp_err_at(cpl, ISP_ERR_IN_SQE, ISP_SQE_CDW(12), 0, "database %u (CDW12) does "
			   "not exist", cmd->cdw12);
	} else if (db->refs || db->writing || db->state == RE_COMMITTING) {
		st = ISP_SC_BUSY | ISP_STATUS_DNR;
		why = "database is being searched, written or committed";
	} else {
		re_unlink(e, db);
	}
	pthread_mutex_unlock(&e->lock);
	if (st)
		return isp_fail(cpl, st, why);
	re_db_free(e, db);
	ret = isp_dev_commit(e->dev);
	if (ret)
		return isp_fail(cpl, ISP_SC_INTERNAL, "metadata commit failed");
	return 0;
}

/* ---- DB_LIST / DB_INFO ---- */

static void re_fill_info(const struct re_db *db, struct isp_wire_reis_dbinfo *in)
{
	memset(in, 0, sizeof(*in));
	in->create = db->c;
	in->state = db->state == RE_READY ? ISP_REIS_READY : ISP_REIS_DEPLOYING;
	in->epb = db->L.epb;
	memcpy(in->received, db->received, sizeof(in->received));
	in->pages[0] = db->L.bpages;
	in->pages[1] = db->L.cpages;
	in->pages[2] = db->L.ipages;
	in->pages[3] = db->L.dpages;
	in->dram_bytes = db->dram_db + db->dram_ivf;
	in->searches = db->searches;
	/* the table ascends: its last point is the best a target can get,
	 * so a host can say when a target recall is out of reach */
	if (db->calib && db->c.ncalib && db->state == RE_READY) {
		in->calib_best_recall = db->calib[db->c.ncalib - 1].recall;
		in->calib_best_nprobe = db->calib[db->c.ncalib - 1].nprobe;
	}
}

uint16_t re_cmd_info(struct re_eng *e, struct isp_ctx *ctx, const struct isp_cmd *cmd,
		     void *data, size_t len, struct isp_cpl *cpl)
{
	struct re_db *db;
	int found = 0;

	if (cmd->cdw13 || cmd->cdw14 || cmd->cdw15)
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	pthread_mutex_lock(&e->lock);
	db = re_find(e, cmd->cdw12);
	if (db && db->state != RE_CREATING) {
		re_fill_info(db, data);
		found = 1;
	}
	pthread_mutex_unlock(&e->lock);
	if (!found) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, ISP_SQE_CDW(12), 0, "database %u (CDW12) does "
			   "not exist", cmd->cdw12);
		return isp_fail(cpl, ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR, "unknown database");
	}
	isp_link_xfer(ctx, len, 1, ctx->ready);
	cpl->xfer_len = (uint32_t)len;
	return 0;
}

static int re_did_cmp(const void *a, const void *b)
{
	uint32_t x = (*(struct re_db *const *)a)->c.did, y = (*(struct re_db *const *)b)->c.did;

	return x < y ? -1 : x > y;
}

uint16_t re_cmd_list(struct re_eng *e, struct isp_ctx *ctx, const struct isp_cmd *cmd,
		     void *data, size_t len, struct isp_cpl *cpl)
{
	struct isp_wire_reis_list h;
	struct re_db *v[RE_MAX_DBS];
	uint8_t *out = data;
	uint32_t i, n = 0, first = cmd->cdw12, fit;

	if (cmd->cdw13 || cmd->cdw14 || cmd->cdw15)
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	if (len < sizeof(h))
		return isp_fail(cpl, ISP_BAD_FIELD, "transfer shorter than the list header");
	memset(data, 0, len);
	memset(&h, 0, sizeof(h));
	fit = (uint32_t)((len - sizeof(h)) / sizeof(struct isp_wire_reis_dbinfo));
	pthread_mutex_lock(&e->lock);
	for (i = 0; i < e->ndb; i++)
		if (e->db[i]->state != RE_CREATING)
			v[n++] = e->db[i];
	qsort(v, n, sizeof(v[0]), re_did_cmp);
	h.total = n;
	for (i = first; i < n && h.count < fit; i++, h.count++)
		re_fill_info(v[i], (struct isp_wire_reis_dbinfo *)(void *)
			     (out + sizeof(h) + (size_t)h.count * sizeof(struct isp_wire_reis_dbinfo)));
	pthread_mutex_unlock(&e->lock);
	memcpy(out, &h, sizeof(h));
	isp_link_xfer(ctx, len, 1, ctx->ready);
	cpl->xfer_len = (uint32_t)len;
	return 0;
}

/* ---- persistence ---- */

#define RE_META_MAGIC 0x53494552u	/* "REIS" */
#define RE_META_VERSION 1u

struct re_meta_hdr {
	uint32_t magic;
	uint32_t version;
	uint32_t ndb;
	uint32_t rsvd;
};

/* @cspread: the layout's centroid spread (0 in blobs written before it:
 * those databases keep their packed centroid pages). */
struct re_meta_db {
	struct isp_wire_reis_create c;
	uint32_t slc_id;
	uint32_t tlc_id;
	uint32_t cspread;
	uint32_t rsvd;
};

int re_save(struct re_eng *e, void **blob, size_t *len)
{
	struct re_meta_hdr h = { RE_META_MAGIC, RE_META_VERSION, 0, 0 };
	size_t size = sizeof(h), off;
	uint8_t *b;
	uint32_t i;

	pthread_mutex_lock(&e->lock);
	for (i = 0; i < e->ndb; i++) {
		const struct re_db *db = e->db[i];

		if (db->state != RE_READY && db->state != RE_COMMITTING)
			continue;
		size += sizeof(struct re_meta_db) + (size_t)db->c.nlist * 4 +
			(size_t)db->c.ncalib * sizeof(struct isp_wire_reis_calib);
		h.ndb++;
	}
	b = malloc(size);
	if (!b) {
		pthread_mutex_unlock(&e->lock);
		return -ENOMEM;
	}
	memcpy(b, &h, sizeof(h));
	off = sizeof(h);
	for (i = 0; i < e->ndb; i++) {
		const struct re_db *db = e->db[i];
		struct re_meta_db m;

		if (db->state != RE_READY && db->state != RE_COMMITTING)
			continue;
		memset(&m, 0, sizeof(m));
		m.c = db->c;
		m.slc_id = db->slc.id;
		m.tlc_id = db->tlc.id;
		m.cspread = db->L.cspread;
		memcpy(b + off, &m, sizeof(m));
		off += sizeof(m);
		if (db->c.nlist) {
			memcpy(b + off, db->csize, (size_t)db->c.nlist * 4);
			off += (size_t)db->c.nlist * 4;
		}
		if (db->c.ncalib) {
			memcpy(b + off, db->calib,
			       (size_t)db->c.ncalib * sizeof(struct isp_wire_reis_calib));
			off += (size_t)db->c.ncalib * sizeof(struct isp_wire_reis_calib);
		}
	}
	pthread_mutex_unlock(&e->lock);
	*blob = b;
	*len = size;
	return 0;
}

/* The region @id must exist, belong to @did in @part and hold @pages. */
static int re_region_ok(struct re_eng *e, uint32_t id, uint32_t did, uint32_t part,
			uint64_t pages, struct fs_region *out)
{
	if (!pages)
		return id == 0 ? 0 : -EIO;
	if (!id || fs_region_get(e->fs, id, out) || out->part != part ||
	    out->owner != RE_OWNER(did) || fs_region_pages(e->fs, out) < pages)
		return -EIO;
	return 0;
}

static int re_load_one(struct re_eng *e, const uint8_t *b, size_t len, size_t *off)
{
	struct re_meta_db m;
	struct re_db *db;
	size_t need;
	int ret = -EIO;

	if (len - *off < sizeof(m))
		return -EIO;
	memcpy(&m, b + *off, sizeof(m));
	*off += sizeof(m);
	db = calloc(1, sizeof(*db));
	if (!db)
		return -ENOMEM;
	db->c = m.c;
	if (m.rsvd || m.cspread > re_planes(e->p) ||
	    re_header_check(&db->c, e->p, m.cspread, &db->L) || re_find(e, db->c.did) ||
	    e->ndb >= RE_MAX_DBS)
		goto fail;
	need = (size_t)db->c.nlist * 4 + (size_t)db->c.ncalib * sizeof(struct isp_wire_reis_calib);
	if (len - *off < need)
		goto fail;
	if (re_region_ok(e, m.slc_id, db->c.did, FG_PART_SLC, db->L.slc_pages, &db->slc) ||
	    re_region_ok(e, m.tlc_id, db->c.did, FG_PART_NATIVE, db->L.tlc_pages, &db->tlc))
		goto fail;
	ret = -ENOMEM;
	if (db->c.nlist) {
		db->csize = malloc((size_t)db->c.nlist * 4);
		if (!db->csize)
			goto fail;
		memcpy(db->csize, b + *off, (size_t)db->c.nlist * 4);
		*off += (size_t)db->c.nlist * 4;
	}
	if (db->c.ncalib) {
		size_t cl = (size_t)db->c.ncalib * sizeof(struct isp_wire_reis_calib);

		db->calib = malloc(cl);
		if (!db->calib)
			goto fail;
		memcpy(db->calib, b + *off, cl);
		*off += cl;
	}
	ret = re_build_ivf(db);
	if (ret || !re_calib_ok(db)) {
		ret = ret == -ENOMEM ? ret : -EIO;
		goto fail;
	}
	db->dram_db = RE_RDB_BYTES + (uint64_t)db->c.ncalib * sizeof(struct isp_wire_reis_calib);
	ret = fs_dram_reserve(e->fs, RE_DRAM_DB, db->dram_db);
	if (ret) {
		db->dram_db = 0;
		goto fail;
	}
	if (db->c.nlist) {
		db->dram_ivf = (uint64_t)db->c.nlist * RE_RIVF_BYTES;
		ret = fs_dram_reserve(e->fs, RE_DRAM_IVF, db->dram_ivf);
		if (ret) {
			db->dram_ivf = 0;
			goto fail;
		}
	}
	db->state = RE_READY;
	e->db[e->ndb++] = db;
	return 0;
fail:
	if (db->dram_db)
		fs_dram_release(e->fs, RE_DRAM_DB, db->dram_db);
	if (db->dram_ivf)
		fs_dram_release(e->fs, RE_DRAM_IVF, db->dram_ivf);
	re_db_mem_free(db);
	return ret;
}

int re_load(struct re_eng *e, const void *blob, size_t len, char *err, size_t errlen)
{
	const uint8_t *b = blob;
	struct re_meta_hdr h;
	struct fs_region *regs = NULL;
	size_t off = sizeof(h);
	uint32_t i;
	int n, j, ret = 0;

	if (len) {
		if (len < sizeof(h))
			goto corrupt;
		memcpy(&h, b, sizeof(h));
		if (h.magic != RE_META_MAGIC || h.version != RE_META_VERSION ||
		    h.ndb > RE_MAX_DBS)
			goto corrupt;
		for (i = 0; i < h.ndb; i++) {
			ret = re_load_one(e, b, len, &off);
			if (ret == -ENOMEM) {
				snprintf(err, errlen, "REIS: out of memory loading databases");
				return ret;
			}
			if (ret)
				goto corrupt;
		}
		if (off != len)
			goto corrupt;
	}
	/* Regions of deploys that never committed (REIS regions owned by no
	 * READY database) go back to the free pool. */
	n = fs_region_list(e->fs, NULL, 0);
	if (n > 0) {
		regs = calloc((size_t)n, sizeof(*regs));
		if (!regs) {
			snprintf(err, errlen, "REIS: out of memory");
			return -ENOMEM;
		}
		n = fs_region_list(e->fs, regs, (size_t)n);
		for (j = 0; j < n; j++) {
			int used = 0;

			if (regs[j].owner >> 32 != RE_OWNER_TAG)
				continue;
			for (i = 0; i < e->ndb && !used; i++)
				used = e->db[i]->slc.id == regs[j].id ||
				       e->db[i]->tlc.id == regs[j].id;
			if (!used)
				fs_region_free(e->fs, regs[j].id);
		}
		free(regs);
	}
	return 0;
corrupt:
	snprintf(err, errlen, "REIS metadata in the backing file is corrupt "
		 "(database record %u)", (unsigned)e->ndb);
	return -EIO;
}
