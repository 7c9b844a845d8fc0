// SPDX-License-Identifier: Apache-2.0
package dev.memplan.validate;

import dev.memplan.ActivationPlan;
import dev.memplan.Graph;
import java.util.Map;
import java.util.TreeMap;

/**
 * The arena half of {@link PlanValidator} (docs/design.md §5b), for plans of either strategy: every owner
 * has an offset, aligned, with its bytes inside the arena, and no two owners whose intervals
 * overlap share a byte.
 *
 * <p>The overlap check is a sweep over positions. The owners live at the current position (size 0
 * excluded: they need no room) are kept in a tree by offset; a valid set of live ranges is
 * disjoint, so an owner entering the sweep can only collide with its two neighbours in the tree.
 * That makes it {@code O(n log n)}, fast enough for 1,000,000-owner plans.
 */
final class ArenaCheck {
    private ArenaCheck() {
    }

    /**
     * Checks offsets, alignment and arena bounds, then overlaps. Returns the highest
     * {@code offset + size} over owners with a valid offset (0 when there are none).
     */
    static long check(ActivationPlan plan, IndependentLiveness live, long[] sizeByValue, Problems problems) {
        Graph g = plan.schedule().graph();
        long alignment = plan.schedule().options().alignment();
        long peak = plan.peakBytes();
        long[] offsetByValue = new long[g.valueCount()];
        long highestEnd = 0;
        for (int v = 0; v < offsetByValue.length; v++) {
            offsetByValue[v] = -1;
            if (!live.isOwner[v]) {
                if (plan.offsetOf(v) != -1) {
                    problems.add(g.value(v).describe() + " owns no buffer but has offset " + plan.offsetOf(v));
                }
                continue;
            }
            long offset = plan.offsetOf(v);
            long size = sizeByValue[v];
            if (offset < 0) {
                problems.add("owner " + g.value(v).describe() + " has no offset (" + offset + ")");
            } else if (offset % alignment != 0) {
                problems.add("owner " + g.value(v).describe() + " is at offset " + offset
                        + ", not a multiple of the alignment " + alignment);
            } else if (offset > peak - size) { // offset + size > peak, without overflow
                problems.add("owner " + g.value(v).describe() + " (" + size + " bytes) at offset " + offset
                        + " ends past the arena of " + peak + " bytes");
            } else {
                offsetByValue[v] = offset;
                highestEnd = Math.max(highestEnd, offset + size);
            }
        }
        checkNoSharedBytes(g, live, sizeByValue, offsetByValue, problems);
        return highestEnd;
    }

    /**
     * Sweeps the positions: at each, first drops the owners whose interval ended at the previous
     * one, then adds the owners defined here, each checked against its neighbours by offset. A
     * colliding owner is reported and left out, so the tree stays disjoint.
     */
    private static void checkNoSharedBytes(Graph g, IndependentLiveness live, long[] size, long[] offset,
                                           Problems problems) {
        int positions = live.numPositions;
        int[][] byDef = bucket(live, positions, size, offset, true);
        int[][] byEnd = bucket(live, positions, size, offset, false);
        TreeMap<Long, Integer> liveByOffset = new TreeMap<>();
        for (int p = 0; p < positions; p++) {
            if (p > 0) {
                for (int v : byEnd[p - 1]) {
                    liveByOffset.remove(offset[v], v); // only if it went in
                }
            }
            for (int v : byDef[p]) {
                long start = offset[v];
                long end = start + size[v];
                Map.Entry<Long, Integer> below = liveByOffset.floorEntry(start);
                Map.Entry<Long, Integer> above = liveByOffset.higherEntry(start);
                if (below != null && below.getKey() + size[below.getValue()] > start) {
                    problems.add(collision(g, live, below.getValue(), v, size, offset));
                } else if (above != null && above.getKey() < end) {
                    problems.add(collision(g, live, above.getValue(), v, size, offset));
                } else {
                    liveByOffset.put(start, v);
                }
            }
        }
    }

    /** Owners with a valid offset and a non-zero size, bucketed by def or by useEnd, in ascending id. */
    private static int[][] bucket(IndependentLiveness live, int positions, long[] size, long[] offset, boolean byDef) {
        int[] count = new int[positions];
        for (int v = 0; v < size.length; v++) {
            if (offset[v] >= 0 && size[v] > 0) {
                count[byDef ? live.def[v] : live.useEnd[v]]++;
            }
        }
        int[][] out = new int[positions][];
        for (int p = 0; p < positions; p++) {
            out[p] = new int[count[p]];
            count[p] = 0;
        }
        for (int v = 0; v < size.length; v++) {
            if (offset[v] >= 0 && size[v] > 0) {
                int p = byDef ? live.def[v] : live.useEnd[v];
                out[p][count[p]++] = v;
            }
        }
        return out;
    }

    private static String collision(Graph g, IndependentLiveness live, int a, int b, long[] size, long[] offset) {
        return "owners " + describe(g, live, a, size, offset) + " and " + describe(g, live, b, size, offset)
                + " are live at the same time but share bytes";
    }

    private static String describe(Graph g, IndependentLiveness live, int v, long[] size, long[] offset) {
        return g.value(v).describe() + " [" + live.def[v] + ", " + live.useEnd[v] + "] at bytes [" + offset[v] + ", "
                + (offset[v] + size[v]) + ")";
    }
}
