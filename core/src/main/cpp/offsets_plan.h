// SPDX-License-Identifier: Apache-2.0
// offsets_plan.h - the offsets planner's phase driver (docs/design.md §5b):
// memplan_offsets_plan and search are OffsetsPlan.plan and OffsetsPlan.search,
// guard for guard. The phases live in their own headers.

#ifndef MEMPLAN_OFFSETS_PLAN_H
#define MEMPLAN_OFFSETS_PLAN_H

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>

#include "abi.h"
#include "buffers.h"
#include "canonical_decoder.h"
#include "first_fit.h"
#include "offsets_scratch.h"
#include "rank_order.h"
#include "rank_swaps.h"
#include "search_cost.h"
#include "skyline_tree.h"
#include "sweep.h"
#include "valley_decoder.h"
#include "window_fit.h"

namespace memplan_offsets {

// Heap pops the canonical decodes may spend together, per buffer and per effort
// unit, plus an allowance per effort unit (OffsetsPlan.POPS_PER_BUFFER, ...).
constexpr long long kPopsPerBuffer = 32;
constexpr long long kPopsAllowance = 1024;
// Valley filling takes the rank decodes from this effort on, while its range
// tree holds at most this many entries (OffsetsPlan.VALLEY_MIN_EFFORT, ...).
constexpr int kValleyMinEffort = 2;
constexpr long long kValleyMaxEntries = 1LL << 24;
// search's result when an allocation failed (never a peak).
constexpr long long kOutOfMemory = -2;

// The phases past the sweep (OffsetsPlan.search), once the sweep has paused
// above the bound: the fit, the rest of the sweep unless the fit reached the
// bound, then the rank decodes and the rank swaps while the plan is still above
// the bound. Their arrays come from scratch past the sweep's when it is large
// enough, else from one allocation of this call; *ran_search says whether they
// ran. Returns the best peak (offset holds its plan), or kOutOfMemory.
inline long long search(int P, int n, const int* def, const int* use_end, const long long* size, int effort,
                        long long bound, long long* offset, void* scratch, long long scratch_bytes,
                        const SweepScratch& w, Sweep& sweep, bool* ran_search) {
    const SearchCost cost = search_cost_of(P, n, def, use_end, size, w.delta);
    const bool run_fit = cost.fit_runs(n, effort);
    long long budget = static_cast<long long>(effort) * (kPopsPerBuffer * n + kPopsAllowance);
    const long long expected_pops = cost.expected_pops(P);
    const bool may_decode = expected_pops <= budget;
    // Valley filling gives the lazy heap's plans (docs/design.md §5b): from effort 2 it takes the
    // rank decodes wherever it is forecast cheaper, alone where the heap is ruled out. Each
    // decode is charged its range tree's entries.
    const long long valley_cost = ValleyDecoder::entries_for(cost.sized, P);
    const bool use_valley = effort >= kValleyMinEffort && valley_cost <= budget && valley_cost <= kValleyMaxEntries &&
                            (!may_decode || valley_cost < expected_pops);
    // Where the fit's per-position lists cost too much, wide graphs find neighbours in start
    // order instead, and window swaps improve that plan at the end.
    bool run_wide = false;
    if (!run_fit) {
        const long long visits = window_fit_visits(P, n, def, use_end, size);
        if (visits < 0) return kOutOfMemory;
        run_wide = window_fit_runs(visits, n, effort);
    }
    if (!run_fit && !run_wide && !may_decode && !use_valley) return sweep.run(kNoLimit);
    *ran_search = true;
    const long long canonical_bytes = CanonicalScratch::bytes(n, P);
    const bool in_scratch = scratch_bytes >= memplan_offsets_scratch_bytes(n, P, 1);
    Array<long long> own(in_scratch ? 1 : (canonical_bytes + FitScratch::bytes(n, P)) / 8 + 1);
    if (!own.get()) return kOutOfMemory;
    char* block = in_scratch ? static_cast<char*>(scratch) + SweepScratch::bytes(n, P) : reinterpret_cast<char*>(own.get());
    const CanonicalScratch c = CanonicalScratch::carve(block, n, P);
    int m = 0;
    bool have_size_rank = false;
    long long fit_peak = kNoLimit;
    std::optional<WindowFit> wide;
    if (run_fit || run_wide) {
        m = rank_order(kRankSize, n, def, use_end, size, c.by_rank, c.sort_scratch, c.length, c.histogram);
        have_size_rank = true;
        if (run_fit) {
            const FitScratch f = FitScratch::carve(block + canonical_bytes, n, P);
            FirstFit fit{P, def, use_end, size, f.list_start, f.list_end, f.entries, f.seen, f.overlapping,
                         f.sort_scratch};
            fit_peak = fit.place(c.by_rank, m, n, c.trial);
        } else {
            wide.emplace(P, def, use_end, size, n, m);
            if (!wide->allocated()) return kOutOfMemory;
            fit_peak = wide->place(c.by_rank, m, c.trial);
        }
        if (fit_peak <= bound) {
            for (int i = 0; i < n; ++i) offset[i] = c.trial[i];
            return fit_peak;
        }
    }
    long long peak = sweep.run(kNoLimit);
    if (fit_peak < peak) {
        peak = fit_peak;
        for (int i = 0; i < n; ++i) offset[i] = c.trial[i];
    }
    // Window swaps improve the wide fit's plan where its arena's top is (docs/design.md §5b, step 3).
    if (wide && peak > bound) {
        const long long p = wide->improve(effort * kSwapStepsPerEffort, effort * kSwapVisitsPerBuffer * n, bound,
                                          c.trial);
        if (p < peak) {
            peak = p;
            for (int i = 0; i < n; ++i) offset[i] = c.trial[i];
        }
    }
    if ((!may_decode && !use_valley) || peak <= bound) return peak;
    // The lazy heap's decoder (its arrays are scratch here, so it is set up even where only the
    // valley decoder runs) and the valley decoder where it takes the rank decodes.
    const bool flat = skyline_is_flat(n, def, use_end, size);
    CanonicalDecoder canonical{n, def, use_end, size,
                               SkylineTree{flat, static_cast<int>(CanonicalScratch::leaves_for(P)), P, c.tree_max,
                                           c.tree_tag},
                               c.heap_rank, c.heap_key};
    std::optional<ValleyDecoder> valley;
    if (use_valley) {
        valley.emplace(P, def, use_end, size, n, static_cast<int>(cost.sized));
        if (!valley->allocated()) return kOutOfMemory;
    }
    // One decode per rank, by valley filling or by the lazy heap; the best ranks seed the rank swaps.
    bool have_ranks = false;
    for (int rank = 0; rank < kNumRanks && peak > bound && budget >= (use_valley ? valley_cost : 1); ++rank) {
        if (rank != kRankSize || !have_size_rank) {
            m = rank_order(rank, n, def, use_end, size, c.by_rank, c.sort_scratch, c.length, c.histogram);
        }
        long long p;
        if (use_valley) {
            p = valley->decode(c.by_rank, m, c.trial);
            budget -= valley_cost;
        } else {
            const int fits = sample_fits(P, def, use_end, size, flat, c.by_rank, m, budget);
            if (fits < 0) return kOutOfMemory;
            if (fits) {
                p = canonical.decode(c.by_rank, m, budget, c.trial);
                budget -= canonical.pops;
            } else {
                p = -1;  // its sample ran out of its share: skipped, as the decode is forecast to run out too
            }
        }
        if (p >= 0 && p < peak) {
            peak = p;
            for (int i = 0; i < n; ++i) offset[i] = c.trial[i];
            for (int r = 0; r < m; ++r) c.best_ranks[r] = c.by_rank[r];
            have_ranks = true;
        } else if (!have_ranks && p >= 0) {
            for (int r = 0; r < m; ++r) c.best_ranks[r] = c.by_rank[r];
            have_ranks = true;
        }
    }
    // Rank swaps decode with the lazy heap, one effort unit of pops each.
    if (may_decode && effort >= 2 && have_ranks && peak > bound) {
        const long long per_decode = kPopsPerBuffer * n + kPopsAllowance;
        peak = improve(canonical, c.best_ranks, m, (effort - 1) * kImproveStepsPerEffort, per_decode, bound, peak,
                       offset, c.trial, c.candidate);
    }
    return peak;
}

}  // namespace memplan_offsets

