#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""test_py_refcount - no leaks over 10 000 calls of each kind: searches
(float queries, codes, with documents, reading every field), failing
searches (the exception and its attributes), SLS, image builds and
reference searches, FAISS-shaped index searches. The reference counts of
the arguments, the drive and None are what they were, Python's own
allocations (tracemalloc) do not grow, and neither does the process'
resident memory (what the C library allocates) beyond a small margin.
A result outlives its drive; a Drive dropped without close() closes."""
import gc
import sys
import tracemalloc
import weakref

from pycheck import check, done, np, reis, vectors

N = 10000


def rss_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4


d = reis.Drive(inproc=True)
x = vectors(200, 64, seed=4)
docs = ["d%d" % i for i in range(len(x))]
img = reis.build(x, did=1, docs=docs)
d.deploy_image(img)
q = x[:2].copy()
codes, i8 = d.encode(1, q)
d.rf_deploy(2, vectors(100, 16, seed=6))
idx = np.array([1, 2, 3, 4, 5, 6], np.uint32)
off = np.array([0, 2, 6], np.uint32)
index = reis.IndexBinaryFlat(64, drive=d, did=9)
index.add(img.codes)


def searches():
    r = d.search(1, q, k=5, docs=True)
    r.ids, r.distances, r.scores, r.entries, r.nhits, r.docs, r.time_ns, r.energy_nj


def code_searches():
    r = d.search(1, codes=codes, int8=i8, k=5)
    r.ids


def failures():
    try:
        d.search(1, q, k=500)
    except reis.Error as e:
        e.status, e.field, e.reason, e.strerror


def sls():
    d.rf_sls(2, idx, off).out


def images():
    im = reis.build(x[:64], did=3)
    im.ref_search(q, k=3).ids


def faiss_shaped():
    index.search(codes, 4)


tracked = [q, codes, i8, idx, off, d, x, None, img]
for fn in (searches, code_searches, failures, sls, images, faiss_shaped):
    for _ in range(200):            # warm caches and allocator pools
        fn()
    gc.collect()
    before = [sys.getrefcount(o) for o in tracked]
    tracemalloc.start()
    snap0 = tracemalloc.take_snapshot()
    rss0 = rss_kib()
    n = N if fn is not images else N // 10
    for _ in range(n):
        fn()
    gc.collect()
    rss1 = rss_kib()
    snap1 = tracemalloc.take_snapshot()
    tracemalloc.stop()
    after = [sys.getrefcount(o) for o in tracked]
    grown = sum(s.size_diff for s in snap1.compare_to(snap0, "filename"))
    # None is shared with the interpreter (and tracemalloc's snapshots): a
    # leak there would move it by about n, not by a few
    same = all(a == b or (o is None and abs(a - b) < 50)
               for o, a, b in zip(tracked, before, after))
    check(same, "%s: reference counts %s -> %s" % (fn.__name__, before, after))
    check(grown < 64 * 1024, "%s: Python allocations grew %d bytes" % (fn.__name__, grown))
    check(rss1 - rss0 < 2048, "%s: resident memory grew %d KiB over %d calls"
          % (fn.__name__, rss1 - rss0, n))
    print("%-13s %5d calls: refcounts unchanged %s, Python +%d B, RSS +%d KiB"
          % (fn.__name__, n, same, grown, rss1 - rss0))

# a result outlives its drive; a dropped drive closes
r = d.search(1, q, k=5, docs=True)
d2 = reis.Drive(inproc=True)
ref = weakref.ref(d2)
del d2
gc.collect()
check(ref() is None, "a dropped Drive is freed")
index = None
d.close()
check(r.ids.shape == (2, 5) and r.docs[0][0].startswith(b"d"), "a result outlives close()")
r2 = img.ref_search(q, k=3, docs=True)
del img
gc.collect()
check(r2.docs[0][0].startswith(b"d"), "a reference result keeps its image alive")
done()
