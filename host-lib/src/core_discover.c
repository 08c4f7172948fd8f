/* SPDX-License-Identifier: MIT */
/*
 * core_discover.c - finding ISP drives with libnvme's topology scan. A
 * namespace qualifies when Identify Controller carries the "ISP1" signature
 * in its vendor-specific area (docs/command-set.md §3.3), the Commands
 * Supported and Effects log lists ISP_IDENTIFY when it may be read, and
 * ISP_IDENTIFY then succeeds. The signature comes first so no vendor opcode
 * ever reaches a drive that could give it another meaning. Everything seen
 * is kept with the reason it was rejected, for REIS_DISCOVER_ALL. Each
 * entry carries its controller's transport, subsystem NQN and address, so
 * a drive reached over NVMe/TCP ("tcp", the target's NQN and traddr) is
 * told from a local one ("pcie", its PCI address; docs/fabric.md).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <libnvme.h>

#include "isp_wire.h"
#include "core_priv.h"

/* Bounds the scan's memory whatever sysfs holds. */
#define REIS_DISC_MAX 1024

struct reis_disc_scan {
	struct reis_disc *e;
	unsigned n;
	uint32_t open_flags;
};

/* Copy a sysfs string, blanks at the end removed (model and serial are padded). */
static void reis_copy_trim(char *dst, size_t len, const char *src)
{
	size_t n;

	snprintf(dst, len, "%s", src ? src : "");
	n = strlen(dst);
	while (n && (dst[n - 1] == ' ' || dst[n - 1] == '\n'))
		dst[--n] = 0;
}

static unsigned long reis_name_num(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	return name && !strncmp(name, prefix, n) ? strtoul(name + n, NULL, 10) : ~0ul;
}

static int reis_disc_cmp(const void *a, const void *b)
{
	const struct reis_disc *x = a, *y = b;
	unsigned long cx = reis_name_num(x->ctrl, "nvme"), cy = reis_name_num(y->ctrl, "nvme");

	if (cx != cy)
		return cx < cy ? -1 : 1;
	if (x->nsid != y->nsid)
		return x->nsid < y->nsid ? -1 : 1;
	return strcmp(x->path, y->path);
}

static void reis_reject(struct reis_disc *e, int err, const char *fmt, const char *arg)
{
	e->err = err;
	snprintf(e->why, sizeof(e->why), fmt, arg);
}

/* The permission sentence for a command the kernel refused. */
static void reis_reject_perm(struct reis_disc *e, int err, const char *what)
{
	e->err = err;
	snprintf(e->why, sizeof(e->why),
		 "no permission for %s (%s): vendor opcodes through /dev/ng* need "
		 "CAP_SYS_ADMIN", what, reis_strerror(err));
}

/*
 * The checks of one namespace, in the order that keeps vendor opcodes away
 * from drives without the signature.
 */
static void reis_probe(struct reis_disc *e, uint32_t open_flags)
{
	const struct reis_info *info;
	struct reis_dev *dev;
	int fd, ret;

	fd = open(e->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -EACCES || ret == -EPERM)
			reis_reject_perm(e, ret, "opening the device");
		else
			reis_reject(e, ret, "cannot open it: %s", reis_strerror(ret));
		return;
	}
	ret = reis__idctrl_is_isp(fd);
	if (ret == 0) {
		reis_reject(e, -ENODEV, "no ISP signature in Identify Controller's "
			    "vendor-specific area (model '%s')", e->model);
	} else if (ret == -EACCES || ret == -EPERM) {
		reis_reject_perm(e, ret, "Identify Controller");
	} else if (ret < 0) {
		reis_reject(e, ret, "Identify Controller failed: %s", reis_strerror(ret));
	} else if (reis__effects_supports(fd, ISP_OP_IDENTIFY) == 0) {
		/* An unreadable log (no permission) proves nothing either way. */
		reis_reject(e, -ENODEV, "%s", "ISP signature, but the Commands Supported "
			    "and Effects log does not list ISP_IDENTIFY (82h)");
	}
	close(fd);
	if (e->err)
		return;

	ret = reis_open(e->path, open_flags, &dev);
	if (ret == -EACCES || ret == -EPERM) {
		reis_reject_perm(e, ret, "ISP_IDENTIFY");
		return;
	}
	if (ret) {
		reis_reject(e, ret, "ISP_IDENTIFY failed: %s", reis_strerror(ret));
		return;
	}
	info = reis_dev_info(dev);
	e->nsid = dev->nsid;	/* the kernel's word, whatever sysfs named it */
	e->ver_major = info->ver_major;
	e->ver_minor = info->ver_minor;
	e->caps = info->caps;
	e->max_xfer = reis_max_xfer(dev);
	snprintf(e->preset, sizeof(e->preset), "%s", info->preset);
	reis_close(dev);
}

