/* SPDX-License-Identifier: MIT */
/*
 * isp_ftl.c - the FTL (ftl.h) as a part of the device: its state in the
 * device's metadata commit (engine "ftl", no opcodes), its counters in the
 * statistics log, the reclaim callback that lets a deploy take the FTL's
 * spare stripes, and the entry points the transport calls for ordinary
 * I/O (isp_dev_ns_attach, isp_dev_io, isp_dev_smart; docs/ftl.md).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ftl.h"
#include "isp_internal.h"

/* A Flush commits the map when it changed, at most this often (device
 * time): the data itself is the transport's (docs/ftl.md, "Crash rules"). */
#define ISP_FTL_COMMIT_GAP_NS (UINT64_C(1000) * 1000 * 1000)

/* SMART Available Spare Threshold, percent. */
#define ISP_FTL_SPARE_THRESHOLD 10u

struct isp_ftl {
	struct ftl *ftl;
	struct fs *fs;
	pthread_mutex_t lock;	/* last_commit */
	uint64_t last_commit;	/* device ns of the last Flush commit; 0: none */
	int committed;
};

extern const struct isp_engine isp_engine_ftl;

/* A deploy found no room: the FTL gives back spare stripes (never its own
 * allocations, never below its minimum). */
static int isp_ftl_reclaim(void *ctx, uint32_t part, uint32_t stripes, uint64_t owner)
{
	struct isp_ftl *e = ctx;

	if (part != FG_PART_NATIVE || owner >> 32 == FTL_OWNER_TAG)
		return 0;
	return ftl_reclaim(e->ftl, stripes, 0);
}

static int isp_ftl_open(struct isp_dev *dev, const void *blob, size_t len, void **state,
			char *err, size_t errlen)
{
	struct ftl_config cfg;
	struct isp_ftl *e = calloc(1, sizeof(*e));
	int ret;

	if (!e)
		return -ENOMEM;
	memset(&cfg, 0, sizeof(cfg));
	cfg.fs = isp_dev_store(dev);
	cfg.ft = isp_dev_timing(dev);
	cfg.p = isp_dev_params(dev);
	cfg.blob = blob;
	cfg.blob_len = len;
	ret = ftl_open(&cfg, &e->ftl, err, errlen);
	if (ret) {
		free(e);
		return ret;
	}
	e->fs = cfg.fs;
	pthread_mutex_init(&e->lock, NULL);
	fs_set_reclaim(e->fs, isp_ftl_reclaim, e);
	*state = e;
	return 0;
}

static void isp_ftl_close(void *state)
{
	struct isp_ftl *e = state;

	fs_set_reclaim(e->fs, NULL, NULL);
	ftl_close(e->ftl);
	pthread_mutex_destroy(&e->lock);
	free(e);
}

static int isp_ftl_save(void *state, void **blob, size_t *len)
{
	return ftl_save(((struct isp_ftl *)state)->ftl, blob, len);
}

static void isp_ftl_identify(void *state, struct isp_wire_identify *id)
{
	struct ftl_stats s;

	ftl_get_stats(((struct isp_ftl *)state)->ftl, &s, 0);
	if (s.nns)
		id->caps |= ISP_CAP_FTL;
}

static void isp_ftl_stats(void *state, struct isp_wire_stats *w, int reset)
{
	struct ftl_stats s;

	ftl_get_stats(((struct isp_ftl *)state)->ftl, &s, reset);
	w->ftl_reads = s.reads;
	w->ftl_writes = s.writes;
	w->ftl_read_bytes = s.read_bytes;
	w->ftl_write_bytes = s.write_bytes;
	w->ftl_nand_write_bytes = s.nand_write_bytes;
	w->ftl_gc_write_bytes = s.gc_write_bytes;
	w->ftl_gc_victims = s.gc_victims;
	w->ftl_erases = s.gc_erases;
	w->ftl_flushes = s.flushes;
	w->ftl_trims = s.trims;
	w->ftl_buf_hits = s.buf_hits;
	w->ftl_stalls = s.stalls;
	w->ftl_io_model_ns = s.io_model_ns;
	w->ftl_read_model_ns = s.read_model_ns;
	w->ftl_write_model_ns = s.write_model_ns;
	w->ftl_wa_milli = s.write_bytes ?
		(uint32_t)(s.nand_write_bytes * 1000 / s.write_bytes) : 0;
	w->ftl_op_permille = s.op_permille;
	w->ftl_user_bytes = s.user_bytes;
	w->ftl_phys_bytes = s.phys_bytes;
	w->ftl_stripes = s.stripes;
	w->ftl_stripes_min = s.stripes_min;
	w->ftl_free_blocks = s.free_blocks;
	w->ftl_erase_max = s.erase_max;
}

