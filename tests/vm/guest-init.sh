#!/bin/busybox sh
# guest-init.sh - /init of the guest initramfs (scripts/guest-image.sh).
#
# Loads the nvme modules, waits for /dev/ng0n1, then does what the kernel
# command line asks and powers off:
#   isp.run=tests   run isp.tests=a,b,c (default: every /bin/test_*), each
#                   under isp.timeout=SECONDS (default 120)
#   isp.run=demo    run isp.demo=PROG (default: reis info, else isp_identify)
#   isp.run=bench   run bench_vm_latency
#   isp.run=shell   an interactive shell on the console
#   isp.run=cmd     run the script /run/ispctl/cmd (scripts/vm-run.sh) and
#                   write its exit status to /run/ispctl/rc
#   isp.path=cp     the programs run with ISP_PATH=cp: libreis over the
#                   standard interface (docs/libreis.md; QEMU's isp-cs=on)
#   isp.share=1     mount the host's shared folder (virtio-9p tag "host") at
#                   /mnt/host, and the control folder (tag "ispctl") at
#                   /run/ispctl when the host passes one
#   isp.run=probe   print a marker at once (the host's KVM probe)
# Console markers for the host, one per line:
#   @@ISP-READY <uptime s>     the drive is there
#   @@ISP-START <name>         a program starts
#   @@ISP-RESULT <name> <rc>   and exits (143: killed by the timeout)
#   @@ISP-DONE                 everything ran
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mkdir -p /proc /sys /dev /tmp /run
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs tmp /tmp

run=tests tests="" timeout=120 demo="" wait=30 share=0
for arg in $(cat /proc/cmdline); do
    case $arg in
    isp.share=*) share=${arg#isp.share=} ;;
    isp.run=*) run=${arg#isp.run=} ;;
    isp.tests=*) tests=$(echo "${arg#isp.tests=}" | tr ',' ' ') ;;
    isp.timeout=*) timeout=${arg#isp.timeout=} ;;
    isp.demo=*) demo=$(echo "${arg#isp.demo=}" | tr ',' ' ') ;;
    isp.wait=*) wait=${arg#isp.wait=} ;;
    isp.path=*) export ISP_PATH="${arg#isp.path=}" ;;
    esac
done

if [ "$run" = probe ]; then
    echo "@@ISP-PROBE-OK"
    poweroff -f
fi

while read -r mod; do
    insmod "/lib/modules/$mod" || echo "@@ISP-ERROR insmod $mod failed"
done </etc/isp-modules

# The shared folders: virtio-9p, each named by its mount tag.
if [ "$share" = 1 ]; then
    while read -r mod; do
        insmod "/lib/modules/$mod" || echo "@@ISP-ERROR insmod $mod failed"
    done </etc/isp-share-modules
    for t in /sys/bus/virtio/drivers/9pnet_virtio/*/mount_tag; do
        [ -f "$t" ] || continue
        tag=$(tr -d '\000' <"$t")
        case $tag in
        host) dir=/mnt/host ;;
        ispctl) dir=/run/ispctl ;;
        *) continue ;;
        esac
        mkdir -p "$dir"
        mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=none "$tag" "$dir" ||
            echo "@@ISP-ERROR mount of the shared folder $tag failed"
    done
fi

i=0
while [ ! -c /dev/ng0n1 ] && [ $i -lt $((wait * 10)) ]; do
    sleep 0.1
    i=$((i + 1))
done
if [ -c /dev/ng0n1 ]; then
    echo "@@ISP-READY $(cut -d' ' -f1 /proc/uptime)"
else
    echo "@@ISP-ERROR no /dev/ng0n1 after ${wait}s"
    ls /dev >&2
fi

# run_one NAME CMD...: markers around one program, bounded by $timeout.
run_one() {
    name=$1
    shift
    echo "@@ISP-START $name"
    timeout "$timeout" "$@" </dev/null 2>&1
    rc=$?
    echo "@@ISP-RESULT $name $rc"
}

case $run in
tests)
    if [ -z "$tests" ]; then
        for t in /bin/test_*; do
            [ -x "$t" ] && tests="$tests ${t#/bin/}"
        done
    fi
    for t in $tests; do
        if [ -x "/bin/$t" ]; then
            run_one "$t" "/bin/$t"
        else
            echo "@@ISP-START $t"
            echo "no such program /bin/$t"
            echo "@@ISP-RESULT $t 127"
        fi
    done
    ;;
demo)
    if [ -n "$demo" ]; then
        run_one demo $demo
    elif [ -x /bin/reis ]; then
        run_one demo /bin/reis info
    else
        run_one demo /bin/isp_identify
    fi
    ;;
bench)
    run_one bench /bin/bench_vm_latency
    ;;
shell)
    echo "ISP guest shell: /dev/ng0n1 is the drive; programs in /bin. 'exit' powers off."
    [ -d /mnt/host ] && cd /mnt/host
    setsid cttyhack sh
    ;;
cmd)
    if [ -f /run/ispctl/cmd ]; then
        [ -d /mnt/host ] && cd /mnt/host
        run_one cmd sh /run/ispctl/cmd
        echo "$rc" >/run/ispctl/rc
    else
        echo "@@ISP-ERROR isp.run=cmd without /run/ispctl/cmd"
    fi
    ;;
*)
    echo "@@ISP-ERROR unknown isp.run=$run"
    ;;
esac

echo "@@ISP-DONE"
sync
poweroff -f
