/* SPDX-License-Identifier: MIT */
/*
 * isp_wire.h - the ISP vendor command set on the wire.
 *
 * The one header shared by the QEMU glue, hw-model and libreis. It follows
 * docs/command-set.md; change both together. All fields are little-endian
 * (hosts and guests here are x86_64, so no byte swapping is done).
 */
#ifndef ISP_WIRE_H
#define ISP_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define ISP_WIRE_VERSION_MAJOR 1
#define ISP_WIRE_VERSION_MINOR 1	/* 1: TICKET_IN_USE, REIS META, hit entry */

/* Data direction, opcode bits 1:0 (NVMe base spec, Linux nvme_is_write()). */
enum isp_dir {
	ISP_DIR_NONE = 0,
	ISP_DIR_H2C = 1,
	ISP_DIR_C2H = 2,
	ISP_DIR_BIDI = 3,
};

static inline enum isp_dir isp_wire_dir(uint8_t opcode)
{
	return (enum isp_dir)(opcode & 3u);
}

enum isp_opcode {
	/* Device commands, docs/command-set.md section 3. */
	ISP_OP_NOOP = 0x80,
	ISP_OP_ECHO_H2C = 0x81,
	ISP_OP_IDENTIFY = 0x82,
	ISP_OP_ECHO_C2H = 0x86,
	ISP_OP_STATS = 0x8a,
	ISP_OP_TRACE_ARM = 0x8c,
	/* Tickets and result transfer, section 6. */
	ISP_OP_RESULT_READ = 0xa2,
	ISP_OP_RESULT_RELEASE = 0xa4,
};

/* NVMe status field values (SC | SCT << 8 | DNR). */
enum isp_status {
	ISP_SC_SUCCESS = 0x0000,
	ISP_SC_INVALID_OPCODE = 0x0001,
	ISP_SC_INVALID_FIELD = 0x0002,
	ISP_SC_DATA_XFER_ERROR = 0x0004,
	ISP_SC_INTERNAL = 0x0006,
	ISP_SC_ABORT_REQ = 0x0007,	/* stopped by its cancel flag */
	ISP_SC_ABORT_SQ_DEL = 0x0008,
	ISP_SC_INVALID_NSID = 0x000b,
	ISP_SC_CAP_EXCEEDED = 0x0081,
	ISP_SC_UNKNOWN_ID = 0x07c0,
	ISP_SC_ID_EXISTS = 0x07c1,
	ISP_SC_BUSY = 0x07c2,
	ISP_SC_DIM_MISMATCH = 0x07c3,
	ISP_SC_BAD_OFFSET = 0x07c4,
	ISP_SC_INCOMPLETE = 0x07c5,
	ISP_SC_BAD_PAYLOAD = 0x07c6,
	ISP_SC_MISCOMPARE = 0x07c7,
	ISP_SC_RESOURCE = 0x07c8,
	ISP_SC_TICKET_IN_USE = 0x07c9,	/* DNR: the host draws another ticket */
};

#define ISP_STATUS_DNR 0x4000u
#define ISP_STATUS_MORE 0x2000u
#define ISP_STATUS_CODE_MASK 0x07ffu

/* Upper bound on max_xfer whatever the controller's MDTS says. */
#define ISP_MAX_XFER_CAP (2u << 20)

/* Completion DW0|DW1: modeled time (bits 39:0) and energy (bits 63:40). */
#define ISP_RESULT_TIME_BITS 40
#define ISP_RESULT_TIME_MAX ((UINT64_C(1) << ISP_RESULT_TIME_BITS) - 1)
#define ISP_RESULT_EMANT_BITS 19

static inline uint64_t isp_wire_result_pack(uint64_t time_ns, uint64_t energy_nj)
{
	uint64_t exp = 0;

	if (time_ns > ISP_RESULT_TIME_MAX)
		time_ns = ISP_RESULT_TIME_MAX;
	while (energy_nj >> ISP_RESULT_EMANT_BITS) {
		energy_nj >>= 1;
		exp++;
	}
	return time_ns | (energy_nj << ISP_RESULT_TIME_BITS) |
	       (exp << (ISP_RESULT_TIME_BITS + ISP_RESULT_EMANT_BITS));
}

static inline uint64_t isp_wire_result_time_ns(uint64_t result)
{
	return result & ISP_RESULT_TIME_MAX;
}

static inline uint64_t isp_wire_result_energy_nj(uint64_t result)
{
	uint64_t mant = (result >> ISP_RESULT_TIME_BITS) &
			((UINT64_C(1) << ISP_RESULT_EMANT_BITS) - 1);
	unsigned exp = (unsigned)(result >> (ISP_RESULT_TIME_BITS + ISP_RESULT_EMANT_BITS));

	return mant << exp;
}

