/* SPDX-License-Identifier: MIT */
/*
 * isp_wire_reis.h - REIS commands on the wire (docs/command-set.md
 * section 4). Included by isp_wire.h; do not include directly.
 *
 * A database (REIS Table 1: DB_Deploy / IVF_Deploy) is created with a fixed
 * header, filled section by section with DB_WRITE (each section streamed in
 * order from offset 0, in chunks under max_xfer), and becomes searchable only
 * at DB_COMMIT. Its optional META section (host metadata such as the
 * quantizer) is read back with META_READ. SEARCH / IVF_SEARCH take a batch of queries under a ticket;
 * the host then reads the hits (and documents) with RESULT_READ.
 */
#ifndef ISP_WIRE_REIS_H
#define ISP_WIRE_REIS_H

#include <stdint.h>

/* Opcodes 90h-AFh (A2h/A4h are the shared result commands). */
enum isp_reis_opcode {
	ISP_OP_REIS_DB_CREATE = 0x91,	/* H2C: DB_Deploy / IVF_Deploy header */
	ISP_OP_REIS_DB_LIST = 0x92,	/* C2H */
	ISP_OP_REIS_DB_WRITE = 0x95,	/* H2C: one chunk of one section */
	ISP_OP_REIS_DB_INFO = 0x96,	/* C2H */
	ISP_OP_REIS_DB_COMMIT = 0x98,	/* none */
	ISP_OP_REIS_SEARCH = 0x99,	/* H2C: Search(Q, Qid, Did, k) */
	ISP_OP_REIS_META_READ = 0x9a,	/* C2H: bytes of the META section */
	ISP_OP_REIS_DB_DELETE = 0x9c,	/* none */
	ISP_OP_REIS_IVF_SEARCH = 0x9d,	/* H2C: IVF_Search(Q, Qid, Did, k, R) */
	ISP_OP_REIS_DOC_READ = 0xa6,	/* C2H */
};

/* Limits every command is checked against. */
#define ISP_REIS_MIN_DIM 64		/* dimensions; a multiple of 64 (64-bit Hamming words) */
#define ISP_REIS_MAX_DIM 8192
#define ISP_REIS_MAX_N 0xffffffffull	/* embeddings per database */
#define ISP_REIS_MAX_NLIST 1048576	/* IVF clusters */
#define ISP_REIS_MAX_CALIB 256
#define ISP_REIS_MAX_NQ 1024		/* queries per SEARCH */
#define ISP_REIS_MAX_K 1024
#define ISP_REIS_MAX_RERANK 64		/* candidates = factor * k (REIS: 10) */
#define ISP_REIS_NAME_LEN 32
#define ISP_REIS_MAX_META (1u << 20)	/* META section bytes (host metadata) */

enum isp_reis_kind {
	ISP_REIS_BF = 1,	/* brute force (DB_Deploy) */
	ISP_REIS_IVF = 2,	/* inverted file (IVF_Deploy) */
};

/* Where a document chunk lives (REIS 4.1.1). */
enum isp_reis_doc_mode {
	ISP_REIS_DOC_NONE = 0,
	ISP_REIS_DOC_SUBPAGE = 1,	/* one sub-page (subpage_bytes) per chunk */
	ISP_REIS_DOC_PAGE = 2,		/* one page per chunk */
};

/* INT8 rerank score (REIS 4.3.2): documented exactly in command-set.md. */
enum isp_reis_metric {
	ISP_REIS_IP = 0,	/* sum q[d] * x[d]; higher is better */
	ISP_REIS_L2 = 1,	/* sum (q[d] - x[d])^2; lower is better */
};

/* isp_wire_reis_create.flags */
#define ISP_REIS_DBF_INT8 (1u << 0)	/* INT8 section present: rerank possible */
#define ISP_REIS_DBF_TAGS (1u << 1)	/* TAGS section: metadata tag per entry (7.1) */
#define ISP_REIS_DBF_IDS (1u << 2)	/* IDS section: caller ids, else the index */

