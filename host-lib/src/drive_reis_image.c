/* SPDX-License-Identifier: MIT */
/*
 * drive_reis_image.c - database images: the sections a deploy sends, checked on
 * the host exactly as the drive will check them; written to and read from
 * image files ("REISIMG1") so a database can be prepared on one machine and
 * deployed on another (the RAG demo's bundle on /dev/nvme0n1). Building one
 * from float vectors is a host tool (tool_image_build.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "isp_wire.h"
#include "drive_reis_priv.h"

#define SAME(a, b) ((int)(a) == (int)(b))
_Static_assert(sizeof(struct reis_calib) == sizeof(struct isp_wire_reis_calib), "calib");
_Static_assert(SAME(REIS_DB_BF, ISP_REIS_BF) && SAME(REIS_DB_IVF, ISP_REIS_IVF), "kind");
_Static_assert(SAME(REIS_METRIC_IP, ISP_REIS_IP) && SAME(REIS_METRIC_L2, ISP_REIS_L2),
	       "metric");
_Static_assert(SAME(REIS_DOC_SUBPAGE, ISP_REIS_DOC_SUBPAGE) &&
	       SAME(REIS_DOC_PAGE, ISP_REIS_DOC_PAGE), "doc mode");
_Static_assert(SAME(REIS_DBF_INT8, ISP_REIS_DBF_INT8) &&
	       SAME(REIS_DBF_TAGS, ISP_REIS_DBF_TAGS) &&
	       SAME(REIS_DBF_IDS, ISP_REIS_DBF_IDS), "db flags");
_Static_assert(SAME(REIS_SEC_BIN, ISP_REIS_SEC_BIN) && SAME(REIS_SEC_INT8, ISP_REIS_SEC_INT8) &&
	       SAME(REIS_SEC_DOCS, ISP_REIS_SEC_DOCS) && SAME(REIS_SEC_TAGS, ISP_REIS_SEC_TAGS) &&
	       SAME(REIS_SEC_IDS, ISP_REIS_SEC_IDS) &&
	       SAME(REIS_SEC_CENTROIDS, ISP_REIS_SEC_CENTROIDS) &&
	       SAME(REIS_SEC_CLUSTERS, ISP_REIS_SEC_CLUSTERS) &&
	       SAME(REIS_SEC_CALIB, ISP_REIS_SEC_CALIB) &&
	       SAME(REIS_NSECTIONS, ISP_REIS_NSECTIONS), "sections");
_Static_assert(REIS_DB_MAX_DIM == ISP_REIS_MAX_DIM && REIS_DB_MIN_DIM == ISP_REIS_MIN_DIM &&
	       REIS_DB_MAX_NLIST == ISP_REIS_MAX_NLIST &&
	       REIS_DB_MAX_CALIB == ISP_REIS_MAX_CALIB, "limits");
_Static_assert(REIS_DB_NAME_LEN == ISP_REIS_NAME_LEN, "name");
#undef SAME

#define REIS_DBF_KNOWN (REIS_DBF_INT8 | REIS_DBF_TAGS | REIS_DBF_IDS)
/* A document bigger than this cannot be a page of any preset. */
#define REIS_DOC_MAX_LEN (64u << 10)