/*
 * isp_wire_pattern() - fill @buf with the ECHO pattern for @seed.
 * xorshift32 seeded with seed | 1; each state word is stored little-endian.
 */
static inline void isp_wire_pattern(uint32_t seed, void *buf, size_t len)
{
	uint8_t *p = (uint8_t *)buf;
	uint32_t x = seed | 1u;
	size_t i;

	for (i = 0; i < len; i++) {
		if ((i & 3u) == 0) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
		}
		p[i] = (uint8_t)(x >> (8u * (i & 3u)));
	}
}

/* Capability bits in isp_wire_identify.caps. */
enum isp_cap {
	ISP_CAP_ECHO = 1u << 0,
	ISP_CAP_STATS = 1u << 1,
	ISP_CAP_TIMING_DELAY = 1u << 2,	/* glue holds completions for model time */
	ISP_CAP_TRACE = 1u << 3,	/* TRACE_ARM: Perfetto timeline of a command */
	ISP_CAP_REIS = 1u << 8,		/* brute-force Search */
	ISP_CAP_REIS_IVF = 1u << 9,
	ISP_CAP_REIS_DF = 1u << 10,	/* distance filtering */
	ISP_CAP_REIS_PL = 1u << 11,	/* pipelining */
	ISP_CAP_REIS_MPIBC = 1u << 12,
	ISP_CAP_REIS_TAGS = 1u << 13,	/* metadata filtering */
	ISP_CAP_REIS_META = 1u << 14,	/* META section and REIS_META_READ */
	ISP_CAP_RECFLASH = 1u << 16,
	ISP_CAP_RECFLASH_REMAP = 1u << 17,
	ISP_CAP_RECFLASH_CACHE = 1u << 18,
	ISP_CAP_FTL = 1u << 24,		/* ordinary I/O runs through the FTL */
};

/* Cell modes of a flash partition. */
enum isp_cell_mode {
	ISP_CELL_SLC = 1,	/* ESP-programmed SLC, REIS 4.1.2 */
	ISP_CELL_MLC = 2,
	ISP_CELL_TLC = 3,
	ISP_CELL_QLC = 4,
};

#define ISP_PRESET_NAME_LEN 32
#define ISP_WIRE_MAX_PARTS 4

struct isp_wire_partition {
	uint32_t first_block;	/* block index within every plane */
	uint32_t nblocks;
	uint32_t cell_mode;	/* enum isp_cell_mode */
	uint32_t pages_per_block;	/* usable pages in this mode */
};
_Static_assert(sizeof(struct isp_wire_partition) == 16, "wire size");

/* ISP_IDENTIFY CNS 0 and Get Log Page C1h. */
struct isp_wire_identify {
	char magic[4];			/* "ISP1" */
	uint16_t ver_major;
	uint16_t ver_minor;
	uint64_t caps;			/* enum isp_cap */
	uint32_t max_xfer;		/* bytes per command */
	uint32_t max_tickets;
	uint64_t max_result_bytes;
	/* 32 */
	uint32_t channels;
	uint32_t dies_per_channel;
	uint32_t planes_per_die;
	uint32_t blocks_per_plane;
	uint32_t pages_per_block;	/* native (densest) mode */
	uint32_t page_bytes;
	uint32_t oob_bytes;
	uint32_t subpage_bytes;
	/* 64 */
	uint64_t raw_capacity_bytes;	/* all partitions, in their modes */
	uint64_t dram_bytes;		/* controller DRAM budget */
	uint64_t dram_used;
	uint32_t nparts;
	uint32_t cores;
	struct isp_wire_partition parts[ISP_WIRE_MAX_PARTS];
	/* 160 */
	char preset[ISP_PRESET_NAME_LEN];
	/* 192: key timings of the preset, ns (informative) */
	uint32_t t_read_ns[5];		/* indexed by enum isp_cell_mode, [0] unused */
	uint32_t t_prog_ns[5];
	uint32_t t_erase_ns;
	uint32_t channel_mbps;		/* MB/s per channel */
	uint32_t core_mhz;
	uint32_t link_mbps;		/* host link MB/s */
	uint32_t ctrl_cmd_ns;		/* per-command controller overhead */
	uint32_t rsvd0;
	/* 256 */
	uint32_t max_dbs;
	uint32_t max_tables;
	uint64_t free_bytes;		/* unallocated flash, in native mode;
					 * with dead rows (compaction's) */
	/* 272: what limits the next REIS database (docs/reis-engine.md §7);
	 * all 0 from a drive without packed regions */
	uint32_t ndbs;			/* REIS databases on the drive */
	uint32_t row_pages;		/* pages of one page row: the packed unit */
	uint64_t slc_free_bytes;	/* SLC bytes new regions may take */
	uint64_t native_free_bytes;	/* native-mode bytes new regions may take */
	uint64_t dead_bytes;		/* freed rows of shared stripes, back when
					 * their stripe empties */
	uint32_t db_room;		/* more one-row databases that fit (R-DB,
					 * SLC flash and DRAM) */
	uint32_t rsvd1;
	/* 312: the host-memory bound and its shares (isp_hostmem.h) */
	uint64_t host_mem_bytes;	/* host_mem: the bound, per controller */
	uint64_t host_fixed_bytes;	/* the drive's own state, computed */
	uint64_t mem_cap_bytes;		/* the in-memory store; 0: a backing file */
	uint64_t buf_budget_bytes;	/* per-command working buffers */
	uint64_t bounce_bytes;		/* the transport's bounce buffers */
	uint64_t backing_cap_bytes;	/* disk: the backing file's pages */
	uint64_t trace_cap_bytes;	/* disk: isp-trace-dir's files */
	uint64_t budget_errors;		/* gives of more than held: a bug, 0 */
	uint8_t rsvd[4096 - 376];
};
_Static_assert(sizeof(struct isp_wire_identify) == 4096, "wire size");

