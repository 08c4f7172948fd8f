/* SPDX-License-Identifier: MIT */
/*
 * test_reis_meta - the quantizer stored with a database (META section,
 * docs/command-set.md §4; docs/reis.md §4): reis_meta_encode/decode round
 * trip and refusal of every malformed blob (corruptions, truncation, wrong
 * dimension or metric, 3000 random mutations); reis_db_deploy() stores it
 * unless REIS_DEPLOY_NO_META; META_READ errors as -errno + status; and a
 * database deployed in one session is searched from a fresh session on the
 * same backing file with queries encoded from the quantizer fetched from
 * the drive alone (reis_db_quantizer()): identical results. The recall
 * estimates (REIS_META_RECALL) round trip next to the quantizer, malformed
 * ones are refused, and a deploy with them stores them (reis_db_recall()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "libreis_tools.h"
#include "reis_cmp.h"
#include "reis_synth.h"

#define DIM 256
#define N 3000
#define NQ 40

static char backing[64];

static struct reis_dev *open_drive(void)
{
	struct reis_inproc_opts o;
	struct reis_dev *dev;

	memset(&o, 0, sizeof(o));
	o.backing = backing;
	o.workers = 2;
	REQUIRE(reis_open_inproc(&o, &dev) == 0);
	return dev;
}

static int same_quant(const struct reis_quant *a, const struct reis_quant *b)
{
	return a->dim == b->dim && a->metric == b->metric && a->flags == b->flags &&
	       !memcmp(a->mean, b->mean, a->dim * 4ull) &&
	       !memcmp(a->scale, b->scale, a->dim * 4ull);
}

static uint64_t fnv(const void *p, uint64_t len)
{
	const uint8_t *b = p;
	uint64_t h = UINT64_C(0xcbf29ce484222325), i;

	for (i = 0; i < len; i++) {
		h ^= b[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

/* Refit the header of a hand-made blob: record count, length, checksum. */
static void reseal(uint8_t *b, uint64_t len, uint32_t nrec)
{
	uint64_t sum = fnv(b + 32, len - 32);

	memcpy(b + 12, &nrec, 4);
	memcpy(b + 16, &len, 8);
	memcpy(b + 24, &sum, 8);
}

