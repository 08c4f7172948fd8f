/* SPDX-License-Identifier: MIT */
/*
 * test_flash_store.c - NAND rules of the page store (program only erased
 * pages, erase by block, bounds, cell mode, oversize transfers), in memory
 * and with a backing file; a restart keeps pages, OOB and erase counts; the
 * in-memory store is sparse; concurrent readers and writers.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "flash_store.h"

static const char *tmpdir(void)
{
	const char *t = getenv("TMPDIR");

	return t && *t ? t : "/tmp";
}

static void fill(uint8_t *b, size_t n, uint32_t seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		b[i] = (uint8_t)(seed >> 16);
	}
}

static uint64_t ppa_of(const struct fg_geom *g, uint32_t ch, uint32_t die, uint32_t pl,
		       uint32_t blk, uint32_t pg)
{
	struct fg_addr a = { ch, die, pl, blk, pg };
	uint64_t ppa;

	REQUIRE(fg_pack(g, &a, &ppa) == 0);
	return ppa;
}

static void rules(struct fs *fs)
{
	const struct fg_geom *g = fs_geom(fs);
	uint32_t slot = fs_slot_bytes(fs);
	uint8_t *d = malloc(slot), *o = malloc(slot), *r = malloc(slot);
	uint64_t a, b, bad;
	uint32_t i;

	REQUIRE(d && o && r);
	CHECK(slot == g->page_bytes + g->oob_bytes);
	fill(d, slot, 1);
	fill(o, slot, 2);
	a = ppa_of(g, 1, 1, 1, g->slc_blocks, 5);	/* native block */
	b = ppa_of(g, 1, 1, 1, g->slc_blocks, 6);

	/* Erased pages read 0xFF. */
	CHECK(fs_page_state(fs, a) == FS_ERASED);
	CHECK(fs_read(fs, a, 0, r, slot) == 0);
	for (i = 0; i < slot; i++)
		if (r[i] != 0xff)
			break;
	CHECK(i == slot);

	/* Program, read back data and OOB in pieces. */
	CHECK(fs_program(fs, a, d, o) == 0);
	CHECK(fs_page_state(fs, a) == FS_PROGRAMMED);
	CHECK(fs_read(fs, a, 0, r, g->page_bytes) == 0 && memcmp(r, d, g->page_bytes) == 0);
	CHECK(fs_read(fs, a, g->page_bytes, r, g->oob_bytes) == 0 &&
	      memcmp(r, o, g->oob_bytes) == 0);
	CHECK(fs_read(fs, a, 100, r, 50) == 0 && memcmp(r, d + 100, 50) == 0);
	CHECK(fs_read(fs, a, g->page_bytes - 10, r, 20) == 0 &&
	      memcmp(r, d + g->page_bytes - 10, 10) == 0 && memcmp(r + 10, o, 10) == 0);
	CHECK(fs_read(fs, a, 0, r, 0) == 0);

	/* Program only erased pages. */
	CHECK(fs_program(fs, a, o, d) == -EEXIST);
	CHECK(fs_read(fs, a, 0, r, g->page_bytes) == 0 && memcmp(r, d, g->page_bytes) == 0);
	/* NULL data / OOB program 0xFF. */
	CHECK(fs_program(fs, b, NULL, o) == 0);
	CHECK(fs_read(fs, b, 0, r, 1) == 0 && r[0] == 0xff);
	CHECK(fs_read(fs, b, g->page_bytes, r, 4) == 0 && memcmp(r, o, 4) == 0);

	/* Erase by block: every page of the block, nothing else. */
	{
		uint64_t other = ppa_of(g, 1, 1, 0, g->slc_blocks, 5);	/* other plane */

		CHECK(fs_program(fs, other, d, o) == 0);
		CHECK(fs_erase_count(fs, a) == 0);
		CHECK(fs_erase(fs, b) == 0);
		CHECK(fs_page_state(fs, a) == FS_ERASED && fs_page_state(fs, b) == FS_ERASED);
		CHECK(fs_page_state(fs, other) == FS_PROGRAMMED);
		CHECK(fs_erase_count(fs, a) == 1);
		CHECK(fs_read(fs, a, 0, r, 8) == 0 && r[0] == 0xff && r[7] == 0xff);
		CHECK(fs_program(fs, a, o, d) == 0);	/* programmable again */
		CHECK(fs_read(fs, a, 0, r, 16) == 0 && memcmp(r, o, 16) == 0);
	}

	/* Bounds: every address field, the cell mode, the transfer. */
	bad = (uint64_t)g->channels << FG_CHANNEL_SHIFT;
	CHECK(fs_read(fs, bad, 0, r, 1) == -EINVAL);
	CHECK(fs_program(fs, bad, d, o) == -EINVAL);
	CHECK(fs_erase(fs, bad) == -EINVAL);
	CHECK(fs_page_state(fs, bad) == -EINVAL);
	CHECK(fs_read(fs, (uint64_t)g->blocks_per_plane << FG_BLOCK_SHIFT, 0, r, 1) == -EINVAL);
	CHECK(fs_read(fs, UINT64_MAX, 0, r, 1) == -EINVAL);
	if (g->slc_blocks) {
		/* Page 200 exists in a TLC block, not in an SLC-mode block. */
		uint64_t slc = (uint64_t)(g->part[FG_PART_SLC].pages_per_block) << FG_PAGE_SHIFT;
		uint64_t tlc = slc | (uint64_t)g->slc_blocks << FG_BLOCK_SHIFT;

		CHECK(fs_program(fs, slc, d, o) == -EINVAL);
		CHECK(fs_read(fs, slc, 0, r, 1) == -EINVAL);
		CHECK(fs_program(fs, tlc, d, o) == 0);
	}
	CHECK(fs_read(fs, a, 0, r, slot + 1) == -EINVAL);
	CHECK(fs_read(fs, a, slot, r, 1) == -EINVAL);
	CHECK(fs_read(fs, a, 1, r, slot) == -EINVAL);
	CHECK(fs_read(fs, a, UINT32_MAX, r, 2) == -EINVAL);
	CHECK(fs_read(fs, a, 2, r, UINT32_MAX) == -EINVAL);
	CHECK(fs_read(fs, a, 0, NULL, 1) == -EINVAL);
	free(d);
	free(o);
	free(r);
}

