/* SPDX-License-Identifier: MIT */
/*
 * dlrm_demo - a full DLRM inference whose embedding stage runs inside the
 * drive (RecFlash SLS), checked against a host-only inference.
 *
 *   1. open the drive: /dev/ngXnY (first ISP drive, or --dev), else an
 *      in-process one (--inproc, preset --preset);
 *   2. build the model (RecFlash Table II: --model rmc1|rmc2|rmc3) with
 *      deterministic random MLP weights and embedding tables (--rows each,
 *      generated, no data files), quantize them (--dtype) and deploy them all
 *      at once; in RecFlash mode the rows are placed by the access counts of
 *      the trace's first lookups, its profiling prefix (III-C1);
 *   3. per batch: dense features and one bag of `lookups` rows per sample and
 *      table from the continuing locality-K trace; every table's SLS in
 *      flight together (asynchronous API); bottom MLP, interaction, top MLP
 *      on the host;
 *   4. the same inference with the embedding sums computed on the host
 *      (reis_rf_sls_ref()); the click probabilities must be identical;
 *   5. print the probabilities, a digest of the drive's embedding sums and
 *      probabilities (another path or drive must print the same), the
 *      modeled embedding-stage time and read energy, the host MLP time
 *      (measured), and delete the tables;
 *   6. by default steps 2-5 run for each placement the drive offers, the
 *      same batches each time: RecSSD-like, RM-SSD-like and RecFlash
 *      (RecFlash §V), then a side-by-side table per batch. Every mode
 *      consumes the same profiling prefix of each trace (RecFlash places
 *      its rows by it), so all three measure the same lookups after it; a
 *      digest of every measured lookup and feature proves it.
 *
 * Exit 0 when drive and host agree, 1 otherwise, 77 when there is no drive
 * with RecFlash. Small defaults keep it quick under TCG in the guest.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libreis_tools.h"

struct opts {
	const char *dev, *preset, *model, *params;
	int inproc, quiet;
	uint32_t rows, batch, batches, dtype, mode, tid_base;
	double k;
	uint64_t seed;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dlrm_demo [OPTIONS]\n"
		"  --dev PATH        drive /dev/ngXnY (default: first ISP drive, else in-process)\n"
		"  --inproc          in-process drive\n"
		"  --preset P        in-process preset (default recflash-tlc)\n"
		"  --params LIST     in-process preset overrides, e.g. cache_bytes=1m (the\n"
		"                    presets hold RMC1-3 at 1 M rows without any)\n"
		"  --model M         rmc1 (default), rmc2 or rmc3 (RecFlash Table II)\n"
		"  --rows N          rows per table (default 20000; paper 1000000)\n"
		"  --batch N         samples per batch (default 16)\n"
		"  --batches N       batches (default 2)\n"
		"  --k K             trace locality K (default 0.3)\n"
		"  --dtype T         fp32 (default), fp16, int8\n"
		"  --mode M          all (default: RecSSD-like, RM-SSD-like, RecFlash side\n"
		"                    by side), recflash, rmssd, recssd\n"
		"  --tid-base N      first table id (default 53504)\n"
		"  --seed N          seed of weights, tables and traces (default 1)\n"
		"  --quiet           only the summary\n");
}

static int parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || v < lo || v > hi)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* A bad option value: what is allowed and the value given (getopt's optarg). */
static int bad_value(const char *allowed)
{
	fprintf(stderr, "dlrm_demo: %s, not '%s'\n", allowed, optarg);
	return -1;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "inproc", no_argument, NULL, 'i' },
		{ "preset", required_argument, NULL, 'P' },
		{ "params", required_argument, NULL, 'A' },
		{ "model", required_argument, NULL, 'm' },
		{ "rows", required_argument, NULL, 'r' },
		{ "batch", required_argument, NULL, 'b' },
		{ "batches", required_argument, NULL, 'n' },
		{ "k", required_argument, NULL, 'k' },
		{ "dtype", required_argument, NULL, 't' },
		{ "mode", required_argument, NULL, 'M' },
		{ "tid-base", required_argument, NULL, 'T' },
		{ "seed", required_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int opt;

	memset(o, 0, sizeof(*o));
	o->preset = "recflash-tlc";
	o->params = NULL;
	o->model = "rmc1";
	o->rows = 20000;
	o->batch = 16;
	o->batches = 2;
	o->k = 0.3;
	o->dtype = REIS_RF_FP32;
	o->mode = 0;		/* all three */
	o->tid_base = 0xd100;
	o->seed = 1;
	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (opt) {
		case 'd': o->dev = optarg; break;
		case 'i': o->inproc = 1; break;
		case 'P': o->preset = optarg; o->inproc = 1; break;
		case 'A': o->params = optarg; o->inproc = 1; break;
		case 'm': o->model = optarg; break;
		case 'r':
			if (parse_u32(optarg, 1, 1u << 27, &o->rows))
				return bad_value("--rows must be 1..2^27");
			break;
		case 'b':
			if (parse_u32(optarg, 1, 4096, &o->batch))
				return bad_value("--batch must be 1..4096");
			break;
		case 'n':
			if (parse_u32(optarg, 1, 100000, &o->batches))
				return bad_value("--batches must be 1..100000");
			break;
		case 'k':
			o->k = strtod(optarg, &end);
			if (*end || end == optarg || !(o->k >= 0) || o->k > REIS_RF_TRACE_MAX_K)
				return bad_value("--k must be 0..16");
			break;
		case 't':
			o->dtype = !strcmp(optarg, "fp32") ? REIS_RF_FP32 :
				   !strcmp(optarg, "fp16") ? REIS_RF_FP16 :
				   !strcmp(optarg, "int8") ? REIS_RF_INT8 : 0;
			if (!o->dtype)
				return bad_value("--dtype is fp32, fp16 or int8");
			break;
		case 'M':
			o->mode = !strcmp(optarg, "recssd") ? REIS_RF_RECSSD :
				  !strcmp(optarg, "rmssd") ? REIS_RF_RMSSD :
				  !strcmp(optarg, "recflash") ? REIS_RF_RECFLASH : 0;
			if (!o->mode && strcmp(optarg, "all"))
				return bad_value("--mode is all, recflash, rmssd or recssd");
			break;
		case 'T':
			if (parse_u32(optarg, 1, UINT32_MAX - 64, &o->tid_base))
				return bad_value("--tid-base must be 1..4294967231");
			break;
		case 's':
			o->seed = strtoull(optarg, &end, 0);
			if (*end || end == optarg)
				return bad_value("--seed must be an unsigned number");
			break;
		case 'q': o->quiet = 1; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind < argc)
		return fprintf(stderr, "dlrm_demo: unexpected argument '%s'\n", argv[optind]), -1;
	if (o->dev && o->inproc)
		return fprintf(stderr, "dlrm_demo: --dev and --inproc exclude each other\n"), -1;
	return 0;
}

