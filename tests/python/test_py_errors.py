#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""test_py_errors - failures as Python exceptions: reis.Error is an OSError
whose errno, message, NVMe status, opcode and field are those of the C
library (reis_last_error(), reis_last_error_info()). The drive's refusals
name their field: k above the database's size (Invalid Field with DNR, data
byte 8 of the search header), an unknown database (ISP Unknown ID), a tag on
an untagged database (data byte 12 bit 4), nprobe on a brute-force one
(command byte 0), a deploy of a database id in use (ID Exists from
DB_CREATE), an SLS row out of range; what libreis refuses itself (k = 0,
too large a k) has no status and no field; Python-side mistakes are
TypeError / ValueError with what was expected (shapes, dtypes, both x and
codes, a closed drive, unknown option names), and the drive stays usable
after every one of them."""
import errno

from pycheck import check, done, np, raises, reis, vectors

DIM = 64
d = reis.Drive(inproc=True)
x = vectors(10, DIM, seed=2)
d.deploy(7, x)
q = x[:1]


def drive_error(fn, err, sc, opcode, field, reason):
    e = raises(fn, reis.Error)
    if not check(e is not None, "%s raised reis.Error" % reason):
        return None
    check(isinstance(e, OSError), "reis.Error is an OSError")
    check(e.errno == err, "errno %s, not %s (%s)" % (err, e.errno, e))
    check((e.status & reis.STATUS_CODE_MASK) == sc, "status 0x%x, not 0x%x" % (sc, e.status))
    check(e.dnr, "DNR set")
    check(e.opcode == opcode, "opcode 0x%x, not %s" % (opcode, e.opcode))
    check(e.field == field, "field %r, not %r" % (field, e.field))
    check(e.reason is not None and reason in e.reason, "reason %r has %r" % (e.reason, reason))
    check(reason in str(e) and "error log entry %d" % e.error_count in e.strerror,
          "the message names the reason and the log entry: %s" % e)
    check(e.status_str == reis.status_str(e.status), "status string")
    return e


drive_error(lambda: d.search(7, q, k=11), errno.EINVAL, reis.SC_INVALID_FIELD, reis.OP_SEARCH,
            "data byte 8", "k = 11 exceeds the database's 10 entries")
drive_error(lambda: d.search(7, q, k=1, tag=3), errno.EINVAL, reis.SC_INVALID_FIELD,
            reis.OP_SEARCH, "data byte 12 bit 4", "tag 3")
drive_error(lambda: d.search(7, q, k=1, nprobe=2, ivf=True), errno.EINVAL,
            reis.SC_INVALID_FIELD, reis.OP_IVF_SEARCH, "command byte 0", "which is brute force (no clusters)")
e = drive_error(lambda: d.deploy(7, x), errno.EEXIST, reis.SC_ID_EXISTS, reis.OP_DB_CREATE,
                None, "")
e = raises(lambda: d.search(99, codes=np.zeros((1, 8), np.uint8), k=1), reis.Error)
check(e is not None and e.errno == errno.ENOENT and
      (e.status & reis.STATUS_CODE_MASK) == reis.SC_UNKNOWN_ID and
      e.reason is not None and "database 99" in e.reason, "unknown database: %s" % e)

# refused by libreis itself: no status, no field
for k in (0, 5000):
    e = raises(lambda: d.search(7, q, k=k), reis.Error)
    check(e is not None and e.errno == errno.EINVAL and e.status == 0 and e.field is None and
          e.opcode is None and e.reason is None, "k = %d refused on the host: %r" % (k, e))

# RecFlash: a row out of range
d.rf_deploy(3, vectors(20, 16, seed=5))
e = raises(lambda: d.rf_sls(3, [1, 25], [0, 2]), reis.Error)
check(e is not None and e.errno in (errno.EINVAL, errno.ERANGE), "row 25 of 20: %r" % e)
e = raises(lambda: d.rf_sls(4, [1], [0, 1]), reis.Error)
check(e is not None and e.errno == errno.ENOENT, "unknown table: %r" % e)

# Python-side mistakes
check(isinstance(raises(lambda: d.search(7, np.zeros((1, 32), np.float32), k=1)), ValueError),
      "a query of the wrong dimension")
check(isinstance(raises(lambda: d.search(7, q, codes=q, k=1)), TypeError), "x and codes")
check(isinstance(raises(lambda: d.search(7, k=1)), TypeError), "no queries")
check(isinstance(raises(lambda: d.search(7, q, k=1, colour=1)), TypeError), "unknown keyword")
check(isinstance(raises(lambda: d.search(7, q, k=1, k2=1)), TypeError), "unknown keyword 2")
check(isinstance(raises(lambda: d.search(7, q, k=-1)), TypeError), "negative k")
check(isinstance(raises(lambda: d.search(7, [["a"]], k=1)), TypeError), "not numbers")
check(isinstance(raises(lambda: d.search(7, codes=np.zeros((1, 8), np.uint8), k=1)),
                 ValueError), "rerank without int8 codes")
check(isinstance(raises(lambda: d.search(7, q, target_recall=2.0)), ValueError), "recall > 1")
check(isinstance(raises(lambda: reis.build(x, kind="hnsw")), ValueError), "unknown kind")
check(isinstance(raises(lambda: reis.build(x[:, :60])), reis.Error), "dim 60")
check(isinstance(raises(lambda: reis.build(x, docs=["a"])), ValueError), "1 doc for 10 rows")
check(isinstance(raises(lambda: reis.Drive(inproc=True, preset="no-such")), reis.Error),
      "unknown preset")
e = raises(lambda: reis.Drive("/dev/does-not-exist"), reis.Error)
check(e is not None and e.errno == errno.ENOENT, "no such device: %r" % e)
check(isinstance(raises(lambda: d.rf_sls(3, [1], [0, 1], weights=[1.0, 2.0])), ValueError),
      "two weights for one index")

# still usable
check(d.search(7, q, k=3).nhits[0] == 3, "the drive works after all that")
d.close()
check(isinstance(raises(lambda: d.search(7, q, k=1)), ValueError), "a closed drive")
check(isinstance(raises(lambda: d.info()), ValueError), "a closed drive's info")
done()
