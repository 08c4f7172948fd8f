/* SPDX-License-Identifier: MIT */
/*
 * tool_group_ns.c - the host's copy of each member's shard, on that
 * member's namespace (docs/group.md, "The host's share: block reads").
 *
 * The ISP state (databases, tables) lives in the drive's modeled flash,
 * which NVMe Read cannot reach (docs/command-set.md §1: normal SSD mode and
 * RAG mode coexist). So a sharded deploy also stores each shard as a plain
 * object in the member's namespace, as a conventional server keeps its data
 * on the same drives, and the scheduled mode's host share reads from there
 * exactly the byte ranges it computes on, with reis_block_read().
 *
 * Layout: a directory in the namespace's last 4 KiB ("REISGNS1", up to
 * GNS_MAX_ENT entries {kind, id, byte offset, length}), objects 4 KiB
 * aligned below it, placed top-down in the highest gap that fits (the
 * bottom of the namespace stays free for other data, e.g. the RAG demo's
 * bundle at byte 0). An object starts with its own 4 KiB header.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libreis_tools.h"
#include "core_mix.h"
#include "tool_group_priv.h"

#define GNS_ALIGN 4096u
#define GNS_MAX_ENT 127u
#define GNS_FNV_INIT UINT64_C(0xcbf29ce484222325)

struct gns_ent {
	uint32_t kind;
	uint32_t id;
	uint64_t off;
	uint64_t len;
	uint64_t rsvd;
};

struct gns_dir {
	char magic[8];			/* "REISGNS1" */
	uint32_t version;		/* 1 */
	uint32_t count;
	uint64_t checksum;		/* FNV-1a 64 of ent[0..count) */
	uint64_t rsvd;
	struct gns_ent ent[GNS_MAX_ENT];
};
_Static_assert(sizeof(struct gns_dir) == GNS_ALIGN, "directory is one 4 KiB block");

static uint64_t gns_up(uint64_t v)
{
	return (v + GNS_ALIGN - 1) & ~(uint64_t)(GNS_ALIGN - 1);
}

/* The namespace's size and the directory's byte offset; -EOPNOTSUPP when
 * its LBAs do not tile 4 KiB blocks. */
static int gns_geom(struct reis_dev *dev, struct reis_ns_geom *ng, uint64_t *dir_off)
{
	int ret = reis_ns_geom(dev, ng);
	uint64_t bytes;

	if (ret)
		return ret;
	if (ng->lba_bytes > GNS_ALIGN || ng->nlbas > UINT64_MAX / ng->lba_bytes)
		return -EOPNOTSUPP;
	bytes = ng->nlbas * ng->lba_bytes & ~(uint64_t)(GNS_ALIGN - 1);
	if (bytes < 2 * GNS_ALIGN)
		return -ENOSPC;
	*dir_off = bytes - GNS_ALIGN;
	return 0;
}

/* Read bytes [@off, @off + @len) of the namespace, both 4 KiB aligned. */
static int gns_read(struct reis_dev *dev, const struct reis_ns_geom *ng, uint64_t off,
		    uint64_t len, void *buf)
{
	return reis_block_read(dev, off / ng->lba_bytes, len / ng->lba_bytes, buf);
}

static int gns_write(struct reis_dev *dev, const struct reis_ns_geom *ng, uint64_t off,
		     uint64_t len, const void *buf)
{
	uint64_t done = 0;
	int ret = 0;

	/* REIS_BLOCK_MAX_BYTES per call. */
	while (!ret && done < len) {
		uint64_t n = len - done < REIS_BLOCK_MAX_BYTES ? len - done : REIS_BLOCK_MAX_BYTES;

		ret = reis_block_write(dev, (off + done) / ng->lba_bytes, n / ng->lba_bytes,
				       (const uint8_t *)buf + done);
		done += n;
	}
	return ret;
}

