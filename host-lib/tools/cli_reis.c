/* SPDX-License-Identifier: MIT */
/*
 * cli_reis.c - the reis CLI's REIS commands: deploy, search, db
 * list|info|delete, trace (docs/reis.md). Vectors come from .fvecs/.bvecs/
 * .npy files; documents, tags and ids from text files (one per line) or
 * the corpus' binary docs/idx pair; queries from a vector file or stdin.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "libreis_tools.h"
#include "cli_util.h"

/* Bounds of what the CLI reads. */
#define DB_MAX_TEXT_BYTES (UINT64_C(1) << 34)	/* docs, tags, ids files */
#define DB_MAX_LINE (1u << 20)			/* one stdin query line */
#define DB_MAX_STDIN_QUERIES 100000u
#define DB_DOC_SHOW 240				/* document bytes printed */
#define DB_MAX_DBS 4096u
#define REIS_ERRMSG_MAX 512

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const char *kind_name(uint32_t k)
{
	return k == REIS_DB_BF ? "bf" : k == REIS_DB_IVF ? "ivf" : "?";
}

static const char *metric_name(uint32_t m)
{
	return m == REIS_METRIC_IP ? "ip" : m == REIS_METRIC_L2 ? "l2" : "?";
}

static const char *doc_mode_name(uint32_t m)
{
	return m == REIS_DOC_SUBPAGE ? "subpage" : m == REIS_DOC_PAGE ? "page" : "none";
}

static int parse_did(const char *cmd, const char *s, uint32_t *did)
{
	uint64_t v;

	if (parse_u64(s, 1, UINT32_MAX, &v))
		return usage_err("%s: database id must be 1..4294967295, not '%s'", cmd, s);
	*did = (uint32_t)v;
	return 0;
}

/* Read a whole regular file (bounded). */
static int slurp(const char *path, uint8_t **out, uint64_t *len)
{
	struct stat st;
	uint64_t got = 0;
	uint8_t *buf;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > DB_MAX_TEXT_BYTES) {
		close(fd);
		return -EINVAL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (uint64_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)((uint64_t)st.st_size - got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			ret = r < 0 ? -errno : -EIO;
			close(fd);
			free(buf);
			return ret;
		}
		got += (uint64_t)r;
	}
	close(fd);
	buf[got] = 0;
	*out = buf;
	*len = got;
	return 0;
}

/* Lines of a text file: offsets of n lines (a final newline is optional). */
static int split_lines(const uint8_t *buf, uint64_t len, uint64_t want,
		       uint64_t **offsets, uint64_t **ends, uint64_t *count)
{
	uint64_t n = 0, i, start = 0, *o, *e;

	for (i = 0; i < len; i++)
		n += buf[i] == '\n';
	if (len && buf[len - 1] != '\n')
		n++;
	*count = n;
	if (want && n != want)
		return -ERANGE;
	o = malloc((n + 1) * sizeof(*o));
	e = malloc((n + 1) * sizeof(*e));
	if (!o || !e) {
		free(o);
		free(e);
		return -ENOMEM;
	}
	for (i = 0, n = 0; i <= len; i++) {
		if (i == len && start == len)
			break;
		if (i == len || buf[i] == '\n') {
			uint64_t end = i;

			if (end > start && buf[end - 1] == '\r')
				end--;
			o[n] = start;
			e[n] = end;
			n++;
			start = i + 1;
		}
	}
	*offsets = o;
	*ends = e;
	return 0;
}

/*
 * Documents of n rows: @path has one per line, or with @idx_path the
 * corpus layout (concatenated bytes + n+1 uint64 offsets).
 */
static int load_docs(const char *path, const char *idx_path, uint64_t n, uint8_t **blob,
		     uint64_t **offsets)
{
	uint8_t *buf, *idx;
	uint64_t len, ilen, cnt, *o, *e, i, pos = 0;
	int ret;

	ret = slurp(path, &buf, &len);
	if (ret) {
		cli_errno(ret, "deploy: --docs %s: %s", path, strerror(-ret));
		return ret;
	}
	if (idx_path) {
		ret = slurp(idx_path, &idx, &ilen);
		if (ret) {
			cli_errno(ret, "deploy: --docs-idx %s: %s", idx_path,
				strerror(-ret));
			free(buf);
			return ret;
		}
		if (ilen != (n + 1) * 8) {
			cli_err("deploy: --docs-idx %s: %" PRIu64 " bytes, want %"
				PRIu64 " (n + 1 uint64 offsets)", idx_path, ilen, (n + 1) * 8);
			free(buf);
			free(idx);
			return -EINVAL;
		}
		o = (uint64_t *)(void *)idx;
		for (i = 0; i < n; i++)
			if (o[i + 1] < o[i] || o[i + 1] - o[i] > 65536)
				break;
		if (i < n || o[0] != 0 || o[n] > len) {
			cli_err("deploy: --docs-idx %s: offsets do not ascend within "
				"%s (entry %" PRIu64 ") or a document exceeds 64 KiB", idx_path,
				path, i);
			free(buf);
			free(idx);
			return -EINVAL;
		}
		*blob = buf;
		*offsets = o;
		return 0;
	}
	ret = split_lines(buf, len, n, &o, &e, &cnt);
	if (ret) {
		if (ret == -ERANGE)
			cli_err("deploy: --docs %s has %" PRIu64 " lines, the vectors "
				"%" PRIu64 "", path, cnt, n);
		free(buf);
		return ret;
	}
	/* Compact in place: line i becomes [o[i], o[i+1]). */
	for (i = 0; i < n; i++) {
		uint64_t l = e[i] - o[i];

		if (l > 65536) {
			cli_err("deploy: --docs %s: line %" PRIu64 " is longer than "
				"64 KiB", path, i + 1);
			free(buf);
			free(o);
			free(e);
			return -EINVAL;
		}
		memmove(buf + pos, buf + o[i], l);
		o[i] = pos;
		pos += l;
	}
	o[n] = pos;
	free(e);
	*blob = buf;
	*offsets = o;
	return 0;
}

/* n unsigned integers: one per text line, or an .ivecs of dimension 1. */
static int load_u64s(const char *what, const char *path, uint64_t n, uint64_t max,
		     uint64_t **out)
{
	const char *dot = strrchr(path, '.');
	uint64_t *v, len, cnt, *o, *e, i;
	uint8_t *buf;
	char err[256];
	int ret;

	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (dot && !strcmp(dot, ".ivecs")) {
		struct reis_vecs iv;

		ret = reis_vecs_load(path, &iv, err, sizeof(err));
		if (ret || iv.dim != 1 || iv.n != n) {
			cli_err("deploy: %s %s: %s", what, path, ret ? err :
				"need one int32 per vector (dimension 1) and one vector per row");
			reis_vecs_free(&iv);
			free(v);
			return -EINVAL;
		}
		for (i = 0; i < n; i++) {
			int32_t x = ((int32_t *)iv.data)[i];

			if (x < 0 || (uint64_t)x > max) {
				cli_err("deploy: %s %s: value %d at row %" PRIu64
					" out of range", what, path, x, i);
				reis_vecs_free(&iv);
				free(v);
				return -EINVAL;
			}
			v[i] = (uint64_t)x;
		}
		reis_vecs_free(&iv);
		*out = v;
		return 0;
	}
	ret = slurp(path, &buf, &len);
	if (ret) {
		cli_errno(ret, "deploy: %s %s: %s", what, path, strerror(-ret));
		free(v);
		return ret;
	}
	ret = split_lines(buf, len, n, &o, &e, &cnt);
	if (ret) {
		if (ret == -ERANGE)
			cli_err("deploy: %s %s has %" PRIu64 " lines, the vectors %"
				PRIu64 "", what, path, cnt, n);
		free(buf);
		free(v);
		return ret;
	}
	for (i = 0; i < n; i++) {
		char tmp[32];
		uint64_t l = e[i] - o[i];

		if (!l || l >= sizeof(tmp) || (memcpy(tmp, buf + o[i], l), tmp[l] = 0,
					      parse_u64(tmp, 0, max, &v[i]))) {
			cli_err("deploy: %s %s: line %" PRIu64 " is not a number in "
				"0..%" PRIu64 "", what, path, i + 1, max);
			ret = -EINVAL;
			break;
		}
	}
	free(buf);
	free(o);
	free(e);
	if (ret) {
		free(v);
		return ret;
	}
	*out = v;
	return 0;
}

