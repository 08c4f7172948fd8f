#!/bin/sh
# test_build_quiet.sh - a build prints what it makes, not every compiler
# line, and no glibc static-link warnings (the Makefiles' `say`,
# scripts/static-link.sh):
#   1. one hw-model object: "  CC    hw-model/..." and no cc command line
#      (and two programs of examples/, hello_reis among them);
#      V=1 prints the command line; make -s prints nothing; python/'s
#      extension the same way ("  CC    python/obj/_reis.o", "  LD ...");
#   2. static-link.sh drops glibc's "Using 'dlopen' ... statically linked"
#      warning and its "in function" line, keeps any other linker warning,
#      and keeps a failing link's message and status.
# Root-free. Exit 0 pass, 1 fail, 77 skip.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
command -v cc >/dev/null 2>&1 || { echo "SKIP: no cc"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

obj=$tmp/hw-model/flash/flash_geom.o
make --no-print-directory -C "$TOP/hw-model" BUILD="$tmp" OUT="$tmp/hw-model" "$obj" >"$tmp/out" 2>&1 ||
    fail "compiling $obj: $(cat "$tmp/out")"
grep -q "^  CC    hw-model/flash/flash_geom.o$" "$tmp/out" || fail "no short line: $(cat "$tmp/out")"
grep -q -- " -c -o " "$tmp/out" && fail "the compiler line is printed: $(cat "$tmp/out")"
rm -f "$obj"
make --no-print-directory -C "$TOP/hw-model" BUILD="$tmp" OUT="$tmp/hw-model" V=1 "$obj" >"$tmp/out" 2>&1
grep -q -- " -c -o $obj" "$tmp/out" || fail "V=1 does not print the command: $(cat "$tmp/out")"
rm -f "$obj"
make -s --no-print-directory -C "$TOP/hw-model" BUILD="$tmp" OUT="$tmp/hw-model" "$obj" >"$tmp/out" 2>&1
[ -s "$tmp/out" ] && fail "make -s prints: $(cat "$tmp/out")"
# every program of examples/ the same way (hello_reis printed its whole
# cc line), against the libraries already built
B=${BUILD:-$TOP/build}
if [ -f "$B/host-lib/libreis.a" ] && [ -f "$B/host-lib/libreis-tools.a" ] &&
    [ -f "$B/hw-model/libhwmodel.a" ]; then
    for p in hello_reis rag_demo; do
        make --no-print-directory -C "$TOP/examples" BUILD="$B" OUT="$tmp/ex" "$tmp/ex/$p" \
            >"$tmp/out" 2>&1 || fail "building examples' $p: $(cat "$tmp/out")"
        grep -q "^  CCLD  " "$tmp/out" || fail "examples' $p: no short line: $(cat "$tmp/out")"
        grep -q -- " -o $tmp/ex/$p" "$tmp/out" && fail "examples' $p: the cc line is printed"
    done
else
    echo "note: libreis not built in $B; examples/ not checked"
fi
# python/: its object and module (it printed both whole cc lines)
if [ -f "$B/host-lib/libreis.so" ] && [ -f "$B/host-lib/libreis-tools.so" ] &&
    make -s --no-print-directory -C "$TOP/python" check-deps >/dev/null 2>&1; then
    make --no-print-directory -C "$TOP/python" BUILD="$tmp/py" LIBOUT="$B/host-lib" \
        >"$tmp/out" 2>&1 || fail "building python/: $(cat "$tmp/out")"
    grep -q "^  CC    python/obj/_reis.o$" "$tmp/out" || fail "python/: no short CC line: $(cat "$tmp/out")"
    grep -q "^  LD    python/reis/_reis" "$tmp/out" || fail "python/: no short LD line: $(cat "$tmp/out")"
    grep -q -- " -o $tmp/py/" "$tmp/out" && fail "python/: a cc line is printed: $(cat "$tmp/out")"
    rm -rf "$tmp/py"
    make --no-print-directory -C "$TOP/python" BUILD="$tmp/py" LIBOUT="$B/host-lib" V=1 \
        >"$tmp/out" 2>&1
    grep -q -- " -c -o $tmp/py/python/obj/_reis.o" "$tmp/out" || fail "python/: V=1 does not print the command"
else
    echo "note: libreis.so or python3-dev/numpy missing; python/ not checked"
fi

cat >"$tmp/p.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(void) { char b[L_tmpnam]; return dlopen("x", RTLD_NOW) != 0 || !tmpnam(b); }
C
if cc -static -o "$tmp/p" "$tmp/p.c" -ldl 2>"$tmp/raw"; then
    grep -q "statically linked applications" "$tmp/raw" ||
        echo "note: this toolchain gives no static dlopen warning"
    "$TOP/scripts/static-link.sh" cc -static -o "$tmp/p" "$tmp/p.c" -ldl >"$tmp/out" 2>&1 ||
        fail "static-link.sh failed a good link: $(cat "$tmp/out")"
    grep -q "statically linked applications" "$tmp/out" && fail "glibc's warning kept: $(cat "$tmp/out")"
    grep -q "in function \`main'" "$tmp/out" && grep -q "dlopen" "$tmp/out" &&
        fail "its 'in function' line kept: $(cat "$tmp/out")"
    grep -q "tmpnam" "$tmp/raw" && ! grep -q "tmpnam" "$tmp/out" &&
        fail "another linker warning dropped: $(cat "$tmp/out")"
else
    echo "note: no static libc here; only the failing link is checked"
fi
printf 'int f(void);\nint main(void) { return f(); }\n' >"$tmp/u.c"
"$TOP/scripts/static-link.sh" cc -static -o "$tmp/u" "$tmp/u.c" >"$tmp/out" 2>&1 &&
    fail "a failing link succeeded"
grep -q "undefined reference to \`f'" "$tmp/out" || fail "the link error is gone: $(cat "$tmp/out")"
[ "$fails" = 0 ] || exit 1
echo "build output: short lines, no static-link noise, errors kept"
