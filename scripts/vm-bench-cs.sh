#!/bin/sh
# vm-bench-cs.sh [CALLS] - the standard path's cost over the vendor path
# (docs/libreis.md, "The standard path"): boots the guest with the memory
# and compute namespaces (isp=on,isp-cs=on) and runs
# tests/vm/guest/bench_vm_cs.c: brute-force search, IVF search, SLS and a
# document read, CALLS (default 200) of each at QD 1 on each path, the
# guest round trip beside the commands the drive counted and their modeled
# time. Needs `make qemu guest`; STACK=10.0|7.2 as for the tests. Prints
# the table with the host's load and keeps it in $BUILD/results/vm-bench-cs.txt.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/vm-lib.sh"

# nvme-cli's loader needs room to unpack (tests/vm/run-vm-tests.sh, cs boot)
ISP_VM_MEM=${ISP_VM_MEM:-1024}
vm_bench vm-bench-cs "isp=on,isp-cs=on" bench_vm_cs "${1:-200}"
