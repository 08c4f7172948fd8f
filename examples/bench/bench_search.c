/* SPDX-License-Identifier: MIT */
/*
 * bench_search - what the emulator costs beside just doing the search
 * (docs/benchmarks.md): host CPU time per query and codes/s of
 *   - the emulator: the in-process drive (no completion delay) running
 *     brute-force SEARCH and IVF_SEARCH, k = 10, INT8 rerank of the top 100;
 *   - a plain host search written here: XOR + popcount over the same binary
 *     codes with the widest kernel this CPU has (compiled -O3), the top 100
 *     by (Hamming, entry) in a bounded max-heap, the same INT8 rerank; for
 *     IVF the same centroids and nprobe;
 *   - FAISS from Debian (bench_search_faiss.py: IndexBinaryFlat and
 *     IndexBinaryIVF on the same codes, one thread, k x 10, then the same
 *     INT8 rerank in numpy), in a child process;
 * and the ratios emulator / plain and emulator / FAISS.
 *
 * Steps:
 *  1. the 20 k WordNet corpus (docs/corpus.md): build the IVF database
 *     (about sqrt(n) clusters), deploy it; the smallest nprobe of the
 *     emulator's IVF that reaches recall@10 0.95 on the evaluation queries;
 *  2. a generated brute-force database of --big entries x 1024 bits
 *     (random codes, seeded), deployed the same way;
 *  3. per workload, five interleaved rounds of every method; the minimum
 *     CPU time of each; top-10 agreement with the emulator and recall@10
 *     against the exact float truth (corpus only). Brute force also runs
 *     the plain scan blocked as the emulator blocks a command's queries
 *     (64 queries share each 16 KiB of codes) and the emulator with one
 *     query per command (no block to share).
 *
 * Usage: bench_search [--big N] [--big-nq Q] [--nq Q] [--rounds R]
 *                     [--faiss SCRIPT|none] [--profile bf|bf1|ivf] [CORPUS_DIR]
 *   --big 0 skips the generated database (default 1000000); FAISS runs
 *   only with --faiss (make bench-search passes bench_search_faiss.py).
 *   --profile runs only that emulator method (brute force in commands of
 *   64, of one query, IVF) for perf, and prints its CPU time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include "corpus.h"
#include "libreis_tools.h"

#define K 10
#define FACTOR 10
#define CAND (K * FACTOR)
#define BATCH 64
#define TARGET_RECALL 0.95
#define PLAIN_MAX_PROBE 64	/* the largest nprobe pick_nprobe() tries */

#if defined(__x86_64__)
#include <immintrin.h>
#endif

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- the plain host search ---- */

typedef uint32_t (*ham_fn)(const uint8_t *a, const uint8_t *b, uint32_t bytes);

static inline uint32_t ham_scalar(const uint8_t *a, const uint8_t *b, uint32_t bytes)
{
	uint32_t d = 0, i;

	for (i = 0; i + 8 <= bytes; i += 8) {
		uint64_t x, y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		d += (uint32_t)__builtin_popcountll(x ^ y);
	}
	return d;
}

#if defined(__x86_64__)
__attribute__((target("popcnt")))
static inline uint32_t ham_popcnt(const uint8_t *a, const uint8_t *b, uint32_t bytes)
{
	return ham_scalar(a, b, bytes);
}

/* Codes are a multiple of 512 bits here (the corpus and the generated set). */
__attribute__((target("avx512f,avx512vpopcntdq")))
static inline uint32_t ham_avx512(const uint8_t *a, const uint8_t *b, uint32_t bytes)
{
	__m512i acc = _mm512_setzero_si512();
	uint32_t i;

	for (i = 0; i < bytes; i += 64)
		acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(
			_mm512_xor_si512(_mm512_loadu_si512((const void *)(a + i)),
					 _mm512_loadu_si512((const void *)(b + i)))));
	return (uint32_t)_mm512_reduce_add_epi64(acc);
}

/*
 * Four codes per step, each query chunk loaded once for the four (the
 * emulator's kernel has the same shape): on Zen 4 faster than one code at
 * a time once the codes stream from memory.
 */
__attribute__((target("avx512f,avx512vpopcntdq")))
static void ham4_avx512(const uint8_t *q, const uint8_t *x, uint32_t bytes, uint32_t *d)
{
	__m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
	uint32_t i;

	for (i = 0; i < bytes; i += 64) {
		__m512i qv = _mm512_loadu_si512((const void *)(q + i));

#define HAM4_ACC(a, c) a = _mm512_add_epi64(a, _mm512_popcnt_epi64(_mm512_xor_si512(qv, \
			_mm512_loadu_si512((const void *)(x + (c) * bytes + i)))))
		HAM4_ACC(a0, 0);
		HAM4_ACC(a1, 1);
		HAM4_ACC(a2, 2);
		HAM4_ACC(a3, 3);
