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
 * In the guest, `rag_demo [run] [--dev /dev/ng0n1] [--bundle /dev/nvme0n1]
 * [--query N] [--k K] [--recall R]` (`--inproc BACKING` runs it on the host
 * against an in-process drive):
 *   1. read the image from the block device (normal SSD mode);
 *   2. find the database on the drive, or deploy it (RAG mode) with a
 *      progress line; the deploy stores the quantizer with it (META);
 *   3. read the quantizer back from the drive (reis_db_quantizer(): what a
 *      host that did not deploy the database would do), and for each demo
 *      query: encode its embedding with it, IVF_SEARCH with a target recall
 *      and the documents, print the top passages, the modeled latency and
 *      energy;
 *   4. print what the drive did (ISP_STATS before and after).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "corpus.h"
#include "libreis_tools.h"

#define RAG_DID 4242u
#define RAG_QUERIES_SEC 0x100u		/* user section of the image */
#define RAG_MAX_QUERIES 8u
#define RAG_MAX_TEXT 256u

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
	(void)frac;
	if (strcmp(stage, "done"))
		fprintf(stderr, "rag_demo: %s\n", stage);
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

static void print_wrapped(const uint8_t *s, uint32_t len, unsigned indent, int col0)
{
	uint32_t i, col = col0 > 0 ? (uint32_t)col0 : indent;

	for (i = 0; i < len; i++) {
		char c = s[i] >= 0x20 && s[i] < 0x7f ? (char)s[i] : '?';

		if (c == ' ' && col > 74) {
			printf("\n%*s", indent, "");
			col = indent;
			continue;
		}
		putchar(c);
		col++;
	}
	putchar('\n');
}

