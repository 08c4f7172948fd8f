/* SPDX-License-Identifier: MIT */
/*
 * test_isp_accounting.c - what a refused or stopped command leaves behind
 * (issue 32, item 4):
 *  - a REIS DB_CREATE refused with Capacity Exceeded after it took its SLC
 *    region (the native-mode one did not fit) leaves identify's free_bytes
 *    and slc_free_bytes as they were, refusal after refusal: a region no
 *    metadata commit has seen goes back at once, not after the next commit;
 *  - the same for a RecFlash TBL_CREATE refused for flash;
 *  - a RecFlash table whose space is held by a committed region freed
 *    since the last commit (reusable only after a commit) still deploys:
 *    its allocator commits and tries again, as REIS's does;
 *  - isp_budget_give() of more than is held is counted (stats.errors),
 *    not silently clamped, and the budget stays usable.
 */
#include <errno.h>

#include "reis_t.h"
#include "flash_store.h"
#include "isp_budget.h"
#include "isp_internal.h"
#include "test_rf_util.h"

static void identify(struct isp_dev *dev, struct isp_wire_identify *id)
{
	struct isp_cmd c = t_mk(ISP_OP_IDENTIFY, sizeof(*id));

	REQUIRE(t_run(dev, &c, id, sizeof(*id), NULL) == 0);
}

static void same_space(const struct isp_wire_identify *a, const struct isp_wire_identify *b,
		       const char *what)
{
	if (a->free_bytes != b->free_bytes || a->slc_free_bytes != b->slc_free_bytes ||
	    a->native_free_bytes != b->native_free_bytes || a->dram_used != b->dram_used) {
		fprintf(stderr, "%s: free %llu -> %llu, slc_free %llu -> %llu, native_free %llu -> "
			"%llu, dram_used %llu -> %llu\n", what,
			(unsigned long long)a->free_bytes, (unsigned long long)b->free_bytes,
			(unsigned long long)a->slc_free_bytes, (unsigned long long)b->slc_free_bytes,
			(unsigned long long)a->native_free_bytes,
			(unsigned long long)b->native_free_bytes,
			(unsigned long long)a->dram_used, (unsigned long long)b->dram_used);
		t_failures++;
	}
}

static void test_reis_refused_create(void)
{
	struct isp_dev *dev = t_open("reis-ssd1", "blocks_per_plane=32;slc_blocks=16", NULL);
	struct isp_wire_identify id0, id1;
	struct isp_wire_reis_create cr;
	int i;

	REQUIRE(dev);
	identify(dev, &id0);
	/* binary codes (SLC) that fit, INT8 codes (native mode) that do not */
	memset(&cr, 0, sizeof(cr));
	cr.did = 7;
	cr.kind = ISP_REIS_BF;
	cr.flags = ISP_REIS_DBF_INT8;
	cr.dim = 512;
	cr.n = (uint32_t)(id0.native_free_bytes / 512 + 4096);
	cr.metric = ISP_REIS_IP;
	snprintf(cr.name, sizeof(cr.name), "big");
	REQUIRE((uint64_t)cr.n * 64 < id0.slc_free_bytes);
	for (i = 0; i < 3; i++) {
		struct isp_wire_identify idn;

		CHECK_EQ_U64(t_create(dev, &cr), ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR);
		identify(dev, &idn);
		same_space(&id0, &idn, "REIS DB_CREATE refused for native-mode flash");
	}
	/* what was free is usable: a database of the whole SLC space deploys */
	cr.flags = 0;
	cr.n = (uint32_t)(id0.slc_free_bytes / 64 / 2);
	CHECK_EQ_U64(t_create(dev, &cr), 0);
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_REIS_DB_DELETE, 7), 0);
	identify(dev, &id1);
	same_space(&id0, &id1, "after a create and a delete");
	isp_dev_close(dev);
}

static void test_rf_space(void)
{
	struct isp_dev *dev = t_open("recflash-slc", "blocks_per_plane=32", NULL);
	struct isp_wire_identify id0, idn;
	struct isp_wire_rf_create cr;
	struct fs_region reg;
	struct fs *fs;
	uint32_t erased, rows;
	int i;

	REQUIRE(dev);
	identify(dev, &id0);
	/* a table of twice the free flash: refused, nothing left pending */
	rows = (uint32_t)(id0.native_free_bytes * 2 / 256);
	cr = rt_cr(3, rows, 64, ISP_RF_FP32, ISP_RF_RECSSD);
	for (i = 0; i < 3; i++) {
		CHECK_EQ_U64(rt_create(dev, &cr), ISP_SC_CAP_EXCEEDED | ISP_STATUS_DNR);
		identify(dev, &idn);
		same_space(&id0, &idn, "RF TBL_CREATE refused for flash");
	}

	/* Most of the flash in a committed region, then freed without a
	 * commit (as a failed delete's would be): pending until a commit. */
	fs = isp_dev_store(dev);
	REQUIRE(fs_region_alloc(fs, FG_PART_NATIVE,
				id0.native_free_bytes / id0.page_bytes * 3 / 4, 99, &reg,
				&erased) == 0);
	REQUIRE(isp_dev_commit(dev) == 0);
	REQUIRE(fs_region_free(fs, reg.id) == 0);
	identify(dev, &idn);
	CHECK(idn.native_free_bytes < id0.native_free_bytes / 2);
	/* a table of half the flash: only fits once the freed region is reused */
	cr = rt_cr(4, (uint32_t)(id0.native_free_bytes / 2 / 256), 64, ISP_RF_FP32,
		   ISP_RF_RECSSD);
	CHECK_EQ_U64(rt_create(dev, &cr), 0);
	CHECK_EQ_U64(t_nodata(dev, ISP_OP_RF_TBL_DELETE, 4), 0);
	identify(dev, &idn);
	same_space(&id0, &idn, "after the table's create and delete");
	isp_dev_close(dev);
}

static void test_budget_overgive(void)
{
	struct isp_budget b;
	struct isp_budget_stats s;

	REQUIRE(isp_budget_init(&b, 1000) == 0);
	CHECK(isp_budget_take(&b, 300) == 0);
	isp_budget_give(&b, 200);
	isp_budget_get_stats(&b, &s);
	CHECK_EQ_U64(s.used, 100);
	CHECK_EQ_U64(s.errors, 0);
	isp_budget_give(&b, 200);	/* 100 more than held: a caller's bug */
	isp_budget_get_stats(&b, &s);
	CHECK_EQ_U64(s.used, 0);
	CHECK_EQ_U64(s.errors, 1);
	CHECK(isp_budget_take(&b, 1000) == 0);	/* still the whole budget */
	isp_budget_give(&b, 1000);
	isp_budget_get_stats(&b, &s);
	CHECK_EQ_U64(s.errors, 1);
	isp_budget_destroy(&b);
}

int main(void)
{
	test_reis_refused_create();
	test_rf_space();
	test_budget_overgive();
	return t_result();
}
