// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import java.util.Locale;

/**
 * Whether a node's output may take the buffer of an input that dies at that node (in-place reuse,
 * docs/design.md §3b). {@link #AUTO}, the default, keeps the seed's slots contract: on for offsets
 * plans, off for slots plans.
 */
public enum InPlace {
    /** On for {@link Strategy#OFFSETS}, off for {@link Strategy#SLOTS}. */
    AUTO,
    /** In-place reuse for either strategy. */
    ON,
    /** Every produced value owns its buffer (the liveness of §3 alone). */
    OFF;

    /**
     * {@return whether in-place reuse applies to plans of {@code strategy}}
     *
     * @param strategy the plan's strategy
     */
    public boolean enabledFor(Strategy strategy) {
        return this == ON || (this == AUTO && strategy == Strategy.OFFSETS);
    }

    /**
     * Parses {@code auto}, {@code on} or {@code off} (case-insensitive).
     *
     * @param text {@code auto}, {@code on} or {@code off}, in any case
     * @return the mode
     */
    public static InPlace parse(String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown in-place mode '" + text + "'; use on, off or auto", e);
        }
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
