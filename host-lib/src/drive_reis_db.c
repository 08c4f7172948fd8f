/* SPDX-License-Identifier: MIT */
/*
 * drive_reis_db.c - REIS database commands (docs/command-set.md §4) and the
 * shared result commands (§6): create / write / commit / delete, the
 * deploy pump (every section streamed in order, all sections at once, one
 * command in flight per section), list / info, DOC_READ, RESULT_READ /
 * RELEASE, whole-result fetch, TRACE_ARM and tickets.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "isp_wire.h"
#include "drive_reis_priv.h"

_Static_assert((int)REIS_OP_DB_CREATE == (int)ISP_OP_REIS_DB_CREATE, "opcode");
_Static_assert((int)REIS_OP_DB_LIST == (int)ISP_OP_REIS_DB_LIST, "opcode");
_Static_assert((int)REIS_OP_DB_WRITE == (int)ISP_OP_REIS_DB_WRITE, "opcode");
_Static_assert((int)REIS_OP_DB_INFO == (int)ISP_OP_REIS_DB_INFO, "opcode");
_Static_assert((int)REIS_OP_DB_COMMIT == (int)ISP_OP_REIS_DB_COMMIT, "opcode");
_Static_assert((int)REIS_OP_SEARCH == (int)ISP_OP_REIS_SEARCH, "opcode");
_Static_assert((int)REIS_OP_DB_DELETE == (int)ISP_OP_REIS_DB_DELETE, "opcode");
_Static_assert((int)REIS_OP_IVF_SEARCH == (int)ISP_OP_REIS_IVF_SEARCH, "opcode");
_Static_assert((int)REIS_OP_DOC_READ == (int)ISP_OP_REIS_DOC_READ, "opcode");
_Static_assert((int)REIS_OP_TRACE_ARM == (int)ISP_OP_TRACE_ARM, "opcode");
_Static_assert(REIS_DB_DEPLOYING == ISP_REIS_DEPLOYING && REIS_DB_READY == ISP_REIS_READY,
	       "state");

/* ---------------------------------------------------------------------- */
/* Single commands                                                         */
/* ---------------------------------------------------------------------- */

static void reis_create_wire(const struct reis_db_image *img, uint32_t meta_bytes,
			     struct isp_wire_reis_create *c)
{
	memset(c, 0, sizeof(*c));
	c->did = img->did;
	c->kind = img->kind;
	c->flags = img->flags;
	c->dim = img->dim;
	c->n = img->n;
	c->nlist = img->nlist;
	c->ncalib = img->ncalib;
	c->doc_mode = img->doc_mode;
	c->metric = img->metric;
	c->df_threshold = img->df_threshold;
	c->group = img->group;
	c->docs_bytes = img->docs_bytes;
	c->timestamp = img->timestamp;
	memcpy(c->name, img->name, ISP_REIS_NAME_LEN);
	c->meta_bytes = meta_bytes;
}

static int reis_db_create_meta(struct reis_dev *dev, const struct reis_db_image *img,
			       uint32_t meta_bytes)
{
	_Alignas(64) struct isp_wire_reis_create c;
	struct reis_req req;

	if (!dev || !img)
		return -EINVAL;
	reis_create_wire(img, meta_bytes, &c);
	reis_prep_cmd(&req, REIS_OP_DB_CREATE, &c, sizeof(c));
	return reis_exec(dev, &req);
}

int reis_db_create(struct reis_dev *dev, const struct reis_db_image *img)
{
	return reis_db_create_meta(dev, img, 0);
}

static void reis_prep_write(struct reis_req *req, uint32_t did, uint32_t section,
			    uint64_t off, const void *data, uint32_t len)
{
	reis_prep_cmd(req, REIS_OP_DB_WRITE, (void *)(uintptr_t)data, len);
	req->cmd.cdw12 = did;
	req->cmd.cdw13 = section;
	req->cmd.cdw14 = (uint32_t)off;
	req->cmd.cdw15 = (uint32_t)(off >> 32);
}

int reis_db_write(struct reis_dev *dev, uint32_t did, uint32_t section, uint64_t off,
		  const void *data, uint32_t len)
{
	struct reis_req req;

	if (!dev || !data || !len)
		return -EINVAL;
	reis_prep_write(&req, did, section, off, data, len);
	return reis_exec(dev, &req);
}

int reis_db_commit(struct reis_dev *dev, uint32_t did)
{
	return reis__nodata(dev, REIS_OP_DB_COMMIT, did, 0);
}

int reis_db_delete(struct reis_dev *dev, uint32_t did)
{
	return reis__nodata(dev, REIS_OP_DB_DELETE, did, 0);
}

