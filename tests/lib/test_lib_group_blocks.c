/* SPDX-License-Identifier: MIT */
/*
 * test_lib_group_blocks - block reads for real. The core's NVMe Read/Write
 * of namespace LBAs on in-process drives (geometry, data back as written,
 * unwritten LBAs read as zeros, commands split at max_xfer and kept in
 * flight, every bad argument refused before anything is sent, a raw Read
 * past the end refused by the drive). Then the scheduled mode's host share
 * reading its data from the members' namespaces: the group's deploy writes
 * each shard there (docs/group.md, "The host's share: block reads"; the
 * directory in the namespace's last 4 KiB is parsed here independently),
 * the host-only run with no image in memory equals one drive (==) for
 * brute force and IVF with documents, and RecFlash with no table in
 * memory; damaging the namespace copy changes or fails the host's answer
 * (so it is what the host computes on), and a delete removes the copy.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "libreis_tools.h"
#include "reis_cmp.h"
#include "reis_synth.h"
#include "rf_util.h"

#define DIM 128
#define N 1501
#define NQ 40
#define NM 3

struct dir_ent {
	uint32_t kind, id;
	uint64_t off, len, rsvd;
};

/* The group's namespace directory of @dev (docs/group.md layout). */
static int read_dir(struct reis_dev *dev, struct dir_ent *ent, uint32_t *count)
{
	static uint8_t blk[4096] __attribute__((aligned(4096)));
	struct reis_ns_geom ng;

	REQUIRE(reis_ns_geom(dev, &ng) == 0);
	REQUIRE(reis_block_read(dev, ng.nlbas - 4096 / ng.lba_bytes, 4096 / ng.lba_bytes, blk) == 0);
	if (memcmp(blk, "REISGNS1", 8))
		return -ENOENT;
	memcpy(count, blk + 12, 4);
	REQUIRE(*count <= 127);
	memcpy(ent, blk + 32, *count * sizeof(*ent));
	return 0;
}

static void check_core(void)
{
	struct reis_inproc_opts o;
	struct reis_dev *dev;
	struct reis_ns_geom ng;
	struct reis_cmd c;
	struct reis_cpl cpl;
	uint32_t n = 300, i;	/* 150 KiB: 38 commands of 4 KiB */
	uint8_t *w = malloc((size_t)n * 512), *r = malloc((size_t)n * 512 + 4);

	REQUIRE(w && r);
	memset(&o, 0, sizeof(o));
	o.max_xfer = 4096;
	o.workers = 2;
	REQUIRE(reis_open_inproc(&o, &dev) == 0);
	REQUIRE(reis_ns_geom(dev, &ng) == 0);
	CHECK_EQ_U64(ng.lba_bytes, REIS_INPROC_LBA_BYTES);
	CHECK_EQ_U64(ng.nlbas, REIS_INPROC_NS_BYTES / REIS_INPROC_LBA_BYTES);
	for (i = 0; i < n * 512; i++)
		w[i] = (uint8_t)(i * 131 + 7);
	CHECK(reis_block_write(dev, 1000, n, w) == 0);
	memset(r, 0xaa, (size_t)n * 512);
	CHECK(reis_block_read(dev, 1000, n, r) == 0);
	CHECK(memcmp(w, r, (size_t)n * 512) == 0);
	/* A read straddling written and never-written LBAs. */
	CHECK(reis_block_read(dev, 1000 + n - 2, 4, r) == 0);
	CHECK(memcmp(r, w + (size_t)(n - 2) * 512, 1024) == 0);
	for (i = 1024; i < 2048; i++)
		CHECK(r[i] == 0);
	/* The last LBA is reachable, the one after it is not. */
	CHECK(reis_block_write(dev, ng.nlbas - 1, 1, w) == 0);
	CHECK(reis_block_read(dev, ng.nlbas - 1, 1, r) == 0 && memcmp(r, w, 512) == 0);
	CHECK(reis_block_read(dev, ng.nlbas, 1, r) == -ERANGE);
	CHECK(reis_block_read(dev, ng.nlbas - 1, 2, r) == -ERANGE);
	CHECK(reis_block_read(dev, UINT64_MAX, 2, r) == -ERANGE);
	CHECK(reis_block_read(dev, 0, 0, r) == -EINVAL);
	CHECK(reis_block_read(dev, 0, 1, NULL) == -EINVAL);
	CHECK(reis_block_read(dev, 0, 1, r + 1) == -EINVAL);
	CHECK(reis_block_read(dev, 0, (REIS_BLOCK_MAX_BYTES / 512) + 1, r) == -E2BIG);
	CHECK(reis_block_read(NULL, 0, 1, r) == -EINVAL);
	CHECK(reis_inflight(dev) == 0);
	/* The drive bounds a hand-built Read too: LBA Out of Range. */
	memset(&c, 0, sizeof(c));
	c.opcode = 0x02;
	c.cdw10 = (uint32_t)ng.nlbas;
	c.cdw11 = (uint32_t)(ng.nlbas >> 32);
	CHECK(reis_cmd_raw(dev, &c, r, 512, &cpl) != 0);
	CHECK_EQ_U64(cpl.status & 0xff, 0x80);
	reis_close(dev);
	free(w);
	free(r);
}

