/* SPDX-License-Identifier: MIT */
/*
 * test_lib_open - opening drives: in-process with presets, parameters and
 * max_xfer; identify fields equal the preset the drive was built from;
 * clones share the drive; bad options, paths and queue depths
 * (reis_open_qd) fail with the documented errno; discovery runs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "flash_preset.h"
#include "libreis.h"

static void check_matches_preset(const struct reis_info *in, const char *name,
				 const char *params)
{
	struct fp_params p;
	char err[128];
	unsigned m;

	REQUIRE(fp_preset(name, &p) == 0);
	if (params)
		REQUIRE(fp_apply(&p, params, err, sizeof(err)) == 0);
	CHECK(strcmp(in->preset, name) == 0);
	CHECK_EQ_U64(in->ver_major, 1);
	CHECK_EQ_U64(in->channels, p.channels);
	CHECK_EQ_U64(in->dies_per_channel, p.dies_per_channel);
	CHECK_EQ_U64(in->planes_per_die, p.planes_per_die);
	CHECK_EQ_U64(in->blocks_per_plane, p.blocks_per_plane);
	CHECK_EQ_U64(in->pages_per_block, p.pages_per_block);
	CHECK_EQ_U64(in->page_bytes, p.page_bytes);
	CHECK_EQ_U64(in->oob_bytes, p.oob_bytes);
	CHECK_EQ_U64(in->subpage_bytes, p.subpage_bytes);
	CHECK_EQ_U64(in->cores, p.cores);
	CHECK_EQ_U64(in->core_mhz, p.core_mhz);
	CHECK_EQ_U64(in->link_mbps, p.link_mbps);
	CHECK_EQ_U64(in->channel_mbps, p.channel_mbps);
	CHECK_EQ_U64(in->dram_bytes, p.dram_bytes);
	CHECK_EQ_U64(in->ctrl_cmd_ns, p.ctrl_cmd / 1000);
	CHECK_EQ_U64(in->t_erase_ns, p.t_erase / 1000);
	for (m = REIS_CELL_SLC; m <= REIS_CELL_QLC; m++) {
		CHECK_EQ_U64(in->t_read_ns[m], p.t_read[m] / 1000);
		CHECK_EQ_U64(in->t_prog_ns[m], p.t_prog[m] / 1000);
	}
	CHECK(in->caps & REIS_CAP_ECHO);
	CHECK(in->caps & REIS_CAP_STATS);
	CHECK(in->nparts >= 1 && in->nparts <= REIS_MAX_PARTS);
	if (p.slc_blocks && p.native_mode != REIS_CELL_SLC) {
		CHECK_EQ_U64(in->parts[0].cell_mode, REIS_CELL_SLC);
		CHECK_EQ_U64(in->parts[0].nblocks, p.slc_blocks);
	}
	/* Partitions tile the plane's blocks. */
	{
		uint32_t sum = 0, i;

		for (i = 0; i < in->nparts; i++)
			sum += in->parts[i].nblocks;
		CHECK_EQ_U64(sum, p.blocks_per_plane);
	}
}