/* The directory, or an empty one where none is (or a damaged one was). */
static int gns_dir_load(struct reis_dev *dev, struct reis_ns_geom *ng, uint64_t *dir_off,
			struct gns_dir *d)
{
	int ret = gns_geom(dev, ng, dir_off);

	if (!ret)
		ret = gns_read(dev, ng, *dir_off, GNS_ALIGN, d);
	if (ret)
		return ret;
	if (memcmp(d->magic, "REISGNS1", 8) || d->version != 1 || d->count > GNS_MAX_ENT ||
	    d->checksum != reis__fnv64(GNS_FNV_INIT, d->ent, d->count * sizeof(d->ent[0]))) {
		memset(d, 0, sizeof(*d));
		memcpy(d->magic, "REISGNS1", 8);
		d->version = 1;
	}
	return 0;
}

static int gns_dir_store(struct reis_dev *dev, const struct reis_ns_geom *ng, uint64_t dir_off,
			 struct gns_dir *d)
{
	d->checksum = reis__fnv64(GNS_FNV_INIT, d->ent, d->count * sizeof(d->ent[0]));
	return gns_write(dev, ng, dir_off, GNS_ALIGN, d);
}

static int gns_find(const struct gns_dir *d, uint32_t kind, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < d->count; i++)
		if (d->ent[i].kind == kind && d->ent[i].id == id)
			return (int)i;
	return -1;
}

static void gns_drop(struct gns_dir *d, int i)
{
	memmove(&d->ent[i], &d->ent[i + 1], (d->count - (uint32_t)i - 1) * sizeof(d->ent[0]));
	d->count--;
	memset(&d->ent[d->count], 0, sizeof(d->ent[0]));
}

/* The highest 4 KiB-aligned gap of @need bytes below @top; -ENOSPC. */
static int gns_place(const struct gns_dir *d, uint64_t top, uint64_t need, uint64_t *off)
{
	uint64_t cursor = top;

	for (;;) {
		uint64_t best_end = 0, best_off = 0;
		uint32_t i;
		int found = 0;

		/* The object ending highest at or below the cursor. */
		for (i = 0; i < d->count; i++) {
			uint64_t end = d->ent[i].off + gns_up(d->ent[i].len);

			if (d->ent[i].off < cursor && (!found || end > best_end)) {
				best_end = end;
				best_off = d->ent[i].off;
				found = 1;
			}
		}
		if (!found)
			best_end = 0;
		if (cursor >= best_end && cursor - best_end >= need) {
			*off = cursor - need;
			return 0;
		}
		if (!found)
			return -ENOSPC;
		cursor = best_off;
	}
}

int reis__gns_put(struct reis_group *g, unsigned s, uint32_t kind, uint32_t id,
		  const void *obj, uint64_t len)
{
	struct reis_dev *dev = g->dev[s];
	struct reis_ns_geom ng;
	struct gns_dir *d;
	uint64_t dir_off, off;
	int ret, i;

	if (!len || len % GNS_ALIGN)
		return -EINVAL;
	d = aligned_alloc(GNS_ALIGN, sizeof(*d));
	if (!d)
		return -ENOMEM;
	ret = gns_dir_load(dev, &ng, &dir_off, d);
	if (!ret && (i = gns_find(d, kind, id)) >= 0)
		gns_drop(d, i);		/* a redeploy replaces the old copy */
	if (!ret && d->count == GNS_MAX_ENT)
		ret = -ENOSPC;
	if (!ret)
		ret = gns_place(d, dir_off, len, &off);
	/* Object first, then the directory naming it. */
	if (!ret)
		ret = gns_write(dev, &ng, off, len, obj);
	if (!ret) {
		d->ent[d->count].kind = kind;
		d->ent[d->count].id = id;
		d->ent[d->count].off = off;
		d->ent[d->count].len = len;
		d->count++;
		ret = gns_dir_store(dev, &ng, dir_off, d);
	}
	free(d);
	return ret;
}

