// SPDX-License-Identifier: Apache-2.0
// skyline_tree.h - the highest top over positions (range max, range raise)
// that the canonical decoder reads: SkylineTree.java, name for name.

#ifndef MEMPLAN_SKYLINE_TREE_H
#define MEMPLAN_SKYLINE_TREE_H

#include <algorithm>

namespace memplan_offsets {

// Average interval length up to which the skyline is flat: a plain array (a
// query or raise walks the interval) rather than a segment tree (two root
// paths). See SkylineTree.FLAT_SKYLINE_LENGTH.
constexpr long long kFlatSkylineLength = 64;

// Whether the skyline for these buffers is flat (SkylineTree.isFlat): decided
// by the phase driver, once, before the rank decodes.
inline bool skyline_is_flat(int n, const int* def, const int* use_end, const long long* size) {
    long long total_length = 0;
    long long sized = 0;
    for (int i = 0; i < n; ++i) {
        if (size[i] != 0) {
            total_length += static_cast<long long>(use_end[i]) - def[i] + 1;
            sized++;
        }
    }
    return total_length <= kFlatSkylineLength * std::max(sized, 1LL);
}

// Highest top over positions: range max and range raise (see SkylineTree.java):
// a plain array of heights when flat, else a segment tree with max-tags.
struct SkylineTree {
    bool flat;
    int leaves;
    int num_positions;
    long long* max_;
    long long* tag;

    void reset() {
        const int cells = flat ? num_positions : 2 * leaves;
        for (int i = 0; i < cells; ++i) max_[i] = 0;
        if (!flat) {
            for (int i = 0; i < cells; ++i) tag[i] = 0;
        }
    }

    long long max(int a, int b) const {
        long long result = 0;
        if (flat) {
            for (int t = a; t <= b; ++t) result = std::max(result, max_[t]);
            return result;
        }
        int lo = a + leaves;
        int hi = b + leaves + 1;
        for (int i = lo >> 1; i >= 1; i >>= 1) result = std::max(result, tag[i]);
        for (int i = (hi - 1) >> 1; i >= 1; i >>= 1) result = std::max(result, tag[i]);
        for (; lo < hi; lo >>= 1, hi >>= 1) {
            if (lo & 1) result = std::max(result, max_[lo++]);
            if (hi & 1) result = std::max(result, max_[--hi]);
        }
        return result;
    }

    void raise(int a, int b, long long value) {
        if (flat) {
            for (int t = a; t <= b; ++t) max_[t] = value;
            return;
        }
        int lo = a + leaves;
        int hi = b + leaves + 1;
        for (int i = lo >> 1; i >= 1; i >>= 1) max_[i] = std::max(max_[i], value);
        for (int i = (hi - 1) >> 1; i >= 1; i >>= 1) max_[i] = std::max(max_[i], value);
        for (; lo < hi; lo >>= 1, hi >>= 1) {
            if (lo & 1) {
                max_[lo] = std::max(max_[lo], value);
                tag[lo] = std::max(tag[lo], value);
                lo++;
            }
            if (hi & 1) {
                --hi;
                max_[hi] = std::max(max_[hi], value);
                tag[hi] = std::max(tag[hi], value);
            }
        }
    }
};

}  // namespace memplan_offsets

#endif  // MEMPLAN_SKYLINE_TREE_H
