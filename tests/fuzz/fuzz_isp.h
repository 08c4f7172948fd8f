/* SPDX-License-Identifier: MIT */
/*
 * fuzz_isp.h - what the libFuzzer harnesses (fuzz_isp_seq.c, fuzz_isp_mt.c)
 * and the seed writer (fuzz_seeds.c) share.
 *
 * The fuzz input is decoded as a *sequence* of vendor commands. Each step
 * reads one selector byte: most selectors build a valid-ish command of one
 * of the 28 opcodes from the harness' view of the drive (the databases,
 * tables and tickets that exist, the next chunk of a section being
 * deployed), with shapes (dims, n, k, nq, bags, chunk sizes) drawn from the
 * input; one selector sends a raw SQE + data taken straight from the input,
 * two run a whole deploy. A mutation byte then corrupts a field, the
 * direction, NDT/NDM or a data byte, or has the command stopped from a
 * second thread (fz_exec_stopped()). Every command goes through
 * isp_dev_check() then isp_dev_exec() exactly as hw/nvme/isp.c does, and the
 * invariants of fz_exec() are checked after each one; a broken invariant
 * aborts (libFuzzer reports it as a crash with the input that caused it).
 *
 * Selectors 32-44 do the same for the standard interface (Computational
 * Programs and Subsystem Local Memory, docs/command-set.md §9): Load
 * Program, Program Activation, range sets, Memory Read/Write/Fill/Copy,
 * Execute Program of each program with an input built from the drive's
 * databases and tables, Identify, and whole activate / range set / write /
 * execute / read / delete flows whose output is compared with the vendor
 * command's (fz_exec_cs() holds their invariants).
 *
 * Each input starts from a fresh in-memory device, or a reopened copy of a
 * fixture image (fz_setup()), on a small geometry with a
 * database of each kind and a table of each mode already deployed, so a
 * crash reproduces from its input alone. At the end every object is deleted
 * and the drive must be back to its empty state (no flash or DRAM leaked).
 */
#ifndef FUZZ_ISP_H
#define FUZZ_ISP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isp_dev.h"
#include "isp_wire.h"

#define FZ_MAX_XFER (64u * 1024u)
#define FZ_MAX_OBJS 12
#define FZ_MAX_TICKETS 16
#define FZ_MAX_STEPS 256	/* commands per input */

#define FZ_FAIL(...)                                                       \
	do {                                                               \
		fprintf(stderr, "fuzz invariant: " __VA_ARGS__);           \
		fprintf(stderr, "\n");                                     \
		abort();                                                   \
	} while (0)

/* Memory the harness cannot run without (zeroed when @zero). */
static inline void *fz_alloc(size_t n, int zero)
{
	void *p = zero ? calloc(1, n ? n : 1) : malloc(n ? n : 1);

	if (!p)
		FZ_FAIL("out of memory (%zu bytes)", n);
	return p;
}

/* The input, read front to back; past its end every read is 0. */
struct fz_src {
	const uint8_t *p;
	size_t n, off;
	uint64_t rng;		/* non-zero: a PRNG instead of bytes (seeds, fixtures) */
};

static inline uint8_t fz_u8(struct fz_src *s)
{
	if (s->rng) {
		s->rng ^= s->rng << 13;
		s->rng ^= s->rng >> 7;
		s->rng ^= s->rng << 17;
		return (uint8_t)(s->rng >> 24);
	}
	return s->off < s->n ? s->p[s->off++] : 0;
}

static inline uint32_t fz_u32(struct fz_src *s)
{
	uint32_t v = fz_u8(s);

	v |= (uint32_t)fz_u8(s) << 8;
	v |= (uint32_t)fz_u8(s) << 16;
	return v | (uint32_t)fz_u8(s) << 24;
}

static inline void fz_bytes(struct fz_src *s, uint8_t *p, size_t len)
{
	size_t i;

	if (!s->rng && s->off + len <= s->n) {
		memcpy(p, s->p + s->off, len);
		s->off += len;
		return;
	}
	for (i = 0; i < len; i++)
		p[i] = fz_u8(s);
}

static inline int fz_done(const struct fz_src *s)
{
	return !s->rng && s->off >= s->n;
}

/* A value in [lo, hi], from one byte (small ranges) or four. */
static inline uint32_t fz_range(struct fz_src *s, uint32_t lo, uint32_t hi)
{
	uint32_t span = hi - lo + 1;

	if (span == 0)
		return fz_u32(s);
	return lo + (span <= 256 ? fz_u8(s) % span : fz_u32(s) % span);
}

