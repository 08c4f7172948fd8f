/* SPDX-License-Identifier: MIT */
/*
 * cs_mem.c - the memory namespace (Subsystem Local Memory, CSI 03h): bytes
 * in controller DRAM, backed in 64 KiB chunks on first write and charged
 * to the controller DRAM budget then ("slm"); Memory Read, Write and Fill
 * (docs/command-set.md §9.7).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cs_int.h"

#define CS_DRAM_NAME "slm"

int cs_mem_init(struct cs_state *cs)
{
	cs->nchunks = cs->slm_bytes >> CS_CHUNK_LOG2;
	if (!cs->nchunks)
		return 0;
	cs->chunk = calloc(cs->nchunks, sizeof(*cs->chunk));
	return cs->chunk ? 0 : -ENOMEM;
}

void cs_mem_free(struct cs_state *cs)
{
	uint64_t i;

	for (i = 0; cs->chunk && i < cs->nchunks; i++)
		free(cs->chunk[i]);
	free(cs->chunk);
	if (cs->chunks_used)
		fs_dram_release(cs->fs, CS_DRAM_NAME, cs->chunks_used * CS_CHUNK);
	cs->chunk = NULL;
	cs->chunks_used = 0;
}

/* Back chunk @c (cs->lock held); -ENOMEM when host RAM or the DRAM budget
 * is out. */
static int cs_chunk_get(struct cs_state *cs, uint64_t c)
{
	uint8_t *m;

	if (cs->chunk[c])
		return 0;
	if (fs_dram_reserve(cs->fs, CS_DRAM_NAME, CS_CHUNK))
		return -ENOMEM;
	m = calloc(1, CS_CHUNK);
	if (!m) {
		fs_dram_release(cs->fs, CS_DRAM_NAME, CS_CHUNK);
		return -ENOMEM;
	}
	cs->chunk[c] = m;
	cs->chunks_used++;
	return 0;
}

/* Copy [off, off + len) out; never-written bytes read as zero. Lock held. */
static void cs_mem_read_locked(struct cs_state *cs, uint64_t off, uint8_t *out, size_t len)
{
	while (len) {
		uint64_t c = off >> CS_CHUNK_LOG2;
		size_t in = (size_t)(off & (CS_CHUNK - 1)), n = CS_CHUNK - in;

		if (n > len)
			n = len;
		if (cs->chunk[c])
			memcpy(out, cs->chunk[c] + in, n);
		else
			memset(out, 0, n);
		out += n;
		off += n;
		len -= n;
	}
}

void cs_mem_read(struct cs_state *cs, uint64_t off, void *buf, size_t len)
{
	uint8_t *out = buf;

	while (len) {
		size_t n = len < CS_COPY_STEP ? len : CS_COPY_STEP;

		pthread_mutex_lock(&cs->lock);
		cs_mem_read_locked(cs, off, out, n);
		pthread_mutex_unlock(&cs->lock);
		out += n;
		off += n;
		len -= n;
	}
}

/* Back every chunk of [off, off + len) first, so a write either lands
 * whole or (budget out) not at all. */
static int cs_mem_back(struct cs_state *cs, uint64_t off, uint64_t len)
{
	uint64_t c, last;
	int ret = 0;

	if (!len)
		return 0;
	last = (off + len - 1) >> CS_CHUNK_LOG2;
	pthread_mutex_lock(&cs->lock);
	for (c = off >> CS_CHUNK_LOG2; c <= last && !ret; c++)
		ret = cs_chunk_get(cs, c);
	pthread_mutex_unlock(&cs->lock);
	return ret;
}