/* Queries from stdin: one per line, floats separated by spaces or commas. */
static int read_stdin_queries(struct reis_vecs *v)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	float *data = NULL;
	uint64_t n = 0, room = 0;
	uint32_t dim = 0;

	memset(v, 0, sizeof(*v));
	while ((len = getline(&line, &cap, stdin)) >= 0) {
		char *p = line, *end;
		uint32_t d = 0;

		if ((size_t)len > DB_MAX_LINE) {
			cli_err("search: stdin line %" PRIu64 " is longer than %u "
				"bytes", n + 1, DB_MAX_LINE);
			goto fail;
		}
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\n' || *p == '\r' || !*p || *p == '#')
			continue;
		if (n >= DB_MAX_STDIN_QUERIES) {
			cli_err("search: more than %u queries on stdin",
				DB_MAX_STDIN_QUERIES);
			goto fail;
		}
		for (;;) {
			float f;

			while (*p == ' ' || *p == '\t' || *p == ',')
				p++;
			if (!*p || *p == '\n' || *p == '\r')
				break;
			errno = 0;
			f = strtof(p, &end);
			if (end == p || errno || !isfinite(f)) {
				cli_err("search: stdin line %" PRIu64 ": not a number "
					"at column %zu", n + 1, (size_t)(p - line) + 1);
				goto fail;
			}
			p = end;
			if (dim && d >= dim) {
				cli_err("search: stdin query %" PRIu64 " has more than "
					"%u values", n + 1, dim);
				goto fail;
			}
			if (d >= REIS_DB_MAX_DIM) {
				cli_err("search: stdin query longer than %u values",
					REIS_DB_MAX_DIM);
				goto fail;
			}
			if ((n + 1) * (dim ? dim : REIS_DB_MAX_DIM) > room) {
				uint64_t nr = (n + 16) * (dim ? dim : REIS_DB_MAX_DIM) * 2;
				float *nd = realloc(data, nr * sizeof(*nd));

				if (!nd)
					goto fail;
				data = nd;
				room = nr;
			}
			data[n * (dim ? dim : REIS_DB_MAX_DIM) + d++] = f;
		}
		if (!dim) {
			dim = d;
			if (!dim)
				continue;
			/* The first row was laid out with a stride of MAX_DIM. */
		} else if (d != dim) {
			cli_err("search: stdin query %" PRIu64 " has %u values, the "
				"first %u", n + 1, d, dim);
			goto fail;
		}
		n++;
	}
	free(line);
	if (!n) {
		cli_err("search: no queries on stdin");
		free(data);
		return -EINVAL;
	}
	v->n = n;
	v->dim = dim;
	v->type = REIS_VEC_F32;
	v->data = data;
	return 0;
fail:
	free(line);
	free(data);
	return -EINVAL;
}

/* ---------------------------------------------------------------------- */
/* deploy                                                                  */
/* ---------------------------------------------------------------------- */

struct bar {
	int on;
	double t0;
	int last_pct;
};

static void bar_draw(struct bar *b, const char *what, double frac, const char *extra)
{
	int pct = (int)(frac * 100), i, w = 30;

	if (!b->on || (pct == b->last_pct && frac < 1))
		return;
	b->last_pct = pct;
	fprintf(stderr, "\r%-10s [", what);
	for (i = 0; i < w; i++)
		fputc(i < (int)(frac * w) ? '#' : '.', stderr);
	fprintf(stderr, "] %3d%% %s %.1fs ", pct, extra ? extra : "", now_s() - b->t0);
	if (frac >= 1)
		fputc('\n', stderr);
	fflush(stderr);
}

static void deploy_progress(void *arg, uint64_t done, uint64_t total)
{
	char extra[64];

	snprintf(extra, sizeof(extra), "%.1f/%.1f MB", done / 1e6, total / 1e6);
	bar_draw(arg, "deploy", total ? (double)done / total : 1, extra);
}

/* A line per build stage; the long ones (k-means, calibration) as a bar. */
static void build_progress(void *arg, const char *stage, double frac)
{
	struct bar *b = arg;
	char what[32];

	if (!b->on || !strcmp(stage, "done"))
		return;
	if (frac <= 0) {
		if (b->last_pct > 0 && b->last_pct < 100)
			fputc('\n', stderr);	/* k-means converged early */
		b->last_pct = -1;
		fprintf(stderr, "build: %s\n", stage);
		return;
	}
	snprintf(what, sizeof(what), "build: %s", stage);
	bar_draw(b, what, frac, "");
}

static int first_free_did(struct reis_dev *dev, uint32_t *did)
{
	struct reis_db_info *l = calloc(DB_MAX_DBS, sizeof(*l));
	int n, i;
	uint32_t d;

	if (!l)
		return -ENOMEM;
	n = reis_db_list(dev, l, DB_MAX_DBS);
	if (n < 0) {
		free(l);
		return n;
	}
	if (n > (int)DB_MAX_DBS)
		n = DB_MAX_DBS;
	for (d = 1;; d++) {
		for (i = 0; i < n; i++)
			if (l[i].did == d)
				break;
		if (i == n)
			break;
	}
	free(l);
	*did = d;
	return 0;
}

static void json_calib(const struct reis_db_image *img)
{
	uint32_t i;

	j_arr("calibration");
	for (i = 0; i < img->ncalib; i++) {
		j_obj(NULL);
		j_u64("nprobe", img->calib[i].nprobe);
		j_dbl("recall", img->calib[i].recall / 10000.0);
		j_obj_end();
	}
	j_arr_end();
}

static const char *est_mode_name(uint32_t mode)
{
	return mode == REIS_EST_APPROX ? "approximate" : mode == REIS_EST_BINARY ? "binary" :
	       mode == REIS_EST_EXACT ? "exact" : "?";
}

/* What each mode is, in a few words (docs/reis.md §1). */
static void est_mode_text(const struct reis_recall_est *e, char *buf, size_t len)
{
	if (e->mode == REIS_EST_APPROX)
		snprintf(buf, len, "approximate (%u x k nearest by Hamming distance, INT8 "
			 "rerank%s)", e->factor ? e->factor : REIS_DEFAULT_RERANK,
			 !e->factor || e->factor == REIS_DEFAULT_RERANK ? "; the paper's method, "
			 "REIS 4.3.2" : "");
	else if (e->mode == REIS_EST_BINARY)
		snprintf(buf, len, "binary (Hamming distance only, --no-rerank)");
	else
		snprintf(buf, len, "exact (every entry reranked by INT8 score, --exact)");
}

static void json_recall_est(const char *key, const struct reis_recall_est *e)
{
	j_obj(key);
	j_str("mode", est_mode_name(e->mode));
	j_u64("k", e->k);
	j_u64("factor", e->factor);
	j_u64("nprobe", e->nprobe);
	j_dbl("recall", e->recall / 10000.0);
	j_u64("queries", e->nq);
	j_str("queries_from", e->self ? "database rows, each left out" : "--calib");
	j_obj_end();
}

/* Everything `reis deploy` works with: options, inputs, the image. */
struct deploy_job {
	const char *docs_path, *idx_path, *tags_path, *ids_path;
	const char *calib_path, *truth_path, *quant_out, *pack;
	const char *image, *vec_path, *name;
	struct reis_build_opts bo;
	struct reis_vecs base, calib, truth;
	struct reis_db_image img;
	struct bar bar;
	uint8_t *docs;
	uint64_t *doff, *tags64, *ids;
	uint32_t *tags, did;
	double t0, t_build, t_deploy;
	struct reis_df_opts dfo;
	struct reis_df_calib dfc;
	int quiet, built, df_auto, no_meta;
};

/* Long-only options (no short letter). */
enum { OPT_NO_INT8 = 1000, OPT_NO_ESTIMATE, OPT_EXACT };

static const struct option deploy_lo[] = {
	{ "did", required_argument, NULL, 'd' },
	{ "name", required_argument, NULL, 'n' },
	{ "ivf", required_argument, NULL, 'v' },
	{ "int8", no_argument, NULL, '8' },
	{ "no-int8", no_argument, NULL, OPT_NO_INT8 },
	{ "no-estimate", no_argument, NULL, OPT_NO_ESTIMATE },
	{ "metric", required_argument, NULL, 'm' },
	{ "docs", required_argument, NULL, 'D' },
	{ "docs-idx", required_argument, NULL, 'X' },
	{ "doc-mode", required_argument, NULL, 'M' },
	{ "tags", required_argument, NULL, 't' },
	{ "ids", required_argument, NULL, 'i' },
	{ "group", required_argument, NULL, 'g' },
	{ "timestamp", required_argument, NULL, 'T' },
	{ "df", required_argument, NULL, 'f' },
	{ "calib", required_argument, NULL, 'c' },
	{ "calib-truth", required_argument, NULL, 'C' },
	{ "calib-k", required_argument, NULL, 'k' },
	{ "seed", required_argument, NULL, 's' },
	{ "iters", required_argument, NULL, 'I' },
	{ "init", required_argument, NULL, 'z' },
	{ "train-per-list", required_argument, NULL, 'P' },
	{ "center", no_argument, NULL, 'e' },
	{ "majority", no_argument, NULL, 'j' },
	{ "quant-out", required_argument, NULL, 'q' },
	{ "pack", required_argument, NULL, 'p' },
	{ "image", required_argument, NULL, 'G' },
	{ "no-progress", no_argument, NULL, 'N' },
	{ "no-meta", no_argument, NULL, 'O' },
	{ "df-quantile", required_argument, NULL, 'Q' },
	{ "df-k", required_argument, NULL, 'K' },
	{ "df-nprobe", required_argument, NULL, 'R' },
	{ NULL, 0, NULL, 0 },
};

/* The database's shape and contents: 0, -1 when @opt is not one of them,
 * or an exit code. */
