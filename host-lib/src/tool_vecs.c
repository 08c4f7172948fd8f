/* SPDX-License-Identifier: MIT */
/*
 * tool_vecs.c - vector files: .fvecs/.bvecs/.ivecs (per vector an int32
 * dimension then the elements, the TEXMEX/ANN_SIFT layout) and NumPy .npy
 * (format 1.0 and 2.0, C order). A file is read whole and compacted in
 * place; every length in it is checked against the file size and the
 * REIS_VEC_MAX_* bounds before it is used.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libreis_tools.h"
#include "drive_reis_priv.h"

static uint32_t reis_vec_esz(uint32_t type)
{
	switch (type) {
	case REIS_VEC_F32: return 4;
	case REIS_VEC_I32: return 4;
	case REIS_VEC_I8: return 1;
	case REIS_VEC_U8: return 1;
	default: return 0;
	}
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* Total element bytes of n x dim within the bounds, or 0. */
static uint64_t reis_vec_bytes(uint64_t n, uint32_t dim, uint32_t esz)
{
	if (!n || !dim || dim > REIS_VEC_MAX_DIM)
		return 0;
	if (n > REIS_VEC_MAX_BYTES / ((uint64_t)dim * esz))
		return 0;
	return n * dim * esz;
}

/*
 * .xvecs in place: @buf (len bytes, malloc'd) becomes n*dim elements.
 */
static int reis_xvecs_parse(uint8_t *buf, uint64_t len, uint32_t type, const char *name,
			    struct reis_vecs *out, char *err, size_t errlen)
{
	uint32_t esz = reis_vec_esz(type), dim;
	uint64_t row, n, i;

	if (len < 4)
		return reis__errf(err, errlen, -EINVAL, "%s: %llu bytes: too short for a "
				  "vector (4-byte dimension first)", name,
				  (unsigned long long)len);
	dim = rd32(buf);
	if (!dim || dim > REIS_VEC_MAX_DIM)
		return reis__errf(err, errlen, -EINVAL, "%s: vector 0 has dimension %d, "
				  "not in 1..%u (is this really a %s file?)", name,
				  (int32_t)dim, REIS_VEC_MAX_DIM,
				  type == REIS_VEC_F32 ? ".fvecs" :
				  type == REIS_VEC_U8 ? ".bvecs" : ".ivecs");
	row = 4 + (uint64_t)dim * esz;
	if (len % row)
		return reis__errf(err, errlen, -EINVAL, "%s: size %llu is not a multiple of "
				  "the row size %llu (dimension %u): truncated or not a "
				  "vector file", name, (unsigned long long)len,
				  (unsigned long long)row, dim);
	n = len / row;
	if (!reis_vec_bytes(n, dim, esz))
		return reis__errf(err, errlen, -EINVAL, "%s: %llu vectors of %u elements "
				  "exceed %llu bytes", name, (unsigned long long)n, dim,
				  (unsigned long long)REIS_VEC_MAX_BYTES);
	for (i = 0; i < n; i++) {
		uint32_t d = rd32(buf + i * row);

		if (d != dim)
			return reis__errf(err, errlen, -EINVAL, "%s: vector %llu has "
					  "dimension %d, not %u like vector 0", name,
					  (unsigned long long)i, (int32_t)d, dim);
		/* Rows only move towards the front: memmove in place. */
		memmove(buf + i * (row - 4), buf + i * row + 4, row - 4);
	}
	out->n = n;
	out->dim = dim;
	out->type = type;
	out->data = buf;
	return 0;
}

/* Skip spaces in the npy header dictionary. */
static const char *npy_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* Find the value of key 'key' in the header dict; NULL if absent. */
static const char *npy_key(const char *h, const char *end, const char *key)
{
	size_t kl = strlen(key);
	const char *p;

	for (p = h; p + kl + 2 < end; p++) {
		if ((*p == '\'' || *p == '"') && p[kl + 1] == *p &&
		    !memcmp(p + 1, key, kl)) {
			p = npy_ws(p + kl + 2, end);
			if (p >= end || *p != ':')
				return NULL;
			return npy_ws(p + 1, end);
		}
	}
	return NULL;
}