static void test_blob(const struct reis_quant *quant)
{
	struct reis_quant q2;
	uint8_t *blob, *b2;
	uint64_t len, i, seed = 7;
	uint32_t rec[4] = { 0x1234, 0, 8, 0 };	/* an unknown record of 8 bytes */
	char err[256];
	int ret;

	REQUIRE(reis_meta_encode(quant, (void **)&blob, &len) == 0);
	REQUIRE(len % 8 == 0 && len <= REIS_DB_MAX_META && len > 8ull * DIM);
	CHECK(reis_meta_decode(blob, len, DIM, quant->metric, &q2, err, sizeof(err)) == 0);
	CHECK(same_quant(quant, &q2));
	reis_quant_free(&q2);
	CHECK(reis_meta_decode(blob, len, 0, 0, &q2, err, sizeof(err)) == 0);
	reis_quant_free(&q2);
	/* The database's dimension and metric must match. */
	CHECK(reis_meta_decode(blob, len, DIM * 2, quant->metric, &q2, err, sizeof(err)) ==
	      -EBADMSG && strstr(err, "does not match"));
	CHECK(reis_meta_decode(blob, len, DIM, !quant->metric, &q2, err, sizeof(err)) ==
	      -EBADMSG);
	/* Truncated, trailing bytes, not META at all. */
	CHECK(reis_meta_decode(blob, len - 8, DIM, quant->metric, &q2, err, sizeof(err)) ==
	      -EBADMSG);
	CHECK(reis_meta_decode(blob, 16, DIM, quant->metric, &q2, err, sizeof(err)) ==
	      -EBADMSG);
	CHECK(reis_meta_decode(quant->mean, 4ull * DIM, DIM, quant->metric, &q2, err,
			       sizeof(err)) == -EBADMSG && strstr(err, "REISMET1"));
	/* Every single-byte corruption is caught (header fields or checksum). */
	for (i = 0; i < len; i += (i < 64 ? 1 : 97)) {
		blob[i] ^= 0x40;
		ret = reis_meta_decode(blob, len, DIM, quant->metric, &q2, err, sizeof(err));
		CHECK(ret == -EBADMSG);
		if (!ret)
			reis_quant_free(&q2);
		blob[i] ^= 0x40;
	}
	/* An unknown record is skipped; without a quantizer record: -ENODATA. */
	b2 = calloc(1, (size_t)len + 64);
	REQUIRE(b2);
	memcpy(b2, blob, 32);
	memcpy(b2 + 32, rec, 16);
	memcpy(b2 + 56, blob + 32, (size_t)(len - 32) & 0xfffffff);
	reseal(b2, len + 24, 2);
	CHECK(reis_meta_decode(b2, len + 24, DIM, quant->metric, &q2, err, sizeof(err)) == 0 &&
	      same_quant(quant, &q2));
	reis_quant_free(&q2);
	reseal(b2, 56, 1);
	CHECK(reis_meta_decode(b2, 56, DIM, quant->metric, &q2, err, sizeof(err)) == -ENODATA);
	/* A record running past the end, even with a good checksum. */
	rec[2] = 0xfffffff0u;
	rec[3] = 0xffffffffu;
	memcpy(b2 + 32, rec, 16);
	reseal(b2, 56, 1);
	CHECK(reis_meta_decode(b2, 56, DIM, quant->metric, &q2, err, sizeof(err)) == -EBADMSG);
	/* Random mutations, resealed so they pass the checksum: never a crash,
	 * never an out-of-range quantizer. */
	for (i = 0; i < 3000; i++) {
		uint64_t l = len, k, n = 1 + synth_next(&seed) % 4;

		memcpy(b2, blob, len);
		for (k = 0; k < n; k++)
			b2[synth_next(&seed) % len] = (uint8_t)synth_next(&seed);
		if (i % 3 == 0)
			l = 32 + synth_next(&seed) % (len - 32);
		if (i % 2)
			reseal(b2, l, (uint32_t)(synth_next(&seed) % 3));
		ret = reis_meta_decode(b2, l, DIM, quant->metric, &q2, err, sizeof(err));
		CHECK(ret == 0 || ret == -EBADMSG || ret == -ENODATA);
		if (!ret) {
			CHECK(q2.dim == DIM && q2.mean && q2.scale);
			reis_quant_free(&q2);
		}
	}
	/* A malformed quantizer is not encoded. */
	q2 = *quant;
	q2.dim = 100;
	CHECK(reis_meta_encode(&q2, (void **)&b2 /* untouched */, &len) == -EINVAL);
	free(b2);
	free(blob);
}

static void build(struct reis_db_image *img, const float *x, uint32_t did, uint32_t kind,
		  const uint8_t *docs, const uint64_t *off, const float *cq)
{
	struct reis_build_opts o;
	char err[256];

	memset(&o, 0, sizeof(o));
	o.did = did;
	o.kind = kind;
	o.flags = REIS_BUILD_INT8;
	o.metric = kind == REIS_DB_IVF ? REIS_METRIC_L2 : REIS_METRIC_IP;
	o.docs = docs;
	o.doc_offsets = off;
	o.nlist = kind == REIS_DB_IVF ? 30 : 0;
	o.km.seed = did;
	o.km.max_iter = 6;
	o.calib_queries = cq;
	o.ncalib_queries = cq ? 60 : 0;
	REQUIRE(reis_db_build(&o, x, N, DIM, img, err, sizeof(err)) == 0);
}

#define EXPECT(ret, err, sc) do {						\
		int r_ = (ret);						\
		if (r_ != (err) || (reis_last_cpl(dev)->status & 0x47ff) != (sc)) {	\
			fprintf(stderr, "line %d: got %d status 0x%x, want %d 0x%x (%s)\n", \
				__LINE__, r_, reis_last_cpl(dev)->status, (err), (sc),	\
				reis_last_error(dev));				\
			t_failures++;						\
		}								\
	} while (0)

