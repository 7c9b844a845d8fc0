#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds and tests the C++ of every module (core/src/main/cpp, ort/src/main/cpp) on its own, without
# Maven or JNI: one test binary, core/src/test/cpp/memplan_core_test.cpp runs every module's tests.
#   ./cppbuild.sh test   optimized build with all warnings as errors, then run
#   ./cppbuild.sh asan   AddressSanitizer + UBSan build (separate binary), then run
#   ./cppbuild.sh arm64  the optimized build cross-compiled for linux-aarch64 (Debian's
#                        g++-aarch64-linux-gnu), run under qemu-aarch64 (Debian's qemu-user)
#   ./cppbuild.sh clean  remove target/cpp
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"

CXX="${CXX:-g++}"
CXX_ARM64="${CXX_ARM64:-aarch64-linux-gnu-g++}"
# Where qemu-aarch64 finds the aarch64 loader and libraries (Debian's cross sysroot).
ARM64_SYSROOT="${ARM64_SYSROOT:-/usr/aarch64-linux-gnu}"
OUT=target/cpp
SRC=(core/src/test/cpp/*_test.cpp ort/src/test/cpp/*_test.cpp)  # one file per header
FLAGS=(-std=c++17 -Wall -Wextra -Wpedantic -Wconversion -Wshadow -Werror -Icore/src/main/cpp -Iort/src/main/cpp
    -Icore/src/test/cpp)

usage() {
    echo "usage: $0 test|asan|arm64|clean" >&2
    exit 2
}

[ $# -eq 1 ] || usage

case "$1" in
    test)
        mkdir -p "$OUT"
        "$CXX" "${FLAGS[@]}" -O2 "${SRC[@]}" -o "$OUT/memplan_core_test"
        "$OUT/memplan_core_test"
        ;;
    asan)
        mkdir -p "$OUT"
        "$CXX" "${FLAGS[@]}" -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
            -fno-omit-frame-pointer "${SRC[@]}" -o "$OUT/memplan_core_test_asan"
        "$OUT/memplan_core_test_asan"
        ;;
    arm64)
        for tool in "$CXX_ARM64" qemu-aarch64; do
            command -v "$tool" >/dev/null || {
                echo "$0 arm64: $tool is missing; install Debian's g++-aarch64-linux-gnu and qemu-user" >&2
                exit 1
            }
        done
        mkdir -p "$OUT"
        "$CXX_ARM64" "${FLAGS[@]}" -O2 "${SRC[@]}" -o "$OUT/memplan_core_test_arm64"
        # qemu-user on these machines never starts a guest thread (std::thread hangs): the one
        # test that needs threads is left out under it
        MEMPLAN_TEST_NO_THREADS=1 qemu-aarch64 -L "$ARM64_SYSROOT" "$OUT/memplan_core_test_arm64"
        ;;
    clean)
        rm -rf "$OUT"
        ;;
    *)
        usage
        ;;
esac
