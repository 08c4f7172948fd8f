/* SPDX-License-Identifier: MIT */
/*
 * test_reis_meta - a database's META section (docs/command-set.md §4):
 * streamed like any section, stored in the database's TLC region, read
 * back byte-exact with REIS_META_READ at any offset (bytes past the end
 * read as zero), charged one TLC page read per page touched, kept across
 * a restart, and every malformed META_READ refused with its status.
 */
#include <unistd.h>

#include "flash_store.h"
#include "isp_internal.h"
#include "reis_t.h"

#define PARAMS "blocks_per_plane=24;slc_blocks=12"
#define BAD ((uint16_t)(ISP_SC_INVALID_FIELD | ISP_STATUS_DNR))
#define BADOFF ((uint16_t)(ISP_SC_BAD_OFFSET | ISP_STATUS_DNR))

static uint16_t meta_read(struct isp_dev *dev, uint32_t did, uint64_t off, void *buf,
			  uint32_t len, struct isp_cpl *cpl)
{
	struct isp_cmd c = t_mk(ISP_OP_REIS_META_READ, len);

	c.cdw12 = did;
	c.cdw14 = (uint32_t)off;
	c.cdw15 = (uint32_t)(off >> 32);
	return t_run(dev, &c, buf, len, cpl);
}

static uint64_t tlc_reads(struct isp_dev *dev)
{
	struct isp_wire_stats st;
	struct isp_cmd c = t_mk(ISP_OP_STATS, sizeof(st));

	REQUIRE(t_run(dev, &c, &st, sizeof(st), NULL) == 0);
	return st.page_reads[ISP_CELL_TLC];
}

static uint16_t info(struct isp_dev *dev, uint32_t did, struct isp_wire_reis_dbinfo *in)
{
	struct isp_cmd c = t_mk(ISP_OP_REIS_DB_INFO, sizeof(*in));

	c.cdw12 = did;
	return t_run(dev, &c, in, sizeof(*in), NULL);
}

/* The whole section in commands of @step bytes equals @want. */
static int read_all(struct isp_dev *dev, uint32_t did, const uint8_t *want, uint32_t len,
		    uint32_t step)
{
	uint8_t *got = malloc(len + step), *p;
	uint32_t off;
	int ok = 1;

	REQUIRE(got);
	for (off = 0; off < len; off += step) {
		p = got + off;
		if (meta_read(dev, did, off, p, step, NULL))
			ok = 0;
	}
	ok &= memcmp(got, want, len) == 0;
	free(got);
	return ok;
}

