/* SPDX-License-Identifier: MIT */
/*
 * isp_reis.c - the REIS engine as a plug-in of the device (isp_internal.h):
 * its opcode table (docs/command-set.md section 4), open/close, the
 * committed tables' save, identify and statistics fields.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reis_int.h"

extern const struct isp_engine isp_engine_reis;

static struct re_eng *re_of(struct isp_ctx *ctx)
{
	return isp_dev_engine(ctx->dev, &isp_engine_reis);
}

static uint16_t re_op_create(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			     void *data, size_t len, struct isp_cpl *cpl)
{
	return re_cmd_create(re_of(ctx), ctx, cmd, data, len, cpl);
}

static uint16_t re_op_write(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			    void *data, size_t len, struct isp_cpl *cpl)
{
	return re_cmd_write(re_of(ctx), ctx, cmd, data, len, cpl);
}

static uint16_t re_op_commit(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			     void *data, size_t len, struct isp_cpl *cpl)
{
	(void)data; (void)len;
	return re_cmd_commit(re_of(ctx), ctx, cmd, cpl);
}

static uint16_t re_op_delete(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			     void *data, size_t len, struct isp_cpl *cpl)
{
	(void)data; (void)len;
	return re_cmd_delete(re_of(ctx), ctx, cmd, cpl);
}

static uint16_t re_op_list(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			   void *data, size_t len, struct isp_cpl *cpl)
{
	return re_cmd_list(re_of(ctx), ctx, cmd, data, len, cpl);
}

static uint16_t re_op_info(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			   void *data, size_t len, struct isp_cpl *cpl)
{
	return re_cmd_info(re_of(ctx), ctx, cmd, data, len, cpl);
}

static uint16_t re_op_search(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			     void *data, size_t len, struct isp_cpl *cpl)
{
	return re_cmd_search(re_of(ctx), ctx, cmd, data, len, cpl, 0);
}

static uint16_t re_op_ivf_search(struct isp_ctx *ctx, const struct isp_cmd *cmd,
				 void *data, size_t len, struct isp_cpl *cpl)
{
	return re_cmd_search(re_of(ctx), ctx, cmd, data, len, cpl, 1);
}

static uint16_t re_op_doc_read(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			       void *data, size_t len, struct isp_cpl *cpl)
{
	return re_cmd_doc_read(re_of(ctx), ctx, cmd, data, len, cpl);
}

static uint16_t re_op_meta_read(struct isp_ctx *ctx, const struct isp_cmd *cmd,
				void *data, size_t len, struct isp_cpl *cpl)
{
	return re_cmd_meta_read(re_of(ctx), ctx, cmd, data, len, cpl);
}

static const struct isp_op re_ops[] = {
	{ ISP_OP_REIS_DB_CREATE, ISP_CLS_REIS_DEPLOY, sizeof(struct isp_wire_reis_create),
	  "REIS_DB_CREATE", re_op_create },
	{ ISP_OP_REIS_DB_LIST, ISP_CLS_REIS_DEPLOY, 0, "REIS_DB_LIST", re_op_list },
	{ ISP_OP_REIS_DB_WRITE, ISP_CLS_REIS_DEPLOY, 0, "REIS_DB_WRITE", re_op_write },
	{ ISP_OP_REIS_DB_INFO, ISP_CLS_REIS_DEPLOY, sizeof(struct isp_wire_reis_dbinfo),
	  "REIS_DB_INFO", re_op_info },
	{ ISP_OP_REIS_DB_COMMIT, ISP_CLS_REIS_DEPLOY, 0, "REIS_DB_COMMIT", re_op_commit },
	{ ISP_OP_REIS_SEARCH, ISP_CLS_REIS_SEARCH, 0, "REIS_SEARCH", re_op_search },
	{ ISP_OP_REIS_META_READ, ISP_CLS_REIS_SEARCH, 0, "REIS_META_READ", re_op_meta_read },
	{ ISP_OP_REIS_DB_DELETE, ISP_CLS_REIS_DEPLOY, 0, "REIS_DB_DELETE", re_op_delete },
	{ ISP_OP_REIS_IVF_SEARCH, ISP_CLS_REIS_SEARCH, 0, "REIS_IVF_SEARCH",
	  re_op_ivf_search },
	{ ISP_OP_REIS_DOC_READ, ISP_CLS_REIS_SEARCH, 0, "REIS_DOC_READ", re_op_doc_read },
};

static void re_close(void *state)
{
	struct re_eng *e = state;
	uint32_t i;

	if (!e)
		return;
	/* Memory only: regions and the committed tables stay on flash. */
	for (i = 0; i < e->ndb; i++)
		re_db_mem_free(e->db[i]);
	pthread_mutex_destroy(&e->lock);
	free(e);
}

/*
 * The host kernels (reis_scan.c, reis_rerank.c): the widest this CPU runs,
 * or with @isa the level named (INT8 scoring has no POPCNT level: it takes
 * the portable one). -ENOTSUP when the CPU lacks it.
 */
