// SPDX-License-Identifier: Apache-2.0
// Tests for sweep.h: a paused sweep finishes as an unpaused one.

#include "test_support.h"

namespace memplan_test {
namespace {

// A sweep paused at a limit and run on to the end plans exactly as one that never paused
// (OffsetPlannerFitTest.pausedSweepFinishesAsAnUnpausedOne).
void test_offsets_paused_sweep_finishes_as_unpaused() {
    std::mt19937 rng(9);
    for (int round = 0; round < 200; ++round) {
        const int positions = pick(rng, 1, 60);
        const int n = pick(rng, 0, 149);
        const std::size_t un = static_cast<std::size_t>(n);
        std::vector<int> def(un), end(un);
        std::vector<long long> size(un);
        for (std::size_t i = 0; i < un; ++i) {
            def[i] = pick(rng, 0, positions - 1);
            end[i] = def[i] + pick(rng, 0, std::min(5, positions - 1 - def[i]));
            size[i] = pick(rng, 0, 5) == 0 ? 0 : static_cast<long long>(pick(rng, 1, 1000));
        }
        const long long bytes = memplan_offsets_scratch_bytes(n, positions, 0);
        auto sweep_with = [&](std::vector<long long>& scratch, std::vector<long long>& offset,
                              memplan_offsets::GapArena& arena) {
            scratch.assign(static_cast<std::size_t>(bytes / 8 + 1), 0);
            offset.assign(un + 1, -5);
            const memplan_offsets::SweepScratch w = memplan_offsets::SweepScratch::carve(scratch.data(), n, positions);
            arena = memplan_offsets::GapArena{n, w.seg_start, w.seg_length, w.prev, w.next, w.left, w.right, w.free_ids, 0};
            memplan_offsets::Sweep sweep{positions, size.data(), offset.data(), w.start_offsets, w.starts,
                                         w.end_offsets, w.ends, arena};
            sweep.init(n, def.data(), end.data(), w.cursor);
            return sweep;
        };
        std::vector<long long> scratch_a, offset_a, scratch_b, offset_b;
        memplan_offsets::GapArena arena_a{}, arena_b{};
        memplan_offsets::Sweep whole = sweep_with(scratch_a, offset_a, arena_a);
        const long long peak = whole.run(memplan_offsets::kNoLimit);
        memplan_offsets::Sweep paused = sweep_with(scratch_b, offset_b, arena_b);
        long long limit = peak == 0 ? 0 : static_cast<long long>(pick(rng, 0, static_cast<int>(peak - 1)));
        int pauses = 0;
        long long result;
        while ((result = paused.run(limit)) == memplan_offsets::kStopped) {
            pauses++;
            limit += 1 + pick(rng, 0, 499);
        }
        CHECK_EQ(result, peak);
        CHECK(offset_a == offset_b);
        CHECK_EQ(peak > 0, pauses > 0);
    }
}

}  // namespace

void run_sweep_tests() {
    run_case("offsets: a paused sweep finishes as an unpaused one", test_offsets_paused_sweep_finishes_as_unpaused);
}

}  // namespace memplan_test
