/* SPDX-License-Identifier: MIT */
/*
 * cs_prog.c - the compute namespace (Computational Programs, CSI 04h): its
 * device-defined programs, Load Program (downloads refused), Program
 * Activation Management and Execute Program (docs/command-set.md §9.6).
 *
 * A program is a vendor command of this drive run on controller DRAM: its
 * input comes out of memory range 0 (or the parameter data), the REIS or
 * RecFlash handler runs in the Execute Program's own timing context with
 * its data moves charged to DRAM instead of the host link (isp_ctx.dram_io),
 * and its output goes to memory range 1. The engines' paths are the vendor
 * commands' paths, so the results are the same bytes.
 */
#include <errno.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cs_int.h"

/* Program unique identifiers: "ISPCS" in the high bytes, the index low. */
#define CS_PUID_BASE UINT64_C(0x4953504353000000)

struct cs_prog_def {
	const char *name;
	uint32_t in_hdr;	/* bytes of the input's fixed header */
};

static const struct cs_prog_def cs_progs[ISP_CS_NPROGS] = {
	[ISP_CS_PROG_REIS_SEARCH] = { "reis-search", sizeof(struct isp_wire_reis_search) },
	[ISP_CS_PROG_REIS_IVF] = { "reis-ivf-search", sizeof(struct isp_wire_reis_search) },
	[ISP_CS_PROG_RF_SLS] = { "recflash-sls", sizeof(struct isp_wire_rf_sls) },
	[ISP_CS_PROG_REIS_DOCS] = { "reis-docs", sizeof(struct isp_wire_cs_doc_ref) },
	[ISP_CS_PROG_MANAGE] = { "isp-manage", sizeof(struct isp_wire_cs_manage) },
};

void cs_prog_desc(struct cs_state *cs, unsigned pind, struct isp_wire_cs_prog *d)
{
	memset(d, 0, sizeof(*d));
	d->flags = ISP_CS_PEOCC_DEVICE | ISP_CS_PIT_PUID;
	d->ptype = 0;
	d->puid = CS_PUID_BASE | pind;
	snprintf(d->name, sizeof(d->name), "%s", cs_progs[pind].name);
	d->nranges = 2;
	d->in_hdr = cs_progs[pind].in_hdr;
	pthread_mutex_lock(&cs->lock);
	if (cs->active[pind])
		d->flags |= ISP_CS_PD_ACT;
	d->execs = cs->execs[pind];
	pthread_mutex_unlock(&cs->lock);
}

/* ---- Load Program (85h): every index holds a device-defined program ---- */

#define CS_LP_PIND(c) ((c)->cdw10 & 0xffffu)

uint16_t cs_check_load(struct cs_state *cs, const struct isp_cmd *cmd, uint64_t *len,
		       struct isp_cpl *cpl)
{
	unsigned pind = CS_LP_PIND(cmd);
	int unload = !!(cmd->cdw10 & ISP_CS_LP_SEL_UNLOAD);

	(void)cs;
	*len = 0;
	if (cmd->cdw10 >> 28 || cmd->cdw2 || cmd->cdw3) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(cmd->cdw10 >> 28 ? 10 : cmd->cdw2 ? 2 : 3),
			   0, "reserved bits set");
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	}
	if (pind >= ISP_CS_NPROGS) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(10), 0, "PIND %u: program indexes "
			   "0..%u exist", pind, ISP_CS_NPROGS - 1);
		return isp_fail(cpl, ISP_SC_INVALID_PIND | ISP_STATUS_DNR, "no such program index");
	}
	/* No slot takes a download; device-defined programs stay. The data
	 * pointer is never mapped. */
	isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(10), 0, "PIND %u holds the device-defined "
		   "program '%s': %s refused, this drive takes no downloaded programs", pind,
		   cs_progs[pind].name, unload ? "unload" : "load");
	return isp_fail(cpl, ISP_SC_PIND_NOT_DL | ISP_STATUS_DNR,
			"program index not downloadable");
}