/* The drive; NULL with *@bad_opts set when the in-process options were bad. */
static struct reis_dev *open_drive(const struct opts *o, int *bad_opts)
{
	struct reis_inproc_opts io;
	struct reis_disc d;
	struct reis_dev *dev = NULL;
	char err[256] = "";
	int ret;

	/* found on the vendor path (ISP_IDENTIFY: the standard interface's
	 * memory and compute namespaces answer none); opened as ISP_PATH says */
	if (!o->inproc && (o->dev || reis_discover(&d, 1, REIS_OPEN_VENDOR) > 0)) {
		ret = reis_open(o->dev ? o->dev : d.path, 0, &dev);
		if (ret) {
			fprintf(stderr, "dlrm_demo: %s: %s\n", o->dev ? o->dev : d.path,
				reis_strerror(ret));
			return NULL;
		}
		return dev;
	}
	memset(&io, 0, sizeof(io));
	io.preset = o->preset;
	io.params = o->params;
	/* Completions wait for their modeled time, as with isp-timing=delay:
	 * each batch's time is its own, not queueing behind the deploy. */
	io.flags = REIS_INPROC_DELAY;
	io.errbuf = err;
	io.errlen = sizeof(err);
	ret = reis_open_inproc(&io, &dev);
	if (ret) {
		/* -EINVAL: --preset or --params (libreis' bad options) */
		*bad_opts = ret == -EINVAL;
		fprintf(stderr, "dlrm_demo: in-process drive: %s\n", err[0] ? err :
			reis_strerror(ret));
		return NULL;
	}
	return dev;
}