static struct reis_dev *open_drive(void)
{
	struct reis_dev *dev;

	REQUIRE(reis_open_inproc(NULL, &dev) == 0);
	return dev;
}

/* The host alone, no image in memory: its search is the drive's. */
static unsigned host_only(struct reis_group *g, struct reis_dev *one, uint32_t did, int ivf,
			  const struct reis_queries *q, uint64_t *bytes, int *err)
{
	struct reis_group_sched_opts so;
	struct reis_group_sched_report rep;
	struct reis_group_result got;
	struct reis_search_result want;
	struct reis_search_opts o;
	unsigned bad;

	memset(&o, 0, sizeof(o));
	o.did = did;
	o.k = 10;
	o.flags = REIS_SF_DOCS;
	o.nprobe = ivf ? 2 : 0;
	memset(&so, 0, sizeof(so));
	so.flags = REIS_GROUP_SCHED_HOST_ONLY;
	so.batch = 8;
	so.ratio = 1;	/* host batches of 8 queries */
	*err = reis_group_sched_search(g, NULL, ivf, &o, q, &so, &got, &rep);
	if (*err)
		return 1;
	REQUIRE((ivf ? reis_ivf_search(one, &o, q, &want) : reis_search(one, &o, q, &want)) == 0);
	bad = reis_cmp_results("host share from block reads vs one drive", &got.res, &want, 1);
	CHECK(rep.host.items == (uint64_t)NQ * NM && rep.bytes_inside == 0);
	CHECK(rep.bytes_to_host == rep.host.bytes_to_host && rep.bytes_to_host % 512 == 0);
	*bytes = rep.bytes_to_host;
	reis_group_result_free(&got);
	reis_search_result_free(&want);
	return bad;
}

