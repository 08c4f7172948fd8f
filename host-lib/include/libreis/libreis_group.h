/* SPDX-License-Identifier: MIT */
/*
 * libreis/libreis_group.h - a device group: several ISP drives used as one
 * (Solana §III-IV). Sharded mode deploys one REIS database or RecFlash
 * table across the members and scatters every batch to all of them; the
 * merged answer is identical to one drive holding all the data. Scheduled
 * mode (Solana IV-A) hands batches to the host CPU and each drive by a pull
 * scheduler with a measured batch ratio and accounts like Solana Table I.
 * Guide: docs/group.md.
 * Included by libreis_tools.h (the group runs the host tools' reference
 * search and SLS for the host's share); conventions are libreis.h's.
 */
#ifndef LIBREIS_GROUP_H
#define LIBREIS_GROUP_H

#ifndef LIBREIS_TOOLS_H
#error "include <libreis_tools.h>, not <libreis/libreis_group.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define REIS_GROUP_MAX 64u	/* members; Solana's server has 36 (§IV) */

struct reis_group;

/**
 * struct reis_group_member - one member as the group sees it.
 * @name: the path it was opened from, or the name given to
 *        reis_group_adopt().
 * @preset: the drive's timing/geometry preset.
 * @caps: enum reis_cap bits.
 * @info: its ISP_IDENTIFY data.
 * @transport: how the controller is reached, from discovery: "pcie" (this
 *             machine), "tcp", "rdma", "fc" (a fabric, docs/fabric.md);
 *             "" when discovery does not know the drive (in-process drives).
 * @subsysnqn: the controller's subsystem NQN ("" when unknown).
 * @address: "traddr=...,trsvcid=..." for a fabric, the PCI address for
 *           pcie ("" when unknown).
 * @ctrl: the controller's kernel name ("nvme2"), for its sysfs state.
 * @remote: non-zero when @transport is a fabric.
 */
struct reis_group_member {
	char name[REIS_PATH_MAX];
	char preset[REIS_PRESET_LEN + 1];
	uint64_t caps;
	struct reis_info info;
	char transport[16];
	char subsysnqn[REIS_NQN_LEN + 1];
	char address[128];
	char ctrl[32];
	uint32_t remote;
};

/**
 * reis_group_open() - open every path as a member.
 * @paths: drive paths (reis_open()).
 * @n: 1..REIS_GROUP_MAX.
 * @flags: reis_open() flags.
 * @g: the new group.
 *
 * All or nothing: when one path fails to open (or is no ISP drive) the
 * others are closed again and reis_group_errmsg(NULL) names it.
 *
 * Return: 0, -EINVAL, -ENOMEM, or the failing reis_open()'s -errno.
 */
int reis_group_open(const char *const *paths, unsigned n, uint32_t flags,
		    struct reis_group **g);

/**
 * reis_group_discover() - a group of every ISP drive reis_discover() finds.
 * @flags: reis_open() flags.
 * @g: the new group.
 *
 * Return: as reis_group_open(); -ENODEV when no ISP drive is present.
 */
int reis_group_discover(uint32_t flags, struct reis_group **g);

/**
 * reis_group_adopt() - a group over open handles (e.g. in-process drives).
 * @devs: handles; the group closes them in reis_group_close().
 * @names: a name per handle for messages, or NULL ("drive<i>").
 * @n: 1..REIS_GROUP_MAX.
 * @g: the new group.
 *
 * Return: 0, -EINVAL (also for a handle without the REIS or RecFlash
 * capability), -ENOMEM. On failure the handles stay the caller's.
 */
int reis_group_adopt(struct reis_dev *const *devs, const char *const *names, unsigned n,
		     struct reis_group **g);

/**
 * reis_group_close() - close every member and free the group (NULL-safe).
 * @g: group.
 */
void reis_group_close(struct reis_group *g);

/**
 * reis_group_size() - members.
 * @g: group.
 *
 * Return: the count.
 */
unsigned reis_group_size(const struct reis_group *g);

/**
 * reis_group_dev() - a member's handle (owned by the group).
 * @g: group.
 * @i: member index.
 *
 * Return: the handle or NULL.
 */
