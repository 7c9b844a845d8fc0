// SPDX-License-Identifier: Apache-2.0
// Tests for ort_arena.h without ONNX Runtime loaded: every entry point refuses bad arguments with a
// message, answers "unavailable" with one when no libonnxruntime is in the process, and never
// writes past the message buffer it is given.

#include <string>

#include "ort_arena.h"
#include "test_support.h"

namespace memplan_test {
namespace {

void test_bad_arguments_are_refused_with_a_message() {
    char err[128] = {0};
    long long out[MEMPLAN_ORT_NUM_STATS] = {0};
    CHECK_EQ(memplan_ort_arena_stats(0, out, MEMPLAN_ORT_NUM_STATS, err, 128), MEMPLAN_ORT_BAD_ARGUMENT);
    CHECK(std::string(err).find("session must be non-zero") != std::string::npos);
    CHECK_EQ(memplan_ort_arena_stats(8, nullptr, MEMPLAN_ORT_NUM_STATS, err, 128), MEMPLAN_ORT_BAD_ARGUMENT);
    CHECK_EQ(memplan_ort_arena_stats(8, out, MEMPLAN_ORT_NUM_STATS - 1, err, 128), MEMPLAN_ORT_BAD_ARGUMENT);
    // no message buffer, or a zero-length one: still refused, nothing written
    CHECK_EQ(memplan_ort_arena_stats(0, out, MEMPLAN_ORT_NUM_STATS, nullptr, 128), MEMPLAN_ORT_BAD_ARGUMENT);
    CHECK_EQ(memplan_ort_arena_stats(0, out, MEMPLAN_ORT_NUM_STATS, err, 0), MEMPLAN_ORT_BAD_ARGUMENT);
    long long start[MEMPLAN_ORT_START_LEN] = {0};
    CHECK_EQ(memplan_ort_arena_start(0, start, MEMPLAN_ORT_START_LEN, err, 128), MEMPLAN_ORT_BAD_ARGUMENT);
    CHECK(std::string(err).find("out hold 3 longs") != std::string::npos);
    CHECK_EQ(memplan_ort_arena_start(8, nullptr, MEMPLAN_ORT_START_LEN, err, 128), MEMPLAN_ORT_BAD_ARGUMENT);
    CHECK_EQ(memplan_ort_arena_start(8, start, MEMPLAN_ORT_START_LEN - 1, err, 128), MEMPLAN_ORT_BAD_ARGUMENT);
    CHECK_EQ(memplan_ort_arena_start(0, start, MEMPLAN_ORT_START_LEN, nullptr, 128), MEMPLAN_ORT_BAD_ARGUMENT);
}

void test_messages_stay_inside_their_buffer() {
    char err[12];
    for (char& c : err) c = 'x';
    long long out[MEMPLAN_ORT_NUM_STATS] = {0};
    CHECK_EQ(memplan_ort_arena_stats(0, out, MEMPLAN_ORT_NUM_STATS, err, 8), MEMPLAN_ORT_BAD_ARGUMENT);
    CHECK_EQ(err[7], '\0');
    CHECK_EQ(err[8], 'x');
}

void test_without_onnx_runtime_the_calls_say_so() {
    char err[256] = {0};
    long long out[MEMPLAN_ORT_NUM_STATS] = {0};
    // handles are never dereferenced before ONNX Runtime is found
    CHECK_EQ(memplan_ort_arena_stats(8, out, MEMPLAN_ORT_NUM_STATS, err, 256), MEMPLAN_ORT_UNAVAILABLE);
    CHECK(std::string(err).find("ONNX Runtime 1.23 or newer is not loaded") != std::string::npos);
    long long start[MEMPLAN_ORT_START_LEN] = {0};
    CHECK_EQ(memplan_ort_arena_start(8, start, MEMPLAN_ORT_START_LEN, err, 256), MEMPLAN_ORT_UNAVAILABLE);
}

}  // namespace

void run_ort_arena_tests() {
    run_case("ort arena refuses bad arguments", test_bad_arguments_are_refused_with_a_message);
    run_case("ort arena messages stay inside their buffer", test_messages_stay_inside_their_buffer);
    run_case("ort arena without ONNX Runtime says so", test_without_onnx_runtime_the_calls_say_so);
}

}  // namespace memplan_test
