// SPDX-License-Identifier: Apache-2.0
// sweep.h - the sweep best fit over positions, which can pause above a limit
// and carry on: Sweep.java, name for name (docs/design.md §5b, step 2).

#ifndef MEMPLAN_SWEEP_H
#define MEMPLAN_SWEEP_H

#include <climits>

#include "gap_arena.h"

namespace memplan_offsets {

// Sweep::run's limit when it should run to the end, and its result when it paused.
constexpr long long kNoLimit = LLONG_MAX;
constexpr long long kStopped = -1;


// Buffers grouped by key[i] (a position), ascending index within a group: CSR.
inline void bucket(int num_positions, const int* key, int n, int* offsets, int* cursor, int* out) {
    for (int p = 0; p <= num_positions; ++p) offsets[p] = 0;
    for (int i = 0; i < n; ++i) offsets[key[i] + 1]++;
    for (int p = 0; p < num_positions; ++p) offsets[p + 1] += offsets[p];
    for (int p = 0; p < num_positions; ++p) cursor[p] = offsets[p];
    for (int i = 0; i < n; ++i) out[cursor[key[i]]++] = i;
}

// The sweep (see Sweep.java): run() stops as soon as the arena passes
// stop_above (returning kStopped) and the next call carries on from there.
// Scratch as sized by memplan_offsets_plan.
struct Sweep {
    int num_positions;
    const long long* size;
    long long* offset;
    int* start_offsets;
    int* starts;
    int* end_offsets;
    int* ends;
    GapArena& arena;
    int position = 0;  // where to carry on, and whether its buffers are already placed
    bool starts_placed = false;
    long long peak = 0;
    // C++ only: the buffers come sorted by def (a compiled schedule's owners do), so the ones
    // starting at p are start_offsets[p] .. start_offsets[p + 1] themselves and `starts` is unused.
    bool identity_starts = false;

    void init(int n, const int* def, const int* use_end, int* cursor) {
        bucket(num_positions, def, n, start_offsets, cursor, starts);
        bucket(num_positions, use_end, n, end_offsets, cursor, ends);
        long long live_sum = 0;  // positions each buffer with a size is live, summed
        for (int i = 0; i < n; ++i) {
            if (size[i] != 0) live_sum += static_cast<long long>(use_end[i]) - def[i] + 1;
        }
        init_arena(live_sum);
    }

    // The rest of init, for a caller that made the buckets itself (memplan_offsets_plan: in one
    // pass with its argument check) and summed live_sum as init does.
    void init_arena(long long live_sum) {
        arena.init();
        arena.classed = live_sum >= kClassedAverageLive * num_positions;
    }

    long long run(long long stop_above) {
        // Locals, not the members, in the loop: the offset stores could alias them.
        long long top_so_far = peak;
        bool placed = starts_placed;
        for (int p = position; p < num_positions; ++p) {
            if (!placed) {
                for (int k = start_offsets[p]; k < start_offsets[p + 1]; ++k) {
                    const int i = identity_starts ? k : starts[k];
                    const long long bytes = size[i];
                    if (bytes == 0) {
                        offset[i] = 0;
                        arena.seg[i].length = 0;  // so its release reads only its segment, below
                    } else {
                        offset[i] = arena.allocate(i, bytes);
                    }
                }
                if (arena.top > top_so_far) {
                    top_so_far = arena.top;
                    if (top_so_far > stop_above) {
                        position = p;
                        starts_placed = true;
                        peak = top_so_far;
                        return kStopped;
                    }
                }
            }
            for (int k = end_offsets[p]; k < end_offsets[p + 1]; ++k) {
                const int i = ends[k];
                // A placed buffer's length is its size: the segment the release reads anyway,
                // not a second random read of the sizes (C++ only; Sweep.java reads the size).
                if (arena.seg[i].length != 0) arena.release(i);
            }
            placed = false;
        }
        position = num_positions;
        starts_placed = false;
        peak = top_so_far;
        return peak;
    }
};

}  // namespace memplan_offsets

#endif  // MEMPLAN_SWEEP_H
