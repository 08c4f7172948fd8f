/* SPDX-License-Identifier: MIT */
/*
 * test_flash_recflash_eq.c - RecFlash Eq. 1 and Eq. 2 with the Table I
 * parameters, exactly, through the timing engine's API:
 *   t_C/A = 0.115 us, t_DO = 2.58 us for N = 128 bytes,
 *   two vectors in two pages of one plane: 2 (t_C/A + t_R + t_DO) = 55.39 us,
 *   two vectors in one page: t_C/A + t_R + 2 t_DO = 30.275 us.
 */
#include <stdint.h>

#include "check.h"
#include "flash_timing.h"

#define US(x) ((uint64_t)((x) * 1000000.0 + 0.5))	/* us -> ps */

static uint64_t run(struct ft *ft, uint64_t submit_ns, int pages, uint32_t douts)
{
	struct ft_page_op op = { .mode = ISP_CELL_SLC, .n_dout = douts, .dout_bytes = 128 };
	struct ft_cmd cmd;
	uint64_t lat_ns;
	int i;

	ft_cmd_begin(ft, &cmd, submit_ns, NULL);
	for (i = 0; i < pages; i++)
		ft_page_read(ft, &cmd, 0, &op, 0);
	CHECK(ft_cmd_end(ft, &cmd, &lat_ns) == 0);
	CHECK_EQ_U64(lat_ns * 1000, cmd.end - cmd.start);
	return cmd.end - cmd.start;
}

int main(void)
{
	struct fp_params p;
	struct ft *ft;

	REQUIRE(fp_preset("recflash-slc", &p) == 0);
	/* Table I values as the preset carries them. */
	CHECK_EQ_U64(p.t_alh, US(0.005));
	CHECK_EQ_U64(p.t_als, US(0.01));
	CHECK_EQ_U64(p.t_ds, US(0.007));
	CHECK_EQ_U64(p.t_wc, US(0.02));
	CHECK_EQ_U64(p.t_rr, US(0.02));
	CHECK_EQ_U64(p.t_read[ISP_CELL_SLC], US(25));
	CHECK_EQ_U64(ft_t_xfer(1, p.channel_mbps), US(0.02));	/* tRC */

	CHECK_EQ_U64(ft_t_ca(&p), US(0.115));		/* Eq. 1 */
	CHECK_EQ_U64(ft_t_dout(&p, 128), US(2.58));	/* Eq. 2, N = 128 */

	REQUIRE(ft_open(&p, &ft) == 0);
	CHECK_EQ_U64(run(ft, 1000, 2, 1), US(55.39));
	/* Far later, so the previous command cannot interfere. */
	CHECK_EQ_U64(run(ft, 10000000, 1, 2), US(30.275));
	/* TLC differs by tR (Table III) and its channel: 1 GB/s (A23), so
	 * t_DO = tRR + 128 x 1 ns. */
	ft_close(ft);

	REQUIRE(fp_preset("recflash-tlc", &p) == 0);
	REQUIRE(ft_open(&p, &ft) == 0);
	{
		struct ft_page_op op = { .mode = ISP_CELL_TLC, .n_dout = 1, .dout_bytes = 128 };
		struct ft_cmd cmd;

		ft_cmd_begin(ft, &cmd, 0, NULL);
		ft_page_read(ft, &cmd, 0, &op, 0);
		CHECK(ft_cmd_end(ft, &cmd, NULL) == 0);
		CHECK_EQ_U64(cmd.end - cmd.start, US(0.115) + US(60) + US(0.148));
		CHECK_EQ_U64(cmd.energy_pj, US(69.06) + 128 * p.e_channel_byte);
	}
	ft_close(ft);
	return t_result();
}