int main(void)
{
	struct reis_inproc_opts o;
	struct reis_dev *dev, *dev2, *clone;
	struct reis_info in;
	struct reis_stats st;
	char err[256];
	const char *const *n;
	int ret;

	/* Defaults: reis-ssd1, 512 KiB transfers. */
	REQUIRE(reis_open_inproc(NULL, &dev) == 0);
	CHECK(strcmp(reis_transport(dev), "inproc") == 0);
	CHECK_EQ_U64(reis_max_xfer(dev), REIS_INPROC_DEFAULT_XFER);
	CHECK_EQ_U64(reis_qdepth(dev), REIS_QDEPTH_DEFAULT);
	REQUIRE(reis_identify(dev, &in) == 0);
	check_matches_preset(&in, "reis-ssd1", NULL);
	CHECK(memcmp(&in, reis_dev_info(dev), sizeof(in)) == 0);
	CHECK_EQ_U64(in.max_xfer, REIS_INPROC_DEFAULT_XFER);
	CHECK(reis_last_cpl(dev)->time_ns > 0);

	/* A clone shares the modeled drive: its counters see both handles. */
	REQUIRE(reis_clone(dev, &clone) == 0);
	CHECK(strcmp(reis_transport(clone), "inproc") == 0);
	CHECK_EQ_U64(reis_max_xfer(clone), reis_max_xfer(dev));
	REQUIRE(reis_stats(dev, REIS_STATS_RESET, &st) == 0);
	CHECK(reis_noop(clone) == 0);
	CHECK(reis_noop(clone) == 0);
	CHECK(reis_noop(dev) == 0);
	REQUIRE(reis_stats(clone, 0, &st) == 0);
	/* 3 NOOPs + the resetting ISP_STATS, counted after its reset. */
	CHECK_EQ_U64(st.cmds[REIS_CLS_DEVICE], 4);
	reis_close(dev);	/* the drive lives on in the clone */
	CHECK(reis_noop(clone) == 0);
	reis_close(clone);

	/* Every preset, with overrides and a 2 MiB max_xfer. */
	for (n = fp_preset_names(); *n; n++) {
		memset(&o, 0, sizeof(o));
		o.preset = *n;
		o.params = "blocks_per_plane=32";
		o.max_xfer = REIS_MAX_XFER_CAP;
		o.errbuf = err;
		o.errlen = sizeof(err);
		ret = reis_open_inproc(&o, &dev2);
		if (ret) {
			fprintf(stderr, "%s: %s\n", *n, err);
			CHECK(ret == 0);
			continue;
		}
		REQUIRE(reis_identify(dev2, &in) == 0);
		check_matches_preset(&in, *n, o.params);
		CHECK_EQ_U64(in.blocks_per_plane, 32);
		CHECK_EQ_U64(reis_max_xfer(dev2), REIS_MAX_XFER_CAP);
		reis_close(dev2);
	}

	/* Bad options. */
	memset(&o, 0, sizeof(o));
	o.errbuf = err;
	o.errlen = sizeof(err);
	o.preset = "no-such-preset";
	err[0] = 0;
	CHECK(reis_open_inproc(&o, &dev2) == -EINVAL);	/* a bad option, as documented */
	CHECK(strstr(err, "no-such-preset") != NULL);
	CHECK(dev2 == NULL);
	o.preset = NULL;
	o.params = "channels=0";
	CHECK(reis_open_inproc(&o, &dev2) == -EINVAL);
	CHECK(strstr(err, "channels") != NULL);
	o.params = "no_such_key=1";
	CHECK(reis_open_inproc(&o, &dev2) == -EINVAL);
	o.params = NULL;
	o.max_xfer = 1000;
	CHECK(reis_open_inproc(&o, &dev2) == -EINVAL);
	o.max_xfer = REIS_MAX_XFER_CAP + 4;
	CHECK(reis_open_inproc(&o, &dev2) == -EINVAL);
	o.max_xfer = 0;
	o.workers = REIS_INPROC_MAX_WORKERS + 1;
	CHECK(reis_open_inproc(&o, &dev2) == -EINVAL);
	o.workers = 0;
	o.qdepth = REIS_QDEPTH_MAX + 1;
	CHECK(reis_open_inproc(&o, &dev2) == -EINVAL);
	o.qdepth = 0;
	o.flags = 0x80;
	CHECK(reis_open_inproc(&o, &dev2) == -EINVAL);
	o.flags = 0;
	o.rsvd[1] = 1;
	CHECK(reis_open_inproc(&o, &dev2) == -EINVAL);
	CHECK(reis_open_inproc(NULL, NULL) == -EINVAL);

	/* Paths. */
	CHECK(reis_open("/nonexistent/ng9n1", 0, &dev2) == -ENOENT);
	CHECK(reis_open("/dev/null", 0, &dev2) == -ENODEV);
	CHECK(reis_open("/dev/null", REIS_OPEN_IOCTL, &dev2) == -ENODEV);
	CHECK(reis_open("", 0, &dev2) == -EINVAL);
	CHECK(reis_open(NULL, 0, &dev2) == -EINVAL);
	CHECK(reis_open("/dev/null", 0x100, &dev2) == -EINVAL);
	CHECK(reis_open("/dev/null", REIS_OPEN_IOCTL | REIS_OPEN_URING, &dev2) == -EINVAL);
	/* reis_open_qd(): the depth is checked before the path is opened. */
	CHECK(reis_open_qd("/nonexistent/ng9n1", 0, REIS_QDEPTH_MAX + 1, &dev2) == -EINVAL);
	CHECK(reis_open_qd("/nonexistent/ng9n1", 0, 8, &dev2) == -ENOENT);
	CHECK(reis_open_qd("/dev/null", 0, REIS_QDEPTH_MAX, &dev2) == -ENODEV);
	CHECK(reis_open_qd("/dev/null", 0, 8, NULL) == -EINVAL);
	CHECK(dev2 == NULL);
	{
		char longp[200];

		memset(longp, 'a', sizeof(longp) - 1);
		longp[sizeof(longp) - 1] = 0;
		CHECK(reis_open(longp, 0, &dev2) == -EINVAL);
	}

	/* Discovery: whatever this machine has, the call is well-formed. */
	{
		struct reis_disc d[4];

		ret = reis_discover(d, 4, 0);
		CHECK(ret >= 0);
		CHECK(reis_discover(NULL, 0, 0) == ret);
		CHECK(reis_discover(NULL, 1, 0) == -EINVAL);
	}
	reis_close(NULL);
	CHECK(strcmp(reis_version(), "0.1.0") == 0);
	return t_result();
}
