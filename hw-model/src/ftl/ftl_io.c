/* SPDX-License-Identifier: MIT */
/*
 * ftl_io.c - ordinary commands on the modeled drive (docs/ftl.md,
 * "Commands"): each takes the firmware path (ft_ctrl, plus ftl_cyc_cmd on
 * a firmware core), then
 *   read   one page read per physical page holding its units (in parallel
 *          over the planes), units still in the write buffer from DRAM,
 *          never-written units from nowhere; then the host DMA;
 *   write  buffer room (waiting for programs to end if the buffer is full),
 *          the host DMA, the DRAM write; complete. Full pages program in
 *          the background, GC advances with them;
 *   flush  the partial page programs (padded); complete when every host
 *          program so far has ended;
 *   trim   the covered units leave the map.
 * Background work is booked on its own struct ft_cmd, so the command's
 * latency is its own path's, while the planes, channels and DRAM it takes
 * delay everyone after it.
 */
#include <errno.h>
#include <string.h>

#include "ftl_int.h"

static void ftl_read_run(struct ftl *f, struct ft_cmd *c, uint64_t pun, uint32_t k,
			 uint64_t t, uint64_t *last, uint32_t *nreads)
{
	struct ft_page_op op = { .mode = f->mode, .n_dout = 1, .dout_bytes = k * FTL_UNIT };
	uint64_t end = ft_page_read(f->ft, c, ftl_pun_plane(f, pun), &op, t);

	*last = ftl_max(*last, end);
	(*nreads)++;
}

/*
 * Book the flash side of reading bytes [@off, @off + @len) of @ns on @c
 * from @t: one page read per physical page holding its units (in parallel
 * over the planes), units still in the write buffer from DRAM, never-written
 * units from nowhere. Returns when the data is in the controller.
 */
static uint64_t ftl_fetch(struct ftl *f, struct ft_cmd *c, const struct ftl_ns *ns,
			  uint64_t off, uint64_t len, uint64_t t, struct ftl_cpl *cpl)
{
	uint64_t u, u0 = off / FTL_UNIT, u1 = (off + len - 1) / FTL_UNIT;
	uint64_t last = t, run_pun = 0, hits = 0, run_page = UINT64_MAX;
	uint32_t run_k = 0;

	for (u = u0; u <= u1; u++) {
		uint32_t pun = f->map[ns->base + u];

		if (pun == FTL_NONE) {
			f->st.unmapped_reads++;
			continue;
		}
		if (ftl_in_buffer(f, pun, t)) {
			hits++;
			continue;
		}
		if (pun / f->upp == run_page) {
			run_k++;
			continue;
		}
		if (run_k)
			ftl_read_run(f, c, run_pun, run_k, t, &last, &cpl->flash_reads);
		run_page = pun / f->upp;
		run_pun = pun;
		run_k = 1;
	}
	if (run_k)
		ftl_read_run(f, c, run_pun, run_k, t, &last, &cpl->flash_reads);
	if (hits) {
		last = ftl_max(last, ft_dram(f->ft, c, hits * FTL_UNIT, t));
		f->st.buf_hits += hits;
		cpl->flags |= FTL_CPL_BUF;
	}
	return last;
}

static void ftl_do_read(struct ftl *f, struct ft_cmd *c, const struct ftl_ns *ns,
			const struct ftl_io *io, uint64_t t, struct ftl_cpl *cpl)
{
	uint64_t last = ftl_fetch(f, c, ns, io->off, io->len, t, cpl);

	ft_dma(f->ft, c, FT_C2H, io->len, last);
	f->st.reads++;
	f->st.read_bytes += io->len;
}

/* A write that covers unit @u only in part merges with its old data. */
static uint64_t ftl_rmw(struct ftl *f, struct ft_cmd *c, uint64_t lun, uint64_t t)
{
	uint32_t pun = f->map[lun];
	struct ft_page_op op = { .mode = f->mode, .n_dout = 1, .dout_bytes = FTL_UNIT };

	if (pun == FTL_NONE || ftl_in_buffer(f, pun, t))
		return t;
	f->st.rmw_reads++;
	return ft_page_read(f->ft, c, ftl_pun_plane(f, pun), &op, t);
}

static int ftl_do_write(struct ftl *f, struct ft_cmd *c, struct ft_cmd *bg,
			const struct ftl_ns *ns, const struct ftl_io *io, uint64_t t,
			struct ftl_cpl *cpl)
{
	uint64_t u, u0 = io->off / FTL_UNIT, u1 = (io->off + io->len - 1) / FTL_UNIT;
	uint64_t n = u1 - u0 + 1, ready, room, t_rmw = t;
	int ret;

