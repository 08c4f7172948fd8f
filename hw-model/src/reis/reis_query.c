/* SPDX-License-Identifier: MIT */
/*
 * reis_query.c - SEARCH and IVF_SEARCH (docs/command-set.md section 4;
 * REIS §4.3, §7.1): the command's checks, one query's steps on each
 * database (scan, filter, select, rank, identify) and the result.
 */

/*
 * A search really computes on the stored pages: every binary page of the
 * searched range is read back with fs_read() (codes and OOB), Hamming
 * distances come from XOR + popcount against the query, the tag and the
 * distance filter decide what "crosses the channel", RADR and DADR come
 * from the OOB, INT8 codes are read through RADR for the rerank, documents
 * through DADR. The modeled time is charged per page with the counts of
 * that page (reis_cost.c), never per entry.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "isp_budget.h"
#include "reis_int.h"

static void re_unref(struct re_eng *e, struct re_db **dbs, uint32_t n)
{
	uint32_t i;

	pthread_mutex_lock(&e->lock);
	for (i = 0; i < n; i++)
		dbs[i]->refs--;
	pthread_mutex_unlock(&e->lock);
}

static int re_db_did_cmp(const void *a, const void *b)
{
	uint32_t x = (*(struct re_db *const *)a)->c.did, y = (*(struct re_db *const *)b)->c.did;

	return x < y ? -1 : x > y;
}

/* Look up the database or the group's partitions and take references. */
static uint16_t re_acquire(struct re_eng *e, const struct isp_wire_reis_search *s,
			   struct re_db **dbs, uint32_t *ndbs, const char **why)
{
	uint32_t i, n = 0;
	uint16_t st = 0;

	pthread_mutex_lock(&e->lock);
	if (s->flags & ISP_REIS_SF_GROUP) {
		/* REIS 7.1: every READY partition of the group whose timestamp
		 * lies in [t_min, t_max]. */
		for (i = 0; i < e->ndb; i++) {
			struct re_db *db = e->db[i];

			if (s->did && db->c.group == s->did && db->state == RE_READY &&
			    db->c.timestamp >= s->t_min && db->c.timestamp <= s->t_max)
				dbs[n++] = db;
		}
		if (!n) {
			st = ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR;
			*why = "no READY partition of the group in [t_min, t_max]";
		}
	} else {
		struct re_db *db;

		st = re_find_ready(e, s->did, &db, why);
		if (!st)
			dbs[n++] = db;
	}
	for (i = 0; i < n && !st; i++)
		dbs[i]->refs++;
	pthread_mutex_unlock(&e->lock);
	if (!st)
		qsort(dbs, n, sizeof(dbs[0]), re_db_did_cmp);
	*ndbs = st ? 0 : n;
	return st;
}

/* Where a field of the search header is, for isp_err_at(). */
#define RE_AT(f) ISP_ERR_IN_DATA, (unsigned)offsetof(struct isp_wire_reis_search, f), 0

/* Checks of the request against the databases (immutable fields). */
static uint16_t re_check_dbs(const struct re_run *r, const struct isp_wire_reis_search *s,
			     struct re_db **dbs, uint32_t ndbs, size_t len, const char **why,
			     struct isp_cpl *cpl)
{
	uint64_t total = 0, need;
	uint32_t i;

