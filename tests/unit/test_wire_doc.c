/* SPDX-License-Identifier: MIT */
/*
 * test_wire_doc - the byte-layout tables of docs/command-set.md §7 against
 * isp_wire.h: every row's offset, size, type and name from offsetof/sizeof
 * and _Generic, every table covering its structure end to end, every enum
 * value from the header. Mutated copies of the document must fail, so the
 * checker itself is tested.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "isp_wire.h"

#ifndef TESTS_SRCDIR
#error "tests/Makefile defines TESTS_SRCDIR"
#endif

#define DOC_MAX (1u << 20)	/* command-set.md is far below this */
#define CELL_MAX 8

struct wfield {
	const char *strct, *name, *type;
	size_t off, size;
	unsigned count;		/* array elements; 0 for a scalar */
};

#define WTYPE(e)                                                            \
	_Generic((e), char: "char", uint8_t: "u8", uint16_t: "u16",          \
		 uint32_t: "u32", uint64_t: "u64", int64_t: "i64",             \
		 default: "struct")
#define MEMB(s, m) (((struct s *)0)->m)
#define F(s, m) { #s, #m, WTYPE(MEMB(s, m)), offsetof(struct s, m),          \
		  sizeof(MEMB(s, m)), 0 }
#define FA(s, m) { #s, #m, WTYPE(MEMB(s, m)[0]), offsetof(struct s, m),      \
		   sizeof(MEMB(s, m)),                                         \
		   (unsigned)(sizeof(MEMB(s, m)) / sizeof(MEMB(s, m)[0])) }

