/* SPDX-License-Identifier: MIT */
/*
 * test_rf_alg1 - RecFlash Algorithm 1 (III-C4) on the worked example the
 * text of III-C4 describes (Fig. 6), step by step:
 *
 *   Reference hash table (inference), sorted by access frequency:
 *     K0 100, K1 90, K2 80, K3 70, K4 60, K5 50, K6 40, K7 30, K8 20, K9 10
 *   hot region = top 40 % (4 keys): tau = K3 (f 70), tau_prev = K2.
 *   Online-training hash table (new keys): N0 95, N1 92, N2 65.
 *   Threshold trigger: keys above f_tau = 70: N0, N1 -> 2 of 3 > 0.1 %.
 *   Step 3, in D_train order:
 *     N0: K0 (100) no, K1 (90) yes -> before K1; K3 to the tail;
 *         tau = K2, tau_prev = K1.
 *     N1: K0 no, N0 (95) no, K1 (90) yes -> before K1; K2 to the tail;
 *         tau = K1, tau_prev = N1.
 *     N2: K0, N0, N1 no; ptr reaches tau -> appended at the tail.
 *   Final list: K0 N0 N1 K1 | K4 .. K9 K3 K2 N2.
 *   Step 4: [K0, N0, N1, K1] reassigned, N2 assigned directly, the rest
 *   keep their addresses (the retired K3, K2 included: the drive leaves
 *   the stale copies for deferred garbage collection; see part 2).
 *
 * Part 1 runs it on struct rf_ht; part 2 runs the same example through the
 * drive (profile, SLS traffic, REMAP ADAPTIVE|IF_TRIGGERED, SWITCH) and
 * checks the staged list, the new addresses, remap costs and the sums.
 */
#include "recflash_int.h"
#include "test_rf_util.h"

enum { K0, K1, K2, K3, K4, K5, K6, K7, K8, K9, N0, N1, N2, N3, NKEYS };

static void expect_order(const struct rf_ht *ht, const uint32_t *want, uint32_t n)
{
	uint32_t got[NKEYS], m = rf_ht_order(ht, got, NKEYS), i;

	CHECK_EQ_U64(m, n);
	for (i = 0; i < n && i < m; i++)
		if (got[i] != want[i]) {
			fprintf(stderr, "order[%u] = %u, want %u\n", i, got[i], want[i]);
			t_failures++;
		}
}

