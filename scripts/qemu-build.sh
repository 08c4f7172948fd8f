#!/bin/sh
# qemu-build.sh - build the patched QEMU (x86_64-softmmu) with hw-model
# linked into its nvme controller. Called by `make qemu` (both versions) and
# `make qemu STACK=10.0|7.2` (one).
#
#   QEMU_VERSION=10.0 (default): Debian bookworm-backports' qemu 10.0.2;
#   QEMU_VERSION=7.2: Debian bookworm's qemu 7.2.
#
#   1. fetch the source into $ISP_CACHE/downloads and verify the upstream
#      tarball's pinned sha256: 7.2 with apt-get source (.dsc and Debian's
#      patches); 10.0 through the private bookworm-backports apt state
#      (scripts/apt-suite.sh), the orig tarball only: the mirror these
#      machines reach serves it but not the .dsc or .debian.tar.xz, so 10.0
#      is upstream 10.0.2 as Debian repacked it (+ds), without Debian's
#      patches. 10.0 also needs meson >= 1.5 and pycotap, both only in
#      bookworm-backports: their .debs (pinned sha256) are unpacked under
#      $ISP_CACHE/tools and put on PYTHONPATH, never installed;
#   2. unpack, apply qemu-patches/$QEMU_VERSION/series (the hooks), copy the
#      glue (qemu-patches/hw/nvme/) and hw-model into the tree, configure,
#      build;
#   3. copy the binary to $BUILD/qemu-$QEMU_VERSION/qemu-system-x86_64.bin,
#      write the wrapper $BUILD/qemu-$QEMU_VERSION/qemu-system-x86_64 (adds
#      the firmware directories) and point $BUILD/qemu-$QEMU_VERSION/build
#      at the build tree.
#
# Caches, outside the work tree:
#   $ISP_CACHE/qemu/<version>-<patch key>/  patched, configured source+build
#     tree, keyed by package version, patch series and configure options;
#     the two newest trees of each QEMU version are kept;
#   <tree>/.hw-key  hw-model sources the binary was linked with: a change
#     there only re-copies libhwmodel.a and its headers and relinks;
#   <tree>/.glue-key  glue sources the binary was built with: a change there
#     only re-copies the changed files and recompiles them (ninja sees the
#     new mtime), so editing isp.c rebuilds isp.o and relinks.
#   <tree>.lock  one build of that tree at a time (scripts/lock-lib.sh); a
#     build of another version or key does not wait for it. A waiting
#     build says who holds it: pid, checkout, since when.
#   $ISP_CACHE/downloads/.qemu-<version>.lock  the fetch of one version.
# QEMU_DEB_VERSION=<version> pins another 7.2 source package version.
#
# QEMU_FLAVOR=fuzz (10.0 only; scripts/qemu-fuzz.sh): the same patched
# source built by clang with --enable-fuzzing --enable-asan, target
# qemu-fuzz-x86_64 (libFuzzer, docs/devel/fuzzing.rst), in its own tree
# $ISP_CACHE/qemu/fuzz-<version>-<key>/ (the key covers the configure
# options, so it never shares or prunes a system tree), copied to
# $BUILD/qemu-fuzz-10.0/qemu-fuzz-x86_64.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
ISP_CACHE=${ISP_CACHE:-/var/cache/isp-ssd}
DL=$ISP_CACHE/downloads
QEMU_VERSION=${QEMU_VERSION:-10.0}
PATCHES=$ROOT/qemu-patches
FIRMWARE="/usr/share/seabios /usr/share/qemu /usr/lib/ipxe/qemu"
# virtio-9p (--enable-virtfs) shares a host folder with the guest
# (scripts/vm-lib.sh, ISP_SHARE); 7.2 needs libcap-ng and both look for
# xattr support, which --without-default-features would turn off.
CONFIGURE_OPTS="--target-list=x86_64-softmmu --without-default-features
 --enable-tcg --enable-kvm --enable-fdt=system --enable-slirp
 --enable-virtfs --enable-attr --enable-cap-ng
 --enable-trace-backends=log --disable-werror --disable-docs"
case $QEMU_VERSION in
7.2)
    ORIG=qemu_7.2+dfsg.orig.tar.xz
    ORIG_SHA256=91aca71520040edc40b8d437aa3004dae614f58e286cf653ee8996c07af2962f
    ;;
