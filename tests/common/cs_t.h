/* SPDX-License-Identifier: MIT */
/*
 * cs_t.h - the standard interface's commands (docs/command-set.md §9)
 * built by hand for the model's tests: admin and I/O commands of the
 * memory (nsid 2) and compute (nsid 3) namespaces, run through
 * isp_dev_check() and isp_dev_exec() as a transport would.
 */
#ifndef TESTS_CS_T_H
#define TESTS_CS_T_H

#include "reis_t.h"
#include "isp_internal.h"

#define CS_T_NVM 1u
#define CS_T_SLM 2u
#define CS_T_CP 3u

static inline struct isp_cmd cs_mk(uint8_t set, uint8_t opc, uint32_t nsid)
{
	struct isp_cmd c = t_mk(opc, 0);

	c.set = set;
	c.nsid = nsid;
	c.cdw10 = 0;
	return c;
}

/*
 * Run @c with @len bytes of data (@buf in or out by the opcode's direction);
 * isp_dev_check() must agree with isp_dev_exec() and with the length.
 */
static inline uint16_t cs_run(struct isp_dev *dev, struct isp_cmd *c, void *buf, size_t len,
			      struct isp_cpl *cpl)
{
	struct isp_cpl chk, tmp;
	uint16_t st0, st;

	if (!cpl)
		cpl = &tmp;
	st0 = isp_dev_check(dev, c, &chk);
	if (!st0)
		CHECK_EQ_U64(isp_dev_cmd_len(dev, c), len);
	st = isp_dev_exec(dev, c, buf, len, cpl);
	if (st0)
		CHECK_EQ_U64(st0, st);
	if (st && !(st & ISP_STATUS_DNR) && (st & 0x7ff) != ISP_SC_INTERNAL)
		fprintf(stderr, "status 0x%x without DNR (%s)\n", st, cpl->err);
	return st;
}

static inline uint16_t cs_mem_rw(struct isp_dev *dev, uint8_t opc, uint64_t sb, void *buf,
				 uint32_t len, struct isp_cpl *cpl)
{
	struct isp_cmd c = cs_mk(ISP_SET_IO, opc, CS_T_SLM);

	c.cdw10 = (uint32_t)sb;
	c.cdw11 = (uint32_t)(sb >> 32);
	c.cdw12 = len;
	return cs_run(dev, &c, buf, len, cpl);
}

static inline uint16_t cs_write(struct isp_dev *dev, uint64_t sb, const void *buf, uint32_t len)
{
	return cs_mem_rw(dev, ISP_CS_OP_MEM_WRITE, sb, (void *)(uintptr_t)buf, len, NULL);
}

static inline uint16_t cs_read(struct isp_dev *dev, uint64_t sb, void *buf, uint32_t len)
{
	return cs_mem_rw(dev, ISP_CS_OP_MEM_READ, sb, buf, len, NULL);
}

static inline uint16_t cs_activate(struct isp_dev *dev, unsigned pind, int on)
{
	struct isp_cmd c = cs_mk(ISP_SET_ADMIN, ISP_CS_OP_PROGRAM_ACT, CS_T_CP);

	c.cdw10 = pind | (uint32_t)(on ? ISP_CS_ACT_ACTIVATE : ISP_CS_ACT_DEACTIVATE) << 16;
	return cs_run(dev, &c, NULL, 0, NULL);
}

/* Create a set of @n ranges (sb, len pairs); *@rsid the new identifier. */
static inline uint16_t cs_mrs_create(struct isp_dev *dev, const uint64_t *sb,
				     const uint32_t *len, unsigned n, uint16_t *rsid)
{
	struct isp_wire_cs_mrd r[16];
	struct isp_cpl cpl;
	struct isp_cmd c = cs_mk(ISP_SET_ADMIN, ISP_CS_OP_MRS_MGMT, CS_T_CP);
	unsigned i;
	uint16_t st;

	REQUIRE(n <= 16);
	memset(r, 0, sizeof(r));
	for (i = 0; i < n; i++) {
		r[i].mnsid = CS_T_SLM;
		r[i].sb = sb[i];
		r[i].len = len[i];
	}
	c.cdw11 = n;
	st = cs_run(dev, &c, r, n * sizeof(r[0]), &cpl);
	if (!st && rsid)
		*rsid = (uint16_t)cpl.result;
	return st;
}

static inline uint16_t cs_mrs_delete(struct isp_dev *dev, uint16_t rsid)
{
	struct isp_cmd c = cs_mk(ISP_SET_ADMIN, ISP_CS_OP_MRS_MGMT, CS_T_CP);

	c.cdw10 = ISP_CS_MRS_DELETE | (uint32_t)rsid << 16;
	return cs_run(dev, &c, NULL, 0, NULL);
}

/* Execute Program @pind on set @rsid: input @in_len bytes at @in_off of
 * range 0, output at @out_off of range 1. */
static inline uint16_t cs_exec(struct isp_dev *dev, unsigned pind, uint16_t rsid,
			       uint32_t in_len, uint32_t in_off, uint32_t out_off,
			       struct isp_cpl *cpl)
{
	struct isp_cmd c = cs_mk(ISP_SET_IO, ISP_CS_OP_EXECUTE, CS_T_CP);

	c.cdw2 = pind | (uint32_t)rsid << 16;
	c.cdw10 = in_len;
	c.cdw11 = in_off;
	c.cdw12 = out_off;
	return cs_run(dev, &c, NULL, 0, cpl);
}

/* The newest Error Information reason (log C2h). */
static inline void cs_last_err(struct isp_dev *dev, struct isp_wire_err_text *e)
{
	REQUIRE(isp_dev_log_page(dev, ISP_LID_ERRTEXT, e, sizeof(*e), 0) == (int)sizeof(*e));
}

#endif /* TESTS_CS_T_H */
