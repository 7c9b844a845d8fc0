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
    CompiledGraph compile(FlatGraph graph, int[] valueRoot, boolean includeGraphInputs);

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
}
