/* SPDX-License-Identifier: MIT */
/*
 * group_demo - the RAG demo's database on a device group (docs/group.md).
 *
 * `group_demo BUNDLE [--drives N]` (`make demo-group`; BUNDLE is the RAG
 * demo's image, scripts/rag-bundle.sh):
 *   1. read the bundle: the WordNet-gloss IVF database, its quantizer and
 *      the demo questions (rag_demo's "RAGQ" section);
 *   2. open N in-process drives (default 4) and shard the database over
 *      them (entry p on drive p mod N, every centroid on every drive), and
 *      the whole database on one more drive for comparison;
 *   3. for each question: the top passages each drive found in its shard,
 *      the merged top-k, and whether it is identical to the single drive's;
 *   4. a scheduled run (Solana IV-A) over the host CPU and the N drives on a
 *      batch of 512 look-ups (passages' own codes as queries): the batch
 *      ratio from the calibration run, and the Table-I-style summary.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libreis_tools.h"
#include "ex_usage.h"

#define RAG_QUERIES_SEC 0x100u	/* rag_demo's user section */
#define RAG_MAX_TEXT 256u
#define DEMO_K 3u

struct rag_qhdr {
	char magic[4];
	uint32_t count;
	uint32_t dim;
	uint32_t rsvd;
};

static struct reis_dev *open_drive(void)
{
	struct reis_inproc_opts io;
	struct reis_dev *dev;

	memset(&io, 0, sizeof(io));
	io.flags = REIS_INPROC_VCLOCK;	/* each batch timed from an idle drive */
	return reis_open_inproc(&io, &dev) ? NULL : dev;
}

static int same_hits(const struct reis_search_result *a, const struct reis_search_result *b)
{
	uint32_t i;

	for (i = 0; i < a->nq * a->k; i++)
		if (a->hits[i].id != b->hits[i].id || a->hits[i].score != b->hits[i].score ||
		    a->hits[i].hamming != b->hits[i].hamming || a->hits[i].doc_len != b->hits[i].doc_len ||
		    (a->hits[i].doc_len && memcmp(a->hits[i].doc, b->hits[i].doc, a->hits[i].doc_len)))
			return 0;
	return 1;
}

static void print_doc(const struct reis_hit *h, unsigned n)
{
	printf("%.*s%s\n", (int)(h->doc_len < n ? h->doc_len : n), (const char *)h->doc,
	       h->doc_len > n ? "..." : "");
}

/* The member whose own result holds hit @h (the same score, distance and
 * document), or -1. */
static int member_of(const struct reis_group_result *r, const struct reis_hit *h)
{
	unsigned s, j;

	for (s = 0; s < r->nmembers; s++)
		for (j = 0; j < r->part[s].nhits[0]; j++) {
			const struct reis_hit *x = &r->part[s].hits[j];

			if (x->score == h->score && x->hamming == h->hamming &&
			    x->doc_len == h->doc_len && (!h->doc_len ||
			    !memcmp(x->doc, h->doc, h->doc_len)))
				return (int)s;
		}
	return -1;
}

