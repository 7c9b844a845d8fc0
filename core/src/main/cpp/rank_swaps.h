// SPDX-License-Identifier: Apache-2.0
// rank_swaps.h - the local search on the rank (improve, critical_rank):
// RankSwaps.java, name for name (docs/design.md §5b, step 5).

#ifndef MEMPLAN_RANK_SWAPS_H
#define MEMPLAN_RANK_SWAPS_H

#include <utility>

#include "canonical_decoder.h"

namespace memplan_offsets {

constexpr long long kImproveStepsPerEffort = 64;

// One step of the fixed xorshift sequence that makes the swaps deterministic.
inline unsigned long long xorshift(unsigned long long x) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
}

// A rank whose buffer's top is the arena's top: the (random mod count)-th such
// rank (see RankSwaps.criticalRank).
inline int critical_rank(const int* by_rank, int m, const long long* offset, const long long* size, long long peak,
                         unsigned long long random) {
    int count = 0;
    for (int r = 0; r < m; ++r) {
        const int b = by_rank[r];
        if (offset[b] + size[b] == peak) count++;
    }
    unsigned long long pick = random % static_cast<unsigned long long>(count > 0 ? count : 1);
    for (int r = 0; r < m; ++r) {
        const int b = by_rank[r];
        if (offset[b] + size[b] == peak && pick-- == 0) return r;
    }
    return 0;
}

// Local search on the rank (see RankSwaps.improve); by_rank is modified.
inline long long improve(CanonicalDecoder& canonical, int* by_rank, int m, long long steps, long long budget,
                         long long bound, long long peak, long long* offset, long long* kept, long long* candidate) {
    long long current = canonical.decode(by_rank, m, budget, kept);
    if (m < 2 || current < 0) return peak;
    unsigned long long random = 0x9E3779B97F4A7C15ULL;
    for (long long step = 0; step < steps && peak > bound; ++step) {
        random = xorshift(random);
        const int critical = critical_rank(by_rank, m, kept, canonical.size, current, random);
        random = xorshift(random);
        const int other = static_cast<int>(random % static_cast<unsigned long long>(m));
        if (other == critical) continue;
        std::swap(by_rank[critical], by_rank[other]);
        const long long p = canonical.decode(by_rank, m, budget, candidate);
        if (p < 0 || p > current) {
            std::swap(by_rank[critical], by_rank[other]);
            continue;
        }
        std::swap(kept, candidate);
        current = p;
        if (p < peak) {
            peak = p;
            for (int i = 0; i < canonical.n; ++i) offset[i] = kept[i];
        }
    }
    return peak;
}


}  // namespace memplan_offsets

#endif  // MEMPLAN_RANK_SWAPS_H
