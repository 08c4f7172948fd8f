# shellcheck shell=sh
# vm-lib.sh - sourced by scripts/demo.sh, run-qemu.sh, vm-bench.sh and
# tests/vm/run-vm-tests.sh: where the VM's pieces are, which accelerator
# works, and the QEMU command line. Callers set ROOT and use set -eu.
#
# Environment:
#   ISP_ACCEL=tcg|kvm   skip the KVM probe
#   ISP_VM_MEM=MiB      guest memory (default 640: the initramfs unpacks into
#                       a rootfs of half the RAM left beside the compressed
#                       image; ~190 MiB of programs and tools outgrew 512)
#   ISP_VM_SMP=N        guest CPUs (default 2)
#   STACK=10.0|7.2      the emulator and guest kernel pair (default 10.0):
#                       10.0 is QEMU 10.0 (scripts/qemu-build.sh,
#                       QEMU_VERSION=10.0) with bookworm-backports' kernel
#                       (6.12), 7.2 is QEMU 7.2 with bookworm's (6.1)
#   GUEST_KERNEL=SUITE  boot that kernel flavour's image instead, e.g.
#                       bookworm-backports (scripts/guest-image.sh builds
#                       it the same way)
#   GUEST=initramfs|debian  the busybox initramfs of the test programs
#                       (default; scripts/guest-image.sh) or the Debian
#                       userland (scripts/guest-debian.sh, 1024 MiB by
#                       default; docs/debian-guest.md)
#   ISP_SHARE=DIR       share DIR with the guest: virtio-9p, mounted at
#                       /mnt/host in both guests
#   ISP_CTL=DIR         a second share at /run/ispctl (scripts/vm-run.sh)

BUILD=${BUILD:-$ROOT/build}
ISP_CACHE=${ISP_CACHE:-/var/cache/isp-ssd}
STACK=${STACK:-10.0}
case $STACK in
10.0) GUEST_KERNEL=${GUEST_KERNEL:-bookworm-backports} ;;
7.2) GUEST_KERNEL=${GUEST_KERNEL:-bookworm} ;;
*)
    echo "STACK=$STACK: use 10.0 (QEMU 10.0 + Linux 6.12) or 7.2 (QEMU 7.2 + Linux 6.1)" >&2
    exit 1
    ;;
esac
GUEST=${GUEST:-initramfs}
VM_QEMU=$BUILD/qemu-$STACK/qemu-system-x86_64
case $GUEST in
initramfs)
    VM_GUEST=$BUILD/guest/$GUEST_KERNEL
    VM_KERNEL=$VM_GUEST/vmlinuz
    VM_INITRD=$VM_GUEST/initramfs.cpio.gz
    VM_MEM_DEFAULT=640
    ;;
debian)
    VM_GUEST=$BUILD/guest-debian/$GUEST_KERNEL
    VM_KERNEL=$VM_GUEST/vmlinuz
    VM_INITRD=$VM_GUEST/initrd.cpio.gz
    VM_MEM_DEFAULT=1024
    ;;
*)
    echo "GUEST=$GUEST: use initramfs (the test programs) or debian (docs/debian-guest.md)" >&2
    exit 1
    ;;
esac
VM_APPEND_BASE="console=ttyS0 panic=-1 quiet loglevel=3"
[ -z "${ISP_SHARE:-}${ISP_CTL:-}" ] || VM_APPEND_BASE="$VM_APPEND_BASE isp.share=1"

# vm_check: 0 when the patched QEMU and the guest image exist, else a reason.
vm_check() {
    if [ ! -x "$VM_QEMU" ]; then
        echo "$VM_QEMU missing (make qemu STACK=$STACK)"
        return 1
    fi
    if [ ! -f "$VM_KERNEL" ] || [ ! -f "$VM_INITRD" ]; then
        echo "guest image missing in $VM_GUEST (make guest STACK=$STACK GUEST=$GUEST)"
        return 1
    fi
    if [ "$GUEST" = debian ] && { [ ! -f "$BUILD/guest-debian/base.img" ] ||
        [ ! -f "$BUILD/guest-debian/layer.img" ]; }; then
        echo "the Debian guest's root is missing in $BUILD/guest-debian (make guest GUEST=debian)"
        return 1
    fi
    for _d in ${ISP_SHARE:-} ${ISP_CTL:-}; do
        case $_d in
        *[,[:space:]]*)
            echo "a shared folder's path may not hold spaces or commas: '$_d'"
            return 1
            ;;
        esac
        [ -d "$_d" ] || { echo "shared folder $_d is not a directory"; return 1; }
    done
    return 0
}

