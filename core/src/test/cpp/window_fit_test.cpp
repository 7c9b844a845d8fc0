// SPDX-License-Identifier: Apache-2.0
// Tests for window_fit.h: the wide fit against a quadratic first fit, and
// window swaps that keep the plan valid and never raise the arena.

#include "test_support.h"

namespace memplan_test {
namespace {

struct Instance {
    int positions = 1;
    std::vector<int> def, end;
    std::vector<long long> size;
};

// Short and long intervals, some empty buffers (OffsetPlannerWindowTest.instance).
Instance random_instance(std::mt19937& rng, int max_positions, int max_n, int max_length) {
    Instance in;
    in.positions = pick(rng, 1, max_positions);
    const int n = pick(rng, 0, max_n);
    const std::size_t un = static_cast<std::size_t>(n);
    in.def.resize(un);
    in.end.resize(un);
    in.size.resize(un);
    for (std::size_t i = 0; i < un; ++i) {
        in.def[i] = pick(rng, 0, in.positions - 1);
        const int longest = std::min(pick(rng, 0, 7) == 0 ? in.positions : max_length, in.positions - in.def[i]);
        in.end[i] = in.def[i] + pick(rng, 0, longest - 1);
        in.size[i] = pick(rng, 0, 9) == 0 ? 0 : static_cast<long long>(pick(rng, 1, pick(rng, 0, 1) ? 16 : 5000));
    }
    return in;
}

std::vector<int> by_size(const Instance& in, int* m) {
    const std::size_t un = in.size.size();
    std::vector<int> order(un + 1), sort_scratch(un + 1), histogram(memplan_offsets::kRadixBuckets);
    std::vector<long long> length(un + 1);
    *m = memplan_offsets::rank_order(memplan_offsets::kRankSize, static_cast<int>(un), in.def.data(), in.end.data(),
                                     in.size.data(), order.data(), sort_scratch.data(), length.data(),
                                     histogram.data());
    return order;
}

void test_window_fit_matches_naive_first_fit() {
    std::mt19937 rng(21);
    for (int round = 0; round < 200; ++round) {
        const Instance in = random_instance(rng, 60, 149, 4);
        const int n = static_cast<int>(in.size.size());
        int m = 0;
        const std::vector<int> order = by_size(in, &m);
        memplan_offsets::WindowFit fit(in.positions, in.def.data(), in.end.data(), in.size.data(), n, m);
        CHECK(fit.allocated());
        std::vector<long long> offset(static_cast<std::size_t>(n) + 1, -3);
        const long long peak = fit.place(order.data(), m, offset.data());
        offset.resize(static_cast<std::size_t>(n));
        const std::vector<long long> expected = quadratic_first_fit(order, m, in.def, in.end, in.size);
        CHECK(offset == expected);
        long long expected_peak = 0;
        for (std::size_t i = 0; i < in.size.size(); ++i) expected_peak = std::max(expected_peak, expected[i] + in.size[i]);
        CHECK_EQ(peak, expected_peak);
        CHECK(offsets_valid(in.def, in.end, in.size, offset, peak));
    }
}

void test_window_swaps_keep_the_plan_valid() {
    std::mt19937 rng(22);
    for (int round = 0; round < 12; ++round) {
        const Instance in = random_instance(rng, 3000, 5000, 60);
        const int n = static_cast<int>(in.size.size());
        int m = 0;
        const std::vector<int> order = by_size(in, &m);
        memplan_offsets::WindowFit fit(in.positions, in.def.data(), in.end.data(), in.size.data(), n, m);
        CHECK(fit.allocated());
        std::vector<long long> offset(static_cast<std::size_t>(n) + 1);
        const long long placed = fit.place(order.data(), m, offset.data());
        const long long peak = fit.improve(200, 1LL << 40, 0, offset.data());
        offset.resize(static_cast<std::size_t>(n));
        CHECK(peak <= placed);
        long long top = 0;
        for (std::size_t i = 0; i < in.size.size(); ++i) top = std::max(top, offset[i] + in.size[i]);
        CHECK_EQ(peak, top);
        CHECK(offsets_valid(in.def, in.end, in.size, offset, peak));
    }
}

}  // namespace

void run_window_fit_tests() {
    run_case("offsets: wide fit matches a quadratic first fit", test_window_fit_matches_naive_first_fit);
    run_case("offsets: window swaps keep the plan valid", test_window_swaps_keep_the_plan_valid);
}

}  // namespace memplan_test
