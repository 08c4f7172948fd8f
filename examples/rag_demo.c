/* SPDX-License-Identifier: MIT */
/*
 * rag_demo - a RAG retrieval answered by the drive (the main demo).
 *
 * On the host, `rag_demo bundle CORPUS_DIR OUT` prepares everything the
 * guest needs in one image file (docs/reis.md, "RAG demo"):
 *   1. read the WordNet corpus (docs/corpus.md): 512-d sentence embeddings
 *      of the glosses, the glosses and their lemmas, the example-sentence
 *      queries with their precomputed embeddings;
 *   2. build an IVF database: k-means, binary + INT8 codes, the passages
 *      "lemmas: gloss" as documents, recall->nprobe calibrated on the
 *      corpus' held-out queries, and a distance-filtering threshold
 *      calibrated on them too (reis_df_calibrate(): k = 10 at the nprobe
 *      of recall 0.95), so the dies drop most entries (REIS 4.3.3);
 *   3. add a few demo queries (text, embedding, answer) as a user section
 *      and write the image (scripts/rag-bundle.sh puts it at the start of
 *      the namespace image, so the guest reads it from /dev/nvme0n1).
 *
 * `rag_demo questions TEXT FVECS OUT` makes the user's questions (`make demo
 * Q=...`, embedded by scripts/rag-bundle.sh with the corpus' model) a
 * section of the same layout; rag-bundle.sh writes it after the bundle.
 *
 * In the guest, `rag_demo [run] [--dev NG] [--bundle BLOCKDEV] [--query N |
 * --questions BYTE] [--k K] [--recall R]` (`--inproc BACKING` runs it on the
 * host against an in-process drive; the drive defaults to the first ISP
 * drive, the bundle to its namespace's block device; ISP_PATH=cp takes the
 * standard interface, docs/libreis.md):
 *   1. read the image from the block device (normal SSD mode);
 *   2. find the database on the drive, or deploy it (RAG mode) with a
 *      progress line; the deploy stores the quantizer with it (META);
 *   3. read the quantizer back from the drive (reis_db_quantizer(): what a
 *      host that did not deploy the database would do), and for each
 *      question (the built-in ones, or the user's at --questions): encode
 *      its embedding with it, IVF_SEARCH with a target recall and the
 *      documents, print the top passages, a digest of the answer (another
 *      path or drive must print the same), the modeled latency and energy;
 *      then the conventional path: read the database again with ordinary
 *      reads, reference search on this CPU, identical hits required, its
 *      modeled cost (examples/common/conventional.h);
 *   4. print what the drive did (ISP_STATS before and after) and the
 *      summary table, drive against conventional, per question.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conventional.h"
#include "corpus.h"
#include "libreis_tools.h"
#include "ex_usage.h"

#define RAG_DID 4242u
#define RAG_QUERIES_SEC 0x100u		/* user section of the image */
#define RAG_MAX_QUERIES 8u
#define RAG_MAX_TEXT 256u
#define RAG_MAX_USER 16u		/* questions of one `make demo Q=...` */
#define RAG_NO_ANSWER UINT32_MAX	/* a user's question has no known answer */
#define RAG_SUMMARY_TEXT 34		/* question column of the summary table */

/* User section: header, then per query {answer, text_len, text (padded to
 * 4), dim floats}. */
struct rag_qhdr {
	char magic[4];		/* "RAGQ" */
	uint32_t count;
	uint32_t dim;
	uint32_t rsvd;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* FNV-1a over @n bytes, continuing @h. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		h = (h ^ *b++) * UINT64_C(0x100000001b3);
	return h;
}

/* ---------------------------------------------------------------------- */
/* bundle (host)                                                           */
/* ---------------------------------------------------------------------- */

/* A file of the corpus; exits with a message when it cannot be read. */
static uint8_t *slurp(const struct corpus *c, const char *name, uint64_t *len)
{
	char err[700];
	uint8_t *b = corpus_slurp(c, name, len, err, sizeof(err));

	if (!b) {
		fprintf(stderr, "rag_demo: %s\n", err);
		exit(1);
	}
	return b;
}

/* Offsets of the lines of a text blob: starts[i] .. ends[i]. */
static uint64_t index_lines(const uint8_t *txt, uint64_t len, uint64_t **starts,
			    uint64_t **ends)
{
	uint64_t n = 0, i, start = 0;

	for (i = 0; i < len; i++)
		n += txt[i] == '\n';
	*starts = malloc((n + 1) * sizeof(uint64_t));
	*ends = malloc((n + 1) * sizeof(uint64_t));
	if (!*starts || !*ends)
		exit(1);
	for (i = 0, n = 0; i < len; i++)
		if (txt[i] == '\n') {
			(*starts)[n] = start;
			(*ends)[n++] = i;
			start = i + 1;
		}
	if (start < len) {
		(*starts)[n] = start;
		(*ends)[n++] = len;
	}
	return n;
}

static void build_progress(void *arg, const char *stage, double frac)
{
	(void)arg;
	if (!strcmp(stage, "done"))
		return;
	if (frac <= 0)
		fprintf(stderr, "rag_demo: %s\n", stage);
	else
		fprintf(stderr, "rag_demo: %s %3.0f%%\n", stage, 100 * frac);
}

