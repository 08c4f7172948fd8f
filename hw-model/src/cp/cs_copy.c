/* SPDX-License-Identifier: MIT */
/*
 * cs_copy.c - Memory Copy (01h on the memory namespace): source ranges of
 * the memory itself (descriptor format 4h), LBAs of the NVM namespace (2h;
 * the transport stages their bytes, isp_dev.h) and a REIS database's flash
 * regions (vendor format Fh) into the memory (docs/command-set.md §9.7).
 */
#include <stdlib.h>
#include <string.h>

#include "cs_int.h"
#include "ftl.h"
#include "isp_dev.h"
#include "reis_int.h"

#define CS_CP_NR(c) ((c)->cdw12 & 0xffu)
#define CS_CP_FMT(c) (((c)->cdw12 >> 8) & 0xfu)
#define CS_CP_NBYTE(c) ((uint64_t)(c)->cdw3 << 32 | (c)->cdw2)
#define CS_CP_SDADDR(c) ((uint64_t)(c)->cdw11 << 32 | (c)->cdw10)
#define CS_DESC 32u

uint16_t cs_check_copy(struct cs_state *cs, const struct isp_cmd *cmd, uint64_t *len,
		       struct isp_cpl *cpl)
{
	uint64_t nbyte = CS_CP_NBYTE(cmd), sd = CS_CP_SDADDR(cmd);
	unsigned nr = CS_CP_NR(cmd) + 1u, fmt = CS_CP_FMT(cmd);
	const uint64_t gran = 1u << CS_GRAN_LOG2;

	*len = 0;
	if (cmd->cdw12 >> 12 || cmd->cdw13 || cmd->cdw14 || cmd->cdw15) {
		unsigned d = cmd->cdw12 >> 12 ? 12 : cmd->cdw13 ? 13 : cmd->cdw14 ? 14 : 15;

		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(d), 0, "reserved bits of CDW%u set", d);
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	}
	if (fmt != ISP_CS_DESFMT_LBA && fmt != ISP_CS_DESFMT_MEM && fmt != ISP_CS_DESFMT_DB) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(12) + 1, 0, "DESFMT %xh: formats 2h "
			   "(NVM LBAs), 4h (memory) and Fh (database region) supported", fmt);
		return isp_fail(cpl, ISP_BAD_FIELD, "copy descriptor format not supported");
	}
	if (nr > CS_MAX_SRC) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(12), 0, "NR = %u source ranges: at "
			   "most %u (MSRC)", nr, CS_MAX_SRC);
		return isp_fail(cpl, ISP_SC_CMD_SIZE_LIMIT | ISP_STATUS_DNR,
				"too many source ranges");
	}
	if (nbyte > CS_MAX_COPY) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(2), 0, "NBYTE = %llu: at most %u bytes "
			   "per Memory Copy (MCL)", (unsigned long long)nbyte, CS_MAX_COPY);
		return isp_fail(cpl, ISP_SC_CMD_SIZE_LIMIT | ISP_STATUS_DNR, "copy too long");
	}
	if (!nbyte || nbyte % gran) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(2), 0, "NBYTE = %llu: 4..%u bytes in "
			   "steps of 4", (unsigned long long)nbyte, CS_MAX_COPY);
		return isp_fail(cpl, ISP_BAD_FIELD, "copy length 0 or not dword aligned");
	}
	if (sd % gran || sd > cs->slm_bytes || nbyte > cs->slm_bytes - sd) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(10), 0, "SDADDR %llu + NBYTE %llu: the "
			   "memory namespace has %llu bytes, offsets in steps of 4",
			   (unsigned long long)sd, (unsigned long long)nbyte,
			   (unsigned long long)cs->slm_bytes);
		return isp_fail(cpl, ISP_BAD_FIELD, "destination outside the memory namespace");
	}
	*len = (uint64_t)nr * CS_DESC;
	return 0;
}

/* One source range, decoded and checked. */
struct cs_src {
	uint32_t nsid;		/* 2h / 4h; format Fh: the database */
	uint32_t region;	/* Fh */
	uint64_t addr;		/* 2h: SLBA, 4h: SADDR, Fh: offset */
	uint64_t nbyte;		/* 4h / Fh; 2h: blocks (1-based) until staged */
};