	if (io->off % FTL_UNIT)
		t_rmw = ftl_max(t_rmw, ftl_rmw(f, c, ns->base + u0, t));
	if ((io->off + io->len) % FTL_UNIT && (u1 != u0 || !(io->off % FTL_UNIT)))
		t_rmw = ftl_max(t_rmw, ftl_rmw(f, c, ns->base + u1, t));
	room = ftl_wb_room(f, n, t);
	if (room > t) {
		f->st.stalls++;
		f->st.stall_ps += room - t;
		cpl->flags |= FTL_CPL_STALL;
	}
	ready = ft_dma(f->ft, c, FT_H2C, io->len, room);
	ready = ft_dram(f->ft, c, io->len, ready);
	ready = ftl_max(ready, t_rmw);
	for (u = u0; u <= u1; u++) {
		ret = ftl_host_place(f, bg, ns->base + u, ready, c->start);
		if (ret)
			return ret;
	}
	if (f->ngc) {
		ftl_gc_advance(f, bg, c->start);
		cpl->flags |= FTL_CPL_GC;
	}
	f->st.writes++;
	f->st.write_bytes += io->len;
	return 0;
}

/*
 * Deallocate the whole units of [@off, @off + @len) of @ns: they leave the
 * map. Returns the controller DRAM bytes the firmware moves for it (AF9):
 * each unit's 4-byte L2P entry read and written, and for a unit that was
 * mapped its block's valid count and its reverse-map entry (4 bytes each).
 */
static uint64_t ftl_do_trim(struct ftl *f, const struct ftl_ns *ns, uint64_t off, uint64_t len)
{
	uint64_t u0 = (off + FTL_UNIT - 1) / FTL_UNIT, u1 = (off + len) / FTL_UNIT;
	uint64_t u, mapped = 0;

	/* Only whole units leave the map; the last unit of a namespace whose
	 * size is not a multiple of 4 KiB counts as whole at its end. */
	if (off + len == ns->bytes)
		u1 = ns->units;
	if (u1 <= u0)
		return 0;
	for (u = u0; u < u1; u++) {
		if (f->map[ns->base + u] != FTL_NONE)
			mapped++;
		ftl_unmap_unit(f, ns->base + u);
	}
	f->dirty = 1;
	f->st.trim_units += mapped;
	return 8 * (u1 - u0) + 8 * mapped;
}

int ftl_io(struct ftl *f, const struct ftl_io *io, struct ftl_cpl *cpl)
{
	const struct ftl_ns *ns = NULL;
	struct ft_cmd c, bg;
	uint64_t t, bytes;
	int i, ret = 0, use_bg;

	if (!f || !io || !cpl)
		return -EINVAL;
	memset(cpl, 0, sizeof(*cpl));
	if (io->opc < FTL_READ || io->opc > FTL_TRIM)
		return -EINVAL;
	pthread_mutex_lock(&f->lock);
	if (io->opc != FTL_FLUSH || io->nsid) {
		i = ftl_ns_find(f, io->nsid);
		if (i < 0) {
			ret = -ENOENT;
			goto out;
		}
		ns = &f->ns[i];
		if (io->opc != FTL_FLUSH &&
		    (!io->len || io->off > ns->bytes || io->len > ns->bytes - io->off)) {
			ret = -EINVAL;
			goto out;
		}
	}
	if (!f->held) {
		ret = -ENOENT;	/* nothing attached: nothing to model */
		goto out;
	}
	f->last_ns = io->submit_ns;
	use_bg = io->opc == FTL_WRITE || io->opc == FTL_FLUSH;
	ft_cmd_begin(f->ft, &c, io->submit_ns, io->trace);
	if (use_bg)
		ft_cmd_begin(f->ft, &bg, io->submit_ns, io->trace);
	/* the FTL's own firmware path (not ctrl_cmd, the vendor commands') */
	t = ft_core(f->ft, &c, FT_CORE_FTL, f->p.ftl_cyc_cmd, "ftl", 0);
	switch (io->opc) {
	case FTL_READ:
		ftl_do_read(f, &c, ns, io, t, cpl);
		break;
	case FTL_WRITE:
		ret = ftl_do_write(f, &c, &bg, ns, io, t, cpl);
		break;
	case FTL_FLUSH:
		c.end = ftl_max(c.end, ftl_host_flush(f, &bg));
		if (f->ngc)
			ftl_gc_advance(f, &bg, c.start);
		f->st.flushes++;
		break;
	case FTL_TRIM:
		bytes = ftl_do_trim(f, ns, io->off, io->len);
		if (bytes)
			ft_dram(f->ft, &c, bytes, t);
		f->st.trims++;
		break;
	}
	ft_cmd_end_quiet(f->ft, &c, &cpl->model_ns);
	if (use_bg)
		ft_cmd_end_quiet(f->ft, &bg, NULL);
	cpl->energy_pj = c.energy_pj;
	f->st.io_model_ns += cpl->model_ns;
	if (io->opc == FTL_READ)
		f->st.read_model_ns += cpl->model_ns;
	else if (io->opc == FTL_WRITE)
		f->st.write_model_ns += cpl->model_ns;
out:
	pthread_mutex_unlock(&f->lock);
	return ret;
}

