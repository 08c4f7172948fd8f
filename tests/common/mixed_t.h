/* SPDX-License-Identifier: MIT */
/*
 * mixed_t.h - the data of the mixed-load tests (tests/vm/guest/
 * test_vm_mixed_load in the VM, tests/lib/test_lib_mixed_rss in process):
 * a live database (DID) searched and a live RecFlash table (TID) pooled
 * under load in NVAR variants, a second database and table (CHURN_*)
 * deployed and deleted in a loop, and every answer's host reference,
 * computed by mixed_prepare() before any load. The state is each including
 * program's own (one translation unit each). Include check.h first.
 */
#ifndef TESTS_MIXED_T_H
#define TESTS_MIXED_T_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libreis_tools.h"
#include "reis_synth.h"
#include "rf_util.h"

#define DID 95		/* searched under load */
#define TID 96
#define CHURN_DID 97	/* deployed and deleted under load */
#define CHURN_TID 98
#define DIM 128
#define N 3000
#define NQ 64
#define RF_ROWS 8000
#define RF_DIM 32
#define CH_N 400
#define CH_DIM 64
#define CH_ROWS 1000
#define CH_RF_DIM 16
#define QD 16
#define NVAR 32

static struct reis_db_image img, ch_img;
static struct reis_queries q, ch_q;
static struct rf_tbl tbl, ch_tbl;
static struct reis_search_opts s_opt[NVAR];
static struct reis_queries s_sub[NVAR];
static struct reis_search_result s_want[NVAR], ch_want;
static struct rf_batch f_bt[NVAR], ch_bt;
static float f_want[NVAR][32 * RF_DIM], ch_fwant[8 * CH_RF_DIM];

static inline uint32_t f_flags(unsigned v)
{
	return (v % 2 ? REIS_RF_SLS_WEIGHTED : 0) | (v % 3 ? 0 : REIS_RF_SLS_MEAN);
}

static inline void mixed_build_db(uint32_t did, uint64_t seed, uint32_t n, uint32_t dim,
				  uint32_t nq, struct reis_db_image *im, struct reis_queries *qq)
{
	float *x = synth_vectors(seed, n, dim, 16, 0.5f), *qf = synth_vectors(seed + 1, nq, dim,
									  16, 0.5f);
	struct reis_build_opts o;
	char err[256];

	REQUIRE(x && qf);
	memset(&o, 0, sizeof(o));
	o.did = did;
	o.kind = REIS_DB_BF;
	o.flags = REIS_BUILD_INT8;
	o.name = "mixed-load";
	if (reis_db_build(&o, x, n, dim, im, err, sizeof(err))) {
		fprintf(stderr, "build %u: %s\n", did, err);
		exit(T_EXIT_FAIL);
	}
	REQUIRE(reis_encode_queries(im->quant, qf, nq, qq) == 0);
	free(x);
	free(qf);
}

static inline void mixed_prepare(void)
{
	const struct reis_db_image *one[1] = { &img }, *ch_one[1] = { &ch_img };
	struct reis_search_opts co;
	uint64_t rng = 4242;
	unsigned v;

	mixed_build_db(DID, 51, N, DIM, NQ, &img, &q);
	mixed_build_db(CHURN_DID, 53, CH_N, CH_DIM, 2, &ch_img, &ch_q);
	REQUIRE(rf_tbl_make(&tbl, TID, RF_ROWS, RF_DIM, REIS_RF_FP32, REIS_RF_RECFLASH, 55) == 0);
	REQUIRE(rf_tbl_make(&ch_tbl, CHURN_TID, CH_ROWS, CH_RF_DIM, REIS_RF_FP32, REIS_RF_RECFLASH,
			    57) == 0);
	for (v = 0; v < NVAR; v++) {
		uint32_t first = (uint32_t)(synth_next(&rng) % (NQ - 2));

		memset(&s_opt[v], 0, sizeof(s_opt[v]));
		s_opt[v].did = DID;
		s_opt[v].k = 1 + (uint32_t)(synth_next(&rng) % 10);
		s_sub[v] = q;
		s_sub[v].nq = 1 + (uint32_t)(synth_next(&rng) % 2);
		s_sub[v].bin = q.bin + (size_t)first * (DIM / 8);
		s_sub[v].int8 = q.int8 + (size_t)first * DIM;
		REQUIRE(reis_ref_search(one, 1, 0, &s_opt[v], &s_sub[v], &s_want[v]) == 0);
		rf_batch_make(&f_bt[v], 900 + v, 32, 12, 0, RF_ROWS, v % 2);
		REQUIRE(reis_rf_sls_ref(tbl.dtype, RF_ROWS, RF_DIM, tbl.wire, &f_bt[v].b,
					f_flags(v), f_want[v]) == 0);
	}
	memset(&co, 0, sizeof(co));
	co.did = CHURN_DID;
	co.k = 5;
	REQUIRE(reis_ref_search(ch_one, 1, 0, &co, &ch_q, &ch_want) == 0);
	rf_batch_make(&ch_bt, 77, 8, 6, 0, CH_ROWS, 0);
	REQUIRE(reis_rf_sls_ref(ch_tbl.dtype, CH_ROWS, CH_RF_DIM, ch_tbl.wire, &ch_bt.b, 0,
				ch_fwant) == 0);
}

#endif /* TESTS_MIXED_T_H */
