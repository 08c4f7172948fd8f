#!/bin/sh
# summary.sh RESULTS_DIR - add up every suite's counts. A suite that left no
# counts file (it failed to build or crashed) counts as one failure. The last
# line is "N passed, N failed, N skipped"; exit 1 on any failure.
set -u
results=$1
pass=0 fail=0 skip=0
for suite in unit lib vm qtest; do
    f="$results/$suite.counts"
    if [ -f "$f" ]; then
        read -r p fl s <"$f"
        pass=$((pass + p)); fail=$((fail + fl)); skip=$((skip + s))
    else
        echo "FAIL $suite: produced no results (build or runner failure)"
        fail=$((fail + 1))
    fi
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