#undef HAM4_ACC
	}
	d[0] = (uint32_t)_mm512_reduce_add_epi64(a0);
	d[1] = (uint32_t)_mm512_reduce_add_epi64(a1);
	d[2] = (uint32_t)_mm512_reduce_add_epi64(a2);
	d[3] = (uint32_t)_mm512_reduce_add_epi64(a3);
}
#endif

typedef int64_t (*dot_fn)(const int8_t *q, const int8_t *x, uint32_t dim);

/* The INT8 dot product, vectorised by the compiler for each ISA. */
#define PLAIN_DOT(name, attr)                                                   \
	attr static int64_t name(const int8_t *q, const int8_t *x, uint32_t dim)  \
	{                                                                         \
		int32_t s = 0;                                                    \
		uint32_t d;                                                       \
                                                                                  \
		for (d = 0; d < dim; d++)                                         \
			s += (int16_t)q[d] * (int16_t)x[d];                       \
		return s;                                                         \
	}

PLAIN_DOT(dot_scalar, )
#if defined(__x86_64__)
PLAIN_DOT(dot_avx2, __attribute__((target("avx2"))))
PLAIN_DOT(dot_avx512, __attribute__((target("avx512f,avx512bw"))))
#endif

struct plain;
typedef void (*scan_fn)(struct plain *p, const uint8_t *codes, uint64_t first, uint64_t n,
			uint32_t bytes, const uint8_t *q);

struct plain {
	ham_fn ham;
	scan_fn scan;
	dot_fn dot;
	const char *name;
	const uint8_t *bin;	/* the codes: the image's, or a huge-page copy */
	uint64_t heap[CAND];	/* max-heap of (Hamming << 32 | entry) */
	uint32_t nh;
};

static void heap_push(struct plain *p, uint64_t key)
{
	uint32_t i, c;

	if (p->nh < CAND) {
		for (i = p->nh++; i && p->heap[(i - 1) / 2] < key; i = (i - 1) / 2)
			p->heap[i] = p->heap[(i - 1) / 2];
		p->heap[i] = key;
		return;
	}
	if (key >= p->heap[0])
		return;
	for (i = 0; (c = 2 * i + 1) < CAND; i = c) {
		if (c + 1 < CAND && p->heap[c + 1] > p->heap[c])
			c++;
		if (p->heap[c] <= key)
			break;
		p->heap[i] = p->heap[c];
	}
	p->heap[i] = key;
}

/* One loop per kernel, the distance inlined, the heap touched only below its top. */
#define PLAIN_SCAN(name, ham, attr)                                                     \
	attr static void name(struct plain *p, const uint8_t *codes, uint64_t first,      \
			      uint64_t n, uint32_t bytes, const uint8_t *q)               \
	{                                                                                 \
		uint64_t e;                                                               \
                                                                                          \
		for (e = first; e < first + n; e++) {                                     \
			uint64_t key = (uint64_t)ham(q, codes + e * bytes, bytes) << 32 | e; \
                                                                                          \
			if (p->nh < CAND || key < p->heap[0])                             \
				heap_push(p, key);                                        \
		}                                                                         \
	}

PLAIN_SCAN(scan_scalar, ham_scalar, )
#if defined(__x86_64__)
PLAIN_SCAN(scan_popcnt, ham_popcnt, __attribute__((target("popcnt"))))
PLAIN_SCAN(scan_avx512, ham_avx512, __attribute__((target("avx512f,avx512vpopcntdq"))))

__attribute__((target("avx512f,avx512vpopcntdq")))
static void scan_avx512x4(struct plain *p, const uint8_t *codes, uint64_t first, uint64_t n,
			  uint32_t bytes, const uint8_t *q)
{
	uint64_t e = first, end = first + n;
	uint32_t d[4], j;

	for (; e + 4 <= end; e += 4) {
		ham4_avx512(q, codes + e * bytes, bytes, d);
		for (j = 0; j < 4; j++) {
			uint64_t key = (uint64_t)d[j] << 32 | (e + j);

			if (p->nh < CAND || key < p->heap[0])
				heap_push(p, key);
		}
	}
	for (; e < end; e++) {
		uint64_t key = (uint64_t)ham_avx512(q, codes + e * bytes, bytes) << 32 | e;

		if (p->nh < CAND || key < p->heap[0])
			heap_push(p, key);
	}
}
#endif

