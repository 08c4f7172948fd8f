#!/bin/sh
# demo-python.sh - the RAG demo in Python (`make demo ISP_DEMO=python`):
# python/examples/rag_demo.py in the Debian guest, the drive and FAISS side
# by side on the demo's corpus (docs/debian-guest.md, "The Python RAG demo").
#
#   1. the corpus (scripts/corpus.sh; cached in $ISP_CACHE/corpus);
#   2. the shared folder $BUILD/demo/python: the corpus files the demo
#      reads (hard links, or copies on another file system) and, with
#      Q="question|question", the questions embedded on the host with the
#      corpus' pinned model (examples/corpus/embed.mjs, docs/corpus.md);
#   3. scripts/vm-run.sh: the Debian guest with the drive (its flash in
#      $BUILD/demo, beside the C demo's: what was deployed stays) runs
#      /usr/share/isp-ssd/examples/python/rag_demo.py on /mnt/host.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
ISP_CACHE=${ISP_CACHE:-/var/cache/isp-ssd}

die() { echo "demo-python: error: $*" >&2; exit 1; }

corpus=$("$ROOT/scripts/corpus.sh" | tail -n 1)
[ -f "$corpus/manifest.json" ] || die "scripts/corpus.sh produced no corpus"
share=$BUILD/demo/python
mkdir -p "$share"
for f in passages.fvecs passages.tsv docs.bin docs.idx queries.fvecs queries.txt \
    queries_gt.ivecs gt_top100.ivecs; do
    if ! cmp -s "$corpus/$f" "$share/$f"; then
        ln -f "$corpus/$f" "$share/$f" 2>/dev/null || cp -f "$corpus/$f" "$share/$f"
    fi
done
args="--corpus /mnt/host"
rm -f "$share/questions.txt" "$share/questions.fvecs"
if [ -n "${Q:-}" ]; then
    printf '%s\n' "$Q" | tr '|' '\n' | sed 's/^[[:space:]]*//; s/[[:space:]]*$//' |
        grep -v '^$' >"$share/questions.txt" || die "Q holds no question"
    [ -f "$ISP_CACHE/npm/package-lock.json" ] || die "no embedding model in $ISP_CACHE/npm (scripts/corpus.sh)"
    echo "demo-python: embedding $(wc -l <"$share/questions.txt") question(s) with the corpus' model"
    node "$ROOT/examples/corpus/embed.mjs" --npm "$ISP_CACHE/npm" --chunks "$BUILD/demo/qchunks" \
        --jobs 1 "$share/questions.txt:$share/questions.fvecs" >/dev/null ||
        die "embedding the questions failed"
    args="$args --questions /mnt/host/questions.txt --qvecs /mnt/host/questions.fvecs"
fi
echo "demo-python: booting the Debian guest (the console follows)"
# shellcheck disable=SC2086
cd "$share" && GUEST=debian ISP_SHARE="$share" ISP_DIR="$BUILD/demo" \
    RUN_TIMEOUT=${DEMO_TIMEOUT:-1800} "$ROOT/scripts/vm-run.sh" \
    python3 /usr/share/isp-ssd/examples/python/rag_demo.py $args
