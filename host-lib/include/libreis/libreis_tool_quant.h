/* SPDX-License-Identifier: MIT */
/*
 * libreis/libreis_tool_quant.h - binary and INT8 quantization on the host
 * (REIS §4.2): training, encoding vectors and queries, quantizer files,
 * Hamming distance.
 * Included by libreis_tools.h; conventions are libreis.h's (docs/libreis.md).
 */
#ifndef LIBREIS_TOOL_QUANT_H
#define LIBREIS_TOOL_QUANT_H

#ifndef LIBREIS_TOOLS_H
#error "include <libreis_tools.h>, not <libreis/libreis_tool_quant.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * reis_quant_train() - fit a quantizer to float vectors.
 * @q: filled on success; reis_quant_free() releases it.
 * @x: n * dim floats.
 * @n: vectors (at least 1).
 * @dim: dimensions, a multiple of 64 in [REIS_DB_MIN_DIM, REIS_DB_MAX_DIM].
 * @metric: enum reis_metric.
 * @flags: REIS_QUANT_CENTER or 0. Centering helps data whose dimensions
 *         have large means; sentence embeddings are already centered enough:
 *         on the WordNet/USE corpus plain signs give brute-force recall@10
 *         0.979, centered 0.967 (docs/reis.md), so reis_db_build() does not
 *         center unless asked.
 *
 * Return: 0, -EINVAL for bad arguments or non-finite input, -ENOMEM.
 */
int reis_quant_train(struct reis_quant *q, const float *x, uint64_t n, uint32_t dim,
		     uint32_t metric, uint32_t flags);

/**
 * reis_quant_binary() - binary (sign) codes of database vectors or queries.
 * @q: quantizer.
 * @x: n * q->dim floats.
 * @n: vectors.
 * @out: n * q->dim / 8 bytes.
 */
void reis_quant_binary(const struct reis_quant *q, const float *x, uint64_t n,
		       uint8_t *out);

/**
 * reis_quant_int8() - INT8 codes of database vectors.
 * @q: quantizer.
 * @x: n * q->dim floats.
 * @n: vectors.
 * @out: n * q->dim codes.
 */
void reis_quant_int8(const struct reis_quant *q, const float *x, uint64_t n,
		     int8_t *out);

/**
 * reis_quant_int8_query() - INT8 codes of queries (see struct reis_quant).
 * @q: quantizer.
 * @x: n * q->dim floats.
 * @n: queries.
 * @out: n * q->dim codes.
 */
void reis_quant_int8_query(const struct reis_quant *q, const float *x, uint64_t n,
			   int8_t *out);

/**
 * reis_binarize() - plain sign codes without a quantizer (bit = x[d] > 0).
 * @x: n * dim floats.
 * @n: vectors.
 * @dim: a multiple of 8.
 * @out: n * dim / 8 bytes.
 */
void reis_binarize(const float *x, uint64_t n, uint32_t dim, uint8_t *out);

/**
 * reis_quant_save() - write @q to a file ("REISQNT1" format, docs/reis.md).
 * @q: quantizer.
 * @path: destination (replaced).
 *
 * Return: 0 or -errno.
 */
int reis_quant_save(const struct reis_quant *q, const char *path);

/**
 * reis_quant_load() - read a quantizer file written by reis_quant_save().
 * @q: filled on success.
 * @path: file.
 * @err: reason on failure.
 * @errlen: size of @err.
 *
 * Return: 0, -EINVAL for a malformed file, -ENOMEM or -errno.
 */
int reis_quant_load(struct reis_quant *q, const char *path, char *err, size_t errlen);

/**
 * reis_hamming() - Hamming distance of two codes of @bytes bytes.
 * @a: code.
 * @b: code.
 * @bytes: a multiple of 8.
 *
 * Return: the number of differing bits.
 */
uint32_t reis_hamming(const uint8_t *a, const uint8_t *b, uint32_t bytes);

/**
 * reis_encode_queries() - binary and INT8 codes of float queries.
 * @quant: the database's quantizer.
 * @x: nq * quant->dim floats.
 * @nq: queries.
 * @q: out; q->bin and q->int8 are malloc'd (free with
 *     reis_queries_free()).
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
int reis_encode_queries(const struct reis_quant *quant, const float *x, uint32_t nq,
			struct reis_queries *q);

/**
 * reis_queries_free() - free codes made by reis_encode_queries().
 * @q: queries (NULL-safe); zeroed.
 */
void reis_queries_free(struct reis_queries *q);

#ifdef __cplusplus
}
#endif

#endif /* LIBREIS_TOOL_QUANT_H */
