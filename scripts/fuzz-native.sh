#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer harnesses of the C++ core's JNI entry points (core/src/fuzz/cpp, ort/src/fuzz/cpp) with clang
# under AddressSanitizer and UndefinedBehaviorSanitizer, replays each harness's regression inputs
# (<module>/src/fuzz/cpp/regression/<harness>/), then fuzzes each for SECONDS (default 20).
#   scripts/fuzz-native.sh [SECONDS] [HARNESS...]
# Needs Debian's clang-14 and libclang-rt-14-dev. The growing corpus lives in target/fuzz/corpus;
# a crash is written to target/fuzz/findings/ and fails the run: copy it into the harness's
# regression folder once fixed, so that every later run replays it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SECONDS_EACH="${1:-20}"
shift || true
CXX="${FUZZ_CXX:-clang++-14}"
OUT=target/fuzz
HARNESSES=("$@")
if [ ${#HARNESSES[@]} -eq 0 ]; then
    HARNESSES=(compile allocate offsets sizes exact ort_arena)
fi
command -v "$CXX" >/dev/null || {
    echo "$0: $CXX is missing; install Debian's clang-14 and libclang-rt-14-dev" >&2
    exit 1
}
mkdir -p "$OUT/bin" "$OUT/findings"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
for h in "${HARNESSES[@]}"; do
    bin="$OUT/bin/${h}_fuzzer"
    # a harness lives in the module of the headers it drives (core, or ort for ONNX Runtime's)
    module=core
    [ -f "ort/src/fuzz/cpp/${h}_fuzzer.cpp" ] && module=ort
    "$CXX" -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
        -fno-omit-frame-pointer -rdynamic -Icore/src/main/cpp -Iort/src/main/cpp -Icore/src/fuzz/cpp \
        "$module/src/fuzz/cpp/${h}_fuzzer.cpp" -o "$bin"
    regression="$module/src/fuzz/cpp/regression/$h"
    corpus="$OUT/corpus/$h"
    mkdir -p "$corpus"
    if [ -d "$regression" ] && [ -n "$(ls -A "$regression")" ]; then
        # replay: every committed input runs once, as a test
        "$bin" -runs=0 "$regression" 2>&1 | tail -n 2
    fi
    if [ "$SECONDS_EACH" -gt 0 ]; then
        echo "fuzz-native: $h for ${SECONDS_EACH}s"
        dirs=("$corpus")
        [ -d "$regression" ] && dirs+=("$regression")
        # one in-process worker: the machine is shared; a unit may take 60 s of wall clock before it
        # counts as hung (a niced run on a loaded machine stalls for seconds)
        log="$OUT/${h}.log"
        # CI fuzzes from a fixed seed (-seed=1), so a landing does not hang on which random path a run
        # took; local runs explore from a fresh seed each time.
        rc=0
        "$bin" ${CI:+-seed=1} -max_total_time="$SECONDS_EACH" -print_final_stats=1 -timeout=60 -rss_limit_mb=2048 \
            -artifact_prefix="$OUT/findings/${h}-" "${dirs[@]}" >"$log" 2>&1 || rc=$?
        grep -E '^(#[0-9]+[[:space:]]+DONE|stat::(number_of_executed_units|new_units_added|peak_rss_mb))' "$log" || true
        if [ "$rc" -ne 0 ]; then
            grep -E -A12 '(ERROR|plan check failed|runtime error)' "$log" | head -40 >&2 || true
            echo "fuzz-native: $h found a problem (exit $rc); the input is in $OUT/findings/, the log in $log" >&2
            exit 1
        fi
    fi
done
echo "fuzz-native: ${#HARNESSES[@]} passed, 0 failed"
