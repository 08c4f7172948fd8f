/* SPDX-License-Identifier: MIT */
/*
 * tool_group_sched.c - Solana IV-A's pull scheduler over the host CPU and
 * every drive of a group, for a sharded REIS search: a calibration run on
 * each node gives the batch ratio, each node pulls its next batch when it
 * finishes one, the host computes its share the conventional way (the
 * byte ranges of the shard it computes on read from the member's namespace
 * with block reads, tool_group_ns.c, and the reference search on the CPU),
 * and the run is accounted like Solana Table I (docs/group.md, Scheduled).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libreis_tools.h"
#include "drive_reis_priv.h"
#include "tool_group_priv.h"

#define REIS_SCHED_HOST REIS_GROUP_MAX	/* node index of the host */

struct reis_sched {
	struct reis_group *g;
	int ivf;
	int docs;			/* REIS_SF_DOCS: the host reads documents too */
	uint32_t did;
	uint32_t maxl;			/* clusters a host copy may have */
	const struct reis_queries *q;
	struct reis_gr_setup st;
	struct reis_group_result *r;
	struct reis_gr_priv *p;
	uint32_t cap_extra;
	const struct reis__pull *pl;	/* its calibrating flag: results not kept */
	uint64_t *key;			/* scratch: nlist (Hamming, cluster) keys */
	uint8_t *probed;		/* scratch: nlist flags */
	uint64_t *cstart;		/* scratch: nlist + 1 cluster starts */
};

static int reis_sched_key_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Entries [e0, e1) of every per-entry array the search reads. */
static int reis_sched_fetch_entries(struct reis__gns_obj *o, uint64_t e0, uint64_t e1,
				    uint32_t dim)
{
	static const struct { unsigned a; uint32_t per; } arr[] = {
		{ REIS_GNS_BIN, 0 }, { REIS_GNS_INT8, 1 }, { REIS_GNS_TAGS, 4 }, { REIS_GNS_IDS, 8 },
	};
	unsigned i;
	int ret = 0;

	for (i = 0; !ret && i < sizeof(arr) / sizeof(arr[0]); i++) {
		uint64_t per = arr[i].per == 0 ? dim / 8 : arr[i].per == 1 ? dim : arr[i].per;

		if (o->arr[arr[i].a].len)
			ret = reis__gns_fetch(o, o->arr[arr[i].a].off + e0 * per,
					      o->arr[arr[i].a].off + e1 * per);
	}
	return ret;
}

static int reis_sched_fetch_arr(struct reis__gns_obj *o, unsigned a)
{
	return reis__gns_fetch(o, o->arr[a].off, o->arr[a].off + o->arr[a].len);
}

/*
 * Read what the host's search of @sub on shard @s computes on: for brute
 * force every entry's codes (binary, INT8, tags, ids); for IVF the
 * centroids, sizes and calibration, then only the clusters some query of
 * the batch probes (the nprobe nearest by (Hamming, cluster), as the drive
 * and reis_ref_search() choose them); the documents with REIS_SF_DOCS.
 */
