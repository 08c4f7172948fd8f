/*
 * gt - exact float top-K neighbours by inner product, and a sanity report.
 *
 *   gt BASE.fvecs QUERY.fvecs ANSWER.ivecs K OUT.ivecs OUT.fvecs
 *
 * Steps:
 *   1. read the base and query vectors (.fvecs) and each query's answer id
 *      (.ivecs, one id per query);
 *   2. for blocks of queries against blocks of base vectors (cache-sized),
 *      score every pair and keep each query's K best in a min-heap;
 *   3. write the ids (.ivecs) and scores (.fvecs) best first; ties go to
 *      the lower id, so the output is a function of the input bytes only;
 *   4. print JSON on stdout: vector norms and the recall@1/10/100 of the
 *      answer id among the exact neighbours.
 *
 * The dot product has a fixed summation order (8 lanes, then a fixed tree)
 * so results do not depend on the compiler's vectorizer; build with
 * -ffp-contract=off so no FMA changes roundings. Two threads split queries.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QBLOCK 32
#define BBLOCK 256
#define NTHREADS 2

struct vecs {
	int32_t n, dim;
	float *v;
};

struct hit {
	float s;
	int32_t id;
};

struct job {
	const struct vecs *base, *q;
	int k, q0, q1;
	struct hit *out; /* q->n * k */
};

static void die(const char *what, const char *file)
{
	fprintf(stderr, "gt: %s: %s\n", file, what);
	exit(1);
}

/* Reads .fvecs (or .ivecs: same layout, 4-byte elements). */
static void read_vecs(const char *file, struct vecs *x)
{
	FILE *f = fopen(file, "rb");
	if (!f)
		die(strerror(errno), file);
	if (fseek(f, 0, SEEK_END) != 0)
		die("cannot seek", file);
	long size = ftell(f);
	rewind(f);
	int32_t dim;
	if (size == 0) { /* an empty query set is valid */
		fclose(f);
		*x = (struct vecs){ 0, 0, NULL };
		return;
	}
	if (size < 4 || fread(&dim, 4, 1, f) != 1 || dim <= 0 || dim > 65536)
		die("not a .fvecs/.ivecs file", file);
	long row = 4 + 4L * dim;
	if (size % row != 0)
		die("size is not a multiple of the row size", file);
	x->n = (int32_t)(size / row);
	x->dim = dim;
	x->v = malloc((size_t)x->n * dim * 4);
	if (!x->v)
		die("out of memory", file);
	rewind(f);
	for (int32_t i = 0; i < x->n; i++) {
		int32_t d;
		if (fread(&d, 4, 1, f) != 1 || d != dim ||
		    fread(x->v + (size_t)i * dim, 4, dim, f) != (size_t)dim)
			die("inconsistent row", file);
	}
	fclose(f);
}