struct reis_image_priv *reis__image_priv(struct reis_db_image *img)
{
	if (!img->priv)
		img->priv = calloc(1, sizeof(struct reis_image_priv));
	return img->priv;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

const uint8_t *reis_db_image_doc(const struct reis_db_image *img, uint64_t i,
				 uint32_t *len)
{
	if (!img || !img->docs || !img->doc_index || i >= img->n) {
		if (len)
			*len = 0;
		return NULL;
	}
	if (len)
		*len = rd32(img->docs + img->doc_index[i]);
	return img->docs + img->doc_index[i] + 4;
}

int reis_db_image_check(struct reis_db_image *img, char *err, size_t errlen)
{
	struct reis_image_priv *p;
	uint64_t i, sum = 0, pos = 0;
	uint32_t j;

	if (!img)
		return -EINVAL;
	if (!img->did)
		return reis__errf(err, errlen, -EINVAL, "database id 0 is reserved");
	if (img->kind != REIS_DB_BF && img->kind != REIS_DB_IVF)
		return reis__errf(err, errlen, -EINVAL, "kind %u is neither BF (1) nor IVF (2)",
				  img->kind);
	if (img->dim < REIS_DB_MIN_DIM || img->dim > REIS_DB_MAX_DIM)
		return reis__errf(err, errlen, -EINVAL, "dimension %u is outside %u..%u", img->dim,
				  REIS_DB_MIN_DIM, REIS_DB_MAX_DIM);
	if (img->dim % 64)
		return reis__errf(err, errlen, -EINVAL, "dimension %u is not a multiple of 64 "
				  "(the binary codes are 64-bit words)", img->dim);
	if (!img->n || img->n > UINT32_MAX)
		return reis__errf(err, errlen, -EINVAL, "%llu entries: need 1..%u",
				  (unsigned long long)img->n, UINT32_MAX);
	if (img->flags & ~REIS_DBF_KNOWN)
		return reis__errf(err, errlen, -EINVAL, "unknown database flags 0x%x",
				  img->flags);
	if (!img->bin)
		return reis__errf(err, errlen, -EINVAL, "no binary codes");
	if (!!(img->flags & REIS_DBF_INT8) != !!img->int8 ||
	    !!(img->flags & REIS_DBF_TAGS) != !!img->tags ||
	    !!(img->flags & REIS_DBF_IDS) != !!img->ids)
		return reis__errf(err, errlen, -EINVAL, "flags 0x%x do not match the sections "
				  "given (int8, tags, ids)", img->flags);
	if (img->metric > REIS_METRIC_L2)
		return reis__errf(err, errlen, -EINVAL, "metric %u is neither IP nor L2",
				  img->metric);
	if (img->doc_mode > REIS_DOC_PAGE)
		return reis__errf(err, errlen, -EINVAL, "document mode %u unknown",
				  img->doc_mode);
	if ((img->doc_mode != REIS_DOC_NONE) != (img->docs && img->docs_bytes))
		return reis__errf(err, errlen, -EINVAL, "document mode %u %s documents",
				  img->doc_mode, img->docs ? "with" : "without");
	if (memchr(img->name, 0, sizeof(img->name)) == NULL)
		return reis__errf(err, errlen, -EINVAL, "name is not NUL-terminated");
	if (img->kind == REIS_DB_BF) {
		if (img->nlist || img->ncalib)
			return reis__errf(err, errlen, -EINVAL, "a brute-force database has no "
					  "clusters or calibration");
	} else {
		if (!img->nlist || img->nlist > REIS_DB_MAX_NLIST || img->nlist > img->n)
			return reis__errf(err, errlen, -EINVAL, "nlist %u not in 1..min(n, %u)",
					  img->nlist, REIS_DB_MAX_NLIST);
		if (!img->centroids || !img->cluster_sizes)
			return reis__errf(err, errlen, -EINVAL, "IVF needs centroids and "
					  "cluster sizes");
		for (j = 0; j < img->nlist; j++)
			sum += img->cluster_sizes[j];
		if (sum != img->n)
			return reis__errf(err, errlen, -EINVAL, "cluster sizes sum to %llu, not "
					  "n = %llu", (unsigned long long)sum,
					  (unsigned long long)img->n);
		if (img->ncalib > REIS_DB_MAX_CALIB || (img->ncalib && !img->calib))
			return reis__errf(err, errlen, -EINVAL, "%u calibration points (max %u)",
					  img->ncalib, REIS_DB_MAX_CALIB);
		for (j = 1; j < img->ncalib; j++)
			if (img->calib[j].recall <= img->calib[j - 1].recall ||
			    img->calib[j].nprobe <= img->calib[j - 1].nprobe)
				return reis__errf(err, errlen, -EINVAL, "calibration point %u "
						  "(recall %u, nprobe %u) does not ascend", j,
						  img->calib[j].recall, img->calib[j].nprobe);
		for (j = 0; j < img->ncalib; j++)
			if (img->calib[j].recall > 10000 || !img->calib[j].nprobe ||
			    img->calib[j].nprobe > img->nlist)
				return reis__errf(err, errlen, -EINVAL, "calibration point %u "
						  "(recall %u, nprobe %u) out of range", j,
						  img->calib[j].recall, img->calib[j].nprobe);
	}

	p = reis__image_priv(img);
	if (!p)
		return reis__errf(err, errlen, -ENOMEM, "out of memory");
	if (img->docs && !img->doc_index) {
		free(p->doc_index);
		p->doc_index = malloc((img->n + 1) * sizeof(*p->doc_index));
		if (!p->doc_index)
			return reis__errf(err, errlen, -ENOMEM, "out of memory");
		for (i = 0; i < img->n; i++) {
			uint32_t len;

			if (img->docs_bytes - pos < 4)
				return reis__errf(err, errlen, -EBADMSG, "documents: record %llu "
						  "starts past the end (%llu bytes)",
						  (unsigned long long)i,
						  (unsigned long long)img->docs_bytes);
			len = rd32(img->docs + pos);
			if (len > REIS_DOC_MAX_LEN || img->docs_bytes - pos - 4 < len)
				return reis__errf(err, errlen, -EBADMSG, "documents: record %llu "
						  "length %u runs past the end or exceeds %u",
						  (unsigned long long)i, len, REIS_DOC_MAX_LEN);
			p->doc_index[i] = pos;
			pos += 4 + (uint64_t)len;
		}
		if (pos != img->docs_bytes)
			return reis__errf(err, errlen, -EBADMSG, "documents: %llu bytes after "
					  "the last of %llu records",
					  (unsigned long long)(img->docs_bytes - pos),
					  (unsigned long long)img->n);
		p->doc_index[img->n] = pos;
		img->doc_index = p->doc_index;
	}
	if (img->kind == REIS_DB_IVF) {
		free(p->cluster_start);
		p->cluster_start = malloc(((size_t)img->nlist + 1) * sizeof(uint64_t));
		if (!p->cluster_start)
			return reis__errf(err, errlen, -ENOMEM, "out of memory");
		p->cluster_start[0] = 0;
		for (j = 0; j < img->nlist; j++)
			p->cluster_start[j + 1] = p->cluster_start[j] + img->cluster_sizes[j];
	}
	return 0;
}

void reis_db_image_free(struct reis_db_image *img)
{
	struct reis_image_priv *p;

	if (!img)
		return;
	p = img->priv;
	if (p) {
		free(p->file);
		free(p->bin);
		free(p->int8);
		free(p->tags);
		free(p->ids);
		free(p->docs);
		free(p->doc_index);
		free(p->centroids);
		free(p->cluster_sizes);
		free(p->calib);
		free(p->recall);
		free(p->cluster_start);
		reis_quant_free(&p->quant);
		free(p);
	}
	memset(img, 0, sizeof(*img));
}

const void *reis_db_image_extra(const struct reis_db_image *img, uint32_t id,
				uint64_t *len)
{
	unsigned i;

	for (i = 0; img && i < img->nextra && i < REIS_IMAGE_MAX_EXTRA; i++)
		if (img->extra[i].id == id) {
			if (len)
				*len = img->extra[i].len;
			return img->extra[i].data;
		}
	return NULL;
}

/* ---------------------------------------------------------------------- */
/* Image files                                                             */
/* ---------------------------------------------------------------------- */

#define REIS_IMG_HDR 4096u
#define REIS_IMG_ALIGN 4096u
#define REIS_IMG_MAX_SEC 32u
#define REIS_IMG_SEC_QMEAN 0x10u
#define REIS_IMG_SEC_QSCALE 0x11u
#define REIS_IMG_EXTRA_MIN 0x100u
/* An image larger than this is refused when read. */
#define REIS_IMG_MAX_BYTES (UINT64_C(1) << 36)

struct reis_img_sec {
	uint32_t id;
	uint32_t rsvd;
	uint64_t off;		/* from the image start, REIS_IMG_ALIGN aligned */
	uint64_t len;
};

struct reis_img_hdr {
	char magic[8];			/* "REISIMG1" */
	uint32_t version;		/* 1 */
	uint32_t hdr_bytes;		/* REIS_IMG_HDR */
	uint64_t total_bytes;
	uint64_t checksum;		/* FNV-1a 64 of [hdr_bytes, total_bytes) */
	struct isp_wire_reis_create create;
	uint32_t nsec;
	uint32_t quant_metric;
	uint32_t quant_flags;
	uint32_t have_quant;
	struct reis_img_sec sec[REIS_IMG_MAX_SEC];
	uint64_t hdr_checksum;		/* FNV-1a 64 of the bytes before it */
};
_Static_assert(sizeof(struct reis_img_hdr) <= REIS_IMG_HDR, "image header");

static uint64_t reis_align(uint64_t v)
{
	return (v + REIS_IMG_ALIGN - 1) / REIS_IMG_ALIGN * REIS_IMG_ALIGN;
}

static void reis_img_add(struct reis_img_hdr *h, const void **ptrs, uint32_t id,
			 const void *data, uint64_t len, uint64_t *pos)
{
	if (!data || !len)
		return;
	ptrs[h->nsec] = data;
	h->sec[h->nsec].id = id;
	h->sec[h->nsec].off = *pos;
	h->sec[h->nsec].len = len;
	h->nsec++;
	*pos = reis_align(*pos + len);
}

static int reis_write_all(int fd, const void *buf, uint64_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len > (1u << 30) ? (1u << 30) : (size_t)len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		len -= (uint64_t)w;
	}
	return 0;
}