int cs_mem_write(struct cs_state *cs, uint64_t off, const void *buf, size_t len)
{
	const uint8_t *in = buf;
	int ret = cs_mem_back(cs, off, len);

	while (!ret && len) {
		size_t step = len < CS_COPY_STEP ? len : CS_COPY_STEP;

		pthread_mutex_lock(&cs->lock);
		while (step) {
			uint64_t c = off >> CS_CHUNK_LOG2;
			size_t o = (size_t)(off & (CS_CHUNK - 1)), n = CS_CHUNK - o;

			if (n > step)
				n = step;
			memcpy(cs->chunk[c] + o, in, n);
			in += n;
			off += n;
			len -= n;
			step -= n;
		}
		pthread_mutex_unlock(&cs->lock);
	}
	return ret;
}

int cs_mem_fill(struct cs_state *cs, uint64_t off, uint64_t len, uint32_t pattern)
{
	uint8_t pat[4];
	int ret;

	memcpy(pat, &pattern, 4);
	/* A zero fill of never-written chunks needs no backing. */
	if (!pattern) {
		uint64_t end = off + len;

		pthread_mutex_lock(&cs->lock);
		while (off < end) {
			uint64_t c = off >> CS_CHUNK_LOG2;
			size_t o = (size_t)(off & (CS_CHUNK - 1)), n = CS_CHUNK - o;

			if (n > end - off)
				n = (size_t)(end - off);
			if (cs->chunk[c])
				memset(cs->chunk[c] + o, 0, n);
			off += n;
		}
		pthread_mutex_unlock(&cs->lock);
		return 0;
	}
	ret = cs_mem_back(cs, off, len);
	while (!ret && len) {
		uint64_t c = off >> CS_CHUNK_LOG2;
		size_t o = (size_t)(off & (CS_CHUNK - 1)), n = CS_CHUNK - o, i;

		if (n > len)
			n = (size_t)len;
		pthread_mutex_lock(&cs->lock);
		/* offsets are dword aligned: byte i of the chunk is pattern byte i % 4 */
		for (i = 0; i < n; i++)
			cs->chunk[c][o + i] = pat[(o + i) & 3u];
		pthread_mutex_unlock(&cs->lock);
		off += n;
		len -= n;
	}
	return ret;
}

int cs_mem_move(struct cs_state *cs, uint64_t dst, uint64_t src, uint64_t len)
{
	uint8_t *tmp;
	int ret = 0;

	tmp = malloc(len < CS_COPY_STEP ? (size_t)len : CS_COPY_STEP);
	if (!tmp)
		return -ENOMEM;
	/* Callers refuse overlapping source and destination. */
	while (len && !ret) {
		size_t n = len < CS_COPY_STEP ? (size_t)len : CS_COPY_STEP;

		cs_mem_read(cs, src, tmp, n);
		ret = cs_mem_write(cs, dst, tmp, n);
		src += n;
		dst += n;
		len -= n;
	}
	free(tmp);
	return ret;
}

/* ---- Memory Read / Write / Fill ---- */

uint16_t cs_check_mem_rw(struct cs_state *cs, const struct isp_cmd *cmd, uint64_t *len,
			 struct isp_cpl *cpl)
{
	uint64_t sb = (uint64_t)cmd->cdw11 << 32 | cmd->cdw10, n = cmd->cdw12;
	int fill = cmd->opcode == ISP_CS_OP_MEM_FILL;
	uint64_t max = fill ? cs->slm_bytes : isp_dev_max_xfer(cs->dev);
	const uint64_t gran = 1u << CS_GRAN_LOG2;

