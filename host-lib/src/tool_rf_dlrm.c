/* SPDX-License-Identifier: MIT */
/*
 * tool_rf_dlrm.c - DLRM on the host around the drive's embedding stage:
 * the RecFlash Table II models (RMC1-3), deterministic random MLP weights,
 * and the forward pass (bottom MLP, dot or concat interaction, top MLP,
 * sigmoid) in plain float loops of a fixed order, so a run with the drive's
 * pooled embeddings and one with the host reference SLS give the same bits.
 */
#include <strings.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libreis_tools.h"
#include "core_priv.h"
#include "core_mix.h"

/* RecFlash IV-A: "each embedding table contains 1 million rows". */
#define RF_PAPER_ROWS 1000000u
#define RF_MAX_WIDTH 65536u
#define RF_MAX_LOOKUPS 100000u

struct rf_layer {
	uint32_t in, out;
	float *w;		/* out x in, row-major */
	float *b;
};

struct reis_dlrm {
	struct reis_dlrm_cfg cfg;
	uint32_t nbot, ntop;	/* layers */
	struct rf_layer bot[REIS_DLRM_MAX_LAYERS];
	struct rf_layer top[REIS_DLRM_MAX_LAYERS];
	uint32_t width_max;
};

/* RecFlash Table II: tables, dim, lookups, bottom FC, top FC. */
static const struct {
	const char *name;
	uint32_t ntables, dim, lookups;
	uint32_t bot[4];
	uint32_t top[3];
	uint32_t nbot, ntop;
} rf_models[] = {
	{ "rmc1", 8, 32, 80, { 128, 64, 32 }, { 256, 64, 1 }, 3, 3 },
	{ "rmc2", 32, 64, 120, { 256, 128, 64 }, { 128, 64, 1 }, 3, 3 },
	{ "rmc3", 10, 32, 20, { 2560, 1024, 256, 32 }, { 512, 256, 1 }, 4, 3 },
};

int reis_dlrm_preset(const char *name, struct reis_dlrm_cfg *cfg)
{
	unsigned i, j;

	if (!name || !cfg)
		return -EINVAL;
	for (i = 0; i < sizeof(rf_models) / sizeof(rf_models[0]); i++) {
		if (strcasecmp(name, rf_models[i].name))
			continue;
		memset(cfg, 0, sizeof(*cfg));
		snprintf(cfg->name, sizeof(cfg->name), "%s", rf_models[i].name);
		cfg->ntables = rf_models[i].ntables;
		cfg->dim = rf_models[i].dim;
		cfg->lookups = rf_models[i].lookups;
		cfg->nbot = rf_models[i].nbot;
		for (j = 0; j < cfg->nbot; j++)
			cfg->bot[j] = rf_models[i].bot[j];
		cfg->ntop = rf_models[i].ntop;
		for (j = 0; j < cfg->ntop; j++)
			cfg->top[j] = rf_models[i].top[j];
		cfg->interaction = REIS_DLRM_DOT;
		cfg->rows = RF_PAPER_ROWS;
		return 0;
	}
	return -ENOENT;
}

int reis_dlrm_cfg_check(const struct reis_dlrm_cfg *c, const char **why)
{
	const char *dummy;
	uint32_t i;

	if (!why)
		why = &dummy;
	*why = "";
	if (!c) {
		*why = "no configuration";
		return -EINVAL;
	}
	if (!c->ntables || c->ntables > REIS_DLRM_MAX_TABLES) {
		*why = "ntables not in 1..64";
		return -EINVAL;
	}
	if (!c->dim || c->dim > REIS_RF_MAX_DIM) {
		*why = "dim not in 1..4096";
		return -EINVAL;
	}
	if (!c->lookups || c->lookups > RF_MAX_LOOKUPS) {
		*why = "lookups not in 1..100000";
		return -EINVAL;
	}
	if (!c->rows || c->rows > REIS_RF_MAX_ROWS) {
		*why = "rows not in 1..2^31";
		return -EINVAL;
	}
	if (c->nbot < 2 || c->nbot > REIS_DLRM_MAX_LAYERS || c->ntop < 1 ||
	    c->ntop > REIS_DLRM_MAX_LAYERS) {
		*why = "bottom MLP needs 2..8 widths, top MLP 1..8";
		return -EINVAL;
	}
	for (i = 0; i < c->nbot; i++)
		if (!c->bot[i] || c->bot[i] > RF_MAX_WIDTH) {
			*why = "an MLP width is not in 1..65536";
			return -EINVAL;
		}
	for (i = 0; i < c->ntop; i++)
		if (!c->top[i] || c->top[i] > RF_MAX_WIDTH) {
			*why = "an MLP width is not in 1..65536";
			return -EINVAL;
		}
	if (c->bot[c->nbot - 1] != c->dim) {
		*why = "the bottom MLP must end at the embedding dim";
		return -EINVAL;
	}
	if (c->top[c->ntop - 1] != 1) {
		*why = "the top MLP must end in 1 output";
		return -EINVAL;
	}
	if (c->interaction != REIS_DLRM_DOT && c->interaction != REIS_DLRM_CAT) {
		*why = "interaction must be dot (0) or cat (1)";
		return -EINVAL;
	}
	return 0;
}

uint32_t reis_dlrm_interaction_dim(const struct reis_dlrm_cfg *c)
{
	uint32_t t = c->ntables + 1;

	if (c->interaction == REIS_DLRM_CAT)
		return t * c->dim;
	return c->dim + t * (t - 1) / 2;
}