static uint16_t cs_src_err(struct isp_cpl *cpl, unsigned i, unsigned byte, uint16_t st,
			   const char *what)
{
	isp_err_at(cpl, ISP_ERR_IN_DATA, CS_DESC * i + byte, 0, "source range %u: %s", i, what);
	return isp_fail(cpl, st, what);
}

static uint16_t cs_parse_src(struct cs_state *cs, const struct isp_cmd *cmd, const uint8_t *d,
			     unsigned i, struct cs_src *s, struct isp_cpl *cpl)
{
	const uint64_t gran = 1u << CS_GRAN_LOG2;

	memset(s, 0, sizeof(*s));
	switch (CS_CP_FMT(cmd)) {
	case ISP_CS_DESFMT_LBA: {
		struct isp_wire_cs_src_lba f;

		memcpy(&f, d, sizeof(f));
		if (f.rsvd0 || !isp_all_zero(f.rsvd1, sizeof(f.rsvd1)) ||
		    !isp_all_zero(f.rsvd2, sizeof(f.rsvd2)))
			return cs_src_err(cpl, i, 4, ISP_BAD_FIELD, "reserved bytes set");
		if (f.sopt)
			return cs_src_err(cpl, i, 22, ISP_BAD_FIELD, "source options not supported");
		if (f.snsid != cs->nvm_nsid)
			return cs_src_err(cpl, i, 0, ISP_SC_INVALID_NSID | ISP_STATUS_DNR,
					  "SNSID is not the NVM namespace");
		s->nsid = f.snsid;
		s->addr = f.slba;
		s->nbyte = (uint64_t)f.nlb + 1u;	/* blocks until staged */
		return 0;
	}
	case ISP_CS_DESFMT_MEM: {
		struct isp_wire_cs_src_mem f;

		memcpy(&f, d, sizeof(f));
		if (f.rsvd0 || f.rsvd1 || !isp_all_zero(f.rsvd2, sizeof(f.rsvd2)))
			return cs_src_err(cpl, i, 4, ISP_BAD_FIELD, "reserved bytes set");
		if (f.sopt)
			return cs_src_err(cpl, i, 22, ISP_BAD_FIELD, "source options not supported");
		if (f.snsid != cs->slm_nsid)
			return cs_src_err(cpl, i, 0, ISP_SC_INVALID_NSID | ISP_STATUS_DNR,
					  "SNSID is not the memory namespace");
		if (!f.nbyte || f.nbyte % gran || f.saddr % gran || f.saddr > cs->slm_bytes ||
		    f.nbyte > cs->slm_bytes - f.saddr)
			return cs_src_err(cpl, i, 8, ISP_BAD_FIELD,
					  "bytes outside the memory namespace or not dword aligned");
		s->nsid = f.snsid;
		s->addr = f.saddr;
		s->nbyte = f.nbyte;
		return 0;
	}
	default: {
		struct isp_wire_cs_src_db f;

		memcpy(&f, d, sizeof(f));
		if (!isp_all_zero(f.rsvd, sizeof(f.rsvd)))
			return cs_src_err(cpl, i, 20, ISP_BAD_FIELD, "reserved bytes set");
		if (f.region > ISP_CS_REGION_TLC)
			return cs_src_err(cpl, i, 4, ISP_BAD_FIELD,
					  "region: 0 (SLC) or 1 (TLC)");
		if (!f.nbyte || f.nbyte % gran)
			return cs_src_err(cpl, i, 16, ISP_BAD_FIELD,
					  "NBYTE 0 or not dword aligned");
		s->nsid = f.did;
		s->region = f.region;
		s->addr = f.offset;
		s->nbyte = f.nbyte;
		return 0;
	}
	}
}

