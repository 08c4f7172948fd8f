#!/bin/sh
# scripts/fidelity.sh - `make fidelity`: the model held against the papers.
#
# Runs bench_fidelity (REIS figures, RecFlash Eq. 1-2; analytic at paper
# scale; -S: the REIS rows over the unsourced assumptions) and
# bench_rf_embedding (RecFlash Fig. 10-12 on the RecSSD-style trace at 1 M
# rows, plus the drifting stress trace), then writes
#   docs/fidelity.csv   one row per number: figure, series, paper, model,
#                       ratio, within_25pct, settings
#   docs/fidelity.md    the tables, the causes of rows outside 25 %, the
#                       commands and the wall time
#   docs/fidelity-*.svg gnuplot bars, paper beside model
# A benchmark, not a test: it prints numbers and fails only if a program
# does. About 15 minutes on 2 cores (923 s of benchmarks on 2026-12-02, one
# run per core; 1611 s one after another, partly sharing the machine).
#
# Environment: BUILD (default ./build), FIDELITY_ROWS (1000000, IV-A),
# FIDELITY_TABLES (2 tables of each model: reductions are averages over
# tables, and RMC2's 32 x 1 M rows would need 8 GiB per mode),
# FIDELITY_RF_BATCHES (5 measured batches per K and table),
# FIDELITY_RF_SEEDS (5: the RecFlash runs repeat on trace seeds 0..N-1; a
# row's model value is the mean, the doc shows every seed and the range),
# FIDELITY_JOBS (benchmarks run at once, default one per core),
# FIDELITY_OUT (default docs). The raw runs stay in $BUILD/fidelity/;
# `fidelity.sh --from DIR` re-renders the doc, CSV and plots from a
# previous run's raw files without running the benchmarks again.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
ROWS=${FIDELITY_ROWS:-1000000}
TABLES=${FIDELITY_TABLES:-2}
RF_BATCHES=${FIDELITY_RF_BATCHES:-5}
RF_SEEDS=${FIDELITY_RF_SEEDS:-5}
case $RF_SEEDS in
''|*[!0-9]*) echo "fidelity: FIDELITY_RF_SEEDS must be 1..100" >&2; exit 2 ;;
esac
if [ "$RF_SEEDS" -lt 1 ] || [ "$RF_SEEDS" -gt 100 ]; then
	echo "fidelity: FIDELITY_RF_SEEDS must be 1..100" >&2
	exit 2
fi
OUT=${FIDELITY_OUT:-$top/docs}
# Benchmarks at once: one per core (FIDELITY_JOBS overrides).
JOBS=${FIDELITY_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $JOBS in
''|*[!0-9]*|0) echo "fidelity: FIDELITY_JOBS must be a count of 1 or more" >&2; exit 2 ;;
esac
# RecFlash Fig. 12's MLPs: M1 of docs/timing-model.md, multiply-accumulates
# per second of the host that runs them.
MLP_GMACS=10
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
raw=$BUILD/fidelity
t0=$(date +%s)

if [ "${1:-}" = "--from" ] && [ -n "${2:-}" ]; then
	for f in reis rf drift wall; do
		cp "$2/$f.csv" "$tmp/$f.csv"
	done
	# Runs before the RecFlash trace existed have no recssd.csv.
	cp "$2/recssd.csv" "$tmp/recssd.csv" 2>/dev/null || : > "$tmp/recssd.csv"
	# Runs before the seed repeats have rf.csv alone: one seed.
	cp "$2"/rf-s*.csv "$tmp/" 2>/dev/null || cp "$tmp/rf.csv" "$tmp/rf-s0.csv"
	# Runs before the assumption sweep have no sweep.md.
	cp "$2/sweep.md" "$tmp/sweep.md" 2>/dev/null || : > "$tmp/sweep.md"
	# Runs before the FTL have no datasheet rows.
	cp "$2/ftl.md" "$tmp/ftl.md" 2>/dev/null || : > "$tmp/ftl.md"
	cp "$2/ftl.csv" "$tmp/ftl.csv" 2>/dev/null || : > "$tmp/ftl.csv"
	secs=$(cat "$tmp/wall.csv")
	day=$(cat "$2/date.csv" 2>/dev/null || date -u +%Y-%m-%d)
