#!/bin/sh
# test_fidelity_pool.sh - `make fidelity`'s job pool (scripts/fidelity.sh):
# with stand-in benchmarks that print their arguments and sleep,
#   1. every job runs once, with its arguments (the fidelity runs skip the
#      RecFl* oracle: --no-oracle), and the joined files keep their fixed
#      order (rfsweep.csv by setting, f14.csv by policy), whatever order
#      the jobs end in;
#   2. at most FIDELITY_JOBS run at once, and the pool does not wait for a
#      batch: with 2 slots, a long job beside short ones, the short ones
#      run one after another in the other slot;
#   3. pieces.csv has one line per job (name, start, end, CPU s), and the
#      doc's "Where the wall time goes" a row per job;
#   4. a failing job fails the whole (exit 1, naming it).
# Exit 0 pass, 1 fail.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

mkdir -p "$tmp/build/examples" "$tmp/out" "$tmp/log"
# A stand-in: logs its start and end (with the running count) and its
# arguments, sleeps, prints a CSV the scripts can read.
cat > "$tmp/stub" <<'EOF'
#!/bin/sh
log=${STUB_LOG:?}
name=$(basename "$0")
echo "$name $*" >> "$log/args"
mkdir "$log/run.$$"
echo "$(ls -d "$log"/run.* 2>/dev/null | wc -l)" >> "$log/concurrent"
case "$*" in
*--days*) sleep 0.2 ;;
*tlc,slc,qlc*) sleep 2 ;;
*--trace\ recssd*)	# half a second of CPU: pieces.csv must count it
	i=0
	while [ "$i" -lt 100000 ]; do i=$((i + 1)); done ;;
*) sleep 0.1 ;;
esac
rmdir "$log/run.$$"
case "$name $*" in
*"--batch 4"*) [ -n "${STUB_FAIL:-}" ] && exit 3 ;;
esac
case $name in
bench_rf_embedding)
	case "$*" in
	*--days*)
		pol=$(echo "$*" | sed 's/.*--policy \([a-z0-9]*\).*/\1/')
		echo "days,policy,x"
		echo "days,$pol,0,1,1,0,64,1,1,0,2,2,1,1" ;;
	*)
		echo "head"
		echo "popular,tlc,rmc1,1000,400,0.0,0.08,1,1,1,0,0,50,0,0,1,1,0,0,50,0,0,0,0,0,0,0,0,0,0,2,8,16,100,0.9,0.0,50 $*" ;;
	esac ;;
bench_fidelity)
	echo 'figure,series,paper,model,metric,ratio,within_25pct,independent,settings'
	echo '"REIS Fig. 7","SSD2 over SSD1, average (x)",2.6,2.5,factor,0.9615,yes,yes,"s"' ;;
bench_solana)
	echo 'figure,series,paper,model,metric,ratio,within_25pct,independent,settings'
	echo '"Solana Table I","speedup (x), a",3.1,3,factor,0.9677,yes,yes,"s"' ;;
esac
exit 0
EOF
for b in bench_fidelity bench_solana bench_rf_embedding bench_ftl bench_rf_bound; do
	cp "$tmp/stub" "$tmp/build/examples/$b"
	chmod +x "$tmp/build/examples/$b"
done

# --- 1-3. a run with 2 slots -----------------------------------------------
STUB_LOG=$tmp/log FIDELITY_JOBS=2 BUILD=$tmp/build FIDELITY_OUT=$tmp/out \
	sh "$TOP/scripts/fidelity.sh" > "$tmp/fid.log" 2>&1 ||
	{ fail "fidelity.sh exited $?"; grep -v "^fidelity: R\\|gnuplot\\|^ " "$tmp/fid.log" | tail -5; }
