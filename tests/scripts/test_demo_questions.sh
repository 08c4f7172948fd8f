#!/bin/sh
# test_demo_questions.sh - `make demo Q=...` takes the user's questions as
# written and checks them before anything is embedded (Makefile,
# scripts/demo-questions.sh): $ stays $ (make does not expand it), UTF-8
# stays UTF-8, Q="" is refused instead of running the built-in questions,
# 17 questions or a 256-byte one are refused with the reason; without Q,
# the built-in questions. Root-free, no VM. Exit 0 pass, 1 fail.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
q() { make -s --no-print-directory -C "$TOP" demo-questions BUILD="$tmp" "$@" >"$tmp/out" 2>&1; }

q Q='costs $5 | café au lait |  $(shell echo no) $$y  '
[ $? = 0 ] || fail "good questions refused: $(cat "$tmp/out")"
printf 'costs $5\ncafé au lait\n$(shell echo no) $$y\n' | cmp -s - "$tmp/demo/questions.txt" ||
    fail "questions not taken as written: $(cat "$tmp/demo/questions.txt")"
q Q=
[ $? != 0 ] && grep -q "Q holds no question" "$tmp/out" || fail "Q= not refused: $(cat "$tmp/out")"
[ -f "$tmp/demo/questions.txt" ] && fail "Q= left a questions file"
q Q="$(seq -s '|' 1 17)"
[ $? != 0 ] && grep -q "Q holds 17 questions; at most 16" "$tmp/out" ||
    fail "17 questions not refused: $(cat "$tmp/out")"
long=$(printf 'x%.0s' $(seq 1 256))
q Q="short one|$long"
[ $? != 0 ] && grep -q "question 2 has 256 bytes; at most 255" "$tmp/out" ||
    fail "a 256-byte question not refused: $(cat "$tmp/out")"
q
[ $? = 0 ] && grep -q "no Q: the built-in questions" "$tmp/out" ||
    fail "without Q: $(cat "$tmp/out")"
[ "$fails" = 0 ] || exit 1
echo "demo questions: as written, checked first"
