/* SPDX-License-Identifier: MIT */
/*
 * isp_wire_reis.h - REIS commands on the wire (docs/command-set.md
 * section 4). Included by isp_wire.h; do not include directly.
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
	ISP_OP_REIS_DB_DELETE = 0x9c,	/* none */
	ISP_OP_REIS_IVF_SEARCH = 0x9d,	/* H2C: IVF_Search(Q, Qid, Did, k, R) */
	ISP_OP_REIS_DOC_READ = 0xa6,	/* C2H */
};

#endif /* ISP_WIRE_REIS_H */
