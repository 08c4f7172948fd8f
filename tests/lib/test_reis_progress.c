/* SPDX-License-Identifier: MIT */
/*
 * test_reis_progress - the steps of a build that take seconds on real data
 * report progress: reis_kmeans() after every iteration (as many calls as
 * iterations run, ascending, of the maximum), and reis_db_build() per stage
 * (quantize, kmeans with its iterations as fractions ending at 1, layout,
 * calibrate at 0, 0.5 after the exact top-k, 1) in that order, then done.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "libreis_tools.h"
#include "reis_synth.h"

#define DIM 64
#define N 3000

struct km_log {
	uint32_t calls, last, max;
	int ascending;
};

static void on_km(void *arg, uint32_t iter, uint32_t max_iter)
{
	struct km_log *l = arg;

	l->ascending &= iter == l->last + 1 && iter <= max_iter;
	l->last = iter;
	l->max = max_iter;
	l->calls++;
}

struct stage_log {
	char seq[512];
	double last_km;
	int km_ascending, km_steps;
};

static void on_stage(void *arg, const char *stage, double frac)
{
	struct stage_log *l = arg;
	size_t n = strlen(l->seq);

	if (!strcmp(stage, "kmeans") && frac > 0) {
		l->km_ascending &= frac > l->last_km && frac <= 1;
		l->last_km = frac;
		l->km_steps++;
		if (frac < 1)
			return;
	}
	snprintf(l->seq + n, sizeof(l->seq) - n, "%s%s:%.1f", n ? " " : "", stage, frac);
}

int main(void)
{
	float *x = synth_vectors(11, N, DIM, 20, 0.5f), *cq = synth_vectors(12, 50, DIM, 20, 0.5f);
	float *cent = malloc(sizeof(float) * 20 * DIM);
	uint32_t *assign = malloc(sizeof(uint32_t) * N);
	struct reis_kmeans_opts ko;
	struct reis_kmeans_stats st;
	struct reis_build_opts bo;
	struct reis_db_image img;
	struct km_log kl = { 0, 0, 0, 1 };
	struct stage_log sl;
	char err[256];

	REQUIRE(x && cq && cent && assign);
	memset(&ko, 0, sizeof(ko));
	ko.nlist = 20;
	ko.max_iter = 7;
	ko.seed = 3;
	ko.progress = on_km;
	ko.progress_arg = &kl;
	REQUIRE(reis_kmeans(x, N, DIM, &ko, cent, assign, &st) == 0);
	CHECK(kl.calls == st.iters && kl.calls >= 1 && kl.ascending && kl.max == 7);

	memset(&sl, 0, sizeof(sl));
	sl.km_ascending = 1;
	memset(&bo, 0, sizeof(bo));
	bo.did = 1;
	bo.kind = REIS_DB_IVF;
	bo.flags = REIS_BUILD_INT8;
	bo.nlist = 20;
	bo.km.seed = 1;
	bo.km.max_iter = 6;
	bo.km.tol = 1e-12;		/* run every iteration */
	bo.calib_queries = cq;
	bo.ncalib_queries = 50;
	bo.progress = on_stage;
	bo.progress_arg = &sl;
	if (reis_db_build(&bo, x, N, DIM, &img, err, sizeof(err)))
		fprintf(stderr, "build: %s\n", err);
	REQUIRE(img.n == N);
	printf("stages: %s (k-means steps %d)\n", sl.seq, sl.km_steps);
	CHECK(sl.km_ascending && sl.km_steps >= 2 && sl.last_km == 1);
	CHECK(strstr(sl.seq, "kmeans:0.0 kmeans:1.0") != NULL);
	CHECK(strstr(sl.seq, "calibrate:0.0 calibrate:0.5 calibrate:1.0") != NULL);
	CHECK(strstr(sl.seq, "done:1.0") != NULL);
	CHECK(strstr(sl.seq, "kmeans") < strstr(sl.seq, "calibrate"));
	reis_db_image_free(&img);
	free(x);
	free(cq);
	free(cent);
	free(assign);
	return t_result();
}
