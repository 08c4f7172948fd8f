/* SPDX-License-Identifier: MIT */
/*
 * reis_engine.h - the REIS engine of the emulated drive (REIS §4, §7.1):
 * what other parts of hw-model, the benchmarks and the tests may use
 * besides the commands themselves.
 *
 *  - struct re_layout: where a database's pieces go in flash (REIS 4.1,
 *    4.2.1) - entries per page (bounded by page and OOB bytes), sub-regions
 *    of its SLC and TLC regions, OOB format, TTL entry sizes. A pure
 *    function of the DB_CREATE header and the page geometry.
 *  - re_hamming_*(): the host-CPU hot loop (XOR + popcount of binary codes
 *    against a query), runtime-dispatched to AVX2 / POPCNT / portable code.
 *  - re_estimate(): analytic mode (docs/timing-model.md "Analytic mode") -
 *    the modeled time of a search on a database of any size, from counts
 *    only, through the same cost path the engine charges for a real search
 *    (reis_cost.c), on its own timing engine.
 *
 * The commands (DB_CREATE ... DOC_READ) are the engine's opcode table in
 * isp_reis.c, reached through isp_dev_exec(); docs/reis-engine.md explains
 * the design, docs/command-set.md section 4 the contract.
 */
#ifndef REIS_ENGINE_H
#define REIS_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "flash_preset.h"
#include "isp_wire.h"

/* ---- sizes the engine moves and stores (docs/reis-engine.md) ---- */

#define RE_DIST_BYTES 2		/* DIST of a TTL entry: Hamming <= 8192 */
#define RE_ADDR_BYTES 4		/* RADR / DADR: REIS 4.1.3's 4-byte address */
#define RE_TAG_BYTES 4		/* metadata tag per entry (REIS 7.1) */
#define RE_CTAG_BYTES 1		/* cluster tag in centroid OOB (REIS 4.2.1) */
#define RE_RIVF_BYTES 15	/* R-IVF entry (REIS 4.2.1: 15 B per cluster) */
#define RE_RDB_BYTES 64		/* R-DB entry: did, two regions, sub-regions */
#define RE_ID_BYTES 8		/* caller id */
#define RE_DLEN_BYTES 4		/* document length in the document page OOB */
#define RE_ADDR_NONE 0xffffffffu	/* RADR / DADR of a database without them */
#define RE_MAX_DBS 256		/* R-DB entries */
#define RE_DEF_FACTOR 10	/* REIS 4.3.2: keep 10 k candidates */

/*
 * struct re_layout - a database's place in flash.
 *
 * SLC region (ESP, REIS 4.1.2): centroid pages [c_first, c_first + cpages),
 * then binary pages [b_first, b_first + bpages). TLC region: INT8 pages,
 * caller-id pages, document pages, META pages (the section's bytes back to
 * back, page_bytes per page, no OOB). Logical pages of a region follow
 * Parallelism-First order (fs_region_ppa()).
 *
 * Binary page: entry j's code at byte j * cb; its OOB entry at OOB byte
 * j * oob_entry: RADR (u32, if INT8), DADR (u32, if documents), tag (u32,
 * if DBF_TAGS), in that order. RADR = INT8 page (relative to i_first) <<
 * rbits | slot; DADR = document page (relative to d_first) << dbits |
 * chunk. Centroid page: code j at j * cb, OOB byte j = cluster tag.
 * Centroids spread over @cspread planes (REIS 4.1.1: Parallelism-First
 * "to evenly distribute embeddings across all planes"): a centroid page
 * holds at most ceil(nlist / cspread) of them, so nlist >= cspread puts
 * centroids on every plane (cspread 0: pages packed full, databases
 * deployed before 2026-12-02).
 * Document page: chunk j at j * chunk_bytes, its length as u32 at OOB byte
 * 4 * j.
 */
