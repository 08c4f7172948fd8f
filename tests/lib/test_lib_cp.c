/* SPDX-License-Identifier: MIT */
/*
 * test_lib_cp - libreis' standard path (REIS_INPROC_CP / ISP_PATH=cp,
 * docs/libreis.md "The standard path") against the vendor path on two
 * in-process drives of the same preset: how the path is chosen (flags win
 * over ISP_PATH; both flags refused); the same database deployed on both
 * gives bit-identical brute-force and IVF hits and documents, and the same
 * modeled search time; the standard handle really sends Memory Write /
 * Execute Program / Memory Read (the drive's counters of the standard
 * commands move, its vendor search counter does not); an engine error
 * reaches the caller with the vendor path's errno and the drive's Error
 * Information text; TRACE_ARM is refused. Then raw commands to the memory
 * namespace of the in-process drive: Memory Write / Read, and Memory Copy
 * from the NVM namespace's LBAs (format 2h, staged by the in-process
 * transport as QEMU's glue stages them), byte-identical to the blocks, and
 * a source past the namespace is LBA Out of Range with its error log text.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "isp_wire.h"
#include "libreis_tools.h"
#include "cp_t.h"
#include "reis_cmp.h"
#include "reis_synth.h"

#define DIM 128
#define N 3000
#define NQ 32
/* docs/command-set.md §9.2: the in-process drive's namespaces */
#define NS_SLM 2u
#define NS_CP 3u

static struct reis_dev *open_drive(const char *backing, uint32_t flags, int *err_ret)
{
	struct reis_inproc_opts o;
	struct reis_dev *dev = NULL;
	char err[256] = "";
	int ret;

	memset(&o, 0, sizeof(o));
	o.backing = backing;
	o.workers = 2;
	o.flags = REIS_INPROC_VCLOCK | flags;	/* modeled times independent of load */
	o.errbuf = err;
	o.errlen = sizeof(err);
	ret = reis_open_inproc(&o, &dev);
	if (err_ret) {
		*err_ret = ret;
		return dev;
	}
	if (ret)
		fprintf(stderr, "open: %s\n", err);
	REQUIRE(ret == 0);
	return dev;
}

static void close_drive(struct reis_dev *dev, const char *backing)
{
	reis_close(dev);
	unlink(backing);
}

/* How the path is chosen: flags, else ISP_PATH=cp. */
static void test_choice(const char *backing)
{
	struct reis_dev *d;
	int ret;

	d = open_drive(backing, REIS_INPROC_CP | REIS_INPROC_VENDOR, &ret);
	CHECK_EQ_U64(ret, -EINVAL);
	CHECK(d == NULL);
	CHECK_EQ_U64(reis_path_cp(NULL), 0);

	REQUIRE(setenv("ISP_PATH", "cp", 1) == 0);
	d = open_drive(backing, 0, NULL);
	CHECK_EQ_U64(reis_path_cp(d), 1);
	close_drive(d, backing);
	d = open_drive(backing, REIS_INPROC_VENDOR, NULL);
	CHECK_EQ_U64(reis_path_cp(d), 0);
	close_drive(d, backing);
	REQUIRE(setenv("ISP_PATH", "vendor", 1) == 0);
	d = open_drive(backing, 0, NULL);
	CHECK_EQ_U64(reis_path_cp(d), 0);
	close_drive(d, backing);
	d = open_drive(backing, REIS_INPROC_CP, NULL);
	CHECK_EQ_U64(reis_path_cp(d), 1);
	close_drive(d, backing);
	REQUIRE(unsetenv("ISP_PATH") == 0);
}

static void stats(struct reis_dev *dev, struct reis_stats *st)
{
	REQUIRE(reis_stats(dev, 0, st) == 0);
}

