#!/bin/sh
# FAISS with POPCNT for bench_search's second FAISS row (docs/benchmarks.md).
#
# Debian's python3-faiss 1.7.3 is built with FAISS_OPT_LEVEL=generic: no
# -mpopcnt, so every 64-bit Hamming word is a call to libgcc's
# __popcountdi2 (a table-free bit-twiddling loop), not the POPCNT
# instruction. Upstream FAISS ships a second build for this case,
# FAISS_OPT_LEVEL=avx2 (-mavx2 -mfma -mf16c -mpopcnt, faiss/CMakeLists.txt),
# which FAISS's own loader.py picks (swigfaiss_avx2) on a CPU with AVX2.
# This script builds exactly that from Debian's source package (apt-get
# source faiss: the same 1.7.3 with Debian's patches), with Debian's
# compiler flags (dpkg-buildflags, without -g), and lays out a python
# package in $ISP_CACHE/faiss-popcnt/pkg/faiss that bench_search runs
# with PYTHONPATH=$ISP_CACHE/faiss-popcnt/pkg (what this script prints). Nothing is installed system-wide; Debian's module stays
# what the first FAISS row uses.
#
# Needs root only to install the build dependencies (swig, cmake,
# libblas-dev, liblapack-dev, python3-dev, python3-numpy). One build
# (two targets: libfaiss_avx2 and the SWIG wrapper) takes about 20-40 CPU
# minutes; it runs at nice 19 with $FAISS_JOBS jobs (default 1).
# Prints the PYTHONPATH directory on success.
set -eu

CACHE=${ISP_CACHE:-/var/cache/isp-ssd}
DIR=$CACHE/faiss-popcnt
PKG=$DIR/pkg/faiss
JOBS=${FAISS_JOBS:-1}

if [ -f "$PKG/_swigfaiss_avx2.so" ] && [ -f "$PKG/.built" ]; then
    echo "$DIR/pkg"
    exit 0
fi
DEPS="swig cmake g++ libblas-dev liblapack-dev python3-dev python3-numpy dpkg-dev"
missing=""
for p in $DEPS; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
        missing="$missing $p"
done
if [ -n "$(echo "$missing" | tr -d ' ')" ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "faiss-popcnt: missing:$missing (as root: apt-get install$missing)" >&2
        exit 1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing >&2
fi
mkdir -p "$DIR"
cd "$DIR"
if [ ! -d faiss-1.7.3 ]; then
    # Debian's source package, its patches applied by dpkg-source.
    apt-get source faiss >&2
fi
SRC=$(ls -d "$DIR"/faiss-1.7.* | head -n 1)
FLAGS=$(cd "$SRC" && dpkg-buildflags --get CXXFLAGS | sed 's/ -g / /; s/^-g //')
mkdir -p "$DIR/build"
cd "$DIR/build"
# OpenMP stays on (FAISS needs it); the benchmark sets one thread. Debian's
# python, not one earlier in PATH (the module must load into /usr/bin/python3).
cmake "$SRC" -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="$FLAGS" \
    -DFAISS_OPT_LEVEL=avx2 -DFAISS_ENABLE_GPU=OFF -DFAISS_ENABLE_PYTHON=ON \
    -DFAISS_ENABLE_C_API=OFF -DBUILD_TESTING=OFF \
    -DPython_EXECUTABLE=/usr/bin/python3 >&2
nice -n 19 make -j"$JOBS" swigfaiss_avx2 >&2
# The package: FAISS's python files and the AVX2 module only, so the
# loader cannot fall back to the generic build silently.
rm -rf "$PKG"
mkdir -p "$PKG"
cp faiss/python/*.py "$PKG/"
cp faiss/python/_swigfaiss_avx2*.so "$PKG/_swigfaiss_avx2.so"
[ -d "$SRC/contrib" ] && cp -r "$SRC/contrib" "$PKG/" || true
if objdump -d "$PKG/_swigfaiss_avx2.so" | grep -q '\bpopcnt\b'; then
    touch "$PKG/.built"
else
    echo "faiss-popcnt: the built module has no popcnt instruction" >&2
    exit 1
fi
echo "$DIR/pkg"