uint16_t cs_copy_lbas(struct cs_state *cs, const struct isp_cmd *cmd, const void *descs,
		      size_t len, uint32_t lba_bytes, struct isp_cs_lba_range *out, unsigned max,
		      unsigned *n, struct isp_cpl *cpl)
{
	unsigned nr = CS_CP_NR(cmd) + 1u, i;
	uint64_t dlen, total = 0;
	uint16_t st;

	*n = 0;
	st = cs_check_copy(cs, cmd, &dlen, cpl);
	if (st)
		return st;
	if (len < dlen)
		return isp_fail(cpl, ISP_BAD_FIELD, "source range list shorter than NR says");
	if (CS_CP_FMT(cmd) != ISP_CS_DESFMT_LBA)
		return 0;
	for (i = 0; i < nr; i++) {
		struct cs_src s;

		st = cs_parse_src(cs, cmd, (const uint8_t *)descs + CS_DESC * i, i, &s, cpl);
		if (st)
			return st;
		if (i >= max)
			return isp_fail(cpl, ISP_SC_INTERNAL, "staging table too small");
		out[i].nsid = s.nsid;
		out[i].nlb = (uint32_t)s.nbyte;
		out[i].slba = s.addr;
		out[i].index = i;
		out[i].rsvd = 0;
		total += s.nbyte * lba_bytes;	/* <= 128 x 2^16 x 2^16 */
	}
	if (lba_bytes < 512 || lba_bytes > 65536 || lba_bytes & (lba_bytes - 1))
		return isp_fail(cpl, ISP_SC_INTERNAL, "transport gave no LBA size");
	if (total != CS_CP_NBYTE(cmd)) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(2), 0, "NBYTE = %llu but the source "
			   "ranges hold %llu bytes of %u-byte blocks",
			   (unsigned long long)CS_CP_NBYTE(cmd), (unsigned long long)total,
			   lba_bytes);
		return isp_fail(cpl, ISP_BAD_FIELD, "NBYTE differs from the source ranges");
	}
	*n = nr;
	return 0;
}

/*
 * Timing of reading LBA bytes (docs/timing-model.md CS2): the FTL's reads
 * of those units, on the planes its map puts them (so the copy waits
 * behind GC, ordinary I/O and searches there, and they behind it), then
 * into DRAM. A namespace the FTL does not map (none attached, or no FTL)
 * costs a native page read per page_bytes on the plane a striped
 * page-mapped layout of sequentially written data gives it.
 */
static uint64_t cs_time_lba(struct cs_state *cs, struct isp_ctx *ctx, uint32_t nsid,
			    uint64_t byte0, uint64_t bytes, uint64_t ready)
{
	const struct fg_geom *g = fs_geom(cs->fs);
	uint32_t pb = cs->p->page_bytes;
	uint64_t pos = byte0, end = byte0 + bytes, last = ready;
	struct ftl *ftl = isp_dev_ftl(ctx->dev);

	if (ftl && ftl_read_inside(ftl, &ctx->ftc, nsid, byte0, bytes, ready, &last) == 0)
		return ft_dram(cs->ft, &ctx->ftc, bytes, last);
	last = ready;
	while (pos < end) {
		uint32_t in = (uint32_t)(pos % pb), k;
		struct ft_page_op op;
		uint64_t t;

		k = (uint32_t)(end - pos < pb - in ? end - pos : pb - in);
		memset(&op, 0, sizeof(op));
		op.mode = cs->p->native_mode;
		op.n_dout = 1;
		op.dout_bytes = k;
		t = ft_page_read(cs->ft, &ctx->ftc, (uint32_t)((pos / pb) % g->planes), &op,
				 ready);
		t = ft_dram(cs->ft, &ctx->ftc, k, t);
		if (t > last)
			last = t;
		pos += k;
	}
	return last;
}

uint16_t cs_cmd_copy(struct isp_ctx *ctx, const struct isp_cmd *cmd, void *data, size_t len,
		     struct isp_cpl *cpl)
{
	struct cs_state *cs = cs_of(ctx->dev);
	unsigned nr = CS_CP_NR(cmd) + 1u, fmt = CS_CP_FMT(cmd), i;
	uint64_t dlen = (uint64_t)nr * CS_DESC, nbyte = CS_CP_NBYTE(cmd);
	uint64_t sd = CS_CP_SDADDR(cmd), total = 0, t0, last;
	struct cs_src *src;
	struct isp_cs_stage stage;
	const uint8_t *staged = NULL;
	uint8_t *buf = NULL;
	uint16_t st = 0;

