#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# LangChain4j's own in-process embedding model against memplan's (memplan-langchain4j), side by side
# in one run: the same real segments (Debian's licence and copyright texts cut by LangChain4j's
# recursive splitter), embedded from one caller and from four at once, each load in a fresh JVM with
# a fixed, pre-touched heap so that resident growth is native memory. Prints segments per second and
# peak resident growth over the state after a warm-up and since the model was built.
#   benchmarks/langchain4j-embed.sh [--skip-build] [--segments N] [--callers "1 4"] [--models "minilm bge"]
#                                   [--budget-mib M] [--rounds R]
# Reports go to target/langchain4j-embed/<time>/; table.md holds one row per load.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build=1 segments=1000 callers="1 4" models="minilm bge" budget=64 rounds=1
while [ $# -gt 0 ]; do
    case "$1" in
        --skip-build) build=0; shift ;;
        --segments) segments="$2"; shift 2 ;;
        --callers) callers="$2"; shift 2 ;;
        --models) models="$2"; shift 2 ;;
        --budget-mib) budget="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        *) echo "usage: $0 [--skip-build] [--segments N] [--callers LIST] [--models LIST] [--budget-mib M] [--rounds R]" >&2
           exit 2 ;;
    esac
done

out="target/langchain4j-embed/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
if [ "$build" = 1 ]; then
    mvn -B -q -pl langchain4j -am test-compile dependency:build-classpath -Dmemplan.cpp.skip=true \
        -Dmdep.includeScope=test -Dmdep.outputFile="$PWD/$out/classpath.txt" >"$out/build.log" 2>&1 \
        || { echo "$0: the build failed; see $out/build.log" >&2; exit 1; }
else
    [ -f target/langchain4j-embed/classpath.txt ] || { echo "$0: no earlier build; run without --skip-build" >&2; exit 1; }
    cp target/langchain4j-embed/classpath.txt "$out/classpath.txt"
fi
cp "$out/classpath.txt" target/langchain4j-embed/classpath.txt
cp="langchain4j/target/test-classes:langchain4j/target/classes:$(cat "$out/classpath.txt")"

table="$out/table.md"
echo "| model | callers | implementation | segments | seconds | segments/s | growth over warmed | / budget | growth since built | / budget |" >"$table"
echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|" >>"$table"
for round in $(seq "$rounds"); do
    for model in $models; do
        for c in $callers; do
            for impl in langchain4j memplan; do
                log="$out/$impl-$model-c$c-r$round.log"
                ORT_DISABLE_TELEMETRY=1 java -Xms768m -Xmx768m -XX:+AlwaysPreTouch \
                    -Dmemplan.langchain4j.models=langchain4j/target/models -cp "$cp" \
                    dev.memplan.langchain4j.EmbeddingLoad "$impl" "$model" "$segments" "$c" "$budget" >"$log" 2>&1 \
                    || { echo "$0: $impl $model c$c failed; see $log" >&2; continue; }
                line=$(grep '^RESULT' "$log")
                field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$line"; }
                echo "| $model | $c | $impl | $(field segments) | $(field seconds) | $(field segments_per_s) | $(field growth_mib) MiB | $(field growth_per_budget) | $(field growth_since_built_mib) MiB | $(field since_built_per_budget) |" >>"$table"
                tail -1 "$table"
            done
        done
    done
done
echo "table: $table"