static int re_kernels_pick(struct re_eng *e, const char *isa)
{
	const char *i8 = isa && !strcmp(isa, "popcnt") ? "portable" : isa;
	int ret = re_hamming_get(isa, &e->ham, NULL);

	if (!ret)
		ret = re_scan_get2(isa, &e->scan, &e->scan_c, NULL);
	if (!ret)
		ret = re_int8_get(i8, &e->score, NULL);
	return ret;
}

static int re_open(struct isp_dev *dev, const void *blob, size_t len, void **state,
		   char *err, size_t errlen)
{
	struct re_eng *e;
	int ret;

	*state = NULL;
	e = calloc(1, sizeof(*e));
	if (!e) {
		snprintf(err, errlen, "REIS: out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&e->lock, NULL);
	e->dev = dev;
	e->fs = isp_dev_store(dev);
	e->ft = isp_dev_timing(dev);
	e->p = isp_dev_params(dev);
	e->g = fs_geom(e->fs);
	ret = re_kernels_pick(e, isp_dev_host_isa(dev));
	if (ret)
		snprintf(err, errlen, "REIS: host_isa=%s: this CPU lacks it",
			 isp_dev_host_isa(dev) ? isp_dev_host_isa(dev) : "(widest)");
	if (!ret)
		ret = re_load(e, blob, len, err, errlen);
	if (ret) {
		re_close(e);
		return ret;
	}
	*state = e;
	return 0;
}

static int re_save_cb(void *state, void **blob, size_t *len)
{
	return re_save(state, blob, len);
}

/* What bounds the next database: R-DB entries, SLC page rows (every
 * database has binary codes there, at least one row), controller DRAM for
 * its R-DB entry (docs/reis-engine.md §7). */
static void re_identify_limits(struct re_eng *e, struct isp_wire_identify *id)
{
	struct fs_space slc, nat;
	uint64_t room, rows, dram_free;
	uint32_t ndb, spare;

	pthread_mutex_lock(&e->lock);
	ndb = e->ndb;
	pthread_mutex_unlock(&e->lock);
	if (fs_space(e->fs, FG_PART_SLC, &slc) || fs_space(e->fs, FG_PART_NATIVE, &nat))
		return;
	id->ndbs = ndb;
	id->row_pages = (uint32_t)slc.row_pages;
	id->slc_free_bytes = (slc.free_pages + slc.shared_free_pages) * e->p->page_bytes;
	id->native_free_bytes = (nat.free_pages + nat.shared_free_pages) * e->p->page_bytes;
	id->dead_bytes = (slc.dead_pages + nat.dead_pages) * e->p->page_bytes;
	room = RE_MAX_DBS - ndb;
	/* Small databases never take the last free stripe (compaction's room). */
	rows = slc.row_pages ? slc.shared_free_pages / slc.row_pages : 0;
	spare = e->g->part[FG_PART_SLC].nblocks > 1 && slc.free_blocks ? 1 : 0;
	rows += (uint64_t)(slc.free_blocks - spare) * e->g->part[FG_PART_SLC].pages_per_block;
	if (rows < room)
		room = rows;
	dram_free = fs_dram_budget(e->fs) - fs_dram_used(e->fs, NULL);
	if (dram_free / RE_RDB_BYTES < room)
		room = dram_free / RE_RDB_BYTES;
	id->db_room = (uint32_t)room;
}

static void re_identify(void *state, struct isp_wire_identify *id)
{
	struct re_eng *e = state;

	id->caps |= ISP_CAP_REIS | ISP_CAP_REIS_IVF | ISP_CAP_REIS_TAGS | ISP_CAP_REIS_META;
	if (e->p->reis_df)
		id->caps |= ISP_CAP_REIS_DF;
	if (e->p->reis_pl)
		id->caps |= ISP_CAP_REIS_PL;
	if (e->p->reis_mpibc)
		id->caps |= ISP_CAP_REIS_MPIBC;
	id->max_dbs = RE_MAX_DBS;
	re_identify_limits(e, id);
}

static void re_stats(void *state, struct isp_wire_stats *st, int reset)
{
	struct re_eng *e = state;

	pthread_mutex_lock(&e->lock);
	st->searches += e->st_searches;
	st->filtered_entries += e->st_filtered;
	st->ttl_entries += e->st_ttl;
	if (reset)
		e->st_searches = e->st_filtered = e->st_ttl = 0;
	pthread_mutex_unlock(&e->lock);
}

/*
 * Host memory outside the budgets at RE_MAX_DBS databases: each one's
 * record (its cluster sizes, calibration, staging and tags are modeled
 * DRAM: the dram share), and the engine itself.
 */
static uint64_t re_host_fixed(const struct fp_params *p)
{
	(void)p;
	return sizeof(struct re_eng) + (uint64_t)RE_MAX_DBS * sizeof(struct re_db);
}

const struct isp_engine isp_engine_reis = {
	.name = "reis",
	.ops = re_ops,
	.nops = sizeof(re_ops) / sizeof(re_ops[0]),
	.open = re_open,
	.close = re_close,
	.save = re_save_cb,
	.identify = re_identify,
	.stats = re_stats,
	.host_fixed = re_host_fixed,
};
