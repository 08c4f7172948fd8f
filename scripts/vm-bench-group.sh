#!/bin/sh
# vm-bench-group.sh [ENTRIES [BATCHES]] - the device group measured in the
# VM (docs/group.md, "Measured in the VM"): boots ISP_DRIVES (default 8)
# ISP drives, each its own controller, namespace and flash backing file,
# and runs tests/vm/guest/bench_vm_group: sharded REIS search and RecFlash
# SLS over the first 1, 2, 4 and 8 drives (QPS and batch latency, modeled
# and wall, the host's merge time), then the scheduled mode over the host
# CPU and all drives with its batch ratio and Table-I summary. Needs `make
# qemu guest`. A benchmark (numbers, not pass/fail): prints the @@BENCH
# lines and keeps them in $BUILD/results/vm-bench-group.txt.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/vm-lib.sh"

why=$(vm_check) || { echo "vm-bench-group: $why" >&2; exit 1; }
tmp=$(mktemp -d /tmp/isp-bench-group.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
truncate -s 64M "$tmp/ns.img"
accel=$(vm_accel)
drives=${ISP_DRIVES:-8}
# Delay mode: a completion waits for its modeled time on QEMU's virtual
# clock, so the guest never submits a batch while the drive's model is still
# busy with the previous one (or with a deploy's programs). With annotate the
# guest runs ahead whenever the emulator is faster than the model, that
# queueing enters the next batch's modeled latency, and modeled QPS then
# depends on the QEMU version and the host's load (docs/group.md).
timing=${ISP_TIMING:-delay}
group=$(vm_group_args "$drives" "$tmp" "isp=on,isp-timing=$timing")
mkdir -p "$BUILD/results"
out=$BUILD/results/vm-bench-group.txt
t0=$(date +%s)
# shellcheck disable=SC2046,SC2086
timeout 1500 "$VM_QEMU" $(vm_args "$accel" "isp=on,isp-timing=$timing,isp-backing=$tmp/flash-0.img" \
    "$tmp/ns.img") $group -monitor none -serial stdio \
    -append "$VM_APPEND_BASE isp.run=demo isp.timeout=1400 isp.demo=bench_vm_group,${1:-20000},${2:-4}" \
    </dev/null 2>&1 | tr -d '\r' >"$tmp/console.log" || true
{
    echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) stack=${STACK:-10.0} accel=$accel timing=$timing" \
        "drives=$drives host=$(nproc) cores, boot+run $(( $(date +%s) - t0 )) s"
    grep -e '^@@BENCH' "$tmp/console.log" | sed 's/^@@BENCH //' || true
} | tee "$out"
grep -q '^@@ISP-RESULT demo 0$' "$tmp/console.log" ||
    { echo "vm-bench-group: failed; console:" >&2; tail -n 30 "$tmp/console.log" >&2; exit 1; }