static void check_reis(void)
{
	float *x = synth_vectors(31, N, DIM, 20, 0.5f), *qf = synth_vectors(32, NQ, DIM, 20, 0.5f);
	uint64_t *off, bytes[2], codes = (uint64_t)N * (DIM / 8 + DIM);
	uint8_t *docs = synth_docs(33, N, 120, &off);
	struct reis_dev *devs[NM], *one = open_drive();
	struct reis_db_image img[2];
	struct reis_build_opts bo;
	struct reis_queries q;
	struct reis_group *g;
	struct dir_ent ent[127];
	uint32_t cnt;
	char err[256];
	unsigned i;
	int e;

	REQUIRE(x && qf && docs);
	memset(&bo, 0, sizeof(bo));
	bo.flags = REIS_BUILD_INT8;
	bo.docs = docs;
	bo.doc_offsets = off;
	bo.did = 11;
	bo.kind = REIS_DB_BF;
	REQUIRE(reis_db_build(&bo, x, N, DIM, &img[0], err, sizeof(err)) == 0);
	bo.did = 12;
	bo.kind = REIS_DB_IVF;
	bo.nlist = 40;
	bo.km.max_iter = 5;
	REQUIRE(reis_db_build(&bo, x, N, DIM, &img[1], err, sizeof(err)) == 0);
	REQUIRE(reis_encode_queries(img[0].quant, qf, NQ, &q) == 0);
	for (i = 0; i < NM; i++)
		devs[i] = open_drive();
	REQUIRE(reis_group_adopt(devs, NULL, NM, &g) == 0);
	/* No copy yet: the host has nothing to read and says which drive. */
	REQUIRE(reis_db_deploy(one, &img[0], NULL) == 0);
	REQUIRE(reis_db_deploy(one, &img[1], NULL) == 0);
	for (i = 0; i < 2; i++)
		REQUIRE(reis_group_db_deploy(g, &img[i], NULL) == 0);
	for (i = 0; i < NM; i++) {
		REQUIRE(read_dir(devs[i], ent, &cnt) == 0);
		CHECK_EQ_U64(cnt, 2);
		CHECK(ent[0].kind == 1 && ent[0].id == 11 && ent[1].kind == 1 && ent[1].id == 12);
		CHECK(ent[0].off % 4096 == 0 && ent[1].off + ent[1].len <= ent[0].off);
		CHECK(ent[0].off + ent[0].len <= REIS_INPROC_NS_BYTES - 4096);
	}
	CHECK_EQ_U64(host_only(g, one, 11, 0, &q, &bytes[0], &e), 0);
	CHECK_EQ_U64(e, 0);
	CHECK_EQ_U64(host_only(g, one, 12, 1, &q, &bytes[1], &e), 0);
	CHECK_EQ_U64(e, 0);
	/* Brute force reads every code (once per host batch), IVF only the
	 * clusters its batch probes (8 queries x nprobe 2 of 40). */
	CHECK(bytes[0] >= codes);
	CHECK(bytes[1] > 0 && bytes[1] < bytes[0]);
	printf("host share from block reads: BF %llu bytes, IVF %llu bytes (codes %llu)\n",
	       (unsigned long long)bytes[0], (unsigned long long)bytes[1],
	       (unsigned long long)codes);

	/* Damage member 1's copy of the BF codes: the host's answer changes. */
	{
		struct reis_ns_geom ng;
		uint8_t *blk = aligned_alloc(4096, 65536), *save = aligned_alloc(4096, 65536);
		uint64_t lba;

		REQUIRE(blk && save && read_dir(devs[1], ent, &cnt) == 0);
		REQUIRE(reis_ns_geom(devs[1], &ng) == 0);
		lba = (ent[0].off + 4096) / ng.lba_bytes;
		REQUIRE(reis_block_read(devs[1], lba, 65536 / ng.lba_bytes, save) == 0);
		memset(blk, 0, 65536);
		REQUIRE(reis_block_write(devs[1], lba, 65536 / ng.lba_bytes, blk) == 0);
		CHECK(host_only(g, one, 11, 0, &q, &bytes[0], &e) > 0 || e != 0);
		REQUIRE(reis_block_write(devs[1], lba, 65536 / ng.lba_bytes, save) == 0);
		CHECK_EQ_U64(host_only(g, one, 11, 0, &q, &bytes[0], &e), 0);
		/* A damaged directory: no copy found, the drive named. */
		lba = ng.nlbas - 4096 / ng.lba_bytes;
		REQUIRE(reis_block_read(devs[2], lba, 4096 / ng.lba_bytes, save) == 0);
		memcpy(blk, save, 4096);
		blk[40] ^= 1;	/* the first entry's id: the checksum fails */
		REQUIRE(reis_block_write(devs[2], lba, 4096 / ng.lba_bytes, blk) == 0);
		host_only(g, one, 11, 0, &q, &bytes[0], &e);
		CHECK(e == -ENOENT && reis_group_failed(g) == 2);
		CHECK(strstr(reis_group_errmsg(g), "drive2") != NULL);
		printf("damaged directory: %s\n", reis_group_errmsg(g));
		REQUIRE(reis_block_write(devs[2], lba, 4096 / ng.lba_bytes, save) == 0);
		free(blk);
		free(save);
	}
	/* Delete drops the copies; the other database's stays. */
	REQUIRE(reis_group_db_delete(g, 11) == 0);
	for (i = 0; i < NM; i++) {
		REQUIRE(read_dir(devs[i], ent, &cnt) == 0);
		CHECK(cnt == 1 && ent[0].id == 12);
	}
	CHECK_EQ_U64(host_only(g, one, 12, 1, &q, &bytes[1], &e), 0);
	reis_group_close(g);
	reis_close(one);
	reis_queries_free(&q);
	reis_db_image_free(&img[0]);
	reis_db_image_free(&img[1]);
	free(x);
	free(qf);
	free(docs);
	free(off);
}

