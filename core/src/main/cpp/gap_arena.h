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

// One segment of the arena, a buffer or a free gap: its bytes, its neighbours in
// offset order, and its children in its gap treap. C++ only: GapArena.java keeps
// six parallel arrays; here the fields a treap step or a link reads share one
// 32-byte record, so a step touches one cache line instead of up to six.
struct Segment {
    long long start;
    long long length;
    int prev;
    int next;
    int left;
    int right;
};

// The sweep's memory: segments in offset order (buffers: id = index; free
// gaps: ids from n), free gaps also in a treap keyed by (length, start).
struct GapArena {
    int n;
    Segment* seg;  // 2n + 1
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
            top = seg[gap].start + bytes;
            seg[gap].length = bytes;
        }
        if (gap < 0) {
            seg[b].start = top;
            seg[b].length = bytes;
            link(last, b, -1);
            top += bytes;
            return seg[b].start;
        }
        seg[b].start = seg[gap].start;
        seg[b].length = bytes;
        const long long rest = seg[gap].length - bytes;
        link(seg[gap].prev, b, seg[gap].next);
        if (rest > 0) {
            seg[gap].start = seg[b].start + bytes;
            seg[gap].length = rest;
            link(b, gap, seg[b].next);
            treap_insert(gap);
        } else {
            free_ids[num_free_ids++] = gap;
        }
        return seg[b].start;
    }

    void release(int b) {
        long long start = seg[b].start;
        long long end = start + seg[b].length;
        int before = seg[b].prev;
        int after = seg[b].next;
        if (before >= n) {
            treap_remove(before);
            start = seg[before].start;
            free_ids[num_free_ids++] = before;
            before = seg[before].prev;
        }
        if (after >= n) {
            treap_remove(after);
            end = seg[after].start + seg[after].length;
            free_ids[num_free_ids++] = after;
            after = seg[after].next;
        }
        if (after < 0) {
            top = start;
            last = before;
            if (before >= 0) seg[before].next = -1;
            return;
        }
        const int gap = free_ids[--num_free_ids];
        seg[gap].start = start;
        seg[gap].length = end - start;
        link(before, gap, after);
        treap_insert(gap);
    }

    void link(int a, int s, int c) {
        seg[s].prev = a;
        seg[s].next = c;
        if (a >= 0) seg[a].next = s;
        if (c >= 0) {
            seg[c].prev = s;
        } else {
            last = s;
        }
    }

    bool key_less(int a, int b) const {
        return seg[a].length < seg[b].length || (seg[a].length == seg[b].length && seg[a].start < seg[b].start);
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
            if (seg[cur].length >= bytes) {
                found = cur;
                found_parent = parent;
                parent = cur;
                cur = seg[cur].left;
            } else {
                parent = cur;
                cur = seg[cur].right;
            }
        }
        if (found < 0) {  // every gap of a larger class fits: take that class's smallest
            if (!classed) return -1;
            size_class = next_non_empty_class(size_class + 1);
            if (size_class < 0) return -1;
            root = class_root[size_class];
            cur = root;
            while (seg[cur].left >= 0) {
                found_parent = cur;
                cur = seg[cur].left;
            }
            found = cur;
        }
        unlink(found, found_parent);
        if (classed) store_root(size_class);
        return found;
    }

    void treap_insert(int s) {
        seg[s].left = -1;
        seg[s].right = -1;
        if (!classed) {
            root = insert_into(root, s);
            return;
        }
        const int size_class = gap_size_class(seg[s].length);
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
            cur = parent_left ? seg[cur].left : seg[cur].right;
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
                    seg[lo_tail].right = cur;
                }
                lo_tail = cur;
                cur = seg[cur].right;
            } else {
                if (hi_tail < 0) {
                    hi = cur;
                } else {
                    seg[hi_tail].left = cur;
                }
                hi_tail = cur;
                cur = seg[cur].left;
            }
        }
        if (lo_tail >= 0) seg[lo_tail].right = -1;
        if (hi_tail >= 0) seg[hi_tail].left = -1;
        seg[s].left = lo;
        seg[s].right = hi;
        if (parent < 0) return s;
        if (parent_left) {
            seg[parent].left = s;
        } else {
            seg[parent].right = s;
        }
        return t;
    }

    void treap_remove(int s) {
        const int size_class = classed ? gap_size_class(seg[s].length) : 0;
        if (classed) root = class_root[size_class];
        int parent = -1;
        int cur = root;
        while (cur != s) {
            parent = cur;
            cur = key_less(s, cur) ? seg[cur].left : seg[cur].right;
        }
        unlink(s, parent);
        if (classed) store_root(size_class);
    }

    void unlink(int s, int parent) {
        const int merged = merge(seg[s].left, seg[s].right);
        if (parent < 0) {
            root = merged;
        } else if (seg[parent].left == s) {
            seg[parent].left = merged;
        } else {
            seg[parent].right = merged;
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
                a = seg[a].right;
                take_right = true;
            } else {
                take = b;
                b = seg[b].left;
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
            seg[tail].right = child;
        } else {
            seg[tail].left = child;
        }
        return result;
    }
};

}  // namespace memplan_offsets

#endif  // MEMPLAN_GAP_ARENA_H
