/* SPDX-License-Identifier: MIT */
/*
 * bench_vm_latency - round trip of the vendor path against a plain read,
 * through the same io_uring passthrough path on /dev/ng0n1:
 *   1. ISP_NOOP at QD1 and QD16;
 *   2. a 4 KiB NVMe Read (opcode 02h) at QD1 and QD16.
 * Prints mean, p50 and p99 latency in microseconds and IOPS. Not a
 * pass/fail test (it exits 0 unless a command fails).
 * Usage: bench_vm_latency [iterations]   (default 2000)
 */
#include "nvme_pt.h"

#define MAXQD 16

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int bench(struct pt_ring *r, const char *name, int isp, unsigned qd,
		 unsigned iters, uint32_t lba_bytes)
{
	struct pt_cmd pc[MAXQD];
	uint64_t t0[MAXQD], *lat = calloc(iters, sizeof(*lat));
	uint8_t *buf[MAXQD];
	unsigned issued = 0, done = 0, i;
	uint64_t start, sum = 0;

	if (!lat)
		return 1;
	for (i = 0; i < qd; i++)
		buf[i] = pt_alloc(4096);

	start = pt_now_ns();
	for (i = 0; i < qd && issued < iters; i++, issued++) {
		if (isp)
			pt_vendor(&pc[i], ISP_OP_NOOP, NULL, 0, 0);
		else
			pt_rw(&pc[i], 0, buf[i], (uint64_t)i * 8, 4096 / lba_bytes, lba_bytes);
		pt_queue(r, &pc[i]);
		t0[i] = pt_now_ns();
	}
	io_uring_submit(&r->ring);
	while (done < issued) {
		struct pt_cmd *c = pt_reap(r);

		if (!c)
			return 1;
		i = (unsigned)(c - pc);
		lat[done++] = pt_now_ns() - t0[i];
		if (c->res != 0) {
			fprintf(stderr, "%s: status %d\n", name, c->res);
			return 1;
		}
		if (issued < iters) {
			issued++;
			pt_queue(r, c);
			t0[i] = pt_now_ns();
			io_uring_submit(&r->ring);
		}
	}
	start = pt_now_ns() - start;
	qsort(lat, iters, sizeof(*lat), cmp_u64);
	for (i = 0; i < iters; i++)
		sum += lat[i];
	printf("%-14s QD%-3u n=%-6u mean %8.1f us  p50 %8.1f us  p99 %8.1f us  %9.0f IOPS\n",
	       name, qd, iters, sum / 1000.0 / iters, lat[iters / 2] / 1000.0,
	       lat[(iters * 99) / 100] / 1000.0, iters * 1e9 / (double)start);
	for (i = 0; i < qd; i++)
		free(buf[i]);
	free(lat);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned iters = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 2000;
	unsigned qds[] = { 1, 16 };
	struct pt_ring r;
	int ret = 0;
	unsigned i;

	if (iters < 16)
		iters = 16;
	if (pt_open(&r, NULL, 64)) {
		perror(PT_CHAR_DEV);
		return 1;
	}
	printf("@@BENCH latency, io_uring passthrough on %s, %u commands each\n",
	       PT_CHAR_DEV, iters);
	for (i = 0; i < 2; i++) {
		ret |= bench(&r, "ISP_NOOP", 1, qds[i], iters, 512);
		ret |= bench(&r, "NVMe read 4K", 0, qds[i], iters, 512);
	}
	pt_close(&r);
	return ret;
}
