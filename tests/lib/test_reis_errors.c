/* SPDX-License-Identifier: MIT */
/*
 * test_reis_errors - every error of docs/command-set.md §4 and §6 reaches
 * the caller of libreis as the documented -errno with the drive's NVMe
 * status (and DNR) in reis_last_cpl() and a sentence in reis_last_error();
 * what libreis can see is wrong never reaches the drive; a failed deploy
 * leaves nothing behind and never harms a database already there.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "libreis_tools.h"
#include "reis_synth.h"

#define DIM 128
#define N 1500

static struct reis_dev *dev;

/* @ret must be @err with drive status @sc (0: refused by libreis). */
static void expect(int line, int ret, int err, uint16_t sc, int dnr)
{
	const struct reis_cpl *c = reis_last_cpl(dev);

	if (ret != err || (c->status & REIS_STATUS_CODE_MASK) != sc ||
	    (sc && !!(c->status & REIS_STATUS_DNR) != dnr) || (err && !reis_last_error(dev)[0])) {
		fprintf(stderr, "line %d: got %d status 0x%04x (%s), want %d status 0x%04x%s\n",
			line, ret, c->status, reis_last_error(dev), err, sc, dnr ? " DNR" : "");
		t_failures++;
	}
}
#define EXPECT(ret, err, sc, dnr) expect(__LINE__, (ret), (err), (sc), (dnr))

static void build(struct reis_db_image *img, const float *x, uint32_t did, uint32_t kind,
		  uint32_t flags, const uint8_t *docs, const uint64_t *off, const uint32_t *tags)
{
	struct reis_build_opts o;
	char err[256];

	memset(&o, 0, sizeof(o));
	o.did = did;
	o.kind = kind;
	o.flags = flags;
	o.docs = docs;
	o.doc_offsets = off;
	o.tags = tags;
	o.nlist = kind == REIS_DB_IVF ? 10 : 0;
	o.km.max_iter = 4;
	REQUIRE(reis_db_build(&o, x, N, DIM, img, err, sizeof(err)) == 0);
}

struct searcher {
	struct reis_dev *dev;
	const struct reis_queries *q;
	int stop;
	unsigned ok, gone, other;
};

static void *search_loop(void *arg)
{
	struct searcher *s = arg;
	struct reis_search_opts o;
	struct reis_search_result r;

	memset(&o, 0, sizeof(o));
	o.did = 9;
	o.k = 10;
	while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
		int ret = reis_search(s->dev, &o, s->q, &r);

		if (!ret) {
			__atomic_add_fetch(&s->ok, 1, __ATOMIC_RELAXED);
			reis_search_result_free(&r);
		} else if (ret == -ENOENT) {
			s->gone++;
			break;
		} else {
			s->other++;
		}
	}
	return NULL;
}

