/* SPDX-License-Identifier: MIT */
/*
 * test_reis_threads - one search's host work split over the drive's worker
 * set (host_threads=N, reis_run.c, isp_pool.c) changes nothing the drive
 * reports: two drives, one on one thread and one on three, get the same
 * commands, and every search's modeled time, energy, counters, hits and
 * documents are equal, as are the busy times of the statistics at the end.
 * Covered: brute force one query (its pages in slices), a few queries
 * (slices and the queries' rest in groups), many queries in several
 * blocks, the filters, tags, no rerank, documents; IVF one and many
 * queries; a group (searched on the command's thread). The hits are also
 * checked against the reference, and the helpers must really have run.
 * host_threads= is parsed strictly.
 */
#include <dirent.h>
#include <stddef.h>
#include <inttypes.h>

#include "flash_preset.h"
#include "reis_engine.h"
#include "reis_t.h"

static struct isp_dev *dev1, *devn;

/* Threads of this process. */
static unsigned t_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	unsigned n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The same search on both drives: everything equal; the hits the
 * reference's when @dbs is given. */
static void same(const char *what, int ivf, const struct t_sopts *o, const struct t_query *q,
		 const struct t_db *const *dbs, uint32_t ndbs)
{
	struct t_res a, b;
	uint32_t i, ok = 1;

	CHECK_EQ_U64(t_search(dev1, ivf, o, q, &a), 0);
	CHECK_EQ_U64(t_search(devn, ivf, o, q, &b), 0);
	/* The blobs differ in their tickets only (each drive's own). */
	if (a.len >= sizeof(a.hdr) && b.len >= sizeof(b.hdr))
		memcpy(b.blob + offsetof(struct isp_wire_result_hdr, ticket),
		       a.blob + offsetof(struct isp_wire_result_hdr, ticket), sizeof(a.hdr.ticket));
	if (a.len != b.len || a.search_ns != b.search_ns || a.search_pj != b.search_pj ||
	    a.read_ns != b.read_ns || memcmp(&a.rr, &b.rr, sizeof(a.rr)) ||
	    memcmp(a.blob, b.blob, a.len < b.len ? a.len : b.len)) {
		fprintf(stderr, "  %s: 1 thread ns %" PRIu64 " pj %" PRIu64 " len %" PRIu64
			", 3 threads ns %" PRIu64 " pj %" PRIu64 " len %" PRIu64 "\n", what,
			a.search_ns, a.search_pj, a.len, b.search_ns, b.search_pj, b.len);
		ok = 0;
	}
	CHECK(ok);
	for (i = 0; dbs && i < q->nq && i < b.rr.nq; i++)
		ok &= (uint32_t)t_check_query(&b, i, dbs, ndbs, ivf, o, q, 1,
					      !!(o->flags & ISP_REIS_SF_DOCS));
	if (!ok)
		fprintf(stderr, "  %s: differs\n", what);
	CHECK(ok);
	t_res_free(&a);
	t_res_free(&b);
}

static void deploy(const struct t_db *db)
{
	CHECK_EQ_U64(t_deploy(dev1, db, 1 << 18), 0);
	CHECK_EQ_U64(t_deploy(devn, db, 1 << 18), 0);
}

static void stats_same(void)
{
	struct isp_wire_stats s1, sn;
	struct isp_cmd c1 = t_mk(ISP_OP_STATS, sizeof(s1)), cn = c1;

	CHECK_EQ_U64(t_run(dev1, &c1, &s1, sizeof(s1), NULL), 0);
	CHECK_EQ_U64(t_run(devn, &cn, &sn, sizeof(sn), NULL), 0);
	CHECK_EQ_U64(s1.model_ns, sn.model_ns);
	CHECK(!memcmp(s1.busy_ns, sn.busy_ns, sizeof(s1.busy_ns)));
}

static void test_bf(void)
{
	static const uint32_t nqs[] = { 1, 3, 70, 130 };
	static const uint32_t fl[] = { 0, ISP_REIS_SF_NO_RERANK | ISP_REIS_SF_TAG,
				       ISP_REIS_SF_NO_DF, ISP_REIS_SF_DOCS };
	struct t_db db;
	struct t_query q;
	struct t_sopts o;
	const struct t_db *dbs[1] = { &db };
	char what[96];
	unsigned before = t_threads(), a, c;

	t_db_make(&db, 1, ISP_REIS_BF, 512, 20000, 0,
		  ISP_REIS_DBF_INT8 | ISP_REIS_DBF_TAGS | ISP_REIS_DBF_IDS, 1, 300, 11);
	db.c.df_threshold = 200;
	deploy(&db);
	t_queries(&q, &db, 130, 21);
	for (a = 0; a < sizeof(nqs) / sizeof(nqs[0]); a++) {
		for (c = 0; c < sizeof(fl) / sizeof(fl[0]); c++) {
			struct t_query s = q;

			s.nq = nqs[a];
			memset(&o, 0, sizeof(o));
			o.did = 1;
			o.k = c == 2 ? 100 : 10;
			o.flags = fl[c];
			o.tag = 2;
			snprintf(what, sizeof(what), "bf nq %u fl %x", s.nq, o.flags);
			same(what, 0, &o, &s, nqs[a] <= 70 ? dbs : NULL, 1);
			o.thr = 180;
			snprintf(what, sizeof(what), "bf nq %u fl %x thr 180", s.nq, o.flags);
			same(what, 0, &o, &s, NULL, 1);
		}
	}
	/* The three-thread drive's two helpers started (a sanitizer may add
	 * a thread of its own). */
	CHECK(t_threads() >= before + 2);
	t_queries_free(&q);
	t_db_free(&db);
}

