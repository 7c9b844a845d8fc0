// SPDX-License-Identifier: Apache-2.0
// Tests for first_fit.h: the fit against a quadratic first fit.

#include "test_support.h"

namespace memplan_test {
namespace {

void test_offsets_fit_matches_naive_first_fit() {
    std::mt19937 rng(8);
    for (int round = 0; round < 200; ++round) {
        const int positions = pick(rng, 1, 60);
        const int n = pick(rng, 0, 149);
        const std::size_t un = static_cast<std::size_t>(n);
        std::vector<int> def(un), end(un);
        std::vector<long long> size(un);
        for (std::size_t i = 0; i < un; ++i) {
            def[i] = pick(rng, 0, positions - 1);
            const int longest = pick(rng, 0, 7) == 0 ? positions - def[i] : std::min(3, positions - def[i]);
            end[i] = def[i] + pick(rng, 0, longest - 1);
            size[i] = pick(rng, 0, 5) == 0 ? 0 : static_cast<long long>(pick(rng, 1, pick(rng, 0, 1) ? 16 : 5000));
        }
        std::vector<long long> delta(static_cast<std::size_t>(positions) + 1);
        const memplan_offsets::SearchCost cost =
            memplan_offsets::search_cost_of(positions, n, def.data(), end.data(), size.data(), delta.data());
        std::vector<int> by_size(un + 1), sort_scratch(un + 1), histogram(memplan_offsets::kRadixBuckets);
        std::vector<long long> length(un + 1);
        const int m = memplan_offsets::rank_order(memplan_offsets::kRankSize, n, def.data(), end.data(), size.data(),
                                                  by_size.data(), sort_scratch.data(), length.data(), histogram.data());
        std::vector<int> list_start(static_cast<std::size_t>(positions) + 1), list_end(static_cast<std::size_t>(positions));
        std::vector<int> entries(static_cast<std::size_t>(cost.entries) + 1), seen(un + 1), overlapping(un + 1),
            merge_scratch(un + 1);
        memplan_offsets::FirstFit fit{positions,         def.data(),      end.data(),  size.data(),
                                      list_start.data(), list_end.data(), entries.data(), seen.data(),
                                      overlapping.data(), merge_scratch.data()};
        std::vector<long long> offset(un + 1, -3);
        const long long peak = fit.place(by_size.data(), m, n, offset.data());
        offset.resize(un);
        const std::vector<long long> expected = quadratic_first_fit(by_size, m, def, end, size);
        CHECK(offset == expected);
        long long expected_peak = 0;
        for (std::size_t i = 0; i < un; ++i) expected_peak = std::max(expected_peak, expected[i] + size[i]);
        CHECK_EQ(peak, expected_peak);
        CHECK(offsets_valid(def, end, size, offset, peak));
    }
}

}  // namespace

void run_first_fit_tests() {
    run_case("offsets: fit matches a quadratic first fit", test_offsets_fit_matches_naive_first_fit);
}

}  // namespace memplan_test