struct rw {
	struct fs *fs;
	int writer;
	int errors;
};

static void *rw_thread(void *arg)
{
	struct rw *t = arg;
	const struct fg_geom *g = fs_geom(t->fs);
	uint8_t *buf = malloc(fs_slot_bytes(t->fs));
	uint32_t i;

	for (i = 0; i < 400; i++) {
		uint64_t ppa = ppa_of(g, i % g->channels, 0, 0, g->slc_blocks + 1 + i / 200,
				      i % 200);

		if (t->writer) {
			memset(buf, (int)(i & 0xff), g->page_bytes);
			if (fs_program(t->fs, ppa, buf, NULL) && fs_page_state(t->fs, ppa) != 1)
				t->errors++;
		} else {
			if (fs_read(t->fs, ppa, 0, buf, g->page_bytes))
				t->errors++;
			else if (buf[0] != 0xff && buf[0] != (uint8_t)(i & 0xff))
				t->errors++;	/* never a torn page */
		}
	}
	free(buf);
	return NULL;
}

static void threads(struct fs *fs)
{
	pthread_t th[3];
	struct rw t[3];
	int i;

	for (i = 0; i < 3; i++) {
		t[i] = (struct rw){ fs, i == 0, 0 };
		REQUIRE(pthread_create(&th[i], NULL, rw_thread, &t[i]) == 0);
	}
	for (i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		CHECK(t[i].errors == 0);
	}
}

