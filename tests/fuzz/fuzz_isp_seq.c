/* SPDX-License-Identifier: MIT */
/*
 * fuzz_isp_seq.c - libFuzzer harness: one input is one command sequence on
 * one fresh drive (fuzz_isp.h). Byte 0 picks the geometry.
 */
#include "fuzz_isp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_src s = { .p = data, .n = size };
	struct fz_state st;
	unsigned steps;

	if (size < 2)
		return 0;
	fz_setup(&st, fz_u8(&s));
	for (steps = 0; steps < FZ_MAX_STEPS && !fz_done(&s); steps++)
		fz_step(&st, &s);
	fz_finish(&st);
	return 0;
}
