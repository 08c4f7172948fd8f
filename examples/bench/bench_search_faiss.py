#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_search_faiss.py - the FAISS baseline of bench_search (docs/benchmarks.md).

bench_search writes the binary codes and queries of a workload into --dir
(and for IVF the image's centroids and each entry's cluster); this runs
FAISS on them with one thread, every query in one search call:
IndexBinaryFlat and, with --nlist/--nprobe, IndexBinaryIVF whose quantizer
holds the image's own centroids and whose lists hold the image's own
clusters (the clusters the emulator probes), each returning --cand
candidates a query. It prints "flat <CPU us per query>" and
"ivf <CPU us per query>" (search only, the minimum of --rounds) and writes
the candidates (int64 labels, int32 Hamming distances, query-major) to
flat.lab / flat.dist / ivf.lab / ivf.dist: bench_search reranks them in C
with its own INT8 rerank and adds that time. "build" says which FAISS
module loaded: "generic" (Debian's python3-faiss: no POPCNT) or "avx2"
(FAISS_OPT_LEVEL=avx2, -mpopcnt; scripts/faiss-popcnt.sh).
"""
import argparse
import os
import sys
import time

import faiss
import numpy as np


def run(index, qbin, cand, rounds):
    best, out = None, None
    for _ in range(rounds):
        t = time.process_time()
        d, i = index.search(qbin, cand)
        t = time.process_time() - t
        if best is None or t < best:
            best, out = t, (d, i)
    return best * 1e6 / len(qbin), out


def save(dirname, name, res):
    d, i = res
    i.astype(np.int64).tofile(os.path.join(dirname, name + ".lab"))
    d.astype(np.int32).tofile(os.path.join(dirname, name + ".dist"))


def main():
    ap = argparse.ArgumentParser()
    for a in ("n", "dim", "nq", "cand", "rounds", "nlist", "nprobe"):
        ap.add_argument("--" + a, type=int, required=True)
    ap.add_argument("--dir", required=True)
    a = ap.parse_args()
    faiss.omp_set_num_threads(1)
    nb = a.dim // 8

    def load(name, dt, cols):
        return np.fromfile(os.path.join(a.dir, name), dtype=dt).reshape(-1, cols)

    codes = load("codes.bin", np.uint8, nb)
    qbin = load("qbin.bin", np.uint8, nb)
    assert len(codes) == a.n and len(qbin) == a.nq
    print("version", faiss.__version__, flush=True)
    avx2 = "faiss.swigfaiss_avx2" in sys.modules
    print("build", "avx2" if avx2 else "generic", flush=True)

    flat = faiss.IndexBinaryFlat(a.dim)
    flat.add(codes)
    us, res = run(flat, qbin, a.cand, a.rounds)
    save(a.dir, "flat", res)
    print("flat", us, flush=True)
    del flat

    if a.nlist:
        cent = load("centroids.bin", np.uint8, nb)
        assign = np.fromfile(os.path.join(a.dir, "assign.bin"), dtype=np.int64)
        assert len(cent) == a.nlist and len(assign) == a.n
        quant = faiss.IndexBinaryFlat(a.dim)
        quant.add(cent)
        ivf = faiss.IndexBinaryIVF(quant, a.dim, a.nlist)
        ivf.is_trained = True
        ivf.add_core(a.n, faiss.swig_ptr(codes), None, faiss.swig_ptr(assign))
        ivf.nprobe = a.nprobe
        us, res = run(ivf, qbin, a.cand, a.rounds)
        save(a.dir, "ivf", res)
        print("ivf", us, flush=True)


if __name__ == "__main__":
    main()