/* What one mode's run measured. */
struct mode_run {
	uint32_t mode;
	uint64_t flash_ns, flash_pj, page_reads, hits, misses, lookups;
	uint64_t digest;	/* FNV-1a of every measured lookup and dense feature */
	uint64_t out_digest;	/* FNV-1a of the drive's embedding sums and p(click) */
	double mlp_s;		/* host: bottom MLP, interaction, top MLP (wall) */
	int mismatches;
};

/* One mode's tables, traces and batch buffers. */
struct mode_ctx {
	const struct opts *o;
	const struct reis_dlrm_cfg *cfg;
	struct reis_dlrm *model;
	struct reis_dev *dev;
	uint32_t mode, rb;
	struct reis_rf_table *desc;
	struct reis_rf_trace **tr;
	struct reis_rf_sls_op *ops;
	void **wire;
	float **emb, **ref, *dense, *p_dev, *p_ref;
	uint32_t **idx, *offs;
	int deployed;
};

static const char *mode_name(uint32_t mode)
{
	return mode == REIS_RF_RECSSD ? "RecSSD-like" : mode == REIS_RF_RMSSD ? "RM-SSD-like" :
	       "RecFlash";
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		h = (h ^ *b++) * UINT64_C(0x100000001b3);
	return h;
}

/* Lookups of the profiling prefix: eight batches' worth per table. */
static size_t profile_len(const struct mode_ctx *mc)
{
	return (size_t)mc->cfg->lookups * mc->o->batch * 8;
}

static void mode_free(struct mode_ctx *mc)
{
	uint32_t t;

	if (mc->deployed)
		for (t = 0; t < mc->cfg->ntables; t++)
			reis_rf_delete(mc->dev, mc->desc[t].tid);
	for (t = 0; mc->desc && mc->wire && mc->emb && mc->ref && mc->idx && mc->tr &&
	     t < mc->cfg->ntables; t++) {
		free((void *)(uintptr_t)mc->desc[t].profile);
		free(mc->wire[t]);
		free(mc->emb[t]);
		free(mc->ref[t]);
		free(mc->idx[t]);
		reis_rf_trace_close(mc->tr[t]);
	}
	free(mc->desc);
	free(mc->tr);
	free(mc->ops);
	free(mc->wire);
	free(mc->emb);
	free(mc->ref);
	free(mc->idx);
	free(mc->dense);
	free(mc->p_dev);
	free(mc->p_ref);
	free(mc->offs);
}

/* The batch buffers and per-table arrays. Return: 0 or -ENOMEM. */
static int mode_alloc(struct mode_ctx *mc)
{
	const struct reis_dlrm_cfg *cfg = mc->cfg;
	uint32_t nt = cfg->ntables, batch = mc->o->batch, b, t;

	mc->rb = (uint32_t)reis_rf_row_bytes(mc->o->dtype, cfg->dim);
	mc->desc = calloc(nt, sizeof(*mc->desc));
	mc->tr = calloc(nt, sizeof(*mc->tr));
	mc->ops = calloc(nt, sizeof(*mc->ops));
	mc->wire = calloc(nt, sizeof(*mc->wire));
	mc->emb = calloc(nt, sizeof(*mc->emb));
	mc->ref = calloc(nt, sizeof(*mc->ref));
	mc->idx = calloc(nt, sizeof(*mc->idx));
	mc->dense = malloc(sizeof(float) * batch * cfg->bot[0]);
	mc->p_dev = malloc(sizeof(float) * batch);
	mc->p_ref = malloc(sizeof(float) * batch);
	mc->offs = malloc(sizeof(uint32_t) * (batch + 1));
	if (!mc->desc || !mc->tr || !mc->ops || !mc->wire || !mc->emb || !mc->ref || !mc->idx ||
	    !mc->dense || !mc->p_dev || !mc->p_ref || !mc->offs)
		return -ENOMEM;
	for (b = 0; b <= batch; b++)
		mc->offs[b] = b * cfg->lookups;
	for (t = 0; t < nt; t++) {
		mc->wire[t] = malloc((size_t)cfg->rows * mc->rb);
		mc->emb[t] = malloc(sizeof(float) * batch * cfg->dim);
		mc->ref[t] = malloc(sizeof(float) * batch * cfg->dim);
		mc->idx[t] = malloc(sizeof(uint32_t) * batch * cfg->lookups);
		if (!mc->wire[t] || !mc->emb[t] || !mc->ref[t] || !mc->idx[t])
			return -ENOMEM;
	}
	return 0;
}