static void test_recall_blob(const struct reis_quant *quant)
{
	struct reis_recall_est e[2], got[4], bad;
	struct reis_quant q2;
	uint8_t *blob;
	uint64_t len;
	char err[256];

	memset(e, 0, sizeof(e));
	e[0] = (struct reis_recall_est){ REIS_EST_APPROX, 10, 10, 0, 5370, 200, 1, 0 };
	e[1] = (struct reis_recall_est){ REIS_EST_EXACT, 10, 0, 0, 9810, 200, 1, 0 };
	REQUIRE(reis_meta_encode_recall(quant, e, 2, (void **)&blob, &len) == 0);
	CHECK(reis_meta_recall(blob, len, got, 4) == 2);
	CHECK(memcmp(got, e, sizeof(e)) == 0);
	CHECK(reis_meta_recall(blob, len, got, 1) == 1);
	/* the quantizer still decodes (readers skip the new record) */
	CHECK(reis_meta_decode(blob, len, DIM, quant->metric, &q2, err, sizeof(err)) == 0);
	reis_quant_free(&q2);
	blob[len - 4] ^= 1;	/* rsvd of the last estimate: checksum breaks */
	CHECK(reis_meta_recall(blob, len, got, 4) == -EBADMSG);
	free(blob);
	REQUIRE(reis_meta_encode(quant, (void **)&blob, &len) == 0);
	CHECK(reis_meta_recall(blob, len, got, 4) == 0);
	free(blob);
	bad = e[0];
	bad.recall = 10001;
	CHECK(reis_meta_encode_recall(quant, &bad, 1, (void **)&blob, &len) == -EINVAL);
	bad = e[1];
	bad.factor = 10;	/* a factor belongs to the approximate mode only */
	CHECK(reis_meta_encode_recall(quant, &bad, 1, (void **)&blob, &len) == -EINVAL);
	CHECK(reis_meta_encode_recall(quant, e, REIS_MAX_RECALL_EST + 1, (void **)&blob,
				      &len) == -EINVAL);
}

