/* SPDX-License-Identifier: MIT */
/*
 * bench_rf_embedding - RecFlash IV-B on the emulated drive: the modeled
 * embedding-stage latency and read energy of DLRM RMC1-3 (Table II) for the
 * RecSSD-like, RM-SSD-like and RecFlash modes side by side, swept over the
 * trace locality K (0, 0.3, 0.8, 1, 2 = 8 %..66 % unique accesses) on the
 * recflash-tlc, -slc and -qlc presets (Table III), with the reductions the
 * paper reports printed beside ours, and the host CPU time the emulator
 * spends per SLS batch.
 *
 *   1. per preset and model, an in-process drive in delay mode (each
 *      command completes after its modeled time, so the next one finds the
 *      flash idle); per mode, deploy the model's tables in row order;
 *   2. per K and table, a seeded locality-K trace: a 20-batch prefix (the
 *      "sampled training set"), one warm-up batch, then --batches measured
 *      batches of --batch samples x `lookups` indices; every mode sees the
 *      same indices. RecFlash-mode tables are re-placed per K with PROFILE +
 *      REMAP FULL + SWITCH twice: from the prefix's counts ("RecFl", what a
 *      deployment can know) and from the measured bags' own counts
 *      ("RecFl*", an oracle placement: the upper bound);
 *   3. latency = the modeled flash time of the embedding stage summed over
 *      the tables' SLS commands (flash_ns; tables one after another),
 *      energy = its read energy (flash_pj); reductions are against RM-SSD.
 *
 * Rows per table default to 262144, a quarter of the paper's 1 M (IV-A), so
 * all three models, presets and five K values finish in about 10 minutes
 * within 3 GiB (RMC2's 32 tables dominate); --rows 1000000 runs the paper
 * size (one mode's tables are in the drive at a time: RMC1 or RMC3 fp32 in
 * about 2 GiB, 4 minutes for both on TLC). Small tables flatter the
 * row-order baselines: a batch then touches most of a die's few pages.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libreis.h"

#define NK 5
#define NMODES 3

static const double ks[NK] = { 0, 0.3, 0.8, 1, 2 };

/*
 * The paper's reductions of RecFlash against RM-SSD (RecFlash IV-B).
 * TLC latency: "a latency reduction of 78% to 91.4%" (RMC2), "54.4% to
 * 68.4% and 64.2% to 77%" (RMC1, RMC3). TLC energy: "up to 91.9%" (RMC2),
 * "up to 69.5% and 77.7%" (RMC1, RMC3). SLC: "approximately 54%, 77%, and
 * 62%" on average; QLC: "around 66%, 89%, and 75%".
 */
static const char *paper_latency(const char *media, unsigned model)
{
	static const char *const tlc[3] = { "54.4-68.4", "78-91.4", "64.2-77" };
	static const char *const slc[3] = { "~54 (avg)", "~77 (avg)", "~62 (avg)" };
	static const char *const qlc[3] = { "~66 (avg)", "~89 (avg)", "~75 (avg)" };

	if (!strcmp(media, "tlc"))
		return tlc[model];
	return !strcmp(media, "slc") ? slc[model] : qlc[model];
}

static const char *paper_energy(const char *media, unsigned model)
{
	static const char *const tlc[3] = { "<=69.5", "<=91.9", "<=77.7" };

	return !strcmp(media, "tlc") ? tlc[model] : "-";
}

struct cell {
	uint64_t flash_ns, flash_pj, page_reads, hits, misses, lookups;
	uint64_t sensed, useful, cpu_ns, batches;
};

struct opts {
	uint32_t rows, batch, batches, profile_batches, sd_mean;
	const char *media[3];
	unsigned nmedia;
	unsigned models[3], nmodels;
	int csv;
};

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Run bags from @blk (warm-up batch first) on table @tid into @cl. */
static int run_block(const struct opts *o, struct reis_dev *dev, const struct reis_dlrm_cfg *c,
		     uint32_t tid, const uint32_t *blk, const uint32_t *offs, float *res,
		     struct cell *cl)
{
	const size_t per = (size_t)o->batch * c->lookups;
	unsigned b;
	int ret;

