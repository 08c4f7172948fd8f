/* SPDX-License-Identifier: MIT */
/*
 * core_open.c - opening a handle: pick the transport (io_uring, falling back
 * to ioctl; or in-process), check the drive is an ISP drive before any
 * vendor opcode reaches it (docs/command-set.md §3.3), bound max_xfer by the
 * kernel's limits and identify. Apart from core_dev.c so the request life
 * cycle does not depend on the transports and commands built on top of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core_priv.h"

/* Best effort: the kernel's limits for the block device behind @path. */
static uint32_t reis_sysfs_cap(const char *path)
{
	const char *base = strrchr(path, '/');
	unsigned long ctrl, ns, kb = 0, segs = 0;
	char sys[128], end;
	uint64_t cap = UINT32_MAX;
	FILE *f;

	base = base ? base + 1 : path;
	if (sscanf(base, "ng%lun%lu%c", &ctrl, &ns, &end) != 2 &&
	    sscanf(base, "nvme%lun%lu%c", &ctrl, &ns, &end) != 2)
		return UINT32_MAX;
	snprintf(sys, sizeof(sys), "/sys/block/nvme%lun%lu/queue/max_hw_sectors_kb",
		 ctrl, ns);
	f = fopen(sys, "r");
	if (f) {
		if (fscanf(f, "%lu", &kb) == 1 && kb && kb < UINT32_MAX / 1024u)
			cap = (uint64_t)kb * 1024u;
		fclose(f);
	}
	snprintf(sys, sizeof(sys), "/sys/block/nvme%lun%lu/queue/max_segments",
		 ctrl, ns);
	f = fopen(sys, "r");
	if (f) {
		/* A user buffer that is not page aligned spans one page more. */
		long pg = sysconf(_SC_PAGESIZE);

		if (fscanf(f, "%lu", &segs) == 1 && segs > 1 && segs < 65536 && pg > 0 &&
		    (segs - 1) * (uint64_t)pg < cap)
			cap = (segs - 1) * (uint64_t)pg;
		fclose(f);
	}
	return (uint32_t)cap;
}

int reis__open_finish(struct reis_dev *dev)
{
	struct reis_info info;

	if (dev->fd >= 0) {
		uint32_t cap = reis_sysfs_cap(dev->path) & ~3u;

		if (cap < dev->xfer_cap)
			dev->xfer_cap = cap < REIS_IDENTIFY_LEN ? REIS_IDENTIFY_LEN : cap;
	}
	return reis_identify(dev, &info);
}

static int reis_open_chr(struct reis_dev *dev, const char *path, uint32_t flags)
{
	int ret;

	dev->fd = open(path, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0)
		return -errno;
	ret = reis__nsid(dev->fd, &dev->nsid);
	if (ret)
		return ret;
	if (!(flags & REIS_OPEN_FORCE) && reis__idctrl_is_isp(dev->fd) == 0)
		return -ENODEV;
	return 0;
}

int reis_open(const char *path, uint32_t flags, struct reis_dev **out)
{
	return reis_open_qd(path, flags, 0, out);
}

int reis_open_qd(const char *path, uint32_t flags, uint32_t qdepth, struct reis_dev **out)
{
	const uint32_t known = REIS_OPEN_IOCTL | REIS_OPEN_URING | REIS_OPEN_FORCE |
			       REIS_OPEN_CP | REIS_OPEN_VENDOR;
	struct reis_dev *dev;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!path || !*path || strlen(path) >= REIS_PATH_MAX || (flags & ~known) ||
	    (flags & REIS_OPEN_IOCTL && flags & REIS_OPEN_URING) ||
	    (flags & REIS_OPEN_CP && flags & REIS_OPEN_VENDOR) || qdepth > REIS_QDEPTH_MAX)
		return -EINVAL;
	dev = reis__dev_alloc(flags & REIS_OPEN_IOCTL ? &reis__be_ioctl : &reis__be_uring,
			      path, qdepth);
	if (!dev)
		return -ENOMEM;
	dev->open_flags = flags;
	ret = reis_open_chr(dev, path, flags);
	if (ret)
		goto fail;
	ret = dev->ops->open(dev, path, NULL);
	if (ret && dev->ops == &reis__be_uring && !(flags & REIS_OPEN_URING) &&
	    (ret == -ENOSYS || ret == -EINVAL || ret == -EOPNOTSUPP || ret == -EPERM)) {
		/* Kernel without SQE128/CQE32 or io_uring disabled. */
		dev->ops = &reis__be_ioctl;
		ret = dev->ops->open(dev, path, NULL);
	}
	if (ret)
		goto fail;
	/* the standard path: before the first command, Identify included */
	if (reis__want_cp(flags & REIS_OPEN_CP, flags & REIS_OPEN_VENDOR)) {
		ret = reis__cp_wrap(dev);
		if (ret)
			goto fail;
	}
	ret = reis__open_finish(dev);
	if (ret)
		goto fail;
	*out = dev;
	return 0;
fail:
	reis_close(dev);
	return ret;
}

int reis_open_inproc(const struct reis_inproc_opts *opts, struct reis_dev **out)
{
	static const struct reis_inproc_opts defaults;
	struct reis_dev *dev;
	unsigned i;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!opts)
		opts = &defaults;
	for (i = 0; i < sizeof(opts->rsvd) / sizeof(opts->rsvd[0]); i++)
		if (opts->rsvd[i])
			return -EINVAL;
	if (opts->qdepth > REIS_QDEPTH_MAX) {
		if (opts->errbuf && opts->errlen)
			snprintf(opts->errbuf, opts->errlen, "qdepth %u out of range [1, %u]",
				 opts->qdepth, REIS_QDEPTH_MAX);
		return -EINVAL;
	}
	dev = reis__dev_alloc(&reis__be_inproc, "inproc", opts->qdepth);
	if (!dev)
		return -ENOMEM;
	dev->nsid = 1;
	ret = dev->ops->open(dev, NULL, opts);
	if (ret)
		goto fail;
	if (reis__want_cp(opts->flags & REIS_INPROC_CP, opts->flags & REIS_INPROC_VENDOR)) {
		ret = reis__cp_wrap(dev);
		if (ret) {
			if (opts->errbuf && opts->errlen)
				snprintf(opts->errbuf, opts->errlen, "%s", dev->errmsg);
			goto fail;
		}
	}
	ret = reis__open_finish(dev);
	if (ret) {
		if (opts->errbuf && opts->errlen)
			snprintf(opts->errbuf, opts->errlen, "%s", dev->errmsg);
		goto fail;
	}
	*out = dev;
	return 0;
fail:
	reis_close(dev);
	return ret;
}

