/* SPDX-License-Identifier: MIT */
/*
 * cli_group_bench.c - `reis group bench`: the member-count sweep of a
 * sharded REIS search and a sharded RecFlash SLS on in-process drives
 * (QPS and latency, modeled and wall, merge overhead), then the scheduled
 * run over the host and the largest group with its batch ratio and the
 * Solana Table-I summary (docs/group.md, Measurements).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libreis_tools.h"
#include "cli_util.h"
#include "cli_group.h"

struct gb_args {
	unsigned members[16];
	unsigned nmembers;
	uint64_t n, dim, nq, k, nlist, batch, rows, rf_dim, what_if;
	const char *preset;
	const char *plot;	/* --plot FILE.svg */
};

struct gb_data {
	struct reis_db_image img;
	struct reis_queries q;
	float *rf_rows;
	struct reis_rf_bags bags;
	uint32_t *off, *idx;
};

static int gb_members(const char *s, struct gb_args *a)
{
	char *dup = strdup(s), *tok, *save = NULL;
	uint64_t v;

	a->nmembers = 0;
	for (tok = dup ? strtok_r(dup, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
		if (a->nmembers == 16 || parse_u64(tok, 1, REIS_GROUP_MAX, &v)) {
			free(dup);
			return usage_err("group bench: --members takes up to 16 counts in 1..%u",
					 REIS_GROUP_MAX);
		}
		a->members[a->nmembers++] = (unsigned)v;
	}
	free(dup);
	return a->nmembers ? 0 : usage_err("group bench: empty --members");
}

static int gb_parse(int argc, char **argv, struct gb_args *a)
{
	static const struct option lo[] = {
		{ "members", required_argument, NULL, 'm' },
		{ "n", required_argument, NULL, 'n' },
		{ "dim", required_argument, NULL, 'd' },
		{ "nq", required_argument, NULL, 'q' },
		{ "k", required_argument, NULL, 'k' },
		{ "ivf", required_argument, NULL, 'I' },
		{ "batch", required_argument, NULL, 'b' },
		{ "rows", required_argument, NULL, 'r' },
		{ "rf-dim", required_argument, NULL, 'R' },
		{ "preset", required_argument, NULL, 'P' },
		{ "what-if", required_argument, NULL, 'W' },
		{ "plot", required_argument, NULL, 'G' },
		{ NULL, 0, NULL, 0 },
	};
	struct { int opt; uint64_t *dst, lo, hi; } num[] = {
		{ 'n', &a->n, 64, 1u << 26 }, { 'd', &a->dim, 64, REIS_DB_MAX_DIM },
		{ 'q', &a->nq, 1, 1u << 20 }, { 'k', &a->k, 1, 100 },
		{ 'I', &a->nlist, 1, REIS_DB_MAX_NLIST }, { 'b', &a->batch, 1, 4096 },
		{ 'r', &a->rows, 64, 1u << 26 }, { 'R', &a->rf_dim, 1, REIS_RF_MAX_DIM },
		{ 'W', &a->what_if, 1, UINT64_C(1) << 40 },
	};
	unsigned i;
	int opt, ret;

	memset(a, 0, sizeof(*a));
	a->n = 20000, a->dim = 256, a->nq = 256, a->k = 10, a->batch = 16;
	a->rows = 100000, a->rf_dim = 64;
	ret = gb_members("1,2,4,8", a);
	optind = 1;
	while ((opt = cli_getopt("group bench", argc, argv, "+", lo)) != -1) {
		if (opt == '?')
			return EXIT_USAGE;
		if (opt == 'm') {
			if ((ret = gb_members(optarg, a)))
				return ret;
			continue;
		}
		if (opt == 'P' || opt == 'G') {
			*(opt == 'P' ? &a->preset : &a->plot) = optarg;
			continue;
		}
		for (i = 0; i < sizeof(num) / sizeof(num[0]); i++)
			if (num[i].opt == opt)
				break;
		if (i == sizeof(num) / sizeof(num[0]))
			return usage_err("group bench: unknown option");
		if (parse_u64(optarg, num[i].lo, num[i].hi, num[i].dst)) {
			unsigned l = 0;

			while (lo[l].name && lo[l].val != opt)
				l++;
			return usage_err("group bench: --%s must be in %" PRIu64 "..%" PRIu64
					 ", not '%s'", lo[l].name ? lo[l].name : "?", num[i].lo,
					 num[i].hi, optarg);
		}
	}
	if (a->dim % 64)
		return usage_err("group bench: --dim %" PRIu64 " is not a multiple of 64",
				 a->dim);
	if (optind != argc)
		return usage_err("group bench: unexpected argument '%s'", argv[optind]);
	return ret;
}

static int gb_make(const struct gb_args *a, struct gb_data *d)
{
	struct reis_build_opts bo;
	float *x = malloc(a->n * a->dim * sizeof(float)), *qf;
	char err[256];
	int ret;

	qf = malloc(a->nq * a->dim * sizeof(float));
	if (!x || !qf) {
		free(x);
		free(qf);
		return -ENOMEM;
	}
	reis_rf_fill_random(1, x, a->n * a->dim, 1.0f);
	reis_rf_fill_random(2, qf, a->nq * a->dim, 1.0f);
	memset(&bo, 0, sizeof(bo));
	bo.did = 1;
	bo.kind = a->nlist ? REIS_DB_IVF : REIS_DB_BF;
	bo.nlist = (uint32_t)a->nlist;
	bo.flags = REIS_BUILD_INT8;
	bo.km.max_iter = 4;
	ret = reis_db_build(&bo, x, a->n, (uint32_t)a->dim, &d->img, err, sizeof(err));
	if (!ret)
		ret = reis_encode_queries(d->img.quant, qf, (uint32_t)a->nq, &d->q);
	free(x);
	free(qf);
	if (ret)
		return ret;
	d->rf_rows = malloc(a->rows * a->rf_dim * sizeof(float));
	d->off = malloc(257 * sizeof(uint32_t));
	d->idx = malloc(256 * 40 * sizeof(uint32_t));
	if (!d->rf_rows || !d->off || !d->idx)
		return -ENOMEM;
	reis_rf_fill_random(3, d->rf_rows, a->rows * a->rf_dim, 1.0f);
	{
		uint64_t s = 77;
		uint32_t i;

		/* 256 bags of 40 rows, DLRM-like pooling factor. */
		for (i = 0; i <= 256; i++)
			d->off[i] = i * 40;
		for (i = 0; i < 256 * 40; i++) {
			s ^= s << 13, s ^= s >> 7, s ^= s << 17;
			d->idx[i] = (uint32_t)((s >> 11) % a->rows);
		}
	}
	d->bags.nbags = 256;
	d->bags.nidx = 256 * 40;
	d->bags.offsets = d->off;
	d->bags.indices = d->idx;
	return 0;
}

struct gb_row {
	unsigned m;
	double model_ns, wall_ns, merge_ns, qps_model, qps_wall, qps_2ph;
	double rf_model_ns, rf_wall_ns, rf_combine_ns;
	uint64_t rf_to_host, rf_sensed, rf_pj, hits_moved;
};

/* @m in-process drives holding the database sharded, and its search options. */
static int gb_group(const struct gb_args *a, struct gb_data *d, unsigned m,
		    struct reis_group **g, struct reis_search_opts *o)
{
	int ret = grp_open_n(a->preset, m, g);

	if (ret)
		return ret;
	memset(o, 0, sizeof(*o));
	o->did = 1;
	o->k = (uint32_t)a->k;
	o->nprobe = a->nlist ? 8 : 0;
	ret = reis_group_db_deploy(*g, &d->img, NULL);
	if (ret) {
		cli_err("group bench, %u drives: %s", m, reis_group_errmsg(*g));
		reis_group_close(*g);
	}
	return ret;
}

static int gb_reis(const struct gb_args *a, struct gb_data *d, unsigned m, struct gb_row *row)
{
	struct reis_search_opts o;
	struct reis_group_result r;
	struct reis_group *g;
	int ret = gb_group(a, d, m, &g, &o);

	if (ret)
		return ret;
	ret = reis_group_search(g, !!a->nlist, &o, &d->q, 0, &r);
	if (!ret) {
		row->model_ns = (double)r.search_ns;
		row->wall_ns = (double)r.host_ns;
		row->merge_ns = (double)r.merge_ns;
		row->hits_moved = r.hits_moved;
		row->qps_model = a->nq * 1e9 / row->model_ns;
		row->qps_wall = a->nq * 1e9 / row->wall_ns;
		reis_group_result_free(&r);
		ret = reis_group_search(g, !!a->nlist, &o, &d->q, REIS_GROUP_TWO_PHASE, &r);
	}
	if (!ret) {
		/* Two commands per member and batch: both passes' modeled time. */
		row->qps_2ph = a->nq * 1e9 / (double)r.search_ns;
		reis_group_result_free(&r);
	}
	if (ret)
		cli_err("group bench, %u drives: %s", m, reis_group_errmsg(g));
	reis_group_close(g);
	return ret;
}

/*
 * The RecFlash table both SLS runs deploy, a group of @m drives and the
 * output buffer for every bag; on failure nothing is left open.
 */
static int gb_rf_open(const struct gb_args *a, const struct gb_data *d, unsigned m,
		      struct reis_group **g, struct reis_rf_table *t, float **out)
{
	int ret;

	*out = malloc((size_t)d->bags.nbags * a->rf_dim * sizeof(float));
	ret = *out ? grp_open_n(a->preset, m, g) : -ENOMEM;
	if (ret) {
		free(*out);
		*out = NULL;
		return ret;
	}
	memset(t, 0, sizeof(*t));
	t->tid = 1;
	t->rows = (uint32_t)a->rows;
	t->dim = (uint32_t)a->rf_dim;
	t->dtype = REIS_RF_FP32;
	t->mode = REIS_RF_RECFLASH;
	t->data = d->rf_rows;
	return 0;
}

/* On drives of their own: a REIS batch would still occupy the dies. */
static int gb_rf(const struct gb_args *a, struct gb_data *d, unsigned m, struct gb_row *row)
{
	struct reis_group_sls_info in;
	struct reis_rf_table t;
	struct reis_group *g;
	float *out;
	unsigned s;
	int ret = gb_rf_open(a, d, m, &g, &t, &out);

	if (ret)
		return ret;
	ret = reis_group_rf_deploy(g, &t, NULL);
	if (!ret)
		ret = reis_group_rf_sls(g, 1, t.rows, t.dim, &d->bags, 0, out, &in);
	if (!ret) {
		row->rf_model_ns = (double)in.model_ns;
		row->rf_wall_ns = (double)in.host_ns;
		row->rf_combine_ns = (double)in.combine_ns;
		row->rf_to_host = in.bytes_to_host;
		row->rf_pj = in.energy_pj;
		for (s = 0; s < m; s++)
			row->rf_sensed += in.member[s].bytes_sensed;
	}
	if (ret)
		cli_err("group bench, %u drives: %s", m, reis_group_errmsg(g));
	reis_group_close(g);
	free(out);
	return ret;
}

static int gb_one(const struct gb_args *a, struct gb_data *d, unsigned m, struct gb_row *row)
{
	int ret;

	memset(row, 0, sizeof(*row));
	row->m = m;
	ret = gb_reis(a, d, m, row);
	return ret ? ret : gb_rf(a, d, m, row);
}

static void gb_print_rows(struct ctx *c, const struct gb_args *a, const struct gb_row *rw,
			  unsigned n)
{
	unsigned i;

	if (c->json) {
		j_arr("sweep");
		for (i = 0; i < n; i++) {
			j_obj(NULL);
			j_u64("drives", rw[i].m);
			j_g("search_qps_modeled", rw[i].qps_model);
			j_g("search_qps_wall", rw[i].qps_wall);
			j_g("search_qps_modeled_two_phase", rw[i].qps_2ph);
			j_g("search_batch_latency_us_modeled", rw[i].model_ns / 1e3);
			j_g("search_batch_latency_us_wall", rw[i].wall_ns / 1e3);
			j_g("merge_us", rw[i].merge_ns / 1e3);
			j_u64("hits_moved", rw[i].hits_moved);
			j_g("sls_bags_per_s_modeled", 256e9 / rw[i].rf_model_ns);
			j_g("sls_bags_per_s_wall", 256e9 / rw[i].rf_wall_ns);
			j_g("sls_combine_us", rw[i].rf_combine_ns / 1e3);
			j_u64("sls_bytes_sensed_inside", rw[i].rf_sensed);
			j_u64("sls_bytes_to_host", rw[i].rf_to_host);
			j_obj_end();
		}
		j_arr_end();
		return;
	}
	printf("REIS %s, %" PRIu64 " x %" PRIu64 "-d entries, %" PRIu64 " queries, k=%" PRIu64
	       "; RecFlash %" PRIu64 " x %" PRIu64 " fp32 rows, 256 bags of 40\n",
	       a->nlist ? "IVF" : "brute force", a->n, a->dim, a->nq, a->k, a->rows, a->rf_dim);
	printf("%6s %10s %10s %10s %11s %11s %9s %11s %11s %11s %10s\n", "drives",
	       "q/s model", "q/s 2phase", "q/s wall", "lat us mod", "lat us wall", "merge us",
	       "bags/s mod", "bags/s wall", "sensed B", "to host B");
	for (i = 0; i < n; i++)
		printf("%6u %10.0f %10.0f %10.0f %11.1f %11.1f %9.1f %11.0f %11.0f %11" PRIu64
		       " %10" PRIu64 "\n", rw[i].m, rw[i].qps_model, rw[i].qps_2ph, rw[i].qps_wall,
		       rw[i].model_ns / 1e3, rw[i].wall_ns / 1e3, rw[i].merge_ns / 1e3,
		       256e9 / rw[i].rf_model_ns, 256e9 / rw[i].rf_wall_ns, rw[i].rf_sensed,
		       rw[i].rf_to_host);
}

/*
 * --plot: the sweep as a gnuplot SVG (searches and bags per second, modeled
 * and wall, against the member count), the rows inline. 0, or -errno with a
 * message.
 */
static int gb_plot(const struct gb_args *a, const struct gb_row *rw, unsigned n)
{
	char cmd[64];
	FILE *g;
	unsigned i;
	int st;

	snprintf(cmd, sizeof(cmd), "gnuplot 1>&2");	/* its words on stderr: stdout may be JSON */
	if (system("command -v gnuplot >/dev/null 2>&1")) {
		cli_errno(-ENOENT, "group bench: --plot: gnuplot missing (scripts/setup-deps.sh "
			  "installs gnuplot-nox)");
		return -ENOENT;
	}
	g = popen(cmd, "w");
	if (!g) {
		cli_errno(-errno, "group bench: --plot: %s", strerror(errno));
		return -EIO;
	}
	fprintf(g, "$d << EOD\n");
	for (i = 0; i < n; i++)
		fprintf(g, "%u %.0f %.0f %.0f %.0f %.0f\n", rw[i].m, rw[i].qps_model, rw[i].qps_2ph,
			rw[i].qps_wall, 256e9 / rw[i].rf_model_ns, 256e9 / rw[i].rf_wall_ns);
	fprintf(g, "EOD\n"
		"set terminal svg size 900,460 dynamic font \"sans,11\" noenhanced\n"
		"set output \"%s\"\n"
		"set multiplot layout 1,2 title \"reis group bench: %s %" PRIu64 " x %" PRIu64
		"-d, k=%" PRIu64 "; RecFlash %" PRIu64 " x %" PRIu64 " rows\"\n"
		"set xlabel \"drives\"\nset grid\nset key top left\nset logscale y\n"
		"set xtics (", a->plot, a->nlist ? "IVF" : "brute force", a->n, a->dim, a->k,
		a->rows, a->rf_dim);
	for (i = 0; i < n; i++)
		fprintf(g, "%s%u", i ? ", " : "", rw[i].m);
	fprintf(g, ")\n"
		"set title \"searches per second\"\n"
		"plot $d using 1:2 with linespoints lw 2 pt 7 title \"modeled\", "
		"$d using 1:3 with linespoints dt 2 title \"modeled, two-phase\", "
		"$d using 1:4 with linespoints pt 6 title \"wall (this CPU)\", "
		"$d using 1:2:(sprintf(\"%%.0f\", $2)) with labels offset 0,0.8 font \",8\" "
		"notitle\n"
		"set title \"SLS bags per second\"\n"
		"plot $d using 1:5 with linespoints lw 2 pt 7 title \"modeled\", "
		"$d using 1:6 with linespoints pt 6 title \"wall (this CPU)\", "
		"$d using 1:5:(sprintf(\"%%.0f\", $5)) with labels offset 0,0.8 font \",8\" "
		"notitle\n"
		"unset multiplot\n");
	st = pclose(g);
	if (st) {
		cli_errno(-EIO, "group bench: --plot: gnuplot failed (exit %d) writing %s", st,
			  a->plot);
		return -EIO;
	}
	return 0;
}

/* "53% saving", or what a negative saving means: more energy, not less. */
static const char *saving_text(double saving, char *buf, size_t len)
{
	if (saving >= 0)
		snprintf(buf, len, "%.0f%% saving", 100 * saving);
	else
		snprintf(buf, len, "no saving: %.2fx the host alone's energy", 1 - saving);
	return buf;
}

static void gb_print_sched(struct ctx *c, const char *what,
			   const struct reis_group_sched_report *p)
{
	int sls = !strcmp(what, "scheduled_sls");
	const char *unit = sls ? "bags" : "queries", *item = sls ? "bag" : "query";
	const char *call = sls ? "SLS" : "search";
	char s1[64], s2[64];

	if (c->json) {
		j_obj(what);
		j_u64("drives", p->nmembers);
		j_g("batch_ratio", p->ratio);
		j_u64("host_batch", p->host_batch);
		j_u64("drive_batch", p->drive_batch);
		j_g("qps", p->qps);
		j_g("host_alone_qps", p->host_alone_qps);
		j_g("one_drive_qps", p->one_drive_qps);
		j_g("drives_only_qps", p->drives_only_qps);
		j_g("speedup_vs_host", p->speedup_vs_host);
		j_g("speedup_vs_one_drive", p->speedup_vs_one_drive);
		j_g("processed_in_drives", p->inside_share);
		j_u64("bytes_inside", p->bytes_inside);
		j_u64("bytes_to_host", p->bytes_to_host);
		j_g("host_w", p->host_w);
		j_g("mj_per_query", p->mj_per_query);
		j_g("host_alone_mj_per_query", p->host_alone_mj_per_query);
		j_g("energy_saving", p->energy_saving);
		j_g("server_w", p->server_w);
		j_g("server_mj_per_query", p->server_mj_per_query);
		j_g("server_host_alone_mj_per_query", p->server_host_alone_mj_per_query);
		j_g("server_energy_saving", p->server_energy_saving);
		j_obj_end();
		return;
	}
	printf("\n%s (Solana IV-A) over the host and %u drives: batch ratio %.2f "
	       "(host batch %u, drive batch %u)\n", what, p->nmembers, p->ratio, p->host_batch,
	       p->drive_batch);
	printf("  Table I            | this run\n");
	/* The baselines measure different things: say which, so a one-drive
	 * rate above the drives-only one reads as batching, not a paradox. */
	printf("  throughput         | %.0f %s/s: the host and %u drives, scheduled\n", p->qps,
	       unit, p->nmembers);
	printf("  baselines          | host alone %.0f /s (estimated: its per-item time in "
	       "this run)\n",
	       p->host_alone_qps);
	if (p->one_drive_qps > 0)
		printf("                     | one drive holding everything %.0f /s (measured: "
		       "every %s in one %s on one drive)\n", p->one_drive_qps, item, call);
	else
		printf("                     | one drive holding everything: not measured\n");
	printf("                     | the %u drives without the host %.0f /s (estimated: the "
	       "slowest drive's rate in this run, batches of %u)\n", p->nmembers,
	       p->drives_only_qps, p->drive_batch);
	printf("  speedup            | %.2fx vs host alone, %.2fx vs one drive\n",
	       p->speedup_vs_host, p->speedup_vs_one_drive);
	printf("  processed in drives| %.0f%% of the items; %" PRIu64 " bytes inside, %" PRIu64
	       " bytes moved to the host\n", 100 * p->inside_share, p->bytes_inside,
	       p->bytes_to_host);
	printf("  energy per %-8s| dynamic: %.4f mJ with the drives, %.4f mJ host alone "
	       "(%s; host %.1f W per core)\n", item, p->mj_per_query, p->host_alone_mj_per_query,
	       saving_text(p->energy_saving, s1, sizeof(s1)), p->host_w);
	printf("                     | server (%.1f W idle): %.3f mJ with the drives, %.3f mJ "
	       "host alone (%s)\n", p->server_w, p->server_mj_per_query,
	       p->server_host_alone_mj_per_query,
	       saving_text(p->server_energy_saving, s2, sizeof(s2)));
}

static int gb_sched(struct ctx *c, const struct gb_args *a, struct gb_data *d, unsigned m)
{
	struct reis_group_sched_opts so;
	struct reis_group_sched_report rep;
	struct reis_group_result r;
	struct reis_search_opts o;
	struct reis_inproc_opts io;
	struct reis_group *g;
	struct reis_dev *one;
	int ret = gb_group(a, d, m, &g, &o);

	if (ret)
		return ret;
	memset(&so, 0, sizeof(so));
	so.batch = (uint32_t)a->batch;
	memset(&io, 0, sizeof(io));
	io.preset = a->preset;
	io.flags = REIS_INPROC_VCLOCK;
	if (!reis_open_inproc(&io, &one)) {
		if (!reis_db_deploy(one, &d->img, NULL))
			so.single = one;
		ret = reis_group_sched_search(g, &d->img, !!a->nlist, &o, &d->q, &so, &r, &rep);
		reis_close(one);
	}
	if (ret)
		cli_err("group bench, scheduled: %s", reis_group_errmsg(g));
	else
		gb_print_sched(c, "scheduled", &rep);
	if (!ret)
		reis_group_result_free(&r);
	reis_group_close(g);
	return ret;
}

/* The scheduled SLS: bags over the host and @m drives holding the table. */
static int gb_sched_rf(struct ctx *c, const struct gb_args *a, struct gb_data *d, unsigned m)
{
	struct reis_group_sched_opts so;
	struct reis_group_sched_report rep;
	struct reis_inproc_opts io;
	struct reis_rf_table t;
	struct reis_group *g;
	struct reis_dev *one = NULL;
	float *out;
	int ret = gb_rf_open(a, d, m, &g, &t, &out);

	if (ret)
		return ret;
	memset(&so, 0, sizeof(so));
	so.batch = (uint32_t)a->batch;
	memset(&io, 0, sizeof(io));
	io.preset = a->preset;
	io.flags = REIS_INPROC_VCLOCK;
	ret = reis_group_rf_deploy(g, &t, NULL);
	if (!ret && !reis_open_inproc(&io, &one) && !reis_rf_deploy(one, &t, NULL))
		so.single = one;
	if (!ret)
		ret = reis_group_sched_sls(g, &t, &d->bags, 0, &so, out, &rep);
	if (ret)
		cli_err("group bench, scheduled SLS: %s", reis_group_errmsg(g));
	else
		gb_print_sched(c, "scheduled_sls", &rep);
	reis_close(one);
	reis_group_close(g);
	free(out);
	return ret;
}

/*
 * The analytic what-if: a drive's modeled batch time as a + b * (entries it
 * holds), fitted on the sweep's two smallest groups, predicts groups holding
 * @a->what_if entries (brute force: the scan grows with the entries, the
 * rescoring of m candidates does not). -EINVAL when the fit has no positive
 * slope: at a small --n the fixed costs of a batch hide the scan, and the
 * line would predict negative rates.
 */
static int gb_what_if(struct ctx *c, const struct gb_args *a, const struct gb_row *rw,
		      unsigned n)
{
	static const unsigned ds[] = { 1, 2, 4, 8, 16, 36, 64 };
	const struct gb_row *p = NULL, *q = NULL;
	double n1, n2, b, a0, per_entry = a->dim / 8.0 + a->dim;
	struct reis_inproc_opts io;
	struct reis_dev *dev;
	uint64_t cap = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		if (!p || rw[i].m < p->m)
			p = &rw[i];
	for (i = 0; i < n; i++)
		if (rw[i].m != p->m && (!q || rw[i].m < q->m))
			q = &rw[i];
	if (!q) {
		cli_err("group bench: --what-if needs two member counts in --members");
		return -EINVAL;
	}
	n1 = (double)a->n / p->m;
	n2 = (double)a->n / q->m;
	b = (p->model_ns - q->model_ns) / (n1 - n2);
	a0 = p->model_ns - b * n1;
	if (!(b > 0)) {
		cli_err("group bench: --what-if: the modeled batch time does not grow with the "
			"entries a drive holds (%.1f us at %.0f entries a drive, %.1f us at %.0f): "
			"the batch's fixed costs hide the scan; a larger --n fits the line",
			p->model_ns / 1e3, n1, q->model_ns / 1e3, n2);
		return -EINVAL;
	}
	memset(&io, 0, sizeof(io));
	io.preset = a->preset;
	if (!reis_open_inproc(&io, &dev)) {
		cap = reis_dev_info(dev)->raw_capacity_bytes;
		reis_close(dev);
	}
	if (c->json)
		j_arr("what_if");
	else
		printf("\nwhat-if, %" PRIu64 " x %" PRIu64 "-d entries (analytic: modeled batch "
		       "time %.0f us + %.4f us per entry a drive holds, fitted on %u and %u "
		       "drives)\n%6s %12s %14s %10s\n", a->what_if, a->dim, a0 / 1e3, b / 1e3,
		       p->m, q->m, "drives", "q/s", "latency ms", "fits");
	for (i = 0; i < sizeof(ds) / sizeof(ds[0]); i++) {
		double t = a0 + b * ((double)a->what_if / ds[i]);
		int fits = cap && per_entry * a->what_if / ds[i] < (double)cap;

		if (c->json) {
			j_obj(NULL);
			j_u64("drives", ds[i]);
			j_g("qps_modeled", a->nq * 1e9 / t);
			j_g("batch_latency_ms", t / 1e6);
			j_bool("fits", fits);
			j_obj_end();
		} else {
			printf("%6u %12.0f %14.1f %10s\n", ds[i], a->nq * 1e9 / t, t / 1e6,
			       fits ? "yes" : "no");
		}
	}
	if (c->json)
		j_arr_end();
	return 0;
}

int grp_bench(struct ctx *c, int argc, char **argv)
{
	struct gb_row rows[16];
	struct gb_data d;
	struct gb_args a;
	unsigned i;
	int ret = gb_parse(argc, argv, &a);

	if (ret)
		return ret;
	memset(&d, 0, sizeof(d));
	ret = gb_make(&a, &d);
	for (i = 0; !ret && i < a.nmembers; i++)
		ret = gb_one(&a, &d, a.members[i], &rows[i]);
	if (!ret) {
		if (c->json)
			j_obj(NULL);
		gb_print_rows(c, &a, rows, a.nmembers);
		if (a.what_if)
			ret = gb_what_if(c, &a, rows, a.nmembers);
		if (!ret)
			ret = gb_sched(c, &a, &d, a.members[a.nmembers - 1]);
		if (!ret)
			ret = gb_sched_rf(c, &a, &d, a.members[a.nmembers - 1]);
		if (!ret && a.plot) {
			ret = gb_plot(&a, rows, a.nmembers);
			if (!ret && c->json)
				j_str("plot", a.plot);
			else if (!ret)
				printf("\nplot: %s\n", a.plot);
		}
		if (c->json)
			j_obj_end();
	} else if (ret == -ENOMEM) {
		cli_err("group bench: out of memory");
	}
	reis_db_image_free(&d.img);
	reis_queries_free(&d.q);
	free(d.rf_rows);
	free(d.off);
	free(d.idx);
	return ret ? 1 : 0;
}