	for (b = 0; b <= o->batches; b++) {
		struct reis_rf_bags bags = { o->batch, (uint32_t)per, offs, blk + b * per, NULL };
		struct reis_rf_sls_info in;
		uint64_t c0 = cpu_ns();

		ret = reis_rf_sls(dev, tid, c->dim, &bags, 0, res, &in);
		if (ret) {
			fprintf(stderr, "bench: sls: %s\n", reis_last_error(dev));
			return ret;
		}
		if (!b)
			continue;	/* warm-up: fills the page cache */
		cl->cpu_ns += cpu_ns() - c0;
		cl->flash_ns += in.flash_ns;
		cl->flash_pj += in.flash_pj;
		cl->page_reads += in.page_reads;
		cl->hits += in.cache_hits;
		cl->misses += in.cache_misses;
		cl->lookups += in.lookups;
		cl->sensed += in.bytes_sensed;
		cl->useful += in.bytes_useful;
	}
	cl->batches = o->batches;
	return 0;
}

static int place(struct reis_dev *dev, uint32_t tid, const uint32_t *acc, size_t n,
		 uint32_t rows, uint32_t *counts)
{
	int ret;

	memset(counts, 0, sizeof(uint32_t) * (size_t)rows);
	reis_rf_profile_count(acc, n, rows, counts);
	ret = reis_rf_profile(dev, tid, counts, rows);
	if (!ret)
		ret = reis_rf_remap(dev, tid, REIS_RF_REMAP_FULL | REIS_RF_REMAP_SWITCH, NULL);
	if (ret)
		fprintf(stderr, "bench: remap: %s\n", reis_last_error(dev));
	return ret;
}

/*
 * One mode's tables on @dev, every K. RecFlash mode fills @out (profile of
 * the trace prefix) and @oracle (profile of the measured bags themselves).
 */
static int run_mode(const struct opts *o, struct reis_dev *dev, const struct reis_dlrm_cfg *c,
		    uint32_t mode, struct cell out[NK], struct cell oracle[NK])
{
	const uint32_t tid0 = 0xbe00;
	const size_t per = (size_t)o->batch * c->lookups;
	const size_t plen = per * o->profile_batches, blen = per * (o->batches + 1);
	struct reis_rf_table *d = calloc(c->ntables, sizeof(*d));
	uint32_t *offs = malloc(sizeof(uint32_t) * (o->batch + 1));
	uint32_t *pre = malloc(sizeof(uint32_t) * plen);
	uint32_t *blk = malloc(sizeof(uint32_t) * blen);
	uint32_t *counts = malloc(sizeof(uint32_t) * (size_t)c->rows);
	int rb = reis_rf_row_bytes(REIS_RF_FP32, c->dim), ret = -ENOMEM;
	float *res = malloc(sizeof(float) * o->batch * c->dim);
	struct reis_rf_deploy_opts dopt;
	unsigned t, k, b;
	void *rows = NULL;

	if (!d || !offs || !pre || !blk || !counts || !res)
		goto out;
	rows = malloc((size_t)c->rows * (size_t)rb);
	if (!rows)
		goto out;
	/* Content does not change the model's cost: a cheap pattern. */
	for (size_t i = 0; i < (size_t)c->rows * c->dim; i++)
		((float *)rows)[i] = (float)(i % 97) * 0.001f;
	for (b = 0; b <= o->batch; b++)
		offs[b] = b * c->lookups;
	for (t = 0; t < c->ntables; t++) {
		d[t].tid = tid0 + t;
		d[t].rows = c->rows;
		d[t].dim = c->dim;
		d[t].dtype = REIS_RF_FP32;
		d[t].mode = mode;
		d[t].data = rows;
		d[t].name = "bench";
	}
	memset(&dopt, 0, sizeof(dopt));
	dopt.depth = 8;
	ret = reis_rf_deployv(dev, d, c->ntables, &dopt);
	free(rows);
	rows = NULL;
	if (ret) {
		fprintf(stderr, "bench: deploy: %s\n", reis_last_error(dev));
		goto out;
	}
	for (k = 0; k < NK; k++) {
		memset(&out[k], 0, sizeof(out[k]));
		memset(&oracle[k], 0, sizeof(oracle[k]));
		for (t = 0; t < c->ntables; t++) {
			struct reis_rf_trace_opts to;
			struct reis_rf_trace *tr;

			memset(&to, 0, sizeof(to));
			to.rows = c->rows;
			to.k = ks[k];
			to.seed = 1000 * t + k + 1;
			to.sd_mean = o->sd_mean;
			if ((ret = reis_rf_trace_open(&to, &tr)))
				goto out;
			/* The sampled "training" prefix, then what is measured. */
			reis_rf_trace_next(tr, pre, plen);
			reis_rf_trace_next(tr, blk, blen);
			reis_rf_trace_close(tr);
			if (mode == REIS_RF_RECFLASH &&
			    (ret = place(dev, d[t].tid, pre, plen, c->rows, counts)))
				goto out;
			ret = run_block(o, dev, c, d[t].tid, blk, offs, res, &out[k]);
			if (ret)
				goto out;
			if (mode != REIS_RF_RECFLASH)
				continue;
			ret = place(dev, d[t].tid, blk, blen, c->rows, counts);
			if (!ret)
				ret = run_block(o, dev, c, d[t].tid, blk, offs, res, &oracle[k]);
			if (ret)
				goto out;
		}
	}
	ret = 0;
out:
	if (d)
		for (t = 0; t < c->ntables; t++)
			reis_rf_delete(dev, tid0 + t);
	free(d);
	free(offs);
	free(pre);
	free(blk);
	free(counts);
	free(res);
	free(rows);
	return ret;
}

