/* SPDX-License-Identifier: MIT */
/*
 * bench_flash.c - host cost of the flash model.
 *
 * Steps:
 *  1. timing engine: ns of host CPU per page operation, per-page path
 *     (ft_page_read, one lock each), batch path (ft_batch_read), with a trace;
 *  2. analytic mode at paper scale (REIS: 41.5 M 1024-bit embeddings,
 *     16,384 IVF clusters) on reis-ssd1 and reis-ssd2: modeled time and the
 *     host time to compute it;
 *  3. memory per GiB of emulated (programmed) flash, in memory and with a
 *     backing file, and the cost of a 16 KiB page read / program.
 *
 * Usage: bench_flash [scratch-dir]   (default $TMPDIR or /tmp)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "flash_geom.h"
#include "flash_store.h"
#include "flash_timing.h"
#include "ex_usage.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long rss_kib(void)
{
	long pages = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
			resident = 0;
		fclose(f);
	}
	return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static void die(const char *what)
{
	fprintf(stderr, "bench_flash: %s failed\n", what);
	exit(1);
}

static struct ft_page_op reis_op(const struct fp_params *p)
{
	struct ft_page_op op = { .mode = ISP_CELL_SLC, .flags = FT_OP_XOR | FT_OP_CACHE,
				 .n_fbc = p->page_bytes / 128, .n_cmp = p->page_bytes / 128,
				 .n_dout = 1, .dout_bytes = 177 };
	return op;
}

static void bench_engine(const char *preset)
{
	struct fp_params p;
	struct ft *ft;
	struct ft_cmd c;
	struct ft_trace *tr;
	struct ft_batch b;
	struct ft_page_op op;
	const uint32_t n = 2000000;
	double t0, per_page, batch, traced;
	uint32_t i, np;

	if (fp_preset(preset, &p) || ft_open(&p, &ft))
		die("ft_open");
	np = p.channels * p.dies_per_channel * p.planes_per_die;
	op = reis_op(&p);
	ft_cmd_begin(ft, &c, 0, NULL);
	t0 = now();
	for (i = 0; i < n; i++)
		ft_page_read(ft, &c, fg_pfpa_plane_of(p.channels, p.dies_per_channel,
						      p.planes_per_die, i), &op, 0);
	per_page = (now() - t0) / n * 1e9;
	ft_cmd_end(ft, &c, NULL);

	memset(&b, 0, sizeof(b));
	b.count = n;
	b.op = op;
	ft_cmd_begin(ft, &c, 1000000000000ull, NULL);
	t0 = now();
	ft_batch_read(ft, &c, &b, 0);
	batch = (now() - t0) / n * 1e9;
	ft_cmd_end(ft, &c, NULL);

	if (ft_trace_new(8u * 200000, &tr))
		die("trace");
	ft_cmd_begin(ft, &c, 2000000000000ull, tr);
	t0 = now();
	for (i = 0; i < 200000; i++)
		ft_page_read(ft, &c, i % np, &op, 0);
	traced = (now() - t0) / 200000 * 1e9;
	ft_cmd_end(ft, &c, NULL);
	ft_trace_free(tr);
	printf("%-12s page op: %6.1f ns per-page path, %6.1f ns batch, %6.1f ns traced\n",
	       preset, per_page, batch, traced);
	ft_close(ft);
}

/* REIS brute force (BF) and IVF over @n 1024-bit embeddings, analytic. */
static void bench_paper(const char *preset, uint64_t n, uint32_t clusters, uint32_t nprobe)
{
	const uint32_t emb = 128, entry = 128 + 2 + 4 + 4;	/* EMB DIST RADR DADR */
	struct fp_params p;
	struct ft *ft;
	struct ft_cmd c;
	struct ft_batch b;
	uint64_t pages, per_page, pass, t, ns_bf, ns_ivf, cl_pages, i;
	double t0, cpu_bf, cpu_ivf;
	uint32_t seed = 12345;

	if (fp_preset(preset, &p) || ft_open(&p, &ft))
		die("ft_open");
	per_page = p.page_bytes / emb;
	pages = (n + per_page - 1) / per_page;
	pass = n / 100;		/* distance filter keeps 1 % (REIS 4.3.3) */

	/* Brute force: query in, MPIBC, every page, quickselect, rerank, out. */
	t0 = now();
	memset(&b, 0, sizeof(b));
	b.count = pages;
	b.op = reis_op(&p);
	b.op.dout_bytes = (uint32_t)((pass * entry + pages - 1) / pages);
	b.dram_bytes = b.op.dout_bytes;
	ft_cmd_begin(ft, &c, 0, NULL);
	t = ft_ctrl(ft, &c, 0);
	t = ft_dma(ft, &c, FT_H2C, emb, t);
	t = ft_ibc_all(ft, &c, 128, p.page_bytes, 1, t);
	t = ft_batch_read(ft, &c, &b, t);
	t = ft_core(ft, &c, FT_CORE_ISP, ft_cycles_select(&p, pass), "quickselect", t);
	t = ft_core(ft, &c, FT_CORE_ISP, ft_cycles_rerank(&p, 100, 1024), "rerank", t);
	t = ft_core(ft, &c, FT_CORE_ISP, ft_cycles_sort(&p, 100), "sort", t);
	ft_dma(ft, &c, FT_C2H, 10 * 4096, t);
	ft_cmd_end(ft, &c, &ns_bf);
	cpu_bf = now() - t0;

	/* IVF: centroids (coarse), then nprobe clusters of n/clusters each. */
	t0 = now();
	cl_pages = (n / clusters + per_page - 1) / per_page;
	ft_cmd_begin(ft, &c, ns_bf + 1000000000ull, NULL);
	t = ft_ctrl(ft, &c, 0);
	t = ft_dma(ft, &c, FT_H2C, emb, t);
	t = ft_ibc_all(ft, &c, 128, p.page_bytes, 1, t);
	memset(&b, 0, sizeof(b));
	b.count = (clusters + per_page - 1) / per_page;
	b.op = reis_op(&p);
	b.op.flags &= ~FT_OP_CACHE;
	b.op.n_cmp = 0;
	b.op.dout_bytes = (uint32_t)(per_page * (entry - 8 + 1));	/* EMB DIST TAG */
	t = ft_batch_read(ft, &c, &b, t);
	t = ft_core(ft, &c, FT_CORE_ISP, ft_cycles_select(&p, clusters), "quickselect-c", t);
	{
		uint64_t fine_end = t;

		b.op = reis_op(&p);
		b.op.dout_bytes = (uint32_t)((cl_pages * per_page / 100 * entry + cl_pages - 1) /
					     cl_pages);
		for (i = 0; i < nprobe; i++) {
			uint64_t e;

			seed = seed * 1103515245u + 12345u;
			b.first = 1000 + (uint64_t)(seed % clusters) * cl_pages;
			b.count = cl_pages;
			e = ft_batch_read(ft, &c, &b, t);
			if (e > fine_end)
				fine_end = e;
		}
		t = fine_end;
	}
	t = ft_core(ft, &c, FT_CORE_ISP,
		    ft_cycles_select(&p, nprobe * cl_pages * per_page / 100), "quickselect-e", t);
	t = ft_core(ft, &c, FT_CORE_ISP, ft_cycles_rerank(&p, 100, 1024), "rerank", t);
	t = ft_core(ft, &c, FT_CORE_ISP, ft_cycles_sort(&p, 100), "sort", t);
	ft_dma(ft, &c, FT_C2H, 10 * 4096, t);
	ft_cmd_end(ft, &c, &ns_ivf);
	cpu_ivf = now() - t0;
	printf("%-12s %.1f M x 1024 bit: BF %" "llu pages %8.3f ms modeled, %6.1f ms host;"
	       " IVF %u clusters nprobe %u: %7.3f ms modeled, %5.2f ms host\n",
	       preset, n / 1e6, (unsigned long long)pages, ns_bf / 1e6, cpu_bf * 1e3,
	       clusters, nprobe, ns_ivf / 1e6, cpu_ivf * 1e3);
	ft_close(ft);
}