/*
 * The kernels this CPU runs, narrowest first; plain_pick() keeps the
 * fastest on the workload (the widest is not always the fastest at 512 bits).
 */
static unsigned plain_kernels(struct plain *k, uint32_t bytes)
{
	unsigned n = 0;

	k[n].ham = ham_scalar;
	k[n].scan = scan_scalar;
	k[n++].name = "portable";
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("popcnt")) {
		k[n].ham = ham_popcnt;
		k[n].scan = scan_popcnt;
		k[n++].name = "popcnt";
	}
	if (bytes % 64 == 0 && __builtin_cpu_supports("avx512f") &&
	    __builtin_cpu_supports("avx512vpopcntdq")) {
		k[n].ham = ham_avx512;
		k[n].scan = scan_avx512;
		k[n++].name = "avx512-vpopcntdq";
		k[n].ham = ham_avx512;
		k[n].scan = scan_avx512x4;
		k[n++].name = "avx512-vpopcntdq x4";
	}
#else
	(void)bytes;
#endif
	return n;
}

/* The widest INT8 dot product this CPU runs. */
static dot_fn plain_dot(void)
{
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"))
		return dot_avx512;
	if (__builtin_cpu_supports("avx2"))
		return dot_avx2;
#endif
	return dot_scalar;
}

/* Rerank the heap: best inner product first, then (Hamming, entry). */
static void plain_rerank(struct plain *p, const int8_t *int8, uint32_t dim, const int8_t *q8,
			 uint32_t *out)
{
	int64_t sc[K];
	uint64_t ky[K];
	uint32_t i, j, nk = 0;

	for (i = 0; i < p->nh; i++) {
		uint64_t key = p->heap[i];
		int64_t s = p->dot(q8, int8 + (key & 0xffffffffu) * dim, dim);

		if (nk == K && (s < sc[K - 1] || (s == sc[K - 1] && key > ky[K - 1])))
			continue;
		j = nk < K ? nk++ : K - 1;
		for (; j > 0 && (s > sc[j - 1] || (s == sc[j - 1] && key < ky[j - 1])); j--) {
			sc[j] = sc[j - 1];
			ky[j] = ky[j - 1];
		}
		sc[j] = s;
		ky[j] = key;
	}
	for (i = 0; i < K; i++)
		out[i] = i < nk ? (uint32_t)ky[i] : UINT32_MAX;
}

/* ---- workloads ---- */

struct work {
	const char *name;
	struct reis_db_image *img;
	const struct reis_queries *q;
	uint32_t nq;
	const struct reis_vecs *gt;	/* float truth, or NULL */
	uint32_t nprobe;		/* 0: brute force */
	uint32_t *cl_first;		/* IVF: first entry of each cluster */
};

struct result {
	double us;		/* min CPU us per query */
	double codes_s;		/* codes compared per CPU second */
	uint32_t *top;		/* nq * K entries */
	double recall;
	double agree;
	int ok;
};

/* The emulator, @batch queries per command. */
static int emu_run(struct reis_dev *dev, const struct work *w, uint32_t batch, struct result *r,
		   uint64_t *codes)
{
	struct reis_search_opts so;
	uint32_t first, i;

	memset(&so, 0, sizeof(so));
	so.did = w->img->did;
	so.k = K;
	so.rerank_factor = FACTOR;
	so.nprobe = w->nprobe;
	*codes = 0;
	for (first = 0; first < w->nq; first += batch) {
		struct reis_queries sub = corpus_qslice(w->q, first,
							w->nq - first < batch ? w->nq - first : batch);
		struct reis_search_result res;

		if (corpus_search(dev, &so, &sub, &res)) {
			fprintf(stderr, "bench_search: %s: %s\n", w->name, reis_last_error(dev));
			return -1;
		}
		*codes += res.entries_compared;
		for (i = 0; i < sub.nq * K; i++)
			r->top[(size_t)first * K + i] =
				i % K < res.k ? res.hits[(i / K) * res.k + i % K].entry : UINT32_MAX;
		reis_search_result_free(&res);
	}
	return 0;
}

/* The nprobe nearest centroids by (Hamming, cluster), then their entries. */
static uint64_t plain_ivf(struct plain *p, const struct work *w, const uint8_t *qb)
{
	const struct reis_db_image *img = w->img;
	uint32_t bytes = img->dim / 8, c;
	uint64_t best[PLAIN_MAX_PROBE], key, codes = img->nlist;
	uint32_t nb = 0, j;

	for (c = 0; c < img->nlist; c++) {
		key = (uint64_t)p->ham(qb, img->centroids + (size_t)c * bytes, bytes) << 32 | c;
		if (nb == w->nprobe && key >= best[nb - 1])
			continue;
		j = nb < w->nprobe ? nb++ : nb - 1;
		for (; j > 0 && best[j - 1] > key; j--)
			best[j] = best[j - 1];
		best[j] = key;
	}
	for (j = 0; j < nb; j++) {
		c = (uint32_t)best[j];
		p->scan(p, p->bin, w->cl_first[c], img->cluster_sizes[c], bytes, qb);
		codes += img->cluster_sizes[c];
	}
	return codes;
}

