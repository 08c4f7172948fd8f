/* SPDX-License-Identifier: MIT */
/*
 * test_flash_dram.c - controller-DRAM budget accounting (REIS 2.3: about
 * 1 GB per TB; R-DB, R-IVF, TTLs and RecFlash maps live there).
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "flash_store.h"

static struct fs *g_fs;

static void *hammer(void *arg)
{
	const char *name = arg;
	int i;

	for (i = 0; i < 10000; i++) {
		if (fs_dram_reserve(g_fs, name, 1000) == 0)
			fs_dram_release(g_fs, name, 1000);
	}
	return NULL;
}

int main(void)
{
	struct fp_params p;
	struct fs_config cfg = { 0 };
	struct fs_dram_use use[40];
	char err[256], name[32];
	pthread_t th[2];
	struct fs *fs;
	int i, n;

	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	REQUIRE(fp_apply(&p, "dram_bytes=4m", err, sizeof(err)) == 0);
	cfg.params = &p;
	cfg.meta_max = 4096;
	REQUIRE(fs_open(&cfg, &fs, err, sizeof(err)) == 0);
	CHECK(fs_dram_budget(fs) == 4u << 20);
	CHECK(fs_dram_used(fs, NULL) == 0);

	CHECK(fs_dram_reserve(fs, "r-db", 21 * 10) == 0);
	CHECK(fs_dram_reserve(fs, "r-ivf", 15 * 16384) == 0);	/* 15 B per cluster */
	CHECK(fs_dram_reserve(fs, "r-db", 21) == 0);
	CHECK(fs_dram_used(fs, "r-db") == 231);
	CHECK(fs_dram_used(fs, "r-ivf") == 245760);
	CHECK(fs_dram_used(fs, NULL) == 245991);
	CHECK(fs_dram_used(fs, "none") == 0);
	n = fs_dram_list(fs, use, 40);
	CHECK(n == 2);
	CHECK(strcmp(use[0].name, "r-db") == 0 && use[0].bytes == 231);

	/* Over budget: refused, nothing changes. */
	CHECK(fs_dram_reserve(fs, "ttl", 4u << 20) == -ENOMEM);
	CHECK(fs_dram_used(fs, NULL) == 245991 && fs_dram_used(fs, "ttl") == 0);
	CHECK(fs_dram_reserve(fs, "ttl", (4u << 20) - 245991) == 0);
	CHECK(fs_dram_reserve(fs, "ttl", 1) == -ENOMEM);
	CHECK(fs_dram_reserve(fs, "ttl", UINT64_MAX) == -ENOMEM);

	/* Release. */
	CHECK(fs_dram_release(fs, "ttl", (4u << 20) - 245991) == 0);
	CHECK(fs_dram_release(fs, "r-db", 232) == -EINVAL);	/* more than held */
	CHECK(fs_dram_release(fs, "nope", 1) == -EINVAL);
	CHECK(fs_dram_release(fs, "r-db", 231) == 0);
	CHECK(fs_dram_list(fs, use, 40) == 1);

	/* Bad names, too many categories. */
	CHECK(fs_dram_reserve(fs, "", 1) == -EINVAL);
	CHECK(fs_dram_reserve(fs, NULL, 1) == -EINVAL);
	CHECK(fs_dram_reserve(fs, "a-name-that-is-far-too-long-for-it", 1) == -EINVAL);
	for (i = 0; i < FS_DRAM_MAX_NAMES - 1; i++) {
		snprintf(name, sizeof(name), "cat%d", i);
		CHECK(fs_dram_reserve(fs, name, 1) == 0);
	}
	CHECK(fs_dram_reserve(fs, "one-more", 1) == -ENOSPC);
	CHECK(fs_dram_release(fs, "cat3", 1) == 0);	/* frees the slot */
	CHECK(fs_dram_reserve(fs, "one-more", 1) == 0);

	/* Concurrent users keep the books balanced. */
	CHECK(fs_dram_release(fs, "cat0", 1) == 0 && fs_dram_release(fs, "cat1", 1) == 0);
	g_fs = fs;
	REQUIRE(pthread_create(&th[0], NULL, hammer, "ttl-a") == 0);
	REQUIRE(pthread_create(&th[1], NULL, hammer, "ttl-b") == 0);
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	CHECK(fs_dram_used(fs, NULL) == 245760 + FS_DRAM_MAX_NAMES - 3);
	CHECK(fs_dram_used(fs, "ttl-a") == 0 && fs_dram_list(fs, NULL, 0) == FS_DRAM_MAX_NAMES - 2);
	fs_close(fs);
	return t_result();
}
