#!/bin/bash
# guest-image.sh - build the guest: Debian's kernel and a small initramfs.
# Called by `make guest` after the guest programs are built into
# $BUILD/guest-bin/.
#
#   1. apt-get download the kernel package that linux-image-amd64 depends on
#      now in the flavour's suite (into $ISP_CACHE/downloads) and unpack it
#      once per version;
#   2. take vmlinuz, the nvme modules and, recursively, the modules they
#      depend on (modinfo -F depends), decompressed (scripts/guest-kernel.sh);
#      the virtio-9p modules of the shared host folder in a list of their own;
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
#
# Packing (gzip -9 of ~75 MB) is most of the time, so it happens only when
# an input changed: $OUT/initramfs.manifest lists the options, the kernel
# package and the sha256 of every file that goes in (programs, scripts,
# busybox, tools, their loader and libraries, this script), each with the
# size and mtime it had when hashed, so that an unchanged file is not read
# again and a relinked but identical program does not repack. The image is
# written under a temporary name and renamed, the manifest (which records
# the image's own size and mtime) only after it: an interrupted or failed
# run leaves no image that looks current. Delete the manifest to force a
# repack.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
ISP_CACHE=${ISP_CACHE:-/var/cache/isp-ssd}
DL=$ISP_CACHE/downloads
DEFAULT_KERNEL=bookworm
GUEST_KERNEL=${GUEST_KERNEL:-$DEFAULT_KERNEL}
OUT=$BUILD/guest/$GUEST_KERNEL
MODULES="nvme"
SHARE_MODULES="virtio_pci 9pnet_virtio 9p"

log() { echo "guest-image: $*"; }
die() { echo "guest-image: error: $*" >&2; exit 1; }

case $GUEST_KERNEL in
*[!a-z0-9-]* | "") die "GUEST_KERNEL='$GUEST_KERNEL' is not a Debian suite name" ;;
esac
mkdir -p "$DL" "$OUT" "$ISP_CACHE/kernel"
# guest_kernel, modules_index, add_module, has_module, modules_done
. "$ROOT/scripts/guest-kernel.sh"

# --- kernel package -----------------------------------------------------------
exec 9>"$ISP_CACHE/guest.lock"
flock 9
guest_kernel "$GUEST_KERNEL"
# The shared cache is done with (an unpacked kernel is never removed):
# from here on only this build's $OUT is written, so only its lock is held
# and other worktrees' builds of the same flavour run meanwhile.
exec 8>"$OUT/.lock"
flock 8
exec 9>&-
# what a killed run (no EXIT trap) left behind
rm -rf "$OUT"/.stage.* "$OUT"/.initramfs.* "$OUT"/.manifest.* "$OUT"/initramfs.cpio.gz.tmp
# A kernel with nvmet passthru also gets the fabric parts (below).
fabric=0
grep -qx 'CONFIG_NVME_TARGET_PASSTHRU=y' "$kdir/boot/config-$krel" 2>/dev/null && fabric=1
FABRIC_SCRIPTS="$ROOT/scripts/fabric-lib.sh $ROOT/scripts/fabric-target.sh
    $ROOT/scripts/fabric-connect.sh $ROOT/tests/vm/fabric-node.sh"

# --- the programs and their libraries ---------------------------------------------
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

# closure FILE: for a dynamically linked FILE, its loader (interps) and,
# transitively, every library it needs, resolved like ld.so does; a name
# is resolved once, by whoever needs it first, since all of them land in
# one directory of the stage (/lib/x86_64-linux-gnu, where ld.so looks
# without a cache).
declare -A lib_seen=()
interps=() lib_names=() lib_paths=()
closure() {
    local q
    q=$(interp "$1")
    [ -n "$q" ] || return 0
    [ -e "$q" ] || die "program interpreter $q of $1 missing"
    case " ${interps[*]} " in *" $q "*) ;; *) interps+=("$q") ;; esac
    closure_needed "$1"
}
closure_needed() {
    local f=$1 n d p
    for n in $(needed "$f"); do
        [ -z "${lib_seen[$n]:-}" ] || continue
        p=""
        for d in $(runpath "$f") $LIBDIRS; do
            if [ -e "$d/$n" ]; then
                p=$d/$n
                break
            fi
        done
        [ -n "$p" ] || die "$f needs $n, found in none of: $(runpath "$f") $LIBDIRS"
        lib_seen[$n]=$p
        lib_names+=("$n")
        lib_paths+=("$p")
        closure_needed "$p"
    done
}

