#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# memplan pack --exact END TO END (./memplan: JVM start, CSV read, seed, search, CSV write) on every
# CSV in a folder (for instance MiniMalloc's benchmarks/challenging, which is not in this tree),
# several repeats; prints per instance the median arena, process CPU time (user + sys) and wall time.
#
#   benchmarks/exact-packing.sh DIR [--repeats N] [--capacity BYTES] [--nodes N] [--engine native|java]
#                                   [--java-opts "JVM OPTIONS"] [--compare PATH-TO-A-BUILT-MINIMALLOC-BINARY]
#
# --capacity stops each search once the arena fits (MiniMalloc's decision problem at that
# capacity). --compare runs an already-built MiniMalloc binary on the same file next to each memplan
# run (which goes first alternates by repeat), at the same --capacity (required then), timed the
# same way, its height read from its output CSV; this script never builds it (docs/performance.md,
# "Exact packing", says how). --java-opts is MEMPLAN_JAVA_OPTS for memplan's runs: by default, for
# the native engine, "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC" (the search runs in C++, so the JVM
# needs no optimizing compiler and no parallel collector); for the Java engine none. The launcher's
# class-data-sharing archive is recorded once, before the measurements, by a run on the first file.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
memplan="$here/../memplan"
dir="${1:-}"
[[ -n $dir && -d $dir ]] || { sed -n '2,19p' "$0" >&2; exit 2; }
shift
repeats=3 capacity="" nodes="" engine=native compare="" javaopts="unset"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --repeats) repeats="$2"; shift 2 ;;
        --capacity) capacity="$2"; shift 2 ;;
        --nodes) nodes="$2"; shift 2 ;;
        --engine) engine="$2"; shift 2 ;;
        --java-opts) javaopts="$2"; shift 2 ;;
        --compare) compare="$2"; shift 2 ;;
        *) echo "exact-packing.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[[ -z $compare || -n $capacity ]] || { echo "exact-packing.sh: --compare needs --capacity" >&2; exit 2; }
if [[ $javaopts == unset ]]; then
    [[ $engine == native ]] && javaopts="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC" || javaopts=""
fi
export MEMPLAN_JAVA_OPTS="$javaopts"
args=(pack --exact --engine "$engine")
[[ -n $capacity ]] && args+=(--capacity "$capacity")
[[ -n $nodes ]] && args+=(--nodes "$nodes")
files=("$dir"/*.csv)
"$memplan" --version >/dev/null  # builds the jar once, outside the measurements
rm -f "$here"/../cli/target/memplan-cli-*-all.jsa  # then records the CDS archive from a pack --exact run
"$memplan" "${args[@]}" "${files[0]}" >/dev/null 2>&1

median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
TIMEFORMAT='%R %U %S'
# Runs "$@" with stdout to $tmp/out, stderr to $tmp/err; appends wall and CPU seconds to $1-named files.
timed() {
    local key="$1"; shift
    { time "$@" >"$tmp/out" 2>"$tmp/err"; } 2>"$tmp/time"
    awk '{print $1}' "$tmp/time" >>"$tmp/$key.wall"
    awk '{print $2 + $3}' "$tmp/time" >>"$tmp/$key.cpu"
}
run_memplan() {
    timed "$1.mp" "$memplan" "${args[@]}" "$2"
    sed -nE 's/.*exact: arena ([0-9]+) bytes.*/\1/p' "$tmp/err" >>"$tmp/$1.mp.arena"
    sed -nE 's/.*exact: arena [0-9]+ bytes, ([^;]*);.*/\1/p' "$tmp/err" >"$tmp/$1.verdict"
}
run_minimalloc() {
    timed "$1.mm" "$compare" --capacity="$capacity" --input="$2" --output="$tmp/mm.csv"
    awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next}
             {h = $c["offset"] + $c["size"]; if (h > m) m = h} END {print m + 0}' "$tmp/mm.csv" >>"$tmp/$1.mm.arena"
}
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= repeats; r++)); do
    for f in "${files[@]}"; do
        name="$(basename "$f" .csv)"
        if [[ -n $compare && $((r % 2)) -eq 0 ]]; then
            run_minimalloc "$name" "$f"; run_memplan "$name" "$f"
        else
            run_memplan "$name" "$f"; [[ -z $compare ]] || run_minimalloc "$name" "$f"
        fi
    done
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load average before $load_before, after $load_after;" \
    "$repeats repeats; memplan $engine engine, MEMPLAN_JAVA_OPTS='$javaopts'"
if [[ -n $compare ]]; then
    echo "| instance | MiniMalloc arena | memplan arena | MiniMalloc CPU s | memplan CPU s | CPU ratio | MiniMalloc wall s | memplan wall s | wall ratio |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
else
    echo "| instance | arena | verdict | CPU s | wall s |"
    echo "|---|---:|---|---:|---:|"
fi
logsum=0 logwall=0
for f in "${files[@]}"; do
    name="$(basename "$f" .csv)"
    arena="$(median <"$tmp/$name.mp.arena")" cpu="$(median <"$tmp/$name.mp.cpu")" wall="$(median <"$tmp/$name.mp.wall")"
    if [[ -n $compare ]]; then
        mmarena="$(median <"$tmp/$name.mm.arena")" mmcpu="$(median <"$tmp/$name.mm.cpu")"
        mmwall="$(median <"$tmp/$name.mm.wall")"
        ratio="$(awk -v a="$cpu" -v b="$mmcpu" 'BEGIN {printf "%.2f", a / b}')"
        wratio="$(awk -v a="$wall" -v b="$mmwall" 'BEGIN {printf "%.2f", a / b}')"
        logsum="$(awk -v s="$logsum" -v a="$cpu" -v b="$mmcpu" 'BEGIN {print s + log(a / b)}')"
        logwall="$(awk -v s="$logwall" -v a="$wall" -v b="$mmwall" 'BEGIN {print s + log(a / b)}')"
        printf '| %s | %s | %s | %.2f | %.2f | %s | %.2f | %.2f | %s |\n' "$name" "$mmarena" "$arena" "$mmcpu" "$cpu" \
            "$ratio" "$mmwall" "$wall" "$wratio"
    else
        printf '| %s | %s | %s | %.2f | %.2f |\n' "$name" "$arena" "$(cat "$tmp/$name.verdict")" "$cpu" "$wall"
    fi
done
if [[ -n $compare ]]; then
    awk -v s="$logsum" -v w="$logwall" -v n="${#files[@]}" \
        'BEGIN {printf "geomean memplan / MiniMalloc: CPU %.2f, wall %.2f\n", exp(s / n), exp(w / n)}'
fi
