/* SPDX-License-Identifier: MIT */
/*
 * cli_rf.c - the reis CLI's RecFlash commands: tables, table
 * create|stats|delete, sls, remap (docs/recflash.md).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libreis_tools.h"
#include "cli_util.h"

/* Bounds of what the CLI generates or reads. */
#define SLS_MAX_BATCHES 100000u
#define SLS_MAX_BATCH 65536u
#define SLS_MAX_LOOKUPS 100000u
#define SLS_MAX_BAGFILE_IDX (64u << 20)
#define PROFILE_MAX_LEN (1ull << 32)

static const char *const dtype_names[] = { "?", "fp32", "fp16", "int8" };
static const char *const mode_names[] = { "?", "recssd", "rmssd", "recflash" };
static const char *const trig_names[] = { "none", "threshold", "period" };
/* Indexed by REIS_RF_TRACE_*: DRIFT 0, RECSSD 1, RECFLASH 2. */
static const char *const trace_names[] = { "drift", "recssd", "recflash" };

/* Lookups per sample of the profile traces (the distance unit of the
 * RecSSD-style generators): `reis sls`'s default --lookups. */
#define PROFILE_LOOKUPS 80u

static const char *dtype_name(uint32_t v) { return v < 4 ? dtype_names[v] : "?"; }
static const char *mode_name(uint32_t v) { return v < 4 ? mode_names[v] : "?"; }
static const char *trig_name(uint32_t v) { return v < 3 ? trig_names[v] : "?"; }

static int lookup(const char *s, const char *const *names, unsigned n, unsigned first)
{
	unsigned i;

	for (i = first; i < n; i++)
		if (!strcmp(s, names[i]))
			return (int)i;
	return -1;
}

static int parse_k(const char *s, double *k)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0) || v > REIS_RF_TRACE_MAX_K)
		return -EINVAL;
	*k = v;
	return 0;
}

/* --trace: recflash (the RecFlash Fig. 10 workload), recssd or drift. */
static int parse_trace(const char *cmd, const char *s, uint32_t *kind)
{
	int v = lookup(s, trace_names, 3, 0);

	if (v < 0)
		return usage_err("%s: --trace is recflash, recssd or drift", cmd);
	*kind = (uint32_t)v;
	return 0;
}

static int parse_tid(const char *cmd, const char *s, uint32_t *tid)
{
	uint64_t v;

	if (parse_u64(s, 1, UINT32_MAX, &v))
		return usage_err("%s: table id must be 1..4294967295, not '%s'", cmd, s);
	*tid = (uint32_t)v;
	return 0;
}

static void json_table(const struct reis_rf_stats *s)
{
	j_u64("tid", s->tid);
	j_str("name", s->name);
	j_u64("rows", s->rows);
	j_u64("dim", s->dim);
	j_str("dtype", dtype_name(s->dtype));
	j_str("mode", mode_name(s->mode));
	j_str("state", s->state == REIS_RF_READY ? "ready" : "deploying");
	j_str("remap_state", s->remap_state == REIS_RF_REMAP_RUNNING ? "running" :
	      s->remap_state == REIS_RF_REMAP_STAGED ? "staged" : "idle");
	j_u64("generation", s->generation);
	j_u64("rows_per_page", s->rows_per_page);
	j_u64("pages", s->pages);
	j_u64("dram_bytes", s->dram_bytes);
	j_str("trigger", trig_name(s->trigger));
	j_u64("hot_bp", s->hot_bp);
	j_u64("trigger_ppm", s->trigger_ppm);
	j_u64("period", s->period);
	j_bool("profiled", s->flags & 1u);
}

static void json_table_counters(const struct reis_rf_stats *s)
{
	j_u64("sls_bags", s->sls_bags);
	j_u64("lookups", s->lookups);
	j_u64("page_reads", s->page_reads);
	j_u64("cache_hits", s->cache_hits);
	j_u64("cache_misses", s->cache_misses);
	j_u64("bytes_sensed", s->bytes_sensed);
	j_u64("bytes_useful", s->bytes_useful);
	j_u64("bytes_out", s->bytes_out);
	j_dbl("utilisation", s->utilisation);
	j_dbl("hit_rate", s->hit_rate);
	j_u64("model_ns", s->model_ns);
	j_u64("energy_pj", s->energy_pj);
	j_u64("tracked_keys", s->tracked_keys);
	j_u64("remaps", s->remaps);
	j_u64("remap_rows_moved", s->remap_rows_moved);
	j_u64("remap_page_reads", s->remap_page_reads);
	j_u64("remap_programs", s->remap_programs);
	j_u64("remap_erases", s->remap_erases);
	j_u64("remap_ns", s->remap_ns);
	j_u64("trigger_hot_new", s->trigger_hot_new);
}

/* ---------------------------------------------------------------------- */
/* reis tables                                                             */
/* ---------------------------------------------------------------------- */

