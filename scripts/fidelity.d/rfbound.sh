#!/bin/sh
# scripts/fidelity.d/rfbound.sh BUILD DIR - make fidelity's section of the
# RecFlash sensing bound (docs/fidelity.md "RecFlash: the sensing bound
# over popularity laws", issue 26): bench_rf_bound --md writes DIR/rfbound.md,
# Fig. 11's energy factors RM-SSD / RecFlash for popularity laws held to
# IV-A's 8 % unique accesses, batches 1-128, analytically. It adds no rows
# (the paper's rows are the measured ones). About 10-20 s of one core
# (2026-12-05, load 7).
set -eu

if [ $# -ne 2 ] || [ ! -d "$2" ]; then
	echo "usage: rfbound.sh BUILD DIR" >&2
	exit 2
fi
bench=$1/examples/bench_rf_bound
if [ ! -x "$bench" ]; then
	echo "rfbound.sh: $bench missing (make -C examples fidelity builds it)" >&2
	exit 1
fi
"$bench" --md > "$2/rfbound.md"
