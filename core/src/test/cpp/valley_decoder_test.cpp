// SPDX-License-Identifier: Apache-2.0
// Tests for valley_decoder.h: the same plans as the canonical decoder.

#include "test_support.h"

namespace memplan_test {
namespace {

// The valley decoder places every buffer where the canonical decoder does, for
// every rank (OffsetPlannerValleyTest.valleyDecoderMatchesTheCanonicalDecoder):
// few distinct sizes and one-step buffers make ties in heights and ranks common.
void test_offsets_valley_matches_canonical() {
    std::mt19937 rng(10);
    for (int round = 0; round < 300; ++round) {
        const int positions = pick(rng, 1, 60);
        const int n = pick(rng, 0, 149);
        const std::size_t un = static_cast<std::size_t>(n);
        std::vector<int> def(un), end(un);
        std::vector<long long> size(un);
        const int kinds = pick(rng, 1, 4);
        for (std::size_t i = 0; i < un; ++i) {
            def[i] = pick(rng, 0, positions - 1);
            const int longest = pick(rng, 0, 2) == 0 ? 3 : positions - def[i];
            end[i] = std::min(positions - 1, def[i] + pick(rng, 0, longest - 1));
            size[i] = pick(rng, 0, 9) == 0 ? 0 : static_cast<long long>(pick(rng, 1, kinds)) * (pick(rng, 0, 1) ? 8 : 16);
        }
        int sized = 0;
        for (std::size_t i = 0; i < un; ++i) sized += size[i] != 0 ? 1 : 0;
        const int leaves = memplan_offsets::ValleyDecoder::leaves_for(positions);
        std::vector<long long> tree_max(2 * static_cast<std::size_t>(leaves)), tree_tag(2 * static_cast<std::size_t>(leaves));
        std::vector<int> heap_rank(un + 1);
        std::vector<long long> heap_key(un + 1);
        memplan_offsets::CanonicalDecoder canonical{n, def.data(), end.data(), size.data(),
                                             memplan_offsets::SkylineTree{false, leaves, positions, tree_max.data(),
                                                                          tree_tag.data()},
                                             heap_rank.data(), heap_key.data()};
        memplan_offsets::ValleyDecoder valley(positions, def.data(), end.data(), size.data(), n, sized);
        CHECK(valley.allocated());
        for (int rank = 0; rank < memplan_offsets::kNumRanks; ++rank) {
            std::vector<int> by_rank(un + 1), sort_scratch(un + 1), histogram(memplan_offsets::kRadixBuckets);
            std::vector<long long> length(un + 1);
            const int m = memplan_offsets::rank_order(rank, n, def.data(), end.data(), size.data(), by_rank.data(),
                                                      sort_scratch.data(), length.data(), histogram.data());
            std::vector<long long> expected(un + 1, -3), offset(un + 1, -4);
            const long long expected_peak = canonical.decode(by_rank.data(), m, LLONG_MAX / 4, expected.data());
            const long long peak = valley.decode(by_rank.data(), m, offset.data());
            expected.resize(un);
            offset.resize(un);
            CHECK_EQ(peak, expected_peak);
            CHECK(offset == expected);
            CHECK(offsets_valid(def, end, size, offset, peak));
        }
    }
}

}  // namespace

void run_valley_decoder_tests() {
    run_case("offsets: valley decoder matches the canonical decoder", test_offsets_valley_matches_canonical);
}

}  // namespace memplan_test
