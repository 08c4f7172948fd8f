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
VM_QEMU=$BUILD/qemu-$STACK/qemu-system-x86_64
VM_GUEST=$BUILD/guest/$GUEST_KERNEL
VM_KERNEL=$VM_GUEST/vmlinuz
VM_INITRD=$VM_GUEST/initramfs.cpio.gz
VM_APPEND_BASE="console=ttyS0 panic=-1 quiet loglevel=3"

# vm_check: 0 when the patched QEMU and the guest image exist, else a reason.
vm_check() {
    if [ ! -x "$VM_QEMU" ]; then
        echo "$VM_QEMU missing (make qemu STACK=$STACK)"
        return 1
    fi
    if [ ! -f "$VM_KERNEL" ] || [ ! -f "$VM_INITRD" ]; then
        echo "guest image missing in $VM_GUEST (make guest STACK=$STACK)"
        return 1
    fi
    return 0
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
        "-m ${ISP_VM_MEM:-640} -nodefaults -display none -no-reboot" \
        "-kernel $VM_KERNEL -initrd $VM_INITRD" \
        "-drive file=$3,if=none,id=nvm0,format=raw" \
        "-device nvme,serial=isp-ssd-0,drive=nvm0,$2"
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
