#!/bin/sh
# run-vm-tests.sh RESULTS_DIR - boot the patched QEMU and run the guest
# test programs ($BUILD/guest-bin/test_*) inside it. Called by `make vmtest`.
#
# Boots, in this order, on one raw namespace image in a temp dir:
#   isp      isp=on with a flash backing file: every test_* except the
#            *_isp_off, *_delay and *_kill ones; QEMU traces the glue's
#            pci_nvme_err_isp_* events and the log must show the bad-input
#            statuses,
#            and the effects-table check (pci_nvme_err_invalid_opc) must
#            have rejected unused vendor opcodes;
#   restart  isp=on again on the same backing file and namespace:
#            test_vm_identify and every *_restart / *_persist test (these
#            run in both boots and tell them apart by what the drive holds);
#   isp-off  isp=off: test_*_isp_off; the same effects-table check must
#            reject the vendor opcodes;
#   cs       isp=on,isp-cs=on (the memory and compute namespaces): test_*_cs,
#            on a namespace image of its own that holds the RAG demo's
#            bundle when the corpus is cached (test_demo_rag_vm_cs);
#   delay    isp=on (in memory), isp-timing=delay, 200 ms per command:
#            test_*_delay;
#   kill     for each test_*_kill and each of KILL_ROUNDS rounds (default
#            2), isp=on on a fresh backing file: once the program prints
#            @@ISP-KILL-ME, QEMU gets SIGKILL (a power cut for the
#            process) in the phase the round aims at: the program names
#            its phases (@@ISP-KILL-PHASES a|b|c), round r waits for phase
#            (r-1) mod n to start and kills 0, 0.1, 0.2 or 0.3 s into it
#            (the offset steps every n rounds), so the rounds sweep every
#            phase at several depths (a phase shorter than the runner's
#            poll, about 0.05 s, is often over by then: the PASS line names
#            the phase the kill really hit); without phases, a random
#            0.3-2.5 s;
#   after-kill  the same program again on that backing file: it checks
#            what survived.
# STACK=10.0|7.2 picks the QEMU and guest kernel pair (scripts/vm-lib.sh).
# VM_TESTS="test_a test_b" limits the run to those programs.
# Each program prints between console markers (tests/vm/guest-init.sh) and
# gets TEST_TIMEOUT seconds (default 120); a boot gets the sum plus
# VM_BOOT_TIMEOUT (default 120). A failing, missing or timed-out result, or
# QEMU not exiting cleanly, is a failure. Prints PASS/FAIL/SKIP lines and
# writes RESULTS_DIR/vm.counts ("passed failed skipped"); console logs are
# kept as RESULTS_DIR/vm.<boot>.console.log.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/scripts/vm-lib.sh"

results=${1:?usage: run-vm-tests.sh RESULTS_DIR}
mkdir -p "$results"
rm -f "$results"/vm.*
test_timeout=${TEST_TIMEOUT:-120}
boot_timeout=${VM_BOOT_TIMEOUT:-120}
pass=0 fail=0 skip=0

finish() {
    echo "$pass $fail $skip" >"$results/vm.counts"
    echo "vm: $pass passed, $fail failed, $skip skipped"
    [ "$fail" = 0 ]
}

if ! why=$(vm_check); then
    echo "FAIL vm: $why"
    fail=1
    finish
    exit 1
fi

tmp=$(mktemp -d /tmp/isp-vmtest.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
truncate -s 64M "$tmp/ns.img"

all=""
for p in "$BUILD"/guest-bin/test_*; do
    [ -x "$p" ] || continue
    t=$(basename "$p")
    # VM_TESTS="a b": only these (for a developer's quick rerun).
    case " ${VM_TESTS:-$t} " in *" $t "*) all="$all $t" ;; esac
done
on_tests="" off_tests="" delay_tests="" restart_tests="" kill_tests=""
for t in $all; do
    case $t in
    *_isp_off) off_tests="$off_tests $t" ;;
    *_delay) delay_tests="$delay_tests $t" ;;
    *_kill) kill_tests="$kill_tests $t" ;;
    *_fabric) fabric_tests="${fabric_tests:-} $t" ;;
    *_cs) cs_tests="${cs_tests:-} $t" ;;
    *) on_tests="$on_tests $t" ;;
    esac
    case $t in
    test_vm_identify | *_restart | *_persist) restart_tests="$restart_tests $t" ;;
    esac