static const struct wfield fields[] = {
	FA(isp_wire_identify, magic), F(isp_wire_identify, ver_major),
	F(isp_wire_identify, ver_minor), F(isp_wire_identify, caps),
	F(isp_wire_identify, max_xfer), F(isp_wire_identify, max_tickets),
	F(isp_wire_identify, max_result_bytes), F(isp_wire_identify, channels),
	F(isp_wire_identify, dies_per_channel), F(isp_wire_identify, planes_per_die),
	F(isp_wire_identify, blocks_per_plane), F(isp_wire_identify, pages_per_block),
	F(isp_wire_identify, page_bytes), F(isp_wire_identify, oob_bytes),
	F(isp_wire_identify, subpage_bytes), F(isp_wire_identify, raw_capacity_bytes),
	F(isp_wire_identify, dram_bytes), F(isp_wire_identify, dram_used),
	F(isp_wire_identify, nparts), F(isp_wire_identify, cores),
	FA(isp_wire_identify, parts), FA(isp_wire_identify, preset),
	FA(isp_wire_identify, t_read_ns), FA(isp_wire_identify, t_prog_ns),
	F(isp_wire_identify, t_erase_ns), F(isp_wire_identify, channel_mbps),
	F(isp_wire_identify, core_mhz), F(isp_wire_identify, link_mbps),
	F(isp_wire_identify, ctrl_cmd_ns), F(isp_wire_identify, rsvd0),
	F(isp_wire_identify, max_dbs), F(isp_wire_identify, max_tables),
	F(isp_wire_identify, free_bytes), F(isp_wire_identify, ndbs),
	F(isp_wire_identify, row_pages), F(isp_wire_identify, slc_free_bytes),
	F(isp_wire_identify, native_free_bytes), F(isp_wire_identify, dead_bytes),
	F(isp_wire_identify, db_room), F(isp_wire_identify, rsvd1),
	F(isp_wire_identify, host_mem_bytes), F(isp_wire_identify, host_fixed_bytes),
	F(isp_wire_identify, mem_cap_bytes), F(isp_wire_identify, buf_budget_bytes),
	F(isp_wire_identify, bounce_bytes), F(isp_wire_identify, backing_cap_bytes),
	F(isp_wire_identify, trace_cap_bytes), F(isp_wire_identify, budget_errors),
	FA(isp_wire_identify, rsvd),

	F(isp_wire_partition, first_block), F(isp_wire_partition, nblocks),
	F(isp_wire_partition, cell_mode), F(isp_wire_partition, pages_per_block),

	FA(isp_wire_stats, cmds), FA(isp_wire_stats, errors),
	FA(isp_wire_stats, page_reads), FA(isp_wire_stats, page_programs),
	F(isp_wire_stats, block_erases), F(isp_wire_stats, channel_bytes),
	F(isp_wire_stats, link_bytes_h2c), F(isp_wire_stats, link_bytes_c2h),
	FA(isp_wire_stats, busy_ns), FA(isp_wire_stats, nres),
	F(isp_wire_stats, model_ns), F(isp_wire_stats, emul_ns),
	F(isp_wire_stats, energy_pj), F(isp_wire_stats, filtered_entries),
	F(isp_wire_stats, ttl_entries), F(isp_wire_stats, cache_hits),
	F(isp_wire_stats, cache_misses), F(isp_wire_stats, searches),
	F(isp_wire_stats, sls_bags), F(isp_wire_stats, remaps),
	F(isp_wire_stats, ftl_reads), F(isp_wire_stats, ftl_writes),
	F(isp_wire_stats, ftl_read_bytes), F(isp_wire_stats, ftl_write_bytes),
	F(isp_wire_stats, ftl_nand_write_bytes), F(isp_wire_stats, ftl_gc_write_bytes),
	F(isp_wire_stats, ftl_gc_victims), F(isp_wire_stats, ftl_erases),
	F(isp_wire_stats, ftl_flushes), F(isp_wire_stats, ftl_trims),
	F(isp_wire_stats, ftl_buf_hits), F(isp_wire_stats, ftl_stalls),
	F(isp_wire_stats, ftl_io_model_ns), F(isp_wire_stats, ftl_read_model_ns),
	F(isp_wire_stats, ftl_write_model_ns), F(isp_wire_stats, ftl_wa_milli),
	F(isp_wire_stats, ftl_op_permille), F(isp_wire_stats, ftl_user_bytes),
	F(isp_wire_stats, ftl_phys_bytes), F(isp_wire_stats, ftl_stripes),
	F(isp_wire_stats, ftl_stripes_min), F(isp_wire_stats, ftl_free_blocks),
	F(isp_wire_stats, ftl_erase_max),
	FA(isp_wire_stats, rsvd),
	FA(isp_wire_stats, cs_cmds), FA(isp_wire_stats, cs_errors),
	F(isp_wire_stats, slm_bytes_read), F(isp_wire_stats, slm_bytes_written),
	F(isp_wire_stats, slm_bytes_copied), F(isp_wire_stats, slm_backed),
	FA(isp_wire_stats, rsvd2),

	FA(isp_wire_result_hdr, magic), F(isp_wire_result_hdr, kind),
	F(isp_wire_result_hdr, total_bytes), F(isp_wire_result_hdr, ticket),
	F(isp_wire_result_hdr, hdr_bytes), F(isp_wire_result_hdr, model_ns),
	F(isp_wire_result_hdr, energy_pj), FA(isp_wire_result_hdr, rsvd),

	F(isp_wire_reis_result, nq), F(isp_wire_reis_result, k),
	F(isp_wire_reis_result, flags), F(isp_wire_reis_result, ndbs),
	F(isp_wire_reis_result, pages_read), F(isp_wire_reis_result, entries_compared),
	F(isp_wire_reis_result, entries_passed), F(isp_wire_reis_result, reranked),
	F(isp_wire_reis_result, nprobe), F(isp_wire_reis_result, rsvd0),
	F(isp_wire_reis_result, docs_bytes), FA(isp_wire_reis_result, rsvd),

	F(isp_wire_reis_hit, id), F(isp_wire_reis_hit, did),
	F(isp_wire_reis_hit, hamming), F(isp_wire_reis_hit, score),
	F(isp_wire_reis_hit, doc_len), F(isp_wire_reis_hit, entry),
	F(isp_wire_reis_hit, doc_off),

	F(isp_wire_rf_result, nbags), F(isp_wire_rf_result, dim),
	F(isp_wire_rf_result, generation), F(isp_wire_rf_result, rsvd0),
	F(isp_wire_rf_result, lookups), F(isp_wire_rf_result, page_reads),
	F(isp_wire_rf_result, cache_hits), F(isp_wire_rf_result, cache_misses),
	F(isp_wire_rf_result, bytes_sensed), F(isp_wire_rf_result, bytes_useful),
	F(isp_wire_rf_result, bytes_out), F(isp_wire_rf_result, flash_ns),
	F(isp_wire_rf_result, flash_pj), FA(isp_wire_rf_result, rsvd),

	F(isp_wire_reis_create, did), F(isp_wire_reis_create, kind),
	F(isp_wire_reis_create, flags), F(isp_wire_reis_create, dim),
	F(isp_wire_reis_create, n), F(isp_wire_reis_create, nlist),
	F(isp_wire_reis_create, ncalib), F(isp_wire_reis_create, doc_mode),
	F(isp_wire_reis_create, metric), F(isp_wire_reis_create, df_threshold),
	F(isp_wire_reis_create, group), F(isp_wire_reis_create, docs_bytes),
	F(isp_wire_reis_create, timestamp), FA(isp_wire_reis_create, name),
	F(isp_wire_reis_create, meta_bytes), FA(isp_wire_reis_create, rsvd),

	F(isp_wire_reis_calib, recall), F(isp_wire_reis_calib, nprobe),

	F(isp_wire_reis_search, did), F(isp_wire_reis_search, nq),
	F(isp_wire_reis_search, k), F(isp_wire_reis_search, flags),
	F(isp_wire_reis_search, rerank_factor), F(isp_wire_reis_search, df_threshold),
	F(isp_wire_reis_search, nprobe), F(isp_wire_reis_search, target_recall),
	F(isp_wire_reis_search, tag), F(isp_wire_reis_search, dim),
	F(isp_wire_reis_search, t_min), F(isp_wire_reis_search, t_max),
	FA(isp_wire_reis_search, rsvd),

	F(isp_wire_reis_dbinfo, create), F(isp_wire_reis_dbinfo, state),
	F(isp_wire_reis_dbinfo, epb), FA(isp_wire_reis_dbinfo, received),
	FA(isp_wire_reis_dbinfo, pages), F(isp_wire_reis_dbinfo, dram_bytes),
	F(isp_wire_reis_dbinfo, searches), F(isp_wire_reis_dbinfo, calib_best_recall),
	F(isp_wire_reis_dbinfo, calib_best_nprobe), FA(isp_wire_reis_dbinfo, rsvd),

	F(isp_wire_reis_list, total), F(isp_wire_reis_list, count),
	FA(isp_wire_reis_list, rsvd),

	F(isp_wire_rf_create, tid), F(isp_wire_rf_create, rows),
	F(isp_wire_rf_create, dim), F(isp_wire_rf_create, dtype),
	F(isp_wire_rf_create, mode), F(isp_wire_rf_create, flags),
	F(isp_wire_rf_create, trigger), F(isp_wire_rf_create, hot_bp),
	F(isp_wire_rf_create, trigger_ppm), F(isp_wire_rf_create, period),
	FA(isp_wire_rf_create, name), FA(isp_wire_rf_create, rsvd),

	F(isp_wire_rf_sls, tid), F(isp_wire_rf_sls, nbags),
	F(isp_wire_rf_sls, nidx), F(isp_wire_rf_sls, flags),
	F(isp_wire_rf_sls, dim), FA(isp_wire_rf_sls, rsvd),

	F(isp_wire_rf_stats, create), F(isp_wire_rf_stats, state),
	F(isp_wire_rf_stats, remap_state), F(isp_wire_rf_stats, generation),
	F(isp_wire_rf_stats, rows_per_page), FA(isp_wire_rf_stats, received),
	F(isp_wire_rf_stats, pages), F(isp_wire_rf_stats, dram_bytes),
	F(isp_wire_rf_stats, sls_bags), F(isp_wire_rf_stats, lookups),
	F(isp_wire_rf_stats, page_reads), F(isp_wire_rf_stats, cache_hits),
	F(isp_wire_rf_stats, cache_misses), F(isp_wire_rf_stats, bytes_sensed),
	F(isp_wire_rf_stats, bytes_useful), F(isp_wire_rf_stats, bytes_out),
	F(isp_wire_rf_stats, model_ns), F(isp_wire_rf_stats, energy_pj),
	F(isp_wire_rf_stats, tracked_keys), F(isp_wire_rf_stats, remaps),
	F(isp_wire_rf_stats, remap_rows_moved), F(isp_wire_rf_stats, remap_page_reads),
	F(isp_wire_rf_stats, remap_programs), F(isp_wire_rf_stats, remap_erases),
	F(isp_wire_rf_stats, remap_ns), F(isp_wire_rf_stats, trigger_hot_new),
	FA(isp_wire_rf_stats, rsvd),

	F(isp_wire_rf_list, total), F(isp_wire_rf_list, count),
	FA(isp_wire_rf_list, rsvd),

	F(isp_wire_err_text, error_count), F(isp_wire_err_text, sqid),
	F(isp_wire_err_text, cid), F(isp_wire_err_text, status), F(isp_wire_err_text, loc),
	F(isp_wire_err_text, nsid), F(isp_wire_err_text, opcode),
	F(isp_wire_err_text, data_bit), F(isp_wire_err_text, data_byte),
	F(isp_wire_err_text, cmd_digest), FA(isp_wire_err_text, msg),

	F(isp_wire_cs_mrd, mnsid), F(isp_wire_cs_mrd, len), F(isp_wire_cs_mrd, sb),
	FA(isp_wire_cs_mrd, rsvd),

	F(isp_wire_cs_src_lba, snsid), F(isp_wire_cs_src_lba, rsvd0),
	F(isp_wire_cs_src_lba, slba), F(isp_wire_cs_src_lba, nlb),
	FA(isp_wire_cs_src_lba, rsvd1), F(isp_wire_cs_src_lba, sopt),
	FA(isp_wire_cs_src_lba, rsvd2),

	F(isp_wire_cs_src_mem, snsid), F(isp_wire_cs_src_mem, rsvd0),
	F(isp_wire_cs_src_mem, saddr), F(isp_wire_cs_src_mem, nbyte),
	F(isp_wire_cs_src_mem, rsvd1), F(isp_wire_cs_src_mem, sopt),
	FA(isp_wire_cs_src_mem, rsvd2),

	F(isp_wire_cs_src_db, did), F(isp_wire_cs_src_db, region),
	F(isp_wire_cs_src_db, offset), F(isp_wire_cs_src_db, nbyte),
	FA(isp_wire_cs_src_db, rsvd),

	F(isp_wire_cs_prog, flags), F(isp_wire_cs_prog, ptype), FA(isp_wire_cs_prog, rsvd0),
	F(isp_wire_cs_prog, puid), FA(isp_wire_cs_prog, name), F(isp_wire_cs_prog, nranges),
	F(isp_wire_cs_prog, rsvd1), F(isp_wire_cs_prog, in_hdr), F(isp_wire_cs_prog, execs),

	F(isp_wire_cs_id_ns_cp, maxact), F(isp_wire_cs_id_ns_cp, maxmemrs),
	F(isp_wire_cs_id_ns_cp, mrsg), F(isp_wire_cs_id_ns_cp, maxmemr),
	F(isp_wire_cs_id_ns_cp, rsvd7), F(isp_wire_cs_id_ns_cp, maxpb),
	F(isp_wire_cs_id_ns_cp, lpg), FA(isp_wire_cs_id_ns_cp, rsvd17),
	F(isp_wire_cs_id_ns_cp, nprogs), F(isp_wire_cs_id_ns_cp, slm_nsid),
	F(isp_wire_cs_id_ns_cp, max_param), F(isp_wire_cs_id_ns_cp, rsvd3084),
	FA(isp_wire_cs_id_ns_cp, rsvd),

	F(isp_wire_cs_id_ns_slm, msz), F(isp_wire_cs_id_ns_slm, muse),
	F(isp_wire_cs_id_ns_slm, msrc), F(isp_wire_cs_id_ns_slm, mssrl),
	F(isp_wire_cs_id_ns_slm, mcl), F(isp_wire_cs_id_ns_slm, desfmts),
	F(isp_wire_cs_id_ns_slm, gran), FA(isp_wire_cs_id_ns_slm, rsvd35),
	F(isp_wire_cs_id_ns_slm, nvm_nsid), F(isp_wire_cs_id_ns_slm, cp_nsid),
	F(isp_wire_cs_id_ns_slm, max_rw), F(isp_wire_cs_id_ns_slm, rsvd3084),
	FA(isp_wire_cs_id_ns_slm, rsvd),

	F(isp_wire_cs_manage, opcode), FA(isp_wire_cs_manage, rsvd0),
	F(isp_wire_cs_manage, cdw10), F(isp_wire_cs_manage, cdw11),
	F(isp_wire_cs_manage, cdw12), F(isp_wire_cs_manage, cdw13),
	F(isp_wire_cs_manage, cdw14), F(isp_wire_cs_manage, cdw15),
	F(isp_wire_cs_manage, in_len), F(isp_wire_cs_manage, out_len),
	F(isp_wire_cs_manage, nsid),

	F(isp_wire_cs_doc_ref, did), F(isp_wire_cs_doc_ref, entry),

	F(isp_wire_cs_docs_hdr, count), F(isp_wire_cs_docs_hdr, rsvd0),
	F(isp_wire_cs_docs_hdr, bytes),
};

