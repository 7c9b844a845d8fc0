// SPDX-License-Identifier: Apache-2.0
package dev.memplan.quality;

/**
 * The plan-quality figures of one case: both strategies' peaks against the shared lower bound.
 *
 * @param family      the case's family
 * @param name        the case's name
 * @param owners      owners planned
 * @param boundBytes  the most bytes live at one position (the same for both strategies)
 * @param slotsPeak   bytes a slots plan reserves
 * @param offsetsPeak bytes an offsets plan reserves
 */
public record QualityRow(String family, String name, int owners, long boundBytes, long slotsPeak, long offsetsPeak) {

    /** Slots peak / bound. */
    public double slotsRatio() {
        return Ratios.of(slotsPeak, boundBytes);
    }

    /** Offsets peak / bound. */
    public double offsetsRatio() {
        return Ratios.of(offsetsPeak, boundBytes);
    }
}