static double util(const struct cell *c)
{
	return c->sensed ? (double)c->useful / (double)c->sensed : 0;
}

static double hit(const struct cell *c)
{
	return c->hits + c->misses ? (double)c->hits / (double)(c->hits + c->misses) : 0;
}

static double red(uint64_t base, uint64_t x)
{
	return base ? 100.0 * (1.0 - (double)x / (double)base) : 0;
}

static double unique_rate(double k, uint32_t rows, size_t n, uint32_t sd_mean)
{
	struct reis_rf_trace_opts to;
	struct reis_rf_trace *tr;
	uint32_t *idx = malloc(sizeof(uint32_t) * n);
	double u = 0;

	memset(&to, 0, sizeof(to));
	to.rows = rows;
	to.k = k;
	to.seed = 1;
	to.sd_mean = sd_mean;
	if (idx && !reis_rf_trace_open(&to, &tr)) {
		reis_rf_trace_next(tr, idx, n);
		u = reis_rf_unique_rate(idx, n, rows);
		reis_rf_trace_close(tr);
	}
	free(idx);
	return u;
}

static int bench(const struct opts *o, const char *media, unsigned model)
{
	static const char *const models[3] = { "rmc1", "rmc2", "rmc3" };
	struct cell cells[NMODES + 2][NK];	/* [4]: RecFlash, oracle profile */
	struct reis_inproc_opts io;
	struct reis_dlrm_cfg c;
	struct reis_dev *dev;
	char preset[32], err[256] = "";
	unsigned m, k;
	int ret;

	reis_dlrm_preset(models[model], &c);
	c.rows = o->rows;
	snprintf(preset, sizeof(preset), "recflash-%s", media);
	memset(&io, 0, sizeof(io));
	io.preset = preset;
	/*
	 * Each command completes once its modeled time has passed, so the next
	 * one finds the flash idle: flash_ns is the command's own time, not
	 * time spent queueing behind a backlog the emulator ran ahead of.
	 */
	io.flags = REIS_INPROC_DELAY;
	/* Room for 32 RecFlash tables of two block stripes and their remaps. */
	io.params = "blocks_per_plane=256";
	io.errbuf = err;
	io.errlen = sizeof(err);
	ret = reis_open_inproc(&io, &dev);
	if (ret) {
		fprintf(stderr, "bench: %s: %s\n", preset, err[0] ? err : reis_strerror(ret));
		return ret;
	}
	if (!(reis_dev_info(dev)->caps & REIS_CAP_RECFLASH)) {
		reis_close(dev);
		return -ENOSYS;
	}
	for (m = 1; m <= NMODES; m++) {
		ret = run_mode(o, dev, &c, m, cells[m], cells[4]);
		if (ret) {
			reis_close(dev);
			return ret;
		}
	}
	reis_close(dev);

	if (!o->csv) {
		printf("\n%s %s: %u tables x %u rows x %u dim fp32, %u lookups, batch %u, "
		       "%u batches per K; per batch: modeled embedding stage (ms), read energy "
		       "(mJ); RecFl = profile of the trace prefix, RecFl* = profile of the "
		       "measured bags\n", preset, c.name, c.ntables, c.rows, c.dim, c.lookups,
		       o->batch, o->batches);
		printf("%-3s %6s | %8s %8s %8s %8s | %6s %6s %-10s | %8s %8s %8s %8s | %5s %5s "
		       "%-7s | %5s %5s %5s | %6s\n", "K", "uniq%", "RecSSD", "RM-SSD", "RecFl",
		       "RecFl*", "red%", "red%*", "paper red%", "RecSSD", "RM-SSD", "RecFl",
		       "RecFl*", "Ered%", "Ered*", "paper E", "util%", "util*", "hit%*", "cpu ms");
	}
	for (k = 0; k < NK; k++) {
		const struct cell *a = &cells[1][k], *r = &cells[2][k], *f = &cells[3][k];
		const struct cell *x = &cells[4][k];
		double nb = (double)o->batches;
		/* The generator's long-run rate (the bench's short window adds the
		 * working set it starts from). */
		double uq = unique_rate(ks[k], c.rows, 1000000, o->sd_mean);

		if (o->csv) {
			printf("%s,%s,%u,%.1f,%.4f,%.6f,%.6f,%.6f,%.6f,%.2f,%.2f,%.6f,%.6f,%.6f,%.6f,"
			       "%.2f,%.2f,%.4f,%.4f,%.4f,%.3f\n", media, c.name, c.rows, ks[k], uq,
			       (double)a->flash_ns / 1e6 / nb, (double)r->flash_ns / 1e6 / nb,
			       (double)f->flash_ns / 1e6 / nb, (double)x->flash_ns / 1e6 / nb,
			       red(r->flash_ns, f->flash_ns), red(r->flash_ns, x->flash_ns),
			       (double)a->flash_pj / 1e9 / nb, (double)r->flash_pj / 1e9 / nb,
			       (double)f->flash_pj / 1e9 / nb, (double)x->flash_pj / 1e9 / nb,
			       red(r->flash_pj, f->flash_pj), red(r->flash_pj, x->flash_pj),
			       util(r), util(f), hit(x),
			       (double)(a->cpu_ns + r->cpu_ns + f->cpu_ns + x->cpu_ns) / 4e6 / nb);
			continue;
		}
		printf("%-3.1f %6.1f | %8.3f %8.3f %8.3f %8.3f | %6.1f %6.1f %-10s | %8.2f %8.2f "
		       "%8.2f %8.2f | %5.1f %5.1f %-7s | %5.2f %5.2f %5.1f | %6.2f\n", ks[k],
		       100 * uq, (double)a->flash_ns / 1e6 / nb, (double)r->flash_ns / 1e6 / nb,
		       (double)f->flash_ns / 1e6 / nb, (double)x->flash_ns / 1e6 / nb,
		       red(r->flash_ns, f->flash_ns), red(r->flash_ns, x->flash_ns),
		       k ? "" : paper_latency(media, model), (double)a->flash_pj / 1e9 / nb,
		       (double)r->flash_pj / 1e9 / nb, (double)f->flash_pj / 1e9 / nb,
		       (double)x->flash_pj / 1e9 / nb, red(r->flash_pj, f->flash_pj),
		       red(r->flash_pj, x->flash_pj), k ? "" : paper_energy(media, model),
		       100 * util(f), 100 * util(x), 100 * hit(x),
		       (double)(a->cpu_ns + r->cpu_ns + f->cpu_ns + x->cpu_ns) / 4e6 / nb);
	}
	fflush(stdout);
	return 0;
}