/* ---------------------------------------------------------------------- */
/* Info and list                                                           */
/* ---------------------------------------------------------------------- */

static int reis_info_from_wire(const struct isp_wire_reis_dbinfo *w,
			       struct reis_db_info *info)
{
	const struct isp_wire_reis_create *c = &w->create;
	unsigned i;

	if ((c->kind != ISP_REIS_BF && c->kind != ISP_REIS_IVF) ||
	    (w->state != ISP_REIS_DEPLOYING && w->state != ISP_REIS_READY) ||
	    c->dim < ISP_REIS_MIN_DIM || c->dim > ISP_REIS_MAX_DIM || c->dim % 64 ||
	    c->nlist > ISP_REIS_MAX_NLIST || c->ncalib > ISP_REIS_MAX_CALIB ||
	    c->meta_bytes > ISP_REIS_MAX_META)
		return -EPROTO;
	memset(info, 0, sizeof(*info));
	info->did = c->did;
	info->kind = c->kind;
	info->flags = c->flags;
	info->dim = c->dim;
	info->n = c->n;
	info->nlist = c->nlist;
	info->ncalib = c->ncalib;
	info->doc_mode = c->doc_mode;
	info->metric = c->metric;
	info->df_threshold = c->df_threshold;
	info->group = c->group;
	info->state = w->state;
	info->epb = w->epb;
	info->meta_bytes = c->meta_bytes;
	info->timestamp = c->timestamp;
	info->docs_bytes = c->docs_bytes;
	for (i = 0; i < ISP_REIS_NAME_LEN && c->name[i]; i++) {
		char ch = c->name[i];

		info->name[i] = ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\' ? ch : '?';
	}
	info->name[i] = '\0';
	memcpy(info->received, w->received, sizeof(info->received));
	memcpy(info->pages, w->pages, sizeof(info->pages));
	info->dram_bytes = w->dram_bytes;
	info->searches = w->searches;
	info->best_recall = w->calib_best_recall;
	return 0;
}

int reis_db_info(struct reis_dev *dev, uint32_t did, struct reis_db_info *info)
{
	_Alignas(64) struct isp_wire_reis_dbinfo w;
	struct reis_req req;
	int ret;

	if (!dev || !info)
		return -EINVAL;
	reis_prep_cmd(&req, REIS_OP_DB_INFO, &w, sizeof(w));
	req.cmd.cdw12 = did;
	ret = reis_exec(dev, &req);
	if (ret)
		return ret;
	if (reis_info_from_wire(&w, info) || w.create.did != did) {
		dev->last.err = -EPROTO;
		return reis__seterr(dev, -EPROTO, "REIS_DB_INFO: malformed answer for "
				    "database %u", did);
	}
	return 0;
}

int reis_db_list(struct reis_dev *dev, struct reis_db_info *out, unsigned max)
{
	const uint32_t esz = sizeof(struct isp_wire_reis_dbinfo);
	const uint32_t hsz = sizeof(struct isp_wire_reis_list);
	uint32_t total = 0, first = 0, cap;
	uint8_t *buf;
	int ret = 0;

	if (!dev || (!out && max))
		return -EINVAL;
	cap = (dev->max_xfer - hsz) / esz;
	if (!cap)
		return reis__seterr(dev, -EINVAL, "REIS_DB_LIST: max_xfer too small");
	buf = aligned_alloc(64, ((size_t)hsz + (size_t)cap * esz + 63) & ~(size_t)63);
	if (!buf)
		return reis__seterr(dev, -ENOMEM, "REIS_DB_LIST: out of memory");
	for (;;) {
		struct isp_wire_reis_list h;
		struct reis_req req;
		uint32_t want = max > first ? max - first : 1, i;

		if (want > cap)
			want = cap;
		reis_prep_cmd(&req, REIS_OP_DB_LIST, buf, hsz + want * esz);
		req.cmd.cdw12 = first;
		ret = reis_exec(dev, &req);
		if (ret)
			break;
		memcpy(&h, buf, sizeof(h));
		if (h.count > want || h.count > h.total || (h.count && first >= h.total)) {
			ret = reis__seterr(dev, -EPROTO, "REIS_DB_LIST: %u entries of %u for "
					   "room %u at index %u", h.count, h.total, want, first);
			break;
		}
		total = h.total;
		for (i = 0; i < h.count && first + i < max; i++) {
			struct isp_wire_reis_dbinfo w;

			memcpy(&w, buf + hsz + (size_t)i * esz, esz);
			if (reis_info_from_wire(&w, &out[first + i])) {
				ret = reis__seterr(dev, -EPROTO, "REIS_DB_LIST: entry %u is "
						   "malformed", first + i);
				break;
			}
		}
		if (ret)
			break;
		first += h.count;
		if (!h.count || first >= total || first >= max)
			break;
	}
	free(buf);
	return ret ? ret : (int)total;
}

