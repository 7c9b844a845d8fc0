// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.nio.LongBuffer;

/**
 * Offsets planning (docs/design.md §5b) in pure Java: every buffer gets a byte offset in one arena, and
 * buffers whose inclusive intervals overlap never share a byte.
 *
 * <p>Mirrored line for line by {@code memplan_offsets_plan} in {@code memplan_core.h}: the same
 * phases, the same names and the same flat-array structures, so a change is made twice the same
 * way. The phases:
 * <ol>
 *   <li><b>bound</b>: the most bytes live at one position, which no plan can beat;
 *   <li><b>sweep</b>: walk positions in order, place each new buffer in the smallest free gap that
 *       holds it (best fit, gaps coalesce when buffers die); O(n log n), and on chains,
 *       transformers and CNNs it already reaches the bound. At effort >= 1 it pauses once it
 *       passes the bound and finishes only if the fit misses the bound too;
 *   <li><b>fit</b>: greedy by size with first fit, as TFLite's arena planner places: buffers from
 *       the largest, each at the lowest offset free over its whole interval; it can drop a buffer
 *       into a hole under placed ones, which the sweep cannot foresee and the canonical decoder
 *       cannot reach. It finds the placed buffers a buffer overlaps through per-position lists, so
 *       it runs only where intervals are short and few buffers live at once (U-Net's skips around a
 *       chain: the bound, at a fraction of the canonical decoder's cost);
 *   <li><b>canonical</b>: the decoder of MiniMalloc's canonical form, driven by a rank: always
 *       place next the buffer whose lowest free offset (the highest top of placed buffers over its
 *       interval, a range max on a segment tree) is smallest, ties by rank. Tried with three
 *       ranks (size, area, lifetime) and a budget of heap pops, so that wide graphs where it
 *       would re-evaluate too often give up and keep the sweep's plan;
 *   <li><b>improve</b> (effort >= 2): swap the rank of a buffer on the peak with a random other
 *       and decode again, keeping the result when the arena does not grow.
 * </ol>
 * The best plan wins, ties to the earlier phase; everything stops once a plan reaches the bound.
 * Effort counts iterations, never time, so the result is deterministic and the same on both
 * engines.
 */
final class OffsetPlanner {
    /** Statistics returned by {@link #plan}: indexes into its result. */
    static final int STAT_PEAK = 0;
    static final int STAT_NAIVE = 1;
    static final int STAT_LOWER_BOUND = 2;

    /** Ranks the canonical decoder tries, in order. */
    static final int RANK_SIZE = 0;
    static final int RANK_AREA = 1;
    static final int RANK_LENGTH = 2;
    static final int NUM_RANKS = 3;

    /**
     * Heap pops the canonical decodes may spend together, per buffer and per effort unit, plus a
     * fixed allowance per effort unit; each improvement decode gets one unit.
     */
    static final long POPS_PER_BUFFER = 32;
    static final long POPS_ALLOWANCE = 1_024;
    /**
     * The valley decoder ({@link ValleyDecoder}) takes over the canonical decodes the lazy heap's
     * forecast rules out, from this effort on: one decode costs tens of milliseconds at 10k owners
     * on a wide graph, more than the default should spend. Each decode is charged its range tree's
     * entries (buffers x levels) from the same pop budget, and runs only while the tree holds at
     * most this many entries (about 200 MB of ints with its min-trees).
     */
    static final int VALLEY_MIN_EFFORT = 2;
    static final long VALLEY_MAX_ENTRIES = 1L << 24;
    /**
     * Average interval length up to which the skyline is a plain array (a query or raise walks the
     * interval) rather than a segment tree (two root paths): real graphs' intervals are a few
     * positions long, and the walk is several times faster there.
     */
    static final long FLAT_SKYLINE_LENGTH = 64;
    /**
     * The largest effort either engine plans with: {@code PlanOptions.MAX_EFFORT} and the native
     * MEMPLAN_MAX_EFFORT (MirroredEnginesTest holds all three equal), so every budget scaled by it
     * stays far inside a long.
     */
    static final int MAX_EFFORT = 1_000;
    /** Improvement iterations per effort unit above 1. */
    static final long IMPROVE_STEPS_PER_EFFORT = 64;
    /**
     * The fit phase's limits: its per-position lists hold at most this many entries per buffer
     * (an average interval of 8 positions; they are sized once for the schedule), and its scans
     * of placed neighbours cost at most this much per buffer and effort unit.
     */
    static final long FIT_ENTRIES_PER_BUFFER = 8;
    static final long FIT_WORK_PER_BUFFER = 64;

