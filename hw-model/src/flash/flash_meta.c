/* SPDX-License-Identifier: MIT */
/*
 * flash_meta.c - two-slot atomic metadata commits: the engines' R-DB and
 * mapping records survive a crash (docs/timing-model.md "Storage and metadata").
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flash_io.h"
#include "flash_meta.h"

#define FM_MAGIC "ISPMETA1"
#define FM_VERSION 1u

/* On-medium superblock; all fields little-endian. */
struct fm_hdr {
	char magic[8];
	uint32_t version;
	uint32_t hdr_bytes;
	uint64_t seq;
	uint64_t len;
	uint32_t blob_crc;
	uint32_t rsvd[6];
	uint32_t hdr_crc;	/* CRC-32C of the bytes before it */
};
_Static_assert(sizeof(struct fm_hdr) == FM_HDR_BYTES, "superblock size");

enum fm_slot_state { FM_ZERO, FM_VALID, FM_BAD };

struct fm {
	pthread_mutex_t lock;
	struct fio *io;
	uint64_t base;
	uint64_t max_blob;
	uint64_t slot_bytes;
	unsigned flags;
	int cur;		/* slot holding the current state, -1: none */
	uint64_t seq;
	uint64_t len;
	uint32_t crc;
};

uint64_t fm_slot_bytes(uint64_t max_blob)
{
	return (FM_HDR_BYTES + max_blob + 4095) & ~(uint64_t)4095;
}

static uint32_t fm_hdr_crc(const struct fm_hdr *h)
{
	return fio_crc32c(0, h, offsetof(struct fm_hdr, hdr_crc));
}

static int fm_all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		if (*b++)
			return 0;
	return 1;
}

/* CRC of @len blob bytes at @off, streamed through a bounce buffer. */
static int fm_blob_crc(struct fio *io, uint64_t off, uint64_t len, uint32_t *crc)
{
	size_t bufsz = len < (1u << 20) ? (size_t)len : (1u << 20);
	uint8_t *buf = malloc(bufsz ? bufsz : 1);
	uint32_t c = 0;
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	while (len) {
		size_t n = len < bufsz ? (size_t)len : bufsz;

		ret = fio_pread(io, buf, n, off);
		if (ret)
			break;
		c = fio_crc32c(c, buf, n);
		off += n;
		len -= n;
	}
	free(buf);
	*crc = c;
	return ret;
}

static int fm_probe(struct fm *fm, int slot, struct fm_hdr *h, enum fm_slot_state *st)
{
	uint64_t off = fm->base + (uint64_t)slot * fm->slot_bytes;
	uint32_t crc;
	int ret;

	ret = fio_pread(fm->io, h, sizeof(*h), off);
	if (ret)
		return ret;
	if (fm_all_zero(h, sizeof(*h))) {
		*st = FM_ZERO;
		return 0;
	}
	*st = FM_BAD;
	if (memcmp(h->magic, FM_MAGIC, 8) || h->version != FM_VERSION ||
	    h->hdr_bytes != FM_HDR_BYTES || h->hdr_crc != fm_hdr_crc(h) ||
	    h->len > fm->max_blob || h->seq == 0)
		return 0;
	ret = fm_blob_crc(fm->io, off + FM_HDR_BYTES, h->len, &crc);
	if (ret)
		return ret;
	if (crc == h->blob_crc)
		*st = FM_VALID;
	return 0;
}

int fm_open(struct fio *io, uint64_t base, uint64_t max_blob, unsigned flags,
	    struct fm **out, char *err, size_t errlen)
{
	struct fm_hdr h[2];
	enum fm_slot_state st[2];
	char dummy[8];
	struct fm *fm;
	int ret, i;

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	if (!io || !out || max_blob == 0 || max_blob > FM_MAX_BLOB_LIMIT) {
		snprintf(err, errlen, "metadata: bad arguments");
		return -EINVAL;
	}
	fm = calloc(1, sizeof(*fm));
	if (!fm)
		return -ENOMEM;
	if (pthread_mutex_init(&fm->lock, NULL)) {
		free(fm);
		return -ENOMEM;
	}
	fm->io = io;
	fm->base = base;
	fm->max_blob = max_blob;
	fm->slot_bytes = fm_slot_bytes(max_blob);
	fm->flags = flags;
	fm->cur = -1;
	for (i = 0; i < 2; i++) {
		ret = fm_probe(fm, i, &h[i], &st[i]);
		if (ret) {
			snprintf(err, errlen, "metadata: cannot read slot %d: %s",
				 i, strerror(-ret));
			fm_close(fm);
			return ret;
		}
	}
	for (i = 0; i < 2; i++) {
		if (st[i] != FM_VALID)
			continue;
		if (fm->cur >= 0 && h[i].seq == fm->seq) {
			snprintf(err, errlen, "metadata corrupt: both copies "
				 "claim sequence %" PRIu64, fm->seq);
			fm_close(fm);
			return -EIO;
		}
		if (fm->cur < 0 || h[i].seq > fm->seq) {
			fm->cur = i;
			fm->seq = h[i].seq;
			fm->len = h[i].len;
			fm->crc = h[i].blob_crc;
		}
	}
	/*
	 * Two damaged superblocks cannot come from a torn commit (a commit
	 * only ever touches one slot and the other was either valid or never
	 * written): refuse rather than present an empty drive.
	 */
	if (fm->cur < 0 && st[0] == FM_BAD && st[1] == FM_BAD) {
		snprintf(err, errlen, "metadata corrupt: no valid copy in either slot");
		fm_close(fm);
		return -EIO;
	}
	*out = fm;
	return 0;
}

