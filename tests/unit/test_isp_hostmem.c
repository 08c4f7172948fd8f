/* SPDX-License-Identifier: MIT */
/*
 * test_isp_hostmem.c - one host-memory bound per drive (isp_hostmem.h,
 * docs/security.md §3, issue 32 item 3):
 *  - the plan: identify reports host_mem and every share, which sum to at
 *    most host_mem; defaults are parts of host_mem (4 GiB: buf_budget and
 *    max_result_bytes 256 MiB, bounce 64 MiB, mem_cap the rest); shares
 *    that do not fit refuse the open, naming host_mem; with a backing file
 *    mem_cap holds no RAM;
 *  - the bound holds: host_mem=160m, then every budget driven to its limit
 *    in turn, all held at once where they are held (DRAM-backed mapping
 *    tables until Capacity Exceeded, results until Resource Busy, four
 *    queues' SLS filling the buffer budget, the in-memory store until
 *    Capacity Exceeded); the process's anonymous RSS, sampled every
 *    millisecond, never grows by more than host_mem;
 *  - the disk: backing_cap refuses programs past it (Capacity Exceeded)
 *    and the file's allocated bytes stay under it; trace_cap bounds what
 *    isp-trace-dir receives.
 */
#include <dirent.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_isp_raw.h"
#include "flash_store.h"
#include "rss_t.h"

#define MIB (1024ull * 1024ull)

static void identify(struct isp_dev *dev, struct isp_wire_identify *id)
{
	struct isp_cmd c = rt_cmd(ISP_OP_IDENTIFY, sizeof(*id));

	REQUIRE(rt_exec(dev, &c, id, NULL) == 0);
}

static struct isp_dev *try_open(const char *params, const char *backing, char *err, size_t len)
{
	struct isp_dev_config cfg = { .preset = "recflash-tlc", .params = params,
				      .backing = backing, .max_xfer = RT_MAX_XFER };
	struct isp_dev *dev = NULL;

	err[0] = '\0';
	if (isp_dev_open(&cfg, &dev, err, len))
		return NULL;
	return dev;
}

static void check_sum(const struct isp_wire_identify *id)
{
	uint64_t sum = id->host_fixed_bytes + id->mem_cap_bytes + id->dram_bytes +
		       id->buf_budget_bytes + id->max_result_bytes + id->bounce_bytes;

	if (sum > id->host_mem_bytes) {
		fprintf(stderr, "shares %llu > host_mem %llu\n", (unsigned long long)sum,
			(unsigned long long)id->host_mem_bytes);
		t_failures++;
	}
}

static void test_plan(void)
{
	struct isp_wire_identify id;
	struct isp_dev *dev;
	char err[512], path[] = "/tmp/test_isp_hostmem.XXXXXX";
	int fd;

	dev = try_open(NULL, NULL, err, sizeof(err));
	REQUIRE(dev);
	identify(dev, &id);
	CHECK_EQ_U64(id.host_mem_bytes, 4096 * MIB);
	CHECK_EQ_U64(id.buf_budget_bytes, 256 * MIB);
	CHECK_EQ_U64(id.max_result_bytes, 256 * MIB);
	CHECK_EQ_U64(id.bounce_bytes, 64 * MIB);
	CHECK_EQ_U64(id.backing_cap_bytes, 64 * 1024 * MIB);
	CHECK_EQ_U64(id.trace_cap_bytes, 256 * MIB);
	CHECK(id.host_fixed_bytes > 0 && id.host_fixed_bytes < 512 * MIB);
	/* the rest is the store's: exactly what the others leave */
	CHECK_EQ_U64(id.host_fixed_bytes + id.mem_cap_bytes + id.dram_bytes + id.buf_budget_bytes +
		     id.max_result_bytes + id.bounce_bytes, id.host_mem_bytes);
	CHECK_EQ_U64(id.budget_errors, 0);
	printf("default plan: host_mem 4096 MiB = fixed %.1f + mem_cap %.1f + dram %.1f + "
	       "buffers 256 + results 256 + bounce 64 MiB\n", id.host_fixed_bytes / (double)MIB,
	       id.mem_cap_bytes / (double)MIB, id.dram_bytes / (double)MIB);
	isp_dev_close(dev);

	dev = try_open("host_mem=256m;dram_bytes=32m", NULL, err, sizeof(err));
	REQUIRE(dev);
	identify(dev, &id);
	CHECK_EQ_U64(id.buf_budget_bytes, 16 * MIB);
	CHECK_EQ_U64(id.max_result_bytes, 16 * MIB);
	CHECK_EQ_U64(id.bounce_bytes, 4 * MIB);
	check_sum(&id);
	isp_dev_close(dev);

	/* shares that do not fit: refused, the message names the parts */
	CHECK(try_open("mem_cap=8g", NULL, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "host_mem") && strstr(err, "mem_cap 8192m"));
	CHECK(try_open("host_mem=64m", NULL, err, sizeof(err)) == NULL);	/* dram 1 GiB */
	CHECK(strstr(err, "host_mem=64m") != NULL);
	dev = try_open("host_mem=16g;mem_cap=8g;buf_budget=1g", NULL, err, sizeof(err));
	CHECK(dev != NULL);
	isp_dev_close(dev);

	/* a backing file: the pages are on disk, mem_cap holds no RAM */
	fd = mkstemp(path);
	REQUIRE(fd >= 0);
	close(fd);
	unlink(path);
	dev = try_open(NULL, path, err, sizeof(err));
	REQUIRE(dev);
	identify(dev, &id);
	CHECK_EQ_U64(id.mem_cap_bytes, 0);
	check_sum(&id);
	isp_dev_close(dev);
	unlink(path);
}

