/* SPDX-License-Identifier: MIT */
/*
 * cs_dev.c - the standard interface's place in the device: its namespaces,
 * open/close, the decode and dispatch of the CP and SLM commands, the
 * Identify structures, the Commands Supported and Effects entries, the
 * statistics and the program table log page (docs/command-set.md §9).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_int.h"

struct cs_state *cs_of(struct isp_dev *dev)
{
	return isp_dev_cs(dev);
}


int cs_open(struct isp_dev *dev, const struct isp_dev_config *cfg, struct cs_state **out,
	    char *err, size_t errlen)
{
	const struct fp_params *p = isp_dev_params(dev);
	struct cs_state *cs;
	uint32_t slm, cp, nvm;
	int ret;

	*out = NULL;
	if (cfg->cs_off)
		return 0;
	slm = cfg->slm_nsid ? cfg->slm_nsid : 2;
	cp = cfg->cp_nsid ? cfg->cp_nsid : 3;
	nvm = cfg->nvm_nsid ? cfg->nvm_nsid : 1;
	if (slm == cp || slm == nvm || cp == nvm || slm == UINT32_MAX || cp == UINT32_MAX) {
		snprintf(err, errlen, "namespace ids memory %u, compute %u and NVM %u must "
			 "differ and not be 0xffffffff", slm, cp, nvm);
		return -EINVAL;
	}
	cs = calloc(1, sizeof(*cs));
	if (!cs) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	cs->dev = dev;
	cs->p = p;
	cs->ft = isp_dev_timing(dev);
	cs->fs = isp_dev_store(dev);
	cs->slm_nsid = slm;
	cs->cp_nsid = cp;
	cs->nvm_nsid = nvm;
	/* The memory lives in controller DRAM: never more than its budget
	 * (docs/command-set.md §9.3); a chunk is charged when first written. */
	cs->slm_bytes = p->slm_bytes < fs_dram_budget(cs->fs) ? p->slm_bytes :
			fs_dram_budget(cs->fs) & ~(uint64_t)(CS_CHUNK - 1);
	cs->max_active = p->cp_max_active;
	cs->next_rsid = 1;
	pthread_mutex_init(&cs->lock, NULL);
	ret = cs_mem_init(cs);
	if (ret) {
		snprintf(err, errlen, "out of memory for the memory namespace's table");
		cs_close(cs);
		return ret;
	}
	*out = cs;
	return 0;
}

void cs_close(struct cs_state *cs)
{
	if (!cs)
		return;
	cs_mrs_free_all(cs);
	cs_mem_free(cs);
	pthread_mutex_destroy(&cs->lock);
	free(cs);
}

int isp_dev_cs_csi(const struct isp_dev *dev, uint32_t nsid)
{
	const struct cs_state *cs = isp_dev_cs((struct isp_dev *)dev);

	if (!cs || !nsid)
		return -1;
	if (nsid == cs->slm_nsid)
		return ISP_CSI_SLM;
	if (nsid == cs->cp_nsid)
		return ISP_CSI_CP;
	return -1;
}

void isp_dev_cs_nsids(const struct isp_dev *dev, uint32_t *slm_nsid, uint32_t *cp_nsid)
{
	const struct cs_state *cs = isp_dev_cs((struct isp_dev *)dev);

	if (slm_nsid)
		*slm_nsid = cs ? cs->slm_nsid : 0;
	if (cp_nsid)
		*cp_nsid = cs ? cs->cp_nsid : 0;
}

unsigned cs_cls_of(const struct cs_state *cs, const struct isp_cmd *cmd)
{
	if (cmd->set == ISP_SET_ADMIN)
		return CS_CLS_ADMIN;
	if (cmd->nsid == cs->cp_nsid)
		return CS_CLS_EXEC;
	return cmd->opcode == ISP_CS_OP_MEM_COPY ? CS_CLS_COPY : CS_CLS_MEM;
}

void cs_count(struct cs_state *cs, unsigned cls, uint16_t status)
{
	if (cls >= CS_CLS_N)
		cls = CS_CLS_MEM;
	pthread_mutex_lock(&cs->lock);
	cs->cmds[cls]++;
	if (status)
		cs->errors[cls]++;
	pthread_mutex_unlock(&cs->lock);
}

