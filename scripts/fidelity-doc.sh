#!/bin/sh
# scripts/fidelity-doc.sh - writes docs/fidelity.md (stdout) from the runs of
# scripts/fidelity.sh: fidelity-doc.sh CSV DRIFT_CSV RF_CSV SECONDS ROWS
# TABLES MLP_GMACS DAY. The causes of the rows outside 25 % are kept here, one
# per figure group, next to the code that prints them.
set -eu
csv=$1 drift=$2 rfcsv=$3 secs=$4 rows=$5 tables=$6 gmacs=$7 day=$8

total=$(awk 'END { print NR - 1 }' "$csv")
within=$(awk -F'"' 'NR > 1 { split($5, v, ","); if (v[5] == "yes") y++ } END { print y + 0 }' "$csv")

cat <<EOF
# Fidelity: the model against the papers

\`make fidelity\` regenerates this page, [fidelity.csv](fidelity.csv) (one row
per number: figure, series, paper, model, ratio = model / paper,
within_25pct, settings) and the plots below. It is a benchmark, not a test.

**$within of $total rows are within 25 % of the paper.** RecFlash Eq. 1-2
are exact. Last run: $day; the benchmarks took $secs s of wall time
(\`make fidelity\` with its build about a minute more) on 2 cores shared
with other jobs (the numbers are modeled time: the load changes only the
wall time).

The farthest rows (by |log ratio|; causes below):
$(awk -F'"' 'NR > 1 { split($5, v, ","); r = v[4] + 0; d = r > 0 ? log(r) : 99; if (d < 0) d = -d
	printf "%.6f\t- %s, %s: paper %s, model %s (ratio %s)\n", d, $2, $4, v[2], v[3], v[4] }' "$csv" |
	sort -rn | head -3 | cut -f2)

Plots: [REIS](fidelity-reis.svg) (Fig. 7, Fig. 9, 6.3.1, Table 4; log
scale), [RecFlash Fig. 10/11 and SLC/QLC](fidelity-rf.svg),
[RecFlash Fig. 12](fidelity-f12.svg).

![REIS](fidelity-reis.svg)
![RecFlash Fig. 10/11](fidelity-rf.svg)
![RecFlash Fig. 12](fidelity-f12.svg)

## How the numbers are made

- **One parameter set per preset** (\`hw-model/src/flash_preset.c\`, every
  value with its source in [timing-model.md](timing-model.md) §5-6); no
  figure has a knob of its own. The comparison points (REIS-ASIC, CPU-Real,
  No-I/O, the MLPs of Fig. 12) are the models of timing-model.md
  "Comparison models".
- **REIS** (\`examples/bench/bench_fidelity.c\`): analytic mode (timing-model.md
  §4) at the paper's scale, which exceeds this machine: IVF over 1024-bit
  codes with INT8 rerank, DF keeping 1 % of the entries (REIS 4.3.3),
  nprobe 16, 32, 64, 128, 256 standing for the paper's Recall@10
  sweep 0.90-0.98, datasets NQ (2.68 M passages, 8192 clusters), HotpotQA
  (5.23 M, 8192) and wiki_full (41.5 M, 16,384). Fig. 9 is wiki_full;
  averages and maxima are over the sweep (and datasets where the paper
  says "across datasets"). A query's time is its share of the busiest
  resource of a 16-query command (a stream's QPS; see the causes below).
  Table 4 is one brute-force query on reis-ssd1 (Fig. 3's flat index) over
  HotpotQA and wiki_en, the dataset behind the table's "NQ" column
  (timing-model.md §6.2).
- **RecFlash** (\`examples/bench/bench_rf_embedding.c\`): the emulated drive
  in-process, delay-mode timing on a virtual clock, $rows rows per table
  (IV-A), the first $tables tables of each Table II model (tables run one
  after another on traces of their own seed, so the reductions are averages
  over tables; all 32 RMC2 tables at 1 M rows need 8 GiB per mode), batch
  16, 3 measured batches after one warm-up batch, RecFlash placed by the
  profile of the 400 batches before them (the "sampled training set" of
  III-A: a long stretch of the same traffic). The workload is the
  RecSSD-style trace (\`REIS_RF_TRACE_RECSSD\`, [recflash.md](recflash.md)
  "The locality-K trace"): RecSSD's generator, which the paper follows.
- **Fig. 12**: end-to-end = the embedding stage of all the model's tables
  (the measured tables scaled up) + the bottom and top MLPs of the batch at
  $gmacs GMAC/s (M1), the same for every system.

## All rows

| figure | series | paper | model | ratio | within 25 % | settings |
|---|---|---:|---:|---:|:-:|---|
EOF
awk -F'"' 'NR > 1 {
	split($5, v, ",")
	printf "| %s | %s | %s | %s | %s | %s | %s |\n", $2, $4, v[2], v[3], v[4], v[5], $6
}' "$csv"

cat <<'EOF'

## RecFlash per K (TLC), both traces

Latency cut of RecFlash against RM-SSD (%) per locality K; the paper's
Fig. 10 runs from the K = 0 value down to the K = 2 value. *recssd* is the
Fig. 10 workload; *drift* is the stress workload whose new references are
rows never seen before (a profile of past traffic cannot cover them).
"unique" is distinct rows / accesses over 1 M accesses of the bench's
table (the RecSSD trace touches at most rows / 128 rows; the paper quotes
8 %-66 % for K = 0-2, a rate RecSSD's generator reaches only over short
windows).

| trace | model | K | unique % | RM-SSD ms/batch | RecFlash ms/batch | cut % | energy cut % | page-cache hit % |
|---|---|---:|---:|---:|---:|---:|---:|---:|
EOF
for f in "$rfcsv" "$drift"; do
	awk -F, 'NR > 1 && $2 == "tlc" {
		printf "| %s | %s | %s | %.1f | %.3f | %.3f | %.1f | %.1f | %.1f |\n",
			$1, toupper($3), $6, 100 * $7, $9, $10, $13, $20, 100 * $23
	}' "$f"
done

cat <<'EOF'

## Rows outside 25 % and their causes

- **How REIS rows are timed.** Fig. 7 and 9 are QPS of a query stream,
  and REIS overlaps the dies' work with the cores' kernels (4.3.4), so a
  query's time is its share of the busiest resource of a 16-query command
  (per channel, plane, die, the ISP core, DRAM, link; `bench_fidelity -v`
  prints every point, with the command's latency and a one-query latency).
  SSD1 is bound by its channels, above all by the coarse phase: every
  centroid's TTL-C entry (8192-16,384 x 131 B, 1.1-2.1 MB per query) crosses
  them (timing-model.md §6.2). SSD2 is bound by its one ISP core: 81-200 us
  per query, of which the coarse quickselect over all centroids (8 cycles
  each, A13) is 44-87 us and the INT8 rerank of 100 x 1024 dimensions
  68 us. REIS 4.3.4 says one core runs the kernels "without stalling the
  pipeline"; here it is SSD2's bound, so **SSD2 over SSD1** is 1.6x / 2.1x
  against 2.6x / 3.2x (SSD2's channels alone would give about 3x, Table 3's
  2 x 1.67). Read as one query's latency instead, SSD2 over SSD1 is
  1.4-1.6x: the critical path's quickselect, TLC rerank reads and rerank
  are the same on both drives. PL and MPIBC shorten a query's latency and
  show almost nothing in a stream.
- **REIS Fig. 9, DF over No-OPT.** No-OPT grows with the probed entries
  (every 138-byte TTL-E crosses the channel), DF's query with them only
  slightly, since its bound is the unfiltered coarse phase, so DF's gain
  grows with nprobe: 3.3x-17x on SSD1 (average 9.8x against 4.7x), 2.3x-12x
  on SSD2 (average 7.0x, within 25 % of 5.7x; maximum 12x against 6.5x).
  The paper's flat 4.7-5.1x, like its 4.1-6.5x REIS-ASIC slowdowns, fits a
  filter that passes about 20 % of what the dies compare, centroids
  included: with 20 % in both phases (tried with a scratch change, not a
  preset) SSD1's DF is 4.7x / 4.8x and its ASIC slowdown 3.2-5.6x. Real data
  points the same way: the corpus threshold of docs/reis.md §7.1 passes
  16 % of a brute-force scan but 44 % of the probed entries at nprobe 32 (the
  probed clusters are the near ones), so a threshold that keeps 1 % of a
  brute-force scan keeps far more inside IVF's probed clusters. The paper
  gives no IVF pass rate and describes no centroid filter (a threshold
  cannot guarantee the nprobe nearest clusters, and the engine keeps them
  all), so the bench keeps the stated 1 % (4.3.3) for the probed entries
  and passes every centroid. With the former shared 8 GB/s DRAM (A8) SSD2's
  No-OPT was DRAM-bound and its DF gain 11-26x.
- **REIS Fig. 9, MPIBC.** IBC moves one 128-byte query per plane over the
  channel and the die fills the rest of the latch (A24): 13.7 us per plane
  on SSD1, 8.3 us on SSD2, in turn across a die's planes unless MPIBC lets
  them latch together. That saves 13.7 us of a query's latency on SSD1 and
  25 us on SSD2, but dies are never a stream's busiest resource, so the gain
  is 0.9 % / 0 % against 6 % / 26 % (read as one query's latency: 1.5 % /
  4.2 %). The paper's values imply IBC is about 11 % / 27 % of a DF+PL
  query, i.e. queries of roughly 100-250 us, which the coarse phase and the
  core (above) keep this model from reaching. The former reading (a whole
  16 KiB page of copies over the channel per plane, 437 us per query on
  SSD1) gave 39 % / 20 %.
- **REIS 6.3.1, REIS-ASIC.** The ASIC streams every page read (data +
  spare) over the channels, computes for free and reads the rerank's INT8
  entries as REIS does. Where REIS's per-query floor (SSD1: the centroid TTL
  traffic; SSD2: the core) exceeds that stream, on NQ and HotpotQA at low
  nprobe, the ASIC is barely slower (SSD1 1.8x) or faster (SSD2 1.0x); at
  wiki_full, nprobe 256 (87,090 pages per 16 queries) it is 20x / 12x
  slower. The paper's 4.1-5.0x / 3.9-6.5x is flat; the 20 % pass rate above
  brings SSD1 to 3.2-5.6x (SSD2 stays core-bound: 1.1-4.1x).
- **REIS Fig. 7, CPU-Real and No-I/O.** The host model (C1-C5) reads the
  index (codes + INT8 vectors + centroids) and the documents from its SSD
  once per BEIR query set and scans at DDR4 bandwidth, so a CPU-Real query
  costs 0.18-0.23 ms (wiki_full: 8.3-8.5 ms, its 57 GB load over 1000
  queries) and REIS's average gain is 12.7x (within 25 % of 13x), its
  maximum 52x (against 112x). No-I/O costs 37-240 us per query, below
  REIS's 145-520 us (SSD1) and 81-260 us (SSD2), so REIS over No-I/O is
  0.4x on average against 1.8x: the coarse phase and the core above again,
  and a host model that scans at the full 409.6 GB/s; the paper states
  neither FAISS's parameters nor the batch, so the host cannot be rebuilt
  more closely from it.
- **REIS Table 4.** REIS's brute-force search is sensing-bound (A25) and
  lands on the paper's stated 3.8 ms / 28.5 ms, so both retrieval shares are
  within 25 %. The wiki_en end-to-end gain is 1.17x against 3.24x because
  CPU+BQ's dataset loading is modeled as its 14 GB (3.2) read at the
  PM9A3's 6.9 GB/s (C2): 2.1 s, where the paper measured 41.5 s (0.34 GB/s,
  FAISS's index load and the document store, not the drive). We keep the
  drive-rate host: it is the stronger baseline.
- **RecFlash Fig. 10/11, SLC/QLC: the cuts are too large and do not fall
  with K.** RecSSD's generator references only the first row of each
  128-row line, so a 1 M-row table has 7813 rows in use; the 400-batch
  profile sees nearly all of them, and RecFlash packs them into 61 pages
  per table (122 for RMC2's 64 dims) that the planes read in parallel, while RM-SSD
  reads a page per distinct row. K only changes which of those 7813 rows
  recur, not how many there are, so the cut is 90-97 % at every K (the
  "per K" table above). The drifting trace shows the other extreme: new
  references never seen before, and the cut collapses to 2-9 % for K >= 0.3.
  The paper's curves lie between the two; it does not say how its trace
  fills 1 M rows. Not the cause: the channel (with Table I's 50 MB/s on TLC
  the RMC1 cut is still 82-83 % at every K) or the profile length (100
  batches gave the same within 2 points except RMC3 at K = 0, which needs
  the LRU list to cycle inside the profile: 35 % at 100 batches). The
  paper's RM-SSD pays C/A + tR + t_DO per vector (Fig. 4a) where ours reads
  each distinct page once per command; per-vector reads would make the
  baseline slower and the cuts larger still. Nor the page-cache policy: the
  paper's page cache taken literally (\`--params "cache_admit=0;cache_fill=1"\`:
  every missed page admitted and read out whole, affordable on the 1 GB/s
  channel) thrashes its 8 frames of 16 KiB (128 KiB SRAM, III-C2): hits fall
  to 0.01-3 % and the cut to 72-95 %, so the default admits only the hottest
  pages and keeps the rows read (A22).
- **RecFlash Fig. 12.** With one MLP rate for all models (M1), RMC1's and
  RMC2's MLPs are a small share of their stages, so the end-to-end cut
  follows the (too large) stage cut; RMC3's 3 M MACs per sample make its
  MLPs about 40 % of RM-SSD's end-to-end time, the mechanism behind the
  paper's smaller RMC3 gain.

## Commands

    make fidelity                      # this page, the CSV and the plots
    build/examples/bench_fidelity      # the REIS and Eq. 1-2 rows alone
    build/examples/bench_rf_embedding --rows 1000000 --tables 4 --media tlc
    build/examples/bench_rf_embedding --rows 1000000 --trace drift
EOF
