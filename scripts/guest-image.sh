#!/bin/bash
# guest-image.sh - build the guest: Debian's kernel and a small initramfs.
# Called by `make guest` after the guest programs are built into
# $BUILD/guest-bin/.
#
#   1. apt-get download the kernel package that linux-image-amd64 depends on
#      now in the flavour's suite (into $ISP_CACHE/downloads) and unpack it
#      once per version;
#   2. take vmlinuz, the nvme modules and, recursively, the modules they
#      depend on (modinfo -F depends), decompressed;
#   3. pack busybox-static, tests/vm/guest-init.sh as /init, every program
#      in $BUILD/guest-bin/ (and the reis CLI when built), debug info
#      stripped, and the Debian tools of GUEST_TOOLS as packaged (default
#      nvme-cli's nvme and fio); a dynamically linked program brings its
#      loader (PT_INTERP) and the closure of its DT_NEEDED libraries,
#      resolved like ld.so does (RUNPATH, then the multiarch directories),
#      into $BUILD/guest/<flavour>/initramfs.cpio.gz; copy the kernel to
#      $BUILD/guest/<flavour>/vmlinuz. The default flavour is also linked
#      as $BUILD/guest/vmlinuz and initramfs.cpio.gz.
#
# GUEST_KERNEL picks the flavour, named after the Debian suite it comes from:
#   bookworm            (default) 6.1, from the machine's own apt sources
#   bookworm-backports  6.12, through a private apt state of that suite
#                       (scripts/apt-suite.sh); /etc/apt is not touched
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
ISP_CACHE=${ISP_CACHE:-/var/cache/isp-ssd}
DL=$ISP_CACHE/downloads
DEFAULT_KERNEL=bookworm
GUEST_KERNEL=${GUEST_KERNEL:-$DEFAULT_KERNEL}
OUT=$BUILD/guest/$GUEST_KERNEL
MODULES="nvme"

log() { echo "guest-image: $*"; }
die() { echo "guest-image: error: $*" >&2; exit 1; }

case $GUEST_KERNEL in
*[!a-z0-9-]* | "") die "GUEST_KERNEL='$GUEST_KERNEL' is not a Debian suite name" ;;
esac
mkdir -p "$DL" "$OUT" "$ISP_CACHE/kernel"

# k_apt_get, k_apt_cache, k_apt_update: apt over the flavour's suite.
if [ "$GUEST_KERNEL" = "$DEFAULT_KERNEL" ]; then
    k_apt_get() { apt-get "$@"; }
    k_apt_cache() { apt-cache "$@"; }
    k_apt_update() { [ "$(id -u)" = 0 ] && apt-get update -qq >/dev/null 2>&1; }
else
    . "$ROOT/scripts/apt-suite.sh"
    apt_suite "$GUEST_KERNEL"
    k_apt_get() { apt_suite_get "$@"; }
    k_apt_cache() { apt_suite_cache "$@"; }
    k_apt_update() { apt_suite_update; }
fi

