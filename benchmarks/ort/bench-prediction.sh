#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# JMH: one request's ORT arena prediction (dev.memplan.ort, internal) against memplan's own
# per-request plan of the same graph on the Java engine (the target: at most 2x).
# Compiles benchmarks/ort/jmh against this worktree's target/classes (run `mvn -o -q compile`
# first) with JMH 1.37 from ~/.m2, and runs it. Arguments go to JMH and replace the default run
# options (1 fork, 5 x 1 s warm-up, 10 x 0.5 s measurement: under load the JIT needs the longer
# warm-up, or a few-microsecond path is measured half compiled); e.g. `-p model=<case> -f 1 -i 10`.
# Needs ../shared/models. BENCH_JAVA_OPTS goes to the launching JVM (e.g. -Djmh.ignoreLock=true
# when another engineer's JMH holds /tmp/jmh.lock: read the ratios only then). MEMPLAN_CLASSES
# replaces target/classes (a saved copy of another build, for before/after runs). Each case
# runs its paths back to back (memplanPlan, ortReplay, ortPrediction; narrow with
# `-p path=memplanPlan,ortReplay`); benchmarks/ort/jmh/medians.py prints medians and ratios of a
# `-rf json` result, and with `-prof gc` the bytes a request allocates. JMH splits `-p` values at
# commas, so a case whose bindings hold one (MiniLM, GPT-2) runs only from the @Param list.
# BENCH=OrtProfilePredictionBenchmark runs the public path on ORT's saved graph instead (models
# with If nodes: Silero VAD), the prediction against a CompiledModel's plan; it needs ORT Java.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
m2="${HOME}/.m2/repository"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
cd "$root"
# memplan-ort's dependencies but memplan's own modules, whose classes come from their target/ below
mvn -o -q -pl ort -am -DskipTests -Djavacpp.skip=true package dependency:build-classpath -DexcludeGroupIds=dev.memplan \
  -Dmdep.outputFile="$out/cp.txt" -Dmdep.includeScope=runtime >/dev/null
jmh="$m2/org/openjdk/jmh/jmh-core/1.37/jmh-core-1.37.jar:$m2/net/sf/jopt-simple/jopt-simple/5.0.4/jopt-simple-5.0.4.jar:$m2/org/apache/commons/commons-math3/3.6.1/commons-math3-3.6.1.jar"
cp="${MEMPLAN_CLASSES:-$root/ort/target/classes:$(ls "$root"/core/target/memplan-*-SNAPSHOT.jar | grep -v -- -tests | head -1)}:$(cat "$out/cp.txt"):$jmh"
javac -d "$out/classes" -cp "$cp" \
  -processorpath "$jmh:$m2/org/openjdk/jmh/jmh-generator-annprocess/1.37/jmh-generator-annprocess-1.37.jar" \
  benchmarks/ort/jmh/dev/memplan/ort/OrtPredictionBenchmark.java \
  benchmarks/ort/jmh/dev/memplan/ort/OrtProfilePredictionBenchmark.java
# the benchmark sits in dev.memplan.ort.internal (on the class path, so it reaches the package's internals)
if [ $# -eq 0 ]; then
  set -- -f 1 -wi 5 -w 1 -i 10 -r 500ms
fi
# shellcheck disable=SC2086
java ${BENCH_JAVA_OPTS:-} -cp "$out/classes:$cp" -Dmemplan.models="$root/../shared/models" org.openjdk.jmh.Main \
  "${BENCH:-OrtPredictionBenchmark}" -jvmArgsAppend "-Dmemplan.models=$root/../shared/models" "$@"
