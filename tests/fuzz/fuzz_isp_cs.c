/* SPDX-License-Identifier: MIT */
/*
 * fuzz_isp_cs.c - libFuzzer harness over the standard interface: the
 * single-threaded harness (fuzz_isp_seq.c) with three of four vendor
 * selectors turned into Computational Programs / Subsystem Local Memory
 * ones (fz_state.cs_bias), so nearly every input is load / activate /
 * range set / memory write / execute / memory read / copy sequences on a
 * fresh drive with the fixtures deployed (README.md).
 */
#include "fuzz_isp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_run_seq(data, size, 1);
	return 0;
}
