/* SPDX-License-Identifier: MIT */
/*
 * hello_reis - the "hello world" of the drive: your own program, built with
 * `pkg-config --cflags --libs libreis`, talking to the ISP drive.
 *
 *   1. open the drive: the path given (/dev/ng0n1), --inproc for the drive
 *      model inside this process, or the first ISP drive found;
 *   2. say what it is (ISP_IDENTIFY);
 *   3. deploy a small database "from memory": 1000 binary codes of 256
 *      bits (seeded random, so every run and every machine makes the same)
 *      with a document each;
 *   4. search it with a query near code 42 (5 bits flipped): the drive
 *      compares in its dies and returns the 3 nearest with their documents;
 *   5. print the hits and what the drive modeled the search to cost;
 *   6. delete the database again.
 *
 *   cc -o hello_reis hello_reis.c $(pkg-config --cflags --libs libreis)
 *   ./hello_reis /dev/ng0n1        (or: ./hello_reis --inproc)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libreis.h>

#define DID 4200		/* the database id this example uses (the RAG demo has 4242) */
#define N 1000			/* codes in the database */
#define DIM 256			/* bits per code: a multiple of 64 */
#define K 3			/* hits asked for */

/* 1. Open the drive: a path, --inproc, or the first one discovered. */
static struct reis_dev *open_drive(const char *arg)
{
	struct reis_disc found;
	struct reis_dev *dev;
	int ret;

	if (arg && !strcmp(arg, "--inproc")) {
		ret = reis_open_inproc(NULL, &dev);
	} else {
		if (!arg) {
			if (reis_discover(&found, 1, 0) < 1) {
				fprintf(stderr, "hello_reis: no ISP drive found (name one, "
					"/dev/ngXnY, or run the drive model in this "
					"process: hello_reis --inproc)\n");
				return NULL;
			}
			arg = found.path;
		}
		ret = reis_open(arg, 0, &dev);
	}
	if (ret) {
		fprintf(stderr, "hello_reis: open %s: %s\n", arg ? arg : "inproc",
			reis_strerror(ret));
		return NULL;
	}
	return dev;
}

/* 2. What the drive is. */
static void say_hello(struct reis_dev *dev)
{
	const struct reis_info *in = reis_dev_info(dev);

	printf("drive %s over %s: ISP command set %u.%u, preset %s, %u channels x %u dies\n",
	       reis_path(dev), reis_transport(dev), in->ver_major, in->ver_minor, in->preset,
	       in->channels, in->dies_per_channel);
}

/* Seeded codes: the same bytes on every machine (xorshift64). */
static void make_codes(uint8_t *codes, size_t len)
{
	uint64_t s = 0x9e3779b97f4a7c15u;
	size_t i;

	for (i = 0; i < len; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		codes[i] = (uint8_t)(s >> 32);
	}
}

/* The DOCS section: n records {u32 length, bytes} in entry order. */
static uint8_t *make_docs(uint64_t *len)
{
	uint8_t *docs = malloc(N * 40), *p = docs;
	uint32_t i, l;
	char text[36];

	if (!docs)
		return NULL;
	for (i = 0; i < N; i++) {
		l = (uint32_t)snprintf(text, sizeof(text), "passage number %u", i);
		memcpy(p, &l, 4);
		memcpy(p + 4, text, l);
		p += 4 + l;
	}
	*len = (uint64_t)(p - docs);
	return docs;
}

/* 3. Deploy the codes and documents as database DID. */
static int deploy(struct reis_dev *dev, const uint8_t *codes, const uint8_t *docs,
		  uint64_t docs_len)
{
	struct reis_db_image img;
	char err[200];
	int ret;

	memset(&img, 0, sizeof(img));
	img.did = DID;
	img.kind = REIS_DB_BF;
	img.dim = DIM;
	img.n = N;
	img.bin = codes;
	img.docs = docs;
	img.docs_bytes = docs_len;
	img.doc_mode = REIS_DOC_SUBPAGE;
	snprintf(img.name, sizeof(img.name), "hello");
	ret = reis_db_image_check(&img, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "hello_reis: %s\n", err);
		return ret;
	}
	ret = reis_db_deploy(dev, &img, NULL);
	if (ret == -EEXIST) {
		/* left by an earlier run that was interrupted */
		reis_db_delete(dev, DID);
		ret = reis_db_deploy(dev, &img, NULL);
	}
	if (ret)
		fprintf(stderr, "hello_reis: deploy: %s\n", reis_last_error(dev));
	else
		printf("deployed database %u: %u codes of %u bits with documents\n", DID, N, DIM);
	reis_db_image_free(&img);	/* only what the check allocated */
	return ret;
}

/* 4. and 5. Search a query near code 42 and print the hits and the cost. */
static int search(struct reis_dev *dev, const uint8_t *codes)
{
	struct reis_search_result res;
	struct reis_search_opts o;
	struct reis_queries q;
	uint8_t query[DIM / 8];
	uint32_t i;
	int ret;

	memcpy(query, codes + 42 * (DIM / 8), sizeof(query));
	for (i = 0; i < 5; i++)
		query[i * 6] ^= (uint8_t)(1u << i);	/* 5 bits flipped */
	memset(&o, 0, sizeof(o));
	o.did = DID;
	o.k = K;
	o.flags = REIS_SF_NO_RERANK | REIS_SF_DOCS;
	memset(&q, 0, sizeof(q));
	q.nq = 1;
	q.dim = DIM;
	q.bin = query;
	ret = reis_search(dev, &o, &q, &res);
	if (ret) {
		fprintf(stderr, "hello_reis: search: %s\n", reis_last_error(dev));
		return ret;
	}
	for (i = 0; i < res.nhits[0]; i++) {
		const struct reis_hit *h = &res.hits[i];

		printf("hit %u: id %llu, Hamming distance %u, \"%.*s\"\n", i + 1,
		       (unsigned long long)h->id, h->hamming, (int)h->doc_len,
		       (const char *)h->doc);
	}
	printf("the drive modeled the search at %.1f us and %.1f uJ (%llu entries compared "
	       "in its dies, %llu pages read)\n", (res.search_ns + res.read_ns) / 1e3,
	       (res.search_nj + res.read_nj) / 1e3, (unsigned long long)res.entries_compared,
	       (unsigned long long)res.pages_read);
	reis_search_result_free(&res);
	return 0;
}

static const char usage[] =
	"usage: hello_reis [/dev/ngXnY | --inproc]\n"
	"  deploys 1000 codes, searches near code 42, deletes them again;\n"
	"  without an argument: the first ISP drive found\n";

int main(int argc, char **argv)
{
	static uint8_t codes[N * DIM / 8];
	struct reis_dev *dev;
	uint64_t docs_len = 0;
	uint8_t *docs;
	int ret;

	/* --help is a question, not a device path; other options are mistakes */
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc > 2 || (argc > 1 && argv[1][0] == '-' && strcmp(argv[1], "--inproc"))) {
		fprintf(stderr, "hello_reis: unknown option or argument '%s'\n%s",
			argv[argc > 2 ? 2 : 1], usage);
		return 2;
	}
	dev = open_drive(argc > 1 ? argv[1] : NULL);
	if (!dev)
		return 1;
	say_hello(dev);
	make_codes(codes, sizeof(codes));
	docs = make_docs(&docs_len);
	ret = docs ? deploy(dev, codes, docs, docs_len) : -ENOMEM;
	if (!ret)
		ret = search(dev, codes);
	if (!ret)
		ret = reis_db_delete(dev, DID);	/* 6. */
	free(docs);
	reis_close(dev);
	return ret ? 1 : 0;
}