struct reis_dev *reis_group_dev(const struct reis_group *g, unsigned i);

/**
 * reis_group_member_info() - what the group knows of member @i.
 * @g: group.
 * @i: member index.
 * @out: filled.
 *
 * Return: 0 or -EINVAL.
 */
int reis_group_member_info(const struct reis_group *g, unsigned i,
			   struct reis_group_member *out);

/**
 * reis_group_mixed() - whether the members differ in preset or geometry.
 * @g: group.
 *
 * Mixed groups work (each member runs at its own speed; the scheduler's
 * calibration measures each); callers report it.
 *
 * Return: 1 mixed, 0 uniform.
 */
int reis_group_mixed(const struct reis_group *g);

/**
 * reis_group_errmsg() - a sentence about the group's last failure, naming
 * the drive.
 * @g: group, or NULL for the last failed reis_group_open/discover/adopt()
 *     of this thread.
 *
 * A member reached over a fabric is named with its transport, NQN and
 * address. When a member's command fails and its controller is no longer
 * live (gone from sysfs, or its state not "live": a lost NVMe/TCP link),
 * the sentence says the drive is unreachable and the call returns
 * -ENOTCONN instead of the kernel's -EINVAL/-EIO (docs/fabric.md).
 *
 * Return: the sentence ("" when none).
 */
const char *reis_group_errmsg(const struct reis_group *g);

/**
 * reis_group_failed() - the member the last failure came from.
 * @g: group.
 *
 * Return: its index, or -1 when the last call did not fail on a member.
 */
int reis_group_failed(const struct reis_group *g);

/*
 * How long a member may keep the group's commands in flight without
 * completing one, by default: Linux's NVMe I/O timeout (nvme_core
 * io_timeout, 30 s), after which the kernel aborts and resets anyway.
 */
#define REIS_GROUP_TIMEOUT_MS 30000

/**
 * reis_group_set_timeout() - the per-command bound of the group's calls.
 * @g: group.
 * @timeout_ms: milliseconds a member may hold commands of a call without
 *              completing any; 0: REIS_GROUP_TIMEOUT_MS; -1: no bound.
 *
 * A sharded search or SLS gives up on a member that exceeds it: the call
 * fails with -ETIMEDOUT and reis_group_errmsg() names the drive (with
 * REIS_GROUP_PARTIAL a search merges the others and flags the result). The
 * synchronous waits are bounded alike: the DB_INFO before a search, the
 * deploys (all or nothing: the others' shards are deleted at once, the late
 * member's by its own thread when its deploy returns) and the scheduled
 * mode's drive batches; until such a late call returns, its member is
 * held (other calls wait a timeout for it, then fail naming it) and it may
 * still read the caller's image, table or queries. The
 * member's late commands stay the group's: the next call on the group,
 * reis_group_pending() or reis_group_close() reaps them, reads and
 * releases their results on the drive and discards them
 * (docs/group.md, Faults).
 *
 * Return: 0 or -EINVAL.
 */
int reis_group_set_timeout(struct reis_group *g, int timeout_ms);

/**
 * reis_group_pending() - late work the group still holds.
 * @g: group.
 *
 * Reaps what has completed meanwhile (without waiting) and frees it.
 *
 * Return: the number of abandoned calls' work items still in flight.
 */
unsigned reis_group_pending(struct reis_group *g);

/* ---------------------------------------------------------------------- */
/* Sharded REIS                                                            */

/**
 * reis_group_shard_of() - the member holding entry @entry, and its index
 * there.
 * @nmembers: members the database was sharded over.
 * @entry: entry index of the whole database (IVF: position in cluster
 *         order).
 * @local: out: its entry index on that member, or NULL.
 *
 * Placement (docs/group.md, Placement): entry p goes to member p mod N, in
 * entry order; IVF centroids and calibration are on every member, so each
 * member holds a 1/N slice of every cluster.
 *
 * Return: the member index.
 */
static inline unsigned reis_group_shard_of(unsigned nmembers, uint64_t entry, uint64_t *local)
{
	if (local)
		*local = entry / nmembers;
	return (unsigned)(entry % nmembers);
}

