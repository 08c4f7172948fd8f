#!/bin/sh
# scripts/fidelity.sh - `make fidelity`: the model held against the papers.
#
# Runs bench_fidelity (REIS figures, RecFlash Eq. 1-2; analytic at paper
# scale; -S: the REIS rows over the unsourced assumptions) and
# bench_rf_embedding (RecFlash Fig. 10-12 on the persistent-popularity
# trace at 1 M rows, plus the former RecSSD-generator trace and RecSSD's
# 128-row lines as named workloads), then writes
#   docs/fidelity.csv   one row per number: figure, series, paper, model,
#                       metric, ratio, within_25pct, independent, settings
#                       (docs/fidelity.md "The metric")
#   docs/fidelity.md    the tables, the causes of rows outside 25 %, the
#                       commands and the wall time
#   docs/fidelity-*.svg gnuplot bars, paper beside model
# A benchmark, not a test: it prints numbers and fails only if a program
# does. The benchmarks are 26 single-threaded jobs (the 2 extra sections, 2
# RecFlash seeds over TLC/SLC/QLC, the REIS sweep, the 2 other traces, 13
# RecFlash sweep settings, 4 Fig. 14 policies, 2 Fig. 13 traces) run as
# a pool, one per core, the longest first; each job's start, end and CPU
# time land in $BUILD/fidelity/pieces.csv and docs/fidelity.md "Where the
# wall time goes". On 2026-12-05 they took 1750 s of CPU in all (the FTL
# check 245, a seed about 185, the REIS sweep 165, a sweep setting 45-66;
# the REIS sweep's search for the most rows, added that afternoon, costs
# about 270 s more),
# about 15 minutes on 2 quiet cores (1750 / 2 s); the batches of runs
# this replaced, each waiting for its longest, took 1392 s that morning.
# The host-cache sweep setting and the sensing bound came later that day
# (71 and 9 s of CPU at load 5-6: about 40 s more on 2 quiet cores).
#
# Environment: BUILD (default ./build), FIDELITY_ROWS (1000000, IV-A),
# FIDELITY_TABLES (2 tables of each model: reductions are averages over
# tables, and RMC2's 32 x 1 M rows would need 8 GiB per mode),
# FIDELITY_RF_BATCHES (5 measured batches per K and table),
# FIDELITY_RF_SEEDS (2: the RecFlash runs repeat on trace seeds 0..N-1; a
# row's model value is the mean, the doc shows every seed and the range),
# FIDELITY_SWEEP_POINTS (256: the REIS sweep's hypercube points),
# FIDELITY_JOBS (benchmarks run at once, default one per core),
# FIDELITY_OUT (default docs). The raw runs stay in $BUILD/fidelity/;
# `fidelity.sh --from DIR` re-renders the doc, CSV and plots from a
# previous run's raw files without running the benchmarks again.
# Extra sections: each scripts/fidelity.d/NAME.sh (run as `sh NAME.sh BUILD
# DIR`, one benchmark slot like the others) writes DIR/NAME.md, a section
# of the doc placed before its Commands, and optionally DIR/NAME.csv, rows
# in fidelity.csv's format copied to docs/fidelity-NAME.csv; they are not
# the papers' rows and do not enter the headline count.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
ROWS=${FIDELITY_ROWS:-1000000}
TABLES=${FIDELITY_TABLES:-2}
RF_BATCHES=${FIDELITY_RF_BATCHES:-5}
# count NAME VALUE MAX: VALUE is a count 1..MAX, else exit 2 naming NAME.
count() {
	case $2 in
	''|*[!0-9]*) echo "fidelity: $1 must be 1..$3" >&2; exit 2 ;;
	esac
	if [ "$2" -lt 1 ] || [ "$2" -gt "$3" ]; then
		echo "fidelity: $1 must be 1..$3" >&2
		exit 2
	fi
}
RF_SEEDS=${FIDELITY_RF_SEEDS:-2}
count FIDELITY_RF_SEEDS "$RF_SEEDS" 100
# The REIS sweep's Latin hypercube points (bench_fidelity -S -L).
SWEEP_POINTS=${FIDELITY_SWEEP_POINTS:-256}
count FIDELITY_SWEEP_POINTS "$SWEEP_POINTS" 1024
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
# The machine's load with the wall time (the numbers are modeled time; the
# wall time is not): 1-minute load averages at the start and the end.
load0=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')

