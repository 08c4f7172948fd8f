/* SPDX-License-Identifier: MIT */
/*
 * test_lib_async - many requests in flight: 64 mixed commands (NOOP, ECHO
 * in both directions, IDENTIFY) submitted at once complete with their own
 * callbacks exactly once and their own data; the same with 256 in flight
 * on worker threads (completions in any order); queue-full and double
 * submission are refused; callbacks may resubmit but not wait; poll limits,
 * wait timeouts, waiting for one request, delay mode holding completions
 * for the modeled time, and close with requests in flight.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "libreis.h"

struct slot {
	struct reis_req req;
	unsigned idx;
	unsigned calls;
	uint8_t *buf;
	uint32_t len;
	uint32_t seed;
};

static unsigned total_calls;

static void slot_cb(struct reis_req *req, void *arg)
{
	struct slot *s = arg;

	CHECK(req == &s->req);	/* results never mixed */
	CHECK(!reis_req_inflight(req));
	s->calls++;
	total_calls++;
}

static void prep_slot(struct slot *s, unsigned i, uint32_t max)
{
	s->idx = i;
	s->calls = 0;
	s->seed = 0x1000 + 2 * i;
	switch (i % 4) {
	case 0:
		reis_prep_noop(&s->req);
		break;
	case 1:
		s->len = 4u * (1 + (i * 977u) % (max / 4));
		reis_prep_echo(&s->req, REIS_DIR_C2H, s->seed, s->buf, s->len);
		memset(s->buf, 0, s->len);
		break;
	case 2:
		s->len = 4u * (1 + (i * 1231u) % (max / 4));
		reis_pattern(s->seed, s->buf, s->len);
		reis_prep_echo(&s->req, REIS_DIR_H2C, s->seed, s->buf, s->len);
		break;
	default:
		reis_prep_identify(&s->req, s->buf);
		break;
	}
	reis_req_set_cb(&s->req, slot_cb, s);
}

static void verify_slot(struct slot *s, uint8_t *ref)
{
	struct reis_info in;

	CHECK_EQ_U64(s->calls, 1);
	CHECK_EQ_U64(s->req.cpl.err, 0);
	CHECK_EQ_U64(s->req.cpl.status, 0);
	CHECK(s->req.cpl.time_ns > 0);
	switch (s->idx % 4) {
	case 1:
		reis_pattern(s->seed, ref, s->len);
		CHECK(memcmp(ref, s->buf, s->len) == 0);
		break;
	case 3:
		CHECK(reis_info_decode(s->buf, REIS_IDENTIFY_LEN, &in) == 0);
		break;
	}
}

static void run_many(struct reis_dev *dev, unsigned n)
{
	uint32_t max = 64 * 1024;
	struct slot *slots = calloc(n, sizeof(*slots));
	struct reis_req **ptrs = calloc(n, sizeof(*ptrs));
	uint8_t *ref = malloc(max);
	unsigned i, got = 0;
	int ret;

	REQUIRE(slots && ptrs && ref);
	for (i = 0; i < n; i++) {
		slots[i].buf = malloc(max);
		REQUIRE(slots[i].buf);
		prep_slot(&slots[i], i, max);
		ptrs[i] = &slots[i].req;
	}
	total_calls = 0;
	CHECK_EQ_U64(reis_submitv(dev, ptrs, n), n);
	CHECK_EQ_U64(reis_inflight(dev), n);
	/* A full queue refuses more; so does a request already in flight. */
	{
		struct reis_req extra;

		reis_prep_noop(&extra);
		CHECK(reis_submit(dev, &extra) == -EBUSY);
		CHECK(reis_submit(dev, &slots[0].req) == -EBUSY);
	}
	while (got < n) {
		ret = reis_wait(dev, 1, 10000);
		REQUIRE(ret > 0);
		got += (unsigned)ret;
	}
	CHECK_EQ_U64(got, n);
	CHECK_EQ_U64(total_calls, n);
	CHECK_EQ_U64(reis_inflight(dev), 0);
	for (i = 0; i < n; i++) {
		verify_slot(&slots[i], ref);
		free(slots[i].buf);
	}
	CHECK(reis_wait(dev, 1, 0) == 0);	/* nothing in flight */
	free(slots);
	free(ptrs);
	free(ref);
}

/* A callback that resubmits its request until a count is reached. */
struct chain {
	struct reis_dev *dev;
	unsigned left, calls;
	int wait_ret, exec_ret;
};

static void chain_cb(struct reis_req *req, void *arg)
{
	struct chain *c = arg;
	struct reis_req tmp;

	c->calls++;
	CHECK_EQ_U64(req->cpl.err, 0);
	if (c->calls == 1) {
		c->wait_ret = reis_wait(c->dev, 1, 0);
		reis_prep_noop(&tmp);
		c->exec_ret = reis_exec(c->dev, &tmp);
	}
	if (--c->left) {
		reis_prep_noop(req);
		reis_req_set_cb(req, chain_cb, c);
		CHECK(reis_submit(c->dev, req) == 0);
	}
}