struct wstruct {
	const char *name;
	size_t size;
};

#define WS(s) { #s, sizeof(struct s) }
static const struct wstruct structs[] = {
	WS(isp_wire_identify), WS(isp_wire_partition), WS(isp_wire_stats),
	WS(isp_wire_result_hdr), WS(isp_wire_reis_result), WS(isp_wire_reis_hit),
	WS(isp_wire_rf_result), WS(isp_wire_reis_create), WS(isp_wire_reis_calib),
	WS(isp_wire_reis_search), WS(isp_wire_reis_dbinfo), WS(isp_wire_reis_list),
	WS(isp_wire_rf_create), WS(isp_wire_rf_sls), WS(isp_wire_rf_stats),
	WS(isp_wire_rf_list), WS(isp_wire_err_text),
	WS(isp_wire_cs_mrd), WS(isp_wire_cs_src_lba), WS(isp_wire_cs_src_mem),
	WS(isp_wire_cs_src_db), WS(isp_wire_cs_prog), WS(isp_wire_cs_id_ns_cp),
	WS(isp_wire_cs_id_ns_slm), WS(isp_wire_cs_manage), WS(isp_wire_cs_doc_ref),
	WS(isp_wire_cs_docs_hdr),
};

/* An enum row: the first cell is the value (or the bit number). */
struct wenum {
	const char *enm, *name;
	uint64_t value;
	int is_bit;
};

