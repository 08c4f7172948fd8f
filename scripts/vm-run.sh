#!/bin/sh
# vm-run.sh [--shell | [--] COMMAND...] - boot the ISP drive with a guest
# (the Debian one unless GUEST says otherwise) and the current directory
# shared at /mnt/host, then
#   --shell      give an interactive login shell on this terminal, in the
#                guest's copy of the current directory (`make shell`;
#                'exit' powers off, Ctrl-A X stops QEMU);
#   COMMAND...   run COMMAND there (words joined by spaces, interpreted by
#                the guest's bash, or sh in the initramfs guest) without a
#                terminal: its output (stdout and stderr together) comes
#                out on stdout as it runs, and vm-run.sh exits with its exit
#                status (`make run CMD='...'`); 125 when the guest did not
#                get to run it (boot failure, timeout), with the console's
#                end on stderr.
# The same path the VM tests take (tests/vm/run-debian-tests.sh).
#
# Environment (defaults in brackets):
#   GUEST         debian | initramfs [debian]   STACK  10.0 | 7.2 [10.0]
#   ISP_SHARE     the folder shared at /mnt/host [the current directory];
#                 empty: none. The guest starts in the current directory's
#                 place under it when the current directory is inside it.
#   ISP_DIR       flash backing file and namespace image [$BUILD/vm]: what
#                 is deployed stays for the next run
#   ISP_PRESET, ISP_PARAMS, ISP_TIMING, ISP_TRACE_DIR, ISP, ISP_ACCEL,
#   ISP_VM_MEM, ISP_VM_SMP   as for scripts/run-qemu.sh
#   RUN_TIMEOUT   seconds a COMMAND may take [0: no limit]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mode=cmd
case ${1:-} in
--shell) mode=shell; shift ;;
--) shift ;;
esac
[ "$mode" = shell ] || [ $# -gt 0 ] || { echo "usage: vm-run.sh --shell | [--] COMMAND..." >&2; exit 2; }

GUEST=${GUEST:-debian}
ISP_SHARE=${ISP_SHARE-$PWD}
[ -z "$ISP_SHARE" ] || ISP_SHARE=$(cd "$ISP_SHARE" && pwd -P)
ctl=""
if [ "$mode" = cmd ]; then
    ctl=$(mktemp -d /tmp/isp-run.XXXXXX)
    trap 'rm -rf "$ctl"' EXIT
    trap 'exit 130' INT TERM
fi
ISP_CTL=$ctl
export GUEST ISP_SHARE ISP_CTL
. "$ROOT/scripts/vm-lib.sh"
why=$(vm_check) || { echo "vm-run: $why" >&2; exit 125; }

dir=${ISP_DIR:-$BUILD/vm}
mkdir -p "$dir"
[ -f "$dir/ns.img" ] || truncate -s 256M "$dir/ns.img"
accel=$(vm_accel)
dev=$(vm_isp_dev "$dir")
# where the guest starts: the current directory's place in the share
cwd=""
here=$(pwd -P)
case $here/ in
"$ISP_SHARE"/*) [ -z "$ISP_SHARE" ] || cwd=${here#"$ISP_SHARE"} ;;
esac
cwd=${cwd#/}
case $cwd in *[[:space:]]*) cwd="" ;; esac
append="$VM_APPEND_BASE${cwd:+ isp.cwd=$cwd}"

if [ "$mode" = shell ]; then
    size=$(stty size 2>/dev/null || echo "")
    rows=${size% *} cols=${size#* }
    echo "vm-run: $GUEST guest, $accel, ${ISP_SHARE:-nothing} shared at /mnt/host" \
        "(Ctrl-A X quits QEMU)" >&2
    # shellcheck disable=SC2046,SC2086
    exec "$VM_QEMU" $(vm_args "$accel" "$dev" "$dir/ns.img") -serial mon:stdio \
        -append "$append isp.run=shell isp.term=${TERM:-vt100}${size:+ isp.rows=$rows isp.cols=$cols}"
fi

printf '%s\n' "$*" >"$ctl/cmd"
tmo=${RUN_TIMEOUT:-0}
case $tmo in '' | *[!0-9]*) echo "vm-run: RUN_TIMEOUT=$tmo: seconds" >&2; exit 2 ;; esac
# the guest's limit, and QEMU's: a minute more for the boot
qtmo=0
[ "$tmo" = 0 ] || qtmo=$((tmo + ${VM_BOOT_TIMEOUT:-120}))
gtmo=$tmo
[ "$GUEST" = debian ] || [ "$tmo" != 0 ] || gtmo=86400
log=$ctl/console.log
# shellcheck disable=SC2046,SC2086
# One awk, line by line (a tr or tee in between would hold the output back):
# every console line into the log, the command's lines to stdout.
timeout -k 5 "$qtmo" "$VM_QEMU" $(vm_args "$accel" "$dev" "$dir/ns.img") -monitor none \
    -serial stdio -append "$append isp.run=cmd isp.timeout=$gtmo" </dev/null 2>&1 |
    awk -v file="$log" '{ gsub(/\r/, ""); print > file; fflush(file) }
        $1 == "@@ISP-START" && $2 == "cmd" { on = 1; next }
        $1 == "@@ISP-RESULT" && $2 == "cmd" { on = 0; next }
        on { print; fflush() }
        $1 == "@@ISP-ERROR" { print "vm-run: guest: " $0 > "/dev/stderr" }' || true
if [ -s "$ctl/rc" ]; then
    rc=$(cat "$ctl/rc")
    case $rc in '' | *[!0-9]*) rc=125 ;; esac
    exit "$rc"
fi
echo "vm-run: the command did not run to its end in the guest; the console ended:" >&2
tail -n 15 "$log" | sed 's/^/    /' >&2
exit 125
