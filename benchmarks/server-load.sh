#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the example server's load test (examples/server) over request threads x intra-op threads x
# ONNX Runtime Java versions, each point with memplan's `bounded` settings and the `recommended`
# ones back to back on the same seeded requests, so their throughput is compared in one run.
# Builds the library jar first unless --skip-build. Needs ../shared/models beside the repository.
#   benchmarks/server-load.sh [--skip-build] [--requests N] [--threads "8 16"] [--intraop "1 2"]
#                             [--ort "1.23.2 1.29.0"] [--settings "bounded recommended"]
# The budget is 64 MiB per request thread (512 MiB at 8, 1 GiB at 16). Reports go to
# target/server-load/<time>/; table.md holds one row per run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build=1 requests=80 threads="8 16" intraop="1 2" ort="1.23.2 1.29.0" settings="bounded recommended"
while [ $# -gt 0 ]; do
    case "$1" in
        --skip-build) build=0; shift ;;
        --requests) requests="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --intraop) intraop="$2"; shift 2 ;;
        --ort) ort="$2"; shift 2 ;;
        --settings) settings="$2"; shift 2 ;;
        *) echo "usage: $0 [--skip-build] [--requests N] [--threads LIST] [--intraop LIST] [--ort LIST] [--settings LIST]" >&2
           exit 2 ;;
    esac
done

[ "$build" = 1 ] && mvn -B -q -DskipTests package
out="target/server-load/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
table="$out/table.md"
echo "| settings | request threads | intra-op | ORT Java | budget | peak resident growth | growth / budget | allocator at most | time | requests/s |" >"$table"
echo "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|" >>"$table"
for version in $ort; do
    for t in $threads; do
        for i in $intraop; do
            budget=$((64 * t))
            for s in $settings; do
                log="$out/$s-t$t-i$i-ort$version.log"
                mvn -B -f examples/server/pom.xml test -Dload.requests="$requests" -Dload.threads="$t" \
                    -Dload.intraop="$i" -Dload.budget.mib="$budget" -Dload.settings="$s" \
                    -Donnxruntime.version="$version" >"$log" 2>&1 || echo "$0: $s t$t i$i ORT $version failed; see $log" >&2
                growth=$(grep -o 'peak [0-9,]* MiB (+[0-9,]* MiB, [0-9.]*x the budget)' "$log" | head -1 || true)
                plus=$(sed -n 's/.*(+\([0-9,]*\) MiB, \([0-9.]*\)x.*/\1 MiB|\2/p' <<<"$growth")
                arena=$(grep -o 'ORT allocator: at most [0-9,]* MiB' "$log" | head -1 | sed 's/ORT allocator: at most //' || true)
                time=$(grep -o 'time [0-9.]* s, [0-9.]* requests/s' "$log" | head -1 || true)
                secs=$(sed -n 's/time \([0-9.]*\) s.*/\1 s/p' <<<"$time")
                rate=$(sed -n 's/.*s, \([0-9.]*\) requests\/s/\1/p' <<<"$time")
                echo "| $s | $t | $i | $version | $budget MiB | ${plus%%|*} | ${plus##*|} | $arena | $secs | $rate |" >>"$table"
                tail -1 "$table"
            done
        done
    done
done
echo "table: $table"
