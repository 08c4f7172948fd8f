/* SPDX-License-Identifier: MIT */
/*
 * test_reis_tools - the host-side REIS tools, no drive needed: vector file
 * readers on good and malformed .fvecs/.bvecs/.ivecs/.npy (and random
 * garbage), the binary and INT8 quantizers' exact formulas, quantizer
 * files, k-means determinism, seeding and empty clusters, exact top-k,
 * images (build, check, write/read, corruption), the reference search's
 * rules, a calibration table that ascends and ends at brute force, and the
 * distance-filter threshold calibration (with the largest quantile the
 * calibration queries' hits are exactly the DF-off hits).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "libreis_tools.h"
#include "reis_synth.h"

static char dir[64];

static const char *tpath(const char *name)
{
	static char p[128];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

static void put(const char *name, const void *buf, size_t len)
{
	FILE *f = fopen(tpath(name), "wb");

	REQUIRE(f);
	REQUIRE(fwrite(buf, 1, len, f) == len);
	fclose(f);
}

/* Expect a load failure whose message contains @what. */
static void bad(const char *name, const void *buf, size_t len, const char *what)
{
	struct reis_vecs v;
	char err[256] = "";
	int ret;

	put(name, buf, len);
	ret = reis_vecs_load(tpath(name), &v, err, sizeof(err));
	CHECK(ret == -EINVAL);
	if (!strstr(err, what)) {
		fprintf(stderr, "%s: message '%s' lacks '%s'\n", name, err, what);
		t_failures++;
	}
	CHECK(v.data == NULL);
}

static size_t npy(uint8_t *buf, int major, const char *dict)
{
	size_t hl = strlen(dict), pre = major == 1 ? 10 : 12, total = pre + hl + 1;
	size_t pad = (64 - total % 64) % 64;

	memcpy(buf, "\x93NUMPY", 6);
	buf[6] = (uint8_t)major;
	buf[7] = 0;
	if (major == 1) {
		buf[8] = (uint8_t)((hl + 1 + pad) & 0xff);
		buf[9] = (uint8_t)((hl + 1 + pad) >> 8);
	} else {
		uint32_t l = (uint32_t)(hl + 1 + pad);

		memcpy(buf + 8, &l, 4);
	}
	memcpy(buf + pre, dict, hl);
	memset(buf + pre + hl, ' ', pad);
	buf[pre + hl + pad] = '\n';
	return pre + hl + pad + 1;
}

