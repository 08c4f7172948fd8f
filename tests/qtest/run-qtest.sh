#!/bin/sh
# run-qtest.sh RESULTS_DIR - QEMU's own qos tests (all of qos-test, nvme
# included) on the patched build, plus a few checks of the ISP device
# properties. Called by `make qtest`, after `make qemu`.
#
# STACK=10.0|7.2 (default 10.0) picks the QEMU version (its guest kernel
# plays no part here). qos-test is built in that version's cached QEMU tree
# ($BUILD/qemu-$STACK/build) and pointed at $BUILD/qemu-$STACK/
# qemu-system-x86_64, the wrapper that adds Debian's firmware directories
# (qtest reads the target from the binary's file name, so the extra
# arguments cannot live in QTEST_QEMU_BINARY). QOS_FILTER=nvme runs only the
# nvme tests. Writes RESULTS_DIR/qtest.counts.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
ISP_CACHE=${ISP_CACHE:-/var/cache/isp-ssd}
results=${1:?usage: run-qtest.sh RESULTS_DIR}
mkdir -p "$results"
rm -f "$results"/qtest.*
STACK=${STACK:-10.0}
qemu=$BUILD/qemu-$STACK/qemu-system-x86_64
bld=$BUILD/qemu-$STACK/build
pass=0 fail=0 skip=0

finish() {
    echo "$pass $fail $skip" >"$results/qtest.counts"
    echo "qtest: $pass passed, $fail failed, $skip skipped"
    [ "$fail" = 0 ]
}

if [ ! -x "$qemu" ] || [ ! -d "$bld" ]; then
    echo "FAIL qtest: no patched QEMU $STACK build (make qemu STACK=$STACK)"
    fail=1
    finish
    exit 1
fi

# --- qos-test ---------------------------------------------------------------
# ninja may re-run meson: with the tools the build used (10.0: meson 1.7).
if [ -f "$BUILD/qemu-$STACK/env" ]; then
    # shellcheck disable=SC1090
    . "$BUILD/qemu-$STACK/env"
    export PYTHONPATH
fi
# The tree is shared with scripts/qemu-build.sh: take its lock.
exec 9>"$ISP_CACHE/qemu.lock"
flock 9
start=$(date +%s)
if ! ninja -C "$bld" tests/qtest/qos-test >"$results/qtest.build.log" 2>&1; then
    flock -u 9
    echo "FAIL qtest/build: ninja tests/qtest/qos-test (log: $results/qtest.build.log)"
    tail -n 20 "$results/qtest.build.log" | sed 's/^/    /'
    fail=1
    finish
    exit 1
fi
flock -u 9
echo "qtest: qos-test built in $(($(date +%s) - start)) s"

paths=""
if [ -n "${QOS_FILTER:-}" ]; then
    paths=$(QTEST_QEMU_BINARY=$qemu "$bld/tests/qtest/qos-test" -l |
        grep "^/.*$QOS_FILTER" | sed 's/^/-p /' | tr '\n' ' ')
fi
start=$(date +%s)
# shellcheck disable=SC2086
QTEST_QEMU_BINARY=$qemu timeout "${QTEST_TIMEOUT:-1200}" \
    "$bld/tests/qtest/qos-test" --tap -k $paths \
    >"$results/qtest.qos.tap" 2>"$results/qtest.qos.stderr" && rc=0 || rc=$?
echo "qtest: qos-test ran in $(($(date +%s) - start)) s (exit $rc)"

# TAP: "ok N /path", "ok N /path # SKIP why", "not ok N /path"
while read -r line; do
    name=$(echo "$line" | sed 's/^\(not \)\{0,1\}ok [0-9]* *//; s/ *# *SKIP.*//')
    case $line in
    "not ok"*) fail=$((fail + 1)); echo "FAIL qtest/qos$name" ;;
    "ok "*"# SKIP"*) skip=$((skip + 1)); echo "SKIP qtest/qos$name: ${line#*# SKIP}" ;;
    "ok "*) pass=$((pass + 1)); echo "PASS qtest/qos$name" ;;
    esac
done <"$results/qtest.qos.tap"
planned=$(sed -n 's/^1\.\.\([0-9]*\).*/\1/p' "$results/qtest.qos.tap" | tail -n 1)
reported=$((pass + fail + skip))
if [ "$rc" != 0 ] || [ -z "$planned" ] || [ "$planned" != "$reported" ]; then
    fail=$((fail + 1))
    echo "FAIL qtest/qos (exit $rc, planned ${planned:-?}, reported $reported)"
    tail -n 10 "$results/qtest.qos.stderr" | sed 's/^/    /'
fi

