#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# memplan pack --exact on every CSV in a folder (for instance MiniMalloc's benchmarks/challenging,
# which is not in this tree), several repeats; prints per instance the median arena, search wall
# time and CPU time (the process's, over the span pack --exact reports: the heuristic seed and the
# search, not the JVM start).
#
#   benchmarks/exact-packing.sh DIR [--repeats N] [--capacity BYTES] [--nodes N] [--engine native|java]
#                                   [--compare PATH-TO-A-BUILT-MINIMALLOC-BINARY]
#
# --capacity stops each search once the arena fits (MiniMalloc's decision problem at that
# capacity). --compare runs an already-built MiniMalloc binary on the same file right after each
# memplan run, at the same --capacity (required then), and adds its "Elapsed time" and process
# CPU time; this script never builds it (docs/performance.md, "Exact packing", says how).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
memplan="$here/../memplan"
dir="${1:-}"
[[ -n $dir && -d $dir ]] || { sed -n '2,15p' "$0" >&2; exit 2; }
shift
repeats=3 capacity="" nodes="" engine=native compare=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --repeats) repeats="$2"; shift 2 ;;
        --capacity) capacity="$2"; shift 2 ;;
        --nodes) nodes="$2"; shift 2 ;;
        --engine) engine="$2"; shift 2 ;;
        --compare) compare="$2"; shift 2 ;;
        *) echo "exact-packing.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[[ -z $compare || -n $capacity ]] || { echo "exact-packing.sh: --compare needs --capacity" >&2; exit 2; }
args=(pack --exact --engine "$engine")
[[ -n $capacity ]] && args+=(--capacity "$capacity")
[[ -n $nodes ]] && args+=(--nodes "$nodes")
"$memplan" --version >/dev/null  # builds the jar once, outside the measurements

median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
files=("$dir"/*.csv)
for ((r = 1; r <= repeats; r++)); do
    for f in "${files[@]}"; do
        name="$(basename "$f" .csv)"
        line="$("$memplan" "${args[@]}" "$f" 2>&1 >/dev/null | tail -n 1)"
        echo "$line" | sed -E 's/.*arena ([0-9]+) bytes.*/\1/' >>"$tmp/$name.arena"
        echo "$line" | sed -E 's/.* nodes, ([0-9.]+) s \(cpu ([0-9.]+) s\).*/\1/' >>"$tmp/$name.wall"
        echo "$line" | sed -E 's/.* nodes, ([0-9.]+) s \(cpu ([0-9.]+) s\).*/\2/' >>"$tmp/$name.cpu"
        echo "$line" | sed -E 's/.*exact: arena [0-9]+ bytes, ([^;]*);.*/\1/' >"$tmp/$name.verdict"
        if [[ -n $compare ]]; then
            TIMEFORMAT='%U %S'
            out="$( { time "$compare" --capacity="$capacity" --input="$f" --output="$tmp/out.csv" 2>&1; } 2>&1 )"
            echo "$out" | sed -nE 's/.*Elapsed time ([0-9.]+)s.*/\1/p' >>"$tmp/$name.mmwall"
            echo "$out" | tail -n 1 | awk '{print $1 + $2}' >>"$tmp/$name.mmcpu"
        fi
    done
done
if [[ -n $compare ]]; then
    echo "| instance | memplan arena | memplan wall s | memplan cpu s | MiniMalloc wall s | MiniMalloc cpu s | cpu ratio |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
else
    echo "| instance | arena | verdict | wall s | cpu s |"
    echo "|---|---:|---|---:|---:|"
fi
for f in "${files[@]}"; do
    name="$(basename "$f" .csv)"
    arena="$(median <"$tmp/$name.arena")" wall="$(median <"$tmp/$name.wall")" cpu="$(median <"$tmp/$name.cpu")"
    if [[ -n $compare ]]; then
        mmwall="$(median <"$tmp/$name.mmwall")" mmcpu="$(median <"$tmp/$name.mmcpu")"
        printf '| %s | %s | %s | %s | %s | %s | %.3f |\n' "$name" "$arena" "$wall" "$cpu" "$mmwall" "$mmcpu" \
            "$(awk -v a="$cpu" -v b="$mmcpu" 'BEGIN {print a / b}')"
    else
        printf '| %s | %s | %s | %s | %s |\n' "$name" "$arena" "$(cat "$tmp/$name.verdict")" "$wall" "$cpu"
    fi
done
