#!/bin/sh
# run-fuzz.sh MODE OUT RESULTS N HARNESS... - run the fuzz harnesses.
#   check: each harness for N executions over the seed corpus and the
#          regression inputs (tests/fuzz/regress/, past crashes) in a fresh
#          scratch corpus, so every run does the same work; a test per
#          harness in RESULTS/fuzz.counts, like tests/run-suite.sh.
#   run:   each harness for N seconds, corpus kept in OUT/corpus-HARNESS.
#   coverage: replay the kept corpora through HARNESS (a coverage build),
#          then llvm-cov's summary for hw-model/src.
set -u
mode=$1 out=$2 results=$3 n=$4
shift 4
mkdir -p "$results"
pass=0 fail=0
case $mode in
check|run)
    for h in "$@"; do
        log=$results/fuzz.$h.log
        scratch=$out/scratch-$h
        if [ "$mode" = check ]; then
            rm -rf "$scratch" && mkdir -p "$scratch"
            # every input a past crash left (regress/<harness suffix>-*) first
            regress=$(cd "$(dirname "$0")" && pwd)/regress
            for f in "$regress/${h#fuzz_isp_}"-*; do
                [ -f "$f" ] && cp "$f" "$scratch/"
            done
            args="-runs=$n $scratch $out/seeds"
        else
            mkdir -p "$out/corpus-$h"
            args="-max_total_time=$n -print_final_stats=1 $out/corpus-$h $out/seeds"
        fi
        # -rss_limit_mb: the harness must stay small; leaks abort.
        # shellcheck disable=SC2086
        if (cd "$out" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
                ./"$h" -rss_limit_mb=1024 -timeout=30 -max_len=32768 -print_final_stats=1 \
                -artifact_prefix="$out/crash-$h-" $args) >"$log" 2>&1; then
            pass=$((pass + 1))
            echo "PASS fuzz/$h: $(grep -E '^stat::number_of_executed_units' "$log" | \
                awk '{print $2}') executions, \
$(grep -E '^stat::average_exec_per_sec' "$log" | awk '{print $2}')/s, \
cov $(grep -oE 'cov: [0-9]+' "$log" | tail -n 1 | awk '{print $2}') edges\
$(grep -E '^fuzz: [0-9]+ commands' "$log" | tail -n 1 | sed 's/^fuzz:/,/')"
        else
            fail=$((fail + 1))
            echo "FAIL fuzz/$h (crash inputs: $out/crash-$h-*)"
            grep -E 'invariant|ERROR|SUMMARY|runtime error' "$log" | head -n 10 | sed 's/^/    /'
        fi
        rm -rf "$scratch"
    done
    if [ "$mode" = check ]; then
        echo "$pass $fail 0" >"$results/fuzz.counts"
        echo "fuzz: $pass passed, $fail failed, 0 skipped"
    fi
    [ "$fail" = 0 ]
    ;;
coverage)
    h=$1 profdata=$2 cov=$3
    rm -f "$out"/cov-*.profraw
    for c in "$out"/corpus-*; do
        [ -d "$c" ] || continue
        # fuzz_isp_cs's inputs decode with its mix (FZ_CS_BIAS, fuzz_isp_seq.c)
        bias=
        [ "${c##*/}" = corpus-fuzz_isp_cs ] && bias=1
        (cd "$out" && env LLVM_PROFILE_FILE="$out/cov-%p.profraw" ${bias:+FZ_CS_BIAS=1} \
            ./"$h" -runs=0 "$c" "$out/seeds") >/dev/null 2>&1
    done
    "$profdata" merge -sparse "$out"/cov-*.profraw -o "$out/cov.profdata" &&
        (cd "$(dirname "$0")" && "$cov" report "$out/$h" -instr-profile="$out/cov.profdata" \
            ../../hw-model/src) >"$results/fuzz-coverage.txt" || exit 1
    # per folder of hw-model/src, and all of it (~all): regions and lines
    # covered (the report's columns: regions, missed, %, functions, missed,
    # %, lines, missed, ...; it also lists headers and the harness itself)
    echo "folder      regions  covered   lines  covered"
    awk '$1 ~ /hw-model\/src\/.*\.c$/ && NF >= 10 {
            d = $1; sub(/\/[^\/]*$/, "", d); sub(/.*\//, "", d)
            r[d] += $2; rm[d] += $3; l[d] += $8; lm[d] += $9
            R += $2; RM += $3; L += $8; LM += $9
        }
        END {
            for (d in r)
                printf "%-10s %8d %7.1f%% %7d %7.1f%%\n", d, r[d],
                    100 * (r[d] - rm[d]) / r[d], l[d], 100 * (l[d] - lm[d]) / l[d]
            printf "%-10s %8d %7.1f%% %7d %7.1f%%\n", "~all", R, 100 * (R - RM) / R,
                L, 100 * (L - LM) / L
        }' "$results/fuzz-coverage.txt" | sort
    ;;
esac
