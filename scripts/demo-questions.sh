#!/bin/sh
# demo-questions.sh OUT.txt - the user's questions of `make demo Q=...` as
# one question per line in OUT.txt, checked before anything is embedded:
# Q set but empty, more than 16 questions or one longer than 255 bytes is
# refused with the reason. '|' or newlines separate questions; spaces
# around each are dropped. Exit 0 with OUT.txt written, 3 when Q is unset
# (the built-in questions; OUT.txt removed), 1 on bad questions.
set -eu
out=${1:?usage: demo-questions.sh OUT.txt}
max_n=16	# RAG_MAX_USER in examples/rag_demo.c
max_len=255	# RAG_MAX_TEXT - 1
mkdir -p "$(dirname "$out")"
rm -f "$out"
if [ -z "${Q+set}" ]; then
    exit 3
fi
printf '%s\n' "$Q" | tr '|' '\n' | sed 's/^[[:space:]]*//; s/[[:space:]]*$//' |
    grep -v '^$' >"$out.tmp" || true
if [ ! -s "$out.tmp" ]; then
    rm -f "$out.tmp"
    echo "demo: Q holds no question (Q=\"question|question\"; leave Q out for the 8 built-in ones)" >&2
    exit 1
fi
n=$(wc -l <"$out.tmp")
if [ "$n" -gt "$max_n" ]; then
    rm -f "$out.tmp"
    echo "demo: Q holds $n questions; at most $max_n (separated by '|')" >&2
    exit 1
fi
i=0
while IFS= read -r q; do
    i=$((i + 1))
    # bytes, not characters: the drive's section stores UTF-8 bytes
    len=$(printf '%s' "$q" | wc -c)
    if [ "$len" -gt "$max_len" ]; then
        rm -f "$out.tmp"
        echo "demo: question $i has $len bytes; at most $max_len: $(printf '%s' "$q" | cut -c1-40)..." >&2
        exit 1
    fi
done <"$out.tmp"
mv -f "$out.tmp" "$out"
