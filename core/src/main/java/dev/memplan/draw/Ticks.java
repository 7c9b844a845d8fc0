// SPDX-License-Identifier: Apache-2.0
package dev.memplan.draw;

import java.util.ArrayList;
import java.util.List;

/** Round axis ticks: bytes at 1, 2 or 5 times a power of 1024 times a power of ten; positions likewise. */
final class Ticks {
    private Ticks() {
    }

    /** About {@code count} byte ticks from 0 to {@code max}, at steps that read well in KiB/MiB/GiB. */
    static List<Long> bytes(long max, int count) {
        if (max <= 0) {
            return List.of(0L);
        }
        // the unit is the largest power of 1024 up to twice the raw step: steps read 512 KiB, 1 MiB, ...
        double rawStep = (double) max / count;
        long unit = 1;
        while (unit <= Long.MAX_VALUE / 1024 && unit * 1024.0 <= rawStep * 2) {
            unit *= 1024;
        }
        long step = Math.max(1, Math.round(nice(rawStep / unit) * unit));
        List<Long> out = new ArrayList<>();
        for (long t = 0; t <= max && t >= 0; t += step) {
            out.add(t);
        }
        return out;
    }

    /** About {@code count} position ticks from 0 to {@code max}, at whole steps of 1, 2 or 5 times 10^k. */
    static List<Integer> positions(int max, int count) {
        long step = Math.max(1, (long) nice((double) max / count));
        List<Integer> out = new ArrayList<>();
        for (long t = 0; t <= max; t += step) {
            out.add((int) t);
        }
        return out;
    }

    /** The smallest of 1, 2, 5 times a power of ten at or above {@code x} (below 1: fractions). */
    private static double nice(double x) {
        if (x <= 0) {
            return 1;
        }
        double p = Math.pow(10, Math.floor(Math.log10(x)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * p >= x) {
                return m * p;
            }
        }
        return 10 * p;
    }
}
