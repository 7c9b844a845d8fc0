// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import java.util.Locale;
import picocli.CommandLine;

/**
 * A byte count on the command line: a whole number of bytes, optionally with a unit, case
 * ignored. Binary units: {@code KiB MiB GiB TiB} and the short {@code K M G T} (as in
 * {@code java -Xmx2g}), powers of 1024. Decimal units: {@code KB MB GB TB}, powers of 1000 (as
 * disks are sold). So {@code 2GiB} = {@code 2G} = 2,147,483,648 and {@code 2GB} = 2,000,000,000.
 */
final class ByteCount implements CommandLine.ITypeConverter<Long> {
    /** Suffixes, longest first so that {@code GIB} is not read as {@code B}. */
    private static final String[] SUFFIXES = {"KIB", "MIB", "GIB", "TIB", "KB", "MB", "GB", "TB", "K", "M", "G", "T",
            "B"};
    private static final long[] SCALES = {1L << 10, 1L << 20, 1L << 30, 1L << 40, 1_000L, 1_000_000L,
            1_000_000_000L, 1_000_000_000_000L, 1L << 10, 1L << 20, 1L << 30, 1L << 40, 1};

    @Override
    public Long convert(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT);
        long scale = 1;
        for (int i = 0; i < SUFFIXES.length; i++) {
            if (t.endsWith(SUFFIXES[i])) {
                scale = SCALES[i];
                t = t.substring(0, t.length() - SUFFIXES[i].length()).trim();
                break;
            }
        }
        try {
            long n = Long.parseLong(t);
            if (n < 0) {
                throw new CommandLine.TypeConversionException("'" + text + "' is negative; give a byte count >= 0");
            }
            return Math.multiplyExact(n, scale);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new CommandLine.TypeConversionException("'" + text + "' is not a byte count; write a whole number,"
                    + " optionally with a unit: KiB, MiB, GiB, TiB or K, M, G, T (powers of 1024) or KB, MB, GB, TB"
                    + " (powers of 1000), e.g. 2GiB");
        }
    }

    /** {@code 1 GiB}, {@code 1.50 MiB}, or plain bytes below 1 KiB. */
    static String format(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        return inBinaryUnits(bytes, true);
    }

    /**
     * {@code bytes} (at least 1024) in the largest binary unit, KiB to EiB, that keeps the value at
     * least 1: {@code 1.50 MiB}; a whole value prints without decimals when {@code trimWhole}.
     */
    static String inBinaryUnits(long bytes, boolean trimWhole) {
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, trimWhole && v == Math.rint(v) ? "%.0f %s" : "%.2f %s", v, units[u]);
    }
}