int reis_doc_read(struct reis_dev *dev, uint32_t did, uint64_t index, void *buf,
		  uint32_t len)
{
	struct reis_req req;
	uint32_t xfer, dlen;
	uint8_t *tmp;
	int ret;

	if (!dev || (!buf && len))
		return -EINVAL;
	if (index > UINT32_MAX)
		return reis__seterr(dev, -EINVAL, "REIS_DOC_READ: entry %llu does not fit "
				    "CDW13", (unsigned long long)index);
	xfer = (uint32_t)(((uint64_t)len + 4 + 3) & ~UINT64_C(3));
	if (xfer > dev->max_xfer)
		xfer = dev->max_xfer;
	tmp = aligned_alloc(64, (xfer + 63) & ~63u);
	if (!tmp)
		return reis__seterr(dev, -ENOMEM, "REIS_DOC_READ: out of memory");
	reis_prep_cmd(&req, REIS_OP_DOC_READ, tmp, xfer);
	req.cmd.cdw12 = did;
	req.cmd.cdw13 = (uint32_t)index;
	ret = reis_exec(dev, &req);
	if (!ret) {
		memcpy(&dlen, tmp, 4);
		if (dlen > (64u << 10)) {
			dev->last.err = -EPROTO;
			ret = reis__seterr(dev, -EPROTO, "REIS_DOC_READ: length %u is "
					   "implausible", dlen);
		} else {
			uint32_t have = xfer - 4 < dlen ? xfer - 4 : dlen;

			memcpy(buf, tmp + 4, have < len ? have : len);
			ret = (int)dlen;
		}
	}
	free(tmp);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Deploy                                                                  */
/* ---------------------------------------------------------------------- */

struct reis_dep_sec {
	struct reis_req req;
	struct reis_dep *dep;
	uint32_t id;
	uint32_t active;	/* a command of it is in flight */
	uint32_t started;
	uint32_t done;		/* every byte acknowledged */
	const uint8_t *data;
	uint64_t len;
	uint64_t next;		/* bytes submitted */
	uint8_t *tail;		/* bounce buffer of a last chunk not in dwords */
};

struct reis_dep {
	struct reis_dev *dev;
	uint32_t did;
	uint32_t chunk;
	uint64_t acked;
	int err;
	struct reis_cpl cpl;	/* the failing completion */
	char msg[REIS_ERRMSG_LEN + 128];	/* what was deployed where, then the cause */
};

static int reis_dep_next(struct reis_dep_sec *s)
{
	uint64_t left = s->len - s->next;
	uint32_t n = left < s->dep->chunk ? (uint32_t)left : s->dep->chunk;
	const void *p = s->data + s->next;
	uint32_t wire = n;

	if (n % 4) {
		/* The wire moves whole dwords: pad the section's last bytes. */
		wire = (n + 3) & ~3u;
		memset(s->tail, 0, wire);
		memcpy(s->tail, p, n);
		p = s->tail;
	}
	reis_prep_write(&s->req, s->dep->did, s->id, s->next, p, wire);
	s->req.cb_arg = s;
	s->next += n;
	return 0;
}

static void reis_dep_cb(struct reis_req *req, void *arg)
{
	struct reis_dep_sec *s = arg;
	struct reis_dep *d = s->dep;
	int ret;

	if (req->cpl.err) {
		if (!d->err) {
			char m[REIS_ERRMSG_LEN];

			d->err = req->cpl.err;
			d->cpl = req->cpl;
			snprintf(d->msg, sizeof(d->msg), "deploy of database %u, section %u at "
				 "offset %llu: %s", d->did, s->id,
				 (unsigned long long)((uint64_t)req->cmd.cdw14 |
						      (uint64_t)req->cmd.cdw15 << 32),
				 reis__req_errmsg(d->dev, req, m, sizeof(m)));
		}
		s->active = 0;
		return;
	}
	d->acked += s->next - ((uint64_t)req->cmd.cdw14 | (uint64_t)req->cmd.cdw15 << 32);
	if (d->err || s->next >= s->len) {
		s->done = s->next >= s->len;
		s->active = 0;
		return;
	}
	reis_dep_next(s);
	reis_req_set_cb(&s->req, reis_dep_cb, s);
	ret = reis_submit(d->dev, &s->req);
	if (ret) {
		d->err = ret;
		memset(&d->cpl, 0, sizeof(d->cpl));
		d->cpl.err = ret;
		snprintf(d->msg, sizeof(d->msg), "deploy: %s", reis_last_error(d->dev));
		s->active = 0;
	}
}

/* What a deploy may send; the META blob (the quantizer) in *meta. */
static int reis_dep_check(struct reis_dev *dev, struct reis_db_image *img,
			  const struct reis_deploy_opts *o, void **meta, uint64_t *meta_len)
{
	char err[REIS_ERRMSG_LEN];
	int ret;

	ret = reis_db_image_check(img, err, sizeof(err));
	if (ret)
		return reis__seterr(dev, ret, "deploy: %s", err);
	if (o->chunk % 4)
		return reis__seterr(dev, -EINVAL, "deploy: chunk %u is not a multiple of 4",
				    o->chunk);
	if (o->flags & ~REIS_DEPLOY_NO_META)
		return reis__seterr(dev, -EINVAL, "deploy: unknown flags 0x%x", o->flags);
	/* The quantizer travels with the database (META), so a host that did
	 * not deploy it can still encode queries (reis_db_quantizer()). */
	if (img->quant && !(o->flags & REIS_DEPLOY_NO_META) &&
	    (dev->info.caps & REIS_CAP_REIS_META)) {
		if (img->quant->dim != img->dim || img->quant->metric != img->metric)
			return reis__seterr(dev, -EINVAL, "deploy: the quantizer (dimension %u, "
					    "metric %u) does not match the database (%u, %u)",
					    img->quant->dim, img->quant->metric, img->dim,
					    img->metric);
		ret = reis_meta_encode_recall(img->quant, img->recall, img->nrecall, meta,
					      meta_len);
		if (ret)
			return reis__seterr(dev, ret, "deploy: cannot encode the quantizer "
					    "into META");
	}
	return 0;
}

/* The image's non-empty sections in deploy order; their count, bytes in
 * *total. */
static unsigned reis_dep_sections(struct reis_dep *d, const struct reis_db_image *img,
				  const void *meta, uint64_t meta_len,
				  struct reis_dep_sec *sec, uint64_t *total)
{
	uint64_t bytes = img->dim / 8;
	unsigned nsec = 0;

	memset(sec, 0, REIS_NSECTIONS * sizeof(*sec));
	*total = 0;
#define ADD(sid_, p_, n_) do {						\
		if ((p_) && (n_) != 0) {				\
			sec[nsec].id = (sid_);				\
			sec[nsec].data = (const uint8_t *)(p_);		\
			sec[nsec].len = (n_);				\
			sec[nsec].dep = d;				\
			*total += (n_);					\
			nsec++;						\
		}							\
	} while (0)
	ADD(REIS_SEC_TAGS, img->tags, img->tags ? img->n * 4 : 0);
	ADD(REIS_SEC_BIN, img->bin, img->n * bytes);
	ADD(REIS_SEC_INT8, img->int8, img->int8 ? img->n * img->dim : 0);
	ADD(REIS_SEC_DOCS, img->docs, img->docs_bytes);
	ADD(REIS_SEC_IDS, img->ids, img->ids ? img->n * 8 : 0);
	if (img->kind == REIS_DB_IVF) {
		ADD(REIS_SEC_CENTROIDS, img->centroids, (uint64_t)img->nlist * bytes);
		ADD(REIS_SEC_CLUSTERS, img->cluster_sizes, (uint64_t)img->nlist * 4);
		ADD(REIS_SEC_CALIB, img->calib, (uint64_t)img->ncalib * 8);
	}
	ADD(REIS_SEC_META, meta, meta_len);
#undef ADD
	return nsec;
}

