// SPDX-License-Identifier: Apache-2.0
// Tests for offsets_plan.h: memplan_offsets_plan end to end (bound, search
// phase reported, empty input, argument checks, random intervals valid).

#include "test_support.h"

namespace memplan_test {
namespace {

void test_offsets_chain_reaches_bound() {
    // 10 -> 1 -> 10: the two big ones share bytes, the small one sits above.
    const std::vector<int> def = {0, 1, 2};
    const std::vector<int> end = {1, 2, 3};
    const std::vector<long long> size = {10, 1, 10};
    for (int effort : {0, 1, 3}) {
        OffsetsRun r = run_offsets(4, def, end, size, effort);
        CHECK_EQ(r.rc, MEMPLAN_OK);
        CHECK_EQ(r.stats[0], 11);
        CHECK_EQ(r.stats[1], 21);
        CHECK_EQ(r.stats[2], 11);
        CHECK_EQ(r.stats[3], 0);  // the sweep reached the bound: no search phase
        CHECK(offsets_valid(def, end, size, r.offset, r.stats[0]));
    }
}

// The sweep misses the bound on this instance (found by a seeded search), so a search phase
// runs, reaches the bound and reports it, in the caller's scratch or in its own allocation alike.
void test_offsets_search_phase_reported() {
    const std::vector<int> def = {2, 3, 1, 0};
    const std::vector<int> end = {2, 3, 3, 2};
    const std::vector<long long> size = {2, 8, 3, 4};
    for (int with_search : {0, 1}) {
        OffsetsRun r = run_offsets(4, def, end, size, 1, 0x5A, with_search);
        CHECK_EQ(r.rc, MEMPLAN_OK);
        CHECK_EQ(r.stats[2], 11);
        CHECK_EQ(r.stats[3], 1);
        CHECK_EQ(r.stats[0], 11);
        CHECK(offsets_valid(def, end, size, r.offset, r.stats[0]));
    }
}

void test_offsets_zero_sizes_and_empty() {
    OffsetsRun empty = run_offsets(1, {}, {}, {}, 1);
    CHECK_EQ(empty.rc, MEMPLAN_OK);
    CHECK_EQ(empty.stats[0], 0);
    OffsetsRun zeros = run_offsets(2, {0, 0, 1}, {1, 1, 1}, {0, 5, 0}, 1);
    CHECK_EQ(zeros.rc, MEMPLAN_OK);
    CHECK_EQ(zeros.offset[0], 0);
    CHECK_EQ(zeros.offset[2], 0);
    CHECK_EQ(zeros.stats[0], 5);
}

void test_offsets_bad_arguments() {
    long long stats[4];
    const long long bytes = memplan_offsets_scratch_bytes(2, 2, 0);
    std::vector<long long> block(static_cast<std::size_t>(bytes / 8 + 2));
    void* w = block.data();
    long long offset[2];
    const int def[2] = {0, 1};
    const int end[2] = {1, 1};
    const long long size[2] = {4, 4};
    CHECK_EQ(memplan_offsets_plan(2, 2, def, end, size, 1, offset, nullptr, w, bytes), MEMPLAN_BAD_ARGUMENT);
    CHECK_EQ(memplan_offsets_plan(-1, 2, def, end, size, 1, offset, stats, w, bytes), MEMPLAN_BAD_ARGUMENT);
    CHECK_EQ(memplan_offsets_plan(2, 0, def, end, size, 1, offset, stats, w, bytes), MEMPLAN_BAD_ARGUMENT);
    CHECK_EQ(memplan_offsets_plan(2, 2, def, end, size, -1, offset, stats, w, bytes), MEMPLAN_BAD_ARGUMENT);
    CHECK_EQ(memplan_offsets_plan(2, 2, def, end, size, MEMPLAN_MAX_EFFORT + 1, offset, stats, w, bytes),
             MEMPLAN_BAD_ARGUMENT);
    CHECK_EQ(memplan_offsets_plan(2, 2, def, end, size, INT_MAX, offset, stats, w, bytes), MEMPLAN_BAD_ARGUMENT);
    CHECK_EQ(memplan_offsets_plan(2, 1, def, end, size, 1, offset, stats, w, bytes), MEMPLAN_BAD_ARGUMENT);  // end out of range
    CHECK_EQ(memplan_offsets_plan(2, 2, nullptr, end, size, 1, offset, stats, w, bytes), MEMPLAN_BAD_ARGUMENT);
    const int ends_before_def[2] = {1, 0};  // buffer 1 lives [1, 0]
    CHECK_EQ(memplan_offsets_plan(2, 2, def, ends_before_def, size, 1, offset, stats, w, bytes), MEMPLAN_BAD_ARGUMENT);
    const long long negative[2] = {4, -1};
    CHECK_EQ(memplan_offsets_plan(2, 2, def, end, negative, 1, offset, stats, w, bytes), MEMPLAN_BAD_ARGUMENT);
    const long long huge[2] = {LLONG_MAX, 1};
    CHECK_EQ(memplan_offsets_plan(2, 2, def, end, huge, 1, offset, stats, w, bytes), MEMPLAN_OVERFLOW);
    CHECK_EQ(memplan_offsets_plan(2, 2, def, end, size, 1, offset, stats, nullptr, bytes), MEMPLAN_BAD_ARGUMENT);
    CHECK_EQ(memplan_offsets_plan(2, 2, def, end, size, 1, offset, stats, w, bytes - 1), MEMPLAN_BAD_ARGUMENT);
    void* misaligned = static_cast<char*>(w) + 4;
    CHECK_EQ(memplan_offsets_plan(2, 2, def, end, size, 1, offset, stats, misaligned, bytes), MEMPLAN_BAD_ARGUMENT);
    CHECK_EQ(memplan_offsets_plan(2, 2, def, end, size, 1, offset, stats, w, bytes), MEMPLAN_OK);
    CHECK_EQ(memplan_offsets_scratch_bytes(-1, 2, 0), -1);
    CHECK_EQ(memplan_offsets_scratch_bytes(2, 0, 1), -1);
    CHECK(memplan_offsets_scratch_bytes(2, 2, 1) > bytes);

}

void test_offsets_random_intervals_valid() {
    std::mt19937 rng(20261130);
    for (int round = 0; round < 300; ++round) {
        const int positions = pick(rng, 1, 40);
        const int n = pick(rng, 0, 60);
        std::vector<int> def(static_cast<std::size_t>(n)), end(static_cast<std::size_t>(n));
        std::vector<long long> size(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < size.size(); ++i) {
            def[i] = pick(rng, 0, positions - 1);
            end[i] = pick(rng, def[i], std::min(positions - 1, def[i] + pick(rng, 0, 12)));
            size[i] = pick(rng, 0, 4) == 0 ? 0 : static_cast<long long>(pick(rng, 1, 1000));
        }
        const long long bound = naive_lower_bound(positions, def, end, size);
        for (int effort : {0, 1, 2}) {
            OffsetsRun r = run_offsets(positions, def, end, size, effort);
            CHECK_EQ(r.rc, MEMPLAN_OK);
            CHECK_EQ(r.stats[2], bound);
            CHECK(r.stats[0] >= bound);
            CHECK(offsets_valid(def, end, size, r.offset, r.stats[0]));
            OffsetsRun zeroed = run_offsets(positions, def, end, size, effort, 0x00, 0);
            CHECK(zeroed.offset == r.offset);
            CHECK_EQ(zeroed.stats[0], r.stats[0]);
        }
    }
}

}  // namespace

void run_offsets_plan_tests() {
    run_case("offsets: chain reaches the bound", test_offsets_chain_reaches_bound);
    run_case("offsets: zero sizes and empty", test_offsets_zero_sizes_and_empty);
    run_case("offsets: search phase reported", test_offsets_search_phase_reported);
    run_case("offsets: bad arguments", test_offsets_bad_arguments);
    run_case("offsets: random intervals valid", test_offsets_random_intervals_valid);
}

}  // namespace memplan_test