/* NSID of an admin command of the CP set: the compute namespace. */
static uint16_t cs_admin_nsid(struct cs_state *cs, const struct isp_cmd *cmd,
			      struct isp_cpl *cpl)
{
	if (cmd->nsid == cs->cp_nsid)
		return 0;
	isp_err_at(cpl, ISP_ERR_IN_SQE, ISP_SQE_NSID, 0, "NSID %u is not the compute "
		   "namespace (%u)", cmd->nsid, cs->cp_nsid);
	return isp_fail(cpl, ISP_SC_INVALID_NSID | ISP_STATUS_DNR,
			"admin command of the CP set names no compute namespace");
}

static uint16_t cs_bad_opcode(const struct isp_cmd *cmd, const char *set, struct isp_cpl *cpl)
{
	isp_err_at(cpl, ISP_ERR_IN_SQE, 0, 0, "opcode %02xh is not a command of %s",
		   cmd->opcode, set);
	return isp_fail(cpl, ISP_SC_INVALID_OPCODE | ISP_STATUS_DNR, "opcode not supported");
}

uint16_t cs_check(struct cs_state *cs, const struct isp_cmd *cmd, uint64_t *len,
		  struct isp_cpl *cpl)
{
	uint16_t st;
	int csi;

	*len = 0;
	if (cmd->set == ISP_SET_ADMIN) {
		switch (cmd->opcode) {
		case ISP_CS_OP_LOAD_PROGRAM:
			st = cs_admin_nsid(cs, cmd, cpl);
			return st ? st : cs_check_load(cs, cmd, len, cpl);
		case ISP_CS_OP_PROGRAM_ACT:
			st = cs_admin_nsid(cs, cmd, cpl);
			return st ? st : cs_check_act(cs, cmd, cpl);
		case ISP_CS_OP_MRS_MGMT:
			st = cs_admin_nsid(cs, cmd, cpl);
			return st ? st : cs_check_mrs(cs, cmd, len, cpl);
		default:
			return cs_bad_opcode(cmd, "the admin commands of the CP set", cpl);
		}
	}
	csi = isp_dev_cs_csi(cs->dev, cmd->nsid);
	if (csi < 0) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, ISP_SQE_NSID, 0, "NSID %u is neither the memory "
			   "(%u) nor the compute (%u) namespace", cmd->nsid, cs->slm_nsid,
			   cs->cp_nsid);
		return isp_fail(cpl, ISP_SC_INVALID_NSID | ISP_STATUS_DNR,
				"namespace is not a memory or compute namespace");
	}
	if (csi == ISP_CSI_CP) {
		if (cmd->opcode == ISP_CS_OP_EXECUTE)
			return cs_check_exec(cs, cmd, len, cpl);
		return cs_bad_opcode(cmd, "the Computational Programs command set", cpl);
	}
	switch (cmd->opcode) {
	case ISP_CS_OP_MEM_READ:
	case ISP_CS_OP_MEM_WRITE:
	case ISP_CS_OP_MEM_FILL:
		return cs_check_mem_rw(cs, cmd, len, cpl);
	case ISP_CS_OP_MEM_COPY:
		return cs_check_copy(cs, cmd, len, cpl);
	default:
		return cs_bad_opcode(cmd, "the Subsystem Local Memory command set", cpl);
	}
}

uint16_t cs_exec(struct isp_ctx *ctx, const struct isp_cmd *cmd, void *data, size_t len,
		 struct isp_cpl *cpl)
{
	struct cs_state *cs = cs_of(ctx->dev);

	if (cmd->set == ISP_SET_ADMIN) {
		switch (cmd->opcode) {
		case ISP_CS_OP_LOAD_PROGRAM:
			return cs_cmd_load(ctx, cmd, cpl);
		case ISP_CS_OP_PROGRAM_ACT:
			return cs_cmd_act(ctx, cmd, cpl);
		default:
			return cs_cmd_mrs(ctx, cmd, data, len, cpl);
		}
	}
	if (isp_dev_cs_csi(cs->dev, cmd->nsid) == ISP_CSI_CP)
		return cs_cmd_exec(ctx, cmd, data, len, cpl);
	switch (cmd->opcode) {
	case ISP_CS_OP_MEM_READ:
		return cs_cmd_mem_read(ctx, cmd, data, len, cpl);
	case ISP_CS_OP_MEM_WRITE:
		return cs_cmd_mem_write(ctx, cmd, data, len, cpl);
	case ISP_CS_OP_MEM_FILL:
		return cs_cmd_mem_fill(ctx, cmd, cpl);
	default:
		return cs_cmd_copy(ctx, cmd, data, len, cpl);
	}
}

