/* SPDX-License-Identifier: MIT */
/*
 * test_flash_pagemap.c - zero-copy page access (fs_page_map): in memory,
 * through the backing file's mapping and through a caller's I/O object it
 * returns what fs_read() returns (without a buffer it fails -EAGAIN only
 * where it would copy); an erased page reads 0xFF; after an erase
 * and a new program the same address shows the new bytes; bad arguments
 * fail without holding the lock; a writer waits for the reader's unmap; the
 * store's memory per programmed page does not grow. fs_page_map_parts()
 * gives each page's data and OOB as fs_read() reads them, in memory with
 * a block's pages' data back to back (one stream) and their OOB apart,
 * and reads and maps across the data/OOB boundary of a page agree;
 * fs_page_map_many() maps many ranges under one guard as fs_page_map()
 * maps each, and leaves NULL where that would copy.
 */
#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "flash_io.h"
#include "flash_store.h"

static char err[256];

static uint64_t ppa_at(const struct fg_geom *g, uint32_t blk, uint32_t pg)
{
	struct fg_addr a = { 0, 0, 0, blk, pg };
	uint64_t ppa = 0;

	REQUIRE(fg_pack(g, &a, &ppa) == 0);
	return ppa;
}

static void fill(uint8_t *b, size_t n, uint32_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)((i * 131 + seed * 7) >> 3);
}

struct writer {
	struct fs *fs;
	uint64_t ppa;
	volatile int done;
};

static void *erase_thread(void *arg)
{
	struct writer *w = arg;

	CHECK(fs_erase(w->fs, w->ppa) == 0);
	w->done = 1;
	return NULL;
}

/* Map = read, for programmed and erased pages, at offsets into the OOB. */
static void same_as_read(struct fs *fs, int copies)
{
	const struct fg_geom *g = fs_geom(fs);
	uint32_t slot = fs_slot_bytes(fs);
	uint8_t *d = malloc(slot), *rd = malloc(slot), *buf = malloc(slot);
	const uint8_t *p;
	uint64_t ppa = ppa_at(g, g->slc_blocks + 1, 0), ppa2 = ppa_at(g, g->slc_blocks + 1, 1);
	struct writer w = { fs, ppa, 0 };
	pthread_t th;

	REQUIRE(d && rd && buf);
	fill(d, slot, 1);
	REQUIRE(fs_program(fs, ppa, d, d + g->page_bytes) == 0);
	CHECK(fs_page_map(fs, ppa, 0, slot, buf, &p) == 0);
	CHECK(memcmp(p, d, slot) == 0);
	fs_page_unmap(fs);
	CHECK(fs_page_map(fs, ppa, g->page_bytes + 5, 40, buf, &p) == 0);
	CHECK(memcmp(p, d + g->page_bytes + 5, 40) == 0);
	fs_page_unmap(fs);
	CHECK(fs_read(fs, ppa, 7, rd, 1000) == 0 && memcmp(rd, d + 7, 1000) == 0);
	/* Without a buffer: a pointer in place, or -EAGAIN where it would copy. */
	if (copies) {
		CHECK(fs_page_map(fs, ppa, 0, 64, NULL, &p) == -EAGAIN);
	} else {
		CHECK(fs_page_map(fs, ppa, 0, 64, NULL, &p) == 0 && memcmp(p, d, 64) == 0);
		fs_page_unmap(fs);
	}

	/* Erased: 0xFF. */
	CHECK(fs_page_map(fs, ppa2, 0, slot, buf, &p) == 0);
	memset(rd, 0xff, slot);
	CHECK(memcmp(p, rd, slot) == 0);
	fs_page_unmap(fs);

	/* Bad arguments: an error and no lock held (the program below would
	 * wait forever otherwise). */
	CHECK(fs_page_map(fs, ppa, slot, 1, buf, &p) == -EINVAL);
	CHECK(fs_page_map(fs, ppa, 0, slot + 1, buf, &p) == -EINVAL);
	CHECK(fs_page_map(fs, UINT64_MAX, 0, 1, buf, &p) == -EINVAL);
	CHECK(fs_page_map(fs, ppa, 0, 1, buf, NULL) == -EINVAL);
	CHECK(fs_page_map(NULL, ppa, 0, 1, buf, &p) == -EINVAL);

	/* A writer waits for the reader: the erase cannot free the page while
	 * it is mapped. */
	CHECK(fs_page_map(fs, ppa, 0, slot, buf, &p) == 0);
	REQUIRE(pthread_create(&th, NULL, erase_thread, &w) == 0);
	usleep(50000);
	CHECK(!w.done);
	CHECK(memcmp(p, d, slot) == 0);
	fs_page_unmap(fs);
	pthread_join(th, NULL);
	CHECK(w.done);

	/* Erased, then programmed again: the new bytes at the same address. */
	CHECK(fs_page_map(fs, ppa, 0, slot, buf, &p) == 0);
	CHECK(p[0] == 0xff && p[slot - 1] == 0xff);
	fs_page_unmap(fs);
	fill(d, slot, 2);
	REQUIRE(fs_program(fs, ppa, d, NULL) == 0);
	CHECK(fs_page_map(fs, ppa, 0, slot, buf, &p) == 0);
	CHECK(memcmp(p, d, g->page_bytes) == 0 && p[g->page_bytes] == 0xff);
	fs_page_unmap(fs);
	free(d);
	free(rd);
	free(buf);
}

