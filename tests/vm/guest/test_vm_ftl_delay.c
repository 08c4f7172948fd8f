/* SPDX-License-Identifier: MIT */
/*
 * test_vm_ftl_delay - with isp-timing=delay, ordinary completions are held
 * for their modeled time too (docs/ftl.md), in the runner's "delay" boot
 * (isp-params=ctrl_cmd=200ms: vendor commands take 200 ms of firmware
 * first; ordinary I/O has its own firmware path, ftl_cyc_cmd):
 *   1. idle 4 KiB reads: modeled at least tR (60 us) and far below the
 *      vendor commands' 200 ms; none completes before its modeled time;
 *   2. a 4 KiB read submitted 50 ms into a REIS search waits behind the
 *      search's page reads on its plane (booked from 200 ms on: planes
 *      serve in issue order): the model says about 150 ms, and the guest
 *      sees that time, within 10 % and 50 ms, where the emulator itself
 *      takes well under a millisecond (the TCG floor); the search's result
 *      equals the host reference;
 *   3. the statistics count the reads, and their modeled time.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "ftl_util.h"
#include "reis_cmp.h"

int main(void)
{
	struct isp_wire_identify *id = pt_alloc(sizeof(*id));
	static struct reis_search_req sr;
	const struct reis_db_image *one[1];
	struct reis_search_result want;
	struct reis_search_opts o;
	struct reis_db_image img;
	struct reis_queries q;
	struct isp_wire_stats a, b;
	struct reis_dev *dev;
	struct pt_ring r;
	uint8_t *buf = pt_alloc(4096);
	uint64_t m, rtt, worst_early = 0;
	uint32_t lbs, per, i;
	int64_t err;

	if (access(PT_CHAR_DEV, F_OK))
		SKIP(PT_CHAR_DEV " absent");
	REQUIRE(pt_open(&r, NULL, 16) == 0);
	REQUIRE(pt_isp_identify(&r, id) == 0);
	if (!(id->caps & ISP_CAP_TIMING_DELAY))
		SKIP("drive not in isp-timing=delay mode");
	if (!(id->caps & ISP_CAP_FTL))
		SKIP("ordinary I/O does not run through the FTL (isp-ftl=off?)");
	lbs = ftl_lba_bytes();
	per = 4096 / lbs;
	ftl_stats(&a);

	/* 1 */
	for (i = 0; i < 16; i++) {
		REQUIRE(ftl_rw(&r, 0, buf, (uint64_t)i * 997 * per, per, lbs, &m, &rtt) == 0);
		CHECK(m >= 60000 && m < 10000000);
		if (m > rtt && m - rtt > worst_early)
			worst_early = m - rtt;
	}
	printf("idle 4 KiB reads: modeled about %llu ns; earliest completion %llu ns before "
	       "the modeled time\n", (unsigned long long)m, (unsigned long long)worst_early);
	/* the guest's clock and QEMU's virtual clock may differ by a tick */
	CHECK(worst_early < 20000);

	/* 2 */
	if (reis_open(PT_CHAR_DEV, 0, &dev))
		SKIP("reis_open failed");
	ftl_db(dev, &img, &q);
	memset(&o, 0, sizeof(o));
	o.did = FTL_DID;
	o.k = 10;
	o.flags = REIS_SF_NO_RERANK;
	memset(&sr, 0, sizeof(sr));
	REQUIRE(reis_search_submit(dev, &sr, REIS_OP_SEARCH, &o, &q, NULL, NULL) == 0);
	usleep(50000);
	REQUIRE(ftl_rw(&r, 0, buf, 0, per, lbs, &m, &rtt) == 0);
	err = (int64_t)rtt - (int64_t)m;
	printf("4 KiB read 50 ms into a search: modeled %llu ns, seen %llu ns (%+.1f %%)\n",
	       (unsigned long long)m, (unsigned long long)rtt, 100.0 * (double)err / (double)m);
	CHECK(m >= 100000000 && m <= 200000000);
	CHECK(rtt * 10 >= m * 9);
	CHECK(rtt <= m + m / 10 + 50000000);
	REQUIRE(reis_search_wait(dev, &sr) == 0);
	one[0] = &img;
	REQUIRE(reis_ref_search(one, 1, 0, &o, &q, &want) == 0);
	CHECK_EQ_U64(reis_cmp_results("search beside the read", &sr.res, &want, 0), 0);
	reis_search_result_free(&want);
	reis_search_result_free(&sr.res);

	/* 3 */
	ftl_stats(&b);
	CHECK(b.ftl_reads - a.ftl_reads >= 17);
	CHECK(b.ftl_read_model_ns - a.ftl_read_model_ns >= m);
	reis_db_delete(dev, FTL_DID);
	reis_close(dev);
	pt_close(&r);
	free(buf);
	free(id);
	return t_result();
}
