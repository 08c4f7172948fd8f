/* SPDX-License-Identifier: MIT */
/*
 * reis_rerank.c - the final ranking of one query's candidates (REIS
 * §4.3.2, §4.2): the INT8 rerank reads each candidate's INT8 code through
 * its RADR, rescores it against the INT8 query and orders the best k; without
 * rerank the candidates keep their Hamming order.
 */
#include <errno.h>
#include <stdlib.h>

#include "reis_int.h"

/* Best score first (highest for inner product), then Hamming order. */
static int re_rk_cmp(const void *a, const void *b)
{
	const struct re_rk *x = a, *y = b;

	if (x->score != y->score) {
		if (x->metric == ISP_REIS_IP)
			return x->score > y->score ? -1 : 1;
		return x->score < y->score ? -1 : 1;
	}
	return x->key < y->key ? -1 : x->key > y->key;
}

/*
 * The best @k of rk[0..m) sorted into rk[0..k): an insertion into a
 * sorted prefix, O(m k) for the small k of a search; qsort beyond.
 */
static void re_rk_top(struct re_rk *rk, uint32_t m, uint32_t k)
{
	uint32_t i, n = 0;

	if (k > 64 || k >= m) {
		qsort(rk, m, sizeof(*rk), re_rk_cmp);
		return;
	}
	for (i = 0; i < m; i++) {
		struct re_rk x = rk[i];
		uint32_t j;

		if (n == k && re_rk_cmp(&x, &rk[k - 1]) >= 0)
			continue;
		j = n < k ? n++ : k - 1;
		for (; j > 0 && re_rk_cmp(&x, &rk[j - 1]) < 0; j--)
			rk[j] = rk[j - 1];
		rk[j] = x;
	}
}

/* Exact in 32 bits: at most RE_SCORE_BLOCK * 2 * 255^2 per block. */
#define RE_SCORE_BLOCK 4096u

static int64_t re_score_portable(uint32_t metric, const int8_t *q, const int8_t *x,
				 uint32_t dim)
{
	int64_t s = 0;
	uint32_t d;

	if (metric == ISP_REIS_IP) {
		for (d = 0; d < dim; d++)
			s += (int32_t)q[d] * x[d];
	} else {
		for (d = 0; d < dim; d++) {
			int32_t v = (int32_t)q[d] - x[d];

			s += v * v;
		}
	}
	return s;
}

#if defined(__x86_64__)
#include <immintrin.h>
#define RE_X86 1

/* Sign-extend to 16 bits, VPMADDWD pairs into 32-bit lanes. */
__attribute__((target("avx2")))
static int64_t re_score_avx2(uint32_t metric, const int8_t *q, const int8_t *x, uint32_t dim)
{
	int64_t s = 0;
	uint32_t d = 0;

	while (dim - d >= 16) {
		uint32_t end = d + (dim - d < RE_SCORE_BLOCK ? (dim - d) & ~15u : RE_SCORE_BLOCK);
		__m256i acc = _mm256_setzero_si256();
		__m128i h;

		for (; d < end; d += 16) {
			__m256i a = _mm256_cvtepi8_epi16(_mm_loadu_si128((const void *)(q + d)));
			__m256i b = _mm256_cvtepi8_epi16(_mm_loadu_si128((const void *)(x + d)));

			if (metric != ISP_REIS_IP) {
				a = _mm256_sub_epi16(a, b);
				b = a;
			}
			acc = _mm256_add_epi32(acc, _mm256_madd_epi16(a, b));
		}
		h = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
		h = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0x4e));
		h = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0xb1));
		s += _mm_cvtsi128_si32(h);
	}
	return s + re_score_portable(metric, q + d, x + d, dim - d);
}

__attribute__((target("avx512f,avx512bw")))
static int64_t re_score_avx512(uint32_t metric, const int8_t *q, const int8_t *x,
			       uint32_t dim)
{
	int64_t s = 0;
	uint32_t d = 0;

	while (dim - d >= 32) {
		uint32_t end = d + (dim - d < RE_SCORE_BLOCK ? (dim - d) & ~31u : RE_SCORE_BLOCK);
		__m512i acc = _mm512_setzero_si512();

		for (; d < end; d += 32) {
			__m512i a = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const void *)(q + d)));
			__m512i b = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const void *)(x + d)));

			if (metric != ISP_REIS_IP) {
				a = _mm512_sub_epi16(a, b);
				b = a;
			}
			acc = _mm512_add_epi32(acc, _mm512_madd_epi16(a, b));
		}
		s += _mm512_reduce_add_epi32(acc);
	}
	return s + re_score_portable(metric, q + d, x + d, dim - d);
}
#endif

int re_int8_get(const char *name, re_int8_fn *fn, const char **chosen)
{
	struct re_variant v[] = { { "portable", 1 }, { "avx2", 0 }, { "avx512", 0 } };
	const re_int8_fn f[] = {
		re_score_portable,
#ifdef RE_X86
		re_score_avx2, re_score_avx512,
#else
		NULL, NULL,
#endif
	};
	int i;

	if (!fn)
		return -EINVAL;
#ifdef RE_X86
	__builtin_cpu_init();
	v[1].ok = __builtin_cpu_supports("avx2") != 0;
	v[2].ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
#endif
	i = re_variant_pick(v, 3, name, chosen);
	if (i >= 0)
		*fn = f[i];
	return i < 0 ? i : 0;
}