/* Data and OOB of pages 0..3 and of an erased page, each way of reading. */
static void parts(struct fs *fs, int copies, int in_memory)
{
	const struct fg_geom *g = fs_geom(fs);
	uint32_t slot = fs_slot_bytes(fs), pb = g->page_bytes, i;
	uint8_t *d = malloc(4 * (size_t)slot), *rd = malloc(slot), *buf = malloc(slot);
	const uint8_t *dp[4], *op, *p;
	uint64_t ppa;

	REQUIRE(d && rd && buf);
	fill(d, 4 * (size_t)slot, 5);
	for (i = 0; i < 4; i++)
		REQUIRE(fs_program(fs, ppa_at(g, g->slc_blocks + 3, i), d + (size_t)i * slot,
				   d + (size_t)i * slot + pb) == 0);
	for (i = 0; i < 4; i++) {
		const uint8_t *want = d + (size_t)i * slot;

		ppa = ppa_at(g, g->slc_blocks + 3, i);
		REQUIRE(fs_page_map_parts(fs, ppa, buf, &dp[i], &op) == 0);
		CHECK(memcmp(dp[i], want, pb) == 0 && memcmp(op, want + pb, slot - pb) == 0);
		fs_page_unmap(fs);
		if (copies) {
			CHECK(fs_page_map_parts(fs, ppa, NULL, &dp[i], &op) == -EAGAIN);
		} else {
			CHECK(fs_page_map_parts(fs, ppa, NULL, &dp[i], &op) == 0);
			fs_page_unmap(fs);
			/* Ranges inside the data or the OOB are pointers in place. */
			CHECK(fs_page_map(fs, ppa, 8, 64, NULL, &p) == 0 && p == dp[i] + 8);
			fs_page_unmap(fs);
			CHECK(fs_page_map(fs, ppa, pb + 3, 9, NULL, &p) == 0 && p == op + 3);
			fs_page_unmap(fs);
		}
		/* Across the boundary: read and map agree with the slot. */
		CHECK(fs_read(fs, ppa, pb - 10, rd, 30) == 0 && memcmp(rd, want + pb - 10, 30) == 0);
		CHECK(fs_read(fs, ppa, 0, rd, slot) == 0 && memcmp(rd, want, slot) == 0);
		REQUIRE(fs_page_map(fs, ppa, pb - 10, 30, buf, &p) == 0);
		CHECK(memcmp(p, want + pb - 10, 30) == 0);
		fs_page_unmap(fs);
		if (in_memory)	/* data and OOB apart: only a copy spans both */
			CHECK(fs_page_map(fs, ppa, pb - 10, 30, NULL, &p) == -EAGAIN);
	}
	if (in_memory) {
		for (i = 0; i < 3; i++)	/* one stream over the block's pages */
			CHECK(dp[i] + pb == dp[i + 1]);
		for (i = 0; i < 4; i++)
			CHECK((uintptr_t)dp[i] % 64 == 0);
	}
	/* Erased: 0xFF both; bad arguments fail without the lock. */
	REQUIRE(fs_page_map_parts(fs, ppa_at(g, g->slc_blocks + 3, 5), buf, &dp[0], &op) == 0);
	memset(rd, 0xff, slot);
	CHECK(memcmp(dp[0], rd, pb) == 0 && memcmp(op, rd, slot - pb) == 0);
	fs_page_unmap(fs);
	CHECK(fs_page_map_parts(fs, UINT64_MAX, buf, &dp[0], &op) == -EINVAL);
	CHECK(fs_page_map_parts(fs, ppa, buf, NULL, &op) == -EINVAL);
	CHECK(fs_page_map_parts(NULL, ppa, buf, &dp[0], &op) == -EINVAL);
	/* Many ranges under one guard: in the data, in the OOB, across both
	 * (only a copy: NULL, -EAGAIN, the rest still mapped), erased; each as
	 * fs_read() reads it. */
	{
		uint64_t mp[6];
		uint32_t mo[6] = { 8, pb + 3, pb - 10, 0, 100, pb };
		const uint8_t *mq[6];
		int ret;

		for (i = 0; i < 6; i++)
			mp[i] = ppa_at(g, g->slc_blocks + 3, i < 4 ? i : i == 4 ? 5 : 1);
		ret = fs_page_map_many(fs, 6, mp, mo, 20, mq);
		CHECK(ret == 0 || ret == -EAGAIN);
		for (i = 0; i < 6; i++) {
			int across = mo[i] < pb && mo[i] + 20 > pb;

			/* An erased page is the store's 0xFF slot: never a copy. */
			if ((copies && i != 4) || (in_memory && across)) {
				CHECK(mq[i] == NULL);
				continue;
			}
			REQUIRE(mq[i]);
			CHECK(fs_read(fs, mp[i], mo[i], rd, 20) == 0 && memcmp(mq[i], rd, 20) == 0);
		}
		CHECK(ret == (copies || in_memory ? -EAGAIN : 0));
		fs_page_unmap(fs);
		mp[2] = UINT64_MAX;
		CHECK(fs_page_map_many(fs, 6, mp, mo, 20, mq) == -EINVAL);
		mp[2] = ppa;
		mo[3] = slot - 5;
		CHECK(fs_page_map_many(fs, 6, mp, mo, 20, mq) == -EINVAL);
		CHECK(fs_page_map_many(NULL, 6, mp, mo, 20, mq) == -EINVAL);
	}
	REQUIRE(fs_erase(fs, ppa) == 0);	/* would wait forever on a held lock */
	free(d);
	free(rd);
	free(buf);
}

