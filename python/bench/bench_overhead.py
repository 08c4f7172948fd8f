#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""bench_overhead.py - what the Python module adds to one search call.

The same search (a brute-force database of N codes, one query, k = 10, no
rerank) through Drive.search and through the C API alone
(Drive._c_search_loop: the same reis_search() / reis_search_result_free()
calls in a C loop, in the same process and on the same drive), in
alternating blocks; the per-call minimum of each over the blocks is the
robust figure on a shared machine, and their difference the Python
overhead. With --callgrind the same two loops run under valgrind's
callgrind and the instructions per call are compared (independent of the
machine's load).

    PYTHONPATH=build/python /usr/bin/python3 python/bench/bench_overhead.py
    PYTHONPATH=build/python /usr/bin/python3 python/bench/bench_overhead.py --callgrind
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

import reis


def setup(n):
    d = reis.Drive(inproc=True)
    codes = np.random.default_rng(7).integers(0, 256, (n, 64), dtype=np.uint8)
    d.deploy(1, codes=codes)
    return d, codes[:1].copy()


def py_loop(d, q, n):
    t0 = time.perf_counter_ns()
    for _ in range(n):
        d.search(1, codes=q, k=10, rerank=False)
    return time.perf_counter_ns() - t0


def c_loop(d, q, n):
    return d._c_search_loop(1, q, None, 10, n, reis.SF_NO_RERANK)


def timed(args):
    d, q = setup(args.n)
    py_loop(d, q, 200)
    c_loop(d, q, 200)
    best_py = best_c = float("inf")
    for _ in range(args.blocks):
        best_py = min(best_py, py_loop(d, q, args.calls) / args.calls)
        best_c = min(best_c, c_loop(d, q, args.calls) / args.calls)
    print("date %s, load %s" % (time.strftime("%Y-%m-%d %H:%M"),
                               open("/proc/loadavg").read().split()[0]))
    print("database %d codes of 512 bits, 1 query, k 10, %d blocks of %d calls"
          % (args.n, args.blocks, args.calls))
    print("C API alone:   %8.2f us per search (best block)" % (best_c / 1e3))
    print("Drive.search:  %8.2f us per search (best block)" % (best_py / 1e3))
    print("overhead:      %8.2f us per search" % ((best_py - best_c) / 1e3))


def one(args):
    # under callgrind: only the loop is instrumented (--toggle-collect)
    d, q = setup(args.n)
    (py_loop if args.one == "py" else c_loop)(d, q, 10)
    (py_loop if args.one == "py" else c_loop)(d, q, args.calls)


def callgrind(args):
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        for which, fn in (("py", "py_loop"), ("c", "Drive_c_search_loop")):
            counts = []
            for calls in (args.calls, 2 * args.calls):
                out = os.path.join(tmp, "cg.%s.%d" % (which, calls))
                cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                       "--collect-atstart=no"]
                cmd += (["--toggle-collect=_PyEval_EvalFrameDefault"] if which == "py" else
                        ["--toggle-collect=Drive_c_search_loop"])
                cmd += [sys.executable, __file__, "--one", which, "--n", str(args.n),
                        "--calls", str(calls)]
                subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, env=os.environ)
                summ = subprocess.run(["callgrind_annotate", out], check=True,
                                      capture_output=True, text=True).stdout
                m = re.search(r"([\d,]+)\s+\(100.0%\)\s+PROGRAM TOTALS", summ) or \
                    re.search(r"([\d,]+)\s+PROGRAM TOTALS", summ)
                counts.append(int(m.group(1).replace(",", "")))
            # the difference of two loop lengths cancels the set-up
            res[which] = (counts[1] - counts[0]) / args.calls
    print("instructions per search (callgrind, %d vs %d calls): C API %.0f, Drive.search %.0f,"
          " overhead %.0f (%.1f %%)" % (args.calls, 2 * args.calls, res["c"], res["py"],
                                       res["py"] - res["c"],
                                       100.0 * (res["py"] - res["c"]) / res["c"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=256, help="database size")
    ap.add_argument("--calls", type=int, default=500)
    ap.add_argument("--blocks", type=int, default=20)
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("--one", choices=("py", "c"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        one(args)
    elif args.callgrind:
        args.calls = min(args.calls, 200)
        callgrind(args)
    else:
        timed(args)


if __name__ == "__main__":
    main()