/*
 * A controller attribute from sysfs when libnvme left it empty: whether a
 * drive is local (transport "pcie") or behind a fabric ("tcp", "rdma",
 * "fc"; docs/fabric.md) must be known even when the scan ran unprivileged.
 */
static void reis_disc_sysfs_attr(char *dst, size_t len, nvme_ctrl_t c, const char *attr)
{
	const char *dir = nvme_ctrl_get_sysfs_dir(c);
	char path[512], buf[256];
	ssize_t n;
	int fd;

	if (dst[0] || !dir || snprintf(path, sizeof(path), "%s/%s", dir, attr) >= (int)sizeof(path))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	reis_copy_trim(dst, len, buf);
}

static struct reis_disc *reis_disc_add(struct reis_disc_scan *s, nvme_ctrl_t c)
{
	struct reis_disc *e;

	if (s->n >= REIS_DISC_MAX)
		return NULL;
	e = &s->e[s->n++];
	memset(e, 0, sizeof(*e));
	snprintf(e->ctrl, sizeof(e->ctrl), "%s", nvme_ctrl_get_name(c));
	reis_copy_trim(e->subsysnqn, sizeof(e->subsysnqn), nvme_ctrl_get_subsysnqn(c));
	reis_copy_trim(e->transport, sizeof(e->transport), nvme_ctrl_get_transport(c));
	reis_copy_trim(e->address, sizeof(e->address), nvme_ctrl_get_address(c));
	reis_copy_trim(e->model, sizeof(e->model), nvme_ctrl_get_model(c));
	reis_copy_trim(e->serial, sizeof(e->serial), nvme_ctrl_get_serial(c));
	reis_copy_trim(e->firmware, sizeof(e->firmware), nvme_ctrl_get_firmware(c));
	reis_disc_sysfs_attr(e->transport, sizeof(e->transport), c, "transport");
	reis_disc_sysfs_attr(e->subsysnqn, sizeof(e->subsysnqn), c, "subsysnqn");
	reis_disc_sysfs_attr(e->address, sizeof(e->address), c, "address");
	return e;
}

/*
 * One namespace by its block device name ("nvme0n1"); a multipath namespace
 * shows up once per path and under its subsystem: keep one.
 */
static void reis_disc_ns(struct reis_disc_scan *s, nvme_ctrl_t c, const char *name,
			 uint32_t nsid)
{
	unsigned long ci, ni;
	struct reis_disc *e;
	char path[REIS_PATH_MAX], end;
	unsigned i;

	/* "nvme0c1n1" is one path of "nvme0n1": it has no char device. */
	if (!name || sscanf(name, "nvme%lun%lu%c", &ci, &ni, &end) != 2)
		return;
	snprintf(path, sizeof(path), "/dev/ng%lun%lu", ci, ni);
	for (i = 0; i < s->n; i++)
		if (!strcmp(s->e[i].path, path))
			return;
	e = reis_disc_add(s, c);
	if (!e)
		return;
	snprintf(e->path, sizeof(e->path), "%s", path);
	e->nsid = nsid ? nsid : (uint32_t)ni;
	if (access(path, F_OK))
		reis_reject(e, -ENOENT, "%s", "no generic char device (/dev/ngXnY) for "
			    "the namespace: the kernel is older than 5.13 or udev did not "
			    "create it");
	else
		reis_probe(e, s->open_flags);
}