uint16_t cs_cmd_load(struct isp_ctx *ctx, const struct isp_cmd *cmd, struct isp_cpl *cpl)
{
	uint64_t len;

	return cs_check_load(cs_of(ctx->dev), cmd, &len, cpl);
}

/* ---- Program Activation Management (88h) ---- */

#define CS_ACT_SEL(c) (((c)->cdw10 >> 16) & 0xfu)

uint16_t cs_check_act(struct cs_state *cs, const struct isp_cmd *cmd, struct isp_cpl *cpl)
{
	unsigned pind = cmd->cdw10 & 0xffffu, sel = CS_ACT_SEL(cmd);

	(void)cs;
	if (cmd->cdw10 >> 20 || cmd->cdw11 || cmd->cdw12 || cmd->cdw13 || cmd->cdw14 ||
	    cmd->cdw15 || cmd->cdw2 || cmd->cdw3) {
		unsigned d = cmd->cdw10 >> 20 ? 10 : cmd->cdw11 ? 11 : cmd->cdw12 ? 12 :
			     cmd->cdw13 ? 13 : cmd->cdw14 ? 14 : cmd->cdw15 ? 15 :
			     cmd->cdw2 ? 2 : 3;

		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(d), 0, "reserved bits of CDW%u set", d);
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	}
	if (sel > ISP_CS_ACT_ACTIVATE) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(10) + 2, 0, "SEL = %u: 0 (deactivate) "
			   "or 1 (activate)", sel);
		return isp_fail(cpl, ISP_BAD_FIELD, "unknown select");
	}
	if (pind >= ISP_CS_NPROGS) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(10), 0, "PIND %u: program indexes "
			   "0..%u exist", pind, ISP_CS_NPROGS - 1);
		return isp_fail(cpl, ISP_SC_INVALID_PIND | ISP_STATUS_DNR, "no such program index");
	}
	return 0;
}

uint16_t cs_cmd_act(struct isp_ctx *ctx, const struct isp_cmd *cmd, struct isp_cpl *cpl)
{
	struct cs_state *cs = cs_of(ctx->dev);
	unsigned pind = cmd->cdw10 & 0xffffu;
	uint16_t st = 0;

	pthread_mutex_lock(&cs->lock);
	if (CS_ACT_SEL(cmd) == ISP_CS_ACT_ACTIVATE) {
		if (!cs->active[pind] && cs->nactive >= cs->max_active) {
			st = ISP_SC_MAX_ACTIVE | ISP_STATUS_DNR;
		} else if (!cs->active[pind]) {
			cs->active[pind] = 1;
			cs->nactive++;
		}
	} else if (cs->prog_users[pind]) {
		st = ISP_SC_PROG_IN_USE | ISP_STATUS_DNR;
	} else if (cs->active[pind]) {
		cs->active[pind] = 0;
		cs->nactive--;
	}
	pthread_mutex_unlock(&cs->lock);
	if (st == (ISP_SC_MAX_ACTIVE | ISP_STATUS_DNR)) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(10), 0, "%u programs are active, the "
			   "most at once (MAXACT)", cs->max_active);
		return isp_fail(cpl, st, "maximum programs activated");
	}
	if (st) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(10), 0, "program %u runs an Execute "
			   "Program", pind);
		return isp_fail(cpl, st, "program in use");
	}
	return 0;
}

/* ---- Execute Program (01h on the compute namespace) ---- */

#define CS_EX_PIND(c) ((c)->cdw2 & 0xffffu)
#define CS_EX_RSID(c) ((uint16_t)((c)->cdw2 >> 16))

uint16_t cs_check_exec(struct cs_state *cs, const struct isp_cmd *cmd, uint64_t *len,
		       struct isp_cpl *cpl)
{
	unsigned pind = CS_EX_PIND(cmd);

