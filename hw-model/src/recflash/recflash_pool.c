/* SPDX-License-Identifier: MIT */
/*
 * recflash_pool.c - SLS arithmetic: row formats, fp16 widening and the
 * accumulation the drive and any host reference must share bit for bit
 * (docs/command-set.md section 5, docs/recflash-engine.md "Accuracy").
 */

/*
 * Every operation is a separately rounded float32 operation: this file is
 * compiled as ISO C11 (GCC: -ffp-contract=off), products and sums are
 * separate statements, so no fused multiply-add can change a result. The
 * loops over elements vectorize without reassociation (each element is its
 * own accumulation chain).
 */
#include <string.h>

#include "isp_wire.h"
#include "recflash_engine.h"
#include "recflash_int.h"

uint32_t rf_row_bytes(uint32_t dtype, uint32_t dim)
{
	if (!dim || dim > ISP_RF_MAX_DIM)
		return 0;
	switch (dtype) {
	case ISP_RF_FP32: return 4 * dim;
	case ISP_RF_FP16: return 2 * dim;
	case ISP_RF_INT8: return dim + 8;
	default: return 0;
	}
}

float rf_fp16_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ffu, bits;
	float f;

	if (e == 0x1f) {
		bits = sign | 0x7f800000u | (m << 13);	/* inf, NaN (payload kept) */
	} else if (e) {
		bits = sign | ((e + 112) << 23) | (m << 13);
	} else if (m) {
		/* Subnormal half: normalize into a float32 normal number. */
		e = 113;
		while (!(m & 0x400u)) {
			m <<= 1;
			e--;
		}
		bits = sign | (e << 23) | ((m & 0x3ffu) << 13);
	} else {
		bits = sign;
	}
	memcpy(&f, &bits, sizeof(f));
	return f;
}

void rf_h2f_table(float *t)
{
	uint32_t i;

	for (i = 0; i < 65536; i++)
		t[i] = rf_fp16_to_float((uint16_t)i);
}

/* Elements [d, d + n) of a row as float32 (fp16 widened, int8 scale * q + bias). */
static inline void rf_row_load(float *v, const uint8_t *row, uint32_t dtype, uint32_t dim,
			   uint32_t d, uint32_t n, const float *h2f)
{
	uint32_t k;

	switch (dtype) {
	case ISP_RF_FP32:
		memcpy(v, row + 4 * (size_t)d, (size_t)n * 4);
		break;
	case ISP_RF_FP16:
		for (k = 0; k < n; k++) {
			uint16_t h;

			memcpy(&h, row + 2 * (size_t)(d + k), sizeof(h));
			v[k] = h2f ? h2f[h] : rf_fp16_to_float(h);
		}
		break;
	default: {
		float scale, bias;

		memcpy(&scale, row + dim, sizeof(scale));
		memcpy(&bias, row + dim + 4, sizeof(bias));
		for (k = 0; k < n; k++) {
			float q = scale * (float)(int8_t)row[d + k];

			v[k] = q + bias;
		}
		break;
	}
	}
}

#define RF_BLK 16u

void rf_acc_row(float *acc, const uint8_t *row, uint32_t dtype, uint32_t dim,
		const float *h2f, int weighted, float w)
{
	float v[RF_BLK];
	uint32_t d, k, n;

	if (dtype != ISP_RF_FP32 && dtype != ISP_RF_FP16 && dtype != ISP_RF_INT8)
		return;
	/* Fixed-size blocks let the compiler use vector instructions; each
	 * element still gets exactly one product and one sum, in order. */
	for (d = 0; d + RF_BLK <= dim; d += RF_BLK) {
		rf_row_load(v, row, dtype, dim, d, RF_BLK, h2f);
		if (weighted)
			for (k = 0; k < RF_BLK; k++)
				v[k] = w * v[k];
		for (k = 0; k < RF_BLK; k++)
			acc[d + k] = acc[d + k] + v[k];
	}
	n = dim - d;
	if (!n)
		return;
	rf_row_load(v, row, dtype, dim, d, n, h2f);
	for (k = 0; k < n; k++) {
		float p = weighted ? w * v[k] : v[k];

		acc[d + k] = acc[d + k] + p;
	}
}

void rf_finish_bag(float *acc, uint32_t dim, uint32_t n, int mean)
{
	uint32_t d;
	float cnt = (float)n;

	if (!mean)
		return;
	for (d = 0; d < dim; d++)
		acc[d] = acc[d] / cnt;
}

void rf_pool(const uint8_t *const *rows, const float *w, uint32_t n, uint32_t dtype,
	     uint32_t dim, int mean, float *out)
{
	uint32_t i;

	memset(out, 0, (size_t)dim * sizeof(*out));
	for (i = 0; i < n; i++)
		rf_acc_row(out, rows[i], dtype, dim, NULL, w != NULL, w ? w[i] : 1.0f);
	rf_finish_bag(out, dim, n, mean);
}