static void test_ht(void)
{
	static const uint32_t f0[10] = { 100, 90, 80, 70, 60, 50, 40, 30, 20, 10 };
	struct rf_ht ht;
	uint32_t k, retired, hot_new = 0;
	const uint32_t train[3][2] = { { N0, 95 }, { N1, 92 }, { N2, 65 } };

	REQUIRE(rf_ht_init(&ht, NKEYS, 4) == 0);
	for (k = K0; k <= K9; k++) {
		rf_ht_append(&ht, k, f0[k]);
		ht.a[k] = 100 + k;		/* addresses before the remap */
	}
	/* Step 2 */
	CHECK_EQ_U64(rf_ht_threshold(&ht), K3);
	CHECK_EQ_U64(ht.tau_prev, K2);
	for (k = K0; k <= K9; k++)
		CHECK_EQ_U64(rf_ht_is_hot(&ht, k), k <= K3);
	/* Trigger: new keys hotter than f_tau, against 0.1 % of them. */
	for (k = 0; k < 3; k++)
		hot_new += train[k][1] > ht.f[ht.tau];
	CHECK_EQ_U64(hot_new, 2);
	CHECK(hot_new * 1000000u > 1000u * 3);
	ht.cmps = ht.ptr_ops = 0;

	/* Step 3: N0 */
	CHECK_EQ_U64(rf_ht_insert(&ht, N0, 95, &retired), 1);
	CHECK_EQ_U64(retired, K3);
	CHECK_EQ_U64(ht.tau, K2);
	CHECK_EQ_U64(ht.tau_prev, K1);
	CHECK_EQ_U64(ht.cmps, 2);
	{
		const uint32_t want[] = { K0, N0, K1, K2, K4, K5, K6, K7, K8, K9, K3 };

		expect_order(&ht, want, 11);
	}
	CHECK(rf_ht_is_hot(&ht, N0) && !rf_ht_is_hot(&ht, K3));
	/* N1 */
	CHECK_EQ_U64(rf_ht_insert(&ht, N1, 92, &retired), 1);
	CHECK_EQ_U64(retired, K2);
	CHECK_EQ_U64(ht.tau, K1);
	CHECK_EQ_U64(ht.tau_prev, N1);
	CHECK_EQ_U64(ht.cmps, 5);
	/* N2: the scan stops at tau, nothing to displace: the tail. */
	CHECK_EQ_U64(rf_ht_insert(&ht, N2, 65, &retired), 0);
	CHECK_EQ_U64(retired, RF_NIL);
	CHECK_EQ_U64(ht.tau, K1);
	CHECK_EQ_U64(ht.cmps, 8);
	{
		const uint32_t want[] = { K0, N0, N1, K1, K4, K5, K6, K7, K8, K9, K3, K2, N2 };

		expect_order(&ht, want, 13);
	}
	/* tau itself is never compared: N3 (91 > f_K1 = 90) is appended. */
	CHECK_EQ_U64(rf_ht_insert(&ht, N3, 91, NULL), 0);
	CHECK_EQ_U64(ht.cmps, 11);
	/* A key already hot is not new: left where it is. */
	CHECK_EQ_U64(rf_ht_insert(&ht, N0, 1, NULL), -1);
	CHECK_EQ_U64(ht.f[N0], 95);
	/* Step 4 */
	CHECK_EQ_U64(rf_ht_fate(&ht, K0, 0), RF_FATE_REASSIGN);
	CHECK_EQ_U64(rf_ht_fate(&ht, N0, 1), RF_FATE_REASSIGN);
	CHECK_EQ_U64(rf_ht_fate(&ht, N1, 1), RF_FATE_REASSIGN);
	CHECK_EQ_U64(rf_ht_fate(&ht, K1, 0), RF_FATE_REASSIGN);
	CHECK_EQ_U64(rf_ht_fate(&ht, N2, 1), RF_FATE_DIRECT);
	CHECK_EQ_U64(rf_ht_fate(&ht, N3, 1), RF_FATE_DIRECT);
	CHECK_EQ_U64(rf_ht_fate(&ht, K2, 0), RF_FATE_KEEP);
	CHECK_EQ_U64(rf_ht_fate(&ht, K3, 0), RF_FATE_KEEP);
	CHECK_EQ_U64(rf_ht_fate(&ht, K7, 0), RF_FATE_KEEP);
	/* A re-inserted cold key is unlinked first (the drive's rows all exist). */
	CHECK_EQ_U64(rf_ht_insert(&ht, K9, 99, &retired), 1);
	CHECK_EQ_U64(retired, K1);
	CHECK_EQ_U64(ht.len, 14);
	rf_ht_free(&ht);
}