static int cmd_tables(struct ctx *c, int argc, char **argv)
{
	struct reis_rf_stats *st;
	int n, i, got;

	if (argc > 1)
		return usage_err("tables: unexpected argument '%s'", argv[1]);
	n = reis_rf_list(c->dev, NULL, 0);
	if (n < 0)
		return fail(c, "tables", n);
	st = calloc((size_t)n + 1, sizeof(*st));
	if (!st)
		return fail(c, "tables", -ENOMEM);
	got = reis_rf_list(c->dev, st, (unsigned)n);
	if (got < 0) {
		free(st);
		return fail(c, "tables", got);
	}
	if (got > n)
		got = n;	/* tables created meanwhile: list what we have */
	if (c->json) {
		j_obj(NULL);
		j_u64("count", (uint64_t)got);
		j_arr("tables");
		for (i = 0; i < got; i++) {
			j_obj(NULL);
			json_table(&st[i]);
			json_table_counters(&st[i]);
			j_obj_end();
		}
		j_arr_end();
		j_counting_since(c);
		j_obj_end();
	} else if (!got) {
		printf("no tables\n");
	} else {
		printf("%-10s %-16s %10s %5s %-5s %-8s %-9s %4s %8s %10s %6s %6s\n", "TID",
		       "NAME", "ROWS", "DIM", "TYPE", "MODE", "STATE", "GEN", "PAGES",
		       "LOOKUPS", "UTIL%", "HIT%");
		for (i = 0; i < got; i++)
			printf("%-10u %-16s %10u %5u %-5s %-8s %-9s %4u %8" PRIu64 " %10" PRIu64
			       " %6.2f %6.2f\n", st[i].tid, st[i].name[0] ? st[i].name : "-",
			       st[i].rows, st[i].dim, dtype_name(st[i].dtype),
			       mode_name(st[i].mode),
			       st[i].state == REIS_RF_READY ?
			       (st[i].remap_state == REIS_RF_REMAP_STAGED ? "staged" :
				st[i].remap_state == REIS_RF_REMAP_RUNNING ? "remapping" :
				"ready") : "deploying",
			       st[i].generation, st[i].pages, st[i].lookups,
			       100 * st[i].utilisation, 100 * st[i].hit_rate);
		cli_inproc_counters(c, "LOOKUPS, UTIL% and HIT%");
	}
	free(st);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* reis table create|stats|delete                                          */
/* ---------------------------------------------------------------------- */

static void progress_bar(void *arg, uint64_t done, uint64_t total)
{
	int *last = arg, pct = total ? (int)(done * 100 / total) : 100;

	if (pct == *last)
		return;
	*last = pct;
	fprintf(stderr, "\rdeploy [%-40.*s] %3d%%", pct * 40 / 100,
		"########################################", pct);
	if (pct == 100)
		fputc('\n', stderr);
}

/* Read exactly @len bytes of raw float32 from @path. */
static int read_rows(const char *path, float *dst, uint64_t len)
{
	struct stat sb;
	FILE *f = fopen(path, "rb");
	int ret = 0;

	if (!f)
		return -errno;
	if (fstat(fileno(f), &sb) || (uint64_t)sb.st_size != len)
		ret = -EBADMSG;
	else if (fread(dst, 1, len, f) != len)
		ret = -EIO;
	fclose(f);
	return ret;
}

/* What `reis table create` works with. */
struct table_job {
	struct reis_rf_table t;
	struct reis_rf_deploy_opts o;
	uint64_t seed, plen;
	double pk;
	uint32_t pkind;		/* REIS_RF_TRACE_* of the profile */
	const char *data;
	float *rows;
	void *wire;
	uint32_t *prof;
	int last;
};

static const struct option table_create_lo[] = {
	{ "tid", required_argument, NULL, 't' },
	{ "rows", required_argument, NULL, 'r' },
	{ "dim", required_argument, NULL, 'D' },
	{ "dtype", required_argument, NULL, 'T' },
	{ "mode", required_argument, NULL, 'm' },
	{ "name", required_argument, NULL, 'n' },
	{ "data", required_argument, NULL, 'f' },
	{ "seed", required_argument, NULL, 's' },
	{ "profile-k", required_argument, NULL, 'k' },
	{ "profile-len", required_argument, NULL, 'L' },
	{ "trace", required_argument, NULL, 'X' },
	{ "trigger", required_argument, NULL, 'g' },
	{ "hot-bp", required_argument, NULL, 'H' },
	{ "trigger-ppm", required_argument, NULL, 'p' },
	{ "period", required_argument, NULL, 'P' },
	{ "depth", required_argument, NULL, 'q' },
	{ NULL, 0, NULL, 0 },
};

/* The table itself: 0, -1 when @opt is not one of these, or an exit code. */
static int table_opt_shape(struct table_job *j, int opt)
{
	struct reis_rf_table *t = &j->t;
	uint64_t v;
	int ret;

	switch (opt) {
	case 't':
		return parse_tid("table create", optarg, &t->tid) ? EXIT_USAGE : 0;
	case 'r':
		if (parse_u64(optarg, 1, REIS_RF_MAX_ROWS, &v))
			return usage_err("table create: --rows must be 1..%u", REIS_RF_MAX_ROWS);
		t->rows = (uint32_t)v;
		return 0;
	case 'D':
		if (parse_u64(optarg, 1, REIS_RF_MAX_DIM, &v))
			return usage_err("table create: --dim must be 1..%u", REIS_RF_MAX_DIM);
		t->dim = (uint32_t)v;
		return 0;
	case 'T':
		ret = lookup(optarg, dtype_names, 4, 1);
		if (ret < 0)
			return usage_err("table create: --dtype is fp32, fp16 or int8");
		t->dtype = (uint32_t)ret;
		return 0;
	case 'm':
		ret = lookup(optarg, mode_names, 4, 1);
		if (ret < 0)
			return usage_err("table create: --mode is recssd, rmssd or recflash");
		t->mode = (uint32_t)ret;
		return 0;
	case 'n':
		if (strlen(optarg) >= REIS_RF_NAME_LEN)
			return usage_err("table create: --name must be at most %u characters",
					 REIS_RF_NAME_LEN - 1);
		t->name = optarg;
		return 0;
	case 'f':
		j->data = optarg;
		return 0;
	case 's':
		if (parse_u64(optarg, 0, UINT64_MAX, &j->seed))
			return usage_err("table create: --seed must be an unsigned number");
		return 0;
	case 'q':
		if (parse_u64(optarg, 1, REIS_STREAM_MAX_DEPTH, &v))
			return usage_err("table create: --depth must be 1..%u",
					 REIS_STREAM_MAX_DEPTH);
		j->o.depth = (uint32_t)v;
		return 0;
	default:
		return -1;
	}
}

/* The initial profile and the remap trigger (RecFlash §III-C). */
static int table_opt_remap(struct table_job *j, int opt)
{
	struct reis_rf_table *t = &j->t;
	uint64_t v;
	int ret;

	switch (opt) {
	case 'k':
		if (parse_k(optarg, &j->pk))
			return usage_err("table create: --profile-k must be 0..%g",
					 REIS_RF_TRACE_MAX_K);
		return 0;
	case 'L':
		if (parse_u64(optarg, 1, PROFILE_MAX_LEN, &j->plen))
			return usage_err("table create: --profile-len must be 1..2^32");
		return 0;
	case 'X':
		return parse_trace("table create", optarg, &j->pkind) ? EXIT_USAGE : 0;
	case 'g':
		ret = lookup(optarg, trig_names, 3, 0);
		if (ret < 0)
			return usage_err("table create: --trigger is none, threshold or period");
		t->trigger = (uint32_t)ret;
		return 0;
	case 'H':
		if (parse_u64(optarg, 0, 10000, &v))
			return usage_err("table create: --hot-bp must be 0..10000");
		t->hot_bp = (uint32_t)v;
		return 0;
	case 'p':
		if (parse_u64(optarg, 0, 1000000, &v))
			return usage_err("table create: --trigger-ppm must be 0..1000000");
		t->trigger_ppm = (uint32_t)v;
		return 0;
	case 'P':
		if (parse_u64(optarg, 1, UINT32_MAX, &v))
			return usage_err("table create: --period must be >= 1");
		t->period = (uint32_t)v;
		return 0;
	default:
		return -1;
	}
}

static int table_create_parse(int argc, char **argv, struct table_job *j)
{
	const struct reis_rf_table *t = &j->t;
	int opt, ret;

	j->t.dtype = REIS_RF_FP32;
	j->t.mode = REIS_RF_RECFLASH;
	j->seed = 1;
	j->pk = -1;
	j->pkind = REIS_RF_TRACE_RECFLASH;
	j->last = -1;
	optind = 0;
	while ((opt = cli_getopt("table create", argc, argv,
				 "+t:r:D:T:m:n:f:s:k:L:X:g:H:p:P:q:", table_create_lo)) != -1) {
		ret = table_opt_shape(j, opt);
		if (ret < 0)
			ret = table_opt_remap(j, opt);
		if (ret < 0)
			return EXIT_USAGE;
		if (ret)
			return ret;
	}
	if (optind < argc)
		return usage_err("table create: unexpected argument '%s'", argv[optind]);
	if (!t->tid || !t->rows || !t->dim)
		return usage_err("table create: --tid, --rows and --dim are required");
	if (t->trigger == REIS_RF_TRIG_PERIOD && !t->period)
		return usage_err("table create: --trigger period needs --period");
	if ((j->pk >= 0) != (j->plen > 0))
		return usage_err("table create: --profile-k and --profile-len go together");
	if (j->plen && t->mode != REIS_RF_RECFLASH)
		return usage_err("table create: a profile places rows only in recflash mode");
	return 0;
}

/* The rows (read or random) in the table's dtype. 0, -errno, or 1 when
 * reported here. */
static int table_create_rows(struct table_job *j, uint64_t rb)
{
	const struct reis_rf_table *t = &j->t;
	int ret;

	j->rows = malloc(rb);
	j->wire = malloc((uint64_t)t->rows * (uint64_t)reis_rf_row_bytes(t->dtype, t->dim));
	if (!j->rows || !j->wire)
		return -ENOMEM;
	if (j->data) {
		ret = read_rows(j->data, j->rows, rb);
		if (ret) {
			cli_errno(ret, "table create: %s: %s", j->data,
				ret == -EBADMSG ? "size is not rows x dim x 4 bytes of float32" :
				strerror(-ret));
			return 1;
		}
	} else {
		reis_rf_fill_random(j->seed, j->rows, (uint64_t)t->rows * t->dim, 1.0f);
	}
	ret = reis_rf_quantize(t->dtype, t->rows, t->dim, j->rows, j->wire);
	if (ret) {
		cli_err("table create: %s", ret == -EDOM ?
			"the data holds NaN or infinity" : reis_strerror(ret));
		return 1;
	}
	return 0;
}

/* Access counts over @len indices of a locality-K trace of @kind
 * (RecFlash §IV): the profile a table is placed or remapped by. 0 or
 * -ENOMEM. */
static int trace_profile(uint32_t rows, uint32_t kind, double k, uint64_t seed, uint64_t len,
			 uint32_t **out)
{
	struct reis_rf_trace_opts to;
	struct reis_rf_trace *tr;
	uint32_t buf[4096], *prof;
	uint64_t done;

	memset(&to, 0, sizeof(to));
	to.rows = rows;
	to.kind = kind;
	to.k = k;
	to.seed = seed;
	to.lookups = kind == REIS_RF_TRACE_DRIFT ? 0 : PROFILE_LOOKUPS;
	prof = calloc(rows, sizeof(*prof));
	if (!prof || reis_rf_trace_open(&to, &tr)) {
		free(prof);
		return -ENOMEM;
	}
	for (done = 0; done < len; done += 4096) {
		size_t n = len - done < 4096 ? (size_t)(len - done) : 4096;

		reis_rf_trace_next(tr, buf, n);
		reis_rf_profile_count(buf, n, rows, prof);
	}
	reis_rf_trace_close(tr);
	*out = prof;
	return 0;
}

/* The drive places the new table's rows by a trace's access counts. */
static int table_create_profile(struct table_job *j)
{
	int ret = trace_profile(j->t.rows, j->pkind, j->pk, j->seed, j->plen, &j->prof);

	if (!ret)
		j->t.profile = j->prof;
	return ret;
}

static void table_create_report(const struct ctx *c, const struct table_job *j)
{
	const struct reis_rf_table *t = &j->t;
	const struct reis_rf_deploy_opts *o = &j->o;

	if (c->json) {
		j_obj(NULL);
		j_u64("tid", t->tid);
		j_u64("rows", t->rows);
		j_u64("dim", t->dim);
		j_str("dtype", dtype_name(t->dtype));
		j_str("mode", mode_name(t->mode));
		j_bool("profiled", t->profile != NULL);
		j_u64("bytes", o->bytes);
		j_u64("commands", o->ncmds);
		j_u64("model_ns", o->time_ns);
		j_u64("energy_nj", o->energy_nj);
		j_obj_end();
		return;
	}
	printf("table %u deployed: %u rows x %u %s, mode %s%s; %" PRIu64 " bytes in %u "
	       "commands, modeled %.3f ms, %.3f mJ\n", t->tid, t->rows, t->dim,
	       dtype_name(t->dtype), mode_name(t->mode),
	       t->profile ? " (placed by profile)" : "", o->bytes, o->ncmds,
	       (double)o->time_ns / 1e6, (double)o->energy_nj / 1e6);
}

/* reis table create: rows from a file or random, optionally placed by a
 * profile, deployed. */
static int table_create(struct ctx *c, int argc, char **argv)
{
	struct table_job j;
	uint64_t rb;
	int ret;

	memset(&j, 0, sizeof(j));
	ret = table_create_parse(argc, argv, &j);
	if (ret)
		return ret;
	rb = (uint64_t)j.t.rows * j.t.dim * sizeof(float);
	if (rb > SIZE_MAX / 2)
		return usage_err("table create: table too large for this host");
	ret = table_create_rows(&j, rb);
	if (!ret && j.plen)
		ret = table_create_profile(&j);
	if (!ret) {
		j.t.data = j.wire;
		if (!c->json && isatty(STDERR_FILENO)) {
			j.o.progress = progress_bar;
			j.o.progress_arg = &j.last;
		}
		ret = reis_rf_deploy(c->dev, &j.t, &j.o);
	}
	if (!ret)
		table_create_report(c, &j);
	free(j.rows);
	free(j.wire);
	free(j.prof);
	return ret < 0 ? fail(c, "table create", ret) : ret;
}

static int table_stats(struct ctx *c, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "reset", no_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	struct reis_rf_stats s;
	uint32_t tid = 0, flags = 0;
	int opt, ret;

	optind = 0;
	while ((opt = cli_getopt("table stats", argc, argv, "r", lo)) != -1) {
		if (opt != 'r')
			return EXIT_USAGE;
		flags |= REIS_RF_STATS_RESET;
	}
	if (optind + 1 != argc)
		return usage_err("table stats: give one table id");
	if (parse_tid("table stats", argv[optind], &tid))
		return EXIT_USAGE;
	ret = reis_rf_table_stats(c->dev, tid, flags, &s);
	if (ret)
		return fail(c, "table stats", ret);
	if (c->json) {
		j_obj(NULL);
		json_table(&s);
		json_table_counters(&s);
		j_u64("received_rows", s.received_rows);
		j_u64("received_profile", s.received_profile);
		j_bool("reset", flags != 0);
		j_counting_since(c);
		j_obj_end();
		return 0;
	}
	printf("table          %u \"%s\": %u rows x %u %s, mode %s%s\n", s.tid, s.name,
	       s.rows, s.dim, dtype_name(s.dtype), mode_name(s.mode),
	       s.flags & 1u ? ", placed by profile" : "");
	printf("state          %s, remap %s, generation %u\n",
	       s.state == REIS_RF_READY ? "ready" : "deploying",
	       s.remap_state == REIS_RF_REMAP_RUNNING ? "running" :
	       s.remap_state == REIS_RF_REMAP_STAGED ? "staged" : "idle", s.generation);
	printf("layout         %" PRIu64 " pages, %u rows/page, mapping %" PRIu64
	       " bytes of DRAM\n", s.pages, s.rows_per_page, s.dram_bytes);
	printf("trigger        %s, hot region %.2f %%, threshold %.4f %%, period %u bags\n",
	       trig_name(s.trigger), s.hot_bp / 100.0, s.trigger_ppm / 10000.0, s.period);
	printf("SLS            %" PRIu64 " bags, %" PRIu64 " lookups, %" PRIu64
	       " page reads, modeled %.3f ms, %.3f mJ\n", s.sls_bags, s.lookups,
	       s.page_reads, (double)s.model_ns / 1e6, (double)s.energy_pj / 1e9);
	printf("page buffer    %.2f %% useful (%" PRIu64 " of %" PRIu64 " bytes sensed), %"
	       PRIu64 " bytes read out\n", 100 * s.utilisation, s.bytes_useful,
	       s.bytes_sensed, s.bytes_out);
	printf("page cache     %.2f %% hits (%" PRIu64 " hits, %" PRIu64 " misses)\n",
	       100 * s.hit_rate, s.cache_hits, s.cache_misses);
	printf("remap          %" PRIu64 " remaps; last: %" PRIu64 " rows moved, %" PRIu64
	       " reads, %" PRIu64 " programs, %" PRIu64 " erases, %.3f ms; %" PRIu64
	       " keys tracked, %" PRIu64 " new hot\n", s.remaps, s.remap_rows_moved,
	       s.remap_page_reads, s.remap_programs, s.remap_erases,
	       (double)s.remap_ns / 1e6, s.tracked_keys, s.trigger_hot_new);
	if (flags)
		printf("(counters reset)\n");
	cli_inproc_counters(c, "the SLS, page buffer, cache and remap counters");
	return 0;
}

static int table_delete(struct ctx *c, int argc, char **argv)
{
	uint32_t tid = 0;
	int ret;

	if (argc != 2)
		return usage_err("table delete: give one table id");
	if (parse_tid("table delete", argv[1], &tid))
		return EXIT_USAGE;
	ret = reis_rf_delete(c->dev, tid);
	if (ret)
		return fail(c, "table delete", ret);
	if (c->json) {
		j_obj(NULL);
		j_u64("tid", tid);
		j_bool("deleted", 1);
		j_obj_end();
	} else {
		printf("table %u deleted\n", tid);
	}
	return 0;
}

static int cmd_table(struct ctx *c, int argc, char **argv)
{
	if (argc < 2)
		return usage_err("table: create, stats or delete?");
	if (!strcmp(argv[1], "create"))
		return table_create(c, argc - 1, argv + 1);
	if (!strcmp(argv[1], "stats"))
		return table_stats(c, argc - 1, argv + 1);
	if (!strcmp(argv[1], "delete"))
		return table_delete(c, argc - 1, argv + 1);
	return usage_err("table: unknown subcommand '%s' (create, stats, delete)", argv[1]);
}

/* ---------------------------------------------------------------------- */
/* reis sls                                                                */
/* ---------------------------------------------------------------------- */

struct bagbuf {
	uint32_t nbags, nidx, cap_bags, cap_idx;
	uint32_t *offsets, *indices;
	float *weights;
};

static int bag_push_idx(struct bagbuf *b, uint32_t idx, float w)
{
	if (b->nidx == b->cap_idx) {
		uint32_t nc = b->cap_idx ? b->cap_idx * 2 : 1024;
		uint32_t *ni;
		float *nw;

		if (nc > SLS_MAX_BAGFILE_IDX)
			return -E2BIG;
		ni = realloc(b->indices, nc * sizeof(*ni));
		if (!ni)
			return -ENOMEM;
		b->indices = ni;
		nw = realloc(b->weights, nc * sizeof(*nw));
		if (!nw)
			return -ENOMEM;
		b->weights = nw;
		b->cap_idx = nc;
	}
	b->indices[b->nidx] = idx;
	b->weights[b->nidx++] = w;
	return 0;
}

static int bag_close(struct bagbuf *b)
{
	if (b->nbags + 2 > b->cap_bags) {
		uint32_t nc = b->cap_bags ? b->cap_bags * 2 : 256;
		uint32_t *no;

		if (nc > SLS_MAX_BAGFILE_IDX)
			return -E2BIG;
		no = realloc(b->offsets, nc * sizeof(*no));
		if (!no)
			return -ENOMEM;
		b->offsets = no;
		b->cap_bags = nc;
	}
	if (!b->nbags)
		b->offsets[0] = 0;
	b->offsets[++b->nbags] = b->nidx;
	return 0;
}

/*
 * Bags file: one bag per line, row indices separated by blanks or commas,
 * each optionally "index:weight"; '#' starts a comment; blank lines skipped.
 */
static int read_bags(const char *path, struct bagbuf *b, int *weighted)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char line[1 << 16];
	unsigned long lineno = 0;
	int ret = 0;

	if (!f)
		return -errno;
	*weighted = 0;
	while (!ret && fgets(line, sizeof(line), f)) {
		char *p = line, *end;
		uint32_t before = b->nidx;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			cli_err("sls: %s:%lu: line too long", path, lineno);
			ret = -EBADMSG;
			break;
		}
		for (;;) {
			unsigned long long v;
			float w = 1.0f;

			while (*p == ' ' || *p == '\t' || *p == ',' || *p == '\r')
				p++;
			if (!*p || *p == '\n' || *p == '#')
				break;
			errno = 0;
			v = strtoull(p, &end, 10);
			if (end == p || errno || v > UINT32_MAX || *p == '-') {
				cli_err("sls: %s:%lu: bad row index", path, lineno);
				ret = -EBADMSG;
				break;
			}
			p = end;
			if (*p == ':') {
				w = strtof(p + 1, &end);
				if (end == p + 1 || !isfinite(w)) {
					cli_err("sls: %s:%lu: bad weight", path,
						lineno);
					ret = -EBADMSG;
					break;
				}
				*weighted = 1;
				p = end;
			}
			ret = bag_push_idx(b, (uint32_t)v, w);
			if (ret)
				break;
		}
		if (!ret && b->nidx > before)
			ret = bag_close(b);
	}
	if (f != stdin)
		fclose(f);
	if (!ret && !b->nbags) {
		cli_err("sls: %s: no bags", path);
		ret = -EBADMSG;
	}
	return ret;
}