/**
 * reis_group_shard_image() - the part of @img member @s of @nmembers holds.
 * @img: a checked image.
 * @s: member index.
 * @nmembers: members.
 * @out: the shard image (owns its arrays; reis_db_image_free()); its quant
 *       points at @img's.
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
int reis_group_shard_image(const struct reis_db_image *img, unsigned s, unsigned nmembers,
			   struct reis_db_image *out);

/**
 * reis_group_db_deploy() - deploy @img across every member (sharded).
 * @g: group.
 * @img: image; checked first.
 * @o: deploy settings for each member, or NULL.
 *
 * All or nothing: when one member fails, the shards already written to the
 * others are deleted again and reis_group_errmsg() names the member. The
 * members deploy at once, each under the group's timeout (between
 * acknowledged chunks); on -ETIMEDOUT keep @img until reis_group_pending()
 * is 0 (docs/group.md, Timeout). Each
 * shard is also written to its member's namespace for the scheduled mode's
 * host share (docs/group.md, "The host's share: block reads").
 *
 * Return: 0, or the failing member's reis_db_deploy() -errno; -ENOSPC when
 * its namespace has no room for the copy.
 */
int reis_group_db_deploy(struct reis_group *g, struct reis_db_image *img,
			 const struct reis_deploy_opts *o);

/**
 * reis_group_db_delete() - delete database @did on every member.
 * @g: group.
 * @did: database.
 *
 * Every member is tried; -ENOENT on a member is not an error.
 *
 * Return: 0 or the first other -errno.
 */
int reis_group_db_delete(struct reis_group *g, uint32_t did);

/* reis_group_search() flags */
#define REIS_GROUP_PARTIAL (1u << 0)	/* merge the members that answered */
#define REIS_GROUP_TWO_PHASE (1u << 1)	/* binary pass first: less rescoring */

/**
 * struct reis_group_result - a sharded search, merged.
 * @res: the merged result (id, entry, Hamming, score, documents), as one
 *       drive holding the whole database gives; entry indices are the
 *       whole database's.
 * @partial: non-zero when members are missing from @res (only with
 *           REIS_GROUP_PARTIAL); @missing says which.
 * @missing: bit i set: member i did not answer.
 * @nmembers: members.
 * @part: per member, its own result (its local entries; the documents of
 *        @res point into these).
 * @part_err: per member, 0 or its -errno.
 * @hits_moved: hits the members sent to the host (the merge's input).
 * @merge_ns: host time of the merge.
 * @search_ns: the slowest member's modeled search time (members run in
 *             parallel).
 * @search_nj: the members' modeled energy, summed.
 * @host_ns: wall time of the whole call.
 * @priv: library-private (the members' command results).
 */
struct reis_group_result {
	struct reis_search_result res;
	uint32_t partial;
	uint32_t nmembers;
	uint64_t missing;
	struct reis_search_result *part;
	int32_t *part_err;
	uint64_t hits_moved;
	uint64_t merge_ns;
	uint64_t search_ns;
	uint64_t search_nj;
	uint64_t host_ns;
	void *priv;
};

/**
 * reis_group_result_free() - free a group result (NULL-safe) and zero it.
 * @r: result.
 */
void reis_group_result_free(struct reis_group_result *r);

/**
 * reis_group_search() - a sharded Search / IVF_Search on every member.
 * @g: group.
 * @ivf: non-zero for IVF_SEARCH.
 * @o: options as for one drive (not REIS_SF_GROUP).
 * @q: queries, any number: split per member into commands of
 *     reis_search_max_nq() queries, all submitted at once (many in flight
 *     per drive, every drive at the same time).
 * @flags: REIS_GROUP_* flags.
 * @r: out; free with reis_group_result_free().
 *
 * Each member returns its factor*k best candidates by (Hamming, entry)
 * already rescored (rerank factor 1, k = factor*k); the host takes the
 * factor*k best of their union, which are exactly the candidates one drive
 * selects, and orders them as the drive does (docs/group.md, Merge). So
 * factor*k may be at most REIS_MAX_K. With REIS_GROUP_TWO_PHASE a
 * binary-only pass (REIS_SF_NO_RERANK) first counts how many of those
 * candidates each member holds per query, and the rescoring pass asks each
 * member only for its largest count over the batch: the same result, a
 * second scan for much less rescoring (docs/group.md, Merge).
 *
 * Return: 0; -EINVAL for bad options, -E2BIG when factor*k > REIS_MAX_K;
 * a member's -errno when it failed (reis_group_errmsg() names it; without
 * REIS_GROUP_PARTIAL nothing is merged; with it the others are merged and
 * r->partial is set, and the return is still that -errno).
 */