else
	# RecFlash: $RF_BATCHES measured batches of 64 samples per K and table
	# (the bench's quick default is 3; more batches, less sampling noise).
	rf="$BUILD/examples/bench_rf_embedding --csv --rows $ROWS --tables $TABLES --no-online --batches $RF_BATCHES"
	echo "fidelity: REIS analytic and Eq. 1-2"
	"$BUILD/examples/bench_fidelity" > "$tmp/reis.csv"
	# The runs are single-threaded and their numbers modeled time, so they
	# run $JOBS at a time (one per core) and give the same rows as one by
	# one. A batch of $JOBS runs ends before the next starts; a run that
	# fails fails the whole.
	pids=
	reap() {
		for p in $pids; do
			wait "$p" || { echo "fidelity: a benchmark failed" >&2; exit 1; }
		done
		pids=
		n=0
	}
	n=0
	spawn() {	# spawn FUNCTION ARGS...: in the background, $JOBS at once
		"$@" &
		pids="$pids $!"
		n=$((n + 1))
		[ "$n" -lt "$JOBS" ] || reap
	}
	# Seed 0 is rf.csv, the per-K table's run; further seeds redraw every
	# trace, so the spread of a row over them is its sampling noise.
	rf_seed() {
		echo "fidelity: RecFlash, the paper's trace, TLC/SLC/QLC ($ROWS rows, $TABLES tables, seed $1 of $RF_SEEDS)"
		$rf --media tlc,slc,qlc --seed "$1" > "$tmp/rf-s$1.csv"
	}
	# The assumption sweep, RecSSD's 128-row lines and the drifting stress
	# trace together take about one seed's time.
	rest() {
		echo "fidelity: REIS rows over the unsourced assumptions (bench_fidelity -S)"
		"$BUILD/examples/bench_fidelity" -S > "$tmp/sweep.md"
		echo "fidelity: RecFlash, RecSSD's 128-row-line trace and the drifting stress trace, TLC"
		$rf --media tlc --trace recssd > "$tmp/recssd.csv"
		$rf --media tlc --trace drift > "$tmp/drift.csv"
	}
	s=0
	while [ "$s" -lt "$RF_SEEDS" ]; do
		spawn rf_seed "$s"
		s=$((s + 1))
	done
	spawn rest
	# The FTL against the products' datasheets (bench_ftl, docs/ftl.md):
	# its own section of the page and its own CSV, not paper rows.
	ftl_rows() {
		echo "fidelity: ordinary I/O through the FTL against the datasheets (bench_ftl)"
		"$BUILD/examples/bench_ftl" --md --csv-file "$tmp/ftl.csv" > "$tmp/ftl.md"
	}
	spawn ftl_rows
	reap
	cp "$tmp/rf-s0.csv" "$tmp/rf.csv"
	secs=$(($(date +%s) - t0))
	echo "$secs" > "$tmp/wall.csv"
	day=$(date -u +%Y-%m-%d)
	echo "$day" > "$tmp/date.csv"
	mkdir -p "$raw"
	rm -f "$raw"/rf-s*.csv
	cp "$tmp/reis.csv" "$tmp/rf.csv" "$tmp/recssd.csv" "$tmp/drift.csv" "$tmp/wall.csv" \
		"$tmp/date.csv" "$tmp/sweep.md" "$tmp"/rf-s*.csv "$tmp/ftl.md" "$tmp/ftl.csv" "$raw/"
fi

