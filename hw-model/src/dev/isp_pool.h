/* SPDX-License-Identifier: MIT */
/*
 * isp_pool.h - the drive's host worker set: helper threads that run the
 * host work of one command beside the thread executing it, so a long
 * command uses several host cores (docs/architecture.md "Threads and
 * locks"). Not installed.
 *
 * A job is a numbered list of tasks 0..n-1, each a call fn(arg, worker,
 * task). They are handed out in order, to the job's owner (the thread
 * that executes the command, worker 0) whenever it waits, and to the
 * helpers (workers 1..size-1), up to a limit the owner raises as it
 * consumes their results (a window, so a job's memory stays bounded). The
 * tasks are pure host work: a command issues its timing calls itself, in
 * its own order, so its modeled time, results and energy do not depend on
 * which thread ran what (reis_run.c).
 *
 * The helpers are started by the first job posted, from the thread that
 * posts it: they inherit its scheduling priority (the QEMU glue's workers
 * run at nice 10, so the helpers do too). A pool of size 1 has no helpers:
 * the owner runs every task itself.
 */
#ifndef ISP_POOL_H
#define ISP_POOL_H

#include <pthread.h>
#include <stdint.h>

#define ISP_POOL_MAX 16u	/* threads of a worker set at most */

struct isp_pool;

typedef void (*isp_task_fn)(void *arg, unsigned worker, uint32_t task);

struct isp_job {
	isp_task_fn fn;
	void *arg;
	uint32_t n;		/* tasks */
	uint32_t limit;		/* tasks below it may be taken */
	uint32_t next;		/* the next one to hand out */
	uint8_t *done;		/* per task, set once it has returned */
	unsigned inside;	/* helpers running one of its tasks */
	int posted, retired;
	struct isp_job *qnext;	/* the pool's list of jobs with tasks */
	pthread_cond_t cv;	/* a task of it finished */
};

/* A pool of @threads threads in all (the caller counts as one; at most
 * ISP_POOL_MAX); none is started yet. */
int isp_pool_open(unsigned threads, struct isp_pool **out);
/* Stop and join the helpers; no job may be in flight. NULL is a no-op. */
void isp_pool_close(struct isp_pool *p);
/* Threads a job can use: the owner and the helpers (1 for NULL). */
unsigned isp_pool_size(const struct isp_pool *p);

/* A job of @n tasks; @done: @n bytes the pool sets as tasks finish. */
void isp_job_init(struct isp_job *j, isp_task_fn fn, void *arg, uint32_t n, uint8_t *done);
/* Let the helpers take tasks below @limit (the owner's window); the first
 * call posts the job (and starts the helpers). @p NULL: nothing to post. */
int isp_job_allow(struct isp_pool *p, struct isp_job *j, uint32_t limit);
/* The owner: until task @task has finished, run the next tasks below the
 * limit itself (as worker 0), else wait for a helper to finish one. */
void isp_job_wait(struct isp_pool *p, struct isp_job *j, uint32_t task);
/* Any task: wait (without taking work) until task @task has finished; it
 * must already have been handed out. */
void isp_job_wait_other(struct isp_pool *p, struct isp_job *j, uint32_t task);
/* The owner, at the end or on an error: hand out nothing more, wait for
 * the helpers inside the job to leave it. */
void isp_job_retire(struct isp_pool *p, struct isp_job *j);

#endif /* ISP_POOL_H */
