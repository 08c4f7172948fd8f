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

run=tests tests="" timeout=120 demo="" wait=30
for arg in $(cat /proc/cmdline); do
    case $arg in
    isp.run=*) run=${arg#isp.run=} ;;
    isp.tests=*) tests=$(echo "${arg#isp.tests=}" | tr ',' ' ') ;;
    isp.timeout=*) timeout=${arg#isp.timeout=} ;;
    isp.demo=*) demo=$(echo "${arg#isp.demo=}" | tr ',' ' ') ;;
    isp.wait=*) wait=${arg#isp.wait=} ;;
    esac
done

if [ "$run" = probe ]; then
    echo "@@ISP-PROBE-OK"
    poweroff -f
fi

while read -r mod; do
    insmod "/lib/modules/$mod" || echo "@@ISP-ERROR insmod $mod failed"
done </etc/isp-modules

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
    setsid cttyhack sh
    ;;
*)
    echo "@@ISP-ERROR unknown isp.run=$run"
    ;;
esac

echo "@@ISP-DONE"
sync
poweroff -f
