/* SPDX-License-Identifier: MIT */
/*
 * flash_timing.h - the timing and energy engine of the modeled drive.
 *
 * Resources: every plane, die, channel, controller core, the controller DRAM
 * and the host link (one per direction). Shared resources (channels, cores,
 * DRAM, link) keep a calendar of reserved intervals and an operation takes
 * the earliest gap at or after its ready time, so an operation issued later
 * may still run earlier if the resource is idle then (a short data-out fits
 * between two long ones reserved by another command). A plane keeps three
 * times: when it accepts the next command, when its array (sensing latch) is
 * free, and when its output (cache) latch is free. Data transfers (data-out,
 * data-in, input broadcast) hold the channel; command/address cycles hold
 * only the plane and count as channel busy time (the controller interleaves
 * them between bursts). A die only accounts its I/O time (its transfers
 * already hold its channel). docs/timing-model.md gives every formula and
 * assumption.
 *
 * Time is in picoseconds of device time, counted from the first command the
 * engine saw. A command is submitted at a device time in ns (QEMU's virtual
 * clock, or CLOCK_MONOTONIC in-process); its operations take "ready" times in
 * ps (0 = the command's start) and return their completion in ps. A struct
 * ft_cmd accumulates the command's end, energy (pJ), busy time per resource
 * class and counters, and optionally records a trace for the Perfetto export.
 *
 * Errors never abort: an invalid argument (plane out of range, oversize
 * transfer, bad cell mode) sets cmd->err to -EINVAL (the first error sticks),
 * reserves nothing and returns the ready time, so a chain of calls needs one
 * check at the end (ft_cmd_end() returns it).
 *
 * Thread-safe: one mutex around reservations. A struct ft_cmd belongs to one
 * thread at a time. The engine holds no per-block state, so a paper-scale
 * geometry costs a few hundred KiB, and it needs no storage (analytic mode).
 */
#ifndef FLASH_TIMING_H
#define FLASH_TIMING_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "flash_preset.h"
#include "isp_wire.h"

struct ft;
struct ft_trace;

#define FT_PS_PER_NS 1000u

/* Core selectors for ft_core(). */
#define FT_CORE_ISP (-1)	/* least-loaded of the isp_cores ISP cores */
#define FT_CORE_FTL (-2)	/* least-loaded firmware core (the others) */

enum ft_dir { FT_H2C = 0, FT_C2H = 1 };

/* Limits of one operation's arguments (larger: -EINVAL). */
#define FT_MAX_BYTES (UINT64_C(1) << 40)
#define FT_MAX_CYCLES (UINT64_C(1) << 44)
#define FT_MAX_COUNT (UINT32_C(1) << 20)

/* ft_page_op.flags */
#define FT_OP_CACHE 1u	/* cache read sequential mode (REIS 4.3.4 PL) */
#define FT_OP_XOR 2u	/* XOR the sensed page with the cache latch (REIS 4.3.2) */
/*
 * Multi-plane rule (opt-in): FT_OP_MP reads share their die's array: one
 * senses after the die's previous FT_OP_MP sensing has ended, unless they
 * are issued together as one multi-plane read (ft_page_read_mp(): planes of
 * one die, the same page offset @page and cell mode). Reads without the
 * flag keep independent planes (timing-model.md A18).
 */
#define FT_OP_MP 4u
/*
 * Selective read-out: each of the n_dout bursts (tRR + tRC * dout_bytes)
 * takes its own gap on the channel, in order, so other dies' bursts can go
 * in between (the controller changes the column per row); without it the
 * bursts hold the channel as one interval. The plane waits for the last.
 */
#define FT_OP_BURSTS 8u

