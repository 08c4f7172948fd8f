#!/bin/sh
# reis-plot.sh DAT OUT.svg - recall@10 against modeled QPS, one curve per
# preset (reis-ssd1, reis-ssd2) and distance filter (on, off), from the
# "preset df nprobe recall qps" lines bench_reis_corpus writes to
# $REIS_PLOT_DAT (make bench). The SVG goes next to docs/reis.md, which
# shows it (§7.2). Needs gnuplot (scripts/setup-deps.sh installs
# gnuplot-nox).
set -eu
dat=${1:?usage: reis-plot.sh DAT OUT.svg}
out=${2:?usage: reis-plot.sh DAT OUT.svg}
command -v gnuplot >/dev/null 2>&1 || { echo "reis-plot: gnuplot missing (scripts/setup-deps.sh)" >&2; exit 1; }
[ -s "$dat" ] || { echo "reis-plot: $dat is empty (no corpus?)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One file per curve, IVF points by ascending nprobe (brute force, nprobe 0, apart).
for p in reis-ssd1 reis-ssd2; do
    for df in on off; do
        awk -v p="$p" -v d="$df" '$1 == p && $2 == d && $3 > 0 { print $3, $4, $5 }' "$dat" |
            sort -n > "$tmp/$p-$df.dat"
        awk -v p="$p" -v d="$df" '$1 == p && $2 == d && $3 == 0 { print $3, $4, $5 }' "$dat" \
            > "$tmp/$p-$df-bf.dat"
    done
done
gnuplot <<GP
set terminal svg size 760,480 dynamic font "sans,12" noenhanced
set output "$out"
set title "REIS IVF search on the WordNet corpus: recall@10 vs modeled QPS (64-query batches)"
set xlabel "modeled queries per second"
set ylabel "recall@10"
set autoscale xfix
set offsets graph 0.05, graph 0.05, 0.02, 0.02
set format x "%.0f"
set key bottom left
set grid
plot "$tmp/reis-ssd1-on.dat" using 3:2 with linespoints lw 2 pt 7 title "reis-ssd1, DF on", \
     "$tmp/reis-ssd1-off.dat" using 3:2 with linespoints lw 2 pt 6 dt 2 title "reis-ssd1, DF off", \
     "$tmp/reis-ssd2-on.dat" using 3:2 with linespoints lw 2 pt 5 title "reis-ssd2, DF on", \
     "$tmp/reis-ssd2-off.dat" using 3:2 with linespoints lw 2 pt 4 dt 2 title "reis-ssd2, DF off", \
     "$tmp/reis-ssd1-on-bf.dat" using 3:2 with points pt 9 ps 1.5 title "brute force (ssd1, DF on)", \
     "$tmp/reis-ssd2-on-bf.dat" using 3:2 with points pt 11 ps 1.5 title "brute force (ssd2, DF on)"
GP
echo "reis-plot: wrote $out"