static uint64_t plain_run(struct plain *p, const struct work *w, struct result *r)
{
	const struct reis_db_image *img = w->img;
	uint32_t bytes = img->dim / 8, qi;
	uint64_t codes = 0;

	for (qi = 0; qi < w->nq; qi++) {
		const uint8_t *qb = w->q->bin + (size_t)qi * bytes;

		p->nh = 0;
		if (w->nprobe) {
			codes += plain_ivf(p, w, qb);
		} else {
			p->scan(p, p->bin, 0, img->n, bytes, qb);
			codes += img->n;
		}
		plain_rerank(p, img->int8, img->dim, w->q->int8 + (size_t)qi * img->dim,
			     r->top + (size_t)qi * K);
	}
	return codes;
}

/* Codes a blocked plain scan takes at a time: one 16 KiB flash page's worth. */
#define PLAIN_CHUNK_BYTES 16384u

/*
 * Brute force as the emulator blocks it: BATCH queries (one command) at a
 * time, each 16 KiB of codes scanned for all of them while in L1, a heap
 * per query; the same rerank.
 */
static uint64_t plain_run_blocked(const struct plain *p, const struct work *w,
				  struct result *r)
{
	const struct reis_db_image *img = w->img;
	uint32_t bytes = img->dim / 8, q0, j, nb;
	uint64_t chunk = PLAIN_CHUNK_BYTES / bytes ? PLAIN_CHUNK_BYTES / bytes : 1, e;
	static struct plain pb[BATCH];

	for (q0 = 0; q0 < w->nq; q0 += nb) {
		nb = w->nq - q0 < BATCH ? w->nq - q0 : BATCH;
		for (j = 0; j < nb; j++) {
			pb[j] = *p;
			pb[j].nh = 0;
		}
		for (e = 0; e < img->n; e += chunk)
			for (j = 0; j < nb; j++)
				p->scan(&pb[j], p->bin, e, img->n - e < chunk ? img->n - e : chunk,
					bytes, w->q->bin + (size_t)(q0 + j) * bytes);
		for (j = 0; j < nb; j++)
			plain_rerank(&pb[j], img->int8, img->dim,
				     w->q->int8 + (size_t)(q0 + j) * img->dim,
				     r->top + (size_t)(q0 + j) * K);
	}
	return (uint64_t)w->nq * img->n;
}

/*
 * A copy of @n bytes of codes on transparent huge pages (2 MiB aligned,
 * MADV_HUGEPAGE: this host's THP mode is "madvise"), so a scan crosses no
 * 4 KiB TLB or prefetch boundary; NULL when the kernel refuses.
 */
static uint8_t *codes_huge(const uint8_t *bin, size_t n, size_t *len)
{
	size_t a = 2u << 20;
	uint8_t *m;

	*len = (n + a - 1) / a * a;
	m = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	if (madvise(m, *len, MADV_HUGEPAGE)) {
		munmap(m, *len);
		return NULL;
	}
	memcpy(m, bin, n);
	return m;
}

/*
 * The fastest kernel and codes buffer (the image's, or @huge when not
 * NULL) on @w's first queries: the strongest baseline.
 */
static void plain_pick(struct plain *p, const struct work *w, const uint8_t *huge)
{
	struct plain k[4];
	struct work w1 = *w;
	uint32_t *top = malloc((size_t)w->nq * K * sizeof(*top));
	unsigned nk = plain_kernels(k, w->img->dim / 8), j, h;
	double best = 1e300;

	if (!top)
		exit(1);
	w1.nq = w->nq < 200 ? w->nq : 200;
	for (h = 0; h < (huge ? 2u : 1u); h++) {
		for (j = 0; j < nk; j++) {
			struct result r = { .top = top };
			double t;

			k[j].dot = plain_dot();
			k[j].bin = h ? huge : w->img->bin;
			t = cpu_s();
			plain_run(&k[j], &w1, &r);
			t = cpu_s() - t;
			if (t < best) {
				best = t;
				*p = k[j];
			}
		}
	}
	free(top);
}

/* ---- FAISS, in a child process ---- */