/*
 * One page read on one plane and everything done to that page before the
 * plane moves on: C/A cycles (RecFlash Eq. 1), tR by cell mode, optional
 * in-die XOR, fail-bit counts of @n_fbc mini-pages, @n_cmp threshold
 * compares (REIS 4.3.3), then @n_dout data-out bursts of @dout_bytes each,
 * every burst tRR + tRC * bytes (RecFlash Eq. 2, tRC = 1 / channel rate).
 * A TTL read-out of E entries of B bytes is n_dout = 1, dout_bytes = E * B
 * (or n_dout = E, dout_bytes = B for one RD_TTL per entry).
 */
struct ft_page_op {
	uint32_t mode;		/* enum isp_cell_mode: selects tR and read energy */
	uint32_t flags;		/* FT_OP_* */
	uint32_t n_fbc;		/* mini-pages bit-counted (GEN_DIST) */
	uint32_t n_cmp;		/* threshold compares (distance filtering) */
	uint32_t n_dout;	/* data-out bursts; 0 = nothing leaves the die */
	uint32_t dout_bytes;	/* bytes per burst */
	uint32_t page;		/* FT_OP_MP: page offset within the block */
};

struct ft_cmd {
	uint64_t start;		/* ps, device time of submission */
	uint64_t end;		/* ps, latest completion so far */
	uint64_t energy_pj;
	uint64_t busy_ps[ISP_RES_NCLASSES];	/* summed over resources */
	uint64_t page_reads[5];		/* by enum isp_cell_mode */
	uint64_t page_programs[5];
	uint64_t erases;
	uint64_t channel_bytes;
	uint64_t link_bytes[2];		/* by enum ft_dir */
	uint64_t dram_bytes;
	uint64_t core_cycles;
	int err;		/* first error, -errno; 0 if none */
	struct ft_trace *trace;	/* NULL: no tracing (costs nothing) */
	uint32_t slot_;		/* private: the engine's active-command slot */
};

struct ft_stats {
	uint64_t busy_ps[ISP_RES_NCLASSES];
	uint64_t nres[ISP_RES_NCLASSES];
	uint64_t page_reads[5];
	uint64_t page_programs[5];
	uint64_t erases;
	uint64_t channel_bytes;
	uint64_t link_bytes[2];
	uint64_t dram_bytes;
	uint64_t core_cycles;
	uint64_t energy_pj;
	uint64_t cmds;		/* commands ended */
	uint64_t model_ps;	/* sum of their latencies */
};

/**
 * ft_open() - a timing engine for @p (copied).
 * Return: 0, -EINVAL when fp_validate() rejects @p, -ENOMEM.
 */
int ft_open(const struct fp_params *p, struct ft **out);

/** ft_close() - free @ft (NULL is a no-op). */
void ft_close(struct ft *ft);

/** ft_params() - the engine's parameters. */
const struct fp_params *ft_params(const struct ft *ft);

/**
 * ft_cmd_begin() - start command @cmd submitted at device time @submit_ns.
 * @trace: record this command's activity there (ft_trace_new()), or NULL.
 *
 * Pair every begin with ft_cmd_end(): until then the engine keeps the
 * history the command might still use (it holds no pointer to @cmd).
 */
void ft_cmd_begin(struct ft *ft, struct ft_cmd *cmd, uint64_t submit_ns,
		  struct ft_trace *trace);

/**
 * ft_cmd_end() - finish @cmd: its latency goes into the statistics.
 * @latency_ns: if not NULL, set to ceil((end - start) / 1000).
 * Return: cmd->err.
 */
int ft_cmd_end(struct ft *ft, struct ft_cmd *cmd, uint64_t *latency_ns);

/**
 * ft_cmd_end_quiet() - ft_cmd_end() for work that is not a vendor command:
 * the FTL's ordinary I/O and its background programs and GC. Its flash,
 * channel and energy counters stay in the statistics (the drive did the
 * work); it is not counted in cmds / model_ps, so the vendor commands'
 * latency sums mean what they did before the FTL (its own counters are
 * the FTL's, ftl.h).
 * Return: cmd->err.
 */
