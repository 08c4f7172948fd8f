#!/bin/sh
# doc-commands.sh lint|run MODE RESULTS_DIR [FILE.md[:LINE]...] - every command of
# README.md and docs/*.md, as written (README.md, "Commands in these
# documents are tested"):
#
#   lint  every fenced block says what it is: ```sh blocks are commands,
#         ```text / ```c / ```console ... are not; a doc-test marker is well
#         formed; each sh block parses (sh -n); a block for a guest program
#         names one that exists; no $BUILD/$ISP_CACHE without a default; a
#         vm or long block makes what it runs from build/ (or a VM script)
#         first. Writes RESULTS_DIR/docs-lint.counts.
#   run MODE  runs the sh blocks of that MODE (host, vm or long) one by one,
#         each in a scratch directory of its own that links the checkout's
#         top-level entries (so build/, scripts/, make work and what a block
#         writes stays there), build/host-lib on PATH (reis, as after make
#         install), BUILD=that build/, with `sh -e` and the marker's timeout; a block passes
#         when it exits 0 and its output matches every expect=. Writes
#         RESULTS_DIR/docs-MODE.counts and RESULTS_DIR/docs/<block>.log.
#
# A marker is an HTML comment on the line before the fence:
#   <!-- doc-test: MODE [key="value"]... -->
# MODE: host (the default without a marker: no root, no VM), vm (root,
# QEMU or a booted VM, run on the host by make test), guest [PROGRAM] (runs
# inside the guest: by PROGRAM, tests/vm/guest/PROGRAM.c, else by
# test_vm_doc_cmds), long (minutes: make doc-test-long), skip (with
# reason="..."; not runnable as a test). Keys: expect="ERE" (grep -E on the
# output, repeatable), timeout=SECONDS (default 300; 5400 for long), env="K=V" (repeatable),
# input="TEXT" (\n for newlines) sent on stdin once the output matches
# input-after="ERE".
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cmd=${1:?usage: doc-commands.sh lint|run MODE RESULTS_DIR [FILE.md...]}
shift
mode=all
if [ "$cmd" = run ]; then
    mode=${1:?usage: doc-commands.sh run host|vm|long RESULTS_DIR [FILE.md...]}
    shift
fi
results=${1:?usage: doc-commands.sh lint|run MODE RESULTS_DIR [FILE.md...]}
shift
[ $# -gt 0 ] || set -- "$ROOT/README.md" "$ROOT"/docs/*.md
mkdir -p "$results/docs"
results=$(cd "$results" && pwd)	# BUILD= and the logs name it from inside a block
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0 skip=0

# FILE.md:LINE selects one block of FILE, the one whose fence or marker is
# on LINE (docs/reis.md:698); FILE alone, all of its blocks. $work/sel
# holds "FILE<TAB>LINE|all" lines; $work/files each file once.
: >"$work/sel"
: >"$work/files"
for a in "$@"; do
    case $a in
    *.md:[0-9]*) f=${a%:*} l=${a##*:} ;;
    *) f=$a l=all ;;
    esac
    printf '%s\t%s\n' "$f" "$l" >>"$work/sel"
    grep -qxF -- "$f" "$work/files" || printf '%s\n' "$f" >>"$work/files"
done
selected() { # FILE LINE: whether the arguments select that block
    grep -qxF -e "$1	all" -e "$1	$2" -e "$1	$(($2 - 1))" "$work/sel"
}

