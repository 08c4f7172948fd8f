/* SPDX-License-Identifier: MIT */
/*
 * tool_group_sched.c - Solana IV-A's pull scheduler over the host CPU and
 * every drive of a group, for a sharded REIS search: a calibration run on
 * each node gives the batch ratio, each node pulls its next batch when it
 * finishes one, the host computes its share the conventional way (the
 * shard's data read to the host, the reference search on the CPU), and
 * the run is accounted like Solana Table I (docs/group.md, Scheduled).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "libreis_tools.h"
#include "tool_group_priv.h"

#define REIS_SCHED_HOST REIS_GROUP_MAX	/* node index of the host */

struct reis_sched {
	struct reis_group *g;
	const struct reis_db_image *img;
	int ivf;
	const struct reis_queries *q;
	struct reis_gr_setup st;
	struct reis_group_result *r;
	struct reis_gr_priv *p;
	uint32_t cap_extra;
	int keep;	/* store results (0 during calibration) */
	double calib_nj_per_byte;	/* drives' energy per byte sensed */
	double calib_host_bytes;	/* bytes the host reads per item */
};

/* Bytes a host reads to search shard @s for @nq queries: every code of a
 * brute-force shard; for IVF the centroids and at most nprobe clusters per
 * query, estimated by cluster share. */
static uint64_t reis_sched_host_bytes(const struct reis_sched *sc, unsigned s, uint32_t nq,
				      uint32_t nprobe)
{
	const struct reis_db_image *sh = &sc->p->shards[s];
	uint64_t row = sh->dim / 8 + (sh->int8 ? sh->dim : 0), all = sh->n * row;
	uint64_t probed;

	if (!sc->ivf || !sh->nlist)
		return all;
	probed = (uint64_t)nprobe * nq;
	if (probed > sh->nlist)
		probed = sh->nlist;
	return (uint64_t)sh->nlist * (sh->dim / 8) + all * probed / sh->nlist;
}

static int reis_sched_keep(struct reis_sched *sc, unsigned s, uint32_t q0,
			   struct reis_search_result *res)
{
	struct reis_gr_priv *p = sc->p;
	struct reis_search_result *part = &sc->r->part[s];
	uint32_t k = sc->st.ks[s];

	if (!sc->keep) {
		reis_search_result_free(res);
		return 0;
	}
	if (res->k != k)
		return -EPROTO;
	memcpy(part->hits + (size_t)q0 * k, res->hits, (size_t)res->nq * k * sizeof(*res->hits));
	memcpy(part->nhits + q0, res->nhits, (size_t)res->nq * sizeof(*res->nhits));
	reis__gr_add_counts(part, res);
	if (p->nextra == sc->cap_extra) {
		uint32_t nc = sc->cap_extra ? sc->cap_extra * 2 : 64;
		void *t = realloc(p->extra, nc * sizeof(*p->extra));

		if (!t) {
			reis_search_result_free(res);
			return -ENOMEM;
		}
		p->extra = t;
		sc->cap_extra = nc;
	}
	p->extra[p->nextra++] = *res;	/* the hits' documents live there */
	return 0;
}

/* One batch [q0, q0+nq) of shard @s on node @node; its duration in *ns. */
static int reis_sched_run(struct reis_sched *sc, unsigned node, unsigned s, uint32_t q0,
			  uint32_t nq, struct reis_group_node *acct, uint64_t *ns)
{
	struct reis_queries sub = *sc->q;
	struct reis_search_result res;
	int ret;

	sub.nq = nq;
	sub.bin = sc->q->bin + (size_t)q0 * (sc->q->dim / 8);
	sub.int8 = sc->q->int8 ? sc->q->int8 + (size_t)q0 * sc->q->dim : NULL;
	if (node == REIS_SCHED_HOST) {
		const struct reis_db_image *one[1] = { &sc->p->shards[s] };
		const struct reis_info *in = &sc->g->m[s].info;
		uint64_t t0 = reis__group_now_ns(), bytes, rd;

		ret = reis_ref_search(one, 1, sc->ivf, &sc->st.os[s], &sub, &res);
		if (ret)
			return reis__group_fail(sc->g, -1, ret, "host search of shard %u: %s", s,
						reis_strerror(ret));
		*ns = reis__group_now_ns() - t0;
		bytes = reis_sched_host_bytes(sc, s, nq, res.nprobe);
		/* Block reads over the drive's link: bytes / (MB/s) in ns. */
		rd = in->link_mbps ? bytes * 1000 / in->link_mbps : 0;
		*ns += rd;
		acct->bytes_to_host += bytes;
	} else {
		struct reis_dev *dev = sc->g->dev[s];

		ret = sc->ivf ? reis_ivf_search(dev, &sc->st.os[s], &sub, &res) :
				reis_search(dev, &sc->st.os[s], &sub, &res);
		if (ret)
			return reis__group_fail(sc->g, (int)s, ret, "%s", reis_last_error(dev));
		*ns = res.search_ns + res.read_ns;
		acct->bytes_inside += res.pages_read * sc->g->m[s].info.page_bytes;
		acct->energy_nj += res.search_nj + res.read_nj;
	}
	acct->batches++;
	acct->items += nq;
	acct->busy_ns += *ns;
	return reis_sched_keep(sc, s, q0, &res);
}

