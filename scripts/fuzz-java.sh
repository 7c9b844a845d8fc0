#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fuzzes the Jazzer targets (the @FuzzTest methods under src/test/java) for SECONDS each (default
# 20), one JVM per target, through Jazzer's own driver: JUnit's fuzzing mode (JAZZER_FUZZ=1) stops
# each target at its annotation's 20 s, and this takes any length. Plain `mvn test` replays every
# target's committed inputs instead (regression mode). Run after a build (`mvn -DskipTests package`
# or `mvn verify`): it reads target/classes and target/test-classes.
#   scripts/fuzz-java.sh [SECONDS] [Class#method...]
# The growing corpus lives in .cifuzz-corpus/ (git-ignored). A finding fails the run and is written
# into the target's Inputs folder under src/test/resources, where regression mode replays it from
# then on: commit it with its fix. The two ONNX targets also read the small models of ../shared/models
# (the shared folder is not copied into the tree).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SECONDS_EACH="${1:-20}"
shift || true
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then
    TARGETS=(dev.memplan.fuzz.OnnxModelFuzzTest#onnxModel dev.memplan.fuzz.GraphJsonFuzzTest#graphJson
        dev.memplan.cli.PackingCsvFuzzTest#packingCsv dev.memplan.cli.CliArgumentsFuzzTest#commandLine
        dev.memplan.cli.CliArgumentsFuzzTest#bindOption dev.memplan.fuzz.OrtModelFuzzTest#ortModel)
fi
OUT=target/fuzz
SHARED="${MEMPLAN_SHARED_DIR:-../shared}"
mkdir -p "$OUT"
for m in core ort cli; do
    [ -d $m/target/test-classes ] || { echo "$0: build first (mvn -DskipTests package)" >&2; exit 1; }
done
# each module's test dependencies but memplan's own jars (packaged again here, so the reactor resolves
# them; the native libraries already in target/classes are kept)
mvn -q -B ${MAVEN_OFFLINE:+-o} -DskipTests -Djavacpp.skip=true -Dinvoker.skip=true -Dmaven.javadoc.skip=true \
    package dependency:build-classpath -Dmdep.includeScope=test -DexcludeGroupIds=dev.memplan \
    -Dmdep.outputFile=target/fuzz/test.classpath >/dev/null
jars() { # the packaged jars of memplan's modules a module's tests run against
    local j=""
    for m in "$@"; do
        for f in $m/target/memplan*.jar; do
            [[ $f == */original-* ]] || j="$j:$f"
        done
    done
    echo "${j#:}"
}
# a target's module: where its test class is
module_of() {
    local path="src/test/java/$(tr . / <<<"$1").java"
    for m in core ort cli; do
        [ -f "$m/$path" ] && { echo $m; return; }
    done
    echo "$0: no module holds $1" >&2
    exit 1
}
passed=0
for target in "${TARGETS[@]}"; do
    class="${target%#*}"
    method="${target#*#}"
    module="$(module_of "$class")"
    # core's tests run against its classes as compiled (protobuf not relocated); the modules above
    # it, against its jar, where protobuf is relocated, as they were compiled
    case $module in
        core) cp="core/target/test-classes:core/target/classes" ;;
        ort) cp="ort/target/test-classes:ort/target/classes:$(jars core)" ;;
        cli) cp="cli/target/test-classes:cli/target/classes:$(jars core ort)" ;;
    esac
    cp="$cp:$(cat "$module/target/fuzz/test.classpath")"
    inputs="$module/src/test/resources/$(tr . / <<<"$class")Inputs/$method"
    corpus=".cifuzz-corpus/$class/$method"
    mkdir -p "$inputs" "$corpus"
    seeds=("$corpus" "$inputs")
    if { [ "$method" = onnxModel ] || [ "$method" = ortModel ]; } && [ -d "$SHARED/models" ]; then
        # the small shared models as read-only seeds (up to 100 KB: larger ones slow every execution)
        shared_seeds="$OUT/shared-onnx-seeds"
        mkdir -p "$shared_seeds"
        find "$SHARED/models" -name '*.onnx' -size -100k -exec cp -f {} "$shared_seeds/" \;
        seeds+=("$shared_seeds")
    fi
    # ONNX Runtime loads each model in a child JVM with its own memory limit (memplan.ort.load.memoryMiB),
    # which this limit does not count: the fuzzing JVM holds its 2 GB heap and little else.
    rss=4096
    log="$OUT/jazzer-$class-$method.log"
    echo "fuzz-java: $target for ${SECONDS_EACH}s"
    # CI fuzzes from a fixed seed (-seed=1), so a landing does not hang on which random path a run
    # took; local runs explore from a fresh seed each time.
    rc=0
    # -timeout: wall clock per input; the first inputs pay for instrumenting and loading classes.
    # -rss_limit_mb: the JVM's 2 GB heap and what Jazzer holds beside it.
    # protoc's generated ONNX classes stay uninstrumented: thousands of methods that took minutes
    # to instrument on the first model, and coverage of the reader is in dev.memplan.onnx itself.
    java -Xss1m -Xmx2g -Dmemplan.shared.dir="$SHARED" -cp "$cp" com.code_intelligence.jazzer.Jazzer \
        --target_class="$class" --target_method="$method" \
        --instrumentation_includes='dev.memplan.**' --custom_hook_includes='dev.memplan.**' \
        --instrumentation_excludes='dev.memplan.onnx.proto.**' --custom_hook_excludes='dev.memplan.onnx.proto.**' \
        ${CI:+-seed=1} -max_total_time="$SECONDS_EACH" -timeout=120 -report_slow_units=120 -rss_limit_mb="$rss" -print_final_stats=1 -artifact_prefix="$inputs/" \
        "${seeds[@]}" >"$log" 2>&1 || rc=$?
    grep -E '^#[0-9]+[[:space:]]+DONE|^stat::number_of_executed_units' "$log" || true
    if [ "$rc" -ne 0 ]; then
        grep -E -A15 '== Java Exception|FuzzerSecurityIssue|ERROR' "$log" | head -40 >&2 || true
        echo "fuzz-java: $target found a problem (exit $rc); the input is in $inputs/, the log in $log" >&2
        exit 1
    fi
    passed=$((passed + 1))
done
echo "fuzz-java: $passed passed, 0 failed"
