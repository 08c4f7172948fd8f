#!/bin/sh
# scripts/fidelity.d/ftl.sh BUILD DIR - make fidelity's section of the
# FTL's datasheet rows (docs/ftl.md "Measured"): bench_ftl --md writes
# DIR/ftl.md (placed before the doc's Commands) and its rows DIR/ftl.csv,
# which scripts/fidelity.sh copies to docs/fidelity-ftl.csv. They are
# checks against product datasheets, not paper rows: they do not enter the
# headline count. A benchmark: it fails only if bench_ftl does (about
# 5 minutes of one core on a quiet machine, 2026-12-02).
set -eu

if [ $# -ne 2 ] || [ ! -d "$2" ]; then
	echo "usage: ftl.sh BUILD DIR" >&2
	exit 2
fi
bench=$1/examples/bench_ftl
if [ ! -x "$bench" ]; then
	echo "ftl.sh: $bench missing (make -C examples fidelity builds it)" >&2
	exit 1
fi
"$bench" --md --csv-file "$2/ftl.csv" > "$2/ftl.md"
