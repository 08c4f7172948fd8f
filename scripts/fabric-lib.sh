# shellcheck shell=sh
# fabric-lib.sh - sourced by the guest-side fabric scripts (fabric-target.sh,
# fabric-connect.sh, tests/vm/fabric-node.sh); guest-image.sh puts them all
# in the guest's /bin. Callers define die().

# fab_modules: load what /etc/isp-fabric-modules lists (scripts/guest-image.sh
# keeps the fabric's modules apart from the ones every boot loads).
fab_modules() {
    [ -f /etc/isp-fabric-modules ] || return 0
    while read -r _mod; do
        _name=$(basename "$_mod" .ko | tr - _)
        grep -q "^$_name " /proc/modules || insmod "/lib/modules/$_mod" ||
            die "insmod $_mod failed"
    done </etc/isp-fabric-modules
}

# fab_linklocal ADDR: the fabric never leaves the private link.
fab_linklocal() {
    case $1 in
    169.254.*.*) ;;
    *) die "$1 is not an IPv4 link-local address (169.254.x.y): the fabric stays on the private link" ;;
    esac
}

# fab_numbers VALUE...: each a decimal number.
fab_numbers() {
    for _v in "$@"; do
        case $_v in
        "" | *[!0-9]*) die "'$_v' is not a number" ;;
        esac
    done
}