static void reis_disc_sysfs_dir(struct reis_disc_scan *s, nvme_ctrl_t c, const char *dir)
{
	struct dirent *de;
	DIR *d;

	d = dir ? opendir(dir) : NULL;
	if (!d)
		return;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "nvme", 4))
			reis_disc_ns(s, c, de->d_name, 0);
	closedir(d);
}

/*
 * libnvme drops a namespace it cannot open to identify (no permission):
 * sysfs still names it, in the controller's directory, or with native
 * multipath (QEMU 10's implicit subsystem) as the head "nvmeXnY" in the
 * subsystem's directory while the controller holds only the path "nvmeXcYnZ".
 */
static void reis_disc_sysfs_ns(struct reis_disc_scan *s, nvme_subsystem_t sub, nvme_ctrl_t c)
{
	reis_disc_sysfs_dir(s, c, nvme_ctrl_get_sysfs_dir(c));
	reis_disc_sysfs_dir(s, c, nvme_subsystem_get_sysfs_dir(sub));
}

static void reis_disc_ctrl(struct reis_disc_scan *s, nvme_subsystem_t sub, nvme_ctrl_t c)
{
	unsigned before = s->n;
	struct reis_disc *e;
	nvme_ns_t ns;

	nvme_ctrl_for_each_ns(c, ns)
		reis_disc_ns(s, c, nvme_ns_get_name(ns), (uint32_t)nvme_ns_get_nsid(ns));
	/* With native multipath the namespaces hang off the subsystem. */
	nvme_subsystem_for_each_ns(sub, ns)
		reis_disc_ns(s, c, nvme_ns_get_name(ns), (uint32_t)nvme_ns_get_nsid(ns));
	if (s->n == before)
		reis_disc_sysfs_ns(s, sub, c);
	if (s->n != before)
		return;
	e = reis_disc_add(s, c);
	if (e)
		reis_reject(e, -ENOENT, "%s", "the controller has no namespace: ISP "
			    "commands are I/O commands and need one");
}

int reis_discover(struct reis_disc *out, unsigned max, uint32_t flags)
{
	struct reis_disc_scan s;
	nvme_subsystem_t sub;
	nvme_host_t host;
	nvme_root_t root;
	nvme_ctrl_t c;
	unsigned i;
	int found = 0, scan_err = 0;

	if (max && !out)
		return -EINVAL;
	memset(&s, 0, sizeof(s));
	/* Discovery never forces vendor commands onto unknown drives. */
	s.open_flags = flags & ~(REIS_OPEN_FORCE | REIS_DISCOVER_ALL);
	s.e = calloc(REIS_DISC_MAX, sizeof(*s.e));
	if (!s.e)
		return -ENOMEM;
	/* libnvme's own messages would land on the caller's stderr. */
	root = nvme_create_root(stderr, LOG_CRIT);
	if (!root) {
		free(s.e);
		return errno ? -errno : -ENOMEM;
	}
	/*
	 * Without privileges part of the scan fails (libnvme opens devices to
	 * identify namespaces): what it did see is still worth reporting.
	 */
	errno = 0;
	if (nvme_scan_topology(root, NULL, NULL) < 0)
		scan_err = errno && errno != ENOENT ? -errno : 0;
	nvme_for_each_host(root, host)
		nvme_for_each_subsystem(host, sub)
			nvme_subsystem_for_each_ctrl(sub, c)
				reis_disc_ctrl(&s, sub, c);
	nvme_free_tree(root);
	if (!s.n && scan_err) {
		free(s.e);
		return scan_err;
	}

	qsort(s.e, s.n, sizeof(*s.e), reis_disc_cmp);
	for (i = 0; i < s.n; i++) {
		if (s.e[i].err && !(flags & REIS_DISCOVER_ALL))
			continue;
		if ((unsigned)found < max)
			out[found] = s.e[i];
		found++;
	}
	free(s.e);
	return found;
}
