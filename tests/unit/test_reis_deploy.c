/* SPDX-License-Identifier: MIT */
/*
 * test_reis_deploy - REIS database lifecycle: create / write / commit /
 * list / info / delete, DRAM and region accounting, persistence across a
 * restart on a backing file (identical results), and a crash during a
 * deploy (the half database is gone, its regions free).
 */
#include <dirent.h>
#include <unistd.h>

#include "flash_store.h"
#include "isp_internal.h"
#include "reis_engine.h"
#include "reis_t.h"

#define PARAMS "blocks_per_plane=12;slc_blocks=6"

static int same_result(const struct t_res *a, const struct t_res *b)
{
	/* Everything but the header's modeled time and energy. */
	return a->len == b->len &&
	       memcmp(a->blob + sizeof(a->hdr), b->blob + sizeof(b->hdr),
		      a->len - sizeof(a->hdr)) == 0;
}

static uint32_t count_regions(struct isp_dev *dev, uint64_t tag)
{
	struct fs_region r[64];
	int n = fs_region_list(isp_dev_store(dev), r, 64), i;
	uint32_t c = 0;

	for (i = 0; i < n && i < 64; i++)
		c += (r[i].owner >> 32) == tag;
	return c;
}

static uint16_t info(struct isp_dev *dev, uint32_t did, struct isp_wire_reis_dbinfo *in)
{
	struct isp_cmd c = t_mk(ISP_OP_REIS_DB_INFO, sizeof(*in));

	c.cdw12 = did;
	return t_run(dev, &c, in, sizeof(*in), NULL);
}

