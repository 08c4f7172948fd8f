/* SPDX-License-Identifier: MIT */
/*
 * cli_group.c - `reis group ...`: a device group of several drives
 * (docs/group.md): list the members, deploy an image sharded over them,
 * search it (merged exactly as one drive), pool bags of a sharded table,
 * and the bench that sweeps the member count and runs the scheduled mode
 * with its Table-I summary. The group's drives: --drives P1,P2,... (or
 * every ISP drive found), or --inproc-drives N in-process drives.
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

static int grp_open_inproc(struct grp_args *a)
{
	struct reis_dev *devs[REIS_GROUP_MAX];
	char names[REIS_GROUP_MAX][REIS_PATH_MAX], file[512], err[256] = "";
	const char *nm[REIS_GROUP_MAX];
	unsigned i;
	int ret = 0;	/* set on every path; gcc -O1 (make sanitize) cannot tell */

	for (i = 0; i < a->inproc; i++) {
		struct reis_inproc_opts o;

		memset(&o, 0, sizeof(o));
		o.preset = a->preset;
		o.flags = a->inproc_flags;
		o.errbuf = err;
		o.errlen = sizeof(err);
		if (a->backing_dir) {
			snprintf(file, sizeof(file), "%s/drive%u.img", a->backing_dir, i);
			o.backing = file;
		}
		ret = reis_open_inproc(&o, &devs[i]);
		if (ret) {
			cli_errno(ret, "in-process drive %u: %s", i, err[0] ? err : reis_strerror(ret));
			break;
		}
		snprintf(names[i], sizeof(names[i]), "inproc%u", i);
		nm[i] = names[i];
	}
	if (i == a->inproc && !(ret = reis_group_adopt(devs, nm, a->inproc, &a->g)))
		return 0;
	if (i == a->inproc)
		cli_err("group: %s", reis_group_errmsg(NULL));
	while (i-- > 0)
		reis_close(devs[i]);
	return ret;
}

int grp_open_n(const char *preset, unsigned n, struct reis_group **g)
{
	struct grp_args a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.preset = preset;
	a.inproc = n;
	a.inproc_flags = REIS_INPROC_VCLOCK;
	ret = grp_open_inproc(&a);
	*g = a.g;
	return ret;
}

static int grp_open_any(struct ctx *c, struct grp_args *a);

int grp_open(struct ctx *c, struct grp_args *a)
{
	int ret = grp_open_any(c, a);

	if (!ret && a->timeout_ms)
		reis_group_set_timeout(a->g, a->timeout_ms);
	return ret;
}

static int grp_open_any(struct ctx *c, struct grp_args *a)
{
	char *list, *tok, *save = NULL;
	const char *paths[REIS_GROUP_MAX];
	unsigned n = 0;
	int ret;

	if (a->inproc)
		return grp_open_inproc(a);
	if (!a->drives) {
		ret = reis_group_discover(c->open_flags, &a->g);
		if (ret)
			cli_err("group: %s", reis_group_errmsg(NULL));
		return ret;
	}
	list = strdup(a->drives);
	if (!list)
		return -ENOMEM;
	for (tok = strtok_r(list, ",", &save); tok && n < REIS_GROUP_MAX;
	     tok = strtok_r(NULL, ",", &save))
		paths[n++] = tok;
	ret = reis_group_open(paths, n, c->open_flags, &a->g);
	if (ret)
		cli_err("group: %s", reis_group_errmsg(NULL));
	free(list);
	return ret;
}

