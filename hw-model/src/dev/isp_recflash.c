/* SPDX-License-Identifier: MIT */
/*
 * isp_recflash.c - the RecFlash engine's plug-in for isp_dev: the opcode
 * table of docs/command-set.md section 5, decoding of every command's
 * dwords, and the engine's load/save/identify/statistics hooks.
 */

/*
 * The work itself is in recflash_deploy.c, recflash_remap.c and
 * recflash_query.c (recflash_int.h lists every file).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recflash_int.h"

static struct rf_eng *rf_eng_of(struct isp_ctx *ctx)
{
	return isp_dev_engine(ctx->dev, &isp_engine_recflash);
}

static int rf_rsvd(const struct isp_cmd *cmd, int from)
{
	const uint32_t dw[4] = { cmd->cdw12, cmd->cdw13, cmd->cdw14, cmd->cdw15 };
	int i;

	for (i = from - 12; i < 4; i++)
		if (dw[i])
			return 1;
	return 0;
}

#define RF_RSVD(from) \
	do { \
		if (rf_rsvd(cmd, from)) \
			return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set"); \
	} while (0)

static uint16_t rf_h_create(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			    void *data, size_t len, struct isp_cpl *cpl)
{
	struct isp_wire_rf_create cr;

	RF_RSVD(12);
	if (len != sizeof(cr))
		return isp_fail(cpl, ISP_BAD_FIELD, "wrong data length for command");
	memcpy(&cr, data, sizeof(cr));
	return rf_tbl_create(rf_eng_of(ctx), ctx, &cr, cpl);
}

static uint16_t rf_h_write(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			   void *data, size_t len, struct isp_cpl *cpl)
{
	uint64_t off = (uint64_t)cmd->cdw15 << 32 | cmd->cdw14;

	return rf_tbl_write(rf_eng_of(ctx), ctx, cmd->cdw12, cmd->cdw13, off, data, len, cpl);
}

static uint16_t rf_h_commit(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			    void *data, size_t len, struct isp_cpl *cpl)
{
	(void)data; (void)len;
	RF_RSVD(13);
	return rf_tbl_commit(rf_eng_of(ctx), ctx, cmd->cdw12, cpl);
}

static uint16_t rf_h_delete(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			    void *data, size_t len, struct isp_cpl *cpl)
{
	(void)data; (void)len;
	RF_RSVD(13);
	return rf_tbl_delete(rf_eng_of(ctx), ctx, cmd->cdw12, cpl);
}

static uint16_t rf_h_list(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			  void *data, size_t len, struct isp_cpl *cpl)
{
	struct rf_eng *e = rf_eng_of(ctx);
	struct isp_wire_rf_list hdr;
	struct rf_table *t;
	uint8_t *p = data;
	uint32_t i = 0;
	size_t off = sizeof(hdr);

	RF_RSVD(13);
	if (len < sizeof(hdr))
		return isp_fail(cpl, ISP_BAD_FIELD, "buffer shorter than the list header");
	memset(data, 0, len);
	memset(&hdr, 0, sizeof(hdr));
	pthread_mutex_lock(&e->lock);
	hdr.total = e->ntables;
	for (t = e->tables; t; t = t->next, i++) {
		struct isp_wire_rf_stats w;

		if (i < cmd->cdw12)
			continue;
		if (len - off < sizeof(w))
			break;
		rf_fill_stats(e, t, &w, 0);
		memcpy(p + off, &w, sizeof(w));
		off += sizeof(w);
		hdr.count++;
	}
	pthread_mutex_unlock(&e->lock);
	memcpy(p, &hdr, sizeof(hdr));
	isp_link_xfer(ctx, len, 1, ctx->ready);
	cpl->xfer_len = (uint32_t)len;
	return 0;
}

static uint16_t rf_h_stats(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			   void *data, size_t len, struct isp_cpl *cpl)
{
	struct rf_eng *e = rf_eng_of(ctx);
	struct isp_wire_rf_stats w;
	struct rf_table *t;

	if (cmd->cdw13 & ~1u)
		return isp_fail(cpl, ISP_BAD_FIELD, "unknown stats flags");
	RF_RSVD(14);
	pthread_mutex_lock(&e->lock);
	t = rf_find(e, cmd->cdw12);
	if (t)
		rf_fill_stats(e, t, &w, cmd->cdw13 & 1u);
	pthread_mutex_unlock(&e->lock);
	if (!t)
		return isp_fail(cpl, ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR, "unknown table");
	memcpy(data, &w, sizeof(w));
	isp_link_xfer(ctx, len, 1, ctx->ready);
	cpl->xfer_len = (uint32_t)len;
	return 0;
}

static uint16_t rf_h_sls(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			 void *data, size_t len, struct isp_cpl *cpl)
{
	if (!cmd->cdw12)
		return isp_fail(cpl, ISP_BAD_FIELD, "ticket 0");
	RF_RSVD(13);
	return rf_sls(rf_eng_of(ctx), ctx, cmd->cdw12, data, len, cpl);
}

static uint16_t rf_h_profile(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			     void *data, size_t len, struct isp_cpl *cpl)
{
	uint64_t off = (uint64_t)cmd->cdw15 << 32 | cmd->cdw14;

	if (cmd->cdw13)
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	return rf_profile(rf_eng_of(ctx), ctx, cmd->cdw12, off, data, len, cpl);
}

static uint16_t rf_h_remap(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			   void *data, size_t len, struct isp_cpl *cpl)
{
	(void)data; (void)len;
	RF_RSVD(14);
	return rf_remap(rf_eng_of(ctx), ctx, cmd->cdw12, cmd->cdw13, cpl);
}

static uint16_t rf_h_switch(struct isp_ctx *ctx, const struct isp_cmd *cmd,
			    void *data, size_t len, struct isp_cpl *cpl)
{
	(void)data; (void)len;
	RF_RSVD(13);
	return rf_switch(rf_eng_of(ctx), ctx, cmd->cdw12, cpl);
}

static const struct isp_op rf_ops[] = {
	{ ISP_OP_RF_TBL_CREATE, ISP_CLS_RECFLASH_DEPLOY, sizeof(struct isp_wire_rf_create),
	  "RF_TBL_CREATE", rf_h_create },
	{ ISP_OP_RF_TBL_LIST, ISP_CLS_RECFLASH_DEPLOY, 0, "RF_TBL_LIST", rf_h_list },
	{ ISP_OP_RF_TBL_WRITE, ISP_CLS_RECFLASH_DEPLOY, 0, "RF_TBL_WRITE", rf_h_write },
	{ ISP_OP_RF_TBL_STATS, ISP_CLS_RECFLASH_DEPLOY, sizeof(struct isp_wire_rf_stats),
	  "RF_TBL_STATS", rf_h_stats },
	{ ISP_OP_RF_TBL_COMMIT, ISP_CLS_RECFLASH_DEPLOY, 0, "RF_TBL_COMMIT", rf_h_commit },
	{ ISP_OP_RF_SLS, ISP_CLS_RECFLASH_SLS, 0, "RF_SLS", rf_h_sls },
	{ ISP_OP_RF_TBL_DELETE, ISP_CLS_RECFLASH_DEPLOY, 0, "RF_TBL_DELETE", rf_h_delete },
	{ ISP_OP_RF_PROFILE, ISP_CLS_RECFLASH_REMAP, 0, "RF_PROFILE", rf_h_profile },
	{ ISP_OP_RF_REMAP, ISP_CLS_RECFLASH_REMAP, 0, "RF_REMAP", rf_h_remap },
	{ ISP_OP_RF_SWITCH, ISP_CLS_RECFLASH_REMAP, 0, "RF_SWITCH", rf_h_switch },
};

static void rf_close(void *state)
{
	struct rf_eng *e = state;
	struct rf_table *t;

	if (!e)
		return;
	while ((t = e->tables)) {
		e->tables = t->next;
		rf_table_free(e, t);
	}
	rf_cache_destroy(&e->cache);
	pthread_mutex_destroy(&e->lock);
	pthread_mutex_destroy(&e->cnt_lock);
	pthread_cond_destroy(&e->cond);
	free(e->h2f);
	free(e);
}

static int rf_open(struct isp_dev *dev, const void *blob, size_t len, void **state,
		   char *err, size_t errlen)
{
	struct rf_eng *e = calloc(1, sizeof(*e));
	int ret;

	*state = NULL;
	if (!e) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	e->dev = dev;
	e->fs = isp_dev_store(dev);
	e->ft = isp_dev_timing(dev);
	e->p = isp_dev_params(dev);
	e->g = fs_geom(e->fs);
	e->native_part = e->g->part[FG_PART_NATIVE].nblocks ? FG_PART_NATIVE : FG_PART_SLC;
	pthread_mutex_init(&e->lock, NULL);
	pthread_mutex_init(&e->cnt_lock, NULL);
	pthread_cond_init(&e->cond, NULL);
	e->h2f = malloc(65536 * sizeof(*e->h2f));
	ret = e->h2f ? rf_cache_init(&e->cache, e->p->cache_bytes, e->p->page_bytes) : -ENOMEM;
	if (ret) {
		snprintf(err, errlen, "out of memory");
		rf_close(e);
		return ret;
	}
	rf_h2f_table(e->h2f);
	ret = rf_load(e, blob, len, err, errlen);
	if (ret) {
		e->closing = 1;
		rf_close(e);
		return ret;
	}
	*state = e;
	return 0;
}

static void rf_engine_close(void *state)
{
	struct rf_eng *e = state;

	if (e)
		e->closing = 1;	/* keep regions: only the memory goes */
	rf_close(e);
}

