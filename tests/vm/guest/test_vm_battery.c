/* SPDX-License-Identifier: MIT */
/*
 * test_vm_battery - a malformed-command battery through /dev/ng0n1 (the
 * guest is hostile, docs/security.md). Steps:
 *   1. a regular write + read-back of the namespace's last MiB;
 *   2. witness objects (a BF and an IVF database, a RecSSD, RM-SSD and
 *      RecFlash table: tests/fuzz's fixtures) in an id range of their own;
 *      a digest of what every database and table on the drive answers
 *      (a search's hits, an SLS's pooled vectors);
 *   3. an edge sweep: every vendor opcode 80h-FFh with NDT 0, 1, 1024,
 *      max_xfer/4, max_xfer/4 + 1 and NDM 0/1;
 *   4. tests/fuzz's command generator from a PRNG on 3 threads, 3 queues:
 *      deploys of random shapes, searches, SLS, profiles, remaps, deletes,
 *      racing on shared ids, each command possibly corrupted (CDW11-15,
 *      NDT, direction bits, NSID, payload bytes);
 *   5. afterwards: every command completed (no timeout, no reset), the
 *      generator's objects delete cleanly, free flash and DRAM are back,
 *      every database and table answers exactly as in 2 (digests), the
 *      regular write + read-back works, no trace is left armed (a
 *      TRACE_ARM still works).
 * BATTERY_CMDS (default 6000) sets the generator's command count.
 */
#include <pthread.h>

#include "check.h"
#include "fuzz_isp.h"
#include "nvme_pt.h"

#define BT_THREADS 3
#define BT_WITNESS 0xb7c00000u	/* witness objects' id range */
#define BT_GEN 0xb7a00000u	/* the generator's */
#define BT_MAX_OBJS 256

struct bt_queue {
	struct pt_ring r;
	uint8_t *scratch;	/* NDT past max_xfer: refused before mapping */
	uint64_t kernel_rejects;	/* -EINVAL from the kernel (NSID mismatch) */
};

static uint16_t bt_xport(void *arg, const struct isp_cmd *c, void *buf, size_t len,
			 struct isp_cpl *cpl)
{
	struct bt_queue *q = arg;
	struct pt_cmd pc;
	int ret;

	memset(&pc, 0, sizeof(pc));
	pc.c.opcode = c->opcode;
	pc.c.nsid = c->nsid;
	pc.c.addr = (uint64_t)(uintptr_t)(buf ? buf : (isp_cmd_data_len(c) ? q->scratch : NULL));
	pc.c.data_len = buf ? (uint32_t)len : isp_cmd_data_len(c) ? 4096 : 0;
	pc.c.cdw10 = c->cdw10;
	pc.c.cdw11 = c->cdw11;
	pc.c.cdw12 = c->cdw12;
	pc.c.cdw13 = c->cdw13;
	pc.c.cdw14 = c->cdw14;
	pc.c.cdw15 = c->cdw15;
	ret = pt_run(&q->r, &pc);
	if (ret == -EINVAL) {	/* Linux checks NSID and sizes before sending */
		q->kernel_rejects++;
		cpl->status = ISP_SC_INVALID_FIELD | ISP_STATUS_DNR;
		return cpl->status;
	}
	if (ret < 0)
		FZ_FAIL("opcode %#x: passthrough failed: %s (timeout or reset?)", c->opcode,
			strerror(-ret));
	cpl->status = (uint16_t)ret;
	cpl->result = pc.result;
	return cpl->status;
}

/* @max: the drive's max_xfer; every size it accepts gets a full buffer. */
static void bt_state(struct fz_state *st, struct bt_queue *q, uint32_t id_base, uint32_t max)
{
	memset(st, 0, sizeof(*st));
	pthread_mutex_init(&st->lock, NULL);
	st->clk = &st->clock;
	st->xport = bt_xport;
	st->xport_arg = q;
	st->max_xfer = max;
	st->id_base = id_base;
	st->verbose = getenv("FZ_VERBOSE") != NULL;
}