/* The same example through the drive: rows K0..K9 = 0..9, N0..N2 = 10..12. */
static void test_drive(void)
{
	struct isp_dev *dev = rt_open("recflash-slc", NULL, NULL);
	struct isp_wire_rf_create cr = rt_cr(7, 13, 32, ISP_RF_FP32, ISP_RF_RECFLASH);
	uint8_t *table = rt_table(13, 32, ISP_RF_FP32, 7);
	uint32_t profile[13] = { 100, 90, 80, 70, 60, 50, 40, 30, 20, 10, 0, 0, 0 };
	uint32_t keys[13], slots[13], before[13], tau, i, n;
	struct isp_wire_rf_stats st;
	struct rt_batch b;
	struct rt_sls_out o;
	float ref[3 * 32];
	const uint32_t want[13] = { K0, N0, N1, K1, K4, K5, K6, K7, K8, K9, K3, K2, N2 };
	const uint32_t cold[9] = { K2, K3, K4, K5, K6, K7, K8, K9, N2 };
	uint32_t base;

	cr.flags = ISP_RF_TF_PROFILE;
	cr.hot_bp = 3100;		/* 13 * 31 % = 4 keys */
	cr.trigger = ISP_RF_TRIG_THRESHOLD;
	cr.trigger_ppm = 1000;		/* 0.1 % */
	REQUIRE(rt_deploy(dev, &cr, table, profile) == 0);
	n = (uint32_t)rf_debug_map(dev, 7, 0, keys, 13, before, &tau);
	CHECK_EQ_U64(n, 13);
	CHECK_EQ_U64(tau, K3);
	for (i = 0; i < 13; i++) {
		CHECK_EQ_U64(keys[i], i);	/* sorted by the profile */
		CHECK_EQ_U64(before[i], i);	/* packed in that order */
	}

	/* Online traffic: N0 x95, N1 x92, N2 x65, one row per bag. */
	b.nbags = b.nidx = 95 + 92 + 65;
	b.off = malloc((b.nbags + 1) * 4);
	b.idx = malloc(b.nidx * 4);
	b.w = NULL;
	REQUIRE(b.off && b.idx);
	for (i = 0; i < b.nidx; i++) {
		b.off[i] = i;
		b.idx[i] = i < 95 ? N0 : i < 95 + 92 ? N1 : N2;
	}
	b.off[b.nbags] = b.nidx;
	REQUIRE(rt_sls(dev, 7, 32, 0, &b, &o) == 0);
	free(o.v);
	CHECK_EQ_U64(rt_stats(dev, 7, 0, &st), 0);
	CHECK_EQ_U64(st.tracked_keys, 3);

	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, 7,
			       ISP_RF_REMAP_ADAPTIVE | ISP_RF_REMAP_IF_TRIGGERED, NULL), 0);
	CHECK_EQ_U64(rt_stats(dev, 7, 0, &st), 0);
	CHECK_EQ_U64(st.trigger_hot_new, 2);
	CHECK_EQ_U64(st.remap_state, ISP_RF_REMAP_STAGED);
	CHECK_EQ_U64(st.remaps, 1);
	CHECK_EQ_U64(st.tracked_keys, 0);	/* tracking restarts */
	n = (uint32_t)rf_debug_map(dev, 7, 1, keys, 13, slots, &tau);
	CHECK_EQ_U64(n, 13);
	for (i = 0; i < 13; i++)
		CHECK_EQ_U64(keys[i], want[i]);
	CHECK_EQ_U64(tau, K1);
	/* Step 4: the hot keys packed in list order from the next free stripe
	 * row (lpage 64: data and image pages used lpages 0-1 of the 64
	 * planes' first row); every other key keeps its slot. */
	base = slots[K0];
	CHECK_EQ_U64(base, 64u * 32u);
	CHECK_EQ_U64(slots[N0], base + 1);
	CHECK_EQ_U64(slots[N1], base + 2);
	CHECK_EQ_U64(slots[K1], base + 3);
	for (i = 0; i < 9; i++)
		CHECK_EQ_U64(slots[cold[i]], before[cold[i]]);
	CHECK_EQ_U64(st.remap_rows_moved, 4);
	CHECK_EQ_U64(st.remap_page_reads, 1);
	CHECK_EQ_U64(st.remap_programs, 2);	/* one data page, one image page */
	CHECK(st.remap_ns > 200000);		/* programs take tPROG */

	/* Old mapping until SWITCH, the new one after; same sums. */
	b.nbags = 3;
	b.nidx = 13;
	for (i = 0; i < 13; i++)
		b.idx[i] = (i * 5) % 13;
	b.off[0] = 0;
	b.off[1] = 4;
	b.off[2] = 9;
	b.off[3] = 13;
	rt_reference(table, ISP_RF_FP32, 32, 0, &b, ref);
	REQUIRE(rt_sls(dev, 7, 32, 0, &b, &o) == 0);
	CHECK(rt_same(o.v, ref, 3 * 32));
	CHECK_EQ_U64(o.res.generation, 0);
	free(o.v);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_SWITCH, 7, 0, NULL), 0);
	REQUIRE(rt_sls(dev, 7, 32, 0, &b, &o) == 0);
	CHECK(rt_same(o.v, ref, 3 * 32));
	CHECK_EQ_U64(o.res.generation, 1);
	free(o.v);
	CHECK_EQ_U64(rt_stats(dev, 7, 0, &st), 0);
	CHECK_EQ_U64(st.generation, 1);
	CHECK_EQ_U64(st.remap_state, ISP_RF_REMAP_IDLE);
	/* The old data page still holds the cold rows: nothing to erase. */
	CHECK_EQ_U64(st.remap_erases, 0);
	n = (uint32_t)rf_debug_map(dev, 7, 0, keys, 13, slots, &tau);
	CHECK_EQ_U64(slots[N0], base + 1);
	free(b.off);
	free(b.idx);
	free(table);
	isp_dev_close(dev);
}

int main(void)
{
	test_ht();
	test_drive();
	return t_result();
}
