#!/bin/sh
# fabric-target.sh ADDR NQN_PREFIX [PORT] - run in a storage guest: export
# every local PCIe NVMe controller as an NVMe/TCP passthru subsystem of the
# Linux target (nvmet), configured through configfs (docs/fabric.md).
#
# Each controller /dev/nvmeN becomes the subsystem NQN_PREFIX:nvmeN whose
# passthru device is that controller: every command the initiator sends,
# the vendor ISP opcodes included, reaches the drive as it was sent (nvmet
# rejects only reservations and fused commands on the I/O path). All of
# them listen on one TCP port at ADDR (default port 4420), which must be
# an address of this guest on the private link (169.254.0.0/16).
#
# Settings (environment, seconds; docs/fabric.md "Timeouts" says why):
#   FABRIC_ADMIN_TMO  passthru admin command timeout [10]
#   FABRIC_IO_TMO     passthru I/O command timeout [30]
# Prints one line per export: "exported NQN /dev/nvmeN"; exit 1 on error.
set -eu
addr=${1:?usage: fabric-target.sh ADDR NQN_PREFIX [PORT]}
prefix=${2:?usage: fabric-target.sh ADDR NQN_PREFIX [PORT]}
port=${3:-4420}
admin_tmo=${FABRIC_ADMIN_TMO:-10}
io_tmo=${FABRIC_IO_TMO:-30}
die() { echo "fabric-target: error: $*" >&2; exit 1; }

. "$(dirname "$0")/fabric-lib.sh"
fab_linklocal "$addr"
fab_numbers "$port" "$admin_tmo" "$io_tmo"
fab_modules
grep -q ' configfs$' /proc/mounts || mount -t configfs none /sys/kernel/config
cfg=/sys/kernel/config/nvmet
[ -d "$cfg" ] || die "$cfg missing: nvmet is not loaded"

# nvmet stores passthru/admin_timeout and io_timeout as given and puts them
# straight into the request's timeout, which is in jiffies: "30" would be
# 120 ms on Debian's HZ=250 kernel, and the storage guest's nvme-pci would
# abort any slower command (07h at the initiator). Convert seconds with
# this kernel's HZ, sampled from /proc/timer_list over one second and
# rounded to the nearest HZ Linux offers; without it write 0, the kernel's
# defaults (nvme_core.io_timeout 30 s, admin_timeout 60 s).
hz=0
j0=$(awk '/^jiffies:/ { print $2; exit }' /proc/timer_list 2>/dev/null || true)
if [ -n "$j0" ]; then
    sleep 1
    j1=$(awk '/^jiffies:/ { print $2; exit }' /proc/timer_list)
    d=$((j1 - j0)) best=-1
    for c in 100 250 300 1000; do
        e=$(((d - c) * (d - c)))
        if [ "$best" -lt 0 ] || [ "$e" -lt "$best" ]; then
            best=$e hz=$c
        fi
    done
fi
admin_j=$((admin_tmo * hz))
io_j=$((io_tmo * hz))
echo "fabric-target: HZ $hz: admin timeout ${admin_tmo} s = $admin_j jiffies, I/O ${io_tmo} s = $io_j jiffies"

p=$cfg/ports/1
mkdir -p "$p"
echo tcp >"$p/addr_trtype"
echo ipv4 >"$p/addr_adrfam"
echo "$addr" >"$p/addr_traddr"
echo "$port" >"$p/addr_trsvcid"

n=0
for c in /sys/class/nvme/nvme*; do
    [ -e "$c/transport" ] || continue
    [ "$(cat "$c/transport")" = pcie ] || continue
    name=$(basename "$c")
    nqn=$prefix:$name
    s=$cfg/subsystems/$nqn
    mkdir -p "$s"
    # Reachable only over the private link: any host on it may connect.
    echo 1 >"$s/attr_allow_any_host"
    echo "/dev/$name" >"$s/passthru/device_path"
    echo "$admin_j" >"$s/passthru/admin_timeout"
    echo "$io_j" >"$s/passthru/io_timeout"
    echo 1 >"$s/passthru/enable" || die "passthru of /dev/$name refused (dmesg says why)"
    ln -s "$s" "$p/subsystems/$nqn"
    echo "exported $nqn /dev/$name"
    n=$((n + 1))
done
[ "$n" -gt 0 ] || die "no local PCIe NVMe controller to export"
