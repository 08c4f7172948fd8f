/* SPDX-License-Identifier: MIT */
/*
 * recflash_priv.h - what the RecFlash files of libreis share. Never installed.
 */
#ifndef RECFLASH_PRIV_H
#define RECFLASH_PRIV_H

#include <stdint.h>

#include "reis_priv.h"

/* Name of an RF_* or result opcode, "?" otherwise. */
const char *reis__rf_op_name(uint8_t opcode);

/*
 * Make @cpl the handle's last completion and write the handle's message:
 * "<OP> table <tid>[ <what>]: <status> (status 0x....[, DNR])".
 * Return: cpl->err.
 */
int reis__rf_cpl_err(struct reis_dev *dev, const struct reis_cpl *cpl, uint8_t opcode,
		     uint32_t tid, const char *what);

/* Test hook (not exported from libreis.so): a non-zero value is the ticket. */
extern uint32_t (*reis__rf_ticket_hook)(void);

/* splitmix64: the deterministic generator behind every workload helper. */
static inline uint64_t reis__rf_mix64(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Uniform double in [0, 1) with 53 random bits. */
static inline double reis__rf_unit(uint64_t *s)
{
	return (double)(reis__rf_mix64(s) >> 11) * (1.0 / 9007199254740992.0);
}

#endif /* RECFLASH_PRIV_H */
