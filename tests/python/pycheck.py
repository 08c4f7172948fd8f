# SPDX-License-Identifier: MIT
"""pycheck.py - what the Python module's tests share: CHECK-style counting
with the 0 pass / 1 fail / 77 skip exits of every test program
(tests/common/check.h), and seeded data."""
import os
import sys
import traceback

failures = 0


def check(cond, what):
    """Count a failed condition, say where, go on."""
    global failures
    if not cond:
        failures += 1
        frame = traceback.extract_stack(limit=2)[0]
        print("FAIL %s:%d: %s" % (os.path.basename(frame.filename), frame.lineno, what))
    return cond


def skip(why):
    print("SKIP: %s" % why)
    sys.exit(77)


def done():
    if failures:
        print("%d check(s) failed" % failures)
        sys.exit(1)
    print("ok")
    sys.exit(0)


try:
    import numpy as np
except ImportError:
    skip("python3-numpy is not installed (scripts/setup-deps.sh)")
try:
    import reis  # noqa: F401
except ImportError as e:
    skip("the reis module is not built (make -C python): %s" % e)


def vectors(n, dim, seed=1, clusters=8):
    """n unit vectors around a few centres (seeded)."""
    rng = np.random.default_rng(seed)
    c = rng.standard_normal((clusters, dim)).astype(np.float32)
    x = c[rng.integers(0, clusters, n)] + 0.4 * rng.standard_normal((n, dim)).astype(np.float32)
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def raises(fn, exc=None):
    """The exception fn() raises (None when it returns)."""
    try:
        fn()
    except Exception as e:      # noqa: BLE001
        if exc is not None and not isinstance(e, exc):
            raise
        return e
    return None