static int rf_save_cb(void *state, void **blob, size_t *len)
{
	return rf_save(state, blob, len);
}

static void rf_identify(void *state, struct isp_wire_identify *id)
{
	struct rf_eng *e = state;

	id->caps |= ISP_CAP_RECFLASH | ISP_CAP_RECFLASH_REMAP;
	if (e->cache.nframes)
		id->caps |= ISP_CAP_RECFLASH_CACHE;
	id->max_tables = RF_MAX_TABLES;
}

static void rf_stats(void *state, struct isp_wire_stats *st, int reset)
{
	struct rf_eng *e = state;

	pthread_mutex_lock(&e->cnt_lock);
	st->cache_hits += e->hits;
	st->cache_misses += e->misses;
	st->sls_bags += e->bags;
	st->remaps += e->remaps;
	if (reset)
		e->hits = e->misses = e->bags = e->remaps = 0;
	pthread_mutex_unlock(&e->cnt_lock);
}

/*
 * Host memory outside the budgets at RF_MAX_TABLES tables: each one's
 * record and deploy page buffer, up to three areas (deploy, active,
 * staged) with a write pointer per stripe and two mapping headers (the
 * mappings' arrays, trackers and profiles are modeled DRAM: the dram
 * share), and the page cache's frames.
 */