10.0)
    SUITE=bookworm-backports
    DEB_VERSION=1:10.0.2+ds-2+deb13u1~bpo12+1
    ORIG=qemu_10.0.2+ds.orig.tar.xz
    ORIG_SHA256=0901da33844a331bf8b3602b9c1fbd178e60b737c8e3ade678255bd090c9b9f1
    # configure's offline venv (python/wheels/ is empty in +ds) needs them
    TOOL_DEBS="meson=1.7.0-1~bpo12+1:4b86d2f2cb4431d03826fa4b2c3a89508edeb8140509e7e4b285285ec3175bbe
        python3-pycotap=1.3.1-2~bpo12+1:3774be6e79318192059aa72e7b7a701e8b99bba2147befcc715650a0da65ca96"
    # +ds has no firmware blobs to install
    CONFIGURE_OPTS="$CONFIGURE_OPTS --disable-install-blobs"
    ;;
*)
    echo "qemu-build: error: QEMU_VERSION=$QEMU_VERSION: use 10.0 or 7.2" >&2
    exit 1
    ;;
esac
QEMU_FLAVOR=${QEMU_FLAVOR:-system}
TARGET_BIN=qemu-system-x86_64
TREE_PREFIX=
OUT=$BUILD/qemu-$QEMU_VERSION
case $QEMU_FLAVOR in
system) ;;
fuzz)
    [ "$QEMU_VERSION" = 10.0 ] || {
        echo "qemu-build: error: QEMU_FLAVOR=fuzz is built for QEMU 10.0 only" >&2
        exit 1
    }
    # Only what generic-fuzz needs to drive the nvme device on pc/q35
    # under qtest: no KVM, slirp, virtfs (fewer objects to build).
    CONFIGURE_OPTS="--cc=clang --cxx=clang++ --target-list=x86_64-softmmu
 --without-default-features --enable-tcg --enable-fdt=system
 --enable-fuzzing --enable-asan
 --enable-trace-backends=log --disable-werror --disable-docs
 --disable-install-blobs"
    TARGET_BIN=qemu-fuzz-x86_64
    TREE_PREFIX=fuzz-
    OUT=$BUILD/qemu-fuzz-$QEMU_VERSION
    ;;
*)
    echo "qemu-build: error: QEMU_FLAVOR=$QEMU_FLAVOR: use system or fuzz" >&2
    exit 1
    ;;
esac

log() { echo "qemu-build $QEMU_VERSION: $*"; }
die() { echo "qemu-build $QEMU_VERSION: error: $*" >&2; exit 1; }

sha() { sha256sum | cut -c1-16; }

mkdir -p "$DL" "$ISP_CACHE/qemu" "$OUT"
# The real directory: the wrapper names its binary by this path, and a
# BUILD reached through a symlink (a scratch tree of tests/doc-commands.sh)
# must not leave a wrapper pointing into that scratch tree.
OUT=$(cd "$OUT" && pwd -P)
# shellcheck disable=SC1091
. "$ROOT/scripts/lock-lib.sh"
LOCK_LOG="qemu-build $QEMU_VERSION"

# --- source package ---------------------------------------------------------
# shellcheck disable=SC2329
fetch_72() {
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
}

