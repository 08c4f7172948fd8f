#!/bin/sh
# vm-bench-ftl.sh [COMMANDS] - the guest against the model, isp-timing=delay
# (docs/ftl.md, "Guest against model"): tests/vm/guest/bench_vm_ftl.c runs
# ISP_NOOP (the emulation floor), raw 4 KiB / 128 KiB reads and writes,
# REIS searches and RecFlash SLS at QD 1 and 16, and fio (block io_uring
# and io_uring_cmd, 4 KiB random reads, QD 1 and 16); each command's
# round trip in the guest beside the modeled time in its completion.
# Needs `make qemu guest`; STACK=10.0|7.2 as for the tests. Prints the
# table with the host's load and keeps it in $BUILD/results/vm-bench-ftl.txt.
# Re-run on a quiet machine: the guest's times are wall time under TCG.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/vm-lib.sh"

vm_bench vm-bench-ftl "isp=on,isp-timing=delay${ISP_PARAMS:+,isp-params=$ISP_PARAMS}" \
    bench_vm_ftl "${1:-400}"