static void test_readers(void)
{
	uint8_t buf[4096];
	struct reis_vecs v;
	char err[256];
	float f[3 * 5];
	int32_t d5 = 5, d4 = 4, i;
	size_t off, h;

	for (i = 0; i < 15; i++)
		f[i] = (float)i * 0.5f - 3;
	/* .fvecs: 3 vectors of 5. */
	for (i = 0, off = 0; i < 3; i++) {
		memcpy(buf + off, &d5, 4);
		memcpy(buf + off + 4, f + i * 5, 20);
		off += 24;
	}
	put("a.fvecs", buf, off);
	CHECK(reis_vecs_load(tpath("a.fvecs"), &v, err, sizeof(err)) == 0);
	CHECK(v.n == 3 && v.dim == 5 && v.type == REIS_VEC_F32);
	CHECK(v.data && memcmp(v.data, f, sizeof(f)) == 0);
	reis_vecs_free(&v);
	CHECK(v.data == NULL);
	bad("trunc.fvecs", buf, off - 3, "not a multiple of the row size");
	memcpy(buf + 24, &d4, 4);
	bad("dims.fvecs", buf, off, "vector 1 has dimension 4, not 5");
	bad("empty.fvecs", buf, 0, "too short");
	memset(buf, 0, 4);
	bad("zero.fvecs", buf, 24, "dimension 0");
	memset(buf, 0xff, 4);
	bad("neg.fvecs", buf, 24, "dimension -1");
	bad("x.txt", buf, 24, "unknown suffix");

	/* .bvecs and .ivecs, converted to float. */
	memcpy(buf, &d4, 4);
	memcpy(buf + 4, "\x01\x02\xff\x00", 4);
	put("b.bvecs", buf, 8);
	CHECK(reis_vecs_load(tpath("b.bvecs"), &v, err, sizeof(err)) == 0);
	CHECK(v.n == 1 && v.dim == 4 && v.type == REIS_VEC_U8);
	CHECK(reis_vecs_to_f32(&v) == 0 && ((float *)v.data)[2] == 255.0f);
	reis_vecs_free(&v);
	{
		int32_t iv[] = { 2, 7, -9, 2, 11, 12 };

		put("c.ivecs", iv, sizeof(iv));
		CHECK(reis_vecs_load(tpath("c.ivecs"), &v, err, sizeof(err)) == 0);
		CHECK(v.n == 2 && v.dim == 2 && ((int32_t *)v.data)[1] == -9 &&
		      ((int32_t *)v.data)[3] == 12);
		reis_vecs_free(&v);
	}

	/* .npy 1.0, float32, (3, 5). */
	h = npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 5), }");
	memcpy(buf + h, f, sizeof(f));
	put("a.npy", buf, h + sizeof(f));
	CHECK(reis_vecs_load(tpath("a.npy"), &v, err, sizeof(err)) == 0);
	CHECK(v.n == 3 && v.dim == 5 && memcmp(v.data, f, sizeof(f)) == 0);
	reis_vecs_free(&v);
	bad("t.npy", buf, h + sizeof(f) - 4, "truncated");
	buf[h + sizeof(f)] = 0;
	bad("tr.npy", buf, h + sizeof(f) + 4, "trailing bytes");
	/* 2.0, int8, 1-D: one vector. */
	h = npy(buf, 2, "{'descr': '|i1', 'fortran_order': False, 'shape': (6,), }");
	memcpy(buf + h, "\x01\xff\x7f\x80\x00\x05", 6);
	put("b.npy", buf, h + 6);
	CHECK(reis_vecs_load(tpath("b.npy"), &v, err, sizeof(err)) == 0);
	CHECK(v.n == 1 && v.dim == 6 && v.type == REIS_VEC_I8 &&
	      ((int8_t *)v.data)[1] == -1 && ((int8_t *)v.data)[3] == -128);
	reis_vecs_free(&v);
	h = npy(buf, 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }");
	memcpy(buf + h, "abcdef", 6);
	put("c.npy", buf, h + 6);
	CHECK(reis_vecs_load(tpath("c.npy"), &v, err, sizeof(err)) == 0);
	CHECK(v.n == 2 && v.dim == 3 && v.type == REIS_VEC_U8);
	reis_vecs_free(&v);

	h = npy(buf, 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (3, 5), }");
	bad("f.npy", buf, h + sizeof(f), "Fortran-order");
	h = npy(buf, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 5), }");
	bad("d.npy", buf, h + 120, "dtype '<f8' is not supported");
	h = npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2, 2), }");
	bad("3d.npy", buf, h + 32, "more than 2 dimensions");
	h = npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }");
	bad("s.npy", buf, h + 4, "scalar");
	h = npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 5), }");
	bad("z.npy", buf, h, "at least one vector");
	h = npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, }");
	bad("ns.npy", buf, h, "no 'shape'");
	h = npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999, 5), }");
	bad("big.npy", buf, h, "shape overflows");
	h = npy(buf, 3, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 5), }");
	bad("v3.npy", buf, h + sizeof(f), "version 3.0 is not supported");
	memcpy(buf, "\x93NUMPX", 6);
	bad("m.npy", buf, 64, "no \\x93NUMPY magic");
	h = npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 5), }");
	buf[8] = 0xff;
	buf[9] = 0x7f;
	bad("hl.npy", buf, h, "runs past the file");

	/* Random garbage never crashes the parsers. */
	{
		uint64_t s = 7;
		unsigned it, j;

		for (it = 0; it < 3000; it++) {
			size_t len = (size_t)(synth_next(&s) % 300);
			const char *fmt = (it % 2) ? "npy" : "fvecs";

			for (j = 0; j < len; j++)
				buf[j] = (uint8_t)synth_next(&s);
			if (it % 2 && len >= 10)
				memcpy(buf, "\x93NUMPY\x01\x00", 8);
			if (reis_vecs_parse(buf, len, fmt, &v, err, sizeof(err)) == 0)
				reis_vecs_free(&v);
		}
	}
	/* The writer round-trips. */
	CHECK(reis_fvecs_write(tpath("w.fvecs"), f, 3, 5) == 0);
	CHECK(reis_vecs_load(tpath("w.fvecs"), &v, err, sizeof(err)) == 0);
	CHECK(v.n == 3 && memcmp(v.data, f, sizeof(f)) == 0);
	reis_vecs_free(&v);
}

