/* SPDX-License-Identifier: MIT */
/*
 * test_ftl_idle - the FTL shares the calendars and costs nothing when idle:
 *   - the same REIS deploys and searches on a drive without a namespace
 *     and on one whose FTL holds a 64 MiB namespace and has served reads,
 *     writes, GC and flushes long before: identical modeled time, energy
 *     and results, command by command (the FTL's stripes and DRAM change
 *     where the databases land, not what they cost);
 *   - and on the same calendars: a 4 KiB read submitted while a search
 *     holds the planes waits for them, a search submitted during a burst
 *     of reads and writes takes longer, and its results stay exact.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "ftl_t.h"
#include "isp_internal.h"
#include "reis_t.h"

#define KB 4096ull
#define NS_BYTES (64ull << 20)
#define NS_UNITS (NS_BYTES / KB)
#define SEC 1000000000ull
/* ftl_cyc_cmd=1500 (1 us): the idle 4 KiB read is test_ftl_map's 65134 ns */
#define PARAMS "ftl_cyc_cmd=1500"

struct run {
	uint64_t ns[16], pj[16];
	uint8_t *hits[16];
	uint64_t hlen[16];
	unsigned n;
};

static void record(struct run *r, const struct t_res *res)
{
	REQUIRE(r->n < 16);
	r->ns[r->n] = res->search_ns;
	r->pj[r->n] = res->search_pj;
	r->hlen[r->n] = res->len;
	r->hits[r->n] = malloc(res->len);
	REQUIRE(r->hits[r->n]);
	memcpy(r->hits[r->n], res->blob, res->len);
	/* the header's model time and energy are the search's: compare as is */
	r->n++;
}

/* The ISP work both drives do: two databases, five searches. */
static void isp_work(struct isp_dev *dev, struct run *r, struct t_db *bf, struct t_db *ivf)
{
	struct t_query q;
	struct t_sopts o;
	struct t_res res;

	CHECK_EQ_U64(t_deploy(dev, bf, 65536), 0);
	CHECK_EQ_U64(t_deploy(dev, ivf, 65536), 0);
	t_queries(&q, bf, 8, 5);
	memset(&o, 0, sizeof(o));
	o.did = 1;
	o.k = 10;
	REQUIRE(t_search_ticket(dev, 0, &o, &q, 1000 + r->n, &res) == 0);
	record(r, &res);
	t_res_free(&res);
	o.flags = ISP_REIS_SF_DOCS;
	REQUIRE(t_search_ticket(dev, 0, &o, &q, 1000 + r->n, &res) == 0);
	record(r, &res);
	t_res_free(&res);
	o.flags = ISP_REIS_SF_NO_DF;
	REQUIRE(t_search_ticket(dev, 0, &o, &q, 1000 + r->n, &res) == 0);
	record(r, &res);
	t_res_free(&res);
	t_queries_free(&q);
	t_queries(&q, ivf, 8, 6);
	memset(&o, 0, sizeof(o));
	o.did = 2;
	o.k = 10;
	o.nprobe = 4;
	REQUIRE(t_search_ticket(dev, 1, &o, &q, 1000 + r->n, &res) == 0);
	record(r, &res);
	t_res_free(&res);
	o.nprobe = 12;
	REQUIRE(t_search_ticket(dev, 1, &o, &q, 1000 + r->n, &res) == 0);
	record(r, &res);
	t_res_free(&res);
	t_queries_free(&q);
}

static void run_free(struct run *r)
{
	unsigned i;

	for (i = 0; i < r->n; i++)
		free(r->hits[i]);
}

static void test_idle_costs_nothing(struct t_db *bf, struct t_db *ivf)
{
	struct run a, b;
	struct isp_dev *dev;
	struct ftl_cpl c;
	struct ftl_stats s;
	struct isp_wire_stats w;
	char err[256];
	uint32_t seed = 99, i;
	uint64_t at = 1000000;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	dev = t_open("reis-ssd1", PARAMS, NULL);
	REQUIRE(dev);
	isp_work(dev, &a, bf, ivf);
	isp_dev_close(dev);

	dev = t_open("reis-ssd1", PARAMS, NULL);
	REQUIRE(dev);
	REQUIRE(isp_dev_ns_attach(dev, 1, NS_BYTES, err, sizeof(err)) == 0);
	for (i = 0; i < 3000; i++) {
		uint64_t u = t_xs(&seed) % (NS_UNITS - 8);

		REQUIRE(t_dev_cmd(dev, i % 3 ? FTL_READ : FTL_WRITE, u * KB, (i % 7 + 1) * KB,
				at += 20000, &c) == 0);
	}
	REQUIRE(t_dev_cmd(dev, FTL_FLUSH, 0, 0, at += 20000, &c) == 0);
	ftl_get_stats(isp_dev_ftl(dev), &s, 0);
	CHECK_EQ_U64(s.reads, 2000);
	CHECK_EQ_U64(s.writes, 1000);
	/* the vendor commands start 10 s after the last ordinary one */
	t_clock = at + 10 * SEC;
	isp_work(dev, &b, bf, ivf);
	REQUIRE(a.n == b.n);
	for (i = 0; i < a.n; i++) {
		CHECK_EQ_U64(a.ns[i], b.ns[i]);
		CHECK_EQ_U64(a.pj[i], b.pj[i]);
		CHECK_EQ_U64(a.hlen[i], b.hlen[i]);
		CHECK(a.hlen[i] == b.hlen[i] && !memcmp(a.hits[i], b.hits[i], a.hlen[i]));
	}
	/* ordinary I/O is not counted among the vendor commands' latencies */
	REQUIRE(isp_dev_log_page(dev, ISP_LID_STATS, &w, sizeof(w), 0) == (int)sizeof(w));
	CHECK_EQ_U64(w.ftl_reads, 2000);
	CHECK_EQ_U64(w.ftl_writes, 1000);
	CHECK(w.ftl_nand_write_bytes > 0);
	CHECK(w.ftl_user_bytes == NS_BYTES);
	isp_dev_close(dev);
	run_free(&a);
	run_free(&b);
}

