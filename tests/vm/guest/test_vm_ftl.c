/* SPDX-License-Identifier: MIT */
/*
 * test_vm_ftl - ordinary I/O through the model's FTL (isp-ftl=on, the
 * default; docs/ftl.md), in the ISP-on boot (isp-timing=annotate):
 *   1. the statistics log maps the namespace (its size, the stripes the
 *      FTL holds, at least its minimum) and Identify has ISP_CAP_FTL;
 *   2. raw 4 KiB writes and reads (/dev/ng0n1): the data comes back, each
 *      completion's DW0/DW1 carries a modeled time (a read from flash at
 *      least tR of TLC, 60 us; a read still in the write buffer less); the
 *      counters grow by exactly what was sent; a Flush and a Write Zeroes
 *      (deallocation, reads as zeros) are counted; block I/O through
 *      /dev/nvme0n1 (O_DIRECT) is counted the same way;
 *   3. SMART / Health Information carries the FTL's spare and wear;
 *      `reis stats` and `reis --json stats` print the log's FTL counters
 *      (the CLI issues no ordinary I/O: the very numbers of the log);
 *   4. the same calendars: 4 KiB reads while REIS searches run on another
 *      ring wait for the planes the searches hold (modeled time well above
 *      the idle reads'), and every search result equals the host reference.
 * Runs also on stack 7.2.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "ftl_util.h"
#include "reis_cmp.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_map_and_counters(struct pt_ring *r, uint32_t lbs)
{
	struct isp_wire_identify *id = pt_alloc(sizeof(*id));
	struct isp_wire_stats a, b;
	uint8_t *buf = pt_alloc(4096), *back = pt_alloc(4096);
	uint64_t slba0 = (32ull << 20) / lbs, m, reads_flash = 0, hits = 0, i;
	uint32_t per = 4096 / lbs;
	struct pt_cmd c;
	int fd;

	REQUIRE(pt_isp_identify(r, id) == 0);
	CHECK(id->caps & ISP_CAP_FTL);
	ftl_stats(&a);
	printf("FTL: %llu MiB mapped on %u stripes (minimum %u), %llu MiB of flash, "
	       "OP %u permille\n", (unsigned long long)(a.ftl_user_bytes >> 20), a.ftl_stripes,
	       a.ftl_stripes_min, (unsigned long long)(a.ftl_phys_bytes >> 20),
	       a.ftl_op_permille);
	CHECK_EQ_U64(a.ftl_user_bytes, ftl_ns_bytes());
	CHECK(a.ftl_stripes >= a.ftl_stripes_min && a.ftl_stripes_min > 0);
	CHECK(a.ftl_phys_bytes > a.ftl_user_bytes);

	/* 64 writes of 4 KiB, each read back at once (from the buffer), then
	 * after a Flush from flash */
	for (i = 0; i < 64; i++) {
		isp_wire_pattern((uint32_t)(1000 + i), buf, 4096);
		REQUIRE(ftl_rw(r, 1, buf, slba0 + i * per, per, lbs, &m, NULL) == 0);
		CHECK(m > 0 && m < 100000000);
		REQUIRE(ftl_rw(r, 0, back, slba0 + i * per, per, lbs, &m, NULL) == 0);
		CHECK(!memcmp(buf, back, 4096));
		/* 3 of every 4 sit in the page being assembled: no tR; the 4th's
		 * page may have programmed by now (700 us) */
		hits += m < 60000;
	}
	CHECK(hits >= 48);
	pt_rw(&c, 0, NULL, 0, 1, lbs);
	c.c.opcode = 0x00;	/* Flush */
	c.c.data_len = 0;
	c.c.addr = 0;
	c.c.cdw12 = 0;
	REQUIRE(pt_run(r, &c) == 0);
	for (i = 0; i < 64; i++) {
		isp_wire_pattern((uint32_t)(1000 + i), buf, 4096);
		REQUIRE(ftl_rw(r, 0, back, slba0 + i * per, per, lbs, &m, NULL) == 0);
		CHECK(!memcmp(buf, back, 4096));
		CHECK(m < 100000000);
		reads_flash += m >= 60000;	/* tR TLC, REIS presets */
	}
	/* the last pages may still program (the Flush was not held) */
	CHECK(reads_flash >= 32);
	/* Write Zeroes of the first 64 KiB: a deallocation, reads as zeros */
	pt_rw(&c, 0, NULL, slba0, 16 * per, lbs);
	c.c.opcode = 0x08;
	c.c.data_len = 0;
	c.c.addr = 0;
	REQUIRE(pt_run(r, &c) == 0);
	REQUIRE(ftl_rw(r, 0, back, slba0, per, lbs, &m, NULL) == 0);
	memset(buf, 0, 4096);
	CHECK(!memcmp(buf, back, 4096));
	CHECK(m < 60000);	/* never read from flash */

	ftl_stats(&b);
	CHECK_EQ_U64(b.ftl_writes - a.ftl_writes, 64);
	CHECK_EQ_U64(b.ftl_write_bytes - a.ftl_write_bytes, 64 * 4096);
	CHECK_EQ_U64(b.ftl_reads - a.ftl_reads, 129);
	CHECK_EQ_U64(b.ftl_read_bytes - a.ftl_read_bytes, 129 * 4096);
	CHECK_EQ_U64(b.ftl_flushes - a.ftl_flushes, 1);
	CHECK_EQ_U64(b.ftl_trims - a.ftl_trims, 1);
	CHECK(b.ftl_buf_hits - a.ftl_buf_hits >= 48);
	CHECK(b.ftl_nand_write_bytes > a.ftl_nand_write_bytes);
	CHECK(b.ftl_io_model_ns > a.ftl_io_model_ns);
	printf("64 writes, 129 reads (%llu from flash), a flush, a write zeroes: "
	       "%llu ns modeled in all, WA so far %u / 1000\n", (unsigned long long)reads_flash,
	       (unsigned long long)(b.ftl_io_model_ns - a.ftl_io_model_ns), b.ftl_wa_milli);

	/* the block device: 1 MiB in 4 KiB direct writes, read back */
	fd = open(PT_BLOCK_DEV, O_RDWR | O_DIRECT);
	REQUIRE(fd >= 0);
	ftl_stats(&a);
	for (i = 0; i < 256; i++) {
		isp_wire_pattern((uint32_t)(5000 + i), buf, 4096);
		REQUIRE(pwrite(fd, buf, 4096, (off_t)(40ull << 20) + (off_t)i * 4096) == 4096);
	}
	for (i = 0; i < 256; i++) {
		isp_wire_pattern((uint32_t)(5000 + i), buf, 4096);
		REQUIRE(pread(fd, back, 4096, (off_t)(40ull << 20) + (off_t)i * 4096) == 4096);
		CHECK(!memcmp(buf, back, 4096));
	}
	close(fd);
	ftl_stats(&b);
	CHECK(b.ftl_write_bytes - a.ftl_write_bytes >= 256 * 4096);
	CHECK(b.ftl_read_bytes - a.ftl_read_bytes >= 256 * 4096);
	free(id);
	free(buf);
	free(back);
}

