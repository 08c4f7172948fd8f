#!/bin/sh
# test_rf_fidelity.sh - the RecFlash seed repeats of `make fidelity`:
#   1. bench_rf_embedding --seed: no --seed is seed 0, a seed reproduces
#      its run, another seed redraws the traces; --ties first changes the
#      RecFlash placement only (the baselines' columns stay); bad values
#      are refused; --host-cache (IV-A's 2K-vector cache read as a host
#      cache: its hit share, RM-SSD's time falls); --k-list, --zipf and
#      --days (Fig. 13 / 14's runs);
#   2. scripts/fidelity.sh --from on two hand-written seed runs: each
#      RecFlash row of fidelity.csv is the mean of the seeds, the doc's
#      seed table lists every seed, the spread and whether every seed lands
#      on the same side of the 25 % line (values below computed by hand);
#      the assumption sweep's section appears when the run has sweep.md.
# Root-free, no VM, a few seconds. Exit 0 pass, 1 fail, 77 skip.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
bench=$BUILD/examples/bench_rf_embedding
[ -x "$bench" ] || { echo "SKIP: $bench not built (make examples)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# --- 1. the bench's seed and tie options --------------------------------------
small="--csv --rows 16384 --tables 1 --batches 1 --profile-batches 8 --models rmc1 --no-online"
run() {	# run NAME ARGS...: the CSV without the host-CPU column (30)
	name=$1
	shift
	# shellcheck disable=SC2086
	"$bench" $small "$@" > "$tmp/$name.raw" || { fail "bench $* exited $?"; return; }
	cut -d, -f1-29,31- "$tmp/$name.raw" > "$tmp/$name.csv"
}
run dflt
run s0 --seed 0
run s1 --seed 1
run s1b --seed 1
run tf --ties first
[ "$(wc -l < "$tmp/dflt.csv")" -eq 6 ] || fail "want a header and 5 K lines"
cmp -s "$tmp/dflt.csv" "$tmp/s0.csv" || fail "no --seed differs from --seed 0"
cmp -s "$tmp/s1.csv" "$tmp/s1b.csv" || fail "--seed 1 does not reproduce"
cmp -s "$tmp/s0.csv" "$tmp/s1.csv" && fail "--seed 1 gives seed 0's run"
# The traces are the same, so RecSSD and RM-SSD (columns 8, 9) match.
cut -d, -f8,9 "$tmp/dflt.csv" > "$tmp/base0"
cut -d, -f8,9 "$tmp/tf.csv" > "$tmp/base1"
cmp -s "$tmp/base0" "$tmp/base1" || fail "--ties first changed the baselines"
cut -d, -f10 "$tmp/dflt.csv" > "$tmp/rf0"
cut -d, -f10 "$tmp/tf.csv" > "$tmp/rf1"
cmp -s "$tmp/rf0" "$tmp/rf1" && fail "--ties first left the RecFlash placement as it was"
for bad in "--seed 4001" "--seed x" "--ties rows"; do
	# shellcheck disable=SC2086
	"$bench" $small $bad > /dev/null 2>&1
	[ $? -eq 2 ] || fail "bench $bad: want exit 2"
done

# --- 1a. --host-cache: IV-A's 2K-vector cache in front of all three ----------
# The cache serves the profile's hottest rows before the drive: a share of
# the lookups goes to stderr per K, RM-SSD's time (column 9) falls at K = 0
# (its hot-row reads go), a larger cache serves more; bad values are
# refused.
"$bench" $small --host-cache 64 > "$tmp/hc.raw" 2> "$tmp/hc.err" || fail "--host-cache 64 exited $?"
n=$(grep -c 'the host cache of 64 rows per table served' "$tmp/hc.err")
[ "$n" -eq 5 ] || fail "--host-cache: want 5 hit-share lines on stderr, got $n"
awk -F, 'NR == FNR { if ($6 == "0.0") base = $9; next } $6 == "0.0" { exit !($9 < base) }' \
	"$tmp/dflt.raw" "$tmp/hc.raw" || fail "--host-cache 64 did not lower RM-SSD's K = 0 time"
share=$(sed -n 's/.*K 0.0: .* served \([0-9.]*\) %.*/\1/p' "$tmp/hc.err")
awk -v s="$share" 'BEGIN { exit !(s > 20 && s < 100) }' || fail "--host-cache 64 served $share % at K = 0"
"$bench" $small --host-cache 16384 > "$tmp/hca.raw" 2> "$tmp/hca.err" || fail "--host-cache 16384 exited $?"
# A cache as large as the table holds every row the profile saw (not the
# others): more than 64 rows serve, less than everything.
all=$(sed -n 's/.*K 0.0: .* served \([0-9.]*\) %.*/\1/p' "$tmp/hca.err")
awk -v s="$share" -v a="$all" 'BEGIN { exit !(a > s && a < 100) }' ||
	fail "--host-cache 16384 served $all % at K = 0 (64 rows: $share %)"
for bad in "--host-cache 0" "--host-cache x" "--host-cache 64 --days 2"; do
	# shellcheck disable=SC2086
	"$bench" $small $bad > /dev/null 2>&1
	[ $? -eq 2 ] || fail "bench $bad: want exit 2"
done

# --- 1b. Fig. 13's K list and exponent, Fig. 14's days ------------------------
# --k-list 0 runs K = 0 alone, the same line as the full run's K = 0; a
# steeper Zipf law (a Terabyte-shaped trace, W7) concentrates the lookups,
# so RecFlash's time drops against the published exponent's.
run k0 --k-list 0
[ "$(wc -l < "$tmp/k0.csv")" -eq 2 ] || fail "--k-list 0: want a header and one K line"
[ "$(sed -n 2p "$tmp/dflt.csv")" = "$(sed -n 2p "$tmp/k0.csv")" ] || fail "--k-list 0 differs from the full run's K = 0"
run z156 --k-list 0 --zipf 1.56
awk -F, -v a="$(sed -n 2p "$tmp/k0.csv" | cut -d, -f10)" 'NR == 2 { exit !($10 < a) }' "$tmp/z156.csv" ||
	fail "--zipf 1.56 did not shorten RecFlash's stage"
# Days (W8): one line per day and a header; daily triggers every day; the
# RecFlash stage is below RM-SSD's; two runs give the same lines.
days="--rows 16384 --tables 1 --days 3 --models rmc1 --profile-batches 8 --zipf 1.56 --churn 0.05"
# shellcheck disable=SC2086
"$bench" $days --policy daily > "$tmp/d1" || fail "--days exited $?"
# shellcheck disable=SC2086
"$bench" $days --policy daily > "$tmp/d2"
cmp -s "$tmp/d1" "$tmp/d2" || fail "--days does not reproduce"
[ "$(grep -c '^days,daily,tlc,rmc1,' "$tmp/d1")" -eq 3 ] || fail "--days 3: want 3 day lines"
awk -F, '$2 == "daily" && !($6 == 1 && $9 < $8 && $10 > 0) { bad = 1 } END { exit bad }' "$tmp/d1" ||
	fail "daily: a day without its remap, or RecFlash not below RM-SSD"
# shellcheck disable=SC2086
"$bench" $days --policy thr15 > "$tmp/d3" || fail "--policy thr15 exited $?"
[ "$(grep -c '^days,thr15,' "$tmp/d3")" -eq 3 ] || fail "thr15: want 3 day lines"
for bad in "--k-list 0,17" "--k-list x" "--zipf 0" "--zipf 5" "--days 0" "--churn 2" "--policy weekly"; do
	# shellcheck disable=SC2086
	"$bench" $small $bad > /dev/null 2>&1
	[ $? -eq 2 ] || fail "bench $bad: want exit 2"
done

# --- 2. fidelity.sh --from on two seeds ---------------------------------------
from=$tmp/from out=$tmp/out
mkdir -p "$from" "$out"
# One REIS row is enough for the CSV and the doc.
printf 'figure,series,paper,model,metric,ratio,within_25pct,independent,settings\n' > "$from/reis.csv"
printf '"REIS Fig. 9","x",1,1,factor,1.0000,yes,yes,"s"\n' >> "$from/reis.csv"
: > "$from/drift.csv"
echo 1 > "$from/wall.csv"
echo 2026-12-01 > "$from/date.csv"
# 37 columns as bench_rf_embedding --csv prints them: $13 the cut, $9 / $10
# RM-SSD / RecFlash ms, $20 the energy cut, $31-$34 tables, model tables,
# batch, MLP MACs (0: Fig. 12 = the stage, 1 - 4 / 10 = 60 %).
seedrun() {	# seedrun FILE CUT
	head -n 1 "$tmp/dflt.raw" > "$1"
	for media in tlc slc qlc; do
		for model in rmc1 rmc2 rmc3; do
			for k in 0.0 0.3 0.8 1.0 2.0; do
				printf 'recflash,%s,%s,1000000,400,%s,0.5,10,10,4,0,1,%s,0,0,1,1,0,0,50,0,0,0,0,0,0,0,0,0,0.1,2,8,64,0,0.5,0.3,%s\n' \
					"$media" "$model" "$k" "$2" "$2"
			done
		done
	done >> "$1"
}
seedrun "$from/rf-s0.csv" 60
seedrun "$from/rf-s1.csv" 70
cp "$from/rf-s0.csv" "$from/rf.csv"
BUILD=$tmp/build FIDELITY_OUT=$out sh "$TOP/scripts/fidelity.sh" --from "$from" > "$tmp/fid.log" 2>&1 ||
	{ fail "fidelity.sh --from exited $?"; cat "$tmp/fid.log"; }
csv=$out/fidelity.csv doc=$out/fidelity.md
# The cuts compare as speedups 1 / (1 - cut) (docs/fidelity.md "The
# metric"). RMC1 K = 2: paper 54.4, seeds 60 and 70: mean 65, ratio
# 45.6 / 35 = 1.3029 (outside); 60 alone gives 45.6 / 40 = 1.14 (within),
# 70 alone 45.6 / 30 = 1.52: the seeds disagree.
grep -q '^"RecFlash Fig. 10","TLC latency cut vs RM-SSD (%), RMC1, K = 2",54.4,65,cut-speedup,1.3029,no,yes,".*mean of 2 seeds (60.0-70.0)"$' "$csv" ||
	fail "RMC1 K = 2 row: $(grep 'RMC1, K = 2' "$csv")"
grep -q '| TLC latency cut vs RM-SSD (%), RMC1, K = 2 | 54.4 | 60.0 / 70.0 | 65.00 | 10.0 | 1.3029 | no | \*\*no\*\* |' "$doc" ||
	fail "RMC1 K = 2 seed line: $(grep 'RMC1, K = 2 |' "$doc")"
# RMC2 K = 0: paper 91.4 (11.6x): the mean 65 (2.9x) gives 8.6 / 35 =
# 0.2457, outside, where model / paper as printed (0.711) is near the line.
grep -q '^"RecFlash Fig. 10","TLC latency cut vs RM-SSD (%), RMC2, K = 0",91.4,65,cut-speedup,0.2457,no,yes,' "$csv" ||
	fail "RMC2 K = 0 row: $(grep 'RMC2, K = 0' "$csv")"
# Energy: 50 on both seeds against 69.5: 30.5 / 50 = 0.61, no spread, seeds agree.
grep -q '| TLC read energy cut, max over K (%), RMC1 | 69.5 | 50.0 / 50.0 | 50.00 | 0.0 | 0.6100 | no | yes |' "$doc" ||
	fail "energy seed line: $(grep 'energy cut, max over K (%), RMC1 |' "$doc")"
# Fig. 12 with no MLP time is the stage: 1 - 4 / 10 = 60 % on both seeds:
# 49.3 / 40 = 1.2325.
grep -q '^"RecFlash Fig. 12","TLC end-to-end cut, max over K (%), RMC1",50.7,60,cut-speedup,1.2325,yes,yes,' "$csv" ||
	fail "Fig. 12 row: $(grep 'Fig. 12.*RMC1' "$csv")"
# The headline counts independent rows on the strict metric: the REIS row
# and the 18 RecFlash rows; of these the REIS row and the two Fig. 12
# rows within 25 % ... computed from the CSV itself.
want=$(awk -F'"' 'NR > 1 { split($5, v, ","); if (v[7] == "yes") { n++; if (v[6] == "yes") y++ } }
	END { print y " of " n }' "$csv")
grep -q "^\*\*$want independent rows" "$doc" || fail "headline: want $want, got: $(grep '^\*\*' "$doc")"
grep -q 'repeat on 2 trace seeds' "$doc" || fail "the doc does not name 2 seeds"
# The per-K table: seed 0's cut, then the mean and range over the seeds.
grep -q '^| recflash | RMC1 | 2.0 | 50.0 | 10.000 | 4.000 | 60.0 | 65.0 (60.0-70.0) |' "$doc" ||
	fail "per-K line: $(grep '^| recflash | RMC1 | 2.0' "$doc")"

# The assumption sweep's section: absent for a run without sweep.md (runs
# before it), the sweep's markdown verbatim when the run has it.
grep -q '^## What the unsourced inputs reach' "$doc" &&
	fail "a run without sweep.md got a sweep section"
printf 'Published setting (test): 3 of 22 REIS rows within 25 %%.\n' > "$from/sweep.md"
BUILD=$tmp/build FIDELITY_OUT=$out sh "$TOP/scripts/fidelity.sh" --from "$from" > "$tmp/fid.log" 2>&1 ||
	{ fail "fidelity.sh --from with sweep.md exited $?"; cat "$tmp/fid.log"; }
grep -q '^## What the unsourced inputs reach' "$doc" || fail "no sweep section"
grep -q '^Published setting (test): 3 of 22 REIS rows within 25 %\.$' "$doc" ||
	fail "the sweep's text is not in the doc"
grep -q '^## Commands' "$doc" || fail "the doc lost its Commands section"

# The extra-section hook (scripts/fidelity.d): a run's extra/NAME.md is a
# section of the doc, extra/NAME.csv goes to fidelity-NAME.csv, and its rows
# do not enter the papers' count.
head1=$(grep '^\*\*' "$doc")
mkdir -p "$from/extra"
printf '## Datasheet (test)\n\nA section of its own.\n' > "$from/extra/ds.md"
printf 'figure,series,paper,model,metric,ratio,within_25pct,independent,settings\n"Datasheet","r",1,1,value,1.0000,yes,yes,"s"\n' > "$from/extra/ds.csv"
BUILD=$tmp/build FIDELITY_OUT=$out sh "$TOP/scripts/fidelity.sh" --from "$from" > "$tmp/fid.log" 2>&1 ||
	{ fail "fidelity.sh --from with extra/ exited $?"; cat "$tmp/fid.log"; }
grep -q '^## Datasheet (test)$' "$doc" || fail "no extra section"
[ "$(grep -n '^## Datasheet (test)$' "$doc" | cut -d: -f1)" -lt "$(grep -n '^## Commands' "$doc" | cut -d: -f1)" ] ||
	fail "the extra section is not before Commands"
cmp -s "$from/extra/ds.csv" "$out/fidelity-ds.csv" || fail "extra CSV not copied"
[ "$(grep '^\*\*' "$doc")" = "$head1" ] || fail "the extra rows changed the headline"
grep -q '"Datasheet"' "$csv" && fail "extra rows in fidelity.csv"

# A seed count of 0 or garbage is refused before anything runs.
for v in 0 x 101; do
	FIDELITY_RF_SEEDS=$v BUILD=$tmp/build FIDELITY_OUT=$out sh "$TOP/scripts/fidelity.sh" \
		> /dev/null 2>&1
	[ $? -eq 2 ] || fail "FIDELITY_RF_SEEDS=$v: want exit 2"
done

[ "$fails" -eq 0 ] || exit 1
echo "PASS"