struct re_layout {
	uint32_t dim;		/* bits of a binary code */
	uint32_t cb;		/* bytes of a binary code (dim / 8) */
	uint32_t oob_entry;	/* OOB bytes per binary entry */
	uint32_t radr_off;	/* offsets inside the OOB entry; */
	uint32_t dadr_off;	/* UINT32_MAX when absent */
	uint32_t tag_off;
	uint32_t epb;		/* binary entries per SLC page */
	uint32_t cpb;		/* centroids per SLC page (IVF) */
	uint32_t ipb;		/* INT8 codes per TLC page */
	uint32_t rbits;		/* RADR slot bits */
	uint32_t idpp;		/* caller ids per TLC page */
	uint32_t cpp;		/* document chunks per TLC page */
	uint32_t dbits;		/* DADR chunk bits */
	uint32_t chunk_bytes;	/* document chunk: sub-page or page */
	uint32_t ttl_e;		/* TTL-E entry on the channel: DIST EMB RADR DADR */
	uint32_t ttl_c;		/* TTL-C entry on the channel: DIST EMB TAG */
	uint32_t ibc_bytes;	/* query copies broadcast into each cache latch */
	uint32_t page_bytes;
	uint32_t oob_bytes;
	uint32_t cspread;	/* planes the centroid pages spread over; 0: packed */
	uint64_t cpages, bpages;		/* SLC sub-regions */
	uint64_t ipages, idpages, dpages, mpages;	/* TLC sub-regions */
	uint64_t c_first, b_first;
	uint64_t i_first, id_first, d_first, m_first;
	uint64_t slc_pages, tlc_pages;		/* region sizes needed */
};

/**
 * re_layout_init() - lay out database @c on pages of @page_bytes data +
 * @oob_bytes OOB with @subpage_bytes sub-pages.
 * Return: 0; -EINVAL when the header is malformed or cannot be laid out
 * (INT8 code or document chunk larger than a page, an address that does
 * not fit in 32 bits). Does not check flash or DRAM space.
 */
int re_layout_init(struct re_layout *L, const struct isp_wire_reis_create *c,
		   uint32_t page_bytes, uint32_t oob_bytes, uint32_t subpage_bytes);

/**
 * re_layout_init_spread() - re_layout_init() with the centroids spread over
 * @cspread planes (struct re_layout; 0: packed, as re_layout_init()).
 */
int re_layout_init_spread(struct re_layout *L, const struct isp_wire_reis_create *c,
			  uint32_t page_bytes, uint32_t oob_bytes, uint32_t subpage_bytes,
			  uint32_t cspread);

/* ---- host-CPU hot path ---- */

/*
 * Hamming distances of @n codes of @words 64-bit words each, @stride bytes
 * apart starting at @codes, to query @q (@words words); out[i] = distance
 * of code i. Every variant gives the same numbers.
 */
typedef void (*re_hamming_fn)(const uint64_t *q, const uint8_t *codes,
			      uint32_t stride, uint32_t words, uint32_t n,
			      uint16_t *out);

/**
 * re_hamming_get() - a Hamming kernel.
 * @name: "avx512" (AVX-512F + VPOPCNTDQ, 4 codes per step), "avx2",
 *        "popcnt", "portable", or NULL for the best one this CPU runs
 *        (chosen with __builtin_cpu_supports()).
 * @fn: set to the kernel.
 * @chosen: if not NULL, set to the chosen variant's name.
 * Return: 0; -ENOTSUP when this CPU (or build) lacks @name; -ENOENT for an
 * unknown @name.
 */
int re_hamming_get(const char *name, re_hamming_fn *fn, const char **chosen);

/*
 * The scan fused with the distance filter (REIS §4.3.2-4.3.3), what a
 * search runs per page: the Hamming distances of @n codes as
 * re_hamming_fn computes them; the codes whose distance is below @lim are
 * written out, in ascending order, as their index in [0, n) into @idx and
 * their distance into @dist (room for @n each); returns how many. *@below
 * grows by the number of codes whose distance is below @thr (the pass
 * count of a distance filter at @thr; UINT32_MAX counts every code).
 * @n <= 65535. Every variant gives the same output.
 */
typedef uint32_t (*re_scan_fn)(const uint64_t *q, const uint8_t *codes, uint32_t stride,
			       uint32_t words, uint32_t n, uint32_t lim, uint32_t thr,
			       uint16_t *idx, uint16_t *dist, uint32_t *below);

/**
 * re_scan_get() - a fused scan kernel, as re_hamming_get().
 * @name: "avx512" (AVX-512F/BW/VL + VPOPCNTDQ: eight codes a step, the
 *        eight sums compared at once), "avx2", "popcnt", "portable", or
 *        NULL for the best.
 * Return: 0; -ENOTSUP; -ENOENT.
 */
int re_scan_get(const char *name, re_scan_fn *fn, const char **chosen);

/**
 * re_scan_get2() - re_scan_get(), and in *@cached (if not NULL) the same
 * variant for codes already in the host's cache (a block's later queries
 * on a page): without the software prefetch ahead. Same output.
 */