done

# Device groups (docs/group.md): *_group tests run in their own 4-drive boot.
group_tests=$(for t in $on_tests; do case $t in *_group) printf '%s ' "$t" ;; esac; done)
on_tests=$(for t in $on_tests; do case $t in *_group) ;; *) printf '%s ' "$t" ;; esac; done)

accel=$(vm_accel)
echo "vm: accelerator $accel, stack $STACK: $VM_QEMU, kernel $GUEST_KERNEL"

# boot NAME DEVICE_OPTS TESTS...: one VM run, then one line per test.
boot() {
    name=$1 dev=$2
    shift 2
    [ $# -gt 0 ] || return 0
    log=$results/vm.$name.console.log
    list=$(echo "$*" | tr ' ' ',')
    limit=$((boot_timeout + test_timeout * $#))
    start=$(date +%s)
    # VM_EXTRA holds trace patterns: split it into words, never glob it
    set -f
    # shellcheck disable=SC2046,SC2086
    timeout -k 10 "$limit" "$VM_QEMU" $(vm_args "$accel" "$dev" "${VM_NS:-$tmp/ns.img}") \
        -monitor none -serial stdio ${VM_EXTRA:-} \
        -append "$VM_APPEND_BASE isp.run=tests isp.tests=$list isp.timeout=$test_timeout" \
        </dev/null >"$log.raw" 2>"$results/vm.$name.qemu.log" && rc=0 || rc=$?
    set +f
    tr -d '\r' <"$log.raw" >"$log"
    rm -f "$log.raw"
    secs=$(($(date +%s) - start))
    ready=$(sed -n 's/^@@ISP-READY \([0-9.]*\).*/\1/p' "$log" | head -n 1)
    echo "vm: boot '$name': ${secs} s wall, drive ready ${ready:-never} s after kernel start"

    vm_results "$log" "$name" "$results/vm.$name" "$test_timeout" \
        "guest or QEMU died, or boot timed out" "$@"

    # QEMU must survive whatever the guest sent and exit when it powers off.
    if [ "$rc" = 0 ] && grep -q '^@@ISP-DONE' "$log"; then
        pass=$((pass + 1)); echo "PASS vm/$name/qemu-exit"
    else
        fail=$((fail + 1))
        if [ "$rc" = 124 ]; then
            echo "FAIL vm/$name/qemu-exit (boot timed out after ${limit}s)"
        else
            echo "FAIL vm/$name/qemu-exit (qemu exit $rc)"
        fi
        tail -n 10 "$results/vm.$name.qemu.log" | sed 's/^/    /'
    fi
}

# --- kill rounds -------------------------------------------------------------
# kill_phase LOG ROUND: "OFFSET PHASE", the phase round ROUND aims at and
# how many seconds into it to kill; nothing if the program names no phases.
kill_phase() {
    sed -n 's/^@@ISP-KILL-PHASES //p' "$1" | head -n 1 | tr -d '\r' |
        awk -F'|' -v r="$2" '{ printf "%.1f %s\n", (int((r - 1) / NF) % 4) * 0.1, $(((r - 1) % NF) + 1) }'
}
# phase_starts LOG PHASE: how many times a "cycle N: PHASE" line was printed.
phase_starts() {
    tr -d '\r' <"$1" | awk -v p="$2" '$1 == "cycle" { l = $0; sub(/^cycle [0-9]+: /, "", l); if (l == p) n++ } END { print n + 0 }'
}

# boot_kill TEST BACKING [ROUND]: run TEST alone and SIGKILL QEMU after it
# prints @@ISP-KILL-ME: in the phase ROUND aims at (kill_phase), else a
# random 0.3-2.5 s later. Passes when the kill came while the program was
# still running (it never ends by itself in this boot).
boot_kill() {
    t=$1 name=kill round=${3:-1}
    log=$results/vm.$name.$t.r$round.console.log
    limit=$((boot_timeout + test_timeout))
    start=$(date +%s)
    : >"$log.raw"    # exists before the poll below looks at it
    # shellcheck disable=SC2046
    "$VM_QEMU" $(vm_args "$accel" "isp=on,isp-backing=$2" "$tmp/ns.img") \
        -monitor none -serial stdio \
        -append "$VM_APPEND_BASE isp.run=tests isp.tests=$t isp.timeout=$test_timeout" \
        </dev/null >"$log.raw" 2>"$results/vm.$name.$t.qemu.log" &
    qpid=$!
    marked=0
    while kill -0 "$qpid" 2>/dev/null && [ $(($(date +%s) - start)) -lt "$limit" ]; do
        if grep -q '^@@ISP-KILL-ME' "$log.raw"; then
            marked=1
            break
        fi
        sleep 0.2
    done
    killed=0 target="" kill_offset=0
    if [ "$marked" = 1 ]; then
        aimed=$(kill_phase "$log.raw" "$round")
        kill_offset=${aimed%% *}
        target=${aimed#* }
    fi
    if [ -n "$target" ]; then
        # wait for a new start of the target phase, then the offset
        seen=$(phase_starts "$log.raw" "$target")
        while kill -0 "$qpid" 2>/dev/null && [ $(($(date +%s) - start)) -lt "$limit" ] &&
            [ "$(phase_starts "$log.raw" "$target")" -le "$seen" ]; do
            sleep 0.02
        done
        sleep "$kill_offset"
    elif [ "$marked" = 1 ]; then
        sleep "$(awk 'BEGIN { srand(); printf "%.2f", 0.3 + 2.2 * rand() }')"
    fi
    if [ "$marked" = 1 ]; then
        # Still running: not ended by itself (a failure or the cycle limit).
        if kill -0 "$qpid" 2>/dev/null && ! grep -q "^@@ISP-RESULT $t" "$log.raw"; then
            kill -9 "$qpid" && killed=1
        fi
    fi
    kill -9 "$qpid" 2>/dev/null || true
    wait "$qpid" 2>/dev/null || true
    tr -d '\r' <"$log.raw" >"$log"
    rm -f "$log.raw"
    at=$(grep '^cycle ' "$log" | tail -n 1)
    aim=""
    [ -z "$target" ] || aim=", aimed at '$target' +${kill_offset} s"
    echo "vm: boot '$name' ($t, round $round$aim): $(($(date +%s) - start)) s wall; killed during: ${at:-before the first cycle}"
    if [ "$killed" = 1 ]; then
        pass=$((pass + 1)); echo "PASS vm/$name/$t/r$round (SIGKILL during: ${at:-setup})"
    else
        fail=$((fail + 1))
        if [ "$marked" = 1 ]; then
            echo "FAIL vm/$name/$t/r$round (ended before the kill)"
        else
            echo "FAIL vm/$name/$t/r$round (no @@ISP-KILL-ME within ${limit}s)"
        fi
        tail -n 20 "$log" | sed 's/^/    /'
    fi
}

# opc_check BOOT NAME: QEMU's effects-table check (nvme_io_cmd) rejected a
# vendor opcode with its own trace event, before any glue ran.
opc_check() {
    qlog=$results/vm.$1.qemu.log
    if grep -q "pci_nvme_err_invalid_opc invalid opcode 0x[89a-f][0-9a-f]$" "$qlog"; then
        pass=$((pass + 1)); echo "PASS vm/$1/$2"
    else
        fail=$((fail + 1)); echo "FAIL vm/$1/$2 (no pci_nvme_err_invalid_opc for a vendor opcode)"
        tail -n 5 "$qlog" | sed 's/^/    /'
    fi
}

# trace_check BOOT STATUS...: one of the glue's error trace events (one per
# error branch) fired with each NVMe status (the rejected commands of
# test_vm_badinput and others).
trace_check() {
    name=$1
    shift
    qlog=$results/vm.$name.qemu.log
    ev='pci_nvme_err_isp_[a-z0-9_]*'
    missing=""
    for st in "$@"; do
        grep -q "$ev .*status $st " "$qlog" || missing="$missing $st"
    done
    if [ -z "$missing" ]; then
        pass=$((pass + 1))
        echo "PASS vm/$name/trace-events ($(grep -c "$ev " "$qlog") pci_nvme_err_isp_*)"
    else
        fail=$((fail + 1)); echo "FAIL vm/$name/trace-events (no pci_nvme_err_isp_* with status$missing)"
    fi
}

# --- mixed load: QEMU's host RSS (test_vm_mixed_load) ------------------------
# The guest cannot see the host, so the program prints "@@ISP-RSS-MARK
# before|after" around its timed round and this watcher reads the boot's
# QEMU (the child of the boot's `timeout`) within a poll (0.2 s) of each;
# the program waits 1 s after a mark. It records VmRSS, RssAnon, RssFile
# (the backing file's mapped pages) and, from smaps, two shares that are
# not the emulator's: guest RAM (the ISP_VM_MEM-sized anonymous mapping:
# pages the guest touches first) and TCG's code buffer (anonymous
# executable mappings, or its "tcg-jit" memfd: guest code translated for
# the first time; +2 MiB in a 90 s round). The check is on the rest,
# QEMU's own memory: it may grow by RSS_TOL_KB (2 MiB, default) over the
# round, and its mapped backing file by RSS_FILE_TOL_KB (256 KiB): fixed
# allowances, nothing per byte programmed, as the round's churn leaves no
# database programmed (its rows are dead and given back,
# docs/reis-engine.md §7.1, "Host memory"). What stays is allocator
# high-water: the 8 ISP workers' malloc arenas grew 44-108 KiB each, the
# same over a 30 s and a 90 s round, +0.4-0.9 MiB in all, and the file
# +0. Before the dead rows' shared host pages were given back the file grew
# 1.5 MiB (7.2) to 3.0 MiB (10.0) over the round and failed this.
rss_tol_kb=${RSS_TOL_KB:-2048}
rss_file_tol_kb=${RSS_FILE_TOL_KB:-256}
rss_guest_kb=$((${ISP_VM_MEM:-640} * 1024))
# rss_child PPID [COMM]: pids whose parent is PPID (and comm is COMM).
# (cat, not awk's own file list: mawk stops at a process that is gone by the
# time it opens its stat, and prints nothing)
rss_child() {
    cat /proc/[0-9]*/stat 2>/dev/null |
        awk -v p="$1" -v c="${2:+($2)}" '$4 == p && (c == "" || $2 == c) { print $1 }'
}
# rss_read PID: "VmRSS RssAnon RssFile GuestRss JitRss" in KiB, or "none".
rss_read() {
    awk -v g="$rss_guest_kb" '
        FILENAME ~ /status$/ && $1 ~ /^(VmRSS|RssAnon|RssFile):$/ { v[$1] = $2 }
        FILENAME ~ /smaps$/ && $1 ~ /^[0-9a-f]+-[0-9a-f]+$/ {
            jit = ($2 ~ /x/ && ($5 == 0 || $6 ~ /tcg-jit/)) }
        FILENAME ~ /smaps$/ && $1 == "Size:" { sz = $2 }
        FILENAME ~ /smaps$/ && $1 == "Rss:" {
            if (sz == g && !jit && $2 > gr) gr = $2
            if (jit) jr += $2 }
        END { if (v["VmRSS:"] == "") print "none"
              else printf "%s %s %s %d %d\n", v["VmRSS:"], v["RssAnon:"], v["RssFile:"], gr, jr }' \
        "/proc/$1/status" "/proc/$1/smaps" 2>/dev/null
}
# rss_watch CONSOLE_RAW OUT: append "MARK VmRSS RssAnon RssFile GuestRss
# JitRss" to OUT for each mark seen, and keep QEMU's smaps as
# OUT.MARK.smaps (where a growth is, mapping by mapping).
rss_watch() {
    : >"$2"
    for rss_m in before after; do
        while ! grep -q "^@@ISP-RSS-MARK $rss_m" "$1" 2>/dev/null; do sleep 0.2; done
        rss_q=$(rss_child "$(rss_child $$ timeout | head -n 1)" | head -n 1)
        echo "$rss_m $(rss_read "$rss_q")" >>"$2"
        cp "/proc/$rss_q/smaps" "$2.$rss_m.smaps" 2>/dev/null || true
    done
}
# rss_check B_RSS B_ANON B_FILE B_GUEST B_JIT A_RSS A_ANON A_FILE A_GUEST
# A_JIT (KiB): QEMU's own growth (VmRSS less guest RAM and TCG code) against
# rss_tol_kb, the mapped file's against rss_file_tol_kb.
rss_check() {
    case "$*" in
    *[!0-9\ ]* | "") rss_n=0 ;;
    *) rss_n=$# ;;
    esac
    if [ "$rss_n" -ne 10 ]; then
        fail=$((fail + 1))
        echo "FAIL vm/isp/qemu-rss (no RSS figures at the marks: '$*')"
        return
    fi
    rss_own_d=$(( ($6 - $9 - ${10}) - ($1 - $4 - $5) ))
    rss_line="VmRSS $(($1 / 1024)) -> $(($6 / 1024)) MiB, delta $(($6 - $1)) KiB:"
    rss_line="$rss_line anon $(($7 - $2)), file $(($8 - $3)), guest RAM $(($9 - $4)),"
    rss_line="$rss_line TCG code $((${10} - $5)); QEMU's own $rss_own_d KiB,"
    rss_line="$rss_line tolerance $rss_tol_kb KiB, file $rss_file_tol_kb KiB"
    if [ "$rss_own_d" -le "$rss_tol_kb" ] && [ $(($8 - $3)) -le "$rss_file_tol_kb" ]; then
        pass=$((pass + 1)); echo "PASS vm/isp/qemu-rss ($rss_line)"
    else
        fail=$((fail + 1)); echo "FAIL vm/isp/qemu-rss ($rss_line)"
    fi
}
rss_pid=""
case " $on_tests " in
*" test_vm_mixed_load "*)
    rss_watch "$results/vm.isp.console.log.raw" "$results/vm.isp.rss" &
    rss_pid=$! ;;
esac

isp_dev="isp=on,isp-backing=$tmp/flash.img"
# shellcheck disable=SC2086
VM_EXTRA="-trace pci_nvme_err_isp_* -trace pci_nvme_err_invalid_opc" \
    boot isp "$isp_dev" $on_tests
# mixed load: the RSS figures the watcher took (see rss_watch above).
if [ -n "$rss_pid" ]; then
    kill "$rss_pid" 2>/dev/null || true
    wait "$rss_pid" 2>/dev/null || true
    rss_v=$(awk '$1 == "before" { b = $2 " " $3 " " $4 " " $5 " " $6 }
                 $1 == "after" { a = $2 " " $3 " " $4 " " $5 " " $6 }
                 END { print b, a }' "$results/vm.isp.rss")
    # shellcheck disable=SC2086
    rss_check $rss_v
fi
case " $on_tests " in
*" test_vm_badinput "*)
    # Invalid Opcode, Invalid Field (both with DNR), ISP Miscompare; the
    # unused vendor opcodes were refused by the effects table.
    trace_check isp 0x4001 0x4002 0x47c7
    opc_check isp opcode-check ;;
esac
if [ -e "$tmp/flash.img" ]; then
    # shellcheck disable=SC2086
    boot restart "$isp_dev" $restart_tests
else
    skip=$((skip + 1)); echo "SKIP vm/restart: the first boot created no backing file"
fi
# shellcheck disable=SC2086
VM_EXTRA="-trace pci_nvme_err_invalid_opc" boot isp-off "isp=off" $off_tests

# The standard interface (docs/command-set.md §9): *_cs tests boot with the
# memory and compute namespaces (isp-cs=on; off by default). 1 GiB: at the
# default 512 MiB the kernel stopped unpacking the image ("Initramfs
# unpacking failed: write error", 2026-12-02, 10.0 / 6.12) before nvme-cli's
# loader, and these tests run nvme-cli.
# The demos on the standard path (test_demo_*_vm_cs): the RAG demo's bundle
# at byte 0 of this boot's own namespace image when the corpus is cached
# (scripts/rag-bundle.sh, a few seconds once the corpus is there; without it
# test_demo_rag_vm_cs skips).
cs_ns=$tmp/ns.img
case " ${cs_tests:-} " in
*" test_demo_rag_vm_cs "*)
    if [ -f "${ISP_CACHE:-/var/cache/isp-ssd}/corpus/wordnet-subset/manifest.json" ] &&
        command -v node >/dev/null 2>&1; then
        if "$ROOT/scripts/rag-bundle.sh" "$tmp/ns-cs.img" >"$results/vm.cs.bundle.log" 2>&1; then
            cs_ns=$tmp/ns-cs.img
        else
            echo "vm: the RAG bundle could not be written (test_demo_rag_vm_cs skips):"
            tail -n 5 "$results/vm.cs.bundle.log" | sed 's/^/    /'
        fi
    else
        echo "vm: no corpus cached (scripts/corpus.sh): test_demo_rag_vm_cs skips"
    fi ;;
