#!/bin/sh
# qemu-fuzz.sh - fuzz the QEMU glue (qemu-patches/hw/nvme/isp.c, isp-cs.c)
# through QEMU's own fuzzing framework: the patched QEMU 10.0 built by clang
# with --enable-fuzzing --enable-asan (scripts/qemu-build.sh
# QEMU_FLAVOR=fuzz, its own cache key), target qemu-fuzz-x86_64, QEMU's
# generic-fuzz target driving the nvme device with isp=on and isp-cs=on,
# configured by environment as OSS-Fuzz configures generic-fuzz for a
# device (tests/fuzz/README.md, "The glue").
#
#   qemu-fuzz.sh env          the generic-fuzz configuration, as shell
#   qemu-fuzz.sh seeds DIR    the seed corpus (scripts/qemu-fuzz-seeds.py)
#   qemu-fuzz.sh build        build (or reuse) the fuzzer
#   qemu-fuzz.sh run          build, then fuzz for QEMU_FUZZ_TIME seconds
#                             (default 60) or QEMU_FUZZ_RUNS executions,
#                             corpus kept in $BUILD/qemu-fuzz/corpus; exit 1
#                             on a crash (reproducer in
#                             $BUILD/qemu-fuzz/crashes/), prints executions,
#                             rate and coverage
#   qemu-fuzz.sh replay [DIR] run each input of DIR (default: the seeds)
#                             once; exit 1 unless they reach the glue's
#                             entry points (QEMU_FUZZ_NEED, below)
#   qemu-fuzz.sh coverage [DIR]  edges of isp.c and isp-cs.c covered by DIR
#                             (default the kept corpus), from libFuzzer's
#                             -print_coverage
#
# The fuzzer runs under nice -n 10 (QEMU_FUZZ_NICE), one process. ASan
# finds memory errors in QEMU and the glue; leak detection is off (QEMU
# keeps allocations to exit on purpose; OSS-Fuzz suppresses the same).
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
OUT=$BUILD/qemu-fuzz-10.0
FUZZER=${QEMU_FUZZER:-$OUT/qemu-fuzz-x86_64}
WORK=${QEMU_FUZZ_DIR:-$BUILD/qemu-fuzz}
QEMU_FUZZ_TIME=${QEMU_FUZZ_TIME:-60}
QEMU_FUZZ_RUNS=${QEMU_FUZZ_RUNS:-}
QEMU_FUZZ_NICE=${QEMU_FUZZ_NICE:-10}
# Glue functions every replay of the seeds must cover: the entry points
# and what the main loop runs for them before the input ends. (Whether a
# worker finishes a command before the input's reset drains it depends on
# the machine's load, so the workers and the completion path are not
# named.)
QEMU_FUZZ_NEED=${QEMU_FUZZ_NEED:-"nvme_isp_io_cmd nvme_isp_submit
    nvme_isp_enqueue nvme_isp_get_log nvme_isp_copy_bh nvme_isp_drain
    nvme_isp_cs_admin_cmd nvme_isp_cs_io_cmd"}

log() { echo "qemu-fuzz: $*"; }
die() { echo "qemu-fuzz: error: $*" >&2; exit 1; }

# The device as the glue's tests configure a small drive (tests/qtest:
# isp/rss-bound): host_mem 192 MiB keeps the process far under libFuzzer's
# 2 GiB RSS limit whatever the inputs create. The namespace is null-co
# (reads zeroes, writes vanish): no file grows across millions of inputs.
fuzz_env() {
    QEMU_FUZZ_ARGS="-machine pc -nodefaults -L /usr/share/seabios -L /usr/share/qemu"
    QEMU_FUZZ_ARGS="$QEMU_FUZZ_ARGS -drive driver=null-co,read-zeroes=on,size=16M,if=none,id=d0"
    # fuzz.c splits the line with wordexp(3), which refuses a bare ';':
    # the quotes are for it, literal here
    # shellcheck disable=SC2089
    QEMU_FUZZ_ARGS="$QEMU_FUZZ_ARGS -device 'nvme,serial=fuzz,addr=04.0,drive=d0,isp=on,isp-cs=on,isp-preset=recflash-tlc,isp-params=host_mem=192m;;dram_bytes=24m;;blocks_per_plane=64;;slc_blocks=48'"
    QEMU_FUZZ_OBJECTS="nvme"
    # shellcheck disable=SC2090
    export QEMU_FUZZ_ARGS QEMU_FUZZ_OBJECTS
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:symbolize=1}
    export ASAN_OPTIONS
}

seeds() {
    python3 "$ROOT/scripts/qemu-fuzz-seeds.py" write "$1"
}

build() {
    QEMU_FLAVOR=fuzz QEMU_VERSION=10.0 nice -n "$QEMU_FUZZ_NICE" \
        "$ROOT/scripts/qemu-build.sh"
    [ -x "$FUZZER" ] || die "no $FUZZER after the build"
}

need_fuzzer() {
    [ -x "$FUZZER" ] || die "no $FUZZER (scripts/qemu-fuzz.sh build)"
}