int ftl_deallocate(struct ftl *f, uint32_t nsid, const struct ftl_range *r, uint32_t n,
		   uint64_t submit_ns, struct ftl_cpl *cpl)
{
	const struct ftl_ns *ns;
	struct ft_cmd c;
	uint64_t bytes = 0, t;
	uint32_t k;
	int i, ret = 0;

	if (!f || !r || !cpl || !n || n > FTL_DSM_MAX)
		return -EINVAL;
	memset(cpl, 0, sizeof(*cpl));
	pthread_mutex_lock(&f->lock);
	i = ftl_ns_find(f, nsid);
	if (i < 0 || !f->held) {
		ret = -ENOENT;
		goto out;
	}
	ns = &f->ns[i];
	/* every range first: a command with a bad one changes nothing */
	for (k = 0; k < n; k++)
		if (!r[k].len || r[k].off > ns->bytes || r[k].len > ns->bytes - r[k].off) {
			ret = -EINVAL;
			goto out;
		}
	f->last_ns = submit_ns;
	ft_cmd_begin(f->ft, &c, submit_ns, NULL);
	t = ft_core(f->ft, &c, FT_CORE_FTL, f->p.ftl_cyc_cmd, "ftl", 0);
	for (k = 0; k < n; k++)
		bytes += ftl_do_trim(f, ns, r[k].off, r[k].len);
	if (bytes)
		ft_dram(f->ft, &c, bytes, t);
	ft_cmd_end_quiet(f->ft, &c, &cpl->model_ns);
	cpl->energy_pj = c.energy_pj;
	f->st.trims++;
	f->st.io_model_ns += cpl->model_ns;
out:
	pthread_mutex_unlock(&f->lock);
	return ret;
}

int ftl_read_inside(struct ftl *f, struct ft_cmd *c, uint32_t nsid, uint64_t off,
		    uint64_t len, uint64_t ready, uint64_t *end)
{
	struct ftl_cpl cpl;
	int i, ret = 0;

	if (!f || !c || !end || !len)
		return -EINVAL;
	*end = ready;
	memset(&cpl, 0, sizeof(cpl));
	pthread_mutex_lock(&f->lock);
	i = ftl_ns_find(f, nsid);
	if (i < 0 || !f->held) {
		ret = -ENOENT;
	} else if (off > f->ns[i].bytes || len > f->ns[i].bytes - off) {
		ret = -EINVAL;
	} else {
		*end = ftl_fetch(f, c, &f->ns[i], off, len, ready, &cpl);
		f->st.inside_reads++;
		f->st.inside_read_bytes += len;
	}
	pthread_mutex_unlock(&f->lock);
	return ret;
}

void ftl_get_stats(struct ftl *f, struct ftl_stats *out, int reset)
{
	uint64_t user;
	uint32_t p;

	pthread_mutex_lock(&f->lock);
	*out = f->st;
	out->stripes = f->held;
	out->stripes_min = f->need_min;
	out->stripes_target = f->need_target;
	out->nns = 0;
	user = 0;
	for (p = 0; p < f->nns; p++)
		if (f->ns[p].nsid) {
			out->nns++;
			user += f->ns[p].bytes;
		}
	out->user_bytes = user;
	out->op_permille = user && out->phys_bytes > user ?
			   (uint32_t)((out->phys_bytes - user) * 1000 / user) : 0;
	out->gc_planes = f->ngc;
	if (reset) {
		struct ftl_stats keep = f->st;

		memset(&f->st, 0, sizeof(f->st));
		f->st.phys_bytes = keep.phys_bytes;
		f->st.free_blocks = keep.free_blocks;
		f->st.valid_units = keep.valid_units;
		f->st.erase_sum = keep.erase_sum;
		f->st.erase_max = keep.erase_max;
	}
	pthread_mutex_unlock(&f->lock);
}
