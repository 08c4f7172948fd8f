/* SPDX-License-Identifier: MIT */
/*
 * reis_t.h - what the REIS unit tests share: a device, synthetic databases,
 * deploy through the commands, search and result parsing, and a reference
 * search written from docs/command-set.md section 4 alone (bit-by-bit
 * Hamming, full sorts), independent of the engine's code.
 */
#ifndef TESTS_REIS_T_H
#define TESTS_REIS_T_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "isp_dev.h"
#include "isp_wire.h"

#define T_MAX_XFER (512u * 1024u)

/* ---- device and commands ---- */

static inline struct isp_dev *t_open(const char *preset, const char *params,
				     const char *backing)
{
	struct isp_dev_config cfg;
	struct isp_dev *dev = NULL;
	char err[256];
	int ret;

	memset(&cfg, 0, sizeof(cfg));
	cfg.preset = preset;
	cfg.params = params;
	cfg.backing = backing;
	cfg.max_xfer = T_MAX_XFER;
	ret = isp_dev_open(&cfg, &dev, err, sizeof(err));
	if (ret)
		fprintf(stderr, "isp_dev_open: %d %s\n", ret, err);
	return dev;
}

static uint64_t t_clock = 1000000;	/* submission times, far apart */

static inline struct isp_cmd t_mk(uint8_t opc, uint32_t len)
{
	struct isp_cmd c;

	memset(&c, 0, sizeof(c));
	c.opcode = opc;
	c.nsid = 1;
	c.cdw10 = (len + 3) / 4;
	/* 10 s of device time apart; tests may call from several threads. */
	c.submit_ns = __atomic_fetch_add(&t_clock, 10000000000ull, __ATOMIC_RELAXED);
	return c;
}

/* Run @c with a buffer of NDT*4 bytes (copied from/to @buf, @len bytes). */
static inline uint16_t t_run(struct isp_dev *dev, struct isp_cmd *c, void *buf, size_t len,
			     struct isp_cpl *cpl)
{
	size_t n = isp_cmd_data_len(c);
	struct isp_cpl chk, tmp;
	uint8_t *b = NULL;
	uint16_t st, st0;

	if (!cpl)
		cpl = &tmp;
	if (n) {
		b = calloc(1, n);
		REQUIRE(b);
		if (buf)
			memcpy(b, buf, len < n ? len : n);
	}
	st0 = isp_dev_check(dev, c, &chk);
	st = isp_dev_exec(dev, c, b, n, cpl);
	if (st0)
		CHECK_EQ_U64(st0, st);
	if (st && !(st & ISP_STATUS_DNR) && (st & 0x7ff) != ISP_SC_RESOURCE &&
	    (st & 0x7ff) != ISP_SC_INTERNAL)
		fprintf(stderr, "status 0x%x without DNR (%s)\n", st, cpl->err);
	if (n && buf && (c->opcode & 3) == ISP_DIR_C2H)
		memcpy(buf, b, len < n ? len : n);
	free(b);
	return st;
}

static inline uint16_t t_nodata(struct isp_dev *dev, uint8_t opc, uint32_t did)
{
	struct isp_cmd c = t_mk(opc, 0);

	c.cdw12 = did;
	return t_run(dev, &c, NULL, 0, NULL);
}

/* ---- synthetic databases ---- */

struct t_db {
	struct isp_wire_reis_create c;
	uint8_t *bin;		/* n * dim/8 */
	int8_t *i8;		/* n * dim */
	uint32_t *tags;
	uint64_t *ids;
	uint8_t *docs;		/* DOCS section */
	uint64_t *doff;		/* n + 1 offsets of each record's bytes */
	uint8_t *cent;		/* nlist * dim/8 */
	uint32_t *csize;
	struct isp_wire_reis_calib *calib;
	uint8_t *meta;		/* META section (c.meta_bytes), or NULL */
};

