/* SPDX-License-Identifier: MIT */
/*
 * test_vm_blockio - the namespace stays an ordinary disk with ISP on
 * (normal SSD mode beside RAG mode, docs/command-set.md
 * §1; docs/architecture.md, threads and locks):
 *   1. write/read/verify through /dev/nvme0n1 (O_DIRECT) at several offsets;
 *   2. NVMe reads and writes through the passthrough ring, interleaved with
 *      ISP echoes on the same queue: every buffer keeps its own data;
 *   3. a thread doing block I/O while the main thread keeps 16 ISP commands
 *      in flight: both finish with correct data.
 */
#include <pthread.h>

#include "check.h"
#include "nvme_pt.h"

#define CHUNK (64 * 1024)

static uint64_t ns_bytes;
static uint32_t lba_bytes;

static uint64_t sysfs_u64(const char *path)
{
	unsigned long long v = 0;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

static int block_rw(int fd, uint64_t off, uint32_t seed)
{
	uint8_t *w = pt_alloc(CHUNK), *r = pt_alloc(CHUNK);
	int bad = 0;

	isp_wire_pattern(seed, w, CHUNK);
	if (pwrite(fd, w, CHUNK, (off_t)off) != CHUNK ||
	    pread(fd, r, CHUNK, (off_t)off) != CHUNK) {
		perror("block I/O");
		bad = 1;
	} else if (memcmp(w, r, CHUNK)) {
		fprintf(stderr, "block data differs at offset %llu\n",
			(unsigned long long)off);
		bad = 1;
	}
	free(w);
	free(r);
	return bad;
}

static void *block_thread(void *arg)
{
	int fd = open(PT_BLOCK_DEV, O_RDWR | O_DIRECT);
	long bad = 0;
	unsigned i;

	(void)arg;
	if (fd < 0)
		return (void *)1L;
	for (i = 0; i < 64; i++)
		bad += block_rw(fd, (ns_bytes / 2) + (uint64_t)(i % 16) * CHUNK, 500 + i);
	close(fd);
	return (void *)bad;
}

static void mixed_ring(struct pt_ring *r)
{
	enum { N = 12 };
	struct pt_cmd pc[N];
	uint8_t *buf[N], *want = pt_alloc(8192);
	uint32_t nlb = 8192 / lba_bytes;
	int i;

	/* even: write LBA range then (later) read it back; odd: ISP echo */
	for (i = 0; i < N; i++) {
		buf[i] = pt_alloc(8192);
		if (i % 2 == 0) {
			isp_wire_pattern(77u + (unsigned)i, buf[i], 8192);
			pt_rw(&pc[i], 1, buf[i], (uint64_t)i * nlb, nlb, lba_bytes);
		} else {
			pt_vendor(&pc[i], ISP_OP_ECHO_C2H, buf[i], 8192, 900u + (unsigned)i);
		}
		REQUIRE(pt_queue(r, &pc[i]) == 0);
	}
	REQUIRE(io_uring_submit(&r->ring) == N);
	for (i = 0; i < N; i++)
		REQUIRE(pt_reap(r) != NULL);
	for (i = 0; i < N; i++) {
		CHECK_EQ_U64(pc[i].res, 0);
		if (i % 2) {
			isp_wire_pattern(900u + (unsigned)i, want, 8192);
			CHECK(memcmp(buf[i], want, 8192) == 0);
		}
	}
	/* read the written ranges back through the same path */
	for (i = 0; i < N; i += 2) {
		memset(buf[i], 0, 8192);
		pt_rw(&pc[i], 0, buf[i], (uint64_t)i * nlb, nlb, lba_bytes);
		CHECK_EQ_U64(pt_run(r, &pc[i]), 0);
		isp_wire_pattern(77u + (unsigned)i, want, 8192);
		CHECK(memcmp(buf[i], want, 8192) == 0);
	}
	for (i = 0; i < N; i++)
		free(buf[i]);
	free(want);
}

static void isp_load(struct pt_ring *r, unsigned total)
{
	enum { QD = 16 };
	struct pt_cmd pc[QD];
	uint8_t *buf[QD], *want = pt_alloc(16384);
	unsigned issued = 0, done = 0, i;

	for (i = 0; i < QD; i++)
		buf[i] = pt_alloc(16384);
	for (i = 0; i < QD && issued < total; i++, issued++) {
		pt_vendor(&pc[i], ISP_OP_ECHO_C2H, buf[i], 16384, issued);
		REQUIRE(pt_queue(r, &pc[i]) == 0);
	}
	REQUIRE(io_uring_submit(&r->ring) > 0);
	while (done < issued) {
		struct pt_cmd *c = pt_reap(r);

		REQUIRE(c != NULL);
		i = (unsigned)(c - pc);
		done++;
		if (c->res != 0) {
			fprintf(stderr, "ISP echo under load: status %d\n", c->res);
			t_failures++;
		} else {
			isp_wire_pattern(c->c.cdw12, want, 16384);
			if (memcmp(buf[i], want, 16384)) {
				fprintf(stderr, "ISP echo %u under load: data differs\n", c->c.cdw12);
				t_failures++;
			}
		}
		if (issued < total) {
			memset(buf[i], 0, 16384);
			pt_vendor(&pc[i], ISP_OP_ECHO_C2H, buf[i], 16384, issued++);
			REQUIRE(pt_queue(r, &pc[i]) == 0);
			REQUIRE(io_uring_submit(&r->ring) == 1);
		}
	}
	for (i = 0; i < QD; i++)
		free(buf[i]);
	free(want);
}

int main(void)
{
	struct pt_ring r;
	pthread_t th;
	void *bad;
	int fd, i;

	ns_bytes = sysfs_u64("/sys/block/nvme0n1/size") * 512;
	lba_bytes = (uint32_t)sysfs_u64("/sys/block/nvme0n1/queue/logical_block_size");
	REQUIRE(ns_bytes >= 4 * 1024 * 1024 && lba_bytes >= 512);
	printf("namespace: %llu bytes, %u-byte blocks\n",
	       (unsigned long long)ns_bytes, lba_bytes);

	/* 1. block device */
	fd = open(PT_BLOCK_DEV, O_RDWR | O_DIRECT);
	REQUIRE(fd >= 0);
	for (i = 0; i < 4; i++)
		CHECK(block_rw(fd, (ns_bytes / 4) * (uint64_t)i, 10u + (unsigned)i) == 0);
	CHECK(block_rw(fd, ns_bytes - CHUNK, 42) == 0);
	close(fd);

	REQUIRE(pt_open(&r, NULL, 32) == 0);

	/* 2. same ring, same queue */
	mixed_ring(&r);

	/* 3. concurrently */
	REQUIRE(pthread_create(&th, NULL, block_thread, NULL) == 0);
	isp_load(&r, 400);
	REQUIRE(pthread_join(th, &bad) == 0);
	CHECK(bad == NULL);

	pt_close(&r);
	return t_result();
}
