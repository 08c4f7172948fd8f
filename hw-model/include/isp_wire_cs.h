/* SPDX-License-Identifier: MIT */
/*
 * isp_wire_cs.h - the standard computational-storage interface on the wire:
 * the Computational Programs command set (CSI 04h, TP4091) and the Subsystem
 * Local Memory command set (CSI 03h, TP4131) as this drive implements them
 * (docs/command-set.md section 9, which says where each value comes from and
 * what is not implemented). Included by isp_wire.h.
 */
#ifndef ISP_WIRE_CS_H
#define ISP_WIRE_CS_H

#ifndef ISP_WIRE_H
#error "include isp_wire.h"
#endif

/* Command Set Identifiers (NVMe Base 2.1, Figure 311). */
enum isp_csi {
	ISP_CSI_NVM = 0x00,
	ISP_CSI_SLM = 0x03,	/* Subsystem Local Memory: the memory namespace */
	ISP_CSI_CP = 0x04,	/* Computational Programs: the compute namespace */
};

/* Admin opcodes of the CP set (NVMe Base 2.1, Figure 141). */
enum isp_cs_admin_opcode {
	ISP_CS_OP_LOAD_PROGRAM = 0x85,
	ISP_CS_OP_PROGRAM_ACT = 0x88,	/* Program Activation Management */
	ISP_CS_OP_MRS_MGMT = 0x89,	/* Memory Range Set Management */
};

/* I/O opcodes: CP namespace (CSI 04h) and SLM namespace (CSI 03h). */
enum isp_cs_io_opcode {
	ISP_CS_OP_EXECUTE = 0x01,	/* CP: Execute Program */
	ISP_CS_OP_MEM_COPY = 0x01,	/* SLM: Memory Copy */
	ISP_CS_OP_MEM_READ = 0x02,
	ISP_CS_OP_MEM_FILL = 0x04,
	ISP_CS_OP_MEM_WRITE = 0x05,
};

/*
 * Command specific status values (SCT 1h) the two sets use (NVMe Base 2.1,
 * Figure 104), as the status field: SC | SCT << 8.
 */
enum isp_cs_status {
	ISP_SC_CMD_SIZE_LIMIT = 0x0183,		/* Command Size Limit Exceeded */
	ISP_SC_OVERLAP_IO = 0x0187,		/* Overlapping I/O Range */
	ISP_SC_INSUFF_RES = 0x0189,		/* Insufficient Resources */
	ISP_SC_INSUFF_PROG_RES = 0x018a,	/* Insufficient Program Resources */
	ISP_SC_INVALID_MEM_NS = 0x018b,		/* Invalid Memory Namespace */
	ISP_SC_INVALID_MRS = 0x018c,		/* Invalid Memory Range Set */
	ISP_SC_INVALID_RSID = 0x018d,		/* Invalid Memory Range Set Identifier */
	ISP_SC_INVALID_PROG_DATA = 0x018e,	/* Invalid Program Data */
	ISP_SC_INVALID_PIND = 0x018f,		/* Invalid Program Index */
	ISP_SC_INVALID_PTYPE = 0x0190,		/* Invalid Program Type */
	ISP_SC_MAX_MR = 0x0191,			/* Maximum Memory Ranges Exceeded */
	ISP_SC_MAX_MRS = 0x0192,		/* Maximum Memory Range Sets Exceeded */
	ISP_SC_MAX_ACTIVE = 0x0193,		/* Maximum Programs Activated */
	ISP_SC_MAX_PROG_BYTES = 0x0194,		/* Maximum Program Bytes Exceeded */
	ISP_SC_MRS_IN_USE = 0x0195,		/* Memory Range Set In Use */
	ISP_SC_NO_PROGRAM = 0x0196,		/* No Program */
	ISP_SC_OVERLAP_MR = 0x0197,		/* Overlapping Memory Ranges */
	ISP_SC_PROG_NOT_ACTIVE = 0x0198,	/* Program Not Activated */
	ISP_SC_PROG_IN_USE = 0x0199,		/* Program In Use */
	ISP_SC_PIND_NOT_DL = 0x019a,		/* Program Index Not Downloadable */
	ISP_SC_PROG_TOO_BIG = 0x019b,		/* Program Too Big */
};

