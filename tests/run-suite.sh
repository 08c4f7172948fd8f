#!/bin/sh
# run-suite.sh SUITE RESULTS_DIR PROG... - run test programs, one per
# feature, exit 0 pass / 77 skip / anything else fail; a program that runs
# longer than TEST_TIMEOUT seconds (default 120) fails. TEST_JOBS programs
# (default: the CPU count) run at once; results print in the given order,
# one line per program, and SUITE.counts ("passed failed skipped") is
# written for summary.sh.
set -u
suite=$1 results=$2
shift 2
mkdir -p "$results"
jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
pass=0 fail=0 skip=0

# One program: its output in SUITE.NAME.log, its exit status in .rc.
for prog in "$@"; do
    rm -f "$results/$suite.$(basename "$prog").rc"
done
# shellcheck disable=SC2016
printf '%s\n' "$@" | xargs -P "$jobs" -I '{}' sh -c '
    name=$(basename "$1")
    timeout "$3" "$1" >"$2.$name.log" 2>&1
    echo $? >"$2.$name.rc"' sh '{}' "$results/$suite" "${TEST_TIMEOUT:-120}"

for prog in "$@"; do
    name=$(basename "$prog")
    log="$results/$suite.$name.log"
    rc=$(cat "$results/$suite.$name.rc" 2>/dev/null || echo missing)
    case $rc in
    0) pass=$((pass + 1)); echo "PASS $suite/$name" ;;
    77) skip=$((skip + 1)); echo "SKIP $suite/$name: $(tail -n 1 "$log")" ;;
    *) fail=$((fail + 1)); echo "FAIL $suite/$name (exit $rc)"; tail -n 20 "$log" | sed 's/^/    /' ;;
    esac
done
echo "$pass $fail $skip" >"$results/$suite.counts"
echo "$suite: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