int reis_group_search(struct reis_group *g, int ivf, const struct reis_search_opts *o,
		      const struct reis_queries *q, uint32_t flags,
		      struct reis_group_result *r);

/* ---------------------------------------------------------------------- */
/* Sharded RecFlash                                                        */

/**
 * reis_group_rf_rows() - rows of a table member @s holds.
 * @rows: rows of the whole table.
 * @s: member index.
 * @nmembers: members.
 *
 * Rows are sharded in contiguous, balanced ranges (docs/group.md,
 * Placement): member s holds rows [rows*s/N, rows*(s+1)/N).
 *
 * Return: the count.
 */
uint32_t reis_group_rf_rows(uint32_t rows, unsigned s, unsigned nmembers);

/**
 * reis_group_rf_owner() - the member holding row @row, and its local row.
 * @rows: rows of the whole table.
 * @nmembers: members.
 * @row: row, < @rows.
 * @local: out: its row on that member, or NULL.
 *
 * Return: the member index.
 */
unsigned reis_group_rf_owner(uint32_t rows, unsigned nmembers, uint32_t row, uint32_t *local);

/**
 * reis_group_rf_deploy() - deploy table @t across every member by rows.
 * @g: group.
 * @t: the table (a @t->profile is sliced with the rows).
 * @opts: per-member options (costs summed over the members), or NULL.
 *
 * All or nothing across the members, as reis_group_db_deploy().
 *
 * Return: 0 or the failing member's -errno.
 */
int reis_group_rf_deploy(struct reis_group *g, const struct reis_rf_table *t,
			 struct reis_rf_deploy_opts *opts);

/**
 * reis_group_rf_delete() - delete table @tid on every member.
 * @g: group.
 * @tid: table.
 *
 * Return: 0 or the first -errno other than -ENOENT.
 */
int reis_group_rf_delete(struct reis_group *g, uint32_t tid);

/* reis_group_rf_sls() flags, beside REIS_GROUP_PARTIAL */
#define REIS_GROUP_SLS_EXACT (1u << 8)	/* bit-identical to one drive */

/**
 * struct reis_group_sls_info - what a sharded SLS cost.
 * @member: per member, summed over its operations.
 * @nmembers: members used.
 * @pieces: partial sums the members returned (the combine's input).
 * @bytes_to_host: bytes of partial sums that crossed to the host.
 * @combine_ns: host time of the combine.
 * @model_ns: the slowest member's modeled time.
 * @energy_pj: the members' modeled energy, summed.
 * @host_ns: wall time of the whole call.
 */
struct reis_group_sls_info {
	struct reis_rf_sls_info member[REIS_GROUP_MAX];
	uint32_t nmembers;
	uint32_t rsvd;
	uint64_t pieces;
	uint64_t bytes_to_host;
	uint64_t combine_ns;
	uint64_t model_ns;
	uint64_t energy_pj;
	uint64_t host_ns;
};

/**
 * reis_group_rf_sls() - a sharded SLS: every bag's rows pooled on their
 * members, the partial sums combined on the host.
 * @g: group.
 * @tid: table (deployed with reis_group_rf_deploy()).
 * @rows: rows of the whole table.
 * @dim: its dim.
 * @bags: the batch (rows of the whole table).
 * @flags: REIS_RF_SLS_* and REIS_GROUP_* flags.
 * @out: @bags->nbags * @dim floats.
 * @info: costs, or NULL.
 *
 * Default: one partial sum per (bag, member), combined in the order of
 * each member's first row in the bag: equal to one drive bit for bit when
 * a bag's rows sit on one member, else within float32 rounding of the
 * order (docs/group.md, Combine). REIS_GROUP_SLS_EXACT: the bag's leading
 * run of rows on one member is pooled there and every later row comes as
 * its own weighted row, added on the host in bag order: the sums are
 * identical to one drive's (command-set.md §5 accumulation), at the price
 * of a vector per index crossing to the host.
 *
 * Return: 0, -EINVAL for a malformed batch, -ERANGE for a row out of
 * range, or a member's -errno (named in reis_group_errmsg(); with
 * REIS_GROUP_PARTIAL nothing is combined either: a pooled vector missing a
 * member's rows is wrong, not partial).
 */