/* Give @db a META section of @bytes pattern bytes. */
static inline void t_db_meta(struct t_db *db, uint32_t bytes, uint32_t seed)
{
	free(db->meta);
	db->meta = malloc(bytes ? bytes : 1);
	REQUIRE(db->meta);
	isp_wire_pattern(seed, db->meta, bytes);
	db->c.meta_bytes = bytes;
}

static inline uint32_t t_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static inline int t_bit(const uint8_t *code, uint32_t b)
{
	return (code[b / 8] >> (b % 8)) & 1;
}

/* A random code near @center: each bit flipped with probability @pm/1000. */
static inline void t_near(uint8_t *out, const uint8_t *center, uint32_t dim, uint32_t pm,
			  uint32_t *s)
{
	uint32_t b;

	memcpy(out, center, dim / 8);
	for (b = 0; b < dim; b++)
		if (t_rand(s) % 1000 < pm)
			out[b / 8] ^= (uint8_t)(1u << (b % 8));
}

/* INT8 code that agrees with @bin in sign, magnitudes random. */
static inline void t_int8_of(int8_t *out, const uint8_t *bin, uint32_t dim, uint32_t *s)
{
	uint32_t d;

	for (d = 0; d < dim; d++) {
		int v = 1 + (int)(t_rand(s) % 120);

		out[d] = (int8_t)(t_bit(bin, d) ? v : -v);
	}
}

/* Document lengths: some empty, some exactly a chunk, the rest spread. */
static inline uint32_t t_doc_rule(uint64_t e, uint32_t chunk)
{
	if (e % 13 == 5)
		return 0;
	if (e % 11 == 3)
		return chunk;
	return (uint32_t)((e * 2654435761u) % chunk);
}

/*
 * A database: @kind BF or IVF (@nlist clusters, entries in cluster order),
 * @flags ISP_REIS_DBF_*, documents per @doc_mode (lengths 0..chunk).
 */
static inline void t_db_make(struct t_db *db, uint32_t did, uint32_t kind, uint32_t dim,
			     uint64_t n, uint32_t nlist, uint32_t flags, uint32_t doc_mode,
			     uint32_t chunk, uint32_t seed)
{
	uint32_t s = seed | 1, cl, cb = dim / 8, ncent = nlist ? nlist : 8, i;
	uint8_t *centers;
	uint64_t e, off;

	memset(db, 0, sizeof(*db));
	db->c.did = did;
	db->c.kind = kind;
	db->c.flags = flags;
	db->c.dim = dim;
	db->c.n = n;
	db->c.nlist = kind == ISP_REIS_IVF ? nlist : 0;
	db->c.doc_mode = doc_mode;
	db->c.metric = ISP_REIS_IP;
	snprintf(db->c.name, sizeof(db->c.name), "db%u", did);
	centers = malloc((size_t)ncent * cb);
	db->bin = malloc(n * cb);
	REQUIRE(centers && db->bin);
	for (i = 0; i < ncent * cb; i++)
		centers[i] = (uint8_t)t_rand(&s);
	db->csize = calloc(ncent, sizeof(*db->csize));
	REQUIRE(db->csize);
	/* Cluster sizes: random, some empty, summing to n. */
	for (e = 0; e < n; e++)
		db->csize[t_rand(&s) % ncent]++;
	if (ncent > 3)
		db->csize[1] += db->csize[2], db->csize[2] = 0;
	for (cl = 0, e = 0; cl < ncent; cl++) {
		uint32_t j;

		for (j = 0; j < db->csize[cl]; j++, e++)
			t_near(db->bin + e * cb, centers + (size_t)cl * cb, dim, 150, &s);
	}
	if (kind == ISP_REIS_IVF) {
		db->cent = centers;
	} else {
		free(centers);
		free(db->csize);
		db->csize = NULL;
	}
	if (flags & ISP_REIS_DBF_INT8) {
		db->i8 = malloc(n * dim);
		REQUIRE(db->i8);
		for (e = 0; e < n; e++)
			t_int8_of(db->i8 + e * dim, db->bin + e * cb, dim, &s);
	}
	if (flags & ISP_REIS_DBF_TAGS) {
		db->tags = malloc(n * 4);
		REQUIRE(db->tags);
		for (e = 0; e < n; e++)
			db->tags[e] = t_rand(&s) % 4;
	}
	if (flags & ISP_REIS_DBF_IDS) {
		db->ids = malloc(n * 8);
		REQUIRE(db->ids);
		for (e = 0; e < n; e++)
			db->ids[e] = 0x100000000ull + e * 7919;
	}
	if (doc_mode) {
		uint64_t total = 0;

		db->doff = malloc((n + 1) * sizeof(*db->doff));
		REQUIRE(db->doff);
		for (e = 0; e < n; e++)
			total += 4 + t_doc_rule(e, chunk);
		db->docs = malloc(total);
		REQUIRE(db->docs);
		for (e = 0, off = 0; e < n; e++) {
			uint32_t len = t_doc_rule(e, chunk), j;

			memcpy(db->docs + off, &len, 4);
			db->doff[e] = off + 4;
			for (j = 0; j < len; j++)
				db->docs[off + 4 + j] = (uint8_t)(e * 31 + j * 7 + (j >> 8));
			off += 4 + len;
		}
		db->doff[n] = off;
		db->c.docs_bytes = off;
	}
	if (kind == ISP_REIS_IVF) {
		db->c.ncalib = 3;
		db->calib = malloc(3 * sizeof(*db->calib));
		REQUIRE(db->calib);
		db->calib[0].recall = 5000;
		db->calib[0].nprobe = 1;
		db->calib[1].recall = 8000;
		db->calib[1].nprobe = 2;
		db->calib[2].recall = 9500;
		db->calib[2].nprobe = nlist / 2 ? nlist / 2 : 1;
		if (db->calib[2].nprobe <= 2)
			db->c.ncalib = 2;
	}
}

