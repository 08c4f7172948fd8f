#!/bin/sh
# test_fidelity_sweep.sh - bench_fidelity's sweep of the unsourced inputs
# (-S -L 4: the one-at-a-time part and a tiny hypercube) and its options:
#   1. the sweep's published count equals a plain run's (independent REIS
#      rows within 25 %), and a one-at-a-time line gives the count a plain
#      run with the same setting gives (-f, -F, -p, -r, -w), its +/- list
#      naming exactly the rows whose verdict differs from the published run:
#      the sweep's settings neither leak from one evaluation into the next
#      nor differ from the published code path;
#   2. its per-row table has every REIS row with the plain run's paper and
#      model values;
#   3. a 4-point hypercube accounts for its 4 points, and the search for
#      the most rows (-C 1: one pass over the listed inputs) finds at least
#      the hypercube's most and lists as many rows as it counts;
#   4. -r changes Fig. 7, 9 and 6.3.1 only (Table 4 and Eq. 1-2 stay);
#   5. the ICE comparison rows, the energy rows and the rows with no model
#      value;
#   6. bad options are refused with exit 2.
# Root-free, no VM, about 45 s. Exit 0 pass, 1 fail, 77 skip.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
bench=$BUILD/examples/bench_fidelity
[ -x "$bench" ] || { echo "SKIP: $bench not built (make examples)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# One run of the whole sweep with a 4-point hypercube (its one-at-a-time
# part is -S1's) keeps the test's CPU time down on a shared machine.
"$bench" -S -L 4 -C 1 -I A27,A32,A31,6.2,A15 > "$tmp/sweep.md" || fail "-S -L 4 exited $?"
# rows NAME ARGS...: the REIS rows' "series,verdict,independent" of a plain run.
rows() {
	name=$1
	shift
	"$bench" "$@" > "$tmp/$name.csv" || fail "bench_fidelity $* exited $?"
	awk -F'"' '$2 ~ /^REIS/ { split($5, v, ","); print $2 " " $4 "," v[6] "," v[7] }' \
		"$tmp/$name.csv" > "$tmp/$name.v"
}
within() { grep -c ',yes,yes$' "$tmp/$1.v"; }
# line ID VALUE: the one-at-a-time line of input ID at VALUE.
line() {
	awk -F' [|] ' -v id="$1" -v val="$2" 'index($1, "| " id " ") == 1 && $2 == val' "$tmp/sweep.md"
}

rows pub
n=$(within pub)
ni=$(grep -c ',yes$' "$tmp/pub.v")
grep -q "^Published setting: $n of $ni independent REIS rows within 25 %\.$" "$tmp/sweep.md" ||
	fail "published count: want $n of $ni, got: $(grep '^Published' "$tmp/sweep.md")"
check() {	# check ID VALUE NAME ARGS...
	id=$1 val=$2 name=$3
	shift 3
	rows "$name" "$@"
	l=$(line "$id" "$val")
	[ -n "$l" ] || { fail "no sweep line for $id at $val"; return; }
	got=$(printf '%s\n' "$l" | awk -F' [|] ' '{ print $3 }')
	want=$(within "$name")
	[ "$got" = "$want" ] || fail "sweep '$id $val': $got rows, bench_fidelity $* gives $want"
	# +: in here and out at the published setting; -: the other way.
	ins=$(paste -d'|' "$tmp/pub.v" "$tmp/$name.v" | awk -F'|' '$1 ~ /,no,yes$/ && $2 ~ /,yes,yes$/' | wc -l)
	outs=$(paste -d'|' "$tmp/pub.v" "$tmp/$name.v" | awk -F'|' '$1 ~ /,yes,yes$/ && $2 ~ /,no,yes$/' | wc -l)
	ch=$(printf '%s\n' "$l" | awk -F' [|] ' '{ print $4 }')
	gin=$(printf '%s\n' "$ch" | tr ';' '\n' | grep -c '^ *+')
	gout=$(printf '%s\n' "$ch" | tr ';' '\n' | grep -c '^ *-')
	[ "$gin" -eq "$ins" ] && [ "$gout" -eq "$outs" ] ||
		fail "sweep '$id $val' lists +$gin -$gout, the runs differ by +$ins -$outs"
}
# One value of each kind of input: a fixed pass rate and the pass rate's
# other end, a preset override, the wiki_full size, the rules.
check A27 0 f1 -f 0.01
check A27 1 a27hi -F
check A32 90.0 tlc90 -p "t_read_tlc=90us"
check A31 41.5 w41 -w 41.5
check 6.2 2 one -r one
check 6.2 1 overlap -r overlap
# A15's low end is the REIS presets' read energies x 0.05 (29.56 / 69.06 uJ).
check A15 0.05 a15lo -p "e_read_slc=1.478uj;e_read_tlc=3.453uj"
# A33, the recall points' nprobe: listed with its range, held out of the
# hypercube, and -n moves the IVF rows (not Table 4, Eq. 1-2 or brute force)
# and says so in their settings. Its sweep ends are the knob's code path the
# lines above check for the others; x16 itself costs ~30 s a run, so the
# test runs a cheaper scale (x0.5: nprobe 8-128).
grep -q '^| A33 | nprobe of the recall points (x 16..256) | 1 | 1-16.0 (log) | ' "$tmp/sweep.md" ||
	fail "the sweep does not list A33 with its range"
grep -q '^A Latin hypercube of 4 points over 18 inputs at once (A33 held published' "$tmp/sweep.md" ||
	fail "the hypercube does not hold A33 out"
rows np05 -n 0.5
grep -q '^"REIS Fig. 9",.*nprobe (16-256) x 0.5 (A33)' "$tmp/np05.csv" ||
	fail "-n 0.5: Fig. 9's settings do not name A33's scale"
model() {	# model FILE: figure, series and model value of the Fig. 9 / 6.3.1 rows
	awk -F'"' '$2 ~ /^REIS (Fig. 9|6.3.1)$/ { split($5, v, ","); print $2 "|" $4 "|" v[3] }' "$1"
}
[ -n "$(model "$tmp/pub.csv")" ] && [ "$(model "$tmp/pub.csv")" != "$(model "$tmp/np05.csv")" ] ||
	fail "-n 0.5 moved no Fig. 9 / 6.3.1 value"
grep '^"\(REIS Table 4\|RecFlash Eq\|REIS Fig. 10","REIS over ICE, brute\)' "$tmp/pub.csv" > "$tmp/fix.pub"
grep '^"\(REIS Table 4\|RecFlash Eq\|REIS Fig. 10","REIS over ICE, brute\)' "$tmp/np05.csv" > "$tmp/fix.np05"
cmp -s "$tmp/fix.pub" "$tmp/fix.np05" || fail "-n 0.5 moved Table 4, Eq. 1-2 or brute force"

# 2. the per-row table: each REIS row with the plain run's numbers.
nr=$(grep -c '' "$tmp/pub.v")
got=$(awk -F' [|] ' '$2 == "yes" || $2 == "no"' "$tmp/sweep.md" | wc -l)
[ "$got" -eq "$nr" ] || fail "per-row table: $got rows, the run has $nr"
awk -F'"' '$2 ~ /^REIS Fig. 7/ { split($5, v, ","); print v[2] }' "$tmp/pub.csv" | head -n 1 > "$tmp/p1"
grep -q "^| Fig. 7 SSD2 / SSD1 avg | yes | $(cat "$tmp/p1") | " "$tmp/sweep.md" ||
	fail "per-row table lacks Fig. 7's paper value $(cat "$tmp/p1")"

# 3. the tiny hypercube.
cp "$tmp/sweep.md" "$tmp/lhs.md"
pts=$(awk -F' [|] ' '/^\| rows within 25 % \| points/ { on = 1; next } on && /^\| [0-9]/ { s += $2 } /^$/ { on = 0 }
	END { print s + 0 }' "$tmp/lhs.md")
[ "$pts" -eq 4 ] || fail "hypercube accounts for $pts points, want 4"
grep -q '^The most at one point: ' "$tmp/lhs.md" || fail "no hypercube maximum"
hbest=$(awk '/^The most at one point: / { print $6 + 0 }' "$tmp/lhs.md")
sline=$(grep 'the most any setting found: ' "$tmp/lhs.md")
sbest=$(printf '%s\n' "$sline" | sed -n 's/.*the most any setting found: \([0-9]*\) of .*/\1/p')
slisted=$(printf '%s\n' "$sline" | sed 's/.*The rows within 25 % there://' | tr ';' '\n' | grep -c '[A-Za-z]')
[ -n "$sbest" ] && [ "$sbest" -ge "${hbest:-99}" ] ||
	fail "the search found '${sbest:-nothing}', below the hypercube's $hbest"
[ "${slisted:-0}" -eq "${sbest:-0}" ] || fail "the search counts ${sbest:-0} rows and lists $slisted"
printf '%s\n' "$sline" | grep -q '(coordinate ascent from that point, each input over 7 levels of its range in turn, 1 passes at most, 36 evaluations)' ||
	fail "the search over 5 inputs at 7 levels, 1 pass, should make 36 evaluations: $sline"

# 4. -r moves the stream-timed rows only (Fig. 7-10, 6.1, 6.3.1, 6.4, the ICE rows): Table 4 and Eq. 1-2 are one query's
# latency, the same under every rule.
for r in one overlap; do
	grep -v '^"REIS \(Fig\|6\.1"\|6.3.1\|6.4\|abstract\|intro\)' "$tmp/pub.csv" > "$tmp/keep.pub"
	grep -v '^"REIS \(Fig\|6\.1"\|6.3.1\|6.4\|abstract\|intro\)' "$tmp/$r.csv" > "$tmp/keep.$r"
	cmp -s "$tmp/keep.pub" "$tmp/keep.$r" || fail "-r $r changed Table 4 or Eq. 1-2"
	cmp -s "$tmp/pub.csv" "$tmp/$r.csv" && fail "-r $r changed nothing"
	grep -q "^\"REIS Fig. 7\",.*,\"[^\"]*$( [ $r = one ] && echo 'one query at a time' ||
		echo "16 queries overlapping on the planes")" "$tmp/$r.csv" || fail "-r $r: the settings do not say the rule"
done

# 5. the ICE rows (timing-model.md 6.1): sensing-bound brute force reads
# 4 x REIS's bytes for ICE-ESP and 32 x for ICE, so on wiki_full-sized
# scans the ratios sit just above 4 and far above 10; the rows the model
# cannot give have no model value, a reason, and count as independent
# rows outside.
f=$(awk -F'"' '$4 ~ /^REIS over ICE-ESP, brute force, geomean \(x\), reis-ssd1/ { split($5, v, ","); print v[3] }' "$tmp/pub.csv")
awk -v f="$f" 'BEGIN { exit !(f >= 3.9 && f <= 4.2) }' || fail "ICE-ESP brute force $f, want about 4"
f=$(awk -F'"' '$4 ~ /^REIS over ICE, brute force, lowest/ { split($5, v, ","); print v[3] }' "$tmp/pub.csv")
awk -v f="$f" 'BEGIN { exit !(f > 10 && f <= 32.5) }' || fail "ICE brute force lowest $f, want 10-32"
grep -q '^"REIS Fig. 11","REIS over NDSearch, average (x)",1.7,,factor,,no,yes,"not modeled: ' "$tmp/pub.csv" ||
	fail "no unmodeled NDSearch row"
# Fig. 8's QPS/W and 6.1's power are modeled (A34, C11): values, no
# "not modeled"; the energy-efficiency gain of SSD2 stays below its
# speed-up (the same reads cost about the same energy on both drives).
n=$(awk -F'"' '$2 ~ /^REIS (Fig. 8|6.1)$/ { split($5, v, ","); if (v[3] + 0 > 0) n++ } END { print n + 0 }' "$tmp/pub.csv")
[ "$n" -eq 5 ] || fail "want 5 modeled Fig. 8 / 6.1 rows, got $n"
grep -q '^"REIS \(Fig. 8\|6.1\)",.*"not modeled: ' "$tmp/pub.csv" && fail "an unmodeled Fig. 8 / 6.1 row"
sp=$(awk -F'"' '$4 == "SSD2 over SSD1, average (x)" { split($5, v, ","); print v[3] }' "$tmp/pub.csv")
ee=$(awk -F'"' '$4 == "energy efficiency, SSD2 over SSD1, average (x)" { split($5, v, ","); print v[3] }' "$tmp/pub.csv")
awk -v a="$ee" -v b="$sp" 'BEGIN { exit !(a > 0 && a < b) }' ||
	fail "SSD2 over SSD1: energy efficiency $ee, want below the speed-up $sp"

# 6. bad options.
for bad in "-r bad" "-r" "-S -f 0.1" "-S -F" "-S1 -r one" "-S -p core_mhz=750" "-S -v" "-x" \
	"-w 0" "-w x" "-S -w 41.5" "-n 0" "-n x" "-S -n 2" "-S -L 0" "-S -L 2000" "-I A27" \
	"-C 1" "-S -C 6" "-S -C x" "-S -C 1x"; do
	# shellcheck disable=SC2086
	"$bench" $bad > /dev/null 2>&1
	[ $? -eq 2 ] || fail "bench_fidelity $bad: want exit 2"
done

[ "$fails" -eq 0 ] || exit 1
echo "PASS"
