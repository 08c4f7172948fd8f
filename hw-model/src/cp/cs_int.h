/* SPDX-License-Identifier: MIT */
/*
 * cs_int.h - the standard computational-storage interface inside the
 * model (docs/command-set.md section 9): the memory namespace (Subsystem
 * Local Memory, CSI 03h) in controller DRAM, the compute namespace
 * (Computational Programs, CSI 04h) with its device-defined programs, and
 * the memory range sets that bind them. Not installed.
 *
 * Locking: one mutex (cs->lock) guards the range sets, the program table,
 * the memory's chunk table and the counters; it is held for lookups,
 * counters and copies of at most CS_COPY_STEP bytes, never across a
 * program's engine work. A program copies its input out of the memory
 * first and its output in at the end, so a Memory Write racing a program on
 * the same bytes gives one or the other, never torn engine input. Lock
 * order: isp_dev catalog -> cs->lock -> store -> timing.
 */
#ifndef CS_INT_H
#define CS_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "isp_internal.h"

/* Our limits, reported in the Identify structures (docs/command-set.md §9.4). */
#define CS_MAX_MRS 64u			/* memory range sets */
#define CS_MAX_MR 16u			/* ranges in one set */
#define CS_GRAN_LOG2 2u			/* 4-byte granularity of every offset/length */
#define CS_MAX_PARAM 4096u		/* Execute Program parameter data (DLEN) */
#define CS_MAX_SRC 128u			/* Memory Copy source ranges */
#define CS_MAX_COPY (8u << 20)		/* Memory Copy bytes per command */
#define CS_CHUNK_LOG2 16u		/* memory is backed in 64 KiB chunks */
#define CS_CHUNK ((size_t)1 << CS_CHUNK_LOG2)
#define CS_COPY_STEP ((size_t)1 << 20)	/* lock hold per memory copy step */

/* Command classes of the statistics (isp_wire_stats.cs_cmds[]). */
enum cs_cls {
	CS_CLS_ADMIN = 0,	/* Load Program, Program Activation, Range Sets */
	CS_CLS_EXEC = 1,	/* Execute Program */
	CS_CLS_MEM = 2,		/* Memory Read / Write / Fill */
	CS_CLS_COPY = 3,	/* Memory Copy */
	CS_CLS_N = 4,
};

struct cs_mrs {
	uint16_t rsid;
	uint8_t nr;
	uint32_t users;		/* Execute Program commands using it */
	struct isp_wire_cs_mrd r[CS_MAX_MR];
};

struct cs_state {
	struct isp_dev *dev;
	const struct fp_params *p;
	struct ft *ft;
	struct fs *fs;
	uint32_t slm_nsid, cp_nsid, nvm_nsid;
	uint64_t slm_bytes;		/* memory namespace capacity */
	uint64_t dram_reserved;		/* of the controller DRAM budget */

	pthread_mutex_t lock;
	uint8_t **chunk;		/* NULL: never written, reads as zero */
	uint64_t nchunks, chunks_used;
	struct cs_mrs *mrs[CS_MAX_MRS];
	uint16_t next_rsid;
	uint8_t active[ISP_CS_NPROGS];
	uint32_t prog_users[ISP_CS_NPROGS];
	uint64_t execs[ISP_CS_NPROGS];
	uint32_t nactive, max_active;
	uint64_t cmds[CS_CLS_N], errors[CS_CLS_N];
	uint64_t bytes_read, bytes_written, bytes_copied;
};

/* cs_dev.c: the device's entry points (dev/isp_dev.c calls them). */
int cs_open(struct isp_dev *dev, const struct isp_dev_config *cfg, struct cs_state **out,
	    char *err, size_t errlen);
void cs_close(struct cs_state *cs);
uint16_t cs_check(struct cs_state *cs, const struct isp_cmd *cmd, uint64_t *len,
		  struct isp_cpl *cpl);
uint16_t cs_exec(struct isp_ctx *ctx, const struct isp_cmd *cmd, void *data, size_t len,
		 struct isp_cpl *cpl);
