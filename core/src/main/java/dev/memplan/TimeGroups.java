// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Buffers split where no buffer is alive, for {@link Packing} when the sizes sum past a long: a
 * group's buffers are never alive together with another group's, so each group packs alone from
 * offset 0. The sweep that finds the groups also counts the bytes alive at each time exactly, and
 * refuses what no arena of 64-bit offsets holds: bytes alive together past {@code Long.MAX_VALUE}.
 * A group whose own sizes sum past it (a chain of overlapping lifetimes) is refused too, saying
 * so: the engines place offsets below the sum of the sizes they pack.
 */
final class TimeGroups {
    private final List<int[]> members;

    private TimeGroups(List<int[]> members) {
        this.members = members;
    }

    /** Each group's buffers (input indices, ascending: a group packs as its buffers would alone), groups by time. */
    List<int[]> members() {
        return members;
    }

    /**
     * Splits checked buffers ({@code upper > lower}, sizes {@code >= 0}) at every time where none
     * is alive.
     *
     * @throws InvalidSizeException naming the buffer and the time where the bytes alive together
     *                              pass {@code Long.MAX_VALUE}, or a group whose sizes sum past it
     */
    static TimeGroups of(long[] lower, long[] upper, long[] sizes) {
        int n = sizes.length;
        int[] byStart = IntStream.range(0, n).boxed()
                .sorted(Comparator.<Integer>comparingLong(i -> lower[i]).thenComparingInt(i -> i))
                .mapToInt(Integer::intValue).toArray();
        int[] byEnd = IntStream.range(0, n).boxed()
                .sorted(Comparator.<Integer>comparingLong(i -> upper[i]).thenComparingInt(i -> i))
                .mapToInt(Integer::intValue).toArray();
        List<int[]> groups = new ArrayList<>();
        String chainTooLong = null;
        long live = 0;
        int alive = 0;
        int ended = 0;
        int groupStart = 0;
        long groupSum = 0;
        long groupPeak = 0;
        for (int k = 0; k < n; k++) {
            int b = byStart[k];
            long t = lower[b];
            // Half-open lifetimes: a buffer ending at t is not alive together with one starting at t.
            while (ended < n && upper[byEnd[ended]] <= t) {
                live -= sizes[byEnd[ended++]];
                alive--;
            }
            if (alive == 0 && k > groupStart) {
                chainTooLong = chainTooLong != null ? chainTooLong
                        : sumTooLong(groupSum, groupPeak, lower, upper, byStart, groupStart, k);
                groups.add(sorted(byStart, groupStart, k));
                groupStart = k;
                groupSum = 0;
                groupPeak = 0;
            }
            if (live + sizes[b] < 0) { // both >= 0: a negative sum is an overflow
                throw new InvalidSizeException("buffer " + b + " (" + sizes[b] + " bytes from time " + t
                        + ") brings the bytes alive together at time " + t + " past " + Long.MAX_VALUE
                        + "; no arena of 64-bit offsets holds them: make those buffers smaller or end some sooner");
            }
            live += sizes[b];
            alive++;
            groupPeak = Math.max(groupPeak, live);
            if (groupSum >= 0) { // -1 once the sum has passed a long
                groupSum += sizes[b];
                groupSum = groupSum < 0 ? -1 : groupSum;
            }
        }
        if (n > groupStart) {
            chainTooLong = chainTooLong != null ? chainTooLong
                    : sumTooLong(groupSum, groupPeak, lower, upper, byStart, groupStart, n);
            groups.add(sorted(byStart, groupStart, n));
        }
        if (chainTooLong != null) {
            throw new InvalidSizeException(chainTooLong);
        }
        return new TimeGroups(groups);
    }

    private static int[] sorted(int[] indices, int from, int to) {
        int[] group = Arrays.copyOfRange(indices, from, to);
        Arrays.sort(group);
        return group;
    }

    /** The refusal of a group whose sizes sum past a long ({@code sum < 0}), or null when it fits. */
    private static String sumTooLong(long sum, long peak, long[] lower, long[] upper, int[] byStart, int from,
                                     int to) {
        if (sum >= 0) {
            return null;
        }
        long first = lower[byStart[from]];
        long last = Long.MIN_VALUE;
        for (int k = from; k < to; k++) {
            last = Math.max(last, upper[byStart[k]]);
        }
        return "the buffers alive from time " + first + " to " + last + " (buffer " + byStart[from]
                + " first) overlap in one chain whose sizes sum past " + Long.MAX_VALUE + " bytes, though at most "
                + peak + " are alive at once; memplan packs such a chain only when its sum fits in 64 bits:"
                + " make the buffers smaller or leave a time where none is alive";
    }
}
