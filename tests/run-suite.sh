#!/bin/sh
# run-suite.sh SUITE RESULTS_DIR PROG... - run test programs, one per
# feature, exit 0 pass / 77 skip / anything else fail; a program that runs
# longer than TEST_TIMEOUT seconds (default 120) fails. Prints one line per
# program and writes SUITE.counts ("passed failed skipped") for summary.sh.
set -u
suite=$1 results=$2
shift 2
mkdir -p "$results"
pass=0 fail=0 skip=0
for prog in "$@"; do
    name=$(basename "$prog")
    log="$results/$suite.$name.log"
    timeout "${TEST_TIMEOUT:-120}" "$prog" >"$log" 2>&1
    rc=$?
    case $rc in
    0) pass=$((pass + 1)); echo "PASS $suite/$name" ;;
    77) skip=$((skip + 1)); echo "SKIP $suite/$name: $(tail -n 1 "$log")" ;;
    *) fail=$((fail + 1)); echo "FAIL $suite/$name (exit $rc)"; tail -n 20 "$log" | sed 's/^/    /' ;;
    esac
done
echo "$pass $fail $skip" >"$results/$suite.counts"
echo "$suite: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
