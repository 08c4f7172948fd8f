/* SPDX-License-Identifier: MIT */
/*
 * test_flash_meta.c - crash consistency of metadata commits. A commit is
 * cut at every byte offset it writes (densely sampled for a large blob) by
 * the I/O layer's crash injection; reopening the image must give exactly the
 * old or exactly the new blob, never a mix and never an error. Also: slot
 * alternation over many commits, a failed commit leaves the old state
 * current, size limits, corruption of both copies is an error. The same
 * holds one level up, for the store's region table plus the engines' blob.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "flash_io.h"
#include "flash_meta.h"
#include "flash_store.h"

#define BASE 4096u	/* the area need not start at 0 */
#define MAXB (1u << 21)

static void fill(uint8_t *b, size_t n, uint32_t seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		b[i] = (uint8_t)(seed >> 24);
	}
}

/* State of the image: 0 = empty, else the blob must equal one of them. */
static int state_of(struct fio *io, const uint8_t *a, size_t alen, const uint8_t *b,
		    size_t blen)
{
	uint8_t *buf = malloc(MAXB);
	struct fm *fm;
	size_t len;
	int st = -1;
	char err[128];

	REQUIRE(buf);
	if (fm_open(io, BASE, MAXB, FM_NOSYNC, &fm, err, sizeof(err))) {
		fprintf(stderr, "reopen failed: %s\n", err);
		free(buf);
		return -1;
	}
	if (fm_read(fm, buf, MAXB, &len) == 0) {
		if (fm_seq(fm) == 0 && len == 0)
			st = 0;
		else if (a && len == alen && memcmp(buf, a, alen) == 0)
			st = 1;
		else if (len == blen && memcmp(buf, b, blen) == 0)
			st = 2;
	}
	fm_close(fm);
	free(buf);
	return st;
}

/*
 * From @base (holding @old or nothing), commit @new cut after each byte
 * offset in the sample; check the reopened state.
 */
static void tear(struct fio *base, const uint8_t *old, size_t olen, const uint8_t *nw,
		 size_t nlen, uint64_t step)
{
	uint64_t total, cut;
	int seen_old = 0, seen_new = 0;
	struct fm *fm;
	struct fio *io;
	char err[128];

	/* Bytes a full commit writes. */
	REQUIRE(fio_mem_clone(base, &io) == 0);
	REQUIRE(fm_open(io, BASE, MAXB, FM_NOSYNC, &fm, err, sizeof(err)) == 0);
	total = fio_written(io);
	REQUIRE(fm_commit(fm, nw, nlen) == 0);
	total = fio_written(io) - total;
	CHECK(total == nlen + FM_HDR_BYTES);
	fm_close(fm);
	fio_close(io);

	/* Every byte of the superblock and the first/last 80 blob bytes,
	 * every @step bytes in between. */
	for (cut = 0; cut <= total;
	     cut = (cut < 80 || cut + 80 >= total) ? cut + 1 :
		   (cut + step < total - 80 ? cut + step : total - 80)) {
		int st, want_old = old ? 1 : 0, ret;

		REQUIRE(fio_mem_clone(base, &io) == 0);
		REQUIRE(fm_open(io, BASE, MAXB, FM_NOSYNC, &fm, err, sizeof(err)) == 0);
		fio_fail_after(io, cut);
		ret = fm_commit(fm, nw, nlen);
		CHECK(cut >= total ? ret == 0 : ret == -EIO);
		if (ret) {	/* the in-memory state is still the old one */
			CHECK(fm_blob_len(fm) == (old ? olen : 0));
		}
		fm_close(fm);
		fio_fail_after(io, UINT64_MAX);	/* "reboot" */
		st = state_of(io, old, olen, nw, nlen);
		CHECK(st == want_old || st == 2);
		if (st == 2)
			seen_new = 1;
		else
			seen_old = 1;
		if (cut >= total)
			CHECK(st == 2);
		if (cut < nlen)	/* the superblock is written last */
			CHECK(st == want_old);
		fio_close(io);
	}
	CHECK(seen_old && seen_new);
	if (!(seen_old && seen_new))
		fprintf(stderr, "tear %zu->%zu: old %d new %d\n", olen, nlen, seen_old, seen_new);
}

