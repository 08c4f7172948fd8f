#!/bin/sh
# check-layers.sh [--src DIR] OBJ... - libreis' layering from nm data
# (docs/libreis.md, Layers). Each object's layer comes from its name:
#   core_*.o transport_*.o -> core (0)    drive_*.o -> drive (1)
#   tool_*.o -> tools (2)                 cli_*.o   -> cli (3)
# An edge A -> B means A uses a symbol B defines. Fails, saying which symbol,
# on (a) an edge from a lower layer to a higher one, (b) a cycle among the
# library's objects (cli excluded: it is a program). On success prints the
# objects and lines per layer (lines of DIR/src/X.c or DIR/tools/X.c when
# --src is given) and the edges between layers.
set -eu
src=
if [ "${1:-}" = --src ]; then
    src=$2
    shift 2
fi
[ $# -gt 0 ] || { echo "usage: $0 [--src DIR] OBJ..." >&2; exit 2; }
NM=${NM:-nm}

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for o in "$@"; do
    b=$(basename "$o" .o)
    case $b in
    core_* | transport_*) layer=0 ;;
    drive_*) layer=1 ;;
    tool_*) layer=2 ;;
    cli_*) layer=3 ;;
    *) echo "check-layers: $o: no layer (name it core_, transport_, drive_, tool_ or cli_)" >&2
       exit 1 ;;
    esac
    lines=0
    if [ -n "$src" ]; then
        for f in "$src/src/$b.c" "$src/tools/$b.c"; do
            [ -f "$f" ] && lines=$(wc -l <"$f")
        done
    fi
    echo "O $b $layer $lines"
    "$NM" -g --defined-only "$o" | awk -v b="$b" 'NF >= 3 { print "D", b, $3 }'
    "$NM" -u "$o" | awk -v b="$b" '{ print "U", b, $NF }'
done >"$tmp"

awk '
BEGIN { name[0] = "core"; name[1] = "drive"; name[2] = "tools"; name[3] = "cli" }
$1 == "O" { layer[$2] = $3; lines[$2] = $4; nobj++; obj[nobj] = $2; next }
$1 == "D" { def[$3] = $2; next }
$1 == "U" { nu++; ufrom[nu] = $2; usym[nu] = $3; next }
END {
    bad = 0
    for (i = 1; i <= nu; i++) {
        a = ufrom[i]; s = usym[i]
        if (!(s in def)) continue
        b = def[s]
        if (a == b) continue
        if (!((a, b) in edge)) { edge[a, b] = s; ne++; ea[ne] = a; eb[ne] = b }
        if (layer[a] < layer[b]) {
            printf "check-layers: %s.o (%s) uses %s, defined in %s.o (%s): " \
                   "a lower layer must not call a higher one\n",
                   a, name[layer[a]], s, b, name[layer[b]]
            bad = 1
        }
    }
    # Cycles: depth-first search over the library objects (cli is a program).
    for (k = 1; k <= nobj; k++) color[obj[k]] = 0
    for (k = 1; k <= nobj; k++) {
        r = obj[k]
        if (color[r] || layer[r] == 3) continue
        sp = 1; stack[1] = r; pos[1] = 0; color[r] = 1
        while (sp > 0) {
            v = stack[sp]; found = 0
            for (e = pos[sp] + 1; e <= ne; e++) {
                if (ea[e] != v || layer[eb[e]] == 3) continue
                pos[sp] = e; w = eb[e]
                if (color[w] == 1) {
                    for (j = sp; j > 1 && stack[j] != w; j--) ;
                    cyc = w
                    for (j++; j <= sp; j++) cyc = cyc " -> " stack[j]
                    printf "check-layers: cycle: %s -> %s (%s.o uses %s)\n", cyc, w, v, edge[v, w]
                    bad = 1
                } else if (color[w] == 0) {
                    color[w] = 1; sp++; stack[sp] = w; pos[sp] = 0; found = 1
                    break
                }
            }
            if (!found && e > ne) { color[v] = 2; sp-- }
        }
    }
    if (bad) {
        print "check-layers: FAILED (rule: core < drive < tools < cli, no cycles; docs/libreis.md, Layers)"
        exit 1
    }
    for (k = 1; k <= nobj; k++) { n[layer[obj[k]]]++; l[layer[obj[k]]] += lines[obj[k]] }
    for (e = 1; e <= ne; e++) {
        x = layer[ea[e]]; y = layer[eb[e]]
        if (x == y) within[x]++; else across[x, y]++
    }
    printf "check-layers: OK, %d objects, %d edges, no upward edge, no cycle\n", nobj, ne
    for (x = 0; x <= 3; x++)
        if (n[x])
            printf "  %-5s %3d objects %6d lines %3d edges within\n", name[x], n[x], l[x], within[x]
    for (x = 0; x <= 3; x++)
        for (y = 0; y <= 3; y++)
            if (across[x, y])
                printf "  %s -> %s: %d edges\n", name[x], name[y], across[x, y]
}' "$tmp"