// Places num_owners buffers with live intervals [owner_def, owner_use_end]
// (inclusive positions in [0, num_positions)) at byte offsets in one arena;
// writes owner_offset and stats {peak, naive, lower bound, whether a phase
// past the sweep ran}: OffsetsPlan.plan, after checking every argument.
// scratch holds at least memplan_offsets_scratch_bytes(n, P, 0) bytes, 8-byte
// aligned, contents ignored; with (n, P, 1) bytes the fit and canonical phases
// allocate nothing either (the valley decoder, at effort >= 2, and the wide
// fit allocate their own). A caller that sees stats[MEMPLAN_OFFSETS_STAT_RAN_SEARCH] == 1 can
// offer the larger block next time.
inline int memplan_offsets_plan(int num_owners, int num_positions, const int* owner_def, const int* owner_use_end,
                                const long long* owner_size, int effort, long long* owner_offset, long long* stats,
                                void* scratch, long long scratch_bytes) {
    using namespace memplan_offsets;
    if (stats == nullptr) return MEMPLAN_BAD_ARGUMENT;
    for (int i = 0; i < MEMPLAN_NUM_STATS; ++i) stats[i] = 0;
    if (num_owners < 0 || num_positions < 1 || effort < 0 || effort > MEMPLAN_MAX_EFFORT) return MEMPLAN_BAD_ARGUMENT;
    if (num_positions > (INT_MAX - 2) / 2 || num_owners > (INT_MAX - 2) / 2) return MEMPLAN_BAD_ARGUMENT;
    if (num_owners > 0 && (owner_def == nullptr || owner_use_end == nullptr || owner_size == nullptr ||
                           owner_offset == nullptr)) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    if (scratch == nullptr || reinterpret_cast<std::uintptr_t>(scratch) % alignof(long long) != 0 ||
        scratch_bytes < memplan_offsets_scratch_bytes(num_owners, num_positions, 0)) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    const int n = num_owners;
    const int P = num_positions;
    const SweepScratch w = SweepScratch::carve(scratch, n, P);
    GapArena arena{n, w.seg, w.free_ids, 0};
    Sweep sweep{P, owner_size, owner_offset, w.start_offsets, w.starts, w.end_offsets, w.ends, arena};
    // One pass over the buffers checks each (before it indexes anything) and does what
    // lower_bound and Sweep::init would each do in passes of their own: the bound's difference
    // array, the count of buffers starting and ending at each position, the live sum; and notes
    // whether the defs come sorted, so that the starts need no placing (C++ only: the buffers
    // starting at p are then start_offsets[p] .. start_offsets[p + 1] themselves, the order
    // Sweep::init's bucket gives them).
    for (int p = 0; p <= P; ++p) {
        w.delta[p] = 0;
        w.start_offsets[p] = 0;
        w.end_offsets[p] = 0;
    }
    long long naive = 0;
    long long live_sum = 0;
    bool sorted = true;
    int last_def = 0;
    for (int i = 0; i < n; ++i) {
        const int d = owner_def[i];
        const int e = owner_use_end[i];
        const long long s = owner_size[i];
        if (d < 0 || e < d || e >= P) return MEMPLAN_BAD_ARGUMENT;
        if (s < 0) return MEMPLAN_BAD_ARGUMENT;
        if (memplan_detail::add_overflows(naive, s, &naive)) return MEMPLAN_OVERFLOW;
        sorted = sorted && d >= last_def;
        last_def = d;
        w.delta[d] += s;
        w.delta[e + 1] -= s;
        w.start_offsets[d + 1]++;
        w.end_offsets[e + 1]++;
        if (s != 0) live_sum += static_cast<long long>(e) - d + 1;
    }
    // The bound, and bucket's prefix sums of both counts, in one pass over the positions.
    long long bound = 0;
    long long live = 0;
    for (int p = 0; p < P; ++p) {
        live += w.delta[p];
        if (live > bound) bound = live;
        w.start_offsets[p + 1] += w.start_offsets[p];
        w.end_offsets[p + 1] += w.end_offsets[p];
        w.cursor[p] = w.end_offsets[p];
    }
    for (int i = 0; i < n; ++i) w.ends[w.cursor[owner_use_end[i]]++] = i;
    if (sorted) {
        sweep.identity_starts = true;
    } else {
        for (int p = 0; p < P; ++p) w.cursor[p] = w.start_offsets[p];
        for (int i = 0; i < n; ++i) w.starts[w.cursor[owner_def[i]]++] = i;
    }
    sweep.init_arena(live_sum);
    // At effort >= 1 the sweep pauses as soon as it passes the bound: the fit may reach the bound
    // (a U-Net's does), and then the rest of the sweep is not needed.
    long long peak = sweep.run(effort >= 1 ? bound : kNoLimit);
    if (peak == kStopped) {
        bool ran_search = false;
        peak = search(P, n, owner_def, owner_use_end, owner_size, effort, bound, owner_offset, scratch, scratch_bytes,
                      w, sweep, &ran_search);
        if (peak == kOutOfMemory) return MEMPLAN_OUT_OF_MEMORY;
        stats[MEMPLAN_OFFSETS_STAT_RAN_SEARCH] = ran_search ? 1 : 0;
    }
    stats[MEMPLAN_OFFSETS_STAT_PEAK_BYTES] = peak;
    stats[MEMPLAN_OFFSETS_STAT_NAIVE_BYTES] = naive;
    stats[MEMPLAN_OFFSETS_STAT_LOWER_BOUND_BYTES] = bound;
    return MEMPLAN_OK;
}

#endif  // MEMPLAN_OFFSETS_PLAN_H
