#!/bin/sh
# fabric-node.sh - the guest side of scripts/fabric-run.sh: what one VM of
# a fabric run does, from the kernel command line (docs/fabric.md):
#   isp.fab.role=storage|compute
#   isp.fab.id=I        storage VM I (1..K): its link is 169.254.I.0/24, it
#                       is 169.254.I.2 there and exports its drives as
#                       nqn.2026-12.dev.isp-ssd:storageI:nvmeN
#   isp.fab.k=K         compute: the storage VMs, one link each, where it
#                       is 169.254.I.1
#   isp.fab.m=M         compute: the drives each storage VM exports
#   isp.fab.run=a,b     compute: the programs to run once every drive is
#                       connected (@@ISP-START/@@ISP-RESULT around each)
# Every NIC is a virtio-net whose MAC 52:54:00:fa:II:0R names its link II
# (hex) and side R (1 compute, 2 storage). Console markers for the host:
#   @@FABRIC-EXPORTED I N       storage VM I exports N drives
#   @@FABRIC-CONNECTED N        compute: N remote drives, listed in
#                               /tmp/fabric.devs ("ngpath nqn addr")
#   @@FABRIC-ERROR reason
set -u
role="" id=0 k=0 m=1 progs="" timeout=120
for arg in $(cat /proc/cmdline); do
    case $arg in
    isp.fab.role=*) role=${arg#*=} ;;
    isp.fab.id=*) id=${arg#*=} ;;
    isp.fab.k=*) k=${arg#*=} ;;
    isp.fab.m=*) m=${arg#*=} ;;
    isp.fab.run=*) progs=$(echo "${arg#*=}" | tr ',' ' ') ;;
    isp.fab.timeout=*) timeout=${arg#*=} ;;
    esac
done
case $id$k$m$timeout in
*[!0-9]*) echo "@@FABRIC-ERROR bad isp.fab.* numbers"; exit 1 ;;
esac
fail() { echo "@@FABRIC-ERROR $*"; exit 1; }
die() { fail "$@"; }
nqn_of() { echo "nqn.2026-12.dev.isp-ssd:storage$1:nvme$2"; }

# link_up LINK SIDE: the NIC of that link gets 169.254.LINK.SIDE/24.
link_up() {
    mac=$(printf '52:54:00:fa:%02x:%02x' "$1" "$2")
    for n in /sys/class/net/*; do
        [ "$(cat "$n/address" 2>/dev/null)" = "$mac" ] || continue
        dev=${n##*/}
        ip addr add "169.254.$1.$2/24" dev "$dev" || return 1
        ip link set "$dev" up || return 1
        return 0
    done
    ls /sys/class/net >&2
    echo "no NIC with MAC $mac" >&2
    return 1
}

. "$(dirname "$0")/fabric-lib.sh"
fab_modules
ip link set lo up
case $role in
storage)
    [ "$id" -ge 1 ] && [ "$id" -le 250 ] || fail "isp.fab.id=$id out of 1..250"
    link_up "$id" 2 || fail "link $id"
    out=$(fabric-target.sh "169.254.$id.2" "nqn.2026-12.dev.isp-ssd:storage$id") ||
        fail "export: $out"
    echo "$out"
    echo "@@FABRIC-EXPORTED $id $(echo "$out" | grep -c '^exported ')"
    # Serve until the host stops this VM.
    while :; do sleep 3600; done
    ;;
compute)
    [ "$k" -le 250 ] && [ "$m" -ge 1 ] && [ "$m" -le 32 ] || fail "isp.fab.k/m out of range"
    : >/tmp/fabric.devs
    i=1
    while [ "$i" -le "$k" ]; do
        link_up "$i" 1 || fail "link $i"
        i=$((i + 1))
    done
    i=1 n=0
    while [ "$i" -le "$k" ]; do
        j=0
        while [ "$j" -lt "$m" ]; do
            nqn=$(nqn_of "$i" "$j")
            ng=$(fabric-connect.sh "169.254.$i.2" "$nqn") || fail "connect $nqn"
            echo "$ng $nqn 169.254.$i.2" >>/tmp/fabric.devs
            n=$((n + 1))
            j=$((j + 1))
        done
        i=$((i + 1))
    done
    cat /tmp/fabric.devs
    echo "@@FABRIC-CONNECTED $n"
    export FABRIC_DEVS=/tmp/fabric.devs
    for p in $progs; do
        echo "@@ISP-START $p"
        # shellcheck disable=SC2086
        timeout "$timeout" $(echo "$p" | tr ':' ' ') </dev/null 2>&1
        echo "@@ISP-RESULT $p $?"
    done
    ;;
*)
    fail "isp.fab.role='$role': storage or compute"
    ;;
esac
