#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Proves the jar's linux-arm64 native library loads in an arm64 JVM and plans exactly as the
# linux-x86_64 one: plans graphs with `memplan plan --engine native --format json` (every owner's
# offset) in this machine's JVM and in an arm64 JVM under qemu-user, and compares the outputs byte
# for byte, for both strategies. Needs the -cli jar (mvn package), qemu-user and an arm64 JRE
# (Debian multiarch: dpkg --add-architecture arm64; apt-get install openjdk-17-jre-headless:arm64).
#
#   scripts/arm64-smoke.sh [CLI_JAR]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

jar="${1:-$(ls cli/target/memplan-cli-*-all.jar 2>/dev/null | head -1)}"
arm_java="${ARM64_JAVA:-/usr/lib/jvm/java-17-openjdk-arm64/bin/java}"
[[ -f $jar ]] || { echo "arm64-smoke: no cli/target/memplan-cli-*-all.jar (run mvn package first)" >&2; exit 1; }
[[ -x $arm_java ]] || { echo "arm64-smoke: no arm64 JVM at $arm_java (see the header of $0)" >&2; exit 1; }
command -v qemu-aarch64 >/dev/null || { echo "arm64-smoke: qemu-aarch64 is missing (Debian's qemu-user)" >&2; exit 1; }

# An emulated JIT is slow to warm up: C1 only, and no class data sharing or perf data file.
arm=(qemu-aarch64 "$arm_java" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:off -XX:-UsePerfData)
out=target/arm64-smoke
mkdir -p "$out"

# The library the arm64 JVM loads must be the linux-arm64 one (JavaCPP's debug log names it).
"${arm[@]}" -Dorg.bytedeco.javacpp.logger.debug=true -jar "$jar" plan --engine native examples/resnet_block.json \
    >/dev/null 2>"$out/load.log"
grep -q 'linux-arm64/libjniMemplanNative.so' "$out/load.log" || {
    echo "arm64-smoke: the arm64 JVM did not load the linux-arm64 library:" >&2
    grep -i 'memplan' "$out/load.log" >&2 || true
    exit 1
}

model=../shared/models/minilm/all-minilm-l6-v2-q.onnx
graphs=(examples/resnet_block.json)
[[ -f $model ]] && graphs+=("$model")
compared=0
for strategy in offsets slots; do
    args=(plan --engine native --format json --strategy "$strategy" --bind batch_size=1 --bind sequence_length=128
          "${graphs[@]}")
    java -jar "$jar" "${args[@]}" >"$out/x86_64-$strategy.json"
    "${arm[@]}" -jar "$jar" "${args[@]}" >"$out/arm64-$strategy.json"
    if ! cmp -s "$out/x86_64-$strategy.json" "$out/arm64-$strategy.json"; then
        echo "arm64-smoke: $strategy plans differ between linux-x86_64 and linux-arm64 (see $out)" >&2
        exit 1
    fi
    compared=$((compared + ${#graphs[@]}))
done
echo "arm64-smoke: linux-arm64 library loaded under qemu; $compared plans identical to linux-x86_64"
