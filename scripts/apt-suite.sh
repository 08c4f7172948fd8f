# shellcheck shell=sh
# apt-suite.sh - sourced: apt-get and apt-cache over one Debian suite the
# machine's own sources may lack (bookworm-backports for the 6.12 guest
# kernel, and later QEMU 10.0's source package), in a private apt state
# under $ISP_CACHE/apt/<suite>/. The machine's /etc/apt and its package
# lists are never written. Callers set ISP_CACHE and use set -eu.
#
#   apt_suite SUITE          set up SUITE's state; fetch its lists when they
#                            are missing or older than a day (needs network)
#   apt_suite_update         fetch them now
#   apt_suite_get ARGS...    apt-get in that state (download, source, ...)
#   apt_suite_cache ARGS...  apt-cache in that state (policy, showsrc, ...)

APT_SUITE_MIRROR=${APT_SUITE_MIRROR:-http://deb.debian.org/debian}
APT_SUITE_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

apt_suite() {
    APT_SUITE_DIR=$ISP_CACHE/apt/$1
    mkdir -p "$APT_SUITE_DIR/etc" "$APT_SUITE_DIR/lists/partial" \
        "$APT_SUITE_DIR/archives/partial"
    # Only the suite itself: its packages must not be outvoted by the
    # machine's, and what apt picks must not depend on the host's sources.
    printf '%s\n' \
        "deb [signed-by=$APT_SUITE_KEYRING] $APT_SUITE_MIRROR $1 main" \
        "deb-src [signed-by=$APT_SUITE_KEYRING] $APT_SUITE_MIRROR $1 main" \
        >"$APT_SUITE_DIR/etc/sources.list.tmp"
    if cmp -s "$APT_SUITE_DIR/etc/sources.list.tmp" "$APT_SUITE_DIR/etc/sources.list"; then
        rm -f "$APT_SUITE_DIR/etc/sources.list.tmp"
    else
        mv -f "$APT_SUITE_DIR/etc/sources.list.tmp" "$APT_SUITE_DIR/etc/sources.list"
        # another mirror: its lists are not there yet, however fresh the old
        rm -f "$APT_SUITE_DIR/lists/"*Release
    fi
    # Binary caches (pkgcache.bin) would otherwise land in /var/cache/apt.
    APT_SUITE_OPTS="-o Dir::Etc::SourceList=$APT_SUITE_DIR/etc/sources.list
        -o Dir::Etc::SourceParts=/nonexistent
        -o Dir::State::Lists=$APT_SUITE_DIR/lists
        -o Dir::Cache::Archives=$APT_SUITE_DIR/archives
        -o Dir::Cache::pkgcache=$APT_SUITE_DIR/pkgcache.bin
        -o Dir::Cache::srcpkgcache=$APT_SUITE_DIR/srcpkgcache.bin
        -o Dir::State::status=/var/lib/dpkg/status"
    fresh=$(find "$APT_SUITE_DIR/lists" -maxdepth 1 -name '*_InRelease' \
        -mmin -1440 2>/dev/null | head -n 1)
    [ -n "$fresh" ] || apt_suite_update
}

# apt_suite_update: fetch the lists now (also when a download finds them
# naming files the archive no longer has); older lists are kept and used
# when the mirror cannot be reached.
apt_suite_update() {
    # Two builds refreshing at once would trip over apt's list lock.
    (
        flock 8
        # shellcheck disable=SC2086
        if ! apt-get $APT_SUITE_OPTS -q update >"$APT_SUITE_DIR/update.log" 2>&1; then
            tail -n 5 "$APT_SUITE_DIR/update.log" >&2
            ls "$APT_SUITE_DIR/lists/"*_InRelease >/dev/null 2>&1 || {
                echo "apt-suite: apt-get update of $APT_SUITE_DIR failed (network?)" >&2
                exit 1
            }
            echo "apt-suite: warning: apt-get update failed; using the older lists in $APT_SUITE_DIR" >&2
            exit 0
        fi
        # apt keeps an unchanged list's old mtime: mark this check's time
        touch "$APT_SUITE_DIR/lists/"*_InRelease
    ) 8>"$APT_SUITE_DIR/lock"
}

apt_suite_get() {
    # shellcheck disable=SC2086
    apt-get $APT_SUITE_OPTS "$@"
}

apt_suite_cache() {
    # shellcheck disable=SC2086
    apt-cache $APT_SUITE_OPTS "$@"
}
