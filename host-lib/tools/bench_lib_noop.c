/* SPDX-License-Identifier: MIT */
/*
 * bench_lib_noop - what a command costs on the host through libreis.
 *
 * In-process (default), in one run:
 *   1. open a hw-model drive directly and time isp_dev_check() +
 *      isp_dev_exec() of ISP_NOOP: the floor;
 *   2. open the same configuration through libreis' in-process transport
 *      and time reis_noop() (synchronous, QD 1);
 *   3. time QD 32 batches: reis_submitv() of 32 NOOPs, reis_wait() for 32;
 *   4. print ns/op for each and the ratios to the floor.
 *
 * With --dev /dev/ngXnY (in a VM): ISP_NOOP and a 4 KiB NVMe Read of LBA 0
 * through the same io_uring passthrough path at QD 1 and QD 16.
 *
 *   bench_lib_noop [-n OPS] [--dev PATH] [--ioctl]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include <linux/nvme_ioctl.h>

#include "isp_dev.h"
#include "libreis.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double bench_raw(unsigned long n)
{
	struct isp_dev_config cfg;
	struct isp_dev *isp;
	struct isp_cmd cmd;
	struct isp_cpl cpl;
	char err[128];
	unsigned long i;
	uint64_t t0, t;

	memset(&cfg, 0, sizeof(cfg));
	cfg.max_xfer = REIS_INPROC_DEFAULT_XFER;
	if (isp_dev_open(&cfg, &isp, err, sizeof(err))) {
		fprintf(stderr, "isp_dev_open: %s\n", err);
		exit(1);
	}
	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = ISP_OP_NOOP;
	cmd.nsid = 1;
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		cmd.submit_ns = now_ns();	/* the transport stamps every command */
		if (isp_dev_check(isp, &cmd, &cpl) ||
		    isp_dev_exec(isp, &cmd, NULL, 0, &cpl)) {
			fprintf(stderr, "raw noop failed: 0x%x\n", cpl.status);
			exit(1);
		}
	}
	t = now_ns() - t0;
	isp_dev_close(isp);
	return (double)t / (double)n;
}

static double bench_sync(struct reis_dev *dev, unsigned long n)
{
	unsigned long i;
	uint64_t t0;

	t0 = now_ns();
	for (i = 0; i < n; i++) {
		if (reis_noop(dev)) {
			fprintf(stderr, "reis_noop: %s\n", reis_last_error(dev));
			exit(1);
		}
	}
	return (double)(now_ns() - t0) / (double)n;
}

static void count_err(struct reis_req *req, void *arg)
{
	if (req->cpl.err)
		(*(unsigned long *)arg)++;
}

/* Keep @qd copies of @proto in flight until @n completed; ns per command. */
static double bench_qd(struct reis_dev *dev, const struct reis_req *proto,
		       unsigned qd, unsigned long n)
{
	struct reis_req *reqs = calloc(qd, sizeof(*reqs));
	struct reis_req **ptrs = calloc(qd, sizeof(*ptrs));
	unsigned long done = 0, sub = 0, errs = 0;
	unsigned i, k;
	uint64_t t0;
	int ret;

	if (!reqs || !ptrs)
		exit(1);
	t0 = now_ns();
	while (done < n) {
		for (i = 0, k = 0; i < qd && sub < n; i++) {
			if (reis_req_inflight(&reqs[i]))
				continue;
			reqs[i] = *proto;
			reis_req_set_cb(&reqs[i], count_err, &errs);
			ptrs[k++] = &reqs[i];
			sub++;
		}
		if (k && reis_submitv(dev, ptrs, k) != (int)k) {
			fprintf(stderr, "submit: %s\n", reis_last_error(dev));
			exit(1);
		}
		ret = reis_wait(dev, 1, -1);
		if (ret < 0) {
			fprintf(stderr, "wait: %s\n", reis_strerror(ret));
			exit(1);
		}
		done += (unsigned long)ret;
		if (errs) {
			fprintf(stderr, "%lu command(s) failed\n", errs);
			exit(1);
		}
	}
	free(reqs);
	free(ptrs);
	return (double)(now_ns() - t0) / (double)n;
}