unsigned cs_cls_of(const struct cs_state *cs, const struct isp_cmd *cmd);
void cs_stats(struct cs_state *cs, struct isp_wire_stats *st, int reset);
const char *cs_status_name(uint16_t status);
int cs_programs_log(struct cs_state *cs, void *buf, size_t len, uint64_t off);
struct cs_state *cs_of(struct isp_dev *dev);
void cs_count(struct cs_state *cs, unsigned cls, uint16_t status);
/* Bytes of the 64-byte command: CDW n at 4n (Error Information log). */
#define CS_SQE_CDW(n) (4u * (n))

/* cs_mem.c: the memory namespace's bytes. */
int cs_mem_init(struct cs_state *cs);
void cs_mem_free(struct cs_state *cs);
/* [@off, @off + @len) must lie inside the namespace (callers check). */
void cs_mem_read(struct cs_state *cs, uint64_t off, void *buf, size_t len);
int cs_mem_write(struct cs_state *cs, uint64_t off, const void *buf, size_t len);
int cs_mem_fill(struct cs_state *cs, uint64_t off, uint64_t len, uint32_t pattern);
int cs_mem_move(struct cs_state *cs, uint64_t dst, uint64_t src, uint64_t len);
uint16_t cs_cmd_mem_read(struct isp_ctx *ctx, const struct isp_cmd *cmd, void *data,
			 size_t len, struct isp_cpl *cpl);
uint16_t cs_cmd_mem_write(struct isp_ctx *ctx, const struct isp_cmd *cmd, void *data,
			  size_t len, struct isp_cpl *cpl);
uint16_t cs_cmd_mem_fill(struct isp_ctx *ctx, const struct isp_cmd *cmd, struct isp_cpl *cpl);
/* Field checks of Read/Write/Fill; *@len the data length. */
uint16_t cs_check_mem_rw(struct cs_state *cs, const struct isp_cmd *cmd, uint64_t *len,
			 struct isp_cpl *cpl);

/* cs_copy.c: Memory Copy. */
uint16_t cs_check_copy(struct cs_state *cs, const struct isp_cmd *cmd, uint64_t *len,
		       struct isp_cpl *cpl);
uint16_t cs_cmd_copy(struct isp_ctx *ctx, const struct isp_cmd *cmd, void *data, size_t len,
		     struct isp_cpl *cpl);
uint16_t cs_copy_lbas(struct cs_state *cs, const struct isp_cmd *cmd, const void *descs,
		      size_t len, uint32_t lba_bytes, struct isp_cs_lba_range *out, unsigned max,
		      unsigned *n, struct isp_cpl *cpl);

/* cs_mrs.c: Memory Range Set Management; range lookups for programs. */
uint16_t cs_check_mrs(struct cs_state *cs, const struct isp_cmd *cmd, uint64_t *len,
		      struct isp_cpl *cpl);
uint16_t cs_cmd_mrs(struct isp_ctx *ctx, const struct isp_cmd *cmd, void *data, size_t len,
		    struct isp_cpl *cpl);
/* Take / drop a reference on set @rsid (under cs->lock); NULL: unknown. */
struct cs_mrs *cs_mrs_get(struct cs_state *cs, uint16_t rsid);
void cs_mrs_put(struct cs_state *cs, struct cs_mrs *m);
void cs_mrs_free_all(struct cs_state *cs);

/* cs_prog.c: Load Program, Program Activation Management, Execute Program. */
uint16_t cs_check_load(struct cs_state *cs, const struct isp_cmd *cmd, uint64_t *len,
		       struct isp_cpl *cpl);
uint16_t cs_cmd_load(struct isp_ctx *ctx, const struct isp_cmd *cmd, struct isp_cpl *cpl);
uint16_t cs_check_act(struct cs_state *cs, const struct isp_cmd *cmd, struct isp_cpl *cpl);
uint16_t cs_cmd_act(struct isp_ctx *ctx, const struct isp_cmd *cmd, struct isp_cpl *cpl);
uint16_t cs_check_exec(struct cs_state *cs, const struct isp_cmd *cmd, uint64_t *len,
		       struct isp_cpl *cpl);
uint16_t cs_cmd_exec(struct isp_ctx *ctx, const struct isp_cmd *cmd, void *data, size_t len,
		     struct isp_cpl *cpl);
void cs_prog_desc(struct cs_state *cs, unsigned pind, struct isp_wire_cs_prog *d);

#endif /* CS_INT_H */
