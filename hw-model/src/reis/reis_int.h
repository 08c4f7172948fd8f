/* SPDX-License-Identifier: MIT */
/*
 * reis_int.h - what the REIS engine's files share; not installed.
 *
 *   isp_reis.c      the struct isp_engine: opcode table, open/close/save,
 *                   identify, statistics
 *   reis_layout.c   Parallelism-First layout, RADR / DADR (REIS §4.1)
 *   reis_deploy.c   DB_CREATE / DB_WRITE / DB_COMMIT (REIS §4.1, §4.4.1)
 *   reis_catalog.c  the R-DB catalog: lookup, DB_DELETE / LIST / INFO,
 *                   persistence
 *   reis_query.c    SEARCH / IVF_SEARCH: one query's steps, the result
 *   reis_scan.c     in-die scan: Hamming kernels, fine search (§4.3.1-2)
 *   reis_filter.c   distance filter and tag filter (§4.3.3, §7.1)
 *   reis_ivf.c      IVF coarse search over R-IVF (§4.2, §4.3.1)
 *   reis_select.c   TTL-C / TTL-E and quickselect (§4.2.1, §4.3.2)
 *   reis_rerank.c   INT8 rerank (§4.3.2)
 *   reis_docs.c     caller ids, documents via DADR, DOC_READ, META_READ
 *   reis_cost.c     the cost path shared by searches and re_estimate()
 *
 * Locking (docs/reis-engine.md): re_eng.lock guards the database table and
 * every database's state, reference count, writer bits and counters. It is
 * never held across flash reads/programs, timing calls, DRAM reservations
 * or isp_dev_commit(). A database's immutable part (header, layout,
 * regions, R-IVF, calibration) is read without the lock by whoever holds a
 * reference (searches) or the section's writer bit (deploys).
 */
#ifndef REIS_INT_H
#define REIS_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "flash_geom.h"
#include "flash_store.h"
#include "flash_timing.h"
#include "isp_internal.h"
#include "reis_engine.h"

/* Region owner tag: "REIS" << 32 | did. */
#define RE_OWNER_TAG 0x52454953ull
#define RE_OWNER(did) (RE_OWNER_TAG << 32 | (uint64_t)(did))

enum re_state {
	RE_CREATING = 1,	/* DB_CREATE reserving space; invisible to others */
	RE_DEPLOYING,		/* receiving sections */
	RE_COMMITTING,		/* DB_COMMIT's metadata commit in progress */
	RE_READY,		/* committed, searchable */
	RE_DELETING,		/* DB_DELETE freeing it */
};

/* Streaming parser of the DOCS section (n records {u32 len, bytes}). */
struct re_docs_parse {
	uint64_t rec;		/* records completed */
	uint64_t pos;		/* section bytes consumed */
	uint32_t hdr_have;	/* bytes of the current length field seen */
	uint8_t hdr[4];
	uint32_t len;		/* current record's length */
	uint32_t have;		/* its bytes seen */
};

struct re_db {
	struct isp_wire_reis_create c;
	struct re_layout L;
	uint32_t state;			/* enum re_state */
	uint32_t refs;			/* searches / DOC_READs in flight */
	uint32_t writing;		/* bit per section being written */
	uint64_t received[ISP_REIS_NSECTIONS];
	struct fs_region slc, tlc;	/* id 0: none */
	uint32_t *csize;		/* IVF cluster sizes (CLUSTERS section) */
	uint64_t *cfirst;		/* nlist + 1 first entry indices (R-IVF) */
	struct isp_wire_reis_calib *calib;
	/* Deploy only (freed at commit): tags for the binary OOB, one staged
	 * page (data + OOB) per paged section, the DOCS parser. */
	uint32_t *tags;
	uint8_t *stage[ISP_REIS_NSECTIONS];
	struct re_docs_parse dp;
	uint64_t dram_db, dram_ivf, dram_stage;	/* bytes reserved */
	uint64_t searches;		/* queries answered */
};