int main(void)
{
	struct fp_params p;
	struct fs_config cfg = { 0 };
	struct fs_stats st, st2;
	struct fs *fs;
	char path[512], err[256];
	static uint8_t d[16384], o[2208], r[16384];
	const struct fg_geom *g;
	uint32_t i;

	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	REQUIRE(fp_apply(&p, "channels=2,dies_per_channel=2,blocks_per_plane=8,slc_blocks=2",
			 err, sizeof(err)) == 0);
	cfg.params = &p;
	cfg.meta_max = 1 << 20;

	/* In memory. */
	REQUIRE(fs_open(&cfg, &fs, err, sizeof(err)) == 0);
	fs_get_stats(fs, &st);
	CHECK(st.programmed_pages == 0 && st.mem_bytes < (1u << 20));
	rules(fs);
	threads(fs);
	fs_close(fs);

	/* Sparse in memory: a programmed page costs about its slot. */
	REQUIRE(fs_open(&cfg, &fs, err, sizeof(err)) == 0);
	g = fs_geom(fs);
	fs_get_stats(fs, &st);
	memset(d, 1, sizeof(d));
	for (i = 0; i < 1000; i++)
		REQUIRE(fs_program(fs, ppa_of(g, i % 2, 0, 0, 2 + i / 380, i % 380),
				   NULL, NULL) == 0);
	fs_get_stats(fs, &st2);
	CHECK(st2.programmed_pages == 1000);
	CHECK(st2.mem_bytes - st.mem_bytes >= 1000ull * fs_slot_bytes(fs));
	CHECK(st2.mem_bytes - st.mem_bytes < 1000ull * fs_slot_bytes(fs) * 11 / 10);
	fs_close(fs);

	/* Backing file: same rules, then a restart keeps everything. */
	snprintf(path, sizeof(path), "%s/test_flash_store.%d.img", tmpdir(), (int)getpid());
	unlink(path);
	cfg.path = path;
	cfg.flags = FS_NOSYNC;
	REQUIRE(fs_open(&cfg, &fs, err, sizeof(err)) == 0);
	rules(fs);
	g = fs_geom(fs);
	for (i = 0; i < 64; i++) {
		fill(d, sizeof(d), i);
		fill(o, sizeof(o), i + 1000);
		int rc = fs_program(fs, ppa_of(g, i % 2, i % 2, 1, 0, i), d, o);

		if (rc)
			fprintf(stderr, "program %u: %d\n", i, rc);
		REQUIRE(rc == 0);
	}
	CHECK(fs_erase(fs, ppa_of(g, 1, 1, 1, 7, 0)) == 0);
	CHECK(fs_erase(fs, ppa_of(g, 1, 1, 1, 7, 0)) == 0);
	fs_get_stats(fs, &st);
	fs_close(fs);

	REQUIRE(fs_open(&cfg, &fs, err, sizeof(err)) == 0);
	g = fs_geom(fs);
	fs_get_stats(fs, &st2);
	CHECK(st2.programmed_pages == st.programmed_pages);
	for (i = 0; i < 64; i++) {
		uint64_t ppa = ppa_of(g, i % 2, i % 2, 1, 0, i);

		fill(d, sizeof(d), i);
		fill(o, sizeof(o), i + 1000);
		CHECK(fs_page_state(fs, ppa) == FS_PROGRAMMED);
		CHECK(fs_read(fs, ppa, 0, r, sizeof(r)) == 0 && memcmp(r, d, sizeof(r)) == 0);
		CHECK(fs_read(fs, ppa, g->page_bytes, r, sizeof(o)) == 0 &&
		      memcmp(r, o, sizeof(o)) == 0);
		CHECK(fs_program(fs, ppa, d, o) == -EEXIST);
	}
	CHECK(fs_erase_count(fs, ppa_of(g, 1, 1, 1, 7, 0)) == 2);
	CHECK(fs_page_state(fs, ppa_of(g, 0, 0, 0, 0, 100)) == FS_ERASED);
	/* The pages rules() left behind survived too. */
	CHECK(fs_page_state(fs, ppa_of(g, 1, 1, 1, g->slc_blocks, 5)) == FS_PROGRAMMED);
	CHECK(fs_page_state(fs, ppa_of(g, 1, 1, 1, g->slc_blocks, 6)) == FS_ERASED);
	threads(fs);
	fs_close(fs);
	unlink(path);
	return t_result();
}