int re_scan_get2(const char *name, re_scan_fn *fn, re_scan_fn *cached, const char **chosen);

/*
 * Score of INT8 code @x against INT8 query @q over @dim dimensions for the
 * rerank (REIS §4.2): the inner product for ISP_REIS_IP, else the squared
 * L2 distance. Every variant gives the same numbers (exact integer sums).
 */
typedef int64_t (*re_int8_fn)(uint32_t metric, const int8_t *q, const int8_t *x,
			      uint32_t dim);

/**
 * re_int8_get() - an INT8 scoring kernel, as re_hamming_get().
 * @name: "avx512" (AVX-512BW), "avx2", "portable", or NULL for the best.
 * Return: 0; -ENOTSUP; -ENOENT.
 */
int re_int8_get(const char *name, re_int8_fn *fn, const char **chosen);

/* ---- analytic mode (docs/timing-model.md "Analytic mode") ---- */

/*
 * struct re_est - a search to estimate, described by counts.
 *
 * Database: @kind, @dim, @n, @db_flags (ISP_REIS_DBF_*: OOB layout, ids),
 * @doc_mode, @nlist and optionally the @cluster_sizes (NULL: n spread
 * evenly, the first n % nlist clusters one larger).
 * Search: @nq queries, @k, @factor (0: 10), @flags (ISP_REIS_SF_*), IVF
 * @nprobe and optionally the probed clusters per query (@probe, nq * nprobe
 * cluster indices; NULL: distinct clusters drawn with @seed).
 * Data: @pass = fraction of the entries compared in the dies that pass the
 * distance filter (used when DF is on and @df_threshold is non-zero; 1.0
 * otherwise); @tag_pass = fraction whose tag matches (with SF_TAG).
 * Passing entries are spread over the pages of a round as evenly as whole
 * numbers allow.
 */
struct re_est {
	uint32_t kind;
	uint32_t dim;
	uint64_t n;
	uint32_t db_flags;
	uint32_t doc_mode;
	uint32_t nlist;
	uint32_t df_threshold;	/* 0: no distance filtering */
	const uint32_t *cluster_sizes;
	uint32_t nq;
	uint32_t k;
	uint32_t factor;
	uint32_t flags;
	uint32_t nprobe;
	uint32_t seed;
	const uint32_t *probe;
	double pass;
	double tag_pass;
	int asic;		/* REIS-ASIC (6.3.1): see re_estimate() */
	int serial;		/* queries enter the flash one at a time: see re_estimate() */
	int no_finish;		/* the search pipeline alone: see re_estimate() */
	/* The rerank's INT8 rows have this many dimensions where the codes
	 * carry more than one bit per dimension (@dim is the code's bits:
	 * ICE's 4-bit codes of 1024-dimension vectors, REIS 6.4); 0: @dim.
	 * At most @dim, a multiple of 64. */
	uint32_t rerank_dim;
};

struct re_est_out {
	uint64_t model_ns;	/* modeled latency of the whole command */
	uint64_t energy_pj;
	uint64_t pages_read;	/* binary + centroid pages */
	uint64_t entries_compared;
	uint64_t entries_passed;
	uint64_t reranked;
	uint64_t channel_bytes;
	uint64_t busy_ns[ISP_RES_NCLASSES];
	uint32_t nprobe;	/* clusters probed per query */
	uint32_t epb;		/* entries per binary page */
};

/**
 * re_estimate() - modeled time of SEARCH / IVF_SEARCH (@e->kind ==
 * ISP_REIS_IVF) for @e on a fresh timing engine with parameters @p
 * (device switches reis_df / reis_pl / reis_mpibc included): command
 * overhead, query DMA, per query IBC, coarse and fine page rounds with
 * their TTL writes and quickselects, rerank reads, sort, id reads, result
 * write - the calls a real search makes, with the same counts, the page
 * rounds through ft_batch_read(). Host cost O(pages read). Each query's
 * finish (rerank reads and kernels, sort, id reads) is issued after the
 * next query's search, as the engine issues it (docs/timing-model.md
 * §6.2). With @e->asic, REIS-ASIC (REIS 6.3.1) on the same calendars: no
 * IBC, every page read plainly and sent whole (data + spare) over its
 * channel to the controller's ECC, selection and rerank kernels free (an
 * ideal ASIC); the TTL writes and the INT8 reads stay as REIS's. With
 * @e->serial, query q + 1's IBC starts when query q's search (coarse and
 * fine phases) has ended, so two queries never search the flash at once;
 * each query's finish still runs under the next queries' searches (REIS
 * 4.3.4's three overlaps and no other: docs/timing-model.md §6.2, the
 * stream rule); without it every query's IBC is ready at the command's
 * start and a plane takes the next query once it is done with this one
 * (the engine's multi-query commands). With @e->no_finish the finish
 * (INT8 reads, rerank, sort, id reads) is left out and the candidates kept
 * as with the rerank: the search pipeline alone (re_estimate_stream()).
 * Return: 0; -EINVAL for a malformed @e (as the commands would refuse it);
 * -ENOMEM.
 */
