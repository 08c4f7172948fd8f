/* SPDX-License-Identifier: MIT */
/*
 * isp_wire_rf.h - RecFlash commands on the wire (docs/command-set.md
 * section 5). Included by isp_wire.h; do not include directly.
 *
 * An embedding table is created with a fixed header, filled with TBL_WRITE
 * (rows, optionally an access profile for frequency-based placement) and
 * committed. SLS takes a batch of bags under a ticket; the pooled vectors are
 * read back with RESULT_READ. PROFILE/REMAP/SWITCH drive the access-frequency
 * remapping of RecFlash III-C, offline and online (Algorithm 1).
 */
#ifndef ISP_WIRE_RF_H
#define ISP_WIRE_RF_H

#include <stdint.h>

/* Opcodes B0h-CFh. */
enum isp_rf_opcode {
	ISP_OP_RF_TBL_CREATE = 0xb1,	/* H2C */
	ISP_OP_RF_TBL_LIST = 0xb2,	/* C2H */
	ISP_OP_RF_TBL_WRITE = 0xb5,	/* H2C: one chunk of one section */
	ISP_OP_RF_TBL_STATS = 0xb6,	/* C2H */
	ISP_OP_RF_TBL_COMMIT = 0xb8,	/* none */
	ISP_OP_RF_SLS = 0xb9,		/* H2C: a batch of bags */
	ISP_OP_RF_TBL_DELETE = 0xbc,	/* none */
	ISP_OP_RF_PROFILE = 0xbd,	/* H2C: access counts of a sampled trace */
	ISP_OP_RF_REMAP = 0xc0,		/* none: build a new mapping */
	ISP_OP_RF_SWITCH = 0xc4,	/* none: activate the staged mapping */
};

#define ISP_RF_MAX_DIM 4096
#define ISP_RF_MAX_ROWS (1u << 31)
#define ISP_RF_MAX_BAGS 65536		/* bags per SLS command */
#define ISP_RF_NAME_LEN 32

enum isp_rf_dtype {
	ISP_RF_FP32 = 1,	/* row: dim float32 */
	ISP_RF_FP16 = 2,	/* row: dim IEEE half */
	ISP_RF_INT8 = 3,	/* row: dim int8, then float32 scale, float32 bias
				 * (value = scale * q + bias, row-wise) */
};

/* Baseline modes of RecFlash §III-B, per table. */
enum isp_rf_mode {
	ISP_RF_RECSSD = 1,	/* row-order placement, sequential read-out */
	ISP_RF_RMSSD = 2,	/* row-order placement, selective read-out */
	ISP_RF_RECFLASH = 3,	/* frequency remap + page-wise LRU cache */
};

/* Online-training trigger policy (RecFlash III-C3/C4). */
enum isp_rf_trigger {
	ISP_RF_TRIG_NONE = 0,
	ISP_RF_TRIG_THRESHOLD = 1,	/* new hot keys > p of the tracked keys */
	ISP_RF_TRIG_PERIOD = 2,		/* every `period` bags */
};

/* isp_wire_rf_create.flags */
#define ISP_RF_TF_PROFILE (1u << 0)	/* PROFILE section: place rows by it */

/* TBL_CREATE data (CDW12-15 reserved). */
struct isp_wire_rf_create {
	uint32_t tid;			/* non-zero, unused */
	uint32_t rows;			/* 1..ISP_RF_MAX_ROWS */
	uint32_t dim;			/* 1..ISP_RF_MAX_DIM */
	uint32_t dtype;			/* enum isp_rf_dtype */
	uint32_t mode;			/* enum isp_rf_mode */
	uint32_t flags;			/* ISP_RF_TF_* */
	uint32_t trigger;		/* enum isp_rf_trigger */
	uint32_t hot_bp;		/* hot region: top x %, basis points (500 = 5 %) */
	uint32_t trigger_ppm;		/* threshold p, parts per million (1000 = 0.1 %) */
	uint32_t period;		/* period trigger, in bags */
	char name[ISP_RF_NAME_LEN];
	uint8_t rsvd[56];
};
_Static_assert(sizeof(struct isp_wire_rf_create) == 128, "wire size");

/*
 * TBL_WRITE sections (CDW13), each streamed in order from offset 0 (CDW14-15
 * = byte offset = bytes received so far):
 */
enum isp_rf_section {
	ISP_RF_SEC_ROWS = 1,		/* rows * row_bytes, row order */
	ISP_RF_SEC_PROFILE = 2,		/* rows * u32 access counts (TF_PROFILE) */
	ISP_RF_NSECTIONS = 3,
};