# vm_guest_args: the Debian guest's two read-only disks (its base under the
# project's layer, scripts/debian/boot-init), and the shared folders
# (ISP_SHARE as tag "host", ISP_CTL as "ispctl"; virtio-9p, the guest's
# uid 0 writes as the user running QEMU: security_model=none).
vm_guest_args() {
    if [ "$GUEST" = debian ]; then
        printf ' %s' \
            "-drive file=$(readlink -f "$BUILD/guest-debian/base.img"),if=none,id=gbase,format=raw,readonly=on" \
            "-device virtio-blk-pci,drive=gbase" \
            "-drive file=$BUILD/guest-debian/layer.img,if=none,id=glayer,format=raw,readonly=on" \
            "-device virtio-blk-pci,drive=glayer"
    fi
    if [ -n "${ISP_SHARE:-}" ]; then
        printf ' %s' "-fsdev local,id=fshost,path=$ISP_SHARE,security_model=none" \
            "-device virtio-9p-pci,fsdev=fshost,mount_tag=host"
    fi
    if [ -n "${ISP_CTL:-}" ]; then
        printf ' %s' "-fsdev local,id=fsctl,path=$ISP_CTL,security_model=none" \
            "-device virtio-9p-pci,fsdev=fsctl,mount_tag=ispctl"
    fi
}

# vm_isp_dev DIR: the ISP properties of the nvme device (flash backing
# file DIR/flash.img) from ISP, ISP_TIMING, ISP_PRESET, ISP_PARAMS,
# ISP_TRACE_DIR (scripts/run-qemu.sh documents them).
vm_isp_dev() {
    _dev="isp=${ISP:-on}"
    if [ "${ISP:-on}" = on ]; then
        _dev="$_dev,isp-backing=$1/flash.img,isp-timing=${ISP_TIMING:-annotate}"
        [ -n "${ISP_PRESET:-}" ] && _dev="$_dev,isp-preset=$ISP_PRESET"
        # QEMU option syntax: a literal ',' is written ',,'
        [ -n "${ISP_PARAMS:-}" ] && _dev="$_dev,isp-params=$(echo "$ISP_PARAMS" | sed 's/,/,,/g')"
        [ -n "${ISP_TRACE_DIR:-}" ] && _dev="$_dev,isp-trace-dir=$ISP_TRACE_DIR"
    fi
    echo "$_dev"
}

# vm_accel: print "kvm" or "tcg". KVM only when a guest really boots with it
# (nested KVM can hang); the probe's answer is kept per host boot.
vm_accel() {
    case ${ISP_ACCEL:-auto} in
    tcg | kvm) echo "$ISP_ACCEL"; return 0 ;;
    esac
    if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
        echo tcg
        return 0
    fi
    _boot=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown)
    _cache=$ISP_CACHE/kvm-probe
    if [ -f "$_cache" ]; then
        read -r _b _r <"$_cache" || true
        if [ "$_b" = "$_boot" ] && [ -n "$_r" ]; then
            echo "$_r"
            return 0
        fi
    fi
    _out=$(timeout -k 5 20 "$VM_QEMU" -accel kvm -cpu host -m 256 -nodefaults \
        -display none -no-reboot -monitor none -serial stdio \
        -kernel "$VM_KERNEL" -initrd "$VM_INITRD" \
        -append "$VM_APPEND_BASE isp.run=probe" </dev/null 2>&1 || true)
    case $_out in
    *@@ISP-PROBE-OK*) _r=kvm ;;
    *) _r=tcg ;;
    esac
    mkdir -p "$ISP_CACHE"
    echo "$_boot $_r" >"$_cache"
    echo "$_r"
}

# vm_accel_args ACCEL
vm_accel_args() {
    if [ "$1" = kvm ]; then
        echo "-accel kvm -cpu host"
    else
        echo "-accel tcg -cpu max"
    fi
}

# vm_args ACCEL NVME_DEVICE_OPTS NS_IMAGE: the VM's arguments but for the
# console, monitor and -append (paths must not contain spaces).
vm_args() {
    echo "$(vm_accel_args "$1") -machine q35 -smp ${ISP_VM_SMP:-2}" \
        "-m ${ISP_VM_MEM:-$VM_MEM_DEFAULT} -nodefaults -display none -no-reboot" \
        "-kernel $VM_KERNEL -initrd $VM_INITRD" \
        "-drive file=$3,if=none,id=nvm0,format=raw" \
        "-device nvme,serial=isp-ssd-0,drive=nvm0,$2$(vm_guest_args)"
}

