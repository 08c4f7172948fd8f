/* SPDX-License-Identifier: MIT */
/*
 * cs_mrs.c - Memory Range Set Management (admin 89h): sets of ranges of
 * the memory namespace that Execute Program hands a program
 * (docs/command-set.md §9.5).
 */
#include <stdlib.h>
#include <string.h>

#include "cs_int.h"

#define CS_MRS_SEL(c) ((c)->cdw10 & 0xfu)
#define CS_MRS_RSID(c) ((uint16_t)((c)->cdw10 >> 16))
#define CS_MRS_NUMR(c) ((c)->cdw11 & 0xffu)

uint16_t cs_check_mrs(struct cs_state *cs, const struct isp_cmd *cmd, uint64_t *len,
		      struct isp_cpl *cpl)
{
	unsigned sel = CS_MRS_SEL(cmd), numr = CS_MRS_NUMR(cmd);

	(void)cs;
	*len = 0;
	if (cmd->cdw10 & 0xfff0u || cmd->cdw11 & ~0xffu || cmd->cdw12 || cmd->cdw13 ||
	    cmd->cdw14 || cmd->cdw15 || cmd->cdw2 || cmd->cdw3) {
		unsigned d = cmd->cdw10 & 0xfff0u ? 10 : cmd->cdw11 & ~0xffu ? 11 :
			     cmd->cdw12 ? 12 : cmd->cdw13 ? 13 : cmd->cdw14 ? 14 :
			     cmd->cdw15 ? 15 : cmd->cdw2 ? 2 : 3;

		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(d), 0, "reserved bits of CDW%u set", d);
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	}
	if (sel == ISP_CS_MRS_CREATE) {
		if (CS_MRS_RSID(cmd)) {
			isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(10) + 2, 0, "RSID = %u: a "
				   "create takes 0, the drive assigns the identifier",
				   CS_MRS_RSID(cmd));
			return isp_fail(cpl, ISP_BAD_FIELD, "create with a non-zero RSID");
		}
		if (!numr) {
			isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(11), 0,
				   "NUMR = 0: 1..%u ranges allowed", CS_MAX_MR);
			return isp_fail(cpl, ISP_BAD_FIELD, "no ranges");
		}
		if (numr > CS_MAX_MR) {
			isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(11), 0,
				   "NUMR = %u: at most %u ranges in a set", numr, CS_MAX_MR);
			return isp_fail(cpl, ISP_SC_MAX_MR | ISP_STATUS_DNR, "too many ranges");
		}
		*len = (uint64_t)numr * sizeof(struct isp_wire_cs_mrd);
		return 0;
	}
	if (sel == ISP_CS_MRS_DELETE) {
		if (numr) {
			isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(11), 0,
				   "NUMR = %u: a delete takes 0", numr);
			return isp_fail(cpl, ISP_BAD_FIELD, "delete with ranges");
		}
		return 0;
	}
	isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(10), 0, "SEL = %u: 0 (create) or 1 "
		   "(delete)", sel);
	return isp_fail(cpl, ISP_BAD_FIELD, "unknown select");
}

/* The ranges of a create: inside the memory namespace, whole granules,
 * no two overlapping. */