struct re_eng {
	struct isp_dev *dev;
	struct fs *fs;
	struct ft *ft;
	const struct fp_params *p;
	const struct fg_geom *g;
	re_hamming_fn ham;
	re_scan_fn scan;	/* the fused scan (reis_filter.c) */
	re_scan_fn scan_c;	/* the same on codes in the cache: no prefetch */
	re_int8_fn score;
	pthread_mutex_t lock;
	struct re_db *db[RE_MAX_DBS];	/* dense, unordered */
	uint32_t ndb;
	uint64_t st_searches, st_filtered, st_ttl;
};

static inline uint64_t re_max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static inline uint32_t re_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline void re_put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

#define RE_DRAM_DB "r-db"
#define RE_DRAM_IVF "r-ivf"
#define RE_DRAM_STAGE "reis-stage"
#define RE_DRAM_TTL "ttl"

/* ---- reis_deploy.c, reis_catalog.c ---- */

uint16_t re_cmd_create(struct re_eng *e, struct isp_ctx *ctx, const struct isp_cmd *cmd,
		       void *data, size_t len, struct isp_cpl *cpl);
uint16_t re_cmd_write(struct re_eng *e, struct isp_ctx *ctx, const struct isp_cmd *cmd,
		      void *data, size_t len, struct isp_cpl *cpl);
uint16_t re_cmd_commit(struct re_eng *e, struct isp_ctx *ctx, const struct isp_cmd *cmd,
		       struct isp_cpl *cpl);
uint16_t re_cmd_delete(struct re_eng *e, struct isp_ctx *ctx, const struct isp_cmd *cmd,
		       struct isp_cpl *cpl);
uint16_t re_cmd_list(struct re_eng *e, struct isp_ctx *ctx, const struct isp_cmd *cmd,
		     void *data, size_t len, struct isp_cpl *cpl);
uint16_t re_cmd_info(struct re_eng *e, struct isp_ctx *ctx, const struct isp_cmd *cmd,
		     void *data, size_t len, struct isp_cpl *cpl);
int re_load(struct re_eng *e, const void *blob, size_t len, char *err, size_t errlen);
int re_save(struct re_eng *e, void **blob, size_t *len);
void re_db_free(struct re_eng *e, struct re_db *db);
/* @db's memory only; its regions and committed records stay in flash. */
void re_db_mem_free(struct re_db *db);
/* Under e->lock: the database with @did, or NULL. */
struct re_db *re_find(struct re_eng *e, uint32_t did);
/* Under e->lock: the database with @did unless it is still being created
 * (invisible to every other command), or NULL. */
struct re_db *re_find_live(struct re_eng *e, uint32_t did);
/* Under e->lock: take @db out of the table. */
void re_unlink(struct re_eng *e, struct re_db *db);
/* Under e->lock: @did's database when it is READY (no reference taken);
 * else Unknown ID or Busy, both with DNR, and the reason in *@why. */
uint16_t re_find_ready(struct re_eng *e, uint32_t did, struct re_db **out, const char **why);
/* The create header's layout; @cspread: planes its centroids spread over
 * (re_planes() for a new database, the stored value for a loaded one). */
int re_header_check(const struct isp_wire_reis_create *c, const struct fp_params *p,
		    uint32_t cspread, struct re_layout *L);
/* Every plane of @p's geometry: what a new database's centroids spread over. */
uint32_t re_planes(const struct fp_params *p);
/* Deploy-only memory: staging pages and the tags. */
void re_db_drop_stage(struct re_eng *e, struct re_db *db);
/* Cluster sizes sum to n; builds the R-IVF first-index array. */
int re_build_ivf(struct re_db *db);
/* The calibration table is sorted and usable. */
int re_calib_ok(const struct re_db *db);
/*
 * ---- reis_region_read.c: bytes [@off, @off + @len) of database @did's
 * SLC (@region 0) or TLC (1) region into @buf, the page reads charged from
 * ctx->ready; *@done when the last byte is in DRAM. Returns an NVMe status
 * (0), *@why on failure. ----
 */
uint16_t re_region_read(struct isp_ctx *ctx, uint32_t did, uint32_t region, uint64_t off,
			void *buf, uint32_t len, uint64_t *done, const char **why);