/* Resource classes of the timing model, for statistics. */
enum isp_res_class {
	ISP_RES_PLANE,
	ISP_RES_DIE,
	ISP_RES_CHANNEL,
	ISP_RES_CORE,
	ISP_RES_DRAM,
	ISP_RES_LINK,
	ISP_RES_NCLASSES,
};

/* Command classes for per-class counters. */
enum isp_cmd_class {
	ISP_CLS_DEVICE,
	ISP_CLS_REIS_DEPLOY,
	ISP_CLS_REIS_SEARCH,
	ISP_CLS_RESULT,
	ISP_CLS_RECFLASH_DEPLOY,
	ISP_CLS_RECFLASH_SLS,
	ISP_CLS_RECFLASH_REMAP,
	ISP_CLS_OTHER,
	ISP_CLS_N,
};

#define ISP_STATS_RESET 1u

/*
 * Errors (docs/command-set.md §8). Each failed ISP command is an entry of
 * the Error Information log (LID 01h, 64 bytes, NVMe's layout) whose Vendor
 * Specific Information Available byte names LID C2h; C2h holds the same
 * entries, in the same order, as isp_wire_err_text: the reason text and
 * the location of the field in the command or its data.
 */
#define ISP_LID_ERROR 0x01		/* NVMe Error Information */
#define ISP_LID_ERRTEXT 0xc2		/* the reasons: isp_wire_err_text */
#define ISP_ERR_RING 64u		/* entries kept (Identify Controller ELPE + 1) */
#define ISP_ERR_MSG_LEN 96u
#define ISP_ERR_LOC_NONE 0xffffu	/* Parameter Error Location: not in the SQE */

struct isp_wire_err_text {
	uint64_t error_count;		/* the LID 01h entry's Error Count */
	uint16_t sqid;
	uint16_t cid;
	uint16_t status;		/* NVMe status (DNR bit 14) */
	uint16_t loc;			/* Parameter Error Location, as in 01h */
	uint32_t nsid;
	uint8_t opcode;
	uint8_t data_bit;		/* bit of the field in the H2C data */
	uint16_t data_byte;		/* byte of it + 1; 0: not in the data */
	uint64_t cmd_digest;		/* isp_wire_cmd_digest() of the command */
	char msg[ISP_ERR_MSG_LEN];	/* NUL-terminated */
};
_Static_assert(sizeof(struct isp_wire_err_text) == 128, "wire size");

/*
 * Identifies a command in C2h for a host that does not know the CID its
 * kernel chose: FNV-1a over the opcode, nsid and CDW10..15 (little-endian).
 */
static inline uint64_t isp_wire_cmd_digest(uint8_t opcode, uint32_t nsid, const uint32_t cdw[6])
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	uint32_t w[8], i, b;

	w[0] = opcode;
	w[1] = nsid;
	for (i = 0; i < 6; i++)
		w[i + 2] = cdw[i];
	for (i = 0; i < 8; i++)
		for (b = 0; b < 4; b++) {
			h ^= (w[i] >> (8 * b)) & 0xffu;
			h *= UINT64_C(0x100000001b3);
		}
	return h;
}