#define EB(e, n) { #e, #n, (uint64_t)(n), 1 }
#define EV(e, n) { #e, #n, (uint64_t)(n), 0 }
static const struct wenum enums[] = {
	EB(isp_cap, ISP_CAP_ECHO), EB(isp_cap, ISP_CAP_STATS),
	EB(isp_cap, ISP_CAP_TIMING_DELAY), EB(isp_cap, ISP_CAP_TRACE),
	EB(isp_cap, ISP_CAP_REIS), EB(isp_cap, ISP_CAP_REIS_IVF),
	EB(isp_cap, ISP_CAP_REIS_DF), EB(isp_cap, ISP_CAP_REIS_PL),
	EB(isp_cap, ISP_CAP_REIS_MPIBC), EB(isp_cap, ISP_CAP_REIS_TAGS),
	EB(isp_cap, ISP_CAP_REIS_META), EB(isp_cap, ISP_CAP_RECFLASH),
	EB(isp_cap, ISP_CAP_RECFLASH_REMAP), EB(isp_cap, ISP_CAP_RECFLASH_CACHE),
	EB(isp_cap, ISP_CAP_FTL),

	EV(isp_cmd_class, ISP_CLS_DEVICE), EV(isp_cmd_class, ISP_CLS_REIS_DEPLOY),
	EV(isp_cmd_class, ISP_CLS_REIS_SEARCH), EV(isp_cmd_class, ISP_CLS_RESULT),
	EV(isp_cmd_class, ISP_CLS_RECFLASH_DEPLOY), EV(isp_cmd_class, ISP_CLS_RECFLASH_SLS),
	EV(isp_cmd_class, ISP_CLS_RECFLASH_REMAP), EV(isp_cmd_class, ISP_CLS_OTHER),

	EV(isp_res_class, ISP_RES_PLANE), EV(isp_res_class, ISP_RES_DIE),
	EV(isp_res_class, ISP_RES_CHANNEL), EV(isp_res_class, ISP_RES_CORE),
	EV(isp_res_class, ISP_RES_DRAM), EV(isp_res_class, ISP_RES_LINK),

	EV(isp_csi, ISP_CSI_NVM), EV(isp_csi, ISP_CSI_SLM), EV(isp_csi, ISP_CSI_CP),

	EV(isp_cs_prog, ISP_CS_PROG_REIS_SEARCH), EV(isp_cs_prog, ISP_CS_PROG_REIS_IVF),
	EV(isp_cs_prog, ISP_CS_PROG_RF_SLS), EV(isp_cs_prog, ISP_CS_PROG_REIS_DOCS),
	EV(isp_cs_prog, ISP_CS_PROG_MANAGE),

	EV(isp_cs_desfmt, ISP_CS_DESFMT_LBA), EV(isp_cs_desfmt, ISP_CS_DESFMT_MEM),
	EV(isp_cs_desfmt, ISP_CS_DESFMT_DB),

	EV(isp_cs_db_region, ISP_CS_REGION_SLC), EV(isp_cs_db_region, ISP_CS_REGION_TLC),

	EV(isp_cs_status, ISP_SC_CMD_SIZE_LIMIT), EV(isp_cs_status, ISP_SC_OVERLAP_IO),
	EV(isp_cs_status, ISP_SC_INSUFF_RES), EV(isp_cs_status, ISP_SC_INSUFF_PROG_RES),
	EV(isp_cs_status, ISP_SC_INVALID_MEM_NS), EV(isp_cs_status, ISP_SC_INVALID_MRS),
	EV(isp_cs_status, ISP_SC_INVALID_RSID), EV(isp_cs_status, ISP_SC_INVALID_PROG_DATA),
	EV(isp_cs_status, ISP_SC_INVALID_PIND), EV(isp_cs_status, ISP_SC_INVALID_PTYPE),
	EV(isp_cs_status, ISP_SC_MAX_MR), EV(isp_cs_status, ISP_SC_MAX_MRS),
	EV(isp_cs_status, ISP_SC_MAX_ACTIVE), EV(isp_cs_status, ISP_SC_MAX_PROG_BYTES),
	EV(isp_cs_status, ISP_SC_MRS_IN_USE), EV(isp_cs_status, ISP_SC_NO_PROGRAM),
	EV(isp_cs_status, ISP_SC_OVERLAP_MR), EV(isp_cs_status, ISP_SC_PROG_NOT_ACTIVE),
	EV(isp_cs_status, ISP_SC_PROG_IN_USE), EV(isp_cs_status, ISP_SC_PIND_NOT_DL),
	EV(isp_cs_status, ISP_SC_PROG_TOO_BIG),
};
_Static_assert(ISP_CLS_N == 8 && ISP_RES_NCLASSES == 6,
	       "a new class needs its row in the enums list and the document");

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static int verbose = 1;