static void test_quant(void)
{
	const uint32_t dim = 128, n = 500;
	float *x = synth_vectors(11, n, dim, 8, 0.3f);
	struct reis_quant q, q2;
	uint8_t bin[128 / 8];
	int8_t *c8 = malloc((size_t)n * dim), q8[128];
	uint32_t d, i, agree = 0;
	char err[256];
	float v[128];

	REQUIRE(x && c8);
	/* Bit d is byte d/8, bit d%8, set iff the value is > 0. */
	memset(v, 0, sizeof(v));
	v[0] = 1;
	v[9] = 0.5f;
	v[127] = 2;
	v[5] = -1;
	reis_binarize(v, 1, dim, bin);
	CHECK(bin[0] == 0x01 && bin[1] == 0x02 && bin[15] == 0x80 && bin[2] == 0);

	CHECK(reis_quant_train(&q, x, n, 100, REIS_METRIC_IP, 0) == -EINVAL);
	CHECK(reis_quant_train(&q, x, n, dim, REIS_METRIC_IP, 0) == 0);
	for (d = 0; d < dim; d++) {
		float mx = 0;

		for (i = 0; i < n; i++)
			mx = fabsf(x[i * dim + d]) > mx ? fabsf(x[i * dim + d]) : mx;
		CHECK(fabsf(q.scale[d] - mx / 127.0f) <= 1e-6f * mx);
		CHECK(q.mean[d] == 0);
	}
	reis_quant_int8(&q, x, n, c8);
	for (d = 0; d < dim; d++) {
		int8_t mx = 0;

		for (i = 0; i < n; i++) {
			int8_t a = c8[i * dim + d] < 0 ? (int8_t)-c8[i * dim + d] : c8[i * dim + d];
			float want = x[i * dim + d] / q.scale[d];

			CHECK(fabsf((float)c8[i * dim + d] - want) <= 0.5f + 1e-4f);
			mx = a > mx ? a : mx;
		}
		CHECK(mx == 127);	/* the largest magnitude maps to 127 */
	}
	reis_quant_binary(&q, x, 1, bin);
	{
		uint8_t b2[16];

		reis_binarize(x, 1, dim, b2);
		CHECK(memcmp(bin, b2, 16) == 0);	/* no centering: plain signs */
	}
	/* IP: the INT8 score of a query ranks like the float inner product. */
	for (i = 0; i < 50; i++) {
		const float *qq = x + (size_t)(i * 7 % n) * dim;
		uint32_t j, bi = 0, bf = 0;
		int64_t best = INT64_MIN;
		float bestf = -1e30f;

		reis_quant_int8_query(&q, qq, 1, q8);
		for (j = 0; j < n; j++) {
			int64_t s = 0;
			float fs = 0;

			for (d = 0; d < dim; d++) {
				s += (int32_t)q8[d] * c8[(size_t)j * dim + d];
				fs += qq[d] * x[(size_t)j * dim + d];
			}
			if (s > best) {
				best = s;
				bi = j;
			}
			if (fs > bestf) {
				bestf = fs;
				bf = j;
			}
		}
		agree += bi == bf;
	}
	CHECK(agree >= 48);
	{
		int m = 0;

		for (d = 0; d < dim; d++)
			m = abs(q8[d]) > m ? abs(q8[d]) : m;
		CHECK(m == 127);	/* the query uses the full range */
	}
	/* Files round-trip; damage is detected. */
	CHECK(reis_quant_save(&q, tpath("q.quant")) == 0);
	CHECK(reis_quant_load(&q2, tpath("q.quant"), err, sizeof(err)) == 0);
	CHECK(q2.dim == dim && !memcmp(q2.scale, q.scale, dim * 4) &&
	      !memcmp(q2.mean, q.mean, dim * 4));
	reis_quant_free(&q2);
	{
		FILE *f = fopen(tpath("q.quant"), "r+b");

		REQUIRE(f);
		fseek(f, 40, SEEK_SET);
		fputc(0x55, f);
		fclose(f);
		CHECK(reis_quant_load(&q2, tpath("q.quant"), err, sizeof(err)) == -EINVAL);
		CHECK(strstr(err, "checksum") != NULL);
	}
	reis_quant_free(&q);

	/* L2: one scale for every dimension; centering subtracts the mean. */
	CHECK(reis_quant_train(&q, x, n, dim, REIS_METRIC_L2, REIS_QUANT_CENTER) == 0);
	for (d = 1; d < dim; d++)
		CHECK(q.scale[d] == q.scale[0]);
	{
		double m = 0;

		for (i = 0; i < n; i++)
			m += x[(size_t)i * dim + 3];
		CHECK(fabs(q.mean[3] - m / n) < 1e-5);
	}
	reis_quant_free(&q);
	free(x);
	free(c8);
}