/* ISP_STATS and Get Log Page C0h. Counters since power-on or last reset. */
struct isp_wire_stats {
	uint64_t cmds[ISP_CLS_N];
	uint64_t errors[ISP_CLS_N];
	/* 128 */
	uint64_t page_reads[5];		/* by enum isp_cell_mode */
	uint64_t page_programs[5];
	uint64_t block_erases;
	uint64_t channel_bytes;		/* flash dies <-> controller */
	uint64_t link_bytes_h2c;	/* host link */
	uint64_t link_bytes_c2h;
	/* 240 */
	uint64_t busy_ns[ISP_RES_NCLASSES];	/* summed over resources of a class */
	uint64_t nres[ISP_RES_NCLASSES];	/* how many resources in each class */
	/* 336 */
	uint64_t model_ns;		/* sum of per-command modeled latency */
	uint64_t emul_ns;		/* host CPU wall time spent executing */
	uint64_t energy_pj;
	uint64_t filtered_entries;	/* REIS DF: entries dropped in the die */
	uint64_t ttl_entries;		/* entries that crossed the channel */
	uint64_t cache_hits;		/* RecFlash page cache */
	uint64_t cache_misses;
	uint64_t searches;		/* queries answered */
	uint64_t sls_bags;
	uint64_t remaps;
	/* 416: ordinary I/O through the FTL (docs/ftl.md); 0 with isp-ftl=off */
	uint64_t ftl_reads;		/* read commands */
	uint64_t ftl_writes;		/* write commands */
	uint64_t ftl_read_bytes;	/* host bytes read */
	uint64_t ftl_write_bytes;	/* host bytes written */
	uint64_t ftl_nand_write_bytes;	/* programmed: host + GC + padding */
	uint64_t ftl_gc_write_bytes;	/* moved by GC */
	uint64_t ftl_gc_victims;	/* blocks GC reclaimed */
	uint64_t ftl_erases;		/* blocks the FTL erased */
	/* 480 */
	uint64_t ftl_flushes;
	uint64_t ftl_trims;		/* deallocations (DSM, Write Zeroes) */
	uint64_t ftl_buf_hits;		/* units read from the write buffer */
	uint64_t ftl_stalls;		/* writes that waited for buffer room */
	uint64_t ftl_io_model_ns;	/* sum of the commands' modeled latency */
	uint64_t ftl_read_model_ns;
	uint64_t ftl_write_model_ns;
	uint32_t ftl_wa_milli;		/* NAND / host bytes written, x 1000 */
	uint32_t ftl_op_permille;	/* over-provisioning now, per mille */
	/* 544 */
	uint64_t ftl_user_bytes;	/* namespaces mapped */
	uint64_t ftl_phys_bytes;	/* native flash the FTL holds */
	uint32_t ftl_stripes;		/* block stripes it holds */
	uint32_t ftl_stripes_min;	/* it never gives back below this */
	uint32_t ftl_free_blocks;	/* erased blocks, all planes */
	uint32_t ftl_erase_max;		/* most erases of one of its blocks */
	/* 576 */
	uint8_t rsvd[3584 - 576];
	/* 3584: the standard interface (docs/command-set.md section 9) */
	uint64_t cs_cmds[4];		/* by class: admin, execute, memory, copy */
	uint64_t cs_errors[4];
	uint64_t slm_bytes_read;	/* Memory Read, programs' input */
	uint64_t slm_bytes_written;	/* Memory Write and Fill, programs' output */
	uint64_t slm_bytes_copied;	/* Memory Copy */
	uint64_t slm_backed;		/* bytes of the memory namespace in use */
	/* 3680 */
	uint8_t rsvd2[4096 - 3680];
};
_Static_assert(sizeof(struct isp_wire_stats) == 4096, "wire size");

/* RESULT_READ CDW13 flags. */
#define ISP_RESULT_F_RELEASE 1u

enum isp_result_kind {
	ISP_RESULT_SEARCH = 1,
	ISP_RESULT_SLS = 2,
	ISP_RESULT_TRACE = 3,	/* Chrome/Perfetto trace JSON after the header */
};

/*
 * Every result blob starts with this header; the host reads the first chunk,
 * learns total_bytes, then reads the rest at increasing offsets.
 */
struct isp_wire_result_hdr {
	char magic[4];			/* "RSLT" */
	uint32_t kind;			/* enum isp_result_kind */
	uint64_t total_bytes;		/* whole blob, this header included */
	uint32_t ticket;
	uint32_t hdr_bytes;		/* kind-specific header follows */
	uint64_t model_ns;		/* modeled time of the producing command */
	uint64_t energy_pj;
	uint8_t rsvd[24];
};
_Static_assert(sizeof(struct isp_wire_result_hdr) == 64, "wire size");

/* The engines' parts of the command set. */
#include "isp_wire_reis.h"
#include "isp_wire_rf.h"
#include "isp_wire_cs.h"

#endif /* ISP_WIRE_H */