int64_t reis_db_image_write(const struct reis_db_image *img, int fd)
{
	static const uint8_t zeros[REIS_IMG_ALIGN];
	const void *ptrs[REIS_IMG_MAX_SEC];
	struct reis_img_hdr h;
	uint8_t *hbuf;
	uint64_t pos = REIS_IMG_HDR, bytes, sum = REIS_FNV64_INIT, at = REIS_IMG_HDR;
	unsigned i;
	int ret;

	if (!img || fd < 0 || !img->bin)
		return -EINVAL;
	bytes = img->dim / 8;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, "REISIMG1", 8);
	h.version = 1;
	h.hdr_bytes = REIS_IMG_HDR;
	h.create.did = img->did;
	h.create.kind = img->kind;
	h.create.flags = img->flags;
	h.create.dim = img->dim;
	h.create.n = img->n;
	h.create.nlist = img->nlist;
	h.create.ncalib = img->ncalib;
	h.create.doc_mode = img->doc_mode;
	h.create.metric = img->metric;
	h.create.df_threshold = img->df_threshold;
	h.create.group = img->group;
	h.create.docs_bytes = img->docs_bytes;
	h.create.timestamp = img->timestamp;
	memcpy(h.create.name, img->name, REIS_DB_NAME_LEN);

	reis_img_add(&h, ptrs, REIS_SEC_BIN, img->bin, img->n * bytes, &pos);
	reis_img_add(&h, ptrs, REIS_SEC_INT8, img->int8, img->int8 ? img->n * img->dim : 0,
		     &pos);
	reis_img_add(&h, ptrs, REIS_SEC_DOCS, img->docs, img->docs_bytes, &pos);
	reis_img_add(&h, ptrs, REIS_SEC_TAGS, img->tags, img->tags ? img->n * 4 : 0, &pos);
	reis_img_add(&h, ptrs, REIS_SEC_IDS, img->ids, img->ids ? img->n * 8 : 0, &pos);
	reis_img_add(&h, ptrs, REIS_SEC_CENTROIDS, img->centroids,
		     img->centroids ? (uint64_t)img->nlist * bytes : 0, &pos);
	reis_img_add(&h, ptrs, REIS_SEC_CLUSTERS, img->cluster_sizes,
		     img->cluster_sizes ? (uint64_t)img->nlist * 4 : 0, &pos);
	reis_img_add(&h, ptrs, REIS_SEC_CALIB, img->calib, (uint64_t)img->ncalib * 8, &pos);
	if (img->quant && img->quant->mean && img->quant->dim == img->dim) {
		h.have_quant = 1;
		h.quant_metric = img->quant->metric;
		h.quant_flags = img->quant->flags;
		reis_img_add(&h, ptrs, REIS_IMG_SEC_QMEAN, img->quant->mean, bytes * 32, &pos);
		reis_img_add(&h, ptrs, REIS_IMG_SEC_QSCALE, img->quant->scale, bytes * 32,
			     &pos);
	}
	for (i = 0; i < img->nextra && i < REIS_IMAGE_MAX_EXTRA; i++) {
		if (img->extra[i].id < REIS_IMG_EXTRA_MIN)
			return -EINVAL;
		reis_img_add(&h, ptrs, img->extra[i].id, img->extra[i].data, img->extra[i].len,
			     &pos);
	}
	h.total_bytes = pos;
	/* The checksum covers sections and their zero padding, in file order. */
	for (i = 0; i < h.nsec; i++) {
		uint64_t pad = reis_align(h.sec[i].off + h.sec[i].len) - h.sec[i].off -
			       h.sec[i].len;

		sum = reis__fnv64(sum, ptrs[i], h.sec[i].len);
		sum = reis__fnv64(sum, zeros, pad);
	}
	h.checksum = sum;
	h.hdr_checksum = reis__fnv64(REIS_FNV64_INIT, &h, offsetof(struct reis_img_hdr,
								   hdr_checksum));
	hbuf = calloc(1, REIS_IMG_HDR);
	if (!hbuf)
		return -ENOMEM;
	memcpy(hbuf, &h, sizeof(h));
	ret = reis_write_all(fd, hbuf, REIS_IMG_HDR);
	free(hbuf);
	for (i = 0; i < h.nsec && !ret; i++) {
		uint64_t pad;

		if (h.sec[i].off != at)
			return -EIO;
		pad = reis_align(at + h.sec[i].len) - at - h.sec[i].len;
		ret = reis_write_all(fd, ptrs[i], h.sec[i].len);
		if (!ret && pad)
			ret = reis_write_all(fd, zeros, pad);
		at += h.sec[i].len + pad;
	}
	return ret ? ret : (int64_t)pos;
}