/* The page loop of it and of META_READ: bytes [@off, @off + @len) of region
 * @rg's pages; @stoppable: test the cancel flag per page. */
uint16_t re_pages_read(struct re_eng *e, struct isp_ctx *ctx, const struct fs_region *rg,
		       uint64_t off, void *buf, uint64_t len, int stoppable, uint64_t *done);

/* ---- reis_layout.c: entry i's RADR / DADR as deployed ---- */

uint32_t re_radr(const struct re_layout *L, uint64_t i);
uint32_t re_dadr(const struct re_layout *L, uint64_t i);

/* ---- reis_select.c: top-C by key = Hamming << 32 | entry index ---- */

struct re_cand {
	uint64_t key;
	uint32_t radr;	/* or the centroid's cluster tag */
	uint32_t dadr;
};

/*
 * TTL-E / TTL-C on the host, a counting select over the small distance
 * range (distances are at most the dimension): a count per distance of the
 * entries held gives D, the smallest distance at or below which at least
 * keep entries are held, after every append; nothing farther than D can
 * make the cut, so the bound follows D at once and the scan's kernel drops
 * those codes itself (re_topc_lim()). A full buffer (RE_TOPC_SLACK x keep)
 * drops what lies beyond D; only when the entries at D alone overflow it
 * are they cut by entry index (quickselect), which bounds the key too.
 * The set kept is the keep smallest keys of the stream, the drive's
 * quickselect's set after every round (keys are unique), whose cost
 * reis_cost.c models from counts.
 */
#define RE_TOPC_SLACK 4u
struct re_topc {
	struct re_cand *v;
	uint32_t n, cap, keep;
	uint64_t bound;		/* keys >= bound can no longer make the cut */
	uint32_t *hist;		/* entries held per distance, 0..maxd */
	uint32_t maxd;		/* the largest distance a key may have */
	uint32_t dmax;		/* while fewer than keep are held: their largest */
	uint32_t dstar;		/* then D */
	uint32_t nle;		/* entries held at distances <= D */
};

/* @maxd: the largest distance of a key (the dimension). */
int re_topc_init(struct re_topc *t, uint32_t keep, uint32_t maxd);
/* Reuse the buffer for another query with @keep <= the initial keep and
 * @maxd <= the initial maxd. */
void re_topc_reset(struct re_topc *t, uint32_t keep, uint32_t maxd);
void re_topc_free(struct re_topc *t);
/* Append @key (below t->bound, its distance at most maxd). */
void re_topc_push(struct re_topc *t, uint64_t key, uint32_t radr, uint32_t dadr);
/* Keep the best @keep, the @nsort smallest first in ascending order;
 * returns how many are kept. */
uint32_t re_topc_finish(struct re_topc *t, uint32_t nsort);
/* Host bytes of a TTL of @keep entries over distances 0..@maxd. */
static inline uint64_t re_topc_bytes(uint64_t keep, uint32_t maxd)
{
	return RE_TOPC_SLACK * keep * sizeof(struct re_cand) + ((uint64_t)maxd + 1) * 4u;
}
/* Sort @v[0..n) ascending. */
void re_sort_u64(uint64_t *v, uint64_t n);
/* Stable radix sort through @tmp (@n entries); @n below 2^32. */
void re_sort_u64_radix(uint64_t *v, uint64_t *tmp, uint64_t n);

static inline void re_topc_add(struct re_topc *t, uint64_t key, uint32_t radr,
			       uint32_t dadr)
{
	if (key < t->bound)
		re_topc_push(t, key, radr, dadr);
}

static inline uint64_t re_key(uint32_t dist, uint64_t idx)
{
	return (uint64_t)dist << 32 | (idx & 0xffffffffu);
}

/* ---- reis_cost.c: the cost path (docs/reis-engine.md "Timing") ---- */

struct re_fin_op {
	const char *label;	/* NULL: entry reads pc[pc0, pc0 + npc) */
	uint64_t cycles;	/* core kernel */
	uint64_t ready;		/* with @start: the chain's rest is ready */
	size_t pc0, npc;
	uint32_t mode, bytes;
	int start;		/* a chain's rest begins here (late list) */
};

