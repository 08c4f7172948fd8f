# SPDX-License-Identifier: MIT
"""FAISS-shaped binary indexes whose searches run in the drive.

Code written for faiss.IndexBinaryFlat or faiss.IndexBinaryIVF switches by
one line:

    index = faiss.IndexBinaryFlat(d)     ->   index = reis.IndexBinaryFlat(d)
    index = faiss.IndexBinaryIVF(q, d, nlist) -> reis.IndexBinaryIVF(q, d, nlist)

add / train / search(x, k) -> (D, I) / ntotal / nprobe / reset behave as in
FAISS; python/README.md lists where the semantics differ (dimension a
multiple of 64, the deploy behind the first search after an add, tie order,
IVF training and assignment).
"""
import numpy as np

from . import _reis

_NONE_D = np.iinfo(np.int32).max


def _codes(x, code_size, what="x"):
    x = np.ascontiguousarray(x, dtype=np.uint8)
    if x.ndim == 1 and x.shape[0] == code_size:
        x = x.reshape(1, code_size)
    if x.ndim != 2 or x.shape[1] != code_size:
        raise ValueError("%s must be uint8 codes of shape (n, %d), not %s"
                         % (what, code_size, x.shape))
    return x


class _IndexBinaryDrive:
    """What both indexes share: codes kept on the host until a search needs
    them in the drive, where they are (re)deployed as one database."""

    def __init__(self, d, drive=None, did=None):
        if d % 64 or d < _reis.DB_MIN_DIM or d > _reis.DB_MAX_DIM:
            raise ValueError("the drive's codes are %d..%d bits in multiples of 64, not %d"
                             % (_reis.DB_MIN_DIM, _reis.DB_MAX_DIM, d))
        from . import default_drive
        self.d = d
        self.code_size = d // 8
        self.drive = drive if drive is not None else default_drive()
        self.did = did                  # None: the drive's lowest free id at the deploy
        self.metric_type = 1            # faiss.METRIC_L2: Hamming for binary indexes
        self.verbose = False
        self.last_result = None         # the reis.SearchResult of the last search
        self.deploys = 0
        self._chunks = []
        self.ntotal = 0
        self._deployed_n = -1           # ntotal the drive holds; -1: nothing deployed

    def _all_codes(self):
        if len(self._chunks) > 1:
            self._chunks = [np.concatenate(self._chunks)]
        return self._chunks[0] if self._chunks else np.zeros((0, self.code_size), np.uint8)

    def _drop(self):
        if self._deployed_n >= 0:
            try:
                self.drive.delete(self.did)
            except _reis.Error as e:
                if e.errno != 2:        # already gone
                    raise
            self._deployed_n = -1

    def reset(self):
        """Remove every vector (and the database from the drive)."""
        self._drop()
        self._chunks = []
        self.ntotal = 0

    def _image(self):
        raise NotImplementedError

    def sync(self):
        """Deploy what was added since the last deploy (search does this)."""
        if self._deployed_n == self.ntotal or self.ntotal == 0:
            return
        self._drop()
        if self.did is None:
            self.did = self.drive.free_did()
        self.drive.deploy_image(self._image(), did=self.did)
        self._deployed_n = self.ntotal
        self.deploys += 1

    def _search(self, x, k, **kw):
        x = _codes(x, self.code_size)
        k = int(k)
        if k < 1:
            raise ValueError("k must be at least 1")
        if k > _reis.MAX_K:
            raise ValueError("the drive returns at most %d hits per query" % _reis.MAX_K)
        n = x.shape[0]
        if self.ntotal == 0 or n == 0:
            return (np.full((n, k), _NONE_D, np.int32), np.full((n, k), -1, np.int64))
        self.sync()
        kk = min(k, self.ntotal)
        r = self.drive.search(self.did, codes=x, k=kk, rerank=False,
                              flags=_reis.SF_NO_DF, **kw)
        self.last_result = r
        D, I = r.distances, r.ids
        if kk < k:
            D = np.concatenate([D, np.full((n, k - kk), _NONE_D, np.int32)], axis=1)
            I = np.concatenate([I, np.full((n, k - kk), -1, np.int64)], axis=1)
        return D, I

    def reconstruct(self, key):
        """The codes of vector `key` (its add order; IVF: its id)."""
        return self._all_codes()[self._row(key)].copy()

    def _row(self, key):
        return int(key)

    def __del__(self):
        pass                            # the database stays: reset() removes it


