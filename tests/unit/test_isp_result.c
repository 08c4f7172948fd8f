/* SPDX-License-Identifier: MIT */
/*
 * test_isp_result - the ticket table behind RESULT_READ/RESULT_RELEASE:
 * duplicates refused, budgets enforced, chunked reads, release, and many
 * threads publishing and reading without mixing results.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "isp_result.h"

static uint8_t *mkblob(uint32_t ticket, size_t len)
{
	uint8_t *b = malloc(len);
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = (uint8_t)(ticket * 31u + i);
	return b;
}

static uint64_t charged;

static void on_read(void *opaque, uint64_t off, uint64_t len, void *cost)
{
	(void)opaque; (void)off;
	*(uint64_t *)cost += len;
	charged += len;
}

static void test_basic(void)
{
	struct isp_results r;
	uint8_t buf[100];
	uint64_t cost = 0;
	int64_t n;

	isp_results_init(&r, 2, 1000);
	CHECK(isp_results_reserve(&r, 0, 10, 0) == -EINVAL);
	CHECK(isp_results_reserve(&r, 7, 400, 7) == 0);
	CHECK(isp_results_reserve(&r, 7, 10, 7) == -EEXIST);
	CHECK(isp_results_reserve(&r, 8, 700, 8) == -ENOSPC);	/* bytes */
	CHECK(isp_results_read(&r, 7, 0, buf, 10, 0, NULL) == -EBUSY);
	CHECK(isp_results_read(&r, 9, 0, buf, 10, 0, NULL) == -ENOENT);
	CHECK(isp_results_publish(&r, 9, mkblob(9, 10), 10, NULL, NULL, NULL) == -ENOENT);
	CHECK(isp_results_publish(&r, 7, mkblob(7, 500), 500, NULL, NULL, NULL) == -ENOSPC);
	/* The failed publish keeps the reservation. */
	CHECK(isp_results_publish(&r, 7, mkblob(7, 250), 250, on_read, NULL, NULL) == 0);
	CHECK(isp_results_reserve(&r, 8, 700, 8) == 0);	/* 150 given back */
	CHECK(isp_results_reserve(&r, 10, 1, 10) == -ENOSPC);	/* tickets */
	n = isp_results_read(&r, 7, 200, buf, 100, 0, &cost);
	CHECK(n == 50);
	CHECK(buf[0] == (uint8_t)(7 * 31 + 200) && buf[49] == (uint8_t)(7 * 31 + 249));
	CHECK(buf[50] == 0 && buf[99] == 0);
	CHECK(cost == 50);
	CHECK(isp_results_read(&r, 7, 250, buf, 1, 0, &cost) == -EINVAL);
	CHECK(isp_results_read(&r, 7, 0, buf, 100, 1, &cost) == 100);
	CHECK(isp_results_read(&r, 7, 0, buf, 1, 0, &cost) == -ENOENT);
	isp_results_cancel(&r, 8);
	CHECK(r.count == 0 && r.bytes == 0);
	isp_results_destroy(&r);
}

#define NTHREADS 8
#define PER_THREAD 200

static struct isp_results shared;

static void *worker(void *arg)
{
	uint32_t base = (uint32_t)(uintptr_t)arg * 100000u + 1;
	uint8_t buf[300], *ref;
	uint32_t i;
	long bad = 0;

	for (i = 0; i < PER_THREAD; i++) {
		uint32_t t = base + i;
		size_t len = 1 + (t % 290);

		if (isp_results_reserve(&shared, t, len, (uint32_t)(uintptr_t)arg))
			bad++;
		if (isp_results_publish(&shared, t, mkblob(t, len), len, NULL, NULL, NULL))
			bad++;
		ref = mkblob(t, len);
		if (isp_results_read(&shared, t, 0, buf, len, 1, NULL) != (int64_t)len ||
		    memcmp(buf, ref, len))
			bad++;
		free(ref);
	}
	return (void *)bad;
}

static void test_threads(void)
{
	pthread_t th[NTHREADS];
	uintptr_t i;
	void *ret;

	isp_results_init(&shared, 64, 1u << 20);
	for (i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (i = 0; i < NTHREADS; i++) {
		pthread_join(th[i], &ret);
		CHECK(ret == NULL);
	}
	CHECK(shared.count == 0 && shared.bytes == 0);
	isp_results_destroy(&shared);
}

int main(void)
{
	test_basic();
	test_threads();
	return t_result();
}
