// SPDX-License-Identifier: Apache-2.0
// Tests for gap_arena.h: size classes never change which gap the sweep takes.

#include "test_support.h"

namespace memplan_test {
namespace {

// Size classes change how the sweep finds the best fit, never which gap it is
// (OffsetPlannerFitTest.sizeClassesDoNotChangeTheSweep): the same plan with and
// without them, on narrow and wide instances alike.
void test_offsets_size_classes_do_not_change_the_sweep() {
    std::mt19937 rng(11);
    for (int round = 0; round < 200; ++round) {
        const int positions = pick(rng, 1, 80);
        const int n = pick(rng, 0, 399);
        const std::size_t un = static_cast<std::size_t>(n);
        const bool wide = pick(rng, 0, 1) == 1;
        std::vector<int> def(un), end(un);
        std::vector<long long> size(un);
        for (std::size_t i = 0; i < un; ++i) {
            def[i] = pick(rng, 0, positions - 1);
            end[i] = def[i] + pick(rng, 0, wide ? positions - 1 - def[i] : std::min(5, positions - 1 - def[i]));
            const int bits = pick(rng, 0, 20);
            size[i] = pick(rng, 0, 9) == 0 ? 0 : (1LL << bits) + pick(rng, 0, (1 << bits) - 1);
        }
        const long long bytes = memplan_offsets_scratch_bytes(n, positions, 0);
        std::vector<long long> plans[2];
        long long peaks[2];
        for (int classed = 0; classed < 2; ++classed) {
            std::vector<long long> scratch(static_cast<std::size_t>(bytes / 8 + 1), 0);
            plans[classed].assign(un + 1, -5);
            const memplan_offsets::SweepScratch w = memplan_offsets::SweepScratch::carve(scratch.data(), n, positions);
            memplan_offsets::GapArena arena{n, w.seg, w.free_ids, 0};
            memplan_offsets::Sweep sweep{positions, size.data(), plans[classed].data(), w.start_offsets, w.starts,
                                         w.end_offsets, w.ends, arena};
            sweep.init(n, def.data(), end.data(), w.cursor);
            arena.classed = classed == 1;
            peaks[classed] = sweep.run(memplan_offsets::kNoLimit);
        }
        CHECK_EQ(peaks[0], peaks[1]);
        CHECK(plans[0] == plans[1]);
        plans[1].resize(un);
        CHECK(offsets_valid(def, end, size, plans[1], peaks[1]));
    }
}

}  // namespace

void run_gap_arena_tests() {
    run_case("offsets: size classes do not change the sweep", test_offsets_size_classes_do_not_change_the_sweep);
}

}  // namespace memplan_test