static int deploy_opt_layout(struct deploy_job *j, int opt)
{
	uint64_t v;

	switch (opt) {
	case 'd':
		return parse_did("deploy", optarg, &j->did) ? EXIT_USAGE : 0;
	case 'n':
		if (strlen(optarg) > REIS_DB_NAME_LEN)
			return usage_err("deploy: --name must be at most %u bytes", REIS_DB_NAME_LEN);
		j->name = optarg;
		return 0;
	case 'v':
		if (parse_u64(optarg, 0, REIS_DB_MAX_NLIST, &v))
			return usage_err("deploy: --ivf NLIST must be 0 (about sqrt(n)) .. %u",
					 REIS_DB_MAX_NLIST);
		j->bo.kind = REIS_DB_IVF;
		j->bo.nlist = (uint32_t)v;
		return 0;
	case '8': j->bo.flags |= REIS_BUILD_INT8; return 0;	/* the default */
	case OPT_NO_INT8: j->bo.flags &= ~REIS_BUILD_INT8; return 0;
	case OPT_NO_ESTIMATE: j->bo.flags &= ~REIS_BUILD_ESTIMATE; return 0;
	case 'm':
		if (!strcmp(optarg, "ip"))
			j->bo.metric = REIS_METRIC_IP;
		else if (!strcmp(optarg, "l2"))
			j->bo.metric = REIS_METRIC_L2;
		else
			return usage_err("deploy: --metric must be ip or l2");
		return 0;
	case 'D': j->docs_path = optarg; return 0;
	case 'X': j->idx_path = optarg; return 0;
	case 'M':
		if (!strcmp(optarg, "subpage"))
			j->bo.doc_mode = REIS_DOC_SUBPAGE;
		else if (!strcmp(optarg, "page"))
			j->bo.doc_mode = REIS_DOC_PAGE;
		else
			return usage_err("deploy: --doc-mode must be subpage or page");
		return 0;
	case 't': j->tags_path = optarg; return 0;
	case 'i': j->ids_path = optarg; return 0;
	case 'g':
		if (parse_u64(optarg, 1, UINT32_MAX, &v))
			return usage_err("deploy: --group must be 1..4294967295");
		j->bo.group = (uint32_t)v;
		return 0;
	case 'T':
		if (parse_u64(optarg, 0, UINT64_MAX, &v))
			return usage_err("deploy: --timestamp must be an unsigned number");
		j->bo.timestamp = v;
		return 0;
	case 'O': j->no_meta = 1; return 0;
	case 'p': j->pack = optarg; return 0;
	case 'G': j->image = optarg; return 0;
	case 'N': j->quiet = 1; return 0;
	default:
		return -1;
	}
}

/* The distance filter (REIS §4.3.3): a threshold, or calibrated. */
static int deploy_opt_df(struct deploy_job *j, int opt)
{
	uint64_t v;

	switch (opt) {
	case 'f':
		if (!strcmp(optarg, "auto")) {
			j->df_auto = 1;
			return 0;
		}
		if (parse_u64(optarg, 0, REIS_DB_MAX_DIM, &v))
			return usage_err("deploy: --df must be auto or 0..%u", REIS_DB_MAX_DIM);
		j->bo.df_threshold = (uint32_t)v;
		j->df_auto = 0;
		return 0;
	case 'Q': {
		char *end;
		double qf = strtod(optarg, &end);

		if (end == optarg || *end || !(qf > 0 && qf <= 1))
			return usage_err("deploy: --df-quantile must be in (0, 1]");
		j->dfo.quantile = (uint32_t)lround(qf * 10000);
		if (!j->dfo.quantile)
			j->dfo.quantile = 1;
		return 0;
	}
	case 'K':
		if (parse_u64(optarg, 1, REIS_MAX_K, &v))
			return usage_err("deploy: --df-k must be 1..%u", REIS_MAX_K);
		j->dfo.k = (uint32_t)v;
		return 0;
	case 'R':
		if (parse_u64(optarg, 1, REIS_DB_MAX_NLIST, &v))
			return usage_err("deploy: --df-nprobe must be 1..%u", REIS_DB_MAX_NLIST);
		j->dfo.nprobe = (uint32_t)v;
		return 0;
	default:
		return -1;
	}
}

/* IVF training and recall calibration (REIS §4.3.1). */
static int deploy_opt_train(struct deploy_job *j, int opt)
{
	uint64_t v;

	switch (opt) {
	case 'c': j->calib_path = optarg; return 0;
	case 'C': j->truth_path = optarg; return 0;
	case 'k':
		if (parse_u64(optarg, 1, REIS_MAX_K, &v))
			return usage_err("deploy: --calib-k must be 1..%u", REIS_MAX_K);
		j->bo.calib_k = (uint32_t)v;
		return 0;
	case 's':
		if (parse_u64(optarg, 0, UINT64_MAX, &v))
			return usage_err("deploy: --seed must be an unsigned number");
		j->bo.km.seed = v;
		return 0;
	case 'I':
		if (parse_u64(optarg, 1, 1000, &v))
			return usage_err("deploy: --iters must be 1..1000");
		j->bo.km.max_iter = (uint32_t)v;
		return 0;
	case 'z':
		if (!strcmp(optarg, "kmeans++"))
			j->bo.km.init = REIS_KM_PLUSPLUS;
		else if (!strcmp(optarg, "random"))
			j->bo.km.init = REIS_KM_RANDOM;
		else
			return usage_err("deploy: --init must be kmeans++ or random");
		return 0;
	case 'P':
		if (parse_u64(optarg, 1, 1u << 20, &v))
			return usage_err("deploy: --train-per-list must be 1..1048576");
		j->bo.km.max_train_per_list = (uint32_t)v;
		return 0;
	case 'e': j->bo.flags |= REIS_BUILD_CENTER; return 0;
	case 'j': j->bo.flags |= REIS_BUILD_CENTROID_MAJORITY; return 0;
	case 'q': j->quant_out = optarg; return 0;
	default:
		return -1;
	}
}

/* Options that only make sense together. 0 or an exit code. */
static int deploy_check_args(const struct deploy_job *j)
{
	const struct reis_df_opts *dfo = &j->dfo;

	if (!!j->image == !!j->vec_path)
		return usage_err("deploy: give VECTORS (.fvecs/.bvecs/.npy) or --image FILE");
	if (j->image && (j->pack || j->quant_out || j->docs_path || j->tags_path ||
			 j->ids_path || j->calib_path))
		return usage_err("deploy: --image deploys a prepared image as is");
	if (j->idx_path && !j->docs_path)
		return usage_err("deploy: --docs-idx needs --docs");
	if (j->df_auto && (!j->calib_path || j->image))
		return usage_err("deploy: --df auto needs --calib Q.fvecs (held-out queries)");
	if (!j->df_auto && (dfo->quantile || dfo->k || dfo->nprobe))
		return usage_err("deploy: --df-quantile, --df-k and --df-nprobe go with --df "
				 "auto");
	if (j->truth_path && !j->calib_path)
		return usage_err("deploy: --calib-truth needs --calib");
	return 0;
}

static int deploy_parse(struct ctx *c, int argc, char **argv, struct deploy_job *j)
{
	int opt, ret;

	j->bo.kind = REIS_DB_BF;
	/* INT8 codes by default: a search reranks its candidates with them
	 * (REIS 4.3.2); the recall of each search mode is measured and kept. */
	j->bo.flags = REIS_BUILD_INT8 | REIS_BUILD_ESTIMATE;
	optind = 0;
	while ((opt = cli_getopt("deploy", argc, argv,
				 "+d:n:v:8m:D:X:M:t:i:g:T:f:c:C:k:s:I:z:P:ejq:p:G:NOQ:K:R:",
				 deploy_lo)) != -1) {
		ret = deploy_opt_layout(j, opt);
		if (ret < 0)
			ret = deploy_opt_df(j, opt);
		if (ret < 0)
			ret = deploy_opt_train(j, opt);
		if (ret < 0)
			return EXIT_USAGE;
		if (ret)
			return ret;
	}
	if (optind < argc)
		j->vec_path = argv[optind++];
	if (optind < argc)
		return usage_err("deploy: unexpected argument '%s'", argv[optind]);
	ret = deploy_check_args(j);
	if (ret)
		return ret;
	j->bar.on = !j->quiet && !c->json && isatty(STDERR_FILENO);
	j->bar.t0 = j->t0;
	j->bar.last_pct = -1;
	return 0;
}

/* The drive (unless packing) and the database id. 0 or an exit code. */
static int deploy_target(struct ctx *c, struct deploy_job *j)
{
	int ret;

	if (j->pack) {
		if (!j->did)
			j->did = 1;
		return 0;
	}
	c->warn_volatile = 1;
	ret = open_dev(c);
	if (ret)
		return open_dev_exit(c, ret);
	if (!j->did && !j->image) {	/* with an image: the image's */
		ret = first_free_did(c->dev, &j->did);
		if (ret)
			return fail(c, "deploy", ret);
	}
	return 0;
}

/* Documents, tags, ids for the base vectors. */
static int deploy_load_extras(struct deploy_job *j)
{
	uint64_t i, n = j->base.n;
	int ret;

	if (j->docs_path && (ret = load_docs(j->docs_path, j->idx_path, n, &j->docs, &j->doff)))
		return ret;
	if (j->tags_path) {
		ret = load_u64s("--tags", j->tags_path, n, UINT32_MAX, &j->tags64);
		if (ret)
			return ret;
		j->tags = malloc(n * sizeof(*j->tags));
		if (!j->tags)
			return -ENOMEM;
		for (i = 0; i < n; i++)
			j->tags[i] = (uint32_t)j->tags64[i];
	}
	if (j->ids_path && (ret = load_u64s("--ids", j->ids_path, n, UINT64_MAX - 1, &j->ids)))
		return ret;
	return 0;
}

