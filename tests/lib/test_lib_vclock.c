/* SPDX-License-Identifier: MIT */
/*
 * test_lib_vclock - the in-process drive on a virtual clock
 * (REIS_INPROC_VCLOCK): a 200 ms command completes at once in wall time,
 * each synchronous command starts where the previous one ended on the
 * drive's clock (so none queues behind another, as in delay mode), and a
 * batch of concurrent ones queues on the controller cores as it would in
 * delay mode. Without the flag the drive's clock is wall time: the same
 * back-to-back commands queue.
 */
#include <string.h>
#include <time.h>

#include "check.h"
#include "libreis.h"

#define CMD_NS 200000000ull	/* ctrl_cmd=200ms */

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct reis_dev *open_dev(uint32_t flags, uint32_t workers)
{
	struct reis_inproc_opts o;
	struct reis_dev *dev;

	memset(&o, 0, sizeof(o));
	o.params = "ctrl_cmd=200ms";
	o.flags = flags;
	o.workers = workers;
	REQUIRE(reis_open_inproc(&o, &dev) == 0);
	return dev;
}

int main(void)
{
	struct reis_dev *dev;
	struct reis_req req[8];
	uint64_t t0, max = 0;
	unsigned i, w;

	for (w = 0; w <= 2; w += 2) {
		dev = open_dev(REIS_INPROC_VCLOCK, w);
		t0 = wall_ns();
		for (i = 0; i < 8; i++) {
			CHECK(reis_noop(dev) == 0);
			/* The drive was idle: exactly the command overhead. */
			CHECK_EQ_U64(reis_last_cpl(dev)->time_ns, CMD_NS);
		}
		CHECK(wall_ns() - t0 < 8 * CMD_NS / 4);	/* no sleeping */
		/* Eight at once on three firmware cores: they queue. */
		for (i = 0; i < 8; i++) {
			reis_prep_noop(&req[i]);
			CHECK(reis_submit(dev, &req[i]) == 0);
		}
		CHECK(reis_wait(dev, 8, -1) >= 0);
		for (i = 0, max = 0; i < 8; i++) {
			CHECK_EQ_U64(req[i].cpl.status, 0);
			if (req[i].cpl.time_ns > max)
				max = req[i].cpl.time_ns;
		}
		CHECK_EQ_U64(max, 3 * CMD_NS);
		/* Then the clock is past all of them: idle again. */
		CHECK(reis_noop(dev) == 0);
		CHECK_EQ_U64(reis_last_cpl(dev)->time_ns, CMD_NS);
		reis_close(dev);
	}
	/* Annotate mode: the drive's clock is wall time, the commands queue. */
	dev = open_dev(0, 0);
	for (i = 0; i < 4; i++)
		CHECK(reis_noop(dev) == 0);
	CHECK(reis_last_cpl(dev)->time_ns > CMD_NS);
	reis_close(dev);
	return t_result();
}
