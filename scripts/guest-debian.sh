#!/bin/bash
# guest-debian.sh - build the Debian guest (`make guest GUEST=debian`, and
# what `make shell` / `make run` boot; docs/debian-guest.md). Three pieces:
#
#   1. the base: a Debian 12 root built with mmdebstrap from the Debian
#      archive (suite bookworm pinned, its updates and security suites, and
#      bookworm-backports for the 6.12 kernel): the packages of
#      scripts/debian/packages (a C toolchain, nvme-cli, fio, python3 with
#      numpy and FAISS, ...), both guest kernels with their modules and
#      linux-headers (so a module builds against the running kernel), and
#      GUEST_PACKAGES; no init system (scripts/debian/isp-init is PID 1).
#      Written as a read-only ext4 image into $ISP_CACHE/debian/, named by a
#      key of everything that goes into it (suites, packages, kernel
#      versions, mmdebstrap options, this list of inputs): it is built again
#      only when that key changes; the two newest are kept. The packages
#      mmdebstrap downloaded stay in $ISP_CACHE/debian/debs for the next
#      build;
#   2. the project's layer: libreis installed as a distribution would
#      (`make -C host-lib install` with PREFIX=/usr and the multiarch
#      libdir: shared and static libraries, headers, libreis.pc, man pages,
#      the reis CLI), the Python module (`make -C python install` into
#      /usr/lib/python3/dist-packages), the examples in
#      /usr/share/isp-ssd/examples and /sbin/isp-init: a small ext4 image
#      $BUILD/guest-debian/layer.img, rewritten only when a file in it
#      changed (its manifest);
#   3. per guest flavour, the kernel and a boot initramfs
#      ($BUILD/guest-debian/<flavour>/): busybox, the virtio-blk, ext4 and
#      overlayfs modules, scripts/debian/boot-init, which mounts the base
#      under the layer under a tmpfs (overlayfs) and starts /sbin/isp-init.
#
# Needs root (mmdebstrap --mode=root, an image of a root-owned tree).
# Environment: GUEST_PACKAGES="pkg pkg" more Debian packages in the base;
# DEBIAN_MIRROR, DEBIAN_SECURITY the archive URLs (deb.debian.org).
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
ISP_CACHE=${ISP_CACHE:-/var/cache/isp-ssd}
OUT=$BUILD/guest-debian
CACHE=$ISP_CACHE/debian
SUITE=bookworm
FLAVOURS="bookworm bookworm-backports"
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY=${DEBIAN_SECURITY:-http://deb.debian.org/debian-security}
GUEST_PACKAGES=${GUEST_PACKAGES:-}
# crc32c: ext4 asks the crypto API for it by name (no module dependency)
BOOT_MODULES="virtio_pci virtio_blk crc32c_generic ext4 overlay"

log() { echo "guest-debian: $*"; }
die() { echo "guest-debian: error: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "building the Debian guest needs root (mmdebstrap --mode=root)"
for t in mmdebstrap mke2fs dpkg-deb cpio; do
    command -v "$t" >/dev/null 2>&1 || die "$t missing (run scripts/setup-deps.sh)"
done
case $GUEST_PACKAGES in
*[!a-z0-9.+:=~\ -]*) die "GUEST_PACKAGES='$GUEST_PACKAGES': Debian package names only" ;;
esac
busybox=$(dpkg -L busybox-static 2>/dev/null | grep -m1 '/bin/busybox$') ||
    die "busybox-static is not installed (run scripts/setup-deps.sh)"
mkdir -p "$OUT" "$CACHE/debs"

# --- the guest kernels (scripts/guest-kernel.sh) --------------------------------
. "$ROOT/scripts/guest-kernel.sh"
exec 9>"$ISP_CACHE/guest.lock"
flock 9
declare -A f_pkg f_ver f_dir f_rel f_deb
for f in $FLAVOURS; do
    guest_kernel "$f"
    f_pkg[$f]=$kpkg f_ver[$f]=$kver f_dir[$f]=$kdir f_rel[$f]=$krel f_deb[$f]=$kdeb
done
exec 9>&-

# --- 1. the base ----------------------------------------------------------------
pkgs=$(sed 's/#.*//' "$ROOT/scripts/debian/packages" | tr -s ' \t\n' ' ')
for f in $FLAVOURS; do
    pkgs="$pkgs ${f_pkg[$f]}=${f_ver[$f]} linux-headers-${f_rel[$f]}=${f_ver[$f]}"
done
pkgs="$pkgs $GUEST_PACKAGES"
sources=("deb $MIRROR $SUITE main" "deb $MIRROR $SUITE-updates main"
    "deb $SECURITY $SUITE-security main" "deb $MIRROR $SUITE-backports main")
# The kernels depend on an initramfs generator; the guest boots its own
# initramfs (3.), so a package that only provides the name stands in.
NOINITRD_CONTROL="Package: isp-ssd-no-initramfs
Version: 1
Architecture: all
Maintainer: isp-ssd <isp-ssd@localhost>
Provides: linux-initramfs-tool
Priority: optional
Section: kernel
Description: the isp-ssd guest boots its own initramfs
 Satisfies linux-image's dependency on an initramfs generator: the isp-ssd
 Debian guest is booted with an initramfs of its own (scripts/guest-debian.sh)."
MM_OPTS=(--mode=root --variant=apt --format=directory
    --aptopt='Acquire::Languages "none"'
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright'
    --dpkgopt='path-exclude=/usr/share/locale/*'
    --dpkgopt='path-include=/usr/share/locale/locale.alias'
    --dpkgopt='path-exclude=/usr/share/info/*')
key=$( {
    echo "isp-ssd debian base 1"
    printf '%s\n' "${sources[@]}" "${MM_OPTS[@]}" "$NOINITRD_CONTROL"
    echo "$pkgs" | tr ' ' '\n' | sort -u
    mmdebstrap --version
} | sha256sum | cut -c1-16)
base=$CACHE/base-$key.img

build_base() {
    local tmp t0 mb
    tmp=$CACHE/.build-$key
    rm -rf "$tmp"
    mkdir -p "$tmp/noinitrd/DEBIAN"
    echo "$NOINITRD_CONTROL" >"$tmp/noinitrd/DEBIAN/control"
    dpkg-deb --root-owner-group -b "$tmp/noinitrd" "$tmp/isp-ssd-no-initramfs_1_all.deb" \
        >/dev/null
    t0=$(date +%s)
    log "building the base $key with mmdebstrap (cold: 5-10 min; log $CACHE/base-$key.log)"
    # shellcheck disable=SC2086
    if ! mmdebstrap "${MM_OPTS[@]}" \
        --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
        --include="$tmp/isp-ssd-no-initramfs_1_all.deb" --include="$pkgs" \
        --skip=essential/unlink \
        --setup-hook='mkdir -p "$1"/var/cache/apt/archives/' \
        --setup-hook="sync-in $CACHE/debs /var/cache/apt/archives/" \
        --customize-hook="sync-out /var/cache/apt/archives $CACHE/debs" \
        --customize-hook='echo isp-guest >"$1"/etc/hostname' \
        --customize-hook='printf "127.0.0.1 localhost\n127.0.1.1 isp-guest\n" >"$1"/etc/hosts' \
        "$SUITE" "$tmp/root" "${sources[@]}" >"$CACHE/base-$key.log" 2>&1; then
        tail -n 20 "$CACHE/base-$key.log" >&2
        rm -rf "$tmp"
        die "mmdebstrap failed (log: $CACHE/base-$key.log)"
    fi
    log "mmdebstrap: $(( $(date +%s) - t0 )) s"
    # room for the files, their inodes and a margin; read-only: no journal
    mb=$(( $(du -sm "$tmp/root" | cut -f1) * 115 / 100 + 64 ))
    rm -f "$tmp/base.img"
    truncate -s "${mb}M" "$tmp/base.img"
    mke2fs -q -t ext4 -O ^has_journal -m 0 -L isp-debian -d "$tmp/root" "$tmp/base.img" ||
        { rm -rf "$tmp"; die "mke2fs of the base failed"; }
    mv -f "$tmp/base.img" "$base"
    echo "$pkgs" >"$base.packages"
    rm -rf "$tmp"
    log "base $key: $(du -h --apparent-size "$base" | cut -f1) image" \
        "($(du -h "$base" | cut -f1) on disk), $(( $(date +%s) - t0 )) s"
}

exec 7>"$CACHE/.lock"
flock 7
if [ -f "$base" ]; then
    log "base $key is cached ($base)"
else
    build_base
    # keep this base and the one before it
    ls -1t "$CACHE"/base-*.img 2>/dev/null | tail -n +3 | while read -r old; do
        [ "$old" = "$base" ] && continue
        log "removing old base $old"
        rm -f "$old" "$old.packages"
    done
fi
touch "$base"
exec 7>&-
ln -sfn "$base" "$OUT/base.img"

# --- 2. the project's layer -----------------------------------------------------
exec 8>"$OUT/.lock"
flock 8
# What the layer is made of, by name, size and mtime: unchanged, nothing is
# staged again (a changed mtime only restages; the manifest below decides).
layer_inputs() {
    {
        find "$BUILD/host-lib" "$BUILD/python/obj" -maxdepth 1 -type f
        echo "$BUILD/hw-model/libhwmodel.a"
        find "$ROOT/host-lib/include" "$ROOT/host-lib/man" "$ROOT/python/reis" \
            "$ROOT/python/examples" "$ROOT/examples/hello" -type f
        echo "$ROOT/host-lib/Makefile" "$ROOT"/host-lib/*.pc.in "$ROOT/python/Makefile" \
            "$ROOT/python/README.md" "$ROOT/scripts/debian/isp-init" \
            "$ROOT/docs/debian-guest.md" "$ROOT/scripts/guest-debian.sh" | tr ' ' '\n'
    } | LC_ALL=C sort | xargs stat -L -c '%n %s %.9Y'
}
layer_inputs >"$OUT/layer.inputs.new"
skip_layer=0
if [ -f "$OUT/layer.img" ] && [ -f "$OUT/layer.manifest" ] &&
    cmp -s "$OUT/layer.inputs" "$OUT/layer.inputs.new"; then
    rm -f "$OUT/layer.inputs.new"
    log "layer up to date ($OUT/layer.img, inputs unchanged)"
    skip_layer=1
fi
stage=$OUT/layer.stage
build_layer() {
    rm -rf "$stage" "$OUT/layer.img.tmp"
    mkdir -p "$stage"
    make -s -C "$ROOT/host-lib" install BUILD="$BUILD" DESTDIR="$stage" PREFIX=/usr \
        LIBDIR=/usr/lib/x86_64-linux-gnu >"$OUT/layer.log" 2>&1 ||
        { tail -n 20 "$OUT/layer.log" >&2; die "make -C host-lib install failed"; }
    make -s -C "$ROOT/python" install BUILD="$BUILD" DESTDIR="$stage" \
        PYDIR=/usr/lib/python3/dist-packages >>"$OUT/layer.log" 2>&1 ||
        { tail -n 20 "$OUT/layer.log" >&2; die "make -C python install failed"; }
    install -D -m 755 "$ROOT/scripts/debian/isp-init" "$stage/sbin/isp-init"
    ex=$stage/usr/share/isp-ssd/examples
    install -d "$ex/hello" "$ex/python" "$stage/usr/share/doc/isp-ssd" "$stage/etc/profile.d"
    install -m 644 "$ROOT/examples/hello/hello_reis.c" "$ROOT/examples/hello/Makefile" "$ex/hello/"
    install -m 644 "$ROOT"/python/examples/*.py "$ex/python/"
    install -m 644 "$ROOT/python/README.md" "$stage/usr/share/doc/isp-ssd/python.md"
    install -m 644 "$ROOT/docs/debian-guest.md" "$stage/usr/share/doc/isp-ssd/"
    cat >"$stage/etc/motd" <<'MOTD'

isp-ssd Debian guest: /dev/ng0n1 is the ISP drive (reis info, nvme list).
libreis: pkg-config --cflags --libs libreis; man reis, man 3 reis_open.
Python: python3 -c 'import reis'; examples in /usr/share/isp-ssd/examples.
The host's folder is /mnt/host; everything else is lost at power-off.
'exit' (or Ctrl-D) powers off; Ctrl-A X stops QEMU.

MOTD
    echo 'PS1="isp-guest:\w\$ "' >"$stage/etc/profile.d/isp-ssd.sh"
    # What decides a rewrite: every path, its type, mode and contents.
    manifest=$OUT/layer.manifest
    (cd "$stage" && find . -printf '%y %m %p %l\n' | LC_ALL=C sort &&
        find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) >"$OUT/layer.manifest.new"
    if [ -f "$OUT/layer.img" ] && cmp -s "$manifest" "$OUT/layer.manifest.new"; then
        rm -f "$OUT/layer.manifest.new"
        log "layer up to date ($OUT/layer.img)"
    else
        rm -f "$manifest"
        mb=$(( $(du -sm "$stage" | cut -f1) * 2 + 16 ))
        truncate -s "${mb}M" "$OUT/layer.img.tmp"
        mke2fs -q -t ext4 -O ^has_journal -m 0 -L isp-layer -d "$stage" "$OUT/layer.img.tmp" ||
            die "mke2fs of the layer failed"
        mv -f "$OUT/layer.img.tmp" "$OUT/layer.img"
        mv -f "$OUT/layer.manifest.new" "$manifest"
        log "layer: $(du -sh "$stage" | cut -f1) in $OUT/layer.img"
    fi
    mv -f "$OUT/layer.inputs.new" "$OUT/layer.inputs"
}
[ "$skip_layer" = 1 ] || build_layer

# --- 3. kernels and boot initramfs ----------------------------------------------
for f in $FLAVOURS; do
    kpkg=${f_pkg[$f]} kdir=${f_dir[$f]} krel=${f_rel[$f]}
    moddir=$kdir/lib/modules/$krel
    o=$OUT/$f
    mkdir -p "$o"
    bkey=$(cat "$ROOT/scripts/debian/boot-init" "$busybox" "$ROOT/scripts/guest-kernel.sh" \
        "${f_deb[$f]}" <(echo "$BOOT_MODULES") | sha256sum | cut -c1-16)
    cmp -s "$kdir/boot/vmlinuz-$krel" "$o/vmlinuz" || cp "$kdir/boot/vmlinuz-$krel" "$o/vmlinuz"
    echo "$krel" >"$o/kernel-release"
    if [ -f "$o/initrd.cpio.gz" ] && [ "$(cat "$o/initrd.key" 2>/dev/null)" = "$bkey" ]; then
        continue
    fi
    st=$(mktemp -d "$o/.stage.XXXXXX")
    chmod 755 "$st"
    mkdir -p "$st/bin" "$st/etc" "$st/lib/modules" "$st/dev" "$st/proc" "$st/sys"
    modules_index "$st"
    : >"$st/etc/isp-modules"
    for m in $BOOT_MODULES; do
        builtin_module "$m" || add_module "$m" "$st/etc/isp-modules"
    done
    modules_done
    cp "$busybox" "$st/bin/busybox"
    install -m 755 "$ROOT/scripts/debian/boot-init" "$st/init"
    (cd "$st" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -9n \
        >"$o/initrd.cpio.gz.tmp"
    mv -f "$o/initrd.cpio.gz.tmp" "$o/initrd.cpio.gz"
    echo "$bkey" >"$o/initrd.key"
    rm -rf "$st"
    log "$f: kernel $krel, boot initramfs $(du -k "$o/initrd.cpio.gz" | cut -f1) KiB"
done
log "ready: base $(du -h --apparent-size "$base" | cut -f1), layer" \
    "$(du -h --apparent-size "$OUT/layer.img" | cut -f1); kernels $(for f in $FLAVOURS; do
        printf '%s ' "${f_rel[$f]}"; done)"