void fm_close(struct fm *fm)
{
	if (!fm)
		return;
	pthread_mutex_destroy(&fm->lock);
	free(fm);
}

int fm_commitv(struct fm *fm, const struct fm_iov *iov, unsigned n)
{
	struct fm_hdr h;
	uint64_t len = 0, off, slot_off;
	uint32_t crc = 0;
	unsigned i;
	int slot, ret;

	if (!fm || (n && !iov))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!iov[i].base && iov[i].len)
			return -EINVAL;
		len += iov[i].len;
		if (len > fm->max_blob)
			return -EFBIG;
	}
	pthread_mutex_lock(&fm->lock);
	slot = fm->cur == 0 ? 1 : 0;
	slot_off = fm->base + (uint64_t)slot * fm->slot_bytes;
	off = slot_off + FM_HDR_BYTES;
	ret = 0;
	for (i = 0; i < n && !ret; i++) {
		ret = fio_pwrite(fm->io, iov[i].base, iov[i].len, off);
		crc = fio_crc32c(crc, iov[i].base, iov[i].len);
		off += iov[i].len;
	}
	/* The blob must be durable before a superblock can point at it. */
	if (!ret && !(fm->flags & FM_NOSYNC))
		ret = fio_sync(fm->io);
	if (!ret) {
		memset(&h, 0, sizeof(h));
		memcpy(h.magic, FM_MAGIC, 8);
		h.version = FM_VERSION;
		h.hdr_bytes = FM_HDR_BYTES;
		h.seq = fm->seq + 1;
		h.len = len;
		h.blob_crc = crc;
		h.hdr_crc = fm_hdr_crc(&h);
		ret = fio_pwrite(fm->io, &h, sizeof(h), slot_off);
	}
	if (!ret && !(fm->flags & FM_NOSYNC))
		ret = fio_sync(fm->io);
	if (!ret) {
		fm->cur = slot;
		fm->seq++;
		fm->len = len;
		fm->crc = crc;
	}
	pthread_mutex_unlock(&fm->lock);
	return ret;
}

int fm_commit(struct fm *fm, const void *blob, size_t len)
{
	struct fm_iov iov = { blob, len };

	return fm_commitv(fm, &iov, 1);
}

uint64_t fm_seq(struct fm *fm)
{
	uint64_t s;

	pthread_mutex_lock(&fm->lock);
	s = fm->seq;
	pthread_mutex_unlock(&fm->lock);
	return s;
}

uint64_t fm_blob_len(struct fm *fm)
{
	uint64_t l;

	pthread_mutex_lock(&fm->lock);
	l = fm->len;
	pthread_mutex_unlock(&fm->lock);
	return l;
}

uint64_t fm_max_blob(struct fm *fm)
{
	return fm->max_blob;
}

int fm_read(struct fm *fm, void *buf, size_t cap, size_t *len)
{
	uint64_t off;
	int ret = 0;

	if (!fm || !len || (!buf && cap))
		return -EINVAL;
	pthread_mutex_lock(&fm->lock);
	*len = (size_t)fm->len;
	if (fm->cur < 0 || fm->len == 0)
		goto out;
	if (cap < fm->len) {
		ret = -ENOSPC;
		goto out;
	}
	off = fm->base + (uint64_t)fm->cur * fm->slot_bytes + FM_HDR_BYTES;
	ret = fio_pread(fm->io, buf, (size_t)fm->len, off);
	if (!ret && fio_crc32c(0, buf, (size_t)fm->len) != fm->crc)
		ret = -EIO;
out:
	pthread_mutex_unlock(&fm->lock);
	return ret;
}