/* Resident bytes of this process (Linux), or 0 when unknown. */
static uint64_t rss_bytes(void)
{
	unsigned long long size = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%llu %llu", &size, &res) != 2)
			res = 0;
		fclose(f);
	}
	return (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE);
}

/*
 * Host memory per programmed page: one slot, whatever reads happen; in
 * memory the resident set grows by the pages programmed, not by their
 * blocks' size, and shrinks again on erase.
 */
static void memory(struct fs *fs, int in_memory)
{
	const struct fg_geom *g = fs_geom(fs);
	uint32_t slot = fs_slot_bytes(fs), i;
	uint8_t *d = malloc(slot), *buf = malloc(slot);
	struct fs_stats a, b, c;
	const uint8_t *p;

	uint64_t r0, r1, r2;

	REQUIRE(d && buf);
	fill(d, slot, 3);
	fs_get_stats(fs, &a);
	r0 = rss_bytes();
	for (i = 0; i < 64; i++)
		REQUIRE(fs_program(fs, ppa_at(g, g->slc_blocks + 2, i), d, NULL) == 0);
	r1 = rss_bytes();
	fs_get_stats(fs, &b);
	if (in_memory && r0 && g->pages_per_block > 128) {
		CHECK(r1 - r0 < 2ull * 64 * slot);
		CHECK(r1 - r0 >= 32ull * slot);
	}
	for (i = 0; i < 64; i++) {
		REQUIRE(fs_page_map(fs, ppa_at(g, g->slc_blocks + 2, i), 0, slot, buf, &p) == 0);
		CHECK(memcmp(p, d, 64) == 0);
		fs_page_unmap(fs);
	}
	fs_get_stats(fs, &c);
	if (in_memory)
		CHECK(b.mem_bytes - a.mem_bytes <= 64ull * slot + 4096);
	else
		CHECK(b.mem_bytes - a.mem_bytes <= 4096);
	CHECK_EQ_U64(c.mem_bytes, b.mem_bytes);
	REQUIRE(fs_erase(fs, ppa_at(g, g->slc_blocks + 2, 0)) == 0);
	r2 = rss_bytes();
	if (in_memory && r0)
		CHECK(r1 - r2 >= 32ull * slot);
	free(d);
	free(buf);
}