#define BAD(...)                                                \
	do {                                                    \
		if (verbose)                                    \
			fprintf(stderr, __VA_ARGS__);           \
		errs++;                                         \
	} while (0)

/* The line after *pos, NUL-terminated in place; NULL at the end. */
static char *next_line(char **pos)
{
	char *l = *pos, *nl;

	if (!l || !*l)
		return NULL;
	nl = strchr(l, '\n');
	if (nl) {
		*nl = 0;
		*pos = nl + 1;
	} else {
		*pos = l + strlen(l);
	}
	return l;
}

/* Split "| a | b |" into trimmed cells; returns the count (at most CELL_MAX). */
static int split_row(char *l, char *cell[CELL_MAX])
{
	int n = 0;
	char *p, *bar;

	if (*l != '|')
		return -1;
	p = l + 1;
	while ((bar = strchr(p, '|')) && n < CELL_MAX) {
		char *e = bar;

		*bar = 0;
		while (*p == ' ')
			p++;
		while (e > p && e[-1] == ' ')
			*--e = 0;
		cell[n++] = p;
		p = bar + 1;
	}
	return n;
}

/*
 * Find the "### ..." heading naming `key` and return the data rows of the
 * table under it (header and separator skipped) in a scratch copy of doc.
 */
static char *table_after(const char *doc, const char *key, char **heading, char **rows)
{
	char *copy = strdup(doc), *pos = copy, *l;

	if (!copy)
		return NULL;
	while ((l = next_line(&pos))) {
		if (!strncmp(l, "### ", 4) && strstr(l, key))
			break;
	}
	if (!l) {
		free(copy);
		return NULL;
	}
	*heading = l;
	*rows = pos;
	/* Skip the text up to the table, then its header and separator. */
	while (**rows && **rows != '|' && strncmp(*rows, "### ", 4))
		next_line(rows);
	if (**rows == '|') {
		next_line(rows);
		next_line(rows);
	}
	return copy;
}

