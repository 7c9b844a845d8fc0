// SPDX-License-Identifier: Apache-2.0
package dev.memplan.draw;

import java.util.Locale;

/** Byte counts in human units (B, KiB, MiB, GiB, ...; powers of 1024) for axes and labels. */
final class ByteUnits {
    private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

    private ByteUnits() {
    }

    /**
     * A byte count for people.
     *
     * @param bytes a byte count
     * @return e.g. {@code 1.5 KiB} for 1536: at most three significant digits, no trailing zeros
     */
    public static String human(long bytes) {
        if (bytes < 1024 && bytes > -1024) {
            return bytes + " B";
        }
        double v = bytes;
        int u = 0;
        while (Math.abs(v) >= 1024 && u < UNITS.length - 1) {
            v /= 1024;
            u++;
        }
        String number = Math.abs(v) >= 100 ? String.format(Locale.ROOT, "%.0f", v)
                : Math.abs(v) >= 10 ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%.2f", v);
        if (number.contains(".")) {
            number = number.replaceAll("0+$", "").replaceAll("\\.$", "");
        }
        return number + " " + UNITS[u];
    }
}