static int write_file(const char *dir, const char *name, const void *b, size_t len)
{
	char p[700];
	FILE *f;
	int ok;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "wb");
	if (!f)
		return -1;
	ok = fwrite(b, 1, len, f) == len;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static int read_top(const char *dir, const char *name, uint32_t *top, size_t n)
{
	char p[700];
	FILE *f;
	size_t got;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "rb");
	if (!f)
		return -1;
	got = fread(top, sizeof(*top), n, f);
	fclose(f);
	return got == n ? 0 : -1;
}

/*
 * Run @script on @w's codes: results for IndexBinaryFlat (@flat) and, for
 * IVF, IndexBinaryIVF at the same nlist and nprobe (@ivf).
 */
static int faiss_run(const char *script, const struct work *bf, const struct work *ivf,
		     uint32_t rounds, struct result *flat, struct result *fivf)
{
	const struct reis_db_image *img = bf->img;
	char dir[] = "/tmp/bench_search.XXXXXX", cmd[2048], line[256];
	uint32_t bytes = img->dim / 8;
	FILE *pp;
	int ret = -1;

	if (!mkdtemp(dir))
		return -1;
	if (write_file(dir, "codes.bin", img->bin, img->n * bytes) ||
	    write_file(dir, "int8.bin", img->int8, img->n * img->dim) ||
	    write_file(dir, "qbin.bin", bf->q->bin, (size_t)bf->nq * bytes) ||
	    write_file(dir, "q8.bin", bf->q->int8, (size_t)bf->nq * img->dim))
		goto out;
	snprintf(cmd, sizeof(cmd),
		 "'%s' '%s' --dir %s --n %" PRIu64 " --dim %u --nq %u --k %u --factor %u "
		 "--rounds %u --nlist %u --nprobe %u",
		 getenv("PYTHON") ? getenv("PYTHON") : "/usr/bin/python3", script, dir, img->n, img->dim, bf->nq, K, FACTOR, rounds,
		 ivf ? img->nlist : 0, ivf ? ivf->nprobe : 0);
	pp = popen(cmd, "r");
	if (!pp)
		goto out;
	while (fgets(line, sizeof(line), pp)) {
		double us;
		char what[32];

		if (sscanf(line, "%31s %lf", what, &us) != 2)
			continue;
		if (!strcmp(what, "flat")) {
			flat->us = us;
			flat->ok = !read_top(dir, "flat.top", flat->top, (size_t)bf->nq * K);
		} else if (!strcmp(what, "ivf") && ivf) {
			fivf->us = us;
			fivf->ok = !read_top(dir, "ivf.top", fivf->top, (size_t)ivf->nq * K);
		} else if (!strcmp(what, "version")) {
			printf("FAISS: %s", line + 8);
		}
	}
	ret = pclose(pp) == 0 ? 0 : -1;
out:
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		ret = -1;
	return ret;
}

/* ---- reporting ---- */

static void score(const struct work *w, struct result *r, const uint32_t *emu)
{
	uint32_t i, j, same = 0, hit = 0;

	for (i = 0; i < w->nq; i++) {
		for (j = 0; j < K; j++) {
			uint32_t e = r->top[(size_t)i * K + j], t, c;

			same += e == emu[(size_t)i * K + j];
			if (!w->gt || e == UINT32_MAX || e >= w->img->n)
				continue;
			t = w->img->ids ? (uint32_t)w->img->ids[e] : e;
			for (c = 0; c < K; c++)
				hit += (uint32_t)((const int32_t *)w->gt->data)[(size_t)i * w->gt->dim + c] == t;
		}
	}
	r->agree = (double)same / (w->nq * K);
	r->recall = w->gt ? (double)hit / (w->nq * K) : -1;
}

static void row(const char *what, const struct result *r, const struct result *emu)
{
	if (!r->ok) {
		printf("  %-34s %12s\n", what, "skipped");
		return;
	}
	printf("  %-34s %12.1f", what, r->us);
	if (r->codes_s >= 0)
		printf(" %12.3g", r->codes_s);
	else
		printf(" %12s", "-");
	printf(" %9.3f", r->agree);
	if (r->recall >= 0)
		printf(" %9.3f", r->recall);
	else
		printf(" %9s", "-");
	if (r != emu)
		printf("   emulator is %.2fx its speed", r->us / emu->us);
	printf("\n");
}

struct opts {
	uint64_t big;
	uint32_t big_nq, nq, rounds;
	const char *faiss;
	const char *only;	/* --profile: one emulator method, nothing else */
};

static struct result res_new(uint32_t nq)
{
	struct result r;