static void check_rf(void)
{
	struct reis_dev *devs[NM], *one = rf_open("recflash-tlc", 0, 0, NULL);
	struct reis_group_sched_opts so;
	struct reis_group_sched_report rep;
	struct reis_rf_table d;
	struct rf_batch bt;
	struct rf_tbl t;
	struct reis_group *g;
	size_t nv;
	float *want, *got;
	unsigned i;

	for (i = 0; i < NM; i++)
		devs[i] = rf_open("recflash-tlc", 0, 0, NULL);
	REQUIRE(reis_group_adopt(devs, NULL, NM, &g) == 0);
	REQUIRE(rf_tbl_make(&t, 21, 3000, 32, REIS_RF_FP32, REIS_RF_RECFLASH, 5) == 0);
	d = rf_as_table(&t);
	REQUIRE(rf_tbl_deploy(one, &t, NULL) == 0);
	REQUIRE(reis_group_rf_deploy(g, &d, NULL) == 0);
	rf_batch_make(&bt, 44, 64, 20, 0, t.rows, 1);
	nv = (size_t)64 * t.dim;
	want = malloc(nv * 4);
	got = malloc(nv * 4);
	REQUIRE(want && got);
	REQUIRE(reis_rf_sls(one, t.tid, t.dim, &bt.b, REIS_RF_SLS_WEIGHTED, want, NULL) == 0);
	d.data = NULL;	/* the host has no copy in memory: it reads the rows */
	memset(&so, 0, sizeof(so));
	so.flags = REIS_GROUP_SCHED_HOST_ONLY;
	memset(got, 0xff, nv * 4);
	REQUIRE(reis_group_sched_sls(g, &d, &bt.b, REIS_RF_SLS_WEIGHTED | REIS_GROUP_SLS_EXACT,
				     &so, got, &rep) == 0);
	CHECK_EQ_U64(rf_diff(got, want, nv), 0);
	/* The rows pooled, each read once per batch, LBA-rounded; never more
	 * than the three slices plus the directory and header blocks. */
	CHECK(rep.bytes_to_host > 0 && rep.bytes_to_host % 512 == 0);
	CHECK(rep.bytes_to_host <= (uint64_t)bt.b.nidx * (t.dim * 4 + 512) + NM * 8192 * 2);
	printf("RecFlash host share: %llu bytes read for %u rows pooled\n",
	       (unsigned long long)rep.bytes_to_host, bt.b.nidx);
	/* Without the copy the host cannot pool: the drive is named. */
	REQUIRE(reis_group_rf_delete(g, t.tid) == 0);
	REQUIRE(reis_rf_deploy(devs[0], &(struct reis_rf_table){ .tid = t.tid,
		.rows = reis_group_rf_rows(t.rows, 0, NM), .dim = t.dim, .dtype = t.dtype,
		.mode = t.mode, .data = t.wire }, NULL) == 0);
	CHECK(reis_group_sched_sls(g, &d, &bt.b, REIS_RF_SLS_WEIGHTED, &so, got, &rep) != 0);
	CHECK(reis_group_failed(g) >= 0);
	rf_batch_free(&bt);
	free(want);
	free(got);
	free(t.wire);
	reis_group_close(g);
	reis_close(one);
}

int main(void)
{
	check_core();
	check_reis();
	check_rf();
	return t_result();
}
