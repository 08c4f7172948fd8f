#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""rag_demo.py - RAG retrieval through the drive and through FAISS, side by side.

The Python twin of the main demo (`make demo ISP_DEMO=python`,
docs/debian-guest.md): in the Debian guest, with the host's corpus and
questions in the shared folder.

  1. read the corpus: the 20 000 WordNet glosses and their 512-d USE-lite
     embeddings (docs/corpus.md), the documents "lemmas: gloss";
  2. the questions: the user's (embedded on the host with the corpus' model,
     --questions/--qvecs), else 8 of the corpus' example sentences whose own
     gloss is among the exact top 3;
  3. the drive: find database --did (77) or deploy it from the numpy arrays
     with the documents: brute force, binary codes and INT8 codes;
  4. per question, through the drive: the search with the INT8 rerank (its
     passages, the modeled time and energy) and the binary search alone;
  5. the same in FAISS, in the same guest: IndexBinaryFlat over the very
     codes the drive holds (the drive's binary search must give the same
     hits: checked), IndexFlatIP over the float vectors (exact: the recall
     reference), each timed on the guest's CPU;
  6. the summary table: hits, recall, modeled drive cost against measured
     FAISS time.

    rag_demo.py --corpus DIR [--questions Q.txt --qvecs Q.fvecs] [--k 5]