static void test_kmeans(void)
{
	const uint32_t dim = 64, n = 2000, k = 16;
	float *x = synth_vectors(3, n, dim, k, 0.05f);
	float *c1 = malloc(k * dim * 4), *c2 = malloc(k * dim * 4);
	uint32_t *a1 = malloc(n * 4), *a2 = malloc(n * 4), i;
	struct reis_kmeans_opts o;
	struct reis_kmeans_stats st;

	REQUIRE(x && c1 && c2 && a1 && a2);
	memset(&o, 0, sizeof(o));
	o.nlist = k;
	o.seed = 42;
	CHECK(reis_kmeans(x, n, dim, &o, c1, a1, &st) == 0);
	CHECK(st.iters >= 1 && st.iters <= 20 && st.ntrain == n);
	CHECK(reis_kmeans(x, n, dim, &o, c2, a2, NULL) == 0);
	CHECK(memcmp(c1, c2, k * dim * 4) == 0);	/* bit-identical */
	CHECK(memcmp(a1, a2, n * 4) == 0);
	o.seed = 43;
	CHECK(reis_kmeans(x, n, dim, &o, c2, a2, NULL) == 0);
	CHECK(memcmp(c1, c2, k * dim * 4) != 0);
	o.init = REIS_KM_RANDOM;
	CHECK(reis_kmeans(x, n, dim, &o, c2, a2, NULL) == 0);
	for (i = 0; i < n; i++)
		CHECK(a2[i] < k);
	/* A training sample: max 32 per list. */
	o.init = REIS_KM_PLUSPLUS;
	o.max_train_per_list = 32;
	CHECK(reis_kmeans(x, n, dim, &o, c2, a2, &st) == 0);
	CHECK(st.ntrain == 32 * k);
	/* Tight blobs: each assigned cluster is pure, every cluster used. */
	{
		uint32_t used[16] = { 0 };

		for (i = 0; i < n; i++)
			used[a1[i]]++;
		for (i = 0; i < k; i++)
			CHECK(used[i] > 0);
	}
	/* Mostly duplicates: empty clusters are split, nothing breaks. */
	for (i = 0; i < n; i++)
		memcpy(x + (size_t)i * dim, x + (size_t)(i % 3) * dim, dim * 4);
	o.max_train_per_list = 0;
	o.nlist = 8;
	o.max_iter = 5;
	CHECK(reis_kmeans(x, n, dim, &o, c1, a1, &st) == 0);
	CHECK(st.empty_fixed > 0);
	for (i = 0; i < n; i++)
		CHECK(a1[i] < 8);
	o.nlist = 0;
	CHECK(reis_kmeans(x, n, dim, &o, c1, a1, NULL) == -EINVAL);
	o.nlist = n + 1;
	CHECK(reis_kmeans(x, n, dim, &o, c1, a1, NULL) == -EINVAL);
	free(x);
	free(c1);
	free(c2);
	free(a1);
	free(a2);
}

static void test_topk(void)
{
	const uint32_t dim = 64, n = 300, nq = 5, k = 7;
	float *x = synth_vectors(5, n, dim, 4, 0.5f);
	uint32_t ids[5 * 7], j, i, m;
	float sc[5 * 7];

	REQUIRE(x);
	/* A tie: row 250 duplicates row 10; the lower row ranks first. */
	memcpy(x + 250 * dim, x + 10 * dim, dim * 4);
	CHECK(reis_exact_topk(x, n, dim, x + 10 * dim, nq, k, REIS_METRIC_IP, ids, sc) == 0);
	CHECK(ids[0] == 10 && ids[1] == 250);
	for (j = 0; j < nq; j++)
		for (i = 0; i < k; i++) {
			const float *q = x + (10 + j) * dim;
			uint32_t better = 0;
			float s = 0;

			for (m = 0; m < dim; m++)
				s += q[m] * x[(size_t)ids[j * k + i] * dim + m];
			CHECK(fabsf(s - sc[j * k + i]) < 1e-4f);
			for (m = 0; m < n; m++) {
				float t = 0;
				uint32_t e;

				for (e = 0; e < dim; e++)
					t += q[e] * x[(size_t)m * dim + e];
				better += t > s + 1e-5f;
			}
			CHECK(better <= i);
			if (i)
				CHECK(sc[j * k + i] <= sc[j * k + i - 1]);
		}
	CHECK(reis_exact_topk(x, n, dim, x, 1, k, REIS_METRIC_L2, ids, sc) == 0);
	CHECK(ids[0] == 0 && sc[0] == 0);
	CHECK(reis_exact_topk(x, n, dim, x, 1, n + 1, REIS_METRIC_IP, ids, sc) == -EINVAL);
	free(x);
}

static void same_hits(const struct reis_search_result *a, const struct reis_search_result *b)
{
	uint64_t i, bad = 0;

	CHECK(a->nq == b->nq && a->k == b->k);
	for (i = 0; i < (uint64_t)a->nq * a->k; i++)
		if (a->hits[i].id != b->hits[i].id || a->hits[i].hamming != b->hits[i].hamming ||
		    a->hits[i].score != b->hits[i].score || a->hits[i].entry != b->hits[i].entry)
			bad++;
	CHECK_EQ_U64(bad, 0);
}

