# shellcheck shell=sh
# lock-lib.sh - sourced: exclusive locks on cache entries that say who
# holds them. Several checkouts (and make -j) share one $ISP_CACHE; each
# entry (a QEMU tree of one cache key, one version's downloads) has its own
# lock, so a build waits only for a build of the same thing, and a waiting
# build prints who holds it (pid, checkout, since when) and how long it
# waited.
#
#   lock_take FD PATH WHAT   open PATH on descriptor FD, wait for its lock
#                            (saying for what: WHAT), then record this
#                            process as the holder in PATH.owner
#   lock_held_by PATH        the holder's record: "pid N (checkout DIR) since
#                            TIME (S s ago)", or nothing
#   lock_busy PATH           true when someone holds PATH's lock now
#
# The lock is the kernel's flock(2) on PATH, so it ends with the process
# (or when the caller closes FD: exec FD>&-). The owner record is a hint
# for the message: a holder that was killed leaves it behind, which is
# harmless (the next holder overwrites it; a dead pid is said so).
# Callers may set LOCK_LOG (a prefix for the messages, default "lock") and
# LOCK_CHECKOUT (what to name as this process's checkout, default $ROOT or
# the working directory).

lock_held_by() {
    _lo=$1.owner
    [ -f "$_lo" ] || return 0
    _pid='' _co='' _since=''
    # shellcheck disable=SC2034
    while IFS='=' read -r _k _v; do
        case $_k in
        pid) _pid=$_v ;;
        checkout) _co=$_v ;;
        since) _since=$_v ;;
        esac
    done <"$_lo"
    [ -n "$_pid" ] || return 0
    _now=$(date +%s)
    _gone=
    [ -d "/proc/$_pid" ] || _gone=", no longer running"
    printf 'pid %s%s (checkout %s) since %s (%s s ago)' "$_pid" "$_gone" "${_co:-?}" \
        "$(date -d "@${_since:-0}" '+%Y-%m-%d %H:%M:%S' 2>/dev/null || echo "${_since:-?}")" \
        "$((_now - ${_since:-$_now}))"
}

lock_busy() {
    # a subshell of its own: the probe's descriptor goes with it
    ( exec 7>>"$1" && ! flock -n 7 ) 2>/dev/null
}

lock_take() {
    _fd=$1 _lp=$2 _what=$3
    mkdir -p "$(dirname "$_lp")"
    eval "exec $_fd>>\"\$_lp\""
    if ! flock -n "$_fd"; then
        _who=$(lock_held_by "$_lp")
        echo "${LOCK_LOG:-lock}: waiting for $_what: ${_who:-held by another build}${_who:+ holds it} ($_lp)"
        _t0=$(date +%s)
        flock "$_fd"
        echo "${LOCK_LOG:-lock}: $_what is free after $(($(date +%s) - _t0)) s"
    fi
    {
        echo "pid=$$"
        echo "checkout=${LOCK_CHECKOUT:-${ROOT:-$(pwd)}}"
        echo "since=$(date +%s)"
    } >"$_lp.owner.$$"
    mv -f "$_lp.owner.$$" "$_lp.owner"
}