int main(void)
{
	float *x = synth_vectors(51, N, DIM, 30, 0.5f), *qf = synth_vectors(52, NQ, DIM, 30, 0.5f);
	float *cq = synth_vectors(53, 60, DIM, 30, 0.5f);
	uint64_t *off;
	uint8_t *docs = synth_docs(54, N, 700, &off), buf[256];
	struct reis_db_image bf, ivf, bad;
	struct reis_search_opts sbf, sivf;
	struct reis_search_result r1bf, r1ivf, r2;
	struct reis_queries q;
	struct reis_quant qd;
	struct reis_deploy_opts dopt;
	struct reis_db_info info;
	struct reis_dev *dev;
	void *blob;
	uint64_t len;

	REQUIRE(x && qf && cq && docs);
	snprintf(backing, sizeof(backing), "/tmp/test_reis_meta.%d.flash", (int)getpid());
	unlink(backing);
	build(&bf, x, 5, REIS_DB_BF, docs, off, NULL);
	build(&ivf, x, 6, REIS_DB_IVF, docs, off, cq);
	test_blob(bf.quant);
	test_blob(ivf.quant);
	test_recall_blob(bf.quant);

	/* Session 1: deploy (the quantizer goes into META), search. */
	dev = open_drive();
	CHECK(reis_dev_info(dev)->caps & REIS_CAP_REIS_META);
	REQUIRE(reis_db_deploy(dev, &bf, NULL) == 0);
	REQUIRE(reis_db_deploy(dev, &ivf, NULL) == 0);
	REQUIRE(reis_db_info(dev, 5, &info) == 0);
	CHECK(info.meta_bytes > 8u * DIM && info.received[REIS_SEC_META] == info.meta_bytes);
	REQUIRE(reis_db_quantizer(dev, 5, &qd) == 0);
	CHECK(same_quant(&qd, bf.quant));
	reis_quant_free(&qd);
	REQUIRE(reis_db_meta_fetch(dev, 6, &blob, &len) == 0);
	CHECK(len == 32 + 16 + 32 + ivf.quant->dim * 8ull);	/* header, record, REISQNT1 */
	CHECK(reis_meta_decode(blob, len, DIM, REIS_METRIC_L2, &qd, NULL, 0) == 0 &&
	      same_quant(&qd, ivf.quant));
	reis_quant_free(&qd);
	free(blob);
	/* Without META: no quantizer from the drive. */
	memset(&dopt, 0, sizeof(dopt));
	dopt.flags = REIS_DEPLOY_NO_META;
	bf.did = 7;
	REQUIRE(reis_db_deploy(dev, &bf, &dopt) == 0);
	bf.did = 5;
	REQUIRE(reis_db_info(dev, 7, &info) == 0);
	CHECK_EQ_U64(info.meta_bytes, 0);
	CHECK(reis_db_quantizer(dev, 7, &qd) == -ENODATA && strstr(reis_last_error(dev), "META"));
	/* META_READ errors. */
	EXPECT(reis_db_meta_read(dev, 7, 0, buf, 64), -EINVAL, 0x4002);
	EXPECT(reis_db_meta_read(dev, 5, 1u << 20, buf, 64), -ERANGE, 0x47c4);
	EXPECT(reis_db_meta_read(dev, 404, 0, buf, 64), -ENOENT, 0x47c0);
	CHECK(reis_db_meta_read(dev, 5, 0, buf, 6) == -EINVAL);	/* not dwords */
	CHECK(reis_db_meta_read(dev, 5, 0, buf, 64) == 0 && !memcmp(buf, "REISMET1", 8));
	/* A quantizer of another dimension is refused before anything is sent. */
	bad = bf;
	bad.did = 8;
	bad.priv = NULL;
	{
		struct reis_quant wrong = *bf.quant;

		wrong.metric = REIS_METRIC_L2;
		bad.quant = &wrong;
		CHECK(reis_db_deploy(dev, &bad, NULL) == -EINVAL);
		CHECK(reis_db_info(dev, 8, &info) == -ENOENT);
	}
	reis_db_image_free(&bad);	/* only what check allocated */

	REQUIRE(reis_encode_queries(bf.quant, qf, NQ, &q) == 0);
	memset(&sbf, 0, sizeof(sbf));
	sbf.did = 5;
	sbf.k = 10;
	sbf.flags = REIS_SF_DOCS;
	REQUIRE(reis_search(dev, &sbf, &q, &r1bf) == 0);
	reis_queries_free(&q);
	REQUIRE(reis_encode_queries(ivf.quant, qf, NQ, &q) == 0);
	memset(&sivf, 0, sizeof(sivf));
	sivf.did = 6;
	sivf.k = 10;
	sivf.target_recall = 9000;
	sivf.flags = REIS_SF_DOCS;
	REQUIRE(reis_ivf_search(dev, &sivf, &q, &r1ivf) == 0);
	reis_queries_free(&q);
	reis_close(dev);
	/* The deploying host's images and quantizers are gone. */
	reis_db_image_free(&bf);
	reis_db_image_free(&ivf);

	/* Session 2: only the drive and the float queries. */
	dev = open_drive();
	REQUIRE(reis_db_quantizer(dev, 5, &qd) == 0);
	REQUIRE(reis_encode_queries(&qd, qf, NQ, &q) == 0);
	reis_quant_free(&qd);
	REQUIRE(reis_search(dev, &sbf, &q, &r2) == 0);
	CHECK_EQ_U64(reis_cmp_results("bf, fresh session", &r2, &r1bf, 1), 0);
	reis_search_result_free(&r2);
	reis_queries_free(&q);
	REQUIRE(reis_db_quantizer(dev, 6, &qd) == 0);
	CHECK(qd.metric == REIS_METRIC_L2);
	REQUIRE(reis_encode_queries(&qd, qf, NQ, &q) == 0);
	reis_quant_free(&qd);
	REQUIRE(reis_ivf_search(dev, &sivf, &q, &r2) == 0);
	CHECK_EQ_U64(reis_cmp_results("ivf, fresh session", &r2, &r1ivf, 1), 0);
	CHECK_EQ_U64(r2.nprobe, r1ivf.nprobe);
	reis_search_result_free(&r2);
	reis_queries_free(&q);
	reis_close(dev);
	unlink(backing);

	reis_search_result_free(&r1bf);
	reis_search_result_free(&r1ivf);
	free(x);
	free(qf);
	free(cq);
	free(docs);
	free(off);
	return t_result();
}