static void reis_dep_fail(struct reis_dep *d, int err)
{
	d->err = err;
	d->cpl.err = err;
	snprintf(d->msg, sizeof(d->msg), "deploy: %s", reis_last_error(d->dev));
}

/* Start the sections that may start, up to @depth commands in flight. */
static void reis_dep_start(struct reis_dep *d, struct reis_dep_sec *sec, unsigned nsec,
			   unsigned depth, unsigned *started, unsigned *active)
{
	struct reis_dep_sec *tags = nsec && sec[0].id == REIS_SEC_TAGS ? &sec[0] : NULL;
	unsigned i;
	int ret;

	for (i = 0; i < nsec && !d->err && *active < depth; i++) {
		struct reis_dep_sec *s = &sec[i];

		if (s->started)
			continue;
		/* The drive puts tags into the binary pages' OOB: the TAGS
		 * section must be complete before BIN entries arrive. */
		if (s->id == REIS_SEC_BIN && tags && !tags->done)
			continue;
		reis_dep_next(s);
		reis_req_set_cb(&s->req, reis_dep_cb, s);
		ret = reis_submit(d->dev, &s->req);
		if (ret) {
			reis_dep_fail(d, ret);
			break;
		}
		s->started = 1;
		s->active = 1;
		(*started)++;
		(*active)++;
	}
}