/* The group's own options, before its subcommand; returns argv index. */
static int grp_parse(int argc, char **argv, struct grp_args *a)
{
	static const struct option lo[] = {
		{ "drives", required_argument, NULL, 'D' },
		{ "inproc-drives", required_argument, NULL, 'N' },
		{ "preset", required_argument, NULL, 'P' },
		{ "backing-dir", required_argument, NULL, 'B' },
		{ "timeout", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int opt;

	memset(a, 0, sizeof(*a));
	optind = 1;
	while ((opt = cli_getopt("group", argc, argv, "+", lo)) != -1) {
		switch (opt) {
		case 'D': a->drives = optarg; break;
		case 'N':
			if (parse_u64(optarg, 1, REIS_GROUP_MAX, &v))
				return -usage_err("--inproc-drives takes 1..%u", REIS_GROUP_MAX);
			a->inproc = (unsigned)v;
			break;
		case 'P': a->preset = optarg; break;
		case 'B': a->backing_dir = optarg; break;
		case 'T':
			if (parse_u64(optarg, 1, INT32_MAX, &v))
				return -usage_err("--timeout takes 1..%d ms", INT32_MAX);
			a->timeout_ms = (int)v;
			break;
		default: return -EXIT_USAGE;
		}
	}
	if (a->drives && a->inproc)
		return -usage_err("group: --drives and --inproc-drives exclude each other");
	if (optind >= argc)
		return -usage_err("group: no subcommand (list, deploy, search, sls, bench)");
	return optind;
}

static int grp_list(struct grp_args *a, struct ctx *c)
{
	unsigned i, n = reis_group_size(a->g);
	struct reis_group_member m;

	if (c->json) {
		j_obj(NULL);
		j_u64("members", n);
		j_bool("mixed", reis_group_mixed(a->g));
		j_arr("drives");
		for (i = 0; i < n; i++) {
			reis_group_member_info(a->g, i, &m);
			j_obj(NULL);
			j_str("name", m.name);
			j_str("preset", m.preset);
			j_str("transport", m.transport[0] ? m.transport : "inproc");
			j_bool("remote", m.remote != 0);
			j_str("subsysnqn", m.subsysnqn);
			j_str("address", m.address);
			j_u64("capacity_bytes", m.info.raw_capacity_bytes);
			j_u64("free_bytes", m.info.free_bytes);
			j_u64("channels", m.info.channels);
			json_caps(m.caps);
			j_obj_end();
		}
		j_arr_end();
		j_obj_end();
		return 0;
	}
	printf("%u member%s%s\n", n, n == 1 ? "" : "s",
	       reis_group_mixed(a->g) ? " (mixed presets/geometry)" : "");
	for (i = 0; i < n; i++) {
		reis_group_member_info(a->g, i, &m);
		printf("  %u %-20s %-14s %8.1f GiB free of %.1f GiB  ", i, m.name, m.preset,
		       m.info.free_bytes / 1073741824.0, m.info.raw_capacity_bytes / 1073741824.0);
		print_caps_human(m.caps);
		printf("    %s%s%s%s%s\n", m.transport[0] ? m.transport : "in-process",
		       m.remote ? " (remote) " : "", m.subsysnqn, m.address[0] ? " at " : "",
		       m.address);
	}
	return 0;
}

static int grp_deploy(struct grp_args *a, struct ctx *c, int argc, char **argv)
{
	struct reis_db_image img;
	char err[256];
	uint64_t did = 0;
	unsigned i;
	int ret;

	/* every word starting with '-' is an option (an IMAGE named so: ./-x) */
	for (i = 1; i < (unsigned)argc && argv[i][0] == '-'; i += 2)
		if (!strcmp(argv[i], "--did") && i + 1 < (unsigned)argc) {
			if (parse_u64(argv[i + 1], 1, UINT32_MAX, &did))
				return usage_err("group deploy: --did must be 1..4294967295, "
						 "not '%s'", argv[i + 1]);
		} else if (!strcmp(argv[i], "--did")) {
			return usage_err("group deploy: option '--did' needs a value");
		} else {
			return usage_err("group deploy: unknown option '%s'", argv[i]);
		}
	if (i + 1 != (unsigned)argc)
		return usage_err("group deploy: [--did DID] IMAGE (reis deploy --pack)");
	ret = reis_db_image_load(argv[i], &img, err, sizeof(err));
	if (ret) {
		cli_err("%s", err);
		return 1;
	}
	if (did)
		img.did = (uint32_t)did;
	ret = reis_group_db_deploy(a->g, &img, NULL);
	if (ret) {
		cli_err("group deploy: %s", reis_group_errmsg(a->g));
		reis_db_image_free(&img);
		return 1;
	}
	if (c->json) {
		j_obj(NULL);
		j_u64("did", img.did);
		j_u64("entries", img.n);
		j_arr("shards");
		for (i = 0; i < reis_group_size(a->g); i++) {
			j_obj(NULL);
			j_u64("member", i);
			j_u64("entries", img.n / reis_group_size(a->g) +
			      (i < img.n % reis_group_size(a->g)));
			j_obj_end();
		}
		j_arr_end();
		j_obj_end();
	} else {
		printf("database %u: %" PRIu64 " entries sharded over %u drives (entry p on "
		       "drive p mod %u)\n", img.did, img.n, reis_group_size(a->g),
		       reis_group_size(a->g));
	}
	reis_db_image_free(&img);
	return 0;
}

struct grp_search_args {
	uint64_t did, k, nprobe;
	int ivf, docs;
	const char *queries;
};

static int grp_search_parse(int argc, char **argv, struct grp_search_args *s)
{
	static const struct option lo[] = {
		{ "did", required_argument, NULL, 'd' },
		{ "k", required_argument, NULL, 'k' },
		{ "ivf", no_argument, NULL, 'I' },
		{ "nprobe", required_argument, NULL, 'p' },
		{ "docs", no_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	memset(s, 0, sizeof(*s));
	s->k = 10;
	optind = 1;
	while ((opt = cli_getopt("group search", argc, argv, "+", lo)) != -1) {
		switch (opt) {
		case 'd':
			if (parse_u64(optarg, 1, UINT32_MAX, &s->did))
				return usage_err("group search: --did must be 1..4294967295");
			break;
		case 'k':
			if (parse_u64(optarg, 1, REIS_MAX_K, &s->k))
				return usage_err("group search: --k must be 1..%u", REIS_MAX_K);
			break;
		case 'I': s->ivf = 1; break;
		case 'p':
			if (parse_u64(optarg, 1, REIS_DB_MAX_NLIST, &s->nprobe))
				return usage_err("group search: --nprobe must be 1..%u", REIS_DB_MAX_NLIST);
			break;
		case 'D': s->docs = 1; break;
		default: return EXIT_USAGE;
		}
	}
	if (!s->did || optind + 1 != argc)
		return usage_err("group search: --did DID [--k K] [--ivf] [--nprobe P] "
				 "[--docs] QUERIES");
	s->queries = argv[optind];
	return 0;
}

static void grp_print_result(struct ctx *c, const struct reis_group_result *r)
{
	uint32_t qi, j;

	if (c->json) {
		j_obj(NULL);
		j_u64("members", r->nmembers);
		j_bool("partial", r->partial);
		j_u64("hits_moved", r->hits_moved);
		j_u64("search_ns", r->search_ns);
		j_u64("search_nj", r->search_nj);
		j_u64("merge_ns", r->merge_ns);
		j_u64("host_ns", r->host_ns);
		j_arr("queries");
		for (qi = 0; qi < r->res.nq; qi++) {
			j_arr(NULL);
			for (j = 0; j < r->res.nhits[qi]; j++) {
				const struct reis_hit *h = &r->res.hits[(size_t)qi * r->res.k + j];

				j_obj(NULL);
				j_u64("id", h->id);
				j_u64("entry", h->entry);
				j_u64("hamming", h->hamming);
				j_i64("score", h->score);
				j_u64("drive", h->entry % r->nmembers);
				j_obj_end();
			}
			j_arr_end();
		}
		j_arr_end();
		j_obj_end();
		return;
	}
	for (qi = 0; qi < r->res.nq; qi++) {
		printf("query %u:", qi);
		for (j = 0; j < r->res.nhits[qi]; j++) {
			const struct reis_hit *h = &r->res.hits[(size_t)qi * r->res.k + j];

			printf(" %" PRIu64 "@%u", h->id, h->entry % r->nmembers);
		}
		printf("\n");
	}
	printf("%u drives: %" PRIu64 " hits moved to the host, modeled %.1f us, merge %.1f us, "
	       "wall %.1f us\n", r->nmembers, r->hits_moved, r->search_ns / 1e3,
	       r->merge_ns / 1e3, r->host_ns / 1e3);
}

static int grp_search(struct grp_args *a, struct ctx *c, int argc, char **argv)
{
	struct grp_search_args s;
	struct reis_search_opts o;
	struct reis_group_result r;
	struct reis_queries q;
	struct reis_quant quant;
	struct reis_vecs v;
	int ret = grp_search_parse(argc, argv, &s);

	if (ret)
		return ret;
	if (cli_load_floats("group search", s.queries, &v))
		return 1;
	ret = reis_db_quantizer(reis_group_dev(a->g, 0), (uint32_t)s.did, &quant);
	if (ret) {
		struct reis_group_member m;
		const char *why = reis_last_error(reis_group_dev(a->g, 0));

		reis_vecs_free(&v);
		reis_group_member_info(a->g, 0, &m);
		/* the drive's reason and status, as reis search gives them */
		cli_err_on(reis_group_dev(a->g, 0), ret, "group search: %s: the quantizer of "
			   "database %" PRIu64 ": %s", m.name, s.did,
			   why[0] ? why : reis_strerror(ret));
		return 1;
	}
	ret = v.n > UINT32_MAX ? -E2BIG : reis_encode_queries(&quant, v.data, (uint32_t)v.n, &q);
	reis_quant_free(&quant);
	reis_vecs_free(&v);
	if (ret) {
		cli_errno(ret, "group search: queries: %s", reis_strerror(ret));
		return 1;
	}
	memset(&o, 0, sizeof(o));
	o.did = (uint32_t)s.did;
	o.k = (uint32_t)s.k;
	o.nprobe = (uint32_t)s.nprobe;
	o.flags = s.docs ? REIS_SF_DOCS : 0;
	if (s.ivf && !o.nprobe)
		o.target_recall = 9500;
	ret = reis_group_search(a->g, s.ivf, &o, &q, 0, &r);
	reis_queries_free(&q);
	if (ret) {
		cli_err("group search: %s", reis_group_errmsg(a->g));
		return 1;
	}
	grp_print_result(c, &r);
	reis_group_result_free(&r);
	return 0;
}

struct grp_sls_args {
	uint64_t tid, rows, dim, seed, nbags, len;
	int deploy, exact, mean;
};

static int grp_sls_parse(int argc, char **argv, struct grp_sls_args *s)
{
	static const struct option lo[] = {
		{ "tid", required_argument, NULL, 't' },
		{ "rows", required_argument, NULL, 'r' },
		{ "dim", required_argument, NULL, 'd' },
		{ "deploy", required_argument, NULL, 'D' },
		{ "bags", required_argument, NULL, 'b' },
		{ "len", required_argument, NULL, 'l' },
		{ "exact", no_argument, NULL, 'x' },
		{ "mean", no_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t *dst;
	int opt;

	memset(s, 0, sizeof(*s));
	s->nbags = 64;
	s->len = 20;
	optind = 1;
	while ((opt = cli_getopt("group sls", argc, argv, "+", lo)) != -1) {
		switch (opt) {
		case 't': dst = &s->tid; break;
		case 'r': dst = &s->rows; break;
		case 'd': dst = &s->dim; break;
		case 'D': dst = &s->seed; s->deploy = 1; break;
		case 'b': dst = &s->nbags; break;
		case 'l': dst = &s->len; break;
		case 'x': s->exact = 1; continue;
		case 'm': s->mean = 1; continue;
		default: return EXIT_USAGE;
		}
		if (parse_u64(optarg, 0, UINT32_MAX, dst))
			return usage_err("group sls: bad number '%s'", optarg);
	}
	if (!s->tid || !s->rows || !s->dim || s->dim > REIS_RF_MAX_DIM || !s->nbags ||
	    s->nbags > REIS_RF_MAX_BAGS || !s->len || s->len > 4096 || optind != argc)
		return usage_err("group sls: --tid T --rows R --dim D (<= %u) [--deploy SEED] "
				 "[--bags N (<= %u)] [--len L (<= 4096)] [--exact] [--mean]",
				 REIS_RF_MAX_DIM, REIS_RF_MAX_BAGS);
	return 0;
}

/* Random bags of exactly @len rows (deterministic for @seed). */
static int grp_bags(uint64_t seed, uint32_t nbags, uint32_t len, uint32_t rows,
		    struct reis_rf_bags *b, uint32_t **off, uint32_t **idx)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
	uint32_t i;

	*off = malloc(((size_t)nbags + 1) * sizeof(**off));
	*idx = malloc((size_t)nbags * len * sizeof(**idx));
	if (!*off || !*idx)
		return -ENOMEM;
	for (i = 0; i <= nbags; i++)
		(*off)[i] = i * len;
	for (i = 0; i < nbags * len; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		(*idx)[i] = (uint32_t)((x >> 11) % rows);
	}
	memset(b, 0, sizeof(*b));
	b->nbags = nbags;
	b->nidx = nbags * len;
	b->offsets = *off;
	b->indices = *idx;
	return 0;
}

static void grp_sls_print(struct ctx *c, const struct grp_sls_args *s,
			  const struct reis_group_sls_info *in, const float *out, int match)
{
	uint64_t sensed = 0;
	unsigned i;

	for (i = 0; i < in->nmembers; i++)
		sensed += in->member[i].bytes_sensed;
	if (c->json) {
		j_obj(NULL);
		j_u64("members", in->nmembers);
		j_u64("bags", s->nbags);
		j_bool("exact", s->exact);
		j_u64("pieces", in->pieces);
		j_u64("bytes_sensed_inside", sensed);
		j_u64("bytes_to_host", in->bytes_to_host);
		j_u64("model_ns", in->model_ns);
		j_u64("energy_pj", in->energy_pj);
		j_u64("combine_ns", in->combine_ns);
		j_u64("host_ns", in->host_ns);
		if (match >= 0)
			j_bool("matches_reference", match);
		j_arr("bag0");
		for (i = 0; i < s->dim && i < 8; i++)
			j_g(NULL, out[i]);
		j_arr_end();
		j_obj_end();
		return;
	}
	printf("%" PRIu64 " bags over %u drives: %" PRIu64 " partial sums (%" PRIu64
	       " bytes) to the host, %" PRIu64 " bytes sensed inside, modeled %.1f us, "
	       "combine %.1f us%s\n", s->nbags, in->nmembers, in->pieces, in->bytes_to_host,
	       sensed, in->model_ns / 1e3, in->combine_ns / 1e3,
	       match < 0 ? "" : match ? ", identical to the host reference" :
	       ", DIFFERS from the host reference");
}

static int grp_sls(struct grp_args *a, struct ctx *c, int argc, char **argv)
{
	struct grp_sls_args s;
	struct reis_group_sls_info in;
	struct reis_rf_bags b;
	uint32_t *off = NULL, *idx = NULL, fl;
	float *rows = NULL, *out = NULL, *ref = NULL;
	int ret = grp_sls_parse(argc, argv, &s), match = -1;

	if (ret)
		return ret;
	fl = (s.exact ? REIS_GROUP_SLS_EXACT : 0) | (s.mean ? REIS_RF_SLS_MEAN : 0);
	out = malloc((size_t)s.nbags * s.dim * sizeof(float));
	ret = out ? grp_bags(s.seed + 1, (uint32_t)s.nbags, (uint32_t)s.len, (uint32_t)s.rows,
			     &b, &off, &idx) : -ENOMEM;
	if (!ret && s.deploy) {
		struct reis_rf_table t;

		rows = malloc((size_t)s.rows * s.dim * sizeof(float));
		ret = rows ? 0 : -ENOMEM;
		if (!ret) {
			reis_rf_fill_random(s.seed, rows, (size_t)s.rows * s.dim, 1.0f);
			memset(&t, 0, sizeof(t));
			t.tid = (uint32_t)s.tid;
			t.rows = (uint32_t)s.rows;
			t.dim = (uint32_t)s.dim;
			t.dtype = REIS_RF_FP32;
			t.mode = REIS_RF_RECFLASH;
			t.data = rows;
			t.name = "group";
			ret = reis_group_rf_deploy(a->g, &t, NULL);
		}
	}
	if (!ret)
		ret = reis_group_rf_sls(a->g, (uint32_t)s.tid, (uint32_t)s.rows, (uint32_t)s.dim,
					&b, fl, out, &in);
	if (ret) {
		cli_err("group sls: %s", ret == -ENOMEM ? "out of memory" :
			reis_group_errmsg(a->g));
	} else {
		if (rows && (ref = malloc((size_t)s.nbags * s.dim * sizeof(float))) &&
		    !reis_rf_sls_ref(REIS_RF_FP32, (uint32_t)s.rows, (uint32_t)s.dim, rows, &b,
				     fl & REIS_RF_SLS_MEAN, ref))
			match = !memcmp(ref, out, (size_t)s.nbags * s.dim * sizeof(float));
		grp_sls_print(c, &s, &in, out, match);
	}
	free(rows);
	free(out);
	free(ref);
	free(off);
	free(idx);
	return ret ? 1 : 0;
}

static int cmd_group(struct ctx *c, int argc, char **argv)
{
	struct grp_args a;
	int i = grp_parse(argc, argv, &a), ret;

	if (i < 0)
		return -i;
	argc -= i;
	argv += i;
	if (!strcmp(argv[0], "bench"))
		return grp_bench(c, argc, argv);
	if (strcmp(argv[0], "list") && strcmp(argv[0], "deploy") && strcmp(argv[0], "search") &&
	    strcmp(argv[0], "sls"))
		return usage_err("group: unknown subcommand '%s' (list, deploy, search, sls, "
				 "bench)", argv[0]);
	if (grp_open(c, &a))
		return 1;
	if (a.inproc && !a.backing_dir && !strcmp(argv[0], "deploy"))
		cli_warn_volatile("in-process drives without --backing-dir");
	if (!strcmp(argv[0], "list"))
		ret = argc == 1 ? grp_list(&a, c) :
		      usage_err("group list: unexpected argument '%s'", argv[1]);
	else if (!strcmp(argv[0], "deploy"))
		ret = grp_deploy(&a, c, argc, argv);
	else if (!strcmp(argv[0], "search"))
		ret = grp_search(&a, c, argc, argv);
	else
		ret = grp_sls(&a, c, argc, argv);
	reis_group_close(a.g);
	return ret;
}

static const struct reis_cli_cmd group_cmds[] = {
	{ "group", "a device group: several drives as one (sharded, scheduled)",
	  "  group [DRIVES] list\n"
	  "  group [DRIVES] deploy [--did DID] IMAGE   shard an image (reis deploy --pack)\n"
	  "  group [DRIVES] search --did DID [--k K] [--ivf] [--nprobe P] [--docs] QUERIES\n"
	  "  group [DRIVES] sls --tid T --rows R --dim D [--deploy SEED] [--bags N]\n"
	  "                 [--len L] [--exact] [--mean]\n"
	  "  group bench [--members 1,2,4,8] [--n N] [--dim D] [--nq Q] [--k K]\n"
	  "              [--ivf NLIST] [--batch B] [--preset P] [--rows R] [--rf-dim D]\n"
	  "              [--what-if ENTRIES]   (analytic: the sweep's fit, scaled)\n"
	  "              [--plot FILE.svg]     (the sweep drawn with gnuplot)\n"
	  "DRIVES:\n"
	  "      --drives P1,P2,...   the members (default: every ISP drive found)\n"
	  "      --inproc-drives N    N in-process drives (--preset P, --backing-dir DIR)\n"
	  "      --timeout MS         give up on a member silent this long (default 30000)\n"
	  "See docs/group.md.\n", 0, cmd_group },
};

const struct reis_cli_table reis_group_table = {
	group_cmds, sizeof(group_cmds) / sizeof(group_cmds[0]),
};
