#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_host_faiss.py - FAISS's own per-code cost of the REIS host baseline's
scan (docs/timing-model.md "CPU-Real / No-I/O"), for reference beside
bench_host_cpu: Debian's IndexBinaryIVF over random 1024-bit codes, one
thread, one query per search() call (how a RAG pipeline serves a query),
k = 100 candidates. Prints ns per code scanned (nprobe lists + the nlist
centroids). Debian builds FAISS for baseline x86-64, so its popcount is
the portable bit-twiddling one, not POPCNT: an upper bound on the per-code
cost of the FAISS build the paper ran.

Usage: bench_host_faiss.py [N]   (N codes, default 1048576; 1-3 min, mostly training)
"""
import sys
import time

# --help before the imports (FAISS may be missing); N a number >= 1
if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
    print(__doc__.strip())
    sys.exit(0)
if len(sys.argv) > 2 or (len(sys.argv) > 1 and not sys.argv[1].isdigit()) or \
        (len(sys.argv) > 1 and int(sys.argv[1]) < 1):
    sys.stderr.write("bench_host_faiss.py: bad argument %r\n"
                     "usage: bench_host_faiss.py [N]   (N codes >= 1, default 1048576)\n"
                     % " ".join(sys.argv[1:]))
    sys.exit(2)

import faiss  # noqa: E402
import numpy as np  # noqa: E402


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 20
    nlist, nprobe, k, nq = 256, 16, 100, 50
    faiss.omp_set_num_threads(1)
    rng = np.random.default_rng(1)
    xb = rng.integers(0, 256, size=(n, 128), dtype=np.uint8)
    xq = rng.integers(0, 256, size=(nq, 128), dtype=np.uint8)
    quant = faiss.IndexBinaryFlat(1024)
    index = faiss.IndexBinaryIVF(quant, 1024, nlist)
    index.train(xb[: 32 * nlist])  # a small training set: the scan, not recall, is timed
    index.add(xb)
    index.nprobe = nprobe
    best = None
    for _ in range(3):
        t = time.perf_counter()
        for i in range(nq):
            index.search(xq[i: i + 1], k)
        t = (time.perf_counter() - t) / nq
        best = t if best is None or t < best else best
    scanned = n * nprobe / nlist + nlist
    print("faiss %s IndexBinaryIVF nlist %d nprobe %d k %d, one query per call: "
          "%.1f us per query, %.3f ns per code scanned"
          % (faiss.__version__, nlist, nprobe, k, best * 1e6, best * 1e9 / scanned))


if __name__ == "__main__":
    main()