/* One search on both paths: the same hits and documents, the same cost. */
static void same(struct reis_dev *v, struct reis_dev *c, const char *what, int ivf,
		 const struct reis_search_opts *o, const struct reis_queries *q)
{
	struct reis_search_result rv, rc;
	struct reis_stats s0, s1;
	int a, b;

	stats(c, &s0);
	a = ivf ? reis_ivf_search(v, o, q, &rv) : reis_search(v, o, q, &rv);
	b = ivf ? reis_ivf_search(c, o, q, &rc) : reis_search(c, o, q, &rc);
	if (a || b)
		fprintf(stderr, "%s: vendor '%s', cp '%s'\n", what, reis_last_error(v),
			reis_last_error(c));
	REQUIRE(a == 0 && b == 0);
	stats(c, &s1);
	CHECK_EQ_U64(reis_cmp_results(what, &rc, &rv, !!(o->flags & REIS_SF_DOCS)), 0);
	CHECK_EQ_U64(rc.nq, rv.nq);
	CHECK_EQ_U64(rc.entries_compared, rv.entries_compared);
	CHECK_EQ_U64(rc.pages_read, rv.pages_read);
	CHECK_EQ_U64(rc.nprobe, rv.nprobe);
	/* the search is the vendor command run on controller DRAM: its queries
	 * and result move through DRAM instead of the host link (command-set.md
	 * §9.6 "Cost"), and a search's documents are read inside it */
	printf("%s: modeled vendor %.1f us search + %.1f us read, cp %.1f us + %.1f us\n",
	       what, rv.search_ns / 1e3, rv.read_ns / 1e3, rc.search_ns / 1e3, rc.read_ns / 1e3);
	CHECK(rc.search_ns + rc.read_ns >= rv.search_ns);
	CHECK(rc.search_ns + rc.read_ns <= (rv.search_ns + rv.read_ns) * 1.01 + 5000);
	/* Memory Write of the queries, Execute Program, Memory Read of the
	 * result; no vendor SEARCH reached the drive */
	CHECK(s1.std_cmds[REIS_STD_CLS_EXEC] > s0.std_cmds[REIS_STD_CLS_EXEC]);
	CHECK(s1.std_cmds[REIS_STD_CLS_MEM] >= s0.std_cmds[REIS_STD_CLS_MEM] + 2);
	CHECK(s1.slm_bytes_written >= s0.slm_bytes_written + (uint64_t)q->nq * (q->dim / 8 + q->dim));
	CHECK(s1.slm_bytes_read > s0.slm_bytes_read);
	CHECK_EQ_U64(s1.cmds[REIS_CLS_REIS_SEARCH], s0.cmds[REIS_CLS_REIS_SEARCH]);
	reis_search_result_free(&rv);
	reis_search_result_free(&rc);
}

