/* SPDX-License-Identifier: MIT */
/*
 * core_strings.c - error model: errno and NVMe status descriptions, the status to
 * errno mapping, names for opcodes, capabilities and classes, and the
 * completion result decoding. All thread-safe (static strings only).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libnvme.h>

#include "isp_wire.h"
#include "core_priv.h"

const char *reis_strerror(int err)
{
	switch (err) {
	case 0: return "success";
	case -EINVAL: return "invalid argument or command field";
	case -ENOMEM: return "out of memory";
	case -ENOENT: return "no such file, object or ID";
	case -EACCES: return "permission denied";
	case -EPERM: return "operation not permitted (passthrough needs CAP_SYS_ADMIN)";
	case -ENODEV: return "not an ISP drive (no ISP signature in Identify Controller)";
	case -ENXIO: return "invalid namespace";
	case -ENOSYS: return "transport not available (compiled out or unsupported by the kernel)";
	case -EOPNOTSUPP: return "command not supported (Invalid Opcode: unknown command or ISP disabled)";
	case -EPROTO: return "malformed data from the drive";
	case -EIO: return "I/O error";
	case -EBUSY: return "busy (queue full, request in flight, or object busy)";
	case -EAGAIN: return "resources exhausted, retry later";
	case -ETIME: return "timed out";
	case -EDEADLK: return "would wait inside a completion callback";
	case -ENOSPC: return "capacity exceeded";
	case -EEXIST: return "ID already exists";
	case -EADDRINUSE: return "ticket in use (retry with another ticket)";
	case -EDOM: return "dimension mismatch";
	case -ERANGE: return "offset out of range or out of order";
	case -ENODATA: return "incomplete (not every section written)";
	case -EBADMSG: return "malformed payload";
	case -EILSEQ: return "data miscompare";
	case -EINTR: return "interrupted";
	case -ENOTCONN: return "drive unreachable (its fabric link or controller is gone)";
	case -EFAULT: return "bad address";
	case -ENOTTY: return "not an NVMe device";
	case -ECANCELED: return "canceled";
	default: return "unknown error";
	}
}

/*
 * Generic, command-specific and media status codes: libnvme's strings. The
 * vendor-specific type (SCT 7h) means nothing to libnvme: those are the
 * ISP codes of docs/command-set.md §2.
 */
const char *reis_status_str(uint16_t status)
{
	if (((status & REIS_STATUS_CODE_MASK) >> 8) != 7)
		return nvme_status_to_string(status & REIS_STATUS_CODE_MASK, false);
	switch (status & REIS_STATUS_CODE_MASK) {
	case REIS_SC_UNKNOWN_ID: return "ISP Unknown ID";
	case REIS_SC_ID_EXISTS: return "ISP ID Exists";
	case REIS_SC_BUSY: return "ISP Busy";
	case REIS_SC_DIM_MISMATCH: return "ISP Dimension Mismatch";
	case REIS_SC_BAD_OFFSET: return "ISP Bad Offset";
	case REIS_SC_INCOMPLETE: return "ISP Incomplete";
	case REIS_SC_BAD_PAYLOAD: return "ISP Bad Payload";
	case REIS_SC_MISCOMPARE: return "ISP Miscompare";
	case REIS_SC_RESOURCE: return "ISP Resource Busy";
	case REIS_SC_TICKET_IN_USE: return "ISP Ticket In Use";
	default: return "Vendor Specific Status";
	}
}

/*
 * The status as libreis' messages give it: the name (libnvme's string up to
 * its ": " description, the ISP name for SCT 7h), the code, DNR and More,
 * e.g. "Invalid Field in Command (status 0x4002, DNR)".
 */
const char *reis__status_desc(uint16_t status, char *buf, size_t len)
{
	const char *s = reis_status_str(status), *colon = strstr(s, ": ");
	int n = colon ? (int)(colon - s) : (int)strlen(s);

	snprintf(buf, len, "%.*s (status 0x%04x%s%s)", n, s, status,
		 status & REIS_STATUS_DNR ? ", DNR" : "", status & REIS_STATUS_MORE ? ", More" : "");
	return buf;
}

int reis_status_errno(uint16_t status)
{
	switch (status & REIS_STATUS_CODE_MASK) {
	case REIS_SC_SUCCESS: return 0;
	case REIS_SC_INVALID_OPCODE: return -EOPNOTSUPP;
	case REIS_SC_INVALID_FIELD: return -EINVAL;
	case REIS_SC_DATA_XFER_ERROR: return -EIO;
	case REIS_SC_INTERNAL: return -EIO;
	case REIS_SC_INVALID_NSID: return -ENXIO;
	case REIS_SC_CAP_EXCEEDED: return -ENOSPC;
	case REIS_SC_UNKNOWN_ID: return -ENOENT;
	case REIS_SC_ID_EXISTS: return -EEXIST;
	case REIS_SC_BUSY: return -EBUSY;
	case REIS_SC_DIM_MISMATCH: return -EDOM;
	case REIS_SC_BAD_OFFSET: return -ERANGE;
	case REIS_SC_INCOMPLETE: return -ENODATA;
	case REIS_SC_BAD_PAYLOAD: return -EBADMSG;
	case REIS_SC_MISCOMPARE: return -EILSEQ;
	case REIS_SC_RESOURCE: return -EAGAIN;
	case REIS_SC_TICKET_IN_USE: return -EADDRINUSE;
	default: return -EIO;
	}
}