	for (i = 0; i < ndbs; i++) {
		const struct re_db *db = dbs[i];

		if (s->dim != db->c.dim) {
			*why = "query dimension differs from the database's";
			isp_err_at(cpl, RE_AT(dim), "query dimension %u differs from database "
				   "%u's %u", s->dim, db->c.did, db->c.dim);
			return ISP_SC_DIM_MISMATCH | ISP_STATUS_DNR;
		}
		if (r->ivf && db->c.kind != ISP_REIS_IVF) {
			*why = "IVF_SEARCH on a brute-force database";
			isp_err_at(cpl, ISP_ERR_IN_SQE, 0, 0, "IVF_SEARCH on database %u, which is "
				   "brute force (no clusters): use SEARCH", db->c.did);
			return ISP_BAD_FIELD;
		}
		if (r->rerank && !(db->c.flags & ISP_REIS_DBF_INT8)) {
			*why = "rerank asked but the database has no INT8 codes";
			isp_err_at(cpl, ISP_ERR_IN_DATA, offsetof(struct isp_wire_reis_search,
				   flags), 3, "rerank asked but database %u has no INT8 codes "
				   "(set SF_NO_RERANK)", db->c.did);
			return ISP_BAD_FIELD;
		}
		if (r->tag && !(db->c.flags & ISP_REIS_DBF_TAGS)) {
			*why = "SF_TAG on a database without tags";
			isp_err_at(cpl, ISP_ERR_IN_DATA, offsetof(struct isp_wire_reis_search,
				   flags), 4, "tag %u asked but database %u has no tags",
				   s->tag, db->c.did);
			return ISP_BAD_FIELD;
		}
		if (r->ivf && !r->nprobe && !db->c.ncalib) {
			*why = "nprobe 0 and no calibration table";
			isp_err_at(cpl, RE_AT(nprobe), "nprobe = 0 needs a calibration table and "
				   "database %u has none: give nprobe 1..%u", db->c.did, db->c.nlist);
			return ISP_BAD_FIELD;
		}
		if (db->c.metric != dbs[0]->c.metric) {
			*why = "group partitions use different metrics";
			return ISP_BAD_FIELD;
		}
		if (r->thr > db->c.dim) {
			*why = "DF threshold larger than the dimension";
			isp_err_at(cpl, RE_AT(df_threshold), "df_threshold = %u exceeds database "
				   "%u's dimension %u", r->thr, db->c.did, db->c.dim);
			return ISP_BAD_FIELD;
		}
		total += db->c.n;
	}
	if (r->k > total) {
		*why = "k larger than the database";
		isp_err_at(cpl, RE_AT(k), "k = %u exceeds the %s's %llu entr%s", r->k,
			   ndbs > 1 || (s->flags & ISP_REIS_SF_GROUP) ? "group" : "database",
			   (unsigned long long)total, total == 1 ? "y" : "ies");
		return ISP_BAD_FIELD;
	}
	need = sizeof(*s) + (uint64_t)s->nq * (s->dim / 8 + (r->rerank ? s->dim : 0));
	if (len != need) {
		*why = "transfer length differs from header + queries";
		isp_err_at(cpl, ISP_ERR_IN_SQE, ISP_SQE_CDW(10), 0, "transfer of %zu bytes "
			   "differs from header + %u queries = %llu bytes", len, s->nq,
			   (unsigned long long)need);
		return ISP_BAD_FIELD;
	}
	return 0;
}

/* Field checks of the command and its search header; the reason, or NULL. */
static const char *re_search_parse(const struct isp_cmd *cmd, const void *data, size_t len,
				   int ivf, struct isp_wire_reis_search *s, struct isp_cpl *cpl)
{
	if (!cmd->cdw12) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, ISP_SQE_CDW(12), 0, "ticket (CDW12) = 0: "
			   "1..4294967295 allowed");
		return "ticket 0";
	}
	if (cmd->cdw13 || cmd->cdw14 || cmd->cdw15) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, cmd->cdw13 ? ISP_SQE_CDW(13) : cmd->cdw14 ?
			   ISP_SQE_CDW(14) : ISP_SQE_CDW(15), 0, "reserved CDW13..15 must be 0");
		return "reserved field set";
	}
	if (len < sizeof(*s)) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, ISP_SQE_CDW(10), 0, "transfer of %zu bytes is "
			   "shorter than the %zu-byte search header", len, sizeof(*s));
		return "transfer shorter than the search header";
	}
	memcpy(s, data, sizeof(*s));
	if (!isp_all_zero(s->rsvd, sizeof(s->rsvd))) {
		isp_err_at(cpl, RE_AT(rsvd), "reserved bytes 56..71 of the header must be 0");
		return "reserved field set";
	}
	if (s->flags & ~ISP_REIS_SF_ALL) {
		unsigned b = (unsigned)__builtin_ctz(s->flags & ~ISP_REIS_SF_ALL);

		isp_err_at(cpl, ISP_ERR_IN_DATA, offsetof(struct isp_wire_reis_search, flags) +
			   b / 8, b % 8, "unknown search flag bit %u (flags 0x%x allowed)", b,
			   ISP_REIS_SF_ALL);
		return "unknown search flags";
	}
	if (!s->nq || s->nq > ISP_REIS_MAX_NQ) {
		isp_err_at(cpl, RE_AT(nq), "nq = %u: 1..%u allowed", s->nq, ISP_REIS_MAX_NQ);
		return "nq out of range";
	}
	if (!s->k || s->k > ISP_REIS_MAX_K) {
		isp_err_at(cpl, RE_AT(k), "k = %u: 1..%u allowed", s->k, ISP_REIS_MAX_K);
		return "k out of range";
	}
	if (s->rerank_factor > ISP_REIS_MAX_RERANK) {
		isp_err_at(cpl, RE_AT(rerank_factor), "rerank factor = %u: 0..%u allowed",
			   s->rerank_factor, ISP_REIS_MAX_RERANK);
		return "rerank factor out of range";
	}
	if ((s->flags & ISP_REIS_SF_RERANK_ALL) && (s->flags & ISP_REIS_SF_NO_RERANK)) {
		isp_err_at(cpl, ISP_ERR_IN_DATA, offsetof(struct isp_wire_reis_search, flags), 7,
			   "RERANK_ALL (bit 7) reranks and NO_RERANK (bit 3) does not: not both");
		return "RERANK_ALL with NO_RERANK";
	}
	if (ivf && !s->nprobe && s->target_recall > 10000) {
		isp_err_at(cpl, RE_AT(target_recall), "target recall = %u/10000 exceeds 1.0",
			   s->target_recall);
		return "target recall above 1.0";
	}
	if ((s->flags & ISP_REIS_SF_GROUP) && s->t_min > s->t_max) {
		isp_err_at(cpl, RE_AT(t_min), "t_min = %llu is after t_max = %llu",
			   (unsigned long long)s->t_min, (unsigned long long)s->t_max);
		return "t_min after t_max";
	}
	return NULL;
}