int main(void)
{
	float *x = synth_vectors(31, N, DIM, 10, 0.5f), *qf = synth_vectors(32, 8, DIM, 10, 0.5f);
	uint64_t *off, *boff;
	uint8_t *docs = synth_docs(33, N, 200, &off), *big;
	struct reis_db_image bf, ivf, plain, h;
	struct reis_search_opts so;
	struct reis_search_result r;
	struct reis_queries q, q64;
	struct reis_inproc_opts io;
	struct reis_db_info info;
	struct reis_cmd cmd;
	uint8_t buf[4096], payload[72 + 16 + 128];
	uint32_t tags[N], i, ticket;
	char err[256];
	int ret;

	REQUIRE(x && qf && docs);
	for (i = 0; i < N; i++)
		tags[i] = i % 3;
	memset(&io, 0, sizeof(io));
	io.errbuf = err;
	io.errlen = sizeof(err);
	REQUIRE(reis_open_inproc(&io, &dev) == 0);
	build(&bf, x, 9, REIS_DB_BF, REIS_BUILD_INT8, docs, off, tags);
	build(&ivf, x, 10, REIS_DB_IVF, REIS_BUILD_INT8 | REIS_BUILD_NO_IDS | REIS_BUILD_NO_CALIB,
	      NULL, NULL, NULL);
	build(&plain, x, 11, REIS_DB_BF, 0, NULL, NULL, NULL);
	REQUIRE(reis_db_deploy(dev, &bf, NULL) == 0);
	REQUIRE(reis_db_deploy(dev, &ivf, NULL) == 0);
	REQUIRE(reis_db_deploy(dev, &plain, NULL) == 0);
	h = plain;
	h.priv = NULL;
	h.did = 12;
	h.n = 500;
	REQUIRE(reis_db_deploy(dev, &h, NULL) == 0);
	reis_db_image_free(&h);
	REQUIRE(reis_encode_queries(bf.quant, qf, 8, &q) == 0);

	/* --- refused by libreis, nothing sent --- */
	memset(&so, 0, sizeof(so));
	so.did = 9;
	so.k = 0;
	EXPECT(reis_search(dev, &so, &q, &r), -EINVAL, 0, 0);
	so.k = REIS_MAX_K + 1;
	EXPECT(reis_search(dev, &so, &q, &r), -EINVAL, 0, 0);
	so.k = 10;
	so.flags = REIS_SF_ALL + 1;
	EXPECT(reis_search(dev, &so, &q, &r), -EINVAL, 0, 0);
	so.flags = 0;
	so.rerank_factor = REIS_MAX_RERANK + 1;
	EXPECT(reis_search(dev, &so, &q, &r), -EINVAL, 0, 0);
	so.rerank_factor = 0;
	{
		struct reis_queries bq = q;

		bq.int8 = NULL;
		EXPECT(reis_search(dev, &so, &bq, &r), -EINVAL, 0, 0);
		bq.dim = 100;
		EXPECT(reis_search(dev, &so, &bq, &r), -EINVAL, 0, 0);
	}
	h = bf;
	h.priv = NULL;
	h.doc_index = NULL;
	h.did = 0;
	EXPECT(reis_db_deploy(dev, &h, NULL), -EINVAL, 0, 0);
	CHECK(strstr(reis_last_error(dev), "id 0") != NULL);
	h.did = 50;
	h.docs_bytes--;
	EXPECT(reis_db_deploy(dev, &h, NULL), -EBADMSG, 0, 0);
	h.docs_bytes++;
	reis_db_image_free(&h);
	CHECK(reis_db_info(dev, 50, &info) == -ENOENT);

	/* --- search errors from the drive --- */
	so.did = 404;
	EXPECT(reis_search(dev, &so, &q, &r), -ENOENT, REIS_SC_UNKNOWN_ID, 1);
	so.did = 12;	/* 500 entries */
	so.k = 501;
	EXPECT(reis_search(dev, &so, &q, &r), -EINVAL, REIS_SC_INVALID_FIELD, 1);
	so.did = 9;
	so.k = 10;
	/* Dimension mismatch: 64-d queries on a 128-d database. */
	{
		float *q64f = synth_vectors(34, 8, 64, 2, 0.5f);
		struct reis_quant qq;

		REQUIRE(q64f && reis_quant_train(&qq, q64f, 8, 64, REIS_METRIC_IP, 0) == 0);
		REQUIRE(reis_encode_queries(&qq, q64f, 8, &q64) == 0);
		EXPECT(reis_search(dev, &so, &q64, &r), -EDOM, REIS_SC_DIM_MISMATCH, 1);
		reis_quant_free(&qq);
		free(q64f);
	}
	EXPECT(reis_ivf_search(dev, &so, &q, &r), -EINVAL, REIS_SC_INVALID_FIELD, 1);
	so.did = 11;	/* no INT8 codes: rerank impossible */
	EXPECT(reis_search(dev, &so, &q, &r), -EINVAL, REIS_SC_INVALID_FIELD, 1);
	so.flags = REIS_SF_NO_RERANK;
	EXPECT(reis_search(dev, &so, &q, &r), 0, 0, 0);
	reis_search_result_free(&r);
	so.flags = REIS_SF_NO_RERANK | REIS_SF_TAG;	/* no tags */
	EXPECT(reis_search(dev, &so, &q, &r), -EINVAL, REIS_SC_INVALID_FIELD, 1);
	so.flags = 0;
	so.did = 9;
	so.df_threshold = DIM + 1;
	EXPECT(reis_search(dev, &so, &q, &r), -EINVAL, REIS_SC_INVALID_FIELD, 1);
	so.df_threshold = 0;
	so.did = 10;	/* IVF without calibration and without nprobe */
	EXPECT(reis_ivf_search(dev, &so, &q, &r), -EINVAL, REIS_SC_INVALID_FIELD, 1);
	so.flags = REIS_SF_GROUP;
	so.did = 5;
	so.t_min = 0;
	so.t_max = 10;
	EXPECT(reis_search(dev, &so, &q, &r), -ENOENT, REIS_SC_UNKNOWN_ID, 1);
	so.flags = 0;

	/* --- deploy errors --- */
	EXPECT(reis_db_deploy(dev, &bf, NULL), -EEXIST, REIS_SC_ID_EXISTS, 1);
	so.did = 9;
	EXPECT(reis_search(dev, &so, &q, &r), 0, 0, 0);	/* still there */
	reis_search_result_free(&r);
	/* Larger than the flash. */
	h = plain;
	h.priv = NULL;
	h.did = 60;
	h.n = UINT32_MAX;
	h.dim = REIS_DB_MAX_DIM;
	EXPECT(reis_db_create(dev, &h), -ENOSPC, REIS_SC_CAP_EXCEEDED, 1);
	/* Out of order, overlapping, past the end, incomplete. */
	h = plain;
	h.priv = NULL;
	h.did = 61;
	EXPECT(reis_db_create(dev, &h), 0, 0, 0);
	EXPECT(reis_db_write(dev, 61, REIS_SEC_BIN, 4096, h.bin, 4096), -ERANGE,
	       REIS_SC_BAD_OFFSET, 1);
	EXPECT(reis_db_write(dev, 61, REIS_SEC_BIN, 0, h.bin, 4096), 0, 0, 0);
	EXPECT(reis_db_write(dev, 61, REIS_SEC_BIN, 0, h.bin, 4096), -ERANGE,
	       REIS_SC_BAD_OFFSET, 1);
	EXPECT(reis_db_write(dev, 61, REIS_SEC_BIN, 4096, h.bin, N * DIM / 8), -ERANGE,
	       REIS_SC_BAD_OFFSET, 1);
	EXPECT(reis_db_write(dev, 61, REIS_SEC_INT8, 0, h.bin, 4096), -EINVAL,
	       REIS_SC_INVALID_FIELD, 1);	/* no such section in this database */
	EXPECT(reis_db_commit(dev, 61), -ENODATA, REIS_SC_INCOMPLETE, 1);
	so.did = 61;
	EXPECT(reis_search(dev, &so, &q, &r), -EBUSY, REIS_SC_BUSY, 1);	/* deploying */
	{
		/* ISP Busy is the database's state: never retried with a ticket. */
		struct reis_search_req sr;

		memset(&sr, 0, sizeof(sr));
		CHECK(reis_search_submit(dev, &sr, REIS_OP_SEARCH, &so, &q, NULL, NULL) == 0);
		CHECK(reis_search_wait(dev, &sr) == -EBUSY);
		CHECK_EQ_U64(sr.retries, 0);
		CHECK_EQ_U64(sr.cpl.status, REIS_SC_BUSY | REIS_STATUS_DNR);
	}
	CHECK(reis_db_info(dev, 61, &info) == 0 && info.state == REIS_DB_DEPLOYING &&
	      info.received[REIS_SEC_BIN] == 4096);
	EXPECT(reis_db_delete(dev, 61), 0, 0, 0);	/* aborts the deploy */
	EXPECT(reis_db_write(dev, 61, REIS_SEC_BIN, 4096, h.bin, 4096), -ENOENT,
	       REIS_SC_UNKNOWN_ID, 1);
	EXPECT(reis_db_commit(dev, 404), -ENOENT, REIS_SC_UNKNOWN_ID, 1);
	EXPECT(reis_db_delete(dev, 404), -ENOENT, REIS_SC_UNKNOWN_ID, 1);
	/* A malformed calibration table reaches the drive: Bad Payload. */
	{
		struct reis_calib bad[2] = { { 5000, 3 }, { 4000, 4 } };

		h = ivf;
		h.priv = NULL;
		h.did = 62;
		h.ncalib = 2;
		h.calib = bad;
		EXPECT(reis_db_create(dev, &h), 0, 0, 0);
		EXPECT(reis_db_write(dev, 62, REIS_SEC_BIN, 0, h.bin, N * DIM / 8), 0, 0, 0);
		EXPECT(reis_db_write(dev, 62, REIS_SEC_INT8, 0, h.int8, N * DIM), 0, 0, 0);
		EXPECT(reis_db_write(dev, 62, REIS_SEC_CENTROIDS, 0, h.centroids,
				     10 * DIM / 8), 0, 0, 0);
		EXPECT(reis_db_write(dev, 62, REIS_SEC_CLUSTERS, 0, h.cluster_sizes, 40), 0, 0, 0);
		EXPECT(reis_db_write(dev, 62, REIS_SEC_CALIB, 0, bad, 16), 0, 0, 0);
		EXPECT(reis_db_commit(dev, 62), -EBADMSG, REIS_SC_BAD_PAYLOAD, 1);
		CHECK(reis_db_delete(dev, 62) == 0);
	}
	/* A document too large for a sub-page: the deploy fails mid-stream,
	 * libreis aborts it, nothing is left, the error is the drive's. */
	big = malloc(N * 5000);
	boff = malloc((N + 1) * sizeof(*boff));
	REQUIRE(big && boff);
	for (i = 0; i <= N; i++)
		boff[i] = (uint64_t)i * 100;
	boff[N] = (uint64_t)(N - 1) * 100 + 5000;
	memset(big, 'x', N * 5000);
	{
		struct reis_build_opts o;

		memset(&o, 0, sizeof(o));
		o.did = 63;
		o.kind = REIS_DB_BF;
		o.docs = big;
		o.doc_offsets = boff;
		o.doc_mode = REIS_DOC_SUBPAGE;
		REQUIRE(reis_db_build(&o, x, N, DIM, &h, err, sizeof(err)) == 0);
		ret = reis_db_deploy(dev, &h, NULL);
		CHECK(ret == -EBADMSG || ret == -ENOSPC || ret == -EINVAL);
		CHECK(reis_last_cpl(dev)->status & REIS_STATUS_DNR);
		CHECK(strstr(reis_last_error(dev), "database 63") != NULL ||
		      strstr(reis_last_error(dev), "REIS_DB") != NULL);
		CHECK(reis_db_info(dev, 63, &info) == -ENOENT);
		reis_db_image_free(&h);
	}
	free(big);
	free(boff);

	/* --- DOC_READ, results, tickets --- */
	EXPECT(reis_doc_read(dev, 9, N, buf, sizeof(buf)), -EINVAL, REIS_SC_INVALID_FIELD, 1);
	EXPECT(reis_doc_read(dev, 11, 0, buf, sizeof(buf)), -EINVAL, REIS_SC_INVALID_FIELD, 1);
	EXPECT(reis_doc_read(dev, 404, 0, buf, sizeof(buf)), -ENOENT, REIS_SC_UNKNOWN_ID, 1);
	EXPECT(reis_result_read(dev, 0x1234567, 0, buf, 64, 0), -ENOENT, REIS_SC_UNKNOWN_ID, 1);
	EXPECT(reis_result_release(dev, 0x1234567), -ENOENT, REIS_SC_UNKNOWN_ID, 1);
	/* A raw SEARCH under a chosen ticket: a second one is ISP Ticket In
	 * Use (not ISP Busy), -EADDRINUSE. */
	memset(payload, 0, sizeof(payload));
	{
		struct { uint32_t did, nq, k, flags; } hdr = { 9, 1, 5, 0 };
		uint32_t dim = DIM;

		memcpy(payload, &hdr, sizeof(hdr));
		memcpy(payload + 36, &dim, 4);
		memcpy(payload + 72, q.bin, 16);
		memcpy(payload + 88, q.int8, 128);
	}
	ticket = 0xabcdef;
	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = REIS_OP_SEARCH;
	cmd.cdw10 = sizeof(payload) / 4;
	cmd.cdw12 = ticket;
	EXPECT(reis_cmd_raw(dev, &cmd, payload, sizeof(payload), NULL), 0, 0, 0);
	EXPECT(reis_cmd_raw(dev, &cmd, payload, sizeof(payload), NULL), -EADDRINUSE,
	       REIS_SC_TICKET_IN_USE, 1);
	CHECK(strcmp(reis_status_str(0x47c9), "ISP Ticket In Use") == 0);
	{
		/* libreis retries a collision with fresh tickets... */
		struct reis_search_req sr;
		struct reis_search_opts o9;

		memset(&o9, 0, sizeof(o9));
		o9.did = 9;
		o9.k = 5;
		memset(&sr, 0, sizeof(sr));
		reis_ticket_force(dev, ticket, 2);
		CHECK(reis_search_submit(dev, &sr, REIS_OP_SEARCH, &o9, &q, NULL, NULL) == 0);
		CHECK(reis_search_wait(dev, &sr) == 0);
		CHECK_EQ_U64(sr.retries, 2);
		CHECK(sr.ticket != ticket && sr.res.nq == q.nq && sr.res.nhits[0] == 5);
		reis_search_result_free(&sr.res);
		/* ... a bounded number of times. */
		reis_ticket_force(dev, ticket, 1000);
		EXPECT(reis_search(dev, &o9, &q, &r), -EADDRINUSE, REIS_SC_TICKET_IN_USE, 1);
		reis_ticket_force(dev, 0, 0);
	}
	EXPECT(reis_result_read(dev, ticket, 1 << 20, buf, 64, 0), -ERANGE, REIS_SC_BAD_OFFSET, 1);
	EXPECT(reis_result_read(dev, ticket, 0, buf, 4096, 1), 0, 0, 0);
	CHECK(!memcmp(buf, "RSLT", 4));
	EXPECT(reis_result_read(dev, ticket, 0, buf, 64, 0), -ENOENT, REIS_SC_UNKNOWN_ID, 1);
	/* A full ticket table: ISP Resource Busy, no DNR, retried, then -EAGAIN. */
	{
		uint32_t max = reis_dev_info(dev)->max_tickets, t;

		for (t = 1; t <= max + 1; t++) {
			cmd.cdw12 = 0x100000 + t;
			ret = reis_cmd_raw(dev, &cmd, payload, sizeof(payload), NULL);
			if (ret)
				break;
		}
		EXPECT(ret, -EAGAIN, REIS_SC_RESOURCE, 0);
		so.did = 9;
		so.k = 10;
		EXPECT(reis_search(dev, &so, &q, &r), -EAGAIN, REIS_SC_RESOURCE, 0);
		for (i = 1; i < t; i++)
			CHECK(reis_result_release(dev, 0x100000 + i) == 0);
		EXPECT(reis_search(dev, &so, &q, &r), 0, 0, 0);
		reis_search_result_free(&r);
	}

	/* --- delete during searches: ISP Busy or done, never a crash --- */
	{
		struct searcher s;
		pthread_t th;
		unsigned busy = 0, tries;

		memset(&s, 0, sizeof(s));
		REQUIRE(reis_clone(dev, &s.dev) == 0);
		s.q = &q;
		REQUIRE(pthread_create(&th, NULL, search_loop, &s) == 0);
		while (!__atomic_load_n(&s.ok, __ATOMIC_RELAXED))
			;
		for (tries = 0; tries < 2000; tries++) {
			ret = reis_db_delete(dev, 9);
			if (!ret)
				break;
			CHECK(ret == -EBUSY);
			CHECK((reis_last_cpl(dev)->status & 0x47ff) == (REIS_SC_BUSY | 0x4000));
			busy++;
		}
		__atomic_store_n(&s.stop, 1, __ATOMIC_RELAXED);
		pthread_join(th, NULL);
		if (ret)	/* every try met a search: now it is idle */
			ret = reis_db_delete(dev, 9);
		printf("delete during search: %u ISP Busy, searcher %u ok, %u gone, %u other\n",
		       busy, s.ok, s.gone, s.other);
		CHECK(ret == 0 && s.other == 0);
		CHECK(reis_db_info(dev, 9, &info) == -ENOENT);
		reis_close(s.dev);
	}

	reis_queries_free(&q);
	reis_queries_free(&q64);
	reis_db_image_free(&bf);
	reis_db_image_free(&ivf);
	reis_db_image_free(&plain);
	reis_close(dev);
	free(x);
	free(qf);
	free(docs);
	free(off);
	return t_result();
}