/* Held-out queries and, optionally, their ground truth. */
static int deploy_load_calib(struct deploy_job *j)
{
	struct reis_build_opts *bo = &j->bo;
	const int32_t *t;
	char err[256];
	uint64_t i;
	int ret;

	ret = cli_load_floats("deploy", j->calib_path, &j->calib);
	if (ret)
		return ret;
	if (j->calib.dim != j->base.dim || j->calib.n > UINT32_MAX) {
		cli_err("deploy: --calib %s: dimension %u, the vectors %u",
			j->calib_path, j->calib.dim, j->base.dim);
		return -EINVAL;
	}
	bo->calib_queries = j->calib.data;
	bo->ncalib_queries = (uint32_t)j->calib.n;
	if (!j->truth_path)
		return 0;
	ret = reis_vecs_load(j->truth_path, &j->truth, err, sizeof(err));
	if (ret || j->truth.type != REIS_VEC_I32 || j->truth.n != j->calib.n) {
		cli_err("deploy: --calib-truth %s: %s", j->truth_path,
			ret ? err : "need an .ivecs with one row per calibration query");
		return -EINVAL;
	}
	t = j->truth.data;
	for (i = 0; i < j->truth.n * j->truth.dim; i++)
		if (t[i] < 0 || (uint64_t)t[i] >= j->base.n) {
			cli_err("deploy: --calib-truth %s: row %d out of range",
				j->truth_path, t[i]);
			return -EINVAL;
		}
	bo->calib_truth = j->truth.data;
	bo->calib_truth_k = j->truth.dim;
	return 0;
}

/* REIS §4.3.3: one distance-filter threshold per k, from held-out queries. */
static int deploy_df_auto(struct deploy_job *j)
{
	struct reis_queries cq;
	int ret;

	j->dfo.factor = j->bo.calib_factor;
	if (!j->dfo.k)
		j->dfo.k = j->bo.calib_k;
	ret = reis_encode_queries(j->img.quant, j->calib.data, (uint32_t)j->calib.n, &cq);
	if (!ret)
		ret = reis_df_calibrate(&j->img, &cq, &j->dfo, &j->dfc);
	reis_queries_free(&cq);
	if (ret) {
		cli_err("deploy: --df auto: %s", ret == -EINVAL ?
			"calibration failed (an IVF database needs its recall "
			"calibration or --df-nprobe)" : strerror(-ret));
		return ret;
	}
	j->img.df_threshold = j->dfc.threshold;
	return 0;
}

/* Load the inputs and build the image on the host. */
static int deploy_build(struct deploy_job *j)
{
	struct reis_build_opts *bo = &j->bo;
	char err[256];
	int ret;

	ret = cli_load_floats("deploy", j->vec_path, &j->base);
	if (!ret)
		ret = deploy_load_extras(j);
	if (!ret && j->calib_path)
		ret = deploy_load_calib(j);
	if (ret)
		return ret;
	if (bo->calib_truth && bo->calib_k > bo->calib_truth_k) {
		cli_err("deploy: --calib-k %u exceeds the truth's %u",
			bo->calib_k, bo->calib_truth_k);
		return -EINVAL;
	}
	bo->did = j->did;
	bo->name = j->name;
	bo->docs = j->docs;
	bo->doc_offsets = j->doff;
	bo->tags = j->tags;
	bo->ids = j->ids;
	bo->progress = build_progress;
	bo->progress_arg = &j->bar;
	ret = reis_db_build(bo, j->base.data, j->base.n, j->base.dim, &j->img, err, sizeof(err));
	if (ret) {
		cli_err("deploy: %s: %s", j->vec_path, err);
		return ret;
	}
	j->built = 1;
	if (j->df_auto && (ret = deploy_df_auto(j)))
		return ret;
	j->t_build = now_s() - j->t0;
	if (j->quant_out && (ret = reis_quant_save(j->img.quant, j->quant_out))) {
		cli_errno(ret, "deploy: --quant-out %s: %s", j->quant_out,
			strerror(-ret));
		return ret;
	}
	return 0;
}

/* The image to the drive, or to the --pack file. 0, an exit code when the
 * drive refused (reported), or -errno. */
static int deploy_send(struct ctx *c, struct deploy_job *j, int *reported)
{
	struct reis_deploy_opts dopt;
	double t1 = now_s();
	int ret;

	if (j->pack) {
		ret = reis_db_image_save(&j->img, j->pack);
		if (ret)
			cli_errno(ret, "deploy: --pack %s: %s", j->pack, strerror(-ret));
		return ret;
	}
	memset(&dopt, 0, sizeof(dopt));
	dopt.flags = j->no_meta ? REIS_DEPLOY_NO_META : 0;
	dopt.progress = j->bar.on ? deploy_progress : NULL;
	dopt.arg = &j->bar;
	j->bar.t0 = t1;
	ret = reis_db_deploy(c->dev, &j->img, &dopt);
	if (ret) {
		if (j->bar.on)
			fputc('\n', stderr);
		*reported = 1;
		return fail(c, "deploy", ret);
	}
	j->t_deploy = now_s() - t1;
	return 0;
}

static double deploy_quantile(const struct deploy_job *j)
{
	return (j->dfo.quantile ? j->dfo.quantile : REIS_DF_DEFAULT_QUANTILE) / 10000.0;
}

static void deploy_report_json(struct ctx *c, const struct deploy_job *j)
{
	const struct reis_db_image *img = &j->img;
	uint32_t k;

	j_obj(NULL);
	j_u64("did", img->did);
	j_str("name", img->name);
	j_str("kind", kind_name(img->kind));
	j_u64("n", img->n);
	j_u64("dim", img->dim);
	j_str("metric", metric_name(img->metric));
	j_bool("int8", !!(img->flags & REIS_DBF_INT8));
	j_bool("tags", !!(img->flags & REIS_DBF_TAGS));
	j_bool("ids", !!(img->flags & REIS_DBF_IDS));
	j_str("doc_mode", doc_mode_name(img->doc_mode));
	j_u64("docs_bytes", img->docs_bytes);
	j_u64("nlist", img->nlist);
	j_u64("group", img->group);
	j_u64("timestamp", img->timestamp);
	j_u64("df_threshold", img->df_threshold);
	if (j->df_auto) {
		j_obj("df_calibration");
		j_u64("k", j->dfo.k ? j->dfo.k : 10);
		j_u64("nprobe", j->dfc.nprobe);
		j_u64("queries", j->dfc.nq);
		j_dbl("quantile", deploy_quantile(j));
		j_u64("d_median", j->dfc.d_median);
		j_u64("d_max", j->dfc.d_max);
		j_dbl("pass_fraction", j->dfc.pass_frac);
		j_obj_end();
	}
	j_bool("meta", !j->pack && !j->no_meta && img->quant &&
	       (reis_dev_info(c->dev)->caps & REIS_CAP_REIS_META));
	json_calib(img);
	j_arr("recall_estimates");
	for (k = 0; k < img->nrecall; k++)
		json_recall_est(NULL, &img->recall[k]);
	j_arr_end();
	j_dbl("build_s", j->t_build);
	if (j->pack) {
		j_str("image", j->pack);
	} else {
		j_dbl("deploy_s", j->t_deploy);
		j_u64("model_ns", reis_last_cpl(c->dev)->time_ns);
	}
	j_obj_end();
}

static void deploy_report_df(const struct deploy_job *j)
{
	const struct reis_df_calib *d = &j->dfc;
	char where[48];

	if (!j->df_auto) {
		if (j->img.df_threshold)
			printf("df threshold %u\n", j->img.df_threshold);
		return;
	}
	if (d->nprobe)
		snprintf(where, sizeof(where), "in %u probed clusters", d->nprobe);
	else
		snprintf(where, sizeof(where), "among all entries");
	printf("df threshold %u (auto: the %u-th nearest %s, quantile %.4g over %u "
	       "calibration queries: distance median %u, max %u; %.1f%% of the "
	       "searched entries cross the channel, %.1f%% stay in the dies)\n",
	       d->threshold, d->cand, where, deploy_quantile(j), d->nq, d->d_median, d->d_max,
	       d->pass_frac * 100, (1 - d->pass_frac) * 100);
}

static void deploy_report_text(const struct deploy_job *j)
{
	const struct reis_db_image *img = &j->img;
	uint32_t k;

	printf("%s database %u '%s': %" PRIu64 " x %u-d, %s%s%s%s, ", j->pack ? "packed" :
	       "deployed", img->did, img->name, img->n, img->dim, kind_name(img->kind),
	       img->flags & REIS_DBF_INT8 ? " + int8" : "",
	       img->flags & REIS_DBF_TAGS ? " + tags" : "",
	       img->flags & REIS_DBF_IDS ? " + ids" : "");
	if (img->doc_mode == REIS_DOC_NONE)
		printf("no documents");
	else
		printf("%s documents (%" PRIu64 " bytes)", doc_mode_name(img->doc_mode),
		       img->docs_bytes);
	if (img->kind == REIS_DB_IVF)
		printf(", %u clusters", img->nlist);
	printf("\n");
	if (img->ncalib) {
		printf("calibration (nprobe:recall@%u)", j->bo.calib_k ? j->bo.calib_k : 10);
		for (k = 0; k < img->ncalib; k++)
			printf(" %u:%.3f", img->calib[k].nprobe, img->calib[k].recall / 1e4);
		printf("\n");
	}
	for (k = 0; k < img->nrecall; k++) {
		const struct reis_recall_est *e = &img->recall[k];
		char m[128], at[32] = "";

		est_mode_text(e, m, sizeof(m));
		if (e->nprobe)
			snprintf(at, sizeof(at), " at nprobe %u", e->nprobe);
		printf("%s recall@%u %.3f %s%s (%u %s)\n", k ? "              " :
		       "estimated     ", e->k, e->recall / 1e4, m, at, e->nq, e->self ?
		       "rows of the database, each left out" : "--calib queries");
	}
	deploy_report_df(j);
	if (j->pack)
		printf("image written to %s (deploy it with reis deploy --image %s)\n", j->pack,
		       j->pack);
	else
		printf("build %.1f s, deploy %.1f s%s%s\n", j->t_build, j->t_deploy,
		       j->quant_out ? "; quantizer in " : "", j->quant_out ? j->quant_out : "");
}