    private OffsetPlanner() {
    }

    /**
     * Plans {@code size.length} buffers with live intervals {@code [def, useEnd]} (inclusive,
     * positions in {@code [0, numPositions)}), writes each one's offset and returns
     * {@code {peak, naive, lowerBound}}. The caller has checked the arguments: sizes >= 0 with a
     * sum that fits in a long, intervals in range.
     */
    static long[] plan(int numPositions, int[] def, int[] useEnd, long[] size, int effort, long[] offset) {
        int n = size.length;
        long naive = 0;
        for (int i = 0; i < n; i++) {
            naive += size[i];
        }
        long bound = lowerBound(numPositions, def, useEnd, size);

        // At effort >= 1 the sweep pauses as soon as it passes the bound: the fit may reach the bound
        // (a U-Net's does), and then the rest of the sweep is not needed.
        Sweep sweep = new Sweep(numPositions, def, useEnd, size, offset);
        long peak = sweep.run(effort >= 1 ? bound : NO_LIMIT);
        if (peak != STOPPED) {
            return new long[] {peak, naive, bound};
        }
        SearchCost cost = SearchCost.of(numPositions, def, useEnd, size);
        boolean runFit = cost.fitRuns(n, effort);
        long budget = (long) effort * (POPS_PER_BUFFER * n + POPS_ALLOWANCE);
        long expectedPops = cost.expectedPops(numPositions);
        boolean mayDecode = expectedPops <= budget;
        // Valley filling gives the lazy heap's plans (docs/design.md §5b): from effort 2 it takes the
        // rank decodes wherever it is forecast cheaper, alone where the heap is ruled out. Each
        // decode is charged its range tree's entries.
        long valleyCost = ValleyDecoder.entriesFor(cost.sized(), numPositions);
        boolean useValley = effort >= VALLEY_MIN_EFFORT && valleyCost <= budget && valleyCost <= VALLEY_MAX_ENTRIES
                && (!mayDecode || valleyCost < expectedPops);
        if (!runFit && !mayDecode && !useValley) {
            return new long[] {sweep.run(NO_LIMIT), naive, bound};
        }
        long[] trial = new long[n];
        int[] bySize = null;
        long fit = NO_LIMIT;
        if (runFit) {
            bySize = rankOrder(RANK_SIZE, def, useEnd, size);
            fit = new FirstFit(numPositions, def, useEnd, size, cost.entries()).place(bySize, trial);
            if (fit <= bound) {
                System.arraycopy(trial, 0, offset, 0, n);
                return new long[] {fit, naive, bound};
            }
        }
        peak = sweep.run(NO_LIMIT);
        if (fit < peak) {
            peak = fit;
            System.arraycopy(trial, 0, offset, 0, n);
        }
        if ((mayDecode || useValley) && peak > bound) {
            // The lazy heap's arrays only where it decodes or swaps ranks (C++ builds its Canonical on scratch).
            Canonical canonical = mayDecode ? new Canonical(numPositions, def, useEnd, size) : null;
            ValleyDecoder valley = useValley
                    ? new ValleyDecoder(numPositions, def, useEnd, size, (int) cost.sized()) : null;
            int[] bestRanks = null;
            for (int rank = 0; rank < NUM_RANKS && peak > bound && budget >= (useValley ? valleyCost : 1); rank++) {
                int[] byRank = rank == RANK_SIZE && bySize != null ? bySize : rankOrder(rank, def, useEnd, size);
                long p;
                if (useValley) {
                    p = valley.decode(byRank, trial);
                    budget -= valleyCost;
                } else {
                    p = canonical.decode(byRank, budget, trial);
                    budget -= canonical.pops();
                }
                if (p >= 0 && p < peak) {
                    peak = p;
                    System.arraycopy(trial, 0, offset, 0, n);
                    bestRanks = byRank;
                }
                if (bestRanks == null && p >= 0) {
                    bestRanks = byRank;
                }
            }
            // Rank swaps decode with the lazy heap, one effort unit of pops each.
            if (mayDecode && effort >= 2 && bestRanks != null && peak > bound) {
                long perDecode = POPS_PER_BUFFER * n + POPS_ALLOWANCE;
                peak = improve(canonical, bestRanks, (effort - 1) * IMPROVE_STEPS_PER_EFFORT, perDecode, bound, peak,
                        offset, trial);
            }
        }
        return new long[] {peak, naive, bound};
    }