/*
 * The tables: generated rows (DLRM-sized values) quantized to the wire
 * type, and each table's locality-K trace (seeded: the same stream in every
 * mode). Return: 0 or -ENOMEM.
 */
static int tables_make(struct mode_ctx *mc)
{
	const struct reis_dlrm_cfg *cfg = mc->cfg;
	const struct opts *o = mc->o;
	float *rows = malloc(sizeof(float) * (size_t)cfg->rows * cfg->dim);
	uint32_t t;
	int ret = 0;

	if (!rows)
		return -ENOMEM;
	for (t = 0; t < cfg->ntables && !ret; t++) {
		struct reis_rf_trace_opts to;

		reis_rf_fill_random(o->seed * 1000 + t, rows, (size_t)cfg->rows * cfg->dim, 0.05f);
		ret = reis_rf_quantize(o->dtype, cfg->rows, cfg->dim, rows, mc->wire[t]);
		memset(&to, 0, sizeof(to));
		to.rows = cfg->rows;
		to.k = o->k;
		to.seed = o->seed * 1000 + t;
		if (!ret)
			ret = reis_rf_trace_open(&to, &mc->tr[t]);
		mc->desc[t].tid = o->tid_base + t;
		mc->desc[t].rows = cfg->rows;
		mc->desc[t].dim = cfg->dim;
		mc->desc[t].dtype = o->dtype;
		mc->desc[t].mode = mc->mode;
		mc->desc[t].data = mc->wire[t];
		mc->desc[t].name = "dlrm_demo";
	}
	free(rows);
	return ret ? -ENOMEM : 0;
}

/*
 * The profiling prefix (RecFlash III-C1: a sampled trace places the rows):
 * the first profile_len() lookups of every table's trace, consumed in every
 * mode, so each mode measures the same batches after it; only RecFlash
 * counts them into the placement. Return: 0 or -ENOMEM.
 */
static int profile_prefix(struct mode_ctx *mc)
{
	size_t plen = profile_len(mc);
	uint32_t *sample = malloc(sizeof(uint32_t) * plen), t, *cnt;

	if (!sample)
		return -ENOMEM;
	for (t = 0; t < mc->cfg->ntables; t++) {
		reis_rf_trace_next(mc->tr[t], sample, plen);
		if (mc->mode != REIS_RF_RECFLASH)
			continue;
		cnt = calloc(mc->cfg->rows, sizeof(uint32_t));
		if (!cnt) {
			free(sample);
			return -ENOMEM;
		}
		reis_rf_profile_count(sample, plen, mc->cfg->rows, cnt);
		mc->desc[t].profile = cnt;
	}
	free(sample);
	return 0;
}

/* All tables deployed at once (a leftover of an interrupted run first
 * deleted). Return: 0, or 1 with a message. */
static int tables_deploy(struct mode_ctx *mc)
{
	struct reis_rf_deploy_opts dopt;
	uint32_t t;

	for (t = 0; t < mc->cfg->ntables; t++)
		reis_rf_delete(mc->dev, mc->desc[t].tid);
	memset(&dopt, 0, sizeof(dopt));
	dopt.depth = 8;
	if (reis_rf_deployv(mc->dev, mc->desc, mc->cfg->ntables, &dopt)) {
		fprintf(stderr, "dlrm_demo: deploy: %s\n", reis_last_error(mc->dev));
		return 1;
	}
	mc->deployed = 1;
	printf("deployed %u tables: %" PRIu64 " bytes in %u commands, modeled %.3f ms\n",
	       mc->cfg->ntables, dopt.bytes, dopt.ncmds, (double)dopt.time_ns / 1e6);
	return 0;
}