static void deploy_job_free(struct deploy_job *j)
{
	if (j->built)
		reis_db_image_free(&j->img);
	reis_vecs_free(&j->base);
	reis_vecs_free(&j->calib);
	reis_vecs_free(&j->truth);
	free(j->docs);
	free(j->doff);
	free(j->tags64);
	free(j->tags);
	free(j->ids);
}

/* reis deploy: build an image on the host (or load one), then deploy it or
 * write it to a file. */
static int cmd_deploy(struct ctx *c, int argc, char **argv)
{
	struct deploy_job j;
	char err[256];
	int ret, reported = 0;

	memset(&j, 0, sizeof(j));
	j.t0 = now_s();
	ret = deploy_parse(c, argc, argv, &j);
	if (!ret)
		ret = deploy_target(c, &j);
	if (ret)
		return ret;
	if (j.image) {
		ret = reis_db_image_load(j.image, &j.img, err, sizeof(err));
		if (ret) {
			cli_err("deploy: %s", err);
			return 1;
		}
		if (j.did)
			j.img.did = j.did;
		j.built = 1;
	} else {
		ret = deploy_build(&j);
	}
	if (!ret)
		ret = deploy_send(c, &j, &reported);
	if (!ret) {
		if (c->json)
			deploy_report_json(c, &j);
		else
			deploy_report_text(&j);
	}
	deploy_job_free(&j);
	return reported ? ret : ret ? 1 : 0;
}

/* ---------------------------------------------------------------------- */
/* search and trace                                                        */
/* ---------------------------------------------------------------------- */

struct search_args {
	struct reis_search_opts o;
	int ivf;
	int exact;		/* --exact: every entry reranked */
	int rerank_asked;	/* --factor or --exact: needs INT8 codes */
	int no_int8;		/* the database has none: binary only, said so */
	int ivf_db;		/* the database is IVF (searched flat without --ivf) */
	const char *quant_path;
	const char *image_path;
	const char *queries;
	const char *trace_out;
	uint32_t max_show;
};

static const struct option search_lo[] = {
	{ "did", required_argument, NULL, 'd' },
	{ "ivf", no_argument, NULL, 'v' },
	{ "k", required_argument, NULL, 'k' },
	{ "nprobe", required_argument, NULL, 'p' },
	{ "recall", required_argument, NULL, 'r' },
	{ "factor", required_argument, NULL, 'F' },
	{ "df", required_argument, NULL, 'f' },
	{ "tag", required_argument, NULL, 't' },
	{ "group", required_argument, NULL, 'g' },
	{ "tmin", required_argument, NULL, 'a' },
	{ "tmax", required_argument, NULL, 'b' },
	{ "no-df", no_argument, NULL, '1' },
	{ "no-pl", no_argument, NULL, '2' },
	{ "no-mpibc", no_argument, NULL, '3' },
	{ "no-rerank", no_argument, NULL, '4' },
	{ "exact", no_argument, NULL, OPT_EXACT },
	{ "docs", no_argument, NULL, 'D' },
	{ "quant", required_argument, NULL, 'q' },
	{ "image", required_argument, NULL, 'G' },
	{ "show", required_argument, NULL, 's' },
	{ "out", required_argument, NULL, 'o' },
	{ NULL, 0, NULL, 0 },
};

static int parse_search(const char *cmd, int argc, char **argv, struct search_args *a)
{
	uint64_t v;
	int opt, have_did = 0, have_group = 0;

	memset(a, 0, sizeof(*a));
	a->o.k = 10;
	a->o.t_max = UINT64_MAX;
	a->max_show = 20;
	optind = 0;
	while ((opt = cli_getopt(cmd, argc, argv, "+d:vk:p:r:F:f:t:g:a:b:1234Dq:G:s:o:",
				 search_lo)) != -1) {
		switch (opt) {
		case 'd':
			if (parse_did(cmd, optarg, &a->o.did))
				return -1;
			have_did = 1;
			break;
		case 'v': a->ivf = 1; break;
		case 'k':
			if (parse_u64(optarg, 1, REIS_MAX_K, &v))
				return usage_err("%s: -k must be 1..%u", cmd, REIS_MAX_K), -1;
			a->o.k = (uint32_t)v;
			break;
		case 'p':
			if (parse_u64(optarg, 1, REIS_DB_MAX_NLIST, &v))
				return usage_err("%s: --nprobe must be 1..%u", cmd,
						 REIS_DB_MAX_NLIST), -1;
			a->o.nprobe = (uint32_t)v;
			a->ivf = 1;
			break;
		case 'r': {
			char *end;
			double r = strtod(optarg, &end);

			if (end == optarg || *end || !(r >= 0 && r <= 1))
				return usage_err("%s: --recall must be in [0, 1]", cmd), -1;
			a->o.target_recall = (uint32_t)lround(r * 10000);
			a->ivf = 1;
			break;
		}
		case 'F':
			if (parse_u64(optarg, 1, REIS_MAX_RERANK, &v))
				return usage_err("%s: --factor must be 1..%u", cmd,
						 REIS_MAX_RERANK), -1;
			a->o.rerank_factor = (uint32_t)v;
			a->rerank_asked = 1;
			break;
		case OPT_EXACT:
			a->exact = a->rerank_asked = 1;
			break;
		case 'f':
			if (parse_u64(optarg, 1, REIS_DB_MAX_DIM, &v))
				return usage_err("%s: --df must be 1..%u", cmd, REIS_DB_MAX_DIM), -1;
			a->o.df_threshold = (uint32_t)v;
			break;
		case 't':
			if (parse_u64(optarg, 0, UINT32_MAX, &v))
				return usage_err("%s: --tag must be 0..4294967295", cmd), -1;
			a->o.tag = (uint32_t)v;
			a->o.flags |= REIS_SF_TAG;
			break;
		case 'g':
			if (parse_did(cmd, optarg, &a->o.did))
				return -1;
			a->o.flags |= REIS_SF_GROUP;
			have_group = 1;
			break;
		case 'a':
			if (parse_u64(optarg, 0, UINT64_MAX, &a->o.t_min))
				return usage_err("%s: --tmin must be an unsigned number", cmd), -1;
			break;
		case 'b':
			if (parse_u64(optarg, 0, UINT64_MAX, &a->o.t_max))
				return usage_err("%s: --tmax must be an unsigned number", cmd), -1;
			break;
		case '1': a->o.flags |= REIS_SF_NO_DF; break;
		case '2': a->o.flags |= REIS_SF_NO_PL; break;
		case '3': a->o.flags |= REIS_SF_NO_MPIBC; break;
		case '4': a->o.flags |= REIS_SF_NO_RERANK; break;
		case 'D': a->o.flags |= REIS_SF_DOCS; break;
		case 'q': a->quant_path = optarg; break;
		case 'G': a->image_path = optarg; break;
		case 's':
			if (parse_u64(optarg, 0, 1000000, &v))
				return usage_err("%s: --show must be 0..1000000", cmd), -1;
			a->max_show = (uint32_t)v;
			break;
		case 'o': a->trace_out = optarg; break;
		default:
			return -1;
		}
	}
	if (have_did + have_group != 1)
		return usage_err("%s: give exactly one of --did DID and --group GROUP", cmd), -1;
	if (optind < argc)
		a->queries = argv[optind++];
	if (optind < argc)
		return usage_err("%s: unexpected argument '%s'", cmd, argv[optind]), -1;
	if (!a->queries)
		return usage_err("%s: give a QUERIES file (.fvecs/.npy) or '-' for stdin", cmd), -1;
	if (a->quant_path && a->image_path)
		return usage_err("%s: give at most one of --quant FILE and --image FILE "
				 "(default: the quantizer stored with the database)", cmd), -1;
	if (a->exact && (a->ivf || a->o.rerank_factor || a->o.df_threshold ||
			 (a->o.flags & REIS_SF_NO_RERANK)))
		return usage_err("%s: --exact reranks every entry: it goes without --ivf, "
				 "--nprobe, --recall, --factor, --df and --no-rerank", cmd), -1;
	if (a->exact)
		a->o.flags |= REIS_SF_RERANK_ALL | REIS_SF_NO_DF;
	if ((a->o.flags & REIS_SF_NO_RERANK) && a->o.rerank_factor)
		return usage_err("%s: --factor sets the rerank that --no-rerank turns off", cmd),
		       -1;
	if (a->ivf && !a->o.nprobe && !a->o.target_recall)
		a->o.target_recall = 9500;
	return 0;
}

/*
 * The quantizer stored with the database (its META section): for a group,
 * the one of its lowest-numbered READY partition (they share one).
 */
