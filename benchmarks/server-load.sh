#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the example server's load test (examples/server) over models x request threads x intra-op
# threads x ONNX Runtime Java versions. Each point runs the same seeded requests (batch 1-16 x
# 8-512 tokens) through memplan's `bounded` settings at each budget, and through plain ONNX Runtime
# Java (its defaults, no budget) whole and with the batch caps servers set instead of a budget
# (`cap-N`: at most N rows per ORT run; `bounded-cap-N`: bounded, N rows per run). One row per run
# in table.md; tokens/s is also given as a ratio to plain ORT's at the same point, and the geomean
# of each bounded setting's ratios closes the table.
# Builds the library jars first unless --skip-build. Needs ../shared/models beside the repository
# and, for bge, scripts/public-models.sh's target/public-models.
#   benchmarks/server-load.sh [--skip-build] [--requests N] [--models "minilm bge"] [--threads "8 16"]
#                             [--intraop "1 2"] [--ort "1.23.2 1.29.0"] [--budgets "256 1024"]
#                             [--settings "plain bounded cap-1 cap-4 cap-16"] [--max-batch 16]
# Reports go to target/server-load/<time>/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build=1 requests=80 models="minilm bge" threads="8 16" intraop="1 2" ort="1.23.2 1.29.0" budgets="256 1024"
settings="plain bounded cap-1 cap-4 cap-16" maxbatch=16
usage="usage: $0 [--skip-build] [--requests N] [--models LIST] [--threads LIST] [--intraop LIST] [--ort LIST] [--budgets LIST] [--settings LIST] [--max-batch N]"
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || [ "$1" = --skip-build ] || { echo "$usage" >&2; exit 2; }
    case "$1" in
        --skip-build) build=0; shift ;;
        --requests) requests="$2"; shift 2 ;;
        --models) models="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --intraop) intraop="$2"; shift 2 ;;
        --ort) ort="$2"; shift 2 ;;
        --budgets) budgets="$2"; shift 2 ;;
        --settings) settings="$2"; shift 2 ;;
        --max-batch) maxbatch="$2"; shift 2 ;;
        *) echo "$usage" >&2; exit 2 ;;
    esac
done

model_file() {
    case "$1" in
        minilm) echo "$(cd .. && pwd)/shared/models/minilm/all-minilm-l6-v2-q.onnx" ;;
        bge) echo "$PWD/target/public-models/bge-small-en-v1.5.onnx" ;;
        *) echo "$0: unknown model '$1'; use minilm or bge" >&2; exit 2 ;;
    esac
}
# plain runs first at each point: the others' ratios are to its tokens/s
ordered="$(for s in $settings; do echo "$s"; done | awk '$0 == "plain" { print; next } { rest = rest " " $0 } END { print rest }' | xargs)"
for m in $models; do
    f="$(model_file "$m")"
    [ -f "$f" ] || { echo "$0: $m's model is not at $f (bge: run scripts/public-models.sh)" >&2; exit 1; }
done

[ "$build" = 1 ] && mvn -B -q -DskipTests package
out="target/server-load/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
table="$out/table.md"
ratios="$out/ratios.txt"
: >"$ratios"
echo "| model | settings | request threads | intra-op | ORT Java | budget | refused | baseline | growth | growth / budget | tokens/s | vs plain | p50 ms | p99 ms |" >"$table"
echo "|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|" >>"$table"

# One load run; prints its table row's cells after the settings: refused|baseline|growth|ratio|tokens/s|p50|p99
run_load() { # model-name settings threads intraop version budget-mib log
    local s="$2" props=()
    case "$s" in
        cap-*) props=(-Dload.settings=plain -Dload.rowsperrun="${s#cap-}") ;;
        bounded-cap-*) props=(-Dload.settings=bounded -Dload.rowsperrun="${s#bounded-cap-}") ;;
        *) props=(-Dload.settings="$s") ;;
    esac
    mvn -B -f examples/server/pom.xml test -Dload.model="$(model_file "$1")" -Dload.requests="$requests" \
        -Dload.threads="$3" -Dload.intraop="$4" -Donnxruntime.version="$5" -Dload.budget.mib="$6" \
        -Dload.maxbatch="$maxbatch" "${props[@]}" >"$7" 2>&1 || echo "$0: $1 $s t$3 i$4 ORT $5 $6 MiB failed; see $7" >&2
    local refused baseline plus ratio tps p50 p99
    refused=$(sed -n 's/.*too large \([0-9]*\)).*/\1/p' "$7" | head -1)
    baseline=$(sed -n 's/.*baseline \([0-9,]*\) MiB.*/\1 MiB/p' "$7" | head -1)
    plus=$(sed -n 's/.*(+\([0-9,]*\) MiB, \([0-9.]*\)x the budget).*/+\1 MiB|\2/p' "$7" | head -1)
    tps=$(sed -n 's/.*requests\/s, \([0-9]*\) tokens\/s.*/\1/p' "$7" | head -1)
    p50=$(sed -n 's/.*latency p50 \([0-9]*\) ms.*/\1/p' "$7" | head -1)
    p99=$(sed -n 's/.*p99 \([0-9]*\) ms.*/\1/p' "$7" | head -1)
    echo "${refused:-?}|${baseline:-?}|${plus:-?|?}|${tps:-?}|${p50:-?}|${p99:-?}"
}

for version in $ort; do
    for m in $models; do
        for t in $threads; do
            for i in $intraop; do
                plain_tps=""
                for s in $ordered; do
                    case "$s" in bounded*) list="$budgets" ;; *) list="-" ;; esac
                    for b in $list; do
                        budget=$([ "$b" = - ] && echo 1024 || echo "$b")
                        log="$out/$m-$s-t$t-i$i-ort$version-b$b.log"
                        IFS='|' read -r refused baseline growth gratio tps p50 p99 \
                            < <(run_load "$m" "$s" "$t" "$i" "$version" "$budget" "$log")
                        [ "$s" = plain ] && plain_tps="$tps"
                        vs="-"
                        if [[ -n $plain_tps && $plain_tps != "?" && $tps != "?" ]]; then
                            vs=$(awk -v a="$tps" -v b="$plain_tps" 'BEGIN { printf "%.2f", a / b }')
                            [[ $s == bounded* ]] && echo "$s $vs" >>"$ratios"
                        fi
                        shown_budget=$([ "$b" = - ] && echo "none" || echo "$b MiB")
                        [ "$b" = - ] && gratio="-"
                        echo "| $m | $s | $t | $i | $version | $shown_budget | $refused | $baseline | $growth | $gratio | $tps | $vs | $p50 | $p99 |" >>"$table"
                        tail -1 "$table"
                    done
                done
            done
        done
    done
done
if [ -s "$ratios" ]; then
    echo "" >>"$table"
    for s in $(awk '{ print $1 }' "$ratios" | sort -u); do
        line=$(awk -v s="$s" '$1 == s { l += log($2); n++ } END { printf "%s%s tokens/s over plain ORT'"'"'s, geomean of %d runs: %.2f", "`", s "`", n, exp(l / n) }' "$ratios")
        echo "$line" >>"$table"
        echo "$line"
    done
fi
echo "table: $table"
