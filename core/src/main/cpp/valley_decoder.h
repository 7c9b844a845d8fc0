// SPDX-License-Identifier: Apache-2.0
// valley_decoder.h - the canonical decoder computed as valley filling, for
// graphs too wide for the lazy heap: ValleyDecoder.java, name for name
// (docs/design.md §5b, step 4).

#ifndef MEMPLAN_VALLEY_DECODER_H
#define MEMPLAN_VALLEY_DECODER_H

#include <algorithm>
#include <climits>

#include "buffers.h"
#include "sweep.h"

namespace memplan_offsets {

// The canonical decoder as valley filling (see ValleyDecoder.java, name for
// name): the lowest flat stretch of the skyline takes the best-ranked unplaced
// buffer inside it, or rises to its lower neighbour. Same plans as CanonicalDecoder.
struct ValleyDecoder {
    // An empty min-tree cell (a placed buffer's, or no buffer fits a stretch): above
    // every rank, so a min ignores it. Not NONE, which is -1 everywhere.
    static constexpr int kNoRank = INT_MAX;

    int num_positions;
    const int* def;
    const int* use_end;
    const long long* size;
    int n;
    int leaves;
    Array<int> node_start;  // 2 * leaves + 1
    Array<int> entries;
    Array<int> min_tree;    // 2 * entries
    Array<int> rank_of;     // n
    Array<int> by_end;      // n, and the bucket cursors: num_positions + 1 each
    Array<int> end_offsets;
    Array<int> cursor;
    Array<int> fill;        // 2 * leaves
    Array<int> stretch_start;  // 3 * sized + 1, and so on
    Array<int> stretch_end;
    Array<long long> stretch_height;
    Array<int> before;
    Array<int> after;
    Array<char> alive;
    int num_stretches = 0;
    Array<int> heap;           // 5 * sized + 2, and so on
    Array<long long> heap_height;
    Array<int> heap_start;
    int heap_size = 0;
    const int* by_rank = nullptr;
    bool laid_out = false;

    static int leaves_for(int num_positions) {
        int leaves = 1;
        while (leaves < num_positions) leaves <<= 1;
        return leaves;
    }

    static long long entries_for(long long sized, int num_positions) {
        return sized * (__builtin_ctz(static_cast<unsigned>(leaves_for(num_positions))) + 1LL);
    }

    ValleyDecoder(int P, const int* d, const int* e, const long long* s, int count, int sized)
        : num_positions(P), def(d), use_end(e), size(s), n(count), leaves(leaves_for(P)),
          node_start(2LL * leaves + 1), entries(entries_for(sized, P)), min_tree(2 * entries_for(sized, P)),
          rank_of(count), by_end(count), end_offsets(P + 1LL), cursor(P + 1LL), fill(2LL * leaves),
          stretch_start(3LL * sized + 1), stretch_end(3LL * sized + 1), stretch_height(3LL * sized + 1),
          before(3LL * sized + 1), after(3LL * sized + 1), alive(3LL * sized + 1), heap(5LL * sized + 2),
          heap_height(5LL * sized + 2), heap_start(5LL * sized + 2) {}

    bool allocated() const {
        return node_start.get() && entries.get() && min_tree.get() && rank_of.get() && by_end.get() &&
               end_offsets.get() && cursor.get() && fill.get() && stretch_start.get() && stretch_end.get() &&
               stretch_height.get() && before.get() && after.get() && alive.get() && heap.get() &&
               heap_height.get() && heap_start.get();
    }

    // Places the m buffers of ranks (every buffer with a size, in rank order);
    // writes every offset (0 for the others) and returns the arena size, or -1
    // if a buffer fit no stretch (cannot happen).
    long long decode(const int* ranks, int m, long long* offset) {
        for (int i = 0; i < n; ++i) offset[i] = 0;
        by_rank = ranks;
        if (m == 0) return 0;
        if (!laid_out) lay_out_range_tree();
        fill_min_trees(m);
        num_stretches = 0;
        heap_size = 0;
        push(new_stretch(0, num_positions, 0));
        long long peak = 0;
        int left = m;
        while (left > 0) {
            const int s = pop();
            const int b = best_inside(stretch_start[s], stretch_end[s]);
            if (b >= 0) {
                const long long h = stretch_height[s];
                offset[b] = h;
                peak = std::max(peak, h + size[b]);
                left--;
                remove(b);
                split(s, b);
            } else if (!raise(s)) {
                return -1;
            }
        }
        return peak;
    }

