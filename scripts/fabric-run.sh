#!/bin/sh
# fabric-run.sh RESULTS_DIR PROG... - the multi-VM runner (docs/fabric.md):
# K storage VMs, each with M ISP drives exported over NVMe/TCP passthru
# (scripts/fabric-target.sh), and one compute VM with one local ISP drive
# that connects to all of them (scripts/fabric-connect.sh) and runs the
# guest programs PROG... in order ("reis:list" runs "reis list").
#
# The links are private: each storage VM has one virtio-net NIC joined to
# one NIC of the compute VM by a QEMU stream netdev over a unix-domain
# socket in a private temp dir; guests use 169.254.I.0/24 on link I. No
# netdev of this script reaches any network.
#
# When the compute console prints "@@FABRIC-KILL I", storage VM I's QEMU
# gets SIGKILL at once (a storage server lost mid-search).
#
# Environment:
#   FABRIC_K=K        storage VMs [2]       FABRIC_M=M   drives each [1]
#   FABRIC_TIMEOUT=s  per program [180]     FABRIC_BOOT_TIMEOUT=s [180]
#   FABRIC_VERBOSE=1  copy the compute console to stdout
#   FABRIC_COMPUTE_NS=FILE  the compute VM's namespace image [a new 64 MiB]
#   STACK, ISP_ACCEL, ISP_VM_MEM as for every VM (scripts/vm-lib.sh);
#   storage VMs get one vCPU each.
# Writes RESULTS_DIR/fabric.counts ("passed failed skipped"), one
# PASS/FAIL/SKIP line per program, and keeps every console and QEMU log as
# RESULTS_DIR/fabric.<vm>.{console,qemu}.log. Exit 1 when anything failed.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/vm-lib.sh"

results=${1:?usage: fabric-run.sh RESULTS_DIR PROG...}
shift
[ $# -gt 0 ] || { echo "usage: fabric-run.sh RESULTS_DIR PROG..." >&2; exit 2; }
K=${FABRIC_K:-2}
M=${FABRIC_M:-1}
prog_timeout=${FABRIC_TIMEOUT:-180}
boot_timeout=${FABRIC_BOOT_TIMEOUT:-180}
case $K$M$prog_timeout$boot_timeout in
*[!0-9]*) echo "fabric-run: FABRIC_K, FABRIC_M and the timeouts are numbers" >&2; exit 2 ;;
esac
[ "$K" -ge 1 ] && [ "$K" -le 8 ] && [ "$M" -ge 1 ] && [ "$M" -le 4 ] ||
    { echo "fabric-run: FABRIC_K in 1..8, FABRIC_M in 1..4" >&2; exit 2; }
mkdir -p "$results"
rm -f "$results"/fabric.*
pass=0 fail=0 skip=0

finish() {
    echo "$pass $fail $skip" >"$results/fabric.counts"
    echo "fabric: $pass passed, $fail failed, $skip skipped"
    [ "$fail" = 0 ]
}
if ! why=$(vm_check); then
    echo "FAIL fabric: $why"
    fail=1
    finish
    exit 1
fi

