/* SPDX-License-Identifier: MIT */
/*
 * test_reis_cancel - isp_dev_exec_cancel() on SEARCH and IVF_SEARCH:
 *  - a flag set before the command: Command Abort Requested (no DNR), no
 *    result under the ticket, the ticket usable again, the next search
 *    exact and identical to the one before;
 *  - a flag set by another thread while a long brute-force search runs:
 *    the search stops early (prints how long the stop took against the
 *    uncancelled run; docs/platform.md "Stopping a command"), and the
 *    database answers exactly as before afterwards;
 *  - a NULL flag and a flag left at 0 change nothing.
 */
#include "reis_int.h"
#include "reis_t.h"
#include "stop_t.h"

static uint16_t exec_flag(struct isp_dev *dev, int ivf, const struct t_sopts *o,
			  const struct t_query *q, uint32_t ticket, int flag, int null_flag,
			  struct isp_cpl *cpl)
{
	size_t len;
	uint8_t *data = t_search_data(o, q, &len);
	struct isp_cmd c = t_mk(ivf ? ISP_OP_REIS_IVF_SEARCH : ISP_OP_REIS_SEARCH, (uint32_t)len);
	atomic_int cancel = flag;
	uint16_t st;

	c.cdw12 = ticket;
	CHECK_EQ_U64(isp_dev_check(dev, &c, cpl), 0);
	st = isp_dev_exec_cancel(dev, &c, data, len, cpl, null_flag ? NULL : &cancel);
	free(data);
	return st;
}

static void same(const struct t_res *a, const struct t_res *b, const char *what)
{
	/* the header's first 64 bytes carry the command's own time and ticket */
	if (a->len != b->len || memcmp(a->blob + 64, b->blob + 64, a->len - 64)) {
		fprintf(stderr, "%s: result differs\n", what);
		t_failures++;
	}
}

static void preset(struct isp_dev *dev, int ivf, const struct t_sopts *o,
		   const struct t_query *q, const struct t_res *want)
{
	struct isp_cpl cpl;
	struct t_res r;
	uint16_t st;

	st = exec_flag(dev, ivf, o, q, 500 + ivf, 1, 0, &cpl);
	CHECK_EQ_U64(st, ISP_SC_ABORT_REQ);
	CHECK_EQ_U64(cpl.status, ISP_SC_ABORT_REQ);
	CHECK(cpl.err != NULL);
	/* nothing was published: the ticket is unknown, then usable again */
	memset(&r, 0, sizeof(r));
	CHECK_EQ_U64(t_read_result(dev, 500 + ivf, &r) & 0x7ff, ISP_SC_UNKNOWN_ID);
	t_res_free(&r);
	CHECK_EQ_U64(exec_flag(dev, ivf, o, q, 500 + ivf, 0, 0, &cpl), 0);
	CHECK_EQ_U64(t_read_result(dev, 500 + ivf, &r), 0);
	same(&r, want, ivf ? "IVF after a stopped search" : "BF after a stopped search");
	t_res_free(&r);
	CHECK_EQ_U64(exec_flag(dev, ivf, o, q, 600 + ivf, 0, 1, &cpl), 0);
	CHECK_EQ_U64(t_read_result(dev, 600 + ivf, &r), 0);
	same(&r, want, "NULL flag");
	t_res_free(&r);
}

/* The long search of stop_t.h's measure(): ticket 700 + try. */
struct long_arg {
	const struct t_sopts *o;
	const struct t_query *q;
};

static void long_mk(struct stop_case *sc, struct job *j, int i)
{
	struct long_arg *a = sc->arg;

	j->data = t_search_data(a->o, a->q, &j->len);
	j->c = t_mk(ISP_OP_REIS_SEARCH, (uint32_t)j->len);
	j->c.cdw12 = 700 + (uint32_t)i;
}

static void long_after(struct stop_case *sc, struct job *j, int i)
{
	struct t_res r;

	/* the run to the end published its result, a stopped one nothing */
	memset(&r, 0, sizeof(r));
	CHECK_EQ_U64(t_read_result(sc->dev, 700 + (uint32_t)i, &r) & 0x7ff,
		     i ? ISP_SC_UNKNOWN_ID : 0);
	t_res_free(&r);
	free(j->data);
}

int main(void)
{
	struct isp_dev *dev = t_open("reis-ssd2", "blocks_per_plane=32;slc_blocks=16", NULL);
	struct t_query q, big;
	struct t_res want[2], r;
	struct t_sopts o;
	struct t_db db;
	struct long_arg lg;
	struct stop_case sc;
	int ivf;

	REQUIRE(dev);
	t_db_make(&db, 1, ISP_REIS_IVF, 512, 40000, 32, ISP_REIS_DBF_INT8, ISP_REIS_DOC_SUBPAGE,
		  4096, 7);
	CHECK_EQ_U64(t_deploy(dev, &db, 65536), 0);
	t_queries(&q, &db, 4, 21);
	for (ivf = 0; ivf < 2; ivf++) {
		memset(&o, 0, sizeof(o));
		o.did = 1;
		o.k = 10;
		o.nprobe = ivf ? 8 : 0;
		CHECK_EQ_U64(t_search(dev, ivf, &o, &q, &want[ivf]), 0);
		preset(dev, ivf, &o, &q, &want[ivf]);
	}

	/* A long brute-force search (many queries): once to the end, then
	 * stopped from another thread a tenth of the way in (stop_t.h). */
	memset(&o, 0, sizeof(o));
	o.did = 1;
	o.k = 10;
	t_queries(&big, &db, 256, 33);
	memset(&lg, 0, sizeof(lg));
	memset(&sc, 0, sizeof(sc));	/* warm and the rest: 0 */
	lg.o = &o;
	lg.q = &big;
	sc.what = "search of 256 queries x 40000 codes";
	sc.dev = dev;
	sc.mk = long_mk;
	sc.after = long_after;
	sc.arg = &lg;
	measure(&sc);

	/* The database answers exactly as before, and can be deleted. */
	memset(&o, 0, sizeof(o));
	o.did = 1;
	o.k = 10;
	CHECK_EQ_U64(t_search(dev, 0, &o, &q, &r), 0);
	same(&r, &want[0], "BF after the stopped long search");
	t_res_free(&r);
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_DELETE, 1), 0);

	t_res_free(&want[0]);
	t_res_free(&want[1]);
	t_queries_free(&q);
	t_queries_free(&big);
	t_db_free(&db);
	isp_dev_close(dev);
	return t_result();
}