static const struct wfield *find_field(const char *strct, const char *name)
{
	size_t i;

	for (i = 0; i < NELEM(fields); i++)
		if (!strcmp(fields[i].strct, strct) && !strcmp(fields[i].name, name))
			return &fields[i];
	return NULL;
}

static size_t type_bytes(const char *t)
{
	if (!strcmp(t, "char") || !strcmp(t, "u8"))
		return 1;
	if (!strcmp(t, "u16"))
		return 2;
	if (!strcmp(t, "u32"))
		return 4;
	if (!strcmp(t, "u64") || !strcmp(t, "i64"))
		return 8;
	return 0;
}

/* One row: offset | hex | size | type | `field[N]` | meaning. */
static int check_row(const struct wstruct *s, char *cell[], int nc, size_t *at,
		     unsigned *seen)
{
	char name[64], *br, *end;
	const struct wfield *f;
	unsigned long off, hex, size, count = 0;
	int errs = 0;
	size_t len;

	if (nc != 6) {
		BAD("%s: a row with %d cells, want 6\n", s->name, nc);
		return errs;
	}
	off = strtoul(cell[0], &end, 10);
	if (*end)
		BAD("%s: offset '%s' is not decimal\n", s->name, cell[0]);
	hex = strtoul(cell[1], &end, 16);
	if (strcmp(end, "h"))
		BAD("%s: hex offset '%s' does not end in h\n", s->name, cell[1]);
	size = strtoul(cell[2], &end, 10);
	if (*end)
		BAD("%s: size '%s' is not decimal\n", s->name, cell[2]);
	len = strlen(cell[4]);
	if (len < 3 || len >= sizeof(name) || cell[4][0] != '`' || cell[4][len - 1] != '`') {
		BAD("%s: field '%s' is not one `name`\n", s->name, cell[4]);
		return errs;
	}
	memcpy(name, cell[4] + 1, len - 2);
	name[len - 2] = 0;
	br = strchr(name, '[');
	if (br) {
		count = strtoul(br + 1, &end, 10);
		if (strcmp(end, "]"))
			BAD("%s: field '%s' has a bad array count\n", s->name, name);
		*br = 0;
	}
	f = find_field(s->name, name);
	if (!f) {
		BAD("%s: field '%s' is not in isp_wire.h (or not in this test)\n", s->name, name);
		return errs;
	}
	seen[f - fields]++;
	if (off != f->off || hex != f->off)
		BAD("%s.%s: offset %lu / %lXh, offsetof says %zu\n", s->name, name, off, hex,
		    f->off);
	if (size != f->size)
		BAD("%s.%s: size %lu, sizeof says %zu\n", s->name, name, size, f->size);
	if (count != f->count)
		BAD("%s.%s: %lu elements, the header has %u\n", s->name, name, count, f->count);
	if (strcmp(cell[3], f->type))
		BAD("%s.%s: type '%s', the header's is %s\n", s->name, name, cell[3], f->type);
	else if (type_bytes(f->type) &&
		 type_bytes(f->type) * (f->count ? f->count : 1) != f->size)
		BAD("%s.%s: type %s does not make %zu bytes\n", s->name, name, f->type, f->size);
	if (off != *at)
		BAD("%s.%s: starts at %lu, the previous row ended at %zu (gap or overlap)\n",
		    s->name, name, off, *at);
	*at = off + size;
	return errs;
}