static int cmd_bundle(const char *dir, const char *out)
{
	struct corpus c;
	struct reis_vecs qgt;
	struct reis_build_opts bo;
	struct reis_db_image img;
	uint64_t llen, qlen, i, *off, *noff, pos = 0;
	uint64_t *ls, *le, *qs_, *qe, nlem, nqt;
	uint8_t *lem, *qtxt, *nd, *qsec;
	uint32_t picked = 0, want = RAG_MAX_QUERIES;
	size_t qcap;
	char err[700], name[40], p[600];
	double t0 = now_s();
	struct rag_qhdr h;

	if (corpus_find(&c, dir, "wordnet-subset")) {
		fprintf(stderr, "rag_demo: no corpus in %s (scripts/corpus.sh)\n", c.dir);
		return 1;
	}
	snprintf(p, sizeof(p), "%s/queries_gt.ivecs", c.dir);
	if (corpus_load(&c, err, sizeof(err)) || reis_vecs_load(p, &qgt, err, sizeof(err))) {
		fprintf(stderr, "rag_demo: %s\n", err);
		return 1;
	}
	lem = slurp(&c, "lemmas.txt", &llen);
	qtxt = slurp(&c, "queries.txt", &qlen);
	if (qgt.n != c.queries.n) {
		fprintf(stderr, "rag_demo: %s is inconsistent (queries_gt.ivecs)\n", dir);
		return 1;
	}
	off = c.doc_offsets;
	nlem = index_lines(lem, llen, &ls, &le);
	nqt = index_lines(qtxt, qlen, &qs_, &qe);

	/* Documents: "lemmas: gloss", so a passage names its word. */
	nd = malloc(c.docs_len + llen + 2 * c.base.n);
	noff = malloc((c.base.n + 1) * sizeof(*noff));
	if (!nd || !noff)
		return 1;
	for (i = 0; i < c.base.n; i++) {
		noff[i] = pos;
		if (i < nlem) {
			memcpy(nd + pos, lem + ls[i], le[i] - ls[i]);
			pos += le[i] - ls[i];
			memcpy(nd + pos, ": ", 2);
			pos += 2;
		}
		memcpy(nd + pos, c.docs + off[i], off[i + 1] - off[i]);
		pos += off[i + 1] - off[i];
	}
	noff[c.base.n] = pos;

	corpus_build_opts(&c, RAG_DID, &bo);
	bo.docs = nd;
	bo.doc_offsets = noff;
	snprintf(name, sizeof(name), "wordnet-%llu", (unsigned long long)c.base.n);
	bo.name = name;
	bo.progress = build_progress;
	if (reis_db_build(&bo, c.base.data, c.base.n, c.base.dim, &img, err, sizeof(err))) {
		fprintf(stderr, "rag_demo: build: %s\n", err);
		return 1;
	}
	{
		/* REIS 4.3.3: the DF threshold for k = 10 at the demo's nprobe,
		 * from the held-out queries (docs/reis.md §7). */
		struct reis_queries cal;
		struct reis_df_opts dfo;
		struct reis_df_calib dfc;

		memset(&dfo, 0, sizeof(dfo));
		dfo.k = 10;
		dfo.target_recall = 9500;
		if (reis_encode_queries(img.quant, c.calib.data, (uint32_t)c.calib.n, &cal) ||
		    reis_df_calibrate(&img, &cal, &dfo, &dfc)) {
			fprintf(stderr, "rag_demo: distance-filter calibration failed\n");
			return 1;
		}
		reis_queries_free(&cal);
		img.df_threshold = dfc.threshold;
		fprintf(stderr, "rag_demo: distance filter: threshold %u (nprobe %u, %.0f%% of "
			"the probed entries stay in the dies on the held-out queries)\n",
			dfc.threshold, dfc.nprobe, 100.0 * (1 - dfc.pass_frac));
	}

	/* Demo queries: ones whose own gloss is the exact top-3 (good demos). */
	qcap = sizeof(h) + RAG_MAX_QUERIES * (8 + RAG_MAX_TEXT + 4 * (size_t)c.queries.dim);
	qsec = calloc(1, qcap);
	if (!qsec)
		return 1;
	pos = sizeof(h);
	for (i = 0; i < c.queries.n && picked < want; i++) {
		uint32_t ans = (uint32_t)((int32_t *)qgt.data)[i], l, j, rank = 99;
		const char *t = i < nqt ? (const char *)qtxt + qs_[i] : NULL;

		l = i < nqt ? (uint32_t)(qe[i] - qs_[i]) : 0;

		for (j = 0; j < 3; j++)
			if ((uint32_t)((int32_t *)c.gt.data)[i * c.gt.dim + j] == ans)
				rank = j;
		if (rank > 2 || !t || l < 12 || l >= RAG_MAX_TEXT)
			continue;
		memcpy(qsec + pos, &ans, 4);
		memcpy(qsec + pos + 4, &l, 4);
		memcpy(qsec + pos + 8, t, l);
		pos += 8 + ((l + 3) & ~3u);
		memcpy(qsec + pos, (float *)c.queries.data + i * c.queries.dim, 4 * (size_t)c.queries.dim);
		pos += 4 * (size_t)c.queries.dim;
		picked++;
	}
	memcpy(h.magic, "RAGQ", 4);
	h.count = picked;
	h.dim = c.queries.dim;
	h.rsvd = 0;
	memcpy(qsec, &h, sizeof(h));
	img.nextra = 1;
	img.extra[0].id = RAG_QUERIES_SEC;
	img.extra[0].data = qsec;
	img.extra[0].len = pos;
	if (reis_db_image_save(&img, out)) {
		fprintf(stderr, "rag_demo: writing %s: %s\n", out, strerror(errno));
		return 1;
	}
	printf("rag_demo: %s: database %u '%s', %" PRIu64 " passages x %u-d, %u clusters, "
	       "%u calibration points, DF threshold %u, %u demo queries, built in %.1f s\n",
	       out, img.did, img.name, img.n, img.dim, img.nlist, img.ncalib, img.df_threshold,
	       picked, now_s() - t0);
	reis_db_image_free(&img);
	free(qsec);
	free(nd);
	free(noff);
	free(lem);
	free(qtxt);
	free(ls);
	free(le);
	free(qs_);
	free(qe);
	reis_vecs_free(&qgt);
	corpus_free(&c);
	return 0;
}

