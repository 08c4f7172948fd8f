/* SPDX-License-Identifier: MIT */
/*
 * test_rf_data - host-side RecFlash data, no drive needed: binary16
 * conversion (every half round-trips, ties round to even, overflow and
 * subnormals), the row quantizers (fp32 copy, fp16, int8 row-wise within
 * half a step, constant rows), the reference SLS against sums written out
 * by hand (sum, mean, weighted, int8 as scale * q + bias), batch checks and
 * profile counting.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "libreis_tools.h"

static uint32_t fbits(float f)
{
	uint32_t x;

	memcpy(&x, &f, 4);
	return x;
}

static void test_fp16(void)
{
	uint32_t h;

	/* Every half widens exactly and narrows back to itself (NaN stays NaN). */
	for (h = 0; h < 65536; h++) {
		float f = reis_rf_fp16_to_float((uint16_t)h);
		uint16_t back = reis_rf_fp16_from_float(f);

		if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) {
			CHECK(isnan(f));
			CHECK((back & 0x7c00) == 0x7c00 && (back & 0x3ff));
		} else if (back != h) {
			fprintf(stderr, "half 0x%04x -> %a -> 0x%04x\n", h, (double)f, back);
			CHECK(back == h);
			break;
		}
	}
	CHECK_EQ_U64(reis_rf_fp16_from_float(1.0f), 0x3c00);
	CHECK_EQ_U64(reis_rf_fp16_from_float(-2.0f), 0xc000);
	CHECK_EQ_U64(reis_rf_fp16_from_float(65504.0f), 0x7bff);
	CHECK_EQ_U64(reis_rf_fp16_from_float(65520.0f), 0x7c00);	/* rounds to inf */
	CHECK_EQ_U64(reis_rf_fp16_from_float(1e9f), 0x7c00);
	CHECK_EQ_U64(reis_rf_fp16_from_float(-1e9f), 0xfc00);
	/* 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1). */
	CHECK_EQ_U64(reis_rf_fp16_from_float(1.0f + 0x1p-11f), 0x3c00);
	CHECK_EQ_U64(reis_rf_fp16_from_float(1.0f + 3 * 0x1p-11f), 0x3c02);
	CHECK_EQ_U64(reis_rf_fp16_from_float(0x1p-24f), 0x0001);	/* smallest subnormal */
	CHECK_EQ_U64(reis_rf_fp16_from_float(0x1p-25f), 0x0000);	/* tie to even 0 */
	CHECK_EQ_U64(reis_rf_fp16_from_float(0x1.8p-25f), 0x0001);
	CHECK_EQ_U64(reis_rf_fp16_from_float(0x1p-14f), 0x0400);	/* smallest normal */
	CHECK_EQ_U64(reis_rf_fp16_from_float(-0.0f), 0x8000);
	CHECK(fbits(reis_rf_fp16_to_float(0x8000)) == 0x80000000u);
	CHECK(reis_rf_fp16_to_float(0x3555) == 0x1.554p-2f);
}

static void test_quantize(void)
{
	enum { R = 50, D = 13 };
	float src[R * D], back[D];
	uint8_t wire[R * D * 4];
	uint16_t h16[R * D];
	uint32_t r, d;

	CHECK(reis_rf_row_bytes(REIS_RF_FP32, D) == 4 * D);
	CHECK(reis_rf_row_bytes(REIS_RF_FP16, D) == 2 * D);
	CHECK(reis_rf_row_bytes(REIS_RF_INT8, D) == D + 8);
	CHECK(reis_rf_row_bytes(4, D) == -EINVAL);
	CHECK(reis_rf_row_bytes(REIS_RF_FP32, 0) == -EINVAL);
	CHECK(reis_rf_row_bytes(REIS_RF_FP32, REIS_RF_MAX_DIM + 1) == -EINVAL);

	reis_rf_fill_random(7, src, R * D, 3.0f);
	for (r = 0; r < R * D; r++)
		CHECK(src[r] >= -3.0f && src[r] < 3.0f);
	/* Constant row. */
	for (d = 0; d < D; d++)
		src[5 * D + d] = 0.25f;

	CHECK(reis_rf_quantize(REIS_RF_FP32, R, D, src, wire) == 0);
	CHECK(memcmp(wire, src, sizeof(float) * D) == 0);

	CHECK(reis_rf_quantize(REIS_RF_FP16, R, D, src, h16) == 0);
	for (r = 0; r < R; r++) {
		CHECK(reis_rf_dequantize_row(REIS_RF_FP16, D, h16 + r * D, back) == 0);
		for (d = 0; d < D; d++)
			CHECK(fabsf(back[d] - src[r * D + d]) <= 0x1p-11f * 4.0f);
	}

	CHECK(reis_rf_quantize(REIS_RF_INT8, R, D, src, wire) == 0);
	for (r = 0; r < R; r++) {
		float scale, lo = src[r * D], hi = src[r * D];

		for (d = 0; d < D; d++) {
			lo = fminf(lo, src[r * D + d]);
			hi = fmaxf(hi, src[r * D + d]);
		}
		memcpy(&scale, wire + r * (D + 8) + D, 4);
		CHECK(reis_rf_dequantize_row(REIS_RF_INT8, D, wire + r * (D + 8), back) == 0);
		if (r == 5) {
			CHECK(scale == 0.0f);
			for (d = 0; d < D; d++)
				CHECK(back[d] == 0.25f);
			continue;
		}
		CHECK(fabsf(scale - (hi - lo) / 255.0f) <= 1e-6f);
		for (d = 0; d < D; d++)
			CHECK(fabsf(back[d] - src[r * D + d]) <= scale * 0.5f + 1e-6f);
	}
	src[3] = NAN;
	CHECK(reis_rf_quantize(REIS_RF_INT8, R, D, src, wire) == -EDOM);
	src[3] = INFINITY;
	CHECK(reis_rf_quantize(REIS_RF_FP32, R, D, src, wire) == -EDOM);
	CHECK(reis_rf_quantize(REIS_RF_FP32, 0, D, src, wire) == -EINVAL);
	CHECK(reis_rf_quantize(9, R, D, src, wire) == -EINVAL);
}