static void meta_level(void)
{
	static uint8_t b1[300], b2[500], b3[700], big[1 << 18];
	struct fio *io;
	struct fm *fm;
	char err[128];
	size_t len;
	uint8_t buf[800];
	int i;

	fill(b1, sizeof(b1), 1);
	fill(b2, sizeof(b2), 2);
	fill(b3, sizeof(b3), 3);
	fill(big, sizeof(big), 4);

	REQUIRE(fio_open_mem(&io) == 0);
	/* First commit ever, torn anywhere: empty or new. */
	tear(io, NULL, 0, b1, sizeof(b1), 1);

	REQUIRE(fm_open(io, BASE, MAXB, FM_NOSYNC, &fm, err, sizeof(err)) == 0);
	CHECK(fm_seq(fm) == 0 && fm_blob_len(fm) == 0);
	CHECK(fm_read(fm, buf, sizeof(buf), &len) == 0 && len == 0);
	REQUIRE(fm_commit(fm, b1, sizeof(b1)) == 0);
	fm_close(fm);
	/* Second commit (other slot) torn at every byte. */
	tear(io, b1, sizeof(b1), b2, sizeof(b2), 1);

	REQUIRE(fm_open(io, BASE, MAXB, FM_NOSYNC, &fm, err, sizeof(err)) == 0);
	REQUIRE(fm_commit(fm, b2, sizeof(b2)) == 0);
	fm_close(fm);
	/* Third commit overwrites the oldest slot: torn at every byte. */
	tear(io, b2, sizeof(b2), b3, sizeof(b3), 1);
	/* A large blob over a small one, densely sampled. */
	tear(io, b2, sizeof(b2), big, sizeof(big), 2039);

	/* Many commits alternate slots; the latest always wins. */
	REQUIRE(fm_open(io, BASE, MAXB, FM_NOSYNC, &fm, err, sizeof(err)) == 0);
	for (i = 0; i < 20; i++) {
		b1[0] = (uint8_t)i;
		REQUIRE(fm_commit(fm, b1, 10 + (size_t)i) == 0);
	}
	CHECK(fm_seq(fm) == 22);
	fm_close(fm);
	REQUIRE(fm_open(io, BASE, MAXB, FM_NOSYNC, &fm, err, sizeof(err)) == 0);
	CHECK(fm_seq(fm) == 22 && fm_blob_len(fm) == 29);
	CHECK(fm_read(fm, buf, 5, &len) == -ENOSPC && len == 29);
	CHECK(fm_read(fm, buf, sizeof(buf), &len) == 0 && buf[0] == 19);

	/* A failed commit, then a good one. */
	fio_fail_after(io, 10);
	CHECK(fm_commit(fm, b3, sizeof(b3)) == -EIO);
	CHECK(fm_seq(fm) == 22);
	fio_fail_after(io, UINT64_MAX);
	CHECK(fm_commit(fm, b3, sizeof(b3)) == 0 && fm_seq(fm) == 23);
	/* Gathered pieces = one blob. */
	{
		struct fm_iov v[3] = { { b1, 5 }, { NULL, 0 }, { b2, 7 } };

		CHECK(fm_commitv(fm, v, 3) == 0);
		CHECK(fm_read(fm, buf, sizeof(buf), &len) == 0 && len == 12);
		CHECK(memcmp(buf, b1, 5) == 0 && memcmp(buf + 5, b2, 7) == 0);
	}
	/* Limits and arguments. */
	CHECK(fm_commit(fm, big, (size_t)MAXB + 1) == -EFBIG);
	CHECK(fm_commit(fm, NULL, 3) == -EINVAL);
	fm_close(fm);
	CHECK(fm_open(io, BASE, 0, 0, &fm, err, sizeof(err)) == -EINVAL);
	CHECK(fm_open(io, BASE, FM_MAX_BLOB_LIMIT + 1, 0, &fm, err, sizeof(err)) == -EINVAL);

	/* A corrupt blob (bit rot) in the current slot: fall back to the other. */
	REQUIRE(fm_open(io, BASE, MAXB, FM_NOSYNC, &fm, err, sizeof(err)) == 0);
	REQUIRE(fm_commit(fm, b1, 100) == 0);	/* seq 25 */
	REQUIRE(fm_commit(fm, b2, 100) == 0);	/* seq 26, other slot */
	fm_close(fm);
	{
		uint8_t x = 0;
		uint64_t s26 = BASE + ((26 % 2) == 0 ? fm_slot_bytes(MAXB) : 0);

		/* seq 24 went to slot (23's other)...: find the slot holding b2. */
		REQUIRE(fio_pread(io, &x, 1, BASE + fm_slot_bytes(MAXB) + FM_HDR_BYTES) == 0);
		s26 = x == b2[0] ? BASE + fm_slot_bytes(MAXB) : BASE;
		REQUIRE(fio_pread(io, &x, 1, s26 + FM_HDR_BYTES + 50) == 0);
		x ^= 1;
		REQUIRE(fio_pwrite(io, &x, 1, s26 + FM_HDR_BYTES + 50) == 0);
	}
	REQUIRE(fm_open(io, BASE, MAXB, FM_NOSYNC, &fm, err, sizeof(err)) == 0);
	CHECK(fm_seq(fm) == 25);
	CHECK(fm_read(fm, buf, sizeof(buf), &len) == 0 && memcmp(buf, b1, 100) == 0);
	fm_close(fm);
	/* Both damaged: an error, not an empty state. */
	REQUIRE(fio_pwrite(io, "junkjunk", 8, BASE) == 0);
	REQUIRE(fio_pwrite(io, "junkjunk", 8, BASE + fm_slot_bytes(MAXB)) == 0);
	CHECK(fm_open(io, BASE, MAXB, FM_NOSYNC, &fm, err, sizeof(err)) == -EIO);
	CHECK(strstr(err, "corrupt") != NULL);
	fio_close(io);
}

