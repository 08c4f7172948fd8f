#!/bin/sh
# rag-bundle.sh NS_IMAGE [QUESTIONS.txt] - put the RAG demo's database
# bundle at the start of the namespace image the demo VM boots with
# (scripts/demo.sh), and the user's questions after it.
#
#   1. the corpus: scripts/corpus.sh (builds the 20000-passage subset once,
#      minutes; cached in $ISP_CACHE/corpus);
#   2. the bundle: $BUILD/examples/rag_demo bundle CORPUS OUT (IVF database
#      image with the glosses, the quantizer, a calibrated distance-filter
#      threshold and a few demo queries with their precomputed embeddings),
#      kept in $BUILD/demo/ and rebuilt only when the corpus or rag_demo
#      changed;
#   3. the namespace image: grown if needed, the bundle written at byte 0
#      (only when it differs). In the guest, rag_demo reads it back from
#      /dev/nvme0n1: normal block reads next to the drive's RAG mode;
#   4. with QUESTIONS.txt (one question a line, `make demo Q=...`): the
#      questions embedded on the host with the corpus' pinned model
#      (examples/corpus/embed.mjs, docs/corpus.md), made a section by
#      `rag_demo questions` and written at the first MiB boundary after the
#      bundle; the last line printed is "rag-bundle: questions at byte N",
#      the guest's `rag_demo --questions N`.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
ns=${1:?usage: rag-bundle.sh NS_IMAGE [QUESTIONS.txt]}
questions=${2:-}
tool=$BUILD/examples/rag_demo

log() { echo "rag-bundle: $*"; }
die() { echo "rag-bundle: error: $*" >&2; exit 1; }

[ -x "$tool" ] || die "$tool missing (make examples)"
corpus=$("$ROOT/scripts/corpus.sh" | tail -n 1)
[ -f "$corpus/manifest.json" ] || die "scripts/corpus.sh produced no corpus"

mkdir -p "$BUILD/demo"
bundle=$BUILD/demo/rag-$(basename "$corpus").img
if [ ! -f "$bundle" ] || [ "$tool" -nt "$bundle" ] || [ "$corpus/manifest.json" -nt "$bundle" ]; then
    log "building $bundle from $corpus"
    "$tool" bundle "$corpus" "$bundle.tmp"
    mv -f "$bundle.tmp" "$bundle"
fi

size=$(stat -c %s "$bundle")
# Room for the bundle plus the 64 MiB the other guest programs may use.
need=$((size + 64 * 1024 * 1024))
[ -f "$ns" ] || truncate -s 256M "$ns"
have=$(stat -c %s "$ns")
if [ "$have" -lt "$need" ]; then
    log "growing $ns to $need bytes"
    truncate -s "$need" "$ns"
fi
if cmp -s -n "$size" "$bundle" "$ns"; then
    log "$ns already holds $(basename "$bundle") ($size bytes)"
else
    log "writing $(basename "$bundle") ($size bytes) at the start of $ns"
    dd if="$bundle" of="$ns" bs=1M conv=notrunc status=none
fi

[ -n "$questions" ] || exit 0
# The questions: a chunk cache of their own in $BUILD/demo (the corpus'
# cache holds the corpus only); one process, a handful of lines.
cache=${ISP_CACHE:-/var/cache/isp-ssd}
[ -f "$cache/npm/package-lock.json" ] || die "no embedding model in $cache/npm (scripts/corpus.sh)"
qvec=$BUILD/demo/questions.fvecs
qblob=$BUILD/demo/questions.blob
log "embedding $(wc -l < "$questions") question(s) with the corpus' model"
node "$ROOT/examples/corpus/embed.mjs" --npm "$cache/npm" --chunks "$BUILD/demo/qchunks" \
    --jobs 1 "$questions:$qvec" >/dev/null || die "embedding the questions failed"
"$tool" questions "$questions" "$qvec" "$qblob"
mib=$((1024 * 1024))
qoff=$(( (size + mib - 1) / mib * mib ))
dd if="$qblob" of="$ns" bs=4096 seek=$((qoff / 4096)) conv=notrunc status=none
log "questions at byte $qoff"
