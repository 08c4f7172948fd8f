/* SPDX-License-Identifier: MIT */
/*
 * core_errlog.c - the drive's reason for a failed command (docs/command-set.md
 * §8): the drive records each failure in the Error Information log (LID 01h)
 * and its reason text and field location in LID C2h; this finds the entry of
 * a failed request (by the command digest: a host using the kernel's
 * passthrough does not know the CID it got) and turns it into the message
 * libreis reports, on every transport.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libnvme.h>

#include "isp_wire.h"
#include "core_priv.h"

int reis__log_raw(struct reis_dev *dev, uint8_t lid, uint64_t off, void *buf, uint32_t len,
		  int *nvme)
{
	struct nvme_get_log_args args;
	uint32_t result = 0;
	void *bounce;
	int ret;

	*nvme = 0;
	if (dev->fd < 0) {
		if (!dev->ops->log)
			return -EOPNOTSUPP;
		ret = dev->ops->log(dev, lid, off, buf, len);
		if (ret < 0)
			return ret;
		if ((uint32_t)ret < len)
			memset((uint8_t *)buf + ret, 0, len - (uint32_t)ret);
		return 0;
	}
	if (posix_memalign(&bounce, 4096, len))
		return -ENOMEM;
	memset(bounce, 0, len);
	memset(&args, 0, sizeof(args));
	args.args_size = sizeof(args);
	args.fd = dev->fd;
	args.timeout = NVME_DEFAULT_IOCTL_TIMEOUT;
	args.result = &result;
	args.lid = (enum nvme_cmd_get_log_lid)lid;
	args.nsid = NVME_NSID_ALL;
	args.csi = NVME_CSI_NVM;
	args.lsp = NVME_LOG_LSP_NONE;
	args.lsi = NVME_LOG_LSI_NONE;
	args.uuidx = NVME_UUID_NONE;
	args.lpo = off;
	args.len = len;
	args.log = bounce;
	errno = 0;
	/* In 4 KiB pieces, within any controller's MDTS. */
	*nvme = nvme_get_log_page(dev->fd, 4096, &args);
	if (*nvme < 0)
		ret = errno ? -errno : -EIO;
	else if (*nvme > 0)
		ret = reis_status_errno((uint16_t)*nvme);
	else
		ret = 0;
	if (!ret)
		memcpy(buf, bounce, len);
	free(bounce);
	return ret;
}

/* The newest entries suffice: the failure was just completed. */
#define REIS_ERRLOG_SCAN 16u

/*
 * reis__errlog_find() - the C2h entry of the failed @req, newest first.
 * Return: 0 with @out filled, -ENOENT when none matches, or -errno from the
 * log read.
 */
static int reis__errlog_find(struct reis_dev *dev, const struct reis_req *req,
			     struct isp_wire_err_text *out)
{
	struct isp_wire_err_text e[REIS_ERRLOG_SCAN];
	const uint32_t cdw[6] = { req->cmd.cdw10, req->cmd.cdw11, req->cmd.cdw12,
				  req->cmd.cdw13, req->cmd.cdw14, req->cmd.cdw15 };
	uint64_t dg = isp_wire_cmd_digest(req->cmd.opcode, req->cmd.nsid, cdw);
	uint8_t opc = req->cmd.opcode;
	unsigned i;
	int nvme, ret;

	if (req->priv.rsvd0 & REIS__PRIV_WIRE) {	/* the standard path's command */
		opc = (uint8_t)req->priv.rsvd0;
		dg = req->priv.rsvd1;
	}

	ret = reis__log_raw(dev, ISP_LID_ERRTEXT, 0, e, sizeof(e), &nvme);
	if (ret)
		return ret;
	for (i = 0; i < REIS_ERRLOG_SCAN && e[i].error_count; i++)
		if (e[i].cmd_digest == dg && e[i].opcode == opc &&
		    e[i].status == (req->cpl.status & 0x7fffu)) {
			*out = e[i];
			out->msg[sizeof(out->msg) - 1] = 0;
			return 0;
		}
	return -ENOENT;
}

/*
 * reis_errinfo_note() - remember the fields of a drive failure with the
 * start of its message (@e: its error log entry, or NULL).
 */
