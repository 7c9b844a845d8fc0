// SPDX-License-Identifier: Apache-2.0
// canonical_decoder.h - MiniMalloc's canonical decoder with a lazy heap:
// CanonicalDecoder.java, name for name (docs/design.md §5b, step 4).

#ifndef MEMPLAN_CANONICAL_DECODER_H
#define MEMPLAN_CANONICAL_DECODER_H

#include <algorithm>

#include "skyline_tree.h"

namespace memplan_offsets {

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

}  // namespace memplan_offsets

#endif  // MEMPLAN_CANONICAL_DECODER_H
