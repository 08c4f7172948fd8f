/* SPDX-License-Identifier: MIT */
/*
 * flash_io.c - positional I/O on a descriptor or a sparse memory image, with
 * crash injection, and CRC-32C (docs/timing-model.md "Storage and metadata").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flash_io.h"

#define FIO_CHUNK (64u * 1024u)

struct fio {
	pthread_mutex_t lock;
	int fd;			/* -1: in memory */
	int own;
	/* In-memory image: chunk table, NULL chunks read as zero. */
	uint8_t **chunk;
	size_t nchunks;
	uint64_t size;
	uint64_t mem_bytes;
	/* Crash injection. */
	uint64_t budget;	/* bytes still allowed; UINT64_MAX: unarmed */
	int crashed;
	uint64_t written;
};

static int fio_new(struct fio **out)
{
	struct fio *io = calloc(1, sizeof(*io));

	if (!io)
		return -ENOMEM;
	if (pthread_mutex_init(&io->lock, NULL)) {
		free(io);
		return -ENOMEM;
	}
	io->fd = -1;
	io->budget = UINT64_MAX;
	*out = io;
	return 0;
}

int fio_open_fd(int fd, int own, struct fio **out)
{
	int ret;

	if (fd < 0 || !out)
		return -EINVAL;
	ret = fio_new(out);
	if (ret)
		return ret;
	(*out)->fd = fd;
	(*out)->own = own;
	return 0;
}

int fio_open_mem(struct fio **out)
{
	if (!out)
		return -EINVAL;
	return fio_new(out);
}

void fio_close(struct fio *io)
{
	size_t i;

	if (!io)
		return;
	if (io->fd >= 0 && io->own)
		close(io->fd);
	for (i = 0; i < io->nchunks; i++)
		free(io->chunk[i]);
	free(io->chunk);
	pthread_mutex_destroy(&io->lock);
	free(io);
}

int fio_mem_clone(struct fio *src, struct fio **out)
{
	struct fio *io;
	size_t i;
	int ret;

	if (!src || !out || src->fd >= 0)
		return -EINVAL;
	ret = fio_new(&io);
	if (ret)
		return ret;
	pthread_mutex_lock(&src->lock);
	io->chunk = calloc(src->nchunks ? src->nchunks : 1, sizeof(*io->chunk));
	if (!io->chunk)
		goto nomem;
	io->nchunks = src->nchunks;
	for (i = 0; i < src->nchunks; i++) {
		if (!src->chunk[i])
			continue;
		io->chunk[i] = malloc(FIO_CHUNK);
		if (!io->chunk[i])
			goto nomem;
		memcpy(io->chunk[i], src->chunk[i], FIO_CHUNK);
		io->mem_bytes += FIO_CHUNK;
	}
	io->size = src->size;
	pthread_mutex_unlock(&src->lock);
	*out = io;
	return 0;
nomem:
	pthread_mutex_unlock(&src->lock);
	fio_close(io);
	return -ENOMEM;
}

/* Memory image: make chunk @i writable. Caller holds the lock. */
static uint8_t *fio_mem_chunk(struct fio *io, size_t i)
{
	if (i >= io->nchunks) {
		size_t n = io->nchunks ? io->nchunks : 16;
		uint8_t **c;

		while (n <= i)
			n *= 2;
		c = realloc(io->chunk, n * sizeof(*c));
		if (!c)
			return NULL;
		memset(c + io->nchunks, 0, (n - io->nchunks) * sizeof(*c));
		io->chunk = c;
		io->nchunks = n;
	}
	if (!io->chunk[i]) {
		io->chunk[i] = calloc(1, FIO_CHUNK);
		if (!io->chunk[i])
			return NULL;
		io->mem_bytes += FIO_CHUNK;
	}
	return io->chunk[i];
}

