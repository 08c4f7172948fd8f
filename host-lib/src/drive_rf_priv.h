/* SPDX-License-Identifier: MIT */
/*
 * drive_rf_priv.h - what the RecFlash files of libreis share. Never installed.
 */
#ifndef DRIVE_RF_PRIV_H
#define DRIVE_RF_PRIV_H

#include <stdint.h>

#include "core_mix.h"
#include "core_priv.h"

/* Name of an RF_* or result opcode, "?" otherwise. */
const char *reis__rf_op_name(uint8_t opcode);

/*
 * Make @cpl the handle's last completion and write the handle's message:
 * "<OP> table <tid>[ <what>]: <status> (status 0x....[, DNR])", with the
 * drive's reason and error log entry when @req (the failed request, or
 * NULL) has them (reis__req_errmsg_obj()).
 * Return: cpl->err.
 */
int reis__rf_cpl_err(struct reis_dev *dev, const struct reis_req *req,
		     const struct reis_cpl *cpl, uint8_t opcode, uint32_t tid, const char *what);

#endif /* DRIVE_RF_PRIV_H */