/* LBA size of @nsid from Identify Namespace, or 0. */
static unsigned lba_bytes(const char *path, unsigned nsid)
{
	struct nvme_admin_cmd c;
	uint8_t *id = aligned_alloc(4096, 4096);
	unsigned ds = 0;
	FILE *f = fopen(path, "r");

	if (!f || !id)
		goto out;
	memset(&c, 0, sizeof(c));
	c.opcode = 0x06;
	c.nsid = nsid;
	c.addr = (uint64_t)(uintptr_t)id;
	c.data_len = 4096;
	if (ioctl(fileno(f), NVME_IOCTL_ADMIN_CMD, &c) == 0)
		ds = id[128 + 4 * (id[26] & 0xf) + 2];	/* LBAF[FLBAS].LBADS */
out:
	if (f)
		fclose(f);
	free(id);
	return ds >= 9 && ds <= 16 ? 1u << ds : 0;
}

static int bench_dev(const char *path, uint32_t flags, unsigned long n)
{
	static uint8_t buf[4096] __attribute__((aligned(4096)));
	struct reis_req noop, rd;
	struct reis_cmd cmd;
	struct reis_dev *dev;
	unsigned lba, qd;
	int ret;

	ret = reis_open(path, flags, &dev);
	if (ret) {
		fprintf(stderr, "%s: %s\n", path, reis_strerror(ret));
		return ret == -ENOENT ? 77 : 1;
	}
	lba = lba_bytes(path, 1);
	reis_prep_noop(&noop);
	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = 0x02;	/* NVM Read, LBA 0 */
	cmd.cdw12 = lba ? 4096 / lba - 1 : 0;
	reis_prep_raw(&rd, &cmd, buf, lba ? 4096 : 0);
	printf("%s via %s, %lu ops per point\n", path, reis_transport(dev), n);
	for (qd = 1; qd <= 16; qd += 15) {
		printf("QD %-2u ISP_NOOP      %9.0f ns/op\n", qd, bench_qd(dev, &noop, qd, n));
		if (lba)
			printf("QD %-2u 4 KiB read    %9.0f ns/op\n", qd,
			       bench_qd(dev, &rd, qd, n));
	}
	if (!lba)
		printf("(no LBA format from Identify Namespace: read skipped)\n");
	reis_close(dev);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "ioctl", no_argument, NULL, 'I' },
		{ "ops", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = NULL;
	unsigned long n = 1000000;
	uint32_t flags = 0;
	struct reis_dev *dev;
	struct reis_req noop;
	double raw, sync, qd32;
	int opt;

	while ((opt = getopt_long(argc, argv, "d:n:h", lo, NULL)) != -1) {
		switch (opt) {
		case 'd': path = optarg; break;
		case 'I': flags |= REIS_OPEN_IOCTL; break;
		case 'n':
			n = strtoul(optarg, NULL, 0);
			if (n < 1 || n > 100000000) {
				fprintf(stderr, "-n must be 1..100000000\n");
				return 2;
			}
			break;
		default:
			printf("usage: bench_lib_noop [-n OPS] [--dev PATH [--ioctl]]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (path)
		return bench_dev(path, flags, n / 10 ? n / 10 : 1);

	if (reis_open_inproc(NULL, &dev)) {
		fprintf(stderr, "reis_open_inproc failed\n");
		return 1;
	}
	reis_prep_noop(&noop);
	/* Warm up both paths, then measure. */
	bench_raw(n / 10 + 1);
	bench_sync(dev, n / 10 + 1);
	raw = bench_raw(n);
	sync = bench_sync(dev, n);
	qd32 = bench_qd(dev, &noop, 32, n);
	printf("ISP_NOOP, %lu ops, in-process\n", n);
	printf("raw isp_dev_check+exec   %8.1f ns/op\n", raw);
	printf("reis_noop (sync, QD 1)   %8.1f ns/op  %.2fx raw\n", sync, sync / raw);
	printf("reis_submitv/wait QD 32  %8.1f ns/op  %.2fx raw\n", qd32, qd32 / raw);
	reis_close(dev);
	return 0;
}
