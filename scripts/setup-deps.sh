#!/bin/sh
# Installs every Debian package the build, the guest image and the tests need.
# Idempotent: does nothing when all packages are present. Needs root only when
# something is missing.
set -eu

PKGS="build-essential pkg-config git ca-certificates xz-utils zstd cpio dpkg-dev
 python3 meson ninja-build flex bison
 libglib2.0-dev libpixman-1-dev libfdt-dev libslirp-dev
 seabios qemu-system-data ipxe-qemu
 liburing-dev libnvme-dev libjson-c-dev libssl-dev nvme-cli fio
 busybox-static kmod
 wordnet-base nodejs npm"
# QEMU's virtio-9p (the shared host folder, scripts/qemu-build.sh).
PKGS="$PKGS libcap-ng-dev libattr1-dev"
# The Debian guest (scripts/guest-debian.sh): its root is built with
# mmdebstrap and written as an ext4 image; the Python module (python/) is
# built and tested against Debian's python3 with numpy, and compared with
# FAISS (Debian's build lacks POPCNT).
PKGS="$PKGS mmdebstrap e2fsprogs python3-dev python3-numpy python3-faiss"
# The plots of make fidelity (docs/fidelity.md) and make bench
# (scripts/reis-plot.sh).
PKGS="$PKGS gnuplot-nox"
# tests/fuzz: clang's libFuzzer with ASan/UBSan, llvm-cov for coverage.
PKGS="$PKGS clang-14 libclang-rt-14-dev llvm-14"

stamp_dir=${ISP_CACHE:-/var/cache/isp-ssd}
missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed'; then
        missing="$missing $p"
    fi
done
# `node` may come from outside Debian on some machines; accept any working one.
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
    missing=$(echo "$missing" | tr ' ' '\n' | grep -v -x -e nodejs -e npm | tr '\n' ' ')
fi

need_src=0
if ! apt-cache showsrc qemu 2>/dev/null | grep -q '^Package: qemu'; then
    need_src=1
fi

if [ -z "$(echo "$missing" | tr -d ' ')" ] && [ "$need_src" = 0 ]; then
    exit 0
fi

if [ "$(id -u)" != 0 ]; then
    echo "setup-deps: missing packages:$missing (need root to install)" >&2
    [ "$need_src" = 1 ] && echo "setup-deps: no deb-src entry for qemu" >&2
    exit 1
fi

if [ "$need_src" = 1 ]; then
    # Source packages are needed for `apt-get source qemu`.
    cat > /etc/apt/sources.list.d/isp-ssd-deb-src.sources <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi

mkdir -p "$stamp_dir"
log=$stamp_dir/setup-deps.log
echo "setup-deps: apt-get update" >&2
apt-get -o DPkg::Lock::Timeout=900 update -qq >"$log" 2>&1 || { tail -n 20 "$log" >&2; exit 1; }
if [ -n "$(echo "$missing" | tr -d ' ')" ]; then
    echo "setup-deps: installing$missing (log: $log)" >&2
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends \
        $missing >>"$log" 2>&1 || { tail -n 30 "$log" >&2; exit 1; }
fi
