#!/bin/sh
# summary.sh RESULTS_DIR [STACK...] - add up every suite's counts: unit,
# lib and lib-cp from RESULTS_DIR, vm and qtest from RESULTS_DIR/<stack>/ for each
# STACK (default: 10.0 7.2; make test passes the stacks it ran). A suite
# that left no counts file (it failed to build or crashed) counts as one
# failure. One line per stack, then the total: "N passed, N failed, N
# skipped"; exit 1 on any failure.
set -u
results=$1
shift
[ $# -gt 0 ] || set -- 10.0 7.2
pass=0 fail=0 skip=0
# add NAME FILE: count one suite's "passed failed skipped"
add() {
    if [ -f "$2" ]; then
        read -r p fl s <"$2"
        pass=$((pass + p)); fail=$((fail + fl)); skip=$((skip + s))
    else
        echo "FAIL $1: produced no results (build or runner failure)"
        fail=$((fail + 1))
    fi
}
add unit "$results/unit.counts"
add lib "$results/lib.counts"
# the library suite over the standard interface (ISP_PATH=cp)
add lib-cp "$results/lib-cp.counts"
# the fuzz harnesses (tests/fuzz), a short fixed run each
add fuzz "$results/fuzz.counts"
# the build scripts' tests (tests/scripts)
add scripts "$results/scripts.counts"
# the documents' commands (tests/doc-commands.sh): every block linted, the
# host and VM ones run (make test)
add docs-lint "$results/docs-lint.counts"
add docs-host "$results/docs-host.counts"
add docs-vm "$results/docs-vm.counts"
# the Python module's tests (tests/python)
add python "$results/python.counts"
for stack in "$@"; do
    p0=$pass f0=$fail s0=$skip
    add "vm ($stack)" "$results/$stack/vm.counts"
    add "debian ($stack)" "$results/$stack/debian.counts"
    add "qtest ($stack)" "$results/$stack/qtest.counts"
    echo "stack $stack (vm + qtest): $((pass - p0)) passed, $((fail - f0)) failed, $((skip - s0)) skipped"
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