/* A list of recorded ops and the page counts of their reads. */
struct re_fin_list {
	struct re_fin_op *op;
	uint32_t n, cap;
	struct re_pcount *pc;
	size_t npc, cappc;
};

/*
 * One phase (coarse or fine) of one query: rounds of `planes` page reads
 * with their TTL writes to DRAM, each round followed by a quickselect on
 * the ISP core that keeps @cand candidates. With PL every read is issued
 * at the phase start (cache-read mode, the plane FIFO and the core
 * calendar overlap the rest); without PL a round's reads wait for the
 * previous round's selection.
 */
struct re_cost {
	struct ft *ft;
	struct ft_cmd *cmd;
	const struct fp_params *p;
	uint32_t planes;
	int pl;
	struct ft_page_op op;	/* template: mode, flags */
	uint32_t entry_bytes;	/* TTL entry on the channel */
	uint32_t cmp_per_entry;	/* in-die compares per entry (DF, tag) */
	uint64_t start;		/* phase start (ps) */
	uint64_t ready;		/* ready time of the next round's reads */
	uint64_t last;		/* latest completion of the phase */
	uint64_t round_end;
	uint64_t round_pass;
	uint32_t in_round;
	uint64_t kept;		/* candidates held in the TTL */
	uint64_t cand;		/* candidates to keep */
	uint64_t pages, compared, passed;	/* counters over all phases */
	int asic;		/* REIS-ASIC (6.3.1): whole pages out, no IBC/ESP/compute */
	/* The finish chains (docs/timing-model.md §6.2): a query's rerank
	 * reads, kernels and id reads, recorded while fin_open; its leading
	 * reads are issued after the next query's search, the rest (from its
	 * first kernel on) after the command's last search. */
	int fin_open, fin_have, err;
	uint64_t fin_ready, fin_end;
	struct re_fin_list cur;	/* the chain recorded last */
	struct re_fin_list late;	/* rests of chains whose reads are issued */
	/* A round's page reads, issued together when it ends
	 * (ft_page_read_row(): the same calls, one lock); none when the
	 * buffers could not be had (each page is then issued at once). */
	uint32_t *row_plane;
	struct ft_page_op *row_op;
	uint64_t *row_dram;
	uint32_t nrow, caprow;
};

void re_cost_init(struct re_cost *c, struct ft *ft, struct ft_cmd *cmd, int pl);
void re_cost_phase(struct re_cost *c, uint64_t ready, uint64_t cand,
		   uint32_t entry_bytes, uint32_t cmp_per_entry);
void re_cost_page(struct re_cost *c, uint32_t plane, uint32_t n_fbc, uint32_t n_pass);
void re_cost_batch(struct re_cost *c, uint64_t first, uint64_t count, uint32_t n_fbc,
		   uint32_t n_pass);
uint64_t re_cost_phase_end(struct re_cost *c);
/*
 * A query's finish (rerank reads and kernels, sort, id reads) is a chain
 * from its search's end: between re_cost_fin_begin() and re_cost_fin_end()
 * re_cost_entry_reads() and re_cost_core() record it and return @ready
 * unchanged; re_cost_fin_begin() of the next query, or re_cost_flush(),
 * issues it. So the next query's IBC and pages are booked before this
 * query's finish and are not queued behind it on a plane (§6.2).
 * re_cost_fin_end() returns -ENOMEM if the chain could not be recorded;
 * re_cost_flush() returns the latest end of every chain issued so far.
 */
void re_cost_fin_begin(struct re_cost *c, uint64_t ready);
int re_cost_fin_end(struct re_cost *c);
uint64_t re_cost_flush(struct re_cost *c);
uint64_t re_cost_core(struct re_cost *c, uint64_t cycles, const char *label, uint64_t ready);
void re_cost_free(struct re_cost *c);
/* Host bytes the finish lists can hold for @nq queries whose finish reads
 * at most @reads page counts, @late of them after the kernels (the buffer
 * budget of a search counts them). */
