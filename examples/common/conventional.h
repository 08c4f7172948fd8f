/* SPDX-License-Identifier: MIT */
/*
 * conventional.h - the conventional retrieval path the RAG demo runs beside
 * the drive's (docs/reis.md §5): the database comes off the namespace with
 * ordinary reads, the search runs on the host CPU with libreis' reference
 * search, and a stated model gives what moving those bytes off a normal SSD
 * and computing on the host would cost. Program glue, not part of the
 * library; tests/lib/test_reis_conventional.c checks it.
 *
 * The model (docs/reis.md §5, "The conventional path"):
 *   - bytes: the search structures of the database (binary and INT8 codes,
 *     ids, tags, centroids, cluster sizes) plus the documents of the hits.
 *     A host that keeps no copy of the database in DRAM reads them for
 *     every query; this is the REIS paper's premise (§1, §3: databases
 *     far larger than host memory).
 *   - the normal SSD is the same preset in plain read mode: pages in the
 *     native cell mode, read in parallel on every plane; the time is the
 *     largest of the array, channel and host-link times plus one page read
 *     of latency; the energy is the page reads plus channel, controller
 *     DRAM and link energy per byte, all from the preset (flash_preset.c).
 *   - host compute: the measured wall time of the reference search on this
 *     CPU, at CONV_HOST_CORE_W per busy core (the paper's CPU baseline,
 *     REIS §5: an AMD EPYC 9554, 360 W TDP over 64 cores).
 */
#ifndef EXAMPLES_CONVENTIONAL_H
#define EXAMPLES_CONVENTIONAL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "flash_preset.h"
#include "libreis_tools.h"

/* EPYC 9554: 360 W TDP / 64 cores (AMD's data sheet), one core busy. */
#define CONV_HOST_CORE_W (360.0 / 64.0)

struct conv_cost {
	uint64_t bytes;		/* moved off the SSD to the host */
	double read_ns;		/* modeled: normal SSD -> host DRAM */
	double read_nj;
	double cpu_ns;		/* measured: the search on this CPU */
	double cpu_nj;		/* modeled: cpu_ns at CONV_HOST_CORE_W */
};

/*
 * conv_index_bytes - bytes of @img a host search must read: the codes,
 * ids, tags, centroids and cluster sizes (documents apart).
 */
static inline uint64_t conv_index_bytes(const struct reis_db_image *img)
{
	uint64_t code = (img->dim + 7) / 8, b;

	b = img->n * code + img->n * (uint64_t)img->dim;
	if (img->ids)
		b += img->n * 8;
	if (img->tags)
		b += img->n * 4;
	if (img->centroids)
		b += (uint64_t)img->nlist * code;
	if (img->cluster_sizes)
		b += (uint64_t)img->nlist * 4;
	return b;
}

/*
 * conv_hit_doc_bytes - document bytes of the first k hits of query 0.
 */
static inline uint64_t conv_hit_doc_bytes(const struct reis_search_result *r)
{
	uint64_t b = 0;
	uint32_t j;

	for (j = 0; r->nq && j < r->nhits[0]; j++)
		b += r->hits[j].doc_len;
	return b;
}

/*
 * conv_read_cost - the model above for @bytes off a normal SSD of preset
 * @p. Return: 0, -EINVAL for a preset without planes or bandwidth.
 */
static inline int conv_read_cost(const struct fp_params *p, uint64_t bytes,
				 struct conv_cost *c)
{
	uint64_t planes = (uint64_t)p->channels * p->dies_per_channel * p->planes_per_die;
	uint64_t pages, waves;
	uint32_t m = p->native_mode;
	double t_arr, t_ch, t_link, t;

	if (!planes || !p->page_bytes || !p->channel_mbps || !p->link_mbps || !m || m > 4)
		return -EINVAL;
	pages = (bytes + p->page_bytes - 1) / p->page_bytes;
	waves = (pages + planes - 1) / planes;
	t_arr = waves * (double)p->t_read[m] / 1e3;			/* ns */
	t_ch = bytes * 1e3 / ((double)p->channels * p->channel_mbps);	/* MB/s -> ns */
	t_link = bytes * 1e3 / (double)p->link_mbps;
	t = t_arr > t_ch ? t_arr : t_ch;
	t = t > t_link ? t : t_link;
	c->bytes = bytes;
	c->read_ns = bytes ? t + p->t_read[m] / 1e3 : 0;
	c->read_nj = (pages * (double)p->e_read[m] +
		      bytes * (double)(p->e_channel_byte + p->e_dram_byte + p->e_link_byte)) / 1e3;
	return 0;
}

/*
 * conv_cpu_cost - host compute of a search that took @wall_ns on this CPU.
 */
static inline void conv_cpu_cost(double wall_ns, struct conv_cost *c)
{
	c->cpu_ns = wall_ns;
	c->cpu_nj = wall_ns * CONV_HOST_CORE_W;	/* ns * W = nJ */
}

/*
 * conv_same_hits - query 0 of @a and @b: same number of hits and, hit by
 * hit, the same entry, id, Hamming distance, score and document bytes.
 * Return: 0 when identical, else the 1-based rank of the first difference
 * (described in @why).
 */
static inline int conv_same_hits(const struct reis_search_result *a,
				 const struct reis_search_result *b, char *why, size_t len)
{
	uint32_t j;

	if (!a->nq || !b->nq || a->nhits[0] != b->nhits[0]) {
		snprintf(why, len, "%u hits against %u", a->nq ? a->nhits[0] : 0,
			 b->nq ? b->nhits[0] : 0);
		return 1;
	}
	for (j = 0; j < a->nhits[0]; j++) {
		const struct reis_hit *x = &a->hits[j], *y = &b->hits[j];

		if (x->id != y->id || x->entry != y->entry || x->hamming != y->hamming ||
		    x->score != y->score || x->doc_len != y->doc_len ||
		    (x->doc_len && (!x->doc || !y->doc || memcmp(x->doc, y->doc, x->doc_len)))) {
			snprintf(why, len, "hit %u: id %llu entry %u hamming %u score %lld "
				 "against id %llu entry %u hamming %u score %lld", j + 1,
				 (unsigned long long)x->id, x->entry, x->hamming,
				 (long long)x->score, (unsigned long long)y->id, y->entry,
				 y->hamming, (long long)y->score);
			return (int)j + 1;
		}
	}
	return 0;
}

#endif /* EXAMPLES_CONVENTIONAL_H */
