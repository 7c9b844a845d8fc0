// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.util.Arrays;

/**
 * The canonical decoder ({@link CanonicalDecoder}) computed as valley filling, for graphs
 * too wide for its lazy heap (docs/design.md §5b). Repeatedly: take the lowest flat stretch of
 * the skyline (ties: the leftmost) and place there the best-ranked unplaced buffer whose interval
 * lies inside it; when none does, raise the stretch to its lower neighbour. The plans are the
 * canonical decoder's, offset for offset (placements in disjoint stretches commute, and inside a
 * stretch both take the best rank; OffsetPlannerValleyTest holds the two equal), but the work is
 * at most 3 steps per buffer, each O(log² positions), where the lazy heap re-evaluates a buffer
 * once for every placement that raises the skyline under it: thousands of times on wide graphs.
 *
 * <p>"Best-ranked buffer inside {@code [a, b)}" is a range tree: a segment tree over start
 * positions whose node holds the buffers starting in its range sorted by (end, index), each with a
 * min-tree of their ranks; a placed buffer's rank becomes {@link #NO_RANK} in the {@code log
 * positions} nodes that hold it. Mirrored by {@code valley_decoder.h}.
 */
final class ValleyDecoder {
    /**
     * An empty min-tree cell (a placed buffer's, or no buffer fits a stretch): above every rank, so
     * a min ignores it. Not {@code NONE}, which is -1 everywhere.
     */
    private static final int NO_RANK = Integer.MAX_VALUE;

    private final int numPositions;
    private final int[] def;
    private final int[] useEnd;
    private final long[] size;
    private final int leaves;
    /** Node v's buffers are {@code entries[nodeStart[v], nodeStart[v + 1])}; its min-tree is at {@code 2 * nodeStart[v]}. */
    private final int[] nodeStart;
    private final int[] entries;
    private final int[] minTree;
    private final int[] rankOf;
    /** Skyline stretches {@code [stretchStart, stretchEnd)} at a height, in a list by position; ids never reused. */
    private final int[] stretchStart;
    private final int[] stretchEnd;
    private final long[] stretchHeight;
    private final int[] before;
    private final int[] after;
    private final boolean[] alive;
    private int numStretches;
    /** A min-heap of stretch ids by (height, start, id); entries of stretches since changed or merged are skipped. */
    private final int[] heap;
    private final long[] heapHeight;
    private final int[] heapStart;
    private int heapSize;
    /** The rank order of the decode under way. */
    private int[] byRank;
    private boolean laidOut;

    /**
     * Memory for decoding the sized buffers among {@code size.length}; {@code sized} of them have a
     * size other than 0.
     */
    ValleyDecoder(int numPositions, int[] def, int[] useEnd, long[] size, int sized) {
        this.numPositions = numPositions;
        this.def = def;
        this.useEnd = useEnd;
        this.size = size;
        this.leaves = leavesFor(numPositions);
        this.nodeStart = new int[2 * leaves + 1];
        this.entries = new int[Math.toIntExact(entriesFor(sized, numPositions))];
        this.minTree = new int[Math.multiplyExact(2, entries.length)];
        this.rankOf = new int[size.length];
        int stretches = Math.addExact(Math.multiplyExact(3, sized), 1);
        stretchStart = new int[stretches];
        stretchEnd = new int[stretches];
        stretchHeight = new long[stretches];
        before = new int[stretches];
        after = new int[stretches];
        alive = new boolean[stretches];
        int pushes = Math.addExact(Math.multiplyExact(5, sized), 2);
        heap = new int[pushes];
        heapHeight = new long[pushes];
        heapStart = new int[pushes];
    }

    static int leavesFor(int numPositions) {
        int leaves = 1;
        while (leaves < numPositions) {
            leaves <<= 1;
        }
        return leaves;
    }

    /** Range-tree entries for {@code sized} buffers: each sits in one node per level. */
    static long entriesFor(long sized, int numPositions) {
        return sized * (Integer.numberOfTrailingZeros(leavesFor(numPositions)) + 1L);
    }