int ft_cmd_end_quiet(struct ft *ft, struct ft_cmd *cmd, uint64_t *latency_ns);

/* ---- operations: each returns its completion time (ps) ---- */

/** ft_ctrl() - the per-command controller overhead (ctrl_cmd) on a firmware core. */
uint64_t ft_ctrl(struct ft *ft, struct ft_cmd *cmd, uint64_t ready);

/** ft_page_read() - @op on flat plane index @plane (see struct ft_page_op). */
uint64_t ft_page_read(struct ft *ft, struct ft_cmd *cmd, uint32_t plane,
		      const struct ft_page_op *op, uint64_t ready);

/**
 * ft_page_read_mp() - one multi-plane read: @ops[i] on flat plane @planes[i],
 * @n (1..planes_per_die) distinct planes of one die, every op FT_OP_MP with
 * the same page offset and cell mode. Each plane's C/A is issued as soon as
 * it accepts a command; the sensing of all starts together once every plane
 * and the die's array are free; then each plane's compute and data-out
 * follow as in ft_page_read() (data-outs queue on the channel).
 * @ends: if not NULL, each read's completion.
 * Return: the last completion (ps); on invalid arguments cmd->err is set
 * and nothing is reserved.
 */
uint64_t ft_page_read_mp(struct ft *ft, struct ft_cmd *cmd, unsigned n,
			 const uint32_t *planes, const struct ft_page_op *ops,
			 uint64_t ready, uint64_t *ends);

/**
 * ft_page_read_row() - a row of page reads under one lock: @ops[i] on flat
 * plane @planes[i], each followed, when @dram_bytes is not NULL and
 * @dram_bytes[i] is not 0, by that many bytes written to controller DRAM
 * from the read's end, in order from @ready. Exactly what ft_page_read()
 * then ft_dram() page after page give (reservations, times, energy,
 * counters, trace), without a lock and a call per page.
 * @ends: if not NULL, each page's completion (its DRAM write's end).
 * Return: the last completion (ps); on an invalid page cmd->err is set and
 * nothing is reserved.
 */
uint64_t ft_page_read_row(struct ft *ft, struct ft_cmd *cmd, uint32_t n, const uint32_t *planes,
			  const struct ft_page_op *ops, const uint64_t *dram_bytes, uint64_t ready,
			  uint64_t *ends);

/** ft_page_program() - C/A, data-in of @bytes, tPROG of @mode. */
uint64_t ft_page_program(struct ft *ft, struct ft_cmd *cmd, uint32_t plane,
			 uint32_t mode, uint32_t bytes, uint64_t ready);

/**
 * ft_budget_take() - the drive's budget of array operations at once
 * (ftl_prog_max, a peak-power limit; docs/ftl.md): an operation of @d ps
 * that could start at @t takes d / ftl_prog_max of the budget's calendar
 * at its earliest gap at or after @t, so programs and erases draw at most
 * ftl_prog_max operations' power on average over any window. Returns the
 * gap's start: when the operation may start. No budget: @t.
 */
uint64_t ft_budget_take(struct ft *ft, uint64_t t, uint64_t d);

/** ft_plane_free() - when @plane has served everything booked on it so far
 * (ps; planes serve in issue order), 0 for a bad @plane. */
uint64_t ft_plane_free(struct ft *ft, uint32_t plane);

/** ft_block_erase() - C/A, tBERS. */
uint64_t ft_block_erase(struct ft *ft, struct ft_cmd *cmd, uint32_t plane,
			uint64_t ready);

/**
 * ft_ibc() - input broadcasting into the cache latch of every plane of flat
 * die @die (REIS Table 2, 4.3.2): per plane, in turn, a C/A and a data-in of
 * one @copy-byte query over the channel, then the die writes copies until
 * the latch holds @fill bytes (tRC per byte, off the channel; A24). With
 * @mpibc all planes of the die take one transfer and one fill together
 * (REIS 4.3.4 MPIBC), dividing the time by planes_per_die.
 */
