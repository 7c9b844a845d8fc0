// SPDX-License-Identifier: Apache-2.0
package dev.memplan.draw;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The colour of each producing op type, shared by the SVG and the page: the most common op types
 * (by owners produced) get distinct colours, the rest share one grey, so a legend stays short.
 */
final class OpColors {
    /** Colour-blind-friendly qualitative palette (Tableau 10 plus two). */
    private static final String[] PALETTE = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
        "#b07aa1", "#ff9da7", "#9c755f", "#86bcb6", "#8cd17d", "#d37295"};
    /** The colour of op types past the palette. */
    public static final String OTHER = "#bab0ac";

    private final Map<String, String> colorOf;
    private final List<String> ops;
    private final Map<String, Integer> counts;

    private OpColors(Map<String, Integer> counts) {
        this.counts = counts;
        this.ops = new ArrayList<>(counts.keySet());
        ops.sort(Comparator.comparing((String op) -> -counts.get(op)).thenComparing(Comparator.naturalOrder()));
        this.colorOf = new LinkedHashMap<>();
        for (int i = 0; i < ops.size(); i++) {
            colorOf.put(ops.get(i), i < PALETTE.length ? PALETTE[i] : OTHER);
        }
    }

    /**
     * The colours of a picture's op types.
     *
     * @param picture the picture
     * @return a colour for each op type that produced an owner
     */
    public static OpColors of(PictureData picture) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (DrawnOwner o : picture.owners()) {
            counts.merge(o.opType(), 1, Integer::sum);
        }
        return new OpColors(counts);
    }

    /**
     * The op types.
     *
     * @return most owners first (ties by name)
     */
    public List<String> ops() {
        return List.copyOf(ops);
    }

    /**
     * How many owners an op type produced.
     *
     * @param op an op type
     * @return the count, 0 for an op type not in the picture
     */
    public int count(String op) {
        return counts.getOrDefault(op, 0);
    }

    /**
     * The colour of an op type.
     *
     * @param op an op type
     * @return {@code #rrggbb}; {@link #OTHER} past the palette
     */
    public String color(String op) {
        return colorOf.getOrDefault(op, OTHER);
    }

    /**
     * The op types with a colour of their own; the others share {@link #OTHER}.
     *
     * @return most owners first
     */
    public List<String> distinct() {
        return List.copyOf(ops.subList(0, Math.min(ops.size(), PALETTE.length)));
    }
}
