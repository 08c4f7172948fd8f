/* SPDX-License-Identifier: MIT */
/*
 * bench_search - what the emulator costs beside just doing the search
 * (docs/benchmarks.md): host CPU time per query and codes/s of
 *   - the emulator: the in-process drive (no completion delay, one host
 *     thread a command: host_threads=1) running brute-force SEARCH and
 *     IVF_SEARCH, k = 10, INT8 rerank of the top 100, in commands of 64
 *     queries and of one;
 *   - the strongest plain host search we can write (common/plain_search.h,
 *     -O3): the same codes in one array, an AVX-512 VPOPCNTDQ kernel eight
 *     codes a step against a threshold mask, a counting select over the
 *     Hamming range with the emulator's tie rule, the same INT8 rerank in
 *     C; brute force one query at a time and in blocks of 64 sharing each
 *     16 KiB of codes, IVF over the image's own clusters; kernel and
 *     buffers (the image's, or copies on huge pages) picked by timing;
 *   - FAISS (bench_search_faiss.py: IndexBinaryFlat and IndexBinaryIVF over
 *     the image's own centroids and clusters, one thread, all queries in
 *     one call) returning k x 10 candidates, reranked by the same C rerank
 *     here; Debian's build (no POPCNT) and, with --faiss-popcnt, FAISS
 *     1.7.3 built from Debian's source with upstream's FAISS_OPT_LEVEL=avx2
 *     (-mpopcnt; scripts/faiss-popcnt.sh);
 * and each emulator row's ratio to the plain row of the same batching.
 * Every method's top 10 is compared with the emulator's ("same top": the
 * plain ones must give 1.000).
 *
 * --scale N: instead of the above, one command of N queries (brute force
 * on the corpus) on a drive with one host thread and on one with
 * --threads T (default 2), alternated, wall time: the in-model split of
 * one command (both cores, scale_run()).
 *
 * Usage: bench_search [--big N] [--big-nq Q] [--nq Q] [--rounds R]
 *                     [--faiss SCRIPT|none] [--faiss-popcnt DIR|none]
 *                     [--threads T] [--scale N] [--profile bf|bf1|ivf|ivf1]
 *                     [CORPUS_DIR]
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
#define PS_K K
#define PS_CAND CAND
#include "plain_search.h"
#include "ex_usage.h"

#define BATCH 64
#define TARGET_RECALL 0.95
#define PICK_QUERIES 128	/* queries the plain configurations are timed on */

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- workloads and results ---- */

struct work {
	const char *name;
	struct reis_db_image *img;
	const struct reis_queries *q;
	uint32_t nq;
	const struct reis_vecs *gt;	/* float truth, or NULL */
	uint32_t nprobe;		/* 0: brute force */
	uint64_t *cl_first;		/* IVF: first entry of each cluster */
};

