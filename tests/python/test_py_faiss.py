#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""test_py_faiss - the FAISS-shaped indexes. A FAISS user's IndexBinaryFlat
script (python/examples/faiss_binary.py) runs on the drive by changing its
one index line: its output (D, I) equals the `reis` CLI's search of the same
data on the same in-process drive (`reis deploy` of the float vectors whose
signs are the codes, `reis search --no-rerank --no-df -j`), id for id; and
it equals FAISS's own run in distances, and in ids but for ties at the k-th
distance (FAISS orders ties its own way). reis.IndexBinaryFlat pads k above
ntotal with -1 / 2**31-1 as FAISS does, redeploys after an add, reset()
removes the database. reis.IndexBinaryIVF trains, adds (with ids), fills a
FAISS quantizer with its centroids, and searches: with nprobe = nlist it is
the flat search (exhaustive), with fewer probes every hit is a true
neighbour at its true distance and recall@10 rises with nprobe; its results
equal the C library's reference search of the image it deployed."""
import json
import os
import subprocess
import sys
import tempfile

from pycheck import check, done, np, raises, reis, skip, vectors

try:
    import faiss
except ImportError:
    skip("python3-faiss is not installed (scripts/setup-deps.sh)")

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("BUILD", os.path.join(TOP, "build"))
CLI = os.path.join(BUILD, "host-lib", "reis")
SCRIPT = os.path.join(TOP, "python", "examples", "faiss_binary.py")
FAISS_LINE = "index = faiss.IndexBinaryFlat(d)"
DRIVE_LINE = "index = reis.IndexBinaryFlat(d)"


def same_up_to_ties(Da, Ia, Db, Ib):
    if not np.array_equal(Da, Db):
        return False
    for da, ia, ib in zip(Da, Ia, Ib):
        inner = da < da[-1]
        if set(ia[inner]) != set(ib[inner]):
            return False
    return True


def run_script(tmp, text, data, env):
    path = os.path.join(tmp, "user_script.py")
    with open(path, "w") as f:
        f.write(text)
    out = os.path.join(tmp, "out.npz")
    p = subprocess.run([sys.executable, path, data, out], env=env, capture_output=True,
                       text=True)
    check(p.returncode == 0, "the script ran: %s" % p.stderr[-800:])
    z = np.load(out)
    return z["D"], z["I"]


