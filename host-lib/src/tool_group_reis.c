/* SPDX-License-Identifier: MIT */
/*
 * tool_group_reis.c - one REIS database sharded over a device group: the
 * placement (entry p on member p mod N; IVF centroids and calibration on
 * every member), the all-or-nothing deploy, the scatter of a query batch to
 * every member at once and the exact merge (docs/group.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libreis_tools.h"
#include "drive_reis_priv.h"
#include "tool_group_priv.h"

/* Entries p < x with p mod N == s. */
static uint64_t reis_gr_count_below(uint64_t x, unsigned s, unsigned nm)
{
	return x > s ? (x - s + nm - 1) / nm : 0;
}

static void *reis_gr_dup(const void *src, size_t len)
{
	void *p = malloc(len ? len : 1);

	if (p && len)
		memcpy(p, src, len);
	return p;
}

static int reis_gr_shard_docs(const struct reis_db_image *img, unsigned s, unsigned nm,
			      uint64_t ns, struct reis_image_priv *p, uint64_t *bytes)
{
	uint64_t i, total = 0, off = 0;

	for (i = 0; i < ns; i++) {
		uint64_t e = i * nm + s;

		total += img->doc_index[e + 1] - img->doc_index[e];
	}
	p->docs = malloc(total ? total : 1);
	if (!p->docs)
		return -ENOMEM;
	for (i = 0; i < ns; i++) {
		uint64_t e = i * nm + s, len = img->doc_index[e + 1] - img->doc_index[e];

		memcpy(p->docs + off, img->docs + img->doc_index[e], len);
		off += len;
	}
	*bytes = total;
	return 0;
}

int reis_group_shard_image(const struct reis_db_image *img, unsigned s, unsigned nm,
			   struct reis_db_image *out)
{
	struct reis_image_priv *p;
	uint64_t ns, i, cb;
	uint32_t c;

	if (!img || !out || !nm || nm > REIS_GROUP_MAX || s >= nm || !img->priv || !img->bin)
		return -EINVAL;
	ns = reis_gr_count_below(img->n, s, nm);
	if (!ns)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	memcpy(out, img, offsetof(struct reis_db_image, bin));
	out->n = ns;
	out->quant = img->quant;
	p = reis__image_priv(out);
	if (!p)
		return -ENOMEM;
	cb = img->dim / 8;
	p->bin = malloc(ns * cb);
	if (img->int8)
		p->int8 = malloc(ns * img->dim);
	if (img->tags)
		p->tags = malloc(ns * sizeof(*p->tags));
	if (img->ids)
		p->ids = malloc(ns * sizeof(*p->ids));
	if (!p->bin || (img->int8 && !p->int8) || (img->tags && !p->tags) ||
	    (img->ids && !p->ids))
		goto nomem;
	for (i = 0; i < ns; i++) {
		uint64_t e = i * nm + s;

		memcpy(p->bin + i * cb, img->bin + e * cb, cb);
		if (img->int8)
			memcpy(p->int8 + i * img->dim, img->int8 + e * img->dim, img->dim);
		if (img->tags)
			p->tags[i] = img->tags[e];
		if (img->ids)
			p->ids[i] = img->ids[e];
	}
	out->bin = p->bin;
	out->int8 = p->int8;
	out->tags = p->tags;
	out->ids = p->ids;
	if (img->docs && img->doc_index) {
		if (reis_gr_shard_docs(img, s, nm, ns, p, &out->docs_bytes))
			goto nomem;
		out->docs = p->docs;
	}
	if (img->kind == REIS_DB_IVF) {
		const struct reis_image_priv *ip = img->priv;

		/* Every member probes the same clusters as one drive would:
		 * all centroids and the recall->nprobe table everywhere. */
		p->centroids = reis_gr_dup(img->centroids, (size_t)img->nlist * cb);
		p->calib = reis_gr_dup(img->calib, (size_t)img->ncalib * sizeof(*img->calib));
		p->cluster_sizes = malloc((size_t)img->nlist * sizeof(*p->cluster_sizes));
		if (!p->centroids || !p->calib || !p->cluster_sizes || !ip->cluster_start)
			goto nomem;
		for (c = 0; c < img->nlist; c++)
			p->cluster_sizes[c] =
				(uint32_t)(reis_gr_count_below(ip->cluster_start[c + 1], s, nm) -
					   reis_gr_count_below(ip->cluster_start[c], s, nm));
		out->centroids = p->centroids;
		out->calib = p->calib;
		out->cluster_sizes = p->cluster_sizes;
	}
	return 0;
nomem:
	reis_db_image_free(out);
	return -ENOMEM;
}

/* One member's part of a sharded deploy, on its own thread. */
struct reis_grd_ctx {
	struct reis_db_image sh;
	struct reis_deploy_opts o;	/* the caller's, or zero */
	struct reis__gcall *c;
	uint32_t did;
	int ns_failed;			/* the namespace copy failed */
	char msg[REIS_MSG_LEN + 256];
};

