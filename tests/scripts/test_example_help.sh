#!/bin/sh
# test_example_help.sh - every program a user runs answers --help with its
# usage on stdout and exit 0, and an option it does not take with exit 2
# and a message naming it (hello_reis opened "--help" as a device; benches
# ran their whole workload or exited 1):
#   1. each built program of examples/ ($BUILD/examples/*) and of host-lib
#      (reis, bench_lib_noop), and the Python programs of examples/ and
#      python/ with Debian's python3;
#   2. `reis COMMAND --help` for every command its --help lists, and
#      `reis -i COMMAND --no-such-option`; the same for `reis group`'s
#      subcommands, `group deploy` included (it took the option as its
#      image file and exited 1);
#   3. hello_reis without a drive names --inproc.
# Nothing reaches a drive: --help answers before any work, and an unknown
# option is refused before (or instead of) one. Root-free, a few seconds.
# Exit 0 pass, 1 fail, 77 skip.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
B=${BUILD:-$TOP/build}
[ -x "$B/host-lib/reis" ] && [ -x "$B/host-lib/bench_lib_noop" ] && [ -d "$B/examples" ] ||
    { echo "SKIP: $B/host-lib/reis, bench_lib_noop or $B/examples not built (make hostlib examples)"; exit 77; }
# make sanitize builds three of the examples into its own BUILD: a partial
# set is not the user's build (make examples builds them all)
nbuilt=0
for p in "$B"/examples/*; do
    [ -f "$p" ] && [ -x "$p" ] && nbuilt=$((nbuilt + 1))
done
[ "$nbuilt" -ge 10 ] ||
    { echo "SKIP: only $nbuilt programs in $B/examples (make examples builds them all)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 n=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
BAD=--no-such-option

# check NAME CMD...: CMD --help exits 0 with "usage" on stdout; CMD $BAD
# exits 2 naming the option or printing the usage on stderr
check() {
    name=$1
    shift
    n=$((n + 1))
    timeout 60 "$@" --help >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" = 0 ] || fail "$name --help: exit $rc: $(head -c 300 "$tmp/err")"
    grep -qi "usage" "$tmp/out" || fail "$name --help: no usage on stdout: $(head -c 300 "$tmp/out")"
    timeout 60 "$@" $BAD >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" = 2 ] || fail "$name $BAD: exit $rc (want 2): $(head -c 300 "$tmp/err")"
    grep -q -- "$BAD" "$tmp/err" || grep -qi "usage" "$tmp/err" ||
        fail "$name $BAD: neither the option nor the usage on stderr: $(head -c 300 "$tmp/err")"
}

for p in "$B"/examples/*; do
    [ -f "$p" ] && [ -x "$p" ] || continue
    check "examples/$(basename "$p")" "$p"
done
for p in reis bench_lib_noop; do
    check "host-lib/$p" "$B/host-lib/$p"
done

# the default without a drive says what to do instead (it said only "no
# ISP drive found")
if [ -x "$B/examples/hello_reis" ]; then
    n=$((n + 1))
    env -u REIS_DEV timeout 60 "$B/examples/hello_reis" >"$tmp/out" 2>"$tmp/err" ||
        grep -q -- "--inproc" "$tmp/err" ||
        fail "hello_reis without a drive: $(head -c 300 "$tmp/err")"
fi

R=$B/host-lib/reis
cmds=$("$R" --help | awk '/^Commands:/ { f = 1; next } f && NF { print $1 }')
[ -n "$cmds" ] || fail "reis --help lists no commands"
for c in $cmds; do
    check "reis $c" "$R" -i "$c"
done
for c in list deploy search sls bench; do
    check "reis group $c" "$R" group --inproc-drives 2 "$c"
done

# Python programs, when Debian's python3 has numpy and the module is built
# (they print the usage before importing FAISS)
PY=/usr/bin/python3
if [ -x "$PY" ] && "$PY" -c 'import numpy' 2>/dev/null && [ -d "$B/python/reis" ]; then
    for p in "$TOP"/examples/bench/*.py "$TOP"/python/examples/*.py "$TOP"/python/bench/*.py; do
        [ -f "$p" ] || continue
        check "${p#"$TOP"/}" env PYTHONPATH="$B/python" "$PY" "$p"
    done
else
    echo "note: no numpy in $PY or $B/python not built (make python); Python programs not checked"
fi

[ "$fails" = 0 ] || { echo "$fails of $n programs' checks failed"; exit 1; }
echo "--help and an unknown option: $n programs and commands answer as they should"
