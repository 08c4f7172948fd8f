/* SPDX-License-Identifier: MIT */
/*
 * test_isp_share.c - fair shares (isp_share.h, docs/security.md "Fair
 * shares"), on the policy object and on the two capacities of the drive
 * that use it:
 *  - a lone user stops at three quarters; a newcomer gets the last quarter
 *    at once; a user over C/n gets no more while others are active; one
 *    that holds nothing may take what is free, however large; a waiting
 *    user counts as active; over-gives are counted;
 *  - the buffer budget: a greedy queue holding its three quarters waits
 *    and is refused while a polite queue is served at once, and the
 *    polite queue's take stops within a poll period when its flag is set;
 *  - the result table: a greedy queue reserving tickets stops at three
 *    quarters of them; a polite queue still gets one.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "isp_budget.h"
#include "isp_result.h"
#include "isp_share.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_policy(void)
{
	struct isp_share s;

	CHECK(isp_share_init(&s, 0) == -EINVAL);
	REQUIRE(isp_share_init(&s, 800) == 0);
	/* alone: up to 600, the last 200 stay free */
	CHECK(isp_share_limit(&s, 1) == 600);
	CHECK(isp_share_take(&s, 1, 500) == 0);
	CHECK(isp_share_take(&s, 1, 100) == 0);
	CHECK(isp_share_fits(&s, 1, 1) == 0);
	CHECK(isp_share_take(&s, 1, 1) == -EAGAIN);
	CHECK_EQ_U64(s.used, 600);
	/* a newcomer finds the quarter at once; now each share is C/2 */
	CHECK(isp_share_take(&s, 2, 150) == 0);
	CHECK_EQ_U64(isp_share_active(&s), 2);
	CHECK(isp_share_limit(&s, 1) == 400 && isp_share_limit(&s, 2) == 400);
	/* 1 is over its half: nothing more while 2 holds, even after 1 gives
	 * back some; 2 may grow to its half as room comes back */
	isp_share_give(&s, 1, 300);
	CHECK(isp_share_fits(&s, 1, 200) == 0);
	CHECK(isp_share_take(&s, 1, 100) == 0);	/* 300 + 100 = its half */
	CHECK(isp_share_take(&s, 2, 250) == 0);	/* 150 + 250 = its half */
	CHECK(isp_share_fits(&s, 2, 1) == 0);
	/* a third user holding nothing may take what is free */
	CHECK(isp_share_take(&s, 3, 1) == -EAGAIN);	/* nothing free */
	isp_share_give(&s, 2, 400);
	CHECK_EQ_U64(isp_share_held(&s, 2), 0);
	CHECK_EQ_U64(isp_share_active(&s), 1);
	CHECK(isp_share_take(&s, 3, 400) == 0);	/* all that is free, alone or not */
	CHECK_EQ_U64(s.used, 800);
	isp_share_give(&s, 3, 400);
	/* a waiting user is active: the holder's limit halves while it waits */
	CHECK(isp_share_limit(&s, 1) == 600);
	CHECK(isp_share_wait(&s, 4, 1) == 0);
	CHECK(isp_share_limit(&s, 1) == 400);
	CHECK(isp_share_fits(&s, 1, 1) == 0);	/* 1 holds 400 */
	CHECK(isp_share_wait(&s, 4, -1) == 0);
	CHECK_EQ_U64(isp_share_active(&s), 1);
	CHECK(isp_share_take(&s, 1, 200) == 0);
	/* gives of more than held: counted, nothing goes negative */
	isp_share_give(&s, 1, 700);
	CHECK_EQ_U64(s.errors, 1);
	CHECK_EQ_U64(s.used, 0);
	isp_share_give(&s, 9, 1);
	CHECK_EQ_U64(s.errors, 2);
	CHECK_EQ_U64(isp_share_active(&s), 0);
	isp_share_destroy(&s);
}

struct taker {
	struct isp_budget *b;
	uint64_t bytes;
	uint32_t user;
	atomic_int cancel;
	int ret;
	double took;
};