int reis_group_rf_sls(struct reis_group *g, uint32_t tid, uint32_t rows, uint32_t dim,
		      const struct reis_rf_bags *bags, uint32_t flags, float *out,
		      struct reis_group_sls_info *info);

/* ---------------------------------------------------------------------- */
/* Scheduled mode (Solana IV-A) and Table-I accounting                     */

/*
 * Host CPU power while it computes its share: Solana IV-C measures 482 W
 * with the 8-core Xeon Silver 4108 busy and 405 W idle (36 drives in), so
 * 77 W / 8 cores = 9.6 W per busy core; the host's share here runs on one.
 */
#define REIS_GROUP_HOST_CORE_W 9.6

/*
 * The server's idle power, which Solana's Table I energies include (a power
 * meter on the whole server, IV-C): 167 W without drives plus 6.6 W per
 * drive (405 W with 36). Charged over the run's time to both setups.
 */
#define REIS_GROUP_SERVER_IDLE_W 167.0
#define REIS_GROUP_DRIVE_IDLE_W 6.6

/**
 * struct reis_group_sched_opts - a scheduled run.
 * @batch: base batch, in queries per (node, shard); 0: 8. The slower kind
 *         of node gets @batch, the faster @batch times the batch ratio.
 * @calib_nq: queries of the calibration run on each node; 0: 16.
 * @ratio: batch ratio host/drive (queries per second of the host over a
 *         drive's, each on one shard); 0: measure it by calibration now.
 * @host_w: host CPU power while busy, W; 0: REIS_GROUP_HOST_CORE_W.
 * @flags: REIS_GROUP_SCHED_* flags.
 * @single: NULL, or a drive holding the whole database under the same did:
 *          the run's whole batch on it gives the one-drive baseline.
 * @one_drive_qps: the one-drive baseline measured elsewhere (queries or
 *                 bags per second, e.g. a sharded sweep's one-drive point),
 *                 used before @single; with neither the report has no
 *                 one-drive baseline (0): one estimated from the members'
 *                 calibration runs (16 queries each) undercounted a
 *                 drive's batching and is not offered.
 * @tick_us: the scheduler's wake-up period (Solana IV-A: "wakes up every
 *           0.2 seconds to check if there is a new message from the
 *           nodes"): a node that finishes a batch gets its next one at the
 *           next multiple of @tick_us on the run's timeline; 0: at once.
 */
struct reis_group_sched_opts {
	uint32_t batch;
	uint32_t calib_nq;
	double ratio;
	double host_w;
	uint32_t flags;
	uint32_t tick_us;
	struct reis_dev *single;
	double one_drive_qps;
};

#define REIS_GROUP_SCHED_NO_HOST (1u << 0)	/* drives only */
#define REIS_GROUP_SCHED_HOST_ONLY (1u << 1)	/* the host alone (baseline) */
/* Any node may take any item (a shared file system, Solana IV-A): a drive
 * whose shard is done pulls from the front of the shard with most left.
 * reis_group_pull_model() only: a real drive holds its own shard. */
#define REIS_GROUP_SCHED_SHARED (1u << 2)

/**
 * struct reis_group_node - one node of a scheduled run.
 * @batches: batches it pulled.
 * @items: (query, shard) pairs it processed.
 * @busy_ns: its busy time: modeled for a drive; for the host, measured
 *           compute time plus the modeled block reads of its data.
 * @bytes_inside: bytes processed inside the drive (pages sensed).
 * @bytes_to_host: bytes the host read to compute its share: its block
 *                 reads from the members' namespaces, rounded out to LBAs.
 * @read_ns: the host's wall time in those block reads (the timeline
 *           charges them bytes / link rate instead, like the drives'
 *           modeled times).
 * @energy_nj: a drive's modeled energy; the host's: host_w times its
 *             busy time plus the flash sensing of the bytes it read (the
 *             drives' modeled energy per byte processed inside).
 * @rate: calibrated items per second (0 without calibration).
 */
