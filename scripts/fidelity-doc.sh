#!/bin/sh
# scripts/fidelity-doc.sh - writes docs/fidelity.md (stdout) from the runs of
# scripts/fidelity.sh: fidelity-doc.sh CSV FORMER_TRACE_CSV RF_CSV SECONDS ROWS
# TABLES MLP_GMACS DAY [RECSSD_CSV RF_BATCHES RF_SEEDS_TABLE RF_K_SPREAD
# SWEEP_MD SOLANA_SWEEP_MD]. The causes of the rows outside 25 % are kept here, one per
# figure group, next to the code that prints them.
set -eu
csv=$1 former=$2 rfcsv=$3 secs=$4 rows=$5 tables=$6 gmacs=$7 day=$8
recssd=${9:-} batches=${10:-3} rfseeds=${11:-} rfk=${12:-} sweep=${13:-} solsweep=${14:-}
rfsweep=${15:-} f14pol=${16:-}
nseeds=1
if [ -n "$rfseeds" ] && [ -s "$rfseeds" ]; then
	nseeds=$(awk -F'|' 'NR == 1 { print split($5, v, "/") }' "$rfseeds")
fi

# Counts over fidelity.csv (figure,series,paper,model,metric,ratio,
# within_25pct,independent,settings): the strict one over independent
# rows is the headline; per paper; the lenient (model / paper as printed)
# and the dependent rows follow it. A row with no model value (the
# number cannot be modeled; settings give the reason) counts as outside.
counts() {	# counts PAPER-PREFIX: "within total"
	awk -F'"' -v pre="$1" 'NR > 1 && index($2, pre) == 1 { split($5, v, ","); if (v[7] != "yes") next
		n++; if (v[6] == "yes") y++ } END { print y + 0, n + 0 }' "$csv"
}
set -- $(counts REIS)
reis_in=$1 reis_n=$2
set -- $(counts RecFlash)
rf_in=$1 rf_n=$2
set -- $(counts Solana)
sol_in=$1 sol_n=$2
# The paper count is over the three papers' rows only (an extra section's
# rows, e.g. a datasheet check, are not the papers' numbers).
within=$((reis_in + rf_in + sol_in)) total=$((reis_n + rf_n + sol_n))
pct=$(awk -v a="$within" -v b="$total" 'BEGIN { printf "%.0f", b ? 100 * a / b : 0 }')
papers='^(REIS|RecFlash|Solana) '
lenient=$(awk -F'"' -v pp="$papers" 'NR > 1 && $2 ~ pp { split($5, v, ","); if (v[7] != "yes" || v[3] == "") next
	r = v[2] != 0 ? v[3] / v[2] : 0; if (r >= 0.75 && r <= 1.25) y++ } END { print y + 0 }' "$csv")