static int reis_npy_parse(uint8_t *buf, uint64_t len, const char *name,
			  struct reis_vecs *out, char *err, size_t errlen)
{
	uint64_t hlen, data_off, dims[2] = { 0, 0 }, n, data_len;
	unsigned ndims = 0, major;
	const char *h, *end, *v;
	uint32_t type, dim;
	char descr[8];
	size_t i;

	if (len < 10 || memcmp(buf, "\x93NUMPY", 6))
		return reis__errf(err, errlen, -EINVAL, "%s: not a .npy file (no \\x93NUMPY "
				  "magic)", name);
	major = buf[6];
	if (major == 1) {
		hlen = (uint64_t)buf[8] | (uint64_t)buf[9] << 8;
		data_off = 10 + hlen;
	} else if (major == 2) {
		if (len < 12)
			return reis__errf(err, errlen, -EINVAL, "%s: truncated header", name);
		hlen = rd32(buf + 8);
		data_off = 12 + hlen;
	} else {
		return reis__errf(err, errlen, -EINVAL, "%s: .npy format version %u.%u is "
				  "not supported (1.0 and 2.0 are)", name, major, buf[7]);
	}
	if (hlen > 65536 || data_off > len)
		return reis__errf(err, errlen, -EINVAL, "%s: header length %llu runs past "
				  "the file (%llu bytes)", name, (unsigned long long)hlen,
				  (unsigned long long)len);
	h = (const char *)buf + data_off - hlen;
	end = (const char *)buf + data_off;
	for (i = 0; i < hlen; i++)
		if ((unsigned char)h[i] >= 0x80 || (h[i] < 0x20 && h[i] != '\n'))
			return reis__errf(err, errlen, -EINVAL, "%s: header is not printable "
					  "ASCII", name);
	if (!hlen || *h != '{')
		return reis__errf(err, errlen, -EINVAL, "%s: header is not a dictionary",
				  name);

	v = npy_key(h, end, "descr");
	if (!v || (*v != '\'' && *v != '"'))
		return reis__errf(err, errlen, -EINVAL, "%s: header has no 'descr'", name);
	for (i = 0; i + 1 < sizeof(descr) && v + 1 + i < end && v[1 + i] != *v; i++)
		descr[i] = v[1 + i];
	descr[i] = '\0';
	if (!strcmp(descr, "<f4"))
		type = REIS_VEC_F32;
	else if (!strcmp(descr, "|i1") || !strcmp(descr, "<i1") || !strcmp(descr, "i1"))
		type = REIS_VEC_I8;
	else if (!strcmp(descr, "|u1") || !strcmp(descr, "<u1") || !strcmp(descr, "u1"))
		type = REIS_VEC_U8;
	else if (!strcmp(descr, "<i4"))
		type = REIS_VEC_I32;
	else
		return reis__errf(err, errlen, -EINVAL, "%s: dtype '%s' is not supported "
				  "(float32 '<f4', int8 '|i1', uint8 '|u1', int32 '<i4')",
				  name, descr);

	v = npy_key(h, end, "fortran_order");
	if (!v)
		return reis__errf(err, errlen, -EINVAL, "%s: header has no 'fortran_order'",
				  name);
	if (end - v >= 4 && !memcmp(v, "True", 4))
		return reis__errf(err, errlen, -EINVAL, "%s: Fortran-order arrays are not "
				  "supported (save with np.ascontiguousarray)", name);
	if (end - v < 5 || memcmp(v, "False", 5))
		return reis__errf(err, errlen, -EINVAL, "%s: bad 'fortran_order' value",
				  name);

