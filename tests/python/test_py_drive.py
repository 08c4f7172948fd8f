#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""test_py_drive - the Python module's databases and searches against the C
library's results, on the in-process drive: a brute-force database deployed
from numpy arrays with documents, ids and tags, searched with float queries
and with pre-encoded codes (the same hits), hit by hit equal to
Image.ref_search (reis_ref_search, the drive's search recomputed by the C
library on the host): ids, Hamming distances, INT8 scores, entries,
documents; a binary search equal to reis.hamming_knn (reis_hamming_knn);
the tag filter; an IVF database with nprobe and with a target recall from
its calibration table (reference equal again); an image saved and loaded
back deploys the same database; databases()/db_info()/delete(); the
modeled time and energy of every call positive and the ISP_STATS counters
moving by one search per query; a backing file keeps the database for the
next Drive."""
import os
import tempfile

from pycheck import check, done, np, reis, vectors

DIM = 128
d = reis.Drive(inproc=True)
check(d.transport == "inproc" and not d.closed, "an in-process drive")
check(d.info()["preset"] == "reis-ssd1", "the default preset")

x = vectors(600, DIM, seed=3)
q = x[[5, 77, 300]] + 0.05 * vectors(3, DIM, seed=4)
q = q.astype(np.float32)
docs = ["passage %d: %s" % (i, "x" * (i % 50)) for i in range(len(x))]
ids = np.arange(1000, 1000 + len(x), dtype=np.uint64)
tags = (np.arange(len(x)) % 3).astype(np.uint32)

# --- brute force from numpy arrays, with documents ---------------------------------
img = reis.build(x, did=1, docs=docs, ids=ids, tags=tags, name="py-bf")
check(img.info["n"] == 600 and img.info["int8"] and img.info["quantizer"], "built image")
info = d.deploy_image(img)
check(info["did"] == 1 and info["n"] == 600 and info["name"] == "py-bf", "deployed")
check(info["time_ns"] > 0 and info["energy_nj"] > 0 and info["bytes"] > 600 * DIM,
      "the deploy's modeled cost")
st0 = d.stats()
r = d.search(1, q, k=10, docs=True)
st1 = d.stats()
check(st1["searches"] - st0["searches"] == 3, "three queries answered")
ref = img.ref_search(q, k=10, docs=True)
for name in ("ids", "distances", "scores", "entries", "nhits"):
    check(np.array_equal(getattr(r, name), getattr(ref, name)), "%s equal the C reference" % name)
check(r.docs == ref.docs, "documents equal the C reference")
check(r.docs[0][0] == docs[r.entries[0, 0]].encode(), "a document is its passage")
check(r.ids.dtype == np.int64 and r.distances.dtype == np.int32, "FAISS's dtypes")
check(r.ids[0, 0] == 1005 and r.ids[1, 0] == 1077 and r.ids[2, 0] == 1300, "nearest first")
check(r.time_ns == r.search_ns + r.read_ns and r.time_ns > 0 and r.energy_nj > 0,
      "modeled time and energy")
check(r.reranked == 3 * 100 and r.entries_compared == 3 * 600, "rerank and compare counts")

# the same search from pre-encoded codes
b, i8 = d.encode(1, q)
b2, i82 = img.encode(q)
check(np.array_equal(b, b2) and np.array_equal(i8, i82), "drive and image encode alike")
r2 = d.search(1, codes=b, int8=i8, k=10)
check(np.array_equal(r2.ids, r.ids) and np.array_equal(r2.scores, r.scores),
      "codes give the same hits as floats")
check(r2.docs is None, "no documents unless asked")

# binary only: equal to the C library's exact Hamming k-NN
rb = d.search(1, codes=b, k=10, rerank=False, flags=reis.SF_NO_DF)
D, I = reis.hamming_knn(img.codes, b, 10)
check(np.array_equal(rb.distances, D), "binary distances equal reis_hamming_knn")
check(np.array_equal(rb.entries, I), "binary entries equal reis_hamming_knn")
check((rb.scores == 0).all() and rb.reranked == 0, "no rerank scores")

# tags
rt = d.search(1, q, k=5, tag=2)
check(((rt.ids - 1000) % 3 == 2).all(), "only entries tagged 2")
check(np.array_equal(rt.ids, img.ref_search(q, k=5, tag=2).ids), "tag filter equals the reference")

# a single query as a 1-D array
r1 = d.search(1, q[0], k=3)
check(r1.ids.shape == (1, 3) and np.array_equal(r1.ids, d.search(1, q[:1], k=3).ids),
      "one 1-D query")

# --- IVF with calibration ----------------------------------------------------------
calib = vectors(60, DIM, seed=9)
ivf = d.deploy(2, x, kind="ivf", nlist=16, calib_queries=calib, docs=docs)
check(ivf["kind"] == "ivf" and ivf["nlist"] == 16 and ivf["ncalib"] > 0, "IVF deployed")
imgi = reis.build(x, did=2, kind="ivf", nlist=16, calib_queries=calib, docs=docs)
for kw in ({"nprobe": 3}, {"nprobe": 16}, {"target_recall": 0.9}):
    ri = d.search(2, q, k=10, docs=True, **kw)
    rr = imgi.ref_search(q, k=10, docs=True, **kw)
    check(np.array_equal(ri.ids, rr.ids) and np.array_equal(ri.scores, rr.scores) and
          ri.docs == rr.docs, "IVF %s equals the reference" % kw)
    check(ri.nprobe == rr.nprobe and ri.nprobe >= 1, "nprobe reported (%s)" % kw)
check(d.ivf_search(2, q, k=10, nprobe=16).nprobe == 16, "ivf_search")
cs = imgi.cluster_sizes
check(cs is not None and int(cs.sum()) == 600 and len(cs) == 16, "cluster sizes")
check(imgi.ids is not None and sorted(imgi.ids.tolist()) == list(range(600)),
      "IVF ids are the row numbers")

# --- image files ----------------------------------------------------------------------
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "bf.img")
    img.save(path)
    back = reis.load(path)
    check(back.info == img.info, "the loaded image's header")
    back.did = 3
    d.deploy_image(back)
    check(np.array_equal(d.search(3, q, k=10).ids, r.ids), "a loaded image searches alike")

    # --- catalog -----------------------------------------------------------------------
    dbs = {i["did"]: i for i in d.databases()}
    check(sorted(dbs) == [1, 2, 3], "three databases listed")
    check(dbs[2]["kind"] == "ivf" and dbs[1]["tags"] and dbs[1]["ids"], "their kinds")
    check(d.db_info(1)["searches"] >= 7, "db_info counts searches")
    d.delete(3)
    check(sorted(i["did"] for i in d.databases()) == [1, 2], "deleted")
    check(d.free_did() == 3, "free_did")
    check(d.noop()["time_ns"] > 0, "noop's modeled time")

    # --- a backing file keeps the database --------------------------------------------
    bk = os.path.join(tmp, "flash.img")
    with reis.Drive(inproc=True, backing=bk) as d1:
        d1.deploy(5, x, docs=docs)
        first = d1.search(5, q, k=5)
    with reis.Drive(inproc=True, backing=bk) as d2:
        again = d2.search(5, q, k=5)          # the quantizer comes from META
        check(np.array_equal(again.ids, first.ids) and np.array_equal(again.scores, first.scores),
              "the backing file keeps database and quantizer")
    check(d1.closed, "closed by the with block")
d.close()
d.close()
done()
