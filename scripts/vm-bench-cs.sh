#!/bin/sh
# vm-bench-cs.sh [CALLS] - the standard path's cost over the vendor path
# (docs/libreis.md, "The standard path"): boots the guest with the memory
# and compute namespaces (isp=on,isp-cs=on) and runs
# tests/vm/guest/bench_vm_cs.c: brute-force search, IVF search, SLS and a
# document read, CALLS (default 200) of each at QD 1 on each path, the
# guest round trip beside the commands the drive counted and their modeled
# time. Needs `make qemu guest`; STACK=10.0|7.2 as for the tests. Prints
# the table with the host's load and keeps it in $BUILD/results/vm-bench-cs.txt.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/vm-lib.sh"

why=$(vm_check) || { echo "vm-bench-cs: $why" >&2; exit 1; }
tmp=$(mktemp -d /tmp/isp-bench-cs.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
truncate -s 64M "$tmp/ns.img"
accel=$(vm_accel)
mkdir -p "$BUILD/results"
out=$BUILD/results/vm-bench-cs.txt
load0=$(cut -d' ' -f1-3 /proc/loadavg)
# nvme-cli's loader needs room to unpack (tests/vm/run-vm-tests.sh, cs boot)
ISP_VM_MEM=${ISP_VM_MEM:-1024}
# shellcheck disable=SC2046
timeout 1800 "$VM_QEMU" $(vm_args "$accel" "isp=on,isp-cs=on" "$tmp/ns.img") \
    -monitor none -serial stdio \
    -append "$VM_APPEND_BASE isp.run=demo isp.timeout=1700 isp.demo=bench_vm_cs,${1:-200}" \
    </dev/null 2>&1 | tr -d '\r' >"$tmp/console.log" || true
{
    echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) stack=$STACK accel=$accel host=$(nproc) cores," \
        "load before $load0, after $(cut -d' ' -f1-3 /proc/loadavg)"
    grep -e '^@@BENCH' "$tmp/console.log" || true
} | tee "$out"
grep -q '^@@ISP-RESULT demo 0$' "$tmp/console.log" ||
    { echo "vm-bench-cs: failed; console:" >&2; tail -n 20 "$tmp/console.log" >&2; exit 1; }
