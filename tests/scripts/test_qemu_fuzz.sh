#!/bin/sh
# test_qemu_fuzz.sh - the glue's fuzz run (scripts/qemu-fuzz.sh) is set up
# to reach the glue:
#   1. the seed corpus (scripts/qemu-fuzz-seeds.py) decodes into
#      generic-fuzz operations; every seed enables the controller and rings
#      a doorbell; together their submission queue entries carry the ISP
#      vendor I/O opcodes, the ISP log pages (Get Log Page LIDs 01h, C0h-C3h)
#      and the standard interface's admin and I/O commands;
#   2. the configuration turns isp and isp-cs on for the nvme device and
#      fuzzes the nvme objects;
#   3. qemu-build.sh builds the fuzz flavor for 10.0 only;
#   4. when the fuzzer is built ($BUILD/qemu-fuzz-10.0, make qemu-fuzz): one
#      replay of the seeds covers every glue entry point QEMU_FUZZ_NEED names
#      (libFuzzer's -print_coverage). Without the build this part says so
#      and the rest still decides.
# Exit 0 pass, 1 fail.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# --- 1. seeds ---------------------------------------------------------------
"$TOP/scripts/qemu-fuzz.sh" seeds "$tmp/seeds" || fail "seeds not written"
n=$(ls "$tmp/seeds" | wc -l)
[ "$n" -ge 9 ] || fail "$n seeds, expected 9"
: >"$tmp/sqes"
for f in "$tmp/seeds"/*; do
    python3 "$TOP/scripts/qemu-fuzz-seeds.py" decode "$f" >"$tmp/ops" ||
        { fail "$(basename "$f") does not decode"; continue; }
    grep -q '^write size=2 base=0 off=0x14 value=0x[0-9a-f]*[13579bdf]$' "$tmp/ops" ||
        fail "$(basename "$f"): never sets CC.EN"
    grep -q '^write size=2 base=0 off=0x10[0-9a-f][0-9a-f] ' "$tmp/ops" ||
        fail "$(basename "$f"): rings no doorbell"
    # each entry that precedes a doorbell: queue, opcode, nsid, cdw10
    awk '/^clear_dma_patterns/ { sqe = "" }
         /^add_dma_pattern len=64 / && sqe == "" { sqe = $3 }
         /^write size=2 base=0 off=0x10/ && sqe != "" {
             q = ($4 == "off=0x1000") ? "admin" : "io"
             print q, substr(sqe, 1, 2), substr(sqe, 9, 8), substr(sqe, 81, 8); sqe = "x"
         }' "$tmp/ops" >>"$tmp/sqes"
done
for opc in 81 86 82 8a 80 91 99 b1 b2 a4 05 02 04; do
    grep -q "^io $opc " "$tmp/sqes" || fail "no seed submits I/O opcode ${opc}h"
done
# Get Log Page: cdw10's low byte (little-endian) is the LID
for lid in 01 c0 c1 c2 c3; do
    grep -q "^admin 02 [0-9a-f]* $lid" "$tmp/sqes" || fail "no seed reads log page ${lid}h"
done
for opc in 88 89 00 05 01; do
    grep -q "^admin $opc " "$tmp/sqes" || fail "no seed submits admin opcode ${opc}h"
done
grep -q '^io [0-9a-f]* 02000000 ' "$tmp/sqes" || fail "no seed addresses the SLM namespace (nsid 2)"

# --- 2. configuration -------------------------------------------------------
"$TOP/scripts/qemu-fuzz.sh" env >"$tmp/env" || fail "qemu-fuzz.sh env failed"
grep -q "^QEMU_FUZZ_ARGS='.*-device 'nvme,[^ ]*isp=on,isp-cs=on" "$tmp/env" ||
    fail "the nvme device has not isp=on,isp-cs=on: $(cat "$tmp/env")"
grep -q "^QEMU_FUZZ_OBJECTS='nvme'$" "$tmp/env" || fail "QEMU_FUZZ_OBJECTS is not nvme"

# --- 3. the build flavor ----------------------------------------------------
QEMU_FLAVOR=fuzz QEMU_VERSION=7.2 BUILD=$tmp/b ISP_CACHE=$tmp/c \
    "$TOP/scripts/qemu-build.sh" >"$tmp/b72" 2>&1 && fail "a 7.2 fuzz build was accepted"
grep -q 'QEMU_FLAVOR=fuzz is built for QEMU 10.0 only' "$tmp/b72" ||
    fail "7.2 fuzz build: $(cat "$tmp/b72")"
QEMU_FLAVOR=bogus BUILD=$tmp/b ISP_CACHE=$tmp/c \
    "$TOP/scripts/qemu-build.sh" >"$tmp/bx" 2>&1 && fail "QEMU_FLAVOR=bogus was accepted"

# --- 4. replay through the fuzzer -------------------------------------------
if [ -x "$BUILD/qemu-fuzz-10.0/qemu-fuzz-x86_64" ]; then
    QEMU_FUZZ_DIR=$tmp/work BUILD=$BUILD "$TOP/scripts/qemu-fuzz.sh" replay >"$tmp/replay" 2>&1 ||
        fail "replay of the seeds: $(tail -n 5 "$tmp/replay")"
    cat "$tmp/replay"
else
    echo "note: $BUILD/qemu-fuzz-10.0 not built (make qemu-fuzz): no replay"
fi

[ "$fails" = 0 ] || exit 1
echo "PASS: $n seeds, configuration, build flavor"
