// SPDX-License-Identifier: Apache-2.0
// Tests for rank_order.h: the radix ranks against the comparison sort.

#include "test_support.h"

namespace memplan_test {
namespace {

// The radix sorts of the size and length ranks give exactly the merge sort's order under
// rank_before (a total order), on keys that share some bytes and differ in others.
void test_offsets_radix_rank_matches_comparison_sort() {
    std::mt19937 rng(7);
    for (int round = 0; round < 200; ++round) {
        const int positions = pick(rng, 1, 300);
        const int n = pick(rng, 0, 400);
        std::vector<int> def(static_cast<std::size_t>(n)), end(static_cast<std::size_t>(n));
        std::vector<long long> size(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < size.size(); ++i) {
            def[i] = pick(rng, 0, positions - 1);
            end[i] = pick(rng, def[i], positions - 1);
            const int shape = pick(rng, 0, 3);
            size[i] = shape == 0 ? 0
                      : shape == 1 ? static_cast<long long>(pick(rng, 1, 4)) << 20
                                   : (static_cast<long long>(pick(rng, 0, 70000)) << 24) + pick(rng, 1, 255);
        }
        for (int rank : {memplan_offsets::kRankSize, memplan_offsets::kRankLength}) {
            std::vector<int> radix(size.size() + 1), expected(size.size() + 1), scratch(size.size() + 1);
            std::vector<long long> length(size.size() + 1);
            std::vector<int> histogram(memplan_offsets::kRadixBuckets);
            const int m = memplan_offsets::rank_order(rank, n, def.data(), end.data(), size.data(), radix.data(),
                                                      scratch.data(), length.data(), histogram.data());
            int k = 0;
            for (int i = 0; i < n; ++i) {
                if (size[static_cast<std::size_t>(i)] != 0) expected[static_cast<std::size_t>(k++)] = i;
            }
            CHECK_EQ(m, k);
            memplan_offsets::merge_sort_by_rank(rank, expected.data(), m, def.data(), end.data(), size.data(),
                                                scratch.data());
            CHECK(std::equal(radix.begin(), radix.begin() + m, expected.begin()));
        }
    }
}

}  // namespace

void run_rank_order_tests() {
    run_case("offsets: radix rank order matches the comparison sort", test_offsets_radix_rank_matches_comparison_sort);
}

}  // namespace memplan_test