class IndexBinaryFlat(_IndexBinaryDrive):
    """faiss.IndexBinaryFlat in the drive: exhaustive Hamming search
    (REIS_SEARCH without rerank or distance filter). Ids are the add order.

    IndexBinaryFlat(d, drive=None, did=None): d bits; the drive and database
    id default to reis.default_drive() and its lowest free id."""

    is_trained = True

    def train(self, x):
        """Nothing to train (as in FAISS)."""

    def add(self, x):
        x = _codes(x, self.code_size)
        self._chunks.append(x.copy())
        self.ntotal += x.shape[0]

    def _image(self):
        return _reis.from_codes(self._all_codes(), did=self.did or 1, dim=self.d)

    def search(self, x, k):
        """(D int32 (n, k) Hamming distances, I int64 (n, k) ids), nearest
        first; -1 / 2**31-1 pad when fewer than k vectors exist."""
        return self._search(x, k)


def _bits_to_pm1(codes):
    # bits -> +-1 floats, the training input FAISS's binary IVF uses
    return np.unpackbits(codes, axis=1).astype(np.float32) * 2 - 1


class IndexBinaryIVF(_IndexBinaryDrive):
    """faiss.IndexBinaryIVF in the drive: nlist clusters with binary
    centroids, IVF_SEARCH probing the nprobe nearest (REIS_IVF_SEARCH without
    rerank or distance filter).

    IndexBinaryIVF(quantizer, d, nlist, drive=None, did=None): `quantizer`
    is accepted for FAISS's signature (a faiss.IndexBinaryFlat(d) gets the
    centroids after train(), as in FAISS); the coarse search itself runs in
    the drive."""

    def __init__(self, quantizer, d, nlist, drive=None, did=None, seed=1234):
        super().__init__(d, drive, did)
        if nlist < 1:
            raise ValueError("nlist must be at least 1")
        self.quantizer = quantizer
        self.nlist = int(nlist)
        self.nprobe = 1
        self.seed = seed
        self.is_trained = False
        self.centroids = None
        self._assign = []
        self._ids = []

    def train(self, x):
        """Binary k-means as FAISS's: the bits as +-1 floats, Lloyd's k-means
        (reis.kmeans, 256 training points per list at most), centroids = the
        signs of the float centroids."""
        x = _codes(x, self.code_size)
        if x.shape[0] < self.nlist:
            raise ValueError("training needs at least nlist = %d vectors, got %d"
                             % (self.nlist, x.shape[0]))
        c, _ = _reis.kmeans(_bits_to_pm1(x), self.nlist, seed=self.seed)
        self.centroids = np.packbits(c > 0, axis=1)
        self.is_trained = True
        q = self.quantizer
        if q is not None and hasattr(q, "add") and getattr(q, "ntotal", 1) == 0:
            q.add(self.centroids)

    def add(self, x):
        self.add_with_ids(x, None)

    def add_with_ids(self, x, ids):
        """Add codes with caller ids (int64 >= 0), or with the add order."""
        if not self.is_trained:
            raise RuntimeError("train() the index before add()")
        x = _codes(x, self.code_size)
        n = x.shape[0]
        if ids is None:
            ids = np.arange(self.ntotal, self.ntotal + n, dtype=np.uint64)
        else:
            ids = np.ascontiguousarray(ids, dtype=np.int64)
            if ids.shape != (n,) or (ids < 0).any():
                raise ValueError("ids must be n non-negative integers")
            ids = ids.astype(np.uint64)
        # the nearest centroid by (Hamming, cluster): the drive's coarse order
        _, a = _reis.hamming_knn(self.centroids, x, 1)
        self._chunks.append(x.copy())
        self._assign.append(a[:, 0].astype(np.int64))
        self._ids.append(ids)
        self.ntotal += n

    def _image(self):
        codes = self._all_codes()
        if len(self._assign) > 1:
            self._assign = [np.concatenate(self._assign)]
            self._ids = [np.concatenate(self._ids)]
        a, ids = self._assign[0], self._ids[0]
        order = np.argsort(a, kind="stable")
        sizes = np.bincount(a, minlength=self.nlist).astype(np.uint32)
        return _reis.from_codes(codes[order], did=self.did or 1, dim=self.d, kind="ivf",
                                centroids=self.centroids, cluster_sizes=sizes,
                                ids=ids[order])

    def _row(self, key):
        ids = self._ids[0] if len(self._ids) == 1 else np.concatenate(self._ids)
        hit = np.nonzero(ids == np.uint64(key))[0]
        if not len(hit):
            raise KeyError(key)
        return int(hit[0])

    def reset(self):
        super().reset()
        self._assign = []
        self._ids = []

    def search(self, x, k):
        """(D, I) as FAISS: the nprobe nearest lists are searched."""
        if not self.is_trained:
            raise RuntimeError("train() the index before search()")
        nprobe = max(1, min(int(self.nprobe), self.nlist))
        return self._search(x, k, nprobe=nprobe)