static uint64_t rf_host_fixed(const struct fp_params *p)
{
	uint64_t area = sizeof(struct rf_area) + 4ull * p->blocks_per_plane;

	return sizeof(struct rf_eng) + p->cache_bytes +
	       (uint64_t)RF_MAX_TABLES * (sizeof(struct rf_table) + p->page_bytes + 3 * area +
					  2 * sizeof(struct rf_map));
}

const struct isp_engine isp_engine_recflash = {
	.name = "recflash",
	.ops = rf_ops,
	.nops = sizeof(rf_ops) / sizeof(rf_ops[0]),
	.open = rf_open,
	.close = rf_engine_close,
	.save = rf_save_cb,
	.identify = rf_identify,
	.stats = rf_stats,
	.host_fixed = rf_host_fixed,
};

/* ---- unit-test hooks ---- */

struct rf_eng *rf_engine_of(struct isp_dev *dev)
{
	return isp_dev_engine(dev, &isp_engine_recflash);
}

void rf_set_remap_hook(struct isp_dev *dev, void (*fn)(void *arg), void *arg)
{
	struct rf_eng *e = rf_engine_of(dev);

	if (e) {
		e->remap_hook = fn;
		e->hook_arg = arg;
	}
}

int rf_debug_map(struct isp_dev *dev, uint32_t tid, int staged, uint32_t *keys,
		 uint32_t max, uint32_t *slots, uint32_t *tau)
{
	struct rf_eng *e = rf_engine_of(dev);
	struct rf_table *t;
	struct rf_map *m;
	int ret;

	if (!e)
		return -ENOENT;
	pthread_mutex_lock(&e->lock);
	t = rf_find(e, tid);
	m = !t ? NULL : staged ? t->staged : t->active;
	if (!t) {
		ret = -ENOENT;
	} else if (!m || !m->ht.n) {
		ret = -EINVAL;
	} else {
		ret = (int)rf_ht_order(&m->ht, keys, max);
		if (slots)
			memcpy(slots, m->ht.a, (size_t)t->rows * sizeof(*slots));
		if (tau)
			*tau = m->ht.tau;
	}
	pthread_mutex_unlock(&e->lock);
	return ret;
}