/*
 * cmd_questions - the user's questions (`make demo Q=...`) as a RAGQ section:
 * one question per line of @txt, its embedding the same row of @vecs
 * (examples/corpus/embed.mjs, the corpus' pinned model).
 */
static int cmd_questions(const char *txt, const char *vecs, const char *out)
{
	struct reis_vecs v;
	struct rag_qhdr h;
	uint64_t len, i, n, *ls, *le, pos;
	uint8_t *t, *b;
	char err[700];
	FILE *f;
	int ret = 1;

	t = corpus_slurp_path(txt, &len, err, sizeof(err));
	if (!t || reis_vecs_load(vecs, &v, err, sizeof(err))) {
		fprintf(stderr, "rag_demo: %s\n", err);
		free(t);
		return 1;
	}
	n = index_lines(t, len, &ls, &le);
	if (n != v.n || !n || n > RAG_MAX_USER || v.type != REIS_VEC_F32) {
		fprintf(stderr, "rag_demo: %s has %" PRIu64 " questions and %s %" PRIu64
			" float vectors: 1..%u of each expected\n", txt, n, vecs, v.n,
			RAG_MAX_USER);
		goto out;
	}
	b = calloc(1, sizeof(h) + n * (8 + RAG_MAX_TEXT + 4ull * v.dim));
	if (!b)
		goto out;
	pos = sizeof(h);
	for (i = 0; i < n; i++) {
		uint32_t l = (uint32_t)(le[i] - ls[i]), ans = RAG_NO_ANSWER;

		if (!l || l >= RAG_MAX_TEXT) {
			fprintf(stderr, "rag_demo: question %" PRIu64 " has %u bytes: 1..%u "
				"allowed\n", i + 1, l, RAG_MAX_TEXT - 1);
			free(b);
			goto out;
		}
		memcpy(b + pos, &ans, 4);
		memcpy(b + pos + 4, &l, 4);
		memcpy(b + pos + 8, t + ls[i], l);
		pos += 8 + ((l + 3) & ~3u);
		memcpy(b + pos, (float *)v.data + i * v.dim, 4ull * v.dim);
		pos += 4ull * v.dim;
	}
	memcpy(h.magic, "RAGQ", 4);
	h.count = (uint32_t)n;
	h.dim = v.dim;
	h.rsvd = 0;
	memcpy(b, &h, sizeof(h));
	f = fopen(out, "wb");
	if (!f || fwrite(b, 1, pos, f) != pos || fclose(f)) {
		fprintf(stderr, "rag_demo: writing %s: %s\n", out, strerror(errno));
		free(b);
		goto out;
	}
	free(b);
	ret = 0;
out:
	free(ls);
	free(le);
	free(t);
	reis_vecs_free(&v);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* run (guest)                                                             */
/* ---------------------------------------------------------------------- */

static void progress(void *arg, uint64_t done, uint64_t total)
{
	double *t0 = arg;
	static int last = -1;
	int pct = total ? (int)(done * 100 / total) : 100;

	if (pct / 10 == last / 10 && done < total)
		return;
	last = pct;
	printf("  deploying: %3d%% (%.1f of %.1f MB, %.1f s)\n", pct, done / 1e6, total / 1e6,
	       now_s() - *t0);
	fflush(stdout);
}

/* Bytes of the UTF-8 character at @s (of @n), 0 for a control character or
 * a byte that starts no valid one. */
static uint32_t utf8_len(const uint8_t *s, uint32_t n)
{
	uint32_t l = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 :
		     (s[0] & 0xf8) == 0xf0 ? 4 : 0, j;

	if (s[0] < 0x20 || s[0] == 0x7f || l > n)
		return 0;
	for (j = 1; j < l; j++)
		if ((s[j] & 0xc0) != 0x80)
			return 0;
	return l;
}

/* @s wrapped at column 74 (characters, not bytes), continued lines indented. */
static void print_wrapped(const uint8_t *s, uint32_t len, unsigned indent, int col0)
{
	uint32_t i, l, col = col0 > 0 ? (uint32_t)col0 : indent;

	for (i = 0; i < len; i += l ? l : 1) {
		l = utf8_len(s + i, len - i);
		if (s[i] == ' ' && col > 74) {
			printf("\n%*s", indent, "");
			col = indent;
			continue;
		}
		if (l)
			fwrite(s + i, 1, l, stdout);
		else
			putchar('?');
		col++;
	}
	putchar('\n');
}

/* One question of a RAGQ section. */
struct rag_q {
	uint32_t ans;		/* RAG_NO_ANSWER for a user's question */
	uint32_t tlen;
	const char *text;
	const float *emb;
};

/* Per question, for the summary table. */
struct rag_row {
	char text[4 * RAG_SUMMARY_TEXT + 1];	/* UTF-8 */
	uint32_t tbytes, tcols;			/* its bytes, its characters */
	double drive_ns, drive_nj;
	struct conv_cost conv;
	double wall_read_s, wall_search_s;
	uint64_t drive_bytes;
	uint64_t answer;	/* digest of the drive's hits and documents */
};

/*
 * rag_parse - the questions of a RAGQ section (layout above) of @len bytes
 * for a @dim-d database, at most @max. Return: their number, or -EBADMSG.
 */
static int rag_parse(const uint8_t *b, uint64_t len, uint32_t dim, uint32_t max,
		     struct rag_q *out)
{
	struct rag_qhdr h;
	uint64_t pos = sizeof(h);
	uint32_t i;

	if (len < sizeof(h))
		return -EBADMSG;
	memcpy(&h, b, sizeof(h));
	if (memcmp(h.magic, "RAGQ", 4) || h.dim != dim || h.count > max)
		return -EBADMSG;
	for (i = 0; i < h.count; i++) {
		uint32_t tlen;

		if (len - pos < 8)
			return -EBADMSG;
		memcpy(&out[i].ans, b + pos, 4);
		memcpy(&tlen, b + pos + 4, 4);
		if (!tlen || tlen >= RAG_MAX_TEXT ||
		    len - pos - 8 < ((tlen + 3) & ~3u) + 4ull * dim)
			return -EBADMSG;
		out[i].tlen = tlen;
		out[i].text = (const char *)b + pos + 8;
		pos += 8 + ((tlen + 3) & ~3u);
		out[i].emb = (const float *)(const void *)(b + pos);
		pos += 4ull * dim;
	}
	return (int)h.count;
}

/*
 * read_questions - the user's questions rag-bundle.sh wrote at byte @off of
 * @path (RAGQ layout): header first, so the read is bounded by what it
 * claims and RAG_MAX_USER. Return: a malloc'd copy and its length in @len,
 * or NULL with a message.
 */
static uint8_t *read_questions(const char *path, uint64_t off, uint32_t dim, uint64_t *len)
{
	struct rag_qhdr h;
	uint8_t *b = NULL;
	uint64_t max;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "rag_demo: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	if (pread(fd, &h, sizeof(h), (off_t)off) != (ssize_t)sizeof(h) ||
	    memcmp(h.magic, "RAGQ", 4) || h.dim != dim || !h.count || h.count > RAG_MAX_USER) {
		fprintf(stderr, "rag_demo: %s: no questions at byte %" PRIu64 " (1..%u questions "
			"of dimension %u expected; scripts/rag-bundle.sh writes them)\n", path, off,
			RAG_MAX_USER, dim);
		goto out;
	}
	max = sizeof(h) + (uint64_t)h.count * (8 + RAG_MAX_TEXT + 4ull * dim);
	b = malloc(max);
	if (!b)
		goto out;
	*len = (uint64_t)pread(fd, b, max, (off_t)off);
	if (*len < sizeof(h) || *len > max) {
		fprintf(stderr, "rag_demo: %s: reading the questions failed\n", path);
		free(b);
		b = NULL;
	}
out:
	close(fd);
	return b;
}

