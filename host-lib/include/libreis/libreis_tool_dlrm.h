/* SPDX-License-Identifier: MIT */
/*
 * libreis/libreis_tool_dlrm.h - DLRM RMC1-3 (RecFlash Table II) with host MLPs
 * around the drive's SLS.
 * Included by libreis_tools.h; conventions are libreis.h's (docs/libreis.md).
 */
#ifndef LIBREIS_TOOL_DLRM_H
#define LIBREIS_TOOL_DLRM_H

#ifndef LIBREIS_TOOLS_H
#error "include <libreis_tools.h>, not <libreis/libreis_tool_dlrm.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define REIS_DLRM_MAX_LAYERS 8u
#define REIS_DLRM_MAX_TABLES 64u

/**
 * enum reis_dlrm_interaction - how dense and sparse features meet.
 * @REIS_DLRM_DOT: DLRM's dot interaction: the bottom MLP output followed
 *                 by the pairwise dot products of {bottom output, pooled
 *                 embeddings} (strictly lower triangle, row-major).
 * @REIS_DLRM_CAT: concatenation of the bottom output and the embeddings.
 */
enum reis_dlrm_interaction {
	REIS_DLRM_DOT = 0,
	REIS_DLRM_CAT = 1,
};

/**
 * struct reis_dlrm_cfg - a DLRM model shape.
 * @name: "rmc1", ...
 * @ntables: embedding tables.
 * @dim: embedding dim (= the bottom MLP's output).
 * @lookups: indices per table per sample (pooling factor).
 * @nbot: entries in @bot.
 * @bot: bottom MLP widths, input (dense features) first, output (= @dim)
 *       last, as DLRM's arch-mlp-bot.
 * @ntop: entries in @top.
 * @top: top MLP layer widths after the interaction, output (1) last, as
 *       DLRM's arch-mlp-top (the interaction width is prepended).
 * @interaction: enum reis_dlrm_interaction.
 * @rows: rows per table (paper: 1,000,000).
 */
struct reis_dlrm_cfg {
	char name[16];
	uint32_t ntables;
	uint32_t dim;
	uint32_t lookups;
	uint32_t nbot;
	uint32_t bot[REIS_DLRM_MAX_LAYERS];
	uint32_t ntop;
	uint32_t top[REIS_DLRM_MAX_LAYERS];
	uint32_t interaction;
	uint32_t rows;
};

/**
 * reis_dlrm_preset() - RecFlash Table II models.
 * @name: "rmc1" (8 tables x 32 dim x 80 lookups, bottom 128-64-32, top
 *        256-64-1), "rmc2" (32 x 64 x 120, 256-128-64, 128-64-1) or "rmc3"
 *        (10 x 32 x 20, 2560-1024-256-32, 512-256-1); case-insensitive.
 * @cfg: filled, with dot interaction and 1,000,000 rows (IV-A).
 *
 * Return: 0 or -ENOENT.
 */
int reis_dlrm_preset(const char *name, struct reis_dlrm_cfg *cfg);

/**
 * reis_dlrm_cfg_check() - validate a model shape.
 * @cfg: shape.
 * @why: if not NULL, a static reason on failure.
 *
 * Return: 0 or -EINVAL.
 */
int reis_dlrm_cfg_check(const struct reis_dlrm_cfg *cfg, const char **why);

/**
 * reis_dlrm_interaction_dim() - width of the interaction output.
 * @cfg: shape.
 *
 * Return: dim + T(T-1)/2 with T = ntables + 1 (dot), or (ntables + 1) * dim
 * (cat).
 */
uint32_t reis_dlrm_interaction_dim(const struct reis_dlrm_cfg *cfg);

struct reis_dlrm;

/**
 * reis_dlrm_open() - a model with deterministic random MLP weights.
 * @cfg: shape (copied).
 * @seed: weight seed; uniform in +-sqrt(6 / (fan_in + fan_out)) (Glorot),
 *        biases +-1/sqrt(fan_in).
 * @out: the model.
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
int reis_dlrm_open(const struct reis_dlrm_cfg *cfg, uint64_t seed, struct reis_dlrm **out);

/**
 * reis_dlrm_forward() - inference for a batch given pooled embeddings.
 * @m: model.
 * @batch: samples, >= 1.
 * @dense: @batch * bot[0] dense features.
 * @emb: ntables pointers, each to @batch * dim pooled embeddings (the SLS
 *       output of that table, one bag per sample).
 * @out: @batch click probabilities (sigmoid of the top MLP).
 *
 * Bottom MLP with ReLU after every layer, interaction, top MLP with ReLU
 * after every layer but the last, sigmoid. Plain float loops in a fixed
 * order: the same inputs give the same bits.
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
int reis_dlrm_forward(const struct reis_dlrm *m, uint32_t batch, const float *dense,
		      const float *const *emb, float *out);

/**
 * reis_dlrm_cfg_of() - the shape of a model.
 * @m: model.
 *
 * Return: pointer owned by @m.
 */
const struct reis_dlrm_cfg *reis_dlrm_cfg_of(const struct reis_dlrm *m);

/**
 * reis_dlrm_close() - free a model (NULL: no-op).
 * @m: model.
 */
void reis_dlrm_close(struct reis_dlrm *m);

#ifdef __cplusplus
}
#endif

#endif /* LIBREIS_TOOL_DLRM_H */