uint64_t re_cost_fin_bytes(uint64_t reads, uint64_t late, uint32_t nq);
/* With DF, TTL-C entries the coarse phase has sent after comparing its
 * first @cum of @nlist centroids: the @np it keeps, spread evenly (A26). */
static inline uint64_t re_cost_coarse_passed(uint64_t cum, uint32_t np, uint32_t nlist)
{
	return nlist ? cum * np / nlist : cum;
}

/* Reads of whole entries out of TLC pages: @count entries of @bytes each
 * on @plane; returns when the last one is in DRAM. */
struct re_pcount {
	uint64_t key;		/* page identity while collecting (sorted) */
	uint32_t plane;
	uint32_t count;
};

uint64_t re_cost_entry_reads(struct re_cost *c, const struct re_pcount *pc, size_t n,
			     uint32_t mode, uint32_t bytes, uint64_t ready);
/* Sort @pc by key and merge equal keys; returns the new count. */
size_t re_pcount_merge(struct re_pcount *pc, size_t n);
void re_pcount_sort(struct re_pcount *v, size_t n);

/* reis_ivf.c: pages to visit for the clusters @probe (sorted ascending). */
struct re_seg {
	uint32_t lo, hi;	/* entry offsets in the page */
};

struct re_visit {
	uint64_t page;		/* binary page, relative to b_first */
	uint32_t seg0, nseg;	/* its segments */
	uint32_t nent;		/* entries in them */
	uint32_t near;		/* smallest centroid distance of its clusters */
	uint32_t plane, ncmp, npass;	/* the scan's counts, for the cost */
};

struct re_visits {
	struct re_visit *v;
	struct re_seg *s;
	uint64_t *ord;		/* host scan order: near << 32 | visit */
	uint32_t nv, ns;
	uint64_t cap_v, cap_s;
};

/* Visits of the clusters @probe[0..np) (ascending), in page order;
 * @cdist[i] (or NULL) is probe[i]'s centroid distance. */
int re_visits_build(struct re_visits *vs, const uint64_t *cfirst, const uint32_t *probe,
		    const uint32_t *cdist, uint32_t np, uint32_t epb);
void re_visits_free(struct re_visits *vs);

/* ---- a search in flight (reis_query.c and the steps it calls) ---- */

/* One hit while a search runs. */
struct re_hitx {
	uint64_t key;		/* Hamming << 32 | entry index */
	int64_t score;
	uint64_t id;
	struct re_db *db;
	uint32_t dadr;
	uint32_t metric;
};

/* Rerank order of one candidate. */
struct re_rk {
	int64_t score;
	uint64_t key;
	uint32_t metric;
	uint32_t i;
};

#define RE_QWORDS (ISP_REIS_MAX_DIM / 64)

/*
 * One query's host results on one database: what its charges need
 * (reis_run.c). The host work that fills it never touches the timing
 * engine; the charges, issued in query order by the command's own thread,
 * read it only.
 */
struct re_qout {
	struct re_topc top;	/* TTL-E: the candidates */
	struct re_visits vs;	/* IVF: its pages, each with its scan's counts */
	uint32_t np;		/* IVF: clusters probed */
	uint32_t m;		/* candidates ranked */
	uint32_t nh;		/* hits: at most k */
	struct re_rk *rk;	/* the ranking, its best k first */
	struct re_pcount *pc;	/* rerank: the pages of the codes read */
	size_t npc;
	struct re_pcount *idpc;	/* caller ids: the pages read */
	size_t nidpc;
	struct re_hitx *hits;	/* k */
};

/*
 * A search. The command's thread holds one (the charges, r->c, and what
 * every worker shares: the request, the host's page order of a
 * brute-force database, the centroid pages' planes); every worker of the
 * host work runs on a copy with its own scratch (page, distances, the
 * rerank's and the coarse search's buffers) and points r->top, r->vs,
 * r->qw at the query it works on.
 */
