/* SPDX-License-Identifier: MIT */
/*
 * errlog_t.h - what the error-log tests (test_reis_errlog in-process,
 * test_vm_errlog in the VM) share: one search with the fields that fail,
 * and the little-endian fields of a Get Log Page 01h entry.
 */
#ifndef TESTS_ERRLOG_T_H
#define TESTS_ERRLOG_T_H

#include <stdint.h>
#include <string.h>

#include "libreis.h"

/* A search of database @did; IVF_SEARCH when @nprobe is set. */
static inline int errlog_search(struct reis_dev *dev, uint32_t did, uint32_t k, uint32_t flags,
				uint32_t tag, uint32_t df, uint32_t nprobe,
				const struct reis_queries *q)
{
	struct reis_search_opts o;
	struct reis_search_result r;
	int ret;

	memset(&o, 0, sizeof(o));
	o.did = did;
	o.k = k;
	o.flags = flags;
	o.tag = tag;
	o.df_threshold = df;
	o.nprobe = nprobe;
	ret = nprobe ? reis_ivf_search(dev, &o, q, &r) : reis_search(dev, &o, q, &r);
	if (!ret)
		reis_search_result_free(&r);
	return ret;
}

static inline uint64_t errlog_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint16_t errlog_u16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

#endif /* TESTS_ERRLOG_T_H */
