/* SPDX-License-Identifier: MIT */
/*
 * isp_pool.c - the drive's host worker set (isp_pool.h): helpers that take
 * the tasks of posted jobs in order, under one mutex; the owner of a job
 * runs its tasks too while it waits for a result.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "isp_pool.h"

struct isp_pool {
	pthread_mutex_t lock;
	pthread_cond_t cv_work;		/* a job was posted or its limit rose */
	pthread_t thr[ISP_POOL_MAX];
	unsigned size, nthr;		/* threads in all; helpers started */
	int started, stop;
	struct isp_job *jobs;		/* posted, not retired */
};

/* What a helper starts with: its pool and its worker number. */
struct isp_helper {
	struct isp_pool *p;
	unsigned id;
};

int isp_pool_open(unsigned threads, struct isp_pool **out)
{
	struct isp_pool *p;

	*out = NULL;
	if (!threads || threads > ISP_POOL_MAX)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cv_work, NULL);
	p->size = threads;
	*out = p;
	return 0;
}

unsigned isp_pool_size(const struct isp_pool *p)
{
	return p ? p->size : 1;
}

/* A job with a task to hand out, or NULL (lock held). */
static struct isp_job *isp_pool_find(struct isp_pool *p)
{
	struct isp_job *j;

	for (j = p->jobs; j; j = j->qnext)
		if (!j->retired && j->next < j->limit && j->next < j->n)
			return j;
	return NULL;
}

/* Run task @t of @j as @worker, then mark it done (lock held on entry and
 * exit, dropped while it runs). */
static void isp_pool_run(pthread_mutex_t *lock, struct isp_job *j, unsigned worker, uint32_t t)
{
	if (lock)
		pthread_mutex_unlock(lock);
	j->fn(j->arg, worker, t);
	if (lock)
		pthread_mutex_lock(lock);
	j->done[t] = 1;
	if (lock)
		pthread_cond_broadcast(&j->cv);
}

static void *isp_pool_helper(void *arg)
{
	struct isp_helper *h = arg;
	struct isp_pool *p = h->p;
	unsigned id = h->id;
	struct isp_job *j;

	free(h);
	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		uint32_t t;

		j = isp_pool_find(p);
		if (!j) {
			pthread_cond_wait(&p->cv_work, &p->lock);
			continue;
		}
		t = j->next++;
		j->inside++;
		isp_pool_run(&p->lock, j, id, t);
		j->inside--;
		if (j->retired && !j->inside)
			pthread_cond_broadcast(&j->cv);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* Start the helpers from this thread (lock held): they inherit its
 * priority. One that cannot start leaves the others (and the owner). */
static void isp_pool_start(struct isp_pool *p)
{
	unsigned i;

	p->started = 1;
	for (i = 1; i < p->size; i++) {
		struct isp_helper *h = malloc(sizeof(*h));

		if (!h)
			break;
		h->p = p;
		h->id = i;
		if (pthread_create(&p->thr[p->nthr], NULL, isp_pool_helper, h)) {
			free(h);
			break;
		}
		p->nthr++;
	}
}

void isp_pool_close(struct isp_pool *p)
{
	unsigned i;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_broadcast(&p->cv_work);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < p->nthr; i++)
		pthread_join(p->thr[i], NULL);
	pthread_cond_destroy(&p->cv_work);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

void isp_job_init(struct isp_job *j, isp_task_fn fn, void *arg, uint32_t n, uint8_t *done)
{
	memset(j, 0, sizeof(*j));
	j->fn = fn;
	j->arg = arg;
	j->n = n;
	j->done = done;
	memset(done, 0, n);
	pthread_cond_init(&j->cv, NULL);
}

int isp_job_allow(struct isp_pool *p, struct isp_job *j, uint32_t limit)
{
	if (!p || p->size < 2) {
		j->limit = limit > j->limit ? limit : j->limit;
		return 0;
	}
	pthread_mutex_lock(&p->lock);
	if (!j->posted && !j->retired) {
		j->posted = 1;
		j->qnext = p->jobs;
		p->jobs = j;
		if (!p->started)
			isp_pool_start(p);
	}
	if (limit > j->limit) {
		j->limit = limit;
		pthread_cond_broadcast(&p->cv_work);
	}
	pthread_mutex_unlock(&p->lock);
	return 0;
}

void isp_job_wait(struct isp_pool *p, struct isp_job *j, uint32_t task)
{
	pthread_mutex_t *lock = p && p->size > 1 ? &p->lock : NULL;

	if (lock)
		pthread_mutex_lock(lock);
	while (task < j->n && !j->done[task]) {
		if (!j->retired && j->next < j->limit && j->next < j->n) {
			isp_pool_run(lock, j, 0, j->next++);
			continue;
		}
		if (!lock)
			break;	/* nothing runs it: the caller's limit is wrong */
		pthread_cond_wait(&j->cv, lock);
	}
	if (lock)
		pthread_mutex_unlock(lock);
}

void isp_job_wait_other(struct isp_pool *p, struct isp_job *j, uint32_t task)
{
	if (!p || p->size < 2)
		return;	/* one thread: every earlier task has run */
	pthread_mutex_lock(&p->lock);
	while (task < j->n && !j->done[task])
		pthread_cond_wait(&j->cv, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

void isp_job_retire(struct isp_pool *p, struct isp_job *j)
{
	struct isp_job **pp;

	if (p && p->size > 1) {
		pthread_mutex_lock(&p->lock);
		j->retired = 1;
		for (pp = &p->jobs; *pp; pp = &(*pp)->qnext) {
			if (*pp == j) {
				*pp = j->qnext;
				break;
			}
		}
		while (j->inside)
			pthread_cond_wait(&j->cv, &p->lock);
		pthread_mutex_unlock(&p->lock);
	}
	j->retired = 1;
	pthread_cond_destroy(&j->cv);
}
