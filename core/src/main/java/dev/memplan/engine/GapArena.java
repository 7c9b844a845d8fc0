// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.util.Arrays;

/**
 * The sweep's memory (docs/design.md §5b, step 2). Mirrored by {@code gap_arena.h}.
 *
 * <p>The arena below {@link #top()} as a list of segments in offset order,
 * each a live buffer (segment id = buffer index) or a free gap (ids from {@code n}); free gaps
 * are also in a treap keyed by (length, offset) for best fit. Flat arrays, no allocation after
 * construction.
 */
final class GapArena {
    /** Size classes of free gaps: lengths 1 to 7 each their own, then eight per power of two. */
    static final int NUM_SIZE_CLASSES = 64 * 8;
    /**
     * Size classes pay from this many buffers live at a position on average (the sum of their
     * lifetimes over the positions): on the 10k random DAG, about 2,500 live, they halve the sweep;
     * on chains and transformers they would add a few percent.
     */
    static final long CLASSED_AVERAGE_LIVE = 64;

    /** The size class of a gap of {@code length} >= 1 bytes: never decreasing in the length. */
    static int gapSizeClass(long length) {
        int octave = 63 - Long.numberOfLeadingZeros(length);
        return octave < 3 ? (int) length : octave * 8 + (int) ((length >>> (octave - 3)) & 7);
    }

    private final int n;
    private final long[] segStart;
    private final long[] segLength;
    private final int[] prev;
    private final int[] next;
    private final int[] left;
    private final int[] right;
    private final int[] freeIds;
    private int numFreeIds;
    /**
     * Free gaps by size class ({@link #gapSizeClass}), one treap per class, and which classes
     * hold any: a best fit searches the request's class and then the first non-empty larger
     * one, whose smallest gap is the answer, so the treaps walked are a fraction of all gaps.
     * {@code root} is the treap being worked on, loaded from and stored back to its class;
     * without classes it is the one treap.
     */
    private final int[] classRoot = new int[NUM_SIZE_CLASSES];
    private final long[] nonEmptyClasses = new long[NUM_SIZE_CLASSES / 64];
    private int root = -1;
    /**
     * Whether gaps are split into size classes at all: on narrow graphs the few gaps make one
     * treap shallow already, and the classes' bookkeeping only costs (a few percent there).
     * Either way the best fit is the same gap, so plans do not depend on it.
     */
    private boolean classed;
    private int last = -1;
    private long top;

    GapArena(int n, boolean classed) {
        this.n = n;
        this.classed = classed;
        int segments = 2 * n + 1;
        segStart = new long[segments];
        segLength = new long[segments];
        prev = new int[segments];
        next = new int[segments];
        left = new int[segments];
        right = new int[segments];
        freeIds = new int[n + 1];
        for (int k = 0; k <= n; k++) {
            freeIds[k] = segments - 1 - k; // gap ids handed out from n upwards
        }
        numFreeIds = n + 1;
        Arrays.fill(classRoot, -1);
    }

    long top() {
        return top;
    }

    /** Places buffer {@code b} of {@code bytes} > 0 and returns its offset. */
    long allocate(int b, long bytes) {
        int gap = takeCeiling(bytes);
        if (gap < 0 && last >= n) { // the top segment is free: grow it into the arena's top
            gap = last;
            treapRemove(gap);
            top = segStart[gap] + bytes;
            segLength[gap] = bytes;
        }
        if (gap < 0) {
            segStart[b] = top;
            segLength[b] = bytes;
            link(last, b, -1);
            top += bytes;
            return segStart[b];
        }
        segStart[b] = segStart[gap];
        segLength[b] = bytes;
        long rest = segLength[gap] - bytes;
        link(prev[gap], b, next[gap]);
        if (rest > 0) {
            segStart[gap] = segStart[b] + bytes;
            segLength[gap] = rest;
            link(b, gap, next[b]);
            treapInsert(gap);
        } else {
            freeIds[numFreeIds++] = gap;
        }
        return segStart[b];
    }

    /** Frees buffer {@code b}: its room joins the free neighbours, or leaves the arena at the top. */
    void release(int b) {
        long start = segStart[b];
        long end = start + segLength[b];
        int before = prev[b];
        int after = next[b];
        if (before >= n) { // free gap below: absorb it
            treapRemove(before);
            start = segStart[before];
            freeIds[numFreeIds++] = before;
            before = prev[before];
        }
        if (after >= n) { // free gap above: absorb it
            treapRemove(after);
            end = segStart[after] + segLength[after];
            freeIds[numFreeIds++] = after;
            after = next[after];
        }
        if (after < 0) { // nothing above: the arena's top comes down
            top = start;
            last = before;
            if (before >= 0) {
                next[before] = -1;
            }
            return;
        }
        int gap = freeIds[--numFreeIds];
        segStart[gap] = start;
        segLength[gap] = end - start;
        link(before, gap, after);
        treapInsert(gap);
    }

    /** Puts {@code s} between {@code a} and {@code c} in the segment list (-1: none). */
    private void link(int a, int s, int c) {
        prev[s] = a;
        next[s] = c;
        if (a >= 0) {
            next[a] = s;
        }
        if (c >= 0) {
            prev[c] = s;
        } else {
            last = s;
        }
    }

    /** Strict treap key order (length, start): starts of free gaps are distinct. */
    private boolean keyLess(int a, int b) {
        return segLength[a] < segLength[b] || (segLength[a] == segLength[b] && segStart[a] < segStart[b]);
    }

