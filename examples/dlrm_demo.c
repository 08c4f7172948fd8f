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
 *      a sampled locality-K trace (III-C1);
 *   3. per batch: dense features and one bag of `lookups` rows per sample and
 *      table from the continuing locality-K trace; every table's SLS in
 *      flight together (asynchronous API); bottom MLP, interaction, top MLP
 *      on the host;
 *   4. the same inference with the embedding sums computed on the host
 *      (reis_rf_sls_ref()); the click probabilities must be identical;
 *   5. print the probabilities, the modeled embedding-stage time and read
 *      energy, the host MLP time (measured), and delete the tables;
 *   6. by default steps 2-5 run for each placement the drive offers, the
 *      same batches each time: RecSSD-like, RM-SSD-like and RecFlash
 *      (RecFlash §V), then a side-by-side table per batch.
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
				return fprintf(stderr, "--rows must be 1..2^27\n"), -1;
			break;
		case 'b':
			if (parse_u32(optarg, 1, 4096, &o->batch))
				return fprintf(stderr, "--batch must be 1..4096\n"), -1;
			break;
		case 'n':
			if (parse_u32(optarg, 1, 100000, &o->batches))
				return fprintf(stderr, "--batches must be 1..100000\n"), -1;
			break;
		case 'k':
			o->k = strtod(optarg, &end);
			if (*end || end == optarg || !(o->k >= 0) || o->k > REIS_RF_TRACE_MAX_K)
				return fprintf(stderr, "--k must be 0..16\n"), -1;
			break;
		case 't':
			o->dtype = !strcmp(optarg, "fp32") ? REIS_RF_FP32 :
				   !strcmp(optarg, "fp16") ? REIS_RF_FP16 :
				   !strcmp(optarg, "int8") ? REIS_RF_INT8 : 0;
			if (!o->dtype)
				return fprintf(stderr, "--dtype is fp32, fp16 or int8\n"), -1;
			break;
		case 'M':
			o->mode = !strcmp(optarg, "recssd") ? REIS_RF_RECSSD :
				  !strcmp(optarg, "rmssd") ? REIS_RF_RMSSD :
				  !strcmp(optarg, "recflash") ? REIS_RF_RECFLASH : 0;
			if (!o->mode && strcmp(optarg, "all"))
				return fprintf(stderr, "--mode is all, recflash, rmssd or "
					       "recssd\n"), -1;
			break;
		case 'T':
			if (parse_u32(optarg, 1, UINT32_MAX - 64, &o->tid_base))
				return fprintf(stderr, "bad --tid-base\n"), -1;
			break;
		case 's':
			o->seed = strtoull(optarg, &end, 0);
			if (*end || end == optarg)
				return fprintf(stderr, "bad --seed\n"), -1;
			break;
		case 'q': o->quiet = 1; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind < argc)
		return fprintf(stderr, "unexpected argument '%s'\n", argv[optind]), -1;
	if (o->dev && o->inproc)
		return fprintf(stderr, "--dev and --inproc exclude each other\n"), -1;
	return 0;
}

static struct reis_dev *open_drive(const struct opts *o)
{
	struct reis_inproc_opts io;
	struct reis_disc d;
	struct reis_dev *dev = NULL;
	char err[256] = "";
	int ret;

	if (!o->inproc && (o->dev || reis_discover(&d, 1, 0) > 0)) {
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
		fprintf(stderr, "dlrm_demo: in-process drive: %s\n", err[0] ? err :
			reis_strerror(ret));
		return NULL;
	}
	return dev;
}

/* What one mode's run measured. */
struct mode_run {
	uint32_t mode;
	uint64_t flash_ns, flash_pj, page_reads, hits, lookups;
	double mlp_s;		/* host: bottom MLP, interaction, top MLP (wall) */
	int mismatches;
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

/*
 * run_mode - deploy the tables in @mode, run the batches (the same traces
 * and dense features for every mode: seeded), check against the host-only
 * inference, delete the tables. Return: 0, or 1 with a message.
 */
static int run_mode(struct reis_dev *dev, const struct opts *po, const struct reis_dlrm_cfg *pcfg,
		    struct reis_dlrm *model, uint32_t mode, struct mode_run *mr)
{
	struct opts o = *po;
	const struct reis_dlrm_cfg cfg = *pcfg;
	struct reis_rf_table *desc = NULL;
	struct reis_rf_trace **tr = NULL;
	struct reis_rf_sls_op *ops = NULL;
	struct reis_rf_deploy_opts dopt;
	void **wire = NULL;
	float **emb = NULL, **ref = NULL, *dense = NULL, *p_dev = NULL, *p_ref = NULL, *rows = NULL;
	uint32_t *offs = NULL, **idx = NULL;
	uint64_t flash_ns = 0, flash_pj = 0, page_reads = 0, hits = 0, lookups = 0;
	uint32_t t, b, s, rb;
	int ret, rc = 1, mismatches = 0, deployed = 0;
	double mlp_s = 0, t0;