/* The search's switches: the device's optimizations unless a flag turns
 * one off (REIS §6.3: DF, PL, MPIBC). */
static void re_run_setup(struct re_run *r, struct re_eng *e, struct isp_ctx *ctx,
			 const struct isp_wire_reis_search *s, int ivf)
{
	r->e = e;
	r->scan = e->scan;
	r->ctx = ctx;
	r->ivf = ivf;
	r->flags = s->flags;
	r->k = s->k;
	r->factor = s->rerank_factor ? s->rerank_factor : RE_DEF_FACTOR;
	r->rerank = !(s->flags & ISP_REIS_SF_NO_RERANK);
	r->tag = (s->flags & ISP_REIS_SF_TAG) != 0;
	r->qtag = s->tag;
	r->nprobe = s->nprobe;
	r->target = s->target_recall;
	r->thr = s->df_threshold;
	r->maxd = s->dim;
	r->df_dev = e->p->reis_df && !(s->flags & ISP_REIS_SF_NO_DF);
	r->mpibc = e->p->reis_mpibc && !(s->flags & ISP_REIS_SF_NO_MPIBC);
}

/* The ticket's result slot at its largest: refuse a duplicate before any
 * work (docs/command-set.md section 6). */
static uint16_t re_ticket_reserve(struct isp_results *res, uint32_t ticket, uint32_t user,
				  const struct isp_wire_reis_search *s, struct re_db **dbs,
				  uint32_t ndbs, const char **why)
{
	uint64_t bound, hits_bytes = (uint64_t)s->nq * s->k * sizeof(struct isp_wire_reis_hit);
	uint32_t i, maxchunk = 0;
	int ret;

	for (i = 0; i < ndbs; i++)
		if (dbs[i]->L.chunk_bytes > maxchunk)
			maxchunk = dbs[i]->L.chunk_bytes;
	bound = sizeof(struct isp_wire_result_hdr) + sizeof(struct isp_wire_reis_result) +
		hits_bytes + ((s->flags & ISP_REIS_SF_DOCS) ? (uint64_t)s->nq * s->k * maxchunk : 0);
	if (bound > res->max_bytes) {
		*why = "result would exceed max_result_bytes";
		return ISP_BAD_FIELD;
	}
	ret = isp_results_reserve(res, ticket, bound, user);
	if (ret == -EEXIST) {
		*why = "ticket in use";
		return ISP_SC_TICKET_IN_USE | ISP_STATUS_DNR;
	}
	if (ret) {
		*why = ret == -EAGAIN ? "the queue holds its share of the result table; retry" :
					"result table full";
		return ISP_SC_RESOURCE;
	}
	return 0;
}

/*
 * TTL-E / TTL-C in controller DRAM for the search (REIS §4.2.1), *@ttl
 * bytes; the run's buffers (reis_run.c) and the hit arrays.
 */
static uint16_t re_search_buffers(struct re_run *r, const struct isp_wire_reis_search *s,
				  struct re_db **dbs, uint32_t ndbs, uint64_t *ttl,
				  struct re_exec **x, struct re_hitx **hits, const char **why)
{
	uint16_t st;