int re_estimate(const struct fp_params *p, const struct re_est *e,
		struct re_est_out *out);

/**
 * struct re_stream_out - one query of a stream of searches like @e
 * (REIS 4.3.4; docs/timing-model.md §6.2 "Stream rule").
 * @ns: the query's time in the stream: the latency of a @depth-query
 *	command over @depth (rounded up).
 * @one_ns: a one-query command's latency (the query alone).
 * @occ_ns: the busiest resource class's occupancy per query over @depth
 *	queries, averaged over the class's resources (planes, dies, channels,
 *	REIS cores, DRAM, link): a floor under any schedule, for comparison.
 * @bind: ISP_RES_* class of @occ_ns.
 * @pages_read, @reranked: per query (of the @depth-query command).
 * @energy_pj: dynamic energy per query: the @depth-query command's
 *	(flash, channel, in-die, core, DRAM, link operations) over @depth,
 *	rounded down; no static power (re_query_energy_pj()).
 */
struct re_stream_out {
	uint64_t ns;
	uint64_t one_ns;
	uint64_t occ_ns;
	uint32_t bind;
	uint64_t pages_read;
	uint64_t reranked;
	uint64_t search_ns;
	uint64_t cmd_ns;
	uint64_t energy_pj;
};

/**
 * re_estimate_stream() - per-query time of a stream of searches like @e
 * (@e->nq is ignored; @e->asic times REIS-ASIC alike): a @depth-query
 * estimate and a one-query one (@e->probe, if given, holds @depth
 * queries' lists). @o, if not NULL, gets the @depth-query estimate.
 * With @e->serial (the paper's pipeline, docs/timing-model.md §6.2):
 * @ns = max(@search_ns, @occ_ns), @search_ns the search pipeline's period
 * (a @depth-query serial command without the finish, over @depth) and
 * @occ_ns the busiest class of the whole work, the finish included: the
 * rerank and its INT8 reads run under the next searches without stalling
 * them (REIS 4.3.4) unless they bind. Without: @ns = @cmd_ns, the
 * @depth-query command's latency over @depth (queries overlap on planes).
 * @cmd_ns is reported either way.
 * Return: 0; -EINVAL for a malformed @e or @depth 0 or past
 * ISP_REIS_MAX_NQ; -ENOMEM.
 */
int re_estimate_stream(const struct fp_params *p, const struct re_est *e, uint32_t depth,
		       struct re_stream_out *out, struct re_est_out *o);

/**
 * re_query_energy_pj() - a query's energy with the drive's static power
 * (REIS 5, "We model SSD power consumption based on a commodity product";
 * docs/timing-model.md A34): @dyn_pj, the query's dynamic energy
 * (re_stream_out's @energy_pj), plus @static_mw over @ns, the query's time
 * in the stream (1 mW over 1 ns is 1 pJ). Saturates at UINT64_MAX.
 */
uint64_t re_query_energy_pj(uint64_t dyn_pj, uint64_t ns, uint64_t static_mw);

/* ---- comparison points of the paper's evaluation (docs/timing-model.md
 * "Comparison models") ---- */

/**
 * re_asic_ns() - REIS-ASIC (REIS 6.3.1): the same search without ESP, so
 * each of the @pages pages read streams in full (data + spare, for ECC in
 * the controller) over its channel to an ideal ASIC that computes for free.
 * Sensing rounds over all planes overlap the transfers (cache read):
 * ctrl_cmd + tR + max(ceil(pages / channels) x xfer(page + spare),
 * (ceil(pages / planes) - 1) x tR + xfer(page + spare)), tR the SLC read;
 * then the @reads INT8 entries of @bytes each that the rerank needs, as
 * REIS reads them (6.3.1 changes only the scan): ceil(reads / planes) TLC
 * sensing rounds and ceil(reads / channels) x (tRR + xfer(bytes)).
 * Return: modeled ns (0 for no pages).
 */