/*
 * conventional - the same question answered the conventional way: the
 * database read with ordinary reads (page cache dropped first, so the bytes
 * really come off the namespace), libreis' reference search on this CPU with
 * the nprobe the drive used, hits required identical to the drive's @drive.
 * Return: 0, or 1 with a message.
 */
static int conventional(const char *bundle, const struct reis_search_opts *so, uint32_t nprobe,
			const struct reis_queries *q, const struct reis_search_result *drive,
			const struct fp_params *fp, struct rag_row *row)
{
	const struct reis_db_image *dbs[1];
	struct reis_search_opts o = *so;
	struct reis_search_result ref;
	struct reis_db_image img;
	char err[256];
	double t0, t1, t2;
	int fd, ret;

	fd = open(bundle, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "rag_demo: %s: %s\n", bundle, strerror(errno));
		return 1;
	}
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	t0 = now_s();
	ret = reis_db_image_read(fd, 0, &img, err, sizeof(err));
	close(fd);
	if (ret) {
		fprintf(stderr, "rag_demo: conventional path: %s: %s\n", bundle, err);
		return 1;
	}
	t1 = now_s();
	o.nprobe = nprobe;
	o.target_recall = 0;
	dbs[0] = &img;
	ret = reis_ref_search(dbs, 1, 1, &o, q, &ref);
	t2 = now_s();
	if (ret) {
		fprintf(stderr, "rag_demo: conventional path: reference search: %s\n",
			strerror(-ret));
		reis_db_image_free(&img);
		return 1;
	}
	ret = conv_same_hits(drive, &ref, err, sizeof(err));
	if (!ret)
		ret = conv_read_cost(fp, conv_index_bytes(&img) + conv_hit_doc_bytes(&ref),
				     &row->conv);
	conv_cpu_cost((t2 - t1) * 1e9, &row->conv);
	row->wall_read_s = t1 - t0;
	row->wall_search_s = t2 - t1;
	reis_search_result_free(&ref);
	reis_db_image_free(&img);
	if (ret) {
		fprintf(stderr, "rag_demo: conventional path: the hits differ from the drive's: "
			"%s\n", ret > 0 ? err : "no cost model for this preset");
		return 1;
	}
	printf("  conventional path (this guest): read the database off the namespace in %.0f ms "
	       "(ordinary reads), reference search on the CPU in %.2f ms: the same %u hits\n",
	       row->wall_read_s * 1e3, row->wall_search_s * 1e3, drive->nhits[0]);
	printf("  conventional path (modeled): %.2f MB off a normal SSD in %.3f ms, %.1f uJ; "
	       "host compute %.3f ms, %.1f uJ\n", row->conv.bytes / 1e6, row->conv.read_ns / 1e6,
	       row->conv.read_nj / 1e3, row->conv.cpu_ns / 1e6, row->conv.cpu_nj / 1e3);
	return 0;
}