static void test_same(const char *bv, const char *bc)
{
	float *x = synth_vectors(1, N, DIM, 30, 0.5f), *qf = synth_vectors(2, NQ, DIM, 30, 0.5f);
	float *cq = synth_vectors(3, 100, DIM, 30, 0.5f);
	uint64_t *off;
	uint8_t *docs = synth_docs(4, N, 700, &off);
	struct reis_db_image bf, ivf;
	struct reis_search_opts so;
	struct reis_queries q;
	struct reis_stats sv, sc;
	struct reis_dev *v, *c;
	struct reis_search_result r;
	char ev[512], ec[512];
	int a, b;

	REQUIRE(x && qf && cq && docs);
	cp_t_build(&bf, x, N, DIM, 31, REIS_DB_BF, docs, off, 24, NULL, 0);
	cp_t_build(&ivf, x, N, DIM, 32, REIS_DB_IVF, docs, off, 24, cq, 100);
	REQUIRE(reis_encode_queries(bf.quant, qf, NQ, &q) == 0);
	v = open_drive(bv, REIS_INPROC_VENDOR, NULL);
	c = open_drive(bc, REIS_INPROC_CP, NULL);
	CHECK_EQ_U64(reis_path_cp(v), 0);
	CHECK_EQ_U64(reis_path_cp(c), 1);
	REQUIRE(reis_db_deploy(v, &bf, NULL) == 0);
	REQUIRE(reis_db_deploy(v, &ivf, NULL) == 0);
	a = reis_db_deploy(c, &bf, NULL);
	if (a)
		fprintf(stderr, "cp deploy: %s\n", reis_last_error(c));
	REQUIRE(a == 0);
	REQUIRE(reis_db_deploy(c, &ivf, NULL) == 0);

	memset(&so, 0, sizeof(so));
	so.did = 31;
	so.k = 10;
	same(v, c, "bf k=10", 0, &so, &q);
	so.flags = REIS_SF_DOCS;
	same(v, c, "bf docs", 0, &so, &q);
	so.did = 32;
	so.flags = 0;
	so.nprobe = 4;
	same(v, c, "ivf nprobe 4", 1, &so, &q);
	so.nprobe = 0;
	so.target_recall = 9000;	/* 0.9 */
	so.flags = REIS_SF_DOCS;
	same(v, c, "ivf recall 0.9 docs", 1, &so, &q);

	/* the vendor handle sent vendor commands only */
	stats(v, &sv);
	CHECK_EQ_U64(sv.std_cmds[REIS_STD_CLS_EXEC] + sv.std_cmds[REIS_STD_CLS_MEM], 0);
	CHECK(sv.cmds[REIS_CLS_REIS_SEARCH] >= 4);
	/* the standard handle's deploy went through isp-manage too */
	stats(c, &sc);
	CHECK_EQ_U64(sc.cmds[REIS_CLS_REIS_DEPLOY], 0);
	CHECK_EQ_U64(sc.cmds[REIS_CLS_REIS_SEARCH], 0);
	CHECK_EQ_U64(sc.std_errors[REIS_STD_CLS_EXEC], 0);

	/* an engine error: the vendor path's errno and the drive's words */
	so.did = 999;
	a = reis_search(v, &so, &q, &r);
	snprintf(ev, sizeof(ev), "%s", reis_last_error(v));
	b = reis_search(c, &so, &q, &r);
	snprintf(ec, sizeof(ec), "%s", reis_last_error(c));
	printf("unknown database: vendor '%s'\n                  cp '%s'\n", ev, ec);
	CHECK_EQ_U64(a, -ENOENT);
	CHECK_EQ_U64(b, -ENOENT);
	CHECK(strstr(ev, "999") != NULL);
	CHECK(strstr(ec, "999") != NULL);
	stats(c, &sc);
	CHECK_EQ_U64(sc.std_errors[REIS_STD_CLS_EXEC], 1);

	/* tracing is the vendor path's */
	CHECK_EQ_U64(reis_trace_arm(c, 77, REIS_OP_SEARCH), -EOPNOTSUPP);

	REQUIRE(reis_db_delete(c, 31) == 0);
	CHECK_EQ_U64(reis_db_list(c, NULL, 0), 1);
	close_drive(v, bv);
	close_drive(c, bc);
	reis_queries_free(&q);
	reis_db_image_free(&bf);
	reis_db_image_free(&ivf);
	free(x);
	free(qf);
	free(cq);
	free(docs);
	free(off);
}

static uint16_t raw(struct reis_dev *dev, const struct reis_cmd *cmd, void *data, uint32_t len,
		    char *msg, size_t msglen)
{
	struct reis_req req;

	reis_prep_raw(&req, cmd, data, len);
	(void)reis_exec(dev, &req);
	if (msg)
		reis_req_strerror(&req, msg, msglen);
	return req.cpl.status;
}

static uint16_t mem_rw(struct reis_dev *dev, uint8_t opc, uint64_t sb, void *buf, uint32_t len)
{
	struct reis_cmd c;

	memset(&c, 0, sizeof(c));
	c.opcode = opc;
	c.nsid = NS_SLM;
	c.cdw10 = (uint32_t)sb;
	c.cdw11 = (uint32_t)(sb >> 32);
	c.cdw12 = len;
	return raw(dev, &c, buf, len, NULL, 0);
}