    /** Removes and returns the free gap with the smallest (length, start) whose length >= bytes, or -1. */
    private int takeCeiling(long bytes) {
        int sizeClass = 0;
        if (classed) { // else root is the one treap
            sizeClass = gapSizeClass(bytes);
            root = classRoot[sizeClass];
        }
        int found = -1;
        int foundParent = -1;
        int parent = -1;
        int cur = root;
        while (cur >= 0) {
            if (segLength[cur] >= bytes) {
                found = cur;
                foundParent = parent;
                parent = cur;
                cur = left[cur];
            } else {
                parent = cur;
                cur = right[cur];
            }
        }
        if (found < 0) { // every gap of a larger class fits: take that class's smallest
            if (!classed) {
                return -1;
            }
            sizeClass = nextNonEmptyClass(sizeClass + 1);
            if (sizeClass < 0) {
                return -1;
            }
            root = classRoot[sizeClass];
            cur = root;
            while (left[cur] >= 0) {
                foundParent = cur;
                cur = left[cur];
            }
            found = cur;
        }
        unlink(found, foundParent);
        if (classed) {
            storeRoot(sizeClass);
        }
        return found;
    }

    private void treapInsert(int s) {
        left[s] = -1;
        right[s] = -1;
        if (!classed) {
            root = insertInto(root, s);
            return;
        }
        int sizeClass = gapSizeClass(segLength[s]);
        root = insertInto(classRoot[sizeClass], s);
        storeRoot(sizeClass);
    }

    /** For tests, before the sweep starts: plan with or without size classes (the same plans either way). */
    void setClassed(boolean classed) {
        this.classed = classed;
    }

    /** Stores {@code root} back as the treap of {@code sizeClass} and notes whether it holds any gap. */
    private void storeRoot(int sizeClass) {
        classRoot[sizeClass] = root;
        long bit = 1L << sizeClass;
        if (root >= 0) {
            nonEmptyClasses[sizeClass >>> 6] |= bit;
        } else {
            nonEmptyClasses[sizeClass >>> 6] &= ~bit;
        }
    }

    /** The first class from {@code sizeClass} on that holds a gap, or -1. */
    private int nextNonEmptyClass(int sizeClass) {
        if (sizeClass >= NUM_SIZE_CLASSES) {
            return -1;
        }
        int word = sizeClass >>> 6;
        long bits = nonEmptyClasses[word] & (-1L << sizeClass);
        while (bits == 0) {
            if (++word == nonEmptyClasses.length) {
                return -1;
            }
            bits = nonEmptyClasses[word];
        }
        return (word << 6) + Long.numberOfTrailingZeros(bits);
    }

    /** Inserts {@code s} into the subtree at {@code t}; returns the new subtree root. Iterative. */
    private int insertInto(int t, int s) {
        int parent = -1;
        boolean parentLeft = false;
        int cur = t;
        int rank = TreapPriority.priority(s);
        while (cur >= 0 && TreapPriority.priority(cur) > rank) {
            parent = cur;
            parentLeft = keyLess(s, cur);
            cur = parentLeft ? left[cur] : right[cur];
        }
        // split cur into keys below s and above s
        int lo = -1;
        int hi = -1;
        int loTail = -1;
        int hiTail = -1;
        while (cur >= 0) {
            if (keyLess(cur, s)) {
                if (loTail < 0) {
                    lo = cur;
                } else {
                    right[loTail] = cur;
                }
                loTail = cur;
                cur = right[cur];
            } else {
                if (hiTail < 0) {
                    hi = cur;
                } else {
                    left[hiTail] = cur;
                }
                hiTail = cur;
                cur = left[cur];
            }
        }
        if (loTail >= 0) {
            right[loTail] = -1;
        }
        if (hiTail >= 0) {
            left[hiTail] = -1;
        }
        left[s] = lo;
        right[s] = hi;
        if (parent < 0) {
            return s;
        }
        if (parentLeft) {
            left[parent] = s;
        } else {
            right[parent] = s;
        }
        return t;
    }

    /** Removes gap {@code s}, which is in the treap of its class. */
    private void treapRemove(int s) {
        int sizeClass = classed ? gapSizeClass(segLength[s]) : 0;
        if (classed) {
            root = classRoot[sizeClass];
        }
        int parent = -1;
        int cur = root;
        while (cur != s) {
            parent = cur;
            cur = keyLess(s, cur) ? left[cur] : right[cur];
        }
        unlink(s, parent);
        if (classed) {
            storeRoot(sizeClass);
        }
    }

    /** Replaces gap {@code s} under {@code parent} (-1: the root) by the merge of its children. */
    private void unlink(int s, int parent) {
        int merged = merge(left[s], right[s]);
        if (parent < 0) {
            root = merged;
        } else if (left[parent] == s) {
            left[parent] = merged;
        } else {
            right[parent] = merged;
        }
    }

    /** Joins two treaps where every key of {@code a} is below every key of {@code b}. Iterative. */
    private int merge(int a, int b) {
        int result = -1;
        int tail = -1;
        boolean tailRight = false;
        while (a >= 0 && b >= 0) {
            int take;
            boolean takeRight;
            if (TreapPriority.priority(a) > TreapPriority.priority(b)) { // a's root stays on top; merge its right side with b
                take = a;
                a = right[a];
                takeRight = true;
            } else { // b's root stays on top; merge a with its left side
                take = b;
                b = left[b];
                takeRight = false;
            }
            result = attach(result, tail, tailRight, take);
            tail = take;
            tailRight = takeRight;
        }
        return attach(result, tail, tailRight, a >= 0 ? a : b);
    }

    /** Hangs {@code child} under {@code tail} on the given side, or makes it the result. */
    private int attach(int result, int tail, boolean onRight, int child) {
        if (tail < 0) {
            return child;
        }
        if (onRight) {
            right[tail] = child;
        } else {
            left[tail] = child;
        }
        return result;
    }
}