	memset(&r, 0, sizeof(r));
	r.top = calloc((size_t)nq * K, sizeof(*r.top));
	if (!r.top)
		exit(1);
	r.us = 1e300;
	return r;
}

/*
 * --profile: only the emulator method @o->only ("bf", "bf1": one query per
 * command, "ivf") for the rounds, so perf sees nothing else.
 */
static void profile_run(struct reis_dev *dev, const struct work *bf, const struct work *ivf,
			const struct opts *o)
{
	const struct work *w = !strcmp(o->only, "ivf") ? ivf : bf;
	struct result r;
	uint64_t codes;
	uint32_t rd;
	double t;

	if (!w)
		return;
	r = res_new(w->nq);
	t = cpu_s();
	for (rd = 0; rd < o->rounds; rd++)
		if (emu_run(dev, w, strcmp(o->only, "bf1") ? BATCH : 1, &r, &codes))
			exit(1);
	printf("  %s, %s: %.1f CPU us/query over %u rounds\n", w->name, o->only,
	       (cpu_s() - t) * 1e6 / ((double)w->nq * o->rounds), o->rounds);
	free(r.top);
}

/* @bf and, when not NULL, @ivf on one deployed database, interleaved. */
static void bench(struct reis_dev *dev, const struct work *bf, const struct work *ivf,
		  const struct opts *o)
{
	struct result e[2], p[2], f[2], pb, e1;
	const struct work *ws[2] = { bf, ivf };
	struct plain pl;
	uint32_t rd, i;
	size_t hlen = 0;
	uint8_t *huge;

	if (o->only) {
		profile_run(dev, bf, ivf, o);
		return;
	}
	huge = codes_huge(bf->img->bin, bf->img->n * (bf->img->dim / 8), &hlen);
	plain_pick(&pl, bf, huge);
	pb = res_new(bf->nq);
	pb.ok = 1;
	e1 = res_new(bf->nq);
	e1.ok = 1;
	for (i = 0; i < 2; i++) {
		e[i] = res_new(bf->nq);
		p[i] = res_new(bf->nq);
		f[i] = res_new(bf->nq);
		e[i].ok = p[i].ok = ws[i] != NULL;
	}
	for (rd = 0; rd < o->rounds; rd++) {
		for (i = 0; i < 2; i++) {
			uint64_t codes;
			double t;

			if (!ws[i])
				continue;
			t = cpu_s();
			if (emu_run(dev, ws[i], BATCH, &e[i], &codes))
				exit(1);
			t = (cpu_s() - t) * 1e6 / ws[i]->nq;
			if (t < e[i].us) {
				e[i].us = t;
				e[i].codes_s = codes / (t * ws[i]->nq / 1e6);
			}
			t = cpu_s();
			codes = plain_run(&pl, ws[i], &p[i]);
			t = (cpu_s() - t) * 1e6 / ws[i]->nq;
			if (t < p[i].us) {
				p[i].us = t;
				p[i].codes_s = codes / (t * ws[i]->nq / 1e6);
			}
			if (i)
				continue;
			t = cpu_s();
			if (emu_run(dev, ws[i], 1, &e1, &codes))
				exit(1);
			t = (cpu_s() - t) * 1e6 / ws[i]->nq;
			if (t < e1.us) {
				e1.us = t;
				e1.codes_s = codes / (t * ws[i]->nq / 1e6);
			}
			t = cpu_s();
			codes = plain_run_blocked(&pl, ws[i], &pb);
			t = (cpu_s() - t) * 1e6 / ws[i]->nq;
			if (t < pb.us) {
				pb.us = t;
				pb.codes_s = codes / (t * ws[i]->nq / 1e6);
			}
		}
	}
	if (strcmp(o->faiss, "none") &&
	    faiss_run(o->faiss, bf, ivf, o->rounds, &f[0], &f[1]))
		fprintf(stderr, "bench_search: FAISS run failed (scripts/setup-bench-deps.sh)\n");
	for (i = 0; i < 2; i++) {
		if (!ws[i])
			continue;
		score(ws[i], &e[i], e[i].top);
		score(ws[i], &p[i], e[i].top);
		if (f[i].ok) {
			score(ws[i], &f[i], e[i].top);
			/* FAISS does not count what IVF compares. */
			f[i].codes_s = i ? -1 : ws[i]->img->n / (f[i].us / 1e6);
		}
		printf("\n%s, %s", ws[i]->name, i ? "IVF" : "brute force");
		if (i)
			printf(" (nlist %u, nprobe %u)", ws[i]->img->nlist, ws[i]->nprobe);
		printf(", k = %u, INT8 rerank of the top %u, %u queries, min of %u rounds\n", K,
		       CAND, ws[i]->nq, o->rounds);
		printf("  %-34s %12s %12s %9s %9s\n", "method", "CPU us/query", "codes/s",
		       "same top", "recall@10");
		row("emulator (in-process drive)", &e[i], &e[i]);
		row(i ? "plain IVF scan + rerank (C -O3)" : "plain scan + rerank (C -O3)",
		    &p[i], &e[i]);
		if (!i) {
			score(ws[i], &pb, e[i].top);
			row("plain, 64-query blocks (C -O3)", &pb, &e[i]);
			score(ws[i], &e1, e[i].top);
			row("emulator, one query per command", &e1, &e[i]);
			printf("  %-34s the emulator at one query per command is %.2fx the plain "
			       "scan's speed\n", "", p[i].us / e1.us);
		}
		row(i ? "FAISS IndexBinaryIVF + rerank" : "FAISS IndexBinaryFlat + rerank", &f[i],
		    &e[i]);
		free(e[i].top);
		free(p[i].top);
		free(f[i].top);
	}
	free(pb.top);
	free(e1.top);
	printf("  (plain kernel: %s on %s, the fastest here; codes/s: codes compared per CPU "
	       "second; same top: share of the emulator's top-10 entries)\n", pl.name,
	       pl.bin == huge ? "huge pages" : "4 KiB pages");
	if (huge)
		munmap(huge, hlen);
}