	(void)cs;
	*len = 0;
	if (pind >= ISP_CS_NPROGS) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(2), 0, "PIND %u: program indexes "
			   "0..%u exist", pind, ISP_CS_NPROGS - 1);
		return isp_fail(cpl, ISP_SC_INVALID_PIND | ISP_STATUS_DNR, "no such program index");
	}
	if (cmd->cdw3) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(3), 0, "NUMR = %u: ranges given with "
			   "the command are not supported, name a range set (RSID)", cmd->cdw3);
		return isp_fail(cpl, ISP_BAD_FIELD, "inline memory ranges not supported");
	}
	if (cmd->cdw4 > CS_MAX_PARAM || cmd->cdw4 % 4u) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(4), 0, "DLEN = %u bytes: 0..%u in "
			   "steps of 4", cmd->cdw4, CS_MAX_PARAM);
		return isp_fail(cpl, ISP_BAD_FIELD, "parameter data length out of range");
	}
	if (cmd->cdw14 || cmd->cdw15) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(cmd->cdw14 ? 14 : 15), 0,
			   "CDW%u is reserved", cmd->cdw14 ? 14 : 15);
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	}
	if (cmd->cdw13) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(13), 0, "CPARAM2 bits 63:32 = 0x%x "
			   "are reserved", cmd->cdw13);
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	}
	*len = cmd->cdw4;
	return 0;
}

/* One run of a program: its input, its output, what it ran on. */
struct cs_run {
	struct isp_ctx *ctx;
	struct cs_state *cs;
	const struct isp_cmd *cmd;
	uint8_t *in;
	uint32_t in_len;
	uint8_t *out;		/* malloc'd by the program */
	uint64_t out_len, cap;
	int out_in_dram;	/* the handler already charged writing the output */
};

static struct isp_cmd cs_vendor_cmd(const struct cs_run *r, uint8_t opcode, uint64_t len)
{
	struct isp_cmd v;

	memset(&v, 0, sizeof(v));
	v.opcode = opcode;
	v.nsid = r->cs->nvm_nsid;
	v.cdw10 = (uint32_t)(len / 4u);
	v.submit_ns = r->cmd->submit_ns;
	v.sqid = r->cmd->sqid;
	v.cid = r->cmd->cid;
	return v;
}

/* The search and SLS programs: the vendor command with a ticket of the
 * program's own table, whose result becomes the output. */
static uint16_t cs_run_ticketed(struct cs_run *r, uint8_t opcode, struct isp_cpl *cpl)
{
	struct isp_wire_result_hdr h;
	struct isp_results res;
	struct isp_cmd v = cs_vendor_cmd(r, opcode, r->in_len);
	uint16_t st;
	int64_t n;

	/* The output range bounds the result as max_result_bytes does */
	isp_results_init(&res, 1, r->cap);
	r->ctx->results = &res;
	v.cdw12 = 1;
	st = isp_dev_run_vendor(r->ctx, &v, r->in, r->in_len, cpl);
	if (!st) {
		n = isp_results_read(&res, 1, 0, &h, sizeof(h), 0, r->ctx);
		if (n != (int64_t)sizeof(h) || h.total_bytes > r->cap ||
		    h.total_bytes < sizeof(h)) {
			st = isp_fail(cpl, ISP_SC_INTERNAL, "result of the program unreadable");
		} else {
			r->out = malloc((size_t)h.total_bytes);
			if (!r->out) {
				st = isp_fail(cpl, ISP_SC_INSUFF_PROG_RES | ISP_STATUS_DNR,
					      "out of memory for the program's output");
			} else {
				/* deferred costs (document reads) are charged here */
				isp_results_read(&res, 1, 0, r->out, h.total_bytes, 1, r->ctx);
				memset(r->out + offsetof(struct isp_wire_result_hdr, ticket), 0, 4);
				r->out_len = h.total_bytes;
			}
		}
	}
	r->ctx->results = NULL;
	isp_results_destroy(&res);
	return st;
}

