/* SPDX-License-Identifier: MIT */
/*
 * drive_reis_meta_read.c - reading a database's META section back from the
 * drive (docs/command-set.md §4, REIS_META_READ) and reis_db_quantizer(),
 * which lets a host that did not deploy a database encode queries for it.
 * Apart from the codec (drive_reis_meta.c) because it asks for the
 * database's info, and the deploy that uses the codec must not depend on it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "isp_wire.h"
#include "drive_reis_priv.h"

int reis_db_meta_read(struct reis_dev *dev, uint32_t did, uint64_t off, void *buf,
		      uint32_t len)
{
	struct reis_req req;

	if (!dev)
		return -EINVAL;
	if (!buf || !len || len % 4)
		return reis__seterr(dev, -EINVAL, "REIS_META_READ: %u bytes: need a buffer of "
				    "a positive multiple of 4 bytes", len);
	reis_prep_cmd(&req, REIS_OP_META_READ, buf, len);
	req.cmd.cdw12 = did;
	req.cmd.cdw14 = (uint32_t)off;
	req.cmd.cdw15 = (uint32_t)(off >> 32);
	return reis_exec(dev, &req);
}

int reis_db_meta_fetch(struct reis_dev *dev, uint32_t did, void **blob, uint64_t *len)
{
	struct reis_db_info info;
	uint64_t off;
	uint8_t *b;
	int ret;

	if (!dev || !blob || !len)
		return -EINVAL;
	*blob = NULL;
	*len = 0;
	ret = reis_db_info(dev, did, &info);
	if (ret)
		return ret;
	if (!info.meta_bytes)
		return reis__seterr(dev, -ENODATA, "database %u has no META section", did);
	/* Whole dwords: the last read may run up to 3 bytes past the end. */
	b = malloc(((uint64_t)info.meta_bytes + 3) & ~UINT64_C(3));
	if (!b)
		return reis__seterr(dev, -ENOMEM, "REIS_META_READ: out of memory");
	for (off = 0; off < info.meta_bytes; ) {
		uint32_t n = reis__read_len(dev, off, info.meta_bytes);

		ret = reis_db_meta_read(dev, did, off, b + off, n);
		if (ret) {
			free(b);
			return ret;
		}
		off += n;
	}
	*blob = b;
	*len = info.meta_bytes;
	return 0;
}

int reis_db_quantizer(struct reis_dev *dev, uint32_t did, struct reis_quant *quant)
{
	struct reis_db_info info;
	char err[REIS_ERRMSG_LEN];
	void *blob;
	uint64_t len;
	int ret;

	if (!dev || !quant)
		return -EINVAL;
	memset(quant, 0, sizeof(*quant));
	ret = reis_db_info(dev, did, &info);
	if (ret)
		return ret;
	if (!info.meta_bytes)
		return reis__seterr(dev, -ENODATA, "database %u carries no quantizer (no META "
				    "section: deployed without one or with REIS_DEPLOY_NO_META)",
				    did);
	ret = reis_db_meta_fetch(dev, did, &blob, &len);
	if (ret)
		return ret;
	ret = reis_meta_decode(blob, len, info.dim, info.metric, quant, err, sizeof(err));
	free(blob);
	if (ret)
		return reis__seterr(dev, ret, "database %u: %s", did, err);
	return 0;
}

int reis_db_recall(struct reis_dev *dev, uint32_t did, struct reis_recall_est *out,
		   unsigned max)
{
	struct reis_db_info info;
	void *blob;
	uint64_t len;
	int ret;

	if (!dev || (max && !out))
		return -EINVAL;
	ret = reis_db_info(dev, did, &info);
	if (ret)
		return ret;
	if (!info.meta_bytes)
		return 0;
	ret = reis_db_meta_fetch(dev, did, &blob, &len);
	if (ret)
		return ret;
	ret = reis_meta_recall(blob, len, out, max);
	free(blob);
	if (ret < 0)
		return reis__seterr(dev, ret, "database %u: malformed recall estimates in META",
				    did);
	return ret;
}