# Every fenced block of every file: $work/N.body, and one line of
# $work/index per block: "N FILE LINE LANG MARKER...".
n=0
while IFS= read -r f; do
    awk -v f="$f" -v work="$work" -v n0="$n" '
        BEGIN { n = n0 }
        /^```/ {
            if (!inb) {
                inb = 1; n++; lang = substr($0, 4); sub(/[ \t].*/, "", lang)
                body = work "/" n ".body"; printf "" > body
                m = (prev ~ /^<!-- doc-test:/) ? prev : ""
                sub(/^<!-- doc-test: */, "", m); sub(/ *-->$/, "", m)
                printf "%d\t%s\t%d\t%s\t%s\n", n, f, NR, (lang == "" ? "-" : lang), m >> (work "/index")
            } else {
                inb = 0; close(body); prev = ""
            }
            next
        }
        inb { print >> body; next }
        { if ($0 != "") prev = $0 }
        END { print n > (work "/n") }' "$f"
    n=$(cat "$work/n")
done <"$work/files"
[ -f "$work/index" ] || : >"$work/index"

# meta N MARKER: the marker's fields as lines "key value" in $work/N.meta
meta() {
    printf '%s\n' "$2" | awk '{
        s = $0
        if (match(s, /^[a-z]+/)) { print "mode " substr(s, 1, RLENGTH); s = substr(s, RLENGTH + 1) }
        while (length(s)) {
            sub(/^ +/, "", s)
            if (s == "") break
            if (match(s, /^[a-z-]+="[^"]*"/)) {
                kv = substr(s, 1, RLENGTH); s = substr(s, RLENGTH + 1)
                k = kv; sub(/=.*/, "", k); v = kv; sub(/^[^=]*="/, "", v); sub(/"$/, "", v)
                print k " " v
            } else if (match(s, /^[a-z-]+=[^ "]+( |$)/)) {
                kv = substr(s, 1, RLENGTH); s = substr(s, RLENGTH + 1); sub(/ $/, "", kv)
                k = kv; sub(/=.*/, "", k); v = kv; sub(/^[^=]*=/, "", v)
                print k " " v
            } else if (match(s, /^[A-Za-z0-9_.-]+/)) {
                print "word " substr(s, 1, RLENGTH); s = substr(s, RLENGTH + 1)
            } else {
                print "bad " s; s = ""
            }
        }
    }' >"$work/$1.meta"
}
get() { sed -n "s/^$2 //p" "$work/$1.meta"; }

ok() { pass=$((pass + 1)); echo "PASS docs/$1"; }
bad() { fail=$((fail + 1)); echo "FAIL docs/$1: $2"; }

lint_block() { # N FILE LINE LANG MARKER
    id="$(basename "$2"):$3"
    case $4 in
    -) bad "$id" "a fenced block without a language: \`\`\`sh for commands, \`\`\`text for output and synopses, \`\`\`c for code"; return ;;
    sh) ;;
    *)
        [ -z "$5" ] || { bad "$id" "a doc-test marker on a \`\`\`$4 block (only sh blocks run)"; return; }
        return ;;
    esac
    meta "$1" "${5:-host}"
    m=$(get "$1" mode)
    if grep -q '^bad ' "$work/$1.meta"; then
        bad "$id" "malformed marker: $5"; return
    fi
    case $m in
    host | vm | long) ;;
    guest)
        prog=$(get "$1" word | head -n 1)
        if [ -n "$prog" ] && [ ! -f "$ROOT/tests/vm/guest/$prog.c" ]; then
            bad "$id" "guest program $prog: no tests/vm/guest/$prog.c"; return
        fi ;;
    skip)
        [ -n "$(get "$1" reason)" ] || { bad "$id" "skip needs reason=\"...\""; return; } ;;
    *) bad "$id" "unknown mode '$m' (host, vm, guest, long, skip)"; return ;;
    esac
    sh -n "$work/$1.body" 2>"$work/err" || { bad "$id" "does not parse: $(cat "$work/err")"; return; }
    # Runnable as written from a user's shell and a fresh clone: no
    # variable only make or a marker's env= sets ($BUILD, $ISP_CACHE) without
    # a default, and (vm, long) no build product or VM script used before a
    # make line of the block builds it.
    if [ "$m" != skip ]; then
        v=$(grep -o '\$[{]*\(BUILD\|ISP_CACHE\)[}/ ]' "$work/$1.body" | head -n 1 | tr -d '${}/ ')
        [ -z "$v" ] || { bad "$id" "uses \$$v, which a user's shell does not set: write \${$v:-default} or a path"; return; }
    fi
    if [ "$m" = vm ] || [ "$m" = long ]; then
        u=$(awk '/(^|[;&|( ])make( |$)/ { made = 1 }
            /^[ \t]*([A-Z_]+=[^ ]* )*(build\/(examples|tests|qemu-[0-9.]+|guest)\/|scripts\/(vm-bench[a-z-]*|run-qemu)\.sh)/ {
                if (!made) { print; exit } }' "$work/$1.body")
        [ -z "$u" ] || { bad "$id" "'$u' needs a build a fresh clone lacks: build it first in the block (make ...)"; return; }
    fi
    ok "$id"
}

# link_tree DIR: a scratch directory that looks like the checkout; its
# build/ links the checkout's build products but has results/ of its own,
# so a block that runs a suite does not overwrite the suites' results.
link_tree() {
    rm -rf "$1"
    mkdir -p "$1/build/results"
    for e in "$ROOT"/* "$ROOT"/.git; do
        [ -e "$e" ] && [ "$e" != "$ROOT/build" ] && ln -s "$e" "$1/$(basename "$e")"
    done
    for e in "$ROOT"/build/*; do
        [ -e "$e" ] && [ "$e" != "$ROOT/build/results" ] && ln -s "$e" "$1/build/$(basename "$e")"
    done
}

run_block() { # N FILE LINE LANG MARKER
    id="$(basename "$2" .md)-$3"
    [ "$4" = sh ] || return 0
    meta "$1" "${5:-host}"
    m=$(get "$1" mode)
    [ "$m" = skip ] && [ "$mode" = host ] && {
        skip=$((skip + 1)); echo "SKIP docs/$id: $(get "$1" reason)"; return; }
    [ "$m" = "$mode" ] || return 0
    t=$(get "$1" timeout)
    # A long block (make bench, make fidelity, make sanitize: tens of
    # minutes on 2 cores) gets 90 minutes unless its marker says otherwise.
    [ -n "$t" ] || { [ "$m" = long ] && t=5400 || t=300; }
    dir=$results/docs/$id
    link_tree "$dir"
    cp "$work/$1.body" "$dir/.block.sh"
    log=$results/docs/$id.log
    envs=$(get "$1" env | tr '\n' ' ')
    start=$(date +%s)
    SCRATCH=$dir	# env="K=\$SCRATCH/..." may name it
    in=$(get "$1" input)
    if [ -n "$in" ]; then
        mkfifo "$dir/.stdin"
        (cd "$dir" && eval "exec env PATH=\"$ROOT/build/host-lib:\$PATH\" SCRATCH=\"$dir\" BUILD=\"$dir/build\" $envs \
            timeout -k 10 ${t:-300} sh -e .block.sh") <"$dir/.stdin" >"$log" 2>&1 &
        pid=$!
        exec 7>"$dir/.stdin"
        after=$(get "$1" input-after)
        i=0
        while kill -0 "$pid" 2>/dev/null && ! grep -Eq -- "${after:-.}" "$log" &&
            [ $i -lt $((${t:-300} * 2)) ]; do
            sleep 0.5; i=$((i + 1))
        done
        printf '%b\n' "$in" >&7
        wait "$pid"
        rc=$?
        exec 7>&-
    else
        (cd "$dir" && eval "exec env PATH=\"$ROOT/build/host-lib:\$PATH\" SCRATCH=\"$dir\" BUILD=\"$dir/build\" $envs \
            timeout -k 10 ${t:-300} sh -e .block.sh") </dev/null >"$log" 2>&1
        rc=$?
    fi
    secs=$(($(date +%s) - start))
    if [ "$rc" != 0 ]; then
        bad "$id" "exit $rc after ${secs} s ($(basename "$2") line $3; log $log)"
        tail -n 15 "$log" | sed 's/^/    /'
        return
    fi
    get "$1" expect >"$work/$1.expect"
    while IFS= read -r re; do
        grep -Eq -- "$re" "$log" || {
            bad "$id" "output lacks /$re/ ($(basename "$2") line $3; log $log)"
            tail -n 15 "$log" | sed 's/^/    /'
            return
        }
    done <"$work/$1.expect"
    ok "$id (${secs} s)"
}

while IFS="$(printf '\t')" read -r i f l lang mk; do
    selected "$f" "$l" || continue
    if [ "$cmd" = lint ]; then
        lint_block "$i" "$f" "$l" "$lang" "$mk"
    else
        run_block "$i" "$f" "$l" "$lang" "$mk"
    fi
done <"$work/index"

name=docs-$([ "$cmd" = lint ] && echo lint || echo "$mode")
echo "$pass $fail $skip" >"$results/$name.counts"
echo "$name: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
