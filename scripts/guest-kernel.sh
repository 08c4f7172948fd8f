# shellcheck shell=bash
# guest-kernel.sh - sourced by scripts/guest-image.sh (the initramfs guest)
# and scripts/guest-debian.sh (the Debian guest): a guest flavour's kernel,
# and the modules of it a boot image needs. Callers set ROOT, ISP_CACHE and
# use set -eu, and define die().
#
#   guest_kernel SUITE     the kernel package that linux-image-amd64 depends
#                          on now in SUITE (bookworm: the machine's apt
#                          sources; any other: a private apt state,
#                          scripts/apt-suite.sh), downloaded into
#                          $ISP_CACHE/downloads and unpacked once under
#                          $ISP_CACHE/kernel; sets kpkg kver kdeb kdir krel
#                          moddir
#   modules_index STAGE    index $moddir's modules for add_module (a file in
#                          STAGE, removed by modules_done)
#   add_module NAME LIST   NAME's dependencies (modinfo -F depends), then NAME,
#                          each once, decompressed into STAGE/lib/modules/,
#                          their paths appended to LIST in load order
#   has_module NAME        whether the kernel has NAME as a module
#   builtin_module NAME    whether it has NAME built in
#   modules_done           drop the index

GK_DEFAULT_SUITE=bookworm

# gk_apt_get SUITE ARGS / gk_apt_cache SUITE ARGS / gk_apt_update SUITE
gk_apt_get() {
    local s=$1
    shift
    if [ "$s" = "$GK_DEFAULT_SUITE" ]; then
        apt-get "$@"
    else
        . "$ROOT/scripts/apt-suite.sh"
        apt_suite "$s"
        apt_suite_get "$@"
    fi
}
gk_apt_cache() {
    local s=$1
    shift
    if [ "$s" = "$GK_DEFAULT_SUITE" ]; then
        apt-cache "$@"
    else
        . "$ROOT/scripts/apt-suite.sh"
        apt_suite "$s"
        apt_suite_cache "$@"
    fi
}
gk_apt_update() {
    if [ "$1" = "$GK_DEFAULT_SUITE" ]; then
        [ "$(id -u)" = 0 ] && apt-get update -qq >/dev/null 2>&1
    else
        . "$ROOT/scripts/apt-suite.sh"
        apt_suite "$1"
        apt_suite_update
    fi
}

# gk_download SUITE PKG VERSION: the .deb path, fetched once.
gk_download() {
    local dl=$ISP_CACHE/downloads deb
    deb=$dl/${2}_${3#*:}_amd64.deb
    if [ ! -f "$deb" ]; then
        # stale package lists name files the archive no longer has: refresh once
        (cd "$dl" && gk_apt_get "$1" download -q "$2=$3" >"$dl/apt.log" 2>&1) ||
            { gk_apt_update "$1" &&
                (cd "$dl" && gk_apt_get "$1" download -q "$2=$3" >"$dl/apt.log" 2>&1); } || {
            tail -n 5 "$dl/apt.log" >&2
            die "apt-get download $2=$3 failed"
        }
    fi
    [ -f "$deb" ] || die "$deb missing after apt-get download"
    echo "$deb"
}

guest_kernel() {
    local suite=$1 meta_ver meta_deb dep
    case $suite in
    *[!a-z0-9-]* | "") die "GUEST_KERNEL='$suite' is not a Debian suite name" ;;
    esac
    mkdir -p "$ISP_CACHE/downloads" "$ISP_CACHE/kernel"
    meta_ver=$(gk_apt_cache "$suite" policy linux-image-amd64 2>/dev/null |
        sed -n 's/^ *Candidate: //p')
    [ -n "$meta_ver" ] && [ "$meta_ver" != "(none)" ] ||
        die "apt knows no linux-image-amd64 in $suite (package lists missing?)"
    meta_deb=$(gk_download "$suite" linux-image-amd64 "$meta_ver")
    dep=$(dpkg-deb -f "$meta_deb" Depends | tr ',' '\n' | grep -m1 'linux-image-[0-9]') ||
        die "$meta_deb depends on no linux-image-<abi> package"
    kpkg=$(echo "$dep" | sed -n 's/^ *\(linux-image-[^ ]*\).*/\1/p')
    kver=$(echo "$dep" | sed -n 's/.*(= *\([^)]*\)).*/\1/p')
    [ -n "$kpkg" ] && [ -n "$kver" ] || die "cannot parse dependency '$dep'"
    kdeb=$(gk_download "$suite" "$kpkg" "$kver")
    kdir=$ISP_CACHE/kernel/${kpkg}_$kver
    if [ ! -f "$kdir/.unpacked" ]; then
        echo "guest-kernel: unpacking $kpkg $kver"
        rm -rf "$kdir"
        mkdir -p "$kdir"
        dpkg-deb -x "$kdeb" "$kdir"
        touch "$kdir/.unpacked"
    fi
    krel=$(ls -1 "$kdir/lib/modules" | head -n 1)
    [ -n "$krel" ] && [ -f "$kdir/boot/vmlinuz-$krel" ] || die "$kdeb has no vmlinuz"
    moddir=$kdir/lib/modules/$krel
}

# --- modules --------------------------------------------------------------------
modules_index() {
    gk_stage=$1
    # normalized name (- and _ are the same) -> file
    find "$moddir/kernel" -name '*.ko' -o -name '*.ko.xz' -o -name '*.ko.zst' \
        -o -name '*.ko.gz' >"$gk_stage/.all"
    : >"$gk_stage/.seen"
}

modfile() {
    awk -v want="$(echo "$1" | tr '-' '_')" '{
        b = $0; sub(/.*\//, "", b); sub(/\.ko.*/, "", b); gsub(/-/, "_", b)
        if (b == want) { print; found = 1; exit }
    } END { exit !found }' "$gk_stage/.all"
}

has_module() {
    modfile "$1" >/dev/null
}

# builtin_module NAME: whether the kernel has NAME built in (modules.builtin)
builtin_module() {
    local want
    want=$(echo "$1" | tr '-' '_')
    sed 's|.*/||; s|\.ko$||; s|-|_|g' "$moddir/modules.builtin" 2>/dev/null | grep -qx "$want"
}

# (recursive: `local` keeps each level's variables)
add_module() {
    local name src rel dst d
    name=$(echo "$1" | tr '-' '_')
    grep -qx "$name" "$gk_stage/.seen" 2>/dev/null && return 0
    echo "$name" >>"$gk_stage/.seen"
    src=$(modfile "$name") || die "module $1 not found in $kpkg"
    rel=${src#"$moddir/"}
    dst=$gk_stage/lib/modules/${rel%.ko*}.ko
    mkdir -p "$(dirname "$dst")"
    case $src in
    *.ko.xz) xz -dc "$src" >"$dst" ;;
    *.ko.zst) zstd -qdc "$src" >"$dst" ;;
    *.ko.gz) gzip -dc "$src" >"$dst" ;;
    *) cp "$src" "$dst" ;;
    esac
    for d in $(modinfo -F depends "$dst" | tr ',' ' '); do
        add_module "$d" "$2"
    done
    echo "${dst#"$gk_stage/lib/modules/"}" >>"$2"
}

modules_done() {
    rm -f "$gk_stage/.all" "$gk_stage/.seen"
}