	o.mode = mode;
	memset(mr, 0, sizeof(*mr));
	mr->mode = mode;
	printf("\n== %s: tables deployed in %s mode ==\n", mode_name(mode),
	       mode == REIS_RF_RECSSD ? "recssd" : mode == REIS_RF_RMSSD ? "rmssd" : "recflash");
	rb = (uint32_t)reis_rf_row_bytes(o.dtype, cfg.dim);
	desc = calloc(cfg.ntables, sizeof(*desc));
	tr = calloc(cfg.ntables, sizeof(*tr));
	ops = calloc(cfg.ntables, sizeof(*ops));
	wire = calloc(cfg.ntables, sizeof(*wire));
	emb = calloc(cfg.ntables, sizeof(*emb));
	ref = calloc(cfg.ntables, sizeof(*ref));
	idx = calloc(cfg.ntables, sizeof(*idx));
	dense = malloc(sizeof(float) * o.batch * cfg.bot[0]);
	p_dev = malloc(sizeof(float) * o.batch);
	p_ref = malloc(sizeof(float) * o.batch);
	offs = malloc(sizeof(uint32_t) * (o.batch + 1));
	rows = malloc(sizeof(float) * (size_t)cfg.rows * cfg.dim);
	if (!desc || !tr || !ops || !wire || !emb || !ref || !idx || !dense || !p_dev ||
	    !p_ref || !offs || !rows)
		goto oom;
	for (b = 0; b <= o.batch; b++)
		offs[b] = b * cfg.lookups;

	/* Tables: generated rows (DLRM-sized values), traces, profiles. */
	for (t = 0; t < cfg.ntables; t++) {
		struct reis_rf_trace_opts to;
		uint32_t *sample;
		size_t plen = (size_t)cfg.lookups * o.batch * 8;

		wire[t] = malloc((size_t)cfg.rows * rb);
		emb[t] = malloc(sizeof(float) * o.batch * cfg.dim);
		ref[t] = malloc(sizeof(float) * o.batch * cfg.dim);
		idx[t] = malloc(sizeof(uint32_t) * o.batch * cfg.lookups);
		if (!wire[t] || !emb[t] || !ref[t] || !idx[t])
			goto oom;
		reis_rf_fill_random(o.seed * 1000 + t, rows, (size_t)cfg.rows * cfg.dim, 0.05f);
		if (reis_rf_quantize(o.dtype, cfg.rows, cfg.dim, rows, wire[t]))
			goto oom;
		memset(&to, 0, sizeof(to));
		to.rows = cfg.rows;
		to.k = o.k;
		to.seed = o.seed * 1000 + t;
		if (reis_rf_trace_open(&to, &tr[t]))
			goto oom;
		desc[t].tid = o.tid_base + t;
		desc[t].rows = cfg.rows;
		desc[t].dim = cfg.dim;
		desc[t].dtype = o.dtype;
		desc[t].mode = o.mode;
		desc[t].data = wire[t];
		desc[t].name = "dlrm_demo";
		if (o.mode == REIS_RF_RECFLASH) {
			/* A sampled "training" trace: the beginning of the same stream. */
			sample = malloc(sizeof(uint32_t) * plen);
			if (!sample)
				goto oom;
			reis_rf_trace_next(tr[t], sample, plen);
			desc[t].profile = malloc(sizeof(uint32_t) * cfg.rows);
			if (!desc[t].profile) {
				free(sample);
				goto oom;
			}
			memset((void *)(uintptr_t)desc[t].profile, 0, sizeof(uint32_t) * cfg.rows);
			reis_rf_profile_count(sample, plen, cfg.rows,
					      (uint32_t *)(uintptr_t)desc[t].profile);
			free(sample);
		}
	}
	free(rows);
	rows = NULL;
	/* A table left by an interrupted run would make the deploy fail. */
	for (t = 0; t < cfg.ntables; t++)
		reis_rf_delete(dev, desc[t].tid);
	memset(&dopt, 0, sizeof(dopt));
	dopt.depth = 8;
	ret = reis_rf_deployv(dev, desc, cfg.ntables, &dopt);
	if (ret) {
		fprintf(stderr, "dlrm_demo: deploy: %s\n", reis_last_error(dev));
		goto out;
	}
	deployed = 1;
	printf("deployed %u tables: %" PRIu64 " bytes in %u commands, modeled %.3f ms\n",
	       cfg.ntables, dopt.bytes, dopt.ncmds, (double)dopt.time_ns / 1e6);