/* Store level: region table + engines' blob survive a restart together; a
 * region allocated but never committed is gone after a crash, and its stale
 * pages are erased when the space is reused. */
static void store_level(void)
{
	const char *t = getenv("TMPDIR");
	struct fp_params p;
	struct fs_config cfg = { 0 };
	struct fs_region r1, r2, got[4];
	struct fm_iov v;
	struct fs *fs;
	const void *blob;
	size_t len;
	uint64_t ppa;
	uint32_t erased;
	char path[512], err[256];
	int n;

	snprintf(path, sizeof(path), "%s/test_flash_meta.%d.img", t && *t ? t : "/tmp",
		 (int)getpid());
	unlink(path);
	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	REQUIRE(fp_apply(&p, "channels=2,dies_per_channel=1,blocks_per_plane=8,slc_blocks=4",
			 err, sizeof(err)) == 0);
	cfg.path = path;
	cfg.params = &p;
	cfg.meta_max = 1 << 16;
	cfg.flags = FS_NOSYNC;

	REQUIRE(fs_open(&cfg, &fs, err, sizeof(err)) == 0);
	fs_user_blob(fs, &blob, &len);
	CHECK(len == 0 && fs_meta_seq(fs) == 0);
	REQUIRE(fs_region_alloc(fs, FG_PART_SLC, 100, 0xabc, &r1, &erased) == 0);
	REQUIRE(fs_region_ppa(fs, &r1, 0, &ppa) == 0);
	REQUIRE(fs_program(fs, ppa, NULL, NULL) == 0);
	v.base = "engines";
	v.len = 7;
	REQUIRE(fs_commitv(fs, &v, 1) == 0);
	/* Not committed: */
	REQUIRE(fs_region_alloc(fs, FG_PART_SLC, 100, 0xdef, &r2, &erased) == 0);
	REQUIRE(fs_region_ppa(fs, &r2, 3, &ppa) == 0);
	REQUIRE(fs_program(fs, ppa, NULL, NULL) == 0);
	fs_close(fs);		/* "crash" before the commit */

	REQUIRE(fs_open(&cfg, &fs, err, sizeof(err)) == 0);
	CHECK(fs_meta_seq(fs) == 1);
	fs_user_blob(fs, &blob, &len);
	CHECK(len == 7 && memcmp(blob, "engines", 7) == 0);
	fs_user_blob_free(fs);
	fs_user_blob(fs, &blob, &len);
	CHECK(len == 0 && blob == NULL);
	n = fs_region_list(fs, got, 4);
	CHECK(n == 1 && got[0].id == r1.id && got[0].owner == 0xabc &&
	      got[0].first_block == r1.first_block && got[0].nblocks == r1.nblocks);
	/* r2's space is free again; reusing it erases the stale page. */
	CHECK(fs_page_state(fs, ppa) == FS_PROGRAMMED);
	REQUIRE(fs_region_alloc(fs, FG_PART_SLC, 100, 0x123, &r2, &erased) == 0);
	CHECK(erased == 1);
	CHECK(fs_page_state(fs, ppa) == FS_ERASED);
	CHECK(r2.id != r1.id);
	fs_close(fs);
	unlink(path);
}