# RecFlash rows, one per number over the seeds' runs (rf-s0.csv ...):
# the CSV row is the mean, rfseeds.csv has every seed's value for the doc.
# Paper numbers: RecFlash IV-B (Fig. 10: TLC cut vs RM-SSD from K = 0 to
# K = 2; SLC/QLC averages; Fig. 11 energy "up to"; Fig. 12 end-to-end "up
# to").
awk -F, -v gmacs="$MLP_GMACS" -v nb="$RF_BATCHES" -v seeds="$tmp/rfseeds.csv" '
function val(fig, series, paper, v, set) {
	if (!(series in P)) {
		ord[++no] = series; P[series] = paper; F[series] = fig; S[series] = set
	}
	V[series, ns] = v
}
# One seed run done: its rows.
function flush(   i, t, s, q, M) {
	for (i = 1; i <= 3; i++) {
		t = "tlc" SUBSEP m[i]; s = "slc" SUBSEP m[i]; q = "qlc" SUBSEP m[i]
		M = toupper(m[i])
		val("RecFlash Fig. 10", "TLC latency cut vs RM-SSD (%), " M ", K = 0", k0[i], red[t, "0.0"], set[t])
		val("RecFlash Fig. 10", "TLC latency cut vs RM-SSD (%), " M ", K = 2", k2[i], red[t, "2.0"], set[t])
		val("RecFlash Fig. 11", "TLC read energy cut, max over K (%), " M, en[i], emax[t], set[t])
		val("RecFlash IV-B", "SLC latency cut, average over K (%), " M, slc[i], sum[s] / n[s], set[s])
		val("RecFlash IV-B", "QLC latency cut, average over K (%), " M, qlc[i], sum[q] / n[q], set[q])
		val("RecFlash Fig. 12", "TLC end-to-end cut, max over K (%), " M, f12[i], e2emax[t], set[t] ", MLPs at " gmacs " GMAC/s (M1)")
	}
}
function within(r) { return r >= 0.75 && r <= 1.25 }
BEGIN {
	split("rmc1 rmc2 rmc3", m, " ")
	split("68.4 91.4 77", k0, " "); split("54.4 78 64.2", k2, " ")
	split("69.5 91.9 77.7", en, " "); split("54 77 62", slc, " ")
	split("66 89 75", qlc, " "); split("50.7 81 40.4", f12, " ")
}
FNR == 1 {
	if (ns)
		flush()
	ns++
	split("", red); split("", sum); split("", n); split("", emax); split("", e2emax)
	next
}
{
	key = $2 SUBSEP $3
	red[key, $6] = $13
	sum[key] += $13; n[key]++
	if (!(key in emax) || $20 > emax[key]) emax[key] = $20
	# Fig. 12: the stage of all the model tables plus the MLPs of a batch.
	scale = $32 / $31
	mlp = $33 * $34 / (gmacs * 1e6)		# ms per batch
	e2e = 100 * (1 - ($10 * scale + mlp) / ($9 * scale + mlp))
	if (!(key in e2emax) || e2e > e2emax[key]) e2emax[key] = e2e
	set[key] = sprintf("recflash-%s, %s, %d of %d tables x %d rows, batch %d, %d profile batches, %d measured, RecFlash trace, RM-SSD per vector", $2, $3, $31, $32, $4, $33, $5, nb)
}
END {
	flush()
	for (o = 1; o <= no; o++) {
		sr = ord[o]; mu = 0; lo = hi = V[sr, 1]; agree = 1; vs = ""
		for (j = 1; j <= ns; j++) {
			v = V[sr, j]; mu += v / ns
			if (v < lo) lo = v
			if (v > hi) hi = v
			if (within(v / P[sr]) != within(V[sr, 1] / P[sr]))
				agree = 0
			vs = vs sprintf("%s%.1f", j > 1 ? " / " : "", v)
		}
		r = mu / P[sr]
		printf "\"%s\",\"%s\",%.6g,%.6g,%.4f,%s,\"%s, mean of %d seeds (%.1f-%.1f)\"\n",
			F[sr], sr, P[sr], mu, r, within(r) ? "yes" : "no", S[sr], ns, lo, hi
		printf "| %s | %s | %.6g | %s | %.2f | %.1f | %.4f | %s | %s |\n", F[sr], sr, P[sr], vs,
			mu, hi - lo, r, within(r) ? "yes" : "no", agree ? "yes" : "**no**" > seeds
	}
}' "$tmp"/rf-s*.csv > "$tmp/rfrows.csv"
# The per-K table's seed spread: TLC cut per model and K over the seeds.
awk -F, 'FNR > 1 && $2 == "tlc" {
	k = $3 "," $6; v = $13
	if (!(k in lo) || v < lo[k]) lo[k] = v
	if (!(k in hi) || v > hi[k]) hi[k] = v
	s[k] += v; n[k]++
}
END { for (k in s) printf "%s,%.4f,%.4f,%.4f\n", k, s[k] / n[k], lo[k], hi[k] }' \
	"$tmp"/rf-s*.csv > "$tmp/rfk.csv"