static void print_summary(const struct rag_row *rows, uint32_t n)
{
	uint64_t saved = 0;
	uint32_t i;

	printf("\n== summary: in the drive vs the conventional path (modeled; conventional = "
	       "normal SSD reads + host CPU, docs/reis.md §5) ==\n");
	printf("%-2s %-*s %9s %9s %9s %9s %7s %11s %11s\n", "#", RAG_SUMMARY_TEXT, "question",
	       "drive ms", "drive uJ", "conv ms", "conv uJ", "speedup", "to host KB",
	       "kept MB");
	for (i = 0; i < n; i++) {
		const struct rag_row *r = &rows[i];
		double cms = (r->conv.read_ns + r->conv.cpu_ns) / 1e6;
		double cuj = (r->conv.read_nj + r->conv.cpu_nj) / 1e3;
		uint64_t kept = r->conv.bytes > r->drive_bytes ? r->conv.bytes - r->drive_bytes : 0;

		saved += kept;
		printf("%-2u %s%*s %9.3f %9.1f %9.3f %9.1f %6.0fx %11.1f %11.2f\n", i + 1,
		       r->text, (int)(RAG_SUMMARY_TEXT - r->tcols), "", r->drive_ns / 1e6,
		       r->drive_nj / 1e3, cms, cuj,
		       r->drive_ns > 0 ? cms * 1e6 / r->drive_ns : 0.0, r->drive_bytes / 1e3,
		       kept / 1e6);
	}
	printf("to host KB: what the drive sent (hits and documents); kept MB: bytes the "
	       "conventional path moves that never left the drive (%.1f MB in all)\n", saved / 1e6);
}

/* What `rag_demo run` was asked to do. */
struct run_opts {
	const char *dev_path;	/* the drive's char device */
	const char *inproc;	/* or an in-process drive on this backing file */
	const char *bundle;	/* block device (or file) the bundle is read from */
	uint32_t k, recall, only;
	uint64_t qoff;		/* the user's questions, or UINT64_MAX */
	int bundle_guessed;	/* no --bundle: the drive's block device, guessed */
	char found_dev[REIS_PATH_MAX], found_blk[REIS_PATH_MAX];
};

/* Where a bundle comes from, after a guessed one could not be read. */
static void bundle_hint(const struct run_opts *ro)
{
	if (ro->bundle_guessed)
		fprintf(stderr, "rag_demo: without --bundle the bundle is read from the drive's "
			"namespace, where make demo writes it (scripts/rag-bundle.sh); on the "
			"host make one with `rag_demo bundle CORPUS_DIR OUT.img` and run "
			"`rag_demo run --inproc BACKING --bundle OUT.img`\n");
}

/*
 * The drive and the bundle when not given: the first ISP drive (its NVM
 * namespace: with the standard interface's namespaces, isp-cs=on, Linux may
 * number it ng0n2), else /dev/ng0n1; the bundle on the block device of the
 * same namespace (/dev/ngXnY -> /dev/nvmeXnY), else /dev/nvme0n1.
 */
static void default_paths(struct run_opts *ro)
{
	struct reis_disc d;
	unsigned x, y;
	char c;

	/* probed on the vendor path: the memory and compute namespaces answer
	 * no ISP_IDENTIFY; the demo then opens the drive as ISP_PATH says */
	if (!ro->dev_path && !ro->inproc && reis_discover(&d, 1, REIS_OPEN_VENDOR) > 0) {
		snprintf(ro->found_dev, sizeof(ro->found_dev), "%s", d.path);
		ro->dev_path = ro->found_dev;
	}
	if (!ro->dev_path)
		ro->dev_path = "/dev/ng0n1";
	if (!ro->bundle && sscanf(ro->dev_path, "/dev/ng%un%u%c", &x, &y, &c) == 2) {
		snprintf(ro->found_blk, sizeof(ro->found_blk), "/dev/nvme%un%u", x, y);
		ro->bundle = ro->found_blk;
	}
	if (!ro->bundle)
		ro->bundle = "/dev/nvme0n1";
}

static const char rag_usage[] =
	"usage: rag_demo bundle CORPUS_DIR OUT.img   (host)\n"
	"       rag_demo questions TEXT.txt VECS.fvecs OUT.blob   (host)\n"
	"       rag_demo [run] [--dev NG (first ISP drive) | --inproc BACKING]\n"
	"                [--bundle BLOCKDEV (its namespace's)] [--query N | --questions OFFSET]\n"
	"                [--k K] [--recall R]\n"
	"                                                   (guest)\n";

