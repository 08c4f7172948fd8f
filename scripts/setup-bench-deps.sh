#!/bin/sh
# Installs what `make bench-search` needs beyond scripts/setup-deps.sh:
# Debian's FAISS and numpy for the FAISS baseline (docs/benchmarks.md).
# Kept out of setup-deps.sh because CI runs no benchmark. Idempotent; needs
# root only when something is missing; without root it says what is missing
# and the benchmark runs without the FAISS rows.
set -eu

PKGS="python3-faiss python3-numpy"
missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed'; then
        missing="$missing $p"
    fi
done
[ -z "$(echo "$missing" | tr -d ' ')" ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "setup-bench-deps: missing:$missing (as root: apt-get install$missing)" >&2
    exit 1
fi
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