static int parse_list(char *s, const char *const *names, unsigned n, unsigned *out,
		      unsigned *nout)
{
	char *tok, *save = NULL;
	unsigned i;

	*nout = 0;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < n && strcmp(tok, names[i]); i++)
			;
		if (i == n || *nout >= n)
			return -1;
		out[(*nout)++] = i;
	}
	return *nout ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const char *const media_names[3] = { "tlc", "slc", "qlc" };
	static const char *const model_names[3] = { "rmc1", "rmc2", "rmc3" };
	static const struct option lo[] = {
		{ "rows", required_argument, NULL, 'r' },
		{ "batch", required_argument, NULL, 'b' },
		{ "batches", required_argument, NULL, 'n' },
		{ "profile-batches", required_argument, NULL, 'p' },
		{ "media", required_argument, NULL, 'm' },
		{ "models", required_argument, NULL, 'M' },
		{ "sd-mean", required_argument, NULL, 's' },
		{ "csv", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o;
	unsigned mi[3], i, j;
	uint64_t t0;
	char *end;
	int opt, ret;

	memset(&o, 0, sizeof(o));
	o.rows = 262144;
	o.batch = 16;
	o.batches = 3;
	o.profile_batches = 20;
	o.media[0] = "tlc", o.media[1] = "slc", o.media[2] = "qlc";
	o.nmedia = 3;
	o.models[0] = 0, o.models[1] = 1, o.models[2] = 2;
	o.nmodels = 3;
	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		unsigned long v;

		switch (opt) {
		case 's':
			errno = 0;
			v = strtoul(optarg, &end, 0);
			if (errno || *end || end == optarg || !v || v > REIS_RF_TRACE_SD_MAX) {
				fprintf(stderr, "bench: --sd-mean must be 1..%u\n",
					REIS_RF_TRACE_SD_MAX);
				return 2;
			}
			o.sd_mean = (uint32_t)v;
			break;
		case 'r': case 'b': case 'n': case 'p':
			errno = 0;
			v = strtoul(optarg, &end, 0);
			if (errno || *end || end == optarg || !v ||
			    v > (opt == 'r' ? 1u << 26 : opt == 'b' ? 4096u : 10000u)) {
				fprintf(stderr, "bench: bad --%s\n", opt == 'r' ? "rows" :
					opt == 'b' ? "batch" : opt == 'n' ? "batches" :
					"profile-batches");
				return 2;
			}
			if (opt == 'r')
				o.rows = (uint32_t)v;
			else if (opt == 'b')
				o.batch = (uint32_t)v;
			else if (opt == 'n')
				o.batches = (uint32_t)v;
			else
				o.profile_batches = (uint32_t)v;
			break;
		case 'm':
			if (parse_list(optarg, media_names, 3, mi, &o.nmedia)) {
				fprintf(stderr, "bench: --media is a list of tlc, slc, qlc\n");
				return 2;
			}
			for (i = 0; i < o.nmedia; i++)
				o.media[i] = media_names[mi[i]];
			break;
		case 'M':
			if (parse_list(optarg, model_names, 3, o.models, &o.nmodels)) {
				fprintf(stderr, "bench: --models is a list of rmc1, rmc2, rmc3\n");
				return 2;
			}
			break;
		case 'c': o.csv = 1; break;
		case 'h':
			printf("usage: bench_rf_embedding [--rows N] [--batch N] [--batches N]\n"
			       "       [--profile-batches N] [--sd-mean N] [--media tlc,slc,qlc]\n"
			       "       [--models rmc1,rmc2,rmc3] [--csv]\n");
			return 0;
		default:
			return 2;
		}
	}
	if (o.csv)
		printf("media,model,rows,k,unique,recssd_ms,rmssd_ms,recflash_ms,oracle_ms,"
		       "red,red_oracle,recssd_mj,rmssd_mj,recflash_mj,oracle_mj,energy_red,"
		       "energy_red_oracle,util_rmssd,util_recflash,hit_oracle,cpu_ms_per_batch\n");
	t0 = (uint64_t)time(NULL);
	for (i = 0; i < o.nmedia; i++)
		for (j = 0; j < o.nmodels; j++) {
			ret = bench(&o, o.media[i], o.models[j]);
			if (ret == -ENOSYS) {
				printf("bench_rf_embedding: the drive has no RecFlash engine; "
				       "skipped\n");
				return 0;
			}
			if (ret)
				return 1;
		}
	if (!o.csv)
		printf("\n(%" PRIu64 " s; reductions in %% of RecFlash against RM-SSD / RecSSD; "
		       "paper columns quote RecFlash IV-B)\n", (uint64_t)time(NULL) - t0);
	return 0;
}
