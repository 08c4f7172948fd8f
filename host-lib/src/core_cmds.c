/* SPDX-License-Identifier: MIT */
/*
 * core_cmds.c - the device commands of docs/command-set.md §3 as synchronous
 * calls, and the decoders of the structures the drive returns. Everything
 * read from the drive is bounded before it reaches the caller.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "isp_wire.h"
#include "core_priv.h"

int reis_info_decode(const void *buf, size_t len, struct reis_info *info)
{
	struct isp_wire_identify id;
	unsigned i, n;

	if (!buf || !info || len < sizeof(id))
		return -EINVAL;
	memcpy(&id, buf, sizeof(id));
	if (memcmp(id.magic, "ISP1", 4))
		return -EPROTO;
	if (id.ver_major != ISP_WIRE_VERSION_MAJOR)
		return -EPROTO;
	if (id.max_xfer < REIS_IDENTIFY_LEN || id.max_xfer > ISP_MAX_XFER_CAP ||
	    id.max_xfer % 4u)
		return -EPROTO;
	if (id.nparts > ISP_WIRE_MAX_PARTS)
		return -EPROTO;

	memset(info, 0, sizeof(*info));
	info->ver_major = id.ver_major;
	info->ver_minor = id.ver_minor;
	info->caps = id.caps;
	info->max_xfer = id.max_xfer;
	info->max_tickets = id.max_tickets;
	info->max_result_bytes = id.max_result_bytes;
	info->channels = id.channels;
	info->dies_per_channel = id.dies_per_channel;
	info->planes_per_die = id.planes_per_die;
	info->blocks_per_plane = id.blocks_per_plane;
	info->pages_per_block = id.pages_per_block;
	info->page_bytes = id.page_bytes;
	info->oob_bytes = id.oob_bytes;
	info->subpage_bytes = id.subpage_bytes;
	info->raw_capacity_bytes = id.raw_capacity_bytes;
	info->dram_bytes = id.dram_bytes;
	info->dram_used = id.dram_used;
	info->free_bytes = id.free_bytes;
	info->nparts = id.nparts;
	info->cores = id.cores;
	for (i = 0; i < id.nparts; i++) {
		info->parts[i].first_block = id.parts[i].first_block;
		info->parts[i].nblocks = id.parts[i].nblocks;
		info->parts[i].cell_mode = id.parts[i].cell_mode;
		info->parts[i].pages_per_block = id.parts[i].pages_per_block;
	}
	/* The name may lack its NUL and holds whatever the drive put there. */
	for (n = 0; n < ISP_PRESET_NAME_LEN && id.preset[n]; n++) {
		char c = id.preset[n];

		info->preset[n] = c > 0x20 && c < 0x7f && c != '"' && c != '\\' ? c : '?';
	}
	info->preset[n] = '\0';
	memcpy(info->t_read_ns, id.t_read_ns, sizeof(info->t_read_ns));
	memcpy(info->t_prog_ns, id.t_prog_ns, sizeof(info->t_prog_ns));
	info->t_erase_ns = id.t_erase_ns;
	info->channel_mbps = id.channel_mbps;
	info->core_mhz = id.core_mhz;
	info->link_mbps = id.link_mbps;
	info->ctrl_cmd_ns = id.ctrl_cmd_ns;
	info->max_dbs = id.max_dbs;
	info->max_tables = id.max_tables;
	info->ndbs = id.ndbs;
	info->row_pages = id.row_pages;
	info->slc_free_bytes = id.slc_free_bytes;
	info->native_free_bytes = id.native_free_bytes;
	info->dead_bytes = id.dead_bytes;
	info->db_room = id.db_room;
	return 0;
}