static int parse_run(int argc, char **argv, struct run_opts *ro)
{
	char *end;
	int i;

	ro->dev_path = NULL;
	ro->inproc = NULL;
	ro->bundle = NULL;
	ro->bundle_guessed = 0;
	ro->k = 5;
	ro->recall = 9500;
	ro->only = UINT32_MAX;
	ro->qoff = UINT64_MAX;
	for (i = 0; i < argc; i++)	/* rag_demo run --help */
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(rag_usage, stdout);
			exit(0);
		}
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--dev") && i + 1 < argc)
			ro->dev_path = argv[++i];
		else if (!strcmp(argv[i], "--inproc") && i + 1 < argc)
			ro->inproc = argv[++i];
		else if (!strcmp(argv[i], "--bundle") && i + 1 < argc)
			ro->bundle = argv[++i];
		else if (!strcmp(argv[i], "--query") && i + 1 < argc)
			ro->only = (uint32_t)ex_u64("rag_demo", "--query", argv[++i], 0,
						    UINT32_MAX - 1, rag_usage);
		else if (!strcmp(argv[i], "--questions") && i + 1 < argc) {
			errno = 0;
			ro->qoff = strtoull(argv[++i], &end, 0);
			if (errno || *end || end == argv[i])
				ro->qoff = UINT64_MAX - 1;
		} else if (!strcmp(argv[i], "--k") && i + 1 < argc)
			ro->k = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--recall") && i + 1 < argc) {
			double rc = strtod(argv[++i], &end);

			if (end == argv[i] || *end || !(rc >= 0 && rc <= 1))
				ex_usage_err("rag_demo", "--recall must be in [0, 1], not", argv[i],
					     rag_usage);
			ro->recall = (uint32_t)(rc * 10000);
		} else
			ex_usage_err("rag_demo", "unknown option or missing value", argv[i],
				     rag_usage);
	}
	if (!ro->k || ro->k > 50 || ro->recall > 10000 || ro->qoff == UINT64_MAX - 1) {
		fprintf(stderr, "rag_demo: --k must be 1..50, --recall in [0, 1] and --questions "
			"a byte offset\n");
		return 2;
	}
	ro->bundle_guessed = !ro->bundle;
	default_paths(ro);
	return 0;
}

/*
 * Step 1, normal SSD mode: the bundle off the namespace with block reads,
 * and the questions (the built-in section, or the user's after it). The
 * questions point into @img or *@user. Return: their number, or -1.
 */
static int load_bundle(const struct run_opts *ro, struct reis_db_image *img, struct rag_q *qs,
		       uint8_t **user)
{
	const uint8_t *sec;
	uint64_t qlen;
	char err[256];
	double t0 = now_s();
	int fd, ret, nq;

	fd = open(ro->bundle, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "rag_demo: %s: %s\n", ro->bundle, strerror(errno));
		bundle_hint(ro);
		return -1;
	}
	ret = reis_db_image_read(fd, 0, img, err, sizeof(err));
	close(fd);
	if (ret) {
		fprintf(stderr, "rag_demo: %s: %s (scripts/rag-bundle.sh writes the bundle)\n",
			ro->bundle, err);
		bundle_hint(ro);
		return -1;
	}
	if (ro->qoff != UINT64_MAX) {
		*user = read_questions(ro->bundle, ro->qoff, img->dim, &qlen);
		if (!*user)
			return -1;
		nq = rag_parse(*user, qlen, img->dim, RAG_MAX_USER, qs);
	} else {
		sec = reis_db_image_extra(img, RAG_QUERIES_SEC, &qlen);
		nq = sec ? rag_parse(sec, qlen, img->dim, RAG_MAX_QUERIES, qs) : -EBADMSG;
	}
	if (nq < 0 || !img->quant) {
		fprintf(stderr, "rag_demo: %s: malformed questions, or the image has no "
			"quantizer\n", ro->bundle);
		return -1;
	}
	printf("read the database bundle from %s (block reads, normal SSD mode): "
	       "%" PRIu64 " passages, %u-d, %u clusters, in %.2f s\n", ro->bundle, img->n,
	       img->dim, img->nlist, now_s() - t0);
	return nq;
}

/*
 * The drive: the one place that chooses how it is reached (the char device
 * over io_uring, or a model in this process), and the normal SSD the
 * conventional path is modeled on (this drive's preset and geometry).
 * Return: the handle, or NULL with a message.
 */
static struct reis_dev *open_drive(const struct run_opts *ro, struct fp_params *fp)
{
	struct reis_inproc_opts io;
	const struct reis_info *di;
	struct reis_dev *dev;
	const char *what = ro->dev_path;
	char err[256];
	int ret;