# --- ISP device properties (realize-time validation) -------------------------
# result NAME OK WANT: count one check; a failure shows QEMU's exit ($rc)
# and the end of its output ($out).
result() {
    if [ "$2" = 1 ]; then
        pass=$((pass + 1)); echo "PASS qtest/isp-props/$1"
    else
        fail=$((fail + 1)); echo "FAIL qtest/isp-props/$1 (exit $rc, want '$3')"
        echo "$out" | tail -n 5 | sed 's/^/    /'
    fi
}
# check NAME EXPECT DEVICE_OPTS: start QEMU paused and quit; EXPECT is "ok"
# or a piece of the error message QEMU must print.
check() {
    out=$(echo quit | timeout 30 "$qemu" -M pc -S -nodefaults -display none \
        -monitor stdio -device "nvme,serial=q0,$3" 2>&1) && rc=0 || rc=$?
    case $2 in
    ok) [ "$rc" = 0 ] && ok=1 || ok=0 ;;
    *) case $out in *"$2"*) [ "$rc" != 0 ] && ok=1 || ok=0 ;; *) ok=0 ;; esac ;;
    esac
    result "$1" "$ok" "$2"
}
check default-off ok ""
check on-in-memory ok "isp=on"
check on-delay ok "isp=on,isp-timing=delay,isp-preset=reis-ssd2"
check bad-timing "isp-timing must be 'annotate' or 'delay'" "isp=on,isp-timing=later"
check timing-needs-isp-on "need isp=on" "isp-timing=annotate"
check needs-isp-on "need isp=on" "isp-preset=reis-ssd1"
check bad-preset "unknown preset" "isp=on,isp-preset=no-such-drive"
check bad-params "isp:" "isp=on,isp-params=no_such_key=1"

# check_out NAME WANT: the QEMU run just before exited 0 ($rc) and its
# output ($out) contains WANT.
check_out() {
    case $out in *"$2"*) [ "$rc" = 0 ] && ok=1 || ok=0 ;; *) ok=0 ;; esac
    result "$1" "$ok" "$2"
}
# isp-timing is an enum property: help lists its values, the default reads
# back as annotate.
out=$(timeout 30 "$qemu" -device nvme,help 2>&1) && rc=0 || rc=$?
check_out timing-enum-help "isp-timing=<NvmeIspTiming> - annotate/delay"
out=$(printf '%s\n' '{"execute":"qmp_capabilities"}' \
    '{"execute":"qom-get","arguments":{"path":"/machine/peripheral/n0","property":"isp-timing"}}' \
    '{"execute":"quit"}' | timeout 30 "$qemu" -M pc -S -nodefaults -display none \
    -qmp stdio -device nvme,serial=q0,id=n0,isp=on 2>&1) && rc=0 || rc=$?
check_out timing-default '{"return": "annotate"}'

# unwind NAME DEVICE_OPTS: a realize that fails in the model (device_add on
# a running QEMU) undoes the controller: QEMU says why, keeps running, and
# the same id added again works.
unwind() {
    out=$(printf '%s\n' "device_add nvme,serial=h1,id=h1,isp=on,isp-preset=no-such-drive$2" \
        "device_add nvme,serial=h1,id=h1,isp=on$2" 'info pci' 'quit' |
        timeout 30 "$qemu" -M pc -S -nodefaults -display none -monitor stdio 2>&1) &&
        rc=0 || rc=$?
    case $out in
    *"isp: unknown preset"*'id "h1"'*) [ "$rc" = 0 ] && ok=1 || ok=0 ;;
    *) ok=0 ;;
    esac
    result "$1" "$ok" "the error, then device h1"
}
unwind realize-unwind ""
unwind realize-unwind-msix-bar ",msix-exclusive-bar=on"

# 10.0's OCP Extended SMART log is page C0h, ISP's statistics page too.
if [ "$STACK" = 10.0 ]; then
    check ocp-clash "isp=on and ocp=on both claim log page C0h" "isp=on,ocp=on"
    check ocp-alone ok "ocp=on"
fi

# --- ISP glue driven through the qtest protocol (tests/qtest/isp_qtest.py) ---
# The script is the NVMe host: it deletes single queues and holds the
# virtual clock, which a Linux guest cannot.
# The search database is deployed once per run by the in-process reis CLI.
qcache=$(mktemp -d /tmp/isp-qtest-cache.XXXXXX)
REIS_CLI=$BUILD/host-lib/reis ISP_QTEST_CACHE=$qcache \
    "$ROOT/tests/qtest/isp_qtest.py" "$qemu" "$results" >"$results/qtest.isp.out" 2>&1 || true
rm -rf "$qcache"
sed -n 's/^  /qtest: isp: /p' "$results/qtest.isp.out"
grep -e '^PASS' -e '^FAIL' -e '^SKIP' "$results/qtest.isp.out" || true
# shellcheck disable=SC2046
set -- $(sed -n 's/^isp-qtest: \([0-9]*\) \([0-9]*\) \([0-9]*\)$/\1 \2 \3/p' "$results/qtest.isp.out")
if [ $# = 3 ]; then
    pass=$((pass + $1)) fail=$((fail + $2)) skip=$((skip + $3))
else
    fail=$((fail + 1)); echo "FAIL qtest/isp (no summary line)"
    tail -n 10 "$results/qtest.isp.out" | sed 's/^/    /'
fi

finish
