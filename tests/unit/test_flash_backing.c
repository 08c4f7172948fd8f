/* SPDX-License-Identifier: MIT */
/*
 * test_flash_backing.c - the backing file: created when missing (sparse);
 * refused with a clear message and left byte-for-byte untouched when it is
 * truncated, corrupt, has a bad magic, another format version or another
 * geometry, or is in use; an empty file is laid out; a directory is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "flash_io.h"
#include "flash_store.h"

static char path[512];
static char err[512];

static uint32_t file_crc(off_t *size)
{
	uint8_t buf[65536];
	uint32_t crc = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);
	struct stat st;

	REQUIRE(fd >= 0);
	fstat(fd, &st);
	*size = st.st_size;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		crc = fio_crc32c(crc, buf, (size_t)n);
	close(fd);
	return crc;
}

static int try_open(const struct fp_params *p)
{
	struct fs_config cfg = { .path = path, .params = p, .meta_max = 65536,
				 .flags = FS_NOSYNC };
	struct fs *fs;
	int ret;

	err[0] = '\0';
	ret = fs_open(&cfg, &fs, err, sizeof(err));
	if (!ret)
		fs_close(fs);
	return ret;
}

static void poke(off_t off, const void *b, size_t n)
{
	int fd = open(path, O_WRONLY);

	REQUIRE(fd >= 0 && pwrite(fd, b, n, off) == (ssize_t)n);
	close(fd);
}

/* Refused with @want and a message containing @needle; file unchanged. */
static void refused(const struct fp_params *p, int want, const char *needle)
{
	off_t s0, s1;
	uint32_t c0 = file_crc(&s0), c1;
	int ret = try_open(p);

	CHECK(ret == want);
	if (ret != want || !strstr(err, needle))
		fprintf(stderr, "got %d '%s', wanted %d '%s'\n", ret, err, want, needle);
	CHECK(strstr(err, needle) != NULL);
	c1 = file_crc(&s1);
	CHECK(c0 == c1 && s0 == s1);
}

int main(void)
{
	const char *t = getenv("TMPDIR");
	struct fp_params p, q;
	struct fs_config cfg;
	struct fs *fs, *fs2;
	struct stat st;
	uint8_t b, data[4096];
	off_t size;
	uint64_t ppa = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/test_flash_backing.%d.img",
		 t && *t ? t : "/tmp", (int)getpid());
	unlink(path);
	REQUIRE(fp_preset("recflash-slc", &p) == 0);
	REQUIRE(fp_apply(&p, "channels=1,dies_per_channel=2,blocks_per_plane=4", err,
			 sizeof(err)) == 0);

	/* Missing: created, sparse, holding the full geometry. */
	cfg = (struct fs_config){ .path = path, .params = &p, .meta_max = 65536,
				  .flags = FS_NOSYNC };
	REQUIRE(fs_open(&cfg, &fs, err, sizeof(err)) == 0);
	memset(data, 0x5a, sizeof(data));
	CHECK(fs_program(fs, ppa, data, NULL) == 0);
	/* In use: a second open is refused. */
	CHECK(fs_open(&cfg, &fs2, err, sizeof(err)) == -EBUSY);
	CHECK(strstr(err, "in use") != NULL);
	fs_close(fs);
	REQUIRE(stat(path, &st) == 0);
	CHECK((uint64_t)st.st_size >= 4ull * 4 * 64 * (4096 + 256));
	CHECK((uint64_t)st.st_blocks * 512 < (uint64_t)st.st_size / 4);	/* sparse */
	CHECK(try_open(&p) == 0);

	/* Another geometry: the message names the field. */
	q = p;
	q.blocks_per_plane = 8;
	refused(&q, -EINVAL, "blocks_per_plane=4");
	q = p;
	q.channels = 4;
	refused(&q, -EINVAL, "channels");
	q = p;
	q.oob_bytes = 128;
	refused(&q, -EINVAL, "oob_bytes");
	/* Timing parameters are not part of the layout. */
	q = p;
	q.t_read[ISP_CELL_SLC] = 30000000;
	CHECK(try_open(&q) == 0);

	/* Truncated. */
	file_crc(&size);
	REQUIRE(truncate(path, size - 1) == 0);
	refused(&p, -EIO, "truncated");
	REQUIRE(truncate(path, 100) == 0);
	refused(&p, -EIO, "truncated");
	REQUIRE(truncate(path, size) == 0);

	/* Bad magic, corrupt header, other version. */
	poke(0, "X", 1);
	refused(&p, -EINVAL, "bad magic");
	poke(0, "I", 1);
	CHECK(try_open(&p) == -EIO);	/* the truncation above zeroed the tail */
	unlink(path);
	CHECK(try_open(&p) == 0);	/* fresh */
	fd = open(path, O_RDONLY);
	REQUIRE(fd >= 0 && pread(fd, &b, 1, 20) == 1);
	close(fd);
	b ^= 0xff;
	poke(20, &b, 1);		/* a geometry byte, CRC now wrong */
	refused(&p, -EIO, "checksum");
	b ^= 0xff;
	poke(20, &b, 1);
	CHECK(try_open(&p) == 0);
	b = 9;
	poke(8, &b, 1);			/* version */
	refused(&p, -EINVAL, "version");
	b = 1;
	poke(8, &b, 1);
	CHECK(try_open(&p) == 0);

	/* Both metadata copies damaged: refuse, never present an empty drive. */
	poke(4096, "garbage!", 8);
	poke(4096 + fm_slot_bytes(65536), "garbage!", 8);
	refused(&p, -EIO, "metadata corrupt");

	/* An empty file has nothing to lose: laid out. */
	unlink(path);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	REQUIRE(fd >= 0);
	close(fd);
	CHECK(try_open(&p) == 0);
	REQUIRE(stat(path, &st) == 0 && st.st_size > 0);
	unlink(path);

	/* Not a regular file. */
	REQUIRE(mkdir(path, 0700) == 0);
	CHECK(try_open(&p) != 0);
	rmdir(path);

	/* Unwritable location. */
	snprintf(path, sizeof(path), "/nonexistent-dir/x.img");
	CHECK(try_open(&p) == -ENOENT);
	CHECK(strstr(err, "/nonexistent-dir/x.img") != NULL);

	/* Bad parameters never touch anything. */
	cfg.params = NULL;
	CHECK(fs_open(&cfg, &fs, err, sizeof(err)) == -EINVAL);
	return t_result();
}
