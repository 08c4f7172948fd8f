/* SPDX-License-Identifier: MIT */
/*
 * flash_preset.h - the parameters of a modeled drive: geometry, cell-mode
 * partitions, timing, energy, controller resources; the papers' presets and
 * key=value overrides.
 *
 * Every field a paper gives cites its table in flash_preset.c; everything
 * else is an assumption listed in docs/timing-model.md. Times are in
 * picoseconds so the papers' sub-nanosecond figures stay exact; energies in
 * picojoules.
 */
#ifndef FLASH_PRESET_H
#define FLASH_PRESET_H

#include <stddef.h>
#include <stdint.h>

#include "isp_hostmem.h"
#include "isp_wire.h"

#define FP_NAME_LEN ISP_PRESET_NAME_LEN

struct fp_params {
	char name[FP_NAME_LEN];

	/* Geometry. */
	uint32_t channels;
	uint32_t dies_per_channel;
	uint32_t planes_per_die;
	uint32_t blocks_per_plane;	/* usable capacity: a device option */
	uint32_t pages_per_block;	/* in the native (densest) cell mode */
	uint32_t page_bytes;
	uint32_t oob_bytes;
	uint32_t subpage_bytes;		/* REIS 4.1.1: 4 KiB sub-pages */
	uint32_t native_mode;		/* enum isp_cell_mode of non-SLC blocks */
	uint32_t slc_blocks;		/* first blocks of every plane in ESP-SLC */

	/* Controller. */
	uint64_t dram_bytes;		/* controller DRAM budget */
	uint64_t cache_bytes;		/* RecFlash page-wise cache (SRAM) */
	uint32_t cache_admit;		/* pages that may take a frame: 0 every
					 * page, 1 the hot region's, 2 the
					 * hottest (as many as the frames) */
	uint32_t cache_fill;		/* a miss caches 0: the rows read; 1: the page */
	uint32_t cores;			/* embedded cores */
	uint32_t isp_cores;		/* cores REIS/RecFlash may use */
	uint32_t core_mhz;
	uint32_t link_mbps;		/* host link, MB/s */
	uint32_t channel_mbps;		/* flash channel, MB/s */
	uint32_t dram_mbps;		/* controller DRAM, MB/s */
	/* The standard interface (docs/command-set.md section 9). */
	uint64_t slm_bytes;		/* memory namespace in controller DRAM */
	uint32_t cp_max_active;		/* programs active at once (MAXACT) */

	/* Host memory the emulator may spend on the guest's behalf
	 * (docs/security.md, Budgets); not part of the modeled drive. One
	 * bound, host_mem, of which every budget is a share; 0 for a share:
	 * its default part of host_mem (isp_host_plan()). */
	uint64_t mem_cap;		/* in-memory store: programmed page bytes */
	uint64_t buf_budget;		/* per-command working buffers, all commands */
	uint64_t host_mem;		/* the bound, per drive (controller) */
	uint64_t result_bytes;		/* results held for the host (max_result_bytes) */
	uint64_t bounce_bytes;		/* the transport's bounce buffers (QEMU glue) */
	/* Host disk, outside host_mem. */
	uint64_t backing_cap;		/* page bytes the backing file may hold */
	uint64_t trace_cap;		/* bytes the trace directory may receive */

	/* NAND interface timing, RecFlash Table I (ps). */
	uint64_t t_alh;
	uint64_t t_als;
	uint64_t t_ds;
	uint64_t t_wc;
	uint64_t t_rr;
	uint32_t addr_cycles;		/* C/A stage write cycles (Eq. 1: 5) */

	/* Array operations (ps), indexed by enum isp_cell_mode; [0] unused. */
	uint64_t t_read[5];
	uint64_t t_prog[5];
	uint64_t t_erase;
	uint64_t t_cache_busy;		/* tDCBSYR: cache-read switch overhead */

	/* In-die ISP operations (ps), REIS 4.3.2 / Table 2. */
	uint64_t t_xor;			/* XOR between latches, whole page */
	uint64_t t_fbc;			/* fail-bit count of one mini-page */
	uint64_t t_cmp;			/* threshold compare of one count */

	/* Controller work (cycles per element). */
	uint32_t cyc_select;		/* quickselect, per candidate */
	uint32_t cyc_sort;		/* quicksort, per element per log2(n) */
	uint32_t cyc_rerank_dim;	/* INT8 MAC per dimension */
	uint32_t cyc_sls_elem;		/* SLS accumulate per element */
	uint64_t ctrl_cmd;		/* per-command controller overhead (ps) */

	/* REIS optimizations of the device, REIS 4.3.3-4.3.4 (1 on, 0 off;
	 * a search may also turn each off with ISP_REIS_SF_NO_*). */
	uint32_t reis_df;		/* distance filtering in the dies */
	uint32_t reis_pl;		/* pipelining: cache read, core overlap */
	uint32_t reis_mpibc;		/* multi-plane input broadcasting */

