// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.nio.LongBuffer;

/**
 * Offsets planning (docs/design.md §5b) in pure Java: every buffer gets a byte offset in one
 * arena, and buffers whose inclusive intervals overlap never share a byte.
 *
 * <p>The phase driver: {@link #plan} and {@link #search} are {@code memplan_offsets_plan} and
 * {@code search} in {@code offsets_plan.h}, guard for guard, and each phase is a class mirrored by
 * the header of the same name (docs/design.md §12), so a change is made twice the same way. The
 * phases:
 * <ol>
 *   <li><b>bound</b> ({@link #lowerBound}): the most bytes live at one position, which no plan can
 *       beat;
 *   <li><b>sweep</b> ({@link Sweep} over a {@link GapArena}): walk positions in order, place each
 *       new buffer in the smallest free gap that holds it (best fit, gaps coalesce when buffers
 *       die); O(n log n), and on chains, transformers and CNNs it already reaches the bound. At
 *       effort >= 1 it pauses once it passes the bound and finishes only if the fit misses the
 *       bound too;
 *   <li><b>fit</b> ({@link FirstFit}, run where its {@link SearchCost} allows): greedy by size with
 *       first fit, as TFLite's arena planner places: buffers from the largest, each at the lowest
 *       offset free over its whole interval; it can drop a buffer into a hole under placed ones,
 *       which the sweep cannot foresee and the canonical decoder cannot reach. It finds the placed
 *       buffers a buffer overlaps through per-position lists, so it runs only where intervals are
 *       short and few buffers live at once (U-Net's skips around a chain: the bound, at a fraction
 *       of the canonical decoder's cost). Elsewhere {@link WindowFit} places the same plan with
 *       neighbours found in start order, and its window swaps improve it where the arena's top is;
 *   <li><b>canonical</b> ({@link CanonicalDecoder} over a {@link SkylineTree}, or the same plans by
 *       {@link ValleyDecoder}; ranks from {@link RankOrder}): the decoder of MiniMalloc's
 *       canonical form, driven by a rank: always place next the buffer whose lowest free offset
 *       (the highest top of placed buffers over its interval) is smallest, ties by rank. Tried
 *       with three ranks (size, area, lifetime) and a budget of heap pops, so that wide graphs
 *       where it would re-evaluate too often give up and keep the sweep's plan; on large problems
 *       each decode is first tried on a time slice ({@link CanonicalDecoder#sampleFits}) and
 *       skipped when the slice runs out of its share of the budget;
 *   <li><b>improve</b> ({@link RankSwaps}, effort >= 2): swap the rank of a buffer on the peak with
 *       a random other and decode again, keeping the result when the arena does not grow.
 * </ol>
 * The best plan wins, ties to the earlier phase; everything stops once a plan reaches the bound.
 * Effort counts iterations, never time, so the result is deterministic and the same on both
 * engines.
 */
final class OffsetsPlan {
    /** Statistics returned by {@link #plan}: indexes into its result. */
    static final int STAT_PEAK = 0;
    static final int STAT_NAIVE = 1;
    static final int STAT_LOWER_BOUND = 2;

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
     * The largest effort either engine plans with: {@code PlanOptions.MAX_EFFORT} and the native
     * MEMPLAN_MAX_EFFORT (MirroredEnginesTest holds all three equal), so every budget scaled by it
     * stays far inside a long.
     */
    static final int MAX_EFFORT = 1_000;

    private OffsetsPlan() {
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
        Sweep sweep = new Sweep(numPositions, def, useEnd, size, offset);
        // At effort >= 1 the sweep pauses as soon as it passes the bound: the fit may reach the bound
        // (a U-Net's does), and then the rest of the sweep is not needed.
        long peak = sweep.run(effort >= 1 ? bound : Sweep.NO_LIMIT);
        if (peak == Sweep.STOPPED) {
            peak = search(numPositions, def, useEnd, size, effort, bound, offset, sweep);
        }
        return new long[] {peak, naive, bound};
    }