/* DB_CREATE data (CDW12-15 reserved). */
struct isp_wire_reis_create {
	uint32_t did;			/* non-zero, unused */
	uint32_t kind;			/* enum isp_reis_kind */
	uint32_t flags;			/* ISP_REIS_DBF_* */
	uint32_t dim;			/* dimensions = bits of a binary code */
	uint64_t n;			/* embeddings, 1..ISP_REIS_MAX_N */
	uint32_t nlist;			/* IVF clusters; 0 for BF */
	uint32_t ncalib;		/* IVF calibration entries (0..MAX_CALIB) */
	uint32_t doc_mode;		/* enum isp_reis_doc_mode */
	uint32_t metric;		/* enum isp_reis_metric */
	uint32_t df_threshold;		/* default DF threshold (Hamming); 0: none */
	uint32_t group;			/* time-partition group (7.1); 0: none */
	uint64_t docs_bytes;		/* length of the DOCS section stream */
	uint64_t timestamp;		/* partition time (7.1), caller's unit */
	char name[ISP_REIS_NAME_LEN];	/* NUL-padded label */
	uint32_t meta_bytes;		/* META section, 0..ISP_REIS_MAX_META */
	uint8_t rsvd[60];
};
_Static_assert(sizeof(struct isp_wire_reis_create) == 160, "wire size");

/*
 * DB_WRITE sections (CDW13). Each is streamed in order from offset 0 with
 * CDW14-15 the byte offset, which must equal the bytes already received for
 * that section; a section must not exceed its size (the last chunk may carry
 * up to 3 bytes of dword padding). With DBF_TAGS, BIN bytes of entry i are
 * accepted only after tag i: send TAGS before BIN. Sizes:
 */
enum isp_reis_section {
	ISP_REIS_SEC_BIN = 1,		/* n * dim/8: sign-bit codes, entry order */
	ISP_REIS_SEC_INT8 = 2,		/* n * dim: int8 codes (DBF_INT8) */
	ISP_REIS_SEC_DOCS = 3,		/* docs_bytes: n records {u32 len, bytes} */
	ISP_REIS_SEC_TAGS = 4,		/* n * 4: u32 tag per entry (DBF_TAGS) */
	ISP_REIS_SEC_IDS = 5,		/* n * 8: u64 caller id per entry (DBF_IDS) */
	ISP_REIS_SEC_CENTROIDS = 6,	/* nlist * dim/8: binary centroids (IVF) */
	ISP_REIS_SEC_CLUSTERS = 7,	/* nlist * 4: u32 cluster sizes (IVF); entries
					 * are ordered by cluster, sizes sum to n */
	ISP_REIS_SEC_CALIB = 8,		/* ncalib * 8: struct isp_wire_reis_calib */
	ISP_REIS_SEC_META = 9,		/* meta_bytes: opaque host metadata, stored
					 * in TLC and read back with META_READ */
	ISP_REIS_NSECTIONS = 10,
};

/* Recall -> nprobe calibration (IVF_SEARCH with a target recall R). */
struct isp_wire_reis_calib {
	uint32_t recall;		/* recall@k reached, in 1/10000; ascending */
	uint32_t nprobe;		/* clusters probed; ascending */
};
_Static_assert(sizeof(struct isp_wire_reis_calib) == 8, "wire size");

/* SEARCH / IVF_SEARCH flags. */
#define ISP_REIS_SF_NO_DF (1u << 0)	/* distance filtering off (Fig. 9) */
#define ISP_REIS_SF_NO_PL (1u << 1)	/* pipelining off */
#define ISP_REIS_SF_NO_MPIBC (1u << 2)	/* multi-plane IBC off */
#define ISP_REIS_SF_NO_RERANK (1u << 3)	/* binary distances only */
#define ISP_REIS_SF_TAG (1u << 4)	/* only entries whose tag == tag */
#define ISP_REIS_SF_GROUP (1u << 5)	/* did is a group; t_min..t_max */
#define ISP_REIS_SF_DOCS (1u << 6)	/* the result carries the documents */
#define ISP_REIS_SF_RERANK_ALL (1u << 7)	/* every entry is a rerank candidate */
#define ISP_REIS_SF_ALL 0xffu

/*
 * SEARCH / IVF_SEARCH data (CDW12 = ticket): this header, then nq binary
 * queries (dim/8 bytes each), then, unless NO_RERANK, nq int8 queries (dim
 * bytes each). The drive completes when the result is ready (the paper's
 * "done" signal); the host reads it with RESULT_READ.
 */