/* SLS flags */
#define ISP_RF_SLS_WEIGHTED (1u << 0)	/* per-index float weights follow */
#define ISP_RF_SLS_MEAN (1u << 1)	/* mean pooling instead of sum */
#define ISP_RF_SLS_NO_CACHE (1u << 2)	/* bypass the page cache (this batch) */

/*
 * SLS data (CDW12 = ticket): this header, then offsets[nbags + 1] (u32,
 * offsets[0] = 0, ascending, offsets[nbags] = nidx), then nidx u32 row
 * indices, then nidx float32 weights with SLS_WEIGHTED.
 */
struct isp_wire_rf_sls {
	uint32_t tid;
	uint32_t nbags;			/* 1..ISP_RF_MAX_BAGS */
	uint32_t nidx;			/* total indices */
	uint32_t flags;			/* ISP_RF_SLS_* */
	uint32_t dim;			/* must equal the table's */
	uint8_t rsvd[12];
};
_Static_assert(sizeof(struct isp_wire_rf_sls) == 32, "wire size");

/*
 * SLS result (kind ISP_RESULT_SLS): struct isp_wire_result_hdr, this header,
 * then nbags * dim float32 pooled vectors.
 */
struct isp_wire_rf_result {
	uint32_t nbags;
	uint32_t dim;
	uint32_t generation;		/* mapping generation that served it */
	uint32_t rsvd0;
	uint64_t lookups;		/* indices */
	uint64_t page_reads;		/* pages sensed (tR) */
	uint64_t cache_hits;		/* page-cache hits */
	uint64_t cache_misses;
	uint64_t bytes_sensed;		/* page bytes brought into page buffers */
	uint64_t bytes_useful;		/* row bytes actually used */
	uint64_t bytes_out;		/* bytes read out over the channel */
	uint64_t flash_ns;		/* modeled embedding stage in the flash */
	uint64_t flash_pj;		/* its read energy */
	uint8_t rsvd[8];
};
_Static_assert(sizeof(struct isp_wire_rf_result) == 96, "wire size");

/* Remap flags (REMAP CDW13). */
#define ISP_RF_REMAP_FULL (1u << 0)	/* re-sort every row (offline, III-C1) */
#define ISP_RF_REMAP_ADAPTIVE (1u << 1)	/* Algorithm 1: hot region only */
#define ISP_RF_REMAP_IF_TRIGGERED (1u << 2)	/* only if the trigger holds */
#define ISP_RF_REMAP_SWITCH (1u << 3)	/* activate when done (else SWITCH) */

enum isp_rf_remap_state {
	ISP_RF_REMAP_IDLE = 0,
	ISP_RF_REMAP_RUNNING = 1,	/* SLS still served by the old mapping */
	ISP_RF_REMAP_STAGED = 2,	/* new mapping built, awaiting SWITCH */
};

enum isp_rf_state {
	ISP_RF_DEPLOYING = 1,
	ISP_RF_READY = 2,
};

/* TBL_STATS (CDW12 = tid, CDW13 bit 0 = reset counters after reading). */
struct isp_wire_rf_stats {
	struct isp_wire_rf_create create;
	uint32_t state;			/* enum isp_rf_state */
	uint32_t remap_state;		/* enum isp_rf_remap_state */
	uint32_t generation;		/* active mapping generation */
	uint32_t rows_per_page;
	uint64_t received[ISP_RF_NSECTIONS];
	uint64_t pages;			/* flash pages holding the table */
	uint64_t dram_bytes;		/* mapping table in controller DRAM */
	uint64_t sls_bags;
	uint64_t lookups;
	uint64_t page_reads;
	uint64_t cache_hits;
	uint64_t cache_misses;
	uint64_t bytes_sensed;
	uint64_t bytes_useful;		/* utilisation = useful / sensed */
	uint64_t bytes_out;
	uint64_t model_ns;		/* SLS commands' modeled time */
	uint64_t energy_pj;
	uint64_t tracked_keys;		/* distinct rows seen since the last remap */
	uint64_t remaps;
	uint64_t remap_rows_moved;
	uint64_t remap_page_reads;
	uint64_t remap_programs;
	uint64_t remap_erases;
	uint64_t remap_ns;		/* modeled time of the last remap */
	uint64_t trigger_hot_new;	/* threshold trigger: new keys above the
					 * hot threshold, at the last check */
	uint8_t rsvd[24];
};
_Static_assert(sizeof(struct isp_wire_rf_stats) == 352, "wire size");

/* TBL_LIST (C2H, CDW12 = first index): header then entries that fit. */
struct isp_wire_rf_list {
	uint32_t total;
	uint32_t count;
	uint8_t rsvd[8];
};
_Static_assert(sizeof(struct isp_wire_rf_list) == 16, "wire size");

#endif /* ISP_WIRE_RF_H */
