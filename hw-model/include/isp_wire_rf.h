/* SPDX-License-Identifier: MIT */
/*
 * isp_wire_rf.h - RecFlash commands on the wire (docs/command-set.md
 * section 5). Included by isp_wire.h; do not include directly.
 */
#ifndef ISP_WIRE_RF_H
#define ISP_WIRE_RF_H

#include <stdint.h>

/* Opcodes B0h-CFh. */
enum isp_rf_opcode {
	ISP_OP_RF_TBL_CREATE = 0xb1,	/* H2C */
	ISP_OP_RF_TBL_LIST = 0xb2,	/* C2H */
	ISP_OP_RF_TBL_WRITE = 0xb5,	/* H2C: one chunk of one section */
	ISP_OP_RF_TBL_STATS = 0xb6,	/* C2H */
	ISP_OP_RF_TBL_COMMIT = 0xb8,	/* none */
	ISP_OP_RF_SLS = 0xb9,		/* H2C: a batch of bags */
	ISP_OP_RF_TBL_DELETE = 0xbc,	/* none */
	ISP_OP_RF_PROFILE = 0xbd,	/* H2C: access profile / trigger config */
	ISP_OP_RF_REMAP = 0xc0,		/* none: start/run a remap */
	ISP_OP_RF_SWITCH = 0xc4,	/* none: activate the new mapping */
};

#endif /* ISP_WIRE_RF_H */