"""
import argparse
import os
import sys
import time

import numpy as np

import reis

try:
    import faiss
except ImportError:          # the demo still runs the drive's side
    faiss = None


def read_vecs(path, dtype):
    """.fvecs / .ivecs: each row an int32 dimension, then the values."""
    raw = np.fromfile(path, dtype=np.int32)
    if raw.size == 0:
        return np.zeros((0, 0), dtype)
    d = int(raw[0])
    return raw.reshape(-1, d + 1)[:, 1:].copy().view(dtype)


def load_corpus(cdir):
    """Vectors, documents "lemmas: gloss", queries with their answers."""
    x = read_vecs(os.path.join(cdir, "passages.fvecs"), np.float32)
    blob = open(os.path.join(cdir, "docs.bin"), "rb").read()
    off = np.fromfile(os.path.join(cdir, "docs.idx"), dtype=np.uint64)
    lemmas = [line.rstrip("\n").split("\t")[4] for line in
              open(os.path.join(cdir, "passages.tsv"), encoding="utf-8")]
    docs = [("%s: " % lemmas[i]).encode() + blob[off[i]:off[i + 1]] for i in range(len(x))]
    q = read_vecs(os.path.join(cdir, "queries.fvecs"), np.float32)
    qtext = open(os.path.join(cdir, "queries.txt"), encoding="utf-8").read().splitlines()
    answer = read_vecs(os.path.join(cdir, "queries_gt.ivecs"), np.int32)[:, 0]
    top = read_vecs(os.path.join(cdir, "gt_top100.ivecs"), np.int32)
    return x, docs, q, qtext, answer, top


def builtin_questions(q, qtext, answer, top, n=8):
    """Example sentences whose own gloss is among the exact top 3."""
    pick = [i for i in range(len(q))
            if answer[i] in top[i, :3] and 12 <= len(qtext[i]) < 120][:n]
    return [qtext[i] for i in pick], q[pick], [int(answer[i]) for i in pick]


def find_or_deploy(drive, did, x, docs):
    """The database on the drive, or deployed now from the numpy arrays."""
    try:
        info = drive.db_info(did)
        if info["n"] == len(x) and info["name"] == "wordnet-py" and info["ready"]:
            print("drive: database %d found (%d passages, deployed before)" % (did, info["n"]))
            return
        drive.delete(did)
    except reis.Error as e:
        if e.errno != 2:
            raise
    t0 = time.time()
    info = drive.deploy(did, x, docs=docs, int8=True, name="wordnet-py")
    print("drive: deployed database %d: %d passages of %d dims with documents, "
          "modeled %.1f ms and %.2f J for the deploy (%.0f s here)"
          % (did, info["n"], info["dim"], info["time_ns"] / 1e6, info["energy_nj"] / 1e9,
             time.time() - t0))


def same_binary_hits(Dr, Ir, Df, If):
    """The drive's and FAISS's binary top-k agree: the same distances, and the
    same ids but for ties at the k-th distance (each orders ties its own way).
    Returns (agree, ids that differ only by a boundary tie)."""
    if not np.array_equal(Dr, Df):
        return False, 0
    ties = 0
    for dr, ir, irf in zip(Dr, Ir, If):
        inner = dr < dr[-1]
        if set(ir[inner]) != set(irf[inner]):
            return False, 0
        ties += len(set(ir[~inner]) ^ set(irf[~inner])) // 2
    return True, ties


def timed(fn, reps=3):
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return out, best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", required=True, help="the corpus directory (docs/corpus.md)")
    ap.add_argument("--questions", help="the user's questions, one a line")
    ap.add_argument("--qvecs", help="their embeddings (.fvecs, the corpus' model)")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--did", type=int, default=77)
    ap.add_argument("--json", help="also write the hits and costs to this file (the VM test "
                    "compares the guest's with the host's)")
    ap.add_argument("--dev", help="the drive (default: the first ISP drive found; 'inproc': "
                    "the drive model in this process)")
    args = ap.parse_args()

    x, docs, q, qtext, answer, top = load_corpus(args.corpus)
    if args.questions:
        texts = open(args.questions, encoding="utf-8").read().splitlines()
        qv = read_vecs(args.qvecs, np.float32)
        if len(texts) != len(qv):
            sys.exit("rag_demo: %d questions but %d embeddings" % (len(texts), len(qv)))
        answers = [None] * len(texts)
    else:
        texts, qv, answers = builtin_questions(q, qtext, answer, top)
    k = args.k

    drive = reis.Drive(inproc=True) if args.dev == "inproc" else reis.Drive(args.dev)
    print("drive: %s over %s, preset %s" % (drive.path, drive.transport, drive.info()["preset"]))
    find_or_deploy(drive, args.did, x, docs)

    # The drive: the full search (binary in the dies, INT8 rerank), then the
    # binary search alone - the part FAISS's binary index does.
    full = drive.search(args.did, qv, k=k, docs=True)
    binr = drive.search(args.did, qv, k=k, rerank=False, flags=reis.SF_NO_DF)
    codes, _ = drive.encode(args.did, qv)

    rows = []
    if faiss is not None:
        # The very codes the drive holds: the quantizer stored with the database.
        base_codes, _ = drive.encode(args.did, x)
        fb = faiss.IndexBinaryFlat(x.shape[1])
        fb.add(base_codes)
        (Df, If), t_fb = timed(lambda: fb.search(codes, k))
        ff = faiss.IndexFlatIP(x.shape[1])
        ff.add(x)
        (_, Ix), t_ff = timed(lambda: ff.search(qv, k))
        agree, ties = same_binary_hits(binr.distances, binr.ids, Df, If)
    for i, text in enumerate(texts):
        print("\nQ%d: %s" % (i + 1, text))
        for r in range(int(full.nhits[i])):
            doc = full.docs[i][r].decode("utf-8", "replace")
            print("  %d. [%5d] score %6d  %s" % (r + 1, full.ids[i, r], full.scores[i, r],
                                                  doc[:100]))
        if answers[i] is not None:
            got = list(full.ids[i])
            print("  the sentence's own gloss [%d] is hit %s" %
                  (answers[i], got.index(answers[i]) + 1 if answers[i] in got else "not in the top %d" % k))
        row = {"q": i + 1}
        if faiss is not None:
            exact = set(Ix[i])
            row["recall_drive"] = len(exact & set(full.ids[i])) / k
            row["recall_bin"] = len(exact & set(binr.ids[i])) / k
            row["faiss_top1"] = int(Ix[i, 0])
        rows.append(row)

    nq = len(texts)
    print("\n%d questions, k = %d; the drive's modeled cost against FAISS on this guest's CPU"
          % (nq, k))
    print("  %-42s %12s %12s %10s" % ("", "time", "energy", "recall@k"))
    rec = lambda key: sum(r[key] for r in rows) / nq if faiss is not None else float("nan")
    print("  %-42s %9.1f us %9.1f uJ %10.3f" % ("drive, binary + INT8 rerank (modeled)",
                                                 full.time_ns / 1e3 / nq,
                                                 full.energy_nj / 1e3 / nq, rec("recall_drive")))
    print("  %-42s %9.1f us %9.1f uJ %10.3f" % ("drive, binary only (modeled)",
                                                 binr.time_ns / 1e3 / nq,
                                                 binr.energy_nj / 1e3 / nq, rec("recall_bin")))
    if faiss is not None:
        print("  %-42s %9.1f us %12s %10.3f" % ("FAISS IndexBinaryFlat (measured, no POPCNT)",
                                                 t_fb * 1e6 / nq, "-", rec("recall_bin")))
        print("  %-42s %9.1f us %12s %10.3f" % ("FAISS IndexFlatIP, exact (measured)",
                                                 t_ff * 1e6 / nq, "-", 1.0))
        print("drive binary search vs FAISS IndexBinaryFlat: %s" %
              ("the same hits (%d ids differ only by ties at the k-th distance)" % ties
               if agree else "DIFFERENT hits"))
        print("FAISS is Debian's python3-faiss %s, built without POPCNT; its times are "
              "measured on the CPU this runs on (in the guest: QEMU's emulated CPU), the "
              "drive's are modeled for the drive's hardware." % faiss.__version__)
    else:
        print("FAISS is not installed: only the drive's side ran")
    if args.json:
        import json
        out = {"ids": full.ids.tolist(), "scores": full.scores.tolist(),
               "binary_ids": binr.ids.tolist(), "binary_distances": binr.distances.tolist(),
               "docs": [[b.decode("utf-8", "replace") for b in q] for q in full.docs],
               "time_ns": full.time_ns, "energy_nj": full.energy_nj,
               "faiss_agrees": bool(agree) if faiss is not None else None,
               "recall_drive": rec("recall_drive") if faiss is not None else None}
        with open(args.json, "w") as f:
            json.dump(out, f)
    drive.close()
    return 0 if faiss is None or agree else 1


if __name__ == "__main__":
    sys.exit(main())