/* Every section streamed in order, all sections at once; then nothing of
 * the deploy is left in flight. */
static void reis_dep_pump(struct reis_dep *d, struct reis_dep_sec *sec, unsigned nsec,
			  unsigned depth, const struct reis_deploy_opts *o, uint64_t total)
{
	unsigned started = 0, active = 0, i;
	int ret;

	while (!d->err && (started < nsec || active)) {
		reis_dep_start(d, sec, nsec, depth, &started, &active);
		if (!active)
			break;
		ret = reis_wait(d->dev, 1, -1);
		if (ret < 0 && ret != -ETIME && ret != -EINTR) {
			if (!d->err)
				reis_dep_fail(d, ret);
			break;
		}
		for (active = 0, i = 0; i < nsec; i++)
			active += sec[i].active;
		if (o->progress)
			o->progress(o->arg, d->acked, total);
	}
	/* Let whatever is still in flight finish before its buffers go. */
	for (;;) {
		for (active = 0, i = 0; i < nsec; i++)
			active += reis_req_inflight(&sec[i].req);
		if (!active)
			break;
		if (reis_wait(d->dev, 1, -1) < 0 && reis_inflight(d->dev) == 0)
			break;
	}
}

int reis_db_deploy(struct reis_dev *dev, struct reis_db_image *img,
		   const struct reis_deploy_opts *o)
{
	static const struct reis_deploy_opts defaults;
	struct reis_dep_sec sec[REIS_NSECTIONS];
	struct reis_dep d;
	void *meta = NULL;
	uint64_t total, meta_len = 0;
	unsigned nsec, depth, i;
	int ret;

	if (!dev || !img)
		return -EINVAL;
	if (dev->in_cb)
		return reis__seterr(dev, -EDEADLK, "deploy: called from a callback");
	if (!o)
		o = &defaults;
	ret = reis_dep_check(dev, img, o, &meta, &meta_len);
	if (ret)
		return ret;
	memset(&d, 0, sizeof(d));
	d.dev = dev;
	d.did = img->did;
	d.chunk = o->chunk && o->chunk <= dev->max_xfer ? o->chunk : dev->max_xfer;
	nsec = reis_dep_sections(&d, img, meta, meta_len, sec, &total);
	for (i = 0; i < nsec; i++) {
		sec[i].tail = malloc(d.chunk);
		if (!sec[i].tail) {
			ret = reis__seterr(dev, -ENOMEM, "deploy: out of memory");
			goto free_tails;
		}
	}
	depth = o->depth && o->depth < nsec ? o->depth : nsec;
	if (depth > dev->qdepth - dev->inflight)
		depth = dev->qdepth > dev->inflight ? dev->qdepth - dev->inflight : 1;
	ret = reis_db_create_meta(dev, img, (uint32_t)meta_len);
	if (ret)
		goto free_tails;
	if (o->progress)
		o->progress(o->arg, 0, total);
	reis_dep_pump(&d, sec, nsec, depth, o, total);
	ret = d.err;
	if (!ret) {
		ret = reis_db_commit(dev, img->did);
		if (!ret)
			goto free_tails;
		d.cpl = dev->last;
		snprintf(d.msg, sizeof(d.msg), "%s", reis_last_error(dev));
	}
	if (!o->keep_on_error)
		reis_db_delete(dev, img->did);	/* aborts the deploy */
	dev->last = d.cpl;
	reis__seterr(dev, ret, "%s", d.msg);
free_tails:
	for (i = 0; i < nsec; i++)
		free(sec[i].tail);
	free(meta);
	return ret;
}

int reis_db_deploy_file(struct reis_dev *dev, const char *path, uint32_t did,
			const struct reis_deploy_opts *o)
{
	struct reis_db_image img;
	char err[REIS_ERRMSG_LEN];
	int ret;

	if (!dev || !path)
		return -EINVAL;
	ret = reis_db_image_load(path, &img, err, sizeof(err));
	if (ret)
		return reis__seterr(dev, ret, "%s", err);
	if (did)
		img.did = did;
	ret = reis_db_deploy(dev, &img, o);
	reis_db_image_free(&img);
	return ret;
}