int main(void)
{
	const char *t = getenv("TMPDIR");
	struct fp_params p;
	struct fs_config cfg = { 0 };
	struct fio *io;
	struct fs *fs;
	char path[512];

	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	REQUIRE(fp_apply(&p, "channels=1,dies_per_channel=1,blocks_per_plane=8,slc_blocks=2",
			 err, sizeof(err)) == 0);
	cfg.params = &p;
	cfg.meta_max = 65536;
	cfg.flags = FS_NOSYNC;

	REQUIRE(fs_open(&cfg, &fs, err, sizeof(err)) == 0);
	same_as_read(fs, 0);
	memory(fs, 1);
	parts(fs, 0, 1);
	fs_close(fs);

	snprintf(path, sizeof(path), "%s/test_flash_pagemap.%d.img", t && *t ? t : "/tmp",
		 (int)getpid());
	unlink(path);
	cfg.path = path;
	REQUIRE(fs_open(&cfg, &fs, err, sizeof(err)) == 0);
	same_as_read(fs, 0);
	memory(fs, 0);
	parts(fs, 0, 0);
	fs_close(fs);
	/* Reopened: the mapping shows what the file holds. */
	REQUIRE(fs_open(&cfg, &fs, err, sizeof(err)) == 0);
	{
		const struct fg_geom *g = fs_geom(fs);
		uint8_t *d = malloc(fs_slot_bytes(fs)), *buf = malloc(fs_slot_bytes(fs));
		const uint8_t *pp;

		REQUIRE(d && buf);
		fill(d, fs_slot_bytes(fs), 2);
		CHECK(fs_page_map(fs, ppa_at(g, g->slc_blocks + 1, 0), 0, 100, buf, &pp) == 0);
		CHECK(memcmp(pp, d, 100) == 0);
		fs_page_unmap(fs);
		free(d);
		free(buf);
	}
	fs_close(fs);
	unlink(path);

	/* A caller's in-memory I/O object: copies into the buffer. */
	REQUIRE(fio_open_mem(&io) == 0);
	cfg.path = NULL;
	cfg.io = io;
	REQUIRE(fs_open(&cfg, &fs, err, sizeof(err)) == 0);
	same_as_read(fs, 1);
	parts(fs, 1, 0);
	fs_close(fs);
	fio_close(io);
	return t_result();
}