struct reis_group_node {
	uint32_t batches;
	uint32_t rsvd;
	uint64_t items;
	uint64_t busy_ns;
	uint64_t bytes_inside;
	uint64_t bytes_to_host;
	uint64_t read_ns;
	uint64_t energy_nj;
	double rate;
};

/**
 * struct reis_group_sched_report - a scheduled run, accounted like Solana
 * Table I.
 * @ratio: the batch ratio used (host batch / drive batch in throughput).
 * @host_batch: queries per host batch.
 * @drive_batch: queries per drive batch.
 * @nmembers: drives.
 * @items: (query, shard) pairs of the run.
 * @makespan_ns: end of the last batch on the run's timeline (each node
 *               pulls its next batch when it finishes one).
 * @calib_ns: wall time of the calibration.
 * @host: the host node.
 * @drive: the drives.
 * @bytes_inside: bytes processed inside the drives.
 * @bytes_to_host: bytes moved to the host for its share.
 * @inside_share: share of the items processed inside the drives
 *                (Table I "data processed in CSDs").
 * @qps: queries per second of the run.
 * @host_alone_qps: the host alone (its per-item time over every item).
 * @one_drive_qps: one drive holding everything (the caller's
 *                 @one_drive_qps, else measured with @single; 0: none).
 * @drives_only_qps: the drives without the host (slowest member).
 * @speedup_vs_host: @qps / @host_alone_qps (Table I "max speedup").
 * @speedup_vs_one_drive: @qps / @one_drive_qps.
 * @host_w: the host power model used.
 * @mj_per_query: energy per query of the run, mJ.
 * @host_alone_mj_per_query: energy per query of the host alone, mJ.
 * @energy_saving: 1 - @mj_per_query / @host_alone_mj_per_query.
 * @server_w: idle power of the server (REIS_GROUP_SERVER_IDLE_W +
 *            REIS_GROUP_DRIVE_IDLE_W per drive).
 * @server_mj_per_query: @mj_per_query plus @server_w over the run's time
 *                       per query (Table I's basis).
 * @server_host_alone_mj_per_query: the same for the host alone.
 * @server_energy_saving: 1 - their ratio.
 */
struct reis_group_sched_report {
	double ratio;
	uint32_t host_batch;
	uint32_t drive_batch;
	uint32_t nmembers;
	uint32_t rsvd;
	uint64_t items;
	uint64_t makespan_ns;
	uint64_t calib_ns;
	struct reis_group_node host;
	struct reis_group_node drive[REIS_GROUP_MAX];
	uint64_t bytes_inside;
	uint64_t bytes_to_host;
	double inside_share;
	double qps;
	double host_alone_qps;
	double one_drive_qps;
	double drives_only_qps;
	double speedup_vs_host;
	double speedup_vs_one_drive;
	double host_w;
	double mj_per_query;
	double host_alone_mj_per_query;
	double energy_saving;
	double server_w;
	double server_mj_per_query;
	double server_host_alone_mj_per_query;
	double server_energy_saving;
};

/**
 * reis_group_sched_search() - a sharded search run by the pull scheduler
 * of Solana IV-A over the host CPU and every drive.
 * @g: group holding @img sharded (reis_group_db_deploy()).
 * @img: the image, or NULL; only its did is checked against @o's. The
 *       host's share reads the shards from the members' namespaces, where
 *       reis_group_db_deploy() wrote them (docs/group.md, "The host's
 *       share: block reads").
 * @ivf: non-zero for IVF_SEARCH.
 * @o: options as for reis_group_search().
 * @q: queries.
 * @so: scheduling options, or NULL.
 * @r: the merged result, identical to reis_group_search()'s whoever
 *     computed each part (drive or host: reis_ref_search() is the drive's
 *     search bit for bit); free with reis_group_result_free().
 * @rep: the accounting.
 *
 * Every (shard, query range) is a work item. Drive s pulls batches of its
 * own shard's queries from the front; the host pulls batches from the
 * back of the shard with most left, so no item is done twice. Batch sizes
 * follow the batch ratio; time is the run's timeline: a drive's batch
 * takes its modeled time, the host's its measured compute time plus its
 * block reads of the shard data it needs, charged bytes / link rate.
 *
 * Return: 0, or as reis_group_search() (no partial results here); -ENOENT
 * or -EBADMSG when a member's namespace has no (sound) copy of its shard.
 */
