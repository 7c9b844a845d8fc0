// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Fits the blocks of a kernel whose number of blocks follows one of its sizes: a Loop holds each
 * step's scan outputs until it joins them, so its blocks are a few of its own, then a group per
 * step. The blocks of every probe ({@link BlockEvents}: sizes and give-backs) are read as a head,
 * {@code times} repeats of one group (or one or two fewer), and a tail, where {@code times} is one
 * candidate size and each entry fits a line ({@link WorkspaceFit}) across the probes, the group's
 * the same on every repeat, and a give-back at the same place in every probe.
 */
final class RepeatedBlocks {
    /**
     * The fitted layout.
     *
     * @param times the candidate whose size, less {@code fewer}, is the number of repeats
     * @param fewer how many fewer times than that size the group repeats (at least 0 times)
     * @param head  the blocks before the repeats
     * @param group the blocks of one repeat
     * @param tail  the blocks after them
     */
    record Layout(int times, int fewer, List<Entry> head, List<Entry> group, List<Entry> tail) {
    }

    /**
     * One fitted entry: a block's size, or a give-back ({@link BlockEvents}) of the block taken
     * {@code line} blocks before.
     */
    record Entry(WorkspaceFit.Line line, boolean givesBack) {
        /** {@return the entry as {@link BlockEvents} writes it, where the candidates have sizes {@code n}} */
        long at(long... n) {
            return givesBack ? -Math.max(1, line.at(n)) : line.at(n);
        }
    }

    private RepeatedBlocks() {
    }

    /**
     * {@return the layout of {@code blocks} (per probe, in order) at {@code points}' sizes, empty when
     * their number follows no candidate or a block's size no line}
     */
    static Optional<Layout> fit(List<WorkspaceFit.Probe> points, List<long[]> blocks) {
        int candidates = points.get(0).sizes().length;
        for (int c = 0; c < candidates; c++) {
            long[] perRepeat = countLine(points, blocks, c);
            if (perRepeat == null) {
                continue;
            }
            int group = (int) perRepeat[1];
            int at = c;
            long least = points.stream().mapToLong(pt -> pt.sizes()[at]).min().orElse(0);
            for (int fewer = 0; fewer <= MAX_FEWER; fewer++) {
                long fixed = perRepeat[0] + (long) group * fewer;
                if (fixed < 0 || fixed > Integer.MAX_VALUE || least < fewer) {
                    continue;
                }
                for (int head = 0; head <= fixed; head++) {
                    Optional<Layout> layout = layout(points, blocks, c, fewer, head, (int) fixed - head, group);
                    if (layout.isPresent()) {
                        return layout;
                    }
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The most steps a Loop's first ones may differ from the rest in: ORT's Loop gives back a
     * step's carried values two steps later, so its first two steps are a head, and the group
     * repeats two times fewer than the trip count.
     */
    static final int MAX_FEWER = 2;

    /** {@return {fixed, per step} where every probe has fixed + per step x size c blocks, else null} */
    private static long[] countLine(List<WorkspaceFit.Probe> points, List<long[]> blocks, int c) {
        int other = -1;
        for (int k = 1; k < points.size() && other < 0; k++) {
            if (points.get(k).sizes()[c] != points.get(0).sizes()[c]) {
                other = k;
            }
        }
        if (other < 0) {
            return null;
        }
        long ds = points.get(other).sizes()[c] - points.get(0).sizes()[c];
        long dn = blocks.get(other).length - blocks.get(0).length;
        if (dn <= 0 || dn % ds != 0) {
            return null;
        }
        long per = dn / ds;
        long fixed = blocks.get(0).length - per * points.get(0).sizes()[c]; // below 0 where fewer steps repeat
        if (per > Integer.MAX_VALUE || Math.abs(fixed) > Integer.MAX_VALUE) {
            return null;
        }
        for (int k = 0; k < points.size(); k++) {
            if (blocks.get(k).length != fixed + per * points.get(k).sizes()[c]) {
                return null;
            }
        }
        return new long[] {fixed, per};
    }

    private static Optional<Layout> layout(List<WorkspaceFit.Probe> points, List<long[]> blocks, int c, int fewer,
                                           int head, int tail, int group) {
        List<Entry> heads = new ArrayList<>();
        for (int i = 0; i < head; i++) {
            int at = i;
            Optional<Entry> line = line(points, k -> blocks.get(k)[at]);
            if (line.isEmpty()) {
                return Optional.empty();
            }
            heads.add(line.get());
        }
        List<Integer> repeating = new ArrayList<>(); // the probes with a repeat: the group is read from them
        for (int k = 0; k < points.size(); k++) {
            if (points.get(k).sizes()[c] > fewer) {
                repeating.add(k);
            }
        }
        if (repeating.isEmpty()) {
            return Optional.empty();
        }
        List<WorkspaceFit.Probe> repeatingPoints = repeating.stream().map(points::get).toList();
        List<Entry> groups = new ArrayList<>();
        for (int i = 0; i < group; i++) {
            long[] size = new long[repeating.size()];
            for (int r = 0; r < repeating.size(); r++) {
                long[] b = blocks.get(repeating.get(r));
                size[r] = b[head + i];
                for (int at = head + i; at < b.length - tail; at += group) {
                    if (b[at] != size[r]) {
                        return Optional.empty(); // the repeats differ
                    }
                }
            }
            Optional<Entry> line = line(repeatingPoints, r -> size[r]);
            if (line.isEmpty()) {
                return Optional.empty();
            }
            groups.add(line.get());
        }
        List<Entry> tails = new ArrayList<>();
        for (int i = 0; i < tail; i++) {
            int fromEnd = tail - i;
            Optional<Entry> line = line(points, k -> blocks.get(k)[blocks.get(k).length - fromEnd]);
            if (line.isEmpty()) {
                return Optional.empty();
            }
            tails.add(line.get());
        }
        return Optional.of(new Layout(c, fewer, heads, groups, tails));
    }

    /** What one place holds in each probe: a block's size, or minus a give-back's distance. */
    interface SizeAt {
        long of(int probe);
    }

    /**
     * {@return the entry at one place of every probe, fitted to a line: empty when the place is a
     * block in one probe and a give-back in another, or follows no line}
     */
    static Optional<Entry> line(List<WorkspaceFit.Probe> points, SizeAt size) {
        boolean givesBack = size.of(0) < 0;
        List<WorkspaceFit.Probe> sizes = new ArrayList<>();
        for (int k = 0; k < points.size(); k++) {
            long e = size.of(k);
            if (e < 0 != givesBack) {
                return Optional.empty(); // a block in one probe, a give-back in another
            }
            sizes.add(new WorkspaceFit.Probe(points.get(k).sizes(), Math.abs(e)));
        }
        return WorkspaceFit.fit(sizes).map(line -> new Entry(line, givesBack));
    }

    /** {@return a line that is candidate {@code c}'s size itself} */
    static WorkspaceFit.Line sizeOf(int c) {
        return new WorkspaceFit.Line(new int[] {c}, new BigInteger[] {BigInteger.ZERO, BigInteger.ONE}, BigInteger.ONE);
    }
}