    /**
     * Places the buffers of {@code byRank} (every buffer with a size, in rank order); writes every
     * offset (0 for the others) and returns the arena size, or -1 if a buffer fit no stretch
     * (cannot happen).
     */
    long decode(int[] byRank, long[] offset) {
        Arrays.fill(offset, 0);
        this.byRank = byRank;
        if (byRank.length == 0) {
            return 0;
        }
        if (!laidOut) {
            layOutRangeTree();
        }
        fillMinTrees(byRank);
        numStretches = 0;
        heapSize = 0;
        push(newStretch(0, numPositions, 0));
        long peak = 0;
        int left = byRank.length;
        while (left > 0) {
            int s = pop();
            int b = bestInside(stretchStart[s], stretchEnd[s]);
            if (b >= 0) {
                long h = stretchHeight[s];
                offset[b] = h;
                peak = Math.max(peak, h + size[b]);
                left--;
                remove(b);
                split(s, b);
            } else if (!raise(s)) {
                return -1; // a buffer fits no stretch: cannot happen, but then the plan so far stands
            }
        }
        return peak;
    }

    // ---------------------------------------------------------------- range tree

    /**
     * The nodes' buffers by (end, index), the same for every rank order (they are the buffers
     * with a size), so laid out once, at the first decode.
     */
    private void layOutRangeTree() {
        for (int b = 0; b < size.length; b++) {
            if (size[b] != 0) {
                for (int v = def[b] + leaves; v >= 1; v >>= 1) {
                    nodeStart[v + 1]++;
                }
            }
        }
        for (int v = 1; v <= 2 * leaves - 1; v++) {
            nodeStart[v + 1] += nodeStart[v];
        }
        int[] fill = Arrays.copyOf(nodeStart, 2 * leaves);
        int[] byEnd = Sweep.bucket(numPositions, useEnd, size.length, new int[numPositions + 1]);
        for (int b : byEnd) { // ascending end, then index
            if (size[b] != 0) {
                for (int v = def[b] + leaves; v >= 1; v >>= 1) {
                    entries[fill[v]++] = b;
                }
            }
        }
        laidOut = true;
    }

    /** Each node's min-tree over the ranks of this decode's order. */
    private void fillMinTrees(int[] byRank) {
        for (int r = 0; r < byRank.length; r++) {
            rankOf[byRank[r]] = r;
        }
        for (int v = 1; v < 2 * leaves; v++) {
            int base = 2 * nodeStart[v];
            int k = nodeStart[v + 1] - nodeStart[v];
            for (int j = 0; j < k; j++) {
                minTree[base + k + j] = rankOf[entries[nodeStart[v] + j]];
            }
            for (int j = k - 1; j >= 1; j--) {
                minTree[base + j] = Math.min(minTree[base + 2 * j], minTree[base + 2 * j + 1]);
            }
        }
    }

    /** The best-ranked unplaced buffer with {@code a <= def} and {@code useEnd < b}, or -1. */
    private int bestInside(int a, int b) {
        int best = NO_RANK;
        for (int lo = a + leaves, hi = b + leaves; lo < hi; lo >>= 1, hi >>= 1) {
            if ((lo & 1) != 0) {
                best = Math.min(best, bestEndingBefore(lo++, b));
            }
            if ((hi & 1) != 0) {
                best = Math.min(best, bestEndingBefore(--hi, b));
            }
        }
        return best == NO_RANK ? -1 : byRank[best];
    }

