// SPDX-License-Identifier: Apache-2.0
// search_cost.h - what the phases past the sweep would cost, from one pass
// over the buffers: SearchCost.java, name for name (docs/design.md §5b, step 3).

#ifndef MEMPLAN_SEARCH_COST_H
#define MEMPLAN_SEARCH_COST_H

#include <algorithm>
#include <climits>

namespace memplan_offsets {

// The fit's limits: list entries per buffer, and neighbour visits per buffer and effort unit.
constexpr long long kFitEntriesPerBuffer = 8;
constexpr long long kFitWorkPerBuffer = 64;
constexpr long long kWorkCap = LLONG_MAX / 2;  // SearchCost::work saturates here

// What the search phases would cost (see SearchCost.java), from one
// pass over the buffers with a size. delta holds num_positions + 1 longs of scratch.
struct SearchCost {
    long long entries;
    long long work;
    long long sized;

    bool fit_runs(int n, int effort) const {
        return entries <= kFitEntriesPerBuffer * n && entries <= INT_MAX && work <= effort * kFitWorkPerBuffer * n;
    }

    long long expected_pops(int num_positions) const {
        const long long average_live = entries / num_positions;
        return sized * (2 + average_live / 8);
    }
};

inline SearchCost search_cost_of(int num_positions, int n, const int* def, const int* use_end, const long long* size,
                                 long long* delta) {
    for (int p = 0; p <= num_positions; ++p) delta[p] = 0;
    SearchCost cost{0, 0, 0};
    for (int i = 0; i < n; ++i) {
        if (size[i] != 0) {
            delta[def[i]]++;
            delta[use_end[i] + 1]--;
            cost.sized++;
        }
    }
    long long live = 0;
    for (int p = 0; p < num_positions; ++p) {
        live += delta[p];
        cost.entries += live;
        cost.work = std::min(cost.work + live * live, kWorkCap);  // live * live <= 2^60: no overflow
    }
    return cost;
}

}  // namespace memplan_offsets

#endif  // MEMPLAN_SEARCH_COST_H