/* Items per second of every node on one small batch (Solana IV-A). */
static int reis_sched_calibrate(struct reis_sched *sc, uint32_t cnq,
				struct reis_group_sched_report *rep, double *drive_rate)
{
	struct reis_group_node tmp;
	uint64_t ns;
	unsigned s;
	int ret;

	uint64_t nj = 0, bytes = 0;

	*drive_rate = 0;
	sc->keep = 0;
	for (s = 0; s < sc->g->n; s++) {
		memset(&tmp, 0, sizeof(tmp));
		ret = reis_sched_run(sc, s, s, 0, cnq, &tmp, &ns);
		if (ret)
			return ret;
		rep->drive[s].rate = ns ? cnq * 1e9 / (double)ns : 0;
		*drive_rate += rep->drive[s].rate / sc->g->n;
		nj += tmp.energy_nj;
		bytes += tmp.bytes_inside;
	}
	sc->calib_nj_per_byte = bytes ? (double)nj / (double)bytes : 0;
	memset(&tmp, 0, sizeof(tmp));
	ret = reis_sched_run(sc, REIS_SCHED_HOST, 0, 0, cnq, &tmp, &ns);
	if (ret)
		return ret;
	rep->host.rate = ns ? cnq * 1e9 / (double)ns : 0;
	sc->calib_host_bytes = (double)tmp.bytes_to_host / cnq;
	sc->keep = 1;
	return 0;
}

/* The next node to pull: the one free first that still has work. */
static int reis_sched_pick(const struct reis_sched *sc, const uint64_t *free_at,
			   const uint32_t *front, const uint32_t *back, uint32_t flags)
{
	int best = -1, host_work = 0;
	unsigned s;

	for (s = 0; s < sc->g->n; s++) {
		if (front[s] >= back[s])
			continue;
		host_work = 1;
		if (flags & REIS_GROUP_SCHED_HOST_ONLY)
			continue;
		if (best < 0 || free_at[s] < free_at[best])
			best = (int)s;
	}
	if (host_work && !(flags & REIS_GROUP_SCHED_NO_HOST) &&
	    (best < 0 || free_at[REIS_SCHED_HOST] < free_at[best]))
		best = REIS_SCHED_HOST;
	return best;
}

static int reis_sched_loop(struct reis_sched *sc, uint32_t bh, uint32_t bd, uint32_t flags,
			   struct reis_group_sched_report *rep)
{
	uint64_t free_at[REIS_GROUP_MAX + 1] = { 0 };
	uint32_t front[REIS_GROUP_MAX], back[REIS_GROUP_MAX];
	unsigned s;
	int node;

	for (s = 0; s < sc->g->n; s++) {
		front[s] = 0;
		back[s] = sc->q->nq;
	}
	while ((node = reis_sched_pick(sc, free_at, front, back, flags)) >= 0) {
		struct reis_group_node *acct;
		uint32_t q0, nq;
		uint64_t ns;
		int ret;

		if (node == REIS_SCHED_HOST) {
			/* From the back of the shard with most left. */
			unsigned best = 0;

			for (s = 1; s < sc->g->n; s++)
				if (back[s] - front[s] > back[best] - front[best])
					best = s;
			s = best;
			nq = back[s] - front[s] < bh ? back[s] - front[s] : bh;
			q0 = back[s] - nq;
			back[s] = q0;
			acct = &rep->host;
		} else {
			s = (unsigned)node;
			nq = back[s] - front[s] < bd ? back[s] - front[s] : bd;
			q0 = front[s];
			front[s] += nq;
			acct = &rep->drive[s];
		}
		ret = reis_sched_run(sc, (unsigned)node, s, q0, nq, acct, &ns);
		if (ret)
			return ret;
		free_at[node] += ns;
		if (free_at[node] > rep->makespan_ns)
			rep->makespan_ns = free_at[node];
	}
	return 0;
}