static void test_ivf(void)
{
	static const uint32_t nps[] = { 1, 16, 0 }, nqs[] = { 1, 17, 200 };
	struct t_db db;
	struct t_query q;
	struct t_sopts o;
	const struct t_db *dbs[1] = { &db };
	char what[96];
	unsigned a, b;

	t_db_make(&db, 3, ISP_REIS_IVF, 512, 20000, 100,
		  ISP_REIS_DBF_INT8 | ISP_REIS_DBF_TAGS | ISP_REIS_DBF_IDS, 0, 0, 13);
	deploy(&db);
	t_queries(&q, &db, 200, 23);
	for (a = 0; a < 3; a++) {
		for (b = 0; b < 3; b++) {
			struct t_query s = q;

			s.nq = nqs[b];
			memset(&o, 0, sizeof(o));
			o.did = 3;
			o.k = 10;
			o.tag = 1;
			o.nprobe = nps[a];
			o.target = 9000;
			snprintf(what, sizeof(what), "ivf np %u nq %u", o.nprobe, s.nq);
			same(what, 1, &o, &s, nps[a] && nqs[b] <= 17 ? dbs : NULL, 1);
			o.thr = 210;
			o.flags = ISP_REIS_SF_NO_RERANK;
			snprintf(what, sizeof(what), "ivf np %u nq %u thr no rerank", o.nprobe, s.nq);
			same(what, 1, &o, &s, NULL, 1);
		}
	}
	t_queries_free(&q);
	t_db_free(&db);
}

static void test_group(void)
{
	struct t_db g1, g2;
	struct t_query q;
	struct t_sopts o;

	t_db_make(&g1, 4, ISP_REIS_BF, 512, 3000, 0, ISP_REIS_DBF_INT8, 0, 0, 14);
	g1.c.group = 9;
	g1.c.timestamp = 5;
	t_db_make(&g2, 5, ISP_REIS_BF, 512, 4000, 0, ISP_REIS_DBF_INT8, 0, 0, 15);
	g2.c.group = 9;
	g2.c.timestamp = 6;
	deploy(&g1);
	deploy(&g2);
	t_queries(&q, &g1, 17, 24);
	memset(&o, 0, sizeof(o));
	o.did = 9;
	o.k = 10;
	o.flags = ISP_REIS_SF_GROUP;
	o.t_max = 100;
	same("group", 0, &o, &q, NULL, 0);
	t_queries_free(&q);
	t_db_free(&g1);
	t_db_free(&g2);
}

/* host_threads= takes 0..16 and nothing else; it is no model parameter. */
static void test_params(void)
{
	static const char *const bad[] = { "host_threads=17", "host_threads=", "host_threads=2x",
					   "host_threads=-1", "host_isa=sse9" };
	struct isp_dev_config cfg;
	struct isp_dev *d = NULL;
	char err[256];
	unsigned i;

	memset(&cfg, 0, sizeof(cfg));
	cfg.max_xfer = T_MAX_XFER;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cfg.params = bad[i];
		err[0] = '\0';
		CHECK_EQ_U64(isp_dev_open(&cfg, &d, err, sizeof(err)), (uint64_t)-EINVAL);
		CHECK(!d);
		CHECK(strstr(err, bad[i][5] == 't' ? "host_threads" : "host_isa") != NULL);
	}
	cfg.params = "slc_blocks=12; host_threads = 16 ;blocks_per_plane=24";
	CHECK_EQ_U64(isp_dev_open(&cfg, &d, err, sizeof(err)), 0);
	isp_dev_close(d);
	d = NULL;
	cfg.params = NULL;
	cfg.host_threads = 17;	/* the config field is bounded, not refused */
	CHECK_EQ_U64(isp_dev_open(&cfg, &d, err, sizeof(err)), 0);
	isp_dev_close(d);
}

int main(void)
{
	dev1 = t_open("reis-ssd1", "host_threads=1", NULL);
	devn = t_open("reis-ssd1", "host_threads=3", NULL);
	REQUIRE(dev1 && devn);
	test_params();
	test_bf();
	test_ivf();
	test_group();
	stats_same();
	isp_dev_close(dev1);
	isp_dev_close(devn);
	return t_result();
}