struct result {
	double us;		/* min CPU us per query */
	double codes_s;		/* codes compared per CPU second */
	uint32_t *top;		/* nq * K entries */
	double recall;
	double agree;
	int ok;
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

static void res_time(struct result *r, double t, uint64_t codes, uint32_t nq)
{
	double us = t * 1e6 / nq;

	if (us < r->us) {
		r->us = us;
		r->codes_s = codes / t;
	}
}

/* ---- the emulator ---- */

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

/* ---- the plain search ---- */

enum { PM_BF_ONE, PM_BF_BLOCK, PM_IVF_ONE };

/* A configuration of the plain search: kernel and buffers. */
struct plain {
	struct ps ps;
	struct ps_db db;
	const char *kname, *dname;
	int huge_codes, huge_int8;
};

static uint64_t plain_run(struct plain *p, int method, const struct work *w, uint32_t nq,
			  uint32_t *top)
{
	uint32_t bytes = w->img->dim / 8, dim = w->img->dim, q0, n;
	uint64_t codes = 0;

	for (q0 = 0; q0 < nq; q0 += n) {
		const uint8_t *qb = w->q->bin + (size_t)q0 * bytes;
		const int8_t *q8 = w->q->int8 + (size_t)q0 * dim;

		n = method == PM_BF_BLOCK ? (nq - q0 < BATCH ? nq - q0 : BATCH) : 1;
		if (method == PM_BF_BLOCK)
			codes += ps_bf_block(&p->ps, &p->db, qb, q8, n, top + (size_t)q0 * K);
		else if (method == PM_BF_ONE)
			codes += ps_bf_one(&p->ps, &p->db, qb, q8, top + (size_t)q0 * K);
		else
			codes += ps_ivf_one(&p->ps, &p->db, w->nprobe, qb, q8, top + (size_t)q0 * K);
	}
	return codes;
}

/*
 * A copy of @n bytes on transparent huge pages (2 MiB aligned,
 * MADV_HUGEPAGE: this host's THP mode is "madvise"), so a scan crosses no
 * 4 KiB TLB boundary; NULL when the kernel refuses. *@len: its mapping.
 */
static void *copy_huge(const void *src, size_t n, size_t *len)
{
	size_t a = 2u << 20;
	void *m;

	*len = (n + a - 1) / a * a;
	m = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	if (madvise(m, *len, MADV_HUGEPAGE)) {
		munmap(m, *len);
		return NULL;
	}
	memcpy(m, src, n);
	return m;
}

struct bufs {
	void *codes, *int8;	/* huge-page copies, or NULL */
	size_t codes_len, int8_len;
};

static void plain_db(struct ps_db *db, const struct work *w, const struct bufs *b, int hc,
		     int hi)
{
	const struct reis_db_image *img = w->img;

	memset(db, 0, sizeof(*db));
	db->bin = hc ? b->codes : img->bin;
	db->int8 = hi ? b->int8 : img->int8;
	db->n = img->n;
	db->dim = img->dim;
	db->bytes = img->dim / 8;
	db->centroids = img->centroids;
	db->csize = img->cluster_sizes;
	db->cfirst = w->cl_first;
	db->nlist = img->nlist;
}

/*
 * The fastest configuration of @method on @w's first queries: every
 * kernel this CPU runs on the image's codes or their huge-page copy, the
 * INT8 codes likewise. The strongest baseline we can pick.
 */
static void plain_pick(struct plain *best, int method, const struct work *w,
		       const struct bufs *b)
{
	struct ps_kernel k[4];
	uint32_t nq = w->nq < PICK_QUERIES ? w->nq : PICK_QUERIES;
	uint32_t *top = malloc((size_t)nq * K * sizeof(*top));
	unsigned nk = ps_kernels(k, w->img->dim / 8), j;
	double tbest = 1e300;
	const char *dname;
	ps_dot_fn dot = ps_dot_pick(w->img->dim, &dname);
	int hc, hi;

	if (!top)
		exit(1);
	if (method == PM_BF_BLOCK && nq < BATCH && w->nq >= BATCH)
		nq = BATCH;
	if (w->img->n >= 100000 && method != PM_BF_BLOCK)
		nq = nq < 8 ? nq : 8;	/* a query reads the whole 1 M database */
	memset(best, 0, sizeof(*best));
	for (hc = 0; hc < (b->codes ? 2 : 1); hc++) {
		for (hi = 0; hi < (b->int8 ? 2 : 1); hi++) {
			for (j = 0; j < nk; j++) {
				struct plain p;
				double t;

				memset(&p, 0, sizeof(p));
				if (ps_init(&p.ps, k[j].scan, dot, BATCH))
					exit(1);
				plain_db(&p.db, w, b, hc, hi);
				plain_run(&p, method, w, nq < 8 ? nq : 8, top);	/* warm */
				t = cpu_s();
				plain_run(&p, method, w, nq, top);
				t = cpu_s() - t;
				if (t < tbest) {
					ps_free(&best->ps);
					tbest = t;
					*best = p;
					best->kname = k[j].name;
					best->dname = dname;
					best->huge_codes = hc;
					best->huge_int8 = hi;
				} else {
					ps_free(&p.ps);
				}
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

static void *read_file(const char *dir, const char *name, size_t len)
{
	char p[700];
	FILE *f;
	void *b = malloc(len ? len : 1);
	size_t got;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "rb");
	if (!f || !b) {
		if (f)
			fclose(f);
		free(b);
		return NULL;
	}
	got = fread(b, 1, len, f);
	fclose(f);
	if (got != len) {
		free(b);
		return NULL;
	}
	return b;
}

/* FAISS's rows: its search time, then the C rerank of its candidates. */
struct faiss_res {
	struct result flat, ivf;
	double flat_search_us, ivf_search_us, flat_rerank_us, ivf_rerank_us;
	char version[64], build[64];
};

/*
 * The C rerank of FAISS's candidates (@cand: nq x CAND labels, -1 none;
 * @dist their Hamming distances) into @r->top, timed over @rounds.
 */
static double faiss_rerank(const struct work *w, const int64_t *cand, const int32_t *dist,
			   uint32_t rounds, struct result *r)
{
	const struct reis_db_image *img = w->img;
	uint64_t key[CAND];
	uint8_t *qu = malloc(img->dim);
	const char *dn;
	ps_dot_fn dot = ps_dot_pick(img->dim, &dn);
	double best = 1e300, t;
	uint32_t rd, qi, i, n;

	if (!qu)
		exit(1);
	for (rd = 0; rd < rounds; rd++) {
		t = cpu_s();
		for (qi = 0; qi < w->nq; qi++) {
			for (i = n = 0; i < CAND; i++) {
				int64_t e = cand[(size_t)qi * CAND + i];

				if (e >= 0 && (uint64_t)e < img->n)
					key[n++] = (uint64_t)(uint32_t)dist[(size_t)qi * CAND + i] << 32 |
						   (uint64_t)e;
			}
			ps_rerank(dot, key, n, img->int8, img->dim,
				  w->q->int8 + (size_t)qi * img->dim, qu, r->top + (size_t)qi * K);
		}
		t = cpu_s() - t;
		best = t < best ? t : best;
	}
	free(qu);
	return best * 1e6 / w->nq;
}

/*
 * Run @script (with PYTHONPATH=@pypath when not NULL) on @bf's codes:
 * IndexBinaryFlat and, with @ivf, IndexBinaryIVF over the image's
 * centroids and clusters at @ivf's nprobe; then the C rerank here.
 */
static int faiss_run(const char *script, const char *pypath, const struct work *bf,
		     const struct work *ivf, uint32_t rounds, struct faiss_res *fr)
{
	const struct reis_db_image *img = bf->img;
	char dir[] = "/tmp/bench_search.XXXXXX", cmd[4096], line[256];
	uint32_t bytes = img->dim / 8, c;
	size_t nc = (size_t)bf->nq * CAND;
	FILE *pp;
	int ret = -1;

	if (!mkdtemp(dir))
		return -1;
	if (write_file(dir, "codes.bin", img->bin, img->n * bytes) ||
	    write_file(dir, "qbin.bin", bf->q->bin, (size_t)bf->nq * bytes))
		goto out;
	if (ivf) {
		int64_t *as = malloc(img->n * sizeof(*as));
		uint64_t e = 0;

		if (!as)
			goto out;
		for (c = 0; c < img->nlist; c++)
			for (uint32_t i = 0; i < img->cluster_sizes[c]; i++)
				as[e++] = c;
		ret = write_file(dir, "assign.bin", as, img->n * sizeof(*as)) ||
		      write_file(dir, "centroids.bin", img->centroids, (size_t)img->nlist * bytes);
		free(as);
		if (ret)
			goto out;
		ret = -1;
	}
	snprintf(cmd, sizeof(cmd),
		 "%s%s%s'%s' '%s' --dir %s --n %" PRIu64 " --dim %u --nq %u --cand %u "
		 "--rounds %u --nlist %u --nprobe %u",
		 pypath ? "PYTHONPATH='" : "", pypath ? pypath : "", pypath ? "' " : "",
		 getenv("PYTHON") ? getenv("PYTHON") : "/usr/bin/python3", script, dir, img->n,
		 img->dim, bf->nq, CAND, rounds, ivf ? img->nlist : 0, ivf ? ivf->nprobe : 0);
	pp = popen(cmd, "r");
	if (!pp)
		goto out;
	while (fgets(line, sizeof(line), pp)) {
		double us;
		char what[32], val[64];

		if (sscanf(line, "%31s %63s", what, val) != 2)
			continue;
		us = strtod(val, NULL);
		if (!strcmp(what, "flat")) {
			fr->flat_search_us = us;
			fr->flat.ok = 1;
		} else if (!strcmp(what, "ivf") && ivf) {
			fr->ivf_search_us = us;
			fr->ivf.ok = 1;
		} else if (!strcmp(what, "version")) {
			snprintf(fr->version, sizeof(fr->version), "%s", val);
		} else if (!strcmp(what, "build")) {
			snprintf(fr->build, sizeof(fr->build), "%s", val);
		}
	}
	ret = pclose(pp) == 0 ? 0 : -1;
	for (c = 0; c < 2 && !ret; c++) {
		const struct work *w = c ? ivf : bf;
		struct result *r = c ? &fr->ivf : &fr->flat;
		int64_t *lab;
		int32_t *dist;

		if (!r->ok)
			continue;
		lab = read_file(dir, c ? "ivf.lab" : "flat.lab", nc * sizeof(*lab));
		dist = read_file(dir, c ? "ivf.dist" : "flat.dist", nc * sizeof(*dist));
		if (!lab || !dist) {
			r->ok = 0;
			ret = -1;
		} else if (c) {
			fr->ivf_rerank_us = faiss_rerank(w, lab, dist, rounds, r);
			r->us = fr->ivf_search_us + fr->ivf_rerank_us;
		} else {
			fr->flat_rerank_us = faiss_rerank(w, lab, dist, rounds, r);
			r->us = fr->flat_search_us + fr->flat_rerank_us;
		}
		r->codes_s = c ? -1 : img->n / (r->us / 1e6);
		free(lab);
		free(dist);
	}
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

static void row(const char *what, const struct result *r)
{
	if (!r->ok) {
		printf("  %-44s %12s\n", what, "skipped");
		return;
	}
	printf("  %-44s %12.1f", what, r->us);
	if (r->codes_s >= 0)
		printf(" %10.3g", r->codes_s);
	else
		printf(" %10s", "-");
	printf(" %8.3f", r->agree);
	if (r->recall >= 0)
		printf(" %9.3f\n", r->recall);
	else
		printf(" %9s\n", "-");
}

/* "emulator is 0.62x <what>": its speed over @base's. */
static void ratio(const char *emu, const struct result *e, const char *what,
		  const struct result *base)
{
	if (!e->ok || !base->ok)
		return;
	printf("    %s: %.2fx the speed of %s\n", emu, base->us / e->us, what);
}

struct opts {
	uint64_t big;
	uint32_t big_nq, nq, rounds, threads, scale;
	const char *faiss, *faiss_popcnt;
	const char *only;	/* --profile: one emulator method, nothing else */
};

/* The in-process drive holding @img, its commands' host work on @threads
 * host threads (host_threads=, 0: the model's default, the online CPUs);
 * @max_xfer 0: the default MDTS. */
static struct reis_dev *drive_open(struct reis_db_image *img, uint32_t threads,
				   uint32_t max_xfer)
{
	struct reis_inproc_opts io;
	struct reis_dev *dev;
	char err[256], params[32];

	memset(&io, 0, sizeof(io));
	io.preset = "reis-ssd1";
	io.errbuf = err;
	io.errlen = sizeof(err);
	io.max_xfer = max_xfer;
	snprintf(params, sizeof(params), "host_threads=%u", threads);
	io.params = threads ? params : NULL;
	if (reis_open_inproc(&io, &dev)) {
		fprintf(stderr, "bench_search: drive: %s\n", err);
		exit(1);
	}
	if (reis_db_deploy(dev, img, NULL)) {
		fprintf(stderr, "bench_search: deploy: %s\n", reis_last_error(dev));
		exit(1);
	}
	return dev;
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU time of this thread: the in-process drive (no workers) executes a
 * command on the thread that submits it, so this is the command's own
 * thread's share of the host work. */
static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Whether two results of the same search are the same (hits, modeled time
 * and energy, counters). */
static int same_result(const struct reis_search_result *a, const struct reis_search_result *b)
{
	uint32_t i;

	if (a->nq != b->nq || a->k != b->k || a->search_ns != b->search_ns ||
	    a->search_nj != b->search_nj || a->pages_read != b->pages_read ||
	    a->entries_compared != b->entries_compared || a->entries_passed != b->entries_passed ||
	    a->reranked != b->reranked || memcmp(a->nhits, b->nhits, a->nq * sizeof(*a->nhits)))
		return 0;
	for (i = 0; i < a->nq * a->k; i++)
		if (a->hits[i].entry != b->hits[i].entry || a->hits[i].score != b->hits[i].score ||
		    a->hits[i].hamming != b->hits[i].hamming || a->hits[i].id != b->hits[i].id)
			return 0;
	return 1;
}

/*
 * --scale N: one brute-force SEARCH of N queries (k = 10, INT8 rerank) on
 * a drive whose worker set is one host thread and on one of --threads T,
 * alternated for the rounds, in one command each (the largest MDTS); the
 * fastest wall and CPU time of each, and whether the two drives gave the
 * same hits, modeled time and energy every round. The command's own
 * thread's CPU time is printed too: on a loaded host the wall time says
 * little, while all CPU over the command thread's share bounds what idle
 * cores would give.
 */
static void scale_run(struct reis_db_image *img, const struct reis_queries *q,
		      const struct opts *o)
{
	struct reis_dev *d[2];
	struct reis_search_opts so;
	struct reis_queries sub = corpus_qslice(q, 0, o->scale < q->nq ? o->scale : q->nq);
	uint32_t th[2] = { 1, o->threads }, rd, i, ncmds = 0;
	double wall[2] = { 1e300, 1e300 }, cpu[2] = { 1e300, 1e300 }, own[2] = { 1e300, 1e300 };
	int same = 1;

	for (i = 0; i < 2; i++)
		d[i] = drive_open(img, th[i], 2u << 20);	/* ISP_MAX_XFER_CAP */
	memset(&so, 0, sizeof(so));
	so.did = img->did;
	so.k = K;
	so.rerank_factor = FACTOR;
	for (rd = 0; rd < o->rounds; rd++) {
		struct reis_search_result res[2];

		for (i = 0; i < 2; i++) {
			double w0 = wall_s(), c0 = cpu_s(), t0 = thread_cpu_s(), w, c, t;

			if (reis_search(d[i], &so, &sub, &res[i])) {
				fprintf(stderr, "bench_search: scale: %s\n", reis_last_error(d[i]));
				exit(1);
			}
			w = wall_s() - w0;
			c = cpu_s() - c0;
			t = thread_cpu_s() - t0;
			wall[i] = w < wall[i] ? w : wall[i];
			cpu[i] = c < cpu[i] ? c : cpu[i];
			own[i] = t < own[i] ? t : own[i];
			ncmds = res[i].ncmds > ncmds ? res[i].ncmds : ncmds;
		}
		same &= same_result(&res[0], &res[1]);
		reis_search_result_free(&res[0]);
		reis_search_result_free(&res[1]);
	}
	printf("\n== one SEARCH of %u queries, brute force (%u commands with its RESULT_READs), "
	       "min of %u rounds, alternated\n", sub.nq, ncmds, o->rounds);
	printf("  host_threads=1: %.1f ms wall, %.1f ms CPU\n", wall[0] * 1e3, cpu[0] * 1e3);
	printf("  host_threads=%u: %.1f ms wall, %.1f ms CPU, %.1f ms of it on the command's "
	       "thread (%.2fx)\n", th[1], wall[1] * 1e3, cpu[1] * 1e3, own[1] * 1e3,
	       cpu[0] / own[1]);
	printf("    %.2fx faster in wall time on %u threads; hits, modeled time and energy %s\n",
	       wall[0] / wall[1], th[1], same ? "identical" : "DIFFER");
	for (i = 0; i < 2; i++)
		reis_close(d[i]);
}

/*
 * --profile: only the emulator method @o->only ("bf", "bf1": one query per
 * command, "ivf", "ivf1") for the rounds, so perf sees nothing else.
 */
static void profile_run(struct reis_dev *dev, const struct work *bf, const struct work *ivf,
			const struct opts *o)
{
	const struct work *w = !strncmp(o->only, "ivf", 3) ? ivf : bf;
	uint32_t batch = strchr(o->only, '1') ? 1 : BATCH, rd;
	struct result r;
	uint64_t codes;
	double t;

	if (!w)
		return;
	r = res_new(w->nq);
	t = cpu_s();
	for (rd = 0; rd < o->rounds; rd++)
		if (emu_run(dev, w, batch, &r, &codes))
			exit(1);
	printf("  %s, %s: %.1f CPU us/query over %u rounds\n", w->name, o->only,
	       (cpu_s() - t) * 1e6 / ((double)w->nq * o->rounds), o->rounds);
	free(r.top);
}

/* The rows of one database: emulator and plain, same batching, interleaved. */
enum { R_EMU64, R_EMU1, R_PLAIN_BLOCK, R_PLAIN_ONE, R_IVF64, R_IVF1, R_PLAIN_IVF, R_N };

static void bench(struct reis_dev *dev, const struct work *bf, const struct work *ivf,
		  const struct opts *o)
{
	static const char *const names[R_N] = {
		[R_EMU64] = "emulator, 64 queries a command",
		[R_EMU1] = "emulator, one query a command",
		[R_PLAIN_BLOCK] = "plain, blocks of 64 queries",
		[R_PLAIN_ONE] = "plain, one query at a time",
		[R_IVF64] = "emulator IVF, 64 queries a command",
		[R_IVF1] = "emulator IVF, one query a command",
		[R_PLAIN_IVF] = "plain IVF, one query at a time",
	};
	struct result r[R_N];
	struct plain pl[3];
	struct faiss_res fd, fp;
	struct bufs b;
	const struct reis_db_image *img = bf->img;
	uint32_t rd, i;
	int have[R_N];

	if (o->only) {
		profile_run(dev, bf, ivf, o);
		return;
	}
	memset(&b, 0, sizeof(b));
	memset(&fd, 0, sizeof(fd));
	memset(&fp, 0, sizeof(fp));
	fd.flat = res_new(bf->nq);
	fd.ivf = res_new(bf->nq);
	fp.flat = res_new(bf->nq);
	fp.ivf = res_new(bf->nq);
	b.codes = copy_huge(img->bin, img->n * (img->dim / 8), &b.codes_len);
	b.int8 = copy_huge(img->int8, img->n * img->dim, &b.int8_len);
	for (i = 0; i < R_N; i++) {
		r[i] = res_new(bf->nq);
		have[i] = i < R_IVF64 || ivf;
		r[i].ok = have[i];
	}
	plain_pick(&pl[0], PM_BF_BLOCK, bf, &b);
	plain_pick(&pl[1], PM_BF_ONE, bf, &b);
	if (ivf)
		plain_pick(&pl[2], PM_IVF_ONE, ivf, &b);
	for (rd = 0; rd < o->rounds; rd++) {
		for (i = 0; i < R_N; i++) {
			const struct work *w = i >= R_IVF64 ? ivf : bf;
			uint64_t codes = 0;
			double t;

			if (!have[i])
				continue;
			t = cpu_s();
			if (i == R_EMU64 || i == R_EMU1 || i == R_IVF64 || i == R_IVF1) {
				if (emu_run(dev, w, i == R_EMU1 || i == R_IVF1 ? 1 : BATCH, &r[i],
					    &codes))
					exit(1);
			} else {
				struct plain *p = &pl[i == R_PLAIN_BLOCK ? 0 : i == R_PLAIN_ONE ? 1 : 2];

				codes = plain_run(p, i == R_PLAIN_BLOCK ? PM_BF_BLOCK :
						  i == R_PLAIN_ONE ? PM_BF_ONE : PM_IVF_ONE, w, w->nq,
						  r[i].top);
			}
			res_time(&r[i], cpu_s() - t, codes, w->nq);
		}
	}
	if (strcmp(o->faiss, "none")) {
		if (faiss_run(o->faiss, NULL, bf, ivf, o->rounds, &fd))
			fprintf(stderr, "bench_search: FAISS run failed "
				"(scripts/setup-bench-deps.sh)\n");
		if (strcmp(o->faiss_popcnt, "none") &&
		    faiss_run(o->faiss, o->faiss_popcnt, bf, ivf, o->rounds, &fp))
			fprintf(stderr, "bench_search: FAISS (POPCNT) run failed "
				"(scripts/faiss-popcnt.sh)\n");
	}
	for (i = 0; i < R_N; i++)
		if (have[i])
			score(i >= R_IVF64 ? ivf : bf, &r[i], r[i >= R_IVF64 ? R_IVF64 : R_EMU64].top);
	if (fd.flat.ok)
		score(bf, &fd.flat, r[R_EMU64].top);
	if (fp.flat.ok)
		score(bf, &fp.flat, r[R_EMU64].top);
	if (ivf && fd.ivf.ok)
		score(ivf, &fd.ivf, r[R_IVF64].top);
	if (ivf && fp.ivf.ok)
		score(ivf, &fp.ivf, r[R_IVF64].top);

	printf("\n%s, brute force, k = %u, INT8 rerank of the top %u, %u queries, min of %u "
	       "rounds\n", bf->name, K, CAND, bf->nq, o->rounds);
	printf("  %-44s %12s %10s %8s %9s\n", "method", "CPU us/query", "codes/s", "same top",
	       "recall@10");
	for (i = 0; i < R_IVF64; i++)
		row(names[i], &r[i]);
	row("FAISS IndexBinaryFlat (Debian, no POPCNT) + C rerank", &fd.flat);
	row("FAISS IndexBinaryFlat (POPCNT build) + C rerank", &fp.flat);
	ratio("emulator, 64 a command", &r[R_EMU64], "the plain search in blocks of 64",
	      &r[R_PLAIN_BLOCK]);
	ratio("emulator, one a command", &r[R_EMU1], "the plain search one query at a time",
	      &r[R_PLAIN_ONE]);
	ratio("emulator, 64 a command", &r[R_EMU64], "Debian's FAISS + C rerank", &fd.flat);
	ratio("emulator, 64 a command", &r[R_EMU64], "FAISS with POPCNT + C rerank", &fp.flat);
	if (ivf) {
		printf("\n%s, IVF (nlist %u, nprobe %u), k = %u, INT8 rerank of the top %u, %u "
		       "queries, min of %u rounds\n", ivf->name, ivf->img->nlist, ivf->nprobe, K,
		       CAND, ivf->nq, o->rounds);
		printf("  %-44s %12s %10s %8s %9s\n", "method", "CPU us/query", "codes/s",
		       "same top", "recall@10");
		for (i = R_IVF64; i < R_N; i++)
			row(names[i], &r[i]);
		row("FAISS IndexBinaryIVF (Debian, no POPCNT) + C rerank", &fd.ivf);
		row("FAISS IndexBinaryIVF (POPCNT build) + C rerank", &fp.ivf);
		ratio("emulator IVF, 64 a command", &r[R_IVF64], "the plain IVF (one at a time; "
		      "an IVF command shares no page between queries)", &r[R_PLAIN_IVF]);
		ratio("emulator IVF, one a command", &r[R_IVF1], "the plain IVF", &r[R_PLAIN_IVF]);
		ratio("emulator IVF, 64 a command", &r[R_IVF64], "Debian's FAISS IVF + C rerank",
		      &fd.ivf);
		ratio("emulator IVF, 64 a command", &r[R_IVF64], "FAISS IVF with POPCNT + C rerank",
		      &fp.ivf);
	}
	printf("  plain: blocks %s (codes on %s, INT8 on %s), one at a time %s (%s, %s)",
	       pl[0].kname, pl[0].huge_codes ? "huge pages" : "4 KiB pages",
	       pl[0].huge_int8 ? "huge pages" : "4 KiB pages", pl[1].kname,
	       pl[1].huge_codes ? "huge" : "4 KiB", pl[1].huge_int8 ? "huge" : "4 KiB");
	if (ivf)
		printf(", IVF %s (%s, %s)", pl[2].kname, pl[2].huge_codes ? "huge" : "4 KiB",
		       pl[2].huge_int8 ? "huge" : "4 KiB");
	printf("; rerank dot %s\n", pl[0].dname);
	if (fd.flat.ok)
		printf("  FAISS %s (%s): flat search %.1f + C rerank %.1f us/query%s\n", fd.version,
		       fd.build, fd.flat_search_us, fd.flat_rerank_us, ivf && fd.ivf.ok ? "," : "");
	if (ivf && fd.ivf.ok)
		printf("    IVF search %.1f + C rerank %.1f\n", fd.ivf_search_us, fd.ivf_rerank_us);
	if (fp.flat.ok)
		printf("  FAISS %s (%s): flat search %.1f + C rerank %.1f us/query%s\n", fp.version,
		       fp.build, fp.flat_search_us, fp.flat_rerank_us, ivf && fp.ivf.ok ? "," : "");
	if (ivf && fp.ivf.ok)
		printf("    IVF search %.1f + C rerank %.1f\n", fp.ivf_search_us, fp.ivf_rerank_us);
	for (i = 0; i < 3; i++)
		if (i < 2 || ivf)
			ps_free(&pl[i].ps);
	for (i = 0; i < R_N; i++)
		free(r[i].top);
	free(fd.flat.top);
	free(fd.ivf.top);
	free(fp.flat.top);
	free(fp.ivf.top);
	if (b.codes)
		munmap(b.codes, b.codes_len);
	if (b.int8)
		munmap(b.int8, b.int8_len);
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

static void work_init(struct work *w, const char *name, struct reis_db_image *img,
		      const struct reis_queries *q, uint32_t nq)
{
	memset(w, 0, sizeof(*w));
	w->name = name;
	w->img = img;
	w->q = q;
	w->nq = nq < q->nq ? nq : q->nq;
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
	if (o->scale) {
		scale_run(&img, &q, o);
		reis_queries_free(&q);
		reis_db_image_free(&img);
		corpus_free(&c);
		return;
	}
	dev = drive_open(&img, 1, 0);
	work_init(&bf, "WordNet corpus", &img, &q, o->nq);
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
	dev = drive_open(&img, 1, 0);
	work_init(&bf, "generated database", &img, &q, o->big_nq);
	printf("\n== %s: %" PRIu64 " x %u bits (random codes, seed 42)\n", bf.name, img.n, dim);
	bench(dev, &bf, NULL, o);
	reis_close(dev);
	free(bin);
	free(i8);
	free(qb);
	free(q8);
}

static const char bs_usage[] = "usage: bench_search [--big N] [--big-nq Q] [--nq Q] "
	"[--rounds R] [--faiss SCRIPT|none] [--faiss-popcnt DIR|none] [--threads T] "
	"[--scale N] [--profile bf|bf1|ivf|ivf1] [CORPUS_DIR]\n";

static void usage(void)
{
	fputs(bs_usage, stderr);
}

int main(int argc, char **argv)
{
	struct opts o = { 1000000, 64, 2000, 5, 2, 0, NULL, NULL, NULL };
	const char *dir = NULL;
	struct stat st;
	int i;

	ex_help(argc, argv, bs_usage);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--big") && i + 1 < argc)
			o.big = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--big-nq") && i + 1 < argc)
			o.big_nq = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--nq") && i + 1 < argc)
			o.nq = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			o.rounds = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			o.threads = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--scale") && i + 1 < argc)
			o.scale = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--faiss") && i + 1 < argc)
			o.faiss = argv[++i];
		else if (!strcmp(argv[i], "--faiss-popcnt") && i + 1 < argc)
			o.faiss_popcnt = argv[++i];
		else if (!strcmp(argv[i], "--profile") && i + 1 < argc)
			o.only = argv[++i];
		else if (argv[i][0] != '-')
			dir = argv[i];
		else
			ex_usage_err("bench_search", "unknown option or missing value", argv[i],
				     bs_usage);
	}
	if (!o.rounds || !o.nq || !o.big_nq || o.big > (1ull << 31) ||
	    (o.big && o.big < 1000) || o.scale > 1024 || !o.threads || o.threads > 16 ||
	    (o.only && strcmp(o.only, "bf") && strcmp(o.only, "bf1") && strcmp(o.only, "ivf") &&
	     strcmp(o.only, "ivf1"))) {
		fprintf(stderr, "bench_search: rounds, nq >= 1; --big 0 or 1000..2^31; "
			"--scale <= 1024; --threads 1..16\n");
		usage();
		return 2;
	}
	if (!o.faiss || (strcmp(o.faiss, "none") && stat(o.faiss, &st))) {
		printf("bench_search: FAISS skipped: no --faiss SCRIPT (make bench-search "
		       "passes examples/bench/bench_search_faiss.py)\n");
		o.faiss = "none";
	}
	if (!o.faiss_popcnt || (strcmp(o.faiss_popcnt, "none") && stat(o.faiss_popcnt, &st))) {
		if (strcmp(o.faiss, "none"))
			printf("bench_search: FAISS with POPCNT skipped: no --faiss-popcnt DIR "
			       "(scripts/faiss-popcnt.sh builds it)\n");
		o.faiss_popcnt = "none";
	}
	printf("bench_search: host CPU time per query, one thread per method "
	       "(docs/benchmarks.md)\n");
	corpus_bench(dir, &o);
	if (o.big && !o.scale)
		big_bench(&o);
	return 0;
}