tmp=$(mktemp -d /tmp/isp-fabric.XXXXXX)
pids=""
cleanup() {
    for p in $pids; do
        kill -9 "$p" 2>/dev/null || true
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
accel=$(vm_accel)
# Three or more TCG guests on two busy cores: the kernel's early check that
# the timer interrupt arrives can fail and panic ("IO-APIC + timer doesn't
# work"); skip it. loglevel=5: the nvme and nvmet errors (keep-alive,
# reconnects) and warnings reach the console logs; nvme-pci's "I/O tag N
# timeout, aborting" is a warning, and it is the one message that says
# whether a 07h completion seen over the fabric was the storage VM's own
# driver aborting a slow command (docs/fabric.md §4).
FAB_APPEND="no_timer_check loglevel=5"
limit=$((boot_timeout + prog_timeout * $#))

# nic LINK SIDE NETDEV_OPTS: a virtio-net on a stream netdev; the MAC names
# link and side for tests/vm/fabric-node.sh.
nic() {
    printf -- '-netdev stream,id=l%d,addr.type=unix,addr.path=%s/l%d.sock,%s ' "$1" "$tmp" "$1" "$3"
    printf -- '-device virtio-net-pci,netdev=l%d,mac=52:54:00:fa:%02x:%02x ' "$1" "$1" "$2"
}

# The compute VM listens on every link; storage VMs connect to it.
cargs=""
i=1
while [ "$i" -le "$K" ]; do
    cargs="$cargs $(nic "$i" 1 server=on)"
    i=$((i + 1))
done
cns=${FABRIC_COMPUTE_NS:-$tmp/c-ns.img}
[ -f "$cns" ] || truncate -s 64M "$cns"
clog=$results/fabric.compute.console.log
list=$(echo "$*" | tr ' ' ',')
start=$(date +%s)
# shellcheck disable=SC2046,SC2086
"$VM_QEMU" $(vm_args "$accel" "isp=on,isp-backing=$tmp/c-flash.img" "$cns") $cargs \
    -monitor none -serial stdio \
    -append "$VM_APPEND_BASE $FAB_APPEND isp.run=demo isp.demo=/bin/fabric-node.sh isp.timeout=$limit isp.fab.role=compute isp.fab.k=$K isp.fab.m=$M isp.fab.run=$list isp.fab.timeout=$prog_timeout" \
    </dev/null >"$clog.raw" 2>"$results/fabric.compute.qemu.log" &
cpid=$!
pids="$cpid"

i=1
while [ "$i" -le "$K" ]; do
    w=0
    while [ ! -S "$tmp/l$i.sock" ] && [ $w -lt 100 ]; do
        sleep 0.1
        w=$((w + 1))
    done
    [ -S "$tmp/l$i.sock" ] || { echo "FAIL fabric: compute VM made no socket for link $i"; fail=1; finish; exit 1; }
    # M drives: the first from vm_args, the others beside it.
    extra=""
    j=1
    while [ "$j" -lt "$M" ]; do
        truncate -s 64M "$tmp/s$i-ns$j.img"
        extra="$extra -drive file=$tmp/s$i-ns$j.img,if=none,id=nvm$j,format=raw"
        extra="$extra -device nvme,serial=isp-ssd-s$i-$j,drive=nvm$j,isp=on,isp-backing=$tmp/s$i-flash$j.img"
        j=$((j + 1))
    done
    truncate -s 64M "$tmp/s$i-ns0.img"
    # shellcheck disable=SC2046,SC2086
    ISP_VM_SMP=1 "$VM_QEMU" $(ISP_VM_SMP=1 vm_args "$accel" "isp=on,isp-backing=$tmp/s$i-flash0.img" "$tmp/s$i-ns0.img") \
        $extra $(nic "$i" 2 server=off) -monitor none -serial stdio \
        -append "$VM_APPEND_BASE $FAB_APPEND isp.run=demo isp.demo=/bin/fabric-node.sh isp.timeout=$limit isp.fab.role=storage isp.fab.id=$i" \
        </dev/null >"$results/fabric.storage$i.console.log.raw" 2>"$results/fabric.storage$i.qemu.log" &
    eval "spid_$i=$!"
    pids="$pids $!"
    i=$((i + 1))
done
echo "fabric: $accel, stack $STACK, $K storage VMs x $M drives + 1 compute VM; running $*"

# Follow the compute console: kill requests, the end, the time limit.
seen_kills=""
while kill -0 "$cpid" 2>/dev/null; do
    if [ $(($(date +%s) - start)) -ge "$limit" ]; then
        echo "fabric: compute VM still running after ${limit}s: stopping it"
        kill -9 "$cpid" 2>/dev/null || true
        break
    fi
    for v in $(sed -n 's/^@@FABRIC-KILL \([0-9]*\).*/\1/p' "$clog.raw" | tr -d '\r'); do
        case " $seen_kills " in *" $v "*) continue ;; esac
        seen_kills="$seen_kills $v"
        eval "p=\${spid_$v:-}"
        if [ -n "$p" ]; then
            kill -9 "$p" 2>/dev/null || true
            echo "fabric: storage VM $v killed (SIGKILL) at $(($(date +%s) - start)) s"
        fi
    done
    sleep 0.2
done
wait "$cpid" 2>/dev/null && crc=0 || crc=$?
secs=$(($(date +%s) - start))
for p in $pids; do
    kill -9 "$p" 2>/dev/null || true
done
for f in "$results"/fabric.*.console.log.raw; do
    tr -d '\r' <"$f" >"${f%.raw}"
    rm -f "$f"
done
[ "${FABRIC_VERBOSE:-0}" = 1 ] && cat "$clog"
conn=$(sed -n 's/^@@FABRIC-CONNECTED \([0-9]*\).*/\1/p' "$clog" | head -n 1)
echo "fabric: ${secs} s wall; compute connected to ${conn:-no} remote drives"
grep -h '^@@FABRIC-ERROR' "$results"/fabric.*.console.log | sed 's/^/    /' || true

vm_results "$clog" fabric "$results/fabric.compute" "$prog_timeout" \
    "not connected, guest died or timed out" "$@"
if [ "$crc" = 0 ] && grep -q '^@@ISP-DONE' "$clog"; then
    pass=$((pass + 1)); echo "PASS vm/fabric/qemu-exit"
else
    fail=$((fail + 1)); echo "FAIL vm/fabric/qemu-exit (compute qemu exit $crc)"
    tail -n 5 "$results/fabric.compute.qemu.log" | sed 's/^/    /'
fi
finish