/* Load Program CDW10 (PIND 15:0, PTYPE 23:16, SEL bit 24, PIT 27:25). */
#define ISP_CS_LP_SEL_UNLOAD (1u << 24)
/* Program Activation Management CDW10 SEL (bits 19:16). */
enum isp_cs_act_sel {
	ISP_CS_ACT_DEACTIVATE = 0,
	ISP_CS_ACT_ACTIVATE = 1,
};
/* Memory Range Set Management CDW10 SEL (bits 3:0). */
enum isp_cs_mrs_sel {
	ISP_CS_MRS_CREATE = 0,
	ISP_CS_MRS_DELETE = 1,
};

/* Memory Copy CDW12: NR 7:0 (0's based), DESFMT 11:8. */
enum isp_cs_desfmt {
	ISP_CS_DESFMT_LBA = 0x2,	/* source: LBAs of an NVM namespace */
	ISP_CS_DESFMT_MEM = 0x4,	/* source: bytes of the memory namespace */
	ISP_CS_DESFMT_DB = 0xf,		/* vendor: a database's flash region */
};

/* The device-defined programs of the compute namespace (Program Index). */
enum isp_cs_prog {
	ISP_CS_PROG_REIS_SEARCH = 0,	/* REIS_SEARCH over memory ranges */
	ISP_CS_PROG_REIS_IVF = 1,	/* REIS_IVF_SEARCH */
	ISP_CS_PROG_RF_SLS = 2,		/* RF_SLS */
	ISP_CS_PROG_REIS_DOCS = 3,	/* document chunks of a hit list */
	ISP_CS_PROG_MANAGE = 4,		/* deploy, list, info, delete, stats ... */
	ISP_CS_NPROGS = 5,
};

/* Program Descriptor flags (byte 0). */
#define ISP_CS_PEOCC_DEVICE 2u		/* bits 1:0: occupied, device-defined */
#define ISP_CS_PD_ACT (1u << 2)		/* activated */
#define ISP_CS_PIT_PUID (1u << 3)	/* bits 5:3 = 1: PID is a PUID */

/* Vendor log page: the program table (one descriptor per PIND). */
#define ISP_LID_CS_PROGRAMS 0xc3

/* Memory Range Descriptor: one range of a Memory Range Set Management data. */
struct isp_wire_cs_mrd {
	uint32_t mnsid;			/* memory namespace */
	uint32_t len;			/* bytes */
	uint64_t sb;			/* starting byte in the namespace */
	uint8_t rsvd[16];
};
_Static_assert(sizeof(struct isp_wire_cs_mrd) == 32, "wire size");

/* Memory Copy source range, descriptor format 2h: LBAs of an NVM namespace. */
struct isp_wire_cs_src_lba {
	uint32_t snsid;
	uint32_t rsvd0;
	uint64_t slba;
	uint16_t nlb;			/* 0's based */
	uint8_t rsvd1[4];
	uint16_t sopt;			/* Source Options: must be 0 */
	uint8_t rsvd2[8];
};
_Static_assert(sizeof(struct isp_wire_cs_src_lba) == 32, "wire size");

/* Descriptor format 4h: bytes of a memory namespace. */
struct isp_wire_cs_src_mem {
	uint32_t snsid;
	uint32_t rsvd0;
	uint64_t saddr;
	uint32_t nbyte;
	uint16_t rsvd1;
	uint16_t sopt;			/* must be 0 (no fast copy) */
	uint8_t rsvd2[8];
};
_Static_assert(sizeof(struct isp_wire_cs_src_mem) == 32, "wire size");

/* REIS flash regions a format Fh descriptor names. */
enum isp_cs_db_region {
	ISP_CS_REGION_SLC = 0,		/* binary codes, centroids (REIS 4.1.2) */
	ISP_CS_REGION_TLC = 1,		/* INT8 codes, documents, META */
};

/* Vendor descriptor format Fh: bytes of a REIS database's flash region. */
struct isp_wire_cs_src_db {
	uint32_t did;
	uint32_t region;		/* enum isp_cs_db_region */
	uint64_t offset;		/* byte in the region's pages, in page order */
	uint32_t nbyte;
	uint8_t rsvd[12];
};
_Static_assert(sizeof(struct isp_wire_cs_src_db) == 32, "wire size");