	for (b = 0; b < o.batches; b++) {
		struct reis_rf_bags bags;

		reis_rf_fill_random(o.seed * 7919 + b, dense, (size_t)o.batch * cfg.bot[0], 1.0f);
		bags.nbags = o.batch;
		bags.nidx = o.batch * cfg.lookups;
		bags.offsets = offs;
		bags.weights = NULL;
		/* Every table's SLS in flight together. */
		for (t = 0; t < cfg.ntables; t++) {
			reis_rf_trace_next(tr[t], idx[t], (size_t)o.batch * cfg.lookups);
			bags.indices = idx[t];
			reis_rf_sls_op_init(&ops[t], desc[t].tid, cfg.dim, &bags, 0, emb[t]);
			ret = reis_rf_sls_submit(dev, &ops[t]);
			if (ret) {
				fprintf(stderr, "dlrm_demo: SLS: %s\n", reis_last_error(dev));
				while (t--)
					reis_rf_sls_wait(dev, &ops[t], -1);
				goto out;
			}
		}
		for (t = 0; t < cfg.ntables; t++) {
			ret = reis_rf_sls_wait(dev, &ops[t], -1);
			if (ret) {
				fprintf(stderr, "dlrm_demo: SLS table %u: %s\n", desc[t].tid,
					reis_last_error(dev));
				for (t++; t < cfg.ntables; t++)
					reis_rf_sls_wait(dev, &ops[t], -1);
				goto out;
			}
			flash_ns += ops[t].info.flash_ns;
			flash_pj += ops[t].info.flash_pj;
			page_reads += ops[t].info.page_reads;
			hits += ops[t].info.cache_hits;
			lookups += ops[t].info.lookups;
			bags.indices = idx[t];
			reis_rf_sls_ref(o.dtype, cfg.rows, cfg.dim, wire[t], &bags, 0, ref[t]);
		}
		t0 = now_s();
		reis_dlrm_forward(model, o.batch, dense, (const float *const *)emb, p_dev);
		mlp_s += now_s() - t0;
		reis_dlrm_forward(model, o.batch, dense, (const float *const *)ref, p_ref);
		for (s = 0; s < o.batch; s++)
			mismatches += p_dev[s] != p_ref[s];
		if (!o.quiet) {
			printf("batch %u: p(click) =", b);
			for (s = 0; s < o.batch && s < 8; s++)
				printf(" %.4f", (double)p_dev[s]);
			printf("%s\n", o.batch > 8 ? " ..." : "");
		}
	}
	printf("embedding stage in the drive: %" PRIu64 " lookups, %" PRIu64 " page reads, %"
	       PRIu64 " cache hits; modeled %.3f ms and %.3f mJ per batch (summed over "
	       "tables); host MLP %.3f ms per batch\n", lookups, page_reads, hits,
	       (double)flash_ns / 1e6 / o.batches, (double)flash_pj / 1e9 / o.batches,
	       mlp_s * 1e3 / o.batches);
	if (mismatches)
		printf("FAIL: %d of %u probabilities differ from the host-only inference\n",
		       mismatches, o.batch * o.batches);
	else
		printf("OK: all %u probabilities equal the host-only inference\n",
		       o.batch * o.batches);
	mr->flash_ns = flash_ns;
	mr->flash_pj = flash_pj;
	mr->page_reads = page_reads;
	mr->hits = hits;
	mr->lookups = lookups;
	mr->mlp_s = mlp_s;
	mr->mismatches = mismatches;
	rc = mismatches != 0;
	goto out;
oom:
	fprintf(stderr, "dlrm_demo: out of memory (try a smaller --rows)\n");
out:
	if (deployed)
		for (t = 0; t < cfg.ntables; t++)
			reis_rf_delete(dev, desc[t].tid);
	for (t = 0; desc && wire && emb && ref && idx && tr && t < cfg.ntables; t++) {
		free((void *)(uintptr_t)desc[t].profile);
		free(wire[t]);
		free(emb[t]);
		free(ref[t]);
		free(idx[t]);
		reis_rf_trace_close(tr[t]);
	}
	free(desc);
	free(tr);
	free(ops);
	free(wire);
	free(emb);
	free(ref);
	free(idx);
	free(dense);
	free(p_dev);
	free(p_ref);
	free(offs);
	free(rows);
	return rc;
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
	int rc = 0;
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
	dev = open_drive(&o);
	if (!dev)
		return 1;
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
		printf("\n== side by side, per batch of %u (embedding stage modeled in the drive, "
		       "MLPs measured on this CPU) ==\n", o.batch);
		printf("%-12s %14s %12s %11s %11s %12s %14s\n", "mode", "embedding ms", "mJ",
		       "page reads", "cache hits", "host MLP ms", "total ms");
		for (i = 0; i < n; i++) {
			const struct mode_run *r = &runs[i];
			double ems = (double)r->flash_ns / 1e6 / o.batches;
			double mlp = r->mlp_s * 1e3 / o.batches;

			printf("%-12s %14.3f %12.3f %11.0f %11.0f %12.3f %14.3f\n",
			       mode_name(r->mode), ems, (double)r->flash_pj / 1e9 / o.batches,
			       (double)r->page_reads / o.batches, (double)r->hits / o.batches, mlp,
			       ems + mlp);
		}
		printf("(the embedding stage and the MLPs run one after the other; "
		       "RecFlash Fig. 10 compares the same three)\n");
	}
	reis_dlrm_close(model);
	reis_close(dev);
	return rc;
}