static int drive_quant(struct ctx *c, const struct search_args *a, struct reis_quant *quant,
		       char *err, size_t errlen)
{
	uint32_t did = a->o.did;
	int ret;

	if (a->o.flags & REIS_SF_GROUP) {
		struct reis_db_info *l = calloc(DB_MAX_DBS, sizeof(*l));
		int n, i;

		if (!l)
			return -ENOMEM;
		n = reis_db_list(c->dev, l, DB_MAX_DBS);
		did = 0;
		for (i = 0; i < n && i < (int)DB_MAX_DBS && !did; i++)
			if (l[i].group == a->o.did && l[i].state == REIS_DB_READY)
				did = l[i].did;
		free(l);
		if (n < 0) {
			snprintf(err, errlen, "listing the databases: %s", reis_last_error(c->dev));
			return n;
		}
		if (!did) {
			snprintf(err, errlen, "group %u has no READY database to take the "
				 "quantizer from", a->o.did);
			return -ENOENT;
		}
	}
	ret = reis_db_quantizer(c->dev, did, quant);
	if (ret)
		snprintf(err, errlen, "%s%s", reis_last_error(c->dev), ret == -ENODATA ?
			 "; give --quant FILE (reis deploy --quant-out) or --image FILE" : "");
	return ret;
}

/* Load the quantizer (file, image or the drive) and the float queries,
 * encode them. */
static int prepare_queries(struct ctx *c, const char *cmd, struct search_args *a,
			   struct reis_queries *q)
{
	struct reis_vecs v;
	struct reis_quant quant;
	struct reis_db_image img;
	const struct reis_quant *qp;
	char err[REIS_ERRMSG_MAX];
	int ret;

	memset(&img, 0, sizeof(img));
	memset(&quant, 0, sizeof(quant));
	if (a->image_path) {
		ret = reis_db_image_load(a->image_path, &img, err, sizeof(err));
		if (!ret && !img.quant) {
			snprintf(err, sizeof(err), "%s: the image has no quantizer", a->image_path);
			ret = -EINVAL;
		}
		qp = img.quant;
	} else if (a->quant_path) {
		ret = reis_quant_load(&quant, a->quant_path, err, sizeof(err));
		qp = &quant;
	} else {
		ret = drive_quant(c, a, &quant, err, sizeof(err));
		qp = &quant;
		if (ret) {
			/* a drive command failed: its errno and status */
			cli_err_dev(c, ret, "%s: %s", cmd, err);
			return ret;
		}
	}
	if (ret) {
		cli_errno(ret, "%s: %s", cmd, err);
		reis_db_image_free(&img);
		return ret;
	}
	if (!strcmp(a->queries, "-"))
		ret = read_stdin_queries(&v);
	else
		ret = cli_load_floats(cmd, a->queries, &v);
	if (!ret && (v.dim != qp->dim || v.n > UINT32_MAX)) {
		cli_errno(-EDOM, "%s: queries have dimension %u, the database %u", cmd,
			  v.dim, qp->dim);
		reis_vecs_free(&v);
		ret = -EINVAL;
	}
	if (!ret) {
		ret = reis_encode_queries(qp, v.data, (uint32_t)v.n, q);
		reis_vecs_free(&v);
	}
	reis_quant_free(&quant);
	reis_db_image_free(&img);
	return ret ? -EINVAL : 0;
}

static void print_doc(const uint8_t *d, uint32_t len, uint32_t max)
{
	uint32_t i;

	for (i = 0; i < len && i < max; i++)
		putchar(d[i] >= 0x20 && d[i] < 0x7f ? d[i] : '?');
	if (len > max)
		fputs("...", stdout);
}

/* The recall estimate the database carries for this search, or NULL. */
static const struct reis_recall_est *search_estimate(struct ctx *c, const struct search_args *a,
						     const struct reis_search_result *r,
						     struct reis_recall_est *est)
{
	uint32_t mode = (a->o.flags & REIS_SF_RERANK_ALL) ? REIS_EST_EXACT :
			(a->o.flags & REIS_SF_NO_RERANK) ? REIS_EST_BINARY : REIS_EST_APPROX;
	uint32_t factor = a->o.rerank_factor ? a->o.rerank_factor : REIS_DEFAULT_RERANK;
	int n, i;

	if (a->o.flags & (REIS_SF_GROUP | REIS_SF_TAG))
		return NULL;
	n = reis_db_recall(c->dev, a->o.did, est, REIS_MAX_RECALL_EST);
	for (i = 0; i < n; i++)
		if (est[i].mode == mode && (mode != REIS_EST_APPROX || est[i].factor == factor) &&
		    (mode == REIS_EST_EXACT || est[i].nprobe == (a->ivf ? r->nprobe : 0)))
			return &est[i];
	return NULL;
}

/* Which ranking ran, and the recall to expect from it (docs/reis.md §1.4). */
static void search_report_mode(struct ctx *c, const struct search_args *a,
			       const struct reis_search_result *r)
{
	struct reis_recall_est est[REIS_MAX_RECALL_EST], want;
	const struct reis_recall_est *e = search_estimate(c, a, r, est);
	char m[160];

	memset(&want, 0, sizeof(want));
	want.mode = (a->o.flags & REIS_SF_RERANK_ALL) ? REIS_EST_EXACT :
		    (a->o.flags & REIS_SF_NO_RERANK) ? REIS_EST_BINARY : REIS_EST_APPROX;
	want.factor = a->o.rerank_factor ? a->o.rerank_factor : REIS_DEFAULT_RERANK;
	est_mode_text(&want, m, sizeof(m));
	if (c->json) {
		j_str("mode", est_mode_name(want.mode));
		if (e) {
			json_recall_est("recall_estimate", e);
		} else {
			j_null("recall_estimate");
		}
		return;
	}
	if (a->no_int8)
		snprintf(m, sizeof(m), "binary (Hamming distance only): the database has no "
			 "INT8 codes");
	printf("mode: %s", m);
	if (e)
		printf("; recall@%u estimated at deploy %.3f (%u %s)", e->k, e->recall / 1e4, e->nq,
		       e->self ? "rows of the database, each left out" : "--calib queries");
	else if (a->ivf && !a->o.nprobe)
		printf("; nprobe %u from the calibration table for recall %.2f", r->nprobe,
		       a->o.target_recall / 1e4);
	else if (a->ivf_db && !a->ivf)
		printf("; every entry of IVF database %u compared (no --ivf): reis deploy "
		       "estimated its IVF search (--ivf, --recall R) and --exact, not this",
		       a->o.did);
	else
		printf("; no recall estimate for these settings (reis deploy measures the "
		       "defaults)");
	if (want.mode != REIS_EST_EXACT && !a->no_int8)
		printf("; --exact reranks every entry");
	printf("\n");
}

static void print_result(struct ctx *c, const struct search_args *a,
			 const struct reis_search_result *r)
{
	uint32_t qi, h;

	if (c->json) {
		j_obj(NULL);
		j_u64("nq", r->nq);
		j_u64("k", r->k);
		j_u64("ndbs", r->ndbs);
		if (a->ivf)
			j_u64("nprobe", r->nprobe);
		j_u64("search_ns", r->search_ns);
		j_u64("read_ns", r->read_ns);
		j_u64("energy_nj", r->search_nj + r->read_nj);
		j_u64("host_ns", r->host_ns);
		j_u64("commands", r->ncmds);
		j_u64("pages_read", r->pages_read);
		j_u64("entries_compared", r->entries_compared);
		j_u64("entries_passed", r->entries_passed);
		j_u64("reranked", r->reranked);
		search_report_mode(c, a, r);
		j_arr("queries");
		for (qi = 0; qi < r->nq; qi++) {
			j_arr(NULL);
			for (h = 0; h < r->nhits[qi]; h++) {
				const struct reis_hit *x = &r->hits[(size_t)qi * r->k + h];

				j_obj(NULL);
				j_u64("id", x->id);
				j_u64("entry", x->entry);
				j_u64("did", x->did);
				j_u64("hamming", x->hamming);
				j_i64("score", x->score);
				if (x->doc) {
					char *s = malloc((size_t)x->doc_len + 1);

					if (s) {
						memcpy(s, x->doc, x->doc_len);
						s[x->doc_len] = 0;
						j_str("doc", s);
						free(s);
					}
				}
				j_obj_end();
			}
			j_arr_end();
		}
		j_arr_end();
		j_obj_end();
		return;
	}
	for (qi = 0; qi < r->nq && qi < a->max_show; qi++) {
		printf("query %u:\n", qi);
		if (!r->nhits[qi])
			printf("  (no hits)\n");
		for (h = 0; h < r->nhits[qi]; h++) {
			const struct reis_hit *x = &r->hits[(size_t)qi * r->k + h];

			printf("  %2u. id %-10" PRIu64 " db %-4u hamming %-5u score %-8" PRId64, h + 1,
			       x->id, x->did, x->hamming, x->score);
			if (x->doc) {
				fputs(" | ", stdout);
				print_doc(x->doc, x->doc_len, DB_DOC_SHOW);
			}
			putchar('\n');
		}
	}
	if (r->nq > a->max_show)
		printf("(%u more queries; --show N)\n", r->nq - a->max_show);
	printf("%u queries, k %u, %u database(s)", r->nq, r->k, r->ndbs);
	if (a->ivf)
		printf(", nprobe %u", r->nprobe);
	printf(": modeled %.3f ms search + %.3f ms result transfer, %.1f uJ; %" PRIu64
	       " pages sensed, %" PRIu64 " of %" PRIu64 " entries crossed the channel, %" PRIu64
	       " reranked; host %.3f ms, %u commands\n", r->search_ns / 1e6, r->read_ns / 1e6,
	       (r->search_nj + r->read_nj) / 1e3, r->pages_read, r->entries_passed,
	       r->entries_compared, r->reranked, r->host_ns / 1e6, r->ncmds);
	search_report_mode(c, a, r);
}