# download PKG VERSION: the .deb path, fetched once.
download() {
    deb=$DL/${1}_${2#*:}_amd64.deb
    if [ ! -f "$deb" ]; then
        # stale package lists name files the archive no longer has: refresh once
        (cd "$DL" && k_apt_get download -q "$1=$2" >"$DL/apt.log" 2>&1) ||
            { k_apt_update &&
                (cd "$DL" && k_apt_get download -q "$1=$2" >"$DL/apt.log" 2>&1); } || {
            tail -n 5 "$DL/apt.log" >&2
            die "apt-get download $1=$2 failed"
        }
    fi
    [ -f "$deb" ] || die "$deb missing after apt-get download"
    echo "$deb"
}

# --- kernel package -----------------------------------------------------------
exec 9>"$ISP_CACHE/guest.lock"
flock 9

meta_ver=$(k_apt_cache policy linux-image-amd64 2>/dev/null | sed -n 's/^ *Candidate: //p')
[ -n "$meta_ver" ] && [ "$meta_ver" != "(none)" ] ||
    die "apt knows no linux-image-amd64 in $GUEST_KERNEL (package lists missing?)"
meta_deb=$(download linux-image-amd64 "$meta_ver")
dep=$(dpkg-deb -f "$meta_deb" Depends | tr ',' '\n' | grep -m1 'linux-image-[0-9]') ||
    die "$meta_deb depends on no linux-image-<abi> package"
kpkg=$(echo "$dep" | sed -n 's/^ *\(linux-image-[^ ]*\).*/\1/p')
kver=$(echo "$dep" | sed -n 's/.*(= *\([^)]*\)).*/\1/p')
[ -n "$kpkg" ] && [ -n "$kver" ] || die "cannot parse dependency '$dep'"
kdeb=$(download "$kpkg" "$kver")

kdir=$ISP_CACHE/kernel/${kpkg}_$kver
if [ ! -f "$kdir/.unpacked" ]; then
    log "unpacking $kpkg $kver"
    rm -rf "$kdir"
    mkdir -p "$kdir"
    dpkg-deb -x "$kdeb" "$kdir"
    touch "$kdir/.unpacked"
fi
krel=$(ls -1 "$kdir/lib/modules" | head -n 1)
[ -n "$krel" ] && [ -f "$kdir/boot/vmlinuz-$krel" ] || die "$kdeb has no vmlinuz"
moddir=$kdir/lib/modules/$krel

# --- initramfs tree -------------------------------------------------------------
stage=$(mktemp -d "$OUT/.stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
# mktemp's 0700 would become the guest's /: unprivileged programs (tests
# that drop root) could not reach anything.
chmod 755 "$stage"
mkdir -p "$stage/bin" "$stage/etc" "$stage/lib/modules" "$stage/dev" \
    "$stage/proc" "$stage/sys" "$stage/tmp"

# Module index: normalized name (- and _ are the same) -> file.
find "$moddir/kernel" -name '*.ko' -o -name '*.ko.xz' -o -name '*.ko.zst' \
    -o -name '*.ko.gz' >"$stage/.all"
modfile() {
    awk -v want="$(echo "$1" | tr '-' '_')" '{
        b = $0; sub(/.*\//, "", b); sub(/\.ko.*/, "", b); gsub(/-/, "_", b)
        if (b == want) { print; found = 1; exit }
    } END { exit !found }' "$stage/.all"
}

# add_module NAME: its dependencies first, then itself, each once.
# (recursive: `local` keeps each level's variables)
add_module() {
    local name src rel dst d
    name=$(echo "$1" | tr '-' '_')
    grep -qx "$name" "$stage/.seen" 2>/dev/null && return 0
    echo "$name" >>"$stage/.seen"
    src=$(modfile "$name") || die "module $1 not found in $kpkg"
    rel=${src#"$moddir/"}
    dst=$stage/lib/modules/${rel%.ko*}.ko
    mkdir -p "$(dirname "$dst")"
    case $src in
    *.ko.xz) xz -dc "$src" >"$dst" ;;
    *.ko.zst) zstd -qdc "$src" >"$dst" ;;
    *.ko.gz) gzip -dc "$src" >"$dst" ;;
    *) cp "$src" "$dst" ;;
    esac
    for d in $(modinfo -F depends "$dst" | tr ',' ' '); do
        add_module "$d"
    done
    echo "${dst#"$stage/lib/modules/"}" >>"$stage/etc/isp-modules"
}
: >"$stage/etc/isp-modules"
for m in $MODULES; do
    add_module "$m"
done
# --- NVMe over Fabrics (docs/fabric.md) ---------------------------------------
# A kernel with nvmet passthru (6.12; Debian's 6.1 lacks
# CONFIG_NVME_TARGET_PASSTHRU) also gets the target, the TCP initiator and
# virtio-net, listed apart in /etc/isp-fabric-modules so that only the
# fabric scripts load them, and the guest side of those scripts in /bin.
if grep -qx 'CONFIG_NVME_TARGET_PASSTHRU=y' "$kdir/boot/config-$krel" 2>/dev/null; then
    mv "$stage/etc/isp-modules" "$stage/etc/isp-modules.base"
    : >"$stage/etc/isp-modules"
    for m in configfs nvmet nvmet-tcp nvme-fabrics nvme-tcp virtio_net; do
        add_module "$m"
    done
    mv "$stage/etc/isp-modules" "$stage/etc/isp-fabric-modules"
    mv "$stage/etc/isp-modules.base" "$stage/etc/isp-modules"
    for f in "$ROOT"/scripts/fabric-lib.sh "$ROOT"/scripts/fabric-target.sh \
        "$ROOT"/scripts/fabric-connect.sh "$ROOT"/tests/vm/fabric-node.sh; do
        install -m 755 "$f" "$stage/bin/$(basename "$f")"
    done
    log "fabric modules: $(tr '\n' ' ' <"$stage/etc/isp-fabric-modules")"
fi
rm -f "$stage/.all" "$stage/.seen"

busybox=$(dpkg -L busybox-static 2>/dev/null | grep -m1 '/bin/busybox$') ||
    die "busybox-static is not installed (run scripts/setup-deps.sh)"
cp "$busybox" "$stage/bin/busybox"
cp "$ROOT/tests/vm/guest-init.sh" "$stage/init"
chmod 755 "$stage/init"

