#!/bin/sh
# test_fidelity_sweep.sh - bench_fidelity's assumption sweep (-S1, the
# one-at-a-time part of -S) and its rule option:
#   1. each line of the sweep gives the count of REIS rows within 25 % that
#      a plain run with the same setting gives (-f, -F, -p, -r), so the
#      sweep's settings neither leak from one evaluation into the next nor
#      differ from the published code path, and its +/- lists name exactly
#      the rows whose verdict differs from the published run;
#   2. -r changes Fig. 7, 9 and 6.3.1 only (Table 4 and Eq. 1-2 stay);
#   3. bad options are refused with exit 2.
# Root-free, no VM, about 15 s. Exit 0 pass, 1 fail, 77 skip.
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

"$bench" -S1 > "$tmp/sweep.md" || fail "-S1 exited $?"
# rows NAME ARGS...: the REIS rows' "series,verdict" of a plain run.
rows() {
	name=$1
	shift
	"$bench" "$@" > "$tmp/$name.csv" || fail "bench_fidelity $* exited $?"
	awk -F'"' '$2 ~ /^REIS/ { split($5, v, ","); print $2 " " $4 "," v[6] }' \
		"$tmp/$name.csv" > "$tmp/$name.v"
}
within() { grep -c ',yes$' "$tmp/$1.v"; }
# sweep_count LABEL: the count on the sweep's line whose value is LABEL.
sweep_count() {
	awk -F' [|] ' -v l="$1" '$2 == l { print $3 }' "$tmp/sweep.md"
}

rows pub
n=$(within pub)
nr=$(wc -l < "$tmp/pub.v")
grep -q "^Published setting .*: $n of $nr REIS rows within 25 %\.$" "$tmp/sweep.md" ||
	fail "published count: want $n of $nr, got: $(head -n 1 "$tmp/sweep.md")"
check() {	# check LABEL NAME ARGS...
	label=$1 name=$2
	shift 2
	rows "$name" "$@"
	want=$(within "$name") got=$(sweep_count "$label")
	[ "$got" = "$want" ] || fail "sweep '$label': $got rows, bench_fidelity $* gives $want"
	# The rows the sweep says came in are those in here and out at the published setting.
	ins=$(paste -d'|' "$tmp/pub.v" "$tmp/$name.v" | awk -F'|' '$1 ~ /,no$/ && $2 ~ /,yes$/' | wc -l)
	outs=$(paste -d'|' "$tmp/pub.v" "$tmp/$name.v" | awk -F'|' '$1 ~ /,yes$/ && $2 ~ /,no$/' | wc -l)
	line=$(awk -F' [|] ' -v l="$label" '$2 == l { print $4 }' "$tmp/sweep.md")
	gin=$(printf '%s\n' "$line" | tr ';' '\n' | grep -c '^ *+')
	gout=$(printf '%s\n' "$line" | tr ';' '\n' | grep -c '^ *-')
	[ "$gin" -eq "$ins" ] && [ "$gout" -eq "$outs" ] ||
		fail "sweep '$label' lists +$gin -$gout, the runs differ by +$ins -$outs"
}
# One value of each kind of setting (a fixed pass rate, the pass rate's
# other end, a preset override, the rules): each goes through its own path.
check "1 %" f1 -f 0.01
check "A27 p(f) high end" a27hi -F
check "90 us" tlc90 -p "t_read_tlc=90us"
check "one query at a time" one -r one
check "16 queries overlapping on the planes" overlap -r overlap

# -r moves Fig. 7, 9 and 6.3.1 only: Table 4 and Eq. 1-2 are one query's
# latency, the same under every rule.
for r in one overlap; do
	grep -v '^"REIS Fig\|^"REIS 6.3.1' "$tmp/pub.csv" > "$tmp/keep.pub"
	grep -v '^"REIS Fig\|^"REIS 6.3.1' "$tmp/$r.csv" > "$tmp/keep.$r"
	cmp -s "$tmp/keep.pub" "$tmp/keep.$r" || fail "-r $r changed Table 4 or Eq. 1-2"
	cmp -s "$tmp/pub.csv" "$tmp/$r.csv" && fail "-r $r changed nothing"
	grep -q "^\"REIS Fig. 7\",.*,\"[^\"]*$( [ $r = one ] && echo 'one query at a time' ||
		echo "16 queries overlapping on the planes")" "$tmp/$r.csv" || fail "-r $r: the settings do not say the rule"
done

for bad in "-r bad" "-r" "-S -f 0.1" "-S -F" "-S1 -r one" "-S -p core_mhz=750" "-S -v" "-x" \
	"-w 0" "-w x" "-S -w 41.5"; do
	# shellcheck disable=SC2086
	"$bench" $bad > /dev/null 2>&1
	[ $? -eq 2 ] || fail "bench_fidelity $bad: want exit 2"
done

[ "$fails" -eq 0 ] || exit 1
echo "PASS"
