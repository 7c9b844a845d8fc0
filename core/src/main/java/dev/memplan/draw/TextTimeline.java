// SPDX-License-Identifier: Apache-2.0
package dev.memplan.draw;

import dev.memplan.ActivationPlan;
import dev.memplan.Schedule;
import dev.memplan.io.TerminalText;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A compact picture of a plan for the terminal, like TensorFlow Lite Micro's arena printout:
 * rows are execution positions (or buckets of them), columns the arena (each a fixed number of
 * bytes), and each cell shows the owner that occupies it by a letter ({@code .} where free). The
 * letters of the largest owners are named below, escaped.
 */
final class TextTimeline {
    /** Letters given to owners, cycling by owner index. */
    private static final String LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    /** Owners named in the key below the picture. */
    private static final int KEY_SIZE = 8;

    private TextTimeline() {
    }

    /**
     * The text picture of a plan.
     *
     * @param plan    a complete plan
     * @param columns cells across the arena
     * @param maxRows rows at most; positions are bucketed to fit
     * @return the picture, one line per row, then the key of the largest owners
     *
     * @throws IllegalArgumentException when {@code columns} or {@code maxRows} is below 1
     */
    public static String render(ActivationPlan plan, int columns, int maxRows) {
        if (columns < 1 || maxRows < 1) {
            throw new IllegalArgumentException("the timeline needs at least one column and one row");
        }
        ActivationPlan.Layout s = plan.schedule();
        int positions = s.numPositions();
        int perRow = (positions + maxRows - 1) / maxRows;
        int rows = (positions + perRow - 1) / perRow;
        long peak = plan.peakBytes();
        long perColumn = Math.max(1, (peak + columns - 1) / columns);
        char[][] cells = new char[rows][columns];
        for (char[] row : cells) {
            Arrays.fill(row, '.');
        }
        long[] liveMax = new long[rows];
        long[] delta = new long[positions + 1];
        int n = s.numOwners();
        for (int o = 0; o < n; o++) {
            long bytes = plan.sizeOf(s.ownerValue(o));
            delta[s.def(o)] += bytes;
            delta[s.useEnd(o) + 1] -= bytes;
            if (bytes == 0) {
                continue;
            }
            long offset = plan.offsetOf(s.ownerValue(o));
            int c0 = (int) (offset / perColumn);
            int c1 = (int) Math.min(columns - 1, (offset + bytes - 1) / perColumn);
            char letter = LETTERS.charAt(o % LETTERS.length());
            for (int r = s.def(o) / perRow; r <= s.useEnd(o) / perRow; r++) {
                for (int c = c0; c <= c1; c++) {
                    if (cells[r][c] == '.') {
                        cells[r][c] = letter;
                    }
                }
            }
        }
        long live = 0;
        for (int p = 0; p < positions; p++) {
            live += delta[p];
            liveMax[p / perRow] = Math.max(liveMax[p / perRow], live);
        }
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "  arena timeline (%s plan): %s arena, one column = %s, one row = %s%n",
                plan.strategy().name().toLowerCase(Locale.ROOT), ByteUnits.human(peak), ByteUnits.human(perColumn),
                perRow == 1 ? "one position" : perRow + " positions"));
        int labelWidth = String.valueOf(positions - 1).length() * (perRow == 1 ? 1 : 2) + (perRow == 1 ? 0 : 1);
        for (int r = 0; r < rows; r++) {
            int p0 = r * perRow;
            int p1 = Math.min(positions, p0 + perRow) - 1;
            String label = p0 == p1 ? Integer.toString(p0) : p0 + "-" + p1;
            out.append(String.format(Locale.ROOT, "  %" + labelWidth + "s |", label)).append(cells[r])
                    .append("| ").append(ByteUnits.human(liveMax[r])).append(" live\n");
        }
        out.append(key(plan, s));
        return out.toString();
    }

    /** The letters of the largest owners, with their escaped names. */
    private static String key(ActivationPlan plan, ActivationPlan.Layout s) {
        List<Integer> owners = new ArrayList<>();
        for (int o = 0; o < s.numOwners(); o++) {
            owners.add(o);
        }
        owners.sort((a, b) -> Long.compare(plan.sizeOf(s.ownerValue(b)), plan.sizeOf(s.ownerValue(a))));
        StringBuilder out = new StringBuilder();
        if (s.numOwners() > LETTERS.length()) {
            out.append("  letters repeat every ").append(LETTERS.length()).append(" owners; the largest:\n");
        }
        for (int i = 0; i < Math.min(KEY_SIZE, owners.size()); i++) {
            int o = owners.get(i);
            int v = s.ownerValue(o);
            out.append("  ").append(LETTERS.charAt(o % LETTERS.length())).append("  ")
                    .append(TerminalText.escape(s.graph().value(v).displayName())).append("  ")
                    .append(ByteUnits.human(plan.sizeOf(v))).append(", positions ").append(s.def(o)).append('-')
                    .append(s.useEnd(o)).append('\n');
        }
        return out.toString();
    }
}