# 10.0: the orig tarball by the URI the suite's Sources index names; the
# tools from the same suite, unpacked. apt-helper checks the sha256 while it
# downloads.
fetch_10() {
    if ! sha256sum "$DL/$ORIG" 2>/dev/null | grep -q "^$ORIG_SHA256 "; then
        # shellcheck disable=SC1091
        . "$ROOT/scripts/apt-suite.sh"
        apt_suite "$SUITE"
        # Lines are 'URI' FILE SIZE SHA256:...; the URI is percent-encoded
        # (+ is %2b), so the file field names the tarball.
        uri=$(cd "$DL" && apt_suite_get source --print-uris -q "qemu=$DEB_VERSION" |
            awk -v f="$ORIG" '$2 == f { u = $1; gsub(/\047/, "", u); print u }')
        [ -n "$uri" ] || die "the $SUITE lists name no $ORIG for qemu $DEB_VERSION"
        log "downloading $uri"
        /usr/lib/apt/apt-helper -q download-file "$uri" "$DL/$ORIG.part" \
            "SHA256:$ORIG_SHA256" >"$DL/apt.log" 2>&1 ||
            { tail -n 5 "$DL/apt.log" >&2; die "download of $ORIG failed"; }
        mv -f "$DL/$ORIG.part" "$DL/$ORIG"
    fi
    TOOLS=$ISP_CACHE/tools/$SUITE
    for t in $TOOL_DEBS; do
        pkg=${t%%:*}
        sum=${t#*:}
        deb=$(echo "$pkg" | sed 's/=/_/')_all.deb
        if ! sha256sum "$DL/$deb" 2>/dev/null | grep -q "^$sum "; then
            # shellcheck disable=SC1091
            . "$ROOT/scripts/apt-suite.sh"
            apt_suite "$SUITE"
            (cd "$DL" && apt_suite_get download -q "$pkg") >"$DL/apt.log" 2>&1 ||
                { tail -n 5 "$DL/apt.log" >&2; die "apt-get download $pkg ($SUITE) failed"; }
            sha256sum "$DL/$deb" | grep -q "^$sum " ||
                die "$DL/$deb: sha256 is not the pinned $sum"
        fi
        if [ ! -f "$TOOLS/.$deb" ]; then
            mkdir -p "$TOOLS"
            dpkg-deb -x "$DL/$deb" "$TOOLS"
            touch "$TOOLS/.$deb"
        fi
    done
    PYTHONPATH=$TOOLS/usr/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}
    export PYTHONPATH
    version=${DEB_VERSION#*:}
    version=${version%%-*}-orig
}

# One fetch of a version at a time (two would write the same files).
lock_take 8 "$DL/.qemu-$QEMU_VERSION.lock" "the qemu $QEMU_VERSION download"
if [ "$QEMU_VERSION" = 7.2 ]; then
    fetch_72
else
    fetch_10
fi
exec 8>&-
log "source: qemu $version"

# --- hw-model (this checkout's build, no lock) ------------------------------
make -s -C "$ROOT/hw-model" BUILD="$BUILD"
HWLIB=$BUILD/hw-model/libhwmodel.a
[ -f "$HWLIB" ] || die "hw-model did not produce $HWLIB"
hw_key=$(cd "$ROOT" && find hw-model/src hw-model/include hw-model/Makefile \
    -type f | LC_ALL=C sort | xargs sha256sum | sha)

got=$(sha256sum "$DL/$ORIG" 2>/dev/null | cut -d' ' -f1 || true)
[ "$got" = "$ORIG_SHA256" ] ||
    die "$DL/$ORIG: sha256 '$got' is not the pinned $ORIG_SHA256 (corrupt download or changed upstream tarball; delete it to download again)"

# --- patched, configured tree -----------------------------------------------
# The key covers what needs a fresh tree (hooks, configure options), not the
# glue sources: those are copied in below and rebuilt incrementally.
pdir=$PATCHES/$QEMU_VERSION
series=$pdir/series
[ -f "$series" ] || die "$series missing"
patches=$(grep -v -e '^#' -e '^[[:space:]]*$' "$series")
patch_key=$( (cd "$pdir" && cat series $patches; echo "$CONFIGURE_OPTS") | sha)
tree=$ISP_CACHE/qemu/$TREE_PREFIX$version-$patch_key
src=$tree/src
bld=$tree/build

# Two builds of this tree (two checkouts, or make -j) must not share it
# half-built; until the binary is copied out, since another checkout may
# relink it with its own hw-model.
lock_take 9 "$tree.lock" "qemu $QEMU_VERSION tree $version-$patch_key"

if [ ! -f "$tree/.patched" ]; then
    rm -rf "$tree"
    mkdir -p "$tree"
    if [ "$QEMU_VERSION" = 7.2 ]; then
        log "unpacking qemu $version (Debian patches applied)"
        dpkg-source -q -x "$DL/$dsc" "$src" >"$tree/unpack.log" 2>&1 ||
            { tail -n 20 "$tree/unpack.log" >&2; die "dpkg-source -x $dsc failed"; }
    else
        log "unpacking $ORIG (no Debian patches: the mirror has no .dsc)"
        mkdir -p "$src"
        tar -xJf "$DL/$ORIG" -C "$src" --strip-components=1 ||
            die "cannot unpack $DL/$ORIG"
        # meson setup wants pc-bios/edk2-*.fd.bz2 whenever bzip2 is on PATH
        # (meson.build: unpack_edk2_blobs; no configure option turns it
        # off), and +ds removed them. Empty bzip2 streams in their place:
        # qemu-system-x86_64 does not use them and --disable-install-blobs
        # installs nothing.
        if command -v bzip2 >/dev/null 2>&1; then
            for f in $(sed -n "s/^ *'\\(edk2-[a-z0-9_-]*\\.fd\\)',$/\\1/p" \
                "$src/pc-bios/meson.build"); do
                [ -f "$src/pc-bios/$f.bz2" ] || bzip2 -c </dev/null >"$src/pc-bios/$f.bz2"
            done
        fi
    fi
    for p in $patches; do
        log "applying $p"
        if ! patch -d "$src" -p1 --batch --forward --fuzz=0 --no-backup-if-mismatch \
            -s <"$pdir/$p" >"$tree/patch.log" 2>&1; then
            cat "$tree/patch.log" >&2
            rm -rf "$tree"
            die "qemu-patches/$QEMU_VERSION/$p does not apply to qemu $version"
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
    [ ! -x "$bld/$TARGET_BIN" ]; then
    if [ ! -x "$bld/$TARGET_BIN" ]; then
        log "building $TARGET_BIN (cold: 2-5 min on 2 cores, clang+ASan longer; log: $tree/build.log)"
    elif [ "$old_hw" != "$hw_key" ]; then
        log "hw-model changed: relinking"
    else
        log "glue changed: recompiling it"
    fi
    if [ "$old_hw" != "$hw_key" ]; then
        # the archive is a link argument, not a tracked input: force the relink
        rm -f "$bld/$TARGET_BIN"
    fi
    # a failed build must not look up to date next time
    rm -f "$tree/.hw-key" "$tree/.glue-key"
    start=$(date +%s)
    if ! ninja -C "$bld" -j "$(nproc)" "$TARGET_BIN" >"$tree/build.log" 2>&1; then
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
if [ "$QEMU_FLAVOR" = fuzz ]; then
    cp -f "$bld/$TARGET_BIN" "$OUT/$TARGET_BIN.tmp"
    mv -f "$OUT/$TARGET_BIN.tmp" "$OUT/$TARGET_BIN"
    ln -sfn "$bld" "$OUT/build"
    ln -sfn "$src" "$OUT/src"
    touch "$tree"
    exec 9>&-
    ls -1dt "$ISP_CACHE/qemu/fuzz-$QEMU_VERSION"[.+]*/ 2>/dev/null | tail -n +3 | while read -r old; do
        old=${old%/}
        [ "$old" = "$tree" ] && continue
        lock_busy "$old.lock" && continue
        log "removing old tree $old"
        rm -rf "$old" "$old.lock" "$old.lock.owner"
    done
    exit 0
fi
for d in $FIRMWARE; do
    [ -d "$d" ] || die "firmware directory $d missing (install seabios qemu-system-data ipxe-qemu)"
done
# A private copy: another checkout sharing the cached tree may relink the
# tree's binary with its own hw-model while this one runs tests.
cp -f "$bld/qemu-system-x86_64" "$OUT/qemu-system-x86_64.bin.tmp"
mv -f "$OUT/qemu-system-x86_64.bin.tmp" "$OUT/qemu-system-x86_64.bin"
wrapper=$OUT/qemu-system-x86_64
{
    echo '#!/bin/sh'
    echo "# Generated by scripts/qemu-build.sh: the patched QEMU $QEMU_VERSION with Debian firmware."
    printf 'exec %s' "$OUT/qemu-system-x86_64.bin"
    for d in $FIRMWARE; do printf ' -L %s' "$d"; done
    echo ' "$@"'
} >"$wrapper.tmp"
chmod +x "$wrapper.tmp"
mv -f "$wrapper.tmp" "$wrapper"
ln -sfn "$bld" "$OUT/build"
# ninja in that tree (qtest) re-runs meson when it wants: same tools
printf '%s\n' "PYTHONPATH=${PYTHONPATH:-}" >"$OUT/env"

# Keep this tree and the one of this version used before it; older ones
# only cost disk. The other version's trees are not this build's to prune.
touch "$tree"
exec 9>&-
ls -1dt "$ISP_CACHE/qemu/$QEMU_VERSION"[.+]*/ 2>/dev/null | tail -n +3 | while read -r old; do
    old=${old%/}
    [ "$old" = "$tree" ] && continue
    # another build may be using it right now
    if lock_busy "$old.lock"; then
        log "keeping old tree $old: $(lock_held_by "$old.lock") builds it"
        continue
    fi
    log "removing old tree $old"
    rm -rf "$old" "$old.lock" "$old.lock.owner"
done
