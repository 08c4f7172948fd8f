/* SPDX-License-Identifier: MIT */
/*
 * flash_dram.c - the controller DRAM budget: named reservations (R-DB,
 * R-IVF, TTL, embedding maps, page cache) against fp_params.dram_bytes
 * (docs/architecture.md "Controller DRAM").
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "flash_store_int.h"

static int fs_dram_name_ok(const char *name)
{
	return name && name[0] && strlen(name) < FS_DRAM_NAME_LEN;
}

int fs_dram_reserve(struct fs *fs, const char *name, uint64_t bytes)
{
	int i, slot = -1, ret = 0;

	if (!fs || !fs_dram_name_ok(name))
		return -EINVAL;
	pthread_mutex_lock(&fs->dram_lock);
	for (i = 0; i < FS_DRAM_MAX_NAMES; i++) {
		if (fs->dram[i].name[0] && strcmp(fs->dram[i].name, name) == 0) {
			slot = i;
			break;
		}
		if (!fs->dram[i].name[0] && slot < 0)
			slot = i;
	}
	if (slot < 0) {
		ret = -ENOSPC;
	} else if (bytes > fs->p.dram_bytes - fs->dram_used) {
		ret = -ENOMEM;
	} else {
		if (!fs->dram[slot].name[0])
			snprintf(fs->dram[slot].name, FS_DRAM_NAME_LEN, "%s", name);
		fs->dram[slot].bytes += bytes;
		fs->dram_used += bytes;
	}
	pthread_mutex_unlock(&fs->dram_lock);
	return ret;
}

int fs_dram_release(struct fs *fs, const char *name, uint64_t bytes)
{
	int i, ret = -EINVAL;

	if (!fs || !fs_dram_name_ok(name))
		return -EINVAL;
	pthread_mutex_lock(&fs->dram_lock);
	for (i = 0; i < FS_DRAM_MAX_NAMES; i++) {
		struct fs_dram_cat *c = &fs->dram[i];

		if (!c->name[0] || strcmp(c->name, name))
			continue;
		if (bytes <= c->bytes) {
			c->bytes -= bytes;
			fs->dram_used -= bytes;
			if (!c->bytes)
				c->name[0] = '\0';
			ret = 0;
		}
		break;
	}
	pthread_mutex_unlock(&fs->dram_lock);
	return ret;
}

uint64_t fs_dram_used(struct fs *fs, const char *name)
{
	uint64_t v = 0;
	int i;

	if (!fs)
		return 0;
	pthread_mutex_lock(&fs->dram_lock);
	if (!name) {
		v = fs->dram_used;
	} else {
		for (i = 0; i < FS_DRAM_MAX_NAMES; i++)
			if (fs->dram[i].name[0] && strcmp(fs->dram[i].name, name) == 0)
				v = fs->dram[i].bytes;
	}
	pthread_mutex_unlock(&fs->dram_lock);
	return v;
}

uint64_t fs_dram_budget(const struct fs *fs)
{
	return fs ? fs->p.dram_bytes : 0;
}

int fs_dram_list(struct fs *fs, struct fs_dram_use *out, size_t max)
{
	int i, n = 0;

	if (!fs)
		return -EINVAL;
	pthread_mutex_lock(&fs->dram_lock);
	for (i = 0; i < FS_DRAM_MAX_NAMES; i++) {
		if (!fs->dram[i].name[0])
			continue;
		if (out && (size_t)n < max) {
			memcpy(out[n].name, fs->dram[i].name, FS_DRAM_NAME_LEN);
			out[n].bytes = fs->dram[i].bytes;
		}
		n++;
	}
	pthread_mutex_unlock(&fs->dram_lock);
	return n;
}