static int check_struct(const char *doc, const struct wstruct *s, unsigned *seen)
{
	char key[96], title[128], *head, *rows, *copy, *l, *cell[CELL_MAX];
	size_t at = 0;
	int errs = 0, nrows = 0;

	snprintf(key, sizeof(key), "`struct %s`", s->name);
	snprintf(title, sizeof(title), "`struct %s` (%zu bytes)", s->name, s->size);
	copy = table_after(doc, key, &head, &rows);
	if (!copy) {
		BAD("no '### ... %s' table\n", key);
		return errs;
	}
	if (!strstr(head, title))
		BAD("the heading of %s does not say (%zu bytes)\n", s->name, s->size);
	while ((l = next_line(&rows)) && *l == '|') {
		errs += check_row(s, cell, split_row(l, cell), &at, seen);
		nrows++;
	}
	if (!nrows)
		BAD("%s: empty table\n", s->name);
	if (at != s->size)
		BAD("%s: rows end at %zu, the structure has %zu bytes\n", s->name, at, s->size);
	free(copy);
	return errs;
}

static int check_enum(const char *doc, const char *enm)
{
	char key[64], *head, *rows, *copy, *l, *cell[CELL_MAX], *end;
	int errs = 0, nrows = 0, want = 0;
	size_t i;

	for (i = 0; i < NELEM(enums); i++)
		want += !strcmp(enums[i].enm, enm);
	snprintf(key, sizeof(key), "`enum %s`", enm);
	copy = table_after(doc, key, &head, &rows);
	if (!copy) {
		BAD("no '### ... %s' table\n", key);
		return errs;
	}
	(void)head;
	while ((l = next_line(&rows)) && *l == '|') {
		int nc = split_row(l, cell);
		const struct wenum *e = NULL;
		unsigned long v;
		size_t len;

		nrows++;
		if (nc != 3) {
			BAD("%s: a row with %d cells, want 3\n", enm, nc);
			continue;
		}
		v = strtoul(cell[0], &end, 0);	/* decimal, or 0x... */
		len = strlen(cell[1]);
		for (i = 0; len > 2 && i < NELEM(enums); i++)
			if (!strcmp(enums[i].enm, enm) && strlen(enums[i].name) == len - 2 &&
			    !strncmp(enums[i].name, cell[1] + 1, len - 2))
				e = &enums[i];
		if (*end || !e) {
			BAD("%s: row '%s' '%s' unknown\n", enm, cell[0], cell[1]);
			continue;
		}
		if (e->is_bit ? (v >= 64 || (UINT64_C(1) << v) != e->value) : v != e->value)
			BAD("%s: %s is %lu in the document, %llu in the header%s\n", enm, e->name,
			    v, (unsigned long long)e->value, e->is_bit ? " (as a mask)" : "");
	}
	if (nrows != want)
		BAD("%s: %d rows, want %d\n", enm, nrows, want);
	free(copy);
	return errs;
}

