#!/bin/sh
# test_doc_commands.sh - tests/doc-commands.sh, on documents made here:
#   lint: a block without a language, a marker on a text block, a
#         malformed or unknown marker, a skip without reason, a guest
#         program that does not exist, a block that does not parse, one
#         that needs $BUILD or $ISP_CACHE from make, and a vm/long one that
#         runs a build product before a make line fail; well-formed ones
#         pass;
#   run:  a host block runs in a scratch directory (what it writes stays
#         there, build/results is its own), with build/host-lib on PATH and
#         $SCRATCH for env=; exit status and every expect= decide; input=
#         goes in once the output matches input-after=; modes select blocks,
#         and FILE.md:LINE one block.
# Root-free. Exit 0 pass, 1 fail.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
F='```'

cat >"$tmp/bad.md" <<END
$F
untyped
$F

<!-- doc-test: host -->
${F}text
marker on text
$F

<!-- doc-test: hots -->
${F}sh
true
$F

<!-- doc-test: skip -->
${F}sh
true
$F

<!-- doc-test: guest no_such_program -->
${F}sh
true
$F

${F}sh
if then fi
$F

<!-- doc-test: vm expect=unterminated" -->
${F}sh
true
$F

${F}sh
ls \$BUILD/examples
$F

<!-- doc-test: long -->
${F}sh
cat \${ISP_CACHE}/x
$F

<!-- doc-test: vm -->
${F}sh
X=1 build/examples/bench_flash
make examples
$F
END
"$TOP/tests/doc-commands.sh" lint "$tmp/r1" "$tmp/bad.md" >"$tmp/out" 2>&1 && fail "lint passed bad blocks"
for want in "bad.md:1: a fenced block without a language" "bad.md:6: a doc-test marker on a" \
    "bad.md:11: unknown mode 'hots'" "bad.md:16: skip needs reason" \
    "bad.md:21: guest program no_such_program" "bad.md:25: does not parse" "bad.md:30: malformed marker" \
    "bad.md:34: uses \$BUILD, which a user's shell does not set" \
    "bad.md:39: uses \$ISP_CACHE, which a user's shell does not set" \
    "bad.md:44: 'X=1 build/examples/bench_flash' needs a build a fresh clone lacks"; do
    grep -q "^FAIL docs/$want" "$tmp/out" || fail "lint does not say '$want': $(cat "$tmp/out")"
done
grep -q "^docs-lint: 0 passed, 10 failed" "$tmp/out" || fail "lint counts: $(tail -n 1 "$tmp/out")"

cat >"$tmp/good.md" <<END
${F}sh
echo hello > written.txt
ls build/results | wc -l
cat written.txt
command -v reis
$F

<!-- doc-test: host expect="^x=[^ ]+/root$" env="X=\$SCRATCH/root" -->
${F}sh
echo "x=\$X"
$F

<!-- doc-test: host expect="never printed" -->
${F}sh
echo something else
$F

<!-- doc-test: host -->
${F}sh
false
echo not reached
$F

<!-- doc-test: host input-after="ready>" input="one\\ntwo" expect="got one two" timeout=20 -->
${F}sh
echo "ready>"; read a; read b; echo "got \$a \$b"
$F

<!-- doc-test: vm -->
${F}sh
echo vm only
$F

<!-- doc-test: skip reason="needs a person" -->
${F}sh
true
$F

<!-- doc-test: long -->
${F}sh
make -C examples \$PWD/build/examples/bench_flash
build/examples/bench_flash \${ISP_CACHE:-/var/cache/isp-ssd}
$F

${F}text
output, not run
$F
END
"$TOP/tests/doc-commands.sh" lint "$tmp/r2" "$tmp/good.md" >"$tmp/out" 2>&1 ||
    fail "lint refused good blocks: $(cat "$tmp/out")"
"$TOP/tests/doc-commands.sh" run host "$tmp/r2" "$tmp/good.md" >"$tmp/out" 2>&1 && fail "run passed failing blocks"
grep -q "^PASS docs/good-1 " "$tmp/out" || fail "plain block: $(cat "$tmp/out")"
grep -q "^0$" "$tmp/r2/docs/good-1.log" || fail "build/results is not the block's own"
grep -q "^hello$" "$tmp/r2/docs/good-1.log" && [ -f "$tmp/r2/docs/good-1/written.txt" ] ||
    fail "the block did not write in its scratch directory"