/* A drive holding @img, and the brute-force workload @name over it. */
static struct reis_dev *open_drive(struct reis_db_image *img, const struct reis_queries *q,
				   const char *name, struct work *bf)
{
	struct reis_inproc_opts io;
	struct reis_dev *dev;
	char err[256];

	memset(&io, 0, sizeof(io));
	io.preset = "reis-ssd1";
	io.errbuf = err;
	io.errlen = sizeof(err);
	if (reis_open_inproc(&io, &dev)) {
		fprintf(stderr, "bench_search: drive: %s\n", err);
		exit(1);
	}
	if (reis_db_deploy(dev, img, NULL)) {
		fprintf(stderr, "bench_search: deploy: %s\n", reis_last_error(dev));
		exit(1);
	}
	memset(bf, 0, sizeof(*bf));
	bf->name = name;
	bf->img = img;
	bf->q = q;
	bf->nq = q->nq;
	return dev;
}

/* The smallest nprobe whose recall@10 reaches TARGET_RECALL. */
static uint32_t pick_nprobe(struct reis_dev *dev, struct work *w)
{
	static const uint32_t np[] = { 4, 8, 12, 16, 24, 32, 48, 64 };
	struct result r = res_new(w->nq);
	uint64_t codes;
	uint32_t i;

	for (i = 0; i < sizeof(np) / sizeof(np[0]); i++) {
		w->nprobe = np[i] < w->img->nlist ? np[i] : w->img->nlist;
		if (emu_run(dev, w, BATCH, &r, &codes))
			exit(1);
		score(w, &r, r.top);
		if (r.recall >= TARGET_RECALL)
			break;
	}
	free(r.top);
	return w->nprobe;
}

static void corpus_bench(const char *dir, const struct opts *o)
{
	struct corpus c;
	struct reis_build_opts bo;
	struct reis_db_image img;
	struct reis_queries q;
	struct reis_dev *dev;
	struct work bf, ivf;
	char err[1024];
	uint32_t i;

	if (corpus_find(&c, dir, "wordnet-subset")) {
		printf("bench_search: corpus skipped: none in %s (make corpus)\n", c.dir);
		return;
	}
	if (corpus_load(&c, err, sizeof(err))) {
		fprintf(stderr, "bench_search: %s\n", err);
		exit(1);
	}
	corpus_build_opts(&c, 1, &bo);
	bo.docs = NULL;
	bo.doc_offsets = NULL;
	if (reis_db_build(&bo, c.base.data, c.base.n, c.base.dim, &img, err, sizeof(err)) ||
	    reis_encode_queries(img.quant, c.queries.data, (uint32_t)c.queries.n, &q)) {
		fprintf(stderr, "bench_search: build: %s\n", err);
		exit(1);
	}
	dev = open_drive(&img, &q, "WordNet corpus", &bf);
	bf.nq = o->nq < q.nq ? o->nq : q.nq;
	bf.gt = &c.gt;
	ivf = bf;
	ivf.cl_first = malloc(img.nlist * sizeof(*ivf.cl_first));
	if (!ivf.cl_first)
		exit(1);
	for (i = 0; i < img.nlist; i++)
		ivf.cl_first[i] = i ? ivf.cl_first[i - 1] + img.cluster_sizes[i - 1] : 0;
	pick_nprobe(dev, &ivf);
	printf("\n== %s: %" PRIu64 " x %u bits (%s)\n", bf.name, img.n, img.dim, c.dir);
	bench(dev, &bf, &ivf, o);
	free(ivf.cl_first);
	reis_close(dev);
	reis_queries_free(&q);
	reis_db_image_free(&img);
	corpus_free(&c);
}

