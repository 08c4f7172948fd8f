/* SPDX-License-Identifier: MIT */
/*
 * libreis/libreis_reis_defs.h - REIS wire values, limits and flags
 * (docs/command-set.md §4), pinned to the drive's values inside the library.
 * Included by libreis.h; conventions are libreis.h's (docs/libreis.md).
 */
#ifndef LIBREIS_REIS_DEFS_H
#define LIBREIS_REIS_DEFS_H

#ifndef LIBREIS_H
#error "include <libreis.h>, not <libreis/libreis_reis_defs.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * enum reis_db_opcode - REIS and result opcodes.
 * @REIS_OP_TRACE_ARM: ISP_TRACE_ARM, no data.
 * @REIS_OP_DB_CREATE: REIS_DB_CREATE, H2C 160 bytes.
 * @REIS_OP_DB_LIST: REIS_DB_LIST, C2H.
 * @REIS_OP_DB_WRITE: REIS_DB_WRITE, H2C one chunk of one section.
 * @REIS_OP_DB_INFO: REIS_DB_INFO, C2H 320 bytes.
 * @REIS_OP_DB_COMMIT: REIS_DB_COMMIT, no data.
 * @REIS_OP_SEARCH: REIS_SEARCH (brute force), H2C.
 * @REIS_OP_META_READ: REIS_META_READ, C2H bytes of a database's META section.
 * @REIS_OP_DB_DELETE: REIS_DB_DELETE, no data.
 * @REIS_OP_IVF_SEARCH: REIS_IVF_SEARCH, H2C.
 * @REIS_OP_DOC_READ: REIS_DOC_READ, C2H.
 *
 * The shared result opcodes (A2h RESULT_READ, A4h RESULT_RELEASE) are
 * reis_result_read() and reis_result_release() here.
 */
enum reis_db_opcode {
	REIS_OP_TRACE_ARM = 0x8c,
	REIS_OP_DB_CREATE = 0x91,
	REIS_OP_DB_LIST = 0x92,
	REIS_OP_DB_WRITE = 0x95,
	REIS_OP_DB_INFO = 0x96,
	REIS_OP_DB_COMMIT = 0x98,
	REIS_OP_SEARCH = 0x99,
	REIS_OP_META_READ = 0x9a,
	REIS_OP_DB_DELETE = 0x9c,
	REIS_OP_IVF_SEARCH = 0x9d,
	REIS_OP_DOC_READ = 0xa6,
};

/* Limits the drive checks every command against. */
#define REIS_DB_MIN_DIM 64u		/* a multiple of 64 */
#define REIS_DB_MAX_DIM 8192u
#define REIS_DB_MAX_NLIST 1048576u
#define REIS_DB_MAX_CALIB 256u
#define REIS_MAX_NQ 1024u		/* queries per SEARCH command */
#define REIS_MAX_K 1024u
#define REIS_MAX_RERANK 64u		/* rerank factor; 0 means 10 */
#define REIS_DEFAULT_RERANK 10u		/* REIS 4.3.2: 10 * k candidates */
#define REIS_DB_NAME_LEN 32u
#define REIS_DB_MAX_META (1u << 20)	/* META section bytes */
#define REIS_HIT_NONE UINT64_MAX	/* hit padding: fewer than k hits */

/**
 * enum reis_db_kind - REIS Table 1: DB_Deploy or IVF_Deploy.
 * @REIS_DB_BF: brute force.
 * @REIS_DB_IVF: inverted file (clusters, centroids, calibration).
 */
enum reis_db_kind {
	REIS_DB_BF = 1,
	REIS_DB_IVF = 2,
};

/**
 * enum reis_metric - what the drive's INT8 rerank score is.
 * @REIS_METRIC_IP: sum q[d]*x[d] over the INT8 codes; higher is better.
 * @REIS_METRIC_L2: sum (q[d]-x[d])^2 over the INT8 codes; lower is better.
 */
enum reis_metric {
	REIS_METRIC_IP = 0,
	REIS_METRIC_L2 = 1,
};

/**
 * enum reis_doc_mode - where a document chunk lives (REIS 4.1.1).
 * @REIS_DOC_NONE: no documents.
 * @REIS_DOC_SUBPAGE: one sub-page per document.
 * @REIS_DOC_PAGE: one page per document.
 */
enum reis_doc_mode {
	REIS_DOC_NONE = 0,
	REIS_DOC_SUBPAGE = 1,
	REIS_DOC_PAGE = 2,
};

