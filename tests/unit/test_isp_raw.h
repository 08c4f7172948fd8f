/* SPDX-License-Identifier: MIT */
/*
 * test_isp_raw.h - REIS commands built by hand, for the tests that need a
 * database of an exact shape (test_isp_budget.c, test_fuzz_regress.c).
 */
#ifndef TEST_ISP_RAW_H
#define TEST_ISP_RAW_H

#include "test_rf_util.h"

/* One DB_WRITE of @len bytes of section @sec at offset @off. */
static inline uint16_t raw_db_write(struct isp_dev *dev, uint32_t did, uint32_t sec,
				    uint64_t off, const void *data, uint32_t len)
{
	struct isp_cmd c = rt_cmd(ISP_OP_REIS_DB_WRITE, len);

	c.cdw12 = did;
	c.cdw13 = sec;
	c.cdw14 = (uint32_t)off;
	c.cdw15 = (uint32_t)(off >> 32);
	return rt_exec(dev, &c, (void *)(uintptr_t)data, NULL);
}

static inline uint16_t raw_db_create(struct isp_dev *dev, struct isp_wire_reis_create *cr)
{
	struct isp_cmd c = rt_cmd(ISP_OP_REIS_DB_CREATE, sizeof(*cr));

	return rt_exec(dev, &c, cr, NULL);
}

/* A search (or IVF search) under @ticket: 0 or its status. */
static inline uint16_t raw_search(struct isp_dev *dev, int ivf, uint32_t ticket,
				  struct isp_wire_reis_search *s, uint8_t *q, uint32_t len)
{
	struct isp_cmd c = rt_cmd(ivf ? ISP_OP_REIS_IVF_SEARCH : ISP_OP_REIS_SEARCH, len);

	memcpy(q, s, sizeof(*s));
	c.cdw12 = ticket;
	return rt_exec(dev, &c, q, NULL);
}

#endif /* TEST_ISP_RAW_H */