/* Documents of a hit list: one REIS_DOC_READ per entry. */
static uint16_t cs_run_docs(struct cs_run *r, struct isp_cpl *cpl)
{
	uint32_t n = r->in_len / sizeof(struct isp_wire_cs_doc_ref), i;
	uint32_t blen = r->cs->p->page_bytes + 4u;	/* a chunk fits in a page */
	struct isp_wire_cs_docs_hdr h;
	uint64_t need;
	uint8_t *buf;
	uint16_t st = 0;

	if (!n || n > ISP_CS_DOCS_MAX || r->in_len % sizeof(struct isp_wire_cs_doc_ref)) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(10), 0, "input of %u bytes: 1..%u "
			   "entries of 8 bytes (did, entry)", r->in_len, ISP_CS_DOCS_MAX);
		return isp_fail(cpl, ISP_BAD_FIELD, "hit list length out of range");
	}
	if (blen > isp_dev_max_xfer(r->cs->dev))
		blen = isp_dev_max_xfer(r->cs->dev);
	buf = malloc(blen);
	r->out = calloc(1, sizeof(h));
	if (!buf || !r->out) {
		free(buf);
		return isp_fail(cpl, ISP_SC_INSUFF_PROG_RES | ISP_STATUS_DNR, "out of memory");
	}
	r->out_len = sizeof(h);
	for (i = 0; i < n && !st; i++) {
		struct isp_wire_cs_doc_ref ref;
		struct isp_cmd v = cs_vendor_cmd(r, ISP_OP_REIS_DOC_READ, blen);
		uint32_t dl;
		uint8_t *o;

		memcpy(&ref, r->in + (size_t)i * sizeof(ref), sizeof(ref));
		v.cdw12 = ref.did;
		v.cdw13 = ref.entry;
		st = isp_dev_run_vendor(r->ctx, &v, buf, blen, cpl);
		if (st) {
			char why[ISP_ERR_MSG_LEN];

			snprintf(why, sizeof(why), "%s", cpl->err_msg[0] ? cpl->err_msg :
				 cpl->err ? cpl->err : "document read failed");
			isp_err_at(cpl, ISP_ERR_IN_DATA, 8 * i, 0, "hit %u (database %u entry "
				   "%u): %s", i, ref.did, ref.entry, why);
			break;
		}
		memcpy(&dl, buf, 4);
		if (dl > blen - 4u)
			dl = blen - 4u;
		need = r->out_len + 4u + ((dl + 3u) & ~3u);
		if (need > r->cap) {
			isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(12), 0, "output range holds %llu "
				   "bytes from CPARAM2's offset, the documents need more than "
				   "%llu", (unsigned long long)r->cap, (unsigned long long)need);
			st = isp_fail(cpl, ISP_BAD_FIELD, "output range too small");
			break;
		}
		o = realloc(r->out, (size_t)need);
		if (!o) {
			st = isp_fail(cpl, ISP_SC_INSUFF_PROG_RES | ISP_STATUS_DNR, "out of memory");
			break;
		}
		r->out = o;
		memset(o + r->out_len, 0, (size_t)(need - r->out_len));
		memcpy(o + r->out_len, &dl, 4);
		memcpy(o + r->out_len + 4, buf + 4, dl);
		r->out_len = need;
	}
	free(buf);
	if (st)
		return st;
	memset(&h, 0, sizeof(h));
	h.count = n;
	h.bytes = r->out_len;
	memcpy(r->out, &h, sizeof(h));
	r->out_in_dram = 1;	/* each DOC_READ's C2H transfer went to DRAM */
	return 0;
}

/* Vendor commands the manage program runs: everything but the ticketed
 * ones, which have programs of their own or need the host's ticket table. */
static int cs_manage_allowed(uint8_t opcode)
{
	switch (opcode) {
	case ISP_OP_REIS_SEARCH:
	case ISP_OP_REIS_IVF_SEARCH:
	case ISP_OP_RF_SLS:
	case ISP_OP_RESULT_READ:
	case ISP_OP_RESULT_RELEASE:
	case ISP_OP_TRACE_ARM:
		return 0;
	default:
		return isp_dev_opcode_supported(opcode, NULL);
	}
}

/* A field the vendor command's checks named, moved to where the host put
 * it: CDW10..15 and the NSID into the header, its data after the header. */