/* Bytes of INT8 codes the rerank keeps prefetched ahead of its scoring
 * (at least 8 codes): within L2 at any dimension. */
#define RE_RK_AHEAD_BYTES 32768u

/* Candidates rescored between two reads of the stop flag: at 8192-D one
 * 64-candidate block is 512 KiB of codes, about 0.1 ms on these cores. */
#define RE_RK_STOP_EVERY 64u

/* Where candidate @radr's INT8 code is: its TLC page and byte offset. */
static int re_code_at(const struct re_run *r, const struct re_db *db, uint32_t radr,
		      uint64_t *lp, uint64_t *ppa, uint32_t *off)
{
	const struct re_layout *L = &db->L;
	uint32_t rel = radr >> L->rbits, slot = radr & ((1u << L->rbits) - 1);

	if (radr == RE_ADDR_NONE || rel >= L->ipages || slot >= L->ipb)
		return -EIO;
	*lp = L->i_first + rel;
	*off = slot * L->dim;
	return fs_region_ppa(r->e->fs, &db->tlc, *lp, ppa) ? -EIO : 0;
}

/*
 * INT8 rerank of r->top->v[0..m), the host's part (RADR reads, rescoring,
 * the best k ordered into o->rk; the pages read into o->pc), in three
 * passes over the candidates: locate every code (its TLC page through
 * RADR, for the cost too), map them all in place under one read guard of
 * the store, then score them while the codes a window ahead load
 * (prefetched: each is a cache and TLB miss in a scattered TLC page). A
 * code the store can only copy (a file without a mapping) is scored after,
 * page by page.
 */
static int re_rerank(struct re_run *r, struct re_db *db, const int8_t *q8, struct re_qout *o)
{
	struct re_eng *e = r->e;
	const struct re_layout *L = &db->L;
	uint32_t ahead = RE_RK_AHEAD_BYTES / L->dim, m = o->m, i, j, c, pf = 0;
	int ret;

	if (ahead < 8)
		ahead = 8;
	for (i = 0; i < m; i++) {
		uint64_t lp;

		if (re_code_at(r, db, r->top->v[i].radr, &lp, &r->cppa[i], &r->coff[i]))
			return -EIO;
		o->pc[i].key = lp;
		o->pc[i].plane = fg_ppa_plane(e->g, r->cppa[i]);
		o->pc[i].count = 1;
		o->rk[i].key = r->top->v[i].key;
		o->rk[i].metric = db->c.metric;
		o->rk[i].i = i;
	}
	ret = m ? fs_page_map_many(e->fs, m, r->cppa, r->coff, L->dim, r->cptr) : 0;
	if (ret && ret != -EAGAIN)
		return -EIO;
	for (i = 0; i < m; i++) {
		/* between blocks of candidates: isp_dev_exec_cancel() */
		if (i % RE_RK_STOP_EVERY == 0 && isp_ctx_cancelled(r->ctx)) {
			ret = -ECANCELED;
			break;
		}
		for (; pf < m && pf < i + ahead; pf++)
			for (c = 0; r->cptr[pf] && c < L->dim; c += 64)
				__builtin_prefetch(r->cptr[pf] + c);
		if (r->cptr[i])
			o->rk[i].score = e->score(db->c.metric, q8, (const int8_t *)r->cptr[i],
						  L->dim);
	}
	if (m)
		fs_page_unmap(e->fs);
	if (ret == -ECANCELED)
		return ret;
	for (j = 0; ret && j < m; j++) {
		const uint8_t *x;

		if (r->cptr[j])
			continue;
		if (j % RE_RK_STOP_EVERY == 0 && isp_ctx_cancelled(r->ctx))
			return -ECANCELED;	/* isp_dev_exec_cancel() */
		if (fs_page_map(e->fs, r->cppa[j], r->coff[j], L->dim, r->code, &x))
			return -EIO;
		o->rk[j].score = e->score(db->c.metric, q8, (const int8_t *)x, L->dim);
		fs_page_unmap(e->fs);
	}
	o->npc = re_pcount_merge(o->pc, m);
	re_rk_top(o->rk, m, r->k);
	return 0;
}

int re_rank_host(struct re_run *r, struct re_db *db, const int8_t *q8, struct re_qout *o)
{
	uint32_t i;

	if (r->rerank)
		return re_rerank(r, db, q8, o);
	for (i = 0; i < o->m; i++) {
		o->rk[i].score = 0;
		o->rk[i].key = r->top->v[i].key;
		o->rk[i].i = i;
	}
	o->npc = 0;
	return 0;
}

void re_rank_cost(struct re_run *r, struct re_db *db, const struct re_qout *o, uint64_t *t)
{
	const struct re_eng *e = r->e;

	if (r->rerank) {
		*t = re_cost_entry_reads(&r->c, o->pc, o->npc, e->g->native_mode, db->L.dim, *t);
		*t = re_cost_core(&r->c, ft_cycles_rerank(e->p, o->m, db->L.dim), "rerank", *t);
		r->reranked += o->m;
	}
	*t = re_cost_core(&r->c, ft_cycles_sort(e->p, o->m), "sort", *t);
}