static void reis_sched_account(const struct reis_sched *sc, const struct reis_group_sched_opts *so,
			       double one_drive_qps, struct reis_group_sched_report *rep)
{
	double nq = sc->q->nq, host_item_ns, drive_nj = 0, slowest = 0, sum_ns = 0;
	uint64_t inside_items = 0;
	unsigned s;

	double sense_nj_per_byte, host_item_bytes;

	rep->host_w = so && so->host_w > 0 ? so->host_w : REIS_GROUP_HOST_CORE_W;
	for (s = 0; s < sc->g->n; s++) {
		const struct reis_group_node *d = &rep->drive[s];
		double per_q = d->rate > 0 ? 1e9 / d->rate : 0;

		inside_items += d->items;
		rep->bytes_inside += d->bytes_inside;
		drive_nj += (double)d->energy_nj;
		sum_ns += per_q;
		if (per_q > slowest)
			slowest = per_q;
	}
	/* A block read senses flash as a search does: the drives' modeled
	 * energy per byte processed inside, charged to the bytes the host
	 * reads (the link's transfer energy is not modeled). */
	sense_nj_per_byte = rep->bytes_inside ? drive_nj / (double)rep->bytes_inside :
			    sc->calib_nj_per_byte;
	rep->host.energy_nj = (uint64_t)(rep->host_w * (double)rep->host.busy_ns +
					 sense_nj_per_byte * (double)rep->host.bytes_to_host);
	rep->bytes_to_host = rep->host.bytes_to_host;
	rep->inside_share = rep->items ? (double)inside_items / (double)rep->items : 0;
	rep->qps = rep->makespan_ns ? nq * 1e9 / (double)rep->makespan_ns : 0;
	/* The host alone: its own per-item time (this run's, else calibration's). */
	host_item_ns = rep->host.items ? (double)rep->host.busy_ns / (double)rep->host.items :
		       (rep->host.rate > 0 ? 1e9 / rep->host.rate : 0);
	rep->host_alone_qps = host_item_ns > 0 ? 1e9 / (host_item_ns * sc->g->n) : 0;
	rep->drives_only_qps = slowest > 0 ? 1e9 / slowest : 0;
	rep->one_drive_qps = one_drive_qps > 0 ? one_drive_qps : (sum_ns > 0 ? 1e9 / sum_ns : 0);
	rep->speedup_vs_host = rep->host_alone_qps > 0 ? rep->qps / rep->host_alone_qps : 0;
	rep->speedup_vs_one_drive = rep->one_drive_qps > 0 ? rep->qps / rep->one_drive_qps : 0;
	/* nJ -> mJ is 1e-6; W * ns is nJ. */
	host_item_bytes = rep->host.items ? (double)rep->host.bytes_to_host / (double)rep->host.items :
			  sc->calib_host_bytes;
	rep->mj_per_query = (drive_nj + (double)rep->host.energy_nj) / nq * 1e-6;
	rep->host_alone_mj_per_query = (rep->host_w * host_item_ns +
					sense_nj_per_byte * host_item_bytes) * sc->g->n * 1e-6;
	rep->energy_saving = rep->host_alone_mj_per_query > 0 ?
			     1.0 - rep->mj_per_query / rep->host_alone_mj_per_query : 0;
	/* Table I's basis: the whole server, idle power included (W * ns = nJ). */
	rep->server_w = REIS_GROUP_SERVER_IDLE_W + REIS_GROUP_DRIVE_IDLE_W * sc->g->n;
	rep->server_mj_per_query = rep->mj_per_query +
				   rep->server_w * (double)rep->makespan_ns / nq * 1e-6;
	rep->server_host_alone_mj_per_query = rep->host_alone_mj_per_query +
		(rep->host_alone_qps > 0 ? rep->server_w * 1e9 / rep->host_alone_qps * 1e-6 : 0);
	rep->server_energy_saving = rep->server_host_alone_mj_per_query > 0 ?
		1.0 - rep->server_mj_per_query / rep->server_host_alone_mj_per_query : 0;
}

/* Queries per second of a drive holding everything, on the first queries. */
static double reis_sched_single(struct reis_sched *sc, struct reis_dev *one, uint32_t cnq,
				const struct reis_search_opts *o)
{
	struct reis_queries sub = *sc->q;
	struct reis_search_result res;
	double qps = 0;
	int ret;

	sub.nq = cnq;
	ret = sc->ivf ? reis_ivf_search(one, o, &sub, &res) : reis_search(one, o, &sub, &res);
	if (!ret && res.search_ns + res.read_ns)
		qps = cnq * 1e9 / (double)(res.search_ns + res.read_ns);
	if (!ret)
		reis_search_result_free(&res);
	return qps;
}