static void reis_grd_progress(void *arg, uint64_t done, uint64_t total)
{
	struct reis_grd_ctx *x = arg;

	reis__gcall_beat(x->c);	/* an acknowledged chunk: progress */
	reis__gcall_progress(x->o.progress, x->o.arg, done, total);
}

static int reis_grd_one(struct reis__gcall *c)
{
	struct reis_grd_ctx *x = c->ctx;
	struct reis_deploy_opts o = x->o;
	int ret;

	x->c = c;
	o.progress = reis_grd_progress;
	o.arg = x;
	ret = reis_db_deploy(c->dev, &x->sh, &o);
	if (ret) {
		snprintf(x->msg, sizeof(x->msg), "%s", reis_last_error(c->dev));
		goto out;
	}
	reis__gcall_beat(c);
	/* The host's copy, for the scheduled mode's block reads. */
	ret = reis__gns_reis_put(c->g, c->s, &x->sh);
	if (ret) {
		x->ns_failed = 1;
		snprintf(x->msg, sizeof(x->msg), "%s", ret == -ENOSPC ? "namespace full" :
			 reis_last_error(c->dev));
		reis_db_delete(c->dev, x->did);
	}
out:
	reis_db_image_free(&x->sh);
	return ret;
}

/* A member given up on: once its deploy returns, its shard goes again. */
static void reis_grd_late(struct reis__gcall *c)
{
	struct reis_grd_ctx *x = c->ctx;

	if (c->ret)
		return;		/* nothing stayed on it */
	reis_db_delete(c->dev, x->did);
	reis__gns_del(c->g, c->s, REIS_GNS_KIND_REIS, x->did);
}

int reis_group_db_deploy(struct reis_group *g, struct reis_db_image *img,
			 const struct reis_deploy_opts *o)
{
	struct reis_grd_ctx *x;
	int rets[REIS_GROUP_MAX];
	char err[160];
	unsigned s, bad = 0;
	int ret;

	if (!g || !img)
		return -EINVAL;
	ret = reis__group_ok(g);
	if (ret)
		return ret;
	ret = reis_db_image_check(img, err, sizeof(err));
	if (ret)
		return reis__group_fail(g, -1, ret, "image: %s", err);
	if (img->n < g->n)
		return reis__group_fail(g, -1, -EINVAL,
					"%llu entries cannot be sharded over %u drives",
					(unsigned long long)img->n, g->n);
	x = calloc(g->n, sizeof(*x));
	if (!x)
		return -ENOMEM;
	for (s = 0; s < g->n; s++) {
		if (o)
			x[s].o = *o;
		x[s].did = img->did;
		ret = reis_group_shard_image(img, s, g->n, &x[s].sh);
		if (ret) {
			reis__group_fail(g, (int)s, ret, "shard: %s", reis_strerror(ret));
			while (s-- > 0)
				reis_db_image_free(&x[s].sh);
			free(x);
			return ret;
		}
	}
	/* Every member deploys at once, each under the group's timeout. */
	reis__group_call(g, g->n >= 64 ? ~0ull : (1ull << g->n) - 1, reis_grd_one, reis_grd_late,
			 x, sizeof(*x), rets);
	ret = 0;
	for (s = 0; s < g->n; s++) {
		if (!rets[s])
			continue;
		if (rets[s] == -ENOMEM || rets[s] == -EAGAIN)
			reis_db_image_free(&x[s].sh);	/* its thread never ran */
		if (!ret) {
			bad = s;
			ret = rets[s];
		}
	}
	if (ret == -ETIMEDOUT)
		reis__group_fail(g, (int)bad, ret, "deploy of shard %u/%u: no progress within "
				 "%d ms (the group's timeout); its shard is deleted when its "
				 "deploy returns", bad, g->n, g->timeout_ms);
	else if (ret && x[bad].ns_failed)
		reis__group_fail(g, (int)bad, ret, "shard %u/%u to the namespace: %s", bad, g->n,
				 x[bad].msg);
	else if (ret)
		reis__group_fail(g, (int)bad, ret, "deploy of shard %u/%u: %s", bad, g->n,
				 x[bad].msg[0] ? x[bad].msg : reis_strerror(ret));
	/* All or nothing: remove the shards the other members took. */
	for (s = 0; ret && s < g->n; s++)
		if (!rets[s]) {
			reis_db_delete(g->dev[s], img->did);
			reis__gns_del(g, s, REIS_GNS_KIND_REIS, img->did);
		}
	free(x);
	return ret;
}

int reis_group_db_delete(struct reis_group *g, uint32_t did)
{
	int ret = reis__group_delete(g, did, reis_db_delete);
	unsigned s;

	for (s = 0; g && s < g->n; s++)
		reis__gns_del(g, s, REIS_GNS_KIND_REIS, did);	/* -ENOENT: none */
	return ret;
}