static inline void t_db_free(struct t_db *db)
{
	free(db->bin);
	free(db->i8);
	free(db->tags);
	free(db->ids);
	free(db->docs);
	free(db->doff);
	free(db->cent);
	free(db->csize);
	free(db->calib);
	free(db->meta);
	memset(db, 0, sizeof(*db));
}

static inline uint32_t t_doc_len(const struct t_db *db, uint64_t e)
{
	uint32_t len;

	memcpy(&len, db->docs + db->doff[e] - 4, 4);
	return len;
}

/* One section, streamed in @chunk-byte DB_WRITEs (last one padded). */
static inline uint16_t t_write_sec(struct isp_dev *dev, uint32_t did, uint32_t sec,
				   const void *data, uint64_t size, uint32_t chunk)
{
	uint64_t off;
	uint16_t st = 0;

	for (off = 0; off < size && !st; off += chunk) {
		uint32_t n = (uint32_t)(size - off < chunk ? size - off : chunk);
		struct isp_cmd c = t_mk(ISP_OP_REIS_DB_WRITE, n);

		c.cdw12 = did;
		c.cdw13 = sec;
		c.cdw14 = (uint32_t)off;
		c.cdw15 = (uint32_t)(off >> 32);
		st = t_run(dev, &c, (uint8_t *)(uintptr_t)data + off, n, NULL);
	}
	return st;
}

static inline uint16_t t_create(struct isp_dev *dev, const struct isp_wire_reis_create *cr)
{
	struct isp_cmd c = t_mk(ISP_OP_REIS_DB_CREATE, sizeof(*cr));

	return t_run(dev, &c, (void *)cr, sizeof(*cr), NULL);
}

