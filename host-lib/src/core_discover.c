/* SPDX-License-Identifier: MIT */
/*
 * core_discover.c - finding ISP drives. A drive qualifies when Identify
 * Controller carries the "ISP1" signature in its vendor-specific area
 * (docs/command-set.md §3.3) and ISP_IDENTIFY then succeeds. The signature
 * is checked first so no vendor opcode ever reaches a drive that could give
 * it another meaning. libnvme is not needed for this.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/nvme_ioctl.h>

#include "core_priv.h"

#define REIS_DISC_MAX_NAMES 1024

struct reis_ngname {
	unsigned long ctrl, ns;
};

static int reis_ngname_cmp(const void *a, const void *b)
{
	const struct reis_ngname *x = a, *y = b;

	if (x->ctrl != y->ctrl)
		return x->ctrl < y->ctrl ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return 0;
}

int reis_discover(struct reis_disc *out, unsigned max, uint32_t flags)
{
	struct reis_ngname *names;
	unsigned nnames = 0, i;
	struct dirent *de;
	int found = 0;
	DIR *d;

	if (max && !out)
		return -EINVAL;
	/* Discovery never forces vendor commands onto unknown drives. */
	flags &= ~REIS_OPEN_FORCE;
	names = calloc(REIS_DISC_MAX_NAMES, sizeof(*names));
	if (!names)
		return -ENOMEM;
	d = opendir("/dev");
	if (!d) {
		free(names);
		return -errno;
	}
	while ((de = readdir(d)) && nnames < REIS_DISC_MAX_NAMES) {
		unsigned long c, n;
		char canon[32], end;

		if (sscanf(de->d_name, "ng%lun%lu%c", &c, &n, &end) != 2)
			continue;
		/* Only canonical names ("ng0n1", not "ng00n1"). */
		snprintf(canon, sizeof(canon), "ng%lun%lu", c, n);
		if (strcmp(canon, de->d_name))
			continue;
		names[nnames].ctrl = c;
		names[nnames].ns = n;
		nnames++;
	}
	closedir(d);
	qsort(names, nnames, sizeof(*names), reis_ngname_cmp);

	for (i = 0; i < nnames; i++) {
		const struct reis_info *info;
		struct reis_dev *dev;
		char path[REIS_PATH_MAX];

		snprintf(path, sizeof(path), "/dev/ng%lun%lu", names[i].ctrl, names[i].ns);
		if (reis_open(path, flags, &dev))
			continue;
		if ((unsigned)found < max) {
			struct reis_disc *e = &out[found];

			info = reis_dev_info(dev);
			memset(e, 0, sizeof(*e));
			snprintf(e->path, sizeof(e->path), "%s", path);
			e->nsid = dev->nsid;
			e->ver_major = info->ver_major;
			e->ver_minor = info->ver_minor;
			e->caps = info->caps;
			e->max_xfer = reis_max_xfer(dev);
			snprintf(e->preset, sizeof(e->preset), "%s", info->preset);
		}
		found++;
		reis_close(dev);
	}
	free(names);
	return found;
}