uint16_t isp_dev_cs_copy_lbas(struct isp_dev *dev, const struct isp_cmd *cmd,
			      const void *descs, size_t len, uint32_t lba_bytes,
			      struct isp_cs_lba_range *out, unsigned max, unsigned *n,
			      struct isp_cpl *cpl)
{
	struct cs_state *cs = isp_dev_cs(dev);

	memset(cpl, 0, sizeof(*cpl));
	*n = 0;
	if (!cs || cmd->set != ISP_SET_IO || isp_dev_cs_csi(dev, cmd->nsid) != ISP_CSI_SLM ||
	    cmd->opcode != ISP_CS_OP_MEM_COPY)
		return isp_fail(cpl, ISP_SC_INVALID_OPCODE | ISP_STATUS_DNR, "not a Memory Copy");
	return cs_copy_lbas(cs, cmd, descs, len, lba_bytes, out, max, n, cpl);
}

/* ---- Identify (CNS 05h, 06h, 08h) ---- */

static void cs_id_ns_cp(struct cs_state *cs, struct isp_wire_cs_id_ns_cp *id)
{
	id->maxact = (uint16_t)cs->max_active;
	id->maxmemrs = CS_MAX_MRS;
	id->mrsg = CS_GRAN_LOG2;
	id->maxmemr = CS_MAX_MR;
	id->maxpb = 0;		/* no downloadable programs */
	id->lpg = 0;
	id->nprogs = ISP_CS_NPROGS;
	id->slm_nsid = cs->slm_nsid;
	id->max_param = CS_MAX_PARAM;
}

static void cs_id_ns_slm(struct cs_state *cs, struct isp_wire_cs_id_ns_slm *id)
{
	id->msz = cs->slm_bytes;
	pthread_mutex_lock(&cs->lock);
	id->muse = cs->chunks_used * CS_CHUNK;
	pthread_mutex_unlock(&cs->lock);
	id->msrc = CS_MAX_SRC - 1;
	id->mssrl = CS_MAX_COPY;
	id->mcl = CS_MAX_COPY;
	id->desfmts = 1u << ISP_CS_DESFMT_LBA | 1u << ISP_CS_DESFMT_MEM | 1u << ISP_CS_DESFMT_DB;
	id->gran = CS_GRAN_LOG2;
	id->nvm_nsid = cs->nvm_nsid;
	id->cp_nsid = cs->cp_nsid;
	id->max_rw = isp_dev_max_xfer(cs->dev);
}

/* Identify CNS values the standard interface answers (NVMe Base 2.1, 5.1.13). */
#define CS_CNS_IOCS_NS 0x05
#define CS_CNS_IOCS_CTRL 0x06
#define CS_CNS_INDEP_NS 0x08

uint16_t isp_dev_cs_identify(struct isp_dev *dev, uint8_t cns, uint8_t csi, uint32_t nsid,
			     void *buf)
{
	struct cs_state *cs = isp_dev_cs(dev);
	uint8_t *b = buf;
	int ns_csi;

	memset(buf, 0, 4096);
	if (!cs)
		return ISP_BAD_FIELD;
	ns_csi = isp_dev_cs_csi(dev, nsid);
	switch (cns) {
	case CS_CNS_IOCS_CTRL:
		/* neither set defines controller fields we implement: zeros */
		return csi == ISP_CSI_SLM || csi == ISP_CSI_CP ? 0 : ISP_BAD_FIELD;
	case CS_CNS_IOCS_NS:
		if (ns_csi < 0)
			return ISP_SC_INVALID_NSID | ISP_STATUS_DNR;
		if (csi != ns_csi)
			return ISP_BAD_FIELD;
		if (csi == ISP_CSI_CP)
			cs_id_ns_cp(cs, buf);
		else
			cs_id_ns_slm(cs, buf);
		return 0;
	case CS_CNS_INDEP_NS:
		if (ns_csi < 0)
			return ISP_SC_INVALID_NSID | ISP_STATUS_DNR;
		/* Base 2.1 Figure 319: NSTAT (byte 14) bit 0, namespace ready;
		 * no reservations, no ANA group, no NVM set, endurance group 0 */
		b[14] = 1;
		return 0;
	default:
		return ISP_BAD_FIELD;
	}
}

/* Commands Supported and Effects (Base 2.1, 5.1.12.1.6): CSUPP bit 0,
 * LBCC bit 1 (the command changes the namespace's contents). */