/* Memory Copy from the NVM namespace's blocks into the memory namespace. */
static void test_copy_lba(const char *backing)
{
	enum { LB = REIS_INPROC_LBA_BYTES, NB = 16 };
	struct isp_wire_cs_src_lba s[2];
	struct reis_stats s0, s1;
	struct reis_dev *d = open_drive(backing, REIS_INPROC_VENDOR, NULL);
	uint8_t *blk = malloc(NB * LB), *got = malloc(NB * LB);
	const uint64_t dst = 1u << 20;
	struct isp_wire_err_text e;
	struct reis_cmd c;
	char msg[512];
	unsigned i;

	REQUIRE(blk && got);
	for (i = 0; i < NB * LB; i++)
		blk[i] = (uint8_t)(i * 131u + 7u);
	REQUIRE(reis_block_write(d, 100, NB, blk) == 0);
	stats(d, &s0);

	/* Memory Write then Read: the same bytes */
	CHECK_EQ_U64(mem_rw(d, ISP_CS_OP_MEM_WRITE, 4096, blk, 2048), 0);
	memset(got, 0, 2048);
	CHECK_EQ_U64(mem_rw(d, ISP_CS_OP_MEM_READ, 4096, got, 2048), 0);
	CHECK(memcmp(got, blk, 2048) == 0);

	/* blocks 100..103 and 110..111 (NLB 0's based) */
	memset(s, 0, sizeof(s));
	s[0].snsid = s[1].snsid = 1;
	s[0].slba = 100;
	s[0].nlb = 3;
	s[1].slba = 110;
	s[1].nlb = 1;
	memset(&c, 0, sizeof(c));
	c.opcode = ISP_CS_OP_MEM_COPY;
	c.nsid = NS_SLM;
	c.cdw2 = 6 * LB;				/* NBYTE */
	c.cdw10 = (uint32_t)dst;			/* SDADDR */
	c.cdw12 = 1u | (uint32_t)ISP_CS_DESFMT_LBA << 8;	/* NR 0's based, DESFMT 2h */
	CHECK_EQ_U64(raw(d, &c, s, sizeof(s), msg, sizeof(msg)), 0);
	memset(got, 0, NB * LB);
	CHECK_EQ_U64(mem_rw(d, ISP_CS_OP_MEM_READ, dst, got, 6 * LB), 0);
	CHECK(memcmp(got, blk, 4 * LB) == 0);
	CHECK(memcmp(got + 4 * LB, blk + 10 * LB, 2 * LB) == 0);
	stats(d, &s1);
	CHECK_EQ_U64(s1.slm_bytes_copied - s0.slm_bytes_copied, 6 * LB);
	CHECK_EQ_U64(s1.std_cmds[REIS_STD_CLS_COPY] - s0.std_cmds[REIS_STD_CLS_COPY], 1);

	/* a source past the namespace: LBA Out of Range, the range named */
	s[1].slba = REIS_INPROC_NS_BYTES / LB - 1;
	CHECK_EQ_U64(raw(d, &c, s, sizeof(s), msg, sizeof(msg)), 0x0080 | REIS_STATUS_DNR);
	/* the newest Error Information entry names range 1's SLBA (data byte
	 * 32 + 8) in the drive's words */
	REQUIRE(reis_log_page(d, ISP_LID_ERRTEXT, 0, &e, sizeof(e)) == 0);
	e.msg[sizeof(e.msg) - 1] = 0;
	printf("past the namespace: %s; log: opcode %02xh status 0x%x data byte %u '%s'\n",
	       msg, e.opcode, e.status, e.data_byte - 1u, e.msg);
	CHECK_EQ_U64(e.opcode, ISP_CS_OP_MEM_COPY);
	CHECK_EQ_U64(e.status, 0x0080 | REIS_STATUS_DNR);
	CHECK_EQ_U64(e.data_byte, 32 + 8 + 1);
	CHECK(strstr(e.msg, "source range 1") != NULL);
	stats(d, &s0);
	CHECK_EQ_U64(s0.std_errors[REIS_STD_CLS_COPY] - s1.std_errors[REIS_STD_CLS_COPY], 1);
	CHECK_EQ_U64(s0.slm_bytes_copied, s1.slm_bytes_copied);
	/* the destination unchanged */
	CHECK_EQ_U64(mem_rw(d, ISP_CS_OP_MEM_READ, dst, got, 6 * LB), 0);
	CHECK(memcmp(got + 4 * LB, blk + 10 * LB, 2 * LB) == 0);
	/* NBYTE not the ranges' sum: the model's check, before any staging */
	s[1].slba = 110;
	c.cdw2 = 5 * LB;
	CHECK_EQ_U64(raw(d, &c, s, sizeof(s), NULL, 0) & REIS_STATUS_CODE_MASK,
		     REIS_SC_INVALID_FIELD);
	close_drive(d, backing);
	free(blk);
	free(got);
}

int main(void)
{
	char b1[64], b2[64];

	snprintf(b1, sizeof(b1), "/tmp/test_lib_cp.%d.v.flash", (int)getpid());
	snprintf(b2, sizeof(b2), "/tmp/test_lib_cp.%d.c.flash", (int)getpid());
	unlink(b1);
	unlink(b2);
	test_choice(b1);
	test_same(b1, b2);
	test_copy_lba(b1);
	return t_result();
}