uint64_t re_asic_ns(const struct fp_params *p, uint64_t pages, uint64_t reads,
		    uint32_t bytes);

/*
 * struct re_cpu - a host baseline of the REIS evaluation (docs/timing-model.md
 * "CPU-Real / No-I/O"): FAISS IndexBinaryIVF serving one query at a time,
 * each on one core (FAISS runs a single query on one thread), at @mhz.
 * @cores, @mem_mbps: the socket pair's cores and DRAM bandwidth, the
 *   ceiling when @streams queries run at once;
 * @streams: queries in flight (1: a RAG pipeline's query after query);
 * @ssd_mbps: the drive's sequential read;
 * @ssd_kiops: its 4 KiB random reads, thousands per second (only the
 *   on-SSD index of re_cpu_io_ns() reads at random);
 * @load_mbps: the rate the index and documents load at (FAISS
 *   deserialisation and the document store; the drive bounds it too);
 * @ccyc_code, @ccyc_centroid: centi-cycles per 128-byte binary code
 *   compared (XOR + POPCNT + top-k heap), in an IVF list streamed from DRAM
 *   and in the cache-resident centroid table;
 * @ccyc_dim: centi-cycles per INT8 dimension reranked (row fetch included);
 * @ccyc_sort: centi-cycles per candidate of the final sort.
 */
struct re_cpu {
	uint32_t cores;
	uint32_t mhz;
	uint32_t mem_mbps;
	uint32_t streams;
	uint32_t ssd_mbps;
	uint32_t ssd_kiops;
	uint32_t load_mbps;
	uint32_t ccyc_code;
	uint32_t ccyc_centroid;
	uint32_t ccyc_dim;
	uint32_t ccyc_sort;
};

/* struct re_cpu_query - one query's work on the host, by counts. */
struct re_cpu_query {
	uint64_t centroids;	/* coarse entries compared */
	uint64_t codes;		/* list entries compared */
	uint32_t code_bytes;	/* bytes of one binary code (dim / 8) */
	uint32_t rerank;	/* INT8 candidates */
	uint32_t dim;		/* their dimensions */
};

/** re_cpu_real() - REIS Table 3's CPU-Real host, AMD EPYC 9554 (C1-C10). */
void re_cpu_real(struct re_cpu *c);

/**
 * re_cpu_fig3() - the CPU system of REIS Fig. 3 that Table 4 compares
 * against: 2 x Intel Xeon Gold 5118, its dataset load rate derived from
 * Table 4 (C7).
 */
void re_cpu_fig3(struct re_cpu *c);

/**
 * re_cpu_query_ns() - one query @q on one core of @c: the coarse scan, the
 * list scan (cycles scaled by @q->code_bytes / 128), the rerank and sort.
 * Return: ns, or 0 for a malformed @c or @q.
 */
uint64_t re_cpu_query_ns(const struct re_cpu *c, const struct re_cpu_query *q);

/**
 * re_cpu_ns() - modeled time of @nq queries @q on the host: loading
 * @load_bytes at the lower of @c->load_mbps and @c->ssd_mbps (0: No-I/O),
 * then per query the larger of re_cpu_query_ns() / @c->streams and the
 * DRAM time of its scanned codes with @c->streams queries at once.
 * Return: ns, or 0 for a malformed @c or @q.
 */
uint64_t re_cpu_ns(const struct re_cpu *c, uint64_t load_bytes, uint32_t nq,
		   const struct re_cpu_query *q);

/**
 * re_cpu_io_ns() - the storage I/O one query @q costs a host whose IVF
 * index stays on the drive (FAISS OnDiskInvertedLists over a cold page
 * cache; docs/timing-model.md C9), the alternative to loading it: the
 * probed lists' codes streamed at @c->ssd_mbps, then the @q->rerank INT8
 * rows and @docs documents as 4 KiB random reads at @c->ssd_kiops, all in
 * flight at once (the fastest such host). Add it to re_cpu_ns() with no
 * load for that host's query time.
 * Return: ns, or 0 for a malformed @c or @q, no @c->ssd_kiops, or
 * @docs > 65536.
 */
uint64_t re_cpu_io_ns(const struct re_cpu *c, const struct re_cpu_query *q, uint32_t docs);

#endif /* REIS_ENGINE_H */
