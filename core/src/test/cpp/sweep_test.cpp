// SPDX-License-Identifier: Apache-2.0
// Tests for sweep.h: a paused sweep finishes as an unpaused one.

#include <algorithm>

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
            arena = memplan_offsets::GapArena{n, w.seg, w.free_ids, 0};
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

// memplan_offsets_plan makes the sweep's buckets in its own pass, and for buffers sorted by def
// (a compiled schedule's owners) none for the starts: at effort 0 its plan is the plain sweep's,
// Sweep::init's buckets and all, on sorted and unsorted defs alike, narrow and wide.
void test_offsets_plan_sweeps_as_sweep_init() {
    std::mt19937 rng(2026120);
    for (int round = 0; round < 300 && g_case_failures == 0; ++round) {
        const int positions = pick(rng, 1, 60);
        const int n = pick(rng, 0, 300);
        const std::size_t un = static_cast<std::size_t>(n);
        const bool wide = pick(rng, 0, 1) == 1;
        std::vector<int> def(un), end(un);
        std::vector<long long> size(un);
        for (std::size_t i = 0; i < un; ++i) {
            def[i] = pick(rng, 0, positions - 1);
            end[i] = def[i] + pick(rng, 0, wide ? positions - 1 - def[i] : std::min(4, positions - 1 - def[i]));
            size[i] = pick(rng, 0, 6) == 0 ? 0 : static_cast<long long>(pick(rng, 1, 1 << pick(rng, 0, 16)));
        }
        if (round % 2 == 0) {  // sorted by def, as a compiled schedule's owners are
            std::vector<std::size_t> order(un);
            for (std::size_t i = 0; i < un; ++i) order[i] = i;
            std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return def[a] < def[b]; });
            std::vector<int> d2(un), e2(un);
            std::vector<long long> s2(un);
            for (std::size_t i = 0; i < un; ++i) {
                d2[i] = def[order[i]];
                e2[i] = end[order[i]];
                s2[i] = size[order[i]];
            }
            def.swap(d2);
            end.swap(e2);
            size.swap(s2);
        }
        const OffsetsRun planned = run_offsets(positions, def, end, size, 0);
        CHECK_EQ(planned.rc, MEMPLAN_OK);
        const long long bytes = memplan_offsets_scratch_bytes(n, positions, 0);
        std::vector<long long> scratch(static_cast<std::size_t>(bytes / 8 + 1), 0);
        std::vector<long long> plan(un + 1, -5);
        const memplan_offsets::SweepScratch w = memplan_offsets::SweepScratch::carve(scratch.data(), n, positions);
        memplan_offsets::GapArena arena{n, w.seg, w.free_ids, 0};
        memplan_offsets::Sweep sweep{positions, size.data(), plan.data(), w.start_offsets, w.starts, w.end_offsets,
                                     w.ends, arena};
        sweep.init(n, def.data(), end.data(), w.cursor);
        const long long peak = sweep.run(memplan_offsets::kNoLimit);
        plan.resize(un);
        CHECK_EQ(planned.stats[0], peak);
        CHECK(planned.offset == plan);
        CHECK_EQ(planned.stats[2], naive_lower_bound(positions, def, end, size));
    }
}

}  // namespace

void run_sweep_tests() {
    run_case("offsets: a paused sweep finishes as an unpaused one", test_offsets_paused_sweep_finishes_as_unpaused);
    run_case("offsets: the plan's own buckets sweep as Sweep::init's", test_offsets_plan_sweeps_as_sweep_init);
}

}  // namespace memplan_test