static void test_lifecycle(void)
{
	struct isp_dev *dev = t_open("reis-ssd2", PARAMS, NULL);
	struct isp_wire_reis_dbinfo in;
	struct t_db a, b;
	struct t_query q;
	struct t_sopts o;
	struct t_res r;
	struct isp_cmd c;
	uint8_t buf[16 + 3 * sizeof(struct isp_wire_reis_dbinfo)];
	struct isp_wire_reis_list lh;
	uint64_t dram0;

	REQUIRE(dev);
	dram0 = fs_dram_used(isp_dev_store(dev), NULL);
	t_db_make(&a, 5, ISP_REIS_BF, 256, 50, 0, ISP_REIS_DBF_INT8, ISP_REIS_DOC_SUBPAGE,
		  4096, 1);
	t_db_make(&b, 9, ISP_REIS_IVF, 512, 900, 16, ISP_REIS_DBF_INT8, 0, 0, 2);
	CHECK_EQ_U64(t_create(dev, &a.c), 0);
	CHECK_EQ_U64(info(dev, 5, &in), 0);
	CHECK_EQ_U64(in.state, ISP_REIS_DEPLOYING);
	CHECK_EQ_U64(in.epb, 2208 / 8);	/* 8 B of OOB each: OOB-bound, not 512 */
	CHECK(fs_dram_used(isp_dev_store(dev), "r-db") > 0);
	CHECK(fs_dram_used(isp_dev_store(dev), "reis-stage") > 0);
	CHECK_EQ_U64(t_write_all(dev, &a, 100), 0);
	CHECK_EQ_U64(info(dev, 5, &in), 0);
	CHECK_EQ_U64(in.received[ISP_REIS_SEC_BIN], 50 * 32);
	CHECK_EQ_U64(in.received[ISP_REIS_SEC_DOCS], a.c.docs_bytes);
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_COMMIT, 5), 0);
	CHECK_EQ_U64(info(dev, 5, &in), 0);
	CHECK_EQ_U64(in.state, ISP_REIS_READY);
	CHECK_EQ_U64(in.pages[0], 1);
	CHECK_EQ_U64(in.pages[3], 50 / 4 + 1);
	CHECK_EQ_U64(fs_dram_used(isp_dev_store(dev), "reis-stage"), 0);
	CHECK_EQ_U64(t_deploy(dev, &b, 1 << 16), 0);
	CHECK_EQ_U64(info(dev, 9, &in), 0);
	CHECK_EQ_U64(in.dram_bytes, RE_RDB_BYTES + 16 * RE_RIVF_BYTES + b.c.ncalib * 8);
	CHECK_EQ_U64(fs_dram_used(isp_dev_store(dev), "r-ivf"), 16 * RE_RIVF_BYTES);

	/* k = n. */
	t_queries(&q, &a, 2, 4);
	memset(&o, 0, sizeof(o));
	o.did = 5;
	o.k = 50;
	o.flags = ISP_REIS_SF_DOCS;
	CHECK_EQ_U64(t_search(dev, 0, &o, &q, &r), 0);
	{
		const struct t_db *dbs[1] = { &a };

		CHECK(t_check_query(&r, 0, dbs, 1, 0, &o, &q, 1, 1));
		CHECK(t_check_query(&r, 1, dbs, 1, 0, &o, &q, 1, 1));
	}
	t_res_free(&r);
	CHECK_EQ_U64(info(dev, 5, &in), 0);
	CHECK_EQ_U64(in.searches, 2);

	/* LIST: sorted by did, as many as fit, from an index. */
	c = t_mk(ISP_OP_REIS_DB_LIST, sizeof(buf));
	CHECK_EQ_U64(t_run(dev, &c, buf, sizeof(buf), NULL), 0);
	memcpy(&lh, buf, sizeof(lh));
	CHECK_EQ_U64(lh.total, 2);
	CHECK_EQ_U64(lh.count, 2);
	memcpy(&in, buf + 16, sizeof(in));
	CHECK_EQ_U64(in.create.did, 5);
	memcpy(&in, buf + 16 + sizeof(in), sizeof(in));
	CHECK_EQ_U64(in.create.did, 9);
	c = t_mk(ISP_OP_REIS_DB_LIST, 16 + sizeof(in));
	c.cdw12 = 1;
	CHECK_EQ_U64(t_run(dev, &c, buf, 16 + sizeof(in), NULL), 0);
	memcpy(&lh, buf, sizeof(lh));
	CHECK_EQ_U64(lh.count, 1);
	memcpy(&in, buf + 16, sizeof(in));
	CHECK_EQ_U64(in.create.did, 9);
	c.cdw12 = 7;
	CHECK_EQ_U64(t_run(dev, &c, buf, 16 + sizeof(in), NULL), 0);
	memcpy(&lh, buf, sizeof(lh));
	CHECK_EQ_U64(lh.count, 0);

	/* Identify and statistics see the engine. */
	{
		struct isp_wire_identify id;
		struct isp_wire_stats st;

		c = t_mk(ISP_OP_IDENTIFY, sizeof(id));
		CHECK_EQ_U64(t_run(dev, &c, &id, sizeof(id), NULL), 0);
		CHECK((id.caps & (ISP_CAP_REIS | ISP_CAP_REIS_IVF | ISP_CAP_REIS_DF |
				  ISP_CAP_REIS_PL | ISP_CAP_REIS_MPIBC | ISP_CAP_REIS_TAGS)) ==
		      (ISP_CAP_REIS | ISP_CAP_REIS_IVF | ISP_CAP_REIS_DF | ISP_CAP_REIS_PL |
		       ISP_CAP_REIS_MPIBC | ISP_CAP_REIS_TAGS));
		CHECK_EQ_U64(id.max_dbs, RE_MAX_DBS);
		c = t_mk(ISP_OP_STATS, sizeof(st));
		CHECK_EQ_U64(t_run(dev, &c, &st, sizeof(st), NULL), 0);
		CHECK_EQ_U64(st.searches, 2);
		CHECK(st.ttl_entries >= 100);
		CHECK(st.page_programs[ISP_CELL_SLC] > 0);
		CHECK(st.page_programs[ISP_CELL_TLC] > 0);
		CHECK(st.cmds[ISP_CLS_REIS_DEPLOY] > 5);
		CHECK(st.cmds[ISP_CLS_REIS_SEARCH] >= 1);
	}

	/* Delete gives everything back. */
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_DELETE, 5), 0);
	CHECK_EQ_U64(info(dev, 5, &in), ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR);
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_DELETE, 9), 0);
	CHECK_EQ_U64(fs_dram_used(isp_dev_store(dev), NULL), dram0);
	CHECK_EQ_U64(count_regions(dev, 0x52454953ull), 0);
	/* The same did deploys again. */
	CHECK_EQ_U64(t_deploy(dev, &a, 4096), 0);
	/* DB_DELETE aborts a deploy. */
	CHECK_EQ_U64(t_create(dev, &b.c), 0);
	CHECK_EQ_U64(t_write_sec(dev, 9, ISP_REIS_SEC_BIN, b.bin, 100 * 64, 64 * 10), 0);
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_DELETE, 9), 0);
	CHECK_EQ_U64(t_deploy(dev, &b, 1 << 16), 0);
	t_queries_free(&q);
	t_db_free(&a);
	t_db_free(&b);
	isp_dev_close(dev);
}