/* Every table's SLS of batch @b in flight together, then the sums; the
 * drive's counters into @mr. Return: 0, or 1 with a message. */
static int batch_sls(struct mode_ctx *mc, struct mode_run *mr)
{
	const struct reis_dlrm_cfg *cfg = mc->cfg;
	struct reis_rf_bags bags;
	uint32_t t, nt = cfg->ntables;

	bags.nbags = mc->o->batch;
	bags.nidx = mc->o->batch * cfg->lookups;
	bags.offsets = mc->offs;
	bags.weights = NULL;
	for (t = 0; t < nt; t++) {
		reis_rf_trace_next(mc->tr[t], mc->idx[t], bags.nidx);
		mr->digest = fnv(mr->digest, mc->idx[t], sizeof(uint32_t) * bags.nidx);
		bags.indices = mc->idx[t];
		reis_rf_sls_op_init(&mc->ops[t], mc->desc[t].tid, cfg->dim, &bags, 0, mc->emb[t]);
		if (reis_rf_sls_submit(mc->dev, &mc->ops[t])) {
			fprintf(stderr, "dlrm_demo: SLS: %s\n", reis_last_error(mc->dev));
			while (t--)
				reis_rf_sls_wait(mc->dev, &mc->ops[t], -1);
			return 1;
		}
	}
	for (t = 0; t < nt; t++) {
		const struct reis_rf_sls_info *in = &mc->ops[t].info;

		if (reis_rf_sls_wait(mc->dev, &mc->ops[t], -1)) {
			fprintf(stderr, "dlrm_demo: SLS table %u: %s\n", mc->desc[t].tid,
				reis_last_error(mc->dev));
			for (t++; t < nt; t++)
				reis_rf_sls_wait(mc->dev, &mc->ops[t], -1);
			return 1;
		}
		mr->flash_ns += in->flash_ns;
		mr->flash_pj += in->flash_pj;
		mr->page_reads += in->page_reads;
		mr->hits += in->cache_hits;
		mr->misses += in->cache_misses;
		mr->lookups += in->lookups;
		/* the same sums on the host, for the check */
		bags.indices = mc->idx[t];
		reis_rf_sls_ref(mc->o->dtype, cfg->rows, cfg->dim, mc->wire[t], &bags, 0,
				mc->ref[t]);
	}
	return 0;
}

/* One batch: dense features, the embedding stage in the drive, the MLPs
 * on the host, the host-only inference beside it. Return: 0, or 1. */
static int batch_run(struct mode_ctx *mc, uint32_t b, struct mode_run *mr)
{
	const struct opts *o = mc->o;
	uint32_t s, t;
	double t0;

	reis_rf_fill_random(o->seed * 7919 + b, mc->dense, (size_t)o->batch * mc->cfg->bot[0],
			    1.0f);
	mr->digest = fnv(mr->digest, mc->dense, sizeof(float) * o->batch * mc->cfg->bot[0]);
	if (batch_sls(mc, mr))
		return 1;
	t0 = now_s();
	reis_dlrm_forward(mc->model, o->batch, mc->dense, (const float *const *)mc->emb, mc->p_dev);
	mr->mlp_s += now_s() - t0;
	reis_dlrm_forward(mc->model, o->batch, mc->dense, (const float *const *)mc->ref, mc->p_ref);
	for (t = 0; t < mc->cfg->ntables; t++)
		mr->out_digest = fnv(mr->out_digest, mc->emb[t],
				     sizeof(float) * o->batch * mc->cfg->dim);
	mr->out_digest = fnv(mr->out_digest, mc->p_dev, sizeof(float) * o->batch);
	for (s = 0; s < o->batch; s++)
		mr->mismatches += mc->p_dev[s] != mc->p_ref[s];
	if (!o->quiet) {
		printf("batch %u: p(click) =", b);
		for (s = 0; s < o->batch && s < 8; s++)
			printf(" %.4f", (double)mc->p_dev[s]);
		printf("%s\n", o->batch > 8 ? " ..." : "");
	}
	return 0;
}