static float dot(const float *a, const float *b, int dim)
{
	float acc[8] = { 0 };
	int d = 0;
	for (; d + 8 <= dim; d += 8)
		for (int j = 0; j < 8; j++)
			acc[j] += a[d + j] * b[d + j];
	for (; d < dim; d++)
		acc[d & 7] += a[d] * b[d];
	return ((acc[0] + acc[1]) + (acc[2] + acc[3])) +
	       ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

/* a ranks below b: lower score, or equal score and higher id. */
static int worse(struct hit a, struct hit b)
{
	return a.s < b.s || (a.s == b.s && a.id > b.id);
}

static void sift_down(struct hit *h, int n, int i)
{
	for (;;) {
		int m = i, l = 2 * i + 1, r = l + 1;
		if (l < n && worse(h[l], h[m]))
			m = l;
		if (r < n && worse(h[r], h[m]))
			m = r;
		if (m == i)
			return;
		struct hit t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void push(struct hit *h, int *n, int k, struct hit x)
{
	if (*n < k) {
		int i = (*n)++;
		h[i] = x;
		while (i > 0 && worse(h[i], h[(i - 1) / 2])) {
			struct hit t = h[i];
			h[i] = h[(i - 1) / 2];
			h[(i - 1) / 2] = t;
			i = (i - 1) / 2;
		}
	} else if (worse(h[0], x)) {
		h[0] = x;
		sift_down(h, k, 0);
	}
}

static int by_rank(const void *pa, const void *pb)
{
	struct hit a = *(const struct hit *)pa, b = *(const struct hit *)pb;
	return worse(b, a) ? -1 : worse(a, b) ? 1 : 0;
}

static void *run(void *arg)
{
	struct job *j = arg;
	int dim = j->base->dim, k = j->k;
	int fill[QBLOCK];
	for (int q0 = j->q0; q0 < j->q1; q0 += QBLOCK) {
		int nq = j->q1 - q0 < QBLOCK ? j->q1 - q0 : QBLOCK;
		memset(fill, 0, sizeof(fill));
		for (int b0 = 0; b0 < j->base->n; b0 += BBLOCK) {
			int b1 = b0 + BBLOCK < j->base->n ? b0 + BBLOCK : j->base->n;
			for (int qi = 0; qi < nq; qi++) {
				const float *qv = j->q->v + (size_t)(q0 + qi) * dim;
				struct hit *h = j->out + (size_t)(q0 + qi) * k;
				for (int b = b0; b < b1; b++) {
					struct hit x = { dot(qv, j->base->v + (size_t)b * dim, dim), b };
					push(h, &fill[qi], k, x);
				}
			}
		}
		for (int qi = 0; qi < nq; qi++)
			qsort(j->out + (size_t)(q0 + qi) * k, k, sizeof(struct hit), by_rank);
	}
	return NULL;
}

static void norms(const struct vecs *x, const char *name, int last)
{
	double mn = INFINITY, mx = 0, sum = 0;
	for (int32_t i = 0; i < x->n; i++) {
		double s = 0;
		for (int d = 0; d < x->dim; d++)
			s += (double)x->v[(size_t)i * x->dim + d] * x->v[(size_t)i * x->dim + d];
		s = sqrt(s);
		mn = s < mn ? s : mn;
		mx = s > mx ? s : mx;
		sum += s;
	}
	if (x->n == 0)
		mn = 0;
	printf("  \"%s_norm\": {\"min\": %.7f, \"max\": %.7f, \"mean\": %.7f}%s\n",
	       name, mn, mx, x->n ? sum / x->n : 0.0, last ? "" : ",");
}

int main(int argc, char **argv)
{
	if (argc != 7) {
		fprintf(stderr, "usage: gt BASE.fvecs QUERY.fvecs ANSWER.ivecs K OUT.ivecs OUT.fvecs\n");
		return 2;
	}
	struct vecs base, q, ans;
	read_vecs(argv[1], &base);
	read_vecs(argv[2], &q);
	read_vecs(argv[3], &ans);
	int k = atoi(argv[4]);
	if (base.n == 0)
		die("empty base", argv[1]);
	if (q.n > 0 && q.dim != base.dim)
		die("query and base dimensions differ", argv[2]);
	if (ans.n != q.n || (q.n > 0 && ans.dim != 1))
		die("need one answer id per query", argv[3]);
	if (k < 1)
		die("K must be >= 1", argv[4]);
	if (k > base.n)
		k = base.n;

	struct hit *out = calloc((size_t)q.n * k + 1, sizeof(*out));
	if (!out)
		die("out of memory", "results");
	pthread_t th[NTHREADS];
	struct job jobs[NTHREADS];
	for (int t = 0; t < NTHREADS; t++) {
		jobs[t] = (struct job){ &base, &q, k, (int)((int64_t)q.n * t / NTHREADS),
					(int)((int64_t)q.n * (t + 1) / NTHREADS), out };
		if (pthread_create(&th[t], NULL, run, &jobs[t]) != 0)
			die("pthread_create failed", "threads");
	}
	for (int t = 0; t < NTHREADS; t++)
		pthread_join(th[t], NULL);

	FILE *fi = fopen(argv[5], "wb"), *ff = fopen(argv[6], "wb");
	if (!fi || !ff)
		die(strerror(errno), argv[fi ? 6 : 5]);
	int r1 = 0, r10 = 0, rk = 0;
	double rank_sum = 0;
	for (int32_t i = 0; i < q.n; i++) {
		const struct hit *h = out + (size_t)i * k;
		int32_t kk = k;
		fwrite(&kk, 4, 1, fi);
		fwrite(&kk, 4, 1, ff);
		for (int j = 0; j < k; j++) {
			fwrite(&h[j].id, 4, 1, fi);
			fwrite(&h[j].s, 4, 1, ff);
			if (h[j].id == ((int32_t *)ans.v)[i]) {
				r1 += j < 1;
				r10 += j < 10;
				rk++;
				rank_sum += j + 1;
			}
		}
	}
	if (fclose(fi) != 0 || fclose(ff) != 0)
		die("write failed", argv[5]);

	double nq = q.n ? q.n : 1;
	printf("{\n  \"base\": %d, \"queries\": %d, \"dim\": %d, \"k\": %d,\n",
	       base.n, q.n, base.dim, k);
	printf("  \"answer_recall_at_1\": %.4f, \"answer_recall_at_10\": %.4f, "
	       "\"answer_recall_at_%d\": %.4f,\n",
	       (double)r1 / nq, (double)r10 / nq, k, (double)rk / nq);
	printf("  \"answer_mean_rank_when_found\": %.2f,\n", rk ? rank_sum / rk : 0.0);
	norms(&base, "base", 0);
	norms(&q, "query", 1);
	printf("}\n");
	free(out);
	free(base.v);
	free(q.v);
	free(ans.v);
	return 0;
}