/* Deploy to exactly the free capacity, then beyond it. */
static void test_capacity(void)
{
	struct isp_dev *dev = t_open("reis-ssd1", "blocks_per_plane=4;slc_blocks=2", NULL);
	struct isp_wire_reis_create cr;
	struct t_db a;
	struct fs_space sp;

	REQUIRE(dev);
	/* 2 SLC stripes: 2 * 128 pages * 256 planes of 16 KiB = 65536 pages. */
	memset(&cr, 0, sizeof(cr));
	cr.did = 1;
	cr.kind = ISP_REIS_BF;
	cr.dim = 1024;
	cr.n = 65536ull * 128;
	CHECK_EQ_U64(t_create(dev, &cr), 0);
	CHECK_EQ_U64(fs_space(isp_dev_store(dev), FG_PART_SLC, &sp), 0);
	CHECK_EQ_U64(sp.free_blocks, 0);
	cr.did = 2;
	cr.n = 1;
	CHECK_EQ_U64(t_create(dev, &cr), ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR);
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_DELETE, 1), 0);
	cr.did = 3;
	cr.n = 65536ull * 128 + 1;
	CHECK_EQ_U64(t_create(dev, &cr), ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR);
	/* A failed create leaves nothing behind; a small one fits. */
	t_db_make(&a, 2, ISP_REIS_BF, 1024, 300, 0, ISP_REIS_DBF_INT8, 0, 0, 3);
	CHECK_EQ_U64(t_deploy(dev, &a, 65536), 0);
	/* TLC: 2 stripes; an INT8 section of 2 stripes + 1 page does not fit.
	 * Its SLC region was allocated first and is freed again: no commit saw
	 * it, so it is free at once (test_isp_accounting), not pending. */
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_DELETE, 2), 0);
	cr.did = 4;
	cr.flags = ISP_REIS_DBF_INT8;
	cr.dim = 8192;
	cr.n = 2ull * 256 * 384 * 2 + 1;
	CHECK_EQ_U64(t_create(dev, &cr), ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR);
	CHECK_EQ_U64(fs_space(isp_dev_store(dev), FG_PART_SLC, &sp), 0);
	CHECK_EQ_U64(sp.pending_blocks, 0);
	cr.did = 5;
	cr.flags = 0;
	cr.dim = 1024;
	cr.n = 65536ull * 128;	/* all of SLC */
	CHECK_EQ_U64(t_create(dev, &cr), 0);
	CHECK_EQ_U64(fs_space(isp_dev_store(dev), FG_PART_SLC, &sp), 0);
	CHECK_EQ_U64(sp.free_blocks + sp.pending_blocks, 0);
	t_db_free(&a);
	isp_dev_close(dev);

	/* DRAM: R-IVF of 100k clusters (1.5 MB) over a 1 MiB budget. */
	dev = t_open("reis-ssd1", "blocks_per_plane=4;slc_blocks=2;dram_bytes=1m", NULL);
	REQUIRE(dev);
	memset(&cr, 0, sizeof(cr));
	cr.did = 1;
	cr.kind = ISP_REIS_IVF;
	cr.dim = 64;
	cr.n = 100000;
	cr.nlist = 100000;
	CHECK_EQ_U64(t_create(dev, &cr), ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR);
	CHECK_EQ_U64(fs_dram_used(isp_dev_store(dev), NULL), 0);
	cr.nlist = 1000;
	CHECK_EQ_U64(t_create(dev, &cr), 0);
	isp_dev_close(dev);
}

