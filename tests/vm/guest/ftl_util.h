/* SPDX-License-Identifier: MIT */
/*
 * ftl_util.h - what the guest tests of ordinary I/O through the FTL share
 * (docs/ftl.md): raw NVMe reads and writes on /dev/ng0n1 whose completion
 * DW0/DW1 carry the modeled time, the statistics log, and a REIS database
 * to search beside them.
 */
#ifndef TESTS_VM_FTL_UTIL_H
#define TESTS_VM_FTL_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "libreis.h"
#include "libreis_tools.h"
#include "nvme_pt.h"
#include "reis_synth.h"

#define FTL_DID 97
#define FTL_DIM 256
#define FTL_N 3000
#define FTL_NQ 64

/* The vendor statistics log (C0h). */
static inline void ftl_stats(struct isp_wire_stats *w)
{
	void *buf = pt_alloc(sizeof(*w));

	REQUIRE(pt_get_log(ISP_LID_STATS, buf, sizeof(*w)) == 0);
	memcpy(w, buf, sizeof(*w));
	free(buf);
}

/* One raw Read / Write (@write) of @blocks LBAs at @slba; its model time
 * in *@model_ns, the guest's round trip in *@rtt_ns. NVMe status. */
static inline int ftl_rw(struct pt_ring *r, int write, void *buf, uint64_t slba,
			 uint32_t blocks, uint32_t lba_bytes, uint64_t *model_ns,
			 uint64_t *rtt_ns)
{
	struct pt_cmd c;
	uint64_t t0;
	int st;

	pt_rw(&c, write, buf, slba, blocks, lba_bytes);
	t0 = pt_now_ns();
	st = pt_run(r, &c);
	if (rtt_ns)
		*rtt_ns = pt_now_ns() - t0;
	if (model_ns)
		*model_ns = isp_wire_result_time_ns(c.result);
	return st;
}

/* The namespace's LBA size from sysfs (512 unless formatted otherwise). */
static inline uint32_t ftl_lba_bytes(void)
{
	FILE *f = fopen("/sys/block/nvme0n1/queue/logical_block_size", "r");
	unsigned v = 512;

	if (f) {
		if (fscanf(f, "%u", &v) != 1)
			v = 512;
		fclose(f);
	}
	return v;
}

static inline uint64_t ftl_ns_bytes(void)
{
	FILE *f = fopen("/sys/block/nvme0n1/size", "r");
	unsigned long long v = 0;

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v * 512;
}

/* A brute-force database of FTL_N codes and FTL_NQ queries near them. */
static inline void ftl_db(struct reis_dev *dev, struct reis_db_image *img,
			  struct reis_queries *q)
{
	float *x = synth_vectors(71, FTL_N, FTL_DIM, 16, 0.5f);
	float *qf = synth_vectors(72, FTL_NQ, FTL_DIM, 16, 0.5f);
	struct reis_build_opts o;
	char err[256];

	REQUIRE(x && qf);
	memset(&o, 0, sizeof(o));
	o.did = FTL_DID;
	o.kind = REIS_DB_BF;
	o.name = "ftl-neighbour";
	if (reis_db_build(&o, x, FTL_N, FTL_DIM, img, err, sizeof(err))) {
		fprintf(stderr, "build: %s\n", err);
		exit(T_EXIT_FAIL);
	}
	REQUIRE(reis_encode_queries(img->quant, qf, FTL_NQ, q) == 0);
	free(x);
	free(qf);
	reis_db_delete(dev, FTL_DID);
	REQUIRE(reis_db_deploy(dev, img, NULL) == 0);
}

#endif /* TESTS_VM_FTL_UTIL_H */