static void *take_thread(void *arg)
{
	struct taker *t = arg;
	double t0 = now_s();

	t->ret = isp_budget_take_as(t->b, t->bytes, t->user, &t->cancel);
	t->took = now_s() - t0;
	return NULL;
}

static void test_budget(void)
{
	struct isp_budget b;
	struct isp_budget_stats st;
	struct taker g;
	pthread_t th;
	double t0, set;
	int i;

	REQUIRE(isp_budget_init(&b, 256) == 0);
	/* the greedy queue 1 takes 64-byte pieces until refused */
	for (i = 0; i < 3; i++)
		CHECK(isp_budget_take_as(&b, 64, 1, NULL) == 0);
	t0 = now_s();
	CHECK(isp_budget_take_as(&b, 64, 1, NULL) == -EAGAIN);	/* its 3/4 */
	CHECK(now_s() - t0 >= ISP_BUDGET_WAIT_MS / 1000.0 * 0.9);
	/* the polite queue 2 is served at once */
	t0 = now_s();
	CHECK(isp_budget_take_as(&b, 64, 2, NULL) == 0);
	printf("polite queue's take beside a greedy one: %.3f ms\n", (now_s() - t0) * 1e3);
	/* greedy waits; 2 gives back, but greedy alone is at its three
	 * quarters: still refused */
	memset(&g, 0, sizeof(g));
	g.b = &b;
	g.bytes = 64;
	g.user = 1;
	REQUIRE(pthread_create(&th, NULL, take_thread, &g) == 0);
	usleep(20000);
	isp_budget_give_as(&b, 64, 2);
	pthread_join(th, NULL);
	CHECK(g.ret == -EAGAIN);
	/* a waiter whose stop flag is set leaves within a poll period */
	memset(&g, 0, sizeof(g));
	g.b = &b;
	g.bytes = 200;
	g.user = 3;
	REQUIRE(pthread_create(&th, NULL, take_thread, &g) == 0);
	usleep(30000);
	set = now_s();
	atomic_store(&g.cancel, 1);
	pthread_join(th, NULL);
	CHECK(g.ret == -ECANCELED);
	printf("budget wait stopped %.3f ms after the flag (the wait is %d ms)\n",
	       (now_s() - set) * 1e3, ISP_BUDGET_WAIT_MS);
	CHECK(now_s() - set < ISP_BUDGET_WAIT_MS / 1000.0 / 4);
	isp_budget_give_as(&b, 192, 1);
	isp_budget_get_stats(&b, &st);
	CHECK_EQ_U64(st.used, 0);
	CHECK_EQ_U64(st.errors, 0);
	CHECK_EQ_U64(st.users, 0);
	isp_budget_destroy(&b);
}

static void test_results(void)
{
	struct isp_results r;
	uint32_t t, got = 0;

	isp_results_init(&r, 64, 1u << 20);
	for (t = 1; t <= 64; t++)
		if (isp_results_reserve(&r, t, 16, 1) == 0)
			got++;
	CHECK_EQ_U64(got, 48);	/* 64 - 64/4 */
	CHECK(isp_results_reserve(&r, 100, 16, 1) == -EAGAIN);
	CHECK(isp_results_reserve(&r, 101, 16, 2) == 0);	/* polite: at once */
	/* bytes too: one queue holds at most 3/4 of max_result_bytes */
	CHECK(isp_results_reserve(&r, 200, (1u << 20) / 2, 3) == 0);	/* held 0 */
	CHECK(isp_results_reserve(&r, 201, 1, 3) == -EAGAIN);	/* over 1/3 */
	for (t = 1; t <= 48; t++)
		isp_results_cancel(&r, t);
	isp_results_cancel(&r, 101);
	isp_results_cancel(&r, 200);
	CHECK(r.count == 0 && r.bytes == 0);
	CHECK_EQ_U64(r.tickets.used + r.byte_share.used, 0);
	CHECK_EQ_U64(r.tickets.errors + r.byte_share.errors, 0);
	isp_results_destroy(&r);
}

int main(void)
{
	test_policy();
	test_budget();
	test_results();
	return t_result();
}