static int ask(struct reis_group *g, struct reis_dev *one, const struct reis_db_image *img,
	       const char *text, uint32_t tlen, const float *emb)
{
	struct reis_search_opts o;
	struct reis_group_result r;
	struct reis_search_result want;
	struct reis_queries q;
	unsigned s, j;
	int ret;

	if (reis_encode_queries(img->quant, emb, 1, &q))
		return -1;
	memset(&o, 0, sizeof(o));
	o.did = img->did;
	o.k = DEMO_K;
	o.target_recall = 9500;
	o.flags = REIS_SF_DOCS;
	ret = reis_group_search(g, 1, &o, &q, 0, &r);
	if (!ret)
		ret = reis_ivf_search(one, &o, &q, &want);
	reis_queries_free(&q);
	if (ret) {
		fprintf(stderr, "group_demo: search: %s\n", reis_group_errmsg(g));
		return ret;
	}
	printf("\nquestion: \"%.*s\"\n", (int)tlen, text);
	for (s = 0; s < r.nmembers; s++) {
		const struct reis_search_result *p = &r.part[s];

		/* A member returns its factor*k best, rescored: show its top one. */
		printf("  drive %u: %u candidates rescored, best in its shard: ", s, p->nhits[0]);
		for (j = 1, ret = 0; j < p->nhits[0]; j++)
			if (p->hits[j].score > p->hits[ret].score)
				ret = (int)j;
		if (p->nhits[0])
			print_doc(&p->hits[ret], 60);
		else
			printf("-\n");
	}
	printf("  merged top-%u (nprobe %u of %u clusters, modeled %.3f ms, merge %.3f ms):\n",
	       DEMO_K, r.res.nprobe, img->nlist, r.search_ns / 1e6, r.merge_ns / 1e6);
	ret = same_hits(&r.res, &want) ? 0 : -1;
	for (j = 0; j < r.res.nhits[0]; j++) {
		const struct reis_hit *h = &r.res.hits[j];
		int m = member_of(&r, h);

		/* the drive that returned it: the shard rule holds */
		printf("    %u. [drive %d, entry %u, passage %" PRIu64 ", score %" PRId64 "] ",
		       j + 1, m, h->entry, h->id, h->score);
		print_doc(h, 90);
		if (m < 0 || (unsigned)m != h->entry % r.nmembers)
			ret = -1;
	}
	printf("  identical to one drive holding the whole database: %s\n",
	       same_hits(&r.res, &want) ? "yes" : "NO");
	if (!ret)
		printf("  every hit came from drive (entry mod %u)\n", r.nmembers);
	else
		printf("  FAIL: a hit differs from one drive, or came from another drive than "
		       "entry mod %u\n", r.nmembers);
	reis_group_result_free(&r);
	reis_search_result_free(&want);
	return ret;
}

/* "64%", or what a negative saving means: more energy, not less. */
static const char *saving_text(double saving, char *buf, size_t len)
{
	if (saving >= 0)
		snprintf(buf, len, "%.0f%%", 100 * saving);
	else
		snprintf(buf, len, "none, %.2fx the host alone's energy", 1 - saving);
	return buf;
}

static int scheduled(struct reis_group *g, struct reis_dev *one, const struct reis_db_image *img)
{
	struct reis_group_sched_opts so;
	struct reis_group_sched_report p;
	struct reis_group_result r;
	struct reis_search_opts o;
	struct reis_queries q;
	char s1[64], s2[64];
	int ret;

	memset(&q, 0, sizeof(q));
	q.nq = img->n < 512 ? (uint32_t)img->n : 512;
	q.dim = img->dim;
	q.bin = img->bin;
	q.int8 = img->int8;
	memset(&o, 0, sizeof(o));
	o.did = img->did;
	o.k = 10;
	o.nprobe = 8;
	memset(&so, 0, sizeof(so));
	so.batch = 16;
	so.single = one;
	ret = reis_group_sched_search(g, img, 1, &o, &q, &so, &r, &p);
	if (ret) {
		fprintf(stderr, "group_demo: scheduled: %s\n", reis_group_errmsg(g));
		return ret;
	}
	printf("\nscheduled run (Solana IV-A): %u look-ups over the host CPU and %u drives\n",
	       q.nq, p.nmembers);
	printf("  calibration: host %.0f, drives %.0f queries/s per shard -> batch ratio %.2f "
	       "(host batch %u, drive batch %u)\n", p.host.rate, p.drive[0].rate, p.ratio,
	       p.host_batch, p.drive_batch);
	printf("  %-26s %s\n", "Table I (Solana)", "this run");
	printf("  %-26s %.2fx vs host alone (%.0f vs %.0f q/s), %.2fx vs one drive (%.0f "
	       "q/s)\n", "max speedup", p.speedup_vs_host, p.qps, p.host_alone_qps,
	       p.speedup_vs_one_drive, p.one_drive_qps);
	printf("  %-26s %.3f mJ (server, %.1f W idle; dynamic only %.3f mJ)\n",
	       "energy per query (host)", p.server_host_alone_mj_per_query, p.server_w,
	       p.host_alone_mj_per_query);
	printf("  %-26s %.3f mJ (dynamic only %.3f mJ)\n", "energy per query (w/CSD)",
	       p.server_mj_per_query, p.mj_per_query);
	printf("  %-26s %s (dynamic only %s)\n", "energy saving per query",
	       saving_text(p.server_energy_saving, s1, sizeof(s1)),
	       saving_text(p.energy_saving, s2, sizeof(s2)));
	printf("  %-26s %.0f%% (%" PRIu64 " bytes read to the host)\n",
	       "data processed on host", 100 * (1 - p.inside_share), p.bytes_to_host);
	printf("  %-26s %.0f%% (%" PRIu64 " bytes processed inside)\n",
	       "data processed in CSDs", 100 * p.inside_share, p.bytes_inside);
	reis_group_result_free(&r);
	return 0;
}