static int check_doc(const char *doc)
{
	static const char *const enum_names[] = { "isp_cap", "isp_cmd_class", "isp_res_class",
						  "isp_csi", "isp_cs_prog", "isp_cs_desfmt",
						  "isp_cs_db_region", "isp_cs_status" };
	unsigned *seen = calloc(NELEM(fields), sizeof(*seen));
	int errs = 0;
	size_t i;

	REQUIRE(seen);
	for (i = 0; i < NELEM(structs); i++)
		errs += check_struct(doc, &structs[i], seen);
	for (i = 0; i < NELEM(fields); i++)
		if (seen[i] != 1)
			BAD("%s.%s: %u rows in the document, want 1\n", fields[i].strct,
			    fields[i].name, seen[i]);
	for (i = 0; i < NELEM(enum_names); i++)
		errs += check_enum(doc, enum_names[i]);
	free(seen);
	return errs;
}

static char *load_doc(const char *path)
{
	FILE *f = fopen(path, "r");
	char *doc;
	size_t n;

	REQUIRE(f);
	doc = malloc(DOC_MAX + 1);
	REQUIRE(doc);
	n = fread(doc, 1, DOC_MAX + 1, f);
	fclose(f);
	REQUIRE(n > 0 && n <= DOC_MAX);
	doc[n] = 0;
	return doc;
}

/* Replace the first occurrence of `from` (after `anchor`) with `to`. */
static char *mutate(const char *doc, const char *anchor, const char *from, const char *to)
{
	const char *a = strstr(doc, anchor), *p;
	size_t n = strlen(doc), lf = strlen(from), lt = strlen(to);
	char *out;

	REQUIRE(a);
	p = strstr(a, from);
	REQUIRE(p);
	out = malloc(n - lf + lt + 1);
	REQUIRE(out);
	memcpy(out, doc, (size_t)(p - doc));
	memcpy(out + (p - doc), to, lt);
	strcpy(out + (p - doc) + lt, p + lf);
	return out;
}

int main(void)
{
	static const struct {
		const char *anchor, *from, *to;
	} muts[] = {
		/* A wrong offset, a wrong size, a dropped row, a renamed field. */
		{ "`struct isp_wire_identify`", "| 16 | 010h | 4 |", "| 20 | 014h | 4 |" },
		{ "`struct isp_wire_reis_hit`", "| 8 | 008h | 4 | u32 | `did`", "| 8 | 008h | 8 | u32 | `did`" },
		{ "`struct isp_wire_stats`", "| 336 | 150h | 8 | u64 | `model_ns` |", "|" },
		{ "`struct isp_wire_rf_result`", "`generation`", "`gen`" },
		{ "`struct isp_wire_reis_dbinfo`", "`received[10]`", "`received[9]`" },
		{ "`struct isp_wire_result_hdr`", "| u64 | `total_bytes`", "| u32 | `total_bytes`" },
		{ "`enum isp_cmd_class`", "| 5 | `ISP_CLS_RECFLASH_SLS`", "| 6 | `ISP_CLS_RECFLASH_SLS`" },
		{ "`enum isp_cap`", "| 14 | `ISP_CAP_REIS_META`", "| 15 | `ISP_CAP_REIS_META`" },
	};
	char *doc = load_doc(TESTS_SRCDIR "/../docs/command-set.md");
	size_t i;

	CHECK(check_doc(doc) == 0);
	verbose = 0;
	for (i = 0; i < NELEM(muts); i++) {
		char *bad = mutate(doc, muts[i].anchor, muts[i].from, muts[i].to);

		if (check_doc(bad) == 0) {
			fprintf(stderr, "mutation %zu (%s -> %s) was not caught\n", i,
				muts[i].from, muts[i].to);
			t_failures++;
		}
		free(bad);
	}
	free(doc);
	return t_failures ? T_EXIT_FAIL : T_EXIT_PASS;
}