static int fio_mem_write(struct fio *io, const uint8_t *p, size_t len, uint64_t off)
{
	while (len) {
		size_t i = (size_t)(off / FIO_CHUNK), o = (size_t)(off % FIO_CHUNK);
		size_t n = FIO_CHUNK - o < len ? FIO_CHUNK - o : len;
		uint8_t *c;

		if (p) {
			c = fio_mem_chunk(io, i);
			if (!c)
				return -ENOMEM;
			memcpy(c + o, p, n);
			p += n;
		} else if (i < io->nchunks && io->chunk[i]) {
			memset(io->chunk[i] + o, 0, n);	/* punch */
		}
		off += n;
		len -= n;
	}
	return 0;
}

int fio_fd(const struct fio *io)
{
	return io ? io->fd : -1;
}

int fio_pread(struct fio *io, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;

	if (!io || (!buf && len) || off + len < off)
		return -EINVAL;
	if (io->fd >= 0) {
		while (len) {
			ssize_t r = pread(io->fd, p, len, (off_t)off);

			if (r < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			if (r == 0) {
				memset(p, 0, len);	/* past EOF */
				return 0;
			}
			p += r;
			off += (uint64_t)r;
			len -= (size_t)r;
		}
		return 0;
	}
	pthread_mutex_lock(&io->lock);
	while (len) {
		size_t i = (size_t)(off / FIO_CHUNK), o = (size_t)(off % FIO_CHUNK);
		size_t n = FIO_CHUNK - o < len ? FIO_CHUNK - o : len;

		if (i < io->nchunks && io->chunk[i] && off < io->size)
			memcpy(p, io->chunk[i] + o, n);
		else
			memset(p, 0, n);
		p += n;
		off += n;
		len -= n;
	}
	pthread_mutex_unlock(&io->lock);
	return 0;
}

static int fio_fd_write(int fd, const uint8_t *p, size_t len, uint64_t off)
{
	while (len) {
		ssize_t r = pwrite(fd, p, len, (off_t)off);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += r;
		off += (uint64_t)r;
		len -= (size_t)r;
	}
	return 0;
}

static int fio_write_locked(struct fio *io, const uint8_t *p, size_t len, uint64_t off)
{
	int ret;

	if (io->fd >= 0)
		ret = fio_fd_write(io->fd, p, len, off);
	else
		ret = fio_mem_write(io, p, len, off);
	if (!ret && io->fd < 0 && off + len > io->size)
		io->size = off + len;
	if (!ret)
		io->written += len;
	return ret;
}

int fio_pwrite(struct fio *io, const void *buf, size_t len, uint64_t off)
{
	int ret;

	if (!io || (!buf && len) || off + len < off)
		return -EINVAL;
	pthread_mutex_lock(&io->lock);
	if (io->crashed) {
		ret = -EIO;
	} else if (io->budget != UINT64_MAX && len > io->budget) {
		/* The crash: only the first budget bytes reach the medium. */
		fio_write_locked(io, buf, (size_t)io->budget, off);
		io->budget = 0;
		io->crashed = 1;
		ret = -EIO;
	} else {
		if (io->budget != UINT64_MAX)
			io->budget -= len;
		ret = fio_write_locked(io, buf, len, off);
	}
	pthread_mutex_unlock(&io->lock);
	return ret;
}

int fio_sync(struct fio *io)
{
	int ret = 0;

	if (!io)
		return -EINVAL;
	pthread_mutex_lock(&io->lock);
	if (io->crashed)
		ret = -EIO;
	else if (io->fd >= 0 && fdatasync(io->fd))
		ret = -errno;
	pthread_mutex_unlock(&io->lock);
	return ret;
}

int fio_size(struct fio *io, uint64_t *size)
{
	off_t end;

	if (!io || !size)
		return -EINVAL;
	if (io->fd >= 0) {
		end = lseek(io->fd, 0, SEEK_END);
		if (end < 0)
			return -errno;
		*size = (uint64_t)end;
		return 0;
	}
	pthread_mutex_lock(&io->lock);
	*size = io->size;
	pthread_mutex_unlock(&io->lock);
	return 0;
}

int fio_truncate(struct fio *io, uint64_t size)
{
	int ret = 0;

	if (!io || size > (uint64_t)INT64_MAX)
		return -EINVAL;
	pthread_mutex_lock(&io->lock);
	if (io->crashed) {
		ret = -EIO;
	} else if (io->fd >= 0) {
		if (ftruncate(io->fd, (off_t)size))
			ret = -errno;
	} else {
		if (size < io->size)
			fio_mem_write(io, NULL, (size_t)(io->size - size), size);
		io->size = size;
	}
	pthread_mutex_unlock(&io->lock);
	return ret;
}

int fio_punch(struct fio *io, uint64_t off, uint64_t len)
{
	static const uint8_t zero[4096];
	int ret = 0;

	if (!io || off + len < off || off + len > (uint64_t)INT64_MAX)
		return -EINVAL;
	pthread_mutex_lock(&io->lock);
	if (io->crashed) {
		ret = -EIO;
	} else if (io->fd >= 0) {
		if (fallocate(io->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      (off_t)off, (off_t)len)) {
			/* No hole punching here: write zeros instead. */
			while (len && !ret) {
				size_t n = len < sizeof(zero) ? (size_t)len : sizeof(zero);

				ret = fio_fd_write(io->fd, zero, n, off);
				off += n;
				len -= n;
			}
		}
	} else {
		ret = fio_mem_write(io, NULL, (size_t)len, off);
	}
	pthread_mutex_unlock(&io->lock);
	return ret;
}

int fio_next_data(struct fio *io, uint64_t off, uint64_t *data)
{
	size_t i;
	int ret = -ENXIO;

	if (!io || !data || off > (uint64_t)INT64_MAX)
		return -EINVAL;
	if (io->fd >= 0) {
		off_t r = lseek(io->fd, (off_t)off, SEEK_DATA);

		if (r >= 0) {
			*data = (uint64_t)r;
			return 0;
		}
		if (errno == ENXIO)
			return -ENXIO;
		*data = off;	/* SEEK_DATA unsupported: assume data */
		return 0;
	}
	pthread_mutex_lock(&io->lock);
	for (i = (size_t)(off / FIO_CHUNK); i < io->nchunks; i++) {
		if (io->chunk[i] && (uint64_t)i * FIO_CHUNK < io->size) {
			uint64_t start = (uint64_t)i * FIO_CHUNK;

			*data = start > off ? start : off;
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&io->lock);
	return ret;
}

void fio_fail_after(struct fio *io, uint64_t nbytes)
{
	if (!io)
		return;
	pthread_mutex_lock(&io->lock);
	io->budget = nbytes;
	if (nbytes == UINT64_MAX)
		io->crashed = 0;
	pthread_mutex_unlock(&io->lock);
}

int fio_crashed(struct fio *io)
{
	int c;

	pthread_mutex_lock(&io->lock);
	c = io->crashed;
	pthread_mutex_unlock(&io->lock);
	return c;
}

uint64_t fio_written(struct fio *io)
{
	uint64_t w;

	pthread_mutex_lock(&io->lock);
	w = io->written;
	pthread_mutex_unlock(&io->lock);
	return w;
}

uint64_t fio_mem_bytes(struct fio *io)
{
	uint64_t m;

	pthread_mutex_lock(&io->lock);
	m = io->mem_bytes + io->nchunks * sizeof(*io->chunk);
	pthread_mutex_unlock(&io->lock);
	return m;
}

/* CRC-32C table for the reflected polynomial 0x82F63B78. */
static const uint32_t fio_crc_table[256] = {
	0x00000000u, 0xf26b8303u, 0xe13b70f7u, 0x1350f3f4u, 0xc79a971fu, 0x35f1141cu,
	0x26a1e7e8u, 0xd4ca64ebu, 0x8ad958cfu, 0x78b2dbccu, 0x6be22838u, 0x9989ab3bu,
	0x4d43cfd0u, 0xbf284cd3u, 0xac78bf27u, 0x5e133c24u, 0x105ec76fu, 0xe235446cu,
	0xf165b798u, 0x030e349bu, 0xd7c45070u, 0x25afd373u, 0x36ff2087u, 0xc494a384u,
	0x9a879fa0u, 0x68ec1ca3u, 0x7bbcef57u, 0x89d76c54u, 0x5d1d08bfu, 0xaf768bbcu,
	0xbc267848u, 0x4e4dfb4bu, 0x20bd8edeu, 0xd2d60dddu, 0xc186fe29u, 0x33ed7d2au,
	0xe72719c1u, 0x154c9ac2u, 0x061c6936u, 0xf477ea35u, 0xaa64d611u, 0x580f5512u,
	0x4b5fa6e6u, 0xb93425e5u, 0x6dfe410eu, 0x9f95c20du, 0x8cc531f9u, 0x7eaeb2fau,
	0x30e349b1u, 0xc288cab2u, 0xd1d83946u, 0x23b3ba45u, 0xf779deaeu, 0x05125dadu,
	0x1642ae59u, 0xe4292d5au, 0xba3a117eu, 0x4851927du, 0x5b016189u, 0xa96ae28au,
	0x7da08661u, 0x8fcb0562u, 0x9c9bf696u, 0x6ef07595u, 0x417b1dbcu, 0xb3109ebfu,
	0xa0406d4bu, 0x522bee48u, 0x86e18aa3u, 0x748a09a0u, 0x67dafa54u, 0x95b17957u,
	0xcba24573u, 0x39c9c670u, 0x2a993584u, 0xd8f2b687u, 0x0c38d26cu, 0xfe53516fu,
	0xed03a29bu, 0x1f682198u, 0x5125dad3u, 0xa34e59d0u, 0xb01eaa24u, 0x42752927u,
	0x96bf4dccu, 0x64d4cecfu, 0x77843d3bu, 0x85efbe38u, 0xdbfc821cu, 0x2997011fu,
	0x3ac7f2ebu, 0xc8ac71e8u, 0x1c661503u, 0xee0d9600u, 0xfd5d65f4u, 0x0f36e6f7u,
	0x61c69362u, 0x93ad1061u, 0x80fde395u, 0x72966096u, 0xa65c047du, 0x5437877eu,
	0x4767748au, 0xb50cf789u, 0xeb1fcbadu, 0x197448aeu, 0x0a24bb5au, 0xf84f3859u,
	0x2c855cb2u, 0xdeeedfb1u, 0xcdbe2c45u, 0x3fd5af46u, 0x7198540du, 0x83f3d70eu,
	0x90a324fau, 0x62c8a7f9u, 0xb602c312u, 0x44694011u, 0x5739b3e5u, 0xa55230e6u,
	0xfb410cc2u, 0x092a8fc1u, 0x1a7a7c35u, 0xe811ff36u, 0x3cdb9bddu, 0xceb018deu,
	0xdde0eb2au, 0x2f8b6829u, 0x82f63b78u, 0x709db87bu, 0x63cd4b8fu, 0x91a6c88cu,
	0x456cac67u, 0xb7072f64u, 0xa457dc90u, 0x563c5f93u, 0x082f63b7u, 0xfa44e0b4u,
	0xe9141340u, 0x1b7f9043u, 0xcfb5f4a8u, 0x3dde77abu, 0x2e8e845fu, 0xdce5075cu,
	0x92a8fc17u, 0x60c37f14u, 0x73938ce0u, 0x81f80fe3u, 0x55326b08u, 0xa759e80bu,
	0xb4091bffu, 0x466298fcu, 0x1871a4d8u, 0xea1a27dbu, 0xf94ad42fu, 0x0b21572cu,
	0xdfeb33c7u, 0x2d80b0c4u, 0x3ed04330u, 0xccbbc033u, 0xa24bb5a6u, 0x502036a5u,
	0x4370c551u, 0xb11b4652u, 0x65d122b9u, 0x97baa1bau, 0x84ea524eu, 0x7681d14du,
	0x2892ed69u, 0xdaf96e6au, 0xc9a99d9eu, 0x3bc21e9du, 0xef087a76u, 0x1d63f975u,
	0x0e330a81u, 0xfc588982u, 0xb21572c9u, 0x407ef1cau, 0x532e023eu, 0xa145813du,
	0x758fe5d6u, 0x87e466d5u, 0x94b49521u, 0x66df1622u, 0x38cc2a06u, 0xcaa7a905u,
	0xd9f75af1u, 0x2b9cd9f2u, 0xff56bd19u, 0x0d3d3e1au, 0x1e6dcdeeu, 0xec064eedu,
	0xc38d26c4u, 0x31e6a5c7u, 0x22b65633u, 0xd0ddd530u, 0x0417b1dbu, 0xf67c32d8u,
	0xe52cc12cu, 0x1747422fu, 0x49547e0bu, 0xbb3ffd08u, 0xa86f0efcu, 0x5a048dffu,
	0x8ecee914u, 0x7ca56a17u, 0x6ff599e3u, 0x9d9e1ae0u, 0xd3d3e1abu, 0x21b862a8u,
	0x32e8915cu, 0xc083125fu, 0x144976b4u, 0xe622f5b7u, 0xf5720643u, 0x07198540u,
	0x590ab964u, 0xab613a67u, 0xb831c993u, 0x4a5a4a90u, 0x9e902e7bu, 0x6cfbad78u,
	0x7fab5e8cu, 0x8dc0dd8fu, 0xe330a81au, 0x115b2b19u, 0x020bd8edu, 0xf0605beeu,
	0x24aa3f05u, 0xd6c1bc06u, 0xc5914ff2u, 0x37faccf1u, 0x69e9f0d5u, 0x9b8273d6u,
	0x88d28022u, 0x7ab90321u, 0xae7367cau, 0x5c18e4c9u, 0x4f48173du, 0xbd23943eu,
	0xf36e6f75u, 0x0105ec76u, 0x12551f82u, 0xe03e9c81u, 0x34f4f86au, 0xc69f7b69u,
	0xd5cf889du, 0x27a40b9eu, 0x79b737bau, 0x8bdcb4b9u, 0x988c474du, 0x6ae7c44eu,
	0xbe2da0a5u, 0x4c4623a6u, 0x5f16d052u, 0xad7d5351u,
};

static uint32_t fio_crc_sw(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len--)
		crc = fio_crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>

/* The SSE4.2 CRC32 instruction computes the same CRC-32C, 8 bytes a step. */
__attribute__((target("sse4.2")))
static uint32_t fio_crc_hw(uint32_t crc, const uint8_t *p, size_t len)
{
	uint64_t c = crc, w;

	while (len >= 8) {
		memcpy(&w, p, 8);
		c = _mm_crc32_u64(c, w);
		p += 8;
		len -= 8;
	}
	crc = (uint32_t)c;
	while (len--)
		crc = _mm_crc32_u8(crc, *p++);
	return crc;
}

static int fio_have_sse42(void)
{
	return __builtin_cpu_supports("sse4.2");
}
#else
static uint32_t fio_crc_hw(uint32_t crc, const uint8_t *p, size_t len)
{
	return fio_crc_sw(crc, p, len);
}

static int fio_have_sse42(void)
{
	return 0;
}
#endif

uint32_t fio_crc32c(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	crc = ~crc;
	crc = fio_have_sse42() ? fio_crc_hw(crc, p, len) : fio_crc_sw(crc, p, len);
	return ~crc;
}