static int cmd_run(int argc, char **argv)
{
	const char *dev_path = "/dev/ng0n1", *bundle = "/dev/nvme0n1", *inproc = NULL;
	struct reis_db_image img;
	struct reis_db_info info;
	struct reis_quant quant;
	struct reis_stats s0, s1;
	struct reis_dev *dev;
	const uint8_t *qs;
	struct rag_qhdr h;
	uint64_t qlen, pos;
	uint32_t k = 5, recall = 9500, only = UINT32_MAX, qi;
	char err[256];
	int fd, ret, i;
	double t0;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--dev") && i + 1 < argc)
			dev_path = argv[++i];
		else if (!strcmp(argv[i], "--inproc") && i + 1 < argc)
			inproc = argv[++i];
		else if (!strcmp(argv[i], "--bundle") && i + 1 < argc)
			bundle = argv[++i];
		else if (!strcmp(argv[i], "--query") && i + 1 < argc)
			only = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--k") && i + 1 < argc)
			k = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--recall") && i + 1 < argc)
			recall = (uint32_t)(strtod(argv[++i], NULL) * 10000);
		else {
			fprintf(stderr, "usage: rag_demo [run] [--dev NG | --inproc BACKING] "
				"[--bundle BLOCKDEV|FILE] [--query N] [--k K] [--recall R]\n");
			return 2;
		}
	}
	if (!k || k > 50 || recall > 10000) {
		fprintf(stderr, "rag_demo: --k must be 1..50 and --recall in [0, 1]\n");
		return 2;
	}

	printf("== RAG retrieval inside the SSD (REIS) ==\n");
	/* 1. Normal SSD mode: the bundle comes off the namespace. */
	t0 = now_s();
	fd = open(bundle, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "rag_demo: %s: %s\n", bundle, strerror(errno));
		return 1;
	}
	ret = reis_db_image_read(fd, 0, &img, err, sizeof(err));
	close(fd);
	if (ret) {
		fprintf(stderr, "rag_demo: %s: %s (scripts/rag-bundle.sh writes the bundle)\n",
			bundle, err);
		return 1;
	}
	qs = reis_db_image_extra(&img, RAG_QUERIES_SEC, &qlen);
	if (!qs || qlen < sizeof(h) || !img.quant) {
		fprintf(stderr, "rag_demo: %s: the image has no demo queries or quantizer\n",
			bundle);
		return 1;
	}
	memcpy(&h, qs, sizeof(h));
	if (memcmp(h.magic, "RAGQ", 4) || h.dim != img.dim || h.count > RAG_MAX_QUERIES) {
		fprintf(stderr, "rag_demo: malformed demo queries\n");
		return 1;
	}
	printf("read the database bundle from %s (block reads, normal SSD mode): "
	       "%" PRIu64 " passages, %u-d, %u clusters, in %.2f s\n", bundle, img.n, img.dim,
	       img.nlist, now_s() - t0);

	/* 2. RAG mode: the database in the drive. */
	if (inproc) {
		struct reis_inproc_opts io;

		memset(&io, 0, sizeof(io));
		io.backing = inproc;
		io.errbuf = err;
		io.errlen = sizeof(err);
		ret = reis_open_inproc(&io, &dev);
		dev_path = "in-process drive";
	} else {
		ret = reis_open(dev_path, 0, &dev);
	}
	if (ret) {
		fprintf(stderr, "rag_demo: %s: %s\n", dev_path, reis_strerror(ret));
		return 1;
	}
	printf("drive %s (%s), preset %s: %u channels x %u dies x %u planes\n", dev_path,
	       reis_transport(dev), reis_dev_info(dev)->preset, reis_dev_info(dev)->channels,
	       reis_dev_info(dev)->dies_per_channel, reis_dev_info(dev)->planes_per_die);
	ret = reis_db_info(dev, img.did, &info);
	/* A database from an older bundle (or without the quantizer in META)
	 * is replaced. */
	if (!ret && (info.state != REIS_DB_READY || info.n != img.n ||
		     strcmp(info.name, img.name) || info.ncalib != img.ncalib ||
		     info.df_threshold != img.df_threshold || !info.meta_bytes)) {
		printf("database %u on the drive is stale: deleting it\n", img.did);
		ret = reis_db_delete(dev, img.did);
		if (ret) {
			fprintf(stderr, "rag_demo: delete: %s\n", reis_last_error(dev));
			return 1;
		}
		ret = -ENOENT;
	}
	if (ret == -ENOENT) {
		struct reis_deploy_opts o;

		memset(&o, 0, sizeof(o));
		t0 = now_s();
		o.progress = progress;
		o.arg = &t0;
		printf("deploying database %u '%s' into the drive (IVF_Deploy)...\n", img.did,
		       img.name);
		ret = reis_db_deploy(dev, &img, &o);
		if (ret) {
			fprintf(stderr, "rag_demo: deploy: %s\n", reis_last_error(dev));
			return 1;
		}
		printf("deployed in %.1f s\n", now_s() - t0);
	} else if (ret) {
		fprintf(stderr, "rag_demo: %s\n", reis_last_error(dev));
		return 1;
	} else {
		printf("database %u '%s' already deployed (it survived the restart)\n", img.did,
		       img.name);
	}
	/* The queries are encoded with the quantizer the drive keeps with the
	 * database, not the bundle's: any host can search it. */
	ret = reis_db_info(dev, img.did, &info);
	if (!ret)
		ret = reis_db_quantizer(dev, img.did, &quant);
	if (ret) {
		fprintf(stderr, "rag_demo: quantizer: %s\n", reis_last_error(dev));
		return 1;
	}
	printf("quantizer read from the drive (META section, %u bytes); distance-filter "
	       "threshold %u (Hamming) applied in the dies\n", info.meta_bytes,
	       info.df_threshold);
	if (reis_stats(dev, 0, &s0))
		memset(&s0, 0, sizeof(s0));

	/* 3. Queries: precomputed embeddings, no model in the guest. */
	pos = sizeof(h);
	for (qi = 0; qi < h.count; qi++) {
		struct reis_search_opts so;
		struct reis_search_result r;
		struct reis_queries q;
		uint32_t ans, tlen, j;
		const char *text;
		const float *emb;

		if (qlen - pos < 8)
			break;
		memcpy(&ans, qs + pos, 4);
		memcpy(&tlen, qs + pos + 4, 4);
		if (tlen >= RAG_MAX_TEXT || qlen - pos - 8 < ((tlen + 3) & ~3u) + 4ull * h.dim)
			break;
		text = (const char *)qs + pos + 8;
		pos += 8 + ((tlen + 3) & ~3u);
		emb = (const float *)(const void *)(qs + pos);
		pos += 4ull * h.dim;
		if (only != UINT32_MAX && qi != only)
			continue;
		if (only == UINT32_MAX && qi >= 3)
			break;
		if (reis_encode_queries(&quant, emb, 1, &q))
			return 1;
		memset(&so, 0, sizeof(so));
		so.did = img.did;
		so.k = k;
		so.target_recall = recall;
		so.flags = REIS_SF_DOCS;
		ret = reis_ivf_search(dev, &so, &q, &r);
		reis_queries_free(&q);
		if (ret) {
			fprintf(stderr, "rag_demo: search: %s\n", reis_last_error(dev));
			return 1;
		}
		printf("\nquery: \"%.*s\"\n", (int)tlen, text);
		printf("IVF_Search(k = %u, R = %.2f) -> nprobe %u of %u clusters; modeled %.3f ms "
		       "in the drive + %.3f ms document transfer, %.1f uJ\n", k, recall / 1e4,
		       r.nprobe, img.nlist, r.search_ns / 1e6, r.read_ns / 1e6,
		       (r.search_nj + r.read_nj) / 1e3);
		for (j = 0; j < r.nhits[0]; j++) {
			const struct reis_hit *x = &r.hits[j];

			int col = printf("  %u.%s [passage %" PRIu64 ", hamming %u, score %" PRId64
					 "] ", j + 1, x->id == ans ? " (*)" : "", x->id, x->hamming,
					 x->score);

			print_wrapped(x->doc, x->doc_len, 6, col);
		}
		printf("  (*) the gloss this example sentence comes from\n");
		reis_search_result_free(&r);
	}

	/* 4. What the drive did for them. */
	if (!reis_stats(dev, 0, &s1)) {
		printf("\ndrive statistics for these searches: %" PRIu64 " SLC page reads, %"
		       PRIu64 " TLC page reads, %.1f KB over the channels, %" PRIu64
		       " entries filtered in the dies, %" PRIu64 " crossed the channel, "
		       "%.1f KB to the host; modeled energy %.1f uJ\n",
		       s1.page_reads[REIS_CELL_SLC] - s0.page_reads[REIS_CELL_SLC],
		       s1.page_reads[REIS_CELL_TLC] - s0.page_reads[REIS_CELL_TLC],
		       (s1.channel_bytes - s0.channel_bytes) / 1e3,
		       s1.filtered_entries - s0.filtered_entries, s1.ttl_entries - s0.ttl_entries,
		       (s1.link_bytes_c2h - s0.link_bytes_c2h) / 1e3,
		       (s1.energy_pj - s0.energy_pj) / 1e6);
	}
	reis_close(dev);
	reis_quant_free(&quant);
	reis_db_image_free(&img);
	return 0;
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
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return cmd_run(argc - 2, argv + 2);
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: rag_demo bundle CORPUS_DIR OUT.img   (host)\n"
		       "       rag_demo [run] [--dev /dev/ng0n1 | --inproc BACKING]\n"
		       "                [--bundle /dev/nvme0n1] [--query N] [--k K] [--recall R]\n"
		       "                                                   (guest)\n");
		return 0;
	}
	return cmd_run(argc - 1, argv + 1);
}
