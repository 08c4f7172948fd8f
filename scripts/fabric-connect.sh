#!/bin/sh
# fabric-connect.sh ADDR NQN [PORT] - run in the compute guest: connect to
# the NVMe/TCP subsystem NQN at ADDR (169.254.x.y, the private link)
# through /dev/nvme-fabrics, retrying while the target boots, and print the
# new controller's generic char device, e.g. "/dev/ng1n1".
#
# Initiator settings (environment; docs/fabric.md "Timeouts" says why):
#   FABRIC_KATO             keep-alive timeout, s [5]: a dead link is noticed
#                           within about this long
#   FABRIC_CTRL_LOSS_TMO    s of reconnecting before the controller is
#                           removed [4]
#   FABRIC_RECONNECT_DELAY  s between reconnects [1]
#   FABRIC_WAIT             s to keep retrying the first connect [60]
# The same connect with nvme-cli:
#   nvme connect -t tcp -a ADDR -s PORT -n NQN --keep-alive-tmo=5 \
#       --ctrl-loss-tmo=4 --reconnect-delay=1
set -eu
addr=${1:?usage: fabric-connect.sh ADDR NQN [PORT]}
nqn=${2:?usage: fabric-connect.sh ADDR NQN [PORT]}
port=${3:-4420}
kato=${FABRIC_KATO:-5}
loss=${FABRIC_CTRL_LOSS_TMO:-4}
delay=${FABRIC_RECONNECT_DELAY:-1}
wait=${FABRIC_WAIT:-60}
die() { echo "fabric-connect: error: $*" >&2; exit 1; }

. "$(dirname "$0")/fabric-lib.sh"
fab_linklocal "$addr"
fab_numbers "$port" "$kato" "$loss" "$delay" "$wait"
case $nqn in
*[!A-Za-z0-9.:_-]* | "") die "NQN '$nqn' has characters an NQN never needs" ;;
esac

fab_modules
[ -c /dev/nvme-fabrics ] || die "/dev/nvme-fabrics missing: nvme-fabrics is not loaded"

opts="transport=tcp,traddr=$addr,trsvcid=$port,nqn=$nqn"
opts="$opts,keep_alive_tmo=$kato,ctrl_loss_tmo=$loss,reconnect_delay=$delay"
start=$(cut -d. -f1 /proc/uptime)
while :; do
    # The kernel answers the write on the same open file: "instance=N,cntlid=M".
    if reply=$( (exec 3<>/dev/nvme-fabrics && echo "$opts" >&3 && head -n 1 <&3) 2>/dev/null); then
        break
    fi
    [ $(($(cut -d. -f1 /proc/uptime) - start)) -lt "$wait" ] ||
        die "no connection to $nqn at $addr:$port within ${wait}s"
    sleep 0.5
done
inst=$(echo "$reply" | sed -n 's/.*instance=\([0-9]*\).*/\1/p')
[ -n "$inst" ] || die "unexpected answer from /dev/nvme-fabrics: $reply"

# The namespace's char device: with native multipath the controller holds
# the path nvme<S>c<inst>n<N> and the head is ng<S>n<N>; without it,
# nvme<inst>n<N> and ng<inst>n<N>.
i=0
while [ $i -lt 100 ]; do
    for d in /sys/class/nvme/nvme"$inst"/nvme*n*; do
        [ -e "$d" ] || continue
        b=${d##*/}
        case $b in
        nvme*c"$inst"n*) ng=/dev/ng${b%%c*}n${b##*n}; ng=/dev/ng${ng#/dev/ngnvme} ;;
        nvme"$inst"n*) ng=/dev/ng${b#nvme} ;;
        *) continue ;;
        esac
        if [ -c "$ng" ]; then
            echo "$ng"
            exit 0
        fi
    done
    sleep 0.1
    i=$((i + 1))
done
die "connected to $nqn as nvme$inst, but no /dev/ngXnY appeared"
