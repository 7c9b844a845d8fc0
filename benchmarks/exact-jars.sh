#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# memplan pack --exact with two or more built CLI jars side by side (say, one built from main and
# kept, one from a branch) on the same CSV files, in one run: for each repeat and file every jar
# runs once, their order rotating by repeat, so that the machine's load falls on all alike. Prints
# per file and jar the median arena, the verdict and nodes of the median run, and the median wall
# and CPU (user + sys) seconds of the whole process, JVM start included; then each jar's wall time
# over the first jar's.
#
#   benchmarks/exact-jars.sh [--repeats N] [--engine native|java] [--args "PACK OPTIONS"] JAR... -- CSV...
#
# --args goes to every run after `pack FILE --exact --engine E` (for instance "--time-limit 60" or
# "--capacity 1048576"). The instances built to fit at their bound come from
# benchmarks/guillotine-rows.py; MiniMalloc's challenging ones are not in this tree.
set -euo pipefail

repeats=3 engine=native extra=""
jars=() files=()
while [[ $# -gt 0 && $1 != -- ]]; do
    case "$1" in
        --repeats) repeats="$2"; shift 2 ;;
        --engine) engine="$2"; shift 2 ;;
        --args) extra="$2"; shift 2 ;;
        -*) echo "exact-jars.sh: unknown option '$1'" >&2; exit 2 ;;
        *) jars+=("$1"); shift ;;
    esac
done
[[ $# -gt 0 ]] && shift
files=("$@")
if [[ ${#jars[@]} -lt 1 || ${#files[@]} -lt 1 ]]; then
    sed -n '2,15p' "$0" >&2
    exit 2
fi
for j in "${jars[@]}"; do [[ -f $j ]] || { echo "exact-jars.sh: no jar '$j'" >&2; exit 2; }; done
javaopts=()
[[ $engine == native ]] && javaopts=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC)  # the search runs in C++
read -r -a extra_args <<<"$extra"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
TIMEFORMAT='%R %U %S'
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
njars=${#jars[@]}
for ((r = 0; r < repeats; r++)); do
    for f in "${files[@]}"; do
        for ((k = 0; k < njars; k++)); do
            j=$(( (k + r) % njars ))
            key="$(basename "$f" .csv).$j"
            { time java "${javaopts[@]}" -jar "${jars[$j]}" pack "$f" --exact --engine "$engine" \
                "${extra_args[@]}" >/dev/null 2>"$tmp/err"; } 2>"$tmp/time"
            wall="$(awk '{print $1}' "$tmp/time")"
            echo "$wall" >>"$tmp/$key.wall"
            awk '{print $2 + $3}' "$tmp/time" >>"$tmp/$key.cpu"
            arena="$(sed -nE 's/.*exact: arena ([0-9]+) bytes.*/\1/p' "$tmp/err")"
            echo "$arena" >>"$tmp/$key.arena"
            # verdict and nodes, keyed by wall time so that the median run's can be picked
            echo "$wall $(sed -nE 's/.*exact: arena [0-9]+ bytes, ([^;(]*).*/\1/p' "$tmp/err" | sed 's/[ :]*$//')" \
                "| $(sed -nE 's/.* ([0-9]+) nodes.*/\1/p' "$tmp/err")" >>"$tmp/$key.runs"
        done
    done
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load average before $load_before, after $load_after;" \
    "$repeats repeats; engine $engine; pack --exact $extra"
for ((j = 0; j < njars; j++)); do echo "jar $j: ${jars[$j]}"; done
echo "| instance | jar | arena | verdict | nodes | wall s | CPU s | wall / jar 0 |"
echo "|---|---:|---:|---|---:|---:|---:|---:|"
for f in "${files[@]}"; do
    name="$(basename "$f" .csv)"
    base="$(median <"$tmp/$name.0.wall")"
    for ((j = 0; j < njars; j++)); do
        key="$name.$j"
        wall="$(median <"$tmp/$key.wall")"
        cpu="$(median <"$tmp/$key.cpu")"
        arena="$(median <"$tmp/$key.arena")"
        run="$(sort -g "$tmp/$key.runs" | sed -n "$(( (repeats + 1) / 2 ))p" | cut -d' ' -f2-)"
        printf '| %s | %d | %s | %s | %s | %.2f | %.2f | %s |\n' "$name" "$j" "$arena" "${run% | *}" "${run##* | }" \
            "$wall" "$cpu" "$(awk -v a="$wall" -v b="$base" 'BEGIN {printf "%.2f", a / b}')"
    done
done