static int reis_sched_fetch(struct reis_sched *sc, unsigned s, const struct reis_queries *sub)
{
	struct reis__gns_obj *o = &sc->p->objs[s];
	struct reis_db_image *img = &sc->p->shards[s];
	uint32_t np = 0, c, qi, cw = img->dim / 8;
	char err[160];
	int ret = 0;

	if (sc->ivf) {
		ret = reis_sched_fetch_arr(o, REIS_GNS_CENT);
		if (!ret)
			ret = reis_sched_fetch_arr(o, REIS_GNS_SIZES);
		if (!ret)
			ret = reis_sched_fetch_arr(o, REIS_GNS_CALIB);
	}
	if (!ret && sc->docs)
		ret = reis_sched_fetch_arr(o, REIS_GNS_DOCS);
	if (ret)
		return ret;
	/* What was read is the namespace's, not trusted: check it as an image. */
	ret = reis_db_image_check(img, err, sizeof(err));
	if (ret)
		return reis__group_fail(sc->g, (int)s, ret, "host copy of shard %u: %s", s, err);
	if (!sc->ivf)
		return reis_sched_fetch_entries(o, 0, img->n, img->dim);
	ret = reis__ref_nprobe(img, &sc->st.os[s], &np);
	if (ret)
		return ret;
	sc->cstart[0] = 0;
	for (c = 0; c < img->nlist; c++) {
		sc->cstart[c + 1] = sc->cstart[c] + img->cluster_sizes[c];
		sc->probed[c] = 0;
	}
	for (qi = 0; qi < sub->nq; qi++) {
		const uint8_t *qb = sub->bin + (size_t)qi * cw;

		for (c = 0; c < img->nlist; c++) {
			const uint8_t *cb = img->centroids + (size_t)c * cw;
			uint32_t h = 0, b;

			for (b = 0; b < cw; b++)
				h += (uint32_t)__builtin_popcount((unsigned)(qb[b] ^ cb[b]));
			sc->key[c] = (uint64_t)h << 32 | c;
		}
		qsort(sc->key, img->nlist, sizeof(*sc->key), reis_sched_key_cmp);
		for (c = 0; c < np && c < img->nlist; c++)
			sc->probed[(uint32_t)sc->key[c]] = 1;
	}
	/* Runs of probed clusters are contiguous entries: one read each. */
	for (c = 0; !ret && c < img->nlist; c++) {
		uint32_t e = c;

		if (!sc->probed[c])
			continue;
		while (e + 1 < img->nlist && sc->probed[e + 1])
			e++;
		ret = reis_sched_fetch_entries(o, sc->cstart[c], sc->cstart[e + 1], img->dim);
		c = e;
	}
	return ret;
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

/* Locate member @s's copy of its shard on its namespace (the host's first
 * batch there; a drives-only run reads nothing). */
static int reis_sched_locate(struct reis_sched *sc, unsigned s)
{
	struct reis_gr_priv *p = sc->p;
	struct reis_db_image *img = &p->shards[s];
	int ret;

	ret = reis__gns_reis_open(sc->g, s, sc->did, &p->objs[s], img);
	if (ret)
		return reis__group_fail(sc->g, (int)s, ret, "no host copy of database %u on its "
					"namespace: %s", sc->did, ret == -EBADMSG ? "malformed" :
					reis_strerror(ret));
	if (!sc->docs) {
		/* The host reads no documents it does not return. */
		img->doc_mode = REIS_DOC_NONE;
		img->docs = NULL;
		img->docs_bytes = 0;
	}
	if (img->n != sc->st.ns[s])
		return reis__group_fail(sc->g, (int)s, -EBADMSG, "the host copy of database %u "
					"on its namespace holds %llu entries, the drive %llu",
					sc->did, (unsigned long long)img->n,
					(unsigned long long)sc->st.ns[s]);
	if (img->nlist > sc->maxl) {
		/* Scratch of the coarse search, grown to the largest copy's. */
		free(sc->key);
		free(sc->probed);
		free(sc->cstart);
		sc->maxl = img->nlist;
		sc->key = malloc(((size_t)sc->maxl + 1) * sizeof(*sc->key));
		sc->probed = malloc((size_t)sc->maxl + 1);
		sc->cstart = malloc(((size_t)sc->maxl + 1) * sizeof(*sc->cstart));
		if (!sc->key || !sc->probed || !sc->cstart)
			return -ENOMEM;
	}
	return 0;
}


/* A drive's scheduled batch, on its own thread (tool_group_call.c). */
struct reis_sched_batch {
	int ivf;
	struct reis_search_opts o;
	struct reis_queries q;
	struct reis_search_result res;
	char msg[REIS_MSG_LEN + 256];
};

static int reis_sched_batch_one(struct reis__gcall *c)
{
	struct reis_sched_batch *x = c->ctx;
	int ret = x->ivf ? reis_ivf_search(c->dev, &x->o, &x->q, &x->res) :
			   reis_search(c->dev, &x->o, &x->q, &x->res);

	if (ret)
		snprintf(x->msg, sizeof(x->msg), "%s", reis_last_error(c->dev));
	return ret;
}

/* Given up on: its result, when it comes, is dropped. */
static void reis_sched_batch_late(struct reis__gcall *c)
{
	struct reis_sched_batch *x = c->ctx;

	reis_search_result_free(&x->res);
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
		struct reis__gns_obj *obj = &sc->p->objs[s];
		uint64_t b0 = obj->bytes, r0 = obj->read_ns, t0, bytes;

		ret = obj->buf ? 0 : reis_sched_locate(sc, s);
		if (!ret)
			ret = reis_sched_fetch(sc, s, &sub);
		if (ret)
			return sc->g->failed >= 0 ? ret :
			       reis__group_fail(sc->g, (int)s, ret, "block reads of shard %u: %s",
						s, reis_last_error(sc->g->dev[s]));
		bytes = obj->bytes - b0;
		t0 = reis__group_now_ns();
		ret = reis_ref_search(one, 1, sc->ivf, &sc->st.os[s], &sub, &res);
		if (ret)
			return reis__group_fail(sc->g, -1, ret, "host search of shard %u: %s", s,
						reis_strerror(ret));
		/* Its compute time, plus the block reads over the drive's link
		 * (bytes / (MB/s) in ns: the timeline is modeled, like the drives'). */
		*ns = reis__group_now_ns() - t0 + (in->link_mbps ? bytes * 1000 / in->link_mbps : 0);
		acct->bytes_to_host += bytes;
		acct->read_ns += obj->read_ns - r0;
	} else {
		struct reis_sched_batch x[REIS_GROUP_MAX];
		int rets[REIS_GROUP_MAX] = { 0 };

		/* The drive's batch under the group's timeout (tool_group_call.c). */
		memset(&x[s], 0, sizeof(x[s]));
		x[s].ivf = sc->ivf;
		x[s].o = sc->st.os[s];
		x[s].q = sub;
		reis__group_call(sc->g, 1ull << s, reis_sched_batch_one, reis_sched_batch_late, x,
				 sizeof(x[0]), rets);
		ret = rets[s];
		if (ret == -ETIMEDOUT)
			return reis__group_fail(sc->g, (int)s, ret, "scheduled batch: no "
						"completion within %d ms (the group's timeout)",
						sc->g->timeout_ms);
		if (ret)
			return reis__group_fail(sc->g, (int)s, ret, "%s",
						x[s].msg[0] ? x[s].msg : reis_strerror(ret));
		res = x[s].res;
		*ns = res.search_ns + res.read_ns;
		acct->bytes_inside += res.pages_read * sc->g->m[s].info.page_bytes;
		acct->energy_nj += res.search_nj + res.read_nj;
	}
	acct->batches++;
	acct->items += nq;
	acct->busy_ns += *ns;
	return reis_sched_keep(sc, s, q0, &res);
}

