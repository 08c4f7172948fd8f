#!/bin/sh
# run-qemu.sh [QEMU ARGS...] - the patched QEMU by hand, with an ISP drive
# and an interactive guest shell on this terminal (Ctrl-A X quits QEMU;
# `exit` in the guest powers it off). Extra arguments go to QEMU.
#
# Environment (defaults in brackets):
#   ISP_DIR        where the flash backing file and namespace image live
#                  [$BUILD/vm]
#   ISP_PRESET     isp-preset [reis-ssd1]    ISP_PARAMS   isp-params ["k=v;k=v"]
#   ISP_TIMING     annotate | delay [annotate]
#   ISP_TRACE_DIR  isp-trace-dir (Perfetto timelines) [off]
#   ISP            on | off [on]
#   ISP_RUN        guest mode: shell | tests | demo | bench [shell]
#   ISP_ACCEL      tcg | kvm [probe]   ISP_VM_MEM, ISP_VM_SMP [640, 2]
#   ISP_DRIVES     ISP drives, each its own controller, namespace and
#                  backing file ($ISP_DIR/flash-I.img) [1] (docs/group.md)
#   GUEST          initramfs | debian [initramfs]   ISP_SHARE  a host folder
#                  shared at /mnt/host (scripts/vm-lib.sh) [none]
# QEMU trace events: add e.g. `-trace 'pci_nvme_isp_*'`.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/vm-lib.sh"

why=$(vm_check) || { echo "run-qemu: $why" >&2; exit 1; }
dir=${ISP_DIR:-$BUILD/vm}
mkdir -p "$dir"
[ -f "$dir/ns.img" ] || truncate -s 256M "$dir/ns.img"

dev=$(vm_isp_dev "$dir")
accel=$(vm_accel)
# Device groups: drives 1..ISP_DRIVES-1 beside drive 0.
group=$(vm_group_args "${ISP_DRIVES:-1}" "$dir" "isp=on,isp-timing=${ISP_TIMING:-annotate}")
echo "run-qemu: $accel, nvme $dev, ${ISP_DRIVES:-1} ISP drive(s) (Ctrl-A X quits)" >&2
# shellcheck disable=SC2046,SC2086
exec "$VM_QEMU" $(vm_args "$accel" "$dev" "$dir/ns.img") $group -serial mon:stdio \
    -append "$VM_APPEND_BASE isp.run=${ISP_RUN:-shell}" "$@"
