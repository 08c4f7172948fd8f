#!/bin/sh
# vm-bench-ftl.sh [COMMANDS] - the guest against the model, isp-timing=delay
# (docs/ftl.md, "Guest against model"): tests/vm/guest/bench_vm_ftl.c runs
# ISP_NOOP (the emulation floor), raw 4 KiB / 128 KiB reads and writes,
# REIS searches and RecFlash SLS at QD 1 and 16, and fio (block io_uring
# and io_uring_cmd, 4 KiB random reads, QD 1 and 16); each command's
# round trip in the guest beside the modeled time in its completion.
# Needs `make qemu guest`; STACK=10.0|7.2 as for the tests. Prints the
# table with the host's load and keeps it in $BUILD/results/vm-bench-ftl.txt.
# Re-run on a quiet machine: the guest's times are wall time under TCG.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/vm-lib.sh"

why=$(vm_check) || { echo "vm-bench-ftl: $why" >&2; exit 1; }
tmp=$(mktemp -d /tmp/isp-bench-ftl.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
truncate -s 64M "$tmp/ns.img"
accel=$(vm_accel)
mkdir -p "$BUILD/results"
out=$BUILD/results/vm-bench-ftl.txt
load0=$(cut -d' ' -f1-3 /proc/loadavg)
# shellcheck disable=SC2046
timeout 1800 "$VM_QEMU" $(vm_args "$accel" "isp=on,isp-timing=delay${ISP_PARAMS:+,isp-params=$ISP_PARAMS}" "$tmp/ns.img") \
    -monitor none -serial stdio \
    -append "$VM_APPEND_BASE isp.run=demo isp.timeout=1700 isp.demo=bench_vm_ftl,${1:-400}" \
    </dev/null 2>&1 | tr -d '\r' >"$tmp/console.log" || true
{
    echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) stack=$STACK accel=$accel host=$(nproc) cores," \
        "load before $load0, after $(cut -d' ' -f1-3 /proc/loadavg)"
    grep -e '^@@BENCH' "$tmp/console.log" || true
} | tee "$out"
grep -q '^@@ISP-RESULT demo 0$' "$tmp/console.log" ||
    { echo "vm-bench-ftl: failed; console:" >&2; tail -n 20 "$tmp/console.log" >&2; exit 1; }