	if (ro->inproc) {
		memset(&io, 0, sizeof(io));
		io.backing = ro->inproc;
		io.errbuf = err;
		io.errlen = sizeof(err);
		ret = reis_open_inproc(&io, &dev);
		what = "in-process drive";
	} else {
		ret = reis_open(ro->dev_path, 0, &dev);
	}
	if (ret) {
		fprintf(stderr, "rag_demo: %s: %s\n", what, reis_strerror(ret));
		return NULL;
	}
	di = reis_dev_info(dev);
	printf("drive %s (%s), preset %s: %u channels x %u dies x %u planes\n", what,
	       reis_transport(dev), di->preset, di->channels, di->dies_per_channel,
	       di->planes_per_die);
	if (fp_preset(di->preset, fp)) {
		fprintf(stderr, "rag_demo: unknown preset %s: no conventional-path model\n",
			di->preset);
		reis_close(dev);
		return NULL;
	}
	fp->channels = di->channels;
	fp->dies_per_channel = di->dies_per_channel;
	fp->planes_per_die = di->planes_per_die;
	fp->page_bytes = di->page_bytes;
	return dev;
}

/*
 * Step 2, RAG mode: the database in the drive, deployed unless this
 * bundle's is already there (an older bundle's, or one without the
 * quantizer in META, is replaced). Return: 0, or 1 with a message.
 */
static int ensure_deployed(struct reis_dev *dev, struct reis_db_image *img)
{
	struct reis_deploy_opts o;
	struct reis_db_info info;
	double t0;
	int ret = reis_db_info(dev, img->did, &info);

	if (!ret && (info.state != REIS_DB_READY || info.n != img->n ||
		     strcmp(info.name, img->name) || info.ncalib != img->ncalib ||
		     info.df_threshold != img->df_threshold || !info.meta_bytes)) {
		printf("database %u on the drive is stale: deleting it\n", img->did);
		if (reis_db_delete(dev, img->did)) {
			fprintf(stderr, "rag_demo: delete: %s\n", reis_last_error(dev));
			return 1;
		}
		ret = -ENOENT;
	}
	if (!ret) {
		printf("database %u '%s' already deployed (it survived the restart)\n", img->did,
		       img->name);
		return 0;
	}
	if (ret != -ENOENT) {
		fprintf(stderr, "rag_demo: %s\n", reis_last_error(dev));
		return 1;
	}
	memset(&o, 0, sizeof(o));
	t0 = now_s();
	o.progress = progress;
	o.arg = &t0;
	printf("deploying database %u '%s' into the drive (IVF_Deploy)...\n", img->did, img->name);
	if (reis_db_deploy(dev, img, &o)) {
		fprintf(stderr, "rag_demo: deploy: %s\n", reis_last_error(dev));
		return 1;
	}
	printf("deployed in %.1f s\n", now_s() - t0);
	return 0;
}

/* The quantizer the drive keeps with the database (not the bundle's): any
 * host can encode queries for it. Return: 0, or 1 with a message. */
static int drive_quantizer(struct reis_dev *dev, uint32_t did, struct reis_quant *quant)
{
	struct reis_db_info info;

	if (reis_db_info(dev, did, &info) || reis_db_quantizer(dev, did, quant)) {
		fprintf(stderr, "rag_demo: quantizer: %s\n", reis_last_error(dev));
		return 1;
	}
	printf("quantizer read from the drive (META section, %u bytes); distance-filter "
	       "threshold %u (Hamming) applied in the dies\n", info.meta_bytes,
	       info.df_threshold);
	return 0;
}

/* The question text for the summary: its first RAG_SUMMARY_TEXT characters
 * (UTF-8 kept whole, anything else one '?'), and their number. */
static void summary_text(const struct rag_q *q, struct rag_row *row)
{
	uint32_t i = 0, n = 0;

	while (i < q->tlen && n < RAG_SUMMARY_TEXT) {
		uint32_t l = utf8_len((const uint8_t *)q->text + i, q->tlen - i);

		if (!l) {
			row->text[row->tbytes++] = '?';	/* not text: one mark */
			i++;
		} else {
			memcpy(row->text + row->tbytes, q->text + i, l);
			row->tbytes += l;
			i += l;
		}
		n++;
	}
	row->text[row->tbytes] = 0;
	row->tcols = n;
}

/* Step 3, one question: in the drive, then the conventional way. Return:
 * 0, or 1 with a message. */
static int ask(struct reis_dev *dev, const struct run_opts *ro, const struct reis_db_image *img,
	       const struct reis_quant *quant, const struct rag_q *qq, const struct fp_params *fp,
	       struct rag_row *row)
{
	struct reis_search_opts so;
	struct reis_search_result r;
	struct reis_queries q;
	struct reis_stats a, b;
	uint32_t j;
	int ret;