/* Program Descriptor, log page C3h. */
struct isp_wire_cs_prog {
	uint8_t flags;			/* PEOCC, ACT, PIT */
	uint8_t ptype;			/* program type: 0, device-defined */
	uint8_t rsvd0[6];
	uint64_t puid;			/* program unique identifier */
	char name[32];			/* vendor: NUL-padded ASCII */
	uint16_t nranges;		/* vendor: memory ranges the program uses */
	uint16_t rsvd1;
	uint32_t in_hdr;		/* vendor: bytes of the input's header */
	uint64_t execs;			/* vendor: Execute Program commands run */
};
_Static_assert(sizeof(struct isp_wire_cs_prog) == 64, "wire size");

/* Identify, CNS 05h CSI 04h: the compute namespace. */
struct isp_wire_cs_id_ns_cp {
	uint16_t maxact;		/* programs that may be active at once */
	uint16_t maxmemrs;		/* memory range sets */
	uint16_t mrsg;			/* range granularity, log2 bytes */
	uint8_t maxmemr;		/* ranges in one set */
	uint8_t rsvd7;
	uint64_t maxpb;			/* MiB of downloadable programs: 0 */
	uint8_t lpg;			/* load program granularity: 0 */
	uint8_t rsvd17[3055];
	/* 3072: vendor specific */
	uint32_t nprogs;		/* device-defined programs, PIND 0..nprogs-1 */
	uint32_t slm_nsid;		/* the memory namespace the programs reach */
	uint32_t max_param;		/* bytes of Execute Program parameter data */
	uint32_t rsvd3084;
	uint8_t rsvd[1008];
};
_Static_assert(sizeof(struct isp_wire_cs_id_ns_cp) == 4096, "wire size");

/* Identify, CNS 05h CSI 03h: the memory namespace. */
struct isp_wire_cs_id_ns_slm {
	uint64_t msz;			/* bytes of memory */
	uint64_t muse;			/* bytes backed (written at least once) */
	uint32_t msrc;			/* Memory Copy: source ranges, 0's based */
	uint32_t mssrl;			/* Memory Copy: bytes of one source range */
	uint64_t mcl;			/* Memory Copy: bytes of one command */
	uint16_t desfmts;		/* bit n: copy descriptor format n */
	uint8_t gran;			/* read/write/fill/copy granularity, log2 */
	uint8_t rsvd35[3037];
	/* 3072: vendor specific */
	uint32_t nvm_nsid;		/* the NVM namespace of format 2h */
	uint32_t cp_nsid;		/* the compute namespace */
	uint32_t max_rw;		/* bytes of one Memory Read / Write */
	uint32_t rsvd3084;
	uint8_t rsvd[1008];
};
_Static_assert(sizeof(struct isp_wire_cs_id_ns_slm) == 4096, "wire size");

/*
 * ISP_CS_PROG_MANAGE input: this header, then in_len bytes of the vendor
 * command's H2C data. The command's C2H data (out_len bytes) go to the
 * output range.
 */
struct isp_wire_cs_manage {
	uint8_t opcode;			/* the vendor opcode */
	uint8_t rsvd0[3];
	uint32_t cdw10, cdw11;		/* NDT (the data length / 4), NDM (0) */
	uint32_t cdw12, cdw13, cdw14, cdw15;
	uint32_t in_len;		/* H2C bytes after this header */
	uint32_t out_len;		/* C2H bytes wanted */
	uint32_t nsid;			/* the vendor command's NSID: the NVM namespace */
};
_Static_assert(sizeof(struct isp_wire_cs_manage) == 40, "wire size");

/* ISP_CS_PROG_REIS_DOCS input: entries of a hit list. */
struct isp_wire_cs_doc_ref {
	uint32_t did;
	uint32_t entry;
};
_Static_assert(sizeof(struct isp_wire_cs_doc_ref) == 8, "wire size");

/* ISP_CS_PROG_REIS_DOCS output: this header, then per entry u32 length and
 * the document, padded to whole dwords. */
struct isp_wire_cs_docs_hdr {
	uint32_t count;
	uint32_t rsvd0;
	uint64_t bytes;			/* output bytes, this header included */
};
_Static_assert(sizeof(struct isp_wire_cs_docs_hdr) == 16, "wire size");

#define ISP_CS_DOCS_MAX 1024u		/* entries of one docs program run */

#endif /* ISP_WIRE_CS_H */
