/* SPDX-License-Identifier: MIT */
/*
 * test_reis_concurrency - many searches on one database at once while
 * other databases deploy, commit and get deleted: every search returns its
 * own exact result (results never mix), a delete of a searched database
 * answers ISP Busy, deploys of other databases are not disturbed.
 */
#include <pthread.h>
#include <sched.h>

#include "reis_int.h"
#include "reis_t.h"

#define NSEARCHERS 3
#define ROUNDS 30

struct shared {
	struct isp_dev *dev;
	struct t_db *db;
	struct t_query q;
	struct t_res expect[2];	/* BF with documents, IVF */
	int stop;
	int started;	/* the deployer is in its first deploy */
	int failures;
	pthread_mutex_t lock;
	uint32_t deploys;
};

static void opts(struct t_sopts *o, int ivf)
{
	memset(o, 0, sizeof(*o));
	o->did = 1;
	o->k = 10;
	o->flags = ivf ? 0 : ISP_REIS_SF_DOCS;
	o->nprobe = ivf ? 4 : 0;
}

static void *searcher(void *arg)
{
	struct shared *sh = arg;
	static uint32_t next = 1;
	uint32_t id = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED), i;

	/* On a loaded host the searchers could finish before the deployer
	 * ever runs; wait for it so at least one deploy overlaps them. */
	while (!__atomic_load_n(&sh->started, __ATOMIC_ACQUIRE))
		sched_yield();
	for (i = 0; i < ROUNDS; i++) {
		int ivf = (int)((i + id) % 2);
		struct t_sopts o;
		struct t_res r;
		const struct t_res *x = &sh->expect[ivf];
		uint16_t st;

		opts(&o, ivf);
		st = t_search_ticket(sh->dev, ivf, &o, &sh->q, id * 1000 + i, &r);
		pthread_mutex_lock(&sh->lock);
		if (st || r.len != x->len || memcmp(r.blob + 64, x->blob + 64, r.len - 64)) {
			fprintf(stderr, "searcher %u round %u: st 0x%x or result differs\n", id, i, st);
			sh->failures++;
		}
		pthread_mutex_unlock(&sh->lock);
		t_res_free(&r);
	}
	return NULL;
}

/* Deploys, commits, searches and deletes other databases meanwhile. */
static void *deployer(void *arg)
{
	struct shared *sh = arg;
	uint32_t i;

	for (i = 0; (i == 0 || !__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE)) && i < 50; i++) {
		struct t_db d;
		uint16_t st;

		__atomic_store_n(&sh->started, 1, __ATOMIC_RELEASE);
		t_db_make(&d, 100 + i % 3, ISP_REIS_BF, 256, 300, 0, ISP_REIS_DBF_INT8,
			  ISP_REIS_DOC_SUBPAGE, 4096, 77 + i);
		st = t_deploy(sh->dev, &d, 8192);
		if (!st)
			st = t_nodata(sh->dev, ISP_OP_REIS_DB_DELETE, d.c.did);
		pthread_mutex_lock(&sh->lock);
		if (st) {
			fprintf(stderr, "deployer %u: st 0x%x\n", i, st);
			sh->failures++;
		}
		sh->deploys++;
		pthread_mutex_unlock(&sh->lock);
		t_db_free(&d);
	}
	return NULL;
}

extern const struct isp_engine isp_engine_reis;

int main(void)
{
	struct shared sh;
	struct t_db db;
	pthread_t th[NSEARCHERS + 1];
	struct t_sopts o;
	struct re_eng *e;
	struct re_db *rdb;
	int i;

	memset(&sh, 0, sizeof(sh));
	pthread_mutex_init(&sh.lock, NULL);
	sh.dev = t_open("reis-ssd2", "blocks_per_plane=16;slc_blocks=8", NULL);
	REQUIRE(sh.dev);
	t_db_make(&db, 1, ISP_REIS_IVF, 512, 6000, 32, ISP_REIS_DBF_INT8, ISP_REIS_DOC_SUBPAGE,
		  4096, 3);
	sh.db = &db;
	CHECK_EQ_U64(t_deploy(sh.dev, &db, 65536), 0);
	t_queries(&sh.q, &db, 4, 11);
	for (i = 0; i < 2; i++) {
		const struct t_db *dbs[1] = { &db };
		uint32_t q;

		opts(&o, i);
		CHECK_EQ_U64(t_search_ticket(sh.dev, i, &o, &sh.q, 1 + i, &sh.expect[i]), 0);
		for (q = 0; q < sh.q.nq; q++)
			CHECK(t_check_query(&sh.expect[i], q, dbs, 1, i, &o, &sh.q, 1, !i));
	}

	/* A search in flight (its reference held) makes a delete Busy. */
	e = isp_dev_engine(sh.dev, &isp_engine_reis);
	REQUIRE(e);
	pthread_mutex_lock(&e->lock);
	rdb = re_find(e, 1);
	REQUIRE(rdb);
	rdb->refs++;
	pthread_mutex_unlock(&e->lock);
	CHECK_EQ_U64(t_nodata(sh.dev, ISP_OP_REIS_DB_DELETE, 1), ISP_SC_BUSY | ISP_STATUS_DNR);
	pthread_mutex_lock(&e->lock);
	rdb->refs--;
	pthread_mutex_unlock(&e->lock);

	for (i = 0; i < NSEARCHERS; i++)
		REQUIRE(pthread_create(&th[i], NULL, searcher, &sh) == 0);
	REQUIRE(pthread_create(&th[NSEARCHERS], NULL, deployer, &sh) == 0);
	for (i = 0; i < NSEARCHERS; i++)
		pthread_join(th[i], NULL);
	__atomic_store_n(&sh.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th[NSEARCHERS], NULL);
	CHECK_EQ_U64(sh.failures, 0);
	CHECK(sh.deploys > 0);
	fprintf(stderr, "%u deploys alongside %d searches\n", sh.deploys, NSEARCHERS * ROUNDS);

	t_res_free(&sh.expect[0]);
	t_res_free(&sh.expect[1]);
	t_queries_free(&sh.q);
	t_db_free(&db);
	isp_dev_close(sh.dev);
	pthread_mutex_destroy(&sh.lock);
	return t_result();
}