static void test_ref(void)
{
	/* 4 rows x 3: row r = (r+1, 10(r+1), -0.5) */
	float rows[12], out[9];
	uint32_t offs[] = { 0, 2, 3, 6 }, idx[] = { 0, 3, 1, 2, 2, 0 };
	float w[] = { 2.0f, -1.0f, 0.5f, 1.0f, 1.0f, 4.0f };
	struct reis_rf_bags b = { 3, 6, offs, idx, NULL };
	uint8_t i8[4 * (3 + 8)];
	const char *why;
	uint32_t r, counts[4] = { 0 };

	for (r = 0; r < 4; r++) {
		rows[r * 3] = (float)(r + 1);
		rows[r * 3 + 1] = 10.0f * (float)(r + 1);
		rows[r * 3 + 2] = -0.5f;
	}
	CHECK(reis_rf_sls_ref(REIS_RF_FP32, 4, 3, rows, &b, 0, out) == 0);
	CHECK(out[0] == 5 && out[1] == 50 && out[2] == -1.0f);
	CHECK(out[3] == 2 && out[4] == 20 && out[5] == -0.5f);
	CHECK(out[6] == 7 && out[7] == 70 && out[8] == -1.5f);
	CHECK(reis_rf_sls_ref(REIS_RF_FP32, 4, 3, rows, &b, REIS_RF_SLS_MEAN, out) == 0);
	CHECK(out[0] == 2.5f && out[1] == 25 && out[2] == -0.5f);
	CHECK(out[6] == 7.0f / 3.0f && out[8] == -0.5f);
	b.weights = w;
	CHECK(reis_rf_sls_ref(REIS_RF_FP32, 4, 3, rows, &b, REIS_RF_SLS_WEIGHTED, out) == 0);
	CHECK(out[0] == 2 * 1 - 4 && out[1] == 2 * 10 - 40 && out[2] == -1.0f + 0.5f);
	CHECK(out[3] == 1.0f && out[6] == 3 + 3 + 4 && out[8] == -0.5f - 0.5f - 2.0f);
	CHECK(reis_rf_sls_ref(REIS_RF_FP32, 4, 3, rows, &b, REIS_RF_SLS_WEIGHTED |
			      REIS_RF_SLS_MEAN, out) == 0);
	CHECK(out[0] == -1.0f && out[6] == 10.0f / 3.0f);

	/* int8: value = scale * q + bias with the stored scale and bias. */
	memset(i8, 0, sizeof(i8));
	for (r = 0; r < 4; r++) {
		float scale = 0.5f * (float)(r + 1), bias = -1.0f;
		int8_t q[3] = { (int8_t)(r * 10), -100, 127 };

		memcpy(i8 + r * 11, q, 3);
		memcpy(i8 + r * 11 + 3, &scale, 4);
		memcpy(i8 + r * 11 + 7, &bias, 4);
	}
	b.weights = NULL;
	CHECK(reis_rf_sls_ref(REIS_RF_INT8, 4, 3, i8, &b, 0, out) == 0);
	CHECK(out[0] == (0.5f * 0 - 1) + (2.0f * 30 - 1));
	CHECK(out[1] == (0.5f * -100 - 1) + (2.0f * -100 - 1));
	CHECK(out[5] == 1.0f * 127 - 1);

	/* Malformed batches. */
	b.weights = NULL;
	CHECK(reis_rf_bags_check(&b, 0, 4, &why) == 0);
	CHECK(reis_rf_bags_check(&b, 0, 3, &why) == -ERANGE);
	CHECK(strstr(why, "range") != NULL);
	CHECK(reis_rf_bags_check(&b, REIS_RF_SLS_WEIGHTED, 4, &why) == -EINVAL);
	CHECK(reis_rf_bags_check(&b, 1u << 7, 4, &why) == -EINVAL);
	offs[1] = 0;
	CHECK(reis_rf_bags_check(&b, 0, 4, &why) == -EINVAL);
	CHECK(strstr(why, "empty") != NULL);
	offs[1] = 2;
	offs[3] = 5;
	CHECK(reis_rf_bags_check(&b, 0, 4, &why) == -EINVAL);
	offs[3] = 6;
	offs[0] = 1;
	CHECK(reis_rf_bags_check(&b, 0, 4, &why) == -EINVAL);
	offs[0] = 0;
	b.nbags = 0;
	CHECK(reis_rf_bags_check(&b, 0, 4, &why) == -EINVAL);
	b.nbags = 3;
	CHECK(reis_rf_sls_ref(REIS_RF_FP32, 3, 3, rows, &b, 0, out) == -ERANGE);

	CHECK(reis_rf_profile_count(idx, 6, 4, counts) == 0);
	CHECK(counts[0] == 2 && counts[1] == 1 && counts[2] == 2 && counts[3] == 1);
	CHECK(reis_rf_profile_count(idx, 6, 3, counts) == -ERANGE);
}

int main(void)
{
	test_fp16();
	test_quantize();
	test_ref();
	return t_result();
}