uint64_t ft_ibc(struct ft *ft, struct ft_cmd *cmd, uint32_t die, uint32_t copy,
		uint32_t fill, int mpibc, uint64_t ready);

/** ft_ibc_all() - ft_ibc() on every die; returns the last completion. */
uint64_t ft_ibc_all(struct ft *ft, struct ft_cmd *cmd, uint32_t copy, uint32_t fill,
		    int mpibc, uint64_t ready);

#define FT_IBC_MPIBC (1u << 0)	/* REIS 4.3.4 MPIBC: planes free together share one */
#define FT_IBC_DIE (1u << 1)	/* the die's planes hold until its whole IBC ends */

/**
 * ft_ibc_dies() - ft_ibc_all() with @flags: FT_IBC_MPIBC as @mpibc there;
 * FT_IBC_DIE holds every plane of a die until the die's last copy is
 * latched, so no page read of the query starts on a die before its IBC is
 * complete (REIS Fig. 6: IBC, steps 1-2, then the page reads, step 3;
 * 4.3.4: MPIBC "reduces the IBC latency by a factor equivalent to the
 * number of planes per die"). Returns the last completion.
 */
uint64_t ft_ibc_dies(struct ft *ft, struct ft_cmd *cmd, uint32_t copy, uint32_t fill,
		     uint32_t flags, uint64_t ready);

/**
 * ft_core() - @cycles of work on controller core @core (0 .. cores-1) or on
 * the least-loaded core chosen by FT_CORE_ISP / FT_CORE_FTL.
 * @label: name in the trace; a string that outlives the trace (a literal).
 */
uint64_t ft_core(struct ft *ft, struct ft_cmd *cmd, int core, uint64_t cycles,
		 const char *label, uint64_t ready);

/** ft_dram() - @bytes of controller-DRAM traffic at dram_mbps. */
uint64_t ft_dram(struct ft *ft, struct ft_cmd *cmd, uint64_t bytes, uint64_t ready);

/** ft_dma() - host-link DMA of @bytes in direction @dir at link_mbps. */
uint64_t ft_dma(struct ft *ft, struct ft_cmd *cmd, enum ft_dir dir, uint64_t bytes,
		uint64_t ready);

/* ---- analytic mode ---- */

/*
 * A batch of identical page operations: logical pages @first .. @first +
 * @count - 1 of a region, each on the plane fg_pfpa_plane() gives, each
 * followed by @dram_bytes written to controller DRAM and @core_cycles on
 * @core. The result (times, energy, busy, counters, trace) is exactly what
 * issuing the same pages one by one with ft_page_read(), ft_dram() and
 * ft_core() in logical-page order gives, at a fraction of the cost: no data,
 * one lock acquisition, no per-page call overhead. FT_OP_MP pages are
 * single-plane reads under the multi-plane rule (no multi-plane groups).
 */
struct ft_batch {
	uint64_t first;
	uint64_t count;		/* <= FT_MAX_BATCH */
	struct ft_page_op op;
	uint64_t dram_bytes;	/* per page, after its data-out; 0: none */
	uint64_t core_cycles;	/* per page, after the DRAM write; 0: none */
	int core;		/* as ft_core() */
	const char *core_label;
};

#define FT_MAX_BATCH (UINT64_C(1) << 32)

/**
 * ft_batch_read() - run @b; returns the last completion (ps). Host cost is
 * O(@count) (about 130-200 ns per page): callers bound @count by what they
 * really hold (a region's pages) before passing guest-chosen sizes.
 */
uint64_t ft_batch_read(struct ft *ft, struct ft_cmd *cmd, const struct ft_batch *b,
		       uint64_t ready);

/* ---- pure cost functions (no engine needed) ---- */

/** ft_t_ca() - RecFlash Eq. 1: (tALH + tALS - tDS) + addr_cycles * tWC + tDS. */
uint64_t ft_t_ca(const struct fp_params *p);

