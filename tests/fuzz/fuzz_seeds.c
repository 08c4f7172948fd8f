/* SPDX-License-Identifier: MIT */
/*
 * fuzz_seeds.c - writes the seed corpus: fuzz_seeds DIR [N].
 *
 * Seed i runs the command generator of fuzz_isp.c from a PRNG (geometry i,
 * long valid-ish sequences: deploys of random shapes, searches, SLS,
 * remaps, deletes) and records every command the drive accepted. The seed
 * file replays them as literal steps (FZ_SEL_LITERAL: opcode, nsid,
 * cdw10-15, data), so each seed is a valid command sequence the fuzzer then
 * mutates. A second file per seed keeps the PRNG's structured bytes, a
 * third the accepted commands of the CS harness' mix (fz_state.cs_bias):
 * Computational Programs and Subsystem Local Memory sequences, replayed
 * as FZ_SEL_LITERAL_CS steps (set, opcode, nsid, cdw2-4, cdw10-15, data).
 */
#include <errno.h>
#include <sys/stat.h>

#include "fuzz_isp.h"

#define SEED_MAX_BYTES (16u * 1024u)

struct seed_buf {
	uint8_t *p;
	size_t n;
	unsigned cmds;
};

static void seed_put(struct seed_buf *b, const void *p, size_t n)
{
	if (!n || b->n + n > SEED_MAX_BYTES)
		return;
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void seed_put32(struct seed_buf *b, uint32_t v)
{
	seed_put(b, &v, 4);
}

/* Only accepted commands are recorded (fz_exec calls this before exec). */
static void seed_record(void *arg, const struct isp_cmd *c, const void *data, size_t len)
{
	struct seed_buf *b = arg;
	uint8_t sel = FZ_SEL_LITERAL;

	if (b->cmds >= FZ_MAX_STEPS || b->n + 46 + len > SEED_MAX_BYTES)
		return;
	if (c->set) {	/* a standard-interface command: set and CDW2-4 too */
		sel = FZ_SEL_LITERAL_CS;
		seed_put(b, &sel, 1);
		seed_put(b, &c->set, 1);
		seed_put(b, &c->opcode, 1);
		seed_put32(b, c->nsid);
		seed_put32(b, c->cdw2);
		seed_put32(b, c->cdw3);
		seed_put32(b, c->cdw4);
	} else {
		seed_put(b, &sel, 1);
		seed_put(b, &c->opcode, 1);
		seed_put32(b, c->nsid);
	}
	seed_put32(b, c->cdw10);
	seed_put32(b, c->cdw11);
	seed_put32(b, c->cdw12);
	seed_put32(b, c->cdw13);
	seed_put32(b, c->cdw14);
	seed_put32(b, c->cdw15);
	seed_put(b, data, len);
	b->cmds++;
}

static int seed_write(const char *dir, const char *name, unsigned i, const void *p, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s-%03u", dir, name, i);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "fuzz_seeds: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 2 ? (unsigned)atoi(argv[2]) : 24, i, k, cs;
	struct seed_buf b;
	uint8_t raw[2048];

	if (argc < 2) {
		fprintf(stderr, "usage: fuzz_seeds DIR [N]\n");
		return 2;
	}
	mkdir(argv[1], 0755);
	b.p = malloc(SEED_MAX_BYTES);
	if (!b.p)
		return 1;
	for (i = 0; i < n; i++) {
		struct fz_src gen = { .rng = 0x5eed0000u + i };
		struct fz_state st;

		/* structured bytes, first byte the geometry */
		for (k = 0; k < sizeof(raw); k++)
			raw[k] = fz_u8(&gen);
		raw[0] = (uint8_t)i;
		if (seed_write(argv[1], "structured", i, raw, sizeof(raw)))
			return 1;

		/* the same generator's accepted commands, replayed literally; then
		 * with the CS harness' bias: standard-interface sequences */
		for (cs = 0; cs < 2; cs++) {
			b.n = 0;
			b.cmds = 0;
			b.p[b.n++] = (uint8_t)i;
			fz_setup(&st, i);
			st.cs_bias = cs;
			st.record = seed_record;
			st.record_arg = &b;
			for (k = 0; k < FZ_MAX_STEPS; k++)
				fz_step(&st, &gen);
			st.record = NULL;
			fz_finish(&st);
			if (seed_write(argv[1], cs ? "cs-recorded" : "recorded", i, b.p, b.n))
				return 1;
		}
	}
	free(b.p);
	printf("fuzz_seeds: %u structured + %u recorded + %u CS-recorded seeds in %s\n", n, n, n,
	       argv[1]);
	return 0;
}