int reis__gns_del(struct reis_group *g, unsigned s, uint32_t kind, uint32_t id)
{
	struct reis_dev *dev = g->dev[s];
	struct reis_ns_geom ng;
	struct gns_dir *d = aligned_alloc(GNS_ALIGN, sizeof(*d));
	uint64_t dir_off;
	int ret, i;

	if (!d)
		return -ENOMEM;
	ret = gns_dir_load(dev, &ng, &dir_off, d);
	if (!ret) {
		i = gns_find(d, kind, id);
		ret = i < 0 ? -ENOENT : (gns_drop(d, i), gns_dir_store(dev, &ng, dir_off, d));
	}
	free(d);
	return ret;
}

int reis__gns_open(struct reis_group *g, unsigned s, uint32_t kind, uint32_t id,
		   struct reis__gns_obj *o)
{
	struct reis_dev *dev = g->dev[s];
	struct gns_dir *d = aligned_alloc(GNS_ALIGN, sizeof(*d));
	uint64_t dir_off;
	int ret, i = -1;

	memset(o, 0, sizeof(*o));
	if (!d)
		return -ENOMEM;
	ret = gns_dir_load(dev, &o->ng, &dir_off, d);
	if (!ret && (i = gns_find(d, kind, id)) < 0)
		ret = -ENOENT;
	if (!ret && (d->ent[i].off % GNS_ALIGN || d->ent[i].len % GNS_ALIGN ||
		     d->ent[i].len < GNS_ALIGN || d->ent[i].off > dir_off ||
		     d->ent[i].len > dir_off - d->ent[i].off || d->ent[i].len > SIZE_MAX / 2))
		ret = -EBADMSG;		/* a directory entry past the namespace */
	if (!ret) {
		o->dev = dev;
		o->off = d->ent[i].off;
		o->len = d->ent[i].len;
		o->buf = aligned_alloc(GNS_ALIGN, o->len);
		ret = o->buf ? 0 : -ENOMEM;
	}
	if (!ret) {
		memset(o->buf, 0, o->len);
		o->bytes = GNS_ALIGN;			/* the directory, read above */
		ret = reis__gns_fetch(o, 0, GNS_ALIGN);	/* the object's header */
	}
	free(d);
	if (ret)
		reis__gns_close(o);
	return ret;
}

int reis__gns_fetch(struct reis__gns_obj *o, uint64_t lo, uint64_t hi)
{
	uint64_t a = lo / o->ng.lba_bytes * o->ng.lba_bytes;
	uint64_t b = (hi + o->ng.lba_bytes - 1) / o->ng.lba_bytes * o->ng.lba_bytes;
	uint64_t t0 = reis__group_now_ns();
	int ret;

	if (lo >= hi)
		return 0;
	if (hi > o->len)
		return -EBADMSG;	/* an array past its object */
	ret = reis_block_read(o->dev, (o->off + a) / o->ng.lba_bytes, (b - a) / o->ng.lba_bytes,
			      o->buf + a);
	o->read_ns += reis__group_now_ns() - t0;
	if (!ret)
		o->bytes += b - a;
	return ret;
}

void reis__gns_close(struct reis__gns_obj *o)
{
	free(o->buf);
	memset(o, 0, sizeof(*o));
}

/* ---------------------------------------------------------------------- */
/* The objects: a REIS shard, a RecFlash row range                         */

struct gns_reis_hdr {
	char magic[8];			/* "REISGSH1" */
	uint32_t did, member, nmembers, kind;
	uint32_t flags, dim, nlist, ncalib;
	uint32_t doc_mode, metric, df_threshold, rsvd0;
	uint64_t n, docs_bytes;
	struct { uint64_t off, len; } arr[REIS_GNS_NARR];
};

struct gns_rf_hdr {
	char magic[8];			/* "REISGRF1" */
	uint32_t tid, member, nmembers, dtype;
	uint32_t dim, row0, nrows, row_bytes;
};