/** ft_t_xfer() - ceil(@bytes / (@mbps MB/s)) in ps. */
uint64_t ft_t_xfer(uint64_t bytes, uint32_t mbps);

/** ft_t_dout() - RecFlash Eq. 2: tRR + tRC * @bytes (tRC = 1 / channel rate). */
uint64_t ft_t_dout(const struct fp_params *p, uint64_t bytes);

/** ft_t_cycles() - ceil(@cycles / core_mhz) in ps. */
uint64_t ft_t_cycles(const struct fp_params *p, uint64_t cycles);

/* Cycle counts of the controller kernels (preset cycles per element). */
uint64_t ft_cycles_select(const struct fp_params *p, uint64_t n);	/* quickselect */
uint64_t ft_cycles_sort(const struct fp_params *p, uint64_t n);	/* n log2 n */
uint64_t ft_cycles_rerank(const struct fp_params *p, uint64_t n, uint32_t dim);
uint64_t ft_cycles_sls(const struct fp_params *p, uint64_t elems);

/* ---- statistics ---- */

/** ft_get_stats() - cumulative counters; @reset clears them afterwards. */
void ft_get_stats(struct ft *ft, struct ft_stats *out, int reset);

/**
 * ft_stats_to_wire() - fill the flash/time/energy fields of @w from @s
 * (page reads/programs, erases, channel and link bytes, busy_ns, nres,
 * model_ns, energy_pj); the device fills the rest.
 */
void ft_stats_to_wire(const struct ft_stats *s, struct isp_wire_stats *w);

/* ---- Perfetto / Chrome trace export ---- */

/**
 * ft_trace_new() - an empty trace keeping at most @max_events events (more
 * are counted as dropped). Return: 0 or -ENOMEM / -EINVAL.
 */
int ft_trace_new(size_t max_events, struct ft_trace **out);
/* Host bytes of a trace of at most @max_events events, at its largest. */
size_t ft_trace_bytes(size_t max_events);

/** ft_trace_free() - NULL is a no-op. */
void ft_trace_free(struct ft_trace *tr);

/** ft_trace_count() / ft_trace_dropped() - events kept / dropped. */
size_t ft_trace_count(const struct ft_trace *tr);
uint64_t ft_trace_dropped(const struct ft_trace *tr);

/** ft_trace_reset() - forget all events (keeps the memory). */
void ft_trace_reset(struct ft_trace *tr);

/*
 * Writers: Chrome trace-event JSON ({"traceEvents": [...]}) with one process
 * per resource class (channels, dies, planes, cores, dram, link), one thread
 * per resource ("channel 3", "die 3.1", "plane 3.1.0", "core 0", ...) and a
 * complete event ("ph":"X", ts/dur in us, relative to the command start) per
 * operation stage. Open in https://ui.perfetto.dev or chrome://tracing.
 */
typedef int (*ft_write_fn)(void *ctx, const char *buf, size_t len);

/** ft_trace_write() - emit through @fn. Return: 0 or the first error of @fn. */
int ft_trace_write(const struct ft *ft, const struct ft_trace *tr, ft_write_fn fn,
		   void *ctx);

/** ft_trace_write_file() - to a stdio stream. Return: 0 or -EIO. */
int ft_trace_write_file(const struct ft *ft, const struct ft_trace *tr, FILE *f);

/** ft_trace_write_fd() - to a descriptor. Return: 0 or -errno. */
int ft_trace_write_fd(const struct ft *ft, const struct ft_trace *tr, int fd);

/**
 * ft_trace_write_mem() - into @buf (NUL-terminated).
 * @len: set to the JSON length (without NUL), also when @cap is too small.
 * Return: 0 or -ENOSPC.
 */
int ft_trace_write_mem(const struct ft *ft, const struct ft_trace *tr, char *buf,
		       size_t cap, size_t *len);

#endif /* FLASH_TIMING_H */
