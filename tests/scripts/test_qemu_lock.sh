#!/bin/sh
# test_qemu_lock.sh - QEMU builds lock per cache entry and say who holds it
# (scripts/lock-lib.sh, scripts/qemu-build.sh):
#   1. lock_take on a held lock waits, and says for what, the holder's pid,
#      checkout and since when; it gets the lock once the holder is gone;
#   2. another entry's lock does not wait for it;
#   3. a record left by a killed holder is named as no longer running;
#   4. qemu-build.sh itself: with 7.2's download lock held by another
#      checkout, a 7.2 build waits naming that holder, while a 10.0 build
#      (same cache) does not wait for it (it fails at once here: no source,
#      an unreachable mirror).
# Root-free and offline: a private ISP_CACHE. Exit 0 pass, 1 fail, 77 skip.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
command -v flock >/dev/null 2>&1 || { echo "SKIP: flock missing"; exit 77; }
tmp=$(mktemp -d)
holder=
trap 'kill $holder 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# hold LOCK CHECKOUT: a background process of another "checkout" holding it
hold() {
    # a process of its own, so that its $$ is the pid it records
    ROOT=$2 TOP=$TOP sh -c '. "$TOP/scripts/lock-lib.sh"
        lock_take 9 "$1" test >/dev/null && echo held >"$2" && exec sleep 60' sh "$1" "$tmp/held" &
    holder=$!
    i=0
    while [ ! -f "$tmp/held" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    rm -f "$tmp/held"
}

. "$TOP/scripts/lock-lib.sh"
ROOT=/checkouts/mine

# --- 1. waits, names the holder, then gets it ------------------------------
hold "$tmp/a.lock" /checkouts/other
pid_a=$holder
( LOCK_LOG=t lock_take 8 "$tmp/a.lock" "tree A"; echo "got it" ) >"$tmp/out1" 2>&1 &
waiter=$!
sleep 1.5
grep -q "^t: waiting for tree A: pid $pid_a (checkout /checkouts/other) since [0-9-]* [0-9:]* ([0-9]* s ago) holds it ($tmp/a.lock)$" "$tmp/out1" ||
    fail "the waiting line does not name the holder: $(cat "$tmp/out1")"
grep -q "got it" "$tmp/out1" && fail "took a held lock"
kill "$pid_a"
wait "$pid_a" 2>/dev/null
wait "$waiter"
grep -q "^t: tree A is free after [0-9]* s$" "$tmp/out1" || fail "no 'free after' line: $(cat "$tmp/out1")"
grep -q "got it" "$tmp/out1" || fail "did not get the lock after the holder left"
grep -q "^checkout=/checkouts/mine$" "$tmp/a.lock.owner" || fail "the new holder is not recorded"

# --- 2. another entry does not wait -----------------------------------------
hold "$tmp/b.lock" /checkouts/other
( lock_take 8 "$tmp/c.lock" "tree C"; echo "got it" ) >"$tmp/out2" 2>&1
grep -q waiting "$tmp/out2" && fail "waited for another entry's lock: $(cat "$tmp/out2")"
lock_busy "$tmp/b.lock" || fail "lock_busy does not see the held lock"
lock_busy "$tmp/c.lock" && fail "lock_busy sees a free lock as held"
kill "$holder"
wait "$holder" 2>/dev/null

# --- 3. a killed holder's record -------------------------------------------
printf 'pid=999999999\ncheckout=/checkouts/gone\nsince=%s\n' "$(date +%s)" >"$tmp/d.lock.owner"
lock_held_by "$tmp/d.lock" | grep -q "^pid 999999999, no longer running (checkout /checkouts/gone)" ||
    fail "a dead holder is not named as such: $(lock_held_by "$tmp/d.lock")"

# --- 4. qemu-build.sh -------------------------------------------------------
export ISP_CACHE=$tmp/cache BUILD=$tmp/build
mkdir -p "$ISP_CACHE/downloads" "$BUILD"
hold "$ISP_CACHE/downloads/.qemu-7.2.lock" /checkouts/other
QEMU_VERSION=7.2 timeout 4 "$TOP/scripts/qemu-build.sh" >"$tmp/out4" 2>&1
grep -q "^qemu-build 7.2: waiting for the qemu 7.2 download: pid $holder (checkout /checkouts/other) since " "$tmp/out4" ||
    fail "qemu-build 7.2 does not say who holds the download: $(cat "$tmp/out4")"
APT_SUITE_MIRROR=http://127.0.0.1:9/debian QEMU_VERSION=10.0 timeout 60 \
    "$TOP/scripts/qemu-build.sh" >"$tmp/out5" 2>&1
grep -q "waiting" "$tmp/out5" && fail "qemu-build 10.0 waited for 7.2's lock: $(cat "$tmp/out5")"
grep -q "error:" "$tmp/out5" || fail "qemu-build 10.0 without source should fail: $(cat "$tmp/out5")"
kill "$holder"
wait "$holder" 2>/dev/null
holder=

[ "$fails" = 0 ] || exit 1
echo "qemu locks: per entry, holder named, dead holder named"