    // The nodes' buffers by (end, index), the same for every rank order (they are
    // the buffers with a size), so laid out once, at the first decode.
    void lay_out_range_tree() {
        for (int v = 0; v <= 2 * leaves; ++v) node_start[v] = 0;
        for (int b = 0; b < n; ++b) {
            if (size[b] == 0) continue;
            for (int v = def[b] + leaves; v >= 1; v >>= 1) node_start[v + 1]++;
        }
        for (int v = 1; v <= 2 * leaves - 1; ++v) node_start[v + 1] += node_start[v];
        for (int v = 0; v < 2 * leaves; ++v) fill[v] = node_start[v];
        bucket(num_positions, use_end, n, end_offsets.get(), cursor.get(), by_end.get());
        for (int k = 0; k < n; ++k) {  // ascending end, then index
            const int b = by_end[k];
            if (size[b] == 0) continue;
            for (int v = def[b] + leaves; v >= 1; v >>= 1) entries[fill[v]++] = b;
        }
        laid_out = true;
    }

    // Each node's min-tree over the ranks of this decode's order.
    void fill_min_trees(int m) {
        for (int r = 0; r < m; ++r) rank_of[by_rank[r]] = r;
        for (int v = 1; v < 2 * leaves; ++v) {
            const long long base = 2LL * node_start[v];
            const int k = node_start[v + 1] - node_start[v];
            for (int j = 0; j < k; ++j) min_tree[base + k + j] = rank_of[entries[node_start[v] + j]];
            for (int j = k - 1; j >= 1; --j) min_tree[base + j] = std::min(min_tree[base + 2 * j], min_tree[base + 2 * j + 1]);
        }
    }

    int best_inside(int a, int b) const {
        int best = kNoRank;
        for (int lo = a + leaves, hi = b + leaves; lo < hi; lo >>= 1, hi >>= 1) {
            if (lo & 1) best = std::min(best, best_ending_before(lo++, b));
            if (hi & 1) best = std::min(best, best_ending_before(--hi, b));
        }
        return best == kNoRank ? -1 : by_rank[best];
    }