static int reis_sched_prepare(struct reis_sched *sc)
{
	struct reis_gr_priv *p = sc->p;
	char err[160];
	unsigned s;
	int ret;

	p->shards = calloc(sc->g->n, sizeof(*p->shards));
	if (!p->shards)
		return -ENOMEM;
	for (s = 0; s < sc->g->n; s++) {
		struct reis_search_result *part = &sc->r->part[s];

		ret = reis_group_shard_image(sc->img, s, sc->g->n, &p->shards[s]);
		if (ret)
			return ret;
		p->nshards = s + 1;
		ret = reis_db_image_check(&p->shards[s], err, sizeof(err));
		if (ret)
			return reis__group_fail(sc->g, (int)s, ret, "shard image: %s", err);
		if (p->shards[s].n != sc->st.ns[s])
			return reis__group_fail(sc->g, (int)s, -EINVAL,
						"holds %llu entries, not the image's shard",
						(unsigned long long)sc->st.ns[s]);
		part->nq = sc->q->nq;
		part->k = sc->st.ks[s];
		part->ndbs = 1;
		part->hits = calloc((size_t)sc->q->nq * part->k, sizeof(*part->hits));
		part->nhits = calloc(sc->q->nq, sizeof(*part->nhits));
		if (!part->hits || !part->nhits)
			return -ENOMEM;
	}
	return 0;
}

static void reis_sched_batches(double ratio, uint32_t base, uint32_t nq, uint32_t *bh,
			       uint32_t *bd)
{
	double b;

	if (ratio >= 1) {
		*bd = base;
		b = floor(ratio * base + 0.5);
		*bh = b > nq ? nq : (uint32_t)b;
	} else {
		*bh = base;
		b = ratio > 0 ? floor(base / ratio + 0.5) : nq;
		*bd = b > nq ? nq : (uint32_t)b;
	}
	if (*bd > nq)
		*bd = nq;
	if (*bh > nq)
		*bh = nq;
	if (!*bh)
		*bh = 1;
	if (!*bd)
		*bd = 1;
}

int reis_group_sched_search(struct reis_group *g, const struct reis_db_image *img, int ivf,
			    const struct reis_search_opts *o, const struct reis_queries *q,
			    const struct reis_group_sched_opts *so, struct reis_group_result *r,
			    struct reis_group_sched_report *rep)
{
	uint32_t base = so && so->batch ? so->batch : 8, cnq = so && so->calib_nq ? so->calib_nq : 16;
	uint32_t flags = so ? so->flags : 0, bh, bd;
	uint64_t t0 = reis__group_now_ns();
	struct reis_sched sc;
	double drive_rate = 0, one_qps = 0;
	int ret;

	if (!rep || !img || img->did != (o ? o->did : 0) ||
	    (flags & REIS_GROUP_SCHED_NO_HOST && flags & REIS_GROUP_SCHED_HOST_ONLY))
		return -EINVAL;
	memset(rep, 0, sizeof(*rep));
	memset(&sc, 0, sizeof(sc));
	sc.g = g;
	sc.img = img;
	sc.ivf = ivf;
	sc.q = q;
	sc.r = r;
	ret = reis__gr_setup(g, o, q, 0, r, &sc.st);
	if (ret)
		return ret;
	sc.p = r->priv;
	ret = reis_sched_prepare(&sc);
	if (ret)
		goto fail;
	if (cnq > q->nq)
		cnq = q->nq;
	ret = reis_sched_calibrate(&sc, cnq, rep, &drive_rate);
	if (ret)
		goto fail;
	if (so && so->single)
		one_qps = reis_sched_single(&sc, so->single, cnq, o);
	rep->calib_ns = reis__group_now_ns() - t0;
	rep->ratio = so && so->ratio > 0 ? so->ratio :
		     (drive_rate > 0 ? rep->host.rate / drive_rate : 1);
	reis_sched_batches(rep->ratio, base, q->nq, &bh, &bd);
	rep->host_batch = bh;
	rep->drive_batch = bd;
	rep->nmembers = g->n;
	rep->items = (uint64_t)q->nq * g->n;
	ret = reis_sched_loop(&sc, bh, bd, flags, rep);
	if (ret)
		goto fail;
	ret = reis__gr_merge_all(r, &sc.st.mg, o, q->nq, sc.st.ks);
	if (ret)
		goto fail;
	reis_sched_account(&sc, so, one_qps, rep);
	r->host_ns = reis__group_now_ns() - t0;
	return 0;
fail:
	reis_group_result_free(r);
	return ret;
}