static void reis_errinfo_note(struct reis_dev *dev, const struct reis_req *req,
			      const struct isp_wire_err_text *e, const char *msg)
{
	struct reis_errinfo_slot *s = &dev->errinfo[dev->errinfo_next++ % REIS_ERRINFO_RING];
	struct reis_err_info *i = &s->info;

	memset(s, 0, sizeof(*s));
	snprintf(s->key, sizeof(s->key), "%s", msg);
	i->status = req->cpl.status;
	i->opcode = req->cmd.opcode;
	i->cmd_byte = -1;
	i->data_byte = -1;
	if (!e)
		return;
	i->logged = 1;
	i->sqid = e->sqid;
	i->cid = e->cid;
	i->error_count = e->error_count;
	if (e->loc != ISP_ERR_LOC_NONE) {
		i->cmd_byte = e->loc & 0xff;
		i->bit = (e->loc >> 8) & 7u;
	} else if (e->data_byte) {
		i->data_byte = e->data_byte - 1;
		i->bit = e->data_bit;
	}
	snprintf(i->reason, sizeof(i->reason), "%s", e->msg);
}

int reis_last_error_info(const struct reis_dev *dev, struct reis_err_info *info)
{
	unsigned k;

	if (!dev || !info)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	info->cmd_byte = -1;
	info->data_byte = -1;
	if (!dev->errmsg[0])
		return 0;
	/* newest first: the message a later wrapper kept names its failure */
	for (k = 1; k <= REIS_ERRINFO_RING; k++) {
		const struct reis_errinfo_slot *s =
			&dev->errinfo[(dev->errinfo_next - k) % REIS_ERRINFO_RING];

		if (s->key[0] && strstr(dev->errmsg, s->key)) {
			*info = s->info;
			return 1;
		}
	}
	return 0;
}

const char *reis__req_errmsg(struct reis_dev *dev, const struct reis_req *req, char *buf,
			     size_t len)
{
	return reis__req_errmsg_obj(dev, req, "", buf, len);
}

const char *reis__req_errmsg_obj(struct reis_dev *dev, const struct reis_req *req,
				 const char *obj, char *buf, size_t len)
{
	struct isp_wire_err_text e;
	const char *name;
	char where[48], op[8 + 80], st[REIS_STATUS_DESC_LEN];
	unsigned bit;

	reis_req_strerror(req, buf, len);
	name = reis_opcode_name(req->cmd.opcode);
	if (name)
		snprintf(op, sizeof(op), "%s%s", name, obj);
	else
		snprintf(op, sizeof(op), "0x%02x%s", req->cmd.opcode, obj);
	if (obj[0]) {	/* "NAME: ..." becomes "NAME OBJ: ..." */
		const char *rest = strstr(buf, ": ");
		char tmp[REIS_ERRMSG_LEN];

		snprintf(tmp, sizeof(tmp), "%s%s", op, rest ? rest : "");
		snprintf(buf, len, "%s", tmp);
	}
	if (!dev || req->priv.state != REIS_REQ_DONE || !req->cpl.status)
		return buf;
	if (req->cmd.opcode < 0x80 || reis__errlog_find(dev, req, &e)) {
		reis_errinfo_note(dev, req, NULL, buf);
		return buf;
	}
	name = op;
	if (e.loc != ISP_ERR_LOC_NONE)
		snprintf(where, sizeof(where), ", command byte %u", e.loc & 0xffu);
	else if (e.data_byte)
		snprintf(where, sizeof(where), ", data byte %u", e.data_byte - 1u);
	else
		where[0] = 0;
	bit = e.loc != ISP_ERR_LOC_NONE ? (e.loc >> 8) & 7u : e.data_bit;
	if (where[0] && bit)
		snprintf(where + strlen(where), sizeof(where) - strlen(where), " bit %u", bit);
	/* The reason first, then the status, then where the log has it: a
	 * reader who stops early still has what went wrong. */
	snprintf(buf, len, "%s: %s: %s; error log entry %llu (SQID %u CID %u%s)", name, e.msg,
		 reis__status_desc(req->cpl.status, st, sizeof(st)),
		 (unsigned long long)e.error_count, e.sqid, e.cid, where);
	reis_errinfo_note(dev, req, &e, buf);
	return buf;
}