	*ttl = re_ttl_bytes(r, dbs, ndbs);
	if (*ttl > fs_dram_budget(r->e->fs)) {
		/* never fits, not a retry: RERANK_ALL over a database this large */
		*ttl = 0;
		*why = "TTL larger than the controller DRAM";
		return ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR;
	}
	if (fs_dram_reserve(r->e->fs, RE_DRAM_TTL, *ttl)) {
		*ttl = 0;
		*why = "controller DRAM full (TTL)";
		return ISP_SC_RESOURCE;
	}
	st = re_run_prepare(r, s, dbs, ndbs, x, why);
	if (st)
		return st;
	*why = "out of memory";
	*hits = calloc((size_t)s->nq * s->k, sizeof(**hits));
	return *hits ? 0 : ISP_SC_INTERNAL;
}

/* The result: header, hits, then the documents (docs/command-set.md
 * section 4); NULL when out of memory or a document read fails (*@why). */
static uint8_t *re_result_build(const struct re_run *r, const struct isp_wire_reis_search *s,
				uint32_t ticket, uint32_t ndbs, const struct re_hitx *hits,
				const struct re_docs_cost *dc, uint64_t blob_len,
				uint64_t docs_bytes, const char **why)
{
	struct isp_ctx *ctx = r->ctx;
	struct isp_wire_result_hdr rh;
	struct isp_wire_reis_result rr;
	uint8_t *blob = malloc(blob_len + docs_bytes), *hp;
	uint32_t i, nd = 0;

	if (!blob) {
		*why = "out of memory";
		return NULL;
	}
	hp = blob + sizeof(rh) + sizeof(rr);
	for (i = 0; i < s->nq * s->k; i++) {
		struct isp_wire_reis_hit wh;

		memset(&wh, 0, sizeof(wh));
		if (!hits[i].db) {
			wh.id = ISP_REIS_HIT_NONE;
		} else {
			wh.id = hits[i].id;
			wh.entry = (uint32_t)hits[i].key;	/* DOC_READ's index */
			wh.did = hits[i].db->c.did;
			wh.hamming = (uint32_t)(hits[i].key >> 32);
			wh.score = hits[i].score;
			if (dc && hits[i].dadr != RE_ADDR_NONE &&
			    re_doc_fill(r->e, dc, &hits[i], &nd, blob, &wh)) {
				free(blob);
				*why = "flash read failed";
				return NULL;
			}
		}
		memcpy(hp + (size_t)i * sizeof(wh), &wh, sizeof(wh));
	}
	memset(&rr, 0, sizeof(rr));
	rr.nq = s->nq;
	rr.k = s->k;
	rr.flags = s->flags;
	rr.ndbs = ndbs;
	rr.pages_read = r->c.pages;
	rr.entries_compared = r->c.compared;
	rr.entries_passed = r->c.passed;
	rr.reranked = r->reranked;
	rr.nprobe = r->nprobe_used;
	rr.docs_bytes = docs_bytes;
	memset(&rh, 0, sizeof(rh));
	memcpy(rh.magic, "RSLT", 4);
	rh.kind = ISP_RESULT_SEARCH;
	rh.total_bytes = blob_len + docs_bytes;
	rh.ticket = ticket;
	rh.hdr_bytes = sizeof(rr);
	rh.model_ns = (ctx->ftc.end - ctx->ftc.start + FT_PS_PER_NS - 1) / FT_PS_PER_NS;
	rh.energy_pj = ctx->ftc.energy_pj;
	memcpy(blob, &rh, sizeof(rh));
	memcpy(blob + sizeof(rh), &rr, sizeof(rr));
	return blob;
}

/* Locate the documents now (DADR; they move when read) and build the
 * result, *@len bytes; NULL with the reason in *@why. */
static uint8_t *re_search_output(const struct re_run *r, const struct isp_wire_reis_search *s,
				 uint32_t ticket, uint32_t ndbs, const struct re_hitx *hits,
				 uint64_t hits_bytes, struct re_docs_cost **dc, uint64_t *len,
				 const char **why)
{
	uint64_t blob_len = sizeof(struct isp_wire_result_hdr) +
			    sizeof(struct isp_wire_reis_result) + hits_bytes, docs_bytes = 0;
	int ret;

	if (s->flags & ISP_REIS_SF_DOCS) {
		ret = re_docs_plan(r->e, hits, s->nq * s->k, blob_len, dc, &docs_bytes);
		if (ret) {
			*why = ret == -ENOMEM ? "out of memory" :
			       "flash data of the database is corrupt";
			return NULL;
		}
	}
	*len = blob_len + docs_bytes;
	return re_result_build(r, s, ticket, ndbs, hits, *dc, blob_len, docs_bytes, why);
}

/* Counters of the finished search; drops the databases' references. */
static void re_search_account(struct re_eng *e, const struct re_run *r, uint32_t nq,
			      struct re_db **dbs, uint32_t ndbs)
{
	uint32_t i;