/* ---- the bound, every budget at its limit ---- */

struct sampler {
	pthread_t th;
	atomic_int stop;
	uint64_t base, peak;
};

static void *sample(void *arg)
{
	struct sampler *s = arg;

	while (!atomic_load(&s->stop)) {
		uint64_t r = rss_status_bytes("RssAnon:");

		if (r > s->peak)
			s->peak = r;
		usleep(1000);
	}
	return NULL;
}

struct sls_job {
	struct isp_dev *dev;
	uint8_t *data;
	size_t len;
	uint16_t sqid;
	uint32_t ticket;
	uint16_t st;
};

static void *sls_thread(void *arg)
{
	struct sls_job *j = arg;
	struct isp_cmd c = rt_cmd(ISP_OP_RF_SLS, (uint32_t)j->len);
	struct isp_cmd r;

	c.sqid = j->sqid;
	c.cdw12 = j->ticket;
	j->st = rt_exec(j->dev, &c, j->data, NULL);
	r = rt_cmd(ISP_OP_RESULT_RELEASE, 0);
	r.cdw12 = j->ticket;
	if (!j->st)
		rt_exec(j->dev, &r, NULL, NULL);
	return NULL;
}

static void test_bound(void)
{
	const uint64_t hm = 160 * MIB;
	struct isp_wire_rf_create cr;
	struct isp_wire_reis_create dc;
	struct isp_wire_identify id;
	struct rt_batch wide, stage;
	struct sls_job jobs[4];
	struct sampler smp;
	struct isp_dev *dev;
	uint8_t *rows, *bin, *wdata, *sdata;
	uint32_t t, ntables = 0, held = 0, i;
	uint64_t off, cap_at = 0;
	size_t wlen, slen;
	char err[512];
	pthread_t th[4];
	uint16_t st;

	/* every buffer the test itself uses, before the baseline */
	rows = rt_table(200000, 1, ISP_RF_FP32, 3);		/* 800 KB */
	bin = malloc(64 * MIB);
	REQUIRE(rows && bin);
	memset(bin, 0x5a, 64 * MIB);
	rt_batch_random(&wide, 2048, 4, 2000, 0, 7);		/* 2 MiB results */
	rt_batch_random(&stage, 100, 60, 40000, 0, 9);		/* ~3000 rows staged */
	wlen = rt_sls_data(100, 256, 0, &wide, &wdata);
	slen = rt_sls_data(101, 256, 0, &stage, &sdata);

	dev = try_open("host_mem=160m;dram_bytes=24m;blocks_per_plane=64;slc_blocks=48", NULL, err, sizeof(err));
	if (!dev)
		fprintf(stderr, "open: %s\n", err);
	REQUIRE(dev);
	identify(dev, &id);
	check_sum(&id);
	printf("host_mem 160 MiB = fixed %.1f + mem_cap %.1f + dram %.1f + buffers %.1f + results "
	       "%.1f + bounce %.1f MiB\n", id.host_fixed_bytes / (double)MIB,
	       id.mem_cap_bytes / (double)MIB, id.dram_bytes / (double)MIB,
	       id.buf_budget_bytes / (double)MIB, id.max_result_bytes / (double)MIB,
	       id.bounce_bytes / (double)MIB);
	memset(&smp, 0, sizeof(smp));
	smp.base = rss_status_bytes("RssAnon:");
	smp.peak = smp.base;
	REQUIRE(pthread_create(&smp.th, NULL, sample, &smp) == 0);

	/* DRAM: RecFlash mapping tables (16.25 B a row) until it is full */
	for (t = 1; t <= 64; t++) {
		cr = rt_cr(t, 200000, 1, ISP_RF_FP32, ISP_RF_RECFLASH);
		st = rt_deploy(dev, &cr, rows, NULL);
		if (st)
			break;
		ntables++;
	}
	CHECK_EQ_U64(st, ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR);
	CHECK(ntables >= 2);
	rt_simple(dev, ISP_OP_RF_TBL_DELETE, t, 0, NULL);

	/* results: 2 MiB SLS results held until the table refuses */
	cr = rt_cr(100, 2000, 256, ISP_RF_FP32, ISP_RF_RECSSD);
	REQUIRE(rt_deploy(dev, &cr, bin, NULL) == 0);
	cr = rt_cr(101, 40000, 256, ISP_RF_FP32, ISP_RF_RECSSD);	/* 40 MB */
	REQUIRE(rt_deploy(dev, &cr, bin, NULL) == 0);
	for (i = 0; i < 64; i++) {
		struct isp_cmd c = rt_cmd(ISP_OP_RF_SLS, (uint32_t)wlen);

		c.sqid = (uint16_t)(1 + i % 2);	/* two queues: past a lone one's share */
		c.cdw12 = 1000 + i;
		st = rt_exec(dev, &c, wdata, NULL);
		if (st)
			break;
		held++;
	}
	CHECK_EQ_U64(st, ISP_SC_RESOURCE);
	CHECK(held >= 4);

	/* buffers: four queues' SLS staging ~3000 rows (3 MB) each at once */
	for (i = 0; i < 4; i++) {
		jobs[i] = (struct sls_job){ .dev = dev, .data = sdata, .len = slen,
					    .sqid = (uint16_t)(10 + i), .ticket = 5000 + i };
		REQUIRE(pthread_create(&th[i], NULL, sls_thread, &jobs[i]) == 0);
	}
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < 4; i++) {
		if (jobs[i].st != 0 && jobs[i].st != ISP_SC_RESOURCE)
			fprintf(stderr, "SLS of queue %u: 0x%x\n", jobs[i].sqid, jobs[i].st);
		CHECK(jobs[i].st == 0 || jobs[i].st == ISP_SC_RESOURCE);
	}

	/* the in-memory store: binary codes until Capacity Exceeded */
	memset(&dc, 0, sizeof(dc));
	dc.did = 1;
	dc.kind = ISP_REIS_BF;
	dc.dim = 1024;
	dc.n = 1000000;
	REQUIRE(raw_db_create(dev, &dc) == 0);
	for (off = 0, st = 0; off < (uint64_t)dc.n * 128 && !st; off += 256 * 1024) {
		st = raw_db_write(dev, 1, ISP_REIS_SEC_BIN, off, bin + off % (63 * MIB), 256 * 1024);
		if (st)
			cap_at = off;
	}
	CHECK_EQ_U64(st, ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR);
	CHECK(cap_at > 0);

	atomic_store(&smp.stop, 1);
	pthread_join(smp.th, NULL);
	identify(dev, &id);
	CHECK_EQ_U64(id.budget_errors, 0);
	printf("host_mem %llu MiB: %u mapping tables, %u results held, store refused at %.1f MiB; "
	       "anonymous RSS grew %.1f MiB at most\n", (unsigned long long)(hm / MIB), ntables,
	       held, cap_at / (double)MIB, (smp.peak - smp.base) / (double)MIB);
	CHECK(smp.peak - smp.base <= hm);
	isp_dev_close(dev);
	free(rows);
	free(bin);
	free(wdata);
	free(sdata);
	rt_batch_free(&wide);
	rt_batch_free(&stage);
}