if [ "${1:-}" = "--from" ] && [ -n "${2:-}" ]; then
	for f in reis rf wall; do
		cp "$2/$f.csv" "$tmp/$f.csv"
	done
	# The former generator's run (drift.csv in runs before the popular trace).
	cp "$2/recflash.csv" "$tmp/recflash.csv" 2>/dev/null ||
		cp "$2/drift.csv" "$tmp/recflash.csv" 2>/dev/null || : > "$tmp/recflash.csv"
	# Runs before the RecFlash trace existed have no recssd.csv.
	cp "$2/recssd.csv" "$tmp/recssd.csv" 2>/dev/null || : > "$tmp/recssd.csv"
	# Runs before the seed repeats have rf.csv alone: one seed.
	cp "$2"/rf-s*.csv "$tmp/" 2>/dev/null || cp "$tmp/rf.csv" "$tmp/rf-s0.csv"
	# Runs before the assumption sweep have no sweep.md.
	cp "$2/sweep.md" "$tmp/sweep.md" 2>/dev/null || : > "$tmp/sweep.md"
	# Runs before Fig. 13 / 14 have none.
	for f in f13-tb f13-kaggle f14 rfsweep; do
		cp "$2/$f.csv" "$tmp/$f.csv" 2>/dev/null || : > "$tmp/$f.csv"
	done
	# Runs before the Solana rows have no solana.csv.
	cp "$2/solana.csv" "$tmp/solana.csv" 2>/dev/null || : > "$tmp/solana.csv"
	cp "$2/solana-sweep.md" "$tmp/solana-sweep.md" 2>/dev/null || : > "$tmp/solana-sweep.md"
	# Runs before the job pool have no pieces.csv.
	cp "$2/pieces.csv" "$tmp/pieces.csv" 2>/dev/null || : > "$tmp/pieces.csv"
	# Runs before the extra-section hook have no extra/.
	mkdir -p "$tmp/extra"
	cp "$2"/extra/* "$tmp/extra/" 2>/dev/null || :
	secs=$(cat "$tmp/wall.csv")
	# How the run was made (runs before the note have none: the default).
	note=$(cat "$2/note.txt" 2>/dev/null || :)
	day=$(cat "$2/date.csv" 2>/dev/null || date -u +%Y-%m-%d)
else
	# RecFlash: $RF_BATCHES measured batches of 64 samples per K and table
	# (the bench's quick default is 3; more batches, less sampling noise).
	rf="$BUILD/examples/bench_rf_embedding --csv --rows $ROWS --tables $TABLES --no-online --batches $RF_BATCHES"
	echo "fidelity: REIS analytic and Eq. 1-2; Solana's server on the group model"
	"$BUILD/examples/bench_fidelity" > "$tmp/reis.csv"
	"$BUILD/examples/bench_solana" > "$tmp/solana.csv"
	"$BUILD/examples/bench_solana" -S > "$tmp/solana-sweep.md"
	# The runs are single-threaded and their numbers modeled time, so they
	# run $JOBS at a time (one per core) and give the same rows as one by
	# one. A pool: each job starts as soon as a slot is free, the longest
	# first (the list below is in order of their CPU time, measured
	# 2026-12-05, roughly), so the wall time is about the larger of the
	# longest job and the total over $JOBS. Each job writes its own file; the files are
	# joined in a fixed order after the pool. A job that fails fails the
	# whole. $tmp/pieces.csv: job, start and end (s after the start), CPU s.
	mkfifo "$tmp/slots"
	exec 3<>"$tmp/slots"
	i=0
	while [ "$i" -lt "$JOBS" ]; do
		echo >&3
		i=$((i + 1))
	done
	mkdir -p "$tmp/rc" "$tmp/job"
	: > "$tmp/pieces.csv"
	spawn() {	# spawn NAME COMMAND...: when a slot is free, in the background
		read -r _ <&3
		(
			j=$1
			shift
			b=$(date +%s)
			rc=0
			"$@" || rc=$?
			e=$(date +%s)
			# times: the shell's, then its children's user and system
			# (not in a $(...), whose subshell has no children yet)
			times > "$tmp/job/times-$j"
			cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, v, /[ms]/); c += v[1] * 60 + v[2] } } END { printf "%.1f", c }' "$tmp/job/times-$j")
			echo "$j,$((b - t0)),$((e - t0)),$cpu" >> "$tmp/pieces.csv"
			echo "$rc" > "$tmp/rc/$j"
			echo >&3
		) &
	}
	# Seed 0 is rf.csv, the per-K table's run; further seeds redraw every
	# trace, so the spread of a row over them is its sampling noise. No
	# run's RecFl+on or RecFl* (oracle) column enters a row.
	rf="$rf --no-oracle"
	rf_seed() {
		echo "fidelity: RecFlash, the popular trace, TLC/SLC/QLC ($ROWS rows, $TABLES tables, seed $1 of $RF_SEEDS)"
		$rf --media tlc,slc,qlc --seed "$1" > "$tmp/rf-s$1.csv"
	}
	# The sweep of the unsourced inputs.
	reis_sweep() {
		echo "fidelity: REIS rows over the unsourced inputs (bench_fidelity -S)"
		"$BUILD/examples/bench_fidelity" -S -L "$SWEEP_POINTS" > "$tmp/sweep.md"
	}
	# The two other named workloads: the former trace (RecSSD's generator
	# over single rows) and RecSSD's own 128-row lines.
	other_trace() {
		echo "fidelity: RecFlash, the $1 trace, TLC"
		$rf --media tlc --trace "$1" > "$tmp/$1.csv"
	}
	# Fig. 13: the traces shaped like Criteo Terabyte and Kaggle (W7, K = 0);
	# Fig. 14: 35 days of the Terabyte-shaped popularity renewing 1 % of its
	# ranks a day, RMC1, each trigger policy of Fig. 7 (W8).
	fig13() {	# fig13 FILE LABEL EXPONENT
		echo "fidelity: RecFlash Fig. 13, the Criteo $2-shaped trace"
		$rf --media tlc --k-list 0 --zipf "$3" > "$tmp/f13-$1.csv"
	}
	fig14() {
		echo "fidelity: RecFlash Fig. 14, 35 days, policy $1"
		"$BUILD/examples/bench_rf_embedding" --rows "$ROWS" --tables "$TABLES" --days 35 \
			--models rmc1 --zipf 1.56 --churn 0.01 --policy "$1" > "$tmp/job/f14-$1.csv"
	}
	# RecFlash's unsourced inputs one at a time (TLC, seed 0, 3 measured
	# batches): W1's baseline reading, W3's batch, W4's profile, W2's
	# exponent, A23's channel, A13's SLS cycles, IV-A's "2K vectors per
	# table" read as a host cache in front of all three systems (W1's other
	# reading); each run's TLC rows (Fig.
	# 10's K = 0 / 2 cuts, Fig. 11's energy) go to rfsweep.csv, in this
	# order, one job per setting.
	rf_settings="W1|per distinct row|--params rf_base_rows=1;W3|batch 4|--batch 4;W3|batch 64|--batch 64;W4|100 profile batches|--profile-batches 100;W4|1600 profile batches|--profile-batches 1600;W2|exponent 1.10|--zipf 1.10;W2|exponent 1.30|--zipf 1.30;A23|500 MB/s channel|--params channel_mbps=500;A23|1400 MB/s channel|--params channel_mbps=1400;A13|1 cycle per SLS element|--params cyc_sls_elem=1;A13|4 cycles per SLS element|--params cyc_sls_elem=4;W1|host cache of the 2K hottest rows per table|--host-cache 2048;-|published|"
	rf_setting() {	# rf_setting N ID|LABEL|ARGS
		id=${2%%|*} rest=${2#*|} label=${rest%%|*} args=${rest#*|}
		echo "fidelity: RecFlash's unsourced input $id, $label (TLC)"
		q="$rf_q --media tlc"
		# shellcheck disable=SC2086
		$q $args > "$tmp/job/rfsw-$1.csv" &&
			awk -F, -v id="$id" -v label="$label" 'NR > 1 { print id "|" label "|" $0 }' \
				"$tmp/job/rfsw-$1.csv" > "$tmp/job/rfsw-$1"
	}
	rf_q="$BUILD/examples/bench_rf_embedding --csv --rows $ROWS --tables $TABLES --no-online --no-oracle --batches 3"
	# Extra sections: scripts/fidelity.d/NAME.sh BUILD DIR writes DIR/NAME.md
	# (a doc section; its rows, if any, in DIR/NAME.csv, not counted with the
	# papers'), e.g. a datasheet check of the drive presets.
	mkdir -p "$tmp/extra"
	extra() {
		echo "fidelity: extra section $(basename "$1" .sh)"
		sh "$1" "$BUILD" "$tmp/extra"
	}
	# Longest first: the extra sections (the FTL's, 240 s of CPU), the seed
	# runs (TLC/SLC/QLC), the REIS sweep, then the single-trace runs.
	for x in "$top"/scripts/fidelity.d/*.sh; do
		[ -f "$x" ] || continue
		spawn "extra-$(basename "$x" .sh)" extra "$x"
	done
	s=0
	while [ "$s" -lt "$RF_SEEDS" ]; do
		spawn "rf-seed$s" rf_seed "$s"
		s=$((s + 1))
	done
	spawn reis-sweep reis_sweep
	spawn trace-recflash other_trace recflash
	spawn trace-recssd other_trace recssd
	n=0
	rest=$rf_settings
	while [ -n "$rest" ]; do
		v=${rest%%;*}
		case $rest in *\;*) rest=${rest#*;} ;; *) rest= ;; esac
		spawn "rf-sweep$n" rf_setting "$n" "$v"
		n=$((n + 1))
	done
	for pol in daily thr5 thr10 thr15; do
		spawn "f14-$pol" fig14 "$pol"
	done
	spawn f13-tb fig13 tb Terabyte 1.56
	spawn f13-kaggle fig13 kaggle Kaggle 1.00
	wait
	exec 3>&-
	for f in "$tmp"/rc/*; do
		[ "$(cat "$f")" = 0 ] || { echo "fidelity: a benchmark failed ($(basename "$f"))" >&2; exit 1; }
	done
	: > "$tmp/rfsweep.csv"
	i=0
	while [ "$i" -lt "$n" ]; do
		cat "$tmp/job/rfsw-$i" >> "$tmp/rfsweep.csv"
		i=$((i + 1))
	done
	for pol in daily thr5 thr10 thr15; do
		cat "$tmp/job/f14-$pol.csv"
	done > "$tmp/f14.csv"
	cp "$tmp/rf-s0.csv" "$tmp/rf.csv"
	secs=$(($(date +%s) - t0))
	echo "$secs" > "$tmp/wall.csv"
	note="$JOBS benchmarks at once, load average $load0 at the start and $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?') at the end"
	echo "$note" > "$tmp/note.txt"
	day=$(date -u +%Y-%m-%d)
	echo "$day" > "$tmp/date.csv"
	mkdir -p "$raw"
	rm -f "$raw"/rf-s*.csv
	cp "$tmp/reis.csv" "$tmp/solana.csv" "$tmp/solana-sweep.md" "$tmp/rf.csv" "$tmp/recssd.csv" \
		"$tmp/recflash.csv" "$tmp/f13-tb.csv" "$tmp/f13-kaggle.csv" "$tmp/f14.csv" \
		"$tmp/rfsweep.csv" "$tmp/wall.csv" "$tmp/note.txt" \
		"$tmp/date.csv" "$tmp/sweep.md" "$tmp"/rf-s*.csv "$tmp/pieces.csv" "$raw/"
	rm -rf "$raw/extra"
	cp -r "$tmp/extra" "$raw/extra"
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
# The strict metric of a cut (docs/fidelity.md "The metric"): the speedup
# 1 / (1 - cut), model over paper.
function mr(p, v) { return v < 100 ? (100 - p) / (100 - v) : 0 }
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
	set[key] = sprintf("recflash-%s, %s, %d of %d tables x %d rows, batch %d, %d profile batches, %d measured, %s trace, RM-SSD per lookup (W1)", $2, $3, $31, $32, $4, $33, $5, nb, $1)
}
END {
	flush()
	for (o = 1; o <= no; o++) {
		sr = ord[o]; mu = 0; lo = hi = V[sr, 1]; agree = 1; vs = ""
		for (j = 1; j <= ns; j++) {
			v = V[sr, j]; mu += v / ns
			if (v < lo) lo = v
			if (v > hi) hi = v
			if (within(mr(P[sr], v)) != within(mr(P[sr], V[sr, 1])))
				agree = 0
			vs = vs sprintf("%s%.1f", j > 1 ? " / " : "", v)
		}
		r = mr(P[sr], mu)
		printf "\"%s\",\"%s\",%.6g,%.6g,cut-speedup,%.4f,%s,yes,\"%s, mean of %d seeds (%.1f-%.1f)\"\n",
			F[sr], sr, P[sr], mu, r, within(r) ? "yes" : "no", S[sr], ns, lo, hi
		printf "| %s | %s | %.6g | %s | %.2f | %.1f | %.4f | %s | %s |\n", F[sr], sr, P[sr], vs,
			mu, hi - lo, r, within(r) ? "yes" : "no", agree ? "yes" : "**no**" > seeds
	}
}' "$tmp"/rf-s*.csv > "$tmp/rfrows.csv"
# Fig. 13: end-to-end cut vs RM-SSD at K = 0 per model on each Criteo-shaped
# trace (the stage of all the model's tables + the MLPs at M1, as Fig. 12);
# Fig. 14: the cumulative cut over 35 days at 20 M inferences a day, the
# best policy ("up to"), each policy's in f14pol.csv for the doc.
awk -F, -v gmacs="$MLP_GMACS" -v pol="$tmp/f14pol.csv" '
function within(r) { return r >= 0.75 && r <= 1.25 }
function mr(p, v) { return v < 100 ? (100 - p) / (100 - v) : 0 }
function emit(fig, series, p, v, set) {
	printf "\"%s\",\"%s\",%.6g,%.6g,cut-speedup,%.4f,%s,yes,\"%s\"\n", fig, series, p, v,
		mr(p, v), within(mr(p, v)) ? "yes" : "no", set
}
BEGIN {
	split("70.0 80.1 61.5", tb, " "); split("66.3 76.3 58.3", kg, " ")
	M["rmc1"] = 1; M["rmc2"] = 2; M["rmc3"] = 3
}
{ file = FILENAME == ARGV[1] ? 1 : FILENAME == ARGV[2] ? 2 : 3 }
FNR == 1 { next }
file <= 2 && $2 == "tlc" {
	scale = $32 / $31; mlp = $33 * $34 / (gmacs * 1e6)
	e2e = 100 * (1 - ($10 * scale + mlp) / ($9 * scale + mlp))
	i = M[$3]
	emit("RecFlash Fig. 13", sprintf("end-to-end cut vs RM-SSD, Criteo %s-shaped (%%), %s",
		file == 1 ? "Terabyte" : "Kaggle", toupper($3)), file == 1 ? tb[i] : kg[i], e2e,
		sprintf("recflash-tlc, %s, %d of %d tables x %d rows, batch %d, popular trace at K = 0, Zipf %s (W7), MLPs at %s GMAC/s (M1)",
		$3, $31, $32, $4, $33, file == 1 ? "1.56" : "1.00", gmacs))
}
file == 3 && $1 == "days" && $2 != "policy" {
	scale = $12 / $11; mlp = $7 * $14 / (gmacs * 1e6)
	per_rf = ($9 * scale + mlp) / $7; per_rm = ($8 * scale + mlp) / $7	# ms per inference
	rf[$2] += 20e6 * per_rf + $10 * scale; rm[$2] += 20e6 * per_rm; trig[$2] += $6
	if (!($2 in seen)) { seen[$2] = 1; order[++np] = $2 }
	days[$2]++
}
END {
	best = -1
	for (j = 1; j <= np; j++) {
		q = order[j]; cut = 100 * (1 - rf[q] / rm[q])
		printf "%s,%d,%d,%.2f,%.4g,%.4g\n", q, days[q], trig[q], cut, rf[q] / 3.6e6, rm[q] / 3.6e6 > pol
		if (cut > best) { best = cut; bq = q }
	}
	if (np)
		emit("RecFlash Fig. 14", "cumulative inference time cut over 35 days at 20 M a day, best policy (%)",
			76.7, best, sprintf("recflash-tlc, rmc1, Criteo Terabyte-shaped popularity renewing 1 %% of its ranks a day (W8), 2 measured batches a day per table, Algorithm 1 by the trigger policy (best: %s), MLPs at %s GMAC/s (M1)", bq, gmacs))
}' "$tmp/f13-tb.csv" "$tmp/f13-kaggle.csv" "$tmp/f14.csv" >> "$tmp/rfrows.csv"
# RecFlash's one-at-a-time sweep (rfsweep.csv: id|label|bench CSV line):
# per setting the Fig. 10 K = 0 / 2 cuts and Fig. 11's energy per model on
# the strict metric, and how many of the 9 are within 25 %.
awk -F'|' '
function mr(p, v) { return v < 100 ? (100 - p) / (100 - v) : 0 }
function within(r) { return r >= 0.75 && r <= 1.25 }
BEGIN {
	split("68.4 91.4 77", k0, " "); split("54.4 78 64.2", k2, " "); split("69.5 91.9 77.7", en, " ")
	M["rmc1"] = 1; M["rmc2"] = 2; M["rmc3"] = 3
}
{
	key = $1 "|" $2
	if (!(key in seen)) { seen[key] = 1; ord[++n] = key }
	split($3, c, ",")
	i = M[c[3]]
	if (c[6] == "0.0") v0[key, i] = c[13]
	if (c[6] == "2.0") v2[key, i] = c[13]
	if (!((key, i) in ev) || c[20] > ev[key, i]) ev[key, i] = c[20]
}
END {
	if (!n) exit
	print "| input | value | RMC1 K=0 / K=2 / energy | RMC2 | RMC3 | rows within 25 % (of 9) |"
	print "|---|---|---|---|---|---:|"
	for (j = 1; j <= n; j++) {
		key = ord[j]; split(key, kl, "|"); w = 0; cell = ""
		for (i = 1; i <= 3; i++) {
			w += within(mr(k0[i], v0[key, i])) + within(mr(k2[i], v2[key, i])) + within(mr(en[i], ev[key, i]))
			cell = cell sprintf(" %.1f / %.1f / %.1f |", v0[key, i], v2[key, i], ev[key, i])
		}
		printf "| %s | %s |%s %d |\n", kl[1], kl[2], cell, w
	}
}' "$tmp/rfsweep.csv" > "$tmp/rfsweep.md"
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
	tail -n +2 "$tmp/solana.csv"
} > "$OUT/fidelity.csv"
# An extra section's rows go to their own CSV (not the papers' count).
for x in "$tmp"/extra/*.csv; do
	[ -f "$x" ] && cp "$x" "$OUT/fidelity-$(basename "$x")"
done

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

FIDELITY_RUN_NOTE=$note FIDELITY_EXTRA_DIR=$tmp/extra FIDELITY_PIECES=$tmp/pieces.csv "$top/scripts/fidelity-doc.sh" "$OUT/fidelity.csv" "$tmp/recflash.csv" "$tmp/rf.csv" \
	"$secs" "$ROWS" "$TABLES" "$MLP_GMACS" "$day" "$tmp/recssd.csv" "$RF_BATCHES" \
	"$tmp/rfseeds.csv" "$tmp/rfk.csv" "$tmp/sweep.md" "$tmp/solana-sweep.md" "$tmp/rfsweep.md" \
	"$tmp/f14pol.csv" > "$OUT/fidelity.md"
awk -F'"' -v secs="$secs" -v out="$OUT/fidelity.md" 'NR > 1 { split($5, v, ","); if (v[7] != "yes") next
	n++; if (v[6] == "yes") y++ }
	END { printf "fidelity: %d of %d independent rows within 25 %% on the strict metric (benchmarks %d s); %s\n", y, n, secs, out }' \
	"$OUT/fidelity.csv"