/* A seeded brute-force database of random codes, and random queries. */
static void big_bench(const struct opts *o)
{
	const uint32_t dim = 1024, bytes = dim / 8;
	struct reis_db_image img;
	struct reis_queries q;
	struct reis_dev *dev;
	struct work bf;
	uint8_t *bin = malloc(o->big * bytes), *qb = malloc((size_t)o->big_nq * bytes);
	int8_t *i8 = malloc(o->big * dim), *q8 = malloc((size_t)o->big_nq * dim);
	uint64_t s = 42, i;
	char err[256];

	if (!bin || !i8 || !qb || !q8)
		exit(1);
	/* A query near an entry, so the rerank has a real winner to find. */
	for (i = 0; i < o->big * bytes; i++)
		bin[i] = (uint8_t)((s = s * 6364136223846793005ull + 1442695040888963407ull) >> 56);
	for (i = 0; i < o->big * dim; i++)
		i8[i] = (int8_t)((s = s * 6364136223846793005ull + 1442695040888963407ull) >> 56);
	for (i = 0; i < o->big_nq; i++) {
		uint64_t e = (i * 7919) % o->big;

		memcpy(qb + i * bytes, bin + e * bytes, bytes);
		qb[i * bytes + i % bytes] ^= 0x11;
		memcpy(q8 + i * dim, i8 + e * dim, dim);
	}
	memset(&img, 0, sizeof(img));
	img.did = 2;
	img.kind = REIS_DB_BF;
	img.flags = REIS_DBF_INT8;
	img.dim = dim;
	img.n = o->big;
	img.metric = REIS_METRIC_IP;
	snprintf(img.name, sizeof(img.name), "generated");
	img.bin = bin;
	img.int8 = i8;
	if (reis_db_image_check(&img, err, sizeof(err))) {
		fprintf(stderr, "bench_search: generated image: %s\n", err);
		exit(1);
	}
	memset(&q, 0, sizeof(q));
	q.nq = o->big_nq;
	q.dim = dim;
	q.bin = qb;
	q.int8 = q8;
	dev = open_drive(&img, &q, "generated database", &bf);
	printf("\n== %s: %" PRIu64 " x %u bits (random codes, seed 42)\n", bf.name, img.n, dim);
	bench(dev, &bf, NULL, o);
	reis_close(dev);
	free(bin);
	free(i8);
	free(qb);
	free(q8);
}

int main(int argc, char **argv)
{
	struct opts o = { 1000000, 20, 2000, 5, NULL, NULL };
	const char *dir = NULL;
	struct stat st;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--big") && i + 1 < argc)
			o.big = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--big-nq") && i + 1 < argc)
			o.big_nq = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--nq") && i + 1 < argc)
			o.nq = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			o.rounds = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--faiss") && i + 1 < argc)
			o.faiss = argv[++i];
		else if (!strcmp(argv[i], "--profile") && i + 1 < argc)
			o.only = argv[++i];
		else if (argv[i][0] != '-')
			dir = argv[i];
		else {
			fprintf(stderr, "usage: bench_search [--big N] [--big-nq Q] [--nq Q] "
				"[--rounds R] [--faiss SCRIPT|none] [--profile bf|bf1|ivf] "
				"[CORPUS_DIR]\n");
			return 2;
		}
	}
	if (!o.rounds || !o.nq || !o.big_nq || o.big > (1ull << 31) ||
	    (o.big && o.big < 1000) ||
	    (o.only && strcmp(o.only, "bf") && strcmp(o.only, "bf1") && strcmp(o.only, "ivf"))) {
		fprintf(stderr, "bench_search: rounds, nq >= 1; --big 0 or 1000..2^31\n");
		return 2;
	}
	if (!o.faiss || (strcmp(o.faiss, "none") && stat(o.faiss, &st))) {
		printf("bench_search: FAISS skipped: no --faiss SCRIPT (make bench-search "
		       "passes examples/bench/bench_search_faiss.py)\n");
		o.faiss = "none";
	}
	printf("bench_search: host CPU time per query, one thread per method; emulator "
	       "Hamming kernel: see docs/benchmarks.md\n");
	corpus_bench(dir, &o);
	if (o.big)
		big_bench(&o);
	return 0;
}