static int rf_layer_init(struct rf_layer *l, uint32_t in, uint32_t out, uint64_t *rng)
{
	double lim = sqrt(6.0 / (double)(in + out)), blim = 1.0 / sqrt((double)in);
	uint64_t i;

	l->in = in;
	l->out = out;
	l->w = malloc(sizeof(float) * (uint64_t)in * out);
	l->b = malloc(sizeof(float) * out);
	if (!l->w || !l->b)
		return -ENOMEM;
	for (i = 0; i < (uint64_t)in * out; i++)
		l->w[i] = (float)((reis__uniform(rng) * 2.0 - 1.0) * lim);
	for (i = 0; i < out; i++)
		l->b[i] = (float)((reis__uniform(rng) * 2.0 - 1.0) * blim);
	return 0;
}

void reis_dlrm_close(struct reis_dlrm *m)
{
	uint32_t i;

	if (!m)
		return;
	for (i = 0; i < REIS_DLRM_MAX_LAYERS; i++) {
		free(m->bot[i].w);
		free(m->bot[i].b);
		free(m->top[i].w);
		free(m->top[i].b);
	}
	free(m);
}

int reis_dlrm_open(const struct reis_dlrm_cfg *cfg, uint64_t seed, struct reis_dlrm **out)
{
	struct reis_dlrm *m;
	uint64_t rng = seed ^ UINT64_C(0x444c524d4d4c5031);	/* "DLRMMLP1" */
	uint32_t i, in;
	int ret = 0;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (reis_dlrm_cfg_check(cfg, NULL))
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->cfg = *cfg;
	m->nbot = cfg->nbot - 1;
	m->ntop = cfg->ntop;
	m->width_max = reis_dlrm_interaction_dim(cfg);
	for (i = 0; i < m->nbot && !ret; i++) {
		ret = rf_layer_init(&m->bot[i], cfg->bot[i], cfg->bot[i + 1], &rng);
		if (cfg->bot[i] > m->width_max)
			m->width_max = cfg->bot[i];
		if (cfg->bot[i + 1] > m->width_max)
			m->width_max = cfg->bot[i + 1];
	}
	in = reis_dlrm_interaction_dim(cfg);
	for (i = 0; i < m->ntop && !ret; i++) {
		ret = rf_layer_init(&m->top[i], in, cfg->top[i], &rng);
		in = cfg->top[i];
		if (in > m->width_max)
			m->width_max = in;
	}
	if (ret) {
		reis_dlrm_close(m);
		return ret;
	}
	*out = m;
	return 0;
}

const struct reis_dlrm_cfg *reis_dlrm_cfg_of(const struct reis_dlrm *m)
{
	return m ? &m->cfg : NULL;
}

static void rf_fc(const struct rf_layer *l, const float *x, float *y, int relu)
{
	uint32_t o, i;

	for (o = 0; o < l->out; o++) {
		const float *w = l->w + (uint64_t)o * l->in;
		float s = l->b[o];

		for (i = 0; i < l->in; i++)
			s += w[i] * x[i];
		y[o] = relu && s < 0.0f ? 0.0f : s;
	}
}

int reis_dlrm_forward(const struct reis_dlrm *m, uint32_t batch, const float *dense,
		      const float *const *emb, float *out)
{
	const struct reis_dlrm_cfg *c;
	float *a, *b, *z, *t;
	uint32_t s, i, j, k, d, T;

	if (!m || !batch || !dense || !emb || !out)
		return -EINVAL;
	c = &m->cfg;
	for (i = 0; i < c->ntables; i++)
		if (!emb[i])
			return -EINVAL;
	T = c->ntables + 1;
	a = malloc(sizeof(float) * m->width_max);
	b = malloc(sizeof(float) * m->width_max);
	if (!a || !b) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	for (s = 0; s < batch; s++) {
		const float *x = dense + (uint64_t)s * c->bot[0];

		/* Bottom MLP, ReLU after every layer (DLRM's sigmoid_bot = -1). */
		memcpy(a, x, sizeof(float) * c->bot[0]);
		for (i = 0; i < m->nbot; i++) {
			rf_fc(&m->bot[i], a, b, 1);
			t = a, a = b, b = t;
		}
		/* Interaction into b: [bottom, dots of the lower triangle] or cat. */
		z = b;
		memcpy(z, a, sizeof(float) * c->dim);
		if (c->interaction == REIS_DLRM_CAT) {
			for (i = 0; i < c->ntables; i++)
				memcpy(z + (uint64_t)(i + 1) * c->dim,
				       emb[i] + (uint64_t)s * c->dim, sizeof(float) * c->dim);
		} else {
			k = c->dim;
			for (i = 1; i < T; i++) {
				const float *vi = emb[i - 1] + (uint64_t)s * c->dim;

				for (j = 0; j < i; j++) {
					const float *vj = j ? emb[j - 1] + (uint64_t)s * c->dim : a;
					float dot = 0.0f;

					for (d = 0; d < c->dim; d++)
						dot += vi[d] * vj[d];
					z[k++] = dot;
				}
			}
		}
		t = a, a = b, b = t;
		/* Top MLP: ReLU between layers, sigmoid at the end. */
		for (i = 0; i < m->ntop; i++) {
			rf_fc(&m->top[i], a, b, i + 1 < m->ntop);
			t = a, a = b, b = t;
		}
		out[s] = 1.0f / (1.0f + expf(-a[0]));
	}
	free(a);
	free(b);
	return 0;
}