int reis_stats_decode(const void *buf, size_t len, struct reis_stats *st)
{
	struct isp_wire_stats w;

	if (!buf || !st || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	memset(st, 0, sizeof(*st));
	memcpy(st->cmds, w.cmds, sizeof(st->cmds));
	memcpy(st->errors, w.errors, sizeof(st->errors));
	memcpy(st->page_reads, w.page_reads, sizeof(st->page_reads));
	memcpy(st->page_programs, w.page_programs, sizeof(st->page_programs));
	st->block_erases = w.block_erases;
	st->channel_bytes = w.channel_bytes;
	st->link_bytes_h2c = w.link_bytes_h2c;
	st->link_bytes_c2h = w.link_bytes_c2h;
	memcpy(st->busy_ns, w.busy_ns, sizeof(st->busy_ns));
	memcpy(st->nres, w.nres, sizeof(st->nres));
	st->model_ns = w.model_ns;
	st->emul_ns = w.emul_ns;
	st->energy_pj = w.energy_pj;
	st->filtered_entries = w.filtered_entries;
	st->ttl_entries = w.ttl_entries;
	st->cache_hits = w.cache_hits;
	st->cache_misses = w.cache_misses;
	st->searches = w.searches;
	st->sls_bags = w.sls_bags;
	st->remaps = w.remaps;
	memcpy(st->std_cmds, w.cs_cmds, sizeof(st->std_cmds));
	memcpy(st->std_errors, w.cs_errors, sizeof(st->std_errors));
	st->slm_bytes_read = w.slm_bytes_read;
	st->slm_bytes_written = w.slm_bytes_written;
	st->slm_bytes_copied = w.slm_bytes_copied;
	st->slm_backed = w.slm_backed;
	return 0;
}

int reis_ftl_stats_decode(const void *buf, size_t len, struct reis_ftl_stats *st)
{
	struct isp_wire_stats w;

	if (!buf || !st || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	memset(st, 0, sizeof(*st));
	st->reads = w.ftl_reads;
	st->writes = w.ftl_writes;
	st->read_bytes = w.ftl_read_bytes;
	st->write_bytes = w.ftl_write_bytes;
	st->nand_write_bytes = w.ftl_nand_write_bytes;
	st->gc_write_bytes = w.ftl_gc_write_bytes;
	st->gc_victims = w.ftl_gc_victims;
	st->erases = w.ftl_erases;
	st->flushes = w.ftl_flushes;
	st->trims = w.ftl_trims;
	st->buf_hits = w.ftl_buf_hits;
	st->stalls = w.ftl_stalls;
	st->io_model_ns = w.ftl_io_model_ns;
	st->read_model_ns = w.ftl_read_model_ns;
	st->write_model_ns = w.ftl_write_model_ns;
	st->wa_milli = w.ftl_wa_milli;
	st->op_permille = w.ftl_op_permille;
	st->user_bytes = w.ftl_user_bytes;
	st->phys_bytes = w.ftl_phys_bytes;
	st->stripes = w.ftl_stripes;
	st->stripes_min = w.ftl_stripes_min;
	st->free_blocks = w.ftl_free_blocks;
	st->erase_max = w.ftl_erase_max;
	return 0;
}

int reis_identify(struct reis_dev *dev, struct reis_info *info)
{
	_Alignas(64) uint8_t buf[REIS_IDENTIFY_LEN];
	struct reis_req req;
	int ret;

	if (!dev || !info)
		return -EINVAL;
	reis_prep_identify(&req, buf);
	ret = reis_exec(dev, &req);
	if (ret)
		return ret;
	ret = reis_info_decode(buf, sizeof(buf), info);
	if (ret) {
		dev->last.err = ret;
		return reis__seterr(dev, ret, "ISP_IDENTIFY: malformed structure "
				    "(signature, version %u, max_xfer or partitions)",
				    ((const struct isp_wire_identify *)(void *)buf)->ver_major);
	}
	dev->info = *info;
	dev->have_info = 1;
	dev->max_xfer = info->max_xfer < dev->xfer_cap ? info->max_xfer : dev->xfer_cap;
	return 0;
}

int reis_stats(struct reis_dev *dev, uint32_t flags, struct reis_stats *st)
{
	_Alignas(64) uint8_t buf[REIS_STATS_LEN];
	struct reis_req req;
	int ret;

	if (!dev || !st)
		return -EINVAL;
	if (flags & ~REIS_STATS_RESET)
		return reis__seterr(dev, -EINVAL, "ISP_STATS: unknown flags 0x%x", flags);
	reis_prep_stats(&req, buf, flags);
	ret = reis_exec(dev, &req);
	if (ret)
		return ret;
	return reis_stats_decode(buf, sizeof(buf), st);
}

int reis_noop(struct reis_dev *dev)
{
	struct reis_req req;

	if (!dev)
		return -EINVAL;
	reis_prep_noop(&req);
	return reis_exec(dev, &req);
}

/* Offset of the first word of @p that differs from the pattern, or @len. */
static size_t reis_pattern_diff(uint32_t seed, const uint8_t *p, size_t len)
{
	uint32_t x = seed | 1u, w;
	size_t i;

	for (i = 0; i + 4 <= len; i += 4) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		memcpy(&w, p + i, 4);	/* little-endian host, as the wire */
		if (w != x)
			return i;
	}
	return len;
}

int reis_echo(struct reis_dev *dev, enum reis_dir dir, uint32_t seed,
	      void *buf, uint32_t len)
{
	struct reis_req req;
	void *mem = NULL;
	size_t bad;
	int ret;

	if (!dev)
		return -EINVAL;
	if (dir != REIS_DIR_H2C && dir != REIS_DIR_C2H)
		return reis__seterr(dev, -EINVAL, "echo: direction must be H2C or C2H");
	if (!len || len % 4u || len > dev->max_xfer)
		return reis__seterr(dev, -EINVAL,
				    "echo: length %u not in 4..%u or not a multiple of 4",
				    len, dev->max_xfer);
	if (!buf) {
		if (posix_memalign(&mem, 4096, len))
			return reis__seterr(dev, -ENOMEM, "echo: out of memory");
		buf = mem;
	}
	if (dir == REIS_DIR_H2C)
		reis_pattern(seed, buf, len);
	else
		memset(buf, 0, len);
	reis_prep_echo(&req, dir, seed, buf, len);
	ret = reis_exec(dev, &req);
	if (!ret && dir == REIS_DIR_C2H) {
		bad = reis_pattern_diff(seed, buf, len);
		if (bad < len) {
			ret = -EILSEQ;
			dev->last.err = ret;
			reis__seterr(dev, ret, "ISP_ECHO_C2H: data differs from the "
				     "pattern of seed %u at byte %zu of %u", seed, bad, len);
		}
	}
	free(mem);
	return ret;
}

int reis_cmd_raw(struct reis_dev *dev, const struct reis_cmd *cmd, void *data,
		 uint32_t len, struct reis_cpl *cpl)
{
	struct reis_req req;
	int ret;

	if (!dev || !cmd)
		return -EINVAL;
	reis_prep_raw(&req, cmd, data, len);
	ret = reis_exec(dev, &req);
	if (cpl)
		*cpl = dev->last;
	return ret;
}

int reis__nodata(struct reis_dev *dev, uint8_t opcode, uint32_t cdw12, uint32_t cdw13)
{
	struct reis_req req;

	if (!dev)
		return -EINVAL;
	reis_prep_cmd(&req, opcode, NULL, 0);
	req.cmd.cdw12 = cdw12;
	req.cmd.cdw13 = cdw13;
	return reis_exec(dev, &req);
}
