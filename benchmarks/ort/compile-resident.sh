#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What a compile costs and leaves resident in the process after it returned and a GC ran: memplan's own
# CompiledModel.compile against OrtModel.compile, each in a fresh JVM, on the calling thread (a
# server's). Builds memplan-ort with its dependencies (mvn -o), then runs CompileResident.java.
#   benchmarks/ort/compile-resident.sh MODEL.onnx [MODEL.onnx ...]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
cd "$root"
mvn -o -q -pl ort -am -DskipTests -Djavacpp.skip=true package dependency:build-classpath -DexcludeGroupIds=dev.memplan \
  -Dmdep.outputFile="$out/cp.txt" -Dmdep.includeScope=runtime >/dev/null
cp="$(ls "$root"/ort/target/memplan-ort-*-SNAPSHOT.jar | grep -v -e -tests -e original | head -1)"
cp="$cp:$(ls "$root"/core/target/memplan-*-SNAPSHOT.jar | grep -v -e -tests -e original | head -1):$(cat "$out/cp.txt")"
javac -d "$out/classes" -cp "$cp" "$root/benchmarks/ort/CompileResident.java"
for model in "$@"; do
  for kind in memplan ort; do
    ORT_DISABLE_TELEMETRY=1 java -cp "$out/classes:$cp" CompileResident "$kind" "$model"
  done
done