    /** {@link #plan} as both engines' Java paths return it: the offsets and the three totals. */
    static OffsetAllocation allocation(int numPositions, int[] def, int[] useEnd, long[] size, int effort) {
        long[] offset = new long[size.length];
        long[] stats = plan(numPositions, def, useEnd, size, effort, offset);
        return new OffsetAllocation(stats[STAT_PEAK], stats[STAT_NAIVE], stats[STAT_LOWER_BOUND],
                LongBuffer.wrap(offset).asReadOnlyBuffer());
    }

    /** The most bytes live at any one position (a difference array over positions). */
    static long lowerBound(int numPositions, int[] def, int[] useEnd, long[] size) {
        long[] delta = new long[numPositions + 1];
        for (int i = 0; i < size.length; i++) {
            delta[def[i]] += size[i];
            delta[useEnd[i] + 1] -= size[i];
        }
        long live = 0;
        long bound = 0;
        for (int p = 0; p < numPositions; p++) {
            live += delta[p];
            if (live > bound) {
                bound = live;
            }
        }
        return bound;
    }

    // ---------------------------------------------------------------- sweep

    /** {@link Sweep#run}'s limit when it should run to the end, and its result when it paused. */
    static final long NO_LIMIT = Long.MAX_VALUE;
    static final long STOPPED = -1;

    /**
     * Walks positions in order: at each, places the buffers that start there (ascending index) in
     * the smallest free gap that holds them, else at the top of the arena; then frees the buffers
     * that end there, merging their room with free neighbours. It can pause: {@link #run} stops as
     * soon as the arena passes a limit, and the next call carries on from there.
     */
    static final class Sweep {
        private final int numPositions;
        private final long[] size;
        private final long[] offset;
        private final int[] startOffsets;
        private final int[] starts;
        private final int[] endOffsets;
        private final int[] ends;
        private final GapArena arena;
        /** The position to carry on at, and whether its buffers are already placed. */
        private int position;
        private boolean startsPlaced;
        private long peak;

        Sweep(int numPositions, int[] def, int[] useEnd, long[] size, long[] offset) {
            int n = size.length;
            this.numPositions = numPositions;
            this.size = size;
            this.offset = offset;
            startOffsets = new int[numPositions + 1];
            starts = bucket(numPositions, def, n, startOffsets);
            endOffsets = new int[numPositions + 1];
            ends = bucket(numPositions, useEnd, n, endOffsets);
            long liveSum = 0; // positions each buffer with a size is live, summed
            for (int i = 0; i < n; i++) {
                if (size[i] != 0) {
                    liveSum += (long) useEnd[i] - def[i] + 1;
                }
            }
            arena = new GapArena(n, liveSum >= CLASSED_AVERAGE_LIVE * numPositions);
        }

        /** The arena, so a test can hold a plan with and without size classes equal. */
        GapArena arena() {
            return arena;
        }

        /**
         * Sweeps on; returns the arena size once every position is done, or {@link #STOPPED} as soon
         * as it exceeds {@code stopAbove} (the offsets are then incomplete).
         */
        long run(long stopAbove) {
            for (; position < numPositions; position++) {
                int p = position;
                if (!startsPlaced) {
                    for (int k = startOffsets[p]; k < startOffsets[p + 1]; k++) {
                        int i = starts[k];
                        offset[i] = size[i] == 0 ? 0 : arena.allocate(i, size[i]);
                    }
                    startsPlaced = true;
                    if (arena.top() > peak) {
                        peak = arena.top();
                        if (peak > stopAbove) {
                            return STOPPED;
                        }
                    }
                }
                for (int k = endOffsets[p]; k < endOffsets[p + 1]; k++) {
                    int i = ends[k];
                    if (size[i] != 0) {
                        arena.release(i);
                    }
                }
                startsPlaced = false;
            }
            return peak;
        }
    }