# Debian programs that go in as packaged (setup-deps.sh installs them);
# GUEST_TOOLS="" leaves them out.
GUEST_TOOLS=${GUEST_TOOLS-/usr/sbin/nvme /usr/bin/fio}
LIBDIRS="/lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64 /usr/lib64 /lib /usr/lib"

# interp FILE: its program interpreter, empty for a static program.
interp() {
    readelf -l "$1" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p'
}

# needed FILE / runpath FILE: its DT_NEEDED names / RUNPATH (or RPATH) dirs.
needed() {
    readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
}
runpath() {
    readelf -d "$1" 2>/dev/null | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]/\1/p' |
        sed "s|\$ORIGIN|$(dirname "$1")|g" | tr ':' ' '
}

# add_libs FILE: the loader and every library FILE needs, transitively,
# into the stage where ld.so looks without a cache (/lib/x86_64-linux-gnu).
add_libs() {
    local q
    q=$(interp "$1")
    [ -n "$q" ] || return 0
    if [ ! -e "$stage$q" ]; then
        mkdir -p "$stage$(dirname "$q")"
        cp -L "$q" "$stage$q" || die "program interpreter $q of $1 missing"
    fi
    add_needed "$1"
}
add_needed() {
    local f=$1 n d p
    for n in $(needed "$f"); do
        [ -e "$stage/lib/x86_64-linux-gnu/$n" ] && continue
        p=""
        for d in $(runpath "$f") $LIBDIRS; do
            if [ -e "$d/$n" ]; then
                p=$d/$n
                break
            fi
        done
        [ -n "$p" ] || die "$f needs $n, found in none of: $(runpath "$f") $LIBDIRS"
        cp -L "$p" "$stage/lib/x86_64-linux-gnu/$n"
        nlibs=$((nlibs + 1))
        add_needed "$p"
    done
}

# add_prog FILE [NAME]: a program into /bin, without its debug info, with
# its libraries when it is dynamically linked.
add_prog() {
    local dst=$stage/bin/${2:-$(basename "$1")}
    strip --strip-debug -o "$dst" "$1" 2>/dev/null || cp "$1" "$dst"
    chmod 755 "$dst"
    add_libs "$1"
}

mkdir -p "$stage/lib/x86_64-linux-gnu"
n=0 nlibs=0 ntools=0
if [ -d "$BUILD/guest-bin" ]; then
    for p in "$BUILD"/guest-bin/*; do
        [ -f "$p" ] && [ -x "$p" ] || continue
        add_prog "$p"
        n=$((n + 1))
    done
fi
[ "$n" -gt 0 ] || log "warning: no guest programs in $BUILD/guest-bin"
[ -x "$BUILD/host-lib/reis" ] && add_prog "$BUILD/host-lib/reis" reis
# The nvme-cli recipes, which test_vm_nvme_cli runs from the document itself.
mkdir -p "$stage/usr/share/doc/isp-ssd"
cp "$ROOT/docs/nvme-cli.md" "$stage/usr/share/doc/isp-ssd/"
for t in $GUEST_TOOLS; do
    [ -x "$t" ] || die "$t is not installed (run scripts/setup-deps.sh)"
    add_prog "$t"
    ntools=$((ntools + 1))
done

# --- pack -------------------------------------------------------------------------
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
    gzip -9n >"$OUT/initramfs.cpio.gz.tmp"
mv -f "$OUT/initramfs.cpio.gz.tmp" "$OUT/initramfs.cpio.gz"
cmp -s "$kdir/boot/vmlinuz-$krel" "$OUT/vmlinuz" ||
    cp "$kdir/boot/vmlinuz-$krel" "$OUT/vmlinuz"
echo "$krel" >"$OUT/kernel-release"
if [ "$GUEST_KERNEL" = "$DEFAULT_KERNEL" ]; then
    # the paths scripts/vm-lib.sh boots when no flavour is asked for
    for f in vmlinuz initramfs.cpio.gz kernel-release; do
        ln -sfn "$GUEST_KERNEL/$f" "$BUILD/guest/$f"
    done
fi
log "$GUEST_KERNEL: kernel $krel, modules: $(tr '\n' ' ' <"$stage/etc/isp-modules")"
log "$n guest programs, $ntools Debian tools ($GUEST_TOOLS) with $nlibs shared libraries" \
    "($(du -sk "$stage/lib/x86_64-linux-gnu" | cut -f1) KiB unpacked);" \
    "$OUT/initramfs.cpio.gz $(du -k "$OUT/initramfs.cpio.gz" | cut -f1) KiB"