/*
 * A target recall above the calibration table's best cannot be met: the
 * drive searched at the table's largest nprobe. Say so, with what it gets.
 */
static void recall_warn(struct ctx *c, const struct search_args *a,
			const struct reis_search_result *r)
{
	struct reis_db_info info;

	if (!a->ivf || a->o.nprobe || !a->o.target_recall || (a->o.flags & REIS_SF_GROUP) ||
	    reis_db_info(c->dev, a->o.did, &info) || !info.best_recall ||
	    a->o.target_recall <= info.best_recall)
		return;
	fprintf(stderr, "reis: warning: target recall %.4f is unreachable: the best "
		"calibrated recall of database %u is %.4f (nprobe %u, used)", a->o.target_recall /
		1e4, a->o.did, info.best_recall / 1e4, r->nprobe);
	if (r->nprobe < info.nlist)
		fprintf(stderr, "; --nprobe up to %u probes more clusters\n", info.nlist);
	else
		fprintf(stderr, "; every cluster is probed: a larger --factor reranks more "
			"candidates\n");
}

/*
 * The search fitted to the database (or the group's READY partitions): one
 * without INT8 codes is searched by Hamming distance alone, unless the
 * user asked for a rerank (--factor, --exact). 0 or an exit code.
 */
static int search_fit_db(struct ctx *c, const char *cmd, struct search_args *a)
{
	struct reis_db_info *l;
	int n, i, ret, none = 0, flat = 0;

	l = calloc(DB_MAX_DBS, sizeof(*l));
	if (!l)
		return fail(c, cmd, -ENOMEM);
	if (a->o.flags & REIS_SF_GROUP) {
		n = reis_db_list(c->dev, l, DB_MAX_DBS);
		for (i = 0; i < n && i < (int)DB_MAX_DBS; i++)
			none |= l[i].group == a->o.did && l[i].state == REIS_DB_READY &&
				!(l[i].flags & REIS_DBF_INT8);
		ret = n < 0 ? n : 0;
	} else {
		ret = reis_db_info(c->dev, a->o.did, l);
		none = !ret && !(l->flags & REIS_DBF_INT8);
		flat = !ret && l->kind != REIS_DB_IVF;
		a->ivf_db = !ret && l->kind == REIS_DB_IVF;
	}
	free(l);
	if (ret) {
		fail(c, cmd, ret);
		return 1;
	}
	if (a->ivf && flat) {
		cli_err("%s: database %u is flat (deployed without --ivf NLIST): --ivf, --nprobe "
			"and --recall are for IVF databases; drop them to search every entry", cmd,
			a->o.did);
		return 1;
	}
	if (!none || (a->o.flags & REIS_SF_NO_RERANK))
		return 0;
	if (a->rerank_asked) {
		cli_err("%s: %s %u has no INT8 codes (deployed with --no-int8), and %s reranks "
			"with them: drop it (Hamming distance only) or deploy again without "
			"--no-int8", cmd, a->o.flags & REIS_SF_GROUP ? "group" : "database",
			a->o.did, a->exact ? "--exact" : "--factor");
		return 1;
	}
	a->o.flags |= REIS_SF_NO_RERANK;
	a->no_int8 = 1;
	return 0;
}

static int cmd_search(struct ctx *c, int argc, char **argv)
{
	struct search_args a;
	struct reis_queries q;
	struct reis_search_result r;
	int ret;

	if (parse_search("search", argc, argv, &a))
		return EXIT_USAGE;
	if (a.trace_out)
		return usage_err("search: --out is for reis trace");
	if (search_fit_db(c, "search", &a) || prepare_queries(c, "search", &a, &q))
		return 1;
	ret = a.ivf ? reis_ivf_search(c->dev, &a.o, &q, &r) : reis_search(c->dev, &a.o, &q, &r);
	reis_queries_free(&q);
	if (ret)
		return fail(c, "search", ret);
	recall_warn(c, &a, &r);
	print_result(c, &a, &r);
	reis_search_result_free(&r);
	return 0;
}