[ -f "$TOP/written.txt" ] && fail "a block wrote into the checkout"
grep -q "/build/host-lib/reis$" "$tmp/r2/docs/good-1.log" || fail "reis is not on PATH"
grep -q "^PASS docs/good-9 " "$tmp/out" || fail "env with \$SCRATCH: $(cat "$tmp/r2/docs/good-9.log")"
grep -q "^FAIL docs/good-14: output lacks /never printed/" "$tmp/out" || fail "expect not checked"
grep -q "^FAIL docs/good-19: exit 1" "$tmp/out" || fail "a failing command passed (sh -e)"
grep -q "^PASS docs/good-25 " "$tmp/out" || fail "input: $(cat "$tmp/r2/docs/good-25.log")"
grep -q "good-30" "$tmp/out" && fail "a vm block ran in host mode"
grep -q "^SKIP docs/good-35: needs a person" "$tmp/out" || fail "skip not reported"
grep -q "^docs-host: 3 passed, 2 failed, 1 skipped" "$tmp/out" || fail "counts: $(tail -n 1 "$tmp/out")"
[ "$(cat "$tmp/r2/docs-host.counts")" = "3 2 1" ] || fail "counts file"
"$TOP/tests/doc-commands.sh" run vm "$tmp/r3" "$tmp/good.md" >"$tmp/out" 2>&1 ||
    fail "vm mode: $(cat "$tmp/out")"
grep -q "^PASS docs/good-30 " "$tmp/out" && grep -q "^docs-vm: 1 passed, 0 failed" "$tmp/out" ||
    fail "vm mode ran: $(cat "$tmp/out")"
# The limit each block gets: a stub `timeout` first on PATH records it. A
# long block (make bench, make fidelity: tens of minutes) defaults to
# 5400 s, a host block to 300 s, a marker's timeout= wins.
mkdir -p "$tmp/stub"
cat >"$tmp/stub/timeout" <<'STUB'
#!/bin/sh
echo "limit $3"
shift 3
exec "$@"
STUB
chmod +x "$tmp/stub/timeout"
cat >"$tmp/lim.md" <<END
<!-- doc-test: long -->
${F}sh
true
$F

<!-- doc-test: long timeout=60 -->
${F}sh
true
$F

${F}sh
true
$F
END
PATH="$tmp/stub:$PATH" "$TOP/tests/doc-commands.sh" run long "$tmp/r4" "$tmp/lim.md" >"$tmp/out" 2>&1 ||
    fail "long mode: $(cat "$tmp/out")"
grep -q "^limit 5400$" "$tmp/r4/docs/lim-2.log" || fail "a long block's default limit: $(cat "$tmp/r4/docs/lim-2.log")"
grep -q "^limit 60$" "$tmp/r4/docs/lim-7.log" || fail "a long block's timeout=: $(cat "$tmp/r4/docs/lim-7.log")"
PATH="$tmp/stub:$PATH" "$TOP/tests/doc-commands.sh" run host "$tmp/r5" "$tmp/lim.md" >"$tmp/out" 2>&1 ||
    fail "host mode: $(cat "$tmp/out")"
grep -q "^limit 300$" "$tmp/r5/docs/lim-11.log" || fail "a host block's default limit: $(cat "$tmp/r5/docs/lim-11.log")"
# FILE.md:LINE runs the one block whose fence (or marker) is on LINE.
"$TOP/tests/doc-commands.sh" run host "$tmp/r6" "$tmp/good.md:8" "$tmp/good.md:25" >"$tmp/out" 2>&1 ||
    fail "one block by line: $(cat "$tmp/out")"
grep -q "^PASS docs/good-9 " "$tmp/out" && grep -q "^PASS docs/good-25 " "$tmp/out" &&
    grep -q "^docs-host: 2 passed, 0 failed, 0 skipped" "$tmp/out" ||
    fail "FILE:LINE selected other blocks: $(cat "$tmp/out")"
[ "$fails" = 0 ] || exit 1
echo "doc-commands: lint and run behave"
