// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import java.util.Locale;
import picocli.CommandLine;

/** A byte count on the command line: {@code 1073741824}, {@code 512MiB}, {@code 1GiB}, {@code 64KiB}. */
final class ByteCount implements CommandLine.ITypeConverter<Long> {
    private static final String[] UNITS = {"KIB", "MIB", "GIB", "TIB"};

    @Override
    public Long convert(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT);
        long scale = 1;
        for (int i = 0; i < UNITS.length; i++) {
            if (t.endsWith(UNITS[i])) {
                scale = 1L << (10 * (i + 1));
                t = t.substring(0, t.length() - UNITS[i].length()).trim();
                break;
            }
        }
        if (t.endsWith("B")) {
            t = t.substring(0, t.length() - 1).trim();
        }
        try {
            long n = Long.parseLong(t);
            if (n < 0) {
                throw new CommandLine.TypeConversionException("'" + text + "' is negative; give a byte count >= 0");
            }
            return Math.multiplyExact(n, scale);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new CommandLine.TypeConversionException("'" + text
                    + "' is not a byte count; write a whole number, optionally with KiB, MiB, GiB or TiB (e.g. 1GiB)");
        }
    }

    /** {@code 1 GiB}, {@code 1.50 MiB}, or plain bytes below 1 KiB. */
    static String format(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, v == Math.rint(v) ? "%.0f %s" : "%.2f %s", v, units[u]);
    }
}
