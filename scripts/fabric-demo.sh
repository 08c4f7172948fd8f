#!/bin/sh
# fabric-demo.sh - `make demo-fabric`: the RAG demo sharded across ISP
# drives in other VMs over NVMe/TCP (docs/fabric.md). The main demo's
# bundle (scripts/rag-bundle.sh) goes on the compute VM's namespace; the
# compute VM opens libreis' device group over its local drive and FABRIC_K
# storage VMs' drives (default 2, one drive each), deploys the bundle across
# it and answers the demo queries from all of them at once, checked
# identical to one drive (tests/vm/guest/demo_rag_fabric.c). Logs stay in
# $BUILD/demo-fabric/.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
dir=$BUILD/demo-fabric
mkdir -p "$dir"
"$ROOT/scripts/rag-bundle.sh" "$dir/ns.img"
rc=0
FABRIC_K=${FABRIC_K:-2} FABRIC_COMPUTE_NS=$dir/ns.img FABRIC_TIMEOUT=${DEMO_TIMEOUT:-600} \
    "$ROOT/scripts/fabric-run.sh" "$dir" demo_rag_fabric || rc=$?
cat "$dir/fabric.compute.demo_rag_fabric.log" 2>/dev/null || true
echo "demo-fabric: console logs in $dir/fabric.*.console.log"
exit "$rc"
