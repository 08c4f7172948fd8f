#!/bin/sh
# test_solana_rows.sh - bench_solana, the Solana rows of `make fidelity`:
#   1. every published number of Table I has a row for each of the three
#      applications, in fidelity.csv's format (9 fields before the
#      settings), and each row's ratio and verdict follow from its paper
#      and model columns by its metric;
#   2. the modeled server obeys the arithmetic of its inputs: 36 drives
#      and the host together reach more than the host alone and less than
#      the sum of the single-node rates (speech: 102 + 36 x 5.3 = 292.8
#      words/s), the shares add up to 100 %, the energies are IV-C's power
#      over the rates;
#   3. the rows built from the paper's own cells are marked dependent, the
#      throughput and speedup rows independent;
#   4. -S moves each unsourced input: a table row per end of S1-S3;
#   5. bad options exit 2.
# Root-free, no VM, a second. Exit 0 pass, 1 fail, 77 skip.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
bench=$BUILD/examples/bench_solana
[ -x "$bench" ] || { echo "SKIP: $bench not built (make examples)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$bench" > "$tmp/s.csv" || fail "bench_solana exited $?"
head -1 "$tmp/s.csv" | grep -qx 'figure,series,paper,model,metric,ratio,within_25pct,independent,settings' ||
	fail "header"
# field FIGURE SERIES-PREFIX N: field N (1-based, after the quoted figure
# and series) of the first matching row.
val() {
	awk -F'"' -v f="$1" -v s="$2" -v n="$3" '$2 == f && index($4, s) == 1 { split($5, v, ","); print v[n]; exit }' "$tmp/s.csv"
}

# 1. Table I: speedup, energies, saving and both shares per application.
for app in "speech to text" "recommender" "sentiment analysis"; do
	for s in "max speedup" "energy per" "energy saving" "data processed on host" "data processed in CSDs"; do
		n=$(awk -F'"' -v s="$app, $s" '$2 == "Solana Table I" && index($4, s) == 1' "$tmp/s.csv" | wc -l)
		[ "$n" -ge 1 ] || fail "no Table I row '$app, $s'"
	done
done
# Ratio and verdict by the metric (factor / value / share: model / paper;
# cut-speedup: (100 - paper) / (100 - model); bound: model / paper, within
# when at most 1.25).
awk -F'"' 'NR > 1 { split($5, v, ","); if (v[3] == "") next
	p = v[2]; m = v[3]; r = v[5]
	want = v[4] == "cut-speedup" ? (100 - p) / (100 - m) : m / p
	if (want - r > 1e-3 || r - want > 1e-3) { print "ratio " $4; bad++ }
	in25 = v[4] == "bound" ? r <= 1.25 : r >= 0.75 && r <= 1.25
	if ((in25 ? "yes" : "no") != v[6]) { print "verdict " $4; bad++ } }
	END { exit bad > 0 }' "$tmp/s.csv" > "$tmp/bad" || fail "rows whose ratio or verdict is off: $(cat "$tmp/bad")"

# 2. The server's arithmetic.
t36=$(val "Solana Fig. 5(a)" "speech to text, 36 CSDs" 3)
t1=$(val "Solana Fig. 5(a)" "speech to text, host alone" 3)
awk -v a="$t36" -v b="$t1" 'BEGIN { exit !(a > b && a < 102 + 36 * 5.3 && b <= 102) }' ||
	fail "speech: 36 CSDs $t36, host alone $t1 words/s, want host < both < 292.8"
for app in "speech to text" "recommender" "sentiment analysis"; do
	h=$(val "Solana Table I" "$app, data processed on host" 3)
	c=$(val "Solana Table I" "$app, data processed in CSDs" 3)
	awk -v h="$h" -v c="$c" 'BEGIN { d = h + c - 100; exit !(d < 1e-3 && d > -1e-3 && h > 0 && c > 0) }' ||
		fail "$app: shares $h + $c, want 100"
done
eh=$(val "Solana Table I" "speech to text, energy per word, host" 3)
awk -v e="$eh" -v t="$t1" 'BEGIN { d = e - 482000 / t; exit !(d < 0.01 * e && d > -0.01 * e) }' ||
	fail "speech host energy $eh mJ, want 482 W / $t1 words/s"

# 3. Independence.
[ "$(val "Solana Fig. 5(a)" "speech to text, 36 CSDs" 7)" = yes ] || fail "Fig. 5(a) throughput not independent"
[ "$(val "Solana Table I" "recommender, max speedup" 7)" = yes ] || fail "Table I speedup not independent"
[ "$(val "Solana Table I" "sentiment analysis, energy per query, host" 7)" = no ] ||
	fail "an energy row (IV-C's power over a rate row) counted independent"
[ "$(val "Solana IV-C" "power per ISP engine" 7)" = no ] || fail "IV-C arithmetic counted independent"

# 4. -S: S1-S3 at both ends.
"$bench" -S > "$tmp/s.md" || fail "bench_solana -S exited $?"
for id in S1 S2 S3; do
	[ "$(grep -c "^| $id |" "$tmp/s.md")" -eq 2 ] || fail "-S: want two rows of $id"
done
# The tick moves rows at each end (a CSD batch of 6 clips is 1.1 s of work).
awk -F' [|] ' '$1 == "| S2" && $5 + 0 < 1 { bad = 1 } END { exit bad }' "$tmp/s.md" ||
	fail "-S: the tick moves no row"
# -S leaves the plain run as it was.
"$bench" > "$tmp/s2.csv"
cmp -s "$tmp/s.csv" "$tmp/s2.csv" || fail "the plain run changed"

# 5. Bad options.
for bad in "-x" "-S -S" "S"; do
	# shellcheck disable=SC2086
	"$bench" $bad > /dev/null 2>&1
	[ $? -eq 2 ] || fail "bench_solana $bad: want exit 2"
done

[ "$fails" -eq 0 ] && echo "PASS: test_solana_rows" || exit 1