static void test_images_and_reference(void)
{
	const uint32_t dim = 128, nq = 40;
	const uint64_t n = 3000;
	float *x = synth_vectors(21, n, dim, 24, 0.4f);
	float *qf = synth_vectors(22, nq, dim, 24, 0.4f);
	uint64_t *off, i;
	uint8_t *docs = synth_docs(23, n, 300, &off);
	uint32_t *tags = malloc(n * 4);
	struct reis_build_opts o;
	struct reis_db_image bf, ivf, rd;
	struct reis_queries q;
	struct reis_search_opts so;
	struct reis_search_result r1, r2;
	const struct reis_db_image *one[1];
	char err[256];
	int fd;

	REQUIRE(x && qf && docs && tags);
	for (i = 0; i < n; i++)
		tags[i] = (uint32_t)(i % 5);
	memset(&o, 0, sizeof(o));
	o.did = 5;
	o.kind = REIS_DB_BF;
	o.flags = REIS_BUILD_INT8;
	o.docs = docs;
	o.doc_offsets = off;
	o.tags = tags;
	o.name = "synthetic-bf";
	CHECK(reis_db_build(&o, x, n, dim, &bf, err, sizeof(err)) == 0);
	CHECK(bf.flags == (REIS_DBF_INT8 | REIS_DBF_TAGS) && bf.ids == NULL);
	CHECK(bf.doc_mode == REIS_DOC_SUBPAGE);
	{
		uint32_t len;
		const uint8_t *d = reis_db_image_doc(&bf, 17, &len);

		CHECK(d && len == off[18] - off[17] && !memcmp(d, docs + off[17], len));
	}
	o.kind = REIS_DB_IVF;
	o.did = 6;
	o.nlist = 30;
	o.km.seed = 9;
	o.calib_queries = qf;
	o.ncalib_queries = nq;
	o.name = "synthetic-ivf";
	CHECK(reis_db_build(&o, x, n, dim, &ivf, err, sizeof(err)) == 0);
	CHECK(ivf.flags == (REIS_DBF_INT8 | REIS_DBF_TAGS | REIS_DBF_IDS));
	CHECK(ivf.nlist == 30 && ivf.ncalib >= 2);
	/* Calibration: strictly ascending, ends at (or near) nprobe = nlist. */
	for (i = 1; i < ivf.ncalib; i++)
		CHECK(ivf.calib[i].recall > ivf.calib[i - 1].recall &&
		      ivf.calib[i].nprobe > ivf.calib[i - 1].nprobe);
	CHECK(ivf.calib[ivf.ncalib - 1].nprobe <= 30);
	/* IVF entries are ordered by cluster and carry their rows as ids. */
	{
		uint64_t e = 0, seen = 0;
		uint32_t c;
		uint8_t *mark = calloc(n, 1);

		REQUIRE(mark);
		for (c = 0; c < ivf.nlist; c++)
			for (i = 0; i < ivf.cluster_sizes[c]; i++, e++) {
				uint64_t row = ivf.ids[e];
				uint32_t len;
				const uint8_t *d = reis_db_image_doc(&ivf, e, &len);

				CHECK(row < n && !mark[row]);
				mark[row] = 1;
				seen++;
				CHECK(ivf.tags[e] == tags[row]);
				CHECK(len == off[row + 1] - off[row] &&
				      !memcmp(d, docs + off[row], len));
				CHECK(!memcmp(ivf.bin + e * 16, bf.bin + row * 16, 16));
			}
		CHECK(seen == n);
		free(mark);
	}

	REQUIRE(reis_encode_queries(ivf.quant, qf, nq, &q) == 0);
	memset(&so, 0, sizeof(so));
	so.did = 6;
	so.k = 10;
	so.flags = REIS_SF_DOCS;
	/* IVF probing every cluster is brute force over the same entries. */
	one[0] = &ivf;
	so.nprobe = 30;
	CHECK(reis_ref_search(one, 1, 1, &so, &q, &r1) == 0);
	CHECK(reis_ref_search(one, 1, 0, &so, &q, &r2) == 0);
	same_hits(&r1, &r2);
	/* ...and nearly the same rows as the BF database (ties between equal
	 * distances go to the lower entry, and the entry orders differ). */
	one[0] = &bf;
	reis_search_result_free(&r2);
	CHECK(reis_ref_search(one, 1, 0, &so, &q, &r2) == 0);
	{
		uint32_t *ids = malloc((size_t)nq * 10 * 4);

		REQUIRE(ids);
		for (i = 0; i < (uint64_t)nq * 10; i++)
			ids[i] = (uint32_t)r1.hits[i].id;
		CHECK(reis_recall(r2.hits, 10, ids, 10, nq, 10) > 0.85);
		free(ids);
	}
	for (i = 0; i < (uint64_t)nq * 10; i++) {
		uint64_t row = r2.hits[i].id;

		CHECK(r2.hits[i].doc && r2.hits[i].doc_len == off[row + 1] - off[row] &&
		      !memcmp(r2.hits[i].doc, docs + off[row], r2.hits[i].doc_len));
		if (i % 10)
			CHECK(r2.hits[i].score < r2.hits[i - 1].score ||
			      (r2.hits[i].score == r2.hits[i - 1].score &&
			       r2.hits[i].hamming >= r2.hits[i - 1].hamming));
	}
	reis_search_result_free(&r1);
	reis_search_result_free(&r2);
	/* NO_RERANK: (Hamming, entry) order; DF: all under the threshold;
	 * TAG: only matching entries. */
	so.flags = REIS_SF_NO_RERANK | REIS_SF_TAG;
	so.tag = 3;
	so.df_threshold = 50;
	so.nprobe = 0;
	CHECK(reis_ref_search(one, 1, 0, &so, &q, &r1) == 0);
	for (i = 0; i < (uint64_t)nq * 10; i++) {
		if (r1.hits[i].id == REIS_HIT_NONE)
			continue;
		CHECK(r1.hits[i].id % 5 == 3 && r1.hits[i].hamming < 50 && r1.hits[i].score == 0);
		if (i % 10 && r1.hits[i - 1].id != REIS_HIT_NONE)
			CHECK(r1.hits[i].hamming > r1.hits[i - 1].hamming ||
			      (r1.hits[i].hamming == r1.hits[i - 1].hamming &&
			       r1.hits[i].id > r1.hits[i - 1].id));
	}
	reis_search_result_free(&r1);
	/* A tight threshold pads with REIS_HIT_NONE. */
	so.df_threshold = 1;
	CHECK(reis_ref_search(one, 1, 0, &so, &q, &r1) == 0);
	CHECK(r1.nhits[0] == 0 && r1.hits[0].id == REIS_HIT_NONE);
	reis_search_result_free(&r1);
	/* What the drive refuses, the reference refuses. */
	so.df_threshold = dim + 1;
	CHECK(reis_ref_search(one, 1, 0, &so, &q, &r1) == -EINVAL);
	so.df_threshold = 0;
	so.k = (uint32_t)n + 1;
	CHECK(reis_ref_search(one, 1, 0, &so, &q, &r1) == -EINVAL);
	so.k = 10;
	CHECK(reis_ref_search(one, 1, 1, &so, &q, &r1) == -EINVAL);	/* IVF on BF */

	/* Images round-trip through files, also at an offset of a device. */
	CHECK(reis_db_image_save(&ivf, tpath("ivf.img")) == 0);
	CHECK(reis_db_image_load(tpath("ivf.img"), &rd, err, sizeof(err)) == 0);
	CHECK(rd.n == n && rd.nlist == 30 && rd.ncalib == ivf.ncalib && rd.did == 6);
	CHECK(!strcmp(rd.name, "synthetic-ivf"));
	CHECK(!memcmp(rd.bin, ivf.bin, n * 16) && !memcmp(rd.int8, ivf.int8, n * dim));
	CHECK(rd.docs_bytes == ivf.docs_bytes && !memcmp(rd.docs, ivf.docs, ivf.docs_bytes));
	CHECK(!memcmp(rd.calib, ivf.calib, ivf.ncalib * 8));
	CHECK(rd.quant && !memcmp(rd.quant->scale, ivf.quant->scale, dim * 4));
	reis_db_image_free(&rd);
	fd = open(tpath("dev.img"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	REQUIRE(fd >= 0);
	REQUIRE(lseek(fd, 1 << 20, SEEK_SET) == 1 << 20);
	CHECK(reis_db_image_write(&bf, fd) > 0);
	CHECK(reis_db_image_read(fd, 0, &rd, err, sizeof(err)) == -ENOMSG);
	CHECK(reis_db_image_read(fd, 1 << 20, &rd, err, sizeof(err)) == 0);
	CHECK(rd.n == n && !memcmp(rd.tags, tags, n * 4));
	reis_db_image_free(&rd);
	/* One flipped byte in the data: the checksum catches it. */
	{
		uint8_t b;

		REQUIRE(pread(fd, &b, 1, (1 << 20) + 9000) == 1);
		b ^= 1;
		REQUIRE(pwrite(fd, &b, 1, (1 << 20) + 9000) == 1);
		CHECK(reis_db_image_read(fd, 1 << 20, &rd, err, sizeof(err)) == -EBADMSG);
		CHECK(strstr(err, "checksum") != NULL);
		/* Truncated. */
		REQUIRE(ftruncate(fd, (1 << 20) + 20000) == 0);
		CHECK(reis_db_image_read(fd, 1 << 20, &rd, err, sizeof(err)) == -EBADMSG);
	}
	close(fd);

	/* Hand-made images are checked like the drive checks them. */
	{
		struct reis_db_image h = bf;
		uint32_t sizes[2] = { 1, 2 };
		struct reis_calib cal[2] = { { 5000, 1 }, { 4000, 2 } };

		h.priv = NULL;
		h.doc_index = NULL;
		h.dim = 96;
		CHECK(reis_db_image_check(&h, err, sizeof(err)) == -EINVAL);
		h.dim = dim;
		h.flags &= ~REIS_DBF_INT8;
		CHECK(reis_db_image_check(&h, err, sizeof(err)) == -EINVAL);
		h.flags |= REIS_DBF_INT8;
		h.docs_bytes -= 1;
		CHECK(reis_db_image_check(&h, err, sizeof(err)) == -EBADMSG);
		h.docs_bytes += 1;
		h.kind = REIS_DB_IVF;
		h.nlist = 2;
		h.centroids = bf.bin;
		h.cluster_sizes = sizes;
		CHECK(reis_db_image_check(&h, err, sizeof(err)) == -EINVAL);
		CHECK(strstr(err, "sum") != NULL);
		sizes[1] = (uint32_t)n - 1;
		h.ncalib = 2;
		h.calib = cal;
		CHECK(reis_db_image_check(&h, err, sizeof(err)) == -EINVAL);
		CHECK(strstr(err, "ascend") != NULL);
		cal[1].recall = 6000;
		CHECK(reis_db_image_check(&h, err, sizeof(err)) == 0);
		reis_db_image_free(&h);
	}

	reis_queries_free(&q);
	reis_db_image_free(&bf);
	reis_db_image_free(&ivf);
	free(x);
	free(qf);
	free(docs);
	free(off);
	free(tags);
}

/* Result blobs from the drive are bounded: random damage never crashes. */
static void test_decode_fuzz(void)
{
	uint8_t blob[64 + 72 + 2 * 3 * 40 + 64], b[sizeof(blob)];
	struct reis_search_result r;
	uint64_t s = 5, total = sizeof(blob);
	uint32_t nq = 2, k = 3, v, i, it, ok = 0;

	memset(blob, 0, sizeof(blob));
	memcpy(blob, "RSLT", 4);
	v = 1;
	memcpy(blob + 4, &v, 4);
	memcpy(blob + 8, &total, 8);
	v = 72;
	memcpy(blob + 20, &v, 4);
	memcpy(blob + 64, &nq, 4);
	memcpy(blob + 68, &k, 4);
	v = REIS_SF_DOCS;
	memcpy(blob + 72, &v, 4);
	{
		uint64_t docs = 64, off = 64 + 72 + 6 * 40;

		memcpy(blob + 64 + 56, &docs, 8);
		for (i = 0; i < 6; i++) {
			uint8_t *h = blob + 136 + i * 40;
			uint64_t id = i, doff = off + i * 10;
			uint32_t len = 10;

			memcpy(h, &id, 8);
			memcpy(h + 24, &len, 4);
			memcpy(h + 32, &doff, 8);
		}
	}
	CHECK(reis_search_result_decode(blob, sizeof(blob), nq, k, &r) == 0);
	CHECK(r.nhits[0] == 3 && r.hits[4].id == 4 && r.hits[4].doc == blob + 136 + 240 + 40 &&
	      r.hits[4].doc_len == 10);
	reis_search_result_free(&r);
	CHECK(reis_search_result_decode(blob, sizeof(blob), nq, 4, &r) == -EPROTO);
	CHECK(reis_search_result_decode(blob, 100, nq, k, &r) == -EPROTO);
	for (it = 0; it < 20000; it++) {
		memcpy(b, blob, sizeof(b));
		for (i = 0; i < 1 + it % 4; i++)
			b[synth_next(&s) % sizeof(b)] = (uint8_t)synth_next(&s);
		if (reis_search_result_decode(b, sizeof(b), nq, k, &r) == 0) {
			ok++;
			for (i = 0; i < nq * k; i++)
				if (r.hits[i].doc)
					CHECK(r.hits[i].doc >= b + 136 + 240 &&
					      r.hits[i].doc + r.hits[i].doc_len <= b + sizeof(b));
			reis_search_result_free(&r);
		}
	}
	CHECK(ok > 0);
}

/* reis_df_calibrate(): REIS 4.3.3's threshold, checked on the reference. */
static void test_df_calibrate(void)
{
	const uint32_t dim = 128, nq = 60;
	const uint64_t n = 4000;
	float *x = synth_vectors(41, n, dim, 30, 0.5f), *qf = synth_vectors(42, nq, dim, 30, 0.5f);
	struct reis_build_opts bo;
	struct reis_db_image bf, ivf;
	const struct reis_db_image *one[1];
	struct reis_queries q;
	struct reis_df_opts o;
	struct reis_df_calib c, c50;
	struct reis_search_opts so;
	struct reis_search_result on, off;
	char err[256];
	uint32_t i;

	REQUIRE(x && qf);
	memset(&bo, 0, sizeof(bo));
	bo.did = 1;
	bo.kind = REIS_DB_BF;
	bo.flags = REIS_BUILD_INT8;
	REQUIRE(reis_db_build(&bo, x, n, dim, &bf, err, sizeof(err)) == 0);
	bo.kind = REIS_DB_IVF;
	bo.nlist = 20;
	bo.km.max_iter = 5;
	bo.calib_queries = qf;
	bo.ncalib_queries = nq;
	REQUIRE(reis_db_build(&bo, x, n, dim, &ivf, err, sizeof(err)) == 0);
	REQUIRE(reis_encode_queries(bf.quant, qf, nq, &q) == 0);

	/* Brute force, the largest distance: DF on = DF off for these queries. */
	memset(&o, 0, sizeof(o));
	REQUIRE(reis_df_calibrate(&bf, &q, NULL, &c) == 0);
	CHECK(c.threshold > 0 && c.threshold == c.d_max + 1 && c.nprobe == 0 && c.cand == 100 &&
	      c.nq == nq);
	CHECK(c.d_min <= c.d_median && c.d_median <= c.d_max);
	CHECK(c.pass_frac > 0 && c.pass_frac < 0.5 && c.short_frac == 0);
	printf("df bf: threshold %u (d %u/%u/%u), pass %.3f\n", c.threshold, c.d_min,
	       c.d_median, c.d_max, c.pass_frac);
	one[0] = &bf;
	memset(&so, 0, sizeof(so));
	so.did = 1;
	for (i = 0; i < 2; i++) {
		so.k = i ? 5 : 10;	/* a smaller k is served too */
		so.flags = REIS_SF_NO_DF;
		so.df_threshold = 0;
		REQUIRE(reis_ref_search(one, 1, 0, &so, &q, &off) == 0);
		so.flags = 0;
		so.df_threshold = c.threshold;
		REQUIRE(reis_ref_search(one, 1, 0, &so, &q, &on) == 0);
		same_hits(&on, &off);
		reis_search_result_free(&on);
		reis_search_result_free(&off);
	}
	/* The median: a tighter threshold that leaves some queries short. */
	o.quantile = 5000;
	REQUIRE(reis_df_calibrate(&bf, &q, &o, &c50) == 0);
	CHECK(c50.threshold == c.d_median + 1 && c50.threshold <= c.threshold);
	CHECK(c50.pass_frac <= c.pass_frac && c50.short_frac > 0 && c50.short_frac < 1);

	/* IVF: the calibrated nprobe for recall 0.95, or an explicit one. */
	memset(&o, 0, sizeof(o));
	REQUIRE(reis_df_calibrate(&ivf, &q, &o, &c) == 0);
	memset(&so, 0, sizeof(so));
	so.target_recall = 9500;
	{
		uint32_t j, want = ivf.calib[ivf.ncalib - 1].nprobe;

		for (j = 0; j < ivf.ncalib; j++)
			if (ivf.calib[j].recall >= 9500) {
				want = ivf.calib[j].nprobe;
				break;
			}
		CHECK_EQ_U64(c.nprobe, want);
	}
	o.nprobe = 4;
	REQUIRE(reis_df_calibrate(&ivf, &q, &o, &c) == 0);
	CHECK(c.nprobe == 4 && c.threshold > 0 && c.short_frac == 0);
	one[0] = &ivf;
	so.did = 1;
	so.k = 10;
	so.nprobe = 4;
	so.flags = REIS_SF_NO_DF;
	REQUIRE(reis_ref_search(one, 1, 1, &so, &q, &off) == 0);
	so.flags = 0;
	so.df_threshold = c.threshold;
	REQUIRE(reis_ref_search(one, 1, 1, &so, &q, &on) == 0);
	same_hits(&on, &off);
	reis_search_result_free(&on);
	reis_search_result_free(&off);
	o.nprobe = 1000;	/* every cluster: the brute-force threshold */
	REQUIRE(reis_df_calibrate(&ivf, &q, &o, &c50) == 0);
	CHECK(c50.nprobe == 20);
	/* More candidates than entries probed: everything must pass. */
	o.nprobe = 1;
	o.k = 1000;
	o.factor = 64;
	REQUIRE(reis_df_calibrate(&ivf, &q, &o, &c) == 0);
	CHECK(c.short_frac == 0 && (c.threshold == 0 || c.pass_frac == 1.0));

	/* Bad arguments. */
	o.k = 0;
	o.factor = 0;
	o.quantile = 10001;
	CHECK(reis_df_calibrate(&bf, &q, &o, &c) == -EINVAL);
	o.quantile = 0;
	q.dim = 256;
	CHECK(reis_df_calibrate(&bf, &q, &o, &c) == -EINVAL);
	q.dim = dim;
	ivf.ncalib = 0;
	o.nprobe = 0;
	CHECK(reis_df_calibrate(&ivf, &q, &o, &c) == -EINVAL);
	CHECK(reis_df_calibrate(NULL, &q, &o, &c) == -EINVAL);

	reis_queries_free(&q);
	reis_db_image_free(&bf);
	reis_db_image_free(&ivf);
	free(x);
	free(qf);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_reis_tools.XXXXXX");
	REQUIRE(mkdtemp(dir));
	test_readers();
	test_quant();
	test_kmeans();
	test_topk();
	test_images_and_reference();
	test_decode_fuzz();
	test_df_calibrate();
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			fprintf(stderr, "could not remove %s\n", dir);
	}
	return t_result();
}
