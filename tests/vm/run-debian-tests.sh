#!/bin/sh
# run-debian-tests.sh RESULTS_DIR - the Debian guest's test
# (docs/debian-guest.md): boot it with the drive through scripts/vm-run.sh
# (the path `make run` takes) and a temp folder shared at /mnt/host, run
# tests/vm/debian/guest-test.sh there, and check what it did against the
# same programs run on the host with the in-process drive:
#   tools, module     in the guest alone (the drive, reis, nvme-cli,
#                     pkg-config libreis, man pages, import reis; a kernel
#                     module built against the running kernel, loaded)
#   hello, hello-cc   the C example built in the guest two ways: its hits
#                     equal build/examples/hello_reis --inproc's
#   python            the FAISS script switched to the drive by one line:
#                     its (D, I) equal the same script's on the host
#   rag               python/examples/rag_demo.py on the corpus: hits,
#                     scores, documents and the binary search's agreement
#                     with FAISS equal the host's run (needs the corpus,
#                     make test has it; skipped without)
#   share             a file the guest wrote is in the host folder
#   initramfs-share   the initramfs guest through the same path: it reads a
#                     file of the shared folder, writes one back, and its
#                     command's exit status comes back
# STACK=10.0|7.2 as for run-vm-tests.sh. Without the Debian guest (make
# guest GUEST=debian could not build it) every check is one SKIP saying
# why. Writes RESULTS_DIR/debian.counts ("passed failed skipped") and keeps
# the guest's output as RESULTS_DIR/debian.console.log.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
GUEST=debian
export GUEST
. "$ROOT/scripts/vm-lib.sh"

results=${1:?usage: run-debian-tests.sh RESULTS_DIR}
mkdir -p "$results"
rm -f "$results"/debian.*
pass=0 fail=0 skip=0
PY=${PYTHON:-/usr/bin/python3}
finish() {
    echo "$pass $fail $skip" >"$results/debian.counts"
    echo "debian: $pass passed, $fail failed, $skip skipped"
    [ "$fail" = 0 ]
}
ok() { pass=$((pass + 1)); echo "PASS vm/debian/$1"; }
bad() { fail=$((fail + 1)); echo "FAIL vm/debian/$1${2:+: $2}"; }

if ! why=$(vm_check); then
    case $why in
    *"Debian guest"* | *guest-debian*)
        skip=1
        reason=$(tail -n 1 "$BUILD/results/guest-debian.log" 2>/dev/null || true)
        echo "SKIP vm/debian: $why${reason:+ (the build said: $reason)}"
        finish
        exit 0
        ;;
    esac
    bad boot "$why"
    finish
    exit 1
fi

tmp=$(mktemp -d /tmp/isp-debtest.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
cp "$ROOT/tests/vm/debian/guest-test.sh" "$tmp/"
mkdir -p "$tmp/data" "$tmp/host" "$tmp/drive"
export PYTHONPATH="$BUILD/python${PYTHONPATH:+:$PYTHONPATH}"

# --- the host's side: the same programs, in-process ------------------------------
"$BUILD/examples/hello_reis" --inproc >"$tmp/host/hello.txt"
"$PY" - "$tmp" <<'PY'
import sys, numpy as np
tmp = sys.argv[1]
rng = np.random.default_rng(29)
x = rng.standard_normal((3000, 256)).astype(np.float32)
q = x[:20] + 0.4 * rng.standard_normal((20, 256)).astype(np.float32)
np.savez(tmp + "/data/faiss.npz", xb=np.packbits(x > 0, axis=1, bitorder="little"),
         xq=np.packbits(q > 0, axis=1, bitorder="little"))
PY
sed 's/^index = faiss.IndexBinaryFlat(d)$/index = reis.IndexBinaryFlat(d)/' \
    "$ROOT/python/examples/faiss_binary.py" >"$tmp/host/faiss_drive.py"
REIS_DEV=inproc "$PY" "$tmp/host/faiss_drive.py" "$tmp/data/faiss.npz" "$tmp/host/faiss.npz" \
    >"$tmp/host/faiss.log" 2>&1 || { cat "$tmp/host/faiss.log"; bad python "the host's run failed"; }
corpus=$(ISP_CACHE=$ISP_CACHE "$ROOT/scripts/corpus.sh" 2>/dev/null | tail -n 1 || true)
rag=0
if [ -n "$corpus" ] && [ -f "$corpus/passages.fvecs" ]; then
    mkdir -p "$tmp/corpus"
    for f in passages.fvecs passages.tsv docs.bin docs.idx queries.fvecs queries.txt \
        queries_gt.ivecs gt_top100.ivecs; do
        ln "$corpus/$f" "$tmp/corpus/$f" 2>/dev/null || cp "$corpus/$f" "$tmp/corpus/$f"
    done
    if "$PY" "$ROOT/python/examples/rag_demo.py" --corpus "$tmp/corpus" --dev inproc \
        --json "$tmp/host/rag.json" >"$tmp/host/rag.log" 2>&1; then
        rag=1
    else
        tail -n 20 "$tmp/host/rag.log"
        bad rag "the host's run failed"
    fi
fi

# --- the guest ------------------------------------------------------------------------
t0=$(date +%s)
rc=0
(cd "$tmp" && ISP_SHARE="$tmp" ISP_DIR="$tmp/drive" RUN_TIMEOUT=${DEBIAN_TEST_TIMEOUT:-2400} \
    "$ROOT/scripts/vm-run.sh" bash /mnt/host/guest-test.sh) >"$results/debian.console.log" 2>&1 ||
    rc=$?
echo "vm/debian: the guest ran for $(( $(date +%s) - t0 )) s (vm-run exit $rc)"
[ "$rc" = 0 ] || { tail -n 20 "$results/debian.console.log" | sed 's/^/    /'; }

# each guest step
steps="tools hello hello-cc module python"
[ "$rag" = 0 ] || steps="$steps rag"
for s in $steps share; do
    r=$(awk -v s="$s" '$1 == "@@T" && $2 == s { print $3 }' "$results/debian.console.log")
    case $r in
    0) ok "$s" ;;
    "") bad "$s" "did not run (vm-run exit $rc)" ;;
    *)
        bad "$s" "exit $r"
        awk -v s="$s" '$1 == "@@T-START" && $2 == s { on = 1; next }
            $1 == "@@T" && $2 == s { on = 0 } on' "$results/debian.console.log" |
            tail -n 20 | sed 's/^/    /'
        ;;
    esac