    /**
     * The phases past the sweep, once the sweep has paused above the bound: the fit, the rest of
     * the sweep unless the fit reached the bound, then the rank decodes and the rank swaps while
     * the plan is still above the bound. Returns the best peak; {@code offset} holds its plan.
     */
    static long search(int numPositions, int[] def, int[] useEnd, long[] size, int effort, long bound, long[] offset,
                       Sweep sweep) {
        int n = size.length;
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
        // Where the fit's per-position lists cost too much, wide graphs find neighbours in start
        // order instead, and window swaps improve that plan at the end.
        boolean runWide = !runFit && WindowFit.runs(WindowFit.visitsFor(numPositions, def, useEnd, size), n, effort);
        if (!runFit && !runWide && !mayDecode && !useValley) {
            return sweep.run(Sweep.NO_LIMIT);
        }
        long[] trial = new long[n];
        int[] bySize = null;
        long fitPeak = Sweep.NO_LIMIT;
        WindowFit wide = null;
        if (runFit || runWide) {
            bySize = RankOrder.rankOrder(RankOrder.RANK_SIZE, def, useEnd, size);
            if (runFit) {
                fitPeak = new FirstFit(numPositions, def, useEnd, size, cost.entries()).place(bySize, trial);
            } else {
                wide = new WindowFit(numPositions, def, useEnd, size);
                fitPeak = wide.place(bySize, trial);
            }
            if (fitPeak <= bound) {
                System.arraycopy(trial, 0, offset, 0, n);
                return fitPeak;
            }
        }
        long peak = sweep.run(Sweep.NO_LIMIT);
        if (fitPeak < peak) {
            peak = fitPeak;
            System.arraycopy(trial, 0, offset, 0, n);
        }
        // Window swaps improve the wide fit's plan where its arena's top is (docs/design.md §5b, step 3).
        if (wide != null && peak > bound) {
            long p = wide.improve(effort * WindowFit.SWAP_STEPS_PER_EFFORT, effort * WindowFit.SWAP_VISITS_PER_BUFFER * n,
                    bound, trial);
            if (p < peak) {
                peak = p;
                System.arraycopy(trial, 0, offset, 0, n);
            }
        }
        if ((!mayDecode && !useValley) || peak <= bound) {
            return peak;
        }
        // The lazy heap's decoder only where it decodes or swaps ranks (C++ sets it up on scratch
        // either way), and the valley decoder where it takes the rank decodes.
        boolean flat = SkylineTree.isFlat(def, useEnd, size);
        CanonicalDecoder canonical = mayDecode
                ? new CanonicalDecoder(def, useEnd, size, new SkylineTree(numPositions, flat)) : null;
        ValleyDecoder valley = useValley ? new ValleyDecoder(numPositions, def, useEnd, size, (int) cost.sized()) : null;
        // One decode per rank, by valley filling or by the lazy heap; the best ranks seed the rank swaps.
        int[] bestRanks = null;
        for (int rank = 0; rank < RankOrder.NUM_RANKS && peak > bound && budget >= (useValley ? valleyCost : 1);
                rank++) {
            int[] byRank = rank == RankOrder.RANK_SIZE && bySize != null
                    ? bySize : RankOrder.rankOrder(rank, def, useEnd, size);
            long p;
            if (useValley) {
                p = valley.decode(byRank, trial);
                budget -= valleyCost;
            } else if (CanonicalDecoder.sampleFits(numPositions, def, useEnd, size, flat, byRank, budget)) {
                p = canonical.decode(byRank, budget, trial);
                budget -= canonical.pops();
            } else {
                p = -1; // its sample ran out of its share: skipped, as the decode is forecast to run out too
            }
            if (p >= 0 && p < peak) {
                peak = p;
                System.arraycopy(trial, 0, offset, 0, n);
                bestRanks = byRank;
            } else if (bestRanks == null && p >= 0) {
                bestRanks = byRank;
            }
        }
        // Rank swaps decode with the lazy heap, one effort unit of pops each.
        if (mayDecode && effort >= 2 && bestRanks != null && peak > bound) {
            long perDecode = POPS_PER_BUFFER * n + POPS_ALLOWANCE;
            peak = RankSwaps.improve(canonical, bestRanks, (effort - 1) * RankSwaps.IMPROVE_STEPS_PER_EFFORT, perDecode,
                    bound, peak, offset, trial);
        }
        return peak;
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
}