struct re_run {
	struct re_eng *e;
	struct isp_ctx *ctx;
	struct re_cost c;
	int ivf, df_dev, mpibc, rerank, tag;
	uint32_t flags, k, factor, qtag, nprobe, target, thr;
	uint32_t maxd;		/* the query dimension: the largest distance */
	/* a worker's scratch */
	uint8_t *page;		/* one page slot: data + OOB */
	uint16_t *dist;
	uint16_t *sidx, *sdist;	/* the fused scan's output: a page's entries */
	re_scan_fn scan;	/* e->scan, or e->scan_c on a page in the cache */
	int8_t *code;		/* one INT8 code */
	struct re_topc *ctop;	/* TTL-C */
	uint32_t *probe;
	uint32_t *cdist;	/* probe[i]'s centroid distance */
	uint64_t *cppa;		/* the rerank's codes: page, offset, in place */
	uint32_t *coff;
	const uint8_t **cptr;
	/* the query it works on */
	const uint64_t *qw;	/* the binary query, aligned */
	struct re_topc *top;	/* its TTL-E */
	struct re_visits *vs;	/* its IVF pages */
	/* shared: per page of a brute-force database, its place in the
	 * host's scan order, its plane and entry count; the planes of an
	 * IVF database's centroid pages */
	uint64_t *bord;		/* bpages, then as many for the sort */
	const struct re_db *bord_db;	/* whose pages bord orders */
	uint32_t *bplane, *bncmp;
	uint32_t *cplane;
	/* the command's thread only */
	uint64_t reranked;
	uint32_t nprobe_used;
	uint64_t budget;	/* bytes held of the command buffer budget */
};

/* reis_query.c */
uint16_t re_cmd_search(struct re_eng *e, struct isp_ctx *ctx, const struct isp_cmd *cmd,
		       void *data, size_t len, struct isp_cpl *cpl, int ivf);

/* reis_run.c: every query on every database, hits into @hits (k a query),
 * the last one's end in *@end; the buffers, r->budget taken from the
 * command buffer budget (re_run_setup_bufs()). */
struct re_exec;
uint16_t re_run_prepare(struct re_run *r, const struct isp_wire_reis_search *s,
			struct re_db **dbs, uint32_t ndbs, struct re_exec **out,
			const char **why);
int re_run_exec(struct re_exec *x, const void *data, uint64_t tq, struct re_hitx *hits,
		uint64_t *end);
void re_run_free(struct re_run *r, struct re_exec *x);

/* reis_scan.c: the host kernels' run-time choice (re_hamming_get, re_int8_get). */
struct re_variant {
	const char *name;
	int ok;			/* this CPU runs it */
};
int re_variant_pick(const struct re_variant *v, unsigned n, const char *name,
		    const char **chosen);

/* reis_scan.c: sense a page in place, its codes into *@pg and its OOB
 * into *@oob, @buf if it must be copied; fs_page_unmap() after. */
int re_map_page(struct re_eng *e, const struct fs_region *reg, uint64_t lpage, uint8_t *buf,
		const uint8_t **pg, const uint8_t **oob, uint64_t *ppa);
/* reis_scan.c: pages @ppa[0..n) in place under one read guard (codes in
 * @pd, OOB in @po; fs_page_unmap() after, once) and 0; 1 when one of them
 * must be copied (nothing held: the caller maps them one by one); -EIO. */
int re_map_many(struct re_eng *e, uint32_t n, const uint64_t *ppa, const uint8_t **pd,
		const uint8_t **po);
/* IVF fine search (REIS §4.3.1), the host's part: the pages in r->vs into
 * r->top, each visit's plane and counts recorded. */
int re_fine_host(struct re_run *r, struct re_db *db, uint64_t cand, int df, uint32_t thr);
/* Its charges from @t, in the drive's page order; the end in *@tend. */
void re_fine_cost(struct re_run *r, struct re_db *db, const struct re_visits *vs, uint64_t t,
		  uint64_t cand, int df, uint64_t *tend);
/* Brute force: r->bord, r->bplane, r->bncmp for @db (once). */
int re_bf_order(struct re_run *r, struct re_db *db);
/* Brute force, the host's part: queries @qws[0..nq) (RE_QWORDS words
 * each) over the pages r->bord[i0..i1) of @db, each page once for all of
 * them, into @tops[0..nq); each query's pass count per page into @bpass
 * (bpages a query). */
