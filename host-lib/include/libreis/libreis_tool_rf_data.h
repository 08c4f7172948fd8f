/* SPDX-License-Identifier: MIT */
/*
 * libreis/libreis_tool_rf_data.h - host-side RecFlash data: half precision, the
 * quantizers of the drive's tables, the reference SLS, profiles, random fills.
 * Included by libreis_tools.h; conventions are libreis.h's (docs/libreis.md).
 */
#ifndef LIBREIS_TOOL_RF_DATA_H
#define LIBREIS_TOOL_RF_DATA_H

#ifndef LIBREIS_TOOLS_H
#error "include <libreis_tools.h>, not <libreis/libreis_tool_rf_data.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * reis_rf_fp16_from_float() - IEEE binary16 nearest to @f (ties to even;
 * overflow to infinity, NaN kept).
 * @f: value.
 *
 * Return: the half-precision bits.
 */
uint16_t reis_rf_fp16_from_float(float f);

/**
 * reis_rf_fp16_to_float() - widen binary16 bits to float (exact).
 * @h: half-precision bits.
 *
 * Return: the value.
 */
float reis_rf_fp16_to_float(uint16_t h);

/**
 * reis_rf_quantize() - turn float rows into a table's wire rows.
 * @dtype: enum reis_rf_dtype.
 * @rows: rows.
 * @dim: elements per row.
 * @src: @rows * @dim floats, finite.
 * @dst: @rows * reis_rf_row_bytes(@dtype, @dim) bytes.
 *
 * fp32 copies; fp16 rounds to nearest even; int8 is row-wise affine:
 * scale = (max - min) / 255, bias = min + 128 * scale, q = round((x - bias)
 * / scale) clamped to [-128, 127] (a constant row gets scale 0, bias x).
 *
 * Return: 0, -EINVAL for bad arguments, -EDOM for a non-finite value.
 */
int reis_rf_quantize(uint32_t dtype, uint32_t rows, uint32_t dim, const float *src,
		     void *dst);

/**
 * reis_rf_dequantize_row() - the float values the drive sees in one row.
 * @dtype: enum reis_rf_dtype.
 * @dim: elements.
 * @row: one wire row.
 * @out: @dim floats.
 *
 * Return: 0 or -EINVAL.
 */
int reis_rf_dequantize_row(uint32_t dtype, uint32_t dim, const void *row, float *out);

/**
 * reis_rf_sls_ref() - the drive's SLS computed on the host.
 * @dtype: enum reis_rf_dtype.
 * @rows: rows in @table.
 * @dim: elements per row.
 * @table: wire rows.
 * @bags: batch.
 * @flags: REIS_RF_SLS_WEIGHTED / REIS_RF_SLS_MEAN.
 * @out: @bags->nbags * @dim floats.
 *
 * Follows the accumulation rules of command-set.md §5 literally (float32,
 * index order within a bag, fp16 widened, int8 as scale * q + bias, each
 * element times its weight, mean = sum / bag length), so a correct drive
 * returns the same bits.
 *
 * Return: 0, -EINVAL or -ERANGE as reis_rf_bags_check().
 */
int reis_rf_sls_ref(uint32_t dtype, uint32_t rows, uint32_t dim, const void *table,
		    const struct reis_rf_bags *bags, uint32_t flags, float *out);

/**
 * reis_rf_profile_count() - add a trace's accesses to per-row counts.
 * @indices: accesses.
 * @n: how many.
 * @rows: rows of the table (length of @counts).
 * @counts: incremented, saturating at UINT32_MAX.
 *
 * Return: 0, or -ERANGE if an index is >= @rows (counts then partial).
 */
int reis_rf_profile_count(const uint32_t *indices, size_t n, uint32_t rows,
			  uint32_t *counts);

/**
 * reis_rf_fill_random() - deterministic uniform floats in [-@amp, @amp).
 * @seed: seed.
 * @out: destination.
 * @n: count.
 * @amp: amplitude.
 */
void reis_rf_fill_random(uint64_t seed, float *out, size_t n, float amp);

#ifdef __cplusplus
}
#endif

#endif /* LIBREIS_TOOL_RF_DATA_H */