static uint16_t cs_mrs_validate(struct cs_state *cs, const struct isp_wire_cs_mrd *r,
				unsigned n, struct isp_cpl *cpl)
{
	const uint64_t gran = 1u << CS_GRAN_LOG2;
	unsigned i, j;

	for (i = 0; i < n; i++) {
		if (!isp_all_zero(r[i].rsvd, sizeof(r[i].rsvd))) {
			isp_err_at(cpl, ISP_ERR_IN_DATA, 32 * i + 16, 0,
				   "range %u: reserved bytes 16..31 must be 0", i);
			return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
		}
		if (r[i].mnsid != cs->slm_nsid) {
			isp_err_at(cpl, ISP_ERR_IN_DATA, 32 * i, 0, "range %u: MNSID %u is not "
				   "the memory namespace (%u)", i, r[i].mnsid, cs->slm_nsid);
			return isp_fail(cpl, ISP_SC_INVALID_MEM_NS | ISP_STATUS_DNR,
					"range names no memory namespace");
		}
		if (!r[i].len || r[i].len % gran || r[i].sb % gran || r[i].sb > cs->slm_bytes ||
		    r[i].len > cs->slm_bytes - r[i].sb) {
			isp_err_at(cpl, ISP_ERR_IN_DATA, 32 * i + (r[i].len % gran || !r[i].len ?
								   4 : 8), 0,
				   "range %u: SB %llu LEN %u: the memory namespace has %llu "
				   "bytes, offsets and lengths in steps of %llu", i,
				   (unsigned long long)r[i].sb, r[i].len,
				   (unsigned long long)cs->slm_bytes, (unsigned long long)gran);
			return isp_fail(cpl, ISP_SC_INVALID_MRS | ISP_STATUS_DNR,
					"range outside the memory namespace");
		}
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (r[i].sb < r[j].sb + r[j].len && r[j].sb < r[i].sb + r[i].len) {
				isp_err_at(cpl, ISP_ERR_IN_DATA, 32 * j + 8, 0,
					   "ranges %u and %u overlap", i, j);
				return isp_fail(cpl, ISP_SC_OVERLAP_MR | ISP_STATUS_DNR,
						"ranges overlap");
			}
	return 0;
}

static int cs_mrs_slot(const struct cs_state *cs, uint16_t rsid)
{
	unsigned i;

	for (i = 0; i < CS_MAX_MRS; i++)
		if (cs->mrs[i] && cs->mrs[i]->rsid == rsid)
			return (int)i;
	return -1;
}

uint16_t cs_cmd_mrs(struct isp_ctx *ctx, const struct isp_cmd *cmd, void *data, size_t len,
		    struct isp_cpl *cpl)
{
	struct cs_state *cs = cs_of(ctx->dev);
	unsigned numr = CS_MRS_NUMR(cmd), i;
	struct cs_mrs *m;
	uint16_t st, rsid;
	int slot;

	if (CS_MRS_SEL(cmd) == ISP_CS_MRS_DELETE) {
		rsid = CS_MRS_RSID(cmd);
		pthread_mutex_lock(&cs->lock);
		slot = rsid ? cs_mrs_slot(cs, rsid) : -1;
		if (slot < 0) {
			st = ISP_SC_INVALID_RSID | ISP_STATUS_DNR;
		} else if (cs->mrs[slot]->users) {
			st = ISP_SC_MRS_IN_USE | ISP_STATUS_DNR;
		} else {
			free(cs->mrs[slot]);
			cs->mrs[slot] = NULL;
			st = 0;
		}
		pthread_mutex_unlock(&cs->lock);
		if (st == (ISP_SC_INVALID_RSID | ISP_STATUS_DNR)) {
			isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(10) + 2, 0,
				   "RSID %u names no memory range set", rsid);
			return isp_fail(cpl, st, "unknown memory range set");
		}
		if (st) {
			isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(10) + 2, 0, "memory range set "
				   "%u is in use by an Execute Program", rsid);
			return isp_fail(cpl, st, "memory range set in use");
		}
		return 0;
	}

	if (len != (size_t)numr * sizeof(struct isp_wire_cs_mrd))
		return isp_fail(cpl, ISP_BAD_FIELD, "buffer size differs from NUMR");
	isp_link_xfer(ctx, len, 0, ctx->ready);
	m = calloc(1, sizeof(*m));
	if (!m)
		return isp_fail(cpl, ISP_SC_INTERNAL, "out of memory");
	memcpy(m->r, data, len);
	m->nr = (uint8_t)numr;
	st = cs_mrs_validate(cs, m->r, numr, cpl);
	if (st) {
		free(m);
		return st;
	}
	pthread_mutex_lock(&cs->lock);
	for (i = 0; i < CS_MAX_MRS && cs->mrs[i]; i++)
		;
	if (i == CS_MAX_MRS) {
		pthread_mutex_unlock(&cs->lock);
		free(m);
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(10), 0, "%u memory range sets exist: "
			   "the most this drive keeps", CS_MAX_MRS);
		return isp_fail(cpl, ISP_SC_MAX_MRS | ISP_STATUS_DNR, "too many range sets");
	}
	/* identifiers 1..65535, the next unused one */
	while (!cs->next_rsid || cs_mrs_slot(cs, cs->next_rsid) >= 0)
		cs->next_rsid++;
	m->rsid = cs->next_rsid++;
	cs->mrs[i] = m;
	pthread_mutex_unlock(&cs->lock);
	cpl->result = m->rsid;		/* DW0 15:0: the identifier created */
	return 0;
}

struct cs_mrs *cs_mrs_get(struct cs_state *cs, uint16_t rsid)
{
	int slot = rsid ? cs_mrs_slot(cs, rsid) : -1;

	if (slot < 0)
		return NULL;
	cs->mrs[slot]->users++;
	return cs->mrs[slot];
}

void cs_mrs_put(struct cs_state *cs, struct cs_mrs *m)
{
	(void)cs;
	if (m)
		m->users--;
}

void cs_mrs_free_all(struct cs_state *cs)
{
	unsigned i;

	for (i = 0; i < CS_MAX_MRS; i++) {
		free(cs->mrs[i]);
		cs->mrs[i] = NULL;
	}
}
