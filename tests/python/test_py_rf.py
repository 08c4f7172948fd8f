#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""test_py_rf - RecFlash tables and SLS from Python against the C library:
tables deployed from float32 numpy arrays as fp32, fp16 and int8 rows
(reis_rf_quantize), each in the three placement modes; sum, mean and
weighted pooling bit-identical to reis.rf_sls_ref (reis_rf_sls_ref, the
drive's accumulation rules on the host); DLRM's offsets (nbags + 1) and
torch's EmbeddingBag starts (nbags) give the same sums; a batch larger than
one command; the cost fields; a deploy with an access profile; table stats,
the list, an adaptive remap and its switch, delete."""
from pycheck import check, done, np, reis, vectors

d = reis.Drive(inproc=True, preset="recflash-slc")
rng = np.random.default_rng(11)
rows, dim = 3000, 32
table = rng.standard_normal((rows, dim)).astype(np.float32)
nbags = 200
lens = rng.integers(1, 20, nbags)
offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.uint32)
# skewed indices: some rows hot
idx = (rng.zipf(1.3, int(offsets[-1])) % rows).astype(np.uint32)
w = rng.standard_normal(len(idx)).astype(np.float32)

tid = 1
for dtype in ("fp32", "fp16", "int8"):
    wire = reis.rf_quantize(table, dtype)
    check(wire.dtype == np.uint8 and wire.shape[0] == rows, "%s wire rows" % dtype)
    for mode in ("recflash", "rmssd", "recssd"):
        info = d.rf_deploy(tid, table, dtype=dtype, mode=mode, name="t%d" % tid)
        check(info["rows"] == rows and info["dim"] == dim and info["time_ns"] > 0 and
              info["energy_nj"] > 0 and info["bytes"] >= wire.size, "deploy %s %s" % (dtype, mode))
        for kw in ({}, {"mean": True}, {"weights": w}):
            s = d.rf_sls(tid, idx, offsets, **kw)
            ref = reis.rf_sls_ref(wire, dim, idx, offsets, kw.get("weights"), dtype=dtype,
                                  mean=kw.get("mean", False))
            check(s.out.shape == (nbags, dim) and s.out.dtype == np.float32, "out shape")
            check(np.array_equal(s.out, ref), "%s %s %s bit-identical to the reference"
                  % (dtype, mode, list(kw)))
        check(s.time_ns > 0 and s.energy_nj > 0 and s.lookups == len(idx) and
              s.page_reads + s.cache_hits > 0, "cost fields (%s %s)" % (dtype, mode))
        tid += 1

# fp32 rows are exact: the sum is numpy's sum in index order
s = d.rf_sls(1, idx, offsets)
mine = np.stack([np.add.reduce(table[idx[offsets[b]:offsets[b + 1]]], axis=0,
                               dtype=np.float32) for b in range(nbags)])
check(np.allclose(s.out, mine, rtol=1e-5, atol=1e-5), "fp32 sums are the rows' sums")
# EmbeddingBag's offsets: the starts only
s2 = d.rf_sls(1, idx, offsets[:-1])
check(np.array_equal(s2.out, s.out), "EmbeddingBag offsets give the same sums")
# a batch over several commands
big = 20000
bl = np.ones(big, np.uint32)
bo = np.concatenate([[0], np.cumsum(bl)]).astype(np.uint32)
bi = (np.arange(big) % rows).astype(np.uint32)
sb = d.rf_sls(1, bi, bo)
check(np.array_equal(sb.out, table[bi]), "one-row bags are the rows")
check(sb.ncmds >= 1 and sb.lookups == big, "big batch: %d commands" % sb.ncmds)

# profile, stats, list, remap, delete
prof = np.bincount(idx, minlength=rows).astype(np.uint32)
d.rf_deploy(50, table, profile=prof, mode="recflash")
st = d.rf_stats(50)
check(st["rows"] == rows and st["ready"] and st["flags"] & 1, "deployed with a profile")
d.rf_sls(50, idx, offsets)
st = d.rf_stats(50, reset=True)
check(st["sls_bags"] == nbags and st["lookups"] == len(idx), "table stats count the batch")
check(d.rf_stats(50)["sls_bags"] == 0, "reset")
tabs = {t["tid"]: t for t in d.rf_tables()}
check(len(tabs) == tid and 50 in tabs, "%d tables listed" % len(tabs))
rm = d.rf_remap(50, adaptive=True, switch=True)
check(rm["generation"] >= 1 and rm["remap_ns"] >= 0, "remap: %s" % rm)
s3 = d.rf_sls(50, idx, offsets)
check(np.array_equal(s3.out, reis.rf_sls_ref(reis.rf_quantize(table), dim, idx, offsets)),
      "sums unchanged by the remap")
d.rf_delete(50)
check(50 not in {t["tid"] for t in d.rf_tables()}, "deleted")
d.close()
done()