int reis__gns_reis_put(struct reis_group *g, unsigned s, const struct reis_db_image *sh)
{
	const void *src[REIS_GNS_NARR] = { sh->bin, sh->int8, sh->tags, sh->ids, sh->docs,
					   sh->centroids, sh->cluster_sizes, sh->calib };
	uint64_t len[REIS_GNS_NARR], off = GNS_ALIGN;
	struct gns_reis_hdr h;
	uint8_t *obj;
	unsigned a;
	int ret;

	len[REIS_GNS_BIN] = sh->n * (sh->dim / 8);
	len[REIS_GNS_INT8] = sh->int8 ? sh->n * sh->dim : 0;
	len[REIS_GNS_TAGS] = sh->tags ? sh->n * sizeof(*sh->tags) : 0;
	len[REIS_GNS_IDS] = sh->ids ? sh->n * sizeof(*sh->ids) : 0;
	len[REIS_GNS_DOCS] = sh->docs ? sh->docs_bytes : 0;
	len[REIS_GNS_CENT] = sh->centroids ? (uint64_t)sh->nlist * (sh->dim / 8) : 0;
	len[REIS_GNS_SIZES] = sh->cluster_sizes ? (uint64_t)sh->nlist * 4 : 0;
	len[REIS_GNS_CALIB] = sh->calib ? (uint64_t)sh->ncalib * sizeof(*sh->calib) : 0;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, "REISGSH1", 8);
	h.did = sh->did;
	h.member = s;
	h.nmembers = g->n;
	h.kind = sh->kind;
	h.flags = sh->flags;
	h.dim = sh->dim;
	h.nlist = sh->nlist;
	h.ncalib = sh->ncalib;
	h.doc_mode = sh->doc_mode;
	h.metric = sh->metric;
	h.df_threshold = sh->df_threshold;
	h.n = sh->n;
	h.docs_bytes = len[REIS_GNS_DOCS];
	for (a = 0; a < REIS_GNS_NARR; a++) {
		h.arr[a].off = off;
		h.arr[a].len = len[a];
		off = gns_up(off + len[a]);
	}
	obj = aligned_alloc(GNS_ALIGN, off);
	if (!obj)
		return -ENOMEM;
	memset(obj, 0, off);
	memcpy(obj, &h, sizeof(h));
	for (a = 0; a < REIS_GNS_NARR; a++)
		if (len[a])
			memcpy(obj + h.arr[a].off, src[a], len[a]);
	ret = reis__gns_put(g, s, REIS_GNS_KIND_REIS, sh->did, obj, off);
	free(obj);
	return ret;
}

int reis__gns_reis_open(struct reis_group *g, unsigned s, uint32_t did,
			struct reis__gns_obj *o, struct reis_db_image *img)
{
	struct gns_reis_hdr h;
	uint64_t want[REIS_GNS_NARR];
	unsigned a;
	int ret = reis__gns_open(g, s, REIS_GNS_KIND_REIS, did, o);

