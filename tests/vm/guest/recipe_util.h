/* SPDX-License-Identifier: MIT */
/*
 * recipe_util.h - running the nvme-cli recipes of docs/nvme-cli.md in the
 * guest (test_vm_nvme_cli: the vendor commands, "# recipe:" blocks;
 * test_vm_nvme_cli_cs: the standard interface, "# cs-recipe:" blocks): read
 * the document the image carries, run each ```sh block whose first line is
 * the marker with sh, in document order, and hand its output and exit
 * status to the recipe's check; every recipe has a check and every check
 * runs once.
 */
#ifndef RECIPE_UTIL_H
#define RECIPE_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check.h"
#include "libreis.h"
#include "libreis_tools.h"
#include "reis_synth.h"

#define RECIPE_DOC "/usr/share/doc/isp-ssd/nvme-cli.md"
#define RECIPE_OUT_MAX 65536
#define RECIPE_SCRIPT_MAX 16384

struct recipe {
	const char *name;
	void (*check)(const char *out, int rc);
};

/* A file a recipe wrote, whole (at most @max bytes); its length or -1. */
static inline long recipe_slurp(const char *path, void *buf, size_t max)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, max, f);
	fclose(f);
	return (long)n;
}

/* The number after @key in @out, or UINT64_MAX. */
static inline uint64_t recipe_after(const char *out, const char *key)
{
	const char *p = strstr(out, key);

	return p ? strtoull(p + strlen(key), NULL, 0) : UINT64_MAX;
}

/* Run one recipe: its output (stdout and stderr) into @out, its exit status. */
static inline int recipe_sh(const char *script, char *out, size_t max)
{
	FILE *f = fopen("/tmp/recipe.sh", "w");
	size_t n;
	int st;

	REQUIRE(f);
	fputs(script, f);
	fclose(f);
	st = system("sh /tmp/recipe.sh > /tmp/recipe.out 2>&1");
	f = fopen("/tmp/recipe.out", "r");
	REQUIRE(f);
	n = fread(out, 1, max - 1, f);
	out[n] = 0;
	fclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The database the REIS recipes read (@did): 200 entries of 128 dimensions,
 * brute force, INT8 codes, a document each, META; a leftover replaced. */
static inline void recipe_deploy_db(struct reis_dev *dev, uint32_t did)
{
	enum { N = 200, DIM = 128 };
	float *x = synth_vectors(5, N, DIM, 8, 0.5f);
	uint64_t *off;
	uint8_t *docs = synth_docs(6, N, 300, &off);
	struct reis_build_opts o;
	struct reis_db_image img;
	char err[256];

	REQUIRE(x && docs);
	memset(&o, 0, sizeof(o));
	o.did = did;
	o.kind = REIS_DB_BF;
	o.flags = REIS_BUILD_INT8;
	o.docs = docs;
	o.doc_offsets = off;
	o.name = "nvme-cli";
	if (reis_db_build(&o, x, N, DIM, &img, err, sizeof(err))) {
		fprintf(stderr, "build: %s\n", err);
		exit(T_EXIT_FAIL);
	}
	reis_db_delete(dev, did);	/* leftovers of an earlier run */
	REQUIRE(reis_db_deploy(dev, &img, NULL) == 0);
	reis_db_image_free(&img);
	free(x);
	free(docs);
	free(off);
}

/*
 * recipes_run - every ```sh block of RECIPE_DOC whose first line is
 * "# @marker NAME", run and checked by the entry of @rs named NAME.
 * Return: how many ran (failures are counted in t_failures).
 */
static inline unsigned recipes_run(const char *marker, const struct recipe *rs, unsigned nrs)
{
	static char doc[262144], out[RECIPE_OUT_MAX], script[RECIPE_SCRIPT_MAX];
	char head[64], fmt[80];
	unsigned *ran = calloc(nrs, sizeof(*ran)), i, nrun = 0;
	char *p, *end;
	long n = recipe_slurp(RECIPE_DOC, doc, sizeof(doc) - 1);

	REQUIRE(ran && n > 0 && n < (long)sizeof(doc) - 1);
	doc[n] = 0;
	snprintf(head, sizeof(head), "```sh\n# %s ", marker);
	snprintf(fmt, sizeof(fmt), "# %s %%63s", marker);
	for (p = doc; (p = strstr(p, head)); p = end) {
		char name[64];
		size_t len;
		int rc;

		p += strlen("```sh\n");
		end = strstr(p, "\n```");
		REQUIRE(end);
		len = (size_t)(end - p) + 1;
		REQUIRE(len < sizeof(script));
		memcpy(script, p, len);
		script[len] = 0;
		REQUIRE(sscanf(script, fmt, name) == 1);
		for (i = 0; i < nrs && strcmp(rs[i].name, name); i++)
			;
		if (i == nrs) {
			fprintf(stderr, "recipe '%s' has no check in this test\n", name);
			t_failures++;
			continue;
		}
		rc = recipe_sh(script, out, sizeof(out));
		printf("== recipe %s (exit %d)\n%s", name, rc, out);
		fflush(stdout);
		rs[i].check(out, rc);
		ran[i]++;
		nrun++;
	}
	for (i = 0; i < nrs; i++)
		if (ran[i] != 1) {
			fprintf(stderr, "recipe '%s' ran %u times (want 1: in %s once)\n",
				rs[i].name, ran[i], RECIPE_DOC);
			t_failures++;
		}
	free(ran);
	printf("%u recipes run\n", nrun);
	return nrun;
}

#endif