int reis_db_image_save(const struct reis_db_image *img, const char *path)
{
	int fd, ret;
	int64_t w;

	if (!img || !path)
		return -EINVAL;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	w = reis_db_image_write(img, fd);
	ret = w < 0 ? (int)w : 0;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

static int reis_pread_all(int fd, void *buf, uint64_t len, uint64_t off)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t r = pread(fd, p, len > (1u << 30) ? (1u << 30) : (size_t)len,
				  (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -ENODATA;
		p += r;
		off += (uint64_t)r;
		len -= (uint64_t)r;
	}
	return 0;
}

/* The header at @off: magic, checksum, version, sections in place. */
static int reis_img_read_hdr(int fd, uint64_t off, struct reis_img_hdr *h, char *err,
			     size_t errlen)
{
	uint64_t prev_end = REIS_IMG_HDR;
	unsigned i;
	int ret;

	ret = reis_pread_all(fd, h, sizeof(*h), off);
	if (ret == -ENODATA || (!ret && memcmp(h->magic, "REISIMG1", 8)))
		return reis__errf(err, errlen, -ENOMSG, "no database image at offset %llu "
				  "(no REISIMG1 magic)", (unsigned long long)off);
	if (ret)
		return reis__errf(err, errlen, ret, "reading the image header: %s",
				  strerror(-ret));
	if (h->hdr_checksum != reis__fnv64(REIS_FNV64_INIT, h,
					   offsetof(struct reis_img_hdr, hdr_checksum)))
		return reis__errf(err, errlen, -EBADMSG, "image header checksum mismatch");
	if (h->version != 1 || h->hdr_bytes != REIS_IMG_HDR || h->nsec > REIS_IMG_MAX_SEC ||
	    h->total_bytes < REIS_IMG_HDR || h->total_bytes > REIS_IMG_MAX_BYTES ||
	    h->total_bytes % REIS_IMG_ALIGN)
		return reis__errf(err, errlen, -EBADMSG, "image header: version %u, %u "
				  "sections, %llu bytes: unsupported or corrupt", h->version,
				  h->nsec, (unsigned long long)h->total_bytes);
	for (i = 0; i < h->nsec; i++) {
		const struct reis_img_sec *s = &h->sec[i];

		if (s->off != prev_end || s->len > h->total_bytes - s->off || !s->len)
			return reis__errf(err, errlen, -EBADMSG, "image section %u (id 0x%x) "
					  "at %llu+%llu is out of place", i, s->id,
					  (unsigned long long)s->off,
					  (unsigned long long)s->len);
		prev_end = reis_align(s->off + s->len);
	}
	if (prev_end != h->total_bytes)
		return reis__errf(err, errlen, -EBADMSG, "image sections do not fill %llu bytes",
				  (unsigned long long)h->total_bytes);
	return 0;
}

/* The whole image into memory, its checksum verified. */
static int reis_img_read_file(int fd, uint64_t off, const struct reis_img_hdr *h,
			      uint8_t **out, char *err, size_t errlen)
{
	uint8_t *file = malloc(h->total_bytes);
	int ret;

	if (!file)
		return reis__errf(err, errlen, -ENOMEM, "out of memory for a %llu-byte image",
				  (unsigned long long)h->total_bytes);
	ret = reis_pread_all(fd, file, h->total_bytes, off);
	if (ret) {
		free(file);
		return reis__errf(err, errlen, ret == -ENODATA ? -EBADMSG : ret, "reading "
				  "the image: %s", ret == -ENODATA ? "truncated" :
				  strerror(-ret));
	}
	if (reis__fnv64(REIS_FNV64_INIT, file + REIS_IMG_HDR, h->total_bytes - REIS_IMG_HDR) !=
	    h->checksum) {
		free(file);
		return reis__errf(err, errlen, -EBADMSG, "image checksum mismatch (corrupt "
				  "or partly overwritten)");
	}
	*out = file;
	return 0;
}

/* The database's description from the header's create record. */
static int reis_img_describe(struct reis_db_image *img, const struct reis_img_hdr *h,
			     char *err, size_t errlen)
{
	img->did = h->create.did;
	img->kind = h->create.kind;
	img->flags = h->create.flags;
	img->dim = h->create.dim;
	img->n = h->create.n;
	img->nlist = h->create.nlist;
	img->ncalib = h->create.ncalib;
	img->doc_mode = h->create.doc_mode;
	img->metric = h->create.metric;
	img->df_threshold = h->create.df_threshold;
	img->group = h->create.group;
	img->timestamp = h->create.timestamp;
	memcpy(img->name, h->create.name, REIS_DB_NAME_LEN);
	img->name[REIS_DB_NAME_LEN] = '\0';
	if (img->dim < REIS_DB_MIN_DIM || img->dim > REIS_DB_MAX_DIM || img->dim % 64 ||
	    !img->n || img->n > UINT32_MAX || img->nlist > REIS_DB_MAX_NLIST ||
	    img->ncalib > REIS_DB_MAX_CALIB)
		return reis__errf(err, errlen, -EBADMSG, "image: dimension %u, %llu entries, "
				  "nlist %u out of range", img->dim,
				  (unsigned long long)img->n, img->nlist);
	return 0;
}

/* A quantizer half (means or scales), copied so the image owns it. */
static int reis_img_quant_half(struct reis_image_priv *p, const struct reis_img_sec *s,
			       const uint8_t *d, uint64_t want, char *err, size_t errlen)
{
	float *f = malloc(want);

	if (!f)
		return reis__errf(err, errlen, -ENOMEM, "out of memory");
	memcpy(f, d, want);
	if (s->id == REIS_IMG_SEC_QMEAN) {
		free(p->quant.mean);
		p->quant.mean = f;
	} else {
		free(p->quant.scale);
		p->quant.scale = f;
	}
	return 0;
}

/* One section: where it goes in @img, and its length checked against what
 * the header implies. */
static int reis_img_section(struct reis_db_image *img, struct reis_image_priv *p,
			    const struct reis_img_hdr *h, const struct reis_img_sec *s,
			    const uint8_t *d, char *err, size_t errlen)
{
	uint64_t want = 0, bytes = img->dim / 8;
	int ret;

	switch (s->id) {
	case REIS_SEC_BIN: want = img->n * bytes; img->bin = d; break;
	case REIS_SEC_INT8: want = img->n * img->dim; img->int8 = (const int8_t *)d; break;
	case REIS_SEC_DOCS:
		want = h->create.docs_bytes;
		img->docs = d;
		img->docs_bytes = s->len;
		break;
	case REIS_SEC_TAGS: want = img->n * 4; img->tags = (const uint32_t *)d; break;
	case REIS_SEC_IDS: want = img->n * 8; img->ids = (const uint64_t *)d; break;
	case REIS_SEC_CENTROIDS:
		want = (uint64_t)img->nlist * bytes;
		img->centroids = d;
		break;
	case REIS_SEC_CLUSTERS:
		want = (uint64_t)img->nlist * 4;
		img->cluster_sizes = (const uint32_t *)d;
		break;
	case REIS_SEC_CALIB:
		want = (uint64_t)img->ncalib * 8;
		img->calib = (const struct reis_calib *)d;
		break;
	case REIS_IMG_SEC_QMEAN:
	case REIS_IMG_SEC_QSCALE:
		want = bytes * 32;
		if (s->len == want && h->have_quant &&
		    (ret = reis_img_quant_half(p, s, d, want, err, errlen)))
			return ret;
		break;
	default:
		if (s->id < REIS_IMG_EXTRA_MIN || img->nextra >= REIS_IMAGE_MAX_EXTRA)
			return reis__errf(err, errlen, -EBADMSG, "image: unknown section 0x%x",
					  s->id);
		want = s->len;
		img->extra[img->nextra].id = s->id;
		img->extra[img->nextra].data = d;
		img->extra[img->nextra].len = s->len;
		img->nextra++;
		break;
	}
	if (s->len != want)
		return reis__errf(err, errlen, -EBADMSG, "image: section 0x%x has %llu bytes, "
				  "the header implies %llu", s->id, (unsigned long long)s->len,
				  (unsigned long long)want);
	return 0;
}

/* The stored quantizer, when the image has one: complete and sane. */
static int reis_img_quant(struct reis_db_image *img, struct reis_image_priv *p,
			  const struct reis_img_hdr *h, char *err, size_t errlen)
{
	uint32_t d;

	if (!h->have_quant)
		return 0;
	if (!p->quant.mean || !p->quant.scale || h->quant_metric > REIS_METRIC_L2)
		return reis__errf(err, errlen, -EBADMSG, "image: quantizer incomplete");
	for (d = 0; d < img->dim; d++)
		if (!isfinite(p->quant.mean[d]) || !(p->quant.scale[d] > 0) ||
		    !isfinite(p->quant.scale[d]))
			return reis__errf(err, errlen, -EBADMSG, "image: quantizer dimension %u "
					  "is not finite and positive", d);
	p->quant.dim = img->dim;
	p->quant.metric = h->quant_metric;
	p->quant.flags = h->quant_flags & REIS_QUANT_CENTER;
	p->have_quant = 1;
	img->quant = &p->quant;
	return 0;
}

int reis_db_image_read(int fd, uint64_t off, struct reis_db_image *img, char *err,
		       size_t errlen)
{
	struct reis_img_hdr h;
	struct reis_image_priv *p;
	uint8_t *file = NULL;
	unsigned i;
	int ret;

	if (fd < 0 || !img)
		return -EINVAL;
	memset(img, 0, sizeof(*img));
	ret = reis_img_read_hdr(fd, off, &h, err, errlen);
	if (!ret)
		ret = reis_img_read_file(fd, off, &h, &file, err, errlen);
	if (ret)
		return ret;
	p = reis__image_priv(img);
	if (!p) {
		free(file);
		return reis__errf(err, errlen, -ENOMEM, "out of memory");
	}
	p->file = file;
	ret = reis_img_describe(img, &h, err, errlen);
	for (i = 0; !ret && i < h.nsec; i++)
		ret = reis_img_section(img, p, &h, &h.sec[i], file + h.sec[i].off, err, errlen);
	if (!ret)
		ret = reis_img_quant(img, p, &h, err, errlen);
	if (!ret) {
		ret = reis_db_image_check(img, err, errlen);
		if (ret == -EINVAL)
			ret = -EBADMSG;
	}
	if (ret)
		reis_db_image_free(img);
	return ret;
}

int reis_db_image_load(const char *path, struct reis_db_image *img, char *err,
		       size_t errlen)
{
	int fd, ret;

	if (!path || !img)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		memset(img, 0, sizeof(*img));
		return reis__errf(err, errlen, ret, "%s: %s", path, strerror(-ret));
	}
	ret = reis_db_image_read(fd, 0, img, err, errlen);
	close(fd);
	return ret;
}
