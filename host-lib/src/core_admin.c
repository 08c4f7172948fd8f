/* SPDX-License-Identifier: MIT */
/*
 * core_admin.c - the admin commands libreis needs, through libnvme's
 * helpers: Identify Controller and its vendor-specific area (the "ISP1"
 * signature, docs/command-set.md §3.3), the Commands Supported and Effects
 * log, and the vendor log pages C0h/C1h (§3.3, §3.4). libnvme returns an
 * NVMe status (> 0) or -1 with errno; here both become -errno.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include <libnvme.h>

#include "core_priv.h"

_Static_assert(sizeof(struct nvme_id_ctrl) == 4096, "Identify Controller");
_Static_assert(offsetof(struct nvme_id_ctrl, vs) == REIS_IDCTRL_VS_OFF,
	       "vendor-specific area");

/* libnvme's "status or -1/errno" as one -errno. */
static int reis_nvme_ret(int ret)
{
	if (ret < 0)
		return errno ? -errno : -EIO;
	if (ret > 0)
		return reis_status_errno((uint16_t)ret);
	return 0;
}

int reis__idctrl_is_isp(int fd)
{
	struct nvme_id_ctrl *id;
	int ret;

	/* Page-aligned: some kernels bounce unaligned passthrough buffers. */
	if (posix_memalign((void **)&id, 4096, sizeof(*id)))
		return -ENOMEM;
	memset(id, 0, sizeof(*id));
	errno = 0;
	ret = reis_nvme_ret(nvme_identify_ctrl(fd, id));
	if (!ret)
		ret = memcmp(id->vs, "ISP1", 4) == 0;
	free(id);
	return ret;
}

int reis__nsid(int fd, uint32_t *nsid)
{
	__u32 id = 0;

	errno = 0;
	if (nvme_get_nsid(fd, &id) < 0)
		return errno && errno != ENOTTY && errno != EINVAL ? -errno : -ENODEV;
	/* The kernel's ioctl returns the id as its value: > 2^31 looks negative. */
	if (!id || id > INT32_MAX)
		return -ENODEV;
	*nsid = id;
	return 0;
}

int reis__effects_supports(int fd, uint8_t opcode)
{
	struct nvme_cmd_effects_log *log;
	int ret;

	if (posix_memalign((void **)&log, 4096, sizeof(*log)))
		return -ENOMEM;
	memset(log, 0, sizeof(*log));
	errno = 0;
	ret = reis_nvme_ret(nvme_get_log_cmd_effects(fd, NVME_CSI_NVM, log));
	if (!ret)
		ret = (log->iocs[opcode] & NVME_CMD_EFFECTS_CSUPP) != 0;
	free(log);
	return ret;
}

int reis_log_page(struct reis_dev *dev, uint8_t lid, uint64_t offset, void *buf,
		  uint32_t len)
{
	char st[REIS_STATUS_DESC_LEN];
	int ret, nvme = 0;

	if (!dev || !buf || len < 4 || len > REIS_LOG_MAX || (len & 3u) || (offset & 3u))
		return reis__seterr(dev, -EINVAL, "log page %02xh: bad buffer, length %u or "
				    "offset %llu", lid, len, (unsigned long long)offset);
	if (dev->fd < 0 && !dev->ops->log)
		return reis__seterr(dev, -EOPNOTSUPP, "log page %02xh: the %s transport has "
				    "no admin queue", lid, dev->ops->name);
	ret = reis__log_raw(dev, lid, offset, buf, len, &nvme);
	if (ret && nvme > 0)
		return reis__seterr(dev, ret, "log page %02xh: %s", lid,
				    reis__status_desc((uint16_t)nvme, st, sizeof(st)));
	if (ret)
		return reis__seterr(dev, ret, "log page %02xh: %s", lid, reis_strerror(ret));
	reis__seterr(dev, 0, "%s", "");
	return 0;
}

/*
 * An admin command through the handle's char device (NVME_IOCTL_ADMIN64_CMD),
 * for the standard interface (transport_cp.c): the CP admin commands and
 * the Identify structures of the memory and compute namespaces. Returns 0
 * when the drive answered (@cpl's status and result), else -errno.
 */
int reis__admin_ioctl(int fd, const struct reis_cmd *cmd, void *data, uint32_t len,
		      struct reis_cpl *cpl)
{
	struct nvme_passthru_cmd64 c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.opcode = cmd->opcode;
	c.nsid = cmd->nsid;
	c.cdw2 = cmd->cdw2;
	c.cdw3 = cmd->cdw3;
	c.addr = (uint64_t)(uintptr_t)data;
	c.data_len = len;
	c.cdw10 = cmd->cdw10;
	c.cdw11 = cmd->cdw11;
	c.cdw12 = cmd->cdw12;
	c.cdw13 = cmd->cdw13;
	c.cdw14 = cmd->cdw14;
	c.cdw15 = cmd->cdw15;
	do {
		ret = ioctl(fd, NVME_IOCTL_ADMIN64_CMD, &c);
	} while (ret < 0 && errno == EINTR);
	memset(cpl, 0, sizeof(*cpl));
	if (ret < 0)
		return -errno;
	cpl->result = c.result;
	cpl->status = (uint16_t)(ret & 0xffff);
	return 0;
}