struct isp_wire_reis_search {
	uint32_t did;			/* database, or group with SF_GROUP */
	uint32_t nq;			/* 1..ISP_REIS_MAX_NQ */
	uint32_t k;			/* 1..ISP_REIS_MAX_K */
	uint32_t flags;			/* ISP_REIS_SF_* */
	uint32_t rerank_factor;		/* candidates = factor * k; 0: 10 */
	uint32_t df_threshold;		/* 0: the database's */
	uint32_t nprobe;		/* IVF: clusters to probe; 0: from recall */
	uint32_t target_recall;		/* IVF: R in 1/10000 when nprobe = 0 */
	uint32_t tag;			/* with SF_TAG */
	uint32_t dim;			/* must equal the database's */
	uint64_t t_min;			/* with SF_GROUP: partitions whose */
	uint64_t t_max;			/* timestamp is in [t_min, t_max] */
	uint8_t rsvd[16];
};
_Static_assert(sizeof(struct isp_wire_reis_search) == 72, "wire size");

/*
 * Search result (kind ISP_RESULT_SEARCH): struct isp_wire_result_hdr, this
 * header, nq * k hits (query-major, best first), then the documents when
 * SF_DOCS was set.
 */
struct isp_wire_reis_result {
	uint32_t nq;
	uint32_t k;
	uint32_t flags;			/* the search's flags */
	uint32_t ndbs;			/* databases searched (groups) */
	uint64_t pages_read;		/* embedding + centroid pages sensed */
	uint64_t entries_compared;	/* distances computed in the dies */
	uint64_t entries_passed;	/* TTL entries that crossed the channel */
	uint64_t reranked;		/* INT8 candidates rescored */
	uint32_t nprobe;		/* IVF: clusters probed per query */
	uint32_t rsvd0;
	uint64_t docs_bytes;		/* documents section length (0: none) */
	uint8_t rsvd[8];
};
_Static_assert(sizeof(struct isp_wire_reis_result) == 72, "wire size");

#define ISP_REIS_HIT_NONE UINT64_MAX	/* fewer than k hits: padding */

struct isp_wire_reis_hit {
	uint64_t id;			/* caller id (DBF_IDS) or entry index */
	uint32_t did;			/* database of the hit */
	uint32_t hamming;		/* binary distance to the query */
	int64_t score;			/* INT8 rerank score (0 with NO_RERANK) */
	uint32_t doc_len;		/* bytes of its document (0: none) */
	uint32_t entry;			/* entry index in database did (DOC_READ's) */
	uint64_t doc_off;		/* its document's offset in the blob */
};
_Static_assert(sizeof(struct isp_wire_reis_hit) == 40, "wire size");

/* Database state in DB_INFO / DB_LIST. */
enum isp_reis_state {
	ISP_REIS_DEPLOYING = 1,		/* created, receiving sections */
	ISP_REIS_READY = 2,		/* committed, searchable */
};

/* DB_INFO (CDW12 = did) returns one; DB_LIST returns an array. */
struct isp_wire_reis_dbinfo {
	struct isp_wire_reis_create create;	/* as deployed */
	uint32_t state;			/* enum isp_reis_state */
	uint32_t epb;			/* embeddings per SLC page */
	uint64_t received[ISP_REIS_NSECTIONS];	/* bytes per section so far */
	uint64_t pages[4];		/* bin, centroid, int8, doc pages used */
	uint64_t dram_bytes;		/* R-DB + R-IVF + calibration in DRAM */
	uint64_t searches;		/* queries answered */
	uint32_t calib_best_recall;	/* largest calibrated recall, 1/10000; 0: none */
	uint32_t calib_best_nprobe;	/* its nprobe */
	uint8_t rsvd[16];
};
_Static_assert(sizeof(struct isp_wire_reis_dbinfo) == 320, "wire size");

/*
 * DB_LIST (C2H, CDW12 = first index): this header then up to count entries
 * that fit in the transfer.
 */
struct isp_wire_reis_list {
	uint32_t total;			/* databases on the drive */
	uint32_t count;			/* entries that follow */
	uint8_t rsvd[8];
};
_Static_assert(sizeof(struct isp_wire_reis_list) == 16, "wire size");

#endif /* ISP_WIRE_REIS_H */
