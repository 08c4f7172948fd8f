/* SPDX-License-Identifier: MIT */
/*
 * libreis/libreis_reis_search.h - REIS search in the drive: brute force and IVF,
 * synchronous or many in flight; results and their decoding (REIS §4.3,
 * docs/command-set.md §4, §6).
 * Included by libreis.h; conventions are libreis.h's (docs/libreis.md).
 */
#ifndef LIBREIS_REIS_SEARCH_H
#define LIBREIS_REIS_SEARCH_H

#ifndef LIBREIS_H
#error "include <libreis.h>, not <libreis/libreis_reis_search.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct reis_search_opts - one Search / IVF_Search.
 * @did: database, or group with REIS_SF_GROUP.
 * @k: hits per query, 1..REIS_MAX_K (and at most the database's n).
 * @flags: REIS_SF_* flags.
 * @rerank_factor: candidates = factor * k, 1..REIS_MAX_RERANK; 0: 10.
 * @df_threshold: Hamming DF threshold; 0: the database's.
 * @nprobe: IVF clusters to probe; 0: from @target_recall.
 * @target_recall: IVF target recall R in 1/10000 (when @nprobe is 0).
 * @tag: with REIS_SF_TAG.
 * @t_min: with REIS_SF_GROUP: partitions with timestamp in [t_min, t_max].
 * @t_max: see @t_min.
 */
struct reis_search_opts {
	uint32_t did;
	uint32_t k;
	uint32_t flags;
	uint32_t rerank_factor;
	uint32_t df_threshold;
	uint32_t nprobe;
	uint32_t target_recall;
	uint32_t tag;
	uint64_t t_min;
	uint64_t t_max;
};

/**
 * struct reis_queries - a batch of encoded queries.
 * @nq: queries.
 * @dim: dimensions (must equal the database's).
 * @bin: nq * dim/8 binary codes.
 * @int8: nq * dim INT8 codes; required unless REIS_SF_NO_RERANK.
 */
struct reis_queries {
	uint32_t nq;
	uint32_t dim;
	const uint8_t *bin;
	const int8_t *int8;
};

/**
 * struct reis_hit - one hit, decoded and bounded.
 * @id: caller id (REIS_DBF_IDS) or entry index; REIS_HIT_NONE for padding.
 * @did: database of the hit.
 * @hamming: binary distance to the query.
 * @score: INT8 rerank score (0 with REIS_SF_NO_RERANK).
 * @doc: its document inside the result (with REIS_SF_DOCS), else NULL.
 * @doc_len: its length.
 * @entry: its entry index in database @did (IVF: position in cluster
 *         order), always filled, also when @id is a caller id: what
 *         reis_doc_read() takes.
 */
struct reis_hit {
	uint64_t id;
	uint32_t did;
	uint32_t hamming;
	int64_t score;
	const uint8_t *doc;
	uint32_t doc_len;
	uint32_t entry;
};

/**
 * struct reis_search_result - a finished search.
 * @nq: queries.
 * @k: hits per query.
 * @flags: the search's flags.
 * @ndbs: databases searched (groups).
 * @nprobe: IVF clusters probed per query.
 * @ncmds: commands it took (searches + result reads + releases).
 * @pages_read: embedding and centroid pages sensed.
 * @entries_compared: distances computed in the dies.
 * @entries_passed: entries that crossed the channel (after DF).
 * @reranked: INT8 candidates rescored.
 * @docs_bytes: documents in the result.
 * @search_ns: modeled time of the SEARCH command(s) (summed over batches).
 * @search_nj: modeled energy of the SEARCH command(s).
 * @read_ns: modeled time of the result reads (documents from flash).
 * @read_nj: modeled energy of the result reads.
 * @host_ns: host wall time from submission to the last byte.
 * @nhits: per query, the hits before padding.
 * @hits: nq * k hits, query-major, best first; padding has id REIS_HIT_NONE.
 * @priv: library-owned memory (the result blobs the documents point into).
 */
struct reis_search_result {
	uint32_t nq;
	uint32_t k;
	uint32_t flags;
	uint32_t ndbs;
	uint32_t nprobe;
	uint32_t ncmds;
	uint64_t pages_read;
	uint64_t entries_compared;
	uint64_t entries_passed;
	uint64_t reranked;
	uint64_t docs_bytes;
	uint64_t search_ns;
	uint64_t search_nj;
	uint64_t read_ns;
	uint64_t read_nj;
	uint64_t host_ns;
	uint32_t *nhits;
	struct reis_hit *hits;
	void *priv;
};

/**
 * reis_search_result_free() - free a result (NULL-safe) and zero it.
 * @res: result.
 */
void reis_search_result_free(struct reis_search_result *res);

/**
 * reis_search_max_nq() - queries one SEARCH command can carry.
 * @dev: handle: its max_xfer bounds the payload, the drive's
 *       max_result_bytes the result (with REIS_SF_DOCS the drive reserves
 *       a page per hit).
 * @dim: dimensions.
 * @k: hits per query.
 * @flags: search flags (REIS_SF_NO_RERANK drops the INT8 queries,
 *         REIS_SF_DOCS adds documents to the result).
 *
 * Return: 1..REIS_MAX_NQ, or 0 if not even one query fits.
 */
uint32_t reis_search_max_nq(const struct reis_dev *dev, uint32_t dim, uint32_t k,
			    uint32_t flags);

/**
 * reis_search() - brute-force Search(Q, Qid, Did, k), synchronous.
 * @dev: handle.
 * @o: options.
 * @q: queries, any number (split into commands of reis_search_max_nq()
 *     queries, several in flight).
 * @res: the result, out; free with reis_search_result_free().
 *
 * Each command takes a random ticket; a ticket collision (ISP Ticket In
 * Use, 0x07C9) is retried with a new one (ISP Busy is not: it is the
 * database's state), and ISP Resource Busy is retried after the other
 * in-flight commands of this call finished (a bounded number of times).
 *
 * Return: 0; -EINVAL for bad options (nothing sent); the drive's -errno:
 * -ENOENT unknown did, -EDOM dimension mismatch, -EBUSY deploying, -EINVAL
 * bad k or field, -EAGAIN result memory full; -EPROTO for a malformed
 * result.
 */
int reis_search(struct reis_dev *dev, const struct reis_search_opts *o,
		const struct reis_queries *q, struct reis_search_result *res);

/**
 * reis_ivf_search() - IVF_Search(Q, Qid, Did, k, R), synchronous.
 * @dev: handle.
 * @o: options (nprobe, or target_recall with nprobe 0).
 * @q: queries.
 * @res: out.
 *
 * Return: as reis_search().
 */
int reis_ivf_search(struct reis_dev *dev, const struct reis_search_opts *o,
		    const struct reis_queries *q, struct reis_search_result *res);

struct reis_search_req;

/**
 * typedef reis_search_cb - completion of an asynchronous search.
 * @sr: the request; sr->err is 0 and sr->res is filled, or sr->err < 0.
 * @arg: its argument.
 *
 * Runs in the reaping thread (reis_wait()/reis_poll()), once. It may
 * submit (also @sr again, after taking sr->res) but not wait.
 */
typedef void (*reis_search_cb)(struct reis_search_req *sr, void *arg);

/**
 * struct reis_search_req - one asynchronous search command and its result
 * transfer: caller memory that must stay put while in flight.
 * @req: the command currently in flight (SEARCH, then RESULT_READs).
 * @res: the result once done (the caller owns it then).
 * @cpl: completion of the failing command when @err < 0.
 * @err: 0 or the -errno of the search.
 * @state: library-private.
 * @ticket: the ticket the drive files the result under.
 * @opcode: REIS_OP_SEARCH or REIS_OP_IVF_SEARCH.
 * @retries: ticket collisions retried.
 * @cb: completion callback.
 * @cb_arg: its argument.
 * @payload: library-private: the command's data.
 * @payload_len: library-private.
 * @blob: library-private: the result as read so far.
 * @blob_len: library-private.
 * @blob_cap: library-private.
 * @total: library-private: the result's length.
 * @submit_ns: library-private.
 * @dev: library-private: the handle it runs on.
 * @msg: a sentence about the failure when @err < 0.
 * @rx: library-private: its run of the results machine.
 */
struct reis_search_req {
	struct reis_req req;
	struct reis_search_result res;
	struct reis_cpl cpl;
	int32_t err;
	uint32_t state;
	uint32_t ticket;
	uint32_t opcode;
	uint32_t retries;
	uint32_t payload_len;
	reis_search_cb cb;
	void *cb_arg;
	uint8_t *payload;
	uint8_t *blob;
	uint64_t blob_len;
	uint64_t blob_cap;
	uint64_t total;
	uint64_t submit_ns;
	struct reis_dev *dev;
	char msg[REIS_MSG_LEN];
	struct reis_rx rx;
};

/**
 * reis_search_submit() - start one search command without waiting.
 * @dev: handle.
 * @sr: request (caller memory, zeroed before its first use; reusable once
 *      done, after taking sr->res).
 * @opcode: REIS_OP_SEARCH or REIS_OP_IVF_SEARCH.
 * @o: options.
 * @q: at most reis_search_max_nq() queries.
 * @cb: called when the result is read (or the search failed); may be NULL.
 * @arg: its argument.
 *
 * The queries are copied. The search, the result reads and the release
 * happen as completions are reaped with reis_wait()/reis_poll() on @dev;
 * one command of @sr is in flight at a time, so many searches can be.
 *
 * Return: 0; -EINVAL for bad options (nothing sent); -EBUSY when the
 * handle's queue is full (reap, then retry); -ENOMEM.
 */
int reis_search_submit(struct reis_dev *dev, struct reis_search_req *sr, uint8_t opcode,
		       const struct reis_search_opts *o, const struct reis_queries *q,
		       reis_search_cb cb, void *arg);

/**
 * reis_search_req_done() - whether @sr has finished (successfully or not).
 * @sr: request.
 *
 * Return: non-zero when done.
 */
int reis_search_req_done(const struct reis_search_req *sr);

/**
 * reis_search_wait() - reap until @sr has finished.
 * @dev: handle.
 * @sr: a submitted request.
 *
 * Return: sr->err.
 */
int reis_search_wait(struct reis_dev *dev, struct reis_search_req *sr);

/**
 * reis_search_result_decode() - decode a search result blob.
 * @blob: the blob (the result header first); must stay alive while @res
 *        is used (documents point into it).
 * @len: bytes.
 * @nq: queries expected.
 * @k: k expected.
 * @res: filled on success (nhits and hits are malloc'd; free with
 *       reis_search_result_free(), which does not free @blob).
 *
 * Every count, offset and length is checked against @len.
 *
 * Return: 0, -EPROTO for a malformed blob, -ENOMEM.
 */
int reis_search_result_decode(const void *blob, uint64_t len, uint32_t nq, uint32_t k,
			      struct reis_search_result *res);

#ifdef __cplusplus
}
#endif

#endif /* LIBREIS_REIS_SEARCH_H */