	if (reis_encode_queries(quant, qq->emb, 1, &q))
		return 1;
	memset(&so, 0, sizeof(so));
	so.did = img->did;
	so.k = ro->k;
	so.target_recall = ro->recall;
	so.flags = REIS_SF_DOCS;
	if (reis_stats(dev, 0, &a))
		memset(&a, 0, sizeof(a));
	if (reis_ivf_search(dev, &so, &q, &r)) {
		fprintf(stderr, "rag_demo: search: %s\n", reis_last_error(dev));
		reis_queries_free(&q);
		return 1;
	}
	if (reis_stats(dev, 0, &b))
		b = a;
	printf("\nquestion: \"%.*s\"\n", (int)qq->tlen, qq->text);
	printf("IVF_Search(k = %u, R = %.2f) -> nprobe %u of %u clusters; modeled %.3f ms "
	       "in the drive + %.3f ms document transfer, %.1f uJ\n", ro->k, ro->recall / 1e4,
	       r.nprobe, img->nlist, r.search_ns / 1e6, r.read_ns / 1e6,
	       (r.search_nj + r.read_nj) / 1e3);
	for (j = 0; j < r.nhits[0]; j++) {
		const struct reis_hit *x = &r.hits[j];
		int col = printf("  %u.%s [passage %" PRIu64 ", hamming %u, score %" PRId64 "] ",
				 j + 1, x->id == qq->ans ? " (*)" : "", x->id, x->hamming, x->score);

		print_wrapped(x->doc, x->doc_len, 6, col);
	}
	if (qq->ans != RAG_NO_ANSWER)
		printf("  (*) the gloss this example sentence comes from\n");
	memset(row, 0, sizeof(*row));
	summary_text(qq, row);
	/* the answer, bit for bit: another path or drive must give the same */
	row->answer = UINT64_C(0xcbf29ce484222325);
	for (j = 0; j < r.nhits[0]; j++) {
		const struct reis_hit *x = &r.hits[j];

		row->answer = fnv(row->answer, &x->id, sizeof(x->id));
		row->answer = fnv(row->answer, &x->hamming, sizeof(x->hamming));
		row->answer = fnv(row->answer, &x->score, sizeof(x->score));
		row->answer = fnv(row->answer, &x->doc_len, sizeof(x->doc_len));
		row->answer = fnv(row->answer, x->doc, x->doc_len);
	}
	printf("  answer digest 0x%016" PRIx64 " (hits, Hamming distances, scores, passages)\n",
	       row->answer);
	row->drive_ns = (double)(r.search_ns + r.read_ns);
	row->drive_nj = (double)(r.search_nj + r.read_nj);
	row->drive_bytes = b.link_bytes_c2h - a.link_bytes_c2h;
	ret = conventional(ro->bundle, &so, r.nprobe, &q, &r, fp, row);
	reis_queries_free(&q);
	reis_search_result_free(&r);
	return ret;
}

/* Step 4: what the drive did for all the questions. */
static void print_drive_stats(struct reis_dev *dev, const struct reis_stats *s0)
{
	struct reis_stats s1;

	if (reis_stats(dev, 0, &s1))
		return;
	printf("\ndrive statistics for these searches: %" PRIu64 " SLC page reads, %" PRIu64
	       " TLC page reads, %.1f KB over the channels, %" PRIu64 " entries filtered in the "
	       "dies, %" PRIu64 " crossed the channel, %.1f KB to the host; modeled energy "
	       "%.1f uJ\n", s1.page_reads[REIS_CELL_SLC] - s0->page_reads[REIS_CELL_SLC],
	       s1.page_reads[REIS_CELL_TLC] - s0->page_reads[REIS_CELL_TLC],
	       (s1.channel_bytes - s0->channel_bytes) / 1e3,
	       s1.filtered_entries - s0->filtered_entries, s1.ttl_entries - s0->ttl_entries,
	       (s1.link_bytes_c2h - s0->link_bytes_c2h) / 1e3, (s1.energy_pj - s0->energy_pj) / 1e6);
}

/* `rag_demo run`: steps 1-4 of the header. */
static int cmd_run(int argc, char **argv)
{
	struct rag_q qs[RAG_MAX_USER];
	struct rag_row rows[RAG_MAX_USER];
	struct run_opts ro;
	struct reis_db_image img;
	struct reis_quant quant;
	struct reis_stats s0;
	struct fp_params fp;
	struct reis_dev *dev = NULL;
	uint8_t *user = NULL;
	uint32_t qi, nrows = 0;
	int nq, rc = 1;

	if (parse_run(argc, argv, &ro))
		return 2;
	memset(&img, 0, sizeof(img));
	memset(&quant, 0, sizeof(quant));
	printf("== RAG retrieval inside the SSD (REIS) ==\n");
	nq = load_bundle(&ro, &img, qs, &user);
	if (nq < 0 || !(dev = open_drive(&ro, &fp)) || ensure_deployed(dev, &img) ||
	    drive_quantizer(dev, img.did, &quant))
		goto out;
	if (reis_stats(dev, 0, &s0))
		memset(&s0, 0, sizeof(s0));
	for (qi = 0; qi < (uint32_t)nq; qi++) {
		if (ro.only != UINT32_MAX && qi != ro.only)
			continue;
		if (ask(dev, &ro, &img, &quant, &qs[qi], &fp, &rows[nrows]))
			goto out;
		nrows++;
	}
	print_drive_stats(dev, &s0);
	print_summary(rows, nrows);
	rc = 0;
out:
	reis_close(dev);
	reis_quant_free(&quant);
	reis_db_image_free(&img);
	free(user);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "bundle")) {
		if (argc != 4) {
			fprintf(stderr, "usage: rag_demo bundle CORPUS_DIR OUT.img\n");
			return 2;
		}
		return cmd_bundle(argv[2], argv[3]);
	}
	if (argc >= 2 && !strcmp(argv[1], "questions")) {
		if (argc != 5) {
			fprintf(stderr, "usage: rag_demo questions TEXT.txt VECS.fvecs OUT.blob\n");
			return 2;
		}
		return cmd_questions(argv[2], argv[3], argv[4]);
	}
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return cmd_run(argc - 2, argv + 2);
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(rag_usage, stdout);
		return 0;
	}
	return cmd_run(argc - 1, argv + 1);
}
