// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

/**
 * A planning engine: computes the schedule of a flat graph (order, owners, intervals) and then
 * allocates slots for one request's sizes. Two implementations, {@link JavaEngine} and
 * {@link NativeEngine}, give identical results value for value; {@link Engines} picks one.
 */
public interface PlanningEngine {

    /** {@code "java"} or {@code "native"}: what the plan JSON reports as {@code "engine"}. */
    String name();

    /**
     * Orders the nodes and computes owners and their intervals.
     *
     * @param graph              a validated flat graph
     * @param valueRoot          {@code [numValues]}: the view root of each value, itself when it is
     *                           not a view; acyclic, checked by the caller
     * @param includeGraphInputs whether graph inputs own slots
     * @throws GraphCycleException when the nodes cannot be ordered
     * @throws IllegalArgumentException when the arrays are inconsistent (both engines check them)
     */
    default CompiledGraph compile(FlatGraph graph, int[] valueRoot, boolean includeGraphInputs) {
        return compile(graph, valueRoot, null, includeGraphInputs);
    }

    /**
     * As {@link #compile(FlatGraph, int[], boolean)}, with in-place reuse (docs/design.md §3b):
     * walking the order, each value whose mask names an input of its producer takes that input's
     * buffer when the buffer dies at this node, is no graph input, weight or graph output, and is
     * read by this node through that input only (the first such input in position order).
     *
     * @param inPlaceMask {@code [numValues]}: per value, bit k set when it may overwrite input k of
     *                    its producer (rule (d) checked by the caller); null for no in-place reuse
     */
    CompiledGraph compile(FlatGraph graph, int[] valueRoot, int[] inPlaceMask, boolean includeGraphInputs);

    /**
     * Places arbitrary live intervals at byte offsets in one arena: the offsets planner without a
     * graph, for interval packing problems.
     *
     * @param numPositions positions, >= 1; every interval lies inside {@code [0, numPositions)}
     * @param def          first live position of each buffer
     * @param useEnd       last live position of each buffer (inclusive), {@code >= def}
     * @param sizes        bytes of each buffer, >= 0, whose sum fits in a long
     * @param effort       search effort, >= 0
     * @throws IllegalArgumentException when the arrays disagree in length or an interval or size is
     *                                  out of range
     */
    OffsetAllocation packOffsets(int numPositions, int[] def, int[] useEnd, long[] sizes, int effort);

    /**
     * The exact mode of interval packing (docs/design.md §5c): the smallest arena for buffers alive
     * over {@code [lower[i], upper[i])}, searched from the valid plan {@code seed} until proven
     * optimal or a limit. Both engines give the same answer under a node limit.
     *
     * @param lower           each buffer's first time
     * @param upper           each buffer's end time, exclusive, {@code > lower}
     * @param sizes           each buffer's bytes, {@code >= 0}
     * @param seed            a valid plan's offsets (the heuristic's): the first upper bound
     * @param nodeLimit       search nodes allowed, {@code >= 1}: deterministic
     * @param timeLimitMillis wall-clock limit in ms, 0 for none: when it cuts the search the answer
     *                        depends on the machine
     * @param target          stop once the arena is at most this many bytes; -1 for none
     * @throws IllegalArgumentException when the arrays disagree in length, an interval, size or
     *                                  offset is out of range, or the seed overlaps two buffers
     */
    ExactPacking.Result packExact(long[] lower, long[] upper, long[] sizes, long[] seed, long nodeLimit,
                                  long timeLimitMillis, long target);
}