int reis_group_sched_search(struct reis_group *g, const struct reis_db_image *img, int ivf,
			    const struct reis_search_opts *o, const struct reis_queries *q,
			    const struct reis_group_sched_opts *so, struct reis_group_result *r,
			    struct reis_group_sched_report *rep);

/**
 * reis_group_sched_sls() - a sharded SLS run by the pull scheduler over the
 * host CPU and every drive.
 * @g: group holding @t sharded by rows (reis_group_rf_deploy()).
 * @t: the table: tid, rows, dim and dtype (@t->data is not used: the
 *     host's share reads the rows from the members' namespaces, where
 *     reis_group_rf_deploy() wrote them).
 * @bags: the batch (rows of the whole table).
 * @flags: REIS_RF_SLS_* and REIS_GROUP_SLS_EXACT.
 * @so: scheduling options, or NULL (@so->single: a drive holding the whole
 *      table under @t->tid, for the one-drive baseline).
 * @out: @bags->nbags * @t->dim floats, identical to reis_group_rf_sls()'s
 *       whoever pooled each piece (reis_rf_sls_ref() is the drive's SLS bit
 *       for bit).
 * @rep: the accounting; its "queries" are bags.
 *
 * The work items are the members' pieces (a bag's partial sum on one
 * member, as reis_group_rf_sls() cuts them); drives pull their own, the
 * host from the back of the member with most left. A drive's batch takes
 * its modeled time; the host's its measured time plus its block reads of
 * the rows it pools, charged bytes / link rate.
 *
 * Return: 0, -EINVAL / -ERANGE for a bad batch, or a member's -errno
 * (named in reis_group_errmsg()).
 */
int reis_group_sched_sls(struct reis_group *g, const struct reis_rf_table *t,
			 const struct reis_rf_bags *bags, uint32_t flags,
			 const struct reis_group_sched_opts *so, float *out,
			 struct reis_group_sched_report *rep);

/**
 * struct reis_group_pull_model - the pull scheduler over nodes of known
 * rates, no drives needed: Solana's server (IV) as a model, whose
 * applications this library cannot run.
 * @drives: drive nodes, 1..REIS_GROUP_MAX.
 * @items: work items of the run, split over the drives' shards as evenly
 *         as whole items allow (the data on a shared file system, IV-A).
 * @host_ips: the host's items per second alone (its single-node rate).
 * @drive_ips: a drive's items per second alone.
 * @batch_ns: a fixed cost per batch on every node (dispatch), ns.
 */
struct reis_group_pull_model {
	uint32_t drives;
	uint32_t rsvd;
	uint64_t items;
	double host_ips;
	double drive_ips;
	uint64_t batch_ns;
};

/**
 * reis_group_pull_model() - run the scheduler of reis_group_sched_search()
 * (the same pull loop, batch ratio and Table-I accounting) over model nodes
 * that take items / rate per batch (+ @m->batch_ns).
 * @m: the nodes.
 * @so: as for reis_group_sched_search(): @so->batch is the base batch,
 *      @so->ratio the batch ratio (0: host rate / drive rate), @so->tick_us
 *      the scheduler's wake-up period, @so->flags REIS_GROUP_SCHED_*;
 *      @so->single must be NULL.
 * @rep: the accounting (@rep->host.busy_ns the host's modeled time; energy
 *       fields as reis__pull's: the host at @so->host_w; drives 0).
 *
 * Return: 0, -EINVAL for a bad @m or @so, -ENOMEM.
 */
int reis_group_pull_model(const struct reis_group_pull_model *m,
			  const struct reis_group_sched_opts *so,
			  struct reis_group_sched_report *rep);

#ifdef __cplusplus
}
#endif

#endif /* LIBREIS_GROUP_H */
