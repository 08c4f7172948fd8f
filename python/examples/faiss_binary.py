#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""faiss_binary.py - a FAISS user's binary search, as FAISS's tutorials write
it. To run it in the drive, change the one `index = ...` line to

    index = reis.IndexBinaryFlat(d)

(the drive is $REIS_DEV, or the first ISP drive found; REIS_DEV=inproc runs
the drive model in this process). tests/python/test_py_faiss.py does exactly
that and compares both runs, and the `reis` CLI's search of the same data.

    faiss_binary.py DATA.npz [OUT.npz]
DATA.npz holds xb (uint8 codes, n x d/8) and xq (queries); without it the
script makes random codes. OUT.npz receives D and I."""
import sys

if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
    print("usage: faiss_binary.py [DATA.npz [OUT.npz]]\n\n" + __doc__)
    sys.exit(0)
if len(sys.argv) > 3 or any(a.startswith("-") for a in sys.argv[1:]):
    sys.stderr.write("usage: faiss_binary.py [DATA.npz [OUT.npz]]\n")
    sys.exit(2)
import faiss  # noqa: E402
import numpy as np  # noqa: E402

import reis  # noqa: E402,F401  (used once the index line says reis.)

if len(sys.argv) > 1:
    data = np.load(sys.argv[1])
    xb, xq = data["xb"], data["xq"]
else:
    rng = np.random.default_rng(1234)
    xb = rng.integers(0, 256, (10000, 32), dtype=np.uint8)
    xq = xb[:5] ^ rng.integers(0, 2, (5, 32), dtype=np.uint8)
d = xb.shape[1] * 8                       # dimension in bits
k = 10

index = faiss.IndexBinaryFlat(d)
index.add(xb)
print("ntotal", index.ntotal)
D, I = index.search(xq, k)                # Hamming distances and ids
print(I[:5])
print(D[:5])
if len(sys.argv) > 2:
    np.savez(sys.argv[2], D=D, I=I)