/* Every section of @db (TAGS before BIN), not the commit. */
static inline uint16_t t_write_all(struct isp_dev *dev, const struct t_db *db, uint32_t chunk)
{
	const struct isp_wire_reis_create *c = &db->c;
	uint32_t cb = c->dim / 8;
	uint16_t st = 0;

	if (c->flags & ISP_REIS_DBF_TAGS)
		st = t_write_sec(dev, c->did, ISP_REIS_SEC_TAGS, db->tags, c->n * 4, chunk);
	if (!st)
		st = t_write_sec(dev, c->did, ISP_REIS_SEC_BIN, db->bin, c->n * cb, chunk);
	if (!st && (c->flags & ISP_REIS_DBF_INT8))
		st = t_write_sec(dev, c->did, ISP_REIS_SEC_INT8, db->i8, c->n * c->dim, chunk);
	if (!st && (c->flags & ISP_REIS_DBF_IDS))
		st = t_write_sec(dev, c->did, ISP_REIS_SEC_IDS, db->ids, c->n * 8, chunk);
	if (!st && c->doc_mode)
		st = t_write_sec(dev, c->did, ISP_REIS_SEC_DOCS, db->docs, c->docs_bytes, chunk);
	if (!st && c->kind == ISP_REIS_IVF) {
		st = t_write_sec(dev, c->did, ISP_REIS_SEC_CENTROIDS, db->cent,
				 (uint64_t)c->nlist * cb, chunk);
		if (!st)
			st = t_write_sec(dev, c->did, ISP_REIS_SEC_CLUSTERS, db->csize,
					 (uint64_t)c->nlist * 4, chunk);
		if (!st && c->ncalib)
			st = t_write_sec(dev, c->did, ISP_REIS_SEC_CALIB, db->calib,
					 (uint64_t)c->ncalib * 8, chunk);
	}
	if (!st && c->meta_bytes)
		st = t_write_sec(dev, c->did, ISP_REIS_SEC_META, db->meta, c->meta_bytes, chunk);
	return st;
}

static inline uint16_t t_deploy(struct isp_dev *dev, const struct t_db *db, uint32_t chunk)
{
	uint16_t st = t_create(dev, &db->c);

	if (!st)
		st = t_write_all(dev, db, chunk);
	if (!st)
		st = t_nodata(dev, ISP_OP_REIS_DB_COMMIT, db->c.did);
	return st;
}

/* ---- search and results ---- */

struct t_query {
	uint8_t *bin;		/* nq * dim/8 */
	int8_t *i8;		/* nq * dim */
	uint32_t nq, dim;
};

static inline void t_queries(struct t_query *q, const struct t_db *db, uint32_t nq,
			     uint32_t seed)
{
	uint32_t s = seed | 1, i, cb = db->c.dim / 8;

	q->nq = nq;
	q->dim = db->c.dim;
	q->bin = malloc((size_t)nq * cb);
	q->i8 = malloc((size_t)nq * db->c.dim);
	REQUIRE(q->bin && q->i8);
	for (i = 0; i < nq; i++) {
		uint64_t e = t_rand(&s) % db->c.n;

		t_near(q->bin + (size_t)i * cb, db->bin + e * cb, db->c.dim, 100, &s);
		t_int8_of(q->i8 + (size_t)i * db->c.dim, q->bin + (size_t)i * cb, db->c.dim, &s);
	}
}

static inline void t_queries_free(struct t_query *q)
{
	free(q->bin);
	free(q->i8);
}

struct t_res {
	struct isp_wire_result_hdr hdr;
	struct isp_wire_reis_result rr;
	struct isp_wire_reis_hit *hits;
	uint8_t *blob;
	uint64_t len;
	uint64_t read_ns;	/* modeled time of the RESULT_READs */
	uint64_t search_ns;	/* of the search command */
	uint64_t search_pj;
};

static inline void t_res_free(struct t_res *r)
{
	free(r->blob);
	memset(r, 0, sizeof(*r));
}

