/* SPDX-License-Identifier: MIT */
/*
 * cp_t.h - what the tests of libreis' standard path share (tests/lib/
 * test_lib_cp.c in process, tests/vm/guest/test_lib_vm_cs.c in the VM): an
 * INT8 database image with documents (IVF: @nlist lists, calibrated on
 * @cq), REQUIREd to build. Header only, no state.
 */
#ifndef TESTS_CP_T_H
#define TESTS_CP_T_H

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "libreis_tools.h"

static inline void cp_t_build(struct reis_db_image *img, const float *x, uint64_t n,
			      uint32_t dim, uint32_t did, uint32_t kind, const uint8_t *docs,
			      const uint64_t *off, uint32_t nlist, const float *cq, uint32_t ncq)
{
	struct reis_build_opts o;
	char err[256];

	memset(&o, 0, sizeof(o));
	o.did = did;
	o.kind = kind;
	o.flags = REIS_BUILD_INT8;
	o.docs = docs;
	o.doc_offsets = off;
	o.nlist = kind == REIS_DB_IVF ? nlist : 0;
	o.km.seed = did;
	o.km.max_iter = 6;
	o.calib_queries = kind == REIS_DB_IVF ? cq : NULL;
	o.ncalib_queries = kind == REIS_DB_IVF ? ncq : 0;
	if (reis_db_build(&o, x, n, dim, img, err, sizeof(err)))
		fprintf(stderr, "build: %s\n", err);
	REQUIRE(img->n == n);
}

#endif /* TESTS_CP_T_H */