/* What `reis sls` works with. */
struct sls_job {
	struct reis_rf_stats ts;
	struct reis_rf_sls_info tot;
	struct bagbuf bb;
	struct reis_rf_trace *tr;
	const char *bagfile;
	uint64_t batch, lookups, batches, seed, host;
	double k;
	uint32_t tid, flags, kind;
	float *out;
	int weighted, print;
};

static int sls_parse(int argc, char **argv, struct sls_job *j)
{
	static const struct option lo[] = {
		{ "bags", required_argument, NULL, 'b' },
		{ "trace-k", required_argument, NULL, 'k' },
		{ "trace", required_argument, NULL, 'X' },
		{ "batch", required_argument, NULL, 'B' },
		{ "lookups", required_argument, NULL, 'l' },
		{ "batches", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "mean", no_argument, NULL, 'M' },
		{ "no-cache", no_argument, NULL, 'C' },
		{ "print", no_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	j->batch = 32;
	j->lookups = 80;
	j->batches = 1;
	j->seed = 1;
	j->k = -1;
	j->kind = REIS_RF_TRACE_RECFLASH;
	optind = 0;
	while ((opt = cli_getopt("sls", argc, argv, "b:k:X:B:l:n:s:MCp", lo)) != -1) {
		switch (opt) {
		case 'b': j->bagfile = optarg; break;
		case 'X':
			if (parse_trace("sls", optarg, &j->kind))
				return EXIT_USAGE;
			break;
		case 'k':
			if (parse_k(optarg, &j->k))
				return usage_err("sls: --trace-k must be 0..%g", REIS_RF_TRACE_MAX_K);
			break;
		case 'B':
			if (parse_u64(optarg, 1, SLS_MAX_BATCH, &j->batch))
				return usage_err("sls: --batch must be 1..%u", SLS_MAX_BATCH);
			break;
		case 'l':
			if (parse_u64(optarg, 1, SLS_MAX_LOOKUPS, &j->lookups))
				return usage_err("sls: --lookups must be 1..%u", SLS_MAX_LOOKUPS);
			break;
		case 'n':
			if (parse_u64(optarg, 1, SLS_MAX_BATCHES, &j->batches))
				return usage_err("sls: --batches must be 1..%u", SLS_MAX_BATCHES);
			break;
		case 's':
			if (parse_u64(optarg, 0, UINT64_MAX, &j->seed))
				return usage_err("sls: --seed must be an unsigned number");
			break;
		case 'M': j->flags |= REIS_RF_SLS_MEAN; break;
		case 'C': j->flags |= REIS_RF_SLS_NO_CACHE; break;
		case 'p': j->print = 1; break;
		default: return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc)
		return usage_err("sls: give one table id");
	if (parse_tid("sls", argv[optind], &j->tid))
		return EXIT_USAGE;
	if (!j->bagfile == (j->k < 0))
		return usage_err("sls: give --bags FILE or --trace-k K");
	if (j->batch * j->lookups > 16u << 20)
		return usage_err("sls: --batch x --lookups must be at most 16M indices");
	return 0;
}

/* The bags: one batch from the file, or batches of a locality-K trace.
 * 0, -errno, or 1 when reported here. */
static int sls_bags(struct sls_job *j)
{
	struct reis_rf_trace_opts to;
	struct bagbuf *bb = &j->bb;
	uint64_t i;
	int ret;

	if (j->bagfile) {
		ret = read_bags(j->bagfile, bb, &j->weighted);
		if (ret) {
			if (ret != -EBADMSG)
				cli_errno(ret, "sls: %s: %s", j->bagfile,
					ret == -E2BIG ? "too many indices" : strerror(-ret));
			return 1;
		}
		if (j->weighted)
			j->flags |= REIS_RF_SLS_WEIGHTED;
		j->batches = 1;
		return 0;
	}
	memset(&to, 0, sizeof(to));
	to.rows = j->ts.rows;
	to.kind = j->kind;
	to.k = j->k;
	to.seed = j->seed;
	/* RecSSD-style distances are in samples: one bag is one sample. */
	to.lookups = j->kind == REIS_RF_TRACE_DRIFT ? 0 : (uint32_t)j->lookups;
	ret = reis_rf_trace_open(&to, &j->tr);
	if (ret)
		return ret;
	bb->nbags = (uint32_t)j->batch;
	bb->nidx = (uint32_t)(j->batch * j->lookups);
	bb->offsets = malloc((j->batch + 1) * sizeof(uint32_t));
	bb->indices = malloc(j->batch * j->lookups * sizeof(uint32_t));
	if (!bb->offsets || !bb->indices)
		return -ENOMEM;
	for (i = 0; i <= j->batch; i++)
		bb->offsets[i] = (uint32_t)(i * j->lookups);
	return 0;
}

static void sls_add(struct reis_rf_sls_info *tot, const struct reis_rf_sls_info *in)
{
	tot->ncmds += in->ncmds;
	tot->retries += in->retries;
	tot->lookups += in->lookups;
	tot->page_reads += in->page_reads;
	tot->cache_hits += in->cache_hits;
	tot->cache_misses += in->cache_misses;
	tot->bytes_sensed += in->bytes_sensed;
	tot->bytes_useful += in->bytes_useful;
	tot->bytes_out += in->bytes_out;
	tot->flash_ns += in->flash_ns;
	tot->flash_pj += in->flash_pj;
	tot->model_ns += in->model_ns;
	tot->energy_pj += in->energy_pj;
	tot->cmd_ns += in->cmd_ns;
}

/* Every batch through the drive, costs summed. */
static int sls_run(struct ctx *c, struct sls_job *j)
{
	struct bagbuf *bb = &j->bb;
	struct reis_rf_sls_info in;
	uint64_t i;
	int ret;

	j->out = malloc((size_t)bb->nbags * j->ts.dim * sizeof(float));
	if (!j->out)
		return -ENOMEM;
	for (i = 0; i < j->batches; i++) {
		struct reis_rf_bags bags = { bb->nbags, bb->nidx, bb->offsets, bb->indices,
					     j->weighted ? bb->weights : NULL };

		if (j->tr)
			reis_rf_trace_next(j->tr, bb->indices, bb->nidx);
		ret = reis_rf_sls(c->dev, j->tid, j->ts.dim, &bags, j->flags, j->out, &in);
		if (ret)
			return ret;
		sls_add(&j->tot, &in);
		j->host += in.host_ns;
	}
	return 0;
}

static void sls_report_json(const struct sls_job *j)
{
	const struct reis_rf_sls_info *t = &j->tot;
	uint32_t b, d;

	j_obj(NULL);
	j_u64("tid", j->tid);
	j_u64("batches", j->batches);
	j_u64("bags_per_batch", j->bb.nbags);
	j_u64("lookups", t->lookups);
	j_u64("commands", t->ncmds);
	j_u64("retries", t->retries);
	j_u64("page_reads", t->page_reads);
	j_u64("cache_hits", t->cache_hits);
	j_u64("cache_misses", t->cache_misses);
	j_u64("bytes_sensed", t->bytes_sensed);
	j_u64("bytes_useful", t->bytes_useful);
	j_u64("bytes_out", t->bytes_out);
	j_dbl("utilisation", t->bytes_sensed ?
	      (double)t->bytes_useful / (double)t->bytes_sensed : 0);
	j_u64("flash_ns", t->flash_ns);
	j_u64("flash_pj", t->flash_pj);
	j_u64("model_ns", t->model_ns);
	j_u64("energy_pj", t->energy_pj);
	j_u64("host_ns", j->host);
	if (j->print) {
		j_arr("last_batch");
		for (b = 0; b < j->bb.nbags; b++) {
			j_arr(NULL);
			for (d = 0; d < j->ts.dim; d++) {
				j_g(NULL, (double)j->out[(size_t)b * j->ts.dim + d]);
			}
			j_arr_end();
		}
		j_arr_end();
	}
	j_obj_end();
}

static void sls_report_text(const struct sls_job *j)
{
	const struct reis_rf_sls_info *t = &j->tot;
	uint32_t b, d;

	printf("%" PRIu64 " batch(es) of %u bags on table %u: %" PRIu64 " lookups in %u "
	       "commands%s\n", j->batches, j->bb.nbags, j->tid, t->lookups, t->ncmds,
	       t->retries ? " (with retries)" : "");
	printf("flash          %" PRIu64 " page reads, %.2f %% of sensed bytes used, %"
	       PRIu64 " bytes read out\n", t->page_reads,
	       t->bytes_sensed ? 100.0 * (double)t->bytes_useful /
	       (double)t->bytes_sensed : 0, t->bytes_out);
	printf("page cache     %" PRIu64 " hits, %" PRIu64 " misses\n", t->cache_hits,
	       t->cache_misses);
	printf("modeled        embedding stage %.3f ms, read energy %.3f mJ; "
	       "commands %.3f ms\n", (double)t->flash_ns / 1e6,
	       (double)t->flash_pj / 1e9, (double)t->model_ns / 1e6);
	printf("host           %.3f ms per batch\n", (double)j->host / 1e6 / j->batches);
	if (!j->print)
		return;
	for (b = 0; b < j->bb.nbags; b++) {
		printf("bag %u:", b);
		for (d = 0; d < j->ts.dim; d++)
			printf(" %.9g", (double)j->out[(size_t)b * j->ts.dim + d]);
		printf("\n");
	}
}

/* reis sls: batches of bags (a file, or a locality-K trace) through SLS. */
static int cmd_sls(struct ctx *c, int argc, char **argv)
{
	struct sls_job j;
	int ret;

	memset(&j, 0, sizeof(j));
	ret = sls_parse(argc, argv, &j);
	if (ret)
		return ret;
	ret = reis_rf_table_stats(c->dev, j.tid, 0, &j.ts);
	if (ret)
		return fail(c, "sls", ret);
	ret = sls_bags(&j);
	if (!ret)
		ret = sls_run(c, &j);
	if (!ret) {
		if (c->json)
			sls_report_json(&j);
		else
			sls_report_text(&j);
	}
	reis_rf_trace_close(j.tr);
	free(j.out);
	free(j.bb.offsets);
	free(j.bb.indices);
	free(j.bb.weights);
	return ret < 0 ? fail(c, "sls", ret) : ret;
}

/* ---------------------------------------------------------------------- */
/* reis remap                                                              */
/* ---------------------------------------------------------------------- */

/* What `reis remap` works with. */
struct remap_job {
	uint64_t plen, seed;
	uint32_t tid, flags, kind;
	double pk;
	int only_switch;
};

static int remap_parse(int argc, char **argv, struct remap_job *j)
{
	static const struct option lo[] = {
		{ "if-triggered", no_argument, NULL, 'i' },
		{ "switch", no_argument, NULL, 'S' },
		{ "profile-k", required_argument, NULL, 'k' },
		{ "profile-len", required_argument, NULL, 'L' },
		{ "trace", required_argument, NULL, 'X' },
		{ "seed", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	const char *what;
	int opt;

	j->seed = 1;
	j->pk = -1;
	j->kind = REIS_RF_TRACE_RECFLASH;
	optind = 0;
	while ((opt = cli_getopt("remap", argc, argv, "iSk:L:X:s:", lo)) != -1) {
		switch (opt) {
		case 'X':
			if (parse_trace("remap", optarg, &j->kind))
				return EXIT_USAGE;
			break;
		case 'i': j->flags |= REIS_RF_REMAP_IF_TRIGGERED; break;
		case 'S': j->flags |= REIS_RF_REMAP_SWITCH; break;
		case 'k':
			if (parse_k(optarg, &j->pk))
				return usage_err("remap: --profile-k must be 0..%g",
						 REIS_RF_TRACE_MAX_K);
			break;
		case 'L':
			if (parse_u64(optarg, 1, PROFILE_MAX_LEN, &j->plen))
				return usage_err("remap: --profile-len must be 1..2^32");
			break;
		case 's':
			if (parse_u64(optarg, 0, UINT64_MAX, &j->seed))
				return usage_err("remap: --seed must be an unsigned number");
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind + 2 != argc)
		return usage_err("remap: give a table id and full, adaptive or switch");
	if (parse_tid("remap", argv[optind], &j->tid))
		return EXIT_USAGE;
	what = argv[optind + 1];
	if (!strcmp(what, "full"))
		j->flags |= REIS_RF_REMAP_FULL;
	else if (!strcmp(what, "adaptive"))
		j->flags |= REIS_RF_REMAP_ADAPTIVE;
	else if (!strcmp(what, "switch"))
		j->only_switch = 1;
	else
		return usage_err("remap: '%s' is not full, adaptive or switch", what);
	if (j->only_switch && (j->flags || j->plen))
		return usage_err("remap: switch takes no other option");
	if ((j->pk >= 0) != (j->plen > 0))
		return usage_err("remap: --profile-k and --profile-len go together");
	return 0;
}

/* reis remap TID switch: make the staged mapping active. */
static int remap_switch(struct ctx *c, uint32_t tid)
{
	struct reis_rf_stats ts;
	int ret;

	ret = reis_rf_switch(c->dev, tid);
	if (ret == -ENODATA && c->inproc) {
		cli_err_dev(c, ret, "remap switch: %s (an in-process drive keeps no staged "
			    "mapping from one command to the next: reis remap TID full|adaptive "
			    "--switch)", reis_last_error(c->dev));
		return 1;
	}
	if (ret)
		return fail(c, "remap switch", ret);
	ret = reis_rf_table_stats(c->dev, tid, 0, &ts);
	if (ret)
		return fail(c, "remap switch", ret);
	if (c->json) {
		j_obj(NULL);
		j_u64("tid", tid);
		j_bool("switched", 1);
		j_u64("generation", ts.generation);
		j_obj_end();
	} else {
		printf("table %u: staged mapping active, generation %u\n", tid, ts.generation);
	}
	return 0;
}

/* Replace the table's access profile with one of a locality-K trace. */
static int remap_profile(struct ctx *c, const struct remap_job *j)
{
	struct reis_rf_stats ts;
	uint32_t *prof;
	int ret;

	ret = reis_rf_table_stats(c->dev, j->tid, 0, &ts);
	if (ret)
		return fail(c, "remap", ret);
	if (trace_profile(ts.rows, j->kind, j->pk, j->seed, j->plen, &prof))
		return fail(c, "remap", -ENOMEM);
	ret = reis_rf_profile(c->dev, j->tid, prof, ts.rows);
	free(prof);
	if (ret)
		return fail(c, "remap: profile", ret);
	return 0;
}

static void remap_report(const struct ctx *c, uint32_t tid, uint32_t flags,
			 const struct reis_rf_remap_info *ri)
{
	const char *kind = flags & REIS_RF_REMAP_FULL ? "full" : "adaptive";

	if (c->json) {
		j_obj(NULL);
		j_u64("tid", tid);
		j_str("kind", kind);
		j_bool("triggered", ri->triggered);
		j_str("remap_state", ri->remap_state == REIS_RF_REMAP_STAGED ? "staged" :
		      ri->remap_state == REIS_RF_REMAP_RUNNING ? "running" : "idle");
		j_u64("generation", ri->generation);
		j_u64("rows_moved", ri->rows_moved);
		j_u64("page_reads", ri->page_reads);
		j_u64("programs", ri->programs);
		j_u64("erases", ri->erases);
		j_u64("remap_ns", ri->remap_ns);
		j_u64("command_ns", ri->time_ns);
		j_obj_end();
	} else if (!ri->triggered) {
		printf("table %u: trigger does not hold, nothing remapped\n", tid);
	} else {
		/* A restart keeps no staged mapping (recflash-engine.md), and an
		 * in-process drive restarts with every command. */
		const char *staged = c->inproc ?
			"staged, and dropped when this in-process drive closes at the end of "
			"this command (add --switch to activate it)" :
			"staged (reis remap TID switch)";

		printf("table %u: %s remap, %" PRIu64 " rows moved (%" PRIu64 " reads, %" PRIu64
		       " programs, %" PRIu64 " erases), modeled %.3f ms; mapping %s, "
		       "generation %u\n", tid, kind, ri->rows_moved, ri->page_reads,
		       ri->programs, ri->erases, (double)ri->remap_ns / 1e6,
		       ri->remap_state == REIS_RF_REMAP_STAGED ? staged : "active",
		       ri->generation);
	}
}

/* reis remap TID full|adaptive|switch (RecFlash §III-C). */
static int cmd_remap(struct ctx *c, int argc, char **argv)
{
	struct reis_rf_remap_info ri;
	struct remap_job j;
	int ret;

	memset(&j, 0, sizeof(j));
	ret = remap_parse(argc, argv, &j);
	if (ret)
		return ret;
	if (j.only_switch)
		return remap_switch(c, j.tid);
	if (j.plen && (ret = remap_profile(c, &j)))
		return ret;
	ret = reis_rf_remap(c->dev, j.tid, j.flags, &ri);
	if (ret)
		return fail(c, "remap", ret);
	remap_report(c, j.tid, j.flags, &ri);
	return 0;
}

static const struct reis_cli_cmd sls_cmds[] = {
	{ "tables", "list RecFlash embedding tables",
	  "Lists the drive's embedding tables with their state and counters.\n", 1,
	  cmd_tables },
	{ "table", "create, stats or delete an embedding table",
	  "  table create --tid N --rows R --dim D [OPTIONS]\n"
	  "      --dtype T        fp32 (default), fp16 or int8 (row-wise scale/bias)\n"
	  "      --mode M         recflash (default), rmssd or recssd\n"
	  "      --name S         label (up to 31 characters)\n"
	  "      --data FILE      raw little-endian float32 rows (rows x dim x 4 bytes);\n"
	  "                       default: random rows from --seed\n"
	  "      --seed N         seed of the random rows and the profile trace\n"
	  "      --profile-k K --profile-len N\n"
	  "                       place rows by the access counts of N accesses of a\n"
	  "                       locality-K trace (RecFlash III-C1; 80 lookups per\n"
	  "                       sample)\n"
	  "      --trace T        the profile trace: recflash (default; RecSSD's\n"
	  "                       generator over single-row lines, the paper's Fig. 10\n"
	  "                       workload), recssd (RecSSD's 128-row lines) or drift\n"
	  "                       (new references are never-seen rows)\n"
	  "      --trigger T      none (default), threshold or period\n"
	  "      --hot-bp N       hot region, basis points (500 = top 5 %)\n"
	  "      --trigger-ppm N  threshold trigger share (1000 = 0.1 %)\n"
	  "      --period N       period trigger, in bags\n"
	  "      --depth N        deploy commands in flight\n"
	  "  table stats TID [--reset]\n"
	  "  table delete TID\n", 2, cmd_table },
	{ "sls", "pool bags of rows in the drive (sparse-length sum)",
	  "  sls TID (--bags FILE | --trace-k K) [OPTIONS]\n"
	  "      --bags FILE      one bag per line: indices, each optionally idx:weight\n"
	  "                       ('-' reads stdin; weights make a weighted SLS)\n"
	  "      --trace-k K      generated locality-K trace (0, 0.3, 0.8, 1, 2, ...)\n"
	  "      --trace T        its generator: recflash (default), recssd or drift\n"
	  "      --batch N        bags per batch (default 32)\n"
	  "      --lookups N      indices per bag (default 80)\n"
	  "      --batches N      batches to run (default 1)\n"
	  "      --seed N         trace seed (default 1)\n"
	  "      --mean           mean pooling instead of sum\n"
	  "      --no-cache       bypass the page cache\n"
	  "      --print          print the pooled vectors of the last batch\n", 1, cmd_sls },
	{ "remap", "access-frequency remap of a table, or switch to the new mapping",
	  "  remap TID full|adaptive [--if-triggered] [--switch]\n"
	  "        [--profile-k K --profile-len N [--trace T] [--seed S]]\n"
	  "      full             re-sort every row by the profile or tracked counts\n"
	  "      adaptive         Algorithm 1: only the hot region\n"
	  "      --if-triggered   only if the table's trigger holds\n"
	  "      --switch         activate the new mapping when built\n"
	  "      --profile-k/len  upload the counts of a generated trace first\n"
	  "  remap TID switch     activate a staged mapping\n", 2, cmd_remap },
};

const struct reis_cli_table reis_sls_table = {
	sls_cmds, sizeof(sls_cmds) / sizeof(sls_cmds[0]),
};
