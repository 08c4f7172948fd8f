#!/bin/sh
# vm-bench.sh [ITERATIONS] - latency and IOPS of ISP_NOOP, a 4 KiB NVMe read
# (io_uring passthrough) and REIS_SEARCH (libreis, brute force over a
# generated 20000 x 512-bit database) at QD 1, 4, 16 and 32 in one guest,
# REIS_SEARCH with more model work per command (one query over 400000
# codes) in 5 interleaved rounds of QD 1, 4, 16, 32 with the median
# QD / QD1 IOPS ratio, then 4 KiB reads at QD 1 idle and beside
# back-to-back long searches (512 queries over 400000 codes) on another
# ring (tests/vm/guest/bench_vm_latency.c). Needs `make qemu guest`.
# Prints the table and keeps it in $BUILD/results/vm-bench.txt.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/vm-lib.sh"

why=$(vm_check) || { echo "vm-bench: $why" >&2; exit 1; }
tmp=$(mktemp -d /tmp/isp-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
truncate -s 64M "$tmp/ns.img"
accel=$(vm_accel)
mkdir -p "$BUILD/results"
out=$BUILD/results/vm-bench.txt
# shellcheck disable=SC2046
timeout 900 "$VM_QEMU" $(vm_args "$accel" "isp=on,isp-timing=${ISP_TIMING:-annotate}" "$tmp/ns.img") \
    -monitor none -serial stdio \
    -append "$VM_APPEND_BASE isp.run=demo isp.timeout=800 isp.demo=bench_vm_latency,${1:-2000}" \
    </dev/null 2>&1 | tr -d '\r' >"$tmp/console.log" || true
{
    echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) accel=$accel timing=${ISP_TIMING:-annotate} host=$(nproc) cores"
    grep -e '^@@BENCH' -e 'QD' "$tmp/console.log" || true
} | tee "$out"
grep -q '^@@ISP-RESULT demo 0$' "$tmp/console.log" ||
    { echo "vm-bench: failed; console:" >&2; tail -n 20 "$tmp/console.log" >&2; exit 1; }