#define CS_EFF_CSUPP 1u
#define CS_EFF_LBCC 2u

uint32_t isp_dev_cs_effects(uint8_t csi, int admin, uint8_t opcode)
{
	if (admin)
		return opcode == ISP_CS_OP_LOAD_PROGRAM || opcode == ISP_CS_OP_PROGRAM_ACT ||
		       opcode == ISP_CS_OP_MRS_MGMT ? CS_EFF_CSUPP : 0;
	if (csi == ISP_CSI_CP)
		return opcode == ISP_CS_OP_EXECUTE ? CS_EFF_CSUPP : 0;
	if (csi != ISP_CSI_SLM)
		return 0;
	switch (opcode) {
	case ISP_CS_OP_MEM_READ:
		return CS_EFF_CSUPP;
	case ISP_CS_OP_MEM_COPY:
	case ISP_CS_OP_MEM_FILL:
	case ISP_CS_OP_MEM_WRITE:
		return CS_EFF_CSUPP | CS_EFF_LBCC;
	default:
		return 0;
	}
}

/* ---- statistics, status names, the program table ---- */

void cs_stats(struct cs_state *cs, struct isp_wire_stats *st, int reset)
{
	pthread_mutex_lock(&cs->lock);
	memcpy(st->cs_cmds, cs->cmds, sizeof(st->cs_cmds));
	memcpy(st->cs_errors, cs->errors, sizeof(st->cs_errors));
	st->slm_bytes_read = cs->bytes_read;
	st->slm_bytes_written = cs->bytes_written;
	st->slm_bytes_copied = cs->bytes_copied;
	st->slm_backed = cs->chunks_used * CS_CHUNK;
	if (reset) {
		memset(cs->cmds, 0, sizeof(cs->cmds));
		memset(cs->errors, 0, sizeof(cs->errors));
		cs->bytes_read = cs->bytes_written = cs->bytes_copied = 0;
	}
	pthread_mutex_unlock(&cs->lock);
}

const char *cs_status_name(uint16_t status)
{
	switch (status & ISP_STATUS_CODE_MASK) {
	case ISP_SC_CMD_SIZE_LIMIT: return "Command Size Limit Exceeded";
	case ISP_SC_OVERLAP_IO: return "Overlapping I/O Range";
	case ISP_SC_INSUFF_RES: return "Insufficient Resources";
	case ISP_SC_INSUFF_PROG_RES: return "Insufficient Program Resources";
	case ISP_SC_INVALID_MEM_NS: return "Invalid Memory Namespace";
	case ISP_SC_INVALID_MRS: return "Invalid Memory Range Set";
	case ISP_SC_INVALID_RSID: return "Invalid Memory Range Set Identifier";
	case ISP_SC_INVALID_PROG_DATA: return "Invalid Program Data";
	case ISP_SC_INVALID_PIND: return "Invalid Program Index";
	case ISP_SC_INVALID_PTYPE: return "Invalid Program Type";
	case ISP_SC_MAX_MR: return "Maximum Memory Ranges Exceeded";
	case ISP_SC_MAX_MRS: return "Maximum Memory Range Sets Exceeded";
	case ISP_SC_MAX_ACTIVE: return "Maximum Programs Activated";
	case ISP_SC_MAX_PROG_BYTES: return "Maximum Program Bytes Exceeded";
	case ISP_SC_MRS_IN_USE: return "Memory Range Set In Use";
	case ISP_SC_NO_PROGRAM: return "No Program";
	case ISP_SC_OVERLAP_MR: return "Overlapping Memory Ranges";
	case ISP_SC_PROG_NOT_ACTIVE: return "Program Not Activated";
	case ISP_SC_PROG_IN_USE: return "Program In Use";
	case ISP_SC_PIND_NOT_DL: return "Program Index Not Downloadable";
	case ISP_SC_PROG_TOO_BIG: return "Program Too Big";
	default: return "Unknown Status";
	}
}

int cs_programs_log(struct cs_state *cs, void *buf, size_t len, uint64_t off)
{
	struct isp_wire_cs_prog d[ISP_CS_NPROGS];
	unsigned i;

	if (off >= sizeof(d))
		return -EINVAL;
	for (i = 0; i < ISP_CS_NPROGS; i++)
		cs_prog_desc(cs, i, &d[i]);
	if (len > sizeof(d) - off)
		len = sizeof(d) - (size_t)off;
	memcpy(buf, (const uint8_t *)d + off, len);
	return (int)len;
}