static void test_smart(void)
{
	uint8_t *smart = pt_alloc(512);

	REQUIRE(pt_get_log(0x02, smart, 512) == 0);
	/* bytes 3, 4, 5: Available Spare, its Threshold, Percentage Used */
	printf("SMART: available spare %u %%, threshold %u %%, used %u %%, critical 0x%x\n",
	       smart[3], smart[4], smart[5], smart[0]);
	CHECK(smart[3] > 0 && smart[3] <= 100);
	CHECK_EQ_U64(smart[4], 10);
	CHECK(smart[5] <= 100);
	free(smart);
}

/* @cmd's output (stdout and stderr) into @out; its exit status. */
static int run_cli(const char *cmd, char *out, size_t cap)
{
	FILE *p = popen(cmd, "r");
	size_t len;

	REQUIRE(p);
	len = fread(out, 1, cap - 1, p);
	out[len] = 0;
	return pclose(p);
}

static void test_cli(void)
{
	static char out[16384];
	struct isp_wire_stats w;
	char want[256];

	if (access("/bin/reis", X_OK)) {
		printf("/bin/reis absent: the CLI is not checked\n");
		return;
	}
	ftl_stats(&w);
	CHECK_EQ_U64(run_cli("/bin/reis stats 2>&1", out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "ordinary I/O     %llu reads (%llu B), %llu writes (%llu B), "
		 "%llu flushes, %llu deallocations; modeled %llu ns",
		 (unsigned long long)w.ftl_reads, (unsigned long long)w.ftl_read_bytes,
		 (unsigned long long)w.ftl_writes, (unsigned long long)w.ftl_write_bytes,
		 (unsigned long long)w.ftl_flushes, (unsigned long long)w.ftl_trims,
		 (unsigned long long)w.ftl_io_model_ns);
	if (!strstr(out, want))
		printf("reis stats:\n%s\nwanted: %s\n", out, want);
	CHECK(strstr(out, want) != NULL);
	snprintf(want, sizeof(want), "FTL              NAND writes %llu B, write amplification %.3f",
		 (unsigned long long)w.ftl_nand_write_bytes, w.ftl_wa_milli / 1000.0);
	CHECK(strstr(out, want) != NULL);
	snprintf(want, sizeof(want), "FTL space        %llu MiB mapped on %llu MiB of flash (%u stripes",
		 (unsigned long long)(w.ftl_user_bytes >> 20),
		 (unsigned long long)(w.ftl_phys_bytes >> 20), w.ftl_stripes);
	CHECK(strstr(out, want) != NULL);
	CHECK_EQ_U64(run_cli("/bin/reis --json stats 2>&1", out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "\"ftl\":{\"reads\":%llu,\"writes\":%llu,\"read_bytes\":%llu,",
		 (unsigned long long)w.ftl_reads, (unsigned long long)w.ftl_writes,
		 (unsigned long long)w.ftl_read_bytes);
	if (!strstr(out, want))
		printf("reis --json stats:\n%s\nwanted: %s\n", out, want);
	CHECK(strstr(out, want) != NULL);
	snprintf(want, sizeof(want), "\"user_bytes\":%llu,", (unsigned long long)w.ftl_user_bytes);
	CHECK(strstr(out, want) != NULL);
}

static void test_beside_searches(struct pt_ring *r, uint32_t lbs)
{
	static struct reis_search_req sr[4];
	static struct pt_cmd rc[16];
	static uint64_t idle[64], busy[128];
	const struct reis_db_image *one[1];
	struct reis_search_result want;
	struct reis_search_opts o;
	struct reis_db_image img;
	struct reis_queries q;
	struct reis_dev *dev;
	uint8_t *buf = pt_alloc(4096 * 16);
	uint64_t slba, m, rng = 5;
	unsigned i, j, nb = 0, bad = 0;

	if (reis_open(PT_CHAR_DEV, 0, &dev))
		SKIP("reis_open failed");
	ftl_db(dev, &img, &q);
	for (i = 0; i < 64; i++) {
		slba = (synth_next(&rng) % (ftl_ns_bytes() / 4096)) * (4096 / lbs);
		REQUIRE(ftl_rw(r, 0, buf, slba, 4096 / lbs, lbs, &idle[i], NULL) == 0);
	}
	qsort(idle, 64, sizeof(idle[0]), cmp_u64);
	memset(&o, 0, sizeof(o));
	o.did = FTL_DID;
	o.k = 10;
	o.flags = REIS_SF_NO_RERANK;
	one[0] = &img;
	REQUIRE(reis_ref_search(one, 1, 0, &o, &q, &want) == 0);
	for (j = 0; j < 8; j++) {
		memset(sr, 0, sizeof(sr));
		for (i = 0; i < 4; i++)
			REQUIRE(reis_search_submit(dev, &sr[i], REIS_OP_SEARCH, &o, &q, NULL,
						   NULL) == 0);
		/* 16 reads at once on this ring while the searches' query
		 * broadcasts (IBC, every plane) and page reads hold the planes */
		for (i = 0; i < 16; i++) {
			slba = (synth_next(&rng) % (ftl_ns_bytes() / 4096)) * (4096 / lbs);
			pt_rw(&rc[i], 0, buf + 4096 * i, slba, 4096 / lbs, lbs);
			REQUIRE(pt_queue(r, &rc[i]) == 0);
		}
		REQUIRE(io_uring_submit(&r->ring) == 16);
		for (i = 0; i < 16; i++) {
			struct pt_cmd *c = pt_reap(r);

			REQUIRE(c && c->res == 0);
			busy[nb++] = isp_wire_result_time_ns(c->result);
		}
		for (i = 0; i < 4; i++) {
			REQUIRE(reis_search_wait(dev, &sr[i]) == 0);
			bad += reis_cmp_results("ftl neighbour", &sr[i].res, &want, 0);
			reis_search_result_free(&sr[i].res);
		}
	}
	reis_search_result_free(&want);
	qsort(busy, nb, sizeof(busy[0]), cmp_u64);
	m = busy[nb - 1];
	printf("4 KiB reads, modeled: idle p50 %llu ns max %llu ns; beside searches p50 %llu "
	       "ns p99 %llu ns max %llu ns (%u reads)\n", (unsigned long long)idle[32],
	       (unsigned long long)idle[63], (unsigned long long)busy[nb / 2],
	       (unsigned long long)busy[nb * 99 / 100], (unsigned long long)m, nb);
	CHECK_EQ_U64(bad, 0);
	/* some reads found their plane held by a search */
	CHECK(m > 2 * idle[63]);
	reis_db_delete(dev, FTL_DID);
	reis_close(dev);
	free(buf);
}

int main(void)
{
	struct isp_wire_identify *id = pt_alloc(sizeof(*id));
	struct isp_wire_stats w;
	struct pt_ring r;
	uint32_t lbs;

	if (access(PT_CHAR_DEV, F_OK))
		SKIP(PT_CHAR_DEV " absent");
	REQUIRE(pt_open(&r, NULL, 16) == 0);
	REQUIRE(pt_isp_identify(&r, id) == 0);
	ftl_stats(&w);
	if (!w.ftl_user_bytes)
		SKIP("ordinary I/O does not run through the FTL (isp-ftl=off?)");
	if (id->caps & ISP_CAP_TIMING_DELAY)
		SKIP("the delay boot: test_vm_ftl_delay's");
	lbs = ftl_lba_bytes();
	test_map_and_counters(&r, lbs);
	test_smart();
	test_cli();
	test_beside_searches(&r, lbs);
	pt_close(&r);
	free(id);
	return t_result();
}
