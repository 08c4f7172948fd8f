/* SPDX-License-Identifier: MIT */
/*
 * test_lib_noop - ISP_NOOP through libreis: succeeds, its modeled time is
 * the controller's command overhead from identify (more when it queues for
 * a controller core behind earlier commands), the completion's time
 * and energy decode as isp_wire.h encodes them, the host round trip is
 * measured, and the drive counts every command.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "isp_wire.h"
#include "libreis.h"

int main(void)
{
	struct reis_stats st0, st1;
	const struct reis_cpl *cpl;
	struct reis_dev *dev;
	struct reis_req req;
	unsigned i;

	REQUIRE(reis_open_inproc(NULL, &dev) == 0);
	REQUIRE(reis_stats(dev, 0, &st0) == 0);
	for (i = 0; i < 100; i++) {
		CHECK(reis_noop(dev) == 0);
		cpl = reis_last_cpl(dev);
		CHECK_EQ_U64(cpl->status, 0);
		CHECK_EQ_U64(cpl->err, 0);
		/* Back to back, NOOPs may queue for a controller core. */
		CHECK(cpl->time_ns >= reis_dev_info(dev)->ctrl_cmd_ns);
		CHECK_EQ_U64(cpl->time_ns, isp_wire_result_time_ns(cpl->result));
		CHECK_EQ_U64(cpl->energy_nj, isp_wire_result_energy_nj(cpl->result));
		CHECK(cpl->host_ns > 0);
	}
	CHECK(strcmp(reis_last_error(dev), "") == 0);
	REQUIRE(reis_stats(dev, 0, &st1) == 0);
	/* 100 NOOPs and the first ISP_STATS, counted after its snapshot. */
	CHECK_EQ_U64(st1.cmds[REIS_CLS_DEVICE] - st0.cmds[REIS_CLS_DEVICE], 101);
	CHECK_EQ_U64(st1.errors[REIS_CLS_DEVICE], 0);
	CHECK(st1.model_ns - st0.model_ns >= 100u * reis_dev_info(dev)->ctrl_cmd_ns);

	/* The same through a prepared request and reis_exec(), with a callback. */
	/* An idle drive answers in exactly the command overhead. */
	usleep(2000);
	CHECK(reis_noop(dev) == 0);
	CHECK_EQ_U64(reis_last_cpl(dev)->time_ns, reis_dev_info(dev)->ctrl_cmd_ns);

	reis_prep_noop(&req);
	CHECK_EQ_U64(req.cmd.opcode, REIS_OP_NOOP);
	CHECK_EQ_U64(req.cmd.cdw10, 0);
	CHECK(reis_exec(dev, &req) == 0);
	CHECK(req.cpl.time_ns >= reis_dev_info(dev)->ctrl_cmd_ns);
	CHECK(!reis_req_inflight(&req));
	CHECK(memcmp(&req.cpl, reis_last_cpl(dev), sizeof(req.cpl)) == 0);
	CHECK_EQ_U64(req.cmd.nsid, 1);	/* filled from the handle */

	/* Preset with another command overhead. */
	{
		struct reis_inproc_opts o;
		struct reis_dev *d2;

		memset(&o, 0, sizeof(o));
		o.params = "ctrl_cmd=2500ns";
		REQUIRE(reis_open_inproc(&o, &d2) == 0);
		usleep(2000);
		CHECK(reis_noop(d2) == 0);
		CHECK_EQ_U64(reis_last_cpl(d2)->time_ns, 2500);
		reis_close(d2);
	}
	reis_close(dev);
	CHECK(reis_noop(NULL) == -EINVAL);
	return t_result();
}
