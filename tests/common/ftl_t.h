/* SPDX-License-Identifier: MIT */
/*
 * ftl_t.h - an FTL on its own store and timing engine, for the unit tests
 * of hw-model/src/ftl (the device-level tests go through isp_dev instead).
 */
#ifndef TESTS_FTL_T_H
#define TESTS_FTL_T_H

#include <string.h>

#include "check.h"
#include "flash_store.h"
#include "flash_timing.h"
#include "ftl.h"
#include "isp_dev.h"

struct t_ftl {
	struct fp_params p;
	struct fs *fs;
	struct ft *ft;
	struct ftl *ftl;
	uint64_t clock;		/* next submit time, ns */
};

/* reis-ssd1 with @params over it; in memory. */
static inline void t_ftl_open(struct t_ftl *t, const char *params)
{
	struct fs_config fc;
	struct ftl_config cfg;
	char err[256];

	memset(t, 0, sizeof(*t));
	REQUIRE(fp_preset("reis-ssd1", &t->p) == 0);
	if (fp_apply(&t->p, params, err, sizeof(err))) {
		fprintf(stderr, "params: %s\n", err);
		exit(T_EXIT_FAIL);
	}
	memset(&fc, 0, sizeof(fc));
	fc.params = &t->p;
	REQUIRE(fs_open(&fc, &t->fs, err, sizeof(err)) == 0);
	REQUIRE(ft_open(&t->p, &t->ft) == 0);
	memset(&cfg, 0, sizeof(cfg));
	cfg.fs = t->fs;
	cfg.ft = t->ft;
	cfg.p = &t->p;
	if (ftl_open(&cfg, &t->ftl, err, sizeof(err))) {
		fprintf(stderr, "ftl_open: %s\n", err);
		exit(T_EXIT_FAIL);
	}
	t->clock = 1000000;
}

static inline void t_ftl_close(struct t_ftl *t)
{
	ftl_close(t->ftl);
	ft_close(t->ft);
	fs_close(t->fs);
}

/* An ordinary command on namespace 1, submitted at @at_ns. */
static inline struct ftl_io t_ftl_req(uint32_t opc, uint64_t off, uint64_t len,
				      uint64_t at_ns)
{
	struct ftl_io io;

	memset(&io, 0, sizeof(io));
	io.opc = opc;
	io.nsid = 1;
	io.off = off;
	io.len = len;
	io.submit_ns = at_ns;
	return io;
}

/* One command submitted @gap_ns after the previous one. */
static inline int t_ftl_cmd(struct t_ftl *t, uint32_t opc, uint64_t off, uint64_t len,
			    uint64_t gap_ns, struct ftl_cpl *cpl)
{
	struct ftl_io io;
	struct ftl_cpl tmp;

	t->clock += gap_ns;
	io = t_ftl_req(opc, off, len, t->clock);
	return ftl_io(t->ftl, &io, cpl ? cpl : &tmp);
}

/* The same through a whole device (isp_dev_io()), at @at_ns. */
static inline int t_dev_cmd(struct isp_dev *dev, uint32_t opc, uint64_t off, uint64_t len,
			    uint64_t at_ns, struct ftl_cpl *cpl)
{
	struct ftl_io io = t_ftl_req(opc, off, len, at_ns);
	struct ftl_cpl tmp;

	return isp_dev_io(dev, &io, cpl ? cpl : &tmp);
}

/* xorshift32: the tests' deterministic offsets. */
static inline uint32_t t_xs(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

#endif /* TESTS_FTL_T_H */