	src = calloc(nr, sizeof(*src));
	if (!src)
		return isp_fail(cpl, ISP_SC_INTERNAL, "out of memory");
	for (i = 0; i < nr && !st; i++)
		st = cs_parse_src(cs, cmd, (const uint8_t *)data + CS_DESC * i, i, &src[i], cpl);
	if (st)
		goto out;
	if (fmt == ISP_CS_DESFMT_LBA) {
		/* the transport's staged blocks follow the list */
		memset(&stage, 0, sizeof(stage));
		if (len >= dlen + sizeof(stage))
			memcpy(&stage, (const uint8_t *)data + dlen, sizeof(stage));
		if (len < dlen + sizeof(stage) || stage.nranges != nr || stage.lba_bytes < 512 ||
		    stage.lba_bytes > 65536 || stage.lba_bytes & (stage.lba_bytes - 1)) {
			st = isp_fail(cpl, ISP_SC_INTERNAL, "transport staged no blocks");
			goto out;
		}
		for (i = 0; i < nr; i++)
			src[i].nbyte *= stage.lba_bytes;
		staged = (const uint8_t *)data + dlen + sizeof(stage);
	} else if (len != dlen) {
		st = isp_fail(cpl, ISP_BAD_FIELD, "buffer size differs from the range list");
		goto out;
	}
	for (i = 0; i < nr; i++)
		total += src[i].nbyte;	/* each <= 128 x 64 KiB blocks or 32-bit */
	if (total != nbyte) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(2), 0, "NBYTE = %llu but the source "
			   "ranges hold %llu bytes", (unsigned long long)nbyte,
			   (unsigned long long)total);
		st = isp_fail(cpl, ISP_BAD_FIELD, "NBYTE differs from the source ranges");
		goto out;
	}
	if (fmt == ISP_CS_DESFMT_LBA && len != dlen + sizeof(stage) + total) {
		st = isp_fail(cpl, ISP_SC_INTERNAL, "staged bytes differ from the ranges");
		goto out;
	}
	if (fmt == ISP_CS_DESFMT_MEM) {
		/* a source may not overlap the destination (copies are not moves) */
		for (i = 0; i < nr; i++)
			if (src[i].addr < sd + nbyte && sd < src[i].addr + src[i].nbyte) {
				st = cs_src_err(cpl, i, 8, ISP_SC_OVERLAP_IO | ISP_STATUS_DNR,
						"source overlaps the destination");
				goto out;
			}
	}

	t0 = isp_link_xfer(ctx, dlen, 0, ctx->ready);
	last = t0;
	buf = malloc((size_t)nbyte);
	if (!buf) {
		st = isp_fail(cpl, ISP_SC_INSUFF_RES | ISP_STATUS_DNR, "out of memory");
		goto out;
	}
	for (i = 0, total = 0; i < nr && !st; i++) {
		uint64_t t;

		if (fmt == ISP_CS_DESFMT_MEM) {
			cs_mem_read(cs, src[i].addr, buf + total, (size_t)src[i].nbyte);
			t = ft_dram(cs->ft, &ctx->ftc, src[i].nbyte, t0);
		} else if (fmt == ISP_CS_DESFMT_LBA) {
			memcpy(buf + total, staged + total, (size_t)src[i].nbyte);
			t = cs_time_lba(cs, ctx, src[i].nsid, src[i].addr * stage.lba_bytes,
					src[i].nbyte, t0);
		} else {
			const char *why = NULL;

			st = re_region_read(ctx, src[i].nsid, src[i].region, src[i].addr,
					    buf + total, (uint32_t)src[i].nbyte, &t, &why);
			if (st) {
				st = cs_src_err(cpl, i, 0, st, why ? why : "region read failed");
				break;
			}
		}
		if (t > last)
			last = t;
		total += src[i].nbyte;
	}
	if (st)
		goto out;
	ft_dram(cs->ft, &ctx->ftc, nbyte, last);
	if (cs_mem_write(cs, sd, buf, (size_t)nbyte)) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(10), 0, "backing %llu bytes exceeds the "
			   "controller DRAM budget", (unsigned long long)nbyte);
		st = isp_fail(cpl, ISP_SC_INSUFF_RES | ISP_STATUS_DNR,
			      "controller DRAM budget exhausted");
		goto out;
	}
	pthread_mutex_lock(&cs->lock);
	cs->bytes_copied += nbyte;
	pthread_mutex_unlock(&cs->lock);
out:
	free(buf);
	free(src);
	return st;
}