/* Store state: 1 = old (region A, blob "v1"), 2 = new (region B, "v2..."). */
static int store_state(struct fio *io, const struct fp_params *p, const struct fs_region *ra,
		       const struct fs_region *rb)
{
	struct fs_config cfg = { .params = p, .meta_max = 1 << 16, .flags = FS_NOSYNC,
				 .io = io };
	struct fs_region got[4];
	const void *blob;
	uint8_t page[16];
	uint64_t ppa;
	size_t len;
	char err[256];
	struct fs *fs;
	int n, st = -1;

	if (fs_open(&cfg, &fs, err, sizeof(err))) {
		fprintf(stderr, "store reopen: %s\n", err);
		return -1;
	}
	fs_user_blob(fs, &blob, &len);
	n = fs_region_list(fs, got, 4);
	if (n == 1 && got[0].id == ra->id && len == 2 && memcmp(blob, "v1", 2) == 0) {
		fs_region_ppa(fs, &got[0], 7, &ppa);
		if (fs_read(fs, ppa, 0, page, 16) == 0 && page[0] == 0xa1)
			st = 1;	/* and its data is intact */
	} else if (n == 1 && got[0].id == rb->id && got[0].first_block == rb->first_block &&
		   len == 300 && memcmp(blob, "v2", 2) == 0) {
		fs_region_ppa(fs, &got[0], 7, &ppa);
		if (fs_read(fs, ppa, 0, page, 16) == 0 && page[0] == 0xb2)
			st = 2;
	}
	fs_close(fs);
	return st;
}

/* A deploy (allocate B, write it, drop A, commit) cut at every byte of the
 * commit: the reopened store is entirely the old or the new one. */
static void store_crash(void)
{
	struct fp_params p;
	struct fs_config cfg = { .meta_max = 1 << 16, .flags = FS_NOSYNC };
	struct fs_region ra, rb;
	static uint8_t blob2[300], page[16384];
	struct fm_iov v;
	struct fio *base, *io;
	struct fs *fs;
	uint64_t ppa, w0, total = 0, cut;
	char err[256];
	int st, seen[3] = { 0 };

	REQUIRE(fp_preset("reis-ssd1", &p) == 0);
	REQUIRE(fp_apply(&p, "channels=2,dies_per_channel=1,blocks_per_plane=8,slc_blocks=4",
			 err, sizeof(err)) == 0);
	cfg.params = &p;
	REQUIRE(fio_open_mem(&base) == 0);
	cfg.io = base;
	REQUIRE(fs_open(&cfg, &fs, err, sizeof(err)) == 0);
	REQUIRE(fs_region_alloc(fs, FG_PART_SLC, 50, 1, &ra, NULL) == 0);
	memset(page, 0xa1, sizeof(page));
	REQUIRE(fs_region_ppa(fs, &ra, 7, &ppa) == 0 && fs_program(fs, ppa, page, NULL) == 0);
	v.base = "v1";
	v.len = 2;
	REQUIRE(fs_commitv(fs, &v, 1) == 0);
	fs_close(fs);
	memcpy(blob2, "v2", 2);

	for (cut = 0;; cut++) {
		REQUIRE(fio_mem_clone(base, &io) == 0);
		cfg.io = io;
		REQUIRE(fs_open(&cfg, &fs, err, sizeof(err)) == 0);
		REQUIRE(fs_region_alloc(fs, FG_PART_SLC, 50, 2, &rb, NULL) == 0);
		CHECK(rb.first_block != ra.first_block);
		memset(page, 0xb2, sizeof(page));
		REQUIRE(fs_region_ppa(fs, &rb, 7, &ppa) == 0 && fs_program(fs, ppa, page, NULL) == 0);
		REQUIRE(fs_region_free(fs, ra.id) == 0);
		v.base = blob2;
		v.len = sizeof(blob2);
		w0 = fio_written(io);
		if (total)
			fio_fail_after(io, cut);
		CHECK(fs_commitv(fs, &v, 1) == (total && cut < total ? -EIO : 0));
		if (!total)
			total = fio_written(io) - w0;
		fs_close(fs);
		fio_fail_after(io, UINT64_MAX);
		st = store_state(io, &p, &ra, &rb);
		CHECK(st == 1 || st == 2);
		if (st > 0)
			seen[st] = 1;
		if (cut >= total)
			CHECK(st == 2);
		fio_close(io);
		if (cut >= total)
			break;
	}
	CHECK(seen[1] && seen[2]);
	CHECK(total > 300);
	fio_close(base);
}

int main(void)
{
	static uint8_t b[100000];
	size_t i;

	/* CRC-32C check value, and chunking does not change it. */
	CHECK(fio_crc32c(0, "123456789", 9) == 0xe3069283u);
	for (i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)(i * 7);
	CHECK(fio_crc32c(0, b, sizeof(b)) ==
	      fio_crc32c(fio_crc32c(fio_crc32c(0, b, 3), b + 3, 1000), b + 1003,
			 sizeof(b) - 1003));
	meta_level();
	store_level();
	store_crash();
	return t_result();
}
