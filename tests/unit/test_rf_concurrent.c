/* SPDX-License-Identifier: MIT */
/*
 * test_rf_concurrent - two-stage deployment under concurrency (RecFlash
 * III-C4): a REMAP runs on one thread (a QEMU worker) while SLS
 * commands run on others; every sum is exact before, during (old mapping,
 * generation 0) and after the switch (generation 1). While the remap runs,
 * DELETE, a second REMAP and SWITCH answer ISP Busy. Also run under
 * -fsanitize=thread (docs/recflash-engine.md "Locking").
 */
#include "recflash_int.h"
#include "test_rf_util.h"

#define ROWS 30000u
#define DIM 32u

static struct isp_dev *dev;
static uint8_t *table;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int in_hook, release_hook, stop;

/* Called on the remap's thread once the new mapping is built. */
static void hook(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	in_hook = 1;
	pthread_cond_broadcast(&cv);
	while (!release_hook)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}

static void *remap_thread(void *arg)
{
	uint16_t st = rt_simple(dev, ISP_OP_RF_REMAP, 1,
				ISP_RF_REMAP_FULL | ISP_RF_REMAP_SWITCH, NULL);

	(void)arg;
	return (void *)(uintptr_t)st;
}

struct sls_stats {
	uint32_t seed;
	uint64_t n, bad, gen[3];
};

static int one_sls(struct sls_stats *s)
{
	struct rt_batch b;
	struct rt_sls_out o;
	float *ref;
	int ok;

	rt_batch_random(&b, 16, 24, ROWS, s->seed & 1, s->seed);
	s->seed += 2;
	ref = malloc(4ull * b.nbags * DIM);
	REQUIRE(ref);
	rt_reference(table, ISP_RF_FP32, DIM, ISP_RF_SLS_MEAN, &b, ref);
	ok = rt_sls(dev, 1, DIM, ISP_RF_SLS_MEAN, &b, &o) == 0;
	if (ok) {
		ok = rt_same(o.v, ref, (size_t)b.nbags * DIM);
		if (o.res.generation < 3)
			s->gen[o.res.generation]++;
		free(o.v);
	}
	s->n++;
	s->bad += !ok;
	free(ref);
	rt_batch_free(&b);
	return ok;
}

static void *sls_thread(void *arg)
{
	struct sls_stats *s = arg;
	int go = 1;

	while (go) {
		one_sls(s);
		pthread_mutex_lock(&mu);
		go = !stop;
		pthread_mutex_unlock(&mu);
	}
	return NULL;
}

int main(void)
{
	struct isp_wire_rf_create cr = rt_cr(1, ROWS, DIM, ISP_RF_FP32, ISP_RF_RECFLASH);
	struct sls_stats main_st = { .seed = 11 }, bg = { .seed = 12 }, bg2 = { .seed = 14 };
	struct isp_wire_rf_stats st;
	pthread_t rt, bt, bt2;
	void *ret;
	int i;

	dev = rt_open("recflash-slc", NULL, NULL);
	table = rt_table(ROWS, DIM, ISP_RF_FP32, 3);
	REQUIRE(rt_deploy(dev, &cr, table, NULL) == 0);
	for (i = 0; i < 4; i++)
		one_sls(&main_st);			/* traffic to remap by */
	rf_set_remap_hook(dev, hook, NULL);
	REQUIRE(pthread_create(&bt, NULL, sls_thread, &bg) == 0);
	REQUIRE(pthread_create(&bt2, NULL, sls_thread, &bg2) == 0);
	REQUIRE(pthread_create(&rt, NULL, remap_thread, NULL) == 0);

	pthread_mutex_lock(&mu);
	while (!in_hook)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	/* The remap is running: the old mapping answers, conflicts are Busy. */
	CHECK_EQ_U64(rt_stats(dev, 1, 0, &st), 0);
	CHECK_EQ_U64(st.remap_state, ISP_RF_REMAP_RUNNING);
	CHECK_EQ_U64(st.generation, 0);
	for (i = 0; i < 10; i++)
		CHECK(one_sls(&main_st));
	CHECK_EQ_U64(main_st.gen[1], 0);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_TBL_DELETE, 1, 0, NULL),
		     ISP_SC_BUSY | ISP_STATUS_DNR);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_REMAP, 1, ISP_RF_REMAP_ADAPTIVE, NULL),
		     ISP_SC_BUSY | ISP_STATUS_DNR);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_SWITCH, 1, 0, NULL),
		     ISP_SC_BUSY | ISP_STATUS_DNR);
	pthread_mutex_lock(&mu);
	release_hook = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);

	REQUIRE(pthread_join(rt, &ret) == 0);
	CHECK_EQ_U64((uintptr_t)ret, 0);
	for (i = 0; i < 10; i++)
		CHECK(one_sls(&main_st));
	pthread_mutex_lock(&mu);
	stop = 1;
	pthread_mutex_unlock(&mu);
	REQUIRE(pthread_join(bt, NULL) == 0);
	REQUIRE(pthread_join(bt2, NULL) == 0);
	CHECK_EQ_U64(main_st.bad + bg.bad + bg2.bad, 0);
	CHECK(main_st.gen[1] >= 10);			/* after the switch */
	CHECK(bg.n + bg2.n > 0);
	fprintf(stderr, "sls: main %llu, background %llu + %llu (gen0 %llu, gen1 %llu)\n",
		(unsigned long long)main_st.n, (unsigned long long)bg.n,
		(unsigned long long)bg2.n,
		(unsigned long long)(bg.gen[0] + bg2.gen[0]),
		(unsigned long long)(bg.gen[1] + bg2.gen[1]));
	CHECK_EQ_U64(rt_stats(dev, 1, 0, &st), 0);
	CHECK_EQ_U64(st.generation, 1);
	CHECK_EQ_U64(st.remap_state, ISP_RF_REMAP_IDLE);
	CHECK_EQ_U64(rt_simple(dev, ISP_OP_RF_TBL_DELETE, 1, 0, NULL), 0);
	isp_dev_close(dev);
	free(table);
	return t_result();
}