const char *reis_opcode_name(uint8_t opcode)
{
	switch (opcode) {
	case REIS_OP_NOOP: return "ISP_NOOP";
	case REIS_OP_ECHO_H2C: return "ISP_ECHO_H2C";
	case REIS_OP_IDENTIFY: return "ISP_IDENTIFY";
	case REIS_OP_ECHO_C2H: return "ISP_ECHO_C2H";
	case REIS_OP_STATS: return "ISP_STATS";
	case REIS_OP_TRACE_ARM: return "ISP_TRACE_ARM";
	case REIS_OP_DB_CREATE: return "REIS_DB_CREATE";
	case REIS_OP_DB_LIST: return "REIS_DB_LIST";
	case REIS_OP_DB_WRITE: return "REIS_DB_WRITE";
	case REIS_OP_DB_INFO: return "REIS_DB_INFO";
	case REIS_OP_DB_COMMIT: return "REIS_DB_COMMIT";
	case REIS_OP_SEARCH: return "REIS_SEARCH";
	case REIS_OP_DB_DELETE: return "REIS_DB_DELETE";
	case REIS_OP_IVF_SEARCH: return "REIS_IVF_SEARCH";
	case REIS_OP_DOC_READ: return "REIS_DOC_READ";
	case REIS_OP_META_READ: return "REIS_META_READ";
	case 0xa2: return "ISP_RESULT_READ";
	case 0xa4: return "ISP_RESULT_RELEASE";
	case REIS_OP_RF_TBL_CREATE: return "RF_TBL_CREATE";
	case REIS_OP_RF_TBL_LIST: return "RF_TBL_LIST";
	case REIS_OP_RF_TBL_WRITE: return "RF_TBL_WRITE";
	case REIS_OP_RF_TBL_STATS: return "RF_TBL_STATS";
	case REIS_OP_RF_TBL_COMMIT: return "RF_TBL_COMMIT";
	case REIS_OP_RF_SLS: return "RF_SLS";
	case REIS_OP_RF_TBL_DELETE: return "RF_TBL_DELETE";
	case REIS_OP_RF_PROFILE: return "RF_PROFILE";
	case REIS_OP_RF_REMAP: return "RF_REMAP";
	case REIS_OP_RF_SWITCH: return "RF_SWITCH";
	default: return NULL;
	}
}

const char *reis_req_strerror(const struct reis_req *req, char *buf, size_t len)
{
	const struct reis_cpl *cpl = &req->cpl;
	const char *name = reis_opcode_name(req->cmd.opcode);
	char op[8], st[REIS_STATUS_DESC_LEN];

	if (!buf || !len)
		return "";
	if (!name) {
		snprintf(op, sizeof(op), "0x%02x", req->cmd.opcode);
		name = op;
	}
	if (req->priv.state != REIS_REQ_DONE)
		snprintf(buf, len, "%s: %s", name,
			 req->priv.state == REIS_REQ_INFLIGHT ? "in flight" : "not submitted");
	else if (cpl->status)
		snprintf(buf, len, "%s: %s", name, reis__status_desc(cpl->status, st, sizeof(st)));
	else if (cpl->err)
		snprintf(buf, len, "%s: %s", name, reis_strerror(cpl->err));
	else
		snprintf(buf, len, "%s: ok", name);
	return buf;
}

uint64_t reis_result_time_ns(uint64_t result)
{
	return isp_wire_result_time_ns(result);
}

uint64_t reis_result_energy_nj(uint64_t result)
{
	return isp_wire_result_energy_nj(result);
}

void reis_pattern(uint32_t seed, void *buf, size_t len)
{
	isp_wire_pattern(seed, buf, len);
}

const char *reis_cap_name(uint64_t cap)
{
	switch (cap) {
	case REIS_CAP_ECHO: return "echo";
	case REIS_CAP_STATS: return "stats";
	case REIS_CAP_TIMING_DELAY: return "timing-delay";
	case REIS_CAP_TRACE: return "trace";
	case REIS_CAP_REIS: return "reis";
	case REIS_CAP_REIS_IVF: return "reis-ivf";
	case REIS_CAP_REIS_DF: return "reis-df";
	case REIS_CAP_REIS_PL: return "reis-pl";
	case REIS_CAP_REIS_MPIBC: return "reis-mpibc";
	case REIS_CAP_REIS_TAGS: return "reis-tags";
	case REIS_CAP_REIS_META: return "reis-meta";
	case REIS_CAP_RECFLASH: return "recflash";
	case REIS_CAP_RECFLASH_REMAP: return "recflash-remap";
	case REIS_CAP_RECFLASH_CACHE: return "recflash-cache";
	default: return NULL;
	}
}

const char *reis_cell_mode_name(uint32_t mode)
{
	static const char *const names[] = { "?", "slc", "mlc", "tlc", "qlc" };

	return mode < sizeof(names) / sizeof(names[0]) ? names[mode] : "?";
}

const char *reis_cmd_class_name(unsigned cls)
{
	static const char *const names[REIS_CLS_N] = {
		"device", "reis-deploy", "reis-search", "result",
		"recflash-deploy", "recflash-sls", "recflash-remap", "other",
	};

	return cls < REIS_CLS_N ? names[cls] : "?";
}

const char *reis_res_class_name(unsigned cls)
{
	static const char *const names[REIS_RES_N] = {
		"plane", "die", "channel", "core", "dram", "link",
	};

	return cls < REIS_RES_N ? names[cls] : "?";
}