static void mode_report(const struct opts *o, const struct mode_run *mr, size_t plen)
{
	printf("embedding stage in the drive: %" PRIu64 " lookups, %" PRIu64 " page reads, ",
	       mr->lookups, mr->page_reads);
	if (mr->mode == REIS_RF_RECFLASH)
		printf("%" PRIu64 " cache hits of %" PRIu64 " rows; ", mr->hits,
		       mr->hits + mr->misses);
	else
		printf("no page cache in this mode; ");
	printf("modeled %.3f ms and %.3f mJ per batch (summed over tables); host MLP %.3f ms "
	       "per batch\n", (double)mr->flash_ns / 1e6 / o->batches,
	       (double)mr->flash_pj / 1e9 / o->batches, mr->mlp_s * 1e3 / o->batches);
	printf("inputs: %u batches after the %zu-lookup profiling prefix of every table, digest "
	       "0x%016" PRIx64 "\n", o->batches, plen, mr->digest);
	/* what the drive answered, bit for bit: another path or drive compares it */
	printf("outputs: the drive's embedding sums and p(click) of the %u batches, digest "
	       "0x%016" PRIx64 "\n", o->batches, mr->out_digest);
	if (mr->mismatches)
		printf("FAIL: %d of %u probabilities differ from the host-only inference\n",
		       mr->mismatches, o->batch * o->batches);
	else
		printf("OK: all %u probabilities equal the host-only inference\n",
		       o->batch * o->batches);
}

/*
 * run_mode - one placement: tables made and deployed in @mode, the
 * profiling prefix consumed, the batches run and checked against the
 * host-only inference, the tables deleted. Return: 0, or 1 with a message.
 */
static int run_mode(struct reis_dev *dev, const struct opts *o, const struct reis_dlrm_cfg *cfg,
		    struct reis_dlrm *model, uint32_t mode, struct mode_run *mr)
{
	struct mode_ctx mc;
	uint32_t b;
	int rc = 1;

	memset(&mc, 0, sizeof(mc));
	memset(mr, 0, sizeof(*mr));
	mc.o = o;
	mc.cfg = cfg;
	mc.model = model;
	mc.dev = dev;
	mc.mode = mr->mode = mode;
	mr->digest = mr->out_digest = UINT64_C(0xcbf29ce484222325);
	printf("\n== %s: tables deployed in %s mode ==\n", mode_name(mode),
	       mode == REIS_RF_RECSSD ? "recssd" : mode == REIS_RF_RMSSD ? "rmssd" : "recflash");
	if (mode_alloc(&mc) || tables_make(&mc) || profile_prefix(&mc)) {
		fprintf(stderr, "dlrm_demo: out of memory (try a smaller --rows)\n");
		goto out;
	}
	if (tables_deploy(&mc))
		goto out;
	for (b = 0; b < o->batches; b++)
		if (batch_run(&mc, b, mr))
			goto out;
	mode_report(o, mr, profile_len(&mc));
	rc = mr->mismatches != 0;
out:
	mode_free(&mc);
	return rc;
}

