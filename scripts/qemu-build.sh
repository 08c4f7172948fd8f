#!/bin/sh
# qemu-build.sh - build the patched QEMU (x86_64-softmmu) with hw-model
# linked into its nvme controller. Called by `make qemu`.
#
#   1. fetch Debian bookworm's qemu source package (apt-get source) into
#      $ISP_CACHE/downloads and verify the upstream tarball's sha256;
#   2. unpack it (dpkg-source -x, Debian's patches applied), apply
#      qemu-patches/$QEMU_SERIES/series (the hooks), copy the glue
#      (qemu-patches/hw/nvme/isp.c, isp.h) and hw-model into the tree,
#      configure, build;
#   3. copy the binary to $BUILD/qemu-system-x86_64.bin, write the wrapper
#      $BUILD/qemu-system-x86_64 (adds the firmware directories) and point
#      $BUILD/qemu-build at the build tree.
#
# Caches, outside the work tree:
#   $ISP_CACHE/qemu/<version>-<patch key>/  patched, configured source+build
#     tree, keyed by package version, patch series and configure options;
#   <tree>/.hw-key  hw-model sources the binary was linked with: a change
#     there only re-copies libhwmodel.a and its headers and relinks;
#   <tree>/.glue-key  glue sources the binary was built with: a change there
#     only re-copies the changed files and recompiles them (ninja sees the
#     new mtime), so editing isp.c rebuilds isp.o and relinks.
# QEMU_DEB_VERSION=<version> pins another source package version.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
ISP_CACHE=${ISP_CACHE:-/var/cache/isp-ssd}
DL=$ISP_CACHE/downloads
ORIG=qemu_7.2+dfsg.orig.tar.xz
ORIG_SHA256=91aca71520040edc40b8d437aa3004dae614f58e286cf653ee8996c07af2962f
# The hook patches for this upstream version: qemu-patches/$QEMU_SERIES/.
QEMU_SERIES=7.2
PATCHES=$ROOT/qemu-patches
FIRMWARE="/usr/share/seabios /usr/share/qemu /usr/lib/ipxe/qemu"
CONFIGURE_OPTS="--target-list=x86_64-softmmu --without-default-features
 --enable-tcg --enable-kvm --enable-fdt=system --enable-slirp
 --enable-trace-backends=log --disable-werror --disable-docs"

log() { echo "qemu-build: $*"; }
die() { echo "qemu-build: error: $*" >&2; exit 1; }

sha() { sha256sum | cut -c1-16; }

mkdir -p "$DL" "$ISP_CACHE/qemu" "$BUILD"

# Two builds (two checkouts, or make -j) must not share a tree half-built.
exec 9>"$ISP_CACHE/qemu.lock"
if ! flock -n 9; then
    log "waiting for another build to finish"
    flock 9
fi

# --- hw-model ---------------------------------------------------------------
make -s -C "$ROOT/hw-model" BUILD="$BUILD"
HWLIB=$BUILD/hw-model/libhwmodel.a
[ -f "$HWLIB" ] || die "hw-model did not produce $HWLIB"
hw_key=$(cd "$ROOT" && find hw-model/src hw-model/include hw-model/Makefile \
    -type f | LC_ALL=C sort | xargs sha256sum | sha)

# --- source package ---------------------------------------------------------
# The newest version apt knows (or QEMU_DEB_VERSION), as apt-get source picks.
version=${QEMU_DEB_VERSION:-}
if [ -z "$version" ]; then
    for v in $(apt-cache showsrc qemu 2>/dev/null | sed -n 's/^Version: //p'); do
        if [ -z "$version" ] || dpkg --compare-versions "$v" gt "$version"; then
            version=$v
        fi
    done