/* ---- disk: backing_cap, trace_cap ---- */

static uint64_t dir_bytes(const char *dir, unsigned *files)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[512];
	struct stat sb;
	uint64_t n = 0;

	*files = 0;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (e->d_name[0] != '.' && stat(p, &sb) == 0) {
			n += (uint64_t)sb.st_size;
			(*files)++;
		}
	}
	closedir(d);
	return n;
}

static void test_disk(void)
{
	char path[] = "/tmp/test_isp_hostmem.XXXXXX", dir[] = "/tmp/test_isp_trace.XXXXXX";
	struct isp_dev_config cfg = { .preset = "reis-ssd1",
				      .params = "blocks_per_plane=24;slc_blocks=12;backing_cap=8m",
				      .max_xfer = RT_MAX_XFER };
	struct isp_wire_reis_create dc;
	struct fs_stats fst;
	struct isp_dev *dev = NULL;
	struct stat sb;
	uint8_t *bin = malloc(256 * 1024);
	uint64_t off;
	unsigned files, i;
	char err[256];
	uint16_t st = 0;
	int fd;

	REQUIRE(bin);
	memset(bin, 0xa5, 256 * 1024);
	fd = mkstemp(path);
	REQUIRE(fd >= 0);
	close(fd);
	unlink(path);
	cfg.backing = path;
	REQUIRE(isp_dev_open(&cfg, &dev, err, sizeof(err)) == 0);
	memset(&dc, 0, sizeof(dc));
	dc.did = 1;
	dc.kind = ISP_REIS_BF;
	dc.dim = 1024;
	dc.n = 200000;	/* 25 MB of codes */
	REQUIRE(raw_db_create(dev, &dc) == 0);
	for (off = 0; off < (uint64_t)dc.n * 128 && !st; off += 256 * 1024)
		st = raw_db_write(dev, 1, ISP_REIS_SEC_BIN, off, bin, 256 * 1024);
	CHECK_EQ_U64(st, ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR);
	fs_get_stats(isp_dev_store(dev), &fst);
	CHECK(fst.disk_refused >= 1);
	REQUIRE(stat(path, &sb) == 0);
	printf("backing_cap=8m: refused at %.1f MiB of codes, file %.1f MiB allocated\n",
	       off / (double)MIB, sb.st_blocks * 512.0 / MIB);
	/* pages at most the cap, plus the metadata slots written */
	CHECK((uint64_t)sb.st_blocks * 512 <= 8 * MIB + 4 * MIB);
	isp_dev_close(dev);
	unlink(path);

	/* trace_cap: every command's timeline to a file, until 64 KiB of them */
	REQUIRE(mkdtemp(dir));
	cfg.backing = NULL;
	cfg.params = "blocks_per_plane=24;slc_blocks=12;trace_cap=64k";
	cfg.trace_dir = dir;
	REQUIRE(isp_dev_open(&cfg, &dev, err, sizeof(err)) == 0);
	for (i = 0; i < 2000; i++) {
		struct isp_cmd c = rt_cmd(ISP_OP_ECHO_C2H, 4096);

		c.cdw12 = i;
		rt_exec(dev, &c, bin, NULL);
	}
	isp_dev_close(dev);
	off = dir_bytes(dir, &files);
	printf("trace_cap=64k: %u files, %llu bytes after 2000 commands\n", files,
	       (unsigned long long)off);
	CHECK(files > 0 && files < 2000);
	CHECK(off <= 64 * 1024);
	{
		DIR *d = opendir(dir);
		struct dirent *e;
		char p[512];

		while (d && (e = readdir(d)))
			if (e->d_name[0] != '.') {
				snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
				unlink(p);
			}
		if (d)
			closedir(d);
	}
	rmdir(dir);
	free(bin);
}

int main(void)
{
	test_plan();
	test_bound();
	test_disk();
	return t_result();
}
