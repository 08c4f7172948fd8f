/* SPDX-License-Identifier: MIT */
/*
 * reis - command-line tool for ISP drives (libreis).
 *
 *   reis [--dev PATH | --inproc [--preset P] [--backing F] [--params L]]
 *        [--ioctl] [--json] COMMAND [ARGS]
 *
 * Every command is one entry of a command table with its own option parser and
 * help text, so list/deploy/search/sls/trace slot in as more entries. With
 * --json each command prints exactly one JSON document on stdout.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libreis.h"
#include "cli_util.h"


/* ---------------------------------------------------------------------- */
/* Commands                                                                */
/* ---------------------------------------------------------------------- */

static void json_disc(const struct reis_disc *d)
{
	j_obj(NULL);
	j_str("path", d->path);
	j_u64("nsid", d->nsid);
	j_str("ctrl", d->ctrl);
	j_str("transport", d->transport);
	j_str("address", d->address);
	j_str("model", d->model);
	j_str("serial", d->serial);
	j_str("firmware", d->firmware);
	j_str("subsysnqn", d->subsysnqn);
	if (d->err) {
		j_str("error", reis_strerror(d->err));
		j_str("why", d->why);
	} else {
		char ver[16];

		snprintf(ver, sizeof(ver), "%u.%u", d->ver_major, d->ver_minor);
		j_str("version", ver);
		j_str("preset", d->preset);
		j_u64("max_xfer", d->max_xfer);
		json_caps(d->caps);
	}
	j_obj_end();
}

/* Every namespace libnvme's scan saw; the rejected ones with the reason. */
static int cmd_list(struct ctx *c, int argc, char **argv)
{
	struct reis_disc d[64];
	int n, i, nisp = 0;

	(void)argv;
	if (argc > 1)
		return usage_err("list: unexpected argument '%s'", argv[1]);
	n = reis_discover(d, 64, c->open_flags | REIS_DISCOVER_ALL);
	if (n < 0)
		return fail(c, "list", n);
	if (n > 64)
		n = 64;
	for (i = 0; i < n; i++)
		nisp += !d[i].err;
	if (c->json) {
		j_obj(NULL);
		j_arr("drives");
		for (i = 0; i < n; i++)
			if (!d[i].err)
				json_disc(&d[i]);
		j_arr_end();
		j_arr("rejected");
		for (i = 0; i < n; i++)
			if (d[i].err)
				json_disc(&d[i]);
		j_arr_end();
		j_obj_end();
		return 0;
	}
	if (nisp) {
		printf("%-16s %-5s %-8s %-14s %-9s %-7s %-6s %s\n", "PATH", "NSID", "VERSION",
		       "PRESET", "MAX_XFER", "CTRL", "TRTYPE", "CAPS");
		for (i = 0; i < n; i++) {
			if (d[i].err)
				continue;
			printf("%-16s %-5u %u.%-6u %-14s %-9u %-7s %-6s ", d[i].path, d[i].nsid,
			       d[i].ver_major, d[i].ver_minor, d[i].preset, d[i].max_xfer,
			       d[i].ctrl, d[i].transport);
			print_caps_human(d[i].caps);
		}
	} else {
		printf("no ISP drives found%s\n", n ? "; seen and rejected:" : " (no NVMe "
		       "controller at all)");
	}
	if (nisp && n > nisp)
		printf("not ISP drives:\n");
	for (i = 0; i < n; i++)
		if (d[i].err)
			printf("  %s (%s, '%s', %s): %s\n", d[i].path[0] ? d[i].path : "-",
			       d[i].ctrl, d[i].model, d[i].transport, d[i].why);
	return 0;
}