    /** The best rank among node v's unplaced buffers that end before {@code b}. */
    private int bestEndingBefore(int v, int b) {
        int first = nodeStart[v];
        int k = nodeStart[v + 1] - first;
        int lo = 0;
        int hi = k;
        while (lo < hi) { // the first entry ending at or after b
            int mid = (lo + hi) >>> 1;
            if (useEnd[entries[first + mid]] < b) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        int best = NO_RANK;
        int base = 2 * first;
        for (int l = k, r = k + lo; l < r; l >>= 1, r >>= 1) {
            if ((l & 1) != 0) {
                best = Math.min(best, minTree[base + l++]);
            }
            if ((r & 1) != 0) {
                best = Math.min(best, minTree[base + --r]);
            }
        }
        return best;
    }

    /** Takes placed buffer b out of every node that holds it. */
    private void remove(int b) {
        for (int v = def[b] + leaves; v >= 1; v >>= 1) {
            int first = nodeStart[v];
            int k = nodeStart[v + 1] - first;
            int lo = 0;
            int hi = k;
            while (lo < hi) { // b's place in (end, index) order
                int mid = (lo + hi) >>> 1;
                int e = entries[first + mid];
                if (useEnd[e] < useEnd[b] || (useEnd[e] == useEnd[b] && e < b)) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            int base = 2 * first;
            int p = k + lo;
            minTree[base + p] = NO_RANK;
            for (p >>= 1; p >= 1; p >>= 1) {
                minTree[base + p] = Math.min(minTree[base + 2 * p], minTree[base + 2 * p + 1]);
            }
        }
    }

    // ---------------------------------------------------------------- skyline

    private int newStretch(int start, int end, long height) {
        int s = numStretches++;
        stretchStart[s] = start;
        stretchEnd[s] = end;
        stretchHeight[s] = height;
        before[s] = -1;
        after[s] = -1;
        alive[s] = true;
        return s;
    }

    private void link(int x, int y) {
        if (x >= 0) {
            after[x] = y;
        }
        if (y >= 0) {
            before[y] = x;
        }
    }

    /** Stretch s, with buffer b placed on it: what lies left of b, b's top, what lies right of it. */
    private void split(int s, int b) {
        alive[s] = false;
        int previous = before[s];
        int following = after[s];
        long h = stretchHeight[s];
        int left = def[b] > stretchStart[s] ? newStretch(stretchStart[s], def[b], h) : -1;
        int top = newStretch(def[b], useEnd[b] + 1, h + size[b]);
        int right = useEnd[b] + 1 < stretchEnd[s] ? newStretch(useEnd[b] + 1, stretchEnd[s], h) : -1;
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
        absorbEqualNeighbours(top);
        if (left >= 0) {
            push(left);
        }
        if (right >= 0) {
            push(right);
        }
        push(top);
    }

    /** Stretch s holds no buffer: lifts it to its lower neighbour's height and merges; false if it has none. */
    private boolean raise(int s) {
        long height = Long.MAX_VALUE;
        if (before[s] >= 0) {
            height = stretchHeight[before[s]];
        }
        if (after[s] >= 0) {
            height = Math.min(height, stretchHeight[after[s]]);
        }
        if (height == Long.MAX_VALUE) {
            return false;
        }
        stretchHeight[s] = height;
        absorbEqualNeighbours(s);
        push(s);
        return true;
    }

    /** Merges into s its neighbours of the same height, so stretches stay maximal. */
    private void absorbEqualNeighbours(int s) {
        int p = before[s];
        if (p >= 0 && stretchHeight[p] == stretchHeight[s]) {
            stretchStart[s] = stretchStart[p];
            alive[p] = false;
            link(before[p], s);
        }
        int q = after[s];
        if (q >= 0 && stretchHeight[q] == stretchHeight[s]) {
            stretchEnd[s] = stretchEnd[q];
            alive[q] = false;
            link(s, after[q]);
        }
    }

    // ---------------------------------------------------------------- heap

    /** Pushes stretch s under its current (height, start). */
    private void push(int s) {
        int i = heapSize++;
        long h = stretchHeight[s];
        int start = stretchStart[s];
        while (i > 0) {
            int parent = (i - 1) >> 1;
            if (!less(h, start, s, heapHeight[parent], heapStart[parent], heap[parent])) {
                break;
            }
            setEntry(i, heap[parent], heapHeight[parent], heapStart[parent]);
            i = parent;
        }
        setEntry(i, s, h, start);
    }

    private void setEntry(int i, int s, long h, int start) {
        heap[i] = s;
        heapHeight[i] = h;
        heapStart[i] = start;
    }

    /** The lowest live stretch, skipping entries whose stretch was merged away or changed since. */
    private int pop() {
        while (true) {
            int s = heap[0];
            long h = heapHeight[0];
            int start = heapStart[0];
            heapSize--;
            if (heapSize > 0) {
                siftDownLast();
            }
            if (alive[s] && stretchHeight[s] == h && stretchStart[s] == start) {
                return s;
            }
        }
    }

    private void siftDownLast() {
        int s = heap[heapSize];
        long h = heapHeight[heapSize];
        int start = heapStart[heapSize];
        int i = 0;
        while (true) {
            int c = 2 * i + 1;
            if (c >= heapSize) {
                break;
            }
            if (c + 1 < heapSize && less(heapHeight[c + 1], heapStart[c + 1], heap[c + 1], heapHeight[c], heapStart[c], heap[c])) {
                c++;
            }
            if (!less(heapHeight[c], heapStart[c], heap[c], h, start, s)) {
                break;
            }
            setEntry(i, heap[c], heapHeight[c], heapStart[c]);
            i = c;
        }
        setEntry(i, s, h, start);
    }

    private static boolean less(long h1, int start1, int s1, long h2, int start2, int s2) {
        return h1 < h2 || (h1 == h2 && (start1 < start2 || (start1 == start2 && s1 < s2)));
    }
}