	*len = 0;
	if (cmd->cdw2 || cmd->cdw3) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(cmd->cdw2 ? 2 : 3), 0,
			   "CDW%u = 0x%x is reserved", cmd->cdw2 ? 2 : 3,
			   cmd->cdw2 ? cmd->cdw2 : cmd->cdw3);
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	}
	if ((!fill && cmd->cdw13) || cmd->cdw14 || cmd->cdw15) {
		unsigned d = !fill && cmd->cdw13 ? 13 : cmd->cdw14 ? 14 : 15;

		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(d), 0, "CDW%u is reserved", d);
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	}
	if (!n || n > max || n % gran) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(12), 0, "LEN = %llu bytes: 4..%llu "
			   "in steps of 4 allowed", (unsigned long long)n, (unsigned long long)max);
		return isp_fail(cpl, ISP_BAD_FIELD, "length out of range or not dword aligned");
	}
	if (sb % gran || sb > cs->slm_bytes || n > cs->slm_bytes - sb) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(10), 0, "SB = %llu with LEN %llu: the "
			   "memory namespace has %llu bytes, offsets in steps of 4",
			   (unsigned long long)sb, (unsigned long long)n,
			   (unsigned long long)cs->slm_bytes);
		return isp_fail(cpl, ISP_BAD_FIELD, "range outside the memory namespace");
	}
	*len = fill ? 0 : n;
	return 0;
}

uint16_t cs_cmd_mem_read(struct isp_ctx *ctx, const struct isp_cmd *cmd, void *data,
			 size_t len, struct isp_cpl *cpl)
{
	struct cs_state *cs = cs_of(ctx->dev);
	uint64_t sb = (uint64_t)cmd->cdw11 << 32 | cmd->cdw10, t;

	if (len != cmd->cdw12)
		return isp_fail(cpl, ISP_BAD_FIELD, "buffer size differs from LEN");
	cs_mem_read(cs, sb, data, len);
	t = ft_dram(cs->ft, &ctx->ftc, len, ctx->ready);
	isp_link_xfer(ctx, len, 1, t);
	pthread_mutex_lock(&cs->lock);
	cs->bytes_read += len;
	pthread_mutex_unlock(&cs->lock);
	cpl->xfer_len = (uint32_t)len;
	return 0;
}

uint16_t cs_cmd_mem_write(struct isp_ctx *ctx, const struct isp_cmd *cmd, void *data,
			  size_t len, struct isp_cpl *cpl)
{
	struct cs_state *cs = cs_of(ctx->dev);
	uint64_t sb = (uint64_t)cmd->cdw11 << 32 | cmd->cdw10, t;

	if (len != cmd->cdw12)
		return isp_fail(cpl, ISP_BAD_FIELD, "buffer size differs from LEN");
	t = isp_link_xfer(ctx, len, 0, ctx->ready);
	ft_dram(cs->ft, &ctx->ftc, len, t);
	if (cs_mem_write(cs, sb, data, len)) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(10), 0, "backing %zu bytes at %llu "
			   "exceeds the controller DRAM budget (%llu bytes in use)", len,
			   (unsigned long long)sb,
			   (unsigned long long)fs_dram_used(cs->fs, NULL));
		return isp_fail(cpl, ISP_SC_INSUFF_RES | ISP_STATUS_DNR,
				"controller DRAM budget exhausted");
	}
	pthread_mutex_lock(&cs->lock);
	cs->bytes_written += len;
	pthread_mutex_unlock(&cs->lock);
	return 0;
}

uint16_t cs_cmd_mem_fill(struct isp_ctx *ctx, const struct isp_cmd *cmd, struct isp_cpl *cpl)
{
	struct cs_state *cs = cs_of(ctx->dev);
	uint64_t sb = (uint64_t)cmd->cdw11 << 32 | cmd->cdw10;

	ft_dram(cs->ft, &ctx->ftc, cmd->cdw12, ctx->ready);
	if (cs_mem_fill(cs, sb, cmd->cdw12, cmd->cdw13)) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(10), 0, "backing %u bytes at %llu "
			   "exceeds the controller DRAM budget", cmd->cdw12,
			   (unsigned long long)sb);
		return isp_fail(cpl, ISP_SC_INSUFF_RES | ISP_STATUS_DNR,
				"controller DRAM budget exhausted");
	}
	pthread_mutex_lock(&cs->lock);
	cs->bytes_written += cmd->cdw12;
	pthread_mutex_unlock(&cs->lock);
	return 0;
}