	pthread_mutex_lock(&e->lock);
	e->st_searches += nq;
	e->st_filtered += r->c.compared - r->c.passed;	/* DF in both phases (A26) */
	e->st_ttl += r->c.passed;
	for (i = 0; i < ndbs; i++) {
		dbs[i]->searches += nq;
		dbs[i]->refs--;
	}
	pthread_mutex_unlock(&e->lock);
}

uint16_t re_cmd_search(struct re_eng *e, struct isp_ctx *ctx, const struct isp_cmd *cmd,
		       void *data, size_t len, struct isp_cpl *cpl, int ivf)
{
	struct isp_wire_reis_search s;
	struct isp_results *res = isp_ctx_results(ctx);
	struct re_db *dbs[RE_MAX_DBS];
	struct re_hitx *hits = NULL;
	struct re_docs_cost *dc = NULL;
	struct re_exec *x = NULL;
	struct re_run r;
	const char *why = NULL;
	uint32_t ndbs = 0, ticket = cmd->cdw12;
	uint64_t t, tq, end, ttl = 0, blob_len, hits_bytes;
	uint8_t *blob = NULL;
	uint16_t st;
	int ret = 0, reserved = 0;

	memset(&r, 0, sizeof(r));
	why = re_search_parse(cmd, data, len, ivf, &s, cpl);
	if (why)
		return isp_fail(cpl, ISP_BAD_FIELD, why);
	re_run_setup(&r, e, ctx, &s, ivf);

	t = isp_link_xfer(ctx, len, 0, ctx->ready);
	tq = ft_dram(e->ft, &ctx->ftc, len, t);	/* the queries land in DRAM */

	st = re_acquire(e, &s, dbs, &ndbs, &why);
	if (st) {
		if ((st & 0xff) == (ISP_SC_UNKNOWN_ID & 0xff) && !(s.flags & ISP_REIS_SF_GROUP))
			isp_err_at(cpl, RE_AT(did), "database %u does not exist", s.did);
		else
			isp_err_at(cpl, RE_AT(did), "%s %u: %s", s.flags & ISP_REIS_SF_GROUP ?
				   "group" : "database", s.did, why);
		return isp_fail(cpl, st, why);
	}
	st = re_check_dbs(&r, &s, dbs, ndbs, len, &why, cpl);
	if (st)
		goto fail;
	st = re_ticket_reserve(res, ticket, r.ctx->user, &s, dbs, ndbs, &why);
	if (st)
		goto fail;
	reserved = 1;

	st = re_search_buffers(&r, &s, dbs, ndbs, &ttl, &x, &hits, &why);
	if (st)
		goto fail;
	st = ISP_SC_INTERNAL;	/* what can still fail is ours */

	re_cost_init(&r.c, e->ft, &ctx->ftc, e->p->reis_pl && !(s.flags & ISP_REIS_SF_NO_PL));
	ret = re_run_exec(x, data, tq, hits, &end);
	if (ret == -ECANCELED) {
		st = isp_status_from_errno(ret);
		why = "stopped by the transport (reset, queue deletion or Abort)";
		goto fail;
	}
	if (ret) {
		why = ret == -ENOMEM ? "out of memory" : "flash data of the database is corrupt";
		goto fail;
	}
	hits_bytes = (uint64_t)s.nq * s.k * sizeof(struct isp_wire_reis_hit);
	ft_dram(e->ft, &ctx->ftc, sizeof(struct isp_wire_reis_result) + hits_bytes, end);
	blob = re_search_output(&r, &s, ticket, ndbs, hits, hits_bytes, &dc, &blob_len, &why);
	if (!blob)
		goto fail;
	re_search_account(e, &r, s.nq, dbs, ndbs);
	ndbs = 0;
	fs_dram_release(e->fs, RE_DRAM_TTL, ttl);
	ret = isp_results_publish(res, ticket, blob, blob_len,
				  dc ? re_docs_charge : NULL, dc, dc ? re_docs_cost_free : NULL);
	re_run_free(&r, x);
	free(hits);
	if (ret)
		return isp_fail(cpl, ISP_SC_INTERNAL, "result publish failed");
	return 0;

fail:
	if (ndbs)
		re_unref(e, dbs, ndbs);
	if (ttl)
		fs_dram_release(e->fs, RE_DRAM_TTL, ttl);
	if (reserved)
		isp_results_cancel(res, ticket);
	re_docs_cost_free(dc);
	free(blob);
	free(hits);
	re_run_free(&r, x);
	return isp_fail(cpl, st, why);
}