static void run_chain(struct reis_dev *dev)
{
	struct chain c = { dev, 1000, 0, 0, 0 };
	struct reis_req req;

	reis_prep_noop(&req);
	reis_req_set_cb(&req, chain_cb, &c);
	REQUIRE(reis_submit(dev, &req) == 0);
	while (reis_inflight(dev))
		REQUIRE(reis_wait(dev, 1, 10000) > 0);
	CHECK_EQ_U64(c.calls, 1000);
	CHECK(c.wait_ret == -EDEADLK);
	CHECK(c.exec_ret == -EDEADLK);
}

static void run_poll_and_wait_req(struct reis_dev *dev, int inline_exec)
{
	struct reis_req r[10];
	unsigned i;
	int n;

	for (i = 0; i < 10; i++) {
		reis_prep_noop(&r[i]);
		REQUIRE(reis_submit(dev, &r[i]) == 0);
	}
	n = reis_poll(dev, 3);
	/* Inline, all ten are complete; with workers some may not be yet. */
	CHECK(inline_exec ? n == 3 : n >= 0 && n <= 3);
	CHECK_EQ_U64(reis_inflight(dev), 10 - (unsigned)n);
	CHECK(reis_wait_req(dev, &r[9], 10000) == 0);
	CHECK(!reis_req_inflight(&r[9]));
	while (reis_inflight(dev))
		reis_poll(dev, 0);
	for (i = 0; i < 10; i++)
		CHECK(!reis_req_inflight(&r[i]));
	/* Waiting for a request never submitted here. */
	reis_prep_noop(&r[0]);
	CHECK(reis_wait_req(dev, &r[0], 0) == -EINVAL);
}

static void run_delay(void)
{
	struct reis_inproc_opts o;
	struct reis_dev *dev;
	struct reis_req r;

	memset(&o, 0, sizeof(o));
	o.flags = REIS_INPROC_DELAY;
	o.params = "ctrl_cmd=60ms";
	REQUIRE(reis_open_inproc(&o, &dev) == 0);
	CHECK(reis_dev_info(dev)->caps & REIS_CAP_TIMING_DELAY);
	reis_prep_noop(&r);
	REQUIRE(reis_submit(dev, &r) == 0);
	CHECK(reis_poll(dev, 0) == 0);			/* not due yet */
	CHECK(reis_wait(dev, 1, 5) == -ETIME);		/* still not due */
	CHECK(reis_wait_req(dev, &r, 10000) == 0);
	CHECK(r.cpl.time_ns >= 60000000);
	CHECK(r.cpl.host_ns >= r.cpl.time_ns);
	reis_close(dev);

	/* With workers too. */
	o.workers = 2;
	REQUIRE(reis_open_inproc(&o, &dev) == 0);
	CHECK(reis_noop(dev) == 0);
	CHECK(reis_last_cpl(dev)->host_ns >= 60000000);
	reis_close(dev);
}

static void run_close_inflight(void)
{
	struct reis_inproc_opts o;
	struct reis_dev *dev;
	struct slot s[8];
	unsigned i;

	memset(&o, 0, sizeof(o));
	o.workers = 3;
	REQUIRE(reis_open_inproc(&o, &dev) == 0);
	for (i = 0; i < 8; i++) {
		reis_prep_noop(&s[i].req);
		s[i].calls = 0;
		reis_req_set_cb(&s[i].req, slot_cb, &s[i]);
		REQUIRE(reis_submit(dev, &s[i].req) == 0);
	}
	reis_close(dev);	/* waits, runs no callback */
	for (i = 0; i < 8; i++)
		CHECK_EQ_U64(s[i].calls, 0);
}

int main(void)
{
	struct reis_inproc_opts o;
	struct reis_dev *dev;

	/* Inline execution, queue depth 64. */
	memset(&o, 0, sizeof(o));
	o.qdepth = 64;
	REQUIRE(reis_open_inproc(&o, &dev) == 0);
	CHECK_EQ_U64(reis_qdepth(dev), 64);
	run_many(dev, 64);
	run_chain(dev);
	run_poll_and_wait_req(dev, 1);
	reis_close(dev);

	/* Worker threads, 256 in flight, completions in any order. */
	o.qdepth = 256;
	o.workers = 4;
	REQUIRE(reis_open_inproc(&o, &dev) == 0);
	run_many(dev, 256);
	run_many(dev, 256);
	run_chain(dev);
	run_poll_and_wait_req(dev, 0);
	reis_close(dev);

	run_delay();
	run_close_inflight();
	return t_result();
}
