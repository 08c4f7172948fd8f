/* SPDX-License-Identifier: MIT */
/*
 * fuzz_isp_seq.c - libFuzzer harness: one input is one command sequence on
 * one fresh drive (fuzz_isp.h). Byte 0 picks the geometry.
 */
#include "fuzz_isp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
#ifdef FZ_COV_BIAS_ENV
	/* the coverage build replays fuzz_isp_cs's corpus with its mix */
	fz_run_seq(data, size, getenv("FZ_CS_BIAS") != NULL);
#else
	fz_run_seq(data, size, 0);
#endif
	return 0;
}
