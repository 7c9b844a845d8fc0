// SPDX-License-Identifier: Apache-2.0
// gap_arena.h - the sweep's memory: buffers and free gaps in offset order, free
// gaps also in treaps by size class for best fit. GapArena.java, name for name
// (docs/design.md §5b, step 2).

#ifndef MEMPLAN_GAP_ARENA_H
#define MEMPLAN_GAP_ARENA_H

#include "treap_priority.h"

namespace memplan_offsets {

// Size classes of free gaps (see GapArena.gapSizeClass): lengths 1 to 7 each
// their own, then eight per power of two; never decreasing in the length.
constexpr int kNumSizeClasses = 64 * 8;
constexpr long long kClassedAverageLive = 64;  // see GapArena.CLASSED_AVERAGE_LIVE

inline int gap_size_class(long long length) {
    const int octave = 63 - __builtin_clzll(static_cast<unsigned long long>(length));
    return octave < 3 ? static_cast<int>(length) : octave * 8 + static_cast<int>((length >> (octave - 3)) & 7);
}

// The sweep's memory: segments in offset order (buffers: id = index; free
// gaps: ids from n), free gaps also in a treap keyed by (length, start).
struct GapArena {
    int n;
    long long* seg_start;
    long long* seg_length;
    int* prev;
    int* next;
    int* left;
    int* right;
    int* free_ids;
    int num_free_ids;
    // Free gaps by size class, one treap each, and which classes hold any (see
    // GapArena.java); root is the treap being worked on, or the one
    // treap when not classed.
    int class_root[kNumSizeClasses] = {};
    unsigned long long non_empty_classes[kNumSizeClasses / 64] = {};
    int root = -1;
    bool classed = false;  // size classes only pay on wide graphs; see GapArena.java
    int last = -1;
    long long top = 0;

    // An empty arena, whatever state the struct was in.
    void init() {
        const int segments = 2 * n + 1;
        for (int k = 0; k <= n; ++k) free_ids[k] = segments - 1 - k;
        num_free_ids = n + 1;
        for (int c = 0; c < kNumSizeClasses; ++c) class_root[c] = -1;
        for (int w = 0; w < kNumSizeClasses / 64; ++w) non_empty_classes[w] = 0;
        root = -1;
        last = -1;
        top = 0;
    }

    long long allocate(int b, long long bytes) {
        int gap = take_ceiling(bytes);
        if (gap < 0 && last >= n) {
            gap = last;
            treap_remove(gap);
            top = seg_start[gap] + bytes;
            seg_length[gap] = bytes;
        }
        if (gap < 0) {
            seg_start[b] = top;
            seg_length[b] = bytes;
            link(last, b, -1);
            top += bytes;
            return seg_start[b];
        }
        seg_start[b] = seg_start[gap];
        seg_length[b] = bytes;
        const long long rest = seg_length[gap] - bytes;
        link(prev[gap], b, next[gap]);
        if (rest > 0) {
            seg_start[gap] = seg_start[b] + bytes;
            seg_length[gap] = rest;
            link(b, gap, next[b]);
            treap_insert(gap);
        } else {
            free_ids[num_free_ids++] = gap;
        }
        return seg_start[b];
    }

    void release(int b) {
        long long start = seg_start[b];
        long long end = start + seg_length[b];
        int before = prev[b];
        int after = next[b];
        if (before >= n) {
            treap_remove(before);
            start = seg_start[before];
            free_ids[num_free_ids++] = before;
            before = prev[before];
        }
        if (after >= n) {
            treap_remove(after);
            end = seg_start[after] + seg_length[after];
            free_ids[num_free_ids++] = after;
            after = next[after];
        }
        if (after < 0) {
            top = start;
            last = before;
            if (before >= 0) next[before] = -1;
            return;
        }
        const int gap = free_ids[--num_free_ids];
        seg_start[gap] = start;
        seg_length[gap] = end - start;
        link(before, gap, after);
        treap_insert(gap);
    }

    void link(int a, int s, int c) {
        prev[s] = a;
        next[s] = c;
        if (a >= 0) next[a] = s;
        if (c >= 0) {
            prev[c] = s;
        } else {
            last = s;
        }
    }

    bool key_less(int a, int b) const {
        return seg_length[a] < seg_length[b] || (seg_length[a] == seg_length[b] && seg_start[a] < seg_start[b]);
    }

