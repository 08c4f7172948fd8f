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
	const struct reis__pull *pl;	/* its calibrating flag: results not kept */
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

	if (sc->pl->calibrating) {
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

static int reis_sched_run_cb(void *ctx, unsigned node, unsigned s, uint32_t lo, uint32_t n,
			     struct reis_group_node *acct, uint64_t *ns)
{
	return reis_sched_run(ctx, node == REIS_PULL_HOST ? REIS_SCHED_HOST : node, s, lo, n,
			      acct, ns);
}

int reis_group_sched_search(struct reis_group *g, const struct reis_db_image *img, int ivf,
			    const struct reis_search_opts *o, const struct reis_queries *q,
			    const struct reis_group_sched_opts *so, struct reis_group_result *r,
			    struct reis_group_sched_report *rep)
{
	uint32_t cnq = so && so->calib_nq ? so->calib_nq : 16;
	uint64_t t0 = reis__group_now_ns();
	struct reis__pull pl;
	struct reis_sched sc;
	double one_qps = 0;
	unsigned s;
	int ret;

	if (!rep || !img || !o || img->did != o->did)
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
	reis__pull_init(&pl, g, q->nq, reis_sched_run_cb, &sc);
	for (s = 0; s < g->n; s++)
		pl.nitems[s] = q->nq;	/* every query on every shard */
	if (so && so->single)
		one_qps = reis_sched_single(&sc, so->single, cnq < q->nq ? cnq : q->nq, o);
	sc.pl = &pl;
	ret = reis__pull_schedule(&pl, so, rep);
	if (ret)
		goto fail;
	ret = reis__gr_merge_all(r, &sc.st.mg, o, q->nq, sc.st.ks);
	if (ret)
		goto fail;
	reis__pull_account(&pl, so, one_qps, rep);
	r->host_ns = reis__group_now_ns() - t0;
	return 0;
fail:
	reis_group_result_free(r);
	return ret;
}