static void rm_dir(const char *dir)
{
	char path[512];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

/* Restart keeps READY databases with identical results; a deploy cut by a
 * restart disappears with its regions. */
static void test_restart(void)
{
	char dir[] = "/tmp/reis-deploy-XXXXXX", path[256];
	struct isp_dev *dev;
	struct t_db a, b, c, d;
	struct t_query qa, qb;
	struct t_sopts oa, ob;
	struct t_res ra, rb, ra2, rb2;
	struct isp_wire_reis_dbinfo in;
	struct fs_space sp0, sp1;

	REQUIRE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/flash.img", dir);
	dev = t_open("reis-ssd1", PARAMS, path);
	REQUIRE(dev);
	CHECK_EQ_U64(fs_space(isp_dev_store(dev), FG_PART_SLC, &sp0), 0);
	t_db_make(&a, 1, ISP_REIS_BF, 1024, 2000, 0,
		  ISP_REIS_DBF_INT8 | ISP_REIS_DBF_IDS | ISP_REIS_DBF_TAGS, ISP_REIS_DOC_SUBPAGE,
		  4096, 7);
	t_db_make(&b, 2, ISP_REIS_IVF, 512, 3000, 24, ISP_REIS_DBF_INT8, ISP_REIS_DOC_PAGE,
		  16384, 8);
	t_db_make(&c, 3, ISP_REIS_BF, 512, 1000, 0, ISP_REIS_DBF_INT8, ISP_REIS_DOC_SUBPAGE,
		  4096, 9);
	t_db_make(&d, 4, ISP_REIS_BF, 128, 100, 0, 0, 0, 0, 10);
	CHECK_EQ_U64(t_deploy(dev, &a, 65536), 0);
	CHECK_EQ_U64(t_deploy(dev, &b, 65536), 0);
	t_queries(&qa, &a, 4, 1);
	t_queries(&qb, &b, 4, 2);
	memset(&oa, 0, sizeof(oa));
	oa.did = 1;
	oa.k = 10;
	oa.flags = ISP_REIS_SF_DOCS;
	oa.thr = 450;
	memset(&ob, 0, sizeof(ob));
	ob.did = 2;
	ob.k = 10;
	ob.nprobe = 4;
	ob.flags = ISP_REIS_SF_DOCS;
	CHECK_EQ_U64(t_search(dev, 0, &oa, &qa, &ra), 0);
	CHECK_EQ_U64(t_search(dev, 1, &ob, &qb, &rb), 0);

	/* C is half deployed when another database commits (so its regions
	 * enter the committed region table), then the drive stops. */
	CHECK_EQ_U64(t_create(dev, &c.c), 0);
	CHECK_EQ_U64(t_write_sec(dev, 3, ISP_REIS_SEC_BIN, c.bin, 1000 * 64, 4096), 0);
	CHECK_EQ_U64(t_deploy(dev, &d, 4096), 0);
	CHECK_EQ_U64(count_regions(dev, 0x52454953ull), 7);
	isp_dev_close(dev);

	dev = t_open("reis-ssd1", PARAMS, path);
	REQUIRE(dev);
	CHECK_EQ_U64(info(dev, 3, &in), ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR);
	CHECK_EQ_U64(info(dev, 1, &in), 0);
	CHECK_EQ_U64(in.state, ISP_REIS_READY);
	/* B's 24 centroids spread over the 256 planes, one per page (A29),
	 * as deployed: the layout survives the restart. */
	CHECK_EQ_U64(info(dev, 2, &in), 0);
	CHECK_EQ_U64(in.pages[1], 24);
	CHECK_EQ_U64(count_regions(dev, 0x52454953ull), 5);	/* C's two are free */
	CHECK_EQ_U64(t_search(dev, 0, &oa, &qa, &ra2), 0);
	CHECK_EQ_U64(t_search(dev, 1, &ob, &qb, &rb2), 0);
	CHECK(same_result(&ra, &ra2));
	CHECK(same_result(&rb, &rb2));
	t_res_free(&ra2);
	t_res_free(&rb2);
	/* C deploys again into the space it had. */
	CHECK_EQ_U64(t_deploy(dev, &c, 65536), 0);
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_DELETE, 3), 0);
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_DELETE, 4), 0);
	/* A restart before any commit: the half deploy never reached the
	 * region table. */
	CHECK_EQ_U64(t_create(dev, &c.c), 0);
	CHECK_EQ_U64(t_write_sec(dev, 3, ISP_REIS_SEC_BIN, c.bin, 1000 * 64, 4096), 0);
	isp_dev_close(dev);

	dev = t_open("reis-ssd1", PARAMS, path);
	REQUIRE(dev);
	CHECK_EQ_U64(info(dev, 3, &in), ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR);
	CHECK_EQ_U64(count_regions(dev, 0x52454953ull), 4);
	CHECK_EQ_U64(t_search(dev, 0, &oa, &qa, &ra2), 0);
	CHECK(same_result(&ra, &ra2));
	t_res_free(&ra2);
	/* Delete survives a restart; all space comes back. */
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_DELETE, 1), 0);
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_DELETE, 2), 0);
	isp_dev_close(dev);
	dev = t_open("reis-ssd1", PARAMS, path);
	REQUIRE(dev);
	CHECK_EQ_U64(info(dev, 1, &in), ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR);
	CHECK_EQ_U64(count_regions(dev, 0x52454953ull), 0);
	CHECK_EQ_U64(fs_space(isp_dev_store(dev), FG_PART_SLC, &sp1), 0);
	CHECK_EQ_U64(sp1.free_blocks + sp1.pending_blocks, sp0.free_blocks);
	isp_dev_close(dev);

	t_res_free(&ra);
	t_res_free(&rb);
	t_queries_free(&qa);
	t_queries_free(&qb);
	t_db_free(&a);
	t_db_free(&b);
	t_db_free(&c);
	t_db_free(&d);
	rm_dir(dir);
}

int main(void)
{
	test_lifecycle();
	test_capacity();
	test_restart();
	return t_result();
}