    int best_ending_before(int v, int b) const {
        const int first = node_start[v];
        const int k = node_start[v + 1] - first;
        int lo = 0;
        int hi = k;
        while (lo < hi) {  // the first entry ending at or after b
            const int mid = static_cast<int>((static_cast<unsigned>(lo) + static_cast<unsigned>(hi)) >> 1);
            if (use_end[entries[first + mid]] < b) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        int best = kNoRank;
        const long long base = 2LL * first;
        for (int l = k, r = k + lo; l < r; l >>= 1, r >>= 1) {
            if (l & 1) best = std::min(best, min_tree[base + l++]);
            if (r & 1) best = std::min(best, min_tree[base + --r]);
        }
        return best;
    }

    void remove(int b) {
        for (int v = def[b] + leaves; v >= 1; v >>= 1) {
            const int first = node_start[v];
            const int k = node_start[v + 1] - first;
            int lo = 0;
            int hi = k;
            while (lo < hi) {  // b's place in (end, index) order
                const int mid = static_cast<int>((static_cast<unsigned>(lo) + static_cast<unsigned>(hi)) >> 1);
                const int e = entries[first + mid];
                if (use_end[e] < use_end[b] || (use_end[e] == use_end[b] && e < b)) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            const long long base = 2LL * first;
            int p = k + lo;
            min_tree[base + p] = kNoRank;
            for (p >>= 1; p >= 1; p >>= 1) min_tree[base + p] = std::min(min_tree[base + 2 * p], min_tree[base + 2 * p + 1]);
        }
    }

    int new_stretch(int start, int end, long long height) {
        const int s = num_stretches++;
        stretch_start[s] = start;
        stretch_end[s] = end;
        stretch_height[s] = height;
        before[s] = -1;
        after[s] = -1;
        alive[s] = 1;
        return s;
    }

    void link(int x, int y) {
        if (x >= 0) after[x] = y;
        if (y >= 0) before[y] = x;
    }

    void split(int s, int b) {
        alive[s] = 0;
        const int previous = before[s];
        const int following = after[s];
        const long long h = stretch_height[s];
        const int left = def[b] > stretch_start[s] ? new_stretch(stretch_start[s], def[b], h) : -1;
        const int top = new_stretch(def[b], use_end[b] + 1, h + size[b]);
        const int right = use_end[b] + 1 < stretch_end[s] ? new_stretch(use_end[b] + 1, stretch_end[s], h) : -1;
        int last = previous;
        if (left >= 0) {
            link(last, left);
            last = left;
        }
        link(last, top);
        last = top;
        if (right >= 0) {
            link(last, right);
            last = right;
        }
        link(last, following);
        absorb_equal_neighbours(top);
        if (left >= 0) push(left);
        if (right >= 0) push(right);
        push(top);
    }

    bool raise(int s) {
        long long height = LLONG_MAX;
        if (before[s] >= 0) height = stretch_height[before[s]];
        if (after[s] >= 0) height = std::min(height, stretch_height[after[s]]);
        if (height == LLONG_MAX) return false;
        stretch_height[s] = height;
        absorb_equal_neighbours(s);
        push(s);
        return true;
    }

    void absorb_equal_neighbours(int s) {
        const int p = before[s];
        if (p >= 0 && stretch_height[p] == stretch_height[s]) {
            stretch_start[s] = stretch_start[p];
            alive[p] = 0;
            link(before[p], s);
        }
        const int q = after[s];
        if (q >= 0 && stretch_height[q] == stretch_height[s]) {
            stretch_end[s] = stretch_end[q];
            alive[q] = 0;
            link(s, after[q]);
        }
    }

    static bool less(long long h1, int start1, int s1, long long h2, int start2, int s2) {
        return h1 < h2 || (h1 == h2 && (start1 < start2 || (start1 == start2 && s1 < s2)));
    }

    void push(int s) {
        int i = heap_size++;
        const long long h = stretch_height[s];
        const int start = stretch_start[s];
        while (i > 0) {
            const int parent = (i - 1) >> 1;
            if (!less(h, start, s, heap_height[parent], heap_start[parent], heap[parent])) break;
            set_entry(i, heap[parent], heap_height[parent], heap_start[parent]);
            i = parent;
        }
        set_entry(i, s, h, start);
    }

    void set_entry(int i, int s, long long h, int start) {
        heap[i] = s;
        heap_height[i] = h;
        heap_start[i] = start;
    }

    int pop() {
        while (true) {
            const int s = heap[0];
            const long long h = heap_height[0];
            const int start = heap_start[0];
            heap_size--;
            if (heap_size > 0) sift_down_last();
            if (alive[s] && stretch_height[s] == h && stretch_start[s] == start) return s;
        }
    }

    void sift_down_last() {
        const int s = heap[heap_size];
        const long long h = heap_height[heap_size];
        const int start = heap_start[heap_size];
        int i = 0;
        while (true) {
            int c = 2 * i + 1;
            if (c >= heap_size) break;
            if (c + 1 < heap_size && less(heap_height[c + 1], heap_start[c + 1], heap[c + 1], heap_height[c], heap_start[c], heap[c])) c++;
            if (!less(heap_height[c], heap_start[c], heap[c], h, start, s)) break;
            set_entry(i, heap[c], heap_height[c], heap_start[c]);
            i = c;
        }
        set_entry(i, s, h, start);
    }
};

}  // namespace memplan_offsets

#endif  // MEMPLAN_VALLEY_DECODER_H