# progs: what goes into /bin (path and name), in packing order.
progs=() prog_names=()
if [ -d "$BUILD/guest-bin" ]; then
    for p in "$BUILD"/guest-bin/*; do
        [ -f "$p" ] && [ -x "$p" ] || continue
        progs+=("$p") prog_names+=("$(basename "$p")")
    done
fi
n=${#progs[@]}
[ "$n" -gt 0 ] || log "warning: no guest programs in $BUILD/guest-bin"
if [ -x "$BUILD/host-lib/reis" ]; then
    progs+=("$BUILD/host-lib/reis") prog_names+=(reis)
fi
ntools=0
for t in $GUEST_TOOLS; do
    [ -x "$t" ] || die "$t is not installed (run scripts/setup-deps.sh)"
    progs+=("$t") prog_names+=("$(basename "$t")")
    ntools=$((ntools + 1))
done
for p in "${progs[@]}"; do
    closure "$p"
done
nlibs=${#lib_names[@]}
busybox=$(dpkg -L busybox-static 2>/dev/null | grep -m1 '/bin/busybox$') ||
    die "busybox-static is not installed (run scripts/setup-deps.sh)"

# --- manifest: repack only when an input changed -------------------------------
manifest=$OUT/initramfs.manifest
image=$OUT/initramfs.cpio.gz
inputs=("$ROOT/scripts/guest-image.sh" "$ROOT/scripts/guest-kernel.sh"
    "$ROOT/tests/vm/guest-init.sh"
    "$ROOT"/docs/*.md "$busybox" "$kdeb" "${progs[@]}")
[ -f "$ROOT/README.md" ] && inputs+=("$ROOT/README.md")
# shellcheck disable=SC2206
[ "$fabric" = 0 ] || inputs+=($FABRIC_SCRIPTS)
inputs+=(${interps[@]+"${interps[@]}"} ${lib_paths[@]+"${lib_paths[@]}"})
# the previous run's "in SHA256 SIZE MTIME PATH" lines: a file whose size
# and mtime are unchanged keeps its hash
declare -A known=()
if [ -f "$manifest" ]; then
    while read -r tag sum size mtime path; do
        [ "$tag" = in ] && known[$path]="$size $mtime $sum"
    done <"$manifest"
fi
new_manifest=$(mktemp "$OUT/.manifest.XXXXXX")
trap 'rm -f "$new_manifest"' EXIT
{
    echo "# scripts/guest-image.sh: what $GUEST_KERNEL/initramfs.cpio.gz was packed from"
    echo "opt MODULES=$MODULES"
    echo "opt SHARE_MODULES=$SHARE_MODULES"
    echo "opt GUEST_TOOLS=$GUEST_TOOLS"
    echo "kernel $kpkg $kver $krel"
    for f in "${inputs[@]}"; do
        st=$(stat -L -c '%s %.9Y' "$f") || die "cannot stat input $f"
        k=${known[$f]:-}
        if [ -n "$k" ] && [ "${k% *}" = "$st" ]; then
            sum=${k##* }
        else
            sum=$(sha256sum <"$f") || die "cannot read input $f"
            sum=${sum%% *}
        fi
        echo "in $sum $st $f"
    done
} >"$new_manifest"
# what decides: options, kernel and contents (not sizes and mtimes)
manifest_key() {
    sed -e '/^out /d' -e 's/^in \([0-9a-f]*\) [0-9]* [0-9.]* /in \1 /' "$1"
}
# image_stat: the image's size and mtime, as the manifest's "out" line
image_stat() { stat -c 'out %s %.9Y' "$image" 2>/dev/null; }

# link_outputs: the kernel beside the image, and the default flavour's
# links (the paths scripts/vm-lib.sh boots when no flavour is asked for).
link_outputs() {
    cmp -s "$kdir/boot/vmlinuz-$krel" "$OUT/vmlinuz" ||
        cp "$kdir/boot/vmlinuz-$krel" "$OUT/vmlinuz"
    [ "$(cat "$OUT/kernel-release" 2>/dev/null)" = "$krel" ] ||
        echo "$krel" >"$OUT/kernel-release"
    if [ "$GUEST_KERNEL" = "$DEFAULT_KERNEL" ]; then
        for f in vmlinuz initramfs.cpio.gz kernel-release; do
            ln -sfn "$GUEST_KERNEL/$f" "$BUILD/guest/$f"
        done
    fi
}

if [ -f "$manifest" ] && [ -f "$image" ] &&
    [ "$(manifest_key "$manifest")" = "$(manifest_key "$new_manifest")" ] &&
    [ "$(sed -n '/^out /p' "$manifest")" = "$(image_stat)" ]; then
    link_outputs
    log "$GUEST_KERNEL: up to date ($n guest programs, $ntools Debian tools," \
        "${#inputs[@]} inputs unchanged since $manifest), not repacked"
    exit 0
fi
# From here on the old image no longer matches its inputs.
rm -f "$manifest"

# --- initramfs tree -------------------------------------------------------------
stage=$(mktemp -d "$OUT/.stage.XXXXXX")
packed=$OUT/.initramfs.$$
trap 'rm -rf "$stage" "$new_manifest" "$packed"' EXIT
# mktemp's 0700 would become the guest's /: unprivileged programs (tests
# that drop root) could not reach anything.
chmod 755 "$stage"
mkdir -p "$stage/bin" "$stage/etc" "$stage/lib/modules" "$stage/dev" \
    "$stage/proc" "$stage/sys" "$stage/tmp"

modules_index "$stage"
: >"$stage/etc/isp-modules"
for m in $MODULES; do
    add_module "$m" "$stage/etc/isp-modules"
done
# The shared host folder (virtio-9p, scripts/vm-lib.sh ISP_SHARE): loaded
# by /init only when the host shares one (isp.share=1).
: >"$stage/etc/isp-share-modules"
for m in $SHARE_MODULES; do
    if has_module "$m"; then
        add_module "$m" "$stage/etc/isp-share-modules"
    elif ! builtin_module "$m"; then
        log "warning: $kpkg has no $m: no shared folder in this guest"
    fi
done
# --- NVMe over Fabrics (docs/fabric.md) ---------------------------------------
# A kernel with nvmet passthru (6.12; Debian's 6.1 lacks
# CONFIG_NVME_TARGET_PASSTHRU) also gets the target, the TCP initiator and
# virtio-net, listed apart in /etc/isp-fabric-modules so that only the
# fabric scripts load them, and the guest side of those scripts in /bin.
if [ "$fabric" = 1 ]; then
    : >"$stage/etc/isp-fabric-modules"
    for m in configfs nvmet nvmet-tcp nvme-fabrics nvme-tcp virtio_net; do
        add_module "$m" "$stage/etc/isp-fabric-modules"
    done
    for f in $FABRIC_SCRIPTS; do
        install -m 755 "$f" "$stage/bin/$(basename "$f")"
    done
    log "fabric modules: $(tr '\n' ' ' <"$stage/etc/isp-fabric-modules")"
fi
modules_done

cp "$busybox" "$stage/bin/busybox"
cp "$ROOT/tests/vm/guest-init.sh" "$stage/init"
chmod 755 "$stage/init"

# Programs into /bin without their debug info, then the loaders and
# libraries of the dynamically linked ones (closure above).
mkdir -p "$stage/lib/x86_64-linux-gnu"
for i in "${!progs[@]}"; do
    dst=$stage/bin/${prog_names[$i]}
    strip --strip-debug -o "$dst" "${progs[$i]}" 2>/dev/null || cp "${progs[$i]}" "$dst"
    chmod 755 "$dst"
done
for q in ${interps[@]+"${interps[@]}"}; do
    mkdir -p "$stage$(dirname "$q")"
    cp -L "$q" "$stage$q"
done
for i in "${!lib_names[@]}"; do
    cp -L "${lib_paths[$i]}" "$stage/lib/x86_64-linux-gnu/${lib_names[$i]}"
done
# The documents: test_vm_nvme_cli runs the nvme-cli recipes from them, and
# test_vm_doc_cmds every other guest command block (README.md, "Commands in
# these documents are tested").
mkdir -p "$stage/usr/share/doc/isp-ssd"
cp "$ROOT"/docs/*.md "$stage/usr/share/doc/isp-ssd/"
[ -f "$ROOT/README.md" ] && cp "$ROOT/README.md" "$stage/usr/share/doc/isp-ssd/"

# --- pack -------------------------------------------------------------------------
# Under a temporary name, renamed when complete; the manifest comes last.
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
    gzip -9n >"$packed"
mv -f "$packed" "$image"
link_outputs
image_stat >>"$new_manifest"
mv -f "$new_manifest" "$manifest"
log "$GUEST_KERNEL: kernel $krel, modules: $(tr '\n' ' ' <"$stage/etc/isp-modules")"
log "$n guest programs, $ntools Debian tools ($GUEST_TOOLS) with $nlibs shared libraries" \
    "($(du -sk "$stage/lib/x86_64-linux-gnu" | cut -f1) KiB unpacked);" \
    "$image $(du -k "$image" | cut -f1) KiB"
