/* SPDX-License-Identifier: MIT */
/*
 * libreis/libreis_tool_vecs.h - vector files (.fvecs .bvecs .ivecs .npy).
 * Included by libreis_tools.h; conventions are libreis.h's (docs/libreis.md).
 */
#ifndef LIBREIS_TOOL_VECS_H
#define LIBREIS_TOOL_VECS_H

#ifndef LIBREIS_TOOLS_H
#error "include <libreis_tools.h>, not <libreis/libreis_tool_vecs.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * enum reis_vec_type - element type of a vector set.
 * @REIS_VEC_F32: float32.
 * @REIS_VEC_I8: int8.
 * @REIS_VEC_U8: uint8 (.bvecs).
 * @REIS_VEC_I32: int32 (.ivecs: ground-truth ids).
 */
enum reis_vec_type {
	REIS_VEC_F32 = 1,
	REIS_VEC_I8 = 2,
	REIS_VEC_U8 = 3,
	REIS_VEC_I32 = 4,
};

/* Bounds of what the readers accept. */
#define REIS_VEC_MAX_DIM 65536u
#define REIS_VEC_MAX_BYTES (UINT64_C(1) << 36)	/* 64 GiB of elements */

/**
 * struct reis_vecs - n vectors of dim elements, row-major (C order).
 * @n: vectors.
 * @dim: elements per vector.
 * @type: enum reis_vec_type.
 * @rsvd: reserved.
 * @data: n * dim elements, malloc'd; reis_vecs_free() releases it.
 */
struct reis_vecs {
	uint64_t n;
	uint32_t dim;
	uint32_t type;
	uint64_t rsvd;
	void *data;
};

/**
 * reis_vecs_load() - read a vector file.
 * @path: .fvecs, .bvecs, .ivecs (per vector: int32 dim, then dim elements)
 *        or .npy (format version 1 or 2, C order, 1-D or 2-D, dtype <f4,
 *        |i1, |u1 or <i4); the suffix chooses the format.
 * @out: filled on success.
 * @err: reason on failure ("file.fvecs: vector 12 has dim 100, not 128").
 * @errlen: size of @err.
 *
 * Every header and length is bounded (REIS_VEC_MAX_DIM, REIS_VEC_MAX_BYTES,
 * the file size): truncated, inconsistent or unsupported files are refused.
 *
 * Return: 0, -ENOENT/-EACCES... from open, -EINVAL for a malformed file or
 * an unknown suffix, -ENOMEM.
 */
int reis_vecs_load(const char *path, struct reis_vecs *out, char *err, size_t errlen);

/**
 * reis_vecs_parse() - parse a vector file already in memory.
 * @buf: the file's bytes.
 * @len: their number.
 * @format: "fvecs", "bvecs", "ivecs" or "npy".
 * @out: filled on success (data is a new copy).
 * @err: reason on failure.
 * @errlen: size of @err.
 *
 * Return: 0, -EINVAL for a malformed buffer, -ENOMEM.
 */
int reis_vecs_parse(const void *buf, size_t len, const char *format,
		    struct reis_vecs *out, char *err, size_t errlen);

/**
 * reis_vecs_to_f32() - convert a set to float32 in place.
 * @v: set of any type.
 *
 * Return: 0 or -ENOMEM.
 */
int reis_vecs_to_f32(struct reis_vecs *v);

/**
 * reis_vecs_free() - free the data of @v (NULL-safe) and zero it.
 * @v: set.
 */
void reis_vecs_free(struct reis_vecs *v);

/**
 * reis_fvecs_write() - write float vectors as .fvecs.
 * @path: destination (replaced).
 * @x: n * dim floats.
 * @n: vectors.
 * @dim: dimensions.
 *
 * Return: 0 or -errno.
 */
int reis_fvecs_write(const char *path, const float *x, uint64_t n, uint32_t dim);

#ifdef __cplusplus
}
#endif

#endif /* LIBREIS_TOOL_VECS_H */