esac
mem_saved=${ISP_VM_MEM:-}
ISP_VM_MEM=${ISP_VM_MEM_CS:-1024}
VM_NS=$cs_ns
# shellcheck disable=SC2086
boot cs "isp=on,isp-cs=on" ${cs_tests:-}
unset VM_NS
ISP_VM_MEM=$mem_saved
if [ -n "$off_tests" ]; then
    # Stock QEMU's path: vendor opcodes are not in the effects table.
    opc_check isp-off trace-events
fi
# shellcheck disable=SC2086
boot delay "isp=on,isp-timing=delay,isp-params=ctrl_cmd=200ms" $delay_tests
# KILL_ROUNDS rounds per kill test, each on a fresh backing file.
kill_rounds=${KILL_ROUNDS:-2}
for t in $kill_tests; do
    r=1
    while [ "$r" -le "$kill_rounds" ]; do
        f=$tmp/flash-$t-r$r.img
        boot_kill "$t" "$f" "$r"
        if [ -e "$f" ]; then
            boot "after-kill-r$r" "isp=on,isp-backing=$f" "$t"
        else
            fail=$((fail + 1)); echo "FAIL vm/after-kill-r$r/$t: the kill boot created no backing file"
        fi
        rm -f "$f"
        r=$((r + 1))
    done
