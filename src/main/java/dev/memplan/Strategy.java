// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import java.util.Locale;

/**
 * How a plan lays owners out in memory.
 *
 * <ul>
 *   <li>{@link #OFFSETS} (the default): one arena; every owner gets a byte offset into it, and two
 *       owners live at the same position never share a byte. Reaches the lower bound or close to it.
 *   <li>{@link #SLOTS}: the seed's greedy best fit; owners share reusable slots, and the bytes to
 *       reserve are the sum of slot capacities. Slot k starts at the sum of the capacities of slots
 *       {@code 0..k-1}, so a slots plan has offsets too.
 * </ul>
 */
public enum Strategy {
    /** One arena: every owner gets a byte offset into it. */
    OFFSETS,
    /** Reusable slots by greedy best fit; slot bases give the offsets. */
    SLOTS;

    /**
     * Parses {@code offsets} or {@code slots} (case-insensitive).
     *
     * @param text {@code offsets} or {@code slots}, in any case
     * @return the strategy
     */
    public static Strategy parse(String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown strategy '" + text + "'; use offsets or slots", e);
        }
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
