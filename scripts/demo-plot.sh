#!/bin/sh
# demo-plot.sh KIND LOG OUT.svg - a demo's summary table as a gnuplot SVG,
# next to the table: the bars carry the table's own numbers.
#
#   rag    the RAG demo's "== summary" table (examples/rag_demo.c): per
#          question, modeled time and energy in the drive and the
#          conventional way (docs/reis.md §5)
#   dlrm   the DLRM demo's "== side by side" table (examples/dlrm_demo.c):
#          per placement, the embedding stage and the host MLPs per batch,
#          and the read energy (docs/recflash.md §5)
#   group  the group demo's scheduled run (examples/group_demo.c, make
#          demo-group): throughput and energy per query, host alone, one
#          drive, the group (docs/group.md)
#
# LOG is the program's output (a console log is fine: lines are found by
# their headers; '-' reads stdin). Prints "demo-plot: wrote OUT.svg". Needs
# gnuplot (scripts/setup-deps.sh installs gnuplot-nox); without it, says so
# and exits 0, since the table is already printed.
set -eu
usage() { echo "usage: demo-plot.sh rag|dlrm|group LOG|- OUT.svg" >&2; exit 2; }
[ $# = 3 ] || usage
kind=$1 log=$2 out=$3
case $kind in rag | dlrm | group) ;; *) usage ;; esac
if ! command -v gnuplot >/dev/null 2>&1; then
    echo "demo-plot: gnuplot missing (scripts/setup-deps.sh installs gnuplot-nox); no plot"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$log" = - ]; then
    tr -d '\r' >"$tmp/log"
else
    tr -d '\r' <"$log" >"$tmp/log"
fi
mkdir -p "$(dirname "$out")"

case $kind in
rag)
    # "#  question ... drive ms drive uJ conv ms conv uJ speedup to-host-KB kept-MB":
    # the last 7 fields are numbers, the question is what lies between.
    awk '/^== summary: in the drive vs the conventional path/ { on = 1; next }
         on && /^#  question/ { next }
         on && /^[0-9]+ / && NF >= 9 {
             q = $2; for (i = 3; i <= NF - 7; i++) q = q " " $i
             gsub(/"/, "", q)
             printf "\"%s. %s\" %s %s %s %s\n", $1, q, $(NF-6), $(NF-5), $(NF-4), $(NF-3)
             next }
         on && !/^[0-9]+ / { on = 0 }' "$tmp/log" >"$tmp/d"
    [ -s "$tmp/d" ] || { echo "demo-plot: no '== summary' table in $log" >&2; exit 1; }
    gnuplot <<GP
set terminal svg size 980,760 dynamic font "sans,11" noenhanced
set output "$out"
set multiplot layout 2,1 title "RAG demo: each question in the drive (REIS) and the conventional way (normal SSD reads + host CPU), modeled"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set grid ytics
set logscale y
set key top right
set lmargin 12
set rmargin 4
set offsets 0, 0, graph 0.12, 0
set title "time per question (ms, log scale)"
plot "$tmp/d" using 2:xtic(sprintf("%d", \$0 + 1)) title "in the drive", "" using 4 title "conventional", \
     "" using (\$0 - 0.15):2:(sprintf("%.3f", \$2)) with labels offset 0,0.6 font ",8" notitle, \
     "" using (\$0 + 0.15):4:(sprintf("%.3f", \$4)) with labels offset 0,0.6 font ",8" notitle
set title "energy per question (uJ, log scale)"
set xtics rotate by -25 left
set bmargin 9
plot "$tmp/d" using 3:xtic(1) title "in the drive", "" using 5 title "conventional", \
     "" using (\$0 - 0.15):3:(sprintf("%.0f", \$3)) with labels offset 0,0.6 font ",8" notitle, \
     "" using (\$0 + 0.15):5:(sprintf("%.0f", \$5)) with labels offset 0,0.6 font ",8" notitle
unset multiplot
GP
    ;;
dlrm)
    # "mode  embedding-ms  mJ  page-reads  cache-hits  host-MLP-ms  total-ms"
    awk '/^== side by side, per batch of/ { on = 1; next }
         on && /^mode / { next }
         on && NF == 7 { printf "\"%s\" %s %s %s %s\n", $1, $2, $3, $4, $6; next }
         on { on = 0 }' "$tmp/log" >"$tmp/d"
    [ -s "$tmp/d" ] || { echo "demo-plot: no '== side by side' table in $log" >&2; exit 1; }
    gnuplot <<GP
set terminal svg size 900,480 dynamic font "sans,11" noenhanced
set output "$out"
set multiplot layout 1,2 title "DLRM demo: the same batches with the tables placed RecSSD-like, RM-SSD-like and by RecFlash (per batch)"
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.6
set grid ytics
set key top right
set yrange [0:*]
set title "time per batch (ms)"
plot "$tmp/d" using 2:xtic(1) title "embedding stage (modeled)", "" using 5 title "host MLPs (measured)", \
     "" using 0:(\$2 + \$5):(sprintf("%.3f", \$2)) with labels offset 0,0.7 font ",9" notitle
set style histogram clustered
set title "read energy of the embedding stage per batch (mJ)"
plot "$tmp/d" using 3:xtic(1) title "modeled energy", \
     "" using 0:3:(sprintf("%.3f", \$3)) with labels offset 0,0.7 font ",9" notitle
unset multiplot
GP
    ;;
group)
    # group_demo's scheduled run: "max speedup  X vs host alone (G vs H q/s), Y vs
    # one drive (D q/s)" and the energy lines.
    awk '/^  max speedup/ {
             s = $0; sub(/[^(]*\(/, "", s); split(s, a, " ")
             d = $0; sub(/.*one drive \(/, "", d); sub(/ q\/s\).*/, "", d)
             printf "qps \"host alone\" %s\nqps \"one drive\" %s\nqps \"group (scheduled)\" %s\n", a[3], d, a[1] }
         /^  energy per query \(host\)/ { e = $5; printf "mj \"host alone\" %s\n", e }
         /^  energy per query \(w\/CSD\)/ { e = $5; printf "mj \"group (scheduled)\" %s\n", e }' \
        "$tmp/log" >"$tmp/all"
    grep '^qps' "$tmp/all" | cut -d' ' -f2- >"$tmp/q" || true
    grep '^mj' "$tmp/all" | cut -d' ' -f2- >"$tmp/e" || true
    [ -s "$tmp/q" ] && [ -s "$tmp/e" ] ||
        { echo "demo-plot: no scheduled run (max speedup, energy per query) in $log" >&2; exit 1; }
    gnuplot <<GP
set terminal svg size 900,460 dynamic font "sans,11" noenhanced
set output "$out"
set multiplot layout 1,2 title "Device group (Solana IV-A): the scheduled run over the host CPU and the drives"
set style data histograms
set style fill solid 0.8 border -1
set boxwidth 0.6
set grid ytics
set yrange [0:*]
set key off
set title "throughput (queries/s, modeled)"
plot "$tmp/q" using 2:xtic(1), "" using 0:2:(sprintf("%.0f", \$2)) with labels offset 0,0.7 font ",9"
set title "energy per query (mJ, server with idle power)"
plot "$tmp/e" using 2:xtic(1), "" using 0:2:(sprintf("%.3f", \$2)) with labels offset 0,0.7 font ",9"
unset multiplot
GP
    ;;
esac
echo "demo-plot: wrote $out"