static void cs_manage_err_loc(struct isp_cpl *cpl)
{
	unsigned b = cpl->err_byte;

	if (cpl->err_where == ISP_ERR_IN_DATA) {
		cpl->err_byte = (uint16_t)(b + sizeof(struct isp_wire_cs_manage));
	} else if (cpl->err_where == ISP_ERR_IN_SQE) {
		cpl->err_where = ISP_ERR_IN_DATA;
		if (b >= ISP_SQE_CDW(10) && b < ISP_SQE_CDW(16))
			cpl->err_byte = (uint16_t)(offsetof(struct isp_wire_cs_manage, cdw10) +
						   b - ISP_SQE_CDW(10));
		else if (b >= ISP_SQE_NSID && b < ISP_SQE_NSID + 4)
			cpl->err_byte = (uint16_t)(offsetof(struct isp_wire_cs_manage, nsid) +
						   b - ISP_SQE_NSID);
		else
			cpl->err_byte = 0;	/* the opcode */
	}
}

static uint16_t cs_run_manage(struct cs_run *r, struct isp_cpl *cpl)
{
	struct isp_wire_cs_manage h;
	enum isp_dir dir;
	struct isp_cmd v;
	uint64_t len;
	uint8_t *buf;
	uint16_t st;

	if (r->in_len < sizeof(h)) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(10), 0, "input of %u bytes: the "
			   "%zu-byte header first", r->in_len, sizeof(h));
		return isp_fail(cpl, ISP_BAD_FIELD, "input shorter than its header");
	}
	memcpy(&h, r->in, sizeof(h));
	if (!isp_all_zero(h.rsvd0, sizeof(h.rsvd0))) {
		isp_err_at(cpl, ISP_ERR_IN_DATA, 1, 0, "reserved bytes set");
		return isp_fail(cpl, ISP_BAD_FIELD, "reserved field set");
	}
	if (!isp_dev_opcode_supported(h.opcode, NULL)) {
		isp_err_at(cpl, ISP_ERR_IN_DATA, 0, 0, "opcode %02xh: no vendor command of this "
			   "drive", h.opcode);
		return isp_fail(cpl, ISP_SC_INVALID_OPCODE | ISP_STATUS_DNR, "unknown vendor opcode");
	}
	if (!cs_manage_allowed(h.opcode)) {
		isp_err_at(cpl, ISP_ERR_IN_DATA, 0, 0, "opcode %02xh: not a vendor command this "
			   "program runs (searches and SLS have programs of their own)", h.opcode);
		return isp_fail(cpl, ISP_SC_INVALID_PROG_DATA | ISP_STATUS_DNR,
				"vendor opcode not allowed");
	}
	/* the data the program moves; NDT against it is the vendor command's
	 * own check, in isp_dev_run_vendor() */
	dir = isp_wire_dir(h.opcode);
	if (h.in_len != r->in_len - sizeof(h) || (h.in_len && dir != ISP_DIR_H2C) ||
	    (h.out_len && dir != ISP_DIR_C2H) || h.out_len > r->cap ||
	    h.in_len % 4u || h.out_len % 4u) {
		isp_err_at(cpl, ISP_ERR_IN_DATA, h.in_len != r->in_len - sizeof(h) ||
			   h.in_len ? 28 : 32, 0,
			   "in_len %u / out_len %u: the %s data of opcode %02xh, dwords, "
			   "in_len the bytes after the header (%zu), out_len at most the "
			   "output range (%llu)", h.in_len, h.out_len,
			   dir == ISP_DIR_H2C ? "H2C" : dir == ISP_DIR_C2H ? "C2H" : "no",
			   h.opcode, r->in_len - sizeof(h), (unsigned long long)r->cap);
		return isp_fail(cpl, ISP_BAD_FIELD, "data lengths do not match the opcode");
	}
	if (h.nsid != r->cs->nvm_nsid) {
		isp_err_at(cpl, ISP_ERR_IN_DATA, 36, 0, "nsid = 0x%x: the vendor commands name "
			   "the NVM namespace (%u)", h.nsid, r->cs->nvm_nsid);
		return isp_fail(cpl, ISP_SC_INVALID_NSID | ISP_STATUS_DNR,
				"nsid must name the NVM namespace");
	}
	len = dir == ISP_DIR_H2C ? h.in_len : h.out_len;
	v = cs_vendor_cmd(r, h.opcode, len);
	v.cdw10 = h.cdw10;	/* as the host gave them: the handler checks them */
	v.cdw11 = h.cdw11;
	v.cdw12 = h.cdw12;
	v.cdw13 = h.cdw13;
	v.cdw14 = h.cdw14;
	v.cdw15 = h.cdw15;
	buf = NULL;
	if (dir == ISP_DIR_C2H && len) {
		buf = calloc(1, (size_t)len);
		if (!buf)
			return isp_fail(cpl, ISP_SC_INSUFF_PROG_RES | ISP_STATUS_DNR,
					"out of memory");
	}
	st = isp_dev_run_vendor(r->ctx, &v, dir == ISP_DIR_H2C ? r->in + sizeof(h) : buf,
				(size_t)len, cpl);
	if (st)
		cs_manage_err_loc(cpl);
	if (!st && buf) {
		r->out = buf;
		r->out_len = len;
		r->out_in_dram = 1;	/* its C2H transfer went to DRAM */
	} else {
		free(buf);
	}
	return st;
}

