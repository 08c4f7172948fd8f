/* SPDX-License-Identifier: MIT */
/*
 * test_lib_echo - data integrity in both directions at sizes from 4 bytes
 * to max_xfer (512 KiB default and the 2 MiB cap): ECHO_C2H returns exactly
 * the pattern, ECHO_H2C accepts it, a corrupted buffer is refused with ISP
 * Miscompare; modeled time is the command overhead plus host-link DMA of
 * the bytes and the completion's energy matches the drive's counters.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "isp_wire.h"
#include "libreis.h"

static void check_sizes(struct reis_dev *dev)
{
	const struct reis_info *in = reis_dev_info(dev);
	uint32_t max = reis_max_xfer(dev);
	uint32_t sizes[] = { 4, 8, 508, 512, 4096, 4100, 65536, 131072 + 12,
			     max - 4, max };
	uint8_t *buf = malloc(max), *ref = malloc(max);
	struct reis_stats a, b;
	uint64_t stats_pj;
	unsigned i, k;

	REQUIRE(buf && ref);
	/* Energy of one ISP_STATS (each counts itself after its snapshot). */
	REQUIRE(reis_stats(dev, 0, &a) == 0);
	REQUIRE(reis_stats(dev, 0, &b) == 0);
	stats_pj = b.energy_pj - a.energy_pj;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t len = sizes[i];

		for (k = 0; k < 2; k++) {
			enum reis_dir dir = k ? REIS_DIR_C2H : REIS_DIR_H2C;
			struct reis_stats s0, s1;
			struct reis_cpl cpl;
			uint64_t link_ns, pj;

			REQUIRE(reis_stats(dev, 0, &s0) == 0);
			memset(buf, 0xa5, len);
			/* Let the modeled link drain so nothing queues ahead. */
			usleep(1000);
			CHECK(reis_echo(dev, dir, 1000 + i, buf, len) == 0);
			cpl = *reis_last_cpl(dev);
			REQUIRE(reis_stats(dev, 0, &s1) == 0);
			if (dir == REIS_DIR_C2H) {
				reis_pattern(1000 + i, ref, len);
				CHECK(memcmp(buf, ref, len) == 0);
				/* s0's ISP_STATS moved its 4 KiB after its snapshot. */
				CHECK_EQ_U64(s1.link_bytes_c2h - s0.link_bytes_c2h,
					     len + REIS_STATS_LEN);
			} else {
				CHECK_EQ_U64(s1.link_bytes_h2c - s0.link_bytes_h2c, len);
			}
			/* Overhead + DMA at link_mbps (MB/s = bytes/us), rounded up. */
			link_ns = (uint64_t)len * 1000u / in->link_mbps;
			CHECK(cpl.time_ns >= in->ctrl_cmd_ns + link_ns);
			CHECK(cpl.time_ns <= in->ctrl_cmd_ns + link_ns + 1);
			CHECK_EQ_U64(cpl.time_ns, isp_wire_result_time_ns(cpl.result));
			/* Energy: the drive's exact picojoules, floored to nJ, encoded. */
			pj = s1.energy_pj - s0.energy_pj - stats_pj;
			CHECK(len < 1000 || cpl.energy_nj > 0);
			CHECK_EQ_U64(cpl.energy_nj,
				     isp_wire_result_energy_nj(isp_wire_result_pack(0, pj / 1000)));
			CHECK_EQ_U64(cpl.energy_nj, isp_wire_result_energy_nj(cpl.result));
		}
	}
	/* NULL buffer: libreis allocates. */
	CHECK(reis_echo(dev, REIS_DIR_C2H, 7, NULL, max) == 0);
	CHECK(reis_echo(dev, REIS_DIR_H2C, 7, NULL, max) == 0);
	free(buf);
	free(ref);
}

/* H2C of data that is not the pattern: the drive answers ISP Miscompare. */
static void check_miscompare(struct reis_dev *dev)
{
	uint32_t len = 8192;
	uint8_t *buf = malloc(len);
	struct reis_req req;

	REQUIRE(buf);
	reis_pattern(42, buf, len);
	buf[len - 1] ^= 1;
	reis_prep_echo(&req, REIS_DIR_H2C, 42, buf, len);
	CHECK(reis_exec(dev, &req) == -EILSEQ);
	CHECK_EQ_U64(req.cpl.status, REIS_SC_MISCOMPARE | REIS_STATUS_DNR);
	CHECK(strstr(reis_last_error(dev), "ISP Miscompare") != NULL);
	CHECK(strstr(reis_last_error(dev), "ISP_ECHO_H2C") != NULL);
	/* Wrong seed: same. */
	reis_pattern(42, buf, len);
	reis_prep_echo(&req, REIS_DIR_H2C, 44, buf, len);	/* 43 | 1 == 42 | 1 */
	CHECK(reis_exec(dev, &req) == -EILSEQ);
	/* Right data: fine. */
	reis_prep_echo(&req, REIS_DIR_H2C, 42, buf, len);
	CHECK(reis_exec(dev, &req) == 0);
	free(buf);
}

int main(void)
{
	struct reis_inproc_opts o;
	struct reis_dev *dev;

	REQUIRE(reis_open_inproc(NULL, &dev) == 0);
	check_sizes(dev);
	check_miscompare(dev);
	reis_close(dev);

	memset(&o, 0, sizeof(o));
	o.max_xfer = REIS_MAX_XFER_CAP;
	REQUIRE(reis_open_inproc(&o, &dev) == 0);
	CHECK_EQ_U64(reis_max_xfer(dev), REIS_MAX_XFER_CAP);
	check_sizes(dev);
	reis_close(dev);
	return t_result();
}