    /** Buffers grouped by {@code key[i]} (a position), ascending index within a group: CSR. */
    static int[] bucket(int numPositions, int[] key, int n, int[] offsets) {
        for (int i = 0; i < n; i++) {
            offsets[key[i] + 1]++;
        }
        for (int p = 0; p < numPositions; p++) {
            offsets[p + 1] += offsets[p];
        }
        int[] cursor = java.util.Arrays.copyOf(offsets, numPositions);
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[cursor[key[i]]++] = i;
        }
        return out;
    }

    /**
     * The sweep's memory: the arena below {@link #top()} as a list of segments in offset order,
     * each a live buffer (segment id = buffer index) or a free gap (ids from {@code n}); free gaps
     * are also in a treap keyed by (length, offset) for best fit. Flat arrays, no allocation after
     * construction.
     */
    static final class GapArena {
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
            java.util.Arrays.fill(classRoot, -1);
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
            int rank = priority(s);
            while (cur >= 0 && priority(cur) > rank) {
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
                if (priority(a) > priority(b)) { // a's root stays on top; merge its right side with b
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

    /** murmur3's fmix32 of a segment id: a bijection, so no two ids tie. Unsigned order as an int. */
    static int priority(int id) {
        int h = id;
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h >>> 1; // 31 bits: compares the same signed in Java and C++
    }

    // ---------------------------------------------------------------- fit

    /**
     * What the search phases would cost, from one pass over the buffers with a size: the fit's
     * {@code entries} (its per-position lists: the buffers live at each position, summed) and
     * {@code work} (the placed neighbours it would scan: each position's live count squared,
     * summed), and the canonical decoder's heap pops, forecast from {@code entries}.
     */
    record SearchCost(long entries, long work, long sized) {
        static SearchCost of(int numPositions, int[] def, int[] useEnd, long[] size) {
            int[] delta = new int[numPositions + 1];
            long sized = 0;
            for (int i = 0; i < size.length; i++) {
                if (size[i] != 0) {
                    delta[def[i]]++;
                    delta[useEnd[i] + 1]--;
                    sized++;
                }
            }
            long live = 0;
            long entries = 0;
            long work = 0;
            for (int p = 0; p < numPositions; p++) {
                live += delta[p];
                entries += live;
                work = Math.min(work + live * live, WORK_CAP); // live * live <= 2^60: no overflow
            }
            return new SearchCost(entries, work, sized);
        }

        /** Where {@code work} saturates: far above any budget, and the sum cannot overflow. */
        static final long WORK_CAP = Long.MAX_VALUE / 2;

        /** Whether the fit phase runs for {@code n} buffers at {@code effort}; its lists must fit an int array. */
        boolean fitRuns(int n, int effort) {
            return entries <= FIT_ENTRIES_PER_BUFFER * n && entries <= Integer.MAX_VALUE
                    && work <= effort * FIT_WORK_PER_BUFFER * n;
        }

        /**
         * A cheap forecast of a canonical decode's heap pops: each buffer is popped once, plus once
         * per raise under it before its turn, which grows with how many buffers are live together.
         * Wide graphs (thousands live at once) would re-evaluate keys hundreds of times per buffer;
         * the forecast lets them keep the sweep's plan instead of spending the budget to find out.
         */
        long expectedPops(int numPositions) {
            long averageLive = entries / numPositions;
            return sized * (2 + averageLive / 8);
        }
    }

    /**
     * Greedy by size with first fit: buffers in rank order, each at the lowest offset where it
     * overlaps no placed buffer live at the same time. Position {@code t}'s list holds the placed
     * buffers live at {@code t}; a buffer collects the placed ones over its interval (each once),
     * sorts them by offset and takes the first gap that holds it. The lowest such offset does not
     * depend on how ties in offset are ordered, so both engines agree.
     */
    static final class FirstFit {
        private final int[] def;
        private final int[] useEnd;
        private final long[] size;
        /** Position t's placed buffers: {@code entries[listStart[t], listEnd[t])}. */
        private final int[] listStart;
        private final int[] listEnd;
        private final int[] entries;
        /** The step that last collected each buffer, so a buffer live at several positions counts once. */
        private final int[] seen;
        private final int[] overlapping;
        private final int[] sortScratch;

        FirstFit(int numPositions, int[] def, int[] useEnd, long[] size, long entries) {
            this.def = def;
            this.useEnd = useEnd;
            this.size = size;
            int n = size.length;
            listStart = new int[numPositions + 1];
            listEnd = new int[numPositions];
            this.entries = new int[(int) entries];
            seen = new int[n];
            overlapping = new int[n];
            sortScratch = new int[n];
        }

        /** Places the buffers of {@code byRank}; writes their offsets (0 for the others) and returns the arena size. */
        long place(int[] byRank, long[] offset) {
            int numPositions = listEnd.length;
            java.util.Arrays.fill(listStart, 0);
            for (int b : byRank) { // live counts, then their running sum: each position's list start
                listStart[def[b]]++;
                listStart[useEnd[b] + 1]--;
            }
            int live = 0;
            int start = 0;
            for (int t = 0; t < numPositions; t++) {
                live += listStart[t];
                listStart[t] = start;
                listEnd[t] = start;
                start += live;
            }
            listStart[numPositions] = start;
            java.util.Arrays.fill(seen, -1);
            java.util.Arrays.fill(offset, 0);
            long peak = 0;
            for (int step = 0; step < byRank.length; step++) {
                int b = byRank[step];
                int count = collectOverlapping(b, step);
                sortByOffset(overlapping, count, offset, sortScratch);
                long lowest = 0;
                for (int k = 0; k < count; k++) {
                    int y = overlapping[k];
                    if (offset[y] - lowest >= size[b]) {
                        break;
                    }
                    lowest = Math.max(lowest, offset[y] + size[y]);
                }
                offset[b] = lowest;
                peak = Math.max(peak, lowest + size[b]);
                for (int t = def[b]; t <= useEnd[b]; t++) {
                    entries[listEnd[t]++] = b;
                }
            }
            return peak;
        }

        /** Gathers the placed buffers live somewhere in {@code b}'s interval into {@code overlapping}; returns how many. */
        private int collectOverlapping(int b, int step) {
            int count = 0;
            for (int t = def[b]; t <= useEnd[b]; t++) {
                for (int k = listStart[t]; k < listEnd[t]; k++) {
                    int y = entries[k];
                    if (seen[y] != step) {
                        seen[y] = step;
                        overlapping[count++] = y;
                    }
                }
            }
            return count;
        }
    }

    /** Sorts {@code ids[0, count)} by {@code offset[id]} ascending: insertion sort when short, else {@link #mergeSort}. */
    static void sortByOffset(int[] ids, int count, long[] offset, int[] scratch) {
        if (count <= INSERTION_SORT_MAX) {
            for (int i = 1; i < count; i++) {
                int x = ids[i];
                long key = offset[x];
                int j = i - 1;
                while (j >= 0 && offset[ids[j]] > key) {
                    ids[j + 1] = ids[j];
                    j--;
                }
                ids[j + 1] = x;
            }
            return;
        }
        mergeSort(ids, count, scratch, (x, y) -> offset[x] < offset[y]);
    }

    /** Lists up to this long are sorted by insertion: a buffer usually overlaps only a few. */
    static final int INSERTION_SORT_MAX = 16;

    // ---------------------------------------------------------------- canonical

    /**
     * Buffers with a size in the order of rank {@code rank}, as buffer indexes. Size and length
     * ranks are two stable radix sorts (the secondary key first; buffers start in index order, the
     * last tie-break); the area rank, whose key is a 128-bit product, is a stable merge sort. Each
     * is a total order, so both engines get the same array.
     */
    static int[] rankOrder(int rank, int[] def, int[] useEnd, long[] size) {
        int m = 0;
        for (long s : size) {
            if (s != 0) {
                m++;
            }
        }
        int[] order = new int[m];
        int k = 0;
        for (int i = 0; i < size.length; i++) {
            if (size[i] != 0) {
                order[k++] = i;
            }
        }
        int[] scratch = new int[m];
        if (rank == RANK_SIZE || rank == RANK_LENGTH) {
            long[] length = new long[size.length];
            for (int i = 0; i < size.length; i++) {
                length[i] = (long) useEnd[i] - def[i] + 1;
            }
            long[] secondary = rank == RANK_SIZE ? length : size;
            long[] primary = rank == RANK_SIZE ? size : length;
            int[] histogram = new int[RADIX_BUCKETS];
            radixSortDescending(order, m, secondary, scratch, histogram);
            radixSortDescending(order, m, primary, scratch, histogram);
            return order;
        }
        mergeSortByRank(rank, order, m, def, useEnd, size, scratch);
        return order;
    }

    static final int RADIX_DIGITS = 8;
    static final int RADIX_BUCKETS = 256;

    /**
     * Sorts {@code order[0, m)} stably by {@code key[order[k]]} descending (keys >= 0): least
     * significant byte first. A byte that every key shares needs no pass; the keys' OR and AND find
     * those bytes first, so the histogram counts only the others.
     */
    static void radixSortDescending(int[] order, int m, long[] key, int[] scratch, int[] histogram) {
        long any = 0;
        long all = ~0L;
        for (int k = 0; k < m; k++) {
            long v = key[order[k]];
            any |= v;
            all &= v;
        }
        long varying = any ^ all;
        int[] from = order;
        int[] to = scratch;
        for (int d = 0; d < RADIX_DIGITS; d++) {
            int shift = 8 * d;
            if (((varying >>> shift) & 0xFF) == 0) {
                continue;
            }
            java.util.Arrays.fill(histogram, 0);
            for (int k = 0; k < m; k++) {
                histogram[(int) ((key[from[k]] >>> shift) & 0xFF)]++;
            }
            int sum = 0;
            for (int b = RADIX_BUCKETS - 1; b >= 0; b--) {
                int count = histogram[b];
                histogram[b] = sum;
                sum += count;
            }
            for (int k = 0; k < m; k++) {
                int i = from[k];
                to[histogram[(int) ((key[i] >>> shift) & 0xFF)]++] = i;
            }
            int[] swap = from;
            from = to;
            to = swap;
        }
        if (from != order) {
            System.arraycopy(from, 0, order, 0, m);
        }
    }

    /** Stable bottom-up merge sort of {@code order[0, m)} by {@link #rankBefore}. */
    static void mergeSortByRank(int rank, int[] order, int m, int[] def, int[] useEnd, long[] size, int[] scratch) {
        mergeSort(order, m, scratch, (x, y) -> rankBefore(rank, x, y, def, useEnd, size));
    }

    /** A strict order on buffer indexes: whether {@code x} comes before {@code y}. */
    @FunctionalInterface
    interface IdOrder {
        boolean before(int x, int y);
    }

    /**
     * Stable bottom-up merge sort of {@code ids[0, count)} by {@code order}: a later element moves
     * ahead of an earlier one only when strictly before it. The rank orders and the fit's offset
     * order both sort with it.
     */
    static void mergeSort(int[] ids, int count, int[] scratch, IdOrder order) {
        for (int width = 1; width < count; width *= 2) {
            for (int lo = 0; lo < count - width; lo += 2 * width) {
                int mid = lo + width;
                int hi = Math.min(lo + 2 * width, count);
                int a = lo;
                int b = mid;
                int out = lo;
                while (a < mid && b < hi) {
                    scratch[out++] = order.before(ids[b], ids[a]) ? ids[b++] : ids[a++];
                }
                while (a < mid) {
                    scratch[out++] = ids[a++];
                }
                while (b < hi) {
                    scratch[out++] = ids[b++];
                }
                System.arraycopy(scratch, lo, ids, lo, hi - lo);
            }
        }
    }

    /** Whether buffer {@code x} comes strictly before buffer {@code y} in rank {@code rank}. */
    static boolean rankBefore(int rank, int x, int y, int[] def, int[] useEnd, long[] size) {
        long lengthX = (long) useEnd[x] - def[x] + 1;
        long lengthY = (long) useEnd[y] - def[y] + 1;
        int c;
        if (rank == RANK_SIZE) {
            c = compareDescending(size[x], size[y], lengthX, lengthY);
        } else if (rank == RANK_LENGTH) {
            c = compareDescending(lengthX, lengthY, size[x], size[y]);
        } else {
            c = compareProductsDescending(size[x], lengthX, size[y], lengthY);
            if (c == 0) {
                c = compareDescending(size[x], size[y], lengthX, lengthY);
            }
        }
        return c < 0 || (c == 0 && x < y);
    }

    /** Negative when (a1, a2) is larger than (b1, b2), lexicographically: larger goes first. */
    private static int compareDescending(long a1, long b1, long a2, long b2) {
        if (a1 != b1) {
            return a1 > b1 ? -1 : 1;
        }
        if (a2 != b2) {
            return a2 > b2 ? -1 : 1;
        }
        return 0;
    }

    /** Compares {@code a * la} with {@code b * lb} exactly (128-bit), larger first. All operands >= 0. */
    private static int compareProductsDescending(long a, long la, long b, long lb) {
        long highA = Math.multiplyHigh(a, la);
        long highB = Math.multiplyHigh(b, lb);
        if (highA != highB) {
            return highA > highB ? -1 : 1;
        }
        int low = Long.compareUnsigned(a * la, b * lb);
        return -low;
    }

    /**
     * MiniMalloc's canonical decoder: places buffers in non-decreasing offset, each at the highest
     * top of the placed buffers over its interval. A min-heap of ranks keyed by each buffer's last
     * known lowest offset picks the next one; a popped key that went stale is refreshed and pushed
     * back (tops only rise, so stale keys are lower bounds). Each heap entry keeps its key beside
     * it ({@code heapKey[i]} belongs to {@code heapRank[i]}), so a sift reads neighbouring slots
     * rather than a key per rank somewhere else.
     */
    static final class Canonical {
        private final int[] def;
        private final int[] useEnd;
        private final long[] size;
        private final SkylineTree skyline;
        private final int[] heapRank;
        private final long[] heapKey;
        private long pops;

        Canonical(int numPositions, int[] def, int[] useEnd, long[] size) {
            this.def = def;
            this.useEnd = useEnd;
            this.size = size;
            long totalLength = 0;
            int sized = 0;
            for (int i = 0; i < size.length; i++) {
                if (size[i] != 0) {
                    totalLength += (long) useEnd[i] - def[i] + 1;
                    sized++;
                }
            }
            this.skyline = new SkylineTree(numPositions, totalLength <= FLAT_SKYLINE_LENGTH * Math.max(sized, 1));
            this.heapRank = new int[size.length];
            this.heapKey = new long[size.length];
        }

        /** Places the buffers of {@code byRank}; returns the arena size, or -1 past {@code budget} pops. */
        long decode(int[] byRank, long budget, long[] offset) {
            int m = byRank.length;
            skyline.reset();
            java.util.Arrays.fill(offset, 0);
            pops = 0;
            long peak = 0;
            // Level 0 in rank order: what the heap would pop while every key is still 0. Buffers
            // whose interval already holds a top wait in the heap under their lowest offset.
            int heapSize = 0;
            for (int r = 0; r < m; r++) {
                if (++pops > budget) {
                    return -1;
                }
                int b = byRank[r];
                long lowest = skyline.max(def[b], useEnd[b]);
                if (lowest != 0) {
                    siftUp(lowest, r, heapSize++);
                    continue;
                }
                skyline.raise(def[b], useEnd[b], size[b]);
                peak = Math.max(peak, size[b]);
            }
            while (heapSize > 0) {
                if (++pops > budget) {
                    return -1;
                }
                int r = heapRank[0];
                int b = byRank[r];
                long lowest = skyline.max(def[b], useEnd[b]);
                if (lowest != heapKey[0]) {
                    siftDown(lowest, r, heapSize);
                    continue;
                }
                heapSize--;
                if (heapSize > 0) {
                    siftDown(heapKey[heapSize], heapRank[heapSize], heapSize);
                }
                offset[b] = lowest;
                long topOfB = lowest + size[b];
                skyline.raise(def[b], useEnd[b], topOfB);
                if (topOfB > peak) {
                    peak = topOfB;
                }
            }
            return peak;
        }

        /** Puts rank {@code r} with key {@code k} at hole {@code i} (the heap's end) and sifts it up. */
        private void siftUp(long k, int r, int i) {
            while (i > 0) {
                int parent = (i - 1) >> 1;
                if (!entryLess(k, r, heapKey[parent], heapRank[parent])) {
                    break;
                }
                heapRank[i] = heapRank[parent];
                heapKey[i] = heapKey[parent];
                i = parent;
            }
            heapRank[i] = r;
            heapKey[i] = k;
        }

        /** Heap pops the last decode spent. */
        long pops() {
            return pops;
        }

        /** Heap order: key, then rank. A total order, so both engines pop the same sequence. */
        private static boolean entryLess(long keyA, int rankA, long keyB, int rankB) {
            return keyA < keyB || (keyA == keyB && rankA < rankB);
        }

        /** Puts rank {@code r} with key {@code k} at the root and sifts it down a heap of {@code heapSize}. */
        private void siftDown(long k, int r, int heapSize) {
            // Floyd's bottom-up sift: walk the hole down to a leaf along the smaller children (one
            // comparison a level), then bring r up from there. A refreshed key only rose, so r
            // usually belongs deep, and this halves the comparisons of the textbook sift. The heap
            // holds the same set either way and its order is total, so pops come out the same.
            int i = 0;
            while (true) {
                int c = 2 * i + 1;
                if (c >= heapSize) {
                    break;
                }
                if (c + 1 < heapSize && entryLess(heapKey[c + 1], heapRank[c + 1], heapKey[c], heapRank[c])) {
                    c++;
                }
                heapRank[i] = heapRank[c];
                heapKey[i] = heapKey[c];
                i = c;
            }
            siftUp(k, r, i);
        }
    }

    /**
     * Highest top over positions: range max, and range raise to a value at least the range's max.
     * Either a plain array of heights (short intervals) or a segment tree whose max-tags need no
     * push-down, bottom-up over a power-of-two leaf row (long intervals).
     */
    static final class SkylineTree {
        private final boolean flat;
        private final int leaves;
        private final long[] max;
        private final long[] tag;

        SkylineTree(int numPositions, boolean flat) {
            this.flat = flat;
            int l = 1;
            while (l < numPositions) {
                l <<= 1;
            }
            leaves = l;
            max = new long[flat ? numPositions : 2 * l];
            tag = flat ? max : new long[2 * l];
        }

        void reset() {
            java.util.Arrays.fill(max, 0);
            java.util.Arrays.fill(tag, 0);
        }

        /** The highest top over positions {@code [a, b]}. */
        long max(int a, int b) {
            long result = 0;
            if (flat) {
                for (int t = a; t <= b; t++) {
                    result = Math.max(result, max[t]);
                }
                return result;
            }
            int lo = a + leaves;
            int hi = b + leaves + 1;
            for (int i = lo >> 1; i >= 1; i >>= 1) { // tags above the range's ends cover it
                result = Math.max(result, tag[i]);
            }
            for (int i = (hi - 1) >> 1; i >= 1; i >>= 1) {
                result = Math.max(result, tag[i]);
            }
            for (; lo < hi; lo >>= 1, hi >>= 1) {
                if ((lo & 1) != 0) {
                    result = Math.max(result, max[lo++]);
                }
                if ((hi & 1) != 0) {
                    result = Math.max(result, max[--hi]);
                }
            }
            return result;
        }

        /** Raises positions {@code [a, b]} to {@code value}, which is at least their current max. */
        void raise(int a, int b, long value) {
            if (flat) {
                for (int t = a; t <= b; t++) {
                    max[t] = value;
                }
                return;
            }
            int lo = a + leaves;
            int hi = b + leaves + 1;
            for (int i = lo >> 1; i >= 1; i >>= 1) {
                max[i] = Math.max(max[i], value);
            }
            for (int i = (hi - 1) >> 1; i >= 1; i >>= 1) {
                max[i] = Math.max(max[i], value);
            }
            for (; lo < hi; lo >>= 1, hi >>= 1) {
                if ((lo & 1) != 0) {
                    max[lo] = Math.max(max[lo], value);
                    tag[lo] = Math.max(tag[lo], value);
                    lo++;
                }
                if ((hi & 1) != 0) {
                    --hi;
                    max[hi] = Math.max(max[hi], value);
                    tag[hi] = Math.max(tag[hi], value);
                }
            }
        }
    }

    // ---------------------------------------------------------------- improve

    /**
     * Local search on the rank: swap a buffer that ends at the peak with a random earlier-or-later
     * one and decode again; keep the swap when the arena does not grow. A fixed xorshift sequence
     * makes it deterministic.
     */
    static long improve(Canonical canonical, int[] startRanks, long steps, long budget, long bound, long peak,
                        long[] offset, long[] trial) {
        int m = startRanks.length;
        int[] byRank = startRanks.clone();
        long[] kept = trial;
        long current = canonical.decode(byRank, budget, kept);
        if (m < 2 || current < 0) {
            return peak;
        }
        long[] candidate = new long[offset.length];
        long random = 0x9E3779B97F4A7C15L;
        for (long step = 0; step < steps && peak > bound; step++) {
            random = xorshift(random);
            int critical = criticalRank(byRank, kept, canonical.size, current, random);
            random = xorshift(random);
            int other = (int) Long.remainderUnsigned(random, m);
            if (other == critical) {
                continue;
            }
            swap(byRank, critical, other);
            long p = canonical.decode(byRank, budget, candidate);
            if (p < 0 || p > current) {
                swap(byRank, critical, other);
                continue;
            }
            long[] t = kept;
            kept = candidate;
            candidate = t;
            current = p;
            if (p < peak) {
                peak = p;
                System.arraycopy(kept, 0, offset, 0, offset.length);
            }
        }
        return peak;
    }

    /** A rank whose buffer's top is the arena's top: the ({@code random} mod count)-th such rank. */
    private static int criticalRank(int[] byRank, long[] offset, long[] size, long peak, long random) {
        int count = 0;
        for (int r = 0; r < byRank.length; r++) {
            int b = byRank[r];
            if (offset[b] + size[b] == peak) {
                count++;
            }
        }
        long pick = Long.remainderUnsigned(random, Math.max(count, 1));
        for (int r = 0; r < byRank.length; r++) {
            int b = byRank[r];
            if (offset[b] + size[b] == peak && pick-- == 0) {
                return r;
            }
        }
        return 0;
    }

    private static void swap(int[] a, int i, int j) {
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }

    static long xorshift(long x) {
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        return x;
    }
}
