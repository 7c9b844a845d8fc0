// SPDX-License-Identifier: Apache-2.0
// canonical_decoder.h - MiniMalloc's canonical decoder with a lazy heap:
// CanonicalDecoder.java, name for name (docs/design.md §5b, step 4).

#ifndef MEMPLAN_CANONICAL_DECODER_H
#define MEMPLAN_CANONICAL_DECODER_H

#include <algorithm>

#include "buffers.h"
#include "skyline_tree.h"

namespace memplan_offsets {

// Ranked buffers from which a rank decode first forecasts its pops from a
// sample, and about how many the sample holds (CanonicalDecoder.SAMPLE_MIN_BUFFERS, ...).
constexpr int kSampleMinBuffers = 1 << 18;
constexpr int kSampleBuffers = 1 << 14;

// MiniMalloc's canonical decoder with a lazy heap (see CanonicalDecoder.java).
struct CanonicalDecoder {
    int n;
    const int* def;
    const int* use_end;
    const long long* size;
    SkylineTree skyline;
    int* heap_rank;
    long long* heap_key;  // heap_key[i] belongs to heap_rank[i]
    long long pops = 0;

    static bool entry_less(long long key_a, int rank_a, long long key_b, int rank_b) {
        return key_a < key_b || (key_a == key_b && rank_a < rank_b);
    }

    // Floyd's bottom-up sift (see CanonicalDecoder.siftDown).
    void sift_down(long long k, int r, int heap_size) {
        int i = 0;
        while (true) {
            int c = 2 * i + 1;
            if (c >= heap_size) break;
            if (c + 1 < heap_size && entry_less(heap_key[c + 1], heap_rank[c + 1], heap_key[c], heap_rank[c])) c++;
            heap_rank[i] = heap_rank[c];
            heap_key[i] = heap_key[c];
            i = c;
        }
        sift_up(k, r, i);
    }

    void sift_up(long long k, int r, int i) {
        while (i > 0) {
            const int parent = (i - 1) >> 1;
            if (!entry_less(k, r, heap_key[parent], heap_rank[parent])) break;
            heap_rank[i] = heap_rank[parent];
            heap_key[i] = heap_key[parent];
            i = parent;
        }
        heap_rank[i] = r;
        heap_key[i] = k;
    }

    long long decode(const int* by_rank, int m, long long budget, long long* offset) {
        skyline.reset();
        for (int i = 0; i < n; ++i) offset[i] = 0;
        pops = 0;
        long long peak = 0;
        // Level 0 in rank order (see CanonicalDecoder.decode).
        int heap_size = 0;
        for (int r = 0; r < m; ++r) {
            if (++pops > budget) return -1;
            const int b = by_rank[r];
            const long long lowest = skyline.max(def[b], use_end[b]);
            if (lowest != 0) {
                sift_up(lowest, r, heap_size++);
                continue;
            }
            skyline.raise(def[b], use_end[b], size[b]);
            peak = std::max(peak, size[b]);
        }
        while (heap_size > 0) {
            if (++pops > budget) return -1;
            const int r = heap_rank[0];
            const int b = by_rank[r];
            const long long lowest = skyline.max(def[b], use_end[b]);
            if (lowest != heap_key[0]) {
                sift_down(lowest, r, heap_size);
                continue;
            }
            heap_size--;
            if (heap_size > 0) sift_down(heap_key[heap_size], heap_rank[heap_size], heap_size);
            offset[b] = lowest;
            const long long top_of_b = lowest + size[b];
            skyline.raise(def[b], use_end[b], top_of_b);
            if (top_of_b > peak) peak = top_of_b;
        }
        return peak;
    }
};

// CanonicalDecoder.sampleFits: 1 when a decode of by_rank (m ranked buffers) is
// forecast to stay within budget pops, from a decode of a time slice of them
// with its share of the budget; 0 when not; -1 when an allocation failed.
inline int sample_fits(int num_positions, const int* def, const int* use_end, const long long* size, bool flat,
                       const int* by_rank, int m, long long budget) {
    if (m < kSampleMinBuffers) return 1;
    Array<int> ends_at(num_positions);
    if (!ends_at.get()) return -1;
    for (int r = 0; r < m; ++r) ends_at[use_end[by_rank[r]]]++;
    int w = 0;
    long long k = 0;
    while (k < kSampleBuffers && w < num_positions) k += ends_at[w++];
    if (k * 4 > m) return 1;
    // The slice's buffers, indexed by their place in the rank order, so its rank order is 0, 1, 2...
    int leaves = 1;
    while (leaves < w) leaves <<= 1;
    Array<int> slice_def(k), slice_use_end(k), slice_rank(k), heap_rank(k);
    Array<long long> slice_size(k), heap_key(k), offset(k), tree_max(2LL * leaves), tree_tag(2LL * leaves);
    if (!slice_def.get() || !slice_use_end.get() || !slice_rank.get() || !heap_rank.get() || !slice_size.get() ||
        !heap_key.get() || !offset.get() || !tree_max.get() || !tree_tag.get()) {
        return -1;
    }
    int j = 0;
    for (int r = 0; r < m; ++r) {
        const int b = by_rank[r];
        if (use_end[b] < w) {
            slice_def[j] = def[b];
            slice_use_end[j] = use_end[b];
            slice_size[j] = size[b];
            slice_rank[j] = j;
            j++;
        }
    }
    const long long share = budget / m * k + budget % m * k / m;  // budget * k / m without overflow
    CanonicalDecoder slice{static_cast<int>(k), slice_def.get(), slice_use_end.get(), slice_size.get(),
                           SkylineTree{flat, leaves, w, tree_max.get(), tree_tag.get()}, heap_rank.get(),
                           heap_key.get()};
    return slice.decode(slice_rank.get(), static_cast<int>(k), share, offset.get()) >= 0 ? 1 : 0;
}

}  // namespace memplan_offsets

#endif  // MEMPLAN_CANONICAL_DECODER_H