{
	cat "$tmp/reis.csv"
	cat "$tmp/rfrows.csv"
} > "$OUT/fidelity.csv"

# Plot data: one file per figure group, short label / paper / model.
plotdat() {
	awk -F'"' -v pat="$1" 'NR > 1 && $2 ~ pat {
		split($5, v, ","); lab = $4
		gsub(/TLC latency cut vs RM-SSD \(%\)/, "TLC", lab)
		gsub(/TLC read energy cut, max over K \(%\)/, "TLC energy", lab)
		gsub(/latency cut, average over K \(%\)/, "avg", lab)
		gsub(/TLC end-to-end cut, max over K \(%\)/, "e2e", lab)
		gsub(/DF over No-OPT/, "DF", lab)
		gsub(/MPIBC over DF\+PL, average \(%\)/, "MPIBC %", lab)
		gsub(/REIS-ASIC slowdown/, "ASIC", lab)
		gsub(/SSD2 over SSD1/, "SSD2/SSD1", lab)
		gsub(/REIS over /, "vs ", lab)
		gsub(/REIS retrieval share \(%\)/, "T4 share %", lab)
		gsub(/REIS search latency \(ms\)/, "T4 ms", lab)
		gsub(/NQ column \(wiki_en\)/, "wiki_en", lab)
		gsub(/end-to-end gain over CPU\+BQ \(x\)/, "T4 e2e", lab)
		gsub(/reis-ssd/, "SSD", lab)
		gsub(/average/, "avg", lab)
		gsub(/ \(x\)|,/, "", lab)
		gsub(/ /, "~", lab)
		printf "%s %s %s\n", lab, v[2], v[3]
	}' "$OUT/fidelity.csv" > "$tmp/$2.dat"
}
plotdat "REIS" reis
plotdat "RecFlash Fig. 1[01]|RecFlash IV-B" rf
plotdat "RecFlash Fig. 12" f12
if command -v gnuplot >/dev/null 2>&1; then
	for f in reis rf f12; do
		case $f in
		reis) title="REIS: paper vs model (log scale; x = speedup or slowdown, % = gain)"; log="set logscale y" ;;
		rf) title="RecFlash Fig. 10/11 and SLC/QLC averages: cut vs RM-SSD (%)"; log="set yrange [0:100]" ;;
		f12) title="RecFlash Fig. 12: end-to-end cut vs RM-SSD (%)"; log="set yrange [0:100]" ;;
		esac
		gnuplot <<EOF
set terminal svg size 1200,640 font "sans,10"
set output "$OUT/fidelity-$f.svg"
set title "$title"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -45 left noenhanced
set key top left
set grid ytics
set bmargin 8
$log
plot "$tmp/$f.dat" using 2:xtic(stringcolumn(1)) title "paper", "" using 3 title "model"
EOF
		sed -i 's/~/ /g' "$OUT/fidelity-$f.svg"
	done
else
	echo "fidelity: gnuplot missing (scripts/setup-deps.sh installs it); no plots"
fi

"$top/scripts/fidelity-doc.sh" "$OUT/fidelity.csv" "$tmp/drift.csv" "$tmp/rf.csv" \
	"$secs" "$ROWS" "$TABLES" "$MLP_GMACS" "$day" "$tmp/recssd.csv" "$RF_BATCHES" \
	"$tmp/rfseeds.csv" "$tmp/rfk.csv" "$tmp/sweep.md" "$tmp/ftl.md" > "$OUT/fidelity.md"
[ ! -s "$tmp/ftl.csv" ] || cp "$tmp/ftl.csv" "$OUT/fidelity-ftl.csv"
awk -F'"' -v secs="$secs" -v out="$OUT/fidelity.md" 'NR > 1 { n++; split($5, v, ","); if (v[5] == "yes") y++ }
	END { printf "fidelity: %d of %d rows within 25 %% (benchmarks %d s); %s\n", y, n, secs, out }' \
	"$OUT/fidelity.csv"