raw=$tmp/build/fidelity
# 2 seeds x 1, the 2 other traces, 13 settings, 2 Fig. 13 runs: 19 CSV runs.
n=$(grep -c '^bench_rf_embedding .*--csv' "$tmp/log/args")
[ "$n" -eq 19 ] || fail "want 19 CSV runs of bench_rf_embedding, got $n"
n=$(grep '^bench_rf_embedding .*--csv' "$tmp/log/args" | grep -vc -- '--no-oracle')
[ "$n" -eq 0 ] || fail "$n CSV runs without --no-oracle"
n=$(grep -c -- '--days 35' "$tmp/log/args")
[ "$n" -eq 4 ] || fail "want 4 Fig. 14 runs, got $n"
grep -q '^bench_fidelity -S -L 256$' "$tmp/log/args" || fail "no REIS sweep"
grep -q '^bench_ftl --md' "$tmp/log/args" || fail "no extra section (ftl)"
grep -q '^bench_rf_bound --md$' "$tmp/log/args" || fail "no extra section (rfbound)"
# rfsweep.csv in the settings' order, whatever order they ended in.
order=$(cut -d'|' -f2 "$raw/rfsweep.csv" | tr '\n' ';')
want="per distinct row;batch 4;batch 64;100 profile batches;1600 profile batches;exponent 1.10;exponent 1.30;500 MB/s channel;1400 MB/s channel;1 cycle per SLS element;4 cycles per SLS element;host cache of the 2K hottest rows per table;published;"
[ "$order" = "$want" ] || fail "rfsweep.csv order: $order"
grep -q 'rf_base_rows=1' "$raw/rfsweep.csv" || fail "a setting's arguments did not reach its run"
grep -q -- '--host-cache 2048' "$raw/rfsweep.csv" || fail "the host-cache setting did not reach its run"
order=$(grep -v policy "$raw/f14.csv" | cut -d, -f2 | tr '\n' ' ')
[ "$order" = "daily thr5 thr10 thr15 " ] || fail "f14.csv order: $order"
max=$(sort -n "$tmp/log/concurrent" | tail -1)
[ "$max" -le 2 ] || fail "$max benchmarks at once with FIDELITY_JOBS=2"
# 26 jobs; the two 2 s seed runs start first and hold both slots, the
# rest follow: with batches of 2 the wall time would be >= 2 x 2 s + the
# short jobs; a pool runs the short ones after the seeds, about 2 s + 24 x
# 0.1 s / 2 on 2 slots. pieces.csv: one line per job.
n=$(wc -l < "$raw/pieces.csv")
[ "$n" -eq 26 ] || fail "pieces.csv has $n lines, want 26"
awk -F, 'NF != 4 || $2 > $3 { bad = 1 } END { exit bad }' "$raw/pieces.csv" ||
	fail "malformed pieces.csv: $(cat "$raw/pieces.csv")"
awk -F, '$1 == "trace-recssd" && $4 >= 0.05 { ok = 1 } END { exit !ok }' "$raw/pieces.csv" ||
	fail "the CPU-bound job's CPU time is not counted: $(grep recssd "$raw/pieces.csv")"
# The doc's section: one row per job and the total.
n=$(sed -n '/^## Where the wall time goes/,/^## /p' "$tmp/out/fidelity.md" | grep -c '^| [a-z]')
[ "$n" -eq 28 ] || fail "the wall-time section has $n rows, want 26 jobs + header + all"
s0=$(awk -F, '$1 == "rf-seed0" { print $2 }' "$raw/pieces.csv")
s1=$(awk -F, '$1 == "rf-seed1" { print $2 }' "$raw/pieces.csv")
e0=$(awk -F, '$1 == "rf-seed0" { print $3 }' "$raw/pieces.csv")
# The extra sections (ftl, rfbound; short stubs) start first, then the
# seeds; seed 1 must start before seed 0 ends (a slot freed by an extra
# section), not after it as a batch would.
[ "$s1" -lt "$e0" ] || fail "seed 1 started at $s1, after seed 0's end $e0 (batches, not a pool)"
# The two extra sections (stubs of 0.1 s) hold the slots first; seed 0
# takes the first one they free.
[ "$s0" -le 3 ] || fail "seed 0 started at $s0"

# --- 4. a failing job -------------------------------------------------------
rm -rf "$tmp/log"/*
STUB_FAIL=1 STUB_LOG=$tmp/log FIDELITY_JOBS=2 BUILD=$tmp/build FIDELITY_OUT=$tmp/out \
	sh "$TOP/scripts/fidelity.sh" > "$tmp/fid2.log" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "a failing job: exit $rc, want 1"
grep -q 'a benchmark failed (rf-sweep1)' "$tmp/fid2.log" || fail "the failure does not name rf-sweep1: $(tail -3 "$tmp/fid2.log")"

[ "$fails" -eq 0 ] || exit 1
echo "PASS"