/* Database flags (struct reis_db_image.flags, struct reis_db_info.flags). */
#define REIS_DBF_INT8 (1u << 0)		/* INT8 codes: rerank possible */
#define REIS_DBF_TAGS (1u << 1)		/* a u32 tag per entry (REIS 7.1) */
#define REIS_DBF_IDS (1u << 2)		/* a u64 caller id per entry */

/* Search flags (struct reis_search_opts.flags). */
#define REIS_SF_NO_DF (1u << 0)		/* distance filtering off (REIS Fig. 9) */
#define REIS_SF_NO_PL (1u << 1)		/* pipelining off */
#define REIS_SF_NO_MPIBC (1u << 2)	/* multi-plane input broadcast off */
#define REIS_SF_NO_RERANK (1u << 3)	/* binary distances only */
#define REIS_SF_TAG (1u << 4)		/* only entries whose tag == tag */
#define REIS_SF_GROUP (1u << 5)		/* did names a time-partition group */
#define REIS_SF_DOCS (1u << 6)		/* the result carries the documents */
/* every entry searched is reranked: the exact top-k by INT8 score (not the
 * paper's factor*k candidates by Hamming distance, REIS 4.3.2) */
#define REIS_SF_RERANK_ALL (1u << 7)
#define REIS_SF_ALL 0xffu

/**
 * enum reis_db_section - DB_WRITE sections, each streamed in order.
 * @REIS_SEC_BIN: n * dim/8 sign-bit codes, entry order.
 * @REIS_SEC_INT8: n * dim INT8 codes (REIS_DBF_INT8).
 * @REIS_SEC_DOCS: n records {u32 length, bytes}, entry order.
 * @REIS_SEC_TAGS: n u32 tags (REIS_DBF_TAGS).
 * @REIS_SEC_IDS: n u64 caller ids (REIS_DBF_IDS).
 * @REIS_SEC_CENTROIDS: nlist * dim/8 binary centroids (IVF).
 * @REIS_SEC_CLUSTERS: nlist u32 cluster sizes (IVF), summing to n.
 * @REIS_SEC_CALIB: ncalib struct reis_calib (IVF).
 * @REIS_SEC_META: host metadata (libreis writes the quantizer there, see
 *                 reis_db_quantizer()); read back with REIS_META_READ.
 * @REIS_NSECTIONS: one past the last section.
 */
enum reis_db_section {
	REIS_SEC_BIN = 1,
	REIS_SEC_INT8 = 2,
	REIS_SEC_DOCS = 3,
	REIS_SEC_TAGS = 4,
	REIS_SEC_IDS = 5,
	REIS_SEC_CENTROIDS = 6,
	REIS_SEC_CLUSTERS = 7,
	REIS_SEC_CALIB = 8,
	REIS_SEC_META = 9,
	REIS_NSECTIONS = 10,
};

/**
 * struct reis_calib - one recall -> nprobe calibration point.
 * @recall: recall@k reached, in 1/10000; strictly ascending in a table.
 * @nprobe: clusters probed; strictly ascending in a table.
 *
 * Same layout as the wire's struct isp_wire_reis_calib.
 */
struct reis_calib {
	uint32_t recall;
	uint32_t nprobe;
};

/* struct reis_recall_est.mode: how a search ranks (docs/reis.md §1). */
#define REIS_EST_APPROX 1u	/* factor*k nearest by Hamming, INT8 rerank (REIS 4.3.2) */
#define REIS_EST_BINARY 2u	/* Hamming distance only (REIS_SF_NO_RERANK) */
#define REIS_EST_EXACT 3u	/* every entry reranked (REIS_SF_RERANK_ALL) */

/**
 * struct reis_recall_est - the recall a search mode reached on held-out
 * queries when the database was built (stored in its META section).
 * @mode: REIS_EST_*.
 * @k: recall@k measured, and the search's k.
 * @factor: rerank factor (REIS_EST_APPROX), else 0.
 * @nprobe: IVF clusters probed; 0: every entry (SEARCH).
 * @recall: mean recall@k against the exact float neighbours, in 1/10000.
 * @nq: held-out queries measured.
 * @self: 1: the queries were rows of the database, each left out of its
 *        own neighbours and hits; 0: separate queries (--calib).
 * @rsvd: 0.
 */
struct reis_recall_est {
	uint32_t mode;
	uint32_t k;
	uint32_t factor;
	uint32_t nprobe;
	uint32_t recall;
	uint32_t nq;
	uint32_t self;
	uint32_t rsvd;
};

/* Recall estimates a database carries at most. */
#define REIS_MAX_RECALL_EST 16u

#ifdef __cplusplus
}
#endif

#endif /* LIBREIS_REIS_DEFS_H */