static void bench_memory(const char *dir)
{
	const uint64_t pages = 16384;	/* 256 MiB of 16 KiB pages, scaled to 1 GiB */
	struct fp_params p;
	struct fs_config cfg = { 0 };
	struct fs_stats st;
	struct fs *fs;
	const struct fg_geom *g;
	char path[512], err[256];
	uint8_t *page;
	long r0, r1;
	uint64_t i, ppa;
	double t0, t_prog, t_read;
	struct stat sb;
	int mode;

	if (fp_preset("reis-ssd1", &p))
		die("preset");
	page = malloc(p.page_bytes + p.oob_bytes);
	if (!page)
		die("malloc");
	memset(page, 0x3c, p.page_bytes + p.oob_bytes);
	cfg.params = &p;
	for (mode = 1; mode >= 0; mode--) {	/* file first: RSS only grows */
		snprintf(path, sizeof(path), "%s/bench_flash.%d.img", dir, (int)getpid());
		unlink(path);
		cfg.path = mode ? path : NULL;
		cfg.flags = FS_NOSYNC;
		r0 = rss_kib();
		if (fs_open(&cfg, &fs, err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			die("fs_open");
		}
		g = fs_geom(fs);
		t0 = now();
		for (i = 0; i < pages; i++) {
			if (fg_pfpa_ppa(g, FG_PART_NATIVE, g->slc_blocks, 1, i, &ppa) ||
			    fs_program(fs, ppa, page, page + p.page_bytes))
				die("program");
		}
		t_prog = (now() - t0) / pages * 1e9;
		t0 = now();
		for (i = 0; i < pages; i++) {
			fg_pfpa_ppa(g, FG_PART_NATIVE, g->slc_blocks, 1, (i * 7919) % pages, &ppa);
			if (fs_read(fs, ppa, 0, page, p.page_bytes))
				die("read");
		}
		t_read = (now() - t0) / pages * 1e9;
		r1 = rss_kib();
		fs_get_stats(fs, &st);
		printf("store %-6s: %.1f MiB host RAM per GiB programmed (store's own count "
		       "%.1f MiB), program %.1f us, read %.1f us per 16 KiB page",
		       mode ? "file" : "memory", (r1 - r0) / 1024.0 * (65536.0 / pages),
		       st.mem_bytes / 1048576.0 * (65536.0 / pages), t_prog / 1e3, t_read / 1e3);
		if (mode && stat(path, &sb) == 0)
			printf("; file: %.0f MiB on disk per GiB (apparent size %.1f GiB)",
			       sb.st_blocks * 512.0 / 1048576.0 * (65536.0 / pages),
			       sb.st_size / 1073741824.0);
		printf("\n");
		fs_close(fs);
		unlink(path);
	}
	free(page);
}

int main(int argc, char **argv)
{
	static const char usage[] = "usage: bench_flash [DIR]   (DIR: where the backing "
				    "file of the memory run goes; default $TMPDIR, else /tmp)\n";
	const char *dir = argc > 1 ? argv[1] : getenv("TMPDIR");

	ex_operands_only("bench_flash", argc, argv, usage);
	if (argc > 2)
		ex_usage_err("bench_flash", "unexpected argument", argv[2], usage);
	if (!dir || !*dir)
		dir = "/tmp";
	bench_engine("reis-ssd1");
	bench_engine("reis-ssd2");
	bench_engine("recflash-tlc");
	bench_paper("reis-ssd1", 41500000, 16384, 256);
	bench_paper("reis-ssd2", 41500000, 16384, 256);
	bench_memory(dir);
	return 0;
}
