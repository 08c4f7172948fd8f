/* SPDX-License-Identifier: MIT */
/*
 * test_fuzz_regress.c - behaviour pinned by bugs tests/fuzz found; each
 * crash input also stays in tests/fuzz/regress/, replayed under ASan and
 * UBSan by make check.
 *
 * seq-ivf-empty-probe: an IVF_SEARCH whose probed clusters are all empty
 * sorted a NULL visit list (qsort(NULL, 0), undefined behaviour). It must
 * succeed with no hits.
 *
 * trace left armed (test_vm_battery): a TRACE_ARM whose opcode filter never
 * matches stayed armed, RESULT_RELEASE of its ticket answered Busy, and
 * every later TRACE_ARM, from any process, got ISP Busy. Releasing the
 * ticket disarms it, and a filter no command can match is refused.
 */
#include "test_isp_raw.h"

static void test_ivf_empty_probe(void)
{
	struct isp_dev *dev = rt_open("reis-ssd1", "blocks_per_plane=24;slc_blocks=12", NULL);
	struct isp_wire_reis_create cr;
	struct isp_wire_reis_search *s;
	uint8_t bin[16 * 8], cent[2 * 8], q[sizeof(*s) + 8], res[4096];
	uint32_t csize[2] = { 16, 0 };
	const struct isp_wire_reis_hit *hit;
	struct isp_cmd c;
	unsigned i;

	memset(&cr, 0, sizeof(cr));
	cr.did = 1;
	cr.kind = ISP_REIS_IVF;
	cr.dim = 64;
	cr.n = 16;
	cr.nlist = 2;
	memset(bin, 0xf0, sizeof(bin));
	memset(cent, 0xff, 8);		/* cluster 0: far from the query */
	memset(cent + 8, 0, 8);		/* cluster 1: the query, empty */
	REQUIRE(raw_db_create(dev, &cr) == 0);
	REQUIRE(raw_db_write(dev, 1, ISP_REIS_SEC_BIN, 0, bin, sizeof(bin)) == 0);
	REQUIRE(raw_db_write(dev, 1, ISP_REIS_SEC_CENTROIDS, 0, cent, sizeof(cent)) == 0);
	REQUIRE(raw_db_write(dev, 1, ISP_REIS_SEC_CLUSTERS, 0, csize, sizeof(csize)) == 0);
	REQUIRE(rt_simple(dev, ISP_OP_REIS_DB_COMMIT, 1, 0, NULL) == 0);

	memset(q, 0, sizeof(q));
	s = (struct isp_wire_reis_search *)(void *)q;
	s->did = 1;
	s->nq = 1;
	s->k = 4;
	s->flags = ISP_REIS_SF_NO_RERANK | ISP_REIS_SF_NO_DF;
	s->nprobe = 1;
	s->dim = 64;
	CHECK_EQ_U64(raw_search(dev, 1, 7, s, q, sizeof(q)), 0);
	c = rt_cmd(ISP_OP_RESULT_READ, sizeof(res));
	c.cdw12 = 7;
	CHECK_EQ_U64(rt_exec(dev, &c, res, NULL), 0);
	hit = (const void *)(res + sizeof(struct isp_wire_result_hdr) +
			     sizeof(struct isp_wire_reis_result));
	for (i = 0; i < 4; i++)
		CHECK(hit[i].id == ISP_REIS_HIT_NONE);
	isp_dev_close(dev);
}

static void test_trace_release_disarms(void)
{
	struct isp_dev *dev = rt_open("recflash-slc", "blocks_per_plane=24", NULL);

	/* filters nothing can match: unsupported, TRACE_ARM, result commands */
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_TRACE_ARM, 0x70, 0xf0, NULL),
		     ISP_SC_INVALID_FIELD | ISP_STATUS_DNR);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_TRACE_ARM, 0x70, ISP_OP_TRACE_ARM, NULL),
		     ISP_SC_INVALID_FIELD | ISP_STATUS_DNR);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_TRACE_ARM, 0x70, ISP_OP_RESULT_READ, NULL),
		     ISP_SC_INVALID_FIELD | ISP_STATUS_DNR);
	/* armed for an SLS that never comes */
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_TRACE_ARM, 0x71, ISP_OP_RF_SLS, NULL), 0);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_TRACE_ARM, 0x72, 0, NULL),
		     ISP_SC_BUSY | ISP_STATUS_DNR);	/* one trace at a time */
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RESULT_RELEASE, 0x71, 0, NULL), 0);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RESULT_RELEASE, 0x71, 0, NULL),
		     ISP_SC_UNKNOWN_ID | ISP_STATUS_DNR);
	/* disarmed: the next command is not traced, a new arm works */
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_NOOP, 0, 0, NULL), 0);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_TRACE_ARM, 0x73, 0, NULL), 0);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_NOOP, 0, 0, NULL), 0);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RESULT_RELEASE, 0x73, 0, NULL), 0);
	isp_dev_close(dev);
}

int main(void)
{
	test_ivf_empty_probe();
	test_trace_release_disarms();
	return t_result();
}