/* The three placements per batch, and why the cache hits what it hits. */
static void print_side_by_side(const struct opts *o, const struct reis_dlrm_cfg *cfg,
			       const struct reis_info *di, const struct mode_run *runs, uint32_t n)
{
	uint32_t i, same = 1;

	printf("\n== side by side, per batch of %u (embedding stage modeled in the drive, "
	       "MLPs measured on this CPU) ==\n", o->batch);
	printf("%-12s %14s %12s %11s %11s %12s %14s\n", "mode", "embedding ms", "mJ",
	       "page reads", "cache hits", "host MLP ms", "total ms");
	for (i = 0; i < n; i++) {
		const struct mode_run *r = &runs[i];
		double ems = (double)r->flash_ns / 1e6 / o->batches;
		double mlp = r->mlp_s * 1e3 / o->batches;
		char hits[24];

		if (r->mode == REIS_RF_RECFLASH)
			snprintf(hits, sizeof(hits), "%.0f", (double)r->hits / o->batches);
		else
			snprintf(hits, sizeof(hits), "-");
		printf("%-12s %14.3f %12.3f %11.0f %11s %12.3f %14.3f\n", mode_name(r->mode), ems,
		       (double)r->flash_pj / 1e9 / o->batches, (double)r->page_reads / o->batches,
		       hits, mlp, ems + mlp);
		same &= r->digest == runs[0].digest;
	}
	printf("(the embedding stage and the MLPs run one after the other; "
	       "RecFlash Fig. 10 compares the same three)\n");
	if (same)
		printf("same inputs: every mode ran the same %u batches (lookups and dense "
		       "features, digest 0x%016" PRIx64 ")\n", o->batches, runs[0].digest);
	else
		printf("FAIL: the modes ran different batches\n");
	printf("cache hits: only RecFlash has the page cache (III-C2; '-': none). A hit needs a "
	       "row looked up again, by a later command, while its page is still in one of the "
	       "cache's frames (III-C2's 128 KiB: %u pages of %u KiB on this drive, unless "
	       "cache_bytes was changed), shared by the %u tables; each batch's SLS of every "
	       "table bring that table's hottest pages in turn, so few survive to their next "
	       "use. --params cache_bytes=1m (QEMU: isp-params=cache_bytes=1m) gives it room "
	       "(docs/recflash.md §5).\n", di->page_bytes ? 131072u / di->page_bytes : 0,
	       di->page_bytes / 1024, cfg->ntables);
}

int main(int argc, char **argv)
{
	static const uint32_t all[] = { REIS_RF_RECSSD, REIS_RF_RMSSD, REIS_RF_RECFLASH };
	struct mode_run runs[3];
	struct opts o;
	struct reis_dlrm_cfg cfg;
	struct reis_dlrm *model = NULL;
	struct reis_dev *dev;
	uint32_t t, i, n = 0;
	int rc = 0, bad_opts = 0;
	const char *why;

	if (parse_args(argc, argv, &o))
		return 2;
	if (reis_dlrm_preset(o.model, &cfg)) {
		fprintf(stderr, "dlrm_demo: unknown model '%s' (rmc1, rmc2, rmc3)\n", o.model);
		return 2;
	}
	cfg.rows = o.rows;
	if (reis_dlrm_cfg_check(&cfg, &why)) {
		fprintf(stderr, "dlrm_demo: %s\n", why);
		return 2;
	}
	dev = open_drive(&o, &bad_opts);
	if (!dev)
		return bad_opts ? 2 : 1;
	if (!(reis_dev_info(dev)->caps & REIS_CAP_RECFLASH)) {
		printf("dlrm_demo: %s has no RecFlash engine\n", reis_path(dev));
		reis_close(dev);
		return 77;
	}
	printf("DLRM %s: %u tables x %u rows x %u dims (%s), %u lookups/table/sample, "
	       "bottom", cfg.name, cfg.ntables, cfg.rows, cfg.dim,
	       o.dtype == REIS_RF_FP32 ? "fp32" : o.dtype == REIS_RF_FP16 ? "fp16" : "int8",
	       cfg.lookups);
	for (t = 0; t < cfg.nbot; t++)
		printf("%s%u", t ? "-" : " ", cfg.bot[t]);
	printf(", top %u", reis_dlrm_interaction_dim(&cfg));
	for (t = 0; t < cfg.ntop; t++)
		printf("-%u", cfg.top[t]);
	printf("; drive %s via %s (%s)\n", reis_path(dev), reis_transport(dev),
	       reis_dev_info(dev)->preset);
	if (reis_dlrm_open(&cfg, o.seed, &model)) {
		fprintf(stderr, "dlrm_demo: out of memory\n");
		reis_close(dev);
		return 1;
	}
	for (i = 0; i < 3; i++) {
		if (o.mode && all[i] != o.mode)
			continue;
		rc |= run_mode(dev, &o, &cfg, model, all[i], &runs[n]);
		n++;
	}
	if (n > 1) {
		print_side_by_side(&o, &cfg, reis_dev_info(dev), runs, n);
		for (i = 1; i < n; i++)
			rc |= runs[i].digest != runs[0].digest;
	}
	reis_dlrm_close(model);
	reis_close(dev);
	return rc;
}