/* Deterministic data for a section: byte i of stream @seed. */
static inline void fz_fill(uint8_t *p, size_t len, uint64_t seed, uint64_t off)
{
	size_t i;

	for (i = 0; i < len; i++) {
		uint64_t x = (seed + off + i) * 0x9e3779b97f4a7c15ull;

		p[i] = (uint8_t)(x >> 56);
	}
}

/* One database or table as the harness believes it is. */
struct fz_obj {
	uint32_t id;		/* 0: free slot */
	int ready;		/* committed */
	int rf;			/* a RecFlash table, else a REIS database */
	union {
		struct isp_wire_reis_create db;
		struct isp_wire_rf_create tbl;
	} c;
	uint64_t size[ISP_REIS_NSECTIONS];	/* section sizes */
	uint64_t sent[ISP_REIS_NSECTIONS];	/* bytes written so far */
	uint32_t *csize;	/* IVF cluster sizes (nlist), for CLUSTERS */
	uint8_t *docs;		/* DOCS stream (docs_bytes) */
	uint64_t seed;
};

struct fz_state {
	struct isp_dev *dev;
	pthread_mutex_t lock;	/* the object and ticket tables (mt variant) */
	struct fz_obj obj[FZ_MAX_OBJS];
	uint32_t ticket[FZ_MAX_TICKETS];
	uint32_t next_ticket;
	uint64_t clock, *clk;	/* device time; clk may point at a shared one */
	uint64_t free0, dram0;	/* empty drive: identify's free_bytes, dram_used */
	uint64_t cmds, ok;
	int verbose;		/* FZ_VERBOSE set: every command on stderr */
	void (*record)(void *arg, const struct isp_cmd *c, const void *data, size_t len);
	void *record_arg;
	/*
	 * Another transport (the guest battery: NVMe passthrough); NULL: the
	 * model in-process. It returns the NVMe status with @cpl filled, or
	 * fails the run itself when the command did not complete.
	 */
	uint16_t (*xport)(void *arg, const struct isp_cmd *c, void *buf, size_t len,
			  struct isp_cpl *cpl);
	void *xport_arg;
	uint32_t max_xfer;	/* with xport: the drive's (identify) */
	/*
	 * Non-zero: every database, table and id-taking CDW12 the generator
	 * makes lies in [id_base, id_base + 65536), and the end deletes only
	 * those; objects others own on the drive stay untouched.
	 */
	uint32_t id_base;
	/*
	 * Non-zero: the next command runs with isp_dev_exec_cancel() and a
	 * second thread sets its stop flag stop_us - 1 microseconds after it
	 * starts (in-process only; a transport cannot stop one).
	 */
	uint32_t stop_us;
	uint64_t stopped;	/* commands that answered Command Abort Requested */
	int shared;		/* other threads use the same drive and tickets */
	struct fio *img;	/* the drive's image (fz_setup()), or NULL */
	/*
	 * The standard interface (docs/command-set.md §9): the memory and
	 * compute namespaces and the range sets the drive holds, shared by
	 * every thread of one drive; NULL with a transport or cs_off.
	 */
	struct fz_cs *cs;
	/* Non-zero: three of four vendor selectors become standard-interface
	 * ones (fuzz_isp_cs.c), so the input is mostly CP / SLM commands. */
	int cs_bias;
};

/* Selector of a literal step: opcode, nsid, cdw10-15, then NDT*4 data bytes. */
#define FZ_SEL_LITERAL 31
/* A literal standard-interface step: set, opcode, nsid, cdw2-4, cdw10-15,
 * then the bytes isp_dev_cmd_len() says (fz_cs_literal()). */
#define FZ_SEL_LITERAL_CS 44
#define FZ_NSELECTORS 45

struct isp_dev *fz_open(int config);
int fz_setup(struct fz_state *st, int config);
/* The fixtures of fz_setup() on an already set-up @st (xport, id_base);
 * @reis: the drive has the ESP-SLC partition REIS needs. */
void fz_fixtures(struct fz_state *st, int config, int reis);
/* Release the tickets, delete the objects and check nothing leaked. */
void fz_cleanup(struct fz_state *st);
void fz_step(struct fz_state *st, struct fz_src *s);
/* RESULT_RELEASE of tickets @lo..@hi. */
void fz_release(struct fz_state *st, uint32_t lo, uint32_t hi);
void fz_finish(struct fz_state *st);
/* One input of the single-threaded harnesses: byte 0 the drive, then the
 * steps; @cs_bias: the CS harness' mix on a fresh drive (fuzz_isp_cs.c). */
void fz_run_seq(const uint8_t *data, size_t size, int cs_bias);
uint16_t fz_exec(struct fz_state *st, struct isp_cmd *c, void *data, size_t len,
		 struct isp_cpl *cpl);

#endif /* FUZZ_ISP_H */
