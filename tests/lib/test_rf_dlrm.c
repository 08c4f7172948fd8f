/* SPDX-License-Identifier: MIT */
/*
 * test_rf_dlrm - DLRM workloads: the RMC1-3 presets are RecFlash Table II
 * (tables, dim, lookups, bottom and top MLP widths) with 1 M rows (IV-A);
 * bad shapes are refused; the forward pass is deterministic and gives
 * probabilities; and a full inference of a small RMC1-shaped model whose
 * embedding stage runs in the drive (one SLS per table, one bag per
 * sample, locality-K bags) equals the host-only reference inference.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "libreis_tools.h"
#include "rf_util.h"

static int skipped;

static void test_presets(void)
{
	struct reis_dlrm_cfg c;
	const char *why;

	CHECK(reis_dlrm_preset("rmc1", &c) == 0);
	CHECK(c.ntables == 8 && c.dim == 32 && c.lookups == 80 && c.rows == 1000000);
	CHECK(c.nbot == 3 && c.bot[0] == 128 && c.bot[1] == 64 && c.bot[2] == 32);
	CHECK(c.ntop == 3 && c.top[0] == 256 && c.top[1] == 64 && c.top[2] == 1);
	CHECK(reis_dlrm_interaction_dim(&c) == 32 + 9 * 8 / 2);
	CHECK(reis_dlrm_preset("RMC2", &c) == 0);
	CHECK(c.ntables == 32 && c.dim == 64 && c.lookups == 120);
	CHECK(c.bot[0] == 256 && c.bot[1] == 128 && c.bot[2] == 64);
	CHECK(c.top[0] == 128 && c.top[1] == 64 && c.top[2] == 1);
	CHECK(reis_dlrm_interaction_dim(&c) == 64 + 33 * 32 / 2);
	CHECK(reis_dlrm_preset("rmc3", &c) == 0);
	CHECK(c.ntables == 10 && c.dim == 32 && c.lookups == 20 && c.nbot == 4);
	CHECK(c.bot[0] == 2560 && c.bot[1] == 1024 && c.bot[2] == 256 && c.bot[3] == 32);
	CHECK(c.top[0] == 512 && c.top[1] == 256 && c.top[2] == 1);
	c.interaction = REIS_DLRM_CAT;
	CHECK(reis_dlrm_interaction_dim(&c) == 11 * 32);
	CHECK(reis_dlrm_cfg_check(&c, &why) == 0);
	CHECK(reis_dlrm_preset("rmc4", &c) == -ENOENT);

	CHECK(reis_dlrm_preset("rmc1", &c) == 0);
	c.bot[2] = 16;
	CHECK(reis_dlrm_cfg_check(&c, &why) == -EINVAL && strstr(why, "bottom"));
	c.bot[2] = 32, c.top[2] = 2;
	CHECK(reis_dlrm_cfg_check(&c, &why) == -EINVAL && strstr(why, "top"));
	c.top[2] = 1, c.ntables = 0;
	CHECK(reis_dlrm_cfg_check(&c, &why) == -EINVAL);
	c.ntables = 8, c.interaction = 5;
	CHECK(reis_dlrm_cfg_check(&c, &why) == -EINVAL);
}

static void test_forward(void)
{
	struct reis_dlrm_cfg c;
	struct reis_dlrm *m1, *m2;
	float dense[4 * 128], emb[8][4 * 32], o1[4], o2[4];
	const float *e[8];
	unsigned i;

	CHECK(reis_dlrm_preset("rmc1", &c) == 0);
	REQUIRE(reis_dlrm_open(&c, 1, &m1) == 0);
	REQUIRE(reis_dlrm_open(&c, 1, &m2) == 0);
	reis_rf_fill_random(2, dense, 4 * 128, 1.0f);
	for (i = 0; i < 8; i++) {
		reis_rf_fill_random(3 + i, emb[i], 4 * 32, 0.5f);
		e[i] = emb[i];
	}
	CHECK(reis_dlrm_forward(m1, 4, dense, e, o1) == 0);
	CHECK(reis_dlrm_forward(m2, 4, dense, e, o2) == 0);
	CHECK(memcmp(o1, o2, sizeof(o1)) == 0);
	for (i = 0; i < 4; i++)
		CHECK(o1[i] > 0.0f && o1[i] < 1.0f);	/* not saturated */
	CHECK(o1[0] != o1[1]);
	reis_dlrm_close(m2);
	REQUIRE(reis_dlrm_open(&c, 2, &m2) == 0);
	CHECK(reis_dlrm_forward(m2, 4, dense, e, o2) == 0);
	CHECK(memcmp(o1, o2, sizeof(o1)) != 0);
	e[3] = NULL;
	CHECK(reis_dlrm_forward(m1, 4, dense, e, o1) == -EINVAL);
	CHECK(reis_dlrm_forward(m1, 0, dense, e, o1) == -EINVAL);
	reis_dlrm_close(m1);
	reis_dlrm_close(m2);
	reis_dlrm_close(NULL);
}