static void test_meta(const char *backing)
{
	struct isp_dev *dev = t_open("reis-ssd1", PARAMS, backing);
	struct isp_wire_reis_dbinfo in;
	struct isp_wire_identify id;
	struct t_db a, b, big;
	struct t_query q;
	struct t_sopts o;
	struct isp_cpl cpl;
	struct isp_cmd c;
	const struct t_db *dbs[1] = { &a };
	uint8_t buf[64], *whole;
	uint64_t r0, t_small, t_whole;

	REQUIRE(dev);
	c = t_mk(ISP_OP_IDENTIFY, sizeof(id));
	CHECK_EQ_U64(t_run(dev, &c, &id, sizeof(id), NULL), 0);
	CHECK(id.caps & ISP_CAP_REIS_META);
	CHECK_EQ_U64(id.ver_minor, 1);

	/* A brute-force database with only SLC data still gets META in TLC:
	 * 40000 bytes = 3 pages of 16 KiB, sent in chunks that straddle them. */
	t_db_make(&a, 7, ISP_REIS_BF, 256, 300, 0, 0, 0, 0, 3);
	t_db_meta(&a, 40000, 77);
	CHECK_EQ_U64(t_create(dev, &a.c), 0);
	CHECK_EQ_U64(t_write_all(dev, &a, 20000), 0);
	CHECK_EQ_U64(meta_read(dev, 7, 0, buf, 64, NULL), ISP_SC_BUSY | ISP_STATUS_DNR);
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_COMMIT, 7), 0);
	CHECK_EQ_U64(info(dev, 7, &in), 0);
	CHECK_EQ_U64(in.create.meta_bytes, 40000);
	CHECK_EQ_U64(in.received[ISP_REIS_SEC_META], 40000);

	/* Whole, in odd steps, and across a page boundary. */
	whole = malloc(40000);
	REQUIRE(whole);
	r0 = tlc_reads(dev);
	CHECK_EQ_U64(meta_read(dev, 7, 0, whole, 40000, &cpl), 0);
	t_whole = cpl.model_ns;
	CHECK(memcmp(whole, a.meta, 40000) == 0);
	CHECK_EQ_U64(tlc_reads(dev) - r0, 3);	/* one read per page touched */
	free(whole);
	CHECK(read_all(dev, 7, a.meta, 40000, 4092));
	r0 = tlc_reads(dev);
	CHECK_EQ_U64(meta_read(dev, 7, 16380, buf, 8, &cpl), 0);
	t_small = cpl.model_ns;
	CHECK(memcmp(buf, a.meta + 16380, 8) == 0);
	CHECK_EQ_U64(tlc_reads(dev) - r0, 2);
	CHECK(t_small > 0 && t_whole > t_small);
	/* An unaligned offset; bytes past the end read as zero. */
	memset(buf, 0x77, sizeof(buf));
	CHECK_EQ_U64(meta_read(dev, 7, 39990, buf, 16, NULL), 0);
	CHECK(memcmp(buf, a.meta + 39990, 10) == 0);
	CHECK(buf[10] == 0 && buf[15] == 0);

	/* Errors. */
	CHECK_EQ_U64(meta_read(dev, 7, 40000, buf, 4, NULL), BADOFF);
	CHECK_EQ_U64(meta_read(dev, 7, 1ull << 40, buf, 4, NULL), BADOFF);
	CHECK_EQ_U64(meta_read(dev, 99, 0, buf, 4, NULL), ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR);
	c = t_mk(ISP_OP_REIS_META_READ, 4);
	c.cdw12 = 7;
	c.cdw13 = 1;
	CHECK_EQ_U64(t_run(dev, &c, buf, 4, NULL), BAD);
	c = t_mk(ISP_OP_REIS_META_READ, 0);	/* a C2H opcode needs data */
	c.cdw12 = 7;
	CHECK(t_run(dev, &c, NULL, 0, NULL) != 0);

	/* A database without META; an incomplete META; one past its size. */
	t_db_make(&b, 8, ISP_REIS_BF, 256, 100, 0, ISP_REIS_DBF_INT8, 0, 0, 4);
	CHECK_EQ_U64(t_deploy(dev, &b, 8192), 0);
	CHECK_EQ_U64(meta_read(dev, 8, 0, buf, 4, NULL), BAD);
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_DELETE, 8), 0);
	t_db_meta(&b, 5000, 5);
	CHECK_EQ_U64(t_create(dev, &b.c), 0);
	CHECK_EQ_U64(t_write_sec(dev, 8, ISP_REIS_SEC_BIN, b.bin, 100 * 32, 4096), 0);
	CHECK_EQ_U64(t_write_sec(dev, 8, ISP_REIS_SEC_INT8, b.i8, 100 * 256, 65536), 0);
	CHECK_EQ_U64(t_write_sec(dev, 8, ISP_REIS_SEC_META, b.meta, 4000, 4000), 0);
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_COMMIT, 8), ISP_SC_INCOMPLETE | ISP_STATUS_DNR);
	{
		struct isp_cmd w = t_mk(ISP_OP_REIS_DB_WRITE, 1008);
		uint8_t over[1008];

		/* 8 bytes past the section's end (more than dword padding). */
		memset(over, 0, sizeof(over));
		memcpy(over, b.meta + 4000, 1000);
		w.cdw12 = 8;
		w.cdw13 = ISP_REIS_SEC_META;
		w.cdw14 = 4000;
		CHECK_EQ_U64(t_run(dev, &w, over, sizeof(over), NULL), BADOFF);
		w = t_mk(ISP_OP_REIS_DB_WRITE, 1000);
		w.cdw12 = 8;
		w.cdw13 = ISP_REIS_SEC_META;
		w.cdw14 = 4000;
		CHECK_EQ_U64(t_run(dev, &w, b.meta + 4000, 1000, NULL), 0);
	}
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_COMMIT, 8), 0);
	CHECK(read_all(dev, 8, b.meta, 5000, 5000));

	/* The largest META, 1 MiB, in max_xfer commands both ways. */
	t_db_make(&big, 9, ISP_REIS_BF, 128, 50, 0, 0, 0, 0, 6);
	t_db_meta(&big, ISP_REIS_MAX_META, 9);
	CHECK_EQ_U64(t_deploy(dev, &big, T_MAX_XFER), 0);
	CHECK(read_all(dev, 9, big.meta, ISP_REIS_MAX_META, T_MAX_XFER));

	/* Searches do not see META. */
	t_queries(&q, &a, 3, 1);
	memset(&o, 0, sizeof(o));
	o.did = 7;
	o.k = 10;
	o.flags = ISP_REIS_SF_NO_RERANK;
	{
		struct t_res r;

		CHECK_EQ_U64(t_search(dev, 0, &o, &q, &r), 0);
		CHECK(t_check_query(&r, 0, dbs, 1, 0, &o, &q, 1, 0));
		t_res_free(&r);
	}
	t_queries_free(&q);

	if (backing) {
		/* Committed META survives a restart. */
		isp_dev_close(dev);
		dev = t_open("reis-ssd1", PARAMS, backing);
		REQUIRE(dev);
		CHECK(read_all(dev, 7, a.meta, 40000, 8192));
		CHECK(read_all(dev, 8, b.meta, 5000, 5000));
		CHECK(read_all(dev, 9, big.meta, ISP_REIS_MAX_META, T_MAX_XFER));
		CHECK_EQ_U64(info(dev, 9, &in), 0);
		CHECK_EQ_U64(in.create.meta_bytes, ISP_REIS_MAX_META);
	}
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_DELETE, 7), 0);
	CHECK_EQ_U64(meta_read(dev, 7, 0, buf, 4, NULL), ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR);
	isp_dev_close(dev);
	t_db_free(&a);
	t_db_free(&b);
	t_db_free(&big);
}

int main(void)
{
	char dir[] = "/tmp/reis-meta-XXXXXX", path[256];

	test_meta(NULL);
	REQUIRE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/flash.img", dir);
	test_meta(path);
	unlink(path);
	rmdir(dir);
	return t_result();
}