static int cmd_trace(struct ctx *c, int argc, char **argv)
{
	struct search_args a;
	struct reis_queries q;
	struct reis_search_result r;
	uint32_t ticket;
	uint8_t opcode;
	void *blob = NULL;
	uint64_t len = 0;
	FILE *f;
	int ret;

	if (parse_search("trace", argc, argv, &a))
		return EXIT_USAGE;
	if (!a.trace_out)
		return usage_err("trace: --out FILE is required (the Perfetto JSON)");
	if (search_fit_db(c, "trace", &a) || prepare_queries(c, "trace", &a, &q))
		return 1;
	if (!(reis_dev_info(c->dev)->caps & REIS_CAP_TRACE)) {
		reis_queries_free(&q);
		cli_err("trace: the drive has no timeline capture");
		return 1;
	}
	opcode = a.ivf ? REIS_OP_IVF_SEARCH : REIS_OP_SEARCH;
	ticket = reis_ticket_new();
	ret = reis_trace_arm(c->dev, ticket, opcode);
	if (ret) {
		reis_queries_free(&q);
		return fail(c, "trace", ret);
	}
	ret = a.ivf ? reis_ivf_search(c->dev, &a.o, &q, &r) : reis_search(c->dev, &a.o, &q, &r);
	reis_queries_free(&q);
	if (ret) {
		reis_result_release(c->dev, ticket);
		return fail(c, "trace: search", ret);
	}
	ret = reis_result_fetch(c->dev, ticket, 3, &blob, &len);
	if (ret) {
		reis_search_result_free(&r);
		return fail(c, "trace: reading the timeline", ret);
	}
	f = fopen(a.trace_out, "wb");
	if (!f || fwrite((uint8_t *)blob + 64, 1, len - 64, f) != len - 64) {
		ret = -errno;
		if (f)
			fclose(f);
		free(blob);
		reis_search_result_free(&r);
		cli_errno(ret, "trace: %s: %s", a.trace_out, strerror(-ret));
		return 1;
	}
	fclose(f);
	free(blob);
	if (c->json) {
		j_obj(NULL);
		j_str("trace", a.trace_out);
		j_u64("trace_bytes", len - 64);
		j_u64("search_ns", r.search_ns);
		j_u64("nq", r.nq);
		j_obj_end();
	} else {
		printf("timeline of the %s (%u queries, modeled %.3f ms) written to %s: %" PRIu64
		       " bytes of Chrome/Perfetto JSON (open in ui.perfetto.dev)\n",
		       a.ivf ? "IVF_SEARCH" : "SEARCH", r.nq, r.search_ns / 1e6, a.trace_out,
		       len - 64);
	}
	reis_search_result_free(&r);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* db list | info | delete                                                 */
/* ---------------------------------------------------------------------- */

static void json_info(const struct reis_db_info *d)
{
	unsigned s;
	static const char *const secs[REIS_NSECTIONS] = { "", "bin", "int8", "docs", "tags",
							   "ids", "centroids", "clusters",
							   "calib", "meta" };

	j_u64("did", d->did);
	j_str("name", d->name);
	j_str("kind", kind_name(d->kind));
	j_str("state", d->state == REIS_DB_READY ? "ready" : "deploying");
	j_u64("n", d->n);
	j_u64("dim", d->dim);
	j_str("metric", metric_name(d->metric));
	j_bool("int8", !!(d->flags & REIS_DBF_INT8));
	j_bool("tags", !!(d->flags & REIS_DBF_TAGS));
	j_bool("ids", !!(d->flags & REIS_DBF_IDS));
	j_u64("nlist", d->nlist);
	j_u64("ncalib", d->ncalib);
	j_str("doc_mode", doc_mode_name(d->doc_mode));
	j_u64("docs_bytes", d->docs_bytes);
	j_u64("df_threshold", d->df_threshold);
	j_u64("meta_bytes", d->meta_bytes);
	j_u64("group", d->group);
	j_u64("timestamp", d->timestamp);
	j_u64("embeddings_per_page", d->epb);
	j_obj("pages");
	j_u64("binary", d->pages[0]);
	j_u64("centroid", d->pages[1]);
	j_u64("int8", d->pages[2]);
	j_u64("document", d->pages[3]);
	j_obj_end();
	j_obj("received");
	for (s = 1; s < REIS_NSECTIONS; s++)
		j_u64(secs[s], d->received[s]);
	j_obj_end();
	j_u64("dram_bytes", d->dram_bytes);
	j_u64("searches", d->searches);
}

static int cmd_db(struct ctx *c, int argc, char **argv)
{
	struct reis_db_info *l, d;
	uint32_t did = 0;
	int n, i, ret;

	if (argc < 2)
		return usage_err("db: give list, info DID or delete DID");
	if (!strcmp(argv[1], "list")) {
		if (argc > 2)
			return usage_err("db list: unexpected argument '%s'", argv[2]);
		l = calloc(DB_MAX_DBS, sizeof(*l));
		if (!l)
			return fail(c, "db list", -ENOMEM);
		n = reis_db_list(c->dev, l, DB_MAX_DBS);
		if (n < 0) {
			free(l);
			return fail(c, "db list", n);
		}
		if (n > (int)DB_MAX_DBS)
			n = DB_MAX_DBS;
		if (c->json) {
			j_obj(NULL);
			j_arr("databases");
			for (i = 0; i < n; i++) {
				j_obj(NULL);
				json_info(&l[i]);
				j_obj_end();
			}
			j_arr_end();
			j_counting_since(c);
			j_obj_end();
		} else if (!n) {
			printf("no databases\n");
		} else {
			printf("%-6s %-20s %-4s %-9s %10s %5s %6s %-6s %s\n", "DID", "NAME", "KIND",
			       "STATE", "N", "DIM", "NLIST", "DOCS", "GROUP@TIME");
			for (i = 0; i < n; i++) {
				printf("%-6u %-20s %-4s %-9s %10" PRIu64 " %5u %6u %-6s", l[i].did,
				       l[i].name, kind_name(l[i].kind),
				       l[i].state == REIS_DB_READY ? "ready" : "deploying", l[i].n,
				       l[i].dim, l[i].nlist, doc_mode_name(l[i].doc_mode));
				if (l[i].group)
					printf(" %u@%" PRIu64, l[i].group, l[i].timestamp);
				putchar('\n');
			}
		}
		free(l);
		return 0;
	}
	if (!strcmp(argv[1], "info") || !strcmp(argv[1], "delete")) {
		if (argc != 3)
			return usage_err("db %s: give one DID", argv[1]);
		if (parse_did("db", argv[2], &did))
			return EXIT_USAGE;
		if (argv[1][0] == 'd') {
			ret = reis_db_delete(c->dev, did);
			if (ret)
				return fail(c, "db delete", ret);
			if (c->json) {
				j_obj(NULL);
				j_u64("deleted", did);
				j_obj_end();
			} else {
				printf("database %u deleted\n", did);
			}
			return 0;
		}
		ret = reis_db_info(c->dev, did, &d);
		if (ret)
			return fail(c, "db info", ret);
		if (c->json) {
			j_obj(NULL);
			json_info(&d);
			j_counting_since(c);	/* of "searches" */
			j_obj_end();
			return 0;
		}
		printf("database       %u '%s' (%s)\n", d.did, d.name,
		       d.state == REIS_DB_READY ? "ready" : "deploying");
		printf("kind           %s, %" PRIu64 " embeddings of %u bits, metric %s%s%s%s\n",
		       kind_name(d.kind), d.n, d.dim, metric_name(d.metric),
		       d.flags & REIS_DBF_INT8 ? ", int8 rerank" : "",
		       d.flags & REIS_DBF_TAGS ? ", tags" : "", d.flags & REIS_DBF_IDS ? ", ids" : "");
		if (d.kind == REIS_DB_IVF)
			printf("ivf            %u clusters, %u calibration points\n", d.nlist, d.ncalib);
		printf("documents      %s, %" PRIu64 " bytes\n", doc_mode_name(d.doc_mode),
		       d.docs_bytes);
		printf("layout         %u embeddings per SLC page; pages: %" PRIu64 " binary, %"
		       PRIu64 " centroid, %" PRIu64 " int8, %" PRIu64 " document\n", d.epb,
		       d.pages[0], d.pages[1], d.pages[2], d.pages[3]);
		printf("controller     %" PRIu64 " bytes of DRAM (R-DB, R-IVF, calibration)\n",
		       d.dram_bytes);
		if (d.df_threshold)
			printf("df threshold   %u\n", d.df_threshold);
		printf("metadata       %u bytes%s\n", d.meta_bytes,
		       d.meta_bytes ? " (the quantizer: reis search needs no --quant)" : "");
		if (d.group)
			printf("partition      group %u, timestamp %" PRIu64 "\n", d.group, d.timestamp);
		printf("searches       %" PRIu64 "%s\n", d.searches, c->inproc ?
		       " (by this process: an in-process drive counts from its opening; the "
		       "backing file keeps the database, not the count)" : "");
		return 0;
	}
	return usage_err("db: unknown subcommand '%s' (list, info, delete)", argv[1]);
}

#define SEARCH_HELP \
	"      --did DID        database (or --group GROUP for time partitions)\n" \
	"      --group G        search group G's partitions with timestamps in\n" \
	"                       [--tmin, --tmax] (default all)\n" \
	"  -k, --k K            hits per query (default 10)\n" \
	"  Ranking (every mode prints the recall reis deploy measured for it):\n" \
	"      (default)        approximate: the F x k entries nearest by Hamming\n" \
	"                       distance of the binary codes, reranked by INT8 score\n" \
	"                       (REIS 4.3.2); without INT8 codes, Hamming only\n" \
	"      --exact          every entry reranked by INT8 score: the exact top-k\n" \
	"                       of the INT8 codes (slower; not with --ivf)\n" \
	"      --factor F       rerank candidates = F x k (default 10)\n" \
	"      --no-rerank      binary (Hamming) distances only\n" \
	"      --ivf            IVF_SEARCH (implied by --nprobe/--recall)\n" \
	"      --nprobe P       clusters to probe\n" \
	"      --recall R       target recall in [0, 1] from the calibration table\n" \
	"                       (default 0.95 with --ivf)\n" \
	"      --df D           distance-filter threshold (Hamming; default the db's)\n" \
	"      --tag T          only entries tagged T\n" \
	"      --no-df --no-pl --no-mpibc   switch the REIS optimizations off\n" \
	"      --docs           return and print the documents\n" \
	"      --quant FILE     the database's quantizer (reis deploy --quant-out)\n" \
	"      --image FILE     or the image file it was deployed from; default:\n" \
	"                       the quantizer stored with the database (META)\n" \
	"      --show N         print at most N queries (default 20)\n" \
	"  QUERIES is a .fvecs/.bvecs/.npy file, or '-': one query per line on stdin,\n" \
	"  values separated by spaces or commas.\n"

static const struct reis_cli_cmd db_cmds[] = {
	{ "deploy", "deploy a REIS database (flat or IVF) from vectors",
	  "  deploy [OPTIONS] VECTORS      (.fvecs, .bvecs or .npy float32/int8/uint8)\n"
	  "  deploy [--did DID] --image FILE\n"
	  "      --did DID        database id (default: the first free one)\n"
	  "      --name S         label (up to 32 bytes)\n"
	  "      (default)        flat: a search compares the query with every binary\n"
	  "                       code (DB_Deploy), then reranks (INT8)\n"
	  "      --ivf NLIST      IVF_Deploy with NLIST clusters (0: about sqrt(n))\n"
	  "      --no-int8        no INT8 codes: searches rank by Hamming distance only\n"
	  "                       (the INT8 rerank codes are stored by default; --int8\n"
	  "                       is accepted and changes nothing)\n"
	  "      --no-estimate    skip measuring each search mode's recall (on --calib\n"
	  "                       queries, else on rows of the database left out)\n"
	  "      --metric M       ip (default) or l2\n"
	  "      --docs FILE      documents, one per line (row order)\n"
	  "      --docs-idx IDX   FILE is concatenated bytes, IDX n+1 uint64 offsets\n"
	  "      --doc-mode M     subpage or page (default: subpage if all fit 4 KiB)\n"
	  "      --tags FILE      a tag per row: one number per line, or .ivecs\n"
	  "      --ids FILE       a caller id per row: one number per line, or .ivecs\n"
	  "      --group G --timestamp T   a time partition of group G\n"
	  "      --df D|auto      default distance-filter threshold (Hamming); auto:\n"
	  "                       calibrated on --calib queries (reis_df_calibrate)\n"
	  "      --df-quantile Q  auto: quantile of the per-query distances (default 1:\n"
	  "                       the largest; 0.99 filters more, may cost recall)\n"
	  "      --df-k K         auto: the k it serves (default --calib-k, 10)\n"
	  "      --df-nprobe P    auto, IVF: clusters probed (default: the calibrated\n"
	  "                       nprobe for recall 0.95)\n"
	  "      --calib Q.fvecs  held-out queries: calibrate recall->nprobe (IVF),\n"
	  "                       --df auto and the recall estimates (without them,\n"
	  "                       rows of the database stand in, each left out)\n"
	  "      --calib-truth T.ivecs  their exact neighbours (else computed)\n"
	  "      --calib-k K      recall@K calibrated (default 10)\n"
	  "      --seed S --iters N --init kmeans++|random --train-per-list N\n"
	  "                       k-means settings (deterministic for a seed)\n"
	  "      --center         center vectors before quantizing\n"
	  "      --majority       majority-bit binary centroids (default: signs)\n"
	  "      --quant-out FILE save the quantizer (also stored with the database)\n"
	  "      --no-meta        do not store the quantizer in the drive (META)\n"
	  "      --pack FILE      write an image file instead of deploying\n"
	  "      --image FILE     deploy an image file made with --pack\n"
	  "      --no-progress    no progress bar (it shows on a terminal)\n", 0, cmd_deploy },
	{ "search", "search a REIS database in the drive (approximate, or --exact)",
	  "  search --did DID [OPTIONS] QUERIES\n" SEARCH_HELP, 1, cmd_search },
	{ "db", "list, inspect or delete REIS databases",
	  "  db list\n"
	  "  db info DID\n"
	  "  db delete DID      (also aborts a deploy in progress)\n", 1, cmd_db },
	{ "trace", "timeline (Perfetto JSON) of one search inside the drive",
	  "  trace --out FILE --did DID [SEARCH OPTIONS] QUERIES\n"
	  "      --out FILE       where the Chrome/Perfetto trace JSON goes\n" SEARCH_HELP,
	  1, cmd_trace },
};

const struct reis_cli_table reis_db_table = {
	db_cmds, sizeof(db_cmds) / sizeof(db_cmds[0]),
};