static void test_shared_calendars(struct t_db *bf)
{
	struct isp_dev *dev;
	struct t_query q;
	struct t_sopts o;
	struct t_res idle, busy;
	struct isp_cmd cmd;
	struct isp_cpl cpl;
	struct ftl_cpl c;
	uint8_t *data;
	size_t len;
	char err[256];
	uint64_t t0, worst = 0, u;
	uint32_t seed = 7, i;

	dev = t_open("reis-ssd1", PARAMS, NULL);
	REQUIRE(dev);
	REQUIRE(isp_dev_ns_attach(dev, 1, NS_BYTES, err, sizeof(err)) == 0);
	CHECK_EQ_U64(t_deploy(dev, bf, 65536), 0);
	t_queries(&q, bf, 64, 8);
	memset(&o, 0, sizeof(o));
	o.did = 1;
	o.k = 10;
	REQUIRE(t_search_ticket(dev, 0, &o, &q, 2000, &idle) == 0);
	/* an idle 4 KiB read */
	REQUIRE(t_dev_cmd(dev, FTL_READ, 0, KB, t_clock += 10 * SEC, &c) == 0);
	CHECK_EQ_U64(c.model_ns, 65134);

	/* 1. reads submitted 1 us after a search, on every plane's data */
	data = t_search_data(&o, &q, &len);
	cmd = t_mk(ISP_OP_REIS_SEARCH, (uint32_t)len);
	cmd.cdw12 = 2001;
	t0 = cmd.submit_ns;
	REQUIRE(t_run(dev, &cmd, data, len, &cpl) == 0);
	for (u = 0; u < 256; u++) {
		REQUIRE(t_dev_cmd(dev, FTL_READ, u * 4 * KB, KB, t0 + 1000, &c) == 0);
		if (c.model_ns > worst)
			worst = c.model_ns;
	}
	/* the search holds the planes for most of its time: reads wait */
	printf("search %llu ns; 4 KiB reads 1 us into it: worst %llu ns (idle 65134)\n",
	       (unsigned long long)cpl.model_ns, (unsigned long long)worst);
	CHECK(worst > 65134 + 20000);
	CHECK(worst <= cpl.model_ns + 65134);
	REQUIRE(t_read_result(dev, 2001, &busy) == 0);
	CHECK(busy.len == idle.len && !memcmp(busy.blob + sizeof(busy.hdr),
					      idle.blob + sizeof(idle.hdr),
					      idle.len - sizeof(idle.hdr)));
	t_res_free(&busy);

	/* 2. a search 10 us into a burst of reads and writes takes longer */
	t0 = t_clock += 10 * SEC;
	for (i = 0; i < 4000; i++) {
		u = t_xs(&seed) % (NS_UNITS - 8);
		REQUIRE(t_dev_cmd(dev, i % 4 ? FTL_READ : FTL_WRITE, u * KB, 8 * KB,
				t0 + i * 250, &c) == 0);
	}
	cmd = t_mk(ISP_OP_REIS_SEARCH, (uint32_t)len);
	cmd.cdw12 = 2002;
	cmd.submit_ns = t0 + 10000;
	REQUIRE(t_run(dev, &cmd, data, len, &cpl) == 0);
	printf("search during 4000 ordinary commands: %llu ns (idle %llu ns)\n",
	       (unsigned long long)cpl.model_ns, (unsigned long long)idle.search_ns);
	CHECK(cpl.model_ns > idle.search_ns);
	REQUIRE(t_read_result(dev, 2002, &busy) == 0);
	CHECK(busy.len == idle.len && !memcmp(busy.blob + sizeof(busy.hdr),
					      idle.blob + sizeof(idle.hdr),
					      idle.len - sizeof(idle.hdr)));
	t_res_free(&busy);
	t_res_free(&idle);
	free(data);
	t_queries_free(&q);
	isp_dev_close(dev);
}

int main(void)
{
	struct t_db bf, ivf;

	t_db_make(&bf, 1, ISP_REIS_BF, 1024, 20000, 0, ISP_REIS_DBF_INT8 | ISP_REIS_DBF_IDS,
		  ISP_REIS_DOC_SUBPAGE, 2048, 11);
	t_db_make(&ivf, 2, ISP_REIS_IVF, 512, 10000, 32, ISP_REIS_DBF_INT8,
		  ISP_REIS_DOC_NONE, 0, 12);
	test_idle_costs_nothing(&bf, &ivf);
	test_shared_calendars(&bf);
	t_db_free(&bf);
	t_db_free(&ivf);
	return t_result();
}