int re_scan_pages(struct re_run *r, struct re_db *db, const uint64_t *qws,
		  struct re_topc *const *tops, uint32_t nq, uint64_t i0, uint64_t i1,
		  uint32_t *bpass, int df, uint32_t thr);
/* Brute force: the fine phase's charges with the pass counts @pass, from
 * @t, in the drive's page order; its end in *@tend. */
void re_fine_charge(struct re_run *r, struct re_db *db, const uint32_t *pass, uint64_t t,
		    uint64_t cand, int df, uint64_t *tend);

/* reis_filter.c: the threshold in *@thr; whether the die filters by it. */
int re_filter_threshold(const struct re_run *r, const struct re_db *db, uint32_t *thr);
/* The sensed page's entries in @segs (codes at @codes, OOB at @oob)
 * against query @qw: the fused scan and the filters into TTL-E r->top;
 * returns how many passed, counts the compared ones in *@ncmp. */
uint32_t re_filter_page(struct re_run *r, const struct re_layout *L, uint64_t pg,
			const uint8_t *codes, const uint8_t *oob, const uint64_t *qw,
			const struct re_seg *segs, uint32_t nseg, int df, uint32_t thr,
			uint32_t *ncmp);
/* The fused scan's limit for TTL @t: distances below it may still enter. */
static inline uint32_t re_topc_lim(const struct re_topc *t)
{
	return t->bound == UINT64_MAX ? UINT32_MAX : (uint32_t)(t->bound >> 32) + 1;
}

/* reis_ivf.c: nprobe of @db (explicit, or from its calibration table). */
uint32_t re_nprobe(const struct re_run *r, const struct re_db *db);
/* The host's part: the nprobe nearest centroids into r->probe, their
 * pages into r->vs, how many in *@np_out. */
int re_coarse_host(struct re_run *r, struct re_db *db, uint32_t *np_out);
/* Its charges from @t; the end in *@tend. */
void re_coarse_cost(struct re_run *r, struct re_db *db, uint64_t t, uint64_t *tend);
/* r->cplane of @db (once). */
int re_coarse_planes(struct re_run *r, struct re_db *db);

/* reis_select.c */
uint64_t re_cand_count(const struct re_run *r, const struct re_db *db);
uint64_t re_ttl_bytes(const struct re_run *r, struct re_db **dbs, uint32_t ndbs);

/* reis_rerank.c: order r->top->v[0..o->m) into o->rk (INT8 rerank or
 * Hamming), the pages of the rerank's reads into o->pc; its charges. */
int re_rank_host(struct re_run *r, struct re_db *db, const int8_t *q8, struct re_qout *o);
void re_rank_cost(struct re_run *r, struct re_db *db, const struct re_qout *o, uint64_t *t);

/* reis_docs.c */
struct re_docs_cost;
/* Caller ids of o->hits[0..nh) (IDS section), their pages into o->idpc;
 * their charges. */
int re_ids_host(struct re_run *r, struct re_db *db, struct re_qout *o);
void re_ids_cost(struct re_run *r, const struct re_qout *o, uint64_t *t);
int re_docs_plan(struct re_eng *e, const struct re_hitx *hits, uint32_t n, uint64_t blob_len,
		 struct re_docs_cost **out, uint64_t *docs_bytes);
int re_doc_fill(struct re_eng *e, const struct re_docs_cost *dc, const struct re_hitx *h,
		uint32_t *nd, uint8_t *blob, struct isp_wire_reis_hit *wh);
/* isp_results_publish() callbacks: charge documents as they are read. */
void re_docs_charge(void *opaque, uint64_t off, uint64_t len, void *cost);
void re_docs_cost_free(void *opaque);
uint16_t re_cmd_doc_read(struct re_eng *e, struct isp_ctx *ctx, const struct isp_cmd *cmd,
			 void *data, size_t len, struct isp_cpl *cpl);
uint16_t re_cmd_meta_read(struct re_eng *e, struct isp_ctx *ctx, const struct isp_cmd *cmd,
			  void *data, size_t len, struct isp_cpl *cpl);

#endif /* REIS_INT_H */