	v = npy_key(h, end, "shape");
	if (!v || *v != '(')
		return reis__errf(err, errlen, -EINVAL, "%s: header has no 'shape' tuple",
				  name);
	v++;
	for (;;) {
		uint64_t x = 0;
		int digits = 0;

		v = npy_ws(v, end);
		if (v < end && *v == ')')
			break;
		while (v < end && *v >= '0' && *v <= '9') {
			if (x > (UINT64_MAX - 9) / 10)
				return reis__errf(err, errlen, -EINVAL, "%s: shape overflows",
						  name);
			x = x * 10 + (uint64_t)(*v++ - '0');
			digits++;
		}
		if (!digits)
			return reis__errf(err, errlen, -EINVAL, "%s: malformed 'shape'", name);
		if (ndims == 2)
			return reis__errf(err, errlen, -EINVAL, "%s: arrays of more than 2 "
					  "dimensions are not supported", name);
		dims[ndims++] = x;
		v = npy_ws(v, end);
		if (v < end && *v == ',')
			v++;
		else if (v >= end || *v != ')')
			return reis__errf(err, errlen, -EINVAL, "%s: malformed 'shape'", name);
	}
	if (ndims == 0)
		return reis__errf(err, errlen, -EINVAL, "%s: a scalar is not a vector set",
				  name);
	if (ndims == 1) {
		n = 1;
		dims[1] = dims[0];
	} else {
		n = dims[0];
	}
	if (!n || !dims[1] || dims[1] > REIS_VEC_MAX_DIM)
		return reis__errf(err, errlen, -EINVAL, "%s: shape (%llu, %llu): need at "
				  "least one vector of 1..%u elements", name,
				  (unsigned long long)n, (unsigned long long)dims[1],
				  REIS_VEC_MAX_DIM);
	dim = (uint32_t)dims[1];
	data_len = reis_vec_bytes(n, dim, reis_vec_esz(type));
	if (!data_len)
		return reis__errf(err, errlen, -EINVAL, "%s: %llu x %u elements exceed %llu "
				  "bytes", name, (unsigned long long)n, dim,
				  (unsigned long long)REIS_VEC_MAX_BYTES);
	if (len - data_off != data_len)
		return reis__errf(err, errlen, -EINVAL, "%s: %llu data bytes, but shape "
				  "(%llu, %u) of %s needs %llu: %s", name,
				  (unsigned long long)(len - data_off), (unsigned long long)n,
				  dim, descr, (unsigned long long)data_len,
				  len - data_off < data_len ? "truncated" : "trailing bytes");
	memmove(buf, buf + data_off, data_len);
	out->n = n;
	out->dim = dim;
	out->type = type;
	out->data = buf;
	return 0;
}

static int reis_vec_format(const char *format, uint32_t *type)
{
	if (!strcmp(format, "fvecs"))
		*type = REIS_VEC_F32;
	else if (!strcmp(format, "bvecs"))
		*type = REIS_VEC_U8;
	else if (!strcmp(format, "ivecs"))
		*type = REIS_VEC_I32;
	else if (!strcmp(format, "npy"))
		*type = 0;
	else
		return -EINVAL;
	return 0;
}

/* Parse @buf (malloc'd, ownership taken) in place. */
static int reis_vecs_parse_own(uint8_t *buf, uint64_t len, const char *format,
			       const char *name, struct reis_vecs *out, char *err,
			       size_t errlen)
{
	uint32_t type;
	int ret;

	memset(out, 0, sizeof(*out));
	if (reis_vec_format(format, &type)) {
		free(buf);
		return reis__errf(err, errlen, -EINVAL, "%s: unknown format '%s' (fvecs, "
				  "bvecs, ivecs, npy)", name, format);
	}
	ret = type ? reis_xvecs_parse(buf, len, type, name, out, err, errlen) :
		     reis_npy_parse(buf, len, name, out, err, errlen);
	if (ret) {
		free(buf);
		memset(out, 0, sizeof(*out));
		return ret;
	}
	/* Give back the headers' bytes. */
	{
		uint64_t bytes = out->n * out->dim * reis_vec_esz(out->type);
		void *p = realloc(out->data, bytes);

		if (p)
			out->data = p;
	}
	return 0;
}