fi
if [ -n "$version" ]; then
    dsc=qemu_${version#*:}.dsc
    # dpkg-source -x verifies every file against the .dsc later on
    if [ -f "$DL/$dsc" ] && [ -f "$DL/$ORIG" ] &&
        [ -f "$DL/qemu_${version#*:}.debian.tar.xz" ]; then
        :
    elif ! (cd "$DL" && apt-get source --download-only -q "qemu=$version" >"$DL/apt.log" 2>&1) &&
        ! { [ "$(id -u)" = 0 ] && apt-get update -qq >/dev/null 2>&1 &&
            (cd "$DL" && apt-get source --download-only -q "qemu=$version" >"$DL/apt.log" 2>&1); }; then
        tail -n 5 "$DL/apt.log" >&2
        [ -f "$DL/$dsc" ] || die "apt-get source qemu=$version failed (network? run scripts/setup-deps.sh)"
        log "warning: apt-get source failed; using the copy downloaded earlier"
    fi
else
    # No deb-src entry (or no package lists): use an earlier download.
    dsc=$(cd "$DL" && ls -1 qemu_*.dsc 2>/dev/null | sort -V | tail -n 1 || true)
    [ -n "$dsc" ] || die "apt knows no qemu source package and $DL has none (run scripts/setup-deps.sh)"
    log "warning: apt knows no qemu source package; using cached $dsc"
fi
[ -f "$DL/$dsc" ] || die "$DL/$dsc missing after download"
version=${dsc#qemu_}
version=${version%.dsc}
log "source: qemu $version"

got=$(sha256sum "$DL/$ORIG" 2>/dev/null | cut -d' ' -f1 || true)
[ "$got" = "$ORIG_SHA256" ] ||
    die "$DL/$ORIG: sha256 '$got' is not the pinned $ORIG_SHA256 (corrupt download or changed upstream tarball; delete it to download again)"

# --- patched, configured tree -----------------------------------------------
# The key covers what needs a fresh tree (hooks, configure options), not the
# glue sources: those are copied in below and rebuilt incrementally.
pdir=$PATCHES/$QEMU_SERIES
series=$pdir/series
[ -f "$series" ] || die "$series missing"
patches=$(grep -v -e '^#' -e '^[[:space:]]*$' "$series")
patch_key=$( (cd "$pdir" && cat series $patches; echo "$CONFIGURE_OPTS") | sha)
tree=$ISP_CACHE/qemu/$version-$patch_key
src=$tree/src
bld=$tree/build

if [ ! -f "$tree/.patched" ]; then
    log "unpacking qemu $version (Debian patches applied)"
    rm -rf "$tree"
    mkdir -p "$tree"
    dpkg-source -q -x "$DL/$dsc" "$src" >"$tree/unpack.log" 2>&1 ||
        { tail -n 20 "$tree/unpack.log" >&2; die "dpkg-source -x $dsc failed"; }
    for p in $patches; do
        log "applying $p"
        if ! patch -d "$src" -p1 --batch --forward --fuzz=0 --no-backup-if-mismatch \
            -s <"$pdir/$p" >"$tree/patch.log" 2>&1; then
            cat "$tree/patch.log" >&2
            rm -rf "$tree"
            die "qemu-patches/$QEMU_SERIES/$p does not apply to qemu $version"
        fi
    done
    touch "$tree/.patched"
fi

# Only copy what changed, so an unchanged file keeps its mtime and ninja
# rebuilds nothing for it. meson.build names isp.c: it must be in place
# before configure.
glue=$(cd "$PATCHES" && find hw -type f | LC_ALL=C sort)
[ -n "$glue" ] || die "$PATCHES/hw holds no glue sources"
for f in $glue; do
    if ! cmp -s "$PATCHES/$f" "$src/$f"; then
        mkdir -p "$(dirname "$src/$f")"
        cp "$PATCHES/$f" "$src/$f"
    fi
done
glue_key=$( (cd "$PATCHES" && sha256sum $glue) | sha)

model=$src/hw/nvme/isp-model
mkdir -p "$model"
for f in "$HWLIB" "$ROOT"/hw-model/include/*.h; do
    cmp -s "$f" "$model/$(basename "$f")" || cp "$f" "$model/"
done

if [ ! -f "$tree/.configured" ]; then
    log "configuring ($(echo $CONFIGURE_OPTS | tr '\n' ' '))"
    rm -rf "$bld"
    mkdir -p "$bld"
    # shellcheck disable=SC2086
    if ! (cd "$bld" && "$src/configure" $CONFIGURE_OPTS) >"$tree/configure.log" 2>&1; then
        tail -n 30 "$tree/configure.log" >&2
        die "configure failed (full log: $tree/configure.log)"
    fi
    touch "$tree/.configured"
fi

old_hw=$(cat "$tree/.hw-key" 2>/dev/null || true)
old_glue=$(cat "$tree/.glue-key" 2>/dev/null || true)
if [ "$old_hw" != "$hw_key" ] || [ "$old_glue" != "$glue_key" ] ||
    [ ! -x "$bld/qemu-system-x86_64" ]; then
    if [ ! -x "$bld/qemu-system-x86_64" ]; then
        log "building qemu-system-x86_64 (cold: 2-5 min on 2 cores; log: $tree/build.log)"
    elif [ "$old_hw" != "$hw_key" ]; then
        log "hw-model changed: relinking"
    else
        log "glue changed: recompiling it"
    fi
    if [ "$old_hw" != "$hw_key" ]; then
        # the archive is a link argument, not a tracked input: force the relink
        rm -f "$bld/qemu-system-x86_64"
    fi
    # a failed build must not look up to date next time
    rm -f "$tree/.hw-key" "$tree/.glue-key"
    start=$(date +%s)
    if ! ninja -C "$bld" -j "$(nproc)" qemu-system-x86_64 >"$tree/build.log" 2>&1; then
        grep -E -A5 'error|FAILED' "$tree/build.log" | head -n 40 >&2
        die "build failed (full log: $tree/build.log)"
    fi
    echo "$hw_key" >"$tree/.hw-key"
    echo "$glue_key" >"$tree/.glue-key"
    log "built in $(( $(date +%s) - start )) s"
else
    log "up to date ($version, hooks $patch_key, glue $glue_key, hw-model $hw_key)"
fi

# --- results ------------------------------------------------------------------
for d in $FIRMWARE; do
    [ -d "$d" ] || die "firmware directory $d missing (install seabios qemu-system-data ipxe-qemu)"
done
# A private copy: another checkout sharing the cached tree may relink the
# tree's binary with its own hw-model while this one runs tests.
cp -f "$bld/qemu-system-x86_64" "$BUILD/qemu-system-x86_64.bin.tmp"
mv -f "$BUILD/qemu-system-x86_64.bin.tmp" "$BUILD/qemu-system-x86_64.bin"
wrapper=$BUILD/qemu-system-x86_64
{
    echo '#!/bin/sh'
    echo '# Generated by scripts/qemu-build.sh: the patched QEMU with Debian firmware.'
    printf 'exec %s' "$BUILD/qemu-system-x86_64.bin"
    for d in $FIRMWARE; do printf ' -L %s' "$d"; done
    echo ' "$@"'
} >"$wrapper.tmp"
chmod +x "$wrapper.tmp"
mv -f "$wrapper.tmp" "$wrapper"
ln -sfn "$bld" "$BUILD/qemu-build"

# Keep this tree and the one used before it; older ones only cost disk.
touch "$tree"
ls -1dt "$ISP_CACHE"/qemu/*/ 2>/dev/null | tail -n +3 | while read -r old; do
    [ "${old%/}" = "$tree" ] && continue
    log "removing old tree $old"
    rm -rf "$old"
done