static int cmd_info(struct ctx *c, int argc, char **argv)
{
	struct reis_info in;
	unsigned i;
	int ret;

	if (argc > 1)
		return usage_err("info: unexpected argument '%s'", argv[1]);
	ret = reis_identify(c->dev, &in);
	if (ret)
		return fail(c, "info", ret);
	if (c->json) {
		char ver[16];

		j_obj(NULL);
		j_str("path", reis_path(c->dev));
		j_str("transport", reis_transport(c->dev));
		snprintf(ver, sizeof(ver), "%u.%u", in.ver_major, in.ver_minor);
		j_str("version", ver);
		json_caps(in.caps);
		j_u64("max_xfer", in.max_xfer);
		j_u64("max_xfer_host", reis_max_xfer(c->dev));
		j_u64("max_tickets", in.max_tickets);
		j_u64("max_result_bytes", in.max_result_bytes);
		j_str("preset", in.preset);
		j_obj("geometry");
		j_u64("channels", in.channels);
		j_u64("dies_per_channel", in.dies_per_channel);
		j_u64("planes_per_die", in.planes_per_die);
		j_u64("blocks_per_plane", in.blocks_per_plane);
		j_u64("pages_per_block", in.pages_per_block);
		j_u64("page_bytes", in.page_bytes);
		j_u64("oob_bytes", in.oob_bytes);
		j_u64("subpage_bytes", in.subpage_bytes);
		j_obj_end();
		j_arr("partitions");
		for (i = 0; i < in.nparts; i++) {
			j_obj(NULL);
			j_str("cell_mode", reis_cell_mode_name(in.parts[i].cell_mode));
			j_u64("first_block", in.parts[i].first_block);
			j_u64("nblocks", in.parts[i].nblocks);
			j_u64("pages_per_block", in.parts[i].pages_per_block);
			j_obj_end();
		}
		j_arr_end();
		j_obj("capacity");
		j_u64("raw_bytes", in.raw_capacity_bytes);
		j_u64("free_bytes", in.free_bytes);
		j_u64("dram_bytes", in.dram_bytes);
		j_u64("dram_used", in.dram_used);
		j_obj_end();
		j_obj("controller");
		j_u64("cores", in.cores);
		j_u64("core_mhz", in.core_mhz);
		j_u64("link_mbps", in.link_mbps);
		j_u64("channel_mbps", in.channel_mbps);
		j_u64("ctrl_cmd_ns", in.ctrl_cmd_ns);
		j_u64("max_dbs", in.max_dbs);
		j_u64("max_tables", in.max_tables);
		j_obj_end();
		j_obj("databases");
		j_u64("deployed", in.ndbs);
		j_u64("max", in.max_dbs);
		j_u64("room", in.db_room);
		j_u64("row_bytes", (uint64_t)in.row_pages * in.page_bytes);
		j_u64("slc_free_bytes", in.slc_free_bytes);
		j_u64("native_free_bytes", in.native_free_bytes);
		j_u64("dead_bytes", in.dead_bytes);
		j_obj_end();
		j_obj("timing_ns");
		for (i = REIS_CELL_SLC; i <= REIS_CELL_QLC; i++) {
			char k[16];

			snprintf(k, sizeof(k), "read_%s", reis_cell_mode_name(i));
			j_u64(k, in.t_read_ns[i]);
			snprintf(k, sizeof(k), "prog_%s", reis_cell_mode_name(i));
			j_u64(k, in.t_prog_ns[i]);
		}
		j_u64("erase", in.t_erase_ns);
		j_obj_end();
		j_obj_end();
		return 0;
	}
	printf("drive          %s (%s)\n", reis_path(c->dev), reis_transport(c->dev));
	printf("command set    %u.%u\n", in.ver_major, in.ver_minor);
	printf("capabilities   ");
	print_caps_human(in.caps);
	printf("max transfer   %u bytes per command (host uses %u)\n", in.max_xfer,
	       reis_max_xfer(c->dev));
	printf("results        %u tickets, %" PRIu64 " bytes\n", in.max_tickets,
	       in.max_result_bytes);
	printf("preset         %s\n", in.preset);
	printf("geometry       %u channels x %u dies x %u planes, %u blocks/plane, "
	       "%u pages/block\n", in.channels, in.dies_per_channel, in.planes_per_die,
	       in.blocks_per_plane, in.pages_per_block);
	printf("pages          %u bytes + %u OOB, %u-byte sub-pages\n", in.page_bytes,
	       in.oob_bytes, in.subpage_bytes);
	for (i = 0; i < in.nparts; i++)
		printf("partition %u    %s: blocks %u..%u, %u pages/block\n", i,
		       reis_cell_mode_name(in.parts[i].cell_mode), in.parts[i].first_block,
		       in.parts[i].first_block + in.parts[i].nblocks -
		       (in.parts[i].nblocks ? 1 : 0), in.parts[i].pages_per_block);
	printf("capacity       %" PRIu64 " bytes raw, %" PRIu64 " free\n",
	       in.raw_capacity_bytes, in.free_bytes);
	printf("controller     %u cores @ %u MHz, DRAM %" PRIu64 " bytes (%" PRIu64
	       " used), link %u MB/s, channel %u MB/s\n", in.cores, in.core_mhz,
	       in.dram_bytes, in.dram_used, in.link_mbps, in.channel_mbps);
	/* docs/reis-engine.md §7: what bounds the next database */
	printf("databases      %u of %u REIS databases, room for %u more small ones "
	       "(R-DB, SLC rows, DRAM); %u RecFlash tables\n", in.ndbs, in.max_dbs,
	       in.db_room, in.max_tables);
	printf("database space SLC %" PRIu64 " bytes free, native %" PRIu64 " free, %" PRIu64
	       " freed in shared stripes; a database under a block stripe takes rows of "
	       "%" PRIu64 " bytes\n", in.slc_free_bytes, in.native_free_bytes, in.dead_bytes,
	       (uint64_t)in.row_pages * in.page_bytes);
	printf("timing         tR");
	for (i = REIS_CELL_SLC; i <= REIS_CELL_QLC; i++)
		if (in.t_read_ns[i])
			printf(" %s %u ns", reis_cell_mode_name(i), in.t_read_ns[i]);
	printf(", tPROG");
	for (i = REIS_CELL_SLC; i <= REIS_CELL_QLC; i++)
		if (in.t_prog_ns[i])
			printf(" %s %u ns", reis_cell_mode_name(i), in.t_prog_ns[i]);
	printf(", tBERS %u ns, command overhead %u ns\n", in.t_erase_ns, in.ctrl_cmd_ns);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct noop_run {
	uint64_t *lat;
	uint64_t model_sum;
	unsigned done, submitted, count;
	int err;
};

static void noop_cb(struct reis_req *req, void *arg)
{
	struct noop_run *r = arg;

	if (req->cpl.err && !r->err)
		r->err = req->cpl.err;
	r->lat[r->done++] = req->cpl.host_ns;
	r->model_sum += req->cpl.time_ns;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmd_noop(struct ctx *c, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "qd", required_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	struct noop_run r;
	struct reis_req *reqs;
	uint64_t count = 1000, qd = 1, t0, wall;
	unsigned i;
	int opt, ret = 0;

	optind = 0;
	while ((opt = cli_getopt("noop", argc, argv, "+n:q:", lo)) != -1) {
		switch (opt) {
		case 'n':
			if (parse_u64(optarg, 1, 10000000, &count))
				return usage_err("noop: --count must be 1..10000000");
			break;
		case 'q':
			if (parse_u64(optarg, 1, reis_qdepth(c->dev), &qd))
				return usage_err("noop: --qd must be 1..%u", reis_qdepth(c->dev));
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		return usage_err("noop: unexpected argument '%s'", argv[optind]);
	memset(&r, 0, sizeof(r));
	r.count = (unsigned)count;
	r.lat = calloc(count, sizeof(*r.lat));
	reqs = calloc(qd, sizeof(*reqs));
	if (!r.lat || !reqs) {
		free(r.lat);
		free(reqs);
		return fail(c, "noop", -ENOMEM);
	}
	t0 = now_ns();
	/* Keep qd requests in flight, refilling as they complete. */
	for (i = 0; i < qd && r.submitted < r.count; i++) {
		reis_prep_noop(&reqs[i]);
		reis_req_set_cb(&reqs[i], noop_cb, &r);
		ret = reis_submit(c->dev, &reqs[i]);
		if (ret)
			break;
		r.submitted++;
	}
	while (!ret && r.done < r.count) {
		ret = reis_wait(c->dev, 1, -1);
		if (ret < 0)
			break;
		ret = 0;
		for (i = 0; i < qd && r.submitted < r.count; i++) {
			if (reis_req_inflight(&reqs[i]))
				continue;
			reis_prep_noop(&reqs[i]);
			reis_req_set_cb(&reqs[i], noop_cb, &r);
			ret = reis_submit(c->dev, &reqs[i]);
			if (ret)
				break;
			r.submitted++;
		}
		if (r.err)
			break;
	}
	wall = now_ns() - t0;
	while (reis_inflight(c->dev))
		reis_wait(c->dev, reis_inflight(c->dev), -1);
	free(reqs);
	if (ret || r.err) {
		free(r.lat);
		return fail(c, "noop", ret ? ret : r.err);
	}
	qsort(r.lat, r.done, sizeof(*r.lat), cmp_u64);
	{
		double avg = 0;
		uint64_t p50 = r.lat[r.done / 2], p99 = r.lat[(uint64_t)r.done * 99 / 100];

		for (i = 0; i < r.done; i++)
			avg += (double)r.lat[i];
		avg /= r.done;
		if (c->json) {
			j_obj(NULL);
			j_str("transport", reis_transport(c->dev));
			j_u64("count", r.done);
			j_u64("qd", qd);
			j_dbl("host_avg_ns", avg);
			j_u64("host_min_ns", r.lat[0]);
			j_u64("host_p50_ns", p50);
			j_u64("host_p99_ns", p99);
			j_u64("host_max_ns", r.lat[r.done - 1]);
			j_dbl("model_avg_ns", (double)r.model_sum / r.done);
			j_dbl("iops", (double)r.done * 1e9 / (double)wall);
			j_obj_end();
		} else {
			printf("%u ISP_NOOP at QD %" PRIu64 " via %s\n", r.done, qd,
			       reis_transport(c->dev));
			printf("host round trip  avg %.0f ns, min %" PRIu64 ", p50 %" PRIu64
			       ", p99 %" PRIu64 ", max %" PRIu64 " ns\n", avg, r.lat[0], p50,
			       p99, r.lat[r.done - 1]);
			printf("modeled time     %.0f ns per command\n",
			       (double)r.model_sum / r.done);
			printf("throughput       %.0f commands/s\n",
			       (double)r.done * 1e9 / (double)wall);
		}
	}
	free(r.lat);
	return 0;
}

static int cmd_echo(struct ctx *c, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "size", required_argument, NULL, 's' },
		{ "dir", required_argument, NULL, 'd' },
		{ "seed", required_argument, NULL, 'S' },
		{ "count", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t size = 4096, seed = 1, count = 1;
	uint64_t host[2] = { 0, 0 }, model[2] = { 0, 0 }, energy[2] = { 0, 0 };
	int dirs = 3, opt, ret = 0, k;
	void *buf;
	unsigned i;

	optind = 0;
	while ((opt = cli_getopt("echo", argc, argv, "+s:d:S:n:", lo)) != -1) {
		switch (opt) {
		case 's':
			if (!strcmp(optarg, "max"))
				size = reis_max_xfer(c->dev);
			else if (parse_u64(optarg, 4, reis_max_xfer(c->dev), &size) || size % 4)
				return usage_err("echo: --size must be a multiple of 4 in 4..%u "
						 "or 'max'", reis_max_xfer(c->dev));
			break;
		case 'd':
			if (!strcmp(optarg, "h2c"))
				dirs = 1;
			else if (!strcmp(optarg, "c2h"))
				dirs = 2;
			else if (!strcmp(optarg, "both"))
				dirs = 3;
			else
				return usage_err("echo: --dir must be h2c, c2h or both");
			break;
		case 'S':
			if (parse_u64(optarg, 0, UINT32_MAX, &seed))
				return usage_err("echo: --seed must be 0..4294967295");
			break;
		case 'n':
			if (parse_u64(optarg, 1, 1000000, &count))
				return usage_err("echo: --count must be 1..1000000");
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		return usage_err("echo: unexpected argument '%s'", argv[optind]);
	buf = aligned_alloc(4096, (size + 4095) & ~(uint64_t)4095);
	if (!buf)
		return fail(c, "echo", -ENOMEM);
	for (k = 1; k <= 2 && !ret; k++) {
		if (!(dirs & k))
			continue;
		for (i = 0; i < count; i++) {
			const struct reis_cpl *cpl;

			ret = reis_echo(c->dev, k == 1 ? REIS_DIR_H2C : REIS_DIR_C2H,
					(uint32_t)seed + i, buf, (uint32_t)size);
			if (ret)
				break;
			cpl = reis_last_cpl(c->dev);
			host[k - 1] += cpl->host_ns;
			model[k - 1] += cpl->time_ns;
			energy[k - 1] += cpl->energy_nj;
		}
	}
	free(buf);
	if (ret)
		return fail(c, "echo", ret);
	if (c->json) {
		j_obj(NULL);
		j_str("transport", reis_transport(c->dev));
		j_u64("size", size);
		j_u64("count", count);
		j_arr("results");
	}
	for (k = 1; k <= 2; k++) {
		if (!(dirs & k))
			continue;
		if (c->json) {
			j_obj(NULL);
			j_str("dir", k == 1 ? "h2c" : "c2h");
			j_bool("ok", 1);
			j_dbl("host_avg_ns", (double)host[k - 1] / count);
			j_dbl("model_avg_ns", (double)model[k - 1] / count);
			j_dbl("energy_avg_nj", (double)energy[k - 1] / count);
			j_dbl("host_mbps", host[k - 1] ? (double)size * count * 1e3 /
			      (double)host[k - 1] : 0);
			j_obj_end();
		} else {
			printf("%s %" PRIu64 " x %" PRIu64 " bytes: ok, host %.0f ns, "
			       "modeled %.0f ns, %.0f nJ each\n", k == 1 ? "h2c" : "c2h",
			       count, size, (double)host[k - 1] / count,
			       (double)model[k - 1] / count, (double)energy[k - 1] / count);
		}
	}
	if (c->json) {
		j_arr_end();
		j_obj_end();
	}
	return 0;
}

static int cmd_stats(struct ctx *c, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "reset", no_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	_Alignas(64) uint8_t raw[REIS_STATS_LEN];
	struct reis_ftl_stats ftl;
	struct reis_stats st;
	struct reis_req req;
	uint32_t flags = 0;
	unsigned i;
	int opt, ret;

	optind = 0;
	while ((opt = cli_getopt("stats", argc, argv, "+r", lo)) != -1) {
		if (opt != 'r')
			return EXIT_USAGE;
		flags |= REIS_STATS_RESET;
	}
	if (optind < argc)
		return usage_err("stats: unexpected argument '%s'", argv[optind]);
	/* one snapshot, decoded twice: the vendor counters and the FTL's */
	reis_prep_stats(&req, raw, flags);
	ret = reis_exec(c->dev, &req);
	if (!ret)
		ret = reis_stats_decode(raw, sizeof(raw), &st);
	if (!ret)
		ret = reis_ftl_stats_decode(raw, sizeof(raw), &ftl);
	if (ret)
		return fail(c, "stats", ret);
	if (c->json) {
		j_obj(NULL);
		j_obj("commands");
		for (i = 0; i < REIS_CLS_N; i++)
			j_u64(reis_cmd_class_name(i), st.cmds[i]);
		j_obj_end();
		j_obj("errors");
		for (i = 0; i < REIS_CLS_N; i++)
			j_u64(reis_cmd_class_name(i), st.errors[i]);
		j_obj_end();
		j_obj("page_reads");
		for (i = REIS_CELL_SLC; i <= REIS_CELL_QLC; i++)
			j_u64(reis_cell_mode_name(i), st.page_reads[i]);
		j_obj_end();
		j_obj("page_programs");
		for (i = REIS_CELL_SLC; i <= REIS_CELL_QLC; i++)
			j_u64(reis_cell_mode_name(i), st.page_programs[i]);
		j_obj_end();
		j_u64("block_erases", st.block_erases);
		j_u64("channel_bytes", st.channel_bytes);
		j_u64("link_bytes_h2c", st.link_bytes_h2c);
		j_u64("link_bytes_c2h", st.link_bytes_c2h);
		j_obj("busy_ns");
		for (i = 0; i < REIS_RES_N; i++)
			j_u64(reis_res_class_name(i), st.busy_ns[i]);
		j_obj_end();
		j_obj("resources");
		for (i = 0; i < REIS_RES_N; i++)
			j_u64(reis_res_class_name(i), st.nres[i]);
		j_obj_end();
		j_u64("model_ns", st.model_ns);
		j_u64("emul_ns", st.emul_ns);
		j_u64("energy_pj", st.energy_pj);
		j_u64("filtered_entries", st.filtered_entries);
		j_u64("ttl_entries", st.ttl_entries);
		j_u64("cache_hits", st.cache_hits);
		j_u64("cache_misses", st.cache_misses);
		j_u64("searches", st.searches);
		j_u64("sls_bags", st.sls_bags);
		j_u64("remaps", st.remaps);
		j_obj("ftl");
		j_u64("reads", ftl.reads);
		j_u64("writes", ftl.writes);
		j_u64("read_bytes", ftl.read_bytes);
		j_u64("write_bytes", ftl.write_bytes);
		j_u64("nand_write_bytes", ftl.nand_write_bytes);
		j_dbl("write_amplification", ftl.wa_milli / 1000.0);
		j_u64("gc_write_bytes", ftl.gc_write_bytes);
		j_u64("gc_victims", ftl.gc_victims);
		j_u64("erases", ftl.erases);
		j_u64("flushes", ftl.flushes);
		j_u64("trims", ftl.trims);
		j_u64("buffer_hits", ftl.buf_hits);
		j_u64("stalls", ftl.stalls);
		j_u64("model_ns", ftl.io_model_ns);
		j_u64("read_model_ns", ftl.read_model_ns);
		j_u64("write_model_ns", ftl.write_model_ns);
		j_u64("user_bytes", ftl.user_bytes);
		j_u64("phys_bytes", ftl.phys_bytes);
		j_u64("op_permille", ftl.op_permille);
		j_u64("stripes", ftl.stripes);
		j_u64("stripes_min", ftl.stripes_min);
		j_u64("free_blocks", ftl.free_blocks);
		j_u64("erase_max", ftl.erase_max);
		j_obj_end();
		j_bool("reset", flags & REIS_STATS_RESET);
		j_counting_since(c);
		j_obj_end();
		return 0;
	}
	printf("%-16s %12s %12s\n", "class", "commands", "errors");
	for (i = 0; i < REIS_CLS_N; i++)
		if (st.cmds[i] || st.errors[i])
			printf("%-16s %12" PRIu64 " %12" PRIu64 "\n", reis_cmd_class_name(i),
			       st.cmds[i], st.errors[i]);
	printf("page reads      ");
	for (i = REIS_CELL_SLC; i <= REIS_CELL_QLC; i++)
		printf(" %s %" PRIu64, reis_cell_mode_name(i), st.page_reads[i]);
	printf("\npage programs   ");
	for (i = REIS_CELL_SLC; i <= REIS_CELL_QLC; i++)
		printf(" %s %" PRIu64, reis_cell_mode_name(i), st.page_programs[i]);
	printf("\nblock erases     %" PRIu64 "\n", st.block_erases);
	printf("bytes            channel %" PRIu64 ", link h2c %" PRIu64 ", c2h %" PRIu64 "\n",
	       st.channel_bytes, st.link_bytes_h2c, st.link_bytes_c2h);
	printf("busy ns         ");
	for (i = 0; i < REIS_RES_N; i++)
		printf(" %s %" PRIu64 " (%" PRIu64 ")", reis_res_class_name(i), st.busy_ns[i],
		       st.nres[i]);
	printf("\nmodeled          %" PRIu64 " ns, %" PRIu64 " pJ; emulation %" PRIu64 " ns\n",
	       st.model_ns, st.energy_pj, st.emul_ns);
	printf("REIS             %" PRIu64 " searches, %" PRIu64 " filtered, %" PRIu64
	       " crossed the channel\n", st.searches, st.filtered_entries, st.ttl_entries);
	printf("RecFlash         %" PRIu64 " bags, cache %" PRIu64 " hits / %" PRIu64
	       " misses, %" PRIu64 " remaps\n", st.sls_bags, st.cache_hits,
	       st.cache_misses, st.remaps);
	if (ftl.user_bytes) {
		printf("ordinary I/O     %" PRIu64 " reads (%" PRIu64 " B), %" PRIu64
		       " writes (%" PRIu64 " B), %" PRIu64 " flushes, %" PRIu64
		       " deallocations; modeled %" PRIu64 " ns\n", ftl.reads, ftl.read_bytes,
		       ftl.writes, ftl.write_bytes, ftl.flushes, ftl.trims, ftl.io_model_ns);
		printf("FTL              NAND writes %" PRIu64 " B, write amplification %.3f, "
		       "GC %" PRIu64 " B moved, %" PRIu64 " victims, %" PRIu64 " erases\n",
		       ftl.nand_write_bytes, ftl.wa_milli / 1000.0, ftl.gc_write_bytes,
		       ftl.gc_victims, ftl.erases);
		printf("FTL space        %" PRIu64 " MiB mapped on %" PRIu64 " MiB of flash (%u "
		       "stripes, minimum %u, OP %.1f %%), %u free blocks, most erases %u\n",
		       ftl.user_bytes >> 20, ftl.phys_bytes >> 20, ftl.stripes, ftl.stripes_min,
		       ftl.op_permille / 10.0, ftl.free_blocks, ftl.erase_max);
	}
	if (flags & REIS_STATS_RESET)
		printf("(counters reset)\n");
	cli_inproc_counters(c, "these");
	return 0;
}

static const struct reis_cli_cmd reis_cmds[] = {
	{ "list", "find ISP drives (their databases: db list; tables: tables)",
	  "Scans /dev/ng*n* and lists the drives that answer ISP_IDENTIFY.\n"
	  "A drive's REIS databases are listed by `reis db list`, its RecFlash\n"
	  "tables by `reis tables`.\n", 0,
	  cmd_list },
	{ "info", "identify: version, capabilities, geometry, timing preset",
	  "Issues ISP_IDENTIFY and prints it decoded.\n", 1, cmd_info },
	{ "noop", "round-trip latency of ISP_NOOP",
	  "  -n, --count N   commands to send (default 1000)\n"
	  "  -q, --qd N      commands in flight (default 1)\n", 1, cmd_noop },
	{ "echo", "move a pattern through the data path and verify it",
	  "  -s, --size N    bytes per command, multiple of 4, or 'max' (default 4096)\n"
	  "  -d, --dir D     h2c, c2h or both (default both)\n"
	  "  -S, --seed N    pattern seed (default 1; command i uses seed+i)\n"
	  "  -n, --count N   commands per direction (default 1)\n", 1, cmd_echo },
	{ "stats", "cumulative drive statistics",
	  "  -r, --reset     zero the counters after reading\n", 1, cmd_stats },
};

static const struct reis_cli_table reis_dev_table = {
	reis_cmds, sizeof(reis_cmds) / sizeof(reis_cmds[0]),
};

/* Command tables: the device commands here, each feature's in its file. */
static const struct reis_cli_table *const reis_tables[] = {
	&reis_dev_table,
	&reis_db_table,
	&reis_sls_table,
	&reis_group_table,	/* device groups (tools/cli_group.c) */
};

#define NTABLES (sizeof(reis_tables) / sizeof(reis_tables[0]))

static void usage(FILE *f)
{
	unsigned i, t;

	fprintf(f,
		"usage: reis [OPTIONS] COMMAND [ARGS]\n"
		"\n"
		"Talks to an in-storage-processing NVMe drive through libreis %s.\n"
		"\n"
		"Options:\n"
		"  -d, --dev PATH       drive (/dev/ngXnY); default $REIS_DEV, else the\n"
		"                       first ISP drive found\n"
		"  -i, --inproc         use a drive modeled inside this process\n"
		"      --preset NAME    in-process preset (reis-ssd1, reis-ssd2,\n"
		"                       recflash-slc, recflash-tlc, recflash-qlc)\n"
		"      --backing FILE   in-process flash backing file\n"
		"      --params LIST    in-process preset overrides \"key=value;...\"\n"
		"      --max-xfer N     in-process bytes per command\n"
		"      --ioctl          use the ioctl transport instead of io_uring\n"
		"      --force          skip the ISP signature check\n"
		"  -j, --json           machine-readable output (one JSON document)\n"
		"  -h, --help           this help; 'reis COMMAND --help' for a command\n"
		"  -V, --version        print the library version\n"
		"\n"
		"Commands:\n", reis_version());
	for (t = 0; t < NTABLES; t++)
		for (i = 0; i < reis_tables[t]->n; i++)
			fprintf(f, "  %-8s %s\n", reis_tables[t]->cmds[i].name,
				reis_tables[t]->cmds[i].summary);
}

/*
 * --json anywhere among the global options (before the command), known
 * before they are parsed so that an error in them is a JSON document too.
 */
static int wants_json(int argc, char **argv)
{
	static const char *const with_value[] = {
		"--dev", "--preset", "--backing", "--params", "--max-xfer",
	};
	int i;
	unsigned k;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *f;

		if (!strcmp(argv[i], "--json"))
			return 1;
		if (argv[i][1] != '-') {
			/* short flags, clustered as getopt allows: -ij, -jd PATH, -id PATH */
			for (f = argv[i] + 1; *f; f++) {
				if (*f == 'j')
					return 1;
				if (*f == 'd') {
					i += !f[1];	/* the value is the next word */
					break;
				}
			}
			continue;
		}
		for (k = 0; k < sizeof(with_value) / sizeof(with_value[0]); k++)
			if (!strcmp(argv[i], with_value[k])) {
				i++;	/* its value (none when it is the last word) */
				break;
			}
	}
	return 0;
}

static int run(struct ctx *c, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "inproc", no_argument, NULL, 'i' },
		{ "preset", required_argument, NULL, 'P' },
		{ "backing", required_argument, NULL, 'B' },
		{ "params", required_argument, NULL, 'A' },
		{ "max-xfer", required_argument, NULL, 'X' },
		{ "ioctl", no_argument, NULL, 'I' },
		{ "force", no_argument, NULL, 'F' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct reis_cli_cmd *cmd = NULL;
	uint64_t v;
	unsigned i, t;
	int opt, ret;

	while ((opt = cli_getopt(NULL, argc, argv, "+d:ijhV", lo)) != -1) {
		switch (opt) {
		case 'd': c->dev_path = optarg; break;
		case 'i': c->inproc = 1; break;
		case 'P': c->iopts.preset = optarg; c->inproc = 1; break;
		case 'B': c->iopts.backing = optarg; c->inproc = 1; break;
		case 'A': c->iopts.params = optarg; c->inproc = 1; break;
		case 'X':
			if (parse_u64(optarg, REIS_IDENTIFY_LEN, REIS_MAX_XFER_CAP, &v) || v % 4)
				return usage_err("--max-xfer must be a multiple of 4 in %u..%u",
						 REIS_IDENTIFY_LEN, REIS_MAX_XFER_CAP);
			c->iopts.max_xfer = (uint32_t)v;
			c->inproc = 1;
			break;
		case 'I': c->open_flags |= REIS_OPEN_IOCTL; break;
		case 'F': c->open_flags |= REIS_OPEN_FORCE; break;
		case 'j': c->json = 1; break;
		case 'h': j_raw_output(); usage(stdout); return 0;
		case 'V':
			j_raw_output();
			printf("reis (libreis) %s\n", reis_version());
			return 0;
		default:
			return EXIT_USAGE;
		}
	}
	if (c->dev_path && c->inproc)
		return usage_err("--dev and --inproc exclude each other");
	if (optind >= argc) {
		usage(stderr);
		return usage_err("no command given");
	}
	for (t = 0; t < NTABLES; t++)
		for (i = 0; i < reis_tables[t]->n; i++)
			if (!strcmp(argv[optind], reis_tables[t]->cmds[i].name))
				cmd = &reis_tables[t]->cmds[i];
	if (!cmd)
		return usage_err("unknown command '%s'", argv[optind]);
	argc -= optind;
	argv += optind;
	if (sub_help(cmd, argc, argv))
		return 0;
	if (cmd->needs_dev) {
		c->warn_volatile = cmd->needs_dev == 2;
		ret = open_dev(c);
		if (ret)
			return open_dev_exit(c, ret);
	}
	return cmd->fn(c, argc, argv);
}

int main(int argc, char **argv)
{
	struct ctx c;
	int ret;

	memset(&c, 0, sizeof(c));
	j_init(stdout, wants_json(argc, argv));
	ret = run(&c, argc, argv);
	reis_close(c.dev);
	return j_finish(ret);
}