int main(int argc, char **argv)
{
	struct reis_dev *devs[REIS_GROUP_MAX], *one;
	struct reis_db_image img;
	struct reis_group *g;
	struct rag_qhdr h;
	const uint8_t *qs;
	uint64_t qlen, pos;
	unsigned n = 4, i;
	char err[256];
	int ret = 0;

	char usage[64];

	snprintf(usage, sizeof(usage), "usage: group_demo BUNDLE [--drives N (1..%u)]\n",
		 REIS_GROUP_MAX);
	ex_help(argc, argv, usage);
	if (argc == 4 && !strcmp(argv[2], "--drives"))
		n = (unsigned)ex_u64("group_demo", "--drives", argv[3], 1, REIS_GROUP_MAX, usage);
	/* an option other than --drives is not a bundle */
	if (argc > 1 && argv[1][0] == '-')
		ex_usage_err("group_demo", "unknown option", argv[1], usage);
	if ((argc != 2 && argc != 4) || (argc == 4 && strcmp(argv[2], "--drives"))) {
		fputs(usage, stderr);
		return 2;
	}
	if (reis_db_image_load(argv[1], &img, err, sizeof(err))) {
		fprintf(stderr, "group_demo: %s\n", err);
		return 1;
	}
	qs = reis_db_image_extra(&img, RAG_QUERIES_SEC, &qlen);
	if (!qs || qlen < sizeof(h) || !img.quant || !img.int8 || img.kind != REIS_DB_IVF) {
		fprintf(stderr, "group_demo: %s is not the RAG demo's bundle\n", argv[1]);
		return 1;
	}
	memcpy(&h, qs, sizeof(h));
	for (i = 0; i < n; i++)
		if (!(devs[i] = open_drive()))
			return 1;
	one = open_drive();
	if (!one || reis_group_adopt(devs, NULL, n, &g))
		return 1;
	printf("WordNet glosses: %" PRIu64 " passages, %u-d, %u clusters; sharding over %u "
	       "drives (entry e of the database, in IVF cluster order, on drive e mod %u, so "
	       "every cluster is spread over all of them; all centroids on each)\n", img.n,
	       img.dim, img.nlist, n, n);
	if (reis_group_db_deploy(g, &img, NULL) || reis_db_deploy(one, &img, NULL)) {
		fprintf(stderr, "group_demo: deploy: %s\n", reis_group_errmsg(g));
		return 1;
	}
	for (i = 0, pos = sizeof(h); i < h.count && i < 3 && !ret; i++) {
		uint32_t tlen;

		if (qlen - pos < 8)
			break;
		memcpy(&tlen, qs + pos + 4, 4);
		if (tlen >= RAG_MAX_TEXT || qlen - pos - 8 < ((tlen + 3) & ~3u) + 4ull * h.dim)
			break;
		ret = ask(g, one, &img, (const char *)qs + pos + 8, tlen,
			  (const float *)(const void *)(qs + pos + 8 + ((tlen + 3) & ~3u)));
		pos += 8 + ((tlen + 3) & ~3u) + 4ull * h.dim;
	}
	if (!ret)
		ret = scheduled(g, one, &img);
	reis_group_close(g);
	reis_close(one);
	reis_db_image_free(&img);
	return ret ? 1 : 0;
}