with tempfile.TemporaryDirectory() as tmp:
    # --- 1. the one-line switch, against the CLI and against FAISS ------------------
    x = vectors(2000, 256, seed=21)
    qf = (x[:40] + 0.3 * vectors(40, 256, seed=22)).astype(np.float32)
    codes = np.packbits(x > 0, axis=1, bitorder="little")
    qcodes = np.packbits(qf > 0, axis=1, bitorder="little")
    data = os.path.join(tmp, "data.npz")
    np.savez(data, xb=codes, xq=qcodes)
    np.save(os.path.join(tmp, "x.npy"), x)
    np.save(os.path.join(tmp, "q.npy"), qf)
    text = open(SCRIPT).read()
    check(text.count(FAISS_LINE) == 1, "the example has its one index line")
    bk = os.path.join(tmp, "flash.img")
    env = dict(os.environ, REIS_DEV="inproc", REIS_BACKING=bk)
    Df, If = run_script(tmp, text, data, env)
    Dd, Id = run_script(tmp, text.replace(FAISS_LINE, DRIVE_LINE), data, env)
    check(Dd.shape == (40, 10) and Id.dtype == np.int64 and Dd.dtype == np.int32, "shapes")
    check(same_up_to_ties(Dd, Id, Df, If), "the drive's hits are FAISS's (ties aside)")
    # the CLI on the same drive: the script's database is did 1; deploy the
    # floats whose signs are those codes as did 2 and search it
    cli = [CLI, "--inproc", "--backing", bk]
    p = subprocess.run(cli + ["deploy", "--did", "2", "--no-progress", "--no-int8",
                              os.path.join(tmp, "x.npy")], capture_output=True, text=True)
    check(p.returncode == 0, "reis deploy: %s" % p.stderr)
    p = subprocess.run(cli + ["-j", "search", "--did", "2", "-k", "10", "--no-rerank",
                              "--no-df", os.path.join(tmp, "q.npy")],
                       capture_output=True, text=True)
    check(p.returncode == 0, "reis search: %s" % p.stderr)
    j = json.loads(p.stdout)
    Ic = np.array([[h["id"] for h in qq] for qq in j["queries"]])
    Dc = np.array([[h["hamming"] for h in qq] for qq in j["queries"]])
    check(np.array_equal(Ic, Id) and np.array_equal(Dc, Dd),
          "identical to reis search on the same data, id for id")
    with reis.Drive(inproc=True, backing=bk) as dd:
        check(np.array_equal(dd.db_info(1)["pages"], dd.db_info(2)["pages"]),
              "the script's database and the CLI's take the same pages")

    # --- 2. IndexBinaryFlat details ---------------------------------------------------
    d = reis.Drive(inproc=True)
    idx = reis.IndexBinaryFlat(256, drive=d)
    check(idx.ntotal == 0 and idx.is_trained and idx.code_size == 32, "empty index")
    D, I = idx.search(qcodes[:2], 3)
    check((I == -1).all() and (D == 2**31 - 1).all(), "an empty index pads")
    idx.add(codes[:5])
    D, I = idx.search(qcodes[:2], 8)
    f = faiss.IndexBinaryFlat(256)
    f.add(codes[:5])
    D2, I2 = f.search(qcodes[:2], 8)
    check(np.array_equal(D, D2) and np.array_equal(I[:, 5:], I2[:, 5:]) and
          (I[:, 5:] == -1).all(), "k above ntotal pads like FAISS")
    idx.add(codes[5:])
    check(idx.ntotal == 2000, "ntotal")
    D, I = idx.search(qcodes, 10)
    check(idx.deploys == 2 and np.array_equal(D, Dd), "a second add redeploys")
    check(np.array_equal(idx.reconstruct(17), codes[17]), "reconstruct")
    check(isinstance(raises(lambda: reis.IndexBinaryFlat(100, drive=d)), ValueError),
          "d not a multiple of 64")
    check(isinstance(raises(lambda: idx.search(qcodes[:, :8], 3)), ValueError), "wrong width")
    did = idx.did
    idx.reset()
    check(idx.ntotal == 0 and did not in [i["did"] for i in d.databases()], "reset drops it")

    # --- 3. IndexBinaryIVF --------------------------------------------------------------
    nlist = 16
    quant = faiss.IndexBinaryFlat(256)
    ivf = reis.IndexBinaryIVF(quant, 256, nlist, drive=d)
    check(not ivf.is_trained and ivf.nprobe == 1, "untrained, nprobe 1")
    check(isinstance(raises(lambda: ivf.add(codes)), RuntimeError), "add before train")
    ivf.train(codes)
    check(ivf.is_trained and quant.ntotal == nlist, "the FAISS quantizer got the centroids")
    ivf.add_with_ids(codes, np.arange(2000, dtype=np.int64) + 10**6)
    flat = reis.IndexBinaryFlat(256, drive=d)
    flat.add(codes)
    Dflat, Iflat = flat.search(qcodes, 10)
    ivf.nprobe = nlist
    D, I = ivf.search(qcodes, 10)
    check(np.array_equal(D, Dflat), "nprobe = nlist: the flat distances")
    check(same_up_to_ties(D, I - 10**6, Dflat, Iflat), "nprobe = nlist: the flat hits")
    last = []
    for nprobe in (1, 2, 4, 8):
        ivf.nprobe = nprobe
        D, I = ivf.search(qcodes, 10)
        real = np.array([[bin(int.from_bytes((codes[i - 10**6] ^ qcodes[r]).tobytes(),
                                             "little")).count("1") if i >= 0 else 2**31 - 1
                          for i in row] for r, row in enumerate(I)])
        check(np.array_equal(real, D), "nprobe %d: distances are the true ones" % nprobe)
        rec = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(I - 10**6, Iflat)])
        last.append(rec)
        print("IndexBinaryIVF nlist %d nprobe %d: recall@10 %.3f" % (nlist, nprobe, rec))
    check(last == sorted(last) and last[-1] > last[0], "recall rises with nprobe")
    img = ivf._image()
    rr = img.ref_search(codes=qcodes, k=10, nprobe=8, rerank=False, flags=reis.SF_NO_DF)
    check(np.array_equal(rr.ids, I) and np.array_equal(rr.distances, D),
          "IVF results equal the C reference of its image")
    check(np.array_equal(ivf.reconstruct(10**6 + 3), codes[3]), "reconstruct by id")
    d.close()
done()