dep=$(awk -F'"' -v pp="$papers" 'NR > 1 && $2 ~ pp { split($5, v, ","); if (v[7] == "no") n++ } END { print n + 0 }' "$csv")
dep_in=$(awk -F'"' -v pp="$papers" 'NR > 1 && $2 ~ pp { split($5, v, ","); if (v[7] == "no" && v[6] == "yes") n++ } END { print n + 0 }' "$csv")
unmodeled=$(awk -F'"' -v pp="$papers" 'NR > 1 && $2 ~ pp { split($5, v, ","); if (v[3] == "") n++ } END { print n + 0 }' "$csv")
# The ceiling: the most REIS rows any setting of the unsourced inputs
# brings within 25 % (the sweep's search, else its best hypercube point),
# with every RecFlash and Solana row
# granted. Below 80 % (issue 26's target) the target is out of reach of
# those inputs whatever the other papers' rows do.
ceiling=""
if [ -n "$sweep" ] && [ -s "$sweep" ]; then
	reis_best=$(awk '/the most any setting found:/ { sub(/.*the most any setting found: /, ""); print $1 + 0; found = 1; exit }
		/^The most at one point:/ { h = $6 + 0 }
		END { if (!found) print h + 0 }' "$sweep")
	if [ -n "$reis_best" ] && [ "$reis_best" -gt 0 ]; then
		cap_in=$((reis_best + rf_n + sol_n))
		cap_pct=$(awk -v a="$cap_in" -v b="$total" 'BEGIN { printf "%.0f", b ? 100 * a / b : 0 }')
		ceiling="**The most these inputs allow:** the sweep below searches the REIS
inputs no paper states for the setting with the most REIS rows within
25 % (\"What the unsourced inputs reach\"): the most it finds is
$reis_best of $reis_n. With every RecFlash and Solana row granted as well,
that is at most $cap_in of $total ($cap_pct %)$(awk -v p="$cap_pct" 'BEGIN { if (p + 0 < 80) printf ", below the 80 %% that issue 26 set: the target is out of reach of the unsourced inputs (a search, not a proof of the maximum; the causes below give the arithmetic from the papers'"'"' own numbers row by row)" }')."
	fi
fi

cat <<EOF
# Fidelity: the model against the papers

\`make fidelity\` regenerates this page, [fidelity.csv](fidelity.csv) (one row
per published number: figure, series, paper, model, metric, ratio,
within_25pct, independent, settings) and the plots below. It is a
benchmark, not a test.

**$within of $total independent rows ($pct %) are within 25 % of the paper
on the strict metric**: REIS $reis_in of $reis_n, RecFlash $rf_in of $rf_n, Solana $sol_in of $sol_n.
The metric compares what the paper compares (below): a factor as a
ratio, an "X % lower" cut as the speedup 1 / (1 - cut), a small gain as
the gain. Compared as printed (model / paper of the number itself) $lenient
of the $total would be within 25 %. Not counted: $dep dependent rows
(identities of the paper's own numbers, or built from its cells; $dep_in
of them within 25 %). Rows with no model value: $unmodeled (counted as
outside; the settings say why). Last run: $day; the benchmarks took $secs s
of wall time on 2 cores, ${FIDELITY_RUN_NOTE:-one benchmark per core} (the numbers are modeled
time: the load changes only the wall time).
${ceiling:+
$ceiling
}
The farthest modeled independent rows (by |log ratio|; causes below; the
$unmodeled rows with no model value are listed in the table, their reasons
in the settings):
$(awk -F'"' -v pp="$papers" 'NR > 1 && $2 ~ pp { split($5, v, ","); if (v[7] != "yes" || v[3] == "") next; r = v[5] + 0; d = r > 0 ? log(r) : 99; if (d < 0) d = -d
	printf "%.6f\t- %s, %s: paper %s, model %s (%s, ratio %s)\n", d, $2, $4, v[2], v[3], v[4], v[5] }' "$csv" |
	sort -rn | head -5 | cut -f2)

Plots: [REIS](fidelity-reis.svg) (Fig. 7, Fig. 9, 6.3.1, Table 4; log
scale), [RecFlash Fig. 10/11 and SLC/QLC](fidelity-rf.svg),
[RecFlash Fig. 12](fidelity-f12.svg).

![REIS](fidelity-reis.svg)
![RecFlash Fig. 10/11](fidelity-rf.svg)
![RecFlash Fig. 12](fidelity-f12.svg)

## The metric

Each row compares the quantity its paper compares, one rule per kind of
number, the same in every figure (column *metric*; *ratio* is the metric
of the model over the metric of the paper, within 25 % = 0.75-1.25):

| metric | numbers | compared as |
|---|---|---|
| factor | speedups, slowdowns, ratios (x) | model / paper |
| cut-speedup | "X % lower latency / energy / time" | the speedup 1 / (1 - cut): model's over paper's, so 70.8 % against 91.9 % is 3.4x against 12.3x (ratio 0.28) |
| gain | "X % higher" throughput (Fig. 9's MPIBC) | the gain itself: the speedup 1 + gain would put no effect (1.00x) within 25 % of a 6 % gain |
| share | a share of a whole (%) | model / paper |
| value | a time, energy, power or rate | model / paper |

*independent* is "no" where the row cannot miss: an identity of the
paper's own numbers (RecFlash Eq. 1-2 are Table I arithmetic), or a model
side built from the paper's cells (Table 4's retrieval share is the
latency row over the paper's own end-to-end seconds; its end-to-end gain
puts REIS's search, 0.02-0.15 % of it, against the paper's CPU+BQ
seconds). The headline counts independent rows only.

## How the numbers are made

- **One parameter set per preset** (\`hw-model/src/flash/flash_preset.c\`, every
  value with its source in [timing-model.md](timing-model.md) §5-6); no
  figure has a knob of its own. The comparison points (REIS-ASIC, CPU-Real,
  No-I/O, the MLPs of Fig. 12) are the models of timing-model.md
  "Comparison models".
- **REIS** (\`examples/bench/bench_fidelity.c\`): analytic mode (timing-model.md
  §4) at the paper's scale, which exceeds this machine: IVF over 1024-bit
  codes with INT8 rerank, DF passing inside the probed clusters what the
  paper's one threshold passes there (REIS 4.3.3, timing-model.md A27),
  nprobe 16, 32, 64, 128, 256 standing for the paper's Recall@10
  sweep 0.90-0.98 (A33), datasets NQ (2.68 M passages, 8192 clusters),
  HotpotQA (5.23 M, 8192) and wiki_full (247 M, 65,536; nlist 4 sqrt(n)
  to the nearest power of two, A31 for the size). Fig. 9 is wiki_full;
  averages and maxima are over the sweep (and datasets where the paper
  says "across datasets"). A query's time in a stream is the stream rule
  of timing-model.md §6.2 (\`re_estimate_stream()\`): a 16-query
  command's latency / 16, on calendars where a plane takes the next
  query once done with this one and the rerank runs under the next
  queries' searches; REIS-ASIC is timed by the same rule.
  Fig. 8's QPS/W and 6.1's power (\`re_query_energy_pj()\`, timing-model.md
  A34, C11): a drive's query costs its dynamic energy in the stream (page
  reads, transfers, in-die operations, core cycles, DRAM and link bytes:
  the 16-query command's over 16) plus the drive's static power, A34's
  6.6 W for both, over its stream time; CPU-Real's query costs C11's 280 W
  over its Fig. 7 time; QPS/W is the inverse of a query's energy, over the
  points of Fig. 7's rows.
  Table 4 is one brute-force query on reis-ssd1 (Fig. 3's flat index) over
  HotpotQA and wiki_en, the dataset behind the table's "NQ" column
  (timing-model.md §6.2).
- **RecFlash** (\`examples/bench/bench_rf_embedding.c\`): the emulated drive
  in-process, delay-mode timing on a virtual clock, $rows rows per table
  (IV-A), the first $tables tables of each Table II model (tables run one
  after another on traces of their own seed, so the reductions are averages
  over tables; all 32 RMC2 tables at 1 M rows need 8 GiB per mode), batches
  of 16 samples (W3: the middle of RecSSD's 1-128 sweep), $batches measured
  batches after one warm-up batch, RecFlash placed by the profile of the
  400 batches before them (W4, the "sampled training set" of III-A), every
  run repeated on $nseeds trace seeds and each row the mean over them (the
  spread is below). The workload is a **persistent popularity**
  (\`REIS_RF_TRACE_POPULAR\`, W2: a Zipf law over a seeded ranking of the
  rows plus K's never-seen rows, its two constants set by IV-A's 8 % and
  66 % unique accesses); the table below also runs the former trace
  (RecSSD's generator over single rows) and RecSSD's 128-row lines. The
  baselines read every lookup of a command with a page read of its own, a
  repeated row again (W1, Fig. 4a; IV-A excludes the DRAM cache, II-B's one
  reuse of a vector), RecFlash each page once per command and through its page
  cache (Fig. 4b, III-C2); a stage's latency is its SLS commands' whole
  modeled time, flash and the FTL core's sums (W6). Fig. 13 runs the
  popularity at the exponents of traces shaped like Criteo Terabyte (1.56)
  and Kaggle (1.00) (W7), Fig. 14 35 days of the Terabyte shape renewing 1 %
  of its ranks a day under the four trigger policies of Fig. 7 (W8).
- **Solana** (\`examples/bench/bench_solana.c\`): the paper's server, one
  Xeon host and 36 computational drives, as nodes of libreis' pull
  scheduler (\`reis_group_pull_model()\`: the scheduled mode's pull loop,
  batch ratio and accounting, docs/group.md), items on a shared file system
  (any node takes any item, IV-A's OCFS2), the scheduler handing out a
  node's next batch at its next 0.2 s wake-up (IV-A). The applications are
  not run: each one's single-node rates are the paper's (IV-B1: 102 / 5.3
  words/s; Fig. 6: 9496 / 364 queries/s; the recommender's host 579 q/s
  and a CSD at 1/20 of it, "the ratio ... almost the same for all three
  applications"), with its batch ratio and batch. What the model predicts
  is the 36-drive server: its throughput, speedup and the share done in the
  drives. Power is IV-C's measurements (167 W idle, 405 W with the drives,
  77 W of busy host, 0.28 W per ISP engine); energies per query are that
  power over the modeled time, so they repeat the throughput rows and count
  as dependent.
- **Fig. 12-14**: end-to-end = the embedding stage of all the model's
  tables (the measured tables scaled up) + the bottom and top MLPs of the
  batch at $gmacs GMAC/s (M1, W5), the same for every system.

## All rows

| figure | series | paper | model | metric | ratio | within 25 % | independent | settings |
|---|---|---:|---:|---|---:|:-:|:-:|---|
EOF
awk -F'"' 'NR > 1 {
	split($5, v, ",")
	printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $2, $4, v[2], v[3] == "" ? "-" : v[3],
		v[4], v[5] == "" ? "-" : v[5], v[3] == "" ? "no" : v[6], v[7], $6
}' "$csv"

if [ -n "$rfseeds" ] && [ -s "$rfseeds" ]; then
	cat <<EOF

## RecFlash rows over trace seeds

The RecFlash runs on the paper's trace repeat on $nseeds trace seeds (\`bench_rf_embedding
--seed 0..$((nseeds - 1))\`: every table's locality-K trace, profile prefix and
measured batches redrawn); a row's model value is the mean over the seeds.
"spread" is the largest minus the smallest seed's value (percentage
points), "every seed agrees" whether each seed alone lands on the same
side of the 25 % line as seed 0.

| figure | series | paper | model per seed | mean | spread | ratio | within 25 % | every seed agrees |
|---|---|---:|---|---:|---:|---:|:-:|:-:|
EOF
	cat "$rfseeds"
fi

cat <<'EOF'

## RecFlash per K (TLC), three workloads

Latency cut of RecFlash against RM-SSD (%) per locality K; the paper's
Fig. 10 runs from the K = 0 value down to the K = 2 value. *popular* is
the published workload (timing-model.md W2: a persistent Zipf popularity
plus K's new rows); *recflash* the former one (RecSSD's generator over
single-row lines: a row is reused within 49 samples, then forgotten);
*recssd* RecSSD's scripts as they are (every index a multiple of 128, so a
1 M-row table has 7813 rows in use). "unique" is distinct rows / accesses
over 1 M accesses of a 1 M-row table (the paper: "unique access rates
ranging from 8% to 66%"). The times are the SLS commands' whole modeled
time (timing-model.md W6); "flash cut" is the cut of their flash part
alone. **The page cache** (III-C2's 128 KiB, 8 frames of 16 KiB) is what
the hit column shows per K: on the popular trace it serves a third of
RecFlash's page fetches at K = 0 and a few % at K = 2, where the paper
credits it ("maximizes page-wise cache utilization in high-locality
datasets"); on the former trace it hit 0-0.3 % at every K. "seen" is the
share of the measured lookups whose row the 400-batch profile prefix
touched, "tie" the mean share of the table's rows that tie with that row on
the prefix count (ties are placed in row order).

The *popular* rows are seed 0's run; "cut over seeds" is the mean and
range of the cut over the seeds above (the other workloads run once).

| trace | model | K | unique % | RM-SSD ms/batch | RecFlash ms/batch | cut % | cut over seeds | flash cut % | energy cut % | page-cache hit % | seen % | tie % |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
EOF
for f in "$rfcsv" "$former" "$recssd"; do
	[ -n "$f" ] && [ -s "$f" ] || continue
	# Runs before the seen/tie/flash columns have 34 fields: "-" there.
	# The seed spread (RF_K_SPREAD: model,K,mean,lo,hi) of the paper's trace.
	sp=/dev/null
	[ "$f" = "$rfcsv" ] && [ -n "$rfk" ] && [ -s "$rfk" ] && sp=$rfk
	awk -F, 'FILENAME != ARGV[2] { sp[$1, $2] = sprintf("%.1f (%.1f-%.1f)", $3, $4, $5); next }
	FNR > 1 && $2 == "tlc" {
		fl = NF >= 37 ? sprintf("%.1f", $37) : "-"
		se = NF >= 36 ? sprintf("%.1f", 100 * $35) : "-"
		ti = NF >= 36 ? sprintf("%.1f", 100 * $36) : "-"
		ov = (($3, $6) in sp) ? sp[$3, $6] : "-"
		printf "| %s | %s | %s | %.1f | %.3f | %.3f | %.1f | %s | %s | %.1f | %.1f | %s | %s |\n",
			$1, toupper($3), $6, 100 * $7, $9, $10, $13, ov, fl, $20, 100 * $23, se, ti
	}' "$sp" "$f"
done

cat <<'EOF'

## Rows outside 25 % and their causes

**Changed on 2026-12-05** (docs/timing-model.md W1): RecFlash's baselines
read every lookup again, a row a command names twice as well, because the
paper leaves them no copy to reuse: II-B's one reuse of a vector by the
baselines is the DRAM cache ("In the case of the cache miss, we try to
access the flash memory array"), and IV-A removes it ("The SSD's internal
DRAM was used only for mapping tables, and as in RM-SSD, we excluded DRAM
caching"). From 2026-12-02 they read a repeated row once; that reading is
now the sweep's alternative. RecFlash's strict count moved from 5 to
6 of 25, other rows than before: inside now Fig. 10 RMC2 and RMC3 at
K = 2, Fig. 11 RMC3, the QLC averages of RMC2 and RMC3 and Fig. 13's
Kaggle RMC3; outside now Fig. 10 RMC1 K = 0, Fig. 11 RMC1, Fig. 12 RMC1
and RMC3 and Fig. 13's Terabyte RMC1 (the K = 0 overshoot, below).

**Changed on 2026-12-02** (docs/timing-model.md A27, A29-A31, §6.2): the
REIS rows now run on inputs the paper states or implies where the model
had contradicted it: nlist by the rule 4 sqrt(n) (wiki_full 65,536, not
16,384), wiki_full at 247 M passages (its English subset is the 41.5 M the
model used), centroid pages spread over every plane (Parallelism-First),
IBC before a die's page reads with MPIBC dividing it by the planes per die
(Fig. 6, 4.3.4), the stream rule that overlaps only the paper's three
pipelining opportunities (queries through the flash one at a time, the
rerank under the next searches), and DF passing inside the probed clusters
what the paper's one threshold passes there (A27). On the same day the
RecFlash rows moved to the persistent-popularity workload (W2), batches of
16 (W3) and baselines that read a repeated row once (W1), and the ICE,
Fig. 8, 11, 2-3, 13, 14 and Solana rows were added. The first group of
causes below is this run's (2026-12-02); the bullets after "Before
2026-12-02" were written for the former model and workload and quote
those runs' numbers: they explain mechanisms that still hold, not this
page's values. On 2026-12-05 the first four bullets (Fig. 9's DF and
MPIBC, 6.3.1, Table 4's CPU+BQ) were written for the current model, with
the recall points' nprobe added to the sweep as A33 (timing-model.md), and
the RecFlash bullet below is that day's run (the baselines read per
lookup again, W1).

- **REIS Fig. 9, DF over No-OPT** (SSD1 2.58x / 3.20x against 4.7x /
  5.1x, SSD2 2.51x / 3.10x against 5.7x / 6.5x; checked against every
  sentence of REIS 4.3.2-4.3.3, 5 and 6.3 on 2026-12-05, timing-model.md
  §6.2 "DF held against the paper": none is contradicted). DF skips no
  page read: the dies still sense, XOR and count every probed page, and
  only the passing entries cross the channel and enter the quickselect
  (4.3.3). A No-OPT round (no PL, rounds in series) on SSD1 moves 32 pages
  x 128 entries x 138 B per channel, 471 us at 1.2 GB/s, and selects over
  32,768 entries, 175 us, against 22.5 us of sensing: X = 646 us of work DF
  scales by its pass rate p; on SSD2 283 + 350 = 633 us. So G = (tR + X) /
  (tR + p X), and the paper's 4.7x / 5.1x (SSD1) need p = 18.5 % / 16.8 %,
  its 5.7x / 6.5x (SSD2) 14.6 % / 12.4 %. The one threshold (4.3.3, A27)
  passes 56 % to 38 % of the probed entries at the rows' wiki_full points
  (nprobe 16-256 of 65,536 lists, f = 0.024-0.39 %); it passes 12-19 %
  only at f = 2.6-5 %, nprobe 1700-3300. The rows' nprobe is unsourced
  (A33, swept since 2026-12-05): at x16 (nprobe 256-4096) SSD1 gives 4.07x
  / 6.18x and SSD2 3.69x / 5.23x (three of the four within 25 %). Second,
  one threshold gives one p on both drives, and then SSD2's gain exceeds
  SSD1's by the paper's (5.7 - 1) / (4.7 - 1) = 1.27 (maxima 1.34) only if
  SSD2's filtered work per round X2 > 1.27 X1: the quickselect (2 x the
  entries per round on SSD2, the same core) must outweigh the channel (0.6
  x the time per round), i.e. 20 cycles an entry or more against A13's 8,
  or entries of 56 B or less where 4.3.2 sends 138 (EMB, DIST, RADR,
  DADR). The model's X2 / X1 is 0.98, so at any one p its SSD2 gain is 0.82-0.94
  of SSD1's (`bench_fidelity -f 0.01` to `-f 0.3`); a flat 23 % puts all
  four rows within 25 % with that order still reversed (not adopted: a
  rate picked for these rows, and the threshold's share falls with f).
- **REIS Fig. 9, MPIBC over DF+PL** (0.80 % / 2.98 % against 6 % / 26 %).
  With IBC before a die's reads (A30) MPIBC saves one latch fill per extra
  plane of a die per query, and the model's wiki_full points show exactly
  that (`bench_fidelity -v`, DF+PL minus all, 2026-12-05): 13.7 us on SSD1
  (16 KiB at 1.2 GB/s, 2 planes) and 24.9 us on SSD2 (3 x 8.2 us, 4
  planes) at every nprobe. For 6 % / 26 % on average those savings need
  queries of about 13.7 / 0.06 = 228 us and 24.9 / 0.26 = 96 us, where the
  model's wiki_full queries take 768-6415 us (SSD1) and 445-2303 us (SSD2):
  a query senses 999-8300 pages (SSD1's 256 planes: 90-743 us of sensing
  alone) and, at A27's 38-56 % pass, moves and selects far more entries
  than the paper's DF numbers imply (above; `-f 0.2` gives 1.9 % / 6.5 %).
  An IBC charged per page round instead of per query overshoots (the
  former whole-latch IBC gave 39 % on SSD1, timing-model.md A24); 4.3.2's
  "Steps - are repeated until the whole database is searched" lost its step
  numbers in the text we have, so which steps repeat cannot be read from it.
- **REIS 6.3.1, REIS-ASIC** (SSD1 2.16x-7.10x against 4.1-5.0x, SSD2
  1.46x-4.47x against 3.9-6.5x; per point with `bench_fidelity -v`,
  2026-12-05). The ASIC sends every page whole, 18,592 B; REIS sends p x
  128 entries x 138 B = p x 17,664 B of it. Where both are channel-bound
  the slowdown is 18,592 / (p x 17,664) = 1.05 / p, and the model's
  points follow it: the minima are at wiki_full, where A27 passes 51-56 %
  (SSD1 nprobe 64: 1.05 / 0.511 = 2.06, model 2.16x; SSD2 nprobe 16: 1.46x,
  REIS there also bound by its one core, 251 us a query), the maxima at NQ
  nprobe 256, where it passes 16.5 % (SSD1: 1.05 / 0.165 = 6.4, model
  7.10x). The paper's "between 4.1x-5.0x ... across all recall values and
  datasets" needs p = 21-26 % at every point on SSD1 (SSD2's 3.9-6.5x: 16-27
  %), the same band Fig. 9's DF numbers need (12-19 %, above), where the
  one threshold's share runs from 56 % to 16.5 % over the rows' probed
  shares f = 0.024-3.1 % (A27). A fixed rate is not the one threshold
  (`-f 0.2`: SSD1 4.76x-6.52x, SSD2 3.16x-4.67x, two of four in), and with
  nprobe x16 (A33) the spread widens (SSD1 2.54x-17.8x: at 10.7 % REIS is
  sensing-bound and the ratio climbs to a page's channel time over its
  sensing share, 1.94 us / (22.5 us / 256) = 22x).
- **REIS Table 4, CPU+BQ search on wiki_en** (413 ms against 1234 ms;
  HotpotQA 52 ms against 69 ms, inside). The paper's two cells are one
  machine (Fig. 3's 2 x Xeon Gold 5118) and one FAISS flat BQ scan, yet
  per code they are 0.29 % x 23.79 s / 5.23 M = 13.2 ns (HotpotQA) and
  2.00 % x 61.69 s / 41.5 M = 29.7 ns (wiki_en), 2.25x apart. The model
  has one per-code cost (C3's 22.9 cycles at 2.3 GHz, 10.0 ns, FAISS's
  POPCNT loop: the strongest baseline), and no single cost is within 25 %
  of both cells: it would need at least 0.75 x 29.7 = 22.3 ns and at most
  1.25 x 13.2 = 16.5 ns. C3-C5's swept range (x1-x10.7, up to the build
  without POPCNT) covers 29.7 ns (x3.0) but then puts HotpotQA at 156 ms.
  What the wiki_en run adds per code (2.3x the scan of a 0.67 GB array
  when scanning 5.3 GB: memory placement on two sockets, page size, or
  work Table 4 does not break down) the paper does not say; the model's
  10 ns a code is 12.8 GB/s from one core, not checked against a Xeon
  Gold 5118 (C3 was measured on a Zen 5 core).
- **REIS 6.4 and Fig. 10 / abstract, REIS over ICE-ESP and ICE with IVF**
  (2026-12-05; the model since then reranks ICE's candidates on the same
  1024-dimension INT8 rows as REIS's, timing-model.md 6.1, where it had
  read and multiplied 4096-byte rows: the 0.90 rows fell from 4.26x /
  4.51x and 15.4x / 9.69x). `bench_fidelity -v` decomposes one query of
  each side (us, average of NQ, HotpotQA and wiki_full; search = command,
  query, IBC, coarse and fine rounds; finish = INT8 reads, rerank, sort;
  stream = the stream rule's time per query, REIS's row time; ICE's row
  time is its one-query latency, search + finish):

  | SSD | recall | side | search | finish | one query | stream | pages |
  |---|---|---|---:|---:|---:|---:|---:|
  | 1 | 0.90 | REIS | 362 | 237 | 599 | 367 | 554 |
  | 1 | 0.90 | ICE-ESP | 921 | 237 | 1157 | 922 | 1658 |
  | 1 | 0.90 | ICE | 6340 | 259 | 6599 | 6341 | 7182 |
  | 1 | 0.98 | REIS | 2450 | 256 | 2706 | 2448 | 3742 |
  | 1 | 0.98 | ICE-ESP | 7925 | 256 | 8181 | 7985 | 13715 |
  | 1 | 0.98 | ICE | 62084 | 257 | 62341 | 63426 | 102108 |
  | 2 | 0.90 | REIS | 224 | 194 | 418 | 225 | 724 |
  | 2 | 0.90 | ICE-ESP | 360 | 194 | 554 | 359 | 1828 |
  | 2 | 0.90 | ICE | 2031 | 214 | 2246 | 2030 | 7353 |
  | 2 | 0.98 | REIS | 961 | 214 | 1175 | 947 | 3913 |
  | 2 | 0.98 | ICE-ESP | 2552 | 214 | 2766 | 2559 | 13886 |
  | 2 | 0.98 | ICE | 19274 | 253 | 19527 | 19868 | 102279 |

  A row is the per-data-set ratio ICE's one query / REIS's stream,
  averaged: REIS's finish runs under the next searches, ICE's does not
  (the paper states no query stream for ICE). Timing both sides alike
  moves the rows (ICE-ESP 0.90 / 0.98, ICE 0.90 / 0.98, SSD1 then SSD2):
  the published rule 3.26 / 3.33, 14.6 / 22.3; 2.76 / 2.77, 8.47 / 15.4
  (6 of the 10 IVF rows within 25 %); both one query at a time 1.70 /
  2.46, 8.59 / 17.0; 1.26 / 1.84, 4.42 / 11.1 (4); both under the stream
  rule 2.12 / 2.92, 13.4 / 22.6; 1.47 / 2.17, 7.03 / 15.2 (4). No rule
  reaches all of them, and the published one stays (REIS-ASIC is timed
  like REIS because 6.3.1 describes its data path; 6.4 describes no
  stream for ICE). **The paper's own 0.90 numbers are not one mechanism
  with wider entries.** If REIS's query is F + P, ICE-ESP's F + 4 P and
  ICE's F + 32 P (P the part that scales with the entries' bytes: 4-bit
  values, and the 8x format, REIS 3.2), then REIS over ICE-ESP, (F + 4 P)
  / (F + P) = 2.08 needs F = 1.78 P, and over ICE, (F + 32 P) / (F + P) =
  7.67 needs F = 3.65 P (SSD1); on SSD2 2.29 needs F = 1.33 P, 9.76 needs
  F = 2.54 P and Fig. 10's 7.1 F = 4.08 P. At 0.98 the two agree: F =
  0.63 P / 0.52 P (2.84, 21.4) and 0.38 P / 0.34 P / 0.42 P (3.18, 24.2,
  22.9). F = 3 P (75 % of REIS's query at nprobe 16 independent of the
  entry width) puts both 0.90 rows of each SSD within 25 % (1.75x, 0.84 /
  0.76 of the paper; 8.75x, 1.14 / 0.90 / 1.23), where the model's REIS
  query at nprobe 16 is almost all scan (its stream time is its search:
  the centroid pages, 4 x as many for both, and the cluster pages, 4 x /
  32 x as many for ICE-ESP / ICE). The 0.98 rows need ICE over ICE-ESP near the format's
  8x (the paper's 21.4 / 2.84 = 7.5x, 24.2 / 3.18 = 7.6x, 22.9 / 3.18 =
  7.2x); the model's ICE search is 5.3-7.8x ICE-ESP's on SSD2 (NQ 5.3x,
  HotpotQA 6.5x, wiki_full 7.8x) because NQ's and HotpotQA's ICE reads
  only 6.5x / 7.1x the pages (the centroid pages do not grow with the
  format) and SSD2's planes absorb part of the extra pages in the same
  rounds: SSD2's 0.98 rows stay at 15.4x against 24.2x / 22.9x.
- **REIS Fig. 8 and 6.1, the power** (since 2026-12-05, timing-model.md
  A34, C11; their published values come from Solana IV-C's measured drive
  idle and the EPYC packages' idle, not from these rows): SSD2 over SSD1
  0.89x on average and 1.11x at most against 2.2x / 2.6x, over CPU-Real
  63x / 353x against 55x / 157x, the drives' power 2.9x below CPU-Real's
  against 29.7x. The model's dynamic energy of a query is 16-257 mJ,
  97.9-99.8 % of it flash reads (A15's 29.56 uJ per ESP-SLC page, RecFlash
  Table III's 69.06 uJ per INT8 TLC read), 36-118 W over the query's
  stream time on reis-ssd1 and 81-231 W on reis-ssd2, so A34's 6.6 W is
  3-16 % of a query's energy. A query reads the same pages on both drives
  (wiki_full at nprobe 16: 36.9 mJ on both) or more on SSD2 (NQ at nprobe
  16: 568 pages against 312, its centroids over 512 planes; 23.8 against
  16.2 mJ), so SSD2's faster query (1.82x on average, Fig. 7) buys no
  efficiency: 0.89x. The paper's 2.2x, 85 % of its 2.6x speed-up, says
  its drive draws about the same power whatever the work, static power
  outweighing the reads; in the model that takes reads 20x cheaper and a
  high static power: A15 at x0.05 (1.5 / 3.5 uJ a page, a die's read
  current over tR) gives 1.28x / 1.83x, A34 at 25 W 1.00x / 1.34x, the
  hypercube at best 1.44x / 2.04x: the average (1.65x at least) is out
  of reach of every swept range. The paper's averages do not compose
  either: 13x the QPS at 29.7x lower power would be 386x, not 55x; its
  Fig. 7 and 8 imply power ratios of 55 / 13 = 4.2x on average and
  157 / 112 = 1.4x at the maxima (if they are one point), and the model's
  2.9x sits between them, 10x below the text's 29.7x (at C11's 280 W,
  29.7x is a 9.4 W drive: A15 x0.05 alone reaches 22.1x, the hypercube
  98.8x). The CPU-Real average, 63x against 55x, is within 25 % by that
  composition, not by the drive's power; its maximum is Fig. 7's
  maximum point (reis-ssd2, wiki_full, nprobe 16: 50.2 ms of CPU-Real at
  280 W, 14.1 J, against the drive's 39.9 mJ; 112.9x the QPS at 3.1x the
  power). The CPU-Real rows move most with C10 (wiki_full's query set:
  11.3-580x on average), A15 and A33.
- **REIS Fig. 11, 2 and 3** have no model value (counted as
  outside): Fig. 11's NDSearch is a graph search on other hardware and data
  (SIFT-1B, DEEP-1B) with no per-hop cost stated; Fig. 2-3's loading
  shares are measurements of a CPU pipeline the model does not run (the
  settings column gives each reason).
- **RecFlash Fig. 10-14 on the persistent popularity, baselines per
  lookup** (since 2026-12-05, W1; TLC K = 0: 96.8 / 96.6 / 93.4 % against 68.4 / 91.4 /
  77 %; K = 2: 72.8 / 73.2 / 57.2 % against 54.4 / 78 / 64.2 %, means of the seeds
  above). On the strict metric a cut c is RM-SSD's time over RecFlash's,
  1 / (1 - c): the paper's K = 0 cuts are 3.2x / 11.6x / 4.3x, the model's
  31.2x / 29.5x / 15.1x. **Fig. 11's three energy rows are out of reach
  together for any popularity law**, by the paper's own numbers (since
  2026-12-05; "RecFlash: the sensing bound over popularity laws" below,
  computed by `bench_rf_bound` in every `make fidelity`). At one batch,
  an RMC2 command has 1.5x RMC1's lookups (120 against 80 a sample, Table
  II) and pages of 64 rows of 256 B that split RMC1's pages of 128 rows of
  128 B in two; with one law per table and the rows packed by rank
  (III-C1), it therefore senses at least as many distinct pages as RMC1's
  command, so RMC2's sensing factor RM-SSD / RecFlash is at most 1.5x
  RMC1's (the energy factor follows it to 0.24 %: Table III's e_read
  dwarfs the channel's bytes). The paper's Fig. 11 factors are 3.28x /
  12.35x / 4.48x: RMC2 over RMC1 is 3.77, and both rows within 25 % on the
  strict metric need at least 0.75 x 12.35 / (1.25 x 3.28) = 2.26. Held to
  IV-A's 8 % unique accesses at K = 0, 16 laws (Zipf over 10^5-10^6 rows,
  hot sets of 1-65,536 rows, Zipf with a uniform floor; Zipf over 10^3-5 x
  10^4 rows cannot reach 8 %) over batches 1-128 give RMC2 / RMC1 at most
  1.045 and never all three rows within 25 % (at most 2 of 3); RMC3's
  factor is at most RMC1's (its 20 lookups a sample on the same pages;
  computed at most 0.976x), where the paper's is 1.37x. W1's accounting
  (RM-SSD one sensing per lookup; RecFlash one per distinct page of a
  command) cannot give the paper's three numbers with one workload law and
  one batch for all models; what could is an input the paper does not
  state (a batch or a law per model, a placement not by rank). Fig. 10's
  K = 0 cuts (3.16x / 11.63x / 4.35x, RMC2 / RMC1 = 3.67) meet the same
  1.5 only where both systems are throughput-bound; RM-SSD's plane queues
  behind repeated reads of a hot row (below) make latency grow faster
  than sensings, so the arithmetic does not bound Fig. 10 in general.
  **K = 0 and everything built on it are out of reach with W2's shape**,
  too, in each row alone. W2 is a Zipf law
  whose exponent (1.20) is fixed by IV-A's 8 % unique accesses at K = 0;
  its hottest row draws 19 % of the lookups, its hottest 128 rows (one
  RMC1 page of 128 B rows) 70 %. Count
  sensings, which set Fig. 11's energy (e_read per sensing, Table III),
  with the rows packed by rank (III-C1's order; the model's placement from
  its 400-batch sample comes close, see below): in one RMC1 command of 16 x 80 = 1280 lookups the hottest 43 pages hold
  89.1 % of the lookups, so RecFlash, sensing a page at most once per
  command, senses at most 43 + 0.109 x 1280 = 183 pages where RM-SSD
  senses 1280, one per lookup (W1): at least 7.0x fewer, an energy cut of
  at least 85.7 %. The paper's largest RMC1 energy cut is 69.5 % (3.3x).
  RMC3 (320 lookups, 14 pages hold 84.8 %): at least 5.1x, 80.4 %, against
  77.7 % (4.5x); RMC2 (1920 lookups, 64 rows of 256 B a page, 68 pages hold
  88.2 %): at least 6.5x, 84.7 %, below the paper's 91.9 % (12.3x). The
  model sits just above these bounds (energy cuts 86.5 / 86.0 / 80.9 %). So the
  paper's RMC1 and RMC3 numbers exclude, with its baselines, a popularity
  as concentrated as a Zipf with 8 % unique accesses: IV-A's 8 % fixes one
  number of the workload, not its shape, and its one sentence on the shape,
  "Similar to the baseline, we used a synthetic trace generator to control
  the locality level (K)", points at RecSSD's generator (the *recflash*
  rows of the per-K table, where reuse is short-lived), not at a fixed
  popularity, which issue 26 asked for from II-B and III-C1. IV-A's other
  cache sentence points the same way: "the DRAM cache stores up to 2K
  vectors per table", read as a static host cache of each table's 2048
  hottest rows (the sweep's W1 "host cache" row below, timing-model.md
  W1), serves 85.7 / 85.1 / 83.9 % of W2's lookups at K = 0 and 32.1 /
  30.9 / 30.6 % at K = 2 (RMC1 / 2 / 3, seed 0; analytically 85.2 and 31.3
  %, "RecFlash: the sensing bound over popularity laws" below), no
  "limited benefit" ("we excluded DRAM caching due to its limited benefit
  in RecSSD"): evidence against a popularity as concentrated as W2. With
  that cache in front of all three systems RecFlash's cuts fall to 12.4 /
  20.5 / 10.3 % at K = 0, 13.1 / 17.3 / 9.4 % at K = 2 and 16.3 / 15.9 /
  6.2 % of energy, 0 of the 9 sweep rows within 25 %, every one below the
  paper: the cache takes the hot rows whose shared pages RecFlash's cut
  comes from, so that reading undershoots as far as W2 alone overshoots.
  Latency goes
  past the sensing ratio: per lookup, every copy of the hottest row in a
  command is a read of one plane, one t_R after another (0.19 x 1280 = 243
  reads x 60 us = 14.6 ms per RMC1 table and batch, against RecFlash's
  whole 0.6 ms), hence 31.2x / 29.5x / 15.1x. The SLC / QLC averages include K = 0
  and inherit it, as do Fig. 12 (the MLPs at M1 are a small share of a
  per-lookup RM-SSD stage; the paper's own stage and end-to-end cuts
  already admit no single MLP rate, "RecFlash Fig. 12" below). Fig. 13
  and 14 ride on the same shape: the Terabyte-shaped exponent (1.56, W7)
  puts 42 % of the lookups on one row and 98.7 % on RMC1's 10 hottest
  pages, so sensings fall at least 48x / 43x / 29x (RMC1 / 2 / 3) and the
  model's end-to-end cuts are 99.5 / 99.4 / 94.0 % against 70.0 / 80.1 / 61.5 %; the
  Kaggle shape (1.00) bounds them at 2.6x / 2.5x / 2.1x and the model gives
  86.5 / 86.3 / 63.6 (RMC3 within 25 %) % against 66.3 / 76.3 / 58.3 %; Fig. 14 runs the Terabyte shape
  (99.3 % against 76.7 %). **K = 2**: IV-A's 66 % unique accesses make 63 % of the lookups
  rows never referenced before (W2), each a sensing on both sides unless
  it shares a page with another lookup of the command by chance, so
  sensings and energy can fall at most 1 / 0.63 = 1.58x (the model's K = 2
  energy cuts: 35.7 / 35.1 / 29.6 (seed 0) %); the latency cut comes from RM-SSD's queue of hot-row
  reads on single planes (37 % of the lookups are popularity draws), which
  gives 3.7x / 3.7x / 2.3x against the paper's 2.2x / 4.5x / 2.8x (RMC2, RMC3
  within 25 %, RMC1 above). With baselines that read a repeated row once
  (the 2026-12-02 reading, W1 "per distinct row" in the sweep below) the
  same 1.58x bounds K = 2's latency too, so the paper's 2.2-4.5x are out of
  reach, and K = 0 falls to 2.2-2.3x (55-56 %).
- **Solana Fig. 5(b), the recommender's spread over batch sizes** (25 %
  against "not more than 3 %"). The run is 58,000 queries at about 1,425
  q/s, 41 s; the recommender's CSD batch is unsourced (S1: 194 queries,
  the smallest whose 0.2 s tick costs at most 3 % of a batch), and at 4 x
  it a CSD batch of 776 queries is 776 / 28.95 = 26.8 s of a CSD's work,
  so the run's last round leaves drives idle for much of the run. The
  paper's Fig. 5(b) sizes are not in its text; with batches that small
  against the run, any scheduler with whole batches shows the tail.
- **Solana, the speech rows' ceiling.** 36 CSDs and the host cannot beat
  the sum of their single-node rates (IV-B1): 102 + 36 x 5.3 = 292.8
  words/s, where Fig. 5(a) reports 296 (1.1 % above); the model's 288
  words/s loses 1.7 % to the 0.2 s tick and the end of the run. The
  sentiment rows likewise stay below 9496 + 36 x 364 = 22,600 q/s (paper
  20,994, model 18,186: 40,000-query CSD batches are 110 s each in a 381 s
  run). The Solana rows rest on the paper's single-node rates: they test
  the scheduler's arithmetic (ratio, tick, tail), not the applications.

Before 2026-12-02:


- **How REIS rows are timed.** Fig. 7 and 9 are QPS of a query stream:
  a query costs a 16-query command's latency / 16 (timing-model.md §6.2,
  the stream rule). In that command a plane takes query q + 1's IBC and
  pages once it has finished q's, a die's pages wait only for their own
  IBC, and a query's rerank (100 INT8 reads, 68 us of MACs, the sort) is
  issued after the next query's search (reads) and the command's last
  search (kernels), so searches never wait for it. Until 2026-12-01 the
  rule was max(A, O), A = one query's in-die search latency; the 16-query
  command it assumed took 2.4x A per query (229 against 94 us at SSD1, NQ,
  nprobe 16) because every search waited for its IBC on every die and for
  the previous rerank; now 151 us, one query alone 253 us. The stream is
  still 2-4x above the busiest class's share (`bench_fidelity -v` prints
  both): q + 1's coarse pages sit on the same 64-128 centroid planes as
  q's, after q's fine pages and q - 1's INT8 reads there (2-3 TLC tR where
  reads collide on a plane), each plane's latch holding one query.
- **REIS Fig. 7, SSD2 over SSD1** (1.43x / 1.62x against 2.6x / 3.2x).
  Table 3's drives differ in channels (8 / 16), dies per channel (16 / 8:
  128 dies on both), planes per die (2 / 4: 256 / 512 planes) and channel
  rate (1.2 / 2.0 GB/s: 9.6 / 32 GB/s aggregate, 3.3x); tR (22.5 us
  ESP-SLC), the TLC read and the cores are the same, the DRAM follows the
  channels (A8). The stream is bound by the chain through the centroid
  planes above (IBC, a coarse page, the fine pages and INT8 reads that
  share its planes), at least a few tR on either drive, and at low nprobe
  by the one REIS core (72 us a query of MACs and sort on both drives):
  SSD2 gains 1.2-1.4x at low nprobe and up to 1.6x at wiki_full, nprobe
  256 (5443 pages a query: 21 rounds of SSD1's planes, 11 of SSD2's). Only
  channel-bound work could gain 3.3x, and at DF's 1 % pass the channels
  never bind (SSD1: at most 211 us per query against a 781 us stream
  time). The paper's "higher channel counts (2x) and channel bandwidth
  (1.7x)" implies a stream bound by channel traffic, i.e. far more TTL
  traffic per query than 1 % of the probed entries (next item).
- **REIS Fig. 9, DF over No-OPT.** No-OPT sends every probed entry's
  138-byte TTL-E over the channels without pipelining: a round of full
  pages is 32 planes' 17.7 KB per channel on both drives: 471 us at
  1.2 GB/s (SSD1), 283 us at 2 GB/s (SSD2), so No-OPT is 332-16069 us
  (SSD1) and 231-7946 us (SSD2) per query in the stream, and DF's gain on
  wiki_full is 4.1-7.5x on SSD1 (average 6.0x against 4.7x, maximum 7.5x
  against 5.1x) and 3.4-6.3x on SSD2 (4.9x / 6.3x, within 25 % of 5.7x /
  6.5x). The paper's flat 4.7-5.1x fits a filter that passes more than 1 %
  inside the probed clusters: the corpus threshold of docs/reis.md §7.1
  passes 16 % of a brute-force scan but 44 % of the probed entries at
  nprobe 32 (the probed clusters are the near ones). The paper gives no IVF
  pass rate (4.3.3's "filter out 99 %" is HotpotQA brute force), so the rows
  keep the stated 1 %. Sensitivity (`bench_fidelity -f RATE`, not
  published; of the 16 Fig. 7 / Fig. 9 / 6.3.1 rows, within 25 %): 1 % 4
  (SSD2's DF average and maximum, SSD2's ASIC maximum, CPU-Real average),
  5 % 5 (+ SSD1's DF average), 10 % 4 (SSD1's DF rows in, SSD2's out),
  16 % 6 (SSD1's DF rows and ASIC maximum, SSD2 over SSD1 maximum 2.55x,
  No-I/O average and maximum; SSD2's DF rows, its ASIC maximum and
  CPU-Real out), 20 % 6 (the same), 44 % 1 (the measured IVF rate: SSD2
  over SSD1 maximum 2.74x). No single rate brings SSD1's and SSD2's DF
  rows in together. What the paper's one threshold (1 % of a brute-force
  scan) passes inside the probed clusters was measured on the corpus
  (timing-model.md A27: 45-51 % of the probed entries at nprobe 16, 17-23
  % at 256); with it (`bench_fidelity -F`, not published) 4 of these 16
  rows are within 25 % as with 1 %, but others: SSD1's ASIC maximum
  (5.06x), SSD2 over SSD1's maximum (2.69x), REIS over No-I/O's average
  and maximum (1.72x / 4.78x) come in; SSD2's DF rows (2.49x / 3.33x),
  SSD2's ASIC maximum (3.36x) and CPU-Real's average (6.2x) go out. The
  channels then bind SSD1's stream from NQ's nprobe 64 on (at wiki_full
  nprobe 256, 2786 us a query against 2663 us of channel time; `bench_fidelity
  -v -F`), which is what the paper's "higher channel counts and channel
  bandwidth" explanation of SSD2's gain needs, but DF then saves only
  2.5x / 3.6x on SSD1: the paper's flat 4.7-6.5x needs near 15-20 % at
  every nprobe, below what the threshold passes in the near clusters
  here.
- **REIS Fig. 9, MPIBC** (0 % / -0.3 % against 6 % / 26 %). IBC moves one
  128-byte query per plane over the channel and the die fills the rest of
  the latch (A24): 13.7 us per plane on SSD1, 8.2 us on SSD2, in turn
  across a die's planes unless MPIBC broadcasts to them together (the
  copies are not queued behind other channel transfers, A28: every row
  moves 0.55 % or less if they are). A die's
  pages wait only for their own plane's copy, and its first plane gets
  the copy first either way; the centroid pages lie on the dies' first
  planes and the fine pages come after the coarse phase, by which time
  every plane's copy is in, so MPIBC saves nothing a query waits for, in
  the stream or alone (until 2026-12-01 every search waited for its IBC on
  every die, which gave 5.5 % / 13 %; with one page on each plane it saves
  3 IBCs on SSD2, `test_reis_stream`). The paper's 6 % / 26 % implies IBC
  on every query's critical path, i.e. a search that starts after the
  whole broadcast, which its text does not state (4.3.4 says MPIBC
  "reduces the IBC latency"). MPIBC saves at most one fill per extra
  plane of a die, 13.7 us a query on SSD1 and 3 x 8.2 = 24.6 us on SSD2,
  so 6 % / 26 % needs wiki_full queries of about 230 / 95 us on average,
  where the stream takes 251-781 / 182-482 us (the sensing alone at
  nprobe 256 is 5443 pages / 256 planes x 22.5 us = 478 us on SSD1). A
  what-if (2026-12-02, a scratch tree, not in the model) where a fill
  holds its whole die (a die's I/O and command interface serve one
  operation, so no other plane of it senses or sends meanwhile) gives
  2.2 % / 5.6 % in the stream and 2.7 % / 6.1 % with one query at a time,
  and no combination of the unsourced assumptions (sweep below) brings
  either row within 25 %, with or without it.
- **REIS 6.3.1, REIS-ASIC** (SSD1 1.9-13.8x, SSD2 1.2-7.0x against
  4.1-5.0x / 3.9-6.5x). The ASIC is timed on the same calendars and by the
  same stream rule as REIS: the same pages, each read plainly and sent
  whole (data + spare, 18,592 B: 15.5 us a page on an SSD1 channel, 9.3 us
  on SSD2's, 1.94 / 0.58 us a page per drive), no IBC, free compute,
  REIS's INT8 reads. The two ends miss for different reasons (measured
  2026-12-01 with per-class busy times and per-query chains of 16-query
  commands):
  - *Minimum* (NQ, nprobe 16: SSD1 286 against 151 us, SSD2 146 against
    118 us). A query there moves 121 pages (64 centroid pages, 56 in the
    probed lists), 2.3 MB, which SSD2's 32 GB/s of channels carry in 73
    us; the ASIC is 85 % channel-bound on SSD1 and chain-bound at 50 %
    on SSD2. REIS is bound by neither: on SSD1 its command's resources are at most
    25 % busy, and its step from one query to the next (142 us on SSD1) is
    the fine phase plus the next coarse phase waiting behind the previous
    query's rerank reads on the same planes (52 TLC reads at 60 us, 222 us
    a query). The paper's 4.1x / 3.9x would need REIS at about 70 / 37 us
    a query there, i.e. at its core's floor. The assumed TLC read (next
    item) is about 70 us of REIS's step on SSD1: at tR 22.5 us REIS takes
    103 us.
  - *Maximum* (SSD1, wiki_full, nprobe 256: 10.8 ms against 0.78 ms). The
    ASIC is 99 % channel-bound (5,443 pages a query) and REIS is near its
    sensing floor (5,443 / 256 planes x 22.5 us = 478 us), so the ratio
    climbs with the pages towards a page's channel time over its sensing
    share: (18,592 B / 9.6 GB/s) / (22.5 us / 256) = 22x on SSD1, 13x on
    SSD2. The paper's flat 4.1-5.0x / 3.9-6.5x needs REIS to cost 0.39-0.47
    us a page on SSD1 (0.09-0.15 us on SSD2), what a REIS that is
    channel-bound moving 3.7-4.5 KB per page read would cost: the same
    direction as Fig. 9's DF gain and Fig. 7's SSD2 over SSD1 (more TTL
    traffic inside the probed clusters than 1 %, the `-f` / `-F`
    sensitivity above), not an ECC question.
  - *ECC.* The paper's ASIC "uses ECC performed by the SSD controller";
    the model charges it the channel transfer only (no decoder limit).
    Neither drive's controller has a published LDPC decode throughput (the
    PM9A3's and Micron 9400's 6.5 / 7.0 GB/s are host reads). A drive-wide
    decoder cap only slows the ASIC where it moves most: at 7 GB/s SSD1's
    rows would be 2.5x / 18.8x and SSD2's 3.4x / 31x, at 3.5 GB/s 4.8x /
    38x and 6.9x / 62x; no value brings both ends in (a what-if on a
    scratch branch, not in the model).
  - *Cell mode.* Without ESP the ASIC's drive could keep the binary codes
    in its native TLC rather than in SLC mode; reading them at the TLC's
    60 us (a what-if, 2026-12-02) raises the minima only to 2.11x / 1.67x,
    and the maxima stay channel-bound (13.8x / 7.1x). No combination of
    the unsourced assumptions (sweep below) brings SSD2's minimum within
    25 %: it needs REIS at about 37 us a query at NQ, nprobe 16, under its
    one core's 68 us rerank.
- **REIS TLC read.** REIS gives no TLC (INT8 region) read time: Table 3
  lists only the ESP-SLC tR (22.5 us, from Flash-Cosmos), 4.1.2 says only
  that SLC reads faster than TLC, and the PM9A3 / Micron 9400 briefs give
  no array timing; the presets keep RecFlash Table III's 60 us. The rerank's
  INT8 reads share planes with the next queries' pages, so the TLC read is
  on the stream's chain: at 45 us (`bench_fidelity -p t_read_tlc=45us`)
  REIS rows move by up to 15 % (REIS over CPU-Real's maximum 47.9x to
  55.3x, SSD1's ASIC minimum 1.89x to 2.16x, SSD2's DF average 4.94x to
  5.26x) and the same REIS rows stay within 25 %.
- **REIS Fig. 7, CPU-Real and No-I/O.** The host model (timing-model.md
  C1-C10) runs FAISS's one-query path: a query on one core at cycles
  measured here with the real kernels (22.9 per 128-byte code, 20.3 per
  centroid, 1.58 per INT8 dimension; `bench_host_cpu`) at the EPYC 9554's
  3.1 GHz, so No-I/O costs 151-1320 us per query on NQ and HotpotQA and
  465-4956 us on wiki_full (nprobe 16-256). CPU-Real adds its query set's
  FAISS index (code, 64-bit list id and INT8 row per passage) and
  documents read at the drive's 6.9 GB/s over the set's queries: 0.14-0.15
  ms per query on NQ and HotpotQA (BEIR's 3,452 and 7,405 test queries),
  8.3 ms on wiki_full (57.1 GB over 1000 queries, a count with no source:
  the dataset has no query set, C10). REIS over CPU-Real is 12.3x on
  average (within 25 % of 13x) and 48x at most (against 112x), at
  wiki_full nprobe 16 on SSD2, where CPU-Real's load dominates (8.7 ms a
  query) and REIS's query costs 183 us in the stream (its 16-query
  command's latency / 16, timing-model.md §6.2), where the paper's 112x
  implies about 78 us. REIS over No-I/O is 2.97x on average, 10.3x at
  most (wiki_full, nprobe 256, SSD2: 4956 against 482 us), against 1.8x /
  5.3x: one core per query is the slowest host FAISS's serving path
  allows; with every core on a query of its own the host is DRAM-bound
  and the ratios fall to 0.12x / 0.43x; the paper's sit
  between, and REIS's sensing ceiling (186 / 373 GB/s) rules the
  DRAM-bound host out (C6). The paper fixes no thread count or batch (its
  "256-core" system is Table 3's 128 cores as hardware threads), so the
  model keeps FAISS's one-query path rather than a concurrency fitted to
  the figure. The host-internal check, which needs no REIS model:
  CPU-Real / No-I/O per point is 3.97x on average and 18.8x at most
  against the paper's implied 13 / 1.8 = 7.2x and 112 / 5.3 = 21x; the
  maximum agrees, the average is short because on NQ and HotpotQA
  (1.60x / 1.39x) the load spread over BEIR's large query sets is below
  the search at most points, where REIS 5 says loading is CPU-Real's
  biggest part (true at 6 of 15 points). No single load rate meets both:
  loading 9.4x slower would make it outweigh every BEIR search but put
  wiki_full at 17-167x. A host that keeps the index on the drive and reads
  each query's lists, rerank rows and documents (C9, PM9A3 at 1,000 k
  IOPS) has a flat 3.0-3.5x, which the paper's 21x and its loading
  argument (REIS 5) rule out as its baseline. The remaining gap on
  the rows is the unstated wiki_full query count and the paper's unstated
  threads; REIS's own per-query time (the stream rule) moves all four.
- **REIS Table 4.** REIS's brute-force search is sensing-bound (A25) and
  lands on the paper's stated 3.8 ms / 28.5 ms, so both retrieval shares are
  within 25 %. CPU+BQ is Fig. 3's system (timing-model.md C7) with the
  paper's LLM-stage seconds: its dataset loading runs at that system's
  measured rate (16.1 GB of BQ codes and documents in 46.3 s over both
  columns, 348 MB/s: FAISS's index deserialisation and the document
  store), so it loads wiki_en in 41.1 s (paper 41.5 s) and HotpotQA in
  5.2 s (paper 4.8 s); its flat search is FAISS's one-query path on one
  2.3 GHz core at C3, 52 ms / 413 ms against the paper's 69 ms / 1.23 s
  (10 ns per code here; the paper's take 13 ns on HotpotQA and 30 ns on
  wiki_en, so its wiki_en search holds more than the scan, which Table 4
  does not break down). Both gains are within 25 % (1.28x on HotpotQA,
  3.18x on wiki_en). The rate comes from both columns, so the two rows
  check one rate's consistency across the datasets, not an independent
  prediction. A host that loaded at the PM9A3's 6.9 GB/s (0.26 s / 2.1 s)
  would be the stronger baseline: REIS would gain only 1.02x / 1.13x
  (`bench_fidelity -v`).
- **RecFlash Fig. 10 at K = 2 and the RMC order.** At K = 0 the three TLC
  cuts are within 25 % (means over 5 seeds 81.1 / 83.4 / 71.2 against
  68.4 / 91.4 / 77 %); at K = 2 RMC1 is just inside (67.3 against 54.4 %,
  ratio 1.238; every seed 66.5-67.8, inside), RMC2 and RMC3 end short
  (54.3 / 39.2 against 78 / 64.2 %; no seed comes within 12 points of
  the line), and the model orders
  the RMCs by pooling factor (RMC1 > RMC3 at every K) where the paper has
  RMC2 > RMC3 > RMC1 at both ends. What the workload leaves the placement:
  RecSSD's histogram (gen_dist.py: 50 bins, bin 0 the new reference)
  reuses a row only within 49 x lookups-per-sample references, less than
  one batch of 64 samples, so a batch mostly reuses rows that were new
  references of that batch or the one before. The 400-batch prefix the placement
  learns from (W4) touched only 22-25 % of the measured lookups' rows at
  K = 0 (*seen* above); RecFlash's cut at every K is mostly W1's (the
  command senses each page once where RM-SSD reads per vector), and a
  placement by the measured bags themselves (RecFl*, an oracle) gives
  97-99.5 %. At K = 2, 71 % of the lookups are new references. Where they
  land depends on whether the generator's LRU list of 1 M rows wrapped
  inside the prefix: for RMC3 (0.37 M new references in the prefix) they
  are rows never seen (*seen* 0.7 %); for RMC1 and RMC2 (1.46 M / 2.19 M)
  they are rows the prefix touched once or twice, mostly with one count:
  a tie group of 35 % / 32 % of the rows (*tie*) that the placement keeps in
  row order. Placing that group by first use instead (Algorithm 1 inserts
  a key before another only on a higher count, so an arrival-order list
  keeps ties in first-use order; `bench_rf_embedding --ties first`,
  timing-model.md W4) gives 95.8-96.8 % for RMC1 and RMC2 at K = 0.8-2, flat
  in K: the generator hands out its recycled rows in the order the prefix
  last used them, and a first-use placement reads that order back. So
  these rows rest on an order the paper does not state, and the drive keeps
  the one uncorrelated with the generator (row order). What the 400-batch
  placement adds at all shows against a placement that knows nothing
  (`bench_rf_embedding --rows 1000000 --tables 2 --batches 5
  --profile-batches 1`, 2026-12-01, seed 0, TLC: one batch of profile, the
  rest of the rows in row order): 82.6 / 75.3 / 69.2 / 67.2 / 62.4 %
  (RMC1), 84.3 / 76.1 / 66.3 / 62.9 / 52.3 % (RMC2), 73.0 / 59.3 / 49.9 /
  44.8 / 36.8 % (RMC3) at K = 0 / 0.3 / 0.8 / 1 / 2, falling with K as Fig.
  10 does. That is W1 alone, and it is most of every cut; the profile
  moves them by -1.8 to +12.9 points, most at RMC1 K = 0.3 (85.6 against
  75.3 %) and RMC2 K = 1 (75.8 against 62.9 %). At RMC1 K = 0.3 the
  placement packs the rows the prefix never touched (about 0.3 M, no
  wrap) into the tail of the table in row order, about 2400 of 7813
  pages, and the generator's next new references are exactly those rows
  (it recycles the least recently used line, the untouched first); at
  RMC2 K = 1 the list has wrapped and the recycled rows are the prefix's
  count-1 group. So the jumps between neighbouring K are the generator's
  recycling order meeting the placement, not the frequency ranking
  III-C1 is about. At K = 2 the new references share a page with another
  lookup of the command mostly by chance (the profile adds 2.1-5.4 points
  there), over 7813 / 7813 / 15625 pages (RMC3 / RMC1 / RMC2; about
  910 / 3650 / 5480 new references per command), hence the
  pooling-factor order. RMC2's fall from K = 1 (75.8 %) to K = 2 (54.4 %)
  is that tie group growing from 19 % to 32 % of the rows (the recycled
  rows move from the count-1 to the count-2 group), not locality.
  Re-placing during the run does not help: III-C4's period trigger with
  Algorithm 1 after every batch (*+on*; 2026-12-01,
  `bench_rf_embedding --rows 1000000 --tables 2 --batches 5`, flash part)
  moves the TLC cuts by under 0.5 point (RMC3 at K = 0: 3.5) for 83-1429
  ms of modeled remap per batch, because the next batch's new
  references are again rows its profile did not rank. The paper's cut at
  K = 2 and its RMC order need popularity that persists from the profile
  into the measured traffic, which RecSSD's generator over single rows
  does not have and the paper does not describe; RecSSD's own 128-row
  lines have it (7813 rows ever used) and give 97-99.8 % at every K
  (*recssd* above). Nor is the paper's K scale RecSSD's: the generator's
  new-reference rate is (p_0 + K) / (1 + K), p_0 = 13.9 % (the
  exponential's first bin over a 1000-sample range; gen_dist.py adds
  int(K x sum of densities) to bin 0, the densities summing to 1 / bin
  width), 14.0-71.3 %; the paper's 8-66 % fits no p_0 with K's mass as
  RecSSD adds it (8 % at K = 0 gives 69.3 % at K = 2; 66 % at K = 2 needs
  p_0 = -2 %), so the generator keeps RecSSD's. The cut also grows with
  the batch (timing-model.md W3); the paper states none. The two
  workload choices the paper leaves open, crossed (2026-12-02, seed 0,
  `bench_rf_embedding --rows 1000000 --tables 2 --batches 5 --media
  tlc,slc,qlc --batch B --ties T`, rows by `fidelity.sh --from`): of the
  18 RecFlash rows, batch 64 with row order (the published setting) has
  14 within 25 %, 32 / first use 13, 128 / row 12, 128 / first use 11,
  64 / first use 10, 32 / row 9, 16 / row 3. Fig. 12's RMC1 is outside in
  all seven (64.1-98.0 % against 50.7 %; nearest at 32 / row, where RMC2
  and RMC3 fall out instead). RMC2 at K = 2 comes in at batch 128 or
  with first-use ties, and each of those takes other rows out: RMC1's
  (K = 2, SLC, QLC; K = 0 at 128) at batch 128 and at 64 with first-use
  ties, and RMC3's K = 2 and the SLC rows of RMC2 and RMC3 at 32 with
  first-use ties.
- **RecFlash SLC/QLC averages.** Table III's TLC and QLC differ only in
  t_R (60 / 140 us: the same 16 KB page, 2 planes). A read is C/A + t_R +
  t_DO with t_R 99.5 % of it, so the flash-only cut (*flash cut*) of QLC
  equals TLC's within 0.1 point. The stage also carries the mapping
  lookups and the FTL core's SLS sums (W6), the same on both sides and
  about 1.5 % of RM-SSD's TLC stage, which puts QLC's cut 0.4-0.9 point
  above TLC's, as the paper's is, but the paper's QLC averages lie 4-5
  points above the midpoints of its TLC ranges (RMC1 66 against 61.4 %).
  Solving (1 + r) / (1 + r x 60 / 140) = QLC / TLC for a shared per-lookup
  cost r (a share of RM-SSD's per-lookup TLC read time) gives r = 9-14 %:
  0.3-0.4 us of controller work per lookup at the model's 2.9 us per
  RM-SSD lookup, which neither paper states and the model does not have,
  so QLC RMC3 (54.1 % against 75 %, every seed 53.1-54.7) inherits the K
  = 2 shortfall. The same r also gives the paper's SLC averages from its
  TLC ranges by t_R alone (25 us): cut = c0 / (1 + r x 60 / t_R) with c0
  = TLC x (1 + r) predicts 52.4 / 75.7 / 61.7 % against 54 / 77 / 62 %
  (r = 13.9 / 9.2 / 11.4 % for RMC1 / RMC2 / RMC3; 2026-12-02), so the
  paper's media results behave as a per-lookup cost diluting one flash
  cut, with no effect of SLC's 4 KB pages. In the model SLC's
  4 KB pages hold 32 rows, fewer lookups share one, and its Table I
  channel (2.58 us per 128 B) is a cost both sides pay, so SLC's cuts lie
  below TLC's as the paper's do (all three within 25 %); adding r as well
  would dilute them further, from ratios of 0.79 / 0.81 for SLC RMC2
  and RMC3, near the band's edge now (not implemented).
- **RecFlash page cache.** The 128 KiB SRAM holds 8 pages of 16 KiB; with
  64 x 80 lookups over hundreds of pages per command its hit rate is below
  0.4 % on every trace but RecSSD's, so the cut comes from reading each
  page once per command (W1) and from the placement (W4).
- **RecFlash Fig. 12.** One MLP rate for all models (M1): RMC1's 44 k MACs
  per sample are 0.28 ms per batch against its RM-SSD stage of 118-140 ms
  (0.2 %), so its end-to-end cut is its stage cut (85.3 % against 50.7 %).
  End to end adds nothing else of that size that the paper states: the
  pooled vectors back to the host are 8 x 32 fp32 per sample, 64 KiB per
  batch, about 9 us at A7's 7 GB/s, and the commands' data in is already
  in the commands' time (W6). The paper's own numbers fix the rest: with
  e2e = 1 - (E_RecFlash + X) / (E_RM-SSD + X), its stage and end-to-end
  cuts give X = (stage - e2e) / e2e x E_RM-SSD = 0.35 / 0.13 / 0.91 of
  RM-SSD's stage for RMC1 / RMC2 / RMC3, i.e. per sample about 224 / 493 /
  181 RM-SSD lookup reads of non-embedding time, while the MLPs are 44 k /
  125 k / 3.07 M MACs: RMC3's X is below RMC1's with 70 x its MACs, so no
  MAC rate and no per-sample constant gives all three: a constant fitted
  to RMC1 (95 ms per batch, 1.5 ms per sample, stated nowhere) would give
  RMC2 78 % but RMC3 20 % against 40.4 %.
  RMC3's MLPs are 31 % of RM-SSD's end-to-end time here (19.6 of 63.7 ms
  per batch), the paper's mechanism for its smaller RMC3 gain, and RMC2
  and RMC3 are within 25 %. RMC3's is the one RecFlash row a single seed
  can put on either side of the line (46.2-51.3 % against 40.4 %, ratios
  1.14-1.27; the 5-seed mean, 48.5 %, is inside): RMC3 has 1280 lookups
  per command, the fewest, and the widest spread over seeds (5-6 points at
  K = 0 and 2); 25 measured batches per seed narrow it to 2 points and
  move the mean by under 1 point (timing-model.md W4).

EOF
if [ -n "$sweep" ] && [ -s "$sweep" ]; then
	cat <<'EOF'

## What the unsourced inputs reach

Every REIS row rests on inputs no paper states as well as on the papers'
numbers. `bench_fidelity -S` moves each of them (the A- and C- numbers of
docs/timing-model.md, the wiki_full size and the QPS reading; their
published values and why, timing-model.md §6.0) over a documented range:
first alone, at both ends of its range with the others published, then a
Latin hypercube over all of them at once (seeded, so every run gives the
same points). Per row it gives the range of model values covered and the
inputs that move the row most. It is a map of what the inputs can and
cannot do, not a fit: the published rows keep the published values, which
come from sources and physical reasoning, never from the count. A row whose
range excludes the paper's value is out of reach of every input here; the
causes above give its arithmetic.

EOF
	cat "$sweep"
	echo
fi
# Extra sections (FIDELITY_EXTRA_DIR: one NAME.md per check whose rows are
# not the papers' measured ones, written by scripts/fidelity.d/NAME.sh: the
# FTL's datasheet rows, the RecFlash sensing bound; not in the count above).
if [ -n "${FIDELITY_EXTRA_DIR:-}" ] && [ -d "$FIDELITY_EXTRA_DIR" ]; then
	for x in "$FIDELITY_EXTRA_DIR"/*.md; do
		[ -s "$x" ] || continue
		cat "$x"
		echo
	done
fi
if [ -n "$rfsweep" ] && [ -s "$rfsweep" ]; then
	cat <<'EOF'
## RecFlash: the unsourced inputs

Each RecFlash input no paper states, moved alone from its published value
(TLC, seed 0, 3 measured batches; docs/timing-model.md W1-W4, A13, A23):
the Fig. 10 cuts at K = 0 and 2 and Fig. 11's energy cut per model, and how
many of those 9 rows are within 25 % on the strict metric. W1 "per distinct
row" is the 2026-12-02 reading (a repeated row of a command read once; the
published reading since 2026-12-05 reads it per lookup), W3 the batch (published
16), W4 the profile (published 400 batches), W2 the popularity's exponent
(published 1.20, fixed by IV-A's 8 % unique at K = 0, so moving it moves
the workload off the paper's stated range). W1 "host cache" is IV-A's other
reading of "the DRAM cache stores up to 2K vectors per table"
(`bench_rf_embedding --host-cache 2048`, timing-model.md W1): a static host
cache of each table's 2048 hottest rows by the profile prefix serves
lookups before any command is built, for all three systems alike; the cuts
are of the drive's stage, the host's DRAM time and energy not counted.

EOF
	cat "$rfsweep"
	echo
fi
if [ -n "$f14pol" ] && [ -s "$f14pol" ]; then
	cat <<'EOF'
## RecFlash Fig. 7 and 14: the trigger policies over 35 days

Per policy (Fig. 7(a-c) the threshold trigger at top 5 / 10 / 15 %, 7(d)
daily): days run, days RecFlash remapped (Fig. 7's triggers; the paper's
timelines give no counts in its text), the cumulative cut against RM-SSD at
20 M inferences a day and both systems' cumulative time (hours of
inference, the remaps included; timing-model.md W8).

| policy | days | remaps | cumulative cut (%) | RecFlash (h) | RM-SSD (h) |
|---|---:|---:|---:|---:|---:|
EOF
	awk -F, '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6 }' "$f14pol"
	echo
fi
if [ -n "$solsweep" ] && [ -s "$solsweep" ]; then
	cat <<'EOF'
## Solana: the unsourced inputs

The Solana rows rest on three inputs the paper does not state (S1 the
recommender's CSD batch: the smallest whose 0.2 s tick costs at most the 3 %
batch effect IV-B2 reports; S2 the tick's length, IV-A's 0.2 s; S3 the
recommender's batch ratio, IV-B1's 20 for "almost the same" ratio), each
at both ends of its range (`bench_solana -S`; the count of Solana rows it
moves by more than 1 %):

EOF
	cat "$solsweep"
	echo
fi
# The benchmarks' jobs (FIDELITY_PIECES: fidelity.sh's pieces.csv, job,
# start and end in s after the start, CPU s), in the order they started.
if [ -n "${FIDELITY_PIECES:-}" ] && [ -s "$FIDELITY_PIECES" ]; then
	cat <<EOF
## Where the wall time goes

The benchmarks run as a pool of single-threaded jobs, one per core, the
longest first (scripts/fidelity.sh); each job's start and end (s after the
first) and its CPU time (user + system) in the last run:

| job | start | end | wall s | CPU s |
|---|---:|---:|---:|---:|
EOF
	# A job with no CPU time (empty) shows "-" and is left out of the sum.
	sort -t, -k2,2n -k1,1 "$FIDELITY_PIECES" | awk -F, '{ if ($3 > e) e = $3
		printf "| %s | %d | %d | %d | %s |\n", $1, $2, $3, $3 - $2, $4 == "" ? "-" : sprintf("%.1f", $4)
		if ($4 == "") u++; else c += $4 }
		END { printf "| all | 0 | %d | %d | %.1f%s |\n", e, e, c, u ? sprintf(" (%d without)", u) : "" }'
	echo
fi
cat <<'EOF'
## Commands

    make fidelity                      # this page, the CSV and the plots
    build/examples/bench_fidelity      # the REIS and Eq. 1-2 rows alone
    build/examples/bench_solana        # the Solana rows (-S: its unsourced inputs)
    build/examples/bench_fidelity -S   # the REIS rows over the unsourced inputs (a few minutes; -L N points, -S1 alone)
    build/examples/bench_fidelity -r one   # Fig. 7, 9, 6.3.1 with one query at a time (-r overlap, -r floor)
    build/examples/bench_fidelity -w 41.5  # wiki_full at 41.5 M passages (-f 0.01: DF at 1 %, -F: A27's high end)
    build/examples/bench_fidelity -n 16    # the recall points' nprobe x 16 (A33; about 30 s)
    build/examples/bench_rf_embedding --rows 1000000 --tables 2 --batches 5 --media tlc
    build/examples/bench_rf_embedding --rows 1000000 --tables 2 --batches 5 --trace recssd
    build/examples/bench_rf_embedding --rows 1000000 --tables 2 --batches 5 --trace drift
    build/examples/bench_rf_embedding --rows 1000000 --tables 2 --batches 5 --batch 16  # W3
    build/examples/bench_rf_embedding --rows 1000000 --tables 2 --batches 5 --seed 1     # the second of the 2 seeds
    build/examples/bench_rf_embedding --rows 1000000 --tables 2 --batches 5 --ties first # W4 what-if
    build/examples/bench_rf_embedding --rows 1000000 --tables 2 --batches 5 --host-cache 2048  # W1's other reading
    build/examples/bench_rf_bound      # Fig. 11's sensing bound over popularity laws (--md: its section)
    FIDELITY_RF_SEEDS=1 make fidelity  # seed 0 alone, about half of the RecFlash time
    build/examples/bench_ftl --md      # the datasheet rows of ordinary I/O (-q: a smoke run)
EOF