/* ---- digests of what the drive answers ---- */

struct bt_digest {
	uint32_t id;
	int rf;
	uint64_t h;
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

static int bt_read_result(struct bt_queue *q, uint32_t ticket, uint8_t *buf, uint32_t len)
{
	struct pt_cmd pc;

	pt_vendor(&pc, ISP_OP_RESULT_READ, buf, len, ticket);
	pc.c.cdw13 = ISP_RESULT_F_RELEASE;
	return pt_run(&q->r, &pc);
}

static uint64_t bt_digest_db(struct bt_queue *q, const struct isp_wire_reis_dbinfo *d,
			     uint8_t *buf, uint32_t max)
{
	const struct isp_wire_reis_create *c = &d->create;
	struct isp_wire_reis_search s;
	uint32_t cb = c->dim / 8, len, i, nhits;
	const struct isp_wire_reis_hit *hit;
	struct pt_cmd pc;
	uint64_t h = 0xcbf29ce484222325ull;
	int st;

	memset(&s, 0, sizeof(s));
	s.did = c->did;
	s.nq = 2;
	s.k = 8;
	s.flags = (c->flags & ISP_REIS_DBF_INT8) ? 0 : ISP_REIS_SF_NO_RERANK;
	s.nprobe = c->kind == ISP_REIS_IVF ? (c->nlist < 4 ? c->nlist : 4) : 0;
	s.dim = c->dim;
	len = sizeof(s) + s.nq * (cb + (s.flags ? 0 : c->dim));
	memset(buf, 0, len);
	memcpy(buf, &s, sizeof(s));
	isp_wire_pattern(c->did, buf + sizeof(s), len - sizeof(s));
	pt_vendor(&pc, c->kind == ISP_REIS_IVF ? ISP_OP_REIS_IVF_SEARCH : ISP_OP_REIS_SEARCH,
		  buf, (len + 3) & ~3u, 0x5eed0001u);
	st = pt_run(&q->r, &pc);
	h = fnv(h, &st, sizeof(st));
	if (st)
		return h;
	st = bt_read_result(q, 0x5eed0001u, buf, max);
	h = fnv(h, &st, sizeof(st));
	if (st)
		return h;
	nhits = s.nq * s.k;
	hit = (const void *)(buf + sizeof(struct isp_wire_result_hdr) +
			     sizeof(struct isp_wire_reis_result));
	for (i = 0; i < nhits; i++) {	/* the answer, not its timing */
		h = fnv(h, &hit[i].id, sizeof(hit[i].id));
		h = fnv(h, &hit[i].did, sizeof(hit[i].did));
		h = fnv(h, &hit[i].hamming, sizeof(hit[i].hamming));
		h = fnv(h, &hit[i].score, sizeof(hit[i].score));
	}
	return h;
}

static uint64_t bt_digest_tbl(struct bt_queue *q, const struct isp_wire_rf_stats *t,
			      uint8_t *buf, uint32_t max)
{
	const struct isp_wire_rf_create *c = &t->create;
	struct isp_wire_rf_sls s;
	uint32_t *off, *idx, i, nbags = 4, per = 3;
	uint64_t h = 0xcbf29ce484222325ull;
	struct pt_cmd pc;
	size_t len;
	int st;

	memset(&s, 0, sizeof(s));
	s.tid = c->tid;
	s.nbags = nbags;
	s.nidx = nbags * per;
	s.dim = c->dim;
	len = sizeof(s) + 4 * (nbags + 1) + 4 * s.nidx;
	memcpy(buf, &s, sizeof(s));
	off = (uint32_t *)(void *)(buf + sizeof(s));
	idx = off + nbags + 1;
	for (i = 0; i <= nbags; i++)
		off[i] = i * per;
	for (i = 0; i < s.nidx; i++)
		idx[i] = (i * 7919u + 13u) % c->rows;
	pt_vendor(&pc, ISP_OP_RF_SLS, buf, (uint32_t)len, 0x5eed0002u);
	st = pt_run(&q->r, &pc);
	h = fnv(h, &st, sizeof(st));
	if (st)
		return h;
	st = bt_read_result(q, 0x5eed0002u, buf, max);
	h = fnv(h, &st, sizeof(st));
	if (!st)	/* the pooled vectors */
		h = fnv(h, buf + sizeof(struct isp_wire_result_hdr) + sizeof(struct isp_wire_rf_result),
			(size_t)nbags * c->dim * 4);
	return h;
}

/* A digest per committed database and table on the drive; their number. */
static unsigned bt_digests(struct bt_queue *q, struct bt_digest *d, uint8_t *buf, uint32_t max)
{
	uint8_t *list = pt_alloc(max);
	unsigned n = 0, i;
	struct pt_cmd pc;

	pt_vendor(&pc, ISP_OP_REIS_DB_LIST, list, max, 0);
	REQUIRE(pt_run(&q->r, &pc) == 0);
	{
		const struct isp_wire_reis_list *l = (const void *)list;
		const struct isp_wire_reis_dbinfo *e = (const void *)(l + 1);

		for (i = 0; i < l->count && n < BT_MAX_OBJS; i++)
			if (e[i].state == ISP_REIS_READY) {
				d[n].id = e[i].create.did;
				d[n].rf = 0;
				d[n++].h = bt_digest_db(q, &e[i], buf, max);
			}
	}
	pt_vendor(&pc, ISP_OP_RF_TBL_LIST, list, max, 0);
	REQUIRE(pt_run(&q->r, &pc) == 0);
	{
		const struct isp_wire_rf_list *l = (const void *)list;
		const struct isp_wire_rf_stats *e = (const void *)(l + 1);

		for (i = 0; i < l->count && n < BT_MAX_OBJS; i++)
			if (e[i].state == ISP_RF_READY) {
				d[n].id = e[i].create.tid;
				d[n].rf = 1;
				d[n++].h = bt_digest_tbl(q, &e[i], buf, max);
			}
	}
	free(list);
	return n;
}

/* ---- regular I/O ---- */

static void bt_blockio(struct bt_queue *q, uint64_t seed)
{
	uint64_t ns = 0, lba_bytes = 512, slba, nlb;
	uint8_t *w = pt_alloc(1u << 20), *r = pt_alloc(1u << 20);
	struct pt_cmd pc;
	FILE *f;

	f = fopen("/sys/block/nvme0n1/size", "r");	/* 512-byte sectors */
	if (f) {
		if (fscanf(f, "%llu", (unsigned long long *)&ns) != 1)
			ns = 0;
		fclose(f);
	}
	f = fopen("/sys/block/nvme0n1/queue/logical_block_size", "r");
	if (f) {
		if (fscanf(f, "%llu", (unsigned long long *)&lba_bytes) != 1)
			lba_bytes = 512;
		fclose(f);
	}
	REQUIRE(ns * 512 >= (4u << 20));
	nlb = (128u * 1024u) / lba_bytes;
	slba = (ns * 512 - (1u << 20)) / lba_bytes;
	isp_wire_pattern((uint32_t)seed, w, 1u << 20);
	for (uint32_t i = 0; i < 8; i++) {
		pt_rw(&pc, 1, w + i * 128u * 1024u, slba + i * nlb, (uint32_t)nlb, (uint32_t)lba_bytes);
		CHECK(pt_run(&q->r, &pc) == 0);
		pt_rw(&pc, 0, r + i * 128u * 1024u, slba + i * nlb, (uint32_t)nlb, (uint32_t)lba_bytes);
		CHECK(pt_run(&q->r, &pc) == 0);
	}
	CHECK(memcmp(w, r, 1u << 20) == 0);
	free(w);
	free(r);
}

/* ---- the generator threads ---- */

struct bt_thread {
	struct fz_state st;
	struct bt_queue *q;
	uint64_t quota, seed;
	pthread_t th;
};

static void *bt_gen(void *arg)
{
	struct bt_thread *t = arg;
	struct fz_src src = { .rng = t->seed };

	while (t->st.cmds < t->quota)
		fz_step(&t->st, &src);
	return NULL;
}

/* The edge sweep: every vendor opcode, NDT at its edges, NDM set or not. */
static void bt_sweep(struct fz_state *st, uint32_t max)
{
	const uint32_t ndt[] = { 0, 1, 1024, max / 4, max / 4 + 1 };
	struct isp_cpl cpl;
	unsigned opc, i, ndm;

	for (opc = 0x80; opc <= 0xff; opc++)
		for (i = 0; i < sizeof(ndt) / sizeof(ndt[0]); i++)
			for (ndm = 0; ndm < 2; ndm++) {
				struct isp_cmd c;

				memset(&c, 0, sizeof(c));
				c.opcode = (uint8_t)opc;
				c.nsid = PT_NSID;
				c.cdw10 = ndt[i];
				c.cdw11 = ndm;
				c.cdw12 = st->id_base + 1 + i;
				c.cdw13 = ndm ? 0xffffffffu : 1;
				fz_exec(st, &c, NULL, 0, &cpl);
			}
}

/*
 * Nothing may leave the drive's one trace armed: every traceable opcode
 * once (an armed filter matches one of them), then a TRACE_ARM must work.
 */
static void bt_trace_free(struct bt_queue *q)
{
	uint8_t *buf = pt_alloc(4096);
	struct pt_cmd pc;
	unsigned opc;

	for (opc = 0x80; opc <= 0xff; opc++) {
		if (!isp_dev_opcode_supported((uint8_t)opc, NULL) || opc == ISP_OP_TRACE_ARM ||
		    opc == ISP_OP_RESULT_READ || opc == ISP_OP_RESULT_RELEASE)
			continue;
		/* well-formed for the glue, refused by the handler (id 0) */
		pt_vendor(&pc, (uint8_t)opc, isp_wire_dir((uint8_t)opc) ? buf : NULL,
			  isp_wire_dir((uint8_t)opc) ? 4096 : 0, 0);
		CHECK(pt_run(&q->r, &pc) >= 0);
	}
	pt_vendor(&pc, ISP_OP_TRACE_ARM, NULL, 0, 0x7ace0001u);
	pc.c.cdw13 = ISP_OP_NOOP;
	CHECK_EQ_U64(pt_run(&q->r, &pc), 0);
	pt_vendor(&pc, ISP_OP_NOOP, NULL, 0, 0);
	CHECK_EQ_U64(pt_run(&q->r, &pc), 0);
	pt_vendor(&pc, ISP_OP_RESULT_RELEASE, NULL, 0, 0x7ace0001u);
	CHECK_EQ_U64(pt_run(&q->r, &pc), 0);
	free(buf);
}

int main(void)
{
	struct isp_wire_identify *id = pt_alloc(sizeof(*id));
	struct bt_digest *d0 = calloc(BT_MAX_OBJS, sizeof(*d0));
	struct bt_digest *d1 = calloc(BT_MAX_OBJS, sizeof(*d1));
	struct bt_queue q[BT_THREADS + 1];
	struct bt_thread t[BT_THREADS];
	struct fz_state w, g;
	uint64_t quota = getenv("BATTERY_CMDS") ? strtoull(getenv("BATTERY_CMDS"), NULL, 0) : 6000;
	uint64_t total = 0, ok = 0, rejects = 0, t0 = pt_now_ns(), free_w, dram_w;
	uint32_t max;
	uint8_t *buf;
	unsigned i, n0, n1;

	REQUIRE(d0 && d1);
	for (i = 0; i <= BT_THREADS; i++) {
		REQUIRE(pt_open(&q[i].r, NULL, 8) == 0);
		q[i].scratch = pt_alloc(4096);
		q[i].kernel_rejects = 0;
	}
	REQUIRE(pt_isp_identify(&q[0].r, id) == 0);
	if (!(id->caps & ISP_CAP_REIS) || !(id->caps & ISP_CAP_RECFLASH))
		SKIP("the drive lacks REIS or RecFlash (caps %#llx)", (unsigned long long)id->caps);
	max = id->max_xfer < FZ_MAX_XFER ? id->max_xfer : FZ_MAX_XFER;
	buf = pt_alloc(max);

	/* 1, 2 */
	bt_blockio(&q[0], 1);
	bt_state(&w, &q[0], BT_WITNESS, id->max_xfer);
	fz_fixtures(&w, 0, 1);
	n0 = bt_digests(&q[0], d0, buf, max);
	REQUIRE(n0 >= 5);

	/* 3 */
	bt_state(&g, &q[0], BT_GEN, id->max_xfer);
	free_w = w.free0;
	dram_w = w.dram0;
	{
		struct isp_wire_identify *now = pt_alloc(sizeof(*now));

		REQUIRE(pt_isp_identify(&q[0].r, now) == 0);
		g.free0 = now->free_bytes;	/* with the witnesses */
		g.dram0 = now->dram_used;
		free(now);
	}
	bt_sweep(&g, id->max_xfer);

	/* 4: overlapping id windows, so deploys and deletes race */
	for (i = 0; i < BT_THREADS; i++) {
		bt_state(&t[i].st, &q[i + 1], BT_GEN + 8 * i, id->max_xfer);
		t[i].st.next_ticket = (uint32_t)(i + 1) << 20;
		t[i].quota = quota / BT_THREADS;
		t[i].seed = 0xba77e4ull + i;
		fz_fixtures(&t[i].st, (int)i, 1);
	}
	for (i = 0; i < BT_THREADS; i++)
		REQUIRE(pthread_create(&t[i].th, NULL, bt_gen, &t[i]) == 0);
	for (i = 0; i < BT_THREADS; i++) {
		pthread_join(t[i].th, NULL);
		fz_release(&g, ((uint32_t)(i + 1) << 20) + 1, t[i].st.next_ticket);
		total += t[i].st.cmds;
		ok += t[i].st.ok;
		for (unsigned j = 0; j < FZ_MAX_OBJS; j++) {
			free(t[i].st.obj[j].csize);
			free(t[i].st.obj[j].docs);
		}
	}

	/* 5: delete the generator's objects; flash and DRAM as with the witnesses */
	fz_cleanup(&g);
	total += g.cmds;
	ok += g.ok;
	n1 = bt_digests(&q[0], d1, buf, max);
	CHECK_EQ_U64(n1, n0);
	for (i = 0; i < n0 && i < n1; i++) {
		if (d0[i].id != d1[i].id || d0[i].rf != d1[i].rf || d0[i].h != d1[i].h) {
			fprintf(stderr, "%s %#x answers differently after the battery\n",
				d0[i].rf ? "table" : "database", d0[i].id);
			t_failures++;
		}
	}
	bt_blockio(&q[0], 2);
	if (id->caps & ISP_CAP_TRACE)
		bt_trace_free(&q[0]);
	w.free0 = free_w;
	w.dram0 = dram_w;
	fz_cleanup(&w);
	total += w.cmds;
	for (i = 0; i <= BT_THREADS; i++) {
		rejects += q[i].kernel_rejects;
		pt_close(&q[i].r);
		free(q[i].scratch);
	}
	printf("battery: %llu vendor commands (%llu succeeded, %llu refused by the kernel), "
	       "%u objects answered alike, %.1f s\n", (unsigned long long)total,
	       (unsigned long long)ok, (unsigned long long)rejects, n0,
	       (double)(pt_now_ns() - t0) / 1e9);
	CHECK(total >= 5000 || quota < 4200);	/* a smaller BATTERY_CMDS, by hand */
	free(buf);
	free(id);
	free(d0);
	free(d1);
	return t_result();
}
