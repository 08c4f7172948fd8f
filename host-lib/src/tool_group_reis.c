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

int reis_group_db_deploy(struct reis_group *g, struct reis_db_image *img,
			 const struct reis_deploy_opts *o)
{
	char err[160];
	unsigned s;
	int ret;

	if (!g || !img)
		return -EINVAL;
	reis__group_ok(g);
	ret = reis_db_image_check(img, err, sizeof(err));
	if (ret)
		return reis__group_fail(g, -1, ret, "image: %s", err);
	if (img->n < g->n)
		return reis__group_fail(g, -1, -EINVAL,
					"%llu entries cannot be sharded over %u drives",
					(unsigned long long)img->n, g->n);
	for (s = 0; s < g->n; s++) {
		struct reis_db_image sh;

		ret = reis_group_shard_image(img, s, g->n, &sh);
		if (ret) {
			reis__group_fail(g, (int)s, ret, "shard: %s", reis_strerror(ret));
			break;
		}
		ret = reis_db_deploy(g->dev[s], &sh, o);
		if (ret) {
			reis_db_image_free(&sh);
			ret = reis__group_fail(g, (int)s, ret, "deploy of shard %u/%u: %s", s,
					       g->n, reis_last_error(g->dev[s]));
			break;
		}
		/* The host's copy, for the scheduled mode's block reads. */
		ret = reis__gns_reis_put(g, s, &sh);
		reis_db_image_free(&sh);
		if (ret) {
			ret = reis__group_fail(g, (int)s, ret, "shard %u/%u to the namespace: %s", s,
					       g->n, ret == -ENOSPC ? "namespace full" :
					       reis_last_error(g->dev[s]));
			reis_db_delete(g->dev[s], img->did);
			break;
		}
	}
	if (!ret)
		return 0;
	/* All or nothing: remove the shards already on the other members. */
	while (s-- > 0) {
		reis_db_delete(g->dev[s], img->did);
		reis__gns_del(g, s, REIS_GNS_KIND_REIS, img->did);
	}
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
