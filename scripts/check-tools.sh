#!/bin/sh
# check-tools.sh - what `make check` needs: a C toolchain, static libc and
# liburing. No root, no apt: one line per missing piece, and how to get it
# (scripts/setup-deps.sh installs all of them).
set -u
miss=0
need() { echo "check-tools: missing $1 (Debian package $2; scripts/setup-deps.sh installs it)" >&2; miss=1; }
CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || need "C compiler '$CC'" build-essential
command -v ar >/dev/null 2>&1 || need "ar" binutils
command -v make >/dev/null 2>&1 || need "make" make
if command -v "$CC" >/dev/null 2>&1; then
    tmp=$(mktemp -d) || exit 1
    printf '#include <liburing.h>\nint main(void){struct io_uring r; return io_uring_queue_init(1,&r,0)<0;}\n' >"$tmp/t.c"
    "$CC" -o "$tmp/t" "$tmp/t.c" -luring >/dev/null 2>&1 || need "liburing headers and library" liburing-dev
    # libreis' core: libnvme, and for the static programs json-c and OpenSSL.
    printf '#include <libnvme.h>\nint main(void){return !nvme_status_to_string(0, false);}\n' >"$tmp/n.c"
    "$CC" -static -o "$tmp/n" "$tmp/n.c" $(pkg-config --static --libs libnvme 2>/dev/null || echo -lnvme) \
        >/dev/null 2>&1 || need "libnvme (static, with json-c and OpenSSL)" "libnvme-dev libjson-c-dev libssl-dev"
    # The CLI and guest programs are linked statically.
    printf 'int main(void){return 0;}\n' >"$tmp/s.c"
    "$CC" -static -o "$tmp/s" "$tmp/s.c" >/dev/null 2>&1 || need "static libc (libc.a)" libc6-dev
    rm -rf "$tmp"
fi
exit $miss