const struct isp_engine isp_engine_ftl = {
	.name = "ftl",
	.ops = NULL,
	.nops = 0,
	.open = isp_ftl_open,
	.close = isp_ftl_close,
	.save = isp_ftl_save,
	.identify = isp_ftl_identify,
	.stats = isp_ftl_stats,
};

static struct isp_ftl *isp_ftl_of(struct isp_dev *dev)
{
	return dev ? isp_dev_engine(dev, &isp_engine_ftl) : NULL;
}

struct ftl *isp_dev_ftl(struct isp_dev *dev)
{
	struct isp_ftl *e = isp_ftl_of(dev);

	return e ? e->ftl : NULL;
}

int isp_dev_ns_attach(struct isp_dev *dev, uint32_t nsid, uint64_t bytes, char *err,
		      size_t errlen)
{
	struct isp_ftl *e = isp_ftl_of(dev);

	if (!e)
		return -ENODEV;
	return ftl_attach(e->ftl, nsid, bytes, err, errlen);
}

int isp_dev_io(struct isp_dev *dev, const struct ftl_io *io, struct ftl_cpl *cpl)
{
	struct isp_ftl *e = isp_ftl_of(dev);
	struct ft_trace *shared;
	struct ftl_io tmp;
	int ret, commit = 0;

	if (!e)
		return -ENODEV;
	shared = io->trace ? NULL : isp_dev_trace_shared(dev);
	if (shared) {
		tmp = *io;
		tmp.trace = shared;
		io = &tmp;
	}
	ret = ftl_io(e->ftl, io, cpl);
	if (ret || io->opc != FTL_FLUSH || !ftl_dirty(e->ftl))
		return ret;
	pthread_mutex_lock(&e->lock);
	if (!e->committed || io->submit_ns >= e->last_commit + ISP_FTL_COMMIT_GAP_NS) {
		e->committed = 1;
		e->last_commit = io->submit_ns;
		commit = 1;
	}
	pthread_mutex_unlock(&e->lock);
	/* A failed commit leaves the previous one: the map only places data
	 * the transport already holds, so the Flush still succeeds. */
	if (commit)
		isp_dev_commit(dev);
	return 0;
}

int isp_dev_dealloc(struct isp_dev *dev, uint32_t nsid, const struct ftl_range *r, uint32_t n,
		    uint64_t submit_ns, struct ftl_cpl *cpl)
{
	struct isp_ftl *e = isp_ftl_of(dev);

	if (!e)
		return -ENODEV;
	return ftl_deallocate(e->ftl, nsid, r, n, submit_ns, cpl);
}

int isp_dev_smart(struct isp_dev *dev, struct isp_dev_smart *out)
{
	struct isp_ftl *e = isp_ftl_of(dev);
	uint64_t data, spare, have, blocks, pct;
	struct ftl_stats s;

	memset(out, 0, sizeof(*out));
	if (!e)
		return -ENODEV;
	ftl_get_stats(e->ftl, &s, 0);
	if (!s.nns || !s.stripes)
		return -ENOENT;
	out->valid = 1;
	out->spare_threshold = ISP_FTL_SPARE_THRESHOLD;
	/* Spare: the stripes held beyond the data, against the target's. */
	data = s.stripes_min - FTL_SPARE_STRIPES;
	spare = s.stripes_target > data ? s.stripes_target - data : 1;
	have = s.stripes > data ? s.stripes - data : 0;
	out->available_spare = (uint8_t)(have >= spare ? 100 : have * 100 / spare);
	/* Percentage Used: mean erases per block against the rated P/E. */
	blocks = (uint64_t)s.stripes * fs_geom(e->fs)->planes;
	pct = s.erase_sum * 100 / blocks / isp_dev_params(dev)->ftl_pe;
	out->percentage_used = (uint8_t)(pct > 255 ? 255 : pct);
	out->host_write_bytes = s.write_bytes;
	out->nand_write_bytes = s.nand_write_bytes;
	out->gc_victims = s.gc_victims;
	return 0;
}
