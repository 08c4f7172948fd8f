/* SPDX-License-Identifier: MIT */
/*
 * rf_util.h - helpers the RecFlash tests share: open a drive that has the
 * RecFlash engine (or skip), deploy a random table and keep its wire rows
 * for the host reference, make random bags, compare pooled vectors.
 */
#ifndef TESTS_RF_UTIL_H
#define TESTS_RF_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "libreis_tools.h"

struct rf_tbl {
	uint32_t tid, rows, dim, dtype, mode;
	void *wire;		/* rows * row_bytes, what the drive holds */
};

struct rf_batch {
	struct reis_rf_bags b;
	uint32_t *offsets, *indices;
	float *weights;
};

/* Open an in-process drive; skip the test if it has no RecFlash engine. */
static inline struct reis_dev *rf_open(const char *preset, uint32_t workers,
				       uint32_t max_xfer, const char *params)
{
	struct reis_inproc_opts o;
	struct reis_dev *dev;
	char err[256] = "";
	int ret;

	memset(&o, 0, sizeof(o));
	o.preset = preset;
	o.workers = workers;
	o.max_xfer = max_xfer;
	o.params = params;
	o.errbuf = err;
	o.errlen = sizeof(err);
	ret = reis_open_inproc(&o, &dev);
	if (ret) {
		fprintf(stderr, "open %s: %s %s\n", preset, reis_strerror(ret), err);
		exit(T_EXIT_FAIL);
	}
	if (!(reis_dev_info(dev)->caps & REIS_CAP_RECFLASH)) {
		reis_close(dev);
		SKIP("the drive has no RecFlash engine (REIS_CAP_RECFLASH)");
	}
	return dev;
}

/* @t as the library's table description (a group deploy's input). */
static inline struct reis_rf_table rf_as_table(const struct rf_tbl *t)
{
	struct reis_rf_table d;

	memset(&d, 0, sizeof(d));
	d.tid = t->tid;
	d.rows = t->rows;
	d.dim = t->dim;
	d.dtype = t->dtype;
	d.mode = t->mode;
	d.data = t->wire;
	return d;
}

/* Random table content in +-@amp in the drive's layout; caller frees t->wire. */
static inline int rf_tbl_make_amp(struct rf_tbl *t, uint32_t tid, uint32_t rows,
				  uint32_t dim, uint32_t dtype, uint32_t mode, uint64_t seed,
				  float amp)
{
	float *f = malloc(sizeof(float) * (size_t)rows * dim);
	int ret;

	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->rows = rows;
	t->dim = dim;
	t->dtype = dtype;
	t->mode = mode;
	t->wire = malloc((size_t)rows * (size_t)reis_rf_row_bytes(dtype, dim));
	if (!f || !t->wire) {
		free(f);
		return -1;
	}
	reis_rf_fill_random(seed, f, (size_t)rows * dim, amp);
	ret = reis_rf_quantize(dtype, rows, dim, f, t->wire);
	free(f);
	return ret;
}

static inline int rf_tbl_make(struct rf_tbl *t, uint32_t tid, uint32_t rows, uint32_t dim,
			      uint32_t dtype, uint32_t mode, uint64_t seed)
{
	return rf_tbl_make_amp(t, tid, rows, dim, dtype, mode, seed, 1.0f);
}

/* Whether the in-process drive of @preset has the RecFlash engine. */
static inline int rf_have_engine(const char *preset)
{
	struct reis_inproc_opts o;
	struct reis_dev *dev;
	int have;

	memset(&o, 0, sizeof(o));
	o.preset = preset;
	if (reis_open_inproc(&o, &dev))
		return 0;
	have = !!(reis_dev_info(dev)->caps & REIS_CAP_RECFLASH);
	reis_close(dev);
	return have;
}

static inline int rf_tbl_deploy(struct reis_dev *dev, const struct rf_tbl *t,
				const uint32_t *profile)
{
	struct reis_rf_table d = rf_as_table(t);
	int ret;

	d.profile = profile;
	d.name = "test";
	ret = reis_rf_deploy(dev, &d, NULL);
	if (ret)
		fprintf(stderr, "deploy %u: %s\n", t->tid, reis_last_error(dev));
	return ret;
}

/* @nbags bags of 1..@maxlen random rows (exactly @maxlen if @fixed). */
static inline void rf_batch_make(struct rf_batch *bt, uint64_t seed, uint32_t nbags,
				 uint32_t maxlen, int fixed, uint32_t rows, int weighted)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
	uint32_t b, n = 0;

	memset(bt, 0, sizeof(*bt));
	bt->offsets = malloc(sizeof(uint32_t) * (nbags + 1));
	bt->indices = malloc(sizeof(uint32_t) * (size_t)nbags * maxlen);
	bt->weights = weighted ? malloc(sizeof(float) * (size_t)nbags * maxlen) : NULL;
	REQUIRE(bt->offsets && bt->indices && (!weighted || bt->weights));
	bt->offsets[0] = 0;
	for (b = 0; b < nbags; b++) {
		uint32_t len, j;

		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		len = fixed ? maxlen : 1 + (uint32_t)(s % maxlen);
		for (j = 0; j < len; j++, n++) {
			s ^= s << 13, s ^= s >> 7, s ^= s << 17;
			bt->indices[n] = (uint32_t)((s >> 11) % rows);
			if (weighted)
				bt->weights[n] = (float)((int)(s % 2001) - 1000) / 500.0f;
		}
		bt->offsets[b + 1] = n;
	}
	bt->b.nbags = nbags;
	bt->b.nidx = n;
	bt->b.offsets = bt->offsets;
	bt->b.indices = bt->indices;
	bt->b.weights = bt->weights;
}

static inline void rf_batch_free(struct rf_batch *bt)
{
	free(bt->offsets);
	free(bt->indices);
	free(bt->weights);
}

/* Number of elements that differ (float ==: -0 equals +0). */
static inline size_t rf_diff(const float *a, const float *b, size_t n)
{
	size_t i, bad = 0;

	for (i = 0; i < n; i++)
		if (!(a[i] == b[i]))
			bad++;
	return bad;
}

#endif /* TESTS_RF_UTIL_H */
