// SPDX-License-Identifier: Apache-2.0
package dev.memplan.quality;

/**
 * One hard packing instance: the reference greedy and the offsets planner against the bound.
 *
 * @param instance     the instance's description
 * @param buffers      buffers packed
 * @param boundBytes   the most bytes live at one position (here also the perfect packing's arena)
 * @param greedyArena  arena of the reference greedy-by-size best fit
 * @param offsetsArena arena of the engine's offsets planner
 */
public record HardPackingRow(String instance, int buffers, long boundBytes, long greedyArena, long offsetsArena) {

    /** Greedy arena / bound. */
    public double greedyRatio() {
        return Ratios.of(greedyArena, boundBytes);
    }

    /** Offsets arena / bound. */
    public double offsetsRatio() {
        return Ratios.of(offsetsArena, boundBytes);
    }
}