done

# Device groups: four ISP drives, each its own controller, namespace and
# backing file (scripts/vm-lib.sh vm_group_args, ISP_DRIVES=4).
if [ -n "$group_tests" ]; then
    mkdir -p "$tmp/group"
    # shellcheck disable=SC2086
    VM_EXTRA="$(vm_group_args 4 "$tmp/group")" \
        boot group "isp=on,isp-backing=$tmp/group/flash-0.img" $group_tests
fi

# --- fabric: the *_fabric tests across VMs over NVMe/TCP (docs/fabric.md) ---
# scripts/fabric-run.sh: two storage VMs with one ISP drive each, exported
# through nvmet passthru, and a compute VM with one local drive. The
# *_lost_fabric tests lose a storage VM: they run last.
if [ -n "${fabric_tests:-}" ]; then
    fabric_tests="$(for t in $fabric_tests; do case $t in *_lost_fabric) ;; *) echo "$t" ;; esac; done)
$(for t in $fabric_tests; do case $t in *_lost_fabric) echo "$t" ;; esac; done)"
    if zcat "$VM_INITRD" | cpio -it --quiet 2>/dev/null | grep -qx 'etc/isp-fabric-modules'; then
        # shellcheck disable=SC2086
        FABRIC_K=2 FABRIC_M=1 FABRIC_TIMEOUT=$test_timeout "$ROOT/scripts/fabric-run.sh" \
            "$results" $fabric_tests || true
        read -r fp ff fs <"$results/fabric.counts" || { fp=0 ff=1 fs=0; }
        pass=$((pass + fp)) fail=$((fail + ff)) skip=$((skip + fs))
    else
        for t in $fabric_tests; do
            skip=$((skip + 1))
            echo "SKIP vm/fabric/$t: kernel $GUEST_KERNEL has no NVMe target passthru" \
                "(CONFIG_NVME_TARGET_PASSTHRU is off in Debian's 6.1; stack 10.0 has it)"
        done
    fi
fi

finish