/* Full inference: embeddings from the drive vs from the host reference. */
static void test_e2e(void)
{
	enum { B = 16, ROWS = 20000 };
	struct reis_dlrm_cfg c;
	struct reis_dlrm *m;
	struct reis_dev *dev;
	struct rf_tbl t[8];
	float dense[B * 128], *dev_emb[8], *ref_emb[8], p_dev[B], p_ref[B];
	uint32_t offs[B + 1], idx[B * 80];
	struct reis_rf_bags bags = { B, B * 80, offs, idx, NULL };
	struct reis_rf_trace_opts to;
	struct reis_rf_trace *tr;
	unsigned i;

	if (!rf_have_engine("recflash-tlc")) {
		printf("the drive has no RecFlash engine: end-to-end part skipped\n");
		skipped = 1;
		return;
	}
	dev = rf_open("recflash-tlc", 0, 0, NULL);
	CHECK(reis_dlrm_preset("rmc1", &c) == 0);
	c.rows = ROWS;
	REQUIRE(reis_dlrm_open(&c, 9, &m) == 0);
	reis_rf_fill_random(10, dense, B * 128, 1.0f);
	for (i = 0; i <= B; i++)
		offs[i] = i * 80;
	for (i = 0; i < 8; i++) {
		uint32_t dtype = i % 3 == 0 ? REIS_RF_INT8 : i % 3 == 1 ? REIS_RF_FP16 :
				 REIS_RF_FP32;

		/* DLRM-like small values keep the sigmoid off saturation. */
		REQUIRE(rf_tbl_make_amp(&t[i], 1 + i, ROWS, 32, dtype, 1 + i % 3, 100 + i,
					0.05f) == 0);
		REQUIRE(rf_tbl_deploy(dev, &t[i], NULL) == 0);
		dev_emb[i] = calloc(B * 32, sizeof(float));
		ref_emb[i] = calloc(B * 32, sizeof(float));
		REQUIRE(dev_emb[i] && ref_emb[i]);
		memset(&to, 0, sizeof(to));
		to.rows = ROWS;
		to.k = 0.3;
		to.seed = 50 + i;
		REQUIRE(reis_rf_trace_open(&to, &tr) == 0);
		reis_rf_trace_next(tr, idx, B * 80);
		reis_rf_trace_close(tr);
		CHECK(reis_rf_sls(dev, t[i].tid, 32, &bags, 0, dev_emb[i], NULL) == 0);
		CHECK(reis_rf_sls_ref(dtype, ROWS, 32, t[i].wire, &bags, 0, ref_emb[i]) == 0);
	}
	CHECK(reis_dlrm_forward(m, B, dense, (const float *const *)dev_emb, p_dev) == 0);
	CHECK(reis_dlrm_forward(m, B, dense, (const float *const *)ref_emb, p_ref) == 0);
	for (i = 0; i < B; i++)
		if (p_dev[i] != p_ref[i]) {
			fprintf(stderr, "sample %u: drive %.9g, host %.9g\n", i, (double)p_dev[i],
				(double)p_ref[i]);
			CHECK(0);
		}
	for (i = 1; i < B; i++)
		if (p_ref[i] != p_ref[0])
			break;
	CHECK(i < B);	/* the probabilities depend on the embeddings */
	printf("RMC1-shaped inference of %u samples: drive == host reference; p[0] = %.6f\n",
	       B, (double)p_dev[0]);
	for (i = 0; i < 8; i++) {
		free(dev_emb[i]);
		free(ref_emb[i]);
		free(t[i].wire);
	}
	reis_dlrm_close(m);
	reis_close(dev);
}

int main(void)
{
	test_presets();
	test_forward();
	test_e2e();
	if (skipped && !t_failures)
		return T_EXIT_SKIP;
	return t_result();
}
