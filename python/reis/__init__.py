# SPDX-License-Identifier: MIT
"""reis - the in-storage-processing drive from Python, over libreis.

    import reis
    drive = reis.Drive()                      # the first ISP drive (or a path)
    drive = reis.Drive(inproc=True)           # the same drive model in-process
    info = drive.deploy(1, x, docs=passages)  # float32 (n, dim) -> a database
    r = drive.search(1, q, k=10, docs=True)   # r.ids, r.scores, r.docs, r.time_ns
    index = reis.IndexBinaryFlat(512)         # FAISS's shape, on the drive

Everything calls libreis' public C API (python/README.md); failures raise
reis.Error, an OSError carrying the drive's NVMe status and the faulty field.
"""
import os as _os

from . import _reis
from ._reis import (Error, Image, SearchResult, SLSResult, build, from_codes, load,
                    hamming_knn, kmeans, rf_quantize, rf_sls_ref, discover, version,
                    strerror, status_str)
from ._reis import (SF_NO_DF, SF_NO_PL, SF_NO_MPIBC, SF_NO_RERANK, SF_TAG, SF_DOCS,
                    MAX_K, MAX_NQ, DB_MIN_DIM, DB_MAX_DIM, RF_MAX_DIM, STATUS_DNR,
                    STATUS_CODE_MASK, SC_INVALID_FIELD, SC_UNKNOWN_ID, SC_ID_EXISTS,
                    SC_BUSY, SC_DIM_MISMATCH, SC_CAP_EXCEEDED, OP_SEARCH, OP_IVF_SEARCH,
                    OP_DB_CREATE, OP_RF_SLS)

__all__ = ["Drive", "Error", "Image", "SearchResult", "SLSResult", "build", "from_codes",
           "load", "hamming_knn", "kmeans", "rf_quantize", "rf_sls_ref", "discover",
           "version", "strerror", "status_str", "default_drive", "IndexBinaryFlat",
           "IndexBinaryIVF"]


class Drive(_reis.Drive):
    """An ISP drive: Drive(path) opens /dev/ngXnY, Drive() the first one
    found, Drive(inproc=True, backing=..., preset=...) the drive model inside
    this process (libreis' in-process transport)."""

    def deploy(self, did, x=None, *, codes=None, store_quantizer=True, **kw):
        """Deploy database `did` from float32 vectors `x` (n, dim) - quantized
        by reis_db_build: binary codes, INT8 codes for the rerank (int8=True),
        IVF clusters (kind='ivf', nlist=...) - or from ready `codes` (uint8
        (n, dim/8), see reis.from_codes). Documents: docs=[bytes|str, ...]
        or a blob with doc_offsets. Returns DB_INFO with the modeled
        time_ns / energy_nj of the deploy."""
        if (x is None) == (codes is None):
            raise TypeError("deploy needs x (float vectors) or codes, not both")
        image = build(x, did=did, **kw) if x is not None else from_codes(codes, did=did, **kw)
        return self.deploy_image(image, store_quantizer=store_quantizer)

    def ivf_search(self, did, x=None, k=10, **kw):
        """IVF_SEARCH of database `did`: nprobe=, or target_recall= from its
        calibration table."""
        return self.search(did, x, k, ivf=True, **kw)

    def free_did(self):
        """The lowest database id not in use on the drive."""
        used = {d["did"] for d in self.databases()}
        did = 1
        while did in used:
            did += 1
        return did

    def __repr__(self):
        if self.closed:
            return "<reis.Drive closed>"
        return "<reis.Drive %s over %s>" % (self.path, self.transport)


_default = None


def default_drive():
    """The drive the FAISS-shaped indexes use when none is given, opened once:
    $REIS_DEV (a /dev/ngXnY path, or 'inproc' for the in-process drive with
    $REIS_BACKING and $REIS_PRESET), else the first ISP drive discovered."""
    global _default
    if _default is None or _default.closed:
        dev = _os.environ.get("REIS_DEV")
        if dev == "inproc":
            _default = Drive(inproc=True, backing=_os.environ.get("REIS_BACKING"),
                             preset=_os.environ.get("REIS_PRESET"))
        else:
            _default = Drive(dev)
    return _default


from .index import IndexBinaryFlat, IndexBinaryIVF  # noqa: E402
