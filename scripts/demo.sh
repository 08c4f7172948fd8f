#!/bin/sh
# demo.sh - the main demo (`make demo`, what plain `make` runs): a RAG query
# answered by the drive inside a booted VM. The host puts the WordNet-gloss
# database bundle (scripts/rag-bundle.sh) at the start of the namespace
# image; in the guest, examples/rag_demo reads it with ordinary block reads,
# deploys it into the drive (or finds it already deployed) and answers
# queries with IVF_SEARCH, printing the passages, modeled latency and energy,
# and answers each one again the conventional way (ordinary reads, search
# on the guest CPU; identical hits required), then a summary table.
# Q="question|question..." (`make demo Q=...`; '|' or newlines separate up
# to 16 questions) asks the user's questions instead of the built-in ones:
# the host embeds them with the corpus' model (scripts/rag-bundle.sh).
# ISP_PATH=cp (`make demo ISP_PATH=cp`) runs the guest program over the
# standard interface (docs/libreis.md, "The standard path"): the drive gets
# its memory and compute namespaces (isp-cs=on) and libreis in the guest
# Memory Write, Execute Program, Memory Read instead of the vendor opcodes;
# the answers are the vendor path's (tests/vm/guest/test_demo_vm_cs.c).
# ISP_DEMO="prog args" runs another guest program instead (e.g.
# ISP_DEMO="reis info", ISP_DEMO=dlrm_demo, ISP_DEMO=bench_vm_latency).
# The flash backing file lives in $BUILD/demo/, so what a demo deploys is
# there next time. ISP_DRIVES=N boots N ISP drives (docs/group.md). The RAG
# demo's summary and the DLRM demo's side-by-side table are also drawn, as
# $BUILD/demo/summary.svg and dlrm-side-by-side.svg (scripts/demo-plot.sh).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/vm-lib.sh"

why=$(vm_check) || { echo "demo: $why" >&2; exit 1; }
dir=$BUILD/demo
mkdir -p "$dir"
[ -f "$dir/ns.img" ] || truncate -s 256M "$dir/ns.img"
# A flash file from an older build with other default geometry would be
# refused by QEMU (never reformatted): move it aside, say so, start afresh.
if [ -f "$dir/flash.img" ] && [ -x "$BUILD/host-lib/reis" ] &&
    ! why=$("$BUILD/host-lib/reis" --inproc --backing "$dir/flash.img" info 2>&1 >/dev/null) &&
    echo "$why" | grep -q 'another geometry\|not a backing file\|version'; then
    old=$dir/flash.img.old-$(date +%Y%m%d%H%M%S)
    mv "$dir/flash.img" "$old"
    echo "demo: $why" >&2
    echo "demo: kept the old flash file as $old; using a new one" >&2
fi
demo=${ISP_DEMO:-rag_demo}
# Stage times (cold and warm runs differ here: docs/reis.md §5).
stage() { echo "demo: stage $1: $(( $(date +%s) - t_stage )) s"; t_stage=$(date +%s); }
t_stage=$(date +%s)
if [ "$demo" = rag_demo ]; then
    qtxt=$dir/questions.txt
    rc=0
    "$ROOT/scripts/demo-questions.sh" "$qtxt" || rc=$?
    case $rc in
    0) ;;
    3) qtxt= ;;		# Q unset: the built-in questions
    *) exit 1 ;;
    esac
    if ! "$ROOT/scripts/rag-bundle.sh" "$dir/ns.img" ${qtxt:+"$qtxt"} > "$dir/bundle.log"; then
        cat "$dir/bundle.log"
        exit 1
    fi
    cat "$dir/bundle.log"
    qoff=$(sed -n 's/^rag-bundle: questions at byte \([0-9]*\)$/\1/p' "$dir/bundle.log")
    [ -z "$qtxt" ] || [ -n "$qoff" ] || { echo "demo: the questions were not written" >&2; exit 1; }
    [ -z "$qoff" ] || demo="rag_demo --questions $qoff"
    stage "bundle and questions"
fi
case ${ISP_PATH:-vendor} in
cp) cs_dev=",isp-cs=on" cs_append=" isp.path=cp" ;;
vendor) cs_dev="" cs_append="" ;;
*) echo "demo: ISP_PATH=$ISP_PATH: use cp or vendor" >&2; exit 1 ;;
esac
accel=$(vm_accel)
group=$(vm_group_args "${ISP_DRIVES:-1}" "$dir")	# device groups: docs/group.md
demo_arg="isp.demo=$(echo "$demo" | tr ' ' ',')"

echo "demo: booting the ISP SSD VM ($accel; the console follows)"
log=$dir/console.log
# shellcheck disable=SC2046,SC2086
timeout "${DEMO_TIMEOUT:-600}" "$VM_QEMU" \
    $(vm_args "$accel" "isp=on,isp-backing=$dir/flash.img$cs_dev" "$dir/ns.img") $group \
    -monitor none -serial stdio \
    -append "$VM_APPEND_BASE isp.run=demo isp.timeout=${DEMO_TIMEOUT:-600} $demo_arg$cs_append" </dev/null 2>&1 |
    tr -d '\r' | tee "$log" | grep -v -e '^@@ISP-' -e 'reboot: Power down'
stage "boot, deploy or find, questions"
rc=$(sed -n 's/^@@ISP-RESULT demo \([0-9]*\)$/\1/p' "$log" | tail -n 1)
if [ "$rc" != 0 ]; then
    echo "demo: failed (guest program exit ${rc:-missing}; console log: $log)" >&2
    exit 1
fi
# The summary table drawn next to it (gnuplot).
case $demo in
rag_demo*) grep -q '^== summary' "$log" && "$ROOT/scripts/demo-plot.sh" rag "$log" "$dir/summary.svg" ;;
dlrm_demo*) grep -q '^== side by side' "$log" &&
    "$ROOT/scripts/demo-plot.sh" dlrm "$log" "$dir/dlrm-side-by-side.svg" ;;
esac
# The flash file is sparse (the whole modeled drive, a few hundred GB
# apparent): say so before anyone copies build/demo/ plainly.
if [ -f "$dir/flash.img" ]; then
    echo "demo: $dir/flash.img is sparse: $(( $(stat -c %s "$dir/flash.img") / 1000000000 )) GB apparent," \
        "$(( $(du -k "$dir/flash.img" | cut -f1) / 1024 )) MiB on disk; copy it with cp --sparse=always or tar -S"
fi
echo "demo: done (console log: $log)"