/* Read ticket @ticket's whole result (and release it). */
static inline uint16_t t_read_result(struct isp_dev *dev, uint32_t ticket, struct t_res *r)
{
	uint8_t first[4096];
	struct isp_cpl cpl;
	struct isp_cmd c = t_mk(ISP_OP_RESULT_READ, sizeof(first));
	uint64_t off;
	uint16_t st;

	c.cdw12 = ticket;
	st = t_run(dev, &c, first, sizeof(first), &cpl);
	if (st)
		return st;
	r->read_ns += cpl.model_ns;
	memcpy(&r->hdr, first, sizeof(r->hdr));
	REQUIRE(r->hdr.total_bytes >= sizeof(r->hdr) + sizeof(r->rr));
	r->len = r->hdr.total_bytes;
	r->blob = malloc(r->len);
	REQUIRE(r->blob);
	memcpy(r->blob, first, r->len < sizeof(first) ? r->len : sizeof(first));
	for (off = sizeof(first); off < r->len; off += T_MAX_XFER) {
		uint32_t n = (uint32_t)(r->len - off < T_MAX_XFER ? r->len - off : T_MAX_XFER);

		c = t_mk(ISP_OP_RESULT_READ, n);
		c.cdw12 = ticket;
		c.cdw14 = (uint32_t)off;
		c.cdw15 = (uint32_t)(off >> 32);
		st = t_run(dev, &c, r->blob + off, n, &cpl);
		if (st)
			return st;
		r->read_ns += cpl.model_ns;
	}
	memcpy(&r->rr, r->blob + sizeof(r->hdr), sizeof(r->rr));
	r->hits = (struct isp_wire_reis_hit *)(void *)(r->blob + sizeof(r->hdr) + sizeof(r->rr));
	st = t_nodata(dev, ISP_OP_RESULT_RELEASE, ticket);
	return st;
}

struct t_sopts {
	uint32_t did, k, flags, factor, thr, nprobe, target, tag;
	uint64_t t_min, t_max;
};

static uint32_t t_ticket = 100;

/* The SEARCH / IVF_SEARCH data of @q under @o (malloc'd, *@len bytes). */
static inline uint8_t *t_search_data(const struct t_sopts *o, const struct t_query *q,
				     size_t *len)
{
	struct isp_wire_reis_search s;
	uint32_t cb = q->dim / 8, rerank = !(o->flags & ISP_REIS_SF_NO_RERANK);
	uint8_t *buf;

	*len = sizeof(s) + (size_t)q->nq * (cb + (rerank ? q->dim : 0));
	buf = calloc(1, *len);
	REQUIRE(buf);
	memset(&s, 0, sizeof(s));
	s.did = o->did;
	s.nq = q->nq;
	s.k = o->k;
	s.flags = o->flags;
	s.rerank_factor = o->factor;
	s.df_threshold = o->thr;
	s.nprobe = o->nprobe;
	s.target_recall = o->target;
	s.tag = o->tag;
	s.dim = q->dim;
	s.t_min = o->t_min;
	s.t_max = o->t_max;
	memcpy(buf, &s, sizeof(s));
	memcpy(buf + sizeof(s), q->bin, (size_t)q->nq * cb);
	if (rerank)
		memcpy(buf + sizeof(s) + (size_t)q->nq * cb, q->i8, (size_t)q->nq * q->dim);
	return buf;
}

/* SEARCH / IVF_SEARCH under result ticket @ticket, then read the result. */
static inline uint16_t t_search_ticket(struct isp_dev *dev, int ivf, const struct t_sopts *o,
				       const struct t_query *q, uint32_t ticket,
				       struct t_res *r)
{
	size_t len;
	uint8_t *buf = t_search_data(o, q, &len);
	struct isp_cpl cpl;
	struct isp_cmd c;
	uint16_t st;

	memset(r, 0, sizeof(*r));
	c = t_mk(ivf ? ISP_OP_REIS_IVF_SEARCH : ISP_OP_REIS_SEARCH, (uint32_t)len);
	c.cdw12 = ticket;
	st = t_run(dev, &c, buf, len, &cpl);
	free(buf);
	if (st)
		return st;
	r->search_ns = cpl.model_ns;
	r->search_pj = cpl.energy_pj;
	return t_read_result(dev, ticket, r);
}