	/* Energy (pJ). */
	uint64_t e_read[5];		/* per page read, by cell mode */
	uint64_t e_prog[5];
	uint64_t e_erase;
	uint64_t e_channel_byte;
	uint64_t e_xor;			/* per page */
	uint64_t e_fbc;			/* per mini-page */
	uint64_t e_cmp;			/* per threshold compare */
	uint64_t e_core_cycle;
	uint64_t e_dram_byte;
	uint64_t e_link_byte;

	/* REIS IBC (docs/timing-model.md A24): the rate at which a die writes
	 * the query's copies into a cache latch, MB/s; 0: its I/O rate
	 * (channel_mbps). */
	uint32_t ibc_fill_mbps;

	/* RecFlash's baselines (docs/timing-model.md W1): 0 (default) a page
	 * read per lookup, even of a row read before in the command (Fig. 4a;
	 * IV-A excludes the DRAM cache, II-B's only reuse of a vector); 1 a
	 * page read per distinct row of the command (the sweep's alternative). */
	uint32_t rf_base_rows;

	/* The FTL of ordinary I/O (ftl.h, docs/ftl.md). */
	uint32_t ftl_op;		/* over-provisioning, per mille of user capacity */
	uint32_t ftl_gc;		/* GC victim: 0 greedy, 1 cost-benefit */
	uint32_t ftl_fill;		/* 1: a new namespace starts fully written */
	uint32_t ftl_pe;		/* rated P/E cycles (SMART Percentage Used) */
	uint32_t ftl_cyc_cmd;		/* firmware cycles per ordinary command */
	uint32_t ftl_prog_max;		/* FTL programs + erases at once, drive-wide; 0: no limit */
	uint64_t ftl_wbuf;		/* write buffer in controller DRAM, bytes */
};

/**
 * fp_preset() - load a named preset.
 * @name: "reis-ssd1", "reis-ssd2", "recflash-slc", "recflash-tlc",
 *        "recflash-qlc" (see fp_preset_names()).
 * @out: filled on success.
 *
 * Return: 0, or -ENOENT for an unknown name.
 */
int fp_preset(const char *name, struct fp_params *out);

/**
 * fp_preset_names() - NULL-terminated list of preset names.
 */
const char *const *fp_preset_names(void);

/**
 * fp_set() - override one field.
 * @key: a field of struct fp_params; array fields are named by cell mode:
 *       t_read_slc, t_prog_tlc, e_read_qlc, ... (see fp_key_names()).
 * @value: a non-negative decimal number. Times accept a unit suffix (ps, ns,
 *         us, ms; no suffix = ps), energies (pj, nj, uj, mj; no suffix = pJ),
 *         sizes a binary multiplier (k, m, g). Fractions need a suffix and
 *         are rounded to the nearest ps/pJ/byte ("0.115us" = 115000 ps).
 *
 * Does not check consistency between fields: call fp_validate() after the
 * last override (fp_apply() does).
 *
 * Return: 0, -ENOENT for an unknown key, -EINVAL for a malformed value or
 * one that does not fit the field.
 */
int fp_set(struct fp_params *p, const char *key, const char *value);

/**
 * fp_apply() - apply a list "k=v;k=v" (',' or ';' separated) of overrides.
 * @err: on failure, a message naming the offending item.
 *
 * Return: 0 or -errno (as fp_set(), then fp_validate()).
 */
int fp_apply(struct fp_params *p, const char *list, char *err, size_t errlen);

/**
 * fp_validate() - check ranges and consistency.
 * @err: on failure, says what was wrong and the allowed range.
 *
 * Return: 0 or -EINVAL.
 */
int fp_validate(const struct fp_params *p, char *err, size_t errlen);

/**
 * fp_host_plan() - the shares of @p's host_mem (isp_hostmem.h): a share
 * left 0 gets its default part, the rest goes to mem_cap (in memory); the
 * sum must fit in host_mem.
 * @backing: the pages live in a backing file (mem_cap holds no RAM then).
 * @fixed: the drive's own state, computed by the caller.
 * Return: 0 with @p's shares filled in and *@hm; -EINVAL with the parts
 * and their sum in @err.
 */
int fp_host_plan(struct fp_params *p, int backing, uint64_t fixed, struct isp_host_mem *hm,
		 char *err, size_t errlen);

/**
 * fp_pages_per_block() - usable pages per block in @mode (SLC mode stores one
 * bit per cell, so a TLC block in SLC mode has a third of its pages).
 */
uint32_t fp_pages_per_block(const struct fp_params *p, uint32_t mode);

/**
 * fp_block_mode() - cell mode of block @block (same in every plane).
 */
static inline uint32_t fp_block_mode(const struct fp_params *p, uint32_t block)
{
	return block < p->slc_blocks ? (uint32_t)ISP_CELL_SLC : p->native_mode;
}

/**
 * fp_key_names() - NULL-terminated list of keys accepted by fp_set().
 */
const char *const *fp_key_names(void);

/**
 * fp_get() - format field @key of @p into @buf as a decimal integer.
 * Return: 0, -ENOENT for an unknown key.
 */
int fp_get(const struct fp_params *p, const char *key, char *buf, size_t len);

#endif /* FLASH_PRESET_H */
