#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_search_faiss.py - the FAISS baseline of bench_search (docs/benchmarks.md).

bench_search writes the binary codes, INT8 codes and queries of a workload
into --dir; this runs Debian's FAISS on them with one thread:
IndexBinaryFlat (and IndexBinaryIVF with --nlist/--nprobe) returning
k x factor candidates, then the same INT8 rerank (inner product, ties by
Hamming then entry) in numpy. It prints "flat <CPU us per query>" and
"ivf <CPU us per query>" (the minimum of --rounds) and writes each
method's top-k entries (uint32, query-major) to flat.top / ivf.top.
"""
import argparse
import os
import time

import faiss
import numpy as np


def rerank(cand_d, cand_i, int8, q8, k):
    """Top k of the candidates by INT8 inner product, ties by (Hamming, entry)."""
    out = np.full((len(q8), k), 0xFFFFFFFF, dtype=np.uint32)
    for qi in range(len(q8)):
        ok = cand_i[qi] >= 0
        ids = cand_i[qi][ok]
        ham = cand_d[qi][ok]
        s = int8[ids].astype(np.int32) @ q8[qi].astype(np.int32)
        order = np.lexsort((ids, ham, -s))[:k]
        out[qi, :len(order)] = ids[order]
    return out


def run(index, qbin, int8, q8, k, factor, rounds):
    best, top = None, None
    for _ in range(rounds):
        t = time.process_time()
        d, i = index.search(qbin, k * factor)
        top = rerank(d, i, int8, q8, k)
        t = time.process_time() - t
        best = t if best is None or t < best else best
    return best * 1e6 / len(qbin), top


def main():
    ap = argparse.ArgumentParser()
    for a in ("n", "dim", "nq", "k", "factor", "rounds", "nlist", "nprobe"):
        ap.add_argument("--" + a, type=int, required=True)
    ap.add_argument("--dir", required=True)
    a = ap.parse_args()
    faiss.omp_set_num_threads(1)
    nb = a.dim // 8

    def load(name, dt, cols):
        return np.fromfile(os.path.join(a.dir, name), dtype=dt).reshape(-1, cols)

    codes = load("codes.bin", np.uint8, nb)
    int8 = load("int8.bin", np.int8, a.dim)
    qbin = load("qbin.bin", np.uint8, nb)
    q8 = load("q8.bin", np.int8, a.dim)
    assert len(codes) == a.n and len(qbin) == a.nq
    print("version", faiss.__version__, flush=True)

    flat = faiss.IndexBinaryFlat(a.dim)
    flat.add(codes)
    us, top = run(flat, qbin, int8, q8, a.k, a.factor, a.rounds)
    top.tofile(os.path.join(a.dir, "flat.top"))
    print("flat", us, flush=True)

    if a.nlist:
        quant = faiss.IndexBinaryFlat(a.dim)
        ivf = faiss.IndexBinaryIVF(quant, a.dim, a.nlist)
        ivf.train(codes)
        ivf.add(codes)
        ivf.nprobe = a.nprobe
        us, top = run(ivf, qbin, int8, q8, a.k, a.factor, a.rounds)
        top.tofile(os.path.join(a.dir, "ivf.top"))
        print("ivf", us, flush=True)


if __name__ == "__main__":
    main()