/* The same with the next ticket of the test's own sequence. */
static inline uint16_t t_search(struct isp_dev *dev, int ivf, const struct t_sopts *o,
				const struct t_query *q, struct t_res *r)
{
	return t_search_ticket(dev, ivf, o, q,
			       __atomic_add_fetch(&t_ticket, 1, __ATOMIC_RELAXED), r);
}

/* ---- the reference (command-set.md section 4) ---- */

struct t_ref_hit {
	uint64_t id;
	uint32_t did, ham;
	int64_t score;
	uint64_t idx;
	const struct t_db *db;
	uint32_t metric;
};

static inline uint32_t t_ham(const uint8_t *a, const uint8_t *b, uint32_t dim)
{
	uint32_t d = 0, i;

	for (i = 0; i < dim; i++)
		d += (uint32_t)(t_bit(a, i) != t_bit(b, i));
	return d;
}

static inline int t_ref_cmp_hd(const void *a, const void *b)
{
	const struct t_ref_hit *x = a, *y = b;

	if (x->ham != y->ham)
		return x->ham < y->ham ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static inline int t_ref_cmp_final(const void *a, const void *b)
{
	const struct t_ref_hit *x = a, *y = b;

	if (x->score != y->score) {
		if (x->metric == ISP_REIS_IP)
			return x->score > y->score ? -1 : 1;
		return x->score < y->score ? -1 : 1;
	}
	if (x->ham != y->ham)
		return x->ham < y->ham ? -1 : 1;
	if (x->did != y->did)
		return x->did < y->did ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Reference for one query on one database; returns the hits (<= k) in @out. */
static inline uint32_t t_ref_db(const struct t_db *db, int ivf, const struct t_sopts *o,
				const uint8_t *qb, const int8_t *q8, int df_dev,
				struct t_ref_hit *out)
{
	const struct isp_wire_reis_create *c = &db->c;
	uint32_t cb = c->dim / 8, k = o->k, thr = o->thr ? o->thr : c->df_threshold;
	int rerank = !(o->flags & ISP_REIS_SF_NO_RERANK);
	int df = df_dev && !(o->flags & ISP_REIS_SF_NO_DF) && thr;
	uint64_t cand = rerank ? (uint64_t)(o->factor ? o->factor : 10) * k : k, e, m = 0, i;
	uint8_t *inprobe = calloc(c->n, 1);
	struct t_ref_hit *all = calloc(c->n, sizeof(*all));

	REQUIRE(inprobe && all);
	if (cand > c->n)
		cand = c->n;
	if (ivf) {
		struct t_ref_hit *cl = calloc(c->nlist, sizeof(*cl));
		uint32_t np = o->nprobe, j;
		uint64_t first = 0;

		REQUIRE(cl);
		if (!np) {
			np = db->calib[c->ncalib - 1].nprobe;
			for (j = 0; j < c->ncalib; j++)
				if (db->calib[j].recall >= o->target) {
					np = db->calib[j].nprobe;
					break;
				}
		}
		if (np > c->nlist)
			np = c->nlist;
		for (j = 0; j < c->nlist; j++) {
			cl[j].ham = t_ham(qb, db->cent + (size_t)j * cb, c->dim);
			cl[j].idx = j;
		}
		qsort(cl, c->nlist, sizeof(*cl), t_ref_cmp_hd);
		for (j = 0; j < c->nlist; j++) {
			uint32_t a;
			int probed = 0;

			for (a = 0; a < np; a++)
				probed |= cl[a].idx == j;
			for (e = first; e < first + db->csize[j]; e++)
				inprobe[e] = (uint8_t)probed;
			first += db->csize[j];
		}
		free(cl);
	} else {
		memset(inprobe, 1, c->n);
	}
	for (e = 0; e < c->n; e++) {
		uint32_t h;

		if (!inprobe[e])
			continue;
		if ((o->flags & ISP_REIS_SF_TAG) && db->tags[e] != o->tag)
			continue;
		h = t_ham(qb, db->bin + e * cb, c->dim);
		if (df && h >= thr)
			continue;
		all[m].ham = h;
		all[m].idx = e;
		all[m].did = c->did;
		all[m].db = db;
		all[m].metric = c->metric;
		m++;
	}
	qsort(all, m, sizeof(*all), t_ref_cmp_hd);
	if (m > cand)
		m = cand;
	for (i = 0; i < m; i++) {
		all[i].score = 0;
		if (rerank) {
			const int8_t *x = db->i8 + all[i].idx * c->dim;
			uint32_t d;

			for (d = 0; d < c->dim; d++) {
				if (c->metric == ISP_REIS_IP)
					all[i].score += (int64_t)q8[d] * x[d];
				else
					all[i].score += (int64_t)(q8[d] - x[d]) * (q8[d] - x[d]);
			}
		}
		all[i].id = db->ids ? db->ids[all[i].idx] : all[i].idx;
	}
	if (rerank)
		qsort(all, m, sizeof(*all), t_ref_cmp_final);
	if (m > k)
		m = k;
	memcpy(out, all, m * sizeof(*all));
	free(all);
	free(inprobe);
	return (uint32_t)m;
}

/* Compare the drive's result of query @qi to the reference over @dbs. */
static inline int t_check_query(const struct t_res *r, uint32_t qi, const struct t_db *const *dbs,
				uint32_t ndbs, int ivf, const struct t_sopts *o, const struct t_query *q,
				int df_dev, int check_docs)
{
	struct t_ref_hit *ref = calloc((size_t)ndbs * o->k, sizeof(*ref));
	uint32_t n = 0, i, bad = 0;

	REQUIRE(ref);
	for (i = 0; i < ndbs; i++)
		n += t_ref_db(dbs[i], ivf, o, q->bin + (size_t)qi * (q->dim / 8),
			      q->i8 + (size_t)qi * q->dim, df_dev, ref + n);
	qsort(ref, n, sizeof(*ref), t_ref_cmp_final);
	if (n > o->k)
		n = o->k;
	for (i = 0; i < o->k; i++) {
		const struct isp_wire_reis_hit *h = &r->hits[(size_t)qi * o->k + i];

		if (i >= n) {
			if (h->id != ISP_REIS_HIT_NONE || h->entry)
				bad++;
			continue;
		}
		/* entry: the index in its database whatever the caller ids. */
		if (h->id != ref[i].id || h->did != ref[i].did || h->hamming != ref[i].ham ||
		    h->score != ref[i].score || h->entry != ref[i].idx) {
			if (!bad)
				fprintf(stderr, "q%u hit %u: drive id %llu entry %u did %u ham %u "
					"score %lld; ref id %llu entry %llu did %u ham %u score "
					"%lld\n", qi, i, (unsigned long long)h->id, h->entry, h->did,
					h->hamming, (long long)h->score,
					(unsigned long long)ref[i].id,
					(unsigned long long)ref[i].idx, ref[i].did, ref[i].ham,
					(long long)ref[i].score);
			bad++;
			continue;
		}
		if (check_docs && ref[i].db->c.doc_mode) {
			uint32_t len = t_doc_len(ref[i].db, ref[i].idx);

			if (h->doc_len != len || h->doc_off + len > r->len ||
			    memcmp(r->blob + h->doc_off, ref[i].db->docs + ref[i].db->doff[ref[i].idx],
				   len)) {
				fprintf(stderr, "q%u hit %u: document differs\n", qi, i);
				bad++;
			}
		}
	}
	free(ref);
	return bad == 0;
}

#endif /* TESTS_REIS_T_H */
