/* SPDX-License-Identifier: MIT */
/*
 * tool_rf_data.c - host-side RecFlash data: half-precision conversion, the
 * row quantizers that produce a table's wire rows, the reference SLS that a
 * correct drive matches bit for bit, profile counting and deterministic
 * random rows.
 *
 * Bit-exactness with the drive needs the same separately rounded float32
 * operations: this file is built with -ffp-contract=off (host-lib/Makefile),
 * as hw-model's ISO C11 build is, so no fused multiply-add sneaks in.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "libreis_tools.h"
#include "isp_wire.h"
#include "core_priv.h"
#include "core_mix.h"

uint16_t reis_rf_fp16_from_float(float f)
{
	uint32_t x, sign, exp, mant, half, rem;
	int e;

	memcpy(&x, &f, sizeof(x));
	sign = (x >> 16) & 0x8000u;
	exp = (x >> 23) & 0xffu;
	mant = x & 0x7fffffu;
	if (exp == 0xff)	/* infinity, or NaN kept quiet */
		return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0));
	e = (int)exp - 127 + 15;
	if (e >= 0x1f)
		return (uint16_t)(sign | 0x7c00u);
	if (e <= 0) {
		uint32_t shift, mid;

		if (e < -10)
			return (uint16_t)sign;
		mant |= 0x800000u;
		shift = (uint32_t)(14 - e);
		half = mant >> shift;
		rem = mant & ((1u << shift) - 1);
		mid = 1u << (shift - 1);
		if (rem > mid || (rem == mid && (half & 1u)))
			half++;
		return (uint16_t)(sign | half);
	}
	half = ((uint32_t)e << 10) | (mant >> 13);
	rem = mant & 0x1fffu;
	/* A carry into the exponent is right, up to infinity. */
	if (rem > 0x1000u || (rem == 0x1000u && (half & 1u)))
		half++;
	return (uint16_t)(sign | half);
}

float reis_rf_fp16_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu;
	uint32_t mant = h & 0x3ffu, x;
	float f;

	if (exp == 0x1f) {
		x = sign | 0x7f800000u | (mant << 13);
	} else if (exp) {
		x = sign | ((exp + 112u) << 23) | (mant << 13);
	} else {
		/* Zero or subnormal: mant * 2^-24 is exact in float. */
		f = (float)mant * 5.9604644775390625e-08f;
		memcpy(&x, &f, sizeof(x));
		x |= sign;
	}
	memcpy(&f, &x, sizeof(f));
	return f;
}

static void rf_quant_int8(uint32_t dim, const float *src, uint8_t *dst)
{
	float lo = src[0], hi = src[0], scale, bias;
	uint32_t d;

	for (d = 1; d < dim; d++) {
		if (src[d] < lo)
			lo = src[d];
		if (src[d] > hi)
			hi = src[d];
	}
	if (hi == lo) {
		scale = 0.0f;
		bias = lo;
		memset(dst, 0, dim);
	} else {
		scale = (hi - lo) / 255.0f;
		bias = lo + 128.0f * scale;
		for (d = 0; d < dim; d++) {
			long q = lrintf((src[d] - bias) / scale);

			q = q < -128 ? -128 : q > 127 ? 127 : q;
			dst[d] = (uint8_t)(int8_t)q;
		}
	}
	memcpy(dst + dim, &scale, 4);
	memcpy(dst + dim + 4, &bias, 4);
}

int reis_rf_quantize(uint32_t dtype, uint32_t rows, uint32_t dim, const float *src,
		     void *dst)
{
	int rb = reis_rf_row_bytes(dtype, dim);
	uint8_t *out = dst;
	uint64_t i, n = (uint64_t)rows * dim;
	uint32_t r, d;

	if (rb < 0 || !rows || !src || !dst)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!isfinite(src[i]))
			return -EDOM;
	for (r = 0; r < rows; r++) {
		const float *s = src + (uint64_t)r * dim;
		uint8_t *o = out + (uint64_t)r * (uint32_t)rb;

		switch (dtype) {
		case ISP_RF_FP32:
			memcpy(o, s, 4ull * dim);
			break;
		case ISP_RF_FP16:
			for (d = 0; d < dim; d++) {
				uint16_t h = reis_rf_fp16_from_float(s[d]);

				memcpy(o + 2ull * d, &h, 2);
			}
			break;
		default:
			rf_quant_int8(dim, s, o);
			break;
		}
	}
	return 0;
}

int reis_rf_dequantize_row(uint32_t dtype, uint32_t dim, const void *row, float *out)
{
	const uint8_t *p = row;
	float scale, bias;
	uint32_t d;

	if (reis_rf_row_bytes(dtype, dim) < 0 || !row || !out)
		return -EINVAL;
	switch (dtype) {
	case ISP_RF_FP32:
		memcpy(out, p, 4ull * dim);
		break;
	case ISP_RF_FP16:
		for (d = 0; d < dim; d++) {
			uint16_t h;

			memcpy(&h, p + 2ull * d, 2);
			out[d] = reis_rf_fp16_to_float(h);
		}
		break;
	default:
		memcpy(&scale, p + dim, 4);
		memcpy(&bias, p + dim + 4, 4);
		for (d = 0; d < dim; d++)
			out[d] = scale * (float)(int8_t)p[d] + bias;
		break;
	}
	return 0;
}

int reis_rf_sls_ref(uint32_t dtype, uint32_t rows, uint32_t dim, const void *table,
		    const struct reis_rf_bags *bags, uint32_t flags, float *out)
{
	int rb = reis_rf_row_bytes(dtype, dim), ret;
	const uint8_t *tb = table;
	float *v;
	uint32_t b, j, d;

	if (rb < 0 || !rows || !table || !out)
		return -EINVAL;
	ret = reis_rf_bags_check(bags, flags, rows, NULL);
	if (ret)
		return ret;
	v = malloc(4ull * dim);
	if (!v)
		return -ENOMEM;
	for (b = 0; b < bags->nbags; b++) {
		float *acc = out + (uint64_t)b * dim;
		uint32_t n = bags->offsets[b + 1] - bags->offsets[b];

		for (d = 0; d < dim; d++)
			acc[d] = 0.0f;
		for (j = bags->offsets[b]; j < bags->offsets[b + 1]; j++) {
			reis_rf_dequantize_row(dtype, dim,
					       tb + (uint64_t)bags->indices[j] * (uint32_t)rb, v);
			if (flags & ISP_RF_SLS_WEIGHTED) {
				float w = bags->weights[j];

				for (d = 0; d < dim; d++)
					acc[d] += w * v[d];
			} else {
				for (d = 0; d < dim; d++)
					acc[d] += v[d];
			}
		}
		if (flags & ISP_RF_SLS_MEAN)
			for (d = 0; d < dim; d++)
				acc[d] /= (float)n;
	}
	free(v);
	return 0;
}

int reis_rf_profile_count(const uint32_t *indices, size_t n, uint32_t rows,
			  uint32_t *counts)
{
	size_t i;

	if ((n && !indices) || !counts || !rows)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (indices[i] >= rows)
			return -ERANGE;
		if (counts[indices[i]] != UINT32_MAX)
			counts[indices[i]]++;
	}
	return 0;
}

void reis_rf_fill_random(uint64_t seed, float *out, size_t n, float amp)
{
	uint64_t s = seed;
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = (float)((reis__uniform(&s) * 2.0 - 1.0) * (double)amp);
}