# fuzz LOG ARGS...: the fuzzer under nice, its output in LOG
fuzz() {
    _log=$1
    shift
    fuzz_env
    # an input that runs a minute is a hang (the reset's drain waits for
    # the workers; every command stops within a block of work)
    PATH=/usr/lib/llvm-14/bin:$PATH nice -n "$QEMU_FUZZ_NICE" "$FUZZER" \
        --fuzz-target=generic-fuzz -detect_leaks=0 -timeout=60 "$@" \
        >"$_log" 2>&1
}

# covered LOG FILE: "covered total" edges of functions defined in FILE
covered() {
    awk -v f="/hw/nvme/$2:" '
        /^(UN)?COVERED_FUNC:/ && index($0, f) {
            split($5, e, "/"); c += e[1]; t += e[2]
        }
        END { printf "%d %d\n", c, t }' "$1"
}

coverage() {
    dir=$1
    need_fuzzer
    mkdir -p "$WORK"
    fuzz "$WORK/coverage.log" -runs=0 -print_coverage=1 "$dir" || {
        tail -n 30 "$WORK/coverage.log" >&2
        die "the replay of $dir failed (log: $WORK/coverage.log)"
    }
    for f in isp.c isp-cs.c; do
        # two numbers: covered and total
        # shellcheck disable=SC2046
        set -- $(covered "$WORK/coverage.log" $f)
        if [ "$2" -gt 0 ]; then
            log "coverage $f: $1 of its $2 edges ($(( $1 * 100 / $2 )) %)"
        else
            log "coverage $f: no edge reached"
        fi
    done
    log "functions of isp.c/isp-cs.c reached: $(grep -c '^COVERED_FUNC:.*/hw/nvme/isp\(-cs\)\?\.c:' "$WORK/coverage.log" || true), not reached: $(grep -c '^UNCOVERED_FUNC:.*/hw/nvme/isp\(-cs\)\?\.c:' "$WORK/coverage.log" || true)"
}

replay() {
    dir=${1:-}
    need_fuzzer
    if [ -z "$dir" ]; then
        dir=$WORK/seeds
        rm -rf "$dir"
        seeds "$dir"
    fi
    coverage "$dir"
    miss=""
    for fn in $QEMU_FUZZ_NEED; do
        # a thread started before the replay counts no entry (the ISP
        # workers loop for good): any edge of the function counts
        grep -Eq "^(UN)?COVERED_FUNC: hits: [0-9]+ edges: [1-9][0-9]*/[0-9]+ $fn /" \
            "$WORK/coverage.log" || miss="$miss $fn"
    done
    [ -z "$miss" ] || die "the inputs of $dir never reach:$miss (log: $WORK/coverage.log)"
    log "replay: $(ls "$dir" | wc -l) inputs reach every glue entry point named"
}

run() {
    build
    mkdir -p "$WORK/corpus" "$WORK/crashes"
    seeds "$WORK/corpus"
    if [ -n "$QEMU_FUZZ_RUNS" ]; then
        limit="-runs=$QEMU_FUZZ_RUNS"
    else
        limit="-max_total_time=$QEMU_FUZZ_TIME"
    fi
    # libFuzzer also writes slow-unit-* there (inputs over 10 s): not
    # failures; crash-, leak-, timeout- and oom- ones are
    before=$(find "$WORK/crashes" -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' | wc -l)
    log "fuzzing ($limit, nice $QEMU_FUZZ_NICE, log $WORK/run.log); load: $(cut -d' ' -f1-3 /proc/loadavg)"
    start=$(date +%s)
    rc=0
    fuzz "$WORK/run.log" "$limit" -print_final_stats=1 \
        -artifact_prefix="$WORK/crashes/" "$WORK/corpus" || rc=$?
    secs=$(( $(date +%s) - start ))
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$WORK/run.log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$WORK/run.log" | tail -n 1)
    after=$(find "$WORK/crashes" -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' | wc -l)
    log "$secs s: ${execs:-?} executions, ${rate:-?} exec/s, corpus $(ls "$WORK/corpus" | wc -l) inputs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
    if [ "$rc" != 0 ] || [ "$after" != "$before" ]; then
        grep -A 30 -m 1 'ERROR: \|==ERROR\|deadly signal' "$WORK/run.log" >&2 || tail -n 30 "$WORK/run.log" >&2
        die "crash (exit $rc; reproducers in $WORK/crashes/; log $WORK/run.log)"
    fi
    coverage "$WORK/corpus"
}

cmd=${1:-run}
[ $# -gt 0 ] && shift
case $cmd in
env)
    fuzz_env
    printf "QEMU_FUZZ_ARGS='%s'\nQEMU_FUZZ_OBJECTS='%s'\n" \
        "$QEMU_FUZZ_ARGS" "$QEMU_FUZZ_OBJECTS"
    ;;
seeds) seeds "${1:?usage: qemu-fuzz.sh seeds DIR}" ;;
build) build ;;
run) run ;;
replay) replay "${1:-}" ;;
coverage) coverage "${1:-$WORK/corpus}" ;;
*) die "unknown command '$cmd' (env, seeds, build, run, replay, coverage)" ;;
esac