# Device groups (docs/group.md): ISP_DRIVES=N gives the VM N ISP drives.
# vm_group_args N DIR [DEVICE_OPTS]: QEMU arguments for drives 1..N-1 (drive
# 0 is vm_args'), each its own controller, namespace image DIR/ns-I.img and
# flash backing file DIR/flash-I.img (created when missing).
vm_group_args() {
    _n=$1 _d=$2 _o=${3:-isp=on} _i=1
    case $_n in '' | *[!0-9]*) echo "ISP_DRIVES=$_n: a number 1..16" >&2; return 1 ;; esac
    [ "$_n" -ge 1 ] && [ "$_n" -le 16 ] || { echo "ISP_DRIVES=$_n: 1..16" >&2; return 1; }
    while [ "$_i" -lt "$_n" ]; do
        [ -f "$_d/ns-$_i.img" ] || truncate -s 64M "$_d/ns-$_i.img"
        printf ' %s' "-drive file=$_d/ns-$_i.img,if=none,id=nvm$_i,format=raw" \
            "-device nvme,serial=isp-ssd-$_i,drive=nvm$_i,$_o,isp-backing=$_d/flash-$_i.img"
        _i=$((_i + 1))
    done
}

# vm_results LOG LABEL OUTPFX TIMEOUT DIED_MSG PROGRAMS...: one PASS/SKIP/FAIL
# line per guest program from the console markers in LOG (guest-init.sh:
# @@ISP-START / @@ISP-RESULT NAME EXIT), its output to OUTPFX.NAME.log;
# counts into the caller's pass, fail and skip.
vm_results() {
    _log=$1 _lab=$2 _pfx=$3 _tmo=$4 _died=$5
    shift 5
    for _t in "$@"; do
        _out=$_pfx.$(echo "$_t" | tr ':/' '__').log
        awk -v t="$_t" '$1 == "@@ISP-START" && $2 == t { on = 1; next }
            $1 == "@@ISP-RESULT" && $2 == t { on = 0 } on' "$_log" >"$_out"
        _res=$(awk -v t="$_t" '$1 == "@@ISP-RESULT" && $2 == t { print $3 }' "$_log" | tail -n 1)
        case $_res in
        0) pass=$((pass + 1)); echo "PASS vm/$_lab/$_t" ;;
        77) skip=$((skip + 1)); echo "SKIP vm/$_lab/$_t: $(tail -n 1 "$_out")" ;;
        143 | 124)
            fail=$((fail + 1)); echo "FAIL vm/$_lab/$_t (timed out after ${_tmo}s)"
            tail -n 20 "$_out" | sed 's/^/    /' ;;
        "")
            fail=$((fail + 1)); echo "FAIL vm/$_lab/$_t (no result: $_died)"
            tail -n 20 "$_log" | sed 's/^/    /' ;;
        *)
            fail=$((fail + 1)); echo "FAIL vm/$_lab/$_t (exit $_res)"
            tail -n 20 "$_out" | sed 's/^/    /' ;;
        esac
    done
}

# vm_bench NAME DEVICE_OPTS PROGRAM ARG: boot the guest with one drive
# (DEVICE_OPTS) on a scratch namespace image, run the guest benchmark
# PROGRAM ARG (isp.run=demo), print its @@BENCH lines under a line with the
# date, stack and the host's load before and after, keep them in
# $BUILD/results/NAME.txt; exits 1 when the program failed.
# (scripts/vm-bench-ftl.sh, scripts/vm-bench-cs.sh)
vm_bench() {
    _name=$1 _dev=$2 _prog=$3 _arg=$4
    _why=$(vm_check) || { echo "$_name: $_why" >&2; exit 1; }
    _tmp=$(mktemp -d "/tmp/isp-$_name.XXXXXX")
    # shellcheck disable=SC2064
    trap "rm -rf '$_tmp'" EXIT INT TERM
    truncate -s 64M "$_tmp/ns.img"
    _accel=$(vm_accel)
    mkdir -p "$BUILD/results"
    _load0=$(cut -d' ' -f1-3 /proc/loadavg)
    # shellcheck disable=SC2046
    timeout 1800 "$VM_QEMU" $(vm_args "$_accel" "$_dev" "$_tmp/ns.img") \
        -monitor none -serial stdio \
        -append "$VM_APPEND_BASE isp.run=demo isp.timeout=1700 isp.demo=$_prog,$_arg" \
        </dev/null 2>&1 | tr -d '\r' >"$_tmp/console.log" || true
    {
        echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) stack=$STACK accel=$_accel host=$(nproc) cores," \
            "load before $_load0, after $(cut -d' ' -f1-3 /proc/loadavg)"
        grep -e '^@@BENCH' "$_tmp/console.log" || true
    } | tee "$BUILD/results/$_name.txt"
    grep -q '^@@ISP-RESULT demo 0$' "$_tmp/console.log" ||
        { echo "$_name: failed; console:" >&2; tail -n 20 "$_tmp/console.log" >&2; exit 1; }
}
