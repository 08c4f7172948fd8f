#!/bin/bash
# test_guest_image.sh - scripts/guest-image.sh repacks the initramfs when,
# and only when, one of its inputs changed (its manifest), and a failed or
# killed run leaves no image that looks current.
#
# Root-free and offline: a private ISP_CACHE holds two small .debs (the
# linux-image-amd64 metapackage and a fake kernel whose nvme modules are
# ELF objects with a .modinfo section), a fake apt-cache names the
# metapackage's version, and the "guest programs" are small files. The
# script runs from a copy of the tree, so that its own inputs can be edited.
# Exit 0 pass, 1 fail, 77 skip.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
for t in dpkg-deb modinfo cpio cc readelf; do
    command -v "$t" >/dev/null 2>&1 || { echo "SKIP: $t missing"; exit 77; }
done
dpkg -L busybox-static 2>/dev/null | grep -q '/bin/busybox$' ||
    { echo "SKIP: busybox-static is not installed (scripts/setup-deps.sh)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM	# run-suite's timeout: clean up too
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# --- the fake tree, cache, apt and kernel ------------------------------------
root=$tmp/root
mkdir -p "$root/scripts" "$root/tests/vm" "$root/docs"
cp "$TOP/scripts/guest-image.sh" "$TOP/scripts/guest-kernel.sh" "$root/scripts/"
cp "$TOP/tests/vm/guest-init.sh" "$root/tests/vm/"
cp "$TOP/docs/nvme-cli.md" "$root/docs/"
export ISP_CACHE=$tmp/cache BUILD=$tmp/build
mkdir -p "$ISP_CACHE/downloads" "$BUILD/guest-bin" "$tmp/bin"
printf '#!/bin/sh\necho "  Candidate: 1.0"\n' >"$tmp/bin/apt-cache"
chmod 755 "$tmp/bin/apt-cache"
PATH=$tmp/bin:$PATH

krel=6.1.0-99-amd64
deb() { # deb NAME VERSION DIR [DEPENDS]: DIR packed as NAME_VERSION_amd64.deb
    mkdir -p "$3/DEBIAN"
    {
        echo "Package: $1"
        echo "Version: $2"
        echo "Architecture: amd64"
        echo "Maintainer: test <test@invalid>"
        echo "Description: test_guest_image"
        [ -z "${4:-}" ] || echo "Depends: $4"
    } >"$3/DEBIAN/control"
    dpkg-deb --root-owner-group -Zxz -b "$3" "$ISP_CACHE/downloads/$1_$2_amd64.deb" >/dev/null
}
k=$tmp/kpkg
mods=$k/lib/modules/$krel/kernel/drivers/nvme/host
mkdir -p "$k/boot" "$mods"
echo "fake kernel" >"$k/boot/vmlinuz-$krel"
echo "CONFIG_NVME_CORE=m" >"$k/boot/config-$krel"
module() { # module FILE DEPENDS
    printf 'const char m[] __attribute__((section(".modinfo"), used)) = "depends=%s";\n' "$2" \
        >"$tmp/m.c"
    cc -c -o "$1" "$tmp/m.c"
}
module "$mods/nvme.ko" nvme-core
module "$mods/nvme-core.ko" ""
xz "$mods/nvme.ko"
deb "linux-image-$krel" 6.1.0-99 "$k"
deb linux-image-amd64 1.0 "$tmp/meta" "linux-image-$krel (= 6.1.0-99)"

# A dynamically linked tool whose library sits beside it (RUNPATH).
mkdir -p "$tmp/tool"
lib() { # lib VALUE: libisptest.so returning VALUE
    echo "int isptest_value(void) { return $1; }" >"$tmp/lib.c"
    cc -shared -fPIC -o "$tmp/tool/libisptest.so" "$tmp/lib.c"
}
lib 1
printf 'int isptest_value(void);\nint main(void) { return isptest_value(); }\n' >"$tmp/tool.c"
cc -o "$tmp/tool/isptool" "$tmp/tool.c" -L"$tmp/tool" -lisptest -Wl,-rpath,"$tmp/tool"
export GUEST_TOOLS=$tmp/tool/isptool

printf '#!/bin/sh\necho one\n' >"$BUILD/guest-bin/prog1"
printf '#!/bin/sh\necho two\n' >"$BUILD/guest-bin/prog2"
chmod 755 "$BUILD/guest-bin/prog1" "$BUILD/guest-bin/prog2"

out=$BUILD/guest/bookworm
image=$out/initramfs.cpio.gz

# --- helpers --------------------------------------------------------------------
# run NAME [ENV=...]: one guest-image.sh run, its log in $tmp/NAME.log
run() {
    local name=$1
    shift
    env "$@" "$root/scripts/guest-image.sh" >"$tmp/$name.log" 2>&1
}
ident() { stat -c '%i %.9Y %s' "$image" 2>/dev/null; }
# expect_packed / expect_kept NAME: did run NAME repack the image?
expect_packed() {
    if grep -q 'up to date' "$tmp/$1.log" || [ "$(ident)" = "$before" ]; then
        fail "$1: did not repack"
        sed 's/^/    /' "$tmp/$1.log"
    fi
    before=$(ident)
}
expect_kept() {
    if ! grep -q 'up to date' "$tmp/$1.log" || [ "$(ident)" != "$before" ]; then
        fail "$1: repacked although no input changed"
        sed 's/^/    /' "$tmp/$1.log"
    fi
}
# member PATH: the image's file PATH on stdout
member() {
    rm -rf "$tmp/x" && mkdir "$tmp/x" &&
        (cd "$tmp/x" && gzip -dc "$image" | cpio -id --quiet 2>/dev/null) && cat "$tmp/x/$1"
}

# --- 1. a first run packs everything ---------------------------------------------
before=
run first || { fail "first run failed"; sed 's/^/    /' "$tmp/first.log"; exit 1; }
expect_packed first
[ -f "$out/initramfs.manifest" ] || fail "no manifest beside the image"
[ "$(member bin/prog1)" = "$(cat "$BUILD/guest-bin/prog1")" ] || fail "bin/prog1 not packed"
for f in init bin/busybox bin/isptool lib/x86_64-linux-gnu/libisptest.so \
    lib/modules/kernel/drivers/nvme/host/nvme.ko lib/modules/kernel/drivers/nvme/host/nvme-core.ko \
    usr/share/doc/isp-ssd/nvme-cli.md; do
    [ -f "$tmp/x/$f" ] || fail "first image lacks $f"
done
[ "$(cat "$tmp/x/etc/isp-modules" 2>/dev/null | tr '\n' ' ')" = \
    "kernel/drivers/nvme/host/nvme-core.ko kernel/drivers/nvme/host/nvme.ko " ] ||
    fail "etc/isp-modules: $(cat "$tmp/x/etc/isp-modules" 2>/dev/null)"
[ -L "$BUILD/guest/initramfs.cpio.gz" ] || fail "no default-flavour link"

# --- 2. nothing changed: no repack; a relinked identical program: no repack --
run second
expect_kept second
cp "$BUILD/guest-bin/prog1" "$tmp/p1" && sleep 0.01 && cp "$tmp/p1" "$BUILD/guest-bin/prog1"
touch "$BUILD/guest-bin/prog2"
run same-bytes
expect_kept same-bytes

# --- 3. each kind of input that changes repacks ----------------------------------
printf '#!/bin/sh\necho ONE\n' >"$BUILD/guest-bin/prog1"
run prog-changed
expect_packed prog-changed
[ "$(member bin/prog1)" = "$(cat "$BUILD/guest-bin/prog1")" ] || fail "the new bin/prog1 is not in the image"
run after-prog
expect_kept after-prog

printf '#!/bin/sh\necho three\n' >"$BUILD/guest-bin/prog3"
chmod 755 "$BUILD/guest-bin/prog3"
run prog-added
expect_packed prog-added
rm "$BUILD/guest-bin/prog2"
run prog-removed
expect_packed prog-removed
member bin/prog2 >/dev/null 2>&1 && fail "a removed program stayed in the image"

echo "# edited" >>"$root/tests/vm/guest-init.sh"
run init-changed
expect_packed init-changed
[ "$(member init | tail -n 1)" = "# edited" ] || fail "the new /init is not in the image"

echo "# edited" >>"$root/scripts/guest-image.sh"
run script-changed
expect_packed script-changed
echo "# edited" >>"$root/scripts/guest-kernel.sh"
run kernel-lib-changed
expect_packed kernel-lib-changed

lib 2
run lib-changed
expect_packed lib-changed

run no-tools GUEST_TOOLS=
expect_packed no-tools
member bin/isptool >/dev/null 2>&1 && fail "GUEST_TOOLS= still packs the tool"
run tools-back
expect_packed tools-back

# a kernel package rebuilt under the same name and version (new contents)
echo "fake kernel 2" >"$k/boot/vmlinuz-$krel"
deb "linux-image-$krel" 6.1.0-99 "$k"
rm -rf "$ISP_CACHE/kernel"
run kernel-changed
expect_packed kernel-changed
[ "$(cat "$out/vmlinuz")" = "fake kernel 2" ] || fail "vmlinuz not the new kernel's"

# --- 4. the image itself altered: repack ------------------------------------------
echo >>"$image"
before=$(ident)
run image-altered
expect_packed image-altered
rm -f "$out/initramfs.manifest"
run no-manifest
expect_packed no-manifest

# --- 5. a failed pack leaves nothing that looks current -----------------------------
printf '#!/bin/sh\nexit 1\n' >"$tmp/bin/gzip"
chmod 755 "$tmp/bin/gzip"
printf '#!/bin/sh\necho one again\n' >"$BUILD/guest-bin/prog1"
if run pack-fails; then
    fail "a failing gzip did not fail the run"
fi
rm "$tmp/bin/gzip"
[ -f "$out/initramfs.manifest" ] && fail "a failed run left a manifest"
for f in "$out"/.stage.* "$out"/.initramfs.* "$out"/.manifest.*; do
    [ -e "$f" ] && fail "a failed run left $f"
done
# leftovers of a killed run (no EXIT trap) go on the next run
mkdir "$out/.stage.killed" && echo half >"$out/.initramfs.123"
run after-fail
expect_packed after-fail
[ "$(member bin/prog1)" = "$(cat "$BUILD/guest-bin/prog1")" ] || fail "after a failed run: stale bin/prog1"
[ -e "$out/.stage.killed" ] || [ -e "$out/.initramfs.123" ] && fail "a killed run's temporaries stayed"
run final
expect_kept final

[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "guest-image.sh: packs only on a changed input, never leaves a current-looking half image"
