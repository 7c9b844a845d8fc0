// SPDX-License-Identifier: Apache-2.0
// Tests for offsets_plan.h: memplan_offsets_plan end to end (bound, search
// phase reported, empty input, argument checks, random intervals valid).

#include <iterator>
#include <set>
#include <utility>

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

// Random rows over `positions`: starts uniform, lengths uniform in [1, 2 * mean_length - 1], sizes in [1, 2^20].
struct Rows {
    std::vector<int> def, end;
    std::vector<long long> size;
};

Rows random_rows(std::mt19937& rng, int n, int positions, int mean_length) {
    Rows r;
    for (int i = 0; i < n; ++i) {
        const int d = pick(rng, 0, positions - 1);
        r.def.push_back(d);
        r.end.push_back(std::min(positions - 1, d + pick(rng, 0, 2 * mean_length - 2)));
        r.size.push_back(pick(rng, 1, 1 << 20));
    }
    return r;
}

// offsets_valid in O(n log n), for instances too large for its pairwise check: sweep the
// positions, keep the live sized buffers ordered by offset, and check each arrival against its
// neighbours there (live buffers that share no byte are disjoint ranges, so neighbours suffice).
bool large_offsets_valid(int positions, const Rows& r, const std::vector<long long>& offset, long long peak) {
    std::vector<std::vector<int>> starting(static_cast<std::size_t>(positions)), ending(static_cast<std::size_t>(positions));
    for (std::size_t i = 0; i < r.size.size(); ++i) {
        if (r.size[i] == 0) continue;
        if (offset[i] < 0 || offset[i] + r.size[i] > peak) return false;
        starting[static_cast<std::size_t>(r.def[i])].push_back(isize(i));
        ending[static_cast<std::size_t>(r.end[i])].push_back(isize(i));
    }
    std::set<std::pair<long long, int>> live;
    for (std::size_t p = 0; p < starting.size(); ++p) {
        for (int b : starting[p]) {
            const long long lo = offset[static_cast<std::size_t>(b)];
            const long long hi = lo + r.size[static_cast<std::size_t>(b)];
            auto next = live.lower_bound({lo, -1});
            if (next != live.end() && next->first < hi) return false;
            if (next != live.begin()) {
                auto prev = std::prev(next);
                if (lo < prev->first + r.size[static_cast<std::size_t>(prev->second)]) return false;
            }
            live.insert({lo, b});
        }
        for (int b : ending[p]) live.erase({offset[static_cast<std::size_t>(b)], b});
    }
    return true;
}

// The rank decodes' sample: below its threshold there is none; a dense slice (about 100 buffers
// live at once) runs out of its share of effort 1's pops, a sparse one (about 10) does not.
void test_offsets_decode_sample() {
    using memplan_offsets::sample_fits;
    std::mt19937 rng(20261202);
    const int n = memplan_offsets::kSampleMinBuffers + 1000;
    const long long budget = memplan_offsets::kPopsPerBuffer * n + memplan_offsets::kPopsAllowance;
    std::vector<int> identity(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) identity[static_cast<std::size_t>(i)] = i;
    const Rows dense = random_rows(rng, n, 2 * n, 200);
    const Rows sparse = random_rows(rng, n, 2 * n, 20);
    CHECK_EQ(sample_fits(2 * n, dense.def.data(), dense.end.data(), dense.size.data(), false, identity.data(),
                         memplan_offsets::kSampleMinBuffers - 1, budget),
             1);
    CHECK_EQ(sample_fits(2 * n, dense.def.data(), dense.end.data(), dense.size.data(), false, identity.data(), n, budget),
             0);
    CHECK_EQ(sample_fits(2 * n, sparse.def.data(), sparse.end.data(), sparse.size.data(), true, identity.data(), n,
                         budget),
             1);
    // Dense at effort 1: every decode is skipped, and the wide fit with window swaps plans below the
    // sweep (effort 0).
    OffsetsRun one = run_offsets(2 * n, dense.def, dense.end, dense.size, 1);
    OffsetsRun zero = run_offsets(2 * n, dense.def, dense.end, dense.size, 0);
    CHECK_EQ(one.rc, MEMPLAN_OK);
    CHECK(one.stats[0] < zero.stats[0]);
    CHECK(large_offsets_valid(2 * n, dense, one.offset, one.stats[0]));
}

}  // namespace

void run_offsets_plan_tests() {
    run_case("offsets: rank decodes' sample", test_offsets_decode_sample);
    run_case("offsets: chain reaches the bound", test_offsets_chain_reaches_bound);
    run_case("offsets: zero sizes and empty", test_offsets_zero_sizes_and_empty);
    run_case("offsets: search phase reported", test_offsets_search_phase_reported);
    run_case("offsets: bad arguments", test_offsets_bad_arguments);
    run_case("offsets: random intervals valid", test_offsets_random_intervals_valid);
}

}  // namespace memplan_test
