/* SPDX-License-Identifier: MIT */
/*
 * test_flash_preset.c - presets load and validate; key=value overrides parse
 * units exactly; bad keys and values are refused with a message.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "flash_preset.h"

int main(void)
{
	const char *const *names = fp_preset_names();
	const char *const *keys = fp_key_names();
	struct fp_params p, q;
	char err[256], buf[32];
	int i, n = 0;

	for (i = 0; names[i]; i++, n++) {
		REQUIRE(fp_preset(names[i], &p) == 0);
		CHECK(strcmp(p.name, names[i]) == 0);
		err[0] = '\0';
		CHECK(fp_validate(&p, err, sizeof(err)) == 0);
		if (err[0])
			fprintf(stderr, "%s: %s\n", names[i], err);
	}
	CHECK(n == 5);
	CHECK(fp_preset("no-such", &p) == -ENOENT);

	/* REIS Table 3. */
	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	CHECK(p.channels == 8 && p.dies_per_channel == 16 && p.planes_per_die == 2);
	CHECK(p.channel_mbps == 1200 && p.cores == 4);
	CHECK_EQ_U64(p.t_read[ISP_CELL_SLC], 22500000);
	CHECK(fp_pages_per_block(&p, ISP_CELL_SLC) * 3 == p.pages_per_block);
	CHECK(p.dram_mbps == 9600);	/* A8: the channels' 9.6 GB/s (REIS 4.3.2) */
	REQUIRE(fp_preset("reis-ssd2", &p) == 0);
	CHECK(p.channels == 16 && p.dies_per_channel == 8 && p.planes_per_die == 4);
	CHECK(p.channel_mbps == 2000);
	CHECK(p.dram_mbps == 32000);	/* A8: the channels' 32 GB/s (REIS 6.3) */
	/* RecFlash Table III. */
	REQUIRE(fp_preset("recflash-slc", &p) == 0);
	CHECK(p.page_bytes == 4096 && p.planes_per_die == 2);
	CHECK_EQ_U64(p.t_read[ISP_CELL_SLC], 25000000);
	CHECK_EQ_U64(p.e_read[ISP_CELL_SLC], 7390000);
	REQUIRE(fp_preset("recflash-tlc", &p) == 0);
	CHECK(p.page_bytes == 16384 && p.native_mode == ISP_CELL_TLC);
	CHECK_EQ_U64(p.t_read[ISP_CELL_TLC], 60000000);
	CHECK_EQ_U64(p.e_read[ISP_CELL_TLC], 69060000);
	REQUIRE(fp_preset("recflash-qlc", &p) == 0);
	CHECK_EQ_U64(p.t_read[ISP_CELL_QLC], 140000000);
	CHECK_EQ_U64(p.e_read[ISP_CELL_QLC], 110990000);

	/* Units. */
	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	CHECK(fp_set(&p, "t_read_slc", "25us") == 0);
	CHECK_EQ_U64(p.t_read[ISP_CELL_SLC], 25000000);
	CHECK(fp_set(&p, "t_wc", "0.115us") == 0);
	CHECK_EQ_U64(p.t_wc, 115000);
	CHECK(fp_set(&p, "t_rr", "20ns") == 0);
	CHECK_EQ_U64(p.t_rr, 20000);
	CHECK(fp_set(&p, "t_erase", "3.5ms") == 0);
	CHECK_EQ_U64(p.t_erase, 3500000000ull);
	CHECK(fp_set(&p, "e_read_tlc", "69.06uj") == 0);
	CHECK_EQ_U64(p.e_read[ISP_CELL_TLC], 69060000);
	CHECK(fp_set(&p, "dram_bytes", "1.5g") == 0);
	CHECK_EQ_U64(p.dram_bytes, 1536ull << 20);
	CHECK(fp_set(&p, "page_bytes", "16k") == 0);
	CHECK(p.page_bytes == 16384);
	CHECK(fp_set(&p, "channels", "16") == 0);
	CHECK(p.channels == 16);
	CHECK(fp_get(&p, "channels", buf, sizeof(buf)) == 0 && strcmp(buf, "16") == 0);
	CHECK(fp_get(&p, "t_read_slc", buf, sizeof(buf)) == 0 && strcmp(buf, "25000000") == 0);

	/* Bad values: field unchanged. */
	q = p;
	CHECK(fp_set(&p, "channels", "") == -EINVAL);
	CHECK(fp_set(&p, "channels", "-1") == -EINVAL);
	CHECK(fp_set(&p, "channels", "1.5") == -EINVAL);	/* fraction needs a unit */
	CHECK(fp_set(&p, "channels", "8x") == -EINVAL);
	CHECK(fp_set(&p, "channels", "0x10") == -EINVAL);
	CHECK(fp_set(&p, "channels", "nan") == -EINVAL);
	CHECK(fp_set(&p, "channels", "inf") == -EINVAL);
	CHECK(fp_set(&p, "channels", " 8") == -EINVAL);
	CHECK(fp_set(&p, "channels", "4294967296") == -EINVAL);	/* u32 */
	CHECK(fp_set(&p, "t_wc", "99999999999999999999") == -EINVAL);
	CHECK(fp_set(&p, "t_wc", "25kb") == -EINVAL);
	CHECK(fp_set(&p, "t_wc", "25uj") == -EINVAL);	/* energy unit on a time */
	CHECK(fp_set(&p, "t_wc", "1.") == -EINVAL);
	CHECK(fp_set(&p, "t_wc", ".5us") == -EINVAL);
	CHECK(fp_set(&p, "nope", "1") == -ENOENT);
	CHECK(fp_set(&p, "name", "x") == -ENOENT);
	CHECK(memcmp(&p, &q, sizeof(p)) == 0);

	/* fp_apply: lists, blanks, messages. */
	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	CHECK(fp_apply(&p, "blocks_per_plane=128; slc_blocks = 32,t_read_slc=30us",
		       err, sizeof(err)) == 0);
	CHECK(p.blocks_per_plane == 128 && p.slc_blocks == 32);
	CHECK_EQ_U64(p.t_read[ISP_CELL_SLC], 30000000);
	CHECK(fp_apply(&p, "", err, sizeof(err)) == 0);
	CHECK(fp_apply(&p, NULL, err, sizeof(err)) == 0);
	CHECK(fp_apply(&p, "bogus=1", err, sizeof(err)) == -ENOENT);
	CHECK(strstr(err, "bogus") != NULL);
	CHECK(fp_apply(&p, "channels", err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "key=value") != NULL);
	CHECK(fp_apply(&p, "channels=abc", err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "abc") != NULL && strstr(err, "channels") != NULL);
	CHECK(fp_apply(&p, "channels=65", err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "channels=65") != NULL && strstr(err, "[1, 64]") != NULL);
	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	CHECK(fp_apply(&p, "page_bytes=3000", err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "power of two") != NULL);
	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	CHECK(fp_apply(&p, "slc_blocks=257", err, sizeof(err)) == -EINVAL); /* > blocks_per_plane */
	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	CHECK(fp_apply(&p, "pages_per_block=100", err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "multiple") != NULL);
	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	CHECK(fp_apply(&p, "isp_cores=5", err, sizeof(err)) == -EINVAL);
	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	CHECK(fp_apply(&p, "t_ds=1ms", err, sizeof(err)) == -EINVAL);	/* Eq. 1 < 0 */
	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	CHECK(fp_apply(&p, "t_read_tlc=0", err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "t_read_tlc") != NULL);
	CHECK(fp_apply(&p, "x=1", NULL, 0) == -ENOENT);	/* no message buffer */

	/* Every key round-trips through fp_get()/fp_set(). */
	REQUIRE(fp_preset("recflash-qlc", &p) == 0);
	q = p;
	for (i = 0; keys[i]; i++) {
		CHECK(fp_get(&p, keys[i], buf, sizeof(buf)) == 0);
		CHECK(fp_set(&q, keys[i], buf) == 0);
	}
	CHECK(i >= 55);
	CHECK(memcmp(&p, &q, sizeof(p)) == 0);
	return t_result();
}
