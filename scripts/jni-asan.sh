#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the JNI library with AddressSanitizer and UndefinedBehaviorSanitizer (Maven profile
# jni-asan) and runs the Java suites that drive the native boundary against it. java is not
# instrumented, so the sanitizer runtimes are preloaded; the JVM handles SIGSEGV itself (null
# checks, safepoints), so ASan leaves that signal alone, and leak checking is off (the JVM's own
# allocations at exit are not leaks of ours); the jni-asan profile in pom.xml sets them for the
# test JVMs only. It rebuilds core/target/classes: run it after packaging.
#   scripts/jni-asan.sh [TEST-PATTERN]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

TESTS="${1:-NativeBoundaryTest,NativeCompileChecksTest,MirroredEnginesTest,EngineInputChecksTest,NativeBlockTest,NativeBlockPoolTest,PackingTest}"
CXX_RUNTIMES="$(g++ -print-file-name=libasan.so) $(g++ -print-file-name=libubsan.so)"
# the native library with the sanitizers, and the tests; they run below, with the runtimes preloaded
mvn -B -q ${MAVEN_OFFLINE:+-o} -Pjni-asan -DskipTests -pl core test-compile
# grep reads all of nm's output (no -q): under pipefail, an early exit would fail nm with SIGPIPE
nm -D core/target/classes/dev/memplan/engine/linux-x86_64/libjniMemplanNative.so | grep __asan_report >/dev/null || {
    echo "$0: the JNI library carries no AddressSanitizer calls" >&2
    exit 1
}
mvn -B ${MAVEN_OFFLINE:+-o} -Pjni-asan -pl core surefire:test@default-test -Dtest="$TESTS" \
    -Djni.asan.preload="$CXX_RUNTIMES" -Dsurefire.failIfNoSpecifiedTests=false