/* Input and output of the run: range 0 (or the parameter data), range 1. */
static uint16_t cs_run_io(struct cs_run *r, const struct cs_mrs *m, void *param,
			  struct isp_cpl *cpl)
{
	const struct isp_cmd *c = r->cmd;
	uint64_t in_len = c->cdw10, in_off = c->cdw11, out_off = c->cdw12;
	const uint64_t gran = 1u << CS_GRAN_LOG2;

	if (m->nr < 2) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(2) + 2, 0, "memory range set %u has "
			   "%u range: the programs take 2 (input, output)", m->rsid, m->nr);
		return isp_fail(cpl, ISP_SC_INVALID_MRS | ISP_STATUS_DNR,
				"range set lacks an output range");
	}
	if (out_off % gran || out_off >= m->r[1].len) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(12), 0, "CPARAM2 output offset %llu: "
			   "below range 1's %u bytes, in steps of 4",
			   (unsigned long long)out_off, m->r[1].len);
		return isp_fail(cpl, ISP_BAD_FIELD, "output offset outside range 1");
	}
	r->cap = m->r[1].len - out_off;
	if (c->cdw4) {
		if (in_len || in_off) {
			isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(10), 0, "CPARAM1 = 0x%llx: 0 when "
				   "the input is the parameter data (DLEN %u)",
				   (unsigned long long)(in_off << 32 | in_len), c->cdw4);
			return isp_fail(cpl, ISP_BAD_FIELD, "input given twice");
		}
		r->in = malloc(c->cdw4);
		if (!r->in)
			return isp_fail(cpl, ISP_SC_INSUFF_PROG_RES | ISP_STATUS_DNR,
					"out of memory");
		memcpy(r->in, param, c->cdw4);
		r->in_len = c->cdw4;
		return 0;
	}
	/* room for isp-manage's header before a max_xfer command's data */
	if (!in_len || in_len % gran || in_off % gran ||
	    in_len > isp_dev_max_xfer(r->cs->dev) + CS_MAX_PARAM ||
	    in_off > m->r[0].len || in_len > m->r[0].len - in_off) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(10), 0, "CPARAM1: %llu input bytes at "
			   "%llu: in range 0 (%u bytes), 4..%u, dwords",
			   (unsigned long long)in_len, (unsigned long long)in_off, m->r[0].len,
			   isp_dev_max_xfer(r->cs->dev) + CS_MAX_PARAM);
		return isp_fail(cpl, ISP_BAD_FIELD, "input outside range 0");
	}
	r->in = malloc((size_t)in_len);
	if (!r->in)
		return isp_fail(cpl, ISP_SC_INSUFF_PROG_RES | ISP_STATUS_DNR, "out of memory");
	cs_mem_read(r->cs, m->r[0].sb + in_off, r->in, (size_t)in_len);
	r->in_len = (uint32_t)in_len;
	return 0;
}