/* Queries per second of a drive holding everything, on the run's batch. */
static double reis_sched_single(struct reis_sched *sc, struct reis_dev *one,
				const struct reis_search_opts *o)
{
	struct reis_search_result res;
	double qps = 0;
	int ret;

	ret = sc->ivf ? reis_ivf_search(one, o, sc->q, &res) : reis_search(one, o, sc->q, &res);
	if (!ret && res.search_ns + res.read_ns)
		qps = sc->q->nq * 1e9 / (double)(res.search_ns + res.read_ns);
	if (!ret)
		reis_search_result_free(&res);
	return qps;
}

static int reis_sched_prepare(struct reis_sched *sc)
{
	struct reis_gr_priv *p = sc->p;
	unsigned s;

	p->shards = calloc(sc->g->n, sizeof(*p->shards));
	p->objs = calloc(sc->g->n, sizeof(*p->objs));
	if (!p->shards || !p->objs)
		return -ENOMEM;
	p->nshards = sc->g->n;
	for (s = 0; s < sc->g->n; s++) {
		struct reis_search_result *part = &sc->r->part[s];

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
	uint64_t t0 = reis__group_now_ns();
	struct reis__pull pl;
	struct reis_sched sc;
	double one_qps = 0;
	unsigned s;
	int ret;

	if (!rep || !o || (img && img->did != o->did))
		return -EINVAL;
	memset(rep, 0, sizeof(*rep));
	memset(&sc, 0, sizeof(sc));
	sc.g = g;
	sc.ivf = ivf;
	sc.docs = !!(o->flags & REIS_SF_DOCS);
	sc.q = q;
	sc.r = r;
	ret = reis__gr_setup(g, o, q, 0, r, &sc.st);
	if (ret)
		return ret;
	sc.p = r->priv;
	sc.did = o->did;
	ret = reis_sched_prepare(&sc);
	if (ret)
		goto fail;
	reis__pull_init(&pl, g, q->nq, reis_sched_run_cb, &sc);
	for (s = 0; s < g->n; s++)
		pl.nitems[s] = q->nq;	/* every query on every shard */
	if (so && so->single && !(so->one_drive_qps > 0))
		one_qps = reis_sched_single(&sc, so->single, o);
	sc.pl = &pl;
	ret = reis__pull_schedule(&pl, so, rep);
	if (ret)
		goto fail;
	ret = reis__gr_merge_all(r, &sc.st.mg, o, q->nq, sc.st.ks);
	if (ret)
		goto fail;
	reis__pull_account(&pl, so, one_qps, rep);
	r->host_ns = reis__group_now_ns() - t0;
	ret = 0;
	goto out;
fail:
	reis_group_result_free(r);
out:
	free(sc.key);
	free(sc.probed);
	free(sc.cstart);
	return ret;
}