	if (ret)
		return ret;
	memcpy(&h, o->buf, sizeof(h));
	/* The namespace is the host's to read, not to trust: bound every field. */
	if (memcmp(h.magic, "REISGSH1", 8) || h.did != did || h.member != s ||
	    h.nmembers != g->n || !h.dim || h.dim % 64 || h.dim > REIS_DB_MAX_DIM || !h.n ||
	    h.n > o->len || h.nlist > o->len || h.ncalib > REIS_DB_MAX_CALIB)
		goto bad;
	want[REIS_GNS_BIN] = h.n * (h.dim / 8);
	want[REIS_GNS_INT8] = h.n * h.dim;
	want[REIS_GNS_TAGS] = h.n * 4;
	want[REIS_GNS_IDS] = h.n * 8;
	want[REIS_GNS_DOCS] = h.docs_bytes;
	want[REIS_GNS_CENT] = (uint64_t)h.nlist * (h.dim / 8);
	want[REIS_GNS_SIZES] = (uint64_t)h.nlist * 4;
	want[REIS_GNS_CALIB] = (uint64_t)h.ncalib * sizeof(struct reis_calib);
	for (a = 0; a < REIS_GNS_NARR; a++) {
		if (h.arr[a].len && (h.arr[a].len != want[a] || h.arr[a].off < GNS_ALIGN ||
				     h.arr[a].off % 8 || h.arr[a].off > o->len ||
				     h.arr[a].len > o->len - h.arr[a].off))
			goto bad;
		o->arr[a].off = h.arr[a].off;
		o->arr[a].len = h.arr[a].len;
	}
	if (!h.arr[REIS_GNS_BIN].len)
		goto bad;
	memset(img, 0, sizeof(*img));
	img->did = h.did;
	img->kind = h.kind;
	img->flags = h.flags;
	img->dim = h.dim;
	img->n = h.n;
	img->nlist = h.nlist;
	img->ncalib = h.ncalib;
	img->doc_mode = h.doc_mode;
	img->metric = h.metric;
	img->df_threshold = h.df_threshold;
#define GNS_PTR(a) (o->arr[a].len ? (const void *)(o->buf + o->arr[a].off) : NULL)
	img->bin = GNS_PTR(REIS_GNS_BIN);
	img->int8 = GNS_PTR(REIS_GNS_INT8);
	img->tags = GNS_PTR(REIS_GNS_TAGS);
	img->ids = GNS_PTR(REIS_GNS_IDS);
	img->docs = GNS_PTR(REIS_GNS_DOCS);
	img->docs_bytes = h.docs_bytes;
	img->centroids = GNS_PTR(REIS_GNS_CENT);
	img->cluster_sizes = GNS_PTR(REIS_GNS_SIZES);
	img->calib = GNS_PTR(REIS_GNS_CALIB);
#undef GNS_PTR
	return 0;
bad:
	reis__gns_close(o);
	return -EBADMSG;
}

int reis__gns_rf_put(struct reis_group *g, unsigned s, const struct reis_rf_table *ts,
		     uint32_t row0, uint32_t row_bytes)
{
	uint64_t len = gns_up(GNS_ALIGN + (uint64_t)ts->rows * row_bytes);
	struct gns_rf_hdr h;
	uint8_t *obj = aligned_alloc(GNS_ALIGN, len);
	int ret;

	if (!obj)
		return -ENOMEM;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, "REISGRF1", 8);
	h.tid = ts->tid;
	h.member = s;
	h.nmembers = g->n;
	h.dtype = ts->dtype;
	h.dim = ts->dim;
	h.row0 = row0;
	h.nrows = ts->rows;
	h.row_bytes = row_bytes;
	memset(obj, 0, len);
	memcpy(obj, &h, sizeof(h));
	memcpy(obj + GNS_ALIGN, ts->data, (size_t)ts->rows * row_bytes);
	ret = reis__gns_put(g, s, REIS_GNS_KIND_RF, ts->tid, obj, len);
	free(obj);
	return ret;
}

int reis__gns_rf_open(struct reis_group *g, unsigned s, const struct reis_rf_table *t,
		      uint32_t row_bytes, uint32_t row0, uint32_t nrows, struct reis__gns_obj *o)
{
	struct gns_rf_hdr h;
	int ret = reis__gns_open(g, s, REIS_GNS_KIND_RF, t->tid, o);

	if (ret)
		return ret;
	memcpy(&h, o->buf, sizeof(h));
	if (memcmp(h.magic, "REISGRF1", 8) || h.tid != t->tid || h.member != s ||
	    h.nmembers != g->n || h.dtype != t->dtype || h.dim != t->dim ||
	    h.row_bytes != row_bytes ||
	    h.row0 != row0 || h.nrows != nrows ||
	    GNS_ALIGN + (uint64_t)h.nrows * row_bytes > o->len) {
		reis__gns_close(o);
		return -EBADMSG;
	}
	o->arr[0].off = GNS_ALIGN;
	o->arr[0].len = (uint64_t)h.nrows * row_bytes;
	return 0;
}