int reis_vecs_parse(const void *buf, size_t len, const char *format,
		    struct reis_vecs *out, char *err, size_t errlen)
{
	uint8_t *copy;

	if (!out || !format || (!buf && len))
		return -EINVAL;
	copy = malloc(len ? len : 1);
	if (!copy)
		return reis__errf(err, errlen, -ENOMEM, "out of memory");
	if (len)
		memcpy(copy, buf, len);
	return reis_vecs_parse_own(copy, len, format, "buffer", out, err, errlen);
}

int reis_vecs_load(const char *path, struct reis_vecs *out, char *err, size_t errlen)
{
	const char *dot, *format;
	struct stat st;
	uint8_t *buf;
	uint64_t got = 0;
	int fd, ret;

	if (!path || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	dot = strrchr(path, '.');
	format = dot ? dot + 1 : "";
	{
		uint32_t type;

		if (reis_vec_format(format, &type))
			return reis__errf(err, errlen, -EINVAL, "%s: unknown suffix (use .fvecs, "
					  ".bvecs, .ivecs or .npy)", path);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		return reis__errf(err, errlen, ret, "%s: %s", path, strerror(-ret));
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return reis__errf(err, errlen, -EINVAL, "%s: not a regular file", path);
	}
	if ((uint64_t)st.st_size > REIS_VEC_MAX_BYTES + (UINT64_C(1) << 30)) {
		close(fd);
		return reis__errf(err, errlen, -EINVAL, "%s: %lld bytes is too large", path,
				  (long long)st.st_size);
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		close(fd);
		return reis__errf(err, errlen, -ENOMEM, "%s: out of memory", path);
	}
	while (got < (uint64_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)((uint64_t)st.st_size - got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			ret = r < 0 ? -errno : -EIO;
			close(fd);
			free(buf);
			return reis__errf(err, errlen, ret, "%s: read: %s", path,
					  r < 0 ? strerror(-ret) : "file shrank");
		}
		got += (uint64_t)r;
	}
	close(fd);
	return reis_vecs_parse_own(buf, got, format, path, out, err, errlen);
}

int reis_vecs_to_f32(struct reis_vecs *v)
{
	uint64_t i, cnt;
	float *f;

	if (!v || !v->data)
		return -EINVAL;
	if (v->type == REIS_VEC_F32)
		return 0;
	cnt = v->n * v->dim;
	f = malloc(cnt * sizeof(*f));
	if (!f)
		return -ENOMEM;
	for (i = 0; i < cnt; i++) {
		switch (v->type) {
		case REIS_VEC_I8: f[i] = ((const int8_t *)v->data)[i]; break;
		case REIS_VEC_U8: f[i] = ((const uint8_t *)v->data)[i]; break;
		default: f[i] = (float)((const int32_t *)v->data)[i]; break;
		}
	}
	free(v->data);
	v->data = f;
	v->type = REIS_VEC_F32;
	return 0;
}

void reis_vecs_free(struct reis_vecs *v)
{
	if (!v)
		return;
	free(v->data);
	memset(v, 0, sizeof(*v));
}

int reis_fvecs_write(const char *path, const float *x, uint64_t n, uint32_t dim)
{
	FILE *f;
	uint64_t i;
	int32_t d = (int32_t)dim;
	int ret = 0;

	if (!path || (!x && n) || !dim || dim > REIS_VEC_MAX_DIM)
		return -EINVAL;
	f = fopen(path, "wb");
	if (!f)
		return -errno;
	for (i = 0; i < n && !ret; i++)
		if (fwrite(&d, 4, 1, f) != 1 || fwrite(x + i * dim, 4, dim, f) != dim)
			ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}