    int take_ceiling(long long bytes) {
        int size_class = 0;
        if (classed) {  // else root is the one treap
            size_class = gap_size_class(bytes);
            root = class_root[size_class];
        }
        int found = -1;
        int found_parent = -1;
        int parent = -1;
        int cur = root;
        while (cur >= 0) {
            if (seg_length[cur] >= bytes) {
                found = cur;
                found_parent = parent;
                parent = cur;
                cur = left[cur];
            } else {
                parent = cur;
                cur = right[cur];
            }
        }
        if (found < 0) {  // every gap of a larger class fits: take that class's smallest
            if (!classed) return -1;
            size_class = next_non_empty_class(size_class + 1);
            if (size_class < 0) return -1;
            root = class_root[size_class];
            cur = root;
            while (left[cur] >= 0) {
                found_parent = cur;
                cur = left[cur];
            }
            found = cur;
        }
        unlink(found, found_parent);
        if (classed) store_root(size_class);
        return found;
    }

    void treap_insert(int s) {
        left[s] = -1;
        right[s] = -1;
        if (!classed) {
            root = insert_into(root, s);
            return;
        }
        const int size_class = gap_size_class(seg_length[s]);
        root = insert_into(class_root[size_class], s);
        store_root(size_class);
    }

    void store_root(int size_class) {
        class_root[size_class] = root;
        const unsigned long long bit = 1ULL << (size_class & 63);
        if (root >= 0) {
            non_empty_classes[size_class >> 6] |= bit;
        } else {
            non_empty_classes[size_class >> 6] &= ~bit;
        }
    }

    // The first class from size_class on that holds a gap, or -1.
    int next_non_empty_class(int size_class) const {
        if (size_class >= kNumSizeClasses) return -1;
        int word = size_class >> 6;
        unsigned long long bits = non_empty_classes[word] & (~0ULL << (size_class & 63));
        while (bits == 0) {
            if (++word == kNumSizeClasses / 64) return -1;
            bits = non_empty_classes[word];
        }
        return (word << 6) + __builtin_ctzll(bits);
    }

    int insert_into(int t, int s) {
        int parent = -1;
        bool parent_left = false;
        int cur = t;
        const int rank = priority(s);
        while (cur >= 0 && priority(cur) > rank) {
            parent = cur;
            parent_left = key_less(s, cur);
            cur = parent_left ? left[cur] : right[cur];
        }
        int lo = -1;
        int hi = -1;
        int lo_tail = -1;
        int hi_tail = -1;
        while (cur >= 0) {
            if (key_less(cur, s)) {
                if (lo_tail < 0) {
                    lo = cur;
                } else {
                    right[lo_tail] = cur;
                }
                lo_tail = cur;
                cur = right[cur];
            } else {
                if (hi_tail < 0) {
                    hi = cur;
                } else {
                    left[hi_tail] = cur;
                }
                hi_tail = cur;
                cur = left[cur];
            }
        }
        if (lo_tail >= 0) right[lo_tail] = -1;
        if (hi_tail >= 0) left[hi_tail] = -1;
        left[s] = lo;
        right[s] = hi;
        if (parent < 0) return s;
        if (parent_left) {
            left[parent] = s;
        } else {
            right[parent] = s;
        }
        return t;
    }

    void treap_remove(int s) {
        const int size_class = classed ? gap_size_class(seg_length[s]) : 0;
        if (classed) root = class_root[size_class];
        int parent = -1;
        int cur = root;
        while (cur != s) {
            parent = cur;
            cur = key_less(s, cur) ? left[cur] : right[cur];
        }
        unlink(s, parent);
        if (classed) store_root(size_class);
    }

    void unlink(int s, int parent) {
        const int merged = merge(left[s], right[s]);
        if (parent < 0) {
            root = merged;
        } else if (left[parent] == s) {
            left[parent] = merged;
        } else {
            right[parent] = merged;
        }
    }

    int merge(int a, int b) {
        int result = -1;
        int tail = -1;
        bool tail_right = false;
        while (a >= 0 && b >= 0) {
            int take;
            bool take_right;
            if (priority(a) > priority(b)) {
                take = a;
                a = right[a];
                take_right = true;
            } else {
                take = b;
                b = left[b];
                take_right = false;
            }
            result = attach(result, tail, tail_right, take);
            tail = take;
            tail_right = take_right;
        }
        return attach(result, tail, tail_right, a >= 0 ? a : b);
    }

    int attach(int result, int tail, bool on_right, int child) {
        if (tail < 0) return child;
        if (on_right) {
            right[tail] = child;
        } else {
            left[tail] = child;
        }
        return result;
    }
};

}  // namespace memplan_offsets

#endif  // MEMPLAN_GAP_ARENA_H