done
[ "$rag" = 1 ] || { skip=$((skip + 1)); echo "SKIP vm/debian/rag: no corpus (scripts/corpus.sh)"; }

# --- the guest's results against the host's ----------------------------------------------
hits() { grep -E '^(deployed|hit )' "$1" 2>/dev/null; }
for f in hello hello-cc; do
    if [ -s "$tmp/out/$f.txt" ] && [ "$(hits "$tmp/out/$f.txt")" = "$(hits "$tmp/host/hello.txt")" ] &&
        [ -n "$(hits "$tmp/host/hello.txt")" ]; then
        ok "$f-matches-host"
    else
        bad "$f-matches-host" "$(hits "$tmp/out/$f.txt" | head -n 2 | tr '\n' ' ')"
    fi
done
if "$PY" - "$tmp" "$rag" <<'PY'; then ok results-match-host; else bad results-match-host; fi
import json, sys, numpy as np
tmp, rag = sys.argv[1], sys.argv[2] == "1"
bad = 0
try:
    g, h = np.load(tmp + "/out/faiss.npz"), np.load(tmp + "/host/faiss.npz")
    if not (np.array_equal(g["D"], h["D"]) and np.array_equal(g["I"], h["I"])):
        print("    the FAISS script's (D, I) differ between the guest and the host")
        bad += 1
    else:
        print("    FAISS script on the drive: %d queries, guest == host" % len(g["I"]))
except OSError as e:
    print("    no FAISS results: %s" % e)
    bad += 1
if rag:
    try:
        g = json.load(open(tmp + "/out/rag.json"))
        h = json.load(open(tmp + "/host/rag.json"))
        for key in ("ids", "scores", "docs", "binary_ids", "binary_distances", "faiss_agrees"):
            if g[key] != h[key]:
                print("    rag_demo's %s differ between the guest and the host" % key)
                bad += 1
        if not g["faiss_agrees"]:
            print("    the drive's binary search and FAISS's disagree in the guest")
            bad += 1
        print("    rag_demo: %d questions, guest == host, recall@k %.3f"
              % (len(g["ids"]), g["recall_drive"]))
    except (OSError, KeyError, ValueError) as e:
        print("    no rag_demo results: %s" % e)
        bad += 1
sys.exit(1 if bad else 0)
PY
if [ "$(cat "$tmp/out/share.txt" 2>/dev/null)" = "written in the guest" ]; then
    ok share-host-sees
else
    bad share-host-sees "the guest's file is not in the host folder"
fi

# --- the shared folder in the initramfs guest, through the same vm-run path ---------
if [ -f "$BUILD/guest/$GUEST_KERNEL/initramfs.cpio.gz" ]; then
    echo "from the host" >"$tmp/marker"
    out=$(cd "$tmp" && GUEST=initramfs ISP_SHARE="$tmp" ISP_DIR="$tmp/drive" RUN_TIMEOUT=300 \
        "$ROOT/scripts/vm-run.sh" 'cat marker; reis info >/dev/null && echo back >back.txt; exit 7' \
        2>&1) && rc=0 || rc=$?
    if [ "$rc" = 7 ] && [ "$out" = "from the host" ] && [ "$(cat "$tmp/back.txt" 2>/dev/null)" = back ]; then
        ok initramfs-share
    else
        bad initramfs-share "exit $rc, output '$(echo "$out" | tail -n 3 | tr '\n' ' ')'"
    fi
else
    skip=$((skip + 1))
    echo "SKIP vm/debian/initramfs-share: no initramfs guest in $BUILD/guest/$GUEST_KERNEL (make guest)"
fi
finish