uint16_t cs_cmd_exec(struct isp_ctx *ctx, const struct isp_cmd *cmd, void *data, size_t len,
		     struct isp_cpl *cpl)
{
	struct cs_state *cs = cs_of(ctx->dev);
	unsigned pind = CS_EX_PIND(cmd);
	uint16_t rsid = CS_EX_RSID(cmd), st = 0;
	struct cs_run r;
	struct cs_mrs *m = NULL;

	if (len != cmd->cdw4)
		return isp_fail(cpl, ISP_BAD_FIELD, "buffer size differs from DLEN");
	pthread_mutex_lock(&cs->lock);
	if (!cs->active[pind]) {
		st = ISP_SC_PROG_NOT_ACTIVE | ISP_STATUS_DNR;
	} else {
		m = cs_mrs_get(cs, rsid);
		if (!m)
			st = ISP_SC_INVALID_RSID | ISP_STATUS_DNR;
		else
			cs->prog_users[pind]++;
	}
	pthread_mutex_unlock(&cs->lock);
	if (st == (ISP_SC_PROG_NOT_ACTIVE | ISP_STATUS_DNR)) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(2), 0, "program %u ('%s') is not "
			   "active: Program Activation Management activates it", pind,
			   cs_progs[pind].name);
		return isp_fail(cpl, st, "program not activated");
	}
	if (st) {
		isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(2) + 2, 0, "RSID %u names no memory "
			   "range set", rsid);
		return isp_fail(cpl, st, "unknown memory range set");
	}

	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.cs = cs;
	r.cmd = cmd;
	/* the parameter data crosses the host link; everything after stays in DRAM */
	if (len)
		ctx->ready = isp_link_xfer(ctx, len, 0, ctx->ready);
	st = cs_run_io(&r, m, data, cpl);
	if (!st) {
		/* the handler's H2C transfer is now the read out of the memory */
		ctx->dram_io = 1;
		switch (pind) {
		case ISP_CS_PROG_REIS_SEARCH:
			st = cs_run_ticketed(&r, ISP_OP_REIS_SEARCH, cpl);
			break;
		case ISP_CS_PROG_REIS_IVF:
			st = cs_run_ticketed(&r, ISP_OP_REIS_IVF_SEARCH, cpl);
			break;
		case ISP_CS_PROG_RF_SLS:
			st = cs_run_ticketed(&r, ISP_OP_RF_SLS, cpl);
			break;
		case ISP_CS_PROG_REIS_DOCS:
			st = cs_run_docs(&r, cpl);
			break;
		default:
			st = cs_run_manage(&r, cpl);
			break;
		}
		ctx->dram_io = 0;
	}
	if (!st && r.out_len) {
		/* a result blob moves into the memory as RESULT_READ would move it
		 * to the host */
		if (!r.out_in_dram)
			ft_dram(cs->ft, &ctx->ftc, r.out_len, ctx->ftc.end);
		if (cs_mem_write(cs, m->r[1].sb + cmd->cdw12, r.out, (size_t)r.out_len)) {
			isp_err_at(cpl, ISP_ERR_IN_SQE, CS_SQE_CDW(12), 0, "backing the %llu output "
				   "bytes exceeds the controller DRAM budget",
				   (unsigned long long)r.out_len);
			st = isp_fail(cpl, ISP_SC_INSUFF_RES | ISP_STATUS_DNR,
				      "controller DRAM budget exhausted");
		}
	}
	/* the vendor handlers count their C2H bytes; Execute Program moves
	 * none to the host (its output is in range 1) */
	cpl->xfer_len = 0;
	pthread_mutex_lock(&cs->lock);
	cs->prog_users[pind]--;
	cs_mrs_put(cs, m);
	if (!st) {
		cs->execs[pind]++;
		cs->bytes_read += r.in_len;
		cs->bytes_written += r.out_len;
	}
	pthread_mutex_unlock(&cs->lock);
	free(r.in);
	free(r.out);
	return st;
}
